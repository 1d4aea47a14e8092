/*
 * The "nodes" and "ranks" sections of the results document, with their
 * schema rows: per node its hostname, ranks and machine summary, with the
 * topology (section_topology.c) and GPU health (section_gpus.c) of its
 * snapshot; per rank its node, local rank, pid, CPU binding and device.
 * Read back into the typed model (model.c).
 */
#include "reports/document/results_int.h"

#include "reports/document/model.h"

/* ---- schema rows -------------------------------------------------------- */

static enum gcb_status check_hostname(struct gcb__walk *w, const json_t *v) {
  size_t n = json_string_length(v);
  return n < GCB_HOSTNAME_SIZE
             ? GCB_OK
             : gcb__schema_problem(w,
                                   "a hostname of %zu bytes (at most %d: a "
                                   "DNS name is at most 253)",
                                   n, GCB_HOSTNAME_SIZE - 1);
}

static const struct gcb__node n_hostname = {.types = T_STR,
                                            .check = check_hostname};

static const struct gcb__field node_fields[] = {
    REQ("index", &gcb__n_int, IN(node, index)),
    REQ("hostname", &n_hostname, IN(node, hostname)),
    REQ("ranks", &gcb__n_int_array),
    REQ("cores", &gcb__n_int, IN(node, cores)),
    REQ("pus", &gcb__n_int, IN(node, pus)),
    REQ("packages", &gcb__n_int, IN(node, packages)),
    REQ("numa_nodes", &gcb__n_int, IN(node, numa_nodes)),
    REQ("llc_bytes", &gcb__n_int, IN(node, llc_bytes)),
    REQ("memory_bytes", &gcb__n_int, IN(node, memory_bytes)),
    REQ("cpu_model", &gcb__n_str), /* model.c: NULL when absent */
    OPT("topology", &gcb__n_topology),
    OPT("gpus", &gcb__n_gpus),
    {0},
};
const struct gcb__node gcb__n_nodes = {.types = T_ARR,
                                       .items = OBJ(node_fields)};

static const struct gcb__field device_fields[] = {
    REQ("name", &gcb__n_str), /* model.c: NULL when absent */
    REQ("bus_id", &gcb__n_str, IN(rank, device_bus_id)),
    REQ("index", &gcb__n_int, IN(rank, device_index)),
    REQ("memory_bytes", &gcb__n_int, IN(rank, device_memory_bytes)),
    {0},
};

/* ranks[].blas: what the rank's BLAS said at run time (gcb_identity's
 * blas); optional, as documents before it had none. */
static const struct gcb__field rank_blas_fields[] = {
    REQ("core", &gcb__n_str, IN(rank, blas_core)),
    REQ("threads", &gcb__n_int, IN(rank, blas_threads)),
    OPT("cpu_isa", &gcb__n_str, IN(rank, blas_cpu_isa)),
    {0},
};

static const struct gcb__field rank_fields[] = {
    REQ("rank", &gcb__n_int, IN(rank, rank)),
    REQ("node", &gcb__n_int, IN(rank, node)),
    REQ("hostname", &n_hostname, IN(rank, hostname)),
    REQ("local_rank", &gcb__n_int, IN(rank, local_rank)),
    REQ("pid", &gcb__n_int, IN(rank, pid)),
    REQ("cpu_binding", &gcb__n_str, IN(rank, cpu_binding)),
    REQ("bound_pus", &gcb__n_int, IN(rank, bound_pus)),
    REQ("cpu_threads", &gcb__n_int, IN(rank, cpu_threads)),
    OPT("device", NODE(.types = T_OBJ | T_NULL, .fields = device_fields)),
    OPT("blas", OBJ(rank_blas_fields)),
    {0},
};
const struct gcb__node gcb__n_ranks = {.types = T_ARR,
                                       .items = OBJ(rank_fields)};

/* ---- writers ------------------------------------------------------------ */

_Static_assert(sizeof((struct gcb_identity *)0)->hostname <= GCB_HOSTNAME_SIZE,
               "every hostname a run writes reads back");

static json_t *device_json(const struct gcb_identity *id) {
  return json_pack("{s:s, s:s, s:i, s:I, s:i}", "name", id->device.name,
                   "bus_id", id->device.bus_id, "index", id->device.index,
                   "memory_bytes", (json_int_t)id->device.memory_bytes,
                   "threads", id->device.threads);
}

static json_t *rank_json(const struct gcb_identity *id) {
  json_t *o = json_pack(
      "{s:i, s:i, s:s, s:i, s:i, s:s, s:i, s:i, s:o}", "rank", id->rank, "node",
      id->node, "hostname", id->hostname, "local_rank", id->local_rank, "pid",
      id->pid, "cpu_binding", id->cpu_binding, "bound_pus", id->bound_pus,
      "cpu_threads", id->cpu_threads, "device", device_json(id));
  if (id->blas.core[0] != '\0')
    o = gcb__json_set(o, "blas",
                      json_pack("{s:s, s:i, s:s}", "core", id->blas.core,
                                "threads", id->blas.threads, "cpu_isa",
                                id->blas.cpu_isa));
  return o;
}

static json_t *node_json(const struct gcb_identity *ids, int n, int node) {
  const struct gcb_identity *first = NULL;
  json_t *ranks = json_array();
  for (int r = 0; r < n; r++)
    if (ids[r].node == node) {
      first = first ? first : &ids[r];
      json_array_append_new(ranks, json_integer(r));
    }
  if (first == NULL) {
    json_decref(ranks);
    return NULL;
  }
  const struct gcb_topo_summary *m = &first->machine;
  return json_pack("{s:i, s:s, s:o, s:i, s:i, s:i, s:i, s:I, s:I, s:s}",
                   "index", node, "hostname", first->hostname, "ranks", ranks,
                   "cores", m->cores, "pus", m->pus, "packages", m->packages,
                   "numa_nodes", m->numa_nodes, "llc_bytes",
                   (json_int_t)m->llc_bytes, "memory_bytes",
                   (json_int_t)m->memory_bytes, "cpu_model", m->cpu_model);
}

json_t *gcb__nodes_json(const struct gcb_identity *ids, int nranks, int nnodes,
                        json_t *topologies) {
  json_t *nodes = json_array();
  for (int i = 0; nodes && i < nnodes; i++) {
    json_t *node = node_json(ids, nranks, i);
    json_t *topo = json_array_get(topologies, (size_t)i);
    json_t *health = json_object_get(topo, "gpu_health");
    if (node && json_is_array(health)) {
      json_object_set(node, "gpus", health);
      json_object_del(topo, "gpu_health");
    }
    if (node && json_is_object(topo))
      json_object_set(node, "topology", topo);
    json_array_append_new(nodes, node);
  }
  return nodes;
}

json_t *gcb__ranks_json(const struct gcb_identity *ids, int nranks) {
  json_t *ranks = json_array();
  for (int r = 0; ranks && r < nranks; r++)
    json_array_append_new(ranks, rank_json(&ids[r]));
  return ranks;
}
