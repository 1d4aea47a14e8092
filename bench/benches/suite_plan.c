/*
 * suite --dry-run: what a profile would run, and about how long it would
 * take, without running it. The context and backend are opened as the run
 * would open them (case counts depend on the ranks, the nodes and the
 * backend) and every benchmark's validate hook runs, so a plan that prints
 * is one the run accepts; then rank 0 prints each benchmark with its
 * options, its number of cases, their sizes and its iterations, and an
 * estimate of the time from a cost model: one row per benchmark that turns
 * its sizes into seconds with a few figures assumed for the backend
 * (latency, bandwidths, FLOP/s, the cost of a case's set-up). The figures
 * are round numbers of a healthy machine of each kind, not measurements;
 * the output says so and prints them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benches/coll.h"
#include "bench/benches/suite.h"
#include "bench/cli/commands.h"

/* What the cost model assumes of a backend, per rank. The host's figures
 * are this project's 2-core VM with two ranks (OpenBLAS's generic
 * Prescott kernels, one thread a rank): the default profile took 3 min
 * 17 s there on a quiet machine, and 7 min 37 s under a load average of
 * 17 (eight builds beside it), its time shared among the benchmarks as
 * gemm 38 %, membw 45 %, coll 6 %, pattern 11 %; these figures give each
 * benchmark its share of the quiet run, the whole within 4 %. */
struct rates {
  const char *backend;
  double latency_s; /* one small collective or message */
  double net_bw;    /* bytes/s a collective moves per rank (its busbw) */
  double mem_bw;    /* bytes/s of memory streaming */
  double init_bw;   /* bytes/s a case fills with random inputs and checks */
  double flops;     /* dense matrix multiply */
  double copy_bw;   /* host <-> device copies */
  double step_s;    /* one run of a training pattern's step (tiny model) */
  double case_s;    /* a case's set-up, validation, gather and record */
};

static const struct rates all_rates[] = {
    {.backend = "host",
     .latency_s = 20e-6,
     .net_bw = 2e9,
     .mem_bw = 5e9,
     .init_bw = 0.25e9,
     .flops = 6e9,
     .copy_bw = 5e9,
     .step_s = 70e-3,
     .case_s = 0.07},
    {.backend = "cuda",
     .latency_s = 30e-6,
     .net_bw = 150e9,
     .mem_bw = 3000e9,
     .init_bw = 20e9,
     .flops = 300e12,
     .copy_bw = 40e9,
     .step_s = 20e-3,
     .case_s = 0.05},
    {0},
};

/* One benchmark's part of the plan. */
struct plan_in {
  const struct gcb_ctx *ctx;
  const void *opts;
  json_t *echo; /* its resolved options, by long name */
  const struct rates *r;
  double iters, warmup;
  int cases;
};

struct plan_out {
  double seconds;
  int cases;        /* the cases that will run (count() less the skipped) */
  char left[192];   /* what the backend will skip, when some are left out */
  char sizes[1024]; /* what its cases range over */
  char skip[192];   /* non-empty: every case would be skipped, why */
};

static long echo_int(json_t *echo, const char *key) {
  return (long)json_integer_value(json_object_get(echo, key));
}

static void add(char *buf, size_t len, const char *fmt, const char *text) {
  size_t have = strlen(buf);
  if (have < len)
    snprintf(buf + have, len - have, fmt, text);
}

/* "a, b, c" from a set option's echo (an array of names), only those
 * `keep` (given `arg`) says will run, when it is given; the others are
 * named in out->left. Returns how many are kept, of how many. */
static int add_names_kept(char *buf, size_t len, const char *what, json_t *set,
                          bool (*keep)(const char *, void *), void *arg,
                          struct plan_out *out, int *of) {
  size_t i;
  json_t *v;
  int kept = 0;
  add(buf, len, "%s ", what);
  json_array_foreach(set, i, v) {
    const char *name = json_string_value(v);
    if (keep != NULL && !keep(name, arg)) {
      add(out->left, sizeof out->left, out->left[0] ? ", %s" : "%s", name);
      continue;
    }
    add(buf, len, kept++ ? ", %s" : "%s", name);
  }
  *of = (int)json_array_size(set);
  return kept;
}

