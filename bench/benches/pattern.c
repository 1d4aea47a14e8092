/*
 * pattern: the communication and compute of one training step as data-,
 * sharded-data-, tensor-, pipeline- and expert-parallel training lay it
 * out, from a model description and group sizes. Each pattern variant is
 * five cases, one per part: its compute alone, its communication alone,
 * the overlapped step, and the time in compute and in communication
 * within that step. The report derives overlap, exposed communication,
 * interference, imbalance, the straggler, the bubble and the cost of skew
 * from them (reports/analysis/pattern_view.c; formulas in docs/PATTERNS.md).
 *
 * The programs a step runs are pure and built in pattern_plan.c. This file
 * is everything that touches MPI, the backend and the transports, in the
 * order a variant meets it: the options and their validation; the
 * variant's layout and plan; its groups' communicators and transports;
 * the executor, which runs a program once; the cases; their timing.
 */
#include <errno.h>
#include <inttypes.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "bench/benches/pattern_plan.h"
#include "bench/run/watchdog.h"
#include "collectives/comm.h"
#include "common/clock.h"
#include "common/mpi_err.h"

/* ---- types --------------------------------------------------------------- */

/* The parts of a variant, one case each (part_names below). */
#define GCB_PAT_PARTS 5

/* The options as the option table below parses them. */
struct pattern_opts {
  uint32_t patterns; /* bit set over enum gcb_pat_kind */
  int model;         /* index into gcb__pat_model_names */
  uint64_t hidden, layers, heads, kv_heads, ffn, seq, batch;
  int dtype; /* index into dtype_names */
  long tp, pp, dp, ep;
  const char *order;
  uint32_t placements;
  uint64_t bucket, first_bucket;
  long microbatches;
  double skew;
  long experts, topk;
  const char *transport;
  const char *delay;
};

/* One pattern variant: five cases. */
struct variant {
  enum gcb_pat_kind kind;
  int placement; /* tp, tp-sp: 0 inner, 1 outer */
  double skew;   /* ep */
};

/* One slot's transport over its communicator (owned). */
struct gcb_pat_chan {
  MPI_Comm mpi; /* MPI_COMM_NULL: the slot is unused here */
  struct gcb_coll_env env;
  struct gcb_comm *comm;
};

/* One GEMM shape of the program as the executor runs it: `whole` tiles
 * of `rows` rows of its m (op[0]) and one of the remaining rows (op[1],
 * when m is not a multiple), each at most the poll budget's flops, so
 * that the transports are tested between tiles; a batched GEMM (reps)
 * runs `chunk` repetitions between two tests. On a GPU, repetitions of a
 * GEMM that is one tile run `batch` at a time as one strided-batched
 * call (op[2]), as a framework's batched matmul runs attention's heads:
 * 96 heads of gpt2 enqueued one by one cost the host 96 cuBLASLt calls
 * for a few microseconds of the GPU's work. */
enum { GCB_PAT_TILE_OPS = 3 };
struct gcb_pat_tiles {
  struct gcb_op op[GCB_PAT_TILE_OPS];
  uint64_t rows, whole;
  int chunk;
  int batch;                  /* op[2]'s products per call; 0: none */
  bool ran[GCB_PAT_TILE_OPS]; /* what check() may sample: an op never run
                                 (op[0] of a GEMM always batched) holds no
                                 product */
};

/* The resources of the variant held, on one rank: its program, the
 * transports of its slots, one prepared GEMM per shape and one prepared
 * collective per buffer set. */
struct gcb_pat_res {
  struct gcb_pat_prog prog;
  const struct gcb_coll_ops *ops;
  struct gcb_pat_chan slots[GCB_PAT_SLOTS];
  struct gcb_pat_tiles *gemms;  /* prog.ngemms */
  struct gcb_coll_case **colls; /* prog.ncolls */
  double comm_bytes;            /* S of every collective of a step */
};

/* What runs: the step as the pattern lays it out, or one half alone. */
enum gcb_pat_mode { GCB_PAT_RUN_COMPUTE, GCB_PAT_RUN_COMM, GCB_PAT_RUN_BOTH };

/* One step's times (seconds): its wall time, the time in GEMMs (the
 * delay included), and the time with at least one collective in flight,
 * from its start to when it was last seen in flight (the start of the
 * last test that found it unfinished), or to the end of the wait that
 * finished it: a lower bound, which no polling frequency can lengthen. */
struct gcb_pat_times {
  double step, compute, comm;
};

/* The flops of one tile between two tests of the transports: about
 * 0.3 ms on either backend (a host core's 20-50 GFLOP/s, a GPU's
 * 200-800 TFLOP/s), short beside the collectives it times. */
#define GCB_PAT_POLL_FLOPS_HOST (8.0 * (1 << 20))
#define GCB_PAT_POLL_FLOPS_GPU (64.0 * (1 << 30))

/* The run-wide state (pattern_open to pattern_close): the resolved model,
 * types and transport, and the one variant whose resources are held. */
struct pattern_state {
  struct gcb_pat_model model;
  enum gcb_dtype gemm_type;
  enum gcb_coll_dtype coll_type;
  const struct gcb_coll_ops *ops;
  int delay_rank;
  double delay_s;
  int current; /* variant whose resources are held; -1 none */
  enum gcb_status built;
  char why[256];
  struct gcb_pat_res res;
  struct gcb_pat_plan plan; /* of the variant held */
  struct gcb_pat_layout layout;
  char span[16];     /* intra-node, inter-node or mixed */
  double poll_flops; /* a GEMM tile between two tests of the transports */
  bool batch_gemms;  /* repetitions as strided batches (the GPU's) */
  /* The samples of the five parts of the variant `sampled` (-1: none),
   * measured interleaved by its first part's case. */
  double *samples[GCB_PAT_PARTS];
  long nsamples;
  int sampled;
  /* The validation of the variant `checked` (-1: none), status and error
   * included: every part's case reports the one check of the runs that
   * the first part made, and every rank skips or repeats it alike. */
  int checked;
  struct gcb_check check;
  enum gcb_status check_st;
  struct gcb_err check_err;
  char model_name[32]; /* "llama2-7b (1 layer)": the preset as given */
};

