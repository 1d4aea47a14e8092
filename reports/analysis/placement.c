/*
 * Placement rules: how ranks sit on a node's CPUs and GPUs, from the
 * document's nodes[] and ranks[]. Findings are per node (and per group of
 * ranks), not per rank, so a 4096-rank job with one launcher mistake gets
 * one line per node rather than thousands. Documents without nodes[] or
 * ranks[] yield nothing. Nodes whose topology carries the run's own
 * placement check (nodes[].topology.placement) are judged by rules_topo.c
 * instead; these rules skip them, so no problem is reported twice.
 */
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"

struct member {
  const char *key;
  long long rank;
};

static int cmp_member(const void *a, const void *b) {
  const struct member *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c != 0 ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

/* A rank whose binding is empty or covers every PU of its node is not
 * bound at all: the OS may move it, and its neighbours share its cores. */
static bool unbound(const struct gcb_model_rank *rank,
                    const struct gcb_model_node *node) {
  return rank->cpu_binding[0] == '\0' ||
         (node->pus > 0 && rank->bound_pus >= node->pus);
}

/* An empty binding with no bound PUs is unknown, not unbound: files
 * converted from other tools (nccl-tests, nvbandwidth) do not record it,
 * and a gcbench rank always runs on at least one PU. */
static bool binding_unknown(const struct gcb_model_rank *rank) {
  return rank->cpu_binding[0] == '\0' && rank->bound_pus <= 0;
}

bool gcb__rank_has_own_cpus(const struct gcb_model *m, long long rank) {
  const struct gcb_model_rank *r = gcb_model_rank(m, rank);
  const struct gcb_model_node *node =
      r != NULL ? gcb_model_node(m, r->node) : NULL;
  if (node == NULL || binding_unknown(r))
    return true; /* nothing says otherwise */
  if (unbound(r, node) ||
      (node->cores > 0 && (long long)node->nranks > node->cores))
    return false;
  for (size_t i = 0; i < node->nranks; i++) {
    const struct gcb_model_rank *o = gcb_model_rank(m, node->ranks[i]);
    if (o != NULL && o != r && strcmp(o->cpu_binding, r->cpu_binding) == 0)
      return false;
  }
  return true;
}

/* Places a group's finding at the node and its ranks (n >= 2), and
 * measures the group's size against `expected` ranks. */
static void at_group(struct gcb_finding *f, const struct gcb_model_node *node,
                     const long long *ranks, size_t n, double expected) {
  f->where.node = node->index;
  gcb_analyze_copy(f->where.hostname, sizeof f->where.hostname, node->hostname);
  f->where.rank = ranks[0];
  gcb_view_ranges(ranks, n, f->where.ranks, sizeof f->where.ranks);
  gcb_finding_figures(f, (double)n, expected, "ranks");
}

typedef const char *(*key_fn)(const struct gcb_model_rank *rank,
                              const struct gcb_model_node *node);
typedef enum gcb_status (*group_fn)(const struct gcb__rule_ctx *cx,
                                    const struct gcb_model_node *node,
                                    const char *key, const long long *ranks,
                                    size_t n);

/* Calls report() for every group of two or more ranks on one node that
 * share a non-NULL key. */
static enum gcb_status node_groups(const struct gcb__rule_ctx *cx,
                                   const struct gcb_model_node *node,
                                   key_fn key, group_fn report) {
  size_t n = node->nranks, m = 0;
  struct member *mem = malloc(n * sizeof *mem + 1);
  long long *group = malloc(n * sizeof *group + 1);
  enum gcb_status st = GCB_OK;
  if (mem == NULL || group == NULL) {
    st = gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    long long r = node->ranks[i];
    const struct gcb_model_rank *rank = gcb_model_rank(cx->doc->model, r);
    const char *k = rank != NULL ? key(rank, node) : NULL;
    if (k != NULL)
      mem[m++] = (struct member){.key = k, .rank = r};
  }
  qsort(mem, m, sizeof *mem, cmp_member);
  for (size_t i = 0, j; i < m && st == GCB_OK; i = j) {
    for (j = i; j < m && strcmp(mem[j].key, mem[i].key) == 0; j++)
      group[j - i] = mem[j].rank;
    if (j - i >= 2)
      st = report(cx, node, mem[i].key, group, j - i);
  }
done:
  free(mem);
  free(group);
  return st;
}

/* Runs node_groups on every node; with fallback, only on nodes whose
 * topology did not check placement itself. */
static enum gcb_status each_node_groups(const struct gcb__rule_ctx *cx,
                                        key_fn key, group_fn report,
                                        bool fallback) {
  const struct gcb_model *m = cx->doc->model;
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < m->nnodes && st == GCB_OK; i++)
    if (!fallback || !m->nodes[i].has_placement)
      st = node_groups(cx, &m->nodes[i], key, report);
  return st;
}

/* ---- unbound ranks ------------------------------------------------------ */

