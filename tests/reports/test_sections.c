/* The results document's header sections (reports/document/section_*.c):
 * the header set from gathered identities and node snapshots on the six
 * real topologies of tests/data/topo (sources in tests/data/README.md),
 * written and read back, and the topology and GPU sections validated on
 * reading like the rest, with the located message of a bad member. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/reports.h"
#include "topo/topo.h"

#define TOPO(name) GCB_TEST_DATA "/topo/" name

static const char *const files[] = {
    TOPO("hwloc-nvidia-dgx2.xml"),     TOPO("hwloc-power8-4xp100-nvlink.xml"),
    TOPO("hwloc-2socket-3gpu-ib.xml"), TOPO("mpibind-aws-g4dn-metal-8xt4.xml"),
    TOPO("mpibind-lassen-4xv100.xml"), TOPO("mpibind-tioga-8xmi250x.xml"),
};

static struct gcb_topo *load(const char *file) {
  struct gcb_topo *t = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_topo_load(file, &t, &err), GCB_OK, "%s: %s", file, err.msg);
  return t;
}

/* One GPU as NVML saw it, some values unknown. */
static struct gcb_health health(int ordinal) {
  struct gcb_health h = {.ordinal = ordinal,
                         .cc_major = 9,
                         .sm_count = 132,
                         .memory_bytes = 141ull << 30,
                         .l2_bytes = -1,
                         .nvml = true,
                         .sm_clock_mhz = 1980,
                         .sm_clock_max_mhz = 1980,
                         .mem_clock_mhz = -1,
                         .mem_clock_max_mhz = -1,
                         .pcie_gen = 5,
                         .pcie_gen_max = 5,
                         .pcie_width = 8,
                         .pcie_width_max = 16,
                         .nvlinks = 18,
                         .nvlinks_active = 18,
                         .ecc_enabled = -1,
                         .ecc_corrected = 0,
                         .ecc_uncorrected = -1,
                         .temp_c = 41,
                         .power_w = 120.5,
                         .power_limit_w = NAN,
                         .throttle_reasons = 0x40,
                         .throttle_known = true};
  snprintf(h.name, sizeof h.name, "NVIDIA H200");
  snprintf(h.bus_id, sizeof h.bus_id, "00000000:%02x:00.0", 0x10 + ordinal);
  return h;
}

/* A two-rank, one-node run on topology t, its header set as rank 0 sets
 * it. */
static struct gcb_results *header_doc(const struct gcb_topo *t) {
  struct gcb_identity ids[2] = {0};
  for (int r = 0; r < 2; r++) {
    ids[r] = (struct gcb_identity){.rank = r,
                                   .local_rank = r,
                                   .pid = 100 + r,
                                   .bound_pus = 4,
                                   .cpu_threads = 4};
    snprintf(ids[r].hostname, sizeof ids[r].hostname, "node0");
    snprintf(ids[r].cpu_binding, sizeof ids[r].cpu_binding, "0-3");
    ids[r].device.index = r;
    snprintf(ids[r].device.name, sizeof ids[r].device.name, "NVIDIA H200");
    ids[r].machine.cores = 8;
  }
  struct gcb_health gpus[2] = {health(0), health(1)};
  struct gcb_topo_problem problem = {
      .kind = 0, .rank = 1, .other_rank = -1, .gpu = 1};
  snprintf(problem.what, sizeof problem.what, "rank 1 off its GPU's NUMA node");
  snprintf(problem.fix, sizeof problem.fix, "numactl --cpunodebind=1");
  char *snap = gcb_results_node_snapshot(t, gpus, 2, &problem, 1);
  cr_assert_not_null(snap);
  char *argv[] = {"gcbench", "coll", "bad\xff"};
  struct gcb_run_info run = {.command = "coll",
                             .argc = 3,
                             .argv = argv,
                             .run_id = "20261201-000000-1",
                             .backend = "cuda",
                             .backend_reason = "test",
                             .ranks = 2,
                             .nodes = 1,
                             .mpi = "MPICH",
                             .hwloc = "2.9.0",
                             .backend_versions = "CUDA 12.8"};
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  const char *const snaps[] = {snap};
  cr_assert_eq(gcb_results_set_header(r, &run, ids, snaps, 1, &err), GCB_OK,
               "%s", err.msg);
  free(snap);
  return r;
}

/* Dumps the document and parses it back as a file would be. */
static enum gcb_status reread(const struct gcb_results *r,
                              struct gcb_results **out, struct gcb_err *err) {
  char *text = json_dumps(gcb_results_json(r), JSON_INDENT(1));
  enum gcb_status st =
      gcb_results_parse(text, strlen(text), "doc.json", out, err);
  free(text);
  return st;
}