static void add_names(char *buf, size_t len, const char *what, json_t *set) {
  int of;
  (void)add_names_kept(buf, len, what, set, NULL, NULL, NULL, &of);
}

/* The backend's answers for a gemm type and a membw kernel, by name. */
static bool gemm_keeps(const char *name, void *arg) {
  const struct gcb_backend_ops *b = arg;
  for (int t = 0; t < GCB_DTYPE_COUNT; t++)
    if (strcmp(gcb_dtype_name((enum gcb_dtype)t), name) == 0)
      return b->gemm_has == NULL || b->gemm_has((enum gcb_dtype)t);
  return true;
}

static bool membw_keeps(const char *name, void *arg) {
  const struct gcb_backend_ops *b = arg;
  for (int k = 0; k < GCB_MEMKERNEL_COUNT; k++)
    if (strcmp(gcb_memkernel_info((enum gcb_memkernel)k)->name, name) == 0)
      return b->stream_has == NULL || b->stream_has((enum gcb_memkernel)k);
  return true;
}

/* Scales the plan's cases to the names kept (the cases spread evenly over
 * them) and says what is left out. */
static void keep_share(const struct plan_in *in, struct plan_out *out, int kept,
                       int of, const char *what) {
  out->cases = of > 0 ? in->cases / of * kept : in->cases;
  if (out->left[0]) {
    char left[192];
    snprintf(left, sizeof left, "%s", out->left);
    snprintf(out->left, sizeof out->left, "%s (the %s backend has no such %s)",
             left, in->ctx->backend_ops->name, what);
  }
}

static void add_size(char *buf, size_t len, const char *fmt, uint64_t bytes) {
  char s[32];
  gcb_format_size(bytes, s, sizeof s);
  add(buf, len, fmt, s);
}

/* coll: every size of the sweep; each size's cases cost latency plus
 * twice the bytes at the assumed bus bandwidth per operation, -m
 * operations per timed iteration, and -c validations. */
static void plan_coll(const struct plan_in *in, struct plan_out *out) {
  const struct coll_opts *o = in->opts;
  add_names(out->sizes, sizeof out->sizes, "collectives",
            json_object_get(in->echo, "collective"));
  add(out->sizes, sizeof out->sizes, "%s", "; sizes (bytes)");
  double sum = 0;
  int nsizes = 0;
  for (uint64_t s = o->minbytes; s <= o->maxbytes && nsizes < 4096;
       s = gcb__coll_next_size(o, s), nsizes++) {
    add_size(out->sizes, sizeof out->sizes, " %s", s);
    double op = in->r->latency_s + 2.0 * (double)s / in->r->net_bw;
    sum += (in->iters * (double)o->agg + in->warmup + (double)o->check) * op +
           in->r->case_s;
  }
  /* The cases (every type, operator, split and -N cycle) spread evenly
   * over the sizes. */
  if (nsizes > 0)
    out->seconds = sum * in->cases / nsizes;
}

/* gemm: 2 m n k flops per operation at the assumed rate. */
static void plan_gemm(const struct plan_in *in, struct plan_out *out) {
  uint64_t d = in->ctx->backend_ops->gemm_default_dim;
  uint64_t m = (uint64_t)echo_int(in->echo, "m"),
           n = (uint64_t)echo_int(in->echo, "n"),
           k = (uint64_t)echo_int(in->echo, "k");
  m = m ? m : d, n = n ? n : m, k = k ? k : m;
  const char *shapes = json_string_value(json_object_get(in->echo, "shapes"));
  int of, kept = add_names_kept(out->sizes, sizeof out->sizes, "types",
                                json_object_get(in->echo, "dtype"), gemm_keeps,
                                (void *)in->ctx->backend_ops, out, &of);
  keep_share(in, out, kept, of, "GEMM type");
  if (shapes)
    add(out->sizes, sizeof out->sizes, "; shapes %s", shapes);
  add_size(out->sizes, sizeof out->sizes, "; m %s", m);
  add_size(out->sizes, sizeof out->sizes, " n %s", n);
  add_size(out->sizes, sizeof out->sizes, " k %s", k);
  double op = 2.0 * (double)m * (double)n * (double)k / in->r->flops;
  double init =
      8.0 *
      ((double)m * (double)k + (double)k * (double)n + (double)m * (double)n) /
      in->r->init_bw;
  out->seconds =
      out->cases * ((in->iters + in->warmup + 1) * op + init + in->r->case_s);
}

