/*
 * Placement findings from the topology's own binding check: the
 * nodes[].topology.placement[] problems the run recorded (ranks bound off
 * their GPU's NUMA node, partly off it, unbound, sharing a GPU, idle GPUs,
 * oversubscribed cores). Each problem kind has its own finding kind, whose
 * row in kinds.c names this rule, the problem and what it costs; problems of
 * one kind on one node become one finding listing the ranks (one per shared
 * GPU), so a launcher mistake on thousands of ranks reads as a few lines. Nodes
 * without a placement array are left to the older rules in placement.c, which
 * skip nodes that have one: no problem is reported twice; for them the binding
 * kinds (remote, partial) are derived here from each rank's binding and its
 * GPU's local CPUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"

/* ---- CPU lists ("0-7,16"): the bindings compared below -------------- */

/* The next range of a CPU list at *s ("0-7,16,18-19") into lo..hi,
 * stepping past it: 1, 0 at the end, -1 when malformed. */
static int cpus_next(const char **s, long long *lo, long long *hi) {
  char *end;
  if (**s == '\0')
    return 0;
  *lo = *hi = strtoll(*s, &end, 10);
  if (end == *s || *lo < 0)
    return -1;
  if (*end == '-') {
    *s = end + 1;
    *hi = strtoll(*s, &end, 10);
    if (end == *s || *hi < *lo)
      return -1;
  }
  if (*end == ',')
    end++;
  else if (*end != '\0')
    return -1;
  *s = end;
  return 1;
}

/* PUs in the list; -1 when malformed. */
static long long cpus_count(const char *s) {
  long long k = 0, lo, hi;
  int st;
  while ((st = cpus_next(&s, &lo, &hi)) > 0)
    k += hi - lo + 1;
  return st < 0 ? -1 : k;
}

/* PUs of list a that are in list b (both well formed). */
static long long cpus_common(const char *a, const char *b) {
  long long k = 0, alo, ahi, blo, bhi;
  while (cpus_next(&a, &alo, &ahi) > 0)
    for (const char *t = b; cpus_next(&t, &blo, &bhi) > 0;) {
      long long lo = alo > blo ? alo : blo, hi = ahi < bhi ? ahi : bhi;
      k += hi >= lo ? hi - lo + 1 : 0;
    }
  return k;
}

/* One group: problems of one kind (and for shared GPUs, one GPU). */
struct group {
  const struct gcb_model_problem *first; /* for its text and fix */
  long long *ranks;
  size_t nranks, nproblems;
  long long gpu; /* common GPU; -1 none or several */
  bool away;     /* a problem's rank may run away from its GPU: it names a
                    GPU, and not all of the rank's CPUs are local to it */
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

static void add_problem(struct group *g, const struct gcb_model_problem *p) {
  if (g->nproblems++ == 0) {
    g->first = p;
    g->gpu = p->gpu;
  } else if (g->gpu != p->gpu) {
    g->gpu = -1;
  }
  if (p->rank >= 0)
    g->ranks[g->nranks++] = p->rank;
  if (p->other_rank >= 0)
    g->ranks[g->nranks++] = p->other_rank;
}

/* A pile-up's record names the first rank bound within the cores
 * (topo/binding.c): the others are the node's ranks bound within that
 * rank's CPUs, added to the group so that the finding names them all.
 * g->ranks has room for every rank of the node. */
static void add_piled_ranks(const struct gcb_model *m,
                            const struct gcb_model_node *node,
                            struct group *g) {
  const struct gcb_model_rank *first = gcb_model_rank(m, g->ranks[0]);
  const char *a = first != NULL ? first->cpu_binding : "";
  for (size_t i = 0; cpus_count(a) > 0 && i < node->nranks; i++) {
    const struct gcb_model_rank *r = gcb_model_rank(m, node->ranks[i]);
    const char *b = r != NULL ? r->cpu_binding : "";
    long long nb = cpus_count(b);
    if (nb > 0 && node->ranks[i] != g->ranks[0] && cpus_common(b, a) == nb)
      g->ranks[g->nranks++] = node->ranks[i];
  }
}

static enum gcb_status report(const struct gcb__rule_ctx *cx,
                              const struct gcb_model_node *node,
                              struct group *g) {
  const struct gcb_model *m = cx->doc->model;
  const char *why = !g->away && cx->kind->problem_cost_host != NULL
                        ? cx->kind->problem_cost_host
                        : cx->kind->problem_cost;
  struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_WARN);
  if (f == NULL)
    return GCB_ENOMEM;
  if (cx->kind == GCB_KIND(OVERSUBSCRIBED) && g->nranks == 1)
    add_piled_ranks(m, node, g);
  unique_ranks(g);
  f->where.node = node->index;
  gcb_analyze_copy(f->where.hostname, sizeof f->where.hostname, node->hostname);
  if (g->nranks == 1) {
    gcb_finding_at_model_rank(f, cx->index, m, g->ranks[0]);
  } else if (g->nranks > 1) {
    f->where.rank = g->ranks[0];
    gcb_view_ranges(g->ranks, g->nranks, f->where.ranks, sizeof f->where.ranks);
  }
  if (g->gpu >= 0) {
    const struct gcb_model_gpu *gpu = gcb_model_gpu(m, node->index, g->gpu);
    f->where.gpu = g->gpu;
    gcb_view_copy(f->where.bus_id, sizeof f->where.bus_id,
                  gpu != NULL ? gpu->busid : "");
  }
  gcb_finding_figures(f, (double)(g->nranks > 0 ? g->nranks : g->nproblems), 0,
                      g->nranks > 0 ? "ranks" : "problems");
  const char *what = g->first->what;
  if (g->nproblems > 1)
    gcb_finding_explain(f, "%s (and %zu more like it): %s", what,
                        g->nproblems - 1, why);
  else
    gcb_finding_explain(f, "%s: %s", what, why);
  gcb_finding_suggest(f, "%s", g->first->fix);
  return GCB_OK;
}

