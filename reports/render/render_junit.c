/*
 * junit.xml for CI systems: one test suite per concern.
 * "gcbench.components": a test per GPU and check family of the component
 * matrix (node, GPU, bus id and family in its name, the figure in
 * system-out; skipped where the GPU has no measurement of the family),
 * then the node, rank and link root causes. "gcbench.run": a
 * test per document (did the run complete), per case (any failure-level
 * finding on it), per error (an <error>) and per skipped case (<skipped>).
 * "gcbench.criteria": a test per acceptance check, and a skipped one per
 * bound a source does not measure (n/a). "gcbench.baseline": a
 * test per compared metric. Names are unique (a repeated case label gets
 * "#2", a case of several documents "(run N)"); each test has its time=.
 * Every string is escaped with gcb_escape_xml.
 * Suites are written to memory first, because their header carries the
 * counts.
 */
#include <stdlib.h>
#include <string.h>

#include "reports/document/fmtnum.h"
#include "reports/document/model.h"
#include "reports/render/render.h"

struct suite {
  FILE *f;
  char *buf;
  size_t len;
  size_t tests, failures, errors, skipped;
  bool oom; /* a fill ran out of memory */
};

/* <testcase> with the time it judged (0: none, or unknown). */
static void open_test(struct suite *s, const char *cls, const char *name,
                      double time_s) {
  s->tests++;
  gcb__xml(s->f, "    <testcase classname=\"", cls, "\" name=\"");
  gcb__xml(s->f, "", name, "\" time=\"");
  double t = time_s >= 0 ? time_s : 0;
  char text[320]; /* "%.6f" of any double (DBL_MAX has 309 digits) */
  if (gcb_fmtnum_f(text, t, 6) == 0) /* a test per GPU and family: no printf */
    snprintf(text, sizeof text, "%.6f", t); /* a tie, huge: printf's own */
  fputs(text, s->f);
  fputs("\">\n", s->f);
}

/* Opens a <failure> or an <error>, counted as one. Its type is escaped
 * like its message: a kind's name is text like any other. */
static void open_child(struct suite *s, const char *tag, const char *type,
                       const char *message) {
  if (strcmp(tag, "error") == 0)
    s->errors++;
  else
    s->failures++;
  fprintf(s->f, "      <%s type=\"", tag);
  gcb__xml(s->f, "", type, "\" message=\"");
  gcb__xml(s->f, "", message, "\">");
}

/* A <failure> or an <error> whose text is body. */
static void child(struct suite *s, const char *tag, const char *type,
                  const char *message, const char *body) {
  open_child(s, tag, type, message);
  gcb_escape_xml(s->f, body);
  fprintf(s->f, "</%s>\n", tag);
}

static void close_test(struct suite *s) {
  fputs("    </testcase>\n", s->f);
}

/* A test that judged nothing (no measurement to judge): <skipped/> with
 * the reason, neither a pass nor a failure. */
static void skipped_test(struct suite *s, const char *cls, const char *name,
                         const char *message) {
  open_test(s, cls, name, 0);
  s->skipped++;
  gcb__xml(s->f, "      <skipped message=\"", message, "\"/>\n");
  close_test(s);
}

/* The fail-level findings on cases (criteria and regressions have their
 * own suites), sorted by document, then case title, then their order in
 * the list, so that each case finds its own with a binary search: a scan
 * of every finding for each case was quadratic (9,000 cases of a
 * nccl-tests log). */
struct case_fails {
  const struct gcb_finding **items;
  size_t n;
};

static bool case_fail(const struct gcb_finding *f) {
  return f->severity == GCB_SEV_FAIL && f->check < 0 &&
         f->kind != GCB_KIND(REGRESSION);
}

/* Finding f against document doc and case title: by document, then
 * title. */
static int cmp_where(const struct gcb_finding *f, int doc, const char *title) {
  return f->where.doc != doc ? (f->where.doc > doc) - (f->where.doc < doc)
                             : strcmp(f->where.subject, title);
}

static int cmp_fail(const void *x, const void *y) {
  const struct gcb_finding *a = *(const struct gcb_finding *const *)x,
                           *b = *(const struct gcb_finding *const *)y;
  int c = cmp_where(a, b->where.doc, b->where.subject);
  return c != 0 ? c : (a > b) - (a < b); /* the list's order */
}

