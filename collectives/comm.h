/*
 * Collectives: what each collective means, apart from how it is carried.
 *
 * Semantics live in one table (struct gcb_coll_desc rows in ops.c: names,
 * element counts per rank following nccl-tests, bus-bandwidth factor,
 * expected values for validation). Transports (mpi.c on host memory,
 * nccl.c on device memory) are ops structs that only move bytes: allocate,
 * copy to and from host, start one operation, wait. The runner (runner.c)
 * combines the two: it prepares the buffers of one case with a
 * deterministic input pattern, runs the operation, and counts wrong
 * elements against the table's expected values.
 *
 * Errors follow common/status.h: a status is returned, detail in err.
 */
#ifndef GCB_COMM_H
#define GCB_COMM_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/status.h"

/* Element types, named as in nccl-tests (-d). */
#define GCB_COLL_DTYPE_LIST(X)                                                 \
  X(INT8, "int8", 1)                                                           \
  X(UINT8, "uint8", 1)                                                         \
  X(INT32, "int32", 4)                                                         \
  X(UINT32, "uint32", 4)                                                       \
  X(INT64, "int64", 8)                                                         \
  X(UINT64, "uint64", 8)                                                       \
  X(HALF, "half", 2)                                                           \
  X(FLOAT, "float", 4)                                                         \
  X(DOUBLE, "double", 8)                                                       \
  X(BFLOAT16, "bfloat16", 2)                                                   \
  X(F8E4M3, "f8e4m3", 1)                                                       \
  X(F8E5M2, "f8e5m2", 1)

enum gcb_coll_dtype {
#define GCB__CD_ENUM(id, name, bytes) GCB_COLL_##id,
  GCB_COLL_DTYPE_LIST(GCB__CD_ENUM)
#undef GCB__CD_ENUM
      GCB_COLL_DTYPE_COUNT
};

/* Reduction operators, named as in nccl-tests (-o). */
#define GCB_COLL_REDOP_LIST(X)                                                 \
  X(SUM, "sum")                                                                \
  X(PROD, "prod")                                                              \
  X(MAX, "max")                                                                \
  X(MIN, "min")                                                                \
  X(AVG, "avg")

enum gcb_coll_redop {
#define GCB__RO_ENUM(id, name) GCB_REDOP_##id,
  GCB_COLL_REDOP_LIST(GCB__RO_ENUM)
#undef GCB__RO_ENUM
      GCB_COLL_REDOP_COUNT
};

const char *gcb_coll_dtype_name(enum gcb_coll_dtype t);
size_t gcb_coll_dtype_size(enum gcb_coll_dtype t);
const char *gcb_coll_redop_name(enum gcb_coll_redop op);

/* Element counts of one operation on one rank. */
struct gcb_coll_counts {
  size_t send;           /* elements in the send buffer */
  size_t recv;           /* elements in the receive buffer */
  size_t param;          /* count passed to the library call */
  size_t bytes;          /* S of algbw = S / t, as nccl-tests reports it */
  size_t inplace_offset; /* in-place: send buffer starts this many
                            elements into the one buffer (below) */
  /* In place, both buffers lie in one allocation of
   * max(inplace_offset + send, recv_inplace_offset + recv) elements: the
   * send buffer at inplace_offset, the receive buffer at
   * recv_inplace_offset (nccl-tests' recvInplaceOffset * rank: non-zero
   * only for reducescatter, whose result is block `rank` of the input). */
  size_t recv_inplace_offset;
  /* The case runs in place (set by the runner; false from
   * gcb_coll_desc_counts): a ping-pong's responder then can only return
   * what it received, out of place it sends its own buffer, as OSU. */
  bool inplace;
};

/* Operations, in the order of gcb_coll_descs[]; transports index their
 * per-operation tables with it. */
#define GCB_COLL_OP_LIST(X)                                                    \
  X(ALLREDUCE)                                                                 \
  X(ALLGATHER)                                                                 \
  X(REDUCESCATTER)                                                             \
  X(BROADCAST)                                                                 \
  X(REDUCE)                                                                    \
  X(ALLTOALL)                                                                  \
  X(SENDRECV)                                                                  \
  X(LATENCY)                                                                   \
  X(BANDWIDTH)                                                                 \
  X(BARRIER)                                                                   \
  X(GATHER)                                                                    \
  X(SCATTER)                                                                   \
  X(BIBW)

enum gcb_coll_op {
#define GCB__OP_ENUM(id) GCB_COLLOP_##id,
  GCB_COLL_OP_LIST(GCB__OP_ENUM)
#undef GCB__OP_ENUM
      GCB_COLLOP_COUNT
};

