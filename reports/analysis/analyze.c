/*
 * Analysis: the findings list, the thresholds table, what the rules and
 * renderers ask of a case (its size, in place, its ranks' times and
 * imbalance, outliers among them), the run's own rules and the loop that
 * runs every finding kind's rules (gcb_kinds[], kinds.c) over every
 * document. A rule is a function over one document that finds
 * nothing when the data it needs is absent; adding a kind is one rule
 * and one row of the kinds table.
 */
#include "reports/analysis/analyze.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "reports/analysis/analyze_rules.h"
#include "reports/analysis/burn.h"
#include "reports/document/ranks.h"
#include "reports/document/stats.h"

/* ---- findings list ------------------------------------------------------ */

const char *gcb_severity_name(enum gcb_severity s) {
  static const char *const names[] = {"info", "warn", "fail"};
  return s <= GCB_SEV_FAIL ? names[s] : "?";
}

struct gcb_finding *gcb_findings_push(struct gcb_findings *l,
                                      enum gcb_severity sev,
                                      const struct gcb_kind *kind) {
  if (!gcb_grow((void **)&l->items, &l->cap, l->n, sizeof *l->items))
    return NULL;
  struct gcb_finding *f = &l->items[l->n++];
  memset(f, 0, sizeof *f);
  f->severity = sev;
  f->kind = kind;
  f->where =
      (struct gcb_location){.doc = -1, .node = -1, .rank = -1, .gpu = -1};
  f->measured = f->expected = f->cost = NAN;
  f->check = -1;
  return f;
}

/* Ends buf[size], which holds size - 1 bytes of a longer text, in "..."
 * at a UTF-8 boundary. */
static void mark_cut(char *buf, size_t size) {
  if (size < 4)
    return;
  size_t n = size - 4;
  while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80)
    n--;
  memcpy(buf + n, "...", 4);
}

bool gcb_analyze_copy(char *dst, size_t size, const char *src) {
  bool cut = size > 0 && strlen(src) >= size;
  if (size > 0)
    snprintf(dst, size, "%s", src);
  if (cut)
    mark_cut(dst, size);
  return cut;
}

void gcb_analyze_vformat(char *buf, size_t size, const char *fmt, va_list ap) {
  int n = vsnprintf(buf, size, fmt, ap);
  if (n > 0 && (size_t)n >= size)
    mark_cut(buf, size);
}

void gcb_finding_explain(struct gcb_finding *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  gcb_analyze_vformat(f->explanation, sizeof f->explanation, fmt, ap);
  va_end(ap);
}

void gcb_finding_suggest(struct gcb_finding *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  gcb_analyze_vformat(f->suggestion, sizeof f->suggestion, fmt, ap);
  va_end(ap);
}

void gcb_finding_figures(struct gcb_finding *f, double measured,
                         double expected, const char *unit) {
  f->measured = measured;
  f->expected = expected;
  gcb_analyze_copy(f->unit, sizeof f->unit, unit);
}

void gcb_finding_at_model_rank(struct gcb_finding *f, int doc,
                               const struct gcb_model *m, long long rank) {
  struct gcb_place p;
  gcb_model_place(m, rank, &p);
  f->where.doc = doc;
  f->where.rank = rank;
  f->where.node = p.node;
  f->where.gpu = p.gpu;
  gcb_analyze_copy(f->where.hostname, sizeof f->where.hostname, p.hostname);
  gcb_view_copy(f->where.bus_id, sizeof f->where.bus_id, p.bus_id);
}

/* Merge sort by severity, descending: qsort is not stable, and the order
 * within a severity (rule order, then document order) reads best. */
void gcb_findings_sort(struct gcb_findings *l) {
  if (l->n < 2)
    return;
  struct gcb_finding *tmp = malloc(l->n * sizeof *tmp + 1);
  if (tmp == NULL)
    return; /* unsorted is still correct, only less readable */
  size_t k = 0;
  for (int s = GCB_SEV_FAIL; s >= GCB_SEV_INFO; s--)
    for (size_t i = 0; i < l->n; i++)
      if ((int)l->items[i].severity == s)
        tmp[k++] = l->items[i];
  memcpy(l->items, tmp, k * sizeof *tmp);
  free(tmp);
}

