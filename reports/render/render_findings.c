/*
 * findings.json: the analysis as data ("gcbench.findings/1"), for tools
 * that act on findings (dashboards, ticketing, drain scripts): the
 * verdict, the documents, the root causes (one per component, with the
 * indices of the findings they explain), every finding with its location,
 * the acceptance checks and the baseline comparison. Location parts that do
 * not apply are left out; numbers that do not apply are null.
 *
 * Written as it is walked, in the layout jansson's json_dumpf gives with
 * JSON_INDENT(1) | JSON_REAL_PRECISION(10) (members in the order written,
 * reals with 10 significant digits and a ".0" or exponent, strings escaped
 * as jansson escapes them), so that the file reads the same as when it was
 * a tree; text that is not UTF-8 gets U+FFFD for each bad byte.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/model.h"
#include "reports/render/render.h"

#define FINDINGS_SCHEMA "gcbench.findings/1"

/* ---- a JSON writer ------------------------------------------------------ */

#define JW_DEPTH 8 /* the deepest nesting the file has is 4 */

struct jw {
  FILE *f;
  int depth;
  bool first[JW_DEPTH]; /* at depth d: no member written yet */
};

static void jw_newline(struct jw *w, int depth) {
  fputc('\n', w->f);
  for (int i = 0; i < depth; i++)
    fputc(' ', w->f);
}

static void jw_string(struct jw *w, const char *s) {
  FILE *f = w->f;
  fputc('"', f);
  for (const char *p = s; *p;) {
    unsigned char c = (unsigned char)*p;
    size_t k = gcb_utf8_length(p);
    if (k == 0) { /* not UTF-8: U+FFFD for the byte */
      fputs("\xEF\xBF\xBD", f);
      p++;
      continue;
    }
    if (k > 1 || (c >= 0x20 && c != '"' && c != '\\')) {
      fwrite(p, 1, k, f);
    } else {
      static const char esc[] = {
          ['"'] = '"',  ['\\'] = '\\', ['\b'] = 'b', ['\f'] = 'f',
          ['\n'] = 'n', ['\r'] = 'r',  ['\t'] = 't'};
      if (c < sizeof esc && esc[c] != 0)
        fprintf(f, "\\%c", esc[c]);
      else
        fprintf(f, "\\u%04X", c);
    }
    p += k;
  }
  fputc('"', f);
}

/* A member's key (inside an object) or an element's place (in an array),
 * after the separator and the indent. */
static void jw_key(struct jw *w, const char *key) {
  if (!w->first[w->depth])
    fputc(',', w->f);
  w->first[w->depth] = false;
  jw_newline(w, w->depth);
  if (key != NULL) {
    jw_string(w, key);
    fputs(": ", w->f);
  }
}

static void jw_open(struct jw *w, const char *key, char bracket) {
  jw_key(w, key);
  fputc(bracket, w->f);
  w->depth++;
  w->first[w->depth] = true;
}

static void jw_close(struct jw *w, char bracket) {
  if (!w->first[w->depth])
    jw_newline(w, w->depth - 1);
  w->depth--;
  fputc(bracket, w->f);
}

static void jw_str(struct jw *w, const char *key, const char *s) {
  jw_key(w, key);
  jw_string(w, s);
}

static void jw_int(struct jw *w, const char *key, long long v) {
  jw_key(w, key);
  fprintf(w->f, "%lld", v);
}

/* A member that may not apply, left out then: an index below 0, "". */
static void jw_opt_int(struct jw *w, const char *key, long long v) {
  if (v >= 0)
    jw_int(w, key, v);
}

static void jw_opt_str(struct jw *w, const char *key, const char *s) {
  if (s[0] != '\0')
    jw_str(w, key, s);
}

static void jw_bool(struct jw *w, const char *key, bool v) {
  jw_key(w, key);
  fputs(v ? "true" : "false", w->f);
}

/* A real as jansson writes one ("%.10g", then ".0" when it has neither a
 * point nor an exponent, the exponent without '+' or leading zeros); null
 * when not finite. */
