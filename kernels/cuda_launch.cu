/*
 * Small kernels for timing: the empty kernel whose launch cost the launch
 * benchmark measures, and the gate that holds a stream until the host has
 * enqueued everything behind it (so that enqueue cost stays out of copy
 * timings, as nvbandwidth does). Kernels and extern "C" launchers only.
 */
#include "kernels/cuda_kernels.h"

__global__ void empty_kernel(void) {}

/* %globaltimer: nanoseconds, coarse but independent of the SM clock. */
__device__ unsigned long long now_ns(void) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void gate_kernel(volatile int *flag, unsigned long long timeout_ns) {
  unsigned long long start = now_ns();
  while (*flag == 0 && now_ns() - start < timeout_ns)
    ;
}

extern "C" int gcb__cuda_empty_launch(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  return (int)cudaGetLastError();
}

extern "C" int gcb__cuda_gate_launch(volatile int *flag,
                                     unsigned int timeout_ms,
                                     cudaStream_t stream) {
  gate_kernel<<<1, 1, 0, stream>>>(flag, 1000000ull * timeout_ms);
  return (int)cudaGetLastError();
}
