/*
 * What a case's benchmark is: one row per benchmark kind (name, usual
 * unit, whether its per-rank figure measures the rank's own device, its
 * check family, what to check when one rank of it is slow), and the check
 * families themselves. The reports name a case's benchmark by its kind
 * (c->kind == GCB_BENCH_COLL, model.h), never by comparing the
 * string; the name is compared here, where the document's text becomes a
 * kind. A new benchmark kind is one enum value and one row.
 */
#ifndef GCB_BENCH_KIND_H
#define GCB_BENCH_KIND_H

#include <stdbool.h>

#include "reports/document/view.h"

/* ---- check families ------------------------------------------------------ */

/* The check families of the component matrix, in its column order. */
enum gcb_family {
  GCB_FAM_GEMM,
  GCB_FAM_DEVMEM,
  GCB_FAM_H2D,
  GCB_FAM_D2H,
  GCB_FAM_PEERS,
  GCB_FAM_HEALTH,
  GCB_FAM_PLACEMENT,
  GCB_FAM_COLL,
  GCB_FAM_RUN, /* not a matrix column: the run's own status, criteria */
  GCB_FAM_COUNT
};

/* ---- benchmark kinds ----------------------------------------------------- */

enum gcb_bench_kind {
  GCB_BENCH_UNKNOWN, /* a name no row has: another writer's, a newer one */
  GCB_BENCH_GEMM,
  GCB_BENCH_MEMBW,
  GCB_BENCH_PCIE,
  GCB_BENCH_P2P,
  GCB_BENCH_COLL,
  GCB_BENCH_PATTERN,
  GCB_BENCH_LAUNCH,
  GCB_BENCH_NETMAP,
  GCB_BENCH_BURN,
  GCB_BENCH_NULL,
  GCB_BENCH_IMPORTED, /* another tool's figure the converter could not map */
  GCB_BENCH_COUNT
};

struct gcb_bench_desc {
  enum gcb_bench_kind id;
  const char *name;       /* the case's "bench" ("gemm"); "" for UNKNOWN */
  const char *unit;       /* its usual figure's unit (the case's own counts) */
  bool per_device;        /* the per-rank figure measures the rank's own device
                             (or CPU socket): per-GPU tables and plots, and a low
                             one names a slow GPU */
  bool shared_figures;    /* the per-rank entries repeat a figure of a node or
                             a rank pair (p2p: the measuring rank's on every
                             rank of its node; netmap: one per pair), not the
                             ranks' own: their spread is no rank waiting */
  bool own_spread;        /* the spread among its ranks is judged by rules
                             of its own (pattern: the straggler within the
                             step, the routing skew), not as ranks waiting:
                             in a part with communication the rank that
                             waits longest is not the slow one */
  enum gcb_family family; /* pcie: H2D (D2H by its direction param) */
  const char *slow_hint;  /* per_device: what to check when one rank's
                             figure is low; NULL otherwise */
};

/* Indexed by enum gcb_bench_kind. */
extern const struct gcb_bench_desc gcb_bench_kinds[GCB_BENCH_COUNT];

/* The kind named `name` (a case's "bench"); GCB_BENCH_UNKNOWN for none. */
enum gcb_bench_kind gcb_bench_kind_find(const char *name);

/* Its row (the UNKNOWN row for an id out of range). */
const struct gcb_bench_desc *gcb_bench_kind_desc(enum gcb_bench_kind k);

#endif
