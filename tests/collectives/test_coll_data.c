/*
 * Tests of collective validation data (the small floating formats
 * themselves are tested in tests/common/test_smallfloat.c): loads and
 * stores of every type, the input patterns' exactness for every type and
 * reduction under several reduction orders, the poison, the comparison and the
 * corruption fault.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/comm.h"
#include "collectives/data.h"

Test(coll_data, load_store_every_type) {
  unsigned char buf[64];
  for (int t = 0; t < GCB_COLL_DTYPE_COUNT; t++) {
    for (double v = 0; v <= 8; v++) {
      gcb__coll_store(t, buf, 3, v);
      cr_assert_eq(gcb__coll_load(t, buf, 3), v, "%s %g",
                   gcb_coll_dtype_name(t), v);
    }
  }
  gcb__coll_store(GCB_COLL_INT8, buf, 0, 1000); /* saturates, no UB */
  cr_assert_eq(gcb__coll_load(GCB_COLL_INT8, buf, 0), 127);
  cr_assert_eq(gcb__coll_round(GCB_COLL_FLOAT, 1.0 / 3), (float)(1.0 / 3));
  cr_assert_eq(gcb__coll_round(GCB_COLL_F8E4M3, 17), 16);
}

Test(coll_data, ulps) {
  cr_assert_eq(gcb__coll_ulp(GCB_COLL_HALF, 1), 0x1p-10);
  cr_assert_eq(gcb__coll_ulp(GCB_COLL_BFLOAT16, 1), 0x1p-7);
  cr_assert_eq(gcb__coll_ulp(GCB_COLL_F8E4M3, 1), 0.125);
  cr_assert_eq(gcb__coll_ulp(GCB_COLL_F8E4M3, 448), 32); /* spacing below max */
  cr_assert_eq(gcb__coll_ulp(GCB_COLL_F8E5M2, 4), 1);
  cr_assert_eq(gcb__coll_ulp(GCB_COLL_FLOAT, 1), 0x1p-23);
  cr_assert_eq(gcb__coll_ulp(GCB_COLL_DOUBLE, 1), 0x1p-52);
  cr_assert_eq(gcb__coll_ulp(GCB_COLL_INT32, 5), 1);
}

Test(coll_data, match_is_exact_or_within_ulps) {
  cr_assert(gcb__coll_match(GCB_COLL_HALF, 1, 1, 0));
  cr_assert_not(gcb__coll_match(GCB_COLL_HALF, 1 + 0x1p-10, 1, 0));
  cr_assert(gcb__coll_match(GCB_COLL_HALF, 1 + 0x1p-10, 1, 1));
  cr_assert_not(gcb__coll_match(GCB_COLL_HALF, 1 + 0x1p-9, 1, 1));
  cr_assert_not(gcb__coll_match(GCB_COLL_FLOAT, NAN, NAN, 1));
  cr_assert_not(gcb__coll_match(GCB_COLL_INT32, 4, 5, 0));
}

/* ---- patterns ------------------------------------------------------------ */

static const enum gcb_coll_redop all_ops[] = {GCB_REDOP_SUM, GCB_REDOP_PROD,
                                              GCB_REDOP_MAX, GCB_REDOP_MIN};

static double combine(enum gcb_coll_redop op, double a, double b) {
  switch (op) {
  case GCB_REDOP_PROD:
    return a * b;
  case GCB_REDOP_MAX:
    return fmax(a, b);
  case GCB_REDOP_MIN:
    return fmin(a, b);
  default:
    return a + b;
  }
}

/* The reduction computed in the type itself, rounding after every step,
 * in one of three orders: ranks ascending, descending, or as a binary
 * tree (how rings, chains and trees combine partial results). */
static double reduce_in_type(const struct gcb__coll_pat *p, size_t e, int order,
                             double scale, enum gcb_coll_dtype mul) {
  double v[512] = {0};
  int n = p->nranks;
  for (int r = 0; r < n; r++)
    v[r] = gcb__coll_round(
        p->dtype, gcb__coll_round(mul, gcb__coll_input(p, r, e) * scale));
  if (order == 1)
    for (int r = 0; r < n / 2; r++) {
      double t = v[r];
      v[r] = v[n - 1 - r];
      v[n - 1 - r] = t;
    }
  if (order == 2) {
    for (int step = 1; step < n; step *= 2)
      for (int r = 0; r + step < n; r += 2 * step)
        v[r] = gcb__coll_round(p->dtype, combine(p->redop, v[r], v[r + step]));
    return v[0];
  }
  double acc = v[0];
  for (int r = 1; r < n; r++)
    acc = gcb__coll_round(p->dtype, combine(p->redop, acc, v[r]));
  return acc;
}

