/*
 * The NCCL transport's communicators and version-dependent calls, against
 * a fake NCCL and CUDA runtime (fake_nccl.c, tests/kernels/fake_cuda.c):
 * - collectives are timed on a blocking communicator (nccl-tests'
 *   src/common.cu makes its communicators with the default, blocking,
 *   config): with a library that can split (2.18+), the first
 *   communicator is non-blocking (its set-up polled within the deadline)
 *   and the timed one a blocking child split from it; with an older one,
 *   blocking from the start;
 * - ncclAlltoAll is called only where the loaded library has it (2.28+),
 *   else grouped sends and receives, as nccl-tests' src/alltoall.cu;
 *   ncclGather and ncclScatter likewise, else the root's grouped receives
 *   from (sends to) every rank and every rank's one send to (receive
 *   from) the root, as src/gather.cu and src/scatter.cu;
 * - the pure plan (gcb_coll_nccl_plan) for every version;
 * - a split that NCCL finishes later, on its own thread (the fake models
 *   NCCL's ncclInProgress and the child handle written afterwards): the
 *   open polls the parent and the child until they settle; past the
 *   deadline the parent is aborted first (which joins NCCL's thread) and
 *   the child that then appears is aborted too; asynchronous errors of
 *   the set-up and of an operation fail the call that meets them, and no
 *   communicator is left behind.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "collectives/comm.h"
#include "kernels/backend.h"
#include "tests/collectives/fake_nccl.h"
#include "tests/kernels/fake_cuda.h"

extern const struct gcb_coll_ops gcb_coll_nccl;

static struct gcb_comm *open_as(int version, int rank, int size) {
  fake_cuda_reset();
  fake_nccl_reset(version);
  struct gcb_coll_env env = {
      .comm = MPI_COMM_WORLD, .rank = rank, .size = size, .device = 0};
  struct gcb_err err = {0};
  struct gcb_comm *c = NULL;
  cr_assert_eq(gcb_coll_nccl.open(&env, &c, &err), GCB_OK, "%s", err.msg);
  return c;
}

/* Opens rank 0 of 1 on a fake NCCL already set up (fake_nccl_reset and
 * its knobs), giving up `timeout_s` from now (0: never); the status. */
