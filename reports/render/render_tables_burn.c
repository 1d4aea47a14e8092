/*
 * Burn-in in the report: one table per `gcbench burn` case, a row per
 * rank with its sustained figure (median interval) against its peak
 * (best interval) and against its peers, the onset, drop and cause of a
 * fall that stays down, its wrong products and the error counters that
 * grew. Rows are classed by the rank's burn findings (a burn-node
 * finding classes every rank of its node), so the table and the findings
 * agree. Figures come from the timeline (reports/analysis/burn.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/burn.h"
#include "reports/document/ranks.h"
#include "reports/document/stats.h"
#include "reports/render/render_tables.h"

/* The worst burn finding about rank `rank` (on node `node`) of case c:
 * "fail", "warn" or NULL. */
static const char *rank_class(const struct gcb__tb *b, const json_t *c,
                              long long rank, long long node) {
  int worst = -1;
  const struct gcb_findings *fs = b->rep->findings;
  for (size_t i = 0; fs != NULL && i < fs->n; i++) {
    const struct gcb_finding *f = &fs->items[i];
    if (f->case_json != c ||
        f->kind->benches != GCB_BENCH_BIT(GCB_BENCH_BURN) ||
        f->severity == GCB_SEV_INFO)
      continue;
    bool mine = f->kind->id == GCB_KIND_BURN_NODE ? f->where.node == node
                                                  : f->where.rank == rank;
    if (mine && (int)f->severity > worst)
      worst = (int)f->severity;
  }
  return worst < 0 ? NULL : gcb_severity_name((enum gcb_severity)worst);
}

/* "DBE +2, SBE +5" for the counters of rank r that grew; "-". */
static void counters_text(const struct gcb_burnview *tl, size_t r, char *buf,
                          size_t size) {
  static const struct {
    enum gcb_burnview_series s;
    const char *name;
  } rows[] = {{GCB_BV_ECC_DBE, "DBE"},
              {GCB_BV_XID, "Xid"},
              {GCB_BV_ECC_SBE, "SBE"},
              {GCB_BV_PCIE_REPLAY, "replay"}};
  size_t used = 0;
  buf[0] = '\0';
  for (size_t k = 0; k < sizeof rows / sizeof *rows && used < size; k++) {
    double when, d = gcb_burn_growth(tl, rows[k].s, r, &when);
    if (d > 0)
      used += (size_t)snprintf(buf + used, size - used, "%s%s +%.0f",
                               used ? ", " : "", rows[k].name, d);
  }
  if (used == 0)
    snprintf(buf, size, "-");
}

static double wrong_of(const struct gcb_burnview *tl, size_t r) {
  double w = 0;
  for (size_t i = 0; i < tl->nt; i++) {
    double v = gcb_burnview_at(tl, GCB_BV_WRONG, r, i);
    w += v > 0 ? v : 0;
  }
  return w;
}

static void rank_row(struct gcb__tb *b, struct gcb_rtable *t, size_t d,
                     const json_t *c, const struct gcb_burnview *tl, size_t i,
                     const struct gcb_burn_rank *r, long long rank,
                     double peers) {
  const json_t *root = b->rep->docs[d].root;
  struct gcb_place p;
  gcb_view_place(root, rank, &p);
  const char *unit = gcb_view_str(c, "unit");
  size_t o = gcb__run_col(b);
  char **row = gcb__table_row(b, t, rank_class(b, c, rank, p.node));
  gcb__cell_run(b, row, d);
  gcb__cell(b, row, o + 0, "%lld", rank);
  gcb__cell(b, row, o + 1, "%s", p.hostname[0] ? p.hostname : "-");
  gcb__cell_id(b, row, o + 2, p.gpu);
  gcb__cell_figure(b, row, o + 3, r->sustained, NAN, unit);
  gcb__cell_figure(b, row, o + 4, r->peak, NAN, unit);
  gcb__cell_pct(b, row, o + 5, r->sustained / r->peak, false);
  gcb__cell_pct(b, row, o + 6, r->sustained / peers - 1, true);
  char text[64];
  if (r->onset >= 0) {
    gcb_burn_fmt_duration(r->onset_s, text, sizeof text);
    gcb__cell(b, row, o + 7, "%s", text);
    gcb__cell_pct(b, row, o + 8, -r->drop, true);
    gcb__cell(b, row, o + 9, "%s", gcb_burn_cause_name(r->cause));
  } else {
    gcb__cell(b, row, o + 7, "-");
    gcb__cell(b, row, o + 8, "-");
    gcb__cell(b, row, o + 9, "-");
  }
  gcb__cell(b, row, o + 10, "%.0f", wrong_of(tl, i));
  counters_text(tl, i, text, sizeof text);
  gcb__cell(b, row, o + 11, "%s", text);
}

static void burn_table(struct gcb__tb *b, size_t d, size_t index,
                       const json_t *c) {
  static const char *const h[] = {
      "run",      "rank",  "host", "GPU",   "sustained", "peak",     "of peak",
      "vs peers", "onset", "drop", "cause", "wrong",     "counters", NULL};
  struct gcb_burnview tl;
  struct gcb_err err = {0};
  if (gcb_burnview_read(c, &tl, &err) != GCB_OK) {
    b->oom = true;
    return;
  }
  struct gcb_thresholds own;
  const struct gcb_thresholds *th = b->rep->thresholds;
  if (th == NULL) {
    gcb_thresholds_default(&own);
    th = &own;
  }
  size_t n = tl.nranks;
  struct gcb_burn_rank *r = calloc(n + 1, sizeof *r);
  double *sus = calloc(n + 1, sizeof *sus);
  if (r == NULL || sus == NULL)
    b->oom = true;
  for (size_t i = 0; !b->oom && i < n; i++) {
    if (!gcb_burn_rank_judge(&tl, i, th->slow_rank_pct / 100, th->outlier_mads,
                             &r[i]))
      b->oom = true;
    sus[i] = r[i].sustained;
  }
  if (!b->oom && n > 0) {
    double peers = gcb_stats_median(sus, n);
    char id[48], title[288], label[160], span[32];
    gcb_view_case_title(c, label, sizeof label);
    const char *what = strncmp(label, "burn: ", 6) == 0 ? label + 6 : label;
    gcb_burn_fmt_duration(tl.t_s[tl.nt - 1], span, sizeof span);
    snprintf(id, sizeof id, "burn-%zu-%zu", d, index);
    snprintf(title, sizeof title, "Burn-in %s, %zu intervals of %g s (%s)",
             what, tl.nt, tl.interval_s, span);
    struct gcb_rtable *t = gcb__table_new_named(
        b, id, title,
        "per rank: sustained is the median interval, peak the best one; "
        "onset, drop and cause of a fall that stays down, wrong products "
        "and the error counters that grew (docs/REPORTS.md, Burn-in)",
        h + 1 - gcb__run_col(b));
    struct gcb_ranks pr;
    gcb_ranks_of(c, &pr);
    for (size_t i = 0; t != NULL && i < n; i++)
      rank_row(b, t, d, c, &tl, i, &r[i],
               gcb_ranks_int(&pr, GCB_RC_RANK, i, (long long)i), peers);
  }
  free(r);
  free(sus);
  gcb_burnview_free(&tl);
}

void gcb__burn_tables(struct gcb__tb *b) {
  for (size_t d = 0; d < b->rep->ndocs && !b->oom; d++) {
    const json_t *c;
    size_t i;
    json_array_foreach(json_object_get(b->rep->docs[d].root, "cases"), i, c) {
      if (gcb_burn_is_case(c))
        burn_table(b, d, i, c);
    }
  }
}
