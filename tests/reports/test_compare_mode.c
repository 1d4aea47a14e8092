/*
 * compare and the launches' MPI mode (reports/compare/compare_notes.c,
 * gcb__compare_mode): when two runs' start-up MPI probes (run.mpi_probe)
 * differ by 1.5x or more, compare says so in a note naming both probe
 * values, and the small MPI messages that moved the probes' way are marked
 * "MPI mode" instead of regressed or better; everything else is judged as
 * before.
 */
#include <math.h>

#include "reports/compare/compare.h"
#include "tests/reports/report_fixture.h"

/* A collective case of `size` bytes whose busbw is `busbw`, on every rank,
 * with the params compare leaves out of a collective's key (count,
 * comm_size), as gcbench writes them. */
static json_t *coll_case(double size, double busbw) {
  char params[160], label[64];
  snprintf(params, sizeof params,
           "{\"op\": \"allreduce\", \"type\": \"float\", \"redop\": \"sum\", "
           "\"size\": %.0f, \"inplace\": 0, \"comm_size\": 2, \"count\": 2}",
           size);
  snprintf(label, sizeof label, "allreduce float sum %.0fB", size);
  const double figs[] = {busbw, busbw};
  json_t *c = fx_case("coll", label, params, "GB/s", figs, 2, 1e-4, NULL);
  json_object_set_new(json_object_get(c, "summary"), "busbw", json_real(busbw));
  return c;
}

/* A two-rank run whose probe read probe_us (<= 0: no probe) and whose
 * figures are scaled by `speed`: an 8 B and a 64 B allreduce (64 B at
 * speed64), a 1 MiB one and a gemm case. */
static json_t *run(double probe_us, double speed, double speed64) {
  json_t *doc = fx_doc(2, 1, 8, "Test CPU");
  if (probe_us > 0)
    json_object_set_new(
        json_object_get(doc, "run"), "mpi_probe",
        json_pack("{s:i, s:i, s:i, s:[{s:[i,i], s:b, s:i, s:f, s:f}]}", "bytes",
                  8, "round_trips", 200, "batches", 10, "pairs", "ranks", 0, 1,
                  "same_node", 1, "batches", 10, "median_us", probe_us * 1.05,
                  "min_us", probe_us));
  fx_add_case(doc, coll_case(8, 0.04 * speed));
  fx_add_case(doc, coll_case(64, 0.3 * speed64));
  fx_add_case(doc, coll_case(1 << 20, 10 * speed));
  const double gemm[] = {100 * speed, 100 * speed};
  fx_add_case(doc, fx_case("gemm", "fp32 1024", "{\"dtype\": \"fp32\"}",
                           "GFLOP/s", gemm, 2, 1e-4, NULL));
  fx_check_valid(doc);
  return doc;
}

struct outcome {
  enum gcb_verdict v8, v64, v1m, vgemm;
  size_t regressions;
  char note[2][160]; /* the MPI mode note's values; "" without one */
};

static enum gcb_verdict verdict_of(const struct gcb_comparison *cmp,
                                   const char *title) {
  for (size_t i = 0; i < cmp->ndeltas; i++)
    if (strstr(cmp->deltas[i].title, title) != NULL)
      return cmp->deltas[i].verdict;
  cr_assert_fail("no row %s", title);
  return GCB_VERDICT_SAME;
}

static struct outcome compare_runs(json_t *old, json_t *new_) {
  struct gcb_doc o = fx_doc_of("old.json", old),
                 n = fx_doc_of("new.json", new_);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_comparison cmp = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_compare(&o, &n, &t, &cmp, &err), GCB_OK, "%s", err.msg);
  struct outcome out = {.v8 = verdict_of(&cmp, "sum 8B"),
                        .v64 = verdict_of(&cmp, "sum 64B"),
                        .v1m = verdict_of(&cmp, "sum 1048576B"),
                        .vgemm = verdict_of(&cmp, "fp32 1024"),
                        .regressions = cmp.regressions};
  for (size_t i = 0; i < cmp.nnotes; i++)
    if (strncmp(cmp.notes[i].what, "MPI mode", 8) == 0) {
      snprintf(out.note[0], sizeof out.note[0], "%s", cmp.notes[i].old_value);
      snprintf(out.note[1], sizeof out.note[1], "%s", cmp.notes[i].new_value);
    }
  gcb_comparison_free(&cmp);
  fx_doc_free(&o);
  fx_doc_free(&n);
  json_decref(old);
  json_decref(new_);
  return out;
}