/* ---- options ------------------------------------------------------------- */

static const char *const placement_names[] = {"inner", "outer", NULL};

/* --dtype's choices: "auto", then the rows of dtypes[]. */
static const char *const dtype_names[] = {"auto", "fp32", "fp64",
                                          "fp16", "bf16", NULL};

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

/* ---- variants ------------------------------------------------------------ */

/* The index-th variant of the options, in pattern order; false past the
 * last. */
static bool nth_variant(const struct pattern_opts *o, int index,
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
  while (nth_variant(opts, n, &v))
    n++;
  return n * GCB_PAT_PARTS;
}

/* ---- model, types, layout, delay ----------------------------------------- */

/* The GPU backend: its defaults (bf16, gpt2, NCCL), tile budget and
 * batched GEMMs. */
static bool on_gpu(const struct gcb_ctx *ctx) {
  return strcmp(ctx->backend_ops->name, "cuda") == 0;
}

/* The row of dtypes[] that --dtype names on this backend; -1 if none. */
static int dtype_index(const struct gcb_ctx *ctx, int choice) {
  const char *name = dtype_names[choice];
  if (strcmp(name, "auto") == 0)
    name = on_gpu(ctx) ? "bf16" : "fp32";
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
    name = on_gpu(ctx) ? "gpt2" : "tiny";
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
static enum gcb_status resolve_layout(const struct gcb_ctx *ctx,
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

/* Whether any of --tp --pp --dp --ep was given (else each pattern runs
 * alone over every rank). */
static bool layout_given(const struct pattern_opts *o) {
  return o->tp > 0 || o->pp > 0 || o->dp > 0 || o->ep > 0;
}

/* ---- layout of a variant ------------------------------------------------- */

/* The dimension a pattern's group runs along (ep: dp ranks, ep of them). */
static enum gcb_pat_dim group_dim(enum gcb_pat_kind kind) {
  return kind == GCB_PAT_TP || kind == GCB_PAT_TPSP ? GCB_PAT_DIM_TP
         : kind == GCB_PAT_PP                       ? GCB_PAT_DIM_PP
                                                    : GCB_PAT_DIM_DP;
}

/* The layout a variant runs in: every rank in its one group when no group
 * size is given; else the given layout, tensor-parallel varying slowest
 * for the outer placement. */
static void variant_layout(const struct gcb_ctx *ctx,
                           const struct pattern_opts *o,
                           const struct variant *v, struct gcb_pat_layout *l) {
  if (layout_given(o)) {
    (void)resolve_layout(ctx, o, l, NULL); /* validated */
    if (v->placement == 1) {
      enum gcb_pat_dim rest[2];
      int n = 0;
      for (int i = 0; i < GCB_PAT_DIMS; i++)
        if (l->order[i] != GCB_PAT_DIM_TP)
          rest[n++] = l->order[i];
      l->order[0] = rest[0], l->order[1] = rest[1];
      l->order[2] = GCB_PAT_DIM_TP;
    }
    return;
  }
  (void)resolve_layout(ctx, o, l, NULL); /* the order */
  for (int d = 0; d < GCB_PAT_DIMS; d++)
    l->size[d] = 1;
  enum gcb_pat_dim dim = group_dim(v->kind);
  l->size[dim] = ctx->size;
  l->ep = v->kind == GCB_PAT_EP ? ctx->size : 1;
}

/* The plan and program of a variant on `rank`: its group, its place, the
 * model (s->layout made by variant_layout). */
static enum gcb_status
variant_plan(const struct gcb_ctx *ctx, const struct pattern_opts *o,
             struct pattern_state *s, const struct variant *v, int rank,
             struct gcb_pat_prog *prog, struct gcb_err *err) {
  struct gcb_pat_plan *p = &s->plan;
  const struct gcb_pat_layout *l = &s->layout;
  int c[GCB_PAT_DIMS], color;
  gcb__pat_coords(l, rank, c);
  *p = (struct gcb_pat_plan){
      .kind = v->kind,
      .model = s->model,
      .bucket_elems = o->bucket / gcb_coll_dtype_size(s->coll_type),
      .first_bucket_elems = o->first_bucket / gcb_coll_dtype_size(s->coll_type),
      .microbatches = (int)o->microbatches,
      .skew = v->skew,
      .topk = (int)o->topk};
  enum gcb_pat_dim dim = group_dim(v->kind);
  p->group = l->size[dim];
  p->member = c[dim];
  if (v->kind == GCB_PAT_EP) {
    p->group = l->ep;
    gcb__pat_ep_group(l, rank, &color, &p->member);
    p->experts = o->experts > 0 ? (int)o->experts : 2 * p->group;
  }
  char why[200];
  /* A lone rank still runs every pattern (a one-rank communicator copies
   * locally): the device check on one GPU exercises the whole path. */
  if (p->group < 2 && ctx->size > 1)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "%s: its group has one rank in this layout",
                       gcb__pat_names[v->kind]);
  int tp = dim == GCB_PAT_DIM_TP ? p->group : 0;
  int pp = dim == GCB_PAT_DIM_PP ? p->group : 0;
  if (!gcb__pat_model_check(&p->model, tp, pp, why, sizeof why))
    return gcb_err_set(err, GCB_EUNSUPPORTED, "%s: %s", gcb__pat_names[v->kind],
                       why);
  if (v->kind == GCB_PAT_EP && p->experts % p->group != 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--experts %d is not a multiple of the ep group (%d)",
                       p->experts, p->group);
  if (!gcb__pat_build(p, prog))
    return gcb_err_set(err, GCB_ENOMEM, "%s: cannot build its schedule",
                       gcb__pat_names[v->kind]);
  return GCB_OK;
}

/* ---- communicators ------------------------------------------------------- */

/* Splits the world into this slot's groups (colour < 0: none here). */
static enum gcb_status split(struct gcb_ctx *ctx, struct gcb_pat_chan *sl,
                             int color, int key, struct gcb_err *err) {
  int rc = MPI_Comm_split(ctx->world, color < 0 ? MPI_UNDEFINED : color, key,
                          &sl->mpi);
  if (rc != MPI_SUCCESS)
    return gcb_mpi_err(err, rc, "MPI_Comm_split");
  sl->env = (struct gcb_coll_env){
      .comm = sl->mpi, .device = ctx->device.index, .deadline = ctx->deadline};
  if (sl->mpi == MPI_COMM_NULL)
    return GCB_OK;
  rc = MPI_Comm_rank(sl->mpi, &sl->env.rank);
  if (rc != MPI_SUCCESS)
    return gcb_mpi_err(err, rc, "MPI_Comm_rank");
  return gcb_mpi_err(err, MPI_Comm_size(sl->mpi, &sl->env.size),
                     "MPI_Comm_size");
}

/* Makes the communicators of every slot the program uses, in the same
 * order on every rank (MPI_Comm_split is collective over the world). */
static enum gcb_status make_comms(struct gcb_ctx *ctx, struct pattern_state *s,
                                  struct gcb_err *err) {
  struct gcb_pat_res *r = &s->res;
  const struct gcb_pat_layout *l = &s->layout;
  int color = -1, key = 0;
  enum gcb_status st = GCB_OK;
  if (s->plan.kind == GCB_PAT_PP) {
    int stage = s->plan.member;
    for (int parity = 0; parity < 2 && st == GCB_OK; parity++) {
      bool in = gcb__pat_pp_pair(l, ctx->rank, parity, &color, &key);
      /* The pair with the next stage has this stage's parity. */
      int slot = parity == stage % 2 ? GCB_PAT_NEXT : GCB_PAT_PREV;
      st = split(ctx, &r->slots[slot], in ? color : -1, key, err);
    }
    return st;
  }
  if (s->plan.kind == GCB_PAT_EP)
    gcb__pat_ep_group(l, ctx->rank, &color, &key);
  else
    gcb__pat_group(l, ctx->rank, group_dim(s->plan.kind), &color, &key);
  st = split(ctx, &r->slots[GCB_PAT_MAIN], color, key, err);
  if (st == GCB_OK && s->plan.kind == GCB_PAT_FSDP)
    st = split(ctx, &r->slots[GCB_PAT_AUX], color, key, err);
  return st;
}

/* Opens the transport on each slot, in slot order (NEXT before PREV is
 * parity order on every stage but the odd ones: PREV then NEXT there, so
 * open by parity). */
static enum gcb_status open_slots(struct pattern_state *s,
                                  struct gcb_err *err) {
  struct gcb_pat_res *r = &s->res;
  int order[GCB_PAT_SLOTS] = {GCB_PAT_MAIN, GCB_PAT_AUX, GCB_PAT_NEXT,
                              GCB_PAT_PREV};
  if (s->plan.kind == GCB_PAT_PP && s->plan.member % 2 == 1)
    order[2] = GCB_PAT_PREV, order[3] = GCB_PAT_NEXT;
  r->ops = s->ops;
  for (int i = 0; i < GCB_PAT_SLOTS; i++) {
    struct gcb_pat_chan *sl = &r->slots[order[i]];
    if (sl->mpi == MPI_COMM_NULL)
      continue;
    enum gcb_status st = s->ops->open(&sl->env, &sl->comm, err);
    if (st != GCB_OK)
      return st;
  }
  return GCB_OK;
}

/* Whether this variant's groups stay inside nodes: each slot's span over
 * its members, then over every rank. */
static enum gcb_status find_span(struct gcb_ctx *ctx, struct pattern_state *s,
                                 struct gcb_err *err) {
  int mine[2] = {0, 0}, all[2]; /* [crossing, inside] */
  for (int i = 0; i < GCB_PAT_SLOTS; i++) {
    struct gcb_pat_chan *sl = &s->res.slots[i];
    if (sl->mpi == MPI_COMM_NULL)
      continue;
    int lo[2] = {-ctx->node_index, ctx->node_index}, hi[2];
    int rc = MPI_Allreduce(lo, hi, 2, MPI_INT, MPI_MAX, sl->mpi);
    if (rc != MPI_SUCCESS)
      return gcb_mpi_err(err, rc, "MPI_Allreduce of node indices");
    mine[-hi[0] != hi[1] ? 0 : 1] = 1;
  }
  int rc = MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, ctx->world);
  if (rc != MPI_SUCCESS)
    return gcb_mpi_err(err, rc, "MPI_Allreduce of group spans");
  snprintf(s->span, sizeof s->span, "%s",
           all[0] && all[1] ? "mixed"
           : all[0]         ? "inter-node"
                            : "intra-node");
  return GCB_OK;
}

