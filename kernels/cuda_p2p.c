/*
 * Peer-to-peer copies between two GPUs of a node on the CUDA backend.
 *
 * Each GPU of a pair holds a buffer of two halves: the first half is
 * written by copies into that GPU, the second holds a random pattern that
 * copies out of it read. UNI copies the source's pattern into the peer's
 * written half; BIDIR also copies the peer's pattern into the source's
 * written half at the same time; validation compares written halves with
 * the patterns. The peer's buffer is allocated here when this process sees
 * both GPUs, or opened from another process's export (CUDA IPC,
 * cudaIpcOpenMemHandle with cudaIpcMemLazyEnablePeerAccess) otherwise.
 *
 * Modes: CE (cudaMemcpyAsync between the two GPUs' memory: the copy engine,
 * over NVLink or PCIe with peer access enabled), SM (a copy kernel with
 * 16-byte accesses running on the source GPU, storing to or loading from
 * peer memory), STAGED (device to pinned host, then host to device on the
 * peer: the path without peer access, for comparison; pairs in one process
 * only). Work is gated so that enqueue cost stays out of the events; BIDIR
 * runs one direction per stream at once, each driven from its source GPU's
 * context where this process has both (as nvbandwidth), from the source's
 * when the peer is another process's, and counts the bytes of both (the
 * total: the second stream joined back before the stop event); BIDIR_LEG
 * runs the same two copies but times the first alone, the second stream
 * left to run beside it and drained after the stop event (nvbandwidth's
 * per-direction figures, each on its own events: memcpy.cpp VECTOR_BW;
 * the lanes' roles are gcb_p2p_lane_role, cuda_pure.c). LATENCY is 16 small
 * copies per sample (CE, STAGED: nvbandwidth's loopCount, so the event timer's
 * tick is spread) or, SM, a pointer chase: one thread following a chain of
 * indices in the peer's memory, each load depending on the previous one,
 * CHASE_BATCH loads per timed run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cuda_impl.h"
#include "kernels/cuda_kernels.h"
#include "kernels/cuda_pure.h"

#define MIN_REGION ((uint64_t)1 << 20) /* room for the latency chain */
#define CHASE_BATCH 4096
#define CHASE_STRIDE 513 /* words: 4 KiB + 8 apart, odd, so it visits all */

/* Bytes of one half: the case's bytes, at least MIN_REGION, 256-aligned so
 * that the second half suits 16-byte accesses. Exporter and importer agree
 * on it because both compute it here. */
static uint64_t region_of(uint64_t bytes) {
  uint64_t r = bytes > MIN_REGION ? bytes : MIN_REGION;
  return (r + 255) / 256 * 256;
}

/* A stream with its join event, on one device. */
struct lane {
  int device;
  cudaStream_t stream;
  cudaEvent_t done;
};

enum {
  L_SRC = GCB_P2P_LANE_SRC,
  L_SRC2 = GCB_P2P_LANE_SRC2,
  L_DST = GCB_P2P_LANE_DST,
  L_DST2 = GCB_P2P_LANE_DST2,
  LANES = GCB_P2P_LANES
};

struct cuda_p2p {
  struct gcb_backend *b;
  enum gcb_p2p_mode mode;
  enum gcb_p2p_dir dir;
  size_t bytes, region;
  uint64_t seed, peer_seed;
  int src, dst;         /* dst -1: remote (IPC) */
  char *mine, *peer;    /* the two buffers: [written | pattern] */
  bool peer_ipc;        /* peer opened from a handle, not allocated */
  char *staging;        /* pinned host, 2 regions (STAGED) */
  uint64_t *chase_out;  /* device word on src (SM latency) */
  uint64_t chase_steps; /* steps of the last chase run */
  unsigned int blocks;
  struct lane lane[LANES];
  cudaEvent_t start, stop, staged[2];
};

static bool remote(const struct cuda_p2p *p) {
  return p->dst < 0;
}

/* ---- lifetime -------------------------------------------------------------
 */

static void lane_free(struct lane *l) {
  if (l->stream == NULL)
    return;
  (void)cudaSetDevice(l->device);
  if (l->done != NULL)
    (void)cudaEventDestroy(l->done);
  (void)cudaStreamDestroy(l->stream);
}

