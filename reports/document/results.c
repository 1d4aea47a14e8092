/*
 * The results document as an object: a JSON tree with its top-level schema
 * rows (the list of sections, in the order they are written), setting a
 * section, and the two small sections that are plain lists, "skipped" and
 * "errors", with their rows. Each other section's writer and rows live in
 * its own file (section_*.c); building cases from records in
 * section_cases.c; writing in write.c; reading in read.c.
 */
#include "reports/document/results_int.h"

#include <stdlib.h>
#include <string.h>

#include "reports/document/model.h"
#include "reports/document/ranks.h"

static const struct gcb__field skip_fields[] = {
    REQ("bench", &gcb__n_str, IN(skip, bench)),
    REQ("label", &gcb__n_str, IN(skip, label)),
    REQ("reason", &gcb__n_str, IN(skip, reason)),
    {0},
};
static const struct gcb__field error_fields[] = {
    REQ("bench", &gcb__n_str, IN(error, bench)),
    REQ("label", &gcb__n_str, IN(error, label)),
    REQ("rank", &gcb__n_int, IN(error, rank)),
    REQ("status", &gcb__n_str, IN(error, status)),
    REQ("message", &gcb__n_str, IN(error, message)),
    {0},
};

/* Top level, in the order sections are written. */
#define ROOT_FIELDS(case_node)                                                 \
  REQ("schema", &gcb__n_str), REQ("tool", &gcb__n_tool),                       \
      REQ("run", &gcb__n_run), OPT("options", &gcb__n_options),                \
      OPT("software", &gcb__n_software), OPT("nodes", &gcb__n_nodes),          \
      OPT("ranks", &gcb__n_ranks), REQ("cases", ARR(case_node)),               \
      REQ("skipped", ARR(OBJ(skip_fields))),                                   \
      REQ("errors", ARR(OBJ(error_fields))), {                                 \
    0                                                                          \
  }

const struct gcb__field gcb__root_fields[] = {ROOT_FIELDS(&gcb__n_case)};
const struct gcb__node gcb__n_root = {.types = T_OBJ,
                                      .fields = gcb__root_fields};
static const struct gcb__field root_fields_v1[] = {
    ROOT_FIELDS(&gcb__n_case_v1)};
const struct gcb__node gcb__n_root_v1 = {.types = T_OBJ,
                                         .fields = root_fields_v1};

/* Sections the harness sets with gcb_results_set. */
static const char *const settable[] = {"tool",  "run",   "options", "software",
                                       "nodes", "ranks", NULL};

const char *gcb__str_or_empty(const char *s) {
  return s != NULL ? s : "";
}

json_t *gcb__json_set(json_t *o, const char *key, json_t *v) {
  if (json_object_set_new(o, key, v) != 0)
    json_decrefp(&o);
  return o;
}

json_t *gcb__json_push(json_t *a, json_t *v) {
  if (json_array_append_new(a, v) != 0)
    json_decrefp(&a);
  return a;
}

json_t *gcb__int_or_null(long long v) {
  return v >= 0 ? json_integer(v) : json_null();
}

json_t *gcb__str_or_null(const char *s) {
  return s && s[0] ? json_string(s) : json_null();
}

enum gcb_status gcb__results_append(struct gcb_results *r, const char *section,
                                    json_t *item, struct gcb_err *err) {
  if (item == NULL)
    return gcb_err_set(err, GCB_ENOMEM,
                       "results: cannot build %s entry (out of memory, or a "
                       "string that is not UTF-8)",
                       section);
  if (json_array_append_new(json_object_get(r->root, section), item) != 0)
    return gcb_err_set(err, GCB_ENOMEM, "results: cannot append to %s",
                       section);
  return GCB_OK;
}

struct gcb_results *gcb__results_wrap(json_t *root) {
  struct gcb_results *r = root != NULL ? calloc(1, sizeof *r) : NULL;
  if (r != NULL && (r->cache = calloc(1, sizeof *r->cache)) != NULL) {
    r->root = root;
    return r;
  }
  free(r);
  json_decref(root);
  return NULL;
}

struct gcb_results *gcb_results_new(void) {
  return gcb__results_wrap(json_pack("{s:s, s:[], s:[], s:[]}", "schema",
                                     GCB_RESULTS_SCHEMA, "cases", "skipped",
                                     "errors"));
}

void gcb_results_free(struct gcb_results *r) {
  if (r == NULL)
    return;
  /* The columns' large blocks before the tree's small ones: freed after
   * them, each large block made glibc merge the tree's hundreds of
   * thousands of freed chunks first (malloc_consolidate, most of a large
   * document's freeing). */
  gcb__ranks_free_all(r->ranks, r->nranks);
  gcb__case_cache_free(r->cache);
  json_decref(r->root);
  free(r);
}

json_t *gcb_results_json(const struct gcb_results *r) {
  return r->root;
}

const struct gcb_ranks *gcb_results_ranks(const struct gcb_results *r,
                                          size_t i) {
  return i < r->nranks ? &r->ranks[i] : NULL;
}

enum gcb_status gcb_results_plain(struct gcb_results *r, struct gcb_err *err) {
  json_t *cases = json_object_get(r->root, "cases");
  for (size_t i = 0; i < r->nranks; i++) {
    json_t *c = json_array_get(cases, i);
    if (json_is_object(json_object_get(c, "per_rank")) &&
        json_object_set_new(c, "per_rank", gcb_ranks_json(&r->ranks[i])) != 0)
      return gcb_err_set(err, GCB_ENOMEM, "results: out of memory");
  }
  gcb__ranks_free_all(r->ranks, r->nranks);
  r->ranks = NULL;
  r->nranks = 0;
  return GCB_OK;
}

static const struct gcb__node *section_node(const char *section) {
  for (const char *const *s = settable; *s != NULL; s++)
    if (strcmp(*s, section) == 0)
      return gcb__schema_field(gcb__root_fields, section)->node;
  return NULL;
}

enum gcb_status gcb_results_set(struct gcb_results *r, const char *section,
                                json_t *value, struct gcb_err *err) {
  enum gcb_status rc = GCB_OK;
  const struct gcb__node *n = section_node(section);
  if (n == NULL)
    rc = gcb_err_set(err, GCB_EINTERNAL, "results: no settable section '%s'",
                     section);
  else if (value == NULL)
    rc = gcb_err_set(err, GCB_ENOMEM, "results: no value for section '%s'",
                     section);
  else
    rc = gcb__schema_check_built(value, n, section, "results", err);
  if (rc == GCB_OK && json_object_set(r->root, section, value) != 0)
    rc = gcb_err_set(err, GCB_ENOMEM, "results: cannot set '%s'", section);
  json_decref(value);
  return rc;
}

enum gcb_status gcb_results_add_skip(struct gcb_results *r, const char *bench,
                                     const char *label, const char *reason,
                                     struct gcb_err *err) {
  return gcb__results_append(
      r, "skipped",
      json_pack("{s:s, s:s, s:s}", "bench", gcb__str_or_empty(bench), "label",
                gcb__str_or_empty(label), "reason", gcb__str_or_empty(reason)),
      err);
}

enum gcb_status gcb_results_add_error(struct gcb_results *r, const char *bench,
                                      const char *label, int rank,
                                      enum gcb_status code, const char *message,
                                      struct gcb_err *err) {
  return gcb__results_append(
      r, "errors",
      json_pack("{s:s, s:s, s:i, s:s, s:s}", "bench", gcb__str_or_empty(bench),
                "label", gcb__str_or_empty(label), "rank", rank, "status",
                gcb_status_name(code), "message", gcb__str_or_empty(message)),
      err);
}