/*
 * Where the expected value of one received element comes from, for
 * validation: element `elem` of rank `rank`'s input (data movement), the
 * reduction over every rank of input element `elem`, or nothing: the
 * operation must leave the element as it was (reduce and gather on
 * non-root ranks, the sender's buffer of a bandwidth test).
 */
enum gcb_coll_from {
  GCB_COLL_FROM_RANK,
  GCB_COLL_FROM_ALL,
  GCB_COLL_FROM_NONE
};

struct gcb_coll_source {
  enum gcb_coll_from from;
  int rank;    /* FROM_RANK: whose input */
  size_t elem; /* FROM_RANK, FROM_ALL: which input element */
};

/*
 * One collective (or point-to-point pattern). `count` below is nccl-tests'
 * count: size in bytes / element size, before rounding to what the
 * operation can divide among ranks.
 */
struct gcb_coll_desc {
  const char *name; /* "allreduce" ... as on the command line */
  bool reduces;     /* takes a reduction operator */
  bool rooted;      /* takes a root rank */
  bool pairwise;    /* point-to-point between rank pairs */
  /* Counts for this rank; false when `count` is too small for nranks.
   * out->bytes is in elements here: gcb_coll_desc_counts(), which callers
   * use, aligns the count first and scales bytes by the element size. */
  bool (*counts)(size_t count, int rank, int nranks, int root,
                 struct gcb_coll_counts *out);
  /* busbw = algbw * factor (nccl-tests' factors). */
  double (*bus_factor)(int nranks);
  /* Reported time = measured time * time_scale (ping-pong latency: 0.5,
   * one way of a round trip); 0 means 1. */
  double time_scale;
  enum gcb_coll_op op; /* which operation: transports dispatch on it */
  /* Messages per operation of a windowed pattern (bandwidth: 64, as
   * osu_bw), 0 otherwise; time_scale is then 1 / window, so the reported
   * time is per message and algbw = window * bytes / measured time. */
  int window;
  /* Per-rank blocks are rounded down to a multiple of align_bytes (newest
   * nccl-tests: (count/nranks) & -(16/eltSize)); 0: no rounding. Applied
   * by gcb_coll_desc_counts() before counts(). */
  size_t align_bytes;
  /* Where receive element j of `rank` comes from (see above), given this
   * rank's counts; inplace changes nothing (the runner lays buffers out so
   * that the same answer holds in place) but a ping-pong's, which reads
   * c->inplace. */
  void (*source)(const struct gcb_coll_counts *c, size_t j, int rank,
                 int nranks, int root, struct gcb_coll_source *out);
};

/* Every collective, NULL-terminated. */
extern const struct gcb_coll_desc *const gcb_coll_descs[];
const struct gcb_coll_desc *gcb_coll_find(const char *name);

/*
 * Counts of `d` for `count` elements of type t on `rank`, exactly as
 * nccl-tests computes them (align_bytes applied, then d->counts); callers
 * use this rather than d->counts. False when the count rounds to nothing
 * for nranks, or the pattern needs more ranks (pairwise: 2).
 */
bool gcb_coll_desc_counts(const struct gcb_coll_desc *d, size_t count,
                          enum gcb_coll_dtype t, int rank, int nranks, int root,
                          struct gcb_coll_counts *out);

/* Where a transport runs, given by the caller. */
struct gcb_coll_env {
  MPI_Comm comm; /* the communicator to measure over */
  int rank, size;
  int device; /* CUDA device of this rank (nccl); -1 on host */
  /* When blocking waits give up: an absolute CLOCK_MONOTONIC time in
   * seconds, the deadline of the case the rank is in (the watchdog's),
   * read at every poll; NULL, or a value <= 0: never. Owned by the
   * caller, alive until close(). A transport whose calls can be polled
   * (nccl) returns GCB_ETIMEOUT past it and aborts at close(). */
  const volatile double *deadline;
};

/*
 * How the NCCL transport makes its communicators, from the header it was
 * built against, the loaded library's version and whether ncclCommSplit
 * resolved (it is a weak reference): operations are always timed on a
 * blocking communicator (timed_blocking, as nccl-tests); where the
 * library can split (2.18+ in both), the first communicator is
 * non-blocking, so its set-up is polled within the deadline and can be
 * aborted, and the timed one is a blocking child split from it.
 */
struct gcb_coll_nccl_plan {
  bool init_nonblocking; /* ncclConfig_t.blocking = 0 for the first */
  bool split_blocking;   /* then ncclCommSplit with blocking = 1 */
  bool timed_blocking;   /* the communicator operations run on */
  bool nvlink_centric;   /* config.nvlinkCentricSched = 1 on every
                            communicator: the header is 2.28+ (nccl-tests'
                            initComms, by the header as it does) */
};
struct gcb_coll_nccl_plan gcb_coll_nccl_plan(int header_code, int library_code,
                                             bool have_split);

