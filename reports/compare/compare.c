/*
 * Baseline comparison. Cases are matched by gcb_model_case_key (bench,
 * sorted params, unit). Each matched case is compared on two metrics: the
 * median over ranks (the typical GPU) and the slowest rank (what a
 * synchronous job runs at), so one GPU that got slower is caught even when
 * the median did not move.
 *
 * The noise rule (docs/REPORTS.md): a run's relative noise for a case is
 * the larger of the robust cross-rank spread of the figures and the median
 * over ranks of each rank's relative stdev of its sample times (case_noise);
 * the band is noise_sigmas * sqrt(old^2 + new^2). A change is a regression only
 * when it is worse than both the threshold and the band. The run-to-run
 * differences (notes) are in compare_notes.c.
 */
#include "reports/compare/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "reports/analysis/diagnose.h"
#include "reports/compare/compare_notes.h"
#include "reports/document/model.h"
#include "reports/document/stats.h"
#include "reports/document/view.h"

const char *gcb_verdict_name(enum gcb_verdict v) {
  static const char *const names[] = {
      "same",        "within noise", "better",   "REGRESSION",
      "only in old", "only in new",  "MPI mode", "not judged"};
  return v <= GCB_VERDICT_UNJUDGED ? names[v] : "?";
}

/* Units where a smaller number is better (times); figures are rates. */
static bool lower_is_better(const char *unit) {
  static const char *const units[] = {"s", "ms", "us", "µs", "ns", NULL};
  for (const char *const *u = units; *u; u++)
    if (strcmp(*u, unit) == 0)
      return true;
  return false;
}

/* The median of the ranks' figures, or the slowest rank's (the least
 * rate, the longest time). */
static double summary_value(const struct gcb_model_summary *s, bool slowest,
                            bool lower) {
  if (!slowest)
    return s->median;
  return lower ? s->max : s->min;
}

/* How far rank i's figure time lies above the slowest of its own samples
 * (figure_time / max - 1; 0 when within them). A collective's figure is
 * the mean of a timed loop and its samples a separate per-call pass: a
 * loop far above every call of that pass caught a time slice the calls
 * did not (7 ms against 2 us per call on the shared development VM). A
 * rate benchmark's figure time is its median sample: always 0. */
static double loop_off(const struct gcb_model_case *c, size_t i) {
  double fig_t = gcb_model_col(c, GCB_RC_FIGURE_TIME, i);
  double max = gcb_model_col(c, GCB_RC_TIME_MAX, i);
  return fig_t > max && max > 0 ? fig_t / max - 1 : 0;
}

/*
 * One run's relative noise for a case, the largest of what the case
 * recorded:
 *  - the cross-rank spread, 1.4826 * MAD / median of the ranks' figures
 *    (a robust stdev: one slow rank is a finding, not noise, and must not
 *    widen the band that hides a drop of every other rank);
 *  - the largest over ranks of each rank's stdev / median of its sample
 *    times (how much one measurement of this case wanders; the largest, as
 *    the "slowest" metric follows the worst rank, and a rank whose
 *    samples wander is noise where one whose median is off is a finding);
 *  - its largest loop_off over ranks, which no second measurement of the
 *    case can confirm.
 */
static double case_noise(const struct gcb_model_case *c) {
  size_t i, n = c->ranks.n;
  double *fig = malloc(n * sizeof *fig + 1), noise = 0, iters = 0, loop = 0;
  if (fig == NULL)
    goto done; /* no band: the threshold alone decides */
  for (i = 0; i < n; i++) {
    double med = gcb_model_col(c, GCB_RC_TIME_MEDIAN, i);
    double sd = gcb_model_col(c, GCB_RC_TIME_STDEV, i);
    fig[i] = gcb_model_col(c, GCB_RC_FIG_MEDIAN, i);
    if (med > 0 && sd >= 0)
      iters = fmax(iters, sd / med);
    loop = fmax(loop, loop_off(c, i));
  }
  double center = gcb_stats_median(fig, n);
  for (i = 0; i < n; i++)
    fig[i] = fabs(fig[i] - center);
  double ranks = center > 0 ? 1.4826 * gcb_stats_median(fig, n) / center : 0;
  noise = fmax(ranks, fmax(iters, loop));
done:
  free(fig);
  return noise;
}