/* membw: three arrays streamed per operation (triad's traffic). */
static void plan_membw(const struct plan_in *in, struct plan_out *out) {
  uint64_t size = (uint64_t)echo_int(in->echo, "size");
  int of,
      kept = add_names_kept(out->sizes, sizeof out->sizes, "kernels",
                            json_object_get(in->echo, "kernel"), membw_keeps,
                            (void *)in->ctx->backend_ops, out, &of);
  keep_share(in, out, kept, of, "kernel");
  if (size == 0) { /* the benchmark's default: 4x the last-level cache */
    uint64_t c = in->ctx->device.cache_bytes ? in->ctx->device.cache_bytes
                                             : in->ctx->machine.llc_bytes;
    size = 4 * c > (64u << 20) ? 4 * c : (64u << 20);
    add(out->sizes, sizeof out->sizes, "%s", "; arrays of about");
  } else {
    add(out->sizes, sizeof out->sizes, "%s", "; arrays of");
  }
  add_size(out->sizes, sizeof out->sizes, " %s bytes", size);
  double op = 3.0 * (double)size / in->r->mem_bw;
  double init = 3.0 * (double)size / in->r->init_bw; /* every element checked */
  out->seconds =
      out->cases * ((in->iters + in->warmup + 2) * op + init + in->r->case_s);
}

/* pcie: a copy of each size at the assumed copy bandwidth. */
static void plan_pcie(const struct plan_in *in, struct plan_out *out) {
  if (in->ctx->backend_ops->pcie == NULL) {
    snprintf(out->skip, sizeof out->skip,
             "no host-device copies on the %s "
             "backend",
             in->ctx->backend_ops->name);
    return;
  }
  uint64_t lo = (uint64_t)echo_int(in->echo, "minbytes"),
           hi = (uint64_t)echo_int(in->echo, "maxbytes");
  double f = json_number_value(json_object_get(in->echo, "stepfactor"));
  add(out->sizes, sizeof out->sizes, "%s", "sizes (bytes)");
  double sum = 0;
  int nsizes = 0;
  for (uint64_t s = lo; s <= hi && nsizes < 4096; nsizes++) {
    add_size(out->sizes, sizeof out->sizes, " %s", s);
    sum += (in->iters + in->warmup) *
               (in->r->latency_s + (double)s / in->r->copy_bw) +
           in->r->case_s;
    uint64_t next = (uint64_t)((double)s * f);
    s = next > s ? next : s + 1;
  }
  out->seconds = nsizes ? sum * in->cases / nsizes : 0;
}

/* netmap: on fewer nodes than --min-nodes every case is skipped; else a
 * window of messages (bandwidth) or 8 round trips (latency) per sample,
 * half the cases each. */
static void plan_netmap(const struct plan_in *in, struct plan_out *out) {
  long min_nodes = echo_int(in->echo, "min-nodes");
  if (in->ctx->size < 2 || in->ctx->node_count < min_nodes) {
    snprintf(out->skip, sizeof out->skip,
             in->ctx->size < 2 ? "one rank: no pair of ranks to map"
                               : "the ranks share %d node(s), --min-nodes "
                                 "is %ld: the map runs across nodes",
             in->ctx->node_count, min_nodes);
    return;
  }
  uint64_t size = (uint64_t)echo_int(in->echo, "size");
  long window = echo_int(in->echo, "window");
  snprintf(out->sizes, sizeof out->sizes, "every ordered pair of %d ranks",
           in->ctx->size);
  add_size(out->sizes, sizeof out->sizes, "; messages of %s bytes", size);
  double bw = (double)window * (double)size / in->r->net_bw,
         lat = 16 * in->r->latency_s;
  out->seconds =
      in->cases * ((in->iters + in->warmup) * (bw + lat) / 2 + in->r->case_s);
}

