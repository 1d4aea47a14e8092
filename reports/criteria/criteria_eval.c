/*
 * Evaluating acceptance criteria: the metric table (what a check can bound)
 * and the loop that applies every check to every matching case. A metric
 * is one row; figures that later benchmarks add (busbw, arrival skew) are
 * new rows reading their own fields.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reports/analysis/diagnose.h"
#include "reports/criteria/criteria.h"
#include "reports/document/model.h"
#include "reports/document/p2p_view.h"
#include "reports/document/ranks.h"

/* A metric of case c: the same for every rank when read off its summary,
 * else of entry i of its per-rank columns. */
#define METRIC(fn, expr)                                                       \
  static double fn(const struct gcb_model *doc,                                \
                   const struct gcb_model_case *c, size_t i) {                 \
    (void)doc, (void)i;                                                        \
    return expr;                                                               \
  }

METRIC(m_median, c->summary.median)
METRIC(m_mean, c->summary.mean)
METRIC(m_min, c->summary.min)
METRIC(m_max, c->summary.max)

/* A case without per-rank entries (a tool that reports only the average
 * over ranks) has its summary stand in for the per-rank metrics. */
METRIC(m_per_rank, c->ranks.n > 0 ? gcb_model_col(c, GCB_RC_FIG_MEDIAN, i)
                                  : c->summary.median)
METRIC(m_imbalance, c->summary.imbalance * 100)
METRIC(m_cv, c->summary.mean > 0 ? c->summary.stdev / c->summary.mean * 100 : 0)
METRIC(m_time_us, c->ranks.n > 0 ? gcb_model_col(c, GCB_RC_TIME_MEDIAN, i) * 1e6
                                 : c->summary.time_mean * 1e6)
METRIC(m_wrong, c->summary.wrong)
METRIC(m_busbw, c->summary.busbw)
METRIC(m_algbw, c->summary.algbw)
METRIC(m_late_us, c->summary.late_mean_s * 1e6)

/* A figure another tool printed (nccl-tests' Avg bus bandwidth,
 * nvbandwidth's SUM and latencies, OSU's point-to-point figures): the
 * value of an "imported" case, NAN for any other, so that a check naming
 * it can only pass on what the tool printed. */
METRIC(m_figure, c->kind == GCB_BENCH_IMPORTED ? c->summary.median : NAN)
#undef METRIC

/* Metrics a check can bound. Collective figures are NAN in other cases,
 * and NAN never meets a bound: a busbw check on a gemm case fails loudly
 * rather than passing. */
