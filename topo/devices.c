/*
 * Device discovery on a loaded hwloc topology: GPUs (by PCI class and
 * vendor, one record per PCI object however many cuda/nvml/opencl/rsmi OS
 * devices hang below it), NICs (network and OpenFabrics OS devices, or a
 * network/InfiniBand PCI class), NUMA nodes and PCIe switches; for each
 * device its PCI path up to the host bridge with the link speed of every
 * hop, its local CPU set and NUMA node (first non-I/O ancestor), and the
 * nearest switch above it. GPUs and NICs are kept in PCI bus id order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pcie.h"
#include "topo/topo_int.h"

/* --- hwloc object helpers ------------------------------------------------- */

int gcb__topo_is_pci_bridge(hwloc_obj_t o) {
  return o && o->type == HWLOC_OBJ_BRIDGE &&
         o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI;
}

int gcb__topo_is_host_bridge(hwloc_obj_t o) {
  return o && o->type == HWLOC_OBJ_BRIDGE &&
         o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
}

/* PCI attributes of a device or of a PCI-to-PCI bridge; NULL otherwise. */
static const struct hwloc_pcidev_attr_s *pci_attr(hwloc_obj_t o) {
  if (o->type == HWLOC_OBJ_PCI_DEVICE)
    return &o->attr->pcidev;
  if (gcb__topo_is_pci_bridge(o))
    return &o->attr->bridge.upstream.pci;
  return NULL;
}

/* A speed hwloc read as no finite number ("inf" in an XML) is unknown. */
double gcb__topo_obj_gbps(hwloc_obj_t o) {
  const struct hwloc_pcidev_attr_s *p = pci_attr(o);
  return p && isfinite(p->linkspeed) ? (double)p->linkspeed : 0.0;
}

void gcb__topo_obj_busid(hwloc_obj_t o, char *buf, size_t len) {
  const struct hwloc_pcidev_attr_s *p = pci_attr(o);
  if (p == NULL) {
    snprintf(buf, len, "?");
    return;
  }
  struct gcb_busid id = {p->domain, p->bus, p->dev, p->func};
  gcb_busid_format(&id, buf, len);
}

/*
 * Ports alternate from the top: a bridge below a host bridge is a root
 * port; below a root or downstream port hangs a device or a switch's
 * upstream port; below an upstream port, downstream ports.
 */
enum gcb_topo_hop_role gcb__topo_role(hwloc_obj_t o) {
  if (!gcb__topo_is_pci_bridge(o))
    return GCB_TOPO_HOP_DEVICE;
  if (!gcb__topo_is_pci_bridge(o->parent))
    return GCB_TOPO_HOP_ROOT_PORT;
  return gcb__topo_role(o->parent) == GCB_TOPO_HOP_SWITCH_UP
             ? GCB_TOPO_HOP_SWITCH_DOWN
             : GCB_TOPO_HOP_SWITCH_UP;
}

static int bridge_children(hwloc_obj_t o) {
  int n = 0;
  for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
    n += c->type == HWLOC_OBJ_BRIDGE;
  return n;
}

static int is_switch(hwloc_obj_t o) {
  return gcb__topo_is_pci_bridge(o) && bridge_children(o) >= 2;
}

/* Compute OS devices (GPU or co-processor) below a PCI object whose name
 * starts with one of the prefixes. */
static int has_osdev(hwloc_obj_t pci, const char *const *prefixes) {
  for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
    if (c->type != HWLOC_OBJ_OS_DEVICE || c->name == NULL ||
        (c->attr->osdev.type != HWLOC_OBJ_OSDEV_GPU &&
         c->attr->osdev.type != HWLOC_OBJ_OSDEV_COPROC))
      continue;
    for (int i = 0; prefixes[i]; i++)
      if (strncmp(c->name, prefixes[i], strlen(prefixes[i])) == 0)
        return 1;
  }
  return 0;
}

static const char *const compute_osdevs[] = {"cuda",   "nvml", "rsmi",
                                             "opencl", "ze",   NULL};

