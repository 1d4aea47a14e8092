/*
 * How many rounds a randomized agreement test runs. Under valgrind
 * (scripts/valgrind-tests sets GCB_TEST_ROUNDS_DIVISOR) memcheck needs the
 * code paths, not hundreds of thousands of samples, which it runs 50 times
 * slower; the full rounds run in the plain and sanitizer passes.
 */
#ifndef GCB_TEST_ROUNDS_H
#define GCB_TEST_ROUNDS_H

#include <stdlib.h>

static inline int gcb_test_rounds(int rounds) {
  const char *s = getenv("GCB_TEST_ROUNDS_DIVISOR");
  long divisor = s != NULL ? strtol(s, NULL, 10) : 1;
  if (divisor <= 1)
    return rounds;
  return rounds / divisor > 0 ? (int)(rounds / divisor) : 1;
}

#endif
