/*
 * `network-link` and `network-path`: the network map (netmap cases) told
 * apart the way a person reads mpiGraph's picture. A host whose every pair
 * with other hosts is slow, in both directions, while the pairs without it
 * are not, has a slow link of its own (its NIC, cable, switch port or a
 * rate limit on it): one `network-link` finding for the host, not one per
 * pair. A pair that is slow while its ends are fine with everyone else is
 * a slow path between them (a route, a switch hop, a bad cable in a
 * trunk): one `network-path` finding per pair and direction.
 *
 * Judged on the "alone" schedule (each pair with the network to itself),
 * else "together". Shares are the link thresholds: below link_pct of the
 * reference is slow (warn), below link_fail_pct fails. A host is judged
 * against the median of the inter-node pairs without it, so at least three
 * nodes are needed; a pair against the median of its class (pairs within
 * one node, or between nodes whose links are fine), which needs
 * outlier_min_ranks pairs. A pair fails only when the other schedule, if
 * measured, finds it slow too: one noisy sample is a warning.
 *
 * The node pairs (schedule "nodepairs", SuperBench's pattern) are judged
 * apart, on their node x node matrix, by the same two rules: a node whose
 * every pair is slow has a slow link of its own; one slow pair of nodes
 * whose other pairs are fine is the link between them (a NIC, cable or
 * switch port on their path), one finding naming both hosts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"
#include "reports/analysis/netmap_matrix.h"
#include "reports/document/view.h"

/* The two schedules' maps, the host verdicts and the thresholds. */
struct netmap_judge {
  const struct gcb_model *doc;  /* the document's model */
  struct gcb_netmap map, other; /* other: the second schedule, or empty */
  const char *schedule;
  struct gcb_netmap_node *nodes;
  bool *bad_link; /* per node */
  double warn, fail;
};

static void judge_free(struct netmap_judge *j) {
  gcb_netmap_free(&j->map);
  gcb_netmap_free(&j->other);
  free(j->nodes);
  free(j->bad_link);
}

/* Opens the map asked for: the ranks' ("alone", else "together"), or the
 * node pairs'. j->map.n is 0 when the document has none (nothing to
 * judge) or one too large to build (j->map.unbuilt); GCB_ENOMEM when
 * memory ran out for a map (the second schedule's would otherwise be
 * judged as not run) or the verdicts. */
static enum gcb_status judge_open(const struct gcb__rule_ctx *cx,
                                  const struct gcb_model *doc, bool node_pairs,
                                  struct netmap_judge *j) {
  *j = (struct netmap_judge){.doc = doc,
                             .schedule = node_pairs ? "nodepairs" : "alone",
                             .warn = cx->t->link_pct / 100.0,
                             .fail = cx->t->link_fail_pct / 100.0};
  bool built = gcb_netmap_read_model(doc, j->schedule, &j->map);
  if (!built && !node_pairs && j->map.unbuilt == 0) {
    j->schedule = "together";
    built = gcb_netmap_read_model(doc, "together", &j->map);
  } else if (built && !node_pairs) {
    gcb_netmap_read_model(doc, "together", &j->other);
  }
  /* a map of no more rows than a matrix is built for (the second has the
   * first's rows) not built: memory ran out */
  bool oom = (j->map.unbuilt > 0 && j->map.unbuilt <= GCB_NETMAP_MAX_ROWS) ||
             j->other.unbuilt > 0;
  if (!built && !oom)
    return GCB_OK;
  if (!oom) {
    j->nodes = calloc((size_t)j->map.nodes + 1, sizeof *j->nodes);
    j->bad_link = calloc((size_t)j->map.nodes + 1, sizeof *j->bad_link);
  }
  if (j->nodes == NULL || j->bad_link == NULL ||
      !gcb_netmap_nodes(&j->map, j->warn, j->nodes)) {
    judge_free(j);
    return gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
  }
  for (int i = 0; j->map.nodes >= 3 && i < j->map.nodes; i++) {
    const struct gcb_netmap_node *x = &j->nodes[i];
    j->bad_link[i] = x->pairs > 0 && x->slow == x->pairs &&
                     isfinite(x->others_median) && x->others_median > 0;
  }
  return GCB_OK;
}

