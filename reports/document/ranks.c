/*
 * Per-rank columns: the table, the arrays a case's columns are read into
 * (from a jansson tree here, from the text in read_lex.c) and their
 * lookups, the way back to JSON, the transposition of schema-1 per-rank
 * objects, and the order a document is kept in once read (every per-rank
 * column, ranks[] and nodes[] by rank or index), which makes each lookup
 * a probe and a binary search whatever order the file had: a shuffled
 * 4,096-rank document once took four times as long as an ordered one,
 * scanning for each rank.
 */
#include "reports/document/ranks.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct gcb_rank_column gcb_rank_columns[GCB_RC_COUNT] = {
#define GCB_RANK_COL_ROW(id, g, f, k, nd)                                      \
  [GCB_RC_##id] = {.group = g, .field = f, .kind = k, .need = GCB_RN_##nd},
    GCB_RANK_COLUMNS(GCB_RANK_COL_ROW)
#undef GCB_RANK_COL_ROW
};

/* ---- the arrays ---------------------------------------------------------- */

/* Strings kept in blocks that never move (a column's pointers stay put
 * while more are read). */
struct gcb__ranks_chunk {
  struct gcb__ranks_chunk *next;
  size_t used, cap;
  char data[];
};

char *gcb__ranks_keep(struct gcb_ranks *r, const char *s, size_t n) {
  struct gcb__ranks_chunk *c = r->text;
  if (c == NULL || c->cap - c->used < n + 1) {
    size_t cap = n + 1 > 65536 ? n + 1 : 65536;
    if ((c = malloc(sizeof *c + cap)) == NULL)
      return NULL;
    *c = (struct gcb__ranks_chunk){.next = r->text, .cap = cap};
    r->text = c;
  }
  char *out = c->data + c->used;
  memcpy(out, s, n);
  out[n] = '\0';
  c->used += n + 1;
  return out;
}

void gcb_ranks_free(struct gcb_ranks *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; i < GCB_RC_COUNT; i++) {
    free(r->num[i]);
    free(r->str[i]);
  }
  while (r->text != NULL) {
    struct gcb__ranks_chunk *next = r->text->next;
    free(r->text);
    r->text = next;
  }
  *r = (struct gcb_ranks){0};
}

void gcb__ranks_free_all(struct gcb_ranks *r, size_t n) {
  for (size_t i = 0; r != NULL && i < n; i++)
    gcb_ranks_free(&r[i]);
  free(r);
}

int gcb__ranks_column_find(const char *group, size_t glen, const char *field,
                           size_t flen) {
  for (int i = 0; i < GCB_RC_COUNT; i++) {
    const struct gcb_rank_column *c = &gcb_rank_columns[i];
    if ((c->group == NULL) == (group == NULL) &&
        (group == NULL ||
         (strlen(c->group) == glen && memcmp(c->group, group, glen) == 0)) &&
        strlen(c->field) == flen && memcmp(c->field, field, flen) == 0)
      return i;
  }
  return -1;
}

/* Column a (n elements of a validated tree) into r; -1 on ENOMEM. */
static int column_of(struct gcb_ranks *r, size_t col, const json_t *a,
                     size_t n) {
  if (gcb_rank_columns[col].kind == GCB_RK_STR_NULLABLE) {
    if ((r->str[col] = calloc(n ? n : 1, sizeof *r->str[col])) == NULL)
      return -1;
    for (size_t i = 0; i < n; i++) {
      const json_t *v = json_array_get(a, i);
      if (json_is_string(v) &&
          (r->str[col][i] = gcb__ranks_keep(r, json_string_value(v),
                                            json_string_length(v))) == NULL)
        return -1;
    }
    return 0;
  }
  if ((r->num[col] = malloc((n ? n : 1) * sizeof *r->num[col])) == NULL)
    return -1;
  for (size_t i = 0; i < n; i++) {
    const json_t *x = json_array_get(a, i);
    r->num[col][i] = json_is_number(x)  ? json_number_value(x)
                     : json_is_true(x)  ? 1
                     : json_is_false(x) ? 0
                                        : NAN;
  }
  return 0;
}

/* The value of column c in one schema-1 entry, or its array in a
 * per_rank (borrowed; NULL if none). */
static json_t *row_value(const json_t *row, const struct gcb_rank_column *c) {
  const json_t *holder =
      c->group != NULL ? json_object_get(row, c->group) : row;
  return json_object_get(holder, c->field);
}

/* The array of column col in per_rank, or NULL. */
static const json_t *column_json(const json_t *per_rank, size_t col) {
  const json_t *a = row_value(per_rank, &gcb_rank_columns[col]);
  return json_is_array(a) ? a : NULL;
}

