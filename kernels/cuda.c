/*
 * The CUDA backend: one NVIDIA GPU per MPI rank, chosen by local rank.
 *
 * It fills struct gcb_backend_ops (kernels/backend.h): discovery, device
 * description, library versions and the STREAM memory kernels on device
 * memory, timed with CUDA events on a private non-blocking stream. The
 * kernels themselves are in cuda_stream.cu; this file owns every CUDA
 * runtime call, so each one's return code is checked here and turned into
 * GCB_ECUDA with the failing call named in the message. GEMM (cuBLASLt) is
 * not implemented yet: its callback is NULL, which the harness reports.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "kernels/backend.h"
#include "kernels/cuda_kernels.h"

/* One opened backend: the rank's device and what timing needs. */
struct gcb_backend {
  int device;          /* CUDA ordinal among the visible devices */
  cudaStream_t stream; /* non-blocking: never serialised with stream 0 */
  cudaEvent_t start, stop;
};

/* STREAM array roles, in the order of GCB_MEMKERNEL_LIST's formulas. */
enum { ARR_A, ARR_B, ARR_C, ARR_COUNT };

/* Which array each kernel writes; no kernel reads the array it writes. */
static const int stream_output[GCB_MEMKERNEL_COUNT] = {
    [GCB_MEMKERNEL_COPY] = ARR_C,
    [GCB_MEMKERNEL_SCALE] = ARR_B,
    [GCB_MEMKERNEL_ADD] = ARR_C,
    [GCB_MEMKERNEL_TRIAD] = ARR_A,
};

/* STREAM's scalar; any value that is not 0 or 1 exercises the multiply. */
static const double stream_scalar = 3.0;

/* A prepared STREAM operation. */
struct cuda_stream {
  struct gcb_backend *b;
  enum gcb_memkernel kernel;
  size_t n;            /* elements per array */
  unsigned int blocks; /* grid size, fixed at setup */
  double *dev[ARR_COUNT];
  double *host; /* ARR_COUNT * n: the uploaded inputs; the output's slot
                   receives the device result in check() */
};

/*
 * Turns a CUDA return code into a status, naming the call. The runtime also
 * remembers a failed call's error for cudaGetLastError(); it is cleared here
 * so that a later kernel-launch check does not report this old error.
 */
static enum gcb_status cuda_check(struct gcb_err *err, cudaError_t rc,
                                  const char *call) {
  if (rc == cudaSuccess)
    return GCB_OK;
  (void)cudaGetLastError();
  return gcb_err_set(err, GCB_ECUDA, "%s: %s", call, cudaGetErrorString(rc));
}

#define CUDA_CHECK(err, call) cuda_check((err), (call), #call)

/* Makes b's device current for this thread (cheap when it already is). */
static enum gcb_status use_device(const struct gcb_backend *b,
                                  struct gcb_err *err) {
  return CUDA_CHECK(err, cudaSetDevice(b->device));
}

/* ---- backend lifetime and description ------------------------------------ */

static bool cuda_usable(char *why, size_t why_len) {
  int count = 0;
  cudaError_t rc = cudaGetDeviceCount(&count);

  if (rc != cudaSuccess) {
    (void)cudaGetLastError();
    snprintf(why, why_len, "no CUDA device visible, cudaGetDeviceCount: %s",
             cudaGetErrorString(rc));
    return false;
  }
  if (count == 0) {
    snprintf(why, why_len, "0 CUDA devices");
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
  if (b->stop != NULL)
    (void)cudaEventDestroy(b->stop);
  if (b->start != NULL)
    (void)cudaEventDestroy(b->start);
  if (b->stream != NULL)
    (void)cudaStreamDestroy(b->stream);
  free(b);
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
  if ((st = use_device(b, err)) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaStreamCreateWithFlags(
                                &b->stream, cudaStreamNonBlocking))) !=
          GCB_OK ||
      (st = CUDA_CHECK(err, cudaEventCreate(&b->start))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaEventCreate(&b->stop))) != GCB_OK)
    goto fail;
  *out = b;
  return GCB_OK;
