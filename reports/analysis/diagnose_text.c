/*
 * What a root cause says: its worst evidence picked, sources that measured
 * the same quantity reconciled (two that disagree beyond any noise become
 * one statement with both figures; a link that reads downtrained at rest
 * is confirmed or cleared by its bandwidth under load), and one line with
 * the figure against its expectation, scaled to its size, the cost to a
 * synchronous job and one suggestion.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"
#include "reports/analysis/diagnose_int.h"
#include "reports/document/ranks.h"
#include "reports/document/topo_view.h"

static void say(struct gcb_root_cause *rc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(struct gcb_root_cause *rc, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  gcb_view_copy(rc->summary, sizeof rc->summary, tmp);
}

static void suggest(struct gcb_root_cause *rc, const char *text) {
  gcb_view_copy(rc->suggestion, sizeof rc->suggestion, text);
}

/* measured / expected folded to at most 1: lower is worse. */
static double closeness(const struct gcb_finding *f) {
  double r = f->measured / f->expected;
  if (!isfinite(r) || r < 0)
    return 1;
  return r > 1 ? 1 / r : r;
}

static bool is_check(const struct gcb_finding *f) {
  return strcmp(f->kind, "criterion") == 0;
}

/* Evidence that says something is off without saying against what the
 * component measures: checks, regressions, consequences. */
static bool is_secondary(const struct gcb_finding *f) {
  return is_check(f) || strcmp(f->kind, "imbalance") == 0;
}

/* A regression says the component got worse, not against what it should
 * reach: at equal severity, the finding that says so goes first. */
static bool is_regression(const struct gcb_finding *f) {
  return strcmp(f->kind, "regression") == 0;
}

/* The evidence the statement quotes: a rule's finding before an
 * acceptance check's (it says against what), then the worst severity,
 * then the figure furthest from its expectation. */
static bool quotes_better(const struct gcb_finding *f,
                          const struct gcb_finding *b) {
  if (is_secondary(f) != is_secondary(b))
    return !is_secondary(f);
  if (f->severity != b->severity)
    return f->severity > b->severity;
  if (is_regression(f) != is_regression(b))
    return !is_regression(f);
  return closeness(f) < closeness(b);
}

static size_t primary(const struct gcb__dx *x,
                      const struct gcb_root_cause *rc) {
  size_t best = rc->evidence[0];
  for (size_t k = 1; k < rc->nevidence; k++)
    if (quotes_better(&x->fs->items[rc->evidence[k]], &x->fs->items[best]))
      best = rc->evidence[k];
  return best;
}

/* Evidence of family fam (any with fam GCB_FAM_COUNT) of kind `kind`. */
static size_t count_of(const struct gcb__dx *x, const struct gcb_root_cause *rc,
                       enum gcb_family fam, const char *kind) {
  size_t n = 0;
  for (size_t k = 0; k < rc->nevidence; k++) {
    size_t i = rc->evidence[k];
    n += (fam == GCB_FAM_COUNT || x->fam_of[i] == fam) &&
         (kind == NULL || strcmp(x->fs->items[i].kind, kind) == 0);
  }
  return n;
}

/* The case's label without its bench ("fp8 8192x8192x8192"). */
static const char *label_of(const struct gcb_finding *f) {
  const char *colon = strstr(f->where.subject, ": ");
  return colon != NULL ? colon + 2 : f->where.subject;
}

/* Text after a leading "rank N ", "rank N: " or "GPUN: " of an
 * explanation: the component's name says it already. */
static const char *after_rank(const char *s) {
  const char *p = s;
  if (strncmp(p, "rank ", 5) == 0)
    p += 5;
  else if (strncmp(p, "GPU", 3) == 0)
    p += 3;
  else
    return s;
  if (*p < '0' || *p > '9')
    return s;
  while (*p >= '0' && *p <= '9')
    p++;
  if (*p == ':')
    p++;
  else if (strncmp(s, "GPU", 3) == 0)
    return s; /* "GPU2 -> GPU6 ...": the subject itself */
  return *p == ' ' ? p + 1 : p;
}

/* ---- host links: sources and load -----------------------------------------
 */

struct load {
  double value[8];
  int doc[8];
  size_t n;
  double expected;
};

/* Every source's figure for the copy in direction dir over host link
 * (machine m, bus), and what the link should carry. */
