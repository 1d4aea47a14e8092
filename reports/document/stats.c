/* Summary statistics: sort once, then read order statistics off the array;
 * a median alone by selection, without the sort. */
#include "reports/document/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double gcb_stats_percentile(const double *sorted, size_t n, double q) {
  if (n == 0)
    return 0.0;
  if (q <= 0)
    return sorted[0];
  if (q >= 100)
    return sorted[n - 1];
  double pos = q / 100.0 * (double)(n - 1);
  size_t lo = (size_t)pos;
  double frac = pos - (double)lo;
  if (lo + 1 >= n)
    return sorted[n - 1];
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

void gcb_stats_compute(double *x, size_t n, struct gcb_stats *out) {
  memset(out, 0, sizeof *out);
  if (n == 0)
    return;
  qsort(x, n, sizeof *x, cmp_double);
  out->n = n;
  out->min = x[0];
  out->max = x[n - 1];
  out->median = gcb_stats_percentile(x, n, 50);
  out->p99 = gcb_stats_percentile(x, n, 99);

  /* Welford: stable for long runs of near-equal timings. */
  double mean = 0, m2 = 0;
  for (size_t i = 0; i < n; i++) {
    double d = x[i] - mean;
    mean += d / (double)(i + 1);
    m2 += d * (x[i] - mean);
  }
  out->mean = mean;
  out->stdev = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0.0;
}

/* x[a] and x[b] in order (a swap when x[b] < x[a]). */
static void order2(double *x, ptrdiff_t a, ptrdiff_t b) {
  if (x[b] < x[a]) {
    double t = x[a];
    x[a] = x[b];
    x[b] = t;
  }
}

/* Quickselect: median-of-three pivot, Hoare partition (which splits runs
 * of equal values evenly). Past the budget of rounds (an input built
 * against the pivot rule), the rest is sorted, which orders it as well. */
void gcb__stats_select(double *x, size_t n, size_t kth, int budget) {
  if (n == 0 || kth >= n || n > PTRDIFF_MAX)
    return;
  ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, k = (ptrdiff_t)kth;
  while (hi - lo >= 16) {
    if (budget-- == 0) {
      qsort(x + lo, (size_t)(hi - lo + 1), sizeof *x, cmp_double);
      return;
    }
    ptrdiff_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
    order2(x, lo, mid);
    order2(x, mid, hi);
    order2(x, lo, mid);
    double p = x[mid];
    while (i <= j) {
      while (x[i] < p)
        i++;
      while (x[j] > p)
        j--;
      if (i <= j)
        order2(x, i++, j--); /* a swap: x[i] >= p >= x[j] */
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return; /* x[j + 1 .. i - 1] all equal the pivot */
  }
  for (ptrdiff_t a = lo + 1; a <= hi; a++) { /* insertion sort */
    double v = x[a];
    ptrdiff_t b = a;
    for (; b > lo && x[b - 1] > v; b--)
      x[b] = x[b - 1];
    x[b] = v;
  }
}

double gcb_stats_median(double *x, size_t n) {
  if (n == 0)
    return NAN;
  /* Without NaN (which the sort's comparison calls equal to everything)
   * and without -0 (equal to +0 but printed apart), the values in sorted
   * order are fixed by the values alone, so any selection finds the ones
   * the sort would put in the middle. With either, sort as before. */
  bool plain = true;
  for (size_t i = 0; i < n && plain; i++)
    plain = !isnan(x[i]) && !(x[i] == 0 && signbit(x[i]));
  if (!plain) {
    qsort(x, n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
  }
  size_t k = n / 2;
  gcb__stats_select(x, n, k, 128);
  if (n % 2)
    return x[k];
  double below = x[0]; /* the largest of x[0..k): the sort's x[k - 1] */
  for (size_t i = 1; i < k; i++)
    below = x[i] > below ? x[i] : below;
  return (below + x[k]) / 2;
}
