/*
 * The report's tables as plain text cells, built once and formatted by the
 * Markdown and HTML renderers. Builders here cover the run-level tables
 * (runs, findings, checks, comparison); the per-rank and per-case tables
 * are in render_tables_cases.c. A table with no rows is dropped, so a
 * report without criteria or a baseline simply has no such section.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/fmtnum.h"
#include "reports/render/render_tables.h"

/* ---- builder ------------------------------------------------------------ */

/* Makes room for `slots` rows (the header included). */
static bool reserve(struct gcb__tb *b, struct gcb_rtable *t, size_t slots) {
  if (slots <= t->cap_rows)
    return true;
  size_t cap = t->cap_rows ? 2 * t->cap_rows : 16;
  char **cells = realloc(t->cells, cap * t->ncols * sizeof *cells);
  if (cells != NULL)
    t->cells = cells;
  const char **cls = realloc(t->row_class, cap * sizeof *cls);
  if (cls != NULL)
    t->row_class = cls;
  if (cells == NULL || cls == NULL) {
    b->oom = true;
    return false;
  }
  t->cap_rows = cap;
  return true;
}

struct gcb_rtable *gcb__table_new(struct gcb__tb *b, const char *id,
                                  const char *title, const char *intro,
                                  const char *const *headers) {
  struct gcb_rtables *ts = b->out;
  if (b->oom)
    return NULL;
  if (ts->n == ts->cap) {
    size_t cap = ts->cap ? 2 * ts->cap : 8;
    struct gcb_rtable *g = realloc(ts->items, cap * sizeof *g);
    if (g == NULL) {
      b->oom = true;
      return NULL;
    }
    ts->items = g;
    ts->cap = cap;
  }
  struct gcb_rtable *t = &ts->items[ts->n++];
  memset(t, 0, sizeof *t);
  t->id = id;
  t->title = title;
  t->intro = intro;
  while (headers[t->ncols] != NULL)
    t->ncols++;
  if (!reserve(b, t, 1))
    return NULL;
  memset(t->cells, 0, t->ncols * sizeof *t->cells);
  for (size_t i = 0; i < t->ncols; i++)
    gcb__cell(b, t->cells, i, "%s", headers[i]);
  return t;
}

struct gcb_rtable *gcb__table_new_named(struct gcb__tb *b, const char *id,
                                        const char *title, const char *intro,
                                        const char *const *headers) {
  size_t li = strlen(id) + 1, lt = strlen(title) + 1;
  char *owned = b->oom ? NULL : malloc(li + lt);
  if (owned == NULL) {
    b->oom = true;
    return NULL;
  }
  memcpy(owned, id, li);
  memcpy(owned + li, title, lt);
  struct gcb_rtable *t = gcb__table_new(b, owned, owned + li, intro, headers);
  if (t == NULL)
    free(owned);
  else
    t->owned = owned;
  return t;
}

char **gcb__table_row(struct gcb__tb *b, struct gcb_rtable *t,
                      const char *cls) {
  if (b->oom || t == NULL || !reserve(b, t, t->nrows + 2))
    return NULL;
  char **row = &t->cells[(t->nrows + 1) * t->ncols];
  memset(row, 0, t->ncols * sizeof *row);
  t->row_class[t->nrows++] = cls;
  return row;
}

/* Sets the cell to text[0..n), replacing what it held. */
static void set_cell(struct gcb__tb *b, char **row, size_t col,
                     const char *text, size_t n) {
  char *s = malloc(n + 1);
  if (s == NULL) {
    b->oom = true;
    return;
  }
  memcpy(s, text, n);
  s[n] = '\0';
  free(row[col]);
  row[col] = s;
}

/* Whether fmt converts only %s, %lld and %zu (no flags, widths or
 * precisions): the formats most cells use, which simple_format writes
 * without vsnprintf (a 16,384-rank report has millions of cells). */
static bool simple(const char *fmt) {
  for (const char *p = strchr(fmt, '%'); p != NULL; p = strchr(p, '%')) {
    if (p[1] == 's')
      p += 2;
    else if (p[1] == 'z' && p[2] == 'u')
      p += 3;
    else if (p[1] == 'l' && p[2] == 'l' && p[3] == 'd')
      p += 4;
    else
      return false;
  }
  return true;
}

