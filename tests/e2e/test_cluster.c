/*
 * A cluster in a box (scripts/cluster, docs/MULTINODE.md): gcbench across
 * three test hosts in network namespaces, one rank each, launched by
 * MPICH's hydra over the test hosts' bridge. Checked through the results
 * document and the report: real host names group the ranks into nodes,
 * each node's topology comes from its own rank, coll's splits, the network
 * map and a suite with its report; a rate limit planted on one host's link
 * is named by the report as that host's link and nothing else fails; a
 * rank killed on one host is named with its host by the watchdog; one
 * host's clock shifted by 1000 s leaves arrival lateness as it was.
 *
 * Run by ctest as `scripts/cluster session 3 test_cluster`, which builds
 * the hosts, exports GCB_CLUSTER (the script), GCB_CLUSTER_HOSTS and
 * GCB_CLUSTER_BRIDGE, and tears down whatever happens (exit 77 when not
 * root or without namespaces). Runs are tiny: three ranks on two cores.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "reports/document/ranks.h"
#include "tests/e2e/run_gcbench.h"

#define HOSTS 3

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v ? v : "";
}

static void make_dir(void) {
  gcb_test_dir_make("gcb-cluster");
  unsetenv("GCB_NODE_MAP");
  unsetenv("GCB_FAKE_NODES");
}

TestSuite(cluster, .init = make_dir, .fini = gcb_test_dir_remove,
          .timeout = 300);

/* The cluster script with arguments; its exit status. */
static int cluster(const char *args) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "'%s' %s >>'%s' 2>&1", env("GCB_CLUSTER"), args,
           gcb_test_path("cluster.log"));
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void need_cluster(void) {
  if (env("GCB_CLUSTER")[0] == '\0')
    cr_skip_test(
        "not under scripts/cluster session (see tests/CMakeLists.txt)");
}

/* mpiexec's arguments for the test hosts, one rank each; extra (may be
 * NULL) goes after them. */
static void launcher(const char **out, const char *extra) {
  static char hosts[256];
  snprintf(hosts, sizeof hosts, "%s", env("GCB_CLUSTER_HOSTS"));
  const char *a[] = {"-iface",
                     env("GCB_CLUSTER_BRIDGE"),
                     "-launcher",
                     "ssh",
                     "-launcher-exec",
                     NULL,
                     "-hosts",
                     hosts,
                     "-ppn",
                     "1",
                     extra,
                     NULL};
  static char shim[512];
  snprintf(shim, sizeof shim, "%s-ssh", env("GCB_CLUSTER"));
  a[5] = shim;
  memcpy(out, a, sizeof a);
}

