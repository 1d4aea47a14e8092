/*
 * The document says why a run stopped, and what a killed run left is
 * cleaned up (issue 20, item 12; rows of docs/ROBUSTNESS.md), through the
 * executable: a disk that fills up during a run (a small tmpfs) and
 * descriptors that run out during a run (RLIMIT_NOFILE lowered from
 * outside) end it "failed" with an errors[] entry naming the write error;
 * nvbandwidth cells of 1e308 are "out of range" at their line, not "out of
 * memory"; a report's temporary files left by a killed earlier report are
 * removed, and only those.
 */
#define _GNU_SOURCE /* prlimit */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/e2e/run_gcbench.h"

#define DATA(name) GCB_TEST_DATA "/" name

static void make_dir(void) {
  gcb_test_dir_make("gcb-robust-state");
}

TestSuite(state, .init = make_dir, .fini = gcb_test_dir_remove, .timeout = 180);

/* The document at dir/name says "failed" and has an errors[] entry whose
 * message holds `why`; every case it kept reads back. */
static void expect_failed_saying(const char *name, const char *why) {
  struct gcb_results *r = gcb_test_load(name);
  const json_t *run = gcb_test_section(r, "run");
  cr_expect_str_eq(json_string_value(json_object_get(run, "status")), "failed");
  const json_t *errors = gcb_test_section(r, "errors"), *e;
  size_t i;
  bool named = false;
  json_array_foreach(errors, i, e) {
    const char *m = json_string_value(json_object_get(e, "message"));
    named |= m != NULL && strstr(m, why) != NULL;
  }
  char *text = json_dumps(errors, 0);
  cr_expect(named, "no errors[] entry says \"%s\": %s", why, text);
  free(text);
  cr_expect_gt(json_array_size(gcb_test_section(r, "cases")), 0,
               "the cases before the failure are kept");
  gcb_results_free(r);
}

/* A run that fills a 160 KiB tmpfs: its document grows by a case at a
 * time until the disk is full. The room held for the last write lets the
 * document end "failed", naming ENOSPC. Needs the right to mount (root in
 * CI); skipped, saying so, without it. */
Test(state, a_disk_that_fills_up_ends_the_run_failed_naming_the_error) {
  const char *mnt = gcb_test_path("small");
  cr_assert_eq(mkdir(mnt, 0755), 0);
  if (mount("tmpfs", mnt, "tmpfs", 0, "size=160k") != 0) {
    rmdir(mnt);
    cr_skip_test("cannot mount a small tmpfs here (%s): needs root",
                 strerror(errno));
  }
  char out[600];
  snprintf(out, sizeof out, "%s/r.json", mnt);
  const char *args[] = {"null", "--backend", "null", "--cases",
                        "1000", "--iters",   "1",    "--warmup",
                        "0",    "--output",  out,    NULL};
  int code = gcb_test_run(0, args, 120, NULL);
  /* What the full disk holds, looked at and copied out before it goes. */
  DIR *d = opendir(mnt);
  struct dirent *e;
  int others = 0;
  while (d != NULL && (e = readdir(d)) != NULL)
    others += e->d_name[0] != '.' && strcmp(e->d_name, "r.json") != 0;
  if (d != NULL)
    closedir(d);
  char *doc = gcb_test_read(out);
  FILE *f = fopen(gcb_test_path("full.json"), "w");
  cr_assert_not_null(f);
  fputs(doc, f);
  fclose(f);
  free(doc);
  cr_assert_eq(umount(mnt), 0, "%s", strerror(errno));
  char *err = gcb_test_slurp("stderr");
  cr_expect_eq(code, 3, "exit %d: %s", code, err);
  cr_expect(strstr(err, "No space left on device") != NULL, "stderr: %s", err);
  free(err);
  cr_expect_eq(others, 0, "no temporary file is left on the full disk");
  expect_failed_saying("full.json", "No space left on device");
}

