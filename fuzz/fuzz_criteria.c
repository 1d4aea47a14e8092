/*
 * libFuzzer target: the acceptance criteria reader (gcb_criteria_parse),
 * a hand-written file by nature. Any input: criteria, or one error line.
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
  /* (Not yet checked: that the message is one line. A token with a
   * newline in it is echoed as it is, tests/data/robust/fuzz/criteria/;
   * the fix belongs in reports/criteria.c or common/status.c.) */
  if ((st == GCB_OK) != (cr != NULL) || (st != GCB_OK && err.msg[0] == '\0'))
    fail(&err);
  gcb_criteria_free(cr);
  return 0;
}
