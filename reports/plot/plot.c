/*
 * The gnuplot script: one row per plot kind in `kinds` below, each writing
 * its plots into one script (one gnuplot process draws them all). Data is
 * inlined as datablocks, so the script is self-contained and a user can
 * rerun or edit it (`gnuplot plots.gp` in the report directory). The kinds
 * live in plot_bars.c, plot_coll.c, plot_p2p.c, plot_pattern.c and
 * plot_burn.c (plot_int.h); running gnuplot is in plot_run.c.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "reports/document/fmtnum.h"
#include "reports/plot/plot_int.h"

/* Safe for a single-quoted gnuplot string and for SVG text: no quotes,
 * backquotes (command substitution), '@' (macros), '\\', '<', '&'. */
void gcb__plot_label(const char *in, char *out, size_t size) {
  static const char ok[] = " .,:;=+-_/()[]%#*";
  size_t n = 0;
  for (; *in && n + 1 < size; in++) {
    unsigned char c = (unsigned char)*in;
    bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                 (c >= 'A' && c <= 'Z');
    if (c >= 0x80 && ((unsigned char)in[1] & 0xC0) == 0x80)
      continue; /* one '?' per multi-byte character, at its last byte */
    out[n++] = alnum || (c != 0 && strchr(ok, c)) ? (char)c : '?';
  }
  out[n] = '\0';
}

char *gcb__plot_num(char *at, double x) {
  return at + gcb_fmtnum_g(at, x, 10);
}

char *gcb__plot_int(char *at, long long v) {
  return at + gcb_fmtnum_ll(at, v);
}

size_t gcb__plot_begin(struct gcb__plotter *p, const char *suffix,
                       const char *title) {
  if (!p->oom && p->out->n >= GCB_PLOT_MAX) {
    p->left++;
    return 0;
  }
  if (p->oom || !gcb_grow((void **)&p->out->items, &p->cap, p->out->n,
                          sizeof *p->out->items)) {
    p->oom = true;
    return 0;
  }
  size_t id = ++p->out->n;
  struct gcb_plot *pl = &p->out->items[id - 1];
  memset(pl, 0, sizeof *pl);
  long at = ftell(p->f); /* each section stands alone (plot_run.c) */
  pl->script_at = at > 0 ? (size_t)at : 0;
  snprintf(pl->file, sizeof pl->file, "plot-%zu-%s.%s", id, suffix,
           p->png ? "png" : "svg");
  gcb__plot_label(title, pl->title, sizeof pl->title);
  fprintf(p->f, "\nreset\nset output '%s'\nset title '%s'\n", pl->file,
          pl->title);
  fprintf(p->f, "set style fill solid 0.85 noborder\nset grid ytics lc rgb "
                "'#dddddd'\nset key below horizontal\n");
  return id;
}

size_t gcb__plot_group(size_t n) {
  return n <= GCB__PLOT_ROWS ? 1 : (n + GCB__PLOT_ROWS - 1) / GCB__PLOT_ROWS;
}

void gcb__plot_size(struct gcb__plotter *p, int width, int height) {
  if (p->png)
    fprintf(p->f,
            "set terminal pngcairo size %d,%d noenhanced font "
            "'sans,10' background '#ffffff'\n",
            width > 0 ? width * 10 / 9 : 800,
            height > 0 ? height * 10 / 9 : 400);
  else
    fprintf(p->f,
            "set terminal svg size %d,%d dynamic noenhanced font "
            "'sans,11' background '#ffffff'\n",
            width > 0 ? width : 720, height > 0 ? height : 360);
}

/* ---- the script --------------------------------------------------------- */

/* The plot kinds, in the order of their plots. */
static void (*const kinds[])(struct gcb__plotter *p, const struct gcb_doc *docs,
                             size_t ndocs) = {
    gcb__plot_rank_bars,  /* per-GPU bars */
    gcb__plot_bandwidth,  /* bandwidth vs message size */
    gcb__plot_rank_times, /* per-rank time of a collective */
    gcb__plot_p2p,        /* P2P heatmaps */
    gcb__plot_patterns,   /* training-pattern breakdown */
    gcb__plot_burn,       /* burn-in timeline */
};

enum gcb_status gcb_plot_script(FILE *script, const struct gcb_doc *docs,
                                size_t ndocs, const struct gcb_thresholds *t,
                                bool png, struct gcb_plots *out,
                                struct gcb_err *err) {
  struct gcb__plotter p = {.f = script, .t = t, .png = png, .out = out};
  fprintf(script,
          "# gcbench plots; to redraw them, run in the report "
          "directory: gnuplot %s\n",
          GCB_PLOT_SCRIPT);
  gcb__plot_size(&p, 0, 0);
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds && !p.oom; k++)
    kinds[k](&p, docs, ndocs);
  if (p.oom)
    return gcb_err_set(err, GCB_ENOMEM, "plots: out of memory");
  if (p.left > 0)
    snprintf(out->note, sizeof out->note,
             "%zu plot(s) past the first %d not drawn: their figures are in "
             "the tables and results.csv",
             p.left, GCB_PLOT_MAX);
  return GCB_OK;
}

void gcb_plots_free(struct gcb_plots *p) {
  if (p == NULL)
    return;
  for (size_t i = 0; i < p->n; i++)
    free(p->items[i].svg);
  free(p->items);
  memset(p, 0, sizeof *p);
}
