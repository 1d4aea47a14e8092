/*
 * Per-rank and per-case tables: the per-rank summary (where each rank runs,
 * what its device reached, how often it was the slowest), the case table
 * and the IPM-style load-balance table. With several documents a leading
 * "run" column says which one a row comes from.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/diagnose.h"
#include "reports/document/ranks.h"
#include "reports/document/stats.h"
#include "reports/render/render_tables.h"

#define MAX_FIG_COLS 10

size_t gcb__run_col(const struct gcb__tb *b) {
  return b->rep->ndocs > 1 ? 1 : 0;
}

void gcb__cell_run(struct gcb__tb *b, char **r, size_t d) {
  if (gcb__run_col(b))
    gcb__cell(b, r, 0, "%zu", d + 1);
}

void gcb__cell_id(struct gcb__tb *b, char **r, size_t col, long long v) {
  if (v >= 0)
    gcb__cell(b, r, col, "%lld", v);
  else
    gcb__cell(b, r, col, "-");
}

double gcb__ranks_figure(const struct gcb_ranks *pr, long long rank) {
  long long i = gcb_ranks_find(pr, rank);
  return i >= 0 ? gcb_ranks_num(pr, GCB_RC_FIG_MEDIAN, (size_t)i) : NAN;
}

struct figcol {
  size_t doc;
  const json_t *c;
  struct gcb_ranks pr; /* c's per-rank columns, looked up once */
  char head[200];
  double scale; /* to the unit the heading shows */
};

/* Per-device cases, the per-rank table's figure columns. */
static size_t fig_columns(const struct gcb_report *rep, struct figcol *cols) {
  size_t n = 0;
  for (size_t d = 0; d < rep->ndocs; d++) {
    const json_t *c;
    size_t i;
    json_array_foreach(json_object_get(rep->docs[d].root, "cases"), i, c) {
      if (n == MAX_FIG_COLS ||
          !gcb_bench_kinds[gcb_bench_kind_of(c)].per_device)
        continue;
      char title[160];
      const char *unit;
      gcb_view_case_title(c, title, sizeof title);
      cols[n] = (struct figcol){.doc = d, .c = c};
      gcb_ranks_of(c, &cols[n].pr);
      cols[n].scale = gcb_unit_scale(
          fabs(gcb_view_num(gcb_view_obj(c, "summary"), "median")),
          gcb_view_str(c, "unit"), &unit);
      if (rep->ndocs > 1)
        snprintf(cols[n].head, sizeof cols[n].head, "run %zu %s (%s)", d + 1,
                 title, unit);
      else
        snprintf(cols[n].head, sizeof cols[n].head, "%s (%s)", title, unit);
      n++;
    }
  }
  return n;
}

static int cmp_tally(const void *x, const void *y) {
  const struct gcb__tally *p = x, *q = y;
  return p->a != q->a ? (p->a > q->a) - (p->a < q->a)
                      : (p->b > q->b) - (p->b < q->b);
}

void gcb__tallies_build(struct gcb__tb *b, size_t doc, bool by_gpu,
                        struct gcb__tallies *out) {
  const struct gcb_findings *fs = b->rep->findings;
  size_t k = 0;
  out->items = malloc(fs->n * sizeof *out->items + 1);
  out->n = 0;
  if (out->items == NULL) {
    b->oom = true;
    return;
  }
  for (size_t i = 0; i < fs->n; i++) {
    const struct gcb_location *w = &fs->items[i].where;
    if (w->doc != (int)doc || (by_gpu ? w->gpu < 0 : w->rank < 0))
      continue;
    out->items[k++] = (struct gcb__tally){.a = by_gpu ? w->node : w->rank,
                                          .b = by_gpu ? w->gpu : 0,
                                          .n = 1,
                                          .worst = (int)fs->items[i].severity};
  }
  qsort(out->items, k, sizeof *out->items, cmp_tally);
  for (size_t i = 0; i < k; i++) { /* merge equal keys */
    struct gcb__tally *last = out->n ? &out->items[out->n - 1] : NULL;
    if (last != NULL && cmp_tally(last, &out->items[i]) == 0) {
      last->n++;
      last->worst =
          out->items[i].worst > last->worst ? out->items[i].worst : last->worst;
    } else {
      out->items[out->n++] = out->items[i];
    }
  }
}

