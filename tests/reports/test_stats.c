/* Summary statistics: order statistics, mean, sample stdev, percentiles. */
#include <criterion/criterion.h>
#include <math.h>

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
    {"even count averages the middle", {4, 1, 3, 2}, 4,
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

Test(stats, cv_is_stdev_over_mean) {
  struct gcb_stats s = {.mean = 4, .stdev = 1};
  cr_expect_float_eq(gcb_stats_cv(&s), 0.25, 1e-12);
  s.mean = 0;
  cr_expect_eq(gcb_stats_cv(&s), 0);
}
