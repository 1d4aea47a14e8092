/*
 * What NVML says about a GPU while it works (clocks, power, temperature,
 * clock-event or "throttle" reasons): sampled by the CUDA backend around
 * a measurement (kernels/backend.h telemetry_start/stop), carried with
 * each rank's result (reports/record.h) and written beside its figure.
 */
#ifndef GCB_TELEMETRY_H
#define GCB_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Clocks, power, temperature and throttle reasons sampled in the
 * background between telemetry_start() and telemetry_stop(). A value the
 * GPU does not report is NAN (JSON null); `available` false means nothing
 * was sampled, with the reason in `why`.
 */
struct gcb_telemetry {
  bool available;
  char why[96];
  int samples;
  double sm_clock_mhz_min, sm_clock_mhz_mean, sm_clock_mhz_max;
  double mem_clock_mhz_mean;
  double power_w_mean, power_w_max;
  double temp_c_max;
  uint64_t throttle_reasons; /* OR of the NVML clock-event reasons seen */
  bool throttle_known;       /* false: the GPU did not report them */
  bool too_short;            /* the case ran for less than two sampling
                                periods: min/mean/max are from its first
                                and last readings, not its course */
};

/* GCB_TELEMETRY_PERIOD_S: how often the CUDA backend samples (20 ms).
 * gcb_telemetry_too_short: whether a case of `elapsed_s` seconds gave the
 * background sampler fewer than two periods (NVML's readings are then the
 * state around the case, not during it). */
#define GCB_TELEMETRY_PERIOD_S 0.020
bool gcb_telemetry_too_short(double elapsed_s);

/*
 * Names the clock-event ("throttle") reason bits of mask, comma-separated,
 * as "sw_power_cap,hw_thermal"; unknown bits as "0x..."; "none" for 0.
 * Returns the length written (truncated to len - 1).
 */
size_t gcb_throttle_reasons_format(uint64_t mask, char *buf, size_t len);

/* Bits that mean the GPU was slowed against the user's wishes (thermal,
 * power brake, hardware slowdown), as opposed to idle or a power cap. */
#define GCB_THROTTLE_BAD_MASK UINT64_C(0xE8)

#endif
