/*
 * The quick road through a results document's per-rank columns
 * (results_int.h, gcb__read_fast). At 16,384 ranks nineteen twentieths
 * of a document are the numbers of `cases[i].per_rank`, and jansson's
 * lexer (one character at a time through its stream), strtod and one
 * allocation per number were most of a report's time.
 *
 * This file scans the text once for the per_rank values of the cases
 * (each found by its brackets) and the topologies of the nodes. It reads
 * each per_rank with a lexer made for columns of scalars (read_lex.c:
 * numbers converted without strtod where that is exact) straight into the
 * arrays of a struct gcb_ranks (ranks.h), which the document keeps
 * instead (results.h), on a second thread while this one has jansson read
 * the rest, then on both (the time of two lexers is a lexer's). Each
 * topology is parsed by jansson once for each distinct text and shared by
 * the nodes written alike. jansson is handed the rest of the text with
 * each of those values replaced by `{}`; the topologies are put back, the
 * per_rank objects stay `{}`. The tree and the columns say what
 * json_loadb's tree says, value for value (gcb__ranks_equal_json).
 *
 * It is a road for well-formed documents only: whatever it does not
 * recognise (an escape or a non-ASCII byte in a string, an unusual
 * number, a duplicate key, a per_rank that is not an object of columns,
 * any syntax error) makes it give up, and the caller parses the whole
 * text with json_loadb, so every message about a bad file is the one it
 * always was.
 */
#include "common/grow.h"
#include "reports/document/ranks.h"
#include "reports/document/read_lex.h"
#include "reports/document/results_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* A per_rank value found in the text: where, and which case it is. */
struct span {
  size_t begin, end, index; /* index: of the case, or of the node */
  bool topology;            /* a node's topology, not a case's per_rank */
  json_t *value;            /* the topology, built here */
};

struct spans {
  struct span *items;
  size_t n, cap;
  struct gcb_ranks *ranks; /* by case index */
  size_t nranks, ranks_cap;
};
/* Reads a key and its colon: the index of its name in names (NULL
 * terminated), -1 for another (or bad). */
static int key_in(struct gcb__lex *l, const char *const *names) {
  const char *k;
  size_t n;
  gcb__lex_ws(l);
  if (l->p >= l->end || *l->p != '"')
    return l->bad = true, -1;
  const char *b = l->p;
  gcb__lex_skip_string(l);
  k = b + 1;
  n = l->bad ? 0 : (size_t)(l->p - b) - 2;
  if (l->bad || !gcb__lex_eat(l, ':'))
    return l->bad = true, -1;
  for (int i = 0; names[i] != NULL; i++)
    if (n == strlen(names[i]) && memcmp(k, names[i], n) == 0)
      return i;
  return -1;
}

static bool key_is(struct gcb__lex *l, const char *want) {
  const char *const names[] = {want, NULL};
  return key_in(l, names) == 0;
}

static bool push_span(struct spans *s, struct span sp) {
  if (!gcb_grow((void **)&s->items, &s->cap, s->n, sizeof *s->items))
    return false;
  s->items[s->n++] = sp;
  return true;
}

/* Room for the columns of case `index`; false on ENOMEM. */
static bool ranks_room(struct spans *s, size_t index) {
  if (index >= s->ranks_cap) {
    size_t cap = s->ranks_cap ? 2 * s->ranks_cap : 16;
    cap = cap > index ? cap : index + 1;
    struct gcb_ranks *p = realloc(s->ranks, cap * sizeof *p);
    if (p == NULL)
      return false;
    memset(p + s->ranks_cap, 0, (cap - s->ranks_cap) * sizeof *p);
    s->ranks = p;
    s->ranks_cap = cap;
  }
  s->nranks = s->nranks > index ? s->nranks : index + 1;
  return true;
}

/* Marks a case whose per_rank the scan found, until it is read. */
#define PER_RANK_FOUND SIZE_MAX

/* The first of `"[]{}` or a NUL byte from p on, or end. Sixteen bytes
 * at a time where SSE2 is there (every x86-64): this scan runs alone
 * before the two lanes start, and a byte at a time it was 0.3 s of a
 * 16,384-rank report's 2.3. */
static const char *next_structural(const char *p, const char *end) {
  static const bool structural[256] = {
      ['"'] = true, ['['] = true, [']'] = true,
      ['{'] = true, ['}'] = true, ['\0'] = true};
#ifdef __SSE2__
  /* '[' | 0x20 is '{' and ']' | 0x20 is '}', and no other byte is */
  const __m128i quote = _mm_set1_epi8('"'), open = _mm_set1_epi8('{'),
                close = _mm_set1_epi8('}'), nul = _mm_setzero_si128(),
                lower = _mm_set1_epi8(0x20);
  for (; end - p >= 16; p += 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)p);
    __m128i folded = _mm_or_si128(x, lower);
    __m128i hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, nul)),
        _mm_or_si128(_mm_cmpeq_epi8(folded, open),
                     _mm_cmpeq_epi8(folded, close)));
    int mask = _mm_movemask_epi8(hit);
    if (mask != 0)
      return p + __builtin_ctz((unsigned)mask);
  }
