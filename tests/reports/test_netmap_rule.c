/*
 * The network map's findings on synthetic documents (one rank per node,
 * every ordered pair a netmap case): a host whose every pair is slow is
 * one network-link finding for that host and no path; one slow pair is a
 * network-path finding and no link; two nodes cannot tell a link from a
 * path; a pair slow in one schedule only is a warning. And the matrix
 * reader keeps out-of-range node indices inside its arrays. The node
 * pairs (SuperBench's pattern): a planted slow pair of nodes, at 40 % of
 * noisy others, is one failing root cause naming both hosts, for several
 * node counts and seeds; healthy noisy node matrices give nothing; the
 * node x node matrix reads both ways and is in the report.
 */
#include <math.h>

#include "reports/analysis/analyze.h"
#include "reports/analysis/diagnose.h"
#include "reports/analysis/netmap_matrix.h"
#include "reports/render/render.h"
#include "tests/reports/failing_alloc.h"
#include "tests/reports/report_fixture.h"

#define FAST 10.0
#define SLOW 0.1

/* A document of n nodes x 1 rank whose netmap pair s -> d of `schedule`
 * has bw(s, d). */
static void add_map(json_t *doc, int n, const char *schedule,
                    double (*bw)(int, int)) {
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++) {
      if (s == d)
        continue;
      double figs[FX_MAX_RANKS];
      for (int r = 0; r < n; r++)
        figs[r] = bw(s, d);
      char params[256], label[64];
      snprintf(params, sizeof params,
               "{\"measure\": \"bandwidth\", \"schedule\": \"%s\", \"src\": "
               "%d, \"dst\": %d, \"src_host\": \"node%02d\", \"dst_host\": "
               "\"node%02d\"}",
               schedule, s, d, s, d);
      snprintf(label, sizeof label, "bandwidth %s %d->%d", schedule, s, d);
      fx_add_case(doc, fx_case("netmap", label, params, "GB/s", figs, (size_t)n,
                               0.01, NULL));
    }
}

static double node2_link(int s, int d) {
  return s == 2 || d == 2 ? SLOW : FAST;
}
static double path01(int s, int d) {
  return s == 0 && d == 1 ? SLOW : FAST;
}
static double all_fast(int s, int d) {
  (void)s, (void)d;
  return FAST;
}
static double all_slow(int s, int d) {
  (void)s, (void)d;
  return SLOW;
}

struct run {
  json_t *doc;
  struct gcb_doc d; /* with its model, kept while findings point into it */
  struct gcb_findings f;
};

static void analyse(struct run *r) {
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_err err = {0};
  fx_check_valid(r->doc);
  fx_doc_free(&r->d);
  r->d = fx_doc_of("test.json", r->doc);
  cr_assert_eq(gcb_analyze(&r->d, 1, &t, &r->f, &err), GCB_OK, "%s", err.msg);
}

static size_t count(const struct run *r, const char *kind,
                    const struct gcb_finding **first) {
  size_t n = 0;
  for (size_t i = 0; i < r->f.n; i++)
    if (strcmp(r->f.items[i].kind->name, kind) == 0 && n++ == 0 && first)
      *first = &r->f.items[i];
  return n;
}

static void done(struct run *r) {
  gcb_findings_free(&r->f);
  fx_doc_free(&r->d);
  json_decref(r->doc);
}

Test(netmap_rule, a_host_whose_every_pair_is_slow_is_its_link) {
  struct run r = {.doc = fx_doc(4, 4, 8, "Test CPU")};
  add_map(r.doc, 4, "alone", node2_link);
  analyse(&r);
  const struct gcb_finding *f = NULL;
  cr_assert_eq(count(&r, "network-link", &f), 1);
  cr_expect_eq(count(&r, "network-path", NULL), 0, "its pairs are not paths");
  cr_expect_eq(f->severity, GCB_SEV_FAIL);
  cr_expect_eq(f->where.node, 2);
  cr_expect_str_eq(f->where.hostname, "node02");
  cr_expect_str_eq(f->where.link, "node02 link");
  cr_expect_str_eq(f->where.ranks, "2");
  cr_expect_float_eq(f->measured, SLOW, 1e-9);
  cr_expect_float_eq(f->expected, FAST, 1e-9);
  cr_expect_float_eq(f->cost, 1 - SLOW / FAST, 1e-9);
  done(&r);
}