size_t gcb__tallies_get(const struct gcb__tallies *t, long long a, long long b,
                        const char **cls) {
  struct gcb__tally key = {.a = a, .b = b};
  const struct gcb__tally *hit =
      t->n ? bsearch(&key, t->items, t->n, sizeof key, cmp_tally) : NULL;
  int worst = hit ? hit->worst : -1;
  *cls = worst == GCB_SEV_FAIL ? "fail" : worst == GCB_SEV_WARN ? "warn" : NULL;
  return hit ? hit->n : 0;
}

void gcb__tallies_free(struct gcb__tallies *t) {
  free(t->items);
  t->items = NULL;
  t->n = 0;
}

/* For each rank of a document, in how many cases it was the slowest (the
 * rank IPM's imbalance points at): a rank that is always last is a
 * straggler whatever the benchmark. NULL on ENOMEM. */
static size_t *slowest_counts(const json_t *root, size_t nranks) {
  size_t *n = calloc(nranks + 1, sizeof *n), i;
  const json_t *c;
  json_array_foreach(json_object_get(root, "cases"), i, c) {
    struct gcb_imbalance im;
    if (n != NULL && gcb_analyze_imbalance(c, &im) && im.ranks >= 2 &&
        im.imbalance > 0 && im.max_rank >= 0 && (size_t)im.max_rank < nranks)
      n[im.max_rank]++;
  }
  return n;
}

static void rank_row(struct gcb__tb *b, struct gcb_rtable *t, size_t d,
                     long long rank, const struct figcol *cols, size_t ncols,
                     size_t slowest, const struct gcb__tallies *tally) {
  const json_t *root = b->rep->docs[d].root;
  struct gcb_place p;
  const char *cls;
  gcb_view_place(root, rank, &p);
  size_t nf = gcb__tallies_get(tally, rank, 0, &cls), o = gcb__run_col(b);
  char **r = gcb__table_row(b, t, cls);
  gcb__cell_run(b, r, d);
  gcb__cell(b, r, o + 0, "%lld", p.node);
  gcb__cell(b, r, o + 1, "%s", p.hostname);
  gcb__cell(b, r, o + 2, "%lld", rank);
  gcb__cell_id(b, r, o + 3, p.gpu);
  gcb__cell(b, r, o + 4, "%s", p.bus_id[0] ? p.bus_id : "-");
  gcb__cell_id(b, r, o + 5, p.numa);
  for (size_t k = 0; k < ncols; k++) {
    double x = cols[k].doc == d ? gcb__ranks_figure(&cols[k].pr, rank) : NAN;
    gcb__cell_num(b, r, o + 6 + k, x * cols[k].scale, NULL);
  }
  gcb__cell(b, r, o + 6 + ncols, "%zu", slowest);
  gcb__cell(b, r, o + 7 + ncols, "%zu", nf);
}

void gcb__ranks_table(struct gcb__tb *b) {
  struct figcol cols[MAX_FIG_COLS];
  size_t ncols = fig_columns(b->rep, cols);
  const char *h[8 + MAX_FIG_COLS + 3] = {"run", "node",   "host", "rank",
                                         "GPU", "bus id", "NUMA"};
  size_t nh = 7;
  for (size_t k = 0; k < ncols; k++)
    h[nh++] = cols[k].head;
  h[nh++] = "slowest in";
  h[nh++] = "findings";
  h[nh] = NULL;
  struct gcb_rtable *t =
      gcb__table_new(b, "ranks", "Per-rank summary",
                     "figures are each rank's median; slowest in: the cases "
                     "in which the rank took longest (IPM's max); findings "
                     "counts those naming the rank",
                     h + (1 - gcb__run_col(b)));
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const json_t *root = b->rep->docs[d].root, *e;
    const json_t *ranks = json_object_get(root, "ranks");
    size_t i, n = json_array_size(ranks);
    size_t *slow = slowest_counts(root, n);
    struct gcb__tallies tally;
    gcb__tallies_build(b, d, false, &tally);
    b->oom |= slow == NULL;
    json_array_foreach(ranks, i, e) {
      long long rank = gcb_view_int(e, "rank", (long long)i);
      if (slow != NULL && !b->oom)
        rank_row(b, t, d, rank, cols, ncols,
                 rank >= 0 && (size_t)rank < n ? slow[rank] : 0, &tally);
    }
    free(slow);
    gcb__tallies_free(&tally);
  }
}

