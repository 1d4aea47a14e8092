/*
 * Reading a results document (reports/document/results.h): the size its
 * shape allows, jansson's parse, the schema field (another version, or not a
 * results document at all), the walk against the rows, and the upgrade of
 * a schema-1 document to the current schema, and the check of what its
 * values say of each other (consistency.c). Every problem comes out as
 * "file:line:column: path: what".
 */
#include "reports/document/results_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "reports/document/jsonpos.h"
#include "reports/document/ranks.h"

/* The schema field first: tells a results document of another version
 * from something that is not a results document at all. *root_node is
 * the node the rest of the document is checked against. */
static enum gcb_status check_schema(struct gcb__walk *w, const json_t *root,
                                    const struct gcb__node **root_node) {
  if (!json_is_object(root))
    return gcb__schema_problem(
        w,
        "not a gcbench results document (top level is %s %s, "
        "expected an object)",
        strchr("aeiou", gcb__schema_type_word(root)[0]) ? "an" : "a",
        gcb__schema_type_word(root));
  const json_t *schema = json_object_get(root, "schema");
  if (schema == NULL)
    return gcb__schema_problem(
        w, "not a gcbench results document (no \"schema\" field)");
  w->path[w->depth++] = (struct gcb_json_step){.key = "schema"};
  const char *s = json_string_value(schema);
  size_t plen = strlen(GCB__SCHEMA_PREFIX);
  *root_node = s == NULL                               ? NULL
               : strcmp(s, GCB_RESULTS_SCHEMA) == 0    ? &gcb__n_root
               : strcmp(s, GCB_RESULTS_SCHEMA_V1) == 0 ? &gcb__n_root_v1
                                                       : NULL;
  if (*root_node != NULL) {
    w->depth--;
    return GCB_OK;
  }
  if (s != NULL && strncmp(s, GCB__SCHEMA_PREFIX, plen) == 0)
    return gcb__schema_problem(
        w,
        "unsupported schema version %s (this gcbench reads %s "
        "and %s)",
        s + plen, GCB_RESULTS_SCHEMA, GCB_RESULTS_SCHEMA_V1);
  return gcb__schema_problem(
      w, "not a gcbench results document (schema is not \"%s\")",
      GCB_RESULTS_SCHEMA);
}

/* A valid schema-1 document becomes a schema-2 one: each case's per-rank
 * entries transposed into columns. -1 on ENOMEM. */
static int upgrade_v1(json_t *root) {
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(root, "cases"), i, c) {
    json_t *cols = gcb_ranks_from_rows(json_object_get(c, "per_rank"));
    if (cols == NULL || json_object_set_new(c, "per_rank", cols) != 0)
      return -1;
  }
  return json_object_set_new(root, "schema", json_string(GCB_RESULTS_SCHEMA));
}

static int all_blank(const char *text, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (memchr(" \t\r\n", text[i], 4) == NULL)
      return 0;
  return 1;
}

/* Whether a document of len bytes and `entries` per-rank entries is
 * within the limit its shape gives (results.h). */
static bool size_fits(size_t len, size_t entries) {
  if (len > GCB_RESULTS_MAX_BYTES)
    return false;
  return len <= GCB_FILE_MAX_BYTES ||
         (len - GCB_FILE_MAX_BYTES) / GCB_RESULTS_ENTRY_BYTES < entries;
}

/* The message for a file over its limit: the limit of a document without
 * per-rank entries, or of one with as many as this one has. */
static enum gcb_status too_large(const char *name, size_t len, size_t entries,
                                 struct gcb_err *err) {
  if (len > GCB_RESULTS_MAX_BYTES || entries == 0)
    return gcb_err_set(err, GCB_EINPUT,
                       "%s: too large (%zu bytes, limit %zu MiB)", name, len,
                       (len > GCB_RESULTS_MAX_BYTES ? GCB_RESULTS_MAX_BYTES
                                                    : GCB_FILE_MAX_BYTES) >>
                           20);
  return gcb_err_set(err, GCB_EINPUT,
                     "%s: too large (%zu bytes, limit %zu MiB for its %zu "
                     "per-rank entries: %zu MiB and %zu KiB per entry)",
                     name, len,
                     (GCB_FILE_MAX_BYTES >> 20) +
                         entries * (GCB_RESULTS_ENTRY_BYTES >> 10) / 1024,
                     entries, GCB_FILE_MAX_BYTES >> 20,
                     GCB_RESULTS_ENTRY_BYTES >> 10);
}

