/*
 * netmap: the network map, rank to rank and node to node. Bandwidth (a
 * window of messages one way, then a one-byte acknowledgement, as mpiGraph
 * times a window of sends) and latency (half a ping-pong round trip) for
 * every ordered pair of ranks, and SuperBench's node-pair pattern: every
 * pair of nodes once, each pair's sendrecv busbw, so one bad NIC, cable or
 * switch port is one cell of a node x node matrix.
 *
 * The bytes travel through a collectives transport's point-to-point
 * exchange (collectives/comm.h): MPI between host buffers, or NCCL
 * between device buffers (ncclSend / ncclRecv in one group, as nccl-tests'
 * sendrecv; GPUDirect where NCCL uses it), the backend's own by default,
 * so on the cuda backend the map is of the path training uses.
 *
 * Pairs are taken in rounds of disjoint pairs (netmap_rounds.h), each round
 * once each way. Schedule `alone` runs the pairs of a round one at a time,
 * so each pair has the network to itself and a low figure belongs to that
 * pair's path or its ends; `together` runs every pair of the pair's round at
 * once, as mpiGraph runs its shifts, so every rank's link carries one flow
 * each way and contention in the fabric between them shows. One case per
 * (measure, schedule, ordered pair): the cases of one measure and schedule
 * are the src x dst matrix; params name both ends by rank, node and host.
 *
 * Schedule `nodepairs` (SuperBench's pair-wise pattern, its mpi pattern
 * generator gen_pair_wise_config) takes the nodes in the same rounds, the
 * pairs of a round at once; in a node pair local rank i of one node
 * exchanges with local rank i of the other (every GPU's NIC carries a
 * flow), each sending and receiving --size bytes at once. The pair's time
 * is the slowest of its ranks, sample by sample; its figure algbw = bytes /
 * time, which is busbw for sendrecv (nccl-tests' factor 1).
 *
 * The pair's figures, and the receivers' checks of the payload, are
 * repeated in every rank's entry, so summaries over ranks are the pair's
 * own figure (the harness records one entry per rank).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "bench/benches/netmap_rounds.h"
#include "bench/run/watchdog.h"
#include "collectives/comm.h"
#include "common/clock.h"
#include "common/mpi_err.h"
#include "reports/reports.h"

#define LATENCY_BYTES 8
#define LATENCY_TRIPS 8 /* round trips per latency sample */
/* A node's name whole, as the run context and a record's text parameter
 * hold it (64 cut a 64-byte Linux hostname to 63). */
#define HOST_MAX GCB_PARAM_TEXT_MAX
#define WINDOW_MAX 1024 /* --window's bound */

/* Measures on the command line; sendrecv is the node pairs' own. */
enum { MEASURE_BANDWIDTH, MEASURE_LATENCY, MEASURE_SENDRECV };
enum { SCHEDULE_ALONE, SCHEDULE_TOGETHER, SCHEDULE_NODEPAIRS };
#define RANK_MEASURES 2
#define RANK_SCHEDULES 2

static const char *const measure_names[] = {"bandwidth", "latency", NULL};
static const char *const measure_labels[] = {"bandwidth", "latency",
                                             "sendrecv"};
static const char *const schedule_names[] = {"alone", "together", "nodepairs",
                                             NULL};
static const char *const transport_names[] = {"auto", "mpi", "nccl", NULL};

struct netmap_opts {
  uint32_t measures, schedules;
  uint64_t size;
  long window;
  long min_nodes;
  int transport;
};

static const struct gcb_option netmap_options[] = {
    {"measure", 0, GCB_OPT_SET, offsetof(struct netmap_opts, measures), "all",
     "LIST",
     "bandwidth (a window of messages one way), latency (half a "
     "ping-pong); rank pairs only",
     measure_names, 0, 0},
    {"schedule", 0, GCB_OPT_SET, offsetof(struct netmap_opts, schedules),
     "alone,together", "LIST",
     "alone (one rank pair at a time), together (every disjoint pair of the "
     "round at once: contention), nodepairs (every node pair once, "
     "SuperBench's pair-wise pattern: sendrecv busbw, a node x node matrix)",
     schedule_names, 0, 0},
    {"size", 's', GCB_OPT_SIZE, offsetof(struct netmap_opts, size), "1M",
     "BYTES", "bytes per message (bandwidth, nodepairs; latency: 8 bytes)",
     NULL, 1, 1 << 30},
    {"window", 0, GCB_OPT_INT, offsetof(struct netmap_opts, window), "4", "N",
     "messages in flight per timed bandwidth operation (mpiGraph's window)",
     NULL, 1, WINDOW_MAX},
    {"min-nodes", 0, GCB_OPT_INT, offsetof(struct netmap_opts, min_nodes), "1",
     "N",
     "skip every case, saying why, when the ranks span fewer nodes (every "
     "suite profile gives 2: the map is of the network between nodes)",
     NULL, 1, 1e9},
    {"transport", 0, GCB_OPT_CHOICE, offsetof(struct netmap_opts, transport),
     "auto", "NAME",
     "mpi (host buffers), nccl (device buffers, ncclSend/ncclRecv) or auto "
     "(the backend's: nccl on cuda, else mpi)",
     transport_names, 0, 0},
    {0},
};

