/*
 * Placement findings from the topology's own binding check: the
 * nodes[].topology.placement[] problems the run recorded (ranks bound off
 * their GPU's NUMA node, partly off it, unbound, sharing a GPU, idle GPUs,
 * oversubscribed cores). Each problem kind is one row of the table below
 * with its own finding kind (whose row in kinds.c names this rule); problems of one kind on one node become one
 * finding listing the ranks (one per shared GPU), so a launcher mistake on
 * thousands of ranks reads as a few lines. Nodes without a placement array
 * are left to the older rules in placement.c, which skip nodes that have
 * one: no problem is reported twice; for them the binding kinds (remote,
 * partial) are derived here from each rank's binding and its GPU's local
 * CPUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"
#include "reports/document/topo_view.h"

/* Finding kind -> topology problem kind, severity and what it costs. */
static const struct {
  enum gcb_kind_id kind;
  const char *problem; /* as the document writes it */
  enum gcb_severity sev;
  const char *why;
} problem_kinds[] = {
    {GCB_KIND_PLACEMENT_REMOTE, "remote-binding", GCB_SEV_WARN,
     "host memory and CPU work cross the socket interconnect on every "
     "transfer"},
    {GCB_KIND_PLACEMENT_PARTIAL, "partial-binding", GCB_SEV_WARN,
     "some of the rank's threads run on the far socket"},
    {GCB_KIND_PLACEMENT_UNBOUND, "unbound", GCB_SEV_WARN,
     "the OS may move the rank anywhere, also away from its GPU"},
    {GCB_KIND_PLACEMENT_SHARED_GPU, "shared-gpu", GCB_SEV_WARN,
     "each rank gets a fraction of the GPU"},
    {GCB_KIND_PLACEMENT_IDLE_GPU, "idle-gpu", GCB_SEV_WARN,
     "the node's capacity is not all measured"},
    {GCB_KIND_OVERSUBSCRIBED, "oversubscribed", GCB_SEV_WARN,
     "ranks wait for a core, so every figure on the node is low"},
};

static size_t row_of(const struct gcb_kind *kind) {
  size_t n = sizeof problem_kinds / sizeof *problem_kinds, i = 0;
  while (i < n && problem_kinds[i].kind != kind->id)
    i++;
  return i;
}

bool gcb__topo_placement_known(const json_t *node) {
  return json_is_array(
      json_object_get(gcb_view_obj(node, "topology"), "placement"));
}

const char *gcb__topo_problem_of(const struct gcb_kind *kind) {
  size_t i = row_of(kind);
  return i < sizeof problem_kinds / sizeof *problem_kinds
             ? problem_kinds[i].problem
             : NULL;
}

/* One group: problems of one kind (and for shared GPUs, one GPU). */
struct group {
  const json_t *first; /* the first problem, for its text and fix */
  long long *ranks;
  size_t nranks, nproblems;
  long long gpu; /* common GPU; -1 none or several */
};

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* Sorts and deduplicates the group's ranks. */
static void unique_ranks(struct group *g) {
  size_t k = 0;
  qsort(g->ranks, g->nranks, sizeof *g->ranks, cmp_ll);
  for (size_t i = 0; i < g->nranks; i++)
    if (k == 0 || g->ranks[k - 1] != g->ranks[i])
      g->ranks[k++] = g->ranks[i];
  g->nranks = k;
}

/* A lone host rank that owns its whole node is the normal host-backend
 * setup, not an unbound rank worth a warning. */
static bool ignored(const json_t *node, const json_t *p) {
  return strcmp(gcb_view_str(p, "kind"), "unbound") == 0 &&
         gcb_view_int(p, "gpu", -1) < 0 &&
         json_array_size(json_object_get(node, "ranks")) < 2;
}

static void add_problem(struct group *g, const json_t *p) {
  long long gpu = gcb_view_int(p, "gpu", -1);
  long long r = gcb_view_int(p, "rank", -1),
            o = gcb_view_int(p, "other_rank", -1);
  if (g->nproblems++ == 0) {
    g->first = p;
    g->gpu = gpu;
  } else if (g->gpu != gpu) {
    g->gpu = -1;
  }
  if (r >= 0)
    g->ranks[g->nranks++] = r;
  if (o >= 0)
    g->ranks[g->nranks++] = o;
}

