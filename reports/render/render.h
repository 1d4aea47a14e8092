/*
 * Renderers: one file per output format (report.md, index.html,
 * results.csv, junit.xml, findings.json), each one function over the same
 * struct gcb_report, listed in a NULL-terminated table as lstopo lists its
 * output formats. Markdown and HTML format the same table model
 * (gcb_report_tables), so both show the same numbers.
 *
 * Everything taken from input files is escaped for the output format by
 * the escapers below; renderers never print input text any other way.
 * Output goes to a FILE *; a renderer checks ferror once at the end.
 */
#ifndef GCB_RENDER_H
#define GCB_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "reports/analysis/analyze.h"
#include "reports/analysis/diagnose.h"
#include "reports/compare/compare.h"
#include "reports/criteria/criteria.h"

/* One plot the report shows: a file in the output directory and, for the
 * HTML report, its SVG text to inline. */
struct gcb_plot {
  char file[64]; /* relative to the report directory */
  char title[160];
  char *svg;        /* owned; NULL when not SVG or not read back */
  size_t script_at; /* internal: where its section of the script starts */
};

struct gcb_plots {
  struct gcb_plot *items;
  size_t n;
  char note[256]; /* why there are no plots ("gnuplot not found ..."); "" */
};

/* Everything a renderer sees. Pointers are borrowed; optional parts are
 * NULL when the report was run without them. */
struct gcb_report {
  const struct gcb_doc *docs;
  size_t ndocs;
  const struct gcb_findings *findings;     /* sorted, fail first */
  const struct gcb_criteria *criteria;     /* NULL: no --criteria */
  const struct gcb_check_result *checks;   /* criteria->nchecks entries */
  const struct gcb_comparison *comparison; /* NULL: no --baseline */
  const char *baseline;                    /* baseline file name, or NULL */
  const struct gcb_plots *plots;           /* NULL: plots not attempted */
  const struct gcb_thresholds *thresholds;
  const struct gcb_rtables *tables;      /* built once by the caller, or NULL:
                                            each renderer builds its own */
  const struct gcb_diagnosis *diagnosis; /* the root causes, built once by
                                            the caller, or NULL: built on
                                            use */
  const struct gcb_matrix *matrix;       /* the component matrix of the
                                            diagnosis, likewise (the verdict
                                            tables, both topology pictures
                                            and junit.xml draw it) */
  /* Without --criteria: the built-in expectations used, or why none
   * applies (reports/criteria/expect.h); NULL: not said. */
  const char *expectations;
};

struct gcb_renderer {
  const char *name; /* "markdown" */
  const char *file; /* default output file name, "report.md" */
  /* Writes the whole output; GCB_EIO when a write fails, GCB_ENOMEM. */
  enum gcb_status (*render)(FILE *out, const struct gcb_report *rep,
                            struct gcb_err *err);
  /* Whether a report writes this file at all (netmap.svg only for results
   * with a network map); NULL: always. */
  bool (*applies)(const struct gcb_report *rep);
  /* Only a file of a report's directory (the pictures index.html embeds),
   * not a format of its own for `report --format`. */
  bool directory_only;
};

extern const struct gcb_renderer gcb_render_md, gcb_render_html, gcb_render_csv,
    gcb_render_junit, gcb_render_findings, gcb_render_openmetrics,
    gcb_render_drain, gcb_render_cordon;

/* The renderer named `name` ("markdown", "openmetrics"), or NULL. */
const struct gcb_renderer *gcb_renderer_find(const char *name);

/* Whether the report writes r's file: r->applies, or always. */
bool gcb_renderer_applies(const struct gcb_renderer *r,
                          const struct gcb_report *rep);

/* Every renderer, NULL-terminated. */
extern const struct gcb_renderer *const gcb_renderers[];
/* How many there are (the length of gcb_renderers without its NULL). */
#define GCB_RENDERERS_MAX 16

/* ---- escaping ----------------------------------------------------------- */

