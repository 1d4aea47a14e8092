/*
 * metrics.prom from documents built to break it (issue 20 item 7): cases
 * with the same parameters (gemm --shapes 64,64), parameter keys that
 * collide once sanitised or are empty or reserved, benches and units whose
 * family names collide with gcbench's own or with each other, label values
 * holding CR, CRLF, backslashes, quotes, bytes that are not UTF-8, more
 * than 64 families. Each test asserts the rule it is about, then writes the
 * file to GCB_OM_OUT, where tests/outputs/check-metrics has the real
 * consumers (promtool, prometheus_client, Prometheus' own OpenMetrics
 * parser) read every one (ctest fixture "openmetrics_files").
 */
#include <sys/stat.h>

#include "reports/render/render.h"
#include "tests/reports/report_fixture.h"

static const double figs[] = {100, 101, 99, 100};

/* metrics.prom for doc, also written to GCB_OM_OUT/<name>.prom. */
static char *render_doc(json_t *doc, const char *name) {
  struct gcb_doc d = fx_doc_of(name, doc); /* the rules read it */
  struct gcb_thresholds th;
  struct gcb_findings f = {0};
  struct gcb_err err = {0};
  gcb_thresholds_default(&th);
  cr_assert_eq(gcb_analyze(&d, 1, &th, &f, &err), GCB_OK, "%s", err.msg);
  struct gcb_report rep = {
      .docs = &d, .ndocs = 1, .findings = &f, .thresholds = &th};
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  cr_assert_eq(gcb_render_openmetrics.render(m, &rep, &err), GCB_OK, "%s",
               err.msg);
  fclose(m);
  gcb_findings_free(&f);
  fx_doc_free(&d);
  char path[512];
  mkdir(GCB_OM_OUT, 0755);
  snprintf(path, sizeof path, "%s/%s.prom", GCB_OM_OUT, name);
  FILE *out = fopen(path, "wb");
  cr_assert_not_null(out, "%s", path);
  fwrite(buf, 1, len, out);
  cr_assert_eq(fclose(out), 0);
  if (getenv("GCB_OM_KEEP_DOCS")) { /* to replay with another gcbench */
    snprintf(path, sizeof path, "%s/%s.json", GCB_OM_OUT, name);
    json_dump_file(doc, path, JSON_INDENT(1));
  }
  return buf;
}

static size_t count(const char *text, const char *what) {
  size_t n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
    n++;
  return n;
}

static void add(json_t *doc, const char *bench, const char *params,
                const char *unit) {
  fx_add_case(doc, fx_case(bench, bench, params, unit, figs, 4, 0.01, NULL));
}

Test(openmetrics, the_same_shape_twice_is_two_series) {
  json_t *doc = fx_doc(4, 2, 8, "Test CPU");
  const char *shape = "{\"dtype\": \"fp32\", \"m\": 64, \"n\": 64, \"k\": 64}";
  add(doc, "gemm", shape, "GFLOP/s");
  add(doc, "gemm", shape, "GFLOP/s");
  /* the same parameters in another order are the same label set */
  add(doc, "gemm", "{\"k\": 64, \"n\": 64, \"m\": 64, \"dtype\": \"fp32\"}",
      "GFLOP/s");
  fx_check_valid(doc);
  char *out = render_doc(doc, "same-shape");
  cr_expect_eq(count(out, "gcbench_gemm_gflops{"), 12, "%s", out);
  /* 4 ranks' figures, the wrong values, the imbalance */
  cr_expect_eq(count(out, ",repeat=\"2\"} "), 6, "%s", out);
  cr_expect_eq(count(out, ",repeat=\"3\"} "), 6, "%s", out);
  cr_expect_not_null(
      strstr(out, "gcbench_gemm_gflops{run=\"1\",host=\"node00\",node=\"0\","
                  "rank=\"0\",gpu=\"0\",bus_id=\"0000:10:00.0\",dtype=\"fp32\","
                  "m=\"64\",n=\"64\",k=\"64\"} 100\n"),
      "the first case keeps the labels a single run gives it: %s", out);
  free(out);
  json_decref(doc);
}

