/*
 * Per-rank columns: the table, lookups, the transposition of schema-1
 * per-rank objects, and the order a document is kept in once read (every
 * per-rank column, ranks[] and nodes[] by rank or index), which makes each
 * lookup a probe and a binary search whatever order the file had: a
 * shuffled 4,096-rank document once took four times as long as an
 * ordered one, scanning for each rank.
 */
#include "reports/document/ranks.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct gcb_rank_column gcb_rank_columns[GCB_RC_COUNT] = {
#define GCB_RANK_COL_ROW(id, g, f, k, req)                                     \
  [GCB_RC_##id] = {.group = g, .field = f, .kind = k, .required = req},
    GCB_RANK_COLUMNS(GCB_RANK_COL_ROW)
#undef GCB_RANK_COL_ROW
};

/* Column i of out taken from a, an array or a compact column. */
static void take_column(struct gcb_ranks *out, size_t i, const json_t *a) {
  struct gcb_ranks_compact c;
  if (json_is_array(a)) {
    out->col[i] = a;
  } else if (gcb__ranks_compact_of(a, &c)) {
    out->col[i] = a;
    out->store[i] = (unsigned char)c.store;
    out->data[i] = c.data;
    out->len[i] = c.n;
  }
}

/* The columns of a per_rank object. */
static void ranks_of_per_rank(const json_t *pr, struct gcb_ranks *out) {
  *out = (struct gcb_ranks){0};
  if (!json_is_object(pr))
    return;
  /* Each group looked up once, not once per column: the table lists a
   * group's columns one after the other. */
  const char *group = NULL;
  const json_t *holder = pr;
  for (size_t i = 0; i < GCB_RC_COUNT; i++) {
    const struct gcb_rank_column *col = &gcb_rank_columns[i];
    if (col->group == NULL)
      holder = pr, group = NULL;
    else if (group == NULL || strcmp(group, col->group) != 0)
      holder = json_object_get(pr, group = col->group);
    take_column(out, i,
                holder != NULL ? json_object_get(holder, col->field) : NULL);
  }
  out->n = gcb_ranks_column_size(out->col[GCB_RC_RANK]);
}

void gcb_ranks_of(const json_t *c, struct gcb_ranks *out) {
  ranks_of_per_rank(json_object_get(c, "per_rank"), out);
}

size_t gcb_ranks_column_size(const json_t *col) {
  struct gcb_ranks_compact c;
  if (json_is_array(col))
    return json_array_size(col);
  return gcb__ranks_compact_of(col, &c) ? c.n : 0;
}

size_t gcb_ranks_count(const json_t *c) {
  const json_t *pr = json_object_get(c, "per_rank");
  return gcb_ranks_column_size(json_object_get(pr, "rank"));
}

/* Element i of a compact column col as 8 bytes; false when i is past it. */
static bool compact_at(const struct gcb_ranks *r, enum gcb_rank_col col,
                       size_t i, void *out) {
  if (i >= r->len[col])
    return false;
  memcpy(out, r->data[col] + 8 * i, 8);
  return true;
}