static const int rank_counts[] = {1,  2,  3,  4,  5,  7,   8,  9,
                                  15, 16, 17, 31, 64, 100, 300};

Test(coll_data, patterns_are_exact_for_every_type_and_reduction) {
  for (int t = 0; t < GCB_COLL_DTYPE_COUNT; t++)
    for (size_t o = 0; o < sizeof all_ops / sizeof *all_ops; o++)
      for (size_t k = 0; k < sizeof rank_counts / sizeof *rank_counts; k++) {
        struct gcb__coll_pat p;
        gcb__coll_pat_init(&p, t, true, all_ops[o], rank_counts[k]);
        for (size_t e = 0; e < 300; e++) {
          struct gcb_coll_source s = {.from = GCB_COLL_FROM_ALL, .elem = e};
          double want = gcb__coll_expect(&p, &s);
          cr_assert(want >= 1, "%s %s: results are positive",
                    gcb_coll_dtype_name(t), gcb_coll_redop_name(all_ops[o]));
          for (int order = 0; order < 3; order++)
            cr_assert_eq(reduce_in_type(&p, e, order, 1, t), want,
                         "%s %s n %d elem %zu order %d", gcb_coll_dtype_name(t),
                         gcb_coll_redop_name(all_ops[o]), p.nranks, e, order);
        }
      }
}

/* Every rank contributes a non-identity value while nranks stays within
 * the documented limits, so a missing contribution is always seen. */
Test(coll_data, all_ranks_contribute_within_the_limits) {
  struct gcb__coll_pat p;
  gcb__coll_pat_init(&p, GCB_COLL_F8E4M3, true, GCB_REDOP_SUM, 16);
  cr_assert_eq(p.active, 16);
  cr_assert_eq(p.span, 1);
  gcb__coll_pat_init(&p, GCB_COLL_F8E5M2, true, GCB_REDOP_SUM, 9);
  cr_assert_eq(p.active, 8);
  gcb__coll_pat_init(&p, GCB_COLL_F8E4M3, true, GCB_REDOP_PROD, 8);
  cr_assert_eq(p.active, 8);
  gcb__coll_pat_init(&p, GCB_COLL_INT8, true, GCB_REDOP_PROD, 7);
  cr_assert_eq(p.active, 6);
  gcb__coll_pat_init(&p, GCB_COLL_FLOAT, true, GCB_REDOP_SUM, 8);
  cr_assert_eq(p.active, 8);
  cr_assert_eq(p.span, 127);
}

/* avg: integers as NCCL's SumPostDiv (sum, then divide), exactly;
 * floating types as its PreMulSum, each input times the rounded 1/n then
 * summed, with the multiply done in the type itself (in every order)
 * standing in for the architectures where NCCL does it so; fp8 has no
 * arithmetic of its own, and multiplies in half. */
static void check_avg(enum gcb_coll_dtype t, int n) {
  struct gcb__coll_pat p, sum;
  gcb__coll_pat_init(&p, t, true, GCB_REDOP_AVG, n);
  sum = p;
  sum.redop = GCB_REDOP_SUM; /* reduce_in_type sums p's inputs */
  int ulps = gcb__coll_tolerance(&p);
  bool fp8 = t == GCB_COLL_F8E4M3 || t == GCB_COLL_F8E5M2;
  enum gcb_coll_dtype mul = fp8 ? GCB_COLL_HALF : t;
  double scale = ulps ? gcb__coll_round(mul, 1.0 / n) : 1;
  for (size_t e = 0; e < 300; e++) {
    struct gcb_coll_source s = {.from = GCB_COLL_FROM_ALL, .elem = e};
    double want = gcb__coll_expect(&p, &s);
    for (int order = 0; order < 3; order++) {
      double got = reduce_in_type(&sum, e, order, scale, mul);
      if (!ulps)
        got = floor(got / n);
      cr_assert(gcb__coll_match(t, got, want, ulps),
                "%s avg n %d elem %zu order %d: %.9g vs %.9g",
                gcb_coll_dtype_name(t), n, e, order, got, want);
    }
  }
}

