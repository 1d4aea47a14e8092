/*
 * The runner: one case of one collective on one transport, from buffers to
 * a count of wrong elements (contracts in comm.h).
 *
 * It joins the two halves of the module: the table (ops.c) says what the
 * operation moves and where each received element comes from; the
 * transport (mpi.c, nccl.c) only allocates, copies and starts. The runner
 * owns the buffer layout: out of place, a send and a receive buffer; in
 * place, one buffer holding both at the offsets of struct gcb_coll_counts,
 * which the transport may move to its library's own convention first.
 *
 * On device memory each allocation holds several copies ("slots") of the
 * layout, and successive timed operations use successive slots, as
 * nccl-tests' startColl shifts its buffers each iteration "to avoid cache
 * effects": a mid-size collective then does not find its data in L2 from
 * the previous iteration. Validation uses slot 0.
 *
 * Buffers are written through a bounded host staging area, chunk by chunk,
 * so that validating a multi-gigabyte case needs megabytes of host memory,
 * not a second copy of the buffers. The initial image of every buffer is a
 * pure function of (rank, element), so nothing else needs keeping: the
 * value an untouched element must still hold is recomputed when checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/comm.h"
#include "collectives/data.h"

/* Host staging per transfer: large enough to amortise each upload's
 * synchronisation, small enough to be negligible next to the buffers. */
enum { STAGE_BYTES = 4 << 20 };

struct gcb_coll_case {
  const struct gcb_coll_ops *ops;
  struct gcb_comm *comm;
  struct gcb_coll_call call;     /* the buffers below, param filled in */
  struct gcb_coll_counts counts; /* in the transport's in-place layout */
  struct gcb__coll_pat pat;
  int rank, nranks;
  size_t elt;
  void *sendbuf;    /* out of place only */
  void *recvbuf;    /* the receive buffer, or in place the one buffer */
  size_t recv_side; /* elements of one slot of recvbuf */
  size_t slots;     /* copies of the layout in each allocation (rotation) */
  size_t send_stride, recv_stride; /* bytes between slots */
  uint64_t iter;                   /* operations started: slot = iter % slots */
  unsigned char *stage;
  size_t stage_elems;
  bool corrupt;     /* test-only fault armed for the next check */
  bool nonblocking; /* runs and checks start with istart() */
};

typedef void image_fn(const struct gcb_coll_case *k, size_t first, size_t n,
                      void *out);

/* Elements first..first+n of the send buffer: this rank's input. */
static void send_image(const struct gcb_coll_case *k, size_t first, size_t n,
                       void *out) {
  for (size_t i = 0; i < n; i++)
    gcb__coll_store(k->pat.dtype, out, i,
                    gcb__coll_input(&k->pat, k->rank, first + i));
}

/* Elements of recvbuf before the operation: poison, and in place the
 * input where the send buffer lies inside it. */
static void recv_image(const struct gcb_coll_case *k, size_t first, size_t n,
                       void *out) {
  gcb__coll_poison(k->pat.dtype, out, n);
  if (!k->call.inplace)
    return;
  size_t lo = k->counts.inplace_offset, hi = lo + k->counts.send;
  for (size_t i = first > lo ? first : lo; i < first + n && i < hi; i++)
    gcb__coll_store(k->pat.dtype, out, i - first,
                    gcb__coll_input(&k->pat, k->rank, i - lo));
}

static size_t min_size(size_t a, size_t b) {
  return a < b ? a : b;
}

static enum gcb_status upload_image(struct gcb_coll_case *k, void *dst,
                                    size_t total, image_fn *image,
                                    struct gcb_err *err) {
  enum gcb_status st = GCB_OK;
  for (size_t first = 0; first < total && st == GCB_OK;
       first += k->stage_elems) {
    size_t n = min_size(k->stage_elems, total - first);
    image(k, first, n, k->stage);
    st = k->ops->upload(k->comm, (char *)dst + first * k->elt, k->stage,
                        n * k->elt, err);
  }
  return st;
}

/* Writes every buffer's initial image: the state validation starts from. */
static enum gcb_status prepare(struct gcb_coll_case *k, struct gcb_err *err) {
  enum gcb_status st = GCB_OK;
  if (k->sendbuf != NULL)
    st = upload_image(k, k->sendbuf, k->counts.send, send_image, err);
  if (st == GCB_OK && k->recvbuf != NULL)
    st = upload_image(k, k->recvbuf, k->recv_side, recv_image, err);
  return st;
}

