/* The topology summary as JSON (reports/document/section_topology.c) on the six real
 * topologies, and the `gcbench topo` command (bench/topo_command.c) run
 * in-process with its output captured: matrix, legend, facts, binding
 * problems, JSON format and exit codes. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/cli/topo_command.h"
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

Test(topo_json, every_machine_has_a_complete_summary) {
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    struct gcb_topo *t = load(files[i]);
    json_t *j = gcb_results_topology_json(t);
    cr_assert_not_null(j, "%s", files[i]);
    int ngpus = gcb_topo_gpu_count(t), n = ngpus + gcb_topo_nic_count(t);
    cr_expect_eq((int)json_array_size(json_object_get(j, "gpus")), ngpus);
    cr_expect_eq((int)json_array_size(json_object_get(j, "nics")),
                 gcb_topo_nic_count(t));
    cr_expect_eq((int)json_array_size(json_object_get(j, "numa_nodes")),
                 gcb_topo_numa_count(t));
    cr_expect_eq((int)json_array_size(json_object_get(j, "facts")),
                 gcb_topo_fact_count(t));
    json_t *paths = json_object_get(j, "paths");
    cr_expect_eq((int)json_array_size(json_object_get(paths, "matrix")), n);
    cr_expect_eq((int)json_array_size(json_object_get(paths, "expected_gbps")),
                 n);
    for (int g = 0; g < ngpus; g++) {
      json_t *gpu = json_array_get(json_object_get(j, "gpus"), (size_t)g);
      cr_expect(json_is_string(json_object_get(gpu, "busid")));
      cr_expect_gt(json_array_size(json_object_get(gpu, "pcie_path")), 0);
      cr_expect(json_is_object(json_object_get(gpu, "host_link")));
    }
    json_decref(j);
    gcb_topo_free(t);
  }
}

Test(topo_json, dgx2_summary_holds_nvlink_and_pcie_classes) {
  struct gcb_topo *t = load(TOPO("hwloc-nvidia-dgx2.xml"));
  json_t *j = gcb_results_topology_json(t);
  json_t *paths = json_object_get(j, "paths");
  json_t *m = json_object_get(paths, "matrix");
  json_t *p = json_object_get(paths, "pcie");
  cr_expect_str_eq(json_string_value(json_array_get(json_array_get(m, 0), 1)),
                   "NV6");
  cr_expect_str_eq(json_string_value(json_array_get(json_array_get(p, 0), 1)),
                   "PIX");
  cr_expect_str_eq(json_string_value(json_array_get(json_array_get(p, 0), 8)),
                   "SYS");
  json_t *g8 = json_array_get(json_object_get(j, "gpus"), 8);
  cr_expect_eq(json_integer_value(json_object_get(g8, "numa")), 1);
  cr_expect_eq(json_integer_value(json_object_get(g8, "nvlinks")), 6);
  cr_expect_str_eq(json_string_value(json_object_get(g8, "pci_id")),
                   "10de:1db8");
  json_t *hop = json_array_get(json_object_get(g8, "pcie_path"), 0);
  cr_expect_eq(json_integer_value(json_object_get(hop, "gen")), 3);
  cr_expect_eq(json_integer_value(json_object_get(hop, "width")), 16);
  cr_expect(json_is_null(
      json_object_get(json_object_get(g8, "nearest_nic"), "class")));
  json_decref(j);
  gcb_topo_free(t);
}

/* Runs the command with stdout to a file; returns its exit code and the
 * output (malloc'ed, caller frees). */
static int run_topo(int argc, char **argv, char **out) {
  char path[] = "/tmp/gcb-topo-out-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  dup2(fd, STDOUT_FILENO);
  int code = gcb__topo_command(argc, argv, 0);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  off_t len = lseek(fd, 0, SEEK_END);
  *out = calloc(1, (size_t)len + 1);
  cr_assert_eq(pread(fd, *out, (size_t)len, 0), (ssize_t)len);
  close(fd);
  unlink(path);
  return code;
}

