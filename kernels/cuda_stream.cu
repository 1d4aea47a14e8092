/*
 * STREAM memory-bandwidth kernels (copy, scale, add, triad) on the GPU.
 *
 * Only kernels and their extern "C" launchers live here (see
 * kernels/cuda_kernels.h); cuda.c allocates, times and validates. Each
 * kernel is a grid-stride loop so one launch of one wave of resident blocks
 * covers any array length. No kernel writes an array it reads, so repeated
 * launches leave the output unchanged and one host check covers them all.
 */
#include "kernels/backend.h"
#include "kernels/cuda_kernels.h"

/* 256 threads: full occupancy on sm_80/sm_90 for these register-light loops. */
static const int threads_per_block = 256;

/* Grid-stride indices; size_t because arrays may exceed 2^31 elements. */
#define GRID_STRIDE_LOOP(i, n)                                                 \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n);      \
       i += (size_t)gridDim.x * blockDim.x)

/* The multiplies and adds below use __dmul_rn/__dadd_rn, which the compiler
 * never fuses into an FMA: results then match the host reference bit for bit
 * (an FMA would differ by up to half an ulp of s*x, which is a large
 * relative error wherever b + s*c nearly cancels). Bandwidth is unaffected. */

__global__ void stream_copy(const double *__restrict__ a,
                            double *__restrict__ c, size_t n) {
  GRID_STRIDE_LOOP(i, n) { c[i] = a[i]; }
}

__global__ void stream_scale(double *__restrict__ b,
                             const double *__restrict__ c, double s, size_t n) {
  GRID_STRIDE_LOOP(i, n) { b[i] = __dmul_rn(s, c[i]); }
}

__global__ void stream_add(const double *__restrict__ a,
                           const double *__restrict__ b, double *__restrict__ c,
                           size_t n) {
  GRID_STRIDE_LOOP(i, n) { c[i] = __dadd_rn(a[i], b[i]); }
}

__global__ void stream_triad(double *__restrict__ a,
                             const double *__restrict__ b,
                             const double *__restrict__ c, double s, size_t n) {
  GRID_STRIDE_LOOP(i, n) { a[i] = __dadd_rn(b[i], __dmul_rn(s, c[i])); }
}

/* Kernel entry point by gcb_memkernel id, for the occupancy query. */
static const void *stream_kernel_fn(int kernel) {
  switch (kernel) {
  case GCB_MEMKERNEL_COPY:
    return (const void *)stream_copy;
  case GCB_MEMKERNEL_SCALE:
    return (const void *)stream_scale;
  case GCB_MEMKERNEL_ADD:
    return (const void *)stream_add;
  case GCB_MEMKERNEL_TRIAD:
    return (const void *)stream_triad;
  default:
    return NULL;
  }
}

extern "C" int gcb__cuda_stream_blocks(int kernel, size_t n,
                                       unsigned int *blocks) {
  const void *fn = stream_kernel_fn(kernel);
  int device = 0, sms = 0, per_sm = 0;
  cudaError_t rc;

  if (fn == NULL || n == 0)
    return (int)cudaErrorInvalidValue;
  if ((rc = cudaGetDevice(&device)) != cudaSuccess ||
      (rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                   device)) != cudaSuccess ||
      (rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
           &per_sm, fn, threads_per_block, 0)) != cudaSuccess)
    return (int)rc;

  /* One wave keeps every SM streaming; more blocks than elements is waste. */
  size_t wave = (size_t)sms * (size_t)(per_sm > 0 ? per_sm : 1);
  size_t needed = (n + threads_per_block - 1) / threads_per_block;
  *blocks = (unsigned int)(needed < wave ? needed : wave);
  return (int)cudaSuccess;
}

extern "C" int gcb__cuda_stream_launch(int kernel, double *a, double *b,
                                       double *c, double s, size_t n,
                                       unsigned int blocks,
                                       cudaStream_t stream) {
  switch (kernel) {
  case GCB_MEMKERNEL_COPY:
    stream_copy<<<blocks, threads_per_block, 0, stream>>>(a, c, n);
    break;
  case GCB_MEMKERNEL_SCALE:
    stream_scale<<<blocks, threads_per_block, 0, stream>>>(b, c, s, n);
    break;
  case GCB_MEMKERNEL_ADD:
    stream_add<<<blocks, threads_per_block, 0, stream>>>(a, b, c, n);
    break;
  case GCB_MEMKERNEL_TRIAD:
    stream_triad<<<blocks, threads_per_block, 0, stream>>>(a, b, c, s, n);
    break;
  default:
    return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}
