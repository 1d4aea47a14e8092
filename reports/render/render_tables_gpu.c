/*
 * The per-GPU summary: one row per GPU of every node (from the node's
 * topology, so an idle GPU shows as a row without figures; else from the
 * ranks' devices), with its bus id, NUMA node, the ranks using it, what it
 * reached in GEMM (one column per dtype), device memory bandwidth, H2D and
 * D2H, and the findings that name it (by node and GPU index). The figure
 * of a GPU is that of the first rank using it. Where a document sweeps
 * GEMM shapes, a column beside each type gives the GPU's best shape (its
 * highest median over the sweep's shapes, mamf-finder's "best outcome");
 * where the GPUs reported NVML telemetry, a column gives its lowest SM
 * clock and highest power over the cases, and how many cases were too
 * short for the sampler (its readings are then from their start and end).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"
#include "reports/analysis/diagnose.h"
#include "reports/document/topo_view.h"
#include "reports/render/render_tables.h"

#define MAX_GPU_COLS 10
#define MAX_COLS (2 * MAX_GPU_COLS)

/* A figure column: which case of each document it shows. A best-shape
 * column (best) shows, per GPU, the best of the cases of column `name`. */
struct gcol {
  char head[96];
  char name[96];          /* column_of's name of its cases */
  const json_t *cases[8]; /* per document (the first 8) */
  const json_t *first[8]; /* the first case of the column per document */
  size_t shapes[8];       /* cases of another shape than the first's */
  struct gcb_ranks pr[8]; /* cases[d]'s per-rank columns, looked up once */
  double scale;           /* to the unit the heading shows (TFLOP/s) */
  bool best;
};

/* A document's cases as the rows ask for them, looked up once per table
 * rather than once per GPU (16,384 rows): each case's column ("" when it
 * has none) and per-rank columns. */
struct doc_cases {
  const json_t *cases;
  size_t n;
  char (*name)[96];
  struct gcb_ranks *pr;
};

/* The column a case belongs in ("GEMM bf16"), or false. pcie cases go in
 * only when the link rule would judge them (pinned, local, largest). */
static bool column_of(const json_t *cases, const json_t *c, char *name,
                      size_t size, double *scale) {
  enum gcb_bench_kind bench = gcb_bench_kind_of(c);
  const char *dir = gcb__pcie_direction(cases, c);
  const char *unit;
  /* The unit that suits the figure: 747 TFLOP/s, not 746650 GFLOP/s. */
  *scale =
      gcb_unit_scale(fabs(gcb_view_num(gcb_view_obj(c, "summary"), "median")),
                     gcb_view_str(c, "unit"), &unit);
  if (bench == GCB_BENCH_GEMM)
    snprintf(name, size, "GEMM %s (%s)", gcb_view_param_str(c, "dtype"), unit);
  else if (bench == GCB_BENCH_MEMBW)
    snprintf(name, size, "membw %s (%s)", gcb_view_param_str(c, "kernel"),
             unit);
  else if (dir != NULL)
    snprintf(name, size, "%s (%s)", strcmp(dir, "h2d") == 0 ? "H2D" : "D2H",
             unit);
  else
    return false;
  return true;
}

/* Of two cases for one column, the one to show: the most work per
 * operation (the largest GEMM, the largest copy). */
static bool better(const json_t *a, const json_t *b) {
  return b == NULL ||
         gcb_view_num(a, "work_per_op") > gcb_view_num(b, "work_per_op");
}

/* membw shows one kernel: triad when the run has it, else the first. */
static bool wanted(const struct gcol *cols, size_t n, const char *name) {
  if (strncmp(name, "membw ", 6) != 0)
    return true;
  for (size_t k = 0; k < n; k++)
    if (strncmp(cols[k].head, "membw ", 6) == 0)
      return strcmp(cols[k].head, name) == 0;
  return true;
}

/* Two GEMM cases of one m x n x k. */
static bool same_shape(const json_t *a, const json_t *b) {
  static const char *const dims[] = {"m", "n", "k"};
  for (size_t i = 0; i < 3; i++)
    if (gcb_view_param_num(a, dims[i]) != gcb_view_param_num(b, dims[i]))
      return false;
  return true;
}

