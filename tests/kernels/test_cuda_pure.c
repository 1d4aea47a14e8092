/*
 * The CUDA backend's pure logic, tested without a GPU: GEMM tolerances per
 * element type, the compute capability each type needs, decoding of the
 * narrow floating-point types, the GEMM entry error, the p2p matrix text,
 * and the GPU-only rows of the memory-kernel table.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/cuda_pure.h"

Test(cuda_pure, every_dtype_has_a_rounding_row_and_a_positive_tolerance) {
  for (int t = 0; t < GCB_DTYPE_COUNT; t++) {
    const struct gcb_gemm_rounding *r = gcb_gemm_rounding(t);
    cr_assert_not_null(r, "%s", gcb_dtype_name(t));
    double tol = gcb_gemm_tolerance(t, 8192);
    if (t == GCB_DTYPE_INT8)
      cr_expect_eq(tol, 0.0, "int8 is exact");
    else
      cr_expect_gt(tol, 0.0, "%s", gcb_dtype_name(t));
    /* A wrong result scores about 1: every tolerance is far below. */
    cr_expect_lt(tol, 0.1, "%s: %g", gcb_dtype_name(t), tol);
  }
  cr_expect_null(gcb_gemm_rounding(GCB_DTYPE_COUNT));
  cr_expect_lt(gcb_gemm_tolerance(GCB_DTYPE_COUNT, 8), 0.0);
}

Test(cuda_pure, tolerances_follow_precision_and_grow_with_k) {
  /* tf32 (10-bit inputs) and fp16 (11-bit output) both sit near 2^-8. */
  static const enum gcb_dtype order[] = {GCB_DTYPE_FP64, GCB_DTYPE_FP32,
                                         GCB_DTYPE_FP16, GCB_DTYPE_BF16,
                                         GCB_DTYPE_FP8};
  for (size_t i = 1; i < sizeof order / sizeof *order; i++)
    cr_expect_lt(gcb_gemm_tolerance(order[i - 1], 4096),
                 gcb_gemm_tolerance(order[i], 4096), "%s < %s",
                 gcb_dtype_name(order[i - 1]), gcb_dtype_name(order[i]));
  cr_expect_lt(gcb_gemm_tolerance(GCB_DTYPE_FP32, 4096),
               gcb_gemm_tolerance(GCB_DTYPE_TF32, 4096));
  cr_expect_lt(gcb_gemm_tolerance(GCB_DTYPE_FP32, 1024),
               gcb_gemm_tolerance(GCB_DTYPE_FP32, 65536));
  /* fp32: 4 sqrt(k) 2^-24 + 8 2^-24 at k = 10000 */
  cr_expect_float_eq(gcb_gemm_tolerance(GCB_DTYPE_FP32, 10000), 408.0 * 0x1p-24,
                     1e-15);
  /* bf16: the output's 8-bit rounding dominates */
  cr_expect_float_eq(gcb_gemm_tolerance(GCB_DTYPE_BF16, 1),
                     4 * 0x1p-24 + 8 * 0x1p-8, 1e-15);
}

Test(cuda_pure, compute_capability_per_dtype) {
  cr_expect_eq(gcb_gemm_min_cc(GCB_DTYPE_FP8), 89);
  cr_expect_eq(gcb_gemm_min_cc(GCB_DTYPE_BF16), 80);
  cr_expect_eq(gcb_gemm_min_cc(GCB_DTYPE_TF32), 80);
  cr_expect_eq(gcb_gemm_min_cc(GCB_DTYPE_INT8), 75);
  cr_expect_eq(gcb_gemm_min_cc(GCB_DTYPE_FP16), 70);
  cr_expect_eq(gcb_gemm_min_cc(GCB_DTYPE_FP64), 0);
  cr_expect_eq(gcb_gemm_min_cc(GCB_DTYPE_COUNT), -1);
  cr_expect_leq(gcb_gemm_min_cc(GCB_DTYPE_FP8), 90, "H200 (9.0) runs fp8");
}

Test(cuda_pure, decode_by_dtype) {
  double out[3];
  const signed char i8[] = {-127, 0, 5};
  cr_assert_eq(gcb_gemm_decode(GCB_DTYPE_INT8, i8, 3, out), 0);
  cr_expect_eq(out[0], -127.0);
  cr_expect_eq(out[2], 5.0);
  const float f[] = {0.5f, -1.25f};
  cr_assert_eq(gcb_gemm_decode(GCB_DTYPE_TF32, f, 2, out), 0);
  cr_expect_eq(out[1], -1.25);
  const uint16_t h[] = {0x3c00, 0x4000};
  cr_assert_eq(gcb_gemm_decode(GCB_DTYPE_FP16, h, 2, out), 0);
  cr_expect_eq(out[1], 2.0);
  cr_expect_eq(gcb_gemm_decode(GCB_DTYPE_COUNT, h, 1, out), -1);
}

Test(cuda_pure, entry_error_is_relative_to_the_products_root_sum_square) {
  const double a[] = {3.0, 4.0}, b[] = {1.0, 1.0}; /* products 3, 4: rss 5 */
  cr_expect_eq(gcb_gemm_entry_error(a, b, 2, 7.0), 0.0);
  cr_expect_float_eq(gcb_gemm_entry_error(a, b, 2, 7.5), 0.1, 1e-15);
  cr_expect(isinf(gcb_gemm_entry_error(a, b, 2, NAN)));
  /* A result with one term missing scores far above every tolerance. */
  cr_expect_gt(gcb_gemm_entry_error(a, b, 2, 3.0),
               gcb_gemm_tolerance(GCB_DTYPE_FP8, 2) * 10);
}

