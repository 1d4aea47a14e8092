/*
 * Host<->device copies on the CUDA backend: host to device, device to host
 * and both at once (one stream per direction), from pinned or pageable host
 * memory placed on a chosen NUMA node.
 *
 * Placement uses hwloc directly (hwloc_alloc_membind with the node's
 * nodeset, HWLOC_MEMBIND_BIND, strict), so the pages of the buffer live on
 * that node whatever CPU touches them; pinned buffers are then registered
 * with the driver (cudaHostRegister). Without a node (-1) the buffer is
 * plain aligned memory, placed by first touch.
 *
 * Each sample times 16 back-to-back copies and reports their mean
 * (nvbandwidth's loopCount; one 8-byte copy would be a single tick of the
 * event timer). Pinned copies are timed behind the gate kernel
 * (cuda_impl.h), so the events see the transfers and not the host
 * enqueueing them; a small copy then reads as its latency. Pageable copies
 * cannot be gated (the driver stages them through its own pinned buffers
 * from the calling thread, so a gated stream would block the caller): they
 * are timed with plain events. Directions: h2d, d2h, bidir (the total of
 * both at once, until both finish), and h2d_bidir / d2h_bidir: one
 * direction timed on its own stream while the other, twice as long, runs
 * on the second (nvbandwidth's host_to_device_bidirectional_memcpy_ce).
 * Pageable copies of two directions are enqueued from two host threads,
 * one per stream: a pageable D2H cudaMemcpyAsync returns only when the
 * copy is done, so from one thread the directions would run in turn.
 *
 * Validation: the device buffer an H2D copy writes starts as a fill byte,
 * the host buffer a D2H copy writes as another; after the timed runs both
 * must hold the random reference pattern, compared word for word.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "kernels/cuda_impl.h"

/* Roles of the two buffer pairs: H2D uses [0], D2H uses [1]. */
enum { TO_DEV, TO_HOST, PAIRS };

struct cuda_pcie {
  struct gcb_backend *b;
  enum gcb_pcie_dir dir;
  bool pinned;
  int numa;
  size_t bytes;
  size_t words;      /* 8-byte words of the pattern (bytes rounded up) */
  void *host[PAIRS]; /* [TO_DEV] source, [TO_HOST] destination */
  size_t len[PAIRS]; /* bytes allocated per pair (2x for an interferer) */
  bool registered[PAIRS];
  void *dev[PAIRS];   /* [TO_DEV] destination, [TO_HOST] source */
  double *ref;        /* the pattern, words long (random doubles) */
  uint64_t *readback; /* TO_DEV's device buffer, read back by check() */
};

/* The pair the events time: -1 for BIDIR (the total of both). */
static int timed_pair(enum gcb_pcie_dir d) {
  return d == GCB_PCIE_H2D || d == GCB_PCIE_H2D_BIDIR   ? TO_DEV
         : d == GCB_PCIE_D2H || d == GCB_PCIE_D2H_BIDIR ? TO_HOST
                                                        : -1;
}

static bool both(const struct cuda_pcie *p) {
  return p->dir == GCB_PCIE_BIDIR || p->dir == GCB_PCIE_H2D_BIDIR ||
         p->dir == GCB_PCIE_D2H_BIDIR;
}

static bool uses(const struct cuda_pcie *p, int pair) {
  return both(p) || timed_pair(p->dir) == pair;
}

/* Bytes a pair's copy moves: the case's, or twice them for the direction
 * that only interferes (nvbandwidth doubles it, testcases_ce.cpp, "to
 * ensure it interferes correctly": it outlasts the timed one). */
static size_t pair_bytes(const struct cuda_pcie *p, int pair) {
  bool interferes =
      p->dir != GCB_PCIE_BIDIR && both(p) && timed_pair(p->dir) != pair;
  return interferes ? 2 * p->bytes : p->bytes;
}

