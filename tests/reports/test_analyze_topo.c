/*
 * Crafted results on an 8-GPU node with its topology: each planted problem
 * (a slow GPU, a late rank, a rank bound off its GPU's NUMA node, wrong
 * results, a degraded link, a slow copy, a slow GPU pair) yields exactly
 * one finding, of the right kind, at the right node, rank, GPU and bus id;
 * and no problem is reported twice when the topology's own placement check
 * and the older rules could both see it.
 */
#include <math.h>

#include "reports/analysis/analyze.h"
#include "tests/reports/report_fixture.h"

#define NGPU 8

struct run {
  json_t *doc;
  struct gcb_doc d; /* with its model, kept while findings point into it */
  struct gcb_findings f;
};

/* 8 ranks on one 64-core node, rank i on GPU i, topology included, and
 * an even gemm case, so that a clean run has no finding at all. */
static struct run node8(void) {
  static const double even[NGPU] = {100, 101, 99, 100, 100, 101, 99, 100};
  struct run r = {.doc = fx_doc(NGPU, 1, 64, "Test CPU")};
  fx_add_topology(r.doc, NGPU, 64);
  fx_add_case(r.doc, fx_case("gemm", "bf16", "{\"dtype\": \"bf16\"}", "GFLOP/s",
                             even, NGPU, 0.01, NULL));
  return r;
}

static json_t *topo0(struct run *r) {
  return json_object_get(json_array_get(json_object_get(r->doc, "nodes"), 0),
                         "topology");
}

static void analyse(struct run *r) {
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_err err = {0};
  fx_check_valid(r->doc);
  fx_doc_free(&r->d);
  r->d = fx_doc_of("crafted.json", r->doc);
  cr_assert_eq(gcb_analyze(&r->d, 1, &t, &r->f, &err), GCB_OK, "%s", err.msg);
}

static void done(struct run *r) {
  gcb_findings_free(&r->f);
  fx_doc_free(&r->d);
  json_decref(r->doc);
}

/* Asserts the run has exactly one finding, of `kind`, at rank and GPU
 * `where` (bus 0000:1<where>:00.0 on node00), and returns it. */
static const struct gcb_finding *the_one(const struct run *r, const char *kind,
                                         long long where) {
  char bus[32];
  snprintf(bus, sizeof bus, "0000:%02llx:00.0", 0x10 + where);
  cr_assert_eq(r->f.n, 1, "%zu findings (first: %s: %s)", r->f.n,
               r->f.n ? r->f.items[0].kind->name : "-",
               r->f.n ? r->f.items[0].explanation : "");
  const struct gcb_finding *f = &r->f.items[0];
  cr_expect_str_eq(f->kind->name, kind);
  cr_expect_eq(f->where.node, 0);
  cr_expect_str_eq(f->where.hostname, "node00");
  cr_expect_eq(f->where.rank, where, "%s: rank %lld", kind, f->where.rank);
  cr_expect_eq(f->where.gpu, where, "%s: GPU %lld", kind, f->where.gpu);
  cr_expect_str_eq(f->where.bus_id, bus, "%s", kind);
  return f;
}

Test(crafted, a_clean_node_has_no_finding) {
  struct run r = node8();
  analyse(&r);
  cr_expect_eq(r.f.n, 0, "first: %s", r.f.n ? r.f.items[0].explanation : "");
  done(&r);
}

Test(crafted, one_slow_gpu_among_eight) {
  static const double figs[NGPU] = {700, 705, 698, 702, 699, 420, 701, 700};
  struct run r = {.doc = fx_doc(NGPU, 1, 64, "Test CPU")};
  fx_add_topology(r.doc, NGPU, 64);
  fx_add_case(r.doc, fx_case("gemm", "bf16", "{\"dtype\": \"bf16\"}", "GFLOP/s",
                             figs, NGPU, 0.01, NULL));
  analyse(&r);
  const struct gcb_finding *f = the_one(&r, "slow-rank", 5);
  cr_expect_eq(f->severity, GCB_SEV_FAIL);
  cr_expect_float_eq(f->cost, 1 - 420.0 / 700, 1e-9);
  done(&r);
}

