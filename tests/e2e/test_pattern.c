/*
 * The pattern benchmark end to end on the host backend: every pattern
 * under `mpiexec -n 2` with its collectives validated against exact
 * expected values, the report's sections and findings, a delayed rank
 * named as the straggler, a tensor-parallel group across (fake) nodes and
 * the placement comparison, criteria on the pattern metrics, and bad
 * options refused with one line. Runs are tiny (the tiny model, two or
 * three iterations): the machine has two cores.
 */
#include <criterion/criterion.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/results.h"
#include "tests/e2e/run_gcbench.h"

static void make_dir(void) {
  gcb_test_dir_make("gcb-pattern");
  unsetenv("GCB_NODE_MAP");
  unsetenv("GCB_FAKE_NODES");
}

TestSuite(pattern, .init = make_dir, .fini = gcb_test_dir_remove,
          .timeout = 300);

static const char *param(json_t *c, const char *key) {
  const char *s =
      json_string_value(json_object_get(json_object_get(c, "params"), key));
  return s ? s : "";
}

static json_t *column(json_t *c, const char *group, const char *field) {
  return json_object_get(json_object_get(json_object_get(c, "per_rank"), group),
                         field);
}

/* Runs gcbench report on doc into dir/out; returns its exit code. */
static int report(const char *doc, const char *out, const char *criteria) {
  const char *args[] = {"report",
                        gcb_test_path(doc),
                        "-o",
                        gcb_test_path(out),
                        criteria ? "--criteria" : NULL,
                        criteria,
                        NULL};
  return gcb_test_gcbench(0, args);
}

/* The findings of kind `kind` in dir/out/findings.json naming `rank`
 * (-1: any). */
static int findings(const char *out, const char *kind, long rank) {
  char name[128];
  snprintf(name, sizeof name, "%s/findings.json", out);
  char *text = gcb_test_slurp(name);
  json_error_t e;
  json_t *root = json_loads(text, 0, &e);
  free(text);
  cr_assert_not_null(root, "%s: %s", name, e.text);
  int n = 0;
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(root, "findings"), i, f) {
    json_t *r = json_object_get(json_object_get(f, "location"), "rank");
    n += strcmp(json_string_value(json_object_get(f, "kind")), kind) == 0 &&
         (rank < 0 || (json_is_integer(r) && json_integer_value(r) == rank));
  }
  json_decref(root);
  return n;
}