static void p2p_release(void *state) {
  struct cuda_p2p *p = state;

  if (p == NULL)
    return;
  for (int i = 0; i < LANES; i++)
    lane_free(&p->lane[i]);
  (void)cudaSetDevice(p->src);
  if (p->start != NULL)
    (void)cudaEventDestroy(p->start);
  if (p->stop != NULL)
    (void)cudaEventDestroy(p->stop);
  for (int i = 0; i < 2; i++)
    if (p->staged[i] != NULL)
      (void)cudaEventDestroy(p->staged[i]);
  if (p->mine != NULL)
    (void)cudaFree(p->mine);
  if (p->chase_out != NULL)
    (void)cudaFree(p->chase_out);
  if (p->peer != NULL && p->peer_ipc)
    (void)cudaIpcCloseMemHandle(p->peer);
  if (p->peer != NULL && !p->peer_ipc) {
    (void)cudaSetDevice(p->dst);
    (void)cudaFree(p->peer);
  }
  if (p->staging != NULL)
    (void)cudaFreeHost(p->staging);
  (void)cudaSetDevice(p->b->device);
  free(p);
}

static enum gcb_status lane_make(struct lane *l, int device,
                                 struct gcb_err *err) {
  enum gcb_status st;

  l->device = device;
  if ((st = CUDA_CHECK(err, cudaSetDevice(device))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaStreamCreateWithFlags(
                                &l->stream, cudaStreamNonBlocking))) != GCB_OK)
    return st;
  return CUDA_CHECK(err, cudaEventCreate(&l->done));
}

/* A 2-region buffer on `device`, its second region holding the pattern. */
static enum gcb_status buffer_make(int device, size_t region, uint64_t seed,
                                   char **out, struct gcb_err *err) {
  size_t words = region / 8;
  double *pattern = malloc(region);
  void *buf = NULL;
  enum gcb_status st;

  if (pattern == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "p2p: no host memory for a pattern");
  gcb_fill_random(pattern, words, seed);
  if ((st = CUDA_CHECK(err, cudaSetDevice(device))) == GCB_OK &&
      (st = gcb__cuda_reserve(2 * region, "p2p buffer", err)) == GCB_OK &&
      (st = CUDA_CHECK(err, cudaMalloc(&buf, 2 * region))) == GCB_OK) {
    *out = buf;
    if ((st = CUDA_CHECK(err, cudaMemset(buf, 0xa5, region))) == GCB_OK)
      st = CUDA_CHECK(err, cudaMemcpy((char *)buf + region, pattern, region,
                                      cudaMemcpyHostToDevice));
    /* Both may return before they land (CUDA runtime API, "API
     * synchronization behavior": memset, and pageable host to device), and
     * the copies run on non-blocking streams (or in another process) that
     * do not wait for the legacy stream. */
    if (st == GCB_OK)
      st = CUDA_CHECK(err, cudaDeviceSynchronize());
  }
  free(pattern);
  return st;
}

/* ---- export (the peer process's side) -------------------------------------
 */

struct export_holder {
  int device;
  void *buf;
};

static void export_release(void *state) {
  struct export_holder *h = state;

  if (h == NULL)
    return;
  (void)cudaSetDevice(h->device);
  (void)cudaFree(h->buf);
  free(h);
}

