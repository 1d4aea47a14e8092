/*
 * The pure half of the pattern benchmark (contracts in pattern_plan.h):
 * the facts a step is built from (model presets and the shapes of their
 * layers, the layout of parallel groups on ranks, DDP's gradient buckets,
 * expert routing under skew, the ideal pipeline bubble), then one
 * training step of each pattern as a program for one rank: the GEMMs of
 * the layers it holds, in the order a framework runs them, and the
 * collectives, started and waited where the framework starts and waits
 * them (docs/PATTERNS.md gives each schedule in words). Shapes are
 * m x n x k of C = A B: a linear layer of `in` inputs and `out` outputs
 * over N tokens is N x out x in forward, N x in x out for the input's
 * gradient (dgrad) and in x out x N for the weights' (wgrad). Last, the
 * tiles the executor cuts a GEMM into. No MPI, no backend: every function
 * here is a function of its arguments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benches/pattern_plan.h"

/* ---- model --------------------------------------------------------------- */

/* Public sizes: GPT-2 (Radford et al. 2019, small and XL), Llama 2 7B and
 * Llama 3 8B (their config.json: hidden_size, num_hidden_layers,
 * num_attention_heads, num_key_value_heads, intermediate_size), GPT-3 175B
 * (Brown et al. 2020, table 2.1). "tiny" is for CI on the host backend.
 * Micro-batch sizes are what one GPU takes at that sequence length. */
const struct gcb_pat_model gcb__pat_presets[] = {
    {"tiny", 128, 2, 4, 4, 512, false, 64, 2},
    {"gpt2", 768, 12, 12, 12, 3072, false, 1024, 8},
    {"gpt2-xl", 1600, 48, 25, 25, 6400, false, 1024, 4},
    {"llama2-7b", 4096, 32, 32, 32, 11008, true, 4096, 1},
    {"llama3-8b", 4096, 32, 32, 8, 14336, true, 8192, 1},
    {"gpt3-175b", 12288, 96, 96, 96, 49152, false, 2048, 1},
    {NULL, 0, 0, 0, 0, 0, false, 0, 0},
};

const char *const gcb__pat_model_names[] = {
    "auto",      "tiny",      "gpt2",      "gpt2-xl",
    "llama2-7b", "llama3-8b", "gpt3-175b", NULL};

const char *const gcb__pat_names[] = {
#define GCB__PAT_NAME(id, name, what) name,
    GCB_PAT_LIST(GCB__PAT_NAME)
#undef GCB__PAT_NAME
        NULL};

const struct gcb_pat_model *gcb__pat_preset(const char *name) {
  for (const struct gcb_pat_model *m = gcb__pat_presets; m->name; m++)
    if (strcmp(m->name, name) == 0)
      return m;
  return NULL;
}

bool gcb__pat_model_check(const struct gcb_pat_model *m, int tp, int pp,
                          char *why, size_t len) {
  why[0] = '\0';
  if (m->hidden == 0 || m->layers == 0 || m->heads == 0 || m->kv_heads == 0 ||
      m->ffn == 0 || m->seq == 0 || m->batch == 0)
    snprintf(why, len, "every model dimension must be at least 1");
  else if (m->hidden % m->heads != 0)
    snprintf(why, len, "hidden %llu is not a multiple of heads %llu",
             (unsigned long long)m->hidden, (unsigned long long)m->heads);
  else if (m->heads % m->kv_heads != 0)
    snprintf(why, len, "heads %llu is not a multiple of kv-heads %llu",
             (unsigned long long)m->heads, (unsigned long long)m->kv_heads);
  else if (tp > 0 && (m->heads % (uint64_t)tp || m->kv_heads % (uint64_t)tp ||
                      m->ffn % (uint64_t)tp))
    snprintf(why, len,
             "tp %d does not divide heads %llu, kv-heads %llu and ffn %llu", tp,
             (unsigned long long)m->heads, (unsigned long long)m->kv_heads,
             (unsigned long long)m->ffn);
  else if (tp > 0 && (m->batch * m->seq) % (uint64_t)tp)
    snprintf(why, len, "tp %d does not divide the %llu tokens of a micro-batch",
             tp, (unsigned long long)(m->batch * m->seq));
  else if (pp > 0 && m->layers % (uint64_t)pp)
    snprintf(why, len, "pp %d does not divide layers %llu", pp,
             (unsigned long long)m->layers);
  return why[0] == '\0';
}

