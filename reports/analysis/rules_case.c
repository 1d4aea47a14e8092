/*
 * Rules over each case of a document: validation failures, unvalidated
 * cases, slow ranks (robust outliers among per-device figures) and jittery
 * ranks (robust outliers in the time their slow iterations add). Each
 * finds nothing in a case that lacks its data. Load imbalance and late
 * arrivals, which are summed up over a document's cases, are in
 * rules_sweep.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"
#include "reports/analysis/diagnose.h"

typedef enum gcb_status (*case_fn)(const struct gcb__rule_ctx *cx,
                                   const struct gcb_model_case *c);

static enum gcb_status each_case(const struct gcb__rule_ctx *cx, case_fn fn) {
  const struct gcb_model *m = cx->doc->model;
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < m->ncases && st == GCB_OK; i++)
    st = fn(cx, &m->cases[i]);
  return st;
}

static enum gcb_status wrong_case(const struct gcb__rule_ctx *cx,
                                  const struct gcb_model_case *c) {
  size_t ranks_wrong = 0;
  for (size_t i = 0; i < c->ranks.n; i++) {
    long long wrong = gcb_model_col_int(c, GCB_RC_WRONG, i, 0);
    double err = gcb_model_col(c, GCB_RC_MAX_ERROR, i);
    double tol = gcb_model_col(c, GCB_RC_TOLERANCE, i);
    if (wrong <= 0 && err > tol) { /* what counts wrong values disagrees */
      struct gcb_finding *f = gcb__rule_push_case(
          cx, GCB_SEV_FAIL, c, gcb_model_col_rank(c, i, (long long)i));
      if (f == NULL)
        return GCB_ENOMEM;
      ranks_wrong++;
      gcb_finding_figures(f, err, tol, "");
      gcb_finding_explain(f,
                          "its largest error %g is past its tolerance %g, "
                          "yet it counts no wrong value (%s)",
                          err, tol, gcb_model_col_str(c, GCB_RC_METHOD, i));
      gcb__rule_suggest(f);
      continue;
    }
    if (wrong <= 0)
      continue;
    struct gcb_finding *f = gcb__rule_push_case(
        cx, GCB_SEV_FAIL, c, gcb_model_col_rank(c, i, (long long)i));
    if (f == NULL)
      return GCB_ENOMEM;
    ranks_wrong++;
    gcb_finding_figures(f, (double)wrong, 0, "values");
    gcb_finding_explain(f,
                        "%lld of %lld checked values wrong (largest error "
                        "%g, tolerance %g; %s)",
                        wrong, gcb_model_col_int(c, GCB_RC_SAMPLES, i, 0),
                        gcb_model_col(c, GCB_RC_MAX_ERROR, i),
                        gcb_model_col(c, GCB_RC_TOLERANCE, i),
                        gcb_model_col_str(c, GCB_RC_METHOD, i));
    gcb__rule_suggest(f);
  }
  double wrong = c->summary.wrong;
  long long total = isnan(wrong) ? 0 : (long long)wrong;
  if (c->validation.wrong > total) /* the case's own count, where its */
    total = c->validation.wrong;   /* summary says fewer: still wrong */
  if (total > 0 && ranks_wrong == 0) {
    struct gcb_finding *f = gcb__rule_push_case(cx, GCB_SEV_FAIL, c, -1);
    if (f == NULL)
      return GCB_ENOMEM;
    gcb_finding_figures(f, (double)total, 0, "");
    gcb_finding_explain(f, "%lld wrong values in the case", total);
  } else if (ranks_wrong == 0 && c->validation.checked &&
             c->validation.passed_present && !c->validation.passed) {
    struct gcb_finding *f = gcb__rule_push_case(cx, GCB_SEV_FAIL, c, -1);
    if (f == NULL)
      return GCB_ENOMEM;
    gcb_finding_explain(f, "the case's validation did not pass "
                           "(validation.passed is false), though it counts "
                           "no wrong value");
  }
  return GCB_OK;
}

enum gcb_status gcb__rule_validation(const struct gcb__rule_ctx *cx) {
  return each_case(cx, wrong_case);
}

static enum gcb_status unchecked_case(const struct gcb__rule_ctx *cx,
                                      const struct gcb_model_case *c) {
  /* Another tool's figures (converted, imported) are shown "not
   * validated" case by case; --no-check is no advice for them. */
  if (c->validation.checked || strcmp(cx->doc->model->run.tool, "gcbench") != 0)
    return GCB_OK;
  struct gcb_finding *f = gcb__rule_push_case(cx, GCB_SEV_INFO, c, -1);
  if (f == NULL)
    return GCB_ENOMEM;
  gcb_finding_explain(f, "the case's results were not checked on every rank");
  gcb__rule_suggest(f);
  return GCB_OK;
}

