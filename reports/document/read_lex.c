/*
 * The lexer of read_lex.h, for the quick road (read_fast.c says why): a
 * per_rank read with a lexer made for columns of scalars (numbers
 * converted without strtod where that is exact) straight into the arrays
 * of a struct gcb_ranks (ranks.h), each element the type the table's kind
 * for its column allows. Whatever it does not recognise gives up
 * (l->bad), and jansson's road reads the document.
 */
#include "reports/document/read_lex.h"

#include "reports/document/fmtnum.h"
#include "reports/document/ranks.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* The first quote or backslash from p on, or end: sixteen bytes at a
 * time where SSE2 is there (the scan before the two lanes, which runs
 * alone, passes every string of the nodes' topologies). */
static const char *quote_or_escape(const char *p, const char *end) {
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"'), escape = _mm_set1_epi8('\\');
  for (; end - p >= 16; p += 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)p);
    int mask = _mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, escape)));
    if (mask != 0)
      return p + __builtin_ctz((unsigned)mask);
  }
#endif
  while (p < end && *p != '"' && *p != '\\')
    p++;
  return p;
}

/* Skips any string (escapes included) for the scan of the rest of the
 * document, which jansson reads and checks itself. */
void gcb__lex_skip_string(struct gcb__lex *l) {
  const char *p = l->p + 1;
  while ((p = quote_or_escape(p, l->end)) < l->end && *p == '\\')
    p += 2;
  if (p >= l->end) {
    l->p = l->end;
    l->bad = true;
  } else {
    l->p = p + 1;
  }
}

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;

static int bits128(u128 v) {
  uint64_t hi = (uint64_t)(v >> 64);
  return hi != 0  ? 128 - __builtin_clzll(hi)
         : v != 0 ? 64 - __builtin_clzll((uint64_t)v)
                  : 0;
}

/* mant × 2^e (2^52 <= mant <= 2^53) as a double, its bits put together:
 * ldexp and scalbn, calls into libm with their own checks, were 50 M of
 * the lexer's 1.2 G instructions at 4096 ranks. ldexp still takes what
 * would not be a normal double (the caller's range never gives one). */
