/*
 * GPU benchmarks through the gcbench executable on the host backend: each
 * is skipped visibly, with one line naming the reason, the run exits 0 and
 * the results document lists the skip. membw's GPU-only kernels are skipped
 * the same way while the host kernels run.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/document/results.h"
#include "tests/e2e/run_gcbench.h"
#include "tests/reports/results_read.h"

static void make_dir(void) {
  gcb_test_dir_make("gcb-cuda-e2e");
}

TestSuite(cuda_e2e, .init = make_dir, .fini = gcb_test_dir_remove,
          .timeout = 120);

struct skip_case {
  const char *bench;
  const char *reason; /* part of the skip line */
};

Test(cuda_e2e, gpu_benchmarks_are_skipped_visibly_on_the_host_backend) {
  static const struct skip_case cases[] = {
      {"pcie", "has no host<->device copies"},
      {"p2p", "has no GPU peer copies"},
      {"launch", "launches no GPU kernels"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *args[] = {cases[i].bench,
                          "--backend",
                          "host",
                          "--iters",
                          "2",
                          "--output",
                          gcb_test_path(cases[i].bench),
                          NULL};
    /* visibly, and no pass: a run that measured nothing exits 5 */
    cr_assert_eq(gcb_test_gcbench(1, args), 5, "%s: %s", cases[i].bench,
                 gcb_test_slurp("stderr"));
    char *said = gcb_test_slurp("stderr");
    cr_expect_not_null(strstr(said, "the run measured nothing"), "%s", said);
    free(said);
    char *out = gcb_test_slurp("stdout");
    char line[128];
    snprintf(line, sizeof line, "# skipped %s (all cases): ", cases[i].bench);
    const char *at = strstr(out, line);
    cr_expect_not_null(at, "%s", out);
    cr_expect(at && strstr(at, cases[i].reason) < strchr(at, '\n'), "%s", out);
    cr_expect(strstr(out, "1 skipped, 0 failed") != NULL, "%s", out);
    free(out);
    struct gcb_results *r = NULL;
    struct gcb_err err = {0};
    cr_assert_eq(fx_results_read(gcb_test_path(cases[i].bench), &r, &err),
                 GCB_OK, "%s", err.msg);
    json_t *skipped = json_object_get(gcb_results_json(r), "skipped");
    cr_expect_eq(json_array_size(skipped), 1);
    gcb_results_free(r);
  }
}

Test(cuda_e2e, membw_skips_gpu_only_kernels_on_the_host_backend) {
  const char *args[] = {"membw",
                        "--backend",
                        "host",
                        "--size",
                        "256K",
                        "--kernel",
                        "copy,read,write,memcpy",
                        "--iters",
                        "2",
                        "--output",
                        gcb_test_path("membw.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(1, args), 0, "%s", gcb_test_slurp("stderr"));
  char *out = gcb_test_slurp("stdout");
  cr_expect(strstr(out, "skipped membw read 256K") != NULL, "%s", out);
  cr_expect(strstr(out, "no 'read' kernel (GPU only)") != NULL, "%s", out);
  cr_expect(strstr(out, "1 case(s), 0 with wrong results, 3 skipped") != NULL,
            "%s", out);
  free(out);
}
