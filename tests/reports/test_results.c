/*
 * Tests for the results document: building from records, exact round trips
 * through a file, atomic replacement, write failures, and reading bad files
 * (every problem reported as file:line:column at the offending place).
 * Expected positions are computed from a marker's offset in the file text,
 * independently of the scanner under test.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/document/ranks.h"
#include "reports/document/results.h"
#include "reports/document/view.h"

#define DATA(name) GCB_TEST_DATA "/" name

/* ---- helpers ------------------------------------------------------------ */

static char tmpdir[64];

static void make_tmpdir(void) {
  strcpy(tmpdir, "/tmp/gcb-test-results-XXXXXX");
  cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void) {
  DIR *d = opendir(tmpdir);
  struct dirent *e;
  char path[512];
  while (d != NULL && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
    if (unlink(path) != 0)
      rmdir(path);
  }
  if (d != NULL)
    closedir(d);
  rmdir(tmpdir);
}

static const char *in_tmp(const char *name) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  return path;
}

/* Names in tmpdir, sorted and joined with spaces ("" when empty). */
static void list_tmpdir(char *out, size_t size) {
  struct dirent **names;
  int n = scandir(tmpdir, &names, NULL, alphasort);
  cr_assert_geq(n, 0);
  out[0] = '\0';
  for (int i = 0; i < n; i++) {
    if (names[i]->d_name[0] != '.')
      snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? " " : "",
               names[i]->d_name);
    free(names[i]);
  }
  free(names);
}

/* The whole file in an exact-size buffer (no NUL added). */
static char *read_text(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  rewind(f);
  char *buf = malloc(*len ? *len : 1);
  cr_assert_eq(fread(buf, 1, *len, f), *len);
  fclose(f);
  return buf;
}

static const char *memfind(const char *text, size_t len, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; n <= len && i <= len - n; i++)
    if (memcmp(text + i, needle, n) == 0)
      return text + i;
  return NULL;
}

/* Line and character column of text[off], counted like jansson. */
static void position(const char *text, size_t off, int *line, int *col) {
  int chars = 0;
  *line = 1;
  for (size_t i = 0; i < off; i++) {
    if (text[i] == '\n') {
      (*line)++;
      chars = 0;
    } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
      chars++;
    }
  }
  *col = chars + 1;
}

/* Expects err to read "name:L:C: ..." with L:C the position of `marker`
 * (+ skip bytes) in text, and to contain `what`. */
static void expect_located(const struct gcb_err *err, const char *name,
                           const char *text, size_t len, const char *marker,
                           int skip, const char *what) {
  const char *at = memfind(text, len, marker);
  cr_assert_not_null(at, "marker '%s' not in %s", marker, name);
  int line, col;
  position(text, (size_t)(at - text) + (size_t)skip, &line, &col);
  char prefix[600];
  snprintf(prefix, sizeof prefix, "%s:%d:%d: ", name, line, col);
  cr_expect(strncmp(err->msg, prefix, strlen(prefix)) == 0,
            "message '%s' does not start with '%s'", err->msg, prefix);
  cr_expect(strstr(err->msg, what) != NULL, "message '%s' lacks '%s'", err->msg,
            what);
}

/* Reads a bad fixture: EINPUT, no document, message located at marker. */
static void expect_bad_file(const char *name, const char *marker, int skip,
                            const char *what) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, name);
  size_t len;
  char *text = read_text(path, &len);
  struct gcb_results *r = (struct gcb_results *)&r;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_results_read(path, &r, &err), GCB_EINPUT, "%s", err.msg);
  cr_expect_null(r);
  cr_expect_eq(err.code, GCB_EINPUT);
  expect_located(&err, path, text, len, marker, skip, what);
  free(text);
}

/* Two ranks with values that do not survive rounding to fewer than 17
 * significant digits, a failed validation and a NULL method. */
static struct gcb_rank_result ranks[2];
static struct gcb_record rec;

