/*
 * Tests of the collectives table: registry conformance, nccl-tests' byte
 * counts and bus factors for 1..8 ranks, the newest nccl-tests' 16-byte
 * rounding of per-rank blocks, in-place offsets, the sources of received
 * elements, and the transport registry.
 *
 * Expected values are written out by hand from nccl-tests (src/<op>.cu,
 * <Op>GetCollByteCount and <Op>GetBw), not computed with the code under
 * test: a literal table for chosen cases, and independent formulas for
 * the sweep over rank counts.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "collectives/comm.h"
#include "collectives/data.h"

static const struct gcb_coll_desc *find(const char *name) {
  const struct gcb_coll_desc *d = gcb_coll_find(name);
  cr_assert_not_null(d, "no collective %s", name);
  return d;
}

static struct gcb_coll_counts counts(const char *op, size_t count,
                                     enum gcb_coll_dtype t, int rank, int n) {
  struct gcb_coll_counts c;
  cr_assert(gcb_coll_desc_counts(find(op), count, t, rank, n, 0, &c),
            "%s count %zu n %d", op, count, n);
  return c;
}

/* ---- registry ------------------------------------------------------------ */

Test(coll_ops, registry_is_well_formed) {
  static const char *const names[] = {"allreduce", "allgather", "reducescatter",
                                      "broadcast", "reduce",    "alltoall",
                                      "sendrecv",  "latency",   "bandwidth",
                                      "barrier",   "gather",    "scatter"};
  int n = 0;
  for (; gcb_coll_descs[n] != NULL; n++) {
    const struct gcb_coll_desc *d = gcb_coll_descs[n];
    cr_assert_str_eq(d->name, names[n]);
    cr_assert_eq((int)d->op, n, "%s: op id follows the table", d->name);
    cr_assert(d->counts && d->bus_factor && d->source, "%s callbacks", d->name);
    cr_assert_gt(d->time_scale, 0, "%s time_scale", d->name);
    cr_assert_eq(gcb_coll_find(d->name), d);
    for (int j = 0; j < n; j++)
      cr_assert_str_neq(gcb_coll_descs[j]->name, d->name);
  }
  cr_assert_eq(n, GCB_COLLOP_COUNT);
  cr_assert_null(gcb_coll_find("allreduce2"));
  cr_assert_null(gcb_coll_find(NULL));
}

Test(coll_ops, flags) {
  cr_assert(find("allreduce")->reduces && find("reduce")->reduces &&
            find("reducescatter")->reduces);
  cr_assert(!find("allgather")->reduces && !find("alltoall")->reduces);
  cr_assert(find("broadcast")->rooted && find("reduce")->rooted);
  /* gather.cu, scatter.cu: a root (TimeTest's root), no reduction */
  cr_assert(find("gather")->rooted && find("scatter")->rooted);
  cr_assert(!find("gather")->reduces && !find("scatter")->reduces);
  cr_assert(!find("gather")->pairwise && !find("scatter")->pairwise);
  cr_assert(!find("allreduce")->rooted);
  cr_assert(find("latency")->pairwise && find("bandwidth")->pairwise);
  cr_assert(!find("sendrecv")->pairwise);
  cr_assert_float_eq(find("latency")->time_scale, 0.5, 1e-15);
  cr_assert_eq(find("bandwidth")->window, 64);
  cr_assert_float_eq(find("bandwidth")->time_scale, 1.0 / 64, 1e-15);
}

/* ---- bus factors --------------------------------------------------------- */

