/*
 * Per-rank and per-case tables: the per-GPU summary (where each rank runs
 * and what its device reached), the case table, the IPM-style imbalance
 * table and the collective sweep in the nccl-tests layout. With several
 * documents a leading "run" column says which one a row comes from.
 */
#include <math.h>
#include <string.h>

#include "render_tables.h"

#define MAX_FIG_COLS 10

/* Skips the leading "run" header (and column) for a single document. */
static size_t run_col(const struct gcb__tb *b) {
  return b->rep->ndocs > 1 ? 1 : 0;
}

static void cell_run(struct gcb__tb *b, char **r, size_t d) {
  if (run_col(b))
    gcb__cell(b, r, 0, "%zu", d + 1);
}

/* An index, or "-" when unknown (negative). */
static void cell_id(struct gcb__tb *b, char **r, size_t col, long long v) {
  if (v >= 0)
    gcb__cell(b, r, col, "%lld", v);
  else
    gcb__cell(b, r, col, "-");
}

/* The per_rank entry of `rank` in a case (fast path: per_rank[rank]). */
static const json_t *rank_entry(const json_t *c, long long rank) {
  const json_t *pr = json_object_get(c, "per_rank"), *e;
  size_t i;
  e = rank >= 0 ? json_array_get(pr, (size_t)rank) : NULL;
  if (e != NULL && gcb_view_int(e, "rank", -1) == rank)
    return e;
  json_array_foreach(pr, i, e) {
    if (gcb_view_int(e, "rank", -1) == rank)
      return e;
  }
  return NULL;
}

struct figcol {
  size_t doc;
  const json_t *c;
  char head[200];
};

/* Per-device cases, the per-rank table's figure columns. */
static size_t fig_columns(const struct gcb_report *rep, struct figcol *cols) {
  size_t n = 0;
  for (size_t d = 0; d < rep->ndocs; d++) {
    const json_t *c;
    size_t i;
    json_array_foreach(json_object_get(rep->docs[d].root, "cases"), i, c) {
      if (n == MAX_FIG_COLS ||
          !gcb_analyze_per_device(gcb_view_str(c, "bench")))
        continue;
      char title[160];
      gcb_view_case_title(c, title, sizeof title);
      cols[n] = (struct figcol){.doc = d, .c = c};
      if (rep->ndocs > 1)
        snprintf(cols[n].head, sizeof cols[n].head, "run %zu %s (%s)", d + 1,
                 title, gcb_view_str(c, "unit"));
      else
        snprintf(cols[n].head, sizeof cols[n].head, "%s (%s)", title,
                 gcb_view_str(c, "unit"));
      n++;
    }
  }
  return n;
}

/* How many findings name the rank, and the worst severity's class. */
static size_t rank_findings(const struct gcb_report *rep, size_t doc,
                            long long rank, const char **cls) {
  size_t n = 0;
  int worst = -1;
  for (size_t i = 0; i < rep->findings->n; i++) {
    const struct gcb_finding *f = &rep->findings->items[i];
    if (f->where.doc != (int)doc || f->where.rank != rank)
      continue;
    n++;
    if ((int)f->severity > worst)
      worst = (int)f->severity;
  }
  *cls = worst == GCB_SEV_FAIL ? "fail" : worst == GCB_SEV_WARN ? "warn" : NULL;
  return n;
}

static void rank_row(struct gcb__tb *b, struct gcb_rtable *t, size_t d,
                     long long rank, const struct figcol *cols, size_t ncols) {
  const json_t *root = b->rep->docs[d].root;
  struct gcb_place p;
  const char *cls;
  gcb_view_place(root, rank, &p);
  size_t nf = rank_findings(b->rep, d, rank, &cls), o = run_col(b);
  char **r = gcb__table_row(b, t, cls);
  cell_run(b, r, d);
  gcb__cell(b, r, o + 0, "%lld", p.node);
  gcb__cell(b, r, o + 1, "%s", p.hostname);
  gcb__cell(b, r, o + 2, "%lld", rank);
  cell_id(b, r, o + 3, p.gpu);
  gcb__cell(b, r, o + 4, "%s", p.bus_id[0] ? p.bus_id : "-");
  cell_id(b, r, o + 5, p.numa);
  for (size_t k = 0; k < ncols; k++) {
    const json_t *e = cols[k].doc == d ? rank_entry(cols[k].c, rank) : NULL;
    gcb__cell_num(b, r, o + 6 + k,
                  gcb_view_num(gcb_view_obj(e, "figure"), "median"), NULL);
  }
  gcb__cell(b, r, o + 6 + ncols, "%zu", nf);
}

