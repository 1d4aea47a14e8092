/*
 * The pattern view (contracts in pattern_view.h): cases of bench
 * "pattern" grouped by their parameters less "part", and the figures of
 * docs/PATTERNS.md derived from the five parts' per-rank median times.
 */
#include "reports/analysis/pattern_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "reports/analysis/analyze.h"
#include "reports/document/bench_kind.h"

static const char *const part_names[GCB_PART_COUNT] = {
    "compute", "comm", "step", "step-compute", "step-comm"};

static int part_of(const struct gcb_model_case *c) {
  const char *p = gcb_model_param_str(c, "part");
  for (int i = 0; i < GCB_PART_COUNT; i++)
    if (strcmp(p, part_names[i]) == 0)
      return i;
  return -1;
}

/* The lesser; NAN when either is (a part not measured). */
static double fmin2(double a, double b) {
  return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
}

/* The overlap of a hidden time against the shorter half: shown within
 * [0, 1] when the hidden time exceeds its noise, else NAN (no overlap
 * measurable: on two host cores the ranks' noise is larger than any). */
static void overlap_of(double hidden, double noise, double lo, bool *shown,
                       double *overlap, double *overlap_noise) {
  *shown = lo > 0 && hidden > noise;
  *overlap_noise = lo > 0 ? noise / lo : NAN;
  *overlap = NAN;
  if (*shown)
    *overlap = hidden / lo > 1 ? 1 : hidden / lo;
}

/* sd^2 / n of one part: the variance of its median's estimate (n unknown
 * counts as one sample). */
static double var_of(const struct gcb_pattern_rank *r, int p) {
  double sd = isnan(r->sd[p]) ? 0 : r->sd[p];
  return sd * sd / (r->n[p] >= 1 ? r->n[p] : 1);
}

/* The figures of one rank of a group from its part times: fills
 * everything after t[], sd[], n[]. A rank alone in its group
 * communicates with nobody: the step beyond its compute is the
 * executor's own time, no exposed communication. */
static void rank_derive(struct gcb_pattern_rank *r, bool pipeline, bool alone) {
  const double *t = r->t;
  double tc = t[GCB_PART_COMPUTE], tm = t[GCB_PART_COMM], ts = t[GCB_PART_STEP],
         busy = t[GCB_PART_STEP_COMPUTE];
  r->exposed = ts - tc > 0 ? ts - tc : 0;
  if (isnan(ts) || isnan(tc) || alone)
    r->exposed = NAN;
  r->exposed_share = ts > 0 ? r->exposed / ts : NAN;
  /* Compute and communication alone were measured interleaved with the
   * step, so drift cancels in the medians; what remains is their noise. */
  r->hidden = tc + tm - ts;
  r->hidden_noise =
      2 * sqrt(var_of(r, GCB_PART_COMPUTE) + var_of(r, GCB_PART_COMM) +
               var_of(r, GCB_PART_STEP));
  overlap_of(r->hidden, r->hidden_noise, fmin2(tc, tm), &r->measurable,
             &r->overlap, &r->overlap_noise);
  r->comp_slowdown = tc > 0 ? busy / tc - 1 : NAN;
  r->comm_slowdown = tm > 0 ? t[GCB_PART_STEP_COMM] / tm - 1 : NAN;
  /* The breakdown: compute alone, never more than the step; what is left
   * is communication the step waited for, and in a pipeline beyond the
   * communication's own time, the bubble. */
  r->bar_compute = ts - r->exposed;
  r->bar_exposed = pipeline ? fmin2(r->exposed, tm) : r->exposed;
  r->bar_bubble = pipeline ? r->exposed - r->bar_exposed : 0;
  r->bubble = pipeline && ts > 0 ? r->bar_bubble / ts : NAN;
  if (isnan(r->exposed))
    r->bar_compute = r->bar_exposed = r->bar_bubble = r->bubble = NAN;
  if (alone)
    r->bar_compute = ts;
}

/* The figure at `offset` of each rank of g (NAN ones left out): its
 * (max - mean) / max, the rank with the largest in *arg_max, and the mean
 * in *mean. */
static double imbalance(const struct gcb_pattern_group *g, size_t offset,
                        size_t *arg_max, double *mean) {
  double sum = 0, max = -INFINITY;
  size_t k = 0, used = 0;
  for (size_t i = 0; i < g->nranks; i++) {
    double v = *(const double *)((const char *)&g->ranks[i] + offset);
    if (isnan(v))
      continue;
    sum += v;
    used++;
    if (v > max)
      max = v, k = i;
  }
  *arg_max = k;
  *mean = used ? sum / (double)used : NAN;
  return used > 0 && max > 0 ? (max - *mean) / max : NAN;
}

static double mean_of(const struct gcb_pattern_group *g, size_t offset) {
  size_t ignored;
  double mean;
  imbalance(g, offset, &ignored, &mean);
  return mean;
}

