/*
 * The burn-in timeline (burn.h): the burn cases of a document's model
 * (each timeline read once, by the document's reader, when the model was
 * built), and each rank's series judged on its own: sustained (median)
 * and peak, the per-interval noise, and a fall that stays down, found as
 * the one change point of the median-filtered series, with its cause read
 * from the rank's own telemetry over the same intervals.
 */
#include "reports/analysis/burn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/bench_kind.h"
#include "reports/document/stats.h"

bool gcb_burn_is_model_case(const struct gcb_model_case *c) {
  return c->kind == GCB_BENCH_BURN;
}

/* Series s of rank r at interval i (NAN: not measured, or not there). */
static double value_at(const struct gcb_burn_timeline *tl,
                       enum gcb_burn_series s, size_t r, size_t i) {
  return gcb_burn_value(tl, (int)s, (int)r, (long)i);
}

/* The start of interval i, seconds since the start barrier. */
static double start_of(const struct gcb_burn_timeline *tl, size_t i) {
  return gcb_burn_end_s(tl, (long)i) - tl->interval_s;
}

const struct gcb_burn_counter gcb_burn_counters[GCB_BURN_NCOUNTERS] = {
    {GCB_BURN_ECC_DBE, "uncorrected (double-bit) ECC errors", "DBE",
     GCB_SEV_FAIL},
    {GCB_BURN_XID, "Xid events", "Xid", GCB_SEV_FAIL},
    {GCB_BURN_ECC_SBE, "corrected (single-bit) ECC errors", "SBE",
     GCB_SEV_WARN},
    {GCB_BURN_PCIE_REPLAY, "PCIe replays", "replay", GCB_SEV_WARN},
};

/* How much counter s of rank r grew, and when it first did (burn.h,
 * struct gcb_burn_rank's grew and grew_s). */
static double growth(const struct gcb_burn_timeline *tl, enum gcb_burn_series s,
                     size_t r, double *when) {
  double first = NAN, last = NAN;
  *when = NAN;
  for (size_t k = 0; k < (size_t)tl->n; k++) {
    double v = value_at(tl, s, r, k);
    if (isnan(v) || v < 0)
      continue; /* not read (-1) */
    if (isnan(first))
      first = v;
    else if (v > last && isnan(*when))
      *when = start_of(tl, k);
    last = v;
  }
  return isnan(first) ? 0 : last - first;
}

const char *gcb_burn_cause_name(enum gcb_burn_cause c) {
  static const char *const names[] = {"",      "CPU time",  "thermal",
                                      "power", "frequency", "unknown"};
  return c <= GCB_BURN_CAUSE_UNKNOWN ? names[c] : "?";
}

/* ---- formatting --------------------------------------------------------- */

void gcb_burn_fmt_duration(double s, char *buf, size_t size) {
  if (isnan(s) || s < 0) {
    snprintf(buf, size, "-");
    return;
  }
  long long whole = llround(s);
  if (s < 60 && fabs(s - (double)whole) > 0.05)
    snprintf(buf, size, "%.1f s", s);
  else if (whole < 60)
    snprintf(buf, size, "%lld s", whole);
  else if (whole < 3600 && whole % 60 == 0)
    snprintf(buf, size, "%lld min", whole / 60);
  else if (whole < 3600)
    snprintf(buf, size, "%lld min %lld s", whole / 60, whole % 60);
  else
    snprintf(buf, size, "%lld h %lld min", whole / 3600, whole % 3600 / 60);
}

void gcb_burn_fmt_reasons(unsigned long long mask, char *buf, size_t size) {
  static const struct {
    unsigned long long bit;
    const char *name;
  } bits[] = {
      {GCB_BURN_HW_THERMAL, "hw_thermal"},
      {GCB_BURN_SW_THERMAL, "sw_thermal"},
      {GCB_BURN_HW_POWER_BRAKE, "hw_power_brake"},
      {GCB_BURN_SW_POWER_CAP, "sw_power_cap"},
      {GCB_BURN_HW_SLOWDOWN, "hw_slowdown"},
  };
  size_t used = 0;
  buf[0] = '\0';
  for (size_t k = 0; k < sizeof bits / sizeof *bits && used < size; k++)
    if (mask & bits[k].bit)
      used += (size_t)snprintf(buf + used, size - used, "%s%s",
                               used ? ", " : "", bits[k].name);
}

/* ---- one rank's series -------------------------------------------------- */

