/*
 * The lexer of read_lex.h: a results document's per-rank columns read
 * straight into values (results_int.h, gcb__read_fast). At 16,384 ranks
 * nineteen twentieths of a document are the numbers of
 * `cases[i].per_rank`, and jansson's lexer (one character at a time
 * through its stream), strtod and one allocation per number were most of
 * a report's time. Each per_rank is read with a lexer made for columns of
 * scalars (numbers converted without strtod where that is exact): a large
 * numeric or boolean column into a compact column (ranks.h: 8 bytes an
 * element, not a jansson value each), any other into a jansson array in
 * which a value equal to the one before it is shared, not allocated
 * again. Whatever it does not recognise gives up (l->bad).
 */
#include "reports/document/read_lex.h"

#include "reports/document/ranks.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The most per_rank keys (columns and groups) at one level: the schema
 * has a dozen; more is not a document this road is for. */
#define MAX_KEYS 64

/* A string of printable ASCII without escapes (all that columns, keys
 * and methods hold); anything else gives up. *s, *n: its bytes. */
static bool plain_string(struct gcb__lex *l, const char **s, size_t *n) {
  if (!gcb__lex_eat(l, '"'))
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
void gcb__lex_skip_string(struct gcb__lex *l) {
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
static bool lex_number(struct gcb__lex *l, bool *real, double *d, int64_t *iv) {
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
static json_t *number(struct gcb__lex *l) {
  bool real;
  double d;
  int64_t iv;
  if (!lex_number(l, &real, &d, &iv))
    return NULL;
  return real ? json_real(d) : json_integer((json_int_t)iv);
}

/* One element of a column; prev/prev_text: the element before it, shared
 * when this one is written the same (a column of iteration counts or
 * tolerances is one value 16,384 times). A literal is the element before
 * the next one too: `[3, null, 3]` once read as `[3, null, null]`, the
 * second 3 compared with the text of the first and given the null. */
static json_t *element(struct gcb__lex *l, json_t *prev, const char **prev_text,
                       size_t *prev_len) {
  gcb__lex_ws(l);
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
    v = json_true();
  } else if (l->end - l->p >= 5 && memcmp(l->p, "false", 5) == 0) {
    l->p += 5;
    v = json_false();
  } else if (l->end - l->p >= 4 && memcmp(l->p, "null", 4) == 0) {
    l->p += 4;
    v = json_null();
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
static json_t *column(struct gcb__lex *l) {
  json_t *a = json_array(), *prev = NULL;
  const char *prev_text = NULL;
  size_t prev_len = 0;
  if (a == NULL || !gcb__lex_eat(l, '['))
    goto fail;
  if (gcb__lex_eat(l, ']'))
    return a;
  do {
    json_t *v = element(l, prev, &prev_text, &prev_len);
    if (v == NULL || json_array_append_new(a, v) != 0)
      goto fail;
    prev = v;
  } while (gcb__lex_eat(l, ','));
  if (gcb__lex_eat(l, ']'))
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
static bool compact_element(struct gcb__lex *l, enum gcb_rank_store store,
                            bool nullable, bool *has_null, void *out) {
  gcb__lex_ws(l);
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
static bool room(struct gcb__lex *l, size_t n) {
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
static json_t *table_column(struct gcb__lex *l, enum gcb_rank_kind kind) {
  bool nullable, has_null = false;
  enum gcb_rank_store store = store_of(kind, &nullable);
  const char *start = l->p;
  size_t n = 0;
  bool ok =
      store != GCB_RS_JSON && gcb__lex_eat(l, '[') && !gcb__lex_eat(l, ']');
  if (ok) {
    do
      ok = room(l, n) &&
           compact_element(l, store, nullable, &has_null, l->buf + 8 * n++);
    while (ok && gcb__lex_eat(l, ','));
    ok = ok && gcb__lex_eat(l, ']') && n >= l->compact_min;
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
static json_t *columns(struct gcb__lex *l, const char *group, size_t glen,
                       int depth) {
  json_t *o = json_object();
  const char *keys[MAX_KEYS];
  size_t lens[MAX_KEYS], nkeys = 0;
  if (o == NULL || !gcb__lex_eat(l, '{'))
    goto fail;
  if (gcb__lex_eat(l, '}'))
    return o;
  do {
    const char *k;
    size_t n;
    if (nkeys == MAX_KEYS || !plain_string(l, &k, &n) || !gcb__lex_eat(l, ':'))
      goto fail;
    for (size_t i = 0; i < nkeys; i++)
      if (lens[i] == n && memcmp(keys[i], k, n) == 0)
        goto fail;
    keys[nkeys] = k;
    lens[nkeys++] = n;
    gcb__lex_ws(l);
    enum gcb_rank_kind kind;
    json_t *v = l->p < l->end && *l->p == '{' && depth == 0
                    ? columns(l, k, n, 1)
                : table_kind(group, glen, k, n, &kind) ? table_column(l, kind)
                                                       : column(l);
    if (v == NULL || json_object_setn_new_nocheck(o, k, n, v) != 0)
      goto fail;
  } while (gcb__lex_eat(l, ','));
  if (gcb__lex_eat(l, '}'))
    return o;
fail:
  l->bad = true;
  json_decref(o);
  return NULL;
}

/* Skips one value of the rest of the document (jansson checks it). */
void gcb__lex_skip_value(struct gcb__lex *l) {
  size_t depth = 0;
  do {
    gcb__lex_ws(l);
    if (l->p >= l->end) {
      l->bad = true;
      return;
    }
    char c = *l->p;
    if (c == '"')
      gcb__lex_skip_string(l);
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
    else { /* a number or a literal, to the next delimiter; a NUL gives
            * up (jansson would drop one after a number: read.c) */
      while (l->p < l->end && !memchr(",:]} \t\r\n\"", *l->p, 10))
        l->p++;
      l->bad = l->p < l->end && *l->p == '\0';
    }
  } while (depth > 0 && !l->bad);
}

json_t *gcb__lex_per_rank(struct gcb__lex *l) {
  return columns(l, NULL, 0, 0);
}
