/*
 * One GPU's health as the backend reads it (kernels/backend.h health())
 * and the results document writes it (nodes[].gpus, docs/results-schema.md):
 * a leaf type, so that reports/ can write it without depending on kernels/.
 */
#ifndef GCB_HEALTH_H
#define GCB_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

/*
 * One GPU's health, for the results header. CUDA runtime fields are always
 * filled; NVML fields are -1 (integers), NAN (reals) or "" (strings) when
 * NVML or the GPU does not report them; never guessed.
 */
#define GCB_HEALTH_MAX_NVLINKS 18 /* NVML_NVLINK_MAX_LINKS, nvml.h */
struct gcb_health {
  int ordinal;
  char name[96];
  char bus_id[32];
  int cc_major, cc_minor;
  int sm_count;
  uint64_t memory_bytes;
  int l2_bytes;
  /* NVML; nvml == false: all of these are unavailable, reason in nvml_why */
  bool nvml;
  char nvml_why[128];
  char uuid[96];
  int sm_clock_mhz, sm_clock_max_mhz, mem_clock_mhz, mem_clock_max_mhz;
  int pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
  int nvlinks; /* links NVML reports a state for; -1 unknown */
  int nvlinks_active;
  int ecc_enabled;                          /* 1, 0, -1 */
  long long ecc_corrected, ecc_uncorrected; /* volatile counts */
  int temp_c;
  double power_w, power_limit_w;
  uint64_t throttle_reasons;
  bool throttle_known;
  /* versions: "" when unknown */
  char driver[32]; /* NVML driver version, "580.159.03" */
  char cuda_driver[16], cuda_runtime[16], nccl[16];
};

#endif
