/*
 * The watchdog admits every rank of the job (docs/ROBUSTNESS.md): 24 ranks
 * under mpiexec (the null benchmark on the null backend) with rank 0's
 * first accept held back (GCB_TEST_WD_ACCEPT_DELAY, as a loaded node
 * would), and with another local process holding 20 idle connections to
 * the watchdog's port while rank 1 dials late (GCB_TEST_WD_CONNECT_DELAY).
 * A rank the watchdog has heard is named by its phase when the run times
 * out, and by its number when it dies; one it never heard is named too.
 * Once 7 of 23 ranks were closed at admission and never dialled again:
 * the timeout called them silent, a killed one was never named (`rank:
 * -1`) and six ranks said "rank 0 did not end the run".
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/e2e/run_gcbench.h"

static void make_dir(void) {
  gcb_test_dir_make("gcb-wdadmit");
}

static void end_suite(void) {
  unsetenv("GCB_TEST_WD_ACCEPT_DELAY");
  unsetenv("GCB_TEST_WD_CONNECT_DELAY");
  gcb_test_dir_remove();
}

TestSuite(wdadmit, .init = make_dir, .fini = end_suite, .timeout = 240);

#define RANKS 24

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
    n++;
  return n;
}

/* `null` cases of `sleep_us` each; rank `stall` stops in case 0 (-1: no
 * rank does); the document is dir/out.json. */
static struct gcb_test_job start_run(int ranks, int cases, const char *sleep_us,
                                     const char *timeout, const char *stall,
                                     const char *const *launcher,
                                     const char *const *wrap) {
  static char ncases[16];
  snprintf(ncases, sizeof ncases, "%d", cases);
  const char *args[20] = {"null",     "--backend", "null",
                          "--cases",  ncases,      "--sleep-us",
                          sleep_us,   "--iters",   "1",
                          "--warmup", "0",         "--timeout",
                          timeout,    "--output",  gcb_test_path("out.json")};
  int n = 15;
  if (stall != NULL) {
    args[n++] = "--stall-rank";
    args[n++] = stall;
  }
  args[n] = NULL;
  return gcb_test_start(ranks, launcher, wrap, args);
}

/* The run ended at the timeout of case 0, where `stalled` stopped, naming
 * that rank alone by its phase: every other rank was heard, and so was
 * the stalled one (its watchdog reports while it stalls). */
static void expect_only_rank_named(int status, int stalled) {
  char *err = gcb_test_slurp("stderr");
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) != 0, "%s", err);
  char want[64];
  snprintf(want, sizeof want, "not finished: rank %d (", stalled);
  cr_expect(strstr(err, want) != NULL, "names rank %d alone: %s", stalled, err);
  cr_expect(strstr(err, "silent") == NULL, "a rank was never heard: %s", err);
  cr_expect(strstr(err, ") in measure; results so far in") != NULL, "%s", err);
  struct gcb_results *r = gcb_test_load("out.json");
  json_t *errors = gcb_test_section(r, "errors");
  cr_expect_eq(json_array_size(errors), 1);
  cr_expect_eq(
      json_integer_value(json_object_get(json_array_get(errors, 0), "rank")),
      stalled);
  gcb_results_free(r);
  free(err);
}

Test(wdadmit, every_rank_is_admitted_when_the_first_accept_is_late) {
  /* Rank 23 dials after the others: it is behind them in the backlog,
   * where the ranks past the first 16 were closed. */
  setenv("GCB_TEST_WD_ACCEPT_DELAY", "1", 1);
  setenv("GCB_TEST_WD_CONNECT_DELAY", "23:0.5", 1);
  struct gcb_test_job job =
      start_run(RANKS, 5, "10000", "8", "23:0", NULL, NULL);
  unsetenv("GCB_TEST_WD_ACCEPT_DELAY");
  unsetenv("GCB_TEST_WD_CONNECT_DELAY");
  expect_only_rank_named(gcb_test_finish(job, 180, NULL), 23);
}