static void validation_text(struct gcb__tb *b, char **r, size_t col,
                            const json_t *c) {
  const json_t *v = gcb_view_obj(c, "validation");
  long long wrong = gcb_view_int(v, "wrong", 0);
  if (wrong > 0)
    gcb__cell(b, r, col, "FAIL (%lld wrong)", wrong);
  else if (!json_is_true(json_object_get(v, "checked")))
    gcb__cell(b, r, col, "not validated");
  else
    gcb__cell(b, r, col, "ok");
}

/* What the cases table shows of a case: its figure over ranks, or for a
 * latency case (gcb_case_is_latency) the ranks' times in us, since its
 * GB/s says nothing. */
struct spread {
  const char *unit;
  double median, mean, min, max, stdev;
  long long min_rank, max_rank;
};

/* The median of the ranks' times (the time each figure comes from). */
static double rank_time_median(const json_t *c) {
  struct gcb_ranks pr;
  gcb_ranks_of(c, &pr);
  double *t = malloc(pr.n * sizeof *t + 1), m = NAN;
  size_t n = 0;
  for (size_t i = 0; t != NULL && i < pr.n; i++) {
    double x = gcb_ranks_num(&pr, GCB_RC_FIGURE_TIME, i);
    x = isnan(x) ? gcb_ranks_num(&pr, GCB_RC_TIME_MEDIAN, i) : x;
    if (!isnan(x))
      t[n++] = x;
  }
  if (t != NULL)
    m = gcb_stats_median(t, n); /* the sort's median, by selection */
  free(t);
  return m;
}

static void case_spread(const json_t *c, struct spread *v) {
  const json_t *s = gcb_view_obj(c, "summary");
  struct gcb_imbalance im;
  *v = (struct spread){.unit = gcb_view_str(c, "unit"),
                       .median = gcb_view_num(s, "median"),
                       .mean = gcb_view_num(s, "mean"),
                       .min = gcb_view_num(s, "min"),
                       .max = gcb_view_num(s, "max"),
                       .stdev = gcb_view_num(s, "stdev"),
                       .min_rank = gcb_view_int(s, "min_rank", -1),
                       .max_rank = gcb_view_int(s, "max_rank", -1)};
  if (!gcb_case_is_latency(c) || !gcb_analyze_imbalance(c, &im))
    return;
  double sd = im.cv * im.mean;
  *v = (struct spread){.unit = "us",
                       .median = rank_time_median(c) * 1e6,
                       .mean = im.mean * 1e6,
                       .min = im.min * 1e6,
                       .max = im.max * 1e6,
                       .stdev = sd * 1e6,
                       .min_rank = im.min_rank,
                       .max_rank = im.max_rank};
}

void gcb__cases_table(struct gcb__tb *b) {
  static const char *const h[] = {
      "run", "case",      "unit",       "ranks",    "median",
      "min", "min rank",  "max",        "max rank", "stdev",
      "CV",  "imbalance", "validation", NULL};
  size_t o = gcb__run_col(b);
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
      struct spread v;
      case_spread(c, &v);
      const char *unit;
      double k = gcb_unit_scale(fabs(v.median), v.unit, &unit);
      gcb__cell_run(b, r, d);
      gcb__cell(b, r, o + 0, "%s", title);
      gcb__cell(b, r, o + 1, "%s", unit);
      gcb__cell(b, r, o + 2, "%lld", gcb_view_int(s, "ranks", 0));
      gcb__cell_num(b, r, o + 3, v.median * k, NULL);
      gcb__cell_num(b, r, o + 4, v.min * k, NULL);
      gcb__cell(b, r, o + 5, "%lld", v.min_rank);
      gcb__cell_num(b, r, o + 6, v.max * k, NULL);
      gcb__cell(b, r, o + 7, "%lld", v.max_rank);
      gcb__cell_num(b, r, o + 8, v.stdev * k, NULL);
      gcb__cell_pct(b, r, o + 9, v.mean > 0 ? v.stdev / v.mean : NAN, false);
      gcb__cell_pct(b, r, o + 10, gcb_view_num(s, "imbalance"), false);
      validation_text(b, r, o + 11, c);
    }
  }
}

void gcb__imbalance_table(struct gcb__tb *b) {
  static const char *const h[] = {
      "run",      "case", "ranks",    "[total]",   "<avg>", "min",
      "min rank", "max",  "max rank", "imbalance", "CV",    NULL};
  size_t o = gcb__run_col(b);
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
      gcb__cell_run(b, r, d);
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
