/*
 * Device-memory bandwidth on the CUDA backend: the STREAM kernels (copy,
 * scale, add, triad), read-only and write-only kernels (all SM kernels with
 * 16-byte accesses, cuda_stream.cu), and cudaMemcpyAsync device to device,
 * over three arrays of doubles in device memory, timed with CUDA events on
 * the backend's non-blocking stream behind the gate kernel. The driver may
 * run a same-device cudaMemcpy on its copy engines or as a copy kernel on
 * the SMs (it does not say which): "memcpy" names the call, not the unit.
 *
 * Validation reads the output back after the timed runs: the STREAM
 * kernels and copies element by element against the host formula (exact:
 * the kernels round every operation as the host does), read against the
 * host's sum, write against the constant.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cuda_impl.h"
#include "kernels/cuda_kernels.h"

/* Array roles, in the order of GCB_MEMKERNEL_LIST's formulas. */
enum { ARR_A, ARR_B, ARR_C, ARR_COUNT };

/* Which array each kernel writes; no kernel reads the array it writes. */
static const int stream_output[GCB_MEMKERNEL_COUNT] = {
    [GCB_MEMKERNEL_COPY] = ARR_C,   [GCB_MEMKERNEL_SCALE] = ARR_B,
    [GCB_MEMKERNEL_ADD] = ARR_C,    [GCB_MEMKERNEL_TRIAD] = ARR_A,
    [GCB_MEMKERNEL_READ] = ARR_C,   [GCB_MEMKERNEL_WRITE] = ARR_C,
    [GCB_MEMKERNEL_MEMCPY] = ARR_C,
};

/* STREAM's scalar; any value that is not 0 or 1 exercises the multiply. */
static const double stream_scalar = 3.0;

/* A prepared operation. */
struct cuda_stream {
  struct gcb_backend *b;
  enum gcb_memkernel kernel;
  size_t n;            /* elements per array */
  size_t c_len;        /* elements of C: n, or more for read's partials */
  unsigned int blocks; /* grid size, fixed at setup (SM kernels) */
  double *dev[ARR_COUNT];
  double *host; /* ARR_COUNT arrays: the uploaded inputs; the output's slot
                   receives the device result in check() */
};

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

static enum gcb_status stream_alloc(struct cuda_stream *s,
                                    struct gcb_err *err) {
  size_t bytes = s->n * sizeof(double);
  size_t need = 2 * bytes + s->c_len * sizeof(double);
  char what[96];
  enum gcb_status st;

  snprintf(what, sizeof what, "cuda %s: 3 arrays of %zu doubles",
           gcb_memkernel_info(s->kernel)->name, s->n);
  if ((st = gcb__cuda_reserve(need, what, err)) != GCB_OK)
    return st;
  for (int i = 0; i < ARR_COUNT; i++) {
    void *p = NULL;
    size_t len = i == ARR_C ? s->c_len : s->n;
    if ((st = CUDA_CHECK(err, cudaMalloc(&p, len * sizeof(double)))) != GCB_OK)
      return st;
    s->dev[i] = p;
  }
  /* The host copy keeps C's longer length in its own (last) slot. */
  if ((s->host = malloc((2 * s->n + s->c_len) * sizeof(double))) == NULL)
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

static enum gcb_status stream_launch(void *state, struct gcb_err *err) {
  const struct cuda_stream *s = state;
  char what[96];
  int rc;

  if (s->kernel == GCB_MEMKERNEL_MEMCPY)
    return CUDA_CHECK(err,
                      cudaMemcpyAsync(s->dev[ARR_C], s->dev[ARR_A],
                                      s->n * sizeof(double),
                                      cudaMemcpyDeviceToDevice, s->b->stream));
  rc = gcb__cuda_stream_launch((int)s->kernel, s->dev[ARR_A], s->dev[ARR_B],
                               s->dev[ARR_C], stream_scalar, s->n, s->blocks,
                               s->b->stream);
  snprintf(what, sizeof what, "%s kernel launch (%u blocks, %zu elements)",
           gcb_memkernel_info(s->kernel)->name, s->blocks, s->n);
  return gcb__cuda_launched(err, rc, what);
}

/* Behind the gate (cuda.c): the events see the kernels, not the host
 * launching them, which for a small array is most of an ungated time. */
static enum gcb_status stream_run(void *state, int reps, double *seconds,
                                  struct gcb_err *err) {
  struct cuda_stream *s = state;
  const struct gcb__cuda_timed t = {
      .state = s, .work = stream_launch, .batch = 1};

  return gcb__cuda_time_gated(s->b, &t, reps, seconds, err);
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
  case GCB_MEMKERNEL_MEMCPY:
    return a[i];
  case GCB_MEMKERNEL_SCALE:
    return stream_scalar * c[i];
  case GCB_MEMKERNEL_ADD:
    return a[i] + b[i];
  case GCB_MEMKERNEL_TRIAD:
    product = stream_scalar * c[i];
    return b[i] + product;
  case GCB_MEMKERNEL_WRITE:
    return stream_scalar;
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

static void tally(struct gcb_check *out, double e) {
  if (!(e <= out->tolerance))
    out->wrong++;
  if (e > out->max_error)
    out->max_error = e;
}

/* read: the partial sums add up to the host's sum of a, within the
 * rounding of sequential sums of n / threads terms per thread. */
static void read_compare(const struct cuda_stream *s, struct gcb_check *out) {
  const double *a = host_array(s, ARR_A), *part = host_array(s, ARR_C);
  size_t threads = (size_t)s->blocks * GCB_CUDA_THREADS;
  long double want = 0, mag = 0, got = 0;

  for (size_t i = 0; i < s->n; i++) {
    want += a[i];
    mag += fabsl((long double)a[i]);
  }
  for (size_t t = 0; t < threads; t++)
    got += part[t];
  *out = (struct gcb_check){
      .checked = true,
      .samples = s->n,
      .tolerance = (double)(s->n / threads + 2) * DBL_EPSILON,
      .method = "sum of all elements vs host sum, relative to sum of |a|",
  };
  tally(out,
        isfinite((double)got) ? (double)(fabsl(got - want) / mag) : DBL_MAX);
}

static void stream_compare(const struct cuda_stream *s, struct gcb_check *out) {
  const double *got = host_array(s, stream_output[s->kernel]);

  if (s->kernel == GCB_MEMKERNEL_READ) {
    read_compare(s, out);
    return;
  }
  *out = (struct gcb_check){
      .checked = true,
      .samples = s->n,
      .tolerance = 4.0 * DBL_EPSILON,
      .method = "relative error against the host formula, every element",
  };
  for (size_t i = 0; i < s->n; i++)
    tally(out, relative_error(got[i], stream_expect(s, i)));
}

/* Reads the output array back into its host slot (which no kernel reads as
 * input) and compares it with the formula over the host inputs. */
static enum gcb_status stream_check(void *state, struct gcb_check *out,
                                    struct gcb_err *err) {
  struct cuda_stream *s = state;
  int o = stream_output[s->kernel];
  size_t len = s->kernel == GCB_MEMKERNEL_READ
                   ? (size_t)s->blocks * GCB_CUDA_THREADS
                   : s->n;
  enum gcb_status st;

  if ((st = gcb__cuda_use(s->b, err)) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaMemcpyAsync(host_array(s, o), s->dev[o],
                                            len * sizeof(double),
                                            cudaMemcpyDeviceToHost,
                                            s->b->stream))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaStreamSynchronize(s->b->stream))) != GCB_OK)
    return st;
  stream_compare(s, out);
  return GCB_OK;
}