Test(openmetrics, parameter_keys_become_distinct_valid_label_names) {
  json_t *doc = fx_doc(4, 2, 8, "Test CPU");
  add(doc, "gemm",
      "{\"a-b\": \"1\", \"a_b\": \"2\", \"\": \"3\", \"rank\": \"4\", "
      "\"param_rank\": \"5\", \"le\": \"6\", \"inPlace\": \"7\", "
      "\"9lives\": \"8\", \"__name__\": \"9\", \"quantile\": \"q\", "
      "\"repeat\": 2}",
      "GFLOP/s");
  fx_check_valid(doc);
  char *out = render_doc(doc, "param-keys");
  cr_expect_not_null(
      strstr(out, "bus_id=\"0000:10:00.0\",a_b=\"1\",a_b_2=\"2\",param_=\"3\","
                  "param_rank=\"4\",param_rank_2=\"5\",param_le=\"6\","
                  "inplace=\"7\",param_9lives=\"8\",param___name__=\"9\","
                  "param_quantile=\"q\",param_repeat=\"2\"} 100\n"),
      "%s", out);
  free(out);
  json_decref(doc);
}

Test(openmetrics, family_names_never_collide) {
  json_t *doc = fx_doc(4, 2, 8, "Test CPU");
  const struct {
    const char *bench, *unit, *family;
  } cases[] = {
      /* gcbench's own families keep their names */
      {"report", "failed", "gcbench_report_2_failed"},
      {"case", "wrong values", "gcbench_case_2_wrong_values"},
      /* two benches that sanitise alike; one unit spelled two ways */
      {"x-y", "GB/s", "gcbench_x_y_gbps"},
      {"x_y", "GB/s", "gcbench_x_y_2_gbps"},
      {"x_y", "gbps", "gcbench_x_y_3_gbps"},
      /* words promtool refuses: suffixes, unit abbreviations, types,
       * non-base units, camelCase */
      {"run", "info", "gcbench_run_infox"},
      {"s", "count", "gcbench_sx_countx"},
      {"gauge", "total", "gcbench_gaugex_totalx"},
      {"allReduce", "kilobytes", "gcbench_allreduce_kilobytesx"},
      {"launch", "klaunch/s", "gcbench_launch_klaunch_per_second"},
      {"", "", "gcbench_unnamed_value"},
      /* times in seconds, the base unit */
      {"lat", "us", "gcbench_lat_seconds"},
  };
  size_t n = sizeof cases / sizeof *cases;
  for (size_t i = 0; i < n; i++)
    add(doc, cases[i].bench, "{\"dtype\": \"fp32\"}", cases[i].unit);
  char *out = render_doc(doc, "family-names");
  for (size_t i = 0; i < n; i++) {
    char type[160], sample[160];
    snprintf(type, sizeof type, "# TYPE %s gauge\n", cases[i].family);
    snprintf(sample, sizeof sample, "\n%s{run=\"1\"", cases[i].family);
    cr_expect_eq(count(out, type), 1, "%s: %s", cases[i].family, out);
    cr_expect_eq(count(out, sample), 4, "%s: %s", cases[i].family, out);
  }
  cr_expect_eq(count(out, "# TYPE gcbench_report_failed gauge\n"), 1);
  cr_expect_not_null(strstr(out, "gcbench_lat_seconds{run=\"1\",host=\"node00\""
                                 ",node=\"0\",rank=\"0\",gpu=\"0\",bus_id="
                                 "\"0000:10:00.0\",dtype=\"fp32\"} 0.0001\n"),
                     "100 us is written as 0.0001 s: %s", out);
  free(out);
  json_decref(doc);
}

Test(openmetrics, label_values_are_escaped) {
  json_t *doc = fx_doc(4, 2, 8, "Test CPU");
  const char host[] = "a\rb\r\nc\nd\\e\"f\tg\x01h\xe2\x80\xa8i";
  json_object_set_new(json_array_get(json_object_get(doc, "ranks"), 0),
                      "hostname", json_string(host));
  add(doc, "gemm", "{\"dtype\": \"x\\r\\\\y\"}", "GFLOP/s");
  fx_check_valid(doc);
  /* bytes that are not UTF-8: never from the reader, but the renderer
   * does not rely on it */
  json_object_set_new(json_array_get(json_object_get(doc, "ranks"), 1),
                      "hostname", json_string_nocheck("bad\xff\xc3("));
  char *out = render_doc(doc, "label-values");
  cr_expect_not_null(strstr(out, "host=\"a\\nb\\nc\\nd\\\\e\\\"f\tg\xef\xbf\xbd"
                                 "h\xef\xbf\xbdi\""),
                     "%s", out);
  cr_expect_not_null(strstr(out, "host=\"bad\xef\xbf\xbd\xef\xbf\xbd(\""), "%s",
                     out);
  cr_expect_not_null(strstr(out, "dtype=\"x\\n\\\\y\""), "%s", out);
  cr_expect_null(strchr(out, '\r'), "no raw CR");
  free(out);
  json_decref(doc);
}

