/*
 * Binding checks. A rank's CPU set (a list string, since binding queries on
 * an XML topology are fake) against its GPU's local CPUs: LOCAL, PARTIAL,
 * REMOTE or UNBOUND. Over the ranks of one node: bindings away from the
 * GPU, unbound ranks, two ranks on one GPU, GPUs without a rank, more ranks
 * than cores (on the node, or within one binding). Each problem carries the
 * launcher options that fix it (MPICH/Hydra mpiexec, Slurm srun, numactl).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_int.h"

static const char *const problem_names[] = {
    "partial-binding", "remote-binding", "unbound",
    "shared-gpu",      "idle-gpu",       "oversubscribed",
};

const char *gcb_topo_problem_name(enum gcb_topo_problem_kind k) {
  return (unsigned)k < sizeof problem_names / sizeof *problem_names
             ? problem_names[k]
             : "?";
}

/* hwloc_bitmap_list_sscanf takes each number with strtoul and keeps it as
 * an unsigned int, so "4294967296" became CPU 0, and a number just below
 * 2^32 would allocate a 512 MiB bitmap: numbers are checked here first. */
bool gcb__topo_cpulist_ok(const char *list, unsigned long long *bad) {
  *bad = 0;
  if (list == NULL || *list == '\0')
    return false;
  for (const char *p = list; *p;) {
    if (*p < '0' || *p > '9')
      return false;
    unsigned long long v = 0;
    for (; *p >= '0' && *p <= '9'; p++)
      v = v > (ULLONG_MAX - 9) / 10 ? ULLONG_MAX
                                    : v * 10 + (unsigned)(*p - '0');
    if (v > GCB_TOPO_CPU_MAX) {
      *bad = v;
      return false;
    }
    if ((*p == ',' || *p == '-') && p[1] >= '0' && p[1] <= '9')
      p++;
    else if (*p != '\0')
      return false;
  }
  return true;
}

/* A list string as a bitmap of this machine's PUs; caller frees. */
static enum gcb_status parse_cpus(const struct gcb_topo *t, const char *cpus,
                                  hwloc_bitmap_t *out, struct gcb_err *err) {
  unsigned long long bad;
  if (!gcb__topo_cpulist_ok(cpus, &bad)) {
    *out = NULL;
    if (bad)
      return gcb_err_set(err, GCB_EINPUT,
                         "invalid CPU list '%s': CPU %llu is past %d", cpus,
                         bad, GCB_TOPO_CPU_MAX);
    return gcb_err_set(err, GCB_EINPUT,
                       "invalid CPU list '%s' (expected e.g. 0-3,8)",
                       cpus ? cpus : "");
  }
  *out = hwloc_bitmap_alloc();
  if (*out == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "hwloc_bitmap_alloc failed");
  hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(t->topology);
  if (hwloc_bitmap_list_sscanf(*out, cpus) != 0 ||
      hwloc_bitmap_and(*out, *out, all) != 0 || hwloc_bitmap_iszero(*out)) {
    hwloc_bitmap_free(*out);
    *out = NULL;
    /* The machine is the topology's, which --topology-xml may have read
     * from another host: name its CPUs rather than "this machine". */
    char have[256];
    if (hwloc_bitmap_list_snprintf(have, sizeof have, all) < 0)
      have[0] = '\0';
    return gcb_err_set(err, GCB_EINPUT,
                       "invalid CPU list '%s' (none of the machine's CPUs %s)",
                       cpus ? cpus : "", have);
  }
  return GCB_OK;
}

static hwloc_const_bitmap_t gpu_cpus(const struct gcb_topo *t, int gpu) {
  return hwloc_get_non_io_ancestor_obj(t->topology, t->gpu_objs[gpu])->cpuset;
}

/* A CPU set against a GPU's local CPUs; a set that covers every PU is
 * UNBOUND, unless every PU is local to the GPU. */