/* vsnprintf(out, size, fmt, ap)'s text for a simple fmt: the same bytes,
 * cut at size - 1 as it cuts; returns the length. */
static size_t simple_format(char *out, size_t size, const char *fmt,
                            va_list ap) {
  size_t n = 0;
  for (const char *p = fmt; *p != '\0' && n + 1 < size;) {
    char num[GCB_FMTNUM_MAX];
    const char *text = num;
    size_t len;
    if (*p != '%') {
      const char *next = strchr(p, '%');
      len = next != NULL ? (size_t)(next - p) : strlen(p);
      text = p;
      p += len;
    } else if (p[1] == 's') {
      text = va_arg(ap, const char *);
      text = text != NULL ? text : "(null)";
      len = strnlen(text, size - 1 - n);
      p += 2;
    } else if (p[1] == 'z') {
      size_t v = va_arg(ap, size_t);
      len = v <= LLONG_MAX ? gcb_fmtnum_ll(num, (long long)v)
                           : (size_t)snprintf(num, sizeof num, "%zu", v);
      p += 3;
    } else {
      len = gcb_fmtnum_ll(num, va_arg(ap, long long));
      p += 4;
    }
    len = len < size - 1 - n ? len : size - 1 - n;
    memcpy(out + n, text, len);
    n += len;
  }
  out[n] = '\0';
  return n;
}

void gcb__cell(struct gcb__tb *b, char **row, size_t col, const char *fmt,
               ...) {
  if (row == NULL || b->oom)
    return;
  char tmp[512];
  size_t n;
  va_list ap;
  va_start(ap, fmt);
  if (simple(fmt)) {
    n = simple_format(tmp, sizeof tmp, fmt, ap);
  } else {
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    n = strlen(tmp);
  }
  va_end(ap);
  set_cell(b, row, col, tmp, n);
}

void gcb__cell_num(struct gcb__tb *b, char **row, size_t col, double x,
                   const char *unit) {
  char num[48];
  gcb_view_fmt(x, num, sizeof num);
  if (isnan(x) || unit == NULL || unit[0] == '\0')
    gcb__cell(b, row, col, "%s", num);
  else
    gcb__cell(b, row, col, "%s %s", num, unit);
}

void gcb__cell_figure(struct gcb__tb *b, char **row, size_t col, double x,
                      double limit, const char *unit) {
  char text[64], num[40];
  const char *shown;
  double k = gcb_unit_scale(fabs(x), unit, &shown);
  if (isnan(x)) {
    gcb__cell(b, row, col, "-");
    return;
  }
  /* Against a limit, enough digits to show which side of it x is. */
  if (!isnan(limit))
    gcb_fmt_against(x * k, limit * k, num, sizeof num);
  else
    gcb_view_fmt(x * k, num, sizeof num);
  snprintf(text, sizeof text, "%s%s%s", num, shown[0] ? " " : "", shown);
  gcb__cell(b, row, col, "%s", text);
}

void gcb__cell_time(struct gcb__tb *b, char **row, size_t col, double s) {
  char text[48];
  gcb_view_fmt_time(s, text, sizeof text);
  gcb__cell(b, row, col, "%s", text);
}

void gcb_rtables_free(struct gcb_rtables *ts) {
  if (ts == NULL)
    return;
  for (size_t i = 0; i < ts->n; i++) {
    struct gcb_rtable *t = &ts->items[i];
    size_t cells = t->cells != NULL ? (t->nrows + 1) * t->ncols : 0;
    for (size_t c = 0; c < cells; c++)
      free(t->cells[c]);
    free(t->cells);
    free(t->row_class);
    free(t->owned);
  }
  free(ts->items);
  memset(ts, 0, sizeof *ts);
}

/* ---- run-level tables --------------------------------------------------- */

