/*
 * What the nccl-tests and rccl-tests converters share (logs, -J JSON,
 * rccl-tests JSON lines): a result row as the tools print it and the one
 * way such a row becomes "coll" cases of a gcbench document
 * (interop_coll_case.c), so that every input of these tools reads the
 * same.
 */
#ifndef GCB_INTEROP_COLL_H
#define GCB_INTEROP_COLL_H

#include "reports/interop/interop_int.h"

/* One half (out-of-place, in-place) of a row. */
struct gcb__coll_half {
  bool present;
  double us, alg, bus;   /* NAN where the tool printed none */
  double us_min, us_max; /* over ranks, where the tool prints them (0: us) */
  bool checked;          /* #wrong is a number (run with -c) */
  long long wrong;
};

/* A half as printed: #wrong counts only where checked, and as 0 where it is
 * no count (negative, past 9e15). */
struct gcb__coll_half gcb__coll_half(double us, double alg, double bus,
                                     bool checked, double wrong);

struct gcb__coll_row {
  double size, count;
  char type[24], redop[24];      /* redop "" where the layout has none */
  long long root;                /* -1 where the layout has none */
  long long iterations;          /* 0: the test's */
  struct gcb__coll_half half[2]; /* [0] out-of-place, [1] in-place */
  int line;
  bool no_bytes;       /* moves no message (a barrier): kept at 0 GB/s */
  const json_t *extra; /* more params the case carries (OSU's layout,
                          comm_size), or NULL */
};

/*
 * The cases of one row in gcbench's coll layout: params op, size, count,
 * type, redop, root, inplace; summary time_s, algbw, busbw; one case per
 * half present, or a skipped entry where the tool printed no finite time.
 * ranks: how many ranks took part (0: unknown); method: how values were
 * checked where #wrong is a number. Added to cv->m.
 */
enum gcb_status gcb__coll_row_cases(struct gcb__conv *cv, const char *op,
                                    const struct gcb__coll_row *r,
                                    long long ranks, long long iterations,
                                    long long warmup, const char *method);

#endif
