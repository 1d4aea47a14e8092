/*
 * Training patterns: one stacked bar chart per pattern variant, a bar per
 * rank (the first 64; the title says how many more) split into compute within
 * the step, exposed communication and bubble (milliseconds), from the pattern
 * view (reports/analysis/pattern_view.h); the straggler's tick is starred when
 * it is one beyond the imbalance threshold.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reports/analysis/pattern_view.h"
#include "reports/plot/plot_int.h"

#define MAX_BARS 64

static double ms(double s) {
  return isnan(s) ? 0 : s * 1e3;
}

static void stacked(struct gcb__plotter *p, const struct gcb_pattern_group *g) {
  size_t n = g->nranks < MAX_BARS ? g->nranks : MAX_BARS;
  if (n == 0 || isnan(g->ranks[0].bar_compute))
    return;
  char title[160], note[48] = "";
  if (g->nranks > n)
    snprintf(note, sizeof note, " (%zu more ranks not shown)", g->nranks - n);
  snprintf(
      title, sizeof title, "pattern %.*s: the step per rank%s",
      (int)(sizeof title - sizeof "pattern : the step per rank" - strlen(note)),
      g->title, note);
  size_t id = gcb__plot_begin(p, "pattern", title);
  if (id == 0)
    return;
  fprintf(p->f,
          "set style data histograms\nset style histogram rowstacked\n"
          "set boxwidth 0.8\nset xlabel 'rank (* straggler)'\n"
          "set ylabel 'ms per step'\nset yrange [0:*]\n$pattern%zu << EOD\n",
          id);
  /* Starred as in the report's table: beyond the imbalance threshold. */
  long long slow =
      gcb_pattern_group_straggles(g, p->t->imbalance_pct) ? g->straggler : -1;
  for (size_t i = 0; i < n; i++) {
    const struct gcb_pattern_rank *r = &g->ranks[i];
    fprintf(p->f, "r%lld%s %.6g %.6g %.6g\n", r->rank,
            r->rank == slow ? "*" : "", ms(r->bar_compute), ms(r->bar_exposed),
            ms(r->bar_bubble));
  }
  fprintf(p->f,
          "EOD\nplot $pattern%zu using 2:xtic(1) lc rgb '#4e79a7' title "
          "'compute', '' using 3 lc rgb '#f28e2b' title 'exposed "
          "communication', '' using 4 lc rgb '#bab0ac' title 'bubble'\n",
          id);
}

void gcb__plot_patterns(struct gcb__plotter *p, const struct gcb_doc *docs,
                        size_t ndocs) {
  for (size_t d = 0; d < ndocs && !p->oom; d++) {
    struct gcb_pattern_groups gs;
    struct gcb_err err = {0};
    if (gcb_pattern_groups_build_model(docs[d].model, &gs, &err) != GCB_OK) {
      p->oom = true;
      return;
    }
    for (size_t i = 0; i < gs.n; i++)
      stacked(p, &gs.items[i]);
    gcb_pattern_groups_free(&gs);
  }
}
