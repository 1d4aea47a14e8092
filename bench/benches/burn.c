/*
 * burn: every rank under sustained load at once, for --duration: the
 * backend's GEMM back to back, cut into --interval intervals. Each interval
 * gives one point per rank of the case's "timeline" (record.h): throughput
 * (GEMMs finished x flops / the interval's wall time), the CPU time the
 * process got over the wall time and the threads it asked for, the
 * backend's burn_read() (clocks, temperature, power, throttle reasons and
 * error counters where it has them) and a silent-error check of the
 * interval's last product. Per rank the intervals are the samples: the
 * median interval is the sustained figure, the best the peak.
 *
 * Ranks agree when to stop at interval boundaries without waiting on each
 * other: each boundary posts a non-blocking allreduce of "stop asked"
 * (the watchdog sets it on Ctrl-C, gcb_watchdog_soft) and reads the one
 * posted a boundary earlier, so that every rank ends after the same
 * interval and the timeline so far is recorded.
 *
 * --with memory runs the backend's memory stream (triad) in a thread of
 * the rank beside the GEMM; --with collectives keeps a non-blocking 1 MiB
 * MPI allreduce in flight beside the GEMMs (coll_step; docs/BURN.md says
 * what each loads). GCB_TEST_BURN_WRONG=RANK:SECOND (a test hook) makes RANK's
 * product wrong once, checked at the first boundary at or after SECOND.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "bench/benches/burn.h"
#include "bench/run/watchdog.h"
#include "common/mpi_err.h"

#define COLL_FLOATS (256 * 1024)   /* --with collectives: 1 MiB a rank */
#define STREAM_ELEMENTS (4u << 20) /* --with memory: 32 MiB arrays */
#define SOFT_GRACE_S 30.0          /* beyond two intervals, to stop */

static const char *const dtype_names[] = {
#define GCB__DTYPE_NAME(id, name, bytes) name,
    GCB_DTYPE_LIST(GCB__DTYPE_NAME)
#undef GCB__DTYPE_NAME
        NULL};

static const char *const with_names[] = {"memory", "collectives", NULL};
enum { WITH_MEMORY = 1u << 0, WITH_COLLECTIVES = 1u << 1 };

struct burn_opts {
  double duration, interval;
  int dtype;
  uint64_t size, m, n, k;
  uint32_t with;
};

static const struct gcb_option burn_options[] = {
    {"duration", 0, GCB_OPT_SECONDS, offsetof(struct burn_opts, duration), "60",
     "TIME",
     "how long every rank burns: seconds, or with a unit (90, 90s, 10m, 1h)",
     NULL, 1, 7 * 86400},
    {"interval", 0, GCB_OPT_SECONDS, offsetof(struct burn_opts, interval), "1",
     "TIME",
     "one timeline point per interval: throughput, CPU time, readings, a "
     "silent-error check",
     NULL, 0.05, 3600},
    {"dtype", 't', GCB_OPT_CHOICE, offsetof(struct burn_opts, dtype), "fp32",
     "TYPE", "element type of the GEMM", dtype_names, 0, 0},
    {"size", 0, GCB_OPT_SIZE, offsetof(struct burn_opts, size), NULL, "N",
     "square GEMM m = n = k = N (default: half the backend's GEMM size, "
     "1024 on host: tens of ms a GEMM on one core)",
     NULL, 1, 0},
    {"m", 'm', GCB_OPT_SIZE, offsetof(struct burn_opts, m), NULL, "N",
     "rows of A and C (default: --size)", NULL, 1, 0},
    {"n", 'n', GCB_OPT_SIZE, offsetof(struct burn_opts, n), NULL, "N",
     "columns of B and C (default: m)", NULL, 1, 0},
    {"k", 'k', GCB_OPT_SIZE, offsetof(struct burn_opts, k), NULL, "N",
     "columns of A, rows of B (default: m)", NULL, 1, 0},
    {"with", 0, GCB_OPT_SET, offsetof(struct burn_opts, with), NULL, "LIST",
     "load beside the GEMM: memory (the backend's triad stream in a thread "
     "of the rank), collectives (1 MiB MPI allreduces back to back, "
     "non-blocking, beside the GEMMs)",
     with_names, 0, 0},
    {0},
};