enum gcb_topo_bind {
  GCB_TOPO_BIND_LOCAL,   /* within the GPU's local CPUs */
  GCB_TOPO_BIND_PARTIAL, /* overlaps them */
  GCB_TOPO_BIND_REMOTE,  /* disjoint from them */
  GCB_TOPO_BIND_UNBOUND, /* covers the whole machine */
};

static enum gcb_topo_bind classify(const struct gcb_topo *t,
                                   hwloc_const_bitmap_t set, int gpu) {
  /* Within its GPU's local CPUs first: where those are the whole machine
   * (one socket, a one-NUMA virtual machine), a rank on every CPU is as
   * near its GPU as a bound one, wherever the OS moves it. */
  hwloc_const_bitmap_t local = gpu >= 0 ? gpu_cpus(t, gpu) : NULL;
  if (local != NULL && hwloc_bitmap_isincluded(set, local))
    return GCB_TOPO_BIND_LOCAL;
  if (hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(t->topology),
                              set))
    return GCB_TOPO_BIND_UNBOUND;
  if (gpu < 0)
    return GCB_TOPO_BIND_LOCAL;
  return hwloc_bitmap_intersects(set, local) ? GCB_TOPO_BIND_PARTIAL
                                             : GCB_TOPO_BIND_REMOTE;
}

static enum gcb_status bad_gpu(const struct gcb_topo *t, int gpu,
                               struct gcb_err *err) {
  return gcb_err_set(err, GCB_EINPUT, "no GPU %d (this node has %d)", gpu,
                     t->ngpus);
}

static int count_in(hwloc_topology_t topo, hwloc_const_bitmap_t set,
                    hwloc_obj_type_t type) {
  int n = hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, type);
  return n > 0 ? n : 0;
}

/* --- the ranks of one node ------------------------------------------------ */

static void free_sets(hwloc_bitmap_t *sets, int n) {
  for (int i = 0; sets && i < n; i++)
    hwloc_bitmap_free(sets[i]);
  free(sets);
}

/* Every rank's CPU set, after checking its GPU index. */
static enum gcb_status parse_ranks(const struct gcb_topo *t,
                                   const struct gcb_topo_rank *ranks, int n,
                                   hwloc_bitmap_t **out, struct gcb_err *err) {
  hwloc_bitmap_t *sets = calloc(n > 0 ? (size_t)n : 1, sizeof *sets);
  if (sets == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "out of memory");
  enum gcb_status st = GCB_OK;
  for (int i = 0; i < n && st == GCB_OK; i++) {
    if (ranks[i].gpu < -1 || ranks[i].gpu >= t->ngpus)
      st = bad_gpu(t, ranks[i].gpu, err);
    else
      st = parse_cpus(t, ranks[i].cpus, &sets[i], err);
    if (st != GCB_OK)
      gcb_err_prefix(err, "rank %d", ranks[i].rank);
  }
  if (st != GCB_OK) {
    free_sets(sets, n);
    return st;
  }
  *out = sets;
  return GCB_OK;
}

struct probbuf {
  struct gcb_topo_problem *items;
  int n, cap, oom;
};

/* A new problem to fill in; NULL once memory ran out. */
static struct gcb_topo_problem *add(struct probbuf *b,
                                    enum gcb_topo_problem_kind kind, int rank,
                                    int other, int gpu) {
  struct gcb_topo_problem *grown =
      b->oom ? NULL : gcb__topo_grow(b->items, &b->cap, b->n, sizeof *grown);
  if (grown == NULL) {
    b->oom = 1;
    return NULL;
  }
  b->items = grown;
  struct gcb_topo_problem *p = &b->items[b->n++];
  *p = (struct gcb_topo_problem){
      .kind = kind, .rank = rank, .other_rank = other, .gpu = gpu};
  return p;
}

/* numactl for one rank: by node when the GPU's CPUs are the whole node,
 * else by CPU (hwloc may place devices under an L3, as on AMD EPYC). */
