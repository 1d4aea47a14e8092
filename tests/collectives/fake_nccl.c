/*
 * A fake NCCL (and the one MPI call the NCCL transport makes) for
 * call-sequence tests of collectives/nccl.c without a GPU: each
 * communicator remembers the config it was made with, and every call is
 * logged with the communicator it used. The test executable defines these
 * symbols, so nccl.c's calls bind to them; with tests/kernels/fake_cuda.c
 * for the CUDA runtime.
 *
 * Non-blocking set-up behaves as NCCL's (fake_nccl.h): the job runs on a
 * thread of its own, which writes a split's child handle and then the
 * communicator's state with release stores, as NCCL's ncclCommInitRankFunc
 * (COMPILER_ATOMIC_STORE of *newcomm) and ncclCommSetAsyncError do; only
 * the caller's thread writes the log.
 */
#include "tests/collectives/fake_nccl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct fake_nccl fake_nccl;

struct ncclComm {
  int blocking;
  int serial;
  int nvlink_centric;
  bool split_child;  /* made by ncclCommSplit */
  _Atomic int state; /* ncclResult_t: what ncclCommGetAsyncError reports */
  atomic_bool abort;
  /* The asynchronous job on this communicator, if one was started. */
  bool has_job;
  pthread_t job;
  int delay_ms;
  bool hold;
  ncclResult_t result; /* what the job ends in */
  ncclComm_t child;    /* a split's child, and where to write it */
  ncclComm_t *slot;
};

void fake_nccl_reset(int version) {
  memset(&fake_nccl, 0, sizeof fake_nccl);
  fake_nccl.version = version;
  fake_nccl.delay_ms = 5;
}

int fake_nccl_find_on(const char *name, ncclComm_t comm, int k) {
  for (int i = 0; i < fake_nccl.n; i++)
    if (strcmp(fake_nccl.log[i].name, name) == 0 &&
        (comm == NULL || fake_nccl.log[i].comm == comm) && k-- == 0)
      return i;
  return -1;
}

int fake_nccl_find(const char *name, int k) {
  return fake_nccl_find_on(name, NULL, k);
}

