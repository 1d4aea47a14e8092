/*
 * Suspicious facts of a topology, reported and never hidden: a link whose
 * two ends report different speeds (idle downtraining, or a real fault to
 * confirm under load), GPUs with different NVLink counts, GPUs behind a PCIe
 * switch with no NIC under it, GPUs without any NIC, no PCIe switch at all
 * (switch layout unknown, typical of VMs), and a virtual machine (whose PCIe
 * layout is the hypervisor's). Recomputed whenever a setter changes what
 * they depend on.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_int.h"

static const char *const fact_names[] = {
    "link-mismatch", "nvlink-uneven", "no-nic-near-gpu",
    "no-nic",        "no-switch",     "virtual-machine",
};

const char *gcb_topo_fact_name(enum gcb_topo_fact_kind k) {
  return (unsigned)k < sizeof fact_names / sizeof *fact_names ? fact_names[k]
                                                              : "?";
}

int gcb_topo_fact_count(const struct gcb_topo *t) {
  return t->nfacts;
}

const struct gcb_topo_fact *gcb_topo_fact(const struct gcb_topo *t, int i) {
  return i >= 0 && i < t->nfacts ? &t->facts[i] : NULL;
}

void *gcb__topo_grow(void *array, int *cap, int n, size_t elem) {
  if (n < *cap)
    return array;
  int grown = *cap ? 2 * *cap : 8;
  void *p = realloc(array, (size_t)grown * elem);
  if (p)
    *cap = grown;
  return p;
}

struct factbuf {
  struct gcb_topo_fact *items;
  int n, cap, oom;
};

__attribute__((format(printf, 5, 6))) static void
add(struct factbuf *b, enum gcb_topo_fact_kind kind, int gpu, int nic,
    const char *fmt, ...) {
  struct gcb_topo_fact *grown =
      b->oom ? NULL : gcb__topo_grow(b->items, &b->cap, b->n, sizeof *grown);
  if (grown == NULL) {
    b->oom = 1;
    return;
  }
  b->items = grown;
  struct gcb_topo_fact *f = &b->items[b->n++];
  *f = (struct gcb_topo_fact){.kind = kind, .gpu = gpu, .nic = nic};
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->text, sizeof f->text, fmt, ap);
  va_end(ap);
}

/* --- the checks ----------------------------------------------------------- */

static void link_mismatch(struct factbuf *b, const char *label,
                          const struct gcb_topo_hop *path, int npath, int gpu,
                          int nic) {
  if (npath < 2 || path[0].gbps <= 0 || path[1].gbps <= 0)
    return;
  const struct gcb_topo_hop *d = &path[0], *u = &path[1];
  double hi = d->gbps > u->gbps ? d->gbps : u->gbps;
  if (fabs(d->gbps - u->gbps) <= 0.01 * hi)
    return;
  add(b, GCB_TOPO_FACT_LINK_MISMATCH, gpu, nic,
      "%s %s: the link's two ends disagree: device %.2f GB/s (%s), upstream "
      "port %s %.2f GB/s (%s); idle links downtrain, so confirm under load "
      "(nvidia-smi -q -d PCI, lspci -vv LnkSta) before calling it degraded",
      label, d->busid, d->gbps, d->link[0] ? d->link : "no PCIe rate", u->busid,
      u->gbps, u->link[0] ? u->link : "no PCIe rate");
}

static void link_mismatches(const struct gcb_topo *t, struct factbuf *b) {
  char label[32];
  for (int i = 0; i < t->ngpus; i++) {
    snprintf(label, sizeof label, "GPU%d", i);
    link_mismatch(b, label, t->gpus[i].path, t->gpus[i].npath, i, -1);
  }
  for (int i = 0; i < t->nnics; i++) {
    if (!gcb__topo_nic_in_pool(t, i))
      continue; /* management NICs do not carry GPU traffic */
    snprintf(label, sizeof label, "NIC%d", i);
    link_mismatch(b, label, t->nics[i].path, t->nics[i].npath, -1, i);
  }
}

/* "0-3,5" of the GPUs whose count equals want. */
static void gpus_with(const struct gcb_topo *t, int want, char *buf,
                      size_t len) {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  buf[0] = '\0';
  if (set == NULL)
    return;
  for (int i = 0; i < t->ngpus; i++)
    if (t->gpus[i].vendor_id == 0x10de && t->gpus[i].nvlinks == want)
      hwloc_bitmap_set(set, (unsigned)i);
  hwloc_bitmap_list_snprintf(buf, len, set);
  hwloc_bitmap_free(set);
}

