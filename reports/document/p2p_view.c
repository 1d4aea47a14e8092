/*
 * The measurements of p2p cases, one per node (p2p_view.h). GPU ends are
 * found by bus id in the node's topology first: device numbers depend on
 * CUDA_VISIBLE_DEVICES, bus ids do not.
 */
#include "reports/document/p2p_view.h"
#include "reports/document/bench_kind.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/busid.h"
#include "reports/document/view.h"

/* ---- over the typed model ----------------------------------------------- */

bool *gcb__p2p_walk_scratch(const struct gcb_model *m, size_t *n) {
  *n = m->nnodes + 1;
  return calloc(*n, sizeof(bool));
}

bool gcb__p2p_walk_begin(struct gcb__p2p_walk *it, const struct gcb_model *m,
                         const struct gcb_model_case *c, bool *seen,
                         size_t nseen) {
  *it = (struct gcb__p2p_walk){
      .m = m, .c = c, .seen = seen, .nseen = seen ? nseen : 0};
  if (c->kind != GCB_BENCH_P2P)
    return false;
  if (seen != NULL)
    memset(seen, 0, nseen * sizeof *seen);
  return true;
}

/* A pair end: by bus id when the case names one and the node's topology
 * has it, else the GPU index. */
static long long pair_end(const struct gcb__p2p_walk *it, long long node,
                          const char *bus_key, const char *index_key) {
  long long g =
      gcb_model_gpu_index(it->m, node, gcb_model_param_str(it->c, bus_key));
  double i = gcb_model_param_num(it->c, index_key);
  return g >= 0 ? g : isnan(i) || i < 0 ? -1 : (long long)i;
}

/* The node of a per_rank entry: params.node when the case names one,
 * else the rank's. */
static long long walk_node(const struct gcb__p2p_walk *it, long long rank) {
  double n = gcb_model_param_num(it->c, "node");
  if (!isnan(n))
    return (long long)n;
  const struct gcb_model_rank *r = gcb_model_rank(it->m, rank);
  return r != NULL && r->node >= 0 ? r->node : 0;
}

bool gcb__p2p_walk_next(struct gcb__p2p_walk *it, struct gcb__p2p_pair *out) {
  while (it->next < it->c->ranks.n) {
    size_t i = it->next++;
    long long rank = gcb_model_col_rank(it->c, i, -1);
    long long node = walk_node(it, rank);
    bool known = node >= 0 && (size_t)node < it->nseen;
    if (known ? it->seen[node] : it->next > 1)
      continue; /* the node's figure again, for another of its ranks */
    if (known)
      it->seen[node] = true;
    const struct gcb_model_node *at = gcb_model_node(it->m, node);
    *out = (struct gcb__p2p_pair){
        .node = node,
        .rank = rank,
        .value = gcb_model_col(it->c, GCB_RC_FIG_MEDIAN, i),
        .at = at != NULL && at->has_topology ? at : NULL};
    out->src = pair_end(it, node, "src_bus_id", "src");
    out->dst = pair_end(it, node, "dst_bus_id", "dst");
    if (out->src >= 0 && out->dst >= 0 && out->src != out->dst &&
        out->value >= 0)
      return true;
  }
  return false;
}

bool gcb__p2p_pair_busid(const struct gcb__p2p_pair *p,
                         const struct gcb_model_case *c, bool dst, char *buf,
                         size_t size) {
  long long gpu = dst ? p->dst : p->src;
  const struct gcb_model_gpu *g =
      p->at != NULL ? gcb_model_node_gpu(p->at, gpu) : NULL;
  if (g != NULL && g->busid[0] != '\0') {
    if (!gcb_busid_canon(g->busid, buf, size))
      gcb_view_copy(buf, size, g->busid);
    return true;
  }
  if (gcb_busid_canon(gcb_model_param_str(c, dst ? "dst_bus_id" : "src_bus_id"),
                      buf, size))
    return true;
  gcb_view_copy(buf, size, "");
  return false;
}

void gcb__p2p_pair_end(const struct gcb__p2p_pair *p,
                       const struct gcb_model_case *c, bool dst, char *buf,
                       size_t size) {
  if (!gcb__p2p_pair_busid(p, c, dst, buf, size))
    snprintf(buf, size, "GPU%lld", dst ? p->dst : p->src);
}