void gcb__pat_linear_dims(const struct gcb_pat_model *m, enum gcb_pat_linear l,
                          uint64_t *in, uint64_t *out) {
  uint64_t head_dim = m->hidden / m->heads;
  switch (l) {
  case GCB_PAT_QKV: /* queries, then keys and values of the kv heads */
    *in = m->hidden, *out = m->hidden + 2 * m->kv_heads * head_dim;
    break;
  case GCB_PAT_PROJ:
    *in = m->hidden, *out = m->hidden;
    break;
  case GCB_PAT_FC1:
    *in = m->hidden, *out = m->gated ? 2 * m->ffn : m->ffn;
    break;
  default:
    *in = m->ffn, *out = m->hidden;
    break;
  }
}

uint64_t gcb__pat_layer_params(const struct gcb_pat_model *m) {
  uint64_t total = 0, in, out;
  for (int l = 0; l < GCB_PAT_LINEARS; l++) {
    gcb__pat_linear_dims(m, (enum gcb_pat_linear)l, &in, &out);
    total += in * out;
  }
  return total;
}

/* ---- layout -------------------------------------------------------------- */

bool gcb__pat_parse_order(const char *text, enum gcb_pat_dim order[3]) {
  static const char *const names[GCB_PAT_DIMS] = {"tp", "dp", "pp"};
  bool seen[GCB_PAT_DIMS] = {false, false, false};
  const char *p = text;
  for (int i = 0; i < GCB_PAT_DIMS; i++) {
    int d = 0;
    while (d < GCB_PAT_DIMS && strncmp(p, names[d], 2) != 0)
      d++;
    if (d == GCB_PAT_DIMS || seen[d] || p[2] != (i < 2 ? ',' : '\0'))
      return false;
    seen[d] = true;
    order[i] = (enum gcb_pat_dim)d;
    p += 3;
  }
  return true;
}

void gcb__pat_coords(const struct gcb_pat_layout *l, int rank,
                     int coords[GCB_PAT_DIMS]) {
  for (int i = 0; i < GCB_PAT_DIMS; i++) {
    int n = l->size[l->order[i]];
    coords[l->order[i]] = rank % n;
    rank /= n;
  }
}

int gcb__pat_rank_at(const struct gcb_pat_layout *l,
                     const int coords[GCB_PAT_DIMS]) {
  int rank = 0;
  for (int i = GCB_PAT_DIMS - 1; i >= 0; i--)
    rank = rank * l->size[l->order[i]] + coords[l->order[i]];
  return rank;
}

void gcb__pat_group(const struct gcb_pat_layout *l, int rank,
                    enum gcb_pat_dim dim, int *color, int *key) {
  int c[GCB_PAT_DIMS];
  gcb__pat_coords(l, rank, c);
  *key = c[dim];
  c[dim] = 0;
  *color = gcb__pat_rank_at(l, c);
}

void gcb__pat_ep_group(const struct gcb_pat_layout *l, int rank, int *color,
                       int *key) {
  int c[GCB_PAT_DIMS];
  gcb__pat_coords(l, rank, c);
  int ep = l->ep > 0 ? l->ep : 1;
  *key = c[GCB_PAT_DIM_DP] % ep;
  c[GCB_PAT_DIM_DP] -= *key;
  *color = gcb__pat_rank_at(l, c);
}

bool gcb__pat_pp_pair(const struct gcb_pat_layout *l, int rank, int parity,
                      int *color, int *key) {
  int c[GCB_PAT_DIMS];
  gcb__pat_coords(l, rank, c);
  int s = c[GCB_PAT_DIM_PP], lo = s % 2 == parity ? s : s - 1;
  if (lo < 0 || lo + 1 >= l->size[GCB_PAT_DIM_PP])
    return false;
  *key = s - lo;
  c[GCB_PAT_DIM_PP] = lo;
  *color = gcb__pat_rank_at(l, c);
  return true;
}

/* ---- buckets, routing, bubble -------------------------------------------- */

