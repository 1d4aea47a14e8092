/*
 * findings.json: the analysis as data ("gcbench.findings/1"), for tools
 * that act on findings (dashboards, ticketing, drain scripts): the
 * verdict, the documents, the root causes (one per component, with the
 * indices of the findings they explain), every finding with its location,
 * the acceptance checks and the baseline comparison. Location parts that do not
 * apply are left out; numbers that do not apply are null. jansson escapes the
 * strings.
 */
#include <math.h>
#include <stdlib.h>

#include "reports/render/render.h"

#define FINDINGS_SCHEMA "gcbench.findings/1"

/* Adds value under key, taking ownership; a failed set leaves *ok false. */
static void put(json_t *obj, const char *key, json_t *value, bool *ok) {
  if (value == NULL || json_object_set_new(obj, key, value) != 0)
    *ok = false;
}

/* A file name, which need not be UTF-8: each bad byte becomes U+FFFD. */
static json_t *name_json(const char *name) {
  char *clean = gcb_utf8_copy(name);
  json_t *j = clean != NULL ? json_string(clean) : NULL;
  free(clean);
  return j;
}

static json_t *number_or_null(double x) {
  return isfinite(x) ? json_real(x) : json_null();
}

static json_t *location_json(const struct gcb_location *w, bool *ok) {
  json_t *o = json_object();
  if (o == NULL) {
    *ok = false;
    return NULL;
  }
  if (w->doc >= 0)
    put(o, "run", json_integer(w->doc + 1), ok);
  if (w->node >= 0)
    put(o, "node", json_integer(w->node), ok);
  if (w->hostname[0])
    put(o, "hostname", json_string(w->hostname), ok);
  if (w->rank >= 0)
    put(o, "rank", json_integer(w->rank), ok);
  if (w->ranks[0])
    put(o, "ranks", json_string(w->ranks), ok);
  if (w->gpu >= 0)
    put(o, "gpu", json_integer(w->gpu), ok);
  if (w->bus_id[0])
    put(o, "bus_id", json_string(w->bus_id), ok);
  if (w->link[0])
    put(o, "link", json_string(w->link), ok);
  if (w->subject[0])
    put(o, "case", json_string(w->subject), ok);
  return o;
}

static json_t *finding_json(const struct gcb_report *rep,
                            const struct gcb_finding *f, bool *ok) {
  json_t *o = json_object();
  if (o == NULL) {
    *ok = false;
    return NULL;
  }
  put(o, "severity", json_string(gcb_severity_name(f->severity)), ok);
  put(o, "kind", json_string(f->kind->name), ok);
  put(o, "location", location_json(&f->where, ok), ok);
  put(o, "measured", number_or_null(f->measured), ok);
  put(o, "expected", number_or_null(f->expected), ok);
  put(o, "unit", json_string(f->unit), ok);
  put(o, "cost", number_or_null(f->cost), ok);
  if (f->check >= 0 && rep->criteria != NULL)
    put(o, "check", json_string(rep->criteria->checks[f->check].name), ok);
  put(o, "explanation", json_string(f->explanation), ok);
  put(o, "suggestion", json_string(f->suggestion), ok);
  return o;
}

static json_t *component_json(const struct gcb_component *c, bool *ok) {
  json_t *o = json_object();
  if (o == NULL) {
    *ok = false;
    return NULL;
  }
  put(o, "kind", json_string(gcb_comp_kind_name(c->kind)), ok);
  put(o, "name", json_string(c->name), ok);
  if (c->node >= 0)
    put(o, "node", json_integer(c->node), ok);
  if (c->hostname[0])
    put(o, "hostname", json_string(c->hostname), ok);
  if (c->rank >= 0)
    put(o, "rank", json_integer(c->rank), ok);
  if (c->ranks[0])
    put(o, "ranks", json_string(c->ranks), ok);
  if (c->gpu >= 0)
    put(o, "gpu", json_integer(c->gpu), ok);
  if (c->bus_id[0])
    put(o, "bus_id", json_string(c->bus_id), ok);
  if (c->link[0] && c->kind == GCB_COMP_LINK)
    put(o, "link", json_string(c->link), ok);
  return o;
}

static json_t *root_cause_json(const struct gcb_root_cause *rc, bool *ok) {
  json_t *o = json_object(), *ev = json_array();
  if (o == NULL || ev == NULL) {
    json_decref(o);
    json_decref(ev);
    *ok = false;
    return NULL;
  }
  put(o, "severity", json_string(gcb_root_cause_state(rc)), ok);
  put(o, "component", component_json(&rc->comp, ok), ok);
  put(o, "family", json_string(gcb_family_name(rc->family)), ok);
  put(o, "summary", json_string(rc->summary), ok);
  put(o, "measured", number_or_null(rc->measured), ok);
  put(o, "expected", number_or_null(rc->expected), ok);
  put(o, "unit", json_string(rc->unit), ok);
  put(o, "cost", number_or_null(rc->cost), ok);
  put(o, "suggestion", json_string(rc->suggestion), ok);
  for (size_t i = 0; i < rc->nevidence; i++)
    if (json_array_append_new(ev, json_integer((json_int_t)rc->evidence[i])))
      *ok = false;
  put(o, "evidence", ev, ok);
  return o;
}