/* --- classification ------------------------------------------------------- */

/* Legacy server-management display chips from ATI/AMD (ES1000, Rage XL,
 * Radeon 7000): class 0x0300 like a GPU, but a BMC's framebuffer. */
static int is_legacy_amd_vga(uint16_t device) {
  static const uint16_t ids[] = {0x515e, 0x5159, 0x4752};
  for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
    if (ids[i] == device)
      return 1;
  return 0;
}

static int is_gpu(hwloc_obj_t o) {
  const struct hwloc_pcidev_attr_s *p = &o->attr->pcidev;
  if (has_osdev(o, compute_osdevs))
    return 1;
  if (p->vendor_id == 0x10de)
    return p->class_id == 0x0300 || p->class_id == 0x0302;
  if (p->vendor_id == 0x1002)
    return p->class_id == 0x0380 || p->class_id == 0x1200 ||
           (p->class_id == 0x0300 && !is_legacy_amd_vga(p->device_id));
  return 0;
}

static int has_osdev_type(hwloc_obj_t pci, hwloc_obj_osdev_type_t type) {
  for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
    if (c->type == HWLOC_OBJ_OS_DEVICE && c->attr->osdev.type == type)
      return 1;
  return 0;
}

static int is_infiniband_class(uint16_t class_id) {
  return class_id == 0x0207 || class_id == 0x0c06;
}

static int is_nic(hwloc_obj_t o) {
  uint16_t cls = o->attr->pcidev.class_id;
  return (cls >> 8) == 0x02 || is_infiniband_class(cls) ||
         has_osdev_type(o, HWLOC_OBJ_OSDEV_NETWORK) ||
         has_osdev_type(o, HWLOC_OBJ_OSDEV_OPENFABRICS);
}

/* --- collecting ----------------------------------------------------------- */

static int cmp_busid(const void *a, const void *b) {
  const struct hwloc_pcidev_attr_s *x =
      &(*(const hwloc_obj_t *)a)->attr->pcidev;
  const struct hwloc_pcidev_attr_s *y =
      &(*(const hwloc_obj_t *)b)->attr->pcidev;
  unsigned long kx = ((unsigned long)x->domain << 16) | (x->bus << 8) |
                     (x->dev << 3) | x->func;
  unsigned long ky = ((unsigned long)y->domain << 16) | (y->bus << 8) |
                     (y->dev << 3) | y->func;
  return (kx > ky) - (kx < ky);
}

/* PCI devices accepted by pred, sorted by bus id, into a malloc'ed array. */
static enum gcb_status collect(hwloc_topology_t topo, int (*pred)(hwloc_obj_t),
                               int (*skip)(hwloc_obj_t), hwloc_obj_t **out,
                               int *n, struct gcb_err *err) {
  int cap = 0;
  *out = NULL;
  *n = 0;
  for (hwloc_obj_t o = hwloc_get_next_pcidev(topo, NULL); o;
       o = hwloc_get_next_pcidev(topo, o)) {
    if (!pred(o) || (skip && skip(o)))
      continue;
    hwloc_obj_t *grown = gcb__topo_grow(*out, &cap, *n, sizeof **out);
    if (grown == NULL)
      return gcb_err_set(err, GCB_ENOMEM, "topology: out of memory");
    *out = grown;
    (*out)[(*n)++] = o;
  }
  if (*n > 1)
    qsort(*out, (size_t)*n, sizeof **out, cmp_busid);
  return GCB_OK;
}

/* --- per-device details --------------------------------------------------- */

/* CPU set and NUMA node of the first non-I/O ancestor. */
static enum gcb_status locality(hwloc_topology_t topo, hwloc_obj_t o,
                                const char **cpus, int *numa,
                                struct gcb_err *err) {
  hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, o);
  char *list = NULL;
  if (anc == NULL || anc->cpuset == NULL)
    return gcb_err_set(err, GCB_EHWLOC, "PCI device without a CPU-side parent");
  if (hwloc_bitmap_list_asprintf(&list, anc->cpuset) < 0)
    return gcb_err_set(err, GCB_ENOMEM, "topology: out of memory");
  *cpus = list;
  *numa = -1;
  if (anc->nodeset && hwloc_bitmap_weight(anc->nodeset) == 1)
    *numa = hwloc_bitmap_first(anc->nodeset);
  return GCB_OK;
}

