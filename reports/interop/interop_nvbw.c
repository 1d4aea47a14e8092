/*
 * nvbandwidth's testcases into a typed model, for both of its
 * outputs (interop_nvbw_text.c, interop_nvbw_json.c). One nvbandwidth
 * process measures every GPU of one machine, so each GPU becomes a rank
 * of its own (rank i = GPU i) on one node. Host-device tests (CPU row, GPU
 * columns) become "pcie" cases with one figure per GPU (nvbandwidth's host
 * buffers are pinned and, with its default CPU affinity, local);
 * device-device tests (row the GPU whose context runs the copy, column its
 * peer) one "p2p" case per pair with src the GPU the data leaves and dst
 * the one it reaches (a write test's row writes its column, a read test's
 * row reads its column: src = column), listed under the src GPU's rank;
 * the bidirectional device-device tests' JSON
 * holds three matrices in one (read1/write1, read2/write2, total), whose
 * last N rows, the total, make the pairs. Every other value nvbandwidth
 * printed (latency tests in ns, all-to-host and host-to-all, further rows
 * and matrices, the SUM lines) is an imported figure with its testcase's
 * name, its row and column, and its unit; nvbandwidth checks no data, so
 * no case says it was validated.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/bench_kind.h"
#include "reports/document/topo_view.h"
#include "reports/interop/interop_nvbw.h"

/* nvbandwidth records no buffer size: the figures are rates. A case needs
 * a work per operation to hold them, so each gets a nominal gigabyte and
 * says so (`nominal_work`): its times are derived, and no report shows
 * them as measured. */
#define WORK 1e9
#define COUNTED "1 GB at the measured rate (nvbandwidth records no size)"

/* A case of nvbandwidth's rates, marked as holding a nominal size. */
static enum gcb_status nominal(struct gcb__conv *cv, enum gcb_bench_kind bench,
                               const char *label, json_t *params,
                               const long long *rank, const double *fig,
                               size_t n, int line) {
  struct gcb_model_case *c;
  enum gcb_status st = gcb__conv_case(cv, bench, label, params, WORK, COUNTED,
                                      rank, fig, n, 0, NULL, line, &c);
  if (st == GCB_OK)
    c->nominal_work = true;
  return st;
}

/* How a testcase maps onto a gcbench case, in the params gcbench's own
 * pcie and p2p benchmarks write (docs/GPU.md): pcie direction h2d/d2h
 * (traffic bidir: measured while the other direction runs), p2p direction
 * uni/bidir, copy read/write, and mode ce (copy engine) or sm (kernel). */
static const struct {
  const char *name;
  enum gcb_bench_kind bench;
  const char *dir, *both, *mode;
} known_tests[] = {
    {"host_to_device_memcpy_ce", GCB_BENCH_PCIE, "h2d", "uni", "ce"},
    {"device_to_host_memcpy_ce", GCB_BENCH_PCIE, "d2h", "uni", "ce"},
    {"host_to_device_bidirectional_memcpy_ce", GCB_BENCH_PCIE, "h2d", "bidir",
     "ce"},
    {"device_to_host_bidirectional_memcpy_ce", GCB_BENCH_PCIE, "d2h", "bidir",
     "ce"},
    {"device_to_device_memcpy_read_ce", GCB_BENCH_P2P, "read", "uni", "ce"},
    {"device_to_device_memcpy_write_ce", GCB_BENCH_P2P, "write", "uni", "ce"},
    {"device_to_device_bidirectional_memcpy_read_ce", GCB_BENCH_P2P, "read",
     "bidir", "ce"},
    {"device_to_device_bidirectional_memcpy_write_ce", GCB_BENCH_P2P, "write",
     "bidir", "ce"},
    {"host_to_device_memcpy_sm", GCB_BENCH_PCIE, "h2d", "uni", "sm"},
    {"device_to_host_memcpy_sm", GCB_BENCH_PCIE, "d2h", "uni", "sm"},
    {"host_to_device_bidirectional_memcpy_sm", GCB_BENCH_PCIE, "h2d", "bidir",
     "sm"},
    {"device_to_host_bidirectional_memcpy_sm", GCB_BENCH_PCIE, "d2h", "bidir",
     "sm"},
    {"device_to_device_memcpy_read_sm", GCB_BENCH_P2P, "read", "uni", "sm"},
    {"device_to_device_memcpy_write_sm", GCB_BENCH_P2P, "write", "uni", "sm"},
    {"device_to_device_bidirectional_memcpy_read_sm", GCB_BENCH_P2P, "read",
     "bidir", "sm"},
    {"device_to_device_bidirectional_memcpy_write_sm", GCB_BENCH_P2P, "write",
     "bidir", "sm"},
};
#define NKNOWN (sizeof known_tests / sizeof *known_tests)