const struct gcb_metric gcb_metrics[] = {
    {"median", "median over ranks of the figure", false, NULL, m_median,
     GCB_AT_CASE},
    {"mean", "mean over ranks of the figure", false, NULL, m_mean, GCB_AT_CASE},
    {"min", "lowest rank's figure", false, NULL, m_min, GCB_AT_CASE},
    {"max", "highest rank's figure", false, NULL, m_max, GCB_AT_CASE},
    {"per_rank", "every rank's figure (failures name the rank)", true, NULL,
     m_per_rank, GCB_AT_CASE},
    {"imbalance_pct", "(max - mean) / max of per-rank times", false, "%",
     m_imbalance, GCB_AT_LATE_RANK},
    {"cv_pct", "stdev / mean of the ranks' figures", false, "%", m_cv,
     GCB_AT_CASE},
    {"time_us", "every rank's median time per operation", true, "us", m_time_us,
     GCB_AT_CASE},
    {"wrong", "wrong values, summed over ranks", false, "values", m_wrong,
     GCB_AT_CASE},
    {"busbw", "bus bandwidth (collectives, nccl-tests)", false, "GB/s", m_busbw,
     GCB_AT_CASE},
    {"algbw", "algorithm bandwidth (collectives)", false, "GB/s", m_algbw,
     GCB_AT_CASE},
    /* The lateness of the latest rank: its miss lies at that rank when the
     * case names it, as the diagnosis places it (issue 26). */
    {"late_us", "mean lateness of the latest rank (collectives)", false, "us",
     m_late_us, GCB_AT_LATE_RANK},
    {"figure", "a figure as another tool printed it (imported cases)", false,
     NULL, m_figure, GCB_AT_CASE},
    /* Training patterns (docs/PATTERNS.md), on any part case of a
     * pattern variant (NAN elsewhere). */
    {"pattern_overlap_pct",
     "overlap per rank, 0-100 (pattern; none when not measurable)", true, "%",
     gcb__m_pattern_overlap, GCB_AT_CASE},
    {"pattern_exposed_pct",
     "exposed communication share of the step per rank (pattern)", true, "%",
     gcb__m_pattern_exposed, GCB_AT_CASE},
    {"pattern_compute_slowdown_pct",
     "compute slowed by communication, per rank (pattern)", true, "%",
     gcb__m_pattern_comp_slowdown, GCB_AT_CASE},
    {"pattern_comm_slowdown_pct",
     "communication slowed by compute, per rank (pattern)", true, "%",
     gcb__m_pattern_comm_slowdown, GCB_AT_CASE},
    {"pattern_bubble_pct", "pipeline bubble per rank (pattern pp)", true, "%",
     gcb__m_pattern_bubble, GCB_AT_CASE},
    {"pattern_imbalance_pct", "step imbalance (max - mean) / max (pattern)",
     false, "%", gcb__m_pattern_imbalance, GCB_AT_CASE},
    {"pattern_compute_imbalance_pct",
     "imbalance of compute within the step: the straggler's margin (pattern)",
     false, "%", gcb__m_pattern_busy_imbalance, GCB_AT_CASE},
    {"pattern_skew_cost_pct", "step slowdown under routing skew (pattern ep)",
     false, "%", gcb__m_pattern_skew_cost, GCB_AT_CASE},
    {"pattern_placement_cost_pct",
     "step slowdown of tp across nodes (pattern tp, outer)", false, "%",
     gcb__m_pattern_placement_cost, GCB_AT_CASE},
    {NULL, NULL, false, NULL, NULL, GCB_AT_CASE},
};

const struct gcb_metric *gcb_metric_find(const char *name) {
  for (const struct gcb_metric *m = gcb_metrics; m->name; m++)
    if (strcmp(m->name, name) == 0)
      return m;
  return NULL;
}

bool gcb_check_param_matches(const struct gcb_check_param *want,
                             const struct gcb_mvalue *have) {
  if (want->is_num)
    return (have->type == GCB_MV_INT || have->type == GCB_MV_REAL) &&
           want->num == have->num;
  return have->type == GCB_MV_STRING && strcmp(want->str, have->text) == 0;
}

/* The path class of a p2p case that does not record one, from the
 * topology of the node that measured its first per-rank entry (the walk
 * of p2p_view.h, which alone reads that entry without scratch); "" when
 * unknown, as for a negative params.node, which names no node. */
static const char *derived_path(const struct gcb_model *doc,
                                const struct gcb_model_case *c) {
  struct gcb__p2p_walk it;
  struct gcb__p2p_pair p;
  if (doc == NULL || !gcb__p2p_walk_begin(&it, doc, c, NULL, 0) ||
      !gcb__p2p_walk_next(&it, &p))
    return "";
  return gcb_model_pair_class(gcb_model_node(doc, p.node), p.src, p.dst);
}

/* True when a case of document `doc` matches a check: same bench (or the
 * check's bench is "*": every benchmark, "no wrong results anywhere"),
 * every check param present with an equal value (numbers compared as
 * numbers), same unit if given. A p2p case that records no "path" matches
 * a check's path by the class the document's topology gives the pair (on
 * the node that measured it); doc may be NULL. */
static bool matches(const struct gcb_criterion *k,
                    const struct gcb_model_case *c,
                    const struct gcb_model *doc) {
  if (strcmp(k->bench, "*") != 0 && strcmp(k->bench, c->bench) != 0)
    return false;
  if (k->unit != NULL && strcmp(k->unit, c->unit) != 0)
    return false;
  for (size_t p = 0; p < k->nparams; p++) {
    const struct gcb_check_param *want = &k->params[p];
    const struct gcb_mvalue *have = gcb_mvalue_get(&c->params, want->key);
    struct gcb_mvalue derived = {.type = GCB_MV_STRING, .num = NAN};
    if (have->type == GCB_MV_ABSENT && strcmp(want->key, "path") == 0 &&
        (derived.text = derived_path(doc, c))[0] != '\0')
      have = &derived;
    if (!gcb_check_param_matches(want, have))
      return false;
  }
  return true;
}