static void runs_table(struct gcb__tb *b) {
  static const char *const h[] = {
      "#",       "file", "run id", "status",  "backend", "ranks", "nodes",
      "started", "tool", "cases",  "skipped", "errors",  NULL};
  struct gcb_rtable *t = gcb__table_new(b, "runs", "Runs", NULL, h);
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const json_t *root = b->rep->docs[d].root;
    const json_t *run = gcb_view_obj(root, "run");
    const json_t *tool = gcb_view_obj(root, "tool");
    const char *status = gcb_view_str(run, "status");
    char **r =
        gcb__table_row(b, t, gcb_view_status_failed(status) ? "fail" : NULL);
    gcb__cell(b, r, 0, "%zu", d + 1);
    gcb__cell(b, r, 1, "%s", b->rep->docs[d].name);
    gcb__cell(b, r, 2, "%s", gcb_view_str(run, "id"));
    gcb__cell(b, r, 3, "%s", status);
    gcb__cell(b, r, 4, "%s", gcb_view_str(run, "backend"));
    gcb__cell(b, r, 5, "%lld", gcb_view_int(run, "ranks", 0));
    gcb__cell(b, r, 6, "%lld", gcb_view_int(run, "nodes", 0));
    gcb__cell(b, r, 7, "%s", gcb_view_str(run, "start_time"));
    gcb__cell(b, r, 8, "%s %s (%s)", gcb_view_str(tool, "name"),
              gcb_view_str(tool, "version"),
              gcb_view_str(tool, "git_revision"));
    gcb__cell(b, r, 9, "%zu", json_array_size(json_object_get(root, "cases")));
    gcb__cell(b, r, 10, "%zu",
              json_array_size(json_object_get(root, "skipped")));
    gcb__cell(b, r, 11, "%zu",
              json_array_size(json_object_get(root, "errors")));
  }
}

/* What the launcher, scheduler and libraries were told (run.environment):
 * the Slurm job and the NCCL, MPI and CUDA settings that explain a figure.
 * No rows (dropped) for documents that record none. */
static void launch_table(struct gcb__tb *b) {
  static const char *const h[] = {"#", "variable", "value", NULL};
  struct gcb_rtable *t = gcb__table_new(
      b, "launch", "Launch context",
      "scheduler, NCCL, MPI and CUDA settings the run was started with", h);
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const json_t *env = json_object_get(
        gcb_view_obj(b->rep->docs[d].root, "run"), "environment");
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)env, name, v) {
      if (!json_is_string(v))
        continue;
      char **r = gcb__table_row(b, t, NULL);
      gcb__cell(b, r, 0, "%zu", d + 1);
      gcb__cell(b, r, 1, "%s", name);
      gcb__cell(b, r, 2, "%s", json_string_value(v));
    }
  }
}

/* The start-up MPI probe's pairs (run.mpi_probe): the launch's MPI mode,
 * which compare reads (docs/REPORTS.md, "MPI mode"). */
static void probe_rows(struct gcb__tb *b, struct gcb_rtable *t, size_t d) {
  const json_t *probe =
      gcb_view_obj(gcb_view_obj(b->rep->docs[d].root, "run"), "mpi_probe");
  const json_t *pairs = json_object_get(probe, "pairs"), *p;
  size_t i;
  json_array_foreach(pairs, i, p) {
    char **r = gcb__table_row(b, t, NULL);
    gcb__cell(b, r, 0, "%zu", d + 1);
    gcb__cell(b, r, 1, "MPI probe, %lld B, ranks 0-%lld (%s)",
              gcb_view_int(probe, "bytes", 8),
              (long long)json_integer_value(
                  json_array_get(json_object_get(p, "ranks"), 1)),
              json_is_true(json_object_get(p, "same_node")) ? "same node"
                                                            : "two nodes");
    char lo[32], med[32];
    gcb_view_fmt_time(gcb_view_num(p, "min_us") * 1e-6, lo, sizeof lo);
    gcb_view_fmt_time(gcb_view_num(p, "median_us") * 1e-6, med, sizeof med);
    long long whole = gcb_view_int(p, "batches", 0);
    if (whole > 0)
      gcb__cell(b, r, 2, "one-way %s (least of %lld batches; median %s)", lo,
                whole, med);
    else /* its time ran out before one batch: the round trips made */
      gcb__cell(b, r, 2,
                "one-way %s (cut short before a whole batch: the "
                "round trips made)",
                lo);
  }
}

/* The MPI and BLAS libraries as they said at run time (software.mpi and
 * mpi_device, software.blas_run), and the MPI probe: what a figure ran on.
 * No rows (dropped) for documents that record none of them (before they
 * were). */
