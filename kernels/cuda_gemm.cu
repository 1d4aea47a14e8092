/*
 * Conversion of GEMM inputs on the device: the host draws fp32 values
 * (gcb_fill_random_f32), uploads them, and this kernel rounds them to the
 * element type with the CUDA intrinsics, so the device holds exactly what
 * cuBLASLt multiplies; the check reads those stored values back. Kernels and
 * extern "C" launchers only.
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
