/*
 * The schema walker of the results document (reports/document/schema.h):
 * checks a JSON tree against the node tables each section keeps beside its
 * writer, and words the first problem it finds, located in the file's text
 * when there is one.
 */
#include "reports/document/schema.h"

#include "reports/document/ranks.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const struct gcb__node gcb__n_str = {.types = T_STR};
const struct gcb__node gcb__n_int = {.types = T_INT};
const struct gcb__node gcb__n_num = {.types = T_NUM};
const struct gcb__node gcb__n_bool = {.types = T_BOOL};
const struct gcb__node gcb__n_str_null = {.types = T_STR | T_NULL};
const struct gcb__node gcb__n_int_null = {.types = T_INT | T_NULL};
const struct gcb__node gcb__n_num_null = {.types = T_NUM | T_NULL};
const struct gcb__node gcb__n_bool_null = {.types = T_BOOL | T_NULL};
const struct gcb__node gcb__n_str_array = {.types = T_ARR,
                                           .items = &gcb__n_str};
const struct gcb__node gcb__n_int_array = {.types = T_ARR,
                                           .items = &gcb__n_int};

unsigned gcb__schema_type_bit(const json_t *v) {
  static const unsigned bits[] = {
      [JSON_OBJECT] = T_OBJ,  [JSON_ARRAY] = T_ARR, [JSON_STRING] = T_STR,
      [JSON_INTEGER] = T_INT, [JSON_REAL] = T_REAL, [JSON_TRUE] = T_BOOL,
      [JSON_FALSE] = T_BOOL,  [JSON_NULL] = T_NULL};
  return bits[json_typeof(v)];
}

const char *gcb__schema_type_word(const json_t *v) {
  static const char *const words[] = {"object", "array",   "string",  "integer",
                                      "real",   "boolean", "boolean", "null"};
  return words[json_typeof(v)];
}

