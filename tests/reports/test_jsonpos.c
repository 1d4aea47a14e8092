/*
 * Tests for gcb_json_locate: positions of values found by path in nested
 * text with escaped and non-ASCII strings, agreement with jansson's way of
 * counting columns, missing paths, and malformed or deeply nested text
 * (which must give -1, never a read outside the buffer or a deep stack).
 * Texts are copied into exact-size heap buffers without a terminating NUL,
 * so valgrind or ASan catch any read past the end.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/jsonpos.h"

#define K(k)                                                                   \
  { .key = k }
#define I(i)                                                                   \
  { .index = i }
#define MAX_STEPS 6
#define EE "\xc3\xa9\xc3\xa9" /* two e-acutes */

/* Columns: the 'é', '€' and 'ü' are one column each (several bytes). */
static const char nested[] =
    "{\n"
    "  \"a\": {\"x\\\"y\": [10, {\"k\": \"v}]\"}, 30], \"z\": 7},\n"
    "  \"\xc3\xa9\\u00e9\": {\"deep\": [[1, 2], [3, [4, 5]]]},\n"
    "  \"\\ud83d\\ude00\": \"smile\",\n"
    "  \"b\\\\c\": null,\n"
    "  \"list\": [ \"[\", \"{\", \"\\\"]\" , true ],\n"
    "  \"\xe2\x82\xac\": [\"\xc3\xbc\xe2\x82\xac\", 2]\n"
    "}\n";

struct locate_case {
  const char *what;
  struct gcb_json_step path[MAX_STEPS];
  size_t depth;
  int rc, line, column;
};

/* An exact-size copy of text, without a terminating NUL. */
static char *exact_copy(const char *text, size_t len) {
  char *buf = malloc(len ? len : 1);
  cr_assert_not_null(buf);
  memcpy(buf, text, len);
  return buf;
}

static void check_cases(const char *text, const struct locate_case *cases,
                        size_t n) {
  size_t len = strlen(text);
  char *buf = exact_copy(text, len);
  for (size_t i = 0; i < n; i++) {
    const struct locate_case *c = &cases[i];
    int line = -7, column = -7;
    int rc = gcb_json_locate(buf, len, c->path, c->depth, &line, &column);
    cr_expect_eq(rc, c->rc, "%s: rc %d, expected %d", c->what, rc, c->rc);
    cr_expect(line == c->line && column == c->column,
              "%s: at %d:%d, expected %d:%d", c->what, line, column, c->line,
              c->column);
  }
  free(buf);
}

Test(jsonpos, fixture_text_is_valid_json) {
  json_error_t e;
  json_t *j = json_loads(nested, JSON_REJECT_DUPLICATES, &e);
  cr_assert_not_null(j, "%d:%d: %s", e.line, e.column, e.text);
  json_decref(j);
}

Test(jsonpos, finds_values_by_key_and_index_through_escapes_and_unicode) {
  static const struct locate_case cases[] = {
      {"root", {{0}}, 0, 0, 1, 1},
      {"a", {K("a")}, 1, 0, 2, 8},
      {"escaped quote in key", {K("a"), K("x\"y")}, 2, 0, 2, 17},
      {"brackets in a string", {K("a"), K("x\"y"), I(2)}, 3, 0, 2, 36},
      {"object inside array", {K("a"), K("x\"y"), I(1)}, 3, 0, 2, 22},
      {"key inside it", {K("a"), K("x\"y"), I(1), K("k")}, 4, 0, 2, 28},
      {"key after an array", {K("a"), K("z")}, 2, 0, 2, 46},
      {"raw and \\u-escaped e-acute", {K(EE)}, 1, 0, 3, 14},
      {"nested", {K(EE), K("deep"), I(1), I(1), I(1)}, 5, 0, 3, 40},
      {"first of nested", {K(EE), K("deep"), I(0)}, 3, 0, 3, 24},
      {"surrogate pair key", {K("\xf0\x9f\x98\x80")}, 1, 0, 4, 19},
      {"escaped backslash key", {K("b\\c")}, 1, 0, 5, 11},
      {"string with bracket", {K("list"), I(0)}, 2, 0, 6, 13},
      {"string with brace", {K("list"), I(1)}, 2, 0, 6, 18},
      {"string with escaped quote", {K("list"), I(2)}, 2, 0, 6, 23},
      {"after space before comma", {K("list"), I(3)}, 2, 0, 6, 31},
      {"three-byte key", {K("\xe2\x82\xac")}, 1, 0, 7, 8},
      {"after multibyte string", {K("\xe2\x82\xac"), I(1)}, 2, 0, 7, 15},
  };
  check_cases(nested, cases, sizeof cases / sizeof cases[0]);
}

Test(jsonpos, missing_paths_fail_at_the_enclosing_value) {
  static const struct locate_case cases[] = {
      {"unknown key", {K("a"), K("nope")}, 2, -1, 2, 8},
      {"index past the end", {K("a"), K("x\"y"), I(3)}, 3, -1, 2, 17},
      {"key on an array", {K("list"), K("k")}, 2, -1, 6, 11},
      {"index on an object", {K("a"), I(0)}, 2, -1, 2, 8},
      {"key prefix does not match", {K("a"), K("x\"")}, 2, -1, 2, 8},
      {"longer key does not match", {K("a"), K("x\"yz")}, 2, -1, 2, 8},
      {"undecoded key does not match", {K("b\\\\c")}, 1, -1, 1, 1},
      {"step into a scalar", {K("b\\c"), K("x")}, 2, -1, 5, 11},
      {"empty key", {K("")}, 1, -1, 1, 1},
  };
  check_cases(nested, cases, sizeof cases / sizeof cases[0]);
}