/* Mounts a 256 KiB tmpfs at dir/name and fills it, leaving `free_kib`
 * free; false (the test skips) when this test may not mount. */
static bool mount_nearly_full(const char *mnt, int free_kib) {
  cr_assert_eq(mkdir(mnt, 0755), 0);
  if (mount("tmpfs", mnt, "tmpfs", 0, "size=256k") != 0) {
    rmdir(mnt);
    return false;
  }
  char path[600];
  snprintf(path, sizeof path, "%s/filler", mnt);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  cr_assert_geq(fd, 0);
  static const char block[4096];
  off_t size = 0;
  ssize_t n;
  while ((n = write(fd, block, sizeof block)) > 0)
    size += n;
  cr_assert_eq(errno, ENOSPC);
  cr_assert_gt(size, (off_t)free_kib << 10);
  cr_assert_eq(ftruncate(fd, size - ((off_t)free_kib << 10)), 0);
  close(fd);
  return true;
}

/* How many names the disk holds besides the filler. */
static int others_on(const char *mnt) {
  DIR *d = opendir(mnt);
  struct dirent *e;
  int others = 0;
  while (d != NULL && (e = readdir(d)) != NULL)
    others += e->d_name[0] != '.' && strcmp(e->d_name, "filler") != 0;
  if (d != NULL)
    closedir(d);
  return others;
}

/* The document at dir/name says "failed", with no case, and errors[]
 * names ENOSPC. */
static void expect_failed_at_start(const char *name) {
  struct gcb_results *r = gcb_test_load(name);
  const json_t *run = gcb_test_section(r, "run");
  cr_expect_str_eq(json_string_value(json_object_get(run, "status")), "failed");
  cr_expect_eq(json_array_size(gcb_test_section(r, "cases")), 0);
  const json_t *e = json_array_get(gcb_test_section(r, "errors"), 0);
  const char *m = json_string_value(json_object_get(e, "message"));
  cr_expect(m != NULL && strstr(m, "No space left on device") != NULL,
            "errors[0]: %s", m ? m : "none");
  cr_expect_eq(json_array_size(gcb_test_section(r, "errors")), 1);
  gcb_results_free(r);
}

/* Issue 31 item 8: a disk full at the start of a run, refused in one line
 * (exit 2), leaves a complete document saying "failed" and why, or
 * nothing. Full: nothing (it once left the empty file that claimed the
 * path). Room for one header, not two: it once left the header saying
 * "running" with empty errors[] (the end could not be written beside it).
 * Room for the header, none for what is held beside it: "failed". */
Test(state, a_disk_full_at_the_start_leaves_nothing_or_the_truth) {
  static const int free_kib[] = {0, 4, 40};
  for (int i = 0; i < 3; i++) {
    char mnt[600], out[700], copy[64];
    snprintf(mnt, sizeof mnt, "%s/full%d", gcb_test_dir(), i);
    if (!mount_nearly_full(mnt, free_kib[i]))
      cr_skip_test("cannot mount a small tmpfs here (%s): needs root",
                   strerror(errno));
    snprintf(out, sizeof out, "%s/r.json", mnt);
    const char *args[] = {"null", "--backend", "null", "--cases",
                          "10",   "--iters",   "1",    "--warmup",
                          "0",    "--output",  out,    NULL};
    int code = gcb_test_run(0, args, 120, NULL);
    char *doc = access(out, F_OK) == 0 ? gcb_test_read(out) : NULL;
    int others = others_on(mnt);
    cr_assert_eq(umount(mnt), 0, "%s", strerror(errno));
    char *err = gcb_test_slurp("stderr");
    cr_expect_eq(code, 2, "%d KiB free: exit %d: %s", free_kib[i], code, err);
    cr_expect(strstr(err, "No space left on device") != NULL, "%s", err);
    free(err);
    cr_expect_eq(others, doc != NULL, "%d KiB free: %d files left", free_kib[i],
                 others);
    if (i == 0)
      cr_expect_null(doc, "a full disk keeps a document: '%s'", doc);
    if (i == 2)
      cr_expect_not_null(doc, "no document with 40 KiB free");
    if (doc == NULL)
      continue;
    snprintf(copy, sizeof copy, "start%d.json", i);
    FILE *f = fopen(gcb_test_path(copy), "w");
    cr_assert_not_null(f);
    fputs(doc, f);
    fclose(f);
    free(doc);
    expect_failed_at_start(copy);
  }
}

