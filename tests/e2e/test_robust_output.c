/*
 * What gcbench writes stays inside the directory it was given, through
 * the executable (issue 20, items 2, 3, 9, 12; rows of docs/ROBUSTNESS.md):
 * a FIFO named by `report --format csv -o` is refused, not replaced;
 * symlinks planted in a report directory are not written through; gnuplot
 * gets its script on standard input and runs outside the shared directory;
 * two reports into one directory cannot mix (the second is refused in one
 * line); `-o a/b/c` creates the directories; a directory that cannot be
 * created is bad usage naming --output (exit 2); a run claims its results
 * path so that a second run without --force is refused.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/run/header.h"
#include "tests/e2e/run_gcbench.h"

#define DATA(name) GCB_TEST_DATA "/" name
#define FIXTURE DATA("report-fixture.json")

static void make_dir(void) {
  gcb_test_dir_make("gcb-robust-output");
}

TestSuite(output, .init = make_dir, .fini = gcb_test_dir_remove,
          .timeout = 120);

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs(text, f);
  fclose(f);
}

/* Exit 2 with exactly one line on stderr holding `says`. */
static void expect_refused(const char *const *args, const char *says) {
  int code = gcb_test_gcbench(0, args);
  char *err = gcb_test_slurp("stderr");
  cr_expect_eq(code, 2, "exit %d: %s", code, err);
  cr_expect(strstr(err, says) != NULL, "wanted \"%s\" in: %s", says, err);
  size_t len = strlen(err);
  cr_expect(len > 0 && strchr(err, '\n') == err + len - 1, "not one line: %s",
            err);
  free(err);
}

Test(output, a_fifo_named_by_format_csv_is_refused_not_replaced) {
  const char *fifo = gcb_test_path("fifo");
  cr_assert_eq(mkfifo(fifo, 0644), 0);
  const char *args[] = {"report", FIXTURE, "--format", "csv", "-o", fifo, NULL};
  expect_refused(args, "not a regular file; a report will not replace it");
  struct stat sb;
  cr_assert_eq(lstat(fifo, &sb), 0);
  cr_expect(S_ISFIFO(sb.st_mode), "the FIFO is still a FIFO");
}

Test(output, symlinks_planted_in_the_report_directory_are_not_followed) {
  const char *victim = gcb_test_path("victim");
  put(victim, "secret\n");
  char rep[512];
  snprintf(rep, sizeof rep, "%s", gcb_test_path("rep"));
  cr_assert_eq(mkdir(rep, 0777), 0);
  const char *names[] = {"report.md",   "plots.gp",         "index.html.tmp",
                         "gnuplot.log", "plot-1-ranks.svg", "metrics.prom.tmp",
                         NULL};
  for (int i = 0; names[i]; i++) {
    char link[600];
    snprintf(link, sizeof link, "%s/%s", rep, names[i]);
    cr_assert_eq(symlink(victim, link), 0);
  }
  const char *args[] = {"report", FIXTURE, "-o", rep, NULL};
  int code = gcb_test_gcbench(0, args);
  cr_expect(code == 0 || code == 1, "exit %d", code);
  char *text = gcb_test_read(victim);
  cr_expect_str_eq(text, "secret\n");
  free(text);
  char md[600];
  snprintf(md, sizeof md, "%s/report.md", rep);
  struct stat sb;
  cr_assert_eq(lstat(md, &sb), 0);
  cr_expect(S_ISREG(sb.st_mode), "report.md replaces the link itself");
}