void gcb__ranks_table(struct gcb__tb *b) {
  struct figcol cols[MAX_FIG_COLS];
  size_t ncols = fig_columns(b->rep, cols);
  const char *h[8 + MAX_FIG_COLS + 2] = {"run", "node",   "host", "rank",
                                         "GPU", "bus id", "NUMA"};
  size_t nh = 7;
  for (size_t k = 0; k < ncols; k++)
    h[nh++] = cols[k].head;
  h[nh++] = "findings";
  h[nh] = NULL;
  struct gcb_rtable *t =
      gcb__table_new(b, "ranks", "Per-rank summary",
                     "figures are each rank's median; findings counts those "
                     "naming the rank",
                     h + (1 - run_col(b)));
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const json_t *root = b->rep->docs[d].root, *e;
    const json_t *ranks = json_object_get(root, "ranks");
    size_t i;
    json_array_foreach(ranks, i, e) {
      rank_row(b, t, d, gcb_view_int(e, "rank", (long long)i), cols, ncols);
    }
  }
}

static void validation_text(struct gcb__tb *b, char **r, size_t col,
                            const json_t *c) {
  const json_t *v = gcb_view_obj(c, "validation");
  long long wrong = gcb_view_int(v, "wrong", 0);
  if (wrong > 0)
    gcb__cell(b, r, col, "FAIL (%lld wrong)", wrong);
  else if (!json_is_true(json_object_get(v, "checked")))
    gcb__cell(b, r, col, "not checked");
  else
    gcb__cell(b, r, col, "ok");
}

void gcb__cases_table(struct gcb__tb *b) {
  static const char *const h[] = {
      "run", "case",      "unit",       "ranks",    "median",
      "min", "min rank",  "max",        "max rank", "stdev",
      "CV",  "imbalance", "validation", NULL};
  size_t o = run_col(b);
  struct gcb_rtable *t = gcb__table_new(
      b, "cases", "Cases", "figures over ranks, each rank at its median time",
      h + (1 - o));
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const json_t *c;
    size_t i;
    json_array_foreach(json_object_get(b->rep->docs[d].root, "cases"), i, c) {
      const json_t *s = gcb_view_obj(c, "summary");
      bool wrong = gcb_view_int(s, "wrong", 0) > 0;
      char **r = gcb__table_row(b, t, wrong ? "fail" : NULL);
      char title[160];
      gcb_view_case_title(c, title, sizeof title);
      double mean = gcb_view_num(s, "mean"), sd = gcb_view_num(s, "stdev");
      cell_run(b, r, d);
      gcb__cell(b, r, o + 0, "%s", title);
      gcb__cell(b, r, o + 1, "%s", gcb_view_str(c, "unit"));
      gcb__cell(b, r, o + 2, "%lld", gcb_view_int(s, "ranks", 0));
      gcb__cell_num(b, r, o + 3, gcb_view_num(s, "median"), NULL);
      gcb__cell_num(b, r, o + 4, gcb_view_num(s, "min"), NULL);
      gcb__cell(b, r, o + 5, "%lld", gcb_view_int(s, "min_rank", -1));
      gcb__cell_num(b, r, o + 6, gcb_view_num(s, "max"), NULL);
      gcb__cell(b, r, o + 7, "%lld", gcb_view_int(s, "max_rank", -1));
      gcb__cell_num(b, r, o + 8, sd, NULL);
      gcb__cell_pct(b, r, o + 9, mean > 0 ? sd / mean : NAN, false);
      gcb__cell_pct(b, r, o + 10, gcb_view_num(s, "imbalance"), false);
      validation_text(b, r, o + 11, c);
    }
  }
}

