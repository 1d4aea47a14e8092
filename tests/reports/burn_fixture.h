/*
 * Synthetic `gcbench burn` documents for the burn-in report tests, in the
 * layout of docs/results-schema.md (case field "timeline"): N ranks on M
 * nodes, each interval's throughput with realistic noise (normal, 2 %
 * relative, so intervals spread +-3-5 %) and, at a given probability, a
 * single interval dipping to 60-85 % (a page fault storm, a daemon
 * waking), telemetry with its own noise, and faults planted on top: a CPU
 * hog, a frequency cap, a thermal throttle, a node's power cap, wrong
 * products, growing error counters. A seeded xorshift makes each document
 * reproducible. Written apart from the rules it tests (their thresholds
 * are not read here), as DESIGN asks of fixtures.
 */
#ifndef GCB_TEST_BURN_FIXTURE_H
#define GCB_TEST_BURN_FIXTURE_H

#include <math.h>

#include "tests/reports/report_fixture.h"

#define BX_MAX_T 1024
#define BX_SERIES 14

/* The series, in the document's names. */
static const char *const bx_names[BX_SERIES] = {
    "figure",           "checked",      "wrong",
    "cpu_util",         "cpu_mhz",      "temp_c",
    "power_w",          "sm_clock_mhz", "mem_clock_mhz",
    "throttle_reasons", "ecc_sbe",      "ecc_dbe",
    "pcie_replay",      "xid"};
enum {
  BX_FIG,
  BX_CHK,
  BX_WRONG,
  BX_UTIL,
  BX_CMHZ,
  BX_TEMP,
  BX_POW,
  BX_SM,
  BX_MEM,
  BX_THR,
  BX_SBE,
  BX_DBE,
  BX_REPLAY,
  BX_XID
};

struct bx {
  int nranks, nnodes, nt;
  double interval;
  bool gpu;
  unsigned long long rng;
  double v[BX_SERIES][FX_MAX_RANKS][BX_MAX_T];
  bool has[BX_SERIES];
};

static inline double bx_uniform(struct bx *b) {
  b->rng ^= b->rng << 13;
  b->rng ^= b->rng >> 7;
  b->rng ^= b->rng << 17;
  return (double)(b->rng >> 11) / 9007199254740992.0;
}

