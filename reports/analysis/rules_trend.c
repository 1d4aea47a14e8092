/*
 * Rules over the rows of a collective or point-to-point sweep (one
 * operation, type, reduction, root and transport, out-of-place or
 * in-place: one table of the report), each row judged against the other
 * rows of the run rather than against a model of the hardware:
 *  - `sweep-trend`: an interior row whose time is more than trend_pct %
 *    above the line through its two neighbours in log(time) vs log(size).
 *    busbw = size x factor / time, so in log-log the residual of the time
 *    is exactly minus the residual of busbw: one test covers a time that
 *    jumps and a bus bandwidth that dips (trend_pct 50: busbw below 1/1.5,
 *    two thirds, of the line). A smooth sweep has time = latency +
 *    bytes / bandwidth, convex in log-log, so the line through the
 *    neighbours lies above it: a smooth sweep never comes near the
 *    threshold (0.94 of the line at the knee with factor 2 steps), while
 *    noise, protocol switches and real faults do;
 *  - `latency-floor`: a small message (64 KiB or less) whose time is more
 *    than latency_floor_x times its floor: the fastest time the run
 *    measured for the same operation on the same transport, communicator
 *    size and split (params.comm_size, else the case's ranks; any size,
 *    type or in-place: no message of that operation is
 *    faster than the transport's latency) plus the row's bytes at the
 *    best bandwidth of its sweep (Hockney's alpha + n / beta, both
 *    measured); latency_floor_x 4 leaves room for the knee between the two
 *    regimes, where pipelining is poorest and NCCL switches to its Simple
 *    protocol, whose latency its own model puts at 3.6x LL's for 2 nodes
 *    of 4 GPUs (src/graph/tuning.cc: baseLat + hwLat over 14 ring steps,
 *    2 across the network: 68 us against 19 us); a healthy sweep of that
 *    shape (eth-cscs docs' GH200 allreduce, tests/data/interop) takes
 *    3.7x its floor at 64 KiB.
 *    A row the trend rule flags is not reported twice.
 * Both judge a row's loop (the figure's time) and, where the document has
 * them, its per-call medians: a loop that lost its core once (a 14 us
 * broadcast timed at 361 us in a 10-iteration loop on a shared VM, its
 * calls' median 13.8 us) is no dip and no missed floor.
 * Neither judges a communicator of one rank, which communicates nothing.
 * The first and last rows have one neighbour and are not judged by the
 * trend (extrapolating the latency plateau into the bandwidth regime, or
 * the reverse, would flag smooth sweeps); the floor still judges them.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"

#define SMALL_BYTES 65536.0 /* a small message: latency-bound */

/* One row of a sweep. */
struct row {
  const struct gcb_model_case *c;
  double size, t, busbw;   /* bytes, seconds (mean over ranks), GB/s or NAN */
  double tm;               /* the per-call medians' mean over ranks; NAN */
  size_t order;            /* the case's position, for stable sorting */
  bool trend;              /* flagged by the trend rule */
  size_t alpha;            /* the fastest row of its floor key */
  size_t twin;             /* the same size in the other half; SIZE_MAX */
  size_t prev;             /* off's line: through rows prev and prev + 2 */
  double off, off_calls;   /* time over the line through its neighbours, of
                              its loop and its calls' medians; NAN none */
  double over, over_calls; /* time over its floor (small rows); NAN none */
  double bytes_t;          /* the floor's time for its bytes */
  char sweep[GCB_VIEW_SWEEP_KEY + 8], floor[192];
};

