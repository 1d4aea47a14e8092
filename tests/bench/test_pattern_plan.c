/* The pattern benchmark's pure half: model sizes, layouts, DDP buckets,
 * routing under skew and every pattern's program, against sizes computed
 * by hand (the arithmetic is in the comments). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "bench/benches/pattern_plan.h"

static struct gcb_pat_model tiny(void) {
  return *gcb__pat_preset("tiny");
}

/* ---- models -------------------------------------------------------------- */

Test(pattern_plan, layer_params_match_hand_counts) {
  struct gcb_pat_model t = tiny();
  /* qkv 128 x (128 + 2*4*32) + proj 128*128 + fc1 128*512 + fc2 512*128 */
  cr_expect_eq(gcb__pat_layer_params(&t), 49152 + 16384 + 65536 + 65536);
  /* Llama 2 7B: qkv 4096 x 12288, proj 4096^2, fc1 4096 x 2*11008 (SwiGLU),
   * fc2 11008 x 4096; x 32 layers = 6.476e9, the published 6.74e9 less
   * the two 32000 x 4096 embeddings. */
  const struct gcb_pat_model *l2 = gcb__pat_preset("llama2-7b");
  cr_assert_not_null(l2);
  cr_expect_eq(gcb__pat_layer_params(l2), 202375168ull);
  cr_expect_eq(gcb__pat_layer_params(l2) * l2->layers, 6476005376ull);
  /* Llama 3 8B: 8 kv heads of 128, so qkv is 4096 x 6144. */
  const struct gcb_pat_model *l3 = gcb__pat_preset("llama3-8b");
  cr_assert_not_null(l3);
  uint64_t in, out;
  gcb__pat_linear_dims(l3, GCB_PAT_QKV, &in, &out);
  cr_expect_eq(out, 6144);
  cr_expect_eq(gcb__pat_layer_params(l3), 218103808ull);
  cr_expect_null(gcb__pat_preset("nonesuch"));
  /* --model's choices: "auto", then every preset, in order. */
  cr_expect_str_eq(gcb__pat_model_names[0], "auto");
  size_t i = 0;
  for (; gcb__pat_presets[i].name; i++)
    cr_expect_str_eq(gcb__pat_model_names[i + 1], gcb__pat_presets[i].name);
  cr_expect_null(gcb__pat_model_names[i + 1]);
}

Test(pattern_plan, model_check_names_what_does_not_divide) {
  struct gcb_pat_model t = tiny();
  char why[200];
  cr_expect(gcb__pat_model_check(&t, 2, 2, why, sizeof why), "%s", why);
  cr_expect_not(gcb__pat_model_check(&t, 3, 0, why, sizeof why));
  cr_expect_not_null(strstr(why, "tp 3"), "%s", why);
  cr_expect_not(gcb__pat_model_check(&t, 0, 3, why, sizeof why));
  cr_expect_not_null(strstr(why, "pp 3"), "%s", why);
  cr_expect_not(
      gcb__pat_model_check(gcb__pat_preset("llama3-8b"), 16, 0, why, 200));
  t.hidden = 0;
  cr_expect_not(gcb__pat_model_check(&t, 0, 0, why, sizeof why));
}

/* ---- layout -------------------------------------------------------------- */

