/*
 * The burn-in report (reports/analysis/burn.c, rules_burn.c): findings and
 * root causes from the timeline of `gcbench burn` documents built by
 * tests/reports/burn_fixture.h -- a CPU hog, a frequency cap, a thermal
 * throttle, a node's power cap, silent errors and error counters each
 * give one root cause with its onset and the telemetry that shows why;
 * healthy burns with realistic noise and single-interval dips give no
 * warning at all.
 */
#include "reports/analysis/analyze.h"
#include "reports/analysis/burn.h"
#include "reports/analysis/diagnose.h"
#include "reports/criteria/expect.h"
#include "reports/plot/plot.h"
#include "reports/render/render.h"
#include "tests/reports/burn_fixture.h"

#define BURN_DATA(name) GCB_TEST_DATA "/burn/" name

struct run {
  json_t *doc;
  struct gcb_doc d;
  struct gcb_findings f;
  struct gcb_diagnosis dx;
};

/* Analyses and diagnoses the document (taking it). */
static void run(json_t *doc, struct run *x) {
  memset(x, 0, sizeof *x);
  x->doc = doc;
  x->d = fx_doc_of("burn.json", doc);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_err err = {0};
  cr_assert_eq(gcb_analyze(&x->d, 1, &t, &x->f, &err), GCB_OK, "%s", err.msg);
  gcb_findings_sort(&x->f);
  cr_assert_eq(gcb_diagnose(&x->d, 1, &x->f, &t, &x->dx, &err), GCB_OK, "%s",
               err.msg);
  cr_expect_eq(x->dx.unexplained, 0);
}

static void done(struct run *x) {
  gcb_diagnosis_free(&x->dx);
  gcb_findings_free(&x->f);
  fx_doc_free(&x->d);
  json_decref(x->doc);
}

static size_t count_kind(const struct run *x, const char *kind) {
  size_t n = 0;
  for (size_t i = 0; i < x->f.n; i++)
    n += strcmp(x->f.items[i].kind->name, kind) == 0;
  return n;
}

static const struct gcb_finding *first_kind(const struct run *x,
                                            const char *kind) {
  for (size_t i = 0; i < x->f.n; i++)
    if (strcmp(x->f.items[i].kind->name, kind) == 0)
      return &x->f.items[i];
  return NULL;
}

/* Every warn/fail finding, for a failure message. */
static void dump(const struct run *x, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < x->f.n && used < size; i++)
    if (x->f.items[i].severity != GCB_SEV_INFO)
      used +=
          (size_t)snprintf(buf + used, size - used, "\n  %s %s: %s",
                           gcb_severity_name(x->f.items[i].severity),
                           x->f.items[i].kind->name, x->f.items[i].explanation);
}

static size_t not_info(const struct run *x) {
  return x->f.n - gcb_findings_count(&x->f, GCB_SEV_INFO);
}

static size_t causes(const struct run *x) {
  return x->dx.n - gcb_diagnosis_cleared(&x->dx);
}

/* ---- healthy ------------------------------------------------------------ */

Test(burn_report, healthy_noisy_burns_of_2_to_8_ranks_give_no_warning) {
  static const struct {
    int ranks, nodes, nt;
    double interval;
    bool gpu;
  } shapes[] = {
      {2, 1, 60, 1, false}, {4, 1, 120, 1, false}, {8, 2, 90, 2, false},
      {2, 1, 600, 1, true}, {4, 1, 300, 2, true},  {8, 2, 600, 1, true},
      {3, 1, 20, 1, false}, {8, 1, 45, 1, true},
  };
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (unsigned seed = 1; seed <= 6; seed++) {
      struct bx *b =
          bx_new(shapes[s].ranks, shapes[s].nodes, shapes[s].nt,
                 shapes[s].interval, shapes[s].gpu, seed * 7919 + s, 0.03);
      struct run x;
      run(bx_doc(b), &x);
      char why[2048];
      dump(&x, why, sizeof why);
      cr_expect_eq(not_info(&x), 0, "shape %zu seed %u:%s", s, seed, why);
      cr_expect_eq(causes(&x), 0, "shape %zu seed %u", s, seed);
      done(&x);
      free(b);
    }
}

Test(burn_report, a_single_deep_dip_or_a_short_stall_is_not_a_falloff) {
  struct bx *b = bx_new(4, 1, 60, 1, false, 42, 0);
  b->v[BX_FIG][2][30] *= 0.3; /* one interval */
  b->v[BX_FIG][1][40] *= 0.5; /* two in a row */
  b->v[BX_FIG][1][41] *= 0.5;
  struct run x;
  run(bx_doc(b), &x);
  cr_expect_eq(count_kind(&x, "burn-falloff"), 0);
  cr_expect_eq(not_info(&x), 0);
  done(&x);
  free(b);
}

/* ---- host causes -------------------------------------------------------- */

Test(burn_report, a_cpu_hog_at_second_10_is_one_cause_on_rank_1_cpu_time) {
  for (unsigned seed = 1; seed <= 4; seed++) {
    struct bx *b = bx_new(2, 1, 60, 1, false, seed, 0.03);
    bx_hog(b, 1, 10, 0.48);
    struct run x;
    run(bx_doc(b), &x);
    cr_assert_eq(count_kind(&x, "burn-falloff"), 1, "seed %u", seed);
    const struct gcb_finding *f = first_kind(&x, "burn-falloff");
    cr_expect_eq(f->where.rank, 1);
    cr_expect_eq(f->severity, GCB_SEV_FAIL, "48 %% is past the fail line");
    cr_expect(strstr(f->explanation, "rank 1 falls 4") == f->explanation, "%s",
              f->explanation);
    cr_expect(strstr(f->explanation, "after 10 s") != NULL ||
                  strstr(f->explanation, "after 9 s") != NULL ||
                  strstr(f->explanation, "after 11 s") != NULL,
              "%s", f->explanation);
    cr_expect(strstr(f->explanation, "% of the CPU time it asked for") != NULL,
              "%s", f->explanation);
    cr_expect(strstr(f->suggestion, "another process") != NULL);
    cr_assert_eq(causes(&x), 1, "one root cause");
    const struct gcb_root_cause *rc = &x.dx.items[0];
    cr_expect_eq(rc->comp.rank, 1, "%s", rc->comp.name);
    cr_expect(strstr(rc->summary, "after 1") != NULL, "%s", rc->summary);
    cr_expect(strstr(rc->summary, "CPU time") != NULL, "%s", rc->summary);
    done(&x);
    free(b);
  }
}