Test(output, gnuplot_reads_its_script_from_stdin_outside_the_directory) {
  char rep[512], fake[512], out[512];
  snprintf(rep, sizeof rep, "%s", gcb_test_path("rep"));
  snprintf(fake, sizeof fake, "%s", gcb_test_path("fake-gnuplot"));
  snprintf(out, sizeof out, "%s", gcb_test_dir());
  char script[2048];
  snprintf(script, sizeof script,
           "#!/bin/sh\necho \"$# $1\" > '%s/argc'\npwd > '%s/pwd'\n"
           "cat \"$1\" > '%s/script'\nexit 0\n",
           out, out, out);
  put(fake, script);
  cr_assert_eq(chmod(fake, 0755), 0);
  setenv("GCB_GNUPLOT", fake, 1);
  const char *args[] = {"report", FIXTURE, "-o", rep, NULL};
  int code = gcb_test_gcbench(0, args);
  unsetenv("GCB_GNUPLOT");
  cr_expect(code == 0 || code == 1, "exit %d", code);
  char *argc = gcb_test_slurp("argc"), *pwd = gcb_test_slurp("pwd"),
       *seen = gcb_test_slurp("script");
  cr_expect_str_eq(argc, "1 /dev/fd/0\n",
                   "the script is named only as its standard input");
  cr_expect(strncmp(seen, "# gcbench plots", 15) == 0, "stdin: %.60s", seen);
  cr_expect(strstr(seen, "set terminal svg") != NULL);
  pwd[strcspn(pwd, "\n")] = '\0';
  cr_expect(strstr(pwd, "/.gcbench-plot.") != NULL, "ran in %s", pwd);
  struct stat sb;
  cr_expect_neq(stat(pwd, &sb), 0, "the private directory is removed");
  free(argc);
  free(pwd);
  free(seen);
}

Test(output, a_second_report_into_a_locked_directory_is_refused) {
  char rep[512], lock[600];
  snprintf(rep, sizeof rep, "%s", gcb_test_path("rep"));
  cr_assert_eq(mkdir(rep, 0777), 0);
  snprintf(lock, sizeof lock, "%s/.gcbench.lock", rep);
  int fd = open(lock, O_RDWR | O_CREAT, 0644);
  cr_assert_geq(fd, 0);
  cr_assert_eq(flock(fd, LOCK_EX), 0);
  const char *args[] = {"report", FIXTURE, "-o", rep, NULL};
  expect_refused(args, "another gcbench is writing into this directory");
  close(fd);
  int code = gcb_test_gcbench(0, args);
  cr_expect(code == 0 || code == 1, "after the lock is released: exit %d",
            code);
}

Test(output, report_creates_nested_directories_and_names_output) {
  char deep[512];
  snprintf(deep, sizeof deep, "%s", gcb_test_path("a/b/c"));
  const char *args[] = {"report", FIXTURE, "-o", deep, NULL};
  int code = gcb_test_gcbench(0, args);
  cr_expect(code == 0 || code == 1, "exit %d", code);
  char md[600];
  snprintf(md, sizeof md, "%s/report.md", deep);
  cr_expect_eq(access(md, F_OK), 0, "%s", md);
  put(gcb_test_path("plain"), "x");
  const char *under_file[] = {"report", FIXTURE, "-o",
                              gcb_test_path("plain/rep"), NULL};
  expect_refused(under_file, "--output ");
  const char *csv[] = {"report", FIXTURE, "--format",
                       "csv",    "-o",    gcb_test_path("plain/x.csv"),
                       NULL};
  expect_refused(csv, "--output ");
}

Test(output, a_run_into_a_directory_that_cannot_be_created_is_usage) {
  put(gcb_test_path("plain"), "x");
  const char *args[] = {"membw",
                        "--size",
                        "64K",
                        "--iters",
                        "2",
                        "--output",
                        gcb_test_path("plain/r.json"),
                        NULL};
  expect_refused(args, "--output ");
}

Test(output, a_results_path_is_claimed_so_a_second_run_is_refused) {
  char out[4096], path[512];
  snprintf(path, sizeof path, "%s", gcb_test_path("sub/r.json"));
  struct gcb_err err = {0};
  cr_assert_eq(gcb__output_path(path, "id", false, out, sizeof out, &err),
               GCB_OK, "%s", err.msg);
  cr_expect_eq(access(path, F_OK), 0, "claimed by creating it");
  cr_expect_eq(gcb__output_path(path, "id", false, out, sizeof out, &err),
               GCB_EUSAGE);
  cr_expect(strstr(err.msg, "exists (use --force") != NULL, "%s", err.msg);
  cr_expect_eq(gcb__output_path(path, "id", true, out, sizeof out, &err),
               GCB_OK);
}
