/*
 * The expected-bandwidth model (docs/TOPOLOGY.md gives the sources): PCIe
 * lane rates from common/pcie.h, NVLink per-link rates by generation, GPU
 * architectures by PCI device id (or model name), link generation and width
 * derived from hwloc's link speed, and the expected figure of a device pair
 * or a host link with a short basis. All rates are GB/s (1e9 bytes/s) per
 * direction.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/pcie.h"
#include "topo/topo_int.h"

/* NVLink per link per direction: 20 GB/s (NVLink1, P100), 25 GB/s
 * (NVLink2-4: V100, A100, H100/H200), 50 GB/s (NVLink5, Blackwell). */
static const double nvlink_link[] = {0, 20, 25, 25, 25, 50};

double gcb_topo_nvlink_gbps(int nvlink_gen) {
  return nvlink_gen >= 1 && nvlink_gen <= 5 ? nvlink_link[nvlink_gen] : 0;
}

/* --- architectures -------------------------------------------------------- */

struct arch_row {
  uint16_t vendor, lo, hi;
  const char *name;
  int pcie_gen, nvlink_gen;
};

/* PCI device id ranges of whole chip families (pci.ids), disjoint: the
 * first range that holds an id names it (GH100's ids sit between GA102's
 * and GA103's). */
static const struct arch_row arch_rows[] = {
    {0x10de, 0x06c0, 0x06df, "Fermi", 2, 0},     /* GF100: M2050/M2070 */
    {0x10de, 0x1020, 0x103f, "Kepler", 3, 0},    /* GK110/GK210: K20-K80 */
    {0x10de, 0x15f0, 0x15ff, "Pascal", 3, 1},    /* GP100: P100 */
    {0x10de, 0x1b00, 0x1bff, "Pascal", 3, 0},    /* GP102/104: P40, P4 */
    {0x10de, 0x1d80, 0x1dbf, "Volta", 3, 2},     /* GV100: V100 */
    {0x10de, 0x1e00, 0x1fff, "Turing", 3, 0},    /* TU10x: T4 */
    {0x10de, 0x2080, 0x20ff, "Ampere", 4, 3},    /* GA100: A100, A30 */
    {0x10de, 0x2200, 0x22ff, "Ampere", 4, 0},    /* GA102: A10, A40 */
    {0x10de, 0x2300, 0x23ff, "Hopper", 5, 4},    /* GH100: H100, H200 */
    {0x10de, 0x2400, 0x25ff, "Ampere", 4, 0},    /* GA103-107: A16, A2 */
    {0x10de, 0x2600, 0x28ff, "Ada", 4, 0},       /* AD10x: L4, L40S */
    {0x10de, 0x2900, 0x29ff, "Blackwell", 6, 5}, /* GB100: B200 */
    {0x1002, 0x7380, 0x738f, "CDNA", 4, 0},      /* MI100 */
    {0x1002, 0x7400, 0x740f, "CDNA2", 4, 0},     /* MI210/MI250/MI250X */
    {0x1002, 0x74a0, 0x74bf, "CDNA3", 5, 0},     /* MI300 */
};

/* Model-name fallback for ids outside the table: a name stands for one
 * id of its family (pci.ids), looked up in the table as any id. */
static const struct {
  const char *needle;
  uint16_t device;
} arch_names[] = {
    {"P100", 0x15f8}, {"V100", 0x1db4}, {"A100", 0x20b0}, {"A800", 0x20f5},
    {"H100", 0x2330}, {"H200", 0x2335}, {"H800", 0x2324}, {"GH200", 0x2342},
    {"B200", 0x2901}, {"B100", 0x2901},
};

static const struct arch_row *arch_of(uint16_t vendor, uint16_t device) {
  for (size_t i = 0; i < sizeof arch_rows / sizeof *arch_rows; i++)
    if (arch_rows[i].vendor == vendor && device >= arch_rows[i].lo &&
        device <= arch_rows[i].hi)
      return &arch_rows[i];
  return NULL;
}

void gcb__topo_arch(uint16_t vendor, uint16_t device, const char *model,
                    struct gcb__arch *out) {
  *out = (struct gcb__arch){"unknown", 0, 0};
  const struct arch_row *hit = arch_of(vendor, device);
  for (size_t i = 0; !hit && model && vendor == 0x10de &&
                     i < sizeof arch_names / sizeof *arch_names;
       i++)
    if (strstr(model, arch_names[i].needle))
      hit = arch_of(vendor, arch_names[i].device);
  if (hit)
    *out = (struct gcb__arch){hit->name, hit->pcie_gen, hit->nvlink_gen};
}

/* Bridge chips whose top generation is known: PLX/Broadcom PEX87xx and
 * PEX97xx (gen3), Intel Xeon Scalable root ports 2030-2033 (gen3), IBM
 * POWER9 PHB4 (gen4). */
