/*
 * Internal to the analysis: what a rule sees, and the rules the rows of
 * gcb_kinds[] (kinds.c) name. A rule examines one document and appends
 * findings; it returns GCB_ENOMEM only when memory runs out.
 */
#ifndef GCB_ANALYZE_RULES_H
#define GCB_ANALYZE_RULES_H

#include "reports/analysis/analyze.h"

struct gcb__rule_ctx {
  const struct gcb_kind *kind; /* the rule's kind: its findings carry it */
  const struct gcb_doc *doc;
  int index; /* the document's index among those analysed */
  const struct gcb_thresholds *t;
  struct gcb_findings *out;
  struct gcb_err *err;
};

/* Pushes a finding of the rule's kind for the rule's document, or records
 * ENOMEM in the context's err and returns NULL. */
struct gcb_finding *gcb__rule_push(const struct gcb__rule_ctx *cx,
                                   enum gcb_severity sev);

/* gcb__rule_push for case c: its subject is the case's title, and with
 * rank >= 0 it is placed at that rank (gcb_finding_at_model_rank). */
struct gcb_finding *gcb__rule_push_case(const struct gcb__rule_ctx *cx,
                                        enum gcb_severity sev,
                                        const struct gcb_model_case *c,
                                        long long rank);

/* Sets the finding's suggestion to its kind's (kinds.c; "" for none). */
void gcb__rule_suggest(struct gcb_finding *f);

/* The imbalance (gcb_analyze_case_imbalance) over the per-rank entries
 * entries[0..n) of case c, taken in that order (NULL: 0..n); n > 0. */
void gcb__imbalance_over(const struct gcb_model_case *c, const size_t *entries,
                         size_t n, struct gcb_imbalance *out);

/* The run's status, its errors[], a run of no case, a case no rank timed
 * and its skipped[] (analyze.c). */
enum gcb_status gcb__rule_run_status(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_errors(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_nothing_measured(const struct gcb__rule_ctx *cx);
/* A case of some work no rank timed: every rank's time 0 s or none. */
enum gcb_status gcb__rule_unmeasured(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_skipped(const struct gcb__rule_ctx *cx);

/* Per-case rules (rules_case.c) and rules reported per sweep or per rank
 * (rules_sweep.c); see docs/REPORTS.md. */
enum gcb_status gcb__rule_validation(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_not_validated(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_slow_rank(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_jitter(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_imbalance(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_late_arrival(const struct gcb__rule_ctx *cx);

/* The rows of a collective or point-to-point sweep (rules_trend.c): a row
 * off its neighbours' log-log trend, a small message far above its
 * latency floor; the kind ("sweep-trend", "latency-floor") says which. */
enum gcb_status gcb__rule_sweep_rows(const struct gcb__rule_ctx *cx);

/* Placement rules (placement.c); see docs/REPORTS.md. */
/* Whether a rank has CPUs of its own, as far as the document says: bound
 * (not to every PU of its node), to PUs no other rank of its node is
 * bound to, on a node with no more ranks than cores. true where the
 * document does not say (no rank or node entry, a binding not recorded). */
bool gcb__rank_has_own_cpus(const struct gcb_model *m, long long rank);
enum gcb_status gcb__rule_unbound(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_shared_cpus(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_shared_gpu(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_oversubscribed(const struct gcb__rule_ctx *cx);

/* Placement from the run's own topology check (rules_topo.c): one rule for
 * every finding kind that maps to a problem kind of
 * nodes[].topology.placement[]; the kind says which. The older rules in
 * placement.c leave it the nodes whose topology carries a placement
 * array (has_placement). */
enum gcb_status gcb__rule_topo_placement(const struct gcb__rule_ctx *cx);

/* "h2d" or "d2h" for a pcie case the link rule judges against the link's
 * rate (pinned local host memory, one direction, the largest size of its
 * sweep among m's cases); NULL for any other case. */
const char *gcb__case_pcie_direction(const struct gcb_model *m,
                                     const struct gcb_model_case *c);

/* Links (rules_link.c, rules_degraded.c) and GPU pairs (rules_p2p.c). */
enum gcb_status gcb__rule_link_bandwidth(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_degraded_link(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_p2p_bandwidth(const struct gcb__rule_ctx *cx);

/* How a p2p case's link is written between its two bus ids: "<->" for a
 * figure of both directions at once (direction "bidir"), else "->"
 * (source to destination): findings and root causes name a one-way
 * measurement "A->B", never "A<->B". */
const char *gcb__case_p2p_arrow(const struct gcb_model_case *c);

/* The network map (rules_netmap.c): a host's own link or one path; the
 * kind ("network-link", "network-path") says which. */
enum gcb_status gcb__rule_netmap(const struct gcb__rule_ctx *cx);

/* The BLAS kernels below the CPU or forced (rules_blas.c). */
enum gcb_status gcb__rule_blas_kernel(const struct gcb__rule_ctx *cx);

/* Training patterns (rules_pattern.c; docs/PATTERNS.md): stragglers,
 * overlap, tensor-parallel placement, routing skew, pipeline bubble. */
enum gcb_status gcb__rule_pattern(const struct gcb__rule_ctx *cx);

/* Burn-in (rules_burn.c; docs/REPORTS.md, "Burn-in"): one function for
 * the kinds burn-silent-error, burn-counters, burn-node, burn-falloff and
 * burn-sustained; the kind says which it reports. */
enum gcb_status gcb__rule_burn(const struct gcb__rule_ctx *cx);

#endif
