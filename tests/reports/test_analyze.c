/*
 * Analysis: each planted problem in a synthetic document yields exactly the
 * right finding at the right place, and clean documents yield none.
 */
#include <math.h>

#include "reports/analysis/analyze.h"
#include "tests/reports/report_fixture.h"

struct run {
  json_t *doc;
  struct gcb_doc d; /* with its model, kept while findings point into it */
  struct gcb_findings f;
};

static void analyse(struct run *r, const struct gcb_thresholds *t) {
  struct gcb_thresholds def;
  gcb_thresholds_default(&def);
  struct gcb_err err = {0};
  fx_check_valid(r->doc);
  fx_doc_free(&r->d);
  r->d = fx_doc_of("test.json", r->doc);
  cr_assert_eq(gcb_analyze(&r->d, 1, t ? t : &def, &r->f, &err), GCB_OK, "%s",
               err.msg);
}

static void done(struct run *r) {
  gcb_findings_free(&r->f);
  fx_doc_free(&r->d);
  json_decref(r->doc);
}

/* The findings of one kind, in order. */
static size_t of_kind(const struct run *r, const char *kind,
                      const struct gcb_finding **out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < r->f.n; i++)
    if (strcmp(r->f.items[i].kind->name, kind) == 0 && n < max)
      out[n++] = &r->f.items[i];
  return n;
}

static struct run gemm_run(const double *figs, size_t n) {
  struct run r = {.doc = fx_doc((int)n, 1, 64, "Test CPU")};
  fx_add_case(r.doc, fx_case("gemm", "fp32 1024", "{\"dtype\": \"fp32\"}",
                             "GFLOP/s", figs, n, 0.01, NULL));
  return r;
}

/* ---- slow ranks --------------------------------------------------------- */

Test(analyze, four_ranks_with_rank_2_slow_by_30_percent_name_rank_2) {
  const double figs[] = {100, 100, 70, 100};
  struct run r = gemm_run(figs, 4);
  analyse(&r, NULL);
  const struct gcb_finding *f[8];
  cr_assert_eq(of_kind(&r, "slow-rank", f, 8), 1);
  cr_expect_eq(f[0]->where.rank, 2);
  cr_expect_float_eq(f[0]->cost, 0.3, 1e-12);
  cr_expect_float_eq(f[0]->measured, 70, 1e-12);
  cr_expect_float_eq(f[0]->expected, 100, 1e-12);
  cr_expect_eq(f[0]->severity, GCB_SEV_FAIL, "30%% is past the fail level");
  cr_expect_str_eq(f[0]->where.bus_id, "0000:12:00.0");
  cr_expect_eq(f[0]->where.gpu, 2);
  cr_expect_str_eq(f[0]->where.hostname, "node00");
  cr_expect_str_eq(f[0]->unit, "GFLOP/s");
  done(&r);
}

/* A host name as long as a results document holds one (200 bytes here)
 * reaches the finding whole, not cut at 127. */
Test(analyze, a_slow_rank_on_a_200_byte_host_names_the_host_whole) {
  char host[201];
  memset(host, 'h', 200);
  host[200] = '\0';
  const double figs[] = {100, 100, 70, 100};
  struct run r = gemm_run(figs, 4);
  json_object_set_new(json_array_get(json_object_get(r.doc, "nodes"), 0),
                      "hostname", json_string(host));
  for (size_t k = 0; k < 4; k++)
    json_object_set_new(json_array_get(json_object_get(r.doc, "ranks"), k),
                        "hostname", json_string(host));
  analyse(&r, NULL);
  const struct gcb_finding *f[8];
  cr_assert_eq(of_kind(&r, "slow-rank", f, 8), 1);
  cr_expect_str_eq(f[0]->where.hostname, host);
  done(&r);
}

/* A composed text longer than its field shows that it was cut: it ends in
 * "...", and no character is cut in half. */
Test(analyze, a_long_explanation_is_cut_visibly_at_a_character) {
  struct gcb_findings l = {0};
  struct gcb_finding *f = gcb_findings_push(&l, GCB_SEV_WARN, &gcb_kinds[0]);
  cr_assert_not_null(f);
  char text[600] = "";
  for (size_t i = 0; i < 150; i++)
    strcat(text, "\u00e9a"); /* 3 bytes a step: cuts fall everywhere */
  gcb_finding_explain(f, "%s", text);
  size_t n = strlen(f->explanation);
  cr_expect_lt(n, sizeof f->explanation);
  cr_expect_geq(n, sizeof f->explanation - 4);
  cr_expect_str_eq(f->explanation + n - 3, "...", "%s", f->explanation);
  cr_expect_eq(strncmp(f->explanation, text, n - 3), 0);
  cr_expect_neq((unsigned char)f->explanation[n - 4], 0xC3,
                "no character cut in half");
  gcb_finding_suggest(f, "%s", "short");
  cr_expect_str_eq(f->suggestion, "short", "a text that fits is whole");
  char small[8];
  cr_expect(gcb_analyze_copy(small, sizeof small, "abcdefgh"));
  cr_expect_str_eq(small, "abcd...");
  cr_expect_not(gcb_analyze_copy(small, sizeof small, "abcdefg"));
  cr_expect_str_eq(small, "abcdefg");
  gcb_findings_free(&l);
}

/* The slow GPU's clocks, power and throttle reasons while the case ran
 * (per-rank telemetry) explain the finding. */
Test(analyze, a_slow_gpu_is_explained_by_its_telemetry_during_the_case) {
  const double figs[] = {100, 100, 70, 100};
  struct run r = {.doc = fx_doc(4, 1, 64, "Test CPU")};
  json_t *c = fx_case("gemm", "fp32 1024", "{\"dtype\": \"fp32\"}", "GFLOP/s",
                      figs, 4, 0.01, NULL);
  fx_throttled(c, 2, 1005, 1100, "hw_thermal");
  fx_add_case(r.doc, c);
  analyse(&r, NULL);
  const struct gcb_finding *f[8];
  cr_assert_eq(of_kind(&r, "slow-rank", f, 8), 1);
  cr_expect_eq(f[0]->where.rank, 2);
  cr_expect(strstr(f[0]->explanation, "SM clock averaged 1100 MHz (lowest "
                                      "1005), power up to 700 W, NVML "
                                      "throttle reasons: hw_thermal") != NULL,
            "%s", f[0]->explanation);
  done(&r);
}

