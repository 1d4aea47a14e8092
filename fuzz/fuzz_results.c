/*
 * libFuzzer target: the results document reader (gcb_results_parse), as
 * `gcbench report` and `gcbench compare` run it on files from anywhere.
 * Every input must come back as a document or one located error, without
 * a crash, a leak or undefined behaviour; an accepted document must be
 * writable and read back the same. What the quick road reads must be what
 * json_loadb reads: its tree the same but for each case's per_rank (`{}`),
 * and the columns it reads apart those per_rank objects value for value
 * (gcb__ranks_equal_json: nulls, true and false, integers where the
 * column's kind is one; a literal once gave its value to the next element
 * written like the one before).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/contract.h"
#include "reports/document/ranks.h"
#include "reports/document/results.h"
#include "reports/document/results_int.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static bool any_size(size_t len, size_t entries) {
  (void)len, (void)entries;
  return true;
}

/* The dump every tree is compared in: integers apart from reals, -0.0
 * apart from 0.0, every double's 17 digits, keys in their order. */
static char *dump_of(const json_t *root) {
  return json_dumps(root,
                    JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
}

/* Whether the quick road's columns are jansson's per_rank objects, value
 * for value; each of those then replaced by `{}`, as the quick road's
 * tree has it. */
static bool columns_agree(json_t *slow, const struct gcb_ranks *ranks,
                          size_t nranks) {
  json_t *cases = json_object_get(slow, "cases");
  for (size_t i = 0; i < nranks; i++) {
    json_t *c = json_array_get(cases, i);
    const json_t *pr = json_object_get(c, "per_rank");
    if (pr == NULL && ranks[i].num[GCB_RC_RANK] == NULL)
      continue; /* a case without one */
    if (!gcb__ranks_equal_json(&ranks[i], pr) ||
        json_object_set_new(c, "per_rank", json_object()) != 0)
      return false;
  }
  return true;
}

static void roads_agree(const unsigned char *data, size_t size) {
  json_t *fast = NULL;
  struct gcb_ranks *ranks = NULL;
  size_t nranks = 0, entries = 0;
  if (!gcb__read_fast((const char *)data, size, any_size, &fast, &ranks,
                      &nranks, &entries))
    return;
  if (memchr(data, '\0', size) != NULL) {
    fprintf(stderr, "the quick road took a text with a NUL byte\n");
    abort(); /* read.c looks for one on jansson's road only */
  }
  json_error_t je;
  json_t *slow = json_loadb((const char *)data, size,
                            JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
  if (slow == NULL || !columns_agree(slow, ranks, nranks)) {
    fprintf(stderr, "the quick road's columns are not json_loadb's\n");
    abort();
  }
  char *one = dump_of(fast), *two = dump_of(slow);
  if (one == NULL || two == NULL || strcmp(one, two) != 0) {
    fprintf(stderr, "the quick road's tree is not json_loadb's\n");
    abort();
  }
  free(one);
  free(two);
  json_decref(slow);
  json_decref(fast);
  gcb__ranks_free_all(ranks, nranks);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  enum gcb_status st =
      gcb_results_parse((const char *)data, size, "fuzz.json", &r, &err);
  if (!gcb_fuzz_answer_ok(st, r != NULL, &err))
    gcb_fuzz_fail(
        &err); /* the contract: a document, or one line saying why not */
  if (r != NULL) {
    /* the per-rank columns, held apart, dumped as the arrays they are */
    char *text = gcb_results_plain(r, &err) == GCB_OK
                     ? json_dumps(gcb_results_json(r), JSON_COMPACT)
                     : NULL;
    struct gcb_results *back = NULL;
    if (text == NULL ||
        gcb_results_parse(text, strlen(text), "dump", &back, &err) != GCB_OK)
      gcb_fuzz_fail(&err); /* what was accepted must read back */
    gcb_results_free(back);
    free(text);
  }
  gcb_results_free(r);
  roads_agree(data, size);
  return 0;
}
