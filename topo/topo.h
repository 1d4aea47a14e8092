/*
 * Topology through hwloc: loading (live or a saved XML, I/O objects kept),
 * a machine summary, the CPU binding of the calling process, and what the
 * suite needs to map results onto the machine: GPUs, NICs, NUMA nodes and
 * PCIe switches with their PCI paths; the path class of every device pair
 * (nvidia-smi topo -m legend); binding checks of ranks against their GPU;
 * the expected bandwidth of each pair and host link; suspicious facts; and
 * whether the node is a virtual machine.
 *
 * Conventions, stated once:
 * - Fallible functions return enum gcb_status and leave a one-line detail
 *   in the struct gcb_err they are given (which may be NULL).
 * - Everything returned by pointer (device records, strings, facts) is owned
 *   by the topology and valid until gcb_topo_free() or, for facts, the next
 *   setter call on the same topology. Callers never free it.
 * - Binding queries on an XML topology return fake results (hwloc's rule),
 *   so functions that take a binding accept it as a cpuset list string
 *   ("0-3,8"), and only gcb_topo_own_binding() asks the operating system.
 * - CPU and NUMA numbers are the operating system's (what numactl and
 *   taskset take), GPUs and NICs are numbered in PCI bus id order (what
 *   CUDA_DEVICE_ORDER=PCI_BUS_ID and nvidia-smi use).
 */
#ifndef GCB_TOPO_H
#define GCB_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/busid.h"
#include "common/status.h"

struct gcb_topo;

/* Counts and sizes of one machine, for the results document. */
struct gcb_topo_summary {
  int packages;
  int numa_nodes;
  int cores;
  int pus;
  uint64_t llc_bytes;    /* sum over all last-level caches; 0 if unknown */
  uint64_t memory_bytes; /* total memory of the NUMA nodes */
  char cpu_model[128];   /* first package's CPUModel info; "" if unknown */
};

/* --- loading -------------------------------------------------------------- */

/* Limits on a saved topology. The largest real one in tests/data (8 MI250X
 * GPUs) is 134 KiB and 11 elements deep; an XML of 2,000 GPUs ~1.2 MB. */
#define GCB_TOPO_XML_MAX_BYTES ((size_t)64 << 20)
#define GCB_TOPO_XML_MAX_DEPTH 256
#define GCB_TOPO_XML_WAIT_MS 10000
/* hwloc's first reading, in a child process (see gcb_topo_load) */
#define GCB_TOPO_XML_TRIAL_MS 20000
/* GPUs and NICs in one machine, at most: no real one holds more (a DGX-2
 * 16 GPUs; NICs count SR-IOV virtual functions, a few hundred on a host
 * that hands them to VMs). The pair figures and the matrices grow with
 * the square of the count: 10,000 GPUs once took 24 GB. More is refused
 * (GCB_EINPUT, naming the source and the count). */
#define GCB_TOPO_MAX_GPUS 128
#define GCB_TOPO_MAX_NICS 1024
/* Devices (GPUs and NICs) beyond which the text matrix is summarised
 * (pairs per path class): a wider one is no longer read by a person. */
#define GCB_TOPO_MATRIX_MAX 32

/*
 * Loads the topology of this machine (xml_path == NULL) or of a saved hwloc
 * XML file, keeping important I/O objects (PCI devices, OS devices), and
 * discovers devices, paths, NVLinks, the hypervisor (from /proc and /sys
 * when live, from the file's DMI strings otherwise) and the facts.
 * The file is read once (a regular file, a pipe or a FIFO: `<(cat f)`
 * works) and checked before hwloc parses it. GCB_EINPUT, naming it, for a
 * file that cannot be opened, a device or directory, one larger than
 * GCB_TOPO_XML_MAX_BYTES, a pipe silent for GCB_TOPO_XML_WAIT_MS, elements
 * nested deeper than GCB_TOPO_XML_MAX_DEPTH (which would overflow hwloc's
 * recursive parser), an hwloc-3-format or malformed file, and one that
 * hwloc, reading it first in a child process, crashed on or did not finish
 * within GCB_TOPO_XML_TRIAL_MS; GCB_EHWLOC for other hwloc failures;
 * GCB_ENOMEM. *out is NULL on failure.
 */
