/*
 * What a finding kind means, in one row (benchmark kinds, one row each
 * too, are in reports/document/bench_kind.h).
 *
 * A finding kind (gcb_kinds[]) says everything the reports know about one
 * kind of finding: its name as written to files ("slow-rank"), its check
 * family, the rule(s) that find it, the thresholds it reads, how the
 * diagnosis groups its findings into a component, the sentence form of
 * the root cause it leads, its one suggestion, and the benchmarks it
 * applies to. A finding carries a pointer to its row. Names are only
 * written out; everything compares rows or ids.
 *
 * Adding a finding kind is one enum value, one row and its rule file
 * (docs/ARCHITECTURE.md, "Recipe: a new finding kind").
 */
#ifndef GCB_KINDS_H
#define GCB_KINDS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/status.h"
#include "reports/document/bench_kind.h"
#include "reports/document/view.h"

/* A finding kind's family when it is the family of the finding's case. */
#define GCB_FAM_OF_CASE GCB_FAM_COUNT

/* ---- finding kinds ------------------------------------------------------- */

/* The built-in finding kinds. The order of gcb_kinds[] (this order) is the
 * order the rules run in, which is the order of findings within a
 * severity; kinds with no rule (criteria, compare) come last. */
enum gcb_kind_id {
  GCB_KIND_RUN_STATUS,
  GCB_KIND_RUN_ERROR,
  GCB_KIND_NOTHING_MEASURED,
  GCB_KIND_UNMEASURED,
  GCB_KIND_BURN_SILENT_ERROR, /* rules_burn.c: before validation, whose */
  GCB_KIND_BURN_COUNTERS,     /* finding the burn's (which says when) leads */
  GCB_KIND_BURN_NODE,
  GCB_KIND_BURN_FALLOFF,
  GCB_KIND_BURN_SUSTAINED,
  GCB_KIND_VALIDATION,
  GCB_KIND_SLOW_RANK,
  GCB_KIND_JITTER,
  GCB_KIND_LINK_BANDWIDTH,
  GCB_KIND_IMBALANCE,
  GCB_KIND_LATE_ARRIVAL,
  GCB_KIND_SWEEP_TREND,
  GCB_KIND_LATENCY_FLOOR,
  GCB_KIND_DEGRADED_LINK,
  GCB_KIND_P2P_BANDWIDTH,
  GCB_KIND_NETWORK_LINK,
  GCB_KIND_NETWORK_PATH,
  GCB_KIND_PATTERN_STRAGGLER,
  GCB_KIND_PATTERN_OVERLAP,
  GCB_KIND_PATTERN_TP_PLACEMENT,
  GCB_KIND_PATTERN_SKEW,
  GCB_KIND_PATTERN_BUBBLE,
  GCB_KIND_BLAS_KERNEL,
  GCB_KIND_PLACEMENT_REMOTE,
  GCB_KIND_PLACEMENT_PARTIAL,
  GCB_KIND_PLACEMENT_UNBOUND,
  GCB_KIND_PLACEMENT_SHARED_CPUS,
  GCB_KIND_PLACEMENT_SHARED_GPU,
  GCB_KIND_PLACEMENT_IDLE_GPU,
  GCB_KIND_OVERSUBSCRIBED,
  GCB_KIND_NOT_VALIDATED,
  GCB_KIND_SKIPPED,
  GCB_KIND_REGRESSION,     /* compare.c */
  GCB_KIND_NOT_COMPARABLE, /* compare.c */
  GCB_KIND_MISSING_CASE,   /* compare.c */
  GCB_KIND_CRITERION,      /* criteria_eval.c */
  GCB_KIND_CRITERION_NA,   /* criteria_eval.c */
  GCB_KIND_COUNT,
  GCB_KIND_EXTRA = GCB_KIND_COUNT /* a row outside gcb_kinds[] (tests) */
};

/* How the diagnosis places a finding of the kind at a component
 * (diagnose.c holds one placing function per value). */