int gcb__pat_buckets(const struct gcb_pat_model *m, uint64_t first_bucket,
                     uint64_t bucket, uint64_t *sizes, int max,
                     int *closes_after) {
  int n = 0, t = 0;
  uint64_t fill = 0, in, out;
  for (uint64_t layer = m->layers; layer-- > 0;)
    for (int l = GCB_PAT_LINEARS - 1; l >= 0; l--, t++) {
      gcb__pat_linear_dims(m, (enum gcb_pat_linear)l, &in, &out);
      fill += in * out;
      uint64_t cap = n == 0 ? first_bucket : bucket;
      bool closes = fill >= cap || (layer == 0 && l == 0);
      if (closes_after)
        closes_after[t] = closes ? n : -1;
      if (closes) {
        if (n < max)
          sizes[n] = fill;
        n++;
        fill = 0;
      }
    }
  return n;
}

/* Zipf weights of the experts, normalised to sum to 1. */
static void zipf(int experts, double skew, double *w) {
  double sum = 0;
  for (int e = 0; e < experts; e++)
    sum += w[e] = pow((double)(e + 1), -skew);
  for (int e = 0; e < experts; e++)
    w[e] /= sum;
}

void gcb__pat_expert_tokens(uint64_t tokens, int group, int experts, int topk,
                            double skew, uint64_t *per_expert) {
  double w[experts > 0 ? experts : 1];
  zipf(experts, skew, w);
  double sent = (double)tokens * (double)topk * (double)group;
  for (int e = 0; e < experts; e++)
    per_expert[e] = (uint64_t)llround(sent * w[e]);
}

uint64_t gcb__pat_a2a_block(uint64_t tokens, int group, int experts, int topk,
                            double skew) {
  double w[experts > 0 ? experts : 1], most = 0;
  zipf(experts, skew, w);
  int per_rank = experts / group;
  for (int r = 0; r < group; r++) {
    double share = 0;
    for (int e = r * per_rank; e < (r + 1) * per_rank; e++)
      share += w[e];
    if (share > most)
      most = share;
  }
  /* A small tolerance keeps an exact share (uniform) from rounding up. */
  return (uint64_t)ceil((double)tokens * (double)topk * most - 1e-9);
}

double gcb__pat_ideal_bubble(int stages, int microbatches) {
  return (double)(stages - 1) / (double)(microbatches + stages - 1);
}

/* ---- programs ------------------------------------------------------------ */

static bool grow(void **items, size_t *cap, size_t n, size_t size) {
  if (n < *cap)
    return true;
  size_t c = *cap ? 2 * *cap : 32;
  void *p = realloc(*items, c * size);
  if (p == NULL)
    return false;
  *items = p;
  *cap = c;
  return true;
}

static void emit(struct gcb_pat_prog *p, struct gcb_pat_ins ins) {
  if (p->oom ||
      !(p->oom = !grow((void **)&p->ins, &p->cap_ins, p->nins, sizeof ins)))
    p->ins[p->nins++] = ins;
}

/* A GEMM, its shape shared with any earlier one of the same size. */
static void gemm(struct gcb_pat_prog *p, uint64_t m, uint64_t n, uint64_t k,
                 int reps) {
  if (m == 0 || n == 0 || k == 0 || p->oom)
    return;
  size_t i = 0;
  while (i < p->ngemms &&
         !(p->gemms[i].m == m && p->gemms[i].n == n && p->gemms[i].k == k))
    i++;
  if (i == p->ngemms) {
    if (!grow((void **)&p->gemms, &p->cap_gemms, p->ngemms, sizeof *p->gemms)) {
      p->oom = true;
      return;
    }
    p->gemms[p->ngemms++] = (struct gcb_pat_gemm){m, n, k};
  }
  bool first = p->flops == 0;
  p->flops += 2.0 * (double)m * (double)n * (double)k * reps;
  emit(p, (struct gcb_pat_ins){
              .op = GCB_PAT_GEMM, .arg = (int)i, .reps = reps, .first = first});
}

/* Starts a collective, its buffers shared with earlier ones of the same
 * (operation, count, slot, root, tag). */
static void start(struct gcb_pat_prog *p, const char *op, uint64_t count,
                  int slot, int root, int tag) {
  if (p->oom)
    return;
  struct gcb_pat_coll c = {op, count, slot, root, tag};
  size_t i = 0;
  while (i < p->ncolls &&
         !(strcmp(p->colls[i].op, op) == 0 && p->colls[i].count == count &&
           p->colls[i].slot == slot && p->colls[i].root == root &&
           p->colls[i].tag == tag))
    i++;
  if (i == p->ncolls) {
    if (!grow((void **)&p->colls, &p->cap_colls, p->ncolls, sizeof c)) {
      p->oom = true;
      return;
    }
    p->colls[p->ncolls++] = c;
  }
  p->comm_elems += (double)count;
  emit(p, (struct gcb_pat_ins){.op = GCB_PAT_START, .arg = (int)i});
}

