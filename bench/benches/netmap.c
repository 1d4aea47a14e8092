/*
 * netmap: the network map, rank to rank. Bandwidth (a window of messages
 * one way, then a one-byte acknowledgement, as mpiGraph times a window of
 * sends) and latency (half a ping-pong round trip) for every ordered pair
 * of ranks, over MPI point-to-point on any backend's ranks, so hosts and
 * their links can be told apart on CPU clusters and in CI.
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
 * The pair's sender times it; its statistics, and the receiver's check of
 * the payload, are repeated in every rank's entry, so summaries over ranks
 * are the pair's own figure (the harness records one entry per rank).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "bench/benches/netmap_rounds.h"
#include "bench/run/watchdog.h"
#include "reports/reports.h"

#define LATENCY_BYTES 8
#define LATENCY_TRIPS 8 /* round trips per latency sample */
#define TAG_DATA 71
#define TAG_ACK 72
#define HOST_MAX 64
#define WINDOW_MAX 1024 /* --window's bound */

enum { MEASURE_BANDWIDTH, MEASURE_LATENCY, MEASURE_COUNT };
enum { SCHEDULE_ALONE, SCHEDULE_TOGETHER, SCHEDULE_COUNT };

static const char *const measure_names[] = {"bandwidth", "latency", NULL};
static const char *const schedule_names[] = {"alone", "together", NULL};

struct netmap_opts {
  uint32_t measures, schedules;
  uint64_t size;
  long window;
  long min_nodes;
};

static const struct gcb_option netmap_options[] = {
    {"measure", 0, GCB_OPT_SET, offsetof(struct netmap_opts, measures), "all",
     "LIST",
     "bandwidth (a window of messages one way), latency (half a "
     "ping-pong)",
     measure_names, 0, 0},
    {"schedule", 0, GCB_OPT_SET, offsetof(struct netmap_opts, schedules), "all",
     "LIST",
     "alone (one pair at a time), together (every disjoint pair of the "
     "round at once: contention)",
     schedule_names, 0, 0},
    {"size", 's', GCB_OPT_SIZE, offsetof(struct netmap_opts, size), "1M",
     "BYTES", "bytes per message (bandwidth; latency: 8 bytes)", NULL, 1,
     1 << 30},
    {"window", 0, GCB_OPT_INT, offsetof(struct netmap_opts, window), "4", "N",
     "messages in flight per timed bandwidth operation (mpiGraph's window)",
     NULL, 1, WINDOW_MAX},
    {"min-nodes", 0, GCB_OPT_INT, offsetof(struct netmap_opts, min_nodes), "1",
     "N",
     "skip every case, saying why, when the ranks span fewer nodes (every "
     "suite profile gives 2: the map is of the network between nodes)",
     NULL, 1, 1e9},
    {0},
};

/* Every rank's node and host name, from open(). */
struct netmap_state {
  int n;
  int *node;
  char (*host)[HOST_MAX];
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
  free(s->node);
  free(s->host);
  free(s);
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
  s->n = ctx->size;
  s->node = calloc((size_t)s->n, sizeof *s->node);
  s->host = calloc((size_t)s->n, sizeof *s->host);
  if (s->node == NULL || s->host == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "netmap: out of memory");
  char mine[HOST_MAX];
  snprintf(mine, sizeof mine, "%s", ctx->hostname);
  if (MPI_Allgather(&ctx->node_index, 1, MPI_INT, s->node, 1, MPI_INT,
                    ctx->world) != MPI_SUCCESS ||
      MPI_Allgather(mine, HOST_MAX, MPI_CHAR, s->host, HOST_MAX, MPI_CHAR,
                    ctx->world) != MPI_SUCCESS)
    return gcb_err_set(err, GCB_EMPI, "netmap: MPI_Allgather of hosts failed");
  /* Every pair's connection made here, all at once, rather than by the
   * first pair of each round while the other ranks wait. */
  int *one = calloc((size_t)s->n * 2, sizeof *one);
  int rc =
      one ? MPI_Alltoall(one, 1, MPI_INT, one + s->n, 1, MPI_INT, ctx->world)
          : MPI_ERR_NO_MEM;
  free(one);
  if (rc != MPI_SUCCESS)
    return gcb_err_set(err, GCB_EMPI, "netmap: MPI_Alltoall failed");
  return GCB_OK;
}

