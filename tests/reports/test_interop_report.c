/*
 * A whole report over a gcbench run of an 8-GPU node (report-gpu8.json,
 * made by scripts/perf/report-scale --fixture 8) together with the same
 * node's nccl-tests and nvbandwidth output, checked against the H200
 * acceptance criteria: every renderer and the gnuplot script against
 * golden files in tests/data/golden/gpu8/, so the per-GPU table, the
 * nccl-tests sweeps, the P2P heatmaps and the OpenMetrics file are pinned
 * down. Regenerate with GCB_UPDATE_GOLDEN=1 and review the diff.
 */
#include "reports/interop/interop.h"
#include "reports/plot/plot.h"
#include "reports/render/render.h"
#include "tests/reports/report_fixture.h"

#define DATA(name) GCB_TEST_DATA "/" name
#define NDOCS 3

struct fixture {
  struct gcb_results *res[NDOCS];
  struct gcb_doc docs[NDOCS];
  struct gcb_criteria *cr;
  struct gcb_check_result checks[32];
  struct gcb_findings findings;
  struct gcb_report rep;
};

static void fixture_load(struct fixture *fx) {
  static const char *const files[NDOCS] = {"report-gpu8.json",
                                           "interop/nccl-tests-allreduce.json",
                                           "interop/nvbandwidth-h200.json"};
  struct gcb_err err = {0};
  memset(fx, 0, sizeof *fx);
  for (size_t i = 0; i < NDOCS; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, files[i]);
    struct gcb_model *m;
    cr_assert_eq(
        fx_interop_read(path, fx->docs, i, &fx->res[i], &m, NULL, &err),
        GCB_OK, "%s", err.msg);
    /* Names without the build's path, so the golden files are portable. */
    fx->docs[i] = fx_doc_read(files[i], fx->res[i], m);
  }
  size_t len = 0;
  char *text = fx_slurp(DATA("criteria-h200.json"), &len);
  cr_assert_not_null(text);
  cr_assert_eq(
      gcb_criteria_parse(text, len, "criteria-h200.json", &fx->cr, &err),
      GCB_OK, "%s", err.msg);
  free(text);
  cr_assert_leq(fx->cr->nchecks, 32);
  fx_docs_model(fx->docs, NDOCS);
  cr_assert_eq(
      gcb_analyze(fx->docs, NDOCS, &fx->cr->thresholds, &fx->findings, &err),
      GCB_OK);
  cr_assert_eq(gcb_criteria_evaluate(fx->cr, fx->docs, NDOCS, fx->checks,
                                     &fx->findings, &err),
               GCB_OK);
  gcb_findings_sort(&fx->findings);
  fx->rep = (struct gcb_report){.docs = fx->docs,
                                .ndocs = NDOCS,
                                .findings = &fx->findings,
                                .criteria = fx->cr,
                                .checks = fx->checks,
                                .thresholds = &fx->cr->thresholds};
}

static void fixture_free(struct fixture *fx) {
  fx_docs_free(fx->docs, NDOCS);
  for (size_t i = 0; i < NDOCS; i++)
    gcb_results_free(fx->res[i]);
  gcb_criteria_free(fx->cr);
  gcb_findings_free(&fx->findings);
}

Test(interop_report, every_format_matches_its_golden_file) {
  struct fixture fx;
  fixture_load(&fx);
  for (size_t i = 0; gcb_renderers[i]; i++) {
    char *buf = NULL, name[128];
    size_t len = 0;
    struct gcb_err err = {0};
    if (!gcb_renderer_applies(gcb_renderers[i], &fx.rep))
      continue; /* a file the report does not write (netmap.svg) */
    FILE *m = open_memstream(&buf, &len);
    cr_assert_eq(gcb_renderers[i]->render(m, &fx.rep, &err), GCB_OK, "%s",
                 err.msg);
    fclose(m);
    snprintf(name, sizeof name, "gpu8/%s", gcb_renderers[i]->file);
    fx_golden(name, buf, len);
    free(buf);
  }
  fixture_free(&fx);
}

Test(interop_report, the_gnuplot_script_matches_its_golden_file) {
  struct fixture fx;
  fixture_load(&fx);
  char *buf = NULL;
  size_t len = 0;
  struct gcb_plots plots = {0};
  struct gcb_err err = {0};
  FILE *m = open_memstream(&buf, &len);
  cr_assert_eq(gcb_plot_script(m, fx.docs, NDOCS, &fx.cr->thresholds, false,
                               &plots, &err),
               GCB_OK);
  fclose(m);
  fx_golden("gpu8/plots.gp", buf, len);
  size_t p2p = 0;
  for (size_t i = 0; i < plots.n; i++)
    p2p += strstr(plots.items[i].file, "-p2p.") != NULL;
  cr_expect_eq(p2p, 3, "gcbench's P2P matrix and nvbandwidth's two");
  gcb_plots_free(&plots);
  free(buf);
  fixture_free(&fx);
}

Test(interop_report, the_h200_criteria_judge_every_kind_of_case) {
  struct fixture fx;
  fixture_load(&fx);
  for (size_t i = 0; i < fx.cr->nchecks; i++)
    cr_expect_gt(fx.checks[i].matched, 0, "check '%s' matched nothing",
                 fx.cr->checks[i].name);
  fixture_free(&fx);
}

/* The cell of table t at row (0: the header) and the column headed name;
 * NULL when there is none. */
static const char *cell_of(const struct gcb_rtable *t, size_t row,
                           const char *name) {
  for (size_t k = 0; k < t->ncols; k++)
    if (strcmp(t->cells[k], name) == 0)
      return t->cells[row * t->ncols + k];
  return NULL;
}