void gcb__cuda_pcie_close(struct gcb_backend *b) {
  if (b->hwloc != NULL)
    hwloc_topology_destroy((hwloc_topology_t)b->hwloc);
  b->hwloc = NULL;
}

/* The machine's NUMA nodes, loaded once per backend. */
static enum gcb_status topology(struct gcb_backend *b, struct gcb_err *err) {
  hwloc_topology_t t = NULL;

  if (b->hwloc != NULL)
    return GCB_OK;
  if (hwloc_topology_init(&t) != 0)
    return gcb_err_set(err, GCB_EHWLOC, "hwloc_topology_init: %s",
                       strerror(errno));
  if (hwloc_topology_load(t) != 0) {
    int e = errno;
    hwloc_topology_destroy(t);
    return gcb_err_set(err, GCB_EHWLOC, "hwloc_topology_load: %s", strerror(e));
  }
  b->hwloc = t;
  return GCB_OK;
}

/* Page-aligned host memory of len bytes, bound to NUMA node `numa`. */
static enum gcb_status host_alloc(struct cuda_pcie *p, size_t len, void **out,
                                  struct gcb_err *err) {
  hwloc_topology_t t;
  hwloc_obj_t node;
  enum gcb_status st;

  if (p->numa < 0) {
    *out = aligned_alloc(4096, (len + 4095) / 4096 * 4096);
    return *out != NULL
               ? GCB_OK
               : gcb_err_set(err, GCB_ENOMEM,
                             "pcie: no host memory for %zu bytes", len);
  }
  if ((st = topology(p->b, err)) != GCB_OK)
    return st;
  t = (hwloc_topology_t)p->b->hwloc;
  if ((node = hwloc_get_numanode_obj_by_os_index(t, (unsigned)p->numa)) == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "pcie: no NUMA node %d here",
                       p->numa);
  *out = hwloc_alloc_membind(t, len, node->nodeset, HWLOC_MEMBIND_BIND,
                             HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT);
  if (*out == NULL)
    return gcb_err_set(err, errno == ENOMEM ? GCB_ENOMEM : GCB_EUNSUPPORTED,
                       "pcie: hwloc_alloc_membind of %zu bytes on NUMA node "
                       "%d: %s",
                       len, p->numa, strerror(errno));
  return GCB_OK;
}

static void host_free(struct cuda_pcie *p, int pair) {
  size_t len = p->len[pair];

  if (p->host[pair] == NULL)
    return;
  if (p->registered[pair])
    (void)cudaHostUnregister(p->host[pair]);
  if (p->numa < 0)
    free(p->host[pair]);
  else
    hwloc_free((hwloc_topology_t)p->b->hwloc, p->host[pair], len);
}

static void pcie_release(void *state) {
  struct cuda_pcie *p = state;

  if (p == NULL)
    return;
  for (int i = 0; i < PAIRS; i++) {
    host_free(p, i);
    if (p->dev[i] != NULL)
      (void)cudaFree(p->dev[i]);
  }
  free(p->ref);
  free(p->readback);
  free(p);
}

/* One copy of one pair on stream s. */
static enum gcb_status pair_copy(const struct cuda_pcie *p, int pair,
                                 cudaStream_t s, struct gcb_err *err) {
  size_t n = pair_bytes(p, pair);

  return pair == TO_DEV
             ? CUDA_CHECK(err, cudaMemcpyAsync(p->dev[TO_DEV], p->host[TO_DEV],
                                               n, cudaMemcpyHostToDevice, s))
             : CUDA_CHECK(err,
                          cudaMemcpyAsync(p->host[TO_HOST], p->dev[TO_HOST], n,
                                          cudaMemcpyDeviceToHost, s));
}

/* The pair on b->stream (BIDIR: h2d) and the other. */
static int main_pair(const struct cuda_pcie *p) {
  return timed_pair(p->dir) < 0 ? TO_DEV : timed_pair(p->dir);
}

