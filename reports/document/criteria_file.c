/*
 * Reading an acceptance criteria file (reports/criteria/criteria.h), the
 * edge where its syntax ends: parse with jansson, check the tree against
 * the tables below, locating every problem in the text with
 * gcb_json_locate, and fill the typed criteria (owned copies of every
 * string; the tree is gone when the read returns). Evaluation lives in
 * reports/criteria/criteria_eval.c.
 */
#include "reports/criteria/criteria.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "reports/criteria/expect.h"
#include "reports/document/schema.h"
#include "reports/document/view.h"

#define CRITERIA_MAX_BYTES ((size_t)16 << 20)
#define SCHEMA_PREFIX "gcbench.criteria/"

/* Entered once per level the reader descends: a criteria file nests four
 * deep at most (checks[i].min.<metric>), within the walker's path. */
static void enter(struct gcb__walk *p, const char *key, size_t index) {
  p->path[p->depth++] = (struct gcb_json_step){.key = key, .index = index};
}

static void leave(struct gcb__walk *p) {
  p->depth--;
}

static const char *const json_type_names[] = {
    "an object", "an array",  "a string",  "an integer",
    "a real",    "a boolean", "a boolean", "null"};

/* An object's members against its rows (schema.h's, of bare types): a
 * member without a row is a problem here, in the object's order, then a
 * required member missing. */
static enum gcb_status check_members(struct gcb__walk *p, const json_t *obj,
                                     const struct gcb__field *rows) {
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    const struct gcb__field *f = gcb__schema_field(rows, key);
    enter(p, key, 0);
    if (f == NULL) {
      char list[192] = "";
      for (f = rows; f->name; f++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 f == rows ? "" : ", ", f->name);
      return gcb__schema_problem(p, "unknown field '%s' (expected one of: %s)",
                                 key, list);
    }
    if ((gcb__schema_type_bit(v) & f->node->types) == 0)
      return gcb__schema_problem(p, "expected %s, got %s",
                                 gcb__schema_expected(f->node->types),
                                 json_type_names[json_typeof(v)]);
    leave(p);
  }
  for (const struct gcb__field *f = rows; f->name; f++)
    if (f->required && json_object_get(obj, f->name) == NULL)
      return gcb__schema_problem(p, "missing required field '%s'", f->name);
  return GCB_OK;
}

static const struct gcb__node n_object = {.types = T_OBJ},
                              n_array = {.types = T_ARR};

static const struct gcb__field root_fields[] = {
    REQ("schema", &gcb__n_str),
    OPT("name", &gcb__n_str),
    OPT("description", &gcb__n_str),
    OPT("thresholds", &n_object),
    OPT("regression_pct_by", &n_object),
    REQ("checks", &n_array),
    {0},
};

static const struct gcb__field check_fields[] = {
    OPT("name", &gcb__n_str),
    REQ("bench", &gcb__n_str),
    OPT("params", &n_object),
    OPT("unit", &gcb__n_str),
    OPT("min", &n_object),
    OPT("max", &n_object),
    {0},
};

static enum gcb_status check_schema(struct gcb__walk *p, const json_t *root) {
  if (!json_is_object(root))
    return gcb__schema_problem(
        p, "not a gcbench criteria file (expected an object)");
  const char *s = json_string_value(json_object_get(root, "schema"));
  if (s != NULL && strcmp(s, GCB_CRITERIA_SCHEMA) == 0)
    return GCB_OK;
  if (json_object_get(root, "schema") == NULL)
    return gcb__schema_problem(
        p, "not a gcbench criteria file (no \"schema\" field)");
  enter(p, "schema", 0);
  if (s != NULL && strncmp(s, SCHEMA_PREFIX, strlen(SCHEMA_PREFIX)) == 0)
    return gcb__schema_problem(
        p, "unsupported criteria version %s (this gcbench reads %s)",
        s + strlen(SCHEMA_PREFIX), GCB_CRITERIA_SCHEMA);
  return gcb__schema_problem(
      p, "not a gcbench criteria file (schema is not \"%s\")",
      GCB_CRITERIA_SCHEMA);
}

/* A number within [min, max] (max 0: unbounded), at the current path. */
static enum gcb_status number_in(struct gcb__walk *p, const json_t *v,
                                 double min, double max, double *out) {
  if (!json_is_number(v))
    return gcb__schema_problem(p, "expected a number, got %s",
                               json_type_names[json_typeof(v)]);
  double x = json_number_value(v);
  if (x < min || (max > 0 && x > max))
    return gcb__schema_problem(p, "%g is out of range [%g, %g]", x, min, max);
  *out = x;
  return GCB_OK;
}

