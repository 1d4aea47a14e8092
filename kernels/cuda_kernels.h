/*
 * Launchers for the CUDA device kernels, callable from C (kernels/cuda.c).
 *
 * The kernels themselves live in .cu files, which hold nothing but kernels
 * and these thin extern "C" wrappers: all error handling, memory management
 * and timing stay in cuda.c. Each launcher returns the cudaError_t it saw,
 * as an int, so this header needs nothing from C++ and cuda.c turns the
 * code into a gcbench status with the call's name.
 */
#ifndef GCB_CUDA_KERNELS_H
#define GCB_CUDA_KERNELS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Grid size for STREAM kernel `kernel` (an enum gcb_memkernel value) over n
 * elements on the current device: one full wave of resident blocks, fewer
 * when n is small. Returns cudaSuccess or the error of the failing query;
 * cudaErrorInvalidValue for an unknown kernel.
 */
int gcb__cuda_stream_blocks(int kernel, size_t n, unsigned int *blocks);

/*
 * Enqueues one run of STREAM kernel `kernel` over arrays a, b, c of n
 * doubles (formulas as in GCB_MEMKERNEL_LIST, scalar s) on `stream` with
 * `blocks` blocks. Does not synchronise. Returns cudaGetLastError() after
 * the launch; cudaErrorInvalidValue for an unknown kernel.
 */
int gcb__cuda_stream_launch(int kernel, double *a, double *b, double *c,
                            double s, size_t n, unsigned int blocks,
                            cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
