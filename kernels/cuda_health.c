/*
 * GPU health and telemetry on the CUDA backend.
 *
 * health(): one record per GPU this rank sees, for the results header:
 * what the CUDA runtime knows (name, bus id, compute capability, SMs,
 * memory, L2) and what NVML adds (UUID, clocks, PCIe link, NVLinks, ECC,
 * temperature, power, throttle reasons, driver version). NVML is loaded
 * with dlopen (nvml.c); without it the NVML fields are unavailable, with
 * the reason, never guessed.
 *
 * telemetry_start/stop(): a background thread samples the rank's GPU every
 * SAMPLE_MS between the two calls (SM and memory clocks, power,
 * temperature, clock-event reasons), so that a figure can carry the
 * conditions it was measured under. NVML is thread-safe (nvml.h: "all
 * NVML functions are thread-safe"), and the sampler makes no CUDA calls.
 *
 * burn_read(): one reading of the rank's GPU for the burn-in timeline,
 * on the same NVML device as telemetry: clocks, temperature, power,
 * clock-event reasons, volatile ECC totals, PCIe replays (nvml.c), and
 * the Xid events seen since the first reading (an NVML event set,
 * polled without waiting at each reading).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "kernels/cuda_impl.h"
#include "kernels/nvml.h"

#define SAMPLE_MS ((long)(GCB_TELEMETRY_PERIOD_S * 1000 + 0.5))

struct gcb__cuda_telemetry {
  struct gcb_nvml *nvml; /* NULL: unavailable, reason in why */
  void *dev;
  char why[96];
  pthread_t thread;
  bool running, stop;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  /* accumulated since the last start, under lock */
  int samples, sm_n, mem_n, power_n;
  double sm_min, sm_max, sm_sum, mem_sum, power_sum, power_max, temp_max;
  uint64_t reasons;
  bool reasons_known;
  double started_s; /* gcb_now_s() at the start */
  /* burn_read's Xid events, registered at the first reading; touched by
   * the caller's thread only (the sampler never reads them) */
  struct gcb_nvml_xids *xids;
  bool xids_tried;
};

/* ---- health ---------------------------------------------------------------
 */

static void versions(struct gcb_health *h) {
  int driver = 0, runtime = 0;

  if (cudaDriverGetVersion(&driver) != cudaSuccess)
    driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess)
    runtime = 0;
  (void)cudaGetLastError();
  gcb__cuda_format_version(h->cuda_driver, sizeof h->cuda_driver, driver);
  gcb__cuda_format_version(h->cuda_runtime, sizeof h->cuda_runtime, runtime);
  /* h->nccl is left to the caller, who asks the collectives module. */
}

static enum gcb_status cuda_fields(int d, struct gcb_health *h,
                                   struct gcb_err *err) {
  struct cudaDeviceProp prop;
  enum gcb_status st;

  if ((st = CUDA_CHECK(err, cudaGetDeviceProperties(&prop, d))) != GCB_OK ||
      (st = gcb__cuda_bus_id(d, h->bus_id, sizeof h->bus_id, err)) != GCB_OK)
    return st;
  h->ordinal = d;
  snprintf(h->name, sizeof h->name, "%.*s", (int)sizeof h->name - 1, prop.name);
  h->cc_major = prop.major;
  h->cc_minor = prop.minor;
  h->sm_count = prop.multiProcessorCount;
  h->memory_bytes = (uint64_t)prop.totalGlobalMem;
  h->l2_bytes = prop.l2CacheSize;
  versions(h);
  return GCB_OK;
}

enum gcb_status gcb__cuda_health(struct gcb_backend *b, struct gcb_health *out,
                                 int max, int *count, struct gcb_err *err) {
  char why[160] = "";
  struct gcb_nvml *nvml = gcb_nvml_open(NULL, why, sizeof why);
  enum gcb_status st = GCB_OK;

  *count = 0;
  for (int d = 0; d < b->device_count && *count < max && st == GCB_OK; d++) {
    struct gcb_health *h = &out[*count];
    void *dev = NULL;
    char dwhy[160] = "";
    memset(h, 0, sizeof *h);
    gcb_nvml_health_unavailable(h, why);
    if ((st = cuda_fields(d, h, err)) != GCB_OK)
      break;
    if (nvml != NULL &&
        gcb_nvml_device(nvml, h->bus_id, &dev, dwhy, sizeof dwhy))
      gcb_nvml_health(nvml, dev, h);
    else if (nvml != NULL)
      gcb_nvml_health_unavailable(h, dwhy);
    (*count)++;
  }
  gcb_nvml_close(nvml);
  return st;
}

