/*
 * The MPI transport: every collective as the MPI library runs it, on host
 * memory, so that the collective benchmark measures CPU clusters and runs
 * wherever MPI does.
 *
 * Each operation is the matching MPI call (MPI_Allreduce, MPI_Allgather,
 * MPI_Reduce_scatter_block, MPI_Bcast, MPI_Reduce, MPI_Alltoall,
 * MPI_Sendrecv, MPI_Barrier) or, for the point-to-point patterns, what OSU
 * does: blocking ping-pong with separate buffers (osu_latency) and a window of
 * non-blocking sends closed by a zero-byte acknowledgement (osu_bw). start()
 * runs the operation to completion, so wait() has nothing left to do. In place
 * follows the MPI standard: MPI_IN_PLACE where it is defined (allreduce,
 * allgather, reduce_scatter_block, reduce at the root, alltoall),
 * MPI_Sendrecv_replace for sendrecv, and a broadcast buffer is in place by
 * nature (out of place, the root first copies send to receive, since NCCL's
 * broadcast also leaves the data in the root's receive buffer). Gather and
 * scatter are MPI_Gather and MPI_Scatter (osu_gather.c, osu_scatter.c),
 * in place with MPI_IN_PLACE at the root, as OSU's -l.
 *
 * Traffic runs on a duplicate of the caller's communicator, so its messages
 * can never match the harness's own. Every MPI return code is checked (the
 * duplicate returns errors rather than aborting) and named in the message.
 * Each call takes its int-count form when the count fits in an int and,
 * with an MPI-4 library, the large-count (_c) form beyond, so no count is
 * limited to INT_MAX elements and none pays for the large-count path when
 * it need not; with MPI-3 larger counts fail with a clear message.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/comm.h"
#include "collectives/data.h"
#include "common/hostmem.h"
#include "common/mpi_err.h"

#if MPI_VERSION >= 4
typedef MPI_Count mpi_count;
#define MPI_COUNT_LIMIT ((size_t)LLONG_MAX)
#else
typedef int mpi_count;
#define MPI_COUNT_LIMIT ((size_t)INT_MAX)
#endif

/* Which form of a counted MPI call a count takes. */
enum mpi_form {
  MPI_FORM_INT,       /* the classic call: the count fits in an int */
  MPI_FORM_LARGE,     /* MPI-4's large-count call (the _c suffix) */
  MPI_FORM_TOO_LARGE, /* beyond what this MPI can take */
};

/* The int-count form whenever the count fits, since the large-count entry
 * points cost more per call (MPICH 4.0: +4.6 % on an 8-byte allreduce,
 * issue 18); the _c form only beyond INT_MAX. */
static enum mpi_form mpi_form(size_t count) {
  if (count <= (size_t)INT_MAX)
    return MPI_FORM_INT;
  return count <= MPI_COUNT_LIMIT ? MPI_FORM_LARGE : MPI_FORM_TOO_LARGE;
}

/*
 * One counted MPI call: fn with an int count, or fn##_c with an MPI_Count
 * one, chosen by mpi_form(count). The arguments are written once, with
 * the count as an mpi_count (converted to int in the int form, where it
 * fits). mpi_start() has refused counts that are too large.
 */
