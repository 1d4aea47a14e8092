/*
 * NVML through dlopen (see nvml.h). The declarations below are copied by
 * hand from NVIDIA's nvml.h (as published in NVIDIA/go-nvml gen/nvml/nvml.h
 * and the NVML API reference): enums are ints in its C ABI, nvmlDevice_t is
 * an opaque pointer, every function returns nvmlReturn_t (0 = success).
 * Only these four symbols are required; any other missing one leaves its
 * field unavailable, so an old driver still gives what it can.
 */
#include "kernels/nvml.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t; /* NVML_SUCCESS = 0 */
typedef struct nvmlDevice_st *nvmlDevice_t;
enum { NVML_SUCCESS = 0 };
enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 };
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 }; /* nvmlClockType_t */
enum { NVML_TEMPERATURE_GPU = 0 };              /* nvmlTemperatureSensors_t */
enum {
  NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
  NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
};
enum { NVML_VOLATILE_ECC = 0 }; /* nvmlEccCounterType_t */
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
/* nvml.h: field ids and the field-value record (its C ABI layout). */
enum { NVML_FI_DEV_POWER_INSTANT = 186 };
enum { /* nvmlValueType_t */
       NVML_VALUE_TYPE_DOUBLE = 0,
       NVML_VALUE_TYPE_UNSIGNED_INT = 1,
       NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
       NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
       NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
       NVML_VALUE_TYPE_SIGNED_INT = 5
};
typedef union {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  unsigned short usVal;
} nvmlValue_t;
typedef struct {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType; /* nvmlValueType_t */
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
} nvmlFieldValue_t;
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
/* nvml.h, nvmlReturn_t: the codes the burn reading tells apart. */
enum { NVML_ERROR_NOT_SUPPORTED = 3, NVML_ERROR_TIMEOUT = 10 };
/* nvml.h, "Event Types": nvmlEventTypeXidCriticalError 0x08LL, and the
 * event record nvmlEventSetWait_v2 fills (nvmlEventData_st, its C ABI
 * layout: device, eventType, eventData (the Xid; 999 unknown),
 * gpuInstanceId, computeInstanceId). */
