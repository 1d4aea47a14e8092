/*
 * "%.*g" without printf's arbitrary-precision arithmetic: x times 10^k
 * (k so that the product has `precision` digits before the point) is one
 * correctly rounded operation while 10^k is exact (|k| <= 22), so its
 * error is below half a unit in its last place. Rounding to an integer
 * can only come out differently from the exact decimal expansion when the
 * fraction is that close to one half: those values, and the rare ones
 * outside the exact powers, are left to snprintf.
 */
#include "reports/document/fmtnum.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const double gcb__pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
#define MAX_EXACT 22
#define MAX_PRECISION 15

static const char pairs[] = "00010203040506070809101112131415161718192021222"
                            "32425262728293031323334353637383940414243444546"
                            "47484950515253545556575859606162636465666768697"
                            "07172737475767778798081828384858687888990919293"
                            "949596979899";

static size_t slow(char *buf, double x, int precision) {
  int n = snprintf(buf, GCB_FMTNUM_MAX, "%.*g", precision, x);
  return n > 0 ? (size_t)n : 0;
}

/* The decimal exponent of a (> 0, finite), or one less: floor(log10(2)
 * times the binary exponent), from the bits (frexp for subnormals), with
 * 78913 / 2^18 for log10(2) (off by one at most, which callers retry). */
static int guess_exp10(double a) {
  uint64_t bits;
  memcpy(&bits, &a, sizeof bits);
  int b = (int)((bits >> 52) & 0x7ff) - 1023;
  if (b == -1023)
    frexp(a, &b), b--;
  long t = (long)b * 78913;
  return (int)(t >= 0 ? t >> 18 : -((-t + (1L << 18) - 1) >> 18));
}

/* a (> 0) as digits: *m in [10^(p-1), 10^p) and the decimal exponent of
 * its first digit; false when the fast path cannot be sure. */
static int round_digits(double a, int p, uint64_t *m, int *exp10) {
  int e = guess_exp10(a);
  for (int tries = 0; tries < 3; tries++) {
    int k = p - 1 - e;
    if (k > MAX_EXACT || k < -MAX_EXACT)
      return 0;
    double s = k >= 0 ? a * gcb__pow10[k] : a / gcb__pow10[-k];
    if (s < gcb__pow10[p - 1]) {
      e--;
      continue;
    }
    if (s >= gcb__pow10[p]) {
      e++;
      continue;
    }
    uint64_t whole = (uint64_t)s; /* s > 0: truncation is floor */
    double frac = s - (double)whole;
    if (fabs(frac - 0.5) <= s * 0x1p-50)
      return 0; /* too close to a half to round without the exact value */
    *m = whole + (frac > 0.5);
    if (*m == (uint64_t)gcb__pow10[p]) { /* 9.99..95 rounds up to 10 */
      *m /= 10;
      e++;
    }
    *exp10 = e;
    return 1;
  }
  return 0;
}

/*
 * a (> 0) to 17 digits, exactly: with p = 10^k exact, hi = a * p rounded
 * and lo = fma(a, p, -hi) its exact error, so hi + lo IS a * 10^k. The
 * 17-digit range [10^16, 10^17) lies above 2^53, where every double is a
 * whole number: hi is the integer part give or take lo (|lo| <= 8), and
 * floor(lo) and lo - floor(lo) are exact too. Only an exact half is left
 * to snprintf (its tie rule), and magnitudes outside 10^-6 .. 10^17.
 */
static int round_digits17(double a, uint64_t *m, int *exp10) {
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
  return 0; /* hi must be rounded to double (x87 keeps 64-bit products) */
#endif
  int e = guess_exp10(a);
  for (int tries = 0; tries < 3; tries++) {
    int k = 16 - e;
    if (k > MAX_EXACT || k < 0)
      return 0;
    double hi = a * gcb__pow10[k], lo = fma(a, gcb__pow10[k], -hi);
    if (hi < 1e16 || (hi == 1e16 && lo < 0)) {
      e--;
      continue;
    }
    if (hi > 1e17 || (hi == 1e17 && lo >= 0)) {
      e++;
      continue;
    }
    double below = floor(lo), frac = lo - below;
    if (frac == 0.5)
      return 0;
    *m = (uint64_t)((int64_t)hi + (int64_t)below) + (frac > 0.5);
    if (*m == 100000000000000000ull) { /* 9.99..95 rounds up to 10 */
      *m /= 10;
      e++;
    }
    *exp10 = e;
    return 1;
  }
  return 0;
}

