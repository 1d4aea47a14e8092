/*
 * The built-in expectation files (reports/criteria/skus/, compiled in by
 * cmake/embed_skus.cmake): the SKUs the issue asks for are all there,
 * every figure names a source the file describes with a title and an
 * address, fractions are fractions, and no model is claimed twice. And
 * gcb_expect_builtin picks a file by exact model name only.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/kinds.h"
#include "reports/criteria/expect.h"
#include "tests/reports/report_fixture.h"

static json_t *load(const struct gcb__sku_file *f) {
  json_error_t je;
  json_t *sku = json_loadb(f->text, f->len, JSON_REJECT_DUPLICATES, &je);
  cr_assert_not_null(sku, "%s: %s", f->name, je.text);
  return sku;
}

/* A figure's source: a key of the file's "sources" with a title and url. */
static void sourced(const char *file, const json_t *sku, const json_t *fig,
                    const char *what) {
  const char *id = json_string_value(json_object_get(fig, "source"));
  cr_assert_not_null(id, "%s: %s has no source", file, what);
  const json_t *src = json_object_get(json_object_get(sku, "sources"), id);
  cr_assert_not_null(src, "%s: %s names source '%s', not in sources", file,
                     what, id);
  cr_expect(json_string_length(json_object_get(src, "title")) > 10, "%s: %s",
            file, id);
  if (strcmp(id, "gcbench") != 0)
    cr_expect(strncmp(json_string_value(json_object_get(src, "url")),
                      "https://", 8) == 0,
              "%s: %s has no address", file, id);
}

Test(skus, the_asked_for_skus_are_compiled_in) {
  const char *want[] = {"A100 SXM 80GB", "A100 PCIe 80GB", "H100 SXM",
                        "H100 PCIe",     "H200",           "B200",
                        "L40S",          "MI300X"};
  for (size_t w = 0; w < sizeof want / sizeof *want; w++) {
    bool found = false;
    for (const struct gcb__sku_file *f = gcb__skus; f->name && !found; f++) {
      json_t *sku = load(f);
      found =
          strcmp(json_string_value(json_object_get(sku, "sku")), want[w]) == 0;
      json_decref(sku);
    }
    cr_expect(found, "no built-in expectations for %s", want[w]);
  }
}

Test(skus, every_figure_names_its_source) {
  for (const struct gcb__sku_file *f = gcb__skus; f->name; f++) {
    json_t *sku = load(f), *g;
    size_t i;
    cr_expect_str_eq(json_string_value(json_object_get(sku, "schema")),
                     "gcbench.sku/1", "%s", f->name);
    json_array_foreach(json_object_get(sku, "gemm"), i, g) {
      cr_expect_gt(json_number_value(json_object_get(g, "peak_tflops")), 0);
      sourced(f->name, sku, g, "a GEMM peak");
    }
    const char *parts[] = {"membw", "pcie", "nvlink", "fractions"};
    for (size_t p = 0; p < 4; p++) {
      const json_t *part = json_object_get(sku, parts[p]);
      if (part != NULL)
        sourced(f->name, sku, part, parts[p]);
    }
    const char *fr[] = {"gemm", "membw", "pcie", "nvlink"};
    for (size_t k = 0; k < 4; k++) {
      double x = json_number_value(
          json_object_get(json_object_get(sku, "fractions"), fr[k]));
      cr_expect(x > 0.3 && x < 1, "%s: fraction %s %g", f->name, fr[k], x);
    }
    json_decref(sku);
  }
}

Test(skus, no_model_is_claimed_twice) {
  for (const struct gcb__sku_file *f = gcb__skus; f->name; f++)
    for (const struct gcb__sku_file *o = f + 1; o->name; o++) {
      json_t *a = load(f), *b = load(o), *m, *n;
      size_t i, j;
      json_array_foreach(json_object_get(a, "models"), i, m) {
        json_array_foreach(json_object_get(b, "models"), j, n) {
          cr_expect(!json_equal(m, n), "%s in %s and %s", json_string_value(m),
                    f->name, o->name);
        }
      }
      json_decref(a);
      json_decref(b);
    }
}

/* A document of one rank on `backend` whose device is `model`. */
static json_t *doc_of(const char *backend, const char *model) {
  return json_pack("{s:{s:s}, s:[{s:i, s:{s:s}}], s:[]}", "run", "backend",
                   backend, "ranks", "rank", 0, "device", "name", model,
                   "cases");
}

/* The built-in expectations of a one-rank run on `backend` with a device
 * called `model`, and the line saying which (in line); NULL where none
 * apply. */
