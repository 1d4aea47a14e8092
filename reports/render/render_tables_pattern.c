/*
 * Training patterns in the report: one summary table (a row per pattern
 * variant: where its group lands, overlap, exposed communication,
 * interference, imbalance, the straggler, bubble, the cost of skew and of
 * placement), then a section per variant with the step broken down per
 * rank into compute, exposed communication and bubble, as a bar of
 * characters (# compute, = exposed communication, . bubble) scaled to
 * the slowest rank's step, the straggler marked. Figures come from the
 * pattern view (reports/analysis/pattern_view.h; docs/PATTERNS.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reports/analysis/pattern_view.h"
#include "reports/render/render_tables.h"

#define BAR 30

static void summary_row(struct gcb__tb *b, struct gcb_rtable *t, size_t d,
                        const struct gcb_pattern_group *g) {
  size_t o = gcb__run_col(b);
  char **r = gcb__table_row(b, t, NULL);
  gcb__cell_run(b, r, d);
  gcb__cell(b, r, o + 0, "%s", g->title);
  gcb__cell(b, r, o + 1, "%s", g->span[0] ? g->span : "-");
  gcb__cell(b, r, o + 2, "%zu", g->nranks);
  gcb__cell_time(b, r, o + 3, g->step_mean);
  gcb__cell_pct(b, r, o + 4, g->overlap_mean, false);
  gcb__cell_pct(b, r, o + 5, g->exposed_mean, false);
  gcb__cell_pct(b, r, o + 6, g->step_imbalance, false);
  gcb__cell_pct(b, r, o + 7, g->busy_imbalance, false);
  struct gcb_place p;
  if (g->straggler >= 0) {
    gcb_view_place(b->rep->docs[d].root, g->straggler, &p);
    char gpu[32] = "";
    if (p.gpu >= 0)
      snprintf(gpu, sizeof gpu, ", GPU %lld", p.gpu);
    gcb__cell(b, r, o + 8, "rank %lld (%s%s)", g->straggler,
              p.hostname[0] ? p.hostname : "?", gpu);
  } else {
    gcb__cell(b, r, o + 8, "-");
  }
  gcb__cell_pct(b, r, o + 9, g->bubble_mean, false);
  gcb__cell_pct(b, r, o + 10, g->ideal_bubble, false);
  gcb__cell_pct(b, r, o + 11, g->skew_cost, true);
  gcb__cell_pct(b, r, o + 12, g->placement_cost, true);
}

/* "#####===.." for one rank, scaled to `longest`. */
static void bar(const struct gcb_pattern_rank *r, double longest, char *out) {
  const double parts[3] = {r->bar_compute, r->bar_exposed, r->bar_bubble};
  const char marks[3] = {'#', '=', '.'};
  size_t n = 0;
  for (int k = 0; k < 3 && longest > 0; k++) {
    if (isnan(parts[k]) || parts[k] <= 0)
      continue;
    size_t w = (size_t)lround(BAR * parts[k] / longest);
    for (size_t i = 0; i < w && n < BAR; i++)
      out[n++] = marks[k];
  }
  out[n] = '\0';
}

static void rank_table(struct gcb__tb *b, size_t d, size_t index,
                       const struct gcb_pattern_group *g) {
  static const char *const h[] = {"rank",
                                  "node",
                                  "GPU",
                                  "compute alone",
                                  "comm alone",
                                  "step",
                                  "compute",
                                  "exposed comm",
                                  "bubble",
                                  "step breakdown",
                                  "overlap",
                                  "exposed",
                                  "compute slowdown",
                                  "comm slowdown",
                                  NULL};
  char id[48], title[160];
  snprintf(id, sizeof id, "pattern-%zu-%zu", d + 1, index + 1);
  snprintf(title, sizeof title, "Pattern %s%s: step per rank", g->title,
           g->span[0]
               ? (strcmp(g->span, "intra-node") == 0 ? " (groups inside a node)"
                                                     : " (groups across nodes)")
               : "");
  struct gcb_rtable *t = gcb__table_new_named(
      b, id, title,
      "compute, exposed communication and bubble of one step (# = . in the "
      "bar, scaled to the slowest step); overlap = (compute + comm - step) "
      "/ min(compute, comm); exposed = (step - compute alone) / step; "
      "slowdowns: each part within the step against it alone",
      h);
  double longest = 0;
  for (size_t i = 0; i < g->nranks; i++)
    if (g->ranks[i].t[GCB_PART_STEP] > longest)
      longest = g->ranks[i].t[GCB_PART_STEP];
  for (size_t i = 0; t != NULL && i < g->nranks; i++) {
    const struct gcb_pattern_rank *pr = &g->ranks[i];
    bool slow = pr->rank == g->straggler &&
                g->busy_imbalance * 100 > b->rep->thresholds->imbalance_pct;
    char **r = gcb__table_row(b, t, slow ? "warn" : NULL);
    struct gcb_place p;
    gcb_view_place(b->rep->docs[d].root, pr->rank, &p);
    char line[BAR + 1];
    bar(pr, longest, line);
    gcb__cell(b, r, 0, "%lld%s", pr->rank, slow ? " (straggler)" : "");
    gcb__cell(b, r, 1, "%s", p.hostname[0] ? p.hostname : "-");
    gcb__cell_id(b, r, 2, p.gpu);
    for (int k = 0; k < 3; k++)
      gcb__cell_time(b, r, 3 + (size_t)k, pr->t[k]);
    gcb__cell_time(b, r, 6, pr->bar_compute);
    gcb__cell_time(b, r, 7, pr->bar_exposed);
    gcb__cell_time(b, r, 8, pr->bar_bubble);
    gcb__cell(b, r, 9, "|%s", line);
    gcb__cell_pct(b, r, 10, pr->overlap, false);
    gcb__cell_pct(b, r, 11, pr->exposed, false);
    gcb__cell_pct(b, r, 12, pr->comp_slowdown, true);
    gcb__cell_pct(b, r, 13, pr->comm_slowdown, true);
  }
}

void gcb__pattern_tables(struct gcb__tb *b) {
  static const char *const h[] = {
      "run",       "pattern",        "groups",
      "ranks",     "step",           "overlap",
      "exposed",   "step imbalance", "compute imbalance",
      "straggler", "bubble",         "ideal bubble",
      "skew cost", "placement cost", NULL};
  size_t o = gcb__run_col(b);
  struct gcb_rtable *t = gcb__table_new(
      b, "patterns", "Training patterns",
      "one training step per pattern (gcbench pattern): mean over ranks; "
      "the straggler computes the most within the step; skew and placement "
      "costs compare with uniform routing and with tensor parallelism "
      "inside a node",
      h + (1 - o));
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    struct gcb_pattern_groups gs;
    struct gcb_err err = {0};
    if (gcb_pattern_groups_build(b->rep->docs[d].root, &gs, &err) != GCB_OK) {
      b->oom = true;
      return;
    }
    for (size_t i = 0; i < gs.n; i++)
      summary_row(b, t, d, &gs.items[i]);
    for (size_t i = 0; i < gs.n; i++)
      rank_table(b, d, i, &gs.items[i]);
    gcb_pattern_groups_free(&gs);
  }
}
