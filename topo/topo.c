/*
 * hwloc topology: loading (live, or XML read and checked by xml.c;
 * important I/O objects kept), then the discovery steps of the other topo/
 * files (devices, NVLinks, the hypervisor, facts); a machine summary;
 * CPU-binding queries.
 */
#include <errno.h>
#include <hwloc.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_int.h"

void gcb_topo_free(struct gcb_topo *t) {
  if (t == NULL)
    return;
  gcb__topo_devices_free(t);
  free(t->facts);
  if (t->topology)
    hwloc_topology_destroy(t->topology);
  free(t);
}

/* Everything gcb_topo derives once hwloc has loaded. */
static enum gcb_status discover(struct gcb_topo *t, struct gcb_err *err) {
  if (t->from_xml) {
    gcb__topo_vm_from_xml(t);
  } else if (gcb_topo_vm_read(NULL, &t->vm, NULL) != GCB_OK) {
    /* An unreadable /proc or /sys must not stop a run: unknown is fine. */
    snprintf(t->vm.evidence, sizeof t->vm.evidence,
             "could not read /proc/cpuinfo or DMI strings");
  }
  enum gcb_status st = gcb__topo_discover(t, err);
  if (st == GCB_OK)
    st = gcb__topo_read_nvlinks(t, err);
  if (st == GCB_OK)
    st = gcb__topo_facts(t, err);
  return st;
}

enum gcb_status gcb__topo_open_hwloc(struct gcb_topo *t, const char *xml_path,
                                     const char *xml, size_t len,
                                     struct gcb_err *err) {
  if (hwloc_topology_init(&t->topology) != 0) {
    t->topology = NULL;
    return gcb_err_set(err, GCB_EHWLOC, "hwloc_topology_init failed");
  }
  /* Without this filter hwloc drops PCI and OS devices, GPUs included. */
  if (hwloc_topology_set_io_types_filter(t->topology,
                                         HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0)
    return gcb_err_set(err, GCB_EHWLOC,
                       "hwloc_topology_set_io_types_filter failed");
  /* A saved topology is a whole machine's, not the cgroup lstopo ran in;
   * and hwloc 2.9 crashes removing every PU of an XML whose allowed_cpuset
   * is empty (found by fuzz_topo). */
  if (xml && hwloc_topology_set_flags(
                 t->topology, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) != 0)
    return gcb_err_set(err, GCB_EHWLOC, "hwloc_topology_set_flags failed");
  /* the size hwloc wants counts the NUL, as its export gives it */
  if (xml && (len >= INT_MAX ||
              hwloc_topology_set_xmlbuffer(t->topology, xml, (int)len + 1)))
    return gcb_err_set(err, GCB_EINPUT,
                       "%s: cannot read as an hwloc XML topology", xml_path);
  if (hwloc_topology_load(t->topology) != 0)
    return xml_path
               ? gcb_err_set(err, GCB_EINPUT,
                             "%s: not a valid hwloc XML topology", xml_path)
               : gcb_err_set(err, GCB_EHWLOC, "hwloc_topology_load failed");
  return GCB_OK;
}

enum gcb_status gcb_topo_load(const char *xml_path, struct gcb_topo **out,
                              struct gcb_err *err) {
  *out = NULL;
  struct gcb_topo *t = calloc(1, sizeof *t);
  if (t == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "topology: out of memory");
  t->from_xml = xml_path != NULL;
  t->source = xml_path;
  char *xml = NULL;
  size_t len = 0;
  enum gcb_status st =
      xml_path ? gcb__topo_xml_read(xml_path, &xml, &len, err) : GCB_OK;
  if (st == GCB_OK && xml_path)
    st = gcb__topo_xml_trial(xml_path, xml, len, err);
  if (st == GCB_OK)
    st = gcb__topo_open_hwloc(t, xml_path, xml, len, err);
  free(xml);
  if (st == GCB_OK)
    st = discover(t, err);
  t->source = NULL; /* the caller's string */
  if (st != GCB_OK) {
    gcb_topo_free(t);
    return st;
  }
  *out = t;
  return GCB_OK;
}

int gcb_topo_is_from_xml(const struct gcb_topo *t) {
  return t->from_xml;
}

static int count_type(hwloc_topology_t topo, hwloc_obj_type_t type) {
  int n = hwloc_get_nbobjs_by_type(topo, type);
  return n > 0 ? n : 0;
}

/* Sum of the caches at the deepest level that is still a data cache shared
 * by the most PUs: the last-level cache. */
static uint64_t llc_bytes(hwloc_topology_t topo) {
  static const hwloc_obj_type_t levels[] = {
      HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE,
      HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE};
  for (size_t i = 0; i < sizeof levels / sizeof *levels; i++) {
    int n = hwloc_get_nbobjs_by_type(topo, levels[i]);
    if (n <= 0)
      continue;
    uint64_t sum = 0;
    for (int j = 0; j < n; j++) {
      hwloc_obj_t o = hwloc_get_obj_by_type(topo, levels[i], (unsigned)j);
      sum += o->attr->cache.size;
    }
    return sum;
  }
  return 0;
}

void gcb_topo_summarize(const struct gcb_topo *t,
                        struct gcb_topo_summary *out) {
  memset(out, 0, sizeof *out);
  hwloc_topology_t topo = t->topology;
  out->packages = count_type(topo, HWLOC_OBJ_PACKAGE);
  out->numa_nodes = count_type(topo, HWLOC_OBJ_NUMANODE);
  out->cores = count_type(topo, HWLOC_OBJ_CORE);
  out->pus = count_type(topo, HWLOC_OBJ_PU);
  out->llc_bytes = llc_bytes(topo);
  for (int i = 0; i < out->numa_nodes; i++) {
    hwloc_obj_t n =
        hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
    out->memory_bytes += n->attr->numanode.local_memory;
  }
  hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
  const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
  snprintf(out->cpu_model, sizeof out->cpu_model, "%s", model ? model : "");
  /* Some CPUs pad their model string with blanks ("AMD EPYC 7A53 ...   "). */
  for (size_t n = strlen(out->cpu_model); n > 0 && out->cpu_model[n - 1] == ' ';
       n--)
    out->cpu_model[n - 1] = '\0';
}

enum gcb_status gcb_topo_own_binding(const struct gcb_topo *t, char *list,
                                     size_t list_len, int *pus,
                                     struct gcb_err *err) {
  if (t->from_xml)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "CPU binding cannot be queried on an XML topology");
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "hwloc_bitmap_alloc failed");
  enum gcb_status st = GCB_OK;
  if (hwloc_get_cpubind(t->topology, set, HWLOC_CPUBIND_PROCESS) != 0 &&
      hwloc_get_cpubind(t->topology, set, HWLOC_CPUBIND_THREAD) != 0) {
    st = gcb_err_set(err, GCB_EHWLOC, "hwloc_get_cpubind failed");
  } else {
    /* Only PUs that exist in the topology count (the OS may report more). */
    hwloc_bitmap_and(set, set, hwloc_topology_get_topology_cpuset(t->topology));
    hwloc_bitmap_list_snprintf(list, list_len, set);
    *pus = hwloc_bitmap_weight(set);
  }
  hwloc_bitmap_free(set);
  return st;
}

