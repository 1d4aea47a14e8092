/*
 * Timing of one collective case. The headline time follows nccl-tests
 * (a bare loop of back-to-back operations, its mean per iteration) or, in
 * blocking mode, OSU (a barrier before each operation, outside the timed
 * region). A second, per-iteration pass stamps each rank's arrival before
 * every operation: it gives per-iteration p50/p99 and, against a clock
 * offset to rank 0, how late each rank arrives, so that a late rank is
 * named rather than mistaken for a slow network. Timestamps stay out of the
 * headline loop: on a VM a clock read costs a sizable part of an 8-byte
 * allreduce. Each operation started is a watchdog step, after any
 * deliberate delay, so that a rank that never arrives is the one named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench/benches/coll.h"
#include "bench/run/watchdog.h"
#include "common/clock.h"
#include "common/mpi_err.h"

#define OFFSET_ROUNDS 16

/* Ping-pong with rank 0; the offset of the round trip with the smallest
 * delay is the best estimate (Cristian's algorithm). */
static enum gcb_status offset_exchange(struct gcb_ctx *ctx, int peer,
                                       double *offset) {
  double best_rtt = 1e30, t[2];
  for (int i = 0; i < OFFSET_ROUNDS; i++) {
    int rc;
    if (ctx->rank == 0) {
      double t0 = gcb_now_s(), remote;
      rc = MPI_Send(&t0, 1, MPI_DOUBLE, peer, 0, ctx->world);
      if (rc == MPI_SUCCESS)
        rc = MPI_Recv(&remote, 1, MPI_DOUBLE, peer, 0, ctx->world,
                      MPI_STATUS_IGNORE);
      double t1 = gcb_now_s();
      if (rc == MPI_SUCCESS && t1 - t0 < best_rtt) {
        best_rtt = t1 - t0;
        t[0] = (t0 + t1) / 2 - remote;
      }
    } else {
      double t0, mine;
      rc = MPI_Recv(&t0, 1, MPI_DOUBLE, 0, 0, ctx->world, MPI_STATUS_IGNORE);
      mine = gcb_now_s();
      if (rc == MPI_SUCCESS)
        rc = MPI_Send(&mine, 1, MPI_DOUBLE, 0, 0, ctx->world);
    }
    if (rc != MPI_SUCCESS)
      return gcb_mpi_err(&ctx->err, rc,
                         "clock offset exchange (MPI_Send/Recv)");
  }
  if (ctx->rank == 0)
    return gcb_mpi_err(&ctx->err,
                       MPI_Send(&t[0], 1, MPI_DOUBLE, peer, 1, ctx->world),
                       "MPI_Send of a clock offset");
  return gcb_mpi_err(
      &ctx->err,
      MPI_Recv(offset, 1, MPI_DOUBLE, 0, 1, ctx->world, MPI_STATUS_IGNORE),
      "MPI_Recv of a clock offset");
}

enum gcb_status gcb__coll_clock_offset(struct gcb_ctx *ctx, double *offset) {
  *offset = 0;
  int node0 = ctx->node_index;
  if (gcb_mpi_err(&ctx->err, MPI_Bcast(&node0, 1, MPI_INT, 0, ctx->world),
                  "MPI_Bcast of rank 0's node") != GCB_OK)
    return GCB_EMPI;
  /* One rank at a time against rank 0; ranks on rank 0's node share its
   * clock and take part in nothing. */
  for (int peer = 1; peer < ctx->size; peer++) {
    int remote = 0;
    if (ctx->rank == peer)
      remote = ctx->node_index != node0;
    if (gcb_mpi_err(&ctx->err, MPI_Bcast(&remote, 1, MPI_INT, peer, ctx->world),
                    "MPI_Bcast") != GCB_OK)
      return GCB_EMPI;
    if (remote && (ctx->rank == 0 || ctx->rank == peer)) {
      enum gcb_status st = offset_exchange(ctx, peer, offset);
      if (st != GCB_OK)
        return st;
    }
  }
  return GCB_OK;
}

