/*
 * Built-in expectations per GPU model (reports/criteria/expect.h) through
 * the executable: `report` without --criteria judges the committed 8-GPU
 * H200 fixture against the H200's datasheet, fails eight GPUs 30 % below
 * it (which passed before: without criteria, PASS only meant that no rule
 * fired) and passes them at 90 %, says so for a model it does not know,
 * and says none applies on the host backend. `suite --profile health` (a
 * Slurm prolog check) plans under 60 s and runs under mpiexec -n 2, its
 * report naming the expectations used.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pcie.h"
#include "tests/e2e/run_gcbench.h"

static void setup(void) {
  gcb_test_dir_make("gcb-expect");
}

TestSuite(expect, .init = setup, .fini = gcb_test_dir_remove, .timeout = 240);

/* The H200's datasheet figure for a case (reports/criteria/skus/h200.json),
 * in the case's unit; 0 for what it has none. */
static double h200_peak(const json_t *c) {
  const char *bench = json_string_value(json_object_get(c, "bench"));
  const json_t *p = json_object_get(c, "params");
  if (strcmp(bench, "gemm") == 0) {
    static const struct {
      const char *dtype;
      double tflops;
    } peaks[] = {{"fp64", 67}, {"tf32", 494.5}, {"bf16", 989}, {"fp8", 1979}};
    const char *dtype = json_string_value(json_object_get(p, "dtype"));
    for (size_t i = 0; i < 4; i++)
      if (strcmp(dtype, peaks[i].dtype) == 0)
        return peaks[i].tflops * 1e3;
  }
  if (strcmp(bench, "membw") == 0)
    return 4800;
  if (strcmp(bench, "pcie") == 0)
    return gcb_pcie_link_gbps(5, 16);
  if (strcmp(bench, "p2p") == 0)
    return 450; /* 900 GB/s both ways together */
  return 0;
}

/* Every GPU of the case at `v`, evenly, with right results. */
static void set_figure(json_t *c, double v) {
  json_t *s = json_object_get(c, "summary");
  const char *keys[] = {"min", "median", "mean", "max"};
  for (size_t i = 0; i < 4; i++)
    json_object_set_new(s, keys[i], json_real(v));
  json_object_set_new(s, "stdev", json_real(0));
  json_object_set_new(s, "imbalance", json_real(0));
  json_object_set_new(s, "wrong", json_integer(0));
  json_object_set_new(json_object_get(c, "validation"), "wrong",
                      json_integer(0));
  json_object_set_new(json_object_get(c, "validation"), "passed", json_true());
  json_t *pr = json_object_get(c, "per_rank"), *r;
  json_t *t0 = json_deep_copy(json_object_get(json_array_get(pr, 0), "time_s"));
  size_t i;
  json_array_foreach(pr, i, r) {
    json_object_set_new(
        r, "figure",
        json_pack("{s:f, s:f, s:f}", "median", v, "best", v, "worst", v));
    json_object_set(r, "time_s", t0);
    json_object_set_new(r, "figure_time_s",
                        json_deep_copy(json_object_get(t0, "median")));
    json_t *check = json_object_get(r, "validation");
    json_object_set_new(check, "wrong", json_integer(0));
    json_object_set_new(check, "max_error", json_real(0)); /* right: no error */
  }
  json_decref(t0);
}

/* The fixture's GEMM, memory, PCIe and NVLink cases, every GPU at
 * `fraction` of its datasheet figure, its GPUs renamed `model` (NULL:
 * kept); written to `name` in the scratch directory. */
static const char *gpu8_at(double fraction, const char *model,
                           const char *name) {
  json_error_t je;
  json_t *doc = json_load_file(GCB_TEST_DATA "/report-gpu8.json", 0, &je);
  cr_assert_not_null(doc, "%s", je.text);
  json_t *kept = json_array(), *c, *r, *node, *gpu;
  size_t i, j;
  json_array_foreach(json_object_get(doc, "cases"), i, c) {
    double peak = h200_peak(c);
    if (peak > 0) {
      set_figure(c, peak * fraction);
      json_array_append(kept, c);
    }
  }
  json_object_set_new(doc, "cases", kept);
  json_array_foreach(json_object_get(doc, "ranks"), i, r) {
    if (model != NULL)
      json_object_set_new(json_object_get(r, "device"), "name",
                          json_string(model));
  }
  json_array_foreach(json_object_get(doc, "nodes"), i, node) {
    json_array_foreach(
        json_object_get(json_object_get(node, "topology"), "gpus"), j, gpu) {
      if (model != NULL)
        json_object_set_new(gpu, "model", json_string(model));
    }
  }
  const char *path = gcb_test_path(name);
  cr_assert_eq(json_dump_file(doc, path, JSON_COMPACT), 0);
  json_decref(doc);
  return path;
}

/* `gcbench report FILE` into the scratch directory: its exit status;
 * *out its standard output (the caller frees). */
static int report(const char *file, char **out) {
  const char *args[] = {"report", file, "-o", gcb_test_path("rep"), NULL};
  int code = gcb_test_gcbench(0, args);
  *out = gcb_test_slurp("stdout");
  return code;
}

