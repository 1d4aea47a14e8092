/*
 * libFuzzer target: the acceptance criteria reader (gcb_criteria_parse),
 * a hand-written file by nature. Any input: criteria, or one error line
 * (no newline, whatever the input holds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/criteria.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* A broken contract: say which, then crash so libFuzzer keeps the input. */
static void fail(const struct gcb_err *err) {
  fprintf(stderr, "contract broken: status %s, message \"%s\"\n",
          gcb_status_name(err->code), err->msg);
  abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  struct gcb_criteria *cr = NULL;
  struct gcb_err err = {0};
  enum gcb_status st =
      gcb_criteria_parse((const char *)data, size, "fuzz.json", &cr, &err);
  /* The contract: criteria, or one line saying why not (a key or a token
   * with a newline in it once broke the line: tests/data/robust/fuzz/). */
  if ((st == GCB_OK) != (cr != NULL) ||
      (st != GCB_OK &&
       (err.msg[0] == '\0' || strpbrk(err.msg, "\n\r\033") != NULL)))
    fail(&err);
  gcb_criteria_free(cr);
  return 0;
}