static void logged(const char *name, ncclComm_t comm) {
  if (fake_nccl.n < FAKE_NCCL_LOG_MAX) {
    struct fake_nccl_call *c = &fake_nccl.log[fake_nccl.n++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->comm = comm;
    c->blocking = comm ? comm->blocking : -1;
    c->nvlink_centric = comm ? comm->nvlink_centric : -1;
    c->in_group = fake_nccl.depth > 0;
    c->peer = -1;
    c->count = 0;
  }
}

static ncclResult_t state_of(ncclComm_t c) {
  return (ncclResult_t)atomic_load_explicit(&c->state, memory_order_acquire);
}

/* NCCL's CommCheck and ncclCommEnsureReady: a NULL communicator, or one
 * whose last call has not settled, is refused. */
static ncclResult_t ready(ncclComm_t comm) {
  if (comm != NULL && state_of(comm) != ncclInProgress)
    return ncclSuccess;
  fake_nccl.misuse++;
  return ncclInvalidArgument;
}

static ncclResult_t call_on(const char *name, ncclComm_t comm) {
  logged(name, comm);
  return ready(comm);
}

static ncclComm_t make(const ncclConfig_t *config) {
  ncclComm_t c = calloc(1, sizeof *c);
  if (c == NULL)
    abort();
  c->blocking = config && config->blocking != NCCL_CONFIG_UNDEF_INT
                    ? config->blocking
                    : 1; /* NCCL's default: blocking */
  c->nvlink_centric = config ? config->nvlinkCentricSched : -1;
  c->serial = ++fake_nccl.comms;
  fake_nccl.live++;
  return c;
}

static void *job_main(void *arg) {
  ncclComm_t c = arg;
  struct timespec ms = {0, 1000000};
  for (int waited = 0; (c->hold || waited < c->delay_ms) &&
                       !atomic_load_explicit(&c->abort, memory_order_acquire);
       waited++)
    nanosleep(&ms, NULL);
  ncclResult_t rc = atomic_load(&c->abort) ? ncclInternalError : c->result;
  if (c->slot != NULL) { /* the child first, then the parent's state */
    atomic_store_explicit(&c->child->state, rc, memory_order_release);
    __atomic_store_n(c->slot, c->child, __ATOMIC_RELEASE);
  }
  atomic_store_explicit(&c->state, rc, memory_order_release);
  return NULL;
}

/* Starts c's job: its state is ncclInProgress until the job ends. */
static ncclResult_t start_job(ncclComm_t c, ncclResult_t result,
                              ncclComm_t child, ncclComm_t *slot) {
  c->result = result;
  c->child = child;
  c->slot = slot;
  c->delay_ms = fake_nccl.delay_ms;
  c->hold = slot != NULL && fake_nccl.hold_split;
  atomic_store(&c->state, ncclInProgress);
  if (pthread_create(&c->job, NULL, job_main, c) != 0)
    abort();
  c->has_job = true;
  return ncclInProgress;
}

static void join(ncclComm_t c) {
  if (c->has_job) {
    pthread_join(c->job, NULL);
    c->has_job = false;
  }
}

ncclResult_t ncclGetVersion(int *v) {
  *v = fake_nccl.version;
  return ncclSuccess;
}
ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  memset(id, 7, sizeof *id);
  return ncclSuccess;
}
ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int n, ncclUniqueId id,
                                    int rank, ncclConfig_t *config) {
  (void)n, (void)id, (void)rank;
  *comm = make(config); /* NCCL sets the handle before the job runs */
  logged("ncclCommInitRankConfig", *comm);
  if (!(*comm)->blocking)
    return start_job(*comm, fake_nccl.init_result, NULL, NULL);
  atomic_store(&(*comm)->state, fake_nccl.init_result);
  return fake_nccl.init_result;
}
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int n, ncclUniqueId id,
                              int rank) {
  return ncclCommInitRankConfig(comm, n, id, rank, NULL);
}
/* NCCL src/init.cc ncclCommInitChildComm: "*newcomm should be
 * NCCL_COMM_NULL until comm split fully complete". The group the split
 * runs in is the parent's: on a non-blocking parent the group's end sets
 * the parent's state to ncclInProgress and leaves the job to its thread,
 * which writes the child; yet ncclCommSplit returns ncclSuccess, because
 * NCCLCHECK lets the group end's ncclInProgress through and the call
 * returns the result of the split's own set-up (src/init.cc ncclCommSplit,
 * src/include/checks.h; so in 2.18 to 2.30). Only the parent's state says
 * when the child is there. */
ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                           ncclComm_t *newcomm, ncclConfig_t *config) {
  (void)color, (void)key;
  ncclResult_t rc = call_on("ncclCommSplit", comm);
  *newcomm = NULL;
  if (rc != ncclSuccess)
    return rc;
  ncclComm_t child = make(config);
  child->split_child = true;
  if (!comm->blocking) {
    (void)start_job(comm, fake_nccl.split_result, child, newcomm);
    return ncclSuccess;
  }
  atomic_store(&child->state, fake_nccl.split_result);
  *newcomm = child;
  return fake_nccl.split_result;
}
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *state) {
  if (comm == NULL) {
    fake_nccl.misuse++;
    return ncclInvalidArgument;
  }
  *state = state_of(comm);
  fake_nccl.child_polls += comm->split_child;
  if (*state != ncclInProgress)
    join(comm); /* NCCL's ncclGroupJobComplete */
  if (*state == ncclSuccess && comm->blocking &&
      fake_nccl.async_error != ncclSuccess) {
    *state = fake_nccl.async_error; /* sticks, as NCCL's does */
    atomic_store(&comm->state, *state);
    fake_nccl.async_error = ncclSuccess;
  }
  return ncclSuccess;
}
const char *ncclGetErrorString(ncclResult_t rc) {
  return rc == ncclSuccess ? "no error" : "fake NCCL error";
}
const char *ncclGetLastError(ncclComm_t comm) {
  (void)comm;
  return "";
}
ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  ncclResult_t rc = call_on("ncclCommFinalize", comm);
  if (rc != ncclSuccess)
    return rc;
  join(comm);
  return comm->blocking ? ncclSuccess
                        : start_job(comm, ncclSuccess, NULL, NULL);
}
ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (comm == NULL)
    return ncclSuccess;
  logged("ncclCommDestroy", comm);
  if (state_of(comm) == ncclInProgress)
    fake_nccl.misuse++; /* NCCL would wait for, or refuse, the job */
  join(comm);
  free(comm);
  fake_nccl.live--;
  return ncclSuccess;
}
/* NCCL src/init.cc: sets the abort flags, then ncclCommEnsureReady joins
 * the communicator's job (ncclGroupJobAbort) before tearing it down. */
ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (comm == NULL)
    return ncclSuccess;
  logged("ncclCommAbort", comm);
  atomic_store_explicit(&comm->abort, true, memory_order_release);
  join(comm);
  free(comm);
  fake_nccl.live--;
  return ncclSuccess;
}
ncclResult_t ncclAllReduce(const void *s, void *r, size_t n, ncclDataType_t t,
                           ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream) {
  (void)s, (void)r, (void)n, (void)t, (void)op, (void)stream;
  return call_on("ncclAllReduce", comm);
}
ncclResult_t ncclAlltoAll(const void *s, void *r, size_t n, ncclDataType_t t,
                          ncclComm_t comm, cudaStream_t stream) {
  (void)s, (void)r, (void)n, (void)t, (void)stream;
  return call_on("ncclAlltoAll", comm);
}
ncclResult_t ncclGather(const void *s, void *r, size_t n, ncclDataType_t t,
                        int root, ncclComm_t comm, cudaStream_t stream) {
  (void)s, (void)r, (void)n, (void)t, (void)root, (void)stream;
  return call_on("ncclGather", comm);
}
ncclResult_t ncclScatter(const void *s, void *r, size_t n, ncclDataType_t t,
                         int root, ncclComm_t comm, cudaStream_t stream) {
  (void)s, (void)r, (void)n, (void)t, (void)root, (void)stream;
  return call_on("ncclScatter", comm);
}
/* A point-to-point call: logged with its peer and count, refused as any
 * call on an unready communicator, or failed on request (p2p_fail_at). */