double gcb_ranks_num(const struct gcb_ranks *r, enum gcb_rank_col col,
                     size_t i) {
  if (r->store[col] == GCB_RS_REAL) {
    double d;
    return compact_at(r, col, i, &d) ? d : NAN; /* null is NaN already */
  }
  if (r->store[col] != GCB_RS_JSON) {
    int64_t v;
    return r->store[col] == GCB_RS_INT && compact_at(r, col, i, &v) &&
                   v != GCB_RANKS_NULL_INT
               ? (double)v
               : NAN;
  }
  const json_t *v = json_array_get(r->col[col], i);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

long long gcb_ranks_int(const struct gcb_ranks *r, enum gcb_rank_col col,
                        size_t i, long long def) {
  if (r->store[col] != GCB_RS_JSON) {
    int64_t v;
    return r->store[col] == GCB_RS_INT && compact_at(r, col, i, &v) &&
                   v != GCB_RANKS_NULL_INT
               ? (long long)v
               : def;
  }
  const json_t *v = json_array_get(r->col[col], i);
  return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

const char *gcb_ranks_str(const struct gcb_ranks *r, enum gcb_rank_col col,
                          size_t i) {
  /* compact columns hold no strings */
  const char *s = r->store[col] == GCB_RS_JSON
                      ? json_string_value(json_array_get(r->col[col], i))
                      : NULL;
  return s != NULL ? s : "";
}

bool gcb_ranks_true(const struct gcb_ranks *r, enum gcb_rank_col col,
                    size_t i) {
  if (r->store[col] != GCB_RS_JSON) {
    int64_t v;
    return r->store[col] == GCB_RS_BOOL && compact_at(r, col, i, &v) && v == 1;
  }
  return json_is_true(json_array_get(r->col[col], i));
}

long long gcb_ranks_rank(const struct gcb_ranks *r, size_t i) {
  return gcb_ranks_int(r, GCB_RC_RANK, i, -1);
}

bool gcb_ranks_checked(const struct gcb_ranks *r, size_t i) {
  return gcb_ranks_true(r, GCB_RC_CHECKED, i);
}

/* The first of n sorted keys that is >= want (n when none). */
static size_t lower_bound(size_t n, long long want,
                          long long (*key)(const void *, size_t),
                          const void *arg) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (key(arg, mid) < want)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static long long rank_key(const void *arg, size_t i) {
  long long r = gcb_ranks_rank(arg, i);
  return r >= 0 ? r : LLONG_MAX;
}

long long gcb_ranks_find(const struct gcb_ranks *r, long long rank) {
  if (rank < 0)
    return -1;
  if ((size_t)rank < r->n && gcb_ranks_rank(r, (size_t)rank) == rank &&
      (rank == 0 || rank_key(r, (size_t)rank - 1) < rank))
    return rank;
  size_t i = lower_bound(r->n, rank, rank_key, r);
  return i < r->n && gcb_ranks_rank(r, i) == rank ? (long long)i : -1;
}

/* ---- the order of a document once read ---------------------------------- */

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

/* A compact column in the order perm gives (new reference, NULL on
 * ENOMEM). */
static json_t *permuted_compact(const struct gcb_ranks_compact *c,
                                const struct keyed *perm, size_t n) {
  unsigned char *b = malloc(n ? 8 * n : 1);
  if (b == NULL)
    return NULL;
  for (size_t i = 0; i < n; i++)
    memcpy(b + 8 * i, c->data + 8 * perm[i].index, 8);
  json_t *out = gcb__ranks_compact_new(c->store, c->has_null, b, n);
  free(b);
  return out;
}

/* Column a (n elements, an array or a compact column) in the order perm
 * gives; -1 on ENOMEM. */
static int permute(json_t *holder, const char *name, json_t *a,
                   const struct keyed *perm, size_t n) {
  struct gcb_ranks_compact c;
  if (gcb__ranks_compact_of(a, &c) && c.n == n) {
    json_t *out = permuted_compact(&c, perm, n);
    return out != NULL ? json_object_set_new(holder, name, out) : -1;
  }
  if (!json_is_array(a) || json_array_size(a) != n)
    return 0;
  json_t *out = json_array();
  for (size_t i = 0; out != NULL && i < n; i++)
    if (json_array_append(out, json_array_get(a, perm[i].index)) != 0)
      json_decrefp(&out);
  return out != NULL ? json_object_set_new(holder, name, out) : -1;
}

/* Every column of per_rank (its members and its groups' members) in rank
 * order. */
static int sort_per_rank(json_t *per_rank) {
  struct gcb_ranks r;
  ranks_of_per_rank(per_rank, &r);
  size_t n = r.n;
  struct keyed *keys = malloc((n ? n : 1) * sizeof *keys);
  if (keys == NULL)
    return -1;
  for (size_t i = 0; i < n; i++)
    keys[i] = (struct keyed){gcb_ranks_int(&r, GCB_RC_RANK, i, LLONG_MAX), i};
  const struct keyed *perm = order_of(keys, n);
  int rc = 0;
  const char *name, *inner;
  json_t *v, *w;
  void *tmp, *tmp2;
  json_object_foreach_safe(per_rank, tmp, name, v) {
    if (perm != NULL && json_is_object(v)) {
      json_object_foreach_safe(v, tmp2, inner, w) rc |=
          permute(v, inner, w, perm, n);
    } else if (perm != NULL) {
      rc |= permute(per_rank, name, v, perm, n);
    }
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
  int rc = perm != NULL ? permute(root, section, a, perm, n) : 0;
  free(keys);
  return rc;
}

int gcb__ranks_order_document(json_t *root) {
  int rc = sort_section(root, "ranks", "rank") |
           sort_section(root, "nodes", "index");
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(root, "cases"), i, c) {
    json_t *pr = json_object_get(c, "per_rank");
    if (json_is_object(pr))
      rc |= sort_per_rank(pr);
  }
  return rc != 0 ? -1 : 0;
}

/* The value of column c in one schema-1 entry (borrowed; NULL if none). */
static json_t *row_value(const json_t *row, const struct gcb_rank_column *c) {
  const json_t *holder =
      c->group != NULL ? json_object_get(row, c->group) : row;
  return json_object_get(holder, c->field);
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
  if (present == 0 && (json_array_size(rows) > 0 || !c->required))
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
  if (oom) {
    json_decref(out);
    return NULL;
  }
  return out;
}