Test(pattern, every_pattern_runs_with_validated_collectives) {
  const char *args[] = {"pattern", "--backend", "host",
                        "--iters", "2",         "-w",
                        "1",       "--output",  gcb_test_path("all.json"),
                        NULL};
  cr_assert_eq(gcb_test_run(2, args, 240, NULL), 0, "%s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("all.json");
  json_t *cases = gcb_test_section(r, "cases");
  /* dp, fsdp, tp, tp-sp, pp, ep uniform and skewed: 5 parts each. */
  cr_assert_eq(json_array_size(cases), 35);
  const char *seen[] = {"dp", "fsdp", "tp", "tp-sp", "pp", "ep"};
  int count[6] = {0};
  size_t i;
  json_t *c;
  json_array_foreach(cases, i, c) {
    for (int k = 0; k < 6; k++)
      count[k] += strcmp(param(c, "pattern"), seen[k]) == 0;
    cr_expect_str_eq(param(c, "span"), "intra-node", "case %zu", i);
    json_t *checked = column(c, "validation", "checked");
    json_t *wrong = column(c, "validation", "wrong");
    json_t *samples = column(c, "validation", "samples");
    json_t *median = column(c, "time_s", "median");
    cr_assert_eq(json_array_size(checked), 2, "case %zu", i);
    for (size_t k = 0; k < 2; k++) {
      cr_expect(json_is_true(json_array_get(checked, k)), "case %zu", i);
      cr_expect_eq(json_integer_value(json_array_get(wrong, k)), 0);
      cr_expect_gt(json_integer_value(json_array_get(samples, k)), 0);
      cr_expect_gt(json_number_value(json_array_get(median, k)), 0);
    }
  }
  for (int k = 0; k < 6; k++)
    cr_expect_eq(count[k], k == 5 ? 10 : 5, "%s", seen[k]);
  gcb_results_free(r);

  cr_assert_lt(report("all.json", "rep", NULL), 2);
  char *md = gcb_test_slurp("rep/report.md");
  cr_expect_not_null(strstr(md, "## Training patterns"));
  cr_expect_not_null(strstr(md, "## Pattern pp (groups inside a node)"));
  cr_expect_not_null(strstr(md, "## Pattern ep skew 1"));
  cr_expect_not_null(strstr(md, "step breakdown"));
  free(md);
}

/* One rank: every group has one member, whose collectives move nothing
 * (NCCL's on one H200: a local copy or nothing, reported as 1,280 GB/s);
 * the communication parts are skipped, saying why, and the compute and
 * step parts measured. */
Test(pattern, a_group_of_one_rank_has_no_communication_parts) {
  const char *args[] = {"pattern",
                        "--backend",
                        "host",
                        "--patterns",
                        "dp,pp",
                        "--iters",
                        "2",
                        "-w",
                        "1",
                        "--output",
                        gcb_test_path("one.json"),
                        NULL};
  cr_assert_eq(gcb_test_run(1, args, 120, NULL), 0, "%s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("one.json");
  json_t *cases = gcb_test_section(r, "cases");
  json_t *skipped = gcb_test_section(r, "skipped");
  cr_expect_eq(json_array_size(cases), 6, "compute, step, step-compute x 2");
  cr_expect_eq(json_array_size(skipped), 4, "comm, step-comm x 2");
  size_t i;
  json_t *c;
  json_array_foreach(cases, i, c) {
    cr_expect_str_neq(param(c, "part"), "comm", "case %zu", i);
    cr_expect_str_neq(param(c, "part"), "step-comm", "case %zu", i);
  }
  json_array_foreach(skipped, i, c) {
    const char *why = json_string_value(json_object_get(c, "reason"));
    cr_expect_not_null(why ? strstr(why, "its collectives move nothing") : NULL,
                       "%s", why ? why : "(no reason)");
  }
  gcb_results_free(r);
  /* the live row: no comm time, no exposed communication ("-") */
  char *out = gcb_test_slurp("stdout");
  char *row = strstr(out, "\n  dp ");
  cr_assert_not_null(row, "%s", out);
  char tok[12][32];
  cr_assert_eq(sscanf(row,
                      "%31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s",
                      tok[0], tok[1], tok[2], tok[3], tok[4], tok[5], tok[6],
                      tok[7], tok[8], tok[9], tok[10]),
               11, "%.200s", row);
  cr_expect_str_eq(tok[8], "-", "comm: %.200s", row);
  cr_expect_str_eq(tok[9], "-", "exposed comm: %.200s", row);
  cr_expect_str_eq(tok[10], "-", "overlap: %.200s", row);
  free(out);
}

Test(pattern, a_delayed_rank_is_named_the_straggler) {
  const char *args[] = {"pattern",
                        "--backend",
                        "host",
                        "--patterns",
                        "dp,tp",
                        "--delay-rank",
                        "1:60000",
                        "--iters",
                        "3",
                        "-w",
                        "1",
                        "--output",
                        gcb_test_path("slow.json"),
                        NULL};
  cr_assert_eq(gcb_test_run(2, args, 240, NULL), 0, "%s",
               gcb_test_slurp("stderr"));
  /* In every pattern: fail level, report exit 1. */
  cr_expect_eq(report("slow.json", "slowrep", NULL), 1);
  cr_expect_eq(findings("slowrep", "pattern-straggler", 1), 1, "rank 1 named");
  cr_expect_eq(findings("slowrep", "pattern-straggler", 0), 0);
  char *md = gcb_test_slurp("slowrep/report.md");
  cr_expect_not_null(strstr(md, "| 1 (straggler) |"), "the bar marks it");
  free(md);
}

Test(pattern, tensor_parallel_across_nodes_is_found_and_compared) {
  cr_assert_eq(setenv("GCB_FAKE_NODES", "2", 1), 0);
  const char *args[] = {"pattern",
                        "--backend",
                        "host",
                        "--patterns",
                        "tp",
                        "--tp",
                        "2",
                        "--tp-placement",
                        "inner,outer",
                        "--iters",
                        "2",
                        "-w",
                        "0",
                        "--output",
                        gcb_test_path("x.json"),
                        NULL};
  int rc = gcb_test_run(4, args, 280, NULL);
  unsetenv("GCB_FAKE_NODES");
  cr_assert_eq(rc, 0, "%s", gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("x.json");
  json_t *cases = gcb_test_section(r, "cases");
  cr_assert_eq(json_array_size(cases), 10);
  cr_expect_str_eq(param(json_array_get(cases, 0), "placement"), "inner");
  cr_expect_str_eq(param(json_array_get(cases, 0), "span"), "intra-node");
  cr_expect_str_eq(param(json_array_get(cases, 5), "placement"), "outer");
  cr_expect_str_eq(param(json_array_get(cases, 5), "span"), "inter-node");
  gcb_results_free(r);
  cr_assert_lt(report("x.json", "xrep", NULL), 2);
  cr_expect_eq(findings("xrep", "pattern-tp-placement", -1), 1);
  char *md = gcb_test_slurp("xrep/report.md");
  cr_expect_not_null(strstr(md, "| tp outer | inter-node |"));
  free(md);
}

Test(pattern, criteria_bound_the_pattern_figures) {
  const char *args[] = {"pattern",
                        "--backend",
                        "host",
                        "--patterns",
                        "pp",
                        "--iters",
                        "2",
                        "-w",
                        "0",
                        "--output",
                        gcb_test_path("pp.json"),
                        NULL};
  cr_assert_eq(gcb_test_run(2, args, 240, NULL), 0, "%s",
               gcb_test_slurp("stderr"));
  FILE *f = fopen(gcb_test_path("pp-criteria.json"), "w");
  cr_assert_not_null(f);
  fputs("{\"schema\": \"gcbench.criteria/1\", \"checks\": ["
        "{\"name\": \"bubble below 100%\", \"bench\": \"pattern\","
        " \"params\": {\"pattern\": \"pp\", \"part\": \"step\"},"
        " \"max\": {\"pattern_bubble_pct\": 100,"
        " \"pattern_exposed_pct\": 100}},"
        "{\"name\": \"a step in no time\", \"bench\": \"pattern\","
        " \"params\": {\"pattern\": \"pp\", \"part\": \"step\"},"
        " \"max\": {\"time_us\": 0}}]}",
        f);
  fclose(f);
  cr_expect_eq(report("pp.json", "pprep", gcb_test_path("pp-criteria.json")), 1,
               "the impossible check fails");
  char *junit = gcb_test_slurp("pprep/junit.xml");
  cr_expect_not_null(strstr(junit, "a step in no time"));
  free(junit);
  /* Bounds no measurement can break besides the impossible one: the
   * exposed share and the bubble are at most 100 % of the step (compute
   * time is never negative). The impossible one fails on each rank: no
   * step takes no time. (A bubble bound of 0 is not impossible: the
   * bubble is what the step waited beyond the communication's own time,
   * and a quiet machine can measure 0 on both stages.) */
  int missed = findings("pprep", "criterion", -1);
  cr_expect(missed >= 1 && missed <= 2, "one per rank: %s",
            gcb_test_slurp("pprep/findings.json"));
}

Test(pattern, bad_options_end_with_one_line) {
  static const struct {
    const char *opt, *value, *says;
  } bad[] = {
      {"--tp", "3", "--tp 3"},
      {"--model", "nonesuch", "nonesuch"},
      {"--delay-rank", "5:10", "--delay-rank '5:10'"},
      {"--order", "tp,tp,pp", "--order"},
      {"--dtype", "int3", "int3"},
      /* 1.4 TB of buffers: refused before anything is allocated. */
      {"--model", "gpt3-175b", "pattern dp of model gpt3-175b"},
      /* every ep case failed on it, after the results file was written */
      {"--experts", "3", "--experts 3 is not a multiple of the ep group (2)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    const char *args[] = {"pattern",
                          "--backend",
                          "host",
                          bad[i].opt,
                          bad[i].value,
                          "--output",
                          gcb_test_path("bad.json"),
                          NULL};
    cr_expect_eq(gcb_test_run(2, args, 60, NULL), 2, "%s", bad[i].opt);
    char *err = gcb_test_slurp("stderr");
    cr_expect_not_null(strstr(err, bad[i].says), "%s: %s", bad[i].opt, err);
    free(err);
    cr_expect_neq(access(gcb_test_path("bad.json"), F_OK), 0,
                  "%s: a results file", bad[i].opt);
  }
}

/* The cells of the row of `variant` in text: the terminal's (two spaces,
 * then the variant, columns apart by spaces) or report.md's ("| variant
 * |"). Fills up to max cells after the variant; returns how many. */
static int row_cells(const char *text, const char *variant, bool markdown,
                     char cells[][48], int max) {
  char head[64];
  snprintf(head, sizeof head, markdown ? "\n| %s |" : "\n  %s ", variant);
  const char *at = strstr(text, head);
  cr_assert_not_null(at, "no row for %s", variant);
  at += strlen(head);
  const char *end = strchr(at, '\n');
  int n = 0;
  while (at < end && n < max) {
    while (at < end && (*at == ' ' || *at == '|'))
      at++;
    /* A markdown cell runs to its bar, a terminal cell to two spaces
     * (the layout and the overlap hold single ones). */
    const char *stop = at;
    while (stop < end &&
           (markdown ? *stop != '|' : !(stop[0] == ' ' && stop[1] == ' ')))
      stop++;
    size_t len = (size_t)(stop - at);
    while (len > 0 && at[len - 1] == ' ')
      len--;
    if (len > 0)
      snprintf(cells[n++], 48, "%.*s", (int)len, at);
    at = stop;
  }
  return n;
}

/* The mean over ranks of a part's per-rank median (figure time). */
static double part_mean(json_t *cases, const char *pattern, const char *part) {
  size_t i;
  json_t *c;
  json_array_foreach(cases, i, c) {
    if (strcmp(param(c, "pattern"), pattern) != 0 ||
        strcmp(param(c, "part"), part) != 0)
      continue;
    json_t *t =
        json_object_get(json_object_get(c, "per_rank"), "figure_time_s");
    double sum = 0;
    for (size_t r = 0; r < json_array_size(t); r++)
      sum += json_number_value(json_array_get(t, r));
    return sum / (double)json_array_size(t);
  }
  cr_assert_fail("no %s %s case", pattern, part);
  return 0;
}

/* The terminal prints, per pattern, step, compute, communication,
 * exposed communication (step - compute, at least 0), overlap (a fraction
 * in [0, 1] or no overlap measurable: on two cores, none), the straggler and
 * its cost, each column with its unit, the model as given, and the part rows
 * after it in their own units; the report's summary row holds the same
 * cells, and both are the document's per-rank medians through
 * docs/PATTERNS.md's formulas. Fails on the old code: the terminal had
 * one rate row per part under "figures in GFLOP/s" and named the model
 * "custom". An ep group under routing skew names no straggler in either. */
Test(pattern, terminal_report_and_document_show_the_same_figures) {
  const char *args[] = {"pattern", "--backend",  "host",
                        "--model", "tiny",       "--layers",
                        "1",       "--patterns", "dp,tp,ep",
                        "--iters", "3",          "-w",
                        "1",       "--output",   gcb_test_path("same.json"),
                        NULL};
  cr_assert_eq(gcb_test_run(2, args, 240, NULL), 0, "%s",
               gcb_test_slurp("stderr"));
  char *out = gcb_test_slurp("stdout");
  cr_expect_not_null(strstr(out, "model tiny (1 layer)"), "%s", out);
  cr_expect_null(strstr(out, "custom"), "%s", out);
  cr_expect_null(strstr(out, "figures in GFLOP/s"), "%s", out);
  cr_expect_not_null(strstr(out, "(ms)"), "%s", out);
  cr_expect_not_null(strstr(out, "(0-1)"), "%s", out);
  cr_expect_not_null(strstr(out, "  dp            comm "), "%s", out);
  cr_expect_not_null(strstr(out, " GB/s "), "the comm part's unit: %s", out);
  cr_expect_not_null(strstr(out, " GFLOP/s "), "%s", out);
  cr_assert_lt(report("same.json", "samerep", NULL), 2);
  char *md = gcb_test_slurp("samerep/report.md");
  struct gcb_results *r = gcb_test_load("same.json");
  json_t *cases = gcb_test_section(r, "cases");
  static const char *const variants[] = {"dp", "tp inner"};
  static const char *const patterns[] = {"dp", "tp"};
  for (int v = 0; v < 2; v++) {
    char term[10][48], rep[16][48];
    /* layout groups step compute comm exposed overlap straggler cost */
    int nt = row_cells(out, variants[v], false, term, 10);
    /* groups ranks step compute comm exposed overlap straggler cost */
    int nr = row_cells(md, variants[v], true, rep, 16);
    cr_assert_geq(nt, 9, "%s: %d cells in %s", variants[v], nt, out);
    cr_assert_geq(nr, 9, "%s", md);
    for (int k = 0; k < 5; k++) /* step, compute, comm, exposed, overlap */
      cr_expect_str_eq(term[2 + k], rep[2 + k], "%s column %d", variants[v], k);
    cr_expect_eq(strncmp(rep[7], term[7], strlen(term[7])), 0,
                 "straggler: %s vs %s", term[7], rep[7]);
    cr_expect_str_eq(term[8], rep[8], "straggler cost");
    double ts = part_mean(cases, patterns[v], "step"),
           tc = part_mean(cases, patterns[v], "compute");
    cr_expect_float_eq(strtod(term[2], NULL), ts * 1e3, ts * 1e3 * 1e-3);
    cr_expect_float_eq(strtod(term[3], NULL), tc * 1e3, tc * 1e3 * 1e-3);
    double exposed = strtod(term[5], NULL);
    cr_expect_geq(exposed, 0);
    cr_expect_float_eq(exposed, ts > tc ? (ts - tc) * 1e3 : 0,
                       1e-3 * ts * 1e3 + 1e-9);
    if (strcmp(term[6], "no overlap measurable") != 0) {
      double o = strtod(term[6], NULL);
      cr_expect(o >= 0 && o <= 1, "overlap %s", term[6]);
    }
  }
  /* Under routing skew the hot experts' rank computes more by design:
   * both tables name no straggler there, and no cost for one. */
  char term[10][48], rep[16][48];
  cr_assert_geq(row_cells(out, "ep skew 1", false, term, 10), 9, "%s", out);
  cr_assert_geq(row_cells(md, "ep skew 1", true, rep, 16), 9, "%s", md);
  cr_expect_str_eq(term[7], "- (skew)");
  cr_expect_str_eq(rep[7], "- (skew)");
  cr_expect_str_eq(term[8], "-");
  cr_expect_str_eq(rep[8], "-");
  gcb_results_free(r);
  free(md);
  free(out);
}