/* What the harness's check() reports: every interval's check together. */
struct burn_op {
  struct gcb_op gemm, stream;
  struct gcb_check total; /* checked, samples = products compared, wrong */
};

struct burn_state {
  struct gcb_burn_timeline tl; /* rank 0: every rank's rows */
  double work;                 /* flops of one GEMM */
  double scale;                /* flops per figure unit */
};

static uint64_t shape_m(const struct gcb_ctx *ctx, const struct burn_opts *o) {
  return o->m      ? o->m
         : o->size ? o->size
                   : ctx->backend_ops->gemm_default_dim / 2;
}

static enum gcb_status burn_validate(const struct gcb_ctx *ctx,
                                     const void *opts, struct gcb_err *err) {
  const struct burn_opts *o = opts;
  if (o->interval > o->duration)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--interval %g s is longer than --duration %g s",
                       o->interval, o->duration);
  double intervals = ceil(o->duration / o->interval - 1e-9);
  if (intervals > (double)GCB_BURN_MAX_INTERVALS)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--duration / --interval: more than %ld intervals",
                       GCB_BURN_MAX_INTERVALS);
  /* what a reader takes (record.h): refused now, not after the burn */
  if (intervals * ctx->size > (double)GCB_BURN_MAX_POINTS)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--duration / --interval: %.0f intervals of %d ranks "
                       "are more than the %ld points a timeline series holds; "
                       "a longer --interval",
                       intervals, ctx->size, GCB_BURN_MAX_POINTS);
  if (shape_m(ctx, o) > (1ull << 31) || o->n > (1ull << 31) ||
      o->k > (1ull << 31))
    return gcb_err_set(err, GCB_EUSAGE, "burn: GEMM sizes go up to 2^31");
  return GCB_OK;
}

static enum gcb_status burn_open(struct gcb_ctx *ctx, const void *opts,
                                 void **state, struct gcb_err *err) {
  (void)ctx;
  (void)opts;
  *state = calloc(1, sizeof(struct burn_state));
  return *state ? GCB_OK : gcb_err_set(err, GCB_ENOMEM, "burn: out of memory");
}

static void burn_close(void *state) {
  struct burn_state *s = state;
  if (s != NULL)
    gcb_burn_timeline_free(&s->tl);
  free(s);
}

static int burn_count(const struct gcb_ctx *ctx, const void *opts) {
  (void)ctx;
  (void)opts;
  return 1;
}

static enum gcb_status op_run(void *state, int reps, double *seconds,
                              struct gcb_err *err) {
  struct burn_op *b = state;
  return b->gemm.run(b->gemm.state, reps, seconds, err);
}

static enum gcb_status op_check(void *state, struct gcb_check *out,
                                struct gcb_err *err) {
  (void)err;
  *out = ((struct burn_op *)state)->total;
  return GCB_OK;
}

static void op_release(void *state) {
  struct burn_op *b = state;
  if (b == NULL)
    return;
  gcb_op_release(&b->gemm);
  gcb_op_release(&b->stream);
  free(b);
}

/* Why a series is absent when no rank measured it. */
static void unavailable_reasons(struct gcb_burn_timeline *tl,
                                const struct gcb_backend_ops *ops) {
  for (int s = 0; s < GCB_BURN_SERIES_COUNT; s++)
    snprintf(tl->unavailable[s], sizeof tl->unavailable[s],
             ops->burn_read == NULL ? "the %s backend has no burn-in readings"
                                    : "not reported by the %s backend",
             ops->name);
  for (int s = GCB_BURN_CHECKED; s <= GCB_BURN_WRONG; s++)
    snprintf(tl->unavailable[s], sizeof tl->unavailable[s],
             "no check (--no-check, or the %s backend's GEMM has none)",
             ops->name);
  tl->unavailable[GCB_BURN_FIGURE][0] = '\0';
  tl->unavailable[GCB_BURN_CPU_UTIL][0] = '\0';
  if (ops->burn_read == NULL)
    return;
  snprintf(tl->unavailable[GCB_BURN_CPU_MHZ], sizeof tl->unavailable[0],
           "no readable cpufreq scaling_cur_freq for every CPU of the rank "
           "(%s backend)",
           ops->name);
  snprintf(tl->unavailable[GCB_BURN_TEMP_C], sizeof tl->unavailable[0],
           "no readable hwmon or thermal zone (%s backend)", ops->name);
  snprintf(tl->unavailable[GCB_BURN_POWER_W], sizeof tl->unavailable[0],
           "no readable powercap package energy counter (%s backend)",
           ops->name);
}