/* Pageable copies of both directions are split between two host threads
 * (a pageable D2H returns only when done: from one thread the directions
 * would take turns, and the timed stream would include the other's copy);
 * pinned ones return at once and are enqueued from one. */
static bool split(const struct cuda_pcie *p) {
  return both(p) && !p->pinned;
}

/* One call: each direction the case uses, main_pair on b->stream, the
 * other on stream2 (cuda.c forks and joins it); when split, b->stream's
 * only, stream2's from the second thread (pcie_copy2). */
static enum gcb_status pcie_copy(void *state, struct gcb_err *err) {
  const struct cuda_pcie *p = state;
  int timed = main_pair(p);
  enum gcb_status st = GCB_OK;

  for (int pair = 0; pair < PAIRS && st == GCB_OK; pair++)
    if (uses(p, pair) && (pair == timed || !split(p)))
      st =
          pair_copy(p, pair, pair == timed ? p->b->stream : p->b->stream2, err);
  return st;
}

static enum gcb_status pcie_copy2(void *state, struct gcb_err *err) {
  const struct cuda_pcie *p = state;

  return pair_copy(p, main_pair(p) == TO_DEV ? TO_HOST : TO_DEV, p->b->stream2,
                   err);
}

/* GCB__CUDA_COPIES_PER_SAMPLE copies per sample (nvbandwidth's loopCount),
 * pinned behind the gate; BIDIR joins stream2 before the stop event (the
 * total of both: nvbandwidth's TOTAL_BW, bytes of both over the time from
 * the start to the end of the last), *_BIDIR times b->stream's direction
 * alone (nvbandwidth's USE_FIRST_BW: the first copy's bytes over its own
 * stream's time). */
static enum gcb_status pcie_run(void *state, int reps, double *seconds,
                                struct gcb_err *err) {
  struct cuda_pcie *p = state;
  const struct gcb__cuda_timed t = {.state = p,
                                    .work = pcie_copy,
                                    .work2 = split(p) ? pcie_copy2 : NULL,
                                    .batch = GCB__CUDA_COPIES_PER_SAMPLE,
                                    .stream2 = both(p),
                                    .join = p->dir == GCB_PCIE_BIDIR,
                                    .ungated = !p->pinned};

  return gcb__cuda_time_gated(p->b, &t, reps, seconds, err);
}

/* 8-byte words of `got` that differ from the reference (the last word
 * compares only the bytes copied); one memcmp when all is well. */
static uint64_t mismatches(const struct cuda_pcie *p, const void *got) {
  const char *g = got, *r = (const char *)p->ref;
  uint64_t wrong = 0;

  if (memcmp(g, r, p->bytes) == 0)
    return 0;
  for (size_t at = 0; at < p->bytes; at += 8) {
    size_t n = p->bytes - at < 8 ? p->bytes - at : 8;
    wrong += memcmp(g + at, r + at, n) != 0;
  }
  return wrong;
}

static enum gcb_status pcie_check(void *state, struct gcb_check *out,
                                  struct gcb_err *err) {
  struct cuda_pcie *p = state;
  enum gcb_status st = gcb__cuda_use(p->b, err);

  *out = (struct gcb_check){
      .checked = true,
      .method = "every 8-byte word of each copy's destination vs the "
                "random source pattern"};
  if (st == GCB_OK && uses(p, TO_DEV) &&
      (st = CUDA_CHECK(err, cudaMemcpy(p->readback, p->dev[TO_DEV], p->bytes,
                                       cudaMemcpyDeviceToHost))) == GCB_OK) {
    out->samples += p->words;
    out->wrong += mismatches(p, p->readback);
  }
  if (st == GCB_OK && uses(p, TO_HOST)) {
    out->samples += p->words;
    out->wrong += mismatches(p, p->host[TO_HOST]);
  }
  out->max_error = out->wrong > 0 ? 1.0 : 0.0;
  return st;
}

