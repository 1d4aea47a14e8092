/*
 * Internal to the coll benchmark: its options and the timing of one case
 * (aggregated loop as nccl-tests, blocking loop as OSU, and a per-iteration
 * pass that yields p50/p99 and each rank's arrival lateness).
 */
#ifndef GCB_COLL_H
#define GCB_COLL_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/bench.h"
#include "collectives/comm.h"

struct coll_opts {
  uint32_t ops; /* bit set over coll_op_names */
  uint64_t minbytes, maxbytes, stepbytes;
  double stepfactor;
  uint32_t dtypes; /* bit set over enum gcb_coll_dtype */
  uint32_t redops; /* bit set over enum gcb_coll_redop */
  long root;
  long check; /* -c: 1 validates, 0 does not */
  bool blocking;
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
};

/* One prepared case: what the harness's gcb_op carries. */
struct coll_op {
  struct gcb_coll_case *k;
  const struct coll_state *state;
  MPI_Comm comm; /* the case's communicator (world, node or cross):
                    its ranks synchronise and compare arrivals */
  double time_scale;
  bool check;
  bool corrupt;
};

double gcb__coll_now(void);

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
