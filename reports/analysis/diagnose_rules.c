/*
 * The grouping rules of the diagnosis: one table row per finding kind (and,
 * for acceptance checks, per metric) naming the function that places the
 * finding at the component it implicates. First-pass rows place findings
 * about one component (a slow GPU, a slow link, a late rank); second-pass
 * rows ("attach") place consequences -- load imbalance, evenness checks,
 * a collective's bandwidth -- at a component the first pass found, since
 * one slow GPU makes every synchronous case uneven. Info findings are not
 * root causes (skipped cases stay per-case findings). docs/REPORTS.md
 * ("Root causes") lists the rows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"
#include "reports/analysis/diagnose_int.h"
#include "reports/document/p2p_view.h"
#include "reports/document/ranks.h"
#include "reports/document/topo_view.h"

/* Places finding i: the component (filled by the function) and family. */
typedef bool locate_fn(const struct gcb__dx *x, size_t i,
                       struct gcb_component *c, enum gcb_family *fam);

/* ---- helpers ------------------------------------------------------------- */

const json_t *gcb__dx_case(const struct gcb__dx *x,
                           const struct gcb_finding *f) {
  if (f->case_json != NULL)
    return f->case_json;
  if (f->where.doc < 0 || (size_t)f->where.doc >= x->ndocs ||
      f->where.subject[0] == '\0')
    return NULL;
  const json_t *c;
  size_t i;
  char title[sizeof f->where.subject];
  json_array_foreach(json_object_get(x->docs[f->where.doc].root, "cases"), i,
                     c) {
    gcb_view_case_title(c, title, sizeof title);
    if (strcmp(title, f->where.subject) == 0)
      return c;
  }
  return NULL;
}

enum gcb_family gcb_case_family(const json_t *c) {
  static const struct {
    const char *bench;
    enum gcb_family fam;
  } by_bench[] = {
      {"gemm", GCB_FAM_GEMM},    {"burn", GCB_FAM_GEMM}, /* a sustained GEMM */
      {"membw", GCB_FAM_DEVMEM}, {"p2p", GCB_FAM_PEERS},
      {"coll", GCB_FAM_COLL},    {"pattern", GCB_FAM_COLL}};
  const char *bench = gcb_view_str(c, "bench");
  if (strcmp(bench, "pcie") == 0)
    return strcmp(gcb_view_param_str(c, "direction"), "d2h") == 0 ? GCB_FAM_D2H
                                                                  : GCB_FAM_H2D;
  for (size_t i = 0; i < sizeof by_bench / sizeof *by_bench; i++)
    if (strcmp(bench, by_bench[i].bench) == 0)
      return by_bench[i].fam;
  return GCB_FAM_RUN;
}

static const struct gcb_finding *fnd(const struct gcb__dx *x, size_t i) {
  return &x->fs->items[i];
}

static void blank(struct gcb_component *c, enum gcb_comp_kind k) {
  memset(c, 0, sizeof *c);
  c->kind = k;
  c->node = c->rank = c->gpu = -1;
}

static void set_host(const struct gcb__dx *x, struct gcb_component *c) {
  if (c->node >= 0 && (size_t)c->node < x->out->nmachines)
    gcb_view_copy(c->hostname, sizeof c->hostname,
                  x->out->machines[c->node].hostname);
}

/* The GPU of rank `rank` of document doc. */
static void gpu_of_rank(const struct gcb__dx *x, int doc, long long rank,
                        struct gcb_component *c) {
  struct gcb_place p;
  blank(c, GCB_COMP_GPU);
  gcb_view_place(x->docs[doc].root, rank, &p);
  c->node = gcb__dx_machine(x, doc, p.node);
  c->gpu = p.gpu;
  gcb_busid_canon(p.bus_id, c->bus_id, sizeof c->bus_id);
  set_host(x, c);
  snprintf(c->name, sizeof c->name, "GPU %lld %s", c->gpu, c->bus_id);
}

