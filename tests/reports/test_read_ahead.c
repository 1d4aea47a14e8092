/*
 * Tests for reading a document's per_rank values on several threads
 * (reports/document/read_ahead.c): the tree is the one a single thread
 * (and json_loadb) builds for every number of parts, a `"per_rank"` key
 * where no case's is changes nothing, the threads really read the later
 * parts' values, and a document the quick road gives up on is given up
 * on whatever the parts.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/ranks.h"
#include "reports/document/read_ahead.h"
#include "reports/document/results_int.h"

static bool any_size(size_t len, size_t entries) {
  (void)len, (void)entries;
  return true;
}

/* A document of `cases` cases of `ranks` ranks each: numbers of every
 * shape, a string and a boolean column, a group; every third case has a
 * deeper `"per_rank"` key of its own (in params) before its per_rank. */
static char *document(size_t cases, size_t ranks) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cr_assert_not_null(f);
  fprintf(f, "{\"schema\": \"gcbench.results/2\", \"cases\": [");
  unsigned seed = 7;
  for (size_t c = 0; c < cases; c++) {
    fprintf(f, "%s{\"bench\": \"b%zu\", ", c ? ", " : "", c);
    if (c % 3 == 0)
      fprintf(f, "\"params\": {\"per_rank\": {\"rank\": [%zu]}}, ", c);
    fprintf(f, "\"per_rank\": {\"rank\": [");
    for (size_t r = 0; r < ranks; r++)
      fprintf(f, "%s%zu", r ? ", " : "", r);
    fprintf(f, "], \"hostname\": [");
    for (size_t r = 0; r < ranks; r++)
      fprintf(f, "%s\"node%zu\"", r ? ", " : "", r / 8);
    fprintf(f, "], \"time_s\": {\"median\": [");
    for (size_t r = 0; r < ranks; r++) {
      seed = seed * 1103515245u + 12345u;
      fprintf(f, "%s%.17g", r ? ", " : "", (seed >> 8) * 1e-9 - 3.0);
    }
    fprintf(f, "], \"n\": [");
    for (size_t r = 0; r < ranks; r++)
      fprintf(f, "%s20", r ? ", " : "");
    fprintf(f, "]}, \"validation\": {\"checked\": [");
    for (size_t r = 0; r < ranks; r++)
      fprintf(f, "%s%s", r ? ", " : "", r % 5 ? "true" : "false");
    fprintf(f, "]}}, \"time_us\": %zu.5}", c);
  }
  fprintf(f, "]}");
  cr_assert_eq(fclose(f), 0);
  return text;
}

/* The dump of the tree read in `parts`, compact columns expanded. */
static char *read_in(const char *text, size_t parts, size_t compact_min) {
  json_t *root = NULL;
  size_t entries = 0;
  cr_assert(gcb__read_fast_parts(text, strlen(text), any_size, compact_min,
                                 parts, &root, &entries),
            "%zu parts: the quick road gave up", parts);
  cr_assert_eq(gcb__ranks_expand_document(root), 0);
  char *dump = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17));
  json_decref(root);
  return dump;
}

Test(read_ahead, every_number_of_parts_builds_the_tree_jansson_builds) {
  char *text = document(40, 37);
  json_error_t je;
  json_t *slow = json_loads(text, JSON_REJECT_DUPLICATES, &je);
  cr_assert_not_null(slow, "%s", je.text);
  char *want = json_dumps(slow, JSON_COMPACT | JSON_REAL_PRECISION(17));
  json_decref(slow);
  for (size_t parts = 1; parts <= GCB_READ_AHEAD_MAX_PARTS + 2; parts++)
    for (size_t compact_min = 1; compact_min <= 64; compact_min *= 64) {
      char *got = read_in(text, parts, compact_min);
      cr_expect_str_eq(got, want, "%zu parts, compact from %zu", parts,
                       compact_min);
      free(got);
    }
  free(want);
  free(text);
}

/* Where the last case's per_rank value begins: after its "bench" key. */
static size_t last_per_rank(const char *text, size_t *end) {
  const char *c = strstr(text, "\"b2\"");
  cr_assert_not_null(c);
  const char *v = strstr(c, "\"per_rank\": {\"rank\": [0, ");
  cr_assert_not_null(v);
  /* the byte after its closing brace: `}, "time_us"` follows */
  *end = (size_t)(strstr(v, "\"time_us\"") - text) - 2;
  return (size_t)(v - text) + strlen("\"per_rank\": ");
}

Test(read_ahead, a_later_part_is_read_by_its_thread) {
  char *text = document(3, 100);
  size_t want_end = 0, begin = last_per_rank(text, &want_end);
  /* Two parts: the third case's per_rank lies in the second. */
  cr_assert_gt(begin, strlen(text) / 2);
  struct gcb__ahead *a = gcb__ahead_start(text, strlen(text), 1, 2);
  cr_assert_not_null(a);
  size_t end = 0;
  json_t *v = gcb__ahead_take(a, begin, &end);
  cr_assert_not_null(v, "the thread read the value at byte %zu", begin);
  cr_expect_eq(end, want_end, "it ends after its closing brace");
  cr_expect_eq(gcb_ranks_column_size(json_object_get(v, "rank")), 100);
  cr_expect_null(gcb__ahead_take(a, begin + 1, &end),
                 "nothing begins one byte later");
  json_decref(v);
  gcb__ahead_stop(a);
  cr_expect_null(gcb__ahead_start(text, strlen(text), 1, 1), "one part");
  free(text);
}

Test(read_ahead, the_first_part_is_the_callers) {
  char *text = document(3, 10);
  struct gcb__ahead *a = gcb__ahead_start(text, strlen(text), 1, 2);
  size_t end = 0;
  const char *v = strstr(text, "\"per_rank\": {\"rank\": [0, ");
  cr_assert_not_null(v);
  cr_expect_null(
      gcb__ahead_take(a, (size_t)(v - text) + strlen("\"per_rank\": "), &end));
  gcb__ahead_stop(a); /* what the thread read and nobody took is dropped */
  free(text);
}

Test(read_ahead, a_document_given_up_on_is_given_up_on_in_any_parts) {
  char *text = document(20, 30);
  size_t len = strlen(text);
  char *bad = strdup(text);
  bad[len - 1] = ','; /* the text ends inside the document */
  for (size_t parts = 1; parts <= GCB_READ_AHEAD_MAX_PARTS; parts++) {
    json_t *root = NULL;
    size_t entries = 0;
    cr_expect(
        !gcb__read_fast_parts(bad, len, any_size, 1, parts, &root, &entries),
        "%zu parts", parts);
    cr_expect_null(root);
  }
  free(bad);
  free(text);
}
