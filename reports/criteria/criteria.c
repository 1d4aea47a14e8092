/*
 * Reading acceptance criteria: parse with jansson, then check the tree
 * against the tables below, locating every problem in the text with
 * gcb_json_locate. Evaluation lives in criteria_eval.c.
 */
#include "reports/criteria/criteria.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "reports/document/jsonpos.h"

#define CRITERIA_MAX_BYTES ((size_t)16 << 20)
#define SCHEMA_PREFIX "gcbench.criteria/"
#define MAX_DEPTH 6

enum { J_STR = 1, J_NUM = 2, J_OBJ = 4, J_ARR = 8 };

/* The parser's position: the path from the root, for error locations. */
struct parse {
  const char *text;
  size_t len;
  const char *name;
  struct gcb_json_step path[MAX_DEPTH];
  size_t depth;
  struct gcb_err *err;
};

static void enter(struct parse *p, const char *key, size_t index) {
  if (p->depth < MAX_DEPTH)
    p->path[p->depth] = (struct gcb_json_step){.key = key, .index = index};
  p->depth++;
}

static void leave(struct parse *p) {
  p->depth--;
}

/* "name:line:col: path: what", located at the current path. */
__attribute__((format(printf, 2, 3))) static enum gcb_status
bad(struct parse *p, const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  size_t depth = p->depth < MAX_DEPTH ? p->depth : MAX_DEPTH;
  return gcb_json_located(p->err, p->text, p->len, p->name, p->path, depth,
                          what);
}

static const char *type_words(int types) {
  switch (types) {
  case J_STR:
    return "a string";
  case J_NUM:
    return "a number";
  case J_OBJ:
    return "an object";
  case J_ARR:
    return "an array";
  default:
    return "a string or a number";
  }
}

static int type_of(const json_t *v) {
  return json_is_string(v)   ? J_STR
         : json_is_number(v) ? J_NUM
         : json_is_object(v) ? J_OBJ
         : json_is_array(v)  ? J_ARR
                             : 0;
}

/* An object's allowed members and their types. */
struct member_spec {
  const char *name;
  int types;
  bool required;
};

static const char *const json_type_names[] = {
    "an object", "an array",  "a string",  "an integer",
    "a real",    "a boolean", "a boolean", "null"};

static enum gcb_status check_members(struct parse *p, const json_t *obj,
                                     const struct member_spec *spec) {
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    const struct member_spec *s = spec;
    while (s->name != NULL && strcmp(s->name, key) != 0)
      s++;
    enter(p, key, 0);
    if (s->name == NULL) {
      char list[192] = "";
      for (s = spec; s->name; s++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 s == spec ? "" : ", ", s->name);
      return bad(p, "unknown field '%s' (expected one of: %s)", key, list);
    }
    if ((type_of(v) & s->types) == 0)
      return bad(p, "expected %s, got %s", type_words(s->types),
                 json_type_names[json_typeof(v)]);
    leave(p);
  }
  for (const struct member_spec *s = spec; s->name; s++)
    if (s->required && json_object_get(obj, s->name) == NULL)
      return bad(p, "missing required field '%s'", s->name);
  return GCB_OK;
}

static const struct member_spec root_spec[] = {
    {"schema", J_STR, true},
    {"name", J_STR, false},
    {"description", J_STR, false},
    {"thresholds", J_OBJ, false},
    {"regression_pct_by", J_OBJ, false},
    {"checks", J_ARR, true},
    {NULL, 0, false},
};

static const struct member_spec check_spec[] = {
    {"name", J_STR, false}, {"bench", J_STR, true}, {"params", J_OBJ, false},
    {"unit", J_STR, false}, {"min", J_OBJ, false},  {"max", J_OBJ, false},
    {NULL, 0, false},
};

static enum gcb_status check_schema(struct parse *p, const json_t *root) {
  if (!json_is_object(root))
    return bad(p, "not a gcbench criteria file (expected an object)");
  const char *s = json_string_value(json_object_get(root, "schema"));
  if (s != NULL && strcmp(s, GCB_CRITERIA_SCHEMA) == 0)
    return GCB_OK;
  if (json_object_get(root, "schema") == NULL)
    return bad(p, "not a gcbench criteria file (no \"schema\" field)");
  enter(p, "schema", 0);
  if (s != NULL && strncmp(s, SCHEMA_PREFIX, strlen(SCHEMA_PREFIX)) == 0)
    return bad(p, "unsupported criteria version %s (this gcbench reads %s)",
               s + strlen(SCHEMA_PREFIX), GCB_CRITERIA_SCHEMA);
  return bad(p, "not a gcbench criteria file (schema is not \"%s\")",
             GCB_CRITERIA_SCHEMA);
}