#define NVML_EVENT_TYPE_XID_CRITICAL_ERROR 0x0000000000000008ULL
typedef struct nvmlEventSet_st *nvmlEventSet_t;
typedef struct {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlEventData_t;

/* Every function used: name, return, parameter list. */
#define NVML_FUNCTIONS(X)                                                      \
  X(nvmlInit_v2, nvmlReturn_t, (void))                                         \
  X(nvmlShutdown, nvmlReturn_t, (void))                                        \
  X(nvmlErrorString, const char *, (nvmlReturn_t))                             \
  X(nvmlDeviceGetHandleByPciBusId_v2, nvmlReturn_t,                            \
    (const char *, nvmlDevice_t *))                                            \
  X(nvmlSystemGetDriverVersion, nvmlReturn_t, (char *, unsigned int))          \
  X(nvmlDeviceGetUUID, nvmlReturn_t, (nvmlDevice_t, char *, unsigned int))     \
  X(nvmlDeviceGetClockInfo, nvmlReturn_t, (nvmlDevice_t, int, unsigned int *)) \
  X(nvmlDeviceGetMaxClockInfo, nvmlReturn_t,                                   \
    (nvmlDevice_t, int, unsigned int *))                                       \
  X(nvmlDeviceGetCurrPcieLinkGeneration, nvmlReturn_t,                         \
    (nvmlDevice_t, unsigned int *))                                            \
  X(nvmlDeviceGetMaxPcieLinkGeneration, nvmlReturn_t,                          \
    (nvmlDevice_t, unsigned int *))                                            \
  X(nvmlDeviceGetCurrPcieLinkWidth, nvmlReturn_t,                              \
    (nvmlDevice_t, unsigned int *))                                            \
  X(nvmlDeviceGetMaxPcieLinkWidth, nvmlReturn_t,                               \
    (nvmlDevice_t, unsigned int *))                                            \
  X(nvmlDeviceGetNvLinkState, nvmlReturn_t,                                    \
    (nvmlDevice_t, unsigned int, int *))                                       \
  X(nvmlDeviceGetEccMode, nvmlReturn_t, (nvmlDevice_t, int *, int *))          \
  X(nvmlDeviceGetTotalEccErrors, nvmlReturn_t,                                 \
    (nvmlDevice_t, int, int, unsigned long long *))                            \
  X(nvmlDeviceGetTemperature, nvmlReturn_t,                                    \
    (nvmlDevice_t, int, unsigned int *))                                       \
  X(nvmlDeviceGetPowerUsage, nvmlReturn_t, (nvmlDevice_t, unsigned int *))     \
  X(nvmlDeviceGetFieldValues, nvmlReturn_t,                                    \
    (nvmlDevice_t, int, nvmlFieldValue_t *))                                   \
  X(nvmlDeviceGetEnforcedPowerLimit, nvmlReturn_t,                             \
    (nvmlDevice_t, unsigned int *))                                            \
  /* renamed in driver 535; the old name stays exported, deprecated */         \
  X(nvmlDeviceGetCurrentClocksEventReasons, nvmlReturn_t,                      \
    (nvmlDevice_t, unsigned long long *))                                      \
  X(nvmlDeviceGetCurrentClocksThrottleReasons, nvmlReturn_t,                   \
    (nvmlDevice_t, unsigned long long *))                                      \
  /* the burn reading: PCIe replays and Xid events (nvml.h) */                 \
  X(nvmlDeviceGetPcieReplayCounter, nvmlReturn_t,                              \
    (nvmlDevice_t, unsigned int *))                                            \
  X(nvmlEventSetCreate, nvmlReturn_t, (nvmlEventSet_t *))                      \
  X(nvmlDeviceRegisterEvents, nvmlReturn_t,                                    \
    (nvmlDevice_t, unsigned long long, nvmlEventSet_t))                        \
  X(nvmlEventSetWait_v2, nvmlReturn_t,                                         \
    (nvmlEventSet_t, nvmlEventData_t *, unsigned int))                         \
  X(nvmlEventSetFree, nvmlReturn_t, (nvmlEventSet_t))

struct gcb_nvml {
  void *lib;
#define NVML_MEMBER(name, ret, args) ret(*name) args;
  NVML_FUNCTIONS(NVML_MEMBER)
#undef NVML_MEMBER
};

/* dlsym returns void *; a function pointer is copied out of it bytewise,
 * the conversion POSIX guarantees and ISO C leaves undefined. */
static void resolve(struct gcb_nvml *n) {
#define NVML_RESOLVE(name, ret, args)                                          \
  {                                                                            \
    void *sym = dlsym(n->lib, #name);                                          \
    memcpy(&n->name, &sym, sizeof n->name);                                    \
  }
  NVML_FUNCTIONS(NVML_RESOLVE)
#undef NVML_RESOLVE
  if (n->nvmlDeviceGetCurrentClocksEventReasons == NULL)
    n->nvmlDeviceGetCurrentClocksEventReasons =
        n->nvmlDeviceGetCurrentClocksThrottleReasons;
}

struct gcb_nvml *gcb_nvml_open(const char *path, char *why, size_t why_len) {
  struct gcb_nvml *n = calloc(1, sizeof *n);
  const char *name = path != NULL ? path : GCB_NVML_LIBRARY;
  nvmlReturn_t rc;

  if (n == NULL) {
    snprintf(why, why_len, "NVML: out of memory");
    return NULL;
  }
  /* RTLD_LOCAL: NVML's symbols stay out of the global namespace. */
  if ((n->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) == NULL) {
    const char *e = dlerror();
    snprintf(why, why_len, "NVML not loaded: %s", e ? e : name);
    free(n);
    return NULL;
  }
  resolve(n);
  if (n->nvmlInit_v2 == NULL || n->nvmlShutdown == NULL ||
      n->nvmlErrorString == NULL ||
      n->nvmlDeviceGetHandleByPciBusId_v2 == NULL) {
    snprintf(why, why_len,
             "NVML: %s lacks nvmlInit_v2 or "
             "nvmlDeviceGetHandleByPciBusId_v2",
             name);
    dlclose(n->lib);
    free(n);
    return NULL;
  }
  if ((rc = n->nvmlInit_v2()) != NVML_SUCCESS) {
    snprintf(why, why_len, "NVML: nvmlInit_v2: %s", n->nvmlErrorString(rc));
    dlclose(n->lib);
    free(n);
    return NULL;
  }
  return n;
}

void gcb_nvml_close(struct gcb_nvml *n) {
  if (n == NULL)
    return;
  (void)n->nvmlShutdown(); /* nothing to do about a failure at teardown */
  dlclose(n->lib);
  free(n);
}

bool gcb_nvml_device(struct gcb_nvml *n, const char *bus_id, void **dev,
                     char *why, size_t why_len) {
  nvmlDevice_t d = NULL;
  nvmlReturn_t rc = n->nvmlDeviceGetHandleByPciBusId_v2(bus_id, &d);

  if (rc != NVML_SUCCESS) {
    snprintf(why, why_len, "NVML: nvmlDeviceGetHandleByPciBusId_v2(%s): %s",
             bus_id, n->nvmlErrorString(rc));
    return false;
  }
  *dev = d;
  return true;
}

void gcb_nvml_driver_version(struct gcb_nvml *n, char *buf, size_t len) {
  char v[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";

  if (n->nvmlSystemGetDriverVersion == NULL ||
      n->nvmlSystemGetDriverVersion(v, sizeof v) != NVML_SUCCESS)
    v[0] = '\0';
  snprintf(buf, len, "%s", v);
}

void gcb_nvml_health_unavailable(struct gcb_health *h, const char *why) {
  h->nvml = false;
  snprintf(h->nvml_why, sizeof h->nvml_why, "%s", why ? why : "");
  h->uuid[0] = '\0';
  h->sm_clock_mhz = h->sm_clock_max_mhz = -1;
  h->mem_clock_mhz = h->mem_clock_max_mhz = -1;
  h->pcie_gen = h->pcie_gen_max = h->pcie_width = h->pcie_width_max = -1;
  h->nvlinks = h->nvlinks_active = -1;
  h->ecc_enabled = -1;
  h->ecc_corrected = h->ecc_uncorrected = -1;
  h->temp_c = -1;
  h->power_w = h->power_limit_w = (double)NAN;
  h->throttle_reasons = 0;
  h->throttle_known = false;
  h->driver[0] = '\0';
}

/* An unsigned reading as int, -1 when the function is absent or fails. */
typedef nvmlReturn_t (*uint_getter)(nvmlDevice_t, unsigned int *);

static int read_uint(uint_getter f, nvmlDevice_t d) {
  unsigned int v = 0;
  return f != NULL && f(d, &v) == NVML_SUCCESS ? (int)v : -1;
}

static int read_clock(nvmlReturn_t (*f)(nvmlDevice_t, int, unsigned int *),
                      nvmlDevice_t d, int which) {
  unsigned int v = 0;
  return f != NULL && f(d, which, &v) == NVML_SUCCESS ? (int)v : -1;
}

/* Links answer until the first index the GPU does not have (NVML returns
 * NOT_SUPPORTED or INVALID_ARGUMENT there; a PCIe card fails at 0). */
static void read_nvlinks(struct gcb_nvml *n, nvmlDevice_t d,
                         struct gcb_health *h) {
  if (n->nvmlDeviceGetNvLinkState == NULL)
    return;
  h->nvlinks = h->nvlinks_active = 0;
  for (unsigned link = 0; link < GCB_HEALTH_MAX_NVLINKS; link++) {
    int active = NVML_FEATURE_DISABLED;
    if (n->nvmlDeviceGetNvLinkState(d, link, &active) != NVML_SUCCESS)
      break;
    h->nvlinks++;
    h->nvlinks_active += active == NVML_FEATURE_ENABLED;
  }
}

static void read_ecc(struct gcb_nvml *n, nvmlDevice_t d, struct gcb_health *h) {
  int current = 0, pending = 0;
  unsigned long long count = 0;

  if (n->nvmlDeviceGetEccMode != NULL &&
      n->nvmlDeviceGetEccMode(d, &current, &pending) == NVML_SUCCESS)
    h->ecc_enabled = current == NVML_FEATURE_ENABLED;
  if (h->ecc_enabled != 1 || n->nvmlDeviceGetTotalEccErrors == NULL)
    return;
  if (n->nvmlDeviceGetTotalEccErrors(d, NVML_MEMORY_ERROR_TYPE_CORRECTED,
                                     NVML_VOLATILE_ECC, &count) == NVML_SUCCESS)
    h->ecc_corrected = (long long)count;
  if (n->nvmlDeviceGetTotalEccErrors(d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                     NVML_VOLATILE_ECC, &count) == NVML_SUCCESS)
    h->ecc_uncorrected = (long long)count;
}

/* Milliwatts to watts; NAN when not reported. */
static double read_watts(uint_getter f, nvmlDevice_t d) {
  int mw = read_uint(f, d);
  return mw >= 0 ? mw / 1000.0 : (double)NAN;
}

void gcb_nvml_health(struct gcb_nvml *n, void *dev, struct gcb_health *h) {
  nvmlDevice_t d = dev;
  char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = "";
  unsigned int temp = 0;
  unsigned long long reasons = 0;

  gcb_nvml_health_unavailable(h, "");
  h->nvml = true;
  if (n->nvmlDeviceGetUUID != NULL &&
      n->nvmlDeviceGetUUID(d, uuid, sizeof uuid) == NVML_SUCCESS)
    snprintf(h->uuid, sizeof h->uuid, "%s", uuid);
  h->sm_clock_mhz = read_clock(n->nvmlDeviceGetClockInfo, d, NVML_CLOCK_SM);
  h->sm_clock_max_mhz =
      read_clock(n->nvmlDeviceGetMaxClockInfo, d, NVML_CLOCK_SM);
  h->mem_clock_mhz = read_clock(n->nvmlDeviceGetClockInfo, d, NVML_CLOCK_MEM);
  h->mem_clock_max_mhz =
      read_clock(n->nvmlDeviceGetMaxClockInfo, d, NVML_CLOCK_MEM);
  h->pcie_gen = read_uint(n->nvmlDeviceGetCurrPcieLinkGeneration, d);
  h->pcie_gen_max = read_uint(n->nvmlDeviceGetMaxPcieLinkGeneration, d);
  h->pcie_width = read_uint(n->nvmlDeviceGetCurrPcieLinkWidth, d);
  h->pcie_width_max = read_uint(n->nvmlDeviceGetMaxPcieLinkWidth, d);
  read_nvlinks(n, d, h);
  read_ecc(n, d, h);
  if (n->nvmlDeviceGetTemperature != NULL &&
      n->nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &temp) ==
          NVML_SUCCESS)
    h->temp_c = (int)temp;
  h->power_w = read_watts(n->nvmlDeviceGetPowerUsage, d);
  h->power_limit_w = read_watts(n->nvmlDeviceGetEnforcedPowerLimit, d);
  if (n->nvmlDeviceGetCurrentClocksEventReasons != NULL &&
      n->nvmlDeviceGetCurrentClocksEventReasons(d, &reasons) == NVML_SUCCESS) {
    h->throttle_reasons = (uint64_t)reasons;
    h->throttle_known = true;
  }
  gcb_nvml_driver_version(n, h->driver, sizeof h->driver);
}

/* A field value as a double; NAN when it failed or has no number type. */
static double field_number(const nvmlFieldValue_t *f) {
  if (f->nvmlReturn != NVML_SUCCESS)
    return (double)NAN;
  switch (f->valueType) {
  case NVML_VALUE_TYPE_DOUBLE:
    return f->value.dVal;
  case NVML_VALUE_TYPE_UNSIGNED_INT:
    return f->value.uiVal;
  case NVML_VALUE_TYPE_UNSIGNED_LONG:
    return (double)f->value.ulVal;
  case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
    return (double)f->value.ullVal;
  case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
    return (double)f->value.sllVal;
  case NVML_VALUE_TYPE_SIGNED_INT:
    return f->value.siVal;
  default:
    return (double)NAN;
  }
}

/* Power now, in watts: NVML_FI_DEV_POWER_INSTANT through the field-values
 * API, since nvmlDeviceGetPowerUsage is a one-second average on Ampere and
 * newer (NVML API reference; mamf-finder reads field 186 for the same
 * reason); the average where the field is missing (older drivers). */
static double read_power_now(struct gcb_nvml *n, nvmlDevice_t d) {
  nvmlFieldValue_t f = {.fieldId = NVML_FI_DEV_POWER_INSTANT};

  if (n->nvmlDeviceGetFieldValues != NULL &&
      n->nvmlDeviceGetFieldValues(d, 1, &f) == NVML_SUCCESS) {
    double mw = field_number(&f);
    if (isfinite(mw) && mw >= 0)
      return mw / 1000.0;
  }
  return read_watts(n->nvmlDeviceGetPowerUsage, d);
}

void gcb_nvml_sample(struct gcb_nvml *n, void *dev, struct gcb_nvml_sample *s) {
  nvmlDevice_t d = dev;
  int sm = read_clock(n->nvmlDeviceGetClockInfo, d, NVML_CLOCK_SM);
  int mem = read_clock(n->nvmlDeviceGetClockInfo, d, NVML_CLOCK_MEM);
  unsigned int temp = 0;
  unsigned long long reasons = 0;

  s->sm_mhz = sm >= 0 ? sm : (double)NAN;
  s->mem_mhz = mem >= 0 ? mem : (double)NAN;
  s->power_w = read_power_now(n, d);
  s->temp_c = n->nvmlDeviceGetTemperature != NULL &&
                      n->nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU,
                                                  &temp) == NVML_SUCCESS
                  ? (double)temp
                  : (double)NAN;
  s->reasons_known =
      n->nvmlDeviceGetCurrentClocksEventReasons != NULL &&
      n->nvmlDeviceGetCurrentClocksEventReasons(d, &reasons) == NVML_SUCCESS;
  s->reasons = s->reasons_known ? (uint64_t)reasons : 0;
}

/* ---- the burn-in reading ------------------------------------------------ */

/* A volatile ECC count (nvml.h NVML_VOLATILE_ECC: "reset each time the
 * driver loads"); -1 when not reported (ECC off: NOT_SUPPORTED). */
static long long read_ecc_count(struct gcb_nvml *n, nvmlDevice_t d, int type) {
  unsigned long long count = 0;
  return n->nvmlDeviceGetTotalEccErrors != NULL &&
                 n->nvmlDeviceGetTotalEccErrors(d, type, NVML_VOLATILE_ECC,
                                                &count) == NVML_SUCCESS
             ? (long long)count
             : -1;
}

void gcb_nvml_burn_read(struct gcb_nvml *n, void *dev,
                        struct gcb_burn_reading *out) {
  nvmlDevice_t d = dev;
  int sm = read_clock(n->nvmlDeviceGetClockInfo, d, NVML_CLOCK_SM);
  int mem = read_clock(n->nvmlDeviceGetClockInfo, d, NVML_CLOCK_MEM);
  unsigned int temp = 0, replays = 0;
  unsigned long long reasons = 0;

  out->sm_clock_mhz = sm >= 0 ? sm : (double)NAN;
  out->mem_clock_mhz = mem >= 0 ? mem : (double)NAN;
  out->temp_c = n->nvmlDeviceGetTemperature != NULL &&
                        n->nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU,
                                                    &temp) == NVML_SUCCESS
                    ? (double)temp
                    : (double)NAN;
  /* nvmlDeviceGetPowerUsage: on Ampere (except GA100) and newer "power
   * averaged over 1 sec interval" (nvml.h), not the instant of field 186
   * that telemetry takes: a reading stands for an interval of about a
   * second, and an instant would alias the GEMM's phases. */
  out->power_w = read_watts(n->nvmlDeviceGetPowerUsage, d);
  out->throttle_known =
      n->nvmlDeviceGetCurrentClocksEventReasons != NULL &&
      n->nvmlDeviceGetCurrentClocksEventReasons(d, &reasons) == NVML_SUCCESS;
  out->throttle_reasons = out->throttle_known ? (uint64_t)reasons : 0;
  out->ecc_sbe = read_ecc_count(n, d, NVML_MEMORY_ERROR_TYPE_CORRECTED);
  out->ecc_dbe = read_ecc_count(n, d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED);
  out->pcie_replay =
      n->nvmlDeviceGetPcieReplayCounter != NULL &&
              n->nvmlDeviceGetPcieReplayCounter(d, &replays) == NVML_SUCCESS
          ? (long long)replays
          : -1;
}

