/* The expected-bandwidth model (PCIe min over links, NVLink count x
 * per-link rate), its basis strings, and the suspicious facts of the six
 * real topologies, including what a virtual machine changes. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "topo/topo_int.h"

#define TOPO(name) GCB_TEST_DATA "/topo/" name
#define G(i) ((struct gcb_topo_ref){GCB_TOPO_GPU, (i)})
#define N(i) ((struct gcb_topo_ref){GCB_TOPO_NIC, (i)})
#define HOST ((struct gcb_topo_ref){GCB_TOPO_HOST, -1})

static struct gcb_topo *load(const char *file) {
  struct gcb_topo *t = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_topo_load(file, &t, &err), GCB_OK, "%s: %s", file, err.msg);
  return t;
}

Test(topo_bw, per_link_nvlink_rates_follow_the_specifications) {
  static const double links[] = {0, 20, 25, 25, 25, 50};
  for (int v = 0; v <= 5; v++)
    cr_expect_eq(gcb_topo_nvlink_gbps(v), links[v], "NVLink%d", v);
  cr_expect_eq(gcb_topo_nvlink_gbps(6), 0);
  /* H100: 18 links x 25 GB/s = 450 GB/s per direction */
  cr_expect_eq(18 * gcb_topo_nvlink_gbps(4), 450);
}

/* PCI ids from pci.ids (and 10de:2335, an H200's, as hwloc read it on an
 * H200 machine): GH100's ids lie between GA102's and GA103's, and an H200
 * once came out Ampere, with no NVLink and PCIe gen4 expected. */
Test(topo_bw, a_chips_pci_id_names_its_family) {
  static const struct {
    uint16_t device;
    const char *arch;
    int pcie_gen, nvlink_gen;
  } ids[] = {
      {0x2330, "Hopper", 5, 4}, /* H100 SXM5 */
      {0x2331, "Hopper", 5, 4}, /* H100 PCIe */
      {0x2335, "Hopper", 5, 4}, /* H200 */
      {0x2342, "Hopper", 5, 4}, /* GH200 */
      {0x20b0, "Ampere", 4, 3}, /* A100 SXM4 */
      {0x2236, "Ampere", 4, 0}, /* A10 (GA102) */
      {0x25b6, "Ampere", 4, 0}, /* A16 (GA107) */
      {0x26b9, "Ada", 4, 0},    /* L40S */
      {0x27b8, "Ada", 4, 0},    /* L4 */
      {0x1db4, "Volta", 3, 2},  /* V100 PCIe */
  };
  for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
    struct gcb__arch a;
    gcb__topo_arch(0x10de, ids[i].device, NULL, &a);
    cr_expect_str_eq(a.name, ids[i].arch, "10de:%04x", ids[i].device);
    cr_expect_eq(a.pcie_gen, ids[i].pcie_gen, "10de:%04x", ids[i].device);
    cr_expect_eq(a.nvlink_gen, ids[i].nvlink_gen, "10de:%04x", ids[i].device);
  }
  /* an id outside the table: the model name decides */
  struct gcb__arch a;
  gcb__topo_arch(0x10de, 0x2fff, "NVIDIA H200 NVL", &a);
  cr_expect_str_eq(a.name, "Hopper");
  gcb__topo_arch(0x10de, 0x2fff, "NVIDIA B200", &a);
  cr_expect_str_eq(a.name, "Blackwell");
  gcb__topo_arch(0x10de, 0x2fff, "NVIDIA A100-SXM4-80GB", &a);
  cr_expect_eq(a.nvlink_gen, 3);
}

struct expect_case {
  const char *file;
  struct gcb_topo_ref a, b;
  double gbps;       /* 0: unknown */
  const char *basis; /* substring */
};

static const struct expect_case expect_cases[] = {
    {TOPO("hwloc-nvidia-dgx2.xml"), G(0), HOST, 15.75, "PCIe gen3 x16"},
    {TOPO("hwloc-nvidia-dgx2.xml"), G(0), G(9), 150, "NV6 x 25 GB/s (NVLink2)"},
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), G(0), HOST, 40,
     "NVLink to CPU: 2 x 20 GB/s (NVLink1)"},
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), G(0), G(1), 40, "NV2 x 20"},
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), G(1), G(2), 15.75, "via SYS"},
    /* the PLX uplink (gen3 x4) limits Lassen's GPUs */
    {TOPO("mpibind-lassen-4xv100.xml"), G(0), HOST, 3.94,
     "gen3 x4 (3.94 GB/s), slowest of 2 links (at 0004:01:00.0)"},
    {TOPO("mpibind-lassen-4xv100.xml"), G(0), G(1), 15.75, "via PIX"},
    {TOPO("mpibind-lassen-4xv100.xml"), G(0), G(2), 3.94, "via SYS"},
    /* the T4's gen3 x16 wins over its idle root port's gen1 reading */
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), G(0), HOST, 15.75, "gen3 x16"},
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), G(4), N(0), 15.75, "via NODE"},
    {TOPO("mpibind-tioga-8xmi250x.xml"), G(0), HOST, 31.51, "gen4 x16"},
    {TOPO("mpibind-tioga-8xmi250x.xml"), G(1), N(1), 31.51, "via PHB"},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), G(0), HOST, 4.0, "PCIe 4.00 GB/s"},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), G(0), N(2), 2.0, "via PHB"},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), G(0), G(0), 0, "same device"},
};