Test(topo_json, dgx2_text_shows_gpus_numa_pcie_nvlink_and_missing_nics) {
  char *argv[] = {"topo", "--topology-xml", TOPO("hwloc-nvidia-dgx2.xml"),
                  NULL};
  char *out = NULL;
  cr_expect_eq(run_topo(3, argv, &out), 0);
  static const char *const want[] = {
      "GPU15",
      "NUMA Affinity",
      "NV6",
      " PIX ",
      " PXB ",
      " NODE ",
      " SYS ",
      "NV#  =",
      "0000:e7:00.0",
      "24-25          1",
      "NICs: none",
      "[no-nic]",
      "PCIe switches: 14",
  };
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    cr_expect(strstr(out, want[i]) != NULL, "missing '%s' in:\n%s", want[i],
              out);
  free(out);
}

Test(topo_json, binding_problems_print_fixes_and_exit_1) {
  char *argv[] = {
      "topo",     "--topology-xml", TOPO("hwloc-2socket-3gpu-ib.xml"),
      "--cpuset", "1,3@0;0-23@1",   NULL};
  char *out = NULL;
  cr_expect_eq(run_topo(5, argv, &out), 1);
  cr_expect(strstr(out, "[remote-binding] rank 0") != NULL, "%s", out);
  cr_expect(strstr(out, "[unbound] rank 1") != NULL, "%s", out);
  cr_expect(strstr(out, "mpiexec -bind-to user:") != NULL, "%s", out);
  free(out);
}

Test(topo_json, json_format_is_one_parsable_document) {
  char *argv[] = {"topo",
                  "--topology-xml",
                  TOPO("mpibind-lassen-4xv100.xml"),
                  "--format",
                  "json",
                  "--cpuset",
                  "8-15;96-103",
                  NULL};
  char *out = NULL;
  cr_expect_eq(run_topo(7, argv, &out), 1); /* GPUs 2-3 idle */
  json_error_t e;
  json_t *j = json_loads(out, 0, &e);
  cr_assert_not_null(j, "%s: %s", e.text, out);
  cr_expect_eq(json_array_size(json_object_get(j, "gpus")), 4);
  cr_expect_eq(json_array_size(json_object_get(j, "binding_problems")), 2);
  json_decref(j);
  free(out);
}

struct usage_case {
  int argc;
  char *argv[6];
  int code;
};

static struct usage_case usage_cases[] = {
    {2, {"topo", "--bogus"}, 2},
    {3, {"topo", "--format", "xml"}, 2},
    {3, {"topo", "--topology-xml", "/nonexistent.xml"}, 2},
    {5,
     {"topo", "--topology-xml", TOPO("hwloc-2socket-3gpu-ib.xml"), "--cpuset",
      "0@x"},
     2},
    {5,
     {"topo", "--topology-xml", TOPO("hwloc-2socket-3gpu-ib.xml"), "--cpuset",
      "0@7"},
     2},
    {2, {"topo", "--help"}, 0},
};

Test(topo_json, bad_usage_and_input_exit_2) {
  for (size_t i = 0; i < sizeof usage_cases / sizeof *usage_cases; i++) {
    char *out = NULL;
    cr_expect_eq(run_topo(usage_cases[i].argc, usage_cases[i].argv, &out),
                 usage_cases[i].code, "case %zu", i);
    free(out);
  }
}

Test(topo_json, other_ranks_print_nothing) {
  char *argv[] = {"topo", "--topology-xml", TOPO("hwloc-nvidia-dgx2.xml"),
                  NULL};
  char path[] = "/tmp/gcb-topo-r1-XXXXXX";
  int fd = mkstemp(path);
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  dup2(fd, STDOUT_FILENO);
  cr_expect_eq(gcb__topo_command(3, argv, 1), 0);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  cr_expect_eq(lseek(fd, 0, SEEK_END), 0);
  close(fd);
  unlink(path);
}

Test(topo_json, this_machine_is_shown_too) {
  char *argv[] = {"topo", NULL};
  char *out = NULL;
  cr_expect_eq(run_topo(1, argv, &out), 0);
  cr_expect(strstr(out, "Topology: this machine") != NULL, "%s", out);
  cr_expect(strstr(out, "This process: bound to CPUs") != NULL, "%s", out);
  free(out);
}
