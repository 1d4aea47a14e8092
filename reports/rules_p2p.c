/*
 * `p2p-bandwidth`: GPU pairs whose peer-to-peer bandwidth is low, in two
 * ways: below the link_pct share of what the topology expects for the
 * pair (paths.expected_gbps: NVLink count x rate, or the PCIe route's
 * slowest link), and, whatever the model says, a robust low outlier among
 * the pairs of the same path class on the node (one NVLink pair at half
 * the rate of its 27 siblings). A pair is reported once.
 *
 * A p2p case is one pair: params src and dst (GPU indices on the node) or
 * src_bus_id and dst_bus_id (joined to the topology by bus id, which wins),
 * optionally node (else the node of the rank that measured it) and path
 * (the class, when the document has no topology); the figure is the
 * case's median. Bidirectional cases (mode or direction "bidir") count
 * both directions, so they are held against twice the expectation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_rules.h"
#include "topo_view.h"

struct pair {
  struct gcb__p2p ends;
  const json_t *c, *topo;
  long long node, src, dst, rank;
  double x, expected;
  const char *cls;
  char group[320];
  size_t order; /* position among the document's cases, for stable ties */
  bool flagged;
};

static bool bidir(const json_t *c) {
  return strcmp(gcb_view_param_str(c, "mode"), "bidir") == 0 ||
         strcmp(gcb_view_param_str(c, "direction"), "bidir") == 0;
}

/* A pair end: by bus id when the case names one and the topology has it,
 * else the GPU index. */
static long long end_gpu(const json_t *c, const json_t *topo,
                         const char *bus_key, const char *index_key) {
  long long g = gcb_topo_view_gpu_by_busid(topo, gcb_view_param_str(c, bus_key));
  double i = gcb_view_param_num(c, index_key);
  return g >= 0 ? g : isnan(i) || i < 0 ? -1 : (long long)i;
}

static long long pair_node(const json_t *root, const json_t *c,
                           long long rank) {
  double n = gcb_view_param_num(c, "node");
  if (!isnan(n))
    return (long long)n;
  if (rank >= 0)
    return gcb_view_int(gcb_view_rank(root, rank), "node", -1);
  return json_array_size(json_object_get(root, "nodes")) == 1 ? 0 : -1;
}

bool gcb__p2p_ends(const json_t *root, const json_t *c, struct gcb__p2p *out) {
  const json_t *pr = json_object_get(c, "per_rank");
  *out = (struct gcb__p2p){.rank = -1};
  if (strcmp(gcb_view_str(c, "bench"), "p2p") != 0)
    return false;
  if (json_array_size(pr) > 0)
    out->rank = gcb_view_int(json_array_get(pr, 0), "rank", -1);
  out->node = pair_node(root, c, out->rank);
  out->topo = gcb_topo_view(root, out->node);
  out->src = end_gpu(c, out->topo, "src_bus_id", "src");
  out->dst = end_gpu(c, out->topo, "dst_bus_id", "dst");
  return out->src >= 0 && out->dst >= 0 && out->src != out->dst;
}

void gcb__p2p_busid(const struct gcb__p2p *e, const json_t *c, bool dst,
                    char *buf, size_t size) {
  long long gpu = dst ? e->dst : e->src;
  const char *bus = gcb_view_str(gcb_topo_view_gpu(e->topo, gpu), "busid");
  if (bus[0] != '\0')
    gcb_view_copy(buf, size, bus);
  else if (!gcb_busid_canon(
               gcb_view_param_str(c, dst ? "dst_bus_id" : "src_bus_id"), buf,
               size))
    snprintf(buf, size, "GPU%lld", gpu);
}

static bool make_pair(const json_t *root, const json_t *c, struct pair *p) {
  static const char *const skip[] = {"src",  "dst",  "src_bus_id",
                                     "dst_bus_id", "path", NULL};
  struct gcb__p2p e;
  if (!gcb__p2p_ends(root, c, &e))
    return false;
  *p = (struct pair){.c = c, .ends = e, .rank = e.rank, .node = e.node,
                     .topo = e.topo, .src = e.src, .dst = e.dst,
                     .expected = NAN};
  p->x = gcb_view_num(gcb_view_obj(c, "summary"), "median");
  if (!(p->x >= 0))
    return false;
  p->expected = gcb_topo_view_pair_gbps(p->topo, p->src, p->dst) *
                (bidir(c) ? 2 : 1);
  p->cls = gcb_topo_view_pair_class(p->topo, p->src, p->dst);
  if (p->cls[0] == '\0')
    p->cls = gcb_view_param_str(c, "path");
  char key[256];
  gcb_view_case_key_except(c, skip, key, sizeof key);
  snprintf(p->group, sizeof p->group, "%lld %s %s", p->node, p->cls, key);
  return true;
}

