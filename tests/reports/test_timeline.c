/*
 * Tests for the burn-in timeline of a case (record.h's struct
 * gcb_burn_timeline, written and checked in section_cases.c): a timeline
 * written from a record reads back value for value (null where nothing was
 * measured, integers where the series counts, absent series named in
 * "unavailable"), and hostile timelines are refused with one line naming
 * the place.
 */
#include "tests/reports/results_test.h"

#define NI 3 /* intervals */

static double values[GCB_BURN_SERIES_COUNT][2 * NI];
static struct gcb_burn_timeline tl;

static double *at(int s, int r, long i) {
  return &tl.v[s][r * NI + i];
}

/* Two ranks, three intervals: throughput, checks (rank 1 wrong once in
 * interval 2), CPU time with rank 1's last interval not measured, a
 * temperature on rank 0 only; no other series. */
static void build_timeline(void) {
  build_record();
  rec.bench = "burn";
  tl = (struct gcb_burn_timeline){.interval_s = 1.0, .nranks = 2, .n = NI};
  for (int s = 0; s < GCB_BURN_SERIES_COUNT; s++) {
    /* a series of nothing but NAN is measured on no rank, as a NULL one */
    tl.v[s] = s == GCB_BURN_XID ? NULL : values[s];
    for (int i = 0; i < 2 * NI; i++)
      values[s][i] = NAN;
  }
  for (int r = 0; r < 2; r++)
    for (long i = 0; i < NI; i++) {
      *at(GCB_BURN_FIGURE, r, i) = 10.0 * (r + 1) + (double)i / 3;
      *at(GCB_BURN_CHECKED, r, i) = 1;
      *at(GCB_BURN_WRONG, r, i) = r == 1 && i == 1;
      *at(GCB_BURN_CPU_UTIL, r, i) = 0.5;
    }
  *at(GCB_BURN_CPU_UTIL, 1, 2) = NAN;
  *at(GCB_BURN_TEMP_C, 0, 0) = 41.5;
  snprintf(tl.unavailable[GCB_BURN_POWER_W], sizeof tl.unavailable[0],
           "no readable powercap package energy counter");
  rec.timeline = &tl;
}

static const json_t *timeline_of(const struct gcb_results *r) {
  const json_t *c = json_array_get(
      json_object_get(gcb_results_json((struct gcb_results *)r), "cases"), 0);
  return json_object_get(c, "timeline");
}

Test(results_file, a_timeline_reads_back_value_for_value) {
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  set_header(r);
  build_timeline();
  cr_assert_eq(gcb_results_add_record(r, &rec, &err), GCB_OK, "%s", err.msg);
  struct gcb_results *back = write_and_read(r, "burn.json");
  const json_t *t = timeline_of(back);
  cr_assert_not_null(t);
  cr_expect(json_equal((json_t *)t, (json_t *)timeline_of(r)));
  cr_expect_eq(json_number_value(json_object_get(t, "interval_s")), 1.0);
  const json_t *ts = json_object_get(t, "t_s");
  cr_assert_eq(json_array_size(ts), NI);
  cr_expect_eq(json_number_value(json_array_get(ts, 2)), 3.0);
  const json_t *series = json_object_get(t, "series");
  const json_t *figure = json_object_get(series, "figure");
  cr_expect_eq(json_number_value(json_array_get(json_array_get(figure, 1), 2)),
               20.0 + 2.0 / 3, "17 significant digits survive");
  const json_t *wrong = json_array_get(json_object_get(series, "wrong"), 1);
  cr_expect(json_is_integer(json_array_get(wrong, 1)));
  cr_expect_eq(json_integer_value(json_array_get(wrong, 1)), 1);
  cr_expect(json_is_null(json_array_get(
      json_array_get(json_object_get(series, "cpu_util"), 1), 2)));
  cr_expect(json_is_null(
      json_array_get(json_array_get(json_object_get(series, "temp_c"), 1), 0)));
  /* Series nobody measured: absent, each named with why. */
  const json_t *un = json_object_get(t, "unavailable");
  cr_expect_null(json_object_get(series, "power_w"));
  cr_expect_str_eq(json_string_value(json_object_get(un, "power_w")),
                   "no readable powercap package energy counter");
  cr_expect_str_eq(json_string_value(json_object_get(un, "xid")),
                   "measured on no rank");
  cr_expect_null(json_object_get(un, "figure"));
  cr_expect_eq(json_object_size(series) + json_object_size(un),
               GCB_BURN_SERIES_COUNT);
  /* The typed reader: the series present, the absent ones NULL with why. */
  struct gcb_burn_timeline got;
  const json_t *c =
      json_array_get(json_object_get(gcb_results_json(back), "cases"), 0);
  cr_assert(gcb_results_burn_timeline(c, gcb_results_ranks(back, 0)->n, &got));
  cr_expect_eq(got.n, NI);
  cr_expect_eq(got.nranks, 2);
  cr_expect_eq(got.interval_s, 1.0);
  for (int s = 0; s < GCB_BURN_SERIES_COUNT; s++)
    for (int r = 0; r < 2; r++)
      for (long i = 0; i < NI; i++) {
        double want = gcb_burn_value(&tl, s, r, i),
               have = gcb_burn_value(&got, s, r, i);
        cr_expect(isnan(want) ? isnan(have) : want == have,
                  "%s rank %d interval %ld: %g, expected %g",
                  gcb_burn_series_name(s), r, i, have, want);
      }
  cr_expect_null(got.v[GCB_BURN_POWER_W]);
  cr_expect_not_null(got.v[GCB_BURN_TEMP_C]);
  cr_expect_str_eq(got.unavailable[GCB_BURN_POWER_W],
                   "no readable powercap package energy counter");
  gcb_burn_timeline_free(&got);
  json_t *plain = json_object();
  cr_expect_not(gcb_results_burn_timeline(plain, 0, &got),
                "a case without a timeline has none");
  json_decref(plain);
  gcb_results_free(back);
  gcb_results_free(r);
}

