/*
 * Synthetic results documents for the report tests: a valid
 * gcbench.results/1 tree with N ranks on M nodes, each rank bound to its
 * own cores and given its own GPU, and cases built from per-rank figures
 * (work 1e9 per operation, so a figure f GFLOP/s has time 1/f s). Tests
 * then change what they need (a binding, a status) with jansson.
 * fx_check_valid() runs a tree through the real reader, so the fixtures
 * cannot drift from the schema.
 */
#ifndef GCB_TEST_REPORT_FIXTURE_H
#define GCB_TEST_REPORT_FIXTURE_H

#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "reports/document/model.h"
#include "reports/document/ranks.h"
#include "reports/document/results.h"
#include "reports/document/stats.h"
#include "reports/document/view.h"
#include "reports/interop/interop.h"
#include "tests/reports/results_read.h"

#define FX_MAX_RANKS 64

/* One per-rank entry: its figure, the relative stdev of its sample times,
 * its wrong count. */
static inline json_t *fx_rank_entry(int rank, double fig, double rel_sd,
                                    long long wrong) {
  double t = 1.0 / fig;
  /* the spread of its samples: at least 1 %, and wide enough for their
   * stdev (no sample stdev exceeds max - min) */
  double w = rel_sd > 0.01 ? rel_sd : 0.01;
  return json_pack(
      "{s:i, s:{s:i, s:f, s:f, s:f, s:f, s:f, s:f}, s:f, s:{s:f, s:f, s:f}, "
      "s:{s:b, s:i, s:I, s:f, s:f, s:s}}",
      "rank", rank, "time_s", "n", 10, "min", t * (1 - w), "median", t, "mean",
      t, "max", t * (1 + w), "stdev", t * rel_sd, "p99", t * (1 + w),
      "figure_time_s", t, "figure", "median", fig, "best", fig / 0.99, "worst",
      fig / 1.01, "validation", "checked", 1, "samples", 64, "wrong",
      (json_int_t)wrong, "max_error", wrong ? 0.5 : 1e-9, "tolerance", 1e-6,
      "method", "test");
}

/* A case over figs[0..n) with every rank's relative time stdev rel_sd;
 * wrong may be NULL. params is JSON text ("{\"dtype\": \"fp32\"}"). */
static inline json_t *fx_case(const char *bench, const char *label,
                              const char *params, const char *unit,
                              const double *figs, size_t n, double rel_sd,
                              const long long *wrong) {
  double x[FX_MAX_RANKS], tmax = 0, tsum = 0;
  long long total = 0;
  json_t *per = json_array();
  size_t lo = 0, hi = 0;
  for (size_t i = 0; i < n; i++) {
    x[i] = figs[i];
    total += wrong ? wrong[i] : 0;
    tsum += 1 / figs[i];
    tmax = 1 / figs[i] > tmax ? 1 / figs[i] : tmax;
    lo = figs[i] < figs[lo] ? i : lo;
    hi = figs[i] > figs[hi] ? i : hi;
    json_array_append_new(
        per, fx_rank_entry((int)i, figs[i], rel_sd, wrong ? wrong[i] : 0));
  }
  struct gcb_stats s;
  gcb_stats_compute(x, n, &s);
  json_t *c = json_pack(
      "{s:s, s:s, s:s, s:o, s:s, s:f, s:s, s:i, s:i, "
      "s:{s:i, s:f, s:f, s:f, s:f, s:f, s:i, s:i, s:f, s:I, s:b}, "
      "s:{s:b, s:b, s:I}, s:o}",
      "bench", bench, "backend", "host", "label", label, "params",
      json_loads(params, 0, NULL), "unit", unit, "work_per_op", 1e9, "counted",
      "test work", "iterations", 10, "warmup", 2, "summary", "ranks", (int)n,
      "min", s.min, "median", s.median, "mean", s.mean, "max", s.max, "stdev",
      s.stdev, "min_rank", (int)lo, "max_rank", (int)hi, "imbalance",
      (tmax - tsum / (double)n) / tmax, "wrong", (json_int_t)total, "checked",
      1, "validation", "checked", 1, "passed", total == 0, "wrong",
      (json_int_t)total, "per_rank", per);
  cr_assert_not_null(c, "fx_case %s", label);
  return c;
}