static ncclResult_t p2p(const char *name, size_t n, int peer, ncclComm_t comm) {
  ncclResult_t rc = call_on(name, comm);
  if (fake_nccl.n > 0 && fake_nccl.n <= FAKE_NCCL_LOG_MAX) {
    fake_nccl.log[fake_nccl.n - 1].peer = peer;
    fake_nccl.log[fake_nccl.n - 1].count = n;
  }
  if (++fake_nccl.p2p_calls == fake_nccl.p2p_fail_at && rc == ncclSuccess)
    rc = fake_nccl.p2p_result;
  return rc;
}

ncclResult_t ncclSend(const void *s, size_t n, ncclDataType_t t, int peer,
                      ncclComm_t comm, cudaStream_t stream) {
  (void)s, (void)t, (void)stream;
  return p2p("ncclSend", n, peer, comm);
}
ncclResult_t ncclRecv(void *r, size_t n, ncclDataType_t t, int peer,
                      ncclComm_t comm, cudaStream_t stream) {
  (void)r, (void)t, (void)stream;
  return p2p("ncclRecv", n, peer, comm);
}
ncclResult_t ncclGroupStart(void) {
  logged("ncclGroupStart", NULL);
  fake_nccl.depth++;
  return ncclSuccess;
}
ncclResult_t ncclGroupEnd(void) {
  if (fake_nccl.depth == 0) {
    fake_nccl.misuse++; /* NCCL: "ncclGroupEnd: not in a group call." */
    return ncclInvalidUsage;
  }
  fake_nccl.depth--;
  logged("ncclGroupEnd", NULL);
  return ncclSuccess;
}

/* MPICH's signature: the transport broadcasts rank 0's unique id. */
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root,
              MPI_Comm comm) {
  (void)buf, (void)count, (void)type, (void)root, (void)comm;
  return MPI_SUCCESS;
}