const char *gcb__schema_expected(unsigned types) {
  static const struct {
    unsigned types;
    const char *words;
  } table[] = {
      {T_STR, "a string"},
      {T_INT, "an integer"},
      {T_NUM, "a number"},
      {T_BOOL, "a boolean"},
      {T_OBJ, "an object"},
      {T_ARR, "an array"},
      {T_STR | T_NULL, "a string or null"},
      {T_INT | T_NULL, "an integer or null"},
      {T_NUM | T_NULL, "a number or null"},
      {T_BOOL | T_NULL, "a boolean or null"},
      {T_OBJ | T_NULL, "an object or null"},
      {T_STR | T_NUM, "a string or a number"},
      {T_SCALAR, "a string, number, boolean or null"},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (table[i].types == types)
      return table[i].words;
  return "another type";
}

enum gcb_status gcb__schema_problem(struct gcb__walk *w, const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (w->text != NULL)
    return gcb_json_located(w->err, w->text, w->len, w->name, w->path, w->depth,
                            what);
  char path[192];
  gcb_json_path_text(w->path, w->depth, path, sizeof path);
  return gcb_err_set(w->err, GCB_EINTERNAL, "%s%s%s", path, path[0] ? ": " : "",
                     what);
}

enum gcb_status gcb__schema_check_child(struct gcb__walk *w, const char *key,
                                        size_t index, const json_t *v,
                                        const struct gcb__node *n) {
  if (w->depth >= GCB__SCHEMA_MAX_DEPTH)
    return gcb__schema_problem(w, "nested too deeply for the schema walker");
  w->path[w->depth++] = (struct gcb_json_step){.key = key, .index = index};
  enum gcb_status rc = gcb__schema_check(w, v, n);
  w->depth--;
  return rc;
}

static enum gcb_status check_fields(struct gcb__walk *w, const json_t *obj,
                                    const struct gcb__field *fields) {
  for (const struct gcb__field *f = fields; f->name != NULL; f++) {
    const json_t *v = json_object_get(obj, f->name);
    if (v == NULL && f->required)
      return gcb__schema_problem(w, "missing required field '%s'", f->name);
    enum gcb_status rc =
        v != NULL ? gcb__schema_check_child(w, f->name, 0, v, f->node) : GCB_OK;
    if (rc != GCB_OK)
      return rc;
  }
  return GCB_OK;
}

/* Whether a node is a bare type check (a column's elements). */
static bool bare(const struct gcb__node *n) {
  return n->fields == NULL && n->items == NULL && n->choices == NULL &&
         n->check == NULL;
}

const struct gcb__field *gcb__schema_field(const struct gcb__field *fields,
                                           const char *name) {
  for (const struct gcb__field *f = fields; f != NULL && f->name != NULL; f++)
    if (strcmp(f->name, name) == 0)
      return f;
  return NULL;
}

/* The elements of an array, or the members of an object that fields (NULL:
 * none) has no row for, against items. */
static enum gcb_status check_members(struct gcb__walk *w, const json_t *v,
                                     const struct gcb__node *items,
                                     const struct gcb__field *fields) {
  enum gcb_status rc = GCB_OK;
  if (json_is_array(v)) {
    size_t n = json_array_size(v);
    /* Columns hold a million numbers: only a wrong one takes the path. */
    for (size_t i = 0; i < n && rc == GCB_OK; i++) {
      const json_t *e = json_array_get(v, i);
      if (!bare(items) || (gcb__schema_type_bit(e) & items->types) == 0)
        rc = gcb__schema_check_child(w, NULL, i, e, items);
    }
    return rc;
  }
  const char *key;
  const json_t *m;
  json_object_foreach((json_t *)v, key, m) {
    if (gcb__schema_field(fields, key) == NULL &&
        (rc = gcb__schema_check_child(w, key, 0, m, items)) != GCB_OK)
      break;
  }
  return rc;
}

static enum gcb_status check_choice(struct gcb__walk *w, const json_t *v,
                                    const char *const *choices) {
  for (const char *const *c = choices; *c != NULL; c++)
    if (strcmp(json_string_value(v), *c) == 0)
      return GCB_OK;
  char list[128] = "";
  for (const char *const *c = choices; *c != NULL; c++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
             c == choices ? "" : ", ", *c);
  return gcb__schema_problem(w, "expected one of %s, got \"%s\"", list,
                             json_string_value(v));
}

const struct gcb_ranks *gcb__walk_ranks(const struct gcb__walk *w,
                                        size_t index) {
  static const struct gcb_ranks none;
  if (w->ranks == NULL)
    return NULL;
  return index < w->nranks ? &w->ranks[index] : &none;
}

enum gcb_status gcb__schema_check(struct gcb__walk *w, const json_t *v,
                                  const struct gcb__node *n) {
  /* per_rank, at cases[i].per_rank */
  if (n->apart != NULL && w->ranks != NULL && w->depth >= 2)
    return n->apart(w, gcb__walk_ranks(w, w->path[w->depth - 2].index));
  if ((gcb__schema_type_bit(v) & n->types) == 0)
    return gcb__schema_problem(w, "expected %s, got %s",
                               gcb__schema_expected(n->types),
                               gcb__schema_type_word(v));
  if (n->choices != NULL && json_is_string(v))
    return check_choice(w, v, n->choices);
  enum gcb_status rc = GCB_OK;
  if (n->fields != NULL && json_is_object(v))
    rc = check_fields(w, v, n->fields);
  if (rc == GCB_OK && n->items != NULL &&
      (json_is_object(v) || json_is_array(v)))
    rc = check_members(w, v, n->items, n->fields);
  return rc == GCB_OK && n->check != NULL ? n->check(w, v) : rc;
}

enum gcb_status gcb__schema_check_built(const json_t *v,
                                        const struct gcb__node *n,
                                        const char *key, const char *what,
                                        struct gcb_err *err) {
  struct gcb__walk w = {.err = err};
  enum gcb_status rc = key != NULL ? gcb__schema_check_child(&w, key, 0, v, n)
                                   : gcb__schema_check(&w, v, n);
  if (rc != GCB_OK)
    gcb_err_prefix(err, "%s", what);
  return rc;
}
