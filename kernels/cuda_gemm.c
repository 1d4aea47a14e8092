/*
 * GEMM on the CUDA backend with cuBLASLt: fp64, fp32, tf32, fp16, bf16,
 * fp8 (e4m3 in, bf16 out) and int8 (int32 out), C = A B with m, n, k.
 *
 * Layout is "TN" for every type: A is stored transposed (k x m, column
 * major, lda = k) and B as is (k x n, ldb = k), since cuBLASLt's fp8 and
 * int8 kernels require A transposed and B not (cuBLAS documentation,
 * cublasLtMatmul(), "To use FP8 kernels ... A must be transposed and B
 * non-transposed (the TN format)"). It also makes a row of A and a column
 * of B contiguous, so the check copies back just the vectors it needs.
 *
 * Inputs are uniform in [-1, 1) from the shared seeded generator, uploaded
 * as fp32 (fp64 for fp64) and rounded on the device to the element type
 * (cuda_gemm.cu). The algorithm is cuBLASLt's first heuristic choice for a
 * 32 MiB workspace (the size NVIDIA recommends for Hopper), fixed at setup
 * so that timed runs only enqueue cublasLtMatmul. run() times repetitions
 * behind the gate kernel (cuda.c's gcb__cuda_time_gated), after an untimed
 * L2 flush and rewrite of C (on by default on this backend), and setup
 * warms the GPU up to steady clocks first.
 *
 * With `burn` (gcbench burn), gpu-burn's shape (wilicc/gpu-burn,
 * gpu_burn-drv.cpp): one A and one B, and as many result slots as 90 % of
 * the device memory then free holds (its USEMEM 0.9 of cuMemGetInfo's
 * free bytes, initBuffers()); each run() multiplies into the next slot in
 * turn, untimed extras (L2 flush, C rewrite) left out, and check() compares
 * the products written since the last check with the one in slot 0 on the
 * device (gpu-burn's compare.cu: a product of the same inputs by the same
 * algorithm must come out bit for bit the same, so any element further
 * than gpu-burn's EPSILON from the first is a silent error).
 *
 * A training step's GEMMs (pattern: gcb_gemm_params.in_step) run ungated,
 * as a framework enqueues them, and only the backend's first GEMM warms
 * the GPU up (a step's many shapes would each take GCB_GEMM_WARMUP_S); with
 * `batch`, one run is a strided batch of products in one call (attention's
 * per-head products, as torch.bmm runs them), each with its own A, B and C.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cuda_impl.h"
#include "kernels/cuda_kernels.h"
#include "kernels/cuda_pure.h"

#define WORKSPACE_BYTES ((size_t)32 << 20)
#define CHECK_SAMPLES 256
/* gpu_burn-drv.cpp: "#define USEMEM 0.9 // Try to allocate 90% of memory",
 * of the free memory (availMemory() is cuMemGetInfo's free). */
#define BURN_USE_FREE 0.9
/* compare.cu: EPSILON 0.001f for floats, EPSILOND 0.0000001 for doubles;
 * integers (int8's int32 products) compare exactly. */
#define BURN_EPS_FLOAT 0.001
#define BURN_EPS_DOUBLE 0.0000001

/* Per-backend cuBLASLt state, made by the first GEMM. */
struct gcb__cuda_gemm_ctx {
  cublasLtHandle_t lt;
  void *workspace;
  void *flush; /* 2 x L2 bytes, written to evict L2 */
  size_t flush_bytes;
  float *one;  /* device 1.0f: the fp8 per-tensor scales */
  bool warmed; /* a GEMM has warmed the GPU up (gemm_warm) */
};

/* cuBLASLt's types for each gcbench element type. */
static const struct lt_types {
  cudaDataType_t ab, cd, scale;
  cublasComputeType_t compute;
  size_t ab_bytes, cd_bytes;
} lt_types[GCB_DTYPE_COUNT] = {
    [GCB_DTYPE_FP64] = {CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F,
                        8, 8},
    [GCB_DTYPE_FP32] = {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F,
                        4, 4},
    [GCB_DTYPE_TF32] = {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                        CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4},
    [GCB_DTYPE_FP16] = {CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F,
                        2, 2},
    [GCB_DTYPE_BF16] = {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F,
                        CUBLAS_COMPUTE_32F, 2, 2},
    [GCB_DTYPE_FP8] = {CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F,
                       CUBLAS_COMPUTE_32F, 1, 2},
    [GCB_DTYPE_INT8] = {CUDA_R_8I, CUDA_R_32I, CUDA_R_32I, CUBLAS_COMPUTE_32I,
                        1, 4},
};

