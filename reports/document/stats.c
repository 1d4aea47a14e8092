/* Summary statistics: sort once, then read order statistics off the array. */
#include "reports/document/stats.h"

#include <math.h>
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

double gcb_stats_cv(const struct gcb_stats *s) {
  return s->mean != 0 ? s->stdev / s->mean : 0.0;
}
