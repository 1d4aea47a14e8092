/*
 * Compute backends: the one seam between benchmarks and the hardware.
 *
 * A backend is one ops struct (host.c, cuda.c) listed in the NULL-terminated
 * gcb_backends[] table. Benchmarks never touch BLAS, CUDA or memory kernels
 * directly: they ask the backend for a prepared operation (struct gcb_op),
 * and the harness warms it up, times it with the backend's clock, and
 * validates it. An operation a backend lacks is a NULL callback, which the
 * harness reports as "not supported", visibly.
 *
 * Errors follow common/status.h: a status is returned, the detail is in err.
 */
#ifndef GCB_BACKEND_H
#define GCB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/health.h"
#include "common/status.h"
#include "common/telemetry.h"

/* Element types a GEMM can run in; names as on the command line. */
#define GCB_DTYPE_LIST(X)                                                      \
  X(FP64, "fp64", 8)                                                           \
  X(FP32, "fp32", 4)                                                           \
  X(TF32, "tf32", 4)                                                           \
  X(FP16, "fp16", 2)                                                           \
  X(BF16, "bf16", 2)                                                           \
  X(FP8, "fp8", 1)                                                             \
  X(INT8, "int8", 1)

enum gcb_dtype {
#define GCB__DTYPE_ENUM(id, name, bytes) GCB_DTYPE_##id,
  GCB_DTYPE_LIST(GCB__DTYPE_ENUM)
#undef GCB__DTYPE_ENUM
      GCB_DTYPE_COUNT
};

const char *gcb_dtype_name(enum gcb_dtype t);
size_t gcb_dtype_bytes(enum gcb_dtype t);

/*
 * Memory-bandwidth kernels, STREAM-style, over arrays of doubles:
 * each row declares what one element costs (bytes read, written, flops),
 * and the harness does the arithmetic. Write-allocate traffic is not
 * counted (the STREAM convention).
 */
#define GCB_MEMKERNEL_LIST(X)                                                  \
  /* id     name     reads writes flops  formula */                            \
  X(COPY, "copy", 1, 1, 0, "c[i] = a[i]")                                      \
  X(SCALE, "scale", 1, 1, 1, "b[i] = s*c[i]")                                  \
  X(ADD, "add", 2, 1, 1, "c[i] = a[i] + b[i]")                                 \
  X(TRIAD, "triad", 2, 1, 2, "a[i] = b[i] + s*c[i]")                           \
  /* GPU only (the host backend reports them unsupported): */                  \
  X(READ, "read", 1, 0, 1, "sum += a[i]")                                      \
  X(WRITE, "write", 0, 1, 0, "c[i] = s")                                       \
  X(MEMCPY, "memcpy", 1, 1, 0, "c = a, cudaMemcpy (CE or SMs)")

enum gcb_memkernel {
#define GCB__MK_ENUM(id, name, r, w, f, formula) GCB_MEMKERNEL_##id,
  GCB_MEMKERNEL_LIST(GCB__MK_ENUM)
#undef GCB__MK_ENUM
      GCB_MEMKERNEL_COUNT
};

struct gcb_memkernel_info {
  const char *name;
  int reads;  /* arrays read per element */
  int writes; /* arrays written per element */
  int flops;  /* floating-point operations per element */
  const char *formula;
};

/* Static description of a kernel; never NULL for a valid id. */
const struct gcb_memkernel_info *gcb_memkernel_info(enum gcb_memkernel k);

/* What one rank's device is, as far as the backend can tell. */
struct gcb_device_info {
  char name[128];  /* "NVIDIA H200" or the CPU model name */
  char bus_id[32]; /* PCI bus id "0000:19:00.0"; empty on host */
  int index;       /* device ordinal on the node; -1 on host */
  uint64_t memory_bytes;
  uint64_t cache_bytes; /* the device's last-level cache (a GPU's L2); 0 on
                           host, where the machine's LLC applies */
  int threads;          /* CPU threads the backend computes with (host) */
};

