/*
 * Kernel launch cost on the CUDA backend: one empty kernel per operation,
 * timed on the host with CLOCK_MONOTONIC (the cost is the host's and the
 * driver's, which device events would not see). A run times `batch`
 * launches per repetition and reports the time per launch, so that the
 * harness's median of single runs is a median of per-launch times:
 *   sync   launch + cudaStreamSynchronize, one at a time (a round trip);
 *   stream `batch` launches back to back, one synchronize at the end;
 *   graph  the same `batch` launches captured once into a CUDA graph and
 *          replayed with cudaGraphLaunch, one synchronize at the end.
 * Nothing to validate: check() is NULL, so results read "not checked".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "kernels/cuda_impl.h"
#include "kernels/cuda_kernels.h"

struct cuda_launch {
  struct gcb_backend *b;
  enum gcb_launch_mode mode;
  int batch;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
};

static void launch_release(void *state) {
  struct cuda_launch *l = state;

  if (l == NULL)
    return;
  if (l->exec != NULL)
    (void)cudaGraphExecDestroy(l->exec);
  if (l->graph != NULL)
    (void)cudaGraphDestroy(l->graph);
  free(l);
}

static enum gcb_status empty(const struct cuda_launch *l, struct gcb_err *err) {
  return gcb__cuda_launched(err, gcb__cuda_empty_launch(l->b->stream),
                            "empty kernel launch");
}

/* One batch: `batch` launches in the chosen way, ending synchronised. */
static enum gcb_status batch(const struct cuda_launch *l, struct gcb_err *err) {
  cudaStream_t s = l->b->stream;
  enum gcb_status st = GCB_OK;

  switch (l->mode) {
  case GCB_LAUNCH_SYNC:
    for (int i = 0; i < l->batch && st == GCB_OK; i++)
      if ((st = empty(l, err)) == GCB_OK)
        st = CUDA_CHECK(err, cudaStreamSynchronize(s));
    return st;
  case GCB_LAUNCH_STREAM:
    for (int i = 0; i < l->batch && st == GCB_OK; i++)
      st = empty(l, err);
    break;
  default:
    st = CUDA_CHECK(err, cudaGraphLaunch(l->exec, s));
    break;
  }
  return st == GCB_OK ? CUDA_CHECK(err, cudaStreamSynchronize(s)) : st;
}

static enum gcb_status launch_run(void *state, int reps, double *seconds,
                                  struct gcb_err *err) {
  struct cuda_launch *l = state;
  enum gcb_status st = gcb__cuda_use(l->b, err);
  double t0 = gcb_now_s();

  for (int r = 0; r < reps && st == GCB_OK; r++)
    st = batch(l, err);
  if (st == GCB_OK)
    *seconds = (gcb_now_s() - t0) / l->batch;
  return st;
}

/* Captures `batch` launches of the empty kernel into a graph. The capture
 * is thread-local (cudaStreamCaptureModeThreadLocal): other threads' CUDA
 * calls, such as the NVML sampler's, are not affected. */
static enum gcb_status capture(struct cuda_launch *l, struct gcb_err *err) {
  cudaStream_t s = l->b->stream;
  enum gcb_status st = CUDA_CHECK(
      err, cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));

  for (int i = 0; i < l->batch && st == GCB_OK; i++)
    st = empty(l, err);
  /* End the capture even after a failed launch, or the stream stays in
   * capture mode. */
  enum gcb_status end = CUDA_CHECK(err, cudaStreamEndCapture(s, &l->graph));
  if (st == GCB_OK)
    st = end;
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaGraphInstantiate(&l->exec, l->graph, 0));
  return st;
}

enum gcb_status gcb__cuda_launch(struct gcb_backend *b,
                                 const struct gcb_launch_params *p,
                                 struct gcb_op *op, struct gcb_err *err) {
  struct cuda_launch *l;
  enum gcb_status st;

  memset(op, 0, sizeof *op);
  if ((unsigned)p->mode >= GCB_LAUNCH_MODE_COUNT || p->batch < 1)
    return gcb_err_set(err, GCB_EUSAGE,
                       "cuda launch: invalid mode %d or batch %d", (int)p->mode,
                       p->batch);
  if ((st = gcb__cuda_use(b, err)) != GCB_OK)
    return st;
  if ((l = calloc(1, sizeof *l)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "cuda launch: no memory for state");
  *l = (struct cuda_launch){.b = b, .mode = p->mode, .batch = p->batch};
  if (p->mode == GCB_LAUNCH_GRAPH && (st = capture(l, err)) != GCB_OK) {
    launch_release(l);
    return st;
  }
  *op =
      (struct gcb_op){.state = l, .run = launch_run, .release = launch_release};
  return GCB_OK;
}