/* ---- the executor -------------------------------------------------------- */

/*
 * The executor runs one pattern's program once: GEMMs through the backend
 * (OpenBLAS on host; cuBLASLt on the backend's stream on cuda, each GEMM
 * waited), and collectives through the transport's non-blocking pair (MPI_I* on
 * host; NCCL on its own stream), so that communication started before a GEMM
 * runs while it runs. Between GEMMs every slot with work in flight is
 * tested, which both drives MPI's progress (an MPI library without an
 * asynchronous progress thread advances a non-blocking collective only
 * inside MPI calls, as PyTorch's Gloo and MPI backends do) and stamps
 * when the communication was last seen in flight. GEMMs run in tiles of
 * at most a poll budget's flops (rows of m; repetitions of a batched
 * one), tested between tiles, so that MPI progresses and the
 * communication's own time is seen to within one tile.
 */

static void sleep_s(double s) {
  struct timespec ts = {.tv_sec = (time_t)s,
                        .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* The most repetitions any instruction asks of GEMM i. */
static int most_reps(const struct gcb_pat_prog *prog, size_t i) {
  int most = 1;
  for (size_t j = 0; j < prog->nins; j++)
    if (prog->ins[j].op == GCB_PAT_GEMM && prog->ins[j].arg == (int)i &&
        prog->ins[j].reps > most)
      most = prog->ins[j].reps;
  return most;
}

/* One prepared GEMM per tile shape of each of the program's GEMMs, and
 * with `batched` a batch of whole products where repetitions fit one
 * tile's budget. */
static enum gcb_status prepare_gemms(struct gcb_ctx *ctx, struct gcb_pat_res *r,
                                     enum gcb_dtype t, double budget,
                                     bool batched, struct gcb_err *err) {
  const struct gcb_backend_ops *b = ctx->backend_ops;
  if (b->gemm == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "the %s backend has no GEMM",
                       b->name);
  r->gemms = calloc(r->prog.ngemms + 1, sizeof *r->gemms);
  if (r->gemms == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "pattern: out of memory");
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < r->prog.ngemms && st == GCB_OK; i++) {
    const struct gcb_pat_gemm *g = &r->prog.gemms[i];
    struct gcb_pat_tiles *tl = &r->gemms[i];
    tl->rows = gcb__pat_tile_rows(g->m, g->n, g->k, budget);
    tl->whole = g->m / tl->rows;
    tl->chunk = gcb__pat_tile_chunk(g->m, g->n, g->k, INT32_MAX, budget);
    uint64_t rest = g->m - tl->whole * tl->rows;
    int reps = most_reps(&r->prog, i);
    tl->batch = batched && rest == 0 && tl->whole == 1 && reps > 1
                    ? (reps < tl->chunk ? reps : tl->chunk)
                    : 0;
    for (int h = 0; h < GCB_PAT_TILE_OPS && st == GCB_OK; h++) {
      struct gcb_gemm_params p = {.dtype = t,
                                  .m = h == 0   ? tl->rows
                                       : h == 1 ? rest
                                                : g->m,
                                  .n = g->n,
                                  .k = g->k,
                                  .seed = ctx->seed + (uint64_t)ctx->rank +
                                          2 * i + (uint64_t)(h & 1),
                                  .in_step = true,
                                  .batch = h == 2 ? (uint64_t)tl->batch : 0};
      if (p.m > 0 && (h < 2 || tl->batch > 1))
        st = b->gemm(ctx->backend, &p, &tl->op[h], err);
    }
  }
  return st;
}

/* The collectives; every rank prepares its own in program order, which is
 * the same order on every member of a slot's group. */
static enum gcb_status prepare_colls(struct gcb_pat_res *r,
                                     enum gcb_coll_dtype t,
                                     struct gcb_err *err) {
  r->colls = calloc(r->prog.ncolls + 1, sizeof *r->colls);
  if (r->colls == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "pattern: out of memory");
  for (size_t i = 0; i < r->prog.ncolls; i++) {
    const struct gcb_pat_coll *c = &r->prog.colls[i];
    struct gcb_pat_chan *s = &r->slots[c->slot];
    if (s->comm == NULL)
      return gcb_err_set(err, GCB_EINTERNAL, "pattern: slot %d not open",
                         c->slot);
    struct gcb_coll_call shape = {.desc = gcb_coll_find(c->op),
                                  .dtype = t,
                                  .redop = GCB_REDOP_SUM,
                                  .root = c->root,
                                  .count = c->count};
    enum gcb_status st =
        gcb_coll_case_new(r->ops, s->comm, &s->env, &shape, &r->colls[i], err);
    if (st != GCB_OK)
      return st;
    /* Validation checks what the step runs: the non-blocking form. */
    (void)gcb_coll_case_use_istart(r->colls[i]);
  }
  for (size_t i = 0; i < r->prog.nins; i++)
    if (r->prog.ins[i].op == GCB_PAT_START)
      r->comm_bytes +=
          (double)gcb_coll_case_counts(r->colls[r->prog.ins[i].arg])->bytes;
  return GCB_OK;
}

/*
 * Prepares the GEMMs (tiled within `poll_flops`) and collectives of
 * r->prog (the slots are open): GCB_EUNSUPPORTED when the backend or
 * transport lacks one, with why. Collective over every slot's
 * communicator.
 */
static enum gcb_status res_prepare(struct gcb_ctx *ctx, struct gcb_pat_res *r,
                                   enum gcb_dtype gemm_type,
                                   enum gcb_coll_dtype coll_type,
                                   double poll_flops, bool batched,
                                   struct gcb_err *err) {
  enum gcb_status st =
      prepare_gemms(ctx, r, gemm_type, poll_flops, batched, err);
  return st == GCB_OK ? prepare_colls(r, coll_type, err) : st;
}

/* ---- the executor: one step ---------------------------------------------- */

/* Work in flight per slot; since when any was, and until when (the
 * latest lower bound of a completion) in the current busy stretch. */
struct flight {
  int pending[GCB_PAT_SLOTS];
  double seen[GCB_PAT_SLOTS]; /* last time the slot was known busy */
  int total;
  double since, until, busy;
};

/* Slot `slot` finished, no earlier than `at`. */
static void landed(struct flight *f, int slot, double at) {
  f->total -= f->pending[slot];
  f->pending[slot] = 0;
  if (at > f->until)
    f->until = at;
  if (f->total == 0)
    f->busy += f->until - f->since;
}

/* Tests every slot with work in flight (a case of that slot stands for
 * it: test() covers all the slot's operations). A slot still busy is
 * stamped with the test's start: it finished after that. */
static enum gcb_status poll_slots(struct flight *f,
                                  const struct gcb_coll_case *const *any,
                                  struct gcb_err *err) {
  for (int s = 0; s < GCB_PAT_SLOTS; s++) {
    bool done = false;
    if (f->pending[s] == 0)
      continue;
    double t = gcb_now_s();
    enum gcb_status st =
        gcb_coll_case_test((struct gcb_coll_case *)any[s], &done, err);
    if (st != GCB_OK)
      return st;
    if (done)
      landed(f, s, f->seen[s]);
    else
      f->seen[s] = t;
  }
  return GCB_OK;
}

/* One GEMM of the program, tile by tile (chunk by chunk of a batched
 * one), the transports tested after each while anything is in flight. */
static enum gcb_status run_gemm(struct gcb_pat_res *r,
                                const struct gcb_pat_ins *in, double delay_s,
                                struct flight *f,
                                const struct gcb_coll_case *const *any,
                                double *compute, struct gcb_err *err) {
  struct gcb_pat_tiles *tl = &r->gemms[in->arg];
  double ignored;
  enum gcb_status st = GCB_OK;
  if (in->first && delay_s > 0) {
    double t0 = gcb_now_s();
    sleep_s(delay_s);
    *compute += gcb_now_s() - t0;
  }
  for (int done = 0; done < in->reps && st == GCB_OK;) {
    if (tl->batch > 1 && in->reps - done >= tl->batch) {
      struct gcb_op *op = &tl->op[2];
      double t0 = gcb_now_s();
      st = op->run(op->state, 1, &ignored, err);
      *compute += gcb_now_s() - t0;
      tl->ran[2] = true;
      if (st == GCB_OK && f->total > 0)
        st = poll_slots(f, any, err);
      done += tl->batch;
      continue;
    }
    int reps = in->reps - done < tl->chunk ? in->reps - done : tl->chunk;
    for (uint64_t i = 0; i <= tl->whole && st == GCB_OK; i++) {
      struct gcb_op *op = &tl->op[i < tl->whole ? 0 : 1];
      if (op->run == NULL)
        continue;
      double t0 = gcb_now_s();
      st = op->run(op->state, reps, &ignored, err);
      *compute += gcb_now_s() - t0;
      tl->ran[i < tl->whole ? 0 : 1] = true;
      if (st == GCB_OK && f->total > 0)
        st = poll_slots(f, any, err);
    }
    done += reps;
  }
  return st;
}

/* Runs one step in `mode`; delay_s > 0 sleeps before the step's first
 * GEMM (counted as compute). Collective over the slots. */
static enum gcb_status res_step(struct gcb_pat_res *r, enum gcb_pat_mode mode,
                                double delay_s, struct gcb_pat_times *t,
                                struct gcb_err *err) {
  struct flight f = {{0}, {0}, 0, 0, 0, 0};
  const struct gcb_coll_case *any[GCB_PAT_SLOTS] = {NULL};
  enum gcb_status st = GCB_OK;
  bool comp = mode != GCB_PAT_RUN_COMM, comm = mode != GCB_PAT_RUN_COMPUTE;
  *t = (struct gcb_pat_times){0, 0, 0};
  double t0 = gcb_now_s();
  for (size_t i = 0; i < r->prog.nins && st == GCB_OK; i++) {
    const struct gcb_pat_ins *in = &r->prog.ins[i];
    if (in->op == GCB_PAT_GEMM && comp) {
      st = run_gemm(r, in, delay_s, &f, any, &t->compute, err);
    } else if (in->op == GCB_PAT_START && comm) {
      struct gcb_coll_case *k = r->colls[in->arg];
      int slot = r->prog.colls[in->arg].slot;
      double at = gcb_now_s();
      if (f.total == 0)
        f.since = f.until = at;
      st = gcb_coll_case_istart(k, err);
      any[slot] = k;
      f.seen[slot] = at;
      f.pending[slot]++;
      f.total++;
    } else if (in->op == GCB_PAT_WAIT && comm && f.pending[in->arg] > 0) {
      st = gcb_coll_case_wait((struct gcb_coll_case *)any[in->arg], err);
      landed(&f, in->arg, gcb_now_s());
    }
  }
  for (int s = 0; s < GCB_PAT_SLOTS && st == GCB_OK; s++)
    if (f.pending[s] > 0) { /* a program ends waiting; this is a guard */
      st = gcb_coll_case_wait((struct gcb_coll_case *)any[s], err);
      landed(&f, s, gcb_now_s());
    }
  t->step = gcb_now_s() - t0;
  t->comm = f.busy;
  return st;
}

/* ---- the executor: validation, release ----------------------------------- */

static void add_check(struct gcb_check *sum, const struct gcb_check *c) {
  sum->samples += c->samples;
  sum->wrong += c->wrong;
  if (c->max_error > sum->max_error)
    sum->max_error = c->max_error;
  if (c->tolerance > sum->tolerance)
    sum->tolerance = c->tolerance;
}

/* Validates every collective (exact expected values) and GEMM (sampled
 * reference) once, summed into out. Collective. */
static enum gcb_status res_check(struct gcb_pat_res *r, struct gcb_check *out,
                                 struct gcb_err *err) {
  *out = (struct gcb_check){
      .checked = true,
      .method = "collectives: exact expected values (nccl-tests -c); "
                "GEMMs: sampled entries against a reference"};
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < r->prog.ncolls && st == GCB_OK; i++) {
    uint64_t wrong = 0, checked = 0;
    st = gcb_coll_case_check(r->colls[i], &wrong, &checked, err);
    add_check(out, &(struct gcb_check){.samples = checked, .wrong = wrong});
  }
  for (size_t i = 0; i < r->prog.ngemms && st == GCB_OK; i++)
    for (int h = 0; h < GCB_PAT_TILE_OPS && st == GCB_OK; h++) {
      struct gcb_op *op = &r->gemms[i].op[h];
      struct gcb_check c = {0};
      if (op->check == NULL || !r->gemms[i].ran[h])
        continue;
      st = op->check(op->state, &c, err);
      if (st == GCB_OK && c.checked)
        add_check(out, &c);
    }
  return st;
}

