/*
 * The node's topology summary in the results document (nodes[].topology,
 * docs/TOPOLOGY.md) and in `gcbench topo --format json`, built from a loaded
 * gcb_topo, with its schema rows: GPUs (PCI bus id, ids, NUMA node, local
 * CPUs, PCIe path with link generation and width per hop, NVLinks, nearest
 * NICs, expected host link), NICs, NUMA nodes, PCIe switches, the
 * path-class matrices over GPUs and NICs, expected GPU-pair bandwidths, the
 * hypervisor, the suspicious facts and the placement problems. Unknown
 * numbers are null. Every json_pack call steals its "o" arguments, so a
 * failure anywhere yields NULL without leaks. Read by model.c.
 */
#include "reports/document/results_int.h"

#include <math.h>
#include <stdio.h>

#include "reports/document/model.h"

/* ---- schema rows -------------------------------------------------------- */

/* What every reader relies on is required (a GPU's index and bus id, the
 * source, the device list of the matrices); the rest is typed where it is
 * present: a summary of an older gcbench, or one crafted by hand for a
 * test, may leave it out, and readers treat a missing member as unknown. */

static const char *const sources[] = {"live", "xml", NULL};

static const struct gcb__field hop_fields[] = {
    REQ("busid", &gcb__n_str, IN(hop, busid)),
    OPT("role", &gcb__n_str),
    OPT("pci_id", &gcb__n_str),
    OPT("gbps", &gcb__n_num_null, IN(hop, gbps)),
    OPT("gen", &gcb__n_int_null, IN(hop, gen)),
    OPT("width", &gcb__n_int_null, IN(hop, width)),
    OPT("link", &gcb__n_str_null, IN(hop, link)),
    {0},
};
static const struct gcb__node n_path = {.types = T_ARR,
                                        .items = OBJ(hop_fields)};

static const struct gcb__field host_link_fields[] = {
    OPT("expected_gbps", &gcb__n_num_null),
    OPT("basis", &gcb__n_str, IN(gpu, host_basis)),
    {0},
};
static const struct gcb__field nearest_fields[] = {
    OPT("nics", &gcb__n_int_array),
    OPT("class", &gcb__n_str_null),
    {0},
};

static const struct gcb__field gpu_fields[] = {
    REQ("index", &gcb__n_int, IN(gpu, index)),
    REQ("busid", &gcb__n_str, IN(gpu, busid)),
    OPT("vendor", &gcb__n_str),
    OPT("pci_id", &gcb__n_str),
    OPT("class", &gcb__n_str),
    OPT("model", &gcb__n_str_null, IN(gpu, model)),
    OPT("arch", &gcb__n_str, IN(gpu, arch)),
    OPT("numa", &gcb__n_int_null, IN(gpu, numa)),
    OPT("cpus", &gcb__n_str, IN(gpu, cpus)),
    OPT("link_gbps", &gcb__n_num_null, IN(gpu, link_gbps)),
    OPT("pcie_path", &n_path),
    OPT("pcie_switch", &gcb__n_int_null, IN(gpu, pcie_switch)),
    OPT("nvlinks", &gcb__n_int_null, IN(gpu, nvlinks)),
    OPT("cpu_nvlinks", &gcb__n_int),
    OPT("os_devices", &gcb__n_str),
    OPT("nearest_nic", OBJ(nearest_fields)),
    OPT("host_link", NODE(.types = T_OBJ | T_NULL, .fields = host_link_fields)),
    {0},
};

static const struct gcb__field nic_fields[] = {
    REQ("index", &gcb__n_int, IN(nic, index)),
    REQ("busid", &gcb__n_str, IN(nic, busid)),
    OPT("name", &gcb__n_str_null, IN(nic, name)),
    OPT("rdma", &gcb__n_bool),
    OPT("pci_id", &gcb__n_str),
    OPT("class", &gcb__n_str),
    OPT("numa", &gcb__n_int_null, IN(nic, numa)),
    OPT("cpus", &gcb__n_str),
    OPT("link_gbps", &gcb__n_num_null),
    OPT("pcie_path", &n_path),
    OPT("pcie_switch", &gcb__n_int_null, IN(nic, pcie_switch)),
    OPT("os_devices", &gcb__n_str),
    {0},
};

static const struct gcb__field numa_fields[] = {
    REQ("os_index", &gcb__n_int),
    OPT("cpus", &gcb__n_str),
    OPT("memory_bytes", &gcb__n_int),
    {0},
};