Test(burn_report, the_onset_is_the_hogs_second_within_one_interval) {
  struct bx *b = bx_new(4, 1, 120, 1, false, 5, 0.03);
  bx_hog(b, 1, 10, 0.48);
  json_t *doc = bx_doc(b);
  struct gcb_doc d = fx_doc_of("burn.json", doc);
  const struct gcb_burn_timeline *tl = d.model->cases[0].timeline;
  cr_assert_not_null(tl, "the model holds the case's timeline");
  cr_assert_eq(tl->n, 120);
  cr_assert_eq(tl->nranks, 4);
  struct gcb_burn_rank r;
  cr_assert(gcb_burn_rank_judge(tl, 1, 0.1, 3, &r));
  cr_expect(fabs(r.onset_s - 10) <= 1, "onset %g", r.onset_s);
  cr_expect(fabs(r.drop - 0.48) < 0.04, "drop %g", r.drop);
  cr_expect_eq(r.cause, GCB_BURN_CAUSE_CPU_TIME);
  cr_assert(gcb_burn_rank_judge(tl, 0, 0.1, 3, &r));
  cr_expect_eq(r.onset, -1, "rank 0 holds");
  cr_expect(r.noise > 0.01 && r.noise < 0.04, "noise %g", r.noise);
  fx_doc_free(&d);
  json_decref(doc);
  free(b);
}

Test(burn_report, a_frequency_cap_with_steady_cpu_time_is_frequency) {
  struct bx *b = bx_new(2, 1, 90, 1, false, 11, 0.03);
  bx_freq_cap(b, 0, 20, 2000);
  struct run x;
  run(bx_doc(b), &x);
  cr_assert_eq(count_kind(&x, "burn-falloff"), 1);
  const struct gcb_finding *f = first_kind(&x, "burn-falloff");
  cr_expect_eq(f->where.rank, 0);
  cr_expect(strstr(f->explanation, "clocks 2,9") != NULL &&
                strstr(f->explanation, " -> 2,0") != NULL,
            "%s", f->explanation);
  cr_expect(strstr(f->explanation, "no thermal or power reason") != NULL, "%s",
            f->explanation);
  cr_expect(strstr(f->suggestion, "governor") != NULL, "%s", f->suggestion);
  cr_expect_eq(causes(&x), 1);
  done(&x);
  free(b);
}

/* ---- GPU causes ---------------------------------------------------------- */

Test(burn_report, a_thermal_throttle_at_4_min_10_s_is_one_cause_with_evidence) {
  struct bx *b = bx_new(8, 2, 600, 1, true, 3, 0.03);
  bx_thermal(b, 7, 250, 1620, 1); /* node01's local GPU 3 */
  struct run x;
  run(bx_doc(b), &x);
  char why[2048];
  dump(&x, why, sizeof why);
  cr_assert_eq(count_kind(&x, "burn-falloff"), 1, "%s", why);
  const struct gcb_finding *f = first_kind(&x, "burn-falloff");
  cr_expect(strstr(f->explanation, "GPU 3 (node01) falls 1") == f->explanation,
            "%s", f->explanation);
  cr_expect(strstr(f->explanation, "after 4 min 10 s") != NULL, "%s",
            f->explanation);
  cr_expect(strstr(f->explanation, "hw_thermal at 8") != NULL, "%s",
            f->explanation);
  cr_expect(strstr(f->explanation, "clocks 1,9") != NULL, "%s", f->explanation);
  cr_expect_eq(f->severity, GCB_SEV_WARN, "18 %% warns");
  cr_assert_eq(causes(&x), 1, "%s", why);
  const struct gcb_root_cause *rc = &x.dx.items[0];
  cr_expect_eq(rc->comp.kind, GCB_COMP_GPU);
  cr_expect_eq(rc->comp.gpu, 3);
  cr_expect_str_eq(rc->comp.hostname, "node01");
  cr_expect(strstr(rc->summary, "after 4 min 10 s") != NULL, "%s", rc->summary);
  cr_expect(strstr(rc->summary, "hw_thermal") != NULL, "%s", rc->summary);
  done(&x);
  free(b);
}

Test(burn_report, a_node_wide_power_fall_is_one_cause_on_the_node) {
  struct bx *b = bx_new(8, 2, 300, 1, true, 9, 0.03);
  bx_node_power(b, 1, 120, 450);
  struct run x;
  run(bx_doc(b), &x);
  char why[2048];
  dump(&x, why, sizeof why);
  cr_expect_eq(count_kind(&x, "burn-falloff"), 0, "%s", why);
  cr_assert_eq(count_kind(&x, "burn-node"), 1, "%s", why);
  const struct gcb_finding *f = first_kind(&x, "burn-node");
  cr_expect_str_eq(f->where.ranks, "4-7");
  cr_expect(strstr(f->explanation, "all 4 GPUs of node node01 fall") != NULL,
            "%s", f->explanation);
  cr_expect(strstr(f->explanation, "after 2 min") != NULL, "%s",
            f->explanation);
  cr_expect(strstr(f->explanation, "power") != NULL, "%s", f->explanation);
  cr_expect(strstr(f->explanation, "sw_power_cap") != NULL, "%s",
            f->explanation);
  cr_assert_eq(causes(&x), 1, "%s", why);
  cr_expect_eq(x.dx.items[0].comp.kind, GCB_COMP_NODE);
  cr_expect_str_eq(x.dx.items[0].comp.hostname, "node01");
  done(&x);
  free(b);
}