Test(coll_ops, bus_factors_follow_nccl_tests) {
  for (int n = 1; n <= 8; n++) {
    double ar = 2.0 * (n - 1) / n, ag = (double)(n - 1) / n;
    cr_assert_float_eq(find("allreduce")->bus_factor(n), ar, 1e-15);
    cr_assert_float_eq(find("allgather")->bus_factor(n), ag, 1e-15);
    cr_assert_float_eq(find("reducescatter")->bus_factor(n), ag, 1e-15);
    cr_assert_float_eq(find("alltoall")->bus_factor(n), ag, 1e-15);
    /* GatherGetBw, ScatterGetBw: (nranks-1)/nranks */
    cr_assert_float_eq(find("gather")->bus_factor(n), ag, 1e-15);
    cr_assert_float_eq(find("scatter")->bus_factor(n), ag, 1e-15);
    cr_assert_float_eq(find("broadcast")->bus_factor(n), 1, 1e-15);
    cr_assert_float_eq(find("reduce")->bus_factor(n), 1, 1e-15);
    cr_assert_float_eq(find("sendrecv")->bus_factor(n), 1, 1e-15);
  }
  cr_assert_float_eq(find("allreduce")->bus_factor(8), 1.75, 1e-15);
  cr_assert_float_eq(find("allgather")->bus_factor(4), 0.75, 1e-15);
}

/* ---- counts: a literal table --------------------------------------------- */

struct literal {
  const char *op;
  enum gcb_coll_dtype t;
  size_t count;
  int n, rank;
  size_t send, recv, param, bytes, send_off, recv_off;
};

Test(coll_ops, counts_literal_table) {
  static const struct literal rows[] = {
      /* all_reduce.cu: 1 MiB of float on 8 ranks */
      {"allreduce", GCB_COLL_FLOAT, 262144, 8, 3, 262144, 262144, 262144,
       1048576, 0, 0},
      /* all_gather.cu: base = (1000/3) & -4 = 332; size column 3984 B */
      {"allgather", GCB_COLL_FLOAT, 1000, 3, 2, 332, 996, 332, 3984, 664, 0},
      /* uint8: base = (1000/3) & -16 = 320 */
      {"allgather", GCB_COLL_UINT8, 1000, 3, 1, 320, 960, 320, 960, 320, 0},
      /* double: base = (1000/3) & -2 = 332 */
      {"allgather", GCB_COLL_DOUBLE, 1000, 3, 0, 332, 996, 332, 7968, 0, 0},
      /* reduce_scatter.cu: recvInplaceOffset = base, times rank */
      {"reducescatter", GCB_COLL_FLOAT, 1000, 3, 2, 996, 332, 332, 3984, 0,
       664},
      {"reducescatter", GCB_COLL_HALF, 4096, 8, 7, 4096, 512, 512, 8192, 0,
       3584},
      /* alltoall.cu: paramcount = (count/nranks) & -(16/eltSize) */
      {"alltoall", GCB_COLL_INT32, 1000, 3, 1, 996, 996, 332, 3984, 0, 0},
      {"alltoall", GCB_COLL_F8E4M3, 100, 2, 0, 96, 96, 48, 96, 0, 0},
      {"broadcast", GCB_COLL_INT64, 5, 4, 1, 5, 5, 5, 40, 0, 0},
      {"reduce", GCB_COLL_BFLOAT16, 7, 3, 2, 7, 7, 7, 14, 0, 0},
      {"sendrecv", GCB_COLL_UINT64, 3, 5, 4, 3, 3, 3, 24, 0, 0},
      {"latency", GCB_COLL_UINT8, 8, 2, 1, 8, 8, 8, 8, 0, 0},
      {"bandwidth", GCB_COLL_UINT8, 4096, 4, 0, 4096, 4096, 4096, 4096, 0, 0},
      {"barrier", GCB_COLL_UINT8, 0, 4, 0, 0, 0, 0, 0, 0, 0},
      /* gather.cu: sendcount = (1000/3) & ~(16/4-1) = 332, recvcount 996,
       * sendInplaceOffset = sendcount (times rank 2); S = 332*3*4 */
      {"gather", GCB_COLL_FLOAT, 1000, 3, 2, 332, 996, 332, 3984, 664, 0},
      {"gather", GCB_COLL_UINT8, 1000, 3, 1, 320, 960, 320, 960, 320, 0},
      /* scatter.cu: recvcount 332, sendcount 996, recvInplaceOffset =
       * recvcount (times rank 2) */
      {"scatter", GCB_COLL_FLOAT, 1000, 3, 2, 996, 332, 332, 3984, 0, 664},
      /* double on 8 ranks: (4096/8) & ~1 = 512, S = 512*8*8 */
      {"scatter", GCB_COLL_DOUBLE, 4096, 8, 7, 4096, 512, 512, 32768, 0, 3584},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    const struct literal *r = &rows[i];
    struct gcb_coll_counts c = counts(r->op, r->count, r->t, r->rank, r->n);
    cr_assert_eq(c.send, r->send, "%s row %zu send %zu", r->op, i, c.send);
    cr_assert_eq(c.recv, r->recv, "%s row %zu recv %zu", r->op, i, c.recv);
    cr_assert_eq(c.param, r->param, "%s row %zu param", r->op, i);
    cr_assert_eq(c.bytes, r->bytes, "%s row %zu bytes %zu", r->op, i, c.bytes);
    cr_assert_eq(c.inplace_offset, r->send_off, "%s row %zu", r->op, i);
    cr_assert_eq(c.recv_inplace_offset, r->recv_off, "%s row %zu", r->op, i);
  }
}

