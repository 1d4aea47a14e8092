/*
 * Finding a GPU or NIC by its PCI bus id, in any form common/busid.h
 * parses: how CUDA devices are joined to hwloc objects.
 */
#include "topo/topo_int.h"

static int find_busid(hwloc_obj_t *objs, int n, const char *busid) {
  struct gcb_busid id;
  if (gcb_busid_parse(busid, &id, NULL) != GCB_OK)
    return -1;
  for (int i = 0; i < n; i++) {
    const struct hwloc_pcidev_attr_s *p = &objs[i]->attr->pcidev;
    if (p->domain == id.domain && p->bus == id.bus && p->dev == id.dev &&
        p->func == id.func)
      return i;
  }
  return -1;
}

int gcb_topo_find_gpu_by_busid(const struct gcb_topo *t, const char *busid) {
  return find_busid(t->gpu_objs, t->ngpus, busid);
}

int gcb_topo_find_nic_by_busid(const struct gcb_topo *t, const char *busid) {
  return find_busid(t->nic_objs, t->nnics, busid);
}
