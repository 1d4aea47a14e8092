/*
 * p2p: every GPU pair of a node, both orders: bandwidth one way (uni) and
 * both ways at once (bidir, bytes of both directions counted, each once),
 * and latency; by copy engine (ce), SM copy kernel (sm) and, for
 * comparison, staged through pinned host memory (staged). Conventions as
 * nvbandwidth; one case per (mode, direction, source, destination), so the
 * cases of one mode and direction form the source x destination matrix.
 *
 * GPUs are numbered per node in PCI bus id order (nvidia-smi's order), and
 * every case names both ends by index and bus id. A pair is measured by the
 * lowest local rank that sees both GPUs; when no rank does (one GPU per
 * rank), by the rank owning the source, with the destination's buffer
 * exported by its owner through CUDA IPC (handles sent over the node
 * communicator). Every node measures the same pair at once.
 *
 * Within today's harness, a record has one entry per rank: the measuring
 * rank's statistics and check are broadcast to the other ranks of its
 * node, whose entries repeat them, so summaries over ranks are summaries
 * over nodes (a node without the pair reports no samples).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "reports/reports.h"
#include "topo/topo.h"

#define MAX_GPUS 16
#define LATENCY_BYTES 8

struct p2p_opts {
  uint32_t modes, dirs;
  uint64_t size;
};

static const char *const mode_names[] = {
#define GCB__P2P_MODE_NAME(id, name, what) name,
    GCB_P2P_MODE_LIST(GCB__P2P_MODE_NAME)
#undef GCB__P2P_MODE_NAME
        NULL};
static const char *const dir_names[] = {
#define GCB__P2P_DIR_NAME(id, name, what) name,
    GCB_P2P_DIR_LIST(GCB__P2P_DIR_NAME)
#undef GCB__P2P_DIR_NAME
        NULL};

static const struct gcb_option p2p_options[] = {
    {"mode", 0, GCB_OPT_SET, offsetof(struct p2p_opts, modes), "all", "LIST",
     "ce (copy engine), sm (copy kernel), staged (through host memory)",
     mode_names, 0, 0},
    {"direction", 0, GCB_OPT_SET, offsetof(struct p2p_opts, dirs), "all",
     "LIST", "uni, bidir (both ways at once), latency", dir_names, 0, 0},
    {"size", 's', GCB_OPT_SIZE, offsetof(struct p2p_opts, size), "64M", "BYTES",
     "bytes per copy and direction (latency: 8 bytes)", NULL, 16, 0},
    {0},
};

/* What every rank of a node knows about the node's GPUs. */
struct node_gpus {
  int n;                  /* this node's GPUs */
  int max;                /* the most GPUs any node has */
  char bus[MAX_GPUS][32]; /* by node index: bus id order */
  int seen[MAX_GPUS][64]; /* ordinal of the GPU on each local rank; -1 */
  int local_size;
};

struct p2p_spec {
  int mode, dir, src, dst;
};

/* ---- discovery --------------------------------------------------------------
 */

static int find_bus(const struct node_gpus *g, const char *bus) {
  for (int i = 0; i < g->n; i++)
    if (strcmp(g->bus[i], bus) == 0)
      return i;
  return -1;
}

static int by_bus(const void *a, const void *b) {
  return strcmp(a, b);
}

/* Gathers each local rank's GPUs (bus ids) and numbers the node's GPUs in
 * bus id order. Collective over the world (for the maximum). */
