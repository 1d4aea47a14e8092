/*
 * `degraded-link`: links the topology shows running below what they
 * should, per GPU (and per NIC that carries GPU traffic):
 *  - a link-mismatch fact: the two ends of a link report different speeds;
 *  - NVML's reading in the node's GPU health (nodes[].gpus[]: pcie_gen,
 *    pcie_gen_max, pcie_width, pcie_width_max): current generation or
 *    width below the maximum.
 * Both are read at idle, when GPUs downtrain, so the finding is a warning
 * with the advice to confirm under load. When a slow copy was measured on
 * the same GPU (a link-bandwidth finding), that is the confirmation: the
 * evidence is appended to that finding instead of becoming a second one.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/busid.h"
#include "common/pcie.h"
#include "reports/analysis/analyze_rules.h"

/* GB/s per lane and direction by PCIe generation; NaN when unknown. */
static double lane_gbps(long long gen) {
  return gen >= 1 && gen <= GCB_PCIE_GEN_MAX ? gcb_pcie_lane_gbps((int)gen)
                                             : NAN;
}

/* What one GPU's evidence says, and how fast its link is against how fast
 * it should be. */
struct evidence {
  char text[384];
  double measured, expected;
};

/* NVML's current link below its maximum, from a GPU health entry. */
static bool nvml_evidence(const struct gcb_model_health *health,
                          struct evidence *ev) {
  long long gen = health != NULL ? health->pcie_gen : 0;
  long long width = health != NULL ? health->pcie_width : 0;
  long long mgen = health != NULL ? health->pcie_gen_max : 0;
  long long mwidth = health != NULL ? health->pcie_width_max : 0;
  if (gen <= 0 || width <= 0 || mgen <= 0 || mwidth <= 0 ||
      (gen >= mgen && width >= mwidth))
    return false;
  ev->measured = lane_gbps(gen) * (double)width;
  ev->expected = lane_gbps(mgen) * (double)mwidth;
  snprintf(ev->text, sizeof ev->text,
           "NVML reports the link at gen%lld x%lld, below its maximum gen%lld "
           "x%lld",
           gen, width, mgen, mwidth);
  return true;
}

/* A link-mismatch fact about GPU gpu (or NIC nic when gpu < 0). */
static const struct gcb_model_fact *
mismatch_fact(const struct gcb_model_node *node, long long gpu, long long nic) {
  for (size_t i = 0; i < node->nfacts; i++) {
    const struct gcb_model_fact *f = &node->facts[i];
    if (strcmp(f->kind, "link-mismatch") == 0 && f->gpu == gpu && f->nic == nic)
      return f;
  }
  return NULL;
}

/* The evidence of a link-mismatch fact about a device whose PCIe path is
 * hops[0..nhops): its own end against the port above it. */
static bool fact_evidence(const struct gcb_model_node *node,
                          const struct gcb_model_hop *hops, size_t nhops,
                          long long gpu, long long nic, struct evidence *ev) {
  const struct gcb_model_fact *f = mismatch_fact(node, gpu, nic);
  if (f == NULL)
    return false;
  ev->measured = nhops > 0 ? hops[0].gbps : NAN;
  ev->expected = nhops > 1 ? hops[1].gbps : NAN;
  if (ev->expected < ev->measured) { /* the device end is the faster one */
    double t = ev->measured;
    ev->measured = ev->expected;
    ev->expected = t;
  }
  gcb_view_copy(ev->text, sizeof ev->text, f->text);
  return true;
}

/* An earlier link-bandwidth finding on the same GPU of this document. */
static struct gcb_finding *measured_slow(const struct gcb__rule_ctx *cx,
                                         long long node, long long gpu) {
  for (size_t i = 0; i < cx->out->n; i++) {
    struct gcb_finding *f = &cx->out->items[i];
    if (f->where.doc == cx->index && f->where.node == node &&
        f->where.gpu == gpu && f->kind == GCB_KIND(LINK_BANDWIDTH))
      return f;
  }
  return NULL;
}

/* Reports a link's evidence: GPU gpu's host link (nic NULL; appended to a
 * slow copy measured on that GPU when there is one), or NIC nic's. */
