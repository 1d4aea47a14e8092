/*
 * Tests for compact per-rank columns (reports/document/ranks_compact.c and
 * the reader's road to them in read_fast.c): a document read with its
 * columns compact gives, through every gcb_ranks_* accessor, bit for bit
 * the values of the same document read by json_loadb (numbers, -0.0,
 * integers, booleans, nulls, strings, values shared, past the end); the
 * schema words a wrong column as it always did; the order a shuffled
 * document is put in is the same; and documents of 256 ranks or more are
 * read compact by gcb_results_parse itself.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
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
  json_t *v = json_loads(text, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
  cr_assert_not_null(v, "%s", je.text);
  return v;
}

/* How many of the document's columns are compact. */
static size_t compact_columns(const json_t *root) {
  size_t n = 0, i;
  const json_t *c;
  json_array_foreach(json_object_get(root, "cases"), i, c) {
    struct gcb_ranks r;
    gcb_ranks_of(c, &r);
    for (size_t k = 0; k < GCB_RC_COUNT; k++)
      n += r.store[k] != GCB_RS_JSON;
  }
  return n;
}

/* Every accessor on every column of every case, ranks 0..n (n: past the
 * end), the same on both trees, bit for bit. */
static void expect_same_values(const json_t *a, const json_t *b,
                               const char *what) {
  const json_t *ca = json_object_get(a, "cases"),
               *cb = json_object_get(b, "cases");
  cr_assert_eq(json_array_size(ca), json_array_size(cb), "%s", what);
  for (size_t c = 0; c < json_array_size(ca); c++) {
    struct gcb_ranks ra, rb;
    gcb_ranks_of(json_array_get(ca, c), &ra);
    gcb_ranks_of(json_array_get(cb, c), &rb);
    cr_assert_eq(ra.n, rb.n, "%s: case %zu", what, c);
    cr_expect_eq(gcb_ranks_count(json_array_get(ca, c)),
                 gcb_ranks_count(json_array_get(cb, c)));
    for (size_t k = 0; k < GCB_RC_COUNT; k++) {
      enum gcb_rank_col col = (enum gcb_rank_col)k;
      cr_expect_eq(ra.col[k] == NULL, rb.col[k] == NULL,
                   "%s: case %zu column %s", what, c,
                   gcb_rank_columns[k].field);
      cr_expect_eq(gcb_ranks_column_size(ra.col[k]),
                   gcb_ranks_column_size(rb.col[k]));
      for (size_t i = 0; i <= ra.n; i++) {
        double x = gcb_ranks_num(&ra, col, i), y = gcb_ranks_num(&rb, col, i);
        cr_expect(memcmp(&x, &y, sizeof x) == 0,
                  "%s: case %zu %s.%s[%zu]: %.17g, %.17g", what, c,
                  gcb_rank_columns[k].group ? gcb_rank_columns[k].group : "",
                  gcb_rank_columns[k].field, i, x, y);
        cr_expect_eq(gcb_ranks_int(&ra, col, i, -77),
                     gcb_ranks_int(&rb, col, i, -77), "%s: case %zu %s[%zu]",
                     what, c, gcb_rank_columns[k].field, i);
        cr_expect_str_eq(gcb_ranks_str(&ra, col, i),
                         gcb_ranks_str(&rb, col, i));
        cr_expect_eq(gcb_ranks_true(&ra, col, i), gcb_ranks_true(&rb, col, i),
                     "%s: case %zu %s[%zu]", what, c, gcb_rank_columns[k].field,
                     i);
      }
    }
    for (size_t i = 0; i <= ra.n; i++) {
      cr_expect_eq(gcb_ranks_checked(&ra, i), gcb_ranks_checked(&rb, i));
      cr_expect_eq(gcb_ranks_rank(&ra, i), gcb_ranks_rank(&rb, i));
      long long rank = gcb_ranks_rank(&rb, i);
      cr_expect_eq(gcb_ranks_find(&ra, rank), gcb_ranks_find(&rb, rank));
    }
  }
}

/* Both dumps of a document, its compact columns expanded. */
static void expect_same_dump(json_t *compact, const json_t *plain,
                             const char *what) {
  cr_assert_eq(gcb__ranks_expand_document(compact), 0);
  cr_expect_eq(compact_columns(compact), 0);
  char *a = json_dumps(compact, JSON_COMPACT | JSON_REAL_PRECISION(17));
  char *b = json_dumps(plain, JSON_COMPACT | JSON_REAL_PRECISION(17));
  cr_expect_str_eq(a, b, "%s", what);
  free(a);
  free(b);
}

/* Every kind of column, with nulls, -0.0, a value repeated, strings, a
 * column the table does not name, a group the table does not name, an
 * integer among reals (kept an array) and an empty case. */
