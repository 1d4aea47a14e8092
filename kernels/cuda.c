/*
 * The CUDA backend: one NVIDIA GPU per MPI rank, chosen by local rank.
 *
 * This file is the backend's face: discovery, opening and closing, device
 * description, library versions, the GPUs a rank sees, the helpers the other
 * files share (return-code checks, gated event timing; cuda_impl.h) and the
 * ops table. Each operation lives in its own file: cuda_membw.c (STREAM,
 * read, write, cudaMemcpy), cuda_gemm.c (cuBLASLt), cuda_pcie.c,
 * cuda_p2p.c, cuda_launch.c, cuda_health.c (NVML health and telemetry).
 * Kernels are in the .cu files, behind cuda_kernels.h.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "kernels/backend.h"
#include "kernels/cuda_impl.h"
#include "kernels/cuda_kernels.h"
#include "kernels/cuda_pure.h"

enum gcb_status gcb__cuda_check(struct gcb_err *err, cudaError_t rc,
                                const char *call) {
  if (rc == cudaSuccess)
    return GCB_OK;
  (void)cudaGetLastError();
  return gcb_err_set(err, GCB_ECUDA, "%s: %s", call, cudaGetErrorString(rc));
}

enum gcb_status gcb__cuda_launched(struct gcb_err *err, int rc,
                                   const char *what) {
  return gcb__cuda_check(err, (cudaError_t)rc, what);
}

enum gcb_status gcb__cuda_use(const struct gcb_backend *b,
                              struct gcb_err *err) {
  return CUDA_CHECK(err, cudaSetDevice(b->device));
}

enum gcb_status gcb__cuda_reserve(size_t bytes, const char *what,
                                  struct gcb_err *err) {
  size_t free_bytes = 0, total_bytes = 0;
  enum gcb_status st =
      CUDA_CHECK(err, cudaMemGetInfo(&free_bytes, &total_bytes));

  if (st == GCB_OK && bytes > free_bytes)
    st = gcb_err_set(err, GCB_ENOMEM,
                     "%s needs %zu bytes of device memory; %zu of %zu bytes "
                     "are free",
                     what, bytes, free_bytes, total_bytes);
  return st;
}

/* ---- gated timing ---------------------------------------------------------
 */

enum gcb_status gcb__cuda_gate_begin(struct gcb_backend *b,
                                     struct gcb_err *err) {
  enum gcb_status st;

  *b->gate = 0;
  st = gcb__cuda_launched(
      err,
      gcb__cuda_gate_launch(b->gate_dev, GCB__CUDA_GATE_TIMEOUT_MS, b->stream),
      "gate kernel launch");
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaEventRecord(b->start, b->stream));
  /* A gate kernel that may be spinning is released and both streams
   * drained, as _end does after a failure: no gate is left open. */
  return st == GCB_OK ? st : gcb__cuda_gate_end(b, st, NULL, err);
}

enum gcb_status gcb__cuda_gate_end(struct gcb_backend *b, enum gcb_status st,
                                   double *seconds, struct gcb_err *err) {
  float ms = 0.0f;

  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaEventRecord(b->stop, b->stream));
  /* Open the gate whatever happened: the store must reach the GPU after
   * everything above was enqueued, hence the full barrier. */
  __sync_synchronize();
  *b->gate = 1;
  __sync_synchronize();
  if (st != GCB_OK) {
    (void)cudaStreamSynchronize(b->stream2);
    (void)cudaStreamSynchronize(b->stream);
    (void)cudaGetLastError();
    return st;
  }
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaEventSynchronize(b->stop));
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaEventElapsedTime(&ms, b->start, b->stop));
  if (st == GCB_OK)
    *seconds = (double)ms * 1e-3;
  return st;
}

/* b->start without the gate, for work the gate would block. */
static enum gcb_status plain_begin(struct gcb_backend *b, struct gcb_err *err) {
  return CUDA_CHECK(err, cudaEventRecord(b->start, b->stream));
}