/* ---- telemetry ------------------------------------------------------------
 */

static void reset(struct gcb__cuda_telemetry *t) {
  t->samples = t->sm_n = t->mem_n = t->power_n = 0;
  t->sm_min = INFINITY;
  t->sm_max = t->sm_sum = t->mem_sum = t->power_sum = 0.0;
  t->power_max = t->temp_max = -INFINITY;
  t->reasons = 0;
  t->reasons_known = false;
}

static void take_sample(struct gcb__cuda_telemetry *t) {
  struct gcb_nvml_sample s;

  gcb_nvml_sample(t->nvml, t->dev, &s);
  pthread_mutex_lock(&t->lock);
  t->samples++;
  if (!isnan(s.sm_mhz)) {
    t->sm_n++;
    t->sm_sum += s.sm_mhz;
    t->sm_min = fmin(t->sm_min, s.sm_mhz);
    t->sm_max = fmax(t->sm_max, s.sm_mhz);
  }
  if (!isnan(s.mem_mhz))
    t->mem_n++, t->mem_sum += s.mem_mhz;
  if (!isnan(s.power_w)) {
    t->power_n++;
    t->power_sum += s.power_w;
    t->power_max = fmax(t->power_max, s.power_w);
  }
  if (!isnan(s.temp_c))
    t->temp_max = fmax(t->temp_max, s.temp_c);
  t->reasons |= s.reasons;
  t->reasons_known = t->reasons_known || s.reasons_known;
  pthread_mutex_unlock(&t->lock);
}

static void *sampler(void *arg) {
  struct gcb__cuda_telemetry *t = arg;
  struct timespec next;

  clock_gettime(CLOCK_MONOTONIC, &next);
  pthread_mutex_lock(&t->lock);
  while (!t->stop) {
    next.tv_nsec += SAMPLE_MS * 1000000L;
    if (next.tv_nsec >= 1000000000L)
      next.tv_sec++, next.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&t->wake, &t->lock, &next);
    if (t->stop)
      break;
    pthread_mutex_unlock(&t->lock);
    take_sample(t);
    pthread_mutex_lock(&t->lock);
  }
  pthread_mutex_unlock(&t->lock);
  return NULL;
}

/* State and NVML device, once per backend; NVML's absence is recorded. */
static enum gcb_status telemetry_init(struct gcb_backend *b,
                                      struct gcb_err *err) {
  struct gcb__cuda_telemetry *t;
  pthread_condattr_t attr;
  char bus[32], why[160] = "";

  if (b->telemetry != NULL)
    return GCB_OK;
  if ((t = b->telemetry = calloc(1, sizeof *t)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "telemetry: out of memory");
  pthread_mutex_init(&t->lock, NULL);
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&t->wake, &attr);
  pthread_condattr_destroy(&attr);
  if (gcb__cuda_bus_id(b->device, bus, sizeof bus, err) != GCB_OK)
    snprintf(why, sizeof why, "%s", err->msg);
  else if ((t->nvml = gcb_nvml_open(NULL, why, sizeof why)) != NULL &&
           !gcb_nvml_device(t->nvml, bus, &t->dev, why, sizeof why)) {
    gcb_nvml_close(t->nvml);
    t->nvml = NULL;
  }
  snprintf(t->why, sizeof t->why, "%s", why);
  return GCB_OK;
}

