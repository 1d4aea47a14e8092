/*
 * The network map as matrices (netmap_matrix.h): netmap cases keyed by
 * params.schedule, .measure, .src and .dst; the figure is the case's
 * median (every rank's entry repeats the pair's), latency its time. Node
 * pairs are keyed by params.src_node and .dst_node.
 */
#include "reports/analysis/netmap_matrix.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/bench_kind.h"
#include "reports/document/stats.h"
#include "reports/document/view.h"

double gcb_netmap_median(double *v, int n) {
  size_t k = 0;
  for (int i = 0; i < n; i++)
    if (!isnan(v[i]))
      v[k++] = v[i];
  return gcb_stats_median(v, k);
}

void gcb_netmap_free(struct gcb_netmap *m) {
  if (m == NULL)
    return;
  free(m->bw);
  free(m->lat);
  free(m->node);
  free(m->host);
  free(m->rank);
  memset(m, 0, sizeof *m);
}

static bool is_ours(const struct gcb_model_case *c, const char *schedule) {
  return c->kind == GCB_BENCH_NETMAP &&
         strcmp(gcb_model_param_str(c, "schedule"), schedule) == 0;
}

/* An n x n map, every pair unmeasured; false (m freed, m->unbuilt = n)
 * past GCB_NETMAP_MAX_ROWS or when memory runs out. */
static bool alloc(struct gcb_netmap *m, size_t n) {
  size_t cells = n * n;
  if (n <= GCB_NETMAP_MAX_ROWS) {
    m->n = (int)n;
    m->bw = malloc(cells * sizeof *m->bw);
    m->lat = malloc(cells * sizeof *m->lat);
    m->node = calloc(n, sizeof *m->node);
    m->host = calloc(n, sizeof *m->host);
    m->rank = calloc(n, sizeof *m->rank);
  }
  if (!m->bw || !m->lat || !m->node || !m->host || !m->rank) {
    gcb_netmap_free(m);
    m->unbuilt = (int)n;
    return false;
  }
  for (size_t i = 0; i < cells; i++)
    m->bw[i] = m->lat[i] = NAN;
  for (int i = 0; i < m->n; i++)
    m->rank[i] = i;
  return true;
}

/* Node index of rank r per the document, and its host. Node indices
 * index arrays here: one outside [0, n) (a document that does not say, or
 * says nonsense) counts as node 0. */
static int node_of(const struct gcb_model *doc, int r, int n,
                   const char **host) {
  struct gcb_place p;
  gcb_model_place(doc, r, &p);
  *host = p.hostname;
  return p.node >= 0 && p.node < n ? (int)p.node : 0;
}

/* The node x node map of the node pairs: rows are nodes, each named by
 * its first rank's host; a pair's busbw in both of its cells. */
static bool read_nodes(const struct gcb_model *doc, struct gcb_netmap *m) {
  int ranks = (int)doc->nranks, nodes = 0;
  const char *host;
  for (int r = 0; r < ranks; r++) {
    int x = node_of(doc, r, ranks, &host);
    nodes = x + 1 > nodes ? x + 1 : nodes;
  }
  if (nodes < 2 || !alloc(m, (size_t)nodes))
    return false;
  m->by_node = true;
  m->nodes = nodes;
  for (int r = ranks - 1; r >= 0; r--) { /* the first rank wins */
    int x = node_of(doc, r, ranks, &host);
    m->node[x] = x, m->host[x] = host, m->rank[x] = r;
  }
  for (size_t i = 0; i < doc->ncases; i++) {
    const struct gcb_model_case *c = &doc->cases[i];
    double a = gcb_model_param_num(c, "src_node"),
           b = gcb_model_param_num(c, "dst_node");
    if (!is_ours(c, "nodepairs") ||
        !(a >= 0 && a < nodes && b >= 0 && b < nodes && a != b))
      continue;
    double v = c->summary.median;
    m->bw[(size_t)a * (size_t)nodes + (size_t)b] = v;
    m->bw[(size_t)b * (size_t)nodes + (size_t)a] = v;
  }
  return true;
}

bool gcb_netmap_read_model(const struct gcb_model *doc, const char *schedule,
                           struct gcb_netmap *m) {
  memset(m, 0, sizeof *m);
  size_t seen = 0;
  for (size_t i = 0; i < doc->ncases; i++)
    seen += is_ours(&doc->cases[i], schedule);
  if (seen == 0 || doc->nranks < 2 || doc->nranks > INT_MAX)
    return false;
  if (strcmp(schedule, "nodepairs") == 0)
    return read_nodes(doc, m);
  if (!alloc(m, doc->nranks))
    return false;
  int n = m->n;
  for (int r = 0; r < n; r++) {
    m->node[r] = node_of(doc, r, n, &m->host[r]);
    if (m->node[r] + 1 > m->nodes)
      m->nodes = (int)m->node[r] + 1;
  }
  for (size_t i = 0; i < doc->ncases; i++) {
    const struct gcb_model_case *c = &doc->cases[i];
    double s = c->src, d = c->dst;
    if (!is_ours(c, schedule) || !(s >= 0 && s < n && d >= 0 && d < n))
      continue;
    size_t cell = (size_t)s * (size_t)n + (size_t)d;
    if (strcmp(gcb_model_param_str(c, "measure"), "latency") == 0)
      m->lat[cell] = c->summary.time_mean;
    else
      m->bw[cell] = c->summary.median;
  }
  return true;
}

int gcb_netmap_row(const struct gcb_netmap *m, long long rank) {
  if (!m->by_node)
    return rank >= 0 && rank < m->n ? (int)rank : -1;
  for (int i = 0; i < m->n; i++)
    if (m->rank[i] == rank)
      return i;
  return -1;
}

static bool touches(const struct gcb_netmap *m, int s, int d, long long node) {
  return m->node[s] == node || m->node[d] == node;
}

/* One node's aggregates; v is scratch of n * n doubles. */
static void one_node(const struct gcb_netmap *m, long long node, double share,
                     double *v, struct gcb_netmap_node *out) {
  int k = 0, n = m->n;
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++)
      if (m->node[s] != m->node[d] && !touches(m, s, d, node))
        v[k++] = m->bw[s * n + d];
  out->others_median = gcb_netmap_median(v, k);
  k = 0;
  out->pairs = out->slow = 0;
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++) {
      double x = m->bw[s * n + d];
      if (m->node[s] == m->node[d] || !touches(m, s, d, node) || isnan(x))
        continue;
      v[k++] = x;
      out->pairs++;
      out->slow += x < share * out->others_median;
    }
  out->bw_median = gcb_netmap_median(v, k);
  k = 0;
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++)
      if (m->node[s] != m->node[d] && touches(m, s, d, node))
        v[k++] = m->lat[s * n + d];
  out->lat_median = gcb_netmap_median(v, k);
}

bool gcb_netmap_nodes(const struct gcb_netmap *m, double share,
                      struct gcb_netmap_node *out) {
  double *v = malloc((size_t)m->n * (size_t)m->n * sizeof *v);
  for (int i = 0; i < m->nodes; i++) {
    out[i] = (struct gcb_netmap_node){NAN, NAN, NAN, 0, 0};
    if (v != NULL)
      one_node(m, i, share, v, &out[i]);
  }
  free(v);
  return v != NULL;
}