/* The largest loop_off of any case of each benchmark kind of a run. */
struct run_noise {
  double loop[GCB_BENCH_COUNT];
};

static void run_noise_of(const struct gcb_model *m, struct run_noise *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < m->ncases; i++) {
    const struct gcb_model_case *c = &m->cases[i];
    for (size_t r = 0; r < c->ranks.n; r++)
      out->loop[c->kind] = fmax(out->loop[c->kind], loop_off(c, r));
  }
}

/*
 * The noise band of a case compared across two runs, as a fraction of
 * the value: noise_sigmas * sqrt(old^2 + new^2) of each run's noise, which
 * is the larger of case_noise and the run's own loop disturbance for the
 * case's benchmark (a run whose collective loops were off their calls by
 * K x somewhere cannot tell a K x change of another collective from
 * noise; a quiet machine's loops are within their calls, and add nothing).
 * docs/REPORTS.md, "compare".
 */
static double noise_band(const struct gcb_model_case *oc,
                         const struct gcb_model_case *nc,
                         const struct run_noise *ro, const struct run_noise *rn,
                         const struct gcb_thresholds *t) {
  double no = fmax(case_noise(oc), ro->loop[nc->kind]);
  double nn = fmax(case_noise(nc), rn->loop[nc->kind]);
  return t->noise_sigmas * sqrt(no * no + nn * nn);
}

/* A row about case c (its title, key and unit), nothing compared yet. */
static struct gcb_delta *push_delta(struct gcb_comparison *cmp,
                                    const struct gcb_model_case *c,
                                    const char *key, struct gcb_err *err) {
  if (!gcb_grow((void **)&cmp->deltas, &cmp->caps[0], cmp->ndeltas,
                sizeof *cmp->deltas)) {
    gcb_err_set(err, GCB_ENOMEM, "compare: out of memory");
    return NULL;
  }
  struct gcb_delta *d = &cmp->deltas[cmp->ndeltas++];
  memset(d, 0, sizeof *d);
  d->metric = "-";
  d->old_value = d->new_value = d->change = d->noise = d->threshold = NAN;
  gcb_model_case_title(c, d->title, sizeof d->title);
  gcb_view_copy(d->key, sizeof d->key, key);
  gcb_view_copy(d->unit, sizeof d->unit, c->unit);
  return d;
}

static enum gcb_verdict judge(double change, bool lower, double threshold,
                              double noise) {
  double worse = lower ? change : -change;
  double size = fabs(change);
  if (size <= threshold)
    return GCB_VERDICT_SAME;
  if (size <= noise)
    return GCB_VERDICT_NOISE;
  return worse > 0 ? GCB_VERDICT_REGRESSION : GCB_VERDICT_BETTER;
}

/* What a case is compared on: its figure (median and slowest rank), its
 * time (latency cases: their GB/s says nothing), or, for collectives, the
 * bus bandwidth, which nccl-tests defined to compare across rank counts. */
enum basis { BY_FIGURE, BY_TIME, BY_BUSBW };

static enum basis basis_of(const struct gcb_model_case *c) {
  if (gcb_model_case_is_latency(c))
    return BY_TIME;
  if (!isnan(c->summary.busbw))
    return BY_BUSBW;
  return BY_FIGURE;
}

/* The median (or, slowest, the longest) of the ranks' times, in us. */
static double rank_time_us(const struct gcb_model_case *c, bool slowest) {
  double *t = malloc(c->ranks.n * sizeof *t + 1), v = NAN;
  size_t n = 0;
  for (size_t i = 0; t != NULL && i < c->ranks.n; i++) {
    double x = gcb_analyze_rank_time(c, i);
    if (!isnan(x))
      t[n++] = x * 1e6;
  }
  for (size_t i = 0; slowest && i < n; i++)
    v = fmax(v, t[i]);
  if (n > 0 && !slowest)
    v = gcb_stats_median(t, n);
  if (n == 0 && !slowest) /* a tool's average over ranks only */
    v = c->summary.time_mean * 1e6;
  if (n == 0 && slowest && c->summary.time_max > c->summary.time_mean)
    v = c->summary.time_max * 1e6; /* the tool's slowest rank (OSU -f) */
  free(t);
  return v;
}