Test(cuda_pure, p2p_matrix_as_nvbandwidth_prints_it) {
  const double v[] = {NAN, 370.125, 369.8, NAN};
  const char labels[2][32] = {"0000:19:00.0", "0000:3b:00.0"};
  char buf[512];
  size_t n = gcb_p2p_matrix_format("memcpy CE GPU(row) -> GPU(column) "
                                   "bandwidth (GB/s)",
                                   v, 2, labels, buf, sizeof buf);
  cr_assert_eq(n, strlen(buf));
  cr_expect_str_eq(buf, "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)\n"
                        "               0         1\n"
                        "     0       n/a    370.12\n"
                        "     1    369.80       n/a\n"
                        "GPU 0: 0000:19:00.0\n"
                        "GPU 1: 0000:3b:00.0\n");
  /* Too small a buffer: truncated, NUL-terminated, full length returned. */
  char small[16];
  cr_expect_eq(gcb_p2p_matrix_format("memcpy CE GPU(row) -> GPU(column) "
                                     "bandwidth (GB/s)",
                                     v, 2, labels, small, sizeof small),
               n);
  cr_expect_eq(strlen(small), sizeof small - 1);
}

Test(cuda_pure, gpu_only_memory_kernels_count_their_bytes) {
  const struct gcb_memkernel_info *r = gcb_memkernel_info(GCB_MEMKERNEL_READ);
  const struct gcb_memkernel_info *w = gcb_memkernel_info(GCB_MEMKERNEL_WRITE);
  const struct gcb_memkernel_info *c = gcb_memkernel_info(GCB_MEMKERNEL_MEMCPY);
  cr_assert(r && w && c);
  cr_expect_str_eq(r->name, "read");
  cr_expect_eq(r->reads + r->writes, 1);
  cr_expect_eq(w->reads + w->writes, 1);
  cr_expect_eq(c->reads, 1);
  cr_expect_eq(c->writes, 1);
}

/* nvbandwidth times each direction of a bidirectional copy on its own
 * events (memcpy.cpp VECTOR_BW): bidir_leg's second leg runs beside the
 * timed one and is not joined; bidir's (the total) is joined back. */
Test(cuda_pure, p2p_lane_roles_per_direction) {
  const enum gcb_p2p_mode modes[] = {GCB_P2P_CE, GCB_P2P_SM, GCB_P2P_STAGED};
  for (size_t m = 0; m < 3; m++) {
    enum gcb_p2p_mode mode = modes[m];
    bool staged = mode == GCB_P2P_STAGED;
    for (int d = 0; d < GCB_P2P_DIR_COUNT; d++)
      cr_expect_eq(gcb_p2p_lane_role(mode, d, GCB_P2P_LANE_SRC), GCB_P2P_TIMED,
                   "the source lane holds the events");
    /* one direction: no second leg */
    cr_expect_eq(gcb_p2p_lane_role(mode, GCB_P2P_DIR_UNI, GCB_P2P_LANE_SRC2),
                 GCB_P2P_UNUSED);
    cr_expect_eq(gcb_p2p_lane_role(mode, GCB_P2P_DIR_UNI, GCB_P2P_LANE_DST2),
                 GCB_P2P_UNUSED);
    /* the total: both legs joined before the stop event */
    cr_expect_eq(gcb_p2p_lane_role(mode, GCB_P2P_DIR_BIDIR, GCB_P2P_LANE_SRC2),
                 GCB_P2P_TIMED);
    cr_expect_eq(
        gcb_p2p_lane_role(mode, GCB_P2P_DIR_BIDIR_LEG, GCB_P2P_LANE_SRC2),
        GCB_P2P_BESIDE, "the other direction is not in the timed leg");
    /* staged: the destination's upload is part of the timed leg */
    cr_expect_eq(
        gcb_p2p_lane_role(mode, GCB_P2P_DIR_BIDIR_LEG, GCB_P2P_LANE_DST),
        staged ? GCB_P2P_TIMED : GCB_P2P_UNUSED);
    cr_expect_eq(
        gcb_p2p_lane_role(mode, GCB_P2P_DIR_BIDIR_LEG, GCB_P2P_LANE_DST2),
        staged ? GCB_P2P_BESIDE : GCB_P2P_UNUSED);
    cr_expect_eq(gcb_p2p_lane_role(mode, GCB_P2P_DIR_BIDIR, GCB_P2P_LANE_DST2),
                 staged ? GCB_P2P_TIMED : GCB_P2P_UNUSED);
  }
  cr_expect_eq(gcb_p2p_legs(GCB_P2P_DIR_UNI), 1);
  cr_expect_eq(gcb_p2p_legs(GCB_P2P_DIR_LATENCY), 1);
  cr_expect_eq(gcb_p2p_legs(GCB_P2P_DIR_BIDIR), 2);
  cr_expect_eq(gcb_p2p_legs(GCB_P2P_DIR_BIDIR_LEG), 2);
  cr_expect_eq(gcb_p2p_lane_role(GCB_P2P_CE, GCB_P2P_DIR_BIDIR, GCB_P2P_LANES),
               GCB_P2P_UNUSED);
}