/* ---- counts: 1..8 ranks against nccl-tests' formulas --------------------- */

/* (count/nranks) & -(16/eltSize), the newest nccl-tests' rounding
 * (-x == ~(x - 1) in two's complement). */
static size_t block(size_t count, int n, size_t elt) {
  return (count / (size_t)n) & ~(16 / elt - 1);
}

Test(coll_ops, counts_for_one_to_eight_ranks) {
  static const size_t sizes[] = {8, 100, 4096, 1000000, 1 << 22};
  for (int n = 1; n <= 8; n++)
    for (int t = 0; t < GCB_COLL_DTYPE_COUNT; t++)
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t elt = gcb_coll_dtype_size(t), count = sizes[s] / elt;
        size_t b = block(count, n, elt);
        struct gcb_coll_counts c;
        bool ok =
            gcb_coll_desc_counts(find("allgather"), count, t, n - 1, n, 0, &c);
        cr_assert_eq(ok, b > 0, "allgather n %d t %d size %zu", n, t, sizes[s]);
        if (ok)
          cr_assert(c.send == b && c.recv == b * n && c.param == b &&
                    c.bytes == b * n * elt &&
                    c.inplace_offset == b * (size_t)(n - 1));
        ok = gcb_coll_desc_counts(find("reducescatter"), count, t, n - 1, n, 0,
                                  &c);
        cr_assert_eq(ok, b > 0);
        if (ok)
          cr_assert(c.send == b * n && c.recv == b && c.param == b &&
                    c.bytes == b * n * elt &&
                    c.recv_inplace_offset == b * (size_t)(n - 1));
        ok = gcb_coll_desc_counts(find("gather"), count, t, n - 1, n, 0, &c);
        cr_assert_eq(ok, b > 0, "gather n %d t %d size %zu", n, t, sizes[s]);
        if (ok) /* GatherGetCollByteCount */
          cr_assert(c.send == b && c.recv == b * n && c.param == b &&
                    c.bytes == b * n * elt &&
                    c.inplace_offset == b * (size_t)(n - 1) &&
                    c.recv_inplace_offset == 0);
        ok = gcb_coll_desc_counts(find("scatter"), count, t, n - 1, n, 0, &c);
        cr_assert_eq(ok, b > 0);
        if (ok) /* ScatterGetCollByteCount */
          cr_assert(c.send == b * n && c.recv == b && c.param == b &&
                    c.bytes == b * n * elt && c.inplace_offset == 0 &&
                    c.recv_inplace_offset == b * (size_t)(n - 1));
        ok = gcb_coll_desc_counts(find("alltoall"), count, t, 0, n, 0, &c);
        cr_assert_eq(ok, b > 0);
        if (ok)
          cr_assert(c.send == b * n && c.recv == b * n && c.param == b &&
                    c.bytes == b * n * elt);
        ok = gcb_coll_desc_counts(find("allreduce"), count, t, 0, n, 0, &c);
        cr_assert_eq(ok, count > 0);
        if (ok)
          cr_assert(c.send == count && c.recv == count && c.param == count &&
                    c.bytes == count * elt);
      }
}

