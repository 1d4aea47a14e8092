/*
 * The watchdog's naming rule: from each rank's last reported progress,
 * which ranks had not finished when a case timed out, and the one line
 * that says so. (The thread, the connections and the exit are exercised
 * end to end in test_robust.c.)
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/run/watchdog.h"

#define R(q, s, p)                                                             \
  { .heard = true, .seq = (q), .step = (s), .phase = (p) }

static const char names[4][96] = {"n0, GPU 0", "n0, GPU 1", "n1, GPU 0",
                                  "n1, GPU 1"};

struct laggard_case {
  const char *what;
  struct gcb__wd_rank ranks[4];
  int n;
  int want[4];
  int nwant;
};

static const struct laggard_case laggard_cases[] = {
    {"one rank behind in steps",
     {R(3, 7, GCB_WD_MEASURE), R(3, 6, GCB_WD_MEASURE), R(3, 7, GCB_WD_MEASURE),
      R(3, 7, GCB_WD_MEASURE)},
     4,
     {1},
     1},
    {"one rank still in the previous case",
     {R(3, 1, GCB_WD_SETUP), R(2, 9, GCB_WD_RECORD), R(3, 1, GCB_WD_SETUP),
      R(3, 1, GCB_WD_SETUP)},
     4,
     {1},
     1},
    {"nobody behind: every rank",
     {R(3, 5, GCB_WD_MEASURE), R(3, 5, GCB_WD_MEASURE), R(3, 5, GCB_WD_MEASURE),
      R(3, 5, GCB_WD_MEASURE)},
     4,
     {0, 1, 2, 3},
     4},
    {"a dead rank and a silent one",
     {R(3, 5, GCB_WD_MEASURE),
      {.heard = true, .dead = true, .seq = 3, .step = 5},
      {.heard = false},
      R(3, 5, GCB_WD_MEASURE)},
     4,
     {1, 2},
     2},
    {"two ranks behind",
     {R(1, 2, GCB_WD_GATHER), R(1, 1, GCB_WD_MEASURE), R(1, 0, GCB_WD_SETUP),
      R(1, 2, GCB_WD_GATHER)},
     4,
     {1, 2},
     2},
    {"a lone rank", {R(1, 1, GCB_WD_MEASURE)}, 1, {0}, 1},
};

Test(watchdog, names_the_ranks_behind_the_furthest_one) {
  for (size_t i = 0; i < sizeof laggard_cases / sizeof *laggard_cases; i++) {
    const struct laggard_case *c = &laggard_cases[i];
    int out[4] = {-1, -1, -1, -1};
    int k = gcb__watchdog_laggards(c->ranks, c->n, out);
    cr_expect_eq(k, c->nwant, "%s: %d ranks", c->what, k);
    for (int j = 0; j < c->nwant && j < k; j++)
      cr_expect_eq(out[j], c->want[j], "%s: [%d]", c->what, j);
  }
}

Test(watchdog, the_line_names_bench_case_ranks_and_phases) {
  const struct gcb__wd_rank ranks[4] = {
      R(3, 7, GCB_WD_MEASURE), R(3, 6, GCB_WD_MEASURE), R(3, 7, GCB_WD_MEASURE),
      R(3, 7, GCB_WD_MEASURE)};
  char buf[512];
  gcb__watchdog_timeout_message(buf, sizeof buf, "coll",
                                "case 'allreduce float sum 8B in-place'", 2.5,
                                ranks, 4, names);
  cr_expect_str_eq(buf, "coll case 'allreduce float sum 8B in-place' did not "
                        "finish within 2.5 s; not finished: rank 1 (n0, GPU "
                        "1) in measure");
  cr_expect_null(strchr(buf, '\n'));
}

Test(watchdog, when_no_rank_is_behind_every_rank_is_listed) {
  const struct gcb__wd_rank ranks[2] = {R(1, 4, GCB_WD_MEASURE),
                                        {.heard = true, .dead = true}};
  const struct gcb__wd_rank same[2] = {R(1, 4, GCB_WD_OPEN),
                                       R(1, 4, GCB_WD_OPEN)};
  char buf[512];
  gcb__watchdog_timeout_message(buf, sizeof buf, "coll", "set-up", 600, same, 2,
                                names);
  cr_expect_str_eq(buf, "coll set-up did not finish within 600 s; no rank is "
                        "behind, still inside it: rank 0 (n0, GPU 0) in "
                        "set-up, rank 1 (n0, GPU 1) in set-up");
  gcb__watchdog_timeout_message(buf, sizeof buf, "gemm", "case 3 of 4", 10,
                                ranks, 2, NULL);
  cr_expect_str_eq(buf, "gemm case 3 of 4 did not finish within 10 s; not "
                        "finished: rank 1 died");
}

Test(watchdog, many_ranks_are_summed_up_after_eight) {
  struct gcb__wd_rank ranks[100];
  for (int r = 0; r < 100; r++)
    ranks[r] = (struct gcb__wd_rank)R(1, r == 0 ? 9 : 1, GCB_WD_GATHER);
  char buf[1024];
  gcb__watchdog_timeout_message(buf, sizeof buf, "coll", "case 1 of 1", 1,
                                ranks, 100, NULL);
  cr_expect(strstr(buf, "rank 8 in gather and 91 more") != NULL, "%s", buf);
  cr_expect(strstr(buf, "rank 0 ") == NULL, "%s", buf);
  /* A short buffer truncates, never overflows. */
  char small[40];
  gcb__watchdog_timeout_message(small, sizeof small, "coll", "case 1 of 1", 1,
                                ranks, 100, NULL);
  cr_expect_eq(strlen(small), sizeof small - 1);
}

