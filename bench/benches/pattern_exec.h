/*
 * Internal to the pattern benchmark: the resources of one pattern on one
 * rank (its program, one prepared GEMM per shape, one prepared collective
 * per buffer set, the transports of its slots) and the executor that runs
 * the program once (pattern_exec.c).
 */
#ifndef GCB_PATTERN_EXEC_H
#define GCB_PATTERN_EXEC_H

#include <mpi.h>

#include "bench/benches/pattern.h"
#include "bench/run/context.h"
#include "collectives/comm.h"
#include "kernels/backend.h"

/* One slot's transport over its communicator (owned). */
struct gcb_pat_chan {
  MPI_Comm mpi; /* MPI_COMM_NULL: the slot is unused here */
  struct gcb_coll_env env;
  struct gcb_comm *comm;
};

/* One GEMM shape of the program as the executor runs it: `whole` tiles
 * of `rows` rows of its m (op[0]) and one of the remaining rows (op[1],
 * when m is not a multiple), each at most the poll budget's flops, so
 * that the transports are tested between tiles; a batched GEMM (reps)
 * runs `chunk` repetitions between two tests. */
struct gcb_pat_tiles {
  struct gcb_op op[2];
  uint64_t rows, whole;
  int chunk;
};

struct gcb_pat_res {
  struct gcb_pat_prog prog;
  const struct gcb_coll_ops *ops;
  struct gcb_pat_chan slots[GCB_PAT_SLOTS];
  struct gcb_pat_tiles *gemms;  /* prog.ngemms */
  struct gcb_coll_case **colls; /* prog.ncolls */
  double comm_bytes;            /* S of every collective of a step */
};

/* What runs: the step as the pattern lays it out, or one half alone. */
enum gcb_pat_mode { GCB_PAT_RUN_COMPUTE, GCB_PAT_RUN_COMM, GCB_PAT_RUN_BOTH };

/* One step's times (seconds): its wall time, the time in GEMMs (the
 * delay included), and the time with at least one collective in flight,
 * from its start to when it was last seen in flight (the start of the
 * last test that found it unfinished), or to the end of the wait that
 * finished it: a lower bound, which no polling frequency can lengthen. */
struct gcb_pat_times {
  double step, compute, comm;
};

/* The flops of one tile between two tests of the transports: about
 * 0.3 ms on either backend (a host core's 20-50 GFLOP/s, a GPU's
 * 200-800 TFLOP/s), short beside the collectives it times. */
#define GCB_PAT_POLL_FLOPS_HOST (8.0 * (1 << 20))
#define GCB_PAT_POLL_FLOPS_GPU (64.0 * (1 << 30))

/* Rows of a tile of an m x n x k GEMM within `budget` flops (at least 16,
 * at most m), and the repetitions of a batched one per test (>= 1). */
uint64_t gcb__pat_tile_rows(uint64_t m, uint64_t n, uint64_t k, double budget);
int gcb__pat_tile_chunk(uint64_t m, uint64_t n, uint64_t k, int reps,
                        double budget);

/*
 * Prepares the GEMMs (tiled within `poll_flops`) and collectives of
 * r->prog (the slots are open): GCB_EUNSUPPORTED when the backend or
 * transport lacks one, with why. Collective over every slot's
 * communicator.
 */
enum gcb_status gcb__pat_prepare(struct gcb_ctx *ctx, struct gcb_pat_res *r,
                                 enum gcb_dtype gemm_type,
                                 enum gcb_coll_dtype coll_type,
                                 double poll_flops, struct gcb_err *err);

/* Runs one step in `mode`; delay_s > 0 sleeps before the step's first
 * GEMM (counted as compute). Collective over the slots. */
enum gcb_status gcb__pat_step(struct gcb_pat_res *r, enum gcb_pat_mode mode,
                              double delay_s, struct gcb_pat_times *t,
                              struct gcb_err *err);

/* Validates every collective (exact expected values) and GEMM (sampled
 * reference) once, summed into out. Collective. */
enum gcb_status gcb__pat_check(struct gcb_pat_res *r, struct gcb_check *out,
                               struct gcb_err *err);

/* Frees everything r holds (transports, communicators included) and
 * zeroes it; safe on a zeroed r. */
void gcb__pat_res_free(struct gcb_pat_res *r);

#endif
