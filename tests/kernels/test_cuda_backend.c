/*
 * The CUDA backend as seen from a machine without a GPU (CI): it is listed
 * when built, says clearly why it cannot run, and the host backend leaves
 * every GPU operation NULL so that GPU benchmarks are skipped visibly. On a
 * machine with a GPU, the same file runs each GPU operation once on tiny
 * inputs and validates it; without one those tests are skipped, saying so.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "kernels/backend.h"

#if GCB_HAVE_CUDA
extern const struct gcb_backend_ops gcb_backend_cuda;

static bool gpu_here(char *why, size_t len) {
  return gcb_backend_cuda.usable(why, len);
}

Test(cuda_backend, fills_every_gpu_operation) {
  const struct gcb_backend_ops *c = &gcb_backend_cuda;
  cr_expect_not_null(c->gemm);
  cr_expect_not_null(c->stream);
  cr_expect_not_null(c->pcie);
  cr_expect_not_null(c->launch);
  cr_expect_not_null(c->p2p);
  cr_expect_not_null(c->gpus);
  cr_expect_not_null(c->p2p_export);
  cr_expect_not_null(c->health);
  cr_expect_not_null(c->telemetry_start);
  cr_expect_not_null(c->telemetry_stop);
}

Test(cuda_backend, without_a_gpu_is_not_usable_with_a_reason) {
  char why[160] = "";
  if (gpu_here(why, sizeof why))
    cr_skip_test("a GPU is visible here (%s)", why);
  cr_expect_gt(strlen(why), 10, "a reason: '%s'", why);
  cr_expect(strstr(why, "CUDA") != NULL, "%s", why);
  struct gcb_backend_args args = {
      .local_rank = 0, .local_size = 1, .cpu_threads = 1};
  struct gcb_backend *b = (struct gcb_backend *)1;
  struct gcb_err err = {0};
  cr_expect_neq(gcb_backend_cuda.open(&args, &b, &err), GCB_OK);
  cr_expect_null(b);
  cr_expect_gt(strlen(err.msg), 0);
  const struct gcb_backend_ops *chosen = NULL;
  cr_expect_eq(gcb_backend_select("cuda", &chosen, why, sizeof why, &err),
               GCB_EUNSUPPORTED);
  cr_expect(strstr(err.msg, "cannot run here") != NULL, "%s", err.msg);
  cr_expect_eq(gcb_backend_select("auto", &chosen, why, sizeof why, &err),
               GCB_OK);
  cr_expect_str_eq(chosen->name, "host");
  cr_expect(strstr(why, "cuda: ") != NULL, "auto says why not cuda: %s", why);
}

/* ---- on a GPU: each operation once, tiny, validated ---------------------- */

static struct gcb_backend *open_gpu(void) {
  char why[160] = "";
  if (!gpu_here(why, sizeof why))
    cr_skip_test("no GPU: %s", why);
  struct gcb_backend_args args = {
      .local_rank = 0, .local_size = 1, .cpu_threads = 1};
  struct gcb_backend *b = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_backend_cuda.open(&args, &b, &err), GCB_OK, "%s", err.msg);
  return b;
}

static void run_and_validate(struct gcb_op *op, bool checked) {
  struct gcb_err err = {0};
  double s = -1;
  cr_assert_eq(op->run(op->state, 3, &s, &err), GCB_OK, "%s", err.msg);
  cr_expect_gt(s, 0.0);
  if (!checked) {
    cr_expect_null(op->check);
    return;
  }
  struct gcb_check c = {0};
  cr_assert_eq(op->check(op->state, &c, &err), GCB_OK, "%s", err.msg);
  cr_expect(c.checked);
  cr_expect_eq(c.wrong, 0, "max error %g, tolerance %g", c.max_error,
               c.tolerance);
}

Test(cuda_backend, gemm_every_dtype_on_a_gpu) {
  struct gcb_backend *b = open_gpu();
  for (int t = 0; t < GCB_DTYPE_COUNT; t++) {
    struct gcb_gemm_params p = {.dtype = t,
                                .m = 256,
                                .n = 128,
                                .k = 320,
                                .seed = 5,
                                .flush_l2 = t == 0};
    struct gcb_op op = {0};
    struct gcb_err err = {0};
    enum gcb_status st = gcb_backend_cuda.gemm(b, &p, &op, &err);
    if (st == GCB_EUNSUPPORTED)
      continue; /* an older GPU: said so in err */
    cr_assert_eq(st, GCB_OK, "%s: %s", gcb_dtype_name(t), err.msg);
    run_and_validate(&op, true);
    gcb_op_release(&op);
  }
  gcb_backend_cuda.close(b);
}

Test(cuda_backend, memory_copies_and_launches_on_a_gpu) {
  struct gcb_backend *b = open_gpu();
  struct gcb_err err = {0};
  for (int k = 0; k < GCB_MEMKERNEL_COUNT; k++) {
    struct gcb_stream_params p = {.kernel = k, .elements = 100003, .seed = 3};
    struct gcb_op op = {0};
    cr_assert_eq(gcb_backend_cuda.stream(b, &p, &op, &err), GCB_OK, "%s",
                 err.msg);
    run_and_validate(&op, true);
    gcb_op_release(&op);
  }
  for (int d = 0; d < GCB_PCIE_DIR_COUNT; d++)
    for (int pinned = 0; pinned < 2; pinned++) {
      struct gcb_pcie_params p = {.direction = d,
                                  .pinned = pinned,
                                  .numa_node = -1,
                                  .bytes = 1000003,
                                  .seed = 9};
      struct gcb_op op = {0};
      cr_assert_eq(gcb_backend_cuda.pcie(b, &p, &op, &err), GCB_OK, "%s",
                   err.msg);
      run_and_validate(&op, true);
      gcb_op_release(&op);
    }
  for (int m = 0; m < GCB_LAUNCH_MODE_COUNT; m++) {
    struct gcb_launch_params p = {.mode = m, .batch = 10};
    struct gcb_op op = {0};
    cr_assert_eq(gcb_backend_cuda.launch(b, &p, &op, &err), GCB_OK, "%s",
                 err.msg);
    run_and_validate(&op, false);
    gcb_op_release(&op);
  }
  struct gcb_health h[8];
  int n = 0;
  cr_expect_eq(gcb_backend_cuda.health(b, h, 8, &n, &err), GCB_OK, "%s",
               err.msg);
  cr_expect_geq(n, 1);
  cr_expect_gt(h[0].sm_count, 0);
  gcb_backend_cuda.close(b);
}
#endif

Test(cuda_backend, host_backend_has_no_gpu_operations) {
  const struct gcb_backend_ops *h = gcb_backend_find("host");
  cr_assert_not_null(h);
  cr_expect_null(h->pcie);
  cr_expect_null(h->launch);
  cr_expect_null(h->p2p);
  cr_expect_null(h->gpus);
  cr_expect_null(h->p2p_export);
  cr_expect_null(h->health);
  cr_expect_null(h->telemetry_start);
  cr_expect_eq(gcb_backend_find("cuda") != NULL, GCB_HAVE_CUDA);
}