static void under_load(const struct gcb__dx *x, long long m, const char *bus,
                       const char *dir, struct load *out) {
  memset(out, 0, sizeof *out);
  out->expected = NAN;
  for (size_t d = 0; d < x->ndocs; d++) {
    const json_t *root = x->docs[d].root;
    const json_t *cases = json_object_get(root, "cases"), *c;
    size_t i;
    json_array_foreach(cases, i, c) {
      const char *cd = gcb__pcie_direction(cases, c);
      struct gcb_ranks pr;
      if (cd == NULL || strcmp(cd, dir) != 0)
        continue;
      gcb_ranks_of(c, &pr);
      for (size_t k = 0; k < pr.n && out->n < 8; k++) {
        long long r = gcb_ranks_int(&pr, GCB_RC_RANK, k, (long long)k);
        struct gcb_place p;
        char b[32];
        /* the rank's node first, the rest of its place only on machine m:
         * this runs over every rank of the copy cases */
        long long node = gcb_view_int(gcb_view_rank(root, r), "node", -1);
        if (gcb__dx_machine(x, (int)d, node) != m)
          continue;
        gcb_view_place(root, r, &p);
        if (!gcb_busid_canon(p.bus_id, b, sizeof b) || strcmp(b, bus) != 0)
          continue;
        const json_t *topo;
        long long g = gcb_topo_view_rank_gpu(root, r, &topo);
        double e = gcb_topo_view_host_gbps(gcb_topo_view_gpu(topo, g));
        if (isnan(out->expected))
          out->expected = e;
        out->value[out->n] = gcb_ranks_num(&pr, GCB_RC_FIG_MEDIAN, k);
        out->doc[out->n++] = (int)d;
      }
    }
  }
}

static const char *source(const struct gcb__dx *x, int doc) {
  const char *tool =
      gcb_view_str(gcb_view_obj(x->docs[doc].root, "tool"), "name");
  return tool[0] ? tool : x->docs[doc].name;
}

static bool passes(const struct gcb__dx *x, double v, double expected) {
  return !isnan(expected) && v >= expected * x->t->link_pct / 100;
}

/* A low copy from one source and a good one from another: one statement
 * with both figures. */
static bool disagree(const struct gcb__dx *x, struct gcb_root_cause *rc,
                     const struct gcb_finding *low, enum gcb_family fam) {
  const char *dir = fam == GCB_FAM_D2H ? "d2h" : "h2d";
  struct load ld;
  under_load(x, rc->comp.node, rc->comp.bus_id, dir, &ld);
  for (size_t k = 0; k < ld.n; k++) {
    if (ld.doc[k] == low->where.doc || !passes(x, ld.value[k], ld.expected))
      continue;
    char a[32], b[32];
    gcb_fmt_scaled(low->measured, "GB/s", a, sizeof a);
    gcb_fmt_scaled(ld.value[k], "GB/s", b, sizeof b);
    say(rc, "%s %s (%s) vs %s (%s): sources disagree",
        fam == GCB_FAM_D2H ? "D2H" : "H2D", a, source(x, low->where.doc), b,
        source(x, ld.doc[k]));
    suggest(rc, "rerun both tools on this GPU; if the low figure repeats, "
                "check the slot and riser (lspci -vv: LnkSta)");
    return true;
  }
  return false;
}

/* A link that reads slow at rest, judged by its copies under load. */
static void at_rest(const struct gcb__dx *x, struct gcb_root_cause *rc,
                    const struct gcb_finding *f) {
  struct load h, d;
  under_load(x, rc->comp.node, rc->comp.bus_id, "h2d", &h);
  under_load(x, rc->comp.node, rc->comp.bus_id, "d2h", &d);
  double worst = INFINITY, e = !isnan(h.expected) ? h.expected : d.expected;
  for (size_t k = 0; k < h.n; k++)
    worst = h.value[k] < worst ? h.value[k] : worst;
  for (size_t k = 0; k < d.n; k++)
    worst = d.value[k] < worst ? d.value[k] : worst;
  if (h.n + d.n == 0 || isnan(e)) {
    say(rc, "%s (read at rest; no copy measured under load)", f->explanation);
    return;
  }
  char w[32], es[32];
  gcb_fmt_scaled(worst, "GB/s", w, sizeof w);
  gcb_fmt_scaled(e, "GB/s", es, sizeof es);
  if (passes(x, worst, e)) {
    rc->cleared = true;
    rc->cost = NAN;
    rc->measured = worst;
    rc->expected = e;
    say(rc,
        "%s at rest; %s under load (%.0f %% of %s): idle downtraining, not "
        "a fault",
        after_rank(f->explanation), w, worst / e * 100, es);
    suggest(rc, "none needed: the link trains up under load");
  } else {
    say(rc, "%s, confirmed under load: %s, %.0f %% of %s",
        after_rank(f->explanation), w, worst / e * 100, es);
  }
}

/* ---- statements ------------------------------------------------------------
 */

static void slow(const struct gcb__dx *x, struct gcb_root_cause *rc,
                 const struct gcb_finding *f, enum gcb_family fam,
                 const char *against) {
  char m[64], e[1];
  const json_t *c = gcb__dx_case(x, f);
  size_t k = count_of(x, rc, fam, f->kind), all = 0;
  const json_t *cs;
  size_t i;
  json_array_foreach(json_object_get(x->docs[f->where.doc].root, "cases"), i,
                     cs) {
    all += strcmp(gcb_view_str(cs, "bench"), gcb_view_str(c, "bench")) == 0;
  }
  gcb_fmt_scaled_pair(f->measured, f->expected, f->unit, m, sizeof m);
  (void)e;
  say(rc, "%s %.0f %% below %s in %zu of %zu case(s) (worst %s: %s)",
      gcb_family_name(fam), (1 - f->measured / f->expected) * 100, against, k,
      all, label_of(f), m);
}

