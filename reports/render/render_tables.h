/*
 * Internal to the table model: the builder the table functions share.
 * Memory failures are sticky (oom); every builder call after one is a
 * no-op, and gcb_report_tables reports it once.
 */
#ifndef GCB_RENDER_TABLES_H
#define GCB_RENDER_TABLES_H

#include "reports/render/render.h"

struct gcb__tb {
  const struct gcb_report *rep;
  struct gcb_rtables *out;
  bool oom;
};

/* A new table with the NULL-terminated headers; NULL after a failure. */
struct gcb_rtable *gcb__table_new(struct gcb__tb *b, const char *id,
                                  const char *title, const char *intro,
                                  const char *const *headers);

/* The same with an id and title made at run time (copied: "coll-3",
 * "allreduce float sum (host)"); NULL after a failure. */
struct gcb_rtable *gcb__table_new_named(struct gcb__tb *b, const char *id,
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

/* A figure in its unit scaled to its size ("453.3 TFLOP/s"); against a
 * limit (not NAN), with the digits that show which side of it x is. */
void gcb__cell_figure(struct gcb__tb *b, char **row, size_t col, double x,
                      double limit, const char *unit);

/* A time in seconds with an adapted unit ("262.7 us"). */
void gcb__cell_time(struct gcb__tb *b, char **row, size_t col, double s);

/* A fraction as a percentage ("+3.2%" with sign); "-" for NAN. */
void gcb__cell_pct(struct gcb__tb *b, char **row, size_t col, double frac,
                   bool sign);

/* 1 when the report covers several documents (tables then start with a
 * "run" column), else 0: the offset of the first data column. Tables pass
 * their headers from h + 1 - gcb__run_col(b) to drop the "run" header. */
size_t gcb__run_col(const struct gcb__tb *b);

/* The run number (d + 1) in column 0 when there is a run column. */
void gcb__cell_run(struct gcb__tb *b, char **row, size_t d);

/* "-" for an unknown (negative) index, else the number. */
void gcb__cell_id(struct gcb__tb *b, char **row, size_t col, long long v);

/* Where strtod(s, &end) would set end (in the C locale), for s starting
 * with a sign or a digit. */
const char *gcb__number_end(const char *s);

/* The figure (median) of `rank` in a case's per-rank columns (looked up
 * once per case with gcb_ranks_of, not once per row); NAN when the case
 * has none. */
struct gcb_ranks;
double gcb__ranks_figure(const struct gcb_ranks *pr, long long rank);

/* The findings of one document counted by rank, or by node and GPU, so
 * that tables of thousands of rows look them up in O(log n) rather than
 * scanning every finding for every row. */
struct gcb__tally {
  long long a, b; /* (rank, 0) or (node, gpu) */
  size_t n;
  int worst; /* highest severity */
};

struct gcb__tallies {
  struct gcb__tally *items;
  size_t n;
};

/* Counts the findings of document `doc` that name a rank (by_gpu false)
 * or a node and GPU (by_gpu true). Sets b->oom on failure. */
void gcb__tallies_build(struct gcb__tb *b, size_t doc, bool by_gpu,
                        struct gcb__tallies *out);

/* How many findings carry the key, and the worst one's row class ("fail",
 * "warn" or NULL). */
size_t gcb__tallies_get(const struct gcb__tallies *t, long long a, long long b,
                        const char **cls);

void gcb__tallies_free(struct gcb__tallies *t);

/* Tables of ranks and cases (render_tables_cases.c), GPUs
 * (render_tables_gpu.c) and collective sweeps (render_tables_coll.c). */
void gcb__ranks_table(struct gcb__tb *b);
void gcb__gpus_table(struct gcb__tb *b);
void gcb__cases_table(struct gcb__tb *b);
void gcb__imbalance_table(struct gcb__tb *b);
void gcb__coll_tables(struct gcb__tb *b);
/* Training patterns (render_tables_pattern.c): a summary and a table of
 * the step per rank for each pattern variant. */
void gcb__pattern_tables(struct gcb__tb *b);

/* Burn-in (render_tables_burn.c): a table per burn case, a row per rank:
 * sustained vs peak and peers, the onset and cause of a fall, errors. */
void gcb__burn_tables(struct gcb__tb *b);

/* The network map's matrices and per-node table (render_tables_netmap.c). */
void gcb__netmap_tables(struct gcb__tb *b);

/* The id of the section a network map's heatmap goes in (its bandwidth
 * matrix, or its per-node table when the matrix is too big to be a
 * table); false when it has neither. */
struct gcb_netmap;
bool gcb__netmap_home(const struct gcb_netmap *m, size_t doc,
                      const char *schedule, char *id, size_t size);

/* The verdict's tables (render_verdict.c): root causes, the component
 * matrix, nodes and links; the first the reports show. */
void gcb__verdict_tables(struct gcb__tb *b);

#endif
