/*
 * Rules judged per case but reported per sweep, so that one straggler
 * does not fill the report with a line for every message size:
 *  - `imbalance`: (max - mean) / max of the ranks' times above
 *    imbalance_pct, one finding per sweep (the bench and its params but
 *    size, count and in-place) at its worst case, saying in how many of
 *    the sweep's cases it was seen; silent for a case whose slowest rank
 *    an earlier rule already named (a slow GPU, a slow link): the
 *    imbalance is that finding's consequence;
 *  - `late-arrival`: a rank whose mean arrival lateness at a collective
 *    is a robust high outlier and above late_pct of the operation's time,
 *    one finding per rank at its worst case, saying in how many of the
 *    document's collective cases it was late.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"
#include "reports/document/ranks.h"

/* One case where the rule holds. */
struct hit {
  const json_t *c;
  long long rank;
  double value, ref, op; /* imbalance (or lateness), median, op time */
  size_t order;          /* the case's position, for stable sorting */
  char group[GCB_VIEW_SWEEP_KEY];
};

struct hits {
  struct hit *items;
  size_t n, cap;
  bool oom;
};

static struct hit *add_hit(struct hits *h) {
  if (h->n == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 16;
    struct hit *g = realloc(h->items, cap * sizeof *g);
    if (g == NULL) {
      h->oom = true;
      return NULL;
    }
    h->items = g;
    h->cap = cap;
  }
  struct hit *x = &h->items[h->n++];
  memset(x, 0, sizeof *x);
  return x;
}

static int cmp_hit(const void *a, const void *b) {
  const struct hit *x = a, *y = b;
  int c = strcmp(x->group, y->group);
  return c != 0 ? c : (x->order > y->order) - (x->order < y->order);
}

static struct gcb_finding *push_at(const struct gcb__rule_ctx *cx,
                                   const struct hit *h) {
  struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_WARN);
  if (f != NULL) {
    gcb_finding_at_rank(f, cx->index, cx->doc->root, h->rank);
    gcb_view_case_title(h->c, f->where.subject, sizeof f->where.subject);
    f->case_json = h->c;
  }
  return f;
}

/* ---- imbalance ----------------------------------------------------------- */

/*
 * What the per-case loops ask of every case, computed once per document:
 * asked per case or per finding, each was a walk over every case or
 * finding, and a 20,000-case document took over ten minutes.
 */

/* The findings of earlier rules that explain a case's imbalance (a slow
 * rank, a slow link) of this document, by rank and case title. */
struct explainers {
  const struct gcb_finding **f;
  size_t n;
};

static int cmp_explainer(const void *a, const void *b) {
  const struct gcb_finding *x = *(const struct gcb_finding *const *)a;
  const struct gcb_finding *y = *(const struct gcb_finding *const *)b;
  if (x->where.rank != y->where.rank)
    return x->where.rank < y->where.rank ? -1 : 1;
  return strcmp(x->where.subject, y->where.subject);
}

/* false on ENOMEM. The findings must not move while it is used. */
static bool explainers_of(const struct gcb__rule_ctx *cx,
                          struct explainers *e) {
  e->n = 0;
  e->f = malloc((cx->out->n + 1) * sizeof *e->f);
  if (e->f == NULL)
    return false;
  for (size_t i = 0; i < cx->out->n; i++) {
    const struct gcb_finding *f = &cx->out->items[i];
    if (f->where.doc == cx->index && f->kind->explains_imbalance)
      e->f[e->n++] = f;
  }
  if (e->n > 1)
    qsort(e->f, e->n, sizeof *e->f, cmp_explainer);
  return true;
}

/* Whether an earlier rule already named the rank in this case. */
static bool explained(const struct explainers *e, const json_t *c,
                      long long rank) {
  struct gcb_finding key;
  const struct gcb_finding *k = &key;
  if (e->n == 0)
    return false;
  key.where.rank = rank;
  gcb_view_case_title(c, key.where.subject, sizeof key.where.subject);
  return bsearch(&k, e->f, e->n, sizeof *e->f, cmp_explainer) != NULL;
}

/* The sweep keys of the cases that have two ranks or more, sorted. */
struct sweep_keys {
  char **k;
  size_t n;
};