size_t gcb_findings_count(const struct gcb_findings *l, enum gcb_severity s) {
  size_t n = 0;
  for (size_t i = 0; i < l->n; i++)
    n += l->items[i].severity == s;
  return n;
}

void gcb_findings_free(struct gcb_findings *l) {
  if (l == NULL)
    return;
  free(l->items);
  memset(l, 0, sizeof *l);
}

/* ---- thresholds --------------------------------------------------------- */

/* A row of gcb_threshold_defs: the threshold `field`, its default, bounds,
 * help and, for a fail threshold, its warning (analyze.h). */
#define TH(field, def_, min_, max_, help_, ...)                                \
  {                                                                            \
    .name = #field, .offset = offsetof(struct gcb_thresholds, field),          \
    .def = def_, .min = min_, .max = max_, .help = help_, __VA_ARGS__          \
  }

const struct gcb_threshold_def gcb_threshold_defs[] = {
    TH(slow_rank_pct, 10, 0, 100,
       "warn when a rank's figure is this % below the peer median"),
    TH(slow_rank_fail_pct, 25, 0, 100,
       "fail when a rank's figure is this % below the peer median",
       .warning = "slow_rank_pct", .worse_above = true, .judges = "a rank"),
    TH(outlier_mads, 3, 0, 100,
       "outlier when further below the median than this many scaled MADs"),
    TH(outlier_min_ranks, 3, 3, 1e9,
       "fewer ranks than this: no outlier rule (no robust median)"),
    TH(imbalance_pct, 5, 0, 100,
       "warn when (max - mean) / max of per-rank times exceeds this %"),
    TH(late_pct, 20, 0, 1000,
       "warn when a rank arrives at a collective later than this % of the "
       "operation's time (and is an outlier)"),
    TH(link_pct, 75, 0, 100,
       "warn when a copy or GPU pair reaches less than this % of what the "
       "topology expects of its link"),
    TH(link_fail_pct, 50, 0, 100, "fail when it reaches less than this %",
       .warning = "link_pct", .judges = "a link"),
    TH(trend_pct, 50, 0, 10000,
       "warn when a sweep row's time is this % above the log-log line "
       "through its neighbours (its busbw below 1 / (1 + this / 100) of it)"),
    TH(latency_floor_x, 4, 1, 1e6,
       "warn when a small message takes more than this many times its "
       "floor (the fastest time of the operation on its transport, plus its "
       "bytes at the sweep's best busbw)"),
    TH(regression_pct, 5, 0, 1000,
       "compare: regression when worse by more than this % ..."),
    TH(noise_sigmas, 2, 0, 100,
       "... and by more than this many combined relative stdevs"),
    {.name = NULL},
};

void gcb_thresholds_default(struct gcb_thresholds *t) {
  memset(t, 0, sizeof *t);
  for (const struct gcb_threshold_def *d = gcb_threshold_defs; d->name; d++)
    *(double *)((char *)t + d->offset) = d->def;
}

const struct gcb_threshold_def *gcb_threshold_find(const char *name) {
  for (const struct gcb_threshold_def *d = gcb_threshold_defs; d->name; d++)
    if (strcmp(d->name, name) == 0)
      return d;
  return NULL;
}

double gcb_threshold_value(const struct gcb_thresholds *t,
                           const struct gcb_threshold_def *d) {
  return *(const double *)((const char *)t + d->offset);
}

double gcb_thresholds_regression(const struct gcb_thresholds *t,
                                 const char *bench, const char *unit) {
  const char *keys[] = {bench, unit}; /* a benchmark's before a unit's */
  for (size_t k = 0; k < 2; k++)
    for (size_t i = 0; i < t->nregression_by; i++)
      if (strcmp(t->regression_by[i].key, keys[k]) == 0)
        return t->regression_by[i].pct;
  return t->regression_pct;
}

