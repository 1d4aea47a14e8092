/*
 * Integration test of the collectives on the MPI transport, run under
 * mpiexec with 2 and 3 ranks (tests/CMakeLists.txt).
 *
 * For every operation, every MPI element type and reduction, in and out
 * of place and at two sizes (one rounded by the 16-byte block rule), a
 * checked run must find 0 wrong elements among more than 0 checked, and a
 * run with the corruption fault armed on rank 0 must find exactly 1 wrong
 * element over all ranks. Rooted operations run with the first and the
 * last rank as root. Combinations MPI lacks must be refused, not run.
 *
 * A plain MPI program with a small assertion macro: criterion forks, which
 * MPI does not survive. Every rank takes the same decisions, so a failed
 * assertion never leaves ranks waiting in different collectives. With 1
 * rank (mpi.coll.n1, or run by itself) point-to-point patterns are
 * refused, which is checked too. Where CUDA is compiled in and every rank
 * has a GPU, the same cases run on NCCL with every type and reduction.
 */
#include <stdio.h>
#include <string.h>

#include "collectives/comm.h"

static int rank, nranks, failures, cases;
/* The pass over the non-blocking forms (istart, test): set while it runs. */
static bool nonblocking;

#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      failures++;                                                              \
      fprintf(stderr, "rank %d: %s:%d: %s: ", rank, __FILE__, __LINE__,        \
              #cond);                                                          \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

static const enum gcb_coll_dtype mpi_dtypes[] = {
    GCB_COLL_INT8,  GCB_COLL_UINT8,  GCB_COLL_INT32, GCB_COLL_UINT32,
    GCB_COLL_INT64, GCB_COLL_UINT64, GCB_COLL_FLOAT, GCB_COLL_DOUBLE};

static const enum gcb_coll_redop mpi_redops[] = {GCB_REDOP_SUM, GCB_REDOP_PROD,
                                                 GCB_REDOP_MAX, GCB_REDOP_MIN};

/* Sizes in bytes: a small one and one that is not a multiple of 16 bytes
 * per rank, so allgather, reducescatter and alltoall round. With more
 * ranks than these machines have cores, MPICH's spinning ranks make every
 * case slow: 3 ranks run the second size only. */
static const size_t sizes[] = {192, 1000};

static uint64_t sum_over_ranks(uint64_t v) {
  uint64_t total = 0;
  MPI_Allreduce(&v, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

static const char *label(const struct gcb_coll_call *s) {
  static char buf[160];
  snprintf(buf, sizeof buf, "%s %s %s root %d count %zu%s", s->desc->name,
           gcb_coll_dtype_name(s->dtype), gcb_coll_redop_name(s->redop),
           s->root, s->count, s->inplace ? " in place" : "");
  return buf;
}

/* Whether the transport itself declines the shape, as the runner must
 * then too (NCCL: no in-place alltoall or sendrecv). */
static bool declined(const struct gcb_coll_ops *ops, struct gcb_comm *comm,
                     const struct gcb_coll_call *s) {
  char why[256];
  struct gcb_coll_counts c = {0};
  return !ops->supports(comm, s->desc, s->dtype, s->redop, why, sizeof why) ||
         (s->inplace && ops->inplace != NULL &&
          !ops->inplace(comm, s->desc, &c, why, sizeof why));
}

/* One case: a clean check, then a check with the fault armed on rank 0. */
static void run_case(const struct gcb_coll_ops *ops, struct gcb_comm *comm,
                     const struct gcb_coll_env *env,
                     const struct gcb_coll_call *shape) {
  struct gcb_coll_case *k = NULL;
  struct gcb_err err = {0};
  enum gcb_status st = gcb_coll_case_new(ops, comm, env, shape, &k, &err);
  bool pairwise_alone = shape->desc->pairwise && nranks < 2;
  if (pairwise_alone || declined(ops, comm, shape)) {
    EXPECT(st == GCB_EUNSUPPORTED, "%s: %s", label(shape), err.msg);
    return;
  }
  EXPECT(st == GCB_OK, "%s: %s", label(shape), err.msg);
  if (st != GCB_OK)
    return;
  bool nodata = gcb_coll_case_counts(k)->recv == 0;
  cases++;
  uint64_t wrong = 9, checked = 0;
  if (nonblocking) {
    /* Started, tested until done (the library progresses in test()),
     * then the checks below run through istart() too. */
    bool done = false;
    EXPECT(gcb_coll_case_use_istart(k), "%s", label(shape));
    EXPECT(gcb_coll_case_istart(k, &err) == GCB_OK, "%s: %s", label(shape),
           err.msg);
    for (long i = 0; i < 100000000 && !done; i++)
      EXPECT(gcb_coll_case_test(k, &done, &err) == GCB_OK, "%s: %s",
             label(shape), err.msg);
    EXPECT(done, "%s: never completed", label(shape));
    EXPECT(gcb_coll_case_wait(k, &err) == GCB_OK, "%s: %s", label(shape),
           err.msg);
  }
  EXPECT(gcb_coll_case_run(k, 3, &err) == GCB_OK, "%s: %s", label(shape),
         err.msg);
  st = gcb_coll_case_check(k, &wrong, &checked, &err);
  EXPECT(st == GCB_OK, "%s: %s", label(shape), err.msg);
  EXPECT(wrong == 0, "%s: %llu wrong", label(shape), (unsigned long long)wrong);
  EXPECT(nodata ? checked == 0 : checked > 0, "%s: %llu checked", label(shape),
         (unsigned long long)checked);
  if (!nodata) {
    if (rank == 0)
      gcb_coll_case_corrupt_next(k);
    st = gcb_coll_case_check(k, &wrong, &checked, &err);
    EXPECT(st == GCB_OK, "%s: %s", label(shape), err.msg);
    uint64_t total = sum_over_ranks(wrong);
    EXPECT(total == 1, "%s: corruption gave %llu wrong", label(shape),
           (unsigned long long)total);
    /* the fault is one-shot */
    st = gcb_coll_case_check(k, &wrong, &checked, &err);
    EXPECT(st == GCB_OK && wrong == 0, "%s: after the fault", label(shape));
  }
  gcb_coll_case_free(k);
}

/* The element types and reductions a transport is tested with. */
struct matrix {
  const enum gcb_coll_dtype *dtypes;
  size_t ndtypes;
  const enum gcb_coll_redop *redops;
  size_t nredops;
};

static void run_desc(const struct gcb_coll_ops *ops, struct gcb_comm *comm,
                     const struct gcb_coll_env *env,
                     const struct gcb_coll_desc *d, const struct matrix *m) {
  size_t nops = d->reduces ? m->nredops : 1;
  int nroots = d->rooted && nranks > 1 ? 2 : 1;
  for (size_t t = 0; t < m->ndtypes; t++)
    for (size_t o = 0; o < nops; o++)
      for (int r = 0; r < nroots; r++)
        for (size_t s = nranks > 2; s < sizeof sizes / sizeof *sizes; s++)
          for (int inplace = 0; inplace < 2; inplace++) {
            struct gcb_coll_call shape = {
                .desc = d,
                .dtype = m->dtypes[t],
                .redop = m->redops[o],
                .root = r == 0 ? 0 : nranks - 1,
                .count = sizes[s] / gcb_coll_dtype_size(m->dtypes[t]),
                .inplace = inplace};
            run_case(ops, comm, env, &shape);
          }
}

/* What MPI lacks is refused with a reason, before anything is allocated. */
static void refusals(const struct gcb_coll_ops *ops, struct gcb_comm *comm,
                     const struct gcb_coll_env *env) {
  struct gcb_coll_call shape = {.desc = gcb_coll_find("allreduce"),
                                .dtype = GCB_COLL_FLOAT,
                                .redop = GCB_REDOP_AVG,
                                .count = 64};
  struct gcb_coll_case *k = NULL;
  struct gcb_err err = {0};
  EXPECT(gcb_coll_case_new(ops, comm, env, &shape, &k, &err) ==
                 GCB_EUNSUPPORTED &&
             strstr(err.msg, "avg") != NULL,
         "avg: %s", err.msg);
  shape.redop = GCB_REDOP_SUM;
  shape.dtype = GCB_COLL_HALF;
  EXPECT(gcb_coll_case_new(ops, comm, env, &shape, &k, &err) ==
                 GCB_EUNSUPPORTED &&
             strstr(err.msg, "half") != NULL,
         "half: %s", err.msg);
  shape.desc = gcb_coll_find("allgather");
  shape.dtype = GCB_COLL_FLOAT;
  shape.count = 2; /* rounds to no block per rank */
  EXPECT(gcb_coll_case_new(ops, comm, env, &shape, &k, &err) ==
             GCB_EUNSUPPORTED,
         "tiny allgather: %s", err.msg);
  EXPECT(k == NULL, "no case on refusal");
  /* 2^60 bytes: refused before allocating, naming the bytes and the case */
  shape.desc = gcb_coll_find("allreduce");
  shape.count = (size_t)1 << 58;
  EXPECT(gcb_coll_case_new(ops, comm, env, &shape, &k, &err) == GCB_ENOMEM &&
             strstr(err.msg, "1152921504606846976-byte") != NULL &&
             strstr(err.msg, "allreduce float") != NULL,
         "huge: %s", err.msg);
  EXPECT(k == NULL, "no case on failure");
}

/* netmap's exchange: ranks paired (0-1, 2-3, ...; an odd last rank
 * rests), each sending its pattern three times while it receives three
 * messages into consecutive blocks, both ways at once; then a one-way
 * window; a peer out of range or itself is refused before any call. */
static void exchanges(const struct gcb_coll_ops *ops, struct gcb_comm *comm) {
  enum { LEN = 1000, W = 3 };
  static unsigned char send[LEN], recv[W * LEN];
  struct gcb_err err = {0};
  int peer = rank ^ 1;
  struct gcb_coll_xfer bad = {.peer = rank, .bytes = 1};
  EXPECT(ops->exchange(comm, &bad, &err) == GCB_EINTERNAL, "with itself");
  bad.peer = nranks;
  EXPECT(ops->exchange(comm, &bad, &err) == GCB_EINTERNAL, "out of range");
  if (peer >= nranks)
    return;
  memset(send, 'a' + rank, LEN);
  memset(recv, 0, sizeof recv);
  struct gcb_coll_xfer x = {.peer = peer,
                            .send = send,
                            .sends = W,
                            .recv = recv,
                            .recvs = W,
                            .bytes = LEN};
  EXPECT(ops->exchange(comm, &x, &err) == GCB_OK, "both ways: %s", err.msg);
  size_t wrong = 0;
  for (size_t i = 0; i < sizeof recv; i++)
    wrong += recv[i] != 'a' + peer;
  EXPECT(wrong == 0, "both ways: %zu bytes wrong", wrong);
  memset(recv, 0, sizeof recv);
  struct gcb_coll_xfer one = {.peer = peer, .bytes = LEN};
  if (rank < peer)
    one.send = send, one.sends = W;
  else
    one.recv = recv, one.recvs = W;
  EXPECT(ops->exchange(comm, &one, &err) == GCB_OK, "one way: %s", err.msg);
  wrong = 0;
  for (size_t i = 0; rank > peer && i < sizeof recv; i++)
    wrong += recv[i] != 'a' + peer;
  EXPECT(wrong == 0, "one way: %zu bytes wrong", wrong);
}

#if GCB_HAVE_CUDA
#include <cuda_runtime_api.h>

static const enum gcb_coll_dtype all_dtypes[] = {
#define GCB__CD_ID(id, name, bytes) GCB_COLL_##id,
    GCB_COLL_DTYPE_LIST(GCB__CD_ID)
#undef GCB__CD_ID
};

static const enum gcb_coll_redop all_redops[] = {
    GCB_REDOP_SUM, GCB_REDOP_PROD, GCB_REDOP_MAX, GCB_REDOP_MIN, GCB_REDOP_AVG};

/* Every operation, type and reduction on NCCL, where every rank has a GPU
 * of its own (one node: device = rank); skipped, saying so, elsewhere. */
static void nccl_cases(void) {
  const struct gcb_coll_ops *ops = gcb_coll_transport_find("nccl");
  int count = 0, least = 0, before = cases;
  char why[128] = "";
  if (cudaGetDeviceCount(&count) != cudaSuccess)
    count = 0;
  MPI_Allreduce(&count, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (ops == NULL || !ops->usable(why, sizeof why) || least < nranks) {
    if (rank == 0)
      printf("test_coll_mpi: nccl skipped: %d GPUs for %d ranks (%s)\n", least,
             nranks, why);
    return;
  }
  struct gcb_coll_env env = {
      .comm = MPI_COMM_WORLD, .rank = rank, .size = nranks, .device = rank};
  struct gcb_comm *comm = NULL;
  struct gcb_err err = {0};
  EXPECT(ops->open(&env, &comm, &err) == GCB_OK, "nccl open: %s", err.msg);
  if (comm == NULL)
    return;
  struct matrix m = {all_dtypes, sizeof all_dtypes / sizeof *all_dtypes,
                     all_redops, sizeof all_redops / sizeof *all_redops};
  for (int i = 0; gcb_coll_descs[i] != NULL; i++)
    run_desc(ops, comm, &env, gcb_coll_descs[i], &m);
  ops->close(comm);
  if (rank == 0)
    printf("test_coll_mpi: nccl: %d cases\n", cases - before);
}
#endif

int main(int argc, char **argv) {
  (void)argc, (void)argv; /* scripts may pass criterion's options */
  MPI_Init(NULL, NULL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const struct gcb_coll_ops *ops = gcb_coll_transport_find("mpi");
  struct gcb_coll_env env = {
      .comm = MPI_COMM_WORLD, .rank = rank, .size = nranks, .device = -1};
  struct gcb_comm *comm = NULL;
  struct gcb_err err = {0};
  char why[128];
  EXPECT(ops != NULL && ops->usable(why, sizeof why), "mpi usable");
  EXPECT(ops->open(&env, &comm, &err) == GCB_OK, "open: %s", err.msg);
  if (comm != NULL) {
    struct matrix m = {mpi_dtypes, sizeof mpi_dtypes / sizeof *mpi_dtypes,
                       mpi_redops, sizeof mpi_redops / sizeof *mpi_redops};
    for (int i = 0; gcb_coll_descs[i] != NULL; i++)
      run_desc(ops, comm, &env, gcb_coll_descs[i], &m);
    refusals(ops, comm, &env);
    exchanges(ops, comm);
    /* The non-blocking forms the pattern benchmark starts. */
    static const char *const nb_ops[] = {
        "allreduce", "allgather", "reducescatter", "broadcast", "alltoall"};
    /* A smaller matrix: the blocking pass covered every type; this one
     * covers the non-blocking calls (3 ranks on 2 cores spin slowly). */
    static const enum gcb_coll_dtype nb_types[] = {GCB_COLL_INT32,
                                                   GCB_COLL_DOUBLE};
    static const enum gcb_coll_redop nb_redops[] = {GCB_REDOP_SUM,
                                                    GCB_REDOP_MAX};
    struct matrix nb = {nb_types, 2, nb_redops, 2};
    nonblocking = true;
    for (size_t i = 0; i < sizeof nb_ops / sizeof *nb_ops; i++)
      run_desc(ops, comm, &env, gcb_coll_find(nb_ops[i]), &nb);
    nonblocking = false;
    char version[128] = "";
    ops->version(version, sizeof version);
    EXPECT(version[0] != '\0', "version");
    if (rank == 0)
      printf("test_coll_mpi: %d ranks, %s\n", nranks, version);
  }
  ops->close(comm);
#if GCB_HAVE_CUDA
  nccl_cases();
#endif
  uint64_t total = sum_over_ranks((uint64_t)failures);
  if (rank == 0)
    printf("test_coll_mpi: %d cases, %s (%llu failures)\n", cases,
           total ? "FAILED" : "passed", (unsigned long long)total);
  MPI_Finalize();
  return total != 0;
}