enum gcb_status gcb__cuda_p2p_export(struct gcb_backend *b, int ordinal,
                                     uint64_t bytes, uint64_t seed,
                                     struct gcb_ipc_buffer *out,
                                     struct gcb_op *holder,
                                     struct gcb_err *err) {
  struct export_holder *h = calloc(1, sizeof *h);
  cudaIpcMemHandle_t handle;
  char *buf = NULL;
  size_t region = (size_t)region_of(bytes);
  enum gcb_status st;

  memset(holder, 0, sizeof *holder);
  memset(out, 0, sizeof *out);
  if (h == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "p2p export: out of memory");
  h->device = ordinal;
  st = buffer_make(ordinal, region, seed, &buf, err);
  h->buf = buf;
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaIpcGetMemHandle(&handle, buf));
  if (st == GCB_OK)
    st = gcb__cuda_bus_id(ordinal, out->bus_id, sizeof out->bus_id, err);
  (void)cudaSetDevice(b->device);
  if (st != GCB_OK) {
    export_release(h);
    return st;
  }
  /* cudaIpcMemHandle_t is 64 opaque bytes (CUDA_IPC_HANDLE_SIZE). */
  _Static_assert(sizeof handle == GCB_IPC_HANDLE_BYTES, "IPC handle size");
  memcpy(out->handle, &handle, sizeof handle);
  out->bytes = 2 * region;
  out->seed = seed;
  *holder = (struct gcb_op){.state = h, .release = export_release};
  return GCB_OK;
}

/* ---- peer access ------------------------------------------------------------
 */

/* Lets `src` load and store `dst`'s memory; already enabled is fine. */
static enum gcb_status peer_access(int src, int dst, struct gcb_err *err) {
  int can = 0;
  cudaError_t rc;
  enum gcb_status st;

  if ((st = CUDA_CHECK(err, cudaDeviceCanAccessPeer(&can, src, dst))) != GCB_OK)
    return st;
  if (!can)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "GPU %d cannot access GPU %d as a peer "
                       "(cudaDeviceCanAccessPeer: no P2P path)",
                       src, dst);
  if ((st = CUDA_CHECK(err, cudaSetDevice(src))) != GCB_OK)
    return st;
  rc = cudaDeviceEnablePeerAccess(dst, 0);
  if (rc == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();
    return GCB_OK;
  }
  return gcb__cuda_check(err, rc, "cudaDeviceEnablePeerAccess(dst, 0)");
}

/* The peer's buffer: allocated on a local dst, or mapped from its export. */
static enum gcb_status peer_open(struct cuda_p2p *p,
                                 const struct gcb_ipc_buffer *r,
                                 struct gcb_err *err) {
  cudaIpcMemHandle_t handle;
  void *ptr = NULL;
  enum gcb_status st;

  if (!remote(p))
    return buffer_make(p->dst, p->region, p->peer_seed, &p->peer, err);
  if (r->bytes != 2 * p->region)
    return gcb_err_set(err, GCB_EINTERNAL,
                       "p2p: exported buffer of %llu bytes, %zu expected",
                       (unsigned long long)r->bytes, 2 * p->region);
  memcpy(&handle, r->handle, sizeof handle);
  if ((st = CUDA_CHECK(err, cudaSetDevice(p->src))) != GCB_OK)
    return st;
  st = CUDA_CHECK(
      err, cudaIpcOpenMemHandle(&ptr, handle, cudaIpcMemLazyEnablePeerAccess));
  if (st != GCB_OK) {
    /* No peer path between the processes' GPUs is a skip, not a failure. */
    st = GCB_EUNSUPPORTED;
    gcb_err_prefix(err, "GPU %d cannot map GPU %s's memory", p->src, r->bus_id);
    err->code = st;
    return st;
  }
  p->peer = ptr;
  p->peer_ipc = true;
  return GCB_OK;
}

/* ---- the copies ------------------------------------------------------------
 */

/* The two legs: [0] mine -> peer, [1] peer -> mine (bidirectional). */
static char *leg_from(const struct cuda_p2p *p, int leg) {
  return (leg == 0 ? p->mine : p->peer) + p->region;
}

static char *leg_to(const struct cuda_p2p *p, int leg) {
  return leg == 0 ? p->peer : p->mine;
}