/* Every case: its iterations at step_s each, and its set-up. The plans
 * below skip a benchmark whose operation the backend lacks (a NULL
 * callback: the run skips each case, saying so). */
static void plan_steps(const struct plan_in *in, struct plan_out *out,
                       double step_s) {
  out->seconds =
      in->cases * ((in->iters + in->warmup) * step_s + in->r->case_s);
}

static void plan_p2p(const struct plan_in *in, struct plan_out *out) {
  if (in->ctx->backend_ops->p2p == NULL) {
    snprintf(out->skip, sizeof out->skip,
             "no GPU peer copies on the %s "
             "backend",
             in->ctx->backend_ops->name);
    return;
  }
  uint64_t size = (uint64_t)echo_int(in->echo, "size");
  add_size(out->sizes, sizeof out->sizes, "copies of %s bytes", size);
  plan_steps(in, out, in->r->latency_s + (double)size / in->r->net_bw);
}

static void plan_launch(const struct plan_in *in, struct plan_out *out) {
  if (in->ctx->backend_ops->launch == NULL) {
    snprintf(out->skip, sizeof out->skip,
             "no kernel launches on the %s "
             "backend",
             in->ctx->backend_ops->name);
    return;
  }
  long batch = echo_int(in->echo, "batch");
  snprintf(out->sizes, sizeof out->sizes, "batches of %ld launches", batch);
  plan_steps(in, out, (double)batch * 5e-6);
}

static void plan_pattern(const struct plan_in *in, struct plan_out *out) {
  add_names(out->sizes, sizeof out->sizes, "patterns",
            json_object_get(in->echo, "patterns"));
  add(out->sizes, sizeof out->sizes, "; model %s",
      json_string_value(json_object_get(in->echo, "model")));
  /* Five cases a variant; its first runs compute alone, communication
   * alone and the step once each per iteration, the others none. */
  out->seconds = in->cases * in->r->case_s +
                 in->cases / 5.0 * 3 * (in->iters + in->warmup) * in->r->step_s;
}

/* burn: as long as it is told (the watchdog and the set-up aside). */
static void plan_burn(const struct plan_in *in, struct plan_out *out) {
  double duration = json_number_value(json_object_get(in->echo, "duration")),
         interval = json_number_value(json_object_get(in->echo, "interval"));
  char text[96];
  snprintf(text, sizeof text, "%g s of GEMMs, a point every %g s", duration,
           interval);
  add(out->sizes, sizeof out->sizes, "%s", text);
  out->seconds = in->cases * (duration + in->r->case_s);
}

static void plan_other(const struct plan_in *in, struct plan_out *out) {
  plan_steps(in, out, 1e-3);
}

/* The cost model, one row per benchmark (its descriptor, not its name);
 * others take 1 ms an operation. */
static const struct {
  const struct gcb_bench *bench;
  void (*plan)(const struct plan_in *in, struct plan_out *out);
} models[] = {
    {&gcb_bench_coll, plan_coll},     {&gcb_bench_gemm, plan_gemm},
    {&gcb_bench_membw, plan_membw},   {&gcb_bench_pcie, plan_pcie},
    {&gcb_bench_netmap, plan_netmap}, {&gcb_bench_p2p, plan_p2p},
    {&gcb_bench_launch, plan_launch}, {&gcb_bench_pattern, plan_pattern},
    {&gcb_bench_burn, plan_burn},     {NULL, plan_other},
};

static void format_duration(double s, char *buf, size_t len) {
  if (s < 60)
    snprintf(buf, len, "%.0f s", s < 1 ? 1 : s);
  else if (s < 3600)
    snprintf(buf, len, "%.0f min %.0f s", (double)(long)(s / 60),
             s - 60 * (double)(long)(s / 60));
  else
    snprintf(buf, len, "%.1f h", s / 3600);
}