struct cuda_gemm {
  struct gcb_backend *b;
  enum gcb_dtype dtype;
  uint64_t m, n, k, seed;
  bool flush, fast_accum;
  bool in_step;     /* pattern: ungated, no warm-up (gcb_gemm_params) */
  uint64_t batch;   /* products per run: A, B and C hold this many each */
  uint64_t samples; /* prepared samples: C's rewrite byte changes each */
  bool autotune;
  cublasLtMatmulHeuristicResult_t cands[GCB_GEMM_AUTOTUNE_ALGOS];
  int ncands;       /* heuristic results kept (1 without autotune) */
  void *a, *bm, *c; /* device: A^T (k x m), B (k x n), C (m x n), each
                       `batch` times, the first where check() samples */
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatmulAlgo_t algo;
  size_t ws_bytes;
  union {
    double d;
    float f;
    int32_t i;
  } alpha, beta;
  /* burn: c holds nslots products; run() writes slot `next` and moves on;
   * `dirty` slots (at most nslots) written since the last check, ending
   * just before `next`, are the ones the next check compares */
  bool burn, plant_pending;
  uint64_t nslots, next, dirty;
  unsigned long long *slot_faults;     /* device, one per slot */
  struct gcb_cuda_burn_faults *faults; /* device */
};

static enum gcb_status lt_check(struct gcb_err *err, cublasStatus_t rc,
                                const char *call) {
  if (rc == CUBLAS_STATUS_SUCCESS)
    return GCB_OK;
  return gcb_err_set(err, GCB_ECUDA, "%s: %s (%s)", call,
                     cublasLtGetStatusName(rc), cublasLtGetStatusString(rc));
}
#define LT_CHECK(err, call) lt_check((err), (call), #call)

/* ---- per-backend state --------------------------------------------------- */

void gcb__cuda_gemm_close(struct gcb_backend *b) {
  struct gcb__cuda_gemm_ctx *g = b->gemm;

  if (g == NULL)
    return;
  if (g->lt != NULL)
    (void)cublasLtDestroy(g->lt);
  (void)cudaFree(g->workspace);
  (void)cudaFree(g->flush);
  (void)cudaFree(g->one);
  free(g);
  b->gemm = NULL;
}

static enum gcb_status gemm_ctx(struct gcb_backend *b, struct gcb_err *err) {
  struct gcb__cuda_gemm_ctx *g;
  const float one = 1.0f;
  void *ws = NULL, *pone = NULL;
  enum gcb_status st;

  if (b->gemm != NULL)
    return GCB_OK;
  if ((g = b->gemm = calloc(1, sizeof *g)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "cuda gemm: no memory for state");
  if ((st = LT_CHECK(err, cublasLtCreate(&g->lt))) == GCB_OK &&
      (st = CUDA_CHECK(err, cudaMalloc(&ws, WORKSPACE_BYTES))) == GCB_OK)
    g->workspace = ws;
  if (st == GCB_OK &&
      (st = CUDA_CHECK(err, cudaMalloc(&pone, sizeof one))) == GCB_OK)
    g->one = pone;
  /* On b->stream, which the matmuls use: a plain cudaMemcpy from pageable
   * memory may return before its DMA lands and is not ordered with a
   * non-blocking stream (CUDA runtime API, "API synchronization
   * behavior"). */
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaMemcpyAsync(g->one, &one, sizeof one,
                                         cudaMemcpyHostToDevice, b->stream));
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaStreamSynchronize(b->stream));
  /* A half-made state must not stay in b->gemm: the next GEMM would find
   * it and run with a NULL handle or workspace. */
  if (st != GCB_OK)
    gcb__cuda_gemm_close(b);
  return st;
}

/* Twice the L2, written with cudaMemsetAsync (a kernel that stores every
 * byte): whatever GEMM data L2 held is evicted before the timed run. */
static enum gcb_status flush_buffer(struct gcb_backend *b,
                                    struct gcb_err *err) {
  struct gcb__cuda_gemm_ctx *g = b->gemm;
  void *p = NULL;
  enum gcb_status st;

  if (g->flush != NULL)
    return GCB_OK;
  g->flush_bytes = 2 * (b->l2_bytes > 0 ? b->l2_bytes : ((size_t)64 << 20));
  if ((st = CUDA_CHECK(err, cudaMalloc(&p, g->flush_bytes))) == GCB_OK)
    g->flush = p;
  return st;
}

/* ---- the operation ------------------------------------------------------- */

static void gemm_release(void *state) {
  struct cuda_gemm *g = state;

  if (g == NULL)
    return;
  if (g->lc != NULL)
    (void)cublasLtMatrixLayoutDestroy(g->lc);
  if (g->lb != NULL)
    (void)cublasLtMatrixLayoutDestroy(g->lb);
  if (g->la != NULL)
    (void)cublasLtMatrixLayoutDestroy(g->la);
  if (g->desc != NULL)
    (void)cublasLtMatmulDescDestroy(g->desc);
  (void)cudaFree(g->a);
  (void)cudaFree(g->bm);
  (void)cudaFree(g->c);
  (void)cudaFree(g->slot_faults);
  (void)cudaFree(g->faults);
  free(g);
}

