/*
 * `link-bandwidth`: host-to-device and device-to-host copies (bench
 * "pcie", params.direction "h2d" / "d2h") below what the GPU's host link
 * should carry (the topology's host_link.expected_gbps, or the rate at
 * NVML's maximum generation and width where that is faster: the topology
 * reads the link at rest), or, where the document has neither, below the
 * other GPUs' median. Copies that are
 * slower by design (pageable or remote host memory, both directions at
 * once, the small sizes of a sweep) are not judged. What the topology
 * itself shows about a link is rules_degraded.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pcie.h"
#include "reports/analysis/analyze_rules.h"

/* ---- which pcie cases are judged ---------------------------------------- */

/* Params that make a copy slower by design, so the link rate does not
 * apply: pageable memory, host memory on a remote NUMA node, traffic in
 * the other direction at the same time (nvbandwidth's bidirectional
 * host tests). gcbench's own "bidir" direction is not judged either. */
static bool by_design_slower(const struct gcb_model_case *c) {
  return strcmp(gcb_model_param_str(c, "memory"), "pageable") == 0 ||
         strcmp(gcb_model_param_str(c, "numa"), "remote") == 0 ||
         strcmp(gcb_model_param_str(c, "traffic"), "bidir") == 0;
}

/* Only the largest size of a sweep is judged: small copies are latency
 * bound and never reach the link rate. */
static bool largest_of_sweep(const struct gcb_model *m,
                             const struct gcb_model_case *c) {
  static const char *const skip[] = {"size", "bytes", "count", NULL};
  char key[512], other[512];
  double size = gcb_analyze_case_size(c);
  if (isnan(size))
    return true;
  gcb_model_case_key_except(c, skip, key, sizeof key);
  for (size_t i = 0; i < m->ncases; i++) {
    const struct gcb_model_case *o = &m->cases[i];
    if (o == c || !(gcb_analyze_case_size(o) > size))
      continue;
    gcb_model_case_key_except(o, skip, other, sizeof other);
    if (strcmp(key, other) == 0)
      return false;
  }
  return true;
}

const char *gcb__case_pcie_direction(const struct gcb_model *m,
                                     const struct gcb_model_case *c) {
  const char *dir = gcb_model_param_str(c, "direction");
  if (c->kind != GCB_BENCH_PCIE ||
      (strcmp(dir, "h2d") != 0 && strcmp(dir, "d2h") != 0) ||
      by_design_slower(c) || !largest_of_sweep(m, c))
    return NULL;
  return dir;
}

/* ---- link-bandwidth ------------------------------------------------------ */

/* The link rate at the generation and width the GPU supports in its slot,
 * from NVML's reading in the node's GPU health (pcie_gen_max is
 * nvmlDeviceGetMaxPcieLinkGeneration: the most "possible with this device
 * and system", so a gen4 slot caps it; pcie_width_max likewise;
 * a missing width is taken as the current one, a missing current width as
 * x16); NAN without a maximum generation. */
static long long nvml_max_width(const struct gcb_model_health *health) {
  if (health->pcie_width_max > 0)
    return health->pcie_width_max;
  return health->pcie_width >= 0 ? health->pcie_width : 16;
}

static double nvml_max_gbps(const struct gcb_model_health *health) {
  long long mgen = health != NULL ? health->pcie_gen_max : 0;
  long long width = health != NULL ? nvml_max_width(health) : 0;
  if (mgen < 1 || mgen > GCB_PCIE_GEN_MAX || width <= 0)
    return NAN;
  return gcb_pcie_link_gbps((int)mgen, (int)width);
}

/* The expected host link of the rank's GPU (NAN when unknown) and its
 * basis. The topology's figure is the link as it was read at rest, when
 * GPUs downtrain (hwloc and NVML report the current speed): a link that
 * trained at gen4 on a gen5 GPU would be judged against gen4 and pass at
 * 25 GB/s. So when NVML says the GPU supports a faster link, that faster
 * rate is the expectation: a copy under load must reach it, and only a
 * copy that does clears a slow reading at rest as idle downtraining. */
static double rank_expected(const struct gcb_model *model, long long rank,
                            const char **basis, char *buf, size_t size) {
  const struct gcb_model_node *node;
  long long gpu = gcb_model_rank_gpu(model, rank, &node);
  const struct gcb_model_gpu *g =
      node != NULL ? gcb_model_gpu(model, node->index, gpu) : NULL;
  struct gcb_place p;
  gcb_model_place(model, rank, &p);
  const struct gcb_model_health *health =
      gcb_model_health_by_busid(model, p.node, p.bus_id);
  double e = g != NULL ? g->host_gbps : NAN, m = nvml_max_gbps(health);
  *basis = g != NULL ? g->host_basis : "";
  /* a route whose slowest link is not the GPU's own (a switch uplink, a
   * root port) stays the topology's: only the GPU's end is scaled */
  double own = g != NULL && g->nhops > 0 ? g->hops[0].gbps : NAN;
  if (!isnan(m) && (isnan(e) || (m > e && !(own > 0 && e < own)))) {
    snprintf(buf, size, "PCIe gen%lld x%lld, the maximum NVML reports",
             health->pcie_gen_max, nvml_max_width(health));
    *basis = buf;
    return m;
  }
  return e;
}