enum gcb_status gcb__cuda_telemetry_start(struct gcb_backend *b,
                                          struct gcb_err *err) {
  struct gcb__cuda_telemetry *t;
  enum gcb_status st = telemetry_init(b, err);
  int rc;

  if (st != GCB_OK || (t = b->telemetry)->nvml == NULL || t->running)
    return st;
  reset(t);
  t->started_s = gcb_now_s();
  /* The state the measurement starts from: the harness starts sampling at
   * the end of the warm-up, so this is a working GPU's, not an idle one's
   * (an idle H200 reads a few hundred MHz). */
  take_sample(t);
  t->stop = false;
  if ((rc = pthread_create(&t->thread, NULL, sampler, t)) != 0)
    return gcb_err_set(err, GCB_EINTERNAL, "telemetry: pthread_create: %s",
                       strerror(rc));
  t->running = true;
  return GCB_OK;
}

static void halt(struct gcb__cuda_telemetry *t) {
  if (!t->running)
    return;
  pthread_mutex_lock(&t->lock);
  t->stop = true;
  pthread_cond_signal(&t->wake);
  pthread_mutex_unlock(&t->lock);
  pthread_join(t->thread, NULL);
  t->running = false;
}

static double mean(double sum, int n) {
  return n > 0 ? sum / n : (double)NAN;
}

void gcb__cuda_telemetry_stop(struct gcb_backend *b,
                              struct gcb_telemetry *out) {
  struct gcb__cuda_telemetry *t = b->telemetry;

  memset(out, 0, sizeof *out);
  if (t == NULL || t->nvml == NULL) {
    snprintf(out->why, sizeof out->why, "%s",
             t != NULL ? t->why : "telemetry was not started");
    return;
  }
  halt(t);
  double elapsed = gcb_now_s() - t->started_s;
  take_sample(t); /* and the state it ends in */
  *out = (struct gcb_telemetry){
      .available = true,
      .samples = t->samples,
      .sm_clock_mhz_min = t->sm_n ? t->sm_min : (double)NAN,
      .sm_clock_mhz_mean = mean(t->sm_sum, t->sm_n),
      .sm_clock_mhz_max = t->sm_n ? t->sm_max : (double)NAN,
      .mem_clock_mhz_mean = mean(t->mem_sum, t->mem_n),
      .power_w_mean = mean(t->power_sum, t->power_n),
      .power_w_max = t->power_n ? t->power_max : (double)NAN,
      .temp_c_max = isfinite(t->temp_max) ? t->temp_max : (double)NAN,
      .throttle_reasons = t->reasons,
      .throttle_known = t->reasons_known,
      .too_short = gcb_telemetry_too_short(elapsed),
  };
  if (out->too_short)
    snprintf(out->why, sizeof out->why,
             "case shorter than two %ld ms sampling periods", SAMPLE_MS);
}

void gcb__cuda_telemetry_close(struct gcb_backend *b) {
  struct gcb__cuda_telemetry *t = b->telemetry;

  if (t == NULL)
    return;
  halt(t);
  gcb_nvml_xids_close(t->xids);
  gcb_nvml_close(t->nvml);
  pthread_cond_destroy(&t->wake);
  pthread_mutex_destroy(&t->lock);
  free(t);
  b->telemetry = NULL;
}

/* ---- burn-in reading ------------------------------------------------------
 */

void gcb__cuda_burn_read(struct gcb_backend *b, struct gcb_burn_reading *out) {
  struct gcb__cuda_telemetry *t;
  struct gcb_err err = {0};

  *out = (struct gcb_burn_reading){
      .cpu_mhz = (double)NAN,
      .temp_c = (double)NAN,
      .power_w = (double)NAN,
      .sm_clock_mhz = (double)NAN,
      .mem_clock_mhz = (double)NAN,
      .ecc_sbe = -1,
      .ecc_dbe = -1,
      .pcie_replay = -1,
      .xid = -1,
  };
  /* Never fails: without NVML (or its device) every field stays unread. */
  if (telemetry_init(b, &err) != GCB_OK || (t = b->telemetry)->nvml == NULL)
    return;
  gcb_nvml_burn_read(t->nvml, t->dev, out);
  if (!t->xids_tried) {
    char why[160];
    t->xids = gcb_nvml_xids_open(t->nvml, t->dev, why, sizeof why);
    t->xids_tried = true;
  }
  out->xid = gcb_nvml_xids_poll(t->xids);
}