Test(coll_data, avg_within_tolerance) {
  for (int t = 0; t < GCB_COLL_DTYPE_COUNT; t++)
    for (size_t k = 0; k < sizeof rank_counts / sizeof *rank_counts; k++)
      check_avg(t, rank_counts[k]);
  struct gcb__coll_pat p;
  gcb__coll_pat_init(&p, GCB_COLL_HALF, true, GCB_REDOP_AVG, 8);
  cr_assert_eq(p.active, 2); /* nccl-tests: two non-zero inputs */
  cr_assert_eq(gcb__coll_tolerance(&p), 2);
  gcb__coll_pat_init(&p, GCB_COLL_INT32, true, GCB_REDOP_AVG, 8);
  cr_assert_eq(gcb__coll_tolerance(&p), 0);
}

Test(coll_data, movement_inputs_are_representable_and_varied) {
  for (int t = 0; t < GCB_COLL_DTYPE_COUNT; t++) {
    struct gcb__coll_pat p;
    gcb__coll_pat_init(&p, t, false, GCB_REDOP_SUM, 4);
    double first = gcb__coll_input(&p, 0, 0);
    bool varied = false;
    for (int r = 0; r < 4; r++)
      for (size_t e = 0; e < 256; e++) {
        double v = gcb__coll_input(&p, r, e);
        cr_assert(v >= 1 && v <= 127 && gcb__coll_round(t, v) == v);
        varied |= v != first;
      }
    cr_assert(varied, "%s: inputs differ", gcb_coll_dtype_name(t));
  }
}

/* ---- poison and corruption ----------------------------------------------- */

Test(coll_data, poison_never_matches_a_result) {
  unsigned char buf[8 * 16];
  for (int t = 0; t < GCB_COLL_DTYPE_COUNT; t++) {
    gcb__coll_poison(t, buf, 16);
    double bad = gcb__coll_load(t, buf, 15);
    for (size_t o = 0; o < sizeof all_ops / sizeof *all_ops; o++)
      for (int n = 1; n <= 16; n++) {
        struct gcb__coll_pat p;
        gcb__coll_pat_init(&p, t, true, all_ops[o], n);
        for (size_t e = 0; e < 64; e++) {
          struct gcb_coll_source s = {.from = GCB_COLL_FROM_ALL, .elem = e};
          cr_assert_not(gcb__coll_match(t, bad, gcb__coll_expect(&p, &s), 1),
                        "%s: poison %g", gcb_coll_dtype_name(t), bad);
        }
      }
  }
}

Test(coll_data, corruption_is_always_seen) {
  unsigned char buf[64];
  static const double values[] = {0, 1, 2, 3, 8, 16, 100, 127};
  for (int t = 0; t < GCB_COLL_DTYPE_COUNT; t++)
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
      double v = gcb__coll_round(t, values[i]);
      gcb__coll_store(t, buf, 2, v);
      gcb__coll_corrupt(t, buf, 2);
      cr_assert_not(gcb__coll_match(t, gcb__coll_load(t, buf, 2), v, 1),
                    "%s %g", gcb_coll_dtype_name(t), v);
    }
  /* and the poison itself changes */
  gcb__coll_poison(GCB_COLL_UINT8, buf, 4);
  gcb__coll_corrupt(GCB_COLL_UINT8, buf, 1);
  cr_assert_neq(buf[1], GCB__COLL_POISON);
}

/* ---- buffer rotation ------------------------------------------------------
 */