static struct gcb_criteria *builtin_of(const char *backend, const char *model,
                                       char *line, size_t size) {
  json_t *root = doc_of(backend, model);
  struct gcb_doc d = fx_doc_of("doc.json", root);
  struct gcb_criteria *cr = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_expect_builtin(&d, 1, &cr, line, size, &err), GCB_OK, "%s",
               err.msg);
  fx_doc_free(&d);
  json_decref(root);
  return cr;
}

/* A run that names no GPU model says "(host backend)" only where it ran
 * on the host backend: an imported OSU or nccl-tests log of GPUs that
 * names none is "cuda" (it said "host backend" for those too). */
Test(skus, no_model_says_host_backend_only_for_the_host_backend) {
  static const struct {
    const char *backend, *line;
  } rows[] = {
      {"host", "no built-in expectation applies: the run names no GPU model "
               "(host backend)"},
      {"cuda", "no built-in expectation applies: the run names no GPU model"},
  };
  for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
    char line[256];
    struct gcb_criteria *cr =
        builtin_of(rows[r].backend, "", line, sizeof line);
    cr_expect_str_eq(line, rows[r].line);
    cr_expect_null(cr);
    gcb_criteria_free(cr);
  }
}

Test(skus, a_file_is_chosen_by_the_exact_model_name) {
  static const struct {
    const char *backend, *model, *line;
    bool judged;
  } rows[] = {
      {"cuda", "NVIDIA H200", "H200 expectations, built in (NVIDIA H200", true},
      {"cuda", "NVIDIA H100 80GB HBM3",
       "H100 SXM expectations, built in (NVIDIA H100 80GB HBM3", true},
      {"cuda", "NVIDIA H100 PCIe", "H100 PCIe expectations, built in", true},
      {"cuda", "AMD Instinct MI300X", "MI300X expectations, built in", true},
      {"cuda", "NVIDIA H200 NVL", "no built-in expectation for NVIDIA H200 NVL",
       false},
      {"cuda", "NVIDIA A100-SXM4-40GB",
       "no built-in expectation for NVIDIA A100-SXM4-40GB", false},
      {"host", "Intel(R) Xeon(R) Processor",
       "no built-in expectation applies: the run names no GPU model", false},
  };
  for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
    char line[256];
    struct gcb_criteria *cr =
        builtin_of(rows[r].backend, rows[r].model, line, sizeof line);
    cr_expect(strncmp(line, rows[r].line, strlen(rows[r].line)) == 0, "%s",
              line);
    cr_expect_eq(cr != NULL, rows[r].judged, "%s", rows[r].model);
    if (cr != NULL) {
      cr_expect(cr->builtin);
      cr_expect(strncmp(line, cr->name, strlen(cr->name)) == 0, "%s", line);
      /* Nothing measured: every check is the n/a kind (matches nothing). */
      cr_expect_gt(cr->nchecks, 5);
    }
    gcb_criteria_free(cr);
  }
}

Test(skus, two_models_in_one_run_are_not_judged_by_either) {
  json_t *a = doc_of("cuda", "NVIDIA H200"), *b = doc_of("cuda", "NVIDIA B200");
  struct gcb_doc d[2] = {fx_doc_of("a", a), fx_doc_of("b", b)};
  struct gcb_criteria *cr = NULL;
  struct gcb_err err = {0};
  char line[256];
  cr_assert_eq(gcb_expect_builtin(d, 2, &cr, line, sizeof line, &err), GCB_OK);
  cr_expect_null(cr);
  cr_expect(strstr(line, "mixes GPU models (NVIDIA H200, NVIDIA B200)"), "%s",
            line);
  fx_doc_free(&d[0]);
  fx_doc_free(&d[1]);
  json_decref(a);
  json_decref(b);
}

/* The NVLink check of an H200 run whose p2p cases carry `fig` at `bytes`
 * as gcbench's p2p writes them (a "bytes" param, no "size"); `key` the
 * size param's name. Returns the NVLink check's outcome. */