static size_t gpu_columns(const struct gcb_report *rep, struct gcol *cols) {
  size_t n = 0;
  for (size_t d = 0; d < rep->ndocs && d < 8; d++) {
    const json_t *cases = json_object_get(rep->docs[d].root, "cases"), *c;
    size_t i, k;
    json_array_foreach(cases, i, c) {
      char name[96];
      double scale;
      if (!column_of(cases, c, name, sizeof name, &scale))
        continue;
      for (k = 0; k < n && strcmp(cols[k].head, name) != 0; k++)
        ;
      if (k == n && (n == MAX_GPU_COLS || !wanted(cols, n, name)))
        continue;
      if (k == n) {
        memset(&cols[n++], 0, sizeof *cols);
        cols[k].scale = scale;
      }
      gcb_view_copy(cols[k].head, sizeof cols[k].head, name);
      gcb_view_copy(cols[k].name, sizeof cols[k].name, name);
      if (cols[k].first[d] == NULL)
        cols[k].first[d] = c;
      else if (!same_shape(c, cols[k].first[d]))
        cols[k].shapes[d]++;
      if (better(c, cols[k].cases[d]))
        cols[k].cases[d] = c;
    }
  }
  return n;
}

/* After each GEMM column whose document holds its cases in more than
 * one shape (a shape sweep), its best-shape column; returns the new count. */
static size_t best_columns(struct gcol *cols, size_t n, size_t ndocs) {
  size_t out = n;
  for (size_t k = n; k-- > 0;) {
    size_t most = 0;
    for (size_t d = 0; d < ndocs && d < 8; d++)
      most = cols[k].shapes[d] > most ? cols[k].shapes[d] : most;
    if (strncmp(cols[k].name, "GEMM ", 5) != 0 || most == 0 || out == MAX_COLS)
      continue;
    memmove(&cols[k + 2], &cols[k + 1], (out - k - 1) * sizeof *cols);
    cols[k + 1] = cols[k];
    cols[k + 1].best = true;
    /* "GEMM bf16 (TFLOP/s)" -> "GEMM bf16 best shape (TFLOP/s)" */
    const char *unit = strrchr(cols[k].name, '(');
    int at = unit ? (int)(unit - cols[k].name) : (int)strlen(cols[k].name);
    snprintf(cols[k + 1].head, sizeof cols[k + 1].head, "%.*sbest shape %s", at,
             cols[k].name, unit ? unit : "");
    out++;
  }
  return out;
}

/* The best median of `rank` over the document's cases of column `col` and
 * the shape that reached it ("760.2 @ 8192x8192x4096"). */
static void best_cell(struct gcb__tb *b, char **r, size_t at,
                      const struct gcol *col, const struct doc_cases *dc,
                      long long rank) {
  const json_t *best = NULL;
  double top = NAN;
  for (size_t i = 0; i < dc->n; i++) {
    double x;
    if (strcmp(dc->name[i], col->name) != 0 ||
        isnan(x = gcb__ranks_figure(&dc->pr[i], rank)))
      continue;
    if (best == NULL || x > top)
      best = json_array_get(dc->cases, i), top = x;
  }
  if (best == NULL) {
    gcb__cell(b, r, at, "-");
    return;
  }
  char num[48];
  gcb_view_fmt(top * col->scale, num, sizeof num);
  gcb__cell(b, r, at, "%s @ %.0fx%.0fx%.0f", num, gcb_view_param_num(best, "m"),
            gcb_view_param_num(best, "n"), gcb_view_param_num(best, "k"));
}

/* Whether a document's cases carry NVML telemetry for some rank. */
static bool has_telemetry(const struct gcb_report *rep) {
  for (size_t d = 0; d < rep->ndocs; d++) {
    const json_t *c;
    size_t i;
    json_array_foreach(json_object_get(rep->docs[d].root, "cases"), i, c) {
      struct gcb_ranks pr;
      gcb_ranks_of(c, &pr);
      if (pr.col[GCB_RC_TELEM_SAMPLES] != NULL)
        return true;
    }
  }
  return false;
}

/* What NVML said about `rank`'s GPU over the document's cases: its lowest
 * SM clock, highest power, and the cases too short to sample. */