Test(burn_report, one_gpu_of_a_node_falling_is_not_the_node) {
  struct bx *b = bx_new(4, 1, 300, 1, true, 12, 0.03);
  bx_node_power(b, 0, 100, 450);
  /* GPU 2 holds: undo its cap */
  struct bx *h = bx_new(4, 1, 300, 1, true, 12, 0.03);
  for (int s = 0; s < BX_SERIES; s++)
    memcpy(b->v[s][2], h->v[s][2], sizeof b->v[s][2]);
  struct run x;
  run(bx_doc(b), &x);
  cr_expect_eq(count_kind(&x, "burn-node"), 0);
  cr_expect_eq(count_kind(&x, "burn-falloff"), 3);
  const struct gcb_finding *f = first_kind(&x, "burn-falloff");
  cr_expect(strstr(f->explanation, "sw_power_cap at 45") != NULL, "%s",
            f->explanation);
  done(&x);
  free(b);
  free(h);
}

/* ---- errors -------------------------------------------------------------- */

Test(burn_report, a_silent_error_fails_naming_rank_time_and_count) {
  struct bx *b = bx_new(4, 1, 120, 1, true, 21, 0.03);
  bx_wrong(b, 2, 95.5, 3);
  struct run x;
  run(bx_doc(b), &x);
  cr_assert_eq(count_kind(&x, "burn-silent-error"), 1);
  const struct gcb_finding *f = first_kind(&x, "burn-silent-error");
  cr_expect_eq(f->severity, GCB_SEV_FAIL);
  cr_expect_eq(f->where.rank, 2);
  cr_expect_eq(f->measured, 3);
  cr_expect(strstr(f->explanation, "GPU 2 (node00): 3 wrong product(s) of "
                                   "7680 compared in 1 interval(s), the first "
                                   "after 1 min 35 s") != NULL,
            "%s", f->explanation);
  cr_assert_eq(causes(&x), 1, "the validation finding joins it");
  cr_expect_eq(x.dx.items[0].severity, GCB_SEV_FAIL);
  cr_expect_eq(x.dx.items[0].comp.gpu, 2);
  cr_expect(strstr(x.dx.items[0].summary, "1 min 35 s") != NULL, "%s",
            x.dx.items[0].summary);
  done(&x);
  free(b);
}

Test(burn_report, counters_dbe_and_xid_fail_sbe_and_replays_warn) {
  struct bx *b = bx_new(4, 1, 120, 1, true, 22, 0.03);
  bx_count(b, BX_DBE, 1, 50, 2);
  bx_count(b, BX_SBE, 1, 40, 5);
  bx_count(b, BX_SBE, 3, 70, 12);
  bx_count(b, BX_REPLAY, 3, 80, 40);
  struct run x;
  run(bx_doc(b), &x);
  cr_assert_eq(count_kind(&x, "burn-counters"), 2);
  for (size_t i = 0; i < x.f.n; i++) {
    const struct gcb_finding *f = &x.f.items[i];
    if (strcmp(f->kind->name, "burn-counters") != 0)
      continue;
    if (f->where.rank == 1) {
      cr_expect_eq(f->severity, GCB_SEV_FAIL);
      cr_expect_eq(f->measured, 2);
      cr_expect(strstr(f->explanation, "double-bit) ECC errors +2") != NULL,
                "%s", f->explanation);
      cr_expect(strstr(f->explanation, "single-bit) ECC errors +5") != NULL,
                "%s", f->explanation);
      cr_expect(strstr(f->explanation, "first after 40 s") != NULL, "%s",
                f->explanation);
    } else {
      cr_expect_eq(f->where.rank, 3);
      cr_expect_eq(f->severity, GCB_SEV_WARN);
      cr_expect(strstr(f->explanation, "PCIe replays +40") != NULL, "%s",
                f->explanation);
    }
  }
  cr_expect_eq(causes(&x), 2);
  done(&x);
  free(b);
}

/* The errors of a rank are judged once, with its other figures, for the
 * rules, the table and the plot to read. */
Test(burn_report, a_ranks_errors_are_judged_with_it) {
  struct bx *b = bx_new(4, 1, 120, 1, true, 22, 0.03);
  bx_count(b, BX_DBE, 1, 50, 2);
  bx_count(b, BX_SBE, 1, 40, 5);
  bx_count(b, BX_REPLAY, 3, 80, 40);
  bx_wrong(b, 2, 95.5, 3);
  bx_wrong(b, 2, 100.5, 1);
  json_t *doc = bx_doc(b);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_doc d = fx_doc_of("burn.json", doc);
  struct gcb_burn_doc bd;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_burn_doc_read_model(d.model, &t, &bd, &err), GCB_OK, "%s",
               err.msg);
  cr_assert_eq(bd.n, 1);
  const struct gcb_burn_rank *r = bd.cases[0].ranks;
  cr_expect_str_eq(gcb_burn_counters[0].short_name, "DBE");
  cr_expect_eq(gcb_burn_counters[0].sev, GCB_SEV_FAIL);
  cr_expect_eq(r[1].rank, 1);
  cr_expect_eq(r[1].node, 0);
  cr_expect_eq(r[1].grew[0], 2, "double-bit");
  cr_expect_eq(r[1].grew_s[0], 50);
  cr_expect_eq(r[1].grew[2], 5, "single-bit");
  cr_expect_eq(r[1].grew_s[2], 40);
  cr_expect_eq(r[1].grew[1], 0, "no Xid");
  cr_expect(isnan(r[1].grew_s[1]));
  cr_expect_eq(r[3].grew[3], 40, "PCIe replays");
  cr_expect_eq(r[2].wrong, 4);
  cr_expect_eq(r[2].wrong_intervals, 2);
  cr_expect_eq(r[2].wrong_s, 95);
  cr_expect_eq(r[2].checked, 7680);
  cr_expect_eq(r[0].wrong, 0);
  cr_expect(isnan(r[0].wrong_s));
  cr_expect(!r[0].slow && !r[2].slow, "no rank is slow");
  cr_expect(bd.cases[0].peers > 0);
  struct gcb_burn_doc own;
  d.burn = &bd;
  t.outlier_min_ranks += 1; /* the slow-rank rule judged otherwise */
  cr_expect_eq(gcb_burn_doc_of(&d, &t, &own, &err), &own, "read anew");
  gcb_burn_doc_free(&own);
  gcb_burn_doc_free(&bd);
  fx_doc_free(&d);
  json_decref(doc);
  free(b);
}