/* The node of rank r of the document. */
static long long rank_node(const struct netmap_judge *j, int r) {
  struct gcb_place p = {.node = -1};
  if (!j->map.by_node)
    return j->map.node[r];
  gcb_model_place(j->doc, r, &p); /* rows are nodes: the document's ranks */
  return p.node;
}

/* The node's ranks, comma-separated, and its first rank; those that do
 * not fit in size are counted at the end ("80,81,... (+30 more)"). */
static long long node_ranks(const struct netmap_judge *j, int node, char *buf,
                            size_t size) {
  int n = j->map.by_node ? (int)j->doc->nranks : j->map.n;
  long long first = -1;
  size_t total = 0, shown = 0, len = 0;
  for (int r = 0; r < n; r++)
    if (rank_node(j, r) == node && total++ == 0)
      first = r;
  buf[0] = '\0';
  for (int r = 0; r < n && shown < total; r++) {
    if (rank_node(j, r) != node)
      continue;
    /* this rank, and room left to count the rest after it */
    char item[16], more[48] = "";
    snprintf(item, sizeof item, "%s%d", shown ? "," : "", r);
    if (shown + 1 < total)
      snprintf(more, sizeof more, ",... (+%zu more)", total - shown - 1);
    if (len + strlen(item) + strlen(more) >= size) {
      snprintf(buf + len, size - len, "%s... (+%zu more)", shown ? "," : "",
               total - shown);
      break;
    }
    len += (size_t)snprintf(buf + len, size - len, "%s", item);
    shown++;
  }
  return first;
}

static enum gcb_status report_link(const struct gcb__rule_ctx *cx,
                                   const struct netmap_judge *j, int node) {
  const struct gcb_netmap_node *x = &j->nodes[node];
  bool fail = x->bw_median < j->fail * x->others_median;
  struct gcb_finding *f =
      gcb__rule_push(cx, fail ? GCB_SEV_FAIL : GCB_SEV_WARN);
  if (f == NULL)
    return GCB_ENOMEM;
  char ranks[96], got[32], want[32];
  long long first = node_ranks(j, node, ranks, sizeof ranks);
  gcb_finding_at_model_rank(f, cx->index, j->doc, first);
  f->where.rank = -1;
  gcb_view_copy(f->where.ranks, sizeof f->where.ranks, ranks);
  snprintf(f->where.link, sizeof f->where.link, "%s link", f->where.hostname);
  snprintf(f->where.subject, sizeof f->where.subject,
           "netmap: bandwidth %s, pairs with %.100s", j->schedule,
           f->where.hostname);
  const char *what = j->map.by_node ? "node pairs" : "pairs";
  gcb_finding_figures(f, x->bw_median, x->others_median, "GB/s");
  f->cost = 1.0 - x->bw_median / x->others_median;
  gcb_view_fmt(x->bw_median, got, sizeof got);
  gcb_view_fmt(x->others_median, want, sizeof want);
  gcb_finding_explain(
      f,
      "%s's link: all %d %s between it and other hosts are slow, both "
      "ways (median %s GB/s against %s GB/s between the other hosts): its "
      "own link, not a path",
      f->where.hostname, j->map.by_node ? x->pairs / 2 : x->pairs, what, got,
      want);
  gcb_finding_suggest(f,
                      "check %s's NIC, cable and switch port (ip -s link, "
                      "ethtool -S, the port's counters) and any rate limit "
                      "(tc qdisc show)",
                      f->where.hostname);
  return GCB_OK;
}

/* The pair's class: within a node, or between two nodes whose links are
 * fine; -1: neither (an end with a bad link explains it). */
static int pair_class(const struct netmap_judge *j, int s, int d) {
  const struct gcb_netmap *m = &j->map;
  if (m->node[s] == m->node[d])
    return 0;
  if (j->bad_link[m->node[s]] || j->bad_link[m->node[d]])
    return -1;
  return 1;
}

