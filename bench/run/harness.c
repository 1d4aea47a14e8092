/*
 * The run loop every benchmark shares: set up a case on every rank, agree
 * on whether it can run, warm up, time, validate, gather per-rank statistics
 * to rank 0 and hand the record to the sinks. A case that fails is recorded
 * as an error and the run goes on; finished cases are already on disk.
 */
#include "bench/run/harness.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/run/header.h"
#include "bench/run/watchdog.h"
#include "common/mpi_err.h"

const struct gcb_option gcb_run_options[] = {
    {"backend", 'B', GCB_OPT_STRING, offsetof(struct gcb_run_opts, backend),
     "auto", "NAME",
     "compute backend: auto, host or cuda (auto: cuda when a "
     "CUDA device is visible)",
     NULL, 0, 0},
    {"iters", 0, GCB_OPT_INT, offsetof(struct gcb_run_opts, iters), "10", "N",
     "timed iterations per case", NULL, 1, 1e9},
    {"warmup", 'w', GCB_OPT_INT, offsetof(struct gcb_run_opts, warmup), "2",
     "N", "untimed warm-up iterations per case", NULL, 0, 1e9},
    {"output", 0, GCB_OPT_STRING, offsetof(struct gcb_run_opts, output), NULL,
     "FILE", "results document (default results/gcbench-<run id>.json)", NULL,
     0, 0},
    {"force", 0, GCB_OPT_FLAG, offsetof(struct gcb_run_opts, force), NULL, NULL,
     "overwrite an existing results document", NULL, 0, 0},
    {"seed", 0, GCB_OPT_SIZE, offsetof(struct gcb_run_opts, seed), "1", "N",
     "seed of the random inputs (each rank adds its rank)", NULL, 0, 0},
    {"no-check", 0, GCB_OPT_FLAG, offsetof(struct gcb_run_opts, no_check), NULL,
     NULL, "skip validation of results", NULL, 0, 0},
    {"timeout", 0, GCB_OPT_DOUBLE, offsetof(struct gcb_run_opts, timeout),
     "600", "SECONDS",
     "end the run when one case (or a benchmark's set-up) takes longer: one "
     "line names the ranks that had not finished, the document keeps every "
     "finished case, exit code 4; 0: never",
     NULL, 0, 0},
    /* Test only (no help: left out of --help): RANK stops making
     * progress in case CASE (from 0) until the watchdog ends the run. */
    {"stall-rank", 0, GCB_OPT_STRING, offsetof(struct gcb_run_opts, stall),
     NULL, "RANK:CASE", NULL, NULL, 0, 0},
    {"progress", 0, GCB_OPT_FLAG, offsetof(struct gcb_run_opts, progress), NULL,
     NULL,
     "show the progress line on rank 0's stderr even when it is not a "
     "terminal (default: when the terminal is rank 0's or mpiexec's; "
     "GCB_PROGRESS=1|0 sets the default)",
     NULL, 0, 0},
    {"no-progress", 0, GCB_OPT_FLAG, offsetof(struct gcb_run_opts, no_progress),
     NULL, NULL, "never show the progress line", NULL, 0, 0},
    {0},
};

/* What each rank sends rank 0 about one case; plain bytes on the wire. */
struct wire {
  struct gcb_rank_result result; /* check.method travels in method[] */
  struct gcb_check check;
  char method[96];
  long timed;  /* iterations timed (the measure hook's word) */
  long warmed; /* warm-up iterations run (ditto: OSU's vary by size) */
};

/* The document is shared with the watchdog thread, which may record a
 * timeout in it while this thread is stuck elsewhere. */
static void lock(struct gcb_harness *h) {
  if (h->locked)
    pthread_mutex_lock(&h->lock);
}

static void unlock(struct gcb_harness *h) {
  if (h->locked)
    pthread_mutex_unlock(&h->lock);
}