const struct gcb_check_param *gcb_check_param(const struct gcb_criterion *k,
                                              const char *key) {
  for (size_t i = 0; i < k->nparams; i++)
    if (strcmp(k->params[i].key, key) == 0)
      return &k->params[i];
  return NULL;
}

/* Where an evaluation is, for the findings it makes. */
struct eval {
  const struct gcb_criteria *cr;
  size_t check;
  int doc;
  const struct gcb_model *m;
  const struct gcb_model_case *c;
  struct gcb_check_result *result;
  struct gcb_findings *out;
  struct gcb_err *err;
  bool judged[GCB_MAX_BOUNDS]; /* some document could evaluate the bound */
};

/* A finding of kind `kind` (criterion: fail; criterion-na: info, counted)
 * about the current check and metric (NULL: the whole check), its subject
 * the check's name; NULL when memory runs out. */
static struct gcb_finding *
push_check(struct eval *ev, const struct gcb_kind *kind, const char *metric) {
  const struct gcb_criterion *k = &ev->cr->checks[ev->check];
  struct gcb_finding *f = gcb_findings_push(
      ev->out, kind == GCB_KIND(CRITERION) ? GCB_SEV_FAIL : GCB_SEV_INFO, kind);
  if (f == NULL)
    return NULL;
  ev->result->na += kind == GCB_KIND(CRITERION_NA);
  f->check = (int)ev->check;
  f->metric = metric;
  gcb_view_copy(f->where.subject, sizeof f->where.subject, k->name);
  return f;
}

/* A miss of bound b by value v: of entry `rank` for a per-rank metric
 * (named in the text), -1 for a case-wide one, placed at the case's late
 * rank when its metric lies there (gcb_metric.at), else at the case. */
static enum gcb_status miss(struct eval *ev, const struct gcb_bound *b,
                            double v, long long rank) {
  const struct gcb_criterion *k = &ev->cr->checks[ev->check];
  struct gcb_finding *f = push_check(ev, GCB_KIND(CRITERION), b->metric->name);
  if (f == NULL)
    return gcb_err_set(ev->err, GCB_ENOMEM, "criteria: out of memory");
  ev->result->failed++;
  long long at = rank;
  if (at < 0 && b->metric->at == GCB_AT_LATE_RANK)
    at = ev->c->summary.late_rank;
  if (at >= 0)
    gcb_finding_at_model_rank(f, ev->doc, ev->m, at);
  f->where.doc = ev->doc;
  gcb_model_case_title(ev->c, f->where.subject, sizeof f->where.subject);
  const char *unit = b->metric->unit ? b->metric->unit : ev->c->unit;
  f->bench_case = ev->c;
  gcb_finding_figures(f, v, b->limit, unit);
  char where[32] = "";
  if (rank >= 0)
    snprintf(where, sizeof where, " of rank %lld", rank);
  /* Both in the unit that suits the limit, with enough digits to show
   * why it fails: "20.00001 us, above the maximum 20 us". */
  const char *shown;
  double scale = gcb_unit_scale(fabs(b->limit), unit, &shown);
  char vs[40], ls[40];
  gcb_fmt_against(v * scale, b->limit * scale, vs, sizeof vs);
  gcb_view_fmt(b->limit * scale, ls, sizeof ls);
  if (isnan(v))
    gcb_finding_explain(f,
                        "check '%s': the case has no %s%s (not measured), so "
                        "it cannot meet the %s %s %s",
                        k->name, b->metric->name, where,
                        b->is_min ? "minimum" : "maximum", ls, shown);
  else
    gcb_finding_explain(f, "check '%s': %s%s is %s %s, %s the %s %s %s",
                        k->name, b->metric->name, where, vs, shown,
                        b->is_min ? "below" : "above",
                        b->is_min ? "minimum" : "maximum", ls, shown);
  gcb_finding_suggest(f, "rerun to confirm; then look at this case's other "
                         "findings (slow rank, placement) for the cause");
  return GCB_OK;
}

