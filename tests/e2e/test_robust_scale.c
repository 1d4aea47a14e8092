/*
 * Large but legal input, through the executable: a report's time grows
 * with its input, not with the input's square (issue 31, item 6; a row of
 * docs/ROBUSTNESS.md). A 9,000-row nccl-tests log (the converter takes up
 * to 10,000) took 106 s, and more than 188 s of CPU here: junit.xml titled
 * every earlier case again for each case, and scanned every finding for
 * each. The report runs under a CPU-time limit (RLIMIT_CPU, which a loaded
 * machine does not stretch as it stretches the wall clock), far above the
 * 5 s it takes and far below what it took.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "tests/e2e/run_gcbench.h"

static void make_dir(void) {
  gcb_test_dir_make("gcb-robust-scale");
}

TestSuite(scale, .init = make_dir, .fini = gcb_test_dir_remove, .timeout = 280);

#define ROWS 9000
#define CPU_LIMIT_S 90 /* 5 s here, 25 s or so under ASan */

/* An nccl-tests 2.18 all_reduce_perf log of `rows` sizes, 4 ranks. */
static void write_log(const char *path, int rows) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs("# nccl-tests version 2.18.3 nccl-headers=23005 "
        "nccl-library=23005\n"
        "# Collective test starting: all_reduce_perf\n"
        "# nThread 1 nGpus 1 minBytes 1000 maxBytes 73000 step: 8(bytes) "
        "warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
        "#\n# Using devices\n",
        f);
  for (int r = 0; r < 4; r++)
    fprintf(f,
            "#  Rank %2d Group  0 Pid %6d on   gpu-%04d device  %d "
            "[0000:%02x:00] NVIDIA H100 NVL\n",
            r, 1000 + r, r / 2, r % 2, r % 2 ? 0x81 : 0x61);
  fputs("#\n#                                                    out-of-place"
        "                       in-place\n"
        "#       size         count      type   redop    root     time   "
        "algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
        "#        (B)    (elements)                               (us)  "
        "(GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)\n",
        f);
  for (int i = 0; i < rows; i++) {
    long size = 1000 + 8L * i;
    double us = 100 + 0.01 * i;
    fprintf(f,
            "%12ld  %12ld     float     sum      -1   %6.2f  %6.2f  %6.2f  "
            "     0   %6.2f  %6.2f  %6.2f       0\n",
            size, size / 4, us, size / us / 1e3, 1.5 * size / us / 1e3, us,
            size / us / 1e3, 1.5 * size / us / 1e3);
  }
  fputs("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 9.11404\n"
        "#\n# Collective test concluded: all_reduce_perf\n",
        f);
  cr_assert_eq(fclose(f), 0);
}

Test(scale, a_9000_row_nccl_tests_log_is_reported_in_linear_time) {
  char log[512];
  snprintf(log, sizeof log, "%s", gcb_test_path("allreduce.log"));
  write_log(log, ROWS);
  /* inherited by gcbench; this process has used next to none */
  struct rlimit cpu = {.rlim_cur = CPU_LIMIT_S, .rlim_max = CPU_LIMIT_S + 10};
  cr_assert_eq(setrlimit(RLIMIT_CPU, &cpu), 0);
  const char *args[] = {"report", log, "--output", gcb_test_path("rep"), NULL};
  double took = 0;
  /* a report past the CPU limit dies of SIGXCPU: the helper fails the
   * test, naming the signal */
  int code = gcb_test_run(0, args, 260, &took);
  char *err = gcb_test_slurp("stderr");
  cr_expect(code == 0 || code == 1, "exit %d: %s", code, err);
  free(err);
  /* every row's two cases are a test of junit.xml, the last ones too */
  char *junit = gcb_test_read(gcb_test_path("rep/junit.xml"));
  size_t cases = 0;
  for (const char *p = junit; (p = strstr(p, "classname=\"gcbench.coll\""));
       p++)
    cases++;
  cr_expect_eq(cases, 2 * ROWS, "%zu cases in junit.xml", cases);
  char last[96];
  snprintf(last, sizeof last, "allreduce float sum %ldB in-place",
           1000 + 8L * (ROWS - 1));
  cr_expect(strstr(junit, last) != NULL, "no test for %s", last);
  free(junit);
}
