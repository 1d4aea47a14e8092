/*
 * membw: memory bandwidth per rank with the STREAM kernels (copy, scale,
 * add, triad) over arrays well past the last-level cache. Bytes read and
 * written per element come from the kernel table; write-allocate traffic is
 * not counted (the STREAM convention). All ranks run at once, so the sum
 * over a node's ranks is the node's bandwidth.
 */
#include <stddef.h>
#include <stdio.h>

#include "bench/bench.h"

#define MIN_ARRAY_BYTES ((uint64_t)64 << 20)

struct membw_opts {
  uint64_t size;      /* bytes per array; 0: automatic */
  uint32_t kernels;   /* bit set over enum gcb_memkernel */
};

static const char *const kernel_names[] = {
#define GCB__MK_NAME(id, name, r, w, f, formula) name,
    GCB_MEMKERNEL_LIST(GCB__MK_NAME)
#undef GCB__MK_NAME
    NULL};

static const struct gcb_option membw_options[] = {
    {"size", 's', GCB_OPT_SIZE, offsetof(struct membw_opts, size), NULL, "BYTES",
     "bytes per array, three arrays per rank (default: 4x the last-level "
     "cache, the GPU's L2 on cuda, at least 64M)", NULL, 1024, 0},
    {"kernel", 'K', GCB_OPT_SET, offsetof(struct membw_opts, kernels), "all",
     "LIST", "STREAM kernels, one case each", kernel_names, 0, 0},
    {0},
};

static int membw_count(const struct gcb_ctx *ctx, const void *opts) {
  (void)ctx;
  return __builtin_popcount(((const struct membw_opts *)opts)->kernels);
}

static enum gcb_memkernel nth_kernel(uint32_t set, int index) {
  for (int k = 0; k < GCB_MEMKERNEL_COUNT; k++)
    if ((set & (1u << k)) && index-- == 0)
      return (enum gcb_memkernel)k;
  return GCB_MEMKERNEL_COUNT;
}

/* Default array size: 4x the last-level cache the kernels stream through
 * (STREAM's rule; a GPU's L2 on the CUDA backend, 50 MB on an H200), so
 * that no cache holds the working set; never under 64 MiB. */
static uint64_t auto_size(const struct gcb_ctx *ctx) {
  uint64_t cache = ctx->device.cache_bytes > 0 ? ctx->device.cache_bytes
                                               : ctx->machine.llc_bytes;
  uint64_t size = 4 * cache;
  return size > MIN_ARRAY_BYTES ? size : MIN_ARRAY_BYTES;
}

/* STREAM's three arrays fit the memory there is: both backends allocate
 * all three whatever the kernel (the CUDA backend a host copy too, for
 * validation), so a read-only kernel needs no less. */
static enum gcb_status membw_validate(const struct gcb_ctx *ctx,
                                      const void *opts, struct gcb_err *err) {
  const struct membw_opts *o = opts;
  if (ctx->backend_ops->stream == NULL || ctx->backend_ops->fits == NULL)
    return GCB_OK;
  const uint64_t arrays = 3;
  uint64_t bytes = o->size ? o->size : auto_size(ctx);
  if (arrays > 0 && bytes > UINT64_MAX / arrays)
    return gcb_err_set(err, GCB_EUSAGE, "--size %llu: too large",
                       (unsigned long long)bytes);
  char size[32], what[96];
  gcb_format_size(bytes, size, sizeof size);
  snprintf(what, sizeof what, "membw --size %s (%llu arrays)", size,
           (unsigned long long)arrays);
  return ctx->backend_ops->fits(ctx->backend, arrays * bytes, what, err);
}

static enum gcb_status membw_setup(struct gcb_ctx *ctx, const void *opts,
                                   void *state, int index, struct gcb_record *rec,
                                   struct gcb_op *op, struct gcb_err *err) {
  (void)state;
  const struct membw_opts *o = opts;
  uint64_t bytes = o->size ? o->size : auto_size(ctx);
  struct gcb_stream_params p = {.kernel = nth_kernel(o->kernels, index),
                                .elements = bytes / sizeof(double),
                                .seed = ctx->seed + (uint64_t)ctx->rank};
  const struct gcb_memkernel_info *k = gcb_memkernel_info(p.kernel);
  char size[32];
  gcb_format_size(p.elements * sizeof(double), size, sizeof size);
  snprintf(rec->label, sizeof rec->label, "%s %s", k->name, size);
  gcb_record_param_str(rec, "kernel", k->name);
  gcb_record_param_size(rec, "bytes", (int64_t)(p.elements * sizeof(double)));
  rec->work_per_op =
      (double)p.elements * (double)(k->reads + k->writes) * sizeof(double);
  rec->figure = (struct gcb_figure_spec){
      .unit = "GB/s", .scale = 1e9,
      .counted = "bytes read + written, no write-allocate"};
  if (ctx->backend_ops->stream == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "the %s backend has no memory kernels",
                       ctx->backend_ops->name);
  return ctx->backend_ops->stream(ctx->backend, &p, op, err);
}

const struct gcb_bench gcb_bench_membw = {
    .name = "membw",
    .summary = "memory bandwidth per rank, STREAM copy/scale/add/triad (GB/s)",
    .options = membw_options,
    .opts_size = sizeof(struct membw_opts),
    .validate = membw_validate,
    .count = membw_count,
    .setup = membw_setup,
};