/* rank_expected per rank number, each looked up once for all the cases
 * that ask (h2d and d2h ask for every rank). */
struct cached {
  double gbps;
  const char *basis;
  char text[96]; /* a basis written here (NVML's maximum) */
  bool seen;
};

struct expected {
  const struct gcb_model *m;
  size_t n;          /* rank numbers below n are kept */
  struct cached *at; /* per rank number */
  char spare[96];    /* for ranks beyond n */
};

static double expected_of(struct expected *x, long long rank,
                          const char **basis) {
  if (rank < 0 || (size_t)rank >= x->n)
    return rank_expected(x->m, rank, basis, x->spare, sizeof x->spare);
  struct cached *e = &x->at[rank];
  if (!e->seen) {
    e->gbps = rank_expected(x->m, rank, &e->basis, e->text, sizeof e->text);
    e->seen = true;
  }
  *basis = e->basis;
  return e->gbps;
}

static enum gcb_status link_finding(const struct gcb__rule_ctx *cx,
                                    const struct gcb_model_case *c,
                                    long long rank, double x, double expected,
                                    const char *basis, bool peers) {
  double ratio = x / expected;
  bool fail = peers ? (1 - ratio) * 100 > cx->t->slow_rank_fail_pct
                    : ratio * 100 < cx->t->link_fail_pct;
  struct gcb_finding *f =
      gcb__rule_push_case(cx, fail ? GCB_SEV_FAIL : GCB_SEV_WARN, c, -1);
  if (f == NULL)
    return GCB_ENOMEM;
  const char *dir = gcb_model_param_str(c, "direction");
  gcb_finding_at_model_rank(f, cx->index, cx->doc->model, rank);
  snprintf(f->where.link, sizeof f->where.link, "%s<->host",
           f->where.bus_id[0] ? f->where.bus_id : "GPU");
  gcb_finding_figures(f, x, expected, c->unit);
  char xs[32], es[32];
  gcb_view_fmt(x, xs, sizeof xs);
  gcb_view_fmt(expected, es, sizeof es);
  if (peers)
    gcb_finding_explain(f,
                        "%s reaches %s GB/s, %.0f%% of the other GPUs' "
                        "median %s GB/s (no topology to say what the link "
                        "should carry)",
                        dir, xs, ratio * 100, es);
  else
    gcb_finding_explain(f,
                        "%s reaches %s GB/s, %.0f%% of the %s GB/s the link "
                        "should carry (%s)",
                        dir, xs, ratio * 100, es, basis);
  gcb__rule_suggest(f);
  return GCB_OK;
}

static long long entry_rank(const struct gcb_model_case *c, size_t i) {
  return gcb_model_col_rank(c, i, (long long)i);
}

/* Without expectations: the slow-rank outlier rule among the GPUs. */
static enum gcb_status against_peers(const struct gcb__rule_ctx *cx,
                                     const struct gcb_model_case *c,
                                     const double *x, size_t n) {
  bool *flags = malloc(n * sizeof *flags + 1);
  double median;
  enum gcb_status st = GCB_OK;
  if (flags == NULL)
    return gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
  gcb_analyze_slow(x, n, cx->t, flags, &median);
  for (size_t i = 0; i < n && st == GCB_OK; i++)
    if (flags[i])
      st = link_finding(cx, c, entry_rank(c, i), x[i], median, "", true);
  free(flags);
  return st;
}

static enum gcb_status link_case(const struct gcb__rule_ctx *cx,
                                 const struct gcb_model_case *c,
                                 struct expected *ex) {
  size_t n = c->ranks.n, known = 0;
  if (n == 0 || gcb__case_pcie_direction(cx->doc->model, c) == NULL)
    return GCB_OK;
  double *x = malloc(n * sizeof *x + 1);
  enum gcb_status st = GCB_OK;
  if (x == NULL)
    return gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
  for (size_t i = 0; i < n && st == GCB_OK; i++) {
    const char *basis;
    x[i] = gcb_model_col(c, GCB_RC_FIG_MEDIAN, i);
    double e = expected_of(ex, entry_rank(c, i), &basis);
    known += !isnan(e);
    if (!isnan(e) && x[i] < e * cx->t->link_pct / 100)
      st = link_finding(cx, c, entry_rank(c, i), x[i], e, basis, false);
  }
  if (st == GCB_OK && known == 0)
    st = against_peers(cx, c, x, n);
  free(x);
  return st;
}

enum gcb_status gcb__rule_link_bandwidth(const struct gcb__rule_ctx *cx) {
  const struct gcb_model *m = cx->doc->model;
  size_t n = m->nranks;
  struct expected ex = {.m = m, .n = n, .at = calloc(n + 1, sizeof *ex.at)};
  enum gcb_status st = GCB_OK;
  if (ex.at == NULL)
    st = gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
  for (size_t i = 0; i < m->ncases && st == GCB_OK; i++)
    st = link_case(cx, &m->cases[i], &ex);
  free(ex.at);
  return st;
}
