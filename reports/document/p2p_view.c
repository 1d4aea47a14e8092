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

#include "reports/document/topo_view.h"
#include "reports/document/view.h"

bool *gcb__p2p_scratch(const json_t *root, size_t *n) {
  *n = json_array_size(json_object_get(root, "nodes")) + 1;
  return calloc(*n, sizeof(bool));
}

bool gcb__p2p_begin(struct gcb__p2p_iter *it, const json_t *root,
                    const json_t *c, bool *seen, size_t nseen) {
  *it = (struct gcb__p2p_iter){
      .root = root, .c = c, .seen = seen, .nseen = seen ? nseen : 0};
  /* The bench first: the pictures ask this of every case once per node,
   * and looking up a case's columns is the dearer part. */
  if (gcb_bench_kind_of(c) != GCB_BENCH_P2P)
    return false;
  gcb_ranks_of(c, &it->ranks);
  if (seen != NULL)
    memset(seen, 0, nseen * sizeof *seen);
  return true;
}

/* A pair end: by bus id when the case names one and the node's topology
 * has it, else the GPU index. */
static long long end_gpu(const json_t *c, const json_t *topo,
                         const char *bus_key, const char *index_key) {
  long long g =
      gcb_topo_view_gpu_by_busid(topo, gcb_view_param_str(c, bus_key));
  double i = gcb_view_param_num(c, index_key);
  return g >= 0 ? g : isnan(i) || i < 0 ? -1 : (long long)i;
}

/* The node of a per_rank entry: params.node when the case names one,
 * else the rank's. */
static long long entry_node(const struct gcb__p2p_iter *it, long long rank) {
  double n = gcb_view_param_num(it->c, "node");
  if (!isnan(n))
    return (long long)n;
  long long node = gcb_view_int(gcb_view_rank(it->root, rank), "node", -1);
  return node >= 0 ? node : 0;
}

bool gcb__p2p_next(struct gcb__p2p_iter *it, struct gcb__p2p *out) {
  while (it->next < it->ranks.n) {
    size_t i = it->next++;
    long long rank = gcb_ranks_rank(&it->ranks, i);
    long long node = entry_node(it, rank);
    bool known = node >= 0 && (size_t)node < it->nseen;
    if (known ? it->seen[node] : it->next > 1)
      continue; /* the node's figure again, for another of its ranks */
    if (known)
      it->seen[node] = true;
    *out = (struct gcb__p2p){
        .node = node,
        .rank = rank,
        .value = gcb_ranks_num(&it->ranks, GCB_RC_FIG_MEDIAN, i),
        .topo = gcb_topo_view(it->root, node)};
    out->src = end_gpu(it->c, out->topo, "src_bus_id", "src");
    out->dst = end_gpu(it->c, out->topo, "dst_bus_id", "dst");
    if (out->src >= 0 && out->dst >= 0 && out->src != out->dst &&
        out->value >= 0)
      return true;
  }
  return false;
}

void gcb__p2p_busid(const struct gcb__p2p *m, const json_t *c, bool dst,
                    char *buf, size_t size) {
  long long gpu = dst ? m->dst : m->src;
  const char *bus = gcb_view_str(gcb_topo_view_gpu(m->topo, gpu), "busid");
  if (bus[0] != '\0')
    gcb_view_copy(buf, size, bus);
  else if (!gcb_busid_canon(
               gcb_view_param_str(c, dst ? "dst_bus_id" : "src_bus_id"), buf,
               size))
    snprintf(buf, size, "GPU%lld", gpu);
}
