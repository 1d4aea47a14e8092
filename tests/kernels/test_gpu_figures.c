/*
 * Where the GPU figures of issue 19 reach the reader, without a GPU:
 * - a case too short for the telemetry sampler is marked in the results
 *   document (per_rank.telemetry.too_short) and read back;
 * - the per-GPU table of the report gives each GPU's best shape of a GEMM
 *   sweep beside the figure of the largest (mamf-finder's best outcome:
 *   the highest median over the shapes, with its shape), and its
 *   telemetry, counting the cases too short to sample;
 * - the live table ends a gemm shape sweep with the best median and the
 *   best max (fastest iteration) per element type, each with its shape.
 */
#include "tests/reports/results_test.h"

#include "bench/run/sink.h"
#include "reports/document/model.h"
#include "reports/document/view.h"
#include "reports/render/render.h"

/* ---- the document ---------------------------------------------------------
 */

Test(gpu_figures, a_case_too_short_to_sample_is_marked_in_the_document) {
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  set_header(r);
  build_record();
  ranks[0].telemetry = (struct gcb_telemetry){.available = true,
                                              .samples = 2,
                                              .sm_clock_mhz_min = 1980,
                                              .sm_clock_mhz_mean = 1980,
                                              .sm_clock_mhz_max = 1980,
                                              .mem_clock_mhz_mean = NAN,
                                              .power_w_mean = NAN,
                                              .power_w_max = NAN,
                                              .temp_c_max = NAN,
                                              .too_short = true};
  cr_assert_eq(gcb_results_add_record(r, &rec, &err), GCB_OK, "%s", err.msg);
  char *text = json_dumps(gcb_results_json(r), JSON_COMPACT);
  cr_assert_not_null(text);
  struct gcb_results *back = NULL;
  cr_assert_eq(gcb_results_parse(text, strlen(text), "short.json", &back, &err),
               GCB_OK, "the schema accepts it: %s", err.msg);
  free(text);
  const struct gcb_ranks *pr = gcb_results_ranks(back, 0);
  cr_assert_not_null(pr);
  const double *col = pr->num[GCB_RC_TELEM_TOO_SHORT];
  cr_assert_not_null(col, "per_rank.telemetry.too_short is written");
  cr_expect_eq(col[0], 1, "rank 0: too short");
  cr_expect(isnan(col[1]), "rank 1: no telemetry");
  gcb_results_free(r);
  gcb_results_free(back);
}

Test(gpu_figures, documents_without_too_short_still_read) {
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(fx_results_read(DATA("report-gpu8.json"), &r, &err), GCB_OK,
               "%s", err.msg);
  gcb_results_free(r);
}

/* ---- the report's per-GPU table -------------------------------------------
 */

static json_t *fixture_cases(struct gcb_results **r) {
  struct gcb_err err = {0};
  cr_assert_eq(fx_results_read(DATA("report-gpu8.json"), r, &err), GCB_OK, "%s",
               err.msg);
  /* the per-rank columns in the tree, which the tests edit */
  cr_assert_eq(gcb_results_plain(*r, &err), GCB_OK);
  return json_object_get(gcb_results_json(*r), "cases");
}

/* The fixture's bf16 8192^3 case. */
static json_t *bf16_case(json_t *cases) {
  json_t *c;
  size_t i;
  json_array_foreach(cases, i, c) {
    if (strcmp(gcb_view_str(c, "bench"), "gemm") == 0 &&
        strcmp(gcb_view_str(gcb_view_obj(c, "params"), "dtype"), "bf16") == 0)
      return c;
  }
  cr_assert_fail("the fixture has a bf16 GEMM");
  return NULL;
}