static void wait_slot(struct gcb_pat_prog *p, int slot) {
  emit(p, (struct gcb_pat_ins){.op = GCB_PAT_WAIT, .arg = slot});
}

/* start + wait: a collective the next computation depends on. */
static void blocking(struct gcb_pat_prog *p, const char *op, uint64_t count,
                     int slot) {
  start(p, op, count, slot, 0, 0);
  wait_slot(p, slot);
}

void gcb__pat_prog_free(struct gcb_pat_prog *p) {
  if (p == NULL)
    return;
  free(p->ins);
  free(p->gemms);
  free(p->colls);
  memset(p, 0, sizeof *p);
}

/* ---- layers -------------------------------------------------------------- */

static uint64_t tokens(const struct gcb_pat_model *m) {
  return m->batch * m->seq;
}

/* Linear layer l of a block over n tokens, its outputs (column parallel)
 * or inputs (row parallel) divided by tp. */
static void dims(const struct gcb_pat_model *m, enum gcb_pat_linear l, int tp,
                 uint64_t *in, uint64_t *out) {
  gcb__pat_linear_dims(m, l, in, out);
  if (l == GCB_PAT_QKV || l == GCB_PAT_FC1)
    *out /= (uint64_t)tp;
  else
    *in /= (uint64_t)tp;
}

static void fwd(struct gcb_pat_prog *p, const struct gcb_pat_model *m,
                enum gcb_pat_linear l, int tp) {
  uint64_t in, out;
  dims(m, l, tp, &in, &out);
  gemm(p, tokens(m), out, in, 1);
}

static void dgrad(struct gcb_pat_prog *p, const struct gcb_pat_model *m,
                  enum gcb_pat_linear l, int tp) {
  uint64_t in, out;
  dims(m, l, tp, &in, &out);
  gemm(p, tokens(m), in, out, 1);
}

static void wgrad(struct gcb_pat_prog *p, const struct gcb_pat_model *m,
                  enum gcb_pat_linear l, int tp) {
  uint64_t in, out;
  dims(m, l, tp, &in, &out);
  gemm(p, in, out, tokens(m), 1);
}

/* Attention itself, per sequence and head (heads / tp of them): scores
 * Q K^T (s x s x d) and their product with V (s x d x s); backward twice
 * each (dQ and dK from the scores' gradient, dV and the scores'). */
static void attention(struct gcb_pat_prog *p, const struct gcb_pat_model *m,
                      int tp, bool backward) {
  uint64_t d = m->hidden / m->heads, s = m->seq;
  int reps = (int)(m->batch * (m->heads / (uint64_t)tp));
  for (int i = 0; i < (backward ? 2 : 1); i++) {
    gemm(p, s, s, d, reps);
    gemm(p, s, d, s, reps);
  }
}

static void layer_fwd(struct gcb_pat_prog *p, const struct gcb_pat_model *m) {
  fwd(p, m, GCB_PAT_QKV, 1);
  attention(p, m, 1, false);
  fwd(p, m, GCB_PAT_PROJ, 1);
  fwd(p, m, GCB_PAT_FC1, 1);
  fwd(p, m, GCB_PAT_FC2, 1);
}

/* Backward of one linear layer: the input's gradient, then the weights'. */
static void linear_bwd(struct gcb_pat_prog *p, const struct gcb_pat_model *m,
                       enum gcb_pat_linear l, int tp) {
  dgrad(p, m, l, tp);
  wgrad(p, m, l, tp);
}

/* ---- data parallel ------------------------------------------------------- */

/* DDP: forward, then backward layer by layer from the last; each
 * parameter's gradient joins the open bucket, and a full bucket's
 * allreduce starts at once, overlapping the rest of backward; the step
 * ends waiting for every bucket (the optimizer needs them all). */
