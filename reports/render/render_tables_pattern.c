/*
 * Training patterns in the report: one summary table (a row per pattern
 * variant: where its group lands, step, compute, communication, exposed
 * communication, overlap, the straggler and its cost, imbalance, bubble,
 * the cost of skew and of placement; the terminal's row, in the same
 * cells), then a section per variant with the step broken down per
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

static void ms_cell(struct gcb__tb *b, char **r, size_t col, double s) {
  char text[32];
  gcb_pattern_fmt_ms(s, text, sizeof text);
  gcb__cell(b, r, col, "%s", text);
}

static void summary_row(struct gcb__tb *b, struct gcb_rtable *t, size_t d,
                        const struct gcb_pattern_group *g) {
  size_t o = gcb__run_col(b);
  char **r = gcb__table_row(b, t, NULL);
  gcb__cell_run(b, r, d);
  gcb__cell(b, r, o + 0, "%s", g->title);
  gcb__cell(b, r, o + 1, "%s", g->span[0] ? g->span : "-");
  gcb__cell(b, r, o + 2, "%zu", g->nranks);
  ms_cell(b, r, o + 3, g->step_mean);
  ms_cell(b, r, o + 4, g->compute_mean);
  ms_cell(b, r, o + 5, g->comm_mean);
  ms_cell(b, r, o + 6, g->exposed);
  char text[48];
  gcb_pattern_fmt_overlap(g->measurable, g->overlap, g->overlap_noise, text,
                          sizeof text);
  gcb__cell(b, r, o + 7, "%s", text);
  struct gcb_place p;
  if (g->straggler >= 0) {
    gcb_view_place(b->rep->docs[d].root, g->straggler, &p);
    char gpu[32] = "";
    if (p.gpu >= 0)
      snprintf(gpu, sizeof gpu, ", GPU %lld", p.gpu);
    gcb__cell(b, r, o + 8, "%lld (%s%s)", g->straggler,
              p.hostname[0] ? p.hostname : "?", gpu);
  } else {
    gcb__cell(b, r, o + 8, "-");
  }
  gcb_pattern_fmt_pct(g->busy_imbalance, text, sizeof text);
  gcb__cell(b, r, o + 9, "%s", text);
  gcb__cell_pct(b, r, o + 10, g->step_imbalance, false);
  gcb__cell_pct(b, r, o + 11, g->bubble_mean, false);
  gcb__cell_pct(b, r, o + 12, g->ideal_bubble, false);
  gcb__cell_pct(b, r, o + 13, g->skew_cost, true);
  gcb__cell_pct(b, r, o + 14, g->placement_cost, true);
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
                                  "compute alone (ms)",
                                  "comm alone (ms)",
                                  "step (ms)",
                                  "exposed comm (ms)",
                                  "bubble (ms)",
                                  "step breakdown",
                                  "overlap (0-1)",
                                  "compute slowdown",
                                  "comm slowdown (at least)",
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
      "bar, scaled to the slowest step); exposed comm = step - compute "
      "alone, at least 0; overlap = (compute + comm - step) / min(compute, "
      "comm) within [0, 1] with its noise, no overlap measurable when the noise "
      "is larger (docs/PATTERNS.md); slowdowns: each part within the step "
      "against it alone",
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
      ms_cell(b, r, 3 + (size_t)k, pr->t[k]);
    ms_cell(b, r, 6, pr->bar_exposed);
    ms_cell(b, r, 7, pr->bar_bubble);
    gcb__cell(b, r, 8, "|%s", line);
    char text[48];
    gcb_pattern_fmt_overlap(pr->measurable, pr->overlap, pr->overlap_noise,
                            text, sizeof text);
    gcb__cell(b, r, 9, "%s", text);
    gcb__cell_pct(b, r, 10, pr->comp_slowdown, true);
    gcb__cell_pct(b, r, 11, pr->comm_slowdown, true);
  }
}

void gcb__pattern_tables(struct gcb__tb *b) {
  static const char *const h[] = {"run",
                                  "pattern",
                                  "groups",
                                  "ranks",
                                  "step (ms)",
                                  "compute (ms)",
                                  "comm (ms)",
                                  "exposed comm (ms)",
                                  "overlap (0-1)",
                                  "straggler rank",
                                  "straggler cost",
                                  "step imbalance",
                                  "bubble",
                                  "ideal bubble",
                                  "skew cost",
                                  "placement cost",
                                  NULL};
  size_t o = gcb__run_col(b);
  struct gcb_rtable *t = gcb__table_new(
      b, "patterns", "Training patterns",
      "one training step per pattern (gcbench pattern, the same figures as "
      "its terminal table): times are means over ranks of each rank's "
      "median; compute and comm alone were measured interleaved with the "
      "step; exposed comm = step - compute, at least 0; overlap = (compute "
      "+ comm - step) / min(compute, comm) within [0, 1] with its noise; "
      "the straggler computes the most within the step, its cost (max - "
      "mean) / max of that compute; skew and placement costs compare with "
      "uniform routing and with tensor parallelism inside a node "
      "(docs/PATTERNS.md)",
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