Test(watchdog, phases_have_words) {
  cr_expect_str_eq(gcb_watchdog_phase_name(GCB_WD_MEASURE), "measure");
  cr_expect_str_eq(gcb_watchdog_phase_name(GCB_WD_OPEN), "set-up");
  cr_expect_str_eq(gcb_watchdog_phase_name(-1), "?");
  cr_expect_str_eq(gcb_watchdog_phase_name(GCB_WD_PHASE_COUNT), "?");
}

Test(watchdog, calls_without_a_watchdog_do_nothing) {
  gcb_watchdog_arm(NULL, "coll", "case 1 of 1");
  gcb_watchdog_label(NULL, "x");
  gcb_watchdog_phase(NULL, GCB_WD_MEASURE);
  gcb_watchdog_disarm(NULL);
  gcb_watchdog_step(NULL);
  gcb_watchdog_stop(NULL);
}

/* ---- the deadline, driven directly ---------------------------------------
 * One rank needs no MPI: the watchdog runs in a forked child, armed with a
 * short deadline; what its record callback is handed, what it says on
 * stderr and the exit code are the contract. */

static void nap_ms(long ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
  nanosleep(&ts, NULL);
}

struct fatal_log {
  int fd;
};

static bool log_fatal(void *arg, enum gcb_status code, const char *run_status,
                      int rank, const char *bench, const char *label,
                      const char *message) {
  struct fatal_log *log = arg;
  dprintf(log->fd, "%d|%s|%d|%s|%s|%s", (int)code, run_status, rank, bench,
          label, message);
  return true;
}

/* Runs `body` in a child whose stderr and record log are files; returns
 * its exit code, the log and stderr in the buffers. */