/* XML/HTML text and attribute values: & < > " ' as entities; control
 * characters other than tab and newline, U+FFFE and U+FFFF (invalid in
 * XML 1.0) as '?'; bytes that are not UTF-8 as U+FFFD. */
void gcb_escape_xml(FILE *out, const char *s);

/* One CSV field (RFC 4180): quoted when it holds , " CR or LF, with quotes
 * doubled; a text field starting with = + - @ (a spreadsheet formula),
 * also after leading blanks (space, TAB, CR, LF, U+3000) or in fullwidth
 * form (＝ ＋ － ＠), or starting with TAB or CR, gets a leading ' so that
 * opening the file runs nothing; bytes that are not
 * UTF-8 become U+FFFD. */
void gcb_escape_csv(FILE *out, const char *s);

/* A Markdown table cell: | and Markdown punctuation backslash-escaped,
 * < > & as entities (Markdown passes raw HTML through), newlines as
 * spaces, bytes that are not UTF-8 as U+FFFD. */
void gcb_escape_md(FILE *out, const char *s);

/* Internal: before as it is, s escaped as gcb_escape_xml (gcb_escape_md)
 * writes it, then after: input text between two pieces of markup. */
void gcb__xml(FILE *out, const char *before, const char *s, const char *after);
void gcb__md(FILE *out, const char *before, const char *s, const char *after);

/* ---- shared content ----------------------------------------------------- */

/* True when the report fails: a failing root cause (rep->diagnosis, or
 * one diagnosed here; any failure-level finding if memory runs out). */
bool gcb_report_failed(const struct gcb_report *rep);

/* The one-line verdict: "FAIL  gpu0000 (8 x NVIDIA H200): 5 fail, 1 warn,
 * 1 cleared" (the root causes' counts). */
void gcb_report_verdict(const struct gcb_report *rep, char *buf, size_t size);

/* The report's diagnosis: rep->diagnosis when the caller made it, else
 * diagnosed into *own (zeroed by the caller, freed with
 * gcb_diagnosis_free after use, also after failure). GCB_ENOMEM. */
enum gcb_status gcb_report_diagnosis_use(const struct gcb_report *rep,
                                         struct gcb_diagnosis *own,
                                         const struct gcb_diagnosis **out,
                                         struct gcb_err *err);

/* "rank 2, node 0 (host), GPU 1 0000:1b:00.0"; the run number is added
 * when the report covers several documents. GCB_REPORT_WHERE bytes hold
 * any (the location's texts whole, with their labels and numbers). */
#define GCB_REPORT_WHERE 640
void gcb_report_where(const struct gcb_report *rep, const struct gcb_finding *f,
                      char *buf, size_t size);

/* A table: a header row and rows of text cells, for Markdown and HTML. */
struct gcb_rtable {
  const char *id;    /* anchor ("findings") */
  const char *title; /* section heading */
  const char *intro; /* one line under the heading, or NULL */
  size_t ncols, nrows;
  char **cells;           /* (nrows + 1) * ncols, header first; owned */
  const char **row_class; /* per row: "fail", "warn", "info", "ok" or NULL;
                             " off-trend" after it marks a sweep row the
                             analysis found off its trend (bold in
                             Markdown, a class in HTML) */
  bool *numeric;          /* per column: it holds numbers (right-aligned) */
  bool state_cells;       /* cells open with a state word ("fail 12 GB/s"): HTML
                             colours each cell by it */
  size_t cap_rows;        /* internal: rows allocated, header included */
  char *owned;            /* internal: id, title and numeric, copied or made
                             by the table builder */
};

struct gcb_rtables {
  struct gcb_rtable *items;
  size_t n, cap;
};

/* Builds the report's tables in display order, skipping tables with no
 * rows. GCB_ENOMEM; free with gcb_rtables_free (also after failure). */
enum gcb_status gcb_report_tables(const struct gcb_report *rep,
                                  struct gcb_rtables *out, struct gcb_err *err);