static const struct gcb__field switch_fields[] = {
    REQ("busid", &gcb__n_str, IN(switch, busid)),
    OPT("pci_id", &gcb__n_str),
    OPT("downstream_ports", &gcb__n_int),
    OPT("uplink_gbps", &gcb__n_num_null, IN(switch, uplink_gbps)),
    OPT("numa", &gcb__n_int_null),
    {0},
};

/* The matrices: one row per device, GPUs first, then NICs. */
static const struct gcb__field paths_fields[] = {
    REQ("devices", &gcb__n_str_array),
    OPT("matrix", ARR(&gcb__n_str_array)),
    OPT("pcie", ARR(&gcb__n_str_array)),
    OPT("expected_gbps", ARR(ARR(&gcb__n_num_null))),
    {0},
};

static const struct gcb__field vm_fields[] = {
    REQ("detected", &gcb__n_bool),
    OPT("name", &gcb__n_str_null),
    OPT("evidence", &gcb__n_str),
    {0},
};

static const struct gcb__field fact_fields[] = {
    REQ("kind", &gcb__n_str, IN(fact, kind)),
    OPT("gpu", &gcb__n_int_null, IN(fact, gpu)),
    OPT("nic", &gcb__n_int_null, IN(fact, nic)),
    REQ("text", &gcb__n_str, IN(fact, text)),
    {0},
};

static const struct gcb__field problem_fields[] = {
    REQ("kind", &gcb__n_str, IN(problem, kind)),
    OPT("rank", &gcb__n_int_null, IN(problem, rank)),
    OPT("other_rank", &gcb__n_int_null, IN(problem, other_rank)),
    OPT("gpu", &gcb__n_int_null, IN(problem, gpu)),
    REQ("what", &gcb__n_str, IN(problem, what)),
    OPT("fix", &gcb__n_str, IN(problem, fix)),
    {0},
};

static const struct gcb__field topology_fields[] = {
    REQ("source", NODE(.types = T_STR, .choices = sources)),
    OPT("hypervisor", OBJ(vm_fields)),
    REQ("gpus", ARR(OBJ(gpu_fields))),
    OPT("nics", ARR(OBJ(nic_fields))),
    OPT("numa_nodes", ARR(OBJ(numa_fields))),
    OPT("pcie_switches", ARR(OBJ(switch_fields))),
    OPT("paths", OBJ(paths_fields)),
    OPT("facts", ARR(OBJ(fact_fields))),
    OPT("placement", ARR(OBJ(problem_fields))),
    {0},
};
const struct gcb__node gcb__n_topology = {.types = T_OBJ,
                                          .fields = topology_fields};

/* ---- writer ------------------------------------------------------------- */

static json_t *pci_id(uint16_t vendor, uint16_t device) {
  char buf[16];
  snprintf(buf, sizeof buf, "%04x:%04x", vendor, device);
  return json_string(buf);
}

static json_t *class_id(uint16_t cls) {
  char buf[8];
  snprintf(buf, sizeof buf, "%04x", cls);
  return json_string(buf);
}

/* A rate in GB/s: unknown (0, or not a finite number: hwloc reads an XML
 * topology's link speed with atof, "inf" and "nan" too) is null. */
static json_t *gbps_json(double gbps) {
  return gbps > 0 && isfinite(gbps) ? json_real(gbps) : json_null();
}

static const char *role_name(enum gcb_topo_hop_role r) {
  static const char *const names[] = {"device", "switch-downstream",
                                      "switch-upstream", "root-port"};
  return (unsigned)r < 4 ? names[r] : "?";
}

static json_t *hop_json(const struct gcb_topo_hop *h) {
  return json_pack(
      "{s:s, s:s, s:o, s:o?, s:o?, s:o?, s:o?}", "busid", h->busid, "role",
      role_name(h->role), "pci_id", pci_id(h->vendor_id, h->device_id), "gbps",
      gbps_json(h->gbps), "gen", h->gen ? json_integer(h->gen) : json_null(),
      "width", h->width ? json_integer(h->width) : json_null(), "link",
      gcb__str_or_null(h->link));
}

static json_t *path_json(const struct gcb_topo_hop *path, int n) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++)
    a = gcb__json_push(a, hop_json(&path[i]));
  return a;
}

static json_t *host_link_json(const struct gcb_topo *t, int gpu) {
  double gbps = 0;
  char basis[256];
  struct gcb_topo_ref a = {GCB_TOPO_GPU, gpu}, host = {GCB_TOPO_HOST, -1};
  if (gcb_topo_expected_gbps(t, a, host, &gbps, basis, sizeof basis, NULL) !=
      GCB_OK)
    return json_null();
  return json_pack("{s:o, s:s}", "expected_gbps", gbps_json(gbps), "basis",
                   basis);
}

