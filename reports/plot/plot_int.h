/*
 * Internal to the plots: the state one gnuplot script is written with,
 * and the plot kinds that live in their own files (plot_bars.c,
 * plot_coll.c, plot_p2p.c, plot_pattern.c, plot_burn.c), each a row of
 * plot.c's table of kinds (as lstopo has a file per output behind one
 * draw interface). Each kind reads the documents' typed models
 * (doc->model). Every label taken from input goes through gcb__plot_label
 * before it reaches the script.
 */
#ifndef GCB_PLOT_INT_H
#define GCB_PLOT_INT_H

#include "reports/plot/plot.h"

struct gcb__plotter {
  FILE *f;
  const struct gcb_thresholds *t;
  bool png;
  struct gcb_plots *out;
  size_t cap;
  size_t left; /* plots past GCB_PLOT_MAX, not drawn */
  bool oom;    /* sticky: every step after a failure is a no-op */
};

/* Copies in to out keeping only letters, digits and " .,:;=+-_/()[]%#*"
 * (anything else becomes '?', one per character): safe in a single-quoted
 * gnuplot string and in SVG text. */
void gcb__plot_label(const char *in, char *out, size_t size);

/* Registers the next plot (file plot-N-suffix.svg or .png) and starts its
 * section of the script with the common settings (`reset` first); returns
 * N, or 0 when memory ran out or GCB_PLOT_MAX plots are planned already
 * (the caller then writes nothing of it). A section must draw the same plot
 * after any other one, or after the script's first lines alone (it leaves the
 * terminal's size as it found it): plot_run.c may hand the sections of a
 * large script to several gnuplots. */
size_t gcb__plot_begin(struct gcb__plotter *p, const char *suffix,
                       const char *title);

/* Data lines without printf (a line per rank: 16,384 of them per plot):
 * x as "%.10g" and v as "%lld" written at `at`, which has room
 * (GCB_FMTNUM_MAX); each returns the end, not NUL-terminated. */
char *gcb__plot_num(char *at, double x);
char *gcb__plot_int(char *at, long long v);

/* The most rows a per-rank plot draws: a plot 720 pixels wide shows no
 * more, and gnuplot's time grows with the rows (at 16,384 ranks it was a
 * third of a report's CPU time). */
#define GCB__PLOT_ROWS 1024

/* Ranks per row of a per-rank plot of n ranks: 1 up to GCB__PLOT_ROWS,
 * else the fewest consecutive ranks per row that keep the rows within
 * it; each row then draws what its ranks drawn one by one would show
 * (plot_bars.c, plot_coll.c). */
size_t gcb__plot_group(size_t n);

/* Sets the terminal's size for the plots that follow (width, height in
 * SVG pixels; 0, 0: the default, 720 x 360, which every plot but a
 * taller one that restores it afterwards uses). */
void gcb__plot_size(struct gcb__plotter *p, int width, int height);

/* The plot kinds: each writes zero or more plots for the documents. */
void gcb__plot_rank_bars(struct gcb__plotter *p, const struct gcb_doc *docs,
                         size_t ndocs);
void gcb__plot_bandwidth(struct gcb__plotter *p, const struct gcb_doc *docs,
                         size_t ndocs);
void gcb__plot_rank_times(struct gcb__plotter *p, const struct gcb_doc *docs,
                          size_t ndocs);
void gcb__plot_p2p(struct gcb__plotter *p, const struct gcb_doc *docs,
                   size_t ndocs);
/* Training patterns (plot_pattern.c): the step per rank, stacked. */
void gcb__plot_patterns(struct gcb__plotter *p, const struct gcb_doc *docs,
                        size_t ndocs);

/* Burn-in (plot_burn.c): each rank's throughput and telemetry over time,
 * panels on one time axis, outliers named. */
void gcb__plot_burn(struct gcb__plotter *p, const struct gcb_doc *docs,
                    size_t ndocs);

#endif