static enum gcb_status burn_setup(struct gcb_ctx *ctx, const void *opts,
                                  void *state, int index,
                                  struct gcb_record *rec, struct gcb_op *op,
                                  struct gcb_err *err) {
  (void)index;
  const struct burn_opts *o = opts;
  struct burn_state *s = state;
  const struct gcb_backend_ops *ops = ctx->backend_ops;
  uint64_t m = shape_m(ctx, o);
  struct gcb_gemm_params p = {.dtype = (enum gcb_dtype)o->dtype,
                              .m = m,
                              .n = o->n ? o->n : m,
                              .k = o->k ? o->k : m,
                              .seed = ctx->seed + (uint64_t)ctx->rank,
                              .burn = true};
  const char *with = (o->with & WITH_MEMORY) && (o->with & WITH_COLLECTIVES)
                         ? "gemm+memory+collectives"
                     : (o->with & WITH_MEMORY)      ? "gemm+memory"
                     : (o->with & WITH_COLLECTIVES) ? "gemm+collectives"
                                                    : "gemm";
  snprintf(rec->label, sizeof rec->label, "%s %llux%llux%llu %gs %s",
           gcb_dtype_name(p.dtype), (unsigned long long)p.m,
           (unsigned long long)p.n, (unsigned long long)p.k, o->duration, with);
  gcb_record_param_str(rec, "dtype", gcb_dtype_name(p.dtype));
  gcb_record_param_int(rec, "m", (int64_t)p.m);
  gcb_record_param_int(rec, "n", (int64_t)p.n);
  gcb_record_param_int(rec, "k", (int64_t)p.k);
  gcb_record_param_double(rec, "duration_s", o->duration);
  gcb_record_param_double(rec, "interval_s", o->interval);
  gcb_record_param_str(rec, "with", with);
  s->work = rec->work_per_op = 2.0 * (double)p.m * (double)p.n * (double)p.k;
  rec->figure =
      p.dtype == GCB_DTYPE_INT8
          ? (struct gcb_figure_spec){.unit = "TOPS",
                                     .scale = 1e12,
                                     .counted = "2*m*n*k int8 operations"}
          : (struct gcb_figure_spec){
                .unit = "GFLOP/s", .scale = 1e9, .counted = "2*m*n*k flops"};
  s->scale = rec->figure.scale;
  gcb_burn_timeline_free(&s->tl);
  s->tl = (struct gcb_burn_timeline){.interval_s = o->interval};
  unavailable_reasons(&s->tl, ops);
  rec->timeline = &s->tl;
  if (ops->gemm == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "the %s backend has no GEMM",
                       ops->name);
  if ((o->with & WITH_MEMORY) && ops->stream == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "--with memory: the %s backend has no memory stream",
                       ops->name);
  struct burn_op *b = calloc(1, sizeof *b);
  if (b == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "burn: out of memory");
  *op = (struct gcb_op){
      .state = b, .run = op_run, .check = op_check, .release = op_release};
  enum gcb_status st = ops->gemm(ctx->backend, &p, &b->gemm, err);
  if (st == GCB_OK && (o->with & WITH_MEMORY)) {
    struct gcb_stream_params sp = {.kernel = GCB_MEMKERNEL_TRIAD,
                                   .elements = STREAM_ELEMENTS,
                                   .seed = ctx->seed + (uint64_t)ctx->rank};
    st = ops->stream(ctx->backend, &sp, &b->stream, err);
  }
  return st;
}

/* ---- the loop ------------------------------------------------------------ */