/* v (< 10^8) as 8 digits, zero-padded: four independent pairs, in 32-bit
 * arithmetic. */
static void put8(char *d, uint32_t v) {
  uint32_t hi = v / 10000, lo = v % 10000;
  memcpy(d, pairs + 2 * (hi / 100), 2);
  memcpy(d + 2, pairs + 2 * (hi % 100), 2);
  memcpy(d + 4, pairs + 2 * (lo / 100), 2);
  memcpy(d + 6, pairs + 2 * (lo % 100), 2);
}

/* m (< 10^17) as 17 digits, zero-padded: two 64-bit divisions, then the
 * halves apart (a 64-bit division per pair of digits, each waiting for the
 * one before, was most of the time of a number). */
static void put_digits17(char *d, uint64_t m) {
  uint64_t rest = m % 10000000000000000ull;
  d[0] = (char)('0' + m / 10000000000000000ull);
  put8(d + 1, (uint32_t)(rest / 100000000));
  put8(d + 9, (uint32_t)(rest % 100000000));
}

static char *put_exponent(char *o, int e) {
  *o++ = 'e';
  *o++ = e < 0 ? '-' : '+';
  unsigned u = (unsigned)(e < 0 ? -e : e);
  char tmp[8];
  int n = 0;
  do
    tmp[n++] = (char)('0' + u % 10);
  while ((u /= 10) > 0);
  if (n < 2)
    tmp[n++] = '0';
  while (n > 0)
    *o++ = tmp[--n];
  return o;
}

size_t gcb_fmtnum_g(char *buf, double x, int precision) {
  uint64_t m;
  int e;
  if (precision == 17) {
    if (!isfinite(x) || x == 0 || !round_digits17(fabs(x), &m, &e))
      return slow(buf, x, precision);
  } else if (precision < 1 || precision > MAX_PRECISION || !isfinite(x) ||
             x == 0 || !round_digits(fabs(x), precision, &m, &e))
    return slow(buf, x, precision);
  char all[17], *d = all + 17 - precision; /* m has precision digits */
  put_digits17(all, m);
  int last = precision - 1; /* trailing zeros are dropped, as %g does */
  while (last > 0 && d[last] == '0')
    last--;
  char *o = buf;
  if (x < 0)
    *o++ = '-';
  if (e >= -4 && e < precision) {
    int i = 0;
    if (e < 0) {
      *o++ = '0';
      *o++ = '.';
      for (int z = -1; z > e; z--)
        *o++ = '0';
    } else {
      for (; i <= e; i++)
        *o++ = d[i];
      if (i <= last)
        *o++ = '.';
    }
    for (; i <= last; i++)
      *o++ = d[i];
  } else {
    *o++ = d[0];
    if (last > 0)
      *o++ = '.';
    for (int i = 1; i <= last; i++)
      *o++ = d[i];
    o = put_exponent(o, e);
  }
  *o = '\0';
  return (size_t)(o - buf);
}

/* m with its last `decimals` digits after a point, after a '-' when neg,
 * into buf; returns the length. */
static size_t put_fixed(char *buf, uint64_t m, int decimals, bool neg) {
  char digits[24], *at = digits + sizeof digits;
  for (int d = 0; d < decimals; d++, m /= 10)
    *--at = (char)('0' + m % 10);
  if (decimals > 0)
    *--at = '.';
  do
    *--at = (char)('0' + m % 10);
  while ((m /= 10) != 0);
  if (neg)
    *--at = '-';
  size_t n = (size_t)(digits + sizeof digits - at);
  memcpy(buf, at, n);
  buf[n] = '\0';
  return n;
}

/* The same argument as round_digits: x * 10^d is one correctly rounded
 * product, so its rounding to a whole number can differ from the exact
 * decimal's only when its fraction is that close to one half. Below 2^52
 * the fraction is exact. printf writes the sign of -0 and of a negative x
 * that rounds to zero. */
size_t gcb_fmtnum_f(char *buf, double x, int decimals) {
  if (decimals < 0 || decimals > 9 || !isfinite(x))
    return 0;
  double s = fabs(x) * gcb__pow10[decimals];
  if (!(s < 0x1p52))
    return 0;
  double whole = floor(s), frac = s - whole;
  if (fabs(frac - 0.5) <= s * 0x1p-50)
    return 0;
  return put_fixed(buf, (uint64_t)whole + (frac > 0.5), decimals, signbit(x));
}

size_t gcb_fmtnum_ll(char *buf, long long v) {
  return put_fixed(buf,
                   v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v,
                   0, v < 0);
}
