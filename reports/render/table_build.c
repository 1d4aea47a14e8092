/*
 * The table builder (table_build.h): tables of text cells grown row by
 * row, cells formatted without vsnprintf where the format allows (a
 * 16,384-rank report has millions of cells), and the finish every table
 * set gets: empty tables dropped, numeric columns marked for alignment.
 */
#include "reports/render/table_build.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "reports/document/fmtnum.h"

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
  size_t li = strlen(id) + 1, lt = strlen(title) + 1, ncols = 0;
  while (headers[ncols] != NULL)
    ncols++;
  char *owned = b->oom ? NULL : calloc(1, li + lt + ncols);
  if (owned == NULL ||
      !gcb_grow((void **)&ts->items, &ts->cap, ts->n, sizeof *ts->items)) {
    free(owned);
    b->oom = true;
    return NULL;
  }
  struct gcb_rtable *t = &ts->items[ts->n++];
  memset(t, 0, sizeof *t);
  memcpy(owned, id, li);
  memcpy(owned + li, title, lt);
  t->owned = owned;
  t->id = owned;
  t->title = owned + li;
  t->numeric = (bool *)(owned + li + lt);
  t->intro = intro;
  t->ncols = ncols;
  if (!reserve(b, t, 1))
    return NULL;
  memset(t->cells, 0, t->ncols * sizeof *t->cells);
  for (size_t i = 0; i < t->ncols; i++)
    gcb__cell(b, t->cells, i, "%s", headers[i]);
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

/* vsnprintf(out, size, fmt, ap) for a simple fmt: the same bytes, cut at
 * size - 1 as it cuts; returns the length uncut, as it does. */
static size_t simple_format(char *out, size_t size, const char *fmt,
                            va_list ap) {
  size_t n = 0;
  for (const char *p = fmt; *p != '\0';) {
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
      len = strlen(text);
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
    if (n < size - 1)
      memcpy(out + n, text, len < size - 1 - n ? len : size - 1 - n);
    n += len;
  }
  out[n < size - 1 ? n : size - 1] = '\0';
  return n;
}

/* vsnprintf's length and text, by simple_format where fmt is simple. */
static size_t format(char *out, size_t size, const char *fmt, va_list ap) {
  if (simple(fmt))
    return simple_format(out, size, fmt, ap);
  int n = vsnprintf(out, size, fmt, ap);
  if (n < 0)
    out[0] = '\0';
  return n > 0 ? (size_t)n : 0;
}

/* Sets the cell to the text, replacing what it held: formatted once into
 * a buffer on the stack, again into one its length when it is longer. */
static void vcell(struct gcb__tb *b, char **row, size_t col, const char *fmt,
                  va_list ap) {
  if (row == NULL || b->oom)
    return;
  char tmp[512];
  va_list again;
  va_copy(again, ap);
  size_t n = format(tmp, sizeof tmp, fmt, ap);
  char *s = malloc(n + 1);
  if (s != NULL && n < sizeof tmp)
    memcpy(s, tmp, n + 1);
  else if (s != NULL)
    format(s, n + 1, fmt, again);
  va_end(again);
  b->oom |= s == NULL;
  if (s == NULL)
    return;
  free(row[col]);
  row[col] = s;
}

void gcb__cell(struct gcb__tb *b, char **row, size_t col, const char *fmt,
               ...) {
  va_list ap;
  va_start(ap, fmt);
  vcell(b, row, col, fmt, ap);
  va_end(ap);
}

void gcb__cell_add(struct gcb__tb *b, char **row, size_t col, const char *sep,
                   const char *fmt, ...) {
  if (row == NULL || b->oom)
    return;
  char *before = row[col];
  va_list ap;
  va_start(ap, fmt);
  row[col] = NULL;
  vcell(b, row, col, fmt, ap);
  va_end(ap);
  if (row[col] == NULL) /* out of memory */
    row[col] = before;
  else if (before != NULL && before[0] != '\0')
    gcb__cell(b, row, col, "%s%s%s", before, sep, row[col]);
  if (row[col] != before)
    free(before);
}

void gcb__cell_if(struct gcb__tb *b, char **row, size_t col, bool known,
                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vcell(b, row, col, known ? fmt : "-", ap);
  va_end(ap);
}

void gcb__cell_num(struct gcb__tb *b, char **row, size_t col, double x) {
  char num[48];
  gcb_view_fmt(x, num, sizeof num);
  gcb__cell(b, row, col, "%s", num);
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

/* Frees what table t holds. */
static void table_free(struct gcb_rtable *t) {
  size_t cells = t->cells != NULL ? (t->nrows + 1) * t->ncols : 0;
  for (size_t c = 0; c < cells; c++)
    free(t->cells[c]);
  free(t->cells);
  free(t->row_class);
  free(t->owned);
}

void gcb_rtables_free(struct gcb_rtables *ts) {
  if (ts == NULL)
    return;
  for (size_t i = 0; i < ts->n; i++)
    table_free(&ts->items[i]);
  free(ts->items);
  memset(ts, 0, sizeof *ts);
}

void gcb__cell_pct(struct gcb__tb *b, char **row, size_t col, double frac,
                   bool sign) {
  gcb__cell_if(b, row, col, !isnan(frac), sign ? "%+.1f%%" : "%.1f%%",
               frac * 100);
}

/* Drops tables that got no rows (an empty findings table stays: "no
 * findings" is news). */
static void drop_empty(struct gcb_rtables *ts) {
  size_t k = 0;
  for (size_t i = 0; i < ts->n; i++) {
    struct gcb_rtable *t = &ts->items[i];
    if (t->nrows > 0 || strcmp(t->id, "findings") == 0)
      ts->items[k++] = *t;
    else
      table_free(t);
  }
  ts->n = k;
}

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

/* A number, optionally signed, optionally followed by '%' or by one space
 * and a one-word unit ("70 GFLOP/s", "+3.2%", "262.7 us"), or "-". */
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
  for (size_t c = 0; c < t->ncols; c++) {
    t->numeric[c] = t->nrows > 0;
    for (size_t r = 1; t->numeric[c] && r <= t->nrows; r++)
      t->numeric[c] = looks_numeric(t->cells[r * t->ncols + c]);
  }
}

enum gcb_status gcb__tables_done(struct gcb__tb *b, struct gcb_err *err) {
  if (b->oom)
    return gcb_err_set(err, GCB_ENOMEM, "report tables: out of memory");
  drop_empty(b->out);
  for (size_t i = 0; i < b->out->n; i++)
    mark_numeric(&b->out->items[i]);
  return GCB_OK;
}
