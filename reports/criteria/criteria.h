/*
 * Acceptance criteria ("gcbench.criteria/1", docs/criteria-schema.md): a
 * hand-written JSON file of checks ("every GPU reaches 600 TFLOP/s in fp16
 * GEMM") and threshold overrides. Each check is evaluated against every
 * case it matches and becomes a pass/fail test case in junit.xml and a
 * failure-level finding for every case (or rank) that misses it.
 *
 * Reading is strict, because the file is written by hand: unknown fields,
 * unknown metrics and misspelt thresholds are errors, each reported as
 * "file:line:column: path: problem". The file's syntax is read at the edge
 * (reports/document/criteria_file.c), which fills the typed criteria
 * below; evaluation (criteria_eval.c) reads only the documents' typed
 * models.
 */
#ifndef GCB_CRITERIA_H
#define GCB_CRITERIA_H

#include <stdbool.h>

#include "reports/analysis/analyze.h"
#include "reports/document/model.h"
#include "reports/document/ranks.h"

#define GCB_CRITERIA_SCHEMA "gcbench.criteria/1"
#define GCB_MAX_BOUNDS 16

/* Where a miss of a case-wide metric lies. */
enum gcb_metric_at {
  GCB_AT_CASE,      /* the case: its document */
  GCB_AT_LATE_RANK, /* the case's late rank (summary.late_rank) when the
                       document names one, else the case */
};

/* A figure a check can bound, computed from a typed case (model.h) of
 * document doc (NULL: none) and, for per-rank metrics, entry i of its
 * per-rank columns (where it has any). */
struct gcb_metric {
  const char *name; /* "median", "per_rank", "imbalance_pct" */
  const char *what; /* for docs and messages */
  bool per_rank;    /* evaluated for each rank: failures name the rank */
  const char *unit; /* NULL: the case's unit */
  /* The document is for figures that join several of its cases (the
   * training patterns' parts). */
  double (*value)(const struct gcb_model *doc, const struct gcb_model_case *c,
                  size_t i);
  /* A case-wide metric's miss (per_rank false): where it lies. Arrival
   * lateness and imbalance are what the document states of the case (of
   * its communicator); the rank it blames is its late rank, never the
   * rank whose figure happens to be lowest. */
  enum gcb_metric_at at;
};

/* Training-pattern metrics (criteria_pattern.c), rows of gcb_metrics:
 * X(name, group, type, field), the figure `field` of a rank's entry or
 * (group true) of the group in the pattern view's struct `type`. */
#define GCB__PATTERN_METRICS(X)                                                \
  X(overlap, false, gcb_pattern_rank, overlap)                                 \
  X(exposed, false, gcb_pattern_rank, exposed_share)                           \
  X(comp_slowdown, false, gcb_pattern_rank, comp_slowdown)                     \
  X(comm_slowdown, false, gcb_pattern_rank, comm_slowdown)                     \
  X(bubble, false, gcb_pattern_rank, bubble)                                   \
  X(imbalance, true, gcb_pattern_group, step_imbalance)                        \
  X(busy_imbalance, true, gcb_pattern_group, busy_imbalance)                   \
  X(skew_cost, true, gcb_pattern_group, skew_cost)                             \
  X(placement_cost, true, gcb_pattern_group, placement_cost)
#define GCB__PATTERN_METRIC(name, group, type, field)                          \
  double gcb__m_pattern_##name(const struct gcb_model *doc,                    \
                               const struct gcb_model_case *c, size_t i);
GCB__PATTERN_METRICS(GCB__PATTERN_METRIC)
#undef GCB__PATTERN_METRIC

/* The metrics, terminated by a NULL name. */
extern const struct gcb_metric gcb_metrics[];

/* The metric named `name`, or NULL. */
const struct gcb_metric *gcb_metric_find(const char *name);

struct gcb_bound {
  const struct gcb_metric *metric;
  bool is_min; /* true: value >= limit; false: value <= limit */
  double limit;
};

/* A parameter a check asks for: a string or a number. */
struct gcb_check_param {
  const char *key; /* owned by the criteria (gcb_criteria_keep) */
  bool is_num;
  double num;
  const char *str; /* NULL for a number */
};

struct gcb_criterion {
  char name[128];    /* as given, or generated from bench and params */
  const char *bench; /* owned by the criteria (gcb_criteria_keep) */
  struct gcb_check_param *params; /* in the file's order; owned */
  size_t nparams, capparams;
  const char *unit; /* NULL: any unit; owned by the criteria */
  struct gcb_bound bounds[GCB_MAX_BOUNDS];
  size_t nbounds;
};