Test(crafted, one_late_rank_at_a_collective) {
  static const double figs[NGPU] = {10, 10, 10, 10, 10, 10, 10, 10};
  static const double late[NGPU] = {1e-4, 2e-4, 1e-4, 1e-4,
                                    2e-4, 1e-4, 0.04, 1e-4};
  struct run r = {.doc = fx_doc(NGPU, 1, 64, "Test CPU")};
  fx_add_topology(r.doc, NGPU, 64);
  json_t *c = fx_case("coll", "allreduce float sum 1MB",
                      "{\"op\": \"allreduce\", \"size\": 1048576}", "GB/s",
                      figs, NGPU, 0.01, NULL);
  json_t *s = json_object_get(c, "summary");
  json_object_set_new(
      s, "time_s",
      json_pack("{s:f, s:f, s:f}", "min", 0.1, "mean", 0.1, "max", 0.1));
  json_object_set_new(s, "late_rank", json_integer(6));
  json_object_set_new(s, "late_mean_s", json_real(0.04));
  for (size_t i = 0; i < NGPU; i++)
    json_object_set_new(
        json_array_get(json_object_get(c, "per_rank"), i), "late_s",
        json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f}", "n", 10, "min", 0.0,
                  "median", late[i], "mean", late[i], "max", late[i], "stdev",
                  0.0, "p99", late[i]));
  fx_add_case(r.doc, c);
  analyse(&r);
  const struct gcb_finding *f = the_one(&r, "late-arrival", 6);
  cr_expect_float_eq(f->measured, 40000, 1e-6, "microseconds");
  done(&r);
}

Test(crafted, one_rank_bound_off_its_gpus_numa_node) {
  struct run r = node8();
  fx_problem(topo0(&r), "remote-binding", 3, -1, 3,
             "rank 3: its CPUs 40-41 are all outside GPU3's local CPUs 0-31 "
             "(NUMA 0)");
  analyse(&r);
  const struct gcb_finding *f = the_one(&r, "placement-remote", 3);
  cr_expect_eq(f->severity, GCB_SEV_WARN);
  cr_expect(strstr(f->explanation, "GPU3's local CPUs") != NULL);
  cr_expect_str_eq(f->suggestion, "numactl --cpunodebind=1 --membind=1");
  done(&r);
}

Test(crafted, one_validation_failure) {
  static const double figs[NGPU] = {100, 101, 99, 100, 100, 101, 99, 100};
  static const long long wrong[NGPU] = {0, 0, 7, 0, 0, 0, 0, 0};
  struct run r = {.doc = fx_doc(NGPU, 1, 64, "Test CPU")};
  fx_add_topology(r.doc, NGPU, 64);
  fx_add_case(r.doc, fx_case("gemm", "bf16", "{\"dtype\": \"bf16\"}", "GFLOP/s",
                             figs, NGPU, 0.01, wrong));
  analyse(&r);
  const struct gcb_finding *f = the_one(&r, "validation", 2);
  cr_expect_eq(f->severity, GCB_SEV_FAIL);
  cr_expect_float_eq(f->measured, 7, 0);
  done(&r);
}

static void add_fact(struct run *r, int gpu, const char *text) {
  json_array_append_new(json_object_get(topo0(r), "facts"),
                        json_pack("{s:s, s:i, s:n, s:s}", "kind",
                                  "link-mismatch", "gpu", gpu, "nic", "text",
                                  text));
  /* The device end reads gen1 x16 while the port says gen5. */
  json_t *g = json_array_get(json_object_get(topo0(r), "gpus"), (size_t)gpu);
  json_t *hop = json_array_get(json_object_get(g, "pcie_path"), 0);
  json_object_set_new(hop, "gbps", json_real(4.0));
}

Test(crafted, one_degraded_link) {
  struct run r = node8();
  add_fact(&r, 4, "GPU4 link gen1 x16 under a gen5 x16 port");
  analyse(&r);
  const struct gcb_finding *f = the_one(&r, "degraded-link", 4);
  cr_expect_eq(f->severity, GCB_SEV_WARN, "idle links downtrain: a warning");
  cr_expect_str_eq(f->where.link, "0000:14:00.0<->host");
  cr_expect_float_eq(f->measured, 4.0, 1e-9);
  cr_expect_float_eq(f->expected, 63.02, 1e-9);
  cr_expect(strstr(f->suggestion, "confirm under load") != NULL);
  done(&r);
}

Test(crafted, nvml_link_below_its_maximum_is_a_degraded_link) {
  struct run r = node8();
  /* GPU health as the node's first rank records it (NVML). */
  json_object_set_new(
      json_array_get(json_object_get(r.doc, "nodes"), 0), "gpus",
      json_pack("[{s:i, s:s, s:i, s:i, s:i, s:i}]", "ordinal", 1, "bus_id",
                "00000000:11:00.0", "pcie_gen", 5, "pcie_gen_max", 5,
                "pcie_width", 8, "pcie_width_max", 16));
  analyse(&r);
  const struct gcb_finding *f = the_one(&r, "degraded-link", 1);
  cr_expect_float_eq(f->expected / f->measured, 2, 1e-9, "x8 of x16");
  done(&r);
}

