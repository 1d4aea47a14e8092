/*
 * Collective plots. Bandwidth against message size, log-log, one plot per
 * sweep (operation, type, reduction, root and transport of one run; files
 * converted from nccl-tests included), algbw and busbw of the out-of-place
 * and the in-place runs as four lines. And the per-rank time distribution
 * at the largest size of each sweep: for every rank its fastest, median,
 * 99th-percentile and slowest iteration, and its mean lateness, which
 * shows a straggler (one tall box) or a late rank (one high dot) at once
 * (past GCB__PLOT_ROWS ranks, for each group of consecutive ranks).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze.h"
#include "reports/document/fmtnum.h"
#include "reports/document/model.h"
#include "reports/plot/plot_int.h"

/* A sweep's name in plot titles: op, type, reduction, root and transport
 * (which sweep a case is in is the model's to say: gcb_model_case.sweep). */
static void sweep_title(const struct gcb_model_case *c, char *buf,
                        size_t size) {
  const char *redop = gcb_model_param_str(c, "redop");
  bool reduces = redop[0] != '\0' && strcmp(redop, "none") != 0;
  char root[32] = "";
  double r = gcb_model_param_num(c, "root");
  if (r >= 0)
    snprintf(root, sizeof root, " root %.0f", r);
  snprintf(buf, size, "%s %s%s%s%s %s", c->op, gcb_model_param_str(c, "type"),
           reduces ? " " : "", reduces ? redop : "", root, c->backend);
}

/* Writes (or with f NULL, counts) the points of one half of a sweep:
 * size, algbw, busbw. Zero bytes (a barrier) has no place on a log axis. */
static size_t bw_points(FILE *f, const struct gcb_model *doc, size_t sweep,
                        bool ip) {
  size_t n = 0;
  for (size_t i = 0; i < doc->ncases; i++) {
    const struct gcb_model_case *c = &doc->cases[i];
    if (c->sweep != sweep || gcb_analyze_case_in_place(c) != ip)
      continue;
    double bytes = gcb_analyze_case_size(c), alg = c->summary.algbw;
    double bus = c->summary.busbw;
    if (isnan(alg))
      alg = c->summary.median;
    if (!(bytes > 0) || !(alg > 0))
      continue;
    n++;
    if (f != NULL)
      fprintf(f, "%.17g %.10g %.10g\n", bytes, alg, bus > 0 ? bus : NAN);
  }
  return n;
}

/* Calls plot(p, doc, i) for case i, the first of its collective sweep,
 * of each sweep of each document. */
static void each_sweep(struct gcb__plotter *p, const struct gcb_doc *docs,
                       size_t ndocs,
                       void (*plot)(struct gcb__plotter *p,
                                    const struct gcb_model *doc, size_t i)) {
  for (size_t d = 0; d < ndocs && !p->oom; d++) {
    const struct gcb_model *doc = docs[d].model;
    for (size_t i = 0; i < doc->ncases; i++)
      if (doc->cases[i].kind == GCB_BENCH_COLL && doc->cases[i].sweep == i)
        plot(p, doc, i);
  }
}

static void bw_plot(struct gcb__plotter *p, const struct gcb_model *doc,
                    size_t i) {
  size_t n[2] = {bw_points(NULL, doc, i, false), /* out of place */
                 bw_points(NULL, doc, i, true)};
  char title[320], name[256];
  if (n[0] + n[1] == 0)
    return; /* an empty plot is a gnuplot error, and says nothing */
  sweep_title(&doc->cases[i], name, sizeof name);
  snprintf(title, sizeof title, "%s: bandwidth vs message size", name);
  size_t id = gcb__plot_begin(p, "bw", title);
  if (id == 0)
    return;
  fprintf(p->f, "set logscale x 2\nset logscale y\nset format x '%%.0b%%B'"
                "\nset xlabel 'message size (bytes)'\nset ylabel 'GB/s'\n");
  /* Both datablocks first: a plot command cannot define one. */
  for (int ip = 0; ip <= 1; ip++) {
    if (n[ip] == 0)
      continue;
    fprintf(p->f, "$bw%zu%c << EOD\n", id, ip ? 'i' : 'o');
    bw_points(p->f, doc, i, ip);
    fprintf(p->f, "EOD\n");
  }
  const char *sep = "plot";
  for (int ip = 0; ip <= 1; ip++) {
    if (n[ip] == 0)
      continue;
    const char *half = ip ? "in-place" : "out-of-place";
    char c = ip ? 'i' : 'o';
    fprintf(p->f,
            "%s $bw%zu%c using 1:3 with linespoints dt %d lc rgb '#f28e2b' "
            "title 'busbw %s', \\\n  $bw%zu%c using 1:2 with linespoints dt "
            "%d lc rgb '#4e79a7' title 'algbw %s'",
            sep, id, c, ip + 1, half, id, c, ip + 1, half);
    sep = ", \\\n ";
  }
  fputc('\n', p->f);
}

