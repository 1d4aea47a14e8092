/*
 * Pure helpers of the CUDA backend (see cuda_pure.h): tolerance table,
 * decoding of stored GEMM elements (the small floats through
 * common/smallfloat.h), the GEMM entry error, the p2p matrix text.
 */
#include "kernels/cuda_pure.h"

#include "common/smallfloat.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct gcb_gemm_rounding rounding[GCB_DTYPE_COUNT] = {
    [GCB_DTYPE_FP64] = {0, 0x1p-53, 0x1p-53},
    [GCB_DTYPE_FP32] = {0, 0x1p-24, 0x1p-24},
    /* each product of two tf32-rounded inputs: 2 * 2^-11 */
    [GCB_DTYPE_TF32] = {0x1p-10, 0x1p-24, 0x1p-24},
    [GCB_DTYPE_FP16] = {0, 0x1p-24, 0x1p-11},
    [GCB_DTYPE_BF16] = {0, 0x1p-24, 0x1p-8},
    /* DeepSeek-V3 technical report (2024), section 3.3.2: FP8 GEMM on
     * Hopper tensor cores retains about 14 bits of accumulation. */
    [GCB_DTYPE_FP8] = {0, 0x1p-14, 0x1p-8},
    [GCB_DTYPE_INT8] = {0, 0, 0},
};

const struct gcb_gemm_rounding *gcb_gemm_rounding(enum gcb_dtype t) {
  return (int)t >= 0 && t < GCB_DTYPE_COUNT ? &rounding[t] : NULL;
}

int gcb_gemm_min_cc(enum gcb_dtype t) {
  static const int min_cc[GCB_DTYPE_COUNT] = {
      [GCB_DTYPE_FP64] = 0,  [GCB_DTYPE_FP32] = 0,  [GCB_DTYPE_TF32] = 80,
      [GCB_DTYPE_FP16] = 70, [GCB_DTYPE_BF16] = 80, [GCB_DTYPE_FP8] = 89,
      [GCB_DTYPE_INT8] = 75,
  };
  return (int)t >= 0 && t < GCB_DTYPE_COUNT ? min_cc[t] : -1;
}

double gcb_gemm_tolerance(enum gcb_dtype t, uint64_t k) {
  const struct gcb_gemm_rounding *r = gcb_gemm_rounding(t);

  if (r == NULL)
    return -1.0;
  return 4.0 * (r->u_in + r->u_acc * sqrt((double)k)) + 8.0 * r->u_out;
}

double gcb_gemm_entry_error(const double *a, const double *b, uint64_t k,
                            double got) {
  long double ref = 0, squares = 0;

  if (!isfinite(got))
    return (double)INFINITY;
  for (uint64_t p = 0; p < k; p++) {
    long double prod = (long double)a[p] * b[p];
    ref += prod;
    squares += prod * prod;
  }
  long double diff = fabsl((long double)got - ref);
  return (double)(squares > 0 ? diff / sqrtl(squares) : diff);
}

long gcb_gemm_warmup_reps(double one_s, double target_s) {
  if (!(target_s > 0))
    return 0;
  if (!(one_s > 0) || !isfinite(one_s))
    return GCB_GEMM_WARMUP_MAX_REPS;
  double more = ceil(target_s / one_s) - 1;
  if (more <= 0)
    return 0;
  return more > (double)GCB_GEMM_WARMUP_MAX_REPS ? GCB_GEMM_WARMUP_MAX_REPS
                                                 : (long)more;
}

int gcb_gemm_pick_fastest(const double *times, int n) {
  int best = 0;
  for (int i = 1; i < n; i++)
    if (isfinite(times[i]) &&
        (!isfinite(times[best]) || times[i] < times[best]))
      best = i;
  return best;
}