/* Comma-joined names of the OS devices below a PCI object. */
static enum gcb_status osdev_names(hwloc_obj_t pci, const char **out,
                                   struct gcb_err *err) {
  size_t len = 1;
  for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
    if (c->type == HWLOC_OBJ_OS_DEVICE && c->name)
      len += strlen(c->name) + 1;
  char *s = calloc(1, len);
  if (s == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "topology: out of memory");
  for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
    if (c->type != HWLOC_OBJ_OS_DEVICE || c->name == NULL)
      continue;
    if (s[0])
      strcat(s, ",");
    strcat(s, c->name);
  }
  *out = s;
  return GCB_OK;
}

/* Highest PCIe generation an object can run: its chip's, else unknown. */
int gcb__topo_obj_gen_hint(hwloc_obj_t o) {
  const struct hwloc_pcidev_attr_s *p = pci_attr(o);
  if (p == NULL)
    return 0;
  if (o->type == HWLOC_OBJ_PCI_DEVICE && is_gpu(o)) {
    struct gcb__arch a;
    gcb__topo_arch(p->vendor_id, p->device_id, NULL, &a);
    return a.pcie_gen;
  }
  if (gcb__topo_is_pci_bridge(o))
    return gcb__topo_bridge_gen(p->vendor_id, p->device_id);
  return 0;
}

static int min_known(int a, int b) {
  if (a == 0)
    return b;
  if (b == 0)
    return a;
  return a < b ? a : b;
}

static int hop_count(hwloc_obj_t o) {
  int n = 1;
  for (hwloc_obj_t p = o->parent; gcb__topo_is_pci_bridge(p); p = p->parent)
    n++;
  return n;
}

static void fill_hop(hwloc_obj_t o, struct gcb_topo_hop *h) {
  const struct hwloc_pcidev_attr_s *p = pci_attr(o);
  gcb__topo_obj_busid(o, h->busid, sizeof h->busid);
  h->vendor_id = p->vendor_id;
  h->device_id = p->device_id;
  h->role = gcb__topo_role(o);
  h->gbps = gcb__topo_obj_gbps(o);
}

/* Both ends of one link share its generation limit: a device or upstream
 * port pairs with the port above it, a root or downstream port with the
 * object below it on the path. */
static int hop_gen_hint(hwloc_obj_t *objs, int i, int n) {
  enum gcb_topo_hop_role role = gcb__topo_role(objs[i]);
  int hint = gcb__topo_obj_gen_hint(objs[i]);
  int faces_up = role == GCB_TOPO_HOP_DEVICE || role == GCB_TOPO_HOP_SWITCH_UP;
  if (faces_up && i + 1 < n)
    return min_known(hint, gcb__topo_obj_gen_hint(objs[i + 1]));
  if (!faces_up && i > 0)
    return min_known(hint, gcb__topo_obj_gen_hint(objs[i - 1]));
  return hint;
}

static enum gcb_status build_path(hwloc_obj_t dev,
                                  const struct gcb_topo_hop **out, int *nout,
                                  struct gcb_err *err) {
  int n = hop_count(dev);
  struct gcb_topo_hop *hops = calloc((size_t)n, sizeof *hops);
  hwloc_obj_t *objs = calloc((size_t)n, sizeof *objs);
  if (hops == NULL || objs == NULL) {
    free(hops);
    free(objs);
    return gcb_err_set(err, GCB_ENOMEM, "topology: out of memory");
  }
  objs[0] = dev;
  for (int i = 1; i < n; i++)
    objs[i] = objs[i - 1]->parent;
  for (int i = 0; i < n; i++) {
    fill_hop(objs[i], &hops[i]);
    gcb__topo_link_text(hops[i].gbps, hop_gen_hint(objs, i, n), &hops[i].gen,
                        &hops[i].width, hops[i].link, sizeof hops[i].link);
  }
  free(objs);
  *out = hops;
  *nout = n;
  return GCB_OK;
}