#if MPI_VERSION >= 4
#define MPI_COUNTED(fn, count, ...)                                            \
  (mpi_form(count) == MPI_FORM_INT ? fn(__VA_ARGS__) : fn##_c(__VA_ARGS__))
#else
#define MPI_COUNTED(fn, count, ...) fn(__VA_ARGS__)
#endif

/* Tags of the point-to-point patterns (on our own communicator). */
enum {
  TAG_RING = 1,
  TAG_PING,
  TAG_PONG,
  TAG_WINDOW,
  TAG_ACK,
  TAG_BIBW,
  TAG_XFER
};

struct gcb_comm {
  MPI_Comm comm; /* duplicate of the caller's communicator */
  int rank, size;
  MPI_Request *reqs; /* the bandwidth window's requests */
  int nreqs;
  MPI_Request *pending; /* istart()'s requests, until wait() */
  int npending, cap_pending;
};

/* One MPI type per element type; half, bfloat16 and fp8 have none. */
static const struct {
  bool ok;
  MPI_Datatype type;
} mpi_types[GCB_COLL_DTYPE_COUNT] = {
    [GCB_COLL_INT8] = {true, MPI_INT8_T},
    [GCB_COLL_UINT8] = {true, MPI_UINT8_T},
    [GCB_COLL_INT32] = {true, MPI_INT32_T},
    [GCB_COLL_UINT32] = {true, MPI_UINT32_T},
    [GCB_COLL_INT64] = {true, MPI_INT64_T},
    [GCB_COLL_UINT64] = {true, MPI_UINT64_T},
    [GCB_COLL_FLOAT] = {true, MPI_FLOAT},
    [GCB_COLL_DOUBLE] = {true, MPI_DOUBLE},
};

static const struct {
  bool ok;
  MPI_Op op;
} mpi_ops[GCB_COLL_REDOP_COUNT] = {
    [GCB_REDOP_SUM] = {true, MPI_SUM},
    [GCB_REDOP_PROD] = {true, MPI_PROD},
    [GCB_REDOP_MAX] = {true, MPI_MAX},
    [GCB_REDOP_MIN] = {true, MPI_MIN},
};

/* ---- lifetime ------------------------------------------------------------ */

static bool mpi_usable(char *why, size_t why_len) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  snprintf(why, why_len, "%s",
           init && !fin ? "MPI is initialised" : "MPI is not initialised");
  return init && !fin;
}

static void mpi_close(struct gcb_comm *c) {
  int fin = 0;
  if (c == NULL)
    return;
  MPI_Finalized(&fin);
  if (!fin && c->comm != MPI_COMM_NULL)
    (void)MPI_Comm_free(&c->comm); /* nothing to do about a failure here */
  free(c->reqs);
  free(c->pending);
  free(c);
}

static enum gcb_status mpi_open(const struct gcb_coll_env *env,
                                struct gcb_comm **out, struct gcb_err *err) {
  struct gcb_comm *c = calloc(1, sizeof *c);
  const char *call = "MPI_Comm_dup";
  int rc;
  *out = NULL;
  if (c == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "mpi: no memory for the transport");
  c->comm = MPI_COMM_NULL;
  if ((rc = MPI_Comm_dup(env->comm, &c->comm)) != MPI_SUCCESS ||
      (call = "MPI_Comm_set_errhandler",
       rc = MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN)) !=
          MPI_SUCCESS ||
      (call = "MPI_Comm_rank", rc = MPI_Comm_rank(c->comm, &c->rank)) !=
          MPI_SUCCESS ||
      (call = "MPI_Comm_size", rc = MPI_Comm_size(c->comm, &c->size)) !=
          MPI_SUCCESS) {
    mpi_close(c);
    return gcb_mpi_err(err, rc, call);
  }
  *out = c;
  return GCB_OK;
}

static void mpi_version(char *buf, size_t len) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int n = 0, major = 0, minor = 0;
  if (MPI_Get_library_version(lib, &n) != MPI_SUCCESS)
    lib[0] = '\0';
  lib[strcspn(lib, "\n")] = '\0'; /* the first line names the library */
  const char *v = strstr(lib, "MPICH Version:");
  if (v != NULL) /* "MPICH Version:\t4.0.2" -> "MPICH 4.0.2" */
    snprintf(buf, len, "MPICH %s",
             v + strlen("MPICH Version:") +
                 strspn(v + strlen("MPICH Version:"), " \t"));
  else if (lib[0] != '\0')
    snprintf(buf, len, "%s", lib);
  else if (MPI_Get_version(&major, &minor) == MPI_SUCCESS)
    snprintf(buf, len, "MPI %d.%d", major, minor);
  else
    snprintf(buf, len, "MPI");
}

/* ---- capabilities -------------------------------------------------------- */

static bool mpi_supports(const struct gcb_comm *c,
                         const struct gcb_coll_desc *d, enum gcb_coll_dtype t,
                         enum gcb_coll_redop op, char *why, size_t why_len) {
  (void)c;
  if ((int)t < 0 || t >= GCB_COLL_DTYPE_COUNT || !mpi_types[t].ok) {
    snprintf(why, why_len, "MPI has no %s type", gcb_coll_dtype_name(t));
    return false;
  }
  if (d->reduces && op == GCB_REDOP_AVG) {
    snprintf(why, why_len, "MPI has no avg reduction");
    return false;
  }
  if (d->reduces &&
      ((int)op < 0 || op >= GCB_COLL_REDOP_COUNT || !mpi_ops[op].ok)) {
    snprintf(why, why_len, "MPI has no %s reduction", gcb_coll_redop_name(op));
    return false;
  }
  return true;
}