static enum gcb_status report(const struct gcb__rule_ctx *cx,
                              const json_t *node, struct group *g) {
  const json_t *topo = gcb_view_obj(node, "topology");
  size_t row = row_of(cx->kind);
  struct gcb_finding *f = gcb__rule_push(cx, problem_kinds[row].sev);
  if (f == NULL)
    return GCB_ENOMEM;
  unique_ranks(g);
  f->where.node = gcb_view_int(node, "index", -1);
  gcb_view_copy(f->where.hostname, sizeof f->where.hostname,
                gcb_view_str(node, "hostname"));
  if (g->nranks == 1)
    gcb_finding_at_rank(f, cx->index, cx->doc->root, g->ranks[0]);
  else if (g->nranks > 1) {
    f->where.rank = g->ranks[0];
    gcb_view_ranges(g->ranks, g->nranks, f->where.ranks, sizeof f->where.ranks);
  }
  if (g->gpu >= 0) {
    f->where.gpu = g->gpu;
    gcb_view_copy(f->where.bus_id, sizeof f->where.bus_id,
                  gcb_view_str(gcb_topo_view_gpu(topo, g->gpu), "busid"));
  }
  f->measured = (double)(g->nranks > 0 ? g->nranks : g->nproblems);
  f->expected = 0;
  snprintf(f->unit, sizeof f->unit, g->nranks > 0 ? "ranks" : "problems");
  const char *what = gcb_view_str(g->first, "what");
  if (g->nproblems > 1)
    gcb_finding_explain(f, "%s (and %zu more like it): %s", what,
                        g->nproblems - 1, problem_kinds[row].why);
  else
    gcb_finding_explain(f, "%s: %s", what, problem_kinds[row].why);
  gcb_finding_suggest(f, "%s", gcb_view_str(g->first, "fix"));
  return GCB_OK;
}

/* Groups the node's problems of the rule's kind in list (shared GPUs: one
 * group per GPU, in order of first appearance) and reports each group. */
static enum gcb_status node_problems(const struct gcb__rule_ctx *cx,
                                     const json_t *node, const json_t *list,
                                     const char *problem) {
  const json_t *p;
  size_t n = json_array_size(list), i;
  bool by_gpu = strcmp(problem, "shared-gpu") == 0;
  bool *done = calloc(n + 1, sizeof *done);
  struct group g = {.ranks = malloc((2 * n + 1) * sizeof *g.ranks)};
  enum gcb_status st = GCB_OK;
  if (done == NULL || g.ranks == NULL)
    st = gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
  for (size_t s = 0; s < n && st == GCB_OK; s++) {
    const json_t *seed = json_array_get(list, s);
    if (done[s] || strcmp(gcb_view_str(seed, "kind"), problem) != 0 ||
        ignored(node, seed))
      continue;
    g.nranks = g.nproblems = 0;
    json_array_foreach(list, i, p) {
      if (i < s || done[i] || strcmp(gcb_view_str(p, "kind"), problem) != 0 ||
          ignored(node, p) ||
          (by_gpu &&
           gcb_view_int(p, "gpu", -1) != gcb_view_int(seed, "gpu", -1)))
        continue;
      done[i] = true;
      add_problem(&g, p);
    }
    st = report(cx, node, &g);
  }
  free(done);
  free(g.ranks);
  return st;
}

/* ---- binding derived from the document ----------------------------------
 *
 * A run that did not write topology.placement (an older gcbench, a
 * converted file, a run without --cpuset) still has each rank's binding
 * (ranks[].cpu_binding) and its GPU's local CPUs (nodes[].topology.gpus[]
 * .cpus, else its NUMA node's): the same check as the run's own
 * (topo/topo.h gcb_topo_check_binding), made here. Only the binding
 * kinds are derived; unbound ranks, shared GPUs and oversubscription
 * have their own rules in placement.c for such nodes.
 */

#define MAX_RANGES 256

/* "0-7,16,18-19" as inclusive ranges; the count, or -1 when malformed or
 * longer than max ranges. */
static int cpus_parse(const char *s, long long (*r)[2], int max) {
  int n = 0;
  while (*s != '\0') {
    char *end;
    long long a = strtoll(s, &end, 10), b = a;
    if (end == s || a < 0 || n == max)
      return -1;
    if (*end == '-') {
      s = end + 1;
      b = strtoll(s, &end, 10);
      if (end == s || b < a)
        return -1;
    }
    r[n][0] = a;
    r[n++][1] = b;
    if (*end == ',')
      end++;
    else if (*end != '\0')
      return -1;
    s = end;
  }
  return n;
}

static long long cpus_count(long long (*r)[2], int n) {
  long long k = 0;
  for (int i = 0; i < n; i++)
    k += r[i][1] - r[i][0] + 1;
  return k;
}

/* PUs of a that are in b. */
static long long cpus_common(long long (*a)[2], int na, long long (*b)[2],
                             int nb) {
  long long k = 0;
  for (int i = 0; i < na; i++)
    for (int j = 0; j < nb; j++) {
      long long lo = a[i][0] > b[j][0] ? a[i][0] : b[j][0];
      long long hi = a[i][1] < b[j][1] ? a[i][1] : b[j][1];
      k += hi >= lo ? hi - lo + 1 : 0;
    }
  return k;
}

