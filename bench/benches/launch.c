/*
 * launch: the host-side cost of starting GPU work, per rank. One case per
 * mode: an empty kernel launched and waited for one at a time (sync), the
 * same launches back to back on one stream (stream), and those launches
 * captured once into a CUDA graph and replayed (graph), which shows how
 * much of the stream cost is the host's scheduling. Times are per launch,
 * measured on the host over batches of --batch launches.
 */
#include <stddef.h>
#include <stdio.h>

#include "bench/bench.h"

struct launch_opts {
  uint32_t modes; /* bit set over enum gcb_launch_mode */
  long batch;
};

static const char *const mode_names[] = {
#define GCB__LAUNCH_NAME(id, name, what) name,
    GCB_LAUNCH_MODE_LIST(GCB__LAUNCH_NAME)
#undef GCB__LAUNCH_NAME
        NULL};

static const struct gcb_option launch_options[] = {
    {"mode", 0, GCB_OPT_SET, offsetof(struct launch_opts, modes), "all", "LIST",
     "launch modes, one case each: sync (launch and wait), stream "
     "(back to back), graph (replayed CUDA graph)",
     mode_names, 0, 0},
    {"batch", 0, GCB_OPT_INT, offsetof(struct launch_opts, batch), "1000", "N",
     "launches per timed batch (the time reported is per launch)", NULL, 1,
     1e6},
    {0},
};

/* A backend without the operation skips the whole benchmark, once. */
static enum gcb_status launch_open(struct gcb_ctx *ctx, const void *opts,
                                   void **state, struct gcb_err *err) {
  (void)opts;
  *state = NULL;
  if (ctx->backend_ops->launch == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "the %s backend launches no GPU kernels",
                       ctx->backend_ops->name);
  return GCB_OK;
}

static int launch_count(const struct gcb_ctx *ctx, const void *opts) {
  (void)ctx;
  return __builtin_popcount(((const struct launch_opts *)opts)->modes);
}

static enum gcb_launch_mode nth_mode(uint32_t set, int index) {
  for (int m = 0; m < GCB_LAUNCH_MODE_COUNT; m++)
    if ((set & (1u << m)) && index-- == 0)
      return (enum gcb_launch_mode)m;
  return GCB_LAUNCH_MODE_COUNT;
}

static enum gcb_status launch_setup(struct gcb_ctx *ctx, const void *opts,
                                    void *state, int index,
                                    struct gcb_record *rec, struct gcb_op *op,
                                    struct gcb_err *err) {
  (void)state;
  const struct launch_opts *o = opts;
  struct gcb_launch_params p = {.mode = nth_mode(o->modes, index),
                                .batch = (int)o->batch};
  snprintf(rec->label, sizeof rec->label, "%s x%d", mode_names[p.mode],
           p.batch);
  gcb_record_param_str(rec, "mode", mode_names[p.mode]);
  gcb_record_param_int(rec, "batch", p.batch);
  rec->work_per_op = 1.0; /* one launch */
  rec->figure = (struct gcb_figure_spec){
      .unit = "klaunch/s",
      .scale = 1e3,
      .counted = "empty-kernel launches; time is per launch"};
  if (ctx->backend_ops->launch == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "the %s backend launches no GPU kernels",
                       ctx->backend_ops->name);
  return ctx->backend_ops->launch(ctx->backend, &p, op, err);
}

const struct gcb_bench gcb_bench_launch = {
    .name = "launch",
    .summary = "GPU kernel launch cost per rank: sync, stream, CUDA graph",
    .options = launch_options,
    .opts_size = sizeof(struct launch_opts),
    .open = launch_open,
    .count = launch_count,
    .setup = launch_setup,
};