/* A burn whose timeline has no wrong series (a writer that did not sample
 * it) counts each rank's wrong products from its validation: the finding
 * and the burn table's wrong column read the same count. */
Test(burn_report, without_a_wrong_series_the_validation_counts_for_all) {
  struct bx *b = bx_new(4, 1, 120, 1, true, 24, 0.03);
  bx_wrong(b, 2, 95.5, 3);
  b->has[BX_WRONG] = false;
  json_t *doc = bx_doc(b);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_doc d = fx_doc_of("burn.json", doc);
  struct gcb_burn_doc bd;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_burn_doc_read_model(d.model, &t, &bd, &err), GCB_OK, "%s",
               err.msg);
  cr_assert_eq(bd.n, 1);
  cr_expect_eq(bd.cases[0].ranks[2].wrong, 3, "the table's wrong cell");
  cr_expect_eq(bd.cases[0].ranks[2].wrong_intervals, 0);
  cr_expect_eq(bd.cases[0].ranks[0].wrong, 0);
  gcb_burn_doc_free(&bd);
  fx_doc_free(&d);
  struct run x;
  run(doc, &x);
  const struct gcb_finding *f = first_kind(&x, "burn-silent-error");
  cr_assert_not_null(f);
  cr_expect_eq(f->measured, 3);
  cr_expect(strstr(f->explanation, "3 wrong product(s) of 7680 compared "
                                   "during the burn") != NULL,
            "%s", f->explanation);
  done(&x);
  free(b);
}

Test(burn_report, counters_that_were_never_read_say_nothing) {
  struct bx *b = bx_new(2, 1, 60, 1, true, 23, 0);
  for (int i = 0; i < 60; i++)
    b->v[BX_DBE][0][i] = NAN; /* not reported: null */
  b->v[BX_SBE][1][30] = NAN;  /* one reading missed */
  struct run x;
  run(bx_doc(b), &x);
  cr_expect_eq(count_kind(&x, "burn-counters"), 0);
  done(&x);
  free(b);
}

/* ---- sustained ----------------------------------------------------------- */

Test(burn_report, a_rank_that_throttles_on_and_off_is_below_its_peak) {
  struct bx *b = bx_new(4, 1, 120, 1, true, 31, 0.03);
  for (int i = 0; i < 120; i++)
    if (i / 4 % 2 == 1)
      b->v[BX_FIG][2][i] *= 0.7;
  struct run x;
  run(bx_doc(b), &x);
  char why[2048];
  dump(&x, why, sizeof why);
  cr_assert_eq(count_kind(&x, "burn-sustained"), 1, "%s", why);
  const struct gcb_finding *f = first_kind(&x, "burn-sustained");
  cr_expect_eq(f->where.rank, 2);
  cr_expect(strstr(f->explanation, "below the peak it held") != NULL, "%s",
            f->explanation);
  done(&x);
  free(b);
}

/* One second on, one off: the running median keeps the high level (three
 * of each five intervals), so the rule still sees the peak it held. */
Test(burn_report, a_rank_that_throttles_every_other_second_is_below_its_peak) {
  struct bx *b = bx_new(4, 1, 60, 1, true, 33, 0.02);
  for (int i = 0; i < 60; i++)
    if (i % 2 == 1)
      b->v[BX_FIG][1][i] *= 0.6;
  struct run x;
  run(bx_doc(b), &x);
  char why[2048];
  dump(&x, why, sizeof why);
  cr_assert_eq(count_kind(&x, "burn-sustained"), 1, "%s", why);
  cr_expect_eq(first_kind(&x, "burn-sustained")->where.rank, 1);
  done(&x);
  free(b);
}

/* A shared VM: the neighbours pause now and then and a rank runs a third
 * faster for a second or two (seen in CI: 112 GFLOP/s in one interval of
 * a rank that sustained 84). Bursts are no peak it held: no warning, on
 * several seeds and at different places. */
Test(burn_report, bursts_of_a_second_or_two_are_not_a_peak_it_held) {
  for (unsigned seed = 40; seed < 46; seed++) {
    struct bx *b = bx_new(2, 1, 30, 1, false, seed, 0.04);
    int at = 3 + (int)(seed % 5) * 4;
    for (int r = 0; r < 2; r++) {
      b->v[BX_FIG][r][at] *= 1.35;
      b->v[BX_FIG][r][at + 1] *= 1.3;
      b->v[BX_FIG][r][(at + 11) % 30] *= 1.34;
    }
    struct run x;
    run(bx_doc(b), &x);
    char why[2048];
    dump(&x, why, sizeof why);
    cr_expect_eq(not_info(&x), 0, "seed %u: %s", seed, why);
    done(&x);
    free(b);
  }
}

/* A cgroup limit on rank 1 hands its core to rank 0, which steps up by
 * half and stays up (seen in a live cgroup burn here: rank 0's cpu_util
 * 1.94, its figure x1.45-1.65). A rise that lasts is no failure to hold
 * a peak: rank 0 gets no finding, at any place of the step, on several
 * seeds; rank 1's fall is still the one cause. */