/* One pair's buffers: the host side bound and maybe pinned, the device
 * side allocated; the destination starts as a fill byte, the source as the
 * pattern. */
static enum gcb_status pair_setup(struct cuda_pcie *p, int pair,
                                  struct gcb_err *err) {
  size_t len = (pair_bytes(p, pair) + 7) / 8 * 8, ref = p->words * 8;
  void *dev = NULL;
  enum gcb_status st;

  p->len[pair] = len; /* before the allocation, for host_free */
  st = host_alloc(p, len, &p->host[pair], err);

  if (st != GCB_OK || (st = CUDA_CHECK(err, cudaMalloc(&dev, len))) != GCB_OK)
    return st;
  p->dev[pair] = dev;
  /* Writing the host buffer first also places its pages (first touch). */
  /* The pattern fills the first case-sized part (all that is checked); an
   * interferer's second half is copied too but never compared. */
  if (pair == TO_DEV) {
    memset(p->host[pair], 0x3c, len);
    memcpy(p->host[pair], p->ref, ref);
    st = CUDA_CHECK(err, cudaMemset(dev, 0xa5, len));
  } else {
    memset(p->host[pair], 0x5a, len);
    st = CUDA_CHECK(err, cudaMemset(dev, 0x3c, len));
    if (st == GCB_OK)
      st =
          CUDA_CHECK(err, cudaMemcpy(dev, p->ref, ref, cudaMemcpyHostToDevice));
  }
  if (st == GCB_OK && p->pinned &&
      (st = CUDA_CHECK(err, cudaHostRegister(p->host[pair], len,
                                             cudaHostRegisterDefault))) ==
          GCB_OK)
    p->registered[pair] = true;
  return st;
}

enum gcb_status gcb__cuda_pcie(struct gcb_backend *b,
                               const struct gcb_pcie_params *prm,
                               struct gcb_op *op, struct gcb_err *err) {
  struct cuda_pcie *p;
  enum gcb_status st;

  memset(op, 0, sizeof *op);
  if ((unsigned)prm->direction >= GCB_PCIE_DIR_COUNT || prm->bytes == 0 ||
      prm->bytes > SIZE_MAX / 4)
    return gcb_err_set(err, GCB_EUSAGE,
                       "pcie: invalid direction %d or size %llu",
                       (int)prm->direction, (unsigned long long)prm->bytes);
  if ((st = gcb__cuda_use(b, err)) != GCB_OK ||
      (st = gcb__cuda_reserve(3 * prm->bytes, "pcie", err)) != GCB_OK)
    return st;
  if ((p = calloc(1, sizeof *p)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "pcie: no memory for state");
  *p = (struct cuda_pcie){.b = b,
                          .dir = prm->direction,
                          .pinned = prm->pinned,
                          .numa = prm->numa_node,
                          .bytes = (size_t)prm->bytes,
                          .words = (size_t)(prm->bytes + 7) / 8};
  p->ref = malloc(p->words * 8);
  p->readback = malloc(p->words * 8);
  if (p->ref == NULL || p->readback == NULL)
    st = gcb_err_set(err, GCB_ENOMEM,
                     "pcie: no host memory for the "
                     "%zu-byte reference",
                     p->words * 8);
  else
    gcb_fill_random(p->ref, p->words, prm->seed);
  for (int i = 0; i < PAIRS && st == GCB_OK; i++)
    if (uses(p, i))
      st = pair_setup(p, i, err);
  /* pair_setup's cudaMemset and pageable cudaMemcpy run on the legacy
   * stream and may return before they land (CUDA runtime API, "API
   * synchronization behavior"); the timed copies run on non-blocking
   * streams that do not wait for it. */
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaDeviceSynchronize());
  if (st != GCB_OK) {
    pcie_release(p);
    return st;
  }
  *op = (struct gcb_op){.state = p,
                        .run = pcie_run,
                        .check = pcie_check,
                        .release = pcie_release};
  return GCB_OK;
}
