/*
 * Internal to the CUDA backend: the opened backend's state and the helpers
 * its files share (cuda.c, cuda_membw.c, cuda_gemm.c, cuda_pcie.c,
 * cuda_p2p.c, cuda_launch.c, cuda_health.c). Not part of any public face:
 * benchmarks see only kernels/backend.h.
 *
 * Every CUDA runtime and cuBLASLt return code is checked where it is made
 * and turned into GCB_ECUDA with the failing call named (CUDA_CHECK).
 */
#ifndef GCB_CUDA_IMPL_H
#define GCB_CUDA_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "kernels/backend.h"

struct gcb__cuda_gemm_ctx;  /* cuda_gemm.c: cuBLASLt handle and workspace */
struct gcb__cuda_telemetry; /* cuda_health.c: the NVML sampler */

/* One opened backend: the rank's device and what timing needs. */
struct gcb_backend {
  int device;       /* CUDA ordinal among the visible devices */
  int device_count; /* devices visible to this process */
  int cc_major, cc_minor, sm_count;
  size_t l2_bytes;
  cudaStream_t stream;  /* non-blocking: never serialised with stream 0 */
  cudaStream_t stream2; /* the second direction of bidirectional copies */
  cudaEvent_t start, stop, mid;
  volatile int *gate;              /* host-mapped flag of the gate kernel */
  int *gate_dev;                   /* its device address */
  struct gcb__cuda_gemm_ctx *gemm; /* made by the first GEMM */
  struct gcb__cuda_telemetry *telemetry; /* made by the first start */
  void *hwloc; /* hwloc_topology_t, loaded by the first NUMA copy */
};

/* Turns a CUDA return code into a status naming the call; clears the
 * runtime's sticky last error so later checks report their own. */
enum gcb_status gcb__cuda_check(struct gcb_err *err, cudaError_t rc,
                                const char *call);
#define CUDA_CHECK(err, call) gcb__cuda_check((err), (call), #call)

/* A kernel launcher's return code (an int holding a cudaError_t). */
enum gcb_status gcb__cuda_launched(struct gcb_err *err, int rc,
                                   const char *what);

/* Makes b's device current for this thread (cheap when it already is). */
enum gcb_status gcb__cuda_use(const struct gcb_backend *b, struct gcb_err *err);

/*
 * Gated timing on b->stream: gcb__cuda_gate_begin() closes the gate
 * (enqueues the spinning kernel) and records b->start behind it; the caller
 * enqueues its work; gcb__cuda_gate_end() records b->stop, opens the gate,
 * waits, and returns the elapsed seconds. Work on b->stream2 must wait for
 * b->start (cudaStreamWaitEvent) and be joined to b->stream before _end.
 * Call _end after a successful _begin whatever happened in between, with
 * the status so far: when st is not GCB_OK it only opens the gate, drains
 * both streams and returns st (err untouched). A _begin that fails has
 * done that itself: no _end follows it.
 */
enum gcb_status gcb__cuda_gate_begin(struct gcb_backend *b,
                                     struct gcb_err *err);
enum gcb_status gcb__cuda_gate_end(struct gcb_backend *b, enum gcb_status st,
                                   double *seconds, struct gcb_err *err);

/*
 * The one timing rule of the gated operations (GEMM, device memory, pinned
 * host copies): `prepare` (may be NULL) is enqueued first, untimed (an L2
 * flush, a rewrite of the output); then the gate closes, b->start is
 * recorded behind it, each of `reps` repetitions enqueues `batch` calls of
 * `work`, b->stop is recorded and the gate opens, so the events see the
 * GPU's work and none of the host's enqueueing (nvbandwidth's spin kernel,
 * memcpy.cpp). *seconds is the elapsed time divided by batch: the time of
 * `reps` repetitions of one call, each sample averaging `batch` calls
 * (nvbandwidth's loopCount, 16 by default). On failure the gate is opened
 * and both streams drained before returning. `ungated` times the same way
 * with plain events (no gate).
 */