static void gpu_fix(const struct gcb_topo *t, int gpu, char *buf, size_t len) {
  const struct gcb_topo_gpu *g = &t->gpus[gpu];
  int whole_node = 0;
  for (int i = 0; i < t->nnuma; i++)
    whole_node |=
        t->numa[i].os_index == g->numa && strcmp(t->numa[i].cpus, g->cpus) == 0;
  char how[160];
  if (whole_node)
    snprintf(how, sizeof how, "numactl --cpunodebind=%d --membind=%d", g->numa,
             g->numa);
  else if (g->numa >= 0)
    snprintf(how, sizeof how, "numactl --physcpubind=%s --membind=%d", g->cpus,
             g->numa);
  else
    snprintf(how, sizeof how, "taskset -c %s", g->cpus);
  snprintf(buf, len,
           "bind it to GPU%d's local CPUs %s: %s for this rank; for all ranks "
           "at once, mpiexec -bind-to user:... (MPICH/Hydra) or srun "
           "--cpu-bind=mask_cpu:... (Slurm) as gcbench topo --cpuset prints",
           gpu, g->cpus, how);
}

static void check_rank(const struct gcb_topo *t, const struct gcb_topo_rank *r,
                       hwloc_const_bitmap_t set, struct probbuf *b) {
  enum gcb_topo_bind c = classify(t, set, r->gpu);
  if (c == GCB_TOPO_BIND_LOCAL)
    return;
  static const enum gcb_topo_problem_kind kinds[] = {
      GCB_TOPO_PROB_PARTIAL, GCB_TOPO_PROB_PARTIAL, GCB_TOPO_PROB_REMOTE,
      GCB_TOPO_PROB_UNBOUND};
  struct gcb_topo_problem *p = add(b, kinds[c], r->rank, -1, r->gpu);
  if (p == NULL)
    return;
  char cpus[64];
  hwloc_bitmap_list_snprintf(cpus, sizeof cpus, set);
  if (c == GCB_TOPO_BIND_UNBOUND && r->gpu < 0) {
    snprintf(p->what, sizeof p->what,
             "rank %d is not bound (CPUs %s: the whole machine)", r->rank,
             cpus);
    snprintf(p->fix, sizeof p->fix,
             "bind ranks to cores: mpiexec -bind-to core (MPICH/Hydra), srun "
             "--cpu-bind=cores (Slurm), or numactl --physcpubind per rank");
    return;
  }
  const struct gcb_topo_gpu *g = &t->gpus[r->gpu];
  snprintf(p->what, sizeof p->what,
           "rank %d: its CPUs %s %s GPU%d's local CPUs %s (NUMA %d)", r->rank,
           cpus,
           c == GCB_TOPO_BIND_UNBOUND  ? "are the whole machine, not just"
           : c == GCB_TOPO_BIND_REMOTE ? "are all outside"
                                       : "are partly outside",
           r->gpu, g->cpus, g->numa);
  gpu_fix(t, r->gpu, p->fix, sizeof p->fix);
}

static void check_shared(const struct gcb_topo *t,
                         const struct gcb_topo_rank *ranks, int n,
                         struct probbuf *b) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j && ranks[j].gpu >= 0; i++) {
      if (ranks[i].gpu != ranks[j].gpu)
        continue;
      struct gcb_topo_problem *p =
          add(b, GCB_TOPO_PROB_SHARED_GPU, ranks[j].rank, ranks[i].rank,
              ranks[j].gpu);
      if (p == NULL)
        return;
      snprintf(p->what, sizeof p->what, "ranks %d and %d share GPU%d",
               ranks[i].rank, ranks[j].rank, ranks[j].gpu);
      snprintf(p->fix, sizeof p->fix,
               "one rank per GPU, device = local rank: mpiexec -ppn %d "
               "(MPICH/Hydra), srun --ntasks-per-node=%d --gpus-per-task=1 "
               "(Slurm)",
               t->ngpus, t->ngpus);
      break; /* the first sharer is enough for rank j */
    }
}