/* A pcie case at base GB/s (plus a little per rank), rank `rank` at
 * slow. */
static json_t *pcie_case(const char *dir, const char *extra, double base,
                         double slow, int rank) {
  double figs[NGPU];
  char params[160];
  for (int i = 0; i < NGPU; i++)
    figs[i] = i == rank ? slow : base * (1 + i * 0.001);
  snprintf(params, sizeof params,
           "{\"direction\": \"%s\", \"size\": 1073741824%s}", dir, extra);
  return fx_case("pcie", dir, params, "GB/s", figs, NGPU, 0.01, NULL);
}

Test(crafted, a_slow_copy_confirms_a_degraded_link_in_one_finding) {
  struct run r = node8();
  add_fact(&r, 1, "GPU1 link gen1 x16 under a gen5 x16 port");
  fx_add_case(r.doc, pcie_case("h2d", "", 52, 20, 1));
  analyse(&r);
  const struct gcb_finding *f = the_one(&r, "link-bandwidth", 1);
  cr_expect_eq(f->severity, GCB_SEV_FAIL, "20 of 63 GB/s is below half");
  cr_expect_float_eq(f->expected, 63.02, 1e-9);
  cr_expect(strstr(f->explanation, "the topology agrees") != NULL, "%s",
            f->explanation);
  done(&r);
}

Test(crafted, copies_slower_by_design_are_not_judged) {
  struct run r = node8();
  /* All well below the link's 63 GB/s, as such copies are. */
  fx_add_case(r.doc, pcie_case("h2d", ", \"memory\": \"pageable\"", 20, 0, -1));
  fx_add_case(r.doc, pcie_case("d2h", ", \"numa\": \"remote\"", 30, 0, -1));
  fx_add_case(r.doc, pcie_case("h2d", ", \"traffic\": \"bidir\"", 25, 0, -1));
  fx_add_case(r.doc, pcie_case("bidir", "", 90, 0, -1));
  json_t *small = pcie_case("h2d", "", 2, 0, -1); /* a small size of a sweep */
  json_object_set_new(json_object_get(small, "params"), "size",
                      json_integer(4096));
  fx_add_case(r.doc, small);
  fx_add_case(r.doc, pcie_case("h2d", "", 52, 0, -1));
  analyse(&r);
  cr_expect_eq(r.f.n, 0, "first: %s", r.f.n ? r.f.items[0].explanation : "");
  done(&r);
}

/* Every ordered pair of GPUs as a p2p case at `bw`, pair (2, 6) at slow;
 * `extra` is more params ("" or ", \"direction\": \"bidir\""). */
static void add_pairs_with(struct run *r, double bw, double slow, bool path,
                           const char *extra) {
  for (int a = 0; a < NGPU; a++)
    for (int b = 0; b < NGPU; b++) {
      if (a == b)
        continue;
      double fig = a == 2 && b == 6 ? slow : bw + (a + b) % 3;
      char params[128], label[32];
      snprintf(params, sizeof params, "{\"src\": %d, \"dst\": %d%s%s}", a, b,
               path ? ", \"path\": \"NV18\"" : "", extra);
      snprintf(label, sizeof label, "GPU%d->GPU%d", a, b);
      json_t *c = fx_case("p2p", label, params, "GB/s", &fig, 1, 0.01, NULL);
      json_object_set_new(json_array_get(json_object_get(c, "per_rank"), 0),
                          "rank", json_integer(a));
      fx_add_case(r->doc, c);
    }
}

static void add_pairs(struct run *r, double bw, double slow, bool path) {
  add_pairs_with(r, bw, slow, path, "");
}

Test(crafted, one_slow_gpu_pair_below_the_model) {
  struct run r = node8();
  add_pairs(&r, 380, 150, false);
  analyse(&r);
  const struct gcb_finding *f = the_one(&r, "p2p-bandwidth", 2);
  cr_expect_eq(f->severity, GCB_SEV_FAIL, "150 of 450 GB/s");
  cr_expect_str_eq(f->where.link, "0000:12:00.0->0000:16:00.0",
                   "one direction: A->B");
  cr_expect_float_eq(f->expected, 450, 1e-9);
  done(&r);
}

/* A figure of both directions at once is the one kind of pair whose link
 * is written with "<->"; it is held against twice the one-way rate. */
Test(crafted, a_bidirectional_pair_is_named_both_ways) {
  struct run r = node8();
  add_pairs_with(&r, 760, 300, false, ", \"direction\": \"bidir\"");
  analyse(&r);
  const struct gcb_finding *f = the_one(&r, "p2p-bandwidth", 2);
  cr_expect_str_eq(f->where.link, "0000:12:00.0<->0000:16:00.0");
  cr_expect_float_eq(f->expected, 900, 1e-9, "both directions of NV18");
  done(&r);
}

