/* Device discovery on the six real captured topologies: counts, each GPU's
 * and NIC's bus id, NUMA node, local CPUs, architecture and PCI path, PCIe
 * switches and NUMA nodes. Expectations were read off each file with
 * lstopo-no-graphics -v and hwloc-calc (pci=BUSID -p -I pu / -I numa). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo/topo.h"

#define TOPO(name) GCB_TEST_DATA "/topo/" name

static struct gcb_topo *load(const char *file) {
  struct gcb_topo *t = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_topo_load(file, &t, &err), GCB_OK, "%s: %s", file, err.msg);
  return t;
}

struct count_case {
  const char *file;
  int gpus, nics, rdma_nics, numa, switches;
};

static const struct count_case count_cases[] = {
    /* 16 V100 with nvml OS devices; NVSwitches are PCI 0x0680, not GPUs;
     * the trimmed capture has no NIC; PLX cascades and NVSwitch managers */
    {TOPO("hwloc-nvidia-dgx2.xml"), 16, 0, 0, 2, 14},
    /* 4 P100, each with cuda, opencl and nvml OS devices: one GPU each */
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), 4, 0, 0, 2, 0},
    /* 3 Tesla M20xx; the ATI ES1000 (BMC VGA, class 0x0300) is no GPU;
     * 2 GbE ports and a ConnectX (class 0x0c06) */
    {TOPO("hwloc-2socket-3gpu-ib.xml"), 3, 3, 1, 2, 0},
    /* 8 T4; EFA (OpenFabrics) and ENA behind an Amazon switch */
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), 8, 2, 1, 2, 1},
    /* 4 V100; 4 ConnectX-5 ports (0x0207) and 2 BCM5719 GbE; ASPEED VGA is
     * no GPU */
    {TOPO("mpibind-lassen-4xv100.xml"), 4, 6, 4, 2, 2},
    /* 8 MI250X GCDs (AMD class 0x0380, rsmi); 4 Slingshot + 1 i210 */
    {TOPO("mpibind-tioga-8xmi250x.xml"), 8, 5, 0, 4, 2},
};

Test(topo_devices, gpus_nics_numa_nodes_and_switches_are_counted) {
  for (size_t i = 0; i < sizeof count_cases / sizeof *count_cases; i++) {
    const struct count_case *c = &count_cases[i];
    struct gcb_topo *t = load(c->file);
    cr_expect_eq(gcb_topo_gpu_count(t), c->gpus, "%s gpus %d", c->file,
                 gcb_topo_gpu_count(t));
    cr_expect_eq(gcb_topo_nic_count(t), c->nics, "%s nics %d", c->file,
                 gcb_topo_nic_count(t));
    int rdma = 0;
    for (int n = 0; n < gcb_topo_nic_count(t); n++)
      rdma += gcb_topo_nic(t, n)->rdma;
    cr_expect_eq(rdma, c->rdma_nics, "%s rdma %d", c->file, rdma);
    cr_expect_eq(gcb_topo_numa_count(t), c->numa, "%s", c->file);
    cr_expect_eq(gcb_topo_switch_count(t), c->switches, "%s switches %d",
                 c->file, gcb_topo_switch_count(t));
    cr_expect_null(gcb_topo_gpu(t, c->gpus));
    cr_expect_null(gcb_topo_gpu(t, -1));
    gcb_topo_free(t);
  }
}

struct gpu_case {
  const char *file;
  int index;
  const char *busid, *vendor, *arch;
  uint16_t class_id;
  int numa;
  const char *cpus, *osdevs, *link;
  int behind_switch;
};