static enum gcb_status discover(const struct gcb_ctx *ctx, struct node_gpus *g,
                                struct gcb_err *err) {
  struct gcb_gpu_ident mine[MAX_GPUS], *all = NULL;
  int count = 0;
  enum gcb_status st = GCB_OK;

  memset(g, 0, sizeof *g);
  if (ctx->local_size > 64)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "p2p: more than 64 ranks on "
                       "a node");
  memset(mine, 0, sizeof mine);
  if (ctx->backend_ops->gpus != NULL)
    st = ctx->backend_ops->gpus(ctx->backend, mine, MAX_GPUS, &count, err);
  all = calloc((size_t)ctx->local_size * MAX_GPUS, sizeof *all);
  if (all == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "p2p: out of memory");
  for (int i = count; i < MAX_GPUS; i++)
    mine[i].ordinal = -1; /* padding: no GPU */
  if (MPI_Allgather(mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine,
                    MPI_BYTE, ctx->node) != MPI_SUCCESS)
    st = gcb_err_set(err, GCB_EMPI, "p2p: MPI_Allgather of GPU lists failed");
  g->local_size = ctx->local_size;
  for (int r = 0; st == GCB_OK && r < ctx->local_size; r++)
    for (int k = 0; k < MAX_GPUS; k++) {
      const struct gcb_gpu_ident *x = &all[r * MAX_GPUS + k];
      if (x->ordinal >= 0 && find_bus(g, x->bus_id) < 0 && g->n < MAX_GPUS)
        snprintf(g->bus[g->n++], sizeof g->bus[0], "%s", x->bus_id);
    }
  qsort(g->bus, (size_t)g->n, sizeof g->bus[0], by_bus);
  for (int i = 0; i < MAX_GPUS; i++)
    for (int r = 0; r < 64; r++)
      g->seen[i][r] = -1;
  for (int r = 0; st == GCB_OK && r < ctx->local_size; r++)
    for (int k = 0; k < MAX_GPUS; k++) {
      const struct gcb_gpu_ident *x = &all[r * MAX_GPUS + k];
      int i = x->ordinal >= 0 ? find_bus(g, x->bus_id) : -1;
      if (i >= 0 && g->seen[i][r] < 0)
        g->seen[i][r] = x->ordinal;
    }
  free(all);
  if (st == GCB_OK && MPI_Allreduce(&g->n, &g->max, 1, MPI_INT, MPI_MAX,
                                    ctx->world) != MPI_SUCCESS)
    st = gcb_err_set(err, GCB_EMPI, "p2p: MPI_Allreduce of GPU counts failed");
  return st;
}

/* The copy's buffer pair (2 x --size, on each GPU) fits the GPU's free
 * memory. */
static enum gcb_status p2p_validate(const struct gcb_ctx *ctx, const void *opts,
                                    struct gcb_err *err) {
  const struct p2p_opts *o = opts;
  if (ctx->backend_ops->p2p == NULL || ctx->backend_ops->fits == NULL)
    return GCB_OK;
  if (o->size > UINT64_MAX / 2)
    return gcb_err_set(err, GCB_EUSAGE, "--size %llu: too large",
                       (unsigned long long)o->size);
  char size[32], what[64];
  gcb_format_size(o->size, size, sizeof size);
  snprintf(what, sizeof what, "p2p --size %s (two buffers)", size);
  return ctx->backend_ops->fits(ctx->backend, 2 * o->size, what, err);
}

static enum gcb_status p2p_open(struct gcb_ctx *ctx, const void *opts,
                                void **state, struct gcb_err *err) {
  (void)opts;
  struct node_gpus *g = calloc(1, sizeof *g);
  enum gcb_status st;

  *state = g;
  if (g == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "p2p: out of memory");
  if (ctx->backend_ops->p2p == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "the %s backend has no GPU peer copies",
                       ctx->backend_ops->name);
  if ((st = discover(ctx, g, err)) != GCB_OK)
    return st;
  if (g->max < 2)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "no node has two GPUs: no pairs to measure");
  return GCB_OK;
}

static void p2p_close(void *state) {
  free(state);
}

/* ---- cases
 * --------------------------------------------------------------------- */

static int pairs(int n) {
  return n * (n - 1);
}

/* Case index -> (mode, direction, ordered pair), pairs fastest, so one
 * mode and direction's cases are one matrix. */
static bool nth_case(const struct p2p_opts *o, int gpus, int index,
                     struct p2p_spec *out) {
  int i = 0;
  for (int m = 0; m < GCB_P2P_MODE_COUNT; m++)
    for (int d = 0; d < GCB_P2P_DIR_COUNT; d++) {
      if (!(o->modes >> m & 1) || !(o->dirs >> d & 1))
        continue;
      if (index < i + pairs(gpus)) {
        int k = index - i, src = k / (gpus - 1), dst = k % (gpus - 1);
        *out = (struct p2p_spec){m, d, src, dst >= src ? dst + 1 : dst};
        return true;
      }
      i += pairs(gpus);
    }
  return false;
}

