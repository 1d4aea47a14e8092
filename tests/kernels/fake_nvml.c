/*
 * A stand-in for libnvidia-ml.so.1 with recorded values, so the NVML
 * loader and field decoding are tested without a GPU. One device, bus id
 * 0000:19:00.0, reading like an H200 whose PCIe link trained at gen 4 and
 * one of whose 18 NVLinks is down. Built twice: FAKE_NVML_MINIMAL exports
 * only the four functions gcbench requires, so every optional field must
 * come back unavailable.
 *
 * The readings that change over a burn-in (clocks, temperature, power,
 * clock-event reasons, ECC and PCIe replay counters, Xid events) come from
 * a state a test scripts through fake_nvml_control() (fake_nvml.h); its
 * defaults are the recorded values above.
 */
#include <stdio.h>
#include <string.h>

#include "tests/kernels/fake_nvml.h"

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
/* nvml.h nvmlReturn_t */
enum {
  OK = 0,
  INVALID_ARGUMENT = 2,
  NOT_SUPPORTED = 3,
  NOT_FOUND = 6,
  TIMEOUT = 10
};

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
static struct fake_nvml state;

void fake_nvml_reset(void) {
  memset(&state, 0, sizeof state);
  state.value[FAKE_NVML_SM_MHZ] = 1755;
  state.value[FAKE_NVML_MEM_MHZ] = 3201;
  state.value[FAKE_NVML_TEMP_C] = 41;
  state.value[FAKE_NVML_POWER_MW] = 123456;
  state.value[FAKE_NVML_REASONS] = 0x4 | 0x40; /* sw_power_cap, hw_thermal */
  state.value[FAKE_NVML_ECC_SBE] = 3;
  state.value[FAKE_NVML_ECC_DBE] = 0;
  state.value[FAKE_NVML_PCIE_REPLAY] = 0;
}

struct fake_nvml *fake_nvml_control(void) {
  static int ready;
  if (!ready)
    fake_nvml_reset(), ready = 1;
  return &state;
}

static int mine(nvmlDevice_t d) {
  return d == (nvmlDevice_t)&device_token;
}

/* A scripted field into *out as its C type, with its return code. */
static nvmlReturn_t field(nvmlDevice_t d, enum fake_nvml_field f,
                          unsigned long long *out) {
  struct fake_nvml *s = fake_nvml_control();
  if (!mine(d))
    return INVALID_ARGUMENT;
  if (s->rc[f] != OK)
    return s->rc[f];
  *out = s->value[f];
  return OK;
}

static nvmlReturn_t field_uint(nvmlDevice_t d, enum fake_nvml_field f,
                               unsigned *out) {
  unsigned long long v = 0;
  nvmlReturn_t rc = field(d, f, &v);
  if (rc == OK)
    *out = (unsigned)v;
  return rc;
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
  if (type != 1 && type != 2) /* NVML_CLOCK_SM, NVML_CLOCK_MEM */
    return INVALID_ARGUMENT;
  return field_uint(d, type == 1 ? FAKE_NVML_SM_MHZ : FAKE_NVML_MEM_MHZ, c);
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
/* Only the volatile counters (NVML_VOLATILE_ECC 0) are recorded here. */
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter,
                                         unsigned long long *n) {
  if (counter != 0 || (type != 0 && type != 1))
    return NOT_SUPPORTED;
  return field(d, type == 0 ? FAKE_NVML_ECC_SBE : FAKE_NVML_ECC_DBE, n);
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *t) {
  if (sensor != 0) /* NVML_TEMPERATURE_GPU */
    return INVALID_ARGUMENT;
  return field_uint(d, FAKE_NVML_TEMP_C, t);
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *mw) {
  return field_uint(d, FAKE_NVML_POWER_MW, mw);
}
nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t d, unsigned *v) {
  return field_uint(d, FAKE_NVML_PCIE_REPLAY, v);
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
  return field(d, FAKE_NVML_REASONS, r);
}

/* ---- events (nvml.h "Event Handling Methods") ---------------------------
 */

/* nvmlEventData_t as nvml.h lays it out. */
typedef struct {
  nvmlDevice_t device;
  unsigned long long eventType, eventData;
  unsigned int gpuInstanceId, computeInstanceId;
} fake_event_data;
struct nvmlEventSet_st {
  int xid; /* holds nvmlEventTypeXidCriticalError (0x8) */
};
static struct nvmlEventSet_st sets[4];

nvmlReturn_t nvmlEventSetCreate(struct nvmlEventSet_st **set) {
  struct fake_nvml *s = fake_nvml_control();
  if (set == NULL || s->sets >= 4)
    return INVALID_ARGUMENT;
  *set = &sets[s->sets++];
  (*set)->xid = 0;
  return OK;
}
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types,
                                      struct nvmlEventSet_st *set) {
  struct fake_nvml *s = fake_nvml_control();
  if (!mine(d) || set == NULL || types == 0)
    return INVALID_ARGUMENT;
  if (s->register_rc != OK)
    return s->register_rc; /* NOT_SUPPORTED: nothing registered */
  if (types & 0x8) {
    set->xid = 1;
    s->registered++;
  }
  return OK;
}
/* One event per call, oldest first; TIMEOUT when none (the timeout is not
 * slept: what a caller asks for is recorded instead). */
nvmlReturn_t nvmlEventSetWait_v2(struct nvmlEventSet_st *set,
                                 fake_event_data *data, unsigned timeout_ms) {
  struct fake_nvml *s = fake_nvml_control();
  if (set == NULL || data == NULL)
    return INVALID_ARGUMENT;
  s->waits++;
  if (timeout_ms > s->longest_wait_ms)
    s->longest_wait_ms = timeout_ms;
  if (s->wait_rc != OK)
    return s->wait_rc;
  if (!set->xid || s->queued == 0) {
    s->timeouts++;
    return TIMEOUT;
  }
  memset(data, 0, sizeof *data);
  data->device = (nvmlDevice_t)&device_token;
  data->eventType = 0x8;
  data->eventData = (unsigned long long)s->queue[0];
  data->gpuInstanceId = data->computeInstanceId = 0xFFFFFFFFu;
  memmove(s->queue, s->queue + 1, (size_t)--s->queued * sizeof *s->queue);
  return OK;
}
nvmlReturn_t nvmlEventSetFree(struct nvmlEventSet_st *set) {
  struct fake_nvml *s = fake_nvml_control();
  if (set == NULL)
    return INVALID_ARGUMENT;
  s->registered -= set->xid;
  s->sets--;
  set->xid = 0;
  return OK;
}

void fake_nvml_raise_xid(int xid) {
  struct fake_nvml *s = fake_nvml_control();
  if (s->registered > 0 && s->queued < FAKE_NVML_XID_QUEUE)
    s->queue[s->queued++] = xid;
}
#endif