static enum gcb_status read_thresholds(struct gcb__walk *p, const json_t *obj,
                                       struct gcb_thresholds *t) {
  const char *key;
  const json_t *v;
  enum gcb_status st = GCB_OK;
  json_object_foreach((json_t *)obj, key, v) {
    const struct gcb_threshold_def *d = gcb_threshold_find(key);
    enter(p, key, 0);
    if (d == NULL)
      return gcb__schema_problem(
          p, "unknown threshold '%s' (see docs/criteria-schema.md)", key);
    if ((st = number_in(p, v, d->min, d->max,
                        (double *)((char *)t + d->offset))) != GCB_OK)
      return st;
    leave(p);
  }
  return GCB_OK;
}

/* A finding warns before it fails: a fail threshold stricter than its
 * warning (the pairs are rows of gcb_threshold_defs) would fail what it
 * never warned of. */
static enum gcb_status check_warn_before_fail(struct gcb__walk *p,
                                              const struct gcb_thresholds *t) {
  for (const struct gcb_threshold_def *d = gcb_threshold_defs; d->name; d++) {
    const struct gcb_threshold_def *w =
        d->warning != NULL ? gcb_threshold_find(d->warning) : NULL;
    if (w == NULL)
      continue;
    double fail = gcb_threshold_value(t, d), warn = gcb_threshold_value(t, w);
    if (d->worse_above ? fail < warn : fail > warn)
      return gcb__schema_problem(
          p, "%s %g is %s %s %g: %s would fail before it warns", d->name, fail,
          d->worse_above ? "below" : "above", w->name, warn, d->judges);
  }
  return GCB_OK;
}

static enum gcb_status read_overrides(struct gcb__walk *p, const json_t *obj,
                                      struct gcb_thresholds *t) {
  const char *key;
  const json_t *v;
  enum gcb_status st;
  json_object_foreach((json_t *)obj, key, v) {
    enter(p, key, 0);
    if (t->nregression_by == GCB_MAX_OVERRIDES)
      return gcb__schema_problem(p, "more than %d overrides",
                                 GCB_MAX_OVERRIDES);
    struct gcb_override *o = &t->regression_by[t->nregression_by];
    if (strlen(key) >= sizeof o->key)
      return gcb__schema_problem(p, "key longer than %zu bytes",
                                 sizeof o->key - 1);
    if ((st = number_in(p, v, 0, 1000, &o->pct)) != GCB_OK)
      return st;
    snprintf(o->key, sizeof o->key, "%s", key);
    t->nregression_by++;
    leave(p);
  }
  return GCB_OK;
}

static enum gcb_status read_bounds(struct gcb__walk *p, const json_t *obj,
                                   bool is_min, struct gcb_criterion *k) {
  const char *key;
  const json_t *v;
  enum gcb_status st;
  json_object_foreach((json_t *)obj, key, v) {
    const struct gcb_metric *m = gcb_metric_find(key);
    enter(p, key, 0);
    if (m == NULL) {
      char list[192] = "";
      /* The pattern_* metrics (docs/PATTERNS.md) would crowd the line. */
      for (m = gcb_metrics; m->name; m++)
        if (strncmp(m->name, "pattern_", 8) != 0)
          snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                   m == gcb_metrics ? "" : ", ", m->name);
      return gcb__schema_problem(p, "unknown metric '%s' (expected one of: %s)",
                                 key, list);
    }
    if (k->nbounds == GCB_MAX_BOUNDS)
      return gcb__schema_problem(p, "more than %d bounds in one check",
                                 GCB_MAX_BOUNDS);
    struct gcb_bound *b = &k->bounds[k->nbounds];
    if ((st = number_in(p, v, -INFINITY, 0, &b->limit)) != GCB_OK)
      return st;
    b->metric = m;
    b->is_min = is_min;
    k->nbounds++;
    leave(p);
  }
  return GCB_OK;
}

/* The check's params, typed: matching reads them against the typed
 * cases of the documents (model.h), never the file's tree. */
static enum gcb_status check_params(struct gcb__walk *p,
                                    struct gcb_criteria *cr,
                                    const json_t *params,
                                    struct gcb_criterion *k) {
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)params, key, v) {
    enter(p, key, 0);
    if ((gcb__schema_type_bit(v) & (T_STR | T_NUM)) == 0)
      return gcb__schema_problem(p, "expected a string or a number, got %s",
                                 json_type_names[json_typeof(v)]);
    if (!gcb_criterion_add_param(cr, k, key, json_number_value(v),
                                 json_string_value(v)))
      return gcb_err_set(p->err, GCB_ENOMEM, "%s: out of memory", p->name);
    leave(p);
  }
  return GCB_OK;
}

