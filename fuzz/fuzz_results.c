/*
 * libFuzzer target: the results document reader (gcb_results_parse), as
 * `gcbench report` and `gcbench compare` run it on files from anywhere.
 * Every input must come back as a document or one located error, without
 * a crash, a leak or undefined behaviour; an accepted document must be
 * writable and read back the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/contract.h"
#include "reports/document/results.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

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
  return 0;
}
