/*
 * Conversion of GEMM inputs on the device: the host draws fp32 values
 * (gcb_fill_random_f32), uploads them, and this kernel rounds them to the
 * element type with the CUDA intrinsics, so the device holds exactly what
 * cuBLASLt multiplies; the check reads those stored values back. And the
 * burn-in compare, gpu-burn's: every product held on the device against
 * the first. Kernels and extern "C" launchers only.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "kernels/backend.h"
#include "kernels/cuda_kernels.h"

#define GRID_STRIDE_LOOP(i, n)                                                 \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n);      \
       i += (size_t)gridDim.x * blockDim.x)

__global__ void to_half(const float *src, __half *dst, size_t n) {
  GRID_STRIDE_LOOP(i, n) {
    dst[i] = __float2half_rn(src[i]);
  }
}

__global__ void to_bf16(const float *src, __nv_bfloat16 *dst, size_t n) {
  GRID_STRIDE_LOOP(i, n) {
    dst[i] = __float2bfloat16_rn(src[i]);
  }
}

/* cuda_fp8.h: __nv_cvt_float_to_fp8(x, saturation, interpretation) rounds
 * to nearest even; __NV_SATFINITE clamps to the largest finite value. */
__global__ void to_e4m3(const float *src, __nv_fp8_storage_t *dst, size_t n) {
  GRID_STRIDE_LOOP(i, n) {
    dst[i] = __nv_cvt_float_to_fp8(src[i], __NV_SATFINITE, __NV_E4M3);
  }
}

/* Inputs are in [-1, 1): 127 x rounds into [-127, 127], never -128. */
__global__ void to_int8(const float *src, signed char *dst, size_t n) {
  GRID_STRIDE_LOOP(i, n) {
    dst[i] = (signed char)__float2int_rn(127.0f * src[i]);
  }
}

extern "C" int gcb__cuda_convert(int dtype, const float *src, void *dst,
                                 size_t n, cudaStream_t stream) {
  /* A grid of at most 4096 blocks: conversion is setup, not measured. */
  size_t want = (n + GCB_CUDA_THREADS - 1) / GCB_CUDA_THREADS;
  unsigned int blocks = (unsigned int)(want < 4096 ? (want ? want : 1) : 4096);
  const unsigned int t = GCB_CUDA_THREADS;

  switch (dtype) {
  case GCB_DTYPE_FP16:
    to_half<<<blocks, t, 0, stream>>>(src, (__half *)dst, n);
    break;
  case GCB_DTYPE_BF16:
    to_bf16<<<blocks, t, 0, stream>>>(src, (__nv_bfloat16 *)dst, n);
    break;
  case GCB_DTYPE_FP8:
    to_e4m3<<<blocks, t, 0, stream>>>(src, (__nv_fp8_storage_t *)dst, n);
    break;
  case GCB_DTYPE_INT8:
    to_int8<<<blocks, t, 0, stream>>>(src, (signed char *)dst, n);
    break;
  default:
    return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

/* ---- burn-in: every product against the first ------------------------- */

__device__ double burn_value(const double *p, size_t i) {
  return p[i];
}
__device__ double burn_value(const float *p, size_t i) {
  return p[i];
}
__device__ double burn_value(const __half *p, size_t i) {
  return __half2float(p[i]);
}
__device__ double burn_value(const __nv_bfloat16 *p, size_t i) {
  return __bfloat162float(p[i]);
}
__device__ double burn_value(const int *p, size_t i) {
  return p[i];
}

/* gpu-burn's compare kernel (compare.cu: each thread counts the elements
 * of its position that differ from the first result by more than EPSILON,
 * then one atomicAdd), with blockIdx.y walking the slots compared: a
 * thread's count goes to its slot once, and the first thread to find a
 * fault in a slot counts the product. !(d <= eps) where gpu-burn has
 * d > eps, so that a NaN product is wrong too. */
template <typename T>
__global__ void burn_compare(const T *c, size_t elems, uint64_t first,
                             uint64_t count, uint64_t nslots, double eps,
                             unsigned long long *slot_faults,
                             struct gcb_cuda_burn_faults *faults) {
  for (uint64_t j = blockIdx.y; j < count; j += gridDim.y) {
    uint64_t slot = (first + j) % nslots;
    const T *x = c + slot * elems;
    unsigned long long wrong = 0;
    double worst = 0.0;
    if (slot == 0)
      continue;
    GRID_STRIDE_LOOP(i, elems) {
      double d = fabs(burn_value(x, i) - burn_value(c, i));
      if (!(d <= eps))
        wrong++;
      if (d > worst) /* false for a NaN */
        worst = d;
    }
    if (wrong > 0) {
      if (atomicAdd(&slot_faults[slot], wrong) == 0)
        atomicAdd(&faults->products, 1ULL);
      atomicAdd(&faults->elements, wrong);
    }
    if (worst > 0.0)
      atomicMax(&faults->max_bits,
                (unsigned long long)__double_as_longlong(worst));
  }
}

template <typename T>
static int
burn_launch(const void *slots, size_t elems, uint64_t first, uint64_t count,
            uint64_t nslots, double eps, unsigned long long *slot_faults,
            struct gcb_cuda_burn_faults *faults, cudaStream_t stream) {
  /* x: enough blocks to cover a slot (at most 1024 of them, a grid
   * stride after that); y: one slot per row, at most CUDA's 65535. */
  size_t want = (elems + GCB_CUDA_THREADS - 1) / GCB_CUDA_THREADS;
  dim3 grid((unsigned int)(want < 1024 ? (want ? want : 1) : 1024),
            (unsigned int)(count < 65535 ? count : 65535));
  burn_compare<T><<<grid, GCB_CUDA_THREADS, 0, stream>>>(
      (const T *)slots, elems, first, count, nslots, eps, slot_faults, faults);
  return (int)cudaGetLastError();
}

extern "C" int gcb__cuda_burn_compare(int elem, const void *slots, size_t elems,
                                      uint64_t first, uint64_t count,
                                      uint64_t nslots, double eps,
                                      unsigned long long *slot_faults,
                                      struct gcb_cuda_burn_faults *faults,
                                      cudaStream_t stream) {
  if (count == 0 || nslots == 0)
    return (int)cudaSuccess;
  switch (elem) {
  case GCB_CUDA_ELEM_F64:
    return burn_launch<double>(slots, elems, first, count, nslots, eps,
                               slot_faults, faults, stream);
  case GCB_CUDA_ELEM_F32:
    return burn_launch<float>(slots, elems, first, count, nslots, eps,
                              slot_faults, faults, stream);
  case GCB_CUDA_ELEM_F16:
    return burn_launch<__half>(slots, elems, first, count, nslots, eps,
                               slot_faults, faults, stream);
  case GCB_CUDA_ELEM_BF16:
    return burn_launch<__nv_bfloat16>(slots, elems, first, count, nslots, eps,
                                      slot_faults, faults, stream);
  case GCB_CUDA_ELEM_I32:
    return burn_launch<int>(slots, elems, first, count, nslots, eps,
                            slot_faults, faults, stream);
  default:
    return (int)cudaErrorInvalidValue;
  }
}
