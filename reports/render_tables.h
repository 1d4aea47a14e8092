/*
 * Internal to the table model: the builder the table functions share.
 * Memory failures are sticky (oom); every builder call after one is a
 * no-op, and gcb_report_tables reports it once.
 */
#ifndef GCB_RENDER_TABLES_H
#define GCB_RENDER_TABLES_H

#include "render.h"

struct gcb__tb {
  const struct gcb_report *rep;
  struct gcb_rtables *out;
  bool oom;
};

/* A new table with the NULL-terminated headers; NULL after a failure. */
struct gcb_rtable *gcb__table_new(struct gcb__tb *b, const char *id,
                                  const char *title, const char *intro,
                                  const char *const *headers);

/* A new row of empty cells (NULL is shown as ""); NULL after a failure. */
char **gcb__table_row(struct gcb__tb *b, struct gcb_rtable *t, const char *cls);

/* Sets a cell to printf text (truncated at 511 bytes, at a UTF-8
 * boundary); row may be NULL (ignored). */
void gcb__cell(struct gcb__tb *b, char **row, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A number in gcb_view_fmt's format, with its unit; "-" for NAN. */
void gcb__cell_num(struct gcb__tb *b, char **row, size_t col, double x,
                   const char *unit);

/* A time in seconds with an adapted unit ("262.7 us"). */
void gcb__cell_time(struct gcb__tb *b, char **row, size_t col, double s);

/* A fraction as a percentage ("+3.2%" with sign); "-" for NAN. */
void gcb__cell_pct(struct gcb__tb *b, char **row, size_t col, double frac,
                   bool sign);

/* Tables of ranks and cases (render_tables_cases.c). */
void gcb__ranks_table(struct gcb__tb *b);
void gcb__cases_table(struct gcb__tb *b);
void gcb__imbalance_table(struct gcb__tb *b);
void gcb__coll_table(struct gcb__tb *b);

#endif