Test(coll_ops, rounding_to_nothing_is_refused) {
  struct gcb_coll_counts c;
  /* 8 B of float on 2 ranks: 1 element per rank, rounded down to 0 */
  cr_assert_not(
      gcb_coll_desc_counts(find("allgather"), 2, GCB_COLL_FLOAT, 0, 2, 0, &c));
  cr_assert_not(
      gcb_coll_desc_counts(find("alltoall"), 15, GCB_COLL_UINT8, 0, 1, 0, &c));
  /* gather and scatter round as nccl-tests: 31 uint8 on 2 ranks is 15
   * per rank, no 16-byte block */
  cr_assert_not(
      gcb_coll_desc_counts(find("gather"), 31, GCB_COLL_UINT8, 0, 2, 0, &c));
  cr_assert(
      gcb_coll_desc_counts(find("scatter"), 32, GCB_COLL_UINT8, 1, 2, 0, &c));
  cr_assert(
      gcb_coll_desc_counts(find("alltoall"), 16, GCB_COLL_UINT8, 0, 1, 0, &c));
  cr_assert_not(
      gcb_coll_desc_counts(find("allreduce"), 0, GCB_COLL_FLOAT, 0, 2, 0, &c));
  /* point-to-point needs a pair; barrier needs nothing */
  cr_assert_not(
      gcb_coll_desc_counts(find("latency"), 8, GCB_COLL_UINT8, 0, 1, 0, &c));
  cr_assert(
      gcb_coll_desc_counts(find("barrier"), 0, GCB_COLL_UINT8, 0, 1, 0, &c));
  /* a rank outside the communicator */
  cr_assert_not(
      gcb_coll_desc_counts(find("allreduce"), 8, GCB_COLL_FLOAT, 2, 2, 0, &c));
}

/* ---- sources ------------------------------------------------------------- */

static struct gcb_coll_source source(const char *op, size_t count, size_t j,
                                     int rank, int n, int root) {
  struct gcb_coll_counts c;
  struct gcb_coll_source s;
  cr_assert(
      gcb_coll_desc_counts(find(op), count, GCB_COLL_UINT8, rank, n, root, &c));
  find(op)->source(&c, j, rank, n, root, &s);
  return s;
}

static void expect_source(struct gcb_coll_source s, enum gcb_coll_from from,
                          int rank, size_t elem) {
  cr_assert_eq(s.from, from);
  if (from == GCB_COLL_FROM_RANK)
    cr_assert_eq(s.rank, rank);
  if (from != GCB_COLL_FROM_NONE)
    cr_assert_eq(s.elem, elem, "elem %zu, want %zu", s.elem, elem);
}