void gcb__nvbw_begin(struct gcb__nvbw *x, struct gcb__conv *cv,
                     const char *version) {
  x->cv = cv;
  gcb__conv_run(cv, "nvbandwidth");
  cv->m->run.version = gcb__model_str(cv->m, version);
  gcb__conv_run_set(cv, "nodes", gcb__mvalue_int(1));
}

void gcb__nvbw_cuda(struct gcb__nvbw *x, long long version) {
  char v[48];
  snprintf(v, sizeof v, "%lld.%lld", version / 1000, version % 1000 / 10);
  gcb__conv_software(x->cv, "cuda", v);
}

bool gcb__nvbw_parse_device(const char *s, bool with_index,
                            struct gcb__nvbw_gpu *g) {
  const char *name = s;
  if (with_index) {
    const char *colon = strchr(s, ':');
    if (colon == NULL)
      return false;
    name = colon + 1 + (colon[1] == ' ');
  }
  const char *open = strchr(name, '(');
  const char *close = open ? strchr(open, ')') : NULL;
  const char *host = close ? strstr(close, ": (") : NULL;
  if (open == NULL || close == NULL)
    return false;
  char bus[40];
  snprintf(bus, sizeof bus, "%.*s", (int)(close - open - 1), open + 1);
  if (!gcb_busid_canon(bus, g->bus, sizeof g->bus))
    return false;
  snprintf(g->name, sizeof g->name, "%.*s",
           (int)(open - name - (open > name && open[-1] == ' ')), name);
  if (host != NULL)
    snprintf(g->host, sizeof g->host, "%.*s", (int)strcspn(host + 3, ")"),
             host + 3);
  return true;
}

/* ---- matrices ----------------------------------------------------------- */

bool gcb__nvbw_value_bad(const double *v, size_t n, long column, char *why,
                         size_t len) {
  for (size_t i = 0; i < n; i++) {
    if (isnan(v[i]) || (v[i] >= 0 && v[i] <= GCB__NVBW_MAX_VALUE))
      continue;
    char where[32] = "";
    if (column >= 0)
      snprintf(where, sizeof where, " in column %zu", (size_t)column + i);
    snprintf(why, len, "value %g%s is out of range (0 to %g)", v[i], where,
             GCB__NVBW_MAX_VALUE);
    return true;
  }
  return false;
}

void gcb__nvbw_matrix_start(struct gcb__nvbw *x, const char *desc) {
  struct gcb__nvbw_matrix *m = &x->m;
  m->rows = m->cols = 0;
  snprintf(m->desc, sizeof m->desc, "%s", desc ? desc : "");
  /* The unit is the description's last parenthesis: "(GB/s)", "(ns)". */
  const char *open = strrchr(m->desc, '(');
  size_t n = open ? strcspn(open + 1, ")") : 0;
  snprintf(m->unit, sizeof m->unit, "%.*s", (int)n, open ? open + 1 : "");
  if (m->unit[0] == '\0' || strchr(m->unit, ' ') != NULL)
    snprintf(m->unit, sizeof m->unit, "GB/s");
}

const char *gcb__nvbw_matrix_row(struct gcb__nvbw *x, const double *v,
                                 size_t n) {
  static char why[96];
  struct gcb__nvbw_matrix *m = &x->m;
  if (n == 0 || n > GCB__NVBW_MAX_GPUS)
    return "expected 1 to 256 values in a row";
  if (m->rows > 0 && n != m->cols) {
    snprintf(why, sizeof why, "row %zu has %zu values, the first row %zu",
             m->rows, n, m->cols);
    return why; /* a ragged matrix: no cell is invented */
  }
  if (m->rows >= GCB__NVBW_MAX_ROWS)
    return "more than 768 rows in one matrix";
  if ((m->rows + 1) * n > m->cap) {
    size_t cap = (m->rows + 1) * n * 2;
    double *grown = realloc(m->cell, cap * sizeof *grown);
    if (grown == NULL)
      return "out of memory";
    m->cell = grown;
    m->cap = cap;
  }
  memcpy(m->cell + m->rows * n, v, n * sizeof *v);
  m->cols = n;
  m->rows++;
  x->widest = n > x->widest ? n : x->widest;
  return NULL;
}