/* Frees everything r holds (transports, communicators included) and
 * zeroes it, its slots MPI_COMM_NULL; safe on a zeroed r. */
static void res_free(struct gcb_pat_res *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; r->colls && i < r->prog.ncolls; i++)
    gcb_coll_case_free(r->colls[i]);
  for (size_t i = 0; r->gemms && i < r->prog.ngemms; i++)
    for (int h = 0; h < GCB_PAT_TILE_OPS; h++)
      gcb_op_release(&r->gemms[i].op[h]);
  free(r->colls);
  free(r->gemms);
  for (int s = 0; s < GCB_PAT_SLOTS; s++) {
    if (r->ops && r->slots[s].comm)
      r->ops->close(r->slots[s].comm);
    if (r->slots[s].mpi != MPI_COMM_NULL && r->slots[s].mpi != 0)
      (void)MPI_Comm_free(&r->slots[s].mpi); /* nothing to do if it fails */
  }
  gcb__pat_prog_free(&r->prog);
  memset(r, 0, sizeof *r);
  for (int s = 0; s < GCB_PAT_SLOTS; s++)
    r->slots[s].mpi = MPI_COMM_NULL;
}

/* ---- resources of a variant ---------------------------------------------- */

/* Builds the resources of variant v: its group laid out on the ranks, its
 * program built, each group's communicator made where the layout puts it
 * (and whether it stays inside a node recorded), the program prepared;
 * phase by phase, every rank agreeing after each so that none enters a
 * collective call the others skip. */
