/*
 * Whether rank 0 shows the progress line (see gcb_progress_wanted in
 * harness.h). The person who started a run sees a terminal either on rank
 * 0's own stderr (a bare process, `srun --pty`) or on the stderr of the
 * launcher that forwards every rank's output to it: MPICH's and Open MPI's
 * mpiexec give each rank a pipe, so rank 0 looks up its ancestors in
 * /proc for the nearest launcher and at what that launcher's stderr is
 * (an ancestor: no other user's process can pose as one). Slurm's srun is
 * no ancestor (slurmstepd starts the ranks) and is not looked for: a
 * process found by a port or a name could be anyone's. As fio's
 * skip_eta(), the rest is a flag: --progress or GCB_PROGRESS=1 asks for
 * the line (srun, mpiexec over ssh), `srun --pty` gives rank 0 a terminal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/run/harness.h"
#include "bench/run/progress_int.h"

/* Launchers that forward the ranks' stderr to their own, by the name
 * /proc/PID/stat gives them (15 characters at most). */
static const char *const launchers[] = {
    "mpiexec",
    "mpiexec.hydra",
    "mpirun",
    "mpiexec.mpich",
    "mpirun.mpich",
    "mpiexec.openmpi",
    "mpirun.openmpi",
    "orterun",
    "prterun",
    "prte",
    NULL,
};

#define MAX_ANCESTORS 8 /* rank, proxy, launcher, and a few wrappers */

/* A process's parent and name from /proc/PID/stat ("PID (NAME) S PPID"). */
static bool parent_of(long pid, long *ppid, char *name, size_t len) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return false;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char *open = strchr(buf, '('), *close = strrchr(buf, ')');
  if (open == NULL || close == NULL || close < open ||
      sscanf(close + 1, " %*c %ld", ppid) != 1)
    return false;
  snprintf(name, len, "%.*s", (int)(close - open - 1), open + 1);
  return true;
}

static bool is_launcher(const char *name) {
  for (const char *const *l = launchers; *l; l++)
    if (strcmp(*l, name) == 0)
      return true;
  return false;
}

/* Whether process pid's stderr is a terminal (a pseudo-terminal or a
 * console), as its /proc/PID/fd/2 link names it. */
static bool stderr_is_terminal(long pid) {
  char path[64], target[256];
  snprintf(path, sizeof path, "/proc/%ld/fd/2", pid);
  ssize_t n = readlink(path, target, sizeof target - 1);
  if (n <= 0)
    return false;
  target[n] = '\0';
  return strncmp(target, "/dev/pts/", 9) == 0 ||
         strncmp(target, "/dev/tty", 8) == 0 ||
         strncmp(target, "/dev/console", 12) == 0;
}

/* The nearest launcher among this process's ancestors has a terminal on
 * its stderr. */
static bool launcher_has_terminal(void) {
  long pid = (long)getppid();
  for (int i = 0; i < MAX_ANCESTORS && pid > 1; i++) {
    long ppid = 0;
    char name[64];
    if (!parent_of(pid, &ppid, name, sizeof name))
      return false;
    if (is_launcher(name))
      return stderr_is_terminal(pid);
    pid = ppid;
  }
  return false;
}

enum gcb_status gcb__progress_decide(const struct gcb_run_opts *opts,
                                     const char *env, bool stderr_terminal,
                                     bool launcher_terminal, bool *out,
                                     struct gcb_err *err) {
  *out = false;
  if (opts->progress && opts->no_progress)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--progress and --no-progress exclude each other");
  if (opts->progress || opts->no_progress) {
    *out = opts->progress;
    return GCB_OK;
  }
  if (env != NULL && env[0] != '\0') {
    if (strcmp(env, "0") != 0 && strcmp(env, "1") != 0)
      return gcb_err_set(err, GCB_EUSAGE,
                         "GCB_PROGRESS '%s': expected 1 (show the progress "
                         "line) or 0 (never)",
                         env);
    *out = env[0] == '1';
    return GCB_OK;
  }
  *out = stderr_terminal || launcher_terminal;
  return GCB_OK;
}

enum gcb_status gcb_progress_wanted(const struct gcb_run_opts *opts, bool *out,
                                    struct gcb_err *err) {
  const char *env = getenv("GCB_PROGRESS");
  bool asked =
      opts->progress || opts->no_progress || (env != NULL && env[0] != '\0');
  /* The terminals are looked at only when nothing was asked. */
  bool tty = !asked && isatty(STDERR_FILENO);
  bool launcher = !asked && !tty && launcher_has_terminal();
  return gcb__progress_decide(opts, env, tty, launcher, out, err);
}