Test(jsonpos, column_counts_characters_like_jansson) {
  /* jansson's error column for the one-character bad token 'x' must equal
   * our column for the value in the same place. */
  static const char bad[] = "{\"\xc3\xa9\xe2\x82\xac\": {\"b\":\n"
                            " \"\xc3\xbc\", \"c\": x}}";
  static const char good[] = "{\"\xc3\xa9\xe2\x82\xac\": {\"b\":\n"
                             " \"\xc3\xbc\", \"c\": 1}}";
  json_error_t e;
  cr_assert_null(json_loads(bad, 0, &e));
  struct gcb_json_step path[] = {K("\xc3\xa9\xe2\x82\xac"), K("c")};
  int line, column;
  cr_assert_eq(gcb_json_locate(good, strlen(good), path, 2, &line, &column), 0);
  cr_expect_eq(line, e.line);
  cr_expect_eq(column, e.column, "ours %d, jansson %d", column, e.column);
}

Test(jsonpos, empty_and_blank_text_fail_at_the_start) {
  static const struct locate_case cases[] = {
      {"root of nothing", {{0}}, 0, -1, 1, 1},
      {"key in nothing", {K("a")}, 1, -1, 1, 1},
  };
  check_cases("", cases, 2);
  int line, column;
  cr_expect_eq(gcb_json_locate(" \n  ", 4, NULL, 0, &line, &column), -1);
  cr_expect(line == 2 && column == 3, "at %d:%d", line, column);
}

Test(jsonpos, malformed_text_fails_without_reading_past_the_end) {
  static const char *const texts[] = {
      "{",
      "{\"a\"",
      "{\"a\":",
      "{\"a\": [1, 2",
      "{\"b\": 1,",
      "{\"a\\",
      "{\"a\\u12",
      "{\"a\\ud83d\\u",
      "{\"b\": \"x",
      "{\"b\": \"x\\",
      "{\"b\": [[[[[",
      "{\"b\": {\"c\"",
      "[",
      "{\"b\" 1}",
      "{\"b\": 1 \"a\"",
      "{\"\\q\": 1}",
      "{\"b\": }",
      "{\"\\ud83dx\": 1}",
  };
  struct gcb_json_step path[] = {K("a"), I(3)};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    size_t len = strlen(texts[i]);
    char *buf = exact_copy(texts[i], len);
    int line, column;
    cr_expect_eq(gcb_json_locate(buf, len, path, 2, &line, &column), -1,
                 "text %zu: '%s'", i, texts[i]);
    cr_expect(line >= 1 && column >= 1, "text %zu at %d:%d", i, line, column);
    free(buf);
  }
}

/* "[" + N*"[" + N*"]" + ", 5]": the second element sits after a value
 * nested far deeper than any recursive scanner's stack would allow. */
Test(jsonpos, skips_very_deep_nesting_without_recursion) {
  size_t n = 1000000, len = 2 * n + 5; /* no NUL */
  char *buf = malloc(len);
  cr_assert_not_null(buf);
  buf[0] = '[';
  memset(buf + 1, '[', n);
  memset(buf + 1 + n, ']', n);
  memcpy(buf + 1 + 2 * n, ", 5]", 4);
  struct gcb_json_step second[] = {I(1)}, third[] = {I(2)};
  int line, column;
  cr_expect_eq(gcb_json_locate(buf, len, second, 1, &line, &column), 0);
  cr_expect_eq(column, (int)(2 * n + 4));
  cr_expect_eq(gcb_json_locate(buf, len, third, 1, &line, &column), -1);
  memset(buf + 1 + n, '[', n); /* unterminated: the skip stops at the end */
  cr_expect_eq(gcb_json_locate(buf, len, second, 1, &line, &column), -1);
  free(buf);
}

/* The one located message of the JSON readers (results, criteria). */
Test(jsonpos, located_message_names_file_position_and_path) {
  static const char text[] = "{\n  \"cases\": [\n    {\"unit\": 3}\n  ]\n}\n";
  const struct gcb_json_step path[] = {
      {.key = "cases"}, {.index = 0}, {.key = "unit"}};
  char buf[64];
  gcb_json_path_text(path, 3, buf, sizeof buf);
  cr_expect_str_eq(buf, "cases[0].unit");
  gcb_json_path_text(path, 0, buf, sizeof buf);
  cr_expect_str_eq(buf, "");
  gcb_json_path_text(path, 3, buf, 6);
  cr_expect_str_eq(buf, "cases", "truncated, still terminated");
  struct gcb_err err = {0};
  cr_expect_eq(gcb_json_located(&err, text, sizeof text - 1, "f.json", path, 3,
                                "expected a string, got integer"),
               GCB_EINPUT);
  cr_expect_str_eq(
      err.msg, "f.json:3:14: cases[0].unit: expected a string, got integer");
  cr_expect_eq(gcb_json_located(&err, text, sizeof text - 1, "f.json", path, 0,
                                "not a document"),
               GCB_EINPUT);
  cr_expect_str_eq(err.msg, "f.json:1:1: not a document");
}
