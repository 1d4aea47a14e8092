/*
 * Read-only accessors over the per-node topology a results document may
 * carry (nodes[].topology, written by reports/document/section_topology.c; the shape is in
 * docs/TOPOLOGY.md): GPUs by index or PCI bus id, expected bandwidths,
 * path classes, placement problems and suspicious facts. The analysis,
 * the per-GPU table and the plots join ranks and cases to GPUs through
 * these, so they all agree on which GPU a figure belongs to.
 *
 * None of these functions fails: a document without topology, or with a
 * field of another type, yields NULL, -1, "" or NAN as documented.
 */
#ifndef GCB_TOPO_VIEW_H
#define GCB_TOPO_VIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/busid.h" /* gcb_busid_canon, for the callers */

/* The topology object of node `node` of the document, or NULL. */
const json_t *gcb_topo_view(const json_t *root, long long node);

/* The gpus[] entry with that index, or NULL. */
const json_t *gcb_topo_view_gpu(const json_t *topo, long long index);

/* Index of the GPU with that bus id (any form common/busid.h parses), or
 * -1. */
long long gcb_topo_view_gpu_by_busid(const json_t *topo, const char *busid);

/*
 * The topology's GPU index of the GPU a rank uses: found by the rank's
 * device bus id when both have one, else the device index when the
 * topology has such a GPU; -1 without either. *topo receives the rank's
 * node topology (NULL when none).
 */
long long gcb_topo_view_rank_gpu(const json_t *root, long long rank,
                                 const json_t **topo);

/* A GPU's expected host link (H2D/D2H) in GB/s per direction, or NAN. */
double gcb_topo_view_host_gbps(const json_t *gpu);

/* Expected GB/s per direction between GPUs a and b of the node (the
 * paths.expected_gbps matrix), or NAN when unknown. */
double gcb_topo_view_pair_gbps(const json_t *topo, long long a, long long b);

/* The path class between GPUs a and b ("NV18", "PIX", "SYS"), or "". */
const char *gcb_topo_view_pair_class(const json_t *topo, long long a,
                                     long long b);

/* The GPU's own link: the first hop of its PCIe path ("gen5 x16" and its
 * GB/s), and the port above it; NULL when the path is shorter. */
const json_t *gcb_topo_view_hop(const json_t *gpu, size_t i);

/* The GPU health entry (nodes[].gpus[], NVML's view, docs/results-schema.md)
 * of the node's GPU with that bus id, or NULL. */
const json_t *gcb_topo_view_health(const json_t *root, long long node,
                                   const char *busid);

/* The rank on the node using GPU `gpu` (the lowest), or -1. */
long long gcb_topo_view_gpu_rank(const json_t *root, long long node,
                                 long long gpu);

#endif
