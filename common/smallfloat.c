/*
 * Small floating formats (see smallfloat.h). The four formats share one
 * encoder and one decoder, parameterised by exponent and mantissa width: a
 * value is scaled by the quantum of its binade (an exact power-of-two
 * scaling of a double) and rounded to an integer with nearbyint(), which
 * rounds to nearest even in the default rounding mode, so every format
 * rounds once, from the double.
 */
#include "common/smallfloat.h"

#include <math.h>
#include <stdbool.h>

/* fn: OCP "finite" variant (E4M3FN): no infinity, the all-ones exponent
 * holds normal numbers except the all-ones mantissa, which is NaN. */
struct minifloat {
  int ebits, mbits;
  bool fn;
};

static const struct minifloat formats[GCB_SF_COUNT] = {
    [GCB_SF_HALF] = {5, 10, false},
    [GCB_SF_BF16] = {8, 7, false},
    [GCB_SF_E4M3] = {4, 3, true},
    [GCB_SF_E5M2] = {5, 2, false},
};

static int mf_bias(const struct minifloat *f) {
  return (1 << (f->ebits - 1)) - 1;
}

static uint32_t mf_nan(const struct minifloat *f) {
  uint32_t emax = (1u << f->ebits) - 1, mmask = (1u << f->mbits) - 1;
  /* FN: the only NaN; IEEE: the quiet NaN with the top mantissa bit. */
  return emax << f->mbits | (f->fn ? mmask : 1u << (f->mbits - 1));
}

static double mf_decode(uint32_t code, const struct minifloat *f) {
  uint32_t emax = (1u << f->ebits) - 1, mmask = (1u << f->mbits) - 1;
  uint32_t m = code & mmask, e = (code >> f->mbits) & emax;
  bool neg = (code >> (f->ebits + f->mbits)) & 1;
  int bias = mf_bias(f);
  double v;
  if (e == emax && (f->fn ? m == mmask : true))
    v = (f->fn || m != 0) ? NAN : INFINITY;
  else if (e == 0)
    v = ldexp((double)m, 1 - bias - f->mbits);
  else
    v = ldexp((double)(m | (mmask + 1)), (int)e - bias - f->mbits);
  return neg ? -v : v;
}

/* Magnitude code of |a| (finite, non-zero), before overflow handling;
 * the exponent field may exceed the format's range. */
static uint64_t mf_round(double a, const struct minifloat *f) {
  int bias = mf_bias(f), emin = 1 - bias, e2;
  (void)frexp(a, &e2);
  int e = e2 - 1 < emin ? emin : e2 - 1; /* subnormals share emin's quantum */
  uint64_t n = (uint64_t)nearbyint(ldexp(a, f->mbits - e));
  if (n >> (f->mbits + 1)) { /* rounded up into the next binade */
    n >>= 1;
    e++;
  }
  uint64_t efield = (n >> f->mbits) ? (uint64_t)(e + bias) : 0;
  return efield << f->mbits | (n & ((1u << f->mbits) - 1));
}

static uint32_t mf_encode(double v, const struct minifloat *f) {
  uint32_t sign = signbit(v) ? 1u << (f->ebits + f->mbits) : 0;
  uint32_t emax = (1u << f->ebits) - 1;
  uint32_t nan = mf_nan(f), inf = f->fn ? nan : emax << f->mbits;
  double a = fabs(v);
  if (isnan(v))
    return sign | nan;
  if (isinf(a))
    return sign | inf;
  if (a == 0)
    return sign;
  uint64_t code = mf_round(a, f);
  /* IEEE: the all-ones exponent is infinity; FN: only the NaN code and
   * beyond overflow (values up to max + half an ulp round to max). */
  if (code >= (uint64_t)(f->fn ? nan : inf))
    return sign | inf;
  return sign | (uint32_t)code;
}

uint32_t gcb_smallfloat_encode(enum gcb_smallfloat f, double v) {
  return (int)f >= 0 && f < GCB_SF_COUNT ? mf_encode(v, &formats[f]) : 0;
}

double gcb_smallfloat_decode(enum gcb_smallfloat f, uint32_t code) {
  if ((int)f < 0 || f >= GCB_SF_COUNT)
    return NAN;
  const struct minifloat *m = &formats[f];
  return mf_decode(code & ((1u << (1 + m->ebits + m->mbits)) - 1), m);
}

double gcb_half_decode(uint16_t h) {
  return gcb_smallfloat_decode(GCB_SF_HALF, h);
}
double gcb_bf16_decode(uint16_t h) {
  return gcb_smallfloat_decode(GCB_SF_BF16, h);
}
double gcb_e4m3_decode(uint8_t x) {
  return gcb_smallfloat_decode(GCB_SF_E4M3, x);
}
