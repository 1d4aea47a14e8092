/*
 * Memory-bandwidth kernels on the GPU: STREAM (copy, scale, add, triad),
 * read-only and write-only, and a 16-byte byte copy for peer copies.
 *
 * Only kernels and their extern "C" launchers live here (see
 * kernels/cuda_kernels.h); the C files allocate, time and validate. Every
 * kernel is a grid-stride loop over pairs of doubles (double2: one 16-byte
 * load or store per access, which HBM needs to reach full bandwidth),
 * GCB_CUDA_UNROLL independent loads in flight per thread, and
 * thread 0 of block 0 handles an odd last element. No kernel writes an
 * array it reads, so repeated launches leave the output unchanged and one
 * host check covers them all.
 */
#include "kernels/backend.h"
#include "kernels/cuda_kernels.h"

/*
 * UNROLL independent 16-byte loads in flight per thread before any store:
 * one load per thread per iteration leaves HBM latency exposed (a wave of
 * resident threads then has too few bytes in flight to cover it), which
 * nvbandwidth's stridingMemcpyKernel avoids the same way (12 loads, then
 * 12 stores, kernels.cu). As there, the main loop runs full rounds only
 * (all UNROLL elements of the thread exist), so no load or store carries a
 * predicate; with predicated accesses ptxas paired each load with its
 * store (scale: LDG, STG, LDG, STG), one load in flight. And, as there, the
 * pointers are not __restrict__: a store may then alias any later load, so
 * neither the compiler nor ptxas moves a round's loads below its stores
 * (with __restrict__, read-only LDG.CONSTANT loads, ptxas interleaved them
 * again in scale, add and triad). A short tail loop takes what is left,
 * one element at a time. tests/kernels/check-sass checks the order in the
 * sm_90 SASS (every LDG of the main loop before its first STG);
 * scripts/gpu-check repeats it on the device machine.
 */
#define UNROLL GCB_CUDA_UNROLL

/* The thread's first element and the grid's stride. */
#define FIRST_INDEX (blockIdx.x * (size_t)blockDim.x + threadIdx.x)
#define GRID_STRIDE ((size_t)gridDim.x * blockDim.x)

/* Full rounds: the thread's j-th element of this round is i + j * st, all
 * UNROLL of them below n; i is left at the first element of the tail. */
#define FULL_ROUNDS(i, st, n)                                                  \
  for (; (i) + (size_t)(UNROLL - 1) * (st) < (n); (i) += UNROLL * (st))
/* One element per step: what the full rounds left (fewer than UNROLL per
 * thread), and write's whole loop (stores only, nothing to keep ahead). */
#define SINGLES(i, st, n) for (; (i) < (n); (i) += (st))

#define FIRST_THREAD (blockIdx.x == 0 && threadIdx.x == 0)

/* The multiplies and adds below use __dmul_rn/__dadd_rn, which the compiler
 * never fuses into an FMA: results then match the host reference bit for bit
 * (an FMA would differ by up to half an ulp of s*x, which is a large
 * relative error wherever b + s*c nearly cancels). Bandwidth is unaffected. */

__device__ double2 scale2(double s, double2 x) {
  return make_double2(__dmul_rn(s, x.x), __dmul_rn(s, x.y));
}

__device__ double2 add2(double2 x, double2 y) {
  return make_double2(__dadd_rn(x.x, y.x), __dadd_rn(x.y, y.y));
}

__global__ void stream_copy(const double2 *a, double2 *c, size_t n) {
  size_t i = FIRST_INDEX, st = GRID_STRIDE;
  FULL_ROUNDS(i, st, n / 2) {
    double2 x[UNROLL];
#pragma unroll
    for (int j = 0; j < UNROLL; j++)
      x[j] = a[i + j * st];
#pragma unroll
    for (int j = 0; j < UNROLL; j++)
      c[i + j * st] = x[j];
  }
  SINGLES(i, st, n / 2) {
    c[i] = a[i];
  }
  if (FIRST_THREAD && (n & 1))
    ((double *)c)[n - 1] = ((const double *)a)[n - 1];
}