int gcb__topo_bridge_gen(uint16_t vendor, uint16_t device) {
  if (vendor == 0x10b5 && ((device >> 8) == 0x87 || (device >> 8) == 0x97))
    return 3;
  if (vendor == 0x8086 && device >= 0x2030 && device <= 0x2033)
    return 3;
  if (vendor == 0x1014 && device == 0x04c1)
    return 4;
  return 0;
}

/* --- link generation and width -------------------------------------------- */

void gcb__topo_link_text(double gbps, int max_gen, int *gen, int *width,
                         char *text, size_t len) {
  static const int widths[] = {1, 2, 4, 8, 16};
  int n = 0;
  *gen = *width = 0;
  text[0] = '\0';
  for (int g = 1; g <= GCB_PCIE_GEN_MAX && gbps > 0; g++) {
    if (max_gen > 0 && g > max_gen)
      break;
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
      double want = gcb_pcie_link_gbps(g, widths[w]);
      if (fabs(want - gbps) > 0.005 * want)
        continue;
      size_t used = strlen(text);
      snprintf(text + used, len - used, "%sgen%d x%d", n ? " or " : "", g,
               widths[w]);
      *gen = g;
      *width = widths[w];
      n++;
    }
  }
  if (n != 1)
    *gen = *width = 0;
}

/* --- expected bandwidth --------------------------------------------------- */

/* The slowest physical link on a route, and how many links it has. */
struct bottleneck {
  double gbps;    /* 0 when no link speed is known */
  hwloc_obj_t at; /* the device or upstream port below that link */
  int links, unknown;
};

/*
 * The link between an upward-facing object x (a device or a switch's
 * upstream port) and the port above it. Its two ends must agree at any
 * instant, so a disagreement means one end was read while downtrained: take
 * the higher reading.
 */
static double link_gbps(hwloc_obj_t x, int device_only) {
  double a = gcb__topo_obj_gbps(x);
  if (device_only || !gcb__topo_is_pci_bridge(x->parent))
    return a;
  double b = gcb__topo_obj_gbps(x->parent);
  return a > b ? a : b;
}

/* Links from o up to its root port, or up to (not above) stop. */
static void walk_links(hwloc_obj_t o, hwloc_obj_t stop, int device_only,
                       struct bottleneck *b) {
  for (hwloc_obj_t x = o;
       x && x != stop && (x == o || gcb__topo_is_pci_bridge(x));
       x = x->parent) {
    enum gcb_topo_hop_role r = gcb__topo_role(x);
    if (r != GCB_TOPO_HOP_DEVICE && r != GCB_TOPO_HOP_SWITCH_UP)
      continue;
    double g = link_gbps(x, device_only);
    b->links++;
    b->unknown += g <= 0;
    if (g > 0 && (b->gbps == 0 || g < b->gbps)) {
      b->gbps = g;
      b->at = x;
    }
    if (device_only)
      break;
  }
}

/* "gen3 x16 (15.75 GB/s)", or the speed alone when gen/width are
 * ambiguous. */
static void describe_link(const struct bottleneck *b, char *buf, size_t len) {
  /* both ends of the link limit its generation */
  int hint = gcb__topo_obj_gen_hint(b->at);
  int upper = gcb__topo_is_pci_bridge(b->at->parent)
                  ? gcb__topo_obj_gen_hint(b->at->parent)
                  : 0;
  if (upper && (hint == 0 || upper < hint))
    hint = upper;
  int gen, width;
  char text[48];
  gcb__topo_link_text(b->gbps, hint, &gen, &width, text, sizeof text);
  if (gen > 0)
    snprintf(buf, len, "gen%d x%d (%.2f GB/s)", gen, width, b->gbps);
  else
    snprintf(buf, len, "%.2f GB/s", b->gbps);
}

/* "PCIe gen3 x16 (15.75 GB/s) via PIX, slowest of 4 links (at ...)". */
static void pcie_basis(const struct bottleneck *b, hwloc_obj_t dev,
                       const char *via, char *basis, size_t len) {
  char link[64];
  describe_link(b, link, sizeof link);
  int n = snprintf(basis, len, "PCIe %s%s%s, slowest of %d link%s", link,
                   via ? " via " : "", via ? via : "", b->links,
                   b->links == 1 ? "" : "s");
  if (b->at != dev && n > 0 && (size_t)n < len) {
    char at[GCB_BUSID_LEN];
    gcb__topo_obj_busid(b->at, at, sizeof at);
    snprintf(basis + n, len - (size_t)n, " (at %s)", at);
  }
}

static double nvlink_rate(const struct gcb_topo_gpu *a,
                          const struct gcb_topo_gpu *b) {
  double ra = gcb_topo_nvlink_gbps(a->nvlink_gen);
  double rb = b ? gcb_topo_nvlink_gbps(b->nvlink_gen) : ra;
  return ra < rb ? ra : rb;
}