static enum gcb_status variant_build(struct gcb_ctx *ctx,
                                     const struct pattern_opts *o,
                                     struct pattern_state *s,
                                     const struct variant *v) {
  struct gcb_err *err = &ctx->err;
  variant_layout(ctx, o, v, &s->layout);
  enum gcb_status st = gcb_context_agree(
      ctx, variant_plan(ctx, o, s, v, ctx->rank, &s->res.prog, err));
  if (st == GCB_OK)
    st = gcb_context_agree(ctx, make_comms(ctx, s, err));
  if (st == GCB_OK)
    st = gcb_context_agree(ctx, open_slots(s, err));
  if (st == GCB_OK)
    st = gcb_context_agree(ctx, find_span(ctx, s, err));
  if (st == GCB_OK)
    st = gcb_context_agree(ctx,
                           res_prepare(ctx, &s->res, s->gemm_type, s->coll_type,
                                       s->poll_flops, s->batch_gemms, err));
  return st;
}

/* Elements one rank allocates for a collective of `count` on a group of
 * g: its send and receive buffers (runner.c's out-of-place layout). */
static double coll_elems(const struct gcb_pat_coll *c, int g) {
  double n = (double)c->count;
  if (strcmp(c->op, "allgather") == 0 || strcmp(c->op, "reducescatter") == 0)
    return n + n / g;
  return 2 * n;
}

