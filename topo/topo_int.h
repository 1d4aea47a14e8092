/*
 * Internals shared by the files of topo/: the topology struct, the steps
 * gcb_topo_load() runs after hwloc has loaded, and small helpers on hwloc
 * objects. Not part of the module's public face (that is topo.h); nothing
 * outside topo/ includes this file.
 */
#ifndef GCB_TOPO_INT_H
#define GCB_TOPO_INT_H

#include <hwloc.h>
#include <stdbool.h>

#include "topo/topo.h"

struct gcb_topo {
  hwloc_topology_t topology;
  int from_xml;
  const char *source; /* the XML's path while loading; NULL: this machine */
  struct gcb_topo_vm vm;

  struct gcb_topo_gpu *gpus;
  hwloc_obj_t *gpu_objs; /* the GPUs' PCI objects, same order */
  int ngpus;
  struct gcb_topo_nic *nics;
  hwloc_obj_t *nic_objs;
  int nnics;
  struct gcb_topo_numa *numa;
  int nnuma;
  struct gcb_topo_switch *switches;
  hwloc_obj_t *switch_objs;
  int nswitches;

  int *nvpair;   /* ngpus x ngpus NVLinks between GPUs (NVSwitch included) */
  int *nvswitch; /* per GPU, NVLinks to NVSwitches */

  struct gcb_topo_fact *facts;
  int nfacts;
};

/* xml.c: reads and checks a saved topology (see gcb_topo_load); *xml is
 * NUL-terminated, *len without the NUL; freed by the caller. */
enum gcb_status gcb__topo_xml_read(const char *path, char **xml, size_t *len,
                                   struct gcb_err *err);

/* The deepest element nesting of xml (comments, processing instructions,
 * declarations and quoted attribute values skipped), stopping as soon as
 * it exceeds max; *line is the line where it did (else the line count). */
int gcb__topo_xml_depth(const char *xml, size_t len, int max, int *line);
/* 0 when every <object> has its cpuset and nodeset attributes paired with
 * their complete_ ones (hwloc dereferences the missing one); else 1 (a
 * cpuset pair) or 2 (a nodeset pair), with *line that object's line. */
int gcb__topo_xml_unpaired_set(const char *xml, size_t len, int *line);

/* topo.c: hwloc init, the I/O filter, the XML source if any (xml: its
 * checked text, which hwloc reads during the load), and the load into
 * t->topology (set, to be destroyed, even when this fails). */
enum gcb_status gcb__topo_open_hwloc(struct gcb_topo *t, const char *xml_path,
                                     const char *xml, size_t len,
                                     struct gcb_err *err);

/* xml_trial.c: GCB_OK when hwloc, in a child process, loaded the checked
 * text or refused it with an error; GCB_EINPUT naming path when the child
 * crashed or ran past GCB_TOPO_XML_TRIAL_MS; GCB_EHWLOC when no child
 * could be made. */
enum gcb_status gcb__topo_xml_trial(const char *path, const char *xml,
                                    size_t len, struct gcb_err *err);

/* binding.c: whether a CPU list is digits, ',' and '-' with every CPU at
 * most GCB_TOPO_CPU_MAX (*bad: the first one past it, else 0), before
 * hwloc parses it. */
#define GCB_TOPO_CPU_MAX (1 << 20)
bool gcb__topo_cpulist_ok(const char *list, unsigned long long *bad);

/* devices.c: GPUs, NICs, NUMA nodes, switches and their paths. */
enum gcb_status gcb__topo_discover(struct gcb_topo *t, struct gcb_err *err);
void gcb__topo_devices_free(struct gcb_topo *t);

/* The index of the GPU whose PCI object o is, or -1, in constant time
 * (discovery hangs each GPU's record on its object's userdata). */
int gcb__topo_gpu_of(const struct gcb_topo *t, hwloc_obj_t o);

/* nvlink.c: NVLink counts from the file's NVLinkBandwidth matrix. */
enum gcb_status gcb__topo_read_nvlinks(struct gcb_topo *t, struct gcb_err *err);

/* facts.c: recomputes t->facts from scratch. */
enum gcb_status gcb__topo_facts(struct gcb_topo *t, struct gcb_err *err);

/* vm.c: the hypervisor as the file's DMI strings tell it. */
void gcb__topo_vm_from_xml(struct gcb_topo *t);

/* bandwidth.c: GPU architecture from PCI ids or the model name. */
struct gcb__arch {
  const char *name; /* "Volta"; "unknown" */
  int pcie_gen;     /* highest PCIe generation; 0 unknown */
  int nvlink_gen;   /* 0 none or unknown */
};
void gcb__topo_arch(uint16_t vendor, uint16_t device, const char *model,
                    struct gcb__arch *out);

/* bandwidth.c: highest PCIe generation a bridge chip supports; 0 unknown. */
int gcb__topo_bridge_gen(uint16_t vendor, uint16_t device);

/* bandwidth.c: gen and width from a link speed, at most max_gen (0: any);
 * gen = width = 0 and every candidate in text when ambiguous. */
void gcb__topo_link_text(double gbps, int max_gen, int *gen, int *width,
                         char *text, size_t len);

/* paths.c: the PCI object of a GPU or NIC reference; NULL when invalid. */
hwloc_obj_t gcb__topo_ref_obj(const struct gcb_topo *t, struct gcb_topo_ref r);

/* paths.c: closest common ancestor of two objects (I/O ones included). */
hwloc_obj_t gcb__topo_common_ancestor(hwloc_obj_t a, hwloc_obj_t b);

/* paths.c: PCIe class between two PCI objects. */
enum gcb_topo_class gcb__topo_pcie_class(hwloc_obj_t a, hwloc_obj_t b);

/* paths.c: the candidate NICs for "nearest" (RDMA, else fast, else all). */
int gcb__topo_nic_in_pool(const struct gcb_topo *t, int nic);

/* devices.c: speed hwloc reports for a PCI object (device or bridge). */
double gcb__topo_obj_gbps(hwloc_obj_t o);

/* devices.c: "0000:19:00.0" of a PCI device or bridge. */
void gcb__topo_obj_busid(hwloc_obj_t o, char *buf, size_t len);

/* devices.c: highest PCIe generation of a PCI object's chip; 0 unknown. */
int gcb__topo_obj_gen_hint(hwloc_obj_t o);

/* devices.c: whether o is a PCI-to-PCI bridge / a host bridge. */
int gcb__topo_is_pci_bridge(hwloc_obj_t o);
int gcb__topo_is_host_bridge(hwloc_obj_t o);

/* devices.c: role of a bridge or device on the way up (see hop roles). */
enum gcb_topo_hop_role gcb__topo_role(hwloc_obj_t o);

/* Growable arrays of facts/problems share this helper (facts.c). */
void *gcb__topo_grow(void *array, int *cap, int n, size_t elem);

#endif
