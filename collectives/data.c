/*
 * Element data for collective validation: conversions, the input pattern,
 * expected values and the comparison (contracts in data.h).
 *
 * The four small floating formats share one encoder and one decoder,
 * parameterised by exponent and mantissa width: a value is scaled by the
 * quantum of its binade (an exact power-of-two scaling of a double) and
 * rounded to an integer with nearbyint(), which rounds to nearest even in
 * the default rounding mode, so every format rounds once, from the double.
 *
 * Patterns are designed around exactness rather than checked afterwards:
 * each reduction's every partial result is an integer no larger than the
 * type represents exactly, so the result is the same in any reduction
 * order (ring, tree, NVLS) and compares exactly. Only avg on floating
 * types, which NCCL computes as sum(x * (1/n)), needs a tolerance.
 */
#include "collectives/data.h"

#include <math.h>
#include <string.h>

/* A binary floating format narrower than float. fn: OCP "finite" variant
 * (E4M3FN): no infinity, the all-ones exponent holds normal numbers except
 * the all-ones mantissa, which is NaN. */
struct minifloat {
  int ebits, mbits;
  bool fn;
};

static const struct minifloat fmt_half = {5, 10, false};
static const struct minifloat fmt_bf16 = {8, 7, false};
static const struct minifloat fmt_e4m3 = {4, 3, true};
static const struct minifloat fmt_e5m2 = {5, 2, false};

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

uint16_t gcb__half_encode(double v) {
  return (uint16_t)mf_encode(v, &fmt_half);
}
double gcb__half_decode(uint16_t h) {
  return mf_decode(h, &fmt_half);
}
uint16_t gcb__bf16_encode(double v) {
  return (uint16_t)mf_encode(v, &fmt_bf16);
}
double gcb__bf16_decode(uint16_t h) {
  return mf_decode(h, &fmt_bf16);
}
uint8_t gcb__e4m3_encode(double v) {
  return (uint8_t)mf_encode(v, &fmt_e4m3);
}
double gcb__e4m3_decode(uint8_t h) {
  return mf_decode(h, &fmt_e4m3);
}
uint8_t gcb__e5m2_encode(double v) {
  return (uint8_t)mf_encode(v, &fmt_e5m2);
}
double gcb__e5m2_decode(uint8_t h) {
  return mf_decode(h, &fmt_e5m2);
}

static const struct minifloat *minifloat_of(enum gcb_coll_dtype t) {
  switch (t) {
  case GCB_COLL_HALF:
    return &fmt_half;
  case GCB_COLL_BFLOAT16:
    return &fmt_bf16;
  case GCB_COLL_F8E4M3:
    return &fmt_e4m3;
  case GCB_COLL_F8E5M2:
    return &fmt_e5m2;
  default:
    return NULL;
  }
}

/* ---- load and store ------------------------------------------------------ */

/* Conversions to integers saturate: out-of-range doubles are undefined
 * behaviour in C, and only tests ever store such values. */
static double clamp(double v, double lo, double hi) {
  return isnan(v) ? 0 : v < lo ? lo : v > hi ? hi : v;
}

double gcb__coll_load(enum gcb_coll_dtype t, const void *buf, size_t i) {
  switch (t) {
  case GCB_COLL_INT8:
    return ((const int8_t *)buf)[i];
  case GCB_COLL_UINT8:
    return ((const uint8_t *)buf)[i];
  case GCB_COLL_INT32:
    return ((const int32_t *)buf)[i];
  case GCB_COLL_UINT32:
    return ((const uint32_t *)buf)[i];
  case GCB_COLL_INT64:
    return (double)((const int64_t *)buf)[i];
  case GCB_COLL_UINT64:
    return (double)((const uint64_t *)buf)[i];
  case GCB_COLL_FLOAT:
    return ((const float *)buf)[i];
  case GCB_COLL_DOUBLE:
    return ((const double *)buf)[i];
  case GCB_COLL_HALF:
  case GCB_COLL_BFLOAT16:
    return mf_decode(((const uint16_t *)buf)[i], minifloat_of(t));
  case GCB_COLL_F8E4M3:
  case GCB_COLL_F8E5M2:
    return mf_decode(((const uint8_t *)buf)[i], minifloat_of(t));
  default:
    return NAN;
  }
}