struct slow_case {
  const char *what;
  double figs[8];
  size_t n;
  long long slow_rank; /* -1: no finding */
  enum gcb_severity sev;
};

static const struct slow_case slow_cases[] = {
    {"one slow GPU among eight",
     {100, 101, 99, 100, 102, 98, 100, 60},
     8,
     7,
     GCB_SEV_FAIL},
    {"15% below warns", {100, 100, 85, 100}, 4, 2, GCB_SEV_WARN},
    {"spread within 10% is not an outlier", {100, 95, 105, 92, 100}, 5, -1, 0},
    {"two ranks cannot say which is slow", {100, 70}, 2, -1, 0},
    {"uniformly noisy ranks have no outlier",
     {100, 80, 120, 90, 110, 85},
     6,
     -1,
     0},
    {"a fast rank is not a finding", {100, 100, 150, 100}, 4, -1, 0},
};

Test(analyze, slow_rank_rule_is_robust_and_thresholded) {
  for (size_t i = 0; i < sizeof slow_cases / sizeof *slow_cases; i++) {
    const struct slow_case *c = &slow_cases[i];
    struct run r = gemm_run(c->figs, c->n);
    analyse(&r, NULL);
    const struct gcb_finding *f[8];
    size_t n = of_kind(&r, "slow-rank", f, 8);
    cr_expect_eq(n, c->slow_rank >= 0 ? 1u : 0u, "%s: %zu findings", c->what,
                 n);
    if (n == 1 && c->slow_rank >= 0) {
      cr_expect_eq(f[0]->where.rank, c->slow_rank, "%s", c->what);
      cr_expect_eq(f[0]->severity, c->sev, "%s", c->what);
    }
    done(&r);
  }
}

Test(analyze, thresholds_from_criteria_change_the_slow_rank_rule) {
  const double figs[] = {100, 100, 70, 100};
  struct run r = gemm_run(figs, 4);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  t.slow_rank_pct = 40;
  analyse(&r, &t);
  const struct gcb_finding *f[8];
  cr_expect_eq(of_kind(&r, "slow-rank", f, 8), 0);
  done(&r);
}

Test(analyze, slow_rank_rule_ignores_benchmarks_without_per_device_figures) {
  const double figs[] = {100, 100, 70, 100};
  struct run r = {.doc = fx_doc(4, 1, 64, "Test CPU")};
  fx_add_case(r.doc, fx_case("coll", "allreduce 1M", "{\"op\": \"allreduce\"}",
                             "GB/s", figs, 4, 0.01, NULL));
  analyse(&r, NULL);
  const struct gcb_finding *f[8];
  cr_expect_eq(of_kind(&r, "slow-rank", f, 8), 0);
  done(&r);
}

/* ---- jittery ranks ------------------------------------------------------ */

/* A GEMM case of n ranks at 100 GFLOP/s, every rank's iteration times at
 * their median but for the ranks of `shape`: iterations iters, mean and
 * worst iteration (max) as multiples of the median. */
struct jitter_shape {
  size_t rank;
  int iters;
  double mean, max;
};

static struct run jitter_run(const char *bench, size_t n,
                             const struct jitter_shape *shape, size_t nshape) {
  double figs[FX_MAX_RANKS];
  for (size_t i = 0; i < n; i++)
    figs[i] = 100;
  struct run r = {.doc = fx_doc((int)n, 1, 64, "Test CPU")};
  json_t *c = fx_case(bench, "fp32 1024", "{\"dtype\": \"fp32\"}", "GFLOP/s",
                      figs, n, 0.01, NULL);
  for (size_t k = 0; k < nshape; k++) {
    json_t *t = json_object_get(
        json_array_get(json_object_get(c, "per_rank"), shape[k].rank),
        "time_s");
    double median = json_real_value(json_object_get(t, "median"));
    json_object_set_new(t, "n", json_integer(shape[k].iters));
    json_object_set_new(t, "mean", json_real(median * shape[k].mean));
    json_object_set_new(t, "max", json_real(median * shape[k].max));
    json_object_set_new(t, "p99", json_real(median * shape[k].max));
  }
  fx_add_case(r.doc, c);
  return r;
}

/* Rank 5 of 8 is fast at its median but one iteration in five takes
 * twice as long: 18 % of its time beyond its median, the others' none. */
Test(analyze, a_rank_slow_now_and_then_is_named_with_what_it_loses) {
  const struct jitter_shape shape[] = {{5, 20, 1.2, 2.2}};
  struct run r = jitter_run("gemm", 8, shape, 1);
  analyse(&r, NULL);
  const struct gcb_finding *f[8];
  cr_assert_eq(of_kind(&r, "jitter", f, 8), 1);
  cr_expect_eq(f[0]->where.rank, 5);
  cr_expect_eq(f[0]->severity, GCB_SEV_WARN);
  /* (20 x 1.2 - 2.2) / 19 = 1.147: 14.7 % against the others' -0.1 % */
  cr_expect_float_eq(f[0]->cost, (20 * 1.2 - 2.2) / 19 - (10 - 1.01) / 9, 1e-9);
  cr_expect_str_eq(f[0]->unit, "s");
  cr_expect(strstr(f[0]->explanation, "rank 5 loses 14.7% of its time to slow "
                                      "iterations") == f[0]->explanation,
            "%s", f[0]->explanation);
  cr_expect(strstr(f[0]->explanation, "over 20 iterations (the median of 8 "
                                      "ranks loses none)") != NULL,
            "%s", f[0]->explanation);
  cr_expect_eq(of_kind(&r, "slow-rank", f, 8), 0, "its median is its peers'");
  done(&r);
}

struct jitter_case {
  const char *what;
  const char *bench;
  size_t n;
  struct jitter_shape shape[8];
  size_t nshape;
  long long rank; /* -1: no finding */
  enum gcb_severity sev;
};