static void build_dp(struct gcb_pat_prog *p, const struct gcb_pat_plan *pl) {
  const struct gcb_pat_model *m = &pl->model;
  size_t tensors = (size_t)m->layers * GCB_PAT_LINEARS;
  int *closes = malloc(tensors * sizeof *closes + 1);
  uint64_t *sizes = malloc((tensors + 1) * sizeof *sizes);
  if (closes == NULL || sizes == NULL) {
    p->oom = true;
  } else {
    int n = gcb__pat_buckets(m, pl->first_bucket_elems, pl->bucket_elems, sizes,
                             (int)tensors + 1, closes);
    (void)n;
    for (uint64_t l = 0; l < m->layers; l++)
      layer_fwd(p, m);
    size_t t = 0;
    for (uint64_t layer = m->layers; layer-- > 0;)
      for (int l = GCB_PAT_LINEARS - 1; l >= 0; l--, t++) {
        if (l == GCB_PAT_PROJ)
          attention(p, m, 1, true);
        linear_bwd(p, m, (enum gcb_pat_linear)l, 1);
        if (closes[t] >= 0)
          start(p, "allreduce", sizes[closes[t]], GCB_PAT_MAIN, 0, closes[t]);
      }
    wait_slot(p, GCB_PAT_MAIN);
  }
  free(closes);
  free(sizes);
}

/* FSDP (ZeRO-3), one unit per block: the block's parameters allgathered
 * before it runs, the next block's prefetched while it computes (forward
 * and backward prefetch), gathered again for backward
 * (reshard_after_forward), its gradients reduce-scattered after its
 * backward on a second stream; the step waits for the last. */
static void build_fsdp(struct gcb_pat_prog *p, const struct gcb_pat_plan *pl) {
  const struct gcb_pat_model *m = &pl->model;
  uint64_t params = gcb__pat_layer_params(m);
  start(p, "allgather", params, GCB_PAT_MAIN, 0, 0);
  for (uint64_t l = 0; l < m->layers; l++) {
    wait_slot(p, GCB_PAT_MAIN);
    if (l + 1 < m->layers)
      start(p, "allgather", params, GCB_PAT_MAIN, 0, 0);
    layer_fwd(p, m);
  }
  start(p, "allgather", params, GCB_PAT_MAIN, 0, 0);
  for (uint64_t l = m->layers; l-- > 0;) {
    wait_slot(p, GCB_PAT_MAIN);
    if (l > 0)
      start(p, "allgather", params, GCB_PAT_MAIN, 0, 0);
    for (int k = GCB_PAT_LINEARS - 1; k >= 0; k--) {
      if (k == GCB_PAT_PROJ)
        attention(p, m, 1, true);
      linear_bwd(p, m, (enum gcb_pat_linear)k, 1);
    }
    start(p, "reducescatter", params, GCB_PAT_AUX, 0, (int)l);
  }
  wait_slot(p, GCB_PAT_AUX);
}

/* ---- tensor parallel ----------------------------------------------------- */

/* Megatron-LM's block: QKV and fc1 column parallel, proj and fc2 row
 * parallel; forward, an allreduce of the N x h activations after proj
 * and after fc2. Backward: none after the row-parallel layers (identity),
 * and after each column-parallel layer's dgrad the allreduce of the
 * input's gradient, started before its wgrad and waited after it
 * (async_tensor_model_parallel_allreduce). With sequence parallelism
 * (tp-sp) each allreduce is a reduce-scatter, and an allgather of the
 * sequence-sharded activations comes before each column-parallel layer;
 * backward gathers again for the wgrad while dgrad runs. */
static void tp_block_fwd(struct gcb_pat_prog *p, const struct gcb_pat_model *m,
                         int tp, bool sp, enum gcb_pat_linear col,
                         enum gcb_pat_linear row) {
  uint64_t act = tokens(m) * m->hidden;
  if (sp)
    blocking(p, "allgather", act, GCB_PAT_MAIN);
  fwd(p, m, col, tp);
  if (col == GCB_PAT_QKV)
    attention(p, m, tp, false);
  fwd(p, m, row, tp);
  blocking(p, sp ? "reducescatter" : "allreduce", act, GCB_PAT_MAIN);
}

static void tp_block_bwd(struct gcb_pat_prog *p, const struct gcb_pat_model *m,
                         int tp, bool sp, enum gcb_pat_linear col,
                         enum gcb_pat_linear row) {
  uint64_t act = tokens(m) * m->hidden;
  if (sp) /* the output's gradient, sequence-sharded */
    blocking(p, "allgather", act, GCB_PAT_MAIN);
  linear_bwd(p, m, row, tp);
  if (col == GCB_PAT_QKV)
    attention(p, m, tp, true);
  if (sp) { /* the input again, for the wgrad, while dgrad runs */
    start(p, "allgather", act, GCB_PAT_MAIN, 0, 0);
    dgrad(p, m, col, tp);
    wait_slot(p, GCB_PAT_MAIN);
  } else {
    dgrad(p, m, col, tp);
  }
  start(p, sp ? "reducescatter" : "allreduce", act, GCB_PAT_MAIN, 0, 0);
  wgrad(p, m, col, tp);
  wait_slot(p, GCB_PAT_MAIN);
}

