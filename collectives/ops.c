/*
 * The table of collectives: what each operation moves, how nccl-tests
 * counts it, and where each received element comes from.
 *
 * Counts and bus factors follow NVIDIA/nccl-tests (src/<op>.cu, the
 * <Op>GetCollByteCount and <Op>GetBw functions), so that gcbench's size,
 * algbw and busbw columns read like nccl-tests' for the same run:
 *   size column = max(send, recv) * eltSize   (common.cu: TimeTest prints
 *                 max(sendBytes, expectedBytes), the same value as S)
 *   algbw       = S / t, S = getBw's count * typesize [* nranks]
 *   busbw       = algbw * factor
 * The newest nccl-tests rounds every per-rank block of allgather,
 * reducescatter, alltoall, gather and scatter down to 16 bytes ((count/nranks)
 * &
 * -(16/eltSize)); that is align_bytes, applied by gcb_coll_desc_counts().
 *
 * Point-to-point patterns pair rank i with i + n/2 (the second half of the
 * ranks answers the first, as OSU's multi-pair tests do); with an odd
 * number of ranks the last one sits out.
 */
#include <string.h>

#include "collectives/comm.h"
#include "collectives/data.h"

/* ---- counts -------------------------------------------------------------- */

/* Rows give `bytes` in elements: only gcb_coll_desc_counts() knows the
 * element size, and scales it. */

/* AllReduceGetCollByteCount (all_reduce.cu): count in, count out. The same
 * for BroadcastGetCollByteCount, ReduceGetCollByteCount and
 * SendRecvGetCollByteCount, and for one message of the point-to-point
 * patterns. */
static bool counts_whole(size_t count, int rank, int nranks, int root,
                         struct gcb_coll_counts *o) {
  (void)rank, (void)nranks, (void)root;
  *o = (struct gcb_coll_counts){
      .send = count, .recv = count, .param = count, .bytes = count};
  return count > 0;
}

/* AllGatherGetCollByteCount (all_gather.cu): send base, receive base *
 * nranks, in place the send block is block `rank` of the receive buffer.
 * AllGatherGetBw: S = count * typesize * nranks with count = base. */
static bool counts_allgather(size_t count, int rank, int nranks, int root,
                             struct gcb_coll_counts *o) {
  (void)root;
  size_t base = count / (size_t)nranks;
  *o = (struct gcb_coll_counts){.send = base,
                                .recv = base * (size_t)nranks,
                                .param = base,
                                .bytes = base * (size_t)nranks,
                                .inplace_offset = base * (size_t)rank};
  return base > 0;
}

/* ReduceScatterGetCollByteCount (reduce_scatter.cu): send base * nranks,
 * receive base; in place the result is block `rank` of the send buffer
 * (recvInplaceOffset = base). ReduceScatterGetBw: S = base * typesize *
 * nranks. */
static bool counts_reducescatter(size_t count, int rank, int nranks, int root,
                                 struct gcb_coll_counts *o) {
  (void)root;
  size_t base = count / (size_t)nranks;
  *o = (struct gcb_coll_counts){.send = base * (size_t)nranks,
                                .recv = base,
                                .param = base,
                                .bytes = base * (size_t)nranks,
                                .recv_inplace_offset = base * (size_t)rank};
  return base > 0;
}

/* AlltoAllGetCollByteCount (alltoall.cu): param = count/nranks per peer,
 * send = receive = param * nranks. AlltoAllGetBw: S = param * nranks *
 * typesize. */
static bool counts_alltoall(size_t count, int rank, int nranks, int root,
                            struct gcb_coll_counts *o) {
  (void)rank, (void)root;
  size_t per = count / (size_t)nranks;
  *o = (struct gcb_coll_counts){.send = per * (size_t)nranks,
                                .recv = per * (size_t)nranks,
                                .param = per,
                                .bytes = per * (size_t)nranks};
  return per > 0;
}

/* GatherGetCollByteCount (gather.cu) is AllGatherGetCollByteCount's
 * shape: send base = (count/nranks) & -(16/eltSize), receive base * nranks
 * on every rank (only the root's is written), in place the send block is
 * block `rank` of the receive buffer (sendInplaceOffset = base,
 * recvInplaceOffset = 0), param = base. GatherGetBw: S = base * nranks *
 * typesize. So gather's row takes counts_allgather. */

