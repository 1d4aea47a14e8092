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

#include "reports/document/ranks.h"
#include "reports/document/view.h"

static const char *const part_names[GCB_PART_COUNT] = {
    "compute", "comm", "step", "step-compute", "step-comm"};

static int part_of(const json_t *c) {
  const char *p = gcb_view_param_str(c, "part");
  for (int i = 0; i < GCB_PART_COUNT; i++)
    if (strcmp(p, part_names[i]) == 0)
      return i;
  return -1;
}

static double fmin2(double a, double b) {
  return a < b ? a : b;
}

void gcb_pattern_rank_derive(struct gcb_pattern_rank *r, bool pipeline) {
  const double *t = r->t;
  double tc = t[GCB_PART_COMPUTE], tm = t[GCB_PART_COMM], ts = t[GCB_PART_STEP],
         busy = t[GCB_PART_STEP_COMPUTE];
  double lo = fmin2(tc, tm);
  /* Below -1 the step is longer than compute and communication back to
   * back by more than the shorter of them: waiting, not a lack of
   * overlap; the figure stops at -100 % so that one number stays
   * readable. Above 1 (noise) it stops at 100 %. */
  r->overlap = lo > 0 ? (tc + tm - ts) / lo : NAN;
  if (r->overlap < -1)
    r->overlap = -1;
  else if (r->overlap > 1)
    r->overlap = 1;
  r->exposed = ts > 0 ? (ts - tc) / ts : NAN;
  r->comp_slowdown = tc > 0 ? busy / tc - 1 : NAN;
  r->comm_slowdown = tm > 0 ? t[GCB_PART_STEP_COMM] / tm - 1 : NAN;
  r->bubble = pipeline && ts > 0 ? 1 - busy / ts : NAN;
  /* The breakdown: compute within the step, never more than the step;
   * what is left is communication the step waited for, and in a
   * pipeline beyond the communication's own time, the bubble. */
  r->bar_compute = fmin2(busy, ts);
  double idle = ts - r->bar_compute;
  r->bar_exposed = pipeline ? fmin2(idle, tm) : idle;
  r->bar_bubble = pipeline ? idle - r->bar_exposed : 0;
  if (isnan(busy) || isnan(ts))
    r->bar_compute = r->bar_exposed = r->bar_bubble = NAN;
}

/* The per-rank median time of a case (the figure's time). */
static double rank_time(const struct gcb_ranks *pr, size_t i) {
  double s = gcb_ranks_num(pr, GCB_RC_FIGURE_TIME, i);
  return isnan(s) ? gcb_ranks_num(pr, GCB_RC_TIME_MEDIAN, i) : s;
}

static double imbalance(const double *x, size_t n, size_t *arg_max) {
  double sum = 0, max = -INFINITY;
  size_t k = 0, used = 0;
  for (size_t i = 0; i < n; i++) {
    if (isnan(x[i]))
      continue;
    sum += x[i];
    used++;
    if (x[i] > max)
      max = x[i], k = i;
  }
  *arg_max = k;
  return used > 0 && max > 0 ? (max - sum / (double)used) / max : NAN;
}

static double mean_of(const struct gcb_pattern_group *g, size_t offset) {
  double sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < g->nranks; i++) {
    double v = *(const double *)((const char *)&g->ranks[i] + offset);
    if (!isnan(v))
      sum += v, n++;
  }
  return n ? sum / (double)n : NAN;
}