static void to_host_link(struct gcb_component *c) {
  c->kind = GCB_COMP_LINK;
  snprintf(c->link, sizeof c->link, "%s<->host",
           c->bus_id[0] ? c->bus_id : "GPU");
  snprintf(c->name, sizeof c->name, "GPU %lld <-> host", c->gpu);
}

static void rank_comp(const struct gcb__dx *x, int doc, long long rank,
                      struct gcb_component *c) {
  gpu_of_rank(x, doc, rank, c);
  c->kind = GCB_COMP_RANK;
  c->rank = rank;
  if (c->gpu >= 0)
    snprintf(c->name, sizeof c->name, "rank %lld (GPU %lld)", rank, c->gpu);
  else
    snprintf(c->name, sizeof c->name, "rank %lld", rank);
}

/* The pair of a p2p case as a link, "src->dst" by bus id ("src<->dst"
 * for a figure of both directions, gcb__p2p_arrow): node `node`'s
 * measurement, or with node -1 the lowest one. */
static bool pair_comp(const struct gcb__dx *x, int doc, const json_t *c,
                      long long node, struct gcb_component *out) {
  struct gcb__p2p_iter it;
  struct gcb__p2p m, e;
  bool found = false;
  size_t nseen = 0;
  bool *seen = c != NULL ? gcb__p2p_scratch(x->docs[doc].root, &nseen) : NULL;
  if (seen == NULL || !gcb__p2p_begin(&it, x->docs[doc].root, c, seen, nseen)) {
    free(seen);
    return false;
  }
  while (gcb__p2p_next(&it, &e))
    if (node >= 0 ? e.node == node : !found || e.value < m.value) {
      m = e;
      found = true;
    }
  free(seen);
  if (!found)
    return false;
  char a[32], b[32], ca[32], cb[32];
  gcb__p2p_busid(&m, c, false, a, sizeof a);
  gcb__p2p_busid(&m, c, true, b, sizeof b);
  blank(out, GCB_COMP_LINK);
  out->node = gcb__dx_machine(x, doc, m.node);
  out->gpu = m.src;
  if (!gcb_busid_canon(a, ca, sizeof ca)) /* "GPU2": no bus id known */
    gcb_view_copy(ca, sizeof ca, a);
  if (!gcb_busid_canon(b, cb, sizeof cb))
    gcb_view_copy(cb, sizeof cb, b);
  gcb_view_copy(out->bus_id, sizeof out->bus_id, ca);
  const char *arrow = gcb__p2p_arrow(c);
  snprintf(out->link, sizeof out->link, "%s%s%s", ca, arrow, cb);
  snprintf(out->name, sizeof out->name, "GPU %lld %s GPU %lld", m.src, arrow,
           m.dst);
  set_host(x, out);
  return true;
}

/* ---- first pass -----------------------------------------------------------
 */

static bool at_run(const struct gcb__dx *x, size_t i, struct gcb_component *c,
                   enum gcb_family *fam) {
  const json_t *cs = gcb__dx_case(x, fnd(x, i));
  blank(c, GCB_COMP_RUN);
  snprintf(c->name, sizeof c->name, "run");
  *fam = cs != NULL ? gcb_case_family(cs) : GCB_FAM_RUN;
  return true;
}

/* The comparison with a baseline: the run against its past, one cause
 * (regressions, cases gone, differences that make it less comparable). */
static bool at_baseline(const struct gcb__dx *x, size_t i,
                        struct gcb_component *c, enum gcb_family *fam) {
  at_run(x, i, c, fam);
  snprintf(c->link, sizeof c->link, "baseline");
  snprintf(c->name, sizeof c->name, "run vs baseline");
  return true;
}

/* A finding about a rank's device (validation, slow rank). */
static bool at_gpu(const struct gcb__dx *x, size_t i, struct gcb_component *c,
                   enum gcb_family *fam) {
  const struct gcb_finding *f = fnd(x, i);
  if (f->where.rank < 0 || f->where.doc < 0)
    return false;
  gpu_of_rank(x, f->where.doc, f->where.rank, c);
  if (c->gpu < 0 && c->bus_id[0] == '\0')
    rank_comp(x, f->where.doc, f->where.rank, c); /* host backend: a rank */
  const json_t *cs = gcb__dx_case(x, f);
  *fam = cs != NULL ? gcb_case_family(cs) : GCB_FAM_GEMM;
  return true;
}

