/*
 * The CUDA module's identity (common/cudamod.h): compiled only into
 * gcbench-cuda.so, beside the cuda backend (kernels/cuda*.c) and the nccl
 * transport (collectives/nccl.c). The loader in gcbench refuses a module
 * whose build string or table sizes differ from its own.
 */
#include <stddef.h>

#include "collectives/comm.h"
#include "common/cudamod.h"
#include "kernels/backend.h"

const char gcb_cudamod_build[] = GCB_CUDAMOD_BUILD;
const size_t gcb_backend_cuda_size = sizeof(struct gcb_backend_ops);
const size_t gcb_coll_nccl_size = sizeof(struct gcb_coll_ops);
