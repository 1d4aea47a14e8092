/*
 * The pointer chase that measures peer-memory read latency: one thread,
 * each load's address taken from the previous load, so no two reads
 * overlap. Loads use ld.global.cv (__ldcv: cache as volatile, fetch again
 * each time) so a repeated index is not served from a cache on this GPU.
 * Kernel and extern "C" launcher only.
 */
#include "kernels/cuda_kernels.h"

__global__ void chase_kernel(const uint64_t *chain, uint64_t steps,
                             uint64_t *out) {
  uint64_t at = 0;
  for (uint64_t s = 0; s < steps; s++)
    at = __ldcv(chain + at);
  *out = at;
}

extern "C" int gcb__cuda_chase_launch(const uint64_t *chain, uint64_t steps,
                                      uint64_t *out, cudaStream_t stream) {
  chase_kernel<<<1, 1, 0, stream>>>(chain, steps, out);
  return (int)cudaGetLastError();
}
