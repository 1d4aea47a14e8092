/*
 * The benchmark kinds, one row each (bench_kind.h).
 */
#include "reports/document/bench_kind.h"

#include <string.h>

/* ---- benchmark kinds ----------------------------------------------------- */

const struct gcb_bench_desc gcb_bench_kinds[GCB_BENCH_COUNT] = {
    [GCB_BENCH_UNKNOWN] = {.id = GCB_BENCH_UNKNOWN,
                           .name = "",
                           .unit = "",
                           .family = GCB_FAM_RUN},
    [GCB_BENCH_GEMM] =
        {.id = GCB_BENCH_GEMM,
         .name = "gemm",
         .unit = "GFLOP/s", /* TOPS for int8 */
         .per_device = true,
         .family = GCB_FAM_GEMM,
         .slow_hint = "check the GPU's clocks, throttle reasons, power and "
                      "temperature (nvidia-smi -q -d PERFORMANCE), or other "
                      "load on the node"},
    [GCB_BENCH_MEMBW] =
        {.id = GCB_BENCH_MEMBW,
         .name = "membw",
         .unit = "GB/s",
         .per_device = true,
         .family = GCB_FAM_DEVMEM,
         .slow_hint = "check memory clocks, ECC/row-remapping state and NUMA "
                      "placement of the rank, or other load on the node"},
    [GCB_BENCH_PCIE] = {.id = GCB_BENCH_PCIE,
                        .name = "pcie",
                        .unit = "GB/s",
                        .family = GCB_FAM_H2D},
    [GCB_BENCH_P2P] = {.id = GCB_BENCH_P2P,
                       .name = "p2p",
                       .unit = "GB/s",
                       .shared_figures = true,
                       .family = GCB_FAM_PEERS},
    [GCB_BENCH_COLL] = {.id = GCB_BENCH_COLL,
                        .name = "coll",
                        .unit = "GB/s",
                        .family = GCB_FAM_COLL},
    [GCB_BENCH_PATTERN] = {.id = GCB_BENCH_PATTERN,
                           .name = "pattern",
                           .unit = "GB/s", /* GFLOP/s for compute parts */
                           .family = GCB_FAM_COLL},
    [GCB_BENCH_LAUNCH] = {.id = GCB_BENCH_LAUNCH,
                          .name = "launch",
                          .unit = "klaunch/s",
                          .family = GCB_FAM_RUN},
    [GCB_BENCH_NETMAP] = {.id = GCB_BENCH_NETMAP,
                          .name = "netmap",
                          .unit = "GB/s",
                          .shared_figures = true,
                          .family = GCB_FAM_RUN},
    /* A sustained GEMM (gcbench burn): its per-rank figure is a median
     * interval, judged by the burn-* kinds over its timeline, not by the
     * slow-rank rule; checked as a GEMM. */
    [GCB_BENCH_BURN] = {.id = GCB_BENCH_BURN,
                        .name = "burn",
                        .unit = "GFLOP/s",
                        .family = GCB_FAM_GEMM},
    [GCB_BENCH_NULL] = {.id = GCB_BENCH_NULL,
                        .name = "null",
                        .unit = "Mop/s",
                        .family = GCB_FAM_RUN},
    [GCB_BENCH_IMPORTED] = {.id = GCB_BENCH_IMPORTED,
                            .name = "imported",
                            .unit = "",
                            .family = GCB_FAM_RUN},
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