Test(netmap_rule, one_slow_pair_is_a_path_not_a_link) {
  struct run r = {.doc = fx_doc(3, 3, 8, "Test CPU")};
  add_map(r.doc, 3, "alone", path01);
  analyse(&r);
  const struct gcb_finding *f = NULL;
  cr_expect_eq(count(&r, "network-link", NULL), 0);
  cr_assert_eq(count(&r, "network-path", &f), 1);
  cr_expect_eq(f->severity, GCB_SEV_FAIL, "no other schedule to doubt it");
  cr_expect_eq(f->where.rank, 0);
  cr_expect_str_eq(f->where.link, "node00 -> node01");
  cr_expect_str_eq(f->where.ranks, "0,1");
  done(&r);
}

Test(netmap_rule, a_pair_slow_in_one_schedule_only_is_a_warning) {
  struct run r = {.doc = fx_doc(3, 3, 8, "Test CPU")};
  add_map(r.doc, 3, "alone", path01);
  add_map(r.doc, 3, "together", all_fast);
  analyse(&r);
  const struct gcb_finding *f = NULL;
  cr_assert_eq(count(&r, "network-path", &f), 1);
  cr_expect_eq(f->severity, GCB_SEV_WARN);
  done(&r);
}

Test(netmap_rule, two_nodes_or_a_uniform_map_give_nothing) {
  struct run r = {.doc = fx_doc(2, 2, 8, "Test CPU")};
  add_map(r.doc, 2, "alone", all_slow);
  analyse(&r);
  cr_expect_eq(count(&r, "network-link", NULL), 0);
  cr_expect_eq(count(&r, "network-path", NULL), 0);
  done(&r);
  struct run u = {.doc = fx_doc(4, 4, 8, "Test CPU")};
  add_map(u.doc, 4, "alone", all_fast);
  add_map(u.doc, 4, "together", all_fast);
  analyse(&u);
  cr_expect_eq(count(&u, "network-link", NULL), 0);
  cr_expect_eq(count(&u, "network-path", NULL), 0);
  done(&u);
}

Test(netmap_rule, the_matrix_reads_pairs_and_bounds_node_indices) {
  json_t *doc = fx_doc(3, 3, 8, "Test CPU");
  add_map(doc, 3, "alone", path01);
  json_object_set_new(json_array_get(json_object_get(doc, "ranks"), 1), "node",
                      json_integer(1000000000));
  struct gcb_doc d = fx_doc_of("test.json", doc);
  struct gcb_netmap m;
  cr_assert(gcb_netmap_read_model(d.model, "alone", &m));
  cr_expect_eq(m.n, 3);
  cr_expect_leq(m.nodes, 3, "node index out of range counted as 0");
  cr_expect_float_eq(m.bw[0 * 3 + 1], SLOW, 1e-9);
  cr_expect_float_eq(m.bw[1 * 3 + 0], FAST, 1e-9);
  cr_expect(isnan(m.bw[1 * 3 + 1]));
  cr_expect_str_eq(m.host[2], "node02");
  struct gcb_netmap none;
  cr_expect_not(gcb_netmap_read_model(d.model, "together", &none));
  gcb_netmap_free(&m);
  gcb_netmap_free(&none);
  fx_doc_free(&d);
  json_decref(doc);
}

/* The report's tables: the matrix with host names, and the per-node table
 * marking the host whose every pair is slow. */
static const struct gcb_rtable *table(const struct gcb_rtables *ts,
                                      const char *id) {
  for (size_t i = 0; i < ts->n; i++)
    if (strcmp(ts->items[i].id, id) == 0)
      return &ts->items[i];
  return NULL;
}

Test(netmap_rule, the_report_has_the_matrix_and_the_per_node_table) {
  struct run r = {.doc = fx_doc(4, 4, 8, "Test CPU")};
  add_map(r.doc, 4, "alone", node2_link);
  analyse(&r);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_report rep = {
      .docs = &r.d, .ndocs = 1, .findings = &r.f, .thresholds = &t};
  struct gcb_rtables ts = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_report_tables(&rep, &ts, &err), GCB_OK, "%s", err.msg);
  const struct gcb_rtable *m = table(&ts, "netmap-bw-alone-0");
  cr_assert_not_null(m);
  cr_assert_eq(m->ncols, 5);
  cr_assert_eq(m->nrows, 4);
  cr_expect_str_eq(m->cells[3], "2 node02"); /* header, column 3 */
  cr_expect_str_eq(m->cells[1 * 5 + 0], "0 node00");
  cr_expect_str_eq(m->cells[1 * 5 + 1], "-");   /* 0 -> 0 */
  cr_expect_str_eq(m->cells[1 * 5 + 3], "0.1"); /* 0 -> 2 */
  cr_expect_str_eq(m->cells[1 * 5 + 2], "10");  /* 0 -> 1 */
  const struct gcb_rtable *n = table(&ts, "netmap-nodes-alone-0");
  cr_assert_not_null(n);
  cr_assert_eq(n->nrows, 4);
  cr_expect_str_eq(n->cells[3 * n->ncols + 1], "node02");
  cr_expect_str_eq(n->row_class[2], "fail");
  cr_expect_null(n->row_class[0]);
  cr_expect_null(table(&ts, "netmap-bw-together-0"));
  gcb_rtables_free(&ts);
  done(&r);
}

