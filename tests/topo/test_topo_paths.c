/* Path classes (nvidia-smi topo -m legend) between GPUs and NICs of the six
 * real topologies, NVLink counts from the files' NVLinkBandwidth matrices
 * and from the setters, and the nearest NICs of each GPU. Expected classes
 * follow from each pair's common ancestor in lstopo's tree: same switch =
 * PIX, deeper bridge = PXB, host bridge = PHB, same NUMA node = NODE,
 * else SYS. */
#include <criterion/criterion.h>
#include <string.h>

#include "topo/topo_int.h"

#define TOPO(name) GCB_TEST_DATA "/topo/" name
#define G(i) ((struct gcb_topo_ref){GCB_TOPO_GPU, (i)})
#define N(i) ((struct gcb_topo_ref){GCB_TOPO_NIC, (i)})

static struct gcb_topo *load(const char *file) {
  struct gcb_topo *t = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_topo_load(file, &t, &err), GCB_OK, "%s: %s", file, err.msg);
  return t;
}

struct pair_case {
  const char *file;
  struct gcb_topo_ref a, b;
  const char *label;        /* the matrix cell */
  enum gcb_topo_class pcie; /* the PCIe class beneath */
};

static const struct pair_case pair_cases[] = {
    /* DGX-2: every GPU pair has NV6 over the NVSwitches; beneath it, pairs
     * share a PLX switch (PIX), four share a host-bridge cascade (PXB),
     * eight a socket (NODE), the two halves cross UPI (SYS). */
    {TOPO("hwloc-nvidia-dgx2.xml"), G(0), G(0), "X", GCB_TOPO_X},
    {TOPO("hwloc-nvidia-dgx2.xml"), G(0), G(1), "NV6", GCB_TOPO_PIX},
    {TOPO("hwloc-nvidia-dgx2.xml"), G(0), G(2), "NV6", GCB_TOPO_PXB},
    {TOPO("hwloc-nvidia-dgx2.xml"), G(1), G(3), "NV6", GCB_TOPO_PXB},
    {TOPO("hwloc-nvidia-dgx2.xml"), G(0), G(4), "NV6", GCB_TOPO_NODE},
    {TOPO("hwloc-nvidia-dgx2.xml"), G(0), G(8), "NV6", GCB_TOPO_SYS},
    {TOPO("hwloc-nvidia-dgx2.xml"), G(14), G(15), "NV6", GCB_TOPO_PIX},
    {TOPO("hwloc-nvidia-dgx2.xml"), G(12), G(14), "NV6", GCB_TOPO_PXB},
    /* POWER8: GPU pairs per socket joined by 2 NVLink1 bricks */
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), G(0), G(1), "NV2", GCB_TOPO_NODE},
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), G(2), G(3), "NV2", GCB_TOPO_NODE},
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), G(1), G(2), "SYS", GCB_TOPO_SYS},
    /* 2 sockets: GPU0 and the HCA on socket 0's IOH, GPU1-2 on socket 1 */
    {TOPO("hwloc-2socket-3gpu-ib.xml"), G(0), N(2), "PHB", GCB_TOPO_PHB},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), G(1), N(2), "SYS", GCB_TOPO_SYS},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), G(1), G(2), "PHB", GCB_TOPO_PHB},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), G(0), G(1), "SYS", GCB_TOPO_SYS},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), N(0), N(1), "PIX", GCB_TOPO_PIX},
    /* g4dn.metal: GPU pairs on root ports of one host bridge */
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), G(0), G(1), "PHB", GCB_TOPO_PHB},
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), G(0), G(2), "NODE",
     GCB_TOPO_NODE},
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), G(3), G(4), "SYS", GCB_TOPO_SYS},
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), G(4), N(0), "NODE",
     GCB_TOPO_NODE},
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), G(0), N(0), "SYS", GCB_TOPO_SYS},
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), N(0), N(1), "PIX", GCB_TOPO_PIX},
    /* Lassen: GPU pairs behind PLX switches, HCAs on other PHBs */
    {TOPO("mpibind-lassen-4xv100.xml"), G(0), G(1), "PIX", GCB_TOPO_PIX},
    {TOPO("mpibind-lassen-4xv100.xml"), G(0), G(2), "SYS", GCB_TOPO_SYS},
    {TOPO("mpibind-lassen-4xv100.xml"), G(0), N(0), "NODE", GCB_TOPO_NODE},
    {TOPO("mpibind-lassen-4xv100.xml"), G(3), N(5), "NODE", GCB_TOPO_NODE},
    {TOPO("mpibind-lassen-4xv100.xml"), G(0), N(4), "SYS", GCB_TOPO_SYS},
    {TOPO("mpibind-lassen-4xv100.xml"), N(0), N(1), "PIX", GCB_TOPO_PIX},
    /* Tioga: one PHB per GCD or NIC pair, four NUMA nodes */
    {TOPO("mpibind-tioga-8xmi250x.xml"), G(0), G(1), "NODE", GCB_TOPO_NODE},
    {TOPO("mpibind-tioga-8xmi250x.xml"), G(1), N(1), "PHB", GCB_TOPO_PHB},
    {TOPO("mpibind-tioga-8xmi250x.xml"), G(0), N(1), "NODE", GCB_TOPO_NODE},
    {TOPO("mpibind-tioga-8xmi250x.xml"), G(0), G(2), "SYS", GCB_TOPO_SYS},
};

