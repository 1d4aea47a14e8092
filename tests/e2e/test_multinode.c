/*
 * Several nodes on one machine: runs of the gcbench executable under
 * mpiexec with the test override (GCB_NODE_MAP, GCB_FAKE_NODES) that makes
 * groups of ranks act as separate nodes, checked through the results
 * document: the rank -> node map, each node's topology from its XML, and
 * coll's split communicators (intra-node and inter-node figures apart).
 * Runs are tiny: four ranks on two cores oversubscribe, and MPICH spins.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/document/record.h"
#include "reports/document/results.h"
#include "tests/e2e/run_gcbench.h"

#define TOPO GCB_TEST_DATA "/topo/"
#define XML_A TOPO "hwloc-2socket-3gpu-ib.xml"      /* 3 GPUs */
#define XML_B TOPO "hwloc-power8-4xp100-nvlink.xml" /* 4 GPUs */

static void make_dir(void) {
  gcb_test_dir_make("gcb-multinode");
  /* Each test sets the override it wants; none leaks from the caller. */
  unsetenv("GCB_NODE_MAP");
  unsetenv("GCB_FAKE_NODES");
}

TestSuite(multinode, .init = make_dir, .fini = gcb_test_dir_remove,
          .timeout = 300);

static const char *str(json_t *o, const char *key) {
  const char *s = json_string_value(json_object_get(o, key));
  return s ? s : "";
}

static json_int_t integer(json_t *o, const char *key) {
  return json_integer_value(json_object_get(o, key));
}

/* A node entry: its name, its ranks in order, its topology's GPU count. */
struct node_want {
  const char *hostname; /* NULL: any */
  int ranks[4], nranks;
  const char *source;
  int gpus; /* -1: any */
};

static void expect_node(json_t *node, const struct node_want *w, size_t i) {
  if (w->hostname)
    cr_expect_str_eq(str(node, "hostname"), w->hostname, "node %zu", i);
  cr_expect_eq(integer(node, "index"), (json_int_t)i);
  json_t *ranks = json_object_get(node, "ranks");
  cr_assert_eq(json_array_size(ranks), (size_t)w->nranks, "node %zu", i);
  for (int r = 0; r < w->nranks; r++)
    cr_expect_eq(json_integer_value(json_array_get(ranks, (size_t)r)),
                 w->ranks[r], "node %zu rank %d", i, r);
  json_t *topo = json_object_get(node, "topology");
  cr_expect_str_eq(str(topo, "source"), w->source, "node %zu", i);
  if (w->gpus >= 0)
    cr_expect_eq(json_array_size(json_object_get(topo, "gpus")),
                 (size_t)w->gpus, "node %zu", i);
}

/* Every rank entry names the node its node entry lists it under. */
static void expect_ranks_match_nodes(struct gcb_results *r) {
  size_t i, j;
  json_t *node, *rank;
  json_array_foreach(gcb_test_section(r, "nodes"), i, node) {
    json_array_foreach(json_object_get(node, "ranks"), j, rank) {
      json_t *entry = json_array_get(gcb_test_section(r, "ranks"),
                                     (size_t)json_integer_value(rank));
      cr_expect_eq(integer(entry, "node"), (json_int_t)i);
      cr_expect_eq(integer(entry, "local_rank"), (json_int_t)j);
      cr_expect_str_eq(str(entry, "hostname"), str(node, "hostname"));
    }
  }
}

static const char *param(json_t *c, const char *key) {
  return str(json_object_get(c, "params"), key);
}

/* Cases of coll per split: how many, and the bus factor they carry. */
struct split_seen {
  const char *split;
  int comm_size; /* ranks per communicator */
  double bus_factor;
  int cases;
};