static void build_record(void) {
  ranks[0] = (struct gcb_rank_result){.rank = 0,
                                      .time_s = 1.0 / 3,
                                      .seconds = {.n = 20,
                                                  .min = 0.1,
                                                  .median = 1.0 / 3,
                                                  .mean = 0.34,
                                                  .max = 0.7,
                                                  .stdev = 1e-7 / 3,
                                                  .p99 = 0.69999999999999996},
                                      .check = {.checked = true,
                                                .samples = 64,
                                                .max_error = 2.2e-16,
                                                .tolerance = 1e-12,
                                                .method = "relative error"}};
  ranks[1] = (struct gcb_rank_result){.rank = 1,
                                      .time_s = 2.0 / 3,
                                      .seconds = {.n = 20,
                                                  .min = 0.2,
                                                  .median = 2.0 / 3,
                                                  .mean = 0.67,
                                                  .max = 1.9,
                                                  .stdev = 0.01,
                                                  .p99 = 1.8},
                                      .check = {.checked = true,
                                                .samples = 64,
                                                .wrong = 2,
                                                .max_error = 0.5,
                                                .tolerance = 1e-12,
                                                .method = NULL}};
  rec = (struct gcb_record){
      .bench = "gemm",
      .backend = "host",
      .label = "gemm fp64 \"m=1024\" \xc3\xa9",
      .work_per_op = 2.0 * 1024 * 1024 * 1024,
      .figure = {.unit = "GFLOP/s", .scale = 1e9, .counted = "2mnk flops"},
      .iterations = 20,
      .warmup = 3,
      .nranks = 2,
      .ranks = ranks};
  gcb_record_param_str(&rec, "dtype", "fp64");
  gcb_record_param_int(&rec, "m", 1024);
  rec.params[rec.nparams++] =
      (struct gcb_param){.key = "alpha", .type = GCB_PARAM_DOUBLE, .d = 0.1};
}

static void set_header(struct gcb_results *r) {
  struct gcb_err err = {0};
  cr_assert_eq(
      gcb_results_set(r, "run",
                      json_pack("{s:s, s:s, s:[s,s], s:s, s:n, s:s, "
                                "s:s, s:s, s:i, s:i}",
                                "id", "r1", "command", "run", "command_line",
                                "gcbench", "run", "start_time",
                                "2025-01-01T00:00:00Z", "end_time", "status",
                                "running", "backend", "host", "backend_reason",
                                "default", "ranks", 2, "nodes", 1),
                      &err),
      GCB_OK, "%s", err.msg);
  cr_assert_eq(
      gcb_results_set(r, "tool",
                      json_pack("{s:s, s:s, s:s}", "name", "gcbench", "version",
                                "0.1.0", "git_revision", "abc"),
                      &err),
      GCB_OK, "%s", err.msg);
}