static enum gcb_status copy_leg(const struct cuda_p2p *p, int leg,
                                struct gcb_err *err) {
  const struct lane *l = &p->lane[leg == 0 ? L_SRC : L_SRC2];
  char *from = leg_from(p, leg), *to = leg_to(p, leg);

  enum gcb_status st = GCB_OK;
  if (p->mode != GCB_P2P_STAGED) {
    if (l->device != p->src)
      st = CUDA_CHECK(err, cudaSetDevice(l->device));
    if (st == GCB_OK && p->mode == GCB_P2P_CE)
      st = CUDA_CHECK(err, cudaMemcpyAsync(to, from, p->bytes,
                                           cudaMemcpyDefault, l->stream));
    else if (st == GCB_OK)
      st = gcb__cuda_launched(
          err, gcb__cuda_copy16(to, from, p->bytes, p->blocks, l->stream),
          "p2p copy kernel launch");
    if (l->device != p->src) {
      cudaError_t rc = cudaSetDevice(p->src);
      if (st == GCB_OK)
        st = gcb__cuda_check(err, rc, "cudaSetDevice(src)");
    }
    return st;
  }
  /* Staged: down on the leg's source GPU, up on its destination GPU; each
   * device's streams and events are used with that device current. */
  const struct lane *down = &p->lane[leg == 0 ? L_SRC : L_DST2];
  const struct lane *up = &p->lane[leg == 0 ? L_DST : L_SRC2];
  char *host = p->staging + (size_t)leg * p->region;
  if ((st = CUDA_CHECK(err, cudaSetDevice(down->device))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaMemcpyAsync(host, from, p->bytes,
                                            cudaMemcpyDeviceToHost,
                                            down->stream))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaEventRecord(p->staged[leg], down->stream))) !=
          GCB_OK ||
      (st = CUDA_CHECK(err, cudaSetDevice(up->device))) != GCB_OK ||
      (st = CUDA_CHECK(
           err, cudaStreamWaitEvent(up->stream, p->staged[leg], 0))) != GCB_OK)
    return st;
  st = CUDA_CHECK(err, cudaMemcpyAsync(to, host, p->bytes,
                                       cudaMemcpyHostToDevice, up->stream));
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaSetDevice(p->src));
  return st;
}

/* Copies per timed sample: 16 for copy latency (nvbandwidth's loopCount,
 * so one event tick is spread over 16 copies), 1 otherwise (the chase
 * times CHASE_BATCH dependent loads itself). */
static int per_sample(const struct cuda_p2p *p) {
  bool chase = p->mode == GCB_P2P_SM && p->dir == GCB_P2P_DIR_LATENCY;
  return p->dir == GCB_P2P_DIR_LATENCY && !chase ? GCB__CUDA_COPIES_PER_SAMPLE
                                                 : 1;
}

static enum gcb_status enqueue(const struct cuda_p2p *p, int reps,
                               struct gcb_err *err) {
  enum gcb_status st = GCB_OK;

  if (p->mode == GCB_P2P_SM && p->dir == GCB_P2P_DIR_LATENCY)
    return gcb__cuda_launched(
        err,
        gcb__cuda_chase_launch((const uint64_t *)leg_from(p, 1),
                               (uint64_t)reps * CHASE_BATCH, p->chase_out,
                               p->lane[L_SRC].stream),
        "pointer chase kernel launch");
  for (long r = 0; r < (long)reps * per_sample(p) && st == GCB_OK; r++) {
    st = copy_leg(p, 0, err);
    if (st == GCB_OK && gcb_p2p_legs(p->dir) == 2)
      st = copy_leg(p, 1, err);
  }
  return st;
}

static enum gcb_p2p_lane_role role(const struct cuda_p2p *p, int lane) {
  return gcb_p2p_lane_role(p->mode, p->dir, lane);
}

/* Lanes other than L_SRC that this case uses. */
static bool lane_used(const struct cuda_p2p *p, int i) {
  return i != L_SRC && role(p, i) != GCB_P2P_UNUSED;
}

/* Every other lane starts behind `start` (and so behind the gate); the
 * timed ones end joined back into L_SRC before `stop`, the ones beside
 * the timed leg are not joined (drain_beside waits for them). */