void gcb__plot_bandwidth(struct gcb__plotter *p, const struct gcb_doc *docs,
                         size_t ndocs) {
  each_sweep(p, docs, ndocs, bw_plot);
}

/* ---- per-rank time distribution ----------------------------------------- */

/* The out-of-place case of the sweep with the largest size and per-rank
 * samples, or NULL. */
static const struct gcb_model_case *largest(const struct gcb_model *doc,
                                            size_t sweep) {
  const struct gcb_model_case *best = NULL;
  for (size_t i = 0; i < doc->ncases; i++) {
    const struct gcb_model_case *c = &doc->cases[i];
    if (c->sweep != sweep || gcb_analyze_case_in_place(c) || c->ranks.n < 2)
      continue;
    if (best == NULL || gcb_analyze_case_size(c) > gcb_analyze_case_size(best))
      best = c;
  }
  return best;
}

/* The lower (sign -1) or higher (+1) of a and b, NaN only when both
 * are. */
static double extreme(double a, double b, int sign) {
  return isnan(b) || (!isnan(a) && (a - b) * sign >= 0) ? a : b;
}

/* A row per gcb__plot_group ranks: a group's candlestick spans what its
 * ranks' would (the lowest median to the highest p99, the fastest to the
 * slowest iteration), its dot the latest of them. */
static void times_body(struct gcb__plotter *p, size_t id,
                       const struct gcb_model_case *c) {
  static const struct {
    enum gcb_rank_col col;
    int sign;
  } cols[] = {{GCB_RC_TIME_MIN, -1},
              {GCB_RC_TIME_MEDIAN, -1},
              {GCB_RC_TIME_P99, 1},
              {GCB_RC_TIME_MAX, 1},
              {GCB_RC_LATE_MEAN, 1}};
  size_t n = c->ranks.n, k = gcb__plot_group(n);
  bool late = false;
  fprintf(p->f, "$t%zu << EOD\n", id);
  for (size_t i = 0; i < n; i += k) {
    size_t end = i + k < n ? i + k : n;
    double v[sizeof cols / sizeof *cols];
    for (size_t f = 0; f < sizeof cols / sizeof *cols; f++) {
      v[f] = NAN;
      for (size_t j = i; j < end; j++)
        v[f] = extreme(v[f], gcb_model_col(c, cols[f].col, j), cols[f].sign);
      v[f] *= 1e6;
    }
    late |= !isnan(v[4]);
    double x = ((double)gcb_model_col_rank(c, i, (long long)i) +
                (double)gcb_model_col_rank(c, end - 1, (long long)end - 1)) /
               2;
    char line[8 * GCB_FMTNUM_MAX]; /* "%.10g x6\n", without printf */
    char *at = gcb__plot_num(line, x);
    for (size_t f = 0; f < sizeof v / sizeof *v; f++) {
      *at++ = ' ';
      at = gcb__plot_num(at, v[f]);
    }
    *at++ = '\n';
    fwrite(line, 1, (size_t)(at - line), p->f);
  }
  fprintf(p->f,
          "EOD\nplot $t%zu using 1:3:2:5:4 with candlesticks whiskerbars "
          "lc rgb '#4e79a7' title 'min, median to p99, max', \\\n  $t%zu "
          "using 1:3:3:3:3 with candlesticks lc rgb '#1d2125' notitle",
          id, id);
  if (late)
    fprintf(p->f,
            ", \\\n  $t%zu using 1:6 with points pt 7 lc rgb '#e15759' "
            "title 'mean lateness'",
            id);
  fputc('\n', p->f);
}

/* At the sweep's largest size (the sweep of case i). */
static void times_plot(struct gcb__plotter *p, const struct gcb_model *doc,
                       size_t i) {
  const struct gcb_model_case *c = largest(doc, i);
  if (c == NULL || !(gcb_analyze_case_size(c) > 0))
    return;
  char title[320], size[32], name[256];
  size_t n = c->ranks.n;
  gcb_view_fmt(gcb_analyze_case_size(c), size, sizeof size);
  sweep_title(c, name, sizeof name);
  snprintf(title, sizeof title, "%s at %s B: time per rank", name, size);
  size_t id = gcb__plot_begin(p, "times", title);
  if (id == 0)
    return;
  fprintf(p->f,
          "set style fill empty\nset boxwidth %.10g\nset xlabel 'rank'\n"
          "set ylabel 'microseconds'\nset xrange [-0.5:%zu.5]\n"
          "set yrange [0:*]\nset xtics %zu\n",
          0.6 * (double)gcb__plot_group(n), n - 1, (n + 15) / 16);
  times_body(p, id, c);
}

void gcb__plot_rank_times(struct gcb__plotter *p, const struct gcb_doc *docs,
                          size_t ndocs) {
  each_sweep(p, docs, ndocs, times_plot);
}