/* A copy between a GPU and the host, or a link the topology shows slow. */
static bool at_link(const struct gcb__dx *x, size_t i, struct gcb_component *c,
                    enum gcb_family *fam) {
  const struct gcb_finding *f = fnd(x, i);
  const char *host = strstr(f->where.link, "<->host");
  blank(c, GCB_COMP_LINK);
  c->node = gcb__dx_machine(x, f->where.doc, f->where.node);
  set_host(x, c);
  if (host == NULL) { /* a NIC: "mlx5_0 0000:17:00.0" */
    gcb_view_copy(c->link, sizeof c->link, f->where.link);
    snprintf(c->name, sizeof c->name, "NIC %s", f->where.link);
    *fam = GCB_FAM_HEALTH;
    return f->where.link[0] != '\0';
  }
  c->gpu = f->where.gpu;
  gcb_busid_canon(f->where.bus_id, c->bus_id, sizeof c->bus_id);
  to_host_link(c);
  const json_t *cs = gcb__dx_case(x, f);
  *fam = strcmp(f->kind, "degraded-link") == 0 ? GCB_FAM_HEALTH
         : cs != NULL                          ? gcb_case_family(cs)
                                               : GCB_FAM_H2D;
  return true;
}

static bool at_pair(const struct gcb__dx *x, size_t i, struct gcb_component *c,
                    enum gcb_family *fam) {
  const struct gcb_finding *f = fnd(x, i);
  *fam = GCB_FAM_PEERS;
  return f->where.doc >= 0 &&
         pair_comp(x, f->where.doc, gcb__dx_case(x, f), f->where.node, c);
}

/* The network map (rules_netmap.c): a host's own link ("HOST link") or
 * one path between two hosts ("A -> B"), named as the finding names it. */
static bool at_network(const struct gcb__dx *x, size_t i,
                       struct gcb_component *c, enum gcb_family *fam) {
  const struct gcb_finding *f = fnd(x, i);
  blank(c, GCB_COMP_LINK);
  c->node = gcb__dx_machine(x, f->where.doc, f->where.node);
  set_host(x, c);
  gcb_view_copy(c->link, sizeof c->link, f->where.link);
  gcb_view_copy(c->name, sizeof c->name, f->where.link);
  *fam = GCB_FAM_PEERS;
  return f->where.doc >= 0 && f->where.link[0] != '\0';
}

/* Lateness and placement: a rank, or several ranks of one node. */
static bool at_rank(const struct gcb__dx *x, size_t i, struct gcb_component *c,
                    enum gcb_family *fam) {
  const struct gcb_finding *f = fnd(x, i);
  *fam =
      strcmp(f->kind, "late-arrival") == 0 ? GCB_FAM_COLL : GCB_FAM_PLACEMENT;
  if (f->where.doc < 0)
    return false;
  if (f->where.ranks[0] == '\0' && f->where.rank >= 0) {
    rank_comp(x, f->where.doc, f->where.rank, c);
    return true;
  }
  blank(c, GCB_COMP_RANK);
  c->node = gcb__dx_machine(x, f->where.doc, f->where.node);
  set_host(x, c);
  gcb_view_copy(c->ranks, sizeof c->ranks, f->where.ranks);
  if (f->where.ranks[0] == '\0' && f->where.gpu >= 0) { /* an idle GPU */
    c->kind = GCB_COMP_GPU;
    c->gpu = f->where.gpu;
    gcb_busid_canon(f->where.bus_id, c->bus_id, sizeof c->bus_id);
    snprintf(c->name, sizeof c->name, "GPU %lld %s", c->gpu, c->bus_id);
  } else if (f->where.ranks[0] == '\0') {
    c->kind = GCB_COMP_NODE;
    snprintf(c->name, sizeof c->name, "node %s", c->hostname);
  } else
    snprintf(c->name, sizeof c->name, "ranks %s on %s", c->ranks, c->hostname);
  return true;
}