/* Untimed, before each timed sample (mamf-finder's cache and
 * destination-matrix reset): write twice the L2 so no input is left in it,
 * and rewrite C with a new byte so its lines are neither cached nor the
 * values the previous multiply left. */
static enum gcb_status gemm_prepare(void *state, struct gcb_err *err) {
  struct cuda_gemm *g = state;
  struct gcb__cuda_gemm_ctx *ctx = g->b->gemm;
  int byte = (int)(++g->samples & 0x7f) | 0x01;
  size_t c_bytes =
      (size_t)(g->m * g->n * g->batch) * lt_types[g->dtype].cd_bytes;
  enum gcb_status st = GCB_OK;

  if (!g->flush)
    return GCB_OK;
  st = CUDA_CHECK(
      err, cudaMemsetAsync(ctx->flush, byte, ctx->flush_bytes, g->b->stream));
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaMemsetAsync(g->c, byte, c_bytes, g->b->stream));
  return st;
}

static size_t product_bytes(const struct cuda_gemm *g) {
  return (size_t)(g->m * g->n) * lt_types[g->dtype].cd_bytes;
}

/* Where run() writes: C, or with burn the next slot. */
static void *product(const struct cuda_gemm *g, uint64_t slot) {
  return g->burn ? (char *)g->c + slot * product_bytes(g) : g->c;
}

/* GCB_TEST_BURN_WRONG's planted error: the first element of a product
 * overwritten with 0x7f bytes (a huge value, or a NaN for fp16), behind
 * the multiply on the same stream. */
static enum gcb_status plant_into(struct cuda_gemm *g, uint64_t slot,
                                  struct gcb_err *err) {
  g->plant_pending = false;
  return CUDA_CHECK(err,
                    cudaMemsetAsync(product(g, slot), 0x7f,
                                    lt_types[g->dtype].cd_bytes, g->b->stream));
}

static enum gcb_status gemm_once(void *state, struct gcb_err *err) {
  struct cuda_gemm *g = state;
  struct gcb__cuda_gemm_ctx *ctx = g->b->gemm;
  uint64_t slot = g->next;
  void *d = product(g, slot);
  enum gcb_status st = LT_CHECK(
      err, cublasLtMatmul(ctx->lt, g->desc, &g->alpha, g->a, g->la, g->bm,
                          g->lb, &g->beta, d, g->lc, d, g->lc, &g->algo,
                          ctx->workspace, g->ws_bytes, g->b->stream));

  if (st != GCB_OK || !g->burn)
    return st;
  g->next = (slot + 1) % g->nslots;
  g->dirty = g->dirty < g->nslots ? g->dirty + 1 : g->nslots;
  /* Slot 0 is the reference: a plant waits for a product compared. */
  return g->plant_pending && slot != 0 ? plant_into(g, slot, err) : GCB_OK;
}

/* Timed behind the gate (cuda.c), so cuBLASLt's enqueue (several us) is
 * outside the events: at 2048^3 on an H200 that is 20-30 % of the time. */
static enum gcb_status gemm_run(void *state, int reps, double *seconds,
                                struct gcb_err *err) {
  struct cuda_gemm *g = state;
  /* burn: no flush nor rewrite between products (gpu-burn queues its
   * multiplies back to back; a slot is written whole by its multiply). */
  const struct gcb__cuda_timed t = {.state = g,
                                    .prepare = g->burn ? NULL : gemm_prepare,
                                    .work = gemm_once,
                                    .batch = 1,
                                    .ungated = g->in_step};

  return gcb__cuda_time_gated(g->b, &t, reps, seconds, err);
}

/* Untimed multiplies at setup until the GPU has run GCB_GEMM_WARMUP_S of
 * them (gcb_gemm_warmup_reps), so timing starts at steady clocks rather
 * than at the idle clock the harness's few warm-up runs may not leave. */
static enum gcb_status gemm_warm(struct cuda_gemm *g, struct gcb_err *err) {
  double one = 0.0;
  enum gcb_status st = gemm_run(g, 1, &one, err);
  long reps = gcb_gemm_warmup_reps(one, GCB_GEMM_WARMUP_S);

  for (long done = 0; st == GCB_OK && done < reps; done += 64) {
    int chunk = (int)(reps - done < 64 ? reps - done : 64);
    st = gemm_run(g, chunk, &one, err);
  }
  if (st == GCB_OK)
    g->b->gemm->warmed = true;
  return st;
}

/* A stored vector copied back and decoded: count elements at byte offset
 * `at` of device buffer `dev`, of stored type t (the C types are named by
 * the gcbench type whose output they are). */