static void jw_num(struct jw *w, const char *key, double x) {
  char buf[64];
  jw_key(w, key);
  if (!isfinite(x)) {
    fputs("null", w->f);
    return;
  }
  int n = snprintf(buf, sizeof buf - 2, "%.10g", x);
  if (n < 0 || (size_t)n >= sizeof buf - 2)
    n = 0;
  buf[n] = '\0';
  char *e = strchr(buf, 'e');
  if (strchr(buf, '.') == NULL && e == NULL)
    strcat(buf, ".0");
  if (e != NULL) {
    char *start = e + 1, *end = e + 2;
    if (*start == '-')
      start++;
    while (*end == '0')
      end++;
    if (end != start)
      memmove(start, end, strlen(end) + 1);
  }
  fputs(buf, w->f);
}

/* ---- the report --------------------------------------------------------- */

static void location(struct jw *w, const struct gcb_location *l) {
  jw_open(w, "location", '{');
  if (l->doc >= 0)
    jw_int(w, "run", l->doc + 1);
  jw_opt_int(w, "node", l->node);
  jw_opt_str(w, "hostname", l->hostname);
  jw_opt_int(w, "rank", l->rank);
  jw_opt_str(w, "ranks", l->ranks);
  jw_opt_int(w, "gpu", l->gpu);
  jw_opt_str(w, "bus_id", l->bus_id);
  jw_opt_str(w, "link", l->link);
  jw_opt_str(w, "case", l->subject);
  jw_close(w, '}');
}

static void finding(struct jw *w, const struct gcb_report *rep,
                    const struct gcb_finding *f) {
  jw_open(w, NULL, '{');
  jw_str(w, "severity", gcb_severity_name(f->severity));
  jw_str(w, "kind", f->kind->name);
  location(w, &f->where);
  jw_num(w, "measured", f->measured);
  jw_num(w, "expected", f->expected);
  jw_str(w, "unit", f->unit);
  jw_num(w, "cost", f->cost);
  if (f->check >= 0 && rep->criteria != NULL)
    jw_str(w, "check", rep->criteria->checks[f->check].name);
  jw_str(w, "explanation", f->explanation);
  jw_str(w, "suggestion", f->suggestion);
  jw_close(w, '}');
}

static void component(struct jw *w, const struct gcb_component *c) {
  jw_open(w, "component", '{');
  jw_str(w, "kind", gcb_comp_kind_name(c->kind));
  jw_str(w, "name", c->name);
  jw_opt_int(w, "node", c->node);
  jw_opt_str(w, "hostname", c->hostname);
  jw_opt_int(w, "rank", c->rank);
  jw_opt_str(w, "ranks", c->ranks);
  jw_opt_int(w, "gpu", c->gpu);
  jw_opt_str(w, "bus_id", c->bus_id);
  if (c->kind == GCB_COMP_LINK)
    jw_opt_str(w, "link", c->link);
  jw_close(w, '}');
}

static void root_cause(struct jw *w, const struct gcb_root_cause *rc) {
  jw_open(w, NULL, '{');
  jw_str(w, "severity", gcb_root_cause_state(rc));
  component(w, &rc->comp);
  jw_str(w, "family", gcb_family_name(rc->family));
  jw_str(w, "summary", rc->summary);
  jw_num(w, "measured", rc->measured);
  jw_num(w, "expected", rc->expected);
  jw_str(w, "unit", rc->unit);
  jw_num(w, "cost", rc->cost);
  jw_str(w, "suggestion", rc->suggestion);
  jw_open(w, "evidence", '[');
  for (size_t i = 0; i < rc->nevidence; i++)
    jw_int(w, NULL, (long long)rc->evidence[i]);
  jw_close(w, ']');
  jw_close(w, '}');
}

static void checks(struct jw *w, const struct gcb_report *rep) {
  jw_open(w, "checks", '[');
  for (size_t i = 0; i < rep->criteria->nchecks; i++) {
    const struct gcb_check_result *r = &rep->checks[i];
    jw_open(w, NULL, '{');
    jw_str(w, "name", rep->criteria->checks[i].name);
    jw_bool(w, "passed", gcb_check_outcome(rep->criteria, r) == GCB_CHECK_PASS);
    jw_int(w, "matched", (long long)r->matched);
    jw_int(w, "misses", (long long)r->failed);
    jw_int(w, "not_applicable", (long long)r->na);
    jw_close(w, '}');
  }
  jw_close(w, ']');
}