static enum gcb_status fork_join(struct cuda_p2p *p, bool join,
                                 struct gcb_err *err) {
  const struct lane *src = &p->lane[L_SRC];
  enum gcb_status st = GCB_OK;

  for (int i = L_SRC2; i < LANES && st == GCB_OK; i++) {
    const struct lane *l = &p->lane[i];
    if (!lane_used(p, i))
      continue;
    if ((st = CUDA_CHECK(err, cudaSetDevice(l->device))) != GCB_OK)
      break;
    if (!join) {
      st = CUDA_CHECK(err, cudaStreamWaitEvent(l->stream, p->start, 0));
      continue;
    }
    if (role(p, i) != GCB_P2P_TIMED)
      continue;
    if ((st = CUDA_CHECK(err, cudaEventRecord(l->done, l->stream))) == GCB_OK &&
        (st = CUDA_CHECK(err, cudaSetDevice(src->device))) == GCB_OK)
      st = CUDA_CHECK(err, cudaStreamWaitEvent(src->stream, l->done, 0));
  }
  if (st == GCB_OK)
    st = CUDA_CHECK(err, cudaSetDevice(src->device));
  return st;
}

/* After a failure inside the gated section: every lane's stream is waited
 * for (errors ignored: the first failure is the one reported), so nothing
 * of this sample is still queued when the caller frees or reuses buffers,
 * and the gate's flag is not closed again under a kernel still spinning. */
static void drain(const struct cuda_p2p *p) {
  for (int i = 0; i < LANES; i++) {
    const struct lane *l = &p->lane[i];
    if (l->stream == NULL)
      continue;
    (void)cudaSetDevice(l->device);
    (void)cudaStreamSynchronize(l->stream);
  }
  (void)cudaGetLastError();
  (void)cudaSetDevice(p->src);
}

/* After the stop event: the lanes that ran beside the timed leg finish
 * before the sample ends, so the next one starts on idle streams. */
static enum gcb_status drain_beside(const struct cuda_p2p *p,
                                    struct gcb_err *err) {
  enum gcb_status st = GCB_OK;
  for (int i = L_SRC2; i < LANES && st == GCB_OK; i++) {
    const struct lane *l = &p->lane[i];
    if (role(p, i) != GCB_P2P_BESIDE)
      continue;
    if ((st = CUDA_CHECK(err, cudaSetDevice(l->device))) == GCB_OK)
      st = CUDA_CHECK(err, cudaStreamSynchronize(l->stream));
  }
  return st;
}

static enum gcb_status p2p_run(void *state, int reps, double *seconds,
                               struct gcb_err *err) {
  struct cuda_p2p *p = state;
  struct gcb_backend *b = p->b;
  cudaStream_t s = p->lane[L_SRC].stream;
  float ms = 0.0f;
  enum gcb_status st = CUDA_CHECK(err, cudaSetDevice(p->src));

  if (st != GCB_OK)
    return st;
  *b->gate = 0;
  if ((st = gcb__cuda_launched(
           err,
           gcb__cuda_gate_launch(b->gate_dev, GCB__CUDA_GATE_TIMEOUT_MS, s),
           "gate kernel launch")) == GCB_OK &&
      (st = CUDA_CHECK(err, cudaEventRecord(p->start, s))) == GCB_OK &&
      (st = fork_join(p, false, err)) == GCB_OK &&
      (st = enqueue(p, reps, err)) == GCB_OK &&
      (st = fork_join(p, true, err)) == GCB_OK)
    st = CUDA_CHECK(err, cudaEventRecord(p->stop, s));
  __sync_synchronize();
  *b->gate = 1; /* open the gate whatever happened */
  __sync_synchronize();
  if (st != GCB_OK) {
    drain(p); /* what was enqueued before the failure runs out first */
    (void)cudaSetDevice(b->device);
    return st;
  }
  if ((st = CUDA_CHECK(err, cudaEventSynchronize(p->stop))) == GCB_OK &&
      (st = CUDA_CHECK(err, cudaEventElapsedTime(&ms, p->start, p->stop))) ==
          GCB_OK &&
      (st = drain_beside(p, err)) == GCB_OK) {
    bool chase = p->mode == GCB_P2P_SM && p->dir == GCB_P2P_DIR_LATENCY;
    *seconds = (double)ms * 1e-3 / (chase ? CHASE_BATCH : per_sample(p));
    p->chase_steps = (uint64_t)reps * CHASE_BATCH;
  }
  (void)cudaSetDevice(b->device);
  return st;
}

/* ---- validation ------------------------------------------------------------
 */

