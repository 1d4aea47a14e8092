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

struct gcb_pat_res {
  struct gcb_pat_prog prog;
  const struct gcb_coll_ops *ops;
  struct gcb_pat_chan slots[GCB_PAT_SLOTS];
  struct gcb_op *gemms;         /* prog.ngemms */
  struct gcb_coll_case **colls; /* prog.ncolls */
  double comm_bytes;            /* S of every collective of a step */
};

/* What runs: the step as the pattern lays it out, or one half alone. */
enum gcb_pat_mode { GCB_PAT_RUN_COMPUTE, GCB_PAT_RUN_COMM, GCB_PAT_RUN_BOTH };

/* One step's times (seconds): its wall time, the time in GEMMs (the
 * delay included), and the time with at least one collective in flight,
 * from its start to the poll or wait that saw it complete. */
struct gcb_pat_times {
  double step, compute, comm;
};

/*
 * Prepares the GEMMs and collectives of r->prog (the slots are open):
 * GCB_EUNSUPPORTED when the backend or transport lacks one, with why.
 * Collective over every slot's communicator.
 */
enum gcb_status gcb__pat_prepare(struct gcb_ctx *ctx, struct gcb_pat_res *r,
                                 enum gcb_dtype gemm_type,
                                 enum gcb_coll_dtype coll_type,
                                 struct gcb_err *err);

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