static const struct gpu_case gpu_cases[] = {
    {TOPO("hwloc-nvidia-dgx2.xml"), 0, "0000:34:00.0", "NVIDIA", "Volta",
     0x0302, 0, "0-1", "nvml0", "gen3 x16", 1},
    {TOPO("hwloc-nvidia-dgx2.xml"), 8, "0000:b7:00.0", "NVIDIA", "Volta",
     0x0302, 1, "24-25", "nvml8", "gen3 x16", 1},
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), 2, "000a:01:00.0", "NVIDIA",
     "Pascal", 0x0302, 1, "80-81,88-89,96-97,104-105", "cuda2,opencl0d2,nvml2",
     "gen3 x16", 0},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), 0, "0000:06:00.0", "NVIDIA", "Fermi",
     0x0302, 0, "0,2,4,6,8,10,12,14,16,18,20,22", "", "gen1 x16 or gen2 x8", 0},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), 1, "0000:11:00.0", "NVIDIA", "Fermi",
     0x0302, 1, "1,3,5,7,9,11,13,15,17,19,21,23", "", "gen1 x16 or gen2 x8", 0},
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), 4, "0000:e7:00.0", "NVIDIA",
     "Turing", 0x0302, 1, "24-47,72-95", "cuda4,opencl0d4,nvml4", "gen3 x16",
     0},
    {TOPO("mpibind-lassen-4xv100.xml"), 2, "0035:03:00.0", "NVIDIA", "Volta",
     0x0302, 8, "96-175", "cuda2,nvml2", "gen3 x16", 1},
    /* hwloc hangs tioga's host bridges below an L3: the local CPUs are one
     * CCD, narrower than the NUMA node */
    {TOPO("mpibind-tioga-8xmi250x.xml"), 0, "0000:c1:00.0", "AMD", "CDNA2",
     0x0380, 3, "48-55,112-119", "rsmi0", "gen4 x16", 0},
};

Test(topo_devices, each_gpu_has_its_bus_id_numa_node_cpus_and_link) {
  for (size_t i = 0; i < sizeof gpu_cases / sizeof *gpu_cases; i++) {
    const struct gpu_case *c = &gpu_cases[i];
    struct gcb_topo *t = load(c->file);
    const struct gcb_topo_gpu *g = gcb_topo_gpu(t, c->index);
    cr_assert_not_null(g, "%s GPU%d", c->file, c->index);
    cr_expect_str_eq(g->busid, c->busid, "%s GPU%d", c->file, c->index);
    cr_expect_str_eq(g->vendor, c->vendor, "%s", c->busid);
    cr_expect_str_eq(g->arch, c->arch, "%s", c->busid);
    cr_expect_eq(g->class_id, c->class_id, "%s", c->busid);
    cr_expect_eq(g->numa, c->numa, "%s numa %d", c->busid, g->numa);
    cr_expect_str_eq(g->cpus, c->cpus, "%s", c->busid);
    cr_expect_str_eq(g->osdevs, c->osdevs, "%s", c->busid);
    cr_expect_str_eq(g->path[0].link, c->link, "%s", c->busid);
    cr_expect_eq(g->pcie_switch >= 0, c->behind_switch, "%s", c->busid);
    cr_expect_eq(gcb_topo_find_gpu_by_busid(t, c->busid), c->index);
    gcb_topo_free(t);
  }
}

Test(topo_devices, gpus_are_numbered_in_bus_id_order) {
  for (size_t i = 0; i < sizeof count_cases / sizeof *count_cases; i++) {
    struct gcb_topo *t = load(count_cases[i].file);
    for (int g = 1; g < gcb_topo_gpu_count(t); g++)
      cr_expect_lt(
          strcmp(gcb_topo_gpu(t, g - 1)->busid, gcb_topo_gpu(t, g)->busid), 0,
          "%s GPU%d", count_cases[i].file, g);
    gcb_topo_free(t);
  }
}

Test(topo_devices, server_management_vga_is_not_a_gpu) {
  struct gcb_topo *t = load(TOPO("hwloc-2socket-3gpu-ib.xml"));
  cr_expect_eq(gcb_topo_find_gpu_by_busid(t, "0000:01:03.0"), -1); /* ES1000 */
  gcb_topo_free(t);
  t = load(TOPO("mpibind-lassen-4xv100.xml"));
  cr_expect_eq(gcb_topo_find_gpu_by_busid(t, "0002:02:00.0"), -1); /* ASPEED */
  gcb_topo_free(t);
}

struct nic_case {
  const char *file;
  int index;
  const char *busid, *name;
  int rdma, numa;
  uint16_t class_id;
};