/* Words of a leg's first `bytes` written bytes that differ from the
 * pattern drawn from seed. */
static enum gcb_status compare_leg(const struct cuda_p2p *p, int leg,
                                   uint64_t seed, struct gcb_check *out,
                                   struct gcb_err *err) {
  size_t words = (p->bytes + 7) / 8;
  double *want = malloc(words * 8);
  char *got = malloc(words * 8);
  enum gcb_status st = GCB_OK;

  if (want == NULL || got == NULL)
    st = gcb_err_set(err, GCB_ENOMEM, "p2p check: out of memory");
  else
    st = CUDA_CHECK(
        err, cudaMemcpy(got, leg_to(p, leg), p->bytes, cudaMemcpyDefault));
  if (st == GCB_OK) {
    gcb_fill_random(want, words, seed);
    for (size_t at = 0; at < p->bytes; at += 8) {
      size_t n = p->bytes - at < 8 ? p->bytes - at : 8;
      out->wrong += memcmp(got + at, (const char *)want + at, n) != 0;
    }
    out->samples += words;
  }
  free(want);
  free(got);
  return st;
}

static enum gcb_status p2p_check(void *state, struct gcb_check *out,
                                 struct gcb_err *err) {
  struct cuda_p2p *p = state;
  enum gcb_status st = CUDA_CHECK(err, cudaSetDevice(p->src));
  uint64_t last = 0, links = p->region / 8;

  *out = (struct gcb_check){.checked = true,
                            .method = "every 8-byte word written vs the "
                                      "random source pattern"};
  if (st == GCB_OK && p->mode == GCB_P2P_SM && p->dir == GCB_P2P_DIR_LATENCY) {
    out->method = "pointer chase ends at the index the chain predicts";
    st = CUDA_CHECK(err, cudaMemcpy(&last, p->chase_out, sizeof last,
                                    cudaMemcpyDeviceToHost));
    out->samples = 1;
    out->wrong =
        st == GCB_OK && last != (p->chase_steps * CHASE_STRIDE) % links;
  } else if (st == GCB_OK) {
    st = compare_leg(p, 0, p->seed, out, err);
    if (st == GCB_OK && gcb_p2p_legs(p->dir) == 2)
      st = compare_leg(p, 1, p->peer_seed, out, err);
  }
  out->max_error = out->wrong > 0 ? 1.0 : 0.0;
  (void)cudaSetDevice(p->b->device);
  return st;
}

/* ---- setup ------------------------------------------------------------------
 */

static enum gcb_status p2p_validate(const struct gcb_backend *b,
                                    const struct gcb_p2p_params *q,
                                    struct gcb_err *err) {
  if ((unsigned)q->mode >= GCB_P2P_MODE_COUNT ||
      (unsigned)q->direction >= GCB_P2P_DIR_COUNT || q->bytes == 0 ||
      q->bytes > SIZE_MAX / 8)
    return gcb_err_set(err, GCB_EUSAGE,
                       "p2p: invalid mode, direction or "
                       "size");
  if (q->src < 0 || q->src >= b->device_count ||
      (q->remote == NULL &&
       (q->dst < 0 || q->dst >= b->device_count || q->dst == q->src)))
    return gcb_err_set(err, GCB_EUSAGE, "p2p: invalid GPU pair %d -> %d",
                       q->src, q->dst);
  if (q->remote != NULL && q->mode == GCB_P2P_STAGED)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "staged copies between processes are not measured "
                       "(a process copies only to and from its own GPUs)");
  return GCB_OK;
}

/* The chain the pointer chase follows, in the peer's pattern half. */
static enum gcb_status chase_setup(struct cuda_p2p *p, struct gcb_err *err) {
  uint64_t links = p->region / 8;
  uint64_t *chain = malloc(p->region);
  void *out = NULL;
  enum gcb_status st = GCB_OK;