/* MPI_Reduce_scatter_block in place reads the whole buffer and leaves the
 * result at its start (MPI standard, 6.10.1), where nccl-tests expects
 * block `rank`. bibw has no in-place form (neither has osu_bibw). */
static bool mpi_inplace(const struct gcb_comm *c, const struct gcb_coll_desc *d,
                        struct gcb_coll_counts *counts, char *why,
                        size_t why_len) {
  (void)c;
  if (d->op == GCB_COLLOP_BIBW) { /* MPI: a pending send's buffer is
                                     not to be written (3.7.3) */
    snprintf(why, why_len,
             "bibw sends and receives at once: it has no in-place form");
    return false;
  }
  if (d->op == GCB_COLLOP_REDUCESCATTER)
    counts->recv_inplace_offset = 0;
  return true;
}

/* ---- memory -------------------------------------------------------------- */

static enum gcb_status mpi_alloc(struct gcb_comm *c, size_t bytes, void **buf,
                                 struct gcb_err *err) {
  (void)c;
  /* Refuse what cannot fit rather than let the OOM killer end the job
   * once the pages are touched, or mmap fail under `ulimit -v`. Read at
   * each allocation, so what earlier buffers took is counted. */
  struct gcb_hostmem mem;
  char what[64];
  gcb_hostmem_read(NULL, &mem);
  snprintf(what, sizeof what, "mpi: a %zu-byte buffer", bytes);
  enum gcb_status st = gcb_hostmem_fits(&mem, 1, bytes, 0, what, err);
  if (st != GCB_OK)
    return st;
  size_t rounded = (bytes + 63) / 64 * 64; /* aligned_alloc's contract */
  if (rounded < bytes || (*buf = aligned_alloc(64, rounded)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "mpi: cannot allocate %zu bytes",
                       bytes);
  return GCB_OK;
}

static void mpi_free(struct gcb_comm *c, void *buf) {
  (void)c;
  free(buf);
}

static enum gcb_status mpi_copy(struct gcb_comm *c, void *dst, const void *src,
                                size_t bytes, struct gcb_err *err) {
  (void)c, (void)err;
  memcpy(dst, src, bytes);
  return GCB_OK;
}

/* ---- operations ---------------------------------------------------------- */

/* One operation: returns the MPI code, names the call that gave it. */
typedef int run_fn(struct gcb_comm *c, const struct gcb_coll_call *k,
                   MPI_Datatype dt, MPI_Op op, const char **call);

#define SEND_OR_IN_PLACE(k) ((k)->inplace ? MPI_IN_PLACE : (k)->send)

static int run_allreduce(struct gcb_comm *c, const struct gcb_coll_call *k,
                         MPI_Datatype dt, MPI_Op op, const char **call) {
  *call = "MPI_Allreduce";
  return MPI_COUNTED(MPI_Allreduce, k->param, SEND_OR_IN_PLACE(k), k->recv,
                     (mpi_count)k->param, dt, op, c->comm);
}

/* In place, this rank's block already sits at recv + rank * param. */
static int run_allgather(struct gcb_comm *c, const struct gcb_coll_call *k,
                         MPI_Datatype dt, MPI_Op op, const char **call) {
  (void)op;
  *call = "MPI_Allgather";
  mpi_count n = (mpi_count)k->param;
  if (k->inplace)
    return MPI_COUNTED(MPI_Allgather, k->param, MPI_IN_PLACE, 0,
                       MPI_DATATYPE_NULL, k->recv, n, dt, c->comm);
  return MPI_COUNTED(MPI_Allgather, k->param, k->send, n, dt, k->recv, n, dt,
                     c->comm);
}

static int run_reducescatter(struct gcb_comm *c, const struct gcb_coll_call *k,
                             MPI_Datatype dt, MPI_Op op, const char **call) {
  *call = "MPI_Reduce_scatter_block";
  return MPI_COUNTED(MPI_Reduce_scatter_block, k->param, SEND_OR_IN_PLACE(k),
                     k->recv, (mpi_count)k->param, dt, op, c->comm);
}

static int run_broadcast(struct gcb_comm *c, const struct gcb_coll_call *k,
                         MPI_Datatype dt, MPI_Op op, const char **call) {
  (void)op;
  if (!k->inplace && c->rank == k->root)
    memcpy(k->recv, k->send, k->param * gcb_coll_dtype_size(k->dtype));
  *call = "MPI_Bcast";
  return MPI_COUNTED(MPI_Bcast, k->param, k->recv, (mpi_count)k->param, dt,
                     k->root, c->comm);
}

/* The receive buffer matters only at the root; elsewhere it is NULL, so
 * that in place (send == recv) is not taken for aliased arguments. */
static int run_reduce(struct gcb_comm *c, const struct gcb_coll_call *k,
                      MPI_Datatype dt, MPI_Op op, const char **call) {
  bool root = c->rank == k->root;
  *call = "MPI_Reduce";
  return MPI_COUNTED(MPI_Reduce, k->param, root ? SEND_OR_IN_PLACE(k) : k->send,
                     root ? k->recv : NULL, (mpi_count)k->param, dt, op,
                     k->root, c->comm);
}

static int run_alltoall(struct gcb_comm *c, const struct gcb_coll_call *k,
                        MPI_Datatype dt, MPI_Op op, const char **call) {
  (void)op;
  *call = "MPI_Alltoall";
  mpi_count n = (mpi_count)k->param;
  if (k->inplace)
    return MPI_COUNTED(MPI_Alltoall, k->param, MPI_IN_PLACE, 0,
                       MPI_DATATYPE_NULL, k->recv, n, dt, c->comm);
  return MPI_COUNTED(MPI_Alltoall, k->param, k->send, n, dt, k->recv, n, dt,
                     c->comm);
}

/* nccl-tests' ring: send to rank + 1, receive from rank - 1. */
static int run_sendrecv(struct gcb_comm *c, const struct gcb_coll_call *k,
                        MPI_Datatype dt, MPI_Op op, const char **call) {
  (void)op;
  int next = (c->rank + 1) % c->size, prev = (c->rank - 1 + c->size) % c->size;
  mpi_count n = (mpi_count)k->param;
  if (k->inplace) {
    *call = "MPI_Sendrecv_replace";
    return MPI_COUNTED(MPI_Sendrecv_replace, k->param, k->recv, n, dt, next,
                       TAG_RING, prev, TAG_RING, c->comm, MPI_STATUS_IGNORE);
  }
  *call = "MPI_Sendrecv";
  return MPI_COUNTED(MPI_Sendrecv, k->param, k->send, n, dt, next, TAG_RING,
                     k->recv, n, dt, prev, TAG_RING, c->comm,
                     MPI_STATUS_IGNORE);
}

/* osu_latency's round trip (osu_latency.c 7.4): separate send and receive
 * buffers on both sides, the responder answering from its own send buffer
 * (in place, one buffer: what it received). */
static int run_latency(struct gcb_comm *c, const struct gcb_coll_call *k,
                       MPI_Datatype dt, MPI_Op op, const char **call) {
  (void)op;
  int peer = gcb__coll_partner(c->rank, c->size), rc;
  mpi_count n = (mpi_count)k->param;
  if (peer < 0)
    return MPI_SUCCESS;
  if (c->rank < peer) {
    *call = "MPI_Send";
    rc = MPI_COUNTED(MPI_Send, k->param, k->send, n, dt, peer, TAG_PING,
                     c->comm);
    if (rc != MPI_SUCCESS)
      return rc;
    *call = "MPI_Recv";
    return MPI_COUNTED(MPI_Recv, k->param, k->recv, n, dt, peer, TAG_PONG,
                       c->comm, MPI_STATUS_IGNORE);
  }
  *call = "MPI_Recv";
  rc = MPI_COUNTED(MPI_Recv, k->param, k->recv, n, dt, peer, TAG_PING, c->comm,
                   MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS)
    return rc;
  *call = "MPI_Send";
  return MPI_COUNTED(MPI_Send, k->param, k->inplace ? k->recv : k->send, n, dt,
                     peer, TAG_PONG, c->comm);
}

/* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1, which GCC 12 takes for a
 * zero-sized array that MPI_Waitall would write into: a false alarm. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
static int wait_all(int n, MPI_Request *reqs) {
  return MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* osu_bw's window: `window` messages in flight, all from (or, as osu_bw
 * does, all into) the same buffer, then the receiver's zero-byte ack. */
static int run_window(struct gcb_comm *c, const struct gcb_coll_call *k,
                      MPI_Datatype dt, int peer, const char **call) {
  int w = gcb_coll_call_window(k), rc = MPI_SUCCESS;
  char ack = 0;
  bool sender = c->rank < peer;
  for (int i = 0; i < w && rc == MPI_SUCCESS; i++) {
    *call = sender ? "MPI_Isend" : "MPI_Irecv";
    rc = sender ? MPI_COUNTED(MPI_Isend, k->param, k->send, (mpi_count)k->param,
                              dt, peer, TAG_WINDOW, c->comm, &c->reqs[i])
                : MPI_COUNTED(MPI_Irecv, k->param, k->recv, (mpi_count)k->param,
                              dt, peer, TAG_WINDOW, c->comm, &c->reqs[i]);
  }
  if (rc != MPI_SUCCESS)
    return rc;
  *call = "MPI_Waitall";
  if ((rc = wait_all(w, c->reqs)) != MPI_SUCCESS)
    return rc;
  *call = sender ? "MPI_Recv" : "MPI_Send";
  return sender ? MPI_Recv(&ack, 0, MPI_BYTE, peer, TAG_ACK, c->comm,
                           MPI_STATUS_IGNORE)
                : MPI_Send(&ack, 0, MPI_BYTE, peer, TAG_ACK, c->comm);
}

/* Room for n requests; grows once, outside timed loops (the warm-up's
 * first operation). */
static int reserve_reqs(struct gcb_comm *c, int n, const char **call) {
  if (c->nreqs >= n)
    return MPI_SUCCESS;
  MPI_Request *r = realloc(c->reqs, sizeof *r * (size_t)n);
  *call = "realloc";
  if (r == NULL)
    return MPI_ERR_NO_MEM;
  c->reqs = r;
  c->nreqs = n;
  return MPI_SUCCESS;
}

static int run_bandwidth(struct gcb_comm *c, const struct gcb_coll_call *k,
                         MPI_Datatype dt, MPI_Op op, const char **call) {
  (void)op;
  int peer = gcb__coll_partner(c->rank, c->size);
  if (peer < 0)
    return MPI_SUCCESS;
  int rc = reserve_reqs(c, gcb_coll_call_window(k), call);
  return rc == MPI_SUCCESS ? run_window(c, k, dt, peer, call) : rc;
}

/* `w` non-blocking calls of one kind into reqs: receives into recv (one
 * buffer, as osu_bibw's default -b single) or sends from send. */
static int post_window(struct gcb_comm *c, const struct gcb_coll_call *k,
                       MPI_Datatype dt, int peer, bool send, int w,
                       MPI_Request *reqs, const char **call) {
  int rc = MPI_SUCCESS;
  mpi_count n = (mpi_count)k->param;
  *call = send ? "MPI_Isend" : "MPI_Irecv";
  for (int i = 0; i < w && rc == MPI_SUCCESS; i++)
    rc = send ? MPI_COUNTED(MPI_Isend, k->param, k->send, n, dt, peer, TAG_BIBW,
                            c->comm, &reqs[i])
              : MPI_COUNTED(MPI_Irecv, k->param, k->recv, n, dt, peer, TAG_BIBW,
                            c->comm, &reqs[i]);
  return rc;
}

/* osu_bibw's window (osu_bibw.c 7.4): both partners post `window`
 * MPI_Irecv, then `window` MPI_Isend; the lower rank (OSU's rank 0) waits
 * for its sends and then its receives, the higher one for its receives
 * and then its sends. No acknowledgement. */
static int run_bibw(struct gcb_comm *c, const struct gcb_coll_call *k,
                    MPI_Datatype dt, MPI_Op op, const char **call) {
  (void)op;
  int peer = gcb__coll_partner(c->rank, c->size), w = gcb_coll_call_window(k);
  if (peer < 0)
    return MPI_SUCCESS;
  int rc = reserve_reqs(c, 2 * w, call);
  MPI_Request *recvs = c->reqs, *sends = c->reqs + w;
  if (rc == MPI_SUCCESS)
    rc = post_window(c, k, dt, peer, false, w, recvs, call);
  if (rc == MPI_SUCCESS)
    rc = post_window(c, k, dt, peer, true, w, sends, call);
  bool lower = c->rank < peer;
  *call = "MPI_Waitall";
  if (rc == MPI_SUCCESS)
    rc = wait_all(w, lower ? sends : recvs);
  if (rc == MPI_SUCCESS)
    rc = wait_all(w, lower ? recvs : sends);
  return rc;
}

/* The receive buffer is read only at the root (NULL elsewhere, as
 * osu_gather.c's in-place call passes); in place the root's own block
 * already sits at recv + root * param, nccl-tests' layout and the MPI
 * standard's for MPI_IN_PLACE. */
static int run_gather(struct gcb_comm *c, const struct gcb_coll_call *k,
                      MPI_Datatype dt, MPI_Op op, const char **call) {
  (void)op;
  bool root = c->rank == k->root;
  mpi_count n = (mpi_count)k->param;
  *call = "MPI_Gather";
  return MPI_COUNTED(MPI_Gather, k->param,
                     root && k->inplace ? MPI_IN_PLACE : k->send, n, dt,
                     root ? k->recv : NULL, n, dt, k->root, c->comm);
}

/* The send buffer is read only at the root; in place the root's block
 * stays where it is (recv = send + root * param) and MPI_IN_PLACE stands
 * for its receive buffer, as osu_scatter.c's -l. */
static int run_scatter(struct gcb_comm *c, const struct gcb_coll_call *k,
                       MPI_Datatype dt, MPI_Op op, const char **call) {
  (void)op;
  bool root = c->rank == k->root;
  mpi_count n = (mpi_count)k->param;
  *call = "MPI_Scatter";
  return MPI_COUNTED(MPI_Scatter, k->param, root ? k->send : NULL, n, dt,
                     root && k->inplace ? MPI_IN_PLACE : k->recv, n, dt,
                     k->root, c->comm);
}

static int run_barrier(struct gcb_comm *c, const struct gcb_coll_call *k,
                       MPI_Datatype dt, MPI_Op op, const char **call) {
  (void)k, (void)dt, (void)op;
  *call = "MPI_Barrier";
  return MPI_Barrier(c->comm);
}

static run_fn *const runners[GCB_COLLOP_COUNT] = {
    [GCB_COLLOP_ALLREDUCE] = run_allreduce,
    [GCB_COLLOP_ALLGATHER] = run_allgather,
    [GCB_COLLOP_REDUCESCATTER] = run_reducescatter,
    [GCB_COLLOP_BROADCAST] = run_broadcast,
    [GCB_COLLOP_REDUCE] = run_reduce,
    [GCB_COLLOP_ALLTOALL] = run_alltoall,
    [GCB_COLLOP_SENDRECV] = run_sendrecv,
    [GCB_COLLOP_LATENCY] = run_latency,
    [GCB_COLLOP_BANDWIDTH] = run_bandwidth,
    [GCB_COLLOP_BARRIER] = run_barrier,
    [GCB_COLLOP_GATHER] = run_gather,
    [GCB_COLLOP_SCATTER] = run_scatter,
    [GCB_COLLOP_BIBW] = run_bibw,
};

static enum gcb_status mpi_start(struct gcb_comm *c,
                                 const struct gcb_coll_call *k,
                                 struct gcb_err *err) {
  enum gcb_coll_op id = k->desc->op;
  const char *call = "?";
  if ((int)id < 0 || id >= GCB_COLLOP_COUNT || runners[id] == NULL ||
      !mpi_types[k->dtype].ok)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "mpi: %s %s not supported",
                       k->desc->name, gcb_coll_dtype_name(k->dtype));
  if (mpi_form(k->param) == MPI_FORM_TOO_LARGE)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "mpi: count %zu exceeds this MPI's count limit %zu",
                       k->param, MPI_COUNT_LIMIT);
  if (k->desc->reduces && !mpi_ops[k->redop].ok)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "mpi: no %s reduction",
                       gcb_coll_redop_name(k->redop));
  /* Non-reducing operations get a placeholder operator they never read. */
  MPI_Op op = k->desc->reduces ? mpi_ops[k->redop].op : MPI_SUM;
  int rc = runners[id](c, k, mpi_types[k->dtype].type, op, &call);
  return rc == MPI_SUCCESS ? GCB_OK : gcb_mpi_err(err, rc, call);
}