static const struct jitter_case jitter_cases[] = {
    {"one descheduled iteration is no pattern",
     "gemm",
     8,
     {{2, 20, 1.05, 2.0}},
     1,
     -1,
     0},
    {"half the iterations at 1.6x fail",
     "membw",
     6,
     {{0, 10, 1.3, 1.6}},
     1,
     0,
     GCB_SEV_FAIL},
    {"every rank as jittery has no outlier",
     "gemm",
     4,
     {{0, 20, 1.2, 2.2},
      {1, 20, 1.19, 2.1},
      {2, 20, 1.21, 2.3},
      {3, 20, 1.2, 2.2}},
     4,
     -1,
     0},
    {"two ranks cannot say which is jittery",
     "gemm",
     2,
     {{1, 20, 1.3, 2.2}},
     1,
     -1,
     0},
    {"four iterations say too little", "gemm", 8, {{3, 4, 1.4, 1.8}}, 1, -1, 0},
    {"a collective's ranks wait for each other",
     "coll",
     8,
     {{3, 20, 1.3, 2.2}},
     1,
     -1,
     0},
    {"a few percent is within what a job shrugs off",
     "gemm",
     8,
     {{4, 20, 1.06, 1.5}},
     1,
     -1,
     0},
};

Test(analyze, jitter_rule_is_robust_and_thresholded) {
  for (size_t i = 0; i < sizeof jitter_cases / sizeof *jitter_cases; i++) {
    const struct jitter_case *c = &jitter_cases[i];
    struct run r = jitter_run(c->bench, c->n, c->shape, c->nshape);
    analyse(&r, NULL);
    const struct gcb_finding *f[8];
    size_t n = of_kind(&r, "jitter", f, 8);
    cr_expect_eq(n, c->rank >= 0 ? 1u : 0u, "%s: %zu findings", c->what, n);
    if (n == 1 && c->rank >= 0) {
      cr_expect_eq(f[0]->where.rank, c->rank, "%s", c->what);
      cr_expect_eq(f[0]->severity, c->sev, "%s", c->what);
    }
    done(&r);
  }
}

/* A rank that shares its cores waits for them now and then: the jittery
 * rank unbound, or all ranks on a node of fewer cores, is its placement's
 * finding, not its device's. */
Test(analyze, a_rank_without_cpus_of_its_own_is_not_called_jittery) {
  const struct jitter_shape shape[] = {{5, 20, 1.2, 2.2}};
  struct run r = jitter_run("gemm", 8, shape, 1);
  json_t *rank5 = json_array_get(json_object_get(r.doc, "ranks"), 5);
  json_object_set_new(rank5, "cpu_binding", json_string("0-127"));
  json_object_set_new(rank5, "bound_pus", json_integer(128));
  analyse(&r, NULL);
  const struct gcb_finding *f[8];
  cr_expect_eq(of_kind(&r, "jitter", f, 8), 0, "unbound");
  done(&r);
  r = jitter_run("gemm", 8, shape, 1);
  json_object_set_new(json_array_get(json_object_get(r.doc, "nodes"), 0),
                      "cores", json_integer(4));
  analyse(&r, NULL);
  cr_expect_eq(of_kind(&r, "jitter", f, 8), 0, "8 ranks on 4 cores");
  done(&r);
}

/* ---- imbalance ---------------------------------------------------------- */

Test(analyze, imbalance_follows_ipm_definitions) {
  const double figs[] = {1, 1, 1, 0.5}; /* times 1, 1, 1, 2 s */
  json_t *doc = fx_doc(4, 1, 64, "Test CPU");
  fx_add_case(doc, fx_case("gemm", "x", "{}", "GFLOP/s", figs, 4, 0.01, NULL));
  struct gcb_doc d = fx_doc_of("test.json", doc);
  struct gcb_imbalance im;
  cr_assert(gcb_analyze_case_imbalance(&d.model->cases[0], &im));
  cr_expect_eq(im.ranks, 4);
  cr_expect_float_eq(im.total, 5, 1e-12);
  cr_expect_float_eq(im.mean, 1.25, 1e-12);
  cr_expect_float_eq(im.imbalance, 0.375, 1e-12);
  cr_expect_eq(im.min_rank, 0);
  cr_expect_eq(im.max_rank, 3);
  cr_expect_float_eq(im.cv, 0.4, 1e-12);
  fx_doc_free(&d);
  json_decref(doc);
}

Test(analyze, imbalance_above_threshold_names_the_straggler) {
  const double uneven[] = {100, 100, 100, 80};
  /* A collective has no per-device figure, so no slow-rank rule. */
  struct run r = {.doc = fx_doc(4, 1, 64, "Test CPU")};
  fx_add_case(r.doc, fx_case("coll", "allreduce", "{\"op\": \"allreduce\"}",
                             "GB/s", uneven, 4, 0.01, NULL));
  analyse(&r, NULL);
  const struct gcb_finding *f[8];
  cr_assert_eq(of_kind(&r, "imbalance", f, 8), 1);
  cr_expect_eq(f[0]->where.rank, 3);
  cr_expect_eq(f[0]->severity, GCB_SEV_WARN);
  cr_expect_float_eq(f[0]->measured, 100 * (1.25 - 1.0625) / 1.25, 1e-9);
  done(&r);

  /* The same spread from one slow GPU is that GPU's finding, not two. */
  r = gemm_run(uneven, 4);
  analyse(&r, NULL);
  cr_expect_eq(of_kind(&r, "imbalance", f, 8), 0);
  cr_expect_eq(of_kind(&r, "slow-rank", f, 8), 1);
  done(&r);

  const double even[] = {100, 99, 101, 100};
  r = gemm_run(even, 4);
  analyse(&r, NULL);
  cr_expect_eq(of_kind(&r, "imbalance", f, 8), 0);
  done(&r);
}

/* With two ranks no rank is judged against its peers' median (no
 * slow-rank finding can follow): the imbalance's suggestion says what to
 * look at on the slowest rank, not for a finding that cannot exist. */
Test(analyze, a_two_rank_imbalance_suggests_what_to_check_on_its_slowest) {
  const double uneven[] = {100, 80};
  struct run r = gemm_run(uneven, 2);
  analyse(&r, NULL);
  const struct gcb_finding *f[8];
  cr_assert_eq(of_kind(&r, "imbalance", f, 8), 1);
  cr_expect_eq(f[0]->where.rank, 1);
  cr_expect_null(strstr(f[0]->suggestion, "slow-rank"), "%s", f[0]->suggestion);
  cr_expect_not_null(strstr(f[0]->suggestion, "rank 1 is the slowest of 2"),
                     "%s", f[0]->suggestion);
  done(&r);
}