static double prog_bytes(const struct pattern_state *s,
                         const struct gcb_pat_prog *prog) {
  double bytes = 0;
  for (size_t k = 0; k < prog->ncolls; k++)
    bytes += coll_elems(&prog->colls[k], s->plan.group) *
             (double)gcb_coll_dtype_size(s->coll_type);
  for (size_t k = 0; k < prog->ngemms; k++) {
    const struct gcb_pat_gemm *g = &prog->gemms[k];
    double product = (double)g->m * (double)g->k + (double)g->k * (double)g->n +
                     (double)g->m * (double)g->n;
    /* Tiles of rows of m share nothing: a last, shorter tile holds its
     * own B (prepare_gemms); a batch (at most the most repetitions) holds
     * every product's A, B and C. */
    bytes += (product + (double)g->k * (double)g->n) *
             (double)gcb_dtype_bytes(s->gemm_type);
    if (s->batch_gemms && most_reps(prog, k) > 1)
      bytes +=
          product * most_reps(prog, k) * (double)gcb_dtype_bytes(s->gemm_type);
  }
  return bytes;
}

/* Bytes one rank allocates for the largest variant the options ask for
 * (rank 0's share: every rank's is alike), `what` naming it; 0 when no
 * variant can run. s holds the resolved model and types. */
static uint64_t pattern_need(const struct gcb_ctx *ctx,
                             const struct pattern_opts *o,
                             struct pattern_state *s, char *what, size_t len) {
  double most = 0;
  struct variant v;
  for (int i = 0; nth_variant(o, i, &v); i++) {
    struct gcb_pat_prog prog = {0};
    variant_layout(ctx, o, &v, &s->layout);
    if (variant_plan(ctx, o, s, &v, 0, &prog, NULL) != GCB_OK)
      continue;
    double bytes = prog_bytes(s, &prog);
    if (bytes > most) {
      most = bytes;
      snprintf(what, len, "pattern %s of model %s (its GEMMs and collectives)",
               gcb__pat_names[v.kind], s->model.name);
    }
    gcb__pat_prog_free(&prog);
  }
  return most < 1.8e19 ? (uint64_t)most : UINT64_MAX;
}

/* ---- validation ---------------------------------------------------------- */