enum gcb_status gcb__rule_not_validated(const struct gcb__rule_ctx *cx) {
  return each_case(cx, unchecked_case);
}

/* What NVML said about the rank's GPU: while the case ran (its per-rank
 * telemetry: clocks, power, throttle reasons), else when the run started
 * (nodes[].gpus[].throttle, only when it was slowed); "" without either. */
static void throttle_text(const struct gcb__rule_ctx *cx,
                          const struct gcb_model_case *c,
                          const struct gcb_finding *f, char *buf, size_t size) {
  long long i = gcb_model_col_find(c, f->where.rank);
  double sm = i >= 0 ? gcb_model_col(c, GCB_RC_TELEM_SM_MEAN, (size_t)i) : NAN;
  buf[0] = '\0';
  if (!isnan(sm)) {
    double lo = gcb_model_col(c, GCB_RC_TELEM_SM_MIN, (size_t)i);
    double watts = gcb_model_col(c, GCB_RC_TELEM_POWER_MAX, (size_t)i);
    const char *why = gcb_model_col_str(c, GCB_RC_TELEM_THROTTLE, (size_t)i);
    int n = snprintf(buf, size,
                     "; during the case its SM clock averaged "
                     "%.0f MHz (lowest %.0f)",
                     sm, lo);
    if (n > 0 && (size_t)n < size && !isnan(watts))
      n += snprintf(buf + n, size - (size_t)n, ", power up to %.0f W", watts);
    if (n > 0 && (size_t)n < size && why[0] != '\0')
      snprintf(buf + n, size - (size_t)n, ", NVML throttle reasons: %s", why);
    return;
  }
  const struct gcb_model_health *h =
      gcb_model_health_by_busid(cx->doc->model, f->where.node, f->where.bus_id);
  if (h != NULL && h->throttle_slowed)
    snprintf(buf, size, "; NVML throttle reasons: %s", h->throttle_reasons);
}

static enum gcb_status slow_finding(const struct gcb__rule_ctx *cx,
                                    const struct gcb_model_case *c,
                                    long long rank, double x, double median,
                                    size_t n) {
  double below = 1 - x / median;
  enum gcb_severity sev =
      below * 100 > cx->t->slow_rank_fail_pct ? GCB_SEV_FAIL : GCB_SEV_WARN;
  struct gcb_finding *f = gcb__rule_push_case(cx, sev, c, rank);
  if (f == NULL)
    return GCB_ENOMEM;
  const char *unit = c->unit;
  gcb_finding_figures(f, x, median, unit);
  f->cost = below;
  char xs[48], ms[48], why[256];
  gcb_fmt_scaled(x, unit, xs, sizeof xs);
  gcb_fmt_scaled(median, unit, ms, sizeof ms);
  throttle_text(cx, c, f, why, sizeof why);
  gcb_finding_explain(f,
                      "rank %lld reaches %s, %.1f%% below the median "
                      "of %zu ranks (%s); a synchronous job runs at the "
                      "slowest rank's pace%s",
                      rank, xs, below * 100, n, ms, why);
  if (why[0] != '\0') /* "; during the case ..." */
    gcb_analyze_copy(f->evidence, sizeof f->evidence, why + 2);
  gcb_finding_suggest(f, "%s", gcb_bench_kind_desc(c->kind)->slow_hint);
  return GCB_OK;
}

static enum gcb_status slow_case(const struct gcb__rule_ctx *cx,
                                 const struct gcb_model_case *c) {
  size_t i, n = c->ranks.n;
  if (!gcb_kind_applies(cx->kind, c->kind) || n == 0)
    return GCB_OK;
  double *x = malloc(n * sizeof *x);
  bool *flags = malloc(n * sizeof *flags);
  enum gcb_status st = GCB_OK;
  if (x == NULL || flags == NULL) {
    st = gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
    goto done;
  }
  for (i = 0; i < n; i++)
    x[i] = gcb_model_col(c, GCB_RC_FIG_MEDIAN, i);
  double median;
  gcb_analyze_slow(x, n, cx->t, flags, &median);
  for (i = 0; i < n && st == GCB_OK; i++)
    if (flags[i])
      st = slow_finding(cx, c, gcb_model_col_rank(c, i, (long long)i), x[i],
                        median, n);
done:
  free(x);
  free(flags);
  return st;
}

enum gcb_status gcb__rule_slow_rank(const struct gcb__rule_ctx *cx) {
  return each_case(cx, slow_case);
}

/* ---- jittery ranks ------------------------------------------------------ */

