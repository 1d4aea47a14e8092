/*
 * Tests for the views over a results document (reports/document/view.h)
 * and the sweep key the typed model gives a case (model.h).
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "reports/document/view.h"
#include "tests/reports/report_fixture.h"
#include "tests/test_rounds.h"

/* The one definition of a sweep (gcb_model_sweep_key, model.h): the sizes
 * and the in-place half of one collective sweep share a key; another type,
 * transport or bench does not. */
static json_t *coll_case(const char *backend, const char *type, int size,
                         int inplace) {
  const double figs[] = {10};
  char params[160];
  snprintf(params, sizeof params,
           "{\"op\": \"allreduce\", \"size\": %d, \"count\": %d, "
           "\"type\": \"%s\", \"inplace\": %d}",
           size, size / 4, type, inplace);
  json_t *c = fx_case("coll", "allreduce", params, "GB/s", figs, 1, 0, NULL);
  json_object_set_new(c, "backend", json_string(backend));
  return c;
}

Test(sweep, sizes_and_halves_share_a_key_other_parameters_do_not) {
  json_t *doc = fx_doc(1, 1, 2, "Test CPU");
  fx_add_case(doc, coll_case("nccl", "float", 1024, 0));
  fx_add_case(doc, coll_case("nccl", "float", 1 << 20, 1));
  fx_add_case(doc, coll_case("nccl", "half", 1024, 0));
  fx_add_case(doc, coll_case("mpi", "float", 1024, 0));
  struct gcb_doc d = fx_doc_of("sweep.json", doc);
  char k[4][GCB_VIEW_SWEEP_KEY];
  for (size_t i = 0; i < 4; i++)
    gcb_model_sweep_key(&d.model->cases[i], k[i], sizeof k[i]);
  cr_expect_str_eq(k[0], k[1]);
  cr_expect_str_eq(k[0], "coll op=allreduce type=float [GB/s] nccl");
  cr_expect_str_neq(k[0], k[2]);
  cr_expect_str_neq(k[0], k[3]);
  fx_doc_free(&d);
  json_decref(doc);
}

/* ---- figures formatted without printf: the same bytes as with it ------- */

/* gcb_view_fmt and gcb_view_fmt_time as they were written with snprintf,
 * the reference the faster ones must match byte for byte. */
static void fmt_printf(double x, char *buf, size_t size) {
  double a = fabs(x);
  if (isnan(x))
    snprintf(buf, size, "-");
  else if (a >= 1e15 && !isinf(x))
    snprintf(buf, size, "%.4g", x);
  else if (a >= 1000 || a == 0)
    snprintf(buf, size, "%.0f", x);
  else if (a >= 1)
    snprintf(buf, size, "%.4g", x);
  else
    snprintf(buf, size, "%.3g", x);
}