static enum gcb_status report(const struct gcb__rule_ctx *cx,
                              const struct gcb_model_node *node, long long gpu,
                              long long rank, const char *busid,
                              const char *nic, const struct evidence *ev) {
  long long index = node->index;
  struct gcb_finding *slow = nic == NULL ? measured_slow(cx, index, gpu) : NULL;
  if (slow != NULL) {
    char was[sizeof slow->explanation];
    memcpy(was, slow->explanation, sizeof was);
    gcb_finding_explain(slow, "%s; the topology agrees: %s", was, ev->text);
    return GCB_OK;
  }
  struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_WARN);
  if (f == NULL)
    return GCB_ENOMEM;
  if (rank >= 0)
    gcb_finding_at_model_rank(f, cx->index, cx->doc->model, rank);
  f->where.node = index;
  gcb_analyze_copy(f->where.hostname, sizeof f->where.hostname, node->hostname);
  f->where.gpu = gpu;
  if (nic == NULL) {
    gcb_view_copy(f->where.bus_id, sizeof f->where.bus_id, busid);
    snprintf(f->where.link, sizeof f->where.link, "%s<->host", busid);
  } else
    snprintf(f->where.link, sizeof f->where.link, "%s %s", nic, busid);
  gcb_finding_figures(f, ev->measured, ev->expected, "GB/s");
  gcb_finding_explain(f, "%s", ev->text);
  gcb__rule_suggest(f);
  return GCB_OK;
}

static enum gcb_status topo_gpu(const struct gcb__rule_ctx *cx,
                                const struct gcb_model_node *node,
                                const struct gcb_model_gpu *g) {
  const struct gcb_model *m = cx->doc->model;
  const struct gcb_model_health *health =
      gcb_model_health_by_busid(m, node->index, g->busid);
  struct evidence ev = {.measured = NAN, .expected = NAN};
  if (!nvml_evidence(health, &ev) &&
      !fact_evidence(node, g->hops, g->nhops, g->index, -1, &ev))
    return GCB_OK;
  /* the rank using it only for a GPU with evidence: a lookup per rank of
   * the node, for each of 16,384 GPUs, was a fifth of the analysis */
  long long rank = gcb_model_gpu_rank(m, node->index, g->index);
  return report(cx, node, g->index, rank, g->busid, NULL, &ev);
}

static enum gcb_status topo_nic(const struct gcb__rule_ctx *cx,
                                const struct gcb_model_node *node,
                                const struct gcb_model_nic *nic) {
  struct evidence ev = {.measured = NAN, .expected = NAN};
  if (!fact_evidence(node, nic->hops, nic->nhops, -1, nic->index, &ev))
    return GCB_OK;
  return report(cx, node, -1, -1, nic->busid, nic->name, &ev);
}

/* The rank of the node whose device has that bus id, or -1. */
static long long rank_on_bus(const struct gcb_model *m,
                             const struct gcb_model_node *node,
                             const char *busid) {
  char want[32], have[32];
  if (!gcb_busid_canon(busid, want, sizeof want))
    return -1;
  for (size_t i = 0; i < node->nranks; i++) {
    const struct gcb_model_rank *r = gcb_model_rank(m, node->ranks[i]);
    if (r != NULL && gcb_busid_canon(r->device_bus_id, have, sizeof have) &&
        strcmp(want, have) == 0)
      return node->ranks[i];
  }
  return -1;
}

/* GPUs of a node without topology: NVML's reading is all there is. */
static enum gcb_status health_only(const struct gcb__rule_ctx *cx,
                                   const struct gcb_model_node *node) {
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < node->nhealth && st == GCB_OK; i++) {
    const struct gcb_model_health *h = &node->health[i];
    struct evidence ev;
    if (nvml_evidence(h, &ev))
      st = report(cx, node, h->ordinal,
                  rank_on_bus(cx->doc->model, node, h->bus_id), h->bus_id, NULL,
                  &ev);
  }
  return st;
}

enum gcb_status gcb__rule_degraded_link(const struct gcb__rule_ctx *cx) {
  const struct gcb_model *m = cx->doc->model;
  for (size_t i = 0; i < m->nnodes; i++) {
    const struct gcb_model_node *node = &m->nodes[i];
    enum gcb_status st = !node->has_topology ? health_only(cx, node) : GCB_OK;
    for (size_t k = 0; k < node->ngpus && st == GCB_OK; k++)
      st = topo_gpu(cx, node, &node->gpus[k]);
    for (size_t k = 0; k < node->nnics && st == GCB_OK; k++)
      st = topo_nic(cx, node, &node->nics[k]);
    if (st != GCB_OK)
      return st;
  }
  return GCB_OK;
}