Test(pattern_plan, layout_is_inside_node_first) {
  struct gcb_pat_layout l = {.size = {2, 2, 2}, .ep = 2};
  cr_assert(gcb__pat_parse_order("tp,dp,pp", l.order));
  int c[3], color, key;
  gcb__pat_coords(&l, 5, c); /* 5 = 1 + 2*0 + 4*1 */
  cr_expect_eq(c[GCB_PAT_DIM_TP], 1);
  cr_expect_eq(c[GCB_PAT_DIM_DP], 0);
  cr_expect_eq(c[GCB_PAT_DIM_PP], 1);
  cr_expect_eq(gcb__pat_rank_at(&l, c), 5);
  gcb__pat_group(&l, 5, GCB_PAT_DIM_TP, &color, &key);
  cr_expect(color == 4 && key == 1, "tp peers of 5 are 4 and 5");
  gcb__pat_group(&l, 7, GCB_PAT_DIM_DP, &color, &key);
  cr_expect(color == 5 && key == 1, "dp peers of 7 are 5 and 7");
  gcb__pat_ep_group(&l, 7, &color, &key);
  cr_expect(color == 5 && key == 1);
  /* Pipeline pairs: stage 0 of rank 1 pairs with rank 5 in parity 0. */
  cr_expect(gcb__pat_pp_pair(&l, 1, 0, &color, &key));
  cr_expect(color == 1 && key == 0);
  cr_expect(gcb__pat_pp_pair(&l, 5, 0, &color, &key));
  cr_expect(color == 1 && key == 1);
  cr_expect_not(gcb__pat_pp_pair(&l, 1, 1, &color, &key));
  /* Outer placement: tp varies slowest, peers 4 ranks apart. */
  cr_assert(gcb__pat_parse_order("dp,pp,tp", l.order));
  gcb__pat_group(&l, 5, GCB_PAT_DIM_TP, &color, &key);
  cr_expect(color == 1 && key == 1, "tp peers of 5 are 1 and 5");
}

Test(pattern_plan, order_parsing_refuses_anything_else) {
  enum gcb_pat_dim o[3];
  cr_expect(gcb__pat_parse_order("pp,tp,dp", o));
  cr_expect(o[0] == GCB_PAT_DIM_PP && o[2] == GCB_PAT_DIM_DP);
  cr_expect_not(gcb__pat_parse_order("tp,tp,pp", o));
  cr_expect_not(gcb__pat_parse_order("tp,dp", o));
  cr_expect_not(gcb__pat_parse_order("tp,dp,pp,", o));
  cr_expect_not(gcb__pat_parse_order("", o));
}

/* ---- buckets, routing, bubble -------------------------------------------- */

Test(pattern_plan, ddp_buckets_as_pytorch_assigns_them) {
  struct gcb_pat_model t = tiny();
  uint64_t sizes[16];
  int closes[8];
  /* fp32, 1 MiB first bucket = 262144 elements: fc2_1 + fc1_1 + proj_1 +
   * qkv_1 + fc2_0 = 65536 + 65536 + 16384 + 49152 + 65536 = 262144 closes
   * it; the rest (131072) closes at the end. */
  int n = gcb__pat_buckets(&t, 262144, 6553600, sizes, 16, closes);
  cr_assert_eq(n, 2);
  cr_expect_eq(sizes[0], 262144);
  cr_expect_eq(sizes[1], 131072);
  const int want[8] = {-1, -1, -1, -1, 0, -1, -1, 1};
  for (int i = 0; i < 8; i++)
    cr_expect_eq(closes[i], want[i], "tensor %d", i);
  /* 64 KiB-element buckets: each fc alone, proj + qkv together. */
  n = gcb__pat_buckets(&t, 16384, 65536, sizes, 16, NULL);
  cr_assert_eq(n, 6);
  for (int i = 0; i < 6; i++)
    cr_expect_eq(sizes[i], 65536, "bucket %d", i);
}

Test(pattern_plan, expert_routing_under_zipf_skew) {
  uint64_t load[4];
  /* 128 tokens x top-2 x 2 ranks = 512 choices over 4 experts. */
  gcb__pat_expert_tokens(128, 2, 4, 2, 0, load);
  for (int e = 0; e < 4; e++)
    cr_expect_eq(load[e], 128);
  cr_expect_eq(gcb__pat_a2a_block(128, 2, 4, 2, 0), 128);
  /* Zipf 1: weights 1, 1/2, 1/3, 1/4 over H = 25/12: 0.48, 0.24, 0.16,
   * 0.12 of 512 = 245.76, 122.88, 81.92, 61.44. */
  gcb__pat_expert_tokens(128, 2, 4, 2, 1, load);
  cr_expect_eq(load[0], 246);
  cr_expect_eq(load[1], 123);
  cr_expect_eq(load[2], 82);
  cr_expect_eq(load[3], 61);
  /* Rank 0 holds experts 0-1, 0.72 of the choices: 256 x 0.72 = 184.32. */
  cr_expect_eq(gcb__pat_a2a_block(128, 2, 4, 2, 1), 185);
}

