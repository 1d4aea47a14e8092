/*
 * pattern: the communication and compute of one training step as data-,
 * sharded-data-, tensor-, pipeline- and expert-parallel training lay it
 * out, from a model description and group sizes (programs in
 * pattern_sched.c, run by pattern_exec.c). Each pattern variant is five
 * cases, one per part: its compute alone, its communication alone, the
 * overlapped step, and the time in compute and in communication within
 * that step. The report derives overlap, exposed communication,
 * interference, imbalance, the straggler, the bubble and the cost of skew
 * from them (reports/analysis/pattern_view.c; formulas in docs/PATTERNS.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/benches/pattern_bench.h"

static const char *const placement_names[] = {"inner", "outer", NULL};

/* --dtype's choices: "auto", then the rows of dtypes[] below. */
static const char *const dtype_names[] = {"auto", "fp32", "fp64",
                                          "fp16", "bf16", NULL};

#define OPT(field) offsetof(struct pattern_opts, field)
static const struct gcb_option pattern_options[] = {
    {"patterns", 0, GCB_OPT_SET, OPT(patterns), "all", "LIST",
     "patterns to run: dp, fsdp, tp, tp-sp, pp, ep", gcb__pat_names, 0, 0},
    {"model", 0, GCB_OPT_CHOICE, OPT(model), "auto", "NAME",
     "model preset (auto: tiny on host, gpt2 on cuda)", gcb__pat_model_names, 0,
     0},
    {"hidden", 0, GCB_OPT_SIZE, OPT(hidden), NULL, "N",
     "hidden size (default: the preset's)", NULL, 0, 1 << 20},
    {"layers", 0, GCB_OPT_SIZE, OPT(layers), NULL, "N", "transformer layers",
     NULL, 0, 4096},
    {"heads", 0, GCB_OPT_SIZE, OPT(heads), NULL, "N", "attention heads", NULL,
     0, 4096},
    {"kv-heads", 0, GCB_OPT_SIZE, OPT(kv_heads), NULL, "N",
     "key/value heads (grouped-query attention)", NULL, 0, 4096},
    {"ffn", 0, GCB_OPT_SIZE, OPT(ffn), NULL, "N", "MLP width", NULL, 0,
     1 << 22},
    {"seq", 0, GCB_OPT_SIZE, OPT(seq), NULL, "N", "sequence length", NULL, 0,
     1 << 20},
    {"batch", 0, GCB_OPT_SIZE, OPT(batch), NULL, "N",
     "micro-batch size per rank, in sequences", NULL, 0, 1 << 16},
    {"dtype", 0, GCB_OPT_CHOICE, OPT(dtype), "auto", "TYPE",
     "element type of GEMMs and collectives (auto: fp32 on host, bf16 on "
     "cuda)",
     dtype_names, 0, 0},
    {"tp", 0, GCB_OPT_INT, OPT(tp), "0", "N",
     "tensor-parallel group size (0 with --pp/--dp/--ep 0: each pattern "
     "alone over every rank)",
     NULL, 0, 1 << 20},
    {"pp", 0, GCB_OPT_INT, OPT(pp), "0", "N", "pipeline stages", NULL, 0,
     1 << 20},
    {"dp", 0, GCB_OPT_INT, OPT(dp), "0", "N",
     "data-parallel group size (0: the ranks left by tp and pp)", NULL, 0,
     1 << 20},
    {"ep", 0, GCB_OPT_INT, OPT(ep), "0", "N",
     "expert-parallel group size, consecutive dp ranks (0: dp)", NULL, 0,
     1 << 20},
    {"order", 0, GCB_OPT_STRING, OPT(order), "tp,dp,pp", "LIST",
     "layout of the groups on ranks, fastest first (Megatron-LM's tp,dp,pp: "
     "tensor-parallel peers on neighbouring ranks, inside a node)",
     NULL, 0, 0},
    {"tp-placement", 0, GCB_OPT_SET, OPT(placements), "inner", "LIST",
     "tensor-parallel groups as --order lays them (inner) and/or with tp "
     "varying slowest (outer: across nodes); both compare the placements",
     placement_names, 0, 0},
    {"bucket", 0, GCB_OPT_SIZE, OPT(bucket), "25M", "BYTES",
     "DDP gradient bucket (bucket_cap_mb; PyTorch's default 25 MiB)", NULL, 1,
     0},
    {"first-bucket", 0, GCB_OPT_SIZE, OPT(first_bucket), "1M", "BYTES",
     "DDP's first bucket (PyTorch's 1 MiB)", NULL, 1, 0},
    {"microbatches", 0, GCB_OPT_INT, OPT(microbatches), "4", "M",
     "pipeline micro-batches per step", NULL, 1, 4096},
    {"skew", 0, GCB_OPT_DOUBLE, OPT(skew), "1", "S",
     "routing skew: expert e gets a share (e+1)^-S (Zipf; 0: uniform); ep "
     "runs uniform and skewed",
     NULL, 0, 8},
    {"experts", 0, GCB_OPT_INT, OPT(experts), "0", "N",
     "experts in all (a multiple of the ep group; 0: 2 per rank)", NULL, 0,
     1024},
    {"topk", 0, GCB_OPT_INT, OPT(topk), "2", "K", "experts per token", NULL, 1,
     64},
    {"transport", 0, GCB_OPT_STRING, OPT(transport), "auto", "NAME",
     "mpi, nccl or auto (nccl on the cuda backend, else mpi)", NULL, 0, 0},
    /* Test only (no help: left out of --help): RANK sleeps US
     * microseconds in each step's compute (a straggler). */
    {"delay-rank", 0, GCB_OPT_STRING, OPT(delay), NULL, "RANK:US", NULL, NULL,
     0, 0},
    {0},
};
#undef OPT