static inline double bx_normal(struct bx *b) {
  double u = bx_uniform(b), v = bx_uniform(b);
  return sqrt(-2 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}

/* A healthy burn: nt intervals of `interval` s; host ranks at 100
 * GFLOP/s on 3,000 MHz cores, or H200-like GPUs at 740 TFLOP/s (740,000
 * GFLOP/s) with a 1,980 MHz SM clock. dip: the probability that an
 * interval dips. Allocated: free() it. */
static inline struct bx *bx_new(int nranks, int nnodes, int nt, double interval,
                                bool gpu, unsigned seed, double dip) {
  struct bx *b = calloc(1, sizeof *b);
  cr_assert_not_null(b);
  cr_assert(nranks <= FX_MAX_RANKS && nt <= BX_MAX_T);
  *b = (struct bx){.nranks = nranks,
                   .nnodes = nnodes,
                   .nt = nt,
                   .interval = interval,
                   .gpu = gpu,
                   .rng = 0x9e3779b97f4a7c15ull ^ (seed * 2654435761ull + 1)};
  int gpu_only[] = {BX_TEMP, BX_POW, BX_SM,     BX_MEM, BX_THR,
                    BX_SBE,  BX_DBE, BX_REPLAY, BX_XID};
  for (int s = 0; s < BX_SERIES; s++)
    b->has[s] = true;
  if (!gpu) /* a host without hwmon or powercap: no temperature or power */
    for (size_t k = 0; k < sizeof gpu_only / sizeof *gpu_only; k++)
      b->has[gpu_only[k]] = false;
  /* each rank its own level within +-1.5 % (parts differ a little) */
  for (int r = 0; r < nranks; r++) {
    double level = (gpu ? 740000 : 100) * (1 + 0.015 * (2 * bx_uniform(b) - 1));
    for (int i = 0; i < nt; i++) {
      /* a GPU settles 3 % lower as it warms over its first minutes */
      double warm = gpu ? 1 - 0.03 * (1 - exp(-i * interval / 60)) : 1;
      double f = level * warm * (1 + 0.02 * bx_normal(b));
      if (bx_uniform(b) < dip)
        f *= 0.6 + 0.25 * bx_uniform(b);
      b->v[BX_FIG][r][i] = f;
      b->v[BX_CHK][r][i] = gpu ? 64 : 4;
      b->v[BX_WRONG][r][i] = 0;
      b->v[BX_UTIL][r][i] = fmin(1, 0.985 + 0.01 * bx_normal(b));
      b->v[BX_CMHZ][r][i] = 3000 + 25 * bx_normal(b);
      b->v[BX_TEMP][r][i] = 62 + 4 * (1 - exp(-i / 30.0)) + bx_normal(b);
      b->v[BX_POW][r][i] = 690 + 8 * bx_normal(b);
      b->v[BX_SM][r][i] = 1980 * warm - 15 * bx_uniform(b);
      b->v[BX_MEM][r][i] = 2619;
      b->v[BX_THR][r][i] = 0;
      b->v[BX_SBE][r][i] = 2; /* counters start where the driver left them */
      b->v[BX_DBE][r][i] = 0;
      b->v[BX_REPLAY][r][i] = 17;
      b->v[BX_XID][r][i] = 0;
    }
  }
  return b;
}

/* The first interval that ends after `second`. */
static inline int bx_at(const struct bx *b, double second) {
  return (int)floor(second / b->interval);
}

/* Another process takes `share` of rank r's core from `second` on. */
static inline void bx_hog(struct bx *b, int r, double second, double share) {
  for (int i = bx_at(b, second); i < b->nt; i++) {
    double got = (1 - share) * (1 + 0.01 * bx_normal(b));
    b->v[BX_UTIL][r][i] = got;
    b->v[BX_FIG][r][i] *= got;
  }
}

/* Rank r's cores capped from `mhz` (its clock) down to `cap` at `second`:
 * the throughput follows the clock, the CPU time stays. */
static inline void bx_freq_cap(struct bx *b, int r, double second, double cap) {
  for (int i = bx_at(b, second); i < b->nt; i++) {
    double was = b->v[BX_CMHZ][r][i], now = cap + 10 * bx_normal(b);
    b->v[BX_CMHZ][r][i] = now;
    b->v[BX_FIG][r][i] *= now / was;
  }
}

/* GPU r heats up from `second` on: the temperature climbs to 87 C over
 * ramp intervals, the SM clock falls to `clock` with hw_thermal set. */
static inline void bx_thermal(struct bx *b, int r, double second, double clock,
                              int ramp) {
  int from = bx_at(b, second);
  for (int i = from; i < b->nt; i++) {
    double w = i - from >= ramp ? 1 : (double)(i - from + 1) / ramp;
    double was = b->v[BX_SM][r][i];
    double now = was * (1 - w * (1 - clock / 1980)) + 8 * bx_normal(b);
    b->v[BX_TEMP][r][i] = b->v[BX_TEMP][r][i] + w * (87 - 66);
    b->v[BX_SM][r][i] = now;
    b->v[BX_THR][r][i] = 0x40; /* hw_thermal */
    b->v[BX_FIG][r][i] *= now / was;
  }
}

/* Every GPU of node `node` capped in power from `second` on: power falls
 * to `watts`, sw_power_cap set, the clock and throughput with it. */
static inline void bx_node_power(struct bx *b, int node, double second,
                                 double watts) {
  int per = b->nranks / b->nnodes;
  for (int r = node * per; r < (node + 1) * per; r++)
    for (int i = bx_at(b, second); i < b->nt; i++) {
      double ratio = watts / 690;
      double was = b->v[BX_SM][r][i];
      b->v[BX_POW][r][i] = watts + 3 * bx_normal(b);
      b->v[BX_SM][r][i] = was * (0.35 + 0.65 * ratio);
      b->v[BX_THR][r][i] = 0x4; /* sw_power_cap */
      b->v[BX_FIG][r][i] *= 0.35 + 0.65 * ratio;
      b->v[BX_TEMP][r][i] -= 4;
    }
}

/* n wrong products on rank r in the interval holding `second`. */
static inline void bx_wrong(struct bx *b, int r, double second, double n) {
  b->v[BX_WRONG][r][bx_at(b, second)] += n;
}

/* Cumulative counter s of rank r grows by n at `second`. */
static inline void bx_count(struct bx *b, int s, int r, double second,
                            double n) {
  for (int i = bx_at(b, second); i < b->nt; i++)
    b->v[s][r][i] += n;
}

static inline json_t *bx_row(const struct bx *b, int s, int r) {
  json_t *a = json_array();
  for (int i = 0; i < b->nt; i++) {
    double x = b->v[s][r][i];
    bool integral = s == BX_CHK || s == BX_WRONG || s >= BX_THR;
    /* NAN: not measured, null (a counter not reported, too: the
     * document has null where the reading said -1) */
    json_array_append_new(a, isnan(x)   ? json_null()
                             : integral ? json_integer((json_int_t)llround(x))
                                        : json_real(round(x * 1000) / 1000));
  }
  return a;
}

static inline json_t *bx_timeline(const struct bx *b) {
  json_t *t = json_array(), *series = json_object(), *na = json_object();
  for (int i = 0; i < b->nt; i++)
    json_array_append_new(t, json_real((i + 1) * b->interval));
  for (int s = 0; s < BX_SERIES; s++) {
    if (!b->has[s]) {
      json_object_set_new(na, bx_names[s],
                          json_string("not read by the host backend"));
      continue;
    }
    json_t *ranks = json_array();
    for (int r = 0; r < b->nranks; r++)
      json_array_append_new(ranks, bx_row(b, s, r));
    json_object_set_new(series, bx_names[s], ranks);
  }
  return json_pack("{s:f, s:o, s:o, s:o}", "interval_s", b->interval, "t_s", t,
                   "series", series, "unavailable", na);
}

static inline int bx_cmp(const void *a, const void *c) {
  double x = *(const double *)a, y = *(const double *)c;
  return (x > y) - (x < y);
}

/* The document: fx_doc's run with the burn case, per-rank figures (median,
 * best, worst interval) and wrong counts from the series. */
static inline json_t *bx_doc(const struct bx *b) {
  json_t *doc = fx_doc(b->nranks, b->nnodes, 8,
                       b->gpu ? "Test CPU with GPUs" : "Test CPU");
  double med[FX_MAX_RANKS];
  long long wrong[FX_MAX_RANKS];
  for (int r = 0; r < b->nranks; r++) {
    double x[BX_MAX_T];
    wrong[r] = 0;
    for (int i = 0; i < b->nt; i++) {
      x[i] = b->v[BX_FIG][r][i];
      wrong[r] += (long long)b->v[BX_WRONG][r][i];
    }
    qsort(x, (size_t)b->nt, sizeof *x, bx_cmp);
    med[r] = x[b->nt / 2];
  }
  char params[256];
  snprintf(params, sizeof params,
           "{\"dtype\": \"%s\", \"m\": 8192, \"n\": 8192, \"k\": 8192, "
           "\"duration_s\": %g, \"interval_s\": %g, \"with\": \"gemm\"}",
           b->gpu ? "bf16" : "fp64", b->nt * b->interval, b->interval);
  json_t *c = fx_case("burn", b->gpu ? "bf16 8192x8192x8192" : "fp64 8192",
                      params, "GFLOP/s", med, (size_t)b->nranks, 0.02, wrong);
  json_object_set_new(c, "backend", json_string(b->gpu ? "cuda" : "host"));
  json_object_set_new(c, "iterations", json_integer(b->nt));
  json_t *row;
  size_t k;
  json_array_foreach(json_object_get(c, "per_rank"), k, row) {
    double x[BX_MAX_T];
    for (int i = 0; i < b->nt; i++)
      x[i] = b->v[BX_FIG][k][i];
    qsort(x, (size_t)b->nt, sizeof *x, bx_cmp);
    json_t *fig = json_object_get(row, "figure");
    json_object_set_new(fig, "best", json_real(x[b->nt - 1]));
    json_object_set_new(fig, "worst", json_real(x[0]));
    json_object_set_new(json_object_get(row, "validation"), "samples",
                        json_integer((json_int_t)(b->nt * b->v[BX_CHK][k][0])));
  }
  json_object_set_new(c, "timeline", bx_timeline(b));
  fx_add_case(doc, c);
  json_t *r;
  if (!b->gpu) /* host ranks have no device */
    json_array_foreach(json_object_get(doc, "ranks"), k, r) {
      json_object_del(r, "device");
    }
  if (b->gpu) {
    json_object_set_new(json_object_get(doc, "run"), "backend",
                        json_string("cuda"));
    fx_add_topology(doc, b->nranks / b->nnodes, 8);
    json_array_foreach(json_object_get(doc, "ranks"), k, r) {
      json_object_set_new(json_object_get(r, "device"), "name",
                          json_string("NVIDIA H200"));
    }
  }
  fx_check_valid(doc);
  return doc;
}

#endif
