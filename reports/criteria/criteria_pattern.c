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

static double value(const struct gcb_model *doc, const struct gcb_model_case *c,
                    size_t i, enum pick p) {
  struct gcb_pattern_groups gs;
  struct gcb_err err = {0};
  if (doc == NULL || gcb_pattern_groups_build_model(doc, &gs, &err) != GCB_OK)
    return NAN;
  const struct gcb_pattern_group *g = gcb_pattern_group_of_case(&gs, c);
  double v = NAN;
  if (g != NULL && p >= IMBALANCE)
    v = group_value(g, p);
  else if (g != NULL && i < g->nranks)
    v = rank_value(&g->ranks[i], p);
  gcb_pattern_groups_free(&gs);
  return v * 100;
}

#define METRIC(name, pick)                                                     \
  double gcb__m_pattern_##name(const struct gcb_model *doc,                    \
                               const struct gcb_model_case *c, size_t i) {     \
    return value(doc, c, i, pick);                                             \
  }
METRIC(overlap, OVERLAP)
METRIC(exposed, EXPOSED)
METRIC(comp_slowdown, COMP_SLOW)
METRIC(comm_slowdown, COMM_SLOW)
METRIC(bubble, BUBBLE)
METRIC(imbalance, IMBALANCE)
METRIC(busy_imbalance, BUSY_IMBALANCE)
METRIC(skew_cost, SKEW)
METRIC(placement_cost, PLACEMENT)
#undef METRIC