/* Grid size once at setup, so the timed loop only launches; read needs C
 * long enough for one partial sum per thread. */
static enum gcb_status stream_grid(struct cuda_stream *s, struct gcb_err *err) {
  size_t partials;
  enum gcb_status st;

  s->c_len = s->n;
  if (s->kernel == GCB_MEMKERNEL_MEMCPY)
    return GCB_OK;
  st = gcb__cuda_launched(
      err, gcb__cuda_stream_blocks((int)s->kernel, s->n, &s->blocks),
      "grid size query (cudaOccupancyMaxActiveBlocksPerMultiprocessor)");
  partials = (size_t)s->blocks * GCB_CUDA_THREADS;
  if (st == GCB_OK && s->kernel == GCB_MEMKERNEL_READ && partials > s->c_len)
    s->c_len = partials;
  return st;
}

enum gcb_status gcb__cuda_stream(struct gcb_backend *b,
                                 const struct gcb_stream_params *p,
                                 struct gcb_op *op, struct gcb_err *err) {
  struct cuda_stream *s = NULL;
  enum gcb_status st;

  memset(op, 0, sizeof *op);
  if ((unsigned)p->kernel >= GCB_MEMKERNEL_COUNT || p->elements == 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "cuda stream: invalid kernel %d or element count %llu",
                       (int)p->kernel, (unsigned long long)p->elements);
  if (p->elements > SIZE_MAX / (2 * ARR_COUNT * sizeof(double)))
    return gcb_err_set(err, GCB_ENOMEM,
                       "cuda stream: %llu elements per array "
                       "exceed the address space",
                       (unsigned long long)p->elements);
  if ((s = calloc(1, sizeof *s)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "cuda stream: no memory for state");
  *s = (struct cuda_stream){.b = b, .kernel = p->kernel, .n = p->elements};
  if ((st = gcb__cuda_use(b, err)) != GCB_OK ||
      (st = stream_grid(s, err)) != GCB_OK ||
      (st = stream_alloc(s, err)) != GCB_OK ||
      (st = stream_upload(s, p->seed, err)) != GCB_OK) {
    stream_release(s);
    return st;
  }
  *op = (struct gcb_op){.state = s,
                        .run = stream_run,
                        .check = stream_check,
                        .release = stream_release};
  return GCB_OK;
}
