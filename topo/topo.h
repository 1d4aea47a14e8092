/*
 * Topology through hwloc: loading (live or a saved XML, I/O objects kept),
 * a machine summary, and the CPU binding of the calling process.
 *
 * Binding queries on an XML topology return fake results (hwloc's rule), so
 * functions that take a binding accept it as a cpuset list string ("0-3,8")
 * and only gcb_topo_own_binding() asks the operating system.
 */
#ifndef GCB_TOPO_H
#define GCB_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "common/status.h"

struct gcb_topo;

/* Counts and sizes of one machine, for the results document. */
struct gcb_topo_summary {
  int packages;
  int numa_nodes;
  int cores;
  int pus;
  uint64_t llc_bytes;     /* sum over all last-level caches; 0 if unknown */
  uint64_t memory_bytes;  /* total memory of the NUMA nodes */
  char cpu_model[128];    /* first package's CPUModel info; "" if unknown */
};

/*
 * Loads the topology of this machine (xml_path == NULL) or of a saved hwloc
 * XML file, keeping important I/O objects (PCI devices, OS devices).
 * GCB_EINPUT for an unreadable or malformed file, naming it; GCB_EHWLOC for
 * other hwloc failures.
 */
enum gcb_status gcb_topo_load(const char *xml_path, struct gcb_topo **out,
                              struct gcb_err *err);

/* Frees; NULL is a no-op. */
void gcb_topo_free(struct gcb_topo *t);

/* Whether the topology came from an XML file rather than this machine. */
int gcb_topo_is_from_xml(const struct gcb_topo *t);

void gcb_topo_summarize(const struct gcb_topo *t, struct gcb_topo_summary *out);

/*
 * The calling process's CPU binding as an hwloc list string ("0-1,4") and
 * the number of PUs in it. On an XML topology, GCB_EUNSUPPORTED.
 */
enum gcb_status gcb_topo_own_binding(const struct gcb_topo *t, char *list,
                                     size_t list_len, int *pus,
                                     struct gcb_err *err);

/*
 * Whether a binding (list string) covers every PU of the machine, i.e. the
 * process is effectively unbound. GCB_EINPUT for a malformed list.
 */
enum gcb_status gcb_topo_binding_is_whole(const struct gcb_topo *t,
                                          const char *list, int *whole,
                                          struct gcb_err *err);

/* hwloc version string of the library in use ("2.9.0"). */
void gcb_topo_hwloc_version(char *buf, size_t len);

#endif