/* ---- non-blocking operations (istart, test) ------------------------------ */

typedef int irun_fn(struct gcb_comm *c, const struct gcb_coll_call *k,
                    MPI_Datatype dt, MPI_Op op, MPI_Request *req,
                    const char **call);

static int irun_allreduce(struct gcb_comm *c, const struct gcb_coll_call *k,
                          MPI_Datatype dt, MPI_Op op, MPI_Request *req,
                          const char **call) {
  *call = "MPI_Iallreduce";
  return MPI_COUNTED(MPI_Iallreduce, k->param, SEND_OR_IN_PLACE(k), k->recv,
                     (mpi_count)k->param, dt, op, c->comm, req);
}

static int irun_allgather(struct gcb_comm *c, const struct gcb_coll_call *k,
                          MPI_Datatype dt, MPI_Op op, MPI_Request *req,
                          const char **call) {
  (void)op;
  *call = "MPI_Iallgather";
  mpi_count n = (mpi_count)k->param;
  if (k->inplace)
    return MPI_COUNTED(MPI_Iallgather, k->param, MPI_IN_PLACE, 0,
                       MPI_DATATYPE_NULL, k->recv, n, dt, c->comm, req);
  return MPI_COUNTED(MPI_Iallgather, k->param, k->send, n, dt, k->recv, n, dt,
                     c->comm, req);
}