Test(pattern_plan, ideal_bubble) {
  cr_expect_float_eq(gcb__pat_ideal_bubble(2, 4), 0.2, 1e-12);
  cr_expect_float_eq(gcb__pat_ideal_bubble(4, 8), 3.0 / 11, 1e-12);
  cr_expect_float_eq(gcb__pat_ideal_bubble(1, 8), 0, 1e-12);
}

/* ---- programs ------------------------------------------------------------ */

static int count_starts(const struct gcb_pat_prog *p, const char *op) {
  int n = 0;
  for (size_t i = 0; i < p->nins; i++)
    n += p->ins[i].op == GCB_PAT_START &&
         strcmp(p->colls[p->ins[i].arg].op, op) == 0;
  return n;
}

static struct gcb_pat_plan plan(enum gcb_pat_kind kind, int group, int member) {
  return (struct gcb_pat_plan){.kind = kind,
                               .model = tiny(),
                               .group = group,
                               .member = member,
                               .bucket_elems = 6553600,
                               .first_bucket_elems = 262144,
                               .microbatches = 4,
                               .experts = 4,
                               .topk = 2};
}

/* One step of tiny: per layer, linear layers 2 x 128 tokens x 196608
 * weights = 50331648 flops and attention 2 x (64 x 64 x 32) x 8 heads-
 * sequences x 2 products = 4194304 forward; backward twice that. */
static const double tiny_step_flops = 2 * 3 * (50331648.0 + 4194304.0);

Test(pattern_plan, dp_program_starts_buckets_inside_backward) {
  struct gcb_pat_plan pl = plan(GCB_PAT_DP, 2, 0);
  struct gcb_pat_prog p;
  cr_assert(gcb__pat_build(&pl, &p));
  cr_expect_float_eq(p.flops, tiny_step_flops, 1);
  cr_expect_eq(count_starts(&p, "allreduce"), 2);
  cr_expect_float_eq(p.comm_elems, 393216, 0.5);
  size_t first = 0;
  while (p.ins[first].op != GCB_PAT_START)
    first++;
  /* The GEMM before it: layer 0's fc2 wgrad, 512 x 128 x 128 tokens. */
  const struct gcb_pat_gemm *g = &p.gemms[p.ins[first - 1].arg];
  cr_expect(g->m == 512 && g->n == 128 && g->k == 128, "%llu x %llu x %llu",
            (unsigned long long)g->m, (unsigned long long)g->n,
            (unsigned long long)g->k);
  cr_expect(p.ins[first + 1].op == GCB_PAT_GEMM, "backward goes on");
  cr_expect_eq(p.ins[p.nins - 1].op, GCB_PAT_WAIT);
  cr_expect(p.ins[0].first && !p.ins[1].first);
  gcb__pat_prog_free(&p);
}

Test(pattern_plan, fsdp_program_gathers_ahead_and_scatters_after) {
  struct gcb_pat_plan pl = plan(GCB_PAT_FSDP, 2, 1);
  struct gcb_pat_prog p;
  cr_assert(gcb__pat_build(&pl, &p));
  cr_expect_eq(count_starts(&p, "allgather"), 4); /* 2 forward, 2 backward */
  cr_expect_eq(count_starts(&p, "reducescatter"), 2);
  cr_expect_eq(p.ncolls, 3, "one gather buffer, one scatter per layer");
  cr_expect_eq(p.colls[0].count, 196608);
  cr_expect_eq(p.ins[0].op, GCB_PAT_START);
  cr_expect(p.ins[1].op == GCB_PAT_WAIT && p.ins[1].arg == GCB_PAT_MAIN);
  cr_expect(p.ins[2].op == GCB_PAT_START, "layer 1 prefetched before layer 0");
  cr_expect(p.ins[p.nins - 1].op == GCB_PAT_WAIT &&
            p.ins[p.nins - 1].arg == GCB_PAT_AUX);
  cr_expect_float_eq(p.flops, tiny_step_flops, 1);
  gcb__pat_prog_free(&p);
}