static json_t *nearest_json(const struct gcb_topo *t, int gpu) {
  int nics[64];
  enum gcb_topo_class cls;
  int n = gcb_topo_nearest_nics(t, gpu, nics, 64, &cls);
  json_t *list = json_array();
  for (int i = 0; list && i < n && i < 64; i++)
    list = gcb__json_push(list, json_integer(nics[i]));
  return json_pack("{s:o, s:o}", "nics", list, "class",
                   n > 0 ? json_string(gcb_topo_class_name(cls)) : json_null());
}

static json_t *gpu_json(const struct gcb_topo *t, int i) {
  const struct gcb_topo_gpu *g = gcb_topo_gpu(t, i);
  return json_pack(
      "{s:i, s:s, s:s, s:o, s:o, s:o?, s:s, s:o, s:s, s:o?, s:o, s:o, s:o, "
      "s:i, s:s, s:o, s:o}",
      "index", i, "busid", g->busid, "vendor", g->vendor, "pci_id",
      pci_id(g->vendor_id, g->device_id), "class", class_id(g->class_id),
      "model", gcb__str_or_null(g->model), "arch", g->arch, "numa",
      gcb__int_or_null(g->numa), "cpus", g->cpus, "link_gbps",
      gbps_json(g->link_gbps), "pcie_path", path_json(g->path, g->npath),
      "pcie_switch", gcb__int_or_null(g->pcie_switch), "nvlinks",
      gcb__int_or_null(g->nvlinks), "cpu_nvlinks", g->cpu_nvlinks, "os_devices",
      g->osdevs, "nearest_nic", nearest_json(t, i), "host_link",
      host_link_json(t, i));
}

static json_t *nic_json(const struct gcb_topo *t, int i) {
  const struct gcb_topo_nic *n = gcb_topo_nic(t, i);
  double gbps = n->npath > 0 ? n->path[0].gbps : 0;
  return json_pack(
      "{s:i, s:s, s:o?, s:b, s:o, s:o, s:o, s:s, s:o, s:o, s:o, "
      "s:s}",
      "index", i, "busid", n->busid, "name", gcb__str_or_null(n->name), "rdma",
      n->rdma, "pci_id", pci_id(n->vendor_id, n->device_id), "class",
      class_id(n->class_id), "numa", gcb__int_or_null(n->numa), "cpus", n->cpus,
      "link_gbps", gbps_json(gbps), "pcie_path", path_json(n->path, n->npath),
      "pcie_switch", gcb__int_or_null(n->pcie_switch), "os_devices", n->osdevs);
}

static json_t *numa_json(const struct gcb_topo *t, int i) {
  const struct gcb_topo_numa *n = gcb_topo_numa(t, i);
  return json_pack("{s:i, s:s, s:I}", "os_index", n->os_index, "cpus", n->cpus,
                   "memory_bytes", (json_int_t)n->memory_bytes);
}

static json_t *switch_json(const struct gcb_topo *t, int i) {
  const struct gcb_topo_switch *s = gcb_topo_switch(t, i);
  return json_pack("{s:s, s:o, s:i, s:o, s:o}", "busid", s->busid, "pci_id",
                   pci_id(s->vendor_id, s->device_id), "downstream_ports",
                   s->downstream_ports, "uplink_gbps",
                   gbps_json(s->uplink_gbps), "numa",
                   gcb__int_or_null(s->numa));
}

static json_t *fact_json(const struct gcb_topo *t, int i) {
  const struct gcb_topo_fact *f = gcb_topo_fact(t, i);
  return json_pack("{s:s, s:o, s:o, s:s}", "kind", gcb_topo_fact_name(f->kind),
                   "gpu", gcb__int_or_null(f->gpu), "nic",
                   gcb__int_or_null(f->nic), "text", f->text);
}

/* [f(t, 0), ..., f(t, n-1)]; NULL if any element failed. */
static json_t *array_of(const struct gcb_topo *t, int n,
                        json_t *(*f)(const struct gcb_topo *, int)) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++)
    a = gcb__json_push(a, f(t, i));
  return a;
}

/* The devices of the matrices: GPUs first, then NICs. */
static struct gcb_topo_ref device_ref(const struct gcb_topo *t, int i) {
  int ngpus = gcb_topo_gpu_count(t);
  return i < ngpus ? (struct gcb_topo_ref){GCB_TOPO_GPU, i}
                   : (struct gcb_topo_ref){GCB_TOPO_NIC, i - ngpus};
}