static int cmp_key(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sweep_keys_free(struct sweep_keys *s) {
  for (size_t i = 0; i < s->n; i++)
    free(s->k[i]);
  free(s->k);
  *s = (struct sweep_keys){0};
}

/* false on ENOMEM. */
static bool sweep_keys_of(const json_t *cases, struct sweep_keys *s) {
  const json_t *c;
  size_t i;
  char k[GCB_VIEW_SWEEP_KEY];
  *s = (struct sweep_keys){
      .k = malloc((json_array_size(cases) + 1) * sizeof *s->k)};
  if (s->k == NULL)
    return false;
  json_array_foreach(cases, i, c) {
    if (gcb_ranks_count(c) < 2)
      continue;
    gcb_view_sweep_key(c, k, sizeof k);
    if ((s->k[s->n] = strdup(k)) == NULL) {
      sweep_keys_free(s);
      return false;
    }
    s->n++;
  }
  if (s->n > 1)
    qsort(s->k, s->n, sizeof *s->k, cmp_key);
  return true;
}

/* Cases of the document in the sweep `key` that have two ranks or more. */
static size_t sweep_cases(const struct sweep_keys *s, const char *key) {
  size_t lo = 0, hi = s->n;
  while (lo < hi) { /* the first key >= key */
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(s->k[mid], key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t n = 0;
  while (lo + n < s->n && strcmp(s->k[lo + n], key) == 0)
    n++;
  return n;
}

static enum gcb_status imbalance_finding(const struct gcb__rule_ctx *cx,
                                         const struct hit *h, size_t seen,
                                         size_t of) {
  struct gcb_imbalance im;
  gcb_analyze_imbalance(h->c, &im);
  struct gcb_finding *f = push_at(cx, h);
  if (f == NULL)
    return GCB_ENOMEM;
  f->measured = im.imbalance * 100;
  f->expected = cx->t->imbalance_pct;
  f->cost = im.imbalance;
  snprintf(f->unit, sizeof f->unit, "%%");
  char lo[32], hi[32], mean[32], more[64] = "";
  gcb_view_fmt_time(im.min, lo, sizeof lo);
  gcb_view_fmt_time(im.max, hi, sizeof hi);
  gcb_view_fmt_time(im.mean, mean, sizeof mean);
  if (of > 1)
    snprintf(more, sizeof more, "; above %g%% in %zu of the sweep's %zu cases",
             cx->t->imbalance_pct, seen, of);
  gcb_finding_explain(f,
                      "per-rank times %s to %s (mean %s, CV %.1f%%): ranks "
                      "wait %.1f%% of the slowest rank's time (rank %lld)%s",
                      lo, hi, mean, im.cv * 100, im.imbalance * 100,
                      im.max_rank, more);
  gcb_finding_suggest(f,
                      "look for a slow-rank or placement finding on rank "
                      "%lld; otherwise rerun with more iterations",
                      im.max_rank);
  return GCB_OK;
}

/* Reports each group of hits [i, j) by its largest value; arg: what the
 * rule computed once for all its groups. */
typedef enum gcb_status (*group_fn)(const struct gcb__rule_ctx *cx,
                                    const struct hit *worst, size_t seen,
                                    const void *arg);

static enum gcb_status each_group(const struct gcb__rule_ctx *cx,
                                  struct hits *h, const void *arg,
                                  group_fn report) {
  enum gcb_status st = GCB_OK;
  if (h->n > 1) /* items is NULL without hits, which qsort must not see */
    qsort(h->items, h->n, sizeof *h->items, cmp_hit);
  for (size_t i = 0, j; i < h->n && st == GCB_OK; i = j) {
    size_t worst = i;
    for (j = i; j < h->n && strcmp(h->items[j].group, h->items[i].group) == 0;
         j++)
      worst = h->items[j].value > h->items[worst].value ? j : worst;
    st = report(cx, &h->items[worst], j - i, arg);
  }
  return st;
}

static enum gcb_status report_imbalance(const struct gcb__rule_ctx *cx,
                                        const struct hit *worst, size_t seen,
                                        const void *keys) {
  return imbalance_finding(cx, worst, seen, sweep_cases(keys, worst->group));
}

enum gcb_status gcb__rule_imbalance(const struct gcb__rule_ctx *cx) {
  const json_t *cases = json_object_get(cx->doc->root, "cases"), *c;
  struct hits h = {0};
  struct explainers e = {0};
  struct sweep_keys keys = {0};
  size_t i;
  h.oom = !explainers_of(cx, &e) || !sweep_keys_of(cases, &keys);
  json_array_foreach(cases, i, c) {
    struct gcb_imbalance im;
    if (h.oom || !gcb_analyze_imbalance(c, &im) || im.ranks < 2 ||
        im.imbalance * 100 <= cx->t->imbalance_pct ||
        explained(&e, c, im.max_rank))
      continue;
    struct hit *x = add_hit(&h);
    if (x == NULL)
      break;
    *x = (struct hit){
        .c = c, .rank = im.max_rank, .value = im.imbalance, .order = i};
    gcb_view_sweep_key(c, x->group, sizeof x->group);
  }
  free(e.f); /* the findings move from here on */
  enum gcb_status st =
      h.oom ? gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory")
            : each_group(cx, &h, &keys, report_imbalance);
  sweep_keys_free(&keys);
  free(h.items);
  return st;
}

/* ---- late arrivals ------------------------------------------------------- */

/* Each rank's mean arrival lateness, when the case measured it. */
static bool lateness(const struct gcb_ranks *pr, double *x) {
  for (size_t i = 0; i < pr->n; i++) {
    x[i] = gcb_ranks_num(pr, GCB_RC_LATE_MEAN, i);
    if (isnan(x[i]))
      return false;
  }
  return true;
}

/* The document's cases that measured lateness (counted once, not per
 * late rank). */
static size_t late_cases(const json_t *cases) {
  size_t of = 0, i;
  const json_t *c;
  json_array_foreach(cases, i, c) {
    struct gcb_ranks pr;
    gcb_ranks_of(c, &pr);
    of += !isnan(gcb_ranks_num(&pr, GCB_RC_LATE_MEAN, 0));
  }
  return of;
}

static enum gcb_status report_late(const struct gcb__rule_ctx *cx,
                                   const struct hit *h, size_t seen,
                                   const void *late) {
  size_t of = *(const size_t *)late;
  struct gcb_finding *f = push_at(cx, h);
  if (f == NULL)
    return GCB_ENOMEM;
  char ls[32], ms[32], os[32], more[64] = "";
  gcb_view_fmt_time(h->value, ls, sizeof ls);
  gcb_view_fmt_time(h->ref, ms, sizeof ms);
  gcb_view_fmt_time(h->op, os, sizeof os);
  f->measured = h->value * 1e6;
  f->expected = h->ref * 1e6;
  f->cost = h->value / (h->op + h->value);
  snprintf(f->unit, sizeof f->unit, "us");
  if (of > 1)
    snprintf(more, sizeof more, "; late in %zu of %zu collective cases", seen,
             of);
  gcb_finding_explain(f,
                      "rank %lld arrives %s late on average (median rank "
                      "%s) at a collective that takes %s: the others wait "
                      "for it%s",
                      h->rank, ls, ms, os, more);
  gcb_finding_suggest(f,
                      "a late rank is a scheduling problem, not the "
                      "network: look for OS noise, CPU binding or slow "
                      "work before the collective on rank %lld",
                      h->rank);
  return GCB_OK;
}

/* Adds a hit for every late rank of the case. */
static bool late_hits(const struct gcb__rule_ctx *cx, const json_t *c,
                      size_t order, double *x, bool *flags, struct hits *h) {
  struct gcb_ranks pr;
  gcb_ranks_of(c, &pr);
  size_t n = pr.n;
  double op =
      gcb_view_num(gcb_view_obj(gcb_view_obj(c, "summary"), "time_s"), "mean");
  double median;
  if (n == 0 || !(op > 0) || !lateness(&pr, x))
    return true;
  gcb_analyze_outliers(x, n, +1, cx->t, flags, &median);
  for (size_t i = 0; i < n; i++) {
    if (!flags[i] || !(x[i] > op * cx->t->late_pct / 100))
      continue;
    struct hit *y = add_hit(h);
    if (y == NULL)
      return false;
    long long rank = gcb_ranks_int(&pr, GCB_RC_RANK, i, (long long)i);
    *y = (struct hit){.c = c,
                      .rank = rank,
                      .value = x[i],
                      .ref = median,
                      .op = op,
                      .order = order};
    snprintf(y->group, sizeof y->group, "%020lld", rank);
  }
  return true;
}

enum gcb_status gcb__rule_late_arrival(const struct gcb__rule_ctx *cx) {
  const json_t *cases = json_object_get(cx->doc->root, "cases"), *c;
  struct hits h = {0};
  size_t i, most = 0;
  json_array_foreach(cases, i, c) {
    size_t n = gcb_ranks_count(c);
    most = n > most ? n : most;
  }
  double *x = malloc(most * sizeof *x + 1);
  bool *flags = malloc(most * sizeof *flags + 1);
  h.oom = x == NULL || flags == NULL;
  json_array_foreach(cases, i, c) {
    if (!h.oom && !late_hits(cx, c, i, x, flags, &h))
      h.oom = true;
  }
  size_t of = late_cases(cases);
  enum gcb_status st =
      h.oom ? gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory")
            : each_group(cx, &h, &of, report_late);
  free(x);
  free(flags);
  free(h.items);
  return st;
}