static int in_child(void (*body)(struct gcb_watchdog_opts *), char *log,
                    char *err, size_t len) {
  char logpath[] = "/tmp/gcb-wd-log-XXXXXX",
       errpath[] = "/tmp/gcb-wd-err-XXXXXX";
  int lfd = mkstemp(logpath), efd = mkstemp(errpath);
  cr_assert(lfd >= 0 && efd >= 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(efd, STDERR_FILENO);
    struct fatal_log fl = {.fd = lfd};
    struct gcb_watchdog_opts wo = {.timeout_s = 0.3,
                                   .results_path = "r.json",
                                   .record = log_fatal,
                                   .arg = &fl};
    body(&wo);
    _exit(0);
  }
  int status = 0;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  ssize_t n = pread(lfd, log, len - 1, 0);
  log[n > 0 ? n : 0] = '\0';
  n = pread(efd, err, len - 1, 0);
  err[n > 0 ? n : 0] = '\0';
  close(lfd), close(efd), unlink(logpath), unlink(errpath);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void arm_and_hang(struct gcb_watchdog_opts *wo) {
  struct gcb_ctx ctx = {.rank = 0, .size = 1};
  struct gcb_watchdog *w = NULL;
  if (gcb_watchdog_start(&ctx, wo, &w) != GCB_OK)
    _exit(99);
  gcb_watchdog_arm(w, "null", "case 1 of 1");
  gcb_watchdog_label(w, "null 0");
  gcb_watchdog_phase(w, GCB_WD_MEASURE);
  for (int i = 0; i < 100; i++) { /* steps do not move a deadline */
    gcb_watchdog_step(w);
    nap_ms(50);
  }
  _exit(98);
}

static void disarm_in_time(struct gcb_watchdog_opts *wo) {
  struct gcb_ctx ctx = {.rank = 0, .size = 1};
  struct gcb_watchdog *w = NULL;
  if (gcb_watchdog_start(&ctx, wo, &w) != GCB_OK)
    _exit(99);
  for (int i = 0; i < 4; i++) { /* four cases of 0.1 s: 0.4 s in all */
    gcb_watchdog_arm(w, "null", "case");
    nap_ms(100);
    gcb_watchdog_disarm(w);
  }
  nap_ms(600); /* between cases: no deadline */
  gcb_watchdog_stop(w);
}

Test(watchdog, a_case_past_its_deadline_ends_the_process_with_exit_4) {
  char log[2048], err[2048];
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int code = in_child(arm_and_hang, log, err, sizeof log);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double took =
      (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  cr_expect_eq(code, 4, "exit %d: %s", code, err);
  cr_expect_lt(took, 4.0, "ended at its deadline, not by the child's end");
  char head[64];
  snprintf(head, sizeof head, "%d|timeout|0|null|null 0|", (int)GCB_ETIMEOUT);
  cr_expect(strncmp(log, head, strlen(head)) == 0, "%s", log);
  cr_expect(strstr(log, "null case 'null 0' did not finish within 0.3 s") !=
                NULL,
            "%s", log);
  cr_expect(strstr(log, "rank 0 in measure") != NULL, "%s", log);
  cr_expect(strstr(err, "gcbench: error: timeout: null case 'null 0'") != NULL,
            "%s", err);
  cr_expect(strstr(err, "results so far in r.json") != NULL, "%s", err);
}

/* A case meant to take 0.4 s (burn's --duration) under --timeout 0.3:
 * its limit is 0.7 s, and the timeout line says so, not "0.3 s". */
static void extend_and_hang(struct gcb_watchdog_opts *wo) {
  struct gcb_ctx ctx = {.rank = 0, .size = 1};
  struct gcb_watchdog *w = NULL;
  if (gcb_watchdog_start(&ctx, wo, &w) != GCB_OK)
    _exit(99);
  gcb_watchdog_arm(w, "burn", "case 1 of 1");
  gcb_watchdog_label(w, "burn 0");
  gcb_watchdog_extend(w, 0.4);
  gcb_watchdog_phase(w, GCB_WD_MEASURE);
  nap_ms(5000);
  _exit(98);
}

Test(watchdog, an_extended_case_names_its_whole_limit) {
  char log[2048], err[2048];
  int code = in_child(extend_and_hang, log, err, sizeof log);
  cr_expect_eq(code, 4, "exit %d: %s", code, err);
  cr_expect(strstr(log, "burn case 'burn 0' did not finish within 0.7 s") !=
                NULL,
            "%s", log);
}

Test(watchdog, cases_that_finish_in_time_and_the_time_between_are_left_alone) {
  char log[2048], err[2048];
  int code = in_child(disarm_in_time, log, err, sizeof log);
  cr_expect_eq(code, 0, "exit %d: %s", code, err);
  cr_expect_str_eq(log, "", "nothing recorded");
  cr_expect_str_eq(err, "", "nothing said");
}

/* A case of 80 ms under --timeout 0.03: the deadline falls inside the
 * watchdog's 100 ms tick and must still be kept (once a case that ended
 * before the next tick escaped it about half the time). */
static void short_case_past_a_short_deadline(struct gcb_watchdog_opts *wo) {
  struct gcb_ctx ctx = {.rank = 0, .size = 1};
  struct gcb_watchdog *w = NULL;
  wo->timeout_s = 0.03;
  if (gcb_watchdog_start(&ctx, wo, &w) != GCB_OK)
    _exit(99);
  nap_ms(150); /* the thread is well into a tick */
  gcb_watchdog_arm(w, "null", "case");
  nap_ms(80);
  gcb_watchdog_disarm(w);
  nap_ms(300);
  gcb_watchdog_stop(w);
}

Test(watchdog, deadlines_under_a_tick_are_kept) {
  for (int i = 0; i < 5; i++) {
    char log[2048], err[2048];
    int code = in_child(short_case_past_a_short_deadline, log, err, sizeof log);
    cr_expect_eq(code, 4, "try %d: exit %d: %s", i, code, err);
    cr_expect(strstr(log, "did not finish within 0.03 s") != NULL, "%s", log);
  }
}

static const char evil_names[1][96] = {"evil\033[2J\nhost, CPUs 0"};

static void arm_and_hang_named(struct gcb_watchdog_opts *wo) {
  wo->rank_names = evil_names;
  arm_and_hang(wo);
}

/* The watchdog's timeout line goes through the one escaping path. */
Test(watchdog, names_in_the_timeout_line_are_escaped) {
  char log[2048], err[2048];
  int code = in_child(arm_and_hang_named, log, err, sizeof log);
  cr_expect_eq(code, 4, "exit %d: %s", code, err);
  cr_expect(strstr(err, "rank 0 (evil\\x1b[2J\\x0ahost, CPUs 0) in measure") !=
                NULL,
            "%s", err);
  cr_expect_null(strchr(err, '\033'), "no raw escape: %s", err);
  cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
}