fail:
  gcb_err_prefix(err, "cuda device %d", b->device);
  cuda_close(b);
  return st;
}

/* Copies a PCI bus id in lower case, as hwloc and sysfs spell it, so the
 * topology module can match it textually. */
static void copy_bus_id(char *dst, size_t len, const char *src) {
  size_t i = 0;

  for (; i + 1 < len && src[i] != '\0'; i++)
    dst[i] =
        (src[i] >= 'A' && src[i] <= 'F') ? (char)(src[i] - 'A' + 'a') : src[i];
  dst[i] = '\0';
}

static enum gcb_status cuda_device_info(struct gcb_backend *b,
                                        struct gcb_device_info *out,
                                        struct gcb_err *err) {
  struct cudaDeviceProp prop;
  char bus[32] = ""; /* the runtime needs 13 bytes: "0000:19:00.0" */
  enum gcb_status st;

  memset(out, 0, sizeof *out);
  if ((st = CUDA_CHECK(err, cudaGetDeviceProperties(&prop, b->device))) !=
          GCB_OK ||
      (st = CUDA_CHECK(err, cudaDeviceGetPCIBusId(bus, (int)sizeof bus,
                                                  b->device))) != GCB_OK)
    return st;
  snprintf(out->name, sizeof out->name, "%.*s", (int)sizeof out->name - 1,
           prop.name);
  copy_bus_id(out->bus_id, sizeof out->bus_id, bus);
  out->index = b->device;
  out->memory_bytes = (uint64_t)prop.totalGlobalMem;
  out->threads = 0; /* computes on the GPU, not on CPU threads */
  return GCB_OK;
}

/* "13.0" from the runtime's 1000*major + 10*minor encoding; 0 = none. */
static void format_cuda_version(char *buf, size_t len, int v) {
  if (v <= 0)
    snprintf(buf, len, "unknown");
  else
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* NCCL codes versions as X*1000+Y*100+Z up to 2.8, X*10000+Y*100+Z after. */
static void format_nccl_version(char *buf, size_t len, int v) {
  int major_unit = v >= 20900 ? 10000 : 1000;

  if (v <= 0)
    snprintf(buf, len, "unknown");
  else
    snprintf(buf, len, "%d.%d.%d", v / major_unit, (v % major_unit) / 100,
             v % 100);
}

static void cuda_versions(struct gcb_backend *b, char *buf, size_t len) {
  int driver = 0, runtime = 0, nccl = 0;
  size_t lt = cublasLtGetVersion(); /* major*10000 + minor*100 + patch */
  char dv[32], rv[32], nv[32];

  (void)b; /* versions are per process, not per device */
  if (cudaDriverGetVersion(&driver) != cudaSuccess)
    driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess)
    runtime = 0;
  (void)cudaGetLastError();
  if (ncclGetVersion(&nccl) != ncclSuccess)
    nccl = 0;
  format_cuda_version(dv, sizeof dv, driver);
  format_cuda_version(rv, sizeof rv, runtime);
  format_nccl_version(nv, sizeof nv, nccl);
  snprintf(buf, len,
           "CUDA driver %s; CUDA runtime %s; cuBLASLt %zu.%zu.%zu; NCCL %s", dv,
           rv, lt / 10000, (lt % 10000) / 100, lt % 100, nv);
}

/* ---- STREAM memory kernels ----------------------------------------------- */

static double *host_array(const struct cuda_stream *s, int which) {
  return s->host + (size_t)which * s->n;
}

static void stream_release(void *state) {
  struct cuda_stream *s = state;

  if (s == NULL)
    return;
  for (int i = 0; i < ARR_COUNT; i++)
    if (s->dev[i] != NULL)
      (void)cudaFree(s->dev[i]);
  free(s->host);
  free(s);
}

/* Checks free device memory before allocating, so an oversized request is
 * a clear GCB_ENOMEM with the numbers rather than a bare cudaMalloc error. */