void gcb__coll_store(enum gcb_coll_dtype t, void *buf, size_t i, double v) {
  switch (t) {
  case GCB_COLL_INT8:
    ((int8_t *)buf)[i] = (int8_t)clamp(v, INT8_MIN, INT8_MAX);
    break;
  case GCB_COLL_UINT8:
    ((uint8_t *)buf)[i] = (uint8_t)clamp(v, 0, UINT8_MAX);
    break;
  case GCB_COLL_INT32:
    ((int32_t *)buf)[i] = (int32_t)clamp(v, INT32_MIN, INT32_MAX);
    break;
  case GCB_COLL_UINT32:
    ((uint32_t *)buf)[i] = (uint32_t)clamp(v, 0, UINT32_MAX);
    break;
  case GCB_COLL_INT64: /* 2^63 itself is out of range: stop one binade short */
    ((int64_t *)buf)[i] = (int64_t)clamp(v, -0x1p63, 0x1.fffffffffffffp62);
    break;
  case GCB_COLL_UINT64:
    ((uint64_t *)buf)[i] = (uint64_t)clamp(v, 0, 0x1.fffffffffffffp63);
    break;
  case GCB_COLL_FLOAT:
    ((float *)buf)[i] = (float)v;
    break;
  case GCB_COLL_DOUBLE:
    ((double *)buf)[i] = v;
    break;
  case GCB_COLL_HALF:
  case GCB_COLL_BFLOAT16:
    ((uint16_t *)buf)[i] = (uint16_t)mf_encode(v, minifloat_of(t));
    break;
  case GCB_COLL_F8E4M3:
  case GCB_COLL_F8E5M2:
    ((uint8_t *)buf)[i] = (uint8_t)mf_encode(v, minifloat_of(t));
    break;
  default:
    break;
  }
}

double gcb__coll_round(enum gcb_coll_dtype t, double v) {
  uint64_t cell[1];
  gcb__coll_store(t, cell, 0, v);
  return gcb__coll_load(t, cell, 0);
}

double gcb__coll_ulp(enum gcb_coll_dtype t, double v) {
  const struct minifloat *f = minifloat_of(t);
  double a = fabs(v);
  if (t == GCB_COLL_FLOAT)
    return (double)nextafterf((float)a, INFINITY) - (double)(float)a;
  if (t == GCB_COLL_DOUBLE)
    return nextafter(a, INFINITY) - a;
  if (f == NULL)
    return 1;
  uint32_t code = mf_encode(a, f);
  double here = mf_decode(code, f), up = mf_decode(code + 1, f);
  if (!isfinite(up)) /* the largest finite value: use the spacing below */
    return here - mf_decode(code - 1, f);
  return up - here;
}

/* ---- patterns ------------------------------------------------------------ */

/* Largest n with 0..n exact and in range. uint8 stops at 254 so that no
 * result equals the poison byte; 64-bit integers at 2^53, where loading
 * them as doubles stops being exact. */
double gcb__coll_exact_max(enum gcb_coll_dtype t) {
  static const double exact[GCB_COLL_DTYPE_COUNT] = {
      [GCB_COLL_INT8] = 127,         [GCB_COLL_UINT8] = 254,
      [GCB_COLL_INT32] = 0x1p31 - 1, [GCB_COLL_UINT32] = 0x1p32 - 2,
      [GCB_COLL_INT64] = 0x1p53,     [GCB_COLL_UINT64] = 0x1p53,
      [GCB_COLL_HALF] = 2048,        [GCB_COLL_FLOAT] = 0x1p24,
      [GCB_COLL_DOUBLE] = 0x1p53,    [GCB_COLL_BFLOAT16] = 256,
      [GCB_COLL_F8E4M3] = 16,        [GCB_COLL_F8E5M2] = 8,
  };
  return (int)t >= 0 && t < GCB_COLL_DTYPE_COUNT ? exact[t] : 0;
}

/* Largest k with 2^k representable (the product pattern's limit). */
static int max_twos(enum gcb_coll_dtype t) {
  static const int twos[GCB_COLL_DTYPE_COUNT] = {
      [GCB_COLL_INT8] = 6,      [GCB_COLL_UINT8] = 7,
      [GCB_COLL_INT32] = 30,    [GCB_COLL_UINT32] = 31,
      [GCB_COLL_INT64] = 62,    [GCB_COLL_UINT64] = 63,
      [GCB_COLL_HALF] = 15,     [GCB_COLL_FLOAT] = 127,
      [GCB_COLL_DOUBLE] = 1023, [GCB_COLL_BFLOAT16] = 127,
      [GCB_COLL_F8E4M3] = 8,    [GCB_COLL_F8E5M2] = 15,
  };
  return twos[t];
}

static bool is_floating(enum gcb_coll_dtype t) {
  return t == GCB_COLL_FLOAT || t == GCB_COLL_DOUBLE || minifloat_of(t);
}

/* Values stay small: a wrong element then reads as an obvious number. */
enum { SPAN_CAP = 127 };

void gcb__coll_pat_init(struct gcb__coll_pat *p, enum gcb_coll_dtype t,
                        bool reduces, enum gcb_coll_redop op, int nranks) {
  double exact = gcb__coll_exact_max(t);
  int n = nranks > 0 ? nranks : 1;
  *p = (struct gcb__coll_pat){
      .dtype = t, .redop = op, .reduces = reduces, .nranks = n, .active = n};
  p->span = (uint32_t)fmin(exact, SPAN_CAP);
  if (!reduces)
    return;
  if (op == GCB_REDOP_AVG && is_floating(t)) {
    /* nccl-tests' choice: NCCL divides each input before summing, so the
     * result depends on the order of a sum of rounded terms unless at most
     * two of them are non-zero. */
    p->active = n < 2 ? n : 2;
    p->span = (uint32_t)fmax(1, fmin(SPAN_CAP, floor(exact / p->active)));
  } else if (op == GCB_REDOP_SUM || op == GCB_REDOP_AVG) {
    p->active = (int)fmin(n, exact);
    p->span = (uint32_t)fmax(1, fmin(SPAN_CAP, floor(exact / p->active)));
  } else if (op == GCB_REDOP_PROD) {
    p->active = n < max_twos(t) ? n : max_twos(t);
  }
}