static double plan_bench(const struct gcb__suite_plan *p, size_t i,
                         const struct gcb_ctx *ctx, const struct rates *r) {
  const struct gcb_bench *b = p->benches[i];
  struct gcb_option_group g = {b->name, b->options, p->opts[i]};
  struct plan_in in = {.ctx = ctx,
                       .opts = p->opts[i],
                       .echo = gcb_options_to_json(&g, 1),
                       .r = r,
                       .iters = (double)p->ro->iters,
                       .warmup = (double)p->ro->warmup,
                       .cases = b->count(ctx, p->opts[i])};
  struct plan_out out = {.cases = in.cases};
  size_t m = 0;
  while (models[m].bench != NULL && models[m].bench != b)
    m++;
  models[m].plan(&in, &out);
  json_decref(in.echo);
  const char *words =
      p->texts[i] && p->texts[i][0] ? p->texts[i] : "(its defaults)";
  if (ctx->rank != 0) /* count() is collective: every rank plans */
    return out.seconds;
  if (out.skip[0]) {
    printf("%-8s skipped: %s\n         options: %s\n", b->name, out.skip,
           words);
    return 0;
  }
  char took[32];
  format_duration(out.seconds, took, sizeof took);
  printf("%-8s %d case(s), about %s\n         options: %s\n", b->name,
         out.cases, took, words);
  if (out.left[0])
    printf("         left out: %s (%d case(s) skipped)\n", out.left,
           in.cases - out.cases);
  if (out.sizes[0])
    printf("         %s\n", out.sizes);
  return out.seconds;
}

static const struct rates *rates_of(const char *backend) {
  const struct rates *r = all_rates;
  while (r[1].backend && strcmp(r->backend, backend) != 0)
    r++;
  return r;
}

static void print_plan(const struct gcb__suite_plan *p,
                       const struct gcb_ctx *ctx) {
  const struct rates *r = rates_of(ctx->backend_ops->name);
  if (ctx->rank == 0)
    printf("# gcbench suite --profile %s --dry-run: the plan (nothing runs, no "
           "file is written)\n# %d rank(s) on %d node(s); backend %s\n"
           "# run options: %s; every case: %ld warm-up then %ld timed "
           "iteration(s)\n",
           p->profile, ctx->size, ctx->node_count, ctx->backend_reason,
           p->run_text[0] ? p->run_text : "(the defaults)", p->ro->warmup,
           p->ro->iters);
  double total = 0;
  for (size_t i = 0; p->benches[i]; i++)
    total += plan_bench(p, i, ctx, r);
  char took[32];
  format_duration(total, took, sizeof took);
  if (ctx->rank != 0)
    return;
  printf("# estimated time: about %s. An estimate from a cost model, not a "
         "measurement: it assumes, per rank on the %s backend, %.0f us a "
         "small operation, %.0f GB/s for collectives and messages, %.0f GB/s "
         "of memory, %.2g GB/s to fill and check a case's arrays, %.0f "
         "GFLOP/s, %.0f GB/s host-device copies, %.0f ms a pattern step and "
         "%.0f ms to set up, check and record each case; a slower or busier "
         "machine takes longer\n",
         took, r->backend, r->latency_s * 1e6, r->net_bw / 1e9, r->mem_bw / 1e9,
         r->init_bw / 1e9, r->flops / 1e9, r->copy_bw / 1e9, r->step_s * 1e3,
         r->case_s * 1e3);
}

int gcb__suite_plan(const struct gcb__suite_plan *p, int argc, char **argv) {
  (void)argc, (void)argv;
  struct gcb_ctx ctx;
  enum gcb_status st = gcb_context_init(&ctx);
  if (st == GCB_OK)
    st = gcb_context_open_backend(&ctx, p->ro->backend);
  if (st == GCB_OK)
    st = gcb_harness_validate(&ctx, p->benches, p->opts);
  int code = 0;
  if (st != GCB_OK) {
    gcb__print_error(ctx.rank, gcb_errmsg(&ctx));
    code = gcb_status_exit_code(st);
    code = code ? code : 3;
  } else {
    print_plan(p, &ctx);
    fflush(stdout);
  }
  gcb_context_free(&ctx);
  return code;
}
