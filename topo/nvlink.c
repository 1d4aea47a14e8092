/*
 * NVLink counts. From a file: hwloc's NVML backend records an
 * "NVLinkBandwidth" distance matrix between GPU OS devices (nvml*), NVSwitch
 * PCI devices and CPU packages, each entry the sum over links of 20000 MB/s
 * (NVLink1) or 25000 MB/s (NVLink2-4), so links = value / that rate. GPUs
 * attached to NVSwitches reach one another over the switch fabric with
 * as many links as the lesser of their switch links (hwloc does not record
 * switch-to-switch links). At run time, NVML counts override the file's
 * through the setters. hwloc 2.9 drops links of NVLink versions it does
 * not recognise (A100/H100 report enum values), so a live hwloc matrix
 * may be incomplete: prefer NVML.
 */
#include <math.h>
#include <stdlib.h>

#include "topo/topo_int.h"

/* MB/s per link hwloc used for this GPU's entries. */
static double hwloc_link_mbs(const struct gcb_topo_gpu *g, uint64_t value) {
  if (g->nvlink_gen == 1)
    return 20000;
  if (g->nvlink_gen >= 2)
    return 25000;
  return value % 25000 == 0 || value % 20000 != 0 ? 25000 : 20000;
}

/* The GPU index of a matrix object (an OS device below the GPU's PCI
 * object, or the PCI object itself); -1 otherwise. */
static int matrix_gpu(const struct gcb_topo *t, hwloc_obj_t o) {
  return gcb__topo_gpu_of(t, o->type == HWLOC_OBJ_OS_DEVICE ? o->parent : o);
}

static void add_row(struct gcb_topo *t, const struct hwloc_distances_s *d,
                    unsigned i, int gi, int *cpu, int *total) {
  for (unsigned j = 0; j < d->nbobjs; j++) {
    uint64_t v = d->values[i * d->nbobjs + j];
    if (j == i || v == 0)
      continue;
    int links = (int)lround((double)v / hwloc_link_mbs(&t->gpus[gi], v));
    int gj = matrix_gpu(t, d->objs[j]);
    *total += links;
    if (gj >= 0)
      t->nvpair[gi * t->ngpus + gj] = links;
    else if (d->objs[j]->type == HWLOC_OBJ_PCI_DEVICE)
      t->nvswitch[gi] += links;
    else
      *cpu += links;
  }
}

/* GPU pairs that both reach NVSwitches talk over the switch fabric. */
static void add_switch_fabric(struct gcb_topo *t) {
  for (int a = 0; a < t->ngpus; a++)
    for (int b = 0; b < t->ngpus; b++) {
      int sa = t->nvswitch[a], sb = t->nvswitch[b];
      if (a != b && sa > 0 && sb > 0)
        t->nvpair[a * t->ngpus + b] += sa < sb ? sa : sb;
    }
}

static void apply_matrix(struct gcb_topo *t,
                         const struct hwloc_distances_s *d) {
  for (int g = 0; g < t->ngpus; g++)
    if (t->gpus[g].vendor_id == 0x10de)
      t->gpus[g].nvlinks = 0; /* the matrix lists every NVML GPU */
  for (unsigned i = 0; i < d->nbobjs; i++) {
    int gi = matrix_gpu(t, d->objs[i]);
    if (gi < 0)
      continue;
    int cpu = 0, total = 0;
    add_row(t, d, i, gi, &cpu, &total);
    t->gpus[gi].cpu_nvlinks = cpu;
    t->gpus[gi].nvlinks = total;
  }
  add_switch_fabric(t);
}

enum gcb_status gcb__topo_read_nvlinks(struct gcb_topo *t,
                                       struct gcb_err *err) {
  if (t->ngpus == 0)
    return GCB_OK;
  t->nvpair = calloc((size_t)t->ngpus * (size_t)t->ngpus, sizeof *t->nvpair);
  t->nvswitch = calloc((size_t)t->ngpus, sizeof *t->nvswitch);
  if (t->nvpair == NULL || t->nvswitch == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "topology: out of memory");
  unsigned nr = 1;
  struct hwloc_distances_s *d = NULL;
  if (hwloc_distances_get_by_name(t->topology, "NVLinkBandwidth", &nr, &d, 0) !=
      0)
    return gcb_err_set(err, GCB_EHWLOC,
                       "hwloc_distances_get_by_name(NVLinkBandwidth) failed");
  if (nr == 0)
    return GCB_OK;
  apply_matrix(t, d);
  hwloc_distances_release(t->topology, d);
  return GCB_OK;
}
