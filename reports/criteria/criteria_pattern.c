/*
 * Criteria metrics of the training patterns: each figure of the pattern
 * view (reports/analysis/pattern_view.h) as a number a check can bound,
 * evaluated on any part case of a pattern variant. Percentages; NAN for
 * a case that is not a pattern's, or a figure its pattern has not (the
 * bubble outside pp), which never meets a bound. The view is rebuilt per
 * call: criteria files hold a handful of checks.
 */
#include <math.h>
#include <stddef.h>

#include "reports/analysis/pattern_view.h"
#include "reports/criteria/criteria.h"

/* The figure at `offset` of the case's group (group) or of entry i of its
 * ranks, in percent. */
static double value(const struct gcb_model *doc, const struct gcb_model_case *c,
                    size_t i, bool group, size_t offset) {
  struct gcb_pattern_groups gs;
  struct gcb_err err = {0};
  if (doc == NULL || gcb_pattern_groups_build_model(doc, &gs, &err) != GCB_OK)
    return NAN;
  const struct gcb_pattern_group *g = gcb_pattern_group_of_case(&gs, c);
  const void *of = NULL;
  if (g != NULL && group)
    of = g;
  else if (g != NULL && i < g->nranks)
    of = &g->ranks[i];
  double v = of != NULL ? *(const double *)((const char *)of + offset) : NAN;
  gcb_pattern_groups_free(&gs);
  return v * 100;
}

#define METRIC(name, group, type, field)                                       \
  double gcb__m_pattern_##name(const struct gcb_model *doc,                    \
                               const struct gcb_model_case *c, size_t i) {     \
    return value(doc, c, i, group, offsetof(struct type, field));              \
  }
GCB__PATTERN_METRICS(METRIC)
#undef METRIC