static void check_idle(const struct gcb_topo *t,
                       const struct gcb_topo_rank *ranks, int n,
                       struct probbuf *b) {
  hwloc_bitmap_t idle = hwloc_bitmap_alloc();
  int any = 0;
  if (idle == NULL) {
    b->oom = 1;
    return;
  }
  if (t->ngpus > 0)
    hwloc_bitmap_set_range(idle, 0, t->ngpus - 1);
  for (int i = 0; i < n; i++)
    if (ranks[i].gpu >= 0) {
      hwloc_bitmap_clr(idle, (unsigned)ranks[i].gpu);
      any = 1;
    }
  int w = hwloc_bitmap_weight(idle);
  struct gcb_topo_problem *p = any && w > 0
                                   ? add(b, GCB_TOPO_PROB_IDLE_GPU, -1, -1,
                                         w == 1 ? hwloc_bitmap_first(idle) : -1)
                                   : NULL;
  if (p) {
    char list[64];
    hwloc_bitmap_list_snprintf(list, sizeof list, idle);
    snprintf(p->what, sizeof p->what, "GPU %s: no rank (%d of %d GPUs idle)",
             list, w, t->ngpus);
    snprintf(p->fix, sizeof p->fix,
             "one rank per GPU: mpiexec -ppn %d (MPICH/Hydra), srun "
             "--ntasks-per-node=%d --gpus-per-task=1 (Slurm)",
             t->ngpus, t->ngpus);
  }
  hwloc_bitmap_free(idle);
}

static void oversubscribed_node(const struct gcb_topo *t, int n,
                                struct probbuf *b) {
  int cores =
      count_in(t->topology, hwloc_topology_get_topology_cpuset(t->topology),
               HWLOC_OBJ_CORE);
  struct gcb_topo_problem *p =
      cores > 0 && n > cores ? add(b, GCB_TOPO_PROB_OVERSUBSCRIBED, -1, -1, -1)
                             : NULL;
  if (p == NULL)
    return;
  snprintf(p->what, sizeof p->what, "%d ranks on %d cores", n, cores);
  snprintf(p->fix, sizeof p->fix,
           "at most %d ranks per node: mpiexec -ppn %d (MPICH/Hydra), srun "
           "--ntasks-per-node=%d (Slurm)",
           cores, cores, cores);
}

/* The whole cores a CPU set touches; NULL on ENOMEM. */
static hwloc_bitmap_t cores_of(hwloc_topology_t topo,
                               hwloc_const_bitmap_t set) {
  hwloc_bitmap_t out = hwloc_bitmap_alloc();
  for (hwloc_obj_t c = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_CORE, NULL);
       out && c; c = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_CORE, c))
    if (hwloc_bitmap_intersects(c->cpuset, set) &&
        hwloc_bitmap_or(out, out, c->cpuset) != 0) {
      hwloc_bitmap_free(out);
      return NULL;
    }
  return out;
}

/* Whether an earlier bound rank touches exactly the same cores as rank i
 * (then the oversubscription was reported with it). */
static int seen_cores(const struct gcb_topo *t, hwloc_bitmap_t *sets, int i,
                      hwloc_const_bitmap_t cores, int *oom) {
  int seen = 0;
  for (int j = 0; j < i && !seen && !*oom; j++) {
    hwloc_bitmap_t cj = cores_of(t->topology, sets[j]);
    *oom |= cj == NULL;
    seen = cj && hwloc_bitmap_isequal(cj, cores);
    hwloc_bitmap_free(cj);
  }
  return seen;
}