/* Whether the deadline (see struct gcb_coll_env) has passed at `now`. */
bool gcb_coll_deadline_passed(const volatile double *deadline, double now);

struct gcb_comm; /* an opened transport (private) */

/* One operation to start: buffers come from the transport's alloc(). */
struct gcb_coll_call {
  const struct gcb_coll_desc *desc;
  enum gcb_coll_dtype dtype;
  enum gcb_coll_redop redop;
  int root;
  size_t count; /* nccl-tests count; see counts() */
  bool inplace;
  const void *send; /* in place: both in one buffer, at the offsets
                       of struct gcb_coll_counts */
  void *recv;
  size_t param; /* counts.param: the count the library call
                   takes (the runner fills it in) */
  int window;   /* messages per window of a windowed pattern (OSU's -W);
                   0: the pattern's own (desc->window) */
};

/* The window a call runs: its own, else its pattern's. */
static inline int gcb_coll_call_window(const struct gcb_coll_call *k) {
  return k->window > 0 ? k->window : k->desc->window;
}

/*
 * Point-to-point with one peer (netmap): `sends` messages of `bytes` from
 * `send` (the same buffer each time) and `recvs` messages into consecutive
 * blocks of `bytes` of `recv`, all in flight together. Buffers come from
 * the transport's alloc().
 */
struct gcb_coll_xfer {
  int peer; /* rank in the transport's communicator, not this rank */
  const void *send;
  int sends;
  void *recv;
  int recvs;
  size_t bytes;
};

struct gcb_coll_ops {
  const char *name;
  const char *description;
  bool device_memory; /* buffers live on the rank's GPU (else host memory) */
  /* Whether this transport can run here; false with a reason. */
  bool (*usable)(char *why, size_t why_len);
  enum gcb_status (*open)(const struct gcb_coll_env *env, struct gcb_comm **out,
                          struct gcb_err *err);
  /* Frees everything; NULL is a no-op. */
  void (*close)(struct gcb_comm *c);
  /* Whether this (collective, dtype, redop) combination exists here. */
  bool (*supports)(const struct gcb_comm *c, const struct gcb_coll_desc *d,
                   enum gcb_coll_dtype t, enum gcb_coll_redop op, char *why,
                   size_t why_len);
  /*
   * Optional (NULL: every operation, in nccl-tests' layout). Whether `d`
   * has an in-place form here (false with a reason), and the library's own
   * in-place layout written into *counts' offsets where it differs from
   * nccl-tests' (MPI_Reduce_scatter_block leaves its result at the start
   * of the buffer).
   */
  bool (*inplace)(const struct gcb_comm *c, const struct gcb_coll_desc *d,
                  struct gcb_coll_counts *counts, char *why, size_t why_len);
  enum gcb_status (*alloc)(struct gcb_comm *c, size_t bytes, void **buf,
                           struct gcb_err *err);
  void (*free)(struct gcb_comm *c, void *buf);
  enum gcb_status (*upload)(struct gcb_comm *c, void *dst, const void *src,
                            size_t bytes, struct gcb_err *err);
  enum gcb_status (*download)(struct gcb_comm *c, void *dst, const void *src,
                              size_t bytes, struct gcb_err *err);
  /* Starts one operation (MPI: runs it; NCCL: enqueues it). */
  enum gcb_status (*start)(struct gcb_comm *c, const struct gcb_coll_call *call,
                           struct gcb_err *err);
  /* Waits until every started operation has completed. */
  enum gcb_status (*wait)(struct gcb_comm *c, struct gcb_err *err);
  /*
   * Optional (NULL: none, as MPI has). Bracket the operations of one
   * aggregated iteration (nccl-tests' -m: ncclGroupStart, agg_iters
   * startColl, ncclGroupEnd), so the library launches them together.
   * group_end() follows every group_begin() that succeeded, whatever
   * happened between.
   */
  enum gcb_status (*group_begin)(struct gcb_comm *c, struct gcb_err *err);
  enum gcb_status (*group_end)(struct gcb_comm *c, struct gcb_err *err);
  /*
   * Optional non-blocking pair, for overlap of communication with compute
   * (the pattern benchmark). istart() starts one operation and returns
   * before it completes (MPI: the MPI_I* call; NCCL: start(), which only
   * enqueues); wait() completes it. test() sets *done when every operation
   * started has completed, without blocking, and gives the library a
   * chance to progress (MPI_Testall). NULL: the transport has no such
   * form (GCB_EUNSUPPORTED from the runner). Only allreduce, allgather,
   * reducescatter, broadcast and alltoall need one.
   */
  enum gcb_status (*istart)(struct gcb_comm *c,
                            const struct gcb_coll_call *call,
                            struct gcb_err *err);
  enum gcb_status (*test)(struct gcb_comm *c, bool *done, struct gcb_err *err);
  /*
   * Optional (NULL: the transport has no point-to-point; netmap says so).
   * One exchange with one peer, complete when it returns: NCCL
   * ncclGroupStart, the sends, the receives, ncclGroupEnd, then the
   * stream synchronised (nccl-tests' sendrecv); MPI MPI_Isend / MPI_Irecv,
   * then a wait for each. GCB_EINTERNAL for a peer out of range or itself.
   */
  enum gcb_status (*exchange)(struct gcb_comm *c, const struct gcb_coll_xfer *x,
                              struct gcb_err *err);
  /* Library version, e.g. "MPICH 4.0.2" or "NCCL 2.28.9". */
  void (*version)(char *buf, size_t len);
  /* NCCL's version codes, as nccl-tests' first line prints them
   * (nccl-headers: NCCL_VERSION_CODE built against, nccl-library:
   * ncclGetVersion, 0 when it fails). NULL: the transport is not NCCL. */
  void (*version_codes)(int *headers, int *library);
};