/* Every rank's node, place in its node and host name, each node's ranks,
 * and the transport, from open(). */
struct netmap_state {
  int n, nodes;
  int *node, *local; /* per rank */
  int *count;        /* per node: its ranks */
  char (*host)[HOST_MAX];
  const struct gcb_coll_ops *ops;
  struct gcb_comm *comm;
  struct gcb_coll_env env;
};

static enum gcb_status netmap_validate(const struct gcb_ctx *ctx,
                                       const void *opts, struct gcb_err *err) {
  const struct netmap_opts *o = opts;
  if (ctx->backend_ops->fits == NULL)
    return GCB_OK;
  char size[32], what[96];
  gcb_format_size(o->size, size, sizeof size);
  snprintf(what, sizeof what, "netmap --size %s x --window %ld", size,
           o->window);
  return ctx->backend_ops->fits(ctx->backend,
                                o->size * (uint64_t)(o->window + 1), what, err);
}

static void netmap_close(void *state) {
  struct netmap_state *s = state;
  if (s == NULL)
    return;
  if (s->ops != NULL && s->comm != NULL)
    s->ops->close(s->comm);
  free(s->node);
  free(s->local);
  free(s->count);
  free(s->host);
  free(s);
}

/* The transport --transport names ("auto": the backend's), usable here
 * and with a point-to-point exchange. */
static enum gcb_status pick_transport(const struct gcb_ctx *ctx,
                                      const struct netmap_opts *o,
                                      struct netmap_state *s,
                                      struct gcb_err *err) {
  const char *name = transport_names[o->transport];
  if (o->transport == 0)
    name = ctx->backend_ops->transport ? ctx->backend_ops->transport : "mpi";
  char why[160] = "";
  s->ops = gcb_coll_transport_find(name);
  if (s->ops == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "netmap: transport %s is not built in", name);
  if (!s->ops->usable(why, sizeof why))
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "netmap: transport %s cannot run here: %s", name, why);
  if (s->ops->exchange == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "netmap: transport %s has no point-to-point", name);
  return GCB_OK;
}

/* Nodes from the ranks' node indices: how many, each rank's place in its
 * node (in rank order) and each node's count. */
static enum gcb_status place_ranks(struct netmap_state *s,
                                   struct gcb_err *err) {
  for (int r = 0; r < s->n; r++)
    if (s->node[r] + 1 > s->nodes)
      s->nodes = s->node[r] + 1;
  s->count = calloc((size_t)s->nodes + 1, sizeof *s->count);
  s->local = calloc((size_t)s->n, sizeof *s->local);
  if (s->count == NULL || s->local == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "netmap: out of memory");
  for (int r = 0; r < s->n; r++)
    if (s->node[r] >= 0)
      s->local[r] = s->count[s->node[r]]++;
  return GCB_OK;
}

