/*
 * The lexer of the quick road through a results document (read_fast.c):
 * the per-rank columns of a case, read without jansson's lexer or strtod
 * (read_lex.c), and the skipping of whatever else the scan passes. A
 * lexer is all its state.
 */
#ifndef GCB_READ_LEX_H
#define GCB_READ_LEX_H

#include <stdbool.h>
#include <stddef.h>

#include "reports/document/ranks.h"

struct gcb__lex {
  const char *base, *p, *end;
  bool bad;           /* gave up: the caller takes jansson's road */
  unsigned char *buf; /* the column being read (the caller frees it) */
  size_t cap;         /* its bytes */
};

static inline void gcb__lex_ws(struct gcb__lex *l) {
  while (l->p < l->end &&
         (*l->p == ' ' || *l->p == '\n' || *l->p == '\r' || *l->p == '\t'))
    l->p++;
}

static inline bool gcb__lex_eat(struct gcb__lex *l, char c) {
  gcb__lex_ws(l);
  if (l->p < l->end && *l->p == c) {
    l->p++;
    return true;
  }
  return false;
}

/* A per_rank value at l->p: an object of the table's columns (and groups
 * of them), every column as long as "rank", into *out (free with
 * gcb_ranks_free). false with l->bad (*out empty) when this road gives up
 * on it. */
bool gcb__lex_per_rank(struct gcb__lex *l, struct gcb_ranks *out);

/* Skips one value, or one string at its opening quote (escapes included),
 * for the scan of the rest of the document, which jansson reads and
 * checks itself; l->bad when the text ends first, or at a NUL byte outside
 * a string (which jansson would drop after a number or a literal: with the
 * columns' lexer, which takes none, a text this road takes has no NUL
 * byte; one inside a string jansson refuses). */
void gcb__lex_skip_value(struct gcb__lex *l);
void gcb__lex_skip_string(struct gcb__lex *l);

#endif