#define PART_AT(p) (offsetof(struct gcb_pattern_rank, t) + (p) * sizeof(double))

void gcb_pattern_group_derive(struct gcb_pattern_group *g) {
  bool pipe = g->pattern != NULL && strcmp(g->pattern, "pp") == 0;
  /* A group of one has no communication parts (gcbench pattern skips
   * them); a document of before measured NCCL's local copy there. */
  bool alone = g->group == 1;
  double noise2 = 0;
  for (size_t i = 0; i < g->nranks; i++) {
    struct gcb_pattern_rank *r = &g->ranks[i];
    if (alone)
      r->t[GCB_PART_COMM] = r->t[GCB_PART_STEP_COMM] = NAN;
    rank_derive(r, pipe, alone);
    double e = g->ranks[i].hidden_noise;
    noise2 += isnan(e) ? 0 : e * e;
  }
  size_t k;
  double busy_mean;
  g->busy_imbalance =
      imbalance(g, PART_AT(GCB_PART_STEP_COMPUTE), &k, &busy_mean);
  g->straggler =
      g->nranks > 0 && !isnan(g->busy_imbalance) ? g->ranks[k].rank : -1;
  g->step_imbalance = imbalance(g, PART_AT(GCB_PART_STEP), &k, &g->step_mean);
  g->compute_mean = mean_of(g, PART_AT(GCB_PART_COMPUTE));
  g->comm_mean = mean_of(g, PART_AT(GCB_PART_COMM));
  double ts = g->step_mean, tc = g->compute_mean, tm = g->comm_mean;
  g->exposed = isnan(ts) || isnan(tc) || alone ? NAN
               : ts - tc > 0                   ? ts - tc
                                               : 0;
  g->exposed_share = ts > 0 ? g->exposed / ts : NAN;
  g->hidden = tc + tm - ts;
  g->hidden_noise = g->nranks ? sqrt(noise2) / (double)g->nranks : NAN;
  overlap_of(g->hidden, g->hidden_noise, fmin2(tc, tm), &g->measurable,
             &g->overlap, &g->overlap_noise);
  g->bubble_mean = mean_of(g, offsetof(struct gcb_pattern_rank, bubble));
}

void gcb_pattern_fmt_ms(double seconds, char *buf, size_t len) {
  if (isnan(seconds))
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, "%.4g", seconds * 1e3);
}

void gcb_pattern_fmt_overlap(bool measurable, double overlap, double noise,
                             char *buf, size_t len) {
  if (isnan(noise)) /* compute or comm not measured: nothing to overlap */
    snprintf(buf, len, "-");
  else if (!measurable || isnan(overlap))
    snprintf(buf, len, "no overlap measurable");
  else
    snprintf(buf, len, "%.2f \xc2\xb1 %.2f", overlap, noise);
}

void gcb_pattern_fmt_pct(double frac, char *buf, size_t len) {
  if (isnan(frac))
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, "%.1f%%", 100 * frac);
}

/* Per-rank part times from the group's cases, then the figures. */
static enum gcb_status derive(struct gcb_pattern_group *g,
                              struct gcb_err *err) {
  size_t n = 0;
  for (int p = 0; p < GCB_PART_COUNT; p++)
    if (g->cases[p] != NULL && g->cases[p]->ranks.n > n)
      n = g->cases[p]->ranks.n;
  g->ranks = calloc(n + 1, sizeof *g->ranks);
  if (g->ranks == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "pattern view: out of memory");
  g->nranks = n;
  for (size_t i = 0; i < n; i++) {
    struct gcb_pattern_rank *r = &g->ranks[i];
    r->rank = (long long)i;
    for (int p = 0; p < GCB_PART_COUNT; p++) {
      const struct gcb_model_case *c = g->cases[p];
      r->t[p] = r->sd[p] = NAN;
      r->n[p] = 0;
      if (c == NULL || i >= c->ranks.n)
        continue;
      r->t[p] = gcb_analyze_rank_time(c, i);
      r->sd[p] = gcb_model_col(c, GCB_RC_TIME_STDEV, i);
      double k = gcb_model_col(c, GCB_RC_TIME_N, i);
      r->n[p] = isnan(k) ? 0 : trunc(k);
      r->rank = gcb_model_col_rank(c, i, -1);
    }
  }
  gcb_pattern_group_derive(g);
  return GCB_OK;
}

static void titled(struct gcb_pattern_group *g,
                   const struct gcb_model_case *c) {
  g->pattern = gcb_model_param_str(c, "pattern");
  g->span = gcb_model_param_str(c, "span");
  g->placement = gcb_model_param_str(c, "placement");
  g->skew = gcb_model_param_num(c, "skew");
  g->group = gcb_model_param_num(c, "group");
  g->ideal_bubble = gcb_model_param_num(c, "ideal_bubble");
  g->skew_cost = g->placement_cost = NAN;
  char var[40] = "";
  if (g->placement[0])
    snprintf(var, sizeof var, " %s", g->placement);
  else if (!isnan(g->skew))
    snprintf(var, sizeof var, " skew %g", g->skew);
  snprintf(g->title, sizeof g->title, "%s%s", g->pattern, var);
}

