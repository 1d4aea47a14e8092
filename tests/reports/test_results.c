/*
 * Tests for the results document: building from records, exact round trips
 * through a file, atomic replacement, write failures, and reading bad files
 * (every problem reported as file:line:column at the offending place).
 * Expected positions are computed from a marker's offset in the file text,
 * independently of the scanner under test.
 */
#define _GNU_SOURCE /* SEEK_HOLE */
#include "tests/reports/results_test.h"

/* ---- building and writing ----------------------------------------------- */

Test(results, new_document_has_schema_and_empty_lists) {
  struct gcb_results *r = gcb_results_new();
  json_t *root = gcb_results_json(r);
  cr_expect_str_eq(json_string_value(json_object_get(root, "schema")),
                   GCB_RESULTS_SCHEMA);
  for (const char *const *s =
           (const char *const[]){"cases", "skipped", "errors", NULL};
       *s; s++)
    cr_expect_eq(json_array_size(json_object_get(root, *s)), 0, "%s", *s);
  gcb_results_free(r);
  gcb_results_free(NULL);
}

Test(results_file, round_trip_preserves_every_value_exactly) {
  struct gcb_results *r = full_document();
  struct gcb_results *back = write_and_read(r, "results.json");
  struct gcb_err err = {0};
  /* the columns read apart, put back in the tree for json_equal */
  cr_assert_eq(gcb_results_plain(back, &err), GCB_OK);
  cr_expect(json_equal(gcb_results_json(r), gcb_results_json(back)),
            "document changed on the way through the file");
  double median, stdev;
  cr_assert_eq(json_unpack(gcb_results_json(back),
                           "{s:[{s:{s:{s:[F], s:[F]}}}]}", "cases", "per_rank",
                           "time_s", "median", &median, "stdev", &stdev),
               0);
  cr_expect_eq(median, 1.0 / 3);
  cr_expect_eq(stdev, 1e-7 / 3);
  gcb_results_free(r);
  gcb_results_free(back);
}

Test(results_file, record_fields_are_converted_as_documented) {
  struct gcb_results *r = full_document();
  struct gcb_results *back = write_and_read(r, "results.json");
  struct gcb_record_summary s;
  gcb_record_summarize(&rec, &s);
  json_t *c =
      json_array_get(json_object_get(gcb_results_json(back), "cases"), 0);
  const struct gcb_ranks *held = gcb_results_ranks(back, 0);
  cr_assert_not_null(held);
  struct gcb_ranks pr = *held;
  cr_assert_eq(pr.n, 2);
  double median0 = gcb_ranks_num(&pr, GCB_RC_FIG_MEDIAN, 0);
  double best0 = gcb_ranks_num(&pr, GCB_RC_FIG_BEST, 0);
  double worst0 = gcb_ranks_num(&pr, GCB_RC_FIG_WORST, 0);
  const char *method0 = pr.str[GCB_RC_METHOD][0], *label;
  const char *method1 = pr.str[GCB_RC_METHOD][1];
  double alpha, imbalance, smin, smax;
  int passed, wrong, min_rank, max_rank, m;
  cr_assert_eq(json_unpack(c,
                           "{s:s, s:{s:F, s:i}, s:{s:F, s:F, s:F, s:i, s:i}, "
                           "s:{s:b, s:i}}",
                           "label", &label, "params", "alpha", &alpha, "m", &m,
                           "summary", "imbalance", &imbalance, "min", &smin,
                           "max", &smax, "min_rank", &min_rank, "max_rank",
                           &max_rank, "validation", "passed", &passed, "wrong",
                           &wrong),
               0);
  cr_expect_str_eq(label, rec.label);
  cr_expect_eq(median0, gcb_record_figure(&rec, 1.0 / 3));
  cr_expect_eq(best0, gcb_record_figure(&rec, 0.1));
  cr_expect_eq(worst0, gcb_record_figure(&rec, 0.7));
  cr_expect_str_eq(method0, "relative error");
  cr_expect_null(method1);
  cr_expect_eq(alpha, 0.1);
  cr_expect_eq(m, 1024);
  cr_expect_eq(imbalance, s.imbalance);
  cr_expect_eq(smin, s.figure.min);
  cr_expect_eq(smax, s.figure.max);
  cr_expect_eq(min_rank, 1);
  cr_expect_eq(max_rank, 0);
  cr_expect_not(passed);
  cr_expect_eq(wrong, 2);
  gcb_results_free(r);
  gcb_results_free(back);
}