/* Only the tables of the comparison ("comparison", "notes"), as
 * gcb_report_tables builds them: what `gcbench compare` prints, without
 * the per-GPU and per-rank tables (a fifth of its time at 16,384 ranks). */
enum gcb_status gcb_report_comparison_tables(const struct gcb_report *rep,
                                             struct gcb_rtables *out,
                                             struct gcb_err *err);

/* NULL is a no-op; the struct is zeroed. */
void gcb_rtables_free(struct gcb_rtables *t);

/* The report's tables: rep->tables when the caller built them, else built
 * into *own (zeroed by the caller, freed with gcb_rtables_free after use,
 * also after failure). GCB_ENOMEM. */
enum gcb_status gcb_report_tables_use(const struct gcb_report *rep,
                                      struct gcb_rtables *own,
                                      const struct gcb_rtables **out,
                                      struct gcb_err *err);

/* ---- the verdict: root causes and the component matrix -----------------
 * The model every picture of the verdict draws from (tables here; the
 * topology picture colours its GPUs and edges from the same cells). */

#define GCB_MATRIX_COLS 8 /* GCB_FAM_GEMM .. GCB_FAM_COLL */

enum gcb_cell {
  GCB_CELL_NONE,    /* not measured */
  GCB_CELL_PASS,    /* measured, no root cause */
  GCB_CELL_CLEARED, /* a root cause explained away */
  GCB_CELL_INFO,
  GCB_CELL_WARN,
  GCB_CELL_FAIL,
};

/* "-", "pass", "ok", "info", "warn", "fail". */
const char *gcb_cell_name(enum gcb_cell c);

/* The cell of a severity (info, warn, fail), and of a root cause: ok
 * when cleared, else its severity's. */
enum gcb_cell gcb_severity_cell(enum gcb_severity s);
enum gcb_cell gcb_root_cause_cell(const struct gcb_root_cause *rc);

struct gcb_matrix_cell {
  enum gcb_cell state;
  char figure[64]; /* "747 TFLOP/s (bf16)", "gen5 x16", "CPUs 0-7"; "" */
  double time_s;   /* time the measurements took (iterations x time) */
  const struct gcb_root_cause *rc; /* the worst root cause here; NULL */
};

/* One GPU of one machine of the diagnosis. */
struct gcb_matrix_row {
  long long node; /* machine index */
  long long gpu;  /* index on the machine (bus id order) */
  char bus_id[32];
  struct gcb_matrix_cell cell[GCB_MATRIX_COLS];
};

struct gcb_matrix {
  struct gcb_matrix_row *rows;
  size_t n;
};

/* Builds the matrix of every GPU of every machine in d. GCB_ENOMEM; free
 * with gcb_matrix_free (also after failure). */
enum gcb_status gcb_matrix_build(const struct gcb_report *rep,
                                 const struct gcb_diagnosis *d,
                                 struct gcb_matrix *out, struct gcb_err *err);

/* NULL is a no-op; the struct is zeroed. */
void gcb_matrix_free(struct gcb_matrix *m);

/* The matrix of d: rep->matrix when the caller built it (of the same
 * diagnosis), else built into *own (zeroed by the caller, freed with
 * gcb_matrix_free after use, also after failure). GCB_ENOMEM. */
enum gcb_status gcb_matrix_use(const struct gcb_report *rep,
                               const struct gcb_diagnosis *d,
                               struct gcb_matrix *own,
                               const struct gcb_matrix **out,
                               struct gcb_err *err);

/* Internal: the strings up to a NULL one, joined into buf as snprintf's
 * "%s%s..." would (cut at size - 1 bytes), without printf's slow path:
 * names and figures built per GPU and check family, 131,072 of them at
 * 16,384 ranks. */
void gcb__join(char *buf, size_t size, ...);

/* Internal: the end of every renderer: GCB_EIO if the stream failed. */
enum gcb_status gcb__render_done(FILE *out, const char *what,
                                 struct gcb_err *err);

#endif
