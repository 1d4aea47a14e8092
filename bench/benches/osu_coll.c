/*
 * coll under OSU's rules (the osu_* programs, --format osu): iteration
 * counts that depend on the message size as OSU's do (--osu-iters,
 * --osu-warmup: SMALL[:LARGE], LARGE past OSU's 8192-byte threshold), and
 * the message size as OSU counts it, which for allgather and alltoall is
 * each rank's block where nccl-tests (and coll's -b/-e) count the whole
 * receive buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/benches/coll.h"
#include "bench/benches/osu_args.h"

/* "SMALL[:LARGE]", each a count >= lo; LARGE defaults to SMALL. */
static bool parse_pair(const char *text, long lo, long *small, long *large) {
  char *end;
  errno = 0;
  *small = strtol(text, &end, 10);
  *large = *small;
  if (end != text && *end == ':')
    *large = strtol(end + 1, &end, 10);
  return errno == 0 && end != text && *end == '\0' && *small >= lo &&
         *large >= lo && *small <= 1000000000L && *large <= 1000000000L;
}

enum gcb_status gcb__coll_osu_validate(const struct coll_opts *o,
                                       struct gcb_err *err) {
  long a, b;
  if (o->osu_iters && !parse_pair(o->osu_iters, 1, &a, &b))
    return gcb_err_set(err, GCB_EUSAGE,
                       "--osu-iters '%s': expected SMALL[:LARGE], counts of "
                       "at least 1",
                       o->osu_iters);
  if (o->osu_warmup && !parse_pair(o->osu_warmup, 0, &a, &b))
    return gcb_err_set(err, GCB_EUSAGE,
                       "--osu-warmup '%s': expected SMALL[:LARGE], counts of "
                       "at least 0",
                       o->osu_warmup);
  return GCB_OK;
}

void gcb__coll_osu_iters(const struct coll_opts *o, uint64_t osu_size,
                         long *iters, long *warmup) {
  long small, large;
  bool big = osu_size > GCB_OSU_LARGE_MESSAGE; /* OSU: size > 8192 */
  if (o->osu_iters && parse_pair(o->osu_iters, 1, &small, &large))
    *iters = big ? large : small;
  if (o->osu_warmup && parse_pair(o->osu_warmup, 0, &small, &large))
    *warmup = big ? large : small;
}
