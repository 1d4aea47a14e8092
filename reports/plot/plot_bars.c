/*
 * Per-GPU bars: one bar per rank (each rank owns one GPU, or one socket on
 * the host backend) for the benchmarks whose figure belongs to the rank's
 * own device (GEMM, device memory, and the H2D/D2H copies the link rule
 * judges), the mean as a dashed line, and the slow ranks the analysis
 * names (its robust outlier rule) in red. Up to 16 ranks, each bar is
 * labelled with its rank and GPU bus id.
 */
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"
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

/* The plot commands of bar chart `id` over x[0..n) (slow[i]: outlier). */
static void bars_body(struct gcb__plotter *p, size_t id,
                      const struct gcb_model *m, const struct gcb_model_case *c,
                      const double *x, const bool *slow, size_t n) {
  size_t nslow = 0;
  double sum = 0;
  bool labels = n <= 16;
  fprintf(p->f, "$ranks%zu << EOD\n", id);
  for (size_t i = 0; i < n; i++) {
    long long rank = gcb_model_col_rank(c, i, (long long)i);
    char label[48];
    bar_label(m, rank, label, sizeof label);
    char line[sizeof label + 64], *at = gcb__plot_int(line, rank);
    *at++ = ' '; /* "%lld %.10g %d %s\n" */
    at = gcb__plot_num(at, x[i]);
    *at++ = ' ';
    *at++ = slow[i] ? '1' : '0';
    *at++ = ' ';
    size_t k = strlen(label);
    memcpy(at, label, k);
    at[k] = '\n';
    fwrite(line, 1, (size_t)(at + k + 1 - line), p->f);
    sum += x[i];
    nslow += slow[i];
  }
  const char *tics = labels ? ":xtic(4)" : "";
  fprintf(p->f,
          "EOD\nplot $ranks%zu using 1:($3 == 0 ? $2 : NaN)%s with boxes "
          "lc rgb '#4e79a7' title 'rank', \\\n",
          id, tics);
  if (nslow > 0)
    fprintf(p->f,
            "  $ranks%zu using 1:($3 != 0 ? $2 : NaN)%s with boxes lc rgb "
            "'#e15759' title 'outlier (slow rank)', \\\n",
            id, tics);
  char mean[32];
  gcb_view_fmt(sum / (double)n, mean, sizeof mean);
  fprintf(p->f,
          "  %.10g with lines dt 2 lw 2 lc rgb '#333333' title 'mean %s'\n",
          sum / (double)n, mean);
}

/* Per-rank bars of one case, slow ranks (the analysis' rule) in red. */
static void rank_bars(struct gcb__plotter *p, const struct gcb_model *m,
                      const struct gcb_model_case *c) {
  size_t n = c->ranks.n;
  double *x = malloc(n * sizeof *x + 1), median;
  bool *slow = malloc(n * sizeof *slow + 1), any = false;
  p->oom |= x == NULL || slow == NULL;
  for (size_t i = 0; i < n; i++) {
    if (!p->oom) {
      x[i] = gcb_model_col(c, GCB_RC_FIG_MEDIAN, i);
      any |= x[i] > 0; /* all zero: nothing to draw, and a gnuplot error */
    }
  }
  if (!p->oom && any) {
    gcb_analyze_slow(x, n, p->t, slow, &median);
    char title[160], unit[64];
    gcb_model_case_title(c, title, sizeof title);
    gcb__plot_label(c->unit, unit, sizeof unit);
    size_t id = gcb__plot_begin(p, "ranks", title);
    /* About 16 ticks, whatever the number of ranks. */
    fprintf(p->f,
            "set boxwidth 0.8\nset xlabel 'rank'\nset ylabel '%s'\n"
            "set xrange [-0.5:%zu.5]\nset yrange [0:*]\nset xtics %zu%s\n",
            unit, n - 1, (n + 15) / 16, n <= 16 ? " rotate by -30" : "");
    if (id > 0)
      bars_body(p, id, m, c, x, slow, n);
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
