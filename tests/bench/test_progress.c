/*
 * Issues 25 and 31: whether rank 0 shows the progress line is decided as
 * fio's skip_eta() decides its ETA line, by a flag and a terminal test
 * (bench/run/progress.c), never by a process found in /proc by a port or
 * a name: another user's process called srun, listening on
 * SLURM_SRUN_COMM_PORT with a terminal on its stderr, once made a root
 * gcbench write its progress lines into a file.
 */
#define _GNU_SOURCE /* posix_openpt, ptsname */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/run/progress_int.h"

/* One row of the decision: flags, GCB_PROGRESS, the two terminals. */
struct row {
  bool progress, no_progress;
  const char *env;
  bool tty, launcher;
  int want; /* 1 shown, 0 quiet, -1 refused (GCB_EUSAGE) */
};

static const struct row table[] = {
    /* nothing asked: a terminal, rank 0's or its launcher's */
    {false, false, NULL, false, false, 0},
    {false, false, NULL, true, false, 1},
    {false, false, NULL, false, true, 1},
    {false, false, "", true, false, 1},
    {false, false, "", false, false, 0},
    /* the environment before the terminals */
    {false, false, "1", false, false, 1},
    {false, false, "0", true, true, 0},
    {false, false, "yes", true, false, -1},
    {false, false, "10", false, false, -1},
    /* the flags before both */
    {true, false, "0", false, false, 1},
    {false, true, "1", true, true, 0},
    {true, false, "junk", false, false, 1},
    {true, true, NULL, true, false, -1},
};

Test(progress, the_decision_table) {
  for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
    const struct row *r = &table[i];
    struct gcb_run_opts o = {.progress = r->progress,
                             .no_progress = r->no_progress};
    struct gcb_err err = {0};
    bool out = !r->want;
    enum gcb_status st =
        gcb__progress_decide(&o, r->env, r->tty, r->launcher, &out, &err);
    if (r->want < 0) {
      cr_expect_eq(st, GCB_EUSAGE, "row %zu", i);
      cr_expect_eq(out, false, "row %zu: refused is quiet", i);
    } else {
      cr_expect_eq(st, GCB_OK, "row %zu: %s", i, err.msg);
      cr_expect_eq(out, r->want == 1, "row %zu", i);
    }
  }
}

/* A process called srun (another user's, in the attack) holds a socket
 * listening on the port SLURM_SRUN_COMM_PORT names and has a terminal on
 * its stderr; this process's stderr is a file. The line stays off. */
Test(progress, an_srun_found_by_its_port_changes_nothing) {
  int pty = posix_openpt(O_RDWR | O_NOCTTY);
  cr_assert_geq(pty, 0);
  cr_assert_eq(grantpt(pty), 0);
  cr_assert_eq(unlockpt(pty), 0);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  cr_assert_geq(fd, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  cr_assert_eq(listen(fd, 1), 0);
  cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  int ready[2];
  cr_assert_eq(pipe(ready), 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) { /* "srun": its stderr the terminal, the socket held */
    int tty = open(ptsname(pty), O_RDWR | O_NOCTTY);
    if (tty < 0 || dup2(tty, 2) < 0 || prctl(PR_SET_NAME, "srun") != 0)
      _exit(1);
    if (write(ready[1], "x", 1) != 1)
      _exit(1);
    pause();
    _exit(0);
  }
  close(fd);
  char c;
  cr_assert_eq(read(ready[0], &c, 1), 1, "the srun did not start");
  char port[16];
  snprintf(port, sizeof port, "%u", ntohs(a.sin_port));
  cr_assert_eq(setenv("SLURM_SRUN_COMM_PORT", port, 1), 0);
  unsetenv("GCB_PROGRESS");
  /* This process's stderr a file, as a batch job's. */
  int saved = dup(2);
  FILE *file = tmpfile();
  cr_assert_not_null(file);
  cr_assert_geq(dup2(fileno(file), 2), 0);
  struct gcb_run_opts o = {0};
  struct gcb_err err = {0};
  bool out = true;
  enum gcb_status st = gcb_progress_wanted(&o, &out, &err);
  dup2(saved, 2);
  close(saved);
  fclose(file);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  cr_assert_eq(st, GCB_OK, "%s", err.msg);
  cr_expect_eq(out, false, "a process called srun turned the line on");
}