/* A number within [min, max] (max 0: unbounded), at the current path. */
static enum gcb_status number_in(struct parse *p, const json_t *v, double min,
                                 double max, double *out) {
  if (!json_is_number(v))
    return bad(p, "expected a number, got %s", json_type_names[json_typeof(v)]);
  double x = json_number_value(v);
  if (x < min || (max > 0 && x > max))
    return bad(p, "%g is out of range [%g, %g]", x, min, max);
  *out = x;
  return GCB_OK;
}

static enum gcb_status read_thresholds(struct parse *p, const json_t *obj,
                                       struct gcb_thresholds *t) {
  const char *key;
  const json_t *v;
  enum gcb_status st = GCB_OK;
  json_object_foreach((json_t *)obj, key, v) {
    const struct gcb_threshold_def *d = gcb_threshold_find(key);
    enter(p, key, 0);
    if (d == NULL)
      return bad(p, "unknown threshold '%s' (see docs/criteria-schema.md)",
                 key);
    if ((st = number_in(p, v, d->min, d->max,
                        (double *)((char *)t + d->offset))) != GCB_OK)
      return st;
    leave(p);
  }
  return GCB_OK;
}

static enum gcb_status read_overrides(struct parse *p, const json_t *obj,
                                      struct gcb_thresholds *t) {
  const char *key;
  const json_t *v;
  enum gcb_status st;
  json_object_foreach((json_t *)obj, key, v) {
    enter(p, key, 0);
    if (t->nregression_by == GCB_MAX_OVERRIDES)
      return bad(p, "more than %d overrides", GCB_MAX_OVERRIDES);
    struct gcb_override *o = &t->regression_by[t->nregression_by];
    if (strlen(key) >= sizeof o->key)
      return bad(p, "key longer than %zu bytes", sizeof o->key - 1);
    if ((st = number_in(p, v, 0, 1000, &o->pct)) != GCB_OK)
      return st;
    snprintf(o->key, sizeof o->key, "%s", key);
    t->nregression_by++;
    leave(p);
  }
  return GCB_OK;
}

static const struct gcb_metric *metric_find(const char *name) {
  for (const struct gcb_metric *m = gcb_metrics; m->name; m++)
    if (strcmp(m->name, name) == 0)
      return m;
  return NULL;
}

