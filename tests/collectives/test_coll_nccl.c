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
 * - the pure plan (gcb_coll_nccl_plan) for every version.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "collectives/comm.h"
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