/* The index-th variant of the options, in pattern order. */
bool gcb__pat_nth_variant(const struct pattern_opts *o, int index,
                          struct variant *out) {
  int i = 0;
  for (int k = 0; k < GCB_PAT_COUNT; k++) {
    if (!(o->patterns & (1u << k)))
      continue;
    int n = k == GCB_PAT_TP || k == GCB_PAT_TPSP ? 2
            : k == GCB_PAT_EP                    ? (o->skew > 0 ? 2 : 1)
                                                 : 1;
    for (int v = 0; v < n; v++) {
      if ((k == GCB_PAT_TP || k == GCB_PAT_TPSP) &&
          !(o->placements & (1u << v)))
        continue;
      if (i++ == index) {
        *out = (struct variant){(enum gcb_pat_kind)k, v,
                                k == GCB_PAT_EP && v == 1 ? o->skew : 0};
        return true;
      }
    }
  }
  return false;
}

static int pattern_count(const struct gcb_ctx *ctx, const void *opts) {
  (void)ctx;
  struct variant v;
  int n = 0;
  while (gcb__pat_nth_variant(opts, n, &v))
    n++;
  return n * GCB_PAT_PARTS;
}

/* ---- options ------------------------------------------------------------- */

static const struct {
  const char *name;
  enum gcb_dtype gemm;
  enum gcb_coll_dtype coll;
} dtypes[] = {
    {"fp32", GCB_DTYPE_FP32, GCB_COLL_FLOAT},
    {"fp64", GCB_DTYPE_FP64, GCB_COLL_DOUBLE},
    {"fp16", GCB_DTYPE_FP16, GCB_COLL_HALF},
    {"bf16", GCB_DTYPE_BF16, GCB_COLL_BFLOAT16},
};

static int dtype_index(const struct gcb_ctx *ctx, int choice) {
  const char *name = dtype_names[choice];
  if (strcmp(name, "auto") == 0)
    name = strcmp(ctx->backend_ops->name, "cuda") == 0 ? "bf16" : "fp32";
  for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
    if (strcmp(dtypes[i].name, name) == 0)
      return (int)i;
  return -1;
}

/* The model: the preset, then each dimension given on the command line,
 * named as given: "llama2-7b (1 layer)", "tiny (hidden=256, seq=128)"
 * (name, of `len` bytes, holds the text m->name points to). */