enum gcb_status gcb_topo_load(const char *xml_path, struct gcb_topo **out,
                              struct gcb_err *err);

/* Frees; NULL is a no-op. */
void gcb_topo_free(struct gcb_topo *t);

/* Whether the topology came from an XML file rather than this machine. */
int gcb_topo_is_from_xml(const struct gcb_topo *t);

void gcb_topo_summarize(const struct gcb_topo *t, struct gcb_topo_summary *out);

/*
 * The calling process's CPU binding as an hwloc list string ("0-1,4") and
 * the number of PUs in it. On an XML topology, GCB_EUNSUPPORTED.
 */
enum gcb_status gcb_topo_own_binding(const struct gcb_topo *t, char *list,
                                     size_t list_len, int *pus,
                                     struct gcb_err *err);

/*
 * Whether a binding (list string) covers every PU of the machine, i.e. the
 * process is effectively unbound. GCB_EINPUT for a malformed list.
 */
enum gcb_status gcb_topo_binding_is_whole(const struct gcb_topo *t,
                                          const char *list, int *whole,
                                          struct gcb_err *err);

/* hwloc version string of the library in use ("2.9.0"). */
void gcb_topo_hwloc_version(char *buf, size_t len);

/* --- devices -------------------------------------------------------------- */

/* Where a PCI object sits on a device's way up to its host bridge. */
enum gcb_topo_hop_role {
  GCB_TOPO_HOP_DEVICE,      /* the GPU or NIC itself */
  GCB_TOPO_HOP_SWITCH_DOWN, /* a PCIe switch's downstream port */
  GCB_TOPO_HOP_SWITCH_UP,   /* a PCIe switch's upstream port */
  GCB_TOPO_HOP_ROOT_PORT,   /* a bridge right below the host bridge */
};

/* One PCI object on a device's path, device first, root port last. */
struct gcb_topo_hop {
  char busid[GCB_BUSID_LEN];
  uint16_t vendor_id, device_id;
  enum gcb_topo_hop_role role;
  double gbps;    /* link speed hwloc read (LnkSta, current, so idle links
                     show downtrained), GB/s per direction; 0 = unknown */
  int gen, width; /* derived from gbps; 0 when ambiguous or unknown */
  char link[48];  /* "gen3 x16", "gen1 x8 or gen2 x4", "" when unknown */
};

/* A GPU: PCI class 0x0300/0x0302 from NVIDIA; 0x0380/0x1200/0x0300 from
 * AMD, however many cuda/nvml/opencl/rsmi OS devices hwloc attached. */
struct gcb_topo_gpu {
  char busid[GCB_BUSID_LEN];
  uint16_t vendor_id, device_id, class_id;
  const char *vendor; /* "NVIDIA", "AMD" */
  char model[96];     /* GPUModel of an OS device, else PCIDevice; or "" */
  const char *arch;   /* "Volta", "Hopper", ... or "unknown" */
  int nvlink_gen;     /* NVLink generation of the architecture; 0 none */
  int numa;           /* OS index of its NUMA node; -1 when not one node */
  const char *cpus;   /* local CPU set (first non-I/O ancestor), list */
  const struct gcb_topo_hop *path;
  int npath;
  double link_gbps;   /* its own link: path[0].gbps or the injected one */
  int pcie_switch;    /* index of the nearest PCIe switch above; -1 none */
  int nvlinks;        /* all its NVLinks (GPUs, NVSwitches, CPU); -1 unknown */
  int cpu_nvlinks;    /* NVLinks to the CPU (POWER systems); 0 none */
  const char *osdevs; /* hwloc OS devices, "cuda0,nvml0"; "" when none */
};

/* A NIC: a PCI device with a network or OpenFabrics OS device, or of PCI
 * class 0x02xx (network) or 0x0c06 (InfiniBand). */
