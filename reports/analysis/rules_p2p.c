/*
 * `p2p-bandwidth`: GPU pairs whose peer-to-peer bandwidth is low, in two
 * ways: below the link_pct share of what the topology expects for the
 * pair (paths.expected_gbps: NVLink count x rate, or the PCIe route's
 * slowest link), and, whatever the model says, a robust low outlier among
 * the pairs of the same path class on the node (one NVLink pair at half
 * the rate of its 27 siblings). A pair is reported once.
 *
 * A p2p case is one pair measured on every node (p2p_view.h): each node's
 * measurement is judged against that node's topology. The class is the
 * topology's, else params.path. Bidirectional cases (direction "bidir")
 * count both directions, so they are held against twice the expectation;
 * latency and host-staged copies are not held against the link rate, only
 * against their peers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "reports/analysis/analyze_rules.h"
#include "reports/document/p2p_view.h"

struct pair {
  struct gcb__p2p_pair m;
  const struct gcb_model_case *c;
  double expected;
  const char *cls;
  char group[320];
  size_t order; /* position among the document's cases, for stable ties */
  bool flagged;
};

/* Both directions at once: their bytes are summed (gcbench's p2p, and
 * nvbandwidth's totals), so the expectation doubles. */
static bool bidir(const struct gcb_model_case *c) {
  return strcmp(gcb_model_param_str(c, "direction"), "bidir") == 0;
}

const char *gcb__case_p2p_arrow(const struct gcb_model_case *c) {
  return bidir(c) ? "<->" : "->";
}

/* Cases the link rate does not apply to: 8-byte latency copies, and
 * copies staged through host memory. */
static bool rate_applies(const struct gcb_model_case *c) {
  return strcmp(gcb_model_param_str(c, "direction"), "latency") != 0 &&
         strcmp(gcb_model_param_str(c, "mode"), "staged") != 0;
}

static void make_pair(const struct gcb_model_case *c,
                      const struct gcb__p2p_pair *m, size_t order,
                      struct pair *p) {
  static const char *const skip[] = {"src",        "dst",  "src_bus_id",
                                     "dst_bus_id", "path", NULL};
  *p = (struct pair){.m = *m, .c = c, .expected = NAN, .order = order};
  if (rate_applies(c))
    p->expected =
        gcb_model_pair_gbps(m->at, m->src, m->dst) * (bidir(c) ? 2 : 1);
  p->cls = gcb_model_pair_class(m->at, m->src, m->dst);
  if (p->cls[0] == '\0')
    p->cls = gcb_model_param_str(c, "path");
  char key[256];
  gcb_model_case_key_except(c, skip, key, sizeof key);
  snprintf(p->group, sizeof p->group, "%lld %s %s", m->node, p->cls, key);
}

static enum gcb_status report(const struct gcb__rule_ctx *cx,
                              const struct pair *p, double expected, bool fail,
                              bool peers) {
  const char *against = peers ? "the median of the node's pairs of its class"
                              : "what the topology expects for the pair";
  struct gcb_finding *f =
      gcb__rule_push_case(cx, fail ? GCB_SEV_FAIL : GCB_SEV_WARN, p->c, -1);
  if (f == NULL)
    return GCB_ENOMEM;
  char a[32], b[32], xs[32], es[32];
  const struct gcb_model_node *node = gcb_model_node(cx->doc->model, p->m.node);
  f->where.rank = p->m.rank;
  f->where.node = p->m.node;
  gcb_analyze_copy(f->where.hostname, sizeof f->where.hostname,
                   node != NULL ? node->hostname : "");
  f->where.gpu = p->m.src;
  gcb__p2p_pair_busid(&p->m, p->c, false, f->where.bus_id,
                      sizeof f->where.bus_id);
  gcb__p2p_pair_end(&p->m, p->c, false, a, sizeof a);
  gcb__p2p_pair_end(&p->m, p->c, true, b, sizeof b);
  snprintf(f->where.link, sizeof f->where.link, "%s%s%s", a,
           gcb__case_p2p_arrow(p->c), b);
  gcb_finding_figures(f, p->m.value, expected, p->c->unit);
  f->cost = 1 - p->m.value / expected;
  gcb_analyze_copy(f->path_class, sizeof f->path_class, p->cls);
  f->against_peers = peers;
  gcb_view_fmt(p->m.value, xs, sizeof xs);
  gcb_view_fmt(expected, es, sizeof es);
  gcb_finding_explain(
      f, "GPU%lld -> GPU%lld (%s) reaches %s GB/s, %.0f%% of %s GB/s, %s",
      p->m.src, p->m.dst, p->cls[0] ? p->cls : "path unknown", xs,
      p->m.value / expected * 100, es, against);
  gcb__rule_suggest(f);
  return GCB_OK;
}