static enum gcb_status to_sinks_error(struct gcb_harness *h,
                                      const struct gcb_record *rec, int rank,
                                      enum gcb_status code, const char *msg) {
  enum gcb_status st = GCB_OK;
  lock(h);
  for (int i = 0; i < h->nsinks && st == GCB_OK; i++)
    st =
        h->sinks[i].error(h->sinks[i].self, rec, rank, code, msg, &h->ctx->err);
  unlock(h);
  return st;
}

static enum gcb_status to_sinks_skip(struct gcb_harness *h,
                                     const struct gcb_record *rec,
                                     const char *reason) {
  enum gcb_status st = GCB_OK;
  lock(h);
  for (int i = 0; i < h->nsinks && st == GCB_OK; i++)
    st = h->sinks[i].skip(h->sinks[i].self, rec, reason, &h->ctx->err);
  unlock(h);
  return st;
}

static enum gcb_status to_sinks_record(struct gcb_harness *h,
                                       const struct gcb_record *rec) {
  enum gcb_status st = GCB_OK;
  lock(h);
  for (int i = 0; i < h->nsinks && st == GCB_OK; i++)
    st = h->sinks[i].record(h->sinks[i].self, rec, &h->ctx->err);
  unlock(h);
  return st;
}

/* Rank 0's watchdog, about to end the process: the timeout or death goes
 * into the document with the run's status. Waits a few seconds at most for
 * a sink that holds the document (a write in progress). */
static bool record_fatal(void *arg, enum gcb_status code,
                         const char *run_status, int rank, const char *bench,
                         const char *label, const char *message) {
  struct gcb_harness *h = arg;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 5;
  if (pthread_mutex_timedlock(&h->lock, &until) != 0)
    return false;
  struct gcb_err err = {0};
  enum gcb_status st = gcb_results_add_error(h->document.results, bench, label,
                                             rank, code, message, &err);
  if (st == GCB_OK)
    st = gcb__header_finish(h->document.results, run_status, &err);
  if (st == GCB_OK)
    st = gcb_document_write_last(&h->document, &err);
  gcb_nccl_json_abort(&h->nccl_json, message);
  pthread_mutex_unlock(&h->lock);
  return st == GCB_OK;
}

/* --stall-rank RANK:CASE (test only). */
static enum gcb_status parse_stall(struct gcb_harness *h, const char *text) {
  h->stall_rank = h->stall_case = -1;
  if (text == NULL)
    return GCB_OK;
  char *end;
  errno = 0;
  long rank = strtol(text, &end, 10);
  long index = *end == ':' ? strtol(end + 1, &end, 10) : -1;
  if (errno || *end != '\0' || rank < 0 || rank >= h->ctx->size || index < 0 ||
      index > 1000000)
    return gcb_err_set(&h->ctx->err, GCB_EUSAGE,
                       "--stall-rank '%s': expected RANK:CASE with 0 <= RANK "
                       "< %d",
                       text, h->ctx->size);
  h->stall_rank = (int)rank;
  h->stall_case = (int)index;
  return GCB_OK;
}

enum gcb_status gcb_harness_validate(struct gcb_ctx *ctx,
                                     const struct gcb_bench *const *benches,
                                     void *const *bench_opts) {
  enum gcb_status st = GCB_OK;
  gcb_err_clear(&ctx->err);
  for (int i = 0; st == GCB_OK && benches[i]; i++)
    if (benches[i]->validate)
      st = benches[i]->validate(ctx, bench_opts[i], &ctx->err);
  /* Whatever a hook found (a size past the memory included) is the
   * user's to change: a usage error, exit code 2. */
  if (st != GCB_OK)
    st = ctx->err.code = GCB_EUSAGE;
  return gcb_context_agree(ctx, st);
}

/* The first write of the header: the --output path proves writable before
 * any benchmark runs. */