static const struct nic_case nic_cases[] = {
    {TOPO("hwloc-2socket-3gpu-ib.xml"), 0, "0000:04:00.0", "eth0", 0, 0,
     0x0200},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), 2, "0000:05:00.0", "mlx4_0", 1, 0,
     0x0c06},
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), 0, "0000:c5:00.0", "rdmap197s0",
     1, 1, 0x0200},
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), 1, "0000:c6:00.0", "eth0", 0, 1,
     0x0200},
    {TOPO("mpibind-lassen-4xv100.xml"), 0, "0003:01:00.0", "mlx5_0", 1, 0,
     0x0207},
    {TOPO("mpibind-lassen-4xv100.xml"), 5, "0033:01:00.1", "mlx5_3", 1, 8,
     0x0207},
    {TOPO("mpibind-tioga-8xmi250x.xml"), 1, "0000:c5:00.0", "hsi0", 0, 3,
     0x0200},
};

Test(topo_devices, nics_are_named_by_their_openfabrics_or_network_device) {
  for (size_t i = 0; i < sizeof nic_cases / sizeof *nic_cases; i++) {
    const struct nic_case *c = &nic_cases[i];
    struct gcb_topo *t = load(c->file);
    const struct gcb_topo_nic *n = gcb_topo_nic(t, c->index);
    cr_assert_not_null(n, "%s NIC%d", c->file, c->index);
    cr_expect_str_eq(n->busid, c->busid, "%s NIC%d", c->file, c->index);
    cr_expect_str_eq(n->name, c->name, "%s", c->busid);
    cr_expect_eq(n->rdma, c->rdma, "%s", c->busid);
    cr_expect_eq(n->numa, c->numa, "%s", c->busid);
    cr_expect_eq(n->class_id, c->class_id, "%s", c->busid);
    cr_expect_eq(gcb_topo_find_nic_by_busid(t, c->busid), c->index);
    gcb_topo_free(t);
  }
}

struct hop_case {
  const char *busid;
  enum gcb_topo_hop_role role;
  const char *link;
};

/* DGX-2 GPU0: two cascaded PLX switches below an Intel root port. */
static const struct hop_case dgx2_gpu0_path[] = {
    {"0000:34:00.0", GCB_TOPO_HOP_DEVICE, "gen3 x16"},
    {"0000:33:00.0", GCB_TOPO_HOP_SWITCH_DOWN, "gen3 x16"},
    {"0000:32:00.0", GCB_TOPO_HOP_SWITCH_UP, "gen3 x16"},
    {"0000:2d:04.0", GCB_TOPO_HOP_SWITCH_DOWN, "gen3 x16"},
    {"0000:2c:00.0", GCB_TOPO_HOP_SWITCH_UP, "gen3 x16"},
    {"0000:2b:00.0", GCB_TOPO_HOP_ROOT_PORT, "gen3 x16"},
};

Test(topo_devices, pci_path_runs_from_the_device_to_its_root_port) {
  struct gcb_topo *t = load(TOPO("hwloc-nvidia-dgx2.xml"));
  const struct gcb_topo_gpu *g = gcb_topo_gpu(t, 0);
  size_t n = sizeof dgx2_gpu0_path / sizeof *dgx2_gpu0_path;
  cr_assert_eq(g->npath, (int)n);
  for (size_t i = 0; i < n; i++) {
    cr_expect_str_eq(g->path[i].busid, dgx2_gpu0_path[i].busid);
    cr_expect_eq(g->path[i].role, dgx2_gpu0_path[i].role, "%s",
                 g->path[i].busid);
    cr_expect_str_eq(g->path[i].link, dgx2_gpu0_path[i].link);
    cr_expect_eq(g->path[i].gen, 3);
    cr_expect_eq(g->path[i].width, 16);
  }
  gcb_topo_free(t);
}

Test(topo_devices, ambiguous_link_speeds_list_every_generation_and_width) {
  struct gcb_topo *t = load(TOPO("mpibind-aws-g4dn-metal-8xt4.xml"));
  const struct gcb_topo_gpu *g = gcb_topo_gpu(t, 0);
  cr_assert_eq(g->npath, 2);
  cr_expect_str_eq(g->path[1].busid, "0000:17:00.0");
  cr_expect_eq(g->path[1].gbps > 1.99 && g->path[1].gbps < 2.01, 1);
  cr_expect_str_eq(g->path[1].link, "gen1 x8 or gen2 x4");
  cr_expect_eq(g->path[1].gen, 0);
  cr_expect_eq(g->path[1].width, 0);
  gcb_topo_free(t);
}