static void report_pileup(const struct gcb_topo_rank *r,
                          hwloc_const_bitmap_t cores, int inside, int ncores,
                          struct probbuf *b) {
  struct gcb_topo_problem *p =
      add(b, GCB_TOPO_PROB_OVERSUBSCRIBED, r->rank, -1, r->gpu);
  if (p == NULL)
    return;
  char cpus[64];
  hwloc_bitmap_list_snprintf(cpus, sizeof cpus, cores);
  snprintf(p->what, sizeof p->what,
           "%d ranks are bound within CPUs %s (%d core%s), starting with rank "
           "%d",
           inside, cpus, ncores, ncores == 1 ? "" : "s", r->rank);
  snprintf(p->fix, sizeof p->fix,
           "give each rank its own cores: mpiexec -bind-to core (MPICH/Hydra), "
           "srun --cpu-bind=cores (Slurm)");
}

/* More bound ranks within the cores one rank touches than there are. */
static void oversubscribed_set(const struct gcb_topo *t,
                               const struct gcb_topo_rank *ranks,
                               hwloc_bitmap_t *sets, int n, int i,
                               struct probbuf *b) {
  hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(t->topology);
  if (hwloc_bitmap_isincluded(all, sets[i]))
    return; /* unbound: reported as such */
  hwloc_bitmap_t cores = cores_of(t->topology, sets[i]);
  int oom = cores == NULL;
  if (!oom && !seen_cores(t, sets, i, cores, &oom)) {
    int inside = 0;
    for (int j = 0; j < n; j++)
      inside += hwloc_bitmap_isincluded(sets[j], cores);
    int ncores = count_in(t->topology, cores, HWLOC_OBJ_CORE);
    if (inside > ncores)
      report_pileup(&ranks[i], cores, inside, ncores, b);
  }
  b->oom |= oom;
  hwloc_bitmap_free(cores);
}

enum gcb_status gcb_topo_check_ranks(const struct gcb_topo *t,
                                     const struct gcb_topo_rank *ranks,
                                     int nranks, struct gcb_topo_problem **out,
                                     int *nout, struct gcb_err *err) {
  *out = NULL;
  *nout = 0;
  hwloc_bitmap_t *sets;
  enum gcb_status st = parse_ranks(t, ranks, nranks, &sets, err);
  if (st != GCB_OK)
    return st;
  struct probbuf b = {0};
  for (int i = 0; i < nranks; i++)
    check_rank(t, &ranks[i], sets[i], &b);
  check_shared(t, ranks, nranks, &b);
  check_idle(t, ranks, nranks, &b);
  oversubscribed_node(t, nranks, &b);
  for (int i = 0; i < nranks; i++)
    oversubscribed_set(t, ranks, sets, nranks, i, &b);
  free_sets(sets, nranks);
  if (b.oom) {
    free(b.items);
    return gcb_err_set(err, GCB_ENOMEM, "binding check: out of memory");
  }
  *out = b.items;
  *nout = b.n;
  return GCB_OK;
}

/* --- the fix for a whole node --------------------------------------------- */

/* The pos-th of k sharers of local gets cores [pos*nc/k, (pos+1)*nc/k), or
 * core pos % nc when there are more sharers than cores. 0, or -1 on ENOMEM. */
static int split_cores(hwloc_topology_t topo, hwloc_const_bitmap_t local,
                       int pos, int k, hwloc_bitmap_t out) {
  int nc = count_in(topo, local, HWLOC_OBJ_CORE);
  if (nc <= 0)
    return hwloc_bitmap_copy(out, local);
  hwloc_bitmap_zero(out);
  int lo = nc >= k ? pos * nc / k : pos % nc;
  int hi = nc >= k ? (pos + 1) * nc / k : lo + 1;
  for (int c = lo; c < hi; c++) {
    hwloc_obj_t core = hwloc_get_obj_inside_cpuset_by_type(
        topo, local, HWLOC_OBJ_CORE, (unsigned)c);
    if (core && hwloc_bitmap_or(out, out, core->cpuset) != 0)
      return -1;
  }
  return 0;
}

/*
 * The CPUs each rank should have: its GPU's local CPUs, split by cores
 * among the ranks that share them (as mpibind does), or its own binding
 * when it has no GPU.
 */