/* ---- case properties ---------------------------------------------------- */

bool gcb_analyze_case_in_place(const struct gcb_model_case *c) {
  const struct gcb_mvalue *v = gcb_mvalue_get(&c->params, "inplace");
  const char *s = v->type == GCB_MV_STRING ? v->text : NULL;
  return (v->type == GCB_MV_BOOL && v->b) ||
         ((v->type == GCB_MV_INT || v->type == GCB_MV_REAL) && v->num != 0) ||
         (s != NULL && (strcmp(s, "1") == 0 || strcmp(s, "yes") == 0 ||
                        strcmp(s, "true") == 0));
}

double gcb_analyze_case_size(const struct gcb_model_case *c) {
  return isnan(c->size) ? c->bytes : c->size;
}

/* ---- statistics helpers ------------------------------------------------- */

size_t gcb_analyze_outliers(const double *x, size_t n, int dir,
                            const struct gcb_thresholds *t, bool *flags,
                            double *median) {
  memset(flags, 0, n * sizeof *flags);
  *median = NAN;
  double *tmp = malloc(n * sizeof *tmp + 1);
  if (tmp == NULL)
    return 0;
  memcpy(tmp, x, n * sizeof *tmp);
  double m = gcb_stats_median(tmp, n);
  for (size_t i = 0; i < n; i++)
    tmp[i] = fabs(x[i] - m);
  /* 1.4826 * MAD estimates the standard deviation of normal noise, so the
   * rule reads "k sigmas away", yet one outlier cannot inflate it. */
  double spread = t->outlier_mads * 1.4826 * gcb_stats_median(tmp, n);
  free(tmp);
  *median = m;
  if ((double)n < t->outlier_min_ranks)
    return 0;
  size_t found = 0;
  for (size_t i = 0; i < n; i++) {
    flags[i] = dir * (x[i] - m) > spread;
    found += flags[i];
  }
  return found;
}

size_t gcb_analyze_slow(const double *x, size_t n,
                        const struct gcb_thresholds *t, bool *flags,
                        double *median) {
  size_t found = gcb_analyze_outliers(x, n, -1, t, flags, median);
  for (size_t i = 0; i < n && found > 0; i++)
    if (flags[i] && !(*median - x[i] > *median * t->slow_rank_pct / 100)) {
      flags[i] = false;
      found--;
    }
  return found;
}

double gcb_analyze_rank_time(const struct gcb_model_case *c, size_t i) {
  double s = gcb_model_col(c, GCB_RC_FIGURE_TIME, i);
  return isnan(s) ? gcb_model_col(c, GCB_RC_TIME_MEDIAN, i) : s;
}

void gcb__imbalance_over(const struct gcb_model_case *c, const size_t *entries,
                         size_t n, struct gcb_imbalance *out) {
  double sum = 0, sum2 = 0, med_sum = 0, med_at_max = NAN;
  *out = (struct gcb_imbalance){.min = INFINITY, .max = -INFINITY};
  for (size_t i = 0; i < n; i++) {
    size_t e = entries != NULL ? entries[i] : i;
    double s = gcb_analyze_rank_time(c, e);
    double med = gcb_model_col(c, GCB_RC_TIME_MEDIAN, e);
    long long r = gcb_model_col_rank(c, e, (long long)e);
    sum += s;
    sum2 += s * s;
    med_sum += med;
    if (s < out->min)
      out->min = s, out->min_rank = r;
    if (s > out->max)
      out->max = s, out->max_rank = r, med_at_max = med;
  }
  out->ranks = n;
  out->total = sum;
  out->mean = sum / (double)n;
  out->imbalance = out->max > 0 ? (out->max - out->mean) / out->max : 0;
  double var = n > 1 ? (sum2 - sum * out->mean) / (double)(n - 1) : 0;
  out->cv = out->mean > 0 && var > 0 ? sqrt(var) / out->mean : 0;
  out->typical = isnan(med_sum) || isnan(med_at_max) ? NAN
                 : med_at_max > 0
                     ? (med_at_max - med_sum / (double)n) / med_at_max
                     : 0;
}