static enum gcb_status netmap_open(struct gcb_ctx *ctx, const void *opts,
                                   void **state, struct gcb_err *err) {
  const struct netmap_opts *o = opts;
  struct netmap_state *s = calloc(1, sizeof *s);
  *state = s;
  if (s == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "netmap: out of memory");
  if (ctx->size < 2)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "one rank: no pair of ranks to map");
  if (ctx->node_count < o->min_nodes)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "the ranks share %d node(s), --min-nodes is %ld: the "
                       "network map runs across nodes (4 n (n-1) cases over "
                       "n ranks)",
                       ctx->node_count, o->min_nodes);
  if (!(o->schedules & ((1u << RANK_SCHEDULES) - 1)) && ctx->node_count < 2)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "the ranks share one node: no pair of nodes to map "
                       "(--schedule nodepairs)");
  enum gcb_status st = pick_transport(ctx, o, s, err);
  if (st != GCB_OK)
    return st;
  s->n = ctx->size;
  s->node = calloc((size_t)s->n, sizeof *s->node);
  s->host = calloc((size_t)s->n, sizeof *s->host);
  if (s->node == NULL || s->host == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "netmap: out of memory");
  _Static_assert(sizeof ctx->hostname <= HOST_MAX, "a host name fits");
  char mine[HOST_MAX];
  snprintf(mine, sizeof mine, "%s", ctx->hostname);
  if (MPI_Allgather(&ctx->node_index, 1, MPI_INT, s->node, 1, MPI_INT,
                    ctx->world) != MPI_SUCCESS ||
      MPI_Allgather(mine, HOST_MAX, MPI_CHAR, s->host, HOST_MAX, MPI_CHAR,
                    ctx->world) != MPI_SUCCESS)
    return gcb_err_set(err, GCB_EMPI, "netmap: MPI_Allgather of hosts failed");
  if ((st = place_ranks(s, err)) != GCB_OK)
    return st;
  /* Every pair's connection made here, all at once, rather than by the
   * first pair of each round while the other ranks wait. */
  int *one = calloc((size_t)s->n * 2, sizeof *one);
  int rc =
      one ? MPI_Alltoall(one, 1, MPI_INT, one + s->n, 1, MPI_INT, ctx->world)
          : MPI_ERR_NO_MEM;
  free(one);
  if (rc != MPI_SUCCESS)
    return gcb_err_set(err, GCB_EMPI, "netmap: MPI_Alltoall failed");
  s->env = (struct gcb_coll_env){.comm = ctx->world,
                                 .rank = ctx->rank,
                                 .size = ctx->size,
                                 .device = ctx->device.index,
                                 .deadline = ctx->deadline};
  return s->ops->open(&s->env, &s->comm, err);
}

/* Node pairs: every pair of nodes once (0 under two nodes). */
static int node_pairs(int nodes) {
  return gcb_netmap_rounds(nodes) * gcb_netmap_round_size(nodes);
}

static int netmap_count(const struct gcb_ctx *ctx, const void *opts) {
  const struct netmap_opts *o = opts;
  uint32_t rank_schedules = o->schedules & ((1u << RANK_SCHEDULES) - 1);
  int n = gcb_netmap_steps(ctx->size) * __builtin_popcount(o->measures) *
          __builtin_popcount(rank_schedules);
  if (o->schedules >> SCHEDULE_NODEPAIRS & 1)
    n += node_pairs(ctx->node_count);
  return n;
}

/* Case index -> (measure, schedule, step), steps fastest; the node pairs
 * last, by round then pair (step.src and .dst: the nodes until setup
 * names their first ranks). */
struct netmap_spec {
  int measure, schedule;
  struct gcb_netmap_step step;
  int src_node, dst_node; /* nodepairs */
};

static void nth_case(const struct netmap_opts *o, int n, int nodes, int index,
                     struct netmap_spec *out) {
  int steps = gcb_netmap_steps(n), i = 0;
  for (int m = 0; m < RANK_MEASURES; m++)
    for (int s = 0; s < RANK_SCHEDULES; s++) {
      if (!(o->measures >> m & 1) || !(o->schedules >> s & 1))
        continue;
      if (index < i + steps) {
        out->measure = m, out->schedule = s;
        gcb_netmap_step(n, index - i, &out->step);
        return;
      }
      i += steps;
    }
  int per = gcb_netmap_round_size(nodes), k = index - i;
  out->measure = MEASURE_SENDRECV, out->schedule = SCHEDULE_NODEPAIRS;
  out->step = (struct gcb_netmap_step){.round = per ? k / per : 0};
  if (per == 0 ||
      !gcb_netmap_pair(nodes, k / per, k % per, &out->src_node, &out->dst_node))
    out->src_node = out->dst_node = -1;
}

/* One prepared case on this rank: its role in the case's round and the
 * outcome every rank reports. */