/* The BLAS kernels a node's host GEMM ran (rules_blas.c, from the header
 * of the node's first rank): the node's CPU and its library, not a rank;
 * a component of its own ("BLAS" in link), which takes no consequence:
 * the same library on every rank makes none of them wait for another. */
static bool at_node(const struct gcb__dx *x, size_t i, struct gcb_component *c,
                    enum gcb_family *fam) {
  const struct gcb_finding *f = fnd(x, i);
  *fam = GCB_FAM_GEMM;
  if (f->where.doc < 0)
    return false;
  blank(c, GCB_COMP_NODE);
  c->node = gcb__dx_machine(x, f->where.doc, f->where.node);
  set_host(x, c);
  snprintf(c->link, sizeof c->link, "BLAS");
  snprintf(c->name, sizeof c->name, "node %s BLAS", c->hostname);
  return true;
}

/* A per-rank acceptance check: the rank's GPU, its host link (pcie), its
 * pair (p2p) or the rank itself (collectives). */
static bool at_check_rank(const struct gcb__dx *x, size_t i,
                          struct gcb_component *c, enum gcb_family *fam) {
  const struct gcb_finding *f = fnd(x, i);
  const json_t *cs = gcb__dx_case(x, f);
  if (f->where.rank < 0 || cs == NULL)
    return false;
  *fam = gcb_case_family(cs);
  if (*fam == GCB_FAM_PEERS)
    return pair_comp(x, f->where.doc, cs, f->where.node, c);
  if (*fam == GCB_FAM_COLL || *fam == GCB_FAM_RUN) {
    rank_comp(x, f->where.doc, f->where.rank, c);
    return true;
  }
  gpu_of_rank(x, f->where.doc, f->where.rank, c);
  if (*fam == GCB_FAM_H2D || *fam == GCB_FAM_D2H)
    to_host_link(c);
  return true;
}

/* late_us: the rank the case names as the latest. */
static bool at_late_rank(const struct gcb__dx *x, size_t i,
                         struct gcb_component *c, enum gcb_family *fam) {
  const struct gcb_finding *f = fnd(x, i);
  const json_t *cs = gcb__dx_case(x, f);
  long long r = gcb_view_int(gcb_view_obj(cs, "summary"), "late_rank", -1);
  *fam = GCB_FAM_COLL;
  if (r < 0)
    return false;
  rank_comp(x, f->where.doc, r, c);
  return true;
}

/* wrong values in a case: the first rank that had them. */
static bool at_wrong_rank(const struct gcb__dx *x, size_t i,
                          struct gcb_component *c, enum gcb_family *fam) {
  const struct gcb_finding *f = fnd(x, i);
  const json_t *cs = gcb__dx_case(x, f);
  struct gcb_ranks pr;
  gcb_ranks_of(cs, &pr);
  for (size_t k = 0; k < pr.n; k++)
    if (gcb_ranks_int(&pr, GCB_RC_WRONG, k, 0) > 0) {
      gpu_of_rank(x, f->where.doc,
                  gcb_ranks_int(&pr, GCB_RC_RANK, k, (long long)k), c);
      *fam = gcb_case_family(cs);
      return true;
    }
  return false;
}

/* min/max of a case: the extreme rank's component (its pair for p2p). */
static bool at_extreme(const struct gcb__dx *x, size_t i,
                       struct gcb_component *c, enum gcb_family *fam) {
  const struct gcb_finding *f = fnd(x, i);
  const json_t *cs = gcb__dx_case(x, f);
  if (cs == NULL)
    return false;
  *fam = gcb_case_family(cs);
  if (*fam == GCB_FAM_PEERS)
    return pair_comp(x, f->where.doc, cs, -1, c);
  if (*fam == GCB_FAM_COLL || *fam == GCB_FAM_RUN)
    return false;
  const char *which = strcmp(f->metric, "max") == 0 ? "max_rank" : "min_rank";
  long long r = gcb_view_int(gcb_view_obj(cs, "summary"), which, -1);
  if (r < 0)
    return false;
  gpu_of_rank(x, f->where.doc, r, c);
  if (*fam == GCB_FAM_H2D || *fam == GCB_FAM_D2H)
    to_host_link(c);
  return true;
}

