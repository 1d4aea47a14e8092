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

#include "reports/results.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* A broken contract: say which, then crash so libFuzzer keeps the input. */
static void fail(const struct gcb_err *err) {
  fprintf(stderr, "contract broken: status %s, message \"%s\"\n",
          gcb_status_name(err->code), err->msg);
  abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  enum gcb_status st =
      gcb_results_parse((const char *)data, size, "fuzz.json", &r, &err);
  if ((st == GCB_OK) != (r != NULL) ||
      (st != GCB_OK &&
       (err.msg[0] == '\0' || strpbrk(err.msg, "\n\r\033") != NULL)))
    fail(&err); /* the contract: a document, or one line saying why not */
  if (r != NULL) {
    char *text = json_dumps(gcb_results_json(r), JSON_COMPACT);
    struct gcb_results *back = NULL;
    if (text == NULL ||
        gcb_results_parse(text, strlen(text), "dump", &back, &err) != GCB_OK)
      fail(&err); /* what was accepted must read back */
    gcb_results_free(back);
    free(text);
  }
  gcb_results_free(r);
  return 0;
}
