/*
 * What the nccl-tests and rccl-tests converters share (logs, -J JSON,
 * rccl-tests JSON lines): a result row as the tools print it, the test it
 * belongs to, and the one way such a row becomes "coll" cases of a
 * gcbench document (interop_coll_case.c), so that every input of these
 * tools reads the same.
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

/* One test of a log: its column header's layout and its rows so far. */
struct gcb__coll_table {
  bool started, closed; /* header seen; summary ("Avg bus") seen */
  bool has_redop, has_root, has_avg;
  size_t nleft, halves; /* columns before the halves; 1 or 2 halves */
  int line, avg_line;
  char op[32]; /* "" until the file names it */
  double avg_busbw;
  long long out_of_bounds;
  struct gcb__coll_row *row;
  size_t rows, cap;
};

struct gcb__coll_log {
  struct gcb__conv *cv;
  struct gcb__coll_table table;
  char next_op[32], lib_version[32], tool_version[64];
  long long iterations, warmup, ngpus, max_rank;
  unsigned char *seen; /* ranks already in ranks[] */
  size_t nseen, total_rows, tables;
  int cut_line;
  bool rccl;
};

/* Starts x and cv's run (its tool from the text). */
void gcb__coll_log_begin(struct gcb__coll_log *x, struct gcb__conv *cv);

/* A rank of the device list (once per rank, however often listed);
 * GCB_ENOMEM (said) or GCB_OK. */
enum gcb_status gcb__coll_add_rank(struct gcb__coll_log *x, long long rank,
                                   const char *host, long long pid,
                                   const char *gpu, const char *bus,
                                   long long device);

/* Reads a row's tokens in table t's layout; NULL, or what is wrong. */
const char *gcb__coll_row_read(const struct gcb__coll_table *t, char **tok,
                               size_t n, struct gcb__coll_row *r);

/* Keeps a row of the current table (refused past the limit). */
enum gcb_status gcb__coll_row_add(struct gcb__coll_log *x,
                                  const struct gcb__coll_row *r, int line);

/* Converts the current test (its cases, its Avg bus bandwidth) and
 * forgets it; a no-op when no test is open. */
enum gcb_status gcb__coll_table_end(struct gcb__coll_log *x);

/* Ends the model: the last test, where the file was cut, counts. */
enum gcb_status gcb__coll_log_end(struct gcb__coll_log *x, int last_line);

void gcb__coll_log_free(struct gcb__coll_log *x);

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