/* Outcome of checking an operation's output against a reference. */
struct gcb_check {
  bool checked;       /* false: operation has no validation */
  uint64_t samples;   /* entries compared */
  uint64_t wrong;     /* entries beyond tolerance */
  double max_error;   /* largest error seen, in the unit below */
  double tolerance;   /* threshold applied per entry */
  const char *method; /* one phrase: how error was measured */
};

/*
 * A prepared operation. The backend owns state; the harness calls run()
 * to execute `reps` back-to-back repetitions and receives the elapsed
 * seconds measured with the backend's clock (CLOCK_MONOTONIC on host, CUDA
 * events on GPU). check() inspects the output after the timed runs;
 * release() frees everything (safe on a zeroed op).
 */
struct gcb_op {
  void *state;
  enum gcb_status (*run)(void *state, int reps, double *seconds,
                         struct gcb_err *err);
  enum gcb_status (*check)(void *state, struct gcb_check *out,
                           struct gcb_err *err);
  void (*release)(void *state);
  /* Optional test hook (GCB_TEST_BURN_WRONG, burn only): makes one entry
   * of the last product wrong, one that the next check() compares, so
   * that a planted silent error travels the road a real one would. NULL:
   * the operation has none. */
  void (*plant)(void *state);
};

/* Releases op's state and zeroes it; NULL or zeroed op is a no-op. */
void gcb_op_release(struct gcb_op *op);

struct gcb_gemm_params {
  enum gcb_dtype dtype;
  uint64_t m, n, k;    /* C[m x n] = A[m x k] * B[k x n], column-major */
  uint64_t seed;       /* inputs are uniform in [-1, 1), never all zero */
  bool flush_l2;       /* GPU: evict L2 before each timed run (untimed) */
  bool fp8_fast_accum; /* GPU fp8: cuBLASLt's fast accumulation */
  bool autotune; /* GPU: time the heuristic's top algorithms, keep the best */
  bool burn;     /* burn-in: fill most of device memory with operand sets
                    and compare every product with the first, gpu-burn's
                    way (cuda); the host backend ignores it */
  /* A training step's GEMM (pattern), run as a framework runs it rather
   * than as a benchmark times it: GPU: no warm-up of its own at setup
   * once a GEMM has warmed the GPU up, and no gate, so that the host
   * enqueues while the GPU works. The host backend ignores it. */
  bool in_step;
  /* GPU: each run is a strided batch of this many products, each with its
   * own A, B and C, in one cuBLASLt call, as a framework's batched matmul
   * (torch.bmm: cublasGemmStridedBatched) runs attention's per-head
   * products; check() samples the first. 0 or 1: one product. The host
   * backend refuses more than one. */
  uint64_t batch;
};

struct gcb_stream_params {
  enum gcb_memkernel kernel;
  uint64_t elements; /* per array, doubles */
  uint64_t seed;
};

/* ---- GPU operations (NULL on the host backend) --------------------------- */

/*
 * Host<->device copies over PCIe (or C2C). One operation is one copy of
 * `bytes` in each direction the case names: BIDIR copies `bytes` each way at
 * once on two streams, so it moves 2 * bytes (the total, timed until both
 * finish); H2D_BIDIR and D2H_BIDIR time only the named direction's `bytes`
 * while the other direction runs (twice as long, so it overlaps the whole
 * time), as nvbandwidth's host_to_device_bidirectional_memcpy_ce does. Host
 * memory is pinned (page-locked, registered with the driver) or pageable, and
 * bound to NUMA node `numa_node` (OS index) with hwloc, or left to first touch
 * when -1.
 */
#define GCB_PCIE_DIR_LIST(X)                                                   \
  X(H2D, "h2d", "host to device")                                              \
  X(D2H, "d2h", "device to host")                                              \
  X(BIDIR, "bidir", "total of both at once, one stream each")                  \
  X(H2D_BIDIR, "h2d_bidir", "host to device, timed alone while d2h runs")      \
  X(D2H_BIDIR, "d2h_bidir", "device to host, timed alone while h2d runs")

