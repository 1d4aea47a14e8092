/*
 * printf's "%.*g" for the numbers of large files (results.csv has half a
 * million rows at 4096 ranks, metrics.prom a sample per rank and case):
 * the same text, several times faster.
 */
#ifndef GCB_FMTNUM_H
#define GCB_FMTNUM_H

#include <stddef.h>

/* Room for any result, with its NUL. */
#define GCB_FMTNUM_MAX 32

/*
 * Writes x as snprintf(buf, GCB_FMTNUM_MAX, "%.*g", precision, x) would,
 * character for character, for any precision; returns the length.
 * For 1 to 15 digits the fast path scales x by a power of ten in one
 * correctly rounded operation; a value whose rounding that could tip
 * (within a few units in the last place of a half), or that is out of its
 * range, goes to snprintf. For 17 (metrics.prom's round trip) the product
 * is made exact with an fma; only exact halves and magnitudes outside
 * 1e-6 .. 1e17 go to snprintf. Other precisions always do.
 */
size_t gcb_fmtnum_g(char *buf, double x, int precision);

/*
 * Writes x as snprintf(buf, GCB_FMTNUM_MAX, "%.*f", decimals, x) would,
 * for 0 to 9 decimals, when it can be sure of the same text: x times
 * 10^decimals below 2^52 and not within a few units in its last place of
 * a half. Returns the length, or 0 when it cannot (a larger, infinite or
 * NaN x; a near tie; other decimals): the caller prints x with printf.
 */
size_t gcb_fmtnum_f(char *buf, double x, int decimals);

/* 10^0 .. 10^22, exact in a double (for the lexer too: read_lex.c). */
extern const double gcb__pow10[23];

/* Writes v as snprintf(buf, GCB_FMTNUM_MAX, "%lld", v) would; returns the
 * length. */
size_t gcb_fmtnum_ll(char *buf, long long v);

#endif