/* One finding per sweep at its worst case, counting the sweep's cases,
 * whatever the order of the cases; imbalances a slow GPU explains stay
 * silent (the per-document indexes of rules_sweep.c give what the walks
 * per case gave). */
Test(analyze, imbalance_is_one_finding_per_sweep_with_its_counts) {
  const double uneven[] = {100, 100, 100, 80}, worse[] = {100, 100, 100, 60},
               even[] = {100, 99, 101, 100};
  struct run r = {.doc = fx_doc(4, 1, 64, "Test CPU")};
  static const struct {
    const char *op;
    int size;
  } rows[] = {{"allgather", 8},
              {"allreduce", 8},
              {"allreduce", 1024},
              {"allgather", 1024},
              {"allreduce", 65536}};
  const double *figs[] = {uneven, uneven, even, worse, worse};
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    char label[64], params[128];
    snprintf(label, sizeof label, "%s %dB", rows[i].op, rows[i].size);
    snprintf(params, sizeof params, "{\"op\": \"%s\", \"size\": %d}",
             rows[i].op, rows[i].size);
    fx_add_case(r.doc,
                fx_case("coll", label, params, "GB/s", figs[i], 4, 0.01, NULL));
  }
  for (int k = 0; k < 3; k++) { /* slow GPU: explained, not an imbalance */
    char params[64];
    snprintf(params, sizeof params, "{\"dtype\": \"fp%d\"}", 16 << k);
    fx_add_case(r.doc, fx_case("gemm", "gemm", params, "GFLOP/s", worse, 4,
                               0.01, NULL));
  }
  analyse(&r, NULL);
  const struct gcb_finding *f[8];
  cr_assert_eq(of_kind(&r, "imbalance", f, 8), 2);
  cr_expect_eq(of_kind(&r, "slow-rank", f + 2, 6), 3);
  for (int i = 0; i < 2; i++) {
    cr_expect_eq(f[i]->where.rank, 3);
    cr_expect_float_eq(f[i]->measured,
                       100 * (5.0 / 3 - 1.1666666666666667) / (5.0 / 3), 1e-6);
  }
  bool gather = strstr(f[0]->where.subject, "allgather") != NULL;
  const struct gcb_finding *ag = gather ? f[0] : f[1],
                           *ar = gather ? f[1] : f[0];
  cr_expect(strstr(ag->explanation, "in 2 of the sweep's 2 cases") != NULL,
            "%s", ag->explanation);
  cr_expect(strstr(ar->explanation, "in 2 of the sweep's 3 cases") != NULL,
            "%s", ar->explanation);
  cr_expect(strstr(ar->where.subject, "65536") != NULL, "%s",
            ar->where.subject);
  done(&r);
}

/* A rooted collective's root differs from the other ranks by the
 * operation's shape (a reduce's root waits for every other rank's data, a
 * broadcast's sends and leaves), so the others are judged among
 * themselves: a root 2x off is no imbalance; a slow rank among the others
 * still is. */
Test(analyze, a_rooted_collectives_root_is_not_its_imbalance) {
  static const struct {
    const char *op;
    double figs[4];
    long long straggler; /* -1: none */
  } runs[] = {{"reduce", {50, 100, 100, 100}, -1},
              {"broadcast", {200, 100, 100, 100}, -1},
              {"gather", {50, 100, 100, 70}, 3},
              /* a root off the other way is judged: a broadcast's slow
               * root (its GPU throttled) */
              {"broadcast", {50, 100, 100, 100}, 0}};
  for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
    struct run r = {.doc = fx_doc(4, 1, 64, "Test CPU")};
    char params[96];
    snprintf(params, sizeof params, "{\"op\": \"%s\", \"root\": 0}",
             runs[k].op);
    fx_add_case(r.doc, fx_case("coll", runs[k].op, params, "GB/s", runs[k].figs,
                               4, 0.01, NULL));
    analyse(&r, NULL);
    const struct gcb_finding *f[8];
    size_t n = of_kind(&r, "imbalance", f, 8);
    cr_expect_eq(n, runs[k].straggler >= 0, "%s: %zu", runs[k].op, n);
    if (n == 1)
      cr_expect_eq(f[0]->where.rank, runs[k].straggler, "%s", runs[k].op);
    done(&r);
  }
}

/* A split collective's communicators each have their root (params.root
 * is a rank of each): a broadcast's roots leave early, as every root
 * does, and name nobody; a slow one (node 1's) is the one rank named. */
Test(analyze, each_split_communicators_root_is_judged_by_its_shape) {
  static const double figs[2][8] = {{200, 100, 100, 100, 200, 100, 100, 100},
                                    {200, 100, 100, 100, 50, 100, 100, 100}};
  for (int slow = 0; slow <= 1; slow++) {
    struct run r = {.doc = fx_doc(8, 2, 64, "Test CPU")};
    fx_add_case(r.doc, fx_case("coll", "broadcast split node",
                               "{\"op\": \"broadcast\", \"root\": 0, "
                               "\"split\": \"node\"}",
                               "GB/s", figs[slow], 8, 0.01, NULL));
    analyse(&r, NULL);
    const struct gcb_finding *f[8];
    cr_assert_eq(of_kind(&r, "imbalance", f, 8), (size_t)slow);
    if (slow)
      cr_expect_eq(f[0]->where.rank, 4, "node 1's root");
    done(&r);
  }
}

/* Rank entry e's median iteration at t seconds, its slowest and p99 no
 * faster (consistency.c: a median lies within min and max). */
static void slow_median(json_t *e, double t) {
  json_t *ts = json_object_get(e, "time_s");
  json_object_set_new(ts, "median", json_real(t));
  json_object_set_new(ts, "max", json_real(t));
  json_object_set_new(ts, "p99", json_real(t));
}

/* The loop a descheduled iteration inflated is not the case's slowest
 * rank, even when another rank is slow at every iteration: the case names
 * nobody (its sweep's other cases judge that rank). */