enum gcb_pcie_dir {
#define GCB__PCIE_ENUM(id, name, what) GCB_PCIE_##id,
  GCB_PCIE_DIR_LIST(GCB__PCIE_ENUM)
#undef GCB__PCIE_ENUM
      GCB_PCIE_DIR_COUNT
};

struct gcb_pcie_params {
  enum gcb_pcie_dir direction;
  bool pinned;
  int numa_node;  /* OS index; -1: no binding */
  uint64_t bytes; /* per direction */
  uint64_t seed;
};

/*
 * Kernel launch cost. One operation is one launch of an empty kernel;
 * run() times `batch` launches at a time and returns the time per launch
 * times reps, so host-side enqueue cost is what is measured:
 *   SYNC   launch, then wait for it (a round trip through the driver);
 *   STREAM launches back to back on one stream, one wait at the end;
 *   GRAPH  the same launches captured once in a CUDA graph and replayed.
 */
#define GCB_LAUNCH_MODE_LIST(X)                                                \
  X(SYNC, "sync", "launch and wait, one kernel at a time")                     \
  X(STREAM, "stream", "back-to-back launches on one stream")                   \
  X(GRAPH, "graph", "the same launches replayed as one CUDA graph")

enum gcb_launch_mode {
#define GCB__LAUNCH_ENUM(id, name, what) GCB_LAUNCH_##id,
  GCB_LAUNCH_MODE_LIST(GCB__LAUNCH_ENUM)
#undef GCB__LAUNCH_ENUM
      GCB_LAUNCH_MODE_COUNT
};

struct gcb_launch_params {
  enum gcb_launch_mode mode;
  int batch; /* launches per timed batch (>= 1) */
};

/*
 * Peer-to-peer copies between two GPUs of one node, nvbandwidth's
 * conventions: UNI copies `bytes` from src to dst; BIDIR copies `bytes`
 * each way at once and counts both (2 * bytes per operation, over the time
 * until both finish); BIDIR_LEG copies both ways at once but times the
 * src -> dst leg alone, on its own events (`bytes` per operation: one
 * direction's figure of a bidirectional copy, nvbandwidth's write1/write2
 * of device_to_device_bidirectional_memcpy_write_ce); LATENCY is
 * the time of one small access (CE and STAGED: one `bytes` copy, timed
 * back to back in a batch; SM: one dependent 8-byte read of peer memory,
 * a pointer chase). Modes: CE copy engines with peer access, SM a copy
 * kernel with 16-byte accesses on the source GPU with peer access, STAGED
 * through pinned host memory, no peer access (for comparison).
 */
#define GCB_P2P_MODE_LIST(X)                                                   \
  X(CE, "ce", "copy engine, peer access")                                      \
  X(SM, "sm", "SM copy kernel, peer access")                                   \
  X(STAGED, "staged", "through pinned host memory")

#define GCB_P2P_DIR_LIST(X)                                                    \
  X(UNI, "uni", "src to dst")                                                  \
  X(BIDIR, "bidir", "both ways at once, both counted")                         \
  X(LATENCY, "latency", "one small access")                                    \
  X(BIDIR_LEG, "bidir_leg", "src to dst, timed alone while dst to src runs")

enum gcb_p2p_mode {
#define GCB__P2P_MODE_ENUM(id, name, what) GCB_P2P_##id,
  GCB_P2P_MODE_LIST(GCB__P2P_MODE_ENUM)
#undef GCB__P2P_MODE_ENUM
      GCB_P2P_MODE_COUNT
};

enum gcb_p2p_dir {
#define GCB__P2P_DIR_ENUM(id, name, what) GCB_P2P_DIR_##id,
  GCB_P2P_DIR_LIST(GCB__P2P_DIR_ENUM)
#undef GCB__P2P_DIR_ENUM
      GCB_P2P_DIR_COUNT
};

/* A device buffer exported to another process of the node (CUDA IPC):
 * plain bytes, sent over MPI as they are. */