static enum gcb_status fetch(const void *dev, size_t at, size_t count,
                             size_t esz, enum gcb_dtype t, bool int32,
                             void *raw, double *out, struct gcb_err *err) {
  enum gcb_status st =
      CUDA_CHECK(err, cudaMemcpy(raw, (const char *)dev + at, count * esz,
                                 cudaMemcpyDeviceToHost));

  if (st != GCB_OK)
    return st;
  if (int32) {
    for (size_t i = 0; i < count; i++) {
      int32_t v;
      memcpy(&v, (const char *)raw + 4 * i, 4);
      out[i] = v;
    }
    return GCB_OK;
  }
  if (gcb_gemm_decode(t, raw, count, out) != 0)
    return gcb_err_set(err, GCB_EINTERNAL, "cuda gemm: cannot decode %s",
                       gcb_dtype_name(t));
  return GCB_OK;
}

/* The output's stored type: fp8 writes bf16, int8 int32, tf32 fp32. */
static enum gcb_dtype out_type(enum gcb_dtype t) {
  return t == GCB_DTYPE_FP8 ? GCB_DTYPE_BF16 : t;
}

static enum gcb_status check_entry(const struct cuda_gemm *g, uint64_t i,
                                   uint64_t j, double *row, double *col,
                                   void *raw, double *error,
                                   struct gcb_err *err) {
  const struct lt_types *lt = &lt_types[g->dtype];
  double got = 0.0;
  enum gcb_status st;

  if ((st = fetch(g->a, i * g->k * lt->ab_bytes, g->k, lt->ab_bytes, g->dtype,
                  false, raw, row, err)) != GCB_OK ||
      (st = fetch(g->bm, j * g->k * lt->ab_bytes, g->k, lt->ab_bytes, g->dtype,
                  false, raw, col, err)) != GCB_OK ||
      (st = fetch(g->c, (i + j * g->m) * lt->cd_bytes, 1, lt->cd_bytes,
                  out_type(g->dtype), g->dtype == GCB_DTYPE_INT8, raw, &got,
                  err)) != GCB_OK)
    return st;
  *error = gcb_gemm_entry_error(row, col, g->k, got);
  return GCB_OK;
}

/* The stored output type as the burn compare reads it, and its EPSILON. */
static enum gcb_cuda_elem burn_elem(enum gcb_dtype t, double *eps) {
  *eps = BURN_EPS_FLOAT;
  switch (t) {
  case GCB_DTYPE_FP64:
    *eps = BURN_EPS_DOUBLE;
    return GCB_CUDA_ELEM_F64;
  case GCB_DTYPE_FP16:
    return GCB_CUDA_ELEM_F16;
  case GCB_DTYPE_BF16:
  case GCB_DTYPE_FP8: /* stored as bf16 */
    return GCB_CUDA_ELEM_BF16;
  case GCB_DTYPE_INT8: /* stored as int32 */
    *eps = 0.0;
    return GCB_CUDA_ELEM_I32;
  default: /* fp32, tf32 */
    return GCB_CUDA_ELEM_F32;
  }
}

/* Whether slot 0 is among the `dirty` slots that end before `next`. */
static bool dirty_has_first(const struct cuda_gemm *g, uint64_t first) {
  return g->dirty > 0 && (first == 0 || first + g->dirty > g->nslots);
}

/* gpu-burn's check: the products written since the last check against
 * slot 0's, on the device; samples and wrong count products. */
static enum gcb_status burn_check(struct cuda_gemm *g, struct gcb_check *out,
                                  struct gcb_err *err) {
  uint64_t first = (g->next + g->nslots - g->dirty) % g->nslots;
  struct gcb_cuda_burn_faults found = {0};
  double eps = 0.0;
  enum gcb_cuda_elem elem = burn_elem(g->dtype, &eps);
  enum gcb_status st = gcb__cuda_use(g->b, err);

  *out = (struct gcb_check){
      .checked = true,
      .samples = g->dirty - (dirty_has_first(g, first) ? 1 : 0),
      .tolerance = eps,
      .method = "each product against the first on the device, |C - C1| "
                "per element (gpu-burn's compare); a product is wrong when "
                "any element is beyond the tolerance",
  };
  if (st != GCB_OK || out->samples == 0) {
    g->dirty = 0;
    return st;
  }
  st = CUDA_CHECK(err, cudaMemsetAsync(g->slot_faults, 0,
                                       g->nslots * sizeof *g->slot_faults,
                                       g->b->stream));
  if (st == GCB_OK)
    st = CUDA_CHECK(
        err, cudaMemsetAsync(g->faults, 0, sizeof *g->faults, g->b->stream));
  if (st == GCB_OK)
    st = gcb__cuda_launched(
        err,
        gcb__cuda_burn_compare((int)elem, g->c, (size_t)(g->m * g->n), first,
                               g->dirty, g->nslots, eps, g->slot_faults,
                               g->faults, g->b->stream),
        "burn compare kernel launch");
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaMemcpyAsync(&found, g->faults, sizeof found,
                                         cudaMemcpyDeviceToHost, g->b->stream));
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaStreamSynchronize(g->b->stream));
  if (st == GCB_OK) {
    out->wrong = found.products;
    memcpy(&out->max_error, &found.max_bits, sizeof out->max_error);
    g->dirty = 0;
  }
  return st;
}