static enum gcb_status resolve_model(const struct gcb_ctx *ctx,
                                     const struct pattern_opts *o,
                                     struct gcb_pat_model *m, char *name_buf,
                                     size_t len, struct gcb_err *err) {
  const char *name = gcb__pat_model_names[o->model];
  if (strcmp(name, "auto") == 0)
    name = strcmp(ctx->backend_ops->name, "cuda") == 0 ? "gpt2" : "tiny";
  const struct gcb_pat_model *p = gcb__pat_preset(name);
  if (p == NULL)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--model '%s': unknown (tiny, gpt2, gpt2-xl, "
                       "llama2-7b, llama3-8b, gpt3-175b)",
                       name);
  *m = *p;
  static const char *const keys[] = {"hidden", "layers", "heads", "kv-heads",
                                     "ffn",    "seq",    "batch"};
  const uint64_t given[] = {o->hidden, o->layers, o->heads, o->kv_heads,
                            o->ffn,    o->seq,    o->batch};
  uint64_t *dst[] = {&m->hidden, &m->layers, &m->heads, &m->kv_heads,
                     &m->ffn,    &m->seq,    &m->batch};
  int n = snprintf(name_buf, len, "%s", p->name);
  for (size_t i = 0; i < sizeof given / sizeof *given; i++) {
    if (given[i] == 0)
      continue;
    *dst[i] = given[i];
    char part[48];
    if (dst[i] == &m->layers)
      snprintf(part, sizeof part, "%" PRIu64 " layer%s", given[i],
               given[i] == 1 ? "" : "s");
    else
      snprintf(part, sizeof part, "%s=%" PRIu64, keys[i], given[i]);
    if (n >= 0 && (size_t)n < len)
      n += snprintf(name_buf + n, len - (size_t)n, "%s%s",
                    n == (int)strlen(p->name) ? " (" : ", ", part);
  }
  if (n > (int)strlen(p->name) && n >= 0 && (size_t)n + 1 < len)
    snprintf(name_buf + n, len - (size_t)n, ")");
  m->name = name_buf;
  if (o->heads > 0 && o->kv_heads == 0)
    m->kv_heads = m->heads;
  return GCB_OK;
}

/* --delay-rank RANK:MICROSECONDS (test only); rank -1 when not given. */
static enum gcb_status parse_delay(const char *text, int size, int *rank,
                                   double *seconds, struct gcb_err *err) {
  *rank = -1;
  *seconds = 0;
  if (text == NULL)
    return GCB_OK;
  char *end;
  errno = 0;
  long r = strtol(text, &end, 10);
  double us = *end == ':' ? strtod(end + 1, &end) : -1;
  if (errno || *end != '\0' || r < 0 || r >= size || us < 0 || us > 1e7)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--delay-rank '%s': expected RANK:MICROSECONDS with "
                       "0 <= RANK < %d",
                       text, size);
  *rank = (int)r;
  *seconds = us * 1e-6;
  return GCB_OK;
}

/* Group sizes: every pattern alone over all ranks when none is given,
 * else tp x pp x dp = ranks (dp taking what tp and pp leave). */
enum gcb_status gcb__pat_resolve_layout(const struct gcb_ctx *ctx,
                                        const struct pattern_opts *o,
                                        struct gcb_pat_layout *l,
                                        struct gcb_err *err) {
  memset(l, 0, sizeof *l);
  if (!gcb__pat_parse_order(o->order, l->order))
    return gcb_err_set(err, GCB_EUSAGE,
                       "--order '%s': expected tp, dp and pp once each, "
                       "comma-separated",
                       o->order);
  int tp = o->tp > 0 ? (int)o->tp : 1, pp = o->pp > 0 ? (int)o->pp : 1;
  if (ctx->size % (tp * pp) != 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--tp %d x --pp %d does not divide %d "
                       "ranks",
                       tp, pp, ctx->size);
  int dp = o->dp > 0 ? (int)o->dp : ctx->size / (tp * pp);
  if (tp * pp * dp != ctx->size)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--tp %d x --pp %d x --dp %d is not the %d ranks", tp,
                       pp, dp, ctx->size);
  int ep = o->ep > 0 ? (int)o->ep : dp;
  if (dp % ep != 0)
    return gcb_err_set(err, GCB_EUSAGE, "--ep %d does not divide --dp %d", ep,
                       dp);
  l->size[GCB_PAT_DIM_TP] = tp;
  l->size[GCB_PAT_DIM_PP] = pp;
  l->size[GCB_PAT_DIM_DP] = dp;
  l->ep = ep;
  return GCB_OK;
}

bool gcb__pat_layout_given(const struct pattern_opts *o) {
  return o->tp > 0 || o->pp > 0 || o->dp > 0 || o->ep > 0;
}

