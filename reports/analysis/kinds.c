/*
 * The finding kinds, one row each (kinds.h). The rows are data: the rules
 * live in rules_*.c and placement.c, the placing and wording functions
 * each row names by value live in diagnose.c.
 */
#include "reports/analysis/kinds.h"

#include "reports/analysis/analyze_rules.h"

/* ---- finding kinds ------------------------------------------------------- */

/* The benchmarks whose per-rank figure is the rank's own device. */
#define PER_DEVICE                                                             \
  (GCB_BENCH_BIT(GCB_BENCH_GEMM) | GCB_BENCH_BIT(GCB_BENCH_MEMBW))

/* Rows run in this order (enum gcb_kind_id). A kind with two rules is
 * judged from the topology's own check where the document has it, else by
 * the older rule; each rule skips what the other covers. imbalance runs
 * after the rules that name a slow rank, and stays silent when one
 * explains it; degraded-link adds its evidence to a measured slow link. */
const struct gcb_kind gcb_kinds[GCB_KIND_COUNT] = {
    [GCB_KIND_RUN_STATUS] =
        {.id = GCB_KIND_RUN_STATUS,
         .name = "run-status",
         .family = GCB_FAM_RUN,
         .rule = {gcb__rule_run_status},
         .group = GCB_GROUP_RUN,
         .suggestion = "see errors[] and the job's log; rerun the missing "
                       "cases"},
    [GCB_KIND_RUN_ERROR] = {.id = GCB_KIND_RUN_ERROR,
                            .name = "run-error",
                            .family = GCB_FAM_OF_CASE,
                            .rule = {gcb__rule_errors},
                            .group = GCB_GROUP_RUN,
                            .suggestion =
                                "fix the cause above and rerun the case"},
    [GCB_KIND_BURN_SILENT_ERROR] = {.id = GCB_KIND_BURN_SILENT_ERROR,
                                    .name = "burn-silent-error",
                                    .family = GCB_FAM_GEMM,
                                    .rule = {gcb__rule_burn},
                                    .benches = GCB_BENCH_BIT(GCB_BENCH_BURN),
                                    .group = GCB_GROUP_GPU},
    [GCB_KIND_BURN_COUNTERS] = {.id = GCB_KIND_BURN_COUNTERS,
                                .name = "burn-counters",
                                .family = GCB_FAM_HEALTH,
                                .rule = {gcb__rule_burn},
                                .benches = GCB_BENCH_BIT(GCB_BENCH_BURN),
                                .group = GCB_GROUP_GPU},
    [GCB_KIND_BURN_NODE] = {.id = GCB_KIND_BURN_NODE,
                            .name = "burn-node",
                            .family = GCB_FAM_GEMM,
                            .rule = {gcb__rule_burn},
                            .thresholds = "slow_rank_pct,slow_rank_fail_pct",
                            .benches = GCB_BENCH_BIT(GCB_BENCH_BURN),
                            .group = GCB_GROUP_NODE},
    [GCB_KIND_BURN_FALLOFF] = {.id = GCB_KIND_BURN_FALLOFF,
                               .name = "burn-falloff",
                               .family = GCB_FAM_GEMM,
                               .rule = {gcb__rule_burn},
                               .thresholds = "slow_rank_pct,slow_rank_fail_pct",
                               .benches = GCB_BENCH_BIT(GCB_BENCH_BURN),
                               .group = GCB_GROUP_GPU,
                               .explains_imbalance = true},
    [GCB_KIND_BURN_SUSTAINED] = {.id = GCB_KIND_BURN_SUSTAINED,
                                 .name = "burn-sustained",
                                 .family = GCB_FAM_GEMM,
                                 .rule = {gcb__rule_burn},
                                 .thresholds =
                                     "slow_rank_pct,"
                                     "slow_rank_fail_pct,outlier_mads",
                                 .benches = GCB_BENCH_BIT(GCB_BENCH_BURN),
                                 .group = GCB_GROUP_GPU,
                                 .explains_imbalance = true},
    [GCB_KIND_VALIDATION] =
        {.id = GCB_KIND_VALIDATION,
         .name = "validation",
         .family = GCB_FAM_OF_CASE,
         .rule = {gcb__rule_validation},
         .group = GCB_GROUP_GPU,
         .say = GCB_SAY_WRONG,
         .suggestion = "wrong results are hardware or driver faults until "
                       "shown otherwise: check ECC errors and rerun"},
    [GCB_KIND_SLOW_RANK] = {.id = GCB_KIND_SLOW_RANK,
                            .name = "slow-rank",
                            .family = GCB_FAM_OF_CASE,
                            .rule = {gcb__rule_slow_rank},
                            .thresholds =
                                "slow_rank_pct,slow_rank_fail_pct,outlier_mads,"
                                "outlier_min_ranks",
                            .benches = PER_DEVICE,
                            .explains_imbalance = true,
                            .group = GCB_GROUP_GPU,
                            .say = GCB_SAY_BELOW_PEERS,
                            .suggestion = NULL /* its benchmark's slow_hint */},
    [GCB_KIND_LINK_BANDWIDTH] =
        {.id = GCB_KIND_LINK_BANDWIDTH,
         .name = "link-bandwidth",
         .family = GCB_FAM_OF_CASE,
         .rule = {gcb__rule_link_bandwidth},
         .thresholds = "link_pct,link_fail_pct,slow_rank_fail_pct,"
                       "outlier_mads,outlier_min_ranks",
         .benches = GCB_BENCH_BIT(GCB_BENCH_PCIE),
         .explains_imbalance = true,
         .group = GCB_GROUP_HOST_LINK,
         .say = GCB_SAY_SOURCES,
         .suggestion = "check the link under load (nvidia-smi -q -d PCI: "
                       "current vs max gen and width); reseat the card or "
                       "try another slot if it stays low"},
    [GCB_KIND_IMBALANCE] = {.id = GCB_KIND_IMBALANCE,
                            .name = "imbalance",
                            .family = GCB_FAM_OF_CASE,
                            .rule = {gcb__rule_imbalance},
                            .thresholds = "imbalance_pct",
                            .group = GCB_GROUP_SLOWEST,
                            .say = GCB_SAY_AT_CASE,
                            .secondary = true,
                            .suggestion = NULL /* names the slowest rank */},
    [GCB_KIND_LATE_ARRIVAL] = {.id = GCB_KIND_LATE_ARRIVAL,
                               .name = "late-arrival",
                               .family = GCB_FAM_COLL,
                               .rule = {gcb__rule_late_arrival},
                               .thresholds =
                                   "late_pct,outlier_mads,outlier_min_ranks",
                               .benches = GCB_BENCH_BIT(GCB_BENCH_COLL),
                               .group = GCB_GROUP_RANK,
                               .say = GCB_SAY_LATE,
                               .suggestion = NULL /* names the late rank */},
    [GCB_KIND_SWEEP_TREND] =
        {.id = GCB_KIND_SWEEP_TREND,
         .name = "sweep-trend",
         .family = GCB_FAM_COLL,
         .rule = {gcb__rule_sweep_rows},
         .thresholds = "trend_pct",
         .benches =
             GCB_BENCH_BIT(GCB_BENCH_COLL) | GCB_BENCH_BIT(GCB_BENCH_P2P),
         .group = GCB_GROUP_FABRIC,
         .suggestion = "rerun this size alone with more iterations; a dip "
                       "that repeats is a protocol or algorithm switch at "
                       "that size (NCCL_PROTO, NCCL_ALGO; MPI eager/"
                       "rendezvous limits) or a slow path taken only there"},
    [GCB_KIND_LATENCY_FLOOR] =
        {.id = GCB_KIND_LATENCY_FLOOR,
         .name = "latency-floor",
         .family = GCB_FAM_COLL,
         .rule = {gcb__rule_sweep_rows},
         .thresholds = "latency_floor_x",
         .benches =
             GCB_BENCH_BIT(GCB_BENCH_COLL) | GCB_BENCH_BIT(GCB_BENCH_P2P),
         .group = GCB_GROUP_FABRIC,
         .suggestion = "a small message should take about the transport's "
                       "latency: look for too little warm-up, ranks spinning "
                       "on shared cores, or a fallback to a slower path "
                       "(NCCL_DEBUG=INFO; MPI's shared-memory and network "
                       "modules)"},
    [GCB_KIND_DEGRADED_LINK] =
        {.id = GCB_KIND_DEGRADED_LINK,
         .name = "degraded-link",
         .family = GCB_FAM_HEALTH,
         .rule = {gcb__rule_degraded_link},
         .group = GCB_GROUP_HOST_LINK,
         .say = GCB_SAY_AT_REST,
         .suggestion = "idle GPUs downtrain: confirm under load (nvidia-smi "
                       "-q -d PCI: current vs max; lspci -vv: LnkSta vs "
                       "LnkCap) before replacing anything"},
    [GCB_KIND_P2P_BANDWIDTH] =
        {.id = GCB_KIND_P2P_BANDWIDTH,
         .name = "p2p-bandwidth",
         .family = GCB_FAM_PEERS,
         .rule = {gcb__rule_p2p_bandwidth},
         .thresholds = "link_pct,link_fail_pct,slow_rank_fail_pct,"
                       "outlier_mads,outlier_min_ranks",
         .benches = GCB_BENCH_BIT(GCB_BENCH_P2P),
         .group = GCB_GROUP_GPU_PAIR,
         .say = GCB_SAY_PATH,
         .suggestion = "check the pair's links (nvidia-smi nvlink -s, "
                       "nvidia-smi topo -m) and whether peer access is "
                       "enabled or traffic is routed through the host"},
    [GCB_KIND_NETWORK_LINK] = {.id = GCB_KIND_NETWORK_LINK,
                               .name = "network-link",
                               .family = GCB_FAM_PEERS,
                               .rule = {gcb__rule_netmap},
                               .thresholds =
                                   "link_pct,link_fail_pct,outlier_min_ranks",
                               .benches = GCB_BENCH_BIT(GCB_BENCH_NETMAP),
                               .group = GCB_GROUP_NETWORK,
                               .suggestion = NULL /* names the host */},
    [GCB_KIND_NETWORK_PATH] = {.id = GCB_KIND_NETWORK_PATH,
                               .name = "network-path",
                               .family = GCB_FAM_PEERS,
                               .rule = {gcb__rule_netmap},
                               .thresholds =
                                   "link_pct,link_fail_pct,outlier_min_ranks",
                               .benches = GCB_BENCH_BIT(GCB_BENCH_NETMAP),
                               .group = GCB_GROUP_NETWORK,
                               .suggestion = NULL /* names both hosts */},
    [GCB_KIND_PATTERN_STRAGGLER] =
        {.id = GCB_KIND_PATTERN_STRAGGLER,
         .name = "pattern-straggler",
         .family = GCB_FAM_OF_CASE,
         /* finds the four pattern kinds below too: one pass over
          * the pattern groups keeps their findings in group order */
         .rule = {gcb__rule_pattern},
         .thresholds = "imbalance_pct",
         .benches = GCB_BENCH_BIT(GCB_BENCH_PATTERN),
         .group = GCB_GROUP_RUN,
         .suggestion = NULL /* names the rank */},
    [GCB_KIND_PATTERN_OVERLAP] =
        {.id = GCB_KIND_PATTERN_OVERLAP,
         .name = "pattern-overlap",
         .family = GCB_FAM_OF_CASE,
         .benches = GCB_BENCH_BIT(GCB_BENCH_PATTERN),
         .group = GCB_GROUP_RUN,
         .suggestion =
             "larger buckets or earlier starts; on MPI, an asynchronous "
             "progress thread (MPIR_CVAR_ASYNC_PROGRESS=1); on NCCL, check "
             "that compute and NCCL kernels share the GPU"},
    [GCB_KIND_PATTERN_TP_PLACEMENT] =
        {.id = GCB_KIND_PATTERN_TP_PLACEMENT,
         .name = "pattern-tp-placement",
         .family = GCB_FAM_OF_CASE,
         .benches = GCB_BENCH_BIT(GCB_BENCH_PATTERN),
         .group = GCB_GROUP_RUN,
         .suggestion = "keep tensor parallelism inside a node (tp <= GPUs per "
                       "node, ranks ordered tp first); span nodes with data or "
                       "pipeline parallelism"},
    [GCB_KIND_PATTERN_SKEW] = {.id = GCB_KIND_PATTERN_SKEW,
                               .name = "pattern-skew",
                               .family = GCB_FAM_OF_CASE,
                               .benches = GCB_BENCH_BIT(GCB_BENCH_PATTERN),
                               .group = GCB_GROUP_RUN,
                               .suggestion =
                                   "a load-balancing loss or capacity factor; "
                                   "more experts per rank spread the hot ones"},
    [GCB_KIND_PATTERN_BUBBLE] = {.id = GCB_KIND_PATTERN_BUBBLE,
                                 .name = "pattern-bubble",
                                 .family = GCB_FAM_OF_CASE,
                                 .benches = GCB_BENCH_BIT(GCB_BENCH_PATTERN),
                                 .group = GCB_GROUP_RUN,
                                 .suggestion =
                                     "more micro-batches, balanced stages, "
                                     "pipeline peers inside a node"},
    [GCB_KIND_BLAS_KERNEL] = {.id = GCB_KIND_BLAS_KERNEL,
                              .name = "blas-kernel",
                              .family = GCB_FAM_GEMM,
                              .rule = {gcb__rule_blas_kernel},
                              .benches = GCB_BENCH_BIT(GCB_BENCH_GEMM) |
                                         GCB_BENCH_BIT(GCB_BENCH_PATTERN),
                              .group = GCB_GROUP_NODE_BLAS,
                              .suggestion = NULL /* names the kernel to use */},
    [GCB_KIND_PLACEMENT_REMOTE] = {.id = GCB_KIND_PLACEMENT_REMOTE,
                                   .name = "placement-remote",
                                   .family = GCB_FAM_PLACEMENT,
                                   .rule = {gcb__rule_topo_placement},
                                   .group = GCB_GROUP_RANK,
                                   .suggestion =
                                       NULL /* the topology check's own fix */},
    [GCB_KIND_PLACEMENT_PARTIAL] =
        {.id = GCB_KIND_PLACEMENT_PARTIAL,
         .name = "placement-partial",
         .family = GCB_FAM_PLACEMENT,
         .rule = {gcb__rule_topo_placement},
         .group = GCB_GROUP_RANK,
         .suggestion = NULL /* the topology check's own fix */},
    [GCB_KIND_PLACEMENT_UNBOUND] =
        {.id = GCB_KIND_PLACEMENT_UNBOUND,
         .name = "placement-unbound",
         .family = GCB_FAM_PLACEMENT,
         .rule = {gcb__rule_topo_placement, gcb__rule_unbound},
         .group = GCB_GROUP_RANK,
         /* the older rule's; the topology check words its own fix */
         .suggestion = "bind ranks to cores (mpiexec -bind-to core, srun "
                       "--cpu-bind=cores), near their GPU's NUMA node"},
    [GCB_KIND_PLACEMENT_SHARED_CPUS] =
        {.id = GCB_KIND_PLACEMENT_SHARED_CPUS,
         .name = "placement-shared-cpus",
         .family = GCB_FAM_PLACEMENT,
         .rule = {gcb__rule_shared_cpus},
         .group = GCB_GROUP_RANK,
         .suggestion = "give each rank its own cores (mpiexec -bind-to "
                       "core -map-by numa, srun --cpu-bind=cores)"},
    [GCB_KIND_PLACEMENT_SHARED_GPU] =
        {.id = GCB_KIND_PLACEMENT_SHARED_GPU,
         .name = "placement-shared-gpu",
         .family = GCB_FAM_PLACEMENT,
         .rule = {gcb__rule_topo_placement, gcb__rule_shared_gpu},
         .group = GCB_GROUP_RANK,
         .suggestion = "run one rank per GPU (ranks per node = GPUs per "
                       "node), or check CUDA_VISIBLE_DEVICES"},
    [GCB_KIND_PLACEMENT_IDLE_GPU] =
        {.id = GCB_KIND_PLACEMENT_IDLE_GPU,
         .name = "placement-idle-gpu",
         .family = GCB_FAM_PLACEMENT,
         .rule = {gcb__rule_topo_placement},
         .group = GCB_GROUP_RANK,
         .suggestion = NULL /* the topology check's own fix */},
    [GCB_KIND_OVERSUBSCRIBED] =
        {.id = GCB_KIND_OVERSUBSCRIBED,
         .name = "oversubscribed",
         .family = GCB_FAM_PLACEMENT,
         .rule = {gcb__rule_topo_placement, gcb__rule_oversubscribed},
         .group = GCB_GROUP_RANK,
         .suggestion = "run at most one rank per core (fewer ranks per "
                       "node, or more nodes)"},
    [GCB_KIND_NOT_VALIDATED] =
        {.id = GCB_KIND_NOT_VALIDATED,
         .name = "not-validated",
         .family = GCB_FAM_OF_CASE,
         .rule = {gcb__rule_not_validated},
         .group = GCB_GROUP_RUN,
         .suggestion = "rerun without --no-check to validate results"},
    [GCB_KIND_SKIPPED] = {.id = GCB_KIND_SKIPPED,
                          .name = "skipped",
                          .family = GCB_FAM_OF_CASE,
                          .rule = {gcb__rule_skipped},
                          .group = GCB_GROUP_RUN},
    [GCB_KIND_REGRESSION] = {.id = GCB_KIND_REGRESSION,
                             .name = "regression",
                             .family = GCB_FAM_OF_CASE,
                             .thresholds = "regression_pct,noise_sigmas",
                             .group = GCB_GROUP_REGRESSION,
                             .relative = true,
                             .tally_one = "regression against the baseline",
                             .tally_many = "regressions against the baseline"},
    [GCB_KIND_NOT_COMPARABLE] = {.id = GCB_KIND_NOT_COMPARABLE,
                                 .name = "not-comparable",
                                 .family = GCB_FAM_OF_CASE,
                                 .group = GCB_GROUP_BASELINE,
                                 .tally_one =
                                     "difference from the baseline's run",
                                 .tally_many =
                                     "differences from the baseline's run"},
    [GCB_KIND_MISSING_CASE] = {.id = GCB_KIND_MISSING_CASE,
                               .name = "missing-case",
                               .family = GCB_FAM_OF_CASE,
                               .group = GCB_GROUP_BASELINE,
                               .tally_one = "case missing from one of the runs",
                               .tally_many =
                                   "cases missing from one of the runs"},
    [GCB_KIND_CRITERION] = {.id = GCB_KIND_CRITERION,
                            .name = "criterion",
                            .family = GCB_FAM_OF_CASE,
                            .group = GCB_GROUP_CHECK,
                            .say = GCB_SAY_CHECK,
                            .secondary = true,
                            .tally_one = "acceptance check miss",
                            .tally_many = "acceptance check misses"},
    [GCB_KIND_CRITERION_NA] = {.id = GCB_KIND_CRITERION_NA,
                               .name = "criterion-na",
                               .family = GCB_FAM_RUN,
                               .group = GCB_GROUP_RUN},
};

bool gcb_kind_applies(const struct gcb_kind *k, enum gcb_bench_kind b) {
  return k->benches == 0 || (k->benches & GCB_BENCH_BIT(b)) != 0;
}