static void count_splits(struct gcb_results *r, struct split_seen *want,
                         size_t n) {
  size_t i;
  json_t *c;
  json_array_foreach(gcb_test_section(r, "cases"), i, c) {
    const char *label = str(c, "label");
    json_t *s = json_object_get(c, "summary");
    cr_expect_eq(integer(s, "wrong"), 0, "%s", label);
    cr_expect_eq(integer(s, "ranks"), 4, "every rank reports: %s", label);
    cr_expect_gt(json_number_value(json_object_get(s, "algbw")), 0, "%s",
                 label);
    for (size_t k = 0; k < n; k++) {
      if (strcmp(param(c, "split"), want[k].split) != 0)
        continue;
      want[k].cases++;
      /* allreduce's 2(n-1)/n gives the communicator size away */
      cr_expect_float_eq(json_number_value(json_object_get(c, "bus_factor")),
                         want[k].bus_factor, 1e-12, "%s", label);
#if GCB_MAX_PARAMS > 8 /* the record holds every coll parameter */
      cr_expect_eq(integer(json_object_get(c, "params"), "comm_size"),
                   want[k].comm_size, "%s", label);
#endif
    }
  }
}

Test(multinode, four_ranks_as_two_nodes_measure_intra_and_inter_node_apart) {
  cr_assert_eq(setenv("GCB_NODE_MAP", "nodeA:" XML_A ",nodeB:" XML_B, 1), 0);
  const char *args[] = {"coll",
                        "--collective",
                        "allreduce",
                        "-b",
                        "64",
                        "-e",
                        "64",
                        "--split",
                        "all",
                        "--iters",
                        "2",
                        "--warmup",
                        "0",
                        "--output",
                        gcb_test_path("two.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(4, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("two.json");
  cr_expect_eq(integer(gcb_test_section(r, "run"), "nodes"), 2);
  cr_expect_eq(integer(gcb_test_section(r, "run"), "ranks"), 4);
  json_t *nodes = gcb_test_section(r, "nodes");
  cr_assert_eq(json_array_size(nodes), 2);
  const struct node_want want[] = {{"nodeA", {0, 1}, 2, "xml", 3},
                                   {"nodeB", {2, 3}, 2, "xml", 4}};
  for (size_t i = 0; i < 2; i++)
    expect_node(json_array_get(nodes, i), &want[i], i);
  expect_ranks_match_nodes(r);
  struct split_seen seen[] = {
      {"none", 4, 1.5, 0}, {"node", 2, 1.0, 0}, {"cross", 2, 1.0, 0}};
  count_splits(r, seen, 3);
  for (size_t k = 0; k < 3; k++)
    cr_expect_eq(seen[k].cases, 2, "split %s: out-of-place and in-place",
                 seen[k].split);
  cr_expect_eq(json_array_size(gcb_test_section(r, "skipped")), 0);
  gcb_results_free(r);
}

/* Three ranks as two nodes (2 + 1): groups are contiguous, named after the
 * host, and splits whose communicators differ in size are skipped with
 * their reason rather than mixed into one figure. */
Test(multinode, uneven_fake_nodes_skip_splits_that_would_not_compare) {
  cr_assert_eq(setenv("GCB_FAKE_NODES", "2", 1), 0);
  const char *args[] = {"coll",
                        "--collective",
                        "allreduce",
                        "-b",
                        "64",
                        "-e",
                        "64",
                        "--iters",
                        "2",
                        "--warmup",
                        "0",
                        "--output",
                        gcb_test_path("three.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(3, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("three.json");
  char host[256], name0[300], name1[300];
  cr_assert_eq(gethostname(host, sizeof host), 0);
  host[sizeof host - 1] = '\0';
  snprintf(name0, sizeof name0, "%.240s-0", host);
  snprintf(name1, sizeof name1, "%.240s-1", host);
  const struct node_want want[] = {{name0, {0, 1}, 2, "live", -1},
                                   {name1, {2}, 1, "live", -1}};
  json_t *nodes = gcb_test_section(r, "nodes");
  cr_assert_eq(json_array_size(nodes), 2);
  for (size_t i = 0; i < 2; i++)
    expect_node(json_array_get(nodes, i), &want[i], i);
  expect_ranks_match_nodes(r);
  /* --split auto on two nodes: none is measured, node and cross skipped. */
  json_t *cases = gcb_test_section(r, "cases"),
         *skipped = gcb_test_section(r, "skipped");
  cr_expect_eq(json_array_size(cases), 2);
  cr_assert_eq(json_array_size(skipped), 4, "node and cross, both halves");
  size_t i;
  json_t *s;
  json_array_foreach(skipped, i, s) {
    const char *reason = str(s, "reason");
    cr_expect(strstr(reason, "different rank counts") ||
                  strstr(reason, "one rank per communicator"),
              "%s", reason);
  }
  gcb_results_free(r);
}

struct bad_env {
  const char *var, *value;
  int ranks;
  int exit_code;
  const char *message;
};

static const struct bad_env bad_envs[] = {
    {"GCB_FAKE_NODES", "3", 2, 2, "3 fake nodes asked for"},
    {"GCB_FAKE_NODES", "two", 1, 2, "GCB_FAKE_NODES 'two'"},
    {"GCB_NODE_MAP", "a,a", 2, 2, "node name 'a' given twice"},
    {"GCB_NODE_MAP", "a,,b", 1, 2, "entry 2: expected NAME[:XML]"},
    /* Names reach the live table and the watchdog's lines: no terminal
     * escape, no newline (shown escaped in the one line). */
    {"GCB_NODE_MAP", "a,b\033[2Jc", 2, 2,
     "entry 2: node name 'b\\x1b[2Jc' must be up to 63 letters"},
    {"GCB_NODE_MAP", "a\nRANK 0 OK,b", 2, 2, "node name 'a\\x0aRANK 0 OK'"},
    {"GCB_NODE_MAP",
     "a,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
     2, 2, "up to 63 letters"},
    {"GCB_NODE_MAP", "a:/nonexistent/topo.xml", 1, 2,
     "/nonexistent/topo.xml: cannot open"},
};

Test(multinode, bad_override_exits_with_one_line_naming_it) {
  const char *args[] = {
      "gemm", "-m", "16", "--iters", "1", "--output", gcb_test_path("bad.json"),
      NULL};
  for (size_t i = 0; i < sizeof bad_envs / sizeof *bad_envs; i++) {
    const struct bad_env *b = &bad_envs[i];
    cr_assert_eq(setenv(b->var, b->value, 1), 0);
    cr_expect_eq(gcb_test_gcbench(b->ranks, args), b->exit_code, "case %zu", i);
    char *err = gcb_test_slurp("stderr");
    cr_expect(strstr(err, b->message) != NULL, "case %zu: %s", i, err);
    cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
    free(err);
    unsetenv(b->var);
  }
}

Test(multinode, split_on_one_node_is_skipped_or_refused_with_a_reason) {
  const char *args[] = {"coll",
                        "--collective",
                        "allreduce",
                        "-b",
                        "64",
                        "-e",
                        "64",
                        "--split",
                        "cross",
                        "--iters",
                        "1",
                        "--warmup",
                        "0",
                        "--output",
                        gcb_test_path("one.json"),
                        NULL};
  /* skipped visibly, and no pass: nothing was measured (exit 5) */
  cr_assert_eq(gcb_test_gcbench(2, args), 5, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("one.json");
  cr_expect_eq(json_array_size(gcb_test_section(r, "cases")), 0);
  json_t *skipped = gcb_test_section(r, "skipped");
  cr_assert_eq(json_array_size(skipped), 2);
  cr_expect(strstr(str(json_array_get(skipped, 0), "reason"),
                   "one rank per communicator (one node)") != NULL,
            "%s", str(json_array_get(skipped, 0), "reason"));
  gcb_results_free(r);
  const char *bad[] = {
      "coll", "--split", "nodes", "--output", gcb_test_path("x.json"), NULL};
  cr_expect_eq(gcb_test_gcbench(1, bad), 2);
  char *err = gcb_test_slurp("stderr");
  cr_expect(strstr(err, "--split: unknown value 'nodes'") != NULL, "%s", err);
  free(err);
}

/* netmap --schedule nodepairs (SuperBench's node pairs): every pair of
 * nodes exactly once, local rank i to local rank i, each case checked,
 * over the host backend's transport (MPI). n nodes of `per` ranks. */
static void expect_node_pairs(struct gcb_results *r, int nodes, int per) {
  int seen[8][8] = {{0}}, cases = 0;
  size_t i;
  json_t *c;
  json_array_foreach(gcb_test_section(r, "cases"), i, c) {
    if (strcmp(param(c, "schedule"), "nodepairs") != 0)
      continue;
    json_t *p = json_object_get(c, "params");
    int a = (int)integer(p, "src_node"), b = (int)integer(p, "dst_node");
    cr_assert(a >= 0 && b > a && b < nodes, "pair %d, %d", a, b);
    seen[a][b]++, cases++;
    cr_expect_str_eq(param(c, "measure"), "sendrecv");
    cr_expect_str_eq(param(c, "transport"), "mpi");
    cr_expect_eq(integer(p, "rank_pairs"), per);
    cr_expect_eq(integer(p, "src"), a * per, "the node's first rank");
    cr_expect_eq(integer(p, "dst"), b * per);
    json_t *s = json_object_get(c, "summary");
    cr_expect_eq(integer(s, "wrong"), 0, "%s", str(c, "label"));
    cr_expect_gt(json_number_value(json_object_get(s, "median")), 0);
    cr_expect(json_is_true(
                  json_object_get(json_object_get(c, "validation"), "checked")),
              "%s: payload checked", str(c, "label"));
  }
  cr_expect_eq(cases, nodes * (nodes - 1) / 2);
  for (int a = 0; a < nodes; a++)
    for (int b = a + 1; b < nodes; b++)
      cr_expect_eq(seen[a][b], 1, "nodes %d and %d once", a, b);
}

Test(multinode, node_pairs_map_every_pair_of_nodes_once) {
  cr_assert_eq(setenv("GCB_NODE_MAP", "n1,n2,n3,n4", 1), 0);
  const char *args[] = {"netmap",
                        "--schedule",
                        "nodepairs",
                        "--size",
                        "4K",
                        "--iters",
                        "2",
                        "--warmup",
                        "1",
                        "--output",
                        gcb_test_path("np4.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(4, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("np4.json");
  expect_node_pairs(r, 4, 1);
  gcb_results_free(r);
  /* The report draws the node x node matrix (its verdict on this shared
   * machine's noise is not asserted). */
  const char *rep[] = {"report", gcb_test_path("np4.json"), "-o",
                       gcb_test_path("rep"), NULL};
  int rc = gcb_test_gcbench(0, rep);
  cr_expect(rc == 0 || rc == 1, "report exit %d: %s", rc,
            gcb_test_slurp("stderr"));
  char *md = gcb_test_slurp("rep/report.md"),
       *svg = gcb_test_slurp("rep/netmap.svg");
  cr_expect_not_null(strstr(md, "Network map: bandwidth, nodepairs"));
  cr_expect_not_null(strstr(svg, "nodepairs (run 1), node to node"));
  free(md);
  free(svg);
}

Test(multinode, node_pairs_pair_every_local_rank) {
  cr_assert_eq(setenv("GCB_FAKE_NODES", "2", 1), 0);
  const char *args[] = {"netmap",
                        "--schedule",
                        "all",
                        "--measure",
                        "bandwidth",
                        "--size",
                        "4K",
                        "--iters",
                        "2",
                        "--warmup",
                        "0",
                        "--output",
                        gcb_test_path("np2.json"),
                        NULL};
  cr_assert_eq(gcb_test_gcbench(4, args), 0, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("np2.json");
  cr_expect_eq(json_array_size(gcb_test_section(r, "cases")),
               (size_t)(2 * 12 + 1), "12 ordered pairs x 2 schedules + 1");
  expect_node_pairs(r, 2, 2);
  gcb_results_free(r);
}

/* Node pairs on one node: skipped with the reason, never 0 cases said
 * nothing about. */
Test(multinode, node_pairs_on_one_node_are_skipped_with_the_reason) {
  const char *args[] = {"netmap",
                        "--schedule",
                        "nodepairs",
                        "--iters",
                        "1",
                        "--output",
                        gcb_test_path("np1.json"),
                        NULL};
  /* skipped visibly, and no pass: nothing was measured (exit 5) */
  cr_assert_eq(gcb_test_gcbench(2, args), 5, "stderr: %s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = gcb_test_load("np1.json");
  json_t *skipped = gcb_test_section(r, "skipped");
  cr_assert_eq(json_array_size(skipped), 1);
  char *text = json_dumps(skipped, 0);
  cr_expect(strstr(text, "no pair of nodes to map") != NULL, "%s", text);
  free(text);
  gcb_results_free(r);
}