static const char *host(int i) {
  static char names[HOSTS][64];
  snprintf(names[i], sizeof names[i], "%s-h%d", env("GCB_CLUSTER_PREFIX"),
           i + 1);
  return names[i];
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Has the run printed its last line ("# results: ...")? */
static bool finished_output(void) {
  char *out = gcb_test_slurp("stdout");
  bool done = strstr(out, "# results: ") != NULL;
  free(out);
  return done;
}

/*
 * Waits for a run across the hosts, at most `limit` seconds; its exit
 * code. MPICH's UCX transport over TCP now and then hangs in MPI_Finalize
 * after everything is done (openucx/ucx#8738: a rank still closing its
 * endpoints while its peers stopped progressing). A run that printed its
 * last line and then did not exit within FINALIZE_GRACE seconds is ended
 * and counted as exit 0, said on stderr: what it wrote is complete; the
 * tests check that document.
 */
#define FINALIZE_GRACE 20.0

static int finish(struct gcb_test_job j, double limit) {
  int st = 0;
  double done_at = 0;
  for (;;) {
    pid_t got = waitpid(j.pid, &st, WNOHANG);
    cr_assert_geq(got, 0);
    if (got == j.pid)
      return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    double t = now();
    if (done_at == 0 && finished_output())
      done_at = t;
    if (done_at > 0 && t - done_at > FINALIZE_GRACE) {
      kill(j.pid, SIGTERM);
      waitpid(j.pid, &st, 0);
      fprintf(stderr, "test_cluster: the run finished but hung in "
                      "MPI_Finalize (openucx/ucx#8738); ended it\n");
      return 0;
    }
    if (t - j.start > limit) {
      kill(j.pid, SIGTERM);
      waitpid(j.pid, &st, 0);
      cr_assert_fail("still running after %g s: it hung", limit);
    }
    nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
  }
}

/* Runs gcbench across the hosts; returns its exit code. */
static int across(const char *const *args, double limit) {
  const char *l[12];
  launcher(l, NULL);
  return finish(gcb_test_start(HOSTS, l, NULL, args), limit);
}

/* `gcbench report FILE -o DIR`; its exit code. */
static int report(const char *file, const char *dir) {
  const char *args[] = {"report", gcb_test_path(file), "-o", gcb_test_path(dir),
                        NULL};
  return gcb_test_run(0, args, 60, NULL);
}

static const char *str(const json_t *o, const char *key) {
  const char *s = json_string_value(json_object_get(o, key));
  return s ? s : "";
}

/* Three nodes named after the test hosts, rank i alone on host i, each
 * with its own live topology. */
static void expect_nodes(struct gcb_results *r) {
  json_t *run = gcb_test_section(r, "run");
  cr_expect_eq(json_integer_value(json_object_get(run, "nodes")), HOSTS);
  json_t *nodes = gcb_test_section(r, "nodes");
  cr_assert_eq(json_array_size(nodes), HOSTS);
  for (int i = 0; i < HOSTS; i++) {
    json_t *n = json_array_get(nodes, (size_t)i);
    cr_expect_str_eq(str(n, "hostname"), host(i), "node %d", i);
    json_t *ranks = json_object_get(n, "ranks");
    cr_expect_eq(json_array_size(ranks), 1, "node %d", i);
    cr_expect_eq(json_integer_value(json_array_get(ranks, 0)), i);
    json_t *topo = json_object_get(n, "topology");
    cr_expect_str_eq(str(topo, "source"), "live", "node %d", i);
    cr_expect_gt(json_integer_value(json_object_get(n, "cores")), 0);
    json_t *rank = json_array_get(gcb_test_section(r, "ranks"), (size_t)i);
    cr_expect_str_eq(str(rank, "hostname"), host(i));
    cr_expect_eq(json_integer_value(json_object_get(rank, "local_rank")), 0);
  }
}

/* coll across the hosts: `cross` runs (3 ranks per communicator), `node`
 * is skipped with its reason (one rank per node). */
static void expect_splits(struct gcb_results *r) {
  size_t i, cross = 0;
  json_t *c;
  json_array_foreach(gcb_test_section(r, "cases"), i, c) {
    json_t *p = json_object_get(c, "params");
    if (strcmp(str(c, "bench"), "coll") != 0 ||
        strcmp(str(p, "split"), "cross") != 0)
      continue;
    cross++;
    cr_expect_eq(json_integer_value(json_object_get(p, "comm_size")), HOSTS);
    cr_expect(json_is_true(
                  json_object_get(json_object_get(c, "validation"), "passed")),
              "%s", str(c, "label"));
  }
  cr_expect_gt(cross, 0, "no coll case with split cross");
  size_t node_skips = 0;
  json_array_foreach(gcb_test_section(r, "skipped"), i, c) {
    node_skips += strstr(str(c, "reason"), "split node: one rank per "
                                           "communicator") != NULL;
  }
  cr_expect_gt(node_skips, 0, "split node not skipped with its reason");
}

/* Every ordered pair of ranks, in both schedules and measures, names its
 * hosts; payloads check. */
static void expect_netmap(struct gcb_results *r) {
  int seen[HOSTS][HOSTS] = {{0}};
  size_t i;
  json_t *c;
  json_array_foreach(gcb_test_section(r, "cases"), i, c) {
    if (strcmp(str(c, "bench"), "netmap") != 0)
      continue;
    json_t *p = json_object_get(c, "params");
    int s = (int)json_integer_value(json_object_get(p, "src"));
    int d = (int)json_integer_value(json_object_get(p, "dst"));
    cr_assert(s >= 0 && s < HOSTS && d >= 0 && d < HOSTS && s != d);
    seen[s][d]++;
    cr_expect_str_eq(str(p, "src_host"), host(s));
    cr_expect_str_eq(str(p, "dst_host"), host(d));
    cr_expect(json_is_true(
                  json_object_get(json_object_get(c, "validation"), "passed")),
              "%s", str(c, "label"));
  }
  for (int s = 0; s < HOSTS; s++)
    for (int d = 0; d < HOSTS; d++)
      cr_expect_eq(seen[s][d], s == d ? 0 : 4, "pair %d->%d", s, d);
}

Test(cluster, a_suite_runs_across_three_hosts_and_its_report_maps_them) {
  need_cluster();
  const char *args[] = {"suite",   "--profile", "quick",
                        "--iters", "2",         "--warmup",
                        "1",       "--output",  gcb_test_path("suite.json"),
                        NULL};
  cr_assert_eq(across(args, 240), 0, "stderr: %s", gcb_test_slurp("stderr"));
  char *out = gcb_test_slurp("stdout");
  cr_expect(strstr(out, "3 rank(s) on 3 node(s)") != NULL, "%s", out);
  free(out);
  struct gcb_results *r = gcb_test_load("suite.json");
  expect_nodes(r);
  expect_splits(r);
  expect_netmap(r);
  gcb_results_free(r);
  int code = report("suite.json", "suite-report");
  cr_expect(code == 0 || code == 1, "report exit %d: %s", code,
            gcb_test_slurp("stderr"));
  char *md = gcb_test_slurp("suite-report/report.md");
  cr_expect(strstr(md, "## Network map: bandwidth, alone") != NULL);
  cr_expect(strstr(md, "## Network map per node: alone") != NULL);
  char row[96];
  snprintf(row, sizeof row, "| 1 %s | ", host(1)); /* a matrix row */
  cr_expect(strstr(md, row) != NULL, "no row '%s'", row);
  free(md);
  /* The heatmap beside it, every host named, every pair a cell. */
  char *svg = gcb_test_slurp("suite-report/netmap.svg");
  for (int i = 0; i < 3; i++) {
    char label[96];
    snprintf(label, sizeof label, ">%d %s<", i, host(i));
    cr_expect(strstr(svg, label) != NULL, "netmap.svg: no label '%s'", label);
  }
  cr_expect(strstr(svg, "id=\"netmap-0-alone-bw-0-2\"") != NULL, "%.300s", svg);
  free(svg);
}

/* The findings of a report's findings.json at `severity`, by kind. */
static size_t count_findings(json_t *list, const char *severity,
                             const char *kind) {
  size_t i, n = 0;
  json_t *f;
  json_array_foreach(list, i, f) {
    n += strcmp(str(f, "severity"), severity) == 0 &&
         (kind == NULL || strcmp(str(f, "kind"), kind) == 0);
  }
  return n;
}

Test(cluster, a_rate_limited_host_link_is_named_as_that_hosts_link) {
  need_cluster();
  char fault[128];
  snprintf(fault, sizeof fault, "fault rate %s 20mbit", host(1));
  cr_assert_eq(cluster(fault), 0, "%s", gcb_test_slurp("cluster.log"));
  const char *args[] = {"netmap",     "--measure", "bandwidth",
                        "--schedule", "alone",     "--size",
                        "128K",       "--window",  "2",
                        "--iters",    "3",         "--warmup",
                        "1",          "--output",  gcb_test_path("slow.json"),
                        NULL};
  int code = across(args, 120);
  cluster("fault clear");
  cr_assert_eq(code, 0, "stderr: %s", gcb_test_slurp("stderr"));
  cr_expect_eq(report("slow.json", "slow-report"), 1, "the report passed");
  char *text = gcb_test_slurp("slow-report/findings.json");
  json_error_t e;
  json_t *doc = json_loads(text, 0, &e);
  cr_assert_not_null(doc, "findings.json: %s", e.text);
  json_t *list = json_object_get(doc, "findings");
  cr_expect_eq(count_findings(list, "fail", "network-link"), 1, "%s", text);
  cr_expect_eq(count_findings(list, "fail", NULL), 1,
               "something else fails too: %s", text);
  size_t i;
  json_t *f;
  json_array_foreach(list, i, f) {
    if (strcmp(str(f, "kind"), "network-link") != 0)
      continue;
    json_t *where = json_object_get(f, "location");
    cr_expect_str_eq(str(where, "hostname"), host(1));
    char link[80];
    snprintf(link, sizeof link, "%s link", host(1));
    cr_expect_str_eq(str(where, "link"), link);
  }
  /* The verdict: one failing root cause, that host's link. */
  size_t failing = 0;
  json_array_foreach(json_object_get(doc, "root_causes"), i, f) {
    if (strcmp(str(f, "severity"), "fail") != 0)
      continue;
    failing++;
    char link[80];
    snprintf(link, sizeof link, "%s link", host(1));
    cr_expect_str_eq(str(json_object_get(f, "component"), "name"), link);
  }
  cr_expect_eq(failing, 1, "root causes: %s", text);
  /* The heatmap outlines that host's four pairs (both ways with the two
   * others), and only those. */
  char *svg = gcb_test_slurp("slow-report/netmap.svg");
  size_t marked = 0;
  for (const char *p = strstr(svg, "class=\"cell fail\""); p;
       p = strstr(p + 1, "class=\"cell fail\""))
    marked++;
  cr_expect_eq(marked, 4, "netmap.svg: %zu cells marked failing", marked);
  free(svg);
  json_decref(doc);
  free(text);
}

Test(cluster, a_rank_killed_on_one_host_is_named_with_its_host) {
  need_cluster();
  const char *args[] = {"coll",
                        "--collective",
                        "allreduce",
                        "-b",
                        "8",
                        "-e",
                        "1M",
                        "--iters",
                        "20",
                        "--warmup",
                        "1",
                        "--timeout",
                        "60",
                        "--output",
                        gcb_test_path("killed.json"),
                        NULL};
  const char *l[12];
  launcher(l, "-disable-auto-cleanup");
  /* The shell ignores the launcher's SIGUSR1 and outlives gcbench, so the
   * launcher keeps the other ranks and the watchdog must name the dead. */
  const char *wrap[] = {"/bin/sh", "-c", "trap '' USR1; \"$0\" \"$@\"; exit $?",
                        NULL};
  struct gcb_test_job j = gcb_test_start(HOSTS, l, wrap, args);
  long pid = gcb_test_pid_after("killed.json", 2, 1, j);
  cr_assert_eq(gcb_test_kill(&j, (pid_t)pid, SIGKILL), 0);
  cr_expect_neq(finish(j, 90), 0, "exit 0");
  char *err = gcb_test_slurp("stderr"), want[96];
  snprintf(want, sizeof want, "rank died: rank 1 (%s", host(1));
  cr_expect(strstr(err, want) != NULL, "no '%s' in: %s", want, err);
  struct gcb_results *r = gcb_test_load("killed.json");
  json_t *errors = gcb_test_section(r, "errors");
  cr_assert_eq(json_array_size(errors), 1);
  cr_expect_eq(
      json_integer_value(json_object_get(json_array_get(errors, 0), "rank")),
      1);
  gcb_results_free(r);
  free(err);
}

/* Rank 2's lateness at a coll case it is planted late at (delay-rank). */
static double late_of_rank2(const char *file) {
  struct gcb_results *r = gcb_test_load(file);
  json_t *c = json_array_get(gcb_test_section(r, "cases"), 0);
  json_t *s = json_object_get(c, "summary");
  cr_expect_eq(json_integer_value(json_object_get(s, "late_rank")), 2, "%s",
               file);
  double late = json_number_value(json_object_get(s, "late_mean_s"));
  gcb_results_free(r);
  return late;
}

static double delayed_run(const char *file) {
  const char *args[] = {"coll",
                        "--collective",
                        "allreduce",
                        "-b",
                        "8",
                        "-e",
                        "8",
                        "--split",
                        "none",
                        "--iters",
                        "10",
                        "--warmup",
                        "1",
                        "--delay-rank",
                        "2:20000",
                        "--output",
                        gcb_test_path(file),
                        NULL};
  cr_assert_eq(across(args, 90), 0, "stderr: %s", gcb_test_slurp("stderr"));
  return late_of_rank2(file);
}

Test(cluster, a_host_clock_shifted_by_1000_s_leaves_arrival_skew_unchanged) {
  need_cluster();
  double plain = delayed_run("plain.json");
  char fault[128];
  snprintf(fault, sizeof fault, "fault clock %s 1000", host(2));
  cr_assert_eq(cluster(fault), 0, "%s", gcb_test_slurp("cluster.log"));
  /* What runs on the host (through the launcher's own wrapping) sees its
   * clock 1000 s ahead: /proc/uptime follows the time namespace. */
  char probe[160];
  snprintf(probe, sizeof probe, "exec %s sh -c 'cut -d. -f1 /proc/uptime >%s'",
           host(2), gcb_test_path("uptime.there"));
  cr_assert_eq(cluster(probe), 0, "%s", gcb_test_slurp("cluster.log"));
  char *there = gcb_test_slurp("uptime.there"),
       *here = gcb_test_read("/proc/uptime");
  double ahead = atof(there) - atof(here);
  cr_expect(ahead > 990 && ahead < 1010, "clock ahead by %g s", ahead);
  free(there);
  free(here);
  double shifted = delayed_run("shifted.json");
  cluster("fault clear");
  /* Planted: 20 ms late per operation. Uncorrected, the shift would read
   * as 1000 s (or as -1000 s: no rank late). */
  cr_expect(plain > 0.010 && plain < 0.5, "plain: %g s", plain);
  cr_expect(shifted > 0.010 && shifted < 0.5, "shifted: %g s", shifted);
  cr_expect(fabs(shifted - plain) < 0.015, "plain %g s, shifted %g s", plain,
            shifted);
}