/* A complete run: nranks ranks spread evenly over nnodes nodes of `cores`
 * cores (2 PUs each), rank r bound to cores [2r, 2r+1] of its node and
 * given GPU local_rank; no cases. */
static inline json_t *fx_doc(int nranks, int nnodes, int cores,
                             const char *cpu_model) {
  json_t *nodes = json_array(), *ranks = json_array();
  int per = nranks / nnodes;
  for (int i = 0; i < nnodes; i++) {
    json_t *ids = json_array();
    for (int r = i * per; r < (i + 1) * per; r++)
      json_array_append_new(ids, json_integer(r));
    char host[32];
    snprintf(host, sizeof host, "node%02d", i);
    json_array_append_new(
        nodes, json_pack("{s:i, s:s, s:o, s:i, s:i, s:i, s:i, s:i, s:I, s:s}",
                         "index", i, "hostname", host, "ranks", ids, "cores",
                         cores, "pus", 2 * cores, "packages", 1, "numa_nodes",
                         1, "llc_bytes", 1 << 25, "memory_bytes",
                         (json_int_t)1 << 36, "cpu_model", cpu_model));
  }
  for (int r = 0; r < nranks; r++) {
    char host[32], bind[32], bus[32];
    int local = r % per;
    snprintf(host, sizeof host, "node%02d", r / per);
    snprintf(bind, sizeof bind, "%d-%d", 2 * local, 2 * local + 1);
    snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x10 + local);
    json_array_append_new(
        ranks,
        json_pack("{s:i, s:i, s:s, s:i, s:i, s:s, s:i, s:i, "
                  "s:{s:s, s:s, s:i, s:I}}",
                  "rank", r, "node", r / per, "hostname", host, "local_rank",
                  local, "pid", 100 + r, "cpu_binding", bind, "bound_pus", 2,
                  "cpu_threads", 1, "device", "name", "Test GPU", "bus_id", bus,
                  "index", local, "memory_bytes", (json_int_t)1 << 34));
  }
  json_t *doc = json_pack(
      "{s:s, s:{s:s, s:s, s:s}, s:{s:s, s:s, s:[s], s:s, s:s, s:s, s:s, s:s, "
      "s:i, s:i}, s:{s:i, s:s}, s:{s:s}, s:o, s:o, s:[], s:[], s:[]}",
      "schema", GCB_RESULTS_SCHEMA, "tool", "name", "gcbench", "version",
      "0.1.0", "git_revision", "test", "run", "id", "test-run", "command",
      "suite", "command_line", "gcbench", "start_time", "2025-01-01T00:00:00Z",
      "end_time", "2025-01-01T00:01:00Z", "status", "complete", "backend",
      "host", "backend_reason", "test", "ranks", nranks, "nodes", nnodes,
      "options", "iters", 10, "output", "run.json", "software", "mpi",
      "MPICH 4.0.2", "nodes", nodes, "ranks", ranks, "cases", "skipped",
      "errors");
  cr_assert_not_null(doc);
  return doc;
}

/* A topology summary (docs/TOPOLOGY.md) for a node of n GPUs on two NUMA
 * nodes of cores/2 PUs each (GPUs 0..n/2-1 on NUMA 0): GPU i at bus
 * 0x10 + i, as fx_doc gives local rank i, on a gen5 x16 link under a gen5
 * x16 root port (host link 63.02 GB/s), every pair NV18 (450 GB/s), no
 * facts and an empty placement check. */
