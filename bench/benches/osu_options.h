/*
 * gcbench as the OSU micro-benchmarks: the programs it answers to by
 * argv[0] (osu_latency, osu_bw, osu_allreduce ...), each one collective of
 * the coll benchmark, and OSU's dialect of the option table: OSU's letters
 * (-m, -i, -x, -f, -c, -d, -T, -k, -W, -z, -h, -v) as alias and parse rows
 * onto coll's and the harness's own options, with OSU's meanings and each
 * program's defaults. Sources: OSU micro-benchmarks 7.4, c/util/osu_util.h,
 * osu_util.c, osu_util_mpi.c and osu_util_options.h.
 */
#ifndef GCB_OSU_OPTIONS_H
#define GCB_OSU_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/cli/options.h"
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

/* Whether `p` runs N/2 pairs at once, rank i with i + N/2 (osu_multi_lat,
 * osu_mbw_mr): a barrier before each exchange, outside the timed region,
 * and the figure over the pairs' initiators (coll -z 3 -a 4 --layout
 * osu-multi). */
bool gcb__osu_multi_pair(const struct gcb_osu_program *p);

/* The multi-pair program (osu_multi_lat, osu_mbw_mr) of `op`, whose
 * layout coll's --layout osu-multi prints, or NULL. */
const struct gcb_osu_program *gcb__osu_program_multi(const char *op);

/* Whether `p` is osu_mbw_mr: its own title lines (no blank line, no
 * accelerator in the title, the pairs and window line) and its MB/s and
 * Messages/s columns. */
bool gcb__osu_is_mbw_mr(const struct gcb_osu_program *p);

/* The message size OSU prints for a case of collective `op` moving `bytes`
 * (nccl-tests' S, as coll's -b/-e count it) on nranks: each rank's block
 * for allgather, alltoall, gather and scatter, else the same. */
uint64_t gcb__osu_size(const char *op, uint64_t bytes, int nranks);

/* OSU's default timed iterations and warm-up (its "skip") of a kind for
 * messages up to GCB_OSU_LARGE_MESSAGE (large false) or beyond. */
void gcb__osu_defaults(enum gcb_osu_kind kind, bool large, long *iters,
                       long *warmup);

/* OSU's rows: the target of their group is a struct gcb_osu_cmd. */
extern const struct gcb_option gcb_osu_options[];

/* What OSU's rows work with: the program and the world (sizes per rank,
 * -k's bound, -p's one value), and whether -v was given. */
struct gcb_osu_cmd {
  const struct gcb_osu_program *p;
  int nranks;
  bool version; /* -v/--version: print OSU's version line, run nothing */
};

/* The groups whose fields an OSU command line fills. */
#define GCB_OSU_NGROUPS 2

/*
 * Fills groups with the harness's options (into `run`, a struct
 * gcb_run_opts) and coll's (into `coll`, coll's options struct), and *d
 * with OSU's dialect over them for cmd->p: OSU's letters are the options
 * of the command line; the groups keep storage, defaults, bounds and the
 * echo (gcb_options_to_json of the groups is what ran).
 */
void gcb__osu_groups(struct gcb_osu_cmd *cmd, void *run, void *coll,
                     struct gcb_option_group groups[GCB_OSU_NGROUPS],
                     struct gcb_option_dialect *d);

/*
 * Parses OSU's command line (argv[0] the program) with the dialect and
 * groups of gcb__osu_groups: the program's defaults, the options, OSU's
 * buffer places ("D D"), the world's size for the program and the first
 * size holding an element. *help as gcb_options_parse; cmd->version for
 * -v. GCB_EUSAGE with one line, "PROGRAM: ...", on bad or unsupported
 * usage.
 */
enum gcb_status gcb__osu_parse(const struct gcb_option_dialect *d,
                               const struct gcb_option_group *groups, int argc,
                               char **argv, bool *help, struct gcb_err *err);

/* The head of OSU's --help for `p` (usage and the program's defaults);
 * gcb_options_help of the groups lists the options. */
void gcb__osu_usage(const struct gcb_osu_program *p, FILE *out);

/* OSU's --version line: "# OSU MPI Latency Test v7.4". */
void gcb__osu_version(const struct gcb_osu_program *p, bool device, FILE *out);

#endif