static void p2p(struct gcb_root_cause *rc, const struct gcb_finding *f,
                const json_t *c) {
  const char *cls = gcb_view_param_str(c, "path");
  char m[32], e[32];
  gcb_fmt_scaled(f->measured, f->unit, m, sizeof m);
  gcb_fmt_scaled(f->expected, f->unit, e, sizeof e);
  say(rc, "%s %s, %.0f %% of what its %s path carries (%s)",
      strncmp(cls, "NV", 2) == 0 ? "NVLink" : "P2P", m,
      f->measured / f->expected * 100, cls[0] ? cls : "unknown", e);
}

static void late(struct gcb_root_cause *rc, const struct gcb_finding *f) {
  char m[32], e[32];
  const char *times = strstr(f->explanation, "late in ");
  gcb_fmt_scaled(f->measured, f->unit, m, sizeof m);
  gcb_fmt_scaled(f->expected, f->unit, e, sizeof e);
  say(rc, "%s late on average at %s (the median rank: %s)%s%s", m, label_of(f),
      e, times ? "; " : "", times ? times : "");
}

static void statement(const struct gcb__dx *x, struct gcb_root_cause *rc,
                      const struct gcb_finding *f, enum gcb_family fam) {
  const json_t *c = gcb__dx_case(x, f);
  const char *k = f->kind;
  if (rc->comp.kind == GCB_COMP_NODE && strcmp(k, "slow-rank") == 0)
    slow(x, rc, f, fam, "the other nodes' GPUs");
  else if (strcmp(k, "slow-rank") == 0)
    slow(x, rc, f, fam, "its peers");
  else if (strcmp(k, "validation") == 0)
    say(rc, "wrong results in %s: %s", f->where.subject, f->explanation);
  else if (strcmp(k, "link-bandwidth") == 0 && rc->comp.bus_id[0] &&
           disagree(x, rc, f, fam))
    return;
  else if (strcmp(k, "degraded-link") == 0 && rc->comp.bus_id[0])
    at_rest(x, rc, f);
  else if (strcmp(k, "p2p-bandwidth") == 0 && c != NULL)
    p2p(rc, f, c);
  else if (strcmp(k, "late-arrival") == 0)
    late(rc, f);
  else if (is_check(f) && f->case_json != NULL)
    say(rc, "%s (%s)", f->explanation, f->where.subject);
  else
    say(rc, "%s", after_rank(f->explanation));
}

/* "; also device memory (2), 3 acceptance check(s) missed". */
static void also(const struct gcb__dx *x, struct gcb_root_cause *rc,
                 enum gcb_family main) {
  char buf[200] = "";
  size_t used = 0;
  for (int fam = 0; fam < GCB_FAM_COUNT; fam++) {
    size_t n = 0;
    for (size_t k = 0; k < rc->nevidence; k++) {
      const struct gcb_finding *f = &x->fs->items[rc->evidence[k]];
      n += (int)x->fam_of[rc->evidence[k]] == fam && !is_secondary(f);
    }
    if (fam == (int)main || fam == GCB_FAM_RUN || n == 0 || used >= sizeof buf)
      continue;
    used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s (%zu)",
                             used ? ", " : "; also ", gcb_family_name(fam), n);
  }
  static const struct {
    const char *kind, *one, *many;
  } tails[] = {
      {"regression", "regression against the baseline",
       "regressions against the baseline"},
      {"not-comparable", "difference from the baseline's run",
       "differences from the baseline's run"},
      {"missing-case", "case missing from one of the runs",
       "cases missing from one of the runs"},
      {"criterion", "acceptance check miss", "acceptance check misses"},
  };
  for (size_t k = 0; k < sizeof tails / sizeof *tails; k++) {
    size_t n = count_of(x, rc, GCB_FAM_COUNT, tails[k].kind);
    bool more = strcmp(x->fs->items[primary(x, rc)].kind, tails[k].kind) == 0;
    n -= more; /* the statement is one of them */
    if (n > 0 && used < sizeof buf)
      used += (size_t)snprintf(buf + used, sizeof buf - used, "; %zu %s%s", n,
                               more ? "more " : "",
                               n == 1 ? tails[k].one : tails[k].many);
  }
  char tmp[sizeof rc->summary + sizeof buf];
  snprintf(tmp, sizeof tmp, "%s%s", rc->summary, buf);
  gcb_view_copy(rc->summary, sizeof rc->summary, tmp);
}

void gcb__dx_state(const struct gcb__dx *x, struct gcb_root_cause *rc) {
  size_t p = primary(x, rc);
  const struct gcb_finding *f = &x->fs->items[p];
  rc->family = x->fam_of[p];
  rc->measured = f->measured;
  rc->expected = f->expected;
  gcb_view_copy(rc->unit, sizeof rc->unit, f->unit);
  for (size_t k = 0; k < rc->nevidence; k++) {
    double c = x->fs->items[rc->evidence[k]].cost;
    if (!isnan(c) && (isnan(rc->cost) || c > rc->cost))
      rc->cost = c;
  }
  suggest(rc, f->suggestion);
  statement(x, rc, f, rc->family);
  if (!rc->cleared)
    also(x, rc, rc->family);
}