static enum gcb_status read_bounds(struct parse *p, const json_t *obj,
                                   bool is_min, struct gcb_criterion *k) {
  const char *key;
  const json_t *v;
  enum gcb_status st;
  json_object_foreach((json_t *)obj, key, v) {
    const struct gcb_metric *m = metric_find(key);
    enter(p, key, 0);
    if (m == NULL) {
      char list[192] = "";
      /* The pattern_* metrics (docs/PATTERNS.md) would crowd the line. */
      for (m = gcb_metrics; m->name; m++)
        if (m->value_in == NULL)
          snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                   m == gcb_metrics ? "" : ", ", m->name);
      return bad(p, "unknown metric '%s' (expected one of: %s)", key, list);
    }
    if (k->nbounds == GCB_MAX_BOUNDS)
      return bad(p, "more than %d bounds in one check", GCB_MAX_BOUNDS);
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
static enum gcb_status check_params(struct parse *p, const json_t *params,
                                    struct gcb_criterion *k) {
  const char *key;
  const json_t *v;
  k->params = calloc(json_object_size(params) + 1, sizeof *k->params);
  if (k->params == NULL)
    return gcb_err_set(p->err, GCB_ENOMEM, "%s: out of memory", p->name);
  json_object_foreach((json_t *)params, key, v) {
    enter(p, key, 0);
    if ((type_of(v) & (J_STR | J_NUM)) == 0)
      return bad(p, "expected a string or a number, got %s",
                 json_type_names[json_typeof(v)]);
    k->params[k->nparams++] = (struct gcb_check_param){
        .key = key,
        .is_num = json_is_number(v),
        .num = json_is_number(v) ? json_number_value(v) : 0,
        .str = json_string_value(v)};
    leave(p);
  }
  return GCB_OK;
}

/* "gemm dtype=fp32" for checks without a name. */
static void default_name(struct gcb_criterion *k) {
  size_t used = (size_t)snprintf(k->name, sizeof k->name, "%s", k->bench);
  for (size_t i = 0; i < k->nparams; i++) {
    const struct gcb_check_param *v = &k->params[i];
    if (used >= sizeof k->name)
      break;
    int n = !v->is_num ? snprintf(k->name + used, sizeof k->name - used,
                                  " %s=%s", v->key, v->str)
                       : snprintf(k->name + used, sizeof k->name - used,
                                  " %s=%g", v->key, v->num);
    used += n > 0 ? (size_t)n : 0;
  }
  gcb_view_copy(k->name, sizeof k->name, k->name);
}

/* Bounds that no run can meet (issue 20 item 14): a minimum above the
 * maximum of the same metric, or a maximum below 0 (every metric is a
 * figure, a time, a count or a percentage: never negative). A check that
 * can never pass is a mistake in the file, not a verdict on the run. */
static enum gcb_status impossible_bounds(struct parse *p,
                                         const struct gcb_criterion *k) {
  for (size_t i = 0; i < k->nbounds; i++) {
    const struct gcb_bound *b = &k->bounds[i];
    if (!b->is_min && b->limit < 0)
      return bad(p, "max %s %g can never be met: %s is never negative",
                 b->metric->name, b->limit, b->metric->name);
    for (size_t j = 0; b->is_min && j < k->nbounds; j++)
      if (!k->bounds[j].is_min && k->bounds[j].metric == b->metric &&
          b->limit > k->bounds[j].limit)
        return bad(p,
                   "min %s %g is above its max %g: the check can never "
                   "pass",
                   b->metric->name, b->limit, k->bounds[j].limit);
  }
  return GCB_OK;
}

static enum gcb_status read_check(struct parse *p, const json_t *obj,
                                  struct gcb_criterion *k) {
  enum gcb_status st;
  if (!json_is_object(obj))
    return bad(p, "expected an object, got %s",
               json_type_names[json_typeof(obj)]);
  if ((st = check_members(p, obj, check_spec)) != GCB_OK)
    return st;
  k->bench = json_string_value(json_object_get(obj, "bench"));
  k->unit = json_string_value(json_object_get(obj, "unit"));
  enter(p, "params", 0);
  st = check_params(p, json_object_get(obj, "params"), k);
  leave(p);
  for (int i = 0; st == GCB_OK && i < 2; i++) {
    const char *side = i == 0 ? "min" : "max";
    enter(p, side, 0);
    const json_t *b = json_object_get(obj, side);
    st = b ? read_bounds(p, b, i == 0, k) : GCB_OK;
    leave(p);
  }
  if (st == GCB_OK && k->nbounds == 0)
    return bad(p, "a check needs at least one bound in \"min\" or \"max\"");
  if (st == GCB_OK && (st = impossible_bounds(p, k)) != GCB_OK)
    return st;
  const char *name = json_string_value(json_object_get(obj, "name"));
  if (name != NULL)
    gcb_view_copy(k->name, sizeof k->name, name);
  else
    default_name(k);
  return st;
}

static enum gcb_status read_checks(struct parse *p, const json_t *arr,
                                   struct gcb_criteria *cr) {
  size_t n = json_array_size(arr);
  cr->checks = calloc(n + 1, sizeof *cr->checks);
  if (cr->checks == NULL)
    return gcb_err_set(p->err, GCB_ENOMEM, "%s: out of memory", p->name);
  enter(p, "checks", 0);
  for (size_t i = 0; i < n; i++) {
    enter(p, NULL, i);
    enum gcb_status st =
        read_check(p, json_array_get(arr, i), &cr->checks[cr->nchecks]);
    if (st != GCB_OK)
      return st;
    cr->nchecks++;
    leave(p);
  }
  leave(p);
  return GCB_OK;
}

static enum gcb_status read_root(struct parse *p, struct gcb_criteria *cr) {
  const json_t *root = cr->root;
  enum gcb_status st = check_schema(p, root);
  if (st == GCB_OK)
    st = check_members(p, root, root_spec);
  const json_t *th = json_object_get(root, "thresholds");
  const json_t *by = json_object_get(root, "regression_pct_by");
  enter(p, "thresholds", 0);
  if (st == GCB_OK && th != NULL)
    st = read_thresholds(p, th, &cr->thresholds);
  leave(p);
  enter(p, "regression_pct_by", 0);
  if (st == GCB_OK && by != NULL)
    st = read_overrides(p, by, &cr->thresholds);
  leave(p);
  if (st == GCB_OK)
    st = read_checks(p, json_object_get(root, "checks"), cr);
  const char *name = json_string_value(json_object_get(root, "name"));
  cr->name = name != NULL ? name : "";
  return st;
}

enum gcb_status gcb_criteria_parse(const char *text, size_t len,
                                   const char *name, struct gcb_criteria **out,
                                   struct gcb_err *err) {
  struct parse p = {.text = text, .len = len, .name = name, .err = err};
  json_error_t je;
  *out = NULL;
  struct gcb_criteria *cr = calloc(1, sizeof *cr);
  if (cr == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", name);
  cr->path = name;
  gcb_thresholds_default(&cr->thresholds);
  cr->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
  enum gcb_status st =
      cr->root == NULL
          ? gcb_err_set(err, GCB_EINPUT, "%s:%d:%d: %s", name, je.line,
                        je.column > 0 ? je.column : 1, je.text)
          : gcb_json_no_nul(err, text, len, name);
  if (st == GCB_OK)
    st = read_root(&p, cr);
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

void gcb_criteria_free(struct gcb_criteria *cr) {
  if (cr == NULL)
    return;
  /* checks[] has a spare zeroed entry: the one a failed read stopped in */
  for (size_t i = 0; cr->checks != NULL && i <= cr->nchecks; i++)
    free(cr->checks[i].params);
  free(cr->checks);
  json_decref(cr->root);
  free(cr);
}