static enum gcb_status plain_end(struct gcb_backend *b, enum gcb_status st,
                                 double *seconds, struct gcb_err *err) {
  float ms = 0.0f;

  if (st == GCB_OK &&
      (st = CUDA_CHECK(err, cudaEventRecord(b->stop, b->stream))) == GCB_OK &&
      (st = CUDA_CHECK(err, cudaEventSynchronize(b->stop))) == GCB_OK &&
      (st = CUDA_CHECK(err, cudaEventElapsedTime(&ms, b->start, b->stop))) ==
          GCB_OK)
    *seconds = (double)ms * 1e-3;
  if (st != GCB_OK)
    (void)cudaStreamSynchronize(b->stream);
  return st;
}

/* The second host thread of a split call (t->work2). */
struct helper {
  pthread_t thread;
  struct gcb_backend *b;
  const struct gcb__cuda_timed *t;
  long calls;
  pthread_barrier_t go; /* both pass it once b->start is recorded */
  bool cancel;          /* set before `go`: the start failed, enqueue none */
  bool joined;
  enum gcb_status st;
  struct gcb_err err;
};

static void *helper_main(void *arg) {
  struct helper *h = arg;

  /* The current device belongs to the host thread: a new one is on 0. */
  h->st = gcb__cuda_use(h->b, &h->err);
  (void)pthread_barrier_wait(&h->go);
  for (long i = 0; i < h->calls && h->st == GCB_OK && !h->cancel; i++)
    h->st = h->t->work2(h->t->state, &h->err);
  return NULL;
}

static enum gcb_status helper_start(struct helper *h, struct gcb_err *err) {
  int rc = pthread_barrier_init(&h->go, NULL, 2);

  if (rc == 0 && (rc = pthread_create(&h->thread, NULL, helper_main, h)) != 0)
    (void)pthread_barrier_destroy(&h->go);
  if (rc != 0)
    return gcb_err_set(err, GCB_EINTERNAL, "cuda: second copy thread: %s",
                       strerror(rc));
  return GCB_OK;
}

/* Joins the helper once; its failure becomes st's when st is still OK. */
static enum gcb_status helper_join(struct helper *h, enum gcb_status st,
                                   struct gcb_err *err) {
  if (h == NULL || h->joined)
    return st;
  (void)pthread_join(h->thread, NULL);
  (void)pthread_barrier_destroy(&h->go);
  h->joined = true;
  if (st == GCB_OK && h->st != GCB_OK) {
    *err = h->err;
    st = h->st;
  }
  return st;
}

/* The enqueued part: stream2 forked after b->start (and the helper
 * released), the calls, the join. */
static enum gcb_status timed_body(struct gcb_backend *b,
                                  const struct gcb__cuda_timed *t, long calls,
                                  struct helper *h, struct gcb_err *err) {
  enum gcb_status st = GCB_OK;

  if (t->stream2)
    st = CUDA_CHECK(err, cudaStreamWaitEvent(b->stream2, b->start, 0));
  if (h != NULL) {
    h->cancel = st != GCB_OK;
    (void)pthread_barrier_wait(&h->go);
  }
  for (long i = 0; i < calls && st == GCB_OK; i++)
    st = t->work(t->state, err);
  if (h != NULL && t->join)
    st = helper_join(h, st, err);
  if (st == GCB_OK && t->stream2 && t->join &&
      (st = CUDA_CHECK(err, cudaEventRecord(b->mid, b->stream2))) == GCB_OK)
    st = CUDA_CHECK(err, cudaStreamWaitEvent(b->stream, b->mid, 0));
  return st;
}