static enum gcb_status first_write(struct gcb_harness *h, const char *command) {
  struct gcb_ctx *ctx = h->ctx;
  enum gcb_status st = gcb_document_write_first(&h->document, &ctx->err);
  if (st == GCB_EIO) {
    gcb_err_prefix(&ctx->err, "--output");
    st = ctx->err.code = GCB_EUSAGE;
  }
  if (st == GCB_OK && !h->opts->quiet)
    fprintf(h->opts->dropin ? stderr : stdout,
            "# gcbench %s: %d rank(s) on %d node(s); backend %s\n", command,
            ctx->size, ctx->node_count, ctx->backend_reason);
  return st;
}

static enum gcb_status start_watchdog(struct gcb_harness *h) {
  struct gcb_watchdog_opts wo = {.timeout_s = h->opts->timeout,
                                 .rank_names = h->rank_names,
                                 .results_path = h->output,
                                 .record = record_fatal,
                                 .arg = h,
                                 .progress = h->progress && h->ctx->rank == 0};
  enum gcb_status st =
      gcb_context_agree(h->ctx, gcb_watchdog_start(h->ctx, &wo, &h->watchdog));
  /* Transports that can give up on their own do so at the same deadline. */
  h->ctx->deadline = gcb_watchdog_deadline(h->watchdog);
  h->ctx->watchdog = h->watchdog;
  return st;
}

/* The empty file gcb__output_path claimed, removed when the run stops
 * before its first write, so that the path is free for the next try. */
static enum gcb_status unclaim(const char *path, bool claimed,
                               enum gcb_status st) {
  gcb__claim_release();
  struct stat sb;
  if (claimed && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0)
    unlink(path);
  return st;
}

enum gcb_status gcb_harness_begin(struct gcb_harness *h, struct gcb_ctx *ctx,
                                  const struct gcb_run_opts *opts,
                                  const char *command, int argc, char **argv,
                                  json_t *options) {
  memset(h, 0, sizeof *h);
  h->ctx = ctx;
  h->opts = opts;
  h->locked = pthread_mutex_init(&h->lock, NULL) == 0;
  char run_id[64] = "";
  bool claimed = false;
  enum gcb_status st = parse_stall(h, opts->stall);
  if (st == GCB_OK)
    st = gcb_progress_wanted(opts, &h->progress, &ctx->err);
  if (st == GCB_OK && ctx->rank == 0) {
    gcb__run_id(run_id, sizeof run_id);
    st = gcb__output_path(opts->output, run_id, opts->force, h->output,
                          sizeof h->output, &ctx->err);
    claimed = st == GCB_OK && !opts->force;
    if (st == GCB_OK && (h->document.results = gcb_results_new()) == NULL)
      st =
          gcb_err_set(&ctx->err, GCB_ENOMEM, "results document: out of memory");
    if (st == GCB_OK)
      st = gcb_results_set(h->document.results, "options", options, &ctx->err);
    else
      json_decref(options);
  } else {
    json_decref(options);
  }
  if ((st = gcb_context_agree(ctx, st)) != GCB_OK)
    return unclaim(h->output, claimed, st);
  int rc = MPI_Bcast(run_id, sizeof run_id, MPI_CHAR, 0, ctx->world);
  if (rc != MPI_SUCCESS)
    return unclaim(h->output, claimed,
                   gcb_mpi_err(&ctx->err, rc, "MPI_Bcast of the run id"));
  char blas[sizeof h->table.blas];
  st = gcb__header_build(ctx, h->document.results, command, argc, argv, run_id,
                         &h->rank_names, &h->device_lines, blas, sizeof blas);
  if (st != GCB_OK)
    return unclaim(h->output, claimed, st);
  if (ctx->rank == 0) {
    h->document.path = h->output;
    h->table = (struct gcb_table){
        .out = stdout,
        .tty = ctx->stdout_tty,
        .rank_names = h->rank_names,
        .device_lines = (const char(*)[GCB_DEVICE_LINE])h->device_lines,
        .nranks = ctx->size};
    if (opts->dropin)
      h->table.own = stderr;
    h->nccl_json = (struct gcb_nccl_json){
        .out = stdout,
        .argc = argc,
        .argv = argv,
        .device_lines = (const char(*)[GCB_DEVICE_LINE])h->device_lines,
        .nranks = ctx->size};
    h->sinks[h->nsinks++] = gcb_nccl_json_sink(&h->nccl_json);
    snprintf(h->table.blas, sizeof h->table.blas, "%s", blas);
    const json_t *root = gcb_results_json(h->document.results);
    /* as a person reads it: a newline or an escape in a transport
     * variable's value (UCX_TLS) would forge a row of the table or a
     * terminal's state; each is \xNN (4 bytes a byte at most) */
    size_t mpi = gcb_view_mpi_line(root, NULL, 0) + 1;
    char *line = malloc(mpi);
    if (line == NULL || (h->table.mpi = malloc(4 * mpi)) == NULL)
      st = gcb_err_set(&ctx->err, GCB_ENOMEM, "the MPI line of the table");
    else {
      gcb_view_mpi_line(root, line, mpi);
      gcb_text_shown(h->table.mpi, 4 * mpi, line);
    }
    free(line);
    gcb_view_mpi_probe_line(gcb_results_json(h->document.results),
                            h->table.mpi_probe, sizeof h->table.mpi_probe);
    h->sinks[h->nsinks++] = gcb_table_sink(&h->table);
    h->table.progress = h->progress;
    h->sinks[h->nsinks++] = gcb_document_sink(&h->document);
    if (st == GCB_OK)
      st = first_write(h, command);
  }
  if ((st = gcb_context_agree(ctx, st)) != GCB_OK)
    return unclaim(h->output, claimed, st);
  gcb__claim_release(); /* the document is in it: the watchdog's next */
  return start_watchdog(h);
}