__global__ void stream_scale(double2 *b, const double2 *c, double s, size_t n) {
  size_t i = FIRST_INDEX, st = GRID_STRIDE;
  FULL_ROUNDS(i, st, n / 2) {
    double2 x[UNROLL];
#pragma unroll
    for (int j = 0; j < UNROLL; j++)
      x[j] = c[i + j * st];
#pragma unroll
    for (int j = 0; j < UNROLL; j++)
      b[i + j * st] = scale2(s, x[j]);
  }
  SINGLES(i, st, n / 2) {
    b[i] = scale2(s, c[i]);
  }
  if (FIRST_THREAD && (n & 1))
    ((double *)b)[n - 1] = __dmul_rn(s, ((const double *)c)[n - 1]);
}

__global__ void stream_add(const double2 *a, const double2 *b, double2 *c,
                           size_t n) {
  size_t i = FIRST_INDEX, st = GRID_STRIDE;
  FULL_ROUNDS(i, st, n / 2) {
    double2 x[UNROLL], y[UNROLL];
#pragma unroll
    for (int j = 0; j < UNROLL; j++) {
      x[j] = a[i + j * st];
      y[j] = b[i + j * st];
    }
#pragma unroll
    for (int j = 0; j < UNROLL; j++)
      c[i + j * st] = add2(x[j], y[j]);
  }
  SINGLES(i, st, n / 2) {
    c[i] = add2(a[i], b[i]);
  }
  if (FIRST_THREAD && (n & 1))
    ((double *)c)[n - 1] =
        __dadd_rn(((const double *)a)[n - 1], ((const double *)b)[n - 1]);
}

__global__ void stream_triad(double2 *a, const double2 *b, const double2 *c,
                             double s, size_t n) {
  size_t i = FIRST_INDEX, st = GRID_STRIDE;
  FULL_ROUNDS(i, st, n / 2) {
    double2 x[UNROLL], y[UNROLL];
#pragma unroll
    for (int j = 0; j < UNROLL; j++) {
      x[j] = b[i + j * st];
      y[j] = c[i + j * st];
    }
#pragma unroll
    for (int j = 0; j < UNROLL; j++)
      a[i + j * st] = add2(x[j], scale2(s, y[j]));
  }
  SINGLES(i, st, n / 2) {
    a[i] = add2(b[i], scale2(s, c[i]));
  }
  if (FIRST_THREAD && (n & 1))
    ((double *)a)[n - 1] = __dadd_rn(((const double *)b)[n - 1],
                                     __dmul_rn(s, ((const double *)c)[n - 1]));
}

/* Each thread sums its elements and stores the sum: the store is what
 * keeps the compiler from dropping the loads. */
__global__ void stream_read(const double2 *a, double *partial, size_t n) {
  double sum = 0.0;
  size_t i = FIRST_INDEX, st = GRID_STRIDE;
  FULL_ROUNDS(i, st, n / 2) {
    double2 x[UNROLL];
#pragma unroll
    for (int j = 0; j < UNROLL; j++)
      x[j] = a[i + j * st];
#pragma unroll
    for (int j = 0; j < UNROLL; j++)
      sum = __dadd_rn(sum, __dadd_rn(x[j].x, x[j].y));
  }
  SINGLES(i, st, n / 2) {
    sum = __dadd_rn(sum, __dadd_rn(a[i].x, a[i].y));
  }
  if (FIRST_THREAD && (n & 1))
    sum = __dadd_rn(sum, ((const double *)a)[n - 1]);
  partial[FIRST_INDEX] = sum;
}

__global__ void stream_write(double2 *c, double s, size_t n) {
  size_t i = FIRST_INDEX, st = GRID_STRIDE;
  SINGLES(i, st, n / 2) {
    c[i] = make_double2(s, s);
  }
  if (FIRST_THREAD && (n & 1))
    ((double *)c)[n - 1] = s;
}