struct netmap_case {
  struct netmap_spec spec;
  const struct gcb_coll_ops *ops;
  struct gcb_comm *comm;
  int peer;       /* this rank's partner in the round; -1: rests */
  bool sends;     /* this rank sends in the round's phase (nodepairs: both) */
  bool active;    /* this rank's pair runs (alone: only the case's pair) */
  bool counts;    /* its times and checks are the case's (in the pair) */
  uint64_t bytes; /* per message */
  long window;    /* messages per operation (latency: round trips) */
  void *sbuf, *rbuf, *ack; /* the transport's memory */
  size_t rlen;             /* bytes of rbuf */
  unsigned char expect;    /* the pattern rbuf should hold */
  struct gcb_rank_result result;
  struct gcb_check check;
};

static unsigned char pattern_of(uint64_t seed, int src, int dst) {
  return (unsigned char)(seed * 31 + (uint64_t)src * 131 + (uint64_t)dst * 7 +
                         1);
}

/* The first rank of `node` (-1: none). */
static int first_rank(const struct netmap_state *s, int node) {
  for (int r = 0; r < s->n; r++)
    if (s->node[r] == node)
      return r;
  return -1;
}

/* The rank at place `local` of `node`, or -1. */
static int rank_at(const struct netmap_state *s, int node, int local) {
  for (int r = 0; r < s->n; r++)
    if (s->node[r] == node && s->local[r] == local)
      return r;
  return -1;
}

/* The node paired with `node` in `round` of the node pairs, or -1. */
static int node_partner(const struct netmap_state *s, int round, int node) {
  for (int k = 0; k < gcb_netmap_round_size(s->nodes); k++) {
    int a, b;
    if (gcb_netmap_pair(s->nodes, round, k, &a, &b) && (a == node || b == node))
      return a == node ? b : a;
  }
  return -1;
}

static void describe(struct gcb_record *rec, const struct netmap_state *s,
                     const struct netmap_spec *p, uint64_t bytes, long window) {
  const struct gcb_netmap_step *t = &p->step;
  bool pairs = p->schedule == SCHEDULE_NODEPAIRS;
  char size[32];
  gcb_format_size(bytes, size, sizeof size);
  snprintf(rec->label, sizeof rec->label, "%s %s %s%d%s%d %s",
           measure_labels[p->measure], schedule_names[p->schedule],
           pairs ? "n" : "", pairs ? p->src_node : t->src,
           pairs ? "<->n" : "->", pairs ? p->dst_node : t->dst, size);
  int sn = pairs ? p->src_node : s->node[t->src];
  int dn = pairs ? p->dst_node : s->node[t->dst];
  gcb_record_param_str(rec, "measure", measure_labels[p->measure]);
  gcb_record_param_str(rec, "schedule", schedule_names[p->schedule]);
  gcb_record_param_str(rec, "transport", s->ops->name);
  gcb_record_param_int(rec, "src", t->src);
  gcb_record_param_int(rec, "dst", t->dst);
  gcb_record_param_int(rec, "src_node", sn);
  gcb_record_param_int(rec, "dst_node", dn);
  gcb_record_param_str(rec, "src_host", t->src >= 0 ? s->host[t->src] : "");
  gcb_record_param_str(rec, "dst_host", t->dst >= 0 ? s->host[t->dst] : "");
  gcb_record_param_int(rec, "round", t->round);
  gcb_record_param_size(rec, "bytes", (int64_t)bytes);
  gcb_record_param_int(rec, "window", window);
  bool bw = p->measure != MEASURE_LATENCY;
  rec->work_per_op = (double)bytes * (bw ? (double)window : 1.0);
  rec->figure = (struct gcb_figure_spec){
      .unit = "GB/s",
      .scale = 1e9,
      .counted = pairs ? "bytes each rank of the node pair sends while it "
                         "receives as many (sendrecv: busbw = algbw)"
                 : bw  ? "bytes of the window's messages, one way"
                       : "bytes of one message, one way (time: half a round "
                         "trip)"};
  if (pairs) {
    int a = p->src_node, b = p->dst_node;
    int ranks = a >= 0 && b >= 0
                    ? (s->count[a] < s->count[b] ? s->count[a] : s->count[b])
                    : 0;
    gcb_record_param_int(rec, "rank_pairs", ranks);
  }
}

static enum gcb_status case_run(void *state, int reps, double *seconds,
                                struct gcb_err *err) {
  (void)state, (void)reps, (void)err;
  *seconds = 0.0; /* timed in netmap_measure */
  return GCB_OK;
}

static enum gcb_status case_check(void *state, struct gcb_check *out,
                                  struct gcb_err *err) {
  (void)err;
  const struct netmap_case *c = state;
  *out = c->check;
  out->method = "every byte received against the sender's pattern";
  return GCB_OK;
}