/* A netmap case names both ends by host: a hostname of HOST_NAME_MAX (64)
 * bytes, or a node name as long as the run context holds, is written
 * whole. */
Test(results_file, long_string_parameters_are_written_whole) {
  char host64[65], node255[256];
  memset(host64, 'h', 64);
  host64[64] = '\0';
  memset(node255, 'n', 255);
  node255[255] = '\0';
  build_record();
  gcb_record_param_str(&rec, "src_host", host64);
  gcb_record_param_str(&rec, "dst_host", node255);
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  set_header(r);
  cr_assert_eq(gcb_results_add_record(r, &rec, &err), GCB_OK, "%s", err.msg);
  struct gcb_results *back = write_and_read(r, "results.json");
  const char *src = NULL, *dst = NULL;
  json_t *c =
      json_array_get(json_object_get(gcb_results_json(back), "cases"), 0);
  cr_assert_eq(json_unpack(c, "{s:{s:s, s:s}}", "params", "src_host", &src,
                           "dst_host", &dst),
               0);
  cr_expect_str_eq(src, host64);
  cr_expect_str_eq(dst, node255);
  gcb_results_free(r);
  gcb_results_free(back);
}

Test(results_file, sections_are_written_in_schema_order) {
  struct gcb_results *r = full_document(); /* sets run before tool */
  struct gcb_results *back = write_and_read(r, "results.json");
  size_t len;
  char *text = read_text(in_tmp("results.json"), &len);
  static const char *const order[] = {"\"schema\"",  "\"tool\"",
                                      "\"run\"",     "\"cases\"",
                                      "\"skipped\"", "\"errors\""};
  const char *prev = text;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    const char *at = memfind(text, len, order[i]);
    cr_expect(at != NULL && at >= prev, "%s out of order", order[i]);
    prev = at != NULL ? at : prev;
  }
  cr_expect(len > 12 && memcmp(text, "{\n \"schema\":", 12) == 0);
  cr_expect_eq(text[len - 1], '\n');
  free(text);
  gcb_results_free(r);
  gcb_results_free(back);
}

Test(results_file, write_replaces_the_file_and_leaves_no_temporary) {
  struct gcb_results *empty = gcb_results_new();
  struct gcb_results *full = full_document();
  struct gcb_err err = {0};
  set_header(empty);
  cr_assert_eq(gcb_results_write(empty, in_tmp("results.json"), &err), GCB_OK);
  struct gcb_results *back = write_and_read(full, "results.json");
  cr_expect_eq(
      json_array_size(json_object_get(gcb_results_json(back), "cases")), 1);
  char names[256];
  list_tmpdir(names, sizeof names);
  cr_expect_str_eq(names, "results.json");
  gcb_results_free(empty);
  gcb_results_free(full);
  gcb_results_free(back);
}

Test(results_file, write_into_a_missing_directory_fails_naming_the_path) {
  struct gcb_results *r = full_document();
  struct gcb_err err = {0};
  char path[512];
  snprintf(path, sizeof path, "%s", in_tmp("missing/results.json"));
  cr_expect_eq(gcb_results_write(r, path, &err), GCB_EIO);
  cr_expect_eq(err.code, GCB_EIO);
  cr_expect(strncmp(err.msg, path, strlen(path)) == 0, "%s", err.msg);
  cr_expect(strstr(err.msg, "No such file or directory") != NULL, "%s",
            err.msg);
  char names[256];
  list_tmpdir(names, sizeof names);
  cr_expect_str_eq(names, "");
  gcb_results_free(r);
}

Test(results_file, failed_rename_removes_the_temporary_file) {
  struct gcb_results *r = full_document();
  struct gcb_err err = {0};
  cr_assert_eq(mkdir(in_tmp("results.json"), 0755), 0);
  cr_expect_eq(gcb_results_write(r, in_tmp("results.json"), &err), GCB_EIO);
  cr_expect(strstr(err.msg, "rename") != NULL, "%s", err.msg);
  char names[256];
  list_tmpdir(names, sizeof names);
  cr_expect_str_eq(names, "results.json");
  gcb_results_free(r);
}