/* The op's plant (GCB_TEST_BURN_WRONG): into the last product when the
 * next check compares it, else into the next one that it will. */
static void gemm_plant(void *state) {
  struct cuda_gemm *g = state;
  uint64_t last = (g->next + g->nslots - 1) % g->nslots;
  struct gcb_err err = {0};

  g->plant_pending = true;
  if (g->dirty > 0 && last != 0)
    (void)plant_into(g, last, &err); /* a hook: nothing to report to */
}

static enum gcb_status gemm_check(void *state, struct gcb_check *out,
                                  struct gcb_err *err) {
  struct cuda_gemm *g = state;
  if (g->burn)
    return burn_check(g, out, err);
  uint64_t entries = g->m * g->n;
  bool all = entries <= CHECK_SAMPLES;
  double pick[CHECK_SAMPLES];
  double *row = malloc(g->k * sizeof *row), *col = malloc(g->k * sizeof *col);
  void *raw = malloc(g->k * 8);
  enum gcb_status st = gcb__cuda_use(g->b, err);

  *out = (struct gcb_check){
      .checked = true,
      .samples = all ? entries : CHECK_SAMPLES,
      .tolerance = gcb_gemm_tolerance(g->dtype, g->k),
      .method = "|C - ref| / sqrt(sum (a b)^2), long double reference from "
                "the stored inputs, sampled entries",
  };
  if (st == GCB_OK && (row == NULL || col == NULL || raw == NULL))
    st = gcb_err_set(err, GCB_ENOMEM, "cuda gemm check: out of memory");
  /* The same sample positions as the host backend for a given seed. */
  gcb_fill_random(pick, CHECK_SAMPLES,
                  g->seed ^ (3 * UINT64_C(0xd1b54a32d192ed03)));
  for (uint64_t s = 0; s < out->samples && st == GCB_OK; s++) {
    uint64_t idx = all ? s : (uint64_t)((pick[s] + 1.0) / 2 * (double)entries);
    double e = 0.0;
    idx = idx < entries ? idx : entries - 1;
    st = check_entry(g, idx % g->m, idx / g->m, row, col, raw, &e, err);
    if (st == GCB_OK && !(e <= out->tolerance))
      out->wrong++;
    if (st == GCB_OK && isfinite(e) && e > out->max_error)
      out->max_error = e;
  }
  free(row);
  free(col);
  free(raw);
  return st;
}

/* ---- setup --------------------------------------------------------------- */

/* Types, device and shape, before anything is allocated. */
static enum gcb_status gemm_validate(const struct gcb_backend *b,
                                     const struct gcb_gemm_params *p,
                                     struct gcb_err *err) {
  int need = gcb_gemm_min_cc(p->dtype), have = 10 * b->cc_major + b->cc_minor;

  if (need < 0)
    return gcb_err_set(err, GCB_EUSAGE, "cuda gemm: unknown dtype %d",
                       (int)p->dtype);
  if (have < need)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "%s GEMM needs compute capability %d.%d or later; "
                       "this GPU is %d.%d",
                       gcb_dtype_name(p->dtype), need / 10, need % 10,
                       b->cc_major, b->cc_minor);
  if (p->m == 0 || p->n == 0 || p->k == 0)
    return gcb_err_set(err, GCB_EUSAGE, "cuda gemm: zero dimension");
  double most = (double)p->m * (double)p->n;
  most = fmax(most,
              fmax((double)p->m * (double)p->k, (double)p->k * (double)p->n));
  if (p->batch > INT32_MAX || (p->batch > 1 && p->burn) ||
      most * (double)(p->batch > 1 ? p->batch : 1) > 0x1p53)
    return gcb_err_set(err, GCB_EUSAGE, "cuda gemm: a batch of %llu products%s",
                       (unsigned long long)p->batch,
                       p->burn ? " with burn" : " (too many elements)");
  /* Leading dimensions are int64 in cuBLASLt, but m * n indexing and the
   * check's buffers stay sane below 2^31 per dimension. */
  if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "cuda gemm: dimensions are limited to %d", INT32_MAX);
  /* 127 * 127 * k must fit the int32 accumulator. */
  if (p->dtype == GCB_DTYPE_INT8 && p->k > INT32_MAX / (127 * 127))
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "int8 GEMM with k = %llu could overflow its int32 "
                       "accumulator (k <= %d)",
                       (unsigned long long)p->k, INT32_MAX / (127 * 127));
  return GCB_OK;
}

static enum gcb_status gemm_alloc(struct cuda_gemm *g, struct gcb_err *err) {
  const struct lt_types *lt = &lt_types[g->dtype];
  size_t mk = g->m * g->k * g->batch, kn = g->k * g->n * g->batch,
         mn = g->m * g->n * g->batch;
  size_t staging = (mk > kn ? mk : kn) * sizeof(float);
  /* burn: C is the slots, made after the inputs (burn_slots), two at
   * least */
  size_t need = (mk + kn) * lt->ab_bytes +
                (g->burn ? 2 : 1) * mn * lt->cd_bytes + staging;
  char what[96];
  void *a = NULL, *bm = NULL, *c = NULL;
  enum gcb_status st;

