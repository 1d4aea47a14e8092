/*
 * Summary statistics over samples: used by the harness for per-rank
 * timings and by the analysis for cross-rank figures.
 */
#ifndef GCB_STATS_H
#define GCB_STATS_H

#include <stddef.h>

struct gcb_stats {
  size_t n;
  double min, median, mean, max;
  double stdev;   /* sample standard deviation (n - 1); 0 when n < 2 */
  double p99;     /* 99th percentile, linear interpolation */
};

/*
 * Summarises x[0..n). Sorts x in place (callers keep their own copy when the
 * order matters). n == 0 gives all-zero stats with n == 0. NaN samples are
 * not expected; callers filter them.
 */
void gcb_stats_compute(double *x, size_t n, struct gcb_stats *out);

/* Percentile q in [0, 100] of sorted[0..n), linear interpolation; 0 if n==0. */
double gcb_stats_percentile(const double *sorted, size_t n, double q);

/* Coefficient of variation stdev/mean; 0 when the mean is 0. */
double gcb_stats_cv(const struct gcb_stats *s);

#endif
