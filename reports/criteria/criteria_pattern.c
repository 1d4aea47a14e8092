/*
 * Criteria metrics of the training patterns: each figure of the pattern
 * view (reports/analysis/pattern_view.h) as a number a check can bound,
 * evaluated on any part case of a pattern variant. Percentages; NAN for
 * a case that is not a pattern's, or a figure its pattern has not (the
 * bubble outside pp), which never meets a bound. The view is rebuilt per
 * call: criteria files hold a handful of checks.
 */
#include <math.h>

#include "reports/analysis/pattern_view.h"
#include "reports/criteria/criteria.h"

enum pick {
  OVERLAP,
  EXPOSED,
  COMP_SLOW,
  COMM_SLOW,
  BUBBLE,
  IMBALANCE,
  BUSY_IMBALANCE,
  SKEW,
  PLACEMENT
};

static double rank_value(const struct gcb_pattern_rank *r, enum pick p) {
  switch (p) {
  case OVERLAP:
    return r->overlap;
  case EXPOSED:
    return r->exposed_share;
  case COMP_SLOW:
    return r->comp_slowdown;
  case COMM_SLOW:
    return r->comm_slowdown;
  default:
    return r->bubble;
  }
}

static double group_value(const struct gcb_pattern_group *g, enum pick p) {
  switch (p) {
  case IMBALANCE:
    return g->step_imbalance;
  case BUSY_IMBALANCE:
    return g->busy_imbalance;
  case SKEW:
    return g->skew_cost;
  default:
    return g->placement_cost;
  }
}

static double value(const json_t *root, const json_t *c, size_t i,
                    enum pick p) {
  struct gcb_pattern_groups gs;
  struct gcb_err err = {0};
  if (root == NULL || gcb_pattern_groups_build(root, &gs, &err) != GCB_OK)
    return NAN;
  const struct gcb_pattern_group *g = gcb_pattern_group_of(&gs, c);
  double v = NAN;
  if (g != NULL && p >= IMBALANCE)
    v = group_value(g, p);
  else if (g != NULL && i < g->nranks)
    v = rank_value(&g->ranks[i], p);
  gcb_pattern_groups_free(&gs);
  return v * 100;
}

double gcb__m_pattern_overlap(const json_t *root, const json_t *c, size_t i) {
  return value(root, c, i, OVERLAP);
}

double gcb__m_pattern_exposed(const json_t *root, const json_t *c, size_t i) {
  return value(root, c, i, EXPOSED);
}

double gcb__m_pattern_comp_slowdown(const json_t *root, const json_t *c,
                                    size_t i) {
  return value(root, c, i, COMP_SLOW);
}

double gcb__m_pattern_comm_slowdown(const json_t *root, const json_t *c,
                                    size_t i) {
  return value(root, c, i, COMM_SLOW);
}

double gcb__m_pattern_bubble(const json_t *root, const json_t *c, size_t i) {
  return value(root, c, i, BUBBLE);
}

double gcb__m_pattern_imbalance(const json_t *root, const json_t *c, size_t i) {
  return value(root, c, i, IMBALANCE);
}

double gcb__m_pattern_busy_imbalance(const json_t *root, const json_t *c,
                                     size_t i) {
  return value(root, c, i, BUSY_IMBALANCE);
}

double gcb__m_pattern_skew_cost(const json_t *root, const json_t *c, size_t i) {
  return value(root, c, i, SKEW);
}

double gcb__m_pattern_placement_cost(const json_t *root, const json_t *c,
                                     size_t i) {
  return value(root, c, i, PLACEMENT);
}