static const struct gcb_rtable *gpus_table(json_t *root,
                                           struct gcb_rtables *ts) {
  static struct gcb_thresholds t;
  static struct gcb_findings none;
  static struct gcb_doc d;
  gcb_thresholds_default(&t);
  struct gcb_err err = {0};
  struct gcb_model *model = NULL;
  cr_assert_eq(gcb_model_from_json(root, "gpu8.json", &model, &err), GCB_OK,
               "%s", err.msg);
  d = (struct gcb_doc){.name = "gpu8.json", .root = root, .model = model};
  struct gcb_report rep = {
      .docs = &d, .ndocs = 1, .findings = &none, .thresholds = &t};
  cr_assert_eq(gcb_report_tables(&rep, ts, &err), GCB_OK, "%s", err.msg);
  gcb_model_free(model); /* the tables hold copies of what they show */
  for (size_t i = 0; i < ts->n; i++)
    if (strcmp(ts->items[i].id, "gpus") == 0)
      return &ts->items[i];
  cr_assert_fail("no per-GPU table");
  return NULL;
}

static long column(const struct gcb_rtable *t, const char *head) {
  for (size_t k = 0; k < t->ncols; k++)
    if (strcmp(t->cells[k], head) == 0)
      return (long)k;
  return -1;
}

/* The row of GPU `gpu` (the GPU column holds its index). */
static const char *cell(const struct gcb_rtable *t, int gpu, long col) {
  long g = column(t, "GPU");
  char want[16];
  snprintf(want, sizeof want, "%d", gpu);
  for (size_t r = 1; r <= t->nrows; r++)
    if (strcmp(t->cells[r * t->ncols + (size_t)g], want) == 0)
      return t->cells[r * t->ncols + (size_t)col];
  return NULL;
}

Test(gpu_figures, the_per_gpu_table_gives_the_best_shape_of_a_sweep) {
  struct gcb_results *r = NULL;
  json_t *cases = fixture_cases(&r);
  struct gcb_rtables ts = {0};
  const struct gcb_rtable *t = gpus_table(gcb_results_json(r), &ts);
  cr_expect_eq(column(t, "GEMM bf16 best shape (TFLOP/s)"), -1,
               "one shape: no sweep, no best-shape column");
  gcb_rtables_free(&ts);

  /* A second bf16 shape on which every rank is 10% faster, but which is
   * smaller, so the plain column keeps showing 8192^3. */
  json_t *c = json_deep_copy(bf16_case(cases));
  json_t *params = json_object_get(c, "params");
  json_object_set_new(params, "m", json_integer(4096));
  json_object_set_new(json_object_get(bf16_case(cases), "params"), "shapes",
                      json_integer(2));
  json_object_set_new(params, "shapes", json_integer(2));
  json_object_set_new(c, "work_per_op", json_real(1099511627776.0 / 2));
  json_t *med = json_object_get(
      json_object_get(json_object_get(c, "per_rank"), "figure"), "median");
  size_t i;
  json_t *v;
  json_array_foreach(med, i, v) {
    json_array_set_new(med, i, json_real(1.1 * json_number_value(v)));
  }
  double rank0 = json_number_value(json_array_get(med, 0));
  json_array_append_new(cases, c);

  t = gpus_table(gcb_results_json(r), &ts);
  long best = column(t, "GEMM bf16 best shape (TFLOP/s)");
  long plain = column(t, "GEMM bf16 (TFLOP/s)");
  cr_assert_geq(best, 0, "a sweep gets its best-shape column");
  cr_expect_eq(best, plain + 1, "beside the type's column");
  char want[64], num[32];
  gcb_view_fmt(rank0 / 1e3, num, sizeof num);
  snprintf(want, sizeof want, "%s @ 4096x8192x8192", num);
  /* GPU 0 is rank 0's in the fixture */
  const char *got = cell(t, 0, best);
  cr_assert_not_null(got);
  cr_expect_str_eq(got, want);
  gcb_rtables_free(&ts);
  gcb_results_free(r);
}