Test(results, set_rejects_unknown_sections_and_values_off_schema) {
  static const struct {
    const char *section, *value, *what;
  } cases[] = {
      {"cases", "[]", "no settable section 'cases'"},
      {"bogus", "{}", "no settable section 'bogus'"},
      {"tool", "{\"name\": \"gcbench\", \"version\": \"1\"}",
       "results: tool: missing required field 'git_revision'"},
      {"software", "{\"mpi\": 4}", "software.mpi: expected a string"},
      {"nodes", "{}", "results: nodes: expected an array, got object"},
  };
  struct gcb_results *r = gcb_results_new();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct gcb_err err = {0};
    json_t *v = json_loads(cases[i].value, JSON_DECODE_ANY, NULL);
    cr_expect_eq(gcb_results_set(r, cases[i].section, v, &err), GCB_EINTERNAL);
    cr_expect(strstr(err.msg, cases[i].what) != NULL, "'%s' lacks '%s'",
              err.msg, cases[i].what);
    cr_expect_null(json_object_get(gcb_results_json(r), "tool"));
  }
  gcb_results_free(r);
}

Test(results, skip_and_error_entries_are_written_as_given) {
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  cr_assert_eq(gcb_results_add_skip(r, "nccl", NULL, "no GPU", &err), GCB_OK);
  cr_assert_eq(gcb_results_add_error(r, "membw", "triad", -1, GCB_ECUDA,
                                     "launch failed", &err),
               GCB_OK);
  const char *label, *status, *message;
  int rank;
  cr_assert_eq(json_unpack(gcb_results_json(r),
                           "{s:[{s:s}], s:[{s:i, s:s, s:s}]}", "skipped",
                           "label", &label, "errors", "rank", &rank, "status",
                           &status, "message", &message),
               0);
  cr_expect_str_eq(label, "");
  cr_expect_eq(rank, -1);
  cr_expect_str_eq(status, "ECUDA");
  cr_expect_str_eq(message, "launch failed");
  gcb_results_free(r);
}

Test(results, strings_that_are_not_utf8_are_refused) {
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  cr_expect_eq(gcb_results_add_skip(r, "x", "y", "bad \xff byte", &err),
               GCB_ENOMEM);
  cr_expect(strstr(err.msg, "not UTF-8") != NULL, "%s", err.msg);
  build_record();
  snprintf(rec.label, sizeof rec.label, "bad \xc3");
  cr_expect_eq(gcb_results_add_record(r, &rec, &err), GCB_ENOMEM);
  cr_expect(strstr(err.msg, "not UTF-8") != NULL, "%s", err.msg);
  json_t *root = gcb_results_json(r);
  cr_expect_eq(json_array_size(json_object_get(root, "skipped")), 0);
  cr_expect_eq(json_array_size(json_object_get(root, "cases")), 0);
  gcb_results_free(r);
}

Test(results, non_finite_time_rejects_the_case) {
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  build_record();
  ranks[1].seconds.mean = NAN;
  cr_expect_eq(gcb_results_add_record(r, &rec, &err), GCB_EINTERNAL);
  cr_expect(strstr(err.msg, "per_rank.time_s.mean[1]: expected a number, "
                            "got null") != NULL,
            "%s", err.msg);
  cr_expect_eq(json_array_size(json_object_get(gcb_results_json(r), "cases")),
               0);
  gcb_results_free(r);
}

Test(results_file, non_finite_max_error_is_written_as_null) {
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  set_header(r);
  build_record();
  ranks[0].check.max_error = INFINITY;
  cr_assert_eq(gcb_results_add_record(r, &rec, &err), GCB_OK, "%s", err.msg);
  struct gcb_results *back = write_and_read(r, "results.json");
  cr_assert_eq(gcb_results_plain(back, &err), GCB_OK);
  json_t *v = NULL;
  json_unpack(gcb_results_json(back), "{s:[{s:{s:{s:[o]}}}]}", "cases",
              "per_rank", "validation", "max_error", &v);
  cr_expect(json_is_null(v));
  gcb_results_free(r);
  gcb_results_free(back);
}

/* ---- reading ------------------------------------------------------------ */

