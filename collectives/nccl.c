/*
 * The NCCL transport: collectives on device memory, one GPU per rank, the
 * way nccl-tests runs them.
 *
 * open() builds the communicator from an ncclUniqueId that rank 0 creates
 * and broadcasts over MPI, after selecting the rank's device. Operations
 * are enqueued on a private non-blocking stream (never serialised with the
 * legacy default stream); wait() polls the stream and NCCL's asynchronous
 * error state, as nccl-tests' testStreamSynchronize does, so that a failed
 * peer ends in an error rather than a hang. Collectives map one to one;
 * alltoall is ncclAlltoAll where the library has it (2.28+) and otherwise
 * grouped ncclSend/ncclRecv to every peer, both as nccl-tests; sendrecv is
 * the grouped ring exchange; gather and scatter are ncclGather and
 * ncclScatter where the library has them (2.28+), else grouped
 * ncclSend/ncclRecv between the root and every rank, both as nccl-tests'
 * src/gather.cu and scatter.cu; the point-to-point patterns are ncclSend /
 * ncclRecv ping-pong and an osu_bw-style window closed by a zero-byte
 * acknowledgement (zero-byte transfers synchronise since NCCL 2.12.10).
 * NCCL has no barrier: a one-element allreduce stands in for it.
 *
 * Every CUDA and NCCL return code is checked and named in the message;
 * after a failed NCCL call, close() aborts the communicator instead of
 * destroying it, since destroying waits for work that may never finish.
 *
 * Operations are timed on a blocking communicator, as nccl-tests times
 * them. Where NCCL can split (2.18+) it is split from a non-blocking one
 * whose creation is polled through ncclCommGetAsyncError, so set-up cannot
 * block the rank for good; NCCL writes the child from its own thread into
 * struct gcb_comm, read once the parent has settled (split_timed, and
 * docs/COLLECTIVES.md); any call that returns ncclInProgress is polled
 * likewise, and wait() polls the stream and the asynchronous error. Each poll
 * gives up at the deadline the caller gives (env->deadline: the
 * watchdog's for the case or set-up the rank is in): GCB_ETIMEOUT naming
 * the call, and close() then aborts the communicator. Without a deadline
 * (--timeout 0) nothing gives up.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "collectives/comm.h"
#include "collectives/data.h"
#include "common/clock.h"
#include "common/mpi_err.h"
#include "common/nccl_version.h"

#define GCB_NCCL_HAS(a, b, c) (NCCL_VERSION_CODE >= NCCL_VERSION(a, b, c))

/* Functions newer than some libnccl.so.2 a binary may meet at run time are
 * weak references, as nccl-tests declares ncclAlltoAll (src/alltoall.cu,
 * "#pragma weak ncclAlltoAll"): a binary built against newer headers then
 * still loads with an older library, and the call is made only when the
 * symbol resolved and the loaded library's version has it. */
#if GCB_NCCL_HAS(2, 28, 0)
#pragma weak ncclAlltoAll
#pragma weak ncclGather
#pragma weak ncclScatter
#endif
#if GCB_NCCL_HAS(2, 18, 0)
#pragma weak ncclCommSplit
#endif

struct gcb_comm {
  ncclComm_t nccl; /* the communicator operations are timed on:
                      blocking, as nccl-tests times. A split's child:
                      NCCL's thread writes it here (this struct outlives
                      the split), read only once `init` has settled or
                      been aborted */
  ncclComm_t init; /* the non-blocking one it was split from (its
                      set-up could be polled and aborted); NULL */
  bool splitting;  /* ncclCommSplit is running on NCCL's thread: `nccl`
                      is NCCL's to write until `init` settles */
  cudaStream_t stream;
  int rank, size, device;
  int cc_major, cc_minor; /* compute capability: fp8 needs 9.0 */
  int version;            /* ncclGetVersion() of the loaded library */
  void *scratch;          /* the barrier's one element */
  bool failed;            /* an NCCL call failed: abort on close */
  /* When blocking waits give up: env->deadline (struct gcb_coll_env). */
  const volatile double *deadline;
};

/* ---- return codes -------------------------------------------------------- */

static enum gcb_status cuda_check(struct gcb_err *err, cudaError_t rc,
                                  const char *call) {
  if (rc == cudaSuccess)
    return GCB_OK;
  (void)cudaGetLastError(); /* clear it, so later checks see their own */
  return gcb_err_set(err, GCB_ECUDA, "%s: %s", call, cudaGetErrorString(rc));
}

static bool past_deadline(const struct gcb_comm *c) {
  return c != NULL && gcb_coll_deadline_passed(c->deadline, gcb_now_s());
}

/* A call that returned ncclInProgress (a non-blocking communicator) is
 * finished by polling the communicator's state; ncclInProgress is
 * returned when the deadline passes first. */
