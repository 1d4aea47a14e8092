/*
 * The watchdog's progress port against a hostile local peer
 * (docs/ROBUSTNESS.md): a forged HELLO, signal or PROGRESS from a plain
 * connect to rank 0's watchdog does not change a healthy run's outcome,
 * and a flood of connections neither exhausts rank 0's descriptors nor
 * makes its watchdog spin. Runs of the executable under mpiexec -n 2 (the
 * null benchmark on the null backend, cases that last), attacked while
 * they run.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests/e2e/run_gcbench.h"

static void make_dir(void) {
  gcb_test_dir_make("gcb-wdauth");
}

TestSuite(wdauth, .init = make_dir, .fini = gcb_test_dir_remove,
          .timeout = 180);

#define CASES 30

static const char *const run_args[] = {
    "null",   "--backend", "null", "--cases",  "30", "--sleep-us",
    "100000", "--iters",   "1",    "--warmup", "0",  "--timeout",
    "60",     "--output",  NULL,   NULL};

static struct gcb_test_job start_run(void) {
  static const char *args[sizeof run_args / sizeof *run_args];
  memcpy(args, run_args, sizeof args);
  args[14] = gcb_test_path("out.json");
  return gcb_test_start(2, NULL, NULL, args);
}

/* Sends `len` bytes on a fresh connection and closes it. */
static void say_once(int port, const void *bytes, size_t len) {
  int fd = gcb_test_connect(port);
  cr_assert_geq(fd, 0, "connect to port %d", port);
  cr_expect_eq(send(fd, bytes, len, MSG_NOSIGNAL), (ssize_t)len);
  struct timespec ts = {.tv_nsec = 50000000};
  nanosleep(&ts, NULL);
  close(fd);
}

/* The run ended as if nobody had interfered. */
static void expect_healthy_end(struct gcb_test_job job) {
  int code = gcb_test_finish(job, 120, NULL);
  char *err = gcb_test_slurp("stderr");
  cr_expect_eq(code, 0, "exit %d: %s", code, err);
  cr_expect_str_eq(err, "", "nothing said");
  free(err);
  struct gcb_results *r = gcb_test_load("out.json");
  json_t *run = gcb_test_section(r, "run");
  cr_expect_str_eq(json_string_value(json_object_get(run, "status")),
                   "complete");
  cr_expect_eq(json_array_size(gcb_test_section(r, "cases")), CASES);
  cr_expect_eq(json_array_size(gcb_test_section(r, "errors")), 0);
  gcb_results_free(r);
}

/* Forged messages of both layouts: the old unauthenticated 16 bytes and
 * the sealed 64 with a MAC the forger cannot know. */
struct old_msg {
  uint8_t type, phase;
  uint16_t pad;
  uint32_t a;
  uint64_t b;
};

struct new_msg {
  uint8_t type, phase, dir, pad;
  uint32_t rank, a, pad2;
  uint64_t b, counter;
  uint8_t mac[32];
};

Test(wdauth, forged_hello_signal_and_progress_change_nothing) {
  struct gcb_test_job job = start_run();
  long pid0 = gcb_test_pid_after("out.json", 1, 0, job);
  long pid1 = gcb_test_pid_after("out.json", 1, 1, job);
  int ports[1] = {gcb_test_watchdog_port(pid0, pid1)};
  cr_assert_geq(ports[0], 0, "one watchdog port");
  for (int i = 0; i < 1; i++) {
    const struct old_msg old[] = {
        {.type = 1, .a = 1},              /* HELLO for rank 1, then close */
        {.type = 5, .a = 2},              /* SIGINT */
        {.type = 2, .a = 1000, .b = 1e9}, /* PROGRESS far ahead */
    };
    for (size_t k = 0; k < 3; k++) {
      say_once(ports[i], &old[k], sizeof old[k]);
      /* Hello, then the same forged message on one connection. */
      const struct old_msg two[2] = {old[0], old[k]};
      say_once(ports[i], two, sizeof two);
    }
    for (uint8_t type = 1; type <= 5; type++)
      for (uint64_t counter = 1; counter < 4; counter++) {
        struct new_msg m = {
            .type = type, .dir = 1, .rank = 1, .a = 2, .counter = counter};
        memset(m.mac, (int)counter, sizeof m.mac);
        say_once(ports[i], &m, sizeof m);
      }
  }
  expect_healthy_end(job);
}

/* The watchdog thread's CPU seconds (utime + stime), by its name. */
static double watchdog_cpu(long pid) {
  char dir[64], path[128], comm[64], stat[1024];
  snprintf(dir, sizeof dir, "/proc/%ld/task", pid);
  DIR *d = opendir(dir);
  double cpu = -1;
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
    snprintf(path, sizeof path, "%s/%s/comm", dir, e->d_name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
      continue;
    bool ours =
        fgets(comm, sizeof comm, f) && strncmp(comm, "gcb-watchdog", 12) == 0;
    fclose(f);
    snprintf(path, sizeof path, "%s/%s/stat", dir, e->d_name);
    if (!ours || (f = fopen(path, "r")) == NULL)
      continue;
    unsigned long ut = 0, st = 0;
    if (fgets(stat, sizeof stat, f)) {
      const char *p = strrchr(stat, ')');
      if (p &&
          sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
                 &ut, &st) == 2)
        cpu = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
    }
    fclose(f);
  }
  if (d)
    closedir(d);
  return cpu;
}

static int open_fds(long pid) {
  char dir[64];
  snprintf(dir, sizeof dir, "/proc/%ld/fd", pid);
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d)) != NULL;)
    n += e->d_name[0] != '.';
  if (d)
    closedir(d);
  return n;
}

Test(wdauth, a_flood_of_connections_neither_exhausts_descriptors_nor_spins) {
  struct rlimit rl;
  cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
  rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);
  struct gcb_test_job job = start_run();
  long pid0 = gcb_test_pid_after("out.json", 1, 0, job);
  long pid1 = gcb_test_pid_after("out.json", 1, 1, job);
  int ports[1] = {gcb_test_watchdog_port(pid0, pid1)}, nports = 1;
  cr_assert_geq(ports[0], 0, "one watchdog port");
  int before = open_fds(pid0);
  double cpu0 = watchdog_cpu(pid0);
  cr_assert_geq(cpu0, 0, "the watchdog thread is found by its name");
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  enum { FLOOD = 2000 };
  static int fds[FLOOD];
  int held = 0, most = 0;
  for (int i = 0; i < FLOOD; i++) {
    fds[i] = gcb_test_connect(ports[i % nports]);
    held += fds[i] >= 0;
    if (i % 200 == 0) {
      int now = open_fds(pid0);
      most = now > most ? now : most;
    }
  }
  struct timespec pause = {.tv_sec = 2};
  nanosleep(&pause, NULL);
  int now = open_fds(pid0);
  most = now > most ? now : most;
  double cpu1 = watchdog_cpu(pid0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  for (int i = 0; i < FLOOD; i++)
    if (fds[i] >= 0)
      close(fds[i]);
  double wall = (double)(t1.tv_sec - t0.tv_sec) +
                1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  cr_expect_gt(held, 100, "the flood connected (%d)", held);
  /* A connection per rank and 16 more at most. */
  cr_expect_lt(most, before + 40, "rank 0 held %d descriptors (%d before)",
               most, before);
  /* Spinning on accept errors cost ~40 % of a core; draining a flood
   * costs a small share. */
  cr_expect_lt(cpu1 - cpu0, 0.25 * wall,
               "watchdog thread: %.2f s CPU in %.2f s", cpu1 - cpu0, wall);
  expect_healthy_end(job);
}