Test(analyze, a_descheduled_loop_is_never_named_the_slowest) {
  const double figs[] = {100, 100, 100, 100};
  struct run r = {.doc = fx_doc(4, 1, 64, "Test CPU")};
  json_t *c =
      fx_case("coll", "allreduce 8B", "{\"op\": \"allreduce\", \"size\": 8}",
              "GB/s", figs, 4, 0.01, NULL);
  json_t *per = json_object_get(c, "per_rank");
  json_object_set_new(json_array_get(per, 1), "figure_time_s",
                      json_real(0.02)); /* its median: 0.01 */
  json_t *slow = json_array_get(per, 3);
  json_object_set_new(slow, "figure_time_s", json_real(0.012));
  slow_median(slow, 0.012);
  fx_add_case(r.doc, c);
  analyse(&r, NULL);
  const struct gcb_finding *f[8];
  size_t n = of_kind(&r, "imbalance", f, 8);
  for (size_t i = 0; i < n; i++)
    cr_expect_neq(f[i]->where.rank, 1, "%s", f[i]->explanation);
  done(&r);
}

/* A training pattern's spread is the pattern rules' (the straggler within
 * the step, the skew): in a part with communication the rank that waits
 * longest is not the slow one, and read as ranks waiting it blamed rank 1
 * for rank 0's hot experts. */
Test(analyze, a_training_patterns_spread_is_no_generic_imbalance) {
  const double figs[] = {50, 100};
  struct run r = {.doc = fx_doc(2, 1, 64, "Test CPU")};
  fx_add_case(r.doc, fx_case("pattern", "ep skew 1 step-comm",
                             "{\"pattern\": \"ep\", \"part\": \"step-comm\", "
                             "\"skew\": 1, \"group\": 2}",
                             "GB/s", figs, 2, 0.01, NULL));
  analyse(&r, NULL);
  const struct gcb_finding *f[8];
  cr_expect_eq(of_kind(&r, "imbalance", f, 8), 0);
  done(&r);
}

/* A real file under tests/data (any format the report reads), read and
 * analysed with the default thresholds; free with real_done. */
struct real {
  struct gcb_doc doc;
  struct gcb_results *res;
  struct gcb_model *model;
  struct gcb_findings fs;
};

static void real_read(const char *name, struct real *x) {
  char file[512];
  struct gcb_err err = {0};
  snprintf(file, sizeof file, "%s/%s", GCB_TEST_DATA, name);
  memset(x, 0, sizeof *x);
  cr_assert_eq(
      fx_interop_read(file, &x->doc, 0, &x->res, &x->model, NULL, &err), GCB_OK,
      "%s: %s", name, err.msg);
  x->doc = fx_doc_read(name, x->res, x->model);
}

static void real_analyse(struct real *x) {
  struct gcb_thresholds t;
  struct gcb_err err = {0};
  gcb_thresholds_default(&t);
  cr_assert_eq(gcb_analyze(&x->doc, 1, &t, &x->fs, &err), GCB_OK, "%s",
               err.msg);
}

static void real_done(struct real *x) {
  gcb_findings_free(&x->fs);
  fx_doc_free(&x->doc);
  gcb_results_free(x->res);
}

/* How many findings of x are of kind `kind`. */
static size_t real_count(const struct real *x, const char *kind) {
  size_t n = 0;
  for (size_t i = 0; i < x->fs.n; i++)
    n += strcmp(x->fs.items[i].kind->name, kind) == 0;
  return n;
}

/* A real run of gcbench's gather_perf on two host ranks of the development
 * VM (tests/data/nccl/README.md): the root of every gather was 2-400x
 * slower than the other rank, the shape of a gather; "above 5% in 8 of
 * the sweep's 8 cases" was a false alarm. */
Test(analyze, a_real_gather_sweep_of_a_healthy_vm_has_no_imbalance) {
  struct real x;
  real_read("nccl/gcbench-vm-gather_perf.json", &x);
  real_analyse(&x);
  cr_expect_eq(real_count(&x, "imbalance"), 0);
  real_done(&x);
}

/* The real H200 run (tests/data/device) recorded its one rank, on every
 * CPU of a one-NUMA VM, as "unbound: CPUs 0-15 are the whole machine, not
 * just GPU0's local CPUs 0-15": all its CPUs are its GPU's local ones, as
 * near the GPU as a bound rank; the run's own check says so since
 * (topo/binding.c), and the report no longer relays the old record. */
Test(analyze,
     a_rank_on_its_gpus_local_cpus_is_not_unbound_whatever_was_recorded) {
  struct real x;
  real_read("device/h200-vm-quick-suite.json", &x);
  bool recorded = false;
  for (size_t i = 0; i < x.model->nnodes; i++)
    for (size_t k = 0; k < x.model->nodes[i].nplacement; k++)
      recorded |= strcmp(x.model->nodes[i].placement[k].kind, "unbound") == 0;
  cr_assert(recorded, "the document records the rank as unbound");
  real_analyse(&x);
  cr_expect_eq(real_count(&x, "placement-unbound"), 0);
  real_done(&x);
}

/* Host ranks have no GPU to be moved away from: a real burn on the VM
 * (tests/data/burn), both ranks recorded unbound, says what being
 * unbound costs them, not "also away from its GPU". */
Test(analyze, an_unbound_host_rank_is_not_told_about_its_gpu) {
  struct real x;
  real_read("burn/burn-real-vm-healthy.json", &x);
  real_analyse(&x);
  cr_expect_eq(real_count(&x, "placement-unbound"), 1);
  for (size_t i = 0; i < x.fs.n; i++) {
    const char *e = x.fs.items[i].explanation;
    if (strcmp(x.fs.items[i].kind->name, "placement-unbound") != 0)
      continue;
    cr_expect_null(strstr(e, "GPU"), "%s", e);
    cr_expect_not_null(strstr(e, "share cores"), "%s", e);
  }
  real_done(&x);
}

/* nvbandwidth measures each GPU's copy alone and states a rate: its
 * per-GPU entries wait for nothing, and their times are made from a
 * nominal size. Two real outputs (tests/data/interop/README.md) read as
 * "ranks wait 20.6% ... (rank 1)" and "6.6% ... (rank 2)". */
Test(analyze, an_nvbandwidth_rate_spread_is_no_imbalance) {
  static const char *const files[] = {
      "interop/superbench-nvbandwidth-v0.6.log",
      "interop/nvbandwidth-15-v0.2-rtx4090-cut.txt"};
  for (size_t k = 0; k < 2; k++) {
    struct real x;
    real_read(files[k], &x);
    real_analyse(&x);
    cr_expect_eq(real_count(&x, "imbalance"), 0, "%s", files[k]);
    real_done(&x);
  }
}