static enum gcb_check_outcome nvlink_outcome(const char *key, double bytes,
                                             double fig, char *name,
                                             size_t size) {
  json_t *root = doc_of("cuda", "NVIDIA H200");
  char params[128];
  snprintf(params, sizeof params,
           "{\"mode\": \"ce\", \"src\": 0, \"dst\": 1, \"path\": \"NV18\", "
           "\"%s\": %.0f}",
           key, bytes);
  json_array_append_new(
      json_object_get(root, "cases"),
      fx_case("p2p", "ce uni 0->1", params, "GB/s", &fig, 1, 0.01, NULL));
  struct gcb_doc d = fx_doc_of("doc.json", root);
  struct gcb_criteria *cr = NULL;
  struct gcb_err err = {0};
  char line[256];
  cr_assert_eq(gcb_expect_builtin(&d, 1, &cr, line, sizeof line, &err), GCB_OK,
               "%s", err.msg);
  cr_assert_not_null(cr, "%s", line);
  size_t k = 0;
  while (k < cr->nchecks && strncmp(cr->checks[k].name, "NVLink", 6) != 0)
    k++;
  cr_assert_lt(k, cr->nchecks, "no NVLink check");
  snprintf(name, size, "%s", cr->checks[k].name);
  struct gcb_check_result *res = calloc(cr->nchecks, sizeof *res);
  struct gcb_findings f = {0};
  cr_assert_eq(gcb_criteria_evaluate(cr, &d, 1, res, &f, &err), GCB_OK);
  enum gcb_check_outcome o = gcb_check_outcome(cr, &res[k]);
  if (o == GCB_CHECK_NA) {
    bool said = false;
    for (size_t i = 0; i < f.n; i++)
      said |= f.items[i].check == (int)k &&
              f.items[i].kind == GCB_KIND(CRITERION_NA) &&
              strstr(f.items[i].explanation, "did not measure") != NULL;
    cr_expect(said, "the n/a is said, not silent");
  }
  free(res);
  gcb_findings_free(&f);
  gcb_criteria_free(cr);
  fx_doc_free(&d);
  json_decref(root);
  return o;
}

/* Issue 26: gcbench's p2p writes the copy's size as "bytes", converted
 * and older documents as "size": the NVLink expectation judges either,
 * and what was not measured at a size that counts is n/a, said so. */
Test(skus, the_nvlink_check_reads_a_p2p_size_as_bytes_or_size) {
  static const struct {
    const char *key;
    double bytes, fig;
    enum gcb_check_outcome want;
    const char *name;
  } rows[] = {
      {"bytes", 268435456, 400, GCB_CHECK_PASS, "bytes 268435456"},
      {"bytes", 268435456, 100, GCB_CHECK_FAIL, "bytes 268435456"},
      {"size", 268435456, 100, GCB_CHECK_FAIL, "size 268435456"},
      {"bytes", 1048576, 400, GCB_CHECK_NA, "not measured"},
  };
  for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
    char name[128];
    enum gcb_check_outcome o = nvlink_outcome(rows[r].key, rows[r].bytes,
                                              rows[r].fig, name, sizeof name);
    cr_expect_eq(o, rows[r].want, "row %zu: %s", r, name);
    cr_expect_not_null(strstr(name, rows[r].name), "row %zu: %s", r, name);
  }
}

/* Each embedded file reads into the typed SKU the expectations are built
 * from, every figure there; a file that is not gcbench.sku/1 is refused,
 * named. */
Test(skus, every_file_reads_typed) {
  for (const struct gcb__sku_file *f = gcb__skus; f->name; f++) {
    struct gcb_sku s;
    struct gcb_err err = {0};
    cr_assert_eq(gcb_sku_parse(f, &s, &err), GCB_OK, "%s", err.msg);
    json_t *sku = load(f);
    cr_expect_str_eq(s.sku, json_string_value(json_object_get(sku, "sku")));
    cr_expect_eq(s.nmodels, json_array_size(json_object_get(sku, "models")),
                 "%s", f->name);
    cr_expect_eq(s.ngemm, json_array_size(json_object_get(sku, "gemm")), "%s",
                 f->name);
    for (size_t g = 0; g < s.ngemm; g++)
      cr_expect(s.gemm[g].dtype[0] != '\0' && s.gemm[g].peak_tflops > 0, "%s",
                f->name);
    cr_expect_eq(s.has_membw, json_object_get(sku, "membw") != NULL);
    cr_expect_eq(s.has_pcie, json_object_get(sku, "pcie") != NULL);
    cr_expect_eq(s.has_nvlink, json_object_get(sku, "nvlink") != NULL);
    cr_expect(!s.has_membw || s.membw_peak_gbs > 0, "%s", f->name);
    cr_expect(!s.has_pcie || (s.pcie_gen >= 3 && s.pcie_width > 0), "%s",
              f->name);
    cr_expect(!s.has_nvlink || (s.nvlink_links > 0 && s.nvlink_total_gbs > 0),
              "%s", f->name);
    const double fr[] = {s.frac_gemm, s.frac_membw, s.frac_pcie, s.frac_nvlink};
    for (size_t k = 0; k < 4; k++)
      cr_expect(fr[k] > 0.3 && fr[k] < 1, "%s: fraction %zu", f->name, k);
    json_decref(sku);
  }
  static const char bad[] = "{\"schema\": \"gcbench.criteria/1\"}";
  const struct gcb__sku_file f = {"bad.json", bad, sizeof bad - 1};
  struct gcb_sku s;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_sku_parse(&f, &s, &err), GCB_EINTERNAL);
  cr_expect(strstr(err.msg, "bad.json is not gcbench.sku/1") != NULL, "%s",
            err.msg);
}