int gcb_ranks_of(const json_t *c, struct gcb_ranks *out) {
  const json_t *pr = json_object_get(c, "per_rank");
  *out = (struct gcb_ranks){0};
  out->n = json_array_size(column_json(pr, GCB_RC_RANK));
  for (size_t i = 0; i < GCB_RC_COUNT; i++) {
    const json_t *a = column_json(pr, i);
    if (a != NULL && column_of(out, i, a, out->n) != 0) {
      gcb_ranks_free(out);
      return -1;
    }
  }
  return 0;
}

double gcb_ranks_num(const struct gcb_ranks *r, enum gcb_rank_col col,
                     size_t i) {
  return r->num[col] != NULL && i < r->n ? r->num[col][i] : NAN;
}

long long gcb_ranks_int(const struct gcb_ranks *r, enum gcb_rank_col col,
                        size_t i, long long def) {
  double x = gcb_ranks_num(r, col, i);
  /* an integer past 2^63 was rounded up to it: def, not an overflow */
  return x >= -0x1p63 && x < 0x1p63 ? (long long)x : def;
}

/* ---- the order of a document once read ----------------------------------- */

struct keyed {
  long long key;
  size_t index;
};

static int by_key(const void *a, const void *b) {
  const struct keyed *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index; /* stable */
}

/* keys sorted into the permutation that orders them, or NULL when they
 * are in order already (the common case: nothing is copied). */
static struct keyed *order_of(struct keyed *keys, size_t n) {
  size_t i = 1;
  while (i < n && keys[i - 1].key <= keys[i].key)
    i++;
  if (i >= n)
    return NULL;
  qsort(keys, n, sizeof *keys, by_key);
  return keys;
}

/* Array `section` of root in the order perm gives; -1 on ENOMEM. */
static int permute_section(json_t *root, const char *section, json_t *a,
                           const struct keyed *perm, size_t n) {
  json_t *out = json_array();
  for (size_t i = 0; out != NULL && i < n; i++)
    if (json_array_append(out, json_array_get(a, perm[i].index)) != 0)
      json_decrefp(&out);
  return out != NULL ? json_object_set_new(root, section, out) : -1;
}

/* Column v (n elements of size bytes) in the order perm gives, in place;
 * -1 on ENOMEM. */
static int permute(void *v, size_t size, const struct keyed *perm, size_t n) {
  unsigned char *b = malloc(n * size), *c = v;
  if (b == NULL)
    return -1;
  for (size_t i = 0; i < n; i++)
    memcpy(b + i * size, c + perm[i].index * size, size);
  memcpy(c, b, n * size);
  free(b);
  return 0;
}

int gcb__ranks_order(struct gcb_ranks *r) {
  size_t n = r->n;
  struct keyed *keys = malloc((n ? n : 1) * sizeof *keys);
  if (keys == NULL)
    return -1;
  for (size_t i = 0; i < n; i++)
    keys[i] = (struct keyed){gcb_ranks_int(r, GCB_RC_RANK, i, LLONG_MAX), i};
  const struct keyed *perm = order_of(keys, n);
  int rc = 0;
  for (size_t c = 0; perm != NULL && c < GCB_RC_COUNT; c++) {
    if (r->num[c] != NULL)
      rc |= permute(r->num[c], sizeof *r->num[c], perm, n);
    if (r->str[c] != NULL)
      rc |= permute(r->str[c], sizeof *r->str[c], perm, n);
  }
  free(keys);
  return rc != 0 ? -1 : 0;
}

/* Array `section` of root (objects) in the order of their integer `field`
 * (entries without one last, in their order). */
static int sort_section(json_t *root, const char *section, const char *field) {
  json_t *a = json_object_get(root, section);
  size_t n = json_array_size(a);
  struct keyed *keys = malloc((n ? n : 1) * sizeof *keys);
  if (keys == NULL)
    return -1;
  for (size_t i = 0; i < n; i++) {
    const json_t *v = json_object_get(json_array_get(a, i), field);
    keys[i] = (struct keyed){
        json_is_integer(v) ? (long long)json_integer_value(v) : LLONG_MAX, i};
  }
  const struct keyed *perm = order_of(keys, n);
  int rc = perm != NULL ? permute_section(root, section, a, perm, n) : 0;
  free(keys);
  return rc;
}

int gcb__ranks_order_document(json_t *root) {
  int rc = sort_section(root, "ranks", "rank") |
           sort_section(root, "nodes", "index");
  return rc != 0 ? -1 : 0;
}

/* ---- back to JSON -------------------------------------------------------- */

/* Element i of column col as the schema has it (new reference). */
static json_t *element_json(const struct gcb_ranks *r, size_t col, size_t i) {
  enum gcb_rank_kind kind = gcb_rank_columns[col].kind;
  if (kind == GCB_RK_STR_NULLABLE)
    return r->str[col][i] != NULL ? json_string(r->str[col][i]) : json_null();
  double x = r->num[col][i];
  if (isnan(x))
    return json_null();
  if (kind == GCB_RK_INT || kind == GCB_RK_INT_NULLABLE)
    return json_integer(x < 0x1p63 ? (json_int_t)x : INT64_MAX);
  return kind >= GCB_RK_BOOL ? json_boolean(x == 1) : json_real(x);
}