/* Each rank's exit status, as its shell writes it into dir/exit.RANK (a
 * file: now and then mpiexec itself fails an assertion as the processes
 * end, "control_cb ... assert (!closed) failed", and its pipes go with
 * it). The shell ignores the launcher's SIGUSR1 and outlives gcbench. */
static const char *const *report_exit(void) {
  static char cmd[512];
  static const char *wrap[] = {"/bin/sh", "-c", cmd, NULL};
  snprintf(cmd, sizeof cmd,
           "trap '' USR1; \"$0\" \"$@\"; rc=$?; echo $rc >%s/exit.$PMI_RANK; "
           "exit $rc",
           gcb_test_dir());
  return wrap;
}
static const char *const keep_others[] = {"-disable-auto-cleanup", NULL};

/* Every rank but `killed` that reported its end ended with exit code 3 (a
 * rank died), none of a signal: mpiexec itself reports the bitwise OR of
 * its processes' codes (137 | 3 = 139, which reads like a SIGSEGV and is
 * none). The killed rank must report; of the others, a shell the launcher
 * tore down as the job ended writes nothing (seen once in CI on a loaded
 * machine), so most, not all, must have reported. */
static void expect_clean_ends(int ranks, int killed) {
  int reported = 0;
  double t0 = now();
  for (int r = 0; r < ranks; r++) {
    char name[32], path[300];
    snprintf(name, sizeof name, "exit.%d", r);
    snprintf(path, sizeof path, "%s", gcb_test_path(name));
    while (access(path, R_OK) != 0 && now() < t0 + 30)
      nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
    if (access(path, R_OK) != 0) {
      cr_expect_neq(r, killed, "the killed rank %d reported no end", r);
      continue;
    }
    char *text = gcb_test_read(path);
    cr_expect_eq(atoi(text), r == killed ? 137 : 3, "rank %d exit %s", r, text);
    free(text);
    reported++;
  }
  cr_expect_geq(reported, (ranks * 3 + 3) / 4, "%d of %d ranks reported",
                reported, ranks);
}

Test(wdadmit, a_killed_rank_is_named_by_its_number_when_the_accept_was_late) {
  setenv("GCB_TEST_WD_ACCEPT_DELAY", "1", 1);
  setenv("GCB_TEST_WD_CONNECT_DELAY", "23:0.5", 1);
  struct gcb_test_job job =
      start_run(RANKS, 400, "50000", "60", NULL, keep_others, report_exit());
  unsetenv("GCB_TEST_WD_ACCEPT_DELAY");
  unsetenv("GCB_TEST_WD_CONNECT_DELAY");
  long pid = gcb_test_pid_after("out.json", 3, 23, job);
  cr_assert_eq(gcb_test_kill(&job, (pid_t)pid, SIGKILL), 0);
  int status = gcb_test_finish(job, 60, NULL);
  char *err = gcb_test_slurp("stderr");
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) != 0, "%s", err);
  cr_expect_eq(count(err, "gcbench: "), 1, "one line: %s", err);
  cr_expect(strstr(err, "gcbench: error: rank died: rank 23 (") != NULL, "%s",
            err);
  cr_expect(strstr(err, "did not end the run") == NULL, "%s", err);
  expect_clean_ends(RANKS, 23);
  struct gcb_results *r = gcb_test_load("out.json");
  json_t *errors = gcb_test_section(r, "errors");
  cr_expect_eq(json_array_size(errors), 1);
  cr_expect_eq(
      json_integer_value(json_object_get(json_array_get(errors, 0), "rank")),
      23);
  gcb_results_free(r);
  free(err);
}

/* ---- idle connections of another process ---------------------------------*/

#define IDLE 20

/* The other process: IDLE connections to port, each one rank 0 closes
 * opened again 100 ms later, until it is killed. */