enum gcb_status gcb__cuda_time_gated(struct gcb_backend *b,
                                     const struct gcb__cuda_timed *t, int reps,
                                     double *seconds, struct gcb_err *err) {
  int batch = t->batch > 0 ? t->batch : 1;
  long calls = (long)reps * batch;
  struct helper helper = {.b = b, .t = t, .calls = calls};
  struct helper *h = t->work2 != NULL ? &helper : NULL;
  enum gcb_status st = gcb__cuda_use(b, err);

  if (st == GCB_OK && reps < 1)
    st = gcb_err_set(err, GCB_EUSAGE, "cuda: %d repetitions", reps);
  if (st == GCB_OK && t->prepare != NULL)
    st = t->prepare(t->state, err);
  if (st == GCB_OK && h != NULL)
    st = helper_start(h, err);
  if (st != GCB_OK)
    return st;
  st = t->ungated ? plain_begin(b, err) : gcb__cuda_gate_begin(b, err);
  if (st != GCB_OK) {
    if (h != NULL) {
      h->cancel = true;
      (void)pthread_barrier_wait(&h->go);
    }
    return helper_join(h, st, err);
  }
  st = timed_body(b, t, calls, h, err);
  st = t->ungated ? plain_end(b, st, seconds, err)
                  : gcb__cuda_gate_end(b, st, seconds, err);
  /* Not joined: the other direction ran on, timed out of the figure. */
  st = helper_join(h, st, err);
  /* An unjoined stream2 ends its sample before the next one starts. */
  if (t->stream2) {
    cudaError_t rc = cudaStreamSynchronize(b->stream2);
    if (st == GCB_OK)
      st = gcb__cuda_check(err, rc, "cudaStreamSynchronize(stream2)");
  }
  if (st == GCB_OK)
    *seconds /= batch;
  return st;
}

/* ---- backend lifetime and description ------------------------------------ */

static bool cuda_usable(char *why, size_t why_len) {
  int count = 0;
  cudaError_t rc = cudaGetDeviceCount(&count);

  if (rc != cudaSuccess) {
    (void)cudaGetLastError();
    snprintf(why, why_len, "no CUDA device visible (cudaGetDeviceCount: %s)",
             cudaGetErrorString(rc));
    return false;
  }
  if (count == 0) {
    snprintf(why, why_len, "no CUDA device visible (cudaGetDeviceCount: 0)");
    return false;
  }
  snprintf(why, why_len, "%d CUDA device%s visible", count,
           count == 1 ? "" : "s");
  return true;
}

static void cuda_close(struct gcb_backend *b) {
  if (b == NULL)
    return;
  /* Teardown errors are ignored: there is nothing left to do about them. */
  (void)cudaSetDevice(b->device);
  gcb__cuda_telemetry_close(b);
  gcb__cuda_gemm_close(b);
  gcb__cuda_pcie_close(b);
  if (b->gate != NULL)
    (void)cudaFreeHost((void *)b->gate);
  if (b->mid != NULL)
    (void)cudaEventDestroy(b->mid);
  if (b->stop != NULL)
    (void)cudaEventDestroy(b->stop);
  if (b->start != NULL)
    (void)cudaEventDestroy(b->start);
  if (b->stream2 != NULL)
    (void)cudaStreamDestroy(b->stream2);
  if (b->stream != NULL)
    (void)cudaStreamDestroy(b->stream);
  free(b);
}

static enum gcb_status open_attributes(struct gcb_backend *b,
                                       struct gcb_err *err) {
  int l2 = 0;
  enum gcb_status st;

  if ((st = CUDA_CHECK(err, cudaDeviceGetAttribute(
                                &b->cc_major, cudaDevAttrComputeCapabilityMajor,
                                b->device))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaDeviceGetAttribute(
                                &b->cc_minor, cudaDevAttrComputeCapabilityMinor,
                                b->device))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaDeviceGetAttribute(
                                &b->sm_count, cudaDevAttrMultiProcessorCount,
                                b->device))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize,
                                                   b->device))) != GCB_OK)
    return st;
  b->l2_bytes = (size_t)l2;
  return GCB_OK;
}

