/*
 * nvbandwidth's testcases into a typed model, from either of its outputs:
 * stdout and -j JSON, each with its reader below. The two readers share
 * the GPUs of the device list, a testcase's matrix as it is read (each
 * testcase's starts empty, and a row shorter or longer than the first is
 * an error, never filled from anything else), and the one way a matrix
 * becomes cases. One nvbandwidth
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
 * name, its row and column, and its unit: nothing nvbandwidth printed is
 * dropped without a word. nvbandwidth checks no data, so no case says it
 * was validated.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/busid.h"
#include "reports/document/bench_kind.h"
#include "reports/interop/interop_int.h"

#define GCB__NVBW_MAX_GPUS 256
#define GCB__NVBW_MAX_ROWS (3 * GCB__NVBW_MAX_GPUS)
/* The largest figure taken (GB/s, ns, ...): 1 EB/s is far past any link,
 * and sums of 256 such cells and their squares stay finite (1e308 cells
 * once overflowed the statistics into "out of memory"). */
#define GCB__NVBW_MAX_VALUE 1e15

/* Names are whole, however long (on the heap, NULL: none). */
struct nvbw_gpu {
  char *name, *host, bus[32];
  long long device; /* its index on its host (multinode); -1: its index */
};

/* A matrix being read: rows of `cols` cells (NAN for N/A). */
struct nvbw_matrix {
  double *cell;
  size_t rows, cols, cap;
  char *unit; /* "GB/s", "ns": from the description */
  char *desc; /* nvbandwidth's description line */
};

struct nvbw {
  struct gcb__conv *cv;
  struct nvbw_gpu gpu[GCB__NVBW_MAX_GPUS];
  size_t ngpus, widest; /* listed GPUs; widest matrix seen */
  struct nvbw_matrix m;
};

/* nvbandwidth records no buffer size: the figures are rates. A case needs
 * a work per operation to hold them, so each gets a nominal gigabyte and
 * says so (`nominal_work`): its times are derived, and no report shows
 * them as measured. */
#define WORK 1e9
#define COUNTED "1 GB at the measured rate (nvbandwidth records no size)"