static enum gcb_status report(const struct gcb__rule_ctx *cx,
                              const struct pair *p, double expected,
                              bool fail, const char *against) {
  struct gcb_finding *f = gcb__rule_push(cx, fail ? GCB_SEV_FAIL : GCB_SEV_WARN);
  if (f == NULL)
    return GCB_ENOMEM;
  char a[32], b[32], xs[32], es[32];
  gcb__p2p_busid(&p->ends, p->c, false, a, sizeof a);
  gcb__p2p_busid(&p->ends, p->c, true, b, sizeof b);
  f->where.rank = p->rank;
  f->where.node = p->node;
  gcb_view_copy(f->where.hostname, sizeof f->where.hostname,
                gcb_view_str(gcb_view_node(cx->doc->root, p->node), "hostname"));
  f->where.gpu = p->src;
  gcb_view_copy(f->where.bus_id, sizeof f->where.bus_id, a);
  snprintf(f->where.link, sizeof f->where.link, "%s<->%s", a, b);
  gcb_view_case_title(p->c, f->where.subject, sizeof f->where.subject);
  f->measured = p->x;
  f->expected = expected;
  f->cost = 1 - p->x / expected;
  gcb_view_copy(f->unit, sizeof f->unit, gcb_view_str(p->c, "unit"));
  gcb_view_fmt(p->x, xs, sizeof xs);
  gcb_view_fmt(expected, es, sizeof es);
  gcb_finding_explain(f, "GPU%lld -> GPU%lld (%s) reaches %s GB/s, %.0f%% of %s GB/s, %s",
                      p->src, p->dst, p->cls[0] ? p->cls : "path unknown", xs,
                      p->x / expected * 100, es, against);
  gcb_finding_suggest(f, "check the pair's links (nvidia-smi nvlink -s, "
                         "nvidia-smi topo -m) and whether peer access is "
                         "enabled or traffic is routed through the host");
  return GCB_OK;
}

static enum gcb_status below_model(const struct gcb__rule_ctx *cx,
                                   struct pair *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (isnan(p[i].expected) ||
        p[i].x >= p[i].expected * cx->t->link_pct / 100)
      continue;
    p[i].flagged = true;
    enum gcb_status st =
        report(cx, &p[i], p[i].expected,
               p[i].x < p[i].expected * cx->t->link_fail_pct / 100,
               "what the topology expects for the pair");
    if (st != GCB_OK)
      return st;
  }
  return GCB_OK;
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
    x[i - from] = p[i].x;
  gcb_analyze_slow(x, to - from, cx->t, flags, &median);
  for (size_t i = from; i < to; i++) {
    if (!flags[i - from] || p[i].flagged)
      continue;
    enum gcb_status st =
        report(cx, &p[i], median,
               (1 - p[i].x / median) * 100 > cx->t->slow_rank_fail_pct,
               "the median of the node's pairs of its class");
    if (st != GCB_OK)
      return st;
  }
  return GCB_OK;
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

enum gcb_status gcb__rule_p2p_bandwidth(const struct gcb__rule_ctx *cx) {
  const json_t *cases = json_object_get(cx->doc->root, "cases"), *c;
  size_t i, n = 0;
  struct pair *p = NULL;
  json_array_foreach(cases, i, c) {
    if (strcmp(gcb_view_str(c, "bench"), "p2p") != 0)
      continue;
    if (p == NULL && (p = malloc(json_array_size(cases) * sizeof *p)) == NULL)
      return gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
    if (make_pair(cx->doc->root, c, &p[n]))
      p[n++].order = i;
  }
  enum gcb_status st = below_model(cx, p, n);
  if (st == GCB_OK && n > 0)
    st = below_class(cx, p, n);
  free(p);
  return st;
}