Test(coll_data, rotation_slots) {
  size_t w = GCB__COLL_ROTATE_BYTES;
  cr_expect_eq(gcb__coll_rotation_stride(8), 256);
  cr_expect_eq(gcb__coll_rotation_stride(4096), 4096);
  cr_expect_eq(gcb__coll_rotation_stride(4097), 4352);
  cr_expect_eq(gcb__coll_rotation_slots(8, w), GCB__COLL_ROTATE_MAX_SLOTS);
  cr_expect_eq(gcb__coll_rotation_slots(1 << 20, w), 256);
  cr_expect_eq(gcb__coll_rotation_slots((size_t)64 << 20, w), 4);
  cr_expect_eq(gcb__coll_rotation_slots((size_t)256 << 20, w), 1);
  cr_expect_eq(gcb__coll_rotation_slots((size_t)1 << 30, w), 1);
  /* slots x stride never exceeds the window once there are two or more */
  for (size_t span = 1; span < ((size_t)1 << 30); span = span * 3 + 7) {
    size_t n = gcb__coll_rotation_slots(span, w);
    cr_expect(n == 1 || n * gcb__coll_rotation_stride(span) <= w, "%zu", span);
  }
}

/* A transport on "device memory" that is host memory, recording the
 * buffers each started operation used: one rank, so an allreduce is a
 * copy. */
static const void *started_send[16];
static int started;

static bool rot_supports(const struct gcb_comm *c,
                         const struct gcb_coll_desc *d, enum gcb_coll_dtype t,
                         enum gcb_coll_redop op, char *why, size_t len) {
  (void)c, (void)d, (void)t, (void)op, (void)why, (void)len;
  return true;
}
static enum gcb_status rot_alloc(struct gcb_comm *c, size_t bytes, void **buf,
                                 struct gcb_err *err) {
  (void)c, (void)err;
  *buf = calloc(1, bytes);
  return GCB_OK;
}
static void rot_free(struct gcb_comm *c, void *buf) {
  (void)c;
  free(buf);
}
static enum gcb_status rot_copy(struct gcb_comm *c, void *dst, const void *src,
                                size_t bytes, struct gcb_err *err) {
  (void)c, (void)err;
  memcpy(dst, src, bytes);
  return GCB_OK;
}
static enum gcb_status rot_start(struct gcb_comm *c,
                                 const struct gcb_coll_call *k,
                                 struct gcb_err *err) {
  (void)c, (void)err;
  if (started < 16)
    started_send[started++] = k->send;
  memcpy(k->recv, k->send, k->param * gcb_coll_dtype_size(k->dtype));
  return GCB_OK;
}
static enum gcb_status rot_wait(struct gcb_comm *c, struct gcb_err *err) {
  (void)c, (void)err;
  return GCB_OK;
}

Test(coll_data, device_buffers_rotate_validation_uses_slot_0) {
  struct gcb_coll_ops ops = {.name = "rot",
                             .device_memory = true,
                             .supports = rot_supports,
                             .alloc = rot_alloc,
                             .free = rot_free,
                             .upload = rot_copy,
                             .download = rot_copy,
                             .start = rot_start,
                             .wait = rot_wait};
  struct gcb_coll_env env = {.rank = 0, .size = 1, .device = 0};
  struct gcb_coll_call shape = {.desc = gcb_coll_find("allreduce"),
                                .dtype = GCB_COLL_FLOAT,
                                .redop = GCB_REDOP_SUM,
                                .count = 1 << 18}; /* 1 MiB */
  struct gcb_coll_case *k = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_coll_case_new(&ops, NULL, &env, &shape, &k, &err), GCB_OK,
               "%s", err.msg);
  started = 0;
  cr_assert_eq(gcb_coll_case_run(k, 3, &err), GCB_OK);
  cr_assert_eq(started, 3);
  ptrdiff_t step =
      (const char *)started_send[1] - (const char *)started_send[0];
  cr_expect_eq(step, 1 << 20, "the next 1 MiB slot each iteration");
  cr_expect_eq((const char *)started_send[2] - (const char *)started_send[1],
               step);
  uint64_t wrong = 1, checked = 0;
  cr_assert_eq(gcb_coll_case_check(k, &wrong, &checked, &err), GCB_OK);
  cr_expect_eq(started_send[3], started_send[0], "validation on slot 0");
  cr_expect_eq(wrong, 0);
  cr_expect_eq(checked, 1u << 18);
  gcb_coll_case_free(k);

  ops.device_memory = false; /* host memory: one slot */
  cr_assert_eq(gcb_coll_case_new(&ops, NULL, &env, &shape, &k, &err), GCB_OK);
  started = 0;
  cr_assert_eq(gcb_coll_case_run(k, 2, &err), GCB_OK);
  cr_expect_eq(started_send[0], started_send[1]);
  gcb_coll_case_free(k);
}
