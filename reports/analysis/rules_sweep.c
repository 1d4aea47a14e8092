/*
 * Rules judged per case but reported per sweep, so that one straggler
 * does not fill the report with a line for every message size:
 *  - `imbalance`: (max - mean) / max of the ranks' times above
 *    imbalance_pct, one finding per sweep (the bench and its params but
 *    size, count and in-place) at its worst case, saying in how many of
 *    the sweep's cases it was seen; silent for a case whose slowest rank
 *    an earlier rule already named in the same sweep (a slow GPU, a slow
 *    link, judged at the sweep's largest size): the imbalance is that
 *    finding's consequence;
 *    Judged within a communicator: split collectives (params.split
 *    "node", "cross") run independent communicators side by side, whose
 *    loop times differ by their transport, not by ranks waiting; cases
 *    whose per-rank entries are not the ranks' own figures (p2p repeats a
 *    node's figure on its ranks, netmap a pair's) are not judged; nor is
 *    a case in which a late rank (below) made the others wait;
 *  - `late-arrival`: a rank whose mean arrival lateness at a collective
 *    is a robust high outlier and whose median lateness is above late_pct
 *    of the operation's time (late at most calls, not one delayed call
 *    whose wait inflated the mean), in at least LATE_SHARE of the
 *    document's collective cases (late once in 168 cases is OS noise);
 *    one finding per rank at its worst case, saying in how many of the
 *    document's collective cases it was late.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "reports/analysis/analyze_rules.h"

/* The share of a document's collective cases a rank must be late in to
 * be a late rank: OS noise (a daemon waking on one core) makes a rank
 * late at one call in hundreds, so at one case now and then; a rank that
 * is late for a reason (its binding, work before the collective) is late
 * wherever the call is short enough to show it. 1 of 1 case still
 * counts. */
#define LATE_SHARE 0.10

/* One case where the rule holds. */
struct hit {
  const struct gcb_model_case *c;
  long long rank;
  double value, ref, op; /* imbalance (or lateness), median, op time */
  size_t order;          /* the case's position, for stable sorting */
  /* What the hits are grouped by (the rank, the sweep) and its text,
   * which orders the groups. */
  size_t group_id;
  char group[GCB_VIEW_SWEEP_KEY];
};

struct hits {
  struct hit *items;
  size_t n, cap;
  bool oom;
};

/* Room for one more hit, which the caller fills whole; NULL on ENOMEM. */
static struct hit *add_hit(struct hits *h) {
  if (!gcb_grow((void **)&h->items, &h->cap, h->n, sizeof *h->items)) {
    h->oom = true;
    return NULL;
  }
  return &h->items[h->n++];
}

/* By group (its text first: the order findings come in), then document
 * order. */
