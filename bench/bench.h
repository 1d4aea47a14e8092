/*
 * Benchmark descriptors. A benchmark is one file defining one
 * `const struct gcb_bench gcb_bench_<name>`, listed in gcb_benches[]
 * (registry.c). It owns its options and knows, for each case, what one
 * operation is and how much work it does; the harness owns everything else
 * (warm-up, timing, statistics across ranks, validation, records, sinks).
 */
#ifndef GCB_BENCH_H
#define GCB_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/cli/options.h"
#include "bench/run/context.h"
#include "common/status.h"
#include "kernels/backend.h"
#include "reports/reports.h"

/* The iterations of one case: what the harness asks for (--iters,
 * --warmup, or a benchmark's alias of them), and what a measure hook
 * reports it timed. */
struct gcb_timing {
  long iters;    /* timed iterations asked for */
  long warmup;   /* untimed iterations before them; a hook that runs another
                    number (coll under OSU's rules, by size) says so here */
  long timed;    /* out: iterations timed (the hook's seconds.n) */
  bool no_check; /* --no-check: a hook that validates as it goes does not */
  /* Set by the harness: what gcb_timing_warmed() calls (it starts the
   * case's telemetry). */
  void (*warmed)(void *arg);
  void *warmed_arg;
  /* Set by the harness: what gcb_timing_progress() calls. */
  void (*progress)(void *arg, double done_s, double total_s);
  void *progress_arg;
};

/* A long measurement (burn) says how far it is, done_s of total_s
 * seconds, on every rank: rank 0's progress line shows the time left
 * where the progress line is shown (bench/run/progress.c). */
static inline void gcb_timing_progress(struct gcb_timing *t, double done_s,
                                       double total_s) {
  if (t->progress != NULL)
    t->progress(t->progress_arg, done_s, total_s);
}

/* A measure hook calls this once its warm-up is done, before it times:
 * the case's telemetry starts here, as it does after the harness's own
 * warm-up (a sample of the idle GPU would read as the case's minimum
 * clock). Later calls do nothing; a hook that never calls it gets its
 * telemetry started when it returns. */
static inline void gcb_timing_warmed(struct gcb_timing *t) {
  void (*warmed)(void *) = t->warmed;
  t->warmed = NULL;
  if (warmed != NULL)
    warmed(t->warmed_arg);
}

struct gcb_bench {
  const char *name;    /* command-line name = file name = descriptor suffix */
  const char *summary; /* one line for `gcbench --help` */
  const struct gcb_option *options; /* own options, {0}-terminated */
  size_t opts_size;                 /* size of the struct the options fill */

  /*
   * Optional: checks the options as a whole before the run begins (before
   * the results document exists), so that bad options end the run with
   * one line and no file: what one table row cannot check alone (-b above
   * -e, a --shapes list, options that exclude each other), and sizes that
   * cannot fit the memory there is (the backend is open; ask its fits()).
   * GCB_EUSAGE with one line naming the option. Not collective (no MPI):
   * the harness agrees on every rank's answer.
   */
  enum gcb_status (*validate)(const struct gcb_ctx *ctx, const void *opts,
                              struct gcb_err *err);

  /*
   * Optional: state shared by all cases of one run (a communicator, say),
   * made before the first case and freed after the last. Collective.
   * GCB_EUNSUPPORTED skips every case of the benchmark with the reason.
   */
  enum gcb_status (*open)(struct gcb_ctx *ctx, const void *opts, void **state,
                          struct gcb_err *err);
  void (*close)(void *state);

  /* Number of cases these options describe (same on every rank). */
  int (*count)(const struct gcb_ctx *ctx, const void *opts);

  /*
   * Describes case `index` in rec (label, params, work per operation,
   * figure), then prepares its operation through ctx's backend. The
   * description is filled even when preparing fails, so a skipped or failed
   * case is still named. GCB_EUNSUPPORTED means "skip, reason in err".
   */
  enum gcb_status (*setup)(struct gcb_ctx *ctx, const void *opts, void *state,
                           int index, struct gcb_record *rec, struct gcb_op *op,
                           struct gcb_err *err);

  /*
   * Optional: times the prepared operation itself and fills out's time_s,
   * seconds and late (aggregated loops, arrival skew), and t->timed with
   * the number of iterations it timed (what out->seconds counts): the
   * record and the live table say that number. NULL: the harness warms
   * up, then times t->iters single runs and takes their median.
   * Collective.
   */
  enum gcb_status (*measure)(struct gcb_ctx *ctx, const void *opts, void *state,
                             struct gcb_op *op, struct gcb_timing *t,
                             struct gcb_rank_result *out, struct gcb_err *err);

  /* Left out of `list`, the usage text and `suite`: the null benchmark,
   * there to test the harness, runs only when named. */
  bool hidden;
  /* In a suite only where the profile has a row for it: burn, which
   * takes as long as it is told, joins the profiles that say how long. */
  bool suite_opt_in;
};

/* Each benchmark's descriptor (bench/benches/<name>.c). */
extern const struct gcb_bench gcb_bench_gemm, gcb_bench_membw, gcb_bench_coll,
    gcb_bench_pcie, gcb_bench_p2p, gcb_bench_netmap, gcb_bench_launch,
    gcb_bench_pattern, gcb_bench_burn, gcb_bench_null;

/* Every benchmark, NULL-terminated, in suite order (registry.c). */
extern const struct gcb_bench *const gcb_benches[];

/* Benchmark by name, or NULL. */
const struct gcb_bench *gcb_bench_find(const char *name);

#endif