#define GCB_IPC_HANDLE_BYTES 64
struct gcb_ipc_buffer {
  unsigned char handle[GCB_IPC_HANDLE_BYTES]; /* cudaIpcMemHandle_t */
  uint64_t bytes;  /* 2 * the case's bytes: [written | read] halves */
  uint64_t seed;   /* the read half holds gcb_fill_random(seed) data */
  char bus_id[32]; /* the exporting GPU */
};

struct gcb_p2p_params {
  enum gcb_p2p_mode mode;
  enum gcb_p2p_dir direction;
  uint64_t bytes; /* per direction; LATENCY: bytes per access */
  uint64_t seed;
  int src; /* CUDA ordinal of the initiating GPU, this rank */
  int dst; /* ordinal of the peer GPU when this rank sees it */
  const struct gcb_ipc_buffer *remote; /* else: the peer's exported buffer */
};

/* A GPU this rank can see: name, bus id, ordinal, memory. */
struct gcb_gpu_ident {
  int ordinal;
  char bus_id[32]; /* lower case, "0000:19:00.0" */
  char name[96];
};

/* A reading of the rank's device (or CPU) for the burn-in timeline.
 * Values not reported: NAN (reals) or -1 (counters). Counters are
 * cumulative since the device's driver load (the timeline keeps the
 * readings; the report takes differences). */
struct gcb_burn_reading {
  double cpu_mhz;                     /* host: mean current frequency of the
                                         rank's cores */
  double temp_c;                      /* host: hottest readable hwmon/thermal
                                         zone; cuda: GPU */
  double power_w;                     /* host: package power (powercap energy
                                         delta); cuda: GPU */
  double sm_clock_mhz, mem_clock_mhz; /* cuda */
  uint64_t throttle_reasons;          /* cuda: NVML clock-event reasons now */
  bool throttle_known;
  long long ecc_sbe, ecc_dbe; /* cuda: volatile corrected/uncorrected */
  long long pcie_replay;      /* cuda: nvmlDeviceGetPcieReplayCounter */
  long long xid;              /* cuda: Xid events seen so far */
};

/* Arguments a backend is opened with. */
struct gcb_backend_args {
  int local_rank;  /* rank on this node: selects the device */
  int local_size;  /* ranks on this node */
  int cpu_threads; /* CPUs this rank may compute with (>= 1) */
};

struct gcb_backend; /* backend-private state of one opened backend */

struct gcb_backend_ops {
  const char *name;
  const char *description;
  uint64_t gemm_default_dim; /* default m = n = k on this backend */
  bool hidden;               /* never picked by "auto" nor listed (null) */
  /* The collectives transport (collectives/comm.h) whose buffers live
   * where this backend computes: "nccl" (device memory), "mpi" (host);
   * point-to-point benchmarks take it for "auto". */
  const char *transport;

  /* Whether this backend can run here; false with a one-line reason. */
  bool (*usable)(char *why, size_t why_len);
  enum gcb_status (*open)(const struct gcb_backend_args *args,
                          struct gcb_backend **out, struct gcb_err *err);
  void (*close)(struct gcb_backend *b);
  enum gcb_status (*device_info)(struct gcb_backend *b,
                                 struct gcb_device_info *out,
                                 struct gcb_err *err);
  /* Library versions, "name version" pairs joined by "; ". */
  void (*versions)(struct gcb_backend *b, char *buf, size_t len);

  /* Operations; NULL when the backend lacks them. An operation that exists
   * but cannot take these parameters returns GCB_EUNSUPPORTED with why. */
  enum gcb_status (*gemm)(struct gcb_backend *b,
                          const struct gcb_gemm_params *p, struct gcb_op *op,
                          struct gcb_err *err);
  enum gcb_status (*stream)(struct gcb_backend *b,
                            const struct gcb_stream_params *p,
                            struct gcb_op *op, struct gcb_err *err);