static void build_tp(struct gcb_pat_prog *p, const struct gcb_pat_plan *pl,
                     bool sp) {
  const struct gcb_pat_model *m = &pl->model;
  for (uint64_t l = 0; l < m->layers; l++) {
    tp_block_fwd(p, m, pl->group, sp, GCB_PAT_QKV, GCB_PAT_PROJ);
    tp_block_fwd(p, m, pl->group, sp, GCB_PAT_FC1, GCB_PAT_FC2);
  }
  for (uint64_t l = 0; l < m->layers; l++) {
    tp_block_bwd(p, m, pl->group, sp, GCB_PAT_FC1, GCB_PAT_FC2);
    tp_block_bwd(p, m, pl->group, sp, GCB_PAT_QKV, GCB_PAT_PROJ);
  }
}

/* ---- pipeline ------------------------------------------------------------ */

/* One stage's forward or backward of one micro-batch: its L / p layers. */
static void stage_compute(struct gcb_pat_prog *p, const struct gcb_pat_model *m,
                          int stages, bool backward) {
  for (uint64_t l = 0; l < m->layers / (uint64_t)stages; l++) {
    if (!backward) {
      layer_fwd(p, m);
      continue;
    }
    for (int k = GCB_PAT_LINEARS - 1; k >= 0; k--) {
      if (k == GCB_PAT_PROJ)
        attention(p, m, 1, true);
      linear_bwd(p, m, (enum gcb_pat_linear)k, 1);
    }
  }
}

/* One exchange with a neighbour: the activation (broadcast from the lower
 * stage of the pair, root 0) and/or the gradient (from the upper, root
 * 1), both started before either is waited, as Megatron-LM batches
 * send_forward_recv_backward; the activation first on both sides. */
static void exchange(struct gcb_pat_prog *p, uint64_t act, int slot, bool f,
                     bool b) {
  if (f)
    start(p, "broadcast", act, slot, 0, 0);
  if (b)
    start(p, "broadcast", act, slot, 1, 0);
  wait_slot(p, slot);
}

/* Megatron-LM's 1F1B (forward_backward_pipelining_without_interleaving):
 * min(p - s - 1, m) warm-up forwards, then one forward and one backward
 * at a time, then the remaining backwards. Links to a missing neighbour
 * (first and last stage) carry nothing. */
static void build_pp(struct gcb_pat_prog *p, const struct gcb_pat_plan *pl) {
  const struct gcb_pat_model *m = &pl->model;
  int s = pl->member, st = pl->group, mb = pl->microbatches;
  int warm = st - s - 1 < mb ? st - s - 1 : mb, rest = mb - warm;
  bool has_prev = s > 0, has_next = s + 1 < st;
  uint64_t act = tokens(m) * m->hidden;
  for (int i = 0; i < warm; i++) {
    if (has_prev)
      exchange(p, act, GCB_PAT_PREV, true, false);
    stage_compute(p, m, st, false);
    if (has_next)
      exchange(p, act, GCB_PAT_NEXT, true, false);
  }
  if (rest > 0 && has_prev)
    exchange(p, act, GCB_PAT_PREV, true, false);
  for (int i = 0; i < rest; i++) {
    stage_compute(p, m, st, false);
    if (has_next)
      exchange(p, act, GCB_PAT_NEXT, true, true);
    stage_compute(p, m, st, true);
    if (has_prev)
      exchange(p, act, GCB_PAT_PREV, i + 1 < rest, true);
  }
  for (int i = 0; i < warm; i++) {
    if (has_next)
      exchange(p, act, GCB_PAT_NEXT, false, true);
    stage_compute(p, m, st, true);
    if (has_prev)
      exchange(p, act, GCB_PAT_PREV, false, true);
  }
}

/* ---- experts ------------------------------------------------------------- */