#endif
  while (p < end && !structural[(unsigned char)*p])
    p++;
  return p;
}

/* Past the object at l->p by its brackets alone (strings skipped whole):
 * numbers are nineteen twentieths of a large document, and what this
 * passes is read afterwards, checked, by the columns' lexer (a per_rank:
 * read_spans) or by jansson (a topology: read_topologies). A NUL byte
 * outside a string gives up, as gcb__lex_skip_value does. */
static void skip_object(struct gcb__lex *l) {
  size_t depth = 0;
  if (l->p == l->end || *l->p != '{') {
    l->bad = true;
    return;
  }
  do {
    l->p = next_structural(l->p, l->end);
    if (l->p == l->end || *l->p == '\0')
      l->bad = true;
    else if (*l->p == '"')
      gcb__lex_skip_string(l);
    else if (*l->p == '[' || *l->p == '{')
      depth++, l->p++;
    else
      depth--, l->p++;
  } while (depth > 0 && !l->bad);
}

/* A case's per_rank, at l->p: where it is (read into columns later, on
 * two lanes: read_spans); false: give up. */
static bool take_per_rank(struct gcb__lex *l, size_t index, struct spans *s) {
  struct span sp = {.begin = (size_t)(l->p - l->base), .index = index};
  /* a second per_rank gives up: jansson words it */
  if (!ranks_room(s, index) || s->ranks[index].n == PER_RANK_FOUND)
    return false;
  s->ranks[index].n = PER_RANK_FOUND;
  skip_object(l);
  sp.end = (size_t)(l->p - l->base);
  return !l->bad && push_span(s, sp);
}

/* The per_rank spans being read into columns, each by whichever lane
 * takes it next; `bad` once one is not for this road. */
struct columns_job {
  const char *text;
  struct spans *s;
  atomic_size_t next;
  atomic_bool bad;
};

static void *read_spans(void *arg) {
  struct columns_job *j = arg;
  struct gcb__lex l = {.base = j->text};
  for (size_t i; !atomic_load(&j->bad) &&
                 (i = atomic_fetch_add(&j->next, 1)) < j->s->n;) {
    const struct span *sp = &j->s->items[i];
    if (sp->topology)
      continue;
    l.p = j->text + sp->begin;
    l.end = j->text + sp->end;
    if (!gcb__lex_per_rank(&l, &j->s->ranks[sp->index]) || l.p != l.end)
      atomic_store(&j->bad, true);
  }
  free(l.buf);
  return NULL;
}

/* A node's topology, at l->p: where it is (read later, once for all the
 * nodes whose topology is written alike); false: give up. */
static bool take_topology(struct gcb__lex *l, size_t index, struct spans *s) {
  struct span sp = {
      .begin = (size_t)(l->p - l->base), .index = index, .topology = true};
  if (l->p < l->end && *l->p == '{')
    skip_object(l);
  else /* not one (the schema words it) */
    gcb__lex_skip_value(l);
  sp.end = (size_t)(l->p - l->base);
  return !l->bad && push_span(s, sp);
}

typedef bool take_fn(struct gcb__lex *l, size_t index, struct spans *s);

/* One element `index` of a section: its member `key` through `take`, the
 * rest skipped. */
static void scan_element(struct gcb__lex *l, size_t index, struct spans *s,
                         const char *key, take_fn *take) {
  if (!gcb__lex_eat(l, '{')) {
    gcb__lex_skip_value(l);
    return;
  }
  if (gcb__lex_eat(l, '}'))
    return;
  do {
    if (!key_is(l, key)) {
      if (!l->bad)
        gcb__lex_skip_value(l);
      continue;
    }
    gcb__lex_ws(l);
    if (!take(l, index, s))
      l->bad = true;
  } while (!l->bad && gcb__lex_eat(l, ','));
  if (!l->bad && !gcb__lex_eat(l, '}'))
    l->bad = true;
}

/* An array of the document, each element through scan_element. */
static void scan_array(struct gcb__lex *l, struct spans *s, const char *key,
                       take_fn *take) {
  if (!gcb__lex_eat(l, '[')) {
    gcb__lex_skip_value(l);
    return;
  }
  size_t index = 0;
  if (gcb__lex_eat(l, ']'))
    return;
  do
    scan_element(l, index++, s, key, take);
  while (!l->bad && gcb__lex_eat(l, ','));
  if (!l->bad && !gcb__lex_eat(l, ']'))
    l->bad = true;
}

/* The document: its "cases" case by case and its "nodes" node by node,
 * the rest skipped. */
static void scan(struct gcb__lex *l, struct spans *s) {
  static const char *const sections[] = {"cases", "nodes", NULL};
  if (!gcb__lex_eat(l, '{')) {
    l->bad = true;
    return;
  }
  do {
    int which = key_in(l, sections);
    if (l->bad)
      break;
    if (which < 0)
      gcb__lex_skip_value(l);
    else if (which == 0)
      scan_array(l, s, "per_rank", take_per_rank);
    else
      scan_array(l, s, "topology", take_topology);
  } while (!l->bad && gcb__lex_eat(l, ','));
  if (!l->bad && !gcb__lex_eat(l, '}'))
    l->bad = true;
}