static int nearest_switch(const struct gcb_topo *t, hwloc_obj_t o) {
  for (hwloc_obj_t p = o->parent; gcb__topo_is_pci_bridge(p); p = p->parent)
    for (int i = 0; i < t->nswitches; i++)
      if (t->switch_objs[i] == p)
        return i;
  return -1;
}

static void gpu_model(hwloc_obj_t o, char *buf, size_t len) {
  const char *model = NULL;
  for (hwloc_obj_t c = o->io_first_child; c && !model; c = c->next_sibling)
    if (c->type == HWLOC_OBJ_OS_DEVICE)
      model = hwloc_obj_get_info_by_name(c, "GPUModel");
  if (model == NULL)
    model = hwloc_obj_get_info_by_name(o, "PCIDevice");
  snprintf(buf, len, "%s", model ? model : "");
}

static enum gcb_status fill_gpu(const struct gcb_topo *t, hwloc_obj_t o,
                                struct gcb_topo_gpu *g, struct gcb_err *err) {
  const struct hwloc_pcidev_attr_s *p = &o->attr->pcidev;
  gcb__topo_obj_busid(o, g->busid, sizeof g->busid);
  g->vendor_id = p->vendor_id;
  g->device_id = p->device_id;
  g->class_id = p->class_id;
  g->vendor = p->vendor_id == 0x10de   ? "NVIDIA"
              : p->vendor_id == 0x1002 ? "AMD"
                                       : "other";
  gpu_model(o, g->model, sizeof g->model);
  struct gcb__arch a;
  gcb__topo_arch(p->vendor_id, p->device_id, g->model, &a);
  g->arch = a.name;
  g->nvlink_gen = a.nvlink_gen;
  g->pcie_switch = nearest_switch(t, o);
  g->nvlinks = p->vendor_id == 0x10de ? -1 : 0;
  enum gcb_status st = locality(t->topology, o, &g->cpus, &g->numa, err);
  if (st == GCB_OK)
    st = build_path(o, &g->path, &g->npath, err);
  if (st == GCB_OK)
    st = osdev_names(o, &g->osdevs, err);
  g->link_gbps = g->npath > 0 ? g->path[0].gbps : 0;
  return st;
}

/* OpenFabrics name first ("mlx5_0"), as NCCL and nvidia-smi name NICs. */
static void nic_name(hwloc_obj_t o, char *buf, size_t len) {
  const char *name = NULL;
  for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) {
    if (c->type != HWLOC_OBJ_OS_DEVICE || c->name == NULL)
      continue;
    if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) {
      name = c->name;
      break;
    }
    if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && name == NULL)
      name = c->name;
  }
  snprintf(buf, len, "%s", name ? name : "");
}

static enum gcb_status fill_nic(const struct gcb_topo *t, hwloc_obj_t o,
                                struct gcb_topo_nic *n, struct gcb_err *err) {
  const struct hwloc_pcidev_attr_s *p = &o->attr->pcidev;
  gcb__topo_obj_busid(o, n->busid, sizeof n->busid);
  n->vendor_id = p->vendor_id;
  n->device_id = p->device_id;
  n->class_id = p->class_id;
  nic_name(o, n->name, sizeof n->name);
  n->rdma = is_infiniband_class(p->class_id) ||
            has_osdev_type(o, HWLOC_OBJ_OSDEV_OPENFABRICS);
  n->pcie_switch = nearest_switch(t, o);
  enum gcb_status st = locality(t->topology, o, &n->cpus, &n->numa, err);
  if (st == GCB_OK)
    st = build_path(o, &n->path, &n->npath, err);
  if (st == GCB_OK)
    st = osdev_names(o, &n->osdevs, err);
  return st;
}

/* --- the discovery steps -------------------------------------------------- */

