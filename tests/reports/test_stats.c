/* Summary statistics: order statistics, mean, sample stdev, percentiles. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/stats.h"

struct stats_case {
  const char *what;
  double x[8];
  size_t n;
  struct gcb_stats want;
};

static const struct stats_case stats_cases[] = {
    {"single sample", {5}, 1, {1, 5, 5, 5, 5, 0, 5}},
    {"odd count, unsorted", {3, 1, 2}, 3, {3, 1, 2, 2, 3, 1, 2.98}},
    {"even count averages the middle",
     {4, 1, 3, 2},
     4,
     {4, 1, 2.5, 2.5, 4, 1.2909944487358056, 3.97}},
    {"equal samples have no spread", {7, 7, 7, 7}, 4, {4, 7, 7, 7, 7, 0, 7}},
};

Test(stats, matches_hand_computed_values) {
  for (size_t i = 0; i < sizeof stats_cases / sizeof *stats_cases; i++) {
    const struct stats_case *c = &stats_cases[i];
    double x[8];
    memcpy(x, c->x, sizeof x);
    struct gcb_stats s;
    gcb_stats_compute(x, c->n, &s);
    cr_expect_eq(s.n, c->want.n, "%s: n", c->what);
    cr_expect_float_eq(s.min, c->want.min, 1e-12, "%s: min", c->what);
    cr_expect_float_eq(s.median, c->want.median, 1e-12, "%s: median", c->what);
    cr_expect_float_eq(s.mean, c->want.mean, 1e-12, "%s: mean", c->what);
    cr_expect_float_eq(s.max, c->want.max, 1e-12, "%s: max", c->what);
    cr_expect_float_eq(s.stdev, c->want.stdev, 1e-12, "%s: stdev", c->what);
    cr_expect_float_eq(s.p99, c->want.p99, 1e-12, "%s: p99", c->what);
  }
}

Test(stats, empty_input_gives_zeroed_stats) {
  struct gcb_stats s = {.n = 9, .mean = 3};
  gcb_stats_compute(NULL, 0, &s);
  cr_expect_eq(s.n, 0);
  cr_expect_eq(s.mean, 0);
}

Test(stats, percentile_interpolates_linearly) {
  const double sorted[] = {10, 20, 30, 40, 50};
  cr_expect_float_eq(gcb_stats_percentile(sorted, 5, 0), 10, 1e-12);
  cr_expect_float_eq(gcb_stats_percentile(sorted, 5, 25), 20, 1e-12);
  cr_expect_float_eq(gcb_stats_percentile(sorted, 5, 90), 46, 1e-12);
  cr_expect_float_eq(gcb_stats_percentile(sorted, 5, 100), 50, 1e-12);
}

Test(stats, welford_mean_is_stable_for_large_offsets) {
  double x[1000];
  for (int i = 0; i < 1000; i++)
    x[i] = 1e9 + (i % 2 ? 1e-3 : -1e-3);
  struct gcb_stats s;
  gcb_stats_compute(x, 1000, &s);
  cr_expect_float_eq(s.mean, 1e9, 1e-6);
  cr_expect(fabs(s.stdev - 1e-3) < 1e-5, "stdev %g", s.stdev);
}

/* ---- the median by selection -------------------------------------------- */

static int cmp_num(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median as the analysis took it before: sort, read the middle. */
static double sorted_median(double *x, size_t n) {
  if (n == 0)
    return NAN;
  qsort(x, n, sizeof *x, cmp_num);
  return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static uint64_t median_state = 0x853c49e6748fea9bull;

static uint64_t median_next(void) {
  median_state ^= median_state << 13;
  median_state ^= median_state >> 7;
  median_state ^= median_state << 17;
  return median_state;
}

/* n values of one kind: distinct, few distinct (ties), sorted, reversed,
 * all equal, organ pipe, with NaN or -0 among them. */
static void median_fill(double *x, size_t n, int kind) {
  for (size_t i = 0; i < n; i++) {
    uint64_t r = median_next();
    switch (kind) {
    case 0:
      x[i] = (double)(r >> 11) / 0x1p53 * 2000 - 1000;
      break;
    case 1:
      x[i] = (double)(r % 5);
      break;
    case 2:
      x[i] = (double)i;
      break;
    case 3:
      x[i] = (double)(n - i);
      break;
    case 4:
      x[i] = 42;
      break;
    case 5:
      x[i] = (double)(i < n / 2 ? i : n - i);
      break;
    case 6:
      x[i] = r % 7 == 0 ? NAN : (double)(r % 9);
      break;
    default:
      x[i] = r % 3 == 0 ? -0.0 : r % 3 == 1 ? 0.0 : (double)(r % 4) - 2;
      break;
    }
  }
}

static void expect_same_median(const double *x, size_t n, const char *what) {
  double *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
  cr_assert(a != NULL && b != NULL);
  memcpy(a, x, n * sizeof *a);
  memcpy(b, x, n * sizeof *b);
  double fast = gcb_stats_median(a, n), slow = sorted_median(b, n);
  /* bit for bit: the same NaN, the same sign of zero */
  cr_expect(memcmp(&fast, &slow, sizeof fast) == 0,
            "%s, n %zu: median %a, sorted %a", what, n, fast, slow);
  free(a);
  free(b);
}

Test(stats, median_by_selection_is_the_sorted_median) {
  static const char *const kinds[] = {"distinct", "ties",   "sorted",
                                      "reversed", "equal",  "organ pipe",
                                      "with NaN", "with -0"};
  double x[1200];
  for (int kind = 0; kind < 8; kind++) {
    for (size_t n = 0; n <= 300; n++) { /* every small n, odd and even */
      median_fill(x, n, kind);
      expect_same_median(x, n, kinds[kind]);
    }
    for (int rep = 0; rep < 40; rep++) {
      size_t n = 300 + median_next() % 900;
      median_fill(x, n, kind);
      expect_same_median(x, n, kinds[kind]);
    }
  }
}

Test(stats, median_of_an_adversarial_order_stays_exact) {
  /* Musser's median-of-three killer order (built against a pivot from the
   * first, middle and last elements): slow or not, the median is exact. */
  enum { N = 4096 };
  static double x[N];
  for (size_t i = 0; i < N / 2; i++) {
    x[i] = i % 2 ? (double)(N / 2 + i) : (double)(i + 1);
    x[N / 2 + i] = (double)(2 * (i + 1));
  }
  expect_same_median(x, N, "median-of-3 killer");
  expect_same_median(x, N - 1, "median-of-3 killer, odd");
  double one = 7;
  cr_expect_eq(gcb_stats_median(&one, 1), 7);
  cr_expect(isnan(gcb_stats_median(NULL, 0)));
}

/* The selection leaves x partitioned around its kth element, whether its
 * rounds of partitioning end it or the sort after its budget does. */
Test(stats, selection_partitions_at_every_budget) {
  double x[700], sorted[700];
  for (int budget = 0; budget <= 6; budget++)
    for (int rep = 0; rep < 60; rep++) {
      size_t n = 1 + median_next() % 700, k = median_next() % n;
      median_fill(x, n, rep % 6);
      memcpy(sorted, x, n * sizeof *x);
      qsort(sorted, n, sizeof *sorted, cmp_num);
      gcb__stats_select(x, n, k, budget);
      cr_expect_eq(x[k], sorted[k], "budget %d n %zu k %zu", budget, n, k);
      for (size_t i = 0; i < n; i++)
        cr_expect(i < k ? x[i] <= x[k] : x[i] >= x[k],
                  "budget %d n %zu k %zu: x[%zu] on the wrong side", budget, n,
                  k, i);
    }
}