/* A level once at its peak this far below the peak it held is a rank that
 * throttles on and off (healthy noise of +-5 % leaves it near 0.95). */
#define PEAK_PCT 15.0

/* The fewest intervals on each side of a fall: fewer after it is no
 * evidence that it stays down (three dips among the last five intervals
 * happen in long noisy burns); fewer before it leaves no level to fall
 * from. */
#define EDGE 5

/* Median of the non-NAN values of x[from..to) (copied into tmp); NAN when
 * none. */
static double median_of(const double *x, size_t from, size_t to, double *tmp) {
  size_t n = 0;
  for (size_t i = from; i < to; i++)
    if (!isnan(x[i]))
      tmp[n++] = x[i];
  return n ? gcb_stats_median(tmp, n) : NAN;
}

/* The running median of x[0..n) over a window of 5 (shrunk at the ends),
 * into m; one interval's dip or spike moves none of it. */
static void median_filter(const double *x, size_t n, double *m) {
  for (size_t i = 0; i < n; i++) {
    double w[5];
    size_t lo = i >= 2 ? i - 2 : 0, hi = i + 3 < n ? i + 3 : n, k = 0;
    for (size_t j = lo; j < hi; j++)
      w[k++] = x[j];
    m[i] = gcb_stats_median(w, k);
  }
}

/* The split k of m[0..n) where the mean steps down the most, weighted as
 * a two-sample statistic ((mean before - mean after) * sqrt(k (n - k) /
 * n)); 0 when no split of at least `edge` intervals a side steps down. */
