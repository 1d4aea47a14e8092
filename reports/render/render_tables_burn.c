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
    if (f->bench_case == NULL || f->bench_case->source != c ||
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
static void counters_text(const struct gcb_burn_timeline *tl, size_t r,
                          char *buf, size_t size) {
  static const struct {
    enum gcb_burn_series s;
    const char *name;
  } rows[] = {{GCB_BURN_ECC_DBE, "DBE"},
              {GCB_BURN_XID, "Xid"},
              {GCB_BURN_ECC_SBE, "SBE"},
              {GCB_BURN_PCIE_REPLAY, "replay"}};
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

static double wrong_of(const struct gcb_burn_timeline *tl, size_t r) {
  double w = 0;
  for (long i = 0; i < tl->n; i++) {
    double v = gcb_burn_value(tl, GCB_BURN_WRONG, (int)r, i);
    w += v > 0 ? v : 0;
  }
  return w;
}

static void rank_row(struct gcb__tb *b, struct gcb_rtable *t, size_t d,
                     const json_t *c, const struct gcb_burn_timeline *tl,
                     size_t i, const struct gcb_burn_rank *r, long long rank,
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
                       const struct gcb_burn_case *k) {
  static const char *const h[] = {
      "run",      "rank",  "host", "GPU",   "sustained", "peak",     "of peak",
      "vs peers", "onset", "drop", "cause", "wrong",     "counters", NULL};
  const struct gcb_burn_timeline *tl = &k->tl;
  const struct gcb_burn_rank *r = k->ranks;
  size_t n = (size_t)tl->nranks;
  double *sus = calloc(n + 1, sizeof *sus);
  if (sus == NULL) {
    b->oom = true;
    return;
  }
  for (size_t i = 0; i < n; i++)
    sus[i] = r[i].sustained;
  double peers = gcb_stats_median(sus, n);
  char id[48], title[288], label[160], span[32];
  gcb_view_case_title(k->c, label, sizeof label);
  const char *what = strncmp(label, "burn: ", 6) == 0 ? label + 6 : label;
  gcb_burn_fmt_duration(gcb_burn_end_s(tl, tl->n - 1), span, sizeof span);
  snprintf(id, sizeof id, "burn-%zu-%zu", d, index);
  snprintf(title, sizeof title, "Burn-in %s, %ld intervals of %g s (%s)", what,
           tl->n, tl->interval_s, span);
  struct gcb_rtable *t = gcb__table_new_named(
      b, id, title,
      "per rank: sustained is the median interval, peak the best one; "
      "onset, drop and cause of a fall that stays down, wrong products "
      "and the error counters that grew (docs/REPORTS.md, Burn-in)",
      h + 1 - gcb__run_col(b));
  struct gcb_ranks pr;
  gcb_ranks_of(k->c, &pr);
  for (size_t i = 0; t != NULL && i < n; i++)
    rank_row(b, t, d, k->c, tl, i, &r[i],
             gcb_ranks_int(&pr, GCB_RC_RANK, i, (long long)i), peers);
  free(sus);
}

void gcb__burn_tables(struct gcb__tb *b) {
  struct gcb_thresholds own_t;
  const struct gcb_thresholds *th = b->rep->thresholds;
  if (th == NULL) {
    gcb_thresholds_default(&own_t);
    th = &own_t;
  }
  for (size_t d = 0; d < b->rep->ndocs && !b->oom; d++) {
    struct gcb_burn_doc own;
    struct gcb_err err = {0};
    const struct gcb_burn_doc *bd =
        gcb_burn_doc_of(&b->rep->docs[d], th, &own, &err);
    b->oom = bd == NULL;
    for (size_t i = 0; bd != NULL && i < bd->n && !b->oom; i++)
      burn_table(b, d, bd->cases[i].index, &bd->cases[i]);
    gcb_burn_doc_free(&own);
  }
}