static int netmap_count(const struct gcb_ctx *ctx, const void *opts) {
  const struct netmap_opts *o = opts;
  return gcb_netmap_steps(ctx->size) * __builtin_popcount(o->measures) *
         __builtin_popcount(o->schedules);
}

/* Case index -> (measure, schedule, step), steps fastest. */
struct netmap_spec {
  int measure, schedule;
  struct gcb_netmap_step step;
};

static void nth_case(const struct netmap_opts *o, int n, int index,
                     struct netmap_spec *out) {
  int steps = gcb_netmap_steps(n), i = 0;
  for (int m = 0; m < MEASURE_COUNT; m++)
    for (int s = 0; s < SCHEDULE_COUNT; s++) {
      if (!(o->measures >> m & 1) || !(o->schedules >> s & 1))
        continue;
      if (index < i + steps) {
        out->measure = m, out->schedule = s;
        gcb_netmap_step(n, index - i, &out->step);
        return;
      }
      i += steps;
    }
}

/* One prepared case on this rank: its role in the case's round and the
 * outcome every rank reports. */
struct netmap_case {
  struct netmap_spec spec;
  int peer;       /* this rank's partner in the round; -1: rests */
  bool sends;     /* this rank sends in the round's phase */
  bool active;    /* this rank's pair runs (alone: only the case's pair) */
  uint64_t bytes; /* per message */
  long window;    /* messages per operation (latency: round trips) */
  unsigned char *buf, pattern;
  struct gcb_rank_result result;
  struct gcb_check check;
};

static unsigned char pattern_of(uint64_t seed, int src, int dst) {
  return (unsigned char)(seed * 31 + (uint64_t)src * 131 + (uint64_t)dst * 7 +
                         1);
}

static void describe(struct gcb_record *rec, const struct netmap_state *s,
                     const struct netmap_spec *p, uint64_t bytes, long window) {
  const struct gcb_netmap_step *t = &p->step;
  char size[32];
  gcb_format_size(bytes, size, sizeof size);
  snprintf(rec->label, sizeof rec->label, "%s %s %d->%d %s",
           measure_names[p->measure], schedule_names[p->schedule], t->src,
           t->dst, size);
  gcb_record_param_str(rec, "measure", measure_names[p->measure]);
  gcb_record_param_str(rec, "schedule", schedule_names[p->schedule]);
  gcb_record_param_int(rec, "src", t->src);
  gcb_record_param_int(rec, "dst", t->dst);
  gcb_record_param_int(rec, "src_node", s->node[t->src]);
  gcb_record_param_int(rec, "dst_node", s->node[t->dst]);
  gcb_record_param_str(rec, "src_host", s->host[t->src]);
  gcb_record_param_str(rec, "dst_host", s->host[t->dst]);
  gcb_record_param_int(rec, "round", t->round);
  gcb_record_param_size(rec, "bytes", (int64_t)bytes);
  gcb_record_param_int(rec, "window", window);
  bool bw = p->measure == MEASURE_BANDWIDTH;
  rec->work_per_op = (double)bytes * (bw ? (double)window : 1.0);
  rec->figure = (struct gcb_figure_spec){
      .unit = "GB/s",
      .scale = 1e9,
      .counted = bw ? "bytes of the window's messages, one way"
                    : "bytes of one message, one way (time: half a round "
                      "trip)"};
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
  free(c->buf);
  free(c);
}