Test(coll_ops, sources_of_received_elements) {
  /* 4 ranks, 64 uint8: allgather and alltoall blocks of 16 */
  expect_source(source("allreduce", 64, 5, 1, 4, 0), GCB_COLL_FROM_ALL, 0, 5);
  expect_source(source("allgather", 64, 37, 1, 4, 0), GCB_COLL_FROM_RANK, 2, 5);
  expect_source(source("reducescatter", 64, 3, 2, 4, 0), GCB_COLL_FROM_ALL, 0,
                35);
  expect_source(source("alltoall", 64, 37, 1, 4, 0), GCB_COLL_FROM_RANK, 2, 21);
  expect_source(source("broadcast", 64, 9, 0, 4, 3), GCB_COLL_FROM_RANK, 3, 9);
  expect_source(source("reduce", 64, 9, 3, 4, 3), GCB_COLL_FROM_ALL, 0, 9);
  expect_source(source("reduce", 64, 9, 1, 4, 3), GCB_COLL_FROM_NONE, 0, 0);
  expect_source(source("sendrecv", 64, 9, 0, 4, 0), GCB_COLL_FROM_RANK, 3, 9);
  /* gather to root 3: its block 2 is rank 2's input; rank 1's receive
   * buffer stays as it was (GatherInitData: expected = the buffer) */
  expect_source(source("gather", 64, 37, 3, 4, 3), GCB_COLL_FROM_RANK, 2, 5);
  expect_source(source("gather", 64, 3, 3, 4, 3), GCB_COLL_FROM_RANK, 0, 3);
  expect_source(source("gather", 64, 37, 1, 4, 3), GCB_COLL_FROM_NONE, 0, 0);
  /* scatter from root 2: rank 1 gets the root's elements 16..31
   * (ScatterInitData: expected from rank * recvcount on) */
  expect_source(source("scatter", 64, 5, 1, 4, 2), GCB_COLL_FROM_RANK, 2, 21);
  expect_source(source("scatter", 64, 0, 2, 4, 2), GCB_COLL_FROM_RANK, 2, 32);
  /* pairs (0,2) (1,3); with 5 ranks rank 4 sits out */
  /* out of place each receives its partner's input (osu_latency) */
  expect_source(source("latency", 8, 1, 0, 4, 0), GCB_COLL_FROM_RANK, 2, 1);
  expect_source(source("latency", 8, 1, 3, 4, 0), GCB_COLL_FROM_RANK, 1, 1);
  expect_source(source("latency", 8, 1, 4, 5, 0), GCB_COLL_FROM_NONE, 0, 0);
  expect_source(source("bandwidth", 8, 1, 1, 4, 0), GCB_COLL_FROM_NONE, 0, 0);
  expect_source(source("bandwidth", 8, 1, 3, 4, 0), GCB_COLL_FROM_RANK, 1, 1);
  cr_assert_eq(gcb__coll_partner(0, 2), 1);
  /* in place (one buffer) the responder echoes: both hold the initiator's */
  struct gcb_coll_counts c;
  struct gcb_coll_source in;
  cr_assert(
      gcb_coll_desc_counts(find("latency"), 8, GCB_COLL_UINT8, 0, 4, 0, &c));
  c.inplace = true;
  find("latency")->source(&c, 1, 0, 4, 0, &in);
  expect_source(in, GCB_COLL_FROM_RANK, 0, 1);
  find("latency")->source(&c, 1, 2, 4, 0, &in);
  expect_source(in, GCB_COLL_FROM_RANK, 0, 1);
  cr_assert_eq(gcb__coll_partner(2, 5), 0);
  cr_assert_eq(gcb__coll_partner(3, 5), 1);
  cr_assert_eq(gcb__coll_partner(4, 5), -1);
  cr_assert_eq(gcb__coll_partner(0, 1), -1);
}

/* ---- names and transports ------------------------------------------------ */

Test(coll_ops, dtype_and_redop_names) {
  cr_assert_str_eq(gcb_coll_dtype_name(GCB_COLL_BFLOAT16), "bfloat16");
  cr_assert_str_eq(gcb_coll_dtype_name(GCB_COLL_F8E4M3), "f8e4m3");
  cr_assert_eq(gcb_coll_dtype_size(GCB_COLL_HALF), 2);
  cr_assert_eq(gcb_coll_dtype_size(GCB_COLL_UINT64), 8);
  cr_assert_eq(gcb_coll_dtype_size(GCB_COLL_DTYPE_COUNT), 0);
  cr_assert_str_eq(gcb_coll_dtype_name(GCB_COLL_DTYPE_COUNT), "?");
  cr_assert_str_eq(gcb_coll_redop_name(GCB_REDOP_AVG), "avg");
  cr_assert_str_eq(gcb_coll_redop_name(GCB_COLL_REDOP_COUNT), "?");
}

Test(coll_ops, transport_registry) {
  int n = 0;
  for (; gcb_coll_transports[n] != NULL; n++) {
    const struct gcb_coll_ops *o = gcb_coll_transports[n];
    cr_assert(o->name && o->description && o->usable && o->open && o->close &&
                  o->supports && o->alloc && o->free && o->upload &&
                  o->download && o->start && o->wait && o->version,
              "%s: every required callback", o->name);
    cr_assert_eq(gcb_coll_transport_find(o->name), o);
  }
  cr_assert_eq(n, 1 + GCB_HAVE_CUDA);
  cr_assert_str_eq(gcb_coll_transports[n - 1]->name, "mpi");
#if GCB_HAVE_CUDA
  cr_assert_str_eq(gcb_coll_transports[0]->name, "nccl");
#endif
  cr_assert_null(gcb_coll_transport_find("gloo"));
}
