/*
 * gemm: matrix-multiply throughput per rank, one case per element type.
 * TFLOP/s-style figures count 2*m*n*k flops per multiply; the backend
 * validates sampled entries against a higher-precision reference.
 */
#include <stddef.h>
#include <stdio.h>

#include "bench.h"

struct gemm_opts {
  uint64_t m, n, k;
  uint32_t dtypes;   /* bit set over enum gcb_dtype */
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
    {0},
};

static int gemm_count(const struct gcb_ctx *ctx, const void *opts) {
  (void)ctx;
  return __builtin_popcount(((const struct gemm_opts *)opts)->dtypes);
}

/* The index-th element type in the set, in table order. */
static enum gcb_dtype nth_dtype(uint32_t set, int index) {
  for (int t = 0; t < GCB_DTYPE_COUNT; t++)
    if ((set & (1u << t)) && index-- == 0)
      return (enum gcb_dtype)t;
  return GCB_DTYPE_COUNT;
}

static uint64_t or_default(uint64_t v, uint64_t def) { return v ? v : def; }

static enum gcb_status gemm_setup(struct gcb_ctx *ctx, const void *opts,
                                  void *state, int index, struct gcb_record *rec,
                                  struct gcb_op *op, struct gcb_err *err) {
  (void)state;
  const struct gemm_opts *o = opts;
  uint64_t m = or_default(o->m, ctx->backend_ops->gemm_default_dim);
  struct gcb_gemm_params p = {.dtype = nth_dtype(o->dtypes, index),
                              .m = m,
                              .n = or_default(o->n, m),
                              .k = or_default(o->k, m),
                              .seed = ctx->seed + (uint64_t)ctx->rank};
  snprintf(rec->label, sizeof rec->label, "%s %llux%llux%llu",
           gcb_dtype_name(p.dtype), (unsigned long long)p.m,
           (unsigned long long)p.n, (unsigned long long)p.k);
  gcb_record_param_str(rec, "dtype", gcb_dtype_name(p.dtype));
  gcb_record_param_int(rec, "m", (int64_t)p.m);
  gcb_record_param_int(rec, "n", (int64_t)p.n);
  gcb_record_param_int(rec, "k", (int64_t)p.k);
  rec->work_per_op = 2.0 * (double)p.m * (double)p.n * (double)p.k;
  rec->figure = (struct gcb_figure_spec){
      .unit = "GFLOP/s", .scale = 1e9, .counted = "2*m*n*k flops"};
  if (ctx->backend_ops->gemm == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "the %s backend has no GEMM",
                       ctx->backend_ops->name);
  return ctx->backend_ops->gemm(ctx->backend, &p, op, err);
}

const struct gcb_bench gcb_bench_gemm = {
    .name = "gemm",
    .summary = "matrix-multiply throughput per rank (GFLOP/s), validated",
    .options = gemm_options,
    .opts_size = sizeof(struct gemm_opts),
    .count = gemm_count,
    .setup = gemm_setup,
};