static enum gcb_status netmap_setup(struct gcb_ctx *ctx, const void *opts,
                                    void *state, int index,
                                    struct gcb_record *rec, struct gcb_op *op,
                                    struct gcb_err *err) {
  const struct netmap_opts *o = opts;
  const struct netmap_state *s = state;
  struct netmap_case *c = calloc(1, sizeof *c);
  struct netmap_spec p = {0};
  nth_case(o, s->n, index, &p);
  bool bw = p.measure == MEASURE_BANDWIDTH;
  uint64_t bytes = bw ? o->size : LATENCY_BYTES;
  long window = bw ? o->window : LATENCY_TRIPS;
  describe(rec, s, &p, bytes, window);
  if (c == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "netmap: out of memory");
  *op = (struct gcb_op){.state = c,
                        .run = case_run,
                        .check = case_check,
                        .release = case_release};
  c->spec = p, c->bytes = bytes, c->window = window, c->peer = -1;
  if (!gcb_netmap_partner(s->n, p.step.round, p.step.phase, ctx->rank, &c->peer,
                          &c->sends))
    c->peer = -1;
  bool mine = ctx->rank == p.step.src || ctx->rank == p.step.dst;
  c->active = c->peer >= 0 && (mine || p.schedule == SCHEDULE_TOGETHER);
  if (!c->active)
    return GCB_OK;
  /* Sender: one message's worth; receiver: the whole window. */
  size_t len = (size_t)bytes * (c->sends || !bw ? 1 : (size_t)window);
  c->buf = malloc(len);
  if (c->buf == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "netmap: out of memory for %zu bytes",
                       len);
  int src = c->sends ? ctx->rank : c->peer,
      dst = c->sends ? c->peer : ctx->rank;
  c->pattern = pattern_of(ctx->seed, src, dst);
  memset(c->buf, c->sends ? c->pattern : 0, len);
  return GCB_OK;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Waits for the first n requests (MPI_Waitall with MPI_STATUSES_IGNORE
 * trips GCC's access checks on MPICH's header); keeps the first error. */
static int wait_all(MPI_Request *req, long n, int rc) {
  for (long i = 0; i < n; i++) {
    int w = MPI_Wait(&req[i], MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
      rc = w;
  }
  return rc;
}

static int mpi_send_window(const struct netmap_case *c, MPI_Comm w) {
  MPI_Request req[WINDOW_MAX];
  int rc = MPI_SUCCESS;
  long posted = 0;
  if (c->window < 1 || c->window > WINDOW_MAX)
    return MPI_ERR_COUNT;
  for (long i = 0; i < c->window && rc == MPI_SUCCESS; i++)
    if ((rc = MPI_Isend(c->buf, (int)c->bytes, MPI_BYTE, c->peer, TAG_DATA, w,
                        &req[i])) == MPI_SUCCESS)
      posted++;
  rc = wait_all(req, posted, rc);
  char ack;
  if (rc == MPI_SUCCESS)
    rc = MPI_Recv(&ack, 1, MPI_BYTE, c->peer, TAG_ACK, w, MPI_STATUS_IGNORE);
  return rc;
}

static int mpi_recv_window(const struct netmap_case *c, MPI_Comm w) {
  MPI_Request req[WINDOW_MAX];
  int rc = MPI_SUCCESS;
  long posted = 0;
  if (c->window < 1 || c->window > WINDOW_MAX)
    return MPI_ERR_COUNT;
  for (long i = 0; i < c->window && rc == MPI_SUCCESS; i++)
    if ((rc = MPI_Irecv(c->buf + (size_t)i * c->bytes, (int)c->bytes, MPI_BYTE,
                        c->peer, TAG_DATA, w, &req[i])) == MPI_SUCCESS)
      posted++;
  rc = wait_all(req, posted, rc);
  char ack = 1;
  if (rc == MPI_SUCCESS)
    rc = MPI_Send(&ack, 1, MPI_BYTE, c->peer, TAG_ACK, w);
  return rc;
}

/* Latency: `window` round trips; the receiver echoes what it got. */
static int mpi_pingpong(const struct netmap_case *c, MPI_Comm w) {
  int rc = MPI_SUCCESS;
  for (long i = 0; i < c->window && rc == MPI_SUCCESS; i++) {
    if (c->sends) {
      rc = MPI_Send(c->buf, (int)c->bytes, MPI_BYTE, c->peer, TAG_DATA, w);
      if (rc == MPI_SUCCESS)
        rc = MPI_Recv(c->buf, (int)c->bytes, MPI_BYTE, c->peer, TAG_ACK, w,
                      MPI_STATUS_IGNORE);
    } else {
      rc = MPI_Recv(c->buf, (int)c->bytes, MPI_BYTE, c->peer, TAG_DATA, w,
                    MPI_STATUS_IGNORE);
      if (rc == MPI_SUCCESS)
        rc = MPI_Send(c->buf, (int)c->bytes, MPI_BYTE, c->peer, TAG_ACK, w);
    }
  }
  return rc;
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

/* One sample: every rank lines up, then the active pairs run; the sender's
 * elapsed time per operation. */
static int sample(struct gcb_ctx *ctx, const struct netmap_case *c, double *t) {
  MPI_Comm w = ctx->world;
  gcb_watchdog_step(ctx->watchdog);
  int rc = quiet_barrier(w);
  if (rc != MPI_SUCCESS || !c->active)
    return rc;
  double t0 = now();
  if (c->spec.measure == MEASURE_LATENCY)
    rc = mpi_pingpong(c, w);
  else
    rc = c->sends ? mpi_send_window(c, w) : mpi_recv_window(c, w);
  double dt = now() - t0;
  *t = c->spec.measure == MEASURE_LATENCY ? dt / (2.0 * (double)c->window) : dt;
  return rc;
}

/* The receiver's check: every byte it holds is the sender's pattern. */
static void check_payload(struct netmap_case *c) {
  size_t len = (size_t)c->bytes *
               (c->spec.measure == MEASURE_LATENCY ? 1 : (size_t)c->window);
  uint64_t wrong = 0;
  for (size_t i = 0; i < len; i++)
    wrong += c->buf[i] != c->pattern;
  c->check = (struct gcb_check){
      .checked = true, .samples = len, .wrong = wrong, .tolerance = 0};
  c->check.max_error = wrong ? 1.0 : 0.0;
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
  int rc = times ? MPI_SUCCESS : MPI_ERR_NO_MEM;
  for (long i = 0; i < warmup && rc == MPI_SUCCESS; i++)
    rc = sample(ctx, c, &ignored);
  gcb_timing_warmed(timing);
  for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
    rc = sample(ctx, c, &times[i]);
  if (rc == MPI_SUCCESS && ctx->rank == t->src) {
    gcb_stats_compute(times, (size_t)iters, &c->result.seconds);
    c->result.time_s = c->result.seconds.median;
  }
  if (rc == MPI_SUCCESS && ctx->rank == t->dst)
    check_payload(c);
  free(times);
  if (rc != MPI_SUCCESS)
    return gcb_err_set(err, GCB_EMPI,
                       "netmap %d->%d: MPI point-to-point failed", t->src,
                       t->dst);
  /* The pair's figures and check go into every rank's entry. */
  if (MPI_Bcast(&c->result, (int)sizeof c->result, MPI_BYTE, t->src,
                ctx->world) != MPI_SUCCESS ||
      MPI_Bcast(&c->check, (int)sizeof c->check, MPI_BYTE, t->dst,
                ctx->world) != MPI_SUCCESS)
    return gcb_err_set(err, GCB_EMPI, "netmap: MPI_Bcast of a result failed");
  c->check.method = NULL; /* pointers do not travel; case_check sets it */
  *out = c->result;
  out->rank = ctx->rank;
  return GCB_OK;
}

const struct gcb_bench gcb_bench_netmap = {
    .name = "netmap",
    .summary = "network map: bandwidth and latency of every ordered pair of "
               "ranks, in rounds of disjoint pairs, alone and together "
               "(GB/s, us)",
    .options = netmap_options,
    .opts_size = sizeof(struct netmap_opts),
    .validate = netmap_validate,
    .open = netmap_open,
    .close = netmap_close,
    .count = netmap_count,
    .setup = netmap_setup,
    .measure = netmap_measure,
};
