/*
 * libFuzzer target: the acceptance criteria reader (gcb_criteria_parse),
 * a hand-written file by nature. Any input: criteria, or one error line
 * (no newline, whatever the input holds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/contract.h"
#include "reports/criteria/criteria.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  struct gcb_criteria *cr = NULL;
  struct gcb_err err = {0};
  enum gcb_status st =
      gcb_criteria_parse((const char *)data, size, "fuzz.json", &cr, &err);
  /* The contract: criteria, or one line saying why not (a key or a token
   * with a newline in it once broke the line: tests/data/robust/fuzz/). */
  if (!gcb_fuzz_answer_ok(st, cr != NULL, &err))
    gcb_fuzz_fail(&err);
  gcb_criteria_free(cr);
  return 0;
}