static void case_release(void *state) {
  struct netmap_case *c = state;
  if (c == NULL)
    return;
  void *bufs[] = {c->sbuf, c->rbuf, c->ack};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    if (bufs[i] != NULL)
      c->ops->free(c->comm, bufs[i]);
  free(c);
}

/* `len` bytes of the transport's memory at *buf, every byte `fill`. */
static enum gcb_status buffer(struct netmap_case *c, size_t len,
                              unsigned char fill, void **buf,
                              struct gcb_err *err) {
  enum gcb_status st = c->ops->alloc(c->comm, len, buf, err);
  if (st != GCB_OK)
    return st;
  unsigned char *host = malloc(len);
  if (host == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "netmap: out of memory for %zu bytes",
                       len);
  memset(host, fill, len);
  st = c->ops->upload(c->comm, *buf, host, len, err);
  free(host);
  return st;
}

/* This rank's role in a rank-pair case: its partner in the round and
 * phase, and whether it runs (alone: only the case's pair). */
static void rank_role(const struct gcb_ctx *ctx, struct netmap_case *c) {
  const struct gcb_netmap_step *t = &c->spec.step;
  if (!gcb_netmap_partner(ctx->size, t->round, t->phase, ctx->rank, &c->peer,
                          &c->sends))
    c->peer = -1;
  c->counts = ctx->rank == t->src || ctx->rank == t->dst;
  c->active =
      c->peer >= 0 && (c->counts || c->spec.schedule == SCHEDULE_TOGETHER);
}

/* In a node-pair case: local rank i of a node exchanges with local rank i
 * of its partner node in the round (every pair of the round at once). */
static void node_role(const struct gcb_ctx *ctx, const struct netmap_state *s,
                      struct netmap_case *c) {
  int mine = s->node[ctx->rank];
  int other = node_partner(s, c->spec.step.round, mine);
  c->peer = other >= 0 ? rank_at(s, other, s->local[ctx->rank]) : -1;
  c->sends = true;
  c->active = c->peer >= 0;
  c->counts =
      c->active && (mine == c->spec.src_node || mine == c->spec.dst_node);
}

/* Buffers: a sender's one message (latency: one to send, one to receive
 * the echo into), a receiver's whole window; node pairs both ways. */
static enum gcb_status case_buffers(const struct gcb_ctx *ctx,
                                    struct netmap_case *c,
                                    struct gcb_err *err) {
  /* Node pairs and ping-pongs send and receive on both ends. */
  bool both = c->spec.schedule == SCHEDULE_NODEPAIRS ||
              c->spec.measure == MEASURE_LATENCY;
  int src = c->sends ? ctx->rank : c->peer,
      dst = c->sends ? c->peer : ctx->rank;
  unsigned char mine = pattern_of(ctx->seed, src, dst);
  /* What arrives: the peer's pattern (node pairs), the sender's (a
   * receiver; a latency sender gets its own back). */
  c->expect = c->spec.schedule == SCHEDULE_NODEPAIRS
                  ? pattern_of(ctx->seed, c->peer, ctx->rank)
                  : mine;
  c->rlen = (size_t)c->bytes * (both || c->sends ? 1 : (size_t)c->window);
  enum gcb_status st = GCB_OK;
  if (c->sends || both)
    st = buffer(c, (size_t)c->bytes, mine, &c->sbuf, err);
  if (st == GCB_OK && (!c->sends || both))
    st = buffer(c, c->rlen, 0, &c->rbuf, err);
  if (st == GCB_OK && c->spec.measure == MEASURE_BANDWIDTH)
    st = buffer(c, 1, 1, &c->ack, err);
  return st;
}

