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

#include "common/status.h"

/* Element types a GEMM can run in; names as on the command line. */
#define GCB_DTYPE_LIST(X)                                                      \
  X(FP64, "fp64", 8)                                                           \
  X(FP32, "fp32", 4)                                                           \
  X(TF32, "tf32", 4)                                                           \
  X(FP16, "fp16", 2)                                                           \
  X(BF16, "bf16", 2)                                                           \
  X(FP8,  "fp8",  1)                                                           \
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
  /* id     name     reads writes flops  formula */                           \
  X(COPY,  "copy",  1,    1,     0,     "c[i] = a[i]")                         \
  X(SCALE, "scale", 1,    1,     1,     "b[i] = s*c[i]")                       \
  X(ADD,   "add",   2,    1,     1,     "c[i] = a[i] + b[i]")                  \
  X(TRIAD, "triad", 2,    1,     2,     "a[i] = b[i] + s*c[i]")

enum gcb_memkernel {
#define GCB__MK_ENUM(id, name, r, w, f, formula) GCB_MEMKERNEL_##id,
  GCB_MEMKERNEL_LIST(GCB__MK_ENUM)
#undef GCB__MK_ENUM
  GCB_MEMKERNEL_COUNT
};

struct gcb_memkernel_info {
  const char *name;
  int reads;    /* arrays read per element */
  int writes;   /* arrays written per element */
  int flops;    /* floating-point operations per element */
  const char *formula;
};

/* Static description of a kernel; never NULL for a valid id. */
const struct gcb_memkernel_info *gcb_memkernel_info(enum gcb_memkernel k);

/* What one rank's device is, as far as the backend can tell. */
struct gcb_device_info {
  char name[128];      /* "NVIDIA H200" or the CPU model name */
  char bus_id[32];     /* PCI bus id "0000:19:00.0"; empty on host */
  int index;           /* device ordinal on the node; -1 on host */
  uint64_t memory_bytes;
  int threads;         /* CPU threads the backend computes with (host) */
};

/* Outcome of checking an operation's output against a reference. */
struct gcb_check {
  bool checked;        /* false: operation has no validation */
  uint64_t samples;    /* entries compared */
  uint64_t wrong;      /* entries beyond tolerance */
  double max_error;    /* largest error seen, in the unit below */
  double tolerance;    /* threshold applied per entry */
  const char *method;  /* one phrase: how error was measured */
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
};

/* Releases op's state and zeroes it; NULL or zeroed op is a no-op. */
void gcb_op_release(struct gcb_op *op);

struct gcb_gemm_params {
  enum gcb_dtype dtype;
  uint64_t m, n, k;     /* C[m x n] = A[m x k] * B[k x n], column-major */
  uint64_t seed;        /* inputs are uniform in [-1, 1), never all zero */
};

struct gcb_stream_params {
  enum gcb_memkernel kernel;
  uint64_t elements;    /* per array, doubles */
  uint64_t seed;
};

/* Arguments a backend is opened with. */
struct gcb_backend_args {
  int local_rank;       /* rank on this node: selects the device */
  int local_size;       /* ranks on this node */
  int cpu_threads;      /* CPUs this rank may compute with (>= 1) */
};

struct gcb_backend;   /* backend-private state of one opened backend */

struct gcb_backend_ops {
  const char *name;
  const char *description;
  uint64_t gemm_default_dim;   /* default m = n = k on this backend */

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