typedef enum gcb_status gcb__cuda_enqueue_fn(void *state, struct gcb_err *err);
struct gcb__cuda_timed {
  void *state;
  gcb__cuda_enqueue_fn *prepare; /* untimed, before the gate; NULL: none */
  gcb__cuda_enqueue_fn *work;    /* one call, on b->stream (and stream2) */
  int batch;                     /* calls per repetition, >= 1 */
  bool stream2; /* work also uses b->stream2: it starts behind b->start */
  bool join;    /* stream2 joins b->stream before b->stop (else it is timed
                   out of the figure, and synchronised after b->stop) */
  bool ungated; /* pageable host copies: the driver stages them from the
                   calling thread, so a gate would block the caller */
  /* stream2's call, enqueued from a second host thread while this one
   * enqueues `work` (then b->stream's call only). Pageable copies need it:
   * a D2H cudaMemcpyAsync from pageable memory returns only when the copy
   * is done, so from one thread the two directions take turns. The thread
   * is made before b->start and released together with this one behind it;
   * it is joined before the join (join) or after b->stop (not joined, the
   * other direction then timed out of the figure). NULL: none. */
  gcb__cuda_enqueue_fn *work2;
};
enum gcb_status gcb__cuda_time_gated(struct gcb_backend *b,
                                     const struct gcb__cuda_timed *t, int reps,
                                     double *seconds, struct gcb_err *err);

/* Calls per latency sample of a copy (nvbandwidth common.h defaultLoopCount:
 * 16), so the ~0.5 us resolution of CUDA events is spread over 16 copies. */
#define GCB__CUDA_COPIES_PER_SAMPLE 16

/* How long a gate holds its stream at most: far longer than any enqueue,
 * short enough that a failed host does not leave the GPU spinning long. */
#define GCB__CUDA_GATE_TIMEOUT_MS 2000

/* Free device memory check with a clear GCB_ENOMEM naming `what`. */
enum gcb_status gcb__cuda_reserve(size_t bytes, const char *what,
                                  struct gcb_err *err);

/* Lower-case PCI bus id of ordinal `device`, "0000:19:00.0". */
enum gcb_status gcb__cuda_bus_id(int device, char *buf, size_t len,
                                 struct gcb_err *err);

/* The operations, one file each. */
enum gcb_status gcb__cuda_stream(struct gcb_backend *b,
                                 const struct gcb_stream_params *p,
                                 struct gcb_op *op, struct gcb_err *err);
enum gcb_status gcb__cuda_gemm(struct gcb_backend *b,
                               const struct gcb_gemm_params *p,
                               struct gcb_op *op, struct gcb_err *err);
void gcb__cuda_gemm_close(struct gcb_backend *b);
enum gcb_status gcb__cuda_pcie(struct gcb_backend *b,
                               const struct gcb_pcie_params *p,
                               struct gcb_op *op, struct gcb_err *err);
void gcb__cuda_pcie_close(struct gcb_backend *b);
enum gcb_status gcb__cuda_launch(struct gcb_backend *b,
                                 const struct gcb_launch_params *p,
                                 struct gcb_op *op, struct gcb_err *err);
enum gcb_status gcb__cuda_p2p(struct gcb_backend *b,
                              const struct gcb_p2p_params *p, struct gcb_op *op,
                              struct gcb_err *err);
enum gcb_status gcb__cuda_p2p_export(struct gcb_backend *b, int ordinal,
                                     uint64_t bytes, uint64_t seed,
                                     struct gcb_ipc_buffer *out,
                                     struct gcb_op *holder,
                                     struct gcb_err *err);
enum gcb_status gcb__cuda_health(struct gcb_backend *b, struct gcb_health *out,
                                 int max, int *count, struct gcb_err *err);
enum gcb_status gcb__cuda_telemetry_start(struct gcb_backend *b,
                                          struct gcb_err *err);
void gcb__cuda_telemetry_stop(struct gcb_backend *b, struct gcb_telemetry *out);
void gcb__cuda_telemetry_close(struct gcb_backend *b);
void gcb__cuda_burn_read(struct gcb_backend *b, struct gcb_burn_reading *out);

/* "13.0" from the CUDA driver's and runtime's integer encoding. */
void gcb__cuda_format_version(char *buf, size_t len, int v);

#endif
