/*
 * null: a benchmark that does nothing (fio's null engine, on the benchmark
 * side), there to test the harness, the sinks and the watchdog without
 * hardware. Each case times an empty operation on the clock the harness
 * uses, so what it records is measured, not invented; the harness's
 * timing (no measure hook). Test-only knobs make a case skip or fail.
 * Hidden from `list`, the usage text and `suite`; run by name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench/bench.h"
#include "common/clock.h"

struct null_opts {
  long cases;
  long skip_case, fail_case; /* -1: none */
  long sleep_us;             /* each operation lasts this long */
};

#define OPT(field) offsetof(struct null_opts, field)
static const struct gcb_option null_options[] = {
    {"cases", 0, GCB_OPT_INT, OPT(cases), "2", "N", "cases to run", NULL, 1,
     1000},
    {"skip-case", 0, GCB_OPT_INT, OPT(skip_case), "-1", "CASE",
     "this case (from 0) is skipped as not supported", NULL, -1, 0},
    {"fail-case", 0, GCB_OPT_INT, OPT(fail_case), "-1", "CASE",
     "this case (from 0) fails at set-up", NULL, -1, 0},
    {"sleep-us", 0, GCB_OPT_INT, OPT(sleep_us), "0", "US",
     "each operation sleeps US microseconds (a run that lasts)", NULL, 0, 1e7},
    {0},
};
#undef OPT

/* The empty operation (or a sleep of --sleep-us): the time the clock
 * says it took. */
static enum gcb_status null_run(void *state, int reps, double *seconds,
                                struct gcb_err *err) {
  (void)err;
  const long *sleep_us = state;
  volatile int sink = 0;
  double t0 = gcb_now_s();
  for (int i = 0; i < reps; i++) {
    sink = sink + 1;
    if (*sleep_us > 0)
      nanosleep(&(struct timespec){.tv_sec = *sleep_us / 1000000,
                                   .tv_nsec = *sleep_us % 1000000 * 1000},
                NULL);
  }
  *seconds = gcb_now_s() - t0;
  return GCB_OK;
}

/* Nothing to compare; says so with one sample and no error. */
static enum gcb_status null_check(void *state, struct gcb_check *out,
                                  struct gcb_err *err) {
  (void)state, (void)err;
  *out = (struct gcb_check){
      .checked = true, .samples = 1, .method = "nothing to compare (null)"};
  return GCB_OK;
}

static int null_count(const struct gcb_ctx *ctx, const void *opts) {
  (void)ctx;
  return (int)((const struct null_opts *)opts)->cases;
}

static enum gcb_status null_setup(struct gcb_ctx *ctx, const void *opts,
                                  void *state, int index,
                                  struct gcb_record *rec, struct gcb_op *op,
                                  struct gcb_err *err) {
  (void)ctx, (void)state;
  const struct null_opts *o = opts;
  snprintf(rec->label, sizeof rec->label, "null %d", index);
  gcb_record_param_int(rec, "case", index);
  rec->work_per_op = 1.0; /* one empty operation */
  rec->figure = (struct gcb_figure_spec){
      .unit = "Mop/s", .scale = 1e6, .counted = "empty operations"};
  if (index == o->skip_case)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "null: case %d skipped", index);
  if (index == o->fail_case)
    return gcb_err_set(err, GCB_EIO, "null: case %d failed", index);
  long *sleep_us = malloc(sizeof *sleep_us);
  if (sleep_us == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "null: out of memory");
  *sleep_us = o->sleep_us;
  *op = (struct gcb_op){
      .state = sleep_us, .run = null_run, .check = null_check, .release = free};
  return GCB_OK;
}

const struct gcb_bench gcb_bench_null = {
    .name = "null",
    .summary = "does nothing, measured (tests the harness)",
    .options = null_options,
    .opts_size = sizeof(struct null_opts),
    .count = null_count,
    .setup = null_setup,
    .hidden = true,
};