static enum gcb_status find_numa(struct gcb_topo *t, struct gcb_err *err) {
  int n = hwloc_get_nbobjs_by_type(t->topology, HWLOC_OBJ_NUMANODE);
  if (n <= 0)
    return GCB_OK;
  t->numa = calloc((size_t)n, sizeof *t->numa);
  if (t->numa == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "topology: out of memory");
  for (int i = 0; i < n; i++) {
    hwloc_obj_t o =
        hwloc_get_obj_by_type(t->topology, HWLOC_OBJ_NUMANODE, (unsigned)i);
    char *list = NULL;
    if (o == NULL || hwloc_bitmap_list_asprintf(&list, o->cpuset) < 0)
      return gcb_err_set(err, GCB_ENOMEM, "topology: out of memory");
    t->numa[i] =
        (struct gcb_topo_numa){.os_index = (int)o->os_index,
                               .cpus = list,
                               .memory_bytes = o->attr->numanode.local_memory};
    t->nnuma = i + 1;
  }
  return GCB_OK;
}

static void fill_switch(const struct gcb_topo *t, hwloc_obj_t o,
                        struct gcb_topo_switch *s) {
  gcb__topo_obj_busid(o, s->busid, sizeof s->busid);
  s->vendor_id = o->attr->bridge.upstream.pci.vendor_id;
  s->device_id = o->attr->bridge.upstream.pci.device_id;
  s->downstream_ports = bridge_children(o);
  s->uplink_gbps = gcb__topo_obj_gbps(o);
  hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t->topology, o);
  s->numa = anc && anc->nodeset && hwloc_bitmap_weight(anc->nodeset) == 1
                ? hwloc_bitmap_first(anc->nodeset)
                : -1;
}

static enum gcb_status find_switches(struct gcb_topo *t, struct gcb_err *err) {
  int cap = 0;
  for (hwloc_obj_t o = hwloc_get_next_bridge(t->topology, NULL); o;
       o = hwloc_get_next_bridge(t->topology, o)) {
    if (!is_switch(o))
      continue;
    hwloc_obj_t *objs =
        gcb__topo_grow(t->switch_objs, &cap, t->nswitches, sizeof *objs);
    if (objs == NULL)
      return gcb_err_set(err, GCB_ENOMEM, "topology: out of memory");
    t->switch_objs = objs;
    t->switch_objs[t->nswitches++] = o;
  }
  if (t->nswitches == 0)
    return GCB_OK;
  t->switches = calloc((size_t)t->nswitches, sizeof *t->switches);
  if (t->switches == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "topology: out of memory");
  for (int i = 0; i < t->nswitches; i++)
    fill_switch(t, t->switch_objs[i], &t->switches[i]);
  return GCB_OK;
}

static int skip_gpu(hwloc_obj_t o) {
  return is_gpu(o);
}

/* More devices of a kind than max (GCB_TOPO_MAX_GPUS, _NICS): refused
 * before any figure of their pairs is made. */
static enum gcb_status too_many(const struct gcb_topo *t, int n, int max,
                                const char *what, struct gcb_err *err) {
  if (n <= max)
    return GCB_OK;
  return gcb_err_set(err, GCB_EINPUT,
                     "%s: %d %s in one machine; gcbench reads at most %d "
                     "(no real machine holds more)",
                     t->source ? t->source : "this machine", n, what, max);
}

static enum gcb_status find_gpus(struct gcb_topo *t, struct gcb_err *err) {
  enum gcb_status st =
      collect(t->topology, is_gpu, NULL, &t->gpu_objs, &t->ngpus, err);
  if (st == GCB_OK)
    st = too_many(t, t->ngpus, GCB_TOPO_MAX_GPUS, "GPUs", err);
  if (st != GCB_OK || t->ngpus == 0)
    return st;
  t->gpus = calloc((size_t)t->ngpus, sizeof *t->gpus);
  if (t->gpus == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "topology: out of memory");
  /* Each GPU's index rides on its object, so that a walk up a path knows
   * a GPU when it meets one without a scan of every GPU (2,000 GPUs made
   * the all-pairs figures cubic). */
  for (int i = 0; i < t->ngpus; i++)
    t->gpu_objs[i]->userdata = &t->gpus[i];
  for (int i = 0; i < t->ngpus && st == GCB_OK; i++)
    st = fill_gpu(t, t->gpu_objs[i], &t->gpus[i], err);
  return st;
}