static ncclResult_t settle_on(struct gcb_comm *c, ncclComm_t comm,
                              ncclResult_t rc) {
#if GCB_NCCL_HAS(2, 14, 0)
  while (rc == ncclInProgress && c != NULL && comm != NULL) {
    ncclResult_t state = ncclInProgress;
    ncclResult_t got = ncclCommGetAsyncError(comm, &state);
    if (got != ncclSuccess)
      return got;
    if (state != ncclInProgress || past_deadline(c))
      return state;
    sched_yield();
  }
#else
  (void)c, (void)comm;
#endif
  return rc;
}

static ncclResult_t settle(struct gcb_comm *c, ncclResult_t rc) {
  return settle_on(c, c != NULL ? c->nccl : NULL, rc);
}

/* A call's return code, settled on `comm` (the communicator whose state
 * tells how the call ends) and named in err; NCCL's last error comes
 * from the same communicator. */
static enum gcb_status check_on(struct gcb_comm *c, ncclComm_t comm,
                                struct gcb_err *err, ncclResult_t rc,
                                const char *call) {
  rc = settle_on(c, comm, rc);
  if (rc == ncclSuccess)
    return GCB_OK;
#if GCB_NCCL_HAS(2, 14, 0)
  if (rc == ncclInProgress && c != NULL) {
    c->failed = true;
    return gcb_err_set(err, GCB_ETIMEOUT,
                       "%s: still in progress at the deadline", call);
  }
#endif
  const char *last = comm != NULL ? ncclGetLastError(comm) : "";
  if (c != NULL)
    c->failed = true;
  return gcb_err_set(err, GCB_ENCCL, "%s: %s%s%s", call, ncclGetErrorString(rc),
                     last && *last ? ": " : "", last ? last : "");
}

static enum gcb_status nccl_check(struct gcb_comm *c, struct gcb_err *err,
                                  ncclResult_t rc, const char *call) {
  return check_on(c, c != NULL ? c->nccl : NULL, err, rc, call);
}

#define CUDA_CHECK(err, call) cuda_check((err), (call), #call)
#define NCCL_CHECK(c, err, call) nccl_check((c), (err), (call), #call)

/* ---- lifetime ------------------------------------------------------------ */

static bool nccl_usable(char *why, size_t why_len) {
  int count = 0;
  cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    (void)cudaGetLastError();
    snprintf(why, why_len, "no CUDA device visible, cudaGetDeviceCount: %s",
             cudaGetErrorString(rc));
    return false;
  }
  snprintf(why, why_len, "%d CUDA device%s visible", count,
           count == 1 ? "" : "s");
  return count > 0;
}

static void nccl_close(struct gcb_comm *c) {
  if (c == NULL)
    return;
  /* Teardown errors are ignored: there is nothing left to do about them. */
  (void)cudaSetDevice(c->device);
  if (c->splitting) {
    /* The split did not succeed: NCCL's thread may still write the child
     * into c->nccl. Aborting the parent joins that thread (NCCL
     * src/init.cc ncclCommAbort: ncclCommEnsureReady, ncclGroupJobAbort),
     * after which the child, if it appeared, is read and aborted too. */
    (void)ncclCommAbort(c->init);
    c->init = NULL;
    c->splitting = false;
    c->failed = true;
  }
  ncclComm_t comms[2] = {c->nccl, c->init};
  for (int i = 0; i < 2; i++) {
    if (comms[i] == NULL)
      continue;
#if GCB_NCCL_HAS(2, 14, 0)
    /* Finalising a non-blocking communicator is polled like any call; one
     * that does not finish by the deadline is aborted instead. */
    if (!c->failed &&
        settle_on(c, comms[i], ncclCommFinalize(comms[i])) != ncclSuccess)
      c->failed = true;
#endif
    (void)(c->failed ? ncclCommAbort(comms[i]) : ncclCommDestroy(comms[i]));
  }
  if (c->scratch != NULL)
    (void)cudaFree(c->scratch);
  if (c->stream != NULL)
    (void)cudaStreamDestroy(c->stream);
  free(c);
}

/* Rank 0's unique id, with whether it could make one: every rank must
 * learn of a failure, or the others would wait in ncclCommInitRank. */
struct id_msg {
  int status; /* ncclResult_t of ncclGetUniqueId */
  ncclUniqueId id;
};

static enum gcb_status share_id(const struct gcb_coll_env *env,
                                ncclUniqueId *id, struct gcb_err *err) {
  struct id_msg msg = {0};
  if (env->rank == 0)
    msg.status = (int)ncclGetUniqueId(&msg.id);
  int rc = MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, 0, env->comm);
  if (rc != MPI_SUCCESS)
    return gcb_mpi_err(err, rc, "MPI_Bcast of the NCCL id");
  if (msg.status != ncclSuccess)
    return gcb_err_set(err, GCB_ENCCL, "ncclGetUniqueId on rank 0: %s",
                       ncclGetErrorString((ncclResult_t)msg.status));
  *id = msg.id;
  return GCB_OK;
}

