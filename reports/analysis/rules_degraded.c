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

#include "common/pcie.h"
#include "reports/analysis/analyze_rules.h"
#include "reports/document/topo_view.h"

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
static bool nvml_evidence(const json_t *health, struct evidence *ev) {
  long long gen = gcb_view_int(health, "pcie_gen", 0);
  long long width = gcb_view_int(health, "pcie_width", 0);
  long long mgen = gcb_view_int(health, "pcie_gen_max", 0);
  long long mwidth = gcb_view_int(health, "pcie_width_max", 0);
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
static const json_t *mismatch_fact(const json_t *topo, long long gpu,
                                   long long nic) {
  const json_t *f;
  size_t i;
  json_array_foreach(json_object_get(topo, "facts"), i, f) {
    if (strcmp(gcb_view_str(f, "kind"), "link-mismatch") == 0 &&
        gcb_view_int(f, "gpu", -1) == gpu && gcb_view_int(f, "nic", -1) == nic)
      return f;
  }
  return NULL;
}

static bool fact_evidence(const json_t *topo, const json_t *dev_json,
                          long long gpu, long long nic, struct evidence *ev) {
  const json_t *f = mismatch_fact(topo, gpu, nic);
  if (f == NULL)
    return false;
  const json_t *self = gcb_topo_view_hop(dev_json, 0);
  const json_t *port = gcb_topo_view_hop(dev_json, 1);
  ev->measured = gcb_view_num(self, "gbps");
  ev->expected = gcb_view_num(port, "gbps");
  if (ev->expected < ev->measured) { /* the device end is the faster one */
    double t = ev->measured;
    ev->measured = ev->expected;
    ev->expected = t;
  }
  gcb_view_copy(ev->text, sizeof ev->text, gcb_view_str(f, "text"));
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

static enum gcb_status report_gpu(const struct gcb__rule_ctx *cx,
                                  const json_t *node, long long gpu,
                                  long long rank, const char *busid,
                                  const struct evidence *ev) {
  long long index = gcb_view_int(node, "index", -1);
  struct gcb_finding *slow = measured_slow(cx, index, gpu);
  if (slow != NULL) {
    char text[sizeof slow->explanation];
    snprintf(text, sizeof text, "%s; the topology agrees: %s",
             slow->explanation, ev->text);
    gcb_view_copy(slow->explanation, sizeof slow->explanation, text);
    return GCB_OK;
  }
  struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_WARN);
  if (f == NULL)
    return GCB_ENOMEM;
  if (rank >= 0)
    gcb_finding_at_rank(f, cx->index, cx->doc->root, rank);
  f->where.node = index;
  gcb_view_copy(f->where.hostname, sizeof f->where.hostname,
                gcb_view_str(node, "hostname"));
  f->where.gpu = gpu;
  gcb_view_copy(f->where.bus_id, sizeof f->where.bus_id, busid);
  snprintf(f->where.link, sizeof f->where.link, "%s<->host", busid);
  f->measured = ev->measured;
  f->expected = ev->expected;
  snprintf(f->unit, sizeof f->unit, "GB/s");
  gcb_finding_explain(f, "%s", ev->text);
  gcb__rule_suggest(f);
  return GCB_OK;
}

static enum gcb_status topo_gpu(const struct gcb__rule_ctx *cx,
                                const json_t *node, const json_t *topo,
                                const json_t *g) {
  long long gpu = gcb_view_int(g, "index", -1);
  long long index = gcb_view_int(node, "index", -1);
  const json_t *health =
      gcb_topo_view_health(cx->doc->root, index, gcb_view_str(g, "busid"));
  struct evidence ev = {.measured = NAN, .expected = NAN};
  if (!nvml_evidence(health, &ev) && !fact_evidence(topo, g, gpu, -1, &ev))
    return GCB_OK;
  /* the rank using it only for a GPU with evidence: a lookup per rank of
   * the node, for each of 16,384 GPUs, was a fifth of the analysis */
  long long rank = gcb_topo_view_gpu_rank(cx->doc->root, index, gpu);
  return report_gpu(cx, node, gpu, rank, gcb_view_str(g, "busid"), &ev);
}

static enum gcb_status topo_nic(const struct gcb__rule_ctx *cx,
                                const json_t *node, const json_t *topo,
                                const json_t *nic) {
  struct evidence ev = {.measured = NAN, .expected = NAN};
  if (!fact_evidence(topo, nic, -1, gcb_view_int(nic, "index", -1), &ev))
    return GCB_OK;
  struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_WARN);
  if (f == NULL)
    return GCB_ENOMEM;
  f->where.node = gcb_view_int(node, "index", -1);
  gcb_view_copy(f->where.hostname, sizeof f->where.hostname,
                gcb_view_str(node, "hostname"));
  snprintf(f->where.link, sizeof f->where.link, "%s %s",
           gcb_view_str(nic, "name"), gcb_view_str(nic, "busid"));
  f->measured = ev.measured;
  f->expected = ev.expected;
  snprintf(f->unit, sizeof f->unit, "GB/s");
  gcb_finding_explain(f, "%s", ev.text);
  gcb__rule_suggest(f);
  return GCB_OK;
}

/* The rank of the node whose device has that bus id, or -1. */
static long long rank_on_bus(const json_t *root, const json_t *node,
                             const char *busid) {
  char want[32], have[32];
  const json_t *e;
  size_t i;
  if (!gcb_busid_canon(busid, want, sizeof want))
    return -1;
  json_array_foreach(json_object_get(node, "ranks"), i, e) {
    long long r = (long long)json_integer_value(e);
    const char *b =
        gcb_view_str(gcb_view_obj(gcb_view_rank(root, r), "device"), "bus_id");
    if (gcb_busid_canon(b, have, sizeof have) && strcmp(want, have) == 0)
      return r;
  }
  return -1;
}

/* GPUs of a node without topology: NVML's reading is all there is. */
static enum gcb_status health_only(const struct gcb__rule_ctx *cx,
                                   const json_t *node) {
  const json_t *h;
  size_t i;
  json_array_foreach(json_object_get(node, "gpus"), i, h) {
    struct evidence ev;
    const char *bus = gcb_view_str(h, "bus_id");
    if (!nvml_evidence(h, &ev))
      continue;
    enum gcb_status st =
        report_gpu(cx, node, gcb_view_int(h, "ordinal", -1),
                   rank_on_bus(cx->doc->root, node, bus), bus, &ev);
    if (st != GCB_OK)
      return st;
  }
  return GCB_OK;
}

enum gcb_status gcb__rule_degraded_link(const struct gcb__rule_ctx *cx) {
  const json_t *node, *d;
  size_t i, k;
  json_array_foreach(json_object_get(cx->doc->root, "nodes"), i, node) {
    const json_t *topo = gcb_view_obj(node, "topology");
    enum gcb_status st = topo == NULL ? health_only(cx, node) : GCB_OK;
    json_array_foreach(json_object_get(topo, "gpus"), k, d) {
      if (st == GCB_OK)
        st = topo_gpu(cx, node, topo, d);
    }
    json_array_foreach(json_object_get(topo, "nics"), k, d) {
      if (st == GCB_OK)
        st = topo_nic(cx, node, topo, d);
    }
    if (st != GCB_OK)
      return st;
  }
  return GCB_OK;
}
