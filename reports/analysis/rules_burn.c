/*
 * The burn-in rules: over each `gcbench burn` case's timeline (burn.h),
 *  - burn-silent-error: a rank whose products differed from the first
 *    (wrong > 0): fail, with the count and when;
 *  - burn-counters: ECC, PCIe replay or Xid counters that grew during the
 *    burn: fail for double-bit ECC errors and Xid events, warn for
 *    corrected ECC errors and PCIe replays, with the amounts;
 *  - burn-falloff: a rank whose throughput falls and stays down, with its
 *    onset, the drop against its own first intervals and against its
 *    peers at the same time, and the cause its own telemetry shows;
 *  - burn-node: every rank of a node falling together (within a few
 *    intervals): one cause on the node (its power or cooling) instead of
 *    one per GPU;
 *  - burn-sustained: a rank without a fall whose median figure, from the
 *    first time it reached the peak it held, lies well below that peak (it
 *    oscillates: throttles on and off; a level that rose and stayed is
 *    left alone), or whose sustained figure lies below its peers by the
 *    slow-rank rule.
 * One function for every kind (the rule context's kind says which it
 * reports): the node rule needs every rank's fall before the falloff rule
 * can leave a node's ranks to it. Thresholds and sentences:
 * docs/REPORTS.md ("Burn-in").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"
#include "reports/analysis/burn.h"
#include "reports/analysis/diagnose.h"
#include "reports/document/ranks.h"
#include "reports/document/stats.h"

/* Ranks of one node fall "together" within this many intervals, or this
 * fraction of the burn, whichever is longer. */
#define NODE_INTERVALS 5
#define NODE_FRACTION 0.05

/* Everything the rules of one case share. */
struct burn_case {
  const struct gcb__rule_ctx *cx;
  const struct gcb_model *m;          /* the document's */
  const struct gcb_model_case *c;     /* the case, in m */
  const struct gcb_burn_timeline *tl; /* the case's, read once */
  const struct gcb_burn_rank *ranks;  /* nranks, judged once */
  double peers;                       /* their median sustained figure */
  size_t nranks, nt;
  bool *in_node; /* nranks: its fall is its node's (burn-node) */
  bool gpu;      /* cuda: ranks are GPUs */
  size_t nnodes; /* of the document */
};

/* ---- words -------------------------------------------------------------- */

/* x rounded, with thousands separators ("1,980"). */
static void thousands(double x, char *buf, size_t size) {
  char digits[32];
  snprintf(digits, sizeof digits, "%.0f", fabs(x));
  size_t n = strlen(digits), k = 0;
  if (x <= -0.5 && k + 1 < size)
    buf[k++] = '-';
  for (size_t i = 0; i < n && k + 2 < size; i++) {
    buf[k++] = digits[i];
    if ((n - i - 1) % 3 == 0 && i + 1 < n)
      buf[k++] = ',';
  }
  buf[k] = '\0';
}

/* "GPU 3 (node01)", "rank 1", "rank 1 (node01)" on several nodes. */
static void who(const struct burn_case *b, size_t i, char *buf, size_t size) {
  struct gcb_place p;
  long long rank = b->ranks[i].rank;
  gcb_model_place(b->m, rank, &p);
  if (b->gpu && p.gpu >= 0)
    snprintf(buf, size, "GPU %lld (%s)", p.gpu, p.hostname);
  else if (b->nnodes > 1)
    snprintf(buf, size, "rank %lld (%s)", rank, p.hostname);
  else
    snprintf(buf, size, "rank %lld", rank);
}

/* "clocks 1,980 -> 1,410 MHz" when the rank's clock was read; "". */
static int clocks(const struct gcb_burn_rank *r, char *buf, size_t size) {
  if (isnan(r->mhz_before) || isnan(r->mhz_after))
    return snprintf(buf, size, "%s", "");
  char a[32], b[32];
  thousands(r->mhz_before, a, sizeof a);
  thousands(r->mhz_after, b, sizeof b);
  return snprintf(buf, size, "clocks %s -> %s MHz", a, b);
}