  snprintf(what, sizeof what, "%s GEMM %llux%llux%llu%s",
           gcb_dtype_name(g->dtype), (unsigned long long)g->m,
           (unsigned long long)g->n, (unsigned long long)g->k,
           g->batch > 1 ? " (batched)" : "");
  if ((st = gcb__cuda_reserve(need, what, err)) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaMalloc(&a, mk * lt->ab_bytes))) != GCB_OK)
    return st;
  g->a = a;
  if ((st = CUDA_CHECK(err, cudaMalloc(&bm, kn * lt->ab_bytes))) != GCB_OK)
    return st;
  g->bm = bm;
  if (g->burn)
    return GCB_OK;
  if ((st = CUDA_CHECK(err, cudaMalloc(&c, mn * lt->cd_bytes))) != GCB_OK)
    return st;
  g->c = c;
  /* Zero C, so a check before any run fails instead of reading garbage. */
  return CUDA_CHECK(err,
                    cudaMemsetAsync(g->c, 0, mn * lt->cd_bytes, g->b->stream));
}

/* burn: the slots, 90 % of the memory free once A and B are in place
 * (gpu-burn's USEMEM of availMemory(), after its A and B: it takes them
 * out of the same 90 %; here they are already allocated), each with its
 * fault counter; fewer than two is GCB_ENOMEM. */
static enum gcb_status burn_slots(struct cuda_gemm *g, struct gcb_err *err) {
  size_t free_b = 0, total = 0, one = product_bytes(g);
  void *c = NULL, *sf = NULL, *f = NULL;
  enum gcb_status st = CUDA_CHECK(err, cudaMemGetInfo(&free_b, &total));

  if (st != GCB_OK)
    return st;
  g->nslots = (uint64_t)((double)free_b * BURN_USE_FREE) /
              (one + sizeof *g->slot_faults);
  if (g->nslots < 2)
    return gcb_err_set(err, GCB_ENOMEM,
                       "burn needs two products of %zu bytes in 90%% of the "
                       "free device memory; %zu of %zu bytes are free",
                       one, free_b, total);
  if ((st = CUDA_CHECK(err, cudaMalloc(&c, g->nslots * one))) != GCB_OK)
    return st;
  g->c = c;
  if ((st = CUDA_CHECK(err,
                       cudaMalloc(&sf, g->nslots * sizeof(*g->slot_faults)))) !=
      GCB_OK)
    return st;
  g->slot_faults = sf;
  if ((st = CUDA_CHECK(err, cudaMalloc(&f, sizeof *g->faults))) != GCB_OK)
    return st;
  g->faults = f;
  return GCB_OK;
}

/* One input matrix: random values drawn on the host, uploaded, and rounded
 * on the device when the type is narrower than fp32. */
static enum gcb_status gemm_fill(struct cuda_gemm *g, void *dst, size_t n,
                                 uint64_t seed, struct gcb_err *err) {
  bool wide = g->dtype == GCB_DTYPE_FP64;
  bool direct =
      wide || g->dtype == GCB_DTYPE_FP32 || g->dtype == GCB_DTYPE_TF32;
  size_t bytes = n * (wide ? sizeof(double) : sizeof(float));
  void *host = malloc(bytes), *staging = NULL;
  enum gcb_status st = GCB_OK;

  if (host == NULL)
    return gcb_err_set(err, GCB_ENOMEM,
                       "cuda gemm: no host memory for %zu "
                       "bytes of inputs",
                       bytes);
  if (wide)
    gcb_fill_random(host, n, seed);
  else
    gcb_fill_random_f32(host, n, seed);
  if (!direct)
    st = CUDA_CHECK(err, cudaMalloc(&staging, bytes));
  /* Async on the op's stream, then synchronised below: a plain cudaMemcpy
   * from pageable memory may return before its DMA lands, unordered with
   * the non-blocking stream the conversion kernel and the matmuls use. */
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaMemcpyAsync(direct ? dst : staging, host, bytes,
                                         cudaMemcpyHostToDevice, g->b->stream));
  if (st == GCB_OK && !direct)
    st = gcb__cuda_launched(
        err, gcb__cuda_convert((int)g->dtype, staging, dst, n, g->b->stream),
        "input conversion kernel launch");
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaStreamSynchronize(g->b->stream));
  (void)cudaFree(staging);
  free(host);
  return st;
}

static enum gcb_status set_attr(cublasLtMatmulDesc_t d,
                                cublasLtMatmulDescAttributes_t attr,
                                const void *value, size_t size,
                                struct gcb_err *err) {
  return LT_CHECK(err, cublasLtMatmulDescSetAttribute(d, attr, value, size));
}