/* Burn-in (rules_burn.c): the rank's GPU (or the rank on the host
 * backend), its throughput as GEMM and its error counters as health. */
static bool at_burn(const struct gcb__dx *x, size_t i, struct gcb_component *c,
                    enum gcb_family *fam) {
  bool ok = at_gpu(x, i, c, fam);
  *fam = strcmp(fnd(x, i)->kind, "burn-counters") == 0 ? GCB_FAM_HEALTH
                                                       : GCB_FAM_GEMM;
  return ok;
}

/* burn-node: every rank of one node fell together: the node. */
static bool at_burn_node(const struct gcb__dx *x, size_t i,
                         struct gcb_component *c, enum gcb_family *fam) {
  const struct gcb_finding *f = fnd(x, i);
  *fam = GCB_FAM_GEMM;
  if (f->where.doc < 0 || f->where.node < 0)
    return false;
  blank(c, GCB_COMP_NODE);
  c->node = gcb__dx_machine(x, f->where.doc, f->where.node);
  set_host(x, c);
  snprintf(c->name, sizeof c->name, "node %s", c->hostname);
  return true;
}

/* ---- second pass: consequences ------------------------------------------- */

/* The slowest rank of the finding's case (the rank whose time is longest:
 * the lowest figure), at a component the first pass found. */
static bool at_slowest(const struct gcb__dx *x, size_t i,
                       struct gcb_component *c, enum gcb_family *fam) {
  const struct gcb_finding *f = fnd(x, i);
  const json_t *cs = gcb__dx_case(x, f);
  long long r = f->where.rank;
  if (r < 0)
    r = gcb_view_int(gcb_view_obj(cs, "summary"), "min_rank", -1);
  *fam = cs != NULL ? gcb_case_family(cs) : GCB_FAM_RUN;
  if (r < 0 || f->where.doc < 0)
    return false;
  struct gcb_component g;
  gpu_of_rank(x, f->where.doc, r, &g);
  static const enum gcb_comp_kind kinds[] = {GCB_COMP_GPU, GCB_COMP_LINK,
                                             GCB_COMP_RANK};
  for (size_t k = 0; k < 3; k++) {
    long hit = gcb__dx_find(x, kinds[k], g.node, g.bus_id);
    if (hit >= 0) {
      *c = x->comps[hit].c;
      return true;
    }
  }
  for (size_t k = 0; k < x->ncomps; k++) /* a node-wide cause, later */
    if (x->comps[k].c.kind == GCB_COMP_NODE && x->comps[k].c.node == g.node &&
        x->comps[k].c.link[0] == '\0') {
      *c = x->comps[k].c;
      return true;
    }
  if (f->where.rank < 0)
    return false;
  rank_comp(x, f->where.doc, r, c);
  return true;
}

/* The slowest rank regressed: the GPU the first pass found slow (its
 * regression is that slowness seen against the past), else the baseline
 * comparison. */
static bool at_slowest_or_baseline(const struct gcb__dx *x, size_t i,
                                   struct gcb_component *c,
                                   enum gcb_family *fam) {
  struct gcb_component g;
  if (at_slowest(x, i, &g, fam) && g.kind != GCB_COMP_RANK) {
    *c = g;
    return true;
  }
  return at_baseline(x, i, c, fam);
}

/* A collective's bandwidth: a NIC the first pass found slow (the
 * inter-node collectives are its symptom), else the run. */
static bool at_fabric(const struct gcb__dx *x, size_t i,
                      struct gcb_component *c, enum gcb_family *fam) {
  (void)i;
  *fam = GCB_FAM_COLL;
  for (size_t k = 0; k < x->ncomps; k++) {
    const struct gcb_component *n = &x->comps[k].c;
    if (n->kind == GCB_COMP_LINK && strncmp(n->name, "NIC ", 4) == 0) {
      *c = *n;
      return true;
    }
  }
  return false;
}

