/*
 * Findings of the training patterns (docs/PATTERNS.md), from the pattern
 * view: the rank that holds the step back, overlap below what data
 * parallelism should reach, a tensor-parallel group across nodes (with
 * what the placement costs when both were measured), routing skew that
 * costs more than a threshold, and a pipeline bubble well above the
 * ideal. Each names its rank, node and GPU where it has one, so that the
 * diagnosis groups it with the rank's other findings.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"
#include "reports/analysis/pattern_view.h"

/* Thresholds of the pattern rules; the straggler's is the imbalance
 * threshold (imbalance_pct) shared with every other case. */
static const struct {
  double overlap_min;   /* dp, fsdp: overlap below: warn */
  double skew_cost_max; /* ep: step slower under skew by more: warn */
  double bubble_excess; /* pp: measured bubble above ideal by more: warn */
} limits = {0.5, 0.10, 0.15};

static struct gcb_finding *push(const struct gcb__rule_ctx *cx,
                                enum gcb_severity sev,
                                const struct gcb_kind *kind,
                                const struct gcb_pattern_group *g) {
  struct gcb__rule_ctx of_kind = *cx; /* one rule finds five kinds */
  of_kind.kind = kind;
  struct gcb_finding *f = gcb__rule_push(&of_kind, sev);
  if (f != NULL)
    snprintf(f->where.subject, sizeof f->where.subject, "pattern: %s",
             g != NULL ? g->title : "every pattern");
  return f;
}

/* The rank that is the straggler of the most groups
 * (gcb_pattern_group_straggles), and in how many of those judged (groups
 * of equal work: not a skewed ep). */
static long long worst_rank(const struct gcb_pattern_groups *gs, double thr,
                            size_t *times, size_t *judged,
                            const struct gcb_pattern_group **worst) {
  long long best = -1;
  *times = *judged = 0;
  *worst = NULL;
  for (size_t i = 0; i < gs->n; i++) {
    const struct gcb_pattern_group *g = &gs->items[i];
    if (isnan(g->busy_imbalance) || g->nranks < 2 || g->skew > 0)
      continue;
    (*judged)++;
    if (!gcb_pattern_group_straggles(g, thr))
      continue;
    size_t n = 0;
    for (size_t j = 0; j < gs->n; j++)
      n += gs->items[j].straggler == g->straggler &&
           gcb_pattern_group_straggles(&gs->items[j], thr);
    if (n > *times ||
        (n == *times && *worst && g->busy_imbalance > (*worst)->busy_imbalance))
      *times = n, best = g->straggler, *worst = g;
  }
  return best;
}

static enum gcb_status straggler(const struct gcb__rule_ctx *cx,
                                 const struct gcb_model *m,
                                 const struct gcb_pattern_groups *gs) {
  size_t times, judged;
  const struct gcb_pattern_group *g;
  long long r = worst_rank(gs, cx->t->imbalance_pct, &times, &judged, &g);
  if (r < 0)
    return GCB_OK;
  struct gcb_finding *f =
      push(cx, times == judged ? GCB_SEV_FAIL : GCB_SEV_WARN,
           GCB_KIND(PATTERN_STRAGGLER), times == judged ? NULL : g);
  if (f == NULL)
    return GCB_ENOMEM;
  gcb_finding_at_model_rank(f, cx->index, m, r);
  const struct gcb_pattern_rank *w = NULL;
  for (size_t i = 0; i < g->nranks; i++)
    if (g->ranks[i].rank == r)
      w = &g->ranks[i];
  double busy = w ? w->t[GCB_PART_STEP_COMPUTE] : NAN;
  /* expected: the mean */
  gcb_finding_figures(f, busy * 1e3, busy * (1 - g->busy_imbalance) * 1e3,
                      "ms");
  f->cost = g->busy_imbalance;
  gcb_finding_explain(f,
                      "rank %lld holds the step back in %zu of %zu pattern(s): "
                      "%s computes %.2f ms per step, %.0f%% above the mean; "
                      "its peers wait for it at every collective",
                      r, times, judged, g->title, busy * 1e3,
                      100 * g->busy_imbalance / (1 - g->busy_imbalance));
  gcb_finding_suggest(f,
                      "see rank %lld's GEMM and telemetry (clocks, "
                      "throttling, CPU binding); a rank slow in every "
                      "pattern slows every training step",
                      r);
  return GCB_OK;
}

/* dp and fsdp should hide their gradient communication behind backward.
 * Warns when the overlap is below the limit, or, when none is
 * measurable, when even its noise leaves it below (the hidden time plus
 * its noise under the limit): a figure within the noise is never read
 * as a lack of overlap, nor as overlap. */
