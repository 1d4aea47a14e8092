/*
 * The results document's schema machinery, internal to reports/document/:
 * a node says, for one kind of JSON value, which types it may have and, for
 * an object, its fields (or, a map, the node of every member), for an array
 * the node of every element. One walker checks a tree against them, on
 * reading a file (problems located with gcb_json_locate) and on building a
 * document (sections and cases are checked as they are added, so that every
 * document gcbench writes reads back).
 *
 * The rows themselves sit with each section's writer (section_*.c); the
 * root, which lists the sections, in results.c.
 */
#ifndef GCB_DOCUMENT_SCHEMA_H
#define GCB_DOCUMENT_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/status.h"
#include "reports/document/jsonpos.h"

#define GCB__SCHEMA_MAX_DEPTH 10

enum {
  T_STR = 1 << 0,
  T_INT = 1 << 1,
  T_REAL = 1 << 2,
  T_BOOL = 1 << 3,
  T_NULL = 1 << 4,
  T_OBJ = 1 << 5,
  T_ARR = 1 << 6,
  T_NUM = T_INT | T_REAL,
  T_SCALAR = T_STR | T_NUM | T_BOOL | T_NULL,
};

struct gcb__field;
struct gcb__walk;
struct gcb_ranks;

/* A value: its allowed types; for an object its fields and (a map) the
 * node of every other member; for an array the node of every element; and
 * a check of its own, run after those (per-rank columns: equal lengths). */
struct gcb__node {
  unsigned types;
  const struct gcb__field *fields; /* terminated by a NULL name */
  const struct gcb__node *items;
  const char *const *choices; /* allowed strings, NULL-terminated */
  enum gcb_status (*check)(struct gcb__walk *w, const json_t *v);
  /* A case's per_rank, where the reader holds its columns apart (the
   * tree's value is `{}`): checks r, case i's columns, instead. */
  enum gcb_status (*apart)(struct gcb__walk *w, const struct gcb_ranks *r);
};

/* A field of an object, and where the typed model keeps it (IN). */
struct gcb__field {
  const char *name;
  const struct gcb__node *node;
  int required;
  enum { GCB__M_NONE, GCB__M_INT, GCB__M_NUM, GCB__M_STR, GCB__M_BOOL } mtype;
  size_t moff;
};

/* A required or optional field n of node nd, then where the typed model
 * keeps it, when it does: IN(part, member), member `member` of its struct
 * gcb_model_<part> (model.h), read as its C type says (model.c): long long
 * (-1 when absent or not an integer), double (NAN when not a number),
 * const char * ("" when not a string), bool (true only when true). The
 * fields of an object kept in no member of its own go to the same struct. */
#define REQ(n, nd, ...)                                                        \
  { .name = n, .node = nd, .required = 1, __VA_ARGS__ }
#define OPT(n, nd, ...)                                                        \
  { .name = n, .node = nd, .required = 0, __VA_ARGS__ }
#define IN(part, member)                                                       \
  .moff = offsetof(struct gcb_model_##part, member),                           \
  .mtype = _Generic(((struct gcb_model_##part *)0)->member,                    \
                    long long: GCB__M_INT, double: GCB__M_NUM,                 \
                    const char *: GCB__M_STR, bool: GCB__M_BOOL)
#define NODE(...) (&(const struct gcb__node){__VA_ARGS__})
#define OBJ(f) NODE(.types = T_OBJ, .fields = f)
#define ARR(item) NODE(.types = T_ARR, .items = item)

/* Bare types every section uses. */
extern const struct gcb__node gcb__n_str, gcb__n_int, gcb__n_num, gcb__n_bool,
    gcb__n_str_null, gcb__n_int_null, gcb__n_num_null, gcb__n_bool_null,
    gcb__n_str_array, gcb__n_int_array;

/* Where the walker is: the path from the root, and the text (if any) to
 * locate problems in. */
struct gcb__walk {
  const char *text;
  size_t len;
  const char *name;
  struct gcb_json_step path[GCB__SCHEMA_MAX_DEPTH];
  size_t depth;
  struct gcb_err *err;
  /* The quick road's columns of each case (ranks.h), which the tree's
   * per_rank does not hold; NULL: the tree holds them. */
  const struct gcb_ranks *ranks;
  size_t nranks;
};

/* The columns case `index` holds apart (an empty set when there are none
 * for it), or NULL when the tree holds them. */
const struct gcb_ranks *gcb__walk_ranks(const struct gcb__walk *w,
                                        size_t index);

/* Checks v against n at the walker's path; the first problem, located. */
enum gcb_status gcb__schema_check(struct gcb__walk *w, const json_t *v,
                                  const struct gcb__node *n);

/* Checks v as the member `key` (or element `index` when key is NULL) of
 * the value at the walker's path. */
enum gcb_status gcb__schema_check_child(struct gcb__walk *w, const char *key,
                                        size_t index, const json_t *v,
                                        const struct gcb__node *n);

/* Records a problem at the current path: "name:line:col: path: what"
 * (GCB_EINPUT) when there is text to locate it in, "path: what"
 * (GCB_EINTERNAL) otherwise. */
__attribute__((format(printf, 2, 3))) enum gcb_status
gcb__schema_problem(struct gcb__walk *w, const char *fmt, ...);

/* The row of fields (NULL: none) named name, or NULL. */
const struct gcb__field *gcb__schema_field(const struct gcb__field *fields,
                                           const char *name);

/* "object", "array", ... for v's type; its T_* bit; "a string", "a
 * number or null", ... for a set of T_* bits. */
const char *gcb__schema_type_word(const json_t *v);
unsigned gcb__schema_type_bit(const json_t *v);
const char *gcb__schema_expected(unsigned types);

/* Checks a value built in memory (no text to locate problems in), as the
 * member `key` of the root when key is not NULL; problems are EINTERNAL,
 * prefixed with `what`. */
enum gcb_status gcb__schema_check_built(const json_t *v,
                                        const struct gcb__node *n,
                                        const char *key, const char *what,
                                        struct gcb_err *err);

#endif