static void libraries_table(struct gcb__tb *b) {
  static const char *const h[] = {"#", "library", "as it ran", NULL};
  struct gcb_rtable *t = gcb__table_new(b, "libraries", "Libraries",
                                        "the MPI device, the BLAS kernels and "
                                        "the MPI probe of the run "
                                        "(docs/results-schema.md)",
                                        h);
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const json_t *sw = gcb_view_obj(b->rep->docs[d].root, "software");
    const json_t *blas = gcb_view_obj(sw, "blas_run");
    const char *device = gcb_view_str(sw, "mpi_device");
    if (device[0] != '\0') {
      char **r = gcb__table_row(b, t, NULL);
      gcb__cell(b, r, 0, "%zu", d + 1);
      gcb__cell(b, r, 1, "%s", gcb_view_str(sw, "mpi"));
      gcb__cell(b, r, 2, "device %s", device);
    }
    if (blas != NULL) {
      char **r = gcb__table_row(b, t, NULL);
      gcb__cell(b, r, 0, "%zu", d + 1);
      gcb__cell(b, r, 1, "%s", gcb_view_str(blas, "library"));
      gcb__cell(b, r, 2, "%s kernels, %lld thread(s) (%s); CPU offers %s",
                gcb_view_str(blas, "core"), gcb_view_int(blas, "threads", 0),
                gcb_view_str(blas, "parallel"),
                gcb_view_str(blas, "cpu_isa")[0] ? gcb_view_str(blas, "cpu_isa")
                                                 : "(not recorded)");
    }
    probe_rows(b, t, d);
  }
}

static void findings_table(struct gcb__tb *b) {
  static const char *const h[] = {
      "severity", "kind", "where",       "case",       "measured",
      "expected", "cost", "explanation", "suggestion", NULL};
  const struct gcb_findings *fs = b->rep->findings;
  struct gcb_rtable *t = gcb__table_new(b, "findings", "Findings", NULL, h);
  for (size_t i = 0; t != NULL && i < fs->n; i++) {
    const struct gcb_finding *f = &fs->items[i];
    char where[320];
    gcb_report_where(b->rep, f, where, sizeof where);
    char **r = gcb__table_row(b, t, gcb_severity_name(f->severity));
    gcb__cell(b, r, 0, "%s", gcb_severity_name(f->severity));
    gcb__cell(b, r, 1, "%s", f->kind->name);
    gcb__cell(b, r, 2, "%s", where);
    gcb__cell(b, r, 3, "%s", f->where.subject[0] ? f->where.subject : "-");
    gcb__cell_figure(b, r, 4, f->measured, f->expected, f->unit);
    gcb__cell_figure(b, r, 5, f->expected, NAN, f->unit);
    if (isnan(f->cost))
      gcb__cell(b, r, 6, "-");
    else
      gcb__cell(b, r, 6, "%.1f%%", f->cost * 100);
    gcb__cell(b, r, 7, "%s", f->explanation);
    gcb__cell(b, r, 8, "%s", f->suggestion[0] ? f->suggestion : "-");
  }
}

static void bounds_text(const struct gcb_criterion *k, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < k->nbounds && used + 1 < size; i++) {
    const struct gcb_bound *bd = &k->bounds[i];
    const char *unit = bd->metric->unit ? bd->metric->unit
                       : k->unit        ? k->unit
                                        : "";
    int n = snprintf(buf + used, size - used, "%s%s %s %g%s%s", i ? "; " : "",
                     bd->metric->name, bd->is_min ? ">=" : "<=", bd->limit,
                     unit[0] ? " " : "", unit);
    used += n > 0 ? (size_t)n : 0;
  }
}

static void checks_table(struct gcb__tb *b) {
  static const char *const h[] = {"check", "result", "bounds",
                                  "cases", "misses", NULL};
  const struct gcb_criteria *cr = b->rep->criteria;
  if (cr == NULL)
    return;
  struct gcb_rtable *t =
      gcb__table_new(b, "checks", "Acceptance checks", cr->path, h);
  for (size_t i = 0; t != NULL && i < cr->nchecks; i++) {
    const struct gcb_check_result *res = &b->rep->checks[i];
    static const char *const cls[] = {"ok", "fail", "info"};
    static const char *const said[] = {"pass", "FAIL", "n/a"};
    enum gcb_check_outcome o = gcb_check_outcome(cr, res);
    char bounds[256];
    bounds_text(&cr->checks[i], bounds, sizeof bounds);
    char **r = gcb__table_row(b, t, cls[o]);
    gcb__cell(b, r, 0, "%s", cr->checks[i].name);
    gcb__cell(b, r, 1, "%s", said[o]);
    gcb__cell(b, r, 2, "%s", bounds);
    gcb__cell(b, r, 3, "%zu", res->matched);
    gcb__cell(b, r, 4, "%zu", res->failed);
  }
}

