/*
 * Per-rank columns: the table, lookups, and the transposition of schema-1
 * per-rank objects.
 */
#include "reports/document/ranks.h"

#include <math.h>

const struct gcb_rank_column gcb_rank_columns[GCB_RC_COUNT] = {
#define GCB_RANK_COL_ROW(id, g, f, k, req)                                     \
  [GCB_RC_##id] = {.group = g, .field = f, .kind = k, .required = req},
    GCB_RANK_COLUMNS(GCB_RANK_COL_ROW)
#undef GCB_RANK_COL_ROW
};

/* The column's array in per_rank (NULL if absent or not an array). */
static const json_t *column_in(const json_t *per_rank,
                               const struct gcb_rank_column *c) {
  const json_t *holder =
      c->group != NULL ? json_object_get(per_rank, c->group) : per_rank;
  const json_t *a = json_object_get(holder, c->field);
  return json_is_array(a) ? a : NULL;
}

void gcb_ranks_of(const json_t *c, struct gcb_ranks *out) {
  const json_t *pr = json_object_get(c, "per_rank");
  *out = (struct gcb_ranks){0};
  if (!json_is_object(pr))
    return;
  for (size_t i = 0; i < GCB_RC_COUNT; i++)
    out->col[i] = column_in(pr, &gcb_rank_columns[i]);
  out->n = json_array_size(out->col[GCB_RC_RANK]);
}

size_t gcb_ranks_count(const json_t *c) {
  const json_t *pr = json_object_get(c, "per_rank");
  return json_array_size(json_object_get(pr, "rank"));
}

double gcb_ranks_num(const struct gcb_ranks *r, enum gcb_rank_col col,
                     size_t i) {
  const json_t *v = json_array_get(r->col[col], i);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

long long gcb_ranks_int(const struct gcb_ranks *r, enum gcb_rank_col col,
                        size_t i, long long def) {
  const json_t *v = json_array_get(r->col[col], i);
  return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

const char *gcb_ranks_str(const struct gcb_ranks *r, enum gcb_rank_col col,
                          size_t i) {
  const char *s = json_string_value(json_array_get(r->col[col], i));
  return s != NULL ? s : "";
}

long long gcb_ranks_rank(const struct gcb_ranks *r, size_t i) {
  return gcb_ranks_int(r, GCB_RC_RANK, i, -1);
}

bool gcb_ranks_checked(const struct gcb_ranks *r, size_t i) {
  return json_is_true(json_array_get(r->col[GCB_RC_CHECKED], i));
}

long long gcb_ranks_find(const struct gcb_ranks *r, long long rank) {
  if (rank < 0)
    return -1;
  if ((size_t)rank < r->n && gcb_ranks_rank(r, (size_t)rank) == rank)
    return rank;
  for (size_t i = 0; i < r->n; i++)
    if (gcb_ranks_rank(r, i) == rank)
      return (long long)i;
  return -1;
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
