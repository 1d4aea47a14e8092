/*
 * The pure half of the pattern benchmark: training-step patterns as
 * programs. Model presets, the layout of parallel groups on ranks, DDP's
 * bucket assignment, expert routing under skew and one program per
 * pattern: a model description and group sizes become a list of
 * instructions for one rank (GEMMs of given shapes, starts of collectives
 * on one of a few transports, "slots", and waits on a slot), and each
 * GEMM's tiles within a poll budget. Nothing here touches MPI, a backend
 * or a transport, so every shape and every order is tested against
 * hand-computed values (tests/bench/test_pattern_plan.c). pattern.c, the
 * benchmark, lays the groups out, runs the programs and records the
 * cases; docs/PATTERNS.md explains each schedule.
 *
 * Every function is a function of its arguments; only gcb__pat_build
 * allocates (the program, freed by gcb__pat_prog_free).
 */
#ifndef GCB_PATTERN_PLAN_H
#define GCB_PATTERN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- model --------------------------------------------------------------- */

/* A decoder-only transformer, as the launchers describe it. */
struct gcb_pat_model {
  const char *name;  /* preset name, or "custom" */
  uint64_t hidden;   /* h */
  uint64_t layers;   /* L */
  uint64_t heads;    /* attention heads */
  uint64_t kv_heads; /* key/value heads (grouped-query attention) */
  uint64_t ffn;      /* MLP width */
  bool gated;        /* SwiGLU: fc1 has 2 * ffn outputs */
  uint64_t seq;      /* sequence length */
  uint64_t batch;    /* micro-batch size per rank (sequences) */
};

/* Presets for a few public model sizes, NULL-name terminated. */
extern const struct gcb_pat_model gcb__pat_presets[];

/* "auto" and every preset's name, NULL-terminated: --model's choices. */
extern const char *const gcb__pat_model_names[];

/* The preset of that name, or NULL. */
const struct gcb_pat_model *gcb__pat_preset(const char *name);

/* Why the model cannot be split this way ("" when it can): heads and ffn
 * divisible by tp, layers by pp; false with the reason in why. */
bool gcb__pat_model_check(const struct gcb_pat_model *m, int tp, int pp,
                          char *why, size_t len);

/* The four linear layers of a block, in forward order. */
enum gcb_pat_linear {
  GCB_PAT_QKV,
  GCB_PAT_PROJ,
  GCB_PAT_FC1,
  GCB_PAT_FC2,
  GCB_PAT_LINEARS
};

/* Inputs and outputs of one linear layer, unsplit. */
void gcb__pat_linear_dims(const struct gcb_pat_model *m, enum gcb_pat_linear l,
                          uint64_t *in, uint64_t *out);

/* Weights of one transformer block (the four linear layers; biases and
 * norms are left out, under 0.1 % of them). */
uint64_t gcb__pat_layer_params(const struct gcb_pat_model *m);

/* ---- layout -------------------------------------------------------------- */

enum gcb_pat_dim {
  GCB_PAT_DIM_TP,
  GCB_PAT_DIM_DP,
  GCB_PAT_DIM_PP,
  GCB_PAT_DIMS
};

/* Group sizes laid out on ranks, order[0] varying fastest (Megatron-LM's
 * default tp, dp, pp: tensor-parallel peers on consecutive ranks, inside a
 * node). Expert-parallel groups are consecutive dp ranks, ep of them. */
struct gcb_pat_layout {
  int size[GCB_PAT_DIMS];
  enum gcb_pat_dim order[GCB_PAT_DIMS];
  int ep;
};

/* Parses "tp,dp,pp" (each dimension once) into order; false otherwise. */
bool gcb__pat_parse_order(const char *text, enum gcb_pat_dim order[3]);

/* The coordinate of `rank` along each dimension. */
void gcb__pat_coords(const struct gcb_pat_layout *l, int rank,
                     int coords[GCB_PAT_DIMS]);

/* The rank at these coordinates. */
int gcb__pat_rank_at(const struct gcb_pat_layout *l,
                     const int coords[GCB_PAT_DIMS]);

/* The group of `rank` along `dim`: a colour shared by its members (the
 * lowest member's rank) and the rank's place in it. */
void gcb__pat_group(const struct gcb_pat_layout *l, int rank,
                    enum gcb_pat_dim dim, int *color, int *key);

/* The expert-parallel group of `rank`: ep consecutive dp ranks. */
void gcb__pat_ep_group(const struct gcb_pat_layout *l, int rank, int *color,
                       int *key);

/* The pipeline pair of split `parity` (0: stages 0-1, 2-3...; 1: 1-2,
 * 3-4...) holding `rank`: false when the rank is in none. */
bool gcb__pat_pp_pair(const struct gcb_pat_layout *l, int rank, int parity,
                      int *color, int *key);

/* ---- programs ------------------------------------------------------------ */

