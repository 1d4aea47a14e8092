/*
 * Names of NVML's clock-event ("throttle") reasons.
 */
#include "common/telemetry.h"

#include <stdio.h>

/* Clock-event reason bits (nvml.h nvmlClocksEventReason*), in bit order. */
static const struct {
  uint64_t bit;
  const char *name;
} reason_names[] = {
    {0x1, "gpu_idle"},         {0x2, "applications_clocks"},
    {0x4, "sw_power_cap"},     {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},      {0x20, "sw_thermal"},
    {0x40, "hw_thermal"},      {0x80, "hw_power_brake"},
    {0x100, "display_clocks"},
};

size_t gcb_throttle_reasons_format(uint64_t mask, char *buf, size_t len) {
  size_t used = 0;
  uint64_t known = 0;

  if (len == 0)
    return 0;
  buf[0] = '\0';
  if (mask == 0)
    return (size_t)snprintf(buf, len, "none") < len ? 4 : len - 1;
  for (size_t i = 0; i < sizeof reason_names / sizeof *reason_names; i++) {
    known |= reason_names[i].bit;
    if ((mask & reason_names[i].bit) && used + 1 < len)
      used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "",
                               reason_names[i].name);
  }
  if ((mask & ~known) && used + 1 < len)
    used +=
        (size_t)snprintf(buf + used, len - used, "%s0x%llx", used ? "," : "",
                         (unsigned long long)(mask & ~known));
  return used < len ? used : len - 1;
}

bool gcb_telemetry_too_short(double elapsed_s) {
  return !(elapsed_s >= 2 * GCB_TELEMETRY_PERIOD_S);
}