static void fmt_time_printf(double seconds, char *buf, size_t size) {
  static const struct {
    double scale;
    const char *unit;
  } units[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
  size_t i = 0;
  while (i + 1 < sizeof units / sizeof *units && fabs(seconds) < units[i].scale)
    i++;
  if (isnan(seconds))
    snprintf(buf, size, "-");
  else
    snprintf(buf, size, "%.4g %s", seconds / units[i].scale, units[i].unit);
}

static uint64_t fmt_state = 0x2545f4914f6cdd1dull;

static uint64_t fmt_next(void) {
  fmt_state ^= fmt_state << 13;
  fmt_state ^= fmt_state >> 7;
  fmt_state ^= fmt_state << 17;
  return fmt_state;
}

typedef void fmt_fn(double x, char *buf, size_t size);

/* fast and its printf form write the same bytes into a buffer of size,
 * and nothing past it. */
static void expect_same(const char *what, fmt_fn *fast_fn, fmt_fn *slow_fn,
                        double x, size_t size) {
  char fast[400], slow[400];
  memset(fast, 'x', sizeof fast);
  memset(slow, 'x', sizeof slow);
  fast_fn(x, fast, size);
  slow_fn(x, slow, size);
  cr_expect(memcmp(fast, slow, sizeof fast) == 0, "%s(%a, %zu): %s vs %s", what,
            x, size, size ? fast : "", size ? slow : "");
}

static void expect_fmt(double x, size_t size) {
  expect_same("gcb_view_fmt", gcb_view_fmt, fmt_printf, x, size);
  expect_same("gcb_view_fmt_time", gcb_view_fmt_time, fmt_time_printf, x, size);
}

/* A value of every kind the tables see: random bits, magnitudes from
 * 1e-12 to 1e18 (figures, times, byte counts), integers and halves around
 * the switch at 1000, where "%.0f" rounds half to even. */
static double fmt_value(int i) {
  uint64_t bits = fmt_next();
  double u = (double)(bits >> 11) / 0x1p53, x;
  switch (i % 4) {
  case 0:
    memcpy(&x, &bits, sizeof x);
    return x;
  case 1:
    return (bits & 1 ? -1 : 1) * pow(10, -12 + 30 * u);
  case 2:
    return (double)(bits % 200000) / 2 + (bits & 2 ? 0.5 : 0);
  default:
    return (bits & 1 ? -1 : 1) * (999 + 2 * u);
  }
}

Test(view_fmt, matches_printf_byte_for_byte) {
  static const double edge[] = {
      0.0,       -0.0,    1000,     -1000,     999.95,
      999.94999, 999.5,   1000.5,   1001.5,    2500.5,
      0.5,       -0.5,    1.0,      0.99995,   999999999999999.9,
      1e308,     -1.5e17, 9.9995,   99.995,    1e-5,
      1e15,      1e300,   -1e300,   0x1p62,    0x1p63,
      DBL_MIN,   5e-324,  INFINITY, -INFINITY, NAN};
  for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
    for (size_t size = 0; size < 12; size++)
      expect_fmt(edge[i], size == 11 ? 64 : size);
  for (int i = 0; i < gcb_test_rounds(400000); i++)
    expect_fmt(fmt_value(i), i % 97 == 0 ? (size_t)(fmt_next() % 12) : 48);
}

/* Ranges that fit are written whole; those cut short say how many values
 * they leave out. */
Test(view, ranges_cut_short_count_what_they_leave_out) {
  static const long long some[] = {0, 1, 2, 3, 7, 9, 10};
  long long every_third[40];
  char buf[96];
  gcb_view_ranges(some, 7, buf, sizeof buf);
  cr_expect_str_eq(buf, "0-3,7,9-10");
  for (int i = 0; i < 40; i++)
    every_third[i] = 3 * i;
  gcb_view_ranges(every_third, 40, buf, 32);
  cr_expect_str_eq(buf, "0,3,6,9,12,15,18,... (+33 more)");
  gcb_view_ranges(every_third, 40, buf, 16);
  cr_expect_str_eq(buf, "... (+40 more)");
}

/* The MPI line names a library whole however long its name (it was held
 * in 96 bytes and cut there without a word), and says its length uncut
 * when the caller's buffer is the shorter. */
Test(view, the_mpi_line_names_a_long_library_whole) {
  static const char name[] =
      "Vendor Accelerated Message Passing Interface Library for "
      "Heterogeneous Clusters, Long-Term-Support Edition";
  char mpi[256], want[256], line[512];
  snprintf(mpi, sizeof mpi, "%s Version:\t12.3.4-lts\n", name);
  snprintf(want, sizeof want, "%s 12.3.4-lts ch4:ucx; UCX_TLS=rc", name);
  json_t *doc =
      json_pack("{s:{s:s, s:s}, s:{s:{s:s}}}", "software", "mpi", mpi,
                "mpi_device", "ch4:ucx", "run", "environment", "UCX_TLS", "rc");
  cr_expect_eq(gcb_view_mpi_line(doc, line, sizeof line), strlen(want));
  cr_expect_str_eq(line, want);
  cr_expect_eq(gcb_view_mpi_line(doc, line, 8), strlen(want), "uncut length");
  cr_expect_str_eq(line, "Vendor ");
  json_decref(doc);
}