/* A string of the check, copied into the criteria; NULL stays NULL. */
static bool keep(struct gcb_criteria *cr, const json_t *v, const char **out) {
  const char *s = json_string_value(v);
  *out = s != NULL ? gcb_criteria_keep(cr, s) : NULL;
  return s == NULL || *out != NULL;
}

static enum gcb_status read_check(struct gcb__walk *p, struct gcb_criteria *cr,
                                  const json_t *obj, struct gcb_criterion *k) {
  enum gcb_status st;
  if (!json_is_object(obj))
    return gcb__schema_problem(p, "expected an object, got %s",
                               json_type_names[json_typeof(obj)]);
  if ((st = check_members(p, obj, check_fields)) != GCB_OK)
    return st;
  if (!keep(cr, json_object_get(obj, "bench"), &k->bench) ||
      !keep(cr, json_object_get(obj, "unit"), &k->unit))
    return gcb_err_set(p->err, GCB_ENOMEM, "%s: out of memory", p->name);
  enter(p, "params", 0);
  st = check_params(p, cr, json_object_get(obj, "params"), k);
  leave(p);
  for (int i = 0; st == GCB_OK && i < 2; i++) {
    const char *side = i == 0 ? "min" : "max";
    enter(p, side, 0);
    const json_t *b = json_object_get(obj, side);
    st = b ? read_bounds(p, b, i == 0, k) : GCB_OK;
    leave(p);
  }
  if (st == GCB_OK && k->nbounds == 0)
    return gcb__schema_problem(
        p, "a check needs at least one bound in \"min\" or \"max\"");
  char what[256];
  if (st == GCB_OK && gcb_criterion_impossible(k, what, sizeof what))
    return gcb__schema_problem(p, "%s", what);
  const char *name = json_string_value(json_object_get(obj, "name"));
  if (name != NULL)
    gcb_view_copy(k->name, sizeof k->name, name);
  else
    gcb_criterion_default_name(k);
  return st;
}

static enum gcb_status read_checks(struct gcb__walk *p, const json_t *arr,
                                   struct gcb_criteria *cr) {
  size_t n = json_array_size(arr);
  enter(p, "checks", 0);
  for (size_t i = 0; i < n; i++) {
    struct gcb_criterion *k = gcb_criteria_add_check(cr);
    if (k == NULL)
      return gcb_err_set(p->err, GCB_ENOMEM, "%s: out of memory", p->name);
    enter(p, NULL, i);
    enum gcb_status st = read_check(p, cr, json_array_get(arr, i), k);
    if (st != GCB_OK)
      return st;
    /* The report, junit and findings.json tell checks apart by name. */
    for (size_t j = 0; j + 1 < cr->nchecks; j++)
      if (strcmp(cr->checks[j].name, k->name) == 0)
        return gcb__schema_problem(
            p,
            "check '%s' is named as check %zu is (give each its own \"name\", "
            "or put both bounds in one check)",
            k->name, j);
    leave(p);
  }
  leave(p);
  return GCB_OK;
}

static enum gcb_status read_root(struct gcb__walk *p, const json_t *root,
                                 struct gcb_criteria *cr) {
  enum gcb_status st = check_schema(p, root);
  if (st == GCB_OK)
    st = check_members(p, root, root_fields);
  const json_t *th = json_object_get(root, "thresholds");
  const json_t *by = json_object_get(root, "regression_pct_by");
  enter(p, "thresholds", 0);
  if (st == GCB_OK && th != NULL)
    st = read_thresholds(p, th, &cr->thresholds);
  if (st == GCB_OK && th != NULL)
    st = check_warn_before_fail(p, &cr->thresholds);
  leave(p);
  enter(p, "regression_pct_by", 0);
  if (st == GCB_OK && by != NULL)
    st = read_overrides(p, by, &cr->thresholds);
  leave(p);
  if (st == GCB_OK)
    st = read_checks(p, json_object_get(root, "checks"), cr);
  const char *name = json_string_value(json_object_get(root, "name"));
  if (st == GCB_OK && name != NULL &&
      (cr->name = gcb_criteria_keep(cr, name)) == NULL)
    st = gcb_err_set(p->err, GCB_ENOMEM, "%s: out of memory", p->name);
  return st;
}