Test(topo_paths, pair_classes_match_each_machines_pci_tree) {
  for (size_t i = 0; i < sizeof pair_cases / sizeof *pair_cases; i++) {
    const struct pair_case *c = &pair_cases[i];
    struct gcb_topo *t = load(c->file);
    struct gcb_topo_path p, q;
    char label[16];
    cr_assert_eq(gcb_topo_path(t, c->a, c->b, &p, NULL), GCB_OK);
    gcb_topo_path_label(&p, label, sizeof label);
    cr_expect_str_eq(label, c->label, "%s case %zu", c->file, i);
    cr_expect_eq(p.pcie, c->pcie, "%s case %zu: %s", c->file, i,
                 gcb_topo_class_name(p.pcie));
    cr_assert_eq(gcb_topo_path(t, c->b, c->a, &q, NULL), GCB_OK);
    cr_expect(p.cls == q.cls && p.pcie == q.pcie && p.nvlinks == q.nvlinks,
              "%s case %zu is not symmetric", c->file, i);
    gcb_topo_free(t);
  }
}

struct nvlink_case {
  const char *file;
  int gpu, nvlinks, cpu_nvlinks;
};

static const struct nvlink_case nvlink_cases[] = {
    {TOPO("hwloc-nvidia-dgx2.xml"), 0, 6, 0}, /* 6 NVSwitch links */
    {TOPO("hwloc-nvidia-dgx2.xml"), 15, 6, 0},
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), 0, 4, 2}, /* 2 peer + 2 CPU */
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), 3, 4, 2},
    {TOPO("mpibind-lassen-4xv100.xml"), 0, -1, 0}, /* no matrix: unknown */
    {TOPO("mpibind-tioga-8xmi250x.xml"), 0, 0, 0}, /* AMD: no NVLink */
};

Test(topo_paths, nvlink_counts_come_from_the_nvlinkbandwidth_matrix) {
  for (size_t i = 0; i < sizeof nvlink_cases / sizeof *nvlink_cases; i++) {
    const struct nvlink_case *c = &nvlink_cases[i];
    struct gcb_topo *t = load(c->file);
    const struct gcb_topo_gpu *g = gcb_topo_gpu(t, c->gpu);
    cr_expect_eq(g->nvlinks, c->nvlinks, "%s GPU%d: %d", c->file, c->gpu,
                 g->nvlinks);
    cr_expect_eq(g->cpu_nvlinks, c->cpu_nvlinks, "%s GPU%d", c->file, c->gpu);
    gcb_topo_free(t);
  }
}

/* NVLinks between two GPUs (white box: topo_int.h) make the pair's path
 * NV<n> over its PCIe path; none leave the PCIe class. */
