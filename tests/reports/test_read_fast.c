/*
 * Tests for the quick road of the results reader (reports/document/
 * read_fast.c): it builds the tree json_loadb builds, number for number
 * (every double bit for bit what strtod gives, integers, signed zeros,
 * exponents), takes the documents gcbench writes, gives up on what it
 * does not know so that jansson words the problem, and the size limit
 * that follows the document's shape.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "reports/document/ranks.h"
#include "reports/document/results_int.h"

static bool any_size(size_t len, size_t entries) {
  (void)len, (void)entries;
  return true;
}

static json_t *jansson(const char *text) {
  json_error_t je;
  return json_loads(text, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
}

/* The dump of both trees, which tells -0.0 from 0 and 1 from 1.0; with
 * compact columns (every column the table gives a numeric or boolean
 * kind, from one element up), expanded back to arrays first. */
static void expect_same_tree_with(const char *text, const char *what,
                                  size_t compact_min) {
  json_t *fast = NULL;
  size_t entries = 0;
  cr_assert(gcb__read_fast(text, strlen(text), any_size, compact_min, &fast,
                           &entries),
            "%s: the quick road gave up", what);
  cr_assert_eq(gcb__ranks_expand_document(fast), 0);
  json_t *slow = jansson(text);
  cr_assert_not_null(slow, "%s", what);
  char *a = json_dumps(fast, JSON_COMPACT | JSON_REAL_PRECISION(17));
  char *b = json_dumps(slow, JSON_COMPACT | JSON_REAL_PRECISION(17));
  cr_expect_str_eq(a, b, "%s", what);
  free(a);
  free(b);
  json_decref(fast);
  json_decref(slow);
}

static void expect_same_tree(const char *text, const char *what) {
  expect_same_tree_with(text, what, SIZE_MAX);
  expect_same_tree_with(text, what, 1);
}

static const char *const doc_head = "{\"schema\": \"gcbench.results/2\", "
                                    "\"cases\": [{\"bench\": \"x\", "
                                    "\"per_rank\": {\"rank\": [";
static const char *const doc_tail = "]}}]}";

static char *doc_with(const char *elements) {
  size_t n = strlen(doc_head) + strlen(elements) + strlen(doc_tail) + 1;
  char *s = malloc(n);
  snprintf(s, n, "%s%s%s", doc_head, elements, doc_tail);
  return s;
}

Test(read_fast, numbers_are_what_strtod_and_jansson_make_of_them) {
  static const char *const numbers =
      "0, -0, 1, -1, 123456789012345678, -0.0, 0.0, 1.5, -2.25e-3, 1E5, "
      "2e+2, 0.1, 0.30000000000000004, 1.7976931348623157e308, "
      "4.9406564584124654e-324, 2.2250738585072014e-308, 1e-400, "
      "9007199254740993, 12345678901234567890123456789.5, "
      "0.000012345678901234567, 1.2345678901234567e-05, 380.12345678901234, "
      "1e22, 1e23, 8.589973e9, 0.1e-30, 5e-324, 1234567890123456789e-10, "
      /* ties past 2^53, to even either way, and just off them */
      "9007199254740993.0, 9007199254740995.0, 9007199254740993e0, "
      "18014398509481985e0, 18014398509481986e0, 18014398509481990e0, "
      "1.8014398509481990e16, 9007199254740993.0000001, "
      "9007199254740992.9999999, 1.2345678901234567e27, "
      "1.2345678901234567e-27, 9999999999999999999e-27";
  char *text = doc_with(numbers);
  expect_same_tree(text, "edge numbers");
  free(text);
}

/* How many of the N comma-separated numbers of elements the quick road
 * reads otherwise than strtod (bit for bit, integer or real as jansson). */