static inline json_t *fx_topology(int n, int cores) {
  json_t *gpus = json_array(), *devs = json_array(), *cls = json_array(),
         *exp = json_array();
  for (int i = 0; i < n; i++) {
    char bus[32], port[32], cpus[32], name[16];
    int numa = i < n / 2 ? 0 : 1;
    snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x10 + i);
    snprintf(port, sizeof port, "0000:%02x:01.0", 0x80 + i);
    snprintf(cpus, sizeof cpus, "%d-%d", numa * cores / 2,
             (numa + 1) * cores / 2 - 1);
    snprintf(name, sizeof name, "GPU%d", i);
    json_array_append_new(
        gpus,
        json_pack("{s:i, s:s, s:s, s:i, s:s, s:f, s:[{s:s, s:s, s:f, "
                  "s:i, s:i, s:s}, {s:s, s:s, s:f, s:i, s:i, s:s}], "
                  "s:i, s:{s:f, s:s}}",
                  "index", i, "busid", bus, "model", "NVIDIA H200", "numa",
                  numa, "cpus", cpus, "link_gbps", 63.02, "pcie_path", "busid",
                  bus, "role", "device", "gbps", 63.02, "gen", 5, "width", 16,
                  "link", "gen5 x16", "busid", port, "role", "root-port",
                  "gbps", 63.02, "gen", 5, "width", 16, "link", "gen5 x16",
                  "nvlinks", 18, "host_link", "expected_gbps", 63.02, "basis",
                  "PCIe gen5 x16 (63.02 GB/s)"));
    json_array_append_new(devs, json_string(name));
    json_t *crow = json_array(), *erow = json_array();
    for (int j = 0; j < n; j++) {
      json_array_append_new(crow, json_string(i == j ? "X" : "NV18"));
      json_array_append_new(erow, i == j ? json_null() : json_real(450));
    }
    json_array_append_new(cls, crow);
    json_array_append_new(exp, erow);
  }
  json_t *t =
      json_pack("{s:s, s:o, s:[], s:{s:o, s:o, s:o}, s:[], s:[]}", "source",
                "xml", "gpus", gpus, "nics", "paths", "devices", devs, "matrix",
                cls, "expected_gbps", exp, "facts", "placement");
  cr_assert_not_null(t);
  return t;
}

/* A topology placement problem, as the run's binding check writes it. */
static inline void fx_problem(json_t *topo, const char *kind, int rank,
                              int other, int gpu, const char *what) {
  json_array_append_new(
      json_object_get(topo, "placement"),
      json_pack("{s:s, s:o, s:o, s:o, s:s, s:s}", "kind", kind, "rank",
                rank >= 0 ? json_integer(rank) : json_null(), "other_rank",
                other >= 0 ? json_integer(other) : json_null(), "gpu",
                gpu >= 0 ? json_integer(gpu) : json_null(), "what", what, "fix",
                "numactl --cpunodebind=1 --membind=1"));
}

/* Entry `rank` of a case (rows, before fx_add_case) throttled while it
 * ran: its per-rank telemetry, SM clock averaging sm_mean MHz (lowest
 * sm_min), power up to 700 W, NVML's throttle reasons `reasons`. */
static inline void fx_throttled(json_t *c, size_t rank, double sm_min,
                                double sm_mean, const char *reasons) {
  json_object_set_new(
      json_array_get(json_object_get(c, "per_rank"), rank), "telemetry",
      json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:n, s:s, s:b}", "samples",
                20, "sm_clock_mhz_min", sm_min, "sm_clock_mhz_mean", sm_mean,
                "sm_clock_mhz_max", 1980.0, "mem_clock_mhz_mean", 2619.0,
                "power_w_mean", 520.0, "power_w_max", 700.0, "temp_c_max",
                "throttle_reasons", reasons, "slowed", 1));
}

/* Gives every node of the document the topology of fx_topology. */
static inline void fx_add_topology(json_t *doc, int gpus, int cores) {
  json_t *node;
  size_t i;
  json_array_foreach(json_object_get(doc, "nodes"), i, node) {
    json_object_set_new(node, "topology", fx_topology(gpus, cores));
  }
}

/* Per-rank entries are built (and changed by tests) one object per rank,
 * as schema 1 had them; they go into the document as schema-2 columns. */
static inline void fx_columns(json_t *c) {
  json_t *rows = json_object_get(c, "per_rank");
  if (json_is_array(rows))
    json_object_set_new(c, "per_rank", gcb_ranks_from_rows(rows));
}

static inline void fx_add_case(json_t *doc, json_t *c) {
  fx_columns(c);
  json_array_append_new(json_object_get(doc, "cases"), c);
}

/* Scales added case c (schema-2 columns) to f times its figures: every
 * figure and summary figure times f, every time over f, so that it stays
 * one a run could write (reports/document/consistency.c). */
