/*
 * gcbench as the OSU micro-benchmarks: the programs it answers to by
 * argv[0] (osu_latency, osu_bw, osu_allreduce ...), each one collective of
 * the coll benchmark, and the translation of OSU's command line (-m, -i,
 * -x, -f, -c, -d, -T, -h, -v) into coll's options with OSU's meanings and
 * defaults. Sources: OSU micro-benchmarks 7.4, c/util/osu_util.h,
 * osu_util.c, osu_util_mpi.c and osu_util_options.h.
 */
#ifndef GCB_OSU_ARGS_H
#define GCB_OSU_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/status.h"

/* Which of OSU's loops a program runs: its defaults and its layout. */
enum gcb_osu_kind {
  GCB_OSU_LAT,  /* osu_latency: ping-pong, "Avg Latency(us)" */
  GCB_OSU_BW,   /* osu_bw: a window of messages, "Bandwidth (MB/s)" */
  GCB_OSU_COLL, /* blocking collectives: per-rank mean, avg/min/max */
};

/* One OSU program gcbench knows by name. */
struct gcb_osu_program {
  const char *name;  /* "osu_latency" */
  const char *op;    /* coll's collective; NULL: refused */
  const char *title; /* "Latency Test" of "# OSU MPI Latency Test v7.4" */
  enum gcb_osu_kind kind;
  const char *refused; /* why gcbench cannot be this program, or NULL */
  bool per_rank_size;  /* OSU's size is each rank's block (allgather,
                          alltoall, gather, scatter), nccl-tests' the whole
                          buffer */
};

/* The version of OSU whose layout and defaults are reproduced. */
#define GCB_OSU_VERSION "7.4"

/* OSU's size past which the "large" iteration counts apply
 * (LARGE_MESSAGE_SIZE, osu_util.h). */
#define GCB_OSU_LARGE_MESSAGE 8192

/* The program `name` is (argv[0]'s basename), or NULL. */
const struct gcb_osu_program *gcb__osu_program(const char *name);

/* The i-th program of the table; NULL past the end. */
const struct gcb_osu_program *gcb__osu_program_at(size_t i);

/* Whether `p` moves no message at all (osu_barrier): no size column, no
 * -c, -T, -k or -l, and each operation timed alone, as OSU's barrier loop
 * (no barrier around a barrier). */
bool gcb__osu_sizeless(const struct gcb_osu_program *p);

/* The program that prints collective `op` in OSU's layout, or NULL. */
const struct gcb_osu_program *gcb__osu_program_of(const char *op);

/* The message size OSU prints for a case of collective `op` moving `bytes`
 * (nccl-tests' S, as coll's -b/-e count it) on nranks: each rank's block
 * for allgather, alltoall, gather and scatter, else the same. */
uint64_t gcb__osu_size(const char *op, uint64_t bytes, int nranks);

/* OSU's default timed iterations and warm-up (its "skip") of a kind for
 * messages up to GCB_OSU_LARGE_MESSAGE (large false) or beyond. */
void gcb__osu_defaults(enum gcb_osu_kind kind, bool large, long *iters,
                       long *warmup);

/*
 * Translates an OSU command line (argv[0] the program) into the arguments
 * of `gcbench coll` (argv[0] kept): *out is a NULL-terminated array the
 * caller frees (its strings are argv's, string literals or held in
 * *store, which the caller also frees). `nranks` is the world's size.
 * *action: 0 run, 1 help printed, 2 version printed. GCB_EUSAGE with one
 * line naming the option on bad or unsupported usage.
 */
enum gcb_status gcb__osu_translate(const struct gcb_osu_program *p, int argc,
                                   char **argv, int nranks, char ***out,
                                   int *nout, char **store, int *action,
                                   struct gcb_err *err);

/* OSU's --help for `p`: the options gcbench takes and what each does. */
void gcb__osu_help(const struct gcb_osu_program *p, FILE *out);

/* OSU's --version line: "# OSU MPI Latency Test v7.4". */
void gcb__osu_version(const struct gcb_osu_program *p, bool device, FILE *out);

#endif
