/*
 * gemm: matrix-multiply throughput per rank, one case per shape and element
 * type. Figures count 2*m*n*k flops per multiply; the backend validates
 * sampled entries against a higher-precision reference. A shape sweep
 * (--shapes) finds the best shape, since tile and wave quantisation make
 * throughput jump between neighbouring sizes (as mamf-finder shows): each
 * case of a sweep carries `shapes` (how many the sweep has), and the live
 * table's footer and the report give the best median and the best max
 * (fastest iteration) over the sweep's shapes with the shape of each,
 * mamf-finder's "best outcomes" (mamf-finder.py: max over shapes of each
 * shape's median and of its max TFLOPS).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

#define MAX_SHAPES 64

struct gemm_opts {
  uint64_t m, n, k;
  uint32_t dtypes;    /* bit set over enum gcb_dtype */
  const char *shapes; /* "4096,8192x8192x4096"; NULL: -m/-n/-k */
  bool flush_l2;      /* accepted for old command lines: now the default */
  bool no_flush_l2;
  bool fast_accum;
  bool autotune;
};

struct shape {
  uint64_t m, n, k;
};

static const char *const dtype_names[] = {
#define GCB__DTYPE_NAME(id, name, bytes) name,
    GCB_DTYPE_LIST(GCB__DTYPE_NAME)
#undef GCB__DTYPE_NAME
        NULL};

static const struct gcb_option gemm_options[] = {
    {"m", 'm', GCB_OPT_SIZE, offsetof(struct gemm_opts, m), NULL, "N",
     "rows of A and C (default: the backend's, 2048 on host, 8192 on cuda)",
     NULL, 1, 0},
    {"n", 'n', GCB_OPT_SIZE, offsetof(struct gemm_opts, n), NULL, "N",
     "columns of B and C (default: as m)", NULL, 1, 0},
    {"k", 'k', GCB_OPT_SIZE, offsetof(struct gemm_opts, k), NULL, "N",
     "columns of A, rows of B (default: as m)", NULL, 1, 0},
    {"dtype", 't', GCB_OPT_SET, offsetof(struct gemm_opts, dtypes), "fp64,fp32",
     "LIST", "element types, one case each", dtype_names, 0, 0},
    {"shapes", 0, GCB_OPT_STRING, offsetof(struct gemm_opts, shapes), NULL,
     "LIST",
     "shape sweep instead of -m/-n/-k: comma-separated N (square) or "
     "MxNxK, one case per shape and type",
     NULL, 0, 0},
    {"flush-l2", 0, GCB_OPT_FLAG, offsetof(struct gemm_opts, flush_l2), NULL,
     NULL,
     "evict the GPU's L2 cache and rewrite C before each timed "
     "multiply, untimed (the default on cuda)",
     NULL, 0, 0},
    {"no-flush-l2", 0, GCB_OPT_FLAG, offsetof(struct gemm_opts, no_flush_l2),
     NULL, NULL, "time multiplies with whatever L2 holds (cuda)", NULL, 0, 0},
    {"autotune", 0, GCB_OPT_FLAG, offsetof(struct gemm_opts, autotune), NULL,
     NULL,
     "cuda: time cuBLASLt's top 8 heuristic algorithms at setup and "
     "keep the fastest (named in the case)",
     NULL, 0, 0},
    {"fp8-fast-accum", 0, GCB_OPT_FLAG, offsetof(struct gemm_opts, fast_accum),
     NULL, NULL,
     "fp8: cuBLASLt's fast accumulation (no periodic promotion "
     "to fp32; named in the case)",
     NULL, 0, 0},
    {0},
};

/* Parses "N" or "MxNxK"; false on anything else. */
static bool parse_shape(const char *text, struct shape *out) {
  uint64_t v[3] = {0, 0, 0};
  int n = 0;
  const char *p = text;
  while (n < 3) {
    char *end;
    errno = 0;
    if (*p < '0' || *p > '9')
      return false;
    v[n++] = strtoull(p, &end, 10);
    if (errno || v[n - 1] == 0 || v[n - 1] > (1ull << 31))
      return false;
    if (*end == '\0')
      break;
    if (*end != 'x')
      return false;
    p = end + 1;
  }
  if (n == 2 || (n == 3 && p[strcspn(p, "x")] != '\0'))
    return false;
  *out = n == 1 ? (struct shape){v[0], v[0], v[0]}
                : (struct shape){v[0], v[1], v[2]};
  return true;
}

