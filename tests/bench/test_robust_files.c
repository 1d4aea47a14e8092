/*
 * Results files under faults: a writer killed (SIGKILL) at random points of
 * rewriting a large document leaves, at the path, the old document or the
 * new one, complete, never a mixture or a truncated file; the temporary
 * files of killed writers do not pile up; the reader refuses a device or a
 * FIFO at the path without blocking on it.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/run/sink.h"
#include "bench/run/table.h"
#include "common/clock.h"
#include "reports/document/results.h"
#include "tests/reports/results_read.h"

static char dir[64];

static void make_dir(void) {
  snprintf(dir, sizeof dir, "/tmp/gcb-robust-files-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_expect_eq(system(cmd), 0);
}

TestSuite(robust_files, .init = make_dir, .fini = remove_dir, .timeout = 120);

static const char *in_dir(const char *name) {
  static char path[4][256];
  static int next;
  char *p = path[next++ % 4];
  snprintf(p, 256, "%s/%s", dir, name);
  return p;
}

/* A valid document of several MiB whose options carry `marker`, so that a
 * read-back tells which write it came from. */
static struct gcb_results *big_document(const char *marker, int entries) {
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  json_t *tool = json_pack("{s:s, s:s, s:s}", "name", "gcbench", "version", "0",
                           "git_revision", "x");
  json_t *argv = json_pack("[s]", "gcbench");
  json_t *run = json_pack("{s:s, s:s, s:o, s:s, s:n, s:s, s:s, s:s, s:i, s:i}",
                          "id", marker, "command", "test", "command_line", argv,
                          "start_time", "2026-01-01T00:00:00Z", "end_time",
                          "status", "running", "backend", "host",
                          "backend_reason", "test", "ranks", 1, "nodes", 1);
  cr_assert_eq(gcb_results_set(r, "tool", tool, &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(gcb_results_set(r, "run", run, &err), GCB_OK, "%s", err.msg);
  json_t *opts = json_object();
  char key[32];
  for (int i = 0; i < entries; i++) {
    snprintf(key, sizeof key, "padding-%06d", i);
    json_object_set_new(opts, key, json_string(marker));
  }
  json_object_set_new(opts, "marker", json_string(marker));
  cr_assert_eq(gcb_results_set(r, "options", opts, &err), GCB_OK, "%s",
               err.msg);
  return r;
}

/* The marker of the document at path, which must read back whole. */
static char *marker_at(const char *path) {
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(fx_results_read(path, &r, &err), GCB_OK,
               "the document at the path is not whole: %s", err.msg);
  json_t *opts = json_object_get(gcb_results_json(r), "options");
  char *m = strdup(json_string_value(json_object_get(opts, "marker")));
  gcb_results_free(r);
  return m;
}

/* Names in dir other than `keep`, space-separated. */
static void others(const char *keep, char *buf, size_t len) {
  DIR *d = opendir(dir);
  struct dirent *e;
  buf[0] = '\0';
  while (d != NULL && (e = readdir(d)) != NULL)
    if (e->d_name[0] != '.' && strcmp(e->d_name, keep) != 0) {
      strncat(buf, e->d_name, len - strlen(buf) - 1);
      strncat(buf, " ", len - strlen(buf) - 1);
    }
  if (d != NULL)
    closedir(d);
}

/* Seconds one write of r takes here (valgrind makes it 50 times longer). */
static double write_time(struct gcb_results *r, const char *path) {
  struct timespec a, b;
  struct gcb_err err = {0};
  clock_gettime(CLOCK_MONOTONIC, &a);
  cr_assert_eq(gcb_results_write(r, path, &err), GCB_OK, "%s", err.msg);
  clock_gettime(CLOCK_MONOTONIC, &b);
  return (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
}

Test(robust_files, a_writer_killed_mid_write_leaves_the_old_or_the_new_file) {
  const char *path = in_dir("results.json");
  struct gcb_err err = {0};
  /* A document whose write takes about 40 ms here (up to 4 MiB, less
   * under valgrind): long enough to be hit anywhere (dumping, syncing,
   * linking, renaming), short enough for two dozen kills. */
  int entries = 20000;
  struct gcb_results *big = big_document("new", entries);
  double t = write_time(big, in_dir("timing.json"));
  if (t < 0.02) {
    entries = t > 0 && 0.04 / t * entries < 150000 ? (int)(0.04 / t * entries)
                                                   : 150000;
    gcb_results_free(big);
    big = big_document("new", entries);
    t = write_time(big, in_dir("timing.json"));
  }
  unlink(in_dir("timing.json"));
  struct gcb_results *old = big_document("old", 10);
  cr_assert_eq(gcb_results_write(old, path, &err), GCB_OK, "%s", err.msg);
  gcb_results_free(old);
  srand((unsigned)time(NULL));
  int saw_new = 0;
  const int kills = 24;
  for (int i = 0; i < kills; i++) {
    int done[2];
    cr_assert_eq(pipe(done), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) { /* rewrites the document until killed */
      struct gcb_err e = {0};
      close(done[0]);
      for (;;) {
        if (gcb_results_write(big, path, &e) != GCB_OK)
          _exit(1);
        ssize_t n = write(done[1], "w", 1);
        (void)n;
      }
    }
    close(done[1]);
    /* Every other kill after a complete write, so that both outcomes are
     * seen however fast this machine writes; each at a random point
     * within about one write. */
    char c;
    if (i % 2 == 1)
      cr_assert_eq(read(done[0], &c, 1), 1, "the writer failed");
    long ns = (long)((double)rand() / RAND_MAX * t * 1.2e9);
    struct timespec ts = {.tv_sec = ns / 1000000000L,
                          .tv_nsec = ns % 1000000000L};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    close(done[0]);
    cr_assert(WIFSIGNALED(status), "the writer failed instead of being killed");
    char *m = marker_at(path);
    cr_assert(strcmp(m, "old") == 0 || strcmp(m, "new") == 0, "%s", m);
    saw_new += strcmp(m, "new") == 0;
    free(m);
  }
  cr_expect_gt(saw_new, 0);
  /* A write after the kills leaves the path alone in the directory: no
   * temporary file of a killed writer survives it. */
  cr_assert_eq(gcb_results_write(big, path, &err), GCB_OK, "%s", err.msg);
  char left[512];
  others("results.json", left, sizeof left);
  cr_expect_str_eq(left, "", "left behind: %s", left);
  gcb_results_free(big);
}

Test(robust_files, a_stale_temporary_file_of_a_dead_writer_is_removed) {
  const char *path = in_dir("r.json");
  /* A pid that cannot be running: above the kernel's pid limit. */
  char stale[256];
  snprintf(stale, sizeof stale, "%s.tmp.%ld", path, 99999999L);
  FILE *f = fopen(stale, "w");
  cr_assert_not_null(f);
  fputs("{\"half\": ", f);
  fclose(f);
  /* Another file with the same prefix that is not a temporary: kept. */
  FILE *g = fopen(in_dir("r.json.tmp.notapid"), "w");
  cr_assert_not_null(g);
  fclose(g);
  struct gcb_results *r = big_document("x", 1);
  struct gcb_err err = {0};
  cr_assert_eq(gcb_results_write(r, path, &err), GCB_OK, "%s", err.msg);
  char left[512];
  others("r.json", left, sizeof left);
  cr_expect_str_eq(left, "r.json.tmp.notapid ");
  gcb_results_free(r);
}

/* Another writer of the directory puts a directory (or a FIFO) at the
 * temporary's name, which the writer's pid makes public: the document is
 * written through the next name, not left "running" by every rewrite
 * failing ("cannot link temporary file (File exists)"); the planted
 * entries stay. The red team's attack of 2026-12-05. */
Test(robust_files, a_directory_planted_at_the_temporary_name_is_passed_by) {
  const char *path = in_dir("r.json");
  char planted[256], fifo[256];
  snprintf(planted, sizeof planted, "%s.tmp.%ld", path, (long)getpid());
  snprintf(fifo, sizeof fifo, "%s.tmp.%ld.1", path, (long)getpid());
  cr_assert_eq(mkdir(planted, 0755), 0);
  cr_assert_eq(mkfifo(fifo, 0644), 0);
  struct gcb_results *r = big_document("planted", 1);
  struct gcb_err err = {0};
  cr_assert_eq(gcb_results_write(r, path, &err), GCB_OK, "%s", err.msg);
  char *m = marker_at(path);
  cr_expect_str_eq(m, "planted");
  free(m);
  struct stat sb;
  cr_expect(stat(planted, &sb) == 0 && S_ISDIR(sb.st_mode));
  gcb_results_free(r);
}

Test(robust_files, a_fifo_or_device_at_the_path_is_refused_not_replaced) {
  const char *fifo = in_dir("pipe.json");
  cr_assert_eq(mkfifo(fifo, 0644), 0);
  struct gcb_results *r = big_document("x", 1);
  struct gcb_err err = {0};
  cr_expect_eq(gcb_results_write(r, fifo, &err), GCB_EIO);
  cr_expect(strstr(err.msg, "not a regular file") != NULL, "%s", err.msg);
  struct stat sb;
  cr_assert_eq(stat(fifo, &sb), 0);
  cr_expect(S_ISFIFO(sb.st_mode), "the FIFO was replaced");
  /* /dev/null as root: a rename would replace the device node itself. */
  cr_expect_eq(gcb_results_write(r, "/dev/null", &err), GCB_EIO);
  cr_assert_eq(stat("/dev/null", &sb), 0);
  cr_expect(S_ISCHR(sb.st_mode), "/dev/null is no longer a device");
  gcb_results_free(r);
}

Test(robust_files, reading_a_fifo_or_a_directory_fails_cleanly) {
  const char *fifo = in_dir("in.json");
  cr_assert_eq(mkfifo(fifo, 0644), 0);
  /* A FIFO with no writer would block open(): a writer that closes at
   * once makes it an empty file, which is refused. */
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    FILE *f = fopen(fifo, "w");
    if (f != NULL)
      fclose(f);
    _exit(0);
  }
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(fx_results_read(fifo, &r, &err), GCB_EINPUT);
  cr_expect(strstr(err.msg, "empty file") != NULL, "%s", err.msg);
  waitpid(pid, NULL, 0);
  cr_expect_neq(fx_results_read(dir, &r, &err), GCB_OK);
  cr_expect(strstr(err.msg, dir) == err.msg, "%s", err.msg);
  cr_expect_null(r);
}

/* The document sink rewrites after every case while a rewrite is quick;
 * once one takes long (a document of thousands of ranks), it waits until
 * ten times that has passed, so rewrites stay a tenth of the run. */
static size_t skipped_in_file(const char *path) {
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  if (fx_results_read(path, &r, &err) != GCB_OK)
    return 0;
  size_t n = json_array_size(json_object_get(gcb_results_json(r), "skipped"));
  gcb_results_free(r);
  return n;
}

Test(robust_files, slow_rewrites_are_spaced_to_a_tenth_of_the_run) {
  const char *path = in_dir("spaced.json");
  struct gcb_document d = {.results = big_document("spaced", 1), .path = path};
  struct gcb_sink s = gcb_document_sink(&d);
  struct gcb_record rec = {.bench = "gemm", .label = "case"};
  struct gcb_err err = {0};
  /* Quick rewrites: every case is in the file at once. (As if each
   * rewrite had been quick: under valgrind on a busy machine this one
   * really can take over GCB_DOC_QUICK_S.) */
  for (size_t i = 1; i <= 3; i++) {
    d.write_s = 0;
    cr_assert_eq(s.skip(s.self, &rec, "reason", &err), GCB_OK, "%s", err.msg);
    cr_expect_eq(skipped_in_file(path), i);
  }
  /* As if the last rewrite had taken 1 s and just ended: the next case
   * waits in memory... */
  d.write_s = 1.0;
  d.written_at = gcb_now_s();
  cr_assert_eq(s.skip(s.self, &rec, "reason", &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(skipped_in_file(path), 3);
  /* ...until ten times that has passed; then the file has both. */
  d.written_at = gcb_now_s() - 10.5;
  cr_assert_eq(s.skip(s.self, &rec, "reason", &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(skipped_in_file(path), 5);
  gcb_results_free(d.results);
}