/* One compared row: metric `name` with the two values. */
static enum gcb_status row(struct gcb_comparison *cmp,
                           const struct gcb_model_case *nc, const char *key,
                           const char *name, const char *unit, double old_v,
                           double new_v, bool lower, double threshold,
                           double noise, struct gcb_err *err) {
  if (isnan(old_v) && isnan(new_v))
    return GCB_OK; /* neither run has the metric (a tool's average alone) */
  struct gcb_delta *d = push_delta(cmp, nc, key, err);
  if (d == NULL)
    return GCB_ENOMEM;
  gcb_view_copy(d->unit, sizeof d->unit, unit);
  d->metric = name;
  d->old_value = old_v;
  d->new_value = new_v;
  d->change = old_v != 0 ? (new_v - old_v) / fabs(old_v) : NAN;
  d->noise = noise;
  d->threshold = threshold;
  /* A time of 0 measured nothing (the case's `unmeasured` finding): it is
   * neither 100 % better nor a baseline to hold anything against. A rate
   * of 0 is a measurement (nothing moved): from it, only up is a change. */
  bool measured =
      !isnan(old_v) && !isnan(new_v) && !(lower && (old_v == 0 || new_v == 0));
  if (!measured)
    d->verdict = GCB_VERDICT_UNJUDGED;
  else if (old_v == 0)
    d->verdict = new_v > 0 ? GCB_VERDICT_BETTER : GCB_VERDICT_SAME;
  else
    d->verdict = judge(d->change, lower, threshold, noise);
  cmp->regressions += d->verdict == GCB_VERDICT_REGRESSION;
  return GCB_OK;
}

static enum gcb_status compare_case(struct gcb_comparison *cmp,
                                    const struct gcb_model_case *oc,
                                    const struct gcb_model_case *nc,
                                    const char *key, const struct run_noise *rn,
                                    const struct gcb_thresholds *t,
                                    struct gcb_err *err) {
  const char *unit = nc->unit;
  const struct gcb_model_summary *os = &oc->summary, *ns = &nc->summary;
  enum basis by = basis_of(nc);
  bool same_scale = os->ranks == ns->ranks;
  double noise = noise_band(oc, nc, &rn[0], &rn[1], t);
  /* nccl-tests prints algbw and busbw with two decimals (%6.2f GB/s): a
   * small message's 0.00 says nothing of a change (a 100x slower 8 B
   * allreduce is 0.00 both times), and a few hundredths move by a whole
   * step with a change its time shows in full (0.14 -> 0.13 for a 1 %
   * slower 2 KiB row, 0.02 both times for a 23 % slower 256 B one). Where
   * a step is more than half the threshold the time decides; at another
   * scale, where a time does not compare, the step is noise. */
  const double step = 0.01; /* GB/s */
  double least = fmin(os->busbw, ns->busbw);
  double half_threshold = gcb_thresholds_regression(t, nc->bench, unit) / 200;
  bool resolves = least > 0 && step / least <= half_threshold;
  if (by == BY_BUSBW && !resolves && (same_scale || !(least > 0)))
    by = BY_TIME;
  else if (by == BY_BUSBW && !resolves)
    noise = fmax(noise, step / least);
  bool lower = lower_is_better(unit);
  double threshold =
      gcb_thresholds_regression(t, nc->bench, by == BY_TIME ? "us" : unit) /
      100;
  enum gcb_status st = GCB_OK;
  if (by == BY_BUSBW)
    st = row(cmp, nc, key, "busbw", "GB/s", os->busbw, ns->busbw, false,
             threshold, noise, err);
  /* At another scale only busbw compares; a rank's figure does not. */
  for (int slow = 0; st == GCB_OK && slow < 2; slow++) {
    if (by == BY_TIME)
      st = row(cmp, nc, key, slow ? "slowest time" : "median time", "us",
               rank_time_us(oc, slow), rank_time_us(nc, slow), true, threshold,
               noise, err);
    else if (by == BY_FIGURE || (slow && same_scale))
      st = row(cmp, nc, key, slow ? "slowest" : "median", unit,
               summary_value(os, slow, lower), summary_value(ns, slow, lower),
               lower, threshold, noise, err);
  }
  return st;
}

