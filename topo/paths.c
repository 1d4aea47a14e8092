/*
 * Path classes between devices, following the nvidia-smi topo -m legend:
 * from the two PCI objects' closest common ancestor, a PCI bridge with at
 * most one bridge between it and each device is PIX (one switch), a deeper
 * one PXB, a host bridge PHB; above the host bridges, the same NUMA node is
 * NODE and different ones SYS. NVLinks between two GPUs make the class NV#
 * whatever the PCIe path. Also the nearest NICs of each GPU.
 */
#include <stdio.h>

#include "topo/topo_int.h"

static const char *const class_names[] = {"X",   "NV",   "PIX", "PXB",
                                          "PHB", "NODE", "SYS"};

const char *gcb_topo_class_name(enum gcb_topo_class c) {
  return (unsigned)c < sizeof class_names / sizeof *class_names ? class_names[c]
                                                                : "?";
}

void gcb_topo_path_label(const struct gcb_topo_path *p, char *buf, size_t len) {
  if (p->cls == GCB_TOPO_NV)
    snprintf(buf, len, "NV%d", p->nvlinks);
  else
    snprintf(buf, len, "%s", gcb_topo_class_name(p->cls));
}

hwloc_obj_t gcb__topo_ref_obj(const struct gcb_topo *t, struct gcb_topo_ref r) {
  if (r.kind == GCB_TOPO_GPU && r.index >= 0 && r.index < t->ngpus)
    return t->gpu_objs[r.index];
  if (r.kind == GCB_TOPO_NIC && r.index >= 0 && r.index < t->nnics)
    return t->nic_objs[r.index];
  return NULL;
}

static int is_ancestor(hwloc_obj_t anc, hwloc_obj_t o) {
  for (; o; o = o->parent)
    if (o == anc)
      return 1;
  return 0;
}

/* hwloc_get_common_ancestor_obj() compares depths, which I/O objects do
 * not have: walk parents instead. */
hwloc_obj_t gcb__topo_common_ancestor(hwloc_obj_t a, hwloc_obj_t b) {
  for (hwloc_obj_t x = a; x; x = x->parent)
    if (is_ancestor(x, b))
      return x;
  return NULL;
}

/* Bridges strictly between o and its ancestor anc. */
static int bridges_between(hwloc_obj_t o, hwloc_obj_t anc) {
  int n = 0;
  for (hwloc_obj_t x = o->parent; x && x != anc; x = x->parent)
    n += x->type == HWLOC_OBJ_BRIDGE;
  return n;
}

static hwloc_obj_t cpu_side(hwloc_obj_t o) {
  while (o && o->cpuset == NULL)
    o = o->parent;
  return o;
}

enum gcb_topo_class gcb__topo_pcie_class(hwloc_obj_t a, hwloc_obj_t b) {
  if (a == b)
    return GCB_TOPO_X;
  hwloc_obj_t c = gcb__topo_common_ancestor(a, b);
  if (gcb__topo_is_host_bridge(c))
    return GCB_TOPO_PHB;
  if (c && c->type == HWLOC_OBJ_BRIDGE)
    return bridges_between(a, c) <= 1 && bridges_between(b, c) <= 1
               ? GCB_TOPO_PIX
               : GCB_TOPO_PXB;
  if (c && c->type == HWLOC_OBJ_PCI_DEVICE)
    return GCB_TOPO_PIX; /* one is a function below the other */
  hwloc_obj_t ca = cpu_side(a), cb = cpu_side(b);
  return ca && cb && hwloc_bitmap_isequal(ca->nodeset, cb->nodeset)
             ? GCB_TOPO_NODE
             : GCB_TOPO_SYS;
}

static int nvlinks_between(const struct gcb_topo *t, struct gcb_topo_ref a,
                           struct gcb_topo_ref b) {
  if (a.kind != GCB_TOPO_GPU || b.kind != GCB_TOPO_GPU || a.index == b.index ||
      t->nvpair == NULL)
    return 0;
  return t->nvpair[a.index * t->ngpus + b.index];
}

enum gcb_status gcb_topo_path(const struct gcb_topo *t, struct gcb_topo_ref a,
                              struct gcb_topo_ref b, struct gcb_topo_path *out,
                              struct gcb_err *err) {
  hwloc_obj_t oa = gcb__topo_ref_obj(t, a), ob = gcb__topo_ref_obj(t, b);
  if (oa == NULL || ob == NULL)
    return gcb_err_set(err, GCB_EINPUT,
                       "no such device pair (%d GPUs, %d NICs)", t->ngpus,
                       t->nnics);
  out->pcie = gcb__topo_pcie_class(oa, ob);
  out->nvlinks = nvlinks_between(t, a, b);
  out->cls = out->nvlinks > 0 ? GCB_TOPO_NV : out->pcie;
  return GCB_OK;
}

/* --- nearest NICs --------------------------------------------------------- */

/* A NIC fast enough for GPU traffic: gen3 x8 (about 50 Gb/s) or more. */
static int is_fast(const struct gcb_topo_nic *n) {
  return n->npath > 0 && n->path[0].gbps >= 7.8;
}

int gcb__topo_nic_in_pool(const struct gcb_topo *t, int nic) {
  int any_rdma = 0, any_fast = 0;
  for (int i = 0; i < t->nnics; i++) {
    any_rdma |= t->nics[i].rdma;
    any_fast |= is_fast(&t->nics[i]);
  }
  if (any_rdma)
    return t->nics[nic].rdma;
  return any_fast ? is_fast(&t->nics[nic]) : 1;
}

int gcb_topo_nearest_nics(const struct gcb_topo *t, int gpu, int *nics, int max,
                          enum gcb_topo_class *cls) {
  if (gpu < 0 || gpu >= t->ngpus)
    return -1;
  enum gcb_topo_class best = GCB_TOPO_SYS;
  int n = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < t->nnics; i++) {
      if (!gcb__topo_nic_in_pool(t, i))
        continue;
      enum gcb_topo_class c =
          gcb__topo_pcie_class(t->gpu_objs[gpu], t->nic_objs[i]);
      if (pass == 0 && c < best)
        best = c;
      if (pass == 1 && c == best && n++ < max)
        nics[n - 1] = i;
    }
  }
  if (cls)
    *cls = best;
  return n;
}
