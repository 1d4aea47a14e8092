/*
 * Collective sweeps in the nccl-tests layout: one table per sweep (one
 * operation, type, reduction, root and transport of one run), one row per
 * message size, out-of-place and in-place side by side with nccl-tests'
 * columns (time in microseconds, algbw, busbw in GB/s, #wrong), followed by
 * what nccl-tests does not measure: the rank that arrived latest on
 * average, and by how much; and, where the analysis found a row off its
 * neighbours' trend or above its latency floor (rules_trend.c), a note
 * column that marks it. Files converted from nccl-tests' JSON show the
 * same way.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/render/render_tables.h"

#define MAX_SWEEPS 64

static bool is_coll(const json_t *c) {
  return gcb_bench_kind_of(c) == GCB_BENCH_COLL;
}

static bool in_place(const json_t *c) {
  return gcb_analyze_in_place(c);
}

/* A finding on a sweep row (rules_trend.c): the analysis decides which
 * rows are off; the table only marks them. */
static bool row_kind(const struct gcb_finding *f) {
  return f->kind == GCB_KIND(SWEEP_TREND) || f->kind == GCB_KIND(LATENCY_FLOOR);
}

/* Whether a finding of document d marks a row of the sweep `key`. */
static bool sweep_marked(const struct gcb__tb *b, size_t d, const char *key) {
  const struct gcb_findings *fs = b->rep->findings;
  char k[GCB_VIEW_SWEEP_KEY];
  for (size_t i = 0; fs != NULL && i < fs->n; i++) {
    const struct gcb_finding *f = &fs->items[i];
    if (!row_kind(f) || f->where.doc != (int)d || f->bench_case == NULL)
      continue;
    gcb_model_sweep_key(f->bench_case, k, sizeof k);
    if (strcmp(k, key) == 0)
      return true;
  }
  return false;
}

/* The note on the row's half (out-of-place or in-place): "▲ off trend:
 * 46 us vs 23 us on its neighbours' line (2.00x)", appended to what the
 * other half wrote. Returns whether the case is marked. */
static bool row_note(struct gcb__tb *b, char **r, size_t col, size_t d,
                     const json_t *c) {
  const struct gcb_findings *fs = b->rep->findings;
  bool marked = false;
  for (size_t i = 0; fs != NULL && i < fs->n; i++) {
    const struct gcb_finding *f = &fs->items[i];
    if (!row_kind(f) || f->where.doc != (int)d || f->bench_case == NULL ||
        f->bench_case->source != c)
      continue;
    char m[32], e[32];
    gcb_view_fmt_time(f->measured / 1e6, m, sizeof m);
    gcb_view_fmt_time(f->expected / 1e6, e, sizeof e);
    const char *before = r[col] != NULL ? r[col] : "";
    bool trend = f->kind == GCB_KIND(SWEEP_TREND);
    gcb__cell(b, r, col, "%s%s\xe2\x96\xb2 %s%s: %s vs %s %s (%.2fx)", before,
              before[0] ? "; " : "", in_place(c) ? "in-place " : "",
              trend ? "off trend" : "above latency floor", m, e,
              trend ? "on its neighbours' line" : "floor",
              f->measured / f->expected);
    marked = true;
  }
  return marked;
}

/* "Collective allreduce float sum (host: MPICH 4.0.2 ch4:ucx; UCX_TLS=sm)":
 * on the host backend, whose transport is MPI, the library, device and
 * transport settings the document records (gcb_view_mpi_line, as the live
 * table's header names them). */
static void sweep_title(const json_t *root, const json_t *c, size_t run,
                        size_t nruns, char *buf, size_t size) {
  const char *redop = gcb_view_param_str(c, "redop");
  const char *backend = gcb_view_str(c, "backend");
  char pre[32] = "", mpi[192] = "";
  if (nruns > 1)
    snprintf(pre, sizeof pre, "run %zu: ", run + 1);
  if (strcmp(backend, "host") == 0)
    gcb_view_mpi_line(root, mpi, sizeof mpi);
  snprintf(buf, size, "%sCollective %s %s%s%s (%s%s%s)", pre,
           gcb_view_param_str(c, "op"), gcb_view_param_str(c, "type"),
           redop[0] && strcmp(redop, "none") ? " " : "",
           redop[0] && strcmp(redop, "none") ? redop : "", backend,
           mpi[0] ? ": " : "", mpi);
}

/* The row of size `bytes` in t (rows are kept in order of first sight),
 * or a new one. */