/* A loop whose time one descheduled iteration inflated (the VM's other
 * process took the core) is no imbalance when the ranks' median
 * iterations are even; the same spread in the medians is. */
Test(analyze, an_imbalance_must_show_in_the_ranks_median_iterations) {
  const double figs[] = {100, 100};
  for (int in_medians = 0; in_medians <= 1; in_medians++) {
    struct run r = {.doc = fx_doc(2, 1, 64, "Test CPU")};
    json_t *c =
        fx_case("coll", "allreduce 8B", "{\"op\": \"allreduce\", \"size\": 8}",
                "GB/s", figs, 2, 0.01, NULL);
    json_t *slow = json_array_get(json_object_get(c, "per_rank"), 1);
    json_object_set_new(slow, "figure_time_s", json_real(0.015));
    if (in_medians)
      slow_median(slow, 0.015);
    fx_add_case(r.doc, c);
    analyse(&r, NULL);
    const struct gcb_finding *f[8];
    cr_expect_eq(of_kind(&r, "imbalance", f, 8), (size_t)in_medians,
                 "spread in the medians: %d", in_medians);
    done(&r);
  }
}

/* Two real runs on the development VM (tests/data/compare/README.md,
 * tests/data/osu/README.md): some of their loops were 2-300x apart
 * between the two ranks while the ranks' median iterations were within a
 * few percent (a descheduled iteration); no imbalance names such a case,
 * and each document has some. */
Test(analyze, real_vm_loops_inflated_by_descheduling_are_no_imbalance) {
  static const char *const files[] = {"compare/vm-quick-clean-b.json",
                                      "osu/gcbench-vm-osu_mbw_mr.json"};
  for (size_t k = 0; k < 2; k++) {
    struct real x;
    real_read(files[k], &x);
    const struct gcb_model *m = x.model;
    size_t inflated = 0;
    for (size_t i = 0; i < m->ncases; i++) {
      struct gcb_imbalance im;
      inflated += m->cases[i].kind == GCB_BENCH_COLL &&
                  gcb_analyze_case_imbalance(&m->cases[i], &im) &&
                  im.imbalance > 0.05 && im.typical <= 0.05;
    }
    cr_expect_gt(inflated, 0, "%s: loops inflated, medians even", files[k]);
    real_analyse(&x);
    for (size_t i = 0; i < x.fs.n; i++) {
      const struct gcb_finding *f = &x.fs.items[i];
      struct gcb_imbalance im;
      if (strcmp(f->kind->name, "imbalance") != 0 || f->bench_case == NULL ||
          !gcb_analyze_case_imbalance(f->bench_case, &im))
        continue;
      cr_expect_gt(im.typical, 0.05, "%s: %s", files[k], f->explanation);
    }
    real_done(&x);
  }
}

/* ---- validation and run state ------------------------------------------- */

Test(analyze, wrong_results_are_always_a_failure_at_the_rank) {
  const double figs[] = {100, 100, 100, 100};
  const long long wrong[] = {0, 3, 0, 0};
  struct run r = {.doc = fx_doc(4, 2, 64, "Test CPU")};
  fx_add_case(r.doc, fx_case("membw", "triad", "{\"kernel\": \"triad\"}",
                             "GB/s", figs, 4, 0.01, wrong));
  analyse(&r, NULL);
  const struct gcb_finding *f[8];
  cr_assert_eq(of_kind(&r, "validation", f, 8), 1);
  cr_expect_eq(f[0]->severity, GCB_SEV_FAIL);
  cr_expect_eq(f[0]->where.rank, 1);
  cr_expect_eq(f[0]->where.node, 0);
  cr_expect_float_eq(f[0]->measured, 3, 0);
  cr_expect_str_eq(f[0]->where.subject, "membw: triad");
  done(&r);
}

/* A case whose validation says 5 wrong fails, whatever its summary and
 * ranks say (a document whose summary said 0 read as a PASS). */
Test(analyze, a_cases_own_wrong_count_fails_it) {
  const double figs[] = {100, 100};
  struct run r = {.doc = fx_doc(2, 1, 8, "Test CPU")};
  json_t *c = fx_case("membw", "triad", "{\"kernel\": \"triad\"}", "GB/s", figs,
                      2, 0.01, NULL);
  json_object_set_new(json_object_get(c, "validation"), "wrong",
                      json_integer(5));
  fx_add_case(r.doc, c);
  analyse(&r, NULL);
  const struct gcb_finding *f[4];
  cr_assert_eq(of_kind(&r, "validation", f, 4), 1);
  cr_expect_eq(f[0]->severity, GCB_SEV_FAIL);
  cr_expect_str_eq(f[0]->explanation, "5 wrong values in the case");
  done(&r);
}

/* A run that measured nothing passes nothing: every benchmark skipped (a
 * real `gcbench pcie` on the host backend read as a PASS), or no case at
 * all. A run with errors is failed by them, which say why. */
/* A validation that contradicts itself fails, as a wrong value does: a
 * rank whose largest error is past its tolerance but counts no wrong
 * value, and a case whose validation says it did not pass with no wrong
 * value counted. */
Test(analyze, a_validation_that_contradicts_itself_fails) {
  for (int k = 0; k < 2; k++) {
    const double figs[] = {100, 100, 100};
    struct run r = {.doc = fx_doc(3, 1, 8, "Test CPU")};
    json_t *c =
        fx_case("gemm", "fp32 64", "{\"m\": 64}", "GFLOP/s", figs, 3, 0, NULL);
    if (k == 0)
      json_object_set_new(
          json_object_get(json_array_get(json_object_get(c, "per_rank"), 1),
                          "validation"),
          "max_error", json_real(0.5));
    else
      json_object_set_new(json_object_get(c, "validation"), "passed",
                          json_false());
    fx_add_case(r.doc, c);
    analyse(&r, NULL);
    const struct gcb_finding *f[4];
    cr_assert_eq(of_kind(&r, "validation", f, 4), 1, "%d", k);
    cr_expect_eq(f[0]->severity, GCB_SEV_FAIL);
    cr_expect_eq(f[0]->where.rank, k == 0 ? 1 : -1);
    cr_expect_str_eq(f[0]->explanation,
                     k == 0 ? "its largest error 0.5 is past its tolerance "
                              "1e-06, yet it counts no wrong value (test)"
                            : "the case's validation did not pass "
                              "(validation.passed is false), though it counts "
                              "no wrong value");
    done(&r);
  }
}