double gcb_median_small(double *v, int n) {
  for (int i = 1; i < n; i++) /* insertion sort: n is a handful */
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  if (n <= 0)
    return (double)NAN;
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int gcb_gemm_decode(enum gcb_dtype t, const void *src, size_t n, double *dst) {
  const unsigned char *s = src;

  for (size_t i = 0; i < n; i++) {
    uint16_t h;
    float f;
    switch (t) {
    case GCB_DTYPE_FP64:
      memcpy(&dst[i], s + 8 * i, 8);
      break;
    case GCB_DTYPE_FP32:
    case GCB_DTYPE_TF32:
      memcpy(&f, s + 4 * i, 4);
      dst[i] = f;
      break;
    case GCB_DTYPE_FP16:
      memcpy(&h, s + 2 * i, 2);
      dst[i] = gcb_half_decode(h);
      break;
    case GCB_DTYPE_BF16:
      memcpy(&h, s + 2 * i, 2);
      dst[i] = gcb_bf16_decode(h);
      break;
    case GCB_DTYPE_FP8:
      dst[i] = gcb_e4m3_decode(s[i]);
      break;
    case GCB_DTYPE_INT8:
      dst[i] = (signed char)s[i];
      break;
    default:
      return -1;
    }
  }
  return 0;
}

/* snprintf at an offset that may already be past the end. */
static size_t put(char *buf, size_t len, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t put(char *buf, size_t len, size_t at, const char *fmt, ...) {
  va_list ap;
  char scratch[1];
  int n;

  va_start(ap, fmt);
  if (at < len)
    n = vsnprintf(buf + at, len - at, fmt, ap);
  else
    n = vsnprintf(scratch, 0, fmt, ap);
  va_end(ap);
  return n > 0 ? at + (size_t)n : at;
}

size_t gcb_p2p_matrix_format(const char *title, const double *values, int n,
                             const char (*labels)[32], char *buf, size_t len) {
  size_t at = 0;

  if (len > 0)
    buf[0] = '\0';
  at = put(buf, len, at, "%s\n%6s", title, "");
  for (int j = 0; j < n; j++)
    at = put(buf, len, at, " %9d", j);
  at = put(buf, len, at, "\n");
  for (int i = 0; i < n; i++) {
    at = put(buf, len, at, "%6d", i);
    for (int j = 0; j < n; j++) {
      double v = values[(size_t)i * (size_t)n + (size_t)j];
      at = isnan(v) ? put(buf, len, at, " %9s", "n/a")
                    : put(buf, len, at, " %9.2f", v);
    }
    at = put(buf, len, at, "\n");
  }
  for (int i = 0; i < n; i++)
    at = put(buf, len, at, "GPU %d: %s\n", i, labels[i]);
  return at;
}

int gcb_p2p_legs(enum gcb_p2p_dir dir) {
  return dir == GCB_P2P_DIR_BIDIR || dir == GCB_P2P_DIR_BIDIR_LEG ? 2 : 1;
}

enum gcb_p2p_lane_role gcb_p2p_lane_role(enum gcb_p2p_mode mode,
                                         enum gcb_p2p_dir dir, int lane) {
  bool two = gcb_p2p_legs(dir) == 2, staged = mode == GCB_P2P_STAGED;
  /* the second leg is timed with the first (BIDIR: the total) or beside
   * it (BIDIR_LEG: the first leg's figure alone) */
  enum gcb_p2p_lane_role second = !two ? GCB_P2P_UNUSED
                                  : dir == GCB_P2P_DIR_BIDIR_LEG
                                      ? GCB_P2P_BESIDE
                                      : GCB_P2P_TIMED;
  switch (lane) {
  case GCB_P2P_LANE_SRC:
    return GCB_P2P_TIMED;
  case GCB_P2P_LANE_SRC2:
    return second;
  case GCB_P2P_LANE_DST:
    return staged ? GCB_P2P_TIMED : GCB_P2P_UNUSED;
  case GCB_P2P_LANE_DST2:
    return staged ? second : GCB_P2P_UNUSED;
  default:
    return GCB_P2P_UNUSED;
  }
}