static char **size_row(struct gcb__tb *b, struct gcb_rtable *t, double *sizes,
                       double bytes) {
  for (size_t r = 0; r < t->nrows; r++)
    if (sizes[r] == bytes)
      return &t->cells[(r + 1) * t->ncols];
  if (t->nrows >= 4096)
    return NULL;
  char **row = gcb__table_row(b, t, NULL);
  if (row != NULL)
    sizes[t->nrows - 1] = bytes;
  return row;
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

/* A time in microseconds as nccl-tests prints it (2, 1 or 0 decimals as
 * it grows), so numbers can be compared digit for digit. */
static void cell_us(struct gcb__tb *b, char **r, size_t col, double us) {
  if (isnan(us))
    gcb__cell(b, r, col, "-");
  else
    gcb__cell(b, r, col,
              us >= 10000 ? "%.0f"
              : us >= 100 ? "%.1f"
                          : "%.2f",
              us);
}

/* A bandwidth with nccl-tests' two decimals. */
static void cell_bw(struct gcb__tb *b, char **r, size_t col, double gbps) {
  if (isnan(gbps))
    gcb__cell(b, r, col, "-");
  else
    gcb__cell(b, r, col, "%.2f", gbps);
}

/* "38.93-39.71": the fastest and slowest rank's time, in microseconds. */
static void cell_range(struct gcb__tb *b, char **r, size_t col,
                       const json_t *ts) {
  double lo = gcb_view_num(ts, "min") * 1e6, hi = gcb_view_num(ts, "max") * 1e6;
  if (isnan(lo) || isnan(hi))
    gcb__cell(b, r, col, "-");
  else
    gcb__cell(b, r, col, "%.4g-%.4g", lo, hi);
}

/* Fills one half (out-of-place at 5, in-place at 10) of a size row. */
static void fill(struct gcb__tb *b, char **r, const json_t *c,
                 const char **cls) {
  const json_t *s = gcb_view_obj(c, "summary");
  size_t at = in_place(c) ? 10 : 5;
  static const char *const keys[] = {"size", "count", "type", "redop", "root"};
  for (size_t k = 0; k < 5; k++)
    param_cell(b, r, k, c, keys[k]);
  double t_us = gcb_view_num(gcb_view_obj(s, "time_s"), "mean") * 1e6;
  cell_us(b, r, at, t_us);
  cell_range(b, r, at + 1, gcb_view_obj(s, "time_s"));
  cell_bw(b, r, at + 2, gcb_view_num(s, "algbw"));
  cell_bw(b, r, at + 3, gcb_view_num(s, "busbw"));
  const json_t *v = gcb_view_obj(c, "validation");
  long long wrong = gcb_view_int(s, "wrong", 0);
  if (json_is_true(json_object_get(v, "checked")))
    gcb__cell(b, r, at + 4, "%lld", wrong);
  else
    gcb__cell(b, r, at + 4, "N/A");
  if (wrong > 0)
    *cls = "fail";
  long long late = gcb_view_int(s, "late_rank", -1);
  double late_us = gcb_view_num(s, "late_mean_s") * 1e6;
  if (late >= 0 && !in_place(c)) {
    gcb__cell(b, r, 15, "%lld", late);
    cell_us(b, r, 16, late_us);
  }
}

#define INTRO                                                                  \
  "nccl-tests layout, out-of-place then in-place: time is the mean over "      \
  "ranks of each rank's mean, ranks the fastest and slowest rank's, "          \
  "GB = 1e9 B; latest rank: the one the others waited for (out-of-place)"

static void sweep_table(struct gcb__tb *b, size_t d, const json_t *first,
                        const char *key, size_t index) {
  static const char *const h[] = {"size (B)",      "count (elements)",
                                  "type",          "redop",
                                  "root",          "time (us)",
                                  "ranks (us)",    "algbw (GB/s)",
                                  "busbw (GB/s)",  "#wrong",
                                  "time (us)",     "ranks (us)",
                                  "algbw (GB/s)",  "busbw (GB/s)",
                                  "#wrong",        "latest rank",
                                  "lateness (us)", NULL};
  /* A note column only where the analysis marked a row. */
  const char *hs[sizeof h / sizeof *h + 1];
  memcpy(hs, h, sizeof h);
  bool marks = sweep_marked(b, d, key);
  hs[17] = marks ? "note" : NULL;
  hs[18] = NULL;
  char id[32], title[320], k[512];
  const json_t *cases = json_object_get(b->rep->docs[d].root, "cases"), *c;
  size_t i;
  snprintf(id, sizeof id, "coll-%zu", index + 1);
  sweep_title(b->rep->docs[d].root, first, d, b->rep->ndocs, title,
              sizeof title);
  struct gcb_rtable *t = gcb__table_new_named(
      b, id, title,
      marks ? INTRO "; \xe2\x96\xb2 marks a row far off its neighbours' "
                    "log-log trend or its latency floor (see findings)"
            : INTRO,
      hs);
  double *sizes = malloc(4096 * sizeof *sizes);
  b->oom |= sizes == NULL;
  json_array_foreach(cases, i, c) {
    if (t == NULL || sizes == NULL || !is_coll(c))
      continue;
    gcb_view_sweep_key(c, k, sizeof k);
    char **r = strcmp(k, key) == 0
                   ? size_row(b, t, sizes, gcb_view_param_num(c, "size"))
                   : NULL;
    if (r == NULL)
      continue;
    size_t row = (size_t)(r - t->cells) / t->ncols - 1;
    const char *cls = NULL;
    fill(b, r, c, &cls);
    if (cls != NULL)
      t->row_class[row] = cls;
    /* The HTML class: the row's state, then off-trend (rendered bold). */
    if (marks && row_note(b, r, 17, d, c))
      t->row_class[row] =
          t->row_class[row] != NULL && strstr(t->row_class[row], "fail")
              ? "fail off-trend"
              : "warn off-trend";
  }
  free(sizes);
}

void gcb__coll_tables(struct gcb__tb *b) {
  size_t index = 0;
  for (size_t d = 0; d < b->rep->ndocs && !b->oom; d++) {
    const json_t *cases = json_object_get(b->rep->docs[d].root, "cases"), *c;
    char keys[MAX_SWEEPS][GCB_VIEW_SWEEP_KEY];
    size_t nkeys = 0, i, k;
    json_array_foreach(cases, i, c) {
      if (!is_coll(c) || nkeys == MAX_SWEEPS)
        continue;
      gcb_view_sweep_key(c, keys[nkeys], sizeof keys[nkeys]);
      for (k = 0; k < nkeys && strcmp(keys[k], keys[nkeys]) != 0; k++)
        ;
      if (k < nkeys)
        continue;
      sweep_table(b, d, c, keys[nkeys], index++);
      nkeys++;
    }
  }
}