static void comparison(struct jw *w, const struct gcb_report *rep) {
  const struct gcb_comparison *cmp = rep->comparison;
  jw_open(w, "comparison", '{');
  jw_str(w, "baseline", rep->baseline ? rep->baseline : "");
  jw_int(w, "regressions", (long long)cmp->regressions);
  jw_open(w, "rows", '[');
  for (size_t i = 0; i < cmp->ndeltas; i++) {
    const struct gcb_delta *d = &cmp->deltas[i];
    jw_open(w, NULL, '{');
    jw_str(w, "case", d->title);
    jw_str(w, "metric", d->metric);
    jw_str(w, "unit", d->unit);
    jw_num(w, "old", d->old_value);
    jw_num(w, "new", d->new_value);
    jw_num(w, "change", d->change);
    jw_num(w, "noise", d->noise);
    jw_num(w, "threshold", d->threshold);
    jw_str(w, "verdict", gcb_verdict_name(d->verdict));
    jw_close(w, '}');
  }
  jw_close(w, ']');
  jw_open(w, "notes", '[');
  for (size_t i = 0; i < cmp->nnotes; i++) {
    const struct gcb_note *n = &cmp->notes[i];
    jw_open(w, NULL, '{');
    jw_str(w, "what", n->what);
    jw_str(w, "baseline", n->old_value);
    jw_str(w, "new", n->new_value);
    jw_close(w, '}');
  }
  jw_close(w, ']');
  jw_close(w, '}');
}

static void documents(struct jw *w, const struct gcb_report *rep) {
  jw_open(w, "documents", '[');
  for (size_t d = 0; d < rep->ndocs; d++) {
    const struct gcb_model_run *run = &rep->docs[d].model->run;
    jw_open(w, NULL, '{');
    jw_str(w, "file", rep->docs[d].name);
    jw_str(w, "run_id", run->id);
    jw_str(w, "status", run->status);
    jw_close(w, '}');
  }
  jw_close(w, ']');
}

/* The root object's members. */
static void report_members(struct jw *w, const struct gcb_report *rep,
                           const struct gcb_diagnosis *diag) {
  jw_str(w, "schema", FINDINGS_SCHEMA);
  jw_str(w, "verdict", gcb_report_failed(rep) ? "fail" : "pass");
  jw_open(w, "counts", '{');
  jw_int(w, "fail", (long long)gcb_findings_count(rep->findings, GCB_SEV_FAIL));
  jw_int(w, "warn", (long long)gcb_findings_count(rep->findings, GCB_SEV_WARN));
  jw_int(w, "info", (long long)gcb_findings_count(rep->findings, GCB_SEV_INFO));
  jw_close(w, '}');
  documents(w, rep);
  jw_open(w, "root_causes", '[');
  for (size_t i = 0; i < diag->n; i++)
    root_cause(w, &diag->items[i]);
  jw_close(w, ']');
  jw_open(w, "findings", '[');
  for (size_t i = 0; i < rep->findings->n; i++)
    finding(w, rep, &rep->findings->items[i]);
  jw_close(w, ']');
  if (rep->criteria != NULL)
    checks(w, rep);
  if (rep->expectations != NULL)
    jw_str(w, "expectations", rep->expectations);
  if (rep->comparison != NULL)
    comparison(w, rep);
}

static enum gcb_status render_findings(FILE *out, const struct gcb_report *rep,
                                       struct gcb_err *err) {
  struct gcb_diagnosis own = {0};
  const struct gcb_diagnosis *d;
  struct gcb_err derr = {0};
  if (gcb_report_diagnosis_use(rep, &own, &d, &derr) != GCB_OK) {
    gcb_diagnosis_free(&own);
    return gcb_err_set(err, GCB_ENOMEM, "findings.json: out of memory");
  }
  /* The root's opening brace has no separator or indent before it. */
  struct jw w = {.f = out, .depth = 1, .first = {true, true}};
  fputc('{', out);
  report_members(&w, rep, d);
  jw_close(&w, '}');
  fputc('\n', out);
  gcb_diagnosis_free(&own);
  return gcb__render_done(out, "findings.json", err);
}

const struct gcb_renderer gcb_render_findings = {
    .name = "findings", .file = "findings.json", .render = render_findings};