static enum gcb_status stream_alloc(struct cuda_stream *s,
                                    struct gcb_err *err) {
  size_t bytes = s->n * sizeof(double), need = ARR_COUNT * bytes;
  size_t free_bytes = 0, total_bytes = 0;
  enum gcb_status st;

  st = CUDA_CHECK(err, cudaMemGetInfo(&free_bytes, &total_bytes));
  if (st != GCB_OK)
    return st;
  if (need > free_bytes)
    return gcb_err_set(err, GCB_ENOMEM,
                       "cuda stream: 3 arrays of %zu doubles need %zu bytes "
                       "of device memory; %zu of %zu bytes are free",
                       s->n, need, free_bytes, total_bytes);
  for (int i = 0; i < ARR_COUNT; i++) {
    void *p = NULL;
    if ((st = CUDA_CHECK(err, cudaMalloc(&p, bytes))) != GCB_OK)
      return st;
    s->dev[i] = p;
  }
  if ((s->host = malloc(need)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM,
                       "cuda stream: no host memory for the %zu-byte "
                       "reference copy of the arrays",
                       need);
  return GCB_OK;
}

/* Random inputs in every array (never zeros), uploaded on the op's stream:
 * a plain cudaMemcpy from pageable memory may return before its DMA lands
 * and is not ordered with a non-blocking stream. */
static enum gcb_status stream_upload(struct cuda_stream *s, uint64_t seed,
                                     struct gcb_err *err) {
  size_t bytes = s->n * sizeof(double);
  enum gcb_status st = GCB_OK;

  gcb_fill_random(s->host, ARR_COUNT * s->n, seed);
  for (int i = 0; i < ARR_COUNT && st == GCB_OK; i++)
    st = CUDA_CHECK(err, cudaMemcpyAsync(s->dev[i], host_array(s, i), bytes,
                                         cudaMemcpyHostToDevice, s->b->stream));
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaStreamSynchronize(s->b->stream));
  return st;
}

static enum gcb_status stream_launch(const struct cuda_stream *s,
                                     struct gcb_err *err) {
  int rc = gcb__cuda_stream_launch((int)s->kernel, s->dev[ARR_A], s->dev[ARR_B],
                                   s->dev[ARR_C], stream_scalar, s->n,
                                   s->blocks, s->b->stream);
  char what[96];

  if (rc == (int)cudaSuccess)
    return GCB_OK;
  snprintf(what, sizeof what, "%s kernel launch (%u blocks, %zu elements)",
           gcb_memkernel_info(s->kernel)->name, s->blocks, s->n);
  return cuda_check(err, (cudaError_t)rc, what);
}

static enum gcb_status stream_run(void *state, int reps, double *seconds,
                                  struct gcb_err *err) {
  struct cuda_stream *s = state;
  struct gcb_backend *b = s->b;
  float ms = 0.0f;
  enum gcb_status st;

  if (reps < 1)
    return gcb_err_set(err, GCB_EUSAGE, "cuda stream: %d repetitions", reps);
  if ((st = use_device(b, err)) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaEventRecord(b->start, b->stream))) != GCB_OK)
    return st;
  for (int r = 0; r < reps; r++)
    if ((st = stream_launch(s, err)) != GCB_OK)
      return st;
  if ((st = CUDA_CHECK(err, cudaEventRecord(b->stop, b->stream))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaEventSynchronize(b->stop))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaEventElapsedTime(&ms, b->start, b->stop))) !=
          GCB_OK)
    return st;
  *seconds = (double)ms * 1e-3;
  return GCB_OK;
}

/* The kernel's formula on the host, from the uploaded inputs. */
static double stream_expect(const struct cuda_stream *s, size_t i) {
  const double *a = host_array(s, ARR_A), *b = host_array(s, ARR_B);
  const double *c = host_array(s, ARR_C);
  /* Rounded on its own, like the device's unfused multiply: volatile stops
   * any compiler from contracting the triad into an FMA. */
  volatile double product;

  switch (s->kernel) {
  case GCB_MEMKERNEL_COPY:
    return a[i];
  case GCB_MEMKERNEL_SCALE:
    return stream_scalar * c[i];
  case GCB_MEMKERNEL_ADD:
    return a[i] + b[i];
  case GCB_MEMKERNEL_TRIAD:
    product = stream_scalar * c[i];
    return b[i] + product;
  default:
    return (double)NAN;
  }
}