Test(analyze, a_run_that_measured_nothing_fails) {
  for (int k = 0; k < 3; k++) {
    struct run r = {.doc = fx_doc(2, 1, 8, "Test CPU")};
    if (k == 1)
      json_array_append_new(json_object_get(r.doc, "skipped"),
                            json_pack("{s:s, s:s, s:s}", "bench", "pcie",
                                      "label", "(all cases)", "reason",
                                      "the host backend has no GPU"));
    if (k == 2)
      json_array_append_new(json_object_get(r.doc, "errors"),
                            json_pack("{s:s, s:s, s:i, s:s, s:s}", "bench",
                                      "gemm", "label", "fp64", "rank", 1,
                                      "status", "EBLAS", "message", "failed"));
    analyse(&r, NULL);
    const struct gcb_finding *f[4];
    cr_assert_eq(of_kind(&r, "nothing-measured", f, 4), k < 2, "%d", k);
    if (k < 2) {
      cr_expect_eq(f[0]->severity, GCB_SEV_FAIL);
      cr_expect_str_eq(f[0]->explanation,
                       k == 0 ? "the run measured nothing: it has no case"
                              : "the run measured nothing: no case ran, 1 "
                                "skipped (the first, pcie: the host backend "
                                "has no GPU)");
    }
    done(&r);
  }
}

struct status_case {
  const char *status;
  size_t findings;
};

/* A case every rank timed at 0 s (a timer that did not resolve one
 * iteration; gcbench then writes figures of 0) measured nothing: it
 * fails, where one rank with a time is judged as usual, and so is a case
 * of no work (a pipeline of one stage sends nothing, in no time). */
Test(analyze, a_case_no_rank_timed_fails) {
  for (int timed = 0; timed < 2; timed++) {
    const double figs[] = {100, 100, 100};
    struct run r = {.doc = fx_doc(3, 1, 8, "Test CPU")};
    json_t *c =
        fx_case("gemm", "fp32 64", "{\"m\": 64}", "GFLOP/s", figs, 3, 0, NULL);
    for (size_t i = timed; i < 3; i++) {
      json_t *e = json_array_get(json_object_get(c, "per_rank"), i);
      json_t *t = json_object_get(e, "time_s");
      const char *key;
      json_t *v;
      json_object_foreach(t, key, v) {
        if (strcmp(key, "n") != 0)
          json_object_set_new(t, key, json_real(0));
      }
      json_object_set_new(e, "figure_time_s", json_real(0));
      json_object_set_new(json_object_get(e, "figure"), "median", json_real(0));
    }
    fx_columns(c);
    fx_resummarize(c);
    json_t *idle = json_deep_copy(c);
    json_object_set_new(idle, "work_per_op", json_real(0));
    fx_add_case(r.doc, c);
    fx_add_case(r.doc, idle);
    analyse(&r, NULL);
    const struct gcb_finding *f[4];
    cr_assert_eq(of_kind(&r, "unmeasured", f, 4), timed ? 0u : 1u, "%d", timed);
    if (!timed) {
      cr_expect_eq(f[0]->severity, GCB_SEV_FAIL);
      cr_expect_str_eq(f[0]->explanation,
                       "no rank timed the case: each of its 3 rank(s) took "
                       "0 s or no time, so its figures measure nothing");
    }
    done(&r);
  }
}

Test(analyze, a_run_that_did_not_complete_fails) {
  static const struct status_case cases[] = {
      {"complete", 0}, {"running", 1}, {"failed", 1}, {"timeout", 1}};
  for (size_t i = 0; i < 4; i++) {
    struct run r = {.doc = fx_doc(2, 1, 8, "Test CPU")};
    json_object_set_new(json_object_get(r.doc, "run"), "status",
                        json_string(cases[i].status));
    analyse(&r, NULL);
    const struct gcb_finding *f[4];
    cr_expect_eq(of_kind(&r, "run-status", f, 4), cases[i].findings, "%s",
                 cases[i].status);
    if (cases[i].findings)
      cr_expect_eq(f[0]->severity, GCB_SEV_FAIL);
    done(&r);
  }
}

Test(analyze, errors_fail_and_skipped_cases_inform) {
  struct run r = {.doc = fx_doc(2, 1, 8, "Test CPU")};
  json_array_append_new(json_object_get(r.doc, "errors"),
                        json_pack("{s:s, s:s, s:i, s:s, s:s}", "bench", "gemm",
                                  "label", "fp64", "rank", 1, "status", "EBLAS",
                                  "message", "dgemm failed"));
  json_array_append_new(json_object_get(r.doc, "skipped"),
                        json_pack("{s:s, s:s, s:s}", "bench", "pcie", "label",
                                  "h2d", "reason", "no CUDA device"));
  analyse(&r, NULL);
  const struct gcb_finding *f[4];
  cr_assert_eq(of_kind(&r, "run-error", f, 4), 1);
  cr_expect_eq(f[0]->severity, GCB_SEV_FAIL);
  cr_expect_eq(f[0]->where.rank, 1);
  cr_expect_str_eq(f[0]->explanation, "EBLAS: dgemm failed");
  cr_assert_eq(of_kind(&r, "skipped", f, 4), 1);
  cr_expect_eq(f[0]->severity, GCB_SEV_INFO);
  done(&r);
}

/* ---- placement ---------------------------------------------------------- */

static void set_rank(json_t *doc, int rank, const char *key, json_t *v) {
  json_object_set_new(json_array_get(json_object_get(doc, "ranks"), rank), key,
                      v);
}

struct place_case {
  const char *what;
  int ranks, nodes, cores;
  void (*plant)(json_t *doc);
  const char *kind;
  size_t count;
  const char *ranks_text; /* expected where.ranks of the first finding */
};

static void unbind_all(json_t *doc) {
  for (int r = 0; r < 4; r++) {
    set_rank(doc, r, "cpu_binding", json_string("0-15"));
    set_rank(doc, r, "bound_pus", json_integer(16));
  }
}

static void share_cpus(json_t *doc) {
  set_rank(doc, 3, "cpu_binding", json_string("0-1"));
}

