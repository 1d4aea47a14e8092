/*
 * Tests for the quick road of the results reader (reports/document/
 * read_fast.c): its per-rank columns are what json_loadb reads, value for
 * value (every double bit for bit what strtod gives, integers, signed
 * zeros, exponents, nulls and literals), the rest of its tree is
 * json_loadb's; it takes the documents gcbench writes, gives up on what it
 * does not know so that jansson words the problem, and the size limit
 * follows the document's shape.
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

/* What the quick road read from text: false when it gave up. */
struct quick {
  json_t *root;
  struct gcb_ranks *ranks;
  size_t nranks, entries;
};

static bool quick_read(const char *text, size_t len, struct quick *q) {
  return gcb__read_fast(text, len, any_size, &q->root, &q->ranks, &q->nranks,
                        &q->entries);
}

static void quick_free(struct quick *q) {
  json_decref(q->root);
  gcb__ranks_free_all(q->ranks, q->nranks);
}

/* The quick road takes text, its columns are jansson's per_rank objects
 * value for value (nulls, booleans, integers where the kind is one, every
 * double bit for bit), and its tree is jansson's with `{}` for each of
 * them (the dumps tell -0.0 from 0 and 1 from 1.0). */
static void expect_same_tree(const char *text, const char *what) {
  struct quick q = {0};
  cr_assert(quick_read(text, strlen(text), &q), "%s: the quick road gave up",
            what);
  json_t *slow = jansson(text);
  cr_assert_not_null(slow, "%s", what);
  json_t *cases = json_object_get(slow, "cases");
  for (size_t i = 0; i < q.nranks; i++) {
    json_t *c = json_array_get(cases, i);
    if (json_object_get(c, "per_rank") == NULL)
      continue;
    cr_expect(
        gcb__ranks_equal_json(&q.ranks[i], json_object_get(c, "per_rank")),
        "%s: case %zu's columns", what, i);
    json_object_set_new(c, "per_rank", json_object());
  }
  char *a = json_dumps(q.root, JSON_COMPACT | JSON_REAL_PRECISION(17));
  char *b = json_dumps(slow, JSON_COMPACT | JSON_REAL_PRECISION(17));
  cr_expect_str_eq(a, b, "%s", what);
  free(a);
  free(b);
  quick_free(&q);
  json_decref(slow);
}

/* A document of one case whose column time_s.min holds elements (comma
 * separated), with a rank column as long. */