/* ---- the table ------------------------------------------------------------
 */

static const struct group_rule {
  const char *kind;   /* finding kind; "placement-" matches a prefix */
  const char *metric; /* criterion: the bound's metric; NULL: any */
  bool attach;        /* second pass */
  locate_fn *locate;
} group_rules[] = {
    {"run-status", NULL, false, at_run},
    {"run-error", NULL, false, at_run},
    {"validation", NULL, false, at_gpu},
    {"burn-node", NULL, false, at_burn_node},
    {"burn-", NULL, false, at_burn},
    {"slow-rank", NULL, false, at_gpu},
    {"link-bandwidth", NULL, false, at_link},
    {"degraded-link", NULL, false, at_link},
    {"p2p-bandwidth", NULL, false, at_pair},
    {"network-link", NULL, false, at_network},
    {"network-path", NULL, false, at_network},
    {"late-arrival", NULL, false, at_rank},
    {"placement-", NULL, false, at_rank},
    {"oversubscribed", NULL, false, at_rank},
    {"blas-kernel", NULL, false, at_node},
    {"criterion", "per_rank", false, at_check_rank},
    {"criterion", "time_us", false, at_check_rank},
    {"criterion", "late_us", false, at_late_rank},
    {"criterion", "wrong", false, at_wrong_rank},
    {"criterion", "min", false, at_extreme},
    {"criterion", "max", false, at_extreme},
    {"criterion", "cv_pct", true, at_slowest},
    {"criterion", "imbalance_pct", true, at_slowest},
    {"criterion", "busbw", true, at_fabric},
    {"criterion", "algbw", true, at_fabric},
    {"criterion", NULL, false, at_run},
    {"imbalance", NULL, true, at_slowest},
    {"sweep-trend", NULL, true, at_fabric},
    {"latency-floor", NULL, true, at_fabric},
    {"regression", "slowest", true, at_slowest_or_baseline},
    {"regression", NULL, false, at_baseline},
    {"not-comparable", NULL, false, at_baseline},
    {"missing-case", NULL, false, at_baseline},
};

static bool rule_matches(const struct group_rule *r,
                         const struct gcb_finding *f) {
  size_t n = strlen(r->kind);
  bool kind = r->kind[n - 1] == '-' ? strncmp(f->kind, r->kind, n) == 0
                                    : strcmp(f->kind, r->kind) == 0;
  return kind && (r->metric == NULL ||
                  (f->metric != NULL && strcmp(f->metric, r->metric) == 0));
}

static enum gcb_status place_pass(struct gcb__dx *x, bool attach) {
  for (size_t i = 0; i < x->fs->n; i++) {
    const struct gcb_finding *f = fnd(x, i);
    if (f->severity == GCB_SEV_INFO || x->comp_of[i] >= 0)
      continue;
    size_t r = 0, nr = sizeof group_rules / sizeof *group_rules;
    while (r < nr && !rule_matches(&group_rules[r], f))
      r++;
    if (r == nr || group_rules[r].attach != attach)
      continue; /* an unknown kind: at the run, below */
    struct gcb_component c;
    enum gcb_family fam = GCB_FAM_RUN;
    if (!group_rules[r].locate(x, i, &c, &fam))
      at_run(x, i, &c, &fam);
    long k = gcb__dx_comp(x, &c, f->where.doc);
    if (k < 0)
      return GCB_ENOMEM;
    x->comp_of[i] = k;
    x->fam_of[i] = fam;
  }
  return GCB_OK;
}