/* What the rank's telemetry says about its fall. */
static void cause_text(const struct gcb_burn_rank *r, char *buf, size_t size) {
  char clk[64], why[96];
  int n = clocks(r, clk, sizeof clk);
  gcb_burn_fmt_reasons(r->reasons, why, sizeof why);
  const char *sep = n > 0 ? ", " : "";
  switch (r->cause) {
  case GCB_BURN_CAUSE_CPU_TIME:
    snprintf(buf, size, "it got %.0f %% of the CPU time it asked for",
             r->cpu_util_after * 100);
    break;
  case GCB_BURN_CAUSE_THERMAL:
    snprintf(buf, size, "%s%s%s at %.0f C", clk, sep,
             why[0] ? why : "temperature", r->temp_after);
    break;
  case GCB_BURN_CAUSE_POWER:
    if (!isnan(r->power_after))
      snprintf(buf, size, "%s%s%s at %.0f W", clk, sep, why, r->power_after);
    else
      snprintf(buf, size, "%s%s%s", clk, sep, why);
    break;
  case GCB_BURN_CAUSE_FREQUENCY:
    snprintf(buf, size, "%s with no thermal or power reason reported", clk);
    break;
  default:
    snprintf(buf, size,
             "its CPU time, clocks, temperature and power show no cause");
  }
}

static const char *cause_advice(enum gcb_burn_cause c, bool gpu) {
  switch (c) {
  case GCB_BURN_CAUSE_CPU_TIME:
    return "another process took the rank's cores, or a CPU limit (cgroup "
           "cpu.max, a container quota): look with top -H or pidstat -t, "
           "and bind the rank to cores of its own";
  case GCB_BURN_CAUSE_THERMAL:
    return gpu ? "check the GPU's cooling: fans, airflow, inlet temperature "
                 "(nvidia-smi -q -d TEMPERATURE,PERFORMANCE)"
               : "check the CPU's cooling: fans, heatsink, inlet "
                 "temperature (sensors)";
  case GCB_BURN_CAUSE_POWER:
    return gpu ? "check the power limit and the node's power supply "
                 "(nvidia-smi -q -d POWER,PERFORMANCE)"
               : "check the package power limit (powercap, BIOS) and the "
                 "node's power supply";
  case GCB_BURN_CAUSE_FREQUENCY:
    return gpu ? "check locked or application clocks (nvidia-smi -q -d CLOCK)"
               : "check the CPU frequency governor and limits (cpupower "
                 "frequency-info)";
  default:
    return "rerun the burn with telemetry readable on this rank, and look "
           "for other load on the node";
  }
}

/* ---- the case ----------------------------------------------------------- */

/* Case k of the burn cases read from model m (the document's, or one
 * built from the same tree: the same index), in m. */
static enum gcb_status case_open(const struct gcb__rule_ctx *cx,
                                 const struct gcb_model *m,
                                 const struct gcb_burn_case *k,
                                 struct burn_case *b) {
  size_t n = (size_t)k->tl.nranks;
  *b = (struct burn_case){.cx = cx,
                          .m = m,
                          .c = k->index < m->ncases ? &m->cases[k->index]
                                                    : k->bench_case,
                          .tl = &k->tl,
                          .ranks = k->ranks,
                          .peers = k->peers,
                          .nranks = n,
                          .nt = (size_t)k->tl.n};
  b->in_node = calloc(n + 1, sizeof *b->in_node);
  if (b->in_node == NULL)
    return gcb_err_set(cx->err, GCB_ENOMEM, "analysis: out of memory");
  b->gpu = strcmp(b->c->backend, "cuda") == 0;
  b->nnodes = m->nnodes;
  return GCB_OK;
}

static struct gcb_finding *push_at(const struct burn_case *b,
                                   enum gcb_severity sev, size_t i) {
  struct gcb_finding *f = gcb__rule_push_case(b->cx, sev, b->c, -1);
  if (f != NULL && i < b->nranks)
    gcb_finding_at_model_rank(f, b->cx->index, b->m, b->ranks[i].rank);
  return f;
}

