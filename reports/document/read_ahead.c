/*
 * The threads of read_ahead.h. Each part's thread appends what it reads
 * to its own list, in the order of the text, under its part's lock, and
 * says how far it has got; the scan, which asks in the order of the text
 * too, waits on that part's condition until the thread is past the byte
 * it asks for, then walks the list from where it last stopped.
 */
#define _GNU_SOURCE /* memmem */
#include "reports/document/read_ahead.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/read_lex.h"

static const char KEY[] = "\"per_rank\"";

struct found {
  size_t begin, end;
  json_t *value; /* NULL once taken */
};

struct part {
  struct gcb__ahead *a;
  size_t from, to; /* the values beginning in [from, to) are this part's */
  pthread_t tid;
  bool started;
  pthread_mutex_t lock;
  pthread_cond_t moved;
  struct found *items; /* in the order of the text */
  size_t n, cap, next; /* next: the first item the scan has not passed */
  size_t passed;       /* every value beginning before it is in items */
  bool done;           /* the thread has finished (or never started) */
};

struct gcb__ahead {
  const char *text;
  size_t len, compact_min, nparts;
  atomic_bool stop;
  struct part parts[GCB_READ_AHEAD_MAX_PARTS];
};

/* The byte of the value after the key at k ('{'), or 0 when the key is
 * not followed by a colon and an object. */
static size_t value_at(const struct gcb__ahead *a, const char *k) {
  struct gcb__lex l = {
      .base = a->text, .p = k + sizeof KEY - 1, .end = a->text + a->len};
  if (!gcb__lex_eat(&l, ':'))
    return 0;
  gcb__lex_ws(&l);
  return l.p < l.end && *l.p == '{' ? (size_t)(l.p - l.base) : 0;
}

/* Appends a value read (or, with value NULL, only the progress) and
 * wakes the scan; false when out of memory (the value is dropped). */
static bool publish(struct part *p, size_t begin, size_t end, json_t *value,
                    size_t passed) {
  bool ok = true;
  pthread_mutex_lock(&p->lock);
  if (value != NULL && p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 64;
    struct found *f = realloc(p->items, cap * sizeof *f);
    if (f != NULL)
      p->items = f, p->cap = cap;
  }
  if (value != NULL && p->n < p->cap)
    p->items[p->n++] = (struct found){begin, end, value};
  else if (value != NULL)
    ok = false;
  p->passed = passed;
  pthread_cond_broadcast(&p->moved);
  pthread_mutex_unlock(&p->lock);
  if (!ok)
    json_decref(value);
  return ok;
}

static void *read_part(void *arg) {
  struct part *p = arg;
  struct gcb__ahead *a = p->a;
  struct gcb__lex l = {
      .base = a->text, .end = a->text + a->len, .compact_min = a->compact_min};
  size_t at = p->from;
  while (at < p->to && !atomic_load(&a->stop)) {
    size_t room = p->to - at + sizeof KEY - 2; /* a key beginning before to */
    room = at + room <= a->len ? room : a->len - at;
    const char *k = memmem(a->text + at, room, KEY, sizeof KEY - 1);
    size_t begin = k != NULL ? value_at(a, k) : 0;
    if (k == NULL)
      break;
    at = (size_t)(k - a->text) + 1;
    if (begin == 0)
      continue;
    l.p = a->text + begin;
    l.bad = false;
    json_t *v = gcb__lex_per_rank(&l);
    size_t end = (size_t)(l.p - a->text);
    if (v == NULL)
      continue; /* the scan reads it itself and finds what is wrong */
    at = end;
    if (!publish(p, begin, end, v, end))
      break;
  }
  free(l.buf);
  pthread_mutex_lock(&p->lock);
  p->done = true;
  pthread_cond_broadcast(&p->moved);
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

struct gcb__ahead *gcb__ahead_start(const char *text, size_t len,
                                    size_t compact_min, size_t parts) {
  if (parts < 2 || len == 0)
    return NULL;
  parts = parts < GCB_READ_AHEAD_MAX_PARTS ? parts : GCB_READ_AHEAD_MAX_PARTS;
  struct gcb__ahead *a = calloc(1, sizeof *a);
  if (a == NULL)
    return NULL;
  a->text = text;
  a->len = len;
  a->compact_min = compact_min;
  a->nparts = parts;
  atomic_init(&a->stop, false);
  for (size_t i = 0; i < parts; i++) {
    struct part *p = &a->parts[i];
    p->a = a;
    p->from = len / parts * i;
    p->to = i + 1 == parts ? len : len / parts * (i + 1);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->moved, NULL);
    /* The first part is the scan's own. A thread's done is false before
     * it starts: it sets done itself, maybe before pthread_create
     * returns. */
    p->done = i == 0;
    if (i > 0 && pthread_create(&p->tid, NULL, read_part, p) == 0)
      p->started = true;
    else
      p->done = true;
  }
  return a;
}

json_t *gcb__ahead_take(struct gcb__ahead *a, size_t begin, size_t *end) {
  if (a == NULL)
    return NULL;
  size_t i = a->nparts;
  while (i > 0 && a->parts[i - 1].from > begin)
    i--;
  if (i <= 1)
    return NULL; /* the first part: the scan's own */
  struct part *p = &a->parts[i - 1];
  json_t *v = NULL;
  pthread_mutex_lock(&p->lock);
  while (!p->done && p->passed <= begin)
    pthread_cond_wait(&p->moved, &p->lock);
  while (p->next < p->n && p->items[p->next].begin < begin)
    p->next++;
  if (p->next < p->n && p->items[p->next].begin == begin) {
    v = p->items[p->next].value;
    p->items[p->next].value = NULL;
    *end = p->items[p->next++].end;
  }
  pthread_mutex_unlock(&p->lock);
  return v;
}

void gcb__ahead_stop(struct gcb__ahead *a) {
  if (a == NULL)
    return;
  atomic_store(&a->stop, true);
  for (size_t i = 0; i < a->nparts; i++) {
    struct part *p = &a->parts[i];
    if (p->started)
      pthread_join(p->tid, NULL);
    for (size_t k = 0; k < p->n; k++)
      json_decref(p->items[k].value);
    free(p->items);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->moved);
  }
  free(a);
}