static int irun_reducescatter(struct gcb_comm *c, const struct gcb_coll_call *k,
                              MPI_Datatype dt, MPI_Op op, MPI_Request *req,
                              const char **call) {
  *call = "MPI_Ireduce_scatter_block";
  return MPI_COUNTED(MPI_Ireduce_scatter_block, k->param, SEND_OR_IN_PLACE(k),
                     k->recv, (mpi_count)k->param, dt, op, c->comm, req);
}

static int irun_broadcast(struct gcb_comm *c, const struct gcb_coll_call *k,
                          MPI_Datatype dt, MPI_Op op, MPI_Request *req,
                          const char **call) {
  (void)op;
  if (!k->inplace && c->rank == k->root)
    memcpy(k->recv, k->send, k->param * gcb_coll_dtype_size(k->dtype));
  *call = "MPI_Ibcast";
  return MPI_COUNTED(MPI_Ibcast, k->param, k->recv, (mpi_count)k->param, dt,
                     k->root, c->comm, req);
}

static int irun_alltoall(struct gcb_comm *c, const struct gcb_coll_call *k,
                         MPI_Datatype dt, MPI_Op op, MPI_Request *req,
                         const char **call) {
  (void)op;
  *call = "MPI_Ialltoall";
  mpi_count n = (mpi_count)k->param;
  if (k->inplace)
    return MPI_COUNTED(MPI_Ialltoall, k->param, MPI_IN_PLACE, 0,
                       MPI_DATATYPE_NULL, k->recv, n, dt, c->comm, req);
  return MPI_COUNTED(MPI_Ialltoall, k->param, k->send, n, dt, k->recv, n, dt,
                     c->comm, req);
}