/*
 * The case count needs the GPU count of the largest node, which only a
 * collective can tell: count() is called once per run on every rank at the
 * same point (after open), so it runs the discovery again. A count() that
 * saw open()'s state would not need to (proposed to the harness owner).
 */
static int p2p_count(const struct gcb_ctx *ctx, const void *opts) {
  const struct p2p_opts *o = opts;
  struct node_gpus g;
  struct gcb_err err = {0};
  if (discover(ctx, &g, &err) != GCB_OK || g.max < 2)
    return 0;
  return pairs(g.max) * __builtin_popcount(o->modes) *
         __builtin_popcount(o->dirs);
}

/* Who does what for a pair on this node: the measuring local rank and its
 * ordinals, and the exporting local rank when the peer GPU is remote.
 * Returns false when this node lacks the pair. */
struct roles {
  int initiator, src_ord, dst_ord; /* dst_ord -1: remote */
  int exporter, exp_ord;           /* -1: none */
};

static bool assign(const struct node_gpus *g, int src, int dst,
                   struct roles *r) {
  *r = (struct roles){-1, -1, -1, -1, -1};
  if (src >= g->n || dst >= g->n)
    return false;
  for (int k = 0; k < g->local_size && r->initiator < 0; k++)
    if (g->seen[src][k] >= 0 && g->seen[dst][k] >= 0)
      *r = (struct roles){k, g->seen[src][k], g->seen[dst][k], -1, -1};
  for (int k = 0; k < g->local_size && r->initiator < 0; k++)
    if (g->seen[src][k] >= 0)
      r->initiator = k, r->src_ord = g->seen[src][k];
  for (int k = 0; r->dst_ord < 0 && r->exporter < 0 && k < g->local_size; k++)
    if (g->seen[dst][k] >= 0)
      r->exporter = k, r->exp_ord = g->seen[dst][k];
  return r->initiator >= 0 && (r->dst_ord >= 0 || r->exporter >= 0);
}

/* What the measuring rank tells the rest of its node; plain bytes. */
struct outcome {
  int status;
  char msg[GCB_ERRMSG_MAX];
  struct gcb_rank_result result;
  struct gcb_check check;
  char method[96];
};

/* The harness's view of one case on this rank: the backend operation on
 * the measuring rank, the export holder on the exporting one, and the
 * outcome every rank of the node reports. */
struct p2p_case {
  struct gcb_op inner, holder;
  bool measures;
  int root;      /* measuring local rank; -1: this node lacks the pair */
  bool ipc;      /* the peer buffer travels by CUDA IPC over `node` */
  MPI_Comm node; /* ... whose ranks all release the case together */
  struct outcome out;
};

static enum gcb_status case_run(void *state, int reps, double *seconds,
                                struct gcb_err *err) {
  struct p2p_case *c = state;
  if (c->measures)
    return c->inner.run(c->inner.state, reps, seconds, err);
  *seconds = 0.0;
  return GCB_OK;
}

static enum gcb_status case_check(void *state, struct gcb_check *out,
                                  struct gcb_err *err) {
  (void)err;
  struct p2p_case *c = state;
  *out = c->out.check;
  out->method = c->out.check.checked ? c->out.method : NULL;
  return GCB_OK;
}

static void case_release(void *state) {
  struct p2p_case *c = state;
  if (c == NULL)
    return;
  /* The importer closes its IPC mapping before the exporter frees the
   * buffer (CUDA: freeing memory another process still has open is
   * undefined): every rank of the node passes the barrier only after its
   * own imports are closed, and only then are the exports freed. */
  gcb_op_release(&c->inner);
  if (c->ipc)
    (void)MPI_Barrier(c->node); /* teardown: nothing to do on failure */
  gcb_op_release(&c->holder);
  free(c);
}

/* ---- setup and measurement
 * ---------------------------------------------------- */

/* The pair's path class as the rank's topology sees it ("NV18", "PIX",
 * "PXB", "PHB", "NODE", "SYS", gcb_topo_path_label), or "" when the
 * topology does not know both GPUs. Every node measures the same pair;
 * the params are written once, so they carry the writing rank's node's
 * class (the report prefers each node's topology where it has one). A
 * run without it read "unknown path" in every p2p finding. */
