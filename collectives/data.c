/*
 * Element data for collective validation: conversions, the input pattern,
 * expected values and the comparison (contracts in data.h).
 *
 * The four small floating formats (half, bfloat16, fp8 E4M3 and E5M2) are
 * encoded and decoded by common/smallfloat.c, the suite's one copy.
 *
 * Patterns are designed around exactness rather than checked afterwards:
 * each reduction's every partial result is an integer no larger than the
 * type represents exactly, so the result is the same in any reduction
 * order (ring, tree, NVLS) and compares exactly. Only avg on floating
 * types, which NCCL computes as sum(x * (1/n)), needs a tolerance.
 */
#include "collectives/data.h"

#include "common/smallfloat.h"

#include <math.h>
#include <string.h>

/* The small floating formats' rows in common/smallfloat.h; -1: none. */
static int smallfloat_of(enum gcb_coll_dtype t) {
  switch (t) {
  case GCB_COLL_HALF:
    return GCB_SF_HALF;
  case GCB_COLL_BFLOAT16:
    return GCB_SF_BF16;
  case GCB_COLL_F8E4M3:
    return GCB_SF_E4M3;
  case GCB_COLL_F8E5M2:
    return GCB_SF_E5M2;
  default:
    return -1;
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
    return gcb_smallfloat_decode(smallfloat_of(t), ((const uint16_t *)buf)[i]);
  case GCB_COLL_F8E4M3:
  case GCB_COLL_F8E5M2:
    return gcb_smallfloat_decode(smallfloat_of(t), ((const uint8_t *)buf)[i]);
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
    ((uint16_t *)buf)[i] = (uint16_t)gcb_smallfloat_encode(smallfloat_of(t), v);
    break;
  case GCB_COLL_F8E4M3:
  case GCB_COLL_F8E5M2:
    ((uint8_t *)buf)[i] = (uint8_t)gcb_smallfloat_encode(smallfloat_of(t), v);
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
  int f = smallfloat_of(t);
  double a = fabs(v);
  if (t == GCB_COLL_FLOAT)
    return (double)nextafterf((float)a, INFINITY) - (double)(float)a;
  if (t == GCB_COLL_DOUBLE)
    return nextafter(a, INFINITY) - a;
  if (f < 0)
    return 1;
  uint32_t code = gcb_smallfloat_encode(f, a);
  double here = gcb_smallfloat_decode(f, code);
  double up = gcb_smallfloat_decode(f, code + 1);
  if (!isfinite(up)) /* the largest finite value: use the spacing below */
    return here - gcb_smallfloat_decode(f, code - 1);
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
  return t == GCB_COLL_FLOAT || t == GCB_COLL_DOUBLE || smallfloat_of(t) >= 0;
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

size_t gcb__coll_rotation_stride(size_t span) {
  return (span + 255) / 256 * 256;
}

size_t gcb__coll_rotation_slots(size_t span, size_t window) {
  size_t stride = gcb__coll_rotation_stride(span);
  size_t slots = stride > 0 ? window / stride : GCB__COLL_ROTATE_MAX_SLOTS;
  if (slots < 1)
    return 1;
  return slots > GCB__COLL_ROTATE_MAX_SLOTS ? GCB__COLL_ROTATE_MAX_SLOTS
                                            : slots;
}