bool gcb_analyze_case_imbalance(const struct gcb_model_case *c,
                                struct gcb_imbalance *out) {
  memset(out, 0, sizeof *out);
  if (c->ranks.n == 0)
    return false;
  gcb__imbalance_over(c, NULL, c->ranks.n, out);
  return true;
}

/* ---- rules: the run ----------------------------------------------------- */

struct gcb_finding *gcb__rule_push(const struct gcb__rule_ctx *cx,
                                   enum gcb_severity sev) {
  struct gcb_finding *f = gcb_findings_push(cx->out, sev, cx->kind);
  if (f == NULL)
    gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
  else
    f->where.doc = cx->index;
  return f;
}

struct gcb_finding *gcb__rule_push_case(const struct gcb__rule_ctx *cx,
                                        enum gcb_severity sev,
                                        const struct gcb_model_case *c,
                                        long long rank) {
  struct gcb_finding *f = gcb__rule_push(cx, sev);
  if (f == NULL)
    return NULL;
  if (rank >= 0)
    gcb_finding_at_model_rank(f, cx->index, cx->doc->model, rank);
  gcb_model_case_title(c, f->where.subject, sizeof f->where.subject);
  f->bench_case = c;
  return f;
}

void gcb__rule_suggest(struct gcb_finding *f) {
  gcb_view_copy(f->suggestion, sizeof f->suggestion,
                f->kind->suggestion ? f->kind->suggestion : "");
}

enum gcb_status gcb__rule_run_status(const struct gcb__rule_ctx *cx) {
  const struct gcb_model_run *run = &cx->doc->model->run;
  const char *status = run->status;
  if (strcmp(status, "complete") == 0)
    return GCB_OK;
  bool unknown = !gcb_view_status_failed(status);
  struct gcb_finding *f =
      gcb__rule_push(cx, unknown ? GCB_SEV_INFO : GCB_SEV_FAIL);
  if (f == NULL)
    return GCB_ENOMEM;
  if (unknown) { /* a converted excerpt: judged on the rows it has */
    gcb_finding_explain(f, "the run's status is unknown: %s",
                        gcb_mvalue_str(&run->run, "status_reason"));
    gcb_finding_suggest(f, "judge the whole log to know whether the run "
                           "finished");
    return GCB_OK;
  }
  gcb_finding_explain(
      f, "the run's status is \"%s\", not \"complete\"%s", status,
      strcmp(status, "running") == 0 ? ": it was killed or is still running"
                                     : "");
  gcb__rule_suggest(f);
  return GCB_OK;
}

/* An error's or a skip's subject, as gcb_model_case_title writes a
 * case's. */
static void entry_title(struct gcb_finding *f, const char *bench,
                        const char *label) {
  snprintf(f->where.subject, sizeof f->where.subject, "%s: %s", bench, label);
  gcb__view_trim_partial(f->where.subject);
}

enum gcb_status gcb__rule_errors(const struct gcb__rule_ctx *cx) {
  const struct gcb_model *m = cx->doc->model;
  for (size_t i = 0; i < m->nerrors; i++) {
    const struct gcb_model_error *e = &m->errors[i];
    struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_FAIL);
    if (f == NULL)
      return GCB_ENOMEM;
    if (e->rank >= 0)
      gcb_finding_at_model_rank(f, cx->index, m, e->rank);
    f->error = e;
    entry_title(f, e->bench, e->label);
    gcb_finding_explain(f, "%s: %s", e->status, e->message);
    gcb__rule_suggest(f);
  }
  return GCB_OK;
}

/* A run that measured nothing passes nothing: every benchmark skipped (a
 * GPU benchmark on the host backend) or none asked for. Its errors, where
 * it has them, fail it already and say why. */