/* The matmul and layout descriptors: TN, fp8 with per-tensor scales. */
static enum gcb_status gemm_describe(struct cuda_gemm *g, struct gcb_err *err) {
  const struct lt_types *lt = &lt_types[g->dtype];
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  const float *one = g->b->gemm->one;
  enum gcb_status st;

  if ((st = LT_CHECK(err, cublasLtMatmulDescCreate(&g->desc, lt->compute,
                                                   lt->scale))) != GCB_OK ||
      (st = set_attr(g->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta,
                     err)) != GCB_OK ||
      (st = set_attr(g->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb,
                     err)) != GCB_OK)
    return st;
  /* fp8 scales are device pointers to fp32 (cublasLt.h: "scaling factor
   * value must have the same type as the compute type"); 1.0: the inputs
   * already lie well inside e4m3's range. */
  /* cublasLt.h CUBLASLT_MATMUL_DESC_FAST_ACCUM: fp8 partial sums kept in
   * the tensor cores' narrower accumulator (faster, less exact); off unless
   * asked for, and named in the case when on. */
  int8_t fast = g->fast_accum ? 1 : 0;
  if (g->dtype == GCB_DTYPE_FP8 &&
      (st = set_attr(g->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                     sizeof fast, err)) != GCB_OK)
    return st;
  if (g->dtype == GCB_DTYPE_FP8 &&
      ((st = set_attr(g->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &one,
                      sizeof one, err)) != GCB_OK ||
       (st = set_attr(g->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &one,
                      sizeof one, err)) != GCB_OK))
    return st;
  if ((st = LT_CHECK(err, cublasLtMatrixLayoutCreate(&g->la, lt->ab, g->k, g->m,
                                                     (int64_t)g->k))) !=
          GCB_OK ||
      (st = LT_CHECK(err, cublasLtMatrixLayoutCreate(&g->lb, lt->ab, g->k, g->n,
                                                     (int64_t)g->k))) != GCB_OK)
    return st;
  if ((st = LT_CHECK(err, cublasLtMatrixLayoutCreate(&g->lc, lt->cd, g->m, g->n,
                                                     (int64_t)g->m))) != GCB_OK)
    return st;
  if (g->batch > 1) {
    /* cublasLt.h: BATCH_COUNT int32_t, STRIDED_BATCH_OFFSET int64_t, in
     * elements; each product's matrices follow the one before. */
    int32_t count = (int32_t)g->batch;
    cublasLtMatrixLayout_t layouts[3] = {g->la, g->lb, g->lc};
    int64_t stride[3] = {(int64_t)(g->k * g->m), (int64_t)(g->k * g->n),
                         (int64_t)(g->m * g->n)};
    for (int i = 0; i < 3 && st == GCB_OK; i++) {
      st = LT_CHECK(err, cublasLtMatrixLayoutSetAttribute(
                             layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                             &count, sizeof count));
      if (st == GCB_OK)
        st = LT_CHECK(err, cublasLtMatrixLayoutSetAttribute(
                               layouts[i],
                               CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                               &stride[i], sizeof stride[i]));
    }
  }
  return st;
}

/* cuBLASLt's heuristic choices for this problem: the first, or with
 * autotune up to GCB_GEMM_AUTOTUNE_ALGOS to time; none is
 * GCB_EUNSUPPORTED. */
static enum gcb_status gemm_choose(struct cuda_gemm *g, struct gcb_err *err) {
  cublasLtMatmulPreference_t pref = NULL;
  size_t ws = WORKSPACE_BYTES;
  int found = 0, want = g->autotune ? GCB_GEMM_AUTOTUNE_ALGOS : 1;
  enum gcb_status st;