enum gcb_status gcb_topo_binding_is_whole(const struct gcb_topo *t,
                                          const char *list, int *whole,
                                          struct gcb_err *err) {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "hwloc_bitmap_alloc failed");
  enum gcb_status st = GCB_OK;
  unsigned long long bad;
  if (!gcb__topo_cpulist_ok(list, &bad) ||
      hwloc_bitmap_list_sscanf(set, list) != 0)
    st = gcb_err_set(err, GCB_EINPUT, "invalid CPU list '%s'", list);
  else
    *whole = hwloc_bitmap_isincluded(
        hwloc_topology_get_topology_cpuset(t->topology), set);
  hwloc_bitmap_free(set);
  return st;
}

/* The release ("2.9.0") is only recorded on a loaded topology's root;
 * hwloc_get_api_version() gives the API level, which lags releases (2.9 has
 * API 2.8). A one-PU synthetic topology costs microseconds (with an explicit
 * NUMA node: hwloc 2.9 overlaps a memcpy adding one itself). */
void gcb_topo_hwloc_version(char *buf, size_t len) {
  unsigned v = hwloc_get_api_version();
  snprintf(buf, len, "%u.%u.%u (API)", v >> 16, (v >> 8) & 0xff, v & 0xff);
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) != 0)
    return;
  if (hwloc_topology_set_synthetic(t, "node:1 pu:1") == 0 &&
      hwloc_topology_load(t) == 0) {
    const char *release =
        hwloc_obj_get_info_by_name(hwloc_get_root_obj(t), "hwlocVersion");
    if (release)
      snprintf(buf, len, "%s", release);
  }
  hwloc_topology_destroy(t);
}
