/*
 * The NVML loader without a GPU: a missing library leaves every field
 * unavailable with the reason; a stand-in library with recorded values
 * (fake_nvml.c) is decoded field by field; one that exports only the
 * required functions leaves the optional fields unavailable; throttle
 * reasons are named.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/nvml.h"

Test(cuda_nvml, missing_library_is_unavailable_with_the_reason) {
  char why[256] = "";
  struct gcb_nvml *n =
      gcb_nvml_open("/nonexistent/libnvidia-ml.so.1", why, sizeof why);
  cr_expect_null(n);
  cr_expect(strstr(why, "NVML not loaded") != NULL, "%s", why);
  struct gcb_health h;
  memset(&h, 0x5a, sizeof h);
  gcb_nvml_health_unavailable(&h, why);
  cr_expect_not(h.nvml);
  cr_expect_str_eq(h.nvml_why, why);
  cr_expect_str_eq(h.uuid, "");
  cr_expect_eq(h.sm_clock_mhz, -1);
  cr_expect_eq(h.pcie_gen, -1);
  cr_expect_eq(h.nvlinks, -1);
  cr_expect_eq(h.ecc_enabled, -1);
  cr_expect_eq(h.ecc_corrected, -1);
  cr_expect(isnan(h.power_w));
  cr_expect_not(h.throttle_known);
  gcb_nvml_close(NULL); /* a no-op */
}

Test(cuda_nvml, a_library_without_nvml_is_refused) {
  char why[256] = "";
  /* libm has none of NVML's entry points. */
  cr_expect_null(gcb_nvml_open("libm.so.6", why, sizeof why));
  cr_expect(strstr(why, "lacks nvmlInit_v2") != NULL, "%s", why);
}

Test(cuda_nvml, recorded_values_decode_field_by_field) {
  char why[256] = "";
  struct gcb_nvml *n = gcb_nvml_open(GCB_FAKE_NVML, why, sizeof why);
  cr_assert_not_null(n, "%s", why);
  void *dev = NULL;
  cr_expect_not(gcb_nvml_device(n, "0000:3b:00.0", &dev, why, sizeof why));
  cr_expect(strstr(why, "0000:3b:00.0") && strstr(why, "Not Found"), "%s", why);
  cr_assert(gcb_nvml_device(n, "0000:19:00.0", &dev, why, sizeof why), "%s",
            why);
  struct gcb_health h = {0};
  gcb_nvml_health(n, dev, &h);
  cr_expect(h.nvml);
  cr_expect_str_eq(h.uuid, "GPU-5a3c9a1e-0000-4f6e-9d2b-7e1f00c0ffee");
  cr_expect_eq(h.sm_clock_mhz, 1755);
  cr_expect_eq(h.sm_clock_max_mhz, 1980);
  cr_expect_eq(h.mem_clock_mhz, 3201);
  cr_expect_eq(h.pcie_gen, 4);
  cr_expect_eq(h.pcie_gen_max, 5);
  cr_expect_eq(h.pcie_width, 16);
  cr_expect_eq(h.nvlinks, 18);
  cr_expect_eq(h.nvlinks_active, 17);
  cr_expect_eq(h.ecc_enabled, 1);
  cr_expect_eq(h.ecc_corrected, 3);
  cr_expect_eq(h.ecc_uncorrected, 0);
  cr_expect_eq(h.temp_c, 41);
  cr_expect_float_eq(h.power_w, 123.456, 1e-9);
  cr_expect_float_eq(h.power_limit_w, 700.0, 1e-9);
  cr_expect(h.throttle_known, "falls back to the pre-535 function name");
  cr_expect_eq(h.throttle_reasons, 0x44);
  cr_expect_str_eq(h.driver, "580.159.03");
  struct gcb_nvml_sample s;
  gcb_nvml_sample(n, dev, &s);
  cr_expect_eq(s.sm_mhz, 1755.0);
  cr_expect_eq(s.temp_c, 41.0);
  cr_expect_float_eq(s.power_w, 687.5, 1e-9,
                     "telemetry reads instantaneous power (field 186), not "
                     "nvmlDeviceGetPowerUsage's one-second average");
  cr_expect(s.reasons_known);
  gcb_nvml_close(n);
}

Test(cuda_nvml, optional_functions_missing_leave_fields_unavailable) {
  char why[256] = "";
  struct gcb_nvml *n = gcb_nvml_open(GCB_FAKE_NVML_MINIMAL, why, sizeof why);
  cr_assert_not_null(n, "%s", why);
  void *dev = NULL;
  cr_assert(gcb_nvml_device(n, "0000:19:00.0", &dev, why, sizeof why));
  struct gcb_health h = {0};
  gcb_nvml_health(n, dev, &h);
  cr_expect(h.nvml, "the device answered");
  cr_expect_str_eq(h.uuid, "");
  cr_expect_eq(h.sm_clock_mhz, -1);
  cr_expect_eq(h.pcie_width_max, -1);
  cr_expect_eq(h.nvlinks, -1, "unknown, not zero");
  cr_expect_eq(h.ecc_enabled, -1);
  cr_expect_eq(h.temp_c, -1);
  cr_expect(isnan(h.power_w));
  cr_expect_not(h.throttle_known);
  cr_expect_str_eq(h.driver, "");
  struct gcb_nvml_sample s;
  gcb_nvml_sample(n, dev, &s);
  cr_expect(isnan(s.sm_mhz) && isnan(s.power_w) && isnan(s.temp_c));
  cr_expect_not(s.reasons_known);
  gcb_nvml_close(n);
}

