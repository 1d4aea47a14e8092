/*
 * Plots with gnuplot, run as an external program (posix_spawnp, an
 * argument vector, no shell) on a script gcbench writes: per-rank bars
 * with the mean line and outliers coloured (per-device benchmarks), and
 * bandwidth vs message size, log-log, per collective (when the documents
 * hold collective cases). Labels taken from input are reduced to a safe
 * character set before they reach the script, so no input can inject
 * gnuplot commands. When gnuplot is missing or fails, the plots list says
 * so in one line and the report renders its tables all the same.
 */
#ifndef GCB_PLOT_H
#define GCB_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "reports/render/render.h"

/* The most plots one report draws: a document of many thousand cases
 * would otherwise write a file per case (40,000 of them, 1.6 GB, from a
 * 34 MB document). The rest are counted in the plots' note; their figures
 * are in the tables and results.csv. */
#define GCB_PLOT_MAX 1000

/* Script and log file names inside the report directory. */
#define GCB_PLOT_SCRIPT "plots.gp"
#define GCB_PLOT_LOG "gnuplot.log"

/*
 * Writes the gnuplot script for every plot of docs[0..ndocs) to `script`
 * (output file names relative to the directory gnuplot runs in; SVG, or
 * PNG when png) and lists the plots in `out` (svg NULL). Pure: the same
 * documents give the same script. *out must be zeroed; free it with
 * gcb_plots_free, also after failure. Past GCB_PLOT_MAX plots, out->note
 * counts those left out. GCB_ENOMEM.
 */
enum gcb_status gcb_plot_script(FILE *script, const struct gcb_doc *docs,
                                size_t ndocs, const struct gcb_thresholds *t,
                                bool png, struct gcb_plots *out,
                                struct gcb_err *err);

/*
 * The plots, in two halves, so that gnuplot draws while the report writes
 * its other files. start writes dir/plots.gp (for a person to rerun) and
 * runs gnuplot (program: $GCB_GNUPLOT, else "gnuplot") with the script on
 * its standard input in a private directory made inside `dir` (*job: what
 * finish needs; on failure already finished and NULL); finish waits for
 * it, moves the plots it drew into `dir` and reads each SVG back into
 * out->items[i].svg. Nothing in `dir` is followed or run by name. When
 * there is nothing to plot, out is empty. When gnuplot cannot be started
 * or fails, out->note says why (its output is kept in dir/gnuplot.log),
 * out keeps only the plots drawn, and start still succeeds: plots are
 * optional. start fails only for GCB_ENOMEM, GCB_EUSAGE (dir is not a
 * directory) or GCB_EIO (dir/plots.gp cannot be written). finish on a
 * NULL *job is a no-op; it sets *job to NULL.
 */
struct gcb_plot_job;
enum gcb_status gcb_plots_start(const char *dir, const struct gcb_doc *docs,
                                size_t ndocs, const struct gcb_thresholds *t,
                                bool png, struct gcb_plots *out,
                                struct gcb_plot_job **job, struct gcb_err *err);
void gcb_plots_finish(struct gcb_plot_job **job, struct gcb_plots *out);

/* Frees the list; NULL is a no-op; the struct is zeroed. */
void gcb_plots_free(struct gcb_plots *p);

#endif
