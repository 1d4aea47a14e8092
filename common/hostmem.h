/*
 * Available host memory: what one more allocation of this process can get
 * before the kernel refuses it or the OOM killer ends the job. Three
 * bounds, each where Linux keeps it:
 *   - MemAvailable of /proc/meminfo (free memory plus reclaimable cache),
 *     shared by every process of the node;
 *   - the cgroup's limit (v2 memory.max, v1 memory.limit_in_bytes) less
 *     its usage other than inactive file cache, the tightest of the
 *     process's cgroup and its ancestors: a Slurm job or a container
 *     shares it among its ranks;
 *   - RLIMIT_AS (`ulimit -v`) less the address space the process already
 *     maps (VmSize): this process's own, counted in virtual memory, so
 *     what a library reserves and never touches (OpenBLAS's buffers)
 *     counts too; under it mmap fails, and OpenBLAS retries for ever.
 * kernels/ and collectives/ check sizes against these before allocating.
 */
#ifndef GCB_HOSTMEM_H
#define GCB_HOSTMEM_H

#include <stdint.h>

#include "common/status.h"

/* A bound that does not apply (no limit) or cannot be read. */
#define GCB_HOSTMEM_NONE UINT64_MAX

struct gcb_hostmem {
  uint64_t meminfo;       /* MemAvailable; free pages before Linux 3.14 */
  uint64_t cgroup;        /* tightest cgroup limit less its usage */
  char cgroup_path[128];  /* the cgroup that sets it, "" when none */
  uint64_t address_space; /* RLIMIT_AS less VmSize */
};

/*
 * Reads the three bounds from the files under root ("/" when NULL; a fake
 * tree in tests): proc/meminfo, proc/self/cgroup, sys/fs/cgroup/...,
 * proc/self/status, and RLIMIT_AS from getrlimit(). A file that is
 * missing or unreadable leaves its bound GCB_HOSTMEM_NONE (the live
 * meminfo then falls back to sysconf's free pages). Never fails.
 */
void gcb_hostmem_read(const char *root, struct gcb_hostmem *out);

/* The address space this process maps now (VmSize of
 * root/proc/self/status, root NULL for "/"), in bytes; 0 when unknown. */
uint64_t gcb_hostmem_mapped(const char *root);

/* RLIMIT_AS less the VmSize in root/proc/self/status now;
 * GCB_HOSTMEM_NONE when unlimited. For a check made later than the read,
 * since the address space grows as the process maps memory. */
uint64_t gcb_hostmem_address_space(const char *root);

/*
 * Whether one of `ranks` ranks sharing the node may allocate `bytes` and
 * map `reserve` more bytes of address space it will not touch: bytes
 * against an equal share of MemAvailable and of the cgroup, bytes +
 * reserve against the whole address-space bound. GCB_OK, or GCB_ENOMEM
 * with "WHAT needs N bytes (x GiB) but this rank may use M bytes (y GiB,
 * WHICH BOUND)" in err.
 */
enum gcb_status gcb_hostmem_fits(const struct gcb_hostmem *m, int ranks,
                                 uint64_t bytes, uint64_t reserve,
                                 const char *what, struct gcb_err *err);

#endif