static void share_gpu(json_t *doc) {
  json_object_set_new(
      json_object_get(json_array_get(json_object_get(doc, "ranks"), 1),
                      "device"),
      "bus_id", json_string("0000:10:00.0"));
}

static void nothing(json_t *doc) {
  (void)doc;
}

static const struct place_case place_cases[] = {
    {"unbound ranks: one finding per node", 4, 1, 8, unbind_all,
     "placement-unbound", 1, "0-3"},
    {"a lone unbound rank is normal", 1, 1, 8, nothing, "placement-unbound", 0,
     ""},
    {"unbound ranks are not also reported as sharing", 4, 1, 8, unbind_all,
     "placement-shared-cpus", 0, ""},
    {"two ranks on the same cores", 4, 1, 8, share_cpus,
     "placement-shared-cpus", 1, "0,3"},
    {"two ranks on one GPU", 4, 1, 8, share_gpu, "placement-shared-gpu", 1,
     "0-1"},
    {"more ranks than cores", 4, 1, 2, nothing, "oversubscribed", 1, ""},
    {"well placed ranks", 4, 2, 8, nothing, "oversubscribed", 0, ""},
};

Test(analyze, placement_problems_are_found_per_node) {
  for (size_t i = 0; i < sizeof place_cases / sizeof *place_cases; i++) {
    const struct place_case *c = &place_cases[i];
    struct run r = {.doc = fx_doc(c->ranks, c->nodes, c->cores, "Test CPU")};
    c->plant(r.doc);
    analyse(&r, NULL);
    const struct gcb_finding *f[8];
    size_t n = of_kind(&r, c->kind, f, 8);
    cr_expect_eq(n, c->count, "%s: %zu", c->what, n);
    if (n > 0) {
      cr_expect_str_eq(f[0]->where.ranks, c->ranks_text, "%s", c->what);
      cr_expect_eq(f[0]->severity, GCB_SEV_WARN, "%s", c->what);
    }
    done(&r);
  }
}

Test(analyze, a_document_without_nodes_or_ranks_finds_no_placement) {
  struct run r = {.doc = fx_doc(4, 1, 2, "Test CPU")};
  json_object_del(r.doc, "nodes");
  json_object_del(r.doc, "ranks");
  const double figs[] = {100, 100, 70, 100};
  fx_add_case(r.doc,
              fx_case("gemm", "x", "{}", "GFLOP/s", figs, 4, 0.01, NULL));
  analyse(&r, NULL);
  for (size_t i = 0; i < r.f.n; i++)
    cr_expect(strncmp(r.f.items[i].kind->name, "placement", 9) != 0 &&
                  strcmp(r.f.items[i].kind->name, "oversubscribed") != 0,
              "%s", r.f.items[i].kind->name);
  const struct gcb_finding *f[4];
  cr_assert_eq(of_kind(&r, "slow-rank", f, 4), 1);
  cr_expect_eq(f[0]->where.node, -1, "no node known");
  done(&r);
}

Test(analyze, a_clean_run_has_no_findings) {
  const double figs[] = {100, 101, 99, 100};
  struct run r = gemm_run(figs, 4);
  analyse(&r, NULL);
  cr_expect_eq(r.f.n, 0, "first: %s", r.f.n ? r.f.items[0].kind->name : "");
  done(&r);
}

/* ---- late arrivals ------------------------------------------------------ */

Test(analyze, a_late_rank_at_a_collective_is_named) {
  const double figs[] = {10, 10, 10, 10}; /* 0.1 s per operation */
  struct run r = {.doc = fx_doc(4, 1, 8, "Test CPU")};
  json_t *c = fx_case("coll", "allreduce", "{\"op\": \"allreduce\"}", "GB/s",
                      figs, 4, 0.01, NULL);
  json_object_set_new(
      json_object_get(c, "summary"), "time_s",
      json_pack("{s:f, s:f, s:f}", "min", 0.1, "mean", 0.1, "max", 0.1));
  const double late[] = {0.001, 0.002, 0.05, 0.001};
  for (size_t i = 0; i < 4; i++)
    json_object_set_new(
        json_array_get(json_object_get(c, "per_rank"), i), "late_s",
        json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f}", "n", 10, "min", 0.0,
                  "median", late[i], "mean", late[i], "max", late[i], "stdev",
                  0.0, "p99", late[i]));
  fx_add_case(r.doc, c);
  analyse(&r, NULL);
  const struct gcb_finding *f[4];
  cr_assert_eq(of_kind(&r, "late-arrival", f, 4), 1);
  cr_expect_eq(f[0]->where.rank, 2);
  cr_expect_float_eq(f[0]->measured, 50000, 1e-6);
  done(&r);
}

/* ---- the list ----------------------------------------------------------- */

Test(analyze, sorting_puts_failures_first_and_keeps_order_within) {
  struct gcb_findings l = {0};
  static const enum gcb_severity sev[] = {GCB_SEV_INFO, GCB_SEV_FAIL,
                                          GCB_SEV_WARN, GCB_SEV_FAIL};
  static const struct gcb_kind kind[] = {
      {.name = "a"}, {.name = "b"}, {.name = "c"}, {.name = "d"}};
  for (size_t i = 0; i < 4; i++)
    cr_assert_not_null(gcb_findings_push(&l, sev[i], &kind[i]));
  gcb_findings_sort(&l);
  cr_expect_str_eq(l.items[0].kind->name, "b");
  cr_expect_str_eq(l.items[1].kind->name, "d");
  cr_expect_str_eq(l.items[2].kind->name, "c");
  cr_expect_str_eq(l.items[3].kind->name, "a");
  cr_expect_eq(gcb_findings_count(&l, GCB_SEV_FAIL), 2);
  gcb_findings_free(&l);
  gcb_findings_free(NULL);
}

Test(analyze, every_threshold_has_a_default_and_a_name) {
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  for (const struct gcb_threshold_def *d = gcb_threshold_defs; d->name; d++) {
    cr_expect_eq(gcb_threshold_find(d->name), d);
    cr_expect_float_eq(*(double *)((char *)&t + d->offset), d->def, 0, "%s",
                       d->name);
    cr_expect(d->def >= d->min && (d->max == 0 || d->def <= d->max), "%s",
              d->name);
  }
  cr_expect_null(gcb_threshold_find("slow-rank-pct"));
}