/* The options make sense on this many ranks, and the largest variant fits
 * the backend's memory. */
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
    st = resolve_layout(ctx, o, &l, err);
  if (st == GCB_OK)
    st = parse_delay(o->delay, ctx->size, &rank, &s, err);
  if (st != GCB_OK)
    return st;
  if (!gcb__pat_model_check(&m, 0, 0, why, sizeof why))
    return gcb_err_set(err, GCB_EUSAGE, "model %s: %s", m.name, why);
  if (o->patterns == 0)
    return gcb_err_set(err, GCB_EUSAGE, "--patterns: empty list");
  /* the ep group each ep variant runs in (variant_layout), before the
   * results file: every case would fail on it */
  int ep = layout_given(o) ? l.ep : ctx->size;
  if ((o->patterns & (1u << GCB_PAT_EP)) && o->experts > 0 &&
      o->experts % ep != 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--experts %ld is not a multiple of the ep group (%d)",
                       o->experts, ep);
  /* The largest variant's buffers must fit what the backend allocates
   * from, before anything is allocated. */
  if (ctx->backend_ops->fits == NULL)
    return GCB_OK;
  struct pattern_state tmp = {.model = m, .batch_gemms = on_gpu(ctx)};
  int d = dtype_index(ctx, o->dtype);
  tmp.gemm_type = dtypes[d].gemm;
  tmp.coll_type = dtypes[d].coll;
  char what[160] = "pattern";
  uint64_t need = pattern_need(ctx, o, &tmp, what, sizeof what);
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
  s->checked = -1;
  res_free(&s->res); /* its slots MPI_COMM_NULL */
  enum gcb_status st = resolve_model(ctx, o, &s->model, s->model_name,
                                     sizeof s->model_name, err);
  /* Tiles of about 0.3 ms between tests of the transports. */
  s->poll_flops =
      on_gpu(ctx) ? GCB_PAT_POLL_FLOPS_GPU : GCB_PAT_POLL_FLOPS_HOST;
  s->batch_gemms = on_gpu(ctx);
  if (st == GCB_OK)
    st = parse_delay(o->delay, ctx->size, &s->delay_rank, &s->delay_s, err);
  int d = dtype_index(ctx, o->dtype);
  if (st != GCB_OK || d < 0)
    return st != GCB_OK ? st : gcb_err_set(err, GCB_EUSAGE, "--dtype");
  s->gemm_type = dtypes[d].gemm;
  s->coll_type = dtypes[d].coll;
  const char *name = o->transport;
  if (strcmp(name, "auto") == 0)
    name = on_gpu(ctx) ? "nccl" : "mpi";
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
  res_free(&s->res);
  for (int k = 0; k < GCB_PAT_PARTS; k++)
    free(s->samples[k]);
  free(s);
}

/* ---- cases --------------------------------------------------------------- */

/* Five cases per variant, timed from its resources: compute alone,
 * communication alone, the overlapped step, and the compute and
 * communication time within that step. */

static const char *const part_names[GCB_PAT_PARTS] = {
    "compute", "comm", "step", "step-compute", "step-comm"};

/* The label, parameters and work of part `part` of variant v. */
static void describe(const struct pattern_state *s, const struct variant *v,
                     int part, struct gcb_record *rec) {
  const struct gcb_pat_plan *p = &s->plan;
  const struct gcb_pat_layout *l = &s->layout;
  char var[32] = "";
  if (v->kind == GCB_PAT_TP || v->kind == GCB_PAT_TPSP)
    snprintf(var, sizeof var, " %s", v->placement ? "outer" : "inner");
  else if (v->kind == GCB_PAT_EP)
    snprintf(var, sizeof var, " skew %g", v->skew);
  snprintf(rec->label, sizeof rec->label, "%s%s %s", gcb__pat_names[v->kind],
           var, part_names[part]);
  gcb_record_param_str(rec, "pattern", gcb__pat_names[v->kind]);
  gcb_record_param_str(rec, "part", part_names[part]);
  gcb_record_param_str(rec, "model", s->model.name);
  gcb_record_param_int(rec, "group", p->group);
  gcb_record_param_str(rec, "span", s->span[0] ? s->span : "unknown");
  char lay[32];
  snprintf(lay, sizeof lay, "tp%d pp%d dp%d ep%d", l->size[GCB_PAT_DIM_TP],
           l->size[GCB_PAT_DIM_PP], l->size[GCB_PAT_DIM_DP], l->ep);
  gcb_record_param_str(rec, "layout", lay);
  if (v->kind == GCB_PAT_TP || v->kind == GCB_PAT_TPSP)
    gcb_record_param_str(rec, "placement", v->placement ? "outer" : "inner");
  if (v->kind == GCB_PAT_PP) {
    gcb_record_param_int(rec, "microbatches", p->microbatches);
    gcb_record_param_double(rec, "ideal_bubble",
                            gcb__pat_ideal_bubble(p->group, p->microbatches));
  }
  if (v->kind == GCB_PAT_EP) {
    gcb_record_param_double(rec, "skew", v->skew);
    gcb_record_param_int(rec, "experts", p->experts);
  }
  bool comm = part == 1 || part == 4;
  rec->work_per_op = comm ? s->res.comm_bytes : s->res.prog.flops;
  rec->figure = comm ? (struct gcb_figure_spec){.unit = "GB/s",
                                                .scale = 1e9,
                                                .counted = "bytes of the "
                                                           "step's "
                                                           "collectives "
                                                           "(nccl-tests S)"}
                     : (struct gcb_figure_spec){
                           .unit = "GFLOP/s",
                           .scale = 1e9,
                           .counted = "2*m*n*k flops of the step's GEMMs"};
}

/* What one case's operation holds: the run-wide state and its part. */
struct part_op {
  struct pattern_state *s;
  int part;
};

static enum gcb_status part_check(void *state, struct gcb_check *out,
                                  struct gcb_err *err) {
  struct part_op *p = state;
  struct pattern_state *s = p->s;
  if (s->checked != s->current) {
    s->check_st = res_check(&s->res, &s->check, &s->check_err);
    s->checked = s->current;
  }
  *out = s->check;
  if (s->check_st != GCB_OK)
    *err = s->check_err;
  return s->check_st;
}

