/*
 * What burn's interval boundary costs on the host backend (docs/PERF.md,
 * "burn: the sampler"): the backend's burn_read(), the process CPU clock
 * and the check of one product, each timed over many calls, against one
 * GEMM of burn's default size. Built by hand against the build's library:
 *   cc -O2 -I. scripts/perf/burn_sampler.c build/libgcbench_core.a \
 *      build/libgcbench_report.a build/libgcbench_core.a \
 *      $(pkg-config --libs openblas jansson hwloc) -lmpich -lm -lpthread \
 *      -o /tmp/bs
 */
#include <stdio.h>
#include <time.h>

#include "kernels/backend.h"

extern const struct gcb_backend_ops gcb_backend_host;

static double now(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void) {
  const struct gcb_backend_ops *ops = &gcb_backend_host;
  struct gcb_backend_args args = {.local_size = 1, .cpu_threads = 1};
  struct gcb_backend *b;
  struct gcb_err err = {0};
  if (ops->open(&args, &b, &err) != GCB_OK)
    return 1;
  struct gcb_gemm_params p = {
      .dtype = GCB_DTYPE_FP32, .m = 1024, .n = 1024, .k = 1024, .seed = 1};
  struct gcb_op op;
  if (ops->gemm(b, &p, &op, &err) != GCB_OK)
    return 1;
  double s, t0 = now(CLOCK_MONOTONIC);
  for (int i = 0; i < 20; i++)
    op.run(op.state, 1, &s, &err);
  double gemm = (now(CLOCK_MONOTONIC) - t0) / 20;
  struct gcb_burn_reading rd;
  t0 = now(CLOCK_MONOTONIC);
  for (int i = 0; i < 2000; i++)
    ops->burn_read(b, &rd);
  double read = (now(CLOCK_MONOTONIC) - t0) / 2000;
  t0 = now(CLOCK_MONOTONIC);
  for (int i = 0; i < 2000; i++)
    (void)now(CLOCK_PROCESS_CPUTIME_ID);
  double cpu = (now(CLOCK_MONOTONIC) - t0) / 2000;
  struct gcb_check c;
  t0 = now(CLOCK_MONOTONIC);
  for (int i = 0; i < 200; i++)
    op.check(op.state, &c, &err);
  double check = (now(CLOCK_MONOTONIC) - t0) / 200;
  printf("gemm 1024^3 fp32 %.3f ms; burn_read %.1f us; process CPU clock "
         "%.2f us; check %.3f ms; boundary %.3f ms = %.2f %% of a 1 s "
         "interval\n",
         1e3 * gemm, 1e6 * read, 1e6 * cpu, 1e3 * check,
         1e3 * (read + 2 * cpu + check),
         100 * (read + 2 * cpu + check) / 1.0);
  gcb_op_release(&op);
  ops->close(b);
  return 0;
}