Test(burn_report, a_rank_that_steps_up_and_stays_up_holds_its_peak) {
  for (unsigned seed = 50; seed < 56; seed++) {
    struct bx *b = bx_new(2, 1, 30, 1, false, seed, 0.03);
    int at = 6 + (int)(seed % 4) * 5; /* 6, 11, 16, 21 */
    bx_hog(b, 1, at, 0.5);
    double up = 1.45 + 0.04 * (seed % 5);
    for (int i = at; i < 30; i++) {
      b->v[BX_UTIL][0][i] *= 1.94;
      b->v[BX_FIG][0][i] *= up;
    }
    struct run x;
    run(bx_doc(b), &x);
    char why[2048];
    dump(&x, why, sizeof why);
    for (size_t i = 0; i < x.f.n; i++)
      cr_expect(x.f.items[i].severity == GCB_SEV_INFO ||
                    x.f.items[i].where.rank != 0,
                "seed %u step at %d: %s", seed, at, why);
    cr_expect_eq(count_kind(&x, "burn-falloff"), 1, "seed %u: %s", seed, why);
    cr_expect_eq(count_kind(&x, "burn-sustained"), 0, "seed %u: %s", seed, why);
    done(&x);
    free(b);
  }
}

/* The same rank stepping down again once it had stepped up is not
 * holding what it reached: the rule still sees it. */
Test(burn_report, a_rank_that_reaches_its_peak_then_throttles_is_below_it) {
  struct bx *b = bx_new(4, 1, 60, 1, true, 57, 0.02);
  for (int i = 0; i < 60; i++) /* low; from 10 s, 4 s up in every 10 */
    if (i < 10 || (i - 10) % 10 >= 4)
      b->v[BX_FIG][3][i] *= 0.7;
  struct run x;
  run(bx_doc(b), &x);
  char why[2048];
  dump(&x, why, sizeof why);
  cr_assert_eq(count_kind(&x, "burn-sustained"), 1, "%s", why);
  cr_expect_eq(first_kind(&x, "burn-sustained")->where.rank, 3);
  done(&x);
  free(b);
}

/* The timeline plot colours every rank a burn finding names: a rank
 * that throttles on and off (burn-sustained, below the peak it held)
 * from above its peers' level to below it, so that its sustained figure
 * is theirs (not slow), is drawn in colour and named in the key, as a
 * fall and a slow rank are. */
Test(burn_report, the_timeline_plot_colours_a_rank_below_its_peak) {
  struct bx *b = bx_new(4, 1, 120, 1, true, 31, 0.03);
  for (int i = 0; i < 120; i++)
    b->v[BX_FIG][2][i] *= i / 4 % 2 ? 0.8 : 1.3;
  struct run x;
  run(bx_doc(b), &x);
  const struct gcb_finding *f = first_kind(&x, "burn-sustained");
  cr_assert_eq(count_kind(&x, "burn-sustained"), 1);
  cr_expect(strstr(f->explanation, "below the peak it held") != NULL, "%s",
            f->explanation);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_burn_doc bd;
  struct gcb_err e = {0};
  cr_assert_eq(gcb_burn_doc_read_model(x.d.model, &t, &bd, &e), GCB_OK);
  cr_expect_not(bd.cases[0].ranks[2].slow, "not below its peers");
  gcb_burn_doc_free(&bd);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  struct gcb_plots plots = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_plot_script(m, &x.d, 1, &t, false, &plots, &err), GCB_OK);
  fclose(m);
  cr_expect(strstr(buf, "using 1:5 with lines lw 1.8 lc rgb '#e15759' "
                        "title 'rank 2 (") != NULL,
            "rank 2 (column 5) in the first colour, named in the key");
  gcb_plots_free(&plots);
  free(buf);
  done(&x);
  free(b);
}

/* The timeline names 8 outlier ranks at most; its title says how many
 * more there are. */
Test(burn_report, the_timeline_plot_says_the_outliers_it_leaves_out) {
  struct bx *b = bx_new(24, 1, 120, 1, true, 33, 0.03);
  for (int r = 0; r < 10; r++)
    for (int i = 0; i < 120; i++)
      b->v[BX_FIG][r][i] *= 0.5;
  struct run x;
  run(bx_doc(b), &x);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  struct gcb_plots plots = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_plot_script(m, &x.d, 1, &t, false, &plots, &err), GCB_OK);
  fclose(m);
  cr_expect_not_null(strstr(buf, ": each rank over time (2 more outlier ranks "
                                 "not shown)'"),
                     "%s", buf);
  cr_expect_not_null(strstr(buf, "'#ff9da7'"), "the eighth colour");
  gcb_plots_free(&plots);
  free(buf);
  done(&x);
  free(b);
}

Test(burn_report, a_rank_slow_from_the_start_is_below_its_peers) {
  struct bx *b = bx_new(8, 1, 120, 1, true, 32, 0.03);
  for (int i = 0; i < 120; i++)
    b->v[BX_FIG][5][i] *= 0.8;
  struct run x;
  run(bx_doc(b), &x);
  cr_assert_eq(count_kind(&x, "burn-sustained"), 1);
  const struct gcb_finding *f = first_kind(&x, "burn-sustained");
  cr_expect_eq(f->where.rank, 5);
  cr_expect(strstr(f->explanation, "below the median of its 8 peers") != NULL,
            "%s", f->explanation);
  cr_expect_eq(count_kind(&x, "burn-falloff"), 0);
  done(&x);
  free(b);
}

/* ---- reading --------------------------------------------------------------
 */

Test(burn_report, an_interrupted_burn_with_nulls_is_judged_on_what_it_has) {
  struct bx *b = bx_new(2, 1, 60, 1, false, 41, 0.03);
  bx_hog(b, 1, 10, 0.5);
  json_t *doc = bx_doc(b);
  json_t *c = json_array_get(json_object_get(doc, "cases"), 0);
  json_t *fig = json_object_get(
      json_object_get(json_object_get(c, "timeline"), "series"), "figure");
  for (int i = 50; i < 60; i++) /* rank 0 stopped early */
    json_array_set_new(json_array_get(fig, 0), (size_t)i, json_null());
  struct run x;
  run(doc, &x);
  cr_expect_eq(count_kind(&x, "burn-falloff"), 1);
  cr_expect_eq(first_kind(&x, "burn-falloff")->where.rank, 1);
  done(&x);
  free(b);
}