/* Events drained per poll at most: a storm of Xids must not hold the
 * burn loop; what is left is counted at the next reading. */
#define XID_DRAIN_MAX 256

struct gcb_nvml_xids {
  struct gcb_nvml *n;
  nvmlEventSet_t set;
  long long seen;
  bool lost; /* the set failed for good (GPU lost, unknown error) */
};

struct gcb_nvml_xids *gcb_nvml_xids_open(struct gcb_nvml *n, void *dev,
                                         char *why, size_t why_len) {
  struct gcb_nvml_xids *x;
  nvmlEventSet_t set = NULL;
  nvmlReturn_t rc;

  if (n->nvmlEventSetCreate == NULL || n->nvmlDeviceRegisterEvents == NULL ||
      n->nvmlEventSetWait_v2 == NULL || n->nvmlEventSetFree == NULL) {
    snprintf(why, why_len, "NVML lacks the event functions");
    return NULL;
  }
  if ((rc = n->nvmlEventSetCreate(&set)) != NVML_SUCCESS) {
    snprintf(why, why_len, "nvmlEventSetCreate: %s", n->nvmlErrorString(rc));
    return NULL;
  }
  /* nvml.h: after NOT_SUPPORTED the set is usable but holds none of the
   * types, after UNKNOWN it is undefined; either way it is freed here. */
  rc =
      n->nvmlDeviceRegisterEvents(dev, NVML_EVENT_TYPE_XID_CRITICAL_ERROR, set);
  if (rc != NVML_SUCCESS || (x = calloc(1, sizeof *x)) == NULL) {
    snprintf(why, why_len, "nvmlDeviceRegisterEvents(Xid): %s",
             rc != NVML_SUCCESS ? n->nvmlErrorString(rc) : "out of memory");
    (void)n->nvmlEventSetFree(set);
    return NULL;
  }
  *x = (struct gcb_nvml_xids){.n = n, .set = set};
  return x;
}

long long gcb_nvml_xids_poll(struct gcb_nvml_xids *x) {
  if (x == NULL)
    return -1;
  /* Timeout 0: only what is already queued. NVML_ERROR_TIMEOUT is the
   * normal "nothing more"; any other failure (GPU lost) ends polling,
   * with what was seen so far kept. */
  for (int i = 0; i < XID_DRAIN_MAX && !x->lost; i++) {
    nvmlEventData_t e;
    nvmlReturn_t rc;
    memset(&e, 0, sizeof e);
    rc = x->n->nvmlEventSetWait_v2(x->set, &e, 0);
    if (rc == NVML_ERROR_TIMEOUT)
      break;
    if (rc != NVML_SUCCESS) {
      x->lost = true;
      break;
    }
    if (e.eventType & NVML_EVENT_TYPE_XID_CRITICAL_ERROR)
      x->seen++;
  }
  return x->seen;
}

void gcb_nvml_xids_close(struct gcb_nvml_xids *x) {
  if (x == NULL)
    return;
  (void)x->n->nvmlEventSetFree(x->set);
  free(x);
}
