/*
 * `blas-kernel`: the BLAS ran kernels below what the CPU offers, or the
 * environment chose them. OpenBLAS picks its kernels (its "core") from the
 * CPU at start-up unless OPENBLAS_CORETYPE names one; an OpenBLAS older
 * than the CPU falls back to an old core (0.3.21 on a Sapphire Rapids VM
 * picks Prescott, SSE3, five times slower than its SkylakeX kernels), and
 * OPENBLAS_CORETYPE=Haswell on an AVX-512 CPU halves fp32 GEMM. Nothing in
 * a GEMM figure says so; the run header does (software.blas_run: the core
 * OpenBLAS reported and the CPU's widest vector ISA; run.environment:
 * OPENBLAS_CORETYPE), and this rule reads it:
 *  - the core's ISA below the CPU's: warn when the run has host GEMM
 *    figures (gemm, pattern), else info;
 *  - OPENBLAS_CORETYPE set, the core not below the CPU: info.
 * Where the ranks[] entries carry fewer BLAS threads than the CPU threads
 * the backend gave them (ranks[].cpu_threads), that is a finding too: one
 * for the run when every rank is alike, else one per node naming them.
 * Where the ranks[] entries carry their own BLAS (ranks[].blas: every
 * rank's core, threads and CPU ISA) and they do not all agree, the rule
 * judges each rank instead, one finding per node naming its ranks: those
 * whose core sits below their own CPU (unless every rank's does, with the
 * same core and CPU: one finding for the run, as above), and those whose
 * core or thread count differs from most ranks' (a rank launched with
 * OPENBLAS_NUM_THREADS=1 or its own OPENBLAS_CORETYPE, or a node whose CPU
 * OpenBLAS knows less well: its GEMM is slower, and a synchronous job
 * waits for it). Same severities.
 * The core → ISA table is OpenBLAS's x86 core list (driver/others/
 * dynamic.c, corename[]); a core it does not know is not judged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "reports/analysis/analyze_rules.h"

/* Vector ISAs, narrowest first: the words of software.blas_run.cpu_isa. */
static const char *const isas[] = {"sse2", "sse3",   "avx",
                                   "avx2", "avx512", NULL};

/* OpenBLAS's x86 cores (any case: builds without DYNAMIC_ARCH report
 * "HASWELL") and the widest ISA their kernels use. */
static const struct {
  const char *core;
  int isa; /* index into isas */
} cores[] = {
    {"Katmai", 0},      {"Coppermine", 0},
    {"Northwood", 0},   {"Banias", 0},
    {"Athlon", 0},      {"Opteron", 0},
    {"Prescott", 1},    {"Opteron_SSE3", 1},
    {"Barcelona", 1},   {"Bobcat", 1},
    {"Atom", 1},        {"Core2", 1},
    {"Penryn", 1},      {"Dunnington", 1},
    {"Nehalem", 1},     {"Nano", 1},
    {"Sandybridge", 2}, {"Bulldozer", 2},
    {"Piledriver", 2},  {"Steamroller", 2},
    {"Haswell", 3},     {"Excavator", 3},
    {"Zen", 3},         {"SkylakeX", 4},
    {"Cooperlake", 4},  {"SapphireRapids", 4},
};

/* The core OPENBLAS_CORETYPE would name for the widest kernels of an ISA. */
static const char *const best_core[] = {"Opteron", "Prescott", "Sandybridge",
                                        "Haswell", "SkylakeX"};

static int isa_index(const char *isa) {
  for (int i = 0; isas[i] != NULL; i++)
    if (strcmp(isas[i], isa) == 0)
      return i;
  return -1;
}

static int core_isa(const char *core) {
  for (size_t i = 0; i < sizeof cores / sizeof *cores; i++)
    if (strcasecmp(cores[i].core, core) == 0)
      return cores[i].isa;
  return -1;
}

/* Whether the run has figures the host BLAS made. */
static bool has_blas_figures(const struct gcb_model *m) {
  for (size_t i = 0; i < m->ncases; i++)
    if (gcb_kind_applies(GCB_KIND(BLAS_KERNEL), m->cases[i].kind))
      return true;
  return false;
}

/* software.blas_run: an object, or ABSENT. */
static const struct gcb_mvalue *blas_run(const struct gcb_model *m) {
  return gcb_mvalue_get(&m->run.software, "blas_run");
}