static irun_fn *const irunners[GCB_COLLOP_COUNT] = {
    [GCB_COLLOP_ALLREDUCE] = irun_allreduce,
    [GCB_COLLOP_ALLGATHER] = irun_allgather,
    [GCB_COLLOP_REDUCESCATTER] = irun_reducescatter,
    [GCB_COLLOP_BROADCAST] = irun_broadcast,
    [GCB_COLLOP_ALLTOALL] = irun_alltoall,
};

/* Room for one more pending request; grows outside timed loops after
 * the first step. */
static bool grow_pending(struct gcb_comm *c) {
  if (c->npending < c->cap_pending)
    return true;
  int cap = c->cap_pending ? 2 * c->cap_pending : 16;
  MPI_Request *r = realloc(c->pending, sizeof *r * (size_t)cap);
  if (r == NULL)
    return false;
  c->pending = r;
  c->cap_pending = cap;
  return true;
}

static enum gcb_status mpi_istart(struct gcb_comm *c,
                                  const struct gcb_coll_call *k,
                                  struct gcb_err *err) {
  enum gcb_coll_op id = k->desc->op;
  const char *call = "?";
  if ((int)id < 0 || id >= GCB_COLLOP_COUNT || irunners[id] == NULL ||
      !mpi_types[k->dtype].ok || (k->desc->reduces && !mpi_ops[k->redop].ok))
    return gcb_err_set(err, GCB_EUNSUPPORTED, "mpi: no non-blocking %s %s",
                       k->desc->name, gcb_coll_dtype_name(k->dtype));
  if (mpi_form(k->param) == MPI_FORM_TOO_LARGE)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "mpi: count %zu exceeds this MPI's count limit %zu",
                       k->param, MPI_COUNT_LIMIT);
  if (!grow_pending(c))
    return gcb_err_set(err, GCB_ENOMEM, "mpi: no memory for a request");
  MPI_Op op = k->desc->reduces ? mpi_ops[k->redop].op : MPI_SUM;
  int rc = irunners[id](c, k, mpi_types[k->dtype].type, op,
                        &c->pending[c->npending], &call);
  if (rc != MPI_SUCCESS)
    return gcb_mpi_err(err, rc, call);
  c->npending++;
  return GCB_OK;
}