Test(topo_bw, expected_bandwidth_and_its_basis_per_pair_and_host_link) {
  for (size_t i = 0; i < sizeof expect_cases / sizeof *expect_cases; i++) {
    const struct expect_case *c = &expect_cases[i];
    struct gcb_topo *t = load(c->file);
    double gbps = -1;
    char basis[256];
    cr_assert_eq(
        gcb_topo_expected_gbps(t, c->a, c->b, &gbps, basis, sizeof basis, NULL),
        GCB_OK);
    cr_expect(fabs(gbps - c->gbps) < 0.01, "%s case %zu: %.3f (%s)", c->file, i,
              gbps, basis);
    cr_expect(strstr(basis, c->basis) != NULL, "%s case %zu: %s", c->file, i,
              basis);
    gcb_topo_free(t);
  }
}

Test(topo_bw, bad_references_and_a_null_basis_are_handled) {
  struct gcb_topo *t = load(TOPO("hwloc-nvidia-dgx2.xml"));
  double gbps = -1;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_topo_expected_gbps(t, G(16), HOST, &gbps, NULL, 0, &err),
               GCB_EINPUT);
  cr_expect_eq(gcb_topo_expected_gbps(t, HOST, G(0), &gbps, NULL, 0, &err),
               GCB_EINPUT);
  cr_expect_eq(gcb_topo_expected_gbps(t, G(0), N(0), &gbps, NULL, 0, &err),
               GCB_EINPUT);
  cr_expect_eq(gcb_topo_expected_gbps(t, G(0), G(1), &gbps, NULL, 0, &err),
               GCB_OK);
  cr_expect_eq(gbps, 150);
  gcb_topo_free(t);
}

/* NVLinks between two GPUs where the file records none (white box:
 * topo_int.h), and the facts made again. */
static void set_nvlinks(struct gcb_topo *t, int a, int b, int links) {
  t->nvpair[a * t->ngpus + b] = t->nvpair[b * t->ngpus + a] = links;
  cr_assert_eq(gcb__topo_facts(t, NULL), GCB_OK);
}

Test(topo_bw, unknown_nvlink_rates_give_unknown_not_zero_links) {
  /* Lassen's V100s get NVLinks from NVML; the rate is known (NVLink2) */
  struct gcb_topo *t = load(TOPO("mpibind-lassen-4xv100.xml"));
  double gbps;
  char basis[256];
  set_nvlinks(t, 0, 1, 3);
  cr_assert_eq(
      gcb_topo_expected_gbps(t, G(0), G(1), &gbps, basis, sizeof basis, NULL),
      GCB_OK);
  cr_expect_eq(gbps, 75, "%s", basis);
  gcb_topo_free(t);
  /* the 2-socket Fermi machine has no NVLink rate: unknown, with a reason */
  t = load(TOPO("hwloc-2socket-3gpu-ib.xml"));
  set_nvlinks(t, 1, 2, 2);
  cr_assert_eq(
      gcb_topo_expected_gbps(t, G(1), G(2), &gbps, basis, sizeof basis, NULL),
      GCB_OK);
  cr_expect_eq(gbps, 0);
  cr_expect(strstr(basis, "per-link rate unknown") != NULL, "%s", basis);
  gcb_topo_free(t);
}

/* --- facts ---------------------------------------------------------------- */

struct facts_case {
  const char *file;
  int mismatch, uneven, no_nic_near, no_nic, no_switch, virtual;
};

static const struct facts_case facts_cases[] = {
    /* trimmed capture: no NIC at all */
    {TOPO("hwloc-nvidia-dgx2.xml"), 0, 0, 0, 1, 0, 0},
    /* root ports report gen3 x8, the P100s gen3 x16; GPUs on root ports */
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), 4, 0, 0, 1, 1, 0},
    /* 1 GbE NICs' odd readings are not reported: they carry no GPU data */
    {TOPO("hwloc-2socket-3gpu-ib.xml"), 0, 0, 0, 0, 1, 0},
    /* idle T4s: root ports read gen1 x8 while the GPUs read gen3 x16 */
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), 8, 0, 0, 0, 0, 0},
    /* PLX ports read gen3 x2 under gen3 x16 GPUs; no HCA under the PLX */
    {TOPO("mpibind-lassen-4xv100.xml"), 4, 0, 1, 0, 0, 0},
    {TOPO("mpibind-tioga-8xmi250x.xml"), 0, 0, 0, 0, 0, 0},
};