static enum gcb_status below_model(const struct gcb__rule_ctx *cx,
                                   struct pair *p, size_t n) {
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < n && st == GCB_OK; i++) {
    if (isnan(p[i].expected) ||
        p[i].m.value >= p[i].expected * cx->t->link_pct / 100)
      continue;
    p[i].flagged = true;
    st = report(cx, &p[i], p[i].expected,
                p[i].m.value < p[i].expected * cx->t->link_fail_pct / 100,
                false);
  }
  return st;
}

static int cmp_group(const void *a, const void *b) {
  const struct pair *x = a, *y = b;
  int c = strcmp(x->group, y->group);
  return c != 0 ? c : (x->order > y->order) - (x->order < y->order);
}

/* The outlier rule over pairs [from, to) of one group. */
static enum gcb_status group_outliers(const struct gcb__rule_ctx *cx,
                                      struct pair *p, size_t from, size_t to,
                                      double *x, bool *flags) {
  double median;
  for (size_t i = from; i < to; i++)
    x[i - from] = p[i].m.value;
  gcb_analyze_slow(x, to - from, cx->t, flags, &median);
  enum gcb_status st = GCB_OK;
  for (size_t i = from; i < to && st == GCB_OK; i++)
    if (flags[i - from] && !p[i].flagged)
      st = report(cx, &p[i], median,
                  (1 - p[i].m.value / median) * 100 > cx->t->slow_rank_fail_pct,
                  true);
  return st;
}

static enum gcb_status below_class(const struct gcb__rule_ctx *cx,
                                   struct pair *p, size_t n) {
  double *x = malloc(n * sizeof *x + 1);
  bool *flags = malloc(n * sizeof *flags + 1);
  enum gcb_status st = GCB_OK;
  if (x == NULL || flags == NULL)
    st = gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
  qsort(p, n, sizeof *p, cmp_group);
  for (size_t i = 0, j; i < n && st == GCB_OK; i = j) {
    for (j = i; j < n && strcmp(p[j].group, p[i].group) == 0; j++)
      ;
    st = group_outliers(cx, p, i, j, x, flags);
  }
  free(x);
  free(flags);
  return st;
}

/* Every node's measurement of every p2p case; NULL (with *n 0) when there
 * is none, or on ENOMEM (*oom). */
static struct pair *collect(const struct gcb_model *model, size_t *n,
                            bool *oom) {
  struct pair *p = NULL;
  size_t cap = 0, nseen;
  bool *seen = gcb__p2p_walk_scratch(model, &nseen);
  *n = 0;
  *oom = seen == NULL;
  for (size_t i = 0; i < model->ncases; i++) {
    const struct gcb_model_case *c = &model->cases[i];
    struct gcb__p2p_walk it;
    struct gcb__p2p_pair m;
    if (*oom || !gcb__p2p_walk_begin(&it, model, c, seen, nseen))
      continue;
    while (!*oom && gcb__p2p_walk_next(&it, &m)) {
      *oom = !gcb_grow((void **)&p, &cap, *n, sizeof *p);
      if (!*oom)
        make_pair(c, &m, i, &p[(*n)++]);
    }
  }
  free(seen);
  return p;
}

enum gcb_status gcb__rule_p2p_bandwidth(const struct gcb__rule_ctx *cx) {
  size_t n;
  bool oom;
  struct pair *p = collect(cx->doc->model, &n, &oom);
  enum gcb_status st =
      oom ? gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory")
          : below_model(cx, p, n);
  if (st == GCB_OK && n > 0)
    st = below_class(cx, p, n);
  free(p);
  return st;
}