/* The lowest descriptor number process pid does not hold: with its
 * limit there, every descriptor below the limit is taken. */
static int lowest_free_fd(long pid) {
  for (int fd = 0; fd < 65536; fd++) {
    char path[64];
    struct stat sb;
    snprintf(path, sizeof path, "/proc/%ld/fd/%d", pid, fd);
    if (lstat(path, &sb) != 0)
      return fd;
  }
  return 65536;
}

/* The run's descriptor limit lowered to its lowest free descriptor after
 * 3 cases (between two rewrites): the next rewrite cannot open its
 * temporary file (EMFILE). The descriptor
 * held for the last write lets the document end "failed" saying so (it
 * once ended "failed" with empty errors[]). */
Test(state, descriptors_that_run_out_end_the_run_failed_naming_the_error) {
  const char *args[] = {"null",
                        "--backend",
                        "null",
                        "--cases",
                        "400",
                        "--sleep-us",
                        "50000",
                        "--iters",
                        "1",
                        "--warmup",
                        "0",
                        "--output",
                        gcb_test_path("fd.json"),
                        NULL};
  struct gcb_test_job job = gcb_test_start(0, NULL, NULL, args);
  long pid = gcb_test_pid_after("fd.json", 3, 0, job);
  cr_assert_gt(pid, 0);
  /* The lowest of a few looks: one taken during a rewrite would count its
   * temporary file's descriptor, free again a moment later. */
  int n = lowest_free_fd(pid);
  for (int i = 0; i < 8; i++) {
    nanosleep(&(struct timespec){.tv_nsec = 3000000}, NULL);
    int again = lowest_free_fd(pid);
    n = again < n ? again : n;
  }
  struct rlimit low = {.rlim_cur = (rlim_t)n, .rlim_max = (rlim_t)n};
  cr_assert_eq(prlimit((pid_t)pid, RLIMIT_NOFILE, &low, NULL), 0, "%s",
               strerror(errno));
  int status = gcb_test_finish(job, 60, NULL);
  char *err = gcb_test_slurp("stderr");
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 3, "status %#x: %s",
            status, err);
  cr_expect(strstr(err, "Too many open files") != NULL, "stderr: %s", err);
  free(err);
  expect_failed_saying("fd.json", "Too many open files");
}

/* A copy of an nvbandwidth fixture with `from` replaced by `to` on its
 * line `line` (1-based). */
static const char *nvbw_with(const char *name, int line, const char *from,
                             const char *to) {
  char *text =
      gcb_test_read(DATA("interop/nvbandwidth-15-v0.2-rtx4090-cut.txt"));
  const char *path = gcb_test_path(name);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  int at = 1;
  for (char *p = text; *p; at++) {
    char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
    char *hit = at == line ? strstr(p, from) : NULL;
    if (hit != NULL && hit < p + len) {
      fwrite(p, 1, (size_t)(hit - p), f);
      fputs(to, f);
      fwrite(hit + strlen(from), 1, len - (size_t)(hit - p) - strlen(from), f);
    } else {
      fwrite(p, 1, len, f);
    }
    p += len;
  }
  fclose(f);
  free(text);
  return path;
}

/* Cells and sums past any bandwidth overflowed the statistics, and the
 * converter said "out of memory" (exit 3): now one located line, exit 2. */
