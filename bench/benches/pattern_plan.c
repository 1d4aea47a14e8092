/*
 * The pure facts of the pattern benchmark: model presets and the shapes of
 * their layers, the layout of parallel groups on ranks, DDP's gradient
 * buckets, expert routing under skew and the ideal pipeline bubble. No
 * MPI, no backend: every function here is a function of its arguments
 * (contracts in pattern.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/benches/pattern.h"

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