static const char *unbound_key(const struct gcb_model_rank *rank,
                               const struct gcb_model_node *node) {
  return !binding_unknown(rank) && unbound(rank, node) ? "unbound" : NULL;
}

static enum gcb_status report_unbound(const struct gcb__rule_ctx *cx,
                                      const struct gcb_model_node *node,
                                      const char *key, const long long *ranks,
                                      size_t n) {
  (void)key;
  struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_WARN);
  if (f == NULL)
    return GCB_ENOMEM;
  at_group(f, node, ranks, n, 0);
  gcb_finding_explain(f,
                      "%zu ranks on %s may run on any of its %lld PUs: "
                      "they share cores and move between them, which "
                      "disturbs timings",
                      n, node->hostname, node->pus);
  gcb__rule_suggest(f);
  return GCB_OK;
}

/* Unbound ranks matter once a node has two or more: a lone rank that owns
 * the whole node is the normal host-backend setup. */
enum gcb_status gcb__rule_unbound(const struct gcb__rule_ctx *cx) {
  return each_node_groups(cx, unbound_key, report_unbound, true);
}

/* ---- ranks bound to the same CPUs --------------------------------------- */

static const char *binding_key(const struct gcb_model_rank *rank,
                               const struct gcb_model_node *node) {
  return !unbound(rank, node) ? rank->cpu_binding : NULL;
}

/* Whether the node's topology check reported one of the ranks as piled
 * up on too few cores: the same problem as sharing a binding. */
static bool piled_up(const struct gcb_model_node *node, const long long *ranks,
                     size_t n) {
  for (size_t i = 0; i < node->nplacement; i++) {
    const struct gcb_model_problem *p = &node->placement[i];
    if (strcmp(p->kind, "oversubscribed") != 0)
      continue;
    for (size_t k = 0; k < n; k++)
      if (p->rank == ranks[k])
        return true;
  }
  return false;
}

static enum gcb_status report_shared_cpus(const struct gcb__rule_ctx *cx,
                                          const struct gcb_model_node *node,
                                          const char *key,
                                          const long long *ranks, size_t n) {
  if (piled_up(node, ranks, n))
    return GCB_OK;
  struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_WARN);
  if (f == NULL)
    return GCB_ENOMEM;
  at_group(f, node, ranks, n, 1);
  gcb_finding_explain(f,
                      "%zu ranks on %s are bound to the same PUs (%s): "
                      "they time-share those cores",
                      n, node->hostname, key);
  gcb__rule_suggest(f);
  return GCB_OK;
}

enum gcb_status gcb__rule_shared_cpus(const struct gcb__rule_ctx *cx) {
  return each_node_groups(cx, binding_key, report_shared_cpus, false);
}

/* ---- ranks on the same GPU ---------------------------------------------- */

static const char *gpu_key(const struct gcb_model_rank *rank,
                           const struct gcb_model_node *node) {
  (void)node;
  return rank->device_bus_id[0] != '\0' ? rank->device_bus_id : NULL;
}

static enum gcb_status report_shared_gpu(const struct gcb__rule_ctx *cx,
                                         const struct gcb_model_node *node,
                                         const char *key,
                                         const long long *ranks, size_t n) {
  struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_WARN);
  if (f == NULL)
    return GCB_ENOMEM;
  at_group(f, node, ranks, n, 1);
  const struct gcb_model_rank *first = gcb_model_rank(cx->doc->model, ranks[0]);
  f->where.gpu = first != NULL ? first->device_index : -1;
  gcb_view_copy(f->where.bus_id, sizeof f->where.bus_id, key);
  gcb_finding_explain(f,
                      "%zu ranks share the GPU at %s on %s: each gets a "
                      "fraction of it, and other GPUs may sit idle",
                      n, key, node->hostname);
  gcb__rule_suggest(f);
  return GCB_OK;
}

enum gcb_status gcb__rule_shared_gpu(const struct gcb__rule_ctx *cx) {
  return each_node_groups(cx, gpu_key, report_shared_gpu, true);
}

/* ---- more ranks than cores ---------------------------------------------- */

enum gcb_status gcb__rule_oversubscribed(const struct gcb__rule_ctx *cx) {
  const struct gcb_model *m = cx->doc->model;
  for (size_t i = 0; i < m->nnodes; i++) {
    const struct gcb_model_node *node = &m->nodes[i];
    size_t n = node->nranks;
    long long cores = node->cores;
    if (cores <= 0 || (long long)n <= cores || node->has_placement)
      continue;
    struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_WARN);
    if (f == NULL)
      return GCB_ENOMEM;
    f->where.node = node->index;
    gcb_analyze_copy(f->where.hostname, sizeof f->where.hostname,
                     node->hostname);
    gcb_finding_figures(f, (double)n, (double)cores, "ranks");
    gcb_finding_explain(f,
                        "%zu ranks on %s, which has %lld cores: ranks "
                        "wait for a core, so every figure on the node is low",
                        n, node->hostname, cores);
    gcb__rule_suggest(f);
  }
  return GCB_OK;
}