static const char kinds[] =
    "{\"cases\": [{\"per_rank\": {\"rank\": [3, 0, 2, 1],"
    " \"time_s\": {\"n\": [20, 20, 20, 21], \"min\": [1e-6, -0.0, 0.0, 2.5],"
    " \"median\": [1.5, 1.5, 1.5, 1.7976931348623157e308]},"
    " \"figure_time_s\": [null, 4.9406564584124654e-324, null, 0.1],"
    " \"late_s\": {\"n\": [null, 5, null, -3], \"mean\": [null, null, 1e-7, "
    "2e-7]},"
    " \"validation\": {\"checked\": [true, false, true, true],"
    " \"samples\": [64, 64, 0, 123456789012345678],"
    " \"max_error\": [0.5, null, 1e-300, 0], \"tolerance\": [1e-3, 1e-3, 1e-3, "
    "1e-3],"
    " \"method\": [\"a b\", \"a b\", null, \"x\"]},"
    " \"telemetry\": {\"slowed\": [null, true, false, null],"
    " \"too_short\": [true, true, null, false],"
    " \"throttle_reasons\": [null, \"\", \"hw\", null],"
    " \"samples\": [1, null, 2, null]},"
    " \"extra\": [1.5, 2.5, 3.5, 4.5], \"other\": {\"x\": [1, 2, 3, 4]}}},"
    " {\"per_rank\": {\"rank\": []}}, {\"bench\": \"nothing\"}]}";

Test(ranks_compact, every_kind_reads_as_jansson_reads_it) {
  json_t *fast = NULL;
  size_t entries = 0;
  cr_assert(gcb__read_fast(kinds, strlen(kinds), any_size, 1, &fast, &entries));
  cr_expect_eq(entries, 4);
  json_t *slow = jansson(kinds);
  /* rank, time_s 3, figure_time_s, late_s 2, checked, samples, tolerance,
   * slowed, too_short, telemetry samples: compact; max_error (an integer
   * among reals), strings, columns the table does not name: arrays */
  cr_expect_eq(compact_columns(fast), 13);
  struct gcb_ranks r;
  gcb_ranks_of(json_array_get(json_object_get(fast, "cases"), 0), &r);
  cr_expect_eq(r.store[GCB_RC_FIGURE_TIME], GCB_RS_REAL);
  cr_expect_eq(r.store[GCB_RC_LATE_N], GCB_RS_INT);
  cr_expect_eq(r.store[GCB_RC_TELEM_SLOWED], GCB_RS_BOOL);
  cr_expect_eq(r.store[GCB_RC_MAX_ERROR], GCB_RS_JSON);
  cr_expect_eq(r.store[GCB_RC_METHOD], GCB_RS_JSON);
  expect_same_values(fast, slow, "kinds");
  expect_same_dump(fast, slow, "kinds");
  json_decref(fast);
  json_decref(slow);
}

/* Random doubles (%.17g, and shortest-like %.15g/%.16g) in a column of
 * reals: compact, and each one what strtod reads, bit for bit. */
Test(ranks_compact, random_doubles_bit_for_bit_with_strtod) {
  enum { N = 50000 };
  char *text = malloc((size_t)N * 40 + 256);
  size_t at = (size_t)sprintf(text, "{\"cases\": [{\"per_rank\": "
                                    "{\"figure_time_s\": [");
  unsigned long long x = 88172645463325252ull;
  double *want = malloc(N * sizeof *want);
  for (int i = 0; i < N; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double d = (double)(x >> 11) / 9007199254740992.0 *
               pow(10.0, (double)(int)(x % 40) - 20);
    const char *fmt = i % 3 == 0 ? "%.17g" : i % 3 == 1 ? "%.15g" : "%.16g";
    char num[40];
    snprintf(num, sizeof num, fmt, d);
    if (strcspn(num, ".e") == strlen(num))
      strcat(num, ".0"); /* a real as JSON writes one */
    want[i] = strtod(num, NULL);
    at += (size_t)sprintf(text + at, "%s%s", num, i + 1 < N ? "," : "");
  }
  strcpy(text + at, "]}}]}");
  json_t *fast = NULL;
  size_t entries = 0;
  cr_assert(gcb__read_fast(text, strlen(text), any_size, 1, &fast, &entries));
  struct gcb_ranks r;
  gcb_ranks_of(json_array_get(json_object_get(fast, "cases"), 0), &r);
  cr_assert_eq(r.store[GCB_RC_FIGURE_TIME], GCB_RS_REAL);
  cr_assert_eq(r.len[GCB_RC_FIGURE_TIME], N);
  size_t wrong = 0;
  for (size_t i = 0; i < N; i++) {
    double got = gcb_ranks_num(&r, GCB_RC_FIGURE_TIME, i);
    wrong += memcmp(&got, &want[i], sizeof got) != 0;
  }
  cr_expect_eq(wrong, 0, "%zu of %d differ from strtod", wrong, N);
  json_decref(fast);
  free(want);
  free(text);
}