static double make_double(uint64_t mant, int e) {
  if (mant == (uint64_t)1 << 53)
    mant >>= 1, e++;
  int biased = e + 52 + 1023;
  if (biased < 1 || biased > 2046)
    return ldexp((double)mant, e);
  uint64_t bits = (uint64_t)biased << 52 | (mant & (((uint64_t)1 << 52) - 1));
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* q × 2^e2 (exact) rounded to the nearest double, ties to even. q >=
 * 2^54, and the result a normal double (the caller's range). */
static double round_scaled(u128 q, int e2) {
  int shift = bits128(q) - 53;
  uint64_t mant = (uint64_t)(q >> shift);
  u128 rest = q & (((u128)1 << shift) - 1), half = (u128)1 << (shift - 1);
  if (rest > half || (rest == half && (mant & 1)))
    mant++; /* 2^53 at most: one more bit of exponent, below */
  return make_double(mant, shift + e2);
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

/* 5^-k for k = 1..27 as Eisel and Lemire's algorithm takes it (fast_float's
 * table): c = floor(2^b / 5^k) + 1 with b = 127 + the bits of 5^k, so
 * that 2^127 <= c < 2^128, high word first. */
static const uint64_t pow5_inverse[27][2] = {
    {0xccccccccccccccccull, 0xcccccccccccccccdull}, /* 5^-1 */
    {0xa3d70a3d70a3d70aull, 0x3d70a3d70a3d70a4ull}, /* 5^-2 */
    {0x83126e978d4fdf3bull, 0x645a1cac083126eaull}, /* 5^-3 */
    {0xd1b71758e219652bull, 0xd3c36113404ea4a9ull}, /* 5^-4 */
    {0xa7c5ac471b478423ull, 0x0fcf80dc33721d54ull}, /* 5^-5 */
    {0x8637bd05af6c69b5ull, 0xa63f9a49c2c1b110ull}, /* 5^-6 */
    {0xd6bf94d5e57a42bcull, 0x3d32907604691b4dull}, /* 5^-7 */
    {0xabcc77118461cefcull, 0xfdc20d2b36ba7c3eull}, /* 5^-8 */
    {0x89705f4136b4a597ull, 0x31680a88f8953031ull}, /* 5^-9 */
    {0xdbe6fecebdedd5beull, 0xb573440e5a884d1cull}, /* 5^-10 */
    {0xafebff0bcb24aafeull, 0xf78f69a51539d749ull}, /* 5^-11 */
    {0x8cbccc096f5088cbull, 0xf93f87b7442e45d4ull}, /* 5^-12 */
    {0xe12e13424bb40e13ull, 0x2865a5f206b06fbaull}, /* 5^-13 */
    {0xb424dc35095cd80full, 0x538484c19ef38c95ull}, /* 5^-14 */
    {0x901d7cf73ab0acd9ull, 0x0f9d37014bf60a11ull}, /* 5^-15 */
    {0xe69594bec44de15bull, 0x4c2ebe687989a9b4ull}, /* 5^-16 */
    {0xb877aa3236a4b449ull, 0x09befeb9fad487c3ull}, /* 5^-17 */
    {0x9392ee8e921d5d07ull, 0x3aff322e62439fd0ull}, /* 5^-18 */
    {0xec1e4a7db69561a5ull, 0x2b31e9e3d06c32e6ull}, /* 5^-19 */
    {0xbce5086492111aeaull, 0x88f4bb1ca6bcf585ull}, /* 5^-20 */
    {0x971da05074da7beeull, 0xd3f6fc16ebca5e04ull}, /* 5^-21 */
    {0xf1c90080baf72cb1ull, 0x5324c68b12dd6339ull}, /* 5^-22 */
    {0xc16d9a0095928a27ull, 0x75b7053c0f178294ull}, /* 5^-23 */
    {0x9abe14cd44753b52ull, 0xc4926a9672793543ull}, /* 5^-24 */
    {0xf79687aed3eec551ull, 0x3a83ddbd83f52205ull}, /* 5^-25 */
    {0xc612062576589ddaull, 0x95364afe032a819eull}, /* 5^-26 */
    {0x9e74d1b791e07e48ull, 0x775ea264cf55347eull}, /* 5^-27 */
};

/*
 * w 10^-k (w >= 2^53, 1 <= k <= 27) rounded to the nearest double without
 * a division: Eisel and Lemire's algorithm (fast_float's compute_float).
 * w, shifted to its top bit, times the table's 5^-k gives the value's
 * top 128 bits; a second product only when the first leaves the rounding
 * open, which Mushtak and Lemire prove enough; a tie (possible only for k
 * <= 4, where the product can be exact) goes to even. The two 64-bit
 * divisions of the quotient this replaces were a fifth of the columns'
 * lexer's samples: 17 digits past the point are most of a document.
 * false where the result would not be a normal double (not in this
 * range; strtod then decides).
 */
static bool scaled_down(uint64_t w, int k, double *out) {
  int lz = __builtin_clzll(w);
  w <<= lz;
  const uint64_t *c = pow5_inverse[k - 1];
  u128 first = (u128)w * c[0];
  uint64_t hi = (uint64_t)(first >> 64), lo = (uint64_t)first;
  if ((hi & 0x1FF) == 0x1FF) { /* the 9 bits below the rounding bit */
    uint64_t second = (uint64_t)(((u128)w * c[1]) >> 64);
    lo += second;
    hi += lo < second;
  }
  int upper = (int)(hi >> 63), shift = upper + 9;
  uint64_t mant = hi >> shift; /* 54 bits: 53 and the rounding bit */
  /* floor(log2(10^-k)) + 63, as floor(-k 217706 / 2^16) + 63 */
  int t = -k * 217706;
  int biased = -((-t + 65535) >> 16) + 63 + upper - lz + 1023;
  if (lo <= 1 && k <= 4 && (mant & 3) == 1 && mant << shift == hi)
    mant &= ~(uint64_t)1; /* exactly half way: to even */
  mant = (mant + (mant & 1)) >> 1;
  if (mant >= (uint64_t)2 << 52)
    mant = (uint64_t)1 << 52, biased++;
  if (biased < 1 || biased > 2046)
    return false;
  uint64_t bits = (uint64_t)biased << 52 | (mant & (((uint64_t)1 << 52) - 1));
  memcpy(out, &bits, sizeof *out);
  return true;
}
#endif

/*
 * w × 10^e10 rounded to the nearest double, when that can be done
 * exactly without strtod: Clinger's fast path (w < 2^53, |e10| <= 22,
 * one correctly rounded operation), else, for |e10| <= 27, the exact
 * product by 5^e10 in 128-bit integers and one rounding, or Eisel and
 * Lemire's product by 5^e10 below zero (scaled_down) (the shortest
 * form of most doubles has 17 digits, past 2^53, and
 * strtod was a tenth of a large report's time). false: ask strtod.
 */
static bool exact_double(uint64_t w, int e10, double *out) {
  if (w == 0) {
    *out = 0;
    return true;
  }
  if (w < ((uint64_t)1 << 53) && e10 >= -22 && e10 <= 22) {
    *out = e10 < 0 ? (double)w / gcb__pow10[-e10] : (double)w * gcb__pow10[e10];
    return true;
  }
#ifdef __SIZEOF_INT128__
  if (w >= ((uint64_t)1 << 53) && e10 >= 0 && e10 <= 27) {
    /* w 5^e10 2^e10: exact in 128 bits, at least 54 bits long */
    *out = round_scaled((u128)w * pow5(e10), e10);
    return true;
  }
  if (w >= ((uint64_t)1 << 53) && e10 < 0 && e10 >= -27)
    return scaled_down(w, -e10, out);
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

/* A column being read: its elements so far, in the lexer's buffer (one
 * for all the columns: a document's columns are then one exact block
 * each, not what a growing array left behind). */
struct column {
  double *num;
  char **str;
  size_t n, cap;
};

/* Room for element c->n; false on ENOMEM. */
static bool room(struct gcb__lex *l, struct column *c, size_t size) {
  if (c->n == c->cap) {
    size_t cap = l->cap > (c->n + 1) * size ? l->cap : 2 * l->cap + 8192;
    void *p = cap > l->cap ? realloc(l->buf, cap) : l->buf;
    if (p == NULL)
      return false;
    l->buf = p;
    l->cap = cap;
  }
  c->num = (double *)l->buf;
  c->str = (char **)l->buf;
  c->cap = l->cap / size;
  return true;
}

/* Element c->n of a column of this kind into c: NaN (a number column)
 * or NULL (a text one) for null; false for what the kind does not allow
 * (the caller gives up, and the schema walker words it on jansson's
 * road). prev, prev_len: the string before it, whose copy is shared when
 * this one is the same (a column of methods is one value 16,384 times);
 * NULL after a null. */
static bool element(struct gcb__lex *l, struct gcb_ranks *r,
                    enum gcb_rank_kind kind, struct column *c,
                    const char **prev, size_t *prev_len) {
  bool nullable = kind == GCB_RK_NUM_NULLABLE || kind == GCB_RK_INT_NULLABLE ||
                  kind >= GCB_RK_BOOL_NULLABLE;
  bool boolean = kind == GCB_RK_BOOL || kind == GCB_RK_BOOL_NULLABLE;
  bool text = kind == GCB_RK_STR_NULLABLE, real;
  double d = NAN;
  char *s = NULL;
  int64_t iv;
  gcb__lex_ws(l);
  const char *b = l->p, *q = l->p;
  size_t left = (size_t)(l->end - l->p), n;
  if (left >= 4 && memcmp(b, "null", 4) == 0 && nullable) {
    l->p += 4, *prev = NULL;
  } else if (text) {
    if (!plain_string(l, &q, &n))
      return false;
    s = *prev != NULL && *prev_len == n && memcmp(*prev, q, n) == 0
            ? c->str[c->n - 1]
            : gcb__ranks_keep(r, q, n);
    if (s == NULL)
      return false;
    *prev = q, *prev_len = n;
  } else if (boolean && left >= 4 && memcmp(b, "true", 4) == 0) {
    l->p += 4, d = 1;
  } else if (boolean && left >= 5 && memcmp(b, "false", 5) == 0) {
    l->p += 5, d = 0;
  } else if (boolean) {
    return false;
  } else if (!lex_number(l, &real, &d, &iv) ||
             (real && (kind == GCB_RK_INT || kind == GCB_RK_INT_NULLABLE))) {
    return false;
  } else {
    d = real ? d : (double)iv;
  }
  if (text)
    c->str[c->n++] = s;
  else
    c->num[c->n++] = d;
  return true;
}

/* Column col: an array of what its kind allows, into r; false when
 * giving up. */
static bool table_column(struct gcb__lex *l, struct gcb_ranks *r, int col,
                         size_t *len) {
  enum gcb_rank_kind kind = gcb_rank_columns[col].kind;
  bool text = kind == GCB_RK_STR_NULLABLE;
  size_t size = text ? sizeof(char *) : sizeof(double);
  struct column c = {0};
  const char *prev = NULL;
  size_t prev_len = 0;
  bool ok = gcb__lex_eat(l, '[');
  if (ok && !gcb__lex_eat(l, ']')) {
    do
      ok = room(l, &c, size) && element(l, r, kind, &c, &prev, &prev_len);
    while (ok && gcb__lex_eat(l, ','));
    ok = ok && gcb__lex_eat(l, ']');
  }
  /* an empty column is there all the same: a block of one */
  void *p = ok ? malloc(c.n ? c.n * size : size) : NULL;
  if (p != NULL && c.n > 0)
    memcpy(p, l->buf, c.n * size);
  if (text)
    r->str[col] = p;
  else
    r->num[col] = p;
  *len = c.n;
  return p != NULL;
}

/* An object of columns (depth 0: per_rank itself, whose members may also
 * be groups of columns; depth 1: a group) into r; lens: each column's
 * length. Keys once each, as JSON_REJECT_DUPLICATES wants, and each a
 * column of the table: anything else gives up. */
static bool columns(struct gcb__lex *l, struct gcb_ranks *r, const char *group,
                    size_t glen, int depth, size_t *lens) {
  const char *keys[MAX_KEYS];
  size_t klens[MAX_KEYS], nkeys = 0;
  if (!gcb__lex_eat(l, '{'))
    return false;
  if (gcb__lex_eat(l, '}'))
    return true;
  do {
    const char *k;
    size_t n;
    if (nkeys == MAX_KEYS || !plain_string(l, &k, &n) || !gcb__lex_eat(l, ':'))
      return false;
    for (size_t i = 0; i < nkeys; i++)
      if (klens[i] == n && memcmp(keys[i], k, n) == 0)
        return false;
    keys[nkeys] = k;
    klens[nkeys++] = n;
    gcb__lex_ws(l);
    if (l->p < l->end && *l->p == '{' && depth == 0) {
      if (!columns(l, r, k, n, 1, lens))
        return false;
      continue;
    }
    int col = gcb__ranks_column_find(group, glen, k, n);
    if (col < 0 || !table_column(l, r, col, &lens[col]))
      return false;
  } while (gcb__lex_eat(l, ','));
  return gcb__lex_eat(l, '}');
}

bool gcb__lex_per_rank(struct gcb__lex *l, struct gcb_ranks *out) {
  size_t lens[GCB_RC_COUNT] = {0};
  *out = (struct gcb_ranks){0};
  bool ok = columns(l, out, NULL, 0, 0, lens) && out->num[GCB_RC_RANK] != NULL;
  out->n = lens[GCB_RC_RANK];
  for (size_t c = 0; ok && c < GCB_RC_COUNT; c++)
    ok = (out->num[c] == NULL && out->str[c] == NULL) || lens[c] == out->n;
  if (!ok) {
    gcb_ranks_free(out);
    l->bad = true;
  }
  return ok;
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
      static const bool delimiter[256] = {
          [','] = true, [':'] = true,  [']'] = true,  ['}'] = true,
          [' '] = true, ['\t'] = true, ['\r'] = true, ['\n'] = true,
          ['"'] = true, ['\0'] = true};
      while (l->p < l->end && !delimiter[(unsigned char)*l->p])
        l->p++;
      l->bad = l->p < l->end && *l->p == '\0';
    }
  } while (depth > 0 && !l->bad);
}
