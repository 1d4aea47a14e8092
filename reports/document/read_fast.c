/*
 * The quick road through a results document's per-rank columns
 * (results_int.h, gcb__read_fast). At 16,384 ranks nineteen twentieths
 * of a document are the numbers of `cases[i].per_rank`, and jansson's
 * lexer (one character at a time through its stream), strtod and one
 * allocation per number were most of a report's time.
 *
 * This file scans the text once for the per_rank values of the cases
 * and the topologies of the nodes. It reads each per_rank with a lexer
 * made for columns of scalars (numbers converted without strtod where
 * that is exact): a large numeric or boolean column into a compact column
 * (ranks.h: 8 bytes an element, not a jansson value each), any other into
 * a jansson array in which a value equal to the one before it is shared,
 * not allocated again. Each topology is parsed by jansson once for each
 * distinct text and shared by the nodes written alike. jansson is handed
 * the rest of the text with each of those values replaced by `{}`, and
 * they are then put back. The tree that comes out is the one json_loadb
 * would have built, value for value (compact columns expanded:
 * gcb__ranks_expand_document).
 *
 * It is a road for well-formed documents only: whatever it does not
 * recognise (an escape or a non-ASCII byte in a string, an unusual
 * number, a duplicate key, a per_rank that is not an object of columns,
 * any syntax error) makes it give up, and the caller parses the whole
 * text with json_loadb, so every message about a bad file is the one it
 * always was.
 */
#include "reports/document/ranks.h"
#include "reports/document/results_int.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The most per_rank keys (columns and groups) at one level: the schema
 * has a dozen; more is not a document this road is for. */
#define MAX_KEYS 64

struct lex {
  const char *base, *p, *end;
  bool bad;           /* gave up: the caller takes jansson's road */
  size_t compact_min; /* the fewest elements a compact column has */
  unsigned char *buf; /* a compact column being read: 8 bytes each */
  size_t cap;         /* elements buf holds */
};

/* A per_rank value found in the text: where, and which case it is. */
struct span {
  size_t begin, end, index; /* index: of the case, or of the node */
  bool topology;            /* a node's topology, not a case's per_rank */
  json_t *value;            /* the columns, or the topology, built here */
};

struct spans {
  struct span *items;
  size_t n, cap;
};

static void ws(struct lex *l) {
  while (l->p < l->end &&
         (*l->p == ' ' || *l->p == '\n' || *l->p == '\r' || *l->p == '\t'))
    l->p++;
}

static bool eat(struct lex *l, char c) {
  ws(l);
  if (l->p < l->end && *l->p == c) {
    l->p++;
    return true;
  }
  return false;
}

/* A string of printable ASCII without escapes (all that columns, keys
 * and methods hold); anything else gives up. *s, *n: its bytes. */
static bool plain_string(struct lex *l, const char **s, size_t *n) {
  if (!eat(l, '"'))
    return l->bad = true, false;
  const char *b = l->p;
  while (l->p < l->end && *l->p != '"') {
    unsigned char c = (unsigned char)*l->p;
    if (c < 0x20 || c > 0x7e || c == '\\')
      return l->bad = true, false;
    l->p++;
  }
  if (l->p == l->end)
    return l->bad = true, false;
  *s = b;
  *n = (size_t)(l->p++ - b);
  return true;
}

/* Skips any string (escapes included) for the scan of the rest of the
 * document, which jansson reads and checks itself. */
static void skip_string(struct lex *l) {
  l->p++;
  while (l->p < l->end && *l->p != '"')
    l->p += *l->p == '\\' ? 2 : 1;
  if (l->p >= l->end)
    l->bad = true;
  else
    l->p++;
}

