/*
 * The per-GPU summary: one row per GPU of every node (from the node's
 * topology, so an idle GPU shows as a row without figures; else from the
 * ranks' devices), with its bus id, NUMA node, the ranks using it, what it
 * reached in GEMM (one column per dtype), device memory bandwidth, H2D and
 * D2H, and the findings that name it (by node and GPU index). The figure
 * of a GPU is that of the first rank using it.
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

/* A figure column: which case of each document it shows. */
struct gcol {
  char head[96];
  const json_t *cases[8]; /* per document (the first 8) */
  double scale;           /* to the unit the heading shows (TFLOP/s) */
};

/* The column a case belongs in ("GEMM bf16"), or false. pcie cases go in
 * only when the link rule would judge them (pinned, local, largest). */
static bool column_of(const json_t *cases, const json_t *c, char *name,
                      size_t size, double *scale) {
  const char *bench = gcb_view_str(c, "bench");
  const char *dir = gcb__pcie_direction(cases, c);
  const char *unit;
  /* The unit that suits the figure: 747 TFLOP/s, not 746650 GFLOP/s. */
  *scale =
      gcb_unit_scale(fabs(gcb_view_num(gcb_view_obj(c, "summary"), "median")),
                     gcb_view_str(c, "unit"), &unit);
  if (strcmp(bench, "gemm") == 0)
    snprintf(name, size, "GEMM %s (%s)", gcb_view_param_str(c, "dtype"), unit);
  else if (strcmp(bench, "membw") == 0)
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
      if (better(c, cols[k].cases[d]))
        cols[k].cases[d] = c;
    }
  }
  return n;
}

/* What one row shows. */
struct grow {
  size_t doc;
  long long node, gpu, numa;
  const char *host, *bus, *model;
  long long ranks[4];
  size_t nranks;
};

static void gpu_row(struct gcb__tb *b, struct gcb_rtable *t,
                    const struct grow *g, const struct gcol *cols, size_t ncols,
                    const struct gcb__tallies *tally) {
  const char *cls;
  size_t nf = gcb__tallies_get(tally, g->node, g->gpu, &cls);
  size_t o = gcb__run_col(b);
  char **r = gcb__table_row(b, t, cls);
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
  for (size_t k = 0; k < ncols; k++) {
    const json_t *c = g->doc < 8 ? cols[k].cases[g->doc] : NULL;
    double x = c && g->nranks ? gcb__rank_figure(c, g->ranks[0]) : NAN;
    gcb__cell_num(b, r, o + 7 + k, x * cols[k].scale, NULL);
  }
  gcb__cell(b, r, o + 7 + ncols, "%zu", nf);
}

/* The ranks of a node that use GPU gpu (topology index), at most 4. */
static void gpu_ranks(const json_t *root, const json_t *node, long long gpu,
                      struct grow *g) {
  const json_t *e;
  size_t i;
  g->nranks = 0;
  json_array_foreach(json_object_get(node, "ranks"), i, e) {
    long long r = (long long)json_integer_value(e);
    if (g->nranks < 4 && gcb_topo_view_rank_gpu(root, r, NULL) == gpu)
      g->ranks[g->nranks++] = r;
  }
}

/* Rows of one node: its topology's GPUs, else its ranks' devices. */
static void node_rows(struct gcb__tb *b, struct gcb_rtable *t, size_t d,
                      const json_t *node, const struct gcol *cols, size_t ncols,
                      const struct gcb__tallies *tally) {
  const json_t *root = b->rep->docs[d].root, *e;
  const json_t *topo = gcb_view_obj(node, "topology");
  struct grow g = {.doc = d,
                   .node = gcb_view_int(node, "index", -1),
                   .host = gcb_view_str(node, "hostname")};
  size_t i;
  json_array_foreach(json_object_get(topo, "gpus"), i, e) {
    g.gpu = gcb_view_int(e, "index", (long long)i);
    g.bus = gcb_view_str(e, "busid");
    g.model = gcb_view_str(e, "model");
    g.numa = gcb_view_int(e, "numa", -1);
    gpu_ranks(root, node, g.gpu, &g);
    gpu_row(b, t, &g, cols, ncols, tally);
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
    gpu_row(b, t, &g, cols, ncols, tally);
  }
}

void gcb__gpus_table(struct gcb__tb *b) {
  struct gcol cols[MAX_GPU_COLS];
  size_t ncols = gpu_columns(b->rep, cols);
  const char *h[8 + MAX_GPU_COLS + 2] = {"run",    "node", "host",  "GPU",
                                         "bus id", "NUMA", "model", "ranks"};
  size_t nh = 8;
  for (size_t k = 0; k < ncols; k++)
    h[nh++] = cols[k].head;
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
    gcb__tallies_build(b, d, true, &tally);
    json_array_foreach(json_object_get(b->rep->docs[d].root, "nodes"), i,
                       node) {
      if (!b->oom)
        node_rows(b, t, d, node, cols, ncols, &tally);
    }
    gcb__tallies_free(&tally);
  }
}