/* Relative error; a non-finite result counts as the largest error. */
static double relative_error(double got, double want) {
  double diff = fabs(got - want);

  if (!isfinite(got))
    return DBL_MAX;
  return want != 0.0 ? diff / fabs(want) : diff;
}

static void stream_compare(const struct cuda_stream *s, struct gcb_check *out) {
  const double *got = host_array(s, stream_output[s->kernel]);

  *out = (struct gcb_check){
      .checked = true,
      .samples = s->n,
      .tolerance = 4.0 * DBL_EPSILON,
      .method = "relative error against the host formula, every element",
  };
  for (size_t i = 0; i < s->n; i++) {
    double e = relative_error(got[i], stream_expect(s, i));
    if (!(e <= out->tolerance))
      out->wrong++;
    if (e > out->max_error)
      out->max_error = e;
  }
}

/* Reads the output array back into its host slot (which no kernel reads as
 * input) and compares it with the formula over the host inputs. */
static enum gcb_status stream_check(void *state, struct gcb_check *out,
                                    struct gcb_err *err) {
  struct cuda_stream *s = state;
  int o = stream_output[s->kernel];
  enum gcb_status st;

  if ((st = use_device(s->b, err)) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaMemcpyAsync(host_array(s, o), s->dev[o],
                                            s->n * sizeof(double),
                                            cudaMemcpyDeviceToHost,
                                            s->b->stream))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaStreamSynchronize(s->b->stream))) != GCB_OK)
    return st;
  stream_compare(s, out);
  return GCB_OK;
}

/* Grid size once at setup, so the timed loop only launches. */
static enum gcb_status stream_grid(struct cuda_stream *s, struct gcb_err *err) {
  int rc = gcb__cuda_stream_blocks((int)s->kernel, s->n, &s->blocks);

  return cuda_check(
      err, (cudaError_t)rc,
      "grid size query (cudaOccupancyMaxActiveBlocksPerMultiprocessor)");
}

static enum gcb_status cuda_stream(struct gcb_backend *b,
                                   const struct gcb_stream_params *p,
                                   struct gcb_op *op, struct gcb_err *err) {
  struct cuda_stream *s = NULL;
  enum gcb_status st;

  memset(op, 0, sizeof *op);
  if ((unsigned)p->kernel >= GCB_MEMKERNEL_COUNT || p->elements == 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "cuda stream: invalid kernel %d or element count %llu",
                       (int)p->kernel, (unsigned long long)p->elements);
  if (p->elements > SIZE_MAX / (ARR_COUNT * sizeof(double)))
    return gcb_err_set(err, GCB_ENOMEM,
                       "cuda stream: %llu elements per array "
                       "exceed the address space",
                       (unsigned long long)p->elements);
  if ((s = calloc(1, sizeof *s)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "cuda stream: no memory for state");
  *s = (struct cuda_stream){.b = b, .kernel = p->kernel, .n = p->elements};
  if ((st = use_device(b, err)) != GCB_OK ||
      (st = stream_alloc(s, err)) != GCB_OK ||
      (st = stream_upload(s, p->seed, err)) != GCB_OK ||
      (st = stream_grid(s, err)) != GCB_OK) {
    stream_release(s);
    return st;
  }
  *op = (struct gcb_op){.state = s,
                        .run = stream_run,
                        .check = stream_check,
                        .release = stream_release};
  return GCB_OK;
}

/* ---- the ops table ------------------------------------------------------- */

const struct gcb_backend_ops gcb_backend_cuda = {
    .name = "cuda",
    .description = "NVIDIA GPU per rank: CUDA memory kernels, CUDA events",
    .gemm_default_dim = 8192,
    .usable = cuda_usable,
    .open = cuda_open,
    .close = cuda_close,
    .device_info = cuda_device_info,
    .versions = cuda_versions,
    /* cuBLASLt GEMM arrives in a later change; until then NULL makes the
     * harness report "gemm: not supported on cuda" instead of hiding it. */
    .gemm = NULL,
    .stream = cuda_stream,
};
