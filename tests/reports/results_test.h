/*
 * What the tests of the results document share (test_results.c,
 * test_results_columns.c): a temporary directory, files read whole, the
 * position of a marker computed independently of the scanner under test,
 * a record and a document to build from, and the table of edits that
 * make a valid fixture invalid.
 */
#ifndef GCB_TEST_RESULTS_H
#define GCB_TEST_RESULTS_H

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
#include "tests/reports/results_read.h"

#define DATA(name) GCB_TEST_DATA "/" name

/* ---- helpers ------------------------------------------------------------ */

static __attribute__((unused)) char tmpdir[64];

static inline void make_tmpdir(void) {
  strcpy(tmpdir, "/tmp/gcb-test-results-XXXXXX");
  cr_assert_not_null(mkdtemp(tmpdir));
}

static inline void remove_tmpdir(void) {
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

static inline const char *in_tmp(const char *name) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  return path;
}

/* Names in tmpdir, sorted and joined with spaces ("" when empty). */
static inline void list_tmpdir(char *out, size_t size) {
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
static inline char *read_text(const char *path, size_t *len) {
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

static inline const char *memfind(const char *text, size_t len,
                                  const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; n <= len && i <= len - n; i++)
    if (memcmp(text + i, needle, n) == 0)
      return text + i;
  return NULL;
}

/* Line and character column of text[off], counted like jansson. */
static inline void position(const char *text, size_t off, int *line, int *col) {
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
static inline void expect_located(const struct gcb_err *err, const char *name,
                                  const char *text, size_t len,
                                  const char *marker, int skip,
                                  const char *what) {
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
static inline void expect_bad_file(const char *name, const char *marker,
                                   int skip, const char *what) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, name);
  size_t len;
  char *text = read_text(path, &len);
  struct gcb_results *r = (struct gcb_results *)&r;
  struct gcb_err err = {0};
  cr_expect_eq(fx_results_read(path, &r, &err), GCB_EINPUT, "%s", err.msg);
  cr_expect_null(r);
  cr_expect_eq(err.code, GCB_EINPUT);
  expect_located(&err, path, text, len, marker, skip, what);
  free(text);
}

/* Two ranks with values that do not survive rounding to fewer than 17
 * significant digits, a failed validation and a NULL method. */
static __attribute__((unused)) struct gcb_rank_result ranks[2];
static __attribute__((unused)) struct gcb_record rec;

static inline void build_record(void) {
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

static inline void set_header(struct gcb_results *r) {
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
static inline struct gcb_results *full_document(void) {
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

static inline struct gcb_results *write_and_read(const struct gcb_results *r,
                                                 const char *name) {
  struct gcb_err err = {0};
  struct gcb_results *back = NULL;
  cr_assert_eq(gcb_results_write(r, in_tmp(name), &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(fx_results_read(in_tmp(name), &back, &err), GCB_OK, "%s",
               err.msg);
  return back;
}

TestSuite(results_file, .init = make_tmpdir, .fini = remove_tmpdir);

/* Where the bad value starts in an edit's replacement text: after its
 * last ": " or ", ". */
static inline size_t value_offset(const char *to) {
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

static inline void expect_edits_refused(const char *fixture,
                                        const struct edit *edits, size_t n) {
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

#endif
