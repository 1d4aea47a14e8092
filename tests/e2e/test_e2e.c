/*
 * End-to-end runs of the gcbench executable under mpiexec on the host
 * backend, checked through the results document they write (read back with
 * the validating reader).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strings.h>
#include <sys/wait.h>

#include "reports/analysis/analyze.h"
#include "reports/document/ranks.h"
#include "reports/document/results.h"
#include "tests/e2e/run_gcbench.h"

static void make_dir(void) {
  gcb_test_dir_make("gcb-e2e");
}

TestSuite(e2e, .init = make_dir, .fini = gcb_test_dir_remove, .timeout = 300);

static void expect_case_sane(json_t *c, int ranks) {
  const char *label = json_string_value(json_object_get(c, "label"));
  struct gcb_ranks pr;
  cr_assert_eq(gcb_ranks_of(c, &pr), 0);
  cr_expect_eq(pr.n, (size_t)ranks, "%s", label);
  json_t *summary = json_object_get(c, "summary");
  if (json_number_value(json_object_get(c, "work_per_op")) >
      0) /* not barrier */
    cr_expect_gt(json_number_value(json_object_get(summary, "median")), 0, "%s",
                 label);
  cr_expect_eq(json_integer_value(json_object_get(summary, "ranks")), ranks);
  json_t *v = json_object_get(c, "validation");
  cr_expect(json_is_true(json_object_get(v, "checked")), "%s checked", label);
  cr_expect(json_is_true(json_object_get(v, "passed")), "%s passed", label);
  for (size_t i = 0; i < pr.n; i++) {
    cr_expect_eq(gcb_ranks_int(&pr, GCB_RC_RANK, i, -1), (long long)i);
    cr_expect_eq(gcb_ranks_int(&pr, GCB_RC_TIME_N, i, -1), 3, "%s", label);
    cr_expect_gt(gcb_ranks_num(&pr, GCB_RC_TIME_MIN, i), 0, "%s", label);
  }
  gcb_ranks_free(&pr);
}

