/*
 * The fake NCCL of fake_nccl.c: a log of the calls the NCCL transport
 * made, each with the communicator it used and that communicator's
 * `blocking` setting, and the library version ncclGetVersion reports.
 *
 * It behaves as NCCL's own source does where the transport's correctness
 * depends on it (src/init.cc, src/group.cc): with a non-blocking config,
 * ncclCommInitRankConfig returns ncclInProgress with the handle set and
 * ncclCommSplit returns ncclSuccess with the child left NULL and the
 * parent's state ncclInProgress (NCCL returns the split's set-up result,
 * not its group end's ncclInProgress); a thread
 * of the fake finishes the job later (after delay_ms, or for a split never
 * while `hold_split` is set), writes the child handle where the caller pointed,
 * and only then sets the communicator's state, which ncclCommGetAsyncError
 * reports as ncclInProgress until then. ncclCommAbort joins that thread
 * (which still writes the child handle, as NCCL's does after an abort).
 * A communicator used while its state is ncclInProgress, or a NULL one,
 * is refused with ncclInvalidArgument (NCCL's ncclCommEnsureReady,
 * CommCheck) and counted in `misuse`.
 */
#ifndef GCB_FAKE_NCCL_H
#define GCB_FAKE_NCCL_H

#include <mpi.h>
#include <nccl.h>
#include <stdbool.h>

#define FAKE_NCCL_LOG_MAX 256

struct fake_nccl_call {
  char name[40];
  ncclComm_t comm;
  int blocking;       /* of comm; -1 without one */
  int nvlink_centric; /* comm's config.nvlinkCentricSched; -1 without */
  bool in_group;      /* called between ncclGroupStart and ncclGroupEnd */
  int peer;           /* ncclSend, ncclRecv: the peer; else -1 */
  size_t count;       /* ncclSend, ncclRecv: the element count */
};

struct fake_nccl {
  struct fake_nccl_call log[FAKE_NCCL_LOG_MAX];
  int n;
  int version;     /* ncclGetVersion's answer */
  int comms;       /* communicators made */
  int live;        /* made and not yet destroyed or aborted */
  int misuse;      /* calls NCCL would refuse (in-progress or NULL comm) */
  int depth;       /* ncclGroupStart nesting */
  int child_polls; /* ncclCommGetAsyncError calls on a split's child */
  /* The asynchronous jobs (non-blocking init, split, finalize): */
  int delay_ms;              /* how long each takes (reset: 5 ms) */
  bool hold_split;           /* set: a split never finishes until aborted */
  ncclResult_t init_result;  /* what a non-blocking init ends in */
  ncclResult_t split_result; /* what a split ends in (parent and child) */
  /* The next ncclCommGetAsyncError on a settled timed (blocking)
   * communicator reports this once (an asynchronous error); success
   * when ncclSuccess. */
  ncclResult_t async_error;
  /* The p2p_fail_at-th ncclSend or ncclRecv (1: the first) returns
   * p2p_result instead of running (0: none fails). */
  int p2p_fail_at;
  ncclResult_t p2p_result;
  int p2p_calls; /* ncclSend and ncclRecv calls so far */
};

extern struct fake_nccl fake_nccl;

void fake_nccl_reset(int version);
/* Index of the k-th call named `name`, or -1. */
int fake_nccl_find(const char *name, int k);
/* Index of the k-th call named `name` on communicator `comm`, or -1. */
int fake_nccl_find_on(const char *name, ncclComm_t comm, int k);

#endif
