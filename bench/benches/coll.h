/*
 * Internal to the coll benchmark: its options and the timing of one case
 * (aggregated loop as nccl-tests, blocking loop as OSU, and a per-iteration
 * pass that yields p50/p99 and each rank's arrival lateness).
 */
#ifndef GCB_COLL_H
#define GCB_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"
#include "collectives/comm.h"

/* How many nccl-tests options coll takes only at their default value. */
#define GCB_COLL_NCCL_REFUSED 12

struct coll_opts {
  uint32_t ops; /* bit set over coll_op_names */
  uint64_t minbytes, maxbytes, stepbytes;
  double stepfactor;
  uint32_t dtypes; /* bit set over enum gcb_coll_dtype */
  uint32_t redops; /* bit set over enum gcb_coll_redop */
  long root;
  long check;    /* -c: validations per case (nccl-tests' count), 0: none */
  long blocking; /* -z: 0 back to back, 1 barrier after each operation
                    (timed), 2 wait after each, 3 barrier outside the time */
  long agg;      /* -m: operations per timed iteration */
  long cycles;   /* -N: sweeps, each printed (0: until interrupted) */
  long nccl_parallel; /* -p: accepted, no effect (one thread per process) */
  int layout;    /* --layout: 0 nccl-tests' columns, 1 with min/max, 2 OSU's,
                    3 OSU's with -f's min/max/iterations, 4 OSU's multi-pair
                    programs' (coll_layout_names) */
  int placement; /* 0 both, 1 out of place only, 2 in place only */
  /* --iters-large, --warmup-large: the counts of sizes above OSU's
   * LARGE_MESSAGE_SIZE (8192 bytes of OSU's size, gcb__osu_size), OSU's
   * iterations_large and skip_large; -1: --iters' and --warmup's, which
   * count every size up to it (one field per value: the harness's) */
  long iters_large;
  long warmup_large;
  long average; /* -a: time shown: 0 rank 0, 1 mean, 2 min, 3 max,
                   4 mean over the pairs' initiators */
  long window;  /* --window: messages per window; 0: the pattern's */
  long nccl[GCB_COLL_NCCL_REFUSED]; /* nccl-tests options refused unless at
                                       their default (coll_nccl.c) */
  long per_iter;         /* -I: 1 per-iteration columns (and in -J's file) */
  long per_iter_skip;    /* -K: leading iterations -I's summary leaves out */
  const char *json;      /* -J: nccl-tests' JSON document, or NULL */
  const char *tail_lat;  /* --tail-lat P[,P...]: OSU -z's percentiles */
  const char *program;   /* --program: a nccl-tests program name, or NULL */
  const char *transport; /* auto, mpi, nccl */
  const char *split;     /* auto, or a list of none, node, cross */
  const char *delay;     /* test only: "RANK:MICROSECONDS" */
  long corrupt_rank;     /* test only: -1 none */
  uint64_t given;        /* options given explicitly (GCB_OPT_GIVEN) */
};

/* Communicators a case can run over (--split), as nccl-tests' split. */
enum coll_split {
  COLL_SPLIT_NONE,  /* every rank */
  COLL_SPLIT_NODE,  /* one per node: intra-node links (NVLink, memory) */
  COLL_SPLIT_CROSS, /* one per local rank index: the network between nodes */
  COLL_SPLIT_COUNT
};

/* One communicator the cases of a split run over. */
struct coll_comm {
  MPI_Comm owned; /* made here (cross), else MPI_COMM_NULL */
  struct gcb_coll_env env;
  struct gcb_comm *comm; /* the opened transport; NULL when skipped */
  char skip[160];        /* why this split's cases are skipped, or "" */
};

/* Run-wide state of the coll benchmark. */
struct coll_state {
  const struct gcb_coll_ops *ops;
  uint32_t splits; /* bit set over enum coll_split */
  struct coll_comm split[COLL_SPLIT_COUNT];
  int delay_rank; /* -1: none */
  double delay_s;
  double clock_offset; /* add to local CLOCK_MONOTONIC to get rank 0's */
  struct gcb_sweep_shape shape; /* what each record points at */
  struct gcb_iter_times iter;   /* -I 1: the case's per-iteration times, on
                                   rank 0 (every rank's row) */
};