Test(crafted, one_slow_pair_below_its_class_without_a_model_has_no_bus_id) {
  struct run r = node8();
  json_object_del(json_array_get(json_object_get(r.doc, "nodes"), 0),
                  "topology");
  add_pairs(&r, 380, 300, true);
  analyse(&r);
  cr_assert_eq(r.f.n, 1, "%zu findings", r.f.n);
  const struct gcb_finding *f = &r.f.items[0];
  cr_expect_str_eq(f->kind->name, "p2p-bandwidth");
  cr_expect_eq(f->severity, GCB_SEV_WARN);
  cr_expect_eq(f->where.gpu, 2);
  cr_expect_str_eq(f->where.link, "GPU2->GPU6");
  /* no bus id is known: the field stays empty (it held "GPU2") */
  cr_expect_str_empty(f->where.bus_id, "%s", f->where.bus_id);
  cr_expect(strstr(f->explanation, "NV18") != NULL, "%s", f->explanation);
  done(&r);
}

Test(crafted, an_idle_gpu_is_named_by_its_bus_id) {
  struct run r = node8();
  fx_problem(topo0(&r), "idle-gpu", -1, -1, 7, "GPU 7: no rank");
  analyse(&r);
  cr_assert_eq(r.f.n, 1);
  cr_expect_str_eq(r.f.items[0].kind->name, "placement-idle-gpu");
  cr_expect_eq(r.f.items[0].where.gpu, 7);
  cr_expect_str_eq(r.f.items[0].where.bus_id, "0000:17:00.0");
  done(&r);
}

/* The topology's check said nothing about two ranks on one GPU: the older
 * rule, which would see it in ranks[], must not report it either. */
Test(crafted, the_topology_check_wins_over_the_older_rules) {
  struct run r = node8();
  json_t *dev = json_object_get(
      json_array_get(json_object_get(r.doc, "ranks"), 1), "device");
  json_object_set_new(dev, "bus_id", json_string("0000:10:00.0"));
  json_object_set_new(dev, "index", json_integer(0));
  fx_problem(topo0(&r), "shared-gpu", 1, 0, 0, "ranks 0 and 1 share GPU0");
  fx_problem(topo0(&r), "idle-gpu", -1, -1, 1, "GPU 1: no rank");
  analyse(&r);
  cr_assert_eq(r.f.n, 2, "%zu findings", r.f.n);
  cr_expect_str_eq(r.f.items[0].kind->name, "placement-shared-gpu");
  cr_expect_str_eq(r.f.items[0].where.ranks, "0-1");
  cr_expect_str_eq(r.f.items[0].where.bus_id, "0000:10:00.0");
  cr_expect_str_eq(r.f.items[1].kind->name, "placement-idle-gpu");
  done(&r);
}

Test(crafted, many_ranks_with_one_problem_are_one_finding_per_node) {
  struct run r = node8();
  for (int i = 4; i < NGPU; i++)
    fx_problem(topo0(&r), "remote-binding", i, -1, i, "remote");
  analyse(&r);
  cr_assert_eq(r.f.n, 1);
  cr_expect_str_eq(r.f.items[0].where.ranks, "4-7");
  cr_expect_eq(r.f.items[0].where.gpu, -1, "several GPUs");
  cr_expect_float_eq(r.f.items[0].measured, 4, 0);
  done(&r);
}

Test(crafted, a_slow_gpu_says_what_nvml_saw_throttling_it) {
  static const double figs[NGPU] = {700, 705, 698, 702, 699, 420, 701, 700};
  struct run r = {.doc = fx_doc(NGPU, 1, 64, "Test CPU")};
  fx_add_topology(r.doc, NGPU, 64);
  json_object_set_new(
      json_array_get(json_object_get(r.doc, "nodes"), 0), "gpus",
      json_pack("[{s:i, s:s, s:{s:i, s:s, s:b}}]", "ordinal", 5, "bus_id",
                "00000000:15:00.0", "throttle", "mask", 40, "reasons",
                "hw_slowdown,sw_thermal", "slowed", 1));
  fx_add_case(r.doc, fx_case("gemm", "bf16", "{\"dtype\": \"bf16\"}", "GFLOP/s",
                             figs, NGPU, 0.01, NULL));
  analyse(&r);
  const struct gcb_finding *f = the_one(&r, "slow-rank", 5);
  cr_expect(strstr(f->explanation,
                   "NVML throttle reasons: hw_slowdown,sw_thermal") != NULL,
            "%s", f->explanation);
  done(&r);
}

