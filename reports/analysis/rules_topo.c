/*
 * Placement findings from the topology's own binding check: the
 * nodes[].topology.placement[] problems the run recorded (ranks bound off
 * their GPU's NUMA node, partly off it, unbound, sharing a GPU, idle GPUs,
 * oversubscribed cores). Each problem kind is one row of the table below
 * with its own finding kind (whose row in kinds.c names this rule); problems of one kind on one node become one
 * finding listing the ranks (one per shared GPU), so a launcher mistake on
 * thousands of ranks reads as a few lines. Nodes without a placement array
 * are left to the older rules in placement.c, which skip nodes that have
 * one: no problem is reported twice.
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

/* Groups the node's problems of the rule's kind (shared GPUs: one group
 * per GPU, in order of first appearance) and reports each group. */
static enum gcb_status node_problems(const struct gcb__rule_ctx *cx,
                                     const json_t *node, const char *problem) {
  const json_t *list =
                   json_object_get(gcb_view_obj(node, "topology"), "placement"),
               *p;
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

enum gcb_status gcb__rule_topo_placement(const struct gcb__rule_ctx *cx) {
  const char *problem = gcb__topo_problem_of(cx->kind);
  const json_t *node;
  size_t i;
  if (problem == NULL)
    return gcb_err_set(cx->err, GCB_EINTERNAL, "no placement rule for %s",
                       cx->kind->name);
  json_array_foreach(json_object_get(cx->doc->root, "nodes"), i, node) {
    enum gcb_status st = GCB_OK;
    if (gcb__topo_placement_known(node))
      st = node_problems(cx, node, problem);
    if (st != GCB_OK)
      return st;
  }
  return GCB_OK;
}