static void path_of(const struct gcb_ctx *ctx, const struct node_gpus *g,
                    const struct p2p_spec *s, char *buf, size_t len) {
  struct gcb_topo_path p;
  struct gcb_err err = {0};
  buf[0] = '\0';
  if (ctx->topo == NULL || s->src >= g->n || s->dst >= g->n)
    return;
  int a = gcb_topo_find_gpu_by_busid(ctx->topo, g->bus[s->src]);
  int b = gcb_topo_find_gpu_by_busid(ctx->topo, g->bus[s->dst]);
  if (a < 0 || b < 0 ||
      gcb_topo_path(ctx->topo, (struct gcb_topo_ref){GCB_TOPO_GPU, a},
                    (struct gcb_topo_ref){GCB_TOPO_GPU, b}, &p, &err) != GCB_OK)
    return;
  gcb_topo_path_label(&p, buf, len);
}

static void describe(const struct gcb_ctx *ctx, struct gcb_record *rec,
                     const struct node_gpus *g, const struct p2p_spec *s,
                     uint64_t bytes) {
  char size[32], path[32];
  gcb_format_size(bytes, size, sizeof size);
  snprintf(rec->label, sizeof rec->label, "%s %s %d->%d %s",
           mode_names[s->mode], dir_names[s->dir], s->src, s->dst, size);
  gcb_record_param_str(rec, "mode", mode_names[s->mode]);
  gcb_record_param_str(rec, "direction", dir_names[s->dir]);
  gcb_record_param_int(rec, "src", s->src);
  gcb_record_param_int(rec, "dst", s->dst);
  gcb_record_param_str(rec, "src_bus_id", s->src < g->n ? g->bus[s->src] : "");
  gcb_record_param_str(rec, "dst_bus_id", s->dst < g->n ? g->bus[s->dst] : "");
  gcb_record_param_size(rec, "bytes", (int64_t)bytes);
  path_of(ctx, g, s, path, sizeof path);
  if (path[0] != '\0')
    gcb_record_param_str(rec, "path", path);
  rec->work_per_op = (double)bytes * (s->dir == GCB_P2P_DIR_BIDIR ? 2.0 : 1.0);
  rec->figure = (struct gcb_figure_spec){
      .unit = "GB/s",
      .scale = 1e9,
      .counted = "bytes copied, once per direction (bidir: both summed; "
                 "bidir_leg: src to dst alone, timed while dst to src runs)"};
}

/* The exporting rank's buffer handle, sent to the node; its status too, so
 * that a failed export fails the measuring rank's setup, not a hang. */
static enum gcb_status share_export(struct gcb_ctx *ctx, struct p2p_case *c,
                                    const struct roles *r, uint64_t bytes,
                                    struct gcb_ipc_buffer *buf,
                                    struct gcb_err *err) {
  struct {
    int status;
    char msg[GCB_ERRMSG_MAX];
    struct gcb_ipc_buffer buf;
  } msg = {0};
  if (ctx->local_rank == r->exporter) {
    msg.status = ctx->backend_ops->p2p_export(
        ctx->backend, r->exp_ord, bytes,
        ctx->seed ^ UINT64_C(0x5851f42d4c957f2d), &msg.buf, &c->holder, err);
    snprintf(msg.msg, sizeof msg.msg, "%s", msg.status ? err->msg : "");
  }
  if (MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, r->exporter, ctx->node) !=
      MPI_SUCCESS)
    return gcb_err_set(err, GCB_EMPI, "p2p: MPI_Bcast of an IPC handle failed");
  *buf = msg.buf;
  if (msg.status != GCB_OK && ctx->local_rank != r->exporter)
    gcb_err_set(err, (enum gcb_status)msg.status, "%s", msg.msg);
  return (enum gcb_status)msg.status;
}