enum gcb_status gcb_criteria_parse(const char *text, size_t len,
                                   const char *name, struct gcb_criteria **out,
                                   struct gcb_err *err) {
  struct gcb__walk p = {.text = text, .len = len, .name = name, .err = err};
  json_error_t je;
  *out = NULL;
  struct gcb_criteria *cr = gcb_criteria_new(name);
  if (cr == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", name);
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
  enum gcb_status st =
      root == NULL ? gcb_err_set(err, GCB_EINPUT, "%s:%d:%d: %s", name, je.line,
                                 je.column > 0 ? je.column : 1, je.text)
                   : gcb_json_no_nul(err, text, len, name);
  if (st == GCB_OK)
    st = read_root(&p, root, cr);
  json_decref(root);
  if (st != GCB_OK) {
    gcb_criteria_free(cr);
    return st;
  }
  *out = cr;
  return GCB_OK;
}

enum gcb_status gcb_criteria_read(const char *path, struct gcb_criteria **out,
                                  struct gcb_err *err) {
  *out = NULL;
  char *buf = NULL;
  size_t len = 0;
  /* as every input: a FIFO with no writer, a device, a sparse file refused
   * (fopen and fread once waited for ever on a FIFO) */
  enum gcb_status st = gcb_file_read(path, CRITERIA_MAX_BYTES, &buf, &len, err);
  if (st == GCB_OK)
    st = gcb_criteria_parse(buf, len, path, out, err);
  free(buf);
  return st;
}

/* ---- built-in expectation files (reports/criteria/skus/) ------------- */

static enum gcb_status sku_bad(struct gcb_err *err, const char *name,
                               const char *why) {
  return gcb_err_set(err, GCB_EINTERNAL,
                     "built-in expectations: %s is not %s (%s)", name,
                     GCB_SKU_SCHEMA, why);
}

static enum gcb_status sku_lists(const struct gcb__sku_file *f,
                                 const json_t *root, struct gcb_sku *out,
                                 struct gcb_err *err) {
  size_t i;
  const json_t *v;
  json_array_foreach(json_object_get(root, "models"), i, v) {
    if (!json_is_string(v))
      continue;
    if (out->nmodels == GCB_SKU_MAX_MODELS ||
        json_string_length(v) >= sizeof out->models[0])
      return sku_bad(err, f->name, "models");
    gcb_view_copy(out->models[out->nmodels++], sizeof out->models[0],
                  json_string_value(v));
  }
  json_array_foreach(json_object_get(root, "gemm"), i, v) {
    if (out->ngemm == GCB_SKU_MAX_GEMM)
      return sku_bad(err, f->name, "gemm");
    struct gcb_sku_gemm *g = &out->gemm[out->ngemm++];
    gcb_view_copy(g->dtype, sizeof g->dtype, gcb_view_str(v, "dtype"));
    g->peak_tflops = gcb_view_num(v, "peak_tflops");
  }
  return GCB_OK;
}

static void sku_parts(const json_t *root, struct gcb_sku *out) {
  const json_t *m = gcb_view_obj(root, "membw"),
               *p = gcb_view_obj(root, "pcie"),
               *n = gcb_view_obj(root, "nvlink"),
               *fr = gcb_view_obj(root, "fractions");
  out->has_membw = m != NULL;
  out->membw_peak_gbs = gcb_view_num(m, "peak_gbs");
  out->has_pcie = p != NULL;
  out->pcie_gen = gcb_view_int(p, "gen", 0);
  out->pcie_width = gcb_view_int(p, "width", 0);
  out->has_nvlink = n != NULL;
  out->nvlink_links = gcb_view_int(n, "links", 0);
  out->nvlink_total_gbs = gcb_view_num(n, "total_gbs");
  out->frac_gemm = gcb_view_num(fr, "gemm");
  out->frac_membw = gcb_view_num(fr, "membw");
  out->frac_pcie = gcb_view_num(fr, "pcie");
  out->frac_nvlink = gcb_view_num(fr, "nvlink");
}

enum gcb_status gcb_sku_parse(const struct gcb__sku_file *f,
                              struct gcb_sku *out, struct gcb_err *err) {
  json_error_t je;
  *out = (struct gcb_sku){0};
  json_t *root = json_loadb(f->text, f->len, JSON_REJECT_DUPLICATES, &je);
  const char *schema = json_string_value(json_object_get(root, "schema"));
  enum gcb_status st = GCB_OK;
  if (root == NULL || schema == NULL || strcmp(schema, GCB_SKU_SCHEMA) != 0)
    st = sku_bad(err, f->name, root == NULL ? je.text : "schema");
  if (st == GCB_OK)
    st = sku_lists(f, root, out, err);
  if (st == GCB_OK) {
    gcb_view_copy(out->sku, sizeof out->sku, gcb_view_str(root, "sku"));
    sku_parts(root, out);
  }
  json_decref(root);
  return st;
}