json_t *gcb_ranks_json(const struct gcb_ranks *r) {
  json_t *out = json_object();
  for (size_t c = 0; out != NULL && c < GCB_RC_COUNT; c++) {
    if (r->num[c] == NULL && r->str[c] == NULL)
      continue;
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < r->n; i++)
      if (json_array_append_new(a, element_json(r, c, i)) != 0)
        json_decrefp(&a);
    if (gcb_ranks_set_column(out, (enum gcb_rank_col)c, a) != 0)
      json_decrefp(&out);
  }
  return out;
}

/* Whether v is what element i of column col holds, of a type its kind
 * allows. */
static bool element_equal(const struct gcb_ranks *r, size_t col, size_t i,
                          const json_t *v) {
  enum gcb_rank_kind kind = gcb_rank_columns[col].kind;
  bool nullable = kind == GCB_RK_NUM_NULLABLE || kind == GCB_RK_INT_NULLABLE ||
                  kind >= GCB_RK_BOOL_NULLABLE;
  if (kind == GCB_RK_STR_NULLABLE)
    return json_is_string(v)
               ? r->str[col][i] != NULL &&
                     strcmp(json_string_value(v), r->str[col][i]) == 0
               : json_is_null(v) && r->str[col][i] == NULL;
  double x = r->num[col][i];
  if (json_is_null(v))
    return nullable && isnan(x);
  if (kind == GCB_RK_BOOL || kind == GCB_RK_BOOL_NULLABLE)
    return json_is_boolean(v) && x == (json_is_true(v) ? 1 : 0);
  double want = json_number_value(v);
  return (kind == GCB_RK_INT || kind == GCB_RK_INT_NULLABLE
              ? json_is_integer(v)
              : json_is_number(v)) &&
         memcmp(&want, &x, sizeof x) == 0;
}

bool gcb__ranks_equal_json(const struct gcb_ranks *r, const json_t *per_rank) {
  if (r->n != json_array_size(column_json(per_rank, GCB_RC_RANK)))
    return false;
  for (size_t c = 0; c < GCB_RC_COUNT; c++) {
    const json_t *a = column_json(per_rank, c);
    if ((a != NULL) != (r->num[c] != NULL || r->str[c] != NULL) ||
        (a != NULL && json_array_size(a) != r->n))
      return false;
    for (size_t i = 0; a != NULL && i < r->n; i++)
      if (!element_equal(r, c, i, json_array_get(a, i)))
        return false;
  }
  return true;
}

/* The object holding a group's columns (per_rank itself for none),
 * created on first use; NULL on ENOMEM. */
static json_t *group_in(json_t *per_rank, const char *group) {
  if (group == NULL)
    return per_rank;
  json_t *g = json_object_get(per_rank, group);
  if (g == NULL && json_object_set_new(per_rank, group, g = json_object()) != 0)
    return NULL;
  return g;
}

int gcb_ranks_set_column(json_t *per_rank, enum gcb_rank_col col,
                         json_t *array) {
  const struct gcb_rank_column *c = &gcb_rank_columns[col];
  json_t *holder = array != NULL ? group_in(per_rank, c->group) : NULL;
  if (holder == NULL) {
    json_decref(array);
    return -1;
  }
  return json_object_set_new(holder, c->field, array);
}

/* Column c of rows as an array, or NULL when no row has it (*oom on
 * allocation failure). */
static json_t *transpose(const json_t *rows, const struct gcb_rank_column *c,
                         bool *oom) {
  size_t i, present = 0;
  const json_t *row;
  json_array_foreach(rows, i, row) present += row_value(row, c) != NULL;
  if (present == 0 && (json_array_size(rows) > 0 || c->need != GCB_RN_ALWAYS))
    return NULL;
  json_t *a = json_array();
  json_array_foreach(rows, i, row) {
    json_t *v = row_value(row, c);
    if (a == NULL || json_array_append(a, v != NULL ? v : json_null()) != 0) {
      json_decref(a);
      *oom = true;
      return NULL;
    }
  }
  *oom = a == NULL;
  return a;
}

json_t *gcb_ranks_from_rows(const json_t *rows) {
  json_t *out = json_object();
  bool oom = out == NULL;
  for (size_t i = 0; !oom && i < GCB_RC_COUNT; i++) {
    const struct gcb_rank_column *c = &gcb_rank_columns[i];
    json_t *col = transpose(rows, c, &oom);
    if (col != NULL)
      oom = gcb_ranks_set_column(out, (enum gcb_rank_col)i, col) != 0;
  }
  if (oom)
    json_decrefp(&out);
  return out;
}