static enum gcb_status netmap_setup(struct gcb_ctx *ctx, const void *opts,
                                    void *state, int index,
                                    struct gcb_record *rec, struct gcb_op *op,
                                    struct gcb_err *err) {
  const struct netmap_opts *o = opts;
  const struct netmap_state *s = state;
  struct netmap_case *c = calloc(1, sizeof *c);
  struct netmap_spec p = {0};
  nth_case(o, s->n, s->nodes, index, &p);
  if (p.schedule == SCHEDULE_NODEPAIRS) {
    p.step.src = first_rank(s, p.src_node);
    p.step.dst = first_rank(s, p.dst_node);
  }
  bool lat = p.measure == MEASURE_LATENCY;
  uint64_t bytes = lat ? LATENCY_BYTES : o->size;
  long window = lat                                ? LATENCY_TRIPS
                : p.schedule == SCHEDULE_NODEPAIRS ? 1
                                                   : o->window;
  describe(rec, s, &p, bytes, window);
  if (c == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "netmap: out of memory");
  *op = (struct gcb_op){.state = c,
                        .run = case_run,
                        .check = case_check,
                        .release = case_release};
  c->spec = p, c->bytes = bytes, c->window = window, c->peer = -1;
  c->ops = s->ops, c->comm = s->comm;
  if (p.schedule == SCHEDULE_NODEPAIRS)
    node_role(ctx, s, c);
  else
    rank_role(ctx, c);
  if (c->window < 1 || c->window > WINDOW_MAX)
    return gcb_err_set(err, GCB_EINTERNAL, "netmap: window %ld", c->window);
  return c->active ? case_buffers(ctx, c, err) : GCB_OK;
}

/* One exchange with the case's peer through the transport. */
static enum gcb_status xfer(const struct netmap_case *c, const void *send,
                            int sends, void *recv, int recvs, size_t bytes,
                            struct gcb_err *err) {
  struct gcb_coll_xfer x = {.peer = c->peer,
                            .send = send,
                            .sends = sends,
                            .recv = recv,
                            .recvs = recvs,
                            .bytes = bytes};
  return c->ops->exchange(c->comm, &x, err);
}

/* Bandwidth: the window one way, then the receiver's one-byte ack. */
static enum gcb_status window_op(const struct netmap_case *c,
                                 struct gcb_err *err) {
  int w = (int)c->window;
  enum gcb_status st = c->sends ? xfer(c, c->sbuf, w, NULL, 0, c->bytes, err)
                                : xfer(c, NULL, 0, c->rbuf, w, c->bytes, err);
  if (st != GCB_OK)
    return st;
  return c->sends ? xfer(c, NULL, 0, c->ack, 1, 1, err)
                  : xfer(c, c->ack, 1, NULL, 0, 1, err);
}

/* Latency: `window` round trips; the receiver echoes what it got. */
static enum gcb_status pingpong(const struct netmap_case *c,
                                struct gcb_err *err) {
  enum gcb_status st = GCB_OK;
  for (long i = 0; i < c->window && st == GCB_OK; i++) {
    if (c->sends) {
      st = xfer(c, c->sbuf, 1, NULL, 0, c->bytes, err);
      if (st == GCB_OK)
        st = xfer(c, NULL, 0, c->rbuf, 1, c->bytes, err);
    } else {
      st = xfer(c, NULL, 0, c->rbuf, 1, c->bytes, err);
      if (st == GCB_OK)
        st = xfer(c, c->rbuf, 1, NULL, 0, c->bytes, err);
    }
  }
  return st;
}

/* A barrier that sleeps while it waits: ranks outside the pair (alone)
 * wait here while the pair runs, and MPICH's blocking barrier would spin
 * on a CPU the pair needs where ranks outnumber cores. */
static int quiet_barrier(MPI_Comm w) {
  MPI_Request req;
  int done = 0, rc = MPI_Ibarrier(w, &req);
  const struct timespec nap = {.tv_sec = 0, .tv_nsec = 50 * 1000};
  while (rc == MPI_SUCCESS && !done) {
    rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && !done)
      nanosleep(&nap, NULL);
  }
  return rc;
}

/* One sample: every rank lines up, then the active pairs run; this rank's
 * elapsed time per operation. */
static enum gcb_status sample(struct gcb_ctx *ctx, const struct netmap_case *c,
                              double *t, struct gcb_err *err) {
  gcb_watchdog_step(ctx->watchdog);
  int rc = quiet_barrier(ctx->world);
  if (rc != MPI_SUCCESS)
    return gcb_mpi_err(err, rc, "netmap: MPI_Ibarrier");
  if (!c->active)
    return GCB_OK;
  double t0 = gcb_now_s();
  enum gcb_status st;
  if (c->spec.schedule == SCHEDULE_NODEPAIRS)
    st = xfer(c, c->sbuf, 1, c->rbuf, 1, c->bytes, err);
  else if (c->spec.measure == MEASURE_LATENCY)
    st = pingpong(c, err);
  else
    st = window_op(c, err);
  double dt = gcb_now_s() - t0;
  *t = c->spec.measure == MEASURE_LATENCY ? dt / (2.0 * (double)c->window) : dt;
  return st;
}

