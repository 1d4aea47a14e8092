/* The pattern view, its findings and its criteria metrics on synthetic
 * documents whose part times are chosen so that every figure is a round
 * number by hand (docs/PATTERNS.md has the formulas). */
#include <criterion/criterion.h>
#include <math.h>

#include "reports/analysis/analyze.h"
#include "reports/analysis/pattern_view.h"
#include "reports/criteria/criteria.h"
#include "tests/reports/report_fixture.h"

static const char *const parts[GCB_PART_COUNT] = {"compute", "comm", "step",
                                                  "step-compute", "step-comm"};

/* Adds the five cases of one variant: t[part][rank] seconds. */
static void add_variant(json_t *doc, const char *pattern, const char *extra,
                        const double t[GCB_PART_COUNT][2]) {
  for (int p = 0; p < GCB_PART_COUNT; p++) {
    char params[256], label[64];
    snprintf(params, sizeof params,
             "{\"pattern\": \"%s\", \"part\": \"%s\", \"group\": 2%s}", pattern,
             parts[p], extra);
    snprintf(label, sizeof label, "%s %s", pattern, parts[p]);
    const double figs[2] = {1 / t[p][0], 1 / t[p][1]};
    fx_add_case(doc, fx_case("pattern", label, params,
                             p == 1 || p == 4 ? "GB/s" : "GFLOP/s", figs, 2,
                             0.01, NULL));
  }
}

/* dp: rank 0 overlaps 75 % (10 + 4 - 11 = 3 of 4 ms); rank 1 computes 50 %
 * more within the step (the straggler). */
static const double dp_t[GCB_PART_COUNT][2] = {{0.010, 0.010},
                                               {0.004, 0.004},
                                               {0.011, 0.016},
                                               {0.010, 0.015},
                                               {0.005, 0.004}};
/* pp: a 20 ms step, 12 ms computing, 2 ms of transfers: bubble 40 %
 * (rank 1: 13 ms, 35 %; the mean 37.5 %). */
static const double pp_t[GCB_PART_COUNT][2] = {{0.012, 0.012},
                                               {0.002, 0.002},
                                               {0.020, 0.020},
                                               {0.012, 0.013},
                                               {0.008, 0.002}};

static json_t *doc_with_patterns(void) {
  json_t *doc = fx_doc(2, 1, 4, "Test CPU");
  add_variant(doc, "dp", ", \"span\": \"intra-node\"", dp_t);
  add_variant(doc, "pp", ", \"span\": \"intra-node\", \"ideal_bubble\": 0.2",
              pp_t);
  double uni[GCB_PART_COUNT][2], hot[GCB_PART_COUNT][2];
  for (int p = 0; p < GCB_PART_COUNT; p++)
    for (int r = 0; r < 2; r++)
      uni[p][r] = 0.010, hot[p][r] = p == GCB_PART_STEP ? 0.013 : 0.010;
  add_variant(doc, "ep", ", \"skew\": 0", uni);
  add_variant(doc, "ep", ", \"skew\": 1", hot);
  add_variant(doc, "tp", ", \"placement\": \"inner\", \"span\": \"intra-node\"",
              uni);
  add_variant(doc, "tp", ", \"placement\": \"outer\", \"span\": \"inter-node\"",
              hot);
  fx_check_valid(doc);
  return doc;
}