/* ScatterGetCollByteCount (scatter.cu) is ReduceScatterGetCollByteCount's
 * shape: receive base, send base * nranks (only the root's is read), in
 * place the received block is block `rank` of the send buffer
 * (sendInplaceOffset = 0, recvInplaceOffset = base), param = base.
 * ScatterGetBw: S = base * nranks * typesize. Scatter's row takes
 * counts_reducescatter. */

/* No data at all, whatever the size asked. */
static bool counts_none(size_t count, int rank, int nranks, int root,
                        struct gcb_coll_counts *o) {
  (void)count, (void)rank, (void)nranks, (void)root;
  *o = (struct gcb_coll_counts){0};
  return true;
}

bool gcb_coll_desc_counts(const struct gcb_coll_desc *d, size_t count,
                          enum gcb_coll_dtype t, int rank, int nranks, int root,
                          struct gcb_coll_counts *out) {
  size_t elt = gcb_coll_dtype_size(t);
  *out = (struct gcb_coll_counts){0};
  if (d == NULL || elt == 0 || nranks < 1 || rank < 0 || rank >= nranks ||
      (d->pairwise && nranks < 2))
    return false;
  if (d->align_bytes > elt) {
    /* nccl-tests: base = (count/nranks) & -(16/eltSize) */
    size_t unit = d->align_bytes / elt;
    count = count / (size_t)nranks / unit * unit * (size_t)nranks;
  }
  if (!d->counts(count, rank, nranks, root, out))
    return false;
  out->bytes *= elt;
  return true;
}

/* ---- bus factors (the <Op>GetBw functions) ------------------------------- */

/* AllReduceGetBw: 2(n-1)/n. (nccl-tests uses (n-1)/(n+1) instead when the
 * NCCL_ALGO environment variable names NVLS or NVLSTREE; gcbench keeps
 * the ring factor, which is what the column means everywhere else.) */
static double factor_allreduce(int n) {
  return 2.0 * (n - 1) / n;
}

/* AllGatherGetBw, ReduceScatterGetBw, AlltoAllGetBw, GatherGetBw,
 * ScatterGetBw: (n-1)/n. */
static double factor_gather(int n) {
  return (double)(n - 1) / n;
}

/* BroadcastGetBw, ReduceGetBw, SendRecvGetBw: 1. */
static double factor_one(int n) {
  (void)n;
  return 1;
}

/* ---- sources of received elements ---------------------------------------- */

static void from_rank(struct gcb_coll_source *s, int rank, size_t elem) {
  *s = (struct gcb_coll_source){
      .from = GCB_COLL_FROM_RANK, .rank = rank, .elem = elem};
}

static void from_all(struct gcb_coll_source *s, size_t elem) {
  *s = (struct gcb_coll_source){.from = GCB_COLL_FROM_ALL, .elem = elem};
}

static void from_none(struct gcb_coll_source *s) {
  *s = (struct gcb_coll_source){.from = GCB_COLL_FROM_NONE};
}

static void src_allreduce(const struct gcb_coll_counts *c, size_t j, int rank,
                          int nranks, int root, struct gcb_coll_source *s) {
  (void)c, (void)rank, (void)nranks, (void)root;
  from_all(s, j);
}

/* Block b of the result is rank b's send buffer. */
static void src_allgather(const struct gcb_coll_counts *c, size_t j, int rank,
                          int nranks, int root, struct gcb_coll_source *s) {
  (void)rank, (void)nranks, (void)root;
  from_rank(s, (int)(j / c->param), j % c->param);
}

/* Rank r holds block r of the reduction. */
static void src_reducescatter(const struct gcb_coll_counts *c, size_t j,
                              int rank, int nranks, int root,
                              struct gcb_coll_source *s) {
  (void)nranks, (void)root;
  from_all(s, (size_t)rank * c->param + j);
}

static void src_broadcast(const struct gcb_coll_counts *c, size_t j, int rank,
                          int nranks, int root, struct gcb_coll_source *s) {
  (void)c, (void)rank, (void)nranks;
  from_rank(s, root, j);
}

/* Only the root receives; the others' buffers must stay as they were
 * (nccl-tests checks them against a copy taken before the operation). */
static void src_reduce(const struct gcb_coll_counts *c, size_t j, int rank,
                       int nranks, int root, struct gcb_coll_source *s) {
  (void)c, (void)nranks;
  if (rank == root)
    from_all(s, j);
  else
    from_none(s);
}