Test(expect, the_h200_fixture_is_judged_by_the_h200_datasheet) {
  char *out;
  int code = report(GCB_TEST_DATA "/report-gpu8.json", &out);
  cr_expect_eq(code, 1, "%s", out);
  cr_expect(strstr(out, "\nexpectations: H200 expectations, built in") != NULL,
            "%s", out);
  /* The slow GPU 1 misses its GEMM expectations (4 types). */
  cr_expect(strstr(out, "4 acceptance check misses") != NULL, "%s", out);
  /* fp16 is in the H200's file, but the run measured none: n/a. */
  cr_expect(strstr(out, "n/a   check 'GEMM fp16 per GPU") != NULL, "%s", out);
  char *findings = gcb_test_slurp("rep/findings.json");
  cr_expect(strstr(findings, "\"expectations\": \"H200 expectations, built "
                             "in") != NULL);
  cr_expect(strstr(findings, "\"name\": \"NVLink NV18 per pair") != NULL);
  cr_expect(strstr(findings, "matched no case") == NULL,
            "nothing unmeasured fails");
  free(findings);
  /* In junit.xml and the acceptance table, that check is n/a: skipped. */
  char *junit = gcb_test_slurp("rep/junit.xml");
  cr_expect(strstr(junit,
                   "(not measured at m &gt;= 4096)\" time=\"0.000000\">\n"
                   "      <skipped message=\"n/a: the run did not "
                   "measure it") != NULL,
            "%s", junit);
  cr_expect(strstr(junit,
                   "<testsuite name=\"gcbench.criteria\" tests=\"9\" "
                   "failures=\"4\" errors=\"0\" skipped=\"1\">") != NULL);
  free(junit);
  char *html = gcb_test_slurp("rep/index.html");
  cr_expect(strstr(html, "<p id=\"expectations\">Expectations: H200 "
                         "expectations, built in") != NULL);
  free(html);
  char *md = gcb_test_slurp("rep/report.md");
  cr_expect(strstr(md, "\n\nExpectations: H200 expectations, built in") !=
            NULL);
  cr_expect(strstr(md, "(not measured at m &gt;= 4096) | n/a |") != NULL);
  free(md);
  free(out);
}

Test(expect, eight_gpus_30_pct_below_the_datasheet_fail) {
  char *out;
  int code = report(gpu8_at(0.7, NULL, "below.json"), &out);
  cr_expect_eq(code, 1, "%s", out);
  cr_expect(strstr(out, "FAIL") == out, "%s", out);
  cr_expect(strstr(out, "acceptance check miss") != NULL, "%s", out);
  free(out);
}

Test(expect, eight_gpus_at_90_pct_of_the_datasheet_pass) {
  char *out;
  int code = report(gpu8_at(0.9, NULL, "healthy.json"), &out);
  cr_expect_eq(code, 0, "%s", out);
  cr_expect(strstr(out, "\nexpectations: H200 expectations, built in") != NULL,
            "%s", out);
  free(out);
}

Test(expect, a_model_without_a_file_says_so) {
  char *out;
  int code = report(gpu8_at(0.7, "NVIDIA RTX PRO 9999", "unknown.json"), &out);
  cr_expect_eq(code, 0, "not judged, not failed: %s", out);
  cr_expect(strstr(out, "\nexpectations: no built-in expectation for NVIDIA "
                        "RTX PRO 9999\n") != NULL,
            "%s", out);
  free(out);
}

/* The plan's estimate, in seconds ("about 1 s", "about 2 min 5 s"). */
static double estimate_s(const char *plan) {
  const char *at = strstr(plan, "# estimated time: about ");
  cr_assert_not_null(at, "%s", plan);
  double a = 0, b = 0;
  char unit[8] = "";
  int n = sscanf(at + strlen("# estimated time: about "), "%lf %7s %lf", &a,
                 unit, &b);
  cr_assert_geq(n, 2, "%s", at);
  return strncmp(unit, "min", 3) == 0 ? a * 60 + b : a;
}

Test(expect, the_health_profile_plans_under_60_s_and_only_its_benchmarks) {
  const char *args[] = {"suite", "--profile", "health", "--dry-run", NULL};
  int code = gcb_test_gcbench(2, args);
  char *so = gcb_test_slurp("stdout"), *se = gcb_test_slurp("stderr");
  cr_assert_eq(code, 0, "%s", se);
  cr_expect_lt(estimate_s(so), 60, "%s", so);
  cr_expect(strstr(so, "\ngemm ") != NULL && strstr(so, "\nmembw ") != NULL,
            "%s", so);
  cr_expect(strstr(so, "\ncoll ") == NULL && strstr(so, "\npattern ") == NULL,
            "%s", so);
  free(so);
  free(se);
}

Test(expect, a_health_run_on_the_host_says_no_expectation_applies) {
  const char *doc = gcb_test_path("health.json");
  const char *args[] = {"suite", "--profile", "health", "--output", doc, NULL};
  double elapsed = 0;
  int code = gcb_test_run(2, args, 120, &elapsed);
  char *se = gcb_test_slurp("stderr");
  cr_assert_eq(code, 0, "%s", se);
  cr_expect_lt(elapsed, 60, "a health check takes under a minute");
  char *out;
  code = report(doc, &out);
  cr_expect_eq(code, 0, "%s", out);
  cr_expect(strstr(out, "\nexpectations: no built-in expectation applies: the "
                        "run names no GPU model (host backend)\n") != NULL,
            "%s", out);
  free(out);
  free(se);
}