Test(topo_paths, nvlinks_between_two_gpus_name_their_path) {
  struct gcb_topo *t = load(TOPO("mpibind-lassen-4xv100.xml"));
  struct gcb_topo_path p;
  char label[16];
  t->nvpair[0 * t->ngpus + 1] = t->nvpair[1 * t->ngpus + 0] = 3;
  cr_assert_eq(gcb_topo_path(t, G(1), G(0), &p, NULL), GCB_OK);
  gcb_topo_path_label(&p, label, sizeof label);
  cr_expect_str_eq(label, "NV3");
  cr_expect_eq(p.pcie, GCB_TOPO_PIX);
  t->nvpair[0 * t->ngpus + 1] = t->nvpair[1 * t->ngpus + 0] = 0;
  cr_assert_eq(gcb_topo_path(t, G(0), G(1), &p, NULL), GCB_OK);
  cr_expect_eq(p.cls, GCB_TOPO_PIX);
  gcb_topo_free(t);
}

Test(topo_paths, bad_references_are_refused) {
  struct gcb_topo *t = load(TOPO("hwloc-2socket-3gpu-ib.xml"));
  struct gcb_topo_path p;
  struct gcb_err err = {0};
  struct gcb_topo_ref host = {GCB_TOPO_HOST, -1};
  cr_expect_eq(gcb_topo_path(t, G(3), G(0), &p, &err), GCB_EINPUT);
  cr_expect_eq(gcb_topo_path(t, G(0), N(3), &p, &err), GCB_EINPUT);
  cr_expect_eq(gcb_topo_path(t, G(0), host, &p, &err), GCB_EINPUT);
  cr_expect_str_eq(gcb_topo_class_name((enum gcb_topo_class)42), "?");
  gcb_topo_free(t);
}

struct nearest_case {
  const char *file;
  int gpu;
  int n;
  int nics[2];
  enum gcb_topo_class cls;
};

static const struct nearest_case nearest_cases[] = {
    /* the HCA, not the closer-or-equal GbE ports */
    {TOPO("hwloc-2socket-3gpu-ib.xml"), 0, 1, {2}, GCB_TOPO_PHB},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), 1, 1, {2}, GCB_TOPO_SYS},
    /* EFA (RDMA), not ENA */
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), 0, 1, {0}, GCB_TOPO_SYS},
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), 7, 1, {0}, GCB_TOPO_NODE},
    /* both ports of the socket's ConnectX-5 */
    {TOPO("mpibind-lassen-4xv100.xml"), 0, 2, {0, 1}, GCB_TOPO_NODE},
    {TOPO("mpibind-lassen-4xv100.xml"), 3, 2, {4, 5}, GCB_TOPO_NODE},
    /* no RDMA NIC: the fast Slingshot NIC, not the 0.25 GB/s i210 */
    {TOPO("mpibind-tioga-8xmi250x.xml"), 1, 1, {1}, GCB_TOPO_PHB},
    {TOPO("mpibind-tioga-8xmi250x.xml"), 4, 1, {3}, GCB_TOPO_NODE},
    {TOPO("hwloc-nvidia-dgx2.xml"), 0, 0, {0}, GCB_TOPO_SYS},
};

Test(topo_paths, nearest_nics_prefer_rdma_then_fast_nics) {
  for (size_t i = 0; i < sizeof nearest_cases / sizeof *nearest_cases; i++) {
    const struct nearest_case *c = &nearest_cases[i];
    struct gcb_topo *t = load(c->file);
    int nics[4] = {-1, -1, -1, -1};
    enum gcb_topo_class cls;
    int n = gcb_topo_nearest_nics(t, c->gpu, nics, 4, &cls);
    cr_expect_eq(n, c->n, "%s GPU%d: %d", c->file, c->gpu, n);
    for (int k = 0; k < c->n && k < n; k++)
      cr_expect_eq(nics[k], c->nics[k], "%s GPU%d", c->file, c->gpu);
    if (c->n > 0)
      cr_expect_eq(cls, c->cls, "%s GPU%d: %s", c->file, c->gpu,
                   gcb_topo_class_name(cls));
    cr_expect_eq(gcb_topo_nearest_nics(t, 99, nics, 4, &cls), -1);
    gcb_topo_free(t);
  }
}

Test(topo_paths, nearest_nics_never_write_past_the_array) {
  struct gcb_topo *t = load(TOPO("mpibind-lassen-4xv100.xml"));
  int nics[2] = {-1, -7};
  cr_expect_eq(gcb_topo_nearest_nics(t, 0, nics, 1, NULL), 2);
  cr_expect_eq(nics[0], 0);
  cr_expect_eq(nics[1], -7);
  gcb_topo_free(t);
}