static enum gcb_status describe_device(struct gcb_comm *c,
                                       struct gcb_err *err) {
  enum gcb_status st = CUDA_CHECK(
      err, cudaDeviceGetAttribute(
               &c->cc_major, cudaDevAttrComputeCapabilityMajor, c->device));
  if (st == GCB_OK)
    st = CUDA_CHECK(
        err, cudaDeviceGetAttribute(
                 &c->cc_minor, cudaDevAttrComputeCapabilityMinor, c->device));
  return st;
}

/* The loaded library's version, before any communicator: it decides how
 * communicators are made and which calls exist. */
static enum gcb_status library_version(struct gcb_comm *c,
                                       struct gcb_err *err) {
  return NCCL_CHECK(c, err, ncclGetVersion(&c->version));
}

/* Whether ncclCommSplit resolved (weak: absent from libraries < 2.18). */
static bool have_split(void) {
#if GCB_NCCL_HAS(2, 18, 0)
  return ncclCommSplit != NULL;
#else
  return false;
#endif
}

/* A config as nccl-tests' initComms makes it: NCCL_CONFIG_INITIALIZER,
 * and nvlinkCentricSched = 1 where the header has it (2.28+; a library
 * older than the header reads only the fields it knows, NCCL
 * src/init.cc parseCommConfig; NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE in
 * the environment still overrides it). */
#if GCB_NCCL_HAS(2, 14, 0)
static ncclConfig_t base_config(const struct gcb_coll_nccl_plan *plan,
                                int blocking) {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = blocking;
#if GCB_NCCL_HAS(2, 28, 0)
  if (plan->nvlink_centric)
    config.nvlinkCentricSched = 1;
#else
  (void)plan;
#endif
  return config;
}
#endif

#if GCB_NCCL_HAS(2, 18, 0)
/* The blocking child for the timed path, split from the settled
 * non-blocking c->init. On a non-blocking parent ncclCommSplit leaves the
 * child NULL and its making to NCCL's thread, which writes it into
 * c->nccl (which outlives this call) and then sets the parent's state
 * (src/init.cc ncclCommInitChildComm: "*newcomm should be NCCL_COMM_NULL
 * until comm split fully complete"; src/group.cc). The call itself
 * returns ncclSuccess then, not ncclInProgress: it returns the result of
 * the job's set-up, and NCCLCHECK passes the group end's ncclInProgress
 * by (src/init.cc ncclCommSplit, 2.18 to 2.30; seen on an H200 with one
 * rank, which found the child still NULL). So the parent is polled until
 * it settles whatever the call returned, and only then is the child read,
 * and polled too. Past the deadline, or after a failure, c->splitting
 * stays set, and close() aborts the parent before it looks at the
 * child. */
static enum gcb_status split_timed(struct gcb_comm *c,
                                   const struct gcb_coll_nccl_plan *plan,
                                   struct gcb_err *err) {
  static const char call[] = "ncclCommSplit (blocking, for timing)";
  ncclConfig_t timed = base_config(plan, 1);
  c->init = c->nccl;
  c->nccl = NULL;
  c->splitting = true;
  ncclResult_t rc = ncclCommSplit(c->init, 0, c->rank, &c->nccl, &timed);
  enum gcb_status st =
      check_on(c, c->init, err, rc == ncclSuccess ? ncclInProgress : rc, call);
  if (st != GCB_OK)
    return st; /* maybe still NCCL's: close() aborts the parent first */
  c->splitting = false; /* settled: NCCL's thread has written c->nccl */
  if (c->nccl == NULL) {
    c->failed = true;
    return gcb_err_set(err, GCB_ENCCL, "%s: no communicator", call);
  }
  return check_on(c, c->nccl, err, ncclInProgress, call);
}
#endif

/* The communicator set-up gcb_coll_nccl_plan() chooses for the loaded
 * library: where NCCL can split (2.18+), a non-blocking communicator whose
 * set-up is polled within the deadline and aborted past it, then a
 * blocking child split from it for the timed path; elsewhere a blocking
 * one from the start. Non-blocking communicators run each operation's
 * implicit group end on a new host thread and return ncclInProgress
 * (NCCL src/group.cc, src/enqueue.cc): tens of us per operation that
 * nccl-tests, timing on blocking communicators (src/common.cu,
 * ncclCommInitRankConfig with the default config), does not pay. */
static enum gcb_status init_comm(struct gcb_comm *c, ncclUniqueId id,
                                 struct gcb_err *err) {
  struct gcb_coll_nccl_plan plan =
      gcb_coll_nccl_plan(NCCL_VERSION_CODE, c->version, have_split());
  enum gcb_status st;
#if GCB_NCCL_HAS(2, 14, 0)
  /* NCCL sets the handle before its thread runs (src/init.cc
   * ncclCommInitRankDev), so a non-blocking set-up is polled on it. */
  ncclConfig_t config = base_config(&plan, plan.init_nonblocking ? 0 : 1);
  st = nccl_check(
      c, err, ncclCommInitRankConfig(&c->nccl, c->size, id, c->rank, &config),
      "ncclCommInitRankConfig");
#else
  st = nccl_check(c, err, ncclCommInitRank(&c->nccl, c->size, id, c->rank),
                  "ncclCommInitRank");
#endif
#if GCB_NCCL_HAS(2, 18, 0)
  if (st == GCB_OK && plan.split_blocking)
    st = split_timed(c, &plan, err);
#endif
  return st;
}