static enum gcb_status pattern_validate(const struct gcb_ctx *ctx,
                                        const void *opts, struct gcb_err *err) {
  const struct pattern_opts *o = opts;
  struct gcb_pat_model m;
  struct gcb_pat_layout l;
  int rank;
  double s;
  char why[200], name[64];
  enum gcb_status st = resolve_model(ctx, o, &m, name, sizeof name, err);
  if (st == GCB_OK)
    st = gcb__pat_resolve_layout(ctx, o, &l, err);
  if (st == GCB_OK)
    st = parse_delay(o->delay, ctx->size, &rank, &s, err);
  if (st != GCB_OK)
    return st;
  if (!gcb__pat_model_check(&m, 0, 0, why, sizeof why))
    return gcb_err_set(err, GCB_EUSAGE, "model %s: %s", m.name, why);
  if (o->patterns == 0)
    return gcb_err_set(err, GCB_EUSAGE, "--patterns: empty list");
  /* The largest variant's buffers must fit what the backend allocates
   * from, before anything is allocated. */
  if (ctx->backend_ops->fits == NULL)
    return GCB_OK;
  struct pattern_state tmp = {.model = m};
  int d = dtype_index(ctx, o->dtype);
  tmp.gemm_type = dtypes[d].gemm;
  tmp.coll_type = dtypes[d].coll;
  char what[160] = "pattern";
  uint64_t need = gcb__pat_need(ctx, o, &tmp, what, sizeof what);
  return need > 0 ? ctx->backend_ops->fits(ctx->backend, need, what, err)
                  : GCB_OK;
}

/* ---- run-wide state ------------------------------------------------------ */

static enum gcb_status pattern_open(struct gcb_ctx *ctx, const void *opts,
                                    void **state, struct gcb_err *err) {
  const struct pattern_opts *o = opts;
  struct pattern_state *s = calloc(1, sizeof *s);
  if (s == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "pattern: out of memory");
  *state = s;
  s->current = -1;
  s->sampled = -1;
  gcb__pat_res_free(&s->res);
  enum gcb_status st = resolve_model(ctx, o, &s->model, s->model_name,
                                     sizeof s->model_name, err);
  /* Tiles of about 0.3 ms between tests of the transports. */
  s->poll_flops = strcmp(ctx->backend_ops->name, "cuda") == 0
                      ? GCB_PAT_POLL_FLOPS_GPU
                      : GCB_PAT_POLL_FLOPS_HOST;
  if (st == GCB_OK)
    st = parse_delay(o->delay, ctx->size, &s->delay_rank, &s->delay_s, err);
  int d = dtype_index(ctx, o->dtype);
  if (st != GCB_OK || d < 0)
    return st != GCB_OK ? st : gcb_err_set(err, GCB_EUSAGE, "--dtype");
  s->gemm_type = dtypes[d].gemm;
  s->coll_type = dtypes[d].coll;
  const char *name = o->transport;
  if (strcmp(name, "auto") == 0)
    name = strcmp(ctx->backend_ops->name, "cuda") == 0 ? "nccl" : "mpi";
  s->ops = gcb_coll_transport_find(name);
  char why[160] = "";
  if (s->ops == NULL)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--transport: unknown or not built: '%s'", name);
  if (!s->ops->usable(why, sizeof why))
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "transport %s cannot run here: %s", name, why);
  if (s->ops->istart == NULL || s->ops->test == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "transport %s has no non-blocking collectives", name);
  return GCB_OK;
}

static void pattern_close(void *state) {
  struct pattern_state *s = state;
  if (s == NULL)
    return;
  gcb__pat_res_free(&s->res);
  for (int k = 0; k < GCB_PAT_PARTS; k++)
    free(s->samples[k]);
  free(s);
}

const struct gcb_bench gcb_bench_pattern = {
    .name = "pattern",
    .summary = "training-step patterns (dp, fsdp, tp, tp-sp, pp, ep): compute, "
               "communication, overlap and the straggler per rank",
    .options = pattern_options,
    .opts_size = sizeof(struct pattern_opts),
    .validate = pattern_validate,
    .open = pattern_open,
    .close = pattern_close,
    .count = pattern_count,
    .setup = gcb__pat_setup,
    .measure = gcb__pat_measure,
};