/* A burn case without a timeline (or whose throughput no rank measured)
 * is left out of the document's burn cases; the burn cases are read once
 * and the report's readers take the caller's reading. */
Test(burn_report, burn_cases_are_read_once_and_shared) {
  struct bx *b = bx_new(2, 1, 30, 1, false, 7, 0.03);
  json_t *doc = bx_doc(b);
  json_t *cases = json_object_get(doc, "cases");
  json_t *bare = json_pack("{s:s}", "bench", "burn");
  json_array_append_new(cases, bare);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_doc d = fx_doc_of("burn.json", doc);
  struct gcb_burn_doc bd;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_burn_doc_read_model(d.model, &t, &bd, &err), GCB_OK, "%s",
               err.msg);
  cr_assert_eq(bd.n, 1, "the case without a timeline is left out");
  cr_expect_null(d.model->cases[1].timeline);
  cr_expect_eq(bd.cases[0].index, 0);
  cr_expect_eq(bd.cases[0].bench_case, &d.model->cases[0]);
  cr_expect(gcb_burn_is_model_case(bd.cases[0].bench_case));
  cr_expect_eq(bd.cases[0].tl.n, 30);
  cr_expect_eq(bd.cases[0].tl.v[0], d.model->cases[0].timeline->v[0],
               "the model's series, borrowed");
  cr_expect_eq(bd.cases[0].ranks[1].onset, -1);
  d.burn = &bd;
  struct gcb_burn_doc own;
  cr_expect_eq(gcb_burn_doc_of(&d, &t, &own, &err), &bd, "the caller's");
  cr_expect_eq(own.n, 0);
  t.slow_rank_pct += 1; /* judged by other thresholds: read anew */
  const struct gcb_burn_doc *again = gcb_burn_doc_of(&d, &t, &own, &err);
  cr_expect(again == &own && own.n == 1);
  cr_expect_eq(own.cases[0].bench_case, &d.model->cases[0]);
  gcb_burn_doc_free(&own);
  gcb_burn_doc_free(&bd);
  cr_expect_eq(bd.n, 0);
  fx_doc_free(&d);
  json_decref(doc);
  free(b);
}

Test(burn_report, durations_read_as_people_say_them) {
  static const struct {
    double s;
    const char *text;
  } rows[] = {{10, "10 s"},   {250, "4 min 10 s"}, {120, "2 min"},
              {2.5, "2.5 s"}, {3720, "1 h 2 min"}, {0, "0 s"}};
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    char buf[32];
    gcb_burn_fmt_duration(rows[i].s, buf, sizeof buf);
    cr_expect_str_eq(buf, rows[i].text);
  }
}

/* ---- the independent fixtures of tests/data/burn (gen_burn.py) ----------- */

/* Reads a fixture file through the real reader (the document stays owned
 * by *res). */
static json_t *load(const char *path, struct gcb_results **res) {
  size_t len;
  char *text = fx_slurp(path, &len);
  struct gcb_err err = {0};
  cr_assert_not_null(text, "%s", path);
  cr_assert_eq(gcb_results_parse(text, len, "burn.json", res, &err), GCB_OK,
               "%s", err.msg);
  free(text);
  /* the per-rank columns in the tree, which the model is built from */
  cr_assert_eq(gcb_results_plain(*res, &err), GCB_OK);
  json_t *doc = gcb_results_json(*res);
  json_incref(doc);
  return doc;
}

Test(burn_report, the_healthy_fixture_files_give_no_warning) {
  static const char *const files[] = {BURN_DATA("burn-healthy-gpu6.json"),
                                      BURN_DATA("burn-healthy-host5.json"),
                                      BURN_DATA("burn-healthy-host2.json")};
  for (size_t i = 0; i < 3; i++) {
    struct gcb_results *res;
    struct run x;
    run(load(files[i], &res), &x);
    char why[2048];
    dump(&x, why, sizeof why);
    cr_expect_eq(not_info(&x), 0, "%s:%s", files[i], why);
    cr_expect_eq(causes(&x), 0, "%s", files[i]);
    done(&x);
    gcb_results_free(res);
  }
}

Test(burn_report, the_thermal_fixture_file_names_gpu_1_of_burn03) {
  struct gcb_results *res;
  struct run x;
  run(load(BURN_DATA("burn-gpu6-thermal.json"), &res), &x);
  cr_assert_eq(causes(&x), 1);
  const struct gcb_root_cause *rc = &x.dx.items[0];
  cr_expect_eq(rc->comp.kind, GCB_COMP_GPU);
  cr_expect_eq(rc->comp.gpu, 1);
  cr_expect_str_eq(rc->comp.hostname, "burn03");
  cr_expect(strstr(rc->summary, "GPU 1 (burn03) falls 1") == rc->summary, "%s",
            rc->summary);
  cr_expect(strstr(rc->summary, "after 4 min 10 s") != NULL, "%s", rc->summary);
  cr_expect(strstr(rc->summary, "hw_thermal at 87 C") != NULL, "%s",
            rc->summary);
  done(&x);
  gcb_results_free(res);
}

Test(burn_report, the_hog_fixture_file_names_rank_1_from_second_10) {
  struct gcb_results *res;
  struct run x;
  run(load(BURN_DATA("burn-host4-hog.json"), &res), &x);
  cr_assert_eq(causes(&x), 1);
  const struct gcb_root_cause *rc = &x.dx.items[0];
  cr_expect_eq(rc->comp.rank, 1, "%s", rc->comp.name);
  cr_expect_eq(rc->severity, GCB_SEV_FAIL);
  cr_expect(strstr(rc->summary, "after 10 s: it got 50 % of the CPU time") !=
                NULL,
            "%s", rc->summary);
  done(&x);
  gcb_results_free(res);
}

/* report.md of the thermal fixture, byte for byte (the burn-in table, its
 * root cause and finding among the report's other tables). */