static enum gcb_status nccl_open(const struct gcb_coll_env *env,
                                 struct gcb_comm **out, struct gcb_err *err) {
  struct gcb_comm *c = NULL;
  ncclUniqueId id;
  enum gcb_status st;
  *out = NULL;
  if (env->device < 0)
    return gcb_err_set(err, GCB_EUSAGE, "nccl: rank %d has no CUDA device",
                       env->rank);
  if ((c = calloc(1, sizeof *c)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "nccl: no memory for the transport");
  *c = (struct gcb_comm){.rank = env->rank,
                         .size = env->size,
                         .device = env->device,
                         .deadline = env->deadline};
  /* The device first: the communicator binds to the current one. */
  if ((st = CUDA_CHECK(err, cudaSetDevice(c->device))) != GCB_OK ||
      (st = share_id(env, &id, err)) != GCB_OK ||
      (st = library_version(c, err)) != GCB_OK ||
      (st = init_comm(c, id, err)) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaStreamCreateWithFlags(
                                &c->stream, cudaStreamNonBlocking))) !=
          GCB_OK ||
      (st = CUDA_CHECK(err, cudaMalloc(&c->scratch, 16))) != GCB_OK ||
      (st = describe_device(c, err)) != GCB_OK) {
    gcb_err_prefix(err, "nccl on device %d", env->device);
    nccl_close(c);
    return st;
  }
  *out = c;
  return GCB_OK;
}

static void nccl_version(char *buf, size_t len) {
  int v = 0;
  char number[32];
  if (ncclGetVersion(&v) != ncclSuccess)
    v = 0;
  gcb_nccl_version_format(number, sizeof number, v);
  snprintf(buf, len, "NCCL %s", number);
}

static void nccl_version_codes(int *headers, int *library) {
  *headers = NCCL_VERSION_CODE;
  if (ncclGetVersion(library) != ncclSuccess)
    *library = 0;
}

/* ---- capabilities -------------------------------------------------------- */

/* NCCL's types and operators, where the header gcbench was compiled
 * against has them (the versions are nccl-tests' HAVE_BF16, HAVE_FP8). */
static const struct {
  bool ok;
  ncclDataType_t type;
} nccl_types[GCB_COLL_DTYPE_COUNT] = {
    [GCB_COLL_INT8] = {true, ncclInt8},
    [GCB_COLL_UINT8] = {true, ncclUint8},
    [GCB_COLL_INT32] = {true, ncclInt32},
    [GCB_COLL_UINT32] = {true, ncclUint32},
    [GCB_COLL_INT64] = {true, ncclInt64},
    [GCB_COLL_UINT64] = {true, ncclUint64},
    [GCB_COLL_HALF] = {true, ncclFloat16},
    [GCB_COLL_FLOAT] = {true, ncclFloat32},
    [GCB_COLL_DOUBLE] = {true, ncclFloat64},
#if GCB_NCCL_HAS(2, 10, 0)
    [GCB_COLL_BFLOAT16] = {true, ncclBfloat16},
#endif
#if GCB_NCCL_HAS(2, 24, 0)
    [GCB_COLL_F8E4M3] = {true, ncclFloat8e4m3},
    [GCB_COLL_F8E5M2] = {true, ncclFloat8e5m2},
#endif
};

static const struct {
  bool ok;
  ncclRedOp_t op;
} nccl_ops[GCB_COLL_REDOP_COUNT] = {
    [GCB_REDOP_SUM] = {true, ncclSum}, [GCB_REDOP_PROD] = {true, ncclProd},
    [GCB_REDOP_MAX] = {true, ncclMax}, [GCB_REDOP_MIN] = {true, ncclMin},
#if GCB_NCCL_HAS(2, 10, 0)
    [GCB_REDOP_AVG] = {true, ncclAvg},
#endif
};

static bool nccl_supports(const struct gcb_comm *c,
                          const struct gcb_coll_desc *d, enum gcb_coll_dtype t,
                          enum gcb_coll_redop op, char *why, size_t why_len) {
  bool fp8 = t == GCB_COLL_F8E4M3 || t == GCB_COLL_F8E5M2;
  if ((int)t < 0 || t >= GCB_COLL_DTYPE_COUNT || !nccl_types[t].ok) {
    snprintf(why, why_len, "NCCL %d.%d has no %s type", NCCL_MAJOR, NCCL_MINOR,
             gcb_coll_dtype_name(t));
    return false;
  }
  if (d->reduces &&
      ((int)op < 0 || op >= GCB_COLL_REDOP_COUNT || !nccl_ops[op].ok)) {
    snprintf(why, why_len, "NCCL %d.%d has no %s reduction", NCCL_MAJOR,
             NCCL_MINOR, gcb_coll_redop_name(op));
    return false;
  }
  /* NCCL's documentation: the fp8 types need SM 90 (its argument check
   * rejects them on older devices). */
  if (fp8 && c->cc_major < 9) {
    snprintf(why, why_len,
             "NCCL's fp8 types need compute capability 9.0 or newer "
             "(device %d is %d.%d)",
             c->device, c->cc_major, c->cc_minor);
    return false;
  }
  return true;
}