/* The run's check records a pile-up at its first rank (topo/binding.c:
 * "3 ranks are bound within CPUs 40-41 (1 core), starting with rank 2"): the
 * finding names every rank bound within those CPUs, not rank 2 alone. */
Test(crafted, a_pile_up_on_one_core_names_every_rank_in_it) {
  struct run r = node8();
  json_t *ranks = json_object_get(r.doc, "ranks");
  for (int i = 2; i <= 4; i += 2)
    json_object_set_new(json_array_get(ranks, (size_t)i), "cpu_binding",
                        json_string(i == 2 ? "40-41" : "41"));
  json_object_set_new(json_array_get(ranks, 3), "cpu_binding",
                      json_string("40-41"));
  fx_problem(topo0(&r), "oversubscribed", 2, -1, 2,
             "3 ranks are bound within CPUs 40-41 (1 core), starting with "
             "rank 2");
  analyse(&r);
  const struct gcb_finding *f = NULL;
  for (size_t i = 0; i < r.f.n; i++)
    if (strcmp(r.f.items[i].kind->name, "oversubscribed") == 0)
      f = &r.f.items[i];
  cr_assert_not_null(f);
  cr_expect_str_eq(f->where.ranks, "2-4");
  cr_expect_eq(f->measured, 3, "%g ranks", f->measured);
  done(&r);
}

/* A node whose run wrote no placement check: the binding kinds come from
 * each rank's binding, however many ranges it has (a rank bound to every
 * other CPU has one range per CPU). */
Test(crafted, a_binding_of_300_ranges_is_judged) {
  struct run r = node8();
  json_object_del(topo0(&r), "placement");
  char bind[2048];
  size_t used = 0;
  for (int i = 0; i < 300; i++) /* 32,34,...,630: off GPU3's 0-31 */
    used += (size_t)snprintf(bind + used, sizeof bind - used, "%s%d",
                             i ? "," : "", 32 + 2 * i);
  json_object_set_new(json_array_get(json_object_get(r.doc, "ranks"), 3),
                      "cpu_binding", json_string(bind));
  analyse(&r);
  const struct gcb_finding *f = NULL;
  for (size_t i = 0; i < r.f.n; i++)
    if (strcmp(r.f.items[i].kind->name, "placement-remote") == 0)
      f = &r.f.items[i];
  cr_assert_not_null(f, "rank 3's binding is judged");
  cr_expect_eq(f->where.rank, 3);
  cr_expect(strstr(f->explanation, "rank 3: its CPUs 32,34,") != NULL, "%s",
            f->explanation);
  /* the list is shown in part, said as such, and the sentence is whole */
  cr_expect(strstr(f->explanation, ",... (300 CPUs) are all outside GPU3's "
                                   "local CPUs 0-31") != NULL,
            "%s", f->explanation);
  cr_expect(strstr(f->explanation, f->kind->problem_cost) != NULL, "%s",
            f->explanation);
  done(&r);
}

/* Eight ranks recorded unbound on a one-NUMA node (each on every CPU,
 * all of them local to its GPU): they cannot be moved away from their
 * GPUs, but they share cores; one finding, worded so. A lone such rank is
 * no problem (the real H200 run: test_analyze.c). */
Test(crafted, unbound_ranks_of_a_one_numa_node_share_cores) {
  struct run r = node8();
  json_t *gpu, *rank;
  size_t i;
  json_array_foreach(json_object_get(topo0(&r), "gpus"), i, gpu) {
    json_object_set_new(gpu, "cpus", json_string("0-127"));
  }
  json_array_foreach(json_object_get(r.doc, "ranks"), i, rank) {
    json_object_set_new(rank, "cpu_binding", json_string("0-127"));
    char what[96];
    snprintf(what, sizeof what,
             "rank %zu: its CPUs 0-127 are the whole machine", i);
    fx_problem(topo0(&r), "unbound", (int)i, -1, (int)i, what);
  }
  analyse(&r);
  size_t n = 0;
  for (size_t k = 0; k < r.f.n; k++) {
    const struct gcb_finding *f = &r.f.items[k];
    if (strcmp(f->kind->name, "placement-unbound") != 0)
      continue;
    n++;
    cr_expect_str_eq(f->where.ranks, "0-7");
    cr_expect_not_null(strstr(f->explanation, "share cores"), "%s",
                       f->explanation);
    cr_expect_null(strstr(f->explanation, "away from its GPU"), "%s",
                   f->explanation);
  }
  cr_expect_eq(n, 1);
  done(&r);
}