/* ---- node pairs (SuperBench's pattern: every node pair once) ----------- */

#define BUSBW 12.0

/* Uniform in [-1, 1) from a seeded LCG: the noise of one pair. */
static double noise(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return (double)(*seed >> 8 & 0xffff) / 32768.0 - 1.0;
}

/* Node pairs of `nodes` nodes x `per` ranks: every pair once, its busbw
 * BUSBW within +-spread (seeded), the pair (slow_a, slow_b) at `share` of
 * it (slow_a < 0: none). */
static void add_node_pairs(json_t *doc, int nodes, int per, unsigned seed,
                           double spread, int slow_a, int slow_b,
                           double share) {
  for (int a = 0; a < nodes; a++)
    for (int b = a + 1; b < nodes; b++) {
      double v = BUSBW * (1 + spread * noise(&seed));
      if (a == slow_a && b == slow_b)
        v = BUSBW * share;
      double figs[FX_MAX_RANKS];
      for (int r = 0; r < nodes * per; r++)
        figs[r] = v;
      char params[320], label[64];
      snprintf(params, sizeof params,
               "{\"measure\": \"sendrecv\", \"schedule\": \"nodepairs\", "
               "\"transport\": \"nccl\", \"src\": %d, \"dst\": %d, "
               "\"src_node\": %d, \"dst_node\": %d, \"src_host\": "
               "\"node%02d\", \"dst_host\": \"node%02d\", \"rank_pairs\": %d}",
               a * per, b * per, a, b, a, b, per);
      snprintf(label, sizeof label, "sendrecv nodepairs n%d<->n%d", a, b);
      fx_add_case(doc, fx_case("netmap", label, params, "GB/s", figs,
                               (size_t)(nodes * per), 0.01, NULL));
    }
}

static size_t network_findings(const struct run *r) {
  return count(r, "network-path", NULL) + count(r, "network-link", NULL);
}

Test(netmap_rule, a_planted_slow_node_pair_is_one_root_cause_naming_both) {
  static const int node_counts[] = {3, 4, 5, 8};
  for (size_t i = 0; i < sizeof node_counts / sizeof *node_counts; i++)
    for (unsigned seed = 1; seed <= 4; seed++) {
      int nodes = node_counts[i], slow_b = nodes - 1;
      struct run r = {.doc = fx_doc(2 * nodes, nodes, 8, "Test CPU")};
      add_node_pairs(r.doc, nodes, 2, seed, 0.05, 1, slow_b, 0.4);
      analyse(&r);
      const struct gcb_finding *f = NULL;
      cr_expect_eq(count(&r, "network-link", NULL), 0, "%d nodes", nodes);
      cr_assert_eq(count(&r, "network-path", &f), 1, "%d nodes, seed %u", nodes,
                   seed);
      char link[64];
      snprintf(link, sizeof link, "node01 <-> node%02d", slow_b);
      cr_expect_str_eq(f->where.link, link);
      cr_expect_eq(f->severity, GCB_SEV_FAIL, "40 %%: below link_fail_pct");
      cr_expect_float_eq(f->measured, 0.4 * BUSBW, 1e-9);
      cr_expect_eq(f->where.rank, 2, "node01's first rank");
      struct gcb_thresholds t;
      gcb_thresholds_default(&t);
      struct gcb_diagnosis dx = {0};
      struct gcb_err err = {0};
      cr_assert_eq(gcb_diagnose(&r.d, 1, &r.f, &t, &dx, &err), GCB_OK, "%s",
                   err.msg);
      cr_assert_eq(gcb_diagnosis_count(&dx, GCB_SEV_FAIL), 1);
      cr_expect_eq(gcb_diagnosis_count(&dx, GCB_SEV_WARN), 0);
      const struct gcb_root_cause *c = &dx.items[0];
      cr_expect(strstr(c->comp.name, "node01") != NULL &&
                    strstr(c->comp.name, link + 11) != NULL,
                "the root cause names both hosts: %s", c->comp.name);
      gcb_diagnosis_free(&dx);
      done(&r);
    }
}