/* NCCL's in-place conventions are nccl-tests' (allgather: send = recv +
 * rank * count; reducescatter: recv = send + rank * count); alltoall and
 * sendrecv have none, and nccl-tests reports them N/A in place. */
static bool nccl_inplace(const struct gcb_comm *c,
                         const struct gcb_coll_desc *d,
                         struct gcb_coll_counts *counts, char *why,
                         size_t why_len) {
  (void)c, (void)counts;
  if (d->op == GCB_COLLOP_BIBW) {
    snprintf(why, why_len,
             "bibw sends and receives at once: it has no in-place form");
    return false;
  }
  if (d->op != GCB_COLLOP_ALLTOALL && d->op != GCB_COLLOP_SENDRECV)
    return true;
  snprintf(why, why_len, "NCCL has no in-place %s (nccl-tests reports N/A)",
           d->name);
  return false;
}

/* ---- memory -------------------------------------------------------------- */

static enum gcb_status nccl_alloc(struct gcb_comm *c, size_t bytes, void **buf,
                                  struct gcb_err *err) {
  size_t free_b = 0, total = 0;
  enum gcb_status st;
  *buf = NULL;
  if ((st = CUDA_CHECK(err, cudaSetDevice(c->device))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaMemGetInfo(&free_b, &total))) != GCB_OK)
    return st;
  if (bytes > free_b)
    return gcb_err_set(err, GCB_ENOMEM,
                       "nccl: a %zu-byte buffer exceeds the %zu bytes free "
                       "on device %d",
                       bytes, free_b, c->device);
  if (cudaMalloc(buf, bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    *buf = NULL;
    return gcb_err_set(err, GCB_ENOMEM, "nccl: cudaMalloc of %zu bytes failed",
                       bytes);
  }
  return GCB_OK;
}

static void nccl_free(struct gcb_comm *c, void *buf) {
  (void)c;
  (void)cudaFree(buf);
}

static enum gcb_status copy(struct gcb_comm *c, void *dst, const void *src,
                            size_t bytes, enum cudaMemcpyKind kind,
                            struct gcb_err *err) {
  enum gcb_status st =
      CUDA_CHECK(err, cudaMemcpyAsync(dst, src, bytes, kind, c->stream));
  return st != GCB_OK ? st : CUDA_CHECK(err, cudaStreamSynchronize(c->stream));
}

static enum gcb_status nccl_upload(struct gcb_comm *c, void *dst,
                                   const void *src, size_t bytes,
                                   struct gcb_err *err) {
  return copy(c, dst, src, bytes, cudaMemcpyHostToDevice, err);
}

static enum gcb_status nccl_download(struct gcb_comm *c, void *dst,
                                     const void *src, size_t bytes,
                                     struct gcb_err *err) {
  return copy(c, dst, src, bytes, cudaMemcpyDeviceToHost, err);
}

/* ---- operations ---------------------------------------------------------- */

/* One operation being enqueued, and the NCCL call that failed. */
struct enq {
  struct gcb_comm *c;
  const struct gcb_coll_call *k;
  ncclDataType_t dt;
  ncclRedOp_t op;
  const char *call;
};

static ncclResult_t named(struct enq *e, const char *call, ncclResult_t rc) {
  rc = settle(e->c, rc); /* a non-blocking call finishes before the next */
  if (rc != ncclSuccess)
    e->call = call;
  return rc;
}

static ncclResult_t send_to(struct enq *e, const void *buf, size_t n,
                            int peer) {
  return named(e, "ncclSend",
               ncclSend(buf, n, e->dt, peer, e->c->nccl, e->c->stream));
}

static ncclResult_t recv_from(struct enq *e, void *buf, size_t n, int peer) {
  return named(e, "ncclRecv",
               ncclRecv(buf, n, e->dt, peer, e->c->nccl, e->c->stream));
}

static ncclResult_t group_start(struct enq *e) {
  return named(e, "ncclGroupStart", ncclGroupStart());
}

/* The group is ended even after a failed call inside it, so that NCCL's
 * group state is left clean; the first failure is the one reported. */
static ncclResult_t group_end(struct enq *e, ncclResult_t rc) {
  ncclResult_t end = ncclGroupEnd();
  return rc != ncclSuccess ? rc : named(e, "ncclGroupEnd", end);
}