/* The GPU's clocks, power and throttle reasons while the case runs
 * (backends that have them): a failure to sample leaves the case alone. */
static void telemetry_start(struct gcb_harness *h) {
  const struct gcb_backend_ops *ops = h->ctx->backend_ops;
  struct gcb_err ignored = {0};
  if (ops->telemetry_start != NULL)
    (void)ops->telemetry_start(h->ctx->backend, &ignored);
}

static void telemetry_stop(struct gcb_harness *h, struct gcb_telemetry *out) {
  const struct gcb_backend_ops *ops = h->ctx->backend_ops;
  *out = (struct gcb_telemetry){.available = false};
  if (ops->telemetry_stop != NULL)
    ops->telemetry_stop(h->ctx->backend, out);
}

static void warmed(void *h) {
  telemetry_start(h);
}

/* A long measurement's progress: rank 0's line, where it is shown. */
static void progress_tick(void *arg, double done_s, double total_s) {
  struct gcb_harness *h = arg;
  if (h->ctx->rank == 0 && h->current != NULL)
    gcb_table_progress_time(&h->table, h->current, done_s, total_s);
}

/* Warm-up, then `iters` timed samples of one operation each. */
static enum gcb_status measure(struct gcb_harness *h, struct gcb_op *op,
                               double *samples) {
  struct gcb_err *err = &h->ctx->err;
  double ignored;
  enum gcb_status st = GCB_OK;
  for (long i = 0; i < h->opts->warmup && st == GCB_OK; i++) {
    gcb_watchdog_step(h->watchdog);
    st = op->run(op->state, 1, &ignored, err);
  }
  /* Telemetry from the end of the warm-up: a sample of the idle GPU
   * before it would read as the case's minimum clock. */
  telemetry_start(h);
  /* Ranks start timing together: concurrent ranks share memory and links. */
  gcb_watchdog_step(h->watchdog);
  int rc = MPI_Barrier(h->ctx->world);
  if (rc != MPI_SUCCESS && st == GCB_OK)
    st = gcb_mpi_err(err, rc, "MPI_Barrier before timing");
  for (long i = 0; i < h->opts->iters && st == GCB_OK; i++) {
    gcb_watchdog_step(h->watchdog);
    st = op->run(op->state, 1, &samples[i], err);
  }
  return st;
}