/* "a CPU with AVX-512" or, forced, "(OPENBLAS_CORETYPE=Haswell)". */
static void below_cpu(struct gcb_finding *f, const char *lib, const char *core,
                      int have, int could, const char *forced) {
  gcb_finding_explain(
      f,
      "%s runs its %s kernels (%s) on a CPU that offers %s: GEMM figures "
      "are those of the older kernels%s%s%s",
      lib, core, isas[have], isas[could],
      forced[0] ? ", forced by OPENBLAS_CORETYPE=" : " (OpenBLAS's own choice",
      forced, forced[0] ? "" : ": it does not know this CPU)");
  if (forced[0])
    gcb_finding_suggest(f,
                        "unset OPENBLAS_CORETYPE (or set it to %s) and rerun",
                        best_core[could]);
  else
    gcb_finding_suggest(f,
                        "export OPENBLAS_CORETYPE=%s, or use an OpenBLAS "
                        "that knows this CPU, and rerun",
                        best_core[could]);
}

/* ---- per rank (ranks[].blas) -------------------------------------------- */

/* One rank's BLAS as its ranks[] entry records it. */
struct rank_blas {
  long long rank, node;
  const char *core;
  long long threads, cpu_threads; /* the BLAS's; those the backend gave it */
  int have, could; /* ISA indices of the core and of the rank's CPU; -1 */
  size_t combo;    /* its (core, threads): the first rank's that runs it */
};

static bool is_below(const struct rank_blas *r) {
  return r->have >= 0 && r->could >= 0 && r->have < r->could;
}

/* Fewer BLAS threads than the CPU threads the host backend gave the rank
 * (ranks[].cpu_threads, which it asks OpenBLAS for): an OpenBLAS built
 * for fewer (MAX_THREADS) or without threads, or an OpenMP runtime held
 * to fewer. */
static bool is_few(const struct rank_blas *r) {
  return r->threads > 0 && r->threads < r->cpu_threads;
}

struct blas_ranks {
  struct rank_blas *r;
  size_t n;
  size_t ncombos, majority; /* the pair most ranks run */
  size_t *count;            /* ranks per pair, at its first rank */
  bool all_below_alike;     /* every rank below its CPU, one core, one CPU
                               ISA (thread counts may differ) */
  bool uniform;             /* one core, one thread count, one CPU ISA */
  bool all_few_alike;       /* every rank with the same too few threads */
};

static size_t combo_of(struct blas_ranks *b, size_t i) {
  for (size_t j = 0; j < i; j++)
    if (b->r[j].threads == b->r[i].threads &&
        strcasecmp(b->r[j].core, b->r[i].core) == 0)
      return b->r[j].combo;
  b->ncombos++;
  return i;
}

/* How the ranks' BLAS compare: combos, majority, uniformity. */
static void blas_survey(struct blas_ranks *b) {
  b->all_below_alike = b->uniform = b->all_few_alike = true;
  for (size_t i = 0; i < b->n; i++) {
    struct rank_blas *r = &b->r[i];
    r->combo = combo_of(b, i);
    b->count[r->combo]++;
    bool below = is_below(r);
    bool same_cpu = r->could == b->r[0].could;
    b->uniform &= r->combo == b->r[0].combo && same_cpu;
    b->all_below_alike &=
        below && same_cpu && strcasecmp(r->core, b->r[0].core) == 0;
    b->all_few_alike &= is_few(r) && r->threads == b->r[0].threads &&
                        r->cpu_threads == b->r[0].cpu_threads;
  }
  for (size_t c = 1; c < b->n; c++)
    if (b->count[c] > b->count[b->majority])
      b->majority = c;
}