void gcb__imbalance_table(struct gcb__tb *b) {
  static const char *const h[] = {
      "run",      "case", "ranks",    "[total]",   "<avg>", "min",
      "min rank", "max",  "max rank", "imbalance", "CV",    NULL};
  size_t o = run_col(b);
  struct gcb_rtable *t = gcb__table_new(
      b, "imbalance", "Load balance",
      "per-rank times as IPM shows them: [total] over ranks, <avg>, min and "
      "max with their ranks; imbalance = (max - avg) / max",
      h + (1 - o));
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const json_t *c;
    size_t i;
    json_array_foreach(json_object_get(b->rep->docs[d].root, "cases"), i, c) {
      struct gcb_imbalance im;
      if (!gcb_analyze_imbalance(c, &im) || im.ranks < 2)
        continue;
      bool high = im.imbalance * 100 > b->rep->thresholds->imbalance_pct;
      char **r = gcb__table_row(b, t, high ? "warn" : NULL);
      char title[160];
      gcb_view_case_title(c, title, sizeof title);
      cell_run(b, r, d);
      gcb__cell(b, r, o + 0, "%s", title);
      gcb__cell(b, r, o + 1, "%zu", im.ranks);
      gcb__cell_time(b, r, o + 2, im.total);
      gcb__cell_time(b, r, o + 3, im.mean);
      gcb__cell_time(b, r, o + 4, im.min);
      gcb__cell(b, r, o + 5, "%lld", im.min_rank);
      gcb__cell_time(b, r, o + 6, im.max);
      gcb__cell(b, r, o + 7, "%lld", im.max_rank);
      gcb__cell_pct(b, r, o + 8, im.imbalance, false);
      gcb__cell_pct(b, r, o + 9, im.cv, false);
    }
  }
}

static void param_cell(struct gcb__tb *b, char **r, size_t col, const json_t *c,
                       const char *key) {
  const json_t *v = json_object_get(json_object_get(c, "params"), key);
  if (json_is_string(v))
    gcb__cell(b, r, col, "%s", json_string_value(v));
  else if (json_is_number(v))
    gcb__cell(b, r, col, "%.17g", json_number_value(v));
  else
    gcb__cell(b, r, col, "-");
}

/* Collectives in the nccl-tests layout: one row per size. */
void gcb__coll_table(struct gcb__tb *b) {
  static const char *const h[] = {
      "run",   "op",       "size (B)",    "count",    "type", "redop",
      "root",  "in place", "time",        "min",      "max",  "algbw",
      "busbw", "wrong",    "latest rank", "lateness", NULL};
  static const char *const keys[] = {"op",    "size", "count",  "type",
                                     "redop", "root", "inplace"};
  size_t o = run_col(b), nk = sizeof keys / sizeof *keys;
  struct gcb_rtable *t = gcb__table_new(
      b, "collectives", "Collectives",
      "time: mean over ranks of each rank's mean (nccl-tests); min and max "
      "over ranks; bandwidths in GB/s; lateness: the latest rank's mean",
      h + (1 - o));
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const json_t *c;
    size_t i;
    json_array_foreach(json_object_get(b->rep->docs[d].root, "cases"), i, c) {
      if (strcmp(gcb_view_str(c, "bench"), "coll") != 0)
        continue;
      const json_t *s = gcb_view_obj(c, "summary");
      const json_t *ts = gcb_view_obj(s, "time_s");
      char **r =
          gcb__table_row(b, t, gcb_view_int(s, "wrong", 0) > 0 ? "fail" : NULL);
      cell_run(b, r, d);
      for (size_t k = 0; k < nk; k++)
        param_cell(b, r, o + k, c, keys[k]);
      gcb__cell_time(b, r, o + nk, gcb_view_num(ts, "mean"));
      gcb__cell_time(b, r, o + nk + 1, gcb_view_num(ts, "min"));
      gcb__cell_time(b, r, o + nk + 2, gcb_view_num(ts, "max"));
      gcb__cell_num(b, r, o + nk + 3, gcb_view_num(s, "algbw"), NULL);
      gcb__cell_num(b, r, o + nk + 4, gcb_view_num(s, "busbw"), NULL);
      gcb__cell(b, r, o + nk + 5, "%lld", gcb_view_int(s, "wrong", 0));
      cell_id(b, r, o + nk + 6, gcb_view_int(s, "late_rank", -1));
      gcb__cell_time(b, r, o + nk + 7, gcb_view_num(s, "late_mean_s"));
    }
  }
}
