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

/* A row of gcb_kinds[], at the index of its id. */
#define KIND(ID, ...) [GCB_KIND_##ID] = {.id = GCB_KIND_##ID, __VA_ARGS__}

/* Rows run in this order (enum gcb_kind_id). A kind with two rules is
 * judged from the topology's own check where the document has it, else by
 * the older rule; each rule skips what the other covers. imbalance runs
 * after the rules that name a slow rank, and stays silent when one
 * explains it; degraded-link adds its evidence to a measured slow link. */
const struct gcb_kind gcb_kinds[GCB_KIND_COUNT] = {
    KIND(RUN_STATUS, .name = "run-status", .family = GCB_FAM_RUN,
         .rule = {gcb__rule_run_status}, .group = GCB_GROUP_RUN,
         /* "failed, not complete": its errors, where it has them, say why */
         .secondary = true,
         .suggestion = "see errors[] and the job's log; rerun the missing "
                       "cases"),
    KIND(RUN_ERROR, .name = "run-error", .family = GCB_FAM_OF_CASE,
         .rule = {gcb__rule_errors}, .group = GCB_GROUP_ERROR,
         .suggestion = "fix the cause above and rerun the case"),
    KIND(NOTHING_MEASURED, .name = "nothing-measured", .family = GCB_FAM_RUN,
         .rule = {gcb__rule_nothing_measured}, .group = GCB_GROUP_RUN,
         .suggestion = "run the benchmarks this machine and backend have "
                       "(the skipped entries say why each did not run), or "
                       "run where the benchmark applies"),
    KIND(UNMEASURED, .name = "unmeasured", .family = GCB_FAM_OF_CASE,
         .rule = {gcb__rule_unmeasured}, .group = GCB_GROUP_RUN,
         .say = GCB_SAY_AT_CASE,
         .suggestion = "rerun the case with more work per iteration (a "
                       "larger size): a time of 0 s is a timer that did not "
                       "resolve one iteration, not a fast device"),
    KIND(BURN_SILENT_ERROR, .name = "burn-silent-error", .family = GCB_FAM_GEMM,
         .rule = {gcb__rule_burn}, .benches = GCB_BENCH_BIT(GCB_BENCH_BURN),
         .group = GCB_GROUP_GPU),
    KIND(BURN_COUNTERS, .name = "burn-counters", .family = GCB_FAM_HEALTH,
         .rule = {gcb__rule_burn}, .benches = GCB_BENCH_BIT(GCB_BENCH_BURN),
         .group = GCB_GROUP_GPU),
    KIND(BURN_NODE, .name = "burn-node", .family = GCB_FAM_GEMM,
         .rule = {gcb__rule_burn},
         .thresholds = "slow_rank_pct,slow_rank_fail_pct",
         .benches = GCB_BENCH_BIT(GCB_BENCH_BURN), .group = GCB_GROUP_NODE),
    KIND(BURN_FALLOFF, .name = "burn-falloff", .family = GCB_FAM_GEMM,
         .rule = {gcb__rule_burn},
         .thresholds = "slow_rank_pct,slow_rank_fail_pct",
         .benches = GCB_BENCH_BIT(GCB_BENCH_BURN), .group = GCB_GROUP_GPU,
         .explains_imbalance = true),
    KIND(BURN_SUSTAINED, .name = "burn-sustained", .family = GCB_FAM_GEMM,
         .rule = {gcb__rule_burn},
         .thresholds = "slow_rank_pct,slow_rank_fail_pct,outlier_mads",
         .benches = GCB_BENCH_BIT(GCB_BENCH_BURN), .group = GCB_GROUP_GPU,
         .explains_imbalance = true),
    KIND(VALIDATION, .name = "validation", .family = GCB_FAM_OF_CASE,
         .rule = {gcb__rule_validation}, .group = GCB_GROUP_GPU,
         .say = GCB_SAY_WRONG,
         .suggestion = "wrong results are hardware or driver faults until "
                       "shown otherwise: check ECC errors and rerun"),
    KIND(SLOW_RANK, .name = "slow-rank", .family = GCB_FAM_OF_CASE,
         .rule = {gcb__rule_slow_rank},
         .thresholds = "slow_rank_pct,slow_rank_fail_pct,outlier_mads,"
                       "outlier_min_ranks",
         .benches = PER_DEVICE, .explains_imbalance = true,
         .group = GCB_GROUP_GPU, .say = GCB_SAY_BELOW_PEERS,
         .suggestion = NULL /* its benchmark's slow_hint */),
    KIND(JITTER, .name = "jitter", .family = GCB_FAM_OF_CASE,
         .rule = {gcb__rule_jitter},
         .thresholds = "slow_rank_pct,slow_rank_fail_pct,outlier_mads,"
                       "outlier_min_ranks",
         .benches = PER_DEVICE, .group = GCB_GROUP_GPU,
         .say = GCB_SAY_NOW_AND_THEN,
         .suggestion = "a device that is fast most of the time and slow now "
                       "and then: watch its clocks and throttle reasons "
                       "under load (nvidia-smi dmon -s pc), look for XID "
                       "errors and PCIe replays (dmesg; nvidia-smi -q -d "
                       "PERFORMANCE,PCI) and for other work on the rank's "
                       "CPUs"),
    KIND(LINK_BANDWIDTH, .name = "link-bandwidth", .family = GCB_FAM_OF_CASE,
         .rule = {gcb__rule_link_bandwidth},
         .thresholds = "link_pct,link_fail_pct,slow_rank_fail_pct,"
                       "outlier_mads,outlier_min_ranks",
         .benches = GCB_BENCH_BIT(GCB_BENCH_PCIE), .explains_imbalance = true,
         .group = GCB_GROUP_HOST_LINK, .say = GCB_SAY_SOURCES,
         .suggestion = "check the link under load (nvidia-smi -q -d PCI: "
                       "current vs max gen and width); reseat the card or "
                       "try another slot if it stays low"),
    KIND(IMBALANCE, .name = "imbalance", .family = GCB_FAM_OF_CASE,
         .rule = {gcb__rule_imbalance}, .thresholds = "imbalance_pct",
         .group = GCB_GROUP_SLOWEST, .say = GCB_SAY_AT_CASE, .secondary = true,
         .suggestion = NULL /* names the slowest rank */),
    KIND(LATE_ARRIVAL, .name = "late-arrival", .family = GCB_FAM_COLL,
         .rule = {gcb__rule_late_arrival},
         .thresholds = "late_pct,outlier_mads,outlier_min_ranks",
         .benches = GCB_BENCH_BIT(GCB_BENCH_COLL), .group = GCB_GROUP_RANK,
         .say = GCB_SAY_LATE, .suggestion = NULL /* names the late rank */),
    KIND(SWEEP_TREND, .name = "sweep-trend", .family = GCB_FAM_COLL,
         .rule = {gcb__rule_sweep_rows}, .thresholds = "trend_pct",
         .benches =
             GCB_BENCH_BIT(GCB_BENCH_COLL) | GCB_BENCH_BIT(GCB_BENCH_P2P),
         .group = GCB_GROUP_FABRIC,
         .suggestion = "rerun this size alone with more iterations; a dip "
                       "that repeats is a protocol or algorithm switch at "
                       "that size (NCCL_PROTO, NCCL_ALGO; MPI eager/"
                       "rendezvous limits) or a slow path taken only there"),
    KIND(LATENCY_FLOOR, .name = "latency-floor", .family = GCB_FAM_COLL,
         .rule = {gcb__rule_sweep_rows}, .thresholds = "latency_floor_x",
         .benches =
             GCB_BENCH_BIT(GCB_BENCH_COLL) | GCB_BENCH_BIT(GCB_BENCH_P2P),
         .group = GCB_GROUP_FABRIC,
         .suggestion = "a small message should take about the transport's "
                       "latency: look for too little warm-up, ranks spinning "
                       "on shared cores, or a fallback to a slower path "
                       "(NCCL_DEBUG=INFO; MPI's shared-memory and network "
                       "modules)"),
    KIND(DEGRADED_LINK, .name = "degraded-link", .family = GCB_FAM_HEALTH,
         .rule = {gcb__rule_degraded_link}, .group = GCB_GROUP_HOST_LINK,
         .say = GCB_SAY_AT_REST,
         .suggestion = "idle GPUs downtrain: confirm under load (nvidia-smi "
                       "-q -d PCI: current vs max; lspci -vv: LnkSta vs "
                       "LnkCap) before replacing anything"),
    KIND(P2P_BANDWIDTH, .name = "p2p-bandwidth", .family = GCB_FAM_PEERS,
         .rule = {gcb__rule_p2p_bandwidth},
         .thresholds = "link_pct,link_fail_pct,slow_rank_fail_pct,"
                       "outlier_mads,outlier_min_ranks",
         .benches = GCB_BENCH_BIT(GCB_BENCH_P2P), .group = GCB_GROUP_GPU_PAIR,
         .say = GCB_SAY_PATH,
         .suggestion = "check the pair's links (nvidia-smi nvlink -s, "
                       "nvidia-smi topo -m) and whether peer access is "
                       "enabled or traffic is routed through the host"),
    KIND(NETWORK_LINK, .name = "network-link", .family = GCB_FAM_PEERS,
         .rule = {gcb__rule_netmap},
         .thresholds = "link_pct,link_fail_pct,outlier_min_ranks",
         .benches = GCB_BENCH_BIT(GCB_BENCH_NETMAP), .group = GCB_GROUP_NETWORK,
         .suggestion = NULL /* names the host */),
    KIND(NETWORK_PATH, .name = "network-path", .family = GCB_FAM_PEERS,
         .rule = {gcb__rule_netmap},
         .thresholds = "link_pct,link_fail_pct,outlier_min_ranks",
         .benches = GCB_BENCH_BIT(GCB_BENCH_NETMAP), .group = GCB_GROUP_NETWORK,
         .suggestion = NULL /* names both hosts */),
    KIND(PATTERN_STRAGGLER, .name = "pattern-straggler",
         .family = GCB_FAM_OF_CASE,
         /* finds the four pattern kinds below too: one pass over
          * the pattern groups keeps their findings in group order */
         .rule = {gcb__rule_pattern}, .thresholds = "imbalance_pct",
         .benches = GCB_BENCH_BIT(GCB_BENCH_PATTERN), .group = GCB_GROUP_RUN,
         .suggestion = NULL /* names the rank */),
    KIND(PATTERN_OVERLAP, .name = "pattern-overlap", .family = GCB_FAM_OF_CASE,
         .benches = GCB_BENCH_BIT(GCB_BENCH_PATTERN), .group = GCB_GROUP_RUN,
         .suggestion =
             "larger buckets or earlier starts; on MPI, an asynchronous "
             "progress thread (MPIR_CVAR_ASYNC_PROGRESS=1); on NCCL, check "
             "that compute and NCCL kernels share the GPU"),
    KIND(PATTERN_TP_PLACEMENT, .name = "pattern-tp-placement",
         .family = GCB_FAM_OF_CASE, .benches = GCB_BENCH_BIT(GCB_BENCH_PATTERN),
         .group = GCB_GROUP_RUN,
         .suggestion = "keep tensor parallelism inside a node (tp <= GPUs per "
                       "node, ranks ordered tp first); span nodes with data or "
                       "pipeline parallelism"),
    KIND(PATTERN_SKEW, .name = "pattern-skew", .family = GCB_FAM_OF_CASE,
         .benches = GCB_BENCH_BIT(GCB_BENCH_PATTERN), .group = GCB_GROUP_RUN,
         .suggestion = "a load-balancing loss or capacity factor; "
                       "more experts per rank spread the hot ones"),
    KIND(PATTERN_BUBBLE, .name = "pattern-bubble", .family = GCB_FAM_OF_CASE,
         .benches = GCB_BENCH_BIT(GCB_BENCH_PATTERN), .group = GCB_GROUP_RUN,
         .suggestion = "more micro-batches, balanced stages, "
                       "pipeline peers inside a node"),
    KIND(BLAS_KERNEL, .name = "blas-kernel", .family = GCB_FAM_GEMM,
         .rule = {gcb__rule_blas_kernel},
         .benches =
             GCB_BENCH_BIT(GCB_BENCH_GEMM) | GCB_BENCH_BIT(GCB_BENCH_PATTERN),
         .group = GCB_GROUP_NODE_BLAS,
         .suggestion = NULL /* names the kernel to use */),
    KIND(PLACEMENT_REMOTE, .name = "placement-remote",
         .family = GCB_FAM_PLACEMENT, .rule = {gcb__rule_topo_placement},
         .group = GCB_GROUP_RANK, .problem = "remote-binding",
         .problem_cost = "host memory and CPU work cross the socket "
                         "interconnect on every transfer",
         .suggestion = NULL /* the topology check's own fix */),
    KIND(PLACEMENT_PARTIAL, .name = "placement-partial",
         .family = GCB_FAM_PLACEMENT, .rule = {gcb__rule_topo_placement},
         .group = GCB_GROUP_RANK, .problem = "partial-binding",
         .problem_cost = "some of the rank's threads run on the far socket",
         .suggestion = NULL /* the topology check's own fix */),
    KIND(PLACEMENT_UNBOUND, .name = "placement-unbound",
         .family = GCB_FAM_PLACEMENT,
         .rule = {gcb__rule_topo_placement, gcb__rule_unbound},
         .group = GCB_GROUP_RANK, .problem = "unbound",
         .problem_cost =
             "the OS may move the rank anywhere, also away from its GPU",
         .problem_cost_host = "the OS may move the rank anywhere: ranks "
                              "share cores and move between them, which "
                              "disturbs timings",
         /* the older rule's; the topology check words its own fix */
         .suggestion = "bind ranks to cores (mpiexec -bind-to core, srun "
                       "--cpu-bind=cores), near their GPU's NUMA node"),
    KIND(PLACEMENT_SHARED_CPUS, .name = "placement-shared-cpus",
         .family = GCB_FAM_PLACEMENT, .rule = {gcb__rule_shared_cpus},
         .group = GCB_GROUP_RANK,
         .suggestion = "give each rank its own cores (mpiexec -bind-to "
                       "core -map-by numa, srun --cpu-bind=cores)"),
    KIND(PLACEMENT_SHARED_GPU, .name = "placement-shared-gpu",
         .family = GCB_FAM_PLACEMENT,
         .rule = {gcb__rule_topo_placement, gcb__rule_shared_gpu},
         .group = GCB_GROUP_RANK, .problem = "shared-gpu",
         .problem_cost = "each rank gets a fraction of the GPU",
         .suggestion = "run one rank per GPU (ranks per node = GPUs per "
                       "node), or check CUDA_VISIBLE_DEVICES"),
    KIND(PLACEMENT_IDLE_GPU, .name = "placement-idle-gpu",
         .family = GCB_FAM_PLACEMENT, .rule = {gcb__rule_topo_placement},
         .group = GCB_GROUP_RANK, .problem = "idle-gpu",
         .problem_cost = "the node's capacity is not all measured",
         .suggestion = NULL /* the topology check's own fix */),
    KIND(OVERSUBSCRIBED, .name = "oversubscribed", .family = GCB_FAM_PLACEMENT,
         .rule = {gcb__rule_topo_placement, gcb__rule_oversubscribed},
         .group = GCB_GROUP_RANK, .problem = "oversubscribed",
         .problem_cost =
             "ranks wait for a core, so every figure on the node is low",
         .suggestion = "run at most one rank per core (fewer ranks per "
                       "node, or more nodes)"),
    KIND(NOT_VALIDATED, .name = "not-validated", .family = GCB_FAM_OF_CASE,
         .rule = {gcb__rule_not_validated}, .group = GCB_GROUP_RUN,
         .suggestion = "rerun without --no-check to validate results"),
    KIND(SKIPPED, .name = "skipped", .family = GCB_FAM_OF_CASE,
         .rule = {gcb__rule_skipped}, .group = GCB_GROUP_RUN),
    KIND(REGRESSION, .name = "regression", .family = GCB_FAM_OF_CASE,
         .thresholds = "regression_pct,noise_sigmas",
         .group = GCB_GROUP_REGRESSION, .relative = true,
         .tally_one = "regression against the baseline",
         .tally_many = "regressions against the baseline"),
    KIND(NOT_COMPARABLE, .name = "not-comparable", .family = GCB_FAM_OF_CASE,
         .group = GCB_GROUP_BASELINE,
         .tally_one = "difference from the baseline's run",
         .tally_many = "differences from the baseline's run"),
    KIND(MISSING_CASE, .name = "missing-case", .family = GCB_FAM_OF_CASE,
         .group = GCB_GROUP_BASELINE,
         .tally_one = "case missing from one of the runs",
         .tally_many = "cases missing from one of the runs"),
    KIND(CRITERION, .name = "criterion", .family = GCB_FAM_OF_CASE,
         .group = GCB_GROUP_CHECK, .say = GCB_SAY_CHECK, .secondary = true,
         .tally_one = "acceptance check miss",
         .tally_many = "acceptance check misses"),
    KIND(CRITERION_NA, .name = "criterion-na", .family = GCB_FAM_RUN,
         .group = GCB_GROUP_RUN),
};

bool gcb_kind_applies(const struct gcb_kind *k, enum gcb_bench_kind b) {
  return k->benches == 0 || (k->benches & GCB_BENCH_BIT(b)) != 0;
}