Test(burn_report, the_markdown_report_of_the_thermal_fixture_is_golden) {
  struct gcb_results *res;
  struct run x;
  run(load(BURN_DATA("burn-gpu6-thermal.json"), &res), &x);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_report rep = {.docs = &x.d,
                           .ndocs = 1,
                           .findings = &x.f,
                           .thresholds = &t,
                           .diagnosis = &x.dx};
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  struct gcb_err err = {0};
  cr_assert_eq(gcb_render_md.render(m, &rep, &err), GCB_OK, "%s", err.msg);
  fclose(m);
  cr_expect(strstr(buf, "## Burn-in bf16 8192x8192x8192, 300 intervals of 2 s "
                        "(10 min)") != NULL);
  cr_expect(strstr(buf, "| 5 | burn03 | 1 |") != NULL);
  fx_golden("burn/report.md", buf, len);
  free(buf);
  done(&x);
  gcb_results_free(res);
}

/* The timeline plot: four panels on one time axis in minutes, the
 * throttled GPU named and its onset dashed; its script is golden too. */
Test(burn_report,
     the_timeline_plot_shares_one_time_axis_and_names_the_outlier) {
  struct gcb_results *res;
  json_t *doc = load(BURN_DATA("burn-gpu6-thermal.json"), &res);
  struct gcb_doc d = fx_doc_of("burn.json", doc);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  struct gcb_plots plots = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_plot_script(m, &d, 1, &t, false, &plots, &err), GCB_OK);
  fclose(m);
  size_t burn = plots.n;
  for (size_t i = 0; i < plots.n; i++)
    if (strstr(plots.items[i].file, "-burn.svg") != NULL)
      burn = i;
  cr_assert_lt(burn, plots.n, "a burn-in plot");
  cr_expect(strstr(plots.items[burn].title, "burn-in") != NULL);
  cr_expect(strstr(buf, "set multiplot layout 4,1") != NULL);
  cr_expect(strstr(buf, "set ylabel 'SM clock (MHz)'") != NULL);
  cr_expect(strstr(buf, "set ylabel 'temperature (C)'") != NULL);
  cr_expect(strstr(buf, "set xlabel 'minutes since the start'") != NULL);
  cr_expect(strstr(buf, "title 'rank 5 (GPU 1 burn03)'") != NULL);
  cr_expect(strstr(buf, "set arrow from 4.166666667, graph 0") != NULL);
  cr_expect(strstr(buf, "set terminal svg size 720,780") != NULL);
  cr_expect(strstr(buf, "unset multiplot\nset terminal svg size 720,360") !=
                NULL,
            "the default size is back for the plots after it");
  fx_golden("burn/plots.gp", buf, len);
  gcb_plots_free(&plots);
  free(buf);
  fx_doc_free(&d);
  json_decref(doc);
  gcb_results_free(res);
}

/* Without --criteria the built-in SKU expectations judge a burn's
 * sustained figure as they judge a GEMM: the throttled H100 sustains less
 * than 60 % of its bf16 peak, the others more; its miss joins its fall in
 * one root cause. */
Test(burn_report, the_sku_expectation_judges_the_sustained_figure) {
  struct gcb_results *res;
  json_t *doc = load(BURN_DATA("burn-gpu6-thermal.json"), &res);
  struct gcb_doc d = fx_doc_of("burn.json", doc);
  struct gcb_criteria *cr = NULL;
  char line[256];
  struct gcb_err err = {0};
  cr_assert_eq(gcb_expect_builtin(&d, 1, &cr, line, sizeof line, &err), GCB_OK,
               "%s", err.msg);
  cr_assert_not_null(cr, "%s", line);
  struct gcb_check_result checks[64];
  cr_assert_leq(cr->nchecks, 64);
  struct gcb_findings f = {0};
  cr_assert_eq(gcb_criteria_evaluate(cr, &d, 1, checks, &f, &err), GCB_OK);
  size_t misses = 0;
  for (size_t i = 0; i < f.n; i++)
    if (strcmp(f.items[i].kind->name, "criterion") == 0 &&
        f.items[i].severity == GCB_SEV_FAIL) {
      misses++;
      cr_expect_eq(f.items[i].where.rank, 5);
      cr_expect(strstr(f.items[i].explanation, "burn-in sustained GEMM bf16") !=
                    NULL,
                "%s", f.items[i].explanation);
    }
  cr_expect_eq(misses, 1);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  cr_assert_eq(gcb_analyze(&d, 1, &t, &f, &err), GCB_OK);
  gcb_findings_sort(&f);
  struct gcb_diagnosis dx = {0};
  cr_assert_eq(gcb_diagnose(&d, 1, &f, &t, &dx, &err), GCB_OK);
  cr_assert_eq(gcb_diagnosis_count(&dx, GCB_SEV_FAIL) +
                   gcb_diagnosis_count(&dx, GCB_SEV_WARN),
               1);
  cr_expect_eq(dx.items[0].comp.kind, GCB_COMP_GPU);
  cr_expect(strstr(dx.items[0].summary, "falls 1") != NULL, "%s",
            dx.items[0].summary);
  gcb_diagnosis_free(&dx);
  gcb_findings_free(&f);
  gcb_criteria_free(cr);
  json_decref(doc);
  gcb_results_free(res);
  fx_doc_free(&d);
}

/* On a GPU, a hog on the rank's core that takes its CPU time without
 * touching the GPU's clock is still CPU time; a thermal GPU whose CPU
 * time also fell (its wait sleeps longer) is thermal. */
Test(burn_report, on_a_gpu_the_gpus_own_reasons_come_before_cpu_time) {
  struct bx *b = bx_new(4, 1, 200, 1, true, 51, 0.03);
  bx_hog(b, 0, 60, 0.5);
  bx_thermal(b, 2, 80, 1600, 1);
  for (int i = 80; i < 200; i++)
    b->v[BX_UTIL][2][i] = 0.6;
  struct run x;
  run(bx_doc(b), &x);
  cr_assert_eq(count_kind(&x, "burn-falloff"), 2);
  for (size_t i = 0; i < x.f.n; i++) {
    const struct gcb_finding *f = &x.f.items[i];
    if (strcmp(f->kind->name, "burn-falloff") != 0)
      continue;
    if (f->where.rank == 0)
      cr_expect(strstr(f->explanation, "of the CPU time it asked for") != NULL,
                "%s", f->explanation);
    else
      cr_expect(strstr(f->explanation, "hw_thermal") != NULL, "%s",
                f->explanation);
  }
  done(&x);
  free(b);
}