/* This rank's check, where it receives for the case: every byte it holds
 * is the sender's pattern. */
static enum gcb_status check_payload(struct netmap_case *c, uint64_t out[2],
                                     struct gcb_err *err) {
  unsigned char *host = malloc(c->rlen);
  if (host == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "netmap: out of memory for %zu bytes",
                       c->rlen);
  enum gcb_status st = c->ops->download(c->comm, host, c->rbuf, c->rlen, err);
  for (size_t i = 0; st == GCB_OK && i < c->rlen; i++)
    out[0] += host[i] != c->expect;
  out[1] += st == GCB_OK ? c->rlen : 0;
  free(host);
  return st;
}

/* The case's figures, the same on every rank: per sample the slowest of
 * the ranks that count (a rank pair: its sender; a node pair: all its
 * ranks), and the receivers' checks summed. */
static enum gcb_status share_outcome(struct gcb_ctx *ctx, struct netmap_case *c,
                                     double *times, long iters,
                                     struct gcb_err *err) {
  bool timer = c->counts && (c->spec.schedule == SCHEDULE_NODEPAIRS ||
                             ctx->rank == c->spec.step.src);
  uint64_t mine[2] = {0, 0}, all[2];
  enum gcb_status st = GCB_OK;
  if (c->counts && c->rbuf != NULL &&
      (c->spec.schedule == SCHEDULE_NODEPAIRS || ctx->rank == c->spec.step.dst))
    st = check_payload(c, mine, err);
  if (!timer)
    for (long i = 0; i < iters; i++)
      times[i] = 0.0;
  int rc = MPI_Allreduce(MPI_IN_PLACE, times, (int)iters, MPI_DOUBLE, MPI_MAX,
                         ctx->world);
  if (rc == MPI_SUCCESS)
    rc = MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, ctx->world);
  if (rc != MPI_SUCCESS)
    return gcb_mpi_err(err, rc, "netmap: MPI_Allreduce of a result");
  if (st != GCB_OK)
    return st;
  gcb_stats_compute(times, (size_t)iters, &c->result.seconds);
  c->result.time_s = c->result.seconds.median;
  c->check = (struct gcb_check){.checked = all[1] > 0,
                                .samples = all[1],
                                .wrong = all[0],
                                .tolerance = 0,
                                .max_error = all[0] ? 1.0 : 0.0};
  return GCB_OK;
}

static enum gcb_status netmap_measure(struct gcb_ctx *ctx, const void *opts,
                                      void *state, struct gcb_op *op,
                                      struct gcb_timing *timing,
                                      struct gcb_rank_result *out,
                                      struct gcb_err *err) {
  (void)opts, (void)state;
  struct netmap_case *c = op->state;
  const struct gcb_netmap_step *t = &c->spec.step;
  long iters = timing->iters, warmup = timing->warmup;
  timing->timed = iters;
  double ignored, *times = calloc((size_t)iters, sizeof *times);
  enum gcb_status st =
      times ? GCB_OK : gcb_err_set(err, GCB_ENOMEM, "netmap: out of memory");
  for (long i = 0; i < warmup && st == GCB_OK; i++)
    st = sample(ctx, c, &ignored, err);
  gcb_timing_warmed(timing);
  for (long i = 0; i < iters && st == GCB_OK; i++)
    st = sample(ctx, c, &times[i], err);
  if (st == GCB_OK)
    st = share_outcome(ctx, c, times, iters, err);
  free(times);
  if (st != GCB_OK) {
    gcb_err_prefix(err, "netmap %d->%d (%s)", t->src, t->dst, c->ops->name);
    return st;
  }
  *out = c->result;
  out->rank = ctx->rank;
  return GCB_OK;
}

const struct gcb_bench gcb_bench_netmap = {
    .name = "netmap",
    .summary = "network map: bandwidth and latency of every ordered pair of "
               "ranks, in rounds of disjoint pairs, alone and together, and "
               "every node pair's sendrecv busbw (GB/s, us)",
    .options = netmap_options,
    .opts_size = sizeof(struct netmap_opts),
    .validate = netmap_validate,
    .open = netmap_open,
    .close = netmap_close,
    .count = netmap_count,
    .setup = netmap_setup,
    .measure = netmap_measure,
};
