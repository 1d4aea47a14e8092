/*
 * What the OSU converter's two files share: the state of one OSU output
 * as it is read (interop_osu.c: lines, titles, column lines) and the
 * mapping of a row of a program gcbench also runs (osu_latency, osu_bw,
 * osu_bibw, osu_multi_lat, osu_mbw_mr, the blocking collectives,
 * osu_barrier) onto the case gcbench's own drop-in of that program writes
 * (interop_osu_case.c), so that `gcbench compare` pairs the two.
 */
#ifndef GCB_INTEROP_OSU_H
#define GCB_INTEROP_OSU_H

#include "reports/interop/interop_coll.h"

#define GCB__OSU_MAX_COLS 12

/* How gcbench runs an OSU program (bench/benches/osu_options.c): a
 * collective over every rank, a point-to-point test of two ranks, or N/2
 * pairs at once. */
enum gcb__osu_kind { GCB__OSU_COLL, GCB__OSU_PT2PT, GCB__OSU_MULTI };

/* One OSU program by its title, and the case gcbench writes for it. */
struct gcb__osu_op {
  const char *title; /* "Gather Latency" of "# OSU MPI Gather Latency Test" */
  const char *op;    /* gcbench coll's operation */
  enum gcb__osu_kind kind;
  bool per_rank; /* OSU's size is each rank's block: gcbench's S is size*n */
  bool rooted, reduces;
  bool sizeless; /* osu_barrier: no size column */
  char factor;   /* busbw/algbw: 'a' 2(n-1)/n, 'g' (n-1)/n, '1' one */
};

struct gcb__osu {
  struct gcb__conv *cv;
  char bench[96]; /* "Allreduce Latency", from the title line */
  const struct gcb__osu_op *known; /* NULL: imported figures */
  char type[24];                   /* from "# Datatype: MPI_INT." */
  char col[GCB__OSU_MAX_COLS][40]; /* column names */
  size_t ncols;
  bool started, sizeless; /* sizeless: no "Size" column (osu_barrier) */
  size_t rows;
  int cut_line;
  long long ranks;         /* the benchmark's rank count; 0: unknown */
  long long next_ranks;    /* from a launcher line, for the next title */
  long long pairs, window; /* osu_mbw_mr's "# [ pairs: N ] [ window ... ]" */
  long long max_ranks;     /* run.ranks */
};

/* The program titled `title`, or NULL. */
const struct gcb__osu_op *gcb__osu_op_of(const char *title);

/* Column index whose name starts with prefix, or -1. */
int gcb__osu_col(const struct gcb__osu *o, const char *prefix);

/* A row of o->known's table (tok: one token per column; size 0 when
 * sizeless) as gcbench's coll case. */
enum gcb_status gcb__osu_known_row(struct gcb__osu *o, char **tok, double size,
                                   int line);

#endif
