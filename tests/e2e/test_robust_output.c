/*
 * What gcbench writes stays inside the directory it was given, through
 * the executable (issue 20, items 2, 3, 9, 12; rows of docs/ROBUSTNESS.md):
 * a FIFO named by `report --format csv -o` is refused, not replaced;
 * symlinks planted in a report directory are not written through; gnuplot
 * gets its script on standard input and runs outside the shared directory;
 * two reports into one directory cannot mix (the second is refused in one
 * line); `-o a/b/c` creates the directories; a directory that cannot be
 * created is bad usage naming --output (exit 2); a run claims its results
 * path so that a second run without --force is refused. Issue 31, items 4
 * and 9: a directory gcbench makes (the report's, gnuplot's private one)
 * and another user swaps before it is opened is refused; a FIFO or a
 * device at any name a report writes is refused, not replaced.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <time.h>
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

/* Issue 31 item 4: a writer of the directory gcbench makes a directory in
 * swaps the one made for its own between gcbench's mkdirat and its
 * openat (renameat2 RENAME_EXCHANGE on an inotify event). The race is made
 * certain rather than likely: a seccomp filter hands gcbench's mkdirat
 * (and mkdir) to a thread of this test (SECCOMP_RET_USER_NOTIF), which
 * plays the attacker's part (puts its own directory, or a symlink to one,
 * at that name) and answers "made". */
struct attacker {
  atomic_int listener; /* -1 until the filter is set */
  const char *in;      /* the directory the name is made in */
  const char *name;    /* the name, or its start when it ends in '*' */
  /* What is put there: a symlink to dir, or else a directory open to
   * every user (nobody's when this test runs as root) holding a symlink
   * to victim at each of links. */
  const char *dir;
  const char *const *links;
  const char *victim;
  atomic_bool done;
  atomic_int swapped;
};

static bool is_target(const struct attacker *a, const char *name) {
  size_t n = strlen(a->name);
  return a->name[n - 1] == '*' ? strncmp(name, a->name, n - 1) == 0
                               : strcmp(name, a->name) == 0;
}

static int plant(const struct attacker *a, const char *name) {
  char path[1024], link[1400];
  snprintf(path, sizeof path, "%s/%s", a->in, name);
  if (a->dir != NULL)
    return symlink(a->dir, path);
  if (mkdir(path, 0777) != 0 || chmod(path, 0777) != 0)
    return -1;
  if (geteuid() == 0 && chown(path, 65534, 65534) != 0)
    return -1;
  for (size_t i = 0; a->links[i]; i++) {
    snprintf(link, sizeof link, "%s/%s", path, a->links[i]);
    if (symlink(a->victim, link) != 0)
      return -1;
  }
  return 0;
}

/* Answers every mkdirat and mkdir of the filtered processes: the target
 * name's with the attacker's, any other by letting it run. */
static void *attack(void *arg) {
  struct attacker *a = arg;
  struct seccomp_notif *req = calloc(1, 4096);
  struct seccomp_notif_resp *resp = calloc(1, 4096);
  while (!atomic_load(&a->done) && req != NULL && resp != NULL) {
    int fd = atomic_load(&a->listener);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (fd < 0)
      nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    if (fd < 0 || poll(&p, 1, 100) <= 0 || !(p.revents & POLLIN))
      continue;
    memset(req, 0, 4096);
    if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, req) != 0)
      continue;
    char path[4096] = "";
    bool at = req->data.nr == __NR_mkdirat;
    struct iovec local = {path, sizeof path - 1},
                 remote = {(void *)(uintptr_t)req->data.args[at ? 1 : 0],
                           sizeof path - 1};
    if (process_vm_readv(req->pid, &local, 1, &remote, 1, 0) < 0)
      path[0] = '\0';
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    memset(resp, 0, sizeof *resp);
    resp->id = req->id;
    if (name[0] != '\0' && is_target(a, name)) {
      resp->error = plant(a, name) == 0 ? 0 : -EIO;
      atomic_fetch_add(&a->swapped, 1);
    } else {
      resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    }
    ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, resp);
  }
  free(req);
  free(resp);
  return NULL;
}