static enum gcb_status nvlink_expected(const struct gcb_topo_gpu *a,
                                       const struct gcb_topo_gpu *b, int links,
                                       const char *what, double *gbps,
                                       char *basis, size_t len) {
  double rate = nvlink_rate(a, b);
  if (rate <= 0) {
    snprintf(basis, len, "%s%d: per-link rate unknown (architecture %s)", what,
             links, a->arch);
    return GCB_OK;
  }
  *gbps = links * rate;
  snprintf(basis, len, "%s%d x %.0f GB/s (NVLink%d)", what, links, rate,
           a->nvlink_gen);
  return GCB_OK;
}

static enum gcb_status host_expected(const struct gcb_topo *t,
                                     struct gcb_topo_ref a, hwloc_obj_t oa,
                                     double *gbps, char *basis, size_t len) {
  const struct gcb_topo_gpu *g =
      a.kind == GCB_TOPO_GPU ? gcb_topo_gpu(t, a.index) : NULL;
  if (g && g->cpu_nvlinks > 0)
    return nvlink_expected(g, NULL, g->cpu_nvlinks, "NVLink to CPU: ", gbps,
                           basis, len);
  struct bottleneck b = {0};
  walk_links(oa, NULL, t->vm.detected, &b);
  if (b.gbps <= 0) {
    snprintf(basis, len, "unknown: no PCIe link speed in the topology");
    return GCB_OK;
  }
  *gbps = b.gbps;
  pcie_basis(&b, oa, NULL, basis, len);
  size_t used = strlen(basis);
  if (t->vm.detected)
    snprintf(basis + used, len - used,
             "; the device's own link only (virtual machine: ports are "
             "emulated)");
  return GCB_OK;
}

static const char *via_text(enum gcb_topo_class c) {
  switch (c) {
  case GCB_TOPO_PIX:
    return "PIX (one switch)";
  case GCB_TOPO_PXB:
    return "PXB (several bridges)";
  case GCB_TOPO_PHB:
    return "PHB (through the host bridge)";
  case GCB_TOPO_NODE:
    return "NODE (through the CPU; P2P may be slower)";
  default:
    return "SYS (across the CPU interconnect; P2P may be slower or off)";
  }
}

static enum gcb_status pair_expected(const struct gcb_topo *t,
                                     struct gcb_topo_ref a, hwloc_obj_t oa,
                                     struct gcb_topo_ref b, hwloc_obj_t ob,
                                     double *gbps, char *basis, size_t len) {
  struct gcb_topo_path p;
  enum gcb_status st = gcb_topo_path(t, a, b, &p, NULL);
  if (st != GCB_OK)
    return st;
  if (p.cls == GCB_TOPO_NV)
    return nvlink_expected(&t->gpus[a.index], &t->gpus[b.index], p.nvlinks,
                           "NV", gbps, basis, len);
  hwloc_obj_t c = gcb__topo_common_ancestor(oa, ob);
  hwloc_obj_t stop = gcb__topo_is_pci_bridge(c) ? c : NULL;
  struct bottleneck bn = {0};
  walk_links(oa, stop, 0, &bn);
  walk_links(ob, stop, 0, &bn);
  if (bn.gbps <= 0) {
    snprintf(basis, len, "unknown: no PCIe link speed on the path");
    return GCB_OK;
  }
  *gbps = bn.gbps;
  pcie_basis(&bn, NULL, via_text(p.pcie), basis, len);
  return GCB_OK;
}

enum gcb_status gcb_topo_expected_gbps(const struct gcb_topo *t,
                                       struct gcb_topo_ref a,
                                       struct gcb_topo_ref b, double *gbps,
                                       char *basis, size_t basis_len,
                                       struct gcb_err *err) {
  char scratch[8];
  if (basis == NULL || basis_len == 0) {
    basis = scratch;
    basis_len = sizeof scratch;
  }
  *gbps = 0;
  basis[0] = '\0';
  hwloc_obj_t oa = gcb__topo_ref_obj(t, a);
  hwloc_obj_t ob = b.kind == GCB_TOPO_HOST ? oa : gcb__topo_ref_obj(t, b);
  if (oa == NULL || ob == NULL)
    return gcb_err_set(err, GCB_EINPUT,
                       "no such device pair (%d GPUs, %d NICs)", t->ngpus,
                       t->nnics);
  if (b.kind == GCB_TOPO_HOST)
    return host_expected(t, a, oa, gbps, basis, basis_len);
  if (oa == ob) {
    snprintf(basis, basis_len, "unknown: same device");
    return GCB_OK;
  }
  if (t->vm.detected) {
    snprintf(basis, basis_len,
             "unknown: virtual machine (the PCIe layout is the hypervisor's "
             "and passthrough often disables P2P)");
    return GCB_OK;
  }
  return pair_expected(t, a, oa, b, ob, gbps, basis, basis_len);
}
