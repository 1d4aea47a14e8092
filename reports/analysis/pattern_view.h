/*
 * Training patterns read back from a results document: the five cases of
 * each pattern variant (compute alone, communication alone, the
 * overlapped step, compute and communication within it) joined into one
 * group, and the figures of docs/PATTERNS.md derived per rank and per
 * group. The findings (rules_pattern.c), the report's tables
 * (reports/render/render_tables_pattern.c) and the criteria metrics
 * (reports/criteria/criteria_pattern.c) all read patterns through this
 * view, so the formulas live here once.
 */
#ifndef GCB_PATTERN_VIEW_H
#define GCB_PATTERN_VIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/status.h"

enum gcb_pattern_part {
  GCB_PART_COMPUTE,      /* compute alone */
  GCB_PART_COMM,         /* communication alone */
  GCB_PART_STEP,         /* the overlapped step */
  GCB_PART_STEP_COMPUTE, /* compute within the step */
  GCB_PART_STEP_COMM,    /* communication in flight within the step */
  GCB_PART_COUNT
};

/* One rank's figures; NAN where a part is missing. Seconds, or fractions
 * of 1 (overlap, exposed, slowdowns, bubble). */
struct gcb_pattern_rank {
  long long rank;
  double t[GCB_PART_COUNT]; /* median time of each part */
  double overlap;           /* (tc + tm - ts) / min(tc, tm) */
  double exposed;           /* (ts - tc) / ts */
  double comp_slowdown;     /* step-compute / compute - 1 */
  double comm_slowdown;     /* step-comm / comm - 1 */
  double bubble;            /* pp: 1 - step-compute / step; NAN else */
  /* The step broken down, summing to t[STEP]: compute within it, exposed
   * communication (pp: at most the communication alone), bubble (pp: the
   * rest, waiting on other stages). */
  double bar_compute, bar_exposed, bar_bubble;
};

struct gcb_pattern_group {
  const json_t *cases[GCB_PART_COUNT]; /* NULL: missing */
  const char *pattern;                 /* "dp" ... */
  const char *span;                    /* intra-node, inter-node, mixed */
  const char *placement;               /* tp: inner or outer; "" */
  double skew;                         /* ep: NAN elsewhere */
  double ideal_bubble;                 /* pp: NAN elsewhere */
  char title[96];                      /* "tp inner", "ep skew 1" */
  size_t nranks;
  struct gcb_pattern_rank *ranks;
  double step_mean;      /* over ranks */
  double step_imbalance; /* (max - mean) / max of step */
  double busy_imbalance; /* (max - mean) / max of step-compute */
  long long straggler;   /* rank with the most compute in the step; -1 */
  double overlap_mean, exposed_mean, bubble_mean;
  double skew_cost;      /* ep skewed: step over the uniform one's - 1 */
  double placement_cost; /* tp outer: step over the inner one's - 1 */
};

struct gcb_pattern_groups {
  struct gcb_pattern_group *items;
  size_t n;
};

/* Joins the pattern cases of one document (bench "pattern", grouped by
 * every parameter but "part") in document order. GCB_ENOMEM only. */
enum gcb_status gcb_pattern_groups_build(const json_t *root,
                                         struct gcb_pattern_groups *out,
                                         struct gcb_err *err);

void gcb_pattern_groups_free(struct gcb_pattern_groups *g);

/* The group holding case c, or NULL. */
const struct gcb_pattern_group *
gcb_pattern_group_of(const struct gcb_pattern_groups *g, const json_t *c);

/* The figures of one rank of a group from its part times (exposed for
 * tests and for the metrics): fills everything after t[]. */
void gcb_pattern_rank_derive(struct gcb_pattern_rank *r, bool pipeline);

#endif