/* The nccl transport's description, shared by its table in the CUDA
 * module (nccl.c) and its row in gcbench (nccl_row.c). */
#define GCB_COLL_NCCL_DESCRIPTION                                              \
  "NCCL collectives on device memory, one GPU per rank"

/* Every transport compiled in, NULL-terminated. */
extern const struct gcb_coll_ops *const gcb_coll_transports[];
const struct gcb_coll_ops *gcb_coll_transport_find(const char *name);

/*
 * A prepared case: buffers allocated through the transport, the send
 * buffer filled with the deterministic pattern of (rank, element), and the
 * receive buffer poisoned, so that validation sees only what the
 * operation wrote.
 */
struct gcb_coll_case;

/*
 * Prepares a case. GCB_EUNSUPPORTED (reason in err) when the transport
 * lacks the combination or count is too small for the ranks; GCB_ENOMEM
 * naming the bytes when buffers cannot be allocated.
 */
enum gcb_status gcb_coll_case_new(const struct gcb_coll_ops *ops,
                                  struct gcb_comm *comm,
                                  const struct gcb_coll_env *env,
                                  const struct gcb_coll_call *shape,
                                  struct gcb_coll_case **out,
                                  struct gcb_err *err);

/* Counts of this case on this rank. */
const struct gcb_coll_counts *
gcb_coll_case_counts(const struct gcb_coll_case *k);

/* Starts `reps` operations back to back, then waits for them. */
enum gcb_status gcb_coll_case_run(struct gcb_coll_case *k, int reps,
                                  struct gcb_err *err);

/* nccl-tests' timed loop with -m: `iters` iterations of `agg` operations
 * each, every iteration in one group of the transport's (group_begin /
 * group_end) when agg > 1, then one wait for them all. */
enum gcb_status gcb_coll_case_run_agg(struct gcb_coll_case *k, int iters,
                                      int agg, struct gcb_err *err);

/* Waits for every operation started on the case's transport. */
enum gcb_status gcb_coll_case_wait(struct gcb_coll_case *k,
                                   struct gcb_err *err);

/*
 * Non-blocking start (the transport's istart: GCB_EUNSUPPORTED, naming
 * the transport, when it has none), and whether everything started on
 * the case's transport has completed (*done), without blocking.
 * gcb_coll_case_wait() completes what istart began.
 */
enum gcb_status gcb_coll_case_istart(struct gcb_coll_case *k,
                                     struct gcb_err *err);
enum gcb_status gcb_coll_case_test(struct gcb_coll_case *k, bool *done,
                                   struct gcb_err *err);

/* From now on gcb_coll_case_run() and gcb_coll_case_check() start the
 * case's operations with istart(), so that validation checks what the
 * non-blocking form computes; false (nothing changed) when the transport
 * has no istart(). */
bool gcb_coll_case_use_istart(struct gcb_coll_case *k);

/*
 * Re-initialises the buffers, runs the operation once, and counts received
 * elements that differ from the expected values (exact comparison; types
 * whose result is not exactly representable compare within one unit in
 * the last place; avg on floating types, which NCCL computes as a sum of
 * x * (1/n), within two, as nccl-tests). *checked is the number of
 * elements compared.
 */
enum gcb_status gcb_coll_case_check(struct gcb_coll_case *k, uint64_t *wrong,
                                    uint64_t *checked, struct gcb_err *err);

/* Test-only fault: the next check sees one corrupted received element. */
void gcb_coll_case_corrupt_next(struct gcb_coll_case *k);

/* Frees the case's buffers; NULL is a no-op. */
void gcb_coll_case_free(struct gcb_coll_case *k);

#endif