static size_t differ_from_strtod(const char *elements, size_t n) {
  char *text = doc_with(elements);
  json_t *fast = NULL;
  size_t entries = 0;
  cr_assert(
      gcb__read_fast(text, strlen(text), any_size, SIZE_MAX, &fast, &entries));
  cr_expect_eq(entries, n);
  json_t *col = json_object_get(
      json_object_get(json_array_get(json_object_get(fast, "cases"), 0),
                      "per_rank"),
      "rank");
  const char *p = elements;
  size_t wrong = 0;
  for (size_t i = 0; i < n; i++) {
    char *end;
    double want = strtod(p, &end);
    bool integer = strcspn(p, ".eE,") == strcspn(p, ",");
    const json_t *v = json_array_get(col, i);
    double got = json_number_value(v);
    if (integer != json_is_integer(v) || memcmp(&got, &want, sizeof got) != 0)
      wrong++;
    p = end + (*end == ',');
  }
  json_decref(fast);
  free(text);
  return wrong;
}

/* Random doubles written as gcbench (%.17g) and Python (shortest) write
 * them: every one read back bit for bit as strtod reads it. */
Test(read_fast, a_hundred_thousand_random_doubles_bit_for_bit) {
  enum { N = 100000 };
  char *elements = malloc((size_t)N * 32);
  size_t at = 0;
  unsigned long long x = 88172645463325252ull;
  for (int i = 0; i < N; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double d = (double)(x >> 11) / 9007199254740992.0 *
               pow(10.0, (double)(int)(x % 40) - 20);
    const char *fmt = i % 3 == 0 ? "%.17g" : i % 3 == 1 ? "%.15g" : "%.16g";
    at += (size_t)snprintf(elements + at, 32, fmt, d);
    elements[at++] = i + 1 < N ? ',' : '\0';
  }
  size_t wrong = differ_from_strtod(elements, N);
  cr_expect_eq(wrong, 0, "%zu of %d numbers differ from strtod", wrong, N);
  free(elements);
}

/* Decimals of 16 to 19 digits (past 2^53: the 128-bit road) with every
 * exponent from -30 to 30, as fractions and with exponents, and the
 * digits of doubles' halfway points cut to 19: bit for bit strtod's. */
Test(read_fast, long_decimals_past_two_to_the_53_bit_for_bit) {
  enum { N = 100000 };
  char *elements = malloc((size_t)N * 48);
  size_t at = 0;
  unsigned long long x = 2463534242ull;
  for (int i = 0; i < N; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int digits = 16 + (int)(x % 4), e = (int)((x >> 8) % 61) - 30;
    unsigned long long w = x >> 1;
    while (w >= 10000000000000000000ull ||
           w / 1000000000000000ull >= (digits == 16   ? 10ull
                                       : digits == 17 ? 100ull
                                       : digits == 18 ? 1000ull
                                                      : 10000ull))
      w /= 10;
    if (i % 4 == 3) { /* a double's neighbour written with 19 digits */
      double d = ldexp((double)((x >> 11) | 1ull << 52), e - 60);
      char buf[64];
      snprintf(buf, sizeof buf, "%.18e", nextafter(d, INFINITY));
      at += (size_t)snprintf(elements + at, 48, "%s", buf);
    } else if (i % 2)
      at += (size_t)snprintf(elements + at, 48, "%llue%d", w, e);
    else
      at += (size_t)snprintf(elements + at, 48, "%llu.%03llue%d", w / 1000,
                             w % 1000, e);
    elements[at++] = i + 1 < N ? ',' : '\0';
  }
  size_t wrong = differ_from_strtod(elements, N);
  cr_expect_eq(wrong, 0, "%zu of %d numbers differ from strtod", wrong, N);
  free(elements);
}

Test(read_fast, documents_gcbench_writes_are_taken_and_built_the_same) {
  char *text = NULL;
  size_t len = 0;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_file_read(GCB_TEST_DATA "/results-valid-v2.json",
                             GCB_FILE_MAX_BYTES, &text, &len, &err),
               GCB_OK, "%s", err.msg);
  expect_same_tree(text, "results-valid-v2.json");
  free(text);
  /* Groups, strings, booleans, nulls; a repeated value shared. */
  expect_same_tree("{\"cases\": [{\"per_rank\": {\"rank\": [0, 1, 2], "
                   "\"validation\": {\"method\": [\"a b\", \"a b\", null], "
                   "\"checked\": [true, false, true]}, \"time_s\": {\"n\": "
                   "[20, 20, 20], \"min\": [1e-6, 1e-6, 2e-6]}}}, {}]}",
                   "columns of every kind");
}