static inline void fx_scale_case(json_t *c, double f) {
  json_t *pr = json_object_get(c, "per_rank"),
         *s = json_object_get(c, "summary");
  static const char *const figs[] = {"median", "best", "worst"};
  static const char *const times[] = {"min", "median", "mean",
                                      "max", "stdev",  "p99"};
  static const char *const sums[] = {"min", "median", "mean", "max", "stdev"};
  size_t i;
  json_t *v;
  for (size_t k = 0; k < 3; k++)
    json_array_foreach(json_object_get(json_object_get(pr, "figure"), figs[k]),
                       i, v) json_real_set(v, json_number_value(v) * f);
  for (size_t k = 0; k < 6; k++)
    json_array_foreach(json_object_get(json_object_get(pr, "time_s"), times[k]),
                       i, v) json_real_set(v, json_number_value(v) / f);
  json_array_foreach(json_object_get(pr, "figure_time_s"), i, v)
      json_real_set(v, json_number_value(v) / f);
  for (size_t k = 0; k < 5; k++)
    json_object_set_new(
        s, sums[k],
        json_real(json_number_value(json_object_get(s, sums[k])) * f));
}

static inline int fx_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Case c's summary (ranks, min, median, mean, max, stdev, min_rank,
 * max_rank) made again from its per-rank figures (schema-2 columns), after
 * a test changed or dropped entries. */
static inline void fx_resummarize(json_t *c) {
  json_t *pr = json_object_get(c, "per_rank"),
         *s = json_object_get(c, "summary");
  json_t *fig = json_object_get(json_object_get(pr, "figure"), "median");
  json_t *rank = json_object_get(pr, "rank");
  size_t n = json_array_size(fig), lo = 0, hi = 0;
  double x[FX_MAX_RANKS * 4], sum = 0, sq = 0;
  cr_assert(n > 0 && n <= sizeof x / sizeof *x);
  for (size_t i = 0; i < n; i++) {
    x[i] = json_number_value(json_array_get(fig, i));
    sum += x[i];
    lo = x[i] < x[lo] ? i : lo;
    hi = x[i] > x[hi] ? i : hi;
  }
  double mean = sum / (double)n;
  for (size_t i = 0; i < n; i++)
    sq += (x[i] - mean) * (x[i] - mean);
  long long lo_rank = json_integer_value(json_array_get(rank, lo));
  long long hi_rank = json_integer_value(json_array_get(rank, hi));
  double min = x[lo], max = x[hi];
  qsort(x, n, sizeof *x, fx_cmp_double);
  double median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
  json_object_set_new(s, "ranks", json_integer((json_int_t)n));
  json_object_set_new(s, "min", json_real(min));
  json_object_set_new(s, "max", json_real(max));
  json_object_set_new(s, "mean", json_real(mean));
  json_object_set_new(s, "median", json_real(median));
  json_object_set_new(s, "stdev",
                      json_real(n > 1 ? sqrt(sq / (double)(n - 1)) : 0));
  json_object_set_new(s, "min_rank", json_integer(lo_rank));
  json_object_set_new(s, "max_rank", json_integer(hi_rank));
}

/* A case parameter of a document's tree as a number: a JSON number, or a
 * string that is one ("3", "1048576"); NAN otherwise. */
static inline double fx_param_num(const json_t *c, const char *key) {
  const json_t *v = json_object_get(json_object_get(c, "params"), key);
  const char *s = json_string_value(v);
  char *end = NULL;
  if (json_is_number(v))
    return json_number_value(v);
  double x = s != NULL && s[0] != '\0' ? strtod(s, &end) : NAN;
  return end != NULL && *end == '\0' ? x : NAN;
}

/* A case parameter as a string: a JSON string, else "". */
static inline const char *fx_param_str(const json_t *c, const char *key) {
  return gcb_view_str(json_object_get(c, "params"), key);
}

/* A file in whatever format it has, as the report tool reads an input:
 * its text (GCB_FILE_MAX_BYTES at most), through gcb_interop_parse: *out
 * gcbench's own document (NULL for another tool's file), *model its model
 * (free it first). */
static inline enum gcb_status
fx_interop_read(const char *path, const struct gcb_doc *known, size_t nknown,
                struct gcb_results **out, struct gcb_model **model,
                enum gcb_format *format, struct gcb_err *err) {
  char *text;
  size_t len;
  *out = NULL;
  *model = NULL;
  enum gcb_status st =
      gcb_file_read(path, GCB_FILE_MAX_BYTES, &text, &len, err);
  if (st == GCB_OK)
    st = gcb_interop_parse(text, len, path, known, nknown, out, model, format,
                           err);
  free(text);
  return st;
}

