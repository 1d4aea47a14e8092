/*
 * Read-only accessors over the per-node topology a results document may
 * carry (nodes[].topology, written by reports/document/section_topology.c;
 * the shape is in docs/TOPOLOGY.md): GPUs by PCI bus id, a GPU's expected
 * host link and the path class of a GPU pair, for the typed model's
 * builder (model.c), which the analysis, the tables and the plots read
 * instead, and for tests/reports/test_model.c, which checks the model's
 * lookups against these readings of the tree.
 *
 * None of these functions fails: a document without topology, or with a
 * field of another type, yields -1, "" or NAN as documented.
 */
#ifndef GCB_TOPO_VIEW_H
#define GCB_TOPO_VIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/busid.h" /* gcb_busid_canon, for the callers */

/* Whether text is a bus id (any form) naming the PCI function want (the
 * model's lookups by bus id too). */
bool gcb__topo_view_same_busid(const struct gcb_busid *want, const char *text);

/* Index of the GPU with that bus id (any form common/busid.h parses), or
 * -1. */
long long gcb_topo_view_gpu_by_busid(const json_t *topo, const char *busid);

/* A GPU's expected host link (H2D/D2H) in GB/s per direction, or NAN. */
double gcb_topo_view_host_gbps(const json_t *gpu);

/* The path class between GPUs a and b ("NV18", "PIX", "SYS"), or "". */
const char *gcb_topo_view_pair_class(const json_t *topo, long long a,
                                     long long b);

#endif
