/*
 * The cases of the pattern benchmark: for each variant, its group laid
 * out on the ranks (each group's communicator made where the layout puts
 * it, and whether it stays inside a node recorded), its program built and
 * prepared, then five cases timed from it: compute alone, communication
 * alone, the overlapped step, and the compute and communication time
 * within that step. Each timed step starts after a barrier, outside the
 * timed region, so that every rank's sample is one step from a common
 * start (as a training step after the optimizer's synchronisation).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benches/pattern_bench.h"
#include "bench/run/watchdog.h"
#include "reports/reports.h"

static const char *const part_names[GCB_PAT_PARTS] = {
    "compute", "comm", "step", "step-compute", "step-comm"};

static enum gcb_status mpi_failed(struct gcb_err *err, const char *call,
                                  int rc) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  (void)MPI_Error_string(rc, text, &len);
  return gcb_err_set(err, GCB_EMPI, "%s: %s", call, text);
}

/* ---- layout of a variant ------------------------------------------------- */

/* The layout a variant runs in: every rank in its one group when no group
 * size is given; else the given layout, tensor-parallel varying slowest
 * for the outer placement. */
static void variant_layout(const struct gcb_ctx *ctx,
                           const struct pattern_opts *o,
                           const struct variant *v, struct gcb_pat_layout *l) {
  if (gcb__pat_layout_given(o)) {
    (void)gcb__pat_resolve_layout(ctx, o, l, NULL); /* validated */
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
  (void)gcb__pat_resolve_layout(ctx, o, l, NULL); /* the order */
  for (int d = 0; d < GCB_PAT_DIMS; d++)
    l->size[d] = 1;
  enum gcb_pat_dim dim = v->kind == GCB_PAT_TP || v->kind == GCB_PAT_TPSP
                             ? GCB_PAT_DIM_TP
                         : v->kind == GCB_PAT_PP ? GCB_PAT_DIM_PP
                                                 : GCB_PAT_DIM_DP;
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
  enum gcb_pat_dim dim = v->kind == GCB_PAT_TP || v->kind == GCB_PAT_TPSP
                             ? GCB_PAT_DIM_TP
                         : v->kind == GCB_PAT_PP ? GCB_PAT_DIM_PP
                                                 : GCB_PAT_DIM_DP;
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
    return mpi_failed(err, "MPI_Comm_split", rc);
  sl->env = (struct gcb_coll_env){
      .comm = sl->mpi, .device = ctx->device.index, .deadline = ctx->deadline};
  if (sl->mpi == MPI_COMM_NULL)
    return GCB_OK;
  rc = MPI_Comm_rank(sl->mpi, &sl->env.rank);
  if (rc == MPI_SUCCESS)
    rc = MPI_Comm_size(sl->mpi, &sl->env.size);
  return rc == MPI_SUCCESS ? GCB_OK : mpi_failed(err, "MPI_Comm_rank", rc);
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
    gcb__pat_group(l, ctx->rank,
                   s->plan.kind == GCB_PAT_TP || s->plan.kind == GCB_PAT_TPSP
                       ? GCB_PAT_DIM_TP
                       : GCB_PAT_DIM_DP,
                   &color, &key);
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
      return mpi_failed(err, "MPI_Allreduce of node indices", rc);
    mine[-hi[0] != hi[1] ? 0 : 1] = 1;
  }
  int rc = MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, ctx->world);
  if (rc != MPI_SUCCESS)
    return mpi_failed(err, "MPI_Allreduce of group spans", rc);
  snprintf(s->span, sizeof s->span, "%s",
           all[0] && all[1] ? "mixed"
           : all[0]         ? "inter-node"
                            : "intra-node");
  return GCB_OK;
}

/* Builds the resources of variant v, phase by phase, every rank agreeing
 * after each so that none enters a collective call the others skip. */
static enum gcb_status build(struct gcb_ctx *ctx, const struct pattern_opts *o,
                             struct pattern_state *s, const struct variant *v) {
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
                           gcb__pat_prepare(ctx, &s->res, s->gemm_type,
                                            s->coll_type, s->poll_flops, err));
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
    /* Tiles of rows of m share nothing: a last, shorter tile holds its
     * own B (pattern_exec.c). */
    bytes += ((double)g->m * (double)g->k + 2 * (double)g->k * (double)g->n +
              (double)g->m * (double)g->n) *
             (double)gcb_dtype_bytes(s->gemm_type);
  }
  return bytes;
}

uint64_t gcb__pat_need(const struct gcb_ctx *ctx, const struct pattern_opts *o,
                       struct pattern_state *s, char *what, size_t len) {
  double most = 0;
  struct variant v;
  for (int i = 0; gcb__pat_nth_variant(o, i, &v); i++) {
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

/* ---- cases --------------------------------------------------------------- */

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
  return gcb__pat_check(&p->s->res, out, err);
}

enum gcb_status gcb__pat_setup(struct gcb_ctx *ctx, const void *opts,
                               void *state, int index, struct gcb_record *rec,
                               struct gcb_op *op, struct gcb_err *err) {
  const struct pattern_opts *o = opts;
  struct pattern_state *s = state;
  struct variant v;
  int vi = index / GCB_PAT_PARTS, part = index % GCB_PAT_PARTS;
  if (!gcb__pat_nth_variant(o, vi, &v))
    return gcb_err_set(err, GCB_EINTERNAL, "pattern: no case %d", index);
  if (s->current != vi) {
    gcb__pat_res_free(&s->res);
    s->span[0] = '\0';
    s->current = vi;
    s->sampled = -1;
    s->built = build(ctx, o, s, &v);
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
 * other load) reaches all three alike and cancels in the overlap. */
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
      st = gcb__pat_step(&s->res, modes[j], delay, &t, err);
    }
  gcb_timing_warmed(timing);
  for (long i = 0; i < iters && st == GCB_OK; i++)
    for (int j = 0; j < 3 && st == GCB_OK; j++) {
      int m = (int)((i + j) % 3);
      gcb_watchdog_step(ctx->watchdog);
      int rc = MPI_Barrier(ctx->world);
      if (rc != MPI_SUCCESS)
        st = mpi_failed(err, "MPI_Barrier before a step", rc);
      gcb_watchdog_step(ctx->watchdog);
      if (st == GCB_OK)
        st = gcb__pat_step(&s->res, modes[m], delay, &t, err);
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

enum gcb_status gcb__pat_measure(struct gcb_ctx *ctx, const void *opts,
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