static int cmp_hit(const void *a, const void *b) {
  const struct hit *x = a, *y = b;
  int c = strcmp(x->group, y->group);
  if (c != 0)
    return c;
  if (x->group_id != y->group_id)
    return x->group_id < y->group_id ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

/* ---- imbalance ----------------------------------------------------------- */

/*
 * What the per-case loops ask of every case, computed once per document:
 * asked per case or per finding, each was a walk over every case or
 * finding, and a 20,000-case document took over ten minutes.
 */

/* Sweeps with a rank (the model's gcb_model_case.sweep), sorted by rank
 * then sweep (keyed_count): the findings of earlier rules that explain a
 * case's imbalance (a slow rank, a slow link) of this document, by rank
 * and sweep: the rules judge a sweep's largest size (link-bandwidth) or
 * its figure, while the same slow GPU or link makes the sweep's smaller
 * cases uneven too (the 1 MiB copies of a link trained at gen4 wait as
 * the 256 MiB ones do); and, rank 0, the sweeps of the cases that have
 * two ranks or more. */
struct keyed {
  long long rank;
  size_t sweep;
};

struct keyeds {
  struct keyed *x;
  size_t n;
};

static int cmp_keyed(const void *a, const void *b) {
  const struct keyed *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return (x->sweep > y->sweep) - (x->sweep < y->sweep);
}

/* Room for n entries; false on ENOMEM. */
static bool keyeds_open(struct keyeds *e, size_t n) {
  *e = (struct keyeds){.x = malloc((n + 1) * sizeof *e->x)};
  return e->x != NULL;
}

static void keyeds_sort(struct keyeds *e) {
  if (e->n > 1)
    qsort(e->x, e->n, sizeof *e->x, cmp_keyed);
}

/* false on ENOMEM. */
static bool explainers_of(const struct gcb__rule_ctx *cx, struct keyeds *e) {
  if (!keyeds_open(e, cx->out->n))
    return false;
  for (size_t i = 0; i < cx->out->n; i++) {
    const struct gcb_finding *f = &cx->out->items[i];
    if (f->where.doc == cx->index && f->bench_case != NULL &&
        f->kind->explains_imbalance)
      e->x[e->n++] = (struct keyed){f->where.rank, f->bench_case->sweep};
  }
  keyeds_sort(e);
  return true;
}

/* How many of e's entries are (rank, sweep): a lower bound, then the
 * run of equal entries. */
static size_t keyed_count(const struct keyeds *e, long long rank,
                          size_t sweep) {
  struct keyed k = {.rank = rank, .sweep = sweep};
  size_t lo = 0, hi = e->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cmp_keyed(&e->x[mid], &k) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t n = 0;
  while (lo + n < e->n && cmp_keyed(&e->x[lo + n], &k) == 0)
    n++;
  return n;
}

/* false on ENOMEM. */
static bool sweep_keys_of(const struct gcb_model *m, struct keyeds *s) {
  if (!keyeds_open(s, m->ncases))
    return false;
  for (size_t i = 0; i < m->ncases; i++)
    if (m->cases[i].ranks.n >= 2)
      s->x[s->n++] = (struct keyed){0, m->cases[i].sweep};
  keyeds_sort(s);
  return true;
}

/* Whether the spread of a case's per-rank entries is ranks waiting for
 * each other. Not where the entries are not the ranks' own figures (their
 * row's shared_figures, bench_kind.c): p2p repeats the measuring rank's
 * figure on every rank of its node (one figure per node and pair), netmap
 * one per rank pair; their spread is between nodes or pairs, which
 * rules_p2p.c and rules_netmap.c judge; read as ranks waiting, it named a
 * node's first rank as the slowest. Nor where rules of their own judge it
 * (own_spread: the training patterns, rules_pattern.c). Nor where nothing
 * was timed at once: an nvbandwidth case (nominal_work) holds one rate per
 * GPU, each measured alone, and its times are made from a nominal size
 * ("per-rank times 2.427 ms to 3.713 ms: ranks wait 20.6%" of a GH200's
 * host copies, superbench's log, said what nothing measured). */
static bool spread_is_waiting(const struct gcb_model_case *c) {
  const struct gcb_bench_desc *k = gcb_bench_kind_desc(c->kind);
  return !k->shared_figures && !k->own_spread && !c->nominal_work;
}

/* A per-rank entry of a case and its rank's communicator in a split
 * collective: its node for "node", its local rank for "cross"
 * (docs/results-schema.md, params.split). */
struct member {
  long long comm, rank;
  size_t entry;
};

static int cmp_member(const void *a, const void *b) {
  const struct member *x = a, *y = b;
  if (x->comm != y->comm)
    return x->comm < y->comm ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

static long long comm_of(const struct gcb_model *m, const char *split,
                         long long rank) {
  const struct gcb_model_rank *r = gcb_model_rank(m, rank);
  if (r == NULL)
    return -1;
  if (strcmp(split, "node") == 0)
    return r->node;
  return r->local_rank; /* "cross" */
}

/* How a rooted collective's root differs from its other ranks by the
 * operation's shape: +1 slower (reduce, gather: it waits for every other
 * rank's data, which they send and leave: 4x on two host ranks of a
 * healthy machine), -1 faster (broadcast, scatter: it sends and leaves);
 * 0 not rooted (params.root -1 or absent) or another operation. */
static int root_shape(const struct gcb_model_case *c) {
  if (c->kind != GCB_BENCH_COLL || !(gcb_model_param_num(c, "root") >= 0))
    return 0;
  if (strcmp(c->op, "reduce") == 0 || strcmp(c->op, "gather") == 0)
    return 1;
  if (strcmp(c->op, "broadcast") == 0 || strcmp(c->op, "scatter") == 0)
    return -1;
  return 0;
}

/* One communicator's entries e[0..n) (by rank), its root at e[at] (n: no
 * root): their imbalance in *out, the root left out where it is off the
 * others in the direction its operation's shape predicts (a root off the
 * other way is judged: a broadcast's slow root); false with no entry. */
static bool comm_imbalance(const struct gcb_model_case *c, int shape, size_t *e,
                           size_t n, size_t at, struct gcb_imbalance *out) {
  if (shape != 0 && at < n && n > 1) {
    double others = 0;
    for (size_t i = 0; i < n; i++)
      others += i == at ? 0 : gcb_analyze_rank_time(c, e[i]);
    others /= (double)(n - 1);
    if ((gcb_analyze_rank_time(c, e[at]) - others) * shape >= 0) {
      memmove(e + at, e + at + 1, (n - at - 1) * sizeof *e);
      n--;
    }
  }
  if (n > 0)
    gcb__imbalance_over(c, e, n, out);
  return n > 0;
}

/* What the rule weighs of an imbalance: the loop times' where the median
 * iterations say less (a descheduled iteration inflated a loop). */
static double weight(const struct gcb_imbalance *im) {
  return isnan(im->typical) ? im->imbalance : fmin(im->imbalance, im->typical);
}

/*
 * The case's imbalance among ranks that wait for each other: the whole
 * case, or for a split collective the worst of its communicators (ranks
 * of different communicators never wait for each other; the node and
 * cross communicators of one sweep differ by 5-10 % from their transport
 * alone); a rooted collective's root left out where its operation's shape
 * explains it (comm_imbalance). false when the case has no ranks; *oom on
 * ENOMEM.
 */
static bool case_imbalance(const struct gcb_model *model,
                           const struct gcb_model_case *c,
                           struct gcb_imbalance *out, bool *oom) {
  const char *split = gcb_model_param_str(c, "split");
  bool split_comm = strcmp(split, "node") == 0 || strcmp(split, "cross") == 0;
  int shape = root_shape(c);
  double root = shape != 0 ? gcb_model_param_num(c, "root") : -1;
  size_t n = c->ranks.n;
  memset(out, 0, sizeof *out);
  if (n == 0)
    return false;
  if (!split_comm && shape == 0)
    return gcb_analyze_case_imbalance(c, out);
  struct member *m = malloc(n * sizeof *m);
  size_t *entries = malloc(n * sizeof *entries);
  if (m == NULL || entries == NULL) {
    free(m);
    free(entries);
    *oom = true;
    return false;
  }
  for (size_t i = 0; i < n; i++) {
    long long r = gcb_model_col_rank(c, i, (long long)i);
    m[i] = (struct member){.comm = split_comm ? comm_of(model, split, r) : 0,
                           .rank = r,
                           .entry = i};
  }
  if (split_comm) /* by communicator, then rank; else in entry order */
    qsort(m, n, sizeof *m, cmp_member);
  for (size_t i = 0; i < n; i++)
    entries[i] = m[i].entry;
  bool any = false;
  for (size_t i = 0, j; i < n; i = j) {
    size_t at = SIZE_MAX; /* the root: a split communicator's root-th rank */
    for (j = i; j < n && m[j].comm == m[i].comm; j++)
      if (split_comm ? (double)(j - i) == root : (double)m[j].rank == root)
        at = j - i;
    struct gcb_imbalance g;
    if (comm_imbalance(c, shape, entries + i, j - i, at, &g) &&
        (!any || weight(&g) > weight(out)))
      *out = g, any = true;
  }
  free(m);
  free(entries);
  return any;
}

/* Reports a sweep's worst imbalance, seen in `seen` of its cases; keys:
 * the document's sweeps (sweep_keys_of), for the count of its cases. */
static enum gcb_status report_imbalance(const struct gcb__rule_ctx *cx,
                                        const struct hit *h, size_t seen,
                                        const void *keys) {
  size_t of = keyed_count(keys, 0, h->c->sweep);
  struct gcb_imbalance im;
  bool oom = false;
  case_imbalance(cx->doc->model, h->c, &im, &oom);
  if (oom)
    return GCB_ENOMEM;
  struct gcb_finding *f = gcb__rule_push_case(cx, GCB_SEV_WARN, h->c, h->rank);
  if (f == NULL)
    return GCB_ENOMEM;
  gcb_finding_figures(f, im.imbalance * 100, cx->t->imbalance_pct, "%");
  f->cost = im.imbalance;
  char lo[32], hi[32], mean[32], more[64] = "";
  gcb_view_fmt_time(im.min, lo, sizeof lo);
  gcb_view_fmt_time(im.max, hi, sizeof hi);
  gcb_view_fmt_time(im.mean, mean, sizeof mean);
  if (of > 1)
    snprintf(more, sizeof more, "; above %g%% in %zu of the sweep's %zu cases",
             cx->t->imbalance_pct, seen, of);
  const char *split = gcb_model_param_str(h->c, "split");
  bool comm = strcmp(split, "node") == 0 || strcmp(split, "cross") == 0;
  gcb_finding_explain(f,
                      "per-rank times %s to %s (mean %s, CV %.1f%%)%s: ranks "
                      "wait %.1f%% of the slowest rank's time (rank %lld)%s",
                      lo, hi, mean, im.cv * 100,
                      comm ? " within one communicator" : "",
                      im.imbalance * 100, im.max_rank, more);
  if ((double)im.ranks < cx->t->outlier_min_ranks)
    /* too few ranks for the slow-rank rule: nothing else will name it */
    gcb_finding_suggest(f,
                        "rank %lld is the slowest of %zu (too few to judge "
                        "one against its peers' median): check its core for "
                        "other load or a CPU quota, and its binding; "
                        "otherwise rerun with more iterations",
                        im.max_rank, im.ranks);
  else
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
    for (j = i; j < h->n && h->items[j].group_id == h->items[i].group_id; j++)
      worst = h->items[j].value > h->items[worst].value ? j : worst;
    st = report(cx, &h->items[worst], j - i, arg);
  }
  return st;
}

/* ---- late arrivals ------------------------------------------------------- */

/* Each rank's mean and median arrival lateness, when the case measured
 * them. */
static bool lateness(const struct gcb_model_case *c, double *x, double *med) {
  for (size_t i = 0; i < c->ranks.n; i++) {
    x[i] = gcb_model_col(c, GCB_RC_LATE_MEAN, i);
    med[i] = gcb_model_col(c, GCB_RC_LATE_MEDIAN, i);
    if (isnan(x[i]))
      return false;
  }
  return true;
}

/* Whether a rank late in `seen` of the document's `of` collective cases
 * is late for a reason rather than by noise. */
static bool sustained(size_t seen, size_t of) {
  return (double)seen >= ceil(LATE_SHARE * (double)of - 1e-9);
}

static enum gcb_status report_late(const struct gcb__rule_ctx *cx,
                                   const struct hit *h, size_t seen,
                                   const void *late) {
  size_t of = *(const size_t *)late;
  if (!sustained(seen, of))
    return GCB_OK;
  struct gcb_finding *f = gcb__rule_push_case(cx, GCB_SEV_WARN, h->c, h->rank);
  if (f == NULL)
    return GCB_ENOMEM;
  char ls[32], ms[32], os[32], more[64] = "";
  gcb_view_fmt_time(h->value, ls, sizeof ls);
  gcb_view_fmt_time(h->ref, ms, sizeof ms);
  gcb_view_fmt_time(h->op, os, sizeof os);
  gcb_finding_figures(f, h->value * 1e6, h->ref * 1e6, "us");
  f->cost = h->value / (h->op + h->value);
  if (of > 1)
    snprintf(more, sizeof more, "; late in %zu of %zu collective cases", seen,
             of);
  gcb_finding_explain(f,
                      "rank %lld arrives %s late on average (median rank %s) "
                      "at a collective that takes %s: the others wait for it%s",
                      h->rank, ls, ms, os, more);
  gcb_finding_suggest(f,
                      "a late rank is a scheduling problem, not the "
                      "network: look for OS noise, CPU binding or slow "
                      "work before the collective on rank %lld",
                      h->rank);
  return GCB_OK;
}

/* Scratch space for late_hits, sized for the document's largest case. */
struct late_buf {
  double *x, *med;
  bool *flags;
};

/* Adds a hit for every rank of the case that is late at most calls: its
 * mean lateness a robust outlier among the ranks', and its median
 * lateness (one delayed call does not move it) above late_pct of the
 * operation's time. */
static bool late_hits(const struct gcb__rule_ctx *cx,
                      const struct gcb_model_case *c, size_t order,
                      struct late_buf *b, struct hits *h) {
  size_t n = c->ranks.n;
  double op = c->summary.time_mean;
  double median, limit = op * cx->t->late_pct / 100;
  if (n == 0 || !(op > 0) || !lateness(c, b->x, b->med))
    return true;
  gcb_analyze_outliers(b->x, n, +1, cx->t, b->flags, &median);
  for (size_t i = 0; i < n; i++) {
    /* a document without per-call medians keeps the mean's test */
    double typical = isnan(b->med[i]) ? b->x[i] : b->med[i];
    if (!b->flags[i] || !(b->x[i] > limit) || !(typical > limit))
      continue;
    struct hit *y = add_hit(h);
    if (y == NULL)
      return false;
    long long rank = gcb_model_col_rank(c, i, (long long)i);
    *y = (struct hit){.c = c,
                      .rank = rank,
                      .value = b->x[i],
                      .ref = median,
                      .op = op,
                      .order = order};
    y->group_id = (size_t)rank;
    snprintf(y->group, sizeof y->group, "%020lld", rank);
  }
  return true;
}

/* The late hits of every case of the document, and how many cases
 * measured lateness; false on ENOMEM. */
static bool late_collect(const struct gcb__rule_ctx *cx, struct hits *h,
                         size_t *of) {
  const struct gcb_model *m = cx->doc->model;
  size_t most = 0;
  *of = 0; /* cases that measured lateness: counted once, not per late rank */
  for (size_t i = 0; i < m->ncases; i++) {
    most = m->cases[i].ranks.n > most ? m->cases[i].ranks.n : most;
    *of += !isnan(gcb_model_col(&m->cases[i], GCB_RC_LATE_MEAN, 0));
  }
  struct late_buf b = {.x = malloc(most * sizeof *b.x + 1),
                       .med = malloc(most * sizeof *b.med + 1),
                       .flags = malloc(most * sizeof *b.flags + 1)};
  h->oom = b.x == NULL || b.med == NULL || b.flags == NULL;
  for (size_t i = 0; i < m->ncases; i++)
    if (!h->oom && !late_hits(cx, &m->cases[i], i, &b, h))
      h->oom = true;
  free(b.x);
  free(b.med);
  free(b.flags);
  return !h->oom;
}

/* Marks waited[i] for each case i of the document in which a sustained
 * late rank made the others wait; false on ENOMEM. */
static bool waited_of(const struct gcb__rule_ctx *cx, bool *waited) {
  struct hits h = {0};
  size_t of;
  bool ok = late_collect(cx, &h, &of);
  if (ok && h.n > 1)
    qsort(h.items, h.n, sizeof *h.items, cmp_hit);
  for (size_t i = 0, j; ok && i < h.n; i = j) {
    for (j = i; j < h.n && h.items[j].group_id == h.items[i].group_id; j++)
      ;
    for (size_t k = i; sustained(j - i, of) && k < j; k++)
      waited[h.items[k].order] = true;
  }
  free(h.items);
  return ok;
}

enum gcb_status gcb__rule_late_arrival(const struct gcb__rule_ctx *cx) {
  struct hits h = {0};
  size_t of = 0;
  enum gcb_status st =
      !late_collect(cx, &h, &of)
          ? gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory")
          : each_group(cx, &h, &of, report_late);
  free(h.items);
  return st;
}

enum gcb_status gcb__rule_imbalance(const struct gcb__rule_ctx *cx) {
  const struct gcb_model *m = cx->doc->model;
  struct hits h = {0};
  struct keyeds e = {0}, keys = {0};
  bool *waited = calloc(m->ncases + 1, sizeof *waited);
  h.oom = waited == NULL || !explainers_of(cx, &e) ||
          !sweep_keys_of(m, &keys) || !waited_of(cx, waited);
  for (size_t i = 0; i < m->ncases; i++) {
    const struct gcb_model_case *c = &m->cases[i];
    struct gcb_imbalance im;
    if (h.oom || !spread_is_waiting(c) || !case_imbalance(m, c, &im, &h.oom) ||
        im.ranks < 2 || im.imbalance * 100 <= cx->t->imbalance_pct ||
        im.typical * 100 <= cx->t->imbalance_pct ||
        keyed_count(&e, im.max_rank, c->sweep) > 0 || waited[i])
      continue;
    struct hit *x = add_hit(&h);
    if (x == NULL)
      break;
    *x = (struct hit){.c = c,
                      .rank = im.max_rank,
                      .value = im.imbalance,
                      .order = i,
                      .group_id = c->sweep};
    gcb_model_sweep_key(c, x->group, sizeof x->group);
  }
  free(e.x);
  free(waited);
  enum gcb_status st =
      h.oom ? gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory")
            : each_group(cx, &h, &keys, report_imbalance);
  free(keys.x);
  free(h.items);
  return st;
}