/* The default timing: the median of single timed runs. */
static enum gcb_status measure_samples(struct gcb_harness *h, struct gcb_op *op,
                                       struct gcb_rank_result *out) {
  double *samples = calloc((size_t)h->opts->iters, sizeof *samples);
  if (samples == NULL)
    return gcb_err_set(&h->ctx->err, GCB_ENOMEM, "samples: out of memory");
  enum gcb_status st = measure(h, op, samples);
  if (st == GCB_OK) {
    gcb_stats_compute(samples, (size_t)h->opts->iters, &out->seconds);
    out->time_s = out->seconds.median;
  }
  free(samples);
  return st;
}

static enum gcb_status measure_and_check(struct gcb_harness *h,
                                         const struct gcb_bench *bench,
                                         const void *bench_opts, void *state,
                                         struct gcb_op *op, struct wire *w) {
  /* A hook warms up itself and starts the telemetry through
   * gcb_timing_warmed() when it is done. */
  struct gcb_timing t = {.iters = h->opts->iters,
                         .warmup = h->opts->warmup,
                         .timed = h->opts->iters,
                         .no_check = h->opts->no_check,
                         .warmed = warmed,
                         .warmed_arg = h,
                         .progress = progress_tick,
                         .progress_arg = h};
  enum gcb_status st = bench->measure
                           ? bench->measure(h->ctx, bench_opts, state, op, &t,
                                            &w->result, &h->ctx->err)
                           : measure_samples(h, op, &w->result);
  if (bench->measure)
    gcb_timing_warmed(&t); /* started and stopped in pairs */
  w->timed = t.timed;
  w->warmed = t.warmup;
  telemetry_stop(h, &w->result.telemetry);
  gcb_watchdog_phase(h->watchdog, GCB_WD_CHECK);
  if (st == GCB_OK && !h->opts->no_check && op->check)
    st = op->check(op->state, &w->check, &h->ctx->err);
  if (w->check.method)
    snprintf(w->method, sizeof w->method, "%s", w->check.method);
  return st;
}

/* Gathers every rank's wire record into rec->ranks on rank 0. */
static enum gcb_status gather(struct gcb_harness *h, const struct wire *mine,
                              struct gcb_record *rec, struct wire *all) {
  struct gcb_ctx *ctx = h->ctx;
  int rc = MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine,
                      MPI_BYTE, 0, ctx->world);
  if (rc != MPI_SUCCESS)
    return gcb_mpi_err(&ctx->err, rc, "MPI_Gather of case statistics");
  for (int r = 0; ctx->rank == 0 && r < ctx->size; r++) {
    struct gcb_rank_result *rr = &rec->ranks[r];
    /* The record says what was timed, as the hook reports it. */
    if (r == 0 || all[r].timed > rec->iterations)
      rec->iterations = (int)all[r].timed;
    if (r == 0)
      rec->warmup = (int)all[r].warmed;
    const struct gcb_check *c = &all[r].check;
    *rr = all[r].result;
    rr->rank = r;
    rr->check =
        (struct gcb_validation){.checked = c->checked,
                                .samples = c->samples,
                                .wrong = c->wrong,
                                .max_error = c->max_error,
                                .tolerance = c->tolerance,
                                .method = c->checked ? all[r].method : NULL};
  }
  return GCB_OK;
}

static void count(struct gcb_harness *h, const struct gcb_record *rec) {
  h->totals.cases++;
  for (int r = 0; r < rec->nranks; r++)
    if (rec->ranks[r].check.wrong > 0) {
      h->totals.invalid++;
      return;
    }
}

/* --stall-rank: this rank stops making progress, as a hung device or a
 * wedged process would, until the watchdog ends the run (an hour at most,
 * for a run without one). */
static void stall(void) {
  for (int i = 0; i < 3600; i++)
    sleep(1);
}