/* Shapes of the sweep, or the single -m/-n/-k shape (0 = default). */
static int shapes_of(const struct gemm_opts *o, struct shape *out,
                     const char **bad) {
  if (o->shapes == NULL) {
    out[0] = (struct shape){o->m, o->n, o->k};
    return 1;
  }
  char buf[1024], *save = NULL;
  snprintf(buf, sizeof buf, "%s", o->shapes);
  int n = 0;
  for (char *tok = strtok_r(buf, ",", &save); tok;
       tok = strtok_r(NULL, ",", &save)) {
    if (n == MAX_SHAPES || !parse_shape(tok, &out[n])) {
      *bad = o->shapes;
      return -1;
    }
    n++;
  }
  *bad = o->shapes;
  return n > 0 ? n : -1;
}

static uint64_t or_default(uint64_t v, uint64_t def) {
  return v ? v : def;
}

/* a*b + c into *acc; false on overflow. */
static bool mul_add(uint64_t a, uint64_t b, uint64_t *acc) {
  if ((a != 0 && b > UINT64_MAX / a) || a * b > UINT64_MAX - *acc)
    return false;
  *acc += a * b;
  return true;
}

/* Bytes of A, B and C of one multiply (what every backend allocates at
 * least); false when that overflows. */
static bool gemm_bytes(const struct shape *sh, uint64_t dim, size_t elt,
                       uint64_t *out) {
  uint64_t m = or_default(sh->m, dim), n = or_default(sh->n, m),
           k = or_default(sh->k, m), elements = 0;
  *out = 0;
  return mul_add(m, k, &elements) && mul_add(k, n, &elements) &&
         mul_add(m, n, &elements) && mul_add(elements, elt, out);
}

/* The shapes parse, and the largest multiply fits the memory there is. */
static enum gcb_status gemm_validate(const struct gcb_ctx *ctx,
                                     const void *opts, struct gcb_err *err) {
  const struct gemm_opts *o = opts;
  struct shape shapes[MAX_SHAPES];
  const char *bad = NULL;
  int n = shapes_of(o, shapes, &bad);
  if (n < 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--shapes '%s': expected up to %d comma-separated N or "
                       "MxNxK, each from 1 to 2^31",
                       bad, MAX_SHAPES);
  uint64_t need = 0, bytes;
  int worst = 0;
  size_t elt = 0;
  for (int t = 0; t < GCB_DTYPE_COUNT; t++)
    if ((o->dtypes & (1u << t)) && gcb_dtype_bytes((enum gcb_dtype)t) > elt)
      elt = gcb_dtype_bytes((enum gcb_dtype)t);
  for (int i = 0; i < n; i++) {
    if (!gemm_bytes(&shapes[i], ctx->backend_ops->gemm_default_dim, elt,
                    &bytes))
      return gcb_err_set(err, GCB_EUSAGE,
                         "gemm shape %d: A, B and C need more than %llu bytes",
                         i + 1, (unsigned long long)UINT64_MAX);
    if (bytes > need)
      need = bytes, worst = i;
  }
  if (ctx->backend_ops->gemm == NULL || ctx->backend_ops->fits == NULL)
    return GCB_OK;
  const struct shape *sh = &shapes[worst];
  uint64_t m = or_default(sh->m, ctx->backend_ops->gemm_default_dim);
  char what[128];
  snprintf(what, sizeof what, "gemm %llux%llux%llu (A, B and C)",
           (unsigned long long)m, (unsigned long long)or_default(sh->n, m),
           (unsigned long long)or_default(sh->k, m));
  return ctx->backend_ops->fits(ctx->backend, need, what, err);
}

static int gemm_count(const struct gcb_ctx *ctx, const void *opts) {
  (void)ctx;
  struct shape shapes[MAX_SHAPES];
  const char *bad;
  int n = shapes_of(opts, shapes, &bad);
  return n < 0
             ? 0
             : n * __builtin_popcount(((const struct gemm_opts *)opts)->dtypes);
}

