/*
 * Tests for schema 2's per-rank columns (reports/document/ranks.h): schema-1
 * documents read as schema 2, column violations named and located, every
 * column written and read back, and rewrites that are the dump of the whole
 * document (the case cache of reports/document/write.c).
 */
#include "tests/reports/results_test.h"

Test(results_read, schema_1_documents_read_as_schema_2) {
  struct gcb_results *v1 = NULL, *v2 = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(fx_results_read(DATA("results-valid.json"), &v1, &err), GCB_OK,
               "%s", err.msg);
  cr_assert_eq(fx_results_read(DATA("results-valid-v2.json"), &v2, &err),
               GCB_OK, "%s", err.msg);
  cr_expect(json_equal(gcb_results_json(v1), gcb_results_json(v2)),
            "per-rank entries transposed into the columns of the same file");
  cr_expect_str_eq(
      json_string_value(json_object_get(gcb_results_json(v1), "schema")),
      GCB_RESULTS_SCHEMA);
  gcb_results_free(v1);
  gcb_results_free(v2);
}

Test(results_read, schema_2_column_violations_are_named_and_located) {
  static const struct edit edits[] = {
      {"\"median\": [0.0511, 0.053]", "\"median\": [0.0511, \"0.053\"]",
       "cases[0].per_rank.time_s.median[1]: expected a number, got string",
       "\"0.053\""},
      {"\"best\": [42.9, 42.1]", "\"best\": [42.9]",
       "cases[0].per_rank.figure.best: 1 entries, expected 2 (one per rank, "
       "as \"rank\")",
       "[42.9]"},
      {"\"rank\": [0, 1]", "\"rank\": [0, 1, 2]",
       "cases[0].per_rank.time_s.n: 2 entries, expected 3", "[20, 20]"},
      {"\"wrong\": [0, 0], ", "",
       "cases[0].per_rank.validation: missing required field 'wrong'",
       "{\"checked\": [true, true]"},
      {"\"rank\": [0, 1]", "\"rank\": 7",
       "cases[0].per_rank.rank: expected an array, got integer", NULL},
  };
  expect_edits_refused(DATA("results-valid-v2.json"), edits,
                       sizeof edits / sizeof edits[0]);
}

/* Each column's need and element types come from GCB_RANK_COLUMNS: a
 * group that is there has every column its need requires, and a schema-1
 * rank leaves out what it lacks rather than writing null. */
Test(results_read, column_needs_and_types_come_from_the_table) {
  static const struct edit v2[] = {
      {"\"rank\": [0, 1],", "\"rank\": [0, 1], \"late_s\": {\"n\": [1, null]},",
       "cases[0].per_rank.late_s: missing required field 'min'",
       "{\"n\": [1, null]}"},
  };
  static const struct edit v1[] = {
      {"\"figure\": {\"median\": 42.0",
       "\"late_s\": {\"n\": null}, \"figure\": {\"median\": 42.0",
       "cases[0].per_rank[0].late_s.n: expected an integer, got null",
       "null}, \"figure\""},
      {"{\"rank\": 0,\n", "{\"rank\": 0, \"figure_time_s\": null,\n",
       "cases[0].per_rank[0].figure_time_s: expected a number, got null", NULL},
  };
  expect_edits_refused(DATA("results-valid-v2.json"), v2,
                       sizeof v2 / sizeof v2[0]);
  expect_edits_refused(DATA("results-valid.json"), v1,
                       sizeof v1 / sizeof v1[0]);
}

/* The writer, the schema and the column table agree: every column of
 * GCB_RANK_COLUMNS is written (lateness and telemetry when a rank has
 * them, with null for the ranks that have none) and reads back. */