/* The same false alarm as wait_all()'s (see there). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
static int test_all(int n, MPI_Request *reqs, int *flag) {
  return MPI_Testall(n, reqs, flag, MPI_STATUSES_IGNORE);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static enum gcb_status mpi_test(struct gcb_comm *c, bool *done,
                                struct gcb_err *err) {
  int flag = 1, rc = MPI_SUCCESS;
  if (c->npending > 0)
    rc = test_all(c->npending, c->pending, &flag);
  if (rc != MPI_SUCCESS)
    return gcb_mpi_err(err, rc, "MPI_Testall");
  if (flag)
    c->npending = 0;
  *done = flag != 0;
  return GCB_OK;
}

/* start() ran its operations to completion; istart()'s are waited here. */
static enum gcb_status mpi_wait(struct gcb_comm *c, struct gcb_err *err) {
  int rc = c->npending > 0 ? wait_all(c->npending, c->pending) : MPI_SUCCESS;
  c->npending = 0;
  return rc == MPI_SUCCESS ? GCB_OK : gcb_mpi_err(err, rc, "MPI_Waitall");
}

/* netmap's exchange with one peer: every receive and send posted at
 * once, then each waited for; the first failure is the one reported. */
static enum gcb_status mpi_exchange(struct gcb_comm *c,
                                    const struct gcb_coll_xfer *x,
                                    struct gcb_err *err) {
  const char *call = "MPI_Irecv";
  if (x->peer < 0 || x->peer >= c->size || x->peer == c->rank || x->sends < 0 ||
      x->recvs < 0)
    return gcb_err_set(err, GCB_EINTERNAL, "mpi: exchange with rank %d of %d",
                       x->peer, c->size);
  if (mpi_form(x->bytes) == MPI_FORM_TOO_LARGE)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "mpi: %zu bytes exceed this MPI's count limit %zu",
                       x->bytes, MPI_COUNT_LIMIT);
  int n = x->sends + x->recvs, posted = 0;
  int rc = reserve_reqs(c, n > 0 ? n : 1, &call);
  mpi_count len = (mpi_count)x->bytes;
  for (int i = 0; rc == MPI_SUCCESS && i < x->recvs; i++)
    if ((rc = MPI_COUNTED(MPI_Irecv, x->bytes,
                          (char *)x->recv + (size_t)i * x->bytes, len, MPI_BYTE,
                          x->peer, TAG_XFER, c->comm, &c->reqs[posted])) ==
        MPI_SUCCESS)
      posted++;
  if (rc == MPI_SUCCESS)
    call = "MPI_Isend";
  for (int i = 0; rc == MPI_SUCCESS && i < x->sends; i++)
    if ((rc = MPI_COUNTED(MPI_Isend, x->bytes, x->send, len, MPI_BYTE, x->peer,
                          TAG_XFER, c->comm, &c->reqs[posted])) == MPI_SUCCESS)
      posted++;
  /* What was posted completes before the buffers can go, even after a
   * failure. */
  int w = posted > 0 ? wait_all(posted, c->reqs) : MPI_SUCCESS;
  if (rc == MPI_SUCCESS && w != MPI_SUCCESS)
    rc = w, call = "MPI_Waitall";
  return rc == MPI_SUCCESS ? GCB_OK : gcb_mpi_err(err, rc, call);
}

const struct gcb_coll_ops gcb_coll_mpi = {
    .name = "mpi",
    .description = "MPI collectives on host memory",
    .usable = mpi_usable,
    .open = mpi_open,
    .close = mpi_close,
    .supports = mpi_supports,
    .inplace = mpi_inplace,
    .alloc = mpi_alloc,
    .free = mpi_free,
    .upload = mpi_copy,
    .download = mpi_copy,
    .start = mpi_start,
    .wait = mpi_wait,
    .istart = mpi_istart,
    .test = mpi_test,
    .exchange = mpi_exchange,
    .version = mpi_version,
};