static int cmp_row(const void *a, const void *b) {
  const struct row *x = a, *y = b;
  int c = strcmp(x->sweep, y->sweep);
  if (c != 0)
    return c;
  if (x->size != y->size)
    return x->size < y->size ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

/* Sets each row's alpha, the fastest row of its floor key, by sorting
 * keys once (n log n, where a scan per row would be quadratic in a
 * document of many cases). */
struct floor_key {
  const char *floor;
  double t;
  size_t row;
};

static int cmp_floor(const void *a, const void *b) {
  const struct floor_key *x = a, *y = b;
  int c = strcmp(x->floor, y->floor);
  if (c != 0)
    return c;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

static bool set_alpha(struct row *r, size_t n) {
  struct floor_key *k = malloc((n + 1) * sizeof *k);
  if (k == NULL)
    return false;
  for (size_t i = 0; i < n; i++)
    k[i] = (struct floor_key){.floor = r[i].floor, .t = r[i].t, .row = i};
  if (n > 1)
    qsort(k, n, sizeof *k, cmp_floor);
  for (size_t i = 0, j; i < n; i = j)
    for (j = i; j < n && strcmp(k[j].floor, k[i].floor) == 0; j++)
      r[k[j].row].alpha = k[i].row;
  free(k);
  return true;
}

/* The mean over c's ranks of their per-call median times; NAN where a
 * rank has none (an imported log, an older document). */
static double median_calls(const struct gcb_model_case *c) {
  double sum = 0;
  for (size_t i = 0; i < c->ranks.n; i++) {
    double t = gcb_model_col(c, GCB_RC_TIME_MEDIAN, i);
    if (!(t > 0))
      return NAN; /* no time to set on a log-log line */
    sum += t;
  }
  return c->ranks.n > 0 ? sum / (double)c->ranks.n : NAN;
}

/* The document's collective rows with a time, sorted by sweep and size. */
static struct row *rows_of(const struct gcb_model *m, size_t *n) {
  struct row *r = malloc((m->ncases + 1) * sizeof *r);
  *n = 0;
  if (r == NULL)
    return NULL;
  for (size_t i = 0; i < m->ncases; i++) {
    const struct gcb_model_case *c = &m->cases[i];
    double t = c->summary.time_mean;
    double size = c->size;
    /* the communicator's size, not the case's ranks: a split sweep's
     * 2-rank communicators (cross) run side by side under one 16-rank
     * case, and their latency is no floor for the 16-rank sweep */
    double comm = gcb_model_param_num(c, "comm_size");
    long long members = comm > 0 ? (long long)comm : c->summary.ranks;
    /* One member communicates nothing: NCCL's in-place operation on one
     * rank takes 1 us on an H200 and its out-of-place copy 10 us, which
     * no transport's latency explains. */
    if (c->kind != GCB_BENCH_COLL || !(t > 0) || !(size >= 0) ||
        gcb_model_case_alone(m, c))
      continue;
    struct row *x = &r[(*n)++];
    *x = (struct row){.c = c,
                      .size = size,
                      .t = t,
                      .tm = median_calls(c),
                      .order = i,
                      .off = NAN,
                      .off_calls = NAN,
                      .over = NAN,
                      .over_calls = NAN};
    x->busbw = c->summary.busbw;
    char key[GCB_VIEW_SWEEP_KEY];
    gcb_model_sweep_key(c, key, sizeof key);
    snprintf(x->sweep, sizeof x->sweep, "%s|%s", key,
             gcb_analyze_case_in_place(c) ? "in" : "out");
    /* and the split, whose communicators take another transport (node:
     * NVLink, cross: the network) */
    snprintf(x->floor, sizeof x->floor, "%s|%s|%lld|%s", c->op, c->backend,
             members, gcb_model_param_str(c, "split"));
  }
  if (*n > 1)
    qsort(r, *n, sizeof *r, cmp_row);
  if (!set_alpha(r, *n)) {
    free(r);
    return NULL;
  }
  return r;
}

static struct gcb_finding *push_row(const struct gcb__rule_ctx *cx,
                                    const struct row *x, double expected) {
  struct gcb_finding *f = gcb__rule_push_case(cx, GCB_SEV_WARN, x->c, -1);
  if (f == NULL)
    return NULL;
  gcb_finding_figures(f, x->t * 1e6, expected * 1e6, "us");
  f->cost = 1 - expected / x->t;
  return f;
}

/* ---- sweep-trend --------------------------------------------------------- */

/* A ratio as "12.3" and, past a million (imported files can hold 1e308),
 * in exponent form, so that the sentence stays a sentence. */
static const char *times(double ratio, int decimals, char *buf, size_t size) {
  if (ratio < 1e6)
    snprintf(buf, size, "%.*f", decimals, ratio);
  else
    snprintf(buf, size, "%.3g", ratio);
  return buf;
}

/* The time the log-log line through a and b gives at size s, through
 * their loops' times or their per-call medians. */
static double on_line(const struct row *a, const struct row *b, double s,
                      bool medians) {
  double w = (log(s) - log(a->size)) / (log(b->size) - log(a->size));
  double ta = medians ? a->tm : a->t, tb = medians ? b->tm : b->t;
  return exp(log(ta) + w * (log(tb) - log(ta)));
}

static enum gcb_status trend_finding(const struct gcb__rule_ctx *cx,
                                     const struct row *r, const struct row *x) {
  const struct row *a = &r[x->prev], *b = &r[x->prev + 2];
  double line = x->t / x->off;
  struct gcb_finding *f = push_row(cx, x, line);
  if (f == NULL)
    return GCB_ENOMEM;
  char ts[32], ls[32], as[32], bs[32], bw[96] = "", k[32];
  gcb_view_fmt_time(x->t, ts, sizeof ts);
  gcb_view_fmt_time(line, ls, sizeof ls);
  gcb_view_fmt_time(a->t, as, sizeof as);
  gcb_view_fmt_time(b->t, bs, sizeof bs);
  if (x->busbw > 0)
    snprintf(bw, sizeof bw, "; busbw %.4g GB/s against %.4g GB/s on that line",
             x->busbw, x->busbw * x->t / line);
  gcb_finding_explain(f,
                      "%s %s at %.0f B%s takes %s, %sx the %s of the log-log "
                      "line through its neighbours (%.0f B: %s, %.0f B: %s)%s",
                      x->c->op, x->c->backend, x->size,
                      gcb_analyze_case_in_place(x->c) ? " in place" : "", ts,
                      times(x->off, 2, k, sizeof k), ls, a->size, as, b->size,
                      bs, bw);
  gcb__rule_suggest(f);
  return GCB_OK;
}

/* Sets off (and off_calls) of the interior rows of the sweep rows [from,
 * to): the time over the log-log line through the two neighbours. */
static void lines(struct row *r, size_t from, size_t to) {
  for (size_t j = from + 1; j + 1 < to; j++) {
    struct row *a = &r[j - 1], *x = &r[j], *b = &r[j + 1];
    if (!(a->size > 0) || !(a->size < x->size) || !(x->size < b->size))
      continue; /* a repeated size, or size 0: no line */
    x->prev = j - 1;
    x->off = x->t / on_line(a, b, x->size, false);
    if (!isnan(a->tm) && !isnan(x->tm) && !isnan(b->tm))
      x->off_calls = x->tm / on_line(a, b, x->size, true);
  }
}

/* ---- latency-floor ------------------------------------------------------- */

static enum gcb_status floor_finding(const struct gcb__rule_ctx *cx,
                                     const struct row *x,
                                     const struct row *alpha, double bwt,
                                     double floor) {
  struct gcb_finding *f = push_row(cx, x, floor);
  if (f == NULL)
    return GCB_ENOMEM;
  char ts[32], fs[32], as[32], bs[32], title[160], k[32];
  gcb_view_fmt_time(x->t, ts, sizeof ts);
  gcb_view_fmt_time(floor, fs, sizeof fs);
  gcb_view_fmt_time(alpha->t, as, sizeof as);
  gcb_view_fmt_time(bwt, bs, sizeof bs);
  gcb_model_case_title(alpha->c, title, sizeof title);
  gcb_finding_explain(f,
                      "a %.0f B message takes %s, %sx its floor of %s: the "
                      "fastest %s this run measured on %s (%s, %s) plus %s "
                      "for its bytes at the sweep's best bus bandwidth",
                      x->size, ts, times(x->t / floor, 1, k, sizeof k), fs,
                      x->c->op, x->c->backend, title, as, bs);
  gcb__rule_suggest(f);
  return GCB_OK;
}

/* Sets over (and over_calls) of the small rows of the sweep rows [from,
 * to): the time over the floor. Within one sweep busbw is size / time
 * times one factor, so the row's bytes at the best busbw take size /
 * max(size / time): no busbw needed (OSU's files have none). */
static void floors(struct row *r, size_t from, size_t to) {
  double best = 0, best_calls = 0;
  for (size_t j = from; j < to; j++) {
    if (r[j].size / r[j].t > best)
      best = r[j].size / r[j].t;
    if (r[j].size / r[j].tm > best_calls) /* false for NAN */
      best_calls = r[j].size / r[j].tm;
  }
  for (size_t j = from; j < to; j++) {
    struct row *x = &r[j];
    if (x->size > SMALL_BYTES)
      continue;
    const struct row *alpha = &r[x->alpha];
    x->bytes_t = best > 0 ? x->size / best : 0;
    x->over = x->t / (alpha->t + x->bytes_t);
    /* the calls against a floor of the same rows' calls: the per-call
     * pass reads the clock around each call, so its times run above the
     * loop's (a 2.8 us broadcast loop, 5.4 us calls) */
    x->over_calls =
        x->tm / (alpha->tm + (best_calls > 0 ? x->size / best_calls : 0));
  }
}

/* Whether a row is beyond `limit` by its loop's ratio (off or over) and,
 * where it has them, its calls' medians'; a row with no calls (an
 * imported log: one time per row), by its twin's ratio in the other half
 * too (NULL: none), where that one can be judged: a dip that is a
 * protocol's or the fabric's repeats in the same size run in place and
 * out of place, one that shows in one half is one disturbed loop
 * (nccl-tests' 256 B row at 94 us out of place, 26 us in place, between
 * rows of 26 and 32 us). */
static bool beyond(double ratio, double calls, const double *twin,
                   double limit) {
  if (!(ratio > limit))
    return false;
  if (!isnan(calls))
    return calls > limit;
  return twin == NULL || isnan(*twin) || *twin > limit;
}

/* The rows of the other half (in place or out of place) of each row's
 * sweep, same size, where the document has it: r is sorted by sweep and
 * size, so each is a binary search. */
static void set_twins(struct row *r, size_t n) {
  for (size_t i = 0; i < n; i++) {
    r[i].twin = SIZE_MAX;
    size_t len = strlen(r[i].sweep);
    bool in = len >= 3 && strcmp(r[i].sweep + len - 3, "|in") == 0;
    char want[sizeof r[i].sweep + 1];
    snprintf(want, sizeof want, "%.*s|%s", (int)(len - (in ? 3 : 4)),
             r[i].sweep, in ? "out" : "in");
    size_t lo = 0, hi = n; /* the first row not before (want, size) */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      int c = strcmp(r[mid].sweep, want);
      if (c < 0 || (c == 0 && r[mid].size < r[i].size))
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < n && strcmp(r[lo].sweep, want) == 0 && r[lo].size == r[i].size)
      r[i].twin = lo;
  }
}

/* One function for both kinds (the kind says which it reports): the
 * floor needs the rows the trend flags, so that a row is reported once. */
enum gcb_status gcb__rule_sweep_rows(const struct gcb__rule_ctx *cx) {
  bool floor = cx->kind->id == GCB_KIND_LATENCY_FLOOR;
  size_t n;
  struct row *r = rows_of(cx->doc->model, &n);
  if (r == NULL)
    return gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
  set_twins(r, n);
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i; j < n && strcmp(r[j].sweep, r[i].sweep) == 0; j++)
      ;
    lines(r, i, j);
    floors(r, i, j);
  }
  double limit = 1 + cx->t->trend_pct / 100;
  for (size_t i = 0; i < n; i++) {
    const struct row *t = r[i].twin != SIZE_MAX ? &r[r[i].twin] : NULL;
    r[i].trend = beyond(r[i].off, r[i].off_calls, t ? &t->off : NULL, limit);
  }
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < n && st == GCB_OK; i++) {
    const struct row *x = &r[i];
    const struct row *t = x->twin != SIZE_MAX ? &r[x->twin] : NULL;
    if (!floor && x->trend)
      st = trend_finding(cx, r, x);
    else if (floor && !x->trend &&
             beyond(x->over, x->over_calls, t ? &t->over : NULL,
                    cx->t->latency_floor_x))
      st = floor_finding(cx, x, &r[x->alpha], x->bytes_t, x->t / x->over);
  }
  free(r);
  return st;
}
