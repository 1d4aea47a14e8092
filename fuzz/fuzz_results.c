/*
 * libFuzzer target: the results document reader (gcb_results_parse), as
 * `gcbench report` and `gcbench compare` run it on files from anywhere.
 * Every input must come back as a document or one located error, without
 * a crash, a leak or undefined behaviour; an accepted document must be
 * writable and read back the same. The quick road read on one thread
 * and on three (read_ahead.h) must agree: both give up, or both build
 * the same tree.
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

/* The dump of the quick road's tree in `parts` (compact columns from one
 * element, expanded), or NULL when it gives up. */
static char *quick_in(const unsigned char *data, size_t size, size_t parts) {
  json_t *root = NULL;
  size_t entries = 0;
  char *dump = NULL;
  if (gcb__read_fast_parts((const char *)data, size, any_size, 1, parts, &root,
                           &entries) &&
      gcb__ranks_expand_document(root) == 0)
    dump = json_dumps(root,
                      JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
  json_decref(root);
  return dump;
}

static void parts_agree(const unsigned char *data, size_t size) {
  char *one = quick_in(data, size, 1), *three = quick_in(data, size, 3);
  if ((one == NULL) != (three == NULL) ||
      (one != NULL && strcmp(one, three) != 0)) {
    fprintf(stderr, "the quick road in 1 and 3 parts disagrees\n");
    abort();
  }
  free(one);
  free(three);
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
  parts_agree(data, size);
  return 0;
}