/* Streams, events and the gate's host-mapped flag. */
static enum gcb_status open_resources(struct gcb_backend *b,
                                      struct gcb_err *err) {
  void *gate = NULL, *gate_dev = NULL;
  enum gcb_status st;

  if ((st = CUDA_CHECK(err, cudaStreamCreateWithFlags(
                                &b->stream, cudaStreamNonBlocking))) !=
          GCB_OK ||
      (st = CUDA_CHECK(err, cudaStreamCreateWithFlags(
                                &b->stream2, cudaStreamNonBlocking))) !=
          GCB_OK ||
      (st = CUDA_CHECK(err, cudaEventCreate(&b->start))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaEventCreate(&b->stop))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaEventCreate(&b->mid))) != GCB_OK ||
      /* Portable: a p2p copy gates streams of other devices too. */
      (st = CUDA_CHECK(
           err, cudaHostAlloc(&gate, sizeof(int),
                              cudaHostAllocMapped | cudaHostAllocPortable))) !=
          GCB_OK)
    return st;
  b->gate = gate;
  *b->gate = 1;
  if ((st = CUDA_CHECK(err, cudaHostGetDevicePointer(&gate_dev, gate, 0))) !=
      GCB_OK)
    return st;
  b->gate_dev = gate_dev;
  return GCB_OK;
}

static enum gcb_status cuda_open(const struct gcb_backend_args *args,
                                 struct gcb_backend **out,
                                 struct gcb_err *err) {
  struct gcb_backend *b = NULL;
  int count = 0;
  enum gcb_status st;

  *out = NULL;
  if (args->local_rank < 0)
    return gcb_err_set(err, GCB_EUSAGE, "cuda: negative local rank %d",
                       args->local_rank);
  if ((st = CUDA_CHECK(err, cudaGetDeviceCount(&count))) != GCB_OK)
    return st;
  if (count <= 0)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "cuda: 0 CUDA devices");
  if ((b = calloc(1, sizeof *b)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "cuda: no memory for backend state");
  /* More ranks than GPUs share devices round-robin; the placement analysis
   * reports it, so opening does not refuse it. */
  b->device = args->local_rank % count;
  b->device_count = count;
  if ((st = gcb__cuda_use(b, err)) != GCB_OK ||
      (st = open_attributes(b, err)) != GCB_OK ||
      (st = open_resources(b, err)) != GCB_OK)
    goto fail;
  *out = b;
  return GCB_OK;
fail:
  gcb_err_prefix(err, "cuda device %d", b->device);
  cuda_close(b);
  return st;
}

/* Lower case, as hwloc and sysfs spell it, so the topology module can
 * match it textually. */
enum gcb_status gcb__cuda_bus_id(int device, char *buf, size_t len,
                                 struct gcb_err *err) {
  char bus[32] = ""; /* the runtime needs 13 bytes: "0000:19:00.0" */
  enum gcb_status st =
      CUDA_CHECK(err, cudaDeviceGetPCIBusId(bus, (int)sizeof bus, device));
  size_t i = 0;

  for (; st == GCB_OK && i + 1 < len && bus[i] != '\0'; i++)
    buf[i] =
        (bus[i] >= 'A' && bus[i] <= 'F') ? (char)(bus[i] - 'A' + 'a') : bus[i];
  if (len > 0)
    buf[i] = '\0';
  return st;
}

static enum gcb_status cuda_device_info(struct gcb_backend *b,
                                        struct gcb_device_info *out,
                                        struct gcb_err *err) {
  struct cudaDeviceProp prop;
  enum gcb_status st;

  memset(out, 0, sizeof *out);
  if ((st = CUDA_CHECK(err, cudaGetDeviceProperties(&prop, b->device))) !=
          GCB_OK ||
      (st = gcb__cuda_bus_id(b->device, out->bus_id, sizeof out->bus_id,
                             err)) != GCB_OK)
    return st;
  snprintf(out->name, sizeof out->name, "%.*s", (int)sizeof out->name - 1,
           prop.name);
  out->index = b->device;
  out->memory_bytes = (uint64_t)prop.totalGlobalMem;
  out->cache_bytes = prop.l2CacheSize > 0 ? (uint64_t)prop.l2CacheSize : 0;
  out->threads = 0; /* computes on the GPU, not on CPU threads */
  return GCB_OK;
}