/* Powers of ten exact in a double (up to 10^22). */
static const double pow10_d[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;

static int bits128(u128 v) {
  uint64_t hi = (uint64_t)(v >> 64);
  return hi != 0  ? 128 - __builtin_clzll(hi)
         : v != 0 ? 64 - __builtin_clzll((uint64_t)v)
                  : 0;
}

/* q × 2^e2 rounded to the nearest double (ties to even), sticky: the
 * exact value is a little above q (a remainder was dropped). q >= 2^54,
 * and the result a normal double (the callers' ranges). */
static double round_scaled(u128 q, bool sticky, int e2) {
  int shift = bits128(q) - 53;
  uint64_t mant = (uint64_t)(q >> shift);
  u128 rest = q & (((u128)1 << shift) - 1), half = (u128)1 << (shift - 1);
  if (rest > half || (rest == half && (sticky || (mant & 1))))
    mant++; /* 2^53 at most, which ldexp takes as it is */
  return ldexp((double)mant, shift + e2);
}

/* 5^k for k <= 27: below 2^63 (a table: a loop of up to 27 products per
 * number was a tenth of the lexer). */
static uint64_t pow5(int k) {
  static const uint64_t p[28] = {1ull,
                                 5ull,
                                 25ull,
                                 125ull,
                                 625ull,
                                 3125ull,
                                 15625ull,
                                 78125ull,
                                 390625ull,
                                 1953125ull,
                                 9765625ull,
                                 48828125ull,
                                 244140625ull,
                                 1220703125ull,
                                 6103515625ull,
                                 30517578125ull,
                                 152587890625ull,
                                 762939453125ull,
                                 3814697265625ull,
                                 19073486328125ull,
                                 95367431640625ull,
                                 476837158203125ull,
                                 2384185791015625ull,
                                 11920928955078125ull,
                                 59604644775390625ull,
                                 298023223876953125ull,
                                 1490116119384765625ull,
                                 7450580596923828125ull};
  return p[k];
}

/* w 2^64 / d and whether a remainder is left, in two 64-bit divisions
 * (the 128-bit one of the compiler's library was a fifth of the lexer):
 * w / d, then (w mod d) 2^64 / d, whose quotient fits 64 bits. */
static u128 div_shifted(uint64_t w, uint64_t d, bool *rest) {
  uint64_t q1 = w / d, r1 = w % d, q0, r0;
#if defined(__x86_64__)
  __asm__("divq %4" : "=a"(q0), "=d"(r0) : "a"((uint64_t)0), "d"(r1), "rm"(d));
#else
  u128 n = (u128)r1 << 64;
  q0 = (uint64_t)(n / d), r0 = (uint64_t)(n % d);
#endif
  *rest = r0 != 0;
  return (u128)q1 << 64 | q0;
}
#endif

/*
 * w × 10^e10 rounded to the nearest double, when that can be done
 * exactly without strtod: Clinger's fast path (w < 2^53, |e10| <= 22,
 * one correctly rounded operation), else, for |e10| <= 27, the exact
 * product or quotient by 5^|e10| in 128-bit integers and one rounding
 * (the shortest form of most doubles has 17 digits, past 2^53, and
 * strtod was a tenth of a large report's time). false: ask strtod.
 */
static bool exact_double(uint64_t w, int e10, double *out) {
  if (w == 0) {
    *out = 0;
    return true;
  }
  if (w < ((uint64_t)1 << 53) && e10 >= -22 && e10 <= 22) {
    *out = e10 < 0 ? (double)w / pow10_d[-e10] : (double)w * pow10_d[e10];
    return true;
  }
#ifdef __SIZEOF_INT128__
  if (w >= ((uint64_t)1 << 53) && e10 >= 0 && e10 <= 27) {
    /* w 5^e10 2^e10: exact in 128 bits, at least 54 bits long */
    *out = round_scaled((u128)w * pow5(e10), false, e10);
    return true;
  }
  if (w >= ((uint64_t)1 << 53) && e10 < 0 && e10 >= -27) {
    /* (w 2^64 / 5^k) 2^(-64-k): the quotient has at least 54 bits (w >=
     * 2^53, 5^k < 2^63), the remainder says whether any is dropped */
    bool rest;
    u128 q = div_shifted(w, pow5(-e10), &rest);
    *out = round_scaled(q, rest, -64 + e10);
    return true;
  }
#endif
  /* Otherwise strtod decides: an x87 long-double road was exact on the
   * hardware but not under valgrind, which computes long doubles in 53
   * bits, nor where long double is double. */
  return false;
}

/* Whether the 8 bytes at p (before end) are all digits, and *v their
 * value: one word's arithmetic instead of eight steps (the fractions of
 * a document's numbers are most of its bytes). */
static bool eight_digits(const char *p, const char *end, uint64_t *v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t x;
  if (end - p < 8)
    return false;
  memcpy(&x, p, 8);
  if (((x & 0xF0F0F0F0F0F0F0F0ull) |
       (((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) !=
      0x3333333333333333ull)
    return false;
  x -= 0x3030303030303030ull;
  x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFull;
  x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFull;
  *v = (x * 10000 + (x >> 32)) & 0xFFFFFFFFull;
  return true;
#else
  (void)p, (void)end, (void)v;
  return false;
#endif
}

/* A number as jansson reads it: an integer (*real false, *iv) when it has
 * neither fraction nor exponent, else a real (*d). false (with l->bad)
 * for what this road leaves to jansson: a malformed or out-of-range
 * number, over 18 digits of integer. */
static bool lex_number(struct lex *l, bool *real, double *d, int64_t *iv) {
  const char *b = l->p, *q = l->p, *e = l->end;
  bool neg = q < e && *q == '-';
  q += neg;
  if (q == e || *q < '0' || *q > '9' ||
      (*q == '0' && q + 1 < e && q[1] >= '0' && q[1] <= '9'))
    return l->bad = true, false;
  uint64_t w = 0;
  int digits = 0, e10 = 0;
  for (; q < e && *q >= '0' && *q <= '9'; q++)
    if (digits < 19 && (w != 0 || *q != '0'))
      w = w * 10 + (uint64_t)(*q - '0'), digits++;
    else if (w != 0)
      e10++, digits = 20; /* a digit dropped: strtod decides */
  *real = false;
  if (q < e && *q == '.') {
    *real = true;
    const char *f = ++q;
    uint64_t eight;
    while (q < e && *q >= '0' && *q <= '9')
      if (w != 0 && digits <= 11 && eight_digits(q, e, &eight))
        w = w * 100000000 + eight, digits += 8, e10 -= 8, q += 8;
      else if (digits < 19 && (w != 0 || *q != '0'))
        w = w * 10 + (uint64_t)(*q++ - '0'), digits++, e10--;
      else if (w == 0)
        e10--, q++;
      else
        digits = 20, q++;
    if (q == f)
      return l->bad = true, false;
  }
  if (q < e && (*q == 'e' || *q == 'E')) {
    *real = true;
    q++;
    bool eneg = q < e && *q == '-';
    q += q < e && (*q == '-' || *q == '+');
    const char *f = q;
    int x = 0;
    for (; q < e && *q >= '0' && *q <= '9'; q++)
      x = x < 100000 ? x * 10 + (*q - '0') : x;
    if (q == f)
      return l->bad = true, false;
    e10 += eneg ? -x : x;
  }
  l->p = q;
  if (!*real) {
    if (digits > 18)
      return l->bad = true, false; /* jansson words the overflow */
    *iv = neg ? -(int64_t)w : (int64_t)w;
    return true;
  }
  if (digits <= 19 && exact_double(w, e10, d)) {
    *d = neg ? -*d : *d;
    return true;
  }
  char buf[64];
  size_t n = (size_t)(q - b);
  if (n >= sizeof buf)
    return l->bad = true, false;
  memcpy(buf, b, n);
  buf[n] = '\0';
  *d = strtod(buf, NULL);
  if (isinf(*d))
    return l->bad = true, false; /* jansson: "real number overflow" */
  return true;
}

/* A number as a jansson value; NULL (with l->bad) as lex_number. */
static json_t *number(struct lex *l) {
  bool real;
  double d;
  int64_t iv;
  if (!lex_number(l, &real, &d, &iv))
    return NULL;
  return real ? json_real(d) : json_integer((json_int_t)iv);
}

/* One element of a column; prev/prev_text: the element before it, shared
 * when this one is written the same (a column of iteration counts or
 * tolerances is one value 16,384 times). */
static json_t *element(struct lex *l, json_t *prev, const char **prev_text,
                       size_t *prev_len) {
  ws(l);
  const char *b = l->p;
  json_t *v;
  if (l->p == l->end)
    return l->bad = true, NULL;
  if (*l->p == '"') {
    const char *s;
    size_t n;
    if (!plain_string(l, &s, &n))
      return NULL;
    if (prev != NULL && *prev_len == (size_t)(l->p - b) &&
        memcmp(*prev_text, b, *prev_len) == 0)
      return json_incref(prev);
    v = json_stringn_nocheck(s, n);
  } else if (l->end - l->p >= 4 && memcmp(l->p, "true", 4) == 0) {
    l->p += 4;
    return json_true();
  } else if (l->end - l->p >= 5 && memcmp(l->p, "false", 5) == 0) {
    l->p += 5;
    return json_false();
  } else if (l->end - l->p >= 4 && memcmp(l->p, "null", 4) == 0) {
    l->p += 4;
    return json_null();
  } else {
    const char *q = l->p;
    while (q < l->end && ((*q >= '0' && *q <= '9') || *q == '-' || *q == '+' ||
                          *q == '.' || *q == 'e' || *q == 'E'))
      q++;
    /* An empty run is no number (number() refuses it); *prev_text is NULL
     * until a number has been read. */
    if (prev != NULL && q > b && *prev_text != NULL &&
        *prev_len == (size_t)(q - b) && memcmp(*prev_text, b, *prev_len) == 0) {
      l->p = q;
      return json_incref(prev);
    }
    v = number(l);
  }
  *prev_text = b;
  *prev_len = (size_t)(l->p - b);
  return v;
}

/* A column: an array of scalars. New reference, NULL when giving up. */
static json_t *column(struct lex *l) {
  json_t *a = json_array(), *prev = NULL;
  const char *prev_text = NULL;
  size_t prev_len = 0;
  if (a == NULL || !eat(l, '['))
    goto fail;
  if (eat(l, ']'))
    return a;
  do {
    json_t *v = element(l, prev, &prev_text, &prev_len);
    if (v == NULL || json_array_append_new(a, v) != 0)
      goto fail;
    prev = v;
  } while (eat(l, ','));
  if (eat(l, ']'))
    return a;
fail:
  l->bad = true;
  json_decref(a);
  return NULL;
}

/* The kind the table gives column `field` of `group` (NULL: per_rank
 * itself); false for a column it does not name. */
static bool table_kind(const char *group, size_t glen, const char *field,
                       size_t flen, enum gcb_rank_kind *kind) {
  for (size_t i = 0; i < GCB_RC_COUNT; i++) {
    const struct gcb_rank_column *c = &gcb_rank_columns[i];
    if ((c->group == NULL) != (group == NULL) ||
        (group != NULL &&
         (strlen(c->group) != glen || memcmp(c->group, group, glen) != 0)) ||
        strlen(c->field) != flen || memcmp(c->field, field, flen) != 0)
      continue;
    *kind = c->kind;
    return true;
  }
  return false;
}

/* How a column of this kind is kept compact (GCB_RS_JSON: it is not:
 * strings), and whether it may hold null. */
static enum gcb_rank_store store_of(enum gcb_rank_kind kind, bool *nullable) {
  *nullable = kind == GCB_RK_NUM_NULLABLE || kind == GCB_RK_INT_NULLABLE ||
              kind == GCB_RK_BOOL_NULLABLE;
  switch (kind) {
  case GCB_RK_NUM:
  case GCB_RK_NUM_NULLABLE:
    return GCB_RS_REAL;
  case GCB_RK_INT:
  case GCB_RK_INT_NULLABLE:
    return GCB_RS_INT;
  case GCB_RK_BOOL:
  case GCB_RK_BOOL_NULLABLE:
    return GCB_RS_BOOL;
  default:
    return GCB_RS_JSON;
  }
}

/* One element of a compact column into *out (8 bytes); false when it is
 * not what the column's kind allows (then the column is read as an array,
 * and the schema walker words what is wrong with it), or bad. */
static bool compact_element(struct lex *l, enum gcb_rank_store store,
                            bool nullable, bool *has_null, void *out) {
  ws(l);
  int64_t iv;
  double d;
  bool real;
  if (l->end - l->p >= 4 && memcmp(l->p, "null", 4) == 0) {
    l->p += 4;
    *has_null = true;
    iv = GCB_RANKS_NULL_INT;
    d = NAN;
    if (!nullable)
      return false;
  } else if (store == GCB_RS_BOOL) {
    bool t = l->end - l->p >= 4 && memcmp(l->p, "true", 4) == 0;
    bool f = !t && l->end - l->p >= 5 && memcmp(l->p, "false", 5) == 0;
    if (!t && !f)
      return false;
    l->p += t ? 4 : 5;
    iv = t;
  } else if (l->p == l->end || *l->p == '"' || *l->p == 't' || *l->p == 'f' ||
             !lex_number(l, &real, &d, &iv) || real != (store == GCB_RS_REAL)) {
    return false; /* a string, a boolean, bad, or an integer among reals */
  }
  memcpy(out, store == GCB_RS_REAL ? (const void *)&d : (const void *)&iv, 8);
  return true;
}

/* Room in l->buf for element n; false on ENOMEM. */
static bool room(struct lex *l, size_t n) {
  if (n < l->cap)
    return true;
  size_t cap = l->cap ? 2 * l->cap : 4096;
  unsigned char *b = cap < SIZE_MAX / 8 ? realloc(l->buf, 8 * cap) : NULL;
  if (b == NULL)
    return false;
  l->buf = b;
  l->cap = cap;
  return true;
}

/* A column the table names: compact when every element is what its kind
 * allows and there are compact_min of them or more, else (read again) a
 * jansson array. New reference, NULL when giving up. */
static json_t *table_column(struct lex *l, enum gcb_rank_kind kind) {
  bool nullable, has_null = false;
  enum gcb_rank_store store = store_of(kind, &nullable);
  const char *start = l->p;
  size_t n = 0;
  bool ok = store != GCB_RS_JSON && eat(l, '[') && !eat(l, ']');
  if (ok) {
    do
      ok = room(l, n) &&
           compact_element(l, store, nullable, &has_null, l->buf + 8 * n++);
    while (ok && eat(l, ','));
    ok = ok && eat(l, ']') && n >= l->compact_min;
  }
  if (!ok) {
    l->p = start;
    l->bad = false; /* the array road decides (and words nothing) */
    return column(l);
  }
  json_t *v = gcb__ranks_compact_new(store, has_null, l->buf, n);
  if (v == NULL)
    l->bad = true;
  return v;
}

/* An object of columns (depth 0: per_rank itself, whose members may also
 * be groups of columns; depth 1: a group). Keys once each, as
 * JSON_REJECT_DUPLICATES wants. New reference, NULL when giving up. */
static json_t *columns(struct lex *l, const char *group, size_t glen,
                       int depth) {
  json_t *o = json_object();
  const char *keys[MAX_KEYS];
  size_t lens[MAX_KEYS], nkeys = 0;
  if (o == NULL || !eat(l, '{'))
    goto fail;
  if (eat(l, '}'))
    return o;
  do {
    const char *k;
    size_t n;
    if (nkeys == MAX_KEYS || !plain_string(l, &k, &n) || !eat(l, ':'))
      goto fail;
    for (size_t i = 0; i < nkeys; i++)
      if (lens[i] == n && memcmp(keys[i], k, n) == 0)
        goto fail;
    keys[nkeys] = k;
    lens[nkeys++] = n;
    ws(l);
    enum gcb_rank_kind kind;
    json_t *v = l->p < l->end && *l->p == '{' && depth == 0
                    ? columns(l, k, n, 1)
                : table_kind(group, glen, k, n, &kind) ? table_column(l, kind)
                                                       : column(l);
    if (v == NULL || json_object_setn_new_nocheck(o, k, n, v) != 0)
      goto fail;
  } while (eat(l, ','));
  if (eat(l, '}'))
    return o;
fail:
  l->bad = true;
  json_decref(o);
  return NULL;
}

/* Skips one value of the rest of the document (jansson checks it). */
static void skip_value(struct lex *l) {
  size_t depth = 0;
  do {
    ws(l);
    if (l->p >= l->end) {
      l->bad = true;
      return;
    }
    char c = *l->p;
    if (c == '"')
      skip_string(l);
    else if (c == '{' || c == '[')
      depth++, l->p++;
    else if (c == '}' || c == ']') {
      if (depth == 0) {
        l->bad = true;
        return;
      }
      depth--, l->p++;
    } else if (c == ',' || c == ':')
      l->p++;
    else /* a number or a literal, to the next delimiter */
      while (l->p < l->end && !memchr(",:]} \t\r\n\"", *l->p, 9))
        l->p++;
  } while (depth > 0 && !l->bad);
}

/* Reads a key and its colon: the index of its name in names (NULL
 * terminated), -1 for another (or bad). */
static int key_in(struct lex *l, const char *const *names) {
  const char *k;
  size_t n;
  ws(l);
  if (l->p >= l->end || *l->p != '"')
    return l->bad = true, -1;
  const char *b = l->p;
  skip_string(l);
  k = b + 1;
  n = l->bad ? 0 : (size_t)(l->p - b) - 2;
  if (l->bad || !eat(l, ':'))
    return l->bad = true, -1;
  for (int i = 0; names[i] != NULL; i++)
    if (n == strlen(names[i]) && memcmp(k, names[i], n) == 0)
      return i;
  return -1;
}

static bool key_is(struct lex *l, const char *want) {
  const char *const names[] = {want, NULL};
  return key_in(l, names) == 0;
}

static bool push_span(struct spans *s, struct span sp) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 64;
    struct span *p = realloc(s->items, cap * sizeof *p);
    if (p == NULL)
      return false;
    s->items = p;
    s->cap = cap;
  }
  s->items[s->n++] = sp;
  return true;
}

/* One case: its per_rank value read into columns, the rest skipped. */
static void scan_case(struct lex *l, size_t index, struct spans *s) {
  if (!eat(l, '{')) {
    skip_value(l);
    return;
  }
  if (eat(l, '}'))
    return;
  do {
    if (!key_is(l, "per_rank")) {
      if (!l->bad)
        skip_value(l);
      continue;
    }
    ws(l);
    struct span sp = {.begin = (size_t)(l->p - l->base), .index = index};
    sp.value = columns(l, NULL, 0, 0);
    sp.end = (size_t)(l->p - l->base);
    if (sp.value != NULL && !push_span(s, sp)) {
      json_decref(sp.value);
      l->bad = true;
    }
  } while (!l->bad && eat(l, ','));
  if (!l->bad && !eat(l, '}'))
    l->bad = true;
}

/* One node: where its topology is (read later, once for all the nodes
 * whose topology is written alike), the rest skipped. */
static void scan_node(struct lex *l, size_t index, struct spans *s) {
  if (!eat(l, '{')) {
    skip_value(l);
    return;
  }
  if (eat(l, '}'))
    return;
  do {
    if (!key_is(l, "topology")) {
      if (!l->bad)
        skip_value(l);
      continue;
    }
    ws(l);
    struct span sp = {
        .begin = (size_t)(l->p - l->base), .index = index, .topology = true};
    skip_value(l);
    sp.end = (size_t)(l->p - l->base);
    if (!l->bad && !push_span(s, sp))
      l->bad = true;
  } while (!l->bad && eat(l, ','));
  if (!l->bad && !eat(l, '}'))
    l->bad = true;
}

/* An array of the document, each element through `each`. */
static void scan_array(struct lex *l, struct spans *s,
                       void (*each)(struct lex *, size_t, struct spans *)) {
  if (!eat(l, '[')) {
    skip_value(l);
    return;
  }
  size_t index = 0;
  if (eat(l, ']'))
    return;
  do
    each(l, index++, s);
  while (!l->bad && eat(l, ','));
  if (!l->bad && !eat(l, ']'))
    l->bad = true;
}

/* The document: its "cases" case by case and its "nodes" node by node,
 * the rest skipped. */
static void scan(struct lex *l, struct spans *s) {
  static const char *const sections[] = {"cases", "nodes", NULL};
  if (!eat(l, '{')) {
    l->bad = true;
    return;
  }
  do {
    int which = key_in(l, sections);
    if (l->bad)
      break;
    if (which < 0)
      skip_value(l);
    else
      scan_array(l, s, which == 0 ? scan_case : scan_node);
  } while (!l->bad && eat(l, ','));
  if (!l->bad && !eat(l, '}'))
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

/* Puts each span's columns back in its case; false if the tree jansson
 * built does not have `{}` where a span was (it cannot, but checked). */
static bool put_back(json_t *root, struct spans *s) {
  json_t *cases = json_object_get(root, "cases"),
         *nodes = json_object_get(root, "nodes");
  for (size_t i = 0; i < s->n; i++) {
    const char *key = s->items[i].topology ? "topology" : "per_rank";
    json_t *c =
        json_array_get(s->items[i].topology ? nodes : cases, s->items[i].index);
    json_t *pr = json_object_get(c, key);
    if (!json_is_object(pr) || json_object_size(pr) != 0 ||
        json_object_set_new(c, key, s->items[i].value) != 0)
      return false;
    s->items[i].value = NULL;
  }
  return true;
}

bool gcb__read_fast(const char *text, size_t len,
                    bool (*fits)(size_t len, size_t entries),
                    size_t compact_min, json_t **root, size_t *entries) {
  *root = NULL;
  *entries = 0;
  struct lex l = {
      .base = text, .p = text, .end = text + len, .compact_min = compact_min};
  struct spans s = {0};
  scan(&l, &s);
  ws(&l);
  free(l.buf);
  bool taken = false;
  for (size_t i = 0; i < s.n; i++)
    if (!s.items[i].topology)
      *entries +=
          gcb_ranks_column_size(json_object_get(s.items[i].value, "rank"));
  if (!l.bad && l.p == l.end && s.n > 0 && fits(len, *entries) &&
      read_topologies(text, &s)) {
    struct feed f = {.text = text, .len = len, .s = &s};
    json_error_t je;
    *root = json_load_callback(feed_more, &f,
                               JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
    taken = *root != NULL && put_back(*root, &s);
    if (!taken) {
      json_decref(*root);
      *root = NULL;
    }
  }
  for (size_t i = 0; i < s.n; i++)
    json_decref(s.items[i].value);
  free(s.items);
  return taken;
}
