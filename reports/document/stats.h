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
  double stdev; /* sample standard deviation (n - 1); 0 when n < 2 */
  double p99;   /* 99th percentile, linear interpolation */
};

/*
 * Summarises x[0..n). Sorts x in place (callers keep their own copy when the
 * order matters). n == 0 gives all-zero stats with n == 0. NaN samples are
 * not expected; callers filter them.
 */
void gcb_stats_compute(double *x, size_t n, struct gcb_stats *out);

/* Percentile q in [0, 100] of sorted[0..n), linear interpolation; 0 if n==0. */
double gcb_stats_percentile(const double *sorted, size_t n, double q);

/*
 * The median of x[0..n) -- x[n / 2] of the sorted array, or the mean of
 * the middle two for even n -- exactly as sorting x with a numeric
 * comparison and reading it off would give it, NaN and -0 included, but
 * in O(n) time (a selection) when x holds neither. Reorders x. NAN when
 * n == 0.
 */
double gcb_stats_median(double *x, size_t n);

/* Internal (tested): puts the kth smallest of x[0..n) at x[kth], none
 * larger before it and none smaller after it, for x without NaN, in
 * O(n) expected time; after `budget` rounds of partitioning it sorts
 * what is left. Nothing for kth >= n. */
void gcb__stats_select(double *x, size_t n, size_t kth, int budget);

#endif
