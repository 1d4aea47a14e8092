/*
 * The benchmark kinds, one row each (bench_kind.h).
 */
#include "reports/document/bench_kind.h"

#include <string.h>

/* ---- benchmark kinds ----------------------------------------------------- */

/* Row k of the table, its id k. */
#define KIND(k, ...) [GCB_BENCH_##k] = {.id = GCB_BENCH_##k, __VA_ARGS__}

const struct gcb_bench_desc gcb_bench_kinds[GCB_BENCH_COUNT] = {
    KIND(UNKNOWN, .name = "", .unit = "", .family = GCB_FAM_RUN),
    KIND(GEMM, .name = "gemm", .unit = "GFLOP/s", /* TOPS for int8 */
         .per_device = true, .family = GCB_FAM_GEMM,
         .slow_hint = "check the GPU's clocks, throttle reasons, power and "
                      "temperature (nvidia-smi -q -d PERFORMANCE), or other "
                      "load on the node"),
    KIND(MEMBW, .name = "membw", .unit = "GB/s", .per_device = true,
         .family = GCB_FAM_DEVMEM,
         .slow_hint = "check memory clocks, ECC/row-remapping state and NUMA "
                      "placement of the rank, or other load on the node"),
    KIND(PCIE, .name = "pcie", .unit = "GB/s", .family = GCB_FAM_H2D),
    KIND(P2P, .name = "p2p", .unit = "GB/s", .shared_figures = true,
         .family = GCB_FAM_PEERS),
    KIND(COLL, .name = "coll", .unit = "GB/s", .family = GCB_FAM_COLL),
    KIND(PATTERN, .name = "pattern",
         .unit = "GB/s", /* GFLOP/s for compute parts */
         .own_spread = true, .family = GCB_FAM_COLL),
    KIND(LAUNCH, .name = "launch", .unit = "klaunch/s", .family = GCB_FAM_RUN),
    KIND(NETMAP, .name = "netmap", .unit = "GB/s", .shared_figures = true,
         .family = GCB_FAM_RUN),
    /* A sustained GEMM (gcbench burn): its per-rank figure is a median
     * interval, judged by the burn-* kinds over its timeline, not by the
     * slow-rank rule; checked as a GEMM. */
    KIND(BURN, .name = "burn", .unit = "GFLOP/s", .family = GCB_FAM_GEMM),
    KIND(NULL, .name = "null", .unit = "Mop/s", .family = GCB_FAM_RUN),
    KIND(IMPORTED, .name = "imported", .unit = "", .family = GCB_FAM_RUN),
};

enum gcb_bench_kind gcb_bench_kind_find(const char *name) {
  for (int k = GCB_BENCH_UNKNOWN + 1; name != NULL && k < GCB_BENCH_COUNT; k++)
    if (strcmp(gcb_bench_kinds[k].name, name) == 0)
      return (enum gcb_bench_kind)k;
  return GCB_BENCH_UNKNOWN;
}

const struct gcb_bench_desc *gcb_bench_kind_desc(enum gcb_bench_kind k) {
  return &gcb_bench_kinds[(unsigned)k < GCB_BENCH_COUNT ? k
                                                        : GCB_BENCH_UNKNOWN];
}