enum gcb_status gcb__dx_place(struct gcb__dx *x) {
  enum gcb_status st = place_pass(x, false);
  if (st == GCB_OK)
    st = place_pass(x, true);
  for (size_t i = 0; st == GCB_OK && i < x->fs->n; i++) {
    if (fnd(x, i)->severity == GCB_SEV_INFO || x->comp_of[i] >= 0)
      continue;
    struct gcb_component c;
    enum gcb_family fam;
    at_run(x, i, &c, &fam); /* a kind no row names: the run */
    long k = gcb__dx_comp(x, &c, -1);
    if (k < 0)
      return GCB_ENOMEM;
    x->comp_of[i] = k;
    x->fam_of[i] = fam;
  }
  return st;
}

/* ---- node-wide symptoms ---------------------------------------------------
 */

/* Per component, the families of its warn/fail evidence (a bit each). */
static unsigned *comp_families(const struct gcb__dx *x) {
  unsigned *fams = calloc(x->ncomps + 1, sizeof *fams);
  for (size_t i = 0; fams != NULL && i < x->fs->n; i++)
    if (x->comp_of[i] >= 0 && fnd(x, i)->severity != GCB_SEV_INFO)
      fams[x->comp_of[i]] |= 1u << x->fam_of[i];
  return fams;
}

/* Per machine, its GPUs and host links with evidence of family f. */
static void count_wide(const struct gcb__dx *x, const unsigned *fams,
                       enum gcb_family f, size_t *per_machine) {
  memset(per_machine, 0, x->out->nmachines * sizeof *per_machine);
  for (size_t k = 0; k < x->ncomps; k++) {
    const struct gcb_component *c = &x->comps[k].c;
    if (c->node >= 0 && (size_t)c->node < x->out->nmachines &&
        (c->kind == GCB_COMP_GPU || c->kind == GCB_COMP_LINK) &&
        (fams[k] >> f & 1))
      per_machine[c->node]++;
  }
}

static bool node_wide(const struct gcb__dx *x, long long m, size_t n) {
  return n >= 2 && 2 * n > x->out->machines[m].ngpus;
}

static enum gcb_status collapse(struct gcb__dx *x, long long m,
                                enum gcb_family f) {
  struct gcb_component node;
  blank(&node, GCB_COMP_NODE);
  node.node = m;
  set_host(x, &node);
  snprintf(node.name, sizeof node.name, "node %s", node.hostname);
  long k = gcb__dx_comp(x, &node, -1);
  if (k < 0)
    return GCB_ENOMEM;
  for (size_t i = 0; i < x->fs->n; i++) {
    long c = x->comp_of[i];
    if (c < 0 || c == k || x->fam_of[i] != f || x->comps[c].c.node != m)
      continue;
    enum gcb_comp_kind kind = x->comps[c].c.kind;
    if (kind == GCB_COMP_GPU || kind == GCB_COMP_LINK)
      x->comp_of[i] = k;
  }
  return GCB_OK;
}

enum gcb_status gcb__dx_collapse_nodes(struct gcb__dx *x) {
  static const enum gcb_family fams[] = {
      GCB_FAM_GEMM, GCB_FAM_DEVMEM, GCB_FAM_H2D, GCB_FAM_D2H, GCB_FAM_HEALTH};
  size_t nm = x->out->nmachines;
  if (nm < 2)
    return GCB_OK;
  size_t *n = malloc(nm * sizeof *n + 1);
  enum gcb_status st = GCB_OK;
  for (size_t k = 0; st == GCB_OK && k < sizeof fams / sizeof *fams; k++) {
    /* Afresh for each family: a collapse moves evidence and adds a node. */
    unsigned *has = comp_families(x);
    if (has == NULL || n == NULL) {
      free(has);
      st = gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
      break;
    }
    size_t wide = 0;
    count_wide(x, has, fams[k], n);
    free(has);
    for (size_t m = 0; m < nm; m++)
      wide += node_wide(x, (long long)m, n[m]);
    if (wide == 0 || 2 * wide >= nm)
      continue; /* nobody, or most nodes: not one node's problem */
    for (size_t m = 0; st == GCB_OK && m < nm; m++)
      if (node_wide(x, (long long)m, n[m]))
        st = collapse(x, (long long)m, fams[k]);
  }
  free(n);
  return st;
}