static void straggle(const struct coll_state *s, int rank) {
  if (rank != s->delay_rank)
    return;
  struct timespec ts = {
      .tv_sec = (time_t)s->delay_s,
      .tv_nsec = (long)((s->delay_s - (double)(time_t)s->delay_s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* nccl-tests: `iters` operations back to back, their mean. */
static enum gcb_status time_aggregated(struct gcb_ctx *ctx, struct coll_op *c,
                                       long iters, double *mean) {
  struct gcb_err *err = &ctx->err;
  enum gcb_status st = GCB_OK;
  double t0 = gcb_now_s();
  if (c->state->delay_rank < 0) {
    gcb_watchdog_step(ctx->watchdog);
    st = gcb_coll_case_run_agg(c->k, (int)iters, (int)c->agg, err);
  } else {
    for (long i = 0; i < iters && st == GCB_OK; i++) {
      straggle(c->state, ctx->rank);
      gcb_watchdog_step(ctx->watchdog);
      st = gcb_coll_case_run_agg(c->k, 1, (int)c->agg, err);
    }
  }
  *mean = (gcb_now_s() - t0) / (double)(iters * c->agg);
  return st;
}

/* nccl-tests -z 1 and 2: each operation waited for (and with a barrier
 * after it for 1), the whole loop timed, its mean. */
static enum gcb_status time_waited(struct gcb_ctx *ctx, struct coll_op *c,
                                   long iters, bool barrier, double *mean) {
  enum gcb_status st = GCB_OK;
  double t0 = gcb_now_s();
  for (long i = 0; i < iters && st == GCB_OK; i++) {
    straggle(c->state, ctx->rank);
    gcb_watchdog_step(ctx->watchdog);
    st = gcb_coll_case_run_agg(c->k, 1, (int)c->agg, &ctx->err);
    if (st == GCB_OK && barrier)
      st = gcb_mpi_err(&ctx->err, MPI_Barrier(c->comm), "MPI_Barrier");
  }
  *mean = (gcb_now_s() - t0) / (double)(iters * c->agg);
  return st;
}

/* OSU's collectives (-z 3): a barrier before each operation, outside the
 * timed region. OSU's point-to-point loops (-z 4, barrier false): each
 * operation timed alone and the times summed, nothing between them
 * (osu_latency.c 7.4: t_start/t_end around one MPI_Send + MPI_Recv,
 * t_total summed, latency = t_total / (2 iterations)). */
static enum gcb_status time_blocking(struct gcb_ctx *ctx, struct coll_op *c,
                                     long iters, bool barrier, double *mean) {
  double sum = 0;
  enum gcb_status st = GCB_OK;
  for (long i = 0; i < iters && st == GCB_OK; i++) {
    gcb_watchdog_step(ctx->watchdog);
    if (barrier)
      st = gcb_mpi_err(&ctx->err, MPI_Barrier(c->comm), "MPI_Barrier");
    straggle(c->state, ctx->rank);
    gcb_watchdog_step(ctx->watchdog);
    double t0 = gcb_now_s();
    if (st == GCB_OK)
      st = gcb_coll_case_run_agg(c->k, 1, (int)c->agg, &ctx->err);
    sum += gcb_now_s() - t0;
  }
  *mean = sum / (double)(iters * c->agg);
  return st;
}

/* Per-iteration pass: durations and arrival times in rank 0's clock. */
static enum gcb_status time_each(struct gcb_ctx *ctx, struct coll_op *c,
                                 long iters, double *duration,
                                 double *arrival) {
  gcb_watchdog_step(ctx->watchdog);
  enum gcb_status st =
      gcb_mpi_err(&ctx->err, MPI_Barrier(c->comm), "MPI_Barrier");
  for (long i = 0; i < iters && st == GCB_OK; i++) {
    straggle(c->state, ctx->rank);
    gcb_watchdog_step(ctx->watchdog);
    double t0 = gcb_now_s();
    st = gcb_coll_case_run(c->k, 1, &ctx->err);
    duration[i] = (gcb_now_s() - t0) * c->time_scale;
    arrival[i] = t0 + c->state->clock_offset;
  }
  return st;
}

/* Lateness of each arrival behind the earliest rank's of the case's
 * communicator, per iteration: ranks of other communicators (another node
 * under --split node) run other operations and are no one's reference. */
static enum gcb_status lateness(struct gcb_ctx *ctx, const struct coll_op *c,
                                long iters, double *arrival, double *first) {
  gcb_watchdog_step(ctx->watchdog);
  enum gcb_status st = gcb_mpi_err(
      &ctx->err,
      MPI_Allreduce(arrival, first, (int)iters, MPI_DOUBLE, MPI_MIN, c->comm),
      "MPI_Allreduce of arrival times");
  for (long i = 0; st == GCB_OK && i < iters; i++)
    arrival[i] -= first[i];
  return st;
}

/* -I 1: every rank's per-iteration times onto rank 0 (nccl-tests gathers
 * each process's row, GatherProcessMaxIterTimes), before the statistics
 * sort them. The world: every rank measures every case. */
static enum gcb_status gather_iters(struct gcb_ctx *ctx, struct coll_state *s,
                                    const double *duration, long iters) {
  s->iter.n = 0;
  if (ctx->rank == 0) {
    double *all =
        realloc(s->iter.s, (size_t)ctx->size * (size_t)iters * sizeof *all);
    if (all == NULL)
      return gcb_err_set(&ctx->err, GCB_ENOMEM,
                         "-I 1: per-iteration times: out of memory");
    s->iter.s = all;
  }
  gcb_watchdog_step(ctx->watchdog);
  enum gcb_status st =
      gcb_mpi_err(&ctx->err,
                  MPI_Gather(duration, (int)iters, MPI_DOUBLE, s->iter.s,
                             (int)iters, MPI_DOUBLE, 0, ctx->world),
                  "MPI_Gather of per-iteration times");
  if (st == GCB_OK && ctx->rank == 0) {
    s->iter.nranks = ctx->size;
    s->iter.n = iters;
  }
  return st;
}

enum gcb_status gcb__coll_measure(struct gcb_ctx *ctx, const void *opts,
                                  void *state, struct gcb_op *op,
                                  struct gcb_timing *t,
                                  struct gcb_rank_result *out,
                                  struct gcb_err *err) {
  const struct coll_opts *o = opts;
  struct coll_state *s = state;
  struct coll_op *c = op->state;
  long iters = t->iters, warmup = t->warmup;
  if (s->shape.iters == 0) { /* the run's, as nccl-tests' header says */
    s->shape.iters = iters;
    s->shape.warmup = warmup;
  }
  gcb__coll_osu_iters(o, c->osu_size, &iters, &warmup);
  t->iters = iters;
  t->warmup = warmup;
  t->timed = iters;
  double *buf = malloc(3 * (size_t)iters * sizeof *buf);
  if (buf == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "coll timing: out of memory");
  gcb_watchdog_step(ctx->watchdog);
  enum gcb_status st =
      warmup > 0 ? gcb_coll_case_run(c->k, (int)warmup, err) : GCB_OK;
  gcb_timing_warmed(t);
  gcb_watchdog_step(ctx->watchdog);
  if (st == GCB_OK)
    st = gcb_mpi_err(err, MPI_Barrier(c->comm), "MPI_Barrier");
  double mean = 0;
  if (st == GCB_OK)
    st = o->blocking >= 3
             ? time_blocking(ctx, c, iters, o->blocking == 3, &mean)
         : o->blocking > 0 ? time_waited(ctx, c, iters, o->blocking == 1, &mean)
                           : time_aggregated(ctx, c, iters, &mean);
  out->time_s = mean * c->time_scale;
  if (st == GCB_OK)
    st = time_each(ctx, c, iters, buf, buf + iters);
  if (st == GCB_OK && (o->per_iter == 1 || s->shape.ntail > 0))
    st = gather_iters(ctx, s, buf, iters);
  if (st == GCB_OK)
    st = lateness(ctx, c, iters, buf + iters, buf + 2 * iters);
  if (st == GCB_OK) {
    gcb_stats_compute(buf, (size_t)iters, &out->seconds);
    gcb_stats_compute(buf + iters, (size_t)iters, &out->late);
  }
  free(buf);
  return st;
}
