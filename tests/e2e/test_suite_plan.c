/*
 * suite --dry-run under mpiexec: the plan names every benchmark with its
 * options, cases, sizes and iterations, and an estimated time that says
 * it is one and what it assumes; nothing runs and no file is written. The
 * network map joins a suite only across nodes: skipped, saying why, on
 * one node; 4 n (n-1) cases over n ranks on several (fake) nodes.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/e2e/run_gcbench.h"

static void setup(void) {
  gcb_test_dir_make("gcb-plan");
}

TestSuite(plan, .init = setup, .fini = gcb_test_dir_remove, .timeout = 120);

static bool exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* The plan's line for `bench` (its first line; static copy). */
static const char *bench_line(const char *out, const char *bench) {
  static char line[512];
  char key[32];
  snprintf(key, sizeof key, "\n%-8s ", bench);
  const char *at = strstr(out, key);
  line[0] = '\0';
  if (at) {
    at++;
    size_t n = strcspn(at, "\n");
    snprintf(line, sizeof line, "%.*s", (int)n, at);
  }
  return line;
}

Test(plan, acceptance_dry_run_prints_the_plan_and_runs_nothing) {
  const char *out = gcb_test_path("never.json");
  const char *args[] = {"suite",    "--profile", "acceptance", "--dry-run",
                        "--output", out,         NULL};
  int code = gcb_test_gcbench(2, args);
  char *so = gcb_test_slurp("stdout"), *se = gcb_test_slurp("stderr");
  cr_assert_eq(code, 0, "stderr: %s", se);
  cr_expect_str_eq(se, "");
  cr_expect(strstr(so, "# gcbench suite --profile acceptance --dry-run: the "
                       "plan (nothing runs, no file is written)") == so,
            "%s", so);
  cr_expect(strstr(so, "# 2 rank(s) on 1 node(s); backend host") != NULL);
  cr_expect(strstr(so, "every case: 5 warm-up then 20 timed iteration(s)"),
            "%s", so);
  const char *ran[] = {"gemm", "membw", "coll", "pattern", "burn"};
  for (size_t i = 0; i < 5; i++)
    cr_expect(strstr(bench_line(so, ran[i]), " case(s), about ") != NULL,
              "%s: '%s'", ran[i], bench_line(so, ran[i]));
  const char *skipped[] = {"pcie", "p2p", "launch", "netmap"};
  for (size_t i = 0; i < 4; i++)
    cr_expect(strstr(bench_line(so, skipped[i]), " skipped: ") != NULL,
              "%s: '%s'", skipped[i], bench_line(so, skipped[i]));
  cr_expect(strstr(bench_line(so, "netmap"), "share 1 node(s)") != NULL);
  /* The host's short sweep, every size listed; the profile's words. */
  cr_expect(strstr(so, "options: --collective all -b 8 -c 1 -e 1M -f 4"));
  cr_expect(strstr(so, "sizes (bytes) 8 32 128 512 2K 8K 32K 128K 512K\n"),
            "%s", so);
  cr_expect(strstr(so, "options: --dtype all -m 512") != NULL);
  /* burn: the host's row after every backend's, its duration counted */
  cr_expect(strstr(so, "options: --duration 10m --duration 60s") != NULL,
            "%s", so);
  cr_expect(strstr(so, "60 s of GEMMs, a point every 1 s") != NULL, "%s", so);
  cr_expect(strstr(bench_line(so, "burn"), "about 1 min") != NULL, "'%s'",
            bench_line(so, "burn"));
  cr_expect(strstr(so, "# estimated time: about ") != NULL);
  cr_expect(strstr(so, "An estimate from a cost model, not a measurement: "
                       "it assumes") != NULL);
  cr_expect(strstr(so, "GB/s for collectives") != NULL);
  cr_expect(!exists(out), "a dry run writes no results document");
  free(so);
  free(se);
}

/* The plan lists only what will run: the host has no read, write or
 * memcpy kernel and only fp64 and fp32 GEMMs, so the acceptance profile's
 * "all" is 4 kernels and 2 types there, the rest named as left out. Fails
 * on the old plan: 7 kernels, 7 types, 7 cases each. */