/* ---- cases -------------------------------------------------------------- */

static json_t *params(size_t t, const char *name) {
  if (known_tests[t].bench == GCB_BENCH_PCIE)
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "direction",
                     known_tests[t].dir, "memory", "pinned", "numa", "local",
                     "traffic", known_tests[t].both, "mode",
                     known_tests[t].mode, "testcase", name);
  return json_pack("{s:s, s:s, s:s, s:s}", "mode", known_tests[t].mode,
                   "direction", known_tests[t].both, "copy", known_tests[t].dir,
                   "testcase", name);
}

static double cell(const struct gcb__nvbw_matrix *m, size_t r, size_t c) {
  return m->cell[r * m->cols + c];
}

/* One cell as an imported figure (N/A cells are no figure). */
static enum gcb_status imported(struct gcb__nvbw *x, const char *name,
                                size_t part, size_t r, size_t c, int line) {
  double v = cell(&x->m, r, c);
  if (isnan(v))
    return GCB_OK;
  char label[200];
  snprintf(label, sizeof label, "%s [%zu][%zu]%s", name, r, c,
           part ? " (a further matrix)" : "");
  json_t *p = json_pack("{s:I, s:I, s:I, s:s}", "row", (json_int_t)r, "col",
                        (json_int_t)c, "matrix", (json_int_t)part,
                        "description", x->m.desc);
  return gcb__conv_figure(x->cv, "nvbandwidth", name, label, p, x->m.unit, v,
                          line);
}

/* Row 0 of a host-device matrix: one case, one figure per GPU. */
static enum gcb_status pcie(struct gcb__nvbw *x, size_t t, const char *name,
                            int line) {
  long long rank[GCB__NVBW_MAX_GPUS];
  double fig[GCB__NVBW_MAX_GPUS];
  size_t n = 0;
  for (size_t g = 0; g < x->m.cols; g++)
    if (cell(&x->m, 0, g) > 0) {
      rank[n] = (long long)g;
      fig[n++] = cell(&x->m, 0, g);
    }
  if (n == 0)
    return GCB_OK;
  return nominal(x->cv, GCB_BENCH_PCIE, name, params(t, name), rank, fig, n,
                 line);
}

static json_t *pair_params(struct gcb__nvbw *x, size_t t, const char *name,
                           size_t a, size_t b) {
  json_t *p = params(t, name);
  p = gcb__conv_param(p, "src", json_integer((json_int_t)a));
  p = gcb__conv_param(p, "dst", json_integer((json_int_t)b));
  if (a < x->ngpus && x->gpu[a].bus[0])
    p = gcb__conv_param(p, "src_bus_id", json_string(x->gpu[a].bus));
  if (b < x->ngpus && x->gpu[b].bus[0])
    p = gcb__conv_param(p, "dst_bus_id", json_string(x->gpu[b].bus));
  return p;
}

/*
 * Which way the data of cell (row, column) moved, as nvbandwidth's code
 * copies it (testcases_ce.cpp, testcases_sm.cpp): every device-device test
 * runs in the row GPU's context, a write test copying row -> column
 * (doMemcpy(srcBuffer, peerBuffer)), a read test column -> row
 * (doMemcpy(peerBuffer, srcBuffer): the row GPU reads its peer). The
 * descriptions' arrows do not say this ("GPU(row) -> GPU(column)" heads
 * the read matrix), so the direction is the test's, not the arrow's. The
 * bidirectional totals are both ways at once: row, then column.
 */
static bool reads_column(size_t t) {
  return strcmp(known_tests[t].dir, "read") == 0 &&
         strcmp(known_tests[t].both, "uni") == 0;
}

