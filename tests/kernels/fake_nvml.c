/*
 * A stand-in for libnvidia-ml.so.1 with recorded values, so the NVML
 * loader and field decoding are tested without a GPU. One device, bus id
 * 0000:19:00.0, reading like an H200 whose PCIe link trained at gen 4 and
 * one of whose 18 NVLinks is down. Built twice: FAKE_NVML_MINIMAL exports
 * only the four functions gcbench requires, so every optional field must
 * come back unavailable.
 */
#include <stdio.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
enum { OK = 0, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3, NOT_FOUND = 6 };

static int device_token;
static int initialised;

nvmlReturn_t nvmlInit_v2(void) {
  initialised++;
  return OK;
}
nvmlReturn_t nvmlShutdown(void) {
  initialised--;
  return OK;
}
const char *nvmlErrorString(nvmlReturn_t rc) {
  return rc == NOT_FOUND ? "Not Found" : "fake error";
}
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *bus,
                                              nvmlDevice_t *d) {
  if (strcmp(bus, "0000:19:00.0") != 0)
    return NOT_FOUND;
  *d = (nvmlDevice_t)&device_token;
  return OK;
}

#ifndef FAKE_NVML_MINIMAL
static int mine(nvmlDevice_t d) {
  return d == (nvmlDevice_t)&device_token;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned int n) {
  snprintf(v, n, "580.159.03");
  return OK;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *u, unsigned int n) {
  snprintf(u, n, "GPU-5a3c9a1e-0000-4f6e-9d2b-7e1f00c0ffee");
  return mine(d) ? OK : INVALID_ARGUMENT;
}
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned *c) {
  *c = type == 1 ? 1755 : type == 2 ? 3201 : 0;
  return mine(d) && (type == 1 || type == 2) ? OK : INVALID_ARGUMENT;
}
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned *c) {
  *c = type == 1 ? 1980 : 3201;
  return mine(d) ? OK : INVALID_ARGUMENT;
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned *v) {
  *v = 4;
  return mine(d) ? OK : INVALID_ARGUMENT;
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned *v) {
  *v = 5;
  return mine(d) ? OK : INVALID_ARGUMENT;
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned *v) {
  *v = 16;
  return mine(d) ? OK : INVALID_ARGUMENT;
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned *v) {
  *v = 16;
  return mine(d) ? OK : INVALID_ARGUMENT;
}
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned link,
                                      int *active) {
  if (!mine(d) || link >= 18)
    return INVALID_ARGUMENT;
  *active = link != 5;
  return OK;
}
nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, int *cur, int *pend) {
  *cur = *pend = 1;
  return mine(d) ? OK : INVALID_ARGUMENT;
}
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter,
                                         unsigned long long *n) {
  *n = type == 0 ? 3 : 0; /* corrected 3, uncorrected 0 */
  return mine(d) && counter == 0 ? OK : NOT_SUPPORTED;
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *t) {
  *t = 41;
  return mine(d) && sensor == 0 ? OK : INVALID_ARGUMENT;
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *mw) {
  *mw = 123456;
  return mine(d) ? OK : INVALID_ARGUMENT;
}
/* The field-values API (nvml.h nvmlFieldValue_t), answering only
 * NVML_FI_DEV_POWER_INSTANT (186): 687.5 W now, where the one-second
 * average above says 123.456 W. */
typedef struct {
  unsigned int fieldId, scopeId;
  long long timestamp, latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;
  union {
    double dVal;
    unsigned int uiVal;
    unsigned long long ullVal;
  } value;
} fake_field_value;
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int count,
                                      fake_field_value *v) {
  for (int i = 0; i < count; i++) {
    v[i].nvmlReturn = v[i].fieldId == 186 ? OK : NOT_SUPPORTED;
    v[i].valueType = 1; /* unsigned int, milliwatts */
    v[i].value.uiVal = 687500;
  }
  return mine(d) ? OK : INVALID_ARGUMENT;
}
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *mw) {
  *mw = 700000;
  return mine(d) ? OK : INVALID_ARGUMENT;
}
/* Only the pre-535 name: the loader must fall back to it. */
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d,
                                                       unsigned long long *r) {
  *r = 0x4 | 0x40; /* sw_power_cap, hw_thermal */
  return mine(d) ? OK : INVALID_ARGUMENT;
}
#endif
