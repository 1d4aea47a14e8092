/* Running the gcbench executable from tests; see run_gcbench.h. */
#include "run_gcbench.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char dir[64];

void gcb_test_dir_make(const char *prefix) {
  snprintf(dir, sizeof dir, "/tmp/%s-XXXXXX", prefix);
  cr_assert_not_null(mkdtemp(dir));
}

void gcb_test_dir_remove(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_expect_eq(system(cmd), 0);
}

const char *gcb_test_path(const char *name) {
  static char paths[4][192];
  static int next;
  char *p = paths[next++ % 4];
  snprintf(p, sizeof paths[0], "%s/%s", dir, name);
  return p;
}

int gcb_test_gcbench(int ranks, const char *const *args) {
  const char *argv[64];
  int n = 0;
  char nbuf[16];
  if (ranks > 0) {
    snprintf(nbuf, sizeof nbuf, "%d", ranks);
    argv[n++] = GCB_MPIEXEC;
    argv[n++] = "-n";
    argv[n++] = nbuf;
  }
  argv[n++] = GCB_BINARY;
  for (int i = 0; args[i] && n < 63; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, gcb_test_path("stdout"),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, gcb_test_path("stderr"),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, (char **)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  cr_assert_eq(rc, 0, "spawn %s", argv[0]);
  int status = 0;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status), "gcbench did not exit normally");
  return WEXITSTATUS(status);
}

char *gcb_test_slurp(const char *name) {
  const char *path = gcb_test_path(name);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "open %s", path);
  char *buf = calloc(1, 1 << 20);
  cr_assert_not_null(buf);
  size_t n = fread(buf, 1, (1 << 20) - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

struct gcb_results *gcb_test_load(const char *name) {
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_results_read(gcb_test_path(name), &r, &err), GCB_OK, "%s",
               err.msg);
  return r;
}

json_t *gcb_test_section(struct gcb_results *r, const char *name) {
  return json_object_get(gcb_results_json(r), name);
}