static json_t *root_causes_json(const struct gcb_report *rep, bool *ok) {
  struct gcb_diagnosis own = {0};
  const struct gcb_diagnosis *d;
  struct gcb_err err = {0};
  json_t *a = json_array();
  if (a == NULL || gcb_report_diagnosis_use(rep, &own, &d, &err) != GCB_OK) {
    *ok = false;
    gcb_diagnosis_free(&own);
    return a;
  }
  for (size_t i = 0; i < d->n; i++) {
    json_t *rc = root_cause_json(&d->items[i], ok);
    if (rc == NULL || json_array_append_new(a, rc) != 0)
      *ok = false;
  }
  gcb_diagnosis_free(&own);
  return a;
}

static json_t *checks_json(const struct gcb_report *rep, bool *ok) {
  json_t *a = json_array();
  for (size_t i = 0; a != NULL && i < rep->criteria->nchecks; i++) {
    const struct gcb_check_result *r = &rep->checks[i];
    json_t *c = json_pack(
        "{s:s, s:b, s:I, s:I, s:I}", "name", rep->criteria->checks[i].name,
        "passed", gcb_check_outcome(rep->criteria, r) == GCB_CHECK_PASS,
        "matched", (json_int_t)r->matched, "misses", (json_int_t)r->failed,
        "not_applicable", (json_int_t)r->na);
    if (c == NULL || json_array_append_new(a, c) != 0)
      *ok = false;
  }
  if (a == NULL)
    *ok = false;
  return a;
}

static json_t *comparison_json(const struct gcb_report *rep, bool *ok) {
  const struct gcb_comparison *cmp = rep->comparison;
  json_t *rows = json_array(), *notes = json_array();
  for (size_t i = 0; rows != NULL && i < cmp->ndeltas; i++) {
    const struct gcb_delta *d = &cmp->deltas[i];
    json_t *r = json_pack(
        "{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:s}", "case", d->title,
        "metric", d->metric, "unit", d->unit, "old",
        number_or_null(d->old_value), "new", number_or_null(d->new_value),
        "change", number_or_null(d->change), "noise", number_or_null(d->noise),
        "threshold", number_or_null(d->threshold), "verdict",
        gcb_verdict_name(d->verdict));
    if (r == NULL || json_array_append_new(rows, r) != 0)
      *ok = false;
  }
  for (size_t i = 0; notes != NULL && i < cmp->nnotes; i++) {
    const struct gcb_note *n = &cmp->notes[i];
    json_t *r = json_pack("{s:s, s:s, s:s}", "what", n->what, "baseline",
                          n->old_value, "new", n->new_value);
    if (r == NULL || json_array_append_new(notes, r) != 0)
      *ok = false;
  }
  json_t *o =
      json_pack("{s:o, s:I, s:o, s:o}", "baseline",
                name_json(rep->baseline ? rep->baseline : ""), "regressions",
                (json_int_t)cmp->regressions, "rows", rows, "notes", notes);
  if (o == NULL)
    *ok = false;
  return o;
}

static json_t *documents_json(const struct gcb_report *rep, bool *ok) {
  json_t *a = json_array();
  for (size_t d = 0; a != NULL && d < rep->ndocs; d++) {
    const json_t *run = gcb_view_obj(rep->docs[d].root, "run");
    json_t *o = json_pack(
        "{s:o, s:s, s:s}", "file", name_json(rep->docs[d].name), "run_id",
        gcb_view_str(run, "id"), "status", gcb_view_str(run, "status"));
    if (o == NULL || json_array_append_new(a, o) != 0)
      *ok = false;
  }
  if (a == NULL)
    *ok = false;
  return a;
}

static json_t *report_json(const struct gcb_report *rep, bool *ok) {
  json_t *root = json_object(), *list = json_array();
  put(root, "schema", json_string(FINDINGS_SCHEMA), ok);
  put(root, "verdict", json_string(gcb_report_failed(rep) ? "fail" : "pass"),
      ok);
  put(root, "counts",
      json_pack(
          "{s:I, s:I, s:I}", "fail",
          (json_int_t)gcb_findings_count(rep->findings, GCB_SEV_FAIL), "warn",
          (json_int_t)gcb_findings_count(rep->findings, GCB_SEV_WARN), "info",
          (json_int_t)gcb_findings_count(rep->findings, GCB_SEV_INFO)),
      ok);
  put(root, "documents", documents_json(rep, ok), ok);
  put(root, "root_causes", root_causes_json(rep, ok), ok);
  for (size_t i = 0; list != NULL && i < rep->findings->n; i++) {
    json_t *f = finding_json(rep, &rep->findings->items[i], ok);
    if (f == NULL || json_array_append_new(list, f) != 0)
      *ok = false;
  }
  put(root, "findings", list, ok);
  if (rep->criteria != NULL)
    put(root, "checks", checks_json(rep, ok), ok);
  if (rep->expectations != NULL)
    put(root, "expectations", json_string(rep->expectations), ok);
  if (rep->comparison != NULL)
    put(root, "comparison", comparison_json(rep, ok), ok);
  return root;
}

static enum gcb_status render_findings(FILE *out, const struct gcb_report *rep,
                                       struct gcb_err *err) {
  bool ok = true;
  json_t *root = report_json(rep, &ok);
  if (!ok || root == NULL) {
    json_decref(root);
    return gcb_err_set(err, GCB_ENOMEM, "findings.json: out of memory");
  }
  int rc = json_dumpf(root, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
  fputc('\n', out);
  json_decref(root);
  if (rc != 0)
    return gcb_err_set(err, GCB_EIO, "findings.json: write failed");
  return gcb__render_done(out, "findings.json", err);
}

const struct gcb_renderer gcb_render_findings = {
    .name = "findings", .file = "findings.json", .render = render_findings};