struct gcb_topo_nic {
  char busid[GCB_BUSID_LEN];
  uint16_t vendor_id, device_id, class_id;
  char name[32]; /* OpenFabrics name ("mlx5_0"), else network name */
  int rdma;      /* has an OpenFabrics device or is InfiniBand class */
  int numa;
  const char *cpus;
  const struct gcb_topo_hop *path;
  int npath;
  int pcie_switch;
  const char *osdevs;
};

struct gcb_topo_numa {
  int os_index;
  const char *cpus;
  uint64_t memory_bytes;
};

/* A PCIe switch: an upstream port with two or more downstream ports. */
struct gcb_topo_switch {
  char busid[GCB_BUSID_LEN]; /* its upstream port */
  uint16_t vendor_id, device_id;
  int downstream_ports;
  double uplink_gbps;
  int numa;
};

int gcb_topo_gpu_count(const struct gcb_topo *t);
int gcb_topo_nic_count(const struct gcb_topo *t);
int gcb_topo_numa_count(const struct gcb_topo *t);
int gcb_topo_switch_count(const struct gcb_topo *t);

/* The i-th record; NULL when i is out of range. */
const struct gcb_topo_gpu *gcb_topo_gpu(const struct gcb_topo *t, int i);
const struct gcb_topo_nic *gcb_topo_nic(const struct gcb_topo *t, int i);
const struct gcb_topo_numa *gcb_topo_numa(const struct gcb_topo *t, int i);
const struct gcb_topo_switch *gcb_topo_switch(const struct gcb_topo *t, int i);

/*
 * Index of the GPU (NIC) with that PCI bus id, or -1 when none or when the
 * text is not a bus id: any form common/busid.h accepts ("0000:19:00.0",
 * nvidia-smi's "00000000:19:00.0", lspci's "19:00.0"), in any case.
 */
int gcb_topo_find_gpu_by_busid(const struct gcb_topo *t, const char *busid);
int gcb_topo_find_nic_by_busid(const struct gcb_topo *t, const char *busid);

/* --- path classes --------------------------------------------------------- */

/* Best to worst; the order is meaningful (nearest = smallest). */
enum gcb_topo_class {
  GCB_TOPO_X,    /* the device itself */
  GCB_TOPO_NV,   /* a bonded set of NVLinks */
  GCB_TOPO_PIX,  /* at most one PCIe bridge (one switch) */
  GCB_TOPO_PXB,  /* several PCIe bridges, no host bridge */
  GCB_TOPO_PHB,  /* a PCIe host bridge (typically the CPU) */
  GCB_TOPO_NODE, /* host bridges within one NUMA node */
  GCB_TOPO_SYS,  /* the interconnect between NUMA nodes (UPI, xGMI, ...) */
};

enum gcb_topo_kind { GCB_TOPO_GPU, GCB_TOPO_NIC, GCB_TOPO_HOST };

/* A device of the topology. {GCB_TOPO_HOST, -1} is the CPU side, for host
 * links in gcb_topo_expected_gbps(). */
struct gcb_topo_ref {
  enum gcb_topo_kind kind;
  int index;
};

struct gcb_topo_path {
  enum gcb_topo_class cls;  /* NV when there are NVLinks, else pcie */
  enum gcb_topo_class pcie; /* the PCIe class alone (X for a device itself) */
  int nvlinks;              /* NVLinks between the two GPUs; 0 none */
};

/* "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS"; "?" out of range. */
const char *gcb_topo_class_name(enum gcb_topo_class c);

/* The matrix label: "NV6" for NVLinks, else the class name. */
void gcb_topo_path_label(const struct gcb_topo_path *p, char *buf, size_t len);

/*
 * Path class between two GPUs or NICs. GCB_EINPUT for a bad reference (an
 * index out of range, or a HOST reference).
 */
enum gcb_status gcb_topo_path(const struct gcb_topo *t, struct gcb_topo_ref a,
                              struct gcb_topo_ref b, struct gcb_topo_path *out,
                              struct gcb_err *err);