/* false on ENOMEM. */
static bool case_fails_sort(const struct gcb_findings *fs,
                            struct case_fails *cf) {
  *cf = (struct case_fails){0};
  for (size_t i = 0; i < fs->n; i++)
    cf->n += case_fail(&fs->items[i]);
  if (cf->n == 0)
    return true;
  if ((cf->items = malloc(cf->n * sizeof *cf->items)) == NULL)
    return false;
  size_t k = 0;
  for (size_t i = 0; i < fs->n; i++)
    if (case_fail(&fs->items[i]))
      cf->items[k++] = &fs->items[i];
  qsort(cf->items, cf->n, sizeof *cf->items, cmp_fail);
  return true;
}

/* The first of cf's findings on document doc and case title, or cf->n. */
static size_t case_fails_first(const struct case_fails *cf, int doc,
                               const char *title) {
  size_t lo = 0, hi = cf->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cmp_where(cf->items[mid], doc, title) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Fail-level findings on one case of one document, as a failure with one
 * line each. */
static void case_findings(struct suite *s, const struct gcb_report *rep,
                          const struct case_fails *cf, int doc,
                          const char *title) {
  size_t n = 0;
  for (size_t i = case_fails_first(cf, doc, title);
       i < cf->n && cmp_where(cf->items[i], doc, title) == 0; i++) {
    const struct gcb_finding *f = cf->items[i];
    char where[GCB_REPORT_WHERE];
    gcb_report_where(rep, f, where, sizeof where);
    if (n++ == 0)
      open_child(s, "failure", f->kind->name, f->explanation);
    gcb__xml(s->f, "", f->kind->name, ": ");
    gcb__xml(s->f, "", where, ": ");
    gcb__xml(s->f, "", f->explanation, "\n");
  }
  if (n > 0)
    fputs("</failure>\n", s->f);
}

static void status_test(struct suite *s, const struct gcb_report *rep,
                        size_t d) {
  const char *status = rep->docs[d].model->run.status;
  char name[320];
  snprintf(name, sizeof name, "run %zu status (%s)", d + 1, rep->docs[d].name);
  open_test(s, "gcbench.run", name, 0);
  if (gcb_view_status_failed(status))
    child(s, "failure", GCB_KIND(RUN_STATUS)->name, status,
          "the run did not complete");
  close_test(s);
}

/* A case's title, and how many earlier cases have it (in-place and
 * out-of-place share one, and test names must be unique): read off the
 * titles sorted once, not counted by titling every earlier case again
 * (which was quadratic: 9,000 cases of a nccl-tests log took minutes). */
struct titled {
  char title[160];
  size_t dup;
};

/* By title, then by place (the array is in case order). */
static int cmp_titled(const void *x, const void *y) {
  const struct titled *a = *(const struct titled *const *)x,
                      *b = *(const struct titled *const *)y;
  int c = strcmp(a->title, b->title);
  return c != 0 ? c : (a > b) - (a < b);
}

/* One per case of m, in its order; NULL on ENOMEM. */
static struct titled *case_titles(const struct gcb_model *m) {
  size_t n = m->ncases;
  struct titled *t = malloc((n ? n : 1) * sizeof *t),
                **sorted = malloc((n ? n : 1) * sizeof *sorted);
  if (t == NULL || sorted == NULL) {
    free(t);
    free(sorted);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) {
    gcb_model_case_title(&m->cases[i], t[i].title, sizeof t[i].title);
    sorted[i] = &t[i];
  }
  qsort(sorted, n, sizeof *sorted, cmp_titled);
  for (size_t i = 0; i < n; i++)
    sorted[i]->dup =
        i > 0 && strcmp(sorted[i - 1]->title, sorted[i]->title) == 0
            ? sorted[i - 1]->dup + 1
            : 0;
  free(sorted);
  return t;
}

/* Wall time the case's timed loop took: its slowest rank's time per
 * operation times the iterations; 0 (unknown) for nominal work, whose
 * times would be derived from an assumed size (nvbandwidth). */
static double case_time(const struct gcb_model_case *c) {
  struct gcb_imbalance im;
  if (c->nominal_work || !gcb_analyze_case_imbalance(c, &im) || !(im.max >= 0))
    return 0;
  return im.max * (double)(c->iterations >= 0 ? c->iterations : 1);
}

static void case_tests(struct suite *s, const struct gcb_report *rep,
                       const struct case_fails *cf, size_t d) {
  const struct gcb_model *m = rep->docs[d].model;
  struct titled *titles = case_titles(m);
  s->oom = s->oom || titles == NULL;
  for (size_t i = 0; titles != NULL && i < m->ncases; i++) {
    const struct gcb_model_case *e = &m->cases[i];
    char cls[96], name[224];
    gcb__join(cls, sizeof cls, "gcbench.", e->bench, (const char *)NULL);
    int n = snprintf(name, sizeof name, "%s", e->label);
    if (titles[i].dup > 0 && n > 0 && (size_t)n < sizeof name)
      n += snprintf(name + n, sizeof name - (size_t)n, " #%zu",
                    titles[i].dup + 1);
    if (rep->ndocs > 1 && n > 0 && (size_t)n < sizeof name)
      snprintf(name + n, sizeof name - (size_t)n, " (run %zu)", d + 1);
    open_test(s, cls, name, case_time(e));
    case_findings(s, rep, cf, (int)d, titles[i].title);
    close_test(s);
  }
  free(titles);
}

/* errors[] as <error>, skipped[] as <skipped>: cases that did not run. */
static void unrun_tests(struct suite *s, const struct gcb_model *m) {
  char cls[96];
  for (size_t i = 0; i < m->nerrors; i++) {
    const struct gcb_model_error *e = &m->errors[i];
    gcb__join(cls, sizeof cls, "gcbench.", e->bench, (const char *)NULL);
    open_test(s, cls, e->label, 0);
    child(s, "error", e->status, e->message, "");
    close_test(s);
  }
  for (size_t i = 0; i < m->nskips; i++) {
    const struct gcb_model_skip *e = &m->skips[i];
    gcb__join(cls, sizeof cls, "gcbench.", e->bench, (const char *)NULL);
    skipped_test(s, cls, e->label, e->reason);
  }
}

static void run_suite(struct suite *s, const struct gcb_report *rep) {
  struct case_fails cf;
  if (!case_fails_sort(rep->findings, &cf)) {
    s->oom = true;
    return;
  }
  for (size_t d = 0; d < rep->ndocs; d++) {
    status_test(s, rep, d);
    case_tests(s, rep, &cf, d);
    unrun_tests(s, rep->docs[d].model);
  }
  free(cf.items);
}

/* A component check: pass, or a failure naming the root cause; a warning
 * passes with its root cause in system-out. */
static void component_test(struct suite *s, const char *cls, const char *name,
                           enum gcb_cell state, const char *figure,
                           const struct gcb_root_cause *rc, double time_s) {
  char out[640];
  open_test(s, cls, name, time_s);
  if (state == GCB_CELL_FAIL)
    child(s, "failure", gcb_family_name(rc->family), rc->summary,
          rc->suggestion);
  gcb__join(out, sizeof out, gcb_cell_name(state), figure[0] ? " " : "", figure,
            rc ? ": " : "", rc ? rc->summary : "", (const char *)NULL);
  gcb__xml(s->f, "      <system-out>", out, "</system-out>\n");
  close_test(s);
}

/* "gcbench.components": a test per GPU and check family (the component
 * matrix), then one per node, rank or link root cause no GPU row holds. */
static void components_suite(struct suite *s, const struct gcb_report *rep) {
  struct gcb_diagnosis own = {0};
  const struct gcb_diagnosis *d;
  struct gcb_matrix own_m = {0};
  const struct gcb_matrix *m;
  struct gcb_err err = {0};
  if (gcb_report_diagnosis_use(rep, &own, &d, &err) == GCB_OK &&
      gcb_matrix_use(rep, d, &own_m, &m, &err) == GCB_OK) {
    for (size_t i = 0; i < m->n; i++) {
      const struct gcb_matrix_row *r = &m->rows[i];
      const char *host = d->machines[r->node].hostname;
      char cls[192], name[320];
      char gpu[GCB_FMTNUM_MAX];
      gcb_fmtnum_ll(gpu, r->gpu);
      gcb__join(cls, sizeof cls, "gcbench.components.", host,
                (const char *)NULL);
      for (int f = 0; f < GCB_MATRIX_COLS; f++) {
        const struct gcb_matrix_cell *c = &r->cell[f];
        const char *family = gcb_family_name((enum gcb_family)f);
        gcb__join(name, sizeof name, "node ", host, " GPU ", gpu, " ",
                  r->bus_id, " ", family, (const char *)NULL);
        if (c->state == GCB_CELL_NONE) { /* a "-" cell: nothing to judge */
          char why[160];
          gcb__join(why, sizeof why, "n/a: the report has no ", family,
                    " measurement of this GPU", (const char *)NULL);
          skipped_test(s, cls, name, why);
          continue;
        }
        component_test(s, cls, name, c->state, c->figure, c->rc, c->time_s);
      }
    }
    for (size_t i = 0; i < d->n; i++) {
      const struct gcb_root_cause *rc = &d->items[i];
      char name[sizeof rc->comp.name + GCB_HOSTNAME_SIZE + 32], fig[48];
      if (rc->comp.bus_id[0] != '\0' ||
          gcb_diagnosis_at_gpu_by_index(d, &rc->comp))
        continue; /* a GPU row above holds it */
      /* with several nodes the diagnosis's name says the host already */
      bool named = rc->comp.hostname[0] == '\0' || d->nmachines > 1;
      snprintf(name, sizeof name, "%s%s%s %s", rc->comp.name,
               named ? "" : " on ", named ? "" : rc->comp.hostname,
               gcb_family_name(rc->family));
      gcb_fmt_scaled(rc->measured, rc->unit, fig, sizeof fig);
      component_test(s, "gcbench.components", name, gcb_root_cause_cell(rc),
                     fig, rc, 0);
    }
  }
  gcb_matrix_free(&own_m);
  gcb_diagnosis_free(&own);
}

/* A check's bounds that a source does not measure (criterion-na): one
 * skipped test per source and metric, "CHECK: METRIC n/a in SOURCE", so
 * that n/a is listed once and is neither a pass nor a failure. */
static void na_tests(struct suite *s, const struct gcb_report *rep,
                     size_t check) {
  const char *check_name = rep->criteria->checks[check].name;
  for (size_t k = 0; k < rep->findings->n; k++) {
    const struct gcb_finding *f = &rep->findings->items[k];
    if (f->check != (int)check || f->kind != GCB_KIND(CRITERION_NA))
      continue;
    char name[480];
    const char *src = f->where.doc >= 0 && (size_t)f->where.doc < rep->ndocs
                          ? rep->docs[f->where.doc].name
                          : "the run";
    snprintf(name, sizeof name, "%s: %s n/a in %s", check_name,
             f->metric != NULL ? f->metric : "a bound", src);
    skipped_test(s, "gcbench.criteria", name, f->explanation);
  }
}

static void criteria_suite(struct suite *s, const struct gcb_report *rep) {
  const struct gcb_criteria *cr = rep->criteria;
  for (size_t i = 0; cr != NULL && i < cr->nchecks; i++) {
    const struct gcb_check_result *res = &rep->checks[i];
    /* A built-in expectation the run did not measure: skipped, once. */
    if (gcb_check_outcome(cr, res) == GCB_CHECK_NA) {
      skipped_test(s, "gcbench.criteria", cr->checks[i].name,
                   "n/a: the run did not measure it (built-in expectations)");
      continue;
    }
    open_test(s, "gcbench.criteria", cr->checks[i].name, 0);
    if (gcb_check_outcome(cr, res) == GCB_CHECK_FAIL) {
      char msg[160]; /* a check's name is under 128 bytes */
      gcb__join(msg, sizeof msg, cr->checks[i].name, " not met",
                (const char *)NULL);
      open_child(s, "failure", GCB_KIND(CRITERION)->name, msg);
      for (size_t k = 0; k < rep->findings->n; k++) {
        const struct gcb_finding *f = &rep->findings->items[k];
        if (f->check != (int)i || f->kind == GCB_KIND(CRITERION_NA))
          continue;
        gcb__xml(s->f, "", f->explanation, "\n");
      }
      fputs("</failure>\n", s->f);
    }
    close_test(s);
    na_tests(s, rep, i);
  }
}

static void baseline_suite(struct suite *s, const struct gcb_report *rep) {
  const struct gcb_comparison *cmp = rep->comparison;
  for (size_t i = 0; cmp != NULL && i < cmp->ndeltas; i++) {
    const struct gcb_delta *d = &cmp->deltas[i];
    if (d->verdict == GCB_VERDICT_ONLY_OLD ||
        d->verdict == GCB_VERDICT_ONLY_NEW)
      continue;
    char name[224], msg[160];
    snprintf(name, sizeof name, "%s %s", d->title, d->metric);
    if (d->verdict == GCB_VERDICT_UNJUDGED) {
      skipped_test(s, "gcbench.baseline", name,
                   "not judged: one run has no value of it, or a time of 0 s");
      continue;
    }
    open_test(s, "gcbench.baseline", name, 0);
    if (d->verdict == GCB_VERDICT_REGRESSION) {
      snprintf(msg, sizeof msg, "%+.1f%% (threshold %.1f%%, noise %.1f%%)",
               d->change * 100, d->threshold * 100, d->noise * 100);
      child(s, "failure", GCB_KIND(REGRESSION)->name, msg, "");
    }
    close_test(s);
  }
}

/* Fills one suite in memory; false on ENOMEM. */
static bool fill_suite(struct suite *s,
                       void (*fill)(struct suite *, const struct gcb_report *),
                       const struct gcb_report *rep) {
  *s = (struct suite){0};
  if ((s->f = open_memstream(&s->buf, &s->len)) == NULL)
    return false;
  fill(s, rep);
  return fclose(s->f) == 0 && s->buf != NULL && !s->oom;
}

/* The suites, each filled whole first (the headers carry the counts), then
 * written straight from their buffers: at 16,384 ranks the components
 * suite is 24 MB, which a second buffer and a "%s" would copy twice. */
static const struct {
  const char *name;
  void (*fill)(struct suite *, const struct gcb_report *);
} suites[] = {
    {"gcbench.components", components_suite},
    {"gcbench.run", run_suite},
    {"gcbench.criteria", criteria_suite},
    {"gcbench.baseline", baseline_suite},
};
enum { NSUITES = sizeof suites / sizeof *suites };

static void write_suites(FILE *out, const struct suite *s) {
  size_t tests = 0, failures = 0;
  for (size_t i = 0; i < NSUITES; i++) {
    tests += s[i].tests;
    failures += s[i].tests > 0 ? s[i].failures + s[i].errors : 0;
  }
  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "
          "name=\"gcbench\" tests=\"%zu\" failures=\"%zu\">\n",
          tests, failures);
  for (size_t i = 0; i < NSUITES; i++) {
    if (s[i].tests == 0)
      continue;
    fprintf(out,
            "  <testsuite name=\"%s\" tests=\"%zu\" failures=\"%zu\" "
            "errors=\"%zu\" skipped=\"%zu\">\n",
            suites[i].name, s[i].tests, s[i].failures, s[i].errors,
            s[i].skipped);
    fwrite(s[i].buf, 1, strlen(s[i].buf), out); /* "%s": up to its NUL */
    fputs("  </testsuite>\n", out);
  }
  fputs("</testsuites>\n", out);
}

static enum gcb_status render_junit(FILE *out, const struct gcb_report *rep,
                                    struct gcb_err *err) {
  struct suite s[NSUITES] = {0};
  bool ok = true;
  for (size_t i = 0; i < NSUITES && ok; i++)
    ok = fill_suite(&s[i], suites[i].fill, rep);
  if (ok)
    write_suites(out, s);
  for (size_t i = 0; i < NSUITES; i++)
    free(s[i].buf);
  if (!ok)
    return gcb_err_set(err, GCB_ENOMEM, "junit.xml: out of memory");
  return gcb__render_done(out, "junit.xml", err);
}

const struct gcb_renderer gcb_render_junit = {
    .name = "junit", .file = "junit.xml", .render = render_junit};