Test(plan, the_plan_lists_only_the_cases_the_backend_runs) {
  const char *args[] = {"suite", "--profile", "acceptance", "--dry-run", NULL};
  cr_assert_eq(gcb_test_gcbench(2, args), 0, "%s", gcb_test_slurp("stderr"));
  char *so = gcb_test_slurp("stdout");
  cr_expect(strstr(bench_line(so, "membw"), "membw    4 case(s)") != NULL,
            "'%s'", bench_line(so, "membw"));
  cr_expect(strstr(so, "kernels copy, scale, add, triad;") != NULL, "%s", so);
  cr_expect(strstr(so, "left out: read, write, memcpy (the host backend has "
                       "no such kernel) (3 case(s) skipped)") != NULL,
            "%s", so);
  cr_expect(strstr(bench_line(so, "gemm"), "gemm     2 case(s)") != NULL,
            "'%s'", bench_line(so, "gemm"));
  cr_expect(strstr(so, "types fp64, fp32;") != NULL, "%s", so);
  free(so);
}

Test(plan, the_users_run_options_win_and_bad_ones_are_refused) {
  /* acceptance: small arrays on the host, whatever memory is free. */
  const char *args[] = {"suite",   "--profile", "acceptance", "--dry-run",
                        "--iters", "7",         NULL};
  cr_assert_eq(gcb_test_gcbench(2, args), 0, "%s", gcb_test_slurp("stderr"));
  char *so = gcb_test_slurp("stdout");
  cr_expect(strstr(so, "then 7 timed iteration(s)") != NULL, "%s", so);
  free(so);
  const char *bad[] = {"suite", "--dry-run", "--backend", "nonesuch", NULL};
  cr_expect_eq(gcb_test_gcbench(2, bad), 2);
  char *se = gcb_test_slurp("stderr");
  cr_expect(strstr(se, "gcbench: error: ") == se, "%s", se);
  cr_expect(strchr(se, '\n') == se + strlen(se) - 1, "one line: %s", se);
  free(se);
  const char *late[] = {"suite", "--dry-run", "--iters", "0", NULL};
  cr_expect_eq(gcb_test_gcbench(0, late), 2);
}

Test(plan, the_network_map_joins_the_suite_across_nodes) {
  cr_assert_eq(setenv("GCB_FAKE_NODES", "2", 1), 0);
  const char *args[] = {"suite", "--profile", "acceptance", "--dry-run", NULL};
  int code = gcb_test_gcbench(4, args);
  unsetenv("GCB_FAKE_NODES");
  cr_assert_eq(code, 0, "%s", gcb_test_slurp("stderr"));
  char *so = gcb_test_slurp("stdout");
  /* 4 n (n-1): two measures, two schedules, every ordered pair of 4. */
  cr_expect(strstr(bench_line(so, "netmap"), "48 case(s)") != NULL, "%s", so);
  cr_expect(strstr(so, "every ordered pair of 4 ranks") != NULL);
  free(so);
}

Test(plan, on_one_node_the_network_map_is_skipped_visibly) {
  const char *args[] = {
      "netmap", "--min-nodes", "2", "--output", gcb_test_path("one.json"),
      NULL};
  /* and no pass: nothing was measured (exit 5) */
  cr_assert_eq(gcb_test_gcbench(2, args), 5, "%s", gcb_test_slurp("stderr"));
  char *so = gcb_test_slurp("stdout");
  cr_expect(strstr(so, "# skipped netmap (all cases): ") != NULL, "%s", so);
  free(so);
  struct gcb_results *r = gcb_test_load("one.json");
  json_t *skipped = gcb_test_section(r, "skipped");
  cr_assert_eq(json_array_size(skipped), 1);
  const char *why =
      json_string_value(json_object_get(json_array_get(skipped, 0), "reason"));
  cr_expect(strstr(why, "share 1 node(s), --min-nodes is 2") != NULL, "%s",
            why);
  cr_expect_eq(json_array_size(gcb_test_section(r, "cases")), 0);
  gcb_results_free(r);
}

Test(plan, across_nodes_the_map_has_every_ordered_pair) {
  cr_assert_eq(setenv("GCB_FAKE_NODES", "2", 1), 0);
  const char *args[] = {"netmap",
                        "--min-nodes",
                        "2",
                        "--measure",
                        "latency",
                        "--schedule",
                        "alone",
                        "--iters",
                        "1",
                        "--warmup",
                        "0",
                        "--output",
                        gcb_test_path("two.json"),
                        NULL};
  int code = gcb_test_gcbench(4, args);
  unsetenv("GCB_FAKE_NODES");
  cr_assert_eq(code, 0, "%s", gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("two.json");
  cr_expect_eq(json_array_size(gcb_test_section(r, "cases")), 12, "4 x 3");
  cr_expect_eq(json_array_size(gcb_test_section(r, "skipped")), 0);
  gcb_results_free(r);
}