/* A fall of `drop` (a fraction) fails past slow_rank_fail_pct, else warns. */
static enum gcb_severity fall_severity(const struct burn_case *b, double drop) {
  return drop * 100 > b->cx->t->slow_rank_fail_pct ? GCB_SEV_FAIL
                                                   : GCB_SEV_WARN;
}

/* The median of the other ranks' figures over intervals [from, to) of
 * the burn, each rank's own median first; NAN without peers. */
static double peers_at(const struct burn_case *b, size_t self, size_t from,
                       size_t to) {
  size_t n = b->nranks, k = 0;
  double *per = malloc((n + 1) * sizeof *per);
  double *tmp = malloc((to - from + 1) * sizeof *tmp);
  double m = NAN;
  for (size_t r = 0; per != NULL && tmp != NULL && r < n; r++) {
    double v = r == self
                   ? NAN
                   : gcb_burn_median(b->tl, GCB_BURN_FIGURE, r, from, to, tmp);
    if (!isnan(v))
      per[k++] = v;
  }
  if (k > 0)
    m = gcb_stats_median(per, k);
  free(per);
  free(tmp);
  return m;
}

/* ---- burn-silent-error -------------------------------------------------- */

static enum gcb_status silent_errors(const struct burn_case *b) {
  for (size_t i = 0; i < b->nranks; i++) {
    const struct gcb_burn_rank *r = &b->ranks[i];
    double wrong = r->wrong, first = r->wrong_s;
    if (!(wrong > 0))
      continue;
    struct gcb_finding *f = push_at(b, GCB_SEV_FAIL, i);
    if (f == NULL)
      return GCB_ENOMEM;
    gcb_finding_figures(f, wrong, 0, "products");
    char w[96], at[32] = "", of[64] = "";
    who(b, i, w, sizeof w);
    if (!isnan(first))
      gcb_burn_fmt_duration(first < 0 ? 0 : first, at, sizeof at);
    if (r->checked > 0)
      snprintf(of, sizeof of, " of %.0f compared", r->checked);
    if (r->wrong_intervals > 0)
      gcb_finding_explain(f,
                          "%s: %.0f wrong product(s)%s in %zu interval(s), "
                          "the first after %s: silent data corruption",
                          w, wrong, of, r->wrong_intervals, at);
    else
      gcb_finding_explain(f, "%s: %.0f wrong product(s)%s during the burn", w,
                          wrong, of);
    gcb_finding_suggest(f, "a product that differs from the first is a "
                           "hardware fault until shown otherwise: check ECC "
                           "and Xid, rerun; replace the part if it repeats");
  }
  return GCB_OK;
}

/* ---- burn-counters ------------------------------------------------------ */

static enum gcb_status counters(const struct burn_case *b) {
  for (size_t i = 0; i < b->nranks; i++) {
    const struct gcb_burn_rank *r = &b->ranks[i];
    char text[256] = "";
    size_t used = 0;
    enum gcb_severity sev = GCB_SEV_INFO;
    double worst = 0, first = NAN;
    for (size_t k = 0; k < GCB_BURN_NCOUNTERS; k++) {
      const struct gcb_burn_counter *c = &gcb_burn_counters[k];
      double d = r->grew[k], when = r->grew_s[k];
      if (!(d > 0))
        continue;
      if (worst == 0) /* counters run from the worst kind down */
        worst = d;
      sev = c->sev > sev ? c->sev : sev;
      first = isnan(first) || when < first ? when : first;
      if (used < sizeof text)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s +%.0f",
                                 used ? ", " : "", c->what, d);
    }
    if (sev == GCB_SEV_INFO)
      continue;
    struct gcb_finding *f = push_at(b, sev, i);
    if (f == NULL)
      return GCB_ENOMEM;
    gcb_finding_figures(f, worst, 0, "errors");
    char w[96], at[32];
    who(b, i, w, sizeof w);
    gcb_burn_fmt_duration(first, at, sizeof at);
    gcb_finding_explain(f, "%s: %s during the burn, the first after %s", w,
                        text, at);
    gcb_finding_suggest(
        f, sev == GCB_SEV_FAIL
               ? "uncorrected memory errors and Xid events are faults: "
                 "drain the GPU, read the kernel log (Xid) and "
                 "nvidia-smi -q -d ECC,PAGE_RETIREMENT; replace if it repeats"
               : "corrected errors and replays that grow under load foretell "
                 "faults: watch the counters, reseat or replace the part if "
                 "they keep growing");
  }
  return GCB_OK;
}