Test(pattern_plan, tp_program_is_megatron_order) {
  struct gcb_pat_plan pl = plan(GCB_PAT_TP, 2, 0);
  struct gcb_pat_prog p;
  cr_assert(gcb__pat_build(&pl, &p));
  /* Two allreduces of 128 x 128 activations forward, two backward. */
  cr_expect_eq(count_starts(&p, "allreduce"), 8);
  cr_expect_eq(p.ncolls, 1);
  cr_expect_eq(p.colls[0].count, 16384);
  cr_expect_float_eq(p.flops, tiny_step_flops / 2, 1);
  /* Forward: qkv column parallel 128 x 192 x 128 first, proj row parallel
   * 128 x 128 x 64 before the first allreduce. */
  const struct gcb_pat_gemm *g = &p.gemms[p.ins[0].arg];
  cr_expect(g->m == 128 && g->n == 192 && g->k == 128);
  size_t i = 0;
  while (p.ins[i].op != GCB_PAT_START)
    i++;
  g = &p.gemms[p.ins[i - 1].arg];
  cr_expect(g->m == 128 && g->n == 128 && g->k == 64);
  gcb__pat_prog_free(&p);

  pl.kind = GCB_PAT_TPSP;
  cr_assert(gcb__pat_build(&pl, &p));
  /* Per layer: forward 2 gathers + 2 scatters; backward per block a
   * gather of the output gradient, one of the input, one scatter. */
  cr_expect_eq(count_starts(&p, "allgather"), 2 * (2 + 4));
  cr_expect_eq(count_starts(&p, "reducescatter"), 2 * (2 + 2));
  cr_expect_eq(count_starts(&p, "allreduce"), 0);
  gcb__pat_prog_free(&p);
}

/* The exchanges one stage makes with a neighbour, as (forward, backward)
 * flags, in order. */
static int exchanges(const struct gcb_pat_prog *p, int slot, int *flags) {
  int n = 0, cur = 0;
  for (size_t i = 0; i < p->nins; i++) {
    const struct gcb_pat_ins *in = &p->ins[i];
    if (in->op == GCB_PAT_START && p->colls[in->arg].slot == slot)
      cur |= p->colls[in->arg].root == 0 ? 1 : 2;
    if (in->op == GCB_PAT_WAIT && in->arg == slot && cur) {
      flags[n++] = cur;
      cur = 0;
    }
  }
  return n;
}

Test(pattern_plan, pp_program_is_1f1b_and_links_agree) {
  struct gcb_pat_plan pl = plan(GCB_PAT_PP, 2, 0);
  struct gcb_pat_prog p, q;
  cr_assert(gcb__pat_build(&pl, &p));
  int f[64], g[64];
  /* Stage 0 of 2, 4 micro-batches: 1 warm-up forward, 3 steady pairs,
   * 1 cool-down backward. */
  int n = exchanges(&p, GCB_PAT_NEXT, f);
  const int want[5] = {1, 3, 3, 3, 2};
  cr_assert_eq(n, 5);
  for (int i = 0; i < 5; i++)
    cr_expect_eq(f[i], want[i], "exchange %d", i);
  cr_expect_float_eq(p.flops, tiny_step_flops / 2 * 4, 1);
  gcb__pat_prog_free(&p);
  /* Every link: what the lower stage exchanges, the upper does too, in
   * the same order (else the broadcasts would not match). */
  const int shapes[][2] = {{2, 1}, {2, 4}, {3, 2}, {4, 3}, {4, 8}};
  for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
    pl.group = shapes[k][0];
    pl.microbatches = shapes[k][1];
    pl.model.layers = (uint64_t)pl.group;
    for (int s = 0; s + 1 < pl.group; s++) {
      pl.member = s;
      cr_assert(gcb__pat_build(&pl, &p));
      pl.member = s + 1;
      cr_assert(gcb__pat_build(&pl, &q));
      int a = exchanges(&p, GCB_PAT_NEXT, f),
          b = exchanges(&q, GCB_PAT_PREV, g);
      cr_expect_eq(a, b, "p %d m %d link %d", pl.group, pl.microbatches, s);
      for (int i = 0; i < a && i < b; i++)
        cr_expect_eq(f[i], g[i], "p %d m %d link %d exchange %d", pl.group,
                     pl.microbatches, s, i);
      cr_expect_eq(count_starts(&p, "broadcast") -
                       (s > 0 ? 2 * pl.microbatches : 0),
                   2 * pl.microbatches);
      gcb__pat_prog_free(&p);
      gcb__pat_prog_free(&q);
    }
  }
}