/* Median of the class's pairs in `m` (NAN when fewer than `min`); v is
 * scratch of m->n^2 doubles. */
static double class_median(const struct netmap_judge *j,
                           const struct gcb_netmap *m, int cls, int min,
                           double *v) {
  int n = m->n, k = 0;
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++)
      if (s != d && pair_class(j, s, d) == cls && !isnan(m->bw[s * n + d]))
        v[k++] = m->bw[s * n + d];
  return k >= min ? gcb_netmap_median(v, k) : NAN;
}

/* Where, what and why of a slow pair of nodes (a node map's cell):
 * named by both hosts, at the first rank of each. */
static void explain_node_pair(const struct gcb__rule_ctx *cx,
                              const struct netmap_judge *j,
                              struct gcb_finding *f, int s, int d,
                              const char *got, const char *want) {
  const struct gcb_netmap *m = &j->map;
  gcb_finding_at_model_rank(f, cx->index, j->doc, m->rank[s]);
  snprintf(f->where.ranks, sizeof f->where.ranks, "%d,%d", m->rank[s],
           m->rank[d]);
  snprintf(f->where.link, sizeof f->where.link, "%s <-> %s", m->host[s],
           m->host[d]);
  snprintf(f->where.subject, sizeof f->where.subject,
           "netmap: bandwidth nodepairs %.40s<->%.40s", m->host[s], m->host[d]);
  gcb_finding_explain(f,
                      "link between %s and %s: sendrecv busbw %s GB/s "
                      "against a median of %s GB/s for the other node "
                      "pairs, while both nodes are fine with the others: a "
                      "NIC, cable or switch port on the path between them",
                      m->host[s], m->host[d], got, want);
  gcb_finding_suggest(f,
                      "check the NICs, cables and switch ports between %s "
                      "and %s (ibstat, ethtool -S, the ports' error "
                      "counters); rerun netmap --schedule nodepairs",
                      m->host[s], m->host[d]);
}

static enum gcb_status report_path(const struct gcb__rule_ctx *cx,
                                   const struct netmap_judge *j, int s, int d,
                                   double ref, bool fail) {
  const struct gcb_netmap *m = &j->map;
  double x = m->bw[s * m->n + d];
  struct gcb_finding *f =
      gcb__rule_push(cx, fail ? GCB_SEV_FAIL : GCB_SEV_WARN);
  if (f == NULL)
    return GCB_ENOMEM;
  char got[32], want[32];
  gcb_finding_figures(f, x, ref, "GB/s");
  f->cost = 1.0 - x / ref;
  gcb_view_fmt(x, got, sizeof got);
  gcb_view_fmt(ref, want, sizeof want);
  if (m->by_node) {
    explain_node_pair(cx, j, f, s, d, got, want);
    return GCB_OK;
  }
  gcb_finding_at_model_rank(f, cx->index, j->doc, s);
  snprintf(f->where.ranks, sizeof f->where.ranks, "%d,%d", s < d ? s : d,
           s < d ? d : s);
  snprintf(f->where.link, sizeof f->where.link, "%s -> %s", m->host[s],
           m->host[d]);
  snprintf(f->where.subject, sizeof f->where.subject,
           "netmap: bandwidth %s %d->%d", j->schedule, s, d);
  gcb_finding_explain(f,
                      "path rank %d (%s) -> rank %d (%s): %s GB/s against a "
                      "median of %s GB/s for its peers, while both ends are "
                      "fine with the others: the path between them%s",
                      s, m->host[s], d, m->host[d], got, want,
                      fail ? "" : " (one schedule only: may be noise)");
  gcb_finding_suggest(f,
                      "trace the route between %s and %s (switch hops, "
                      "trunk cables); rerun netmap to confirm",
                      m->host[s], m->host[d]);
  return GCB_OK;
}

/* Is s -> d slow in the other schedule too, against the median of its
 * class there, ref (true when it was not run)? */
