/*
 * Per-GPU bars: one bar per rank (each rank owns one GPU, or one socket on
 * the host backend) for the benchmarks whose figure belongs to the rank's
 * own device (GEMM, device memory, and the H2D/D2H copies the link rule
 * judges), the mean as a dashed line, and the slow ranks the analysis
 * names (its robust outlier rule) in red. Up to 16 ranks, each bar is
 * labelled with its rank and GPU bus id; past GCB__PLOT_ROWS ranks a bar
 * stands for a group of consecutive ranks.
 */
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"
#include "reports/document/fmtnum.h"
#include "reports/document/model.h"
#include "reports/plot/plot_int.h"

/* "r3/1b:00" for a rank with a GPU, "r3" without; safe characters. */
static void bar_label(const struct gcb_model *m, long long rank, char *buf,
                      size_t size) {
  struct gcb_place pl;
  char raw[64];
  gcb_model_place(m, rank, &pl);
  const char *bus = pl.bus_id;
  char *at = raw;
  *at++ = 'r'; /* "r%lld/%.5s", without printf: a label per rank */
  at = gcb__plot_int(at, rank);
  if (strlen(bus) >= 12) { /* "0000:1b:00.0" -> "1b:00" */
    *at++ = '/';
    memcpy(at, bus + 5, 5);
    at += 5;
  }
  *at = '\0';
  gcb__plot_label(raw, buf, size);
}

/* A data line of a bar chart: "%.10g %.10g %d %s\n", without printf. */
static void bar_line(FILE *f, double at, double v, bool slow,
                     const char *label) {
  char line[2 * GCB_FMTNUM_MAX + 64], *end = gcb__plot_num(line, at);
  *end++ = ' ';
  end = gcb__plot_num(end, v);
  *end++ = ' ';
  *end++ = slow ? '1' : '0';
  *end++ = ' ';
  size_t k = strlen(label);
  memcpy(end, label, k);
  end[k] = '\n';
  fwrite(line, 1, (size_t)(end + k + 1 - line), f);
}

/* The plot commands of bar chart `id` over x[0..n) (slow[i]: outlier).
 * A row per gcb__plot_group ranks: the tallest of their bars that are
 * not slow, which hides the others as drawing them all would; each slow
 * rank a row of its own, in red on top. */
static void bars_body(struct gcb__plotter *p, size_t id,
                      const struct gcb_model *m, const struct gcb_model_case *c,
                      const double *x, const bool *slow, size_t n) {
  size_t nslow = 0, k = gcb__plot_group(n);
  double sum = 0;
  bool labels = n <= 16;
  char label[48];
  fprintf(p->f, "$ranks%zu << EOD\n", id);
  for (size_t i = 0; i < n; i += k) {
    size_t end = i + k < n ? i + k : n, tallest = end;
    for (size_t j = i; j < end; j++)
      if (!slow[j] && (tallest == end || x[j] > x[tallest]))
        tallest = j;
    long long first = gcb_model_col_rank(c, i, (long long)i),
              last = gcb_model_col_rank(c, end - 1, (long long)end - 1);
    if (k == 1)
      bar_label(m, first, label, sizeof label);
    else
      snprintf(label, sizeof label, "r%lld-%lld", first, last);
    if (tallest < end)
      bar_line(p->f, ((double)first + (double)last) / 2, x[tallest], false,
               label);
    for (size_t j = i; j < end; j++) {
      long long rank = gcb_model_col_rank(c, j, (long long)j);
      if (slow[j]) {
        if (k > 1)
          bar_label(m, rank, label, sizeof label);
        bar_line(p->f, (double)rank, x[j], true, label);
      }
      sum += x[j];
      nslow += slow[j];
    }
  }
  const char *tics = labels ? ":xtic(4)" : "";
  fprintf(p->f,
          "EOD\nplot $ranks%zu using 1:($3 == 0 ? $2 : NaN)%s with boxes "
          "lc rgb '#4e79a7' title 'rank', \\\n",
          id, tics);
  /* A bar narrower than a pixel does not show: grouped, a dot does. */
  if (nslow > 0)
    fprintf(p->f,
            "  $ranks%zu using 1:($3 != 0 ? $2 : NaN)%s with %s lc rgb "
            "'#e15759' title 'outlier (slow rank)', \\\n",
            id, tics, k > 1 ? "points pt 7 ps 0.6" : "boxes");
  char mean[32];
  gcb_view_fmt(sum / (double)n, mean, sizeof mean);
  fprintf(p->f,
          "  %.10g with lines dt 2 lw 2 lc rgb '#333333' title 'mean %s'\n",
          sum / (double)n, mean);
}

/* Per-rank bars of one case, slow ranks (the analysis' rule) in red. */
static void rank_bars(struct gcb__plotter *p, const struct gcb_model *m,
                      const struct gcb_model_case *c) {
  size_t n = c->ranks.n, k = gcb__plot_group(n); /* a bar per k ranks */
  double *x = malloc(n * sizeof *x + 1), median;
  bool *slow = malloc(n * sizeof *slow + 1), any = false;
  p->oom |= x == NULL || slow == NULL;
  for (size_t i = 0; i < n && !p->oom; i++) {
    x[i] = gcb_model_col(c, GCB_RC_FIG_MEDIAN, i);
    any |= x[i] > 0; /* all zero: nothing to draw, and a gnuplot error */
  }
  if (!p->oom && any) {
    gcb_analyze_slow(x, n, p->t, slow, &median);
    char title[160], unit[64];
    gcb_model_case_title(c, title, sizeof title);
    gcb__plot_label(c->unit, unit, sizeof unit);
    size_t id = gcb__plot_begin(p, "ranks", title);
    /* About 16 ticks, whatever the number of ranks. */
    if (id > 0) {
      fprintf(p->f,
              "set boxwidth %.10g\nset xlabel 'rank'\nset ylabel '%s'\n"
              "set xrange [-0.5:%zu.5]\nset yrange [0:*]\nset xtics %zu%s\n",
              k > 1 ? (double)k : 0.8, unit, n - 1, (n + 15) / 16,
              n <= 16 ? " rotate by -30" : "");
      bars_body(p, id, m, c, x, slow, n);
    }
  }
  free(x);
  free(slow);
}

void gcb__plot_rank_bars(struct gcb__plotter *p, const struct gcb_doc *docs,
                         size_t ndocs) {
  for (size_t d = 0; d < ndocs && !p->oom; d++) {
    const struct gcb_model *m = docs[d].model;
    for (size_t i = 0; i < m->ncases; i++) {
      const struct gcb_model_case *c = &m->cases[i];
      bool per_gpu = gcb_bench_kinds[c->kind].per_device ||
                     gcb__case_pcie_direction(m, c) != NULL;
      if (per_gpu && c->ranks.n >= 2)
        rank_bars(p, m, c);
    }
  }
}