static ncclResult_t enq_allreduce(struct enq *e) {
  const struct gcb_coll_call *k = e->k;
  return named(e, "ncclAllReduce",
               ncclAllReduce(k->send, k->recv, k->param, e->dt, e->op,
                             e->c->nccl, e->c->stream));
}

static ncclResult_t enq_allgather(struct enq *e) {
  const struct gcb_coll_call *k = e->k;
  return named(e, "ncclAllGather",
               ncclAllGather(k->send, k->recv, k->param, e->dt, e->c->nccl,
                             e->c->stream));
}

static ncclResult_t enq_reducescatter(struct enq *e) {
  const struct gcb_coll_call *k = e->k;
  return named(e, "ncclReduceScatter",
               ncclReduceScatter(k->send, k->recv, k->param, e->dt, e->op,
                                 e->c->nccl, e->c->stream));
}

static ncclResult_t enq_broadcast(struct enq *e) {
  const struct gcb_coll_call *k = e->k;
  return named(e, "ncclBroadcast",
               ncclBroadcast(k->send, k->recv, k->param, e->dt, k->root,
                             e->c->nccl, e->c->stream));
}

static ncclResult_t enq_reduce(struct enq *e) {
  const struct gcb_coll_call *k = e->k;
  return named(e, "ncclReduce",
               ncclReduce(k->send, k->recv, k->param, e->dt, e->op, k->root,
                          e->c->nccl, e->c->stream));
}

/* As nccl-tests: ncclAlltoAll where the loaded library has it, otherwise
 * a group of sends and receives of one block to and from every rank. */
static ncclResult_t enq_alltoall(struct enq *e) {
  const struct gcb_coll_call *k = e->k;
#if GCB_NCCL_HAS(2, 28, 0)
  if (ncclAlltoAll != NULL && e->c->version >= NCCL_VERSION(2, 28, 0))
    return named(e, "ncclAlltoAll",
                 ncclAlltoAll(k->send, k->recv, k->param, e->dt, e->c->nccl,
                              e->c->stream));
#endif
  size_t block = k->param * gcb_coll_dtype_size(k->dtype);
  ncclResult_t rc = group_start(e);
  if (rc != ncclSuccess)
    return rc;
  for (int r = 0; r < e->c->size && rc == ncclSuccess; r++)
    if ((rc = send_to(e, (const char *)k->send + (size_t)r * block, k->param,
                      r)) == ncclSuccess)
      rc = recv_from(e, (char *)k->recv + (size_t)r * block, k->param, r);
  return group_end(e, rc);
}

/* As nccl-tests' src/gather.cu: ncclGather where the loaded library has
 * it, otherwise a group in which every rank sends its block to the root
 * and the root receives block r from every rank r, itself included. */
static ncclResult_t enq_gather(struct enq *e) {
  const struct gcb_coll_call *k = e->k;
#if GCB_NCCL_HAS(2, 28, 0)
  if (ncclGather != NULL && e->c->version >= NCCL_VERSION(2, 28, 0))
    return named(e, "ncclGather",
                 ncclGather(k->send, k->recv, k->param, e->dt, k->root,
                            e->c->nccl, e->c->stream));
#endif
  size_t block = k->param * gcb_coll_dtype_size(k->dtype);
  ncclResult_t rc = group_start(e);
  if (rc != ncclSuccess)
    return rc;
  rc = send_to(e, k->send, k->param, k->root);
  for (int r = 0; e->c->rank == k->root && r < e->c->size && rc == ncclSuccess;
       r++)
    rc = recv_from(e, (char *)k->recv + (size_t)r * block, k->param, r);
  return group_end(e, rc);
}

/* As nccl-tests' src/scatter.cu: ncclScatter where the loaded library has
 * it, otherwise a group in which the root sends block r to every rank r,
 * itself included, and every rank receives its block from the root. */
static ncclResult_t enq_scatter(struct enq *e) {
  const struct gcb_coll_call *k = e->k;
#if GCB_NCCL_HAS(2, 28, 0)
  if (ncclScatter != NULL && e->c->version >= NCCL_VERSION(2, 28, 0))
    return named(e, "ncclScatter",
                 ncclScatter(k->send, k->recv, k->param, e->dt, k->root,
                             e->c->nccl, e->c->stream));
#endif
  size_t block = k->param * gcb_coll_dtype_size(k->dtype);
  ncclResult_t rc = group_start(e);
  if (rc != ncclSuccess)
    return rc;
  for (int r = 0; e->c->rank == k->root && r < e->c->size && rc == ncclSuccess;
       r++)
    rc = send_to(e, (const char *)k->send + (size_t)r * block, k->param, r);
  if (rc == ncclSuccess)
    rc = recv_from(e, k->recv, k->param, k->root);
  return group_end(e, rc);
}

