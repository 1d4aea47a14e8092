/*
 * Tests for the per-rank columns of a document read (reports/document/
 * ranks.h, read_lex.c, read.c): whichever road reads a document, its
 * columns are the per_rank objects json_loadb reads, value for value;
 * a per_rank missing a column the schema requires is worded the same on
 * both roads; gcb_results_plain gives json_loadb's tree back; and a
 * document read is written back as the document it was.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "reports/document/ranks.h"
#include "reports/document/results_int.h"
#include "tests/reports/results_read.h"

static char *read_text(const char *path, size_t *len) {
  char *text = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_file_read(path, GCB_FILE_MAX_BYTES, &text, len, &err),
               GCB_OK, "%s", err.msg);
  return text;
}

static json_t *jansson(const char *text, size_t len) {
  json_error_t je;
  json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
  cr_assert_not_null(v, "%s", je.text);
  return v;
}

static char *dump(const json_t *v) {
  return json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17));
}

/* Documents gcbench and the converters wrote (in rank order, as a read
 * document is kept), schema 1 included: each case's columns are
 * json_loadb's per_rank, and gcb_results_plain gives json_loadb's tree
 * (schema 1 upgraded; per_rank as gcb_ranks_json writes it: a column of
 * numbers as reals, even where the file wrote an integer). */
Test(read_columns, columns_are_what_json_loadb_reads) {
  static const char *const files[] = {
      GCB_TEST_DATA "/results-valid-v2.json",
      GCB_TEST_DATA "/report-gpu8.json",
      GCB_TEST_DATA "/report-fixture.json",
      GCB_TEST_DATA "/results-valid.json",
  };
  for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
    size_t len;
    char *text = read_text(files[f], &len);
    struct gcb_results *r = NULL;
    struct gcb_err err = {0};
    cr_assert_eq(gcb_results_parse(text, len, files[f], &r, &err), GCB_OK, "%s",
                 err.msg);
    json_t *want = jansson(text, len);
    json_t *cases = json_object_get(want, "cases"), *c;
    size_t i;
    json_array_foreach(cases, i, c) {
      json_t *pr = json_object_get(c, "per_rank");
      if (json_is_array(pr)) /* schema 1 */
        json_object_set_new(c, "per_rank", pr = gcb_ranks_from_rows(pr));
      const struct gcb_ranks *got = gcb_results_ranks(r, i);
      cr_assert_not_null(got, "%s: case %zu", files[f], i);
      cr_expect(gcb__ranks_equal_json(got, pr), "%s: case %zu", files[f], i);
      json_object_set_new(c, "per_rank", gcb_ranks_json(got));
      cr_expect_eq(
          json_object_size(json_object_get(
              json_array_get(json_object_get(gcb_results_json(r), "cases"), i),
              "per_rank")),
          0, "the tree holds {} for them");
    }
    json_object_set_new(want, "schema", json_string(GCB_RESULTS_SCHEMA));
    cr_assert_eq(gcb_results_plain(r, &err), GCB_OK);
    cr_expect_null(gcb_results_ranks(r, 0));
    char *a = dump(gcb_results_json(r)), *b = dump(want);
    cr_expect_str_eq(a, b, "%s", files[f]);
    free(a);
    free(b);
    json_decref(want);
    gcb_results_free(r);
    free(text);
  }
}

/* Both messages for a document without what the edit removed: the quick
 * road's, and jansson's road's (taken for a column the quick road does
 * not know, which the schema lets be, after the place the message
 * names). */
static void expect_worded_alike(json_t *doc, json_t *pr, const char *what) {
  char *text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
  json_object_set_new(pr, "zz", json_pack("[i, i]", 1, 2));
  char *slow = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
  struct gcb_results *r = NULL;
  struct gcb_err ef = {0}, es = {0};
  cr_expect_eq(gcb_results_parse(text, strlen(text), "b.json", &r, &ef),
               GCB_EINPUT, "%s", what);
  cr_expect_eq(gcb_results_parse(slow, strlen(slow), "b.json", &r, &es),
               GCB_EINPUT, "%s", what);
  cr_expect_str_eq(ef.msg, es.msg, "%s", what);
  cr_expect(strstr(ef.msg, "missing required field") != NULL, "%s: %s", what,
            ef.msg);
  cr_expect_null(r);
  free(slow);
  free(text);
}

Test(read_columns, missing_columns_are_worded_alike_on_both_roads) {
  static const char *const removed[][2] = {
      {NULL, "figure"},  {"figure", "best"},   {"validation", "method"},
      {"time_s", "p99"}, {NULL, "validation"}, {"late_s", "min"},
      {"late_s", "p99"},
  };
  size_t len;
  char *text = read_text(GCB_TEST_DATA "/results-valid-v2.json", &len);
  for (size_t e = 0; e < sizeof removed / sizeof *removed; e++) {
    json_t *doc = jansson(text, len);
    json_t *pr = json_object_get(
        json_array_get(json_object_get(doc, "cases"), 0), "per_rank");
    /* a lateness group, whole, for its columns to be taken from */
    json_t *late = json_object();
    static const char *const late_fields[] = {"n",   "min",   "median", "mean",
                                              "max", "stdev", "p99"};
    for (size_t k = 0; k < 7; k++)
      json_object_set_new(late, late_fields[k], json_pack("[i, i]", 1, 2));
    json_object_set_new(pr, "late_s", late);
    json_t *holder =
        removed[e][0] != NULL ? json_object_get(pr, removed[e][0]) : pr;
    cr_assert_eq(json_object_del(holder, removed[e][1]), 0);
    expect_worded_alike(doc, pr, removed[e][1]);
    json_decref(doc);
  }
  free(text);
}

/* A document read and written back, read and written again: the same
 * bytes both times, and the columns json_loadb reads in the file. */
Test(read_columns, written_back_as_read) {
  size_t len;
  char *text = read_text(GCB_TEST_DATA "/report-gpu8.json", &len);
  struct gcb_results *r = NULL, *back = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_results_parse(text, len, "a.json", &r, &err), GCB_OK);
  char dir[] = "/tmp/gcb-columns-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char one[64], two[64];
  snprintf(one, sizeof one, "%s/one.json", dir);
  snprintf(two, sizeof two, "%s/two.json", dir);
  cr_assert_eq(gcb_results_write(r, one, &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(fx_results_read(one, &back, &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(gcb_results_write(back, two, &err), GCB_OK, "%s", err.msg);
  size_t l1, l2;
  char *b1 = read_text(one, &l1), *b2 = read_text(two, &l2);
  cr_expect(l1 == l2 && memcmp(b1, b2, l1) == 0, "the same bytes");
  json_t *written = jansson(b1, l1), *c;
  size_t i;
  json_array_foreach(json_object_get(written, "cases"), i, c) {
    cr_expect(gcb__ranks_equal_json(gcb_results_ranks(r, i),
                                    json_object_get(c, "per_rank")),
              "case %zu", i);
  }
  json_decref(written);
  remove(one);
  remove(two);
  remove(dir);
  free(b1);
  free(b2);
  gcb_results_free(back);
  gcb_results_free(r);
  free(text);
}