/* A case of nvbandwidth's rates, marked as holding a nominal size. */
static enum gcb_status nominal(struct gcb__conv *cv, enum gcb_bench_kind bench,
                               const char *label,
                               const struct gcb__params *params,
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

/* s[0..n) into *dst on the heap, replacing what was there: false on
 * ENOMEM. */
static bool nvbw_set(char **dst, const char *s, size_t n) {
  char *copy = malloc(n + 1);
  if (copy == NULL)
    return false;
  memcpy(copy, s, n);
  copy[n] = '\0';
  free(*dst);
  *dst = copy;
  return true;
}

/* Starts x and cv's run (tool version may be ""). */
static void nvbw_begin(struct nvbw *x, struct gcb__conv *cv,
                       const char *version) {
  x->cv = cv;
  gcb__conv_run(cv, "nvbandwidth");
  cv->m->run.version = gcb__model_str(cv->m, version);
}

/* The CUDA runtime nvbandwidth names as a number (12040) into software[]
 * as "12.4". */
static void nvbw_cuda(struct nvbw *x, long long version) {
  char v[48];
  snprintf(v, sizeof v, "%lld.%lld", version / 1000, version % 1000 / 10);
  gcb__conv_software(x->cv, "cuda", v);
}

/* GPU x->ngpus from "0: NVIDIA H200 (00000000:19:00): (host)" (JSON) or
 * "NVIDIA H200 (00000009:01:00)" (stdout, after "Device 0: "), its name
 * and host whole; an entry without a bus id is known by `fallback` and
 * its index only. GCB_ENOMEM (said) or GCB_OK. */
static enum gcb_status nvbw_device(struct nvbw *x, const char *s,
                                   bool with_index, const char *fallback) {
  struct nvbw_gpu *g = &x->gpu[x->ngpus++];
  g->device = -1;
  const char *name = s, *colon = with_index ? strchr(s, ':') : NULL;
  if (colon != NULL)
    name = colon + 1 + (colon[1] == ' ');
  const char *open = strchr(name, '(');
  const char *close = open ? strchr(open, ')') : NULL;
  const char *host = close ? strstr(close, ": (") : NULL;
  char bus[40];
  if (close != NULL)
    snprintf(bus, sizeof bus, "%.*s", (int)(close - open - 1), open + 1);
  bool ok;
  if ((with_index && colon == NULL) || close == NULL ||
      !gcb_busid_canon(bus, g->bus, sizeof g->bus))
    ok = nvbw_set(&g->name, fallback, strlen(fallback));
  else
    ok = nvbw_set(&g->name, name,
                  (size_t)(open - name - (open > name && open[-1] == ' '))) &&
         (host == NULL || nvbw_set(&g->host, host + 3, strcspn(host + 3, ")")));
  return ok ? GCB_OK : gcb__conv_nomem(x->cv);
}

/* ---- matrices ----------------------------------------------------------- */

/* False when each of the n values (NAN: N/A) is a figure from 0 to
 * GCB__NVBW_MAX_VALUE; else true, with what is wrong with the first that
 * is not in why ("value 1e+308 in column 3 is out of range (0 to 1e+15)";
 * column -1: a single value). */
static bool nvbw_value_bad(const double *v, size_t n, long column, char *why,
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

/* Empties x->m for the next matrix (description desc[0..len), whole):
 * GCB_ENOMEM (said) or GCB_OK. */
static enum gcb_status nvbw_matrix_start(struct nvbw *x, const char *desc,
                                         size_t len) {
  struct nvbw_matrix *m = &x->m;
  m->rows = m->cols = 0;
  if (!nvbw_set(&m->desc, desc, len))
    return gcb__conv_nomem(x->cv);
  /* The unit is the description's last parenthesis: "(GB/s)", "(ns)". */
  const char *open = strrchr(m->desc, '(');
  size_t n = open ? strcspn(open + 1, ")") : 0;
  bool ok = n > 0 && memchr(open + 1, ' ', n) == NULL
                ? nvbw_set(&m->unit, open + 1, n)
                : nvbw_set(&m->unit, "GB/s", 4);
  return ok ? GCB_OK : gcb__conv_nomem(x->cv);
}

/* Appends a row of n cells to x->m: GCB_OK; GCB_ENOMEM (said); or
 * GCB_EINPUT with what is wrong (a ragged row, too many rows or columns)
 * in why, unsaid, for the caller to say where. Cells are checked with
 * nvbw_value_bad first. */
static enum gcb_status nvbw_matrix_row(struct nvbw *x, const double *v,
                                       size_t n, char *why, size_t size) {
  struct nvbw_matrix *m = &x->m;
  if (n == 0 || n > GCB__NVBW_MAX_GPUS)
    snprintf(why, size, "expected 1 to 256 values in a row");
  else if (m->rows > 0 && n != m->cols) /* ragged: no cell is invented */
    snprintf(why, size, "row %zu has %zu values, the first row %zu", m->rows, n,
             m->cols);
  else if (m->rows >= GCB__NVBW_MAX_ROWS)
    snprintf(why, size, "more than 768 rows in one matrix");
  else {
    if ((m->rows + 1) * n > m->cap) {
      size_t cap = (m->rows + 1) * n * 2;
      double *grown = realloc(m->cell, cap * sizeof *grown);
      if (grown == NULL)
        return gcb__conv_nomem(x->cv);
      m->cell = grown;
      m->cap = cap;
    }
    memcpy(m->cell + m->rows * n, v, n * sizeof *v);
    m->cols = n;
    m->rows++;
    x->widest = n > x->widest ? n : x->widest;
    return GCB_OK;
  }
  return GCB_EINPUT;
}

/* ---- cases -------------------------------------------------------------- */

static void params(size_t t, const char *name, struct gcb__params *p) {
  const char *dir = known_tests[t].dir, *both = known_tests[t].both;
  if (known_tests[t].bench == GCB_BENCH_PCIE) {
    gcb__param_str(p, "direction", dir);
    gcb__param_str(p, "memory", "pinned");
    gcb__param_str(p, "numa", "local");
    gcb__param_str(p, "traffic", both);
  }
  gcb__param_str(p, "mode", known_tests[t].mode);
  if (known_tests[t].bench != GCB_BENCH_PCIE) {
    gcb__param_str(p, "direction", both);
    gcb__param_str(p, "copy", dir);
  }
  gcb__param_str(p, "testcase", name);
}

static double cell(const struct nvbw_matrix *m, size_t r, size_t c) {
  return m->cell[r * m->cols + c];
}

/* One cell as an imported figure (N/A cells are no figure). */
static enum gcb_status imported(struct nvbw *x, const char *name, size_t part,
                                size_t r, size_t c, int line) {
  double v = cell(&x->m, r, c);
  if (isnan(v))
    return GCB_OK;
  char *label = gcb__text_printf("%s [%zu][%zu]%s", name, r, c,
                                 part ? " (a further matrix)" : "");
  struct gcb__params p = {0};
  gcb__param_int(&p, "row", (long long)r);
  gcb__param_int(&p, "col", (long long)c);
  gcb__param_int(&p, "matrix", (long long)part);
  gcb__param_str(&p, "description", x->m.desc);
  enum gcb_status st = label == NULL
                           ? gcb__conv_nomem(x->cv)
                           : gcb__conv_figure(x->cv, "nvbandwidth", name, label,
                                              &p, x->m.unit, v, line);
  free(label);
  return st;
}

/* A cell nvbandwidth printed as 0.00 (or JSON's 0): it measured that copy
 * at under 0.005 GB/s, a link that moves nothing. No case can hold a rate
 * of 0 (its time would be infinite): an error of the GPU that ran it,
 * which fails the run, never a GPU left out of its case. */
static enum gcb_status no_bandwidth(struct nvbw *x, enum gcb_bench_kind bench,
                                    const char *label, long long gpu,
                                    int line) {
  return gcb__conv_error_at(x->cv, gpu, gcb_bench_kinds[bench].name, label,
                            "EVALIDATION", line,
                            "nvbandwidth measured 0.00 GB/s in %s: the copy "
                            "moved no data at a measurable rate",
                            label);
}

/* A cell nvbandwidth printed as N/A among measured ones: a copy it did not
 * run (no peer access between the pair), said as a skip. */
static enum gcb_status not_run(struct nvbw *x, enum gcb_bench_kind bench,
                               const char *label, int line) {
  return gcb__conv_skip(x->cv, gcb_bench_kinds[bench].name, label, line,
                        "nvbandwidth printed N/A: it did not run this copy "
                        "(no peer access between the GPUs)");
}

/* Row 0 of a host-device matrix: one case, one figure per GPU. */
static enum gcb_status pcie(struct nvbw *x, size_t t, const char *name,
                            int line) {
  long long rank[GCB__NVBW_MAX_GPUS];
  double fig[GCB__NVBW_MAX_GPUS];
  size_t n = 0;
  enum gcb_status st = GCB_OK;
  for (size_t g = 0; g < x->m.cols && st == GCB_OK; g++) {
    double v = cell(&x->m, 0, g);
    if (v > 0) {
      rank[n] = (long long)g;
      fig[n++] = v;
    } else if (v == 0) {
      char *label = gcb__text_printf("%s GPU%zu", name, g);
      st = label == NULL
               ? gcb__conv_nomem(x->cv)
               : no_bandwidth(x, GCB_BENCH_PCIE, label, (long long)g, line);
      free(label);
    }
  }
  if (n == 0 || st != GCB_OK)
    return st;
  struct gcb__params p = {0};
  params(t, name, &p);
  return nominal(x->cv, GCB_BENCH_PCIE, name, &p, rank, fig, n, line);
}

static void pair_params(struct nvbw *x, size_t t, const char *name, size_t a,
                        size_t b, struct gcb__params *p) {
  params(t, name, p);
  gcb__param_int(p, "src", (long long)a);
  gcb__param_int(p, "dst", (long long)b);
  if (a < x->ngpus && x->gpu[a].bus[0])
    gcb__param_str(p, "src_bus_id", x->gpu[a].bus);
  if (b < x->ngpus && x->gpu[b].bus[0])
    gcb__param_str(p, "dst_bus_id", x->gpu[b].bus);
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
static enum gcb_status p2p(struct nvbw *x, size_t t, const char *name,
                           int line) {
  size_t n = x->m.cols, first = x->m.rows - n;
  enum gcb_status st = GCB_OK;
  for (size_t r = 0; r < n && st == GCB_OK; r++)
    for (size_t c = 0; c < n && st == GCB_OK; c++) {
      double v = cell(&x->m, first + r, c);
      if (r == c && isnan(v))
        continue; /* the diagonal: N/A */
      if (r == c) {
        st = imported(x, name, 0, first + r, c, line);
        continue;
      }
      size_t a = reads_column(t) ? c : r, b = reads_column(t) ? r : c;
      char *label = gcb__text_printf("%s GPU%zu->GPU%zu", name, a, b);
      long long rank = (long long)a;
      struct gcb__params p = {0};
      pair_params(x, t, name, a, b, &p);
      if (label == NULL)
        st = gcb__conv_nomem(x->cv);
      else if (isnan(v))
        st = not_run(x, GCB_BENCH_P2P, label, line);
      else if (v == 0)
        st = no_bandwidth(x, GCB_BENCH_P2P, label, rank, line);
      else
        st = nominal(x->cv, GCB_BENCH_P2P, label, &p, &rank, &v, 1, line);
      free(label);
    }
  return st;
}

/* The cases of x->m for testcase `name` (line: where it is, 0 for JSON).
 * primary: the testcase's last (or only) matrix, the one a gcbench case
 * takes; others become imported figures. part: its index. */
static enum gcb_status nvbw_emit(struct nvbw *x, const char *name, bool primary,
                                 size_t part, int line) {
  const struct nvbw_matrix *m = &x->m;
  size_t t = 0;
  while (t < NKNOWN && strcmp(known_tests[t].name, name) != 0)
    t++;
  bool is_pcie = t < NKNOWN && known_tests[t].bench == GCB_BENCH_PCIE;
  bool is_p2p = t < NKNOWN && !is_pcie && m->rows >= m->cols;
  /* Before v0.6 a bidirectional device-device copy-engine test printed
   * one matrix of one direction, timed while the other ran (v0.5
   * testcases_ce.cpp: MemcpyOperation's default USE_FIRST_BW), where v0.6
   * on print each direction and their total, the last: a single matrix of
   * such a test is no total of both ways, and no pair is judged by it. */
  if (is_p2p && strcmp(known_tests[t].both, "bidir") == 0 &&
      strcmp(known_tests[t].mode, "ce") == 0 && part == 0 && m->rows == m->cols)
    is_p2p = false;
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

/* A statistic nvbandwidth printed of a testcase (or of one of its
 * matrices, "NAME_read1"), an imported figure: its SUM, in x->m's unit,
 * or (v0.10 on) its COEFFICIENT_OF_VARIATION, a ratio. */
static enum gcb_status nvbw_stat(struct nvbw *x, const char *name,
                                 const char *what, double v, int line) {
  char why[128];
  bool sum = strcmp(what, "SUM") == 0;
  if (nvbw_value_bad(&v, 1, -1, why, sizeof why))
    return line > 0
               ? gcb__conv_bad_line(x->cv, line, "%s: %s: %s", name, what, why)
               : gcb__conv_bad(x->cv, "%s: %s: %s", name, what, why);
  char *label = gcb__text_printf("%s: %s", name, what);
  struct gcb__params p = {0};
  gcb__param_str(&p, "testcase", name);
  const char *unit = !sum ? "ratio" : x->m.unit ? x->m.unit : "GB/s";
  enum gcb_status st =
      label == NULL ? gcb__conv_nomem(x->cv)
                    : gcb__conv_figure(x->cv, "nvbandwidth", sum ? "sum" : "cv",
                                       label, &p, unit, v, line);
  free(label);
  return st;
}

/* ranks[] (one per GPU) and their nodes: the first GPU's host, or each
 * GPU's where a multinode run names it ("Process 4 (node-b): device 0"). */
static enum gcb_status machine(struct nvbw *x) {
  size_t n = x->ngpus > x->widest ? x->ngpus : x->widest;
  n = n > GCB__NVBW_MAX_GPUS ? GCB__NVBW_MAX_GPUS : n;
  const char *first = x->ngpus > 0 && x->gpu[0].host && x->gpu[0].host[0]
                          ? x->gpu[0].host
                          : "unknown";
  long long node;
  enum gcb_status st = gcb__conv_node(x->cv, first, &node);
  for (size_t g = 0; g < n && st == GCB_OK; g++) {
    const struct nvbw_gpu *d = g < x->ngpus ? &x->gpu[g] : NULL;
    const char *host = d != NULL && d->host && d->host[0] ? d->host : first;
    st = gcb__conv_rank(x->cv, (long long)g, host, 0,
                        d != NULL && d->name ? d->name : "", d ? d->bus : "",
                        d != NULL && d->device >= 0 ? d->device : (long long)g);
  }
  gcb__conv_run_set(x->cv, "ranks", gcb__mvalue_int((long long)n));
  return st;
}

/* The end of a conversion that reached status st: if GCB_OK, adds the
 * ranks (one per GPU) and the one node. Frees x either way; returns the
 * status. */
static enum gcb_status nvbw_end(struct nvbw *x, enum gcb_status st) {
  if (st == GCB_OK)
    st = machine(x);
  for (size_t g = 0; g < x->ngpus; g++) {
    free(x->gpu[g].name);
    free(x->gpu[g].host);
  }
  free(x->m.cell);
  free(x->m.desc);
  free(x->m.unit);
  free(x);
  return st;
}

/* ---- stdout ------------------------------------------------------------- */

/*
 * nvbandwidth's stdout, every release from v0.2 on: a preamble
 * ("nvbandwidth Version: v0.8", "CUDA Runtime Version: 12040", "Driver
 * Version: ...", "Device 0: NVIDIA H200 (00000000:19:00)" from v0.5 on,
 * without a bus id before), then per testcase "Running NAME.", one or more
 * matrices (a description "memcpy CE CPU(row) -> GPU(column) bandwidth
 * (GB/s)" or "memory latency SM CPU(row) <-> GPU(column) (ns)", a line of
 * column indices, rows "i v v v" with N/A where there is no value) and
 * "SUM NAME value"; "Waived:" for a testcase that did not run (named only
 * by the Running line before it, if any). Pasted excerpts may lack the
 * Running line: SUM names the testcase then. What each testcase becomes:
 * above. A row whose cells do not match the column line is an
 * error at its line, unless the file ends there (a cut output: the rows
 * before are kept and the cut is said).
 */
struct text {
  struct nvbw *x;
  char *name;        /* the testcase being read (NULL until named) */
  size_t matrices;   /* finished matrices of this testcase */
  bool in_matrix;    /* a description seen, its rows being read */
  bool have_columns; /* the column index line seen */
  size_t columns;
};

static bool is_description(const struct gcb__line *l) {
  return gcb__line_has(l, "(row)") && gcb__line_has(l, "(column)");
}

static int text_detect(const struct gcb__sniff *s, char *why, size_t size) {
  size_t win = s->len < GCB__DETECT_WINDOW ? s->len : GCB__DETECT_WINDOW;
  struct gcb__lines r = {.text = s->text, .len = win}; /* no tokens needed */
  bool version = gcb__text_has(s->text, win, "nvbandwidth Version", win);
  while (gcb__lines_next(&r))
    if (is_description(&r.l))
      return version ? 70 : 50;
  snprintf(why, size, "no \"... CPU(row) -> GPU(column) ...\" matrix");
  return 0;
}

/* The finished matrix of the current testcase (primary: its last). */
static enum gcb_status end_matrix(struct text *t, bool primary, int line) {
  enum gcb_status st = GCB_OK;
  if (t->in_matrix && t->x->m.rows > 0)
    st = nvbw_emit(t->x, t->name ? t->name : "unnamed testcase", primary,
                   t->matrices, line);
  t->matrices += t->in_matrix;
  t->in_matrix = t->have_columns = false;
  return st;
}

/* The length of `name` less a matrix's suffix of a bidirectional
 * device-device test ("_read1", "_read2", "_write1", "_write2",
 * "_total": v0.6 on print each direction's matrix and their total, each
 * with its SUM); *total: the suffix is "_total". strlen(name) without. */
static size_t part_of(const char *name, bool *total) {
  static const char *const parts[] = {"_read1", "_read2", "_write1", "_write2",
                                      "_total"};
  size_t len = strlen(name);
  *total = false;
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
    size_t k = strlen(parts[i]);
    if (len > k && strcmp(name + len - k, parts[i]) == 0) {
      *total = i == 4;
      return len - k;
    }
  }
  return len;
}

/* "SUM NAME value": names an unnamed testcase, and ends it, or, for the
 * SUM of one direction's matrix ("NAME_read1"), that matrix alone; the
 * total's ("NAME_total") ends the testcase with its total, the matrix its
 * cases take. Each SUM keeps the name it was printed with. */
static enum gcb_status sum_line(struct text *t, char **tok, size_t n,
                                int line) {
  double v;
  if (n != 3 || !gcb__token_number(tok[2], &v))
    return GCB_OK;
  bool total;
  size_t base = part_of(tok[1], &total);
  bool part = base < strlen(tok[1]) &&
              (t->name == NULL || (strlen(t->name) == base &&
                                   strncmp(t->name, tok[1], base) == 0));
  if (t->name == NULL &&
      !nvbw_set(&t->name, tok[1], part ? base : strlen(tok[1])))
    return gcb__conv_nomem(t->x->cv);
  enum gcb_status st = end_matrix(t, !part || total, line);
  if (st == GCB_OK)
    st = nvbw_stat(t->x, part ? tok[1] : t->name, "SUM", v, line);
  if (part && !total)
    return st; /* the testcase goes on: its next matrix */
  free(t->name);
  t->name = NULL;
  t->matrices = 0;
  return st;
}

/* "COEFFICIENT_OF_VARIATION NAME value" (v0.10 on, after each SUM). */
static enum gcb_status variation_line(struct text *t, char **tok, size_t n,
                                      int line) {
  double v;
  if (n != 3 || !gcb__token_number(tok[2], &v))
    return GCB_OK;
  return nvbw_stat(t->x, tok[1], "COEFFICIENT_OF_VARIATION", v, line);
}

/* A line of a matrix: the column indices, or a row "i v v ..."; a bad
 * row where the file ends is a cut (r->cut). */
static enum gcb_status matrix_line(struct text *t, struct gcb__lines *r) {
  char **tok = r->tok;
  size_t n = r->n;
  int line = r->l.number;
  double v[GCB__NVBW_MAX_GPUS + 1], idx;
  for (size_t i = 0; i < n; i++) {
    bool na = strcmp(tok[i], "N/A") == 0;
    if (!na && !gcb__token_number(tok[i], &v[i]))
      return GCB_OK; /* not a matrix line: stray text */
    v[i] = na ? NAN : v[i];
  }
  if (!t->have_columns) {
    t->have_columns = true;
    t->columns = n;
    return GCB_OK;
  }
  /* A figure out of range is an error wherever it is, not a cut. */
  char why[128];
  if (nvbw_value_bad(v + 1, n - 1, 0, why, sizeof why))
    return gcb__conv_bad_line(t->x->cv, line, "%s: row %zu: %s",
                              t->name ? t->name : "matrix", t->x->m.rows, why);
  enum gcb_status st = GCB_EINPUT;
  if (!gcb__token_number(tok[0], &idx) || idx != (double)t->x->m.rows)
    snprintf(why, sizeof why, "the row does not follow the one before");
  else if (n - 1 != t->columns)
    snprintf(why, sizeof why, "row %zu has %zu values, expected %zu",
             t->x->m.rows, n - 1, t->columns);
  else
    st = nvbw_matrix_row(t->x, v + 1, n - 1, why, sizeof why);
  if (st != GCB_EINPUT)
    return st;
  if (gcb__lines_cut(r))
    return GCB_OK;
  return gcb__conv_bad_line(t->x->cv, line, "%s: %s",
                            t->name ? t->name : "matrix", why);
}

/* A multinode run's GPU, one per process (v0.7 on): "Process 4
 * (node-b): device 0: NVIDIA GB200 (00000008:01:00)", from after "(":
 * the GPU of the JSON's "NAME (BUS): (HOST)" form. */
static enum gcb_status process_line(struct nvbw *x, const char *s) {
  const char *close = strchr(s, ')');
  const char *dev = close ? strstr(close, ": device ") : NULL;
  const char *name = dev ? strchr(dev + 9, ':') : NULL;
  if (name == NULL)
    return GCB_OK; /* not the line: left as text */
  name += 1 + (name[1] == ' ');
  char *gpu = gcb__text_printf("%s: (%.*s)", name, (int)(close - s), s);
  enum gcb_status st =
      gpu != NULL ? nvbw_device(x, gpu, false, name) : gcb__conv_nomem(x->cv);
  free(gpu);
  long long device = strtoll(dev + 9, NULL, 10);
  struct nvbw_gpu *g = &x->gpu[x->ngpus - 1]; /* its index on its host */
  if (st == GCB_OK && g->host != NULL && device >= 0 &&
      device < GCB__NVBW_MAX_GPUS)
    g->device = device;
  return st;
}

/* The preamble: version, CUDA, driver, devices, each whole. */
static enum gcb_status preamble(struct text *t, const struct gcb__line *l) {
  char *buf = NULL;
  struct gcb__conv *cv = t->x->cv;
  if (!nvbw_set(&buf, l->at, l->len))
    return gcb__conv_nomem(cv);
  const char *v;
  unsigned idx;
  int at = 0;
  enum gcb_status st = GCB_OK;
  if ((v = strstr(buf, "nvbandwidth Version: ")) != NULL)
    cv->m->run.version = gcb__model_str(cv->m, v + 21);
  else if (strncmp(buf, "Driver Version: ", 16) == 0)
    gcb__conv_software(cv, "cuda_driver", buf + 16);
  else if (strncmp(buf, "CUDA Runtime Version: ", 22) == 0)
    nvbw_cuda(t->x, strtoll(buf + 22, NULL, 10));
  else if (sscanf(buf, "Device %u: %n", &idx, &at) == 1 && at > 0 &&
           idx < GCB__NVBW_MAX_GPUS && idx == t->x->ngpus)
    st = nvbw_device(t->x, buf + at, false, buf + at);
  else if (sscanf(buf, "Process %u (%n", &idx, &at) == 1 && at > 0 &&
           idx < GCB__NVBW_MAX_GPUS && idx == t->x->ngpus)
    st = process_line(t->x, buf + at);
  free(buf);
  return st;
}

static enum gcb_status text_line(struct text *t, struct gcb__lines *r) {
  const struct gcb__line *l = &r->l;
  char **tok = r->tok;
  size_t n = r->n;
  enum gcb_status st = GCB_OK;
  if (is_description(l)) {
    st = end_matrix(t, false, l->number);
    if (st == GCB_OK)
      st = nvbw_matrix_start(t->x, l->at, l->len);
    t->in_matrix = true;
  } else if (n == 2 && strcmp(tok[0], "Running") == 0) {
    st = end_matrix(t, true, l->number);
    if (st == GCB_OK && !nvbw_set(&t->name, tok[1], strcspn(tok[1], ".")))
      st = gcb__conv_nomem(t->x->cv);
    t->matrices = 0;
  } else if (n >= 1 && strcmp(tok[0], "Waived:") == 0) {
    st = gcb__conv_skip(t->x->cv, "nvbandwidth",
                        t->name ? t->name : "a testcase", 0,
                        "nvbandwidth waived it (it does not name which)");
    free(t->name);
    t->name = NULL;
  } else if (n >= 1 && strcmp(tok[0], "SUM") == 0)
    st = sum_line(t, tok, n, l->number);
  else if (n >= 1 && strcmp(tok[0], "COEFFICIENT_OF_VARIATION") == 0)
    st = variation_line(t, tok, n, l->number);
  else if (t->in_matrix && n > GCB__NVBW_MAX_GPUS + 1)
    st = gcb__conv_bad_line(t->x->cv, l->number,
                            "more than %d columns in a matrix row",
                            GCB__NVBW_MAX_GPUS);
  else if (t->in_matrix && n > 0)
    st = matrix_line(t, r);
  else
    st = preamble(t, l);
  return st;
}

static enum gcb_status text_convert(struct gcb__conv *cv, const json_t *root) {
  (void)root;
  struct nvbw *x = calloc(1, sizeof *x);
  struct text t = {.x = x};
  if (x == NULL)
    return gcb__conv_nomem(cv);
  enum gcb_status st = GCB_OK;
  nvbw_begin(x, cv, "");
  struct gcb__lines r = {
      .text = cv->text, .len = cv->len, .room = GCB__LINE_BYTES};
  while (st == GCB_OK && r.cut == 0 && gcb__lines_next(&r))
    st = text_line(&t, &r);
  if (st == GCB_OK)
    st = end_matrix(&t, true, r.number);
  if (st == GCB_OK && r.cut)
    st = gcb__conv_timeout(cv, "nvbandwidth", "output",
                           "the output ends at line %d inside a matrix of %s "
                           "(a timeout or a truncated copy): its finished "
                           "rows are kept",
                           r.cut, t.name ? t.name : "a testcase");
  free(t.name);
  return nvbw_end(x, st);
}

const struct gcb__converter gcb__row_nvbw_text = {"nvbandwidth text",
                                                  GCB_FORMAT_NVBANDWIDTH, false,
                                                  text_detect, text_convert};

/* ---- -j JSON ------------------------------------------------------------ */

/*
 * nvbandwidth's JSON output (`nvbandwidth -j`; the writer is
 * json_output.cpp, jsoncpp's styled output on stdout, with WARNING and
 * NOTE lines printed around it that the table's sniffing steps over) as a
 * typed model. The file is {"nvbandwidth": {...}} with version,
 * git_version, "CUDA Runtime Version", "Driver Version", "GPU Device list"
 * (strings "0: NVIDIA H200 (00000000:19:00): (host)", in newer releases),
 * optional error and warning, and testcases[]: name, status ("Passed",
 * "Waived", "Error", ...), bandwidth_description, bandwidth_matrix (rows
 * of strings, each a number or "N/A"), sum, and with -v min, max,
 * average. What each testcase becomes: above.
 */
static int json_detect(const struct gcb__sniff *s, char *why, size_t size) {
  if (json_is_object(json_object_get(s->root, "nvbandwidth")))
    return 80;
  /* A -j output that does not parse (cut short): still this format, so
   * that the parser's location is what the message says. */
  if (s->root == NULL && s->json_len > 0 &&
      gcb__text_has(s->text + s->json_at, s->json_len, "\"nvbandwidth\"", 256))
    return 30;
  snprintf(why, size, "no \"nvbandwidth\" object");
  return 0;
}

/* The next entry of "GPU Device list", GPU x->ngpus (past the 256th: not
 * kept). */
static enum gcb_status device(void *ctx, const json_t *e) {
  struct nvbw *x = ctx;
  char fallback[32];
  if (x->ngpus >= GCB__NVBW_MAX_GPUS)
    return GCB_OK;
  if (!json_is_string(e))
    return gcb__conv_bad(x->cv, "expected a string");
  snprintf(fallback, sizeof fallback, "GPU %zu", x->ngpus);
  return nvbw_device(x, json_string_value(e), true, fallback);
}

/* One row of bandwidth_matrix at the current path into x->m. */
static enum gcb_status json_matrix_row(void *ctx, const json_t *row) {
  struct nvbw *x = ctx;
  double v[GCB__NVBW_MAX_GPUS];
  const json_t *cell;
  size_t c;
  if (!json_is_array(row) || json_array_size(row) > GCB__NVBW_MAX_GPUS)
    return gcb__conv_bad(x->cv, "expected an array of at most %d values",
                         GCB__NVBW_MAX_GPUS);
  json_array_foreach(row, c, cell) {
    v[c] = gcb__conv_number(cell);
    const char *s = json_string_value(cell);
    if (isnan(v[c]) && !(s != NULL && strcmp(s, "N/A") == 0)) {
      gcb__conv_enter(x->cv, NULL, c);
      enum gcb_status st = gcb__conv_bad(x->cv, "expected a number or \"N/A\"");
      gcb__conv_leave(x->cv);
      return st;
    }
  }
  char why[128];
  if (nvbw_value_bad(v, json_array_size(row), 0, why, sizeof why))
    return gcb__conv_bad(x->cv, "%s", why);
  enum gcb_status st =
      nvbw_matrix_row(x, v, json_array_size(row), why, sizeof why);
  return st == GCB_EINPUT ? gcb__conv_bad(x->cv, "%s", why) : st;
}

static enum gcb_status json_testcase(void *ctx, const json_t *tc) {
  struct nvbw *x = ctx;
  const json_t *name, *status, *mat, *error, *desc, *sum;
  struct gcb__conv *cv = x->cv;
  enum gcb_status st;
  if (!json_is_object(tc))
    return gcb__conv_bad(cv, "expected an object");
  if ((st = gcb__conv_get(cv, tc, "name", GCB__J_STR, true, &name)) ||
      (st = gcb__conv_get(cv, tc, "status", GCB__J_STR, true, &status)) ||
      (st = gcb__conv_get(cv, tc, "bandwidth_matrix", GCB__J_ARR, false,
                          &mat)) ||
      (st = gcb__conv_get(cv, tc, "bandwidth_description", GCB__J_STR, false,
                          &desc)) ||
      (st = gcb__conv_get(cv, tc, "sum", GCB__J_NUM | GCB__J_STR, false,
                          &sum)) ||
      (st = gcb__conv_get(cv, tc, "error", GCB__J_STR, false, &error)))
    return st;
  const char *n = json_string_value(name), *s = json_string_value(status);
  if (strcmp(s, "Error") == 0)
    return gcb__conv_error(cv, "nvbandwidth", n, "ECUDA", "%s",
                           error ? json_string_value(error) : "error");
  if (strcmp(s, "Passed") != 0 || mat == NULL)
    return gcb__conv_skip(cv, "nvbandwidth", n, 0, "nvbandwidth status %s", s);
  /* x->m starts empty for every testcase */
  const char *d = desc ? json_string_value(desc) : "";
  if ((st = nvbw_matrix_start(x, d, strlen(d))) ||
      (st = gcb__conv_each(cv, "bandwidth_matrix", mat, json_matrix_row, x)) ||
      (st = nvbw_emit(x, n, true, 0, 0)))
    return st;
  double total = gcb__conv_number(sum);
  return isnan(total) ? GCB_OK : nvbw_stat(x, n, "SUM", total, 0);
}

static enum gcb_status json_header(struct nvbw *x, const json_t *nv) {
  struct gcb__conv *cv = x->cv;
  const json_t *version, *driver, *cuda, *list, *error;
  enum gcb_status st;
  if ((st = gcb__conv_get(cv, nv, "version", GCB__J_STR, false, &version)) ||
      (st = gcb__conv_get(cv, nv, "Driver Version", GCB__J_STR, false,
                          &driver)) ||
      (st = gcb__conv_get(cv, nv, "CUDA Runtime Version", GCB__J_NUM, false,
                          &cuda)) ||
      (st = gcb__conv_get(cv, nv, "GPU Device list", GCB__J_ARR, false,
                          &list)) ||
      (st = gcb__conv_get(cv, nv, "error", GCB__J_STR, false, &error)))
    return st;
  if ((st = gcb__conv_each(cv, "GPU Device list", list, device, x)))
    return st;
  nvbw_begin(x, cv, version ? json_string_value(version) : "");
  if (driver != NULL)
    gcb__conv_software(cv, "cuda_driver", json_string_value(driver));
  if (cuda != NULL)
    nvbw_cuda(x, gcb__conv_ll(json_number_value(cuda), 0));
  if (error != NULL)
    st = gcb__conv_error(cv, "nvbandwidth", "nvbandwidth", "ECUDA", "%s",
                         json_string_value(error));
  return st;
}

static enum gcb_status json_convert(struct gcb__conv *cv, const json_t *root) {
  struct nvbw *x = calloc(1, sizeof *x);
  const json_t *nv = json_object_get(root, "nvbandwidth"), *tests;
  if (x == NULL)
    return gcb__conv_nomem(cv);
  x->cv = cv;
  gcb__conv_enter(cv, "nvbandwidth", 0);
  enum gcb_status st =
      gcb__conv_get(cv, nv, "testcases", GCB__J_ARR, false, &tests);
  if (st == GCB_OK)
    st = json_header(x, nv);
  if (st == GCB_OK)
    st = gcb__conv_each(cv, "testcases", tests, json_testcase, x);
  gcb__conv_leave(cv);
  return nvbw_end(x, st);
}

const struct gcb__converter gcb__row_nvbw_json = {"nvbandwidth JSON",
                                                  GCB_FORMAT_NVBANDWIDTH, true,
                                                  json_detect, json_convert};