Test(e2e, gemm_on_two_ranks_writes_validated_figures_per_rank) {
  const char *args[] = {"gemm",    "-m",       "96",
                        "-n",      "64",       "-k",
                        "80",      "--dtype",  "fp32,fp64,fp16",
                        "--iters", "3",        "--warmup",
                        "1",       "--output", gcb_test_path("gemm.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(2, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("gemm.json");
  json_t *run = gcb_test_section(r, "run");
  cr_expect_str_eq(json_string_value(json_object_get(run, "status")),
                   "complete");
  cr_expect_str_eq(json_string_value(json_object_get(run, "backend")), "host");
  cr_expect_eq(json_integer_value(json_object_get(run, "ranks")), 2);
  json_t *cases = gcb_test_section(r, "cases");
  cr_assert_eq(json_array_size(cases), 2);
  for (size_t i = 0; i < 2; i++) {
    json_t *c = json_array_get(cases, i);
    expect_case_sane(c, 2);
    cr_expect_str_eq(json_string_value(json_object_get(c, "unit")), "GFLOP/s");
    json_t *p = json_object_get(c, "params");
    cr_expect_eq(json_integer_value(json_object_get(p, "m")), 96);
    cr_expect_eq(json_integer_value(json_object_get(p, "k")), 80);
    cr_expect_float_eq(json_number_value(json_object_get(c, "work_per_op")),
                       2.0 * 96 * 64 * 80, 1e-6);
  }
  json_t *skipped = gcb_test_section(r, "skipped");
  cr_assert_eq(json_array_size(skipped), 1);
  const char *reason =
      json_string_value(json_object_get(json_array_get(skipped, 0), "reason"));
  cr_expect(strstr(reason, "fp16") != NULL, "%s", reason);
  json_t *opts = gcb_test_section(r, "options");
  cr_expect_eq(json_integer_value(json_object_get(opts, "iters")), 3);
  cr_expect_eq(json_integer_value(json_object_get(opts, "m")), 96);
  cr_expect_eq(json_array_size(gcb_test_section(r, "ranks")), 2);
  cr_expect_eq(json_array_size(gcb_test_section(r, "nodes")), 1);
  char *out = gcb_test_slurp("stdout");
  cr_expect(strstr(out, "GFLOP/s") != NULL, "%s", out);
  cr_expect(strstr(out, "skipped gemm fp16") != NULL, "%s", out);
  cr_expect(strstr(out, "\033[") == NULL, "escape codes when piped");
  free(out);
  gcb_results_free(r);
}

Test(e2e, membw_on_two_ranks_counts_bytes_read_and_written) {
  const char *args[] = {"membw",   "--size",   "1M",
                        "--iters", "3",        "--warmup",
                        "1",       "--output", gcb_test_path("membw.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(2, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("membw.json");
  json_t *cases = gcb_test_section(r, "cases");
  cr_assert_eq(json_array_size(cases), 4);
  const double arrays[] = {2, 2, 3, 3}; /* copy, scale, add, triad */
  for (size_t i = 0; i < 4; i++) {
    json_t *c = json_array_get(cases, i);
    expect_case_sane(c, 2);
    cr_expect_str_eq(json_string_value(json_object_get(c, "unit")), "GB/s");
    cr_expect_float_eq(json_number_value(json_object_get(c, "work_per_op")),
                       arrays[i] * (1 << 20), 1e-6);
    cr_expect(strstr(json_string_value(json_object_get(c, "counted")),
                     "read") != NULL);
  }
  gcb_results_free(r);
}

Test(e2e, suite_runs_every_benchmark_into_one_document) {
  const char *args[] = {"suite",
                        "--iters",
                        "3",
                        "--warmup",
                        "0",
                        "--output",
                        gcb_test_path("sub/dir/suite.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(2, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("sub/dir/suite.json");
  json_t *cases = gcb_test_section(r, "cases");
  int gemm = 0, membw = 0;
  size_t i;
  json_t *c;
  json_array_foreach(cases, i, c) {
    const char *b = json_string_value(json_object_get(c, "bench"));
    gemm += strcmp(b, "gemm") == 0;
    membw += strcmp(b, "membw") == 0;
    expect_case_sane(c, 2);
  }
  cr_expect_eq(gemm, 2);
  cr_expect_eq(membw, 4);
  cr_expect_gt(json_array_size(cases), 6, "coll cases too");
  cr_expect_not_null(json_object_get(gcb_test_section(r, "options"), "gemm"));
  gcb_results_free(r);
}

Test(e2e, odd_rank_count_gathers_every_rank) {
  const char *args[] = {"gemm",
                        "-m",
                        "32",
                        "--dtype",
                        "fp32",
                        "--iters",
                        "3",
                        "--warmup",
                        "0",
                        "--output",
                        gcb_test_path("three.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(3, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("three.json");
  json_t *c = json_array_get(gcb_test_section(r, "cases"), 0);
  expect_case_sane(c, 3);
  json_t *ranks = gcb_test_section(r, "ranks");
  cr_assert_eq(json_array_size(ranks), 3);
  cr_expect_eq(json_integer_value(
                   json_object_get(json_array_get(ranks, 2), "local_rank")),
               2);
  gcb_results_free(r);
}

struct usage_case {
  const char *args[8];
  const char *message;
};

static const struct usage_case usage_cases[] = {
    {{"gemm", "--dtype", "fp7"}, "unknown value 'fp7'"},
    {{"gemm", "-m", "0"}, "below the minimum"},
    {{"membw", "--size", "lots"}, "invalid size 'lots'"},
    {{"gemm", "--iters", "-3"}, "below the minimum"},
    {{"frobnicate"}, "unknown command 'frobnicate'"},
    {{"gemm", "--backend", "tpu"}, "unknown backend 'tpu'"},
    {{"suite", "--output", ""}, "empty path"},
};

Test(e2e, bad_usage_exits_2_with_one_line) {
  for (size_t i = 0; i < sizeof usage_cases / sizeof *usage_cases; i++) {
    cr_expect_eq(gcb_test_gcbench(1, usage_cases[i].args), 2, "case %zu", i);
    char *err = gcb_test_slurp("stderr");
    cr_expect(strstr(err, usage_cases[i].message) != NULL, "case %zu: %s", i,
              err);
    cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
    free(err);
  }
}

Test(e2e, existing_results_are_kept_without_force) {
  char path[128];
  snprintf(path, sizeof path, "%s", gcb_test_path("keep.json"));
  FILE *f = fopen(path, "w");
  fputs("precious", f);
  fclose(f);
  const char *args[] = {"gemm", "-m",       "16", "--iters",
                        "1",    "--output", path, NULL};
  cr_expect_eq(gcb_test_gcbench(1, args), 2);
  char *kept = gcb_test_slurp("keep.json");
  cr_expect_str_eq(kept, "precious");
  free(kept);
  const char *forced[] = {"gemm",     "-m", "16",      "--iters", "1",
                          "--output", path, "--force", NULL};
  cr_expect_eq(gcb_test_gcbench(1, forced), 0);
  gcb_results_free(gcb_test_load("keep.json"));
}

Test(e2e, help_describes_every_command_and_option) {
  const char *top[] = {"--help", NULL};
  cr_assert_eq(gcb_test_gcbench(0, top), 0);
  char *out = gcb_test_slurp("stdout");
  cr_expect(strstr(out, "gemm") && strstr(out, "membw") && strstr(out, "suite"),
            "%s", out);
  free(out);
  const char *gemm[] = {"gemm", "--help", NULL};
  cr_assert_eq(gcb_test_gcbench(0, gemm), 0);
  out = gcb_test_slurp("stdout");
  const char *want[] = {"--backend", "--iters", "--warmup",
                        "--output",  "--seed",  "--dtype",
                        "-m",        "-k",      "[default:"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    cr_expect(strstr(out, want[i]) != NULL, "gemm --help lacks %s", want[i]);
  free(out);
  /* Help is for users: the tests' fault injection is not in it, though
   * it still parses (test_robust.c, test_pattern.c use it). */
  const char *cmds[] = {"coll", "pattern", "suite", "gemm"};
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    const char *args[] = {cmds[i], "--help", NULL};
    cr_assert_eq(gcb_test_gcbench(0, args), 0, "%s --help", cmds[i]);
    out = gcb_test_slurp("stdout");
    cr_expect(strstr(out, "--backend") != NULL, "%s --help: %s", cmds[i], out);
    const char *hidden[] = {"stall-rank", "delay-rank", "corrupt-rank",
                            "test only"};
    for (size_t k = 0; k < sizeof hidden / sizeof *hidden; k++)
      cr_expect(strstr(out, hidden[k]) == NULL, "%s --help shows %s", cmds[i],
                hidden[k]);
    free(out);
  }
}

/* ---- coll
 * ------------------------------------------------------------------*/

static double num(json_t *o, const char *key) {
  return json_number_value(json_object_get(o, key));
}

static const char *param(json_t *c, const char *key) {
  return json_string_value(json_object_get(json_object_get(c, "params"), key));
}

Test(e2e, coll_sweeps_every_operation_with_exact_validation) {
  const char *args[] = {"coll",
                        "--collective",
                        "all",
                        "-b",
                        "8",
                        "-e",
                        "4K",
                        "-f",
                        "8",
                        "-c",
                        "1",
                        "--iters",
                        "4",
                        "--warmup",
                        "1",
                        "--output",
                        gcb_test_path("coll.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(2, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("coll.json");
  json_t *cases = gcb_test_section(r, "cases");
  cr_assert_gt(json_array_size(cases), 20);
  int allreduce = 0;
  size_t i;
  json_t *c;
  json_array_foreach(cases, i, c) {
    const char *label = json_string_value(json_object_get(c, "label"));
    json_t *s = json_object_get(c, "summary");
    cr_expect_eq(json_integer_value(json_object_get(s, "wrong")), 0, "%s",
                 label);
    cr_expect(json_is_true(json_object_get(s, "checked")), "%s", label);
    cr_expect_not_null(json_object_get(s, "late_rank"), "%s", label);
    struct gcb_ranks pr;
    cr_assert_eq(gcb_ranks_of(c, &pr), 0);
    cr_expect_eq(gcb_ranks_int(&pr, GCB_RC_LATE_N, 0, -1), 4, "%s", label);
    gcb_ranks_free(&pr);
    if (strcmp(param(c, "op"), "allreduce") == 0) {
      allreduce++;
      cr_expect_float_eq(num(c, "bus_factor"), 1.0, 1e-12); /* 2(n-1)/n */
      cr_expect_float_eq(num(s, "busbw"), num(s, "algbw"), 1e-9);
      cr_expect_gt(num(s, "algbw"), 0, "%s", label);
    }
  }
  cr_expect_eq(allreduce, 4 * 2,
               "8, 64, 512, 4096 B, out-of-place and in-place");
  char *out = gcb_test_slurp("stdout");
  cr_expect(strstr(out, "out-of-place") && strstr(out, "in-place"), "%s", out);
  cr_expect(strstr(out, "# Out of bounds values : 0 OK") != NULL, "%s", out);
  cr_expect(strstr(out, "# Avg bus bandwidth") != NULL, "%s", out);
  free(out);
  gcb_results_free(r);
}

Test(e2e, coll_on_three_ranks_validates_integer_and_float_types) {
  const char *args[] = {"coll",
                        "--collective",
                        "allreduce,reducescatter,alltoall,broadcast",
                        "-d",
                        "int8,int64,double",
                        "-o",
                        "sum,max",
                        "-b",
                        "24",
                        "-e",
                        "48",
                        "-f",
                        "2",
                        "--iters",
                        "2",
                        "--warmup",
                        "0",
                        "--output",
                        gcb_test_path("coll3.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(3, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("coll3.json");
  size_t i;
  json_t *c;
  json_array_foreach(gcb_test_section(r, "cases"), i, c) {
    json_t *s = json_object_get(c, "summary");
    cr_expect_eq(json_integer_value(json_object_get(s, "wrong")), 0, "%s",
                 json_string_value(json_object_get(c, "label")));
    cr_expect_eq(json_integer_value(json_object_get(s, "ranks")), 3);
  }
  cr_expect_gt(json_array_size(gcb_test_section(r, "cases")), 20);
  gcb_results_free(r);
}

Test(e2e, coll_names_the_late_rank) {
  const char *args[] = {"coll",
                        "--collective",
                        "allreduce",
                        "-b",
                        "64",
                        "-e",
                        "64",
                        "--iters",
                        "5",
                        "--warmup",
                        "1",
                        "--delay-rank",
                        "1:3000",
                        "--output",
                        gcb_test_path("late.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(2, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("late.json");
  size_t i;
  json_t *c;
  json_array_foreach(gcb_test_section(r, "cases"), i, c) {
    json_t *s = json_object_get(c, "summary");
    cr_expect_eq(json_integer_value(json_object_get(s, "late_rank")), 1);
    cr_expect_gt(num(s, "late_mean_s"), 2e-3, "late by %g s",
                 num(s, "late_mean_s"));
  }
  char *out = gcb_test_slurp("stdout");
  cr_expect(strstr(out, "# Latest arrival       : rank 1 (") != NULL, "%s",
            out);
  free(out);
  gcb_results_free(r);
}

Test(e2e, coll_counts_a_corrupted_element_and_fails) {
  const char *args[] = {"coll",
                        "--collective",
                        "allreduce,allgather",
                        "-b",
                        "64",
                        "-e",
                        "64",
                        "--iters",
                        "2",
                        "--corrupt-rank",
                        "1",
                        "--output",
                        gcb_test_path("bad.json"),
                        NULL};
  cr_expect_eq(gcb_test_gcbench(2, args), 1, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("bad.json");
  size_t i;
  json_t *c;
  json_array_foreach(gcb_test_section(r, "cases"), i, c) {
    json_t *s = json_object_get(c, "summary");
    cr_expect_eq(json_integer_value(json_object_get(s, "wrong")), 1);
    struct gcb_ranks pr;
    cr_assert_eq(gcb_ranks_of(c, &pr), 0);
    cr_expect_eq(gcb_ranks_int(&pr, GCB_RC_WRONG, 1, -1), 1);
    gcb_ranks_free(&pr);
  }
  char *out = gcb_test_slurp("stdout");
  cr_expect(strstr(out, "FAILED") != NULL, "%s", out);
  free(out);
  gcb_results_free(r);
}

static const struct usage_case coll_usage_cases[] = {
    {{"coll", "-b", "1M", "-e", "8"}, "-b 1048576 is larger than -e 8"},
    {{"coll", "--collective", "allsmash"}, "unknown value 'allsmash'"},
    {{"coll", "-d", "float128"}, "unknown value 'float128'"},
    {{"coll", "--delay-rank", "7"}, "--delay-rank '7'"},
    {{"coll", "--root", "5"}, "--root 5: only 1 rank(s)"},
};

Test(e2e, coll_bad_usage_exits_2_with_one_line) {
  for (size_t i = 0; i < sizeof coll_usage_cases / sizeof *coll_usage_cases;
       i++) {
    cr_expect_eq(gcb_test_gcbench(1, coll_usage_cases[i].args), 2, "case %zu",
                 i);
    char *err = gcb_test_slurp("stderr");
    cr_expect(strstr(err, coll_usage_cases[i].message) != NULL, "case %zu: %s",
              i, err);
    free(err);
  }
}

/* ---- topo
 * -------------------------------------------------------------------*/

Test(e2e, topo_shows_the_dgx2_structure_from_its_xml) {
  const char *args[] = {"topo", "--topology-xml",
                        GCB_TEST_DATA "/topo/hwloc-nvidia-dgx2.xml", NULL};
  cr_assert_eq(gcb_test_gcbench(0, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  char *out = gcb_test_slurp("stdout");
  const char *want[] = {"GPUs: 16", "GPU15", "NV6", "PIX",
                        "PXB",      "NODE",  "SYS", "NICs: 0"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    cr_expect(strstr(out, want[i]) != NULL, "topo output lacks '%s'", want[i]);
  free(out);
}

/* CPU lists longer than the header ("0-1,8-9,16-17,24-25" on POWER8)
 * widen the column: the NUMA column starts at the same place in every
 * line of the matrix, and no line ends in blanks. */
Test(e2e, topo_matrix_columns_stay_aligned_with_long_cpu_lists) {
  const char *args[] = {"topo", "--topology-xml",
                        GCB_TEST_DATA "/topo/hwloc-power8-4xp100-nvlink.xml",
                        NULL};
  cr_assert_eq(gcb_test_gcbench(0, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  char *out = gcb_test_slurp("stdout");
  const char *head = strstr(out, "NUMA Affinity");
  cr_assert_not_null(head);
  const char *line = head;
  while (line > out && line[-1] != '\n')
    line--;
  long col = head - line;
  size_t rows = 0;
  for (const char *p = strchr(head, '\n') + 1; strncmp(p, "GPU", 3) == 0;
       p = strchr(p, '\n') + 1, rows++) {
    const char *end = strchr(p, '\n');
    cr_assert_not_null(end);
    cr_expect_gt(end - p, col, "row %zu shorter than the header", rows);
    cr_expect(p[col - 1] == ' ' && p[col] != ' ',
              "row %zu: NUMA column not at %ld: %.*s", rows, col,
              (int)(end - p), p);
    cr_expect(end[-1] != ' ', "row %zu ends in a blank", rows);
  }
  cr_expect_eq(rows, 4);
  free(out);
}

Test(e2e, topo_works_on_this_machine_and_rejects_bad_xml) {
  const char *live[] = {"topo", NULL};
  cr_expect_eq(gcb_test_gcbench(0, live), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  const char *bad[] = {"topo", "--topology-xml", "/nonexistent/topo.xml", NULL};
  cr_expect_eq(gcb_test_gcbench(0, bad), 2);
  char *err = gcb_test_slurp("stderr");
  cr_expect(strstr(err, "/nonexistent/topo.xml") != NULL, "%s", err);
  free(err);
}

Test(e2e, every_results_document_holds_the_topology_summary) {
  const char *args[] = {"gemm",    "-m",       "32",
                        "--dtype", "fp32",     "--iters",
                        "1",       "--output", gcb_test_path("topo.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(2, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("topo.json");
  json_t *node = json_array_get(gcb_test_section(r, "nodes"), 0);
  json_t *topo = json_object_get(node, "topology");
  cr_assert(json_is_object(topo));
  cr_expect(json_is_array(json_object_get(topo, "gpus")));
  cr_expect(json_is_array(json_object_get(topo, "placement")));
  gcb_results_free(r);
}

Test(e2e, gemm_shape_sweep_runs_one_case_per_shape_and_type) {
  const char *args[] = {"gemm",    "--shapes",  "48,64x32x16",
                        "--dtype", "fp32,fp64", "--iters",
                        "2",       "--output",  gcb_test_path("shapes.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(1, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("shapes.json");
  json_t *cases = gcb_test_section(r, "cases");
  cr_assert_eq(json_array_size(cases), 4);
  json_t *last = json_object_get(json_array_get(cases, 3), "params");
  cr_expect_eq(json_integer_value(json_object_get(last, "m")), 64);
  cr_expect_eq(json_integer_value(json_object_get(last, "k")), 16);
  gcb_results_free(r);
  const char *bad[] = {
      "gemm", "--shapes", "64,9x", "--output", gcb_test_path("bad.json"), NULL};
  cr_expect_eq(gcb_test_gcbench(1, bad), 2);
  char *err = gcb_test_slurp("stderr");
  cr_expect(strstr(err, "--shapes '64,9x'") != NULL, "%s", err);
  free(err);
}

/* One road per value: coll's -n is an alias of --iters, so the iterations
 * timed, the record, the live table's header and time_s.n all say the
 * same number (once -n 50 timed 50 and said 10 everywhere). */
Test(e2e, coll_n_is_what_the_record_the_table_and_time_s_n_say) {
  const char *args[] = {"coll",
                        "--collective",
                        "allreduce,broadcast",
                        "-b",
                        "8",
                        "-e",
                        "64",
                        "-n",
                        "4",
                        "--iters",
                        "9",
                        "-n",
                        "5",
                        "--output",
                        gcb_test_path("n.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(2, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("n.json");
  json_t *cases = gcb_test_section(r, "cases");
  cr_assert_gt(json_array_size(cases), 0);
  for (size_t i = 0; i < json_array_size(cases); i++) {
    json_t *c = json_array_get(cases, i);
    cr_expect_eq(json_integer_value(json_object_get(c, "iterations")), 5);
    struct gcb_ranks pr;
    cr_assert_eq(gcb_ranks_of(c, &pr), 0);
    for (size_t k = 0; k < pr.n; k++)
      cr_expect_eq(gcb_ranks_int(&pr, GCB_RC_TIME_N, k, -1), 5, "rank %zu", k);
    gcb_ranks_free(&pr);
  }
  json_t *opts = gcb_test_section(r, "options");
  cr_expect_eq(json_integer_value(json_object_get(opts, "iters")), 5);
  cr_expect_null(json_object_get(opts, "iterations"), "an alias is no echo");
  char *out = gcb_test_slurp("stdout");
  cr_expect(strstr(out, "coll allreduce on host: 2 rank(s), 5 iterations") !=
                NULL,
            "%s", out);
  cr_expect(strstr(out, "coll broadcast on host: 2 rank(s), 5 iterations") !=
                NULL,
            "%s", out);
  free(out);
  gcb_results_free(r);
}

/* The launch context (issue 15): under mpiexec with a Slurm job and NCCL
 * settings in the environment, the document records them in
 * run.environment, leaves out what is not a launcher's or library's
 * setting and anything named like a secret, and the report shows them. */
Test(e2e, launch_context_is_recorded_without_secrets) {
  setenv("SLURM_JOB_ID", "4242", 1);
  setenv("SLURM_JOB_NODELIST", "gpu-[01-02]", 1);
  setenv("SLURM_STEP_ID", "0", 1);
  setenv("NCCL_DEBUG", "INFO", 1);
  setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);
  setenv("NCCL_IB_TOKEN", "hunter2-token", 1);
  setenv("UCX_API_KEY", "hunter2-key", 1);
  setenv("GCB_UNRELATED_SETTING", "nope", 1);
  const char *args[] = {"membw",   "--size",   "64K",
                        "--iters", "2",        "--warmup",
                        "1",       "--output", gcb_test_path("launch.json"),
                        NULL};
  int rc = gcb_test_gcbench(2, args);
  const char *names[] = {"SLURM_JOB_ID",         "SLURM_JOB_NODELIST",
                         "SLURM_STEP_ID",        "NCCL_DEBUG",
                         "CUDA_VISIBLE_DEVICES", "NCCL_IB_TOKEN",
                         "UCX_API_KEY",          "GCB_UNRELATED_SETTING"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    unsetenv(names[i]);
  cr_assert_eq(rc, 0, "stderr: %s", gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("launch.json");
  json_t *env = json_object_get(gcb_test_section(r, "run"), "environment");
  cr_assert(json_is_object(env), "run.environment recorded");
  static const char *const want[][2] = {{"SLURM_JOB_ID", "4242"},
                                        {"SLURM_JOB_NODELIST", "gpu-[01-02]"},
                                        {"SLURM_STEP_ID", "0"},
                                        {"NCCL_DEBUG", "INFO"},
                                        {"CUDA_VISIBLE_DEVICES", "0,1"}};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    const char *v = json_string_value(json_object_get(env, want[i][0]));
    cr_expect(v != NULL && strcmp(v, want[i][1]) == 0, "%s: %s", want[i][0],
              v ? v : "(absent)");
  }
  cr_expect_null(json_object_get(env, "NCCL_IB_TOKEN"));
  cr_expect_null(json_object_get(env, "UCX_API_KEY"));
  cr_expect_null(json_object_get(env, "GCB_UNRELATED_SETTING"));
  char *doc = gcb_test_slurp("launch.json");
  cr_expect(strstr(doc, "hunter2") == NULL, "a secret in the document");
  free(doc);
  gcb_results_free(r);

  const char *rep[] = {"report", gcb_test_path("launch.json"), "-o",
                       gcb_test_path("launch-report"), NULL};
  cr_assert_eq(gcb_test_gcbench(0, rep), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  char *md = gcb_test_slurp("launch-report/report.md");
  cr_expect(strstr(md, "Launch context") != NULL, "no launch table");
  cr_expect(strstr(md, "SLURM\\_JOB\\_ID") != NULL &&
                strstr(md, "4242") != NULL,
            "the Slurm job is not in report.md");
  cr_expect(strstr(md, "NCCL\\_DEBUG | INFO") != NULL,
            "NCCL_DEBUG not in report.md");
  cr_expect(strstr(md, "hunter2") == NULL, "a secret in report.md");
  free(md);
  char *html = gcb_test_slurp("launch-report/index.html");
  cr_expect(strstr(html, "NCCL_DEBUG</td><td>INFO") != NULL,
            "NCCL_DEBUG not in index.html");
  cr_expect(strstr(html, "hunter2") == NULL, "a secret in index.html");
  free(html);
}

/* The libraries under the figures, as a real run gathers them: the start-up
 * MPI probe, every rank's own BLAS (rank 1 launched with
 * OPENBLAS_CORETYPE=Haswell), and the MPI line of the live collective
 * header, which is the document's (gcb_view_mpi_line). */
Test(e2e, the_run_records_its_mpi_probe_each_ranks_blas_and_names_its_mpi) {
  const char *wrap[] = {"sh", "-c",
                        "[ \"$PMI_RANK\" = 1 ] && export "
                        "OPENBLAS_CORETYPE=Haswell; exec \"$0\" \"$@\"",
                        NULL};
  const char *args[] = {"coll",
                        "--collective",
                        "latency",
                        "-b",
                        "8",
                        "-e",
                        "8",
                        "--iters",
                        "5",
                        "--warmup",
                        "1",
                        "--output",
                        gcb_test_path("prov.json"),
                        NULL};
  struct gcb_test_job job = gcb_test_start(2, NULL, wrap, args);
  int rc = gcb_test_finish(job, 120, NULL);
  cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "stderr: %s",
            gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("prov.json");
  json_t *probe = json_object_get(gcb_test_section(r, "run"), "mpi_probe");
  json_t *pair = json_array_get(json_object_get(probe, "pairs"), 0);
  cr_assert_not_null(pair, "run.mpi_probe.pairs[0]");
  cr_expect_eq(json_array_size(json_object_get(probe, "pairs")), 1,
               "one node: the same-node pair only");
  cr_expect_eq(
      json_integer_value(json_array_get(json_object_get(pair, "ranks"), 1)), 1);
  cr_expect(json_is_true(json_object_get(pair, "same_node")));
  double lo = json_number_value(json_object_get(pair, "min_us")),
         med = json_number_value(json_object_get(pair, "median_us"));
  cr_expect(lo > 0 && med >= lo, "min %g median %g", lo, med);
  long long whole = json_integer_value(json_object_get(pair, "batches"));
  cr_expect(whole >= 0 && whole <= 10, "batches %lld", whole);
  json_t *ranks = gcb_test_section(r, "ranks");
  const char *core[2];
  for (int i = 0; i < 2; i++) {
    json_t *blas = json_object_get(json_array_get(ranks, (size_t)i), "blas");
    core[i] = json_string_value(json_object_get(blas, "core"));
    cr_assert_not_null(core[i], "ranks[%d].blas.core", i);
    cr_expect_geq(json_integer_value(json_object_get(blas, "threads")), 1);
  }
  if (strcasecmp(core[1], "Haswell") != 0)
    cr_log_warn("OPENBLAS_CORETYPE not honoured (an OpenBLAS without "
                "DYNAMIC_ARCH): rank 1 runs %s, per-rank difference not seen",
                core[1]);
  else if (strcasecmp(core[0], "Haswell") != 0) {
    struct gcb_model *model = NULL;
    struct gcb_thresholds t;
    gcb_thresholds_default(&t);
    struct gcb_findings fs = {0};
    struct gcb_err err = {0};
    cr_assert_eq(gcb_model_from_results(r, "prov.json", &model, &err), GCB_OK,
                 "%s", err.msg); /* the rules read it */
    struct gcb_doc d = {
        .name = "prov.json", .root = gcb_results_json(r), .model = model};
    cr_assert_eq(gcb_analyze(&d, 1, &t, &fs, &err), GCB_OK, "%s", err.msg);
    bool named = false;
    for (size_t i = 0; i < fs.n; i++)
      named |= strcmp(fs.items[i].kind->name, "blas-kernel") == 0 &&
               strcmp(fs.items[i].where.ranks, "1") == 0 &&
               strstr(fs.items[i].explanation, "Haswell") != NULL;
    cr_expect(named, "no blas-kernel finding names rank 1's Haswell kernels");
    gcb_findings_free(&fs);
    gcb_model_free(model);
  }
  char line[256], want[300];
  gcb_view_mpi_line(gcb_results_json(r), line, sizeof line);
  cr_assert(line[0] != '\0', "software.mpi recorded");
  snprintf(want, sizeof want, "\n# gcbench MPI: %s\n", line);
  char *out = gcb_test_slurp("stdout");
  cr_expect(strstr(out, want) != NULL, "%s not in: %s", want, out);
  gcb_view_mpi_probe_line(gcb_results_json(r), line, sizeof line);
  snprintf(want, sizeof want, "\n# gcbench MPI probe: %s\n", line);
  cr_expect(strstr(out, want) != NULL, "%s not in: %s", want, out);
  free(out);
  gcb_results_free(r);
}
