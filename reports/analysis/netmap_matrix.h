/*
 * The network map of a results document (gcbench netmap, docs/MULTINODE.md)
 * as matrices: for one schedule ("alone" or "together"), the bandwidth
 * (GB/s) and one-way latency (seconds) of every ordered pair of ranks,
 * each rank's node and host, and each node's aggregates. For "nodepairs"
 * (SuperBench's node pairs) the rows are nodes, not ranks: the node x node
 * matrix of each pair's sendrecv busbw, the same both ways, no latency. The
 * finding rule (rules_netmap.c), the report's table (render_tables.c) and
 * its heatmap (render_svg_netmap.c) read it alike.
 */
#ifndef GCB_NETMAP_MATRIX_H
#define GCB_NETMAP_MATRIX_H

#include <stdbool.h>

#include "reports/document/model.h"

struct gcb_netmap {
  int n;             /* ranks */
  double *bw, *lat;  /* n x n, [src * n + dst]; NAN where not measured */
  long long *node;   /* per rank */
  const char **host; /* per rank, borrowed from the document */
  int nodes;         /* 1 + the largest node index */
  bool by_node;      /* rows are nodes (schedule "nodepairs") */
  int *rank;         /* per row: the world rank it stands for (a node:
                        its first rank) */
  int unbuilt;       /* a map the document has but that was not built:
                        its rows, more than GCB_NETMAP_MAX_ROWS, or memory
                        ran out; 0 */
};

/* The most rows a map is built with: its matrices take 16 bytes per pair
 * of rows, and its node aggregates nodes x rows^2 steps. */
#define GCB_NETMAP_MAX_ROWS 4096

/* The map of `schedule` in the document's model doc: false (and *m
 * zeroed but for m->unbuilt) when the document has no netmap case of that
 * schedule, fewer than two rows, or a map that is not built (unbuilt).
 * Host names are borrowed from doc's document. */
bool gcb_netmap_read_model(const struct gcb_model *doc, const char *schedule,
                           struct gcb_netmap *m);

/* The row that world rank `rank` stands for (by_node: the row of the
 * node whose first rank it is), or -1. */
int gcb_netmap_row(const struct gcb_netmap *m, long long rank);

/* Frees what gcb_netmap_read_model allocated; a zeroed map is a no-op. */
void gcb_netmap_free(struct gcb_netmap *m);

/* Per node: median bandwidth of the pairs with an end on it and another
 * on a different node (NAN: none), and the same over every other
 * inter-node pair (the reference it is held against). */
struct gcb_netmap_node {
  double bw_median, others_median, lat_median;
  int pairs, slow; /* inter-node pairs with an end here, and how many of
                      them are below `share` of others_median */
};

/* Fills out[0..m->nodes) (share in (0, 1]); false when memory ran out
 * (every aggregate NAN). */
bool gcb_netmap_nodes(const struct gcb_netmap *m, double share,
                      struct gcb_netmap_node *out);

/* Median of the n values in v that are not NAN (v is reordered); NAN for
 * none. */
double gcb_netmap_median(double *v, int n);

#endif