/* The GPU's local CPUs: its own cpus, else its NUMA node's; "" unknown. */
static const char *gpu_cpus(const json_t *topo, const json_t *g) {
  const char *own = gcb_view_str(g, "cpus");
  const json_t *m;
  size_t i;
  if (own[0] != '\0')
    return own;
  json_array_foreach(json_object_get(topo, "numa_nodes"), i, m) {
    if (gcb_view_int(m, "os_index", -2) == gcb_view_int(g, "numa", -1))
      return gcb_view_str(m, "cpus");
  }
  return "";
}

/* Appends the rank's binding problem, if it has one, to list. */
static bool rank_binding(const json_t *root, const json_t *topo, long long r,
                         json_t *list) {
  long long(*b)[2] = malloc(2 * MAX_RANGES * sizeof *b);
  long long(*l)[2] = b + MAX_RANGES;
  const json_t *rank = gcb_view_rank(root, r);
  long long gpu = gcb_topo_view_rank_gpu(root, r, NULL);
  const json_t *g = gcb_topo_view_gpu(topo, gpu);
  const char *bound = gcb_view_str(rank, "cpu_binding");
  const char *local = gpu_cpus(topo, g);
  int nb = b ? cpus_parse(bound, b, MAX_RANGES) : -1;
  int nl = b ? cpus_parse(local, l, MAX_RANGES) : -1;
  bool ok = true;
  if (g != NULL && nb > 0 && nl > 0) {
    long long pus = cpus_count(b, nb), near = cpus_common(b, nb, l, nl);
    if (near < pus) {
      /* worded as the run's own check words it (topo/binding.c) */
      char what[384], fix[384];
      const char *kind = near == 0 ? "remote-binding" : "partial-binding";
      long long numa = gcb_view_int(g, "numa", -1);
      snprintf(what, sizeof what,
               "rank %lld: its CPUs %s %s GPU%lld's local CPUs %s (NUMA %lld)",
               r, bound, near == 0 ? "are all outside" : "are partly outside",
               gpu, local, numa);
      snprintf(fix, sizeof fix,
               "bind it to GPU%lld's local CPUs %s: numactl "
               "--physcpubind=%s --membind=%lld for this rank; for all ranks "
               "at once, mpiexec -bind-to core -map-by numa (MPICH/Hydra) or "
               "srun --cpu-bind=ldoms (Slurm), GPUs in NUMA order",
               gpu, local, local, numa);
      ok = json_array_append_new(
               list, json_pack("{s:s, s:I, s:I, s:s, s:s}", "kind", kind,
                               "rank", (json_int_t)r, "gpu", (json_int_t)gpu,
                               "what", what, "fix", fix)) == 0;
    }
  }
  free(b);
  return ok;
}

/* The node's binding problems derived from its ranks; NULL on ENOMEM. */
static json_t *derived_placement(const json_t *root, const json_t *node) {
  const json_t *topo = gcb_view_obj(node, "topology"), *e;
  json_t *list = json_array();
  size_t i;
  json_array_foreach(json_object_get(node, "ranks"), i, e) {
    if (list != NULL &&
        !rank_binding(root, topo, (long long)json_integer_value(e), list)) {
      json_decref(list);
      list = NULL;
    }
  }
  return list;
}

static bool derivable(const char *problem) {
  return strcmp(problem, "remote-binding") == 0 ||
         strcmp(problem, "partial-binding") == 0;
}

enum gcb_status gcb__rule_topo_placement(const struct gcb__rule_ctx *cx) {
  const char *problem = gcb__topo_problem_of(cx->kind);
  const json_t *node;
  size_t i;
  if (problem == NULL)
    return gcb_err_set(cx->err, GCB_EINTERNAL, "no placement rule for %s",
                       cx->kind->name);
  json_array_foreach(json_object_get(cx->doc->root, "nodes"), i, node) {
    enum gcb_status st = GCB_OK;
    if (gcb__topo_placement_known(node)) {
      st = node_problems(
          cx, node,
          json_object_get(gcb_view_obj(node, "topology"), "placement"),
          problem);
    } else if (derivable(problem) && gcb_view_obj(node, "topology") != NULL) {
      json_t *list = derived_placement(cx->doc->root, node);
      st = list == NULL
               ? gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory")
               : node_problems(cx, node, list, problem);
      json_decref(list); /* the findings copied its text */
    }
    if (st != GCB_OK)
      return st;
  }
  return GCB_OK;
}