/* A literal between two elements written alike: each keeps its own
 * value. The element after a null, true or false was compared with the
 * text of the element before the literal and given the literal (rank 2's
 * late_mean_s, sm_clock and throttle_reasons read as null), in a column
 * read as an array (a short one, or one of a kind the table does not
 * make compact). */
Test(read_fast, a_literal_between_elements_written_alike_changes_neither) {
  static const char *const columns[] = {
      "[0.5, null, 0.5]",     "[7, null, 7]",          "[7, true, 7]",
      "[7, false, 7]",        "[true, null, true]",    "[\"a\", null, \"a\"]",
      "[1e-3, true, 1e-3]",   "[0, null, 0, null, 0]", "[-0.0, false, -0.0]",
      "[\"a\", true, \"a\"]",
  };
  static const char *const keys[] = {"late_mean_s", "sm_clock",
                                     "throttle_reasons", "x"};
  for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
    for (size_t i = 0; i < sizeof columns / sizeof *columns; i++) {
      char text[512], what[128];
      snprintf(text, sizeof text,
               "{\"cases\": [{\"per_rank\": {\"rank\": [0, 1, 2], "
               "\"%s\": %s, \"time_s\": {\"mean\": %s}, \"late_s\": "
               "{\"mean\": %s}}}]}",
               keys[k], columns[i], columns[i], columns[i]);
      snprintf(what, sizeof what, "%s: %s", keys[k], columns[i]);
      expect_same_tree(text, what);
    }
}

/* Whatever it does not know, it leaves to jansson (false): the caller
 * then parses with json_loadb, whose message is the one users see. */
Test(read_fast, gives_up_on_what_jansson_must_word) {
  static const char *const texts[] = {
      "{\"cases\": [{\"per_rank\": {\"rank\": [01]}}]}",
      "{\"cases\": [{\"per_rank\": {\"rank\": [1.]}}]}",
      "{\"cases\": [{\"per_rank\": {\"rank\": [1e999]}}]}",
      "{\"cases\": [{\"per_rank\": {\"rank\": [99999999999999999999]}}]}",
      "{\"cases\": [{\"per_rank\": {\"rank\": [1], \"rank\": [2]}}]}",
      "{\"cases\": [{\"per_rank\": {\"m\": [\"caf\\u00e9\"]}}]}",
      "{\"cases\": [{\"per_rank\": {\"m\": [\"caf\xc3\xa9\"]}}]}",
      "{\"cases\": [{\"per_rank\": [{\"rank\": 0}]}]}",
      "{\"cases\": [{\"per_rank\": {\"rank\": [1, 2}}]}",
      "{\"cases\": [{\"per_rank\": {\"rank\": [1]}, \"per_rank\": {}}]}",
      "{\"cases\": [{\"per_rank\": {\"rank\": [1]}}], \"x\": [}",
      "{\"cases\": [{\"per_rank\": {\"rank\": [truex]}}]}",
      "[1, 2]",
      "",
  };
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    json_t *root = (json_t *)1;
    size_t entries = 0;
    cr_expect(!gcb__read_fast(texts[i], strlen(texts[i]), any_size, SIZE_MAX,
                              &root, &entries),
              "%s", texts[i]);
    cr_expect_null(root, "%s", texts[i]);
  }
}

/* text without its '@' marks, but for the one at `keep`, which becomes a
 * NUL byte (none when keep is past the text); *len: its length. */
static char *with_nul_at(const char *text, size_t keep, size_t *len) {
  char *t = malloc(strlen(text) + 1), *w = t;
  for (const char *p = text; *p; p++)
    if (*p != '@' || (size_t)(p - text) == keep)
      *w++ = *p == '@' ? '\0' : *p;
  *len = (size_t)(w - t);
  return t;
}

/* A NUL byte outside a string, which jansson drops after a number or a
 * literal, makes the quick road give up wherever it is (the reader looks
 * for one on jansson's road only: read.c); without it the text is taken.
 * The marks: skipped values, a column (compact or not), a topology. */
