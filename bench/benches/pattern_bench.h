/*
 * Internal to the pattern benchmark: its options, its run-wide state and
 * the functions its two files share (pattern.c: options, validation,
 * descriptor; pattern_case.c: the resources of a variant, cases, timing).
 */
#ifndef GCB_PATTERN_BENCH_H
#define GCB_PATTERN_BENCH_H

#include "bench/bench.h"
#include "bench/benches/pattern_exec.h"

#define GCB_PAT_PARTS 5

struct pattern_opts {
  uint32_t patterns; /* bit set over enum gcb_pat_kind */
  int model;         /* index into gcb__pat_model_names */
  uint64_t hidden, layers, heads, kv_heads, ffn, seq, batch;
  int dtype; /* index into pattern.c's --dtype choices */
  long tp, pp, dp, ep;
  const char *order;
  uint32_t placements;
  uint64_t bucket, first_bucket;
  long microbatches;
  double skew;
  long experts, topk;
  const char *transport;
  const char *delay;
};

/* One pattern variant: five cases. */
struct variant {
  enum gcb_pat_kind kind;
  int placement; /* tp, tp-sp: 0 inner, 1 outer */
  double skew;   /* ep */
};

struct pattern_state {
  struct gcb_pat_model model;
  enum gcb_dtype gemm_type;
  enum gcb_coll_dtype coll_type;
  const struct gcb_coll_ops *ops;
  int delay_rank;
  double delay_s;
  int current; /* variant whose resources are held; -1 none */
  enum gcb_status built;
  char why[256];
  struct gcb_pat_res res;
  struct gcb_pat_plan plan; /* of the variant held */
  struct gcb_pat_layout layout;
  char span[16];     /* intra-node, inter-node or mixed */
  double poll_flops; /* a GEMM tile between two tests of the transports */
  /* The samples of the five parts of the variant `sampled` (-1: none),
   * measured interleaved by its first part's case. */
  double *samples[GCB_PAT_PARTS];
  long nsamples;
  int sampled;
  char model_name[32]; /* "llama2-7b (1 layer)": the preset as given */
};

/* The index-th variant of the options, in pattern order; false past
 * the last. */
bool gcb__pat_nth_variant(const struct pattern_opts *o, int index,
                          struct variant *out);

/* Group sizes from --tp --pp --dp --ep --order (see pattern.c). */
enum gcb_status gcb__pat_resolve_layout(const struct gcb_ctx *ctx,
                                        const struct pattern_opts *o,
                                        struct gcb_pat_layout *l,
                                        struct gcb_err *err);

/* Whether any of --tp --pp --dp --ep was given (else each pattern runs
 * alone over every rank). */
bool gcb__pat_layout_given(const struct pattern_opts *o);

/* Bytes one rank allocates for the largest variant the options ask for
 * (rank 0's share: every rank's is alike), `what` naming it; 0 when no
 * variant can run. s holds the resolved model and types. */
uint64_t gcb__pat_need(const struct gcb_ctx *ctx, const struct pattern_opts *o,
                       struct pattern_state *s, char *what, size_t len);

/* The benchmark's setup and measure hooks (struct gcb_bench). */
enum gcb_status gcb__pat_setup(struct gcb_ctx *ctx, const void *opts,
                               void *state, int index, struct gcb_record *rec,
                               struct gcb_op *op, struct gcb_err *err);
enum gcb_status gcb__pat_measure(struct gcb_ctx *ctx, const void *opts,
                                 void *state, struct gcb_op *op,
                                 struct gcb_timing *timing,
                                 struct gcb_rank_result *out,
                                 struct gcb_err *err);

#endif