/* A driver without the burn's functions (the minimal library exports only
 * the four required ones): every burn field unread, no Xid events. */
Test(cuda_nvml, burn_reading_without_the_functions_is_unread) {
  char why[256] = "";
  struct gcb_nvml *n = gcb_nvml_open(GCB_FAKE_NVML_MINIMAL, why, sizeof why);
  cr_assert_not_null(n, "%s", why);
  void *dev = NULL;
  cr_assert(gcb_nvml_device(n, "0000:19:00.0", &dev, why, sizeof why));
  struct gcb_burn_reading r;
  memset(&r, 0, sizeof r);
  r.xid = 7;
  gcb_nvml_burn_read(n, dev, &r);
  cr_expect(isnan(r.sm_clock_mhz) && isnan(r.mem_clock_mhz));
  cr_expect(isnan(r.temp_c) && isnan(r.power_w));
  cr_expect_not(r.throttle_known);
  cr_expect(r.ecc_sbe == -1 && r.ecc_dbe == -1 && r.pcie_replay == -1);
  cr_expect_eq(r.xid, 7, "left to the Xid poll");
  why[0] = '\0';
  struct gcb_nvml_xids *x = gcb_nvml_xids_open(n, dev, why, sizeof why);
  cr_expect_null(x);
  cr_expect(strstr(why, "event functions") != NULL, "%s", why);
  cr_expect_eq(gcb_nvml_xids_poll(NULL), -1);
  gcb_nvml_xids_close(NULL); /* a no-op */
  gcb_nvml_close(n);
}

/* The recorded values through the burn reading: power is the average
 * (nvmlDeviceGetPowerUsage), not telemetry's instant. */
Test(cuda_nvml, burn_reading_decodes_the_recorded_values) {
  char why[256] = "";
  struct gcb_nvml *n = gcb_nvml_open(GCB_FAKE_NVML, why, sizeof why);
  cr_assert_not_null(n, "%s", why);
  void *dev = NULL;
  cr_assert(gcb_nvml_device(n, "0000:19:00.0", &dev, why, sizeof why));
  struct gcb_burn_reading r;
  memset(&r, 0, sizeof r);
  gcb_nvml_burn_read(n, dev, &r);
  cr_expect_eq(r.sm_clock_mhz, 1755.0);
  cr_expect_eq(r.mem_clock_mhz, 3201.0);
  cr_expect_eq(r.temp_c, 41.0);
  cr_expect_float_eq(r.power_w, 123.456, 1e-9);
  cr_expect(r.throttle_known);
  cr_expect_eq(r.throttle_reasons, 0x44);
  cr_expect_eq(r.ecc_sbe, 3);
  cr_expect_eq(r.ecc_dbe, 0);
  cr_expect_eq(r.pcie_replay, 0);
  gcb_nvml_close(n);
}

struct reason_case {
  uint64_t mask;
  const char *text;
};

Test(cuda_nvml, throttle_reasons_are_named) {
  static const struct reason_case cases[] = {
      {0, "none"},
      {0x1, "gpu_idle"},
      {0x4 | 0x40, "sw_power_cap,hw_thermal"},
      {0x8 | 0x80, "hw_slowdown,hw_power_brake"},
      {0x20 | 0x1000, "sw_thermal,0x1000"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char buf[128];
    size_t n = gcb_throttle_reasons_format(cases[i].mask, buf, sizeof buf);
    cr_expect_str_eq(buf, cases[i].text);
    cr_expect_eq(n, strlen(buf));
  }
  char tiny[8];
  gcb_throttle_reasons_format(0x4 | 0x40, tiny, sizeof tiny);
  cr_expect_eq(strlen(tiny), sizeof tiny - 1, "truncated, terminated");
  cr_expect(GCB_THROTTLE_BAD_MASK & 0x40, "hw_thermal is bad");
  cr_expect_not(GCB_THROTTLE_BAD_MASK & 0x4, "a power cap is normal");
  cr_expect_not(GCB_THROTTLE_BAD_MASK & 0x1, "idle is normal");
}

/* A case shorter than two sampling periods is marked, not summarised as if
 * its course had been sampled. */
Test(cuda_nvml, short_cases_are_marked) {
  cr_expect(gcb_telemetry_too_short(0.0));
  cr_expect(gcb_telemetry_too_short(0.039));
  cr_expect_not(gcb_telemetry_too_short(0.040));
  cr_expect_not(gcb_telemetry_too_short(2.5));
  cr_expect(gcb_telemetry_too_short((double)NAN), "unknown duration: short");
}