/* Per-rank figures and the group's, once its cases are known. */
static enum gcb_status derive(struct gcb_pattern_group *g,
                              struct gcb_err *err) {
  struct gcb_ranks pr[GCB_PART_COUNT];
  size_t n = 0;
  for (int p = 0; p < GCB_PART_COUNT; p++) {
    gcb_ranks_of(g->cases[p], &pr[p]); /* NULL case: n = 0 */
    if (g->cases[p] != NULL && pr[p].n > n)
      n = pr[p].n;
  }
  g->ranks = calloc(n + 1, sizeof *g->ranks);
  double *busy = calloc(n + 1, sizeof *busy),
         *step = calloc(n + 1, sizeof *step);
  if (g->ranks == NULL || busy == NULL || step == NULL) {
    free(busy), free(step);
    return gcb_err_set(err, GCB_ENOMEM, "pattern view: out of memory");
  }
  g->nranks = n;
  bool pipe = strcmp(g->pattern, "pp") == 0;
  for (size_t i = 0; i < n; i++) {
    struct gcb_pattern_rank *r = &g->ranks[i];
    r->rank = (long long)i;
    for (int p = 0; p < GCB_PART_COUNT; p++) {
      r->t[p] = NAN;
      if (g->cases[p] == NULL || i >= pr[p].n)
        continue;
      r->t[p] = rank_time(&pr[p], i);
      r->rank = gcb_ranks_rank(&pr[p], i);
    }
    gcb_pattern_rank_derive(r, pipe);
    busy[i] = r->t[GCB_PART_STEP_COMPUTE];
    step[i] = r->t[GCB_PART_STEP];
  }
  size_t k = 0, ignored;
  g->busy_imbalance = imbalance(busy, n, &k);
  g->straggler = n > 0 && !isnan(g->busy_imbalance) ? g->ranks[k].rank : -1;
  g->step_imbalance = imbalance(step, n, &ignored);
  g->step_mean = mean_of(g, offsetof(struct gcb_pattern_rank, t) +
                                GCB_PART_STEP * sizeof(double));
  g->overlap_mean = mean_of(g, offsetof(struct gcb_pattern_rank, overlap));
  g->exposed_mean = mean_of(g, offsetof(struct gcb_pattern_rank, exposed));
  g->bubble_mean = mean_of(g, offsetof(struct gcb_pattern_rank, bubble));
  free(busy);
  free(step);
  return GCB_OK;
}

static void titled(struct gcb_pattern_group *g, const json_t *c) {
  g->pattern = gcb_view_param_str(c, "pattern");
  g->span = gcb_view_param_str(c, "span");
  g->placement = gcb_view_param_str(c, "placement");
  g->skew = gcb_view_param_num(c, "skew");
  g->ideal_bubble = gcb_view_param_num(c, "ideal_bubble");
  g->skew_cost = g->placement_cost = NAN;
  char var[40] = "";
  if (g->placement[0])
    snprintf(var, sizeof var, " %s", g->placement);
  else if (!isnan(g->skew))
    snprintf(var, sizeof var, " skew %g", g->skew);
  snprintf(g->title, sizeof g->title, "%s%s", g->pattern, var);
}

/* The group of case c, made when new; NULL on ENOMEM. */
static struct gcb_pattern_group *group_for(struct gcb_pattern_groups *out,
                                           char (**keys)[512], size_t *cap,
                                           const json_t *c) {
  /* Every parameter but the part: the parts differ in unit too. */
  char key[512] = "";
  json_t *params = json_deep_copy(json_object_get(c, "params"));
  if (params != NULL) {
    json_object_del(params, "part");
    char *text = json_dumps(params, JSON_SORT_KEYS | JSON_COMPACT);
    snprintf(key, sizeof key, "%s", text ? text : "");
    free(text);
    json_decref(params);
  }
  for (size_t i = 0; i < out->n; i++)
    if (strcmp((*keys)[i], key) == 0)
      return &out->items[i];
  if (out->n == *cap) {
    size_t n = *cap ? 2 * *cap : 8;
    struct gcb_pattern_group *g = realloc(out->items, n * sizeof *g);
    if (g != NULL)
      out->items = g;
    char(*k)[512] = realloc(*keys, n * sizeof *k);
    if (k != NULL)
      *keys = k;
    if (g == NULL || k == NULL)
      return NULL;
    *cap = n;
  }
  struct gcb_pattern_group *g = &out->items[out->n];
  memset(g, 0, sizeof *g);
  snprintf((*keys)[out->n++], 512, "%s", key);
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

enum gcb_status gcb_pattern_groups_build(const json_t *root,
                                         struct gcb_pattern_groups *out,
                                         struct gcb_err *err) {
  memset(out, 0, sizeof *out);
  char(*keys)[512] = NULL;
  size_t cap = 0, i;
  const json_t *c;
  enum gcb_status st = GCB_OK;
  json_array_foreach(json_object_get(root, "cases"), i, c) {
    int part = part_of(c);
    if (strcmp(gcb_view_str(c, "bench"), "pattern") != 0 || part < 0)
      continue;
    struct gcb_pattern_group *g = group_for(out, &keys, &cap, c);
    if (g == NULL) {
      st = gcb_err_set(err, GCB_ENOMEM, "pattern view: out of memory");
      break;
    }
    g->cases[part] = c;
  }
  free(keys);
  for (i = 0; st == GCB_OK && i < out->n; i++)
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

const struct gcb_pattern_group *
gcb_pattern_group_of(const struct gcb_pattern_groups *g, const json_t *c) {
  for (size_t i = 0; i < g->n; i++)
    for (int p = 0; p < GCB_PART_COUNT; p++)
      if (g->items[i].cases[p] == c)
        return &g->items[i];
  return NULL;
}