/* ---- creation ------------------------------------------------------------ */

static void describe(const struct gcb_coll_call *s, char *buf, size_t len) {
  snprintf(buf, len, "%s %s%s%s count %zu%s", s->desc->name,
           gcb_coll_dtype_name(s->dtype), s->desc->reduces ? " " : "",
           s->desc->reduces ? gcb_coll_redop_name(s->redop) : "", s->count,
           s->inplace ? " in place" : "");
}

/* Whether the shape can run here at all, and its counts in the layout the
 * transport wants; EUNSUPPORTED says why not. */
static enum gcb_status plan(const struct gcb_coll_ops *ops,
                            const struct gcb_comm *comm,
                            const struct gcb_coll_env *env,
                            const struct gcb_coll_call *s,
                            struct gcb_coll_counts *c, struct gcb_err *err) {
  const struct gcb_coll_desc *d = s->desc;
  char why[256] = "";
  if (!ops->supports(comm, d, s->dtype, s->redop, why, sizeof why))
    return gcb_err_set(err, GCB_EUNSUPPORTED, "%s: %s", ops->name, why);
  if (d->rooted && (s->root < 0 || s->root >= env->size))
    return gcb_err_set(err, GCB_EUSAGE, "root %d is not a rank (0..%d)",
                       s->root, env->size - 1);
  if (d->pairwise && env->size < 2)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "a point-to-point pattern needs at least 2 ranks");
  if (!gcb_coll_desc_counts(d, s->count, s->dtype, env->rank, env->size,
                            s->root, c))
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "too small: %zu elements leave no %zu-byte block per "
                       "rank for %d ranks (nccl-tests rounds it to 0)",
                       s->count,
                       gcb_coll_dtype_size(s->dtype) > d->align_bytes
                           ? gcb_coll_dtype_size(s->dtype)
                           : d->align_bytes,
                       env->size);
  if (s->inplace && ops->inplace != NULL &&
      !ops->inplace(comm, d, c, why, sizeof why))
    return gcb_err_set(err, GCB_EUNSUPPORTED, "%s: %s", ops->name, why);
  return GCB_OK;
}