static char *doc_with(const char *elements) {
  size_t n = 1;
  for (const char *p = elements; *p; p++)
    n += *p == ',';
  size_t size = strlen(elements) + 12 * n + 128;
  char *s = malloc(size);
  size_t at = (size_t)snprintf(s, size,
                               "{\"schema\": \"gcbench.results/2\", "
                               "\"cases\": [{\"bench\": \"x\", "
                               "\"per_rank\": {\"rank\": [");
  for (size_t i = 0; i < n; i++)
    at += (size_t)snprintf(s + at, size - at, i ? ",%zu" : "%zu", i);
  snprintf(s + at, size - at, "], \"time_s\": {\"min\": [%s]}}}]}", elements);
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
 * reads otherwise than strtod (bit for bit). */
static size_t differ_from_strtod(const char *elements, size_t n) {
  char *text = doc_with(elements);
  struct quick q = {0};
  cr_assert(quick_read(text, strlen(text), &q));
  cr_expect_eq(q.entries, n);
  const double *col = q.ranks[0].num[GCB_RC_TIME_MIN];
  const char *p = elements;
  size_t wrong = 0;
  for (size_t i = 0; i < n; i++) {
    char *end;
    double want = strtod(p, &end);
    if (memcmp(&col[i], &want, sizeof want) != 0)
      wrong++;
    p = end + (*end == ',');
  }
  quick_free(&q);
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

/* Exact halfway points between two doubles, written as w e-k with w of
 * 17 to 19 digits (w = odd 5^k 2^j, k <= 4: the only k where a decimal
 * past 2^53 can be a tie), and their neighbours w - 1 and w + 1: ties to
 * even and the rest to nearest, bit for bit strtod's (the road without
 * a division, read_lex.c scaled_down). */
Test(read_fast, exact_ties_past_two_to_the_53_round_to_even) {
  enum { N = 30000 };
  char *elements = malloc((size_t)N * 32);
  size_t at = 0;
  int made = 0;
  unsigned long long x = 1181783497276652981ull;
  while (made < N) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    unsigned k = 1 + (unsigned)(x % 4), five = 1;
    for (unsigned i = 0; i < k; i++)
      five *= 5;
    /* a mantissa of 53 bits and the odd number halfway above it */
    unsigned long long odd = 2 * ((x >> 11) | 1ull << 52) + 1;
    if (odd > ~0ull / five)
      continue;
    unsigned long long w = odd * five;
    for (unsigned j = (unsigned)(x >> 4) % 3; j > 0 && w <= ~0ull / 4; j--)
      w *= 2; /* odd 5^k 2^j: still a tie, one place lower */
    long long delta = made % 3 - 1; /* -1, 0 (the tie), +1 */
    at += (size_t)snprintf(elements + at, 32, "%llue-%u", w + delta, k);
    elements[at++] = ++made < N ? ',' : '\0';
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
  /* integers where the column holds numbers, an empty case */
  expect_same_tree("{\"cases\": [{\"per_rank\": {\"rank\": [], "
                   "\"figure\": {\"median\": []}}}, {\"per_rank\": "
                   "{\"rank\": [3], \"figure_time_s\": [2]}}]}",
                   "integers among numbers");
}

/* A literal between two elements written alike: each keeps its own
 * value. The element after a null, true or false was once compared with
 * the text of the element before the literal and given the literal (rank
 * 2's late_mean_s, sm_clock and throttle_reasons read as null). Each
 * column below in a column of each kind that allows it. */
Test(read_fast, a_literal_between_elements_written_alike_changes_neither) {
  static const struct {
    const char *column, *elements;
  } cases[] = {
      {"\"late_s\": {\"mean\": %s}", "[0.5, null, 0.5]"},
      {"\"late_s\": {\"mean\": %s}", "[7, null, 7]"},
      {"\"late_s\": {\"n\": %s}", "[7, null, 7]"},
      {"\"late_s\": {\"n\": %s}", "[0, null, 0]"},
      {"\"figure_time_s\": %s", "[-0.0, null, -0.0]"},
      {"\"figure_time_s\": %s", "[1e-3, null, 1e-3]"},
      {"\"telemetry\": {\"slowed\": %s}", "[true, null, true]"},
      {"\"telemetry\": {\"slowed\": %s}", "[false, true, false]"},
      {"\"validation\": {\"checked\": %s}", "[true, false, true]"},
      {"\"validation\": {\"method\": %s}", "[\"a\", null, \"a\"]"},
      {"\"telemetry\": {\"throttle_reasons\": %s}", "[\"\", null, \"\"]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char column[128], text[512], what[160];
    snprintf(column, sizeof column, cases[i].column, cases[i].elements);
    snprintf(text, sizeof text,
             "{\"cases\": [{\"per_rank\": {\"rank\": [0, 1, 2], %s}}]}",
             column);
    snprintf(what, sizeof what, "%s", column);
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
      /* what the schema walker words: a column of another kind's
       * elements, a null where none may be, a column the table does not
       * have, columns of two lengths */
      "{\"cases\": [{\"per_rank\": {\"rank\": [1.5]}}]}",
      "{\"cases\": [{\"per_rank\": {\"rank\": [null]}}]}",
      "{\"cases\": [{\"per_rank\": {\"rank\": [0], \"figure_time_s\": "
      "[true]}}]}",
      "{\"cases\": [{\"per_rank\": {\"rank\": [0], \"validation\": "
      "{\"checked\": [1]}}}]}",
      "{\"cases\": [{\"per_rank\": {\"rank\": [0], \"x\": [1]}}]}",
      "{\"cases\": [{\"per_rank\": {\"rank\": [0], \"time_s\": {\"min\": "
      "[1, 2]}}}]}",
      "{\"cases\": [{\"per_rank\": {\"time_s\": {\"min\": [1]}}}]}",
      "[1, 2]",
      "",
  };
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    struct quick q = {.root = (json_t *)1};
    cr_expect(!quick_read(texts[i], strlen(texts[i]), &q), "%s", texts[i]);
    cr_expect_null(q.root, "%s", texts[i]);
    cr_expect_null(q.ranks, "%s", texts[i]);
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
 * The marks: skipped values, columns of each kind, a topology. */
Test(read_fast, a_nul_byte_anywhere_gives_up) {
  static const char text[] =
      "{\"cases\": [{\"iterations\": 20@, \"ok\": true@, \"per_rank\": "
      "{\"rank\": [1@, 2], \"figure_time_s\": [null@, 1], \"late_s\": "
      "{\"n\": [3@, 4]}}}], "
      "\"nodes\": [{\"topology\": {\"n\": 1@}}]@}";
  size_t marks = 0, len;
  for (size_t at = 0; at <= sizeof text; at++) {
    if (at < sizeof text && text[at] != '@')
      continue;
    char *t = with_nul_at(text, at, &len);
    struct quick q = {0};
    cr_expect_eq(quick_read(t, len, &q), at == sizeof text, "mark %zu", marks);
    quick_free(&q);
    free(t);
    marks++;
  }
  cr_expect_eq(marks, 8);
}

/* The scan finds a per_rank's end sixteen bytes at a time (read_fast.c's
 * next_structural): brackets, braces and quotes after runs of every
 * length are found where they are, and a NUL byte at any offset of a
 * long run of digits still gives up. */
Test(read_fast, structure_after_a_run_of_any_length_is_found) {
  for (size_t k = 0; k < 40; k++) {
    char elements[256], digits[48];
    memset(digits, '7', k);
    digits[k] = '\0';
    snprintf(elements, sizeof elements, "0.5%s, 2.5, 1e%zu, 0.%s1", digits,
             k % 20, digits);
    char *text = doc_with(elements);
    expect_same_tree(text, elements);
    char marked[512];
    snprintf(marked, sizeof marked, "%s", text);
    char *at = strstr(marked, "0.5") + 3 + k;
    memmove(at + 1, at, strlen(at) + 1);
    *at = '@';
    size_t len;
    char *t = with_nul_at(marked, (size_t)(at - marked), &len);
    struct quick q = {0};
    cr_expect_not(quick_read(t, len, &q), "a NUL after %zu digits", k);
    quick_free(&q);
    free(t);
    free(text);
  }
}

/* The scan skips the strings it does not read sixteen bytes at a time
 * (read_lex.c's quote_or_escape): an escaped quote or backslash after a
 * run of any length, in a case and in a topology, is passed over, and
 * the tree is jansson's; a string cut short by the end still gives up. */
Test(read_fast, escapes_after_a_run_of_any_length_are_skipped) {
  for (size_t k = 0; k < 40; k++) {
    char run[48], text[512];
    memset(run, 'a', k);
    run[k] = '\0';
    snprintf(text, sizeof text,
             "{\"cases\": [{\"label\": \"%s\\\"%s\\\\\", \"per_rank\": "
             "{\"rank\": [0]}}], \"nodes\": [{\"topology\": "
             "{\"name\": \"%s\\\\%s\\\"\"}}]}",
             run, run, run, run);
    expect_same_tree(text, text);
    char *cut = strstr(text, "\"label\": \"") + 10 + k;
    struct quick q = {0};
    cr_expect_not(quick_read(text, (size_t)(cut - text), &q),
                  "a string cut after %zu bytes", k);
    quick_free(&q);
  }
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
  struct quick q = {0};
  cr_assert(quick_read(text, strlen(text), &q));
  const json_t *nodes = json_object_get(q.root, "nodes");
  const json_t *t[6];
  for (size_t i = 0; i < 6; i++)
    t[i] = json_object_get(json_array_get(nodes, i), "topology");
  cr_expect(t[0] == t[1] && t[0] == t[5], "written alike: one value");
  cr_expect(t[2] != t[0], "-0.0 is not 0.0");
  cr_expect(json_is_null(t[3]));
  cr_expect_null(t[4]);
  quick_free(&q);
  expect_same_tree(text, "topologies");
  /* a topology jansson refuses: the whole text goes to jansson */
  static const char bad[] =
      "{\"nodes\": [{\"topology\": {\"a\": 1, \"a\": 2}}], \"cases\": "
      "[{\"per_rank\": {\"rank\": [0]}}]}";
  q = (struct quick){0};
  cr_expect(!quick_read(bad, strlen(bad), &q));
  cr_expect_null(q.root);
}
