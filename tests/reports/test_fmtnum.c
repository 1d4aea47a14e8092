/*
 * gcb_fmtnum_g writes what printf's %.*g writes, character for character:
 * checked against snprintf on values of every magnitude, on the boundaries
 * where %g changes style or rounding carries into a new digit, and on
 * values half way between two results. gcb_fmtnum_f writes what %.*f
 * writes, or nothing.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "reports/document/fmtnum.h"
#include "tests/test_rounds.h"

static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static void expect_same(double x, int precision) {
  char fast[GCB_FMTNUM_MAX], slow[64];
  size_t n = gcb_fmtnum_g(fast, x, precision);
  snprintf(slow, sizeof slow, "%.*g", precision, x);
  cr_expect_str_eq(fast, slow, "%%.%dg of %a", precision, x);
  cr_expect_eq(n, strlen(slow), "%%.%dg of %a", precision, x);
}

Test(fmtnum, random_bit_patterns_match_printf) {
  for (int i = 0; i < gcb_test_rounds(300000); i++) {
    uint64_t bits = next();
    double x;
    memcpy(&x, &bits, sizeof x);
    expect_same(x, 1 + (int)(next() % 15));
  }
}

Test(fmtnum, measurement_like_values_match_printf) {
  /* Times from nanoseconds to minutes, rates up to PFLOP/s: the values
   * results.csv holds, at the precision it uses (10). */
  for (int i = 0; i < gcb_test_rounds(300000); i++) {
    double x = ldexp((double)(next() >> 11), (int)(next() % 120) - 113);
    expect_same(x, 10);
    expect_same(-x, 6);
  }
}

Test(fmtnum, seventeen_digits_match_printf) {
  /* metrics.prom's "%.17g": random bit patterns (most outside the fast
   * path's range), values of every magnitude it covers, and integers and
   * dyadic fractions near whole numbers, where exact halves are. */
  for (int i = 0; i < gcb_test_rounds(400000); i++) {
    uint64_t bits = next();
    double x;
    memcpy(&x, &bits, sizeof x);
    expect_same(x, 17);
    expect_same(ldexp((double)(next() >> 11), (int)(next() % 120) - 113), 17);
    expect_same(-ldexp((double)(next() >> 11), (int)(next() % 12) - 53), 17);
  }
  for (int k = 0; k < gcb_test_rounds(100000); k++) {
    double x = (double)(next() >> (11 + next() % 40));
    expect_same(x, 17);
    expect_same(x + 0.5, 17);
    expect_same(x / 64, 17);
    expect_same(nextafter(x + 0.5, 0), 17);
  }
}

Test(fmtnum, seventeen_digits_at_the_edges_match_printf) {
  /* Where the exponent guess, the power of ten or the carry changes. */
  for (int e = -8; e <= 19; e++) {
    double p = pow(10, e);
    for (int s = -40; s <= 40; s++) {
      double x = p;
      for (int k = 0; k < (s < 0 ? -s : s); k++)
        x = nextafter(x, s < 0 ? 0 : INFINITY);
      expect_same(x, 17);
      expect_same(x * 0.99999999999999995, 17);
      expect_same(x * 9.9999999999999995, 17);
    }
  }
}

Test(fmtnum, boundaries_of_style_and_rounding_match_printf) {
  static const double values[] = {0.0,
                                  -0.0,
                                  1,
                                  9.9999999995,
                                  9.99999999949,
                                  99999.5,
                                  1e-4,
                                  9.9e-5,
                                  0.0001,
                                  0.00009999999999,
                                  1e10,
                                  9999999999.5,
                                  1e15,
                                  1e16,
                                  1e22,
                                  1e23,
                                  1e-22,
                                  1e-23,
                                  5e-324,
                                  DBL_MAX,
                                  DBL_MIN,
                                  0.5,
                                  1.5,
                                  2.5,
                                  0.125,
                                  1.0 / 3,
                                  2.0 / 3,
                                  123456789012345678.0,
                                  INFINITY,
                                  -INFINITY,
                                  NAN};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
    for (int p = 1; p <= 17; p++)
      expect_same(values[i], p);
}

Test(fmtnum, exact_halves_are_rounded_as_printf_rounds_them) {
  /* k + 0.5 is exact in binary: printf rounds it to even. */
  for (int k = 0; k < 2000; k++) {
    expect_same(k + 0.5, (int)floor(log10(k + 1.0)) + 1);
    expect_same((k + 0.5) / 1024, 6);
  }
}

Test(fmtnum, integers_match_printf) {
  static const long long edge[] = {
      0,         1,         -1,           9, 10, -10, 999999999999LL,
      LLONG_MAX, LLONG_MIN, LLONG_MIN + 1};
  char got[GCB_FMTNUM_MAX], want[GCB_FMTNUM_MAX];
  for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
    snprintf(want, sizeof want, "%lld", edge[i]);
    cr_expect_eq(gcb_fmtnum_ll(got, edge[i]), strlen(want));
    cr_expect_str_eq(got, want);
  }
  unsigned long long x = 88172645463325252ull;
  size_t wrong = 0;
  for (int i = 0; i < gcb_test_rounds(100000); i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    long long v = (long long)(x >> (x % 60));
    v = i % 2 ? -v : v;
    snprintf(want, sizeof want, "%lld", v);
    wrong += gcb_fmtnum_ll(got, v) != strlen(want) || strcmp(got, want) != 0;
  }
  cr_expect_eq(wrong, 0, "%zu of 100000 integers differ from printf", wrong);
}

/* %.*f: the same text whenever the fast path writes one, and it writes one
 * for the values it exists for (times in seconds, junit.xml's "%.6f"). */
static void expect_same_f(double x, int decimals, size_t *written) {
  char fast[GCB_FMTNUM_MAX], slow[400];
  size_t n = gcb_fmtnum_f(fast, x, decimals);
  if (n == 0)
    return;
  snprintf(slow, sizeof slow, "%.*f", decimals, x);
  cr_expect_str_eq(fast, slow, "%%.%df of %a", decimals, x);
  cr_expect_eq(n, strlen(slow), "%%.%df of %a", decimals, x);
  ++*written;
}

Test(fmtnum, fixed_decimals_match_printf) {
  size_t written = 0, tried = 0;
  for (int i = 0; i < gcb_test_rounds(300000); i++, tried += 3) {
    uint64_t bits = next();
    double x;
    memcpy(&x, &bits, sizeof x);
    expect_same_f(x, (int)(next() % 10), &written);
    double t = ldexp((double)(next() >> 11), (int)(next() % 70) - 83);
    expect_same_f(t, 6, &written);
    expect_same_f(-t, (int)(next() % 10), &written);
  }
  cr_expect_gt(written, tried / 2, "%zu of %zu written", written, tried);
  static const double edges[] = {0.0,       -0.0,      0.5,       1.5,
                                 2.5,       0.0000005, 0.0000015, -0.0000004,
                                 9.9999995, 1e-7,      4503599.6, 1234.5678915,
                                 1e15,      NAN,       INFINITY,  -1e300};
  for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
    for (int d = 0; d <= 10; d++)
      expect_same_f(edges[i], d, &written);
  char buf[GCB_FMTNUM_MAX];
  cr_expect_eq(gcb_fmtnum_f(buf, 0.029133, 6), 8);
  cr_expect_str_eq(buf, "0.029133");
  cr_expect_eq(gcb_fmtnum_f(buf, 1e300, 6), 0, "too large: printf's");
}