/* A document with one record, one skip and one error. */
static struct gcb_results *full_document(void) {
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  cr_assert_not_null(r);
  set_header(r);
  build_record();
  cr_assert_eq(gcb_results_add_record(r, &rec, &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(gcb_results_add_skip(r, "nccl", "allreduce", "no GPU", &err),
               GCB_OK);
  cr_assert_eq(gcb_results_add_error(r, "membw", "triad", -1, GCB_ENOMEM,
                                     "cannot allocate", &err),
               GCB_OK);
  return r;
}

static struct gcb_results *write_and_read(const struct gcb_results *r,
                                          const char *name) {
  struct gcb_err err = {0};
  struct gcb_results *back = NULL;
  cr_assert_eq(gcb_results_write(r, in_tmp(name), &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(gcb_results_read(in_tmp(name), &back, &err), GCB_OK, "%s",
               err.msg);
  return back;
}

TestSuite(results_file, .init = make_tmpdir, .fini = remove_tmpdir);

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
  struct gcb_ranks pr;
  gcb_ranks_of(c, &pr);
  cr_assert_eq(pr.n, 2);
  double median0 = gcb_ranks_num(&pr, GCB_RC_FIG_MEDIAN, 0);
  double best0 = gcb_ranks_num(&pr, GCB_RC_FIG_BEST, 0);
  double worst0 = gcb_ranks_num(&pr, GCB_RC_FIG_WORST, 0);
  const char *method0 = gcb_ranks_str(&pr, GCB_RC_METHOD, 0), *label;
  json_t *method1 = json_array_get(pr.col[GCB_RC_METHOD], 1);
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
  cr_expect(json_is_null(method1));
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
  cr_assert_eq(gcb_results_read(DATA("results-valid.json"), &r, &err), GCB_OK,
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
  cr_expect_eq(gcb_results_read(DATA("no-such-file.json"), &r, &err),
               GCB_EINPUT);
  cr_expect(strstr(err.msg, DATA("no-such-file.json")) != NULL, "%s", err.msg);
  cr_expect_null(r);
}

Test(results_file, file_over_the_size_limit_is_refused_before_loading) {
  int fd = creat(in_tmp("huge.json"), 0644);
  cr_assert_geq(fd, 0);
  cr_assert_eq(ftruncate(fd, 300L << 20), 0); /* sparse: no disk used */
  close(fd);
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_results_read(in_tmp("huge.json"), &r, &err), GCB_EINPUT);
  cr_expect(strstr(err.msg, "too large (314572800 bytes, limit 256 MiB)") !=
                NULL,
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

/* Where the bad value starts in an edit's replacement text: after its
 * last ": " or ", ". */
static size_t value_offset(const char *to) {
  size_t off = 0;
  for (size_t i = 0; to[i] != '\0'; i++)
    if ((to[i] == ':' || to[i] == ',') && to[i + 1] == ' ')
      off = i + 2;
  return off;
}

/* One edit of a valid fixture that makes it invalid: the text `from`
 * becomes `to`, and the reader must say `what`, located at `at` or, when
 * it is NULL, at the value in `to`. */
struct edit {
  const char *from, *to, *what, *at;
};

static void expect_edits_refused(const char *fixture, const struct edit *edits,
                                 size_t n) {
  size_t vlen;
  char *valid = read_text(fixture, &vlen);
  for (size_t i = 0; i < n; i++) {
    const char *from = memfind(valid, vlen, edits[i].from);
    cr_assert_not_null(from, "row %zu: '%s' not in fixture", i, edits[i].from);
    size_t head = (size_t)(from - valid), flen = strlen(edits[i].from),
           tlen = strlen(edits[i].to), len = vlen - flen + tlen;
    char *text = malloc(len);
    memcpy(text, valid, head);
    memcpy(text + head, edits[i].to, tlen);
    memcpy(text + head + tlen, from + flen, vlen - head - flen);
    struct gcb_results *r = NULL;
    struct gcb_err err = {0};
    cr_expect_eq(gcb_results_parse(text, len, "edit.json", &r, &err),
                 GCB_EINPUT, "row %zu", i);
    cr_expect_null(r);
    if (edits[i].at != NULL)
      expect_located(&err, "edit.json", text, len, edits[i].at, 0,
                     edits[i].what);
    else
      expect_located(&err, "edit.json", text, len, edits[i].to,
                     (int)value_offset(edits[i].to), edits[i].what);
    gcb_results_free(r);
    free(text);
  }
  free(valid);
}

/* One edit of the valid fixture per row; the error must name the field and
 * point at the marker `at` (missing fields: the enclosing object) or, when
 * it is NULL, at the bad value in the replacement. */
Test(results_read, schema_violations_are_named_and_located) {
  static const struct edit edits[] = {
      {"\"status\": \"running\"", "\"status\": \"paused\"",
       "run.status: expected one of running, complete, failed, timeout, "
       "interrupted, got \"paused\"",
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

/* ---- schema 2: per-rank columns ------------------------------------------ */

Test(results_read, schema_1_documents_read_as_schema_2) {
  struct gcb_results *v1 = NULL, *v2 = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_results_read(DATA("results-valid.json"), &v1, &err), GCB_OK,
               "%s", err.msg);
  cr_assert_eq(gcb_results_read(DATA("results-valid-v2.json"), &v2, &err),
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
  struct gcb_ranks pr;
  gcb_ranks_of(
      json_array_get(json_object_get(gcb_results_json(back), "cases"), 0), &pr);
  cr_assert_eq(pr.n, 2);
  for (size_t i = 0; i < GCB_RC_COUNT; i++) {
    cr_expect_not_null(pr.col[i], "column %s.%s",
                       gcb_rank_columns[i].group ? gcb_rank_columns[i].group
                                                 : "",
                       gcb_rank_columns[i].field);
    cr_expect_eq(json_array_size(pr.col[i]), 2);
  }
  cr_expect_eq(gcb_ranks_int(&pr, GCB_RC_LATE_N, 0, -1), 4);
  cr_expect_eq(gcb_ranks_num(&pr, GCB_RC_LATE_MEAN, 0), 2e-6);
  cr_expect(json_is_null(json_array_get(pr.col[GCB_RC_LATE_MEAN], 1)),
            "rank 1 has no lateness samples");
  cr_expect(isnan(gcb_ranks_num(&pr, GCB_RC_LATE_MEAN, 1)));
  cr_expect_eq(gcb_ranks_find(&pr, 1), 1);
  cr_expect_eq(gcb_ranks_find(&pr, 7), -1);
  cr_expect_eq(gcb_ranks_int(&pr, GCB_RC_TELEM_SAMPLES, 0, -1), 12);
  cr_expect_eq(gcb_ranks_num(&pr, GCB_RC_TELEM_SM_MIN, 0), 1410);
  cr_expect_eq(gcb_ranks_num(&pr, GCB_RC_TELEM_POWER_MAX, 0), 700);
  cr_expect(isnan(gcb_ranks_num(&pr, GCB_RC_TELEM_TEMP_MAX, 0)),
            "a value NVML did not give is null");
  cr_expect_str_eq(gcb_ranks_str(&pr, GCB_RC_TELEM_THROTTLE, 0),
                   "sw_power_cap,hw_thermal");
  cr_expect(json_is_true(json_array_get(pr.col[GCB_RC_TELEM_SLOWED], 0)),
            "hw_thermal slows the GPU against the user's wishes");
  cr_expect(json_is_null(json_array_get(pr.col[GCB_RC_TELEM_SM_MEAN], 1)),
            "rank 1 has no telemetry");
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

/* The one definition of a sweep (reports/document/view.h): the sizes and
 * the in-place half of one collective sweep share a key; another type,
 * transport or bench does not. */
Test(sweep, sizes_and_halves_share_a_key_other_parameters_do_not) {
  json_t *a =
      json_pack("{s:s, s:s, s:s, s:{s:s, s:i, s:i, s:s, s:i}}", "bench", "coll",
                "backend", "nccl", "unit", "GB/s", "params", "op", "allreduce",
                "size", 1024, "count", 256, "type", "float", "inplace", 0);
  json_t *b = json_deep_copy(a);
  json_t *pb = json_object_get(b, "params");
  json_object_set_new(pb, "size", json_integer(1 << 20));
  json_object_set_new(pb, "count", json_integer(1 << 18));
  json_object_set_new(pb, "inplace", json_integer(1));
  json_t *other_type = json_deep_copy(a);
  json_object_set_new(json_object_get(other_type, "params"), "type",
                      json_string("half"));
  json_t *other_backend = json_deep_copy(a);
  json_object_set_new(other_backend, "backend", json_string("mpi"));
  char ka[GCB_VIEW_SWEEP_KEY], kb[GCB_VIEW_SWEEP_KEY], kt[GCB_VIEW_SWEEP_KEY],
      kx[GCB_VIEW_SWEEP_KEY];
  gcb_view_sweep_key(a, ka, sizeof ka);
  gcb_view_sweep_key(b, kb, sizeof kb);
  gcb_view_sweep_key(other_type, kt, sizeof kt);
  gcb_view_sweep_key(other_backend, kx, sizeof kx);
  cr_expect_str_eq(ka, kb);
  cr_expect_str_eq(ka, "coll op=allreduce type=float [GB/s] nccl");
  cr_expect_str_neq(ka, kt);
  cr_expect_str_neq(ka, kx);
  json_decref(a);
  json_decref(b);
  json_decref(other_type);
  json_decref(other_backend);
}