static char *read_text(const char *path, size_t *len) {
  char *text = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_file_read(path, GCB_FILE_MAX_BYTES, &text, len, &err),
               GCB_OK, "%s", err.msg);
  return text;
}

/* A results document (validated, ordered) read both ways. */
static void parse_both(const char *text, size_t len, struct gcb_results **c,
                       struct gcb_results **p) {
  struct gcb_err err = {0};
  cr_assert_eq(gcb__results_parse_compact(text, len, "c.json", 1, c, &err),
               GCB_OK, "%s", err.msg);
  cr_assert_eq(
      gcb__results_parse_compact(text, len, "p.json", SIZE_MAX, p, &err),
      GCB_OK, "%s", err.msg);
}

/* Each array of per_rank and of its groups replaced by what f makes of
 * it (named by its key). */
static void for_each_column(json_t *pr,
                            json_t *(*f)(const char *key, const json_t *col,
                                         const void *arg),
                            const void *arg) {
  const char *k, *k2;
  json_t *v, *w;
  void *t, *t2;
  json_object_foreach_safe(pr, t, k, v) {
    if (json_is_array(v)) {
      json_object_set_new(pr, k, f(k, v, arg));
      continue;
    }
    json_t *group = v;
    json_object_foreach_safe(group, t2, k2, w) {
      if (json_is_array(w))
        json_object_set_new(group, k2, f(k2, w, arg));
    }
  }
}

static json_t *reversed(const char *key, const json_t *col, const void *arg) {
  (void)key, (void)arg;
  json_t *rev = json_array();
  for (size_t i = json_array_size(col); i-- > 0;)
    json_array_append(rev, json_array_get(col, i));
  return rev;
}

/* Rank i for "rank", else the first rank's value, for *(size_t *)arg
 * ranks. */
static json_t *widened(const char *key, const json_t *col, const void *arg) {
  size_t ranks = *(const size_t *)arg;
  json_t *out = json_array();
  for (size_t i = 0; i < ranks; i++)
    json_array_append_new(out, strcmp(key, "rank") == 0
                                   ? json_integer((json_int_t)i)
                                   : json_incref(json_array_get(col, 0)));
  return out;
}

/* results-valid-v2.json with its per-rank columns reversed and its ranks
 * given out of order: ordered the same way on both roads. */
static char *shuffled_v2(void) {
  size_t len;
  char *text = read_text(GCB_TEST_DATA "/results-valid-v2.json", &len);
  json_t *doc = jansson(text);
  free(text);
  json_t *pr = json_object_get(json_array_get(json_object_get(doc, "cases"), 0),
                               "per_rank");
  for_each_column(pr, reversed, NULL);
  text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
  json_decref(doc);
  return text;
}

Test(ranks_compact, real_documents_read_the_same_validated_and_ordered) {
  size_t len;
  char *texts[2];
  texts[0] = read_text(GCB_TEST_DATA "/results-valid-v2.json", &len);
  texts[1] = shuffled_v2();
  for (size_t t = 0; t < 2; t++) {
    struct gcb_results *c = NULL, *p = NULL;
    parse_both(texts[t], strlen(texts[t]), &c, &p);
    json_t *cr = gcb_results_json(c);
    cr_expect_gt(compact_columns(cr), 10, "columns read compact");
    cr_expect_eq(compact_columns(gcb_results_json(p)), 0);
    expect_same_values(cr, gcb_results_json(p), t ? "shuffled" : "v2");
    expect_same_dump(cr, gcb_results_json(p), t ? "shuffled" : "v2");
    gcb_results_free(c);
    gcb_results_free(p);
    free(texts[t]);
  }
}

/* A wrong column is an array (the reader leaves it to the schema walker),
 * and the message is the one the plain road gives; a compact column of
 * the wrong length too. */