static const char *verdict_class(enum gcb_verdict v) {
  switch (v) {
  case GCB_VERDICT_REGRESSION:
    return "fail";
  case GCB_VERDICT_ONLY_OLD:
    return "warn";
  case GCB_VERDICT_BETTER:
    return "ok";
  case GCB_VERDICT_MODE: /* the launches' MPI mode: see the notes */
    return "info";
  default:
    return NULL;
  }
}

/* The noise band as a person reads it: "±4.2% (±2.1 GB/s)", the band in
 * the figure's own unit around the baseline. */
static void noise_cell(struct gcb__tb *b, char **r, size_t col,
                       const struct gcb_delta *d) {
  if (isnan(d->noise) || isnan(d->old_value)) {
    gcb__cell(b, r, col, "-");
    return;
  }
  char band[48];
  gcb_fmt_scaled(d->noise * fabs(d->old_value), d->unit, band, sizeof band);
  gcb__cell(b, r, col, "\u00b1%.1f%% (\u00b1%s)", d->noise * 100, band);
}

static void comparison_table(struct gcb__tb *b) {
  static const char *const h[] = {"case",      "metric",  "old",
                                  "new",       "change",  "noise",
                                  "threshold", "verdict", NULL};
  const struct gcb_comparison *cmp = b->rep->comparison;
  if (cmp == NULL)
    return;
  struct gcb_rtable *t = gcb__table_new(
      b, "comparison", "Comparison with the baseline", b->rep->baseline, h);
  for (size_t i = 0; t != NULL && i < cmp->ndeltas; i++) {
    const struct gcb_delta *d = &cmp->deltas[i];
    char **r = gcb__table_row(b, t, verdict_class(d->verdict));
    gcb__cell(b, r, 0, "%s", d->title);
    gcb__cell(b, r, 1, "%s", d->metric);
    gcb__cell_figure(b, r, 2, d->old_value, NAN, d->unit);
    gcb__cell_figure(b, r, 3, d->new_value, NAN, d->unit);
    gcb__cell_pct(b, r, 4, d->change, true);
    noise_cell(b, r, 5, d);
    gcb__cell_pct(b, r, 6, d->threshold, false);
    gcb__cell(b, r, 7, "%s", gcb_verdict_name(d->verdict));
  }
}

static void notes_table(struct gcb__tb *b) {
  static const char *const h[] = {"not comparable because", "baseline",
                                  "this run", NULL};
  const struct gcb_comparison *cmp = b->rep->comparison;
  if (cmp == NULL || cmp->nnotes == 0)
    return;
  struct gcb_rtable *t = gcb__table_new(
      b, "notes", "Differences between the runs",
      "the comparison above holds only as far as these allow", h);
  for (size_t i = 0; t != NULL && i < cmp->nnotes; i++) {
    char **r = gcb__table_row(b, t, "warn");
    gcb__cell(b, r, 0, "%s", cmp->notes[i].what);
    gcb__cell(b, r, 1, "%s", cmp->notes[i].old_value);
    gcb__cell(b, r, 2, "%s", cmp->notes[i].new_value);
  }
}

void gcb__cell_pct(struct gcb__tb *b, char **row, size_t col, double frac,
                   bool sign) {
  if (isnan(frac))
    gcb__cell(b, row, col, "-");
  else
    gcb__cell(b, row, col, sign ? "%+.1f%%" : "%.1f%%", frac * 100);
}

/* Drops tables that got no rows (an empty findings table stays: "no
 * findings" is news). */
static void drop_empty(struct gcb_rtables *ts) {
  size_t k = 0;
  for (size_t i = 0; i < ts->n; i++) {
    struct gcb_rtable *t = &ts->items[i];
    if (t->nrows > 0 || strcmp(t->id, "findings") == 0) {
      ts->items[k++] = *t;
      continue;
    }
    for (size_t c = 0; t->cells != NULL && c < t->ncols; c++)
      free(t->cells[c]);
    free(t->cells);
    free(t->row_class);
    free(t->owned);
  }
  ts->n = k;
}