/* The GPU's local CPUs: its own cpus, else its NUMA node's; "" unknown. */
static const char *gpu_cpus(const struct gcb_model_node *node,
                            const struct gcb_model_gpu *g) {
  if (g->cpus[0] != '\0')
    return g->cpus;
  for (size_t i = 0; g->numa >= 0 && i < node->nnuma; i++)
    if (node->numa[i] == g->numa && node->numa_cpus != NULL)
      return node->numa_cpus[i];
  return "";
}

/* Whether the problem's rank runs on its GPU's local CPUs alone. */
static bool on_local_cpus(const struct gcb_model *m,
                          const struct gcb_model_node *node,
                          const struct gcb_model_problem *p) {
  const struct gcb_model_gpu *g =
      p->gpu >= 0 ? gcb_model_gpu(m, node->index, p->gpu) : NULL;
  const struct gcb_model_rank *r = gcb_model_rank(m, p->rank);
  if (g == NULL || r == NULL)
    return false;
  long long pus = cpus_count(r->cpu_binding);
  const char *local = gpu_cpus(node, g);
  return pus > 0 && cpus_count(local) > 0 &&
         cpus_common(r->cpu_binding, local) >= pus;
}

/* A recorded problem that is none: a lone rank that owns its whole node,
 * the normal host-backend setup, or a lone GPU rank all of whose CPUs are
 * its GPU's local ones (a one-NUMA VM: as near its GPU as a bound rank
 * wherever the OS moves it), which the run's own check recorded as
 * unbound before 2026-12-03 and classifies as local since
 * (topo/binding.c). With two or more ranks on the node an unbound rank
 * stays a problem: they share cores (report words it so). */
static bool ignored(const struct gcb_model *m,
                    const struct gcb_model_node *node,
                    const struct gcb_model_problem *p) {
  return strcmp(p->kind, "unbound") == 0 && node->nranks < 2 &&
         (p->gpu < 0 || on_local_cpus(m, node, p));
}

/* Groups the node's problems of the rule's kind in list (shared GPUs: one
 * group per GPU, in order of first appearance) and reports each group. */