/* Runs one case; returns non-OK only when the whole run must stop. */
static enum gcb_status run_case(struct gcb_harness *h,
                                const struct gcb_bench *bench,
                                const void *bench_opts, void *state, int index,
                                int ncases, struct gcb_rank_result *ranks,
                                struct wire *all) {
  struct gcb_ctx *ctx = h->ctx;
  struct gcb_record rec = {.bench = bench->name,
                           .backend = ctx->backend_ops->name,
                           .iterations = (int)h->opts->iters,
                           .warmup = (int)h->opts->warmup,
                           .nranks = ctx->size,
                           .ranks = ranks};
  struct gcb_op op = {0};
  struct wire mine = {0};
  char what[48];
  snprintf(what, sizeof what, "case %d of %d", index + 1, ncases);
  gcb_watchdog_arm(h->watchdog, bench->name, what);
  gcb_watchdog_phase(h->watchdog, GCB_WD_SETUP);
  gcb_err_clear(&ctx->err);
  enum gcb_status st =
      bench->setup(ctx, bench_opts, state, index, &rec, &op, &ctx->err);
  if (rec.label[0] != '\0')
    gcb_watchdog_label(h->watchdog, rec.label);
  if (ctx->rank == 0)
    gcb_table_progress(&h->table, &rec, index, ncases);
  st = gcb_context_agree(ctx, st);
  gcb_watchdog_phase(h->watchdog, GCB_WD_MEASURE);
  if (st == GCB_OK && ctx->rank == h->stall_rank && index == h->stall_case)
    stall();
  h->current = &rec;
  if (st == GCB_OK)
    st = gcb_context_agree(
        ctx, measure_and_check(h, bench, bench_opts, state, &op, &mine));
  h->current = NULL;
  gcb_op_release(&op);
  enum gcb_status sink = GCB_OK;
  gcb_watchdog_phase(h->watchdog, GCB_WD_GATHER);
  if (st == GCB_OK && (st = gather(h, &mine, &rec, all)) == GCB_OK) {
    gcb_watchdog_phase(h->watchdog, GCB_WD_RECORD);
    if (ctx->rank == 0 && (sink = to_sinks_record(h, &rec)) == GCB_OK)
      count(h, &rec);
  } else if (st == GCB_EUNSUPPORTED) {
    h->totals.skipped++;
    if (ctx->rank == 0)
      sink = to_sinks_skip(h, &rec, gcb_errmsg(ctx));
  } else {
    h->totals.failed++;
    if (ctx->rank == 0)
      sink = to_sinks_error(h, &rec, -1, st, gcb_errmsg(ctx));
  }
  /* A sink that cannot write (disk full) ends the run on every rank. */
  sink = gcb_context_agree(ctx, sink);
  gcb_watchdog_disarm(h->watchdog);
  /* A library call that gave up at the deadline (a stuck NCCL
   * communicator) leaves nothing to run the next case on: the run ends as
   * a timeout, as when the watchdog ends it. */
  return sink == GCB_OK && st == GCB_ETIMEOUT ? st : sink;
}

/* Frees a benchmark's run-wide state, watched like its set-up: a
 * communicator's tear-down can hang where a peer is gone. */
static void close_bench(struct gcb_harness *h, const struct gcb_bench *bench,
                        void *state) {
  if (bench->close == NULL)
    return;
  gcb_watchdog_arm(h->watchdog, bench->name, "tear-down");
  gcb_watchdog_phase(h->watchdog, GCB_WD_CLOSE);
  bench->close(state);
  gcb_watchdog_disarm(h->watchdog);
}

/* A benchmark whose run-wide state cannot be made: one skip or error
 * line for the whole benchmark, named after it. */
static enum gcb_status report_unopened(struct gcb_harness *h,
                                       const struct gcb_bench *bench,
                                       enum gcb_status st) {
  struct gcb_record rec = {.bench = bench->name,
                           .backend = h->ctx->backend_ops->name};
  snprintf(rec.label, sizeof rec.label, "(all cases)");
  enum gcb_status sink = GCB_OK;
  if (st == GCB_EUNSUPPORTED)
    h->totals.skipped++;
  else
    h->totals.failed++;
  if (h->ctx->rank == 0)
    sink = st == GCB_EUNSUPPORTED
               ? to_sinks_skip(h, &rec, gcb_errmsg(h->ctx))
               : to_sinks_error(h, &rec, -1, st, gcb_errmsg(h->ctx));
  return gcb_context_agree(h->ctx, sink);
}

