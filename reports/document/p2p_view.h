/*
 * Internal: the measurements of a p2p case. A p2p case is one GPU pair
 * (params src and dst, GPU indices on the node in PCI bus id order, and
 * src_bus_id and dst_bus_id) measured on every node at once; its per_rank
 * entries repeat each node's figure for every rank of the node (gcbench's
 * p2p benchmark, docs/GPU.md), or hold the one measuring rank (files
 * converted from nvbandwidth). So a case yields one measurement per node:
 * the figure of the node's first entry. The rules, the heatmaps and the
 * OpenMetrics file all read pairs this way.
 */
#ifndef GCB_P2P_VIEW_H
#define GCB_P2P_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "reports/document/model.h"

/* ---- over the typed model ----------------------------------------------- */

/* One node's measurement of a pair. */
struct gcb__p2p_pair {
  long long node, rank; /* the node, and the rank whose entry it is */
  long long src, dst;   /* topology GPU indices (by bus id where known) */
  double value;         /* the entry's figure (its median) */
  const struct gcb_model_node *at; /* the node when it has a topology */
};

/* Walks a case's measurements; seen is scratch for at least nseen node
 * indices (the document's node count + 1); NULL treats every entry as
 * node 0's first. */
struct gcb__p2p_walk {
  const struct gcb_model *m;
  const struct gcb_model_case *c;
  size_t next;
  bool *seen;
  size_t nseen;
};

/* Starts a walk; false when c is not a p2p case. */
bool gcb__p2p_walk_begin(struct gcb__p2p_walk *it, const struct gcb_model *m,
                         const struct gcb_model_case *c, bool *seen,
                         size_t nseen);

/* The next measurement with two distinct known ends and a figure; false
 * at the end. */
bool gcb__p2p_walk_next(struct gcb__p2p_walk *it, struct gcb__p2p_pair *out);

/* Scratch for a document's walks (calloc'ed, nodes + 1); NULL on ENOMEM. */
bool *gcb__p2p_walk_scratch(const struct gcb_model *m, size_t *n);

/* The bus id of one end ("0000:1b:00.0"): the node topology's, else the
 * case's src_bus_id / dst_bus_id; false and "" when neither knows it (an
 * end its source names by index alone). */
bool gcb__p2p_pair_busid(const struct gcb__p2p_pair *p,
                         const struct gcb_model_case *c, bool dst, char *buf,
                         size_t size);

/* One end as a pair's link names it ("a->b", "a<->b"): its bus id, else
 * "GPU<n>", an index with no space, which the link's readers split on. */
void gcb__p2p_pair_end(const struct gcb__p2p_pair *p,
                       const struct gcb_model_case *c, bool dst, char *buf,
                       size_t size);

#endif
