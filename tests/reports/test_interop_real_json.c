/*
 * The JSON readers on real JSON outputs (tests/data/interop/README.md
 * names each source): nvbandwidth's -j output as NVIDIA's DCGM keeps it
 * for its own nvbandwidth plugin's tests. The test reads the file with
 * jansson on its own and asserts that every cell and SUM of every testcase
 * that passed is in the converted model, equal to the printed value,
 * and that every waived testcase is a skipped case: nothing invented,
 * nothing dropped. (No real nccl-tests -J file was found; see the README.)
 */
#include "reports/document/model.h"
#include "reports/document/ranks.h"
#include "reports/document/view.h"
#include "reports/interop/interop.h"
#include "tests/reports/report_fixture.h"

#define DATA(name) GCB_TEST_DATA "/interop/" name

static const char *param(const struct gcb_model_case *c, const char *k) {
  return gcb_model_param_str(c, k);
}

/* Whether cell (row, col) = v of testcase name is in the document: a pcie
 * case's figure for GPU col, a p2p pair, or an imported figure. */
static bool has_cell(const struct gcb_model *m, const char *name, size_t row,
                     size_t col, double v) {
  for (size_t i = 0; i < m->ncases; i++) {
    const struct gcb_model_case *c = &m->cases[i];
    if (strcmp(param(c, "testcase"), name) != 0 &&
        strcmp(param(c, "name"), name) != 0)
      continue;
    if (strcmp(c->bench, "pcie") == 0 && row == 0) {
      for (size_t k = 0; k < c->ranks.n; k++)
        if (gcb_model_col_rank(c, k, -1) == (long long)col &&
            gcb_model_col(c, GCB_RC_FIG_MEDIAN, k) == v)
          return true;
    } else if ((strcmp(c->bench, "p2p") == 0 &&
                gcb_model_param_num(c, "src") == (double)row &&
                gcb_model_param_num(c, "dst") == (double)col) ||
               (strcmp(c->bench, "imported") == 0 &&
                gcb_model_param_num(c, "row") == (double)row &&
                gcb_model_param_num(c, "col") == (double)col)) {
      if (c->summary.median == v)
        return true;
    }
  }
  return false;
}

static bool has_sum(const struct gcb_model *m, const char *name, double v) {
  for (size_t i = 0; i < m->ncases; i++) {
    const struct gcb_model_case *c = &m->cases[i];
    if (strcmp(c->bench, "imported") == 0 &&
        strcmp(param(c, "name"), "sum") == 0 &&
        strcmp(param(c, "testcase"), name) == 0 && c->summary.median == v)
      return true;
  }
  return false;
}

static bool skipped(const struct gcb_model *m, const char *name) {
  for (size_t i = 0; i < m->nskips; i++)
    if (strstr(m->skips[i].label, name) != NULL)
      return true;
  return false;
}

/* Every figure of one testcase; returns the cells checked. */
static size_t check_testcase(const struct gcb_model *r, const json_t *tc) {
  const char *name = gcb_view_str(tc, "name");
  const char *status = gcb_view_str(tc, "status");
  if (strcmp(status, "Passed") != 0) {
    cr_expect(skipped(r, name), "%s (%s) is not among the skipped", name,
              status);
    return 0;
  }
  size_t cells = 0, row, col;
  const json_t *cols, *cell;
  json_array_foreach(json_object_get(tc, "bandwidth_matrix"), row, cols) {
    json_array_foreach(cols, col, cell) {
      const char *text = json_string_value(cell);
      if (text == NULL || strcmp(text, "N/A") == 0)
        continue;
      double v = strtod(text, NULL);
      cr_expect(has_cell(r, name, row, col, v), "%s [%zu][%zu] = %s", name, row,
                col, text);
      cells++;
    }
  }
  double sum = json_number_value(json_object_get(tc, "sum"));
  cr_expect(has_sum(r, name, sum), "%s: SUM %.17g", name, sum);
  return cells;
}

Test(interop_real_json, dcgm_nvbandwidth_v0_5_keeps_every_cell_and_sum) {
  const char *path = DATA("dcgm-nvbandwidth-v0.5-1gpu.json");
  struct gcb_results *none = NULL;
  struct gcb_model *r = NULL;
  struct gcb_err err = {0};
  enum gcb_format f;
  cr_assert_eq(fx_interop_read(path, NULL, 0, &none, &r, &f, &err), GCB_OK,
               "%s", err.msg);
  cr_expect_null(none, "a converted file is its model alone");
  cr_expect_eq(f, GCB_FORMAT_NVBANDWIDTH, "read as %s", gcb_format_name(f));
  json_error_t je;
  json_t *own = json_load_file(path, 0, &je);
  cr_assert_not_null(own, "%s", je.text);
  const json_t *nvbw = json_object_get(own, "nvbandwidth");
  const json_t *tc;
  size_t i, cells = 0, passed = 0;
  json_array_foreach(json_object_get(nvbw, "testcases"), i, tc) {
    cells += check_testcase(r, tc);
    passed += strcmp(gcb_view_str(tc, "status"), "Passed") == 0;
  }
  cr_expect_eq(i, 32, "the file's 32 testcases");
  cr_expect_eq(passed, 15);
  cr_expect_eq(cells, 15, "one GPU: one cell per testcase");
  cr_expect_str_eq(r->run.version, "v0.5");
  cr_expect_eq(r->run.ranks, 1);
  for (i = 0; i < r->ncases; i++)
    cr_expect(!r->cases[i].validation.checked,
              "nvbandwidth validates nothing: %s", r->cases[i].label);
  json_decref(own);
  gcb_model_free(r);
}
