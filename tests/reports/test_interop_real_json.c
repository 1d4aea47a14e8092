/*
 * The JSON readers on real JSON outputs (tests/data/interop/README.md
 * names each source): nvbandwidth's -j output as NVIDIA's DCGM keeps it
 * for its own nvbandwidth plugin's tests. The test reads the file with
 * jansson on its own and asserts that every cell and SUM of every testcase
 * that passed is in the converted document, equal to the printed value,
 * and that every waived testcase is a skipped case: nothing invented,
 * nothing dropped. (No real nccl-tests -J file was found; see the README.)
 */
#include "reports/document/ranks.h"
#include "reports/document/view.h"
#include "reports/interop/interop.h"
#include "tests/reports/report_fixture.h"

#define DATA(name) GCB_TEST_DATA "/interop/" name

static const json_t *cases_of(struct gcb_results *r) {
  return json_object_get(gcb_results_json(r), "cases");
}

static const char *param(const json_t *c, const char *k) {
  return gcb_view_str(gcb_view_obj(c, "params"), k);
}

static double median(const json_t *c) {
  return gcb_view_num(gcb_view_obj(c, "summary"), "median");
}

/* Whether cell (row, col) = v of testcase name is in the document: a pcie
 * case's figure for GPU col, a p2p pair, or an imported figure. */
static bool has_cell(struct gcb_results *r, const char *name, size_t row,
                     size_t col, double v) {
  const json_t *c;
  size_t i;
  json_array_foreach(cases_of(r), i, c) {
    const char *bench = gcb_view_str(c, "bench");
    const json_t *p = gcb_view_obj(c, "params");
    if (strcmp(param(c, "testcase"), name) != 0 &&
        strcmp(param(c, "name"), name) != 0)
      continue;
    if (strcmp(bench, "pcie") == 0 && row == 0) {
      const struct gcb_ranks *pr = gcb_results_ranks(r, i);
      for (size_t k = 0; pr != NULL && k < pr->n; k++)
        if (gcb_ranks_int(pr, GCB_RC_RANK, k, -1) == (long long)col &&
            gcb_ranks_num(pr, GCB_RC_FIG_MEDIAN, k) == v)
          return true;
    } else if ((strcmp(bench, "p2p") == 0 &&
                gcb_view_num(p, "src") == (double)row &&
                gcb_view_num(p, "dst") == (double)col) ||
               (strcmp(bench, "imported") == 0 &&
                gcb_view_num(p, "row") == (double)row &&
                gcb_view_num(p, "col") == (double)col)) {
      if (median(c) == v)
        return true;
    }
  }
  return false;
}

static bool has_sum(struct gcb_results *r, const char *name, double v) {
  const json_t *c;
  size_t i;
  json_array_foreach(cases_of(r), i, c) {
    if (strcmp(gcb_view_str(c, "bench"), "imported") == 0 &&
        strcmp(param(c, "name"), "sum") == 0 &&
        strcmp(param(c, "testcase"), name) == 0 && median(c) == v)
      return true;
  }
  return false;
}

static bool skipped(struct gcb_results *r, const char *name) {
  const json_t *s;
  size_t i;
  json_array_foreach(json_object_get(gcb_results_json(r), "skipped"), i, s) {
    if (strstr(gcb_view_str(s, "label"), name) != NULL)
      return true;
  }
  return false;
}

/* Every figure of one testcase; returns the cells checked. */
static size_t check_testcase(struct gcb_results *r, const json_t *tc) {
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
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  enum gcb_format f;
  cr_assert_eq(fx_interop_read(path, NULL, 0, &r, &f, &err), GCB_OK, "%s",
               err.msg);
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
  const json_t *root = gcb_results_json(r);
  cr_expect_str_eq(gcb_view_str(gcb_view_obj(root, "tool"), "version"), "v0.5");
  cr_expect_eq(gcb_view_int(gcb_view_obj(root, "run"), "ranks", 0), 1);
  const json_t *c;
  json_array_foreach(cases_of(r), i, c) {
    cr_expect(!json_is_true(
                  json_object_get(gcb_view_obj(c, "validation"), "checked")),
              "nvbandwidth validates nothing: %s", gcb_view_str(c, "label"));
  }
  json_decref(own);
  gcb_results_free(r);
}
