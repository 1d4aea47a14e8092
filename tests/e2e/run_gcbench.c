/* Running the gcbench executable from tests; see run_gcbench.h. */
#include "tests/e2e/run_gcbench.h"
#include "tests/reports/results_read.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
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

const char *gcb_test_dir(void) {
  return dir;
}

const char *gcb_test_path(const char *name) {
  static char paths[16][256];
  static int next;
  char *p = paths[next++ % 16];
  snprintf(p, sizeof paths[0], "%s/%s", dir, name);
  return p;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct gcb_test_job gcb_test_start(int ranks, const char *const *launcher,
                                   const char *const *wrap,
                                   const char *const *args) {
  const char *argv[80];
  int n = 0;
  char nbuf[16];
  if (ranks > 0) {
    argv[n++] = GCB_MPIEXEC;
    for (int i = 0; launcher && launcher[i]; i++)
      argv[n++] = launcher[i];
    snprintf(nbuf, sizeof nbuf, "%d", ranks);
    argv[n++] = "-n";
    argv[n++] = nbuf;
  }
  for (int i = 0; wrap && wrap[i]; i++)
    argv[n++] = wrap[i];
  argv[n++] = GCB_BINARY;
  for (int i = 0; args[i] && n < 79; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  /* Own buffers: args may hold gcb_test_path results still in use. */
  char out[256], err[256];
  snprintf(out, sizeof out, "%s/stdout", dir);
  snprintf(err, sizeof err, "%s/stderr", dir);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  struct gcb_test_job job = {.start = now()};
  int rc = posix_spawn(&job.pid, argv[0], &fa, NULL, (char **)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  cr_assert_eq(rc, 0, "spawn %s", argv[0]);
  return job;
}

int gcb_test_kill(struct gcb_test_job *job, pid_t pid, int sig) {
  job->start = now();
  return kill(pid, sig);
}

int gcb_test_finish(struct gcb_test_job job, double limit, double *elapsed) {
  int status = 0;
  for (;;) {
    pid_t got = waitpid(job.pid, &status, limit > 0 ? WNOHANG : 0);
    cr_assert_geq(got, 0);
    if (got == job.pid)
      break;
    if (now() - job.start > limit) {
      kill(job.pid, SIGTERM);
      waitpid(job.pid, &status, 0);
      cr_assert_fail("still running after %g s: it hung", limit);
    }
    nanosleep(&(struct timespec){.tv_nsec = 20000000}, NULL);
  }
  if (elapsed)
    *elapsed = now() - job.start;
  return status;
}

int gcb_test_run(int ranks, const char *const *args, double limit,
                 double *elapsed) {
  int status =
      gcb_test_finish(gcb_test_start(ranks, NULL, NULL, args), limit, elapsed);
  cr_assert(WIFEXITED(status), "gcbench died of signal %d",
            WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return WEXITSTATUS(status);
}

int gcb_test_gcbench(int ranks, const char *const *args) {
  return gcb_test_run(ranks, args, 0, NULL);
}

/* How long a run may take to write its first cases: 90 s. Under ASan
 * beside the other tests on 2 cores, a launch once took over 30 s (CI,
 * 2026-12-01) for what takes 1 s alone; a run that never gets there still
 * fails, only later. */
#define PID_AFTER_POLLS 1800 /* of 50 ms */

long gcb_test_pid_after(const char *name, size_t n, int rank,
                        struct gcb_test_job job) {
  for (int i = 0; i < PID_AFTER_POLLS; i++) {
    struct gcb_results *r = NULL;
    struct gcb_err err = {0};
    if (fx_results_read(gcb_test_path(name), &r, &err) == GCB_OK) {
      size_t have = json_array_size(gcb_test_section(r, "cases"));
      json_t *ranks = gcb_test_section(r, "ranks");
      long pid = (long)json_integer_value(
          json_object_get(json_array_get(ranks, (size_t)rank), "pid"));
      gcb_results_free(r);
      if (have >= n)
        return pid;
    }
    cr_assert_eq(waitpid(job.pid, NULL, WNOHANG), 0, "the run ended early: %s",
                 gcb_test_slurp("stderr"));
    nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
  }
  cr_assert_fail("no %zu cases after %d s", n, PID_AFTER_POLLS / 20);
  return -1;
}

void gcb_test_feed_start(struct gcb_test_feed *feed, const char *text,
                         size_t len) {
  int fds[2];
  cr_assert_eq(pipe(fds), 0);
  feed->writer = fork();
  cr_assert_geq(feed->writer, 0);
  if (feed->writer == 0) {
    close(fds[0]);
    static char xs[1 << 16];
    memset(xs, 'x', sizeof xs);
    for (size_t off = 0; off < len;) {
      size_t n = len - off < sizeof xs ? len - off : sizeof xs;
      ssize_t w = write(fds[1], text ? text + off : xs, n);
      if (w <= 0)
        _exit(1); /* the reader gave up */
      off += (size_t)w;
    }
    _exit(0);
  }
  close(fds[1]);
  feed->fd = fds[0];
  snprintf(feed->path, sizeof feed->path, "/dev/fd/%d", fds[0]);
}

void gcb_test_feed_end(struct gcb_test_feed *feed) {
  close(feed->fd);
  waitpid(feed->writer, NULL, 0);
}

char *gcb_test_read(const char *path) {
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "open %s", path);
  size_t cap = 1 << 20, n = 0, got;
  char *buf = malloc(cap);
  cr_assert_not_null(buf);
  while ((got = fread(buf + n, 1, cap - 1 - n, f)) > 0) {
    n += got;
    if (n == cap - 1) {
      buf = realloc(buf, cap *= 2);
      cr_assert_not_null(buf);
    }
  }
  buf[n] = '\0';
  fclose(f);
  return buf;
}

char *gcb_test_slurp(const char *name) {
  return gcb_test_read(gcb_test_path(name));
}

struct gcb_results *gcb_test_load(const char *name) {
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(fx_results_read(gcb_test_path(name), &r, &err), GCB_OK, "%s",
               err.msg);
  /* the per-rank columns in the tree, which the tests walk */
  cr_assert_eq(gcb_results_plain(r, &err), GCB_OK, "%s", err.msg);
  return r;
}

json_t *gcb_test_section(struct gcb_results *r, const char *name) {
  return json_object_get(gcb_results_json(r), name);
}

/* The socket inodes process pid holds. */
static int socket_inodes(long pid, unsigned long *inodes, int max) {
  char dir[64], link[300], target[64];
  int n = 0;
  snprintf(dir, sizeof dir, "/proc/%ld/fd", pid);
  DIR *d = opendir(dir);
  for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL && n < max;) {
    snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
    ssize_t len = readlink(link, target, sizeof target - 1);
    target[len > 0 ? len : 0] = '\0';
    if (sscanf(target, "socket:[%lu]", &inodes[n]) == 1)
      n++;
  }
  if (d != NULL)
    closedir(d);
  return n;
}

/* Loopback TCP sockets of pid in state st (0x0A listening: local port;
 * 0x01 established: remote port). */
static int loopback_ports(long pid, unsigned st_want, bool remote, int *ports,
                          int max) {
  unsigned long inodes[512];
  int ninodes = socket_inodes(pid, inodes, 512), n = 0;
  FILE *f = fopen("/proc/net/tcp", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f) && n < max) {
    unsigned laddr, lport, raddr, rport, st;
    unsigned long ino;
    if (sscanf(line, " %*d: %x:%x %x:%x %x %*s %*s %*s %*d %*d %lu", &laddr,
               &lport, &raddr, &rport, &st, &ino) != 6 ||
        st != st_want || (remote ? raddr : laddr) != 0x0100007F)
      continue;
    for (int i = 0; i < ninodes; i++)
      if (inodes[i] == ino)
        ports[n++] = (int)(remote ? rport : lport);
  }
  if (f)
    fclose(f);
  return n;
}

int gcb_test_watchdog_port(long pid0, long pid1) {
  int listening[16], connected[64];
  int nl = loopback_ports(pid0, 0x0A, false, listening, 16);
  int nc = loopback_ports(pid1, 0x01, true, connected, 64);
  int found = -1, count = 0;
  for (int i = 0; i < nl; i++)
    for (int j = 0; j < nc; j++)
      if (listening[i] == connected[j] && found != listening[i]) {
        found = listening[i];
        count++;
      }
  return count == 1 ? found : -1;
}

/* ---- the watchdog's port --------------------------------------------------*/

int gcb_test_connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET,
                           .sin_port = htons((uint16_t)port)};
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}