__global__ void copy16(uint4 *dst, const uint4 *src, size_t bytes) {
  size_t i = FIRST_INDEX, st = GRID_STRIDE;
  FULL_ROUNDS(i, st, bytes / 16) {
    uint4 x[UNROLL];
#pragma unroll
    for (int j = 0; j < UNROLL; j++)
      x[j] = src[i + j * st];
#pragma unroll
    for (int j = 0; j < UNROLL; j++)
      dst[i + j * st] = x[j];
  }
  SINGLES(i, st, bytes / 16) {
    dst[i] = src[i];
  }
  if (FIRST_THREAD)
    for (size_t i = bytes / 16 * 16; i < bytes; i++)
      ((unsigned char *)dst)[i] = ((const unsigned char *)src)[i];
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
  case GCB_MEMKERNEL_READ:
    return (const void *)stream_read;
  case GCB_MEMKERNEL_WRITE:
    return (const void *)stream_write;
  default:
    return NULL;
  }
}

/* One wave of resident blocks of fn, at most enough for `work` items. */
static int one_wave(const void *fn, size_t work, unsigned int *blocks) {
  int device = 0, sms = 0, per_sm = 0;
  cudaError_t rc;

  if ((rc = cudaGetDevice(&device)) != cudaSuccess ||
      (rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                   device)) != cudaSuccess ||
      (rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
           &per_sm, fn, GCB_CUDA_THREADS, 0)) != cudaSuccess)
    return (int)rc;
  /* One wave keeps every SM streaming; more blocks than work is waste. */
  size_t wave = (size_t)sms * (size_t)(per_sm > 0 ? per_sm : 1);
  size_t needed = (work + GCB_CUDA_THREADS - 1) / GCB_CUDA_THREADS;
  *blocks = (unsigned int)(needed < wave ? (needed > 0 ? needed : 1) : wave);
  return (int)cudaSuccess;
}

extern "C" int gcb__cuda_stream_blocks(int kernel, size_t n,
                                       unsigned int *blocks) {
  const void *fn = stream_kernel_fn(kernel);

  if (fn == NULL || n == 0)
    return (int)cudaErrorInvalidValue;
  return one_wave(fn, n / 2, blocks);
}

extern "C" int gcb__cuda_stream_launch(int kernel, double *a, double *b,
                                       double *c, double s, size_t n,
                                       unsigned int blocks,
                                       cudaStream_t stream) {
  double2 *a2 = (double2 *)a, *b2 = (double2 *)b, *c2 = (double2 *)c;
  const unsigned int t = GCB_CUDA_THREADS;

  switch (kernel) {
  case GCB_MEMKERNEL_COPY:
    stream_copy<<<blocks, t, 0, stream>>>(a2, c2, n);
    break;
  case GCB_MEMKERNEL_SCALE:
    stream_scale<<<blocks, t, 0, stream>>>(b2, c2, s, n);
    break;
  case GCB_MEMKERNEL_ADD:
    stream_add<<<blocks, t, 0, stream>>>(a2, b2, c2, n);
    break;
  case GCB_MEMKERNEL_TRIAD:
    stream_triad<<<blocks, t, 0, stream>>>(a2, b2, c2, s, n);
    break;
  case GCB_MEMKERNEL_READ:
    stream_read<<<blocks, t, 0, stream>>>(a2, c, n);
    break;
  case GCB_MEMKERNEL_WRITE:
    stream_write<<<blocks, t, 0, stream>>>(c2, s, n);
    break;
  default:
    return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

extern "C" int gcb__cuda_copy16_blocks(size_t bytes, unsigned int *blocks) {
  return one_wave((const void *)copy16, bytes / 16, blocks);
}

extern "C" int gcb__cuda_copy16(void *dst, const void *src, size_t bytes,
                                unsigned int blocks, cudaStream_t stream) {
  copy16<<<blocks, GCB_CUDA_THREADS, 0, stream>>>((uint4 *)dst,
                                                  (const uint4 *)src, bytes);
  return (int)cudaGetLastError();
}