struct switch_case {
  const char *file;
  int index;
  const char *busid;
  uint16_t device_id;
  int ports, numa;
};

static const struct switch_case switch_cases[] = {
    {TOPO("hwloc-nvidia-dgx2.xml"), 0, "0000:2c:00.0", 0x9781, 2, 0},
    {TOPO("hwloc-nvidia-dgx2.xml"), 6, "0000:5f:00.0", 0x8725, 6, 0},
    {TOPO("mpibind-lassen-4xv100.xml"), 0, "0004:01:00.0", 0x8725, 3, 0},
    {TOPO("mpibind-lassen-4xv100.xml"), 1, "0035:01:00.0", 0x8725, 2, 8},
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), 0, "0000:c3:00.0", 0xbec2, 2, 1},
};

Test(topo_devices, switches_are_upstream_ports_with_two_downstream_ports) {
  for (size_t i = 0; i < sizeof switch_cases / sizeof *switch_cases; i++) {
    const struct switch_case *c = &switch_cases[i];
    struct gcb_topo *t = load(c->file);
    const struct gcb_topo_switch *s = gcb_topo_switch(t, c->index);
    cr_assert_not_null(s, "%s SW%d", c->file, c->index);
    cr_expect_str_eq(s->busid, c->busid, "%s SW%d", c->file, c->index);
    cr_expect_eq(s->device_id, c->device_id, "%s", c->busid);
    cr_expect_eq(s->downstream_ports, c->ports, "%s", c->busid);
    cr_expect_eq(s->numa, c->numa, "%s", c->busid);
    gcb_topo_free(t);
  }
}

Test(topo_devices, numa_nodes_carry_os_indexes_cpus_and_memory) {
  struct gcb_topo *t = load(TOPO("mpibind-lassen-4xv100.xml"));
  cr_assert_eq(gcb_topo_numa_count(t), 2);
  cr_expect_eq(gcb_topo_numa(t, 0)->os_index, 0);
  cr_expect_eq(gcb_topo_numa(t, 1)->os_index, 8);
  cr_expect_str_eq(gcb_topo_numa(t, 1)->cpus, "96-175");
  cr_expect_eq(gcb_topo_numa(t, 0)->memory_bytes, 133886784ull * 1024);
  cr_expect_null(gcb_topo_numa(t, 2));
  gcb_topo_free(t);
}

/* A link speed hwloc reads as no finite number ("inf" in the XML) is an
 * unknown speed (0), printed as unknown, never "inf GB/s". */
Test(topo_devices, a_link_speed_that_is_not_finite_is_unknown) {
  FILE *in = fopen(TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), "r");
  cr_assert_not_null(in);
  char path[] = "/tmp/gcb-topo-speed-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  FILE *out = fdopen(fd, "w");
  char line[4096];
  while (fgets(line, sizeof line, in) != NULL) {
    char *at = strstr(line, "pci_link_speed=\"");
    if (at != NULL) { /* every speed, of devices and bridges: "inf" */
      at += strlen("pci_link_speed=\"");
      fprintf(out, "%.*sinf%s", (int)(at - line), line, strchr(at, '"'));
    } else {
      fputs(line, out);
    }
  }
  fclose(in);
  fclose(out);
  struct gcb_topo *t = load(path);
  unlink(path);
  const struct gcb_topo_gpu *g = gcb_topo_gpu(t, 0);
  cr_assert_gt(g->npath, 0);
  cr_expect_eq(g->path[0].gbps, 0);
  cr_expect_eq(gcb_topo_switch(t, 0)->uplink_gbps, 0);
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  gcb_topo_print(m, t, path);
  fclose(m);
  cr_expect_null(strstr(text, "inf"), "%s", text);
  cr_expect_not_null(strstr(text, "link ?"), "%s", text);
  free(text);
  gcb_topo_free(t);
}