/*
 * The nearest NICs of a GPU: every NIC at the best class, considering only
 * RDMA NICs when the machine has any, else NICs of gen3 x8 or more when it
 * has any (never a GbE management port). Writes up to max indexes (nics
 * may be NULL when max is 0), returns how
 * many NICs are nearest (0 when there is no NIC, -1 for a bad GPU index),
 * and their class in *cls.
 */
int gcb_topo_nearest_nics(const struct gcb_topo *t, int gpu, int *nics, int max,
                          enum gcb_topo_class *cls);

/* --- expected bandwidth --------------------------------------------------- */

/* NVLink per-link bandwidth per direction in GB/s for generation 1..5. */
double gcb_topo_nvlink_gbps(int nvlink_gen);

/*
 * Expected bandwidth per direction between a and b in GB/s (1e9 bytes/s),
 * or of a's host link when b is {GCB_TOPO_HOST, -1}, with a short basis
 * ("NV6 x 25 GB/s (NVLink2)", "PCIe gen3 x16 via PIX") written to basis.
 * An unknown figure is GCB_OK with *gbps = 0 and the reason in basis (no
 * link speeds, unknown NVLink rate, P2P in a virtual machine). GCB_EINPUT
 * for bad references. basis may be NULL.
 */
enum gcb_status gcb_topo_expected_gbps(const struct gcb_topo *t,
                                       struct gcb_topo_ref a,
                                       struct gcb_topo_ref b, double *gbps,
                                       char *basis, size_t basis_len,
                                       struct gcb_err *err);

/* --- binding checks ------------------------------------------------------- */

/* One rank of a node, as the binding check sees it. */
struct gcb_topo_rank {
  int rank;         /* world rank, for messages */
  const char *cpus; /* its CPU set, list string */
  int gpu;          /* its GPU index; -1 on the host backend */
};

enum gcb_topo_problem_kind {
  GCB_TOPO_PROB_PARTIAL,        /* bound partly outside the GPU's CPUs */
  GCB_TOPO_PROB_REMOTE,         /* bound entirely away from the GPU */
  GCB_TOPO_PROB_UNBOUND,        /* not bound at all */
  GCB_TOPO_PROB_SHARED_GPU,     /* two ranks on one GPU */
  GCB_TOPO_PROB_IDLE_GPU,       /* a GPU without a rank */
  GCB_TOPO_PROB_OVERSUBSCRIBED, /* more ranks than cores, on the node or
                                   bound within some of its cores */
};

/* "partial-binding", "remote-binding", ...; "?" out of range. */
const char *gcb_topo_problem_name(enum gcb_topo_problem_kind k);

struct gcb_topo_problem {
  enum gcb_topo_problem_kind kind;
  int rank;       /* world rank concerned; -1 for node-wide problems */
  int other_rank; /* the rank it shares a GPU with; -1 otherwise */
  int gpu;        /* GPU concerned; -1 when none */
  char what[256]; /* one line: the problem with its numbers */
  char fix[512];  /* one line: the launcher options that fix it */
};

/*
 * Checks the ranks of one node: each rank's binding against its GPU, two
 * ranks on one GPU, GPUs without a rank (only when some rank has a GPU),
 * more ranks than cores on the node, more bound ranks within some cores
 * than those cores. *out is a malloc'ed array of *nout problems (NULL when
 * none) that the caller frees with free(). GCB_EINPUT for a bad CPU list or
 * GPU index (naming the rank); GCB_ENOMEM.
 */
enum gcb_status gcb_topo_check_ranks(const struct gcb_topo *t,
                                     const struct gcb_topo_rank *ranks,
                                     int nranks, struct gcb_topo_problem **out,
                                     int *nout, struct gcb_err *err);

/*
 * Launcher lines that bind every rank of the node to its GPU's local CPUs,
 * in rank order: MPICH/Hydra `-bind-to user:...`, Slurm
 * `--cpu-bind=mask_cpu:...` and numactl per rank, one per line, into buf
 * (truncated to len). Ranks without a GPU keep their binding. GCB_EINPUT
 * for a bad CPU list or GPU index.
 */