/* Sends this thread's mkdirat and mkdir (and its children's) to a
 * listener; -1 when the kernel or the sandbox allows no such filter. */
static int filter_mkdirat(void) {
#if defined(__x86_64__)
  const unsigned arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
  const unsigned arch = AUDIT_ARCH_AARCH64;
#else
  return -1;
#endif
#ifdef __NR_mkdir
  const unsigned mkdir_nr = __NR_mkdir;
#else
  const unsigned mkdir_nr = __NR_mkdirat; /* none: mkdir is mkdirat */
#endif
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mkdirat, 1, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, mkdir_nr, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {.len = sizeof code / sizeof *code, .filter = code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return -1;
  return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
                      SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

/* Runs `gcbench args` with a's attacker answering its mkdirat and mkdir;
 * its exit code. Skips the test where no seccomp listener can be set. */
static int attacked(struct attacker *a, const char *const *args) {
  atomic_init(&a->listener, -1);
  atomic_init(&a->done, false);
  atomic_init(&a->swapped, 0);
  /* The attacker's thread first: a filter binds the thread that sets it
   * and what that thread starts afterwards, not the threads before. */
  pthread_t tid;
  cr_assert_eq(pthread_create(&tid, NULL, attack, a), 0);
  int listener = filter_mkdirat();
  if (listener < 0) {
    atomic_store(&a->done, true);
    pthread_join(tid, NULL);
    cr_skip_test("no seccomp listener here (%s)", strerror(errno));
  }
  atomic_store(&a->listener, listener);
  int code = gcb_test_gcbench(0, args);
  atomic_store(&a->done, true);
  pthread_join(tid, NULL);
  close(listener); /* this thread's mkdirat now fails rather than waits */
  cr_assert_eq(atomic_load(&a->swapped), 1, "the swap did not happen");
  return code;
}

/* The plot files a report of the fixture draws, as names (NULL-ended). */
static size_t plot_names(const char *ref, char names[][64], size_t max) {
  const char *args[] = {"report", FIXTURE, "-o", ref, NULL};
  int code = gcb_test_gcbench(0, args);
  cr_assert(code == 0 || code == 1, "exit %d", code);
  DIR *d = opendir(ref);
  cr_assert_not_null(d);
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < max)
    if (strncmp(e->d_name, "plot-", 5) == 0 && strlen(e->d_name) < 64)
      snprintf(names[n++], 64, "%s", e->d_name);
  closedir(d);
  return n;
}

/* The private directory gnuplot runs in, swapped for a directory of
 * plot-*.svg links to a file outside -o: a root report's gnuplot once
 * wrote through them. Refused, nothing drawn. */
Test(output, a_private_plot_directory_swapped_for_another_is_refused) {
  char ref[512], rep[512], victim[512], names[64][64];
  snprintf(ref, sizeof ref, "%s", gcb_test_path("ref"));
  snprintf(rep, sizeof rep, "%s", gcb_test_path("rep"));
  snprintf(victim, sizeof victim, "%s", gcb_test_path("victim"));
  size_t n = plot_names(ref, names, 63);
  cr_assert_gt(n, 0, "no plots drawn (is gnuplot installed?)");
  const char *plots[64];
  for (size_t i = 0; i < n; i++)
    plots[i] = names[i];
  plots[n] = NULL;
  put(victim, "secret\n");
  cr_assert_eq(mkdir(rep, 0777), 0);
  cr_assert_eq(chmod(rep, 0777), 0);
  struct attacker a = {
      .in = rep, .name = ".gcbench-plot.*", .links = plots, .victim = victim};
  const char *args[] = {"report", FIXTURE, "-o", rep, NULL};
  int code = attacked(&a, args);
  char *err = gcb_test_slurp("stderr"), *text = gcb_test_read(victim);
  cr_expect_str_eq(text, "secret\n", "gnuplot wrote through the links");
  cr_expect_neq(code, 0, "exit %d", code);
  cr_expect(strstr(err, "not the directory gcbench made") != NULL, "%s", err);
  free(err);
  free(text);
}

/* The report directory -o makes in a directory every user writes,
 * swapped for a symlink to another directory: the report was once
 * written there. Refused in one line, exit 2; nothing written there. */
Test(output, a_report_directory_swapped_for_a_link_is_refused) {
  char shared[512], rep[600], elsewhere[512];
  snprintf(shared, sizeof shared, "%s", gcb_test_path("shared"));
  snprintf(elsewhere, sizeof elsewhere, "%s", gcb_test_path("elsewhere"));
  snprintf(rep, sizeof rep, "%s/rep", shared);
  cr_assert_eq(mkdir(shared, 0777), 0);
  cr_assert_eq(chmod(shared, 0777), 0);
  cr_assert_eq(mkdir(elsewhere, 0755), 0);
  struct attacker a = {.in = shared, .name = "rep", .dir = elsewhere};
  const char *args[] = {"report", FIXTURE, "-o", rep, NULL};
  int code = attacked(&a, args);
  char *err = gcb_test_slurp("stderr");
  cr_expect_eq(code, 2, "exit %d: %s", code, err);
  cr_expect(strstr(err, "replaced by another") != NULL, "%s", err);
  free(err);
  DIR *d = opendir(elsewhere);
  cr_assert_not_null(d);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d)) != NULL)
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  cr_expect_eq(n, 0, "%d files written through the link", n);
}