Test(results_file, every_column_of_the_table_is_written_and_read_back) {
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  set_header(r);
  build_record();
  ranks[0].late = (struct gcb_stats){.n = 4,
                                     .min = 0,
                                     .median = 1e-6,
                                     .mean = 2e-6,
                                     .max = 5e-6,
                                     .stdev = 1e-6,
                                     .p99 = 4e-6};
  ranks[0].telemetry = (struct gcb_telemetry){.available = true,
                                              .samples = 12,
                                              .sm_clock_mhz_min = 1410,
                                              .sm_clock_mhz_mean = 1650,
                                              .sm_clock_mhz_max = 1980,
                                              .mem_clock_mhz_mean = 2619,
                                              .power_w_mean = 610,
                                              .power_w_max = 700,
                                              .temp_c_max = NAN,
                                              .throttle_reasons = 0x4 | 0x40,
                                              .throttle_known = true};
  cr_assert_eq(gcb_results_add_record(r, &rec, &err), GCB_OK, "%s", err.msg);
  struct gcb_results *back = write_and_read(r, "late.json");
  const struct gcb_ranks *held = gcb_results_ranks(back, 0);
  cr_assert_not_null(held);
  struct gcb_ranks pr = *held;
  cr_assert_eq(pr.n, 2);
  for (size_t i = 0; i < GCB_RC_COUNT; i++)
    cr_expect(pr.num[i] != NULL || pr.str[i] != NULL, "column %s.%s",
              gcb_rank_columns[i].group ? gcb_rank_columns[i].group : "",
              gcb_rank_columns[i].field);
  cr_expect_eq(gcb_ranks_int(&pr, GCB_RC_LATE_N, 0, -1), 4);
  cr_expect_eq(gcb_ranks_num(&pr, GCB_RC_LATE_MEAN, 0), 2e-6);
  cr_expect(isnan(pr.num[GCB_RC_LATE_MEAN][1]),
            "rank 1 has no lateness samples");
  cr_expect(isnan(gcb_ranks_num(&pr, GCB_RC_LATE_MEAN, 1)));
  cr_expect_eq(gcb_ranks_int(&pr, GCB_RC_RANK, 1, -1), 1);
  cr_expect_eq(gcb_ranks_int(&pr, GCB_RC_TELEM_SAMPLES, 0, -1), 12);
  cr_expect_eq(gcb_ranks_num(&pr, GCB_RC_TELEM_SM_MIN, 0), 1410);
  cr_expect_eq(gcb_ranks_num(&pr, GCB_RC_TELEM_POWER_MAX, 0), 700);
  cr_expect(isnan(gcb_ranks_num(&pr, GCB_RC_TELEM_TEMP_MAX, 0)),
            "a value NVML did not give is null");
  cr_assert_not_null(pr.str[GCB_RC_TELEM_THROTTLE]);
  cr_expect_str_eq(pr.str[GCB_RC_TELEM_THROTTLE][0], "sw_power_cap,hw_thermal");
  cr_expect_eq(gcb_ranks_num(&pr, GCB_RC_TELEM_SLOWED, 0), 1,
               "hw_thermal slows the GPU against the user's wishes");
  cr_expect(isnan(pr.num[GCB_RC_TELEM_SM_MEAN][1]), "rank 1 has no telemetry");
  gcb_results_free(r);
  gcb_results_free(back);
}

Test(results_file, cases_without_lateness_or_telemetry_have_no_such_columns) {
  struct gcb_results *r = full_document();
  const json_t *pr = json_object_get(
      json_array_get(json_object_get(gcb_results_json(r), "cases"), 0),
      "per_rank");
  cr_expect_null(json_object_get(pr, "late_s"));
  cr_expect_null(json_object_get(pr, "telemetry"));
  cr_expect_not_null(json_object_get(pr, "figure_time_s"));
  gcb_results_free(r);
}

/* Rewrites reuse each case's text (reports/results.c): what is written is
 * still, byte for byte, jansson's dump of the whole document, as cases
 * are added between rewrites. */
static char *expected_text(const struct gcb_results *r) {
  static const char *const order[] = {"schema",   "tool",   "run",   "options",
                                      "software", "nodes",  "ranks", "cases",
                                      "skipped",  "errors", NULL};
  const json_t *root = gcb_results_json(r);
  json_t *doc = json_object();
  for (size_t i = 0; order[i]; i++)
    if (json_object_get(root, order[i]) != NULL)
      json_object_set(doc, order[i], json_object_get(root, order[i]));
  char *text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
  json_decref(doc);
  return text;
}

Test(results_file, rewrites_are_the_dump_of_the_whole_document) {
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  set_header(r);
  for (int round = 0; round < 4; round++) {
    cr_assert_eq(gcb_results_write(r, in_tmp("cached.json"), &err), GCB_OK,
                 "%s", err.msg);
    size_t len;
    char *text = read_text(in_tmp("cached.json"), &len);
    char *want = expected_text(r);
    cr_assert_eq(len, strlen(want) + 1, "round %d", round);
    cr_expect(memcmp(text, want, len - 1) == 0 && text[len - 1] == '\n',
              "round %d: the file differs from the dump", round);
    free(text);
    free(want);
    build_record();
    cr_assert_eq(gcb_results_add_record(r, &rec, &err), GCB_OK, "%s", err.msg);
    cr_assert_eq(gcb_results_add_skip(r, "p2p", "x", "no GPU", &err), GCB_OK);
  }
  gcb_results_free(r);
}
