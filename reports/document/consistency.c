/*
 * What a read document's values say of each other, once its types have
 * passed the schema's rows (read.c): every rank a case, an error, a node
 * or the ranks section names is one of the run's ranks; every rank entry's
 * node is listed; no rank or node is there twice; every case holds at least
 * one rank's results; and no time, figure, count or tolerance is below 0.
 * gcbench never writes a document that breaks these; one that does (hand
 * edited, or made to pass a CI gate) would otherwise be judged on figures
 * nobody measured: a rank twice is counted twice, a negative time is the
 * fastest rank.
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

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* The nodes section: indices not below 0, each rank the run's. *index:
 * the indices, sorted (the caller frees it); NULL without a nodes section. */
static enum gcb_status check_nodes(struct gcb__walk *w, const json_t *nodes,
                                   long long ranks, long long **index) {
  *index = NULL;
  size_t n = json_array_size(nodes);
  if (nodes == NULL)
    return GCB_OK;
  if ((*index = malloc((n ? n : 1) * sizeof **index)) == NULL)
    return gcb_err_set(w->err, GCB_ENOMEM, "%s: out of memory", w->name);
  const json_t *v, *x;
  size_t k, j;
  json_array_foreach(nodes, k, v) {
    if (((*index)[k] = member_int(v, "index")) < 0)
      return problem_at(w,
                        STEPS({.key = "nodes"}, {.index = k}, {.key = "index"}),
                        3, "%lld, below 0", (*index)[k]);
    json_array_foreach(json_object_get(v, "ranks"), j, x) {
      long long rank = (long long)json_integer_value(x);
      if (outside(rank, ranks))
        return problem_at(w,
                          STEPS({.key = "nodes"}, {.index = k},
                                {.key = "ranks"}, {.index = j}),
                          4, "rank %lld, not one of the run's %lld (run.ranks)",
                          rank, ranks);
    }
  }
  qsort(*index, n, sizeof **index, cmp_ll);
  return GCB_OK;
}

/* The ranks section and the errors: each rank named is the run's, each
 * rank entry's node one of `index` (n sorted; NULL: no nodes section). */
static enum gcb_status check_ranks(struct gcb__walk *w, const json_t *root,
                                   long long ranks, const long long *index,
                                   size_t n) {
  const json_t *v;
  size_t k;
  json_array_foreach(json_object_get(root, "ranks"), k, v) {
    long long rank = member_int(v, "rank"), node = member_int(v, "node");
    if (outside(rank, ranks))
      return problem_at(
          w, STEPS({.key = "ranks"}, {.index = k}, {.key = "rank"}), 3,
          "rank %lld, not one of the run's %lld (run.ranks)", rank, ranks);
    if (index != NULL &&
        bsearch(&node, index, n, sizeof *index, cmp_ll) == NULL)
      return problem_at(w,
                        STEPS({.key = "ranks"}, {.index = k}, {.key = "node"}),
                        3, "node %lld, which \"nodes\" does not list", node);
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
  long long ranks = member_int(json_object_get(root, "run"), "ranks");
  if (ranks < 1)
    return problem_at(w, STEPS({.key = "run"}, {.key = "ranks"}), 2,
                      "%lld: a run has at least one rank", ranks);
  const json_t *nodes = json_object_get(root, "nodes");
  long long *index;
  enum gcb_status rc = check_nodes(w, nodes, ranks, &index);
  if (rc == GCB_OK)
    rc = check_ranks(w, root, ranks, index, json_array_size(nodes));
  free(index);
  for (size_t i = 0; rc == GCB_OK && i < n; i++)
    rc = check_case_columns(w, i, &cols[i], ranks, rows);
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
