/*
 * pcie: copies between host memory and the rank's GPU over its host link.
 * Cases: direction (h2d, d2h; bidir: the total of both at once; h2d_bidir,
 * d2h_bidir: one direction timed while the other runs, as nvbandwidth) x host
 * memory (pinned, pageable) x placement (the GPU's own NUMA node, or another
 * one) x a size sweep from small copies (their time is the copy latency) to
 * large ones (the link's bandwidth). Host memory is bound to the NUMA node with
 * hwloc by the backend; the node numbers come from this rank's topology.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "topo/topo.h"

struct pcie_opts {
  uint32_t dirs, memories, placements;
  uint64_t minbytes, maxbytes;
  double stepfactor;
};

static const char *const dir_names[] = {
#define GCB__PCIE_NAME(id, name, what) name,
    GCB_PCIE_DIR_LIST(GCB__PCIE_NAME)
#undef GCB__PCIE_NAME
        NULL};
static const char *const memory_names[] = {"pinned", "pageable", NULL};
static const char *const numa_names[] = {"local", "remote", NULL};

#define OPT(field) offsetof(struct pcie_opts, field)
static const struct gcb_option pcie_options[] = {
    {"direction", 0, GCB_OPT_SET, OPT(dirs), "all", "LIST",
     "h2d, d2h, bidir (both at once, bytes of both over the time both "
     "take), h2d_bidir and d2h_bidir (that direction alone, timed while the "
     "other runs: nvbandwidth's *_bidirectional_memcpy_ce)",
     dir_names, 0, 0},
    {"memory", 0, GCB_OPT_SET, OPT(memories), "all", "LIST",
     "host memory: pinned (page-locked), pageable", memory_names, 0, 0},
    {"numa", 0, GCB_OPT_SET, OPT(placements), "all", "LIST",
     "host memory on the GPU's NUMA node (local) or another (remote)",
     numa_names, 0, 0},
    {"minbytes", 'b', GCB_OPT_SIZE, OPT(minbytes), "8", "BYTES",
     "smallest copy (its time is the copy latency)", NULL, 1, 0},
    {"maxbytes", 'e', GCB_OPT_SIZE, OPT(maxbytes), "256M", "BYTES",
     "largest copy", NULL, 1, 0},
    {"stepfactor", 'f', GCB_OPT_DOUBLE, OPT(stepfactor), "32", "X",
     "multiply the size by X between cases", NULL, 1.01, 0},
    {0},
};
#undef OPT

struct pcie_spec {
  int dir, memory, placement;
  uint64_t bytes;
};

/* The size after s, saturating at UINT64_MAX (a product past 2^64 was
 * cast as it came: undefined). */
static uint64_t next_size(const struct pcie_opts *o, uint64_t s) {
  double next = (double)s * o->stepfactor;
  if (!(next < 18446744073709551616.0)) /* 2^64, or NaN */
    return UINT64_MAX;
  uint64_t n = (uint64_t)next;
  return n > s ? n : s == UINT64_MAX ? UINT64_MAX : s + 1;
}

/* Visits the cases in order (direction, memory, placement, size); stops at
 * the index-th. *visited: the cases visited (all of them for index -1). */
static bool nth_case_of(const struct pcie_opts *o, int index,
                        struct pcie_spec *out, int *visited) {
  int i = 0;
  for (int d = 0; d < GCB_PCIE_DIR_COUNT; d++)
    for (int m = 0; m < 2; m++)
      for (int p = 0; p < 2; p++) {
        if (!(o->dirs >> d & 1) || !(o->memories >> m & 1) ||
            !(o->placements >> p & 1))
          continue;
        for (uint64_t s = o->minbytes; s <= o->maxbytes; s = next_size(o, s)) {
          if (i++ == index) {
            *out = (struct pcie_spec){d, m, p, s};
            *visited = i;
            return true;
          }
          if (s == UINT64_MAX)
            break;
        }
      }
  *visited = i;
  return false;
}

static bool nth_case(const struct pcie_opts *o, int index,
                     struct pcie_spec *out) {
  int visited;
  return nth_case_of(o, index, out, &visited);
}

/* -b no larger than -e, and the largest copy's device buffers (one per
 * direction) fit the GPU's free memory. */
