/*
 * Launchers for the CUDA device kernels, callable from C (kernels/cuda*.c).
 *
 * The kernels themselves live in .cu files, which hold nothing but kernels
 * and these thin extern "C" wrappers: all error handling, memory management
 * and timing stay in the C files. Each launcher returns the cudaError_t it
 * saw, as an int, so this header needs nothing from C++ and the caller turns
 * the code into a gcbench status with the call's name. No launcher
 * synchronises; each returns cudaGetLastError() after its launch.
 */
#ifndef GCB_CUDA_KERNELS_H
#define GCB_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per block of every grid-stride kernel below. */
#define GCB_CUDA_THREADS 256

/* Independent 16-byte loads each thread of a memory kernel has in flight
 * (cuda_stream.cu; nvbandwidth's striding copy keeps 12). */
#define GCB_CUDA_UNROLL 4

/*
 * Grid size for STREAM kernel `kernel` (an enum gcb_memkernel value) over n
 * elements on the current device: one full wave of resident blocks, fewer
 * when n is small. Returns cudaSuccess or the error of the failing query;
 * cudaErrorInvalidValue for a kernel that is not an SM kernel (memcpy).
 */
int gcb__cuda_stream_blocks(int kernel, size_t n, unsigned int *blocks);

/*
 * Enqueues one run of STREAM kernel `kernel` over arrays a, b, c of n
 * doubles (formulas as in GCB_MEMKERNEL_LIST, scalar s) on `stream` with
 * `blocks` blocks, moving 16 bytes (two doubles) per access. READ writes
 * one partial sum per thread into c[0 .. blocks * GCB_CUDA_THREADS), so c
 * must hold that many. cudaErrorInvalidValue for a kernel it lacks.
 */
int gcb__cuda_stream_launch(int kernel, double *a, double *b, double *c,
                            double s, size_t n, unsigned int blocks,
                            cudaStream_t stream);

/* Copies `bytes` from src to dst with 16-byte accesses (both 16-byte
 * aligned; a tail of under 16 bytes goes bytewise), `blocks` blocks. Either
 * pointer may be a peer GPU's memory. */
int gcb__cuda_copy16(void *dst, const void *src, size_t bytes,
                     unsigned int blocks, cudaStream_t stream);

/* Grid size for gcb__cuda_copy16 on the current device (one wave). */
int gcb__cuda_copy16_blocks(size_t bytes, unsigned int *blocks);

/*
 * Converts n floats at src (device) to GEMM element type `dtype` (an enum
 * gcb_dtype: fp16, bf16 round to nearest; fp8 e4m3 saturates to +-448;
 * int8 is round(127 x)) at dst (device). cudaErrorInvalidValue for types
 * stored as float or double, which need no conversion.
 */
int gcb__cuda_convert(int dtype, const float *src, void *dst, size_t n,
                      cudaStream_t stream);

/* Element types a burn compare reads (a GEMM's stored output). */
enum gcb_cuda_elem {
  GCB_CUDA_ELEM_F64,
  GCB_CUDA_ELEM_F32,
  GCB_CUDA_ELEM_F16,
  GCB_CUDA_ELEM_BF16,
  GCB_CUDA_ELEM_I32
};

/* What a burn compare found, in device memory, zeroed by the caller. */
struct gcb_cuda_burn_faults {
  unsigned long long products; /* products with any element differing */
  unsigned long long elements; /* elements differing */
  unsigned long long max_bits; /* largest |difference| seen, the bits of a
                                  non-negative double (they order as the
                                  values do, so atomicMax on them works) */
};

/*
 * gpu-burn's compare (compare.cu): products `count` slots long starting
 * at slot `first` (wrapping at `nslots`) of the result array `slots`
 * (nslots x elems elements of type `elem`) are compared element by element
 * with slot 0; an element differs when |x - x0| > eps or either is not a
 * number. Per slot the differing elements are added to slot_faults[slot]
 * (zeroed by the caller), and *faults is updated. Slot 0 itself is
 * skipped.
 */
int gcb__cuda_burn_compare(int elem, const void *slots, size_t elems,
                           uint64_t first, uint64_t count, uint64_t nslots,
                           double eps, unsigned long long *slot_faults,
                           struct gcb_cuda_burn_faults *faults,
                           cudaStream_t stream);

/* One empty kernel, one thread: what launch latency measures. */
int gcb__cuda_empty_launch(cudaStream_t stream);

/*
 * A one-thread kernel that spins until *flag (host-mapped memory) is
 * non-zero, or about `timeout_ms` of GPU time has passed, so that work
 * enqueued behind it starts together once the host has enqueued all of it
 * (nvbandwidth's blocking kernel). The timeout keeps a host failure from
 * hanging the GPU.
 */
int gcb__cuda_gate_launch(volatile int *flag, unsigned int timeout_ms,
                          cudaStream_t stream);

/*
 * One thread follows `steps` links of the index chain at `chain` (next =
 * chain[current], uncached loads), starting at 0, and stores the last
 * index in *out: each step is one dependent read, so steps / time is the
 * read latency of the memory holding chain (a peer GPU's, over NVLink).
 */
int gcb__cuda_chase_launch(const uint64_t *chain, uint64_t steps, uint64_t *out,
                           cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
