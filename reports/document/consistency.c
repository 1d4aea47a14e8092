/*
 * What a read document's values say of each other, once its types have
 * passed the schema's rows (read.c): every rank a case, an error, a node
 * or the ranks section names is one of the run's ranks; a run of gcbench
 * states how it ended (not "unknown"); every rank entry's
 * node lists it; no rank or node is there twice; every case holds at least
 * one rank's results; no time, figure, count or tolerance is below 0; each
 * rank's iteration times are ordered (min <= median, mean, p99 <= max);
 * and a case's summary (what criteria and compare read) agrees with its
 * ranks. gcbench never writes a document that breaks these; one that does
 * (hand edited, or made to pass a CI gate) would otherwise be judged on
 * figures nobody measured: a rank twice is counted twice, a negative time
 * is the fastest rank, a summary of 1000 over ranks that measured 1 passes
 * a gate.
 *
 * The ranges are checked before the reader orders ranks (each problem is
 * located at its element), the duplicates after (neighbours, in one pass;
 * located at their list).
 */
#include "reports/document/results_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A problem at the path of `steps` (n of them) from the root. */
__attribute__((format(printf, 4, 5))) static enum gcb_status
problem_at(struct gcb__walk *w, const struct gcb_json_step *steps, size_t n,
           const char *fmt, ...) {
  char what[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  for (w->depth = 0; w->depth < n; w->depth++)
    w->path[w->depth] = steps[w->depth];
  return gcb__schema_problem(w, "%s", what);
}

#define STEPS(...)                                                             \
  (const struct gcb_json_step[]) {                                             \
    __VA_ARGS__                                                                \
  }

static long long member_int(const json_t *o, const char *key) {
  return (long long)json_integer_value(json_object_get(o, key));
}

static bool outside(long long rank, long long ranks) {
  return rank < 0 || rank >= ranks;
}

/* Whether column c holds values that are never negative: all but the
 * telemetry (what NVML reported, judged by the rules that read it) and
 * the text and boolean columns. */
static bool never_negative(size_t c) {
  const struct gcb_rank_column *col = &gcb_rank_columns[c];
  return col->kind <= GCB_RK_INT_NULLABLE &&
         !(col->group != NULL && strcmp(col->group, "telemetry") == 0);
}

/* The path of element j of column c of case i: per_rank.<group>.<field>[j]
 * in the current schema, per_rank[j].<group>.<field> in schema 1 (rows);
 * column c -1: per_rank itself (.rank in the current schema). The number
 * of steps. */
static size_t column_at(struct gcb_json_step steps[7], size_t i, int c, long j,
                        bool rows) {
  size_t n = 0;
  steps[n++] = (struct gcb_json_step){.key = "cases"};
  steps[n++] = (struct gcb_json_step){.index = i};
  steps[n++] = (struct gcb_json_step){.key = "per_rank"};
  if (rows && j >= 0)
    steps[n++] = (struct gcb_json_step){.index = (size_t)j};
  if (c < 0)
    c = rows ? -1 : GCB_RC_RANK;
  if (c >= 0 && gcb_rank_columns[c].group != NULL)
    steps[n++] = (struct gcb_json_step){.key = gcb_rank_columns[c].group};
  if (c >= 0)
    steps[n++] = (struct gcb_json_step){.key = gcb_rank_columns[c].field};
  if (!rows && j >= 0)
    steps[n++] = (struct gcb_json_step){.index = (size_t)j};
  return n;
}

/* a and b equal but for the last digits a sum in another order gives. */
static bool same(double a, double b) {
  return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* x within [lo, hi], but for the same last digits. */
static bool within(double x, double lo, double hi) {
  return (x >= lo || same(x, lo)) && (x <= hi || same(x, hi));
}

/* Entry j's iteration times (per_rank.time_s): at least one, and their
 * statistics in the order statistics have (min <= median, mean, p99 <=
 * max; a sample stdev never past max - min). NULL, or what is wrong. */
static const char *times_wrong(const struct gcb_ranks *r, size_t j, int *col) {
  const double n = r->num[GCB_RC_TIME_N][j], lo = r->num[GCB_RC_TIME_MIN][j],
               hi = r->num[GCB_RC_TIME_MAX][j];
  *col = GCB_RC_TIME_N;
  if (!(n >= 1))
    return "no iteration timed: a rank's entry has at least one";
  static const int inside[] = {GCB_RC_TIME_MEDIAN, GCB_RC_TIME_MEAN,
                               GCB_RC_TIME_P99};
  for (size_t k = 0; k < sizeof inside / sizeof *inside; k++)
    if (!within(r->num[inside[k]][j], lo, hi)) {
      *col = inside[k];
      return "outside its min and max";
    }
  *col = GCB_RC_TIME_STDEV;
  if (!within(r->num[GCB_RC_TIME_STDEV][j], 0, hi - lo))
    return "more than its max less its min, which no stdev is";
  return NULL;
}

/* Case i's columns: at least one entry, each rank the run's, no value of
 * a never-negative column below 0. */
static enum gcb_status check_case_columns(struct gcb__walk *w, size_t i,
                                          const struct gcb_ranks *r,
                                          long long ranks, bool rows) {
  struct gcb_json_step steps[7];
  if (r->n == 0)
    return problem_at(
        w, steps, column_at(steps, i, -1, -1, rows),
        "no entries: a case holds the results of at least one rank");
  const double *rank = r->num[GCB_RC_RANK];
  for (size_t j = 0; j < r->n; j++)
    if (!(rank[j] >= 0 && rank[j] < (double)ranks)) /* no cast: 2^63 */
      return problem_at(
          w, steps, column_at(steps, i, GCB_RC_RANK, (long)j, rows),
          "rank %.0f, not one of the run's %lld (run.ranks)", rank[j], ranks);
  for (size_t j = 0; j < r->n; j++) {
    int col;
    const char *why = times_wrong(r, j, &col);
    if (why != NULL)
      return problem_at(w, steps, column_at(steps, i, col, (long)j, rows),
                        "%g, %s", r->num[col][j], why);
  }
  for (int c = 0; c < GCB_RC_COUNT; c++) {
    if (r->num[c] == NULL || !never_negative((size_t)c))
      continue;
    for (size_t j = 0; j < r->n; j++)
      if (r->num[c][j] < 0)
        return problem_at(w, steps, column_at(steps, i, c, (long)j, rows),
                          "%g, below 0 (a time, figure, count or error "
                          "never is)",
                          r->num[c][j]);
  }
  return GCB_OK;
}

/* The case's own numbers against its entries: summary.ranks their count,
 * summary.min, max and mean their figures' (median within), the ranks it
 * names the run's; iterations, warm-up and work never below 0. */
static enum gcb_status check_case_summary(struct gcb__walk *w, size_t i,
                                          const json_t *c,
                                          const struct gcb_ranks *r,
                                          long long ranks) {
  const json_t *s = json_object_get(c, "summary");
  const double *fig = r->num[GCB_RC_FIG_MEDIAN];
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  for (size_t j = 0; j < r->n; j++) {
    lo = fmin(lo, fig[j]);
    hi = fmax(hi, fig[j]);
    sum += fig[j];
  }
  const struct {
    const char *key;
    double want;
  } figures[] = {{"min", lo}, {"max", hi}, {"mean", sum / (double)r->n}};
  if (member_int(s, "ranks") != (long long)r->n)
    return problem_at(w,
                      STEPS({.key = "cases"}, {.index = i}, {.key = "summary"},
                            {.key = "ranks"}),
                      4, "%lld, but per_rank has %zu entries",
                      member_int(s, "ranks"), r->n);
  for (size_t k = 0; k < sizeof figures / sizeof *figures; k++) {
    double v = json_number_value(json_object_get(s, figures[k].key));
    if (!same(v, figures[k].want))
      return problem_at(w,
                        STEPS({.key = "cases"}, {.index = i},
                              {.key = "summary"}, {.key = figures[k].key}),
                        4, "%.10g, but the ranks' figures give %.10g", v,
                        figures[k].want);
  }
  if (!within(json_number_value(json_object_get(s, "median")), lo, hi))
    return problem_at(w,
                      STEPS({.key = "cases"}, {.index = i}, {.key = "summary"},
                            {.key = "median"}),
                      4, "outside the ranks' figures (%.10g to %.10g)", lo, hi);
  static const char *const named[] = {"min_rank", "max_rank", "late_rank"};
  for (size_t k = 0; k < sizeof named / sizeof *named; k++) {
    const json_t *v = json_object_get(s, named[k]);
    long long rank = (long long)json_integer_value(v);
    if (v != NULL && rank != -1 && outside(rank, ranks))
      return problem_at(w,
                        STEPS({.key = "cases"}, {.index = i},
                              {.key = "summary"}, {.key = named[k]}),
                        4, "rank %lld, not one of the run's %lld", rank, ranks);
  }
  static const char *const counts[] = {"iterations", "warmup", "work_per_op"};
  for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
    if (json_number_value(json_object_get(c, counts[k])) < 0)
      return problem_at(
          w, STEPS({.key = "cases"}, {.index = i}, {.key = counts[k]}), 3,
          "below 0");
  return GCB_OK;
}

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* A rank as the nodes section places it. */
struct placed {
  long long rank, node;
};

static int cmp_placed(const void *a, const void *b) {
  const struct placed *x = a, *y = b;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* What the nodes section says: each node's index, sorted, and each rank
 * it lists with its node, sorted by rank (the caller frees both; NULL
 * without a nodes section). */
struct nodes_said {
  long long *index;
  size_t nindex;
  struct placed *placed;
  size_t nplaced;
};

/* The nodes section: indices not below 0, each rank listed the run's and
 * listed once. */
static enum gcb_status check_nodes(struct gcb__walk *w, const json_t *nodes,
                                   long long ranks, struct nodes_said *out) {
  *out = (struct nodes_said){0};
  if (nodes == NULL)
    return GCB_OK;
  const json_t *v, *x;
  size_t k, j, listed = 0;
  json_array_foreach(nodes, k, v) listed +=
      json_array_size(json_object_get(v, "ranks"));
  out->nindex = json_array_size(nodes);
  out->index = malloc((out->nindex + 1) * sizeof *out->index);
  out->placed = malloc((listed + 1) * sizeof *out->placed);
  if (out->index == NULL || out->placed == NULL)
    return gcb_err_set(w->err, GCB_ENOMEM, "%s: out of memory", w->name);
  json_array_foreach(nodes, k, v) {
    long long node = out->index[k] = member_int(v, "index");
    if (node < 0)
      return problem_at(w,
                        STEPS({.key = "nodes"}, {.index = k}, {.key = "index"}),
                        3, "%lld, below 0", node);
    json_array_foreach(json_object_get(v, "ranks"), j, x) {
      long long rank = (long long)json_integer_value(x);
      if (outside(rank, ranks))
        return problem_at(w,
                          STEPS({.key = "nodes"}, {.index = k},
                                {.key = "ranks"}, {.index = j}),
                          4, "rank %lld, not one of the run's %lld (run.ranks)",
                          rank, ranks);
      out->placed[out->nplaced++] = (struct placed){rank, node};
    }
  }
  qsort(out->index, out->nindex, sizeof *out->index, cmp_ll);
  qsort(out->placed, out->nplaced, sizeof *out->placed, cmp_placed);
  for (k = 1; k < out->nplaced; k++)
    if (out->placed[k].rank == out->placed[k - 1].rank)
      return problem_at(w, STEPS({.key = "nodes"}), 1,
                        "rank %lld is listed twice in nodes[].ranks",
                        out->placed[k].rank);
  return GCB_OK;
}

/* The ranks section and the errors: each rank named is the run's, each
 * rank entry's node one the nodes section lists, and the one that lists
 * the rank (when there is a nodes section). */
static enum gcb_status check_ranks(struct gcb__walk *w, const json_t *root,
                                   long long ranks,
                                   const struct nodes_said *said) {
  const json_t *v;
  size_t k;
  json_array_foreach(json_object_get(root, "ranks"), k, v) {
    long long rank = member_int(v, "rank"), node = member_int(v, "node");
    if (outside(rank, ranks))
      return problem_at(
          w, STEPS({.key = "ranks"}, {.index = k}, {.key = "rank"}), 3,
          "rank %lld, not one of the run's %lld (run.ranks)", rank, ranks);
    if (said->index == NULL)
      continue;
    if (bsearch(&node, said->index, said->nindex, sizeof *said->index,
                cmp_ll) == NULL)
      return problem_at(w,
                        STEPS({.key = "ranks"}, {.index = k}, {.key = "node"}),
                        3, "node %lld, which \"nodes\" does not list", node);
    const struct placed key = {rank, 0},
                        *p = bsearch(&key, said->placed, said->nplaced,
                                     sizeof *said->placed, cmp_placed);
    if (p == NULL || p->node != node)
      return problem_at(
          w, STEPS({.key = "ranks"}, {.index = k}, {.key = "node"}), 3,
          "node %lld, but the ranks its nodes entry lists do "
          "not include rank %lld",
          node, rank);
  }
  json_array_foreach(json_object_get(root, "errors"), k, v) {
    long long rank = member_int(v, "rank");
    if (rank != -1 && outside(rank, ranks))
      return problem_at(
          w, STEPS({.key = "errors"}, {.index = k}, {.key = "rank"}), 3,
          "rank %lld, neither -1 (no one rank) nor one of the run's %lld", rank,
          ranks);
  }
  return GCB_OK;
}

enum gcb_status gcb__check_values(struct gcb__walk *w, const json_t *root,
                                  const struct gcb_ranks *cols, size_t n,
                                  bool rows) {
  const json_t *run = json_object_get(root, "run");
  long long ranks = member_int(run, "ranks");
  if (ranks < 1)
    return problem_at(w, STEPS({.key = "run"}, {.key = "ranks"}), 2,
                      "%lld: a run has at least one rank", ranks);
  /* "unknown" fails no check: it is for another tool's excerpt, never a
   * run gcbench wrote, which knows how it ended */
  const char *tool =
      json_string_value(json_object_get(json_object_get(root, "tool"), "name"));
  const char *status = json_string_value(json_object_get(run, "status"));
  if (tool != NULL && strcmp(tool, "gcbench") == 0 && status != NULL &&
      strcmp(status, "unknown") == 0)
    return problem_at(
        w, STEPS({.key = "run"}, {.key = "status"}), 2,
        "unknown: a run of gcbench says how it ended (\"unknown\" "
        "is for another tool's excerpt)");
  struct nodes_said said;
  enum gcb_status rc =
      check_nodes(w, json_object_get(root, "nodes"), ranks, &said);
  if (rc == GCB_OK)
    rc = check_ranks(w, root, ranks, &said);
  free(said.index);
  free(said.placed);
  const json_t *cases = json_object_get(root, "cases");
  for (size_t i = 0; rc == GCB_OK && i < n; i++) {
    rc = check_case_columns(w, i, &cols[i], ranks, rows);
    if (rc == GCB_OK)
      rc = check_case_summary(w, i, json_array_get(cases, i), &cols[i], ranks);
  }
  return rc;
}

/* The first integer `field` of array a's objects (in order) that equals
 * the one before it; -1 when none (the values are never negative here). */
static long long repeated_member(const json_t *a, const char *field) {
  for (size_t k = 1; k < json_array_size(a); k++) {
    long long x = member_int(json_array_get(a, k), field);
    if (x == member_int(json_array_get(a, k - 1), field))
      return x;
  }
  return -1;
}

enum gcb_status gcb__check_unique(struct gcb__walk *w, const json_t *root,
                                  const struct gcb_ranks *cols, size_t n,
                                  bool rows) {
  long long twice = repeated_member(json_object_get(root, "ranks"), "rank");
  if (twice >= 0)
    return problem_at(w, STEPS({.key = "ranks"}), 1,
                      "rank %lld has two entries", twice);
  twice = repeated_member(json_object_get(root, "nodes"), "index");
  if (twice >= 0)
    return problem_at(w, STEPS({.key = "nodes"}), 1,
                      "node index %lld has two entries", twice);
  struct gcb_json_step steps[7];
  for (size_t i = 0; i < n; i++) {
    const double *rank = cols[i].num[GCB_RC_RANK];
    for (size_t j = 1; j < cols[i].n; j++)
      if (rank[j] == rank[j - 1])
        return problem_at(w, steps, column_at(steps, i, -1, -1, rows),
                          "rank %.0f has two entries", rank[j]);
  }
  return GCB_OK;
}