static _Noreturn void hold_idle(int port) {
  struct pollfd p[IDLE];
  double closed[IDLE];
  for (int i = 0; i < IDLE; i++) {
    p[i] = (struct pollfd){.fd = gcb_test_connect(port), .events = POLLIN};
    closed[i] = 0;
  }
  for (;;) {
    poll(p, IDLE, 20);
    double t = now();
    char buf[64];
    for (int i = 0; i < IDLE; i++) {
      if (p[i].fd >= 0 && p[i].revents &&
          recv(p[i].fd, buf, sizeof buf, 0) <= 0) {
        close(p[i].fd);
        p[i].fd = -1;
        closed[i] = t;
      }
      if (p[i].fd < 0 && t > closed[i] + 0.1)
        p[i].fd = gcb_test_connect(port);
      p[i].revents = 0;
    }
  }
}

Test(wdadmit, idle_connections_of_another_process_lock_no_rank_out) {
  /* Rank 1 dials 5 s after the watchdogs start: the idle connections are
   * in place by then. */
  setenv("GCB_TEST_WD_CONNECT_DELAY", "1:5", 1);
  struct gcb_test_job job =
      start_run(RANKS, 5, "10000", "12", "1:0", NULL, NULL);
  unsetenv("GCB_TEST_WD_CONNECT_DELAY");
  long pid0 = gcb_test_pid_after("out.json", 0, 0, job);
  long pid2 = gcb_test_pid_after("out.json", 0, 2, job);
  double seen = now();
  int port = -1;
  while (port < 0 && now() < seen + 3) {
    port = gcb_test_watchdog_port(pid0, pid2);
    nanosleep(&(struct timespec){.tv_nsec = 20000000}, NULL);
  }
  cr_assert_geq(port, 0, "rank 2 connected to one watchdog port");
  pid_t holder = fork();
  cr_assert_geq(holder, 0);
  if (holder == 0)
    hold_idle(port);
  cr_expect_lt(now() - seen, 3.5, "the idle connections came late");
  /* The holder outlives the run. */
  int status = gcb_test_finish(job, 180, NULL);
  kill(holder, SIGKILL);
  waitpid(holder, NULL, 0);
  expect_only_rank_named(status, 1);
}

/* ---- a rank that never reaches the watchdog ------------------------------*/

Test(wdadmit, a_rank_never_heard_is_named_and_so_is_its_death) {
  setenv("GCB_TEST_WD_CONNECT_DELAY", "3:3000", 1);
  struct gcb_test_job job =
      start_run(4, 1000, "50000", "60", NULL, keep_others, report_exit());
  unsetenv("GCB_TEST_WD_CONNECT_DELAY");
  long pid = gcb_test_pid_after("out.json", 1, 3, job);
  const char *said = "gcbench: warning: the watchdog has no connection from "
                     "rank 3 (";
  char *err = gcb_test_slurp("stderr");
  for (double t0 = now(); strstr(err, said) == NULL && now() < t0 + 30;) {
    free(err);
    nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
    err = gcb_test_slurp("stderr");
  }
  cr_expect(strstr(err, said) != NULL, "%s", err);
  free(err);
  cr_assert_eq(gcb_test_kill(&job, (pid_t)pid, SIGKILL), 0);
  int status = gcb_test_finish(job, 60, NULL);
  err = gcb_test_slurp("stderr");
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) != 0, "%s", err);
  cr_expect(strstr(err,
                   "gcbench: error: rank died: a process of the job "
                   "ended (the launcher said so) during null case") != NULL,
            "%s", err);
  cr_expect(
      strstr(err, "; rank 0's watchdog has no connection from rank 3 (") !=
          NULL,
      "%s", err);
  expect_clean_ends(4, 3);
  struct gcb_results *r = gcb_test_load("out.json");
  json_t *errors = gcb_test_section(r, "errors");
  cr_expect_eq(json_array_size(errors), 1);
  cr_expect_eq(
      json_integer_value(json_object_get(json_array_get(errors, 0), "rank")),
      3);
  gcb_results_free(r);
  free(err);
}
