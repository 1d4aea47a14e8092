/*
 * The table builder: a report table (struct gcb_rtable, render.h) filled
 * cell by cell, then finished (empty tables dropped, numeric columns
 * marked). Shared by the report's tables (render_tables.c) and the
 * verdict's (render_verdict.c), internal to reports/render. Memory
 * failures are sticky (oom): every builder call after one is a no-op, and
 * gcb__tables_done reports it once.
 */
#ifndef GCB_TABLE_BUILD_H
#define GCB_TABLE_BUILD_H

#include "reports/render/render.h"

struct gcb__tb {
  const struct gcb_report *rep;
  struct gcb_rtables *out;
  bool oom;
};

/* A new table with the NULL-terminated headers; its id, title and
 * headers are copied (they may be made at run time: "coll-3", "allreduce
 * float sum (host)"), its intro is not. NULL after a failure. */
struct gcb_rtable *gcb__table_new(struct gcb__tb *b, const char *id,
                                  const char *title, const char *intro,
                                  const char *const *headers);

/* A new row of empty cells (NULL is shown as ""); NULL after a failure. */
char **gcb__table_row(struct gcb__tb *b, struct gcb_rtable *t, const char *cls);

/* Sets a cell to printf text, as long as it is; row may be NULL
 * (ignored). */
void gcb__cell(struct gcb__tb *b, char **row, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Appends printf text to the cell, after `sep` when it holds text already
 * ("a; b"); row may be NULL (ignored). */
void gcb__cell_add(struct gcb__tb *b, char **row, size_t col, const char *sep,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The printf text when `known`, else "-" (a figure the row lacks: a NAN,
 * an unknown index). */
void gcb__cell_if(struct gcb__tb *b, char **row, size_t col, bool known,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A number in gcb_view_fmt's format; "-" for NAN. */
void gcb__cell_num(struct gcb__tb *b, char **row, size_t col, double x);

/* A figure in its unit scaled to its size ("453.3 TFLOP/s"); against a
 * limit (not NAN), with the digits that show which side of it x is. */
void gcb__cell_figure(struct gcb__tb *b, char **row, size_t col, double x,
                      double limit, const char *unit);

/* A time in seconds with an adapted unit ("262.7 us"). */
void gcb__cell_time(struct gcb__tb *b, char **row, size_t col, double s);

/* A fraction as a percentage ("+3.2%" with sign); "-" for NAN. */
void gcb__cell_pct(struct gcb__tb *b, char **row, size_t col, double frac,
                   bool sign);

/* Where strtod(s, &end) would set end (in the C locale), for s starting
 * with a sign or a digit. */
const char *gcb__number_end(const char *s);

/* The tables built: GCB_ENOMEM (with its message in err) after a memory
 * failure; else empty tables dropped (an empty "findings" stays: "no
 * findings" is news) and numeric columns marked, GCB_OK. */
enum gcb_status gcb__tables_done(struct gcb__tb *b, struct gcb_err *err);

#endif