/* splitmix64's finaliser: cheap, and every input bit moves every output
 * bit, so neighbouring elements and ranks get unrelated values. */
static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* Whether rank r is among the `active` ranks of element e: a window of
 * consecutive ranks that rotates with e, so every rank contributes to
 * some elements. */
static bool is_active(const struct gcb__coll_pat *p, int r, size_t e) {
  size_t n = (size_t)p->nranks;
  return ((size_t)r + n - e % n) % n < (size_t)p->active;
}

double gcb__coll_input(const struct gcb__coll_pat *p, int r, size_t e) {
  uint64_t h = mix((uint64_t)(uint32_t)r << 40 ^ (uint64_t)e);
  if (!p->reduces || p->redop == GCB_REDOP_MAX || p->redop == GCB_REDOP_MIN)
    return (double)(1 + h % p->span);
  bool on = is_active(p, r, e);
  if (p->redop == GCB_REDOP_PROD)
    return on && (h & 1) ? 2 : 1;
  return on ? (double)(1 + h % p->span) : 0;
}

static double combine(enum gcb_coll_redop op, double acc, double x) {
  switch (op) {
  case GCB_REDOP_PROD:
    return acc * x;
  case GCB_REDOP_MAX:
    return x > acc ? x : acc;
  case GCB_REDOP_MIN:
    return x < acc ? x : acc;
  default:
    return acc + x; /* sum, and avg's sum before the division */
  }
}

/* avg on a floating type as NCCL computes it (PreMulSum) and nccl-tests
 * predicts it: each input times 1/n, the product in float (double for
 * double) rounded to the type, then summed in the type. Only two inputs
 * are non-zero, so the order of the sum does not matter. */
static double premul_avg(const struct gcb__coll_pat *p, size_t e) {
  double acc = 0;
  for (int r = 0; r < p->nranks; r++) {
    double x = gcb__coll_input(p, r, e), y;
    if (x == 0)
      continue;
    if (p->dtype == GCB_COLL_DOUBLE)
      y = x * (1.0 / p->nranks);
    else
      y = (float)((float)x * (1.0f / (float)p->nranks));
    acc = gcb__coll_round(p->dtype, acc + gcb__coll_round(p->dtype, y));
  }
  return acc;
}

double gcb__coll_expect(const struct gcb__coll_pat *p,
                        const struct gcb_coll_source *s) {
  if (s->from == GCB_COLL_FROM_RANK)
    return gcb__coll_round(p->dtype, gcb__coll_input(p, s->rank, s->elem));
  if (p->redop == GCB_REDOP_AVG && is_floating(p->dtype))
    return premul_avg(p, s->elem);
  double acc = gcb__coll_input(p, 0, s->elem);
  for (int r = 1; r < p->nranks; r++)
    acc = combine(p->redop, acc, gcb__coll_input(p, r, s->elem));
  if (p->redop == GCB_REDOP_AVG) /* integers: NCCL sums, then divides */
    acc = floor(acc / p->nranks);
  return gcb__coll_round(p->dtype, acc);
}

/* nccl-tests' tolerance for avg: 2 ulps, since NCCL multiplies in the type
 * or in float depending on the GPU architecture. */
int gcb__coll_tolerance(const struct gcb__coll_pat *p) {
  return p->reduces && p->redop == GCB_REDOP_AVG && is_floating(p->dtype) ? 2
                                                                          : 0;
}

bool gcb__coll_match(enum gcb_coll_dtype t, double got, double want, int ulps) {
  if (isnan(got) || isnan(want))
    return false;
  if (got == want)
    return true;
  return ulps > 0 && fabs(got - want) <= ulps * gcb__coll_ulp(t, want);
}

void gcb__coll_poison(enum gcb_coll_dtype t, void *buf, size_t n) {
  memset(buf, GCB__COLL_POISON, n * gcb_coll_dtype_size(t));
}

void gcb__coll_corrupt(enum gcb_coll_dtype t, void *buf, size_t i) {
  unsigned char *p = (unsigned char *)buf + i * gcb_coll_dtype_size(t);
  /* Through an integer of the element's width, so that the bit is the same
   * one on either byte order. */
  switch (gcb_coll_dtype_size(t)) {
  case 1:
    *p ^= 0x40;
    break;
  case 2: {
    uint16_t v;
    memcpy(&v, p, sizeof v);
    v ^= 0x4000;
    memcpy(p, &v, sizeof v);
    break;
  }
  case 4: {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    v ^= 0x40000000UL;
    memcpy(p, &v, sizeof v);
    break;
  }
  default: {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    v ^= 0x4000000000000000ULL;
    memcpy(p, &v, sizeof v);
    break;
  }
  }
}