/* Patterns, in case order. */
#define GCB_PAT_LIST(X)                                                        \
  X(DP, "dp", "data parallel, gradient allreduce in buckets (DDP)")            \
  X(FSDP, "fsdp", "sharded data parallel (FSDP / ZeRO-3)")                     \
  X(TP, "tp", "tensor parallel (Megatron-LM)")                                 \
  X(TPSP, "tp-sp", "tensor parallel with sequence parallelism")                \
  X(PP, "pp", "pipeline parallel, 1F1B")                                       \
  X(EP, "ep", "expert parallel, all-to-all dispatch and combine")

enum gcb_pat_kind {
#define GCB__PAT_ENUM(id, name, what) GCB_PAT_##id,
  GCB_PAT_LIST(GCB__PAT_ENUM)
#undef GCB__PAT_ENUM
      GCB_PAT_COUNT
};

extern const char *const gcb__pat_names[]; /* NULL-terminated */

/* Transports a program starts collectives on. */
enum gcb_pat_slot {
  GCB_PAT_MAIN, /* the pattern's group (FSDP: allgathers) */
  GCB_PAT_AUX,  /* FSDP: reduce-scatters, on their own stream */
  GCB_PAT_NEXT, /* pipeline: the pair with the next stage */
  GCB_PAT_PREV, /* pipeline: the pair with the previous stage */
  GCB_PAT_SLOTS
};

enum gcb_pat_op { GCB_PAT_GEMM, GCB_PAT_START, GCB_PAT_WAIT };

struct gcb_pat_ins {
  enum gcb_pat_op op;
  int arg;    /* GEMM: shape index; START: collective index; WAIT: slot */
  int reps;   /* GEMM: repetitions (batched heads) */
  bool first; /* GEMM: the first compute of a step (where --delay-rank
                 sleeps) */
};

struct gcb_pat_gemm {
  uint64_t m, n, k;
};

struct gcb_pat_coll {
  const char *op; /* collectives table name: "allreduce" ... */
  uint64_t count; /* nccl-tests count, in elements */
  int slot;
  int root; /* broadcast: the sending member of the pair */
  int tag;  /* distinct buffers for operations in flight together */
};

/* What one rank runs in one step of one pattern. */
struct gcb_pat_prog {
  struct gcb_pat_ins *ins;
  size_t nins, cap_ins;
  struct gcb_pat_gemm *gemms;
  size_t ngemms, cap_gemms;
  struct gcb_pat_coll *colls;
  size_t ncolls, cap_colls;
  double flops;      /* 2 m n k summed over the GEMMs, reps included */
  double comm_elems; /* counts summed over started collectives */
  bool oom;          /* sticky: an append failed */
};

/* Everything a program is built from. */
struct gcb_pat_plan {
  enum gcb_pat_kind kind;
  struct gcb_pat_model model;
  int group;  /* size of the pattern's group (tp, dp, pp or ep) */
  int member; /* this rank's place in it (pp: its stage) */
  uint64_t bucket_elems, first_bucket_elems; /* DDP, in elements */
  int microbatches;                          /* pp: m */
  double skew;       /* ep: Zipf exponent of routing, 0 = uniform */
  int experts, topk; /* ep */
};

/* Builds the program of `plan` for its member; false on out of memory or
 * a plan that makes no sense (checked first by the benchmark). */
bool gcb__pat_build(const struct gcb_pat_plan *plan, struct gcb_pat_prog *out);

void gcb__pat_prog_free(struct gcb_pat_prog *p);

/* DDP's buckets (torch.nn.parallel.DistributedDataParallel): the model's
 * parameter tensors in reverse order (the order backward makes their
 * gradients), a bucket closed once it holds at least its cap (the first
 * bucket's cap is first_bucket, as DDP's 1 MiB first bucket); a tensor
 * never splits. Fills up to `max` bucket sizes (elements) and returns
 * how many buckets there are. `closes_after[t]`, when given (one entry
 * per tensor in that order), is the bucket closed by tensor t, else -1. */
int gcb__pat_buckets(const struct gcb_pat_model *m, uint64_t first_bucket,
                     uint64_t bucket, uint64_t *sizes, int max,
                     int *closes_after);

/* Tokens each expert of the ep group receives in one layer: group ranks
 * send tokens * topk choices, expert e taking the Zipf share
 * (e + 1)^-skew / H (uniform at skew 0). Rounded to whole tokens. */
void gcb__pat_expert_tokens(uint64_t tokens, int group, int experts, int topk,
                            double skew, uint64_t *per_expert);

/* The all-to-all block per peer (tokens): every block padded to the most
 * loaded rank's share, as a capacity-factor MoE that drops nothing. */
uint64_t gcb__pat_a2a_block(uint64_t tokens, int group, int experts, int topk,
                            double skew);

/* The ideal 1F1B bubble, (p - 1) / (m + p - 1). */
double gcb__pat_ideal_bubble(int stages, int microbatches);

/* ---- tiles --------------------------------------------------------------- */

/* Rows of a tile of an m x n x k GEMM within `budget` flops (at least 16,
 * at most m), and the repetitions of a batched one per test (>= 1): the
 * executor tests the transports between tiles. */
uint64_t gcb__pat_tile_rows(uint64_t m, uint64_t n, uint64_t k, double budget);
int gcb__pat_tile_chunk(uint64_t m, uint64_t n, uint64_t k, int reps,
                        double budget);

#endif
