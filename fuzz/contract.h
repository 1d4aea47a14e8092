/*
 * What every fuzz target checks beyond surviving: a broken contract is
 * named on stderr, then the target aborts so that libFuzzer keeps the
 * input.
 */
#ifndef GCB_FUZZ_CONTRACT_H
#define GCB_FUZZ_CONTRACT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

static inline void gcb_fuzz_fail(const struct gcb_err *err) {
  fprintf(stderr, "contract broken: status %s, message \"%s\"\n",
          gcb_status_name(err->code), err->msg);
  abort();
}

/* A reader's answer: a result (made), or one line saying why not. */
static inline bool gcb_fuzz_answer_ok(enum gcb_status st, bool made,
                                      const struct gcb_err *err) {
  return (st == GCB_OK) == made &&
         (st == GCB_OK ||
          (err->msg[0] != '\0' && strpbrk(err->msg, "\n\r\033") == NULL));
}

#endif