/* The fewest iterations whose times say how they vary. */
#define JITTER_MIN_ITERATIONS 5

/* The share of entry i's time its slow iterations add: the mean of its
 * iteration times, the worst one left out, over their median, less 1. The
 * worst alone is no pattern (a daemon's wake-up, the first iteration
 * after warm-up); its median is what the slow-rank rule judges. NAN
 * without enough iterations. */
static double added_share(const struct gcb_model_case *c, size_t i) {
  double n = gcb_model_col(c, GCB_RC_TIME_N, i);
  double median = gcb_model_col(c, GCB_RC_TIME_MEDIAN, i);
  if (!(n >= JITTER_MIN_ITERATIONS) || !(median > 0))
    return NAN;
  double mean = gcb_model_col(c, GCB_RC_TIME_MEAN, i);
  double worst = gcb_model_col(c, GCB_RC_TIME_MAX, i);
  return (n * mean - worst) / (n - 1) / median - 1;
}

static enum gcb_status jitter_finding(const struct gcb__rule_ctx *cx,
                                      const struct gcb_model_case *c, size_t i,
                                      double share, double typical, size_t n) {
  double cost = share - typical;
  enum gcb_severity sev =
      cost * 100 > cx->t->slow_rank_fail_pct ? GCB_SEV_FAIL : GCB_SEV_WARN;
  long long rank = gcb_model_col_rank(c, i, (long long)i);
  struct gcb_finding *f = gcb__rule_push_case(cx, sev, c, rank);
  if (f == NULL)
    return GCB_ENOMEM;
  double median = gcb_model_col(c, GCB_RC_TIME_MEDIAN, i);
  double mean = gcb_model_col(c, GCB_RC_TIME_MEAN, i);
  gcb_finding_figures(f, mean, median, "s");
  f->cost = cost;
  char ms[48], ds[48], ps[48], why[256];
  gcb_fmt_scaled(mean, "s", ms, sizeof ms);
  gcb_fmt_scaled(median, "s", ds, sizeof ds);
  gcb_fmt_scaled(gcb_model_col(c, GCB_RC_TIME_P99, i), "s", ps, sizeof ps);
  throttle_text(cx, c, f, why, sizeof why);
  char peers[48] = "none"; /* a mean below its median adds nothing */
  if (typical >= 0.0005)
    snprintf(peers, sizeof peers, "%.1f%%", typical * 100);
  gcb_finding_explain(f,
                      "rank %lld loses %.1f%% of its time to slow "
                      "iterations: %s on average against a median of %s, "
                      "p99 %s, over %lld iterations (the median of %zu "
                      "ranks loses %s); a synchronous job waits for each "
                      "slow one%s",
                      rank, share * 100, ms, ds, ps,
                      gcb_model_col_int(c, GCB_RC_TIME_N, i, 0), n, peers, why);
  if (why[0] != '\0') /* "; during the case ..." */
    gcb_analyze_copy(f->evidence, sizeof f->evidence, why + 2);
  gcb__rule_suggest(f);
  return GCB_OK;
}

/* The ranks whose slow iterations add more of their time than their
 * peers' do: a robust high outlier by more than slow_rank_pct %, among
 * the ranks with CPUs of their own. */
static enum gcb_status jitter_case(const struct gcb__rule_ctx *cx,
                                   const struct gcb_model_case *c) {
  size_t n = c->ranks.n, k = 0;
  if (!gcb_kind_applies(cx->kind, c->kind) || n == 0)
    return GCB_OK;
  double *x = malloc(n * sizeof *x);
  size_t *entry = malloc(n * sizeof *entry);
  bool *flags = malloc(n * sizeof *flags);
  enum gcb_status st = GCB_OK;
  if (x == NULL || entry == NULL || flags == NULL) {
    st = gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
    goto done;
  }
  /* A rank that shares its cores waits for them now and then: its
   * placement finding says why. */
  const struct gcb_model *m = cx->doc->model;
  for (size_t i = 0; i < n; i++)
    if (gcb__rank_has_own_cpus(m, gcb_model_col_rank(c, i, (long long)i)) &&
        !isnan(x[k] = added_share(c, i)))
      entry[k++] = i;
  double typical;
  gcb_analyze_outliers(x, k, +1, cx->t, flags, &typical);
  for (size_t j = 0; j < k && st == GCB_OK; j++)
    if (flags[j] && (x[j] - typical) * 100 > cx->t->slow_rank_pct)
      st = jitter_finding(cx, c, entry[j], x[j], typical, k);
done:
  free(x);
  free(entry);
  free(flags);
  return st;
}

enum gcb_status gcb__rule_jitter(const struct gcb__rule_ctx *cx) {
  return each_case(cx, jitter_case);
}