enum gcb_group {
  GCB_GROUP_UNSET,      /* a row that forgot its grouping: its findings go
                           to the run, counted as unexplained */
  GCB_GROUP_RUN,        /* the run itself */
  GCB_GROUP_GPU,        /* the device of where.rank (the rank on a host) */
  GCB_GROUP_ERROR,      /* what the error's benchmark measures at its rank;
                           the run for an error of no rank */
  GCB_GROUP_HOST_LINK,  /* the GPU's link to its host; a NIC (where.link) */
  GCB_GROUP_GPU_PAIR,   /* the GPU pair of the finding's p2p case */
  GCB_GROUP_NETWORK,    /* a host's network link or one path (where.link) */
  GCB_GROUP_RANK,       /* a rank, ranks of a node, an idle GPU, a node */
  GCB_GROUP_NODE,       /* the node where.node names (all of its GPUs) */
  GCB_GROUP_NODE_BLAS,  /* a node's BLAS library */
  GCB_GROUP_CHECK,      /* an acceptance check: by the bound's metric */
  GCB_GROUP_BASELINE,   /* the run against its baseline */
  GCB_GROUP_REGRESSION, /* the slowest rank regressed: the component the
                           first pass found, else the baseline */
  GCB_GROUP_SLOWEST,    /* second pass: the component of the case's
                           slowest rank (a consequence, as imbalance) */
  GCB_GROUP_FABRIC,     /* second pass: a slow NIC, else the run */
};

/* The sentence a root cause led by a finding of the kind reads. */
enum gcb_say {
  GCB_SAY_EXPLANATION,  /* the explanation, less a leading "rank N" */
  GCB_SAY_BELOW_PEERS,  /* "GEMM 31 % below its peers in 2 of 4 case(s)
                           (worst fp16 ...: 540 vs 790 TFLOP/s)" */
  GCB_SAY_NOW_AND_THEN, /* "GEMM slow now and then in 4 of 4 case(s): its
                           slow iterations cost 15 % of its time beyond its
                           peers' (worst ...: mean vs median iteration
                           1.759 vs 1.466 ms)" */
  GCB_SAY_WRONG,        /* "wrong results in <case>: <explanation>" */
  GCB_SAY_SOURCES,      /* a copy two sources disagree on: both figures */
  GCB_SAY_AT_REST,      /* a link read at rest, judged under load */
  GCB_SAY_PATH,         /* "NVLink 40 GB/s, 22 % of what its NV4 path
                           carries (180 GB/s)" */
  GCB_SAY_LATE,         /* "41 us late on average at <case> (...)" */
  GCB_SAY_CHECK,        /* "<explanation> (<case>)" */
  GCB_SAY_AT_CASE,      /* "<case>: <explanation>" (its worst case) */
};

struct gcb__rule_ctx; /* analyze_rules.h */

/* A rule: examines one document, appends findings of the rule's kind
 * (gcb__rule_push); GCB_ENOMEM only when memory runs out. */
typedef enum gcb_status gcb_rule_fn(const struct gcb__rule_ctx *cx);

struct gcb_kind {
  enum gcb_kind_id id;
  const char *name;       /* as written to files ("slow-rank") */
  enum gcb_family family; /* its check family; GCB_FAM_OF_CASE: its case's */
  /* The rules that find it, run in order (the second judges documents the
   * first leaves alone: the topology's own check, else the older rule);
   * NULL: pushed by criteria or compare. */
  gcb_rule_fn *rule[2];
  const char *thresholds; /* the thresholds it reads (gcb_threshold_defs
                             names, comma-separated); NULL none */
  unsigned benches;       /* bit per gcb_bench_kind it applies to; 0: any */
  enum gcb_group group;   /* where the diagnosis places it */
  enum gcb_say say;       /* the sentence of a root cause it leads */
  bool secondary; /* says something is off without saying against what the
                     component measures (a check, a consequence): quoted
                     after a rule's finding */
  bool relative;  /* says worse than before (a regression): quoted after
                     one that says against what it should reach */
  bool explains_imbalance; /* names a slow rank: the imbalance rule stays
                              silent about a case one of these explains
                              (its rows run before imbalance's) */
  const char *suggestion;  /* the one suggestion; NULL when the rule words
                              it from the data (a host, a rank, a fix) */
  /* A problem of the run's own placement check (rules_topo.c): its kind as
   * nodes[].topology.placement[] writes it, and what it costs; NULL for
   * other kinds. problem_cost_host: what it costs ranks that cannot be
   * moved away from a GPU (none, as on the host backend, or all of their
   * CPUs local to it) where that differs; NULL: problem_cost. */
  const char *problem, *problem_cost, *problem_cost_host;
  /* Counted after a root cause's statement ("; 2 more regressions against
   * the baseline"); NULL: not counted. */
  const char *tally_one, *tally_many;
};

/* Bit for bench kind b in gcb_kind.benches. */
#define GCB_BENCH_BIT(b) (1u << (b))

/* Every built-in kind, indexed by enum gcb_kind_id. */
extern const struct gcb_kind gcb_kinds[GCB_KIND_COUNT];

/* The row of a built-in kind. */
#define GCB_KIND(id) (&gcb_kinds[GCB_KIND_##id])

/* True when kind k applies to cases of bench kind b. */
bool gcb_kind_applies(const struct gcb_kind *k, enum gcb_bench_kind b);

#endif