static json_t *label_json(const struct gcb_topo *t, int a, int b, int pcie) {
  struct gcb_topo_path p;
  if (gcb_topo_path(t, device_ref(t, a), device_ref(t, b), &p, NULL) != GCB_OK)
    return json_null();
  char label[16];
  if (pcie)
    p.cls = p.pcie;
  gcb_topo_path_label(&p, label, sizeof label);
  return json_string(label);
}

static json_t *expected_json(const struct gcb_topo *t, int a, int b) {
  double gbps = 0;
  if (a != b && gcb_topo_expected_gbps(t, device_ref(t, a), device_ref(t, b),
                                       &gbps, NULL, 0, NULL) != GCB_OK)
    gbps = 0;
  return gbps_json(gbps);
}

/* One n x n matrix of cell(t, row, col). */
static json_t *matrix(const struct gcb_topo *t, int n, int pcie, int expected) {
  json_t *rows = json_array();
  for (int a = 0; rows && a < n; a++) {
    json_t *row = json_array();
    for (int b = 0; row && b < n; b++)
      row = gcb__json_push(row, expected ? expected_json(t, a, b)
                                         : label_json(t, a, b, pcie));
    rows = gcb__json_push(rows, row);
  }
  return rows;
}

static json_t *device_names(const struct gcb_topo *t, int n) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++) {
    struct gcb_topo_ref r = device_ref(t, i);
    char name[16];
    snprintf(name, sizeof name, "%s%d", r.kind == GCB_TOPO_GPU ? "GPU" : "NIC",
             r.index);
    a = gcb__json_push(a, json_string(name));
  }
  return a;
}

static json_t *paths_json(const struct gcb_topo *t) {
  int n = gcb_topo_gpu_count(t) + gcb_topo_nic_count(t);
  return json_pack("{s:o, s:o, s:o, s:o}", "devices", device_names(t, n),
                   "matrix", matrix(t, n, 0, 0), "pcie", matrix(t, n, 1, 0),
                   "expected_gbps", matrix(t, n, 0, 1));
}

static json_t *vm_json(const struct gcb_topo *t) {
  const struct gcb_topo_vm *vm = gcb_topo_vm(t);
  return json_pack("{s:b, s:o, s:s}", "detected", vm->detected, "name",
                   gcb__str_or_null(vm->hypervisor), "evidence", vm->evidence);
}

json_t *gcb_results_topology_json(const struct gcb_topo *t) {
  return json_pack(
      "{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "source",
      gcb_topo_is_from_xml(t) ? "xml" : "live", "hypervisor", vm_json(t),
      "gpus", array_of(t, gcb_topo_gpu_count(t), gpu_json), "nics",
      array_of(t, gcb_topo_nic_count(t), nic_json), "numa_nodes",
      array_of(t, gcb_topo_numa_count(t), numa_json), "pcie_switches",
      array_of(t, gcb_topo_switch_count(t), switch_json), "paths",
      paths_json(t), "facts", array_of(t, gcb_topo_fact_count(t), fact_json));
}

static json_t *problem_json(const struct gcb_topo_problem *p) {
  return json_pack("{s:s, s:o, s:o, s:o, s:s, s:s}", "kind",
                   gcb_topo_problem_name(p->kind), "rank",
                   gcb__int_or_null(p->rank), "other_rank",
                   gcb__int_or_null(p->other_rank), "gpu",
                   gcb__int_or_null(p->gpu), "what", p->what, "fix", p->fix);
}

json_t *gcb_results_placement_json(const struct gcb_topo_problem *problems,
                                   int n) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++)
    a = gcb__json_push(a, problem_json(&problems[i]));
  return a;
}

char *gcb_results_node_snapshot(const struct gcb_topo *t,
                                const struct gcb_health *gpus, int ngpus,
                                const struct gcb_topo_problem *problems,
                                int nproblems) {
  json_t *topo = gcb_results_topology_json(t);
  /* jansson's set frees the member whatever topo is, NULL too */
  if (gpus != NULL)
    json_object_set_new(topo, "gpu_health", gcb_results_gpus_json(gpus, ngpus));
  if (nproblems >= 0)
    json_object_set_new(topo, "placement",
                        gcb_results_placement_json(problems, nproblems));
  char *text = topo ? json_dumps(topo, JSON_COMPACT) : NULL;
  json_decref(topo);
  return text;
}