static enum gcb_status try_open(double timeout_s, struct gcb_comm **c,
                                struct gcb_err *err) {
  static volatile double deadline;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  deadline = timeout_s > 0
                 ? (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + timeout_s
                 : 0;
  struct gcb_coll_env env = {.comm = MPI_COMM_WORLD,
                             .rank = 0,
                             .size = 1,
                             .device = 0,
                             .deadline = &deadline};
  return gcb_coll_nccl.open(&env, c, err);
}

static struct gcb_comm *open_at(int version, int size) {
  return open_as(version, 0, size);
}

/* Calls named `name` in the log. */
static int calls(const char *name) {
  int n = 0;
  while (fake_nccl_find(name, n) >= 0)
    n++;
  return n;
}

/* The communicator the last call named `name` ran on, and its blocking. */
static int blocking_of_last(const char *name) {
  int at = -1;
  for (int k = 0; fake_nccl_find(name, k) >= 0; k++)
    at = fake_nccl_find(name, k);
  cr_assert_geq(at, 0, "no %s", name);
  return fake_nccl.log[at].blocking;
}

static void run(struct gcb_comm *c, const char *op, int size) {
  static char buf[1 << 12];
  struct gcb_coll_call k = {.desc = gcb_coll_find(op),
                            .dtype = GCB_COLL_FLOAT,
                            .redop = GCB_REDOP_SUM,
                            .count = 64,
                            .send = buf,
                            .recv = buf + sizeof buf / 2,
                            .param = 64 / (size_t)size};
  struct gcb_err err = {0};
  cr_assert_not_null(k.desc);
  cr_assert_eq(gcb_coll_nccl.start(c, &k, &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(gcb_coll_nccl.wait(c, &err), GCB_OK, "%s", err.msg);
}

Test(coll_nccl, timed_on_a_blocking_communicator_split_from_a_nonblocking_one) {
  struct gcb_comm *c = open_at(22809, 1);
  int init = fake_nccl_find("ncclCommInitRankConfig", 0);
  int split = fake_nccl_find("ncclCommSplit", 0);
  cr_assert_geq(init, 0);
  cr_expect_eq(fake_nccl.log[init].blocking, 0, "set-up is abortable");
  cr_assert_gt(split, init, "then split for the timed path");
  run(c, "allreduce", 1);
  cr_expect_eq(blocking_of_last("ncclAllReduce"), 1,
               "the collective runs on the blocking communicator");
  gcb_coll_nccl.close(c);
  cr_expect_eq(fake_nccl_find("ncclCommDestroy", 1) >= 0, true,
               "both communicators destroyed");
}

Test(coll_nccl, blocking_from_the_start_without_split) {
  struct gcb_comm *c = open_at(21703, 1); /* 2.17.3: no ncclCommSplit */
  cr_expect_eq(fake_nccl_find("ncclCommSplit", 0), -1);
  cr_expect_eq(
      fake_nccl.log[fake_nccl_find("ncclCommInitRankConfig", 0)].blocking, 1);
  run(c, "allreduce", 1);
  cr_expect_eq(blocking_of_last("ncclAllReduce"), 1);
  gcb_coll_nccl.close(c);
}

Test(coll_nccl, alltoall_only_where_the_library_has_it) {
  struct gcb_comm *c = open_at(22703, 2); /* 2.27.3 */
  run(c, "alltoall", 2);
  cr_expect_eq(fake_nccl_find("ncclAlltoAll", 0), -1);
  cr_expect_geq(fake_nccl_find("ncclSend", 1), 0, "grouped sends instead");
  gcb_coll_nccl.close(c);
  c = open_at(22809, 2); /* 2.28.9 */
  run(c, "alltoall", 2);
  cr_expect_geq(fake_nccl_find("ncclAlltoAll", 0), 0);
  cr_expect_eq(fake_nccl_find("ncclSend", 0), -1);
  gcb_coll_nccl.close(c);
}

Test(coll_nccl, plan_for_every_version) {
  static const struct {
    int header, library;
    bool split, nonblocking_init;
  } cases[] = {
      {22809, 22809, true, true},   {22809, 21800, true, true},
      {22809, 21703, true, false},  {21703, 22809, true, false},
      {22809, 22809, false, false}, {21200, 21200, false, false},
      {2804, 2804, false, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    struct gcb_coll_nccl_plan p =
        gcb_coll_nccl_plan(cases[i].header, cases[i].library, cases[i].split);
    cr_expect(p.timed_blocking, "always timed on a blocking communicator");
    cr_expect_eq(p.init_nonblocking, cases[i].nonblocking_init, "case %zu", i);
    cr_expect_eq(p.split_blocking, p.init_nonblocking, "case %zu", i);
    cr_expect_eq(p.nvlink_centric, cases[i].header >= 22800, "case %zu", i);
  }
}

/* Rank `rank` of 3 runs `op` (root 0) on NCCL `version`. */
static void run_as(int version, int rank, const char *op) {
  struct gcb_comm *c = open_as(version, rank, 3);
  run(c, op, 3);
  gcb_coll_nccl.close(c);
}

Test(coll_nccl, gather_and_scatter_grouped_before_2_28_as_nccl_tests) {
  run_as(22703, 0, "gather"); /* the root: its send, a receive per rank */
  cr_expect_eq(calls("ncclGather"), 0);
  cr_expect_eq(calls("ncclSend"), 1);
  cr_expect_eq(calls("ncclRecv"), 3);
  cr_expect_lt(fake_nccl_find("ncclGroupStart", 0),
               fake_nccl_find("ncclSend", 0));
  cr_expect_gt(fake_nccl_find("ncclGroupEnd", 0),
               fake_nccl_find("ncclRecv", 2));
  run_as(22703, 2, "gather"); /* another rank: one send to the root */
  cr_expect_eq(calls("ncclSend"), 1);
  cr_expect_eq(calls("ncclRecv"), 0);
  run_as(22703, 0, "scatter"); /* the root: a send per rank, its receive */
  cr_expect_eq(calls("ncclScatter"), 0);
  cr_expect_eq(calls("ncclSend"), 3);
  cr_expect_eq(calls("ncclRecv"), 1);
  run_as(22703, 1, "scatter");
  cr_expect_eq(calls("ncclSend"), 0);
  cr_expect_eq(calls("ncclRecv"), 1);
}

Test(coll_nccl, gather_and_scatter_are_ncclgather_ncclscatter_from_2_28) {
  run_as(22809, 0, "gather");
  cr_expect_eq(calls("ncclGather"), 1);
  cr_expect_eq(calls("ncclSend") + calls("ncclRecv"), 0);
  cr_expect_eq(blocking_of_last("ncclGather"), 1, "on the timed communicator");
  run_as(22809, 1, "scatter");
  cr_expect_eq(calls("ncclScatter"), 1);
  cr_expect_eq(calls("ncclSend") + calls("ncclRecv"), 0);
}

/* The communicator ncclCommInitRankConfig made (the parent of a split). */
static ncclComm_t parent(void) {
  int at = fake_nccl_find("ncclCommInitRankConfig", 0);
  cr_assert_geq(at, 0);
  return fake_nccl.log[at].comm;
}

Test(coll_nccl, a_split_nccl_finishes_later_opens_and_times_on_the_child) {
  fake_cuda_reset();
  fake_nccl_reset(22809);
  fake_nccl.delay_ms = 20; /* NCCL's thread writes the child after 20 ms */
  struct gcb_comm *c = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(try_open(60, &c, &err), GCB_OK, "%s", err.msg);
  cr_expect_geq(fake_nccl.child_polls, 1, "the child polled as well");
  run(c, "allreduce", 1);
  int at = fake_nccl_find("ncclAllReduce", 0);
  cr_expect_neq(fake_nccl.log[at].comm, parent(), "timed on the child");
  cr_expect_not_null(fake_nccl.log[at].comm);
  cr_expect_eq(fake_nccl.log[at].blocking, 1);
  gcb_coll_nccl.close(c);
  cr_expect_eq(fake_nccl.misuse, 0, "no call on an unsettled communicator");
  cr_expect_eq(fake_nccl.live, 0, "both communicators freed");
  cr_expect_eq(fake_nccl_find("ncclCommAbort", 0), -1, "none aborted");
}

Test(coll_nccl, a_split_past_the_deadline_aborts_the_parent_then_the_child) {
  fake_cuda_reset();
  fake_nccl_reset(22809);
  fake_nccl.hold_split = true; /* the split never finishes on its own */
  struct gcb_comm *c = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(try_open(1.0, &c, &err), GCB_ETIMEOUT, "%s", err.msg);
  cr_expect_null(c);
  cr_expect_not_null(strstr(err.msg, "ncclCommSplit"), "%s", err.msg);
  /* NCCL's ncclCommAbort joins the thread that writes the child; the
   * child it wrote is then aborted as well. */
  int first = fake_nccl_find("ncclCommAbort", 0);
  int second = fake_nccl_find("ncclCommAbort", 1);
  cr_assert_geq(first, 0);
  cr_expect_eq(fake_nccl.log[first].comm, parent(), "the parent first");
  cr_assert_geq(second, 0, "the child that appeared is aborted too");
  cr_expect_neq(fake_nccl.log[second].comm, parent());
  cr_expect_eq(fake_nccl.live, 0, "no communicator left behind");
  cr_expect_eq(fake_nccl.misuse, 0);
}

Test(coll_nccl, an_asynchronous_error_of_the_set_up_fails_the_open) {
  static const struct {
    bool split;
    const char *call;
  } cases[] = {{false, "ncclCommInitRankConfig"}, {true, "ncclCommSplit"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    fake_cuda_reset();
    fake_nccl_reset(22809);
    if (cases[i].split)
      fake_nccl.split_result = ncclRemoteError;
    else
      fake_nccl.init_result = ncclSystemError;
    struct gcb_comm *c = NULL;
    struct gcb_err err = {0};
    cr_expect_eq(try_open(60, &c, &err), GCB_ENCCL, "%s", err.msg);
    cr_expect_not_null(strstr(err.msg, cases[i].call), "%s", err.msg);
    cr_expect_eq(fake_nccl.live, 0, "%s: nothing left behind", cases[i].call);
    cr_expect_eq(fake_nccl.misuse, 0, "%s", cases[i].call);
  }
}

Test(coll_nccl, an_asynchronous_error_while_waiting_ends_the_wait) {
  struct gcb_comm *c = open_at(22809, 1);
  static char buf[256];
  struct gcb_coll_call k = {.desc = gcb_coll_find("allreduce"),
                            .dtype = GCB_COLL_FLOAT,
                            .redop = GCB_REDOP_SUM,
                            .count = 16,
                            .send = buf,
                            .recv = buf + 128,
                            .param = 16};
  struct gcb_err err = {0};
  snprintf(fake_cuda.fail_name, sizeof fake_cuda.fail_name, "cudaStreamQuery");
  fake_cuda.fail_nth = 1;
  fake_cuda.fail_rc = cudaErrorNotReady;   /* still running ... */
  fake_nccl.async_error = ncclRemoteError; /* ... when a peer fails */
  cr_assert_eq(gcb_coll_nccl.start(c, &k, &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(gcb_coll_nccl.wait(c, &err), GCB_ENCCL, "%s", err.msg);
  cr_expect_not_null(strstr(err.msg, "asynchronous"), "%s", err.msg);
  gcb_coll_nccl.close(c);
  cr_expect_eq(fake_nccl_find("ncclCommAbort", 1) >= 0, true,
               "both aborted after the failure");
  cr_expect_eq(fake_nccl.live, 0);
}

Test(coll_nccl, nvlink_centric_scheduling_as_nccl_tests_from_2_28) {
  static const int versions[] = {22809, 21703};
  for (size_t i = 0; i < 2; i++) {
    struct gcb_comm *c = open_at(versions[i], 1);
    run(c, "allreduce", 1);
    cr_expect_eq(fake_nccl.log[fake_nccl_find("ncclCommInitRankConfig", 0)]
                     .nvlink_centric,
                 1, "library %d", versions[i]);
    cr_expect_eq(blocking_of_last("ncclAllReduce"), 1);
    int at = fake_nccl_find("ncclAllReduce", 0);
    cr_expect_eq(fake_nccl.log[at].nvlink_centric, 1,
                 "the timed communicator too (library %d)", versions[i]);
    gcb_coll_nccl.close(c);
  }
}

/* nccl-tests' -m (common.cu: ncclGroupStart, agg_iters startColl,
 * ncclGroupEnd per timed iteration): each iteration's operations in one
 * group; with -m 1 no group at all. */
Test(coll_nccl, aggregated_iterations_are_one_nccl_group_each) {
  struct gcb_comm *c = open_at(22809, 1);
  struct gcb_coll_env env = {
      .comm = MPI_COMM_WORLD, .rank = 0, .size = 1, .device = 0};
  struct gcb_coll_call shape = {.desc = gcb_coll_find("allreduce"),
                                .dtype = GCB_COLL_FLOAT,
                                .redop = GCB_REDOP_SUM,
                                .count = 256};
  struct gcb_coll_case *k = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_coll_case_new(&gcb_coll_nccl, c, &env, &shape, &k, &err),
               GCB_OK, "%s", err.msg);
  int before = fake_nccl.n;
  cr_assert_eq(gcb_coll_case_run_agg(k, 2, 3, &err), GCB_OK, "%s", err.msg);
  static const char *const want[] = {
      "ncclGroupStart", "ncclAllReduce",  "ncclAllReduce", "ncclAllReduce",
      "ncclGroupEnd",   "ncclGroupStart", "ncclAllReduce", "ncclAllReduce",
      "ncclAllReduce",  "ncclGroupEnd"};
  int n = (int)(sizeof want / sizeof *want);
  cr_assert_eq(fake_nccl.n - before, n, "%d calls", fake_nccl.n - before);
  for (int i = 0; i < n; i++)
    cr_expect_str_eq(fake_nccl.log[before + i].name, want[i], "call %d", i);
  cr_expect(fake_nccl.log[before + 2].in_group);
  before = fake_nccl.n;
  cr_assert_eq(gcb_coll_case_run_agg(k, 2, 1, &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(fake_nccl.n - before, 2, "-m 1: two operations, no group");
  cr_expect_eq(calls("ncclGroupStart"), 2);
  cr_expect_eq(fake_nccl.depth, 0, "every group closed");
  gcb_coll_case_free(k);
  gcb_coll_nccl.close(c);
  cr_expect_eq(fake_nccl.misuse, 0);
}

/* netmap's exchange (collectives/comm.h): nccl-tests' sendrecv for one
 * pair, the sends and receives in one group, then the stream polled to
 * completion, once per pair; each pair has its peer and byte count. */
Test(coll_nccl, exchange_is_one_group_then_the_stream_per_pair) {
  struct gcb_comm *c = open_as(22809, 0, 3);
  struct gcb_err err = {0};
  void *send = NULL, *recv = NULL;
  cr_assert_eq(gcb_coll_nccl.alloc(c, 4096, &send, &err), GCB_OK);
  cr_assert_eq(gcb_coll_nccl.alloc(c, 4096, &recv, &err), GCB_OK);
  for (int peer = 1; peer <= 2; peer++) {
    int before = fake_nccl.n;
    fake_cuda_clear_log();
    struct gcb_coll_xfer x = {.peer = peer,
                              .send = send,
                              .sends = 1,
                              .recv = recv,
                              .recvs = 1,
                              .bytes = 4096};
    cr_assert_eq(gcb_coll_nccl.exchange(c, &x, &err), GCB_OK, "%s", err.msg);
    static const char *const want[] = {"ncclGroupStart", "ncclSend", "ncclRecv",
                                       "ncclGroupEnd"};
    cr_assert_eq(fake_nccl.n - before, 4, "%d calls", fake_nccl.n - before);
    for (int i = 0; i < 4; i++)
      cr_expect_str_eq(fake_nccl.log[before + i].name, want[i], "call %d", i);
    for (int i = 1; i <= 2; i++) {
      cr_expect(fake_nccl.log[before + i].in_group, "call %d grouped", i);
      cr_expect_eq(fake_nccl.log[before + i].peer, peer);
      cr_expect_eq(fake_nccl.log[before + i].count, 4096, "uint8 elements");
      cr_expect_eq(fake_nccl.log[before + i].blocking, 1,
                   "on the timed (blocking) communicator");
    }
    cr_expect_geq(fake_find("cudaStreamQuery", 0, 0), 0,
                  "the stream waited on after the group");
  }
  /* A window one way: its sends in one group, no receive. */
  int before = fake_nccl.n;
  struct gcb_coll_xfer w = {
      .peer = 1, .send = send, .sends = 4, .recvs = 0, .bytes = 512};
  cr_assert_eq(gcb_coll_nccl.exchange(c, &w, &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(fake_nccl.n - before, 6, "group, 4 sends, end");
  cr_expect_eq(fake_count("ncclRecv", 0, FAKE_LOG_MAX), 0);
  cr_expect_eq(fake_nccl.depth, 0);
  gcb_coll_nccl.free(c, send);
  gcb_coll_nccl.free(c, recv);
  gcb_coll_nccl.close(c);
  cr_expect_eq(fake_nccl.misuse, 0);
}

/* A failing ncclRecv fails the exchange, naming the call; the group is
 * still ended (NCCL's group state left clean) and the stream is not
 * waited on; an exchange with itself calls nothing. */
Test(coll_nccl, exchange_errors_are_reported_and_the_group_closed) {
  struct gcb_comm *c = open_as(22809, 0, 2);
  struct gcb_err err = {0};
  static char buf[64];
  fake_nccl.p2p_fail_at = 2, fake_nccl.p2p_result = ncclRemoteError;
  fake_cuda_clear_log();
  struct gcb_coll_xfer x = {.peer = 1,
                            .send = buf,
                            .sends = 1,
                            .recv = buf + 32,
                            .recvs = 1,
                            .bytes = 32};
  cr_expect_eq(gcb_coll_nccl.exchange(c, &x, &err), GCB_ENCCL);
  cr_expect(strstr(err.msg, "ncclRecv") != NULL, "%s", err.msg);
  cr_expect_eq(fake_nccl.depth, 0, "the group ended after the failure");
  cr_expect_geq(fake_nccl_find("ncclGroupEnd", 0), 0);
  cr_expect_eq(fake_find("cudaStreamQuery", 0, 0), -1,
               "no wait on a failed group");
  gcb_coll_nccl.close(c);
  c = open_as(22809, 0, 2);
  int before = fake_nccl.n;
  x.peer = 0;
  cr_expect_eq(gcb_coll_nccl.exchange(c, &x, &err), GCB_EINTERNAL);
  x.peer = 2;
  cr_expect_eq(gcb_coll_nccl.exchange(c, &x, &err), GCB_EINTERNAL);
  cr_expect_eq(fake_nccl.n, before, "no NCCL call for a bad peer");
  gcb_coll_nccl.close(c);
}

/* netmap's --transport auto takes the backend's: NCCL, with its
 * exchange, on the cuda backend; MPI on the host's. */
extern const struct gcb_backend_ops gcb_backend_cuda, gcb_backend_host;
Test(coll_nccl, cuda_backend_maps_the_network_over_nccl) {
  cr_assert_str_eq(gcb_backend_cuda.transport, "nccl");
  /* the table's row, which passes each call on to the module's */
  const struct gcb_coll_ops *n =
      gcb_coll_transport_find(gcb_backend_cuda.transport);
  cr_assert_not_null(n);
  cr_expect_str_eq(n->name, "nccl");
  cr_expect_not_null(n->exchange);
  cr_expect_not_null(gcb_coll_nccl.exchange);
  const struct gcb_coll_ops *h =
      gcb_coll_transport_find(gcb_backend_host.transport);
  cr_assert_not_null(h);
  cr_expect_str_eq(h->name, "mpi");
  cr_expect_not_null(h->exchange);
}
