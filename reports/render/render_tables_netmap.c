/*
 * The network map's tables (netmap cases; docs/MULTINODE.md): per document
 * and schedule, the rank x rank bandwidth matrix and the latency matrix,
 * rows the sender and columns the receiver, each named by rank and host;
 * then each node's aggregates over its pairs with other nodes against the
 * pairs without it, which is how a slow host link stands out from one slow
 * path. Matrices stop at MAX_MATRIX ranks (the per-node table does not).
 * The node pairs (SuperBench's pattern) are one node x node matrix of
 * sendrecv busbw, the same both ways, and their per-node table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "reports/analysis/netmap_matrix.h"
#include "reports/render/render_tables.h"

#define MAX_MATRIX 64

static const char *const schedules[] = {"alone", "together", "nodepairs"};

/* One matrix: `lat` picks latency (seconds) over bandwidth (GB/s). */
static void matrix(struct gcb__tb *b, size_t d, const char *schedule,
                   const struct gcb_netmap *m, bool lat) {
  int n = m->n;
  char id[48], title[96], (*names)[48] = calloc((size_t)n + 1, sizeof *names);
  const char **h = calloc((size_t)n + 2, sizeof *h);
  if (names == NULL || h == NULL) {
    b->oom = true;
    free(names), free(h);
    return;
  }
  h[0] = lat          ? "latency, row to column"
         : m->by_node ? "busbw GB/s, node pair"
                      : "GB/s, row to column";
  for (int r = 0; r < n; r++) {
    if (m->by_node)
      snprintf(names[r], sizeof names[r], "%.40s", m->host[r]);
    else
      snprintf(names[r], sizeof names[r], "%d %.40s", r, m->host[r]);
    h[r + 1] = names[r];
  }
  snprintf(id, sizeof id, "netmap-%s-%s-%zu", lat ? "lat" : "bw", schedule, d);
  snprintf(title, sizeof title, "Network map: %s, %s (run %zu)",
           lat ? "latency" : "bandwidth", schedule, d + 1);
  struct gcb_rtable *t = gcb__table_new_named(
      b, id, title,
      lat ? "one-way latency (half a ping-pong) from the row's rank to the "
            "column's"
      : m->by_node
          ? "every node pair once (SuperBench's node pairs): sendrecv busbw "
            "between the row's node and the column's, local rank i to local "
            "rank i"
          : "bandwidth from the row's rank to the column's, one way",
      h);
  for (int s = 0; t != NULL && s < n; s++) {
    char **row = gcb__table_row(b, t, NULL);
    gcb__cell(b, row, 0, "%s", names[s]);
    for (int x = 0; x < n; x++) {
      double v = (lat ? m->lat : m->bw)[s * n + x];
      if (lat)
        gcb__cell_time(b, row, (size_t)x + 1, v);
      else
        gcb__cell_num(b, row, (size_t)x + 1, v, "");
      if (s == x)
        gcb__cell(b, row, (size_t)x + 1, "-");
    }
  }
  free(names);
  free(h);
}

static void nodes_table(struct gcb__tb *b, size_t d, const char *schedule,
                        const struct gcb_netmap *m) {
  static const char *const h[] = {
      "node",        "host",         "ranks", "pairs",          "slow",
      "median GB/s", "others' GB/s", "share", "median latency", NULL};
  struct gcb_netmap_node *agg = calloc((size_t)m->nodes + 1, sizeof *agg);
  if (agg == NULL) {
    b->oom = true;
    return;
  }
  double share = b->rep->thresholds ? b->rep->thresholds->link_pct / 100 : 0.75;
  gcb_netmap_nodes(m, share, agg);
  char id[48], title[96];
  snprintf(id, sizeof id, "netmap-nodes-%s-%zu", schedule, d);
  snprintf(title, sizeof title, "Network map per node: %s (run %zu)", schedule,
           d + 1);
  struct gcb_rtable *t = gcb__table_new_named(
      b, id, title,
      "each node's pairs with other nodes against the inter-node pairs "
      "without it; every pair slow is its own link",
      h);
  for (int i = 0; t != NULL && i < m->nodes; i++) {
    const struct gcb_netmap_node *a = &agg[i];
    bool all = a->pairs > 0 && a->slow == a->pairs && m->nodes >= 3;
    char **row = gcb__table_row(b, t, all ? "fail" : a->slow ? "warn" : NULL);
    const char *host = "";
    char ranks[96] = "";
    size_t len = 0;
    for (int r = 0; r < m->n && len + 12 < sizeof ranks; r++)
      if (m->node[r] == i) {
        host = m->host[r];
        len += (size_t)snprintf(ranks + len, sizeof ranks - len, "%s%d",
                                len ? "," : "", m->rank ? m->rank[r] : r);
      }
    gcb__cell_id(b, row, 0, i);
    gcb__cell(b, row, 1, "%s", host);
    gcb__cell(b, row, 2, "%s", ranks);
    gcb__cell(b, row, 3, "%d", a->pairs);
    gcb__cell(b, row, 4, "%d", a->slow);
    gcb__cell_num(b, row, 5, a->bw_median, "");
    gcb__cell_num(b, row, 6, a->others_median, "");
    gcb__cell_pct(b, row, 7, a->bw_median / a->others_median, false);
    gcb__cell_time(b, row, 8, a->lat_median);
  }
  free(agg);
}

bool gcb__netmap_home(const struct gcb_netmap *m, size_t doc,
                      const char *schedule, char *id, size_t size) {
  if (m->n > MAX_MATRIX && m->nodes < 2)
    return false;
  snprintf(id, size, "netmap-%s-%s-%zu", m->n <= MAX_MATRIX ? "bw" : "nodes",
           schedule, doc);
  return true;
}

void gcb__netmap_tables(struct gcb__tb *b) {
  for (size_t d = 0; d < b->rep->ndocs; d++)
    for (size_t s = 0; s < sizeof schedules / sizeof *schedules; s++) {
      struct gcb_netmap m;
      if (!gcb_netmap_read(b->rep->docs[d].root, schedules[s], &m))
        continue;
      if (m.n <= MAX_MATRIX) {
        matrix(b, d, schedules[s], &m, false);
        if (!m.by_node) /* node pairs: bandwidth only */
          matrix(b, d, schedules[s], &m, true);
      }
      if (m.nodes >= 2)
        nodes_table(b, d, schedules[s], &m);
      gcb_netmap_free(&m);
    }
}