/* The index-th element type in the set, in table order. */
/* The figure of a multiply of element type t, decided here only: integer
 * multiplies are operations, not floating-point ones, in TOPS (NVIDIA's
 * datasheets: "INT8 Tensor Core ... TOPS"); the others in GFLOP/s. */
static struct gcb_figure_spec gemm_figure(enum gcb_dtype t) {
  if (t == GCB_DTYPE_INT8)
    return (struct gcb_figure_spec){
        .unit = "TOPS", .scale = 1e12, .counted = "2*m*n*k int8 operations"};
  return (struct gcb_figure_spec){
      .unit = "GFLOP/s", .scale = 1e9, .counted = "2*m*n*k flops"};
}

static enum gcb_dtype nth_dtype(uint32_t set, int index) {
  for (int t = 0; t < GCB_DTYPE_COUNT; t++)
    if ((set & (1u << t)) && index-- == 0)
      return (enum gcb_dtype)t;
  return GCB_DTYPE_COUNT;
}

static enum gcb_status gemm_setup(struct gcb_ctx *ctx, const void *opts,
                                  void *state, int index,
                                  struct gcb_record *rec, struct gcb_op *op,
                                  struct gcb_err *err) {
  (void)state;
  const struct gemm_opts *o = opts;
  struct shape shapes[MAX_SHAPES];
  const char *bad;
  int nshapes = shapes_of(o, shapes, &bad); /* validated by gemm_validate */
  int ntypes = __builtin_popcount(o->dtypes);
  const struct shape *sh = &shapes[index / ntypes];
  uint64_t m = or_default(sh->m, ctx->backend_ops->gemm_default_dim);
  struct gcb_gemm_params p = {.dtype = nth_dtype(o->dtypes, index % ntypes),
                              .m = m,
                              .n = or_default(sh->n, m),
                              .k = or_default(sh->k, m),
                              .seed = ctx->seed + (uint64_t)ctx->rank,
                              .flush_l2 = !o->no_flush_l2,
                              .fp8_fast_accum = o->fast_accum,
                              .autotune = o->autotune};
  snprintf(rec->label, sizeof rec->label, "%s %llux%llux%llu",
           gcb_dtype_name(p.dtype), (unsigned long long)p.m,
           (unsigned long long)p.n, (unsigned long long)p.k);
  p.fp8_fast_accum = p.fp8_fast_accum && p.dtype == GCB_DTYPE_FP8;
  if (p.fp8_fast_accum) { /* a different kernel: named in the case */
    size_t at = strlen(rec->label);
    snprintf(rec->label + at, sizeof rec->label - at, " fast-accum");
  }
  gcb_record_param_str(rec, "dtype", gcb_dtype_name(p.dtype));
  gcb_record_param_int(rec, "m", (int64_t)p.m);
  gcb_record_param_int(rec, "n", (int64_t)p.n);
  gcb_record_param_int(rec, "k", (int64_t)p.k);
  /* A case of a sweep says so: the document, the table's footer and the
   * report's best-shape column take the best over the cases of one
   * element type that carry it (mamf-finder's best outcome). */
  if (nshapes > 1)
    gcb_record_param_int(rec, "shapes", nshapes);
  if (p.fp8_fast_accum)
    gcb_record_param_str(rec, "accumulate", "fast");
  if (p.autotune)
    gcb_record_param_str(rec, "algorithm", "autotuned");
  rec->work_per_op = 2.0 * (double)p.m * (double)p.n * (double)p.k;
  rec->figure = gemm_figure(p.dtype);
  if (ctx->backend_ops->gemm == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "the %s backend has no GEMM",
                       ctx->backend_ops->name);
  return ctx->backend_ops->gemm(ctx->backend, &p, op, err);
}

const struct gcb_bench gcb_bench_gemm = {
    .name = "gemm",
    .summary = "matrix-multiply throughput per rank (GFLOP/s; int8 TOPS), "
               "validated",
    .options = gemm_options,
    .opts_size = sizeof(struct gemm_opts),
    .validate = gemm_validate,
    .count = gemm_count,
    .setup = gemm_setup,
};