Test(read_fast, a_nul_byte_anywhere_gives_up) {
  static const char text[] =
      "{\"cases\": [{\"iterations\": 20@, \"ok\": true@, \"per_rank\": "
      "{\"rank\": [1@, 2], \"x\": [null@], \"late_s\": {\"n\": [3@]}}}], "
      "\"nodes\": [{\"topology\": {\"n\": 1@}}]@}";
  static const size_t compact_from[] = {1, SIZE_MAX};
  size_t marks = 0, len;
  for (size_t at = 0; at <= sizeof text; at++) {
    if (at < sizeof text && text[at] != '@')
      continue;
    char *t = with_nul_at(text, at, &len);
    for (size_t k = 0; k < 2; k++) {
      json_t *root = NULL;
      size_t entries = 0;
      bool taken =
          gcb__read_fast(t, len, any_size, compact_from[k], &root, &entries);
      cr_expect_eq(taken, at == sizeof text, "mark %zu, compact from %zu",
                   marks, compact_from[k]);
      json_decref(root);
    }
    free(t);
    marks++;
  }
  cr_expect_eq(marks, 8);
}

/* Over 256 MiB a document must have the per-rank entries to show for
 * it; a file of nothing is refused with the limit of an empty one. */
Test(read_fast, size_limit_follows_the_shape) {
  size_t len = GCB_FILE_MAX_BYTES + (1 << 20);
  char *text = malloc(len);
  memset(text, ' ', len);
  memcpy(text, "{}", 2);
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_results_parse(text, len, "big.json", &r, &err), GCB_EINPUT);
  cr_expect(strstr(err.msg, "big.json: too large (269484032 bytes, limit "
                            "256 MiB)") != NULL,
            "%s", err.msg);
  /* One entry does not make room for another MiB: 2 KiB per entry. */
  char *doc = doc_with("0");
  size_t dl = strlen(doc);
  memcpy(text, doc, dl);
  memset(text + dl, ' ', len - dl);
  cr_expect_eq(gcb_results_parse(text, len, "one.json", &r, &err), GCB_EINPUT);
  cr_expect(strstr(err.msg, "one.json: too large (269484032 bytes, limit 256 "
                            "MiB for its 1 per-rank entries") != NULL,
            "%s", err.msg);
  free(doc);
  free(text);
  cr_expect_null(r);
}

/* Nodes whose topology is written byte for byte alike share one parsed
 * value; one written otherwise (even only a -0.0 for a 0.0, which
 * json_equal would call equal) has its own; the tree dumps as jansson's. */
Test(read_fast, topologies_written_alike_are_shared) {
  static const char text[] =
      "{\"nodes\": [{\"index\": 0, \"topology\": {\"gpus\": [{\"bw\": 0.0}]}},"
      " {\"index\": 1, \"topology\": {\"gpus\": [{\"bw\": 0.0}]}},"
      " {\"index\": 2, \"topology\": {\"gpus\": [{\"bw\": -0.0}]}},"
      " {\"index\": 3, \"topology\": null}, {\"index\": 4},"
      " {\"index\": 5, \"topology\": {\"gpus\": [{\"bw\": 0.0}]}}],"
      " \"cases\": [{\"per_rank\": {\"rank\": [0]}}]}";
  json_t *fast = NULL;
  size_t entries = 0;
  cr_assert(
      gcb__read_fast(text, strlen(text), any_size, SIZE_MAX, &fast, &entries));
  const json_t *nodes = json_object_get(fast, "nodes");
  const json_t *t[6];
  for (size_t i = 0; i < 6; i++)
    t[i] = json_object_get(json_array_get(nodes, i), "topology");
  cr_expect(t[0] == t[1] && t[0] == t[5], "written alike: one value");
  cr_expect(t[2] != t[0], "-0.0 is not 0.0");
  cr_expect(json_is_null(t[3]));
  cr_expect_null(t[4]);
  json_decref(fast);
  expect_same_tree(text, "topologies");
  /* a topology jansson refuses: the whole text goes to jansson */
  static const char bad[] =
      "{\"nodes\": [{\"topology\": {\"a\": 1, \"a\": 2}}], \"cases\": "
      "[{\"per_rank\": {\"rank\": [0]}}]}";
  cr_expect(
      !gcb__read_fast(bad, strlen(bad), any_size, SIZE_MAX, &fast, &entries));
  cr_expect_null(fast);
}
