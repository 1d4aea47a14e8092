/*
 * common/outfile.h: report files written into a directory another user
 * may write to. A symlink planted at the temporary or the final name is
 * never written through, a device or FIFO is never replaced, the
 * directory is created with its parents or refused naming the option, and
 * a locked directory refuses a second writer (issue 20, items 2, 3, 9, 12;
 * rows of docs/ROBUSTNESS.md).
 */
#include "common/outfile.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void make(void) {
  snprintf(dir, sizeof dir, "/tmp/gcb-outfile-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void clean(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_expect_eq(system(cmd), 0);
}

TestSuite(outfile, .init = make, .fini = clean);

static const char *at(const char *name) {
  static char buf[4][256];
  static int k;
  char *b = buf[k++ % 4];
  snprintf(b, 256, "%s/%s", dir, name);
  return b;
}

static char *slurp(const char *path) {
  static char buf[256];
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "%s", path);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

static enum gcb_status write_one(struct gcb_outdir *d, const char *name,
                                 const char *text, struct gcb_err *err) {
  struct gcb_outfile o;
  enum gcb_status st = gcb_outfile_begin(d, name, &o, err);
  if (st != GCB_OK)
    return st;
  fputs(text, o.f);
  return gcb_outfile_end(&o, GCB_OK, err);
}

Test(outfile, a_symlink_at_the_temporary_or_final_name_is_not_followed) {
  put(at("victim"), "secret\n");
  char tmp[64];
  snprintf(tmp, sizeof tmp, "index.html.tmp.%ld", (long)getpid());
  cr_assert_eq(symlink(at("victim"), at(tmp)), 0);
  cr_assert_eq(symlink(at("victim"), at("index.html.tmp")), 0);
  cr_assert_eq(symlink(at("victim"), at("index.html")), 0);
  struct gcb_outdir d;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_outdir_open(dir, "--output", false, false, &d, &err), GCB_OK,
               "%s", err.msg);
  cr_assert_eq(write_one(&d, "index.html", "report\n", &err), GCB_OK, "%s",
               err.msg);
  gcb_outdir_close(&d);
  cr_expect_str_eq(slurp(at("victim")), "secret\n");
  cr_expect_str_eq(slurp(at("index.html")), "report\n");
  struct stat sb;
  cr_assert_eq(lstat(at("index.html"), &sb), 0);
  cr_expect(S_ISREG(sb.st_mode), "the symlink itself is replaced");
}

Test(outfile, a_fifo_or_a_device_is_refused_not_replaced) {
  cr_assert_eq(mkfifo(at("fifo"), 0644), 0);
  struct gcb_outdir d;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_outdir_open(dir, "--output", false, false, &d, &err),
               GCB_OK);
  cr_expect_eq(write_one(&d, "fifo", "x", &err), GCB_EUSAGE);
  cr_expect(strstr(err.msg, "not a regular file") != NULL, "%s", err.msg);
  gcb_outdir_close(&d);
  struct stat sb;
  cr_assert_eq(lstat(at("fifo"), &sb), 0);
  cr_expect(S_ISFIFO(sb.st_mode));
  /* /dev/null: the refusal comes before any temporary is created in /dev. */
  cr_assert_eq(gcb_outdir_open("/dev", "--output", false, false, &d, &err),
               GCB_OK);
  struct gcb_outfile o;
  enum gcb_status st = gcb_outfile_begin(&d, "null", &o, &err);
  if (st == GCB_OK)
    gcb_outfile_end(&o, GCB_EINTERNAL, &err);
  gcb_outdir_close(&d);
  cr_expect_eq(st, GCB_EUSAGE);
  cr_expect_str_eq(err.msg, "/dev/null: not a regular file; a report will not "
                            "replace it");
  cr_assert_eq(stat("/dev/null", &sb), 0);
  cr_expect(S_ISCHR(sb.st_mode));
}

Test(outfile, the_directory_is_created_with_its_parents_or_named) {
  struct gcb_outdir d;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_outdir_open(at("a/b/c"), "--output", true, false, &d, &err),
               GCB_OK, "%s", err.msg);
  gcb_outdir_close(&d);
  struct stat sb;
  cr_expect(stat(at("a/b/c"), &sb) == 0 && S_ISDIR(sb.st_mode));
  put(at("plain"), "x");
  cr_expect_eq(
      gcb_outdir_open(at("plain/sub"), "--output", true, false, &d, &err),
      GCB_EUSAGE);
  cr_expect(strncmp(err.msg, "--output ", 9) == 0, "%s", err.msg);
  cr_expect(strstr(err.msg, "not a directory") != NULL, "%s", err.msg);
  cr_expect_eq(gcb_outdir_open(at("plain"), "--output", true, false, &d, &err),
               GCB_EUSAGE);
}

