/*
 * Burn-in timelines: one plot per `gcbench burn` case, panels stacked on
 * one shared time axis -- throughput, then the clock (the GPU's SM clock,
 * else the CPU's), temperature, power and CPU time, those the document
 * measured, four at most. Every panel draws the median over ranks as a
 * grey line, each rank as a thin light line when there are 16 or fewer,
 * and the outliers in colour, named: a rank whose throughput falls and
 * stays down (with a dashed line at its onset), or sustains well below
 * its peers or below the peak it held (the report's burn-in rules, as
 * reports/analysis/burn.h judged each rank).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/burn.h"
#include "reports/analysis/diagnose.h"
#include "reports/document/model.h"
#include "reports/document/stats.h"
#include "reports/plot/plot_int.h"

#define PANELS 4
#define THIN_RANKS 16
#define MAX_OUTLIERS 8

static const char *const colours[MAX_OUTLIERS] = {
    "#e15759", "#f28e2b", "#4e79a7", "#76b7b2",
    "#59a14f", "#edc948", "#b07aa1", "#ff9da7"};

/* A panel: its series and the y axis label. */
struct panel {
  enum gcb_burn_series s;
  const char *label;
};

/* The panels the timeline has, in order, at most PANELS; the first is
 * always the throughput. */
static size_t panels_of(const struct gcb_burn_timeline *tl, const char *unit,
                        struct panel *out) {
  static const struct panel candidates[] = {
      {GCB_BURN_SM_CLOCK_MHZ, "SM clock (MHz)"},
      {GCB_BURN_CPU_MHZ, "CPU clock (MHz)"},
      {GCB_BURN_TEMP_C, "temperature (C)"},
      {GCB_BURN_POWER_W, "power (W)"},
      {GCB_BURN_CPU_UTIL, "CPU time got / asked"},
  };
  size_t n = 0;
  out[n++] = (struct panel){GCB_BURN_FIGURE, unit};
  bool clock = false;
  for (size_t k = 0; k < sizeof candidates / sizeof *candidates && n < PANELS;
       k++) {
    enum gcb_burn_series s = candidates[k].s;
    bool is_clock = s == GCB_BURN_SM_CLOCK_MHZ || s == GCB_BURN_CPU_MHZ;
    if (tl->v[s] == NULL || (is_clock && clock))
      continue;
    clock |= is_clock;
    out[n++] = candidates[k];
  }
  return n;
}

/* The outlier ranks (indices), the first MAX_OUTLIERS of them in out: a
 * fall first, then burn-sustained's ranks (slow, or not holding their
 * peak). Returns how many there are. */
static size_t outliers(const struct gcb_burn_rank *r, size_t n, size_t *out) {
  size_t k = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++)
      if (pass == 0 ? r[i].onset >= 0
                    : (r[i].slow || r[i].unheld) && r[i].onset < 0) {
        if (k < MAX_OUTLIERS)
          out[k] = i;
        k++;
      }
  return k;
}

/* " v" as gnuplot reads it, "NaN" for a gap, into at; the end. */
static char *cell(char *at, double v) {
  *at++ = ' ';
  if (!isnan(v))
    return gcb__plot_num(at, v);
  memcpy(at, "NaN", 3);
  return at + 3;
}

/* The data block of one series: time, the median over ranks, then every
 * rank (NaN where not measured). */
static void data_block(struct gcb__plotter *p, size_t id, size_t panel,
                       const struct gcb_burn_timeline *tl,
                       enum gcb_burn_series s, double xscale, double yscale,
                       double *tmp) {
  fprintf(p->f, "$burn%zu_%zu << EOD\n", id, panel);
  for (long i = 0; i < tl->n; i++) {
    char line[80], *at = gcb__plot_num(line, gcb_burn_end_s(tl, i) / xscale);
    size_t k = 0;
    for (int r = 0; r < tl->nranks; r++) {
      double v = gcb_burn_value(tl, (int)s, r, i) * yscale;
      if (!isnan(v))
        tmp[k++] = v;
    }
    at = cell(at, k ? gcb_stats_median(tmp, k) : NAN);
    fwrite(line, 1, (size_t)(at - line), p->f);
    for (int r = 0; r < tl->nranks; r++) {
      at = cell(line, gcb_burn_value(tl, (int)s, r, i) * yscale);
      fwrite(line, 1, (size_t)(at - line), p->f);
    }
    fputc('\n', p->f);
  }
  fprintf(p->f, "EOD\n");
}