Test(results_read, valid_file_with_unknown_sections_is_accepted) {
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(fx_results_read(DATA("results-valid.json"), &r, &err), GCB_OK,
               "%s", err.msg);
  json_t *root = gcb_results_json(r);
  cr_expect_eq(json_array_size(json_object_get(root, "cases")), 1);
  cr_expect_not_null(json_object_get(root, "future_section"));
  gcb_results_free(r);
}

Test(results_read, syntax_error_is_located_at_the_bad_token) {
  expect_bad_file("results-syntax-error.json", ",, \"ranks\"", 1,
                  "string or '}' expected");
}

Test(results_read, wrong_type_deep_inside_is_located_at_the_value) {
  expect_bad_file("results-wrong-type.json", "\"0.053\"", 0,
                  ": cases[0].per_rank[1].time_s.median: expected a number, "
                  "got string");
}

Test(results_read, other_schema_version_is_unsupported) {
  expect_bad_file("results-schema-v3.json", "\"gcbench.results/3\"", 0,
                  "schema: unsupported schema version 3 (this gcbench reads "
                  "gcbench.results/2 and gcbench.results/1)");
}

Test(results_read, top_level_array_is_not_a_results_document) {
  expect_bad_file("results-not-object.json", "[", 0,
                  "not a gcbench results document (top level is an array, "
                  "expected an object)");
}

Test(results_read, missing_cases_is_reported_at_the_top_object) {
  expect_bad_file("results-missing-cases.json", "{", 0,
                  "1:1: missing required field 'cases'");
}

Test(results_read, duplicate_keys_are_rejected) {
  /* jansson points at the end of the second key. */
  expect_bad_file("results-duplicate-key.json", "\"ranks\": 2,\n  \"ranks\"",
                  20, "duplicate object key");
}

Test(results_read, invalid_utf8_is_rejected) {
  /* jansson stops counting columns at the undecodable byte. */
  expect_bad_file("results-invalid-utf8.json", "\xff", -1,
                  "unable to decode byte 0xff");
}

Test(results_read, empty_file_is_rejected) {
  expect_bad_file("results-empty.json", "", 0, "1:1: empty file");
}

Test(results_read, missing_file_fails_naming_it) {
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(fx_results_read(DATA("no-such-file.json"), &r, &err),
               GCB_EINPUT);
  cr_expect(strstr(err.msg, DATA("no-such-file.json")) != NULL, "%s", err.msg);
  cr_expect_null(r);
}

Test(results_file, file_over_the_size_limit_is_refused_before_loading) {
  int fd = creat(in_tmp("huge.json"), 0644);
  cr_assert_geq(fd, 0);
  cr_assert_eq(ftruncate(fd, 300L << 20), 0); /* sparse: no disk used */
  bool holes = lseek(fd, 0, SEEK_HOLE) == 0;
  close(fd);
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(fx_results_read(in_tmp("huge.json"), &r, &err), GCB_EINPUT);
  /* for its hole before a byte is read (common/file.h), or, where the
   * filesystem cannot tell, for its size once read */
  cr_expect(strstr(err.msg, holes ? "a sparse file of 314572800 bytes"
                                  : "too large (314572800 bytes, limit "
                                    "256 MiB)") != NULL,
            "%s", err.msg);
}

static enum gcb_status parse_text(const char *text, size_t len,
                                  struct gcb_err *err) {
  char *buf = malloc(len ? len : 1); /* exact size, no NUL */
  memcpy(buf, text, len);
  struct gcb_results *r = NULL;
  enum gcb_status rc = gcb_results_parse(buf, len, "mem.json", &r, err);
  cr_expect((rc == GCB_OK) == (r != NULL));
  gcb_results_free(r);
  free(buf);
  return rc;
}

Test(results_read, nesting_beyond_the_parser_limit_is_a_clean_error) {
  size_t n = 100000;
  char *text = malloc(2 * n);
  memset(text, '[', n);
  memset(text + n, ']', n);
  struct gcb_err err = {0};
  cr_expect_eq(parse_text(text, 2 * n, &err), GCB_EINPUT);
  cr_expect(strstr(err.msg, "mem.json:1:") == err.msg, "%s", err.msg);
  cr_expect(strstr(err.msg, "maximum parsing depth reached") != NULL, "%s",
            err.msg);
  free(text);
}