/*
 * Each topology's value: parsed once for each text, and shared by the
 * nodes whose topology is written byte for byte the same (the nodes of a
 * cluster mostly are: at 16,384 ranks the 2,048 nodes' topologies were
 * 140 MB of a 266 MB tree). The same text gives the same tree, so the
 * document says what it said; no reader changes a topology once read.
 * false: one that jansson does not take (the caller gives up).
 */
static bool read_topologies(const char *text, struct spans *s) {
  enum { KEEP = 16 }; /* the distinct texts compared against */
  size_t distinct[KEEP], seen = 0;
  for (size_t i = 0; i < s->n; i++) {
    struct span *sp = &s->items[i];
    if (!sp->topology)
      continue;
    size_t len = sp->end - sp->begin;
    for (size_t d = 0; d < seen && d < KEEP && sp->value == NULL; d++) {
      const struct span *o = &s->items[distinct[d]];
      if (o->end - o->begin == len &&
          memcmp(text + o->begin, text + sp->begin, len) == 0)
        sp->value = json_incref(o->value);
    }
    if (sp->value != NULL)
      continue;
    json_error_t je;
    sp->value = json_loadb(text + sp->begin, len,
                           JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
    if (sp->value == NULL)
      return false;
    distinct[seen++ % KEEP] = i;
  }
  return true;
}

/* What jansson reads: the text between the spans, `{}` for each. */
struct feed {
  const char *text;
  size_t len, pos, next; /* next: the span after pos */
  const struct spans *s;
  int braces; /* how much of span next-1's `{}` is still to give */
};

static size_t feed_more(void *buffer, size_t size, void *data) {
  struct feed *f = data;
  char *out = buffer;
  size_t n = 0;
  while (n < size) {
    if (f->braces > 0) {
      out[n++] = f->braces-- == 2 ? '{' : '}';
      continue;
    }
    size_t stop = f->next < f->s->n ? f->s->items[f->next].begin : f->len;
    size_t take = stop - f->pos < size - n ? stop - f->pos : size - n;
    memcpy(out + n, f->text + f->pos, take);
    n += take;
    f->pos += take;
    if (f->pos == stop && f->next < f->s->n) {
      f->pos = f->s->items[f->next++].end;
      f->braces = 2;
    } else if (f->pos == f->len)
      break;
  }
  return n;
}

/* Puts each topology back in its node; false if the tree jansson built
 * does not have `{}` where one was (it cannot, but checked). */
static bool put_back(json_t *root, struct spans *s) {
  json_t *nodes = json_object_get(root, "nodes");
  for (size_t i = 0; i < s->n; i++) {
    if (!s->items[i].topology)
      continue;
    json_t *c = json_array_get(nodes, s->items[i].index);
    json_t *t = json_object_get(c, "topology");
    if (!json_is_object(t) || json_object_size(t) != 0 ||
        json_object_set_new(c, "topology", s->items[i].value) != 0)
      return false;
    s->items[i].value = NULL;
  }
  return true;
}

bool gcb__read_fast(const char *text, size_t len,
                    bool (*fits)(size_t len, size_t entries), json_t **root,
                    struct gcb_ranks **ranks, size_t *nranks, size_t *entries) {
  *root = NULL;
  *ranks = NULL;
  *nranks = *entries = 0;
  struct gcb__lex l = {.base = text, .p = text, .end = text + len};
  struct spans s = {0};
  scan(&l, &s);
  gcb__lex_ws(&l);
  free(l.buf);
  bool taken = !l.bad && l.p == l.end && s.n > 0;
  /* The columns on a second lane while this one reads the rest with
   * jansson, then on both: at 16,384 ranks the columns' lexer was half
   * of reading and analysing a document. */
  struct columns_job job = {.text = text, .s = &s};
  pthread_t lane;
  bool two = taken && pthread_create(&lane, NULL, read_spans, &job) == 0;
  if (taken && read_topologies(text, &s)) {
    struct feed f = {.text = text, .len = len, .s = &s};
    json_error_t je;
    *root = json_load_callback(feed_more, &f,
                               JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
  }
  if (taken)
    read_spans(&job);
  if (two)
    pthread_join(lane, NULL);
  for (size_t i = 0; i < s.nranks; i++)
    if (s.ranks[i].n == PER_RANK_FOUND) /* not read: gave up first */
      s.ranks[i].n = 0;
    else
      *entries += s.ranks[i].n;
  taken = *root != NULL && !atomic_load(&job.bad) && fits(len, *entries) &&
          put_back(*root, &s);
  if (!taken)
    json_decrefp(root);
  for (size_t i = 0; i < s.n; i++)
    json_decref(s.items[i].value);
  free(s.items);
  if (taken) {
    *ranks = s.ranks;
    *nranks = s.nranks;
  } else {
    gcb__ranks_free_all(s.ranks, s.nranks);
  }
  return taken;
}