static void nvlink_uneven(const struct gcb_topo *t, struct factbuf *b) {
  int lo = -1, hi = -1;
  for (int i = 0; i < t->ngpus; i++) {
    int n = t->gpus[i].vendor_id == 0x10de ? t->gpus[i].nvlinks : -1;
    if (n < 0)
      continue;
    lo = lo < 0 || n < lo ? n : lo;
    hi = n > hi ? n : hi;
  }
  if (lo == hi)
    return;
  char most[96], least[96];
  gpus_with(t, hi, most, sizeof most);
  gpus_with(t, lo, least, sizeof least);
  add(b, GCB_TOPO_FACT_NVLINK_UNEVEN, -1, -1,
      "NVLink counts differ between GPUs: %d on GPU %s, %d on GPU %s: a link "
      "is down or a GPU sits in another slot (nvidia-smi nvlink -s)",
      hi, most, lo, least);
}

static int has_nic_under_switch(const struct gcb_topo *t, int gpu) {
  for (int i = 0; i < t->nnics; i++) {
    enum gcb_topo_class c =
        gcb__topo_pcie_class(t->gpu_objs[gpu], t->nic_objs[i]);
    if (gcb__topo_nic_in_pool(t, i) && (c == GCB_TOPO_PIX || c == GCB_TOPO_PXB))
      return 1;
  }
  return 0;
}

/* GPUs behind a PCIe switch without an (RDMA, or fast) NIC under it. */
static void no_nic_near(const struct gcb_topo *t, struct factbuf *b,
                        hwloc_bitmap_t set) {
  int first = -1;
  for (int i = 0; i < t->ngpus; i++)
    if (t->gpus[i].pcie_switch >= 0 && !has_nic_under_switch(t, i)) {
      hwloc_bitmap_set(set, (unsigned)i);
      first = first < 0 ? i : first;
    }
  if (first < 0)
    return;
  char list[96];
  int nic = -1;
  enum gcb_topo_class cls = GCB_TOPO_SYS;
  hwloc_bitmap_list_snprintf(list, sizeof list, set);
  gcb_topo_nearest_nics(t, first, &nic, 1, &cls);
  add(b, GCB_TOPO_FACT_NO_NIC_NEAR_GPU,
      hwloc_bitmap_weight(set) == 1 ? first : -1, -1,
      "GPU %s: behind a PCIe switch with no NIC under it, so GPUDirect RDMA "
      "crosses the host bridge (nearest NIC of GPU%d: %s, %s)",
      list, first, nic >= 0 ? t->nics[nic].name : "?",
      gcb_topo_class_name(cls));
}

static void nic_placement(const struct gcb_topo *t, struct factbuf *b) {
  if (t->ngpus > 0 && t->nnics == 0) {
    add(b, GCB_TOPO_FACT_NO_NIC, -1, -1,
        "no NIC in the topology: inter-node traffic has no local path "
        "(or the capture left NICs out)");
    return;
  }
  if (t->vm.detected)
    return; /* switch sharing is the hypervisor's: unknown */
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == NULL) {
    b->oom = 1;
    return;
  }
  no_nic_near(t, b, set);
  hwloc_bitmap_free(set);
}

static void layout(const struct gcb_topo *t, struct factbuf *b) {
  if (t->nswitches == 0 && t->ngpus + t->nnics > 0)
    add(b, GCB_TOPO_FACT_NO_SWITCH, -1, -1,
        "no PCIe switch in the topology: switch layout unknown (VMs hide "
        "switches; on bare metal the devices sit on root ports)");
  if (t->vm.detected)
    add(b, GCB_TOPO_FACT_VIRTUAL, -1, -1,
        "virtual machine (%s; %s): the PCIe layout is the hypervisor's, so "
        "switch sharing and P2P expectations are unknown, not judged; "
        "passthrough often disables P2P",
        t->vm.hypervisor, t->vm.evidence);
}

enum gcb_status gcb__topo_facts(struct gcb_topo *t, struct gcb_err *err) {
  struct factbuf b = {0};
  link_mismatches(t, &b);
  nvlink_uneven(t, &b);
  nic_placement(t, &b);
  layout(t, &b);
  if (b.oom) {
    free(b.items);
    return gcb_err_set(err, GCB_ENOMEM, "topology facts: out of memory");
  }
  free(t->facts);
  t->facts = b.items;
  t->nfacts = b.n;
  return GCB_OK;
}