struct gcb__criteria_string;

struct gcb_criteria {
  const char *path;                 /* owned */
  const char *name;                 /* "" when the file has none; owned */
  struct gcb_thresholds thresholds; /* defaults, overridden by the file */
  struct gcb_criterion *checks;
  size_t nchecks, capchecks;
  struct gcb__criteria_string *strings; /* owns every string above */
  /* Built-in expectations (expect.h): a check or bound that nothing
   * measured is n/a, not a miss; they judge only what the run measured. */
  bool builtin;
};

/* ---- building criteria (the file's reader, built-in expectations) ---- */

/* Empty criteria shown by `path` (copied): no checks, thresholds at
 * gcb_thresholds_default. NULL when memory runs out. */
struct gcb_criteria *gcb_criteria_new(const char *path);

/* A copy of s that cr owns (freed with it); NULL when memory runs out. */
const char *gcb_criteria_keep(struct gcb_criteria *cr, const char *s);

/* A new zeroed check appended to cr->checks (nchecks counts it); NULL when
 * memory runs out. The pointer lasts until the next check is added. */
struct gcb_criterion *gcb_criteria_add_check(struct gcb_criteria *cr);

/* Appends a param to check k: a number (str NULL) or a string, key and
 * string copied into cr. False when memory runs out. */
bool gcb_criterion_add_param(struct gcb_criteria *cr, struct gcb_criterion *k,
                             const char *key, double num, const char *str);

/* Names k after its bench and params: "gemm dtype=fp32 m=256". */
void gcb_criterion_default_name(struct gcb_criterion *k);

/* Whether no run can meet k's bounds (a minimum above the maximum of the
 * same metric, a negative maximum): `what` says why. */
bool gcb_criterion_impossible(const struct gcb_criterion *k, char *what,
                              size_t size);

/* ---- reading (reports/document/criteria_file.c) ----------------------- */

/*
 * Reads and validates a criteria file. Thresholds start from
 * gcb_thresholds_default and take the file's overrides. Errors are
 * GCB_EINPUT with "file:line:column: path: problem" (or "file: what" when
 * it cannot be opened), GCB_ENOMEM. On failure *out is NULL; on success
 * free it with gcb_criteria_free.
 */
enum gcb_status gcb_criteria_read(const char *path, struct gcb_criteria **out,
                                  struct gcb_err *err);

/* Same from a buffer; `name` stands for the file name in messages. */
enum gcb_status gcb_criteria_parse(const char *text, size_t len,
                                   const char *name, struct gcb_criteria **out,
                                   struct gcb_err *err);

/* NULL is a no-op. */
void gcb_criteria_free(struct gcb_criteria *cr);

/* The check's param `key`, or NULL when it names none. */
const struct gcb_check_param *gcb_check_param(const struct gcb_criterion *k,
                                              const char *key);

/* Whether a case's param value `have` is what `want` asks for: a number
 * equal to its number, or a string equal to its string. */
bool gcb_check_param_matches(const struct gcb_check_param *want,
                             const struct gcb_mvalue *have);

/* What happened to one check. */
struct gcb_check_result {
  size_t matched; /* cases the check applied to */
  size_t failed;  /* bounds missed (per rank for per-rank metrics) */
  size_t na;      /* sources that do not measure a bound's metric: n/a */
};

/* What a check came to: fail when a bound was missed, or when it matched
 * no case (a criteria file's check must be run); n/a when built-in
 * expectations' check matched none (nothing judged that was not
 * measured); pass otherwise. Every renderer asks this. */
enum gcb_check_outcome { GCB_CHECK_PASS, GCB_CHECK_FAIL, GCB_CHECK_NA };
enum gcb_check_outcome gcb_check_outcome(const struct gcb_criteria *cr,
                                         const struct gcb_check_result *r);

/*
 * Evaluates every check over every case of docs[0..ndocs), reading their
 * typed models (gcb_doc.model, required): results[i] (the
 * caller provides nchecks entries) counts what check i matched and missed.
 * Each miss, and each check that matched no case, is appended to `out` as
 * a "criterion" finding at failure level with `check` set to the check's
 * index. A bound whose metric a document measures in none of its matching
 * cases (late_us in nccl-tests data) is n/a for that document: one
 * "criterion-na" info finding, never a miss. GCB_ENOMEM when memory runs
 * out.
 */
enum gcb_status gcb_criteria_evaluate(const struct gcb_criteria *cr,
                                      const struct gcb_doc *docs, size_t ndocs,
                                      struct gcb_check_result *results,
                                      struct gcb_findings *out,
                                      struct gcb_err *err);

#endif