/* The loaded document of what fx_interop_read gave (free its model with
 * fx_doc_free): a converted file has no tree. */
static inline struct gcb_doc fx_doc_read(const char *name,
                                         const struct gcb_results *r,
                                         struct gcb_model *model) {
  return (struct gcb_doc){.name = name,
                          .root = r != NULL ? gcb_results_json(r) : NULL,
                          .model = model};
}

/* The per-rank columns of case c of a document read: gcb_results_ranks
 * of c's index in "cases"; NULL when c is not one of them. */
static inline const struct gcb_ranks *fx_case_ranks(const struct gcb_results *r,
                                                    const json_t *c) {
  const json_t *cases = json_object_get(gcb_results_json(r), "cases");
  for (size_t i = 0; i < json_array_size(cases); i++)
    if (json_array_get(cases, i) == c)
      return gcb_results_ranks(r, i);
  return NULL;
}

/* Asserts the tree reads back through gcb_results_parse. */
static inline void fx_check_valid(const json_t *doc) {
  char *text = json_dumps(doc, JSON_INDENT(1));
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_results_parse(text, strlen(text), "fixture", &r, &err),
               GCB_OK, "fixture is not a valid document: %s", err.msg);
  gcb_results_free(r);
  free(text);
}

/* A loaded document as the report commands make one: the tree and its
 * typed model (reports/document/model.h), which compare and criteria
 * read. Free the model with fx_doc_free. */
static inline struct gcb_doc fx_doc_of(const char *name, const json_t *root) {
  struct gcb_model *m = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_model_from_json(root, name, &m, &err), GCB_OK, "%s",
               err.msg);
  return (struct gcb_doc){.name = name, .root = root, .model = m};
}

/* The same for a document read (fx_results_read, fx_interop_read),
 * whose per-rank columns its tree does not hold. */
static inline struct gcb_doc fx_doc_of_results(const char *name,
                                               const struct gcb_results *r) {
  struct gcb_model *m = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_model_from_results(r, name, &m, &err), GCB_OK, "%s",
               err.msg);
  return (struct gcb_doc){
      .name = name, .root = gcb_results_json(r), .model = m};
}

static inline void fx_doc_free(struct gcb_doc *d) {
  gcb_model_free((struct gcb_model *)d->model);
  d->model = NULL;
}

/* The models of docs[0..n) that have none, for a call that reads them;
 * fx_docs_free frees them again. */
static inline void fx_docs_model(struct gcb_doc *d, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (d[i].model == NULL)
      d[i] = fx_doc_of(d[i].name, d[i].root);
}

static inline void fx_docs_free(struct gcb_doc *d, size_t n) {
  for (size_t i = 0; i < n; i++)
    fx_doc_free(&d[i]);
}

/* Writes the tree to path (for command tests). */
static inline void fx_write(const json_t *doc, const char *path) {
  cr_assert_eq(json_dump_file(doc, path, JSON_INDENT(1)), 0, "%s", path);
}

/* The whole file, NUL-terminated (NULL when it cannot be read). */
static inline char *fx_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  char *buf = NULL;
  size_t size = 0;
  FILE *m = open_memstream(&buf, &size);
  int c;
  while ((c = fgetc(f)) != EOF)
    fputc(c, m);
  fclose(m);
  fclose(f);
  *len = size;
  return buf;
}

/* Compares text with tests/data/golden/name byte for byte, or rewrites the
 * golden file when GCB_UPDATE_GOLDEN=1. */
static inline void fx_golden(const char *name, const char *text, size_t len) {
  char path[512];
  snprintf(path, sizeof path, "%s/golden/%s", GCB_TEST_DATA, name);
  const char *update = getenv("GCB_UPDATE_GOLDEN");
  if (update != NULL && strcmp(update, "1") == 0) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    fwrite(text, 1, len, f);
    fclose(f);
    return;
  }
  size_t glen;
  char *want = fx_slurp(path, &glen);
  cr_assert_not_null(want, "%s missing: run GCB_UPDATE_GOLDEN=1", path);
  size_t at = 0;
  while (at < len && at < glen && text[at] == want[at])
    at++;
  cr_expect(at == len && at == glen,
            "%s differs from the golden file at byte %zu (regenerate with "
            "GCB_UPDATE_GOLDEN=1 if intended)",
            name, at);
  free(want);
}

#endif