static enum gcb_status pcie_validate(const struct gcb_ctx *ctx,
                                     const void *opts, struct gcb_err *err) {
  const struct pcie_opts *o = opts;
  if (o->minbytes > o->maxbytes)
    return gcb_err_set(err, GCB_EUSAGE, "-b %llu is larger than -e %llu",
                       (unsigned long long)o->minbytes,
                       (unsigned long long)o->maxbytes);
  if (ctx->backend_ops->pcie == NULL || ctx->backend_ops->fits == NULL)
    return GCB_OK;
  uint64_t largest = o->minbytes;
  for (uint64_t s = o->minbytes; s <= o->maxbytes && s < UINT64_MAX / 2;
       s = next_size(o, s))
    largest = s;
  char size[32], what[64];
  gcb_format_size(largest, size, sizeof size);
  snprintf(what, sizeof what, "pcie copies of %s (-e)", size);
  return ctx->backend_ops->fits(ctx->backend, 2 * largest, what, err);
}

/* A backend without the operation skips the whole benchmark, once. */
static enum gcb_status pcie_open(struct gcb_ctx *ctx, const void *opts,
                                 void **state, struct gcb_err *err) {
  (void)opts;
  *state = NULL;
  if (ctx->backend_ops->pcie == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "the %s backend has no host<->device copies (no GPU)",
                       ctx->backend_ops->name);
  return GCB_OK;
}

static int pcie_count(const struct gcb_ctx *ctx, const void *opts) {
  (void)ctx;
  struct pcie_spec spec;
  int n = 0; /* one walk: a walk per case was quadratic */
  (void)nth_case_of(opts, -1, &spec, &n);
  return n;
}

/* The GPU's NUMA node (OS index) and another one, from the topology;
 * -1 where there is none. */
static void numa_nodes(const struct gcb_ctx *ctx, int *local, int *remote) {
  int g = ctx->topo ? gcb_topo_find_gpu_by_busid(ctx->topo, ctx->device.bus_id)
                    : -1;
  *local = g >= 0 ? gcb_topo_gpu(ctx->topo, g)->numa : -1;
  *remote = -1;
  for (int i = 0; ctx->topo && i < gcb_topo_numa_count(ctx->topo); i++) {
    int os = gcb_topo_numa(ctx->topo, i)->os_index;
    if (os != *local && *local >= 0) {
      *remote = os;
      break;
    }
  }
}

static enum gcb_status pcie_setup(struct gcb_ctx *ctx, const void *opts,
                                  void *state, int index,
                                  struct gcb_record *rec, struct gcb_op *op,
                                  struct gcb_err *err) {
  (void)state;
  struct pcie_spec s = {0};
  int local, remote;
  nth_case(opts, index, &s);
  numa_nodes(ctx, &local, &remote);
  struct gcb_pcie_params p = {.direction = (enum gcb_pcie_dir)s.dir,
                              .pinned = s.memory == 0,
                              .numa_node = s.placement == 0 ? local : remote,
                              .bytes = s.bytes,
                              .seed = ctx->seed + (uint64_t)ctx->rank};
  char size[32];
  gcb_format_size(s.bytes, size, sizeof size);
  snprintf(rec->label, sizeof rec->label, "%s %s %s %s", dir_names[s.dir],
           memory_names[s.memory], numa_names[s.placement], size);
  gcb_record_param_str(rec, "direction", dir_names[s.dir]);
  gcb_record_param_str(rec, "memory", memory_names[s.memory]);
  gcb_record_param_str(rec, "numa", numa_names[s.placement]);
  gcb_record_param_int(rec, "numa_node", p.numa_node);
  gcb_record_param_size(rec, "bytes", (int64_t)s.bytes);
  rec->work_per_op = (double)s.bytes * (s.dir == GCB_PCIE_BIDIR ? 2 : 1);
  rec->figure = (struct gcb_figure_spec){
      .unit = "GB/s",
      .scale = 1e9,
      .counted = "bytes copied: both directions summed for bidir, the timed "
                 "direction only for h2d_bidir and d2h_bidir"};
  if (ctx->backend_ops->pcie == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "the %s backend has no host<->device copies (no GPU)",
                       ctx->backend_ops->name);
  if (s.placement == 0 && local < 0)
    p.numa_node = -1; /* unknown: first touch, labelled local */
  if (s.placement == 1 && remote < 0)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       local < 0 ? "the GPU's NUMA node is unknown"
                                 : "one NUMA node: no remote host memory");
  return ctx->backend_ops->pcie(ctx->backend, &p, op, err);
}

const struct gcb_bench gcb_bench_pcie = {
    .name = "pcie",
    .summary = "host<->GPU copies per rank: h2d, d2h, both; pinned, pageable; "
               "local, remote NUMA; size sweep (GB/s, latency)",
    .options = pcie_options,
    .opts_size = sizeof(struct pcie_opts),
    .validate = pcie_validate,
    .open = pcie_open,
    .count = pcie_count,
    .setup = pcie_setup,
};