  memset(g->cands, 0, sizeof g->cands);
  if ((st = LT_CHECK(err, cublasLtMatmulPreferenceCreate(&pref))) != GCB_OK)
    return st;
  st = LT_CHECK(
      err, cublasLtMatmulPreferenceSetAttribute(
               pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  /* cublasLt.h: CUBLAS_STATUS_NOT_SUPPORTED when no heuristic serves this
   * configuration (an unsupported type or shape): a skip like found == 0,
   * not a failure; a result is usable only with state SUCCESS. */
  if (st == GCB_OK) {
    cublasStatus_t rc = cublasLtMatmulAlgoGetHeuristic(
        g->b->gemm->lt, g->desc, g->la, g->lb, g->lc, g->lc, pref, want,
        g->cands, &found);
    if (rc == CUBLAS_STATUS_NOT_SUPPORTED)
      found = 0;
    else
      st = lt_check(err, rc, "cublasLtMatmulAlgoGetHeuristic");
  }
  (void)cublasLtMatmulPreferenceDestroy(pref);
  g->ncands = 0;
  for (int i = 0; st == GCB_OK && i < found && i < want; i++)
    if (g->cands[i].state == CUBLAS_STATUS_SUCCESS)
      g->cands[g->ncands++] = g->cands[i];
  if (st == GCB_OK && g->ncands == 0)
    st = gcb_err_set(err, GCB_EUNSUPPORTED,
                     "cuBLASLt has no %s algorithm for %llux%llux%llu on this "
                     "GPU (narrow types need dimensions that are multiples "
                     "of 16 bytes)",
                     gcb_dtype_name(g->dtype), (unsigned long long)g->m,
                     (unsigned long long)g->n, (unsigned long long)g->k);
  if (st == GCB_OK) {
    g->algo = g->cands[0].algo;
    g->ws_bytes = g->cands[0].workspaceSize;
  }
  return st;
}

/* With autotune: each candidate timed GCB_GEMM_AUTOTUNE_RUNS times (after
 * one untimed run), the fastest median kept, as cuBLASLt's
 * LtSgemmSimpleAutoTuning sample picks among the heuristic's top results. */
static enum gcb_status gemm_tune(struct cuda_gemm *g, struct gcb_err *err) {
  double median[GCB_GEMM_AUTOTUNE_ALGOS];
  enum gcb_status st = GCB_OK;

  for (int i = 0; i < g->ncands && st == GCB_OK && g->ncands > 1; i++) {
    double t[GCB_GEMM_AUTOTUNE_RUNS], one = 0;
    g->algo = g->cands[i].algo;
    g->ws_bytes = g->cands[i].workspaceSize;
    st = gemm_run(g, 1, &one, err);
    for (int r = 0; r < GCB_GEMM_AUTOTUNE_RUNS && st == GCB_OK; r++)
      st = gemm_run(g, 1, &t[r], err);
    median[i] = st == GCB_OK ? gcb_median_small(t, GCB_GEMM_AUTOTUNE_RUNS)
                             : (double)INFINITY;
  }
  if (st == GCB_OK && g->ncands > 1) {
    int best = gcb_gemm_pick_fastest(median, g->ncands);
    g->algo = g->cands[best].algo;
    g->ws_bytes = g->cands[best].workspaceSize;
  }
  return st;
}

static void set_scalars(struct cuda_gemm *g) {
  switch (lt_types[g->dtype].scale) {
  case CUDA_R_64F:
    g->alpha.d = 1.0, g->beta.d = 0.0;
    break;
  case CUDA_R_32I:
    g->alpha.i = 1, g->beta.i = 0;
    break;
  default:
    g->alpha.f = 1.0f, g->beta.f = 0.0f;
    break;
  }
}

enum gcb_status gcb__cuda_gemm(struct gcb_backend *b,
                               const struct gcb_gemm_params *p,
                               struct gcb_op *op, struct gcb_err *err) {
  struct cuda_gemm *g = NULL;
  enum gcb_status st;

  memset(op, 0, sizeof *op);
  if ((st = gemm_validate(b, p, err)) != GCB_OK ||
      (st = gcb__cuda_use(b, err)) != GCB_OK ||
      (st = gemm_ctx(b, err)) != GCB_OK ||
      (p->flush_l2 && (st = flush_buffer(b, err)) != GCB_OK))
    return st;
  if ((g = calloc(1, sizeof *g)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "cuda gemm: no memory for state");
  *g = (struct cuda_gemm){.b = b,
                          .dtype = p->dtype,
                          .m = p->m,
                          .n = p->n,
                          .k = p->k,
                          .seed = p->seed,
                          .flush = p->flush_l2,
                          .fast_accum = p->fp8_fast_accum,
                          .autotune = p->autotune,
                          .burn = p->burn,
                          .in_step = p->in_step,
                          .batch = p->batch > 1 ? p->batch : 1,
                          .nslots = 1};
  set_scalars(g);
  /* Seeds of A and B derived as the host backend derives them. */
  if ((st = gemm_describe(g, err)) != GCB_OK ||
      (st = gemm_choose(g, err)) != GCB_OK ||
      (st = gemm_alloc(g, err)) != GCB_OK ||
      (st = gemm_fill(g, g->a, g->m * g->k * g->batch,
                      p->seed ^ (1 * UINT64_C(0xd1b54a32d192ed03)), err)) !=
          GCB_OK ||
      (st = gemm_fill(g, g->bm, g->k * g->n * g->batch,
                      p->seed ^ (2 * UINT64_C(0xd1b54a32d192ed03)), err)) !=
          GCB_OK ||
      (g->burn && (st = burn_slots(g, err)) != GCB_OK) ||
      (st = gemm_tune(g, err)) != GCB_OK ||
      (!(g->in_step && b->gemm->warmed) &&
       (st = gemm_warm(g, err)) != GCB_OK)) {
    gemm_release(g);
    return st;
  }
  /* burn: the first timed run writes slot 0, the reference, with the
   * algorithm kept (autotune's others would round differently). */
  g->next = g->dirty = 0;
  *op = (struct gcb_op){.state = g,
                        .run = gemm_run,
                        .check = gemm_check,
                        .release = gemm_release,
                        .plant = g->burn ? gemm_plant : NULL};
  return GCB_OK;
}