/* The harness's setup of case `index`: the variant's resources built when
 * it changes (a variant that cannot run fails each of its cases with the
 * reason), then the case described. */
static enum gcb_status pattern_setup(struct gcb_ctx *ctx, const void *opts,
                                     void *state, int index,
                                     struct gcb_record *rec, struct gcb_op *op,
                                     struct gcb_err *err) {
  const struct pattern_opts *o = opts;
  struct pattern_state *s = state;
  struct variant v;
  int vi = index / GCB_PAT_PARTS, part = index % GCB_PAT_PARTS;
  if (!nth_variant(o, vi, &v))
    return gcb_err_set(err, GCB_EINTERNAL, "pattern: no case %d", index);
  if (s->current != vi) {
    res_free(&s->res);
    s->span[0] = '\0';
    s->current = vi;
    s->sampled = -1;
    s->checked = -1;
    s->built = variant_build(ctx, o, s, &v);
    /* Kept without the "rank N (host): " that the agreement added: the
     * harness adds it again to every case of the variant. */
    const char *why = gcb_errmsg(ctx), *cut = strstr(why, "): ");
    if (strncmp(why, "rank ", 5) == 0 && cut != NULL)
      why = cut + 3;
    snprintf(s->why, sizeof s->why, "%s", why);
  }
  describe(s, &v, part, rec);
  if (s->built != GCB_OK)
    return gcb_err_set(err, s->built, "%s", s->why);
  /* A group of one moves nothing between ranks: its collectives are a
   * local copy or nothing (NCCL on one rank: 1-17 us on an H200), which
   * no figure of communication should stand for. Its step is still the
   * compute's, measured. */
  if ((part == 1 || part == 4) && s->plan.group < 2)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "one rank in the %s group: its collectives move nothing",
                       gcb__pat_names[v.kind]);
  struct part_op *p = calloc(1, sizeof *p);
  if (p == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "pattern: out of memory");
  *p = (struct part_op){s, part};
  *op = (struct gcb_op){.state = p, .check = part_check, .release = free};
  return GCB_OK;
}

/* ---- timing -------------------------------------------------------------- */

/* The three runs of a step, each after a barrier, in an order that
 * rotates with the iteration: compute alone, communication alone and the
 * step are measured interleaved, so that a drift of the machine (clocks,
 * other load) reaches all three alike and cancels in the overlap. The
 * barrier is outside the timed region: every rank's sample is one step
 * from a common start (as a training step after the optimizer's
 * synchronisation). */
static enum gcb_status interleave(struct gcb_ctx *ctx, struct pattern_state *s,
                                  struct gcb_timing *timing, double delay,
                                  struct gcb_err *err) {
  long iters = timing->iters, warmup = timing->warmup;
  static const enum gcb_pat_mode modes[3] = {
      GCB_PAT_RUN_COMPUTE, GCB_PAT_RUN_COMM, GCB_PAT_RUN_BOTH};
  struct gcb_pat_times t;
  enum gcb_status st = GCB_OK;
  for (long i = 0; i < warmup && st == GCB_OK; i++)
    for (int j = 0; j < 3 && st == GCB_OK; j++) {
      gcb_watchdog_step(ctx->watchdog);
      st = res_step(&s->res, modes[j], delay, &t, err);
    }
  gcb_timing_warmed(timing);
  for (long i = 0; i < iters && st == GCB_OK; i++)
    for (int j = 0; j < 3 && st == GCB_OK; j++) {
      int m = (int)((i + j) % 3);
      gcb_watchdog_step(ctx->watchdog);
      int rc = MPI_Barrier(ctx->world);
      if (rc != MPI_SUCCESS)
        st = gcb_mpi_err(err, rc, "MPI_Barrier before a step");
      gcb_watchdog_step(ctx->watchdog);
      if (st == GCB_OK)
        st = res_step(&s->res, modes[m], delay, &t, err);
      double *const *x = s->samples;
      if (modes[m] != GCB_PAT_RUN_BOTH) {
        x[m][i] = t.step; /* part 0 compute alone, part 1 comm alone */
        continue;
      }
      x[2][i] = t.step;
      x[3][i] = t.compute;
      x[4][i] = t.comm;
    }
  return st;
}

/* The harness's measurement of one case: the samples of its part. */
static enum gcb_status pattern_measure(struct gcb_ctx *ctx, const void *opts,
                                       void *state, struct gcb_op *op,
                                       struct gcb_timing *timing,
                                       struct gcb_rank_result *out,
                                       struct gcb_err *err) {
  (void)opts;
  long iters = timing->iters;
  timing->timed = iters;
  struct part_op *p = op->state;
  struct pattern_state *s = state;
  double delay = ctx->rank == s->delay_rank ? s->delay_s : 0;
  enum gcb_status st = GCB_OK;
  /* The variant's first measured part samples all five; the others
   * report theirs (every rank measures the same parts: the harness runs
   * the same cases everywhere). */
  if (s->sampled != s->current) {
    for (int k = 0; k < GCB_PAT_PARTS; k++) {
      free(s->samples[k]);
      s->samples[k] = calloc((size_t)iters + 1, sizeof *s->samples[k]);
      if (s->samples[k] == NULL)
        st = GCB_ENOMEM;
    }
    if (st != GCB_OK)
      return gcb_err_set(err, GCB_ENOMEM, "pattern: out of memory");
    s->nsamples = iters;
    st = interleave(ctx, s, timing, delay, err);
    s->sampled = st == GCB_OK ? s->current : -1;
  }
  if (st == GCB_OK) {
    long n = iters < s->nsamples ? iters : s->nsamples;
    gcb_stats_compute(s->samples[p->part], (size_t)n, &out->seconds);
    out->time_s = out->seconds.median;
  }
  return st;
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
    .setup = pattern_setup,
    .measure = pattern_measure,
};
