/*
 * The CUDA module: the cuda backend and the nccl transport are built into
 * gcbench-cuda.so, opened with dlopen only when one of them is chosen, so
 * that gcbench itself links neither the CUDA runtime, cuBLASLt nor NCCL
 * (a host run is a plain MPI program; `gcbench --help` loads none of
 * them). The rows of the backend and transport tables (kernels/cuda_row.c,
 * collectives/nccl_row.c) resolve through this loader.
 *
 * Where the module is looked for, first found wins: $GCB_CUDA_MODULE (a
 * path; tests and relocated installs), then beside the executable (the
 * build tree), then GCB_CUDA_MODULE_RELDIR from the executable's
 * directory (an install: bin/../lib/gcbench). Never the current directory.
 */
#ifndef GCB_CUDAMOD_H
#define GCB_CUDAMOD_H

#include <stdbool.h>
#include <stddef.h>

#include "common/status.h"
#include "gcb_revision.h"

#define GCB_CUDAMOD_FILE "gcbench-cuda.so"

/* What the module exports beside its two ops tables: the build it belongs
 * to, and the size of each table's struct as "<table>_size" (size_t). A
 * module of another build or layout is refused rather than called. */
#define GCB_CUDAMOD_BUILD_SYMBOL "gcb_cudamod_build"
#define GCB_CUDAMOD_BUILD GCB_VERSION " " GCB_GIT_REVISION

/*
 * The module's ops table `name` (whose struct is ops_size bytes here),
 * loading the module on the first call (once per process; the result is
 * kept). NULL when the module, one of its libraries or the table is
 * missing, or the module is of another build or layout: then why holds
 * one line saying which.
 */
const void *gcb_cudamod_symbol(const char *name, size_t ops_size, char *why,
                               size_t why_len);

/*
 * For a program that links the CUDA code in itself (the tests against the
 * fake CUDA and NCCL layers, tests/kernels/fake_cuda.c): from this call
 * on, the rows resolve to these two tables (either may be NULL), and
 * neither the driver nor the module is asked. Call it before any row is
 * used, from one thread.
 */
void gcb_cudamod_link_in(const void *backend_table, const void *coll_table);

/*
 * Whether the CUDA driver sees a device, asked of libcuda.so.1 through
 * dlopen (cuInit, cuDeviceGetCount) without the CUDA runtime or the
 * module: the cheap first question of `--backend auto`. false with one
 * line in why (no driver library, no device, the driver's error). true
 * without asking after gcb_cudamod_link_in().
 */
bool gcb_cudamod_driver_devices(char *why, size_t why_len);

#endif
