/*
 * GPU benchmarks through the gcbench executable on the host backend: each
 * is skipped visibly, with one line naming the reason, the run exits 0 and
 * the results document lists the skip. membw's GPU-only kernels are skipped
 * the same way while the host kernels run.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reports/results.h"

extern char **environ;

static char dir[64];

static void make_dir(void) {
  snprintf(dir, sizeof dir, "/tmp/gcb-cuda-e2e-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_expect_eq(system(cmd), 0);
}

TestSuite(cuda_e2e, .init = make_dir, .fini = remove_dir, .timeout = 120);

/* `mpiexec -n 1 gcbench args...`, output to dir/stdout, dir/stderr. */
static int gcbench(const char *const *args) {
  const char *argv[32] = {GCB_MPIEXEC, "-n", "1", GCB_BINARY};
  int n = 4;
  for (int i = 0; args[i] && n < 31; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  char out[128], err[128];
  snprintf(out, sizeof out, "%s/stdout", dir);
  snprintf(err, sizeof err, "%s/stderr", dir);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  pid_t pid;
  cr_assert_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char **)argv, environ),
               0);
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status));
  return WEXITSTATUS(status);
}

static char *slurp(const char *name) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "open %s", path);
  char *buf = calloc(1, 1 << 16);
  buf[fread(buf, 1, (1 << 16) - 1, f)] = '\0';
  fclose(f);
  return buf;
}

static const char *out_path(const char *name) {
  static char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return path;
}

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
    const char *args[] = {
        cases[i].bench,           "--backend", "host", "--iters", "2", "-o",
        out_path(cases[i].bench), NULL};
    cr_assert_eq(gcbench(args), 0, "%s: %s", cases[i].bench, slurp("stderr"));
    char *out = slurp("stdout");
    char line[128];
    snprintf(line, sizeof line, "# skipped %s (all cases): ", cases[i].bench);
    const char *at = strstr(out, line);
    cr_expect_not_null(at, "%s", out);
    cr_expect(at && strstr(at, cases[i].reason) < strchr(at, '\n'), "%s", out);
    cr_expect(strstr(out, "1 skipped, 0 failed") != NULL, "%s", out);
    free(out);
    struct gcb_results *r = NULL;
    struct gcb_err err = {0};
    cr_assert_eq(gcb_results_read(out_path(cases[i].bench), &r, &err), GCB_OK,
                 "%s", err.msg);
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
                        "-o",
                        out_path("membw.json"),
                        NULL};
  cr_assert_eq(gcbench(args), 0, "%s", slurp("stderr"));
  char *out = slurp("stdout");
  cr_expect(strstr(out, "skipped membw read 256K") != NULL, "%s", out);
  cr_expect(strstr(out, "no 'read' kernel (GPU only)") != NULL, "%s", out);
  cr_expect(strstr(out, "1 case(s), 0 with wrong results, 3 skipped") != NULL,
            "%s", out);
  free(out);
}