/* ---- burn-node and burn-falloff ----------------------------------------- */

/* The ranks of node `node` in the case (indices into ranks[]), how many,
 * and whether every one of them falls with onsets within the window. */
static bool node_falls(const struct burn_case *b, long long node, size_t *n) {
  double lo = INFINITY, hi = -INFINITY;
  bool all = true;
  *n = 0;
  for (size_t i = 0; i < b->nranks; i++) {
    if (b->ranks[i].node != node)
      continue;
    (*n)++;
    const struct gcb_burn_rank *r = &b->ranks[i];
    if (r->onset < 0) {
      all = false;
      continue;
    }
    lo = r->onset_s < lo ? r->onset_s : lo;
    hi = r->onset_s > hi ? r->onset_s : hi;
  }
  double span = b->nt * b->tl->interval_s;
  double window = NODE_INTERVALS * b->tl->interval_s;
  window = span * NODE_FRACTION > window ? span * NODE_FRACTION : window;
  return all && *n >= 2 && hi - lo <= window;
}

/* The most common cause among the node's ranks, and the rank (index)
 * that shows it with the median drop. */
static size_t node_voice(const struct burn_case *b, long long node) {
  size_t votes[GCB_BURN_CAUSE_UNKNOWN + 1] = {0}, pick = 0;
  for (size_t i = 0; i < b->nranks; i++)
    if (b->ranks[i].node == node)
      votes[b->ranks[i].cause]++;
  enum gcb_burn_cause top = GCB_BURN_CAUSE_UNKNOWN;
  for (int k = GCB_BURN_CAUSE_CPU_TIME; k <= GCB_BURN_CAUSE_UNKNOWN; k++)
    if (votes[k] > votes[top])
      top = (enum gcb_burn_cause)k;
  double best = INFINITY, mid = 0;
  size_t n = 0;
  for (size_t i = 0; i < b->nranks; i++)
    if (b->ranks[i].node == node && b->ranks[i].cause == top)
      mid += b->ranks[i].drop, n++;
  mid /= (double)(n ? n : 1);
  for (size_t i = 0; i < b->nranks; i++)
    if (b->ranks[i].node == node && b->ranks[i].cause == top &&
        fabs(b->ranks[i].drop - mid) < best) {
      best = fabs(b->ranks[i].drop - mid);
      pick = i;
    }
  return pick;
}