Test(outfile, a_locked_directory_refuses_a_second_writer) {
  struct gcb_outdir a, b;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_outdir_open(dir, "--output", false, true, &a, &err), GCB_OK,
               "%s", err.msg);
  cr_expect_eq(gcb_outdir_open(dir, "--output", false, true, &b, &err),
               GCB_EUSAGE);
  cr_expect(strstr(err.msg, "another gcbench is writing into this directory"),
            "%s", err.msg);
  gcb_outdir_close(&a);
  cr_expect_eq(gcb_outdir_open(dir, "--output", false, true, &b, &err), GCB_OK,
               "released with the first: %s", err.msg);
  gcb_outdir_close(&b);
}

Test(outfile, a_failed_render_leaves_no_temporary_and_the_old_file) {
  put(at("r.csv"), "old\n");
  struct gcb_outdir d;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_outdir_open(dir, "--output", false, false, &d, &err),
               GCB_OK);
  struct gcb_outfile o;
  cr_assert_eq(gcb_outfile_begin(&d, "r.csv", &o, &err), GCB_OK);
  fputs("half", o.f);
  cr_expect_eq(gcb_outfile_end(&o, GCB_ENOMEM, &err), GCB_ENOMEM);
  gcb_outdir_close(&d);
  cr_expect_str_eq(slurp(at("r.csv")), "old\n");
  char tmp[64];
  snprintf(tmp, sizeof tmp, "r.csv.tmp.%ld", (long)getpid());
  cr_expect_neq(access(at(tmp), F_OK), 0);
}

Test(outfile, split) {
  char d[4096], b[4096];
  cr_assert_eq(gcb_outfile_split("m.prom", d, b), 0);
  cr_expect_str_eq(d, ".");
  cr_expect_str_eq(b, "m.prom");
  cr_assert_eq(gcb_outfile_split("/x.csv", d, b), 0);
  cr_expect_str_eq(d, "/");
  cr_assert_eq(gcb_outfile_split("a/b/x.csv", d, b), 0);
  cr_expect_str_eq(d, "a/b");
  cr_expect_str_eq(b, "x.csv");
  cr_expect_eq(gcb_outfile_split("a/", d, b), -1);
  cr_expect_eq(gcb_outfile_split("", d, b), -1);
}

/* A pid no process has (the highest free one: pids are handed out from
 * the bottom, so it stays free for the test). */
static long gone_pid(void) {
  for (long pid = 4194303; pid > 1; pid--)
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
      return pid;
  cr_assert_fail("no free pid");
  return -1;
}

static bool present(const char *name) {
  struct stat sb;
  return lstat(at(name), &sb) == 0;
}

/* Writing NAME removes NAME.tmp.PID[.N] of dead writers only: not a live
 * one's (this process's parent), not another name's, not a directory,
 * a symlink or a name that only looks alike. */
Test(outfile, temporaries_of_dead_writers_of_the_name_are_removed) {
  long dead = gone_pid(), live = (long)getppid();
  char name[12][64];
  snprintf(name[0], 64, "r.md.tmp.%ld", dead);
  snprintf(name[1], 64, "r.md.tmp.%ld.7", dead);
  snprintf(name[2], 64, "r.md.tmp.%ld", live);
  snprintf(name[3], 64, "x.md.tmp.%ld", dead);
  snprintf(name[4], 64, "r.md.tmp.%ld.", dead);
  snprintf(name[5], 64, "r.md.tmp.%ldx", dead);
  snprintf(name[6], 64, "r.md.tmp.0%ld", dead);
  snprintf(name[7], 64, "r.md.tmp.");
  snprintf(name[8], 64, "r.md.tmp.%ld.7.1", dead);
  snprintf(name[9], 64, "r.md.tmpx%ld", dead);
  snprintf(name[10], 64, "r.md.tmp.%ld-x", dead);
  snprintf(name[11], 64, "r.md.tmp.99999999999999999999");
  for (int i = 0; i < 12; i++)
    put(at(name[i]), "x");
  char dirname[64], link[64];
  snprintf(dirname, sizeof dirname, "r.md.tmp.%ld.8", dead);
  snprintf(link, sizeof link, "r.md.tmp.%ld.9", dead);
  cr_assert_eq(mkdir(at(dirname), 0755), 0);
  cr_assert_eq(symlink("/etc/passwd", at(link)), 0);
  struct gcb_outdir d;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_outdir_open(dir, "-o", false, false, &d, &err), GCB_OK);
  cr_assert_eq(write_one(&d, "r.md", "report", &err), GCB_OK, "%s", err.msg);
  gcb_outdir_close(&d);
  cr_expect(!present(name[0]) && !present(name[1]), "dead writers' left");
  for (int i = 2; i < 12; i++)
    cr_expect(present(name[i]), "%s was removed", name[i]);
  cr_expect(present(dirname) && present(link), "only regular files go");
  cr_expect_str_eq(slurp(at("r.md")), "report");
}