static enum gcb_status target_sets(const struct gcb_topo *t,
                                   const struct gcb_topo_rank *ranks, int n,
                                   hwloc_bitmap_t *sets) {
  for (int i = 0; i < n; i++) {
    if (ranks[i].gpu < 0)
      continue;
    hwloc_const_bitmap_t local = gpu_cpus(t, ranks[i].gpu);
    int k = 0, pos = 0;
    for (int j = 0; j < n; j++) {
      int same = ranks[j].gpu >= 0 &&
                 hwloc_bitmap_isequal(gpu_cpus(t, ranks[j].gpu), local);
      pos += same && j < i;
      k += same;
    }
    if (split_cores(t->topology, local, pos, k, sets[i]) != 0)
      return GCB_ENOMEM;
  }
  return GCB_OK;
}

struct sbuf {
  char *buf;
  size_t len, used;
};

__attribute__((format(printf, 2, 3))) static void put(struct sbuf *s,
                                                      const char *fmt, ...) {
  if (s->used + 1 >= s->len)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(s->buf + s->used, s->len - s->used, fmt, ap);
  va_end(ap);
  if (n > 0)
    s->used = s->used + (size_t)n < s->len ? s->used + (size_t)n : s->len - 1;
}

static void put_hydra(struct sbuf *s, hwloc_bitmap_t *sets, int n) {
  put(s, "MPICH/Hydra: mpiexec -bind-to user:");
  for (int i = 0; i < n; i++) {
    int first = 1;
    unsigned cpu;
    put(s, "%s", i ? "," : "");
    hwloc_bitmap_foreach_begin(cpu, sets[i]) {
      put(s, "%s%u", first ? "" : "+", cpu);
      first = 0;
    }
    hwloc_bitmap_foreach_end();
  }
  put(s, "\n");
}

static void put_slurm(struct sbuf *s, hwloc_bitmap_t *sets, int n) {
  put(s, "Slurm: srun --cpu-bind=mask_cpu:");
  for (int i = 0; i < n; i++) {
    char mask[300];
    hwloc_bitmap_taskset_snprintf(mask, sizeof mask, sets[i]);
    put(s, "%s%s", i ? "," : "", mask);
  }
  put(s, "\n");
}

static void put_numactl(struct sbuf *s, const struct gcb_topo *t,
                        const struct gcb_topo_rank *ranks, hwloc_bitmap_t *sets,
                        int n) {
  for (int i = 0; i < n; i++) {
    char cpus[256];
    hwloc_bitmap_list_snprintf(cpus, sizeof cpus, sets[i]);
    int numa = ranks[i].gpu >= 0 ? t->gpus[ranks[i].gpu].numa : -1;
    if (numa >= 0)
      put(s, "rank %d: numactl --physcpubind=%s --membind=%d\n", ranks[i].rank,
          cpus, numa);
    else
      put(s, "rank %d: taskset -c %s\n", ranks[i].rank, cpus);
  }
}

enum gcb_status gcb_topo_binding_fix(const struct gcb_topo *t,
                                     const struct gcb_topo_rank *ranks,
                                     int nranks, char *buf, size_t len,
                                     struct gcb_err *err) {
  hwloc_bitmap_t *sets;
  enum gcb_status st = parse_ranks(t, ranks, nranks, &sets, err);
  if (st != GCB_OK)
    return st;
  if (target_sets(t, ranks, nranks, sets) != GCB_OK) {
    free_sets(sets, nranks);
    return gcb_err_set(err, GCB_ENOMEM, "binding fix: out of memory");
  }
  struct sbuf s = {buf, len, 0};
  if (len > 0)
    buf[0] = '\0';
  put_hydra(&s, sets, nranks);
  put_slurm(&s, sets, nranks);
  put_numactl(&s, t, ranks, sets, nranks);
  free_sets(sets, nranks);
  return GCB_OK;
}