enum gcb_status gcb__rule_nothing_measured(const struct gcb__rule_ctx *cx) {
  const struct gcb_model *m = cx->doc->model;
  if (m->ncases > 0 || m->nerrors > 0)
    return GCB_OK;
  struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_FAIL);
  if (f == NULL)
    return GCB_ENOMEM;
  if (m->nskips > 0)
    gcb_finding_explain(f,
                        "the run measured nothing: no case ran, %zu skipped "
                        "(the first, %s: %s)",
                        m->nskips, m->skips[0].bench, m->skips[0].reason);
  else
    gcb_finding_explain(f, "the run measured nothing: it has no case");
  gcb__rule_suggest(f);
  return GCB_OK;
}

enum gcb_status gcb__rule_unmeasured(const struct gcb__rule_ctx *cx) {
  const struct gcb_model *m = cx->doc->model;
  for (size_t k = 0; k < m->ncases; k++) {
    const struct gcb_model_case *c = &m->cases[k];
    bool timed = false;
    for (size_t i = 0; i < c->ranks.n && !timed; i++)
      timed = gcb_analyze_rank_time(c, i) > 0;
    /* no work to do (a pipeline of one stage sends nothing) takes 0 s */
    if (timed || c->ranks.n == 0 || !(c->work_per_op > 0))
      continue;
    struct gcb_finding *f = gcb__rule_push_case(cx, GCB_SEV_FAIL, c, -1);
    if (f == NULL)
      return GCB_ENOMEM;
    gcb_finding_explain(f,
                        "no rank timed the case: each of its %zu rank(s) "
                        "took 0 s or no time, so its figures measure "
                        "nothing",
                        c->ranks.n);
    gcb__rule_suggest(f);
  }
  return GCB_OK;
}

enum gcb_status gcb__rule_skipped(const struct gcb__rule_ctx *cx) {
  const struct gcb_model *m = cx->doc->model;
  for (size_t i = 0; i < m->nskips; i++) {
    const struct gcb_model_skip *e = &m->skips[i];
    struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_INFO);
    if (f == NULL)
      return GCB_ENOMEM;
    entry_title(f, e->bench, e->label);
    gcb_finding_explain(f, "not run: %s", e->reason);
  }
  return GCB_OK;
}

/* ---- the analysis ------------------------------------------------------ */

enum gcb_status gcb_analyze_kinds(const struct gcb_kind *kinds, size_t nkinds,
                                  const struct gcb_doc *docs, size_t ndocs,
                                  const struct gcb_thresholds *t,
                                  struct gcb_findings *out,
                                  struct gcb_err *err) {
  enum gcb_status st = GCB_OK;
  for (size_t d = 0; d < ndocs && st == GCB_OK; d++) {
    struct gcb_doc doc = docs[d];
    /* The rules read the model, which the findings point into. */
    if (doc.model == NULL)
      return gcb_err_set(err, GCB_EINPUT, "%s: no model to analyse",
                         doc.name != NULL ? doc.name : "document");
    /* The burn cases, read once for the five burn rules, unless the
     * caller read them for its tables and plots too. */
    struct gcb_burn_doc own;
    const struct gcb_burn_doc *burn = gcb_burn_doc_of(&doc, t, &own, err);
    if (burn == NULL)
      return GCB_ENOMEM;
    doc.burn = burn;
    struct gcb__rule_ctx cx = {
        .doc = &doc, .index = (int)d, .t = t, .out = out, .err = err};
    for (size_t k = 0; k < nkinds && st == GCB_OK; k++)
      for (size_t r = 0; r < 2 && kinds[k].rule[r] != NULL && st == GCB_OK;
           r++) {
        cx.kind = &kinds[k];
        st = kinds[k].rule[r](&cx);
      }
    gcb_burn_doc_free(&own);
  }
  return st;
}

enum gcb_status gcb_analyze(const struct gcb_doc *docs, size_t ndocs,
                            const struct gcb_thresholds *t,
                            struct gcb_findings *out, struct gcb_err *err) {
  return gcb_analyze_kinds(gcb_kinds, GCB_KIND_COUNT, docs, ndocs, t, out, err);
}