Test(state, nvbandwidth_figures_out_of_range_are_located_not_out_of_memory) {
  static const struct {
    int line;
    const char *from, *to, *says;
  } rows[] = {
      {24, "25.50", "1e308",
       ":24: nvbandwidth text: host_to_device_memcpy_ce: "
       "row 0: value 1e+308 in column 0 is out of range"},
      {24, "24.26", "-3",
       ":24: nvbandwidth text: host_to_device_memcpy_ce: "
       "row 0: value -3 in column 1 is out of range"},
      {26, "205.04", "1e308",
       ":26: nvbandwidth text: host_to_device_memcpy_ce: "
       "SUM: value 1e+308 is out of range"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    char name[32];
    snprintf(name, sizeof name, "nvbw-%zu.txt", i);
    const char *path = nvbw_with(name, rows[i].line, rows[i].from, rows[i].to);
    const char *args[] = {"report", path, "--format", "csv", "-o", "-", NULL};
    int code = gcb_test_gcbench(0, args);
    char *err = gcb_test_slurp("stderr");
    cr_expect_eq(code, 2, "row %zu: exit %d: %s", i, code, err);
    cr_expect(strstr(err, rows[i].says) != NULL, "row %zu: %s", i, err);
    cr_expect(strstr(err, "out of memory") == NULL, "row %zu: %s", i, err);
    cr_expect(strchr(err, '\n') == err + strlen(err) - 1, "one line: %s", err);
    free(err);
  }
}

/* A pid no process has (the highest that is free). */
static long dead_pid(void) {
  for (long pid = 4194303; pid > 1; pid--)
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
      return pid;
  cr_assert_fail("no free pid");
  return -1;
}

static void put(const char *name, const char *text) {
  FILE *f = fopen(gcb_test_path(name), "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

static bool exists(const char *name) {
  struct stat sb;
  return lstat(gcb_test_path(name), &sb) == 0;
}

/* A report killed mid-write leaves NAME.tmp.PID beside its files: the
 * next report into that directory removes those of dead writers, and
 * leaves a live writer's, other names and files of other shapes alone. */
Test(state, temporaries_of_a_killed_report_are_removed_and_only_those) {
  cr_assert_eq(mkdir(gcb_test_path("rep"), 0755), 0);
  long dead = dead_pid(), alive = (long)getpid();
  char stale[5][96], kept[6][96];
  snprintf(stale[0], sizeof stale[0], "rep/report.md.tmp.%ld", dead);
  snprintf(stale[1], sizeof stale[1], "rep/index.html.tmp.%ld", dead);
  snprintf(stale[2], sizeof stale[2], "rep/results.csv.tmp.%ld.3", dead);
  snprintf(stale[3], sizeof stale[3], "rep/junit.xml.tmp.%ld", dead);
  snprintf(stale[4], sizeof stale[4], "rep/findings.json.tmp.%ld", dead);
  snprintf(kept[0], sizeof kept[0], "rep/report.md.tmp.%ld", alive);
  snprintf(kept[1], sizeof kept[1], "rep/notes.txt.tmp.%ld", dead);
  snprintf(kept[2], sizeof kept[2], "rep/report.md.tmp.%ldx", dead);
  snprintf(kept[3], sizeof kept[3], "rep/report.md.tmp.");
  snprintf(kept[4], sizeof kept[4], "rep/report.md.tmp.0");
  snprintf(kept[5], sizeof kept[5], "rep/mine.json");
  for (int i = 0; i < 5; i++)
    put(stale[i], "half a file");
  for (int i = 0; i < 6; i++)
    put(kept[i], "someone else's");
  const char *args[] = {"report", DATA("report-fixture.json"), "-o",
                        gcb_test_path("rep"), NULL};
  int code = gcb_test_gcbench(0, args);
  cr_expect(code == 0 || code == 1, "exit %d", code);
  for (int i = 0; i < 5; i++)
    cr_expect(!exists(stale[i]), "%s is left", stale[i]);
  for (int i = 0; i < 6; i++)
    cr_expect(exists(kept[i]), "%s was removed", kept[i]);
  cr_expect(exists("rep/report.md"));
}