static enum gcb_status overlap(const struct gcb__rule_ctx *cx,
                               const struct gcb_pattern_group *g) {
  bool data = strcmp(g->pattern, "dp") == 0 || strcmp(g->pattern, "fsdp") == 0;
  double lo = g->compute_mean < g->comm_mean ? g->compute_mean : g->comm_mean;
  double most = lo > 0 ? (g->hidden + g->hidden_noise) / lo : NAN;
  double seen = g->measurable ? g->overlap : most;
  if (!data || isnan(seen) || seen >= limits.overlap_min)
    return GCB_OK;
  struct gcb_finding *f = push(cx, GCB_SEV_WARN, GCB_KIND(PATTERN_OVERLAP), g);
  if (f == NULL)
    return GCB_ENOMEM;
  seen = seen < 0 ? 0 : seen;
  gcb_finding_figures(f, 100 * seen, 100 * limits.overlap_min, "%");
  f->cost = g->exposed_share;
  if (g->measurable)
    gcb_finding_explain(f,
                        "%s hides %.0f%% (\xc2\xb1 %.0f%%) of what it could of "
                        "its communication behind compute (overlap, below "
                        "%.0f%%); exposed communication %.3g ms of a %.3g ms "
                        "step",
                        g->title, 100 * g->overlap, 100 * g->overlap_noise,
                        100 * limits.overlap_min, g->exposed * 1e3,
                        g->step_mean * 1e3);
  else
    gcb_finding_explain(f,
                        "%s: no overlap measurable; within the noise it hides "
                        "at most %.0f%% of what it could of its communication "
                        "(below %.0f%%); exposed communication %.3g ms of a "
                        "%.3g ms step",
                        g->title, 100 * seen, 100 * limits.overlap_min,
                        g->exposed * 1e3, g->step_mean * 1e3);
  gcb__rule_suggest(f);
  return GCB_OK;
}

static enum gcb_status placement(const struct gcb__rule_ctx *cx,
                                 const struct gcb_pattern_group *g) {
  bool tp = strncmp(g->pattern, "tp", 2) == 0;
  if (!tp ||
      (strcmp(g->span, "inter-node") != 0 && strcmp(g->span, "mixed") != 0))
    return GCB_OK;
  struct gcb_finding *f =
      push(cx, GCB_SEV_WARN, GCB_KIND(PATTERN_TP_PLACEMENT), g);
  if (f == NULL)
    return GCB_ENOMEM;
  f->measured = 100 * g->exposed_share;
  snprintf(f->unit, sizeof f->unit, "%%");
  f->cost = isnan(g->placement_cost) ? NAN : g->placement_cost;
  char cost[96] = "";
  if (!isnan(g->placement_cost))
    snprintf(cost, sizeof cost,
             "; the step is %+.0f%% against the group inside a node",
             100 * g->placement_cost);
  gcb_finding_explain(f,
                      "a tensor-parallel group spans nodes (%s): its "
                      "activation collectives cross the network, exposed "
                      "communication %.3g ms of a %.3g ms step%s",
                      g->span, g->exposed * 1e3, g->step_mean * 1e3, cost);
  gcb__rule_suggest(f);
  return GCB_OK;
}

static enum gcb_status skew(const struct gcb__rule_ctx *cx,
                            const struct gcb_model *m,
                            const struct gcb_pattern_group *g) {
  if (isnan(g->skew_cost) || g->skew_cost <= limits.skew_cost_max)
    return GCB_OK;
  /* A group of one holds every expert: skew moves no work between ranks
   * (an H200 alone ran the skewed step 12 % slower, its GEMMs' shapes,
   * and was told that rank 0 held the hot experts). */
  if (g->group < 2)
    return GCB_OK;
  struct gcb_finding *f = push(cx, GCB_SEV_WARN, GCB_KIND(PATTERN_SKEW), g);
  if (f == NULL)
    return GCB_ENOMEM;
  if (g->straggler >= 0)
    gcb_finding_at_model_rank(f, cx->index, m, g->straggler);
  gcb_finding_figures(f, 100 * g->skew_cost, 100 * limits.skew_cost_max, "%");
  f->cost = g->skew_cost / (1 + g->skew_cost);
  gcb_finding_explain(f,
                      "routing skew %g makes the expert-parallel step %.0f%% "
                      "slower than uniform routing; rank %lld holds the hot "
                      "experts",
                      g->skew, 100 * g->skew_cost, g->straggler);
  gcb__rule_suggest(f);
  return GCB_OK;
}

static enum gcb_status bubble(const struct gcb__rule_ctx *cx,
                              const struct gcb_pattern_group *g) {
  if (isnan(g->bubble_mean) || isnan(g->ideal_bubble) ||
      g->bubble_mean <= g->ideal_bubble + limits.bubble_excess)
    return GCB_OK;
  struct gcb_finding *f = push(cx, GCB_SEV_WARN, GCB_KIND(PATTERN_BUBBLE), g);
  if (f == NULL)
    return GCB_ENOMEM;
  gcb_finding_figures(f, 100 * g->bubble_mean, 100 * g->ideal_bubble, "%");
  f->cost = g->bubble_mean - g->ideal_bubble;
  gcb_finding_explain(f,
                      "the pipeline idles %.0f%% of the step, against the "
                      "ideal (p - 1) / (m + p - 1) = %.0f%%: stages wait on "
                      "transfers or on a slower stage",
                      100 * g->bubble_mean, 100 * g->ideal_bubble);
  gcb__rule_suggest(f);
  return GCB_OK;
}

enum gcb_status gcb__rule_pattern(const struct gcb__rule_ctx *cx) {
  struct gcb_pattern_groups gs;
  const struct gcb_model *m = cx->doc->model;
  enum gcb_status st = gcb_pattern_groups_build_model(m, &gs, cx->err);
  if (st != GCB_OK)
    return st;
  if (gs.n > 0)
    st = straggler(cx, m, &gs);
  for (size_t i = 0; i < gs.n && st == GCB_OK; i++) {
    const struct gcb_pattern_group *g = &gs.items[i];
    if ((st = overlap(cx, g)) == GCB_OK && (st = placement(cx, g)) == GCB_OK &&
        (st = skew(cx, m, g)) == GCB_OK)
      st = bubble(cx, g);
  }
  gcb_pattern_groups_free(&gs);
  return st;
}