static enum gcb_status cuda_gpus(struct gcb_backend *b,
                                 struct gcb_gpu_ident *out, int max, int *count,
                                 struct gcb_err *err) {
  enum gcb_status st = GCB_OK;

  *count = 0;
  for (int d = 0; d < b->device_count && *count < max && st == GCB_OK; d++) {
    struct cudaDeviceProp prop;
    struct gcb_gpu_ident *g = &out[*count];
    *g = (struct gcb_gpu_ident){.ordinal = d};
    if ((st = CUDA_CHECK(err, cudaGetDeviceProperties(&prop, d))) == GCB_OK &&
        (st = gcb__cuda_bus_id(d, g->bus_id, sizeof g->bus_id, err)) ==
            GCB_OK) {
      snprintf(g->name, sizeof g->name, "%.*s", (int)sizeof g->name - 1,
               prop.name);
      (*count)++;
    }
  }
  return st;
}

void gcb__cuda_format_version(char *buf, size_t len, int v) {
  if (v <= 0)
    snprintf(buf, len, "unknown");
  else
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

static void cuda_versions(struct gcb_backend *b, char *buf, size_t len) {
  int driver = 0, runtime = 0;
  size_t lt = cublasLtGetVersion(); /* major*10000 + minor*100 + patch */
  char dv[32], rv[32];

  (void)b; /* versions are per process, not per device */
  if (cudaDriverGetVersion(&driver) != cudaSuccess)
    driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess)
    runtime = 0;
  (void)cudaGetLastError();
  gcb__cuda_format_version(dv, sizeof dv, driver);
  gcb__cuda_format_version(rv, sizeof rv, runtime);
  /* NCCL's version is the collectives module's to tell (the results
   * header appends it): kernels/ does not link against NCCL's meaning. */
  snprintf(buf, len, "CUDA driver %s; CUDA runtime %s; cuBLASLt %zu.%zu.%zu",
           dv, rv, lt / 10000, (lt % 10000) / 100, lt % 100);
}

/* The device's free memory, asked on the rank's device. */
static enum gcb_status cuda_fits(const struct gcb_backend *b, uint64_t bytes,
                                 const char *what, struct gcb_err *err) {
  enum gcb_status st = gcb__cuda_use(b, err);
  return st != GCB_OK ? st : gcb__cuda_reserve((size_t)bytes, what, err);
}

/* ---- the ops table ------------------------------------------------------- */

const struct gcb_backend_ops gcb_backend_cuda = {
    .name = "cuda",
    .transport = "nccl",
    .description = GCB_CUDA_DESCRIPTION,
    .gemm_default_dim = GCB_CUDA_GEMM_DEFAULT_DIM,
    .usable = cuda_usable,
    .open = cuda_open,
    .close = cuda_close,
    .device_info = cuda_device_info,
    .versions = cuda_versions,
    .gemm = gcb__cuda_gemm,
    .stream = gcb__cuda_stream,
    .pcie = gcb__cuda_pcie,
    .launch = gcb__cuda_launch,
    .p2p = gcb__cuda_p2p,
    .gpus = cuda_gpus,
    .p2p_export = gcb__cuda_p2p_export,
    .health = gcb__cuda_health,
    .telemetry_start = gcb__cuda_telemetry_start,
    .telemetry_stop = gcb__cuda_telemetry_stop,
    .burn_read = gcb__cuda_burn_read,
    .fits = cuda_fits,
};