static void telemetry_cell(struct gcb__tb *b, char **r, size_t at,
                           const struct doc_cases *dc, long long rank) {
  double sm = INFINITY, watts = -INFINITY;
  size_t n = 0, short_n = 0;
  for (size_t i = 0; i < dc->n; i++) {
    const struct gcb_ranks *pr = &dc->pr[i];
    long long k = gcb_ranks_find(pr, rank);
    if (k < 0 || gcb_ranks_int(pr, GCB_RC_TELEM_SAMPLES, (size_t)k, -1) < 0)
      continue;
    n++;
    short_n += gcb_ranks_true(pr, GCB_RC_TELEM_TOO_SHORT, (size_t)k);
    sm = fmin(sm, gcb_ranks_num(pr, GCB_RC_TELEM_SM_MIN, (size_t)k));
    watts = fmax(watts, gcb_ranks_num(pr, GCB_RC_TELEM_POWER_MAX, (size_t)k));
  }
  char text[160] = "-";
  int used = 0;
  if (n > 0 && isfinite(sm))
    used = snprintf(text, sizeof text, "SM clock %.0f MHz lowest", sm);
  if (n > 0 && isfinite(watts))
    used += snprintf(text + used, sizeof text - (size_t)used,
                     "%spower %.0f W "
                     "highest",
                     used ? ", " : "", watts);
  if (short_n > 0)
    snprintf(text + used, sizeof text - (size_t)used,
             "%s%zu of %zu cases too short to sample", used ? "; " : "",
             short_n, n);
  gcb__cell(b, r, at, "%s", text);
}

/* What one row shows. */
struct grow {
  size_t doc;
  long long node, gpu, numa;
  const char *host, *bus, *model;
  long long ranks[4];
  size_t nranks;
};

/* What every row of the table shares. */
struct gtab {
  struct gcb__tb *b;
  struct gcb_rtable *t;
  const struct gcol *cols;
  size_t ncols;
  bool telemetry;
  const struct gcb__tallies *tally; /* of the row's document */
  const struct doc_cases *dc;       /* of the row's document */
};

static void gpu_row(const struct gtab *x, const struct grow *g) {
  struct gcb__tb *b = x->b;
  const char *cls;
  size_t nf = gcb__tallies_get(x->tally, g->node, g->gpu, &cls);
  size_t o = gcb__run_col(b);
  char **r = gcb__table_row(b, x->t, cls);
  char ranks[64];
  gcb_view_ranges(g->ranks, g->nranks, ranks, sizeof ranks);
  gcb__cell_run(b, r, g->doc);
  gcb__cell(b, r, o + 0, "%lld", g->node);
  gcb__cell(b, r, o + 1, "%s", g->host);
  gcb__cell_id(b, r, o + 2, g->gpu);
  gcb__cell(b, r, o + 3, "%s", g->bus[0] ? g->bus : "-");
  gcb__cell_id(b, r, o + 4, g->numa);
  gcb__cell(b, r, o + 5, "%s", g->model[0] ? g->model : "-");
  gcb__cell(b, r, o + 6, "%s", g->nranks ? ranks : "idle");
  for (size_t k = 0; k < x->ncols; k++) {
    const struct gcol *col = &x->cols[k];
    const json_t *c = g->doc < 8 ? col->cases[g->doc] : NULL;
    double v =
        c && g->nranks ? gcb__ranks_figure(&col->pr[g->doc], g->ranks[0]) : NAN;
    if (col->best && c != NULL && g->nranks)
      best_cell(b, r, o + 7 + k, col, x->dc, g->ranks[0]);
    else
      gcb__cell_num(b, r, o + 7 + k, v * col->scale, NULL);
  }
  size_t at = o + 7 + x->ncols;
  if (x->telemetry && g->nranks)
    telemetry_cell(b, r, at, x->dc, g->ranks[0]);
  else if (x->telemetry)
    gcb__cell(b, r, at, "-");
  gcb__cell(b, r, at + x->telemetry, "%zu", nf);
}

/* Most ranks a node's GPUs are looked up for at once; a node with more
 * looks each further rank up per GPU, as before. */
#define NODE_RANKS 64

/* The ranks of a node that use GPU gpu (topology index), at most 4, from
 * the topology GPU of each of the node's ranks (gpu_of, -2 past the
 * first NODE_RANKS). */
static void gpu_ranks(const json_t *root, const json_t *node,
                      const long long *gpu_of, long long gpu, struct grow *g) {
  const json_t *e;
  size_t i;
  g->nranks = 0;
  json_array_foreach(json_object_get(node, "ranks"), i, e) {
    long long r = (long long)json_integer_value(e);
    long long at =
        i < NODE_RANKS ? gpu_of[i] : gcb_topo_view_rank_gpu(root, r, NULL);
    if (g->nranks < 4 && at == gpu)
      g->ranks[g->nranks++] = r;
  }
}