static enum gcb_status node_finding(struct burn_case *b, long long node,
                                    size_t n, bool report) {
  double drop = 0, onset = INFINITY;
  long long *ids = report ? malloc(n * sizeof *ids) : NULL;
  size_t k = 0;
  if (report && ids == NULL)
    return gcb_err_set(b->cx->err, GCB_ENOMEM, "analysis: out of memory");
  for (size_t i = 0; i < b->nranks; i++)
    if (b->ranks[i].node == node) {
      b->in_node[i] = true;
      drop += b->ranks[i].drop / (double)n;
      onset = b->ranks[i].onset_s < onset ? b->ranks[i].onset_s : onset;
      if (ids != NULL)
        ids[k++] = b->ranks[i].rank;
    }
  if (!report)
    return GCB_OK;
  size_t v = node_voice(b, node);
  const struct gcb_burn_rank *r = &b->ranks[v];
  struct gcb_finding *f = push_at(b, fall_severity(b, drop), v);
  if (f != NULL)
    gcb_view_ranges(ids, k, f->where.ranks, sizeof f->where.ranks);
  free(ids);
  if (f == NULL)
    return GCB_ENOMEM;
  f->where.rank = -1;
  f->where.gpu = -1;
  f->where.bus_id[0] = '\0';
  gcb_finding_figures(f, r->after, r->before, b->c->unit);
  f->cost = drop;
  char at[32], why[192];
  gcb_burn_fmt_duration(onset, at, sizeof at);
  cause_text(r, why, sizeof why);
  gcb_finding_explain(f,
                      "all %zu %s of node %s fall %.0f %% together after "
                      "%s: %s (%s); one cause on the node, not %zu",
                      n, b->gpu ? "GPUs" : "ranks", f->where.hostname,
                      drop * 100, at, gcb_burn_cause_name(r->cause), why, n);
  gcb_finding_suggest(f, "%s; %s",
                      r->cause == GCB_BURN_CAUSE_CPU_TIME
                          ? "every rank of the node lost CPU time at once: "
                            "other load on the node (another job, a daemon) "
                            "or the job's CPU limit, not the ranks"
                          : "every device of the node at once: the node's "
                            "power (supply, PDU, power limits) or cooling "
                            "(fans, inlet air), not the devices",
                      cause_advice(r->cause, b->gpu));
  return GCB_OK;
}

/* Marks the ranks whose node falls as a whole and, when report, says so
 * once per node. */
static enum gcb_status nodes(struct burn_case *b, bool report) {
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < b->nranks && st == GCB_OK; i++) {
    /* A node is judged at its first rank, and only when that rank falls
     * (every rank must): a healthy run of 16,384 ranks stays linear. */
    if (b->ranks[i].onset < 0 || b->ranks[i].node < 0)
      continue;
    bool first = true;
    for (size_t j = 0; j < i && first; j++)
      first = b->ranks[j].node != b->ranks[i].node;
    size_t n;
    if (first && node_falls(b, b->ranks[i].node, &n))
      st = node_finding(b, b->ranks[i].node, n, report);
  }
  return st;
}

static enum gcb_status falloff(const struct burn_case *b, size_t i) {
  const struct gcb_burn_rank *r = &b->ranks[i];
  size_t o = (size_t)r->onset;
  double peers = peers_at(b, i, o, b->nt);
  double below = peers > 0 ? 1 - r->after / peers : NAN;
  double cost = !isnan(below) && below > 0 ? below : r->drop;
  struct gcb_finding *f = push_at(b, fall_severity(b, r->drop), i);
  if (f == NULL)
    return GCB_ENOMEM;
  const char *unit = b->c->unit;
  gcb_finding_figures(f, r->after, r->before, unit);
  f->cost = cost;
  char w[96], at[32], why[192], fig[64], vs[64] = "";
  who(b, i, w, sizeof w);
  gcb_burn_fmt_duration(r->onset_s, at, sizeof at);
  cause_text(r, why, sizeof why);
  gcb_fmt_scaled_pair(r->before, r->after, unit, fig, sizeof fig);
  if (!isnan(below))
    snprintf(vs, sizeof vs, ", %.0f %% %s its peers at the same time",
             fabs(below) * 100, below >= 0 ? "below" : "above");
  char *v = strstr(fig, " vs ");
  if (v != NULL) /* "740 vs 607 TFLOP/s" reads before -> after here */
    memcpy(v, " -> ", 4);
  gcb_finding_explain(f,
                      "%s falls %.0f %% after %s: %s (%s against its own "
                      "first %s%s)",
                      w, r->drop * 100, at, why, fig, at, vs);
  gcb_finding_suggest(f, "%s", cause_advice(r->cause, b->gpu));
  return GCB_OK;
}