/* Whether a and b have the same parameters but "part" (the parts differ
 * in unit too), equal as jansson's json_equal says. */
static bool same_but_part(const struct gcb_model_case *a,
                          const struct gcb_model_case *b) {
  const struct gcb_mvalue *pa = &a->params, *pb = &b->params;
  size_t na = 0, nb = 0;
  for (size_t i = 0; i < pa->n; i++) {
    const struct gcb_mkv *kv = &pa->members[i];
    if (strcmp(kv->key, "part") == 0)
      continue;
    na++;
    if (!gcb_mvalue_equal(&kv->value, gcb_mvalue_get(pb, kv->key)))
      return false;
  }
  for (size_t i = 0; i < pb->n; i++)
    nb += strcmp(pb->members[i].key, "part") != 0;
  return na == nb;
}

/* The first case of a group (the one it was made for). */
static const struct gcb_model_case *
first_case(const struct gcb_pattern_group *g) {
  for (int p = 0; p < GCB_PART_COUNT; p++)
    if (g->cases[p] != NULL)
      return g->cases[p];
  return NULL;
}

/* The group of case c, made when new; NULL on ENOMEM. */
static struct gcb_pattern_group *group_for(struct gcb_pattern_groups *out,
                                           size_t *cap,
                                           const struct gcb_model_case *c) {
  for (size_t i = 0; i < out->n; i++)
    if (same_but_part(first_case(&out->items[i]), c))
      return &out->items[i];
  if (!gcb_grow((void **)&out->items, cap, out->n, sizeof *out->items))
    return NULL;
  struct gcb_pattern_group *g = &out->items[out->n++];
  memset(g, 0, sizeof *g);
  titled(g, c);
  return g;
}

/* The figures that compare two groups: skew against the uniform group,
 * the outer placement against the inner. */
static void costs(struct gcb_pattern_groups *gs) {
  for (size_t i = 0; i < gs->n; i++) {
    struct gcb_pattern_group *g = &gs->items[i];
    for (size_t j = 0; j < gs->n; j++) {
      const struct gcb_pattern_group *h = &gs->items[j];
      if (i == j || strcmp(g->pattern, h->pattern) != 0 || !(h->step_mean > 0))
        continue;
      if (g->skew > 0 && h->skew == 0)
        g->skew_cost = g->step_mean / h->step_mean - 1;
      if (strcmp(g->placement, "outer") == 0 &&
          strcmp(h->placement, "inner") == 0)
        g->placement_cost = g->step_mean / h->step_mean - 1;
    }
  }
}

enum gcb_status gcb_pattern_groups_build_model(const struct gcb_model *m,
                                               struct gcb_pattern_groups *out,
                                               struct gcb_err *err) {
  memset(out, 0, sizeof *out);
  size_t cap = 0;
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < m->ncases; i++) {
    const struct gcb_model_case *c = &m->cases[i];
    int part = part_of(c);
    if (c->kind != GCB_BENCH_PATTERN || part < 0)
      continue;
    struct gcb_pattern_group *g = group_for(out, &cap, c);
    if (g == NULL) {
      st = gcb_err_set(err, GCB_ENOMEM, "pattern view: out of memory");
      break;
    }
    if (isnan(g->group) && m->run.ranks == 1) /* a document without it */
      g->group = 1;
    g->cases[part] = c;
  }
  for (size_t i = 0; st == GCB_OK && i < out->n; i++)
    st = derive(&out->items[i], err);
  if (st == GCB_OK)
    costs(out);
  else
    gcb_pattern_groups_free(out);
  return st;
}

void gcb_pattern_groups_free(struct gcb_pattern_groups *g) {
  if (g == NULL)
    return;
  for (size_t i = 0; i < g->n; i++)
    free(g->items[i].ranks);
  free(g->items);
  memset(g, 0, sizeof *g);
}

bool gcb_pattern_group_even(const struct gcb_pattern_group *g) {
  return !(g->skew > 0);
}

bool gcb_pattern_group_straggles(const struct gcb_pattern_group *g,
                                 double imbalance_pct) {
  return g->nranks >= 2 && g->straggler >= 0 && gcb_pattern_group_even(g) &&
         g->busy_imbalance * 100 > imbalance_pct; /* false for NAN */
}

const struct gcb_pattern_group *
gcb_pattern_group_of_case(const struct gcb_pattern_groups *g,
                          const struct gcb_model_case *c) {
  for (size_t i = 0; c != NULL && i < g->n; i++)
    for (int p = 0; p < GCB_PART_COUNT; p++)
      if (g->items[i].cases[p] == c)
        return &g->items[i];
  return NULL;
}