static int by_node(const void *a, const void *b) {
  const struct rank_blas *x = a, *y = b;
  if (x->node != y->node)
    return x->node < y->node ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Every ranks[] entry with a "blas" object, sorted by node then rank;
 * NULL (n 0) when there are none. */
static enum gcb_status blas_read(const struct gcb_model *m,
                                 struct blas_ranks *b) {
  *b = (struct blas_ranks){0};
  if (m->nranks == 0)
    return GCB_OK;
  b->r = calloc(m->nranks, sizeof *b->r);
  b->count = calloc(m->nranks, sizeof *b->count);
  if (b->r == NULL || b->count == NULL) {
    free(b->r);
    free(b->count);
    return GCB_ENOMEM;
  }
  for (size_t i = 0; i < m->nranks; i++) {
    const struct gcb_model_rank *e = &m->ranks[i];
    if (!e->has_blas)
      continue;
    /* the model's -1 for an absent member is this rule's 0 (node 0) */
    b->r[b->n++] = (struct rank_blas){
        .rank = e->rank >= 0 ? e->rank : (long long)i,
        .node = e->node >= 0 ? e->node : 0,
        .core = e->blas_core,
        .threads = e->blas_threads >= 0 ? e->blas_threads : 0,
        .cpu_threads = e->cpu_threads >= 0 ? e->cpu_threads : 0,
        .have = core_isa(e->blas_core),
        .could = isa_index(e->blas_cpu_isa)};
  }
  qsort(b->r, b->n, sizeof *b->r, by_node);
  blas_survey(b);
  return GCB_OK;
}

/* The library's name as the header records it. */
static const char *blas_lib(const struct gcb__rule_ctx *cx) {
  const char *lib = gcb_mvalue_str(blas_run(cx->doc->model), "library");
  return lib[0] ? lib : "OpenBLAS";
}

/* warn where the run has figures the BLAS made, else info. */
static enum gcb_severity blas_severity(const struct gcb__rule_ctx *cx) {
  return has_blas_figures(cx->doc->model) ? GCB_SEV_WARN : GCB_SEV_INFO;
}

/* A finding at the node of r[0..n), naming those ranks. */
static struct gcb_finding *node_finding(const struct gcb__rule_ctx *cx,
                                        enum gcb_severity sev,
                                        const struct rank_blas *r, size_t n) {
  long long *ids = calloc(n, sizeof *ids);
  struct gcb_finding *f = ids != NULL ? gcb__rule_push(cx, sev) : NULL;
  for (size_t i = 0; f != NULL && i < n; i++)
    ids[i] = r[i].rank;
  if (f != NULL) {
    gcb_finding_at_model_rank(f, cx->index, cx->doc->model, r[0].rank);
    gcb_view_ranges(ids, n, f->where.ranks, sizeof f->where.ranks);
  }
  free(ids);
  return f;
}

/* The groups a node's ranks are named in. */
enum group { BELOW, FEW, APART };

/* Whether r is of the group of `ref`: below its CPU with ref's core and
 * CPU (BELOW), with ref's too few threads of ref's CPU threads (FEW), or
 * running ref's (core, threads) apart from the majority's (APART). */
static bool in_group(const struct rank_blas *r, const struct rank_blas *ref,
                     enum group g, size_t majority) {
  if (g == BELOW)
    return is_below(r) && r->could == ref->could &&
           strcasecmp(r->core, ref->core) == 0;
  if (g == FEW)
    return is_few(r) && r->threads == ref->threads &&
           r->cpu_threads == ref->cpu_threads;
  return r->combo != majority && r->combo == ref->combo;
}

/* The ranks of one node (r[0..n)) in the group of r[i], gathered into out;
 * 0 when r[i] is in none, or an earlier rank already led its group. */
static size_t group_of(const struct rank_blas *r, size_t n, size_t i,
                       enum group g, size_t majority, struct rank_blas *out) {
  if (!in_group(&r[i], &r[i], g, majority))
    return 0;
  for (size_t j = 0; j < i; j++)
    if (in_group(&r[j], &r[i], g, majority))
      return 0;
  size_t k = 0;
  for (size_t j = i; j < n; j++)
    if (in_group(&r[j], &r[i], g, majority))
      out[k++] = r[j];
  return k;
}

/* Ranks tmp[0..k) (or, all, every rank) run fewer BLAS threads than the
 * CPU threads they were given. */
static enum gcb_status few_finding(const struct gcb__rule_ctx *cx,
                                   const char *lib, enum gcb_severity sev,
                                   const struct rank_blas *tmp, size_t k,
                                   bool all) {
  struct gcb_finding *f = node_finding(cx, sev, tmp, k);
  if (f == NULL)
    return GCB_ENOMEM;
  if (all)
    snprintf(f->where.ranks, sizeof f->where.ranks, "all");
  gcb_finding_figures(f, (double)tmp[0].threads, (double)tmp[0].cpu_threads,
                      "threads");
  char who[128];
  if (all)
    snprintf(who, sizeof who, "every rank, which were");
  else
    snprintf(who, sizeof who, "rank%s %s, which %s", k == 1 ? "" : "s",
             f->where.ranks, k == 1 ? "was" : "were");
  gcb_finding_explain(f,
                      "%s runs %lld thread%s on %s given %lld CPU threads "
                      "(ranks[].cpu_threads): GEMM uses %.0f%% of them",
                      lib, tmp[0].threads, tmp[0].threads == 1 ? "" : "s", who,
                      tmp[0].cpu_threads,
                      100.0 * (double)tmp[0].threads /
                          (double)tmp[0].cpu_threads);
  gcb_finding_suggest(f, "check OPENBLAS_NUM_THREADS/OMP_NUM_THREADS/"
                         "OMP_THREAD_LIMIT in these ranks' environment and "
                         "the OpenBLAS build's threading (MAX_THREADS, "
                         "USE_OPENMP), and rerun");
  return GCB_OK;
}

/* Ranks tmp[0..k) run kernels below their CPU's. */
static enum gcb_status below_finding(const struct gcb__rule_ctx *cx,
                                     const char *lib, enum gcb_severity sev,
                                     const struct rank_blas *tmp, size_t k) {
  struct gcb_finding *f = node_finding(cx, sev, tmp, k);
  if (f == NULL)
    return GCB_ENOMEM;
  gcb_finding_explain(
      f,
      "%s runs its %s kernels (%s) on rank%s %s, whose CPU offers %s: "
      "their GEMM figures are those of the older kernels",
      lib, tmp[0].core, isas[tmp[0].have], k == 1 ? "" : "s", f->where.ranks,
      isas[tmp[0].could]);
  gcb_finding_suggest(f,
                      "check OPENBLAS_CORETYPE in these ranks' environment "
                      "(unset it or set %s), or use an OpenBLAS that knows "
                      "this CPU, and rerun",
                      best_core[tmp[0].could]);
  return GCB_OK;
}

/* Ranks tmp[0..k) run a (core, threads) apart from most ranks'. */
static enum gcb_status apart_finding(const struct gcb__rule_ctx *cx,
                                     const struct blas_ranks *b,
                                     const char *lib, enum gcb_severity sev,
                                     const struct rank_blas *tmp, size_t k) {
  const struct rank_blas *most = &b->r[b->majority];
  struct gcb_finding *f = node_finding(cx, sev, tmp, k);
  if (f == NULL)
    return GCB_ENOMEM;
  /* slower or faster than most ranks, where the ISAs and threads say */
  int by = tmp[0].have < 0 || most->have < 0 ? 0
           : tmp[0].have != most->have       ? tmp[0].have - most->have
                                       : (int)(tmp[0].threads - most->threads);
  const char *them = k == 1 ? "it" : "them";
  char effect[128];
  if (by < 0)
    snprintf(effect, sizeof effect,
             "a slower GEMM on %s, which a synchronous job waits for", them);
  else if (by > 0)
    snprintf(effect, sizeof effect,
             "the others' GEMM is the slower, and a synchronous job runs at "
             "theirs");
  else
    snprintf(effect, sizeof effect,
             "GEMM figures on %s that are not the others'", them);
  gcb_finding_explain(
      f,
      "rank%s %s run%s %s's %s kernels with %lld thread%s, where %zu of the "
      "run's %zu ranks run%s %s with %lld: %s",
      k == 1 ? "" : "s", f->where.ranks, k == 1 ? "s" : "", lib, tmp[0].core,
      tmp[0].threads, tmp[0].threads == 1 ? "" : "s", b->count[b->majority],
      b->n, b->count[b->majority] == 1 ? "s" : "", most->core, most->threads,
      effect);
  gcb_finding_suggest(f, "launch every rank with the same OPENBLAS_CORETYPE "
                         "and OPENBLAS_NUM_THREADS/OMP_NUM_THREADS (or none), "
                         "and rerun");
  return GCB_OK;
}

/* The findings of one node's ranks r[0..n): a finding per group of ranks
 * below their CPU alike (unless one finding speaks for the run), per group
 * with too few threads alike, then per group apart from the majority. */
static enum gcb_status node_findings(const struct gcb__rule_ctx *cx,
                                     const struct blas_ranks *b,
                                     const struct rank_blas *r, size_t n,
                                     enum gcb_severity sev,
                                     struct rank_blas *tmp) {
  const char *lib = blas_lib(cx);
  const bool judged[] = {[BELOW] = !b->uniform && !b->all_below_alike,
                         [FEW] = !b->all_few_alike,
                         [APART] = b->ncombos > 1};
  enum gcb_status st = GCB_OK;
  for (enum group g = BELOW; g <= APART; g++)
    for (size_t i = 0; st == GCB_OK && judged[g] && i < n; i++) {
      size_t k = group_of(r, n, i, g, b->majority, tmp);
      if (k > 0)
        st = g == BELOW ? below_finding(cx, lib, sev, tmp, k)
             : g == FEW ? few_finding(cx, lib, sev, tmp, k, false)
                        : apart_finding(cx, b, lib, sev, tmp, k);
    }
  return st;
}

/* Per-rank findings, one node at a time. */
static enum gcb_status rank_findings(const struct gcb__rule_ctx *cx,
                                     const struct blas_ranks *b) {
  enum gcb_severity sev = blas_severity(cx);
  struct rank_blas *tmp = calloc(b->n, sizeof *tmp);
  enum gcb_status st = tmp == NULL ? GCB_ENOMEM : GCB_OK;
  for (size_t i = 0, j; st == GCB_OK && i < b->n; i = j) {
    for (j = i; j < b->n && b->r[j].node == b->r[i].node; j++)
      ;
    st = node_findings(cx, b, &b->r[i], j - i, sev, tmp);
  }
  free(tmp);
  return st;
}

/* ---- the run's BLAS (software.blas_run, rank 0's) ------------------------ */

static enum gcb_status header_finding(const struct gcb__rule_ctx *cx,
                                      bool every_rank) {
  const struct gcb_model *m = cx->doc->model;
  const struct gcb_mvalue *blas = blas_run(m);
  if (blas->type != GCB_MV_OBJECT)
    return GCB_OK;
  const char *core = gcb_mvalue_str(blas, "core");
  const char *lib = blas_lib(cx);
  const char *forced = gcb_mvalue_str(&m->run.environment, "OPENBLAS_CORETYPE");
  int have = core_isa(core), could = isa_index(gcb_mvalue_str(blas, "cpu_isa"));
  bool below = have >= 0 && could >= 0 && have < could;
  if (!below && forced[0] == '\0')
    return GCB_OK;
  struct gcb_finding *f = gcb__rule_push(
      cx, below && has_blas_figures(m) ? GCB_SEV_WARN : GCB_SEV_INFO);
  if (f == NULL)
    return GCB_ENOMEM;
  gcb_finding_at_model_rank(f, cx->index, m, 0); /* the header: rank 0's */
  if (below) {
    below_cpu(f, lib, core, have, could, forced);
    if (every_rank) /* the ranks[] entries agree: the whole run's */
      snprintf(f->where.ranks, sizeof f->where.ranks, "all");
    return GCB_OK;
  }
  gcb_finding_explain(f,
                      "%s's kernels are chosen by OPENBLAS_CORETYPE=%s, not "
                      "by the CPU: it runs %s",
                      lib, forced, core[0] ? core : "an unknown core");
  gcb_finding_suggest(f, "unset OPENBLAS_CORETYPE unless a comparison needs "
                         "this kernel");
  return GCB_OK;
}

enum gcb_status gcb__rule_blas_kernel(const struct gcb__rule_ctx *cx) {
  struct blas_ranks b;
  if (blas_read(cx->doc->model, &b) != GCB_OK)
    return gcb_err_set(cx->err, GCB_ENOMEM, "blas-kernel: out of memory");
  enum gcb_status st = GCB_OK;
  if (b.n == 0 || b.uniform || b.all_below_alike) /* one finding: the run's */
    st = header_finding(cx, b.n > 1 && b.all_below_alike);
  if (st == GCB_OK && b.n > 0 && b.all_few_alike) /* every rank alike */
    st = few_finding(cx, blas_lib(cx), blas_severity(cx), b.r, 1, true);
  if (st == GCB_OK && b.n > 0)
    st = rank_findings(cx, &b);
  free(b.r);
  free(b.count);
  return st == GCB_ENOMEM
             ? gcb_err_set(cx->err, GCB_ENOMEM, "blas-kernel: out of memory")
             : st;
}