Test(results_file, a_case_without_a_timeline_has_none) {
  struct gcb_results *r = full_document();
  struct gcb_results *back = write_and_read(r, "plain.json");
  cr_expect_null(timeline_of(back));
  gcb_results_free(back);
  gcb_results_free(r);
}

/* ---- hostile timelines --------------------------------------------------- */

static json_t *series_of(json_t *t, const char *name) {
  return json_object_get(json_object_get(t, "series"), name);
}

static void drop_a_row(json_t *t) {
  json_array_remove(series_of(t, "figure"), 1);
}
static void short_row(json_t *t) {
  json_array_remove(json_array_get(series_of(t, "figure"), 0), 0);
}
static void text_value(json_t *t) {
  json_array_set_new(json_array_get(series_of(t, "figure"), 0), 1,
                     json_string("fast"));
}
static void real_count(json_t *t) {
  json_array_set_new(json_array_get(series_of(t, "wrong"), 0), 0,
                     json_real(0.5));
}
static void negative_count(json_t *t) {
  json_array_set_new(json_array_get(series_of(t, "checked"), 1), 2,
                     json_integer(-3));
}
static void negative_figure(json_t *t) {
  json_array_set_new(json_array_get(series_of(t, "figure"), 1), 0,
                     json_real(-40));
}
static void unknown_series(json_t *t) {
  json_object_set(json_object_get(t, "series"), "gflops",
                  series_of(t, "figure"));
}
static void falling_time(json_t *t) {
  json_array_set_new(json_object_get(t, "t_s"), 2, json_real(1.5));
}
static void zero_interval(json_t *t) {
  json_object_set_new(t, "interval_s", json_real(0));
}
static void no_t_s(json_t *t) {
  json_object_del(t, "t_s");
}
static void measured_and_unavailable(json_t *t) {
  json_object_set_new(json_object_get(t, "unavailable"), "figure",
                      json_string("?"));
}
static void series_not_rows(json_t *t) {
  json_object_set_new(json_object_get(t, "series"), "figure", json_integer(7));
}
/* More intervals than a timeline may hold: refused before the rows are
 * looked at (they are left short). */
static void too_many_intervals(json_t *t) {
  json_t *ts = json_array();
  for (long i = 0; i <= GCB_BURN_MAX_INTERVALS; i++)
    json_array_append_new(ts, json_integer(i + 1));
  json_object_set_new(t, "t_s", ts);
}

Test(results_file, hostile_timelines_are_refused_with_one_line) {
  static const struct {
    void (*edit)(json_t *t);
    const char *what;
  } rows[] = {
      {drop_a_row, "timeline.series.figure: 1 rows, expected 2 (one per rank)"},
      {short_row,
       "timeline.series.figure[0]: 2 values, expected 3 (one per t_s)"},
      {text_value, "timeline.series.figure[0][1]: expected a number or null, "
                   "got string"},
      {real_count, "timeline.series.wrong[0]: value 0: expected an integer >= "
                   "0 or null"},
      {negative_count, "timeline.series.checked[1]: value 2: expected an "
                       "integer >= 0 or null"},
      {negative_figure, "timeline.series.figure[1]: value 0: -40, below 0"},
      {unknown_series, "timeline.series.gflops: unknown series"},
      {falling_time, "timeline.t_s[2]: not after the value before it"},
      {zero_interval, "timeline.interval_s: expected a number above 0"},
      {no_t_s, "timeline: missing required field 't_s'"},
      {measured_and_unavailable,
       "timeline.unavailable.figure: not an absent series"},
      {series_not_rows,
       "timeline.series.figure: expected an array, got integer"},
      {too_many_intervals, "timeline.t_s: 604801 intervals, more than the "
                           "604800 a timeline may hold"},
  };
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  set_header(r);
  build_timeline();
  cr_assert_eq(gcb_results_add_record(r, &rec, &err), GCB_OK, "%s", err.msg);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    json_t *doc = json_deep_copy(gcb_results_json(r));
    json_t *c = json_array_get(json_object_get(doc, "cases"), 0);
    rows[i].edit(json_object_get(c, "timeline"));
    char *text = json_dumps(doc, JSON_INDENT(1));
    struct gcb_results *back = NULL;
    err = (struct gcb_err){0};
    cr_expect_eq(
        gcb_results_parse(text, strlen(text), "hostile.json", &back, &err),
        GCB_EINPUT, "row %zu", i);
    cr_expect_null(back);
    cr_expect(strstr(err.msg, rows[i].what) != NULL, "row %zu: %s", i, err.msg);
    cr_expect_null(strchr(err.msg, '\n'), "one line: %s", err.msg);
    gcb_results_free(back);
    free(text);
    json_decref(doc);
  }
  gcb_results_free(r);
}
