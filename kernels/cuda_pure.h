/*
 * The CUDA backend's pure logic: GEMM tolerances per element type, host
 * decoding of the narrow floating-point types, the GEMM error metric, and
 * the text of a peer-to-peer matrix. Nothing here touches a GPU, so it is
 * compiled in every build and unit-tested on machines without one.
 */
#ifndef GCB_CUDA_PURE_H
#define GCB_CUDA_PURE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"

/* The cuda backend's row facts, shared by its table in the CUDA
 * module (cuda.c) and its row in gcbench (cuda_row.c). */
#define GCB_CUDA_DESCRIPTION                                                   \
  "NVIDIA GPU per rank: cuBLASLt GEMM, CUDA memory kernels and copies, CUDA "  \
  "events, NVML health"
#define GCB_CUDA_GEMM_DEFAULT_DIM 8192

/*
 * Unit roundoffs that bound one GEMM entry's error, per element type:
 *   u_in   rounding of the inputs inside the GEMM (tf32 rounds fp32 inputs
 *          to a 10-bit mantissa; the others use the inputs as stored);
 *   u_acc  rounding of each addition in the accumulator (fp32 for the
 *          16-bit types; about 14 bits in Hopper's fp8 tensor cores before
 *          cuBLASLt promotes partial sums to fp32);
 *   u_out  rounding of the result to the output type (bf16 for fp8).
 * int8 accumulates in int32 and is exact: all three are 0.
 */
struct gcb_gemm_rounding {
  double u_in, u_acc, u_out;
};

/* The row for t; NULL outside the dtype list. */
const struct gcb_gemm_rounding *gcb_gemm_rounding(enum gcb_dtype t);

/*
 * Tolerance of the GEMM check for element type t and inner dimension k, on
 * the metric of gcb_gemm_entry_error():
 *   4 (u_in + u_acc sqrt(k)) + 8 u_out.
 * Random-sign inputs make accumulated rounding grow like sqrt(k), not k
 * (Higham and Mary, "A new approach to probabilistic rounding error
 * analysis", 2019); the output term allows |C| up to 8 root-sum-squares of
 * the products, which random inputs exceed with negligible probability.
 * A wrong result (a bad layout, a stale buffer) scores about 1. Returns 0
 * for int8 (exact) and a negative value for an unknown type.
 */
double gcb_gemm_tolerance(enum gcb_dtype t, uint64_t k);

/*
 * Error of one computed entry `got` of C = A B against the long-double
 * reference from row a (k values of A's row i) and column b (k values of
 * B's column j): |got - sum a_p b_p| / sqrt(sum (a_p b_p)^2). Non-finite
 * `got` gives INFINITY. A zero denominator (all products 0, which random
 * inputs never give) yields the absolute error.
 */
double gcb_gemm_entry_error(const double *a, const double *b, uint64_t k,
                            double got);

/*
 * Compute capability, as 10 * major + minor, that cuBLASLt needs for a
 * dtype's GEMM on tensor cores: fp8 89 (Ada and Hopper; CUDA's fp8 types
 * need sm_89), bf16 and tf32 80 (Ampere), int8 75 (Turing IMMA), fp16 70
 * (Volta); fp32 and fp64 run anywhere (0). -1 for an unknown type.
 */
int gcb_gemm_min_cc(enum gcb_dtype t);

/*
 * GEMM warm-up at setup: the GPU leaves its idle clock (a few hundred MHz
 * on an H200) only after some tenths of a second of load, which a few
 * warm-up runs of a short multiply do not give. Setup runs untimed
 * multiplies for GCB_GEMM_WARMUP_S of GPU time; gcb_gemm_warmup_reps is
 * how many more after one that took `one_s` seconds: ceil(target / one_s)
 * - 1, at least 0, at most GCB_GEMM_WARMUP_MAX_REPS (a non-finite or
 * non-positive one_s gives the maximum).
 */
#define GCB_GEMM_WARMUP_S 0.5
#define GCB_GEMM_WARMUP_MAX_REPS 10000L
long gcb_gemm_warmup_reps(double one_s, double target_s);

/*
 * GEMM autotuning (--autotune): the heuristic's top GCB_GEMM_AUTOTUNE_ALGOS
 * algorithms, each timed GCB_GEMM_AUTOTUNE_RUNS times, the fastest median
 * kept (cuBLASLt's LtSgemmSimpleAutoTuning sample). gcb_gemm_pick_fastest:
 * the index of the smallest finite time of n (0 when none is finite);
 * gcb_median_small: the median of n <= 16 values (sorted in place).
 */
#define GCB_GEMM_AUTOTUNE_ALGOS 8
#define GCB_GEMM_AUTOTUNE_RUNS 5
int gcb_gemm_pick_fastest(const double *times, int n);
double gcb_median_small(double *v, int n);

/*
 * Decodes n stored elements of type t at src into doubles (half, bf16
 * and fp8 through common/smallfloat.h). fp8 is e4m3,
 * int8 signed; tf32 is stored as fp32. Returns 0, or -1 for a bad type.
 */
int gcb_gemm_decode(enum gcb_dtype t, const void *src, size_t n, double *dst);

/*
 * The streams ("lanes") of a p2p copy and what each does in a sample.
 * SRC is the timed stream on the source GPU, with the start and stop
 * events; SRC2 drives the second leg of a bidirectional copy (dst -> src);
 * DST and DST2 are the destination GPU's side of staged copies (the upload
 * of leg 1, the download of leg 2). A TIMED lane is forked from the start
 * event and joined back into SRC before the stop event; a BESIDE lane is
 * forked from the start event but not joined: it runs while the timed
 * leg does (BIDIR_LEG's other direction, as nvbandwidth times each
 * direction on its own events) and is drained after the stop event.
 */
enum gcb_p2p_lane {
  GCB_P2P_LANE_SRC,
  GCB_P2P_LANE_SRC2,
  GCB_P2P_LANE_DST,
  GCB_P2P_LANE_DST2,
  GCB_P2P_LANES
};
enum gcb_p2p_lane_role { GCB_P2P_UNUSED, GCB_P2P_TIMED, GCB_P2P_BESIDE };
enum gcb_p2p_lane_role gcb_p2p_lane_role(enum gcb_p2p_mode mode,
                                         enum gcb_p2p_dir dir, int lane);

/* Legs a p2p direction copies per repetition: 2 for BIDIR and BIDIR_LEG
 * (both ways at once), else 1. */
int gcb_p2p_legs(enum gcb_p2p_dir dir);

/*
 * Writes an n x n peer-to-peer matrix as nvbandwidth prints it: the title
 * line, then rows = source GPU, columns = destination GPU, values with two
 * decimals, "n/a" for NAN (the diagonal, pairs not measured), then one
 * legend line per GPU: "GPU <i>: <bus id>". labels holds n bus ids.
 * Returns the length of the whole text (as snprintf: the buffer may have
 * been too short when the result is >= len).
 */
size_t gcb_p2p_matrix_format(const char *title, const double *values, int n,
                             const char (*labels)[32], char *buf, size_t len);

#endif