int gcb__topo_gpu_of(const struct gcb_topo *t, hwloc_obj_t o) {
  const struct gcb_topo_gpu *g = o ? o->userdata : NULL;
  return g != NULL && g >= t->gpus && g < t->gpus + t->ngpus
             ? (int)(g - t->gpus)
             : -1;
}

static enum gcb_status find_nics(struct gcb_topo *t, struct gcb_err *err) {
  enum gcb_status st =
      collect(t->topology, is_nic, skip_gpu, &t->nic_objs, &t->nnics, err);
  if (st == GCB_OK)
    st = too_many(t, t->nnics, GCB_TOPO_MAX_NICS, "NICs", err);
  if (st != GCB_OK || t->nnics == 0)
    return st;
  t->nics = calloc((size_t)t->nnics, sizeof *t->nics);
  if (t->nics == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "topology: out of memory");
  for (int i = 0; i < t->nnics && st == GCB_OK; i++)
    st = fill_nic(t, t->nic_objs[i], &t->nics[i], err);
  return st;
}

enum gcb_status gcb__topo_discover(struct gcb_topo *t, struct gcb_err *err) {
  enum gcb_status st = find_numa(t, err);
  if (st == GCB_OK)
    st = find_switches(t, err);
  if (st == GCB_OK)
    st = find_gpus(t, err);
  if (st == GCB_OK)
    st = find_nics(t, err);
  return st;
}

/* Strings and paths are the records' own; the public fields are const
 * only to keep callers from writing them. */
static void free_device(const char *cpus, const struct gcb_topo_hop *path,
                        const char *osdevs) {
  free((void *)cpus);
  free((void *)path);
  free((void *)osdevs);
}

void gcb__topo_devices_free(struct gcb_topo *t) {
  for (int i = 0; t->gpus && i < t->ngpus; i++)
    free_device(t->gpus[i].cpus, t->gpus[i].path, t->gpus[i].osdevs);
  for (int i = 0; t->nics && i < t->nnics; i++)
    free_device(t->nics[i].cpus, t->nics[i].path, t->nics[i].osdevs);
  for (int i = 0; i < t->nnuma; i++)
    free((void *)t->numa[i].cpus);
  free(t->gpus);
  free(t->gpu_objs);
  free(t->nics);
  free(t->nic_objs);
  free(t->numa);
  free(t->switches);
  free(t->switch_objs);
  free(t->nvpair);
  free(t->nvswitch);
}

/* --- accessors ------------------------------------------------------------ */

int gcb_topo_gpu_count(const struct gcb_topo *t) {
  return t->ngpus;
}
int gcb_topo_nic_count(const struct gcb_topo *t) {
  return t->nnics;
}
int gcb_topo_numa_count(const struct gcb_topo *t) {
  return t->nnuma;
}
int gcb_topo_switch_count(const struct gcb_topo *t) {
  return t->nswitches;
}

const struct gcb_topo_gpu *gcb_topo_gpu(const struct gcb_topo *t, int i) {
  return i >= 0 && i < t->ngpus ? &t->gpus[i] : NULL;
}

const struct gcb_topo_nic *gcb_topo_nic(const struct gcb_topo *t, int i) {
  return i >= 0 && i < t->nnics ? &t->nics[i] : NULL;
}

const struct gcb_topo_numa *gcb_topo_numa(const struct gcb_topo *t, int i) {
  return i >= 0 && i < t->nnuma ? &t->numa[i] : NULL;
}

const struct gcb_topo_switch *gcb_topo_switch(const struct gcb_topo *t, int i) {
  return i >= 0 && i < t->nswitches ? &t->switches[i] : NULL;
}