static bool meets(const struct gcb_bound *b, double v) {
  return b->is_min ? v >= b->limit : v <= b->limit; /* NAN never meets */
}

/* How many values metric m has in case c: a case-wide metric one, a
 * per-rank one a value per entry (one where the case has none). */
static size_t values_in(const struct gcb_metric *m,
                        const struct gcb_model_case *c) {
  return m->per_rank && c->ranks.n > 0 ? c->ranks.n : 1;
}

static enum gcb_status eval_bound(struct eval *ev, const struct gcb_bound *b) {
  bool per = b->metric->per_rank && ev->c->ranks.n > 0;
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < values_in(b->metric, ev->c) && st == GCB_OK; i++) {
    double v = b->metric->value(ev->m, ev->c, i);
    if (!meets(b, v))
      st =
          miss(ev, b, v, per ? gcb_model_col_rank(ev->c, i, (long long)i) : -1);
  }
  return st;
}

/* Whether any case of document m matches check k; measured[b]: whether
 * the document measures bound b's metric in any of them. A source that
 * does not (nccl-tests has no arrival skew, so no late_us) cannot be
 * judged on it, which is "n/a", not a failure. */
static bool survey(const struct gcb_criterion *k, const struct gcb_model *m,
                   bool *measured) {
  bool any = false;
  for (size_t i = 0; i < m->ncases; i++) {
    const struct gcb_model_case *c = &m->cases[i];
    if (!matches(k, c, m))
      continue;
    any = true;
    for (size_t b = 0; b < k->nbounds; b++) {
      const struct gcb_metric *mt = k->bounds[b].metric;
      for (size_t r = 0; r < values_in(mt, c) && !measured[b]; r++)
        measured[b] = !isnan(mt->value(m, c, r));
    }
  }
  return any;
}

static enum gcb_status not_applicable(struct eval *ev, const struct gcb_doc *d,
                                      const struct gcb_bound *b) {
  const struct gcb_criterion *k = &ev->cr->checks[ev->check];
  struct gcb_finding *f =
      push_check(ev, GCB_KIND(CRITERION_NA), b->metric->name);
  if (f == NULL)
    return gcb_err_set(ev->err, GCB_ENOMEM, "criteria: out of memory");
  f->where.doc = ev->doc;
  gcb_finding_explain(f, "check '%s': n/a for %s, which does not measure %s",
                      k->name, d->name, b->metric->name);
  gcb_finding_suggest(
      f, "judge %s with a source that measures it (gcbench's own run)",
      b->metric->name);
  return GCB_OK;
}

static enum gcb_status eval_doc(struct eval *ev, const bool *measured) {
  const struct gcb_criterion *k = &ev->cr->checks[ev->check];
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < ev->m->ncases && st == GCB_OK; i++) {
    const struct gcb_model_case *c = &ev->m->cases[i];
    if (!matches(k, c, ev->m))
      continue;
    ev->c = c;
    ev->result->matched++;
    for (size_t b = 0; b < k->nbounds && st == GCB_OK; b++)
      if (measured[b])
        st = eval_bound(ev, &k->bounds[b]);
  }
  return st;
}

static enum gcb_status eval_docs(struct eval *ev, const struct gcb_doc *docs,
                                 size_t ndocs) {
  const struct gcb_criterion *k = &ev->cr->checks[ev->check];
  enum gcb_status st = GCB_OK;
  for (size_t d = 0; d < ndocs && st == GCB_OK; d++) {
    bool measured[GCB_MAX_BOUNDS] = {false};
    ev->doc = (int)d;
    ev->m = docs[d].model;
    bool matched = survey(k, ev->m, measured);
    for (size_t b = 0; b < k->nbounds && st == GCB_OK; b++) {
      ev->judged[b] |= measured[b];
      if (!measured[b] && matched)
        st = not_applicable(ev, &docs[d], &k->bounds[b]);
    }
    if (st == GCB_OK)
      st = eval_doc(ev, measured);
  }
  return st;
}

