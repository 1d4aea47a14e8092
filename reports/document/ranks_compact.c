/*
 * Compact per-rank columns (reports/document/ranks.h): a column of
 * numbers or booleans as one block of 8-byte elements, held by the tree in
 * place of its jansson array. The reader (read_fast.c) builds them for the
 * large columns of a document read from a file, where one jansson real per
 * number (32 bytes and a malloc, freed one by one) was most of the memory
 * and of the time; gcb_ranks_* read them (ranks.c) and give the values the
 * array would have given.
 *
 * The holder is a jansson string, so that the tree owns, counts and frees
 * it like any other value: a 16-byte header (a magic, the store, whether
 * any element is null, the length) and the elements. Only these functions
 * read it; the schema walker accepts one only in a document the reader
 * made it for (a string of the file never has the header: its length
 * field would need NUL bytes, which jansson refuses in a string).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/ranks.h"

#define HEAD 16
static const char magic[4] = {'G', 'C', 'B', 0x01};

json_t *gcb__ranks_compact_new(enum gcb_rank_store store, bool has_null,
                               const void *values, size_t n) {
  if (store == GCB_RS_JSON || n > (SIZE_MAX - HEAD) / 8)
    return NULL;
  size_t len = HEAD + 8 * n;
  unsigned char *b = malloc(len);
  if (b == NULL)
    return NULL;
  uint64_t n64 = n;
  memset(b, 0, HEAD);
  memcpy(b, magic, sizeof magic);
  b[4] = (unsigned char)store;
  b[5] = has_null;
  memcpy(b + 8, &n64, sizeof n64);
  if (n > 0)
    memcpy(b + HEAD, values, 8 * n);
  /* jansson copies it (it has no way to adopt a buffer) */
  json_t *s = json_stringn_nocheck((const char *)b, len);
  free(b);
  return s;
}

bool gcb__ranks_compact_of(const json_t *v, struct gcb_ranks_compact *out) {
  if (!json_is_string(v))
    return false;
  size_t len = json_string_length(v);
  const unsigned char *b = (const unsigned char *)json_string_value(v);
  uint64_t n;
  if (len < HEAD || memcmp(b, magic, sizeof magic) != 0 ||
      (b[4] != GCB_RS_REAL && b[4] != GCB_RS_INT && b[4] != GCB_RS_BOOL) ||
      b[5] > 1)
    return false;
  memcpy(&n, b + 8, sizeof n);
  if ((len - HEAD) / 8 != n || (len - HEAD) % 8 != 0)
    return false;
  *out = (struct gcb_ranks_compact){.store = (enum gcb_rank_store)b[4],
                                    .has_null = b[5] != 0,
                                    .n = (size_t)n,
                                    .data = b + HEAD};
  return true;
}

double gcb__ranks_compact_real(const struct gcb_ranks_compact *c, size_t i) {
  double d;
  memcpy(&d, c->data + 8 * i, sizeof d);
  return d;
}

int64_t gcb__ranks_compact_int(const struct gcb_ranks_compact *c, size_t i) {
  int64_t v;
  memcpy(&v, c->data + 8 * i, sizeof v);
  return v;
}

/* Element i as the jansson value it stands for (new reference). */
static json_t *element(const struct gcb_ranks_compact *c, size_t i) {
  if (c->store == GCB_RS_REAL) {
    double d = gcb__ranks_compact_real(c, i);
    return isnan(d) ? json_null() : json_real(d);
  }
  int64_t v = gcb__ranks_compact_int(c, i);
  if (v == GCB_RANKS_NULL_INT)
    return json_null();
  if (c->store == GCB_RS_BOOL)
    return json_boolean(v != 0);
  return json_integer((json_int_t)v);
}

json_t *gcb__ranks_compact_expand(const struct gcb_ranks_compact *c) {
  json_t *a = json_array();
  for (size_t i = 0; a != NULL && i < c->n; i++)
    if (json_array_append_new(a, element(c, i)) != 0)
      json_decrefp(&a);
  return a;
}

/* Each compact member of obj (per_rank or one of its groups) expanded. */
static int expand_members(json_t *obj, int depth) {
  const char *key;
  json_t *v;
  void *tmp;
  int rc = 0;
  json_object_foreach_safe(obj, tmp, key, v) {
    struct gcb_ranks_compact c;
    if (depth == 0 && json_is_object(v))
      rc |= expand_members(v, 1);
    else if (gcb__ranks_compact_of(v, &c)) {
      json_t *a = gcb__ranks_compact_expand(&c);
      rc |= a == NULL ? -1 : json_object_set_new(obj, key, a);
    }
  }
  return rc;
}

json_t *gcb__ranks_case_plain(const json_t *c) {
  const json_t *pr = json_object_get(c, "per_rank");
  struct gcb_ranks r;
  gcb_ranks_of(c, &r);
  bool compact = false;
  for (size_t k = 0; k < GCB_RC_COUNT; k++)
    compact |= r.store[k] != GCB_RS_JSON;
  if (!compact)
    return json_incref((json_t *)c);
  /* a copy of the case and of per_rank's objects; the columns shared,
   * the compact ones expanded */
  json_t *copy = json_copy((json_t *)c);
  json_t *prc = json_deep_copy(pr);
  if (copy == NULL || prc == NULL || expand_members(prc, 0) != 0 ||
      json_object_set_new(copy, "per_rank", prc) != 0) {
    json_decref(copy);
    return NULL;
  }
  return copy;
}

int gcb__ranks_expand_document(json_t *root) {
  size_t i;
  json_t *c;
  int rc = 0;
  json_array_foreach(json_object_get(root, "cases"), i, c) {
    json_t *pr = json_object_get(c, "per_rank");
    if (json_is_object(pr))
      rc |= expand_members(pr, 0);
  }
  return rc != 0 ? -1 : 0;
}