Test(pattern_view, groups_and_figures_match_the_formulas) {
  json_t *doc = doc_with_patterns();
  struct gcb_pattern_groups gs;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_pattern_groups_build(doc, &gs, &err), GCB_OK);
  cr_assert_eq(gs.n, 6);
  const struct gcb_pattern_group *dp = &gs.items[0], *pp = &gs.items[1];
  cr_expect_str_eq(dp->title, "dp");
  for (int p = 0; p < GCB_PART_COUNT; p++)
    cr_expect_not_null(dp->cases[p], "part %d", p);
  const struct gcb_pattern_rank *r0 = &dp->ranks[0];
  cr_expect_float_eq(r0->overlap, 0.75, 1e-6);
  cr_expect_float_eq(r0->exposed, 1.0 / 11, 1e-6);
  cr_expect_float_eq(r0->comp_slowdown, 0, 1e-6);
  cr_expect_float_eq(r0->comm_slowdown, 0.25, 1e-6);
  cr_expect(isnan(r0->bubble));
  /* Rank 1: 10 + 4 - 16 = -2 of 4 ms: the step waits, -50 %. */
  cr_expect_float_eq(dp->ranks[1].overlap, -0.5, 1e-6);
  cr_expect_eq(dp->straggler, 1);
  cr_expect_float_eq(dp->busy_imbalance, (0.015 - 0.0125) / 0.015, 1e-6);
  cr_expect_float_eq(dp->step_imbalance, (0.016 - 0.0135) / 0.016, 1e-6);
  /* pp rank 0: 12 ms compute, 2 ms exposed transfers, 6 ms bubble. */
  cr_expect_str_eq(pp->title, "pp");
  cr_expect_float_eq(pp->ranks[0].bubble, 0.4, 1e-6);
  cr_expect_float_eq(pp->ranks[0].bar_compute, 0.012, 1e-9);
  cr_expect_float_eq(pp->ranks[0].bar_exposed, 0.002, 1e-9);
  cr_expect_float_eq(pp->ranks[0].bar_bubble, 0.006, 1e-9);
  cr_expect_float_eq(pp->ideal_bubble, 0.2, 1e-12);
  /* The costs: 13 against 10 ms. */
  cr_expect_str_eq(gs.items[3].title, "ep skew 1");
  cr_expect_float_eq(gs.items[3].skew_cost, 0.3, 1e-6);
  cr_expect(isnan(gs.items[2].skew_cost));
  cr_expect_str_eq(gs.items[5].title, "tp outer");
  cr_expect_float_eq(gs.items[5].placement_cost, 0.3, 1e-6);
  cr_expect_eq(gcb_pattern_group_of(&gs, dp->cases[2]), dp);
  gcb_pattern_groups_free(&gs);
  json_decref(doc);
}

static size_t count_kind(const struct gcb_findings *f, const char *kind,
                         long long rank, enum gcb_severity *sev) {
  size_t n = 0;
  for (size_t i = 0; i < f->n; i++)
    if (strcmp(f->items[i].kind, kind) == 0 &&
        (rank < 0 || f->items[i].where.rank == rank)) {
      n++;
      *sev = f->items[i].severity;
    }
  return n;
}

Test(pattern_view, findings_name_the_straggler_skew_placement_and_bubble) {
  json_t *doc = doc_with_patterns();
  struct gcb_doc d = {"run.json", doc};
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_findings f = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_analyze(&d, 1, &t, &f, &err), GCB_OK, "%s", err.msg);
  enum gcb_severity sev = GCB_SEV_INFO;
  /* Rank 1 computes the most in dp, beyond 5 % (16.7 %), and in no other
   * pattern beyond it: a warning, not a failure (not every step). */
  cr_expect_eq(count_kind(&f, "pattern-straggler", 1, &sev), 1);
  cr_expect_eq(sev, GCB_SEV_WARN);
  cr_expect_eq(count_kind(&f, "pattern-straggler", 0, &sev), 0);
  cr_expect_eq(count_kind(&f, "pattern-skew", -1, &sev), 1);
  cr_expect_eq(sev, GCB_SEV_WARN);
  cr_expect_eq(count_kind(&f, "pattern-tp-placement", -1, &sev), 1);
  cr_expect_eq(count_kind(&f, "pattern-bubble", -1, &sev), 1, "37.5 > 20 + 15");
  /* dp overlaps (0.75 - 0.5) / 2 = 12.5 % on average: below 50 %. */
  cr_expect_eq(count_kind(&f, "pattern-overlap", -1, &sev), 1);
  gcb_findings_free(&f);
  json_decref(doc);
}

Test(pattern_view, criteria_metrics_read_the_same_figures) {
  json_t *doc = doc_with_patterns();
  const json_t *cases = json_object_get(doc, "cases");
  const json_t *dp_step = json_array_get(cases, 2);
  cr_expect_float_eq(gcb__m_pattern_overlap(doc, dp_step, 0), 75, 1e-4);
  cr_expect_float_eq(gcb__m_pattern_comm_slowdown(doc, dp_step, 0), 25, 1e-4);
  cr_expect_float_eq(gcb__m_pattern_busy_imbalance(doc, dp_step, 0),
                     100 * (0.015 - 0.0125) / 0.015, 1e-4);
  cr_expect(isnan(gcb__m_pattern_bubble(doc, dp_step, 0)), "dp has none");
  const json_t *pp_comm = json_array_get(cases, 6);
  cr_expect_float_eq(gcb__m_pattern_bubble(doc, pp_comm, 0), 40, 1e-4);
  const json_t *ep_hot = json_array_get(cases, 17);
  cr_expect_float_eq(gcb__m_pattern_skew_cost(doc, ep_hot, 0), 30, 1e-4);
  /* Not a pattern case, or no document: NAN, which meets no bound. */
  cr_expect(isnan(gcb__m_pattern_overlap(doc, doc, 0)));
  cr_expect(isnan(gcb__m_pattern_overlap(NULL, dp_step, 0)));
  json_decref(doc);
}