/* One prepared case: what the harness's gcb_op carries. */
struct coll_op {
  struct gcb_coll_case *k;
  const struct coll_state *state;
  MPI_Comm comm; /* the case's communicator (world, node or cross):
                    its ranks synchronise and compare arrivals */
  double time_scale;
  long agg;          /* operations per iteration (-m) */
  uint64_t osu_size; /* the message size as OSU counts it (osu_coll.c) */
  int check;         /* validations per check (-c) */
  bool corrupt;
};

/* The sweep's size after `size` (-f multiplies, -i adds, as nccl-tests'
 * programs): what suite --dry-run lists. */
uint64_t gcb__coll_next_size(const struct coll_opts *o, uint64_t size);

/*
 * nccl-tests options (src/common.cu, 2.19.6) that coll takes at their
 * default value only: each names its index in coll_opts.nccl, long name,
 * letter, nccl-tests' default, what it does there and what to do here
 * instead. Any other value is refused with that line, never ignored.
 */
#define GCB_COLL_NCCL_LIST(X)                                                  \
  X(0, "nthreads", 't', "1", "threads per process (nccl-tests -t)",            \
    "gcbench drives one GPU per process: run one process per GPU, "            \
    "e.g. mpiexec -n 8 gcbench coll ... -t 1 -g 1")                            \
  X(1, "ngpus", 'g', "1", "GPUs per thread (nccl-tests -g)",                   \
    "gcbench drives one GPU per process: run one process per GPU, "            \
    "e.g. mpiexec -n 8 gcbench coll ... -t 1 -g 1")                            \
  X(2, "stream_null", 'y', "0", "use the NULL stream (nccl-tests -y)",         \
    "gcbench runs on its own stream; leave -y 0")                              \
  X(3, "cudagraph", 'G', "0", "CUDA graph launches (nccl-tests -G)",           \
    "gcbench times plain launches; leave -G 0")                                \
  X(4, "report_cputime", 'C', "0", "report CPU time (nccl-tests -C)",          \
    "gcbench reports wall time from the host clock; leave -C 0")               \
  X(5, "report_timestamps", 'S', "0", "timestamp column (nccl-tests -S)",      \
    "the results document records each case's time; leave -S 0")               \
  X(6, "local_register", 'R', "0", "buffer registration (nccl-tests -R)",      \
    "gcbench does not register buffers; leave -R 0")                           \
  X(7, "cta_policy", 'x', "-1", "NCCL CTA policy (nccl-tests -x)",             \
    "set NCCL_CTA_POLICY in the environment instead")                          \
  X(8, "device_implementation", 'D', "0",                                      \
    "device-side implementation (nccl-tests -D)",                              \
    "gcbench runs NCCL's host API only; leave -D 0")                           \
  X(9, "device_cta_count", 'V', "16", "CTAs of -D (nccl-tests -V)",            \
    "gcbench runs NCCL's host API only (no -D); leave -V 16")                  \
  X(10, "memory", 'M', "0", "memory usage report (nccl-tests -M)",             \
    "gcbench records no memory report; leave -M 0")                            \
  X(11, "unalign", 'u', "0", "misaligned buffers (nccl-tests -u)",             \
    "gcbench's buffers are aligned; leave -u 0")

enum gcb_status gcb__coll_nccl_validate(const struct coll_opts *o, int nranks,
                                        struct gcb_err *err);

/* The nccl-tests program a name is (argv[0]'s basename, e.g.
 * "all_reduce_perf"): the collective it runs, or NULL when it is none. */
const char *gcb__coll_nccl_program(const char *name);

/* OSU's rules (osu_coll.c): nothing to check beyond the option table's
 * bounds; the iterations and warm-up of a size as OSU counts it
 * (gcb__osu_size): --iters-large and --warmup-large above 8192 bytes where
 * given, else left as they are (--iters, --warmup). */
enum gcb_status gcb__coll_osu_validate(const struct coll_opts *o,
                                       struct gcb_err *err);
void gcb__coll_osu_iters(const struct coll_opts *o, uint64_t osu_size,
                         long *iters, long *warmup);

/* Estimates this rank's clock offset to rank 0 (0 on rank 0's node, where
 * CLOCK_MONOTONIC is shared). Collective. */
enum gcb_status gcb__coll_clock_offset(struct gcb_ctx *ctx, double *offset);

/* The coll benchmark's measure hook (see struct gcb_bench). */
enum gcb_status gcb__coll_measure(struct gcb_ctx *ctx, const void *opts,
                                  void *state, struct gcb_op *op,
                                  struct gcb_timing *t,
                                  struct gcb_rank_result *out,
                                  struct gcb_err *err);

#endif