static void count_facts(const struct gcb_topo *t, int counts[6]) {
  memset(counts, 0, 6 * sizeof *counts);
  for (int i = 0; i < gcb_topo_fact_count(t); i++) {
    const struct gcb_topo_fact *f = gcb_topo_fact(t, i);
    cr_assert((unsigned)f->kind < 6);
    cr_expect_gt(strlen(f->text), 20);
    counts[f->kind]++;
  }
}

Test(topo_bw, suspicious_facts_of_each_machine_are_reported) {
  for (size_t i = 0; i < sizeof facts_cases / sizeof *facts_cases; i++) {
    const struct facts_case *c = &facts_cases[i];
    struct gcb_topo *t = load(c->file);
    int n[6];
    count_facts(t, n);
    cr_expect_eq(n[GCB_TOPO_FACT_LINK_MISMATCH], c->mismatch, "%s: %d", c->file,
                 n[GCB_TOPO_FACT_LINK_MISMATCH]);
    cr_expect_eq(n[GCB_TOPO_FACT_NVLINK_UNEVEN], c->uneven, "%s", c->file);
    cr_expect_eq(n[GCB_TOPO_FACT_NO_NIC_NEAR_GPU], c->no_nic_near, "%s",
                 c->file);
    cr_expect_eq(n[GCB_TOPO_FACT_NO_NIC], c->no_nic, "%s", c->file);
    cr_expect_eq(n[GCB_TOPO_FACT_NO_SWITCH], c->no_switch, "%s", c->file);
    cr_expect_eq(n[GCB_TOPO_FACT_VIRTUAL], c->virtual, "%s", c->file);
    gcb_topo_free(t);
  }
}

Test(topo_bw, a_downtrained_link_fact_names_both_ends_and_says_confirm) {
  struct gcb_topo *t = load(TOPO("mpibind-aws-g4dn-metal-8xt4.xml"));
  const struct gcb_topo_fact *f = gcb_topo_fact(t, 0);
  cr_assert_not_null(f);
  cr_expect_eq(f->kind, GCB_TOPO_FACT_LINK_MISMATCH);
  cr_expect_eq(f->gpu, 0);
  cr_expect(strstr(f->text, "0000:18:00.0") &&
                strstr(f->text, "0000:17:00.0") &&
                strstr(f->text, "gen1 x8 or gen2 x4") &&
                strstr(f->text, "under load"),
            "%s", f->text);
  cr_expect_str_eq(gcb_topo_fact_name(f->kind), "link-mismatch");
  gcb_topo_free(t);
}

Test(topo_bw, gpus_with_different_nvlink_counts_are_reported) {
  struct gcb_topo *t = load(TOPO("hwloc-nvidia-dgx2.xml"));
  int n[6];
  t->gpus[5].nvlinks = 4; /* white box: one GPU with fewer links */
  cr_assert_eq(gcb__topo_facts(t, NULL), GCB_OK);
  count_facts(t, n);
  cr_expect_eq(n[GCB_TOPO_FACT_NVLINK_UNEVEN], 1);
  for (int i = 0; i < gcb_topo_fact_count(t); i++)
    if (gcb_topo_fact(t, i)->kind == GCB_TOPO_FACT_NVLINK_UNEVEN)
      cr_expect(strstr(gcb_topo_fact(t, i)->text,
                       "6 on GPU 0-4,6-15, 4 on GPU 5") != NULL,
                "%s", gcb_topo_fact(t, i)->text);
  gcb_topo_free(t);
}

Test(topo_bw, a_virtual_machine_leaves_p2p_and_switch_sharing_unjudged) {
  struct gcb_topo *t = load(TOPO("mpibind-lassen-4xv100.xml"));
  struct gcb_topo_vm vm;
  gcb_topo_vm_classify("flags : fpu hypervisor\n", "QEMU", "Standard PC", &vm);
  t->vm = vm; /* white box: the machine as a guest */
  cr_assert_eq(gcb__topo_facts(t, NULL), GCB_OK);
  int n[6];
  count_facts(t, n);
  cr_expect_eq(n[GCB_TOPO_FACT_VIRTUAL], 1);
  cr_expect_eq(n[GCB_TOPO_FACT_NO_NIC_NEAR_GPU], 0);
  double gbps = -1;
  char basis[256];
  cr_assert_eq(
      gcb_topo_expected_gbps(t, G(0), G(1), &gbps, basis, sizeof basis, NULL),
      GCB_OK);
  cr_expect_eq(gbps, 0);
  cr_expect(strstr(basis, "virtual machine") != NULL, "%s", basis);
  /* host link: only the device's own link, not the virtual ports */
  cr_assert_eq(
      gcb_topo_expected_gbps(t, G(0), HOST, &gbps, basis, sizeof basis, NULL),
      GCB_OK);
  cr_expect(fabs(gbps - 15.75) < 0.01, "%.2f %s", gbps, basis);
  cr_expect(strstr(basis, "virtual machine") != NULL, "%s", basis);
  gcb_topo_free(t);
}