static enum gcb_status falloffs(struct burn_case *b) {
  enum gcb_status st = nodes(b, false);
  for (size_t i = 0; i < b->nranks && st == GCB_OK; i++)
    if (b->ranks[i].onset >= 0 && !b->in_node[i])
      st = falloff(b, i);
  return st;
}

/* ---- burn-sustained ----------------------------------------------------- */

static enum gcb_status sustained_finding(const struct burn_case *b, size_t i,
                                         double against, bool peers) {
  const struct gcb_burn_rank *r = &b->ranks[i];
  struct gcb_finding *f = push_at(b, GCB_SEV_WARN, i);
  if (f == NULL)
    return GCB_ENOMEM;
  const char *unit = b->c->unit;
  /* Against its peak: what it kept once it had reached it (a level that
   * rose and stayed is no failure to hold one). */
  double kept = peers ? r->sustained : r->since_held;
  gcb_finding_figures(f, kept, against, unit);
  f->cost = 1 - kept / against;
  char w[96], s[32], a[32];
  who(b, i, w, sizeof w);
  gcb_fmt_scaled(kept, unit, s, sizeof s);
  gcb_fmt_scaled(against, unit, a, sizeof a);
  if (peers)
    gcb_finding_explain(f,
                        "%s sustains %s, %.0f %% below the median of its "
                        "%zu peers (%s), from the start of the burn",
                        w, s, f->cost * 100, b->nranks, a);
  else
    gcb_finding_explain(f,
                        "%s sustains %s once at its peak, %.0f %% below "
                        "the peak it held (%s, 95th percentile of its "
                        "running median): it does not hold its clocks",
                        w, s, f->cost * 100, a);
  gcb_finding_suggest(f, "%s",
                      peers ? cause_advice(GCB_BURN_CAUSE_UNKNOWN, b->gpu)
                            : "look at the timeline plot: a rank that "
                              "throttles on and off (power or thermal "
                              "limits) or shares its cores in bursts");
  return GCB_OK;
}

static enum gcb_status sustained(const struct burn_case *b) {
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < b->nranks && st == GCB_OK; i++) {
    const struct gcb_burn_rank *r = &b->ranks[i];
    if (r->onset >= 0 || r->n < 8)
      continue; /* its fall says more */
    /* Below its own peak first: a rank that reaches its peers' figure
     * in some intervals and not in others throttles, it is not slow. */
    if (r->unheld)
      st = sustained_finding(b, i, r->held, false);
    else if (r->slow)
      st = sustained_finding(b, i, b->peers, true);
  }
  return st;
}

/* ---- the rule ------------------------------------------------------------ */

static enum gcb_status one_case(const struct gcb__rule_ctx *cx,
                                const struct gcb_model *m,
                                const struct gcb_burn_case *k) {
  struct burn_case b;
  enum gcb_status st = case_open(cx, m, k, &b);
  if (st == GCB_OK)
    switch (cx->kind->id) {
    case GCB_KIND_BURN_SILENT_ERROR:
      st = silent_errors(&b);
      break;
    case GCB_KIND_BURN_COUNTERS:
      st = counters(&b);
      break;
    case GCB_KIND_BURN_NODE:
      st = nodes(&b, true);
      break;
    case GCB_KIND_BURN_FALLOFF:
      st = falloffs(&b);
      break;
    case GCB_KIND_BURN_SUSTAINED:
      st = sustained(&b);
      break;
    default:
      break;
    }
  free(b.in_node);
  return st;
}

enum gcb_status gcb__rule_burn(const struct gcb__rule_ctx *cx) {
  struct gcb_burn_doc own;
  const struct gcb_burn_doc *bd =
      gcb_burn_doc_of(cx->doc, cx->t, &own, cx->err);
  enum gcb_status st = bd != NULL ? GCB_OK : GCB_ENOMEM;
  for (size_t i = 0; bd != NULL && i < bd->n && st == GCB_OK; i++)
    st = one_case(cx, cx->doc->model, &bd->cases[i]);
  gcb_burn_doc_free(&own);
  return st;
}