/* Block b comes from rank b, which sent its block `rank`. */
static void src_alltoall(const struct gcb_coll_counts *c, size_t j, int rank,
                         int nranks, int root, struct gcb_coll_source *s) {
  (void)nranks, (void)root;
  from_rank(s, (int)(j / c->param), (size_t)rank * c->param + j % c->param);
}

/* The ring: every rank receives from rank - 1. */
static void src_sendrecv(const struct gcb_coll_counts *c, size_t j, int rank,
                         int nranks, int root, struct gcb_coll_source *s) {
  (void)c, (void)root;
  from_rank(s, (rank - 1 + nranks) % nranks, j);
}

/* Ping-pong, as osu_latency: out of place the responder answers from its
 * own send buffer, so each rank receives its partner's input; in place
 * (one buffer) it can only return what it received, so both end with the
 * initiator's input. */
static void src_latency(const struct gcb_coll_counts *c, size_t j, int rank,
                        int nranks, int root, struct gcb_coll_source *s) {
  (void)root;
  int partner = gcb__coll_partner(rank, nranks);
  if (partner < 0)
    from_none(s);
  else if (c->inplace)
    from_rank(s, rank < partner ? rank : partner, j);
  else
    from_rank(s, partner, j);
}

/* The window flows one way; the sender's receive buffer is untouched (the
 * acknowledgement carries no data). */
static void src_bandwidth(const struct gcb_coll_counts *c, size_t j, int rank,
                          int nranks, int root, struct gcb_coll_source *s) {
  (void)c, (void)root;
  int partner = gcb__coll_partner(rank, nranks);
  if (partner < 0 || rank < partner)
    from_none(s);
  else
    from_rank(s, partner, j);
}

/* The root's block b is rank b's send buffer; the other ranks' receive
 * buffers must stay as they were (nccl-tests' GatherInitData: their
 * expected buffer is a copy of the receive buffer before the operation). */
static void src_gather(const struct gcb_coll_counts *c, size_t j, int rank,
                       int nranks, int root, struct gcb_coll_source *s) {
  (void)nranks;
  if (rank == root)
    from_rank(s, (int)(j / c->param), j % c->param);
  else
    from_none(s);
}

/* Rank r receives block r of the root's send buffer (ScatterInitData:
 * expected = the root's input from element rank * recvcount on). */
static void src_scatter(const struct gcb_coll_counts *c, size_t j, int rank,
                        int nranks, int root, struct gcb_coll_source *s) {
  (void)nranks;
  from_rank(s, root, (size_t)rank * c->param + j);
}

static void src_none(const struct gcb_coll_counts *c, size_t j, int rank,
                     int nranks, int root, struct gcb_coll_source *s) {
  (void)c, (void)j, (void)rank, (void)nranks, (void)root;
  from_none(s);
}

int gcb__coll_partner(int rank, int nranks) {
  int half = nranks / 2;
  if (rank < half)
    return rank + half;
  if (rank < 2 * half)
    return rank - half;
  return -1;
}

/* ---- the table ----------------------------------------------------------- */

/* osu_bw's default window: messages in flight before the acknowledgement. */
enum { OSU_WINDOW = 64 };

static const struct gcb_coll_desc desc_allreduce = {.name = "allreduce",
                                                    .op = GCB_COLLOP_ALLREDUCE,
                                                    .reduces = true,
                                                    .counts = counts_whole,
                                                    .bus_factor =
                                                        factor_allreduce,
                                                    .time_scale = 1,
                                                    .source = src_allreduce};

static const struct gcb_coll_desc desc_allgather = {.name = "allgather",
                                                    .op = GCB_COLLOP_ALLGATHER,
                                                    .align_bytes = 16,
                                                    .counts = counts_allgather,
                                                    .bus_factor = factor_gather,
                                                    .time_scale = 1,
                                                    .source = src_allgather};

static const struct gcb_coll_desc desc_reducescatter = {
    .name = "reducescatter",
    .op = GCB_COLLOP_REDUCESCATTER,
    .reduces = true,
    .align_bytes = 16,
    .counts = counts_reducescatter,
    .bus_factor = factor_gather,
    .time_scale = 1,
    .source = src_reducescatter};