Test(pattern_plan, ep_program_pads_the_all_to_all_and_computes_real_load) {
  struct gcb_pat_plan pl = plan(GCB_PAT_EP, 2, 0);
  pl.skew = 1;
  struct gcb_pat_prog p;
  cr_assert(gcb__pat_build(&pl, &p));
  /* 4 all-to-alls per layer of 185 tokens x 128 x 2 peers. */
  cr_expect_eq(count_starts(&p, "alltoall"), 8);
  cr_expect_eq(p.colls[0].count, 185 * 128 * 2);
  /* Rank 0's experts 0 and 1 get 246 and 123 tokens: fc1 forward. */
  bool hot = false, warm = false;
  for (size_t i = 0; i < p.ngemms; i++) {
    hot |= p.gemms[i].m == 246 && p.gemms[i].n == 512;
    warm |= p.gemms[i].m == 123 && p.gemms[i].n == 512;
  }
  cr_expect(hot && warm);
  double skewed = p.flops;
  gcb__pat_prog_free(&p);
  pl.member = 1;
  cr_assert(gcb__pat_build(&pl, &p));
  cr_expect_lt(p.flops, skewed, "rank 1's experts are the cold ones");
  gcb__pat_prog_free(&p);
  pl.experts = 3; /* not a multiple of the group */
  cr_expect_not(gcb__pat_build(&pl, &p));
}

Test(pattern_plan, bad_plans_are_refused) {
  struct gcb_pat_prog p;
  struct gcb_pat_plan pl = plan(GCB_PAT_DP, 2, 2);
  cr_expect_not(gcb__pat_build(&pl, &p));
  pl = plan(GCB_PAT_PP, 2, 0);
  pl.microbatches = 0;
  cr_expect_not(gcb__pat_build(&pl, &p));
  gcb__pat_prog_free(NULL);
}

/* ---- tiles --------------------------------------------------------------- */

/* GEMMs run in tiles within the poll budget, so that the transports are
 * tested every ~0.3 ms of compute: rows of m (at least 16, at most m),
 * and repetitions of a batched GEMM per test (at least 1). */
Test(pattern_plan, gemm_tiles_stay_within_the_poll_budget) {
  static const struct {
    uint64_t m, n, k;
    double budget;
    uint64_t rows;
  } rows[] = {
      {128, 512, 128, 8.0 * (1 << 20), 64},  /* 16.8 MFLOP: two tiles */
      {128, 128, 128, 8.0 * (1 << 20), 128}, /* 4.2 MFLOP: whole */
      {4096, 4096, 4096, 64.0 * (1 << 30), 2048},
      {1000, 100000, 100000, 1e6, 16}, /* never below 16 rows */
      {8, 100000, 100000, 1e6, 8},     /* nor above m */
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    uint64_t r =
        gcb__pat_tile_rows(rows[i].m, rows[i].n, rows[i].k, rows[i].budget);
    cr_expect_eq(r, rows[i].rows, "row %zu: %llu", i, (unsigned long long)r);
  }
  /* Attention on tiny: 64 x 64 x 32 per head, 0.26 MFLOP: 32 a test. */
  cr_expect_eq(gcb__pat_tile_chunk(64, 64, 32, 8, 8.0 * (1 << 20)), 8);
  cr_expect_eq(gcb__pat_tile_chunk(64, 64, 32, 100, 8.0 * (1 << 20)), 32);
  cr_expect_eq(gcb__pat_tile_chunk(4096, 4096, 128, 64, 1e6), 1);
}