/* The local experts' FFNs over the tokens routed to them. */
static void experts(struct gcb_pat_prog *p, const struct gcb_pat_model *m,
                    const uint64_t *load, int first, int count, bool backward) {
  uint64_t h = m->hidden, f1 = m->gated ? 2 * m->ffn : m->ffn;
  for (int e = first; e < first + count; e++) {
    uint64_t t = load[e];
    if (!backward) {
      gemm(p, t, f1, h, 1);
      gemm(p, t, h, m->ffn, 1);
      continue;
    }
    gemm(p, t, m->ffn, h, 1); /* fc2 dgrad, wgrad */
    gemm(p, m->ffn, h, t, 1);
    gemm(p, t, h, f1, 1); /* fc1 dgrad, wgrad */
    gemm(p, h, f1, t, 1);
  }
}

/* A MoE block per layer: attention (every rank, dense), then dispatch
 * (all-to-all), the local experts, combine (all-to-all); backward the
 * same in reverse. The all-to-all's blocks are padded to the most loaded
 * rank's (uniform all-to-all, a capacity that drops no token); the
 * experts compute the tokens actually routed to them. */
static void build_ep(struct gcb_pat_prog *p, const struct gcb_pat_plan *pl) {
  const struct gcb_pat_model *m = &pl->model;
  int g = pl->group, per = pl->experts / g;
  uint64_t *load = calloc((size_t)pl->experts + 1, sizeof *load);
  if (load == NULL) {
    p->oom = true;
    return;
  }
  gcb__pat_expert_tokens(tokens(m), g, pl->experts, pl->topk, pl->skew, load);
  uint64_t block =
      gcb__pat_a2a_block(tokens(m), g, pl->experts, pl->topk, pl->skew);
  uint64_t count = block * m->hidden * (uint64_t)g;
  for (uint64_t l = 0; l < m->layers; l++) {
    fwd(p, m, GCB_PAT_QKV, 1);
    attention(p, m, 1, false);
    fwd(p, m, GCB_PAT_PROJ, 1);
    blocking(p, "alltoall", count, GCB_PAT_MAIN);
    experts(p, m, load, pl->member * per, per, false);
    blocking(p, "alltoall", count, GCB_PAT_MAIN);
  }
  for (uint64_t l = 0; l < m->layers; l++) {
    blocking(p, "alltoall", count, GCB_PAT_MAIN);
    experts(p, m, load, pl->member * per, per, true);
    blocking(p, "alltoall", count, GCB_PAT_MAIN);
    linear_bwd(p, m, GCB_PAT_PROJ, 1);
    attention(p, m, 1, true);
    linear_bwd(p, m, GCB_PAT_QKV, 1);
  }
  free(load);
}

bool gcb__pat_build(const struct gcb_pat_plan *pl, struct gcb_pat_prog *out) {
  memset(out, 0, sizeof *out);
  if (pl->group < 1 || pl->member < 0 || pl->member >= pl->group)
    return false;
  switch (pl->kind) {
  case GCB_PAT_DP:
    build_dp(out, pl);
    break;
  case GCB_PAT_FSDP:
    build_fsdp(out, pl);
    break;
  case GCB_PAT_TP:
  case GCB_PAT_TPSP:
    build_tp(out, pl, pl->kind == GCB_PAT_TPSP);
    break;
  case GCB_PAT_PP:
    if (pl->microbatches < 1)
      return false;
    build_pp(out, pl);
    break;
  case GCB_PAT_EP:
    if (pl->experts < pl->group || pl->experts % pl->group || pl->topk < 1)
      return false;
    build_ep(out, pl);
    break;
  default:
    return false;
  }
  if (out->oom)
    gcb__pat_prog_free(out);
  return !out->oom && out->nins > 0;
}

/* ---- tiles --------------------------------------------------------------- */

uint64_t gcb__pat_tile_rows(uint64_t m, uint64_t n, uint64_t k, double budget) {
  double row = 2.0 * (double)n * (double)k;
  double fit = row > 0 ? budget / row : (double)m;
  uint64_t rows = fit >= (double)m ? m : (uint64_t)fit;
  if (rows < 16)
    rows = 16;
  return rows < m ? rows : m;
}

int gcb__pat_tile_chunk(uint64_t m, uint64_t n, uint64_t k, int reps,
                        double budget) {
  double one = 2.0 * (double)m * (double)n * (double)k;
  double fit = one > 0 ? budget / one : (double)reps;
  int chunk = fit >= (double)reps ? reps : (int)fit;
  return chunk < 1 ? 1 : chunk;
}