/* Deep but legal nesting in an unknown section before a bad one: the
 * locator must skip it to place the error. */
Test(results_read, deep_legal_nesting_is_skipped_when_locating_errors) {
  size_t n = 2000;
  char *text = malloc(3 * n);
  int len = sprintf(text, "{\"schema\": \"%s\", \"x\": ", GCB_RESULTS_SCHEMA);
  memset(text + len, '[', n);
  memset(text + len + n, ']', n);
  len += 2 * (int)n;
  len += sprintf(text + len, ",\n \"tool\": 5}");
  struct gcb_err err = {0};
  cr_expect_eq(parse_text(text, (size_t)len, &err), GCB_EINPUT);
  cr_expect_str_eq(err.msg,
                   "mem.json:2:10: tool: expected an object, got integer");
  free(text);
}

Test(results_read, documents_of_other_kinds_are_named_as_such) {
  static const struct {
    const char *text, *msg;
  } cases[] = {
      {"{\"name\": \"x\"}", "mem.json:1:1: not a gcbench results document "
                            "(no \"schema\" field)"},
      {"{\"schema\": \"other/1\"}",
       "mem.json:1:12: schema: not a gcbench results document (schema is "
       "not \"gcbench.results/2\")"},
      {"{\"schema\": 1}", "mem.json:1:12: schema: not a gcbench results "
                          "document (schema is not \"gcbench.results/2\")"},
      {"\n  42", "mem.json:2:3: not a gcbench results document (top level is "
                 "an integer, expected an object)"},
      {"  \n\t ", "mem.json:1:1: empty file, not a gcbench results document"},
      {"{\"a\": 1} x", "mem.json:1:10: end of file expected near 'x'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct gcb_err err = {0};
    cr_expect_eq(parse_text(cases[i].text, strlen(cases[i].text), &err),
                 GCB_EINPUT);
    cr_expect_str_eq(err.msg, cases[i].msg);
  }
}

/* One edit of the valid fixture per row; the error must name the field and
 * point at the marker `at` (missing fields: the enclosing object) or, when
 * it is NULL, at the bad value in the replacement. */
Test(results_read, schema_violations_are_named_and_located) {
  static const struct edit edits[] = {
      {"\"status\": \"running\"", "\"status\": \"paused\"",
       "run.status: expected one of running, complete, failed, timeout, "
       "interrupted, unknown, got \"paused\"",
       NULL},
      {"\"end_time\": null", "\"end_time\": 0",
       "run.end_time: expected a string or null, got integer", NULL},
      {"\"gemm\", \"-o\"", "\"gemm\", -1",
       "run.command_line[4]: expected a string, got integer", NULL},
      {"\"tool\": {\"name\": \"gcbench\", \"version\": \"0.1.0\", "
       "\"git_revision\": \"0123456789ab\"}",
       "\"tool\": \"gcbench\"", "tool: expected an object, got string", NULL},
      {"\"options\": {\"bench\": \"gemm\", \"iterations\": 20, \"min-time\": "
       "0.5, \"json\": true, \"baseline\": null}",
       "\"options\": [\"gemm\"]", "options: expected an object, got array",
       NULL},
      {"\"hwloc\": \"2.9.0\"", "\"hwloc\": 2.9",
       "software.hwloc: expected a string, got real", NULL},
      {"\"ranks\": [0, 1]", "\"ranks\": [0, \"1\"]",
       "nodes[0].ranks[1]: expected an integer, got string", NULL},
      {"\"device\": null", "\"device\": \"none\"",
       "ranks[1].device: expected an object or null, got string", NULL},
      {"\"bus_id\": \"0000:1b:00.0\", ", "",
       "ranks[0].device: missing required field 'bus_id'",
       "{\"name\": \"NVIDIA H200\""},
      {"\"iterations\": 20,\n   \"warmup\"",
       "\"iterations\": 20.5,\n "
       "  \"warmup\"",
       "cases[0].iterations: expected an integer, got real", NULL},
      {"\"unit\": \"GFLOP/s\",\n", "",
       "cases[0]: missing required field 'unit'", "{\n   \"bench\": \"gemm\""},
      {"\"alpha\": 1.5", "\"alpha\": false",
       "cases[0].params.alpha: expected a string or a number, got boolean",
       NULL},
      {"\"passed\": true", "\"passed\": 1",
       "cases[0].validation.passed: expected a boolean, got integer", NULL},
      {"\"method\": null", "\"method\": 3",
       "cases[0].per_rank[1].validation.method: expected a string or null, "
       "got integer",
       NULL},
      {"\"p99\": 0.0539", "\"p99s\": 0.0539",
       "cases[0].per_rank[1].time_s: missing required field 'p99'",
       "{\"n\": 20, \"min\": 0.051"},
      {", \"reason\": \"no CUDA device visible\"", "",
       "skipped[0]: missing required field 'reason'",
       "{\"bench\": \"nccl-allreduce\""},
      {"\"rank\": -1", "\"rank\": \"all\"",
       "errors[0].rank: expected an integer, got string", NULL},
  };
  expect_edits_refused(DATA("results-valid.json"), edits,
                       sizeof edits / sizeof edits[0]);
}

/* What the run could not have written, each value of the right type: a
 * rank outside the run or twice, a rank entry on a node not listed, a
 * negative time, figure or count. Each is refused at its element (a
 * repeat at its list), on the quick road (the current schema's columns)
 * and on jansson's (schema 1's rows, which the reader transposes). */
Test(results_read, values_the_run_could_not_have_written_are_refused) {
  static const struct edit columns[] = {
      {"\"ranks\": 2,", "\"ranks\": 0,",
       "run.ranks: 0: a run has at least one rank", NULL},
      {"\"rank\": [0, 1]", "\"rank\": [0, 2]",
       "cases[0].per_rank.rank[1]: rank 2, not one of the run's 2", NULL},
      {"\"rank\": [0, 1]", "\"rank\": [0, 9223372036854775807]",
       "cases[0].per_rank.rank[1]: rank 9223372036854775808, not one of the "
       "run's 2",
       NULL},
      {"\"rank\": [0, 1]", "\"rank\": [1, 1]",
       "cases[0].per_rank.rank: rank 1 has two entries", "[1, 1]"},
      {"\"min\": [0.05, 0.051]", "\"min\": [0.05, -0.051]",
       "cases[0].per_rank.time_s.min[1]: -0.051, below 0", NULL},
      {"\"best\": [42.9, 42.1]", "\"best\": [-42.9, 42.1]",
       "cases[0].per_rank.figure.best[0]: -42.9, below 0", "-42.9"},
      {"\"wrong\": [0, 0]", "\"wrong\": [0, -3]",
       "cases[0].per_rank.validation.wrong[1]: -3, below 0", NULL},
      {"\"rank\": 1, \"node\": 0", "\"rank\": 1, \"node\": 3",
       "ranks[1].node: node 3, which \"nodes\" does not list", NULL},
      {"\"rank\": 1, \"node\": 0", "\"rank\": 7, \"node\": 0",
       "ranks[1].rank: rank 7, not one of the run's 2", "7, \"node\""},
      {"\"rank\": 1, \"node\": 0", "\"rank\": 0, \"node\": 0",
       "ranks: rank 0 has two entries", "[\n  {\"rank\": 0"},
      {"\"ranks\": [0, 1], \"cores\"", "\"ranks\": [0, 5], \"cores\"",
       "nodes[0].ranks[1]: rank 5, not one of the run's 2", "5], \"cores\""},
      {"\"ranks\": [0, 1], \"cores\"", "\"ranks\": [0, 0, 1], \"cores\"",
       "nodes: rank 0 is listed twice in nodes[].ranks", "[\n  {\"index\": 0"},
      {"\"ranks\": [0, 1], \"cores\"", "\"ranks\": [0], \"cores\"",
       "ranks[1].node: node 0, but the ranks its nodes entry lists do not "
       "include rank 1",
       "0, \"hostname\": \"nœud-01\", \"local_rank\": 1"},
      {"\"index\": 0, \"hostname\"", "\"index\": -1, \"hostname\"",
       "nodes[0].index: -1, below 0", "-1, \"hostname\""},
      {"\"summary\": {\"ranks\": 2", "\"summary\": {\"ranks\": 3",
       "cases[0].summary.ranks: 3, but per_rank has 2 entries", NULL},
      {"\"min\": 40.5,", "\"min\": 400.5,",
       "cases[0].summary.min: 400.5, but the ranks' figures give 40.5", NULL},
      {"\"median\": 41.25,", "\"median\": 99,",
       "cases[0].summary.median: outside the ranks' figures (40.5 to 42)",
       NULL},
      {"\"max_rank\": 0,", "\"max_rank\": 5,",
       "cases[0].summary.max_rank: rank 5, not one of the run's 2", NULL},
      {"\"iterations\": 20,\n   \"warmup\"",
       "\"iterations\": -5,\n   \"warmup\"", "cases[0].iterations: below 0",
       "-5,"},
      {"\"n\": [20, 20]", "\"n\": [0, 20]",
       "cases[0].per_rank.time_s.n[0]: 0, no iteration timed", "0, 20]"},
      {"\"median\": [0.0511, 0.053]", "\"median\": [0.06, 0.053]",
       "cases[0].per_rank.time_s.median[0]: 0.06, outside its min and max",
       "0.06, 0.053]"},
      {"\"stdev\": [0.0004, 0.0003]", "\"stdev\": [0.5, 0.0003]",
       "cases[0].per_rank.time_s.stdev[0]: 0.5, more than its max less its "
       "min",
       "0.5, 0.0003]"},
      {"\"status\": \"running\"", "\"status\": \"unknown\"",
       "run.status: unknown: a run of gcbench says how it ended (\"unknown\" "
       "is for another tool's excerpt)",
       NULL},
      {"\"rank\": -1, \"status\"", "\"rank\": 2, \"status\"",
       "errors[0].rank: rank 2, neither -1 (no one rank) nor one of the run's "
       "2",
       "2, \"status\""},
  };
  expect_edits_refused(DATA("results-valid-v2.json"), columns,
                       sizeof columns / sizeof columns[0]);
  static const struct edit rows[] = {
      {"{\"rank\": 1,\n     \"time_s\"", "{\"rank\": 2,\n     \"time_s\"",
       "cases[0].per_rank[1].rank: rank 2, not one of the run's 2",
       "2,\n     \"time_s\""},
      {"{\"rank\": 1,\n     \"time_s\"", "{\"rank\": 0,\n     \"time_s\"",
       "cases[0].per_rank: rank 0 has two entries", "[\n    {\"rank\": 0"},
      {"\"min\": 0.051,", "\"min\": -0.051,",
       "cases[0].per_rank[1].time_s.min: -0.051, below 0", "-0.051"},
  };
  expect_edits_refused(DATA("results-valid.json"), rows,
                       sizeof rows / sizeof rows[0]);
}

/* A case of no rank's results says nothing measured: refused, not judged. */
Test(results_read, a_case_without_ranks_is_refused) {
  size_t len;
  char *valid = read_text(DATA("results-valid-v2.json"), &len);
  const char *from = strstr(valid, "\"per_rank\": {");
  const char *to = strstr(from, "\n  }\n ],");
  cr_assert(from != NULL && to != NULL);
  static const char empty[] =
      "\"per_rank\": {\"rank\": [], \"time_s\": {\"n\": [], \"min\": [], "
      "\"median\": [], \"mean\": [], \"max\": [], \"stdev\": [], \"p99\": []},"
      " \"figure\": {\"median\": [], \"best\": [], \"worst\": []}, "
      "\"validation\": {\"checked\": [], \"samples\": [], \"wrong\": [], "
      "\"max_error\": [], \"tolerance\": [], \"method\": []}}";
  char *text = malloc(len + sizeof empty);
  size_t head = (size_t)(from - valid), tail = len - (size_t)(to - valid);
  memcpy(text, valid, head);
  memcpy(text + head, empty, sizeof empty - 1);
  memcpy(text + head + sizeof empty - 1, to, tail);
  size_t n = head + sizeof empty - 1 + tail;
  struct gcb_err err = {0};
  cr_expect_eq(parse_text(text, n, &err), GCB_EINPUT);
  expect_located(&err, "mem.json", text, n, "[], \"time_s\"", 0,
                 "cases[0].per_rank.rank: no entries: a case holds the "
                 "results of at least one rank");
  free(text);
  free(valid);
}