/* nccl-tests' ring: send to rank + 1, receive from rank - 1, grouped. */
static ncclResult_t enq_sendrecv(struct enq *e) {
  int n = e->c->size, next = (e->c->rank + 1) % n;
  int prev = (e->c->rank - 1 + n) % n;
  ncclResult_t rc = group_start(e);
  if (rc != ncclSuccess)
    return rc;
  if ((rc = send_to(e, e->k->send, e->k->param, next)) == ncclSuccess)
    rc = recv_from(e, e->k->recv, e->k->param, prev);
  return group_end(e, rc);
}

/* Ungrouped, so stream order makes it a ping-pong; the responder answers
 * from its own send buffer, as osu_latency (in place: what it received). */
static ncclResult_t enq_latency(struct enq *e) {
  const struct gcb_coll_call *k = e->k;
  int peer = gcb__coll_partner(e->c->rank, e->c->size);
  ncclResult_t rc;
  if (peer < 0)
    return ncclSuccess;
  if (e->c->rank < peer)
    return (rc = send_to(e, k->send, k->param, peer)) != ncclSuccess
               ? rc
               : recv_from(e, k->recv, k->param, peer);
  return (rc = recv_from(e, k->recv, k->param, peer)) != ncclSuccess
             ? rc
             : send_to(e, k->inplace ? k->recv : k->send, k->param, peer);
}

/* osu_bw's window, grouped so that the messages are in flight together,
 * then the zero-byte acknowledgement (from a valid pointer). */
static ncclResult_t enq_bandwidth(struct enq *e) {
  const struct gcb_coll_call *k = e->k;
  int peer = gcb__coll_partner(e->c->rank, e->c->size);
  bool sender = e->c->rank < peer;
  if (peer < 0)
    return ncclSuccess;
  ncclResult_t rc = group_start(e);
  if (rc != ncclSuccess)
    return rc;
  for (int i = 0; i < gcb_coll_call_window(k) && rc == ncclSuccess; i++)
    rc = sender ? send_to(e, k->send, k->param, peer)
                : recv_from(e, k->recv, k->param, peer);
  if ((rc = group_end(e, rc)) != ncclSuccess)
    return rc;
  return sender ? recv_from(e, e->c->scratch, 0, peer)
                : send_to(e, e->c->scratch, 0, peer);
}

/* osu_bibw's window: both partners' `window` receives and sends in one
 * group (nccl-tests' sendrecv groups its send and receive the same way),
 * so that both directions are in flight together; no acknowledgement. */
static ncclResult_t enq_bibw(struct enq *e) {
  const struct gcb_coll_call *k = e->k;
  int peer = gcb__coll_partner(e->c->rank, e->c->size);
  int w = gcb_coll_call_window(k);
  if (peer < 0)
    return ncclSuccess;
  ncclResult_t rc = group_start(e);
  if (rc != ncclSuccess)
    return rc;
  for (int i = 0; i < w && rc == ncclSuccess; i++)
    rc = recv_from(e, k->recv, k->param, peer);
  for (int i = 0; i < w && rc == ncclSuccess; i++)
    rc = send_to(e, k->send, k->param, peer);
  return group_end(e, rc);
}

static ncclResult_t enq_barrier(struct enq *e) {
  return named(e, "ncclAllReduce",
               ncclAllReduce(e->c->scratch, e->c->scratch, 1, ncclInt8, ncclSum,
                             e->c->nccl, e->c->stream));
}

static ncclResult_t (*const enqueuers[GCB_COLLOP_COUNT])(struct enq *) = {
    [GCB_COLLOP_ALLREDUCE] = enq_allreduce,
    [GCB_COLLOP_ALLGATHER] = enq_allgather,
    [GCB_COLLOP_REDUCESCATTER] = enq_reducescatter,
    [GCB_COLLOP_BROADCAST] = enq_broadcast,
    [GCB_COLLOP_REDUCE] = enq_reduce,
    [GCB_COLLOP_ALLTOALL] = enq_alltoall,
    [GCB_COLLOP_SENDRECV] = enq_sendrecv,
    [GCB_COLLOP_LATENCY] = enq_latency,
    [GCB_COLLOP_BANDWIDTH] = enq_bandwidth,
    [GCB_COLLOP_BARRIER] = enq_barrier,
    [GCB_COLLOP_GATHER] = enq_gather,
    [GCB_COLLOP_SCATTER] = enq_scatter,
    [GCB_COLLOP_BIBW] = enq_bibw,
};

static enum gcb_status nccl_start(struct gcb_comm *c,
                                  const struct gcb_coll_call *k,
                                  struct gcb_err *err) {
  enum gcb_coll_op id = k->desc->op;
  bool reduces = k->desc->reduces;
  if ((int)id < 0 || id >= GCB_COLLOP_COUNT || enqueuers[id] == NULL ||
      !nccl_types[k->dtype].ok || (reduces && !nccl_ops[k->redop].ok))
    return gcb_err_set(err, GCB_EUNSUPPORTED, "nccl: %s %s not supported",
                       k->desc->name, gcb_coll_dtype_name(k->dtype));
  /* Non-reducing operations get a placeholder operator they never read. */
  struct enq e = {.c = c,
                  .k = k,
                  .dt = nccl_types[k->dtype].type,
                  .op = reduces ? nccl_ops[k->redop].op : ncclSum,
                  .call = "?"};
  ncclResult_t rc = enqueuers[id](&e);
  return nccl_check(c, err, rc, e.call);
}