static double now_s(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --with memory: the stream, back to back, until told to stop. */
struct streamer {
  struct gcb_op *op;
  atomic_int stop;
  pthread_t thread;
  bool started;
};

static void *stream_loop(void *arg) {
  struct streamer *m = arg;
  struct gcb_err ignored = {0};
  double seconds;
  while (!atomic_load_explicit(&m->stop, memory_order_relaxed))
    if (m->op->run(m->op->state, 1, &seconds, &ignored) != GCB_OK)
      break;
  return NULL;
}

/* GCB_TEST_BURN_WRONG=RANK:SECOND for this rank: SECOND, else -1. */
static double planted_at(int rank) {
  const char *env = getenv("GCB_TEST_BURN_WRONG");
  if (env == NULL || env[0] == '\0')
    return -1;
  char *end;
  errno = 0;
  long r = strtol(env, &end, 10);
  double at = *end == ':' ? strtod(end + 1, &end) : -1;
  return errno == 0 && *end == '\0' && r == rank && at >= 0 ? at : -1;
}

/* One rank's run: its rows, its statistics, its checks. */
struct burn_run {
  struct gcb_ctx *ctx;
  const struct burn_opts *o;
  struct burn_state *s;
  struct burn_op *b;
  long nmax, n;     /* intervals planned, done */
  double *rows;     /* GCB_BURN_SERIES_COUNT rows of nmax */
  double *per_gemm; /* each interval's wall / GEMMs finished */
  double plant_at;  /* -1: none */
  bool no_check;    /* --no-check: no interval checks */
  bool planted;
  float *coll; /* --with collectives: the allreduce's buffer */
  /* --with collectives: the allreduces' own communicator (so that their
   * order never meets the stop vote's on the world), the one in flight,
   * and how many this rank started. */
  MPI_Comm coll_comm;
  MPI_Request coll_req;
  long coll_started;
  int threads; /* what cpu_util divides by */
};

static void put(struct burn_run *r, int series, long i, double v) {
  r->rows[(size_t)series * (size_t)r->nmax + (size_t)i] = v;
}

static double counter(long long v) {
  return v >= 0 ? (double)v : NAN;
}

/* The interval's check: its last product against the reference (after
 * the planted error, at its second). */
static enum gcb_status interval_check(struct burn_run *r, long i) {
  struct gcb_op *g = &r->b->gemm;
  if (g->check == NULL || r->no_check)
    return GCB_OK;
  if (r->plant_at >= 0 && !r->planted &&
      (double)(i + 1) * r->o->interval >= r->plant_at && g->plant != NULL) {
    g->plant(g->state);
    r->planted = true;
  }
  struct gcb_check c = {0};
  enum gcb_status st = g->check(g->state, &c, &r->ctx->err);
  if (st != GCB_OK || !c.checked)
    return st;
  struct gcb_check *t = &r->b->total;
  bool wrong = c.wrong > 0;
  t->checked = true;
  t->samples++;
  t->wrong += wrong;
  t->max_error = t->samples == 1 || c.max_error > t->max_error ? c.max_error
                                                               : t->max_error;
  t->tolerance = c.tolerance;
  t->method = c.method;
  put(r, GCB_BURN_CHECKED, i, 1);
  put(r, GCB_BURN_WRONG, i, wrong);
  return GCB_OK;
}

/* Interval i ended at `end` after `count` GEMMs since `start`: its
 * points. */
static void interval_points(struct burn_run *r, long i, long count, double wall,
                            double cpu) {
  put(r, GCB_BURN_FIGURE, i, (double)count * r->s->work / wall / r->s->scale);
  put(r, GCB_BURN_CPU_UTIL, i, cpu / wall / r->threads);
  r->per_gemm[i] = wall / (double)(count > 0 ? count : 1);
  const struct gcb_backend_ops *ops = r->ctx->backend_ops;
  if (ops->burn_read == NULL)
    return;
  struct gcb_burn_reading rd;
  double point[GCB_BURN_SERIES_COUNT];
  ops->burn_read(r->ctx->backend, &rd);
  gcb__burn_reading_points(&rd, point);
  for (int s = GCB_BURN_CPU_MHZ; s <= GCB_BURN_XID; s++)
    put(r, s, i, point[s]);
}

void gcb__burn_reading_points(const struct gcb_burn_reading *rd,
                              double point[GCB_BURN_SERIES_COUNT]) {
  point[GCB_BURN_CPU_MHZ] = rd->cpu_mhz;
  point[GCB_BURN_TEMP_C] = rd->temp_c;
  point[GCB_BURN_POWER_W] = rd->power_w;
  point[GCB_BURN_SM_CLOCK_MHZ] = rd->sm_clock_mhz;
  point[GCB_BURN_MEM_CLOCK_MHZ] = rd->mem_clock_mhz;
  point[GCB_BURN_THROTTLE_REASONS] =
      rd->throttle_known ? (double)rd->throttle_reasons : NAN;
  point[GCB_BURN_ECC_SBE] = counter(rd->ecc_sbe);
  point[GCB_BURN_ECC_DBE] = counter(rd->ecc_dbe);
  point[GCB_BURN_PCIE_REPLAY] = counter(rd->pcie_replay);
  point[GCB_BURN_XID] = counter(rd->xid);
}

/*
 * --with collectives: keeps one 1 MiB allreduce in flight beside the
 * GEMMs, as a data-parallel job overlaps its gradients' allreduce with
 * compute: tested after each GEMM (MPI here is funneled through this
 * thread, so it progresses when tested, as a framework's polling does),
 * and the next started when one completes. Ranks start them at their own
 * pace, but each needs every rank's previous one, so their counts differ
 * by one at most (coll_drain).
 */
static enum gcb_status coll_step(struct burn_run *r) {
  int done = 1;
  if (r->coll_req != MPI_REQUEST_NULL) {
    int rc = MPI_Test(&r->coll_req, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
      return gcb_mpi_err(&r->ctx->err, rc, "MPI_Test (--with collectives)");
  }
  if (!done)
    return GCB_OK;
  r->coll_started++;
  return gcb_mpi_err(&r->ctx->err,
                     MPI_Iallreduce(MPI_IN_PLACE, r->coll, COLL_FLOATS,
                                    MPI_FLOAT, MPI_SUM, r->coll_comm,
                                    &r->coll_req),
                     "MPI_Iallreduce (--with collectives)");
}

/* After the burn: the ranks that started one allreduce fewer start it,
 * so that every one in flight completes. Collective. */
static enum gcb_status coll_drain(struct burn_run *r) {
  if (r->coll_comm == MPI_COMM_NULL)
    return GCB_OK;
  long most = 0;
  enum gcb_status st = gcb_mpi_err(
      &r->ctx->err,
      MPI_Allreduce(&r->coll_started, &most, 1, MPI_LONG, MPI_MAX,
                    r->ctx->world),
      "MPI_Allreduce (--with collectives: the allreduces started)");
  if (st == GCB_OK && r->coll_started < most) {
    if (r->coll_req != MPI_REQUEST_NULL)
      MPI_Wait(&r->coll_req, MPI_STATUS_IGNORE);
    st = coll_step(r);
  }
  if (r->coll_req != MPI_REQUEST_NULL)
    MPI_Wait(&r->coll_req, MPI_STATUS_IGNORE);
  return st;
}

/* The intervals, until --duration or until the ranks agree to stop. */
static enum gcb_status burn_loop(struct burn_run *r, struct gcb_timing *t,
                                 atomic_int *stop) {
  struct gcb_ctx *ctx = r->ctx;
  struct gcb_op *g = &r->b->gemm;
  double seconds;
  enum gcb_status st = gcb_mpi_err(&ctx->err, MPI_Barrier(ctx->world),
                                   "MPI_Barrier before the burn");
  double t0 = now_s(CLOCK_MONOTONIC), prev = t0;
  double cpu_prev = now_s(CLOCK_PROCESS_CPUTIME_ID);
  MPI_Request vote = MPI_REQUEST_NULL;
  int mine = 0, agreed = 0;
  for (long i = 0; st == GCB_OK && i < r->nmax; i++) {
    double end = t0 + (double)(i + 1) * r->o->interval, now;
    long count = 0;
    while (st == GCB_OK && (now = now_s(CLOCK_MONOTONIC)) < end) {
      st = g->run(g->state, 1, &seconds, &ctx->err);
      count++;
      if (st == GCB_OK && r->coll != NULL)
        st = coll_step(r);
      gcb_watchdog_step(ctx->watchdog);
    }
    now = now_s(CLOCK_MONOTONIC);
    double cpu = now_s(CLOCK_PROCESS_CPUTIME_ID);
    interval_points(r, i, count, now - prev, cpu - cpu_prev);
    prev = now, cpu_prev = cpu;
    if (st == GCB_OK)
      st = interval_check(r, i);
    r->n = i + 1;
    gcb_timing_progress(t, (double)(i + 1) * r->o->interval, r->o->duration);
    /* The vote of the boundary before: every rank reads the same one. */
    if (st == GCB_OK && vote != MPI_REQUEST_NULL)
      st = gcb_mpi_err(&ctx->err, MPI_Wait(&vote, MPI_STATUS_IGNORE),
                       "MPI_Wait (burn's stop vote)");
    if (st != GCB_OK || agreed)
      break;
    mine = atomic_load(stop);
    st = gcb_mpi_err(
        &ctx->err,
        MPI_Iallreduce(&mine, &agreed, 1, MPI_INT, MPI_MAX, ctx->world, &vote),
        "MPI_Iallreduce (burn's stop vote)");
  }
  if (vote != MPI_REQUEST_NULL)
    MPI_Wait(&vote, MPI_STATUS_IGNORE);
  return st;
}

/* Every rank's rows onto rank 0, as the timeline (record.h). */
static enum gcb_status gather_rows(struct burn_run *r) {
  struct gcb_ctx *ctx = r->ctx;
  size_t per = (size_t)GCB_BURN_SERIES_COUNT * (size_t)r->n;
  double *packed = malloc((per ? per : 1) * sizeof *packed);
  if (packed == NULL)
    return gcb_err_set(&ctx->err, GCB_ENOMEM, "burn: out of memory");
  for (int s = 0; s < GCB_BURN_SERIES_COUNT; s++)
    memcpy(packed + (size_t)s * (size_t)r->n,
           r->rows + (size_t)s * (size_t)r->nmax,
           (size_t)r->n * sizeof *packed);
  struct gcb_burn_timeline *tl = &r->s->tl;
  double *all = NULL;
  enum gcb_status st = GCB_OK;
  if (ctx->rank == 0) {
    all = malloc((per ? per : 1) * (size_t)ctx->size * sizeof *all);
    for (int s = 0; all != NULL && s < GCB_BURN_SERIES_COUNT; s++)
      tl->v[s] =
          malloc(((size_t)ctx->size * (size_t)r->n + 1) * sizeof(double));
    for (int s = 0; all != NULL && s < GCB_BURN_SERIES_COUNT; s++)
      if (tl->v[s] == NULL)
        st = GCB_ENOMEM;
    if (all == NULL || st != GCB_OK)
      st = gcb_err_set(&ctx->err, GCB_ENOMEM, "burn: timeline: out of memory");
  }
  st = gcb_context_agree(ctx, st);
  if (st == GCB_OK)
    st = gcb_mpi_err(&ctx->err,
                     MPI_Gather(packed, (int)per, MPI_DOUBLE, all, (int)per,
                                MPI_DOUBLE, 0, ctx->world),
                     "MPI_Gather of the burn timeline");
  /* rank r's rows, series after series, into one array a series */
  for (int q = 0; st == GCB_OK && ctx->rank == 0 && q < ctx->size; q++)
    for (int s = 0; s < GCB_BURN_SERIES_COUNT; s++)
      memcpy(tl->v[s] + (size_t)q * (size_t)r->n,
             all + (size_t)q * per + (size_t)s * (size_t)r->n,
             (size_t)r->n * sizeof *all);
  if (st == GCB_OK && ctx->rank == 0) {
    tl->nranks = ctx->size;
    tl->n = r->n;
  }
  free(all);
  free(packed);
  return st;
}

static void streamer_stop(struct streamer *m) {
  atomic_store(&m->stop, 1);
  if (m->started)
    pthread_join(m->thread, NULL);
  m->started = false;
}

static enum gcb_status burn_measure(struct gcb_ctx *ctx, const void *opts,
                                    void *state, struct gcb_op *op,
                                    struct gcb_timing *t,
                                    struct gcb_rank_result *out,
                                    struct gcb_err *err) {
  const struct burn_opts *o = opts;
  struct burn_run r = {.ctx = ctx,
                       .o = o,
                       .s = state,
                       .b = op->state,
                       .nmax = (long)ceil(o->duration / o->interval - 1e-9),
                       .plant_at = planted_at(ctx->rank),
                       .no_check = t->no_check,
                       .threads = ctx->cpu_threads +
                                  ((o->with & WITH_MEMORY) ? 1 : 0)};
  r.coll_comm = MPI_COMM_NULL;
  r.coll_req = MPI_REQUEST_NULL;
  struct streamer m = {.op = &r.b->stream};
  atomic_int stop = 0;
  double seconds;
  r.rows =
      malloc((size_t)GCB_BURN_SERIES_COUNT * (size_t)r.nmax * sizeof *r.rows);
  r.per_gemm = malloc((size_t)r.nmax * sizeof *r.per_gemm);
  if (o->with & WITH_COLLECTIVES)
    r.coll = calloc(COLL_FLOATS, sizeof *r.coll);
  enum gcb_status st =
      r.rows && r.per_gemm && (r.coll || !(o->with & WITH_COLLECTIVES))
          ? GCB_OK
          : gcb_err_set(err, GCB_ENOMEM, "burn: out of memory");
  for (size_t i = 0; r.rows && i < (size_t)GCB_BURN_SERIES_COUNT * r.nmax; i++)
    r.rows[i] = NAN;
  /* The burn is meant to take --duration: --timeout is for the rest; a
   * stop asked (Ctrl-C, the deadline) ends it at a boundary, recorded. */
  gcb_watchdog_extend(ctx->watchdog, o->duration);
  gcb_watchdog_soft(ctx->watchdog, &stop, 2 * o->interval + SOFT_GRACE_S);
  t->warmup = 1; /* one GEMM: the first touches its buffers */
  if (st == GCB_OK)
    st = r.b->gemm.run(r.b->gemm.state, 1, &seconds, err);
  gcb_timing_warmed(t);
  st = gcb_context_agree(ctx, st);
  if (st == GCB_OK && (o->with & WITH_MEMORY)) {
    m.started = pthread_create(&m.thread, NULL, stream_loop, &m) == 0;
    if (!m.started)
      st = gcb_err_set(err, GCB_EIO, "--with memory: cannot start a thread");
  }
  st = gcb_context_agree(ctx, st);
  if (st == GCB_OK && r.coll != NULL)
    st = gcb_mpi_err(err, MPI_Comm_dup(ctx->world, &r.coll_comm),
                     "MPI_Comm_dup (--with collectives)");
  st = gcb_context_agree(ctx, st);
  if (st == GCB_OK)
    st = burn_loop(&r, t, &stop);
  streamer_stop(&m);
  if (r.coll_comm != MPI_COMM_NULL) {
    /* Every rank reaches this (an error on one is agreed on below only
     * after): the allreduces in flight complete before their buffer goes. */
    enum gcb_status drained = coll_drain(&r);
    st = st == GCB_OK ? drained : st;
    MPI_Comm_free(&r.coll_comm);
  }
  st = gcb_context_agree(ctx, st);
  if (st == GCB_OK)
    st = gather_rows(&r);
  if (st == GCB_OK && r.n == 0)
    st = gcb_err_set(err, GCB_EINTR, "burn: stopped before its first interval");
  if (st == GCB_OK) {
    gcb_stats_compute(r.per_gemm, (size_t)r.n, &out->seconds);
    out->time_s = out->seconds.median;
    t->timed = r.n;
  }
  free(r.rows);
  free(r.per_gemm);
  free(r.coll);
  return st;
}

const struct gcb_bench gcb_bench_burn = {
    .name = "burn",
    .summary = "every rank under sustained GEMM load at once: a timeline of "
               "throughput, CPU time, clocks and silent errors per rank",
    .options = burn_options,
    .opts_size = sizeof(struct burn_opts),
    .validate = burn_validate,
    .open = burn_open,
    .close = burn_close,
    .count = burn_count,
    .setup = burn_setup,
    .measure = burn_measure,
    .suite_opt_in = true,
};