static enum gcb_status one_sided(struct gcb_comparison *cmp,
                                 const struct gcb_model_case *c,
                                 const char *key, bool old_side,
                                 struct gcb_err *err) {
  struct gcb_delta *d = push_delta(cmp, c, key, err);
  if (d == NULL)
    return GCB_ENOMEM;
  *(old_side ? &d->old_value : &d->new_value) = c->summary.median;
  d->verdict = old_side ? GCB_VERDICT_ONLY_OLD : GCB_VERDICT_ONLY_NEW;
  d->derived = c->derived;
  return GCB_OK;
}

/* A collective's element count per rank depends on the rank count
 * (allgather, reducescatter), and its communicator's size is the rank
 * count: runs at another scale match by size. */
static const char *const *key_skip(const struct gcb_model_case *c) {
  static const char *const coll_skip[] = {"count", "comm_size", NULL};
  return c->kind == GCB_BENCH_COLL ? coll_skip : NULL;
}

void gcb__compare_case_key(const struct gcb_model_case *c, char *buf,
                           size_t size) {
  gcb_model_case_key_except(c, key_skip(c), buf, size);
}

static void free_keys(char **keys, size_t n) {
  for (size_t i = 0; keys != NULL && i < n; i++)
    free(keys[i]);
  free(keys);
}

/* The whole key of every case of a document, in document order (two
 * cases alike in a key's first bytes are still two); NULL on ENOMEM. */
static char **case_keys(const struct gcb_model *m, size_t *n) {
  *n = m->ncases;
  char **keys = calloc(*n + 1, sizeof *keys);
  for (size_t i = 0; keys != NULL && i < *n; i++) {
    const struct gcb_model_case *c = &m->cases[i];
    if ((keys[i] = gcb_model_case_key_dup(c, key_skip(c))) == NULL) {
      free_keys(keys, i);
      keys = NULL;
    }
  }
  return keys;
}

/* The first case of keys[0..n) with `key` that used[] does not mark (any:
 * marked or not, used NULL); n when none. */
static size_t find_key(char *const *keys, size_t n, const char *key,
                       const bool *used, bool any) {
  size_t i = 0;
  while (i < n && ((!any && used[i]) || strcmp(keys[i], key) != 0))
    i++;
  return i;
}

/* Pairs cases by key (each new case with the first unused old one), in the
 * new run's order, then lists the old cases left over. A case a run holds
 * more often than the other (a log of two runs of one test) is compared
 * against the other's first copy, every copy judged: the second copy of a
 * case that regressed was "only in new", its regression hidden. */
static enum gcb_status compare_cases(struct gcb_comparison *cmp,
                                     const struct gcb_model *old_m,
                                     const struct gcb_model *new_m,
                                     const struct gcb_thresholds *t,
                                     struct gcb_err *err) {
  size_t no, nn;
  char **okeys = case_keys(old_m, &no), **nkeys = case_keys(new_m, &nn);
  bool *used = calloc(no + 1, sizeof *used);
  enum gcb_status st = GCB_OK;
  if (okeys == NULL || nkeys == NULL || used == NULL)
    st = gcb_err_set(err, GCB_ENOMEM, "compare: out of memory");
  struct run_noise rn[2];
  run_noise_of(old_m, &rn[0]);
  run_noise_of(new_m, &rn[1]);
  for (size_t j = 0; st == GCB_OK && j < nn; j++) {
    size_t i = find_key(okeys, no, nkeys[j], used, false);
    if (i == no)
      i = find_key(okeys, no, nkeys[j], NULL, true);
    const struct gcb_model_case *nc = &new_m->cases[j];
    if (i == no) {
      st = one_sided(cmp, nc, nkeys[j], false, err);
      continue;
    }
    used[i] = true;
    st = compare_case(cmp, &old_m->cases[i], nc, nkeys[j], rn, t, err);
  }
  for (size_t i = 0; st == GCB_OK && i < no; i++) {
    if (used[i])
      continue;
    size_t j = find_key(nkeys, nn, okeys[i], NULL, true);
    st = j < nn ? compare_case(cmp, &old_m->cases[i], &new_m->cases[j],
                               nkeys[j], rn, t, err)
                : one_sided(cmp, &old_m->cases[i], okeys[i], true, err);
  }
  free_keys(okeys, no);
  free_keys(nkeys, nn);
  free(used);
  return st;
}