enum gcb_status gcb_topo_binding_fix(const struct gcb_topo *t,
                                     const struct gcb_topo_rank *ranks,
                                     int nranks, char *buf, size_t len,
                                     struct gcb_err *err);

/* --- virtual machines ----------------------------------------------------- */

struct gcb_topo_vm {
  int detected;        /* 1 when a hypervisor is seen */
  char hypervisor[48]; /* "KVM", "VMware", ...; "unknown" when only the
                          CPU flag says so; "" when not detected */
  char evidence[160];  /* what was seen, or what was looked at */
};

/*
 * Decides from the texts of /proc/cpuinfo and the DMI strings
 * (/sys/class/dmi/id/sys_vendor, product_name); any may be NULL (unknown).
 * The CPU "hypervisor" flag, or DMI naming KVM, QEMU, VMware, Xen,
 * VirtualBox, Hyper-V, Google Compute Engine or an Amazon EC2 instance
 * other than *.metal, means a virtual machine.
 */
void gcb_topo_vm_classify(const char *cpuinfo, const char *sys_vendor,
                          const char *product_name, struct gcb_topo_vm *out);

/*
 * Reads those files under root ("/" when NULL, or a fake tree in tests) and
 * classifies. Missing files are no error (they count as unknown); GCB_EIO
 * only for a file that exists but cannot be read.
 */
enum gcb_status gcb_topo_vm_read(const char *root, struct gcb_topo_vm *out,
                                 struct gcb_err *err);

/* What is known of this node's hypervisor: read from the system when
 * loaded live, from the file's DMI strings when loaded from XML. */
const struct gcb_topo_vm *gcb_topo_vm(const struct gcb_topo *t);

/* --- suspicious facts ----------------------------------------------------- */

enum gcb_topo_fact_kind {
  GCB_TOPO_FACT_LINK_MISMATCH,   /* a link's two ends report different
                                    speeds (idle downtraining?) */
  GCB_TOPO_FACT_NVLINK_UNEVEN,   /* GPUs with different NVLink counts */
  GCB_TOPO_FACT_NO_NIC_NEAR_GPU, /* GPUs behind a switch with no NIC */
  GCB_TOPO_FACT_NO_NIC,          /* GPUs but no NIC at all */
  GCB_TOPO_FACT_NO_SWITCH,       /* no PCIe switch: layout unknown */
  GCB_TOPO_FACT_VIRTUAL,         /* a virtual machine */
};

/* "link-mismatch", "nvlink-uneven", ...; "?" out of range. */
const char *gcb_topo_fact_name(enum gcb_topo_fact_kind k);

struct gcb_topo_fact {
  enum gcb_topo_fact_kind kind;
  int gpu;        /* the GPU concerned, -1 when several or none */
  int nic;        /* the NIC concerned, -1 when none */
  char text[384]; /* one line, with what to do about it */
};

int gcb_topo_fact_count(const struct gcb_topo *t);
const struct gcb_topo_fact *gcb_topo_fact(const struct gcb_topo *t, int i);

/* ---- text for a person (text.c) ------------------------------------------ */

/* The topology as `gcbench topo` prints it (nvidia-smi topo -m matrix, then
 * devices, expected bandwidths, NUMA nodes, switches, suspicious facts);
 * xml names the saved file it came from, NULL for this machine. */
void gcb_topo_print(FILE *out, const struct gcb_topo *t, const char *xml);

/* Checks the bindings of nranks ranks and prints the problems with their
 * fixes and the launch lines that bind each rank near its GPU. Returns the
 * number of problems, or -1 with err set (ENOMEM, or a rank that names no
 * GPU of t). */
int gcb_topo_print_problems(FILE *out, const struct gcb_topo *t,
                            const struct gcb_topo_rank *ranks, int nranks,
                            struct gcb_err *err);

/* This process's own binding, with a hint to check ranks with --cpuset;
 * prints nothing when the binding cannot be read. */
void gcb_topo_print_own_binding(FILE *out, const struct gcb_topo *t);

#endif
