/*
 * Training patterns read back from a results document: the five cases of
 * each pattern variant (compute alone, communication alone, the
 * overlapped step, compute and communication within it) joined into one
 * group, and the figures of docs/PATTERNS.md derived per rank and per
 * group. The findings (rules_pattern.c), the report's tables
 * (reports/render/render_tables.c) and the criteria metrics
 * (reports/criteria/criteria_pattern.c) all read patterns through this
 * view, so the formulas live here once.
 */
#ifndef GCB_PATTERN_VIEW_H
#define GCB_PATTERN_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "common/status.h"
#include "reports/document/model.h"

enum gcb_pattern_part {
  GCB_PART_COMPUTE,      /* compute alone */
  GCB_PART_COMM,         /* communication alone */
  GCB_PART_STEP,         /* the overlapped step */
  GCB_PART_STEP_COMPUTE, /* compute within the step */
  GCB_PART_STEP_COMM,    /* communication in flight within the step */
  GCB_PART_COUNT
};

/* One rank's figures; NAN where a part is missing. Seconds, or fractions
 * of 1 (overlap, exposed share, slowdowns, bubble). docs/PATTERNS.md
 * defines each; the terminal, the report and the criteria read them
 * from here. */
struct gcb_pattern_rank {
  long long rank;
  double t[GCB_PART_COUNT];  /* median time of each part */
  double sd[GCB_PART_COUNT]; /* standard deviation of its samples */
  double n[GCB_PART_COUNT];  /* how many samples (0: unknown) */
  double exposed;            /* max(0, ts - tc) */
  double exposed_share;      /* exposed / ts */
  double hidden;             /* tc + tm - ts */
  double hidden_noise;       /* 2 sqrt(sum of sd^2 / n of the three) */
  bool measurable;           /* hidden > hidden_noise: overlap is shown */
  double overlap;            /* hidden / min(tc, tm) within [0, 1]; NAN when not
                                measurable */
  double overlap_noise;      /* hidden_noise / min(tc, tm) */
  double comp_slowdown;      /* step-compute / compute - 1 */
  double comm_slowdown; /* step-comm / comm - 1 (step-comm a lower bound) */
  double bubble;        /* pp: max(0, exposed - tm) / ts; NAN else */
  /* The step broken down, summing to t[STEP]: compute (ts - exposed),
   * exposed communication (pp: at most the communication alone), bubble
   * (pp: the rest, waiting on other stages). */
  double bar_compute, bar_exposed, bar_bubble;
};

struct gcb_pattern_group {
  /* Its cases, in the model it was built from; NULL: missing (or the
   * terminal's). */
  const struct gcb_model_case *cases[GCB_PART_COUNT];
  const char *pattern;   /* "dp" ... */
  const char *span;      /* intra-node, inter-node, mixed */
  const char *placement; /* tp: inner or outer; "" */
  double skew;           /* ep: NAN elsewhere */
  double group;          /* the pattern's group size; NAN unknown; 1:
                            no communication figures (comm, exposed) */
  double ideal_bubble;   /* pp: NAN elsewhere */
  char title[96];        /* "tp inner", "ep skew 1" */
  size_t nranks;
  struct gcb_pattern_rank *ranks;
  /* Means over ranks of each rank's median part times. */
  double step_mean, compute_mean, comm_mean;
  /* The group's figures from those means, as a rank's from its times:
   * exposed = max(0, step - compute); overlap = (compute + comm - step) /
   * min(compute, comm) in [0, 1], shown only when that hidden time exceeds
   * its noise (the ranks' noises combined: sqrt(sum noise^2) / ranks). */
  double exposed, exposed_share, hidden, hidden_noise;
  bool measurable;
  double overlap, overlap_noise;
  double step_imbalance; /* (max - mean) / max of step */
  double busy_imbalance; /* (max - mean) / max of step-compute: the
                            straggler's cost */
  long long straggler;   /* rank with the most compute in the step; -1 */
  double bubble_mean;
  double skew_cost;      /* ep skewed: step over the uniform one's - 1 */
  double placement_cost; /* tp outer: step over the inner one's - 1 */
};

struct gcb_pattern_groups {
  struct gcb_pattern_group *items;
  size_t n;
};

/* Joins the pattern cases of the model m (bench "pattern", grouped by
 * every parameter but "part") in document order. The groups borrow from
 * m, which must outlive them. GCB_ENOMEM only (*out then empty). */
enum gcb_status gcb_pattern_groups_build_model(const struct gcb_model *m,
                                               struct gcb_pattern_groups *out,
                                               struct gcb_err *err);

/* NULL is a no-op; the struct is zeroed. */
void gcb_pattern_groups_free(struct gcb_pattern_groups *g);

/* Whether the group's ranks were given the same work, so that the one
 * computing the most is a straggler: not under routing skew (ep, skew >
 * 0), whose hot experts' rank computes more by design (the skew rule
 * states what that costs). The summary tables name no straggler where
 * this is false. */
bool gcb_pattern_group_even(const struct gcb_pattern_group *g);

/* Whether the group's straggler holds its step back: its compute within
 * the step more than imbalance_pct (percent) above the mean, in an even
 * group. The one test of the rule, the per-rank table's row mark and the
 * plot's star. */
bool gcb_pattern_group_straggles(const struct gcb_pattern_group *g,
                                 double imbalance_pct);

/* The group holding case c (of the model the groups were built from), or
 * NULL. */
const struct gcb_pattern_group *
gcb_pattern_group_of_case(const struct gcb_pattern_groups *g,
                          const struct gcb_model_case *c);

/* The group's figures from g->ranks (t, sd, n and rank filled) and
 * g->pattern: every rank's, then the means, imbalances, the straggler and
 * the overlap. Used by the view and by the live table, so that both show
 * the same figures. */
void gcb_pattern_group_derive(struct gcb_pattern_group *g);

/* The cells the terminal and the report both print, so that they read
 * alike: milliseconds as "%.4g" ("-" for NAN); an overlap as "0.42 ±
 * 0.05" (a fraction of 1, with its noise), "no overlap measurable" (the
 * hidden time within its noise) or "-" (compute or communication not
 * measured: a group of one has none); the straggler's cost as "%.1f%%". */
void gcb_pattern_fmt_ms(double seconds, char *buf, size_t len);
void gcb_pattern_fmt_overlap(bool measurable, double overlap, double noise,
                             char *buf, size_t len);
void gcb_pattern_fmt_pct(double frac, char *buf, size_t len);

#endif