/* Issue 26: nvbandwidth states rates at a nominal size and never a time,
 * so the tables show no time for its copies ("-", as for a figure that is
 * missing), while the ratios between its ranks stand; gcbench's own cases,
 * which measured their times, keep them. */
Test(interop_report, nvbandwidth_tables_show_no_time_for_a_nominal_size) {
  struct fixture fx;
  fixture_load(&fx);
  struct gcb_rtables ts = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_report_tables(&fx.rep, &ts, &err), GCB_OK, "%s", err.msg);
  const struct gcb_rtable *t = NULL;
  for (size_t i = 0; i < ts.n; i++)
    if (strcmp(ts.items[i].id, "imbalance") == 0)
      t = &ts.items[i];
  cr_assert_not_null(t);
  static const char *const times[] = {"[total]", "<avg>", "min", "max"};
  size_t nominal = 0, measured = 0;
  for (size_t r = 1; r <= t->nrows; r++) {
    const char *run = cell_of(t, r, "run");
    cr_assert_not_null(run);
    bool nvbw = strcmp(run, "3") == 0;
    nominal += nvbw;
    measured += strcmp(run, "1") == 0;
    for (size_t k = 0; k < 4; k++) {
      const char *x = cell_of(t, r, times[k]);
      cr_assert_not_null(x, "%s", times[k]);
      cr_expect_eq(strcmp(x, "-") == 0, nvbw, "run %s %s: %s %s", run,
                   cell_of(t, r, "case"), times[k], x);
    }
    cr_expect_str_neq(cell_of(t, r, "imbalance"), "-", "run %s %s", run,
                      cell_of(t, r, "case"));
  }
  cr_expect_gt(nominal, 0, "nvbandwidth's copies are in the table");
  cr_expect_gt(measured, 0, "gcbench's cases are in the table");
  gcb_rtables_free(&ts);
  fixture_free(&fx);
}

/* JUnit's time of a test case is the time its timed loop took: none (0)
 * for nvbandwidth's copies, whose times the size they assume would make
 * up; gcbench's measured copy keeps its time. */
Test(interop_report, junit_gives_no_time_for_a_nominal_size) {
  struct fixture fx;
  fixture_load(&fx);
  const struct gcb_renderer *junit = NULL;
  for (size_t i = 0; gcb_renderers[i]; i++)
    if (strcmp(gcb_renderers[i]->file, "junit.xml") == 0)
      junit = gcb_renderers[i];
  cr_assert_not_null(junit);
  char *buf = NULL;
  size_t len = 0;
  struct gcb_err err = {0};
  FILE *m = open_memstream(&buf, &len);
  cr_assert_eq(junit->render(m, &fx.rep, &err), GCB_OK, "%s", err.msg);
  fclose(m);
  cr_expect_not_null(strstr(
      buf, "name=\"host_to_device_memcpy_ce (run 3)\" time=\"0.000000\""));
  cr_expect_not_null(
      strstr(buf, "name=\"device_to_device_memcpy_read_ce GPU1-&gt;GPU0 (run "
                  "3)\" time=\"0.000000\""));
  cr_expect_null(
      strstr(buf, "name=\"h2d pinned 1G (run 1)\" time=\"0.000000\""));
  cr_expect_not_null(strstr(buf, "name=\"h2d pinned 1G (run 1)\" time=\"0."));
  free(buf);
  fixture_free(&fx);
}

/* The component matrix of an nvbandwidth file alone: its cells show the
 * figures but no time, since the file never states a size (junit.xml's
 * component tests read the cells' times). */
Test(interop_report, matrix_cells_give_no_time_for_a_nominal_size) {
  struct gcb_results *res = NULL;
  struct gcb_model *model = NULL;
  struct gcb_doc doc;
  struct gcb_err err = {0};
  cr_assert_eq(fx_interop_read(DATA("interop/nvbandwidth-h200.json"), NULL, 0,
                               &res, &model, NULL, &err),
               GCB_OK, "%s", err.msg);
  doc = fx_doc_read("nvbandwidth-h200.json", res, model);
  struct gcb_thresholds th;
  gcb_thresholds_default(&th);
  struct gcb_findings findings = {0};
  cr_assert_eq(gcb_analyze(&doc, 1, &th, &findings, &err), GCB_OK, "%s",
               err.msg);
  gcb_findings_sort(&findings);
  struct gcb_report rep = {
      .docs = &doc, .ndocs = 1, .findings = &findings, .thresholds = &th};
  struct gcb_diagnosis d = {0};
  struct gcb_matrix m = {0};
  cr_assert_eq(gcb_diagnose(&doc, 1, &findings, &th, &d, &err), GCB_OK,
               "%s", err.msg);
  cr_assert_eq(gcb_matrix_build(&rep, &d, &m, &err), GCB_OK, "%s", err.msg);
  size_t figures = 0;
  for (size_t r = 0; r < m.n; r++)
    for (size_t c = 0; c < GCB_MATRIX_COLS; c++)
      if (m.rows[r].cell[c].figure[0] != '\0' &&
          strstr(m.rows[r].cell[c].figure, "GB/s") != NULL) {
        figures++;
        cr_expect_eq(m.rows[r].cell[c].time_s, 0, "row %zu col %zu: %g s", r,
                     c, m.rows[r].cell[c].time_s);
      }
  cr_expect_gt(figures, 0, "the file's GPUs have measured cells");
  gcb_matrix_free(&m);
  gcb_diagnosis_free(&d);
  gcb_findings_free(&findings);
  fx_docs_free(&doc, 1);
  gcb_results_free(res);
}