Test(sections, header_on_every_real_machine_reads_back) {
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    struct gcb_topo *t = load(files[i]);
    struct gcb_results *r = header_doc(t), *back = NULL;
    struct gcb_err err = {0};
    cr_assert_eq(reread(r, &back, &err), GCB_OK, "%s: %s", files[i], err.msg);
    json_t *root = gcb_results_json(back);
    json_t *node = json_array_get(json_object_get(root, "nodes"), 0);
    json_t *topo = json_object_get(node, "topology");
    cr_expect_eq((int)json_array_size(json_object_get(topo, "gpus")),
                 gcb_topo_gpu_count(t), "%s", files[i]);
    cr_expect_eq(json_array_size(json_object_get(topo, "placement")), 1);
    cr_expect_null(json_object_get(topo, "gpu_health"),
                   "health moves from the snapshot to nodes[].gpus");
    json_t *gpu = json_array_get(json_object_get(node, "gpus"), 1);
    cr_expect_str_eq(json_string_value(json_object_get(gpu, "bus_id")),
                     "00000000:11:00.0");
    cr_expect(json_is_null(json_object_get(gpu, "power_limit_w")));
    cr_expect_str_eq(json_string_value(json_object_get(
                         json_object_get(gpu, "throttle"), "reasons")),
                     "hw_thermal");
    json_t *run = json_object_get(root, "run");
    cr_expect_str_eq(json_string_value(json_object_get(run, "status")),
                     "running");
    cr_expect_str_eq(json_string_value(json_array_get(
                         json_object_get(run, "command_line"), 2)),
                     "bad\xef\xbf\xbd");
    cr_expect_str_eq(json_string_value(json_object_get(
                         json_object_get(root, "software"), "cuda")),
                     "CUDA 12.8");
    cr_expect_eq(json_array_size(json_object_get(root, "ranks")), 2);
    cr_expect_eq(gcb_results_finish_run(back, "complete", &err), GCB_OK);
    cr_expect_str_eq(json_string_value(json_object_get(
                         json_object_get(root, "run"), "status")),
                     "complete");
    gcb_results_free(back);
    gcb_results_free(r);
    gcb_topo_free(t);
  }
}

/* Sets the member `key` of the object at path to v, rereads, expects the
 * located message. */
static void expect_refused(json_t *holder, const char *key, json_t *v,
                           struct gcb_results *r, const char *want) {
  json_object_set_new(holder, key, v);
  struct gcb_results *back = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(reread(r, &back, &err), GCB_EINPUT, "accepted: %s", want);
  cr_expect_null(back);
  cr_expect(strstr(err.msg, want) != NULL, "got: %s\nwanted: %s", err.msg,
            want);
  cr_expect(strncmp(err.msg, "doc.json:", 9) == 0, "located: %s", err.msg);
}

Test(sections, a_bad_topology_member_is_located) {
  struct gcb_topo *t = load(files[0]);
  struct gcb_results *r = header_doc(t);
  json_t *node =
      json_array_get(json_object_get(gcb_results_json(r), "nodes"), 0);
  json_t *gpu = json_array_get(
      json_object_get(json_object_get(node, "topology"), "gpus"), 3);
  expect_refused(gpu, "numa", json_string("zero"), r,
                 "nodes[0].topology.gpus[3].numa: expected an integer or "
                 "null, got string");
  json_object_del(gpu, "numa");
  expect_refused(gpu, "pcie_path", json_pack("[{s:i}]", "busid", 7), r,
                 "nodes[0].topology.gpus[3].pcie_path[0].busid: expected a "
                 "string, got integer");
  json_object_del(gpu, "pcie_path");
  expect_refused(json_object_get(node, "topology"), "source",
                 json_string("guess"), r,
                 "nodes[0].topology.source: expected one of live, xml");
  gcb_results_free(r);
  gcb_topo_free(t);
}