Test(ranks_compact, wrong_columns_are_worded_as_before) {
  static const char *const edits[][2] = {
      {"\"median\": [", "\"median\": [\"x\", "},
      {"\"median\": [", "\"median\": [null, "},
      {"\"best\": [", "\"best\": [1.5, "},
      {"\"rank\": [", "\"rank\": [0.5, "},
      {"\"checked\": [", "\"checked\": [1, "},
  };
  size_t len;
  char *text = read_text(GCB_TEST_DATA "/results-valid-v2.json", &len);
  for (size_t e = 0; e < sizeof edits / sizeof *edits; e++) {
    const char *at = strstr(text, edits[e][0]);
    cr_assert_not_null(at, "%s", edits[e][0]);
    size_t head = (size_t)(at - text), n = strlen(text) + 64;
    char *bad = malloc(n);
    snprintf(bad, n, "%.*s%s%s", (int)head, text, edits[e][1],
             at + strlen(edits[e][0]));
    struct gcb_results *r = NULL;
    struct gcb_err ec = {0}, ep = {0};
    enum gcb_status sc =
        gcb__results_parse_compact(bad, strlen(bad), "b.json", 1, &r, &ec);
    enum gcb_status sp = gcb__results_parse_compact(bad, strlen(bad), "b.json",
                                                    SIZE_MAX, &r, &ep);
    cr_expect_eq(sc, GCB_EINPUT, "%s", edits[e][1]);
    cr_expect_eq(sp, GCB_EINPUT);
    cr_expect_str_eq(ec.msg, ep.msg, "%s", edits[e][1]);
    cr_expect_null(r);
    free(bad);
  }
  free(text);
}

/* A document of `ranks` ranks: results-valid-v2.json's case with rank 0's
 * values given to every rank. */
static char *with_ranks(size_t ranks) {
  size_t len;
  char *text = read_text(GCB_TEST_DATA "/results-valid-v2.json", &len);
  json_t *doc = jansson(text);
  free(text);
  json_t *pr = json_object_get(json_array_get(json_object_get(doc, "cases"), 0),
                               "per_rank");
  for_each_column(pr, widened, &ranks);
  text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
  json_decref(doc);
  return text;
}

Test(ranks_compact, large_documents_are_read_compact) {
  for (size_t ranks = GCB__COMPACT_MIN_RANKS - 1;
       ranks <= GCB__COMPACT_MIN_RANKS; ranks++) {
    char *text = with_ranks(ranks);
    struct gcb_results *r = NULL;
    struct gcb_err err = {0};
    cr_assert_eq(gcb_results_parse(text, strlen(text), "big.json", &r, &err),
                 GCB_OK, "%s", err.msg);
    size_t n = compact_columns(gcb_results_json(r));
    if (ranks < GCB__COMPACT_MIN_RANKS)
      cr_expect_eq(n, 0, "%zu ranks: arrays", ranks);
    else
      cr_expect_gt(n, 10, "%zu ranks: compact", ranks);
    struct gcb_results *p = NULL;
    cr_assert_eq(gcb__results_parse_compact(text, strlen(text), "p.json",
                                            SIZE_MAX, &p, &err),
                 GCB_OK);
    expect_same_values(gcb_results_json(r), gcb_results_json(p), "big");
    gcb_results_free(r);
    gcb_results_free(p);
    free(text);
  }
}

/* The whole file's bytes. */
static char *file_bytes(const char *path, size_t *len) {
  char *text = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_file_read(path, GCB_FILE_MAX_BYTES, &text, len, &err),
               GCB_OK, "%s", err.msg);
  return text;
}

/* A document read compact is written byte for byte as the same document
 * read as arrays, and gcb_results_plain gives the tree json_loadb gives. */
Test(ranks_compact, written_back_byte_for_byte) {
  char *text = with_ranks(GCB__COMPACT_MIN_RANKS + 3);
  struct gcb_results *c = NULL, *p = NULL;
  parse_both(text, strlen(text), &c, &p);
  size_t before = compact_columns(gcb_results_json(c));
  cr_assert_gt(before, 10);
  char dir[] = "/tmp/gcb-compact-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char pc[64], pp[64];
  snprintf(pc, sizeof pc, "%s/c.json", dir);
  snprintf(pp, sizeof pp, "%s/p.json", dir);
  struct gcb_err err = {0};
  cr_assert_eq(gcb_results_write(c, pc, &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(gcb_results_write(p, pp, &err), GCB_OK, "%s", err.msg);
  size_t lc, lp;
  char *bc = file_bytes(pc, &lc), *bp = file_bytes(pp, &lp);
  cr_expect_eq(lc, lp);
  cr_expect(lc == lp && memcmp(bc, bp, lc) == 0, "the same bytes");
  cr_expect_eq(compact_columns(gcb_results_json(c)), before,
               "writing leaves the tree as it was");
  cr_assert_eq(gcb_results_plain(c, &err), GCB_OK);
  cr_expect_eq(compact_columns(gcb_results_json(c)), 0);
  char *a =
      json_dumps(gcb_results_json(c), JSON_COMPACT | JSON_REAL_PRECISION(17));
  char *b =
      json_dumps(gcb_results_json(p), JSON_COMPACT | JSON_REAL_PRECISION(17));
  cr_expect_str_eq(a, b);
  free(a);
  free(b);
  free(bc);
  free(bp);
  remove(pc);
  remove(pp);
  remove(dir);
  gcb_results_free(c);
  gcb_results_free(p);
  free(text);
}