static enum gcb_status alloc_buffers(struct gcb_coll_case *k,
                                     struct gcb_err *err) {
  const struct gcb_coll_counts *c = &k->counts;
  enum gcb_status st = GCB_OK;
  if (k->call.inplace) {
    size_t s = c->inplace_offset + c->send,
           r = c->recv_inplace_offset + c->recv;
    k->recv_side = s > r ? s : r;
  } else {
    k->recv_side = c->recv;
  }
  /* Device memory rotates through slots (nccl-tests' startColl); host
   * memory (MPI) keeps one: its caches are not what the figure is about. */
  size_t send_bytes = k->call.inplace ? 0 : c->send * k->elt;
  size_t span =
      k->recv_side * k->elt > send_bytes ? k->recv_side * k->elt : send_bytes;
  k->slots = k->ops->device_memory
                 ? gcb__coll_rotation_slots(span, GCB__COLL_ROTATE_BYTES)
                 : 1;
  k->send_stride = gcb__coll_rotation_stride(send_bytes);
  k->recv_stride = gcb__coll_rotation_stride(k->recv_side * k->elt);
  if (send_bytes > 0)
    st = k->ops->alloc(k->comm, k->slots * k->send_stride, &k->sendbuf, err);
  if (st == GCB_OK && k->recv_side > 0)
    st = k->ops->alloc(k->comm, k->slots * k->recv_stride, &k->recvbuf, err);
  if (st != GCB_OK)
    return st;
  size_t most = k->recv_side > c->send ? k->recv_side : c->send;
  k->stage_elems = min_size(most, STAGE_BYTES / k->elt);
  if (k->stage_elems > 0 &&
      (k->stage = malloc(k->stage_elems * k->elt)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "no host memory for %zu staging bytes",
                       k->stage_elems * k->elt);
  /* The library sees the layout: in place, both views of one buffer. */
  char *base = k->recvbuf;
  k->call.send =
      k->call.inplace && base ? base + c->inplace_offset * k->elt : k->sendbuf;
  k->call.recv = k->call.inplace && base
                     ? base + c->recv_inplace_offset * k->elt
                     : k->recvbuf;
  return GCB_OK;
}

enum gcb_status gcb_coll_case_new(const struct gcb_coll_ops *ops,
                                  struct gcb_comm *comm,
                                  const struct gcb_coll_env *env,
                                  const struct gcb_coll_call *shape,
                                  struct gcb_coll_case **out,
                                  struct gcb_err *err) {
  struct gcb_coll_counts c;
  char what[160];
  *out = NULL;
  if (shape->desc == NULL || (int)shape->dtype < 0 ||
      shape->dtype >= GCB_COLL_DTYPE_COUNT || (int)shape->redop < 0 ||
      shape->redop >= GCB_COLL_REDOP_COUNT)
    return gcb_err_set(err, GCB_EINTERNAL, "collective case: bad shape");
  describe(shape, what, sizeof what);
  enum gcb_status st = plan(ops, comm, env, shape, &c, err);
  struct gcb_coll_case *k = NULL;
  if (st == GCB_OK && (k = calloc(1, sizeof *k)) == NULL)
    st = gcb_err_set(err, GCB_ENOMEM, "no memory for the case");
  if (st != GCB_OK)
    goto fail;
  *k = (struct gcb_coll_case){.ops = ops,
                              .comm = comm,
                              .call = *shape,
                              .counts = c,
                              .rank = env->rank,
                              .nranks = env->size,
                              .elt = gcb_coll_dtype_size(shape->dtype)};
  k->call.param = c.param;
  k->counts.inplace = shape->inplace;
  gcb__coll_pat_init(&k->pat, shape->dtype, shape->desc->reduces, shape->redop,
                     env->size);
  if ((st = alloc_buffers(k, err)) != GCB_OK ||
      (st = prepare(k, err)) != GCB_OK)
    goto fail;
  *out = k;
  return GCB_OK;
fail:
  gcb_coll_case_free(k);
  gcb_err_prefix(err, "%s", what);
  return st;
}

const struct gcb_coll_counts *
gcb_coll_case_counts(const struct gcb_coll_case *k) {
  return &k->counts;
}

/* ---- running ------------------------------------------------------------- */

/* The call on slot `slot`: every pointer moved by that slot's stride. */
static struct gcb_coll_call call_at(const struct gcb_coll_case *k,
                                    size_t slot) {
  struct gcb_coll_call call = k->call;
  if (call.inplace) {
    call.send = (const char *)call.send + slot * k->recv_stride;
    call.recv = (char *)call.recv + slot * k->recv_stride;
  } else {
    if (call.send != NULL)
      call.send = (const char *)call.send + slot * k->send_stride;
    if (call.recv != NULL)
      call.recv = (char *)call.recv + slot * k->recv_stride;
  }
  return call;
}

/* The next timed operation, on the next slot. */
static enum gcb_status start_next(struct gcb_coll_case *k,
                                  struct gcb_err *err) {
  struct gcb_coll_call call = call_at(k, (size_t)(k->iter++ % k->slots));
  return k->nonblocking ? k->ops->istart(k->comm, &call, err)
                        : k->ops->start(k->comm, &call, err);
}

enum gcb_status gcb_coll_case_wait(struct gcb_coll_case *k,
                                   struct gcb_err *err) {
  return k->ops->wait(k->comm, err);
}

enum gcb_status gcb_coll_case_istart(struct gcb_coll_case *k,
                                     struct gcb_err *err) {
  if (k->ops->istart == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "%s: no non-blocking form of %s",
                       k->ops->name, k->call.desc->name);
  return k->ops->istart(k->comm, &k->call, err);
}

enum gcb_status gcb_coll_case_test(struct gcb_coll_case *k, bool *done,
                                   struct gcb_err *err) {
  *done = false;
  if (k->ops->test == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "%s: no non-blocking test",
                       k->ops->name);
  return k->ops->test(k->comm, done, err);
}

bool gcb_coll_case_use_istart(struct gcb_coll_case *k) {
  k->nonblocking = k->ops->istart != NULL;
  return k->nonblocking;
}

enum gcb_status gcb_coll_case_run(struct gcb_coll_case *k, int reps,
                                  struct gcb_err *err) {
  return gcb_coll_case_run_agg(k, reps, 1, err);
}

/* One iteration of `agg` operations, grouped where the transport groups
 * (nccl-tests common.cu: "if (agg_iters>1) NCCLCHECK(ncclGroupStart())");
 * the group is closed even after a failed start, the first failure
 * reported. */
static enum gcb_status start_group(struct gcb_coll_case *k, int agg,
                                   struct gcb_err *err) {
  bool grouped = agg > 1 && k->ops->group_begin != NULL;
  enum gcb_status st = grouped ? k->ops->group_begin(k->comm, err) : GCB_OK;
  if (st != GCB_OK)
    return st;
  for (int i = 0; i < agg && st == GCB_OK; i++)
    st = start_next(k, err);
  if (grouped) {
    struct gcb_err later = {0};
    enum gcb_status end =
        k->ops->group_end(k->comm, st == GCB_OK ? err : &later);
    st = st != GCB_OK ? st : end;
  }
  return st;
}

enum gcb_status gcb_coll_case_run_agg(struct gcb_coll_case *k, int iters,
                                      int agg, struct gcb_err *err) {
  for (int i = 0; i < iters; i++) {
    enum gcb_status st = start_group(k, agg, err);
    if (st != GCB_OK)
      return st;
  }
  return k->ops->wait(k->comm, err);
}

/* ---- validation ---------------------------------------------------------- */

/* Wrong elements among received elements first..first+n, held in stage. */
static uint64_t compare_chunk(const struct gcb_coll_case *k, size_t first,
                              size_t n) {
  const struct gcb_coll_desc *d = k->call.desc;
  size_t base = k->call.inplace ? k->counts.recv_inplace_offset : 0;
  int ulps = gcb__coll_tolerance(&k->pat);
  uint64_t wrong = 0, cell[1];
  for (size_t i = 0; i < n; i++) {
    struct gcb_coll_source src;
    d->source(&k->counts, first + i, k->rank, k->nranks, k->call.root, &src);
    if (src.from == GCB_COLL_FROM_NONE) { /* must hold its initial image */
      recv_image(k, base + first + i, 1, cell);
      wrong += memcmp(k->stage + i * k->elt, cell, k->elt) != 0;
      continue;
    }
    double want = gcb__coll_expect(&k->pat, &src);
    double got = gcb__coll_load(k->pat.dtype, k->stage, i);
    wrong += !gcb__coll_match(k->pat.dtype, got, want, ulps);
  }
  return wrong;
}

enum gcb_status gcb_coll_case_check(struct gcb_coll_case *k, uint64_t *wrong,
                                    uint64_t *checked, struct gcb_err *err) {
  bool corrupt = k->corrupt;
  size_t base = k->call.inplace ? k->counts.recv_inplace_offset : 0;
  enum gcb_status st;
  *wrong = *checked = 0;
  k->corrupt = false;
  /* Validation runs on slot 0, the one prepare() writes. */
  struct gcb_coll_call first = call_at(k, 0);
  if ((st = prepare(k, err)) != GCB_OK ||
      (st = k->ops->start(k->comm, &first, err)) != GCB_OK ||
      (st = k->ops->wait(k->comm, err)) != GCB_OK)
    return st;
  for (size_t first = 0; first < k->counts.recv; first += k->stage_elems) {
    size_t n = min_size(k->stage_elems, k->counts.recv - first);
    const char *src = (const char *)k->recvbuf + (base + first) * k->elt;
    st = k->ops->download(k->comm, k->stage, src, n * k->elt, err);
    if (st != GCB_OK)
      return st;
    if (corrupt && first == 0) /* as if the transfer had flipped a bit */
      gcb__coll_corrupt(k->pat.dtype, k->stage, 0);
    *wrong += compare_chunk(k, first, n);
  }
  *checked = k->counts.recv;
  return GCB_OK;
}

void gcb_coll_case_corrupt_next(struct gcb_coll_case *k) {
  k->corrupt = true;
}

void gcb_coll_case_free(struct gcb_coll_case *k) {
  if (k == NULL)
    return;
  if (k->sendbuf != NULL)
    k->ops->free(k->comm, k->sendbuf);
  if (k->recvbuf != NULL)
    k->ops->free(k->comm, k->recvbuf);
  free(k->stage);
  free(k);
}