Test(openmetrics, every_family_is_written_however_many) {
  json_t *doc = fx_doc(4, 2, 8, "Test CPU");
  for (int i = 0; i < 70; i++) {
    char bench[16];
    snprintf(bench, sizeof bench, "b%02d", i);
    add(doc, bench, "{}", "GB/s");
  }
  fx_check_valid(doc);
  char *out = render_doc(doc, "many-families");
  cr_expect_not_null(strstr(out, "# TYPE gcbench_b69_gbps gauge\n"
                                 "# UNIT gcbench_b69_gbps gbps\n"),
                     "%s", out);
  /* 70 benches, the run info, the verdict, findings, wrong, imbalance */
  cr_expect_eq(count(out, "# TYPE "), 75, "%s", out);
  cr_expect_eq(count(out, "\ngcbench_b"), 70 * 4);
  free(out);
  json_decref(doc);
}

Test(openmetrics, repeated_collectives_are_two_series) {
  json_t *doc = fx_doc(4, 2, 8, "Test CPU");
  const char *params = "{\"op\": \"allreduce\", \"size\": 1024}";
  for (int i = 0; i < 2; i++) {
    json_t *c =
        fx_case("coll", "allreduce", params, "GB/s", figs, 4, 0.01, NULL);
    json_t *s = json_object_get(c, "summary");
    json_object_set_new(s, "busbw", json_real(10 + i));
    json_object_set_new(s, "algbw", json_real(5 + i));
    fx_add_case(doc, c);
  }
  char *out = render_doc(doc, "coll-repeat");
  cr_expect_not_null(
      strstr(out, "gcbench_coll_busbw_gbps{run=\"1\",backend=\"host\","
                  "op=\"allreduce\",size=\"1024\"} 10\n"
                  "gcbench_coll_busbw_gbps{run=\"1\",backend=\"host\","
                  "op=\"allreduce\",size=\"1024\",repeat=\"2\"} 11\n"),
      "%s", out);
  free(out);
  json_decref(doc);
}

Test(openmetrics, an_imported_figure_is_one_sample) {
  json_t *doc = fx_doc(4, 2, 8, "Test CPU");
  json_t *c =
      fx_case("imported", "Avg bus bandwidth",
              "{\"name\": \"avg_bus_bandwidth\", \"op\": \"allreduce\"}",
              "GB/s", figs, 4, 0.01, NULL);
  json_object_set_new(c, "per_rank", json_array()); /* no ranks */
  json_object_set_new(json_object_get(c, "summary"), "median",
                      json_real(123.5));
  fx_add_case(doc, c);
  char *out = render_doc(doc, "imported");
  cr_expect_not_null(strstr(out, "\ngcbench_imported_gbps{run=\"1\",backend="
                                 "\"host\",name=\"avg_bus_bandwidth\","
                                 "op=\"allreduce\"} 123.5\n"),
                     "the source's own figure is kept: %s", out);
  free(out);
  json_decref(doc);
}

Test(openmetrics, times_in_any_unit_share_the_seconds_family) {
  json_t *doc = fx_doc(4, 2, 8, "Test CPU");
  add(doc, "lat", "{\"size\": 8}", "us");
  add(doc, "lat", "{\"size\": 16}", "ns");
  add(doc, "lat", "{\"size\": 32}", "s");
  char *out = render_doc(doc, "seconds");
  cr_expect_eq(count(out, "# TYPE gcbench_lat"), 1, "%s", out);
  cr_expect_not_null(strstr(out, "# HELP gcbench_lat_seconds lat per-rank "
                                 "figure (the rank's median), seconds\n"),
                     "%s", out);
  cr_expect_not_null(strstr(out, "size=\"8\"} 0.0001\n"), "%s", out);
  cr_expect_not_null(strstr(out, "size=\"16\"} 9.9999999999999995e-08\n"), "%s",
                     out);
  cr_expect_not_null(strstr(out, "size=\"32\"} 100\n"), "%s", out);
  free(out);
  json_decref(doc);
}