/* Rows of one node: its topology's GPUs, else its ranks' devices. */
static void node_rows(const struct gtab *x, size_t d, const json_t *node) {
  const json_t *root = x->b->rep->docs[d].root, *e;
  const json_t *topo = gcb_view_obj(node, "topology");
  struct grow g = {.doc = d,
                   .node = gcb_view_int(node, "index", -1),
                   .host = gcb_view_str(node, "hostname")};
  long long gpu_of[NODE_RANKS];
  size_t i;
  /* each rank's GPU once per node, not once per GPU of the node */
  json_array_foreach(json_object_get(node, "ranks"), i, e) {
    if (i < NODE_RANKS)
      gpu_of[i] =
          gcb_topo_view_rank_gpu(root, (long long)json_integer_value(e), NULL);
  }
  json_array_foreach(json_object_get(topo, "gpus"), i, e) {
    g.gpu = gcb_view_int(e, "index", (long long)i);
    g.bus = gcb_view_str(e, "busid");
    g.model = gcb_view_str(e, "model");
    g.numa = gcb_view_int(e, "numa", -1);
    gpu_ranks(root, node, gpu_of, g.gpu, &g);
    gpu_row(x, &g);
  }
  if (json_array_size(json_object_get(topo, "gpus")) > 0)
    return;
  json_array_foreach(json_object_get(node, "ranks"), i, e) {
    long long r = (long long)json_integer_value(e);
    const json_t *dev = gcb_view_obj(gcb_view_rank(root, r), "device");
    struct gcb_place p;
    gcb_view_place(root, r, &p);
    if (p.gpu < 0 && p.bus_id[0] == '\0')
      continue; /* a host rank: it is in the per-rank table */
    g = (struct grow){.doc = d,
                      .node = g.node,
                      .host = g.host,
                      .gpu = p.gpu,
                      .bus = p.bus_id,
                      .model = gcb_view_str(dev, "name"),
                      .numa = p.numa,
                      .ranks = {r},
                      .nranks = 1};
    gpu_row(x, &g);
  }
}

/* Document d's cases for the rows; false on ENOMEM. */
static bool doc_cases_of(const struct gcb_report *rep, size_t d,
                         struct doc_cases *dc) {
  const json_t *c;
  size_t i;
  dc->cases = json_object_get(rep->docs[d].root, "cases");
  dc->n = json_array_size(dc->cases);
  dc->name = malloc((dc->n + 1) * sizeof *dc->name);
  dc->pr = malloc((dc->n + 1) * sizeof *dc->pr);
  if (dc->name == NULL || dc->pr == NULL)
    return false;
  json_array_foreach(dc->cases, i, c) {
    double scale;
    if (!column_of(dc->cases, c, dc->name[i], sizeof dc->name[i], &scale))
      dc->name[i][0] = '\0';
    gcb_ranks_of(c, &dc->pr[i]);
  }
  return true;
}

void gcb__gpus_table(struct gcb__tb *b) {
  struct gcol cols[MAX_COLS];
  size_t ncols = best_columns(cols, gpu_columns(b->rep, cols), b->rep->ndocs);
  bool telemetry = has_telemetry(b->rep);
  const char *h[8 + MAX_COLS + 3] = {"run",    "node", "host",  "GPU",
                                     "bus id", "NUMA", "model", "ranks"};
  size_t nh = 8;
  for (size_t k = 0; k < ncols; k++) {
    h[nh++] = cols[k].head;
    for (size_t d = 0; d < b->rep->ndocs && d < 8; d++)
      gcb_ranks_of(cols[k].cases[d], &cols[k].pr[d]);
  }
  if (telemetry)
    h[nh++] = "telemetry (NVML)";
  h[nh++] = "findings";
  h[nh] = NULL;
  struct gcb_rtable *t = gcb__table_new(
      b, "gpus", "Per-GPU summary",
      "every GPU of every node, idle ones too; figures are the median of "
      "the (first) rank using the GPU, from the largest case of each kind",
      h + (1 - gcb__run_col(b)));
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const json_t *node;
    size_t i;
    struct gcb__tallies tally;
    struct doc_cases dc = {0};
    struct gtab x = {.b = b,
                     .t = t,
                     .cols = cols,
                     .ncols = ncols,
                     .telemetry = telemetry,
                     .tally = &tally,
                     .dc = &dc};
    gcb__tallies_build(b, d, true, &tally);
    b->oom |= !doc_cases_of(b->rep, d, &dc);
    json_array_foreach(json_object_get(b->rep->docs[d].root, "nodes"), i,
                       node) {
      if (!b->oom)
        node_rows(&x, d, node);
    }
    gcb__tallies_free(&tally);
    free(dc.name);
    free(dc.pr);
  }
}