enum gcb_status gcb_compare(const struct gcb_doc *old,
                            const struct gcb_doc *new_,
                            const struct gcb_thresholds *t,
                            struct gcb_comparison *out, struct gcb_err *err) {
  enum gcb_status st = gcb__compare_notes(old->model, new_->model, out, err);
  if (st == GCB_OK)
    st = compare_cases(out, old->model, new_->model, t, err);
  if (st == GCB_OK) /* the launches' MPI mode (compare_notes.c) */
    st = gcb__compare_mode(old->model, new_->model, out, err);
  return st;
}

void gcb_comparison_free(struct gcb_comparison *cmp) {
  if (cmp == NULL)
    return;
  free(cmp->deltas);
  free(cmp->notes);
  memset(cmp, 0, sizeof *cmp);
}

/* ---- findings ----------------------------------------------------------- */

static enum gcb_status delta_finding(const struct gcb_delta *d, int doc,
                                     struct gcb_findings *out) {
  bool vanished = d->verdict == GCB_VERDICT_ONLY_OLD;
  enum gcb_severity sev = d->verdict == GCB_VERDICT_REGRESSION ? GCB_SEV_FAIL
                          : vanished && !d->derived            ? GCB_SEV_WARN
                                                               : GCB_SEV_INFO;
  const struct gcb_kind *kind = d->verdict == GCB_VERDICT_REGRESSION
                                    ? GCB_KIND(REGRESSION)
                                    : GCB_KIND(MISSING_CASE);
  struct gcb_finding *f = gcb_findings_push(out, sev, kind);
  if (f == NULL)
    return GCB_ENOMEM;
  f->where.doc = doc;
  gcb_view_copy(f->where.subject, sizeof f->where.subject, d->title);
  gcb_view_copy(f->unit, sizeof f->unit, d->unit);
  if (d->verdict != GCB_VERDICT_REGRESSION) {
    gcb_finding_explain(f, "the case is %s",
                        vanished ? "in the baseline but not in "
                                   "this run"
                                 : "new: not in the baseline");
    if (vanished)
      gcb_finding_suggest(f, "check errors[] and skipped[]: the case may have "
                             "failed or been skipped");
    return GCB_OK;
  }
  f->measured = d->new_value;
  f->expected = d->old_value;
  f->metric = d->metric;
  char was[48], now[48];
  gcb_fmt_scaled(d->old_value, d->unit, was, sizeof was);
  gcb_fmt_scaled(d->new_value, d->unit, now, sizeof now);
  gcb_finding_explain(f,
                      "%s changed %+.1f%% (%s -> %s), beyond the "
                      "%.1f%% threshold and the %.1f%% noise band",
                      d->metric, d->change * 100, was, now, d->threshold * 100,
                      d->noise * 100);
  gcb_finding_suggest(f, "check the not-comparable notes first; then bisect "
                         "software and settings changed since the baseline");
  return GCB_OK;
}

enum gcb_status gcb_compare_findings(const struct gcb_comparison *cmp, int doc,
                                     struct gcb_findings *out,
                                     struct gcb_err *err) {
  for (size_t i = 0; i < cmp->ndeltas; i++) {
    enum gcb_verdict v = cmp->deltas[i].verdict;
    if (v != GCB_VERDICT_REGRESSION && v != GCB_VERDICT_ONLY_OLD &&
        v != GCB_VERDICT_ONLY_NEW)
      continue;
    if (delta_finding(&cmp->deltas[i], doc, out) != GCB_OK)
      return gcb_err_set(err, GCB_ENOMEM, "compare: out of memory");
  }
  for (size_t i = 0; i < cmp->nnotes; i++) {
    const struct gcb_note *n = &cmp->notes[i];
    struct gcb_finding *f =
        gcb_findings_push(out, GCB_SEV_WARN, GCB_KIND(NOT_COMPARABLE));
    if (f == NULL)
      return gcb_err_set(err, GCB_ENOMEM, "compare: out of memory");
    f->where.doc = doc;
    gcb_finding_explain(f,
                        "the runs differ in %s: baseline '%s', this run "
                        "'%s'",
                        n->what, n->old_value, n->new_value);
    gcb_finding_suggest(f, "read the comparison knowing this difference, or "
                           "rerun the baseline on matching hardware/software");
  }
  return GCB_OK;
}