  if (chain == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "p2p: no memory for the chain");
  for (uint64_t i = 0; i < links; i++)
    chain[i] = (i + CHASE_STRIDE) % links;
  if ((st = CUDA_CHECK(err, cudaSetDevice(p->src))) == GCB_OK &&
      (st = CUDA_CHECK(err, cudaMemcpy(leg_from(p, 1), chain, p->region,
                                       cudaMemcpyDefault))) == GCB_OK &&
      /* pageable to device may return before the DMA lands (as above) */
      (st = CUDA_CHECK(err, cudaDeviceSynchronize())) == GCB_OK &&
      (st = CUDA_CHECK(err, cudaMalloc(&out, sizeof(uint64_t)))) == GCB_OK)
    p->chase_out = out;
  free(chain);
  return st;
}

/* The device a lane's stream belongs to. The second leg of a bidirectional
 * copy is driven from the peer's own context where this process has it
 * (nvbandwidth runs each direction from its source GPU), from the source's
 * when the peer is another process's (CUDA IPC). */
static int lane_device(const struct cuda_p2p *p, int lane) {
  switch (lane) {
  case L_SRC2:
    return remote(p) ? p->src : p->dst;
  case L_DST:
  case L_DST2:
    return p->dst;
  default:
    return p->src;
  }
}

/* Streams, events, staging memory and grid, once the buffers exist. */
static enum gcb_status p2p_resources(struct cuda_p2p *p, struct gcb_err *err) {
  void *host = NULL;
  enum gcb_status st = lane_make(&p->lane[L_SRC], p->src, err);

  for (int i = L_SRC2; i < LANES && st == GCB_OK; i++)
    if (lane_used(p, i))
      st = lane_make(&p->lane[i], lane_device(p, i), err);
  if (st != GCB_OK || (st = CUDA_CHECK(err, cudaSetDevice(p->src))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaEventCreate(&p->start))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaEventCreate(&p->stop))) != GCB_OK)
    return st;
  if (p->mode == GCB_P2P_SM)
    st = gcb__cuda_launched(err, gcb__cuda_copy16_blocks(p->bytes, &p->blocks),
                            "grid size query");
  if (st == GCB_OK && p->mode == GCB_P2P_SM && p->dir == GCB_P2P_DIR_LATENCY)
    st = chase_setup(p, err);
  if (st != GCB_OK || p->mode != GCB_P2P_STAGED)
    return st;
  /* Each staged leg's event lives on the device that records it. */
  if ((st = CUDA_CHECK(err, cudaEventCreate(&p->staged[0]))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaSetDevice(p->dst))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaEventCreate(&p->staged[1]))) != GCB_OK ||
      (st = CUDA_CHECK(err, cudaHostAlloc(&host, 2 * p->region,
                                          cudaHostAllocPortable))) != GCB_OK)
    return st;
  p->staging = host;
  return GCB_OK;
}

enum gcb_status gcb__cuda_p2p(struct gcb_backend *b,
                              const struct gcb_p2p_params *q, struct gcb_op *op,
                              struct gcb_err *err) {
  struct cuda_p2p *p;
  enum gcb_status st;

  memset(op, 0, sizeof *op);
  if ((st = p2p_validate(b, q, err)) != GCB_OK)
    return st;
  if ((p = calloc(1, sizeof *p)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "p2p: no memory for state");
  *p = (struct cuda_p2p){
      .b = b,
      .mode = q->mode,
      .dir = q->direction,
      .bytes = (size_t)q->bytes,
      .region = (size_t)region_of(q->bytes),
      .seed = q->seed,
      .src = q->src,
      .dst = q->remote ? -1 : q->dst,
      .peer_seed =
          q->remote ? q->remote->seed : q->seed ^ UINT64_C(0x9e3779b97f4a7c15)};
  if (!remote(p) && p->mode != GCB_P2P_STAGED)
    st = peer_access(p->src, p->dst, err);
  if (st == GCB_OK)
    st = buffer_make(p->src, p->region, p->seed, &p->mine, err);
  if (st == GCB_OK)
    st = peer_open(p, q->remote, err);
  if (st == GCB_OK)
    st = p2p_resources(p, err);
  (void)cudaSetDevice(b->device);
  if (st != GCB_OK) {
    p2p_release(p);
    return st;
  }
  *op = (struct gcb_op){
      .state = p, .run = p2p_run, .check = p2p_check, .release = p2p_release};
  return GCB_OK;
}
