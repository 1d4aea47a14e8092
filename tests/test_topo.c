/* Topology loading and summaries on real captured hwloc XML files, and
 * binding strings (binding calls on XML return fake results, so lists are
 * injected as strings). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "topo/topo.h"

#define TOPO(name) GCB_TEST_DATA "/topo/" name

struct summary_case {
  const char *file;
  int packages, numa_nodes, cores, pus;
};

static const struct summary_case summary_cases[] = {
    {TOPO("hwloc-2socket-3gpu-ib.xml"), 2, 2, 12, 24},
    {TOPO("hwloc-nvidia-dgx2.xml"), 2, 2, 4, 4},
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), 2, 2, 8, 16},
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), 2, 2, 48, 96},
    {TOPO("mpibind-lassen-4xv100.xml"), 2, 2, 40, 160},
    {TOPO("mpibind-tioga-8xmi250x.xml"), 1, 4, 64, 128},
};

Test(topo, summaries_of_real_gpu_servers_match_hwloc_calc) {
  for (size_t i = 0; i < sizeof summary_cases / sizeof *summary_cases; i++) {
    const struct summary_case *c = &summary_cases[i];
    struct gcb_topo *t = NULL;
    struct gcb_err err = {0};
    cr_assert_eq(gcb_topo_load(c->file, &t, &err), GCB_OK, "%s: %s", c->file,
                 err.msg);
    cr_expect(gcb_topo_is_from_xml(t));
    struct gcb_topo_summary s;
    gcb_topo_summarize(t, &s);
    cr_expect_eq(s.packages, c->packages, "%s packages %d", c->file, s.packages);
    cr_expect_eq(s.numa_nodes, c->numa_nodes, "%s numa %d", c->file,
                 s.numa_nodes);
    cr_expect_eq(s.cores, c->cores, "%s cores %d", c->file, s.cores);
    cr_expect_eq(s.pus, c->pus, "%s pus %d", c->file, s.pus);
    cr_expect_gt(s.memory_bytes, 0);
    gcb_topo_free(t);
  }
}

Test(topo, last_level_cache_is_summed_over_packages) {
  struct gcb_topo *t = NULL;
  cr_assert_eq(gcb_topo_load(TOPO("hwloc-2socket-3gpu-ib.xml"), &t, NULL), GCB_OK);
  struct gcb_topo_summary s;
  gcb_topo_summarize(t, &s);
  cr_expect_eq(s.llc_bytes, (uint64_t)2 * 12 * 1024 * 1024, "llc %llu",
               (unsigned long long)s.llc_bytes);
  gcb_topo_free(t);
}

Test(topo, own_binding_is_refused_on_an_xml_topology) {
  struct gcb_topo *t = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_topo_load(TOPO("hwloc-nvidia-dgx2.xml"), &t, &err), GCB_OK);
  char list[64];
  int pus = -1;
  cr_expect_eq(gcb_topo_own_binding(t, list, sizeof list, &pus, &err),
               GCB_EUNSUPPORTED);
  gcb_topo_free(t);
}

Test(topo, own_binding_on_this_machine_is_within_its_pus) {
  struct gcb_topo *t = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_topo_load(NULL, &t, &err), GCB_OK, "%s", err.msg);
  struct gcb_topo_summary s;
  gcb_topo_summarize(t, &s);
  char list[256];
  int pus = 0;
  cr_assert_eq(gcb_topo_own_binding(t, list, sizeof list, &pus, &err), GCB_OK);
  cr_expect_gt(pus, 0);
  cr_expect_leq(pus, s.pus);
  cr_expect_gt(strlen(list), 0);
  gcb_topo_free(t);
}

struct whole_case {
  const char *list;
  enum gcb_status status;
  int whole;
};

static const struct whole_case whole_cases[] = {
    {"0-23", GCB_OK, 1},   {"0-47", GCB_OK, 1},  {"0-11", GCB_OK, 0},
    {"0,2,4", GCB_OK, 0},  {"garbage", GCB_EINPUT, 0},
};

Test(topo, binding_covering_every_pu_counts_as_unbound) {
  struct gcb_topo *t = NULL;
  cr_assert_eq(gcb_topo_load(TOPO("hwloc-2socket-3gpu-ib.xml"), &t, NULL), GCB_OK);
  for (size_t i = 0; i < sizeof whole_cases / sizeof *whole_cases; i++) {
    const struct whole_case *c = &whole_cases[i];
    struct gcb_err err = {0};
    int whole = -1;
    cr_expect_eq(gcb_topo_binding_is_whole(t, c->list, &whole, &err), c->status,
                 "'%s'", c->list);
    if (c->status == GCB_OK)
      cr_expect_eq(whole, c->whole, "'%s'", c->list);
    else
      cr_expect(strstr(err.msg, c->list) != NULL, "%s", err.msg);
  }
  gcb_topo_free(t);
}

Test(topo, unreadable_or_malformed_xml_names_the_file) {
  char path[] = "/tmp/gcb-topo-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  const char junk[] = "<?xml version=\"1.0\"?><topology><object type=";
  cr_assert_eq(write(fd, junk, sizeof junk - 1), (ssize_t)(sizeof junk - 1));
  close(fd);
  const char *files[] = {path, "/nonexistent/topo.xml"};
  for (size_t i = 0; i < 2; i++) {
    struct gcb_topo *t = (struct gcb_topo *)1;
    struct gcb_err err = {0};
    cr_expect_eq(gcb_topo_load(files[i], &t, &err), GCB_EINPUT, "%s", files[i]);
    cr_expect_null(t);
    cr_expect(strstr(err.msg, files[i]) != NULL, "%s", err.msg);
  }
  unlink(path);
}

Test(topo, hwloc_version_is_reported) {
  char v[32];
  gcb_topo_hwloc_version(v, sizeof v);
  cr_expect_eq(v[0], '2', "%s", v);
}
