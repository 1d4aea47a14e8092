/*
 * Read-only accessors over the per-node topology a results document may
 * carry (nodes[].topology, written by reports/document/section_topology.c;
 * the shape is in docs/TOPOLOGY.md): a bus id's match and a GPU's expected
 * host link, for the typed model's builder (model.c), which the analysis,
 * the tables and the plots read instead.
 *
 * Neither function fails: a field of another type yields false or NAN.
 */
#ifndef GCB_TOPO_VIEW_H
#define GCB_TOPO_VIEW_H

#include <jansson.h>
#include <stdbool.h>

#include "common/busid.h" /* gcb_busid_canon, for the callers */

/* Whether text is a bus id (any form) naming the PCI function want (the
 * model's lookups by bus id too). */
bool gcb__topo_view_same_busid(const struct gcb_busid *want, const char *text);

/* A GPU's expected host link (H2D/D2H) in GB/s per direction, or NAN. */
double gcb_topo_view_host_gbps(const json_t *gpu);

#endif