static enum gcb_status p2p_setup(struct gcb_ctx *ctx, const void *opts,
                                 void *state, int index, struct gcb_record *rec,
                                 struct gcb_op *op, struct gcb_err *err) {
  const struct p2p_opts *o = opts;
  const struct node_gpus *g = state;
  struct p2p_spec s = {0};
  struct roles r;
  struct gcb_ipc_buffer remote;
  struct p2p_case *c = calloc(1, sizeof *c);
  enum gcb_status st = GCB_OK;

  nth_case(o, g->max, index, &s);
  uint64_t bytes = s.dir == GCB_P2P_DIR_LATENCY ? LATENCY_BYTES : o->size;
  describe(ctx, rec, g, &s, bytes);
  if (c == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "p2p: out of memory");
  *op = (struct gcb_op){.state = c,
                        .run = case_run,
                        .check = case_check,
                        .release = case_release};
  bool have = assign(g, s.src, s.dst, &r);
  c->root = have ? r.initiator : -1;
  c->measures = have && ctx->local_rank == r.initiator;
  if (have && r.dst_ord < 0 && s.mode != GCB_P2P_STAGED) {
    c->ipc = true; /* every rank of the node takes this branch */
    c->node = ctx->node;
    st = share_export(ctx, c, &r, bytes, &remote, err);
  }
  if (!c->measures)
    return GCB_OK; /* the measuring rank reports any failure */
  struct gcb_p2p_params p = {.mode = (enum gcb_p2p_mode)s.mode,
                             .direction = (enum gcb_p2p_dir)s.dir,
                             .bytes = bytes,
                             .seed = ctx->seed + (uint64_t)ctx->rank,
                             .src = r.src_ord,
                             .dst = r.dst_ord,
                             .remote = r.dst_ord < 0 ? &remote : NULL};
  if (st == GCB_OK)
    st = ctx->backend_ops->p2p(ctx->backend, &p, &c->inner, err);
  return st;
}

/* The measuring rank: warm-up, `iters` single timed runs, then the check. */
static void measure_here(struct gcb_ctx *ctx, struct p2p_case *c,
                         struct gcb_timing *timing, struct gcb_err *err) {
  long iters = timing->iters, warmup = timing->warmup;
  struct outcome *o = &c->out;
  double ignored, *t = calloc((size_t)iters, sizeof *t);
  enum gcb_status st =
      t ? GCB_OK : gcb_err_set(err, GCB_ENOMEM, "p2p: out of memory");
  (void)ctx;
  for (long i = 0; i < warmup && st == GCB_OK; i++)
    st = c->inner.run(c->inner.state, 1, &ignored, err);
  gcb_timing_warmed(timing);
  for (long i = 0; i < iters && st == GCB_OK; i++)
    st = c->inner.run(c->inner.state, 1, &t[i], err);
  if (st == GCB_OK) {
    gcb_stats_compute(t, (size_t)iters, &o->result.seconds);
    o->result.time_s = o->result.seconds.median;
    if (c->inner.check)
      st = c->inner.check(c->inner.state, &o->check, err);
    snprintf(o->method, sizeof o->method, "%s",
             o->check.method ? o->check.method : "");
    o->check.method = NULL; /* pointers do not travel */
  }
  o->status = st;
  snprintf(o->msg, sizeof o->msg, "%s", st != GCB_OK ? err->msg : "");
  free(t);
}

static enum gcb_status p2p_measure(struct gcb_ctx *ctx, const void *opts,
                                   void *state, struct gcb_op *op,
                                   struct gcb_timing *t,
                                   struct gcb_rank_result *out,
                                   struct gcb_err *err) {
  (void)opts, (void)state;
  struct p2p_case *c = op->state;
  t->timed = t->iters;
  if (c->measures)
    measure_here(ctx, c, t, err);
  else /* its GPU may be the pair's other end: sampled throughout */
    gcb_timing_warmed(t);
  if (c->root >= 0 && MPI_Bcast(&c->out, (int)sizeof c->out, MPI_BYTE, c->root,
                                ctx->node) != MPI_SUCCESS)
    return gcb_err_set(err, GCB_EMPI, "p2p: MPI_Bcast of a result failed");
  *out = c->out.result;
  if (c->out.status != GCB_OK)
    return gcb_err_set(err, (enum gcb_status)c->out.status, "%s", c->out.msg);
  return GCB_OK;
}

const struct gcb_bench gcb_bench_p2p = {
    .name = "p2p",
    .summary = "GPU pairs of each node: uni/bidirectional bandwidth and "
               "latency by copy engine, SM kernel, staged (GB/s, us)",
    .options = p2p_options,
    .opts_size = sizeof(struct p2p_opts),
    .validate = p2p_validate,
    .open = p2p_open,
    .close = p2p_close,
    .count = p2p_count,
    .setup = p2p_setup,
    .measure = p2p_measure,
};