static bool slow_in_other(const struct netmap_judge *j, int s, int d,
                          double ref) {
  const struct gcb_netmap *o = &j->other;
  if (o->n != j->map.n)
    return true;
  double x = o->bw[s * o->n + d];
  return isnan(x) || isnan(ref) || x < j->warn * ref;
}

static enum gcb_status judge_paths(const struct gcb__rule_ctx *cx,
                                   const struct netmap_judge *j) {
  const struct gcb_netmap *m = &j->map, *o = &j->other;
  int min = (int)cx->t->outlier_min_ranks;
  double *v = malloc((size_t)m->n * (size_t)m->n * sizeof *v);
  if (v == NULL)
    return gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
  double ref[2] = {class_median(j, m, 0, min, v),
                   class_median(j, m, 1, min, v)};
  double oref[2] = {NAN, NAN};
  for (int cls = 0; o->n == m->n && cls < 2; cls++)
    oref[cls] = class_median(j, o, cls, 1, v);
  free(v);
  enum gcb_status st = GCB_OK;
  for (int s = 0; s < m->n && st == GCB_OK; s++)
    for (int d = 0; d < m->n && st == GCB_OK; d++) {
      /* A node pair is one measurement, in both of its cells. */
      int cls = s == d || (m->by_node && s > d) ? -1 : pair_class(j, s, d);
      double x = cls < 0 ? NAN : m->bw[s * m->n + d];
      if (cls < 0 || isnan(x) || isnan(ref[cls]) || !(x < j->warn * ref[cls]))
        continue;
      bool fail = x < j->fail * ref[cls] && slow_in_other(j, s, d, oref[cls]);
      st = report_path(cx, j, s, d, ref[cls], fail);
    }
  return st;
}

/* One map's findings of cx->kind. */
static enum gcb_status judge(const struct gcb__rule_ctx *cx,
                             struct netmap_judge *j) {
  enum gcb_status st = GCB_OK;
  if (cx->kind->id == GCB_KIND_NETWORK_LINK) {
    for (int i = 0; st == GCB_OK && i < j->map.nodes; i++)
      if (j->bad_link[i])
        st = report_link(cx, j, i);
  } else {
    st = judge_paths(cx, j);
  }
  judge_free(j);
  return st;
}

/* A map the document has but too large to build (netmap_matrix.h): said
 * once, among the paths, so that a map without findings is not read as a
 * sound network. */
static enum gcb_status report_unbuilt(const struct gcb__rule_ctx *cx,
                                      const struct netmap_judge *j) {
  struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_INFO);
  if (f == NULL)
    return GCB_ENOMEM;
  const char *what = strcmp(j->schedule, "nodepairs") == 0 ? "nodes" : "ranks";
  snprintf(f->where.subject, sizeof f->where.subject, "netmap: bandwidth %s",
           j->schedule);
  gcb_finding_explain(f,
                      "the network map (%s) of %d %s was not built, more "
                      "than the %d a matrix is built for: its links and "
                      "paths were not judged",
                      j->schedule, j->map.unbuilt, what, GCB_NETMAP_MAX_ROWS);
  gcb_finding_suggest(f,
                      "judge the network in parts: netmap over at most %d "
                      "%s at a time",
                      GCB_NETMAP_MAX_ROWS, what);
  return GCB_OK;
}

enum gcb_status gcb__rule_netmap(const struct gcb__rule_ctx *cx) {
  struct netmap_judge j;
  const struct gcb_model *doc = cx->doc->model;
  enum gcb_status st = GCB_OK;
  for (int pairs = 0; pairs < 2 && st == GCB_OK; pairs++) {
    st = judge_open(cx, doc, pairs == 1, &j);
    if (st == GCB_OK && j.map.n > 0)
      st = judge(cx, &j);
    else if (st == GCB_OK && j.map.unbuilt > 0 &&
             cx->kind->id == GCB_KIND_NETWORK_PATH)
      st = report_unbuilt(cx, &j);
  }
  return st;
}