static enum gcb_status node_problems(const struct gcb__rule_ctx *cx,
                                     const struct gcb_model_node *node,
                                     const struct gcb_model_problem *list,
                                     size_t n, const char *problem) {
  bool by_gpu = strcmp(problem, "shared-gpu") == 0;
  bool *done = calloc(n + 1, sizeof *done);
  struct group g = {.ranks =
                        malloc((2 * n + node->nranks + 1) * sizeof *g.ranks)};
  enum gcb_status st = GCB_OK;
  if (done == NULL || g.ranks == NULL)
    st = gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
  for (size_t s = 0; s < n && st == GCB_OK; s++) {
    const struct gcb_model_problem *seed = &list[s];
    if (done[s] || strcmp(seed->kind, problem) != 0 ||
        ignored(cx->doc->model, node, seed))
      continue;
    g.nranks = g.nproblems = 0;
    g.away = false;
    for (size_t i = s; i < n; i++) {
      const struct gcb_model_problem *p = &list[i];
      if (done[i] || strcmp(p->kind, problem) != 0 ||
          ignored(cx->doc->model, node, p) || (by_gpu && p->gpu != seed->gpu))
        continue;
      done[i] = true;
      add_problem(&g, p);
      g.away |= p->gpu >= 0 && !on_local_cpus(cx->doc->model, node, p);
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
 * (topo/topo.h gcb_topo_check_ranks), made here. Only the binding
 * kinds are derived; unbound ranks, shared GPUs and oversubscription
 * have their own rules in placement.c for such nodes.
 */

/* A CPU list as a sentence shows it: whole up to 64 characters, else its
 * first CPUs and how many it has ("32,34,36,... (300 CPUs)"), so that the
 * sentence around it is not cut. */
static const char *cpus_shown(const char *list, char *buf, size_t size) {
  size_t cut = 48;
  if (strlen(list) <= 64)
    return list;
  while (cut > 0 && list[cut] != ',')
    cut--;
  snprintf(buf, size, "%.*s,... (%lld CPUs)", (int)cut, list, cpus_count(list));
  return buf;
}

/* The text of a problem derived from a rank's binding. */
struct derived {
  char what[384], fix[384];
};

/* Fills *p with the rank's binding problem, worded in *d; false when it
 * has none. */
static bool rank_binding(const struct gcb_model *m,
                         const struct gcb_model_node *node, long long r,
                         struct gcb_model_problem *p, struct derived *d) {
  const struct gcb_model_rank *rank = gcb_model_rank(m, r);
  long long gpu = gcb_model_rank_gpu(m, r, NULL);
  const struct gcb_model_gpu *g = gcb_model_gpu(m, node->index, gpu);
  if (g == NULL)
    return false;
  const char *bound = rank != NULL ? rank->cpu_binding : "";
  const char *local = gpu_cpus(node, g);
  long long pus = cpus_count(bound);
  if (pus <= 0 || cpus_count(local) <= 0)
    return false;
  long long near = cpus_common(bound, local);
  if (near >= pus)
    return false;
  /* worded as the run's own check words it (topo/binding.c); a long list
   * shown in part, and numactl then given the NUMA node */
  char b[80], l[80], bind[96];
  const char *shown = cpus_shown(local, l, sizeof l);
  snprintf(d->what, sizeof d->what,
           "rank %lld: its CPUs %s %s GPU%lld's local CPUs %s (NUMA %lld)", r,
           cpus_shown(bound, b, sizeof b),
           near == 0 ? "are all outside" : "are partly outside", gpu, shown,
           g->numa);
  if (shown == local)
    snprintf(bind, sizeof bind, "--physcpubind=%s", local);
  else
    snprintf(bind, sizeof bind, "--cpunodebind=%lld", g->numa);
  snprintf(d->fix, sizeof d->fix,
           "bind it to GPU%lld's local CPUs %s: numactl "
           "%s --membind=%lld for this rank; for all ranks "
           "at once, mpiexec -bind-to core -map-by numa (MPICH/Hydra) or "
           "srun --cpu-bind=ldoms (Slurm), GPUs in NUMA order",
           gpu, shown, bind, g->numa);
  *p = (struct gcb_model_problem){.kind = near == 0 ? "remote-binding"
                                                    : "partial-binding",
                                  .rank = r,
                                  .other_rank = -1,
                                  .gpu = gpu,
                                  .what = d->what,
                                  .fix = d->fix};
  return true;
}

/* The node's binding problems derived from its ranks, reported. */
static enum gcb_status derived_problems(const struct gcb__rule_ctx *cx,
                                        const struct gcb_model_node *node,
                                        const char *problem) {
  struct derived *d = malloc((node->nranks + 1) * sizeof *d);
  struct gcb_model_problem *list = malloc((node->nranks + 1) * sizeof *list);
  size_t n = 0;
  enum gcb_status st = GCB_OK;
  if (d == NULL || list == NULL)
    st = gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
  for (size_t i = 0; st == GCB_OK && i < node->nranks; i++)
    n += rank_binding(cx->doc->model, node, node->ranks[i], &list[n], &d[n]);
  if (st == GCB_OK)
    st = node_problems(cx, node, list, n, problem);
  free(d);
  free(list);
  return st;
}

enum gcb_status gcb__rule_topo_placement(const struct gcb__rule_ctx *cx) {
  const struct gcb_model *m = cx->doc->model;
  const char *problem = cx->kind->problem;
  if (problem == NULL)
    return gcb_err_set(cx->err, GCB_EINTERNAL, "no placement rule for %s",
                       cx->kind->name);
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < m->nnodes && st == GCB_OK; i++) {
    const struct gcb_model_node *node = &m->nodes[i];
    if (node->has_placement)
      st = node_problems(cx, node, node->placement, node->nplacement, problem);
    else if (node->has_topology)
      st = derived_problems(cx, node, problem);
  }
  return st;
}
