/*
 * coll under OSU's rules (the osu_* programs, --format osu): iteration
 * counts that depend on the message size as OSU's do (--iters and
 * --warmup, and --iters-large and --warmup-large past OSU's 8192-byte
 * threshold), and
 * the message size as OSU counts it, which for allgather and alltoall is
 * each rank's block where nccl-tests (and coll's -b/-e) count the whole
 * receive buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/benches/coll.h"
#include "bench/benches/osu_options.h"

enum gcb_status gcb__coll_osu_validate(const struct coll_opts *o,
                                       struct gcb_err *err) {
  (void)o; /* the option table bounds both counts */
  (void)err;
  return GCB_OK;
}

void gcb__coll_osu_iters(const struct coll_opts *o, uint64_t osu_size,
                         long *iters, long *warmup) {
  if (osu_size <= GCB_OSU_LARGE_MESSAGE) /* OSU: size > 8192 is large */
    return;
  if (o->iters_large >= 0)
    *iters = o->iters_large;
  if (o->warmup_large >= 0)
    *warmup = o->warmup_large;
}