Test(gpu_figures, the_per_gpu_table_shows_telemetry_and_too_short_cases) {
  struct gcb_results *r = NULL;
  json_t *cases = fixture_cases(&r);
  struct gcb_rtables ts = {0};
  const struct gcb_rtable *t = gpus_table(gcb_results_json(r), &ts);
  cr_expect_eq(column(t, "telemetry (NVML)"), -1,
               "no telemetry in the document: no column");
  gcb_rtables_free(&ts);

  /* Telemetry on the bf16 case: rank 0 sampled properly, rank 1 too short;
   * the other ranks' GPUs said nothing. */
  json_t *c = bf16_case(cases);
  size_t n =
      json_array_size(json_object_get(json_object_get(c, "per_rank"), "rank"));
  json_t *tel = json_object();
  const char *cols[] = {"samples", "sm_clock_mhz_min", "power_w_max",
                        "too_short"};
  for (size_t k = 0; k < 4; k++) {
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
      json_t *x = json_null();
      if (i < 2 && k == 0)
        x = json_integer(i == 0 ? 120 : 2);
      else if (i < 2 && k == 1)
        x = json_real(i == 0 ? 1755 : 1980);
      else if (i < 2 && k == 2)
        x = json_real(i == 0 ? 690 : 420);
      else if (i < 2)
        x = json_boolean(i == 1);
      json_array_append_new(a, x);
    }
    json_object_set_new(tel, cols[k], a);
  }
  json_object_set_new(json_object_get(c, "per_rank"), "telemetry", tel);

  t = gpus_table(gcb_results_json(r), &ts);
  long col = column(t, "telemetry (NVML)");
  cr_assert_geq(col, 0);
  cr_expect_eq(col, column(t, "findings") - 1, "before the findings");
  cr_expect_str_eq(cell(t, 0, col), "SM clock 1755 MHz lowest, power 690 W "
                                    "highest");
  cr_expect_str_eq(cell(t, 1, col),
                   "SM clock 1980 MHz lowest, power 420 W highest; 1 of 1 "
                   "cases too short to sample");
  cr_expect_str_eq(cell(t, 2, col), "-", "a GPU without telemetry");
  gcb_rtables_free(&ts);
  gcb_results_free(r);
}

/* ---- the live table -------------------------------------------------------
 */

static void gemm_record(struct gcb_record *rc, struct gcb_rank_result *rr,
                        const char *dtype, int m, double median_s,
                        double min_s) {
  *rr = (struct gcb_rank_result){.rank = 0,
                                 .time_s = median_s,
                                 .seconds = {.n = 3,
                                             .min = min_s,
                                             .median = median_s,
                                             .mean = median_s,
                                             .max = median_s}};
  *rc = (struct gcb_record){
      .bench = "gemm",
      .backend = "host",
      .work_per_op = 2.0 * m * 64 * 64,
      .figure = {.unit = "GFLOP/s", .scale = 1e9, .counted = "2*m*n*k flops"},
      .iterations = 3,
      .nranks = 1,
      .ranks = rr};
  snprintf(rc->label, sizeof rc->label, "%s %dx64x64", dtype, m);
  gcb_record_param_str(rc, "dtype", dtype);
  gcb_record_param_int(rc, "m", m);
  gcb_record_param_int(rc, "n", 64);
  gcb_record_param_int(rc, "k", 64);
  gcb_record_param_int(rc, "shapes", 2);
}

Test(gpu_figures, the_live_table_ends_a_sweep_with_its_best_shapes) {
  char *text = NULL;
  size_t len = 0;
  struct gcb_table t = {0};
  t.out = open_memstream(&text, &len);
  cr_assert_not_null(t.out);
  struct gcb_sink s = gcb_table_sink(&t);
  struct gcb_err err = {0};
  struct gcb_record rc;
  struct gcb_rank_result rr;
  /* 64x64x64: the best median (1 us); 128x64x64: the best max (0.5 us) */
  gemm_record(&rc, &rr, "fp32", 64, 1e-6, 0.9e-6);
  cr_assert_eq(s.record(s.self, &rc, &err), GCB_OK);
  gemm_record(&rc, &rr, "fp32", 128, 4e-6, 0.5e-6);
  cr_assert_eq(s.record(s.self, &rc, &err), GCB_OK);
  cr_assert_eq(s.finish(s.self, &err), GCB_OK);
  fclose(t.out);
  cr_expect_not_null(
      strstr(text, "# best shape of 2 measured (of 2), fp32: median 524.29 "
                   "GFLOP/s at 64x64x64; max 2097.15 GFLOP/s at 128x64x64\n"),
      "%s", text);
  free(text);
}