/* Issue 31 item 9: a FIFO or a device node at any name a report writes,
 * renames over or removes (each file, each plot, plots.gp, gnuplot.log,
 * the lock) is refused in one line naming it, and left as it was. */
Test(output, a_fifo_or_device_at_any_output_name_is_refused) {
  char ref[512], names[96][64];
  snprintf(ref, sizeof ref, "%s", gcb_test_path("ref"));
  const char *args0[] = {"report", FIXTURE, "-o", ref, NULL};
  int code = gcb_test_gcbench(0, args0);
  cr_assert(code == 0 || code == 1, "exit %d", code);
  size_t n = 0;
  DIR *d = opendir(ref);
  cr_assert_not_null(d);
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < 90)
    if (e->d_name[0] != '.' || strcmp(e->d_name, ".gcbench.lock") == 0)
      if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
        snprintf(names[n++], 64, "%s", e->d_name);
  closedir(d);
  snprintf(names[n++], 64, "gnuplot.log"); /* kept only when gnuplot fails */
  cr_assert_gt(n, 8, "too few files in a report: %zu", n);
  for (size_t i = 0; i < n; i++) {
    char rep[512], node[600], says[700];
    snprintf(rep, sizeof rep, "%s/rep%zu", gcb_test_dir(), i);
    cr_assert_eq(mkdir(rep, 0755), 0);
    snprintf(node, sizeof node, "%s/%s", rep, names[i]);
    /* A device (/dev/null's numbers) where this test may make one. */
    bool dev = geteuid() == 0 && i % 2 == 1;
    cr_assert_eq(dev ? mknod(node, S_IFCHR | 0666, makedev(1, 3))
                     : mkfifo(node, 0644),
                 0, "%s", node);
    snprintf(says, sizeof says,
             "%s: not a regular file; a report will not replace it", node);
    const char *args[] = {"report", FIXTURE, "-o", rep, NULL};
    expect_refused(args, says);
    struct stat sb;
    cr_assert_eq(lstat(node, &sb), 0, "%s was removed", names[i]);
    cr_expect(dev ? S_ISCHR(sb.st_mode) : S_ISFIFO(sb.st_mode),
              "%s was replaced", names[i]);
  }
}