static void panel_plot(struct gcb__plotter *p, size_t id, size_t panel,
                       const struct gcb_burn_timeline *tl,
                       const struct gcb_model *m, const struct gcb_burn_rank *r,
                       const size_t *out, size_t nout, bool legend) {
  fprintf(p->f, "plot ");
  if (tl->nranks <= THIN_RANKS)
    fprintf(p->f,
            "for [c=3:%zu] $burn%zu_%zu using 1:c with lines lw 0.6 lc rgb "
            "'#d0d0d0' notitle, ",
            (size_t)tl->nranks + 2, id, panel);
  fprintf(p->f, "$burn%zu_%zu using 1:2 with lines lw 2 lc rgb '#7f7f7f' %s",
          id, panel, legend ? "title 'median of ranks'" : "notitle");
  for (size_t k = 0; k < nout; k++) {
    struct gcb_place pl;
    char raw[160], label[160];
    long long rank = r[out[k]].rank;
    gcb_model_place(m, rank, &pl);
    if (pl.gpu >= 0)
      snprintf(raw, sizeof raw, "rank %lld (GPU %lld %s)", rank, pl.gpu,
               pl.hostname);
    else
      snprintf(raw, sizeof raw, "rank %lld (%s)", rank, pl.hostname);
    gcb__plot_label(raw, label, sizeof label);
    fprintf(p->f, ", $burn%zu_%zu using 1:%zu with lines lw 1.8 lc rgb '%s' ",
            id, panel, out[k] + 3, colours[k]);
    if (legend)
      fprintf(p->f, "title '%s'", label);
    else
      fprintf(p->f, "notitle");
  }
  fputc('\n', p->f);
}

static void timeline_plot(struct gcb__plotter *p, const struct gcb_model *m,
                          const struct gcb_model_case *c,
                          const struct gcb_burn_timeline *tl,
                          const struct gcb_burn_rank *r) {
  struct panel panels[PANELS];
  size_t np = panels_of(tl, c->unit, panels);
  size_t out[MAX_OUTLIERS];
  size_t nranks = (size_t)tl->nranks;
  size_t all = outliers(r, nranks, out);
  size_t nout = all < MAX_OUTLIERS ? all : MAX_OUTLIERS;
  double *tmp = malloc((nranks + 1) * sizeof *tmp);
  p->oom |= tmp == NULL;
  if (p->oom)
    goto done;
  char title[224], label[160], note[64] = "";
  gcb_model_case_title(c, label, sizeof label);
  const char *what = strncmp(label, "burn: ", 6) == 0 ? label + 6 : label;
  if (all > nout)
    snprintf(note, sizeof note, " (%zu more outlier ranks not shown)",
             all - nout);
  /* `what` gives way to the note within a plot's title */
  int room = (int)(sizeof p->out->items->title - 1 - strlen(note) -
                   strlen("burn-in : each rank over time"));
  snprintf(title, sizeof title, "burn-in %.*s: each rank over time%s",
           note[0] ? room : (int)sizeof label, what, note);
  size_t id = gcb__plot_begin(p, "burn", title);
  if (id == 0)
    goto done;
  double span = gcb_burn_end_s(tl, tl->n - 1);
  double xscale = span >= 600 ? 60 : 1; /* ten minutes and more: in minutes */
  /* The throughput in the unit that suits it (TFLOP/s, not 500000
   * GFLOP/s), as the tables show it. */
  const char *shown;
  double yscale = gcb_unit_scale(r[0].sustained, c->unit, &shown);
  panels[0].label = shown;
  for (size_t k = 0; k < np; k++)
    data_block(p, id, k, tl, panels[k].s, xscale, k == 0 ? yscale : 1, tmp);
  gcb__plot_size(p, 720, 180 * (int)np + 60);
  fprintf(p->f, "set multiplot layout %zu,1 title '%s'\nunset title\n", np,
          p->out->items[id - 1].title);
  /* Fixed margins: every panel's plot area starts at the same x, so the
   * time axis is one axis down the page. */
  fprintf(p->f, "set xrange [0:%.10g]\nset lmargin 12\nset rmargin 3\n",
          span / xscale);
  for (size_t k = 0; k < nout; k++)
    if (r[out[k]].onset >= 0)
      fprintf(p->f,
              "set arrow from %.10g, graph 0 to %.10g, graph 1 nohead dt 2 "
              "lc rgb '%s'\n",
              r[out[k]].onset_s / xscale, r[out[k]].onset_s / xscale,
              colours[k]);
  for (size_t k = 0; k < np; k++) {
    char yl[64];
    gcb__plot_label(panels[k].label, yl, sizeof yl);
    fprintf(p->f, "set ylabel '%s'\n", yl);
    if (k + 1 == np)
      fprintf(p->f, "set xlabel '%s since the start'\n",
              xscale > 1 ? "minutes" : "seconds");
    panel_plot(p, id, k, tl, m, r, out, nout, k == 0);
    if (k == 0)
      fprintf(p->f, "unset key\n");
  }
  fprintf(p->f, "unset multiplot\n");
  gcb__plot_size(p, 0, 0);
done:
  free(tmp);
}

void gcb__plot_burn(struct gcb__plotter *p, const struct gcb_doc *docs,
                    size_t ndocs) {
  for (size_t d = 0; d < ndocs && !p->oom; d++) {
    struct gcb_burn_doc own;
    struct gcb_err err = {0};
    const struct gcb_burn_doc *bd = gcb_burn_doc_of(&docs[d], p->t, &own, &err);
    p->oom = bd == NULL;
    const struct gcb_model *m = docs[d].model;
    for (size_t i = 0; bd != NULL && i < bd->n && !p->oom; i++)
      timeline_plot(p, m, &m->cases[bd->cases[i].index], &bd->cases[i].tl,
                    bd->cases[i].ranks);
    gcb_burn_doc_free(&own);
  }
}
