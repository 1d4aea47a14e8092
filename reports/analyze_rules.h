/*
 * Internal to the analysis: what a rule sees, and the rules that live
 * outside analyze.c (rules_case.c, placement.c). A rule examines one document
 * and appends findings; it returns GCB_ENOMEM only when memory runs out.
 */
#ifndef GCB_ANALYZE_RULES_H
#define GCB_ANALYZE_RULES_H

#include "analyze.h"

struct gcb__rule_ctx {
  const char *kind; /* the rule's kind, which its findings carry */
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

/* Per-case rules (rules_case.c); see docs/REPORTS.md. */
enum gcb_status gcb__rule_validation(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_not_validated(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_slow_rank(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_imbalance(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_late_arrival(const struct gcb__rule_ctx *cx);

/* Placement rules (placement.c); see docs/REPORTS.md. */
enum gcb_status gcb__rule_unbound(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_shared_cpus(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_shared_gpu(const struct gcb__rule_ctx *cx);
enum gcb_status gcb__rule_oversubscribed(const struct gcb__rule_ctx *cx);

#endif
