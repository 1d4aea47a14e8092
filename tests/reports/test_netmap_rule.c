/*
 * The network map's findings on synthetic documents (one rank per node,
 * every ordered pair a netmap case): a host whose every pair is slow is
 * one network-link finding for that host and no path; one slow pair is a
 * network-path finding and no link; two nodes cannot tell a link from a
 * path; a pair slow in one schedule only is a warning. And the matrix
 * reader keeps out-of-range node indices inside its arrays.
 */
#include <math.h>

#include "reports/analysis/analyze.h"
#include "reports/analysis/netmap_matrix.h"
#include "reports/render/render.h"
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
  struct gcb_findings f;
};

static void analyse(struct run *r) {
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_doc d = {.name = "test.json", .root = r->doc};
  struct gcb_err err = {0};
  fx_check_valid(r->doc);
  cr_assert_eq(gcb_analyze(&d, 1, &t, &r->f, &err), GCB_OK, "%s", err.msg);
}

static size_t count(const struct run *r, const char *kind,
                    const struct gcb_finding **first) {
  size_t n = 0;
  for (size_t i = 0; i < r->f.n; i++)
    if (strcmp(r->f.items[i].kind, kind) == 0 && n++ == 0 && first)
      *first = &r->f.items[i];
  return n;
}

static void done(struct run *r) {
  gcb_findings_free(&r->f);
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
  struct gcb_netmap m;
  cr_assert(gcb_netmap_read(doc, "alone", &m));
  cr_expect_eq(m.n, 3);
  cr_expect_leq(m.nodes, 3, "node index out of range counted as 0");
  cr_expect_float_eq(m.bw[0 * 3 + 1], SLOW, 1e-9);
  cr_expect_float_eq(m.bw[1 * 3 + 0], FAST, 1e-9);
  cr_expect(isnan(m.bw[1 * 3 + 1]));
  cr_expect_str_eq(m.host[2], "node02");
  struct gcb_netmap none;
  cr_expect_not(gcb_netmap_read(doc, "together", &none));
  gcb_netmap_free(&m);
  gcb_netmap_free(&none);
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
  struct gcb_doc d = {.name = "test.json", .root = r.doc};
  struct gcb_report rep = {
      .docs = &d, .ndocs = 1, .findings = &r.f, .thresholds = &t};
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