/* The last N rows of an N x N device-device matrix: one case per pair. */
static enum gcb_status p2p(struct gcb__nvbw *x, size_t t, const char *name,
                           int line) {
  size_t n = x->m.cols, first = x->m.rows - n;
  enum gcb_status st = GCB_OK;
  for (size_t r = 0; r < n && st == GCB_OK; r++)
    for (size_t c = 0; c < n && st == GCB_OK; c++) {
      double v = cell(&x->m, first + r, c);
      if (r == c && isnan(v))
        continue; /* the diagonal: N/A */
      if (r == c || !(v > 0)) {
        st = imported(x, name, 0, first + r, c, line);
        continue;
      }
      size_t a = reads_column(t) ? c : r, b = reads_column(t) ? r : c;
      char label[160];
      snprintf(label, sizeof label, "%s GPU%zu->GPU%zu", name, a, b);
      long long rank = (long long)a;
      st = nominal(x->cv, GCB_BENCH_P2P, label, pair_params(x, t, name, a, b),
                   &rank, &v, 1, line);
    }
  return st;
}

enum gcb_status gcb__nvbw_emit(struct gcb__nvbw *x, const char *name,
                               bool primary, size_t part, int line) {
  const struct gcb__nvbw_matrix *m = &x->m;
  size_t t = 0;
  while (t < NKNOWN && strcmp(known_tests[t].name, name) != 0)
    t++;
  bool is_pcie = t < NKNOWN && known_tests[t].bench == GCB_BENCH_PCIE;
  bool is_p2p = t < NKNOWN && !is_pcie && m->rows >= m->cols;
  enum gcb_status st = GCB_OK;
  if (primary && is_pcie && m->rows > 0)
    st = pcie(x, t, name, line);
  else if (primary && is_p2p && m->rows > 0)
    st = p2p(x, t, name, line);
  /* What no gcbench case took: rows before the pairs, rows after the host
   * row, further matrices, and every cell of other tests. */
  size_t pairs_from = is_p2p ? m->rows - m->cols : m->rows;
  for (size_t r = 0; r < m->rows && st == GCB_OK; r++) {
    bool taken =
        primary && ((is_pcie && r == 0) || (is_p2p && r >= pairs_from));
    for (size_t c = 0; c < m->cols && st == GCB_OK && !taken; c++)
      st = imported(x, name, part, r, c, line);
  }
  return st;
}

enum gcb_status gcb__nvbw_sum(struct gcb__nvbw *x, const char *name, double sum,
                              int line) {
  char label[160], why[128];
  if (gcb__nvbw_value_bad(&sum, 1, -1, why, sizeof why))
    return line > 0 ? gcb__conv_bad_line(x->cv, line, "%s: SUM: %s", name, why)
                    : gcb__conv_bad(x->cv, "%s: SUM: %s", name, why);
  snprintf(label, sizeof label, "%s: SUM", name);
  return gcb__conv_figure(x->cv, "nvbandwidth", "sum", label,
                          json_pack("{s:s}", "testcase", name),
                          x->m.unit[0] ? x->m.unit : "GB/s", sum, line);
}

/* ranks[] (one per GPU) and the one node. */
static enum gcb_status machine(struct gcb__nvbw *x) {
  size_t n = x->ngpus > x->widest ? x->ngpus : x->widest;
  n = n > GCB__NVBW_MAX_GPUS ? GCB__NVBW_MAX_GPUS : n;
  const char *host =
      x->ngpus > 0 && x->gpu[0].host[0] ? x->gpu[0].host : "unknown";
  enum gcb_status st =
      gcb__conv_node(x->cv, host) == 0 ? GCB_OK : gcb__conv_nomem(x->cv);
  for (size_t g = 0; g < n && st == GCB_OK; g++) {
    const struct gcb__nvbw_gpu *d = g < x->ngpus ? &x->gpu[g] : NULL;
    st =
        gcb__conv_rank(x->cv, (long long)g, 0, host, 0,
                       d != NULL ? d->name : "", d ? d->bus : "", (long long)g);
  }
  gcb__conv_run_set(x->cv, "ranks", gcb__mvalue_int((long long)n));
  return st;
}

enum gcb_status gcb__nvbw_end(struct gcb__nvbw *x, enum gcb_status st) {
  if (st == GCB_OK)
    st = machine(x);
  free(x->m.cell);
  free(x);
  return st;
}
