/*
 * libFuzzer target: the results document reader (gcb_results_parse), as
 * `gcbench report` and `gcbench compare` run it on files from anywhere.
 * Every input must come back as a document or one located error, without
 * a crash, a leak or undefined behaviour; an accepted document must be
 * writable and read back the same. A tree the quick road builds must be
 * json_loadb's, value for
 * value (nulls and literals among a column's numbers included: a literal
 * once gave its value to the next element written like the one before).
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

/* The dump of the quick road's tree (compact columns from one element,
 * expanded), or NULL when it gives up. */
static char *quick_of(const unsigned char *data, size_t size) {
  json_t *root = NULL;
  size_t entries = 0;
  char *dump = NULL;
  if (gcb__read_fast((const char *)data, size, any_size, 1, &root, &entries) &&
      gcb__ranks_expand_document(root) == 0)
    dump = dump_of(root);
  json_decref(root);
  return dump;
}

/* The dump of json_loadb's tree, as the reader calls it; NULL when it
 * refuses the text. */
static char *jansson_of(const unsigned char *data, size_t size) {
  json_error_t je;
  json_t *root = json_loadb((const char *)data, size,
                            JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
  char *dump = root != NULL ? dump_of(root) : NULL;
  json_decref(root);
  return dump;
}

static void roads_agree(const unsigned char *data, size_t size) {
  char *one = quick_of(data, size);
  if (one != NULL && memchr(data, '\0', size) != NULL) {
    fprintf(stderr, "the quick road took a text with a NUL byte\n");
    abort(); /* read.c looks for one on jansson's road only */
  }
  char *slow = one != NULL ? jansson_of(data, size) : NULL;
  if (one != NULL && (slow == NULL || strcmp(one, slow) != 0)) {
    fprintf(stderr, "the quick road's tree is not json_loadb's\n");
    abort();
  }
  free(one);
  free(slow);
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
    /* compact columns (large documents) dumped as the arrays they are */
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
