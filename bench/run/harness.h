/*
 * The harness: runs benchmark cases on every rank, gathers per-rank
 * statistics to rank 0, and feeds finished records to the sinks (live table,
 * results document). Collective: every rank calls every function here.
 */
#ifndef GCB_HARNESS_H
#define GCB_HARNESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/bench.h"
#include "bench/run/context.h"
#include "bench/run/sink.h"
#include "reports/reports.h"

/* Options every run command shares (see gcb_run_options). */
struct gcb_run_opts {
  const char *backend;
  long iters;
  long warmup;
  const char *output; /* results document path; NULL: generated */
  uint64_t seed;
  bool no_check;
  bool force;
  double timeout;    /* seconds per case; 0: no watchdog */
  const char *stall; /* test only: "RANK:CASE" */
  bool progress;     /* --progress: the progress line, wherever stderr goes */
  bool no_progress;  /* --no-progress: never */
  /* Not an option: set when gcbench runs as another tool's program
   * (all_reduce_perf, osu_latency ...). gcbench's own lines then go to
   * stderr, so that stdout holds the tool's lines alone. */
  bool dropin;
  /* Under OSU's program names: OSU writes nothing but its table, and a
   * job's or pod's log holds both streams, where any line of gcbench's
   * sits among OSU's rows (a parser that reads every line after the
   * column header as a row then fails: converged-computing/
   * metrics-operator's osu_benchmark.py). gcbench's opening and closing
   * lines are left out of a run that went well (the results document
   * holds what they say); a run with wrong results or failures still ends
   * with its "# results:" line on stderr. */
  bool quiet;
};

/*
 * Whether rank 0 shows the progress line (bench/run/progress.c):
 * --progress or --no-progress when given (not both: GCB_EUSAGE), else
 * GCB_PROGRESS=1 or 0 from the environment (another value: GCB_EUSAGE),
 * else when this process's stderr is a terminal, or when the launcher it
 * runs under (mpiexec, mpirun: the nearest such ancestor process) has a
 * terminal on its stderr, which it forwards the ranks' stderr to. Quiet
 * when piped or redirected, and under srun (no ancestor) unless asked.
 */
enum gcb_status gcb_progress_wanted(const struct gcb_run_opts *opts, bool *out,
                                    struct gcb_err *err);

/* The shared option table, filling struct gcb_run_opts. */
extern const struct gcb_option gcb_run_options[];

/* Counts of what a run did, for the exit code. */
struct gcb_run_totals {
  int cases, skipped, failed, invalid;
};

struct gcb_watchdog;

struct gcb_harness {
  struct gcb_ctx *ctx;
  const struct gcb_run_opts *opts;
  struct gcb_watchdog *watchdog; /* deadlines with --timeout > 0 only */
  pthread_mutex_t lock;          /* the document: sinks and the watchdog */
  bool locked;                   /* lock is initialised */
  int stall_rank, stall_case;    /* --stall-rank; -1: none */
  char output[4096];             /* resolved results path (rank 0) */
  struct gcb_table table;        /* rank 0 only, like everything below */
  char (*rank_names)[96];        /* "host, device" by rank */
  char (*device_lines)[GCB_DEVICE_LINE]; /* nccl-tests' device list */
  struct gcb_document document;
  struct gcb_nccl_json nccl_json; /* -J: nccl-tests' document */
  struct gcb_sink sinks[3];
  int nsinks;
  struct gcb_run_totals totals;
  bool progress;                    /* gcb_progress_wanted's answer */
  const struct gcb_record *current; /* the case being measured (its line) */
};

/*
 * Checks every benchmark's options (their validate hooks, NULL-terminated
 * lists as gcb__run takes them) on every rank, before the run begins:
 * GCB_EUSAGE with the first problem when a rank finds one (a size that
 * cannot fit says which rank). Collective.
 */
enum gcb_status gcb_harness_validate(struct gcb_ctx *ctx,
                                     const struct gcb_bench *const *benches,
                                     void *const *bench_opts);

/*
 * Starts a run: resolves the output path (refusing to overwrite without
 * --force, creating missing directories), builds the results header
 * (tool, run, options, software, nodes, ranks) and writes it once, so that
 * an unwritable path fails before any benchmark runs (GCB_EUSAGE naming
 * it), then starts the watchdog (--timeout): from here on a case that does
 * not finish in time, or a rank that dies, ends the process with the
 * document recording why. `options` is the echo of resolved options
 * (stolen).
 */
enum gcb_status gcb_harness_begin(struct gcb_harness *h, struct gcb_ctx *ctx,
                                  const struct gcb_run_opts *opts,
                                  const char *command, int argc, char **argv,
                                  json_t *options);

/* Runs every case of one benchmark; a failing case is recorded and the
 * run goes on. Returns an error only when the run cannot continue. */
enum gcb_status gcb_harness_run(struct gcb_harness *h,
                                const struct gcb_bench *bench,
                                const void *bench_opts);

/* Stops the watchdog, marks the run complete/failed/timeout, writes the
 * document a last time, frees. */
enum gcb_status gcb_harness_end(struct gcb_harness *h, enum gcb_status status);

#endif