/* Hosts named as a cluster's DNS names them: longer than any cut that
 * kept their first bytes, and alike in those. */
#define LONG_HOST "gpu-h200-rack07-row3.compute.cluster.example.org-n%02d"

Test(netmap_rule, paths_to_hosts_alike_in_their_first_bytes_stay_apart) {
  struct run r = {.doc = fx_doc(4, 4, 8, "Test CPU")};
  static const char *const sections[] = {"nodes", "ranks"};
  for (size_t k = 0; k < 2; k++) {
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(r.doc, sections[k]), i, e) {
      char host[96];
      snprintf(host, sizeof host, LONG_HOST, (int)i); /* one rank a node */
      cr_assert_eq(json_object_set_new(e, "hostname", json_string(host)), 0);
    }
  }
  for (int s = 0; s < 4; s++)
    for (int d = 0; d < 4; d++) {
      if (s == d)
        continue;
      double figs[FX_MAX_RANKS];
      for (int k = 0; k < 4; k++)
        figs[k] = s == 0 && d > 0 && d < 3 ? SLOW : FAST;
      char params[512], label[64];
      snprintf(params, sizeof params,
               "{\"measure\": \"bandwidth\", \"schedule\": \"alone\", "
               "\"src\": %d, \"dst\": %d, \"src_host\": \"" LONG_HOST
               "\", \"dst_host\": \"" LONG_HOST "\"}",
               s, d, s, d);
      snprintf(label, sizeof label, "bandwidth alone %d->%d", s, d);
      fx_add_case(
          r.doc, fx_case("netmap", label, params, "GB/s", figs, 4, 0.01, NULL));
    }
  analyse(&r);
  cr_assert_eq(count(&r, "network-path", NULL), 2);
  char want[2][160];
  for (int d = 1; d <= 2; d++)
    snprintf(want[d - 1], sizeof want[0], LONG_HOST " -> " LONG_HOST, 0, d);
  for (size_t i = 0, k = 0; i < r.f.n; i++)
    if (strcmp(r.f.items[i].kind->name, "network-path") == 0)
      cr_expect_str_eq(r.f.items[i].where.link, want[k++],
                       "the path names both hosts whole");
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_diagnosis dx = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_diagnose(&r.d, 1, &r.f, &t, &dx, &err), GCB_OK, "%s",
               err.msg);
  cr_expect_eq(gcb_diagnosis_count(&dx, GCB_SEV_FAIL), 2,
               "two paths, not one by their hosts' first bytes");
  for (size_t i = 0; i < dx.n; i++)
    cr_expect(strstr(dx.items[i].comp.name, want[0]) != NULL ||
                  strstr(dx.items[i].comp.name, want[1]) != NULL,
              "%s", dx.items[i].comp.name);
  gcb_diagnosis_free(&dx);
  done(&r);
}

Test(netmap_rule, healthy_node_pairs_with_noise_give_no_warning) {
  for (int nodes = 2; nodes <= 8; nodes++)
    for (unsigned seed = 1; seed <= 12; seed++) {
      struct run r = {.doc = fx_doc(2 * nodes, nodes, 8, "Test CPU")};
      add_node_pairs(r.doc, nodes, 2, seed * 7919u, 0.10, -1, -1, 1);
      analyse(&r);
      cr_expect_eq(network_findings(&r), 0, "%d nodes, seed %u", nodes, seed);
      done(&r);
    }
}

Test(netmap_rule, a_node_slow_with_every_other_is_its_link) {
  struct run r = {.doc = fx_doc(8, 4, 8, "Test CPU")};
  add_node_pairs(r.doc, 4, 2, 3, 0.05, -1, -1, 1);
  /* node 2's three pairs at 30 %. */
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(r.doc, "cases"), i, c) {
    json_t *p = json_object_get(c, "params");
    if (json_integer_value(json_object_get(p, "src_node")) != 2 &&
        json_integer_value(json_object_get(p, "dst_node")) != 2)
      continue;
    fx_scale_case(c, 0.3);
  }
  analyse(&r);
  const struct gcb_finding *f = NULL;
  cr_assert_eq(count(&r, "network-link", &f), 1);
  cr_expect_eq(count(&r, "network-path", NULL), 0);
  cr_expect_str_eq(f->where.link, "node02 link");
  cr_expect_str_eq(f->where.ranks, "4,5");
  done(&r);
}

