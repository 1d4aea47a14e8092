/*
 * The per-node topology summary of the results document (and of
 * `gcbench topo --format json`), built from a loaded gcb_topo. The shape is
 * documented in docs/TOPOLOGY.md. Lives in bench/ because topo/ must not
 * depend on jansson.
 */
#ifndef GCB_TOPO_JSON_H
#define GCB_TOPO_JSON_H

#include <jansson.h>

#include "topo/topo.h"

/*
 * A new JSON object (the caller owns the reference): GPUs, NICs, NUMA
 * nodes, PCIe switches, the path-class matrices, expected bandwidths, the
 * hypervisor and the suspicious facts. NULL on ENOMEM.
 */
json_t *gcb__topo_json(const struct gcb_topo *t);

/*
 * Binding problems (from gcb_topo_check_ranks) as a new JSON array of
 * {kind, rank, other_rank, gpu, what, fix}, -1 written as null. NULL on
 * ENOMEM.
 */
json_t *gcb__topo_problems_json(const struct gcb_topo_problem *problems, int n);

#endif