/* A number, optionally signed, optionally followed by '%' or by one space
 * and a one-word unit ("70 GFLOP/s", "+3.2%", "262.7 us"), or "-". */
static bool digit(char c) {
  return c >= '0' && c <= '9';
}

/* Decimal numbers are read here (the tables' millions of cells), the
 * forms a sign or digit may also start (hex, inf, nan) by strtod. */
const char *gcb__number_end(const char *s) {
  const char *p = s + (s[0] == '+' || s[0] == '-');
  char *end;
  if ((p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ||
      (*p != '\0' && strchr("iInN", *p) != NULL)) {
    strtod(s, &end);
    return end;
  }
  const char *first = p;
  while (digit(*p))
    p++;
  bool any = p > first;
  if (*p == '.') {
    const char *frac = ++p;
    while (digit(*p))
      p++;
    any |= p > frac;
  }
  if (!any)
    return s; /* no number: strtod converts nothing */
  if (*p == 'e' || *p == 'E') {
    const char *q = p + 1 + (p[1] == '+' || p[1] == '-');
    if (digit(*q)) {
      while (digit(*q))
        q++;
      p = q;
    }
  }
  return p;
}

static bool looks_numeric(const char *s) {
  if (s == NULL || strcmp(s, "-") == 0)
    return true;
  if (strchr("+-0123456789", s[0]) == NULL || s[0] == '\0')
    return false;
  const char *end = gcb__number_end(s);
  if (end == s)
    return false;
  if (*end == '%')
    end++;
  if (*end == ' ' && ((end[1] >= 'A' && end[1] <= 'Z') ||
                      (end[1] >= 'a' && end[1] <= 'z') || end[1] == '%'))
    end += 1 + strcspn(end + 1, " ");
  return *end == '\0';
}

/* Right-aligns columns whose every cell reads as a number ("-" for
 * none), so no table has to declare it. */
static void mark_numeric(struct gcb_rtable *t) {
  for (size_t c = 0; c < t->ncols && c < 32; c++) {
    bool numeric = t->nrows > 0;
    for (size_t r = 1; numeric && r <= t->nrows; r++)
      numeric = looks_numeric(t->cells[r * t->ncols + c]);
    if (numeric)
      t->numeric |= 1u << c;
  }
}

/* The tables built: empty ones dropped, numeric columns marked. */
static enum gcb_status tables_done(struct gcb__tb *b, struct gcb_err *err) {
  if (b->oom)
    return gcb_err_set(err, GCB_ENOMEM, "report tables: out of memory");
  drop_empty(b->out);
  for (size_t i = 0; i < b->out->n; i++)
    mark_numeric(&b->out->items[i]);
  return GCB_OK;
}

enum gcb_status gcb_report_tables(const struct gcb_report *rep,
                                  struct gcb_rtables *out,
                                  struct gcb_err *err) {
  struct gcb__tb b = {.rep = rep, .out = out};
  gcb__verdict_tables(&b);
  runs_table(&b);
  launch_table(&b);
  libraries_table(&b);
  findings_table(&b);
  checks_table(&b);
  comparison_table(&b);
  notes_table(&b);
  gcb__gpus_table(&b);
  gcb__ranks_table(&b);
  gcb__cases_table(&b);
  gcb__imbalance_table(&b);
  gcb__coll_tables(&b);
  gcb__netmap_tables(&b);
  gcb__pattern_tables(&b);
  gcb__burn_tables(&b);
  return tables_done(&b, err);
}

enum gcb_status gcb_report_comparison_tables(const struct gcb_report *rep,
                                             struct gcb_rtables *out,
                                             struct gcb_err *err) {
  struct gcb__tb b = {.rep = rep, .out = out};
  comparison_table(&b);
  notes_table(&b);
  return tables_done(&b, err);
}

enum gcb_status gcb_report_tables_use(const struct gcb_report *rep,
                                      struct gcb_rtables *own,
                                      const struct gcb_rtables **out,
                                      struct gcb_err *err) {
  *out = rep->tables;
  if (*out != NULL)
    return GCB_OK;
  *out = own;
  return gcb_report_tables(rep, own, err);
}