static const struct gcb_coll_desc desc_broadcast = {.name = "broadcast",
                                                    .op = GCB_COLLOP_BROADCAST,
                                                    .rooted = true,
                                                    .counts = counts_whole,
                                                    .bus_factor = factor_one,
                                                    .time_scale = 1,
                                                    .source = src_broadcast};

static const struct gcb_coll_desc desc_reduce = {.name = "reduce",
                                                 .op = GCB_COLLOP_REDUCE,
                                                 .reduces = true,
                                                 .rooted = true,
                                                 .counts = counts_whole,
                                                 .bus_factor = factor_one,
                                                 .time_scale = 1,
                                                 .source = src_reduce};

static const struct gcb_coll_desc desc_alltoall = {.name = "alltoall",
                                                   .op = GCB_COLLOP_ALLTOALL,
                                                   .align_bytes = 16,
                                                   .counts = counts_alltoall,
                                                   .bus_factor = factor_gather,
                                                   .time_scale = 1,
                                                   .source = src_alltoall};

static const struct gcb_coll_desc desc_sendrecv = {.name = "sendrecv",
                                                   .op = GCB_COLLOP_SENDRECV,
                                                   .counts = counts_whole,
                                                   .bus_factor = factor_one,
                                                   .time_scale = 1,
                                                   .source = src_sendrecv};

/* One operation is a round trip; osu_latency reports half of it (its
 * elapsed time / (2 iterations)). */
static const struct gcb_coll_desc desc_latency = {.name = "latency",
                                                  .op = GCB_COLLOP_LATENCY,
                                                  .pairwise = true,
                                                  .counts = counts_whole,
                                                  .bus_factor = factor_one,
                                                  .time_scale = 0.5,
                                                  .source = src_latency};

/* One operation is a window of messages and its acknowledgement; per
 * message time and osu_bw's bandwidth (window * size / time) follow from
 * time_scale = 1 / window. */
static const struct gcb_coll_desc desc_bandwidth = {.name = "bandwidth",
                                                    .op = GCB_COLLOP_BANDWIDTH,
                                                    .pairwise = true,
                                                    .window = OSU_WINDOW,
                                                    .counts = counts_whole,
                                                    .bus_factor = factor_one,
                                                    .time_scale =
                                                        1.0 / OSU_WINDOW,
                                                    .source = src_bandwidth};

static const struct gcb_coll_desc desc_barrier = {.name = "barrier",
                                                  .op = GCB_COLLOP_BARRIER,
                                                  .counts = counts_none,
                                                  .bus_factor = factor_one,
                                                  .time_scale = 1,
                                                  .source = src_none};

/* nccl-tests' gather_perf and scatter_perf (src/gather.cu, scatter.cu):
 * rooted (-r, root 0 by default; nccl-tests' -r -1, every root in turn,
 * is not taken), no reduction, 16-byte blocks, bus factor (n-1)/n. */
static const struct gcb_coll_desc desc_gather = {.name = "gather",
                                                 .op = GCB_COLLOP_GATHER,
                                                 .rooted = true,
                                                 .align_bytes = 16,
                                                 .counts = counts_allgather,
                                                 .bus_factor = factor_gather,
                                                 .time_scale = 1,
                                                 .source = src_gather};

static const struct gcb_coll_desc desc_scatter = {.name = "scatter",
                                                  .op = GCB_COLLOP_SCATTER,
                                                  .rooted = true,
                                                  .align_bytes = 16,
                                                  .counts =
                                                      counts_reducescatter,
                                                  .bus_factor = factor_gather,
                                                  .time_scale = 1,
                                                  .source = src_scatter};

const struct gcb_coll_desc *const gcb_coll_descs[] = {&desc_allreduce,
                                                      &desc_allgather,
                                                      &desc_reducescatter,
                                                      &desc_broadcast,
                                                      &desc_reduce,
                                                      &desc_alltoall,
                                                      &desc_sendrecv,
                                                      &desc_latency,
                                                      &desc_bandwidth,
                                                      &desc_barrier,
                                                      &desc_gather,
                                                      &desc_scatter,
                                                      NULL};

const struct gcb_coll_desc *gcb_coll_find(const char *name) {
  for (int i = 0; name != NULL && gcb_coll_descs[i] != NULL; i++)
    if (strcmp(gcb_coll_descs[i]->name, name) == 0)
      return gcb_coll_descs[i];
  return NULL;
}