Test(compare_mode, a_slower_mpi_mode_marks_small_messages_mode_not_regressed) {
  /* the VM's two modes: 0.19 us and 0.45 us; everything 2x slower, the
   * 64 B allreduce faster */
  struct outcome r = compare_runs(run(0.19, 1, 1), run(0.45, 0.5, 1.2));
  cr_expect_eq(r.v8, GCB_VERDICT_MODE, "%s", gcb_verdict_name(r.v8));
  cr_expect_eq(r.v64, GCB_VERDICT_BETTER, "moved against the probes: judged");
  cr_expect_eq(r.v1m, GCB_VERDICT_REGRESSION, "beyond 8 KiB: judged");
  cr_expect_eq(r.vgemm, GCB_VERDICT_REGRESSION, "not MPI: judged");
  cr_expect_eq(r.regressions, 2 + 2,
               "1 MiB's and gemm's two rows each (a figure, the slowest)");
  cr_expect_str_eq(r.note[0], "190 ns");
  cr_expect_str_eq(r.note[1],
                   "450 ns: 2.37x slower; 2 small-message rows 'MPI mode'");
  cr_expect_str_eq(gcb_verdict_name(GCB_VERDICT_MODE), "MPI mode");
}

Test(compare_mode, a_faster_mpi_mode_marks_small_improvements_mode) {
  struct outcome r = compare_runs(run(0.45, 1, 1), run(0.19, 2, 0.5));
  cr_expect_eq(r.v8, GCB_VERDICT_MODE);
  cr_expect_eq(r.v64, GCB_VERDICT_REGRESSION,
               "slower while the probe got faster: a regression");
  cr_expect_eq(r.v1m, GCB_VERDICT_BETTER);
  cr_expect(strstr(r.note[1], "2.37x faster") != NULL, "%s", r.note[1]);
}

/* A mode change that moved no small-message row says so, not "0
 * small-message rows 'MPI mode'" (two real default suites on the VM). */
Test(compare_mode, a_mode_change_that_moved_no_row_says_so) {
  struct outcome r = compare_runs(run(0.19, 1, 1), run(0.45, 1, 1));
  cr_expect_eq(r.v8, GCB_VERDICT_SAME, "%s", gcb_verdict_name(r.v8));
  cr_expect_str_eq(r.note[1],
                   "450 ns: 2.37x slower; no small-message row moved with it");
}

Test(compare_mode, probes_within_one_and_a_half_times_change_nothing) {
  struct outcome r = compare_runs(run(0.40, 1, 1), run(0.45, 0.5, 1));
  cr_expect_eq(r.v8, GCB_VERDICT_REGRESSION);
  cr_expect_str_eq(r.note[0], "", "no MPI mode note");
  r = compare_runs(run(0.30, 1, 1), run(0.449, 0.5, 1)); /* 1.497x */
  cr_expect_eq(r.v8, GCB_VERDICT_REGRESSION);
}

Test(compare_mode, runs_without_a_probe_are_judged_as_before) {
  struct outcome r = compare_runs(run(0, 1, 1), run(0.45, 0.5, 1));
  cr_expect_eq(r.v8, GCB_VERDICT_REGRESSION);
  cr_expect_str_eq(r.note[0], "");
  r = compare_runs(run(0.19, 1, 1), run(0, 0.5, 1));
  cr_expect_eq(r.v8, GCB_VERDICT_REGRESSION);
}

Test(compare_mode, a_probe_milliseconds_slower_says_a_rank_waited_for_a_cpu) {
  /* the loaded VM: both ranks on one core, 6.2 ms a message */
  struct outcome r = compare_runs(run(0.41, 1, 1), run(6202, 0.5, 1));
  cr_expect_eq(r.v8, GCB_VERDICT_MODE);
  cr_expect_str_eq(r.note[1], "6.202 ms: 15127x slower (a rank waiting for a "
                              "CPU, or another transport); 2 small-message "
                              "rows 'MPI mode'");
}