  /* GPU operations, NULL on backends without GPUs (see the params above). */
  enum gcb_status (*pcie)(struct gcb_backend *b,
                          const struct gcb_pcie_params *p, struct gcb_op *op,
                          struct gcb_err *err);
  enum gcb_status (*launch)(struct gcb_backend *b,
                            const struct gcb_launch_params *p,
                            struct gcb_op *op, struct gcb_err *err);
  enum gcb_status (*p2p)(struct gcb_backend *b, const struct gcb_p2p_params *p,
                         struct gcb_op *op, struct gcb_err *err);

  /* The GPUs this rank sees: up to max into out, the number in *count. */
  enum gcb_status (*gpus)(struct gcb_backend *b, struct gcb_gpu_ident *out,
                          int max, int *count, struct gcb_err *err);

  /*
   * Allocates a 2 * bytes buffer on GPU `ordinal` for a peer process, fills
   * its second half from seed and exports it in *out. The buffer lives in
   * holder's state until gcb_op_release(holder); holder has no run().
   */
  enum gcb_status (*p2p_export)(struct gcb_backend *b, int ordinal,
                                uint64_t bytes, uint64_t seed,
                                struct gcb_ipc_buffer *out,
                                struct gcb_op *holder, struct gcb_err *err);

  /* Health of every GPU this rank sees, up to max; *count filled. */
  enum gcb_status (*health)(struct gcb_backend *b, struct gcb_health *out,
                            int max, int *count, struct gcb_err *err);

  /* Background telemetry of the rank's GPU around a measurement. start()
   * failing is not fatal to the case: stop() then reports unavailable. */
  enum gcb_status (*telemetry_start)(struct gcb_backend *b,
                                     struct gcb_err *err);
  void (*telemetry_stop)(struct gcb_backend *b, struct gcb_telemetry *out);

  /* Optional: a reading for the burn-in timeline (struct
   * gcb_burn_reading), taken at each interval's end, so it must be cheap
   * (a few small file reads, a few NVML calls) and never fail: what it
   * cannot read is NAN or -1. NULL when the backend reads nothing. */
  void (*burn_read)(struct gcb_backend *b, struct gcb_burn_reading *out);

  /*
   * Optional: whether one operation of this rank needing `bytes` can fit
   * the memory this backend's operations allocate from (host: the rank's
   * share of the memory available; cuda: the device's free memory),
   * asked before anything is allocated, so that a run can refuse sizes
   * that cannot fit before it begins. GCB_ENOMEM naming `what`, the bytes
   * and the memory there is. NULL: the backend cannot tell.
   */
  enum gcb_status (*fits)(const struct gcb_backend *b, uint64_t bytes,
                          const char *what, struct gcb_err *err);

  /*
   * Optional: whether gemm takes element type t, and stream has kernel k,
   * on this backend (false: the call returns GCB_EUNSUPPORTED before it
   * allocates anything), so that a plan (suite --dry-run) lists only what
   * will run. NULL: every type, every kernel.
   */
  bool (*gemm_has)(enum gcb_dtype t);
  bool (*stream_has)(enum gcb_memkernel k);
};

/* Every backend compiled in, NULL-terminated. */
extern const struct gcb_backend_ops *const gcb_backends[];

/* Backend by name, or NULL. */
const struct gcb_backend_ops *gcb_backend_find(const char *name);

/*
 * Resolves "auto", "host" or "cuda" to a usable backend. "auto" takes the
 * first usable backend in preference order (cuda, then host) and explains
 * the choice in `why`. Returns GCB_EUSAGE for an unknown name and
 * GCB_EUNSUPPORTED when the named backend cannot run here.
 */
enum gcb_status gcb_backend_select(const char *name,
                                   const struct gcb_backend_ops **out,
                                   char *why, size_t why_len,
                                   struct gcb_err *err);

/* Uniform random doubles in [-1, 1) with no exact zeros (splitmix64). */
void gcb_fill_random(double *x, size_t n, uint64_t seed);
void gcb_fill_random_f32(float *x, size_t n, uint64_t seed);

#endif