/* nccl-tests' -m: one iteration's operations in one NCCL group. */
static enum gcb_status nccl_group_begin(struct gcb_comm *c,
                                        struct gcb_err *err) {
  return NCCL_CHECK(c, err, ncclGroupStart());
}

static enum gcb_status nccl_group_end(struct gcb_comm *c, struct gcb_err *err) {
  return NCCL_CHECK(c, err, ncclGroupEnd());
}

/* nccl-tests' testStreamSynchronize: poll the stream, and NCCL's
 * asynchronous error, which a blocking synchronise would never see. */
static enum gcb_status nccl_wait(struct gcb_comm *c, struct gcb_err *err) {
  for (;;) {
    cudaError_t rc = cudaStreamQuery(c->stream);
    if (rc == cudaSuccess)
      return GCB_OK;
    if (rc != cudaErrorNotReady)
      return cuda_check(err, rc, "cudaStreamQuery");
    ncclResult_t async = ncclSuccess;
    enum gcb_status st =
        NCCL_CHECK(c, err, ncclCommGetAsyncError(c->nccl, &async));
    if (st == GCB_OK)
      st = nccl_check(c, err, async, "NCCL (asynchronous error)");
    if (st != GCB_OK)
      return st;
    if (past_deadline(c)) {
      c->failed = true; /* close() aborts what is still running */
      return gcb_err_set(err, GCB_ETIMEOUT,
                         "nccl: operations on device %d not complete at the "
                         "deadline",
                         c->device);
    }
    sched_yield(); /* leave the core to NCCL's proxy thread */
  }
}

/* Non-blocking test: the stream's state and NCCL's asynchronous error,
 * without waiting (start() only enqueues, so it serves as istart()). */
static enum gcb_status nccl_test(struct gcb_comm *c, bool *done,
                                 struct gcb_err *err) {
  *done = false;
  cudaError_t rc = cudaStreamQuery(c->stream);
  if (rc == cudaSuccess) {
    *done = true;
    return GCB_OK;
  }
  if (rc != cudaErrorNotReady)
    return cuda_check(err, rc, "cudaStreamQuery");
  ncclResult_t async = ncclSuccess;
  enum gcb_status st =
      NCCL_CHECK(c, err, ncclCommGetAsyncError(c->nccl, &async));
  return st == GCB_OK ? nccl_check(c, err, async, "NCCL (asynchronous error)")
                      : st;
}

/* netmap's exchange with one peer, as nccl-tests' sendrecv carries a
 * pair: its sends and receives in one group (both directions in flight
 * together, GPUDirect where NCCL's transport uses it), then the stream
 * synchronised (nccl_wait: polled, NCCL's asynchronous error seen). */
static enum gcb_status nccl_exchange(struct gcb_comm *c,
                                     const struct gcb_coll_xfer *x,
                                     struct gcb_err *err) {
  static const struct gcb_coll_call bytes = {.dtype = GCB_COLL_UINT8};
  struct enq e = {.c = c, .k = &bytes, .dt = ncclUint8, .call = "?"};
  if (x->peer < 0 || x->peer >= c->size || x->peer == c->rank)
    return gcb_err_set(err, GCB_EINTERNAL, "nccl: exchange with rank %d of %d",
                       x->peer, c->size);
  ncclResult_t rc = group_start(&e);
  if (rc != ncclSuccess)
    return nccl_check(c, err, rc, e.call);
  for (int i = 0; i < x->sends && rc == ncclSuccess; i++)
    rc = send_to(&e, x->send, x->bytes, x->peer);
  for (int i = 0; i < x->recvs && rc == ncclSuccess; i++)
    rc = recv_from(&e, (char *)x->recv + (size_t)i * x->bytes, x->bytes,
                   x->peer);
  rc = group_end(&e, rc);
  enum gcb_status st = nccl_check(c, err, rc, e.call);
  return st != GCB_OK ? st : nccl_wait(c, err);
}

const struct gcb_coll_ops gcb_coll_nccl = {
    .name = "nccl",
    .description = GCB_COLL_NCCL_DESCRIPTION,
    .device_memory = true,
    .usable = nccl_usable,
    .open = nccl_open,
    .close = nccl_close,
    .supports = nccl_supports,
    .inplace = nccl_inplace,
    .alloc = nccl_alloc,
    .free = nccl_free,
    .upload = nccl_upload,
    .download = nccl_download,
    .start = nccl_start,
    .wait = nccl_wait,
    .group_begin = nccl_group_begin,
    .group_end = nccl_group_end,
    .istart = nccl_start,
    .test = nccl_test,
    .exchange = nccl_exchange,
    .version = nccl_version,
    .version_codes = nccl_version_codes,
};