/* The tree of the text: the quick road when it takes the text (the
 * per-rank columns apart in *ranks), jansson's otherwise (which words what
 * is wrong with it); then a NUL byte, which jansson may have dropped,
 * refused. */
static enum gcb_status load(const char *text, size_t len, const char *name,
                            json_t **root, struct gcb_results *cols,
                            struct gcb_err *err) {
  size_t entries = 0;
  bool fast = len <= GCB_RESULTS_MAX_BYTES &&
              gcb__read_fast(text, len, size_fits, root, &cols->ranks,
                             &cols->nranks, &entries);
  if (!size_fits(len, entries))
    return too_large(name, len, entries, err);
  if (fast) /* a text with a NUL byte it gives up on (read_lex.h) */
    return GCB_OK;
  if (all_blank(text, len))
    return gcb_err_set(err, GCB_EINPUT,
                       "%s:1:1: empty file, not a gcbench results document",
                       name);
  json_error_t je;
  *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
  if (*root == NULL)
    return gcb_err_set(err, GCB_EINPUT, "%s:%d:%d: %s", name, je.line,
                       je.column > 0 ? je.column : 1, je.text);
  return gcb_json_no_nul(err, text, len, name);
}

/* jansson's road, once the tree is valid: each case's per_rank columns
 * into arrays, as the quick road reads them, and `{}` left in the tree.
 * -1 on ENOMEM. */
static int columns_apart(json_t *root, struct gcb_results *cols) {
  json_t *cases = json_object_get(root, "cases"), *c;
  size_t i, n = json_array_size(cases);
  if ((cols->ranks = calloc(n ? n : 1, sizeof *cols->ranks)) == NULL)
    return -1;
  cols->nranks = n;
  json_array_foreach(cases, i, c) {
    if (gcb_ranks_of(c, &cols->ranks[i]) != 0 ||
        json_object_set_new(c, "per_rank", json_object()) != 0)
      return -1;
  }
  return 0;
}

enum gcb_status gcb_results_parse(const char *text, size_t len,
                                  const char *name, struct gcb_results **out,
                                  struct gcb_err *err) {
  *out = NULL;
  name = name != NULL ? name : "<buffer>";
  json_t *root = NULL;
  struct gcb_results cols = {0}; /* the columns, until *out holds them */
  enum gcb_status rc = load(text, len, name, &root, &cols, err);
  /* the quick road's cases hold their columns apart */
  struct gcb__walk w = {.text = text,
                        .len = len,
                        .name = name,
                        .err = err,
                        .ranks = cols.ranks,
                        .nranks = cols.nranks};
  const struct gcb__node *root_node = NULL;
  if (rc == GCB_OK)
    rc = check_schema(&w, root, &root_node);
  if (rc == GCB_OK)
    rc = gcb__schema_check(&w, root, root_node);
  if (rc == GCB_OK && root_node == &gcb__n_root_v1 && upgrade_v1(root) != 0)
    rc = gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", name);
  if (rc == GCB_OK && cols.ranks == NULL && columns_apart(root, &cols) != 0)
    rc = gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", name);
  if (rc == GCB_OK)
    rc = gcb__check_values(&w, root, cols.ranks, cols.nranks,
                           root_node == &gcb__n_root_v1);
  for (size_t i = 0; rc == GCB_OK && i < cols.nranks; i++)
    if (gcb__ranks_order(&cols.ranks[i]) != 0)
      rc = gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", name);
  if (rc == GCB_OK && gcb__ranks_order_document(root) != 0)
    rc = gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", name);
  if (rc == GCB_OK)
    rc = gcb__check_unique(&w, root, cols.ranks, cols.nranks,
                           root_node == &gcb__n_root_v1);
  if (rc == GCB_OK && (*out = gcb__results_wrap(root)) == NULL)
    rc = gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", name);
  else if (rc != GCB_OK)
    json_decref(root);
  if (rc != GCB_OK) {
    gcb__ranks_free_all(cols.ranks, cols.nranks);
    return rc;
  }
  (*out)->ranks = cols.ranks;
  (*out)->nranks = cols.nranks;
  return GCB_OK;
}