/* Under built-in expectations, a check or bound nothing measured is n/a:
 * they hold a check for every figure of the GPU model, and a run that did
 * not measure one (a health check runs no NVLink copy) is not failed. */
static enum gcb_status builtin_na(struct eval *ev, const char *metric) {
  const struct gcb_criterion *k = &ev->cr->checks[ev->check];
  struct gcb_finding *f = push_check(ev, GCB_KIND(CRITERION_NA), metric);
  if (f == NULL)
    return gcb_err_set(ev->err, GCB_ENOMEM, "criteria: out of memory");
  gcb_finding_explain(f, "check '%s': n/a, the run did not measure it",
                      k->name);
  gcb_finding_suggest(f, "run the benchmark at that size to be judged on it "
                         "(gcbench suite --profile acceptance)");
  return GCB_OK;
}

/* A check that matched nothing fails: acceptance must not pass because
 * the benchmark it asks about was never run. */
static enum gcb_status unmatched(struct eval *ev) {
  const struct gcb_criterion *k = &ev->cr->checks[ev->check];
  if (ev->cr->builtin)
    return builtin_na(ev, NULL);
  struct gcb_finding *f = push_check(ev, GCB_KIND(CRITERION), NULL);
  if (f == NULL)
    return gcb_err_set(ev->err, GCB_ENOMEM, "criteria: out of memory");
  gcb_finding_explain(f, "check '%s' matched no case (bench %s%s%s)", k->name,
                      k->bench, k->unit ? ", unit " : "",
                      k->unit ? k->unit : "");
  gcb_finding_suggest(f, "run the benchmark the check asks for, or fix the "
                         "check's bench, params or unit");
  return GCB_OK;
}

/* A bound no document could evaluate fails, as a check that matched
 * nothing does: acceptance must not pass on a figure nobody measured (a
 * busbw bound on gemm cases is a mistake in the file, said loudly). */
static enum gcb_status never_judged(struct eval *ev) {
  const struct gcb_criterion *k = &ev->cr->checks[ev->check];
  for (size_t b = 0; b < k->nbounds; b++) {
    if (ev->judged[b])
      continue;
    /* Said once: a source that lacks the figure already is n/a for it. */
    if (ev->cr->builtin) {
      enum gcb_status st = ev->result->na > 0
                               ? GCB_OK
                               : builtin_na(ev, k->bounds[b].metric->name);
      if (st != GCB_OK)
        return st;
      continue;
    }
    struct gcb_finding *f =
        push_check(ev, GCB_KIND(CRITERION), k->bounds[b].metric->name);
    if (f == NULL)
      return gcb_err_set(ev->err, GCB_ENOMEM, "criteria: out of memory");
    ev->result->failed++;
    gcb_finding_explain(f,
                        "check '%s': no document measures %s in the %zu "
                        "case(s) the check matches",
                        k->name, k->bounds[b].metric->name,
                        ev->result->matched);
    gcb_finding_suggest(
        f, "bound a figure these cases have (see docs/criteria-schema.md), or "
           "run a source that measures it");
  }
  return GCB_OK;
}

enum gcb_check_outcome gcb_check_outcome(const struct gcb_criteria *cr,
                                         const struct gcb_check_result *r) {
  if (r->failed > 0 || (r->matched == 0 && !cr->builtin))
    return GCB_CHECK_FAIL;
  return r->matched == 0 ? GCB_CHECK_NA : GCB_CHECK_PASS;
}

enum gcb_status gcb_criteria_evaluate(const struct gcb_criteria *cr,
                                      const struct gcb_doc *docs, size_t ndocs,
                                      struct gcb_check_result *results,
                                      struct gcb_findings *out,
                                      struct gcb_err *err) {
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < cr->nchecks && st == GCB_OK; i++) {
    struct eval ev = {
        .cr = cr, .check = i, .result = &results[i], .out = out, .err = err};
    results[i] = (struct gcb_check_result){0};
    st = eval_docs(&ev, docs, ndocs);
    if (st == GCB_OK && results[i].matched == 0)
      st = unmatched(&ev);
    else if (st == GCB_OK)
      st = never_judged(&ev);
  }
  return st;
}