enum gcb_status gcb_harness_run(struct gcb_harness *h,
                                const struct gcb_bench *bench,
                                const void *bench_opts) {
  struct gcb_ctx *ctx = h->ctx;
  void *state = NULL;
  gcb_err_clear(&ctx->err);
  enum gcb_status st = GCB_OK;
  if (bench->open) {
    /* Set-up (a communicator, NCCL's above all) is watched like a case. */
    gcb_watchdog_arm(h->watchdog, bench->name, "set-up");
    gcb_watchdog_phase(h->watchdog, GCB_WD_OPEN);
    st =
        gcb_context_agree(ctx, bench->open(ctx, bench_opts, &state, &ctx->err));
    gcb_watchdog_disarm(h->watchdog);
  }
  if (st != GCB_OK) {
    close_bench(h, bench, state);
    /* A usage error in the benchmark's own options ends the run. */
    if (st == GCB_EUSAGE)
      return st;
    enum gcb_status sink = report_unopened(h, bench, st);
    return sink == GCB_OK && st == GCB_ETIMEOUT ? st : sink;
  }
  int n = bench->count(ctx, bench_opts);
  struct gcb_rank_result *ranks = calloc((size_t)ctx->size, sizeof *ranks);
  struct wire *all = calloc((size_t)ctx->size, sizeof *all);
  st = ranks && all
           ? GCB_OK
           : gcb_err_set(&ctx->err, GCB_ENOMEM, "case buffers: out of memory");
  st = gcb_context_agree(ctx, st);
  for (int i = 0; i < n && st == GCB_OK; i++)
    st = run_case(h, bench, bench_opts, state, i, n, ranks, all);
  free(ranks);
  free(all);
  close_bench(h, bench, state);
  return st;
}

enum gcb_status gcb_harness_end(struct gcb_harness *h, enum gcb_status status) {
  struct gcb_ctx *ctx = h->ctx;
  enum gcb_status st = GCB_OK;
  if (ctx == NULL) /* the run never began */
    return GCB_OK;
  struct gcb_err failure = ctx->err; /* the finish hooks may write it */
  ctx->deadline = NULL;
  ctx->watchdog = NULL;
  gcb_watchdog_stop(h->watchdog);
  h->watchdog = NULL;
  for (int i = 0; ctx->rank == 0 && i < h->nsinks; i++)
    if (h->sinks[i].finish)
      h->sinks[i].finish(h->sinks[i].self, &ctx->err);
  gcb_nccl_json_free(&h->nccl_json);
  free(h->rank_names);
  h->rank_names = NULL;
  free(h->device_lines);
  h->device_lines = NULL;
  free(h->table.mpi);
  h->table.mpi = NULL;
  if (ctx->rank == 0 && h->document.results) {
    const char *word = status == GCB_OK         ? "complete"
                       : status == GCB_ETIMEOUT ? "timeout"
                                                : "failed";
    struct gcb_err err = {0};
    st = GCB_OK;
    /* What ended the run (a document that could not be written, a
     * benchmark that could not start) is said in the document too; a
     * timeout is a case's error already. */
    if (status != GCB_OK && status != GCB_ETIMEOUT)
      st = gcb_results_add_error(
          h->document.results, "gcbench", "the run", -1, status,
          failure.msg[0] ? failure.msg : gcb_status_message(status), &err);
    if (st == GCB_OK)
      st = gcb__header_finish(h->document.results, word, &err);
    if (st == GCB_OK)
      st = gcb_document_write_last(&h->document, &err);
    if (st != GCB_OK && status == GCB_OK)
      ctx->err = err;
    gcb_results_free(h->document.results);
    h->document.results = NULL;
  }
  if (h->locked)
    pthread_mutex_destroy(&h->lock);
  h->locked = false;
  return st;
}