/* A node of 40 ranks: its list does not fit the finding's ranks field,
 * and the field says how many it leaves out instead of ending mid-list. */
Test(netmap_rule, a_slow_node_of_many_ranks_says_the_ranks_it_leaves_out) {
  struct run r = {.doc = fx_doc(160, 4, 8, "Test CPU")};
  add_node_pairs(r.doc, 4, 2, 3, 0.05, -1, -1, 1);
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(r.doc, "cases"), i, c) {
    json_t *p = json_object_get(c, "params");
    if (json_integer_value(json_object_get(p, "src_node")) == 2 ||
        json_integer_value(json_object_get(p, "dst_node")) == 2)
      fx_scale_case(c, 0.3);
  }
  analyse(&r);
  const struct gcb_finding *f = NULL;
  cr_assert_eq(count(&r, "network-link", &f), 1);
  const char *ranks = f->where.ranks, *more = strstr(ranks, "... (+");
  cr_assert_not_null(more, "the rest is said: %s", ranks);
  cr_expect_eq(strncmp(ranks, "80,81,82,", 9), 0, "%s", ranks);
  int shown = 0, rest = 0; /* each rank shown is followed by a comma */
  for (const char *p = ranks; p < more; p++)
    shown += *p == ',';
  cr_expect_eq(sscanf(more, "... (+%d more)", &rest), 1, "%s", ranks);
  cr_expect_eq(shown + rest, 40, "%d shown + %d more: %s", shown, rest, ranks);
  done(&r);
}

Test(netmap_rule, the_node_matrix_is_nodes_by_nodes_both_ways) {
  json_t *doc = fx_doc(6, 3, 8, "Test CPU");
  add_node_pairs(doc, 3, 2, 1, 0, 0, 2, 0.5);
  struct gcb_doc d = fx_doc_of("test.json", doc);
  struct gcb_netmap m;
  cr_assert(gcb_netmap_read_model(d.model, "nodepairs", &m));
  cr_expect(m.by_node);
  cr_assert_eq(m.n, 3);
  cr_expect_eq(m.nodes, 3);
  cr_expect_float_eq(m.bw[0 * 3 + 2], 0.5 * BUSBW, 1e-9);
  cr_expect_float_eq(m.bw[2 * 3 + 0], 0.5 * BUSBW, 1e-9);
  cr_expect_float_eq(m.bw[0 * 3 + 1], BUSBW, 1e-9);
  cr_expect(isnan(m.bw[1 * 3 + 1]));
  cr_expect(isnan(m.lat[0 * 3 + 1]), "no latency in node pairs");
  cr_expect_str_eq(m.host[1], "node01");
  cr_expect_eq(m.rank[2], 4, "a node's row stands for its first rank");
  cr_expect_eq(gcb_netmap_row(&m, 4), 2);
  cr_expect_eq(gcb_netmap_row(&m, 5), -1);
  struct gcb_netmap ranks;
  cr_expect_not(gcb_netmap_read_model(d.model, "alone", &ranks), "no rank map");
  gcb_netmap_free(&m);
  gcb_netmap_free(&ranks);
  fx_doc_free(&d);
  json_decref(doc);
}

Test(netmap_rule, the_report_has_the_node_matrix) {
  struct run r = {.doc = fx_doc(8, 4, 8, "Test CPU")};
  add_node_pairs(r.doc, 4, 2, 1, 0, 1, 3, 0.4);
  analyse(&r);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_report rep = {
      .docs = &r.d, .ndocs = 1, .findings = &r.f, .thresholds = &t};
  struct gcb_rtables ts = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_report_tables(&rep, &ts, &err), GCB_OK, "%s", err.msg);
  const struct gcb_rtable *m = table(&ts, "netmap-bw-nodepairs-0");
  cr_assert_not_null(m);
  cr_assert_eq(m->ncols, 5);
  cr_assert_eq(m->nrows, 4);
  cr_expect_str_eq(m->cells[2], "node01"); /* header, column 2 */
  cr_expect_str_eq(m->cells[2 * 5 + 0], "node01");
  cr_expect_str_eq(m->cells[2 * 5 + 4], "4.8"); /* node01 <-> node03 */
  cr_expect_str_eq(m->cells[4 * 5 + 2], "4.8"); /* both ways */
  cr_expect_str_eq(m->cells[1 * 5 + 2], "12");
  cr_expect_null(table(&ts, "netmap-lat-nodepairs-0"), "bandwidth only");
  cr_expect_not_null(table(&ts, "netmap-nodes-nodepairs-0"));
  gcb_rtables_free(&ts);
  done(&r);
}