/* Two host ranks that lose CPU time together (other load on the node, as
 * a real burn on this project's shared VM showed: 0.28 of the CPU time
 * asked for before, 0.24 after): one node cause, CPU time, and the advice
 * is the node's other load, not its power. */
Test(burn_report, a_node_whose_ranks_all_lose_cpu_time_is_other_load) {
  struct bx *b = bx_new(2, 1, 60, 1, false, 61, 0.03);
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < 60; i++) {
      b->v[BX_UTIL][r][i] *= 0.28;
      b->v[BX_FIG][r][i] *= 0.28;
    }
  for (int r = 0; r < 2; r++) /* a hog takes a seventh of what they got */
    for (int i = 12; i < 60; i++) {
      b->v[BX_UTIL][r][i] *= 0.85;
      b->v[BX_FIG][r][i] *= 0.85;
    }
  struct run x;
  run(bx_doc(b), &x);
  cr_assert_eq(count_kind(&x, "burn-node"), 1);
  const struct gcb_finding *f = first_kind(&x, "burn-node");
  cr_expect(strstr(f->explanation, "all 2 ranks of node node00 fall") != NULL,
            "%s", f->explanation);
  cr_expect(strstr(f->explanation, "CPU time (it got 2") != NULL, "%s",
            f->explanation);
  cr_expect(strstr(f->suggestion, "other load on the node") != NULL, "%s",
            f->suggestion);
  done(&x);
  free(b);
}

/* Real documents of the burn writer on this project's VM (see
 * tests/data/burn/gen_burn.py): the quiet one has no burn finding, the
 * hogged one one node cause of CPU time from about second 10. */
Test(burn_report, real_burns_on_a_shared_vm_read_as_they_happened) {
  struct gcb_results *res;
  struct run x;
  run(load(BURN_DATA("burn-real-vm-healthy.json"), &res), &x);
  for (size_t i = 0; i < x.f.n; i++)
    cr_expect(strncmp(x.f.items[i].kind->name, "burn-", 5) != 0, "%s: %s",
              x.f.items[i].kind->name, x.f.items[i].explanation);
  done(&x);
  gcb_results_free(res);
  run(load(BURN_DATA("burn-real-vm-hog.json"), &res), &x);
  cr_assert_eq(count_kind(&x, "burn-node"), 1);
  const struct gcb_finding *f = first_kind(&x, "burn-node");
  cr_expect(strstr(f->explanation, "after 10 s: CPU time") != NULL, "%s",
            f->explanation);
  done(&x);
  gcb_results_free(res);
}

/* Per-rank columns (and groups of them) from `from` to n entries, entry r
 * a copy of entry r % from, the rank column counting on. */
static void widen_columns(json_t *cols, int from, int n) {
  const char *key;
  json_t *col;
  json_object_foreach(cols, key, col) {
    if (json_is_object(col))
      widen_columns(col, from, n);
    for (int r = from; json_is_array(col) && r < n; r++)
      json_array_append_new(
          col, strcmp(key, "rank") == 0
                   ? json_integer(r)
                   : json_deep_copy(json_array_get(col, (size_t)(r % from))));
  }
}

/* The document of burn b (one node of host ranks) widened to n ranks on
 * that node, rank r a copy of rank r % b->nranks: more ranks than the
 * fixture holds. */
static json_t *bx_widened(const struct bx *b, int n) {
  json_t *doc = bx_doc(b), *rows;
  json_t *ranks = json_object_get(doc, "ranks");
  json_t *node = json_array_get(json_object_get(doc, "nodes"), 0);
  json_t *c = json_array_get(json_object_get(doc, "cases"), 0);
  json_t *per = json_object_get(c, "per_rank");
  json_t *series = json_object_get(json_object_get(c, "timeline"), "series");
  const char *key;
  for (int r = b->nranks; r < n; r++) {
    json_t *x = json_deep_copy(json_array_get(ranks, (size_t)(r % b->nranks)));
    json_object_set_new(x, "rank", json_integer(r));
    json_object_set_new(x, "pid", json_integer(100 + r));
    json_array_append_new(ranks, x);
    json_array_append_new(json_object_get(node, "ranks"), json_integer(r));
    json_object_foreach(series, key, rows) {
      json_array_append_new(
          rows, json_deep_copy(json_array_get(rows, (size_t)(r % b->nranks))));
    }
  }
  widen_columns(per, b->nranks, n);
  json_object_set_new(json_object_get(doc, "run"), "ranks", json_integer(n));
  json_object_set_new(json_object_get(c, "summary"), "ranks", json_integer(n));
  fx_check_valid(doc);
  return doc;
}

/* Every rank of a node of 300 losing CPU time together: one node cause
 * naming all 300 ranks. */
Test(burn_report, a_node_of_300_ranks_falling_together_names_them_all) {
  struct bx *b = bx_new(50, 1, 60, 1, false, 61, 0.03);
  for (int r = 0; r < 50; r++)
    for (int i = 12; i < 60; i++) {
      b->v[BX_UTIL][r][i] *= 0.6;
      b->v[BX_FIG][r][i] *= 0.6;
    }
  struct run x;
  run(bx_widened(b, 300), &x);
  cr_assert_eq(count_kind(&x, "burn-node"), 1);
  const struct gcb_finding *f = first_kind(&x, "burn-node");
  cr_expect_str_eq(f->where.ranks, "0-299");
  cr_expect(strstr(f->explanation, "all 300 ranks of node node00 fall") != NULL,
            "%s", f->explanation);
  done(&x);
  free(b);
}