static size_t change_point(const double *m, size_t n, size_t edge) {
  double total = 0, left = 0, best = 0;
  size_t at = 0;
  for (size_t i = 0; i < n; i++)
    total += m[i];
  for (size_t k = 1; k < n; k++) {
    left += m[k - 1];
    if (k < edge || n - k < edge)
      continue;
    double a = left / (double)k, b = (total - left) / (double)(n - k);
    double stat = (a - b) * sqrt((double)k * (double)(n - k) / (double)n);
    if (stat > best) {
      best = stat;
      at = k;
    }
  }
  return at;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Rank r's figure series without its gaps: values into x, their interval
 * indices into at; returns how many. */
static size_t compact_figure(const struct gcb_burn_timeline *tl, size_t r,
                             double *x, size_t *at) {
  size_t n = 0;
  for (size_t i = 0; i < (size_t)tl->n; i++) {
    double v = value_at(tl, GCB_BURN_FIGURE, r, i);
    if (!isnan(v)) {
      x[n] = v;
      at[n++] = i;
    }
  }
  return n;
}

double gcb_burn_median(const struct gcb_burn_timeline *tl,
                       enum gcb_burn_series s, size_t r, size_t from, size_t to,
                       double *tmp) {
  if (tl->v[s] == NULL)
    return NAN;
  return median_of(tl->v[s] + r * (size_t)tl->n, from, to, tmp);
}

/* The cause of a fall at interval `onset` of rank r, with the telemetry
 * that shows it, into out. */
static void read_cause(const struct gcb_burn_timeline *tl, size_t r,
                       size_t onset, double *tmp, struct gcb_burn_rank *out) {
  size_t nt = (size_t)tl->n;
  double ub = gcb_burn_median(tl, GCB_BURN_CPU_UTIL, r, 0, onset, tmp);
  double ua = gcb_burn_median(tl, GCB_BURN_CPU_UTIL, r, onset, nt, tmp);
  double sb = gcb_burn_median(tl, GCB_BURN_SM_CLOCK_MHZ, r, 0, onset, tmp);
  double sa = gcb_burn_median(tl, GCB_BURN_SM_CLOCK_MHZ, r, onset, nt, tmp);
  double cb = gcb_burn_median(tl, GCB_BURN_CPU_MHZ, r, 0, onset, tmp);
  double ca = gcb_burn_median(tl, GCB_BURN_CPU_MHZ, r, onset, nt, tmp);
  double tb = gcb_burn_median(tl, GCB_BURN_TEMP_C, r, 0, onset, tmp);
  double ta = gcb_burn_median(tl, GCB_BURN_TEMP_C, r, onset, nt, tmp);
  out->cpu_util_after = ua;
  out->gpu_clock = !isnan(sb);
  out->mhz_before = out->gpu_clock ? sb : cb;
  out->mhz_after = out->gpu_clock ? sa : ca;
  out->temp_after = ta;
  out->power_before = gcb_burn_median(tl, GCB_BURN_POWER_W, r, 0, onset, tmp);
  out->power_after = gcb_burn_median(tl, GCB_BURN_POWER_W, r, onset, nt, tmp);
  /* A reason counts when it is set in most intervals of the fall, and
   * was not already set before it (an always-on bit explains no change). */
  unsigned long long before = 0, after = 0;
  size_t nafter = 0;
  unsigned counts[64] = {0};
  for (size_t i = 0; i < nt; i++) {
    double m = value_at(tl, GCB_BURN_THROTTLE_REASONS, r, i);
    if (isnan(m) || m < 0)
      continue;
    unsigned long long bits = (unsigned long long)m;
    if (i < onset)
      before |= bits;
    else {
      nafter++;
      for (int b = 0; b < 64; b++)
        counts[b] += (unsigned)(bits >> b & 1);
    }
  }
  for (int b = 0; b < 64; b++)
    if (nafter > 0 && 2 * counts[b] > nafter)
      after |= 1ull << b;
  out->reasons = after & ~before;
  const unsigned long long thermal = GCB_BURN_HW_THERMAL | GCB_BURN_SW_THERMAL;
  const unsigned long long power =
      GCB_BURN_SW_POWER_CAP | GCB_BURN_HW_POWER_BRAKE;
  bool clocks_fell = out->mhz_after < out->mhz_before * 0.93;
  /* CPU time lost: a tenth or more of what the rank got before, and
   * enough to explain at least 40 % of the fall. Relative, not absolute:
   * a rank on a loaded VM gets 0.28 of what it asks for from the start,
   * and a hog takes it to 0.24 (a real burn on this project's VM). */
  double drop = out->drop;
  bool cpu_lost =
      ua < ub * 0.9 && (ub - ua) / ub >= 0.4 * (isnan(drop) ? 0 : drop);
  /* On a host rank the CPU does the work: lost CPU time explains a fall
   * before anything else. A GPU rank's CPU time may move with its GPU
   * (a blocking wait sleeps longer when kernels take longer), so the
   * GPU's own reasons and clock come first there. */
  if (cpu_lost && !out->gpu_clock)
    out->cause = GCB_BURN_CAUSE_CPU_TIME;
  else if ((out->reasons & thermal) ||
           (clocks_fell && ta - tb >= 5 && (out->reasons & power) == 0 &&
            ta >= 80))
    out->cause = GCB_BURN_CAUSE_THERMAL;
  else if (out->reasons & (power | GCB_BURN_HW_SLOWDOWN))
    out->cause = GCB_BURN_CAUSE_POWER;
  else if (clocks_fell)
    out->cause = GCB_BURN_CAUSE_FREQUENCY;
  else if (cpu_lost)
    out->cause = GCB_BURN_CAUSE_CPU_TIME;
  else
    out->cause = GCB_BURN_CAUSE_UNKNOWN;
}

/* Rank r's error counters and wrong products, into out. */
static void read_errors(const struct gcb_burn_timeline *tl, size_t r,
                        struct gcb_burn_rank *out) {
  for (size_t k = 0; k < GCB_BURN_NCOUNTERS; k++)
    out->grew[k] = growth(tl, gcb_burn_counters[k].s, r, &out->grew_s[k]);
  out->wrong_s = NAN;
  for (size_t i = 0; i < (size_t)tl->n; i++) {
    double w = value_at(tl, GCB_BURN_WRONG, r, i);
    double ch = value_at(tl, GCB_BURN_CHECKED, r, i);
    out->checked += isnan(ch) ? 0 : ch;
    if (!(w > 0))
      continue;
    out->wrong += w;
    out->wrong_intervals++;
    if (isnan(out->wrong_s))
      out->wrong_s = start_of(tl, i);
  }
}

/* Whether four fifths of x[from..n) are below mid. On the raw intervals
 * from the onset: a level that fell holds it; a few dips gathered at the
 * end of a burn, which the filter's shrunken window lets through, do not. */
static bool mostly_below(const double *x, size_t n, size_t from, double mid) {
  size_t below = 0;
  for (size_t i = from; i < n; i++)
    below += x[i] < mid;
  return 5 * below >= 4 * (n - from);
}

/* Whether the fall at split k of the filtered series m[0..n) stays down:
 * four fifths of the intervals after it, and the last three, below mid. */
static bool stays_down(const double *m, size_t n, size_t k, double mid) {
  if (!mostly_below(m, n, k, mid))
    return false;
  for (size_t i = n - 3; i < n; i++)
    if (!(m[i] < mid))
      return false;
  return true;
}

/* The first interval of the fall near the split k: the earliest, from
 * three before k on, that is below mid with the one after it (so that a
 * single dip before the fall does not start it). */
static size_t onset_near(const double *x, size_t n, size_t k, double mid) {
  size_t from = k >= 3 ? k - 3 : 0, to = k + 3 < n ? k + 3 : n;
  for (size_t i = from; i < to; i++)
    if (x[i] < mid && (i + 1 >= n || x[i + 1] < mid))
      return i;
  return k;
}

static void judge_fall(const struct gcb_burn_timeline *tl, size_t r,
                       const double *x, const size_t *at, const double *m,
                       size_t n, double min_drop, double k_noise, double *tmp,
                       struct gcb_burn_rank *out) {
  size_t k = change_point(m, n, EDGE);
  if (k == 0)
    return;
  double before = median_of(x, 0, k, tmp), after = median_of(x, k, n, tmp);
  double drop = 1 - after / before;
  double mid = (before + after) / 2;
  if (!(before > 0) || !(drop > min_drop) || !(drop > k_noise * out->noise) ||
      !stays_down(m, n, k, mid))
    return;
  size_t o = onset_near(x, n, k, mid);
  if (!mostly_below(x, n, o, mid))
    return;
  before = median_of(x, 0, o, tmp);
  after = median_of(x, o, n, tmp);
  out->onset = (long)at[o];
  out->onset_s = start_of(tl, at[o]);
  if (!(out->onset_s >= 0))
    out->onset_s = 0;
  out->before = before;
  out->after = after;
  out->drop = 1 - after / before;
  read_cause(tl, r, at[o], tmp, out);
}

bool gcb_burn_rank_judge(const struct gcb_burn_timeline *tl, size_t r,
                         double min_drop, double k_noise,
                         struct gcb_burn_rank *out) {
  memset(out, 0, sizeof *out);
  out->rank = out->node = -1;
  out->onset = -1;
  out->onset_s = out->before = out->after = out->drop = NAN;
  out->sustained = out->peak = out->held = out->worst = out->noise = NAN;
  out->since_held = NAN;
  out->cpu_util_after = out->mhz_before = out->mhz_after = NAN;
  out->temp_after = out->power_before = out->power_after = NAN;
  size_t nt = (size_t)tl->n;
  double *x = malloc(4 * nt * sizeof *x + 1);
  size_t *at = malloc(nt * sizeof *at + 1);
  if (x == NULL || at == NULL) {
    free(x);
    free(at);
    return false;
  }
  double *m = x + nt, *tmp = x + 2 * nt, *res = x + 3 * nt;
  read_errors(tl, r, out);
  size_t n = compact_figure(tl, r, x, at);
  out->n = n;
  if (n > 0) {
    out->sustained = median_of(x, 0, n, tmp);
    memcpy(tmp, x, n * sizeof *tmp);
    qsort(tmp, n, sizeof *tmp, cmp_double);
    out->peak = tmp[n - 1];
    out->worst = tmp[0];
    median_filter(x, n, m);
    /* The level it held, the running median's 95th percentile: a burst
     * of an interval or two (a VM's neighbour pausing) is gone from the
     * running median, a throttle cycle of a few seconds on and off is not. */
    memcpy(tmp, m, n * sizeof *tmp);
    qsort(tmp, n, sizeof *tmp, cmp_double);
    out->held = tmp[(size_t)floor(0.95 * (double)(n - 1) + 0.5)];
    for (size_t i = 0; i < n; i++)
      res[i] = fabs(x[i] - m[i]);
    out->noise = 1.4826 * median_of(res, 0, n, tmp) / out->sustained;
    /* From the first time its level reached that peak: a rank whose
     * level rose and stayed (a peer limited, its core handed over)
     * holds it from there; one that throttles does not. */
    double reached = out->held * (1 - fmax(0.05, 2 * out->noise));
    size_t from = 0;
    while (from + 1 < n && !(m[from] >= reached))
      from++;
    out->since_held = median_of(x, from, n, tmp);
  }
  if (n >= 2 * EDGE)
    judge_fall(tl, r, x, at, m, n, min_drop, k_noise, tmp, out);
  double limit = fmax(PEAK_PCT / 100, k_noise * out->noise);
  out->unheld =
      out->onset < 0 && n >= 8 && out->since_held < out->held * (1 - limit);
  free(x);
  free(at);
  return true;
}

/* ---- a document's burn cases -------------------------------------------- */

void gcb_burn_doc_free(struct gcb_burn_doc *b) {
  if (b == NULL)
    return;
  for (size_t i = 0; i < b->n; i++)
    free(b->cases[i].ranks);
  free(b->cases);
  memset(b, 0, sizeof *b);
}

/* Case c into *k, judged by t: false on ENOMEM. k->ranks stays NULL for
 * a case without a timeline to judge (no intervals, no rank, no
 * throughput). */
static bool case_read(const struct gcb_model *m, const struct gcb_model_case *c,
                      const struct gcb_thresholds *t, struct gcb_burn_case *k) {
  *k = (struct gcb_burn_case){.bench_case = c, .index = c->index};
  if (c->timeline == NULL)
    return true;
  k->tl = *c->timeline;
  size_t n = (size_t)k->tl.nranks;
  if (k->tl.n <= 0 || k->tl.nranks <= 0 || k->tl.v[GCB_BURN_FIGURE] == NULL)
    return true;
  if ((k->ranks = calloc(n, sizeof *k->ranks)) == NULL)
    return false;
  double *x = malloc(n * sizeof *x);
  bool *slow = malloc(n * sizeof *slow);
  bool ok = x != NULL && slow != NULL;
  for (size_t r = 0; ok && r < n; r++) {
    struct gcb_burn_rank *br = &k->ranks[r];
    ok = gcb_burn_rank_judge(&k->tl, r, t->slow_rank_pct / 100, t->outlier_mads,
                             br);
    if (k->tl.v[GCB_BURN_WRONG] == NULL) { /* the per-rank validation's */
      double w = gcb_model_col(c, GCB_RC_WRONG, r);
      br->wrong = isnan(w) ? 0 : (double)(long long)w;
    }
    br->rank = gcb_model_col_rank(c, r, (long long)r);
    const struct gcb_model_rank *mr = gcb_model_rank(m, br->rank);
    br->node = mr != NULL ? mr->node : -1;
    x[r] = br->sustained;
  }
  if (ok)
    gcb_analyze_slow(x, n, t, slow, &k->peers);
  for (size_t r = 0; ok && r < n; r++)
    k->ranks[r].slow = slow[r];
  free(x);
  free(slow);
  return ok;
}

enum gcb_status gcb_burn_doc_read_model(const struct gcb_model *m,
                                        const struct gcb_thresholds *t,
                                        struct gcb_burn_doc *out,
                                        struct gcb_err *err) {
  *out = (struct gcb_burn_doc){.min_drop = t->slow_rank_pct / 100,
                               .k_noise = t->outlier_mads,
                               .min_ranks = t->outlier_min_ranks};
  size_t n = 0;
  for (size_t i = 0; i < m->ncases; i++)
    n += gcb_burn_is_model_case(&m->cases[i]);
  if (n == 0)
    return GCB_OK;
  if ((out->cases = calloc(n, sizeof *out->cases)) == NULL)
    goto oom;
  for (size_t i = 0; i < m->ncases; i++) {
    if (!gcb_burn_is_model_case(&m->cases[i]))
      continue;
    struct gcb_burn_case *k = &out->cases[out->n];
    bool ok = case_read(m, &m->cases[i], t, k);
    if (k->ranks != NULL || !ok)
      out->n++; /* kept, or freed with the rest */
    if (!ok)
      goto oom;
  }
  return GCB_OK;
oom:
  gcb_burn_doc_free(out);
  return gcb_err_set(err, GCB_ENOMEM, "burn timeline: out of memory");
}

const struct gcb_burn_doc *gcb_burn_doc_of(const struct gcb_doc *doc,
                                           const struct gcb_thresholds *t,
                                           struct gcb_burn_doc *own,
                                           struct gcb_err *err) {
  *own = (struct gcb_burn_doc){0};
  const struct gcb_burn_doc *b = doc->burn;
  if (b != NULL && b->min_drop == t->slow_rank_pct / 100 &&
      b->k_noise == t->outlier_mads && b->min_ranks == t->outlier_min_ranks)
    return b;
  if (doc->model == NULL) {
    gcb_err_set(err, GCB_EINPUT, "%s: no model to read burn cases from",
                doc->name != NULL ? doc->name : "document");
    return NULL;
  }
  return gcb_burn_doc_read_model(doc->model, t, own, err) == GCB_OK ? own
                                                                    : NULL;
}