/* A map of more ranks than a matrix is built for is not judged, and the
 * report says so instead of reading as a sound network. */
Test(netmap_rule, a_map_too_large_to_build_says_it_was_not_judged) {
  int n = GCB_NETMAP_MAX_ROWS + 1;
  struct run r = {.doc = fx_doc(n, n, 8, "Test CPU")};
  double figs[2] = {SLOW, SLOW};
  fx_add_case(r.doc,
              fx_case("netmap", "bandwidth alone 0->1",
                      "{\"measure\": \"bandwidth\", \"schedule\": \"alone\", "
                      "\"src\": 0, \"dst\": 1}",
                      "GB/s", figs, 2, 0.01, NULL));
  analyse(&r);
  const struct gcb_finding *f = NULL;
  cr_assert_eq(count(&r, "network-path", &f), 1);
  cr_expect_eq(f->severity, GCB_SEV_INFO);
  cr_expect(strstr(f->explanation, "of 4097 ranks was not built, more than "
                                   "the 4096") != NULL,
            "%s", f->explanation);
  cr_expect_eq(count(&r, "network-link", &f), 0);
  done(&r);
}

#ifndef GCB_NO_MALLOC_HOOK
/* The network findings of r->d analysed with allocation `fail` (-1: none)
 * failing, as text (the caller frees it); the status. */
static enum gcb_status analyse_failing(struct run *r, long fail, char **seen,
                                       struct gcb_err *err) {
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  allocations = 0;
  fail_at = fail;
  enum gcb_status st = gcb_analyze(&r->d, 1, &t, &r->f, err);
  fail_at = -1;
  size_t len = 0;
  FILE *f = open_memstream(seen, &len);
  cr_assert_not_null(f);
  for (size_t i = 0; st == GCB_OK && i < r->f.n; i++)
    if (strncmp(r->f.items[i].kind->name, "network-", 8) == 0)
      fprintf(f, "%s %d %s\n", r->f.items[i].kind->name,
              (int)r->f.items[i].severity, r->f.items[i].explanation);
  fclose(f);
  gcb_findings_free(&r->f);
  return st;
}
#endif

/* Out of memory while judging the map (its verdicts, the second
 * schedule's map, the medians) is said as such: the analysis ends with
 * GCB_ENOMEM, or the map says it was not built; never fewer findings
 * with GCB_OK, nor a pair failed as if the second schedule was not run. */
Test(netmap_rule, out_of_memory_judging_the_map_is_said_not_silent) {
#ifdef GCB_NO_MALLOC_HOOK
  cr_skip_test("AddressSanitizer owns malloc here");
#else
  struct run r = {.doc = fx_doc(4, 4, 8, "Test CPU")};
  add_map(r.doc, 4, "alone", node2_link);
  add_map(r.doc, 4, "together", all_fast);
  fx_check_valid(r.doc);
  r.d = fx_doc_of("test.json", r.doc);
  struct gcb_err err = {0};
  char *whole, *seen;
  cr_assert_eq(analyse_failing(&r, -1, &whole, &err), GCB_OK, "%s", err.msg);
  long total = allocations;
  if (total == 0) { /* valgrind's malloc stands in front of this one */
    free(whole);
    done(&r);
    cr_skip_test("allocations are not this binary's to fail here");
  }
  cr_assert(strstr(whole, "network-link") != NULL, "%s", whole);
  for (long k = 0; k < total; k++) {
    err = (struct gcb_err){0};
    enum gcb_status st = analyse_failing(&r, k, &seen, &err);
    cr_expect(st == GCB_OK || (st == GCB_ENOMEM &&
                               strstr(err.msg, "out of memory") != NULL),
              "allocation %ld of %ld: status %d (%s)", k, total, (int)st,
              err.msg);
    cr_expect(st != GCB_OK || strcmp(seen, whole) == 0 ||
                  strstr(seen, "was not built, out of memory") != NULL,
              "allocation %ld of %ld failing: other findings:\n%s", k, total,
              seen);
    free(seen);
  }
  free(whole);
  done(&r);
#endif
}