Test(sections, a_hostname_longer_than_any_host_has_is_refused_located) {
  struct gcb_topo *t = load(files[0]);
  struct gcb_results *r = header_doc(t);
  json_t *root = gcb_results_json(r);
  char host[GCB_HOSTNAME_SIZE + 1];
  memset(host, 'h', sizeof host - 1);
  host[sizeof host - 1] = '\0';
  expect_refused(json_array_get(json_object_get(root, "nodes"), 0), "hostname",
                 json_string(host), r,
                 "nodes[0].hostname: a hostname of 256 bytes (at most 255");
  json_object_set_new(json_array_get(json_object_get(root, "nodes"), 0),
                      "hostname", json_string(host + 1));
  expect_refused(json_array_get(json_object_get(root, "ranks"), 0), "hostname",
                 json_string(host), r,
                 "ranks[0].hostname: a hostname of 256 bytes");
  json_object_set_new(json_array_get(json_object_get(root, "ranks"), 0),
                      "hostname", json_string(host + 1));
  struct gcb_results *back = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(reread(r, &back, &err), GCB_OK, "255 bytes read: %s", err.msg);
  gcb_results_free(back);
  gcb_results_free(r);
  gcb_topo_free(t);
}

Test(sections, a_bad_gpu_health_member_is_located) {
  struct gcb_topo *t = load(files[0]);
  struct gcb_results *r = header_doc(t);
  json_t *node =
      json_array_get(json_object_get(gcb_results_json(r), "nodes"), 0);
  json_t *gpu = json_array_get(json_object_get(node, "gpus"), 0);
  expect_refused(gpu, "pcie_width", json_real(8.5), r,
                 "nodes[0].gpus[0].pcie_width: expected an integer or null, "
                 "got real");
  json_object_del(gpu, "pcie_width");
  json_object_del(gpu, "bus_id");
  struct gcb_results *back = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(reread(r, &back, &err), GCB_EINPUT);
  cr_expect(strstr(err.msg, "nodes[0].gpus[0]: missing required field "
                            "'bus_id'") != NULL,
            "%s", err.msg);
  gcb_results_free(r);
  gcb_topo_free(t);
}

/* What the writer refuses to write: a section off schema never reaches a
 * file. */
Test(sections, a_node_off_schema_is_refused_when_set) {
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  json_t *nodes = json_pack(
      "[{s:i, s:s, s:[], s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:[{s:s}]}]",
      "index", 0, "hostname", "n", "ranks", "cores", 1, "pus", 1, "packages", 1,
      "numa_nodes", 1, "llc_bytes", 0, "memory_bytes", 0, "cpu_model", "",
      "gpus", "bus_id", "x");
  cr_expect_eq(gcb_results_set(r, "nodes", nodes, &err), GCB_EINTERNAL);
  cr_expect(strstr(err.msg, "nodes[0].gpus[0]: missing required field "
                            "'ordinal'") != NULL,
            "%s", err.msg);
  gcb_results_free(r);
}

/* files[2] with every pci_link_speed set to `speed`, as a file. */
static const char *speeds_file(const char *speed) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/gcb-speeds-XXXXXX");
  FILE *in = fopen(files[2], "r");
  int fd = mkstemp(path);
  FILE *out = fdopen(fd, "w");
  cr_assert(in != NULL && out != NULL);
  static const char key[] = "pci_link_speed=\"";
  char line[4096];
  while (fgets(line, sizeof line, in) != NULL) {
    char *at = strstr(line, key);
    if (at == NULL) {
      fputs(line, out);
      continue;
    }
    at += sizeof key - 1;
    fprintf(out, "%.*s%s%s", (int)(at - line), line, speed, strchr(at, '"'));
  }
  fclose(in);
  fclose(out);
  return path;
}

/* hwloc reads a link speed with atof: an XML topology can hold "inf" (or
 * a speed past float's range) and "nan". A rate that is not a finite
 * number is written as unknown (null), not taken for out of memory. */
Test(sections, a_link_speed_that_is_not_a_number_is_unknown) {
  static const char *const speeds[] = {"inf", "1e39", "nan"};
  for (size_t i = 0; i < sizeof speeds / sizeof *speeds; i++) {
    const char *path = speeds_file(speeds[i]);
    struct gcb_topo *t = load(path);
    json_t *topo = gcb_results_topology_json(t);
    cr_assert_not_null(topo, "speed %s: not out of memory", speeds[i]);
    json_t *gpu = json_array_get(json_object_get(topo, "gpus"), 0);
    cr_expect(json_is_null(json_object_get(gpu, "link_gbps")), "%s", speeds[i]);
    cr_expect(json_is_null(json_object_get(json_object_get(gpu, "host_link"),
                                           "expected_gbps")),
              "%s", speeds[i]);
    json_t *rows =
        json_object_get(json_object_get(topo, "paths"), "expected_gbps");
    cr_expect(json_is_null(json_array_get(json_array_get(rows, 0), 1)), "%s",
              speeds[i]);
    json_decref(topo);
    gcb_topo_free(t);
    unlink(path);
  }
}
