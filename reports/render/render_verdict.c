/*
 * The verdict's tables, which report.md and index.html open with: the root
 * causes (each component once, the checks a source cannot evaluate as
 * n/a), the component matrix (a row per GPU, a cell per check family,
 * each cell's state and figure), and the nodes and links (a row per node,
 * a row per GPU pair, NIC or host link with a root cause). Drawn from the
 * diagnosis and the matrix model alone, so the terminal, the files and
 * any later picture agree.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reports/render/render_tables.h"

/* "0, 5, 13": the indices of the findings a root cause explains. */
static void evidence_text(const struct gcb_root_cause *rc, char *buf,
                          size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < rc->nevidence && used + 8 < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%zu", i ? ", " : "",
                             rc->evidence[i]);
  if (used + 8 >= size && size > 4)
    snprintf(buf + size - 4, 4, "...");
}

static void causes_table(struct gcb__tb *b, const struct gcb_diagnosis *d) {
  static const char *const h[] = {
      "state",    "component", "host",       "root cause",          "measured",
      "expected", "cost",      "suggestion", "evidence (findings)", NULL};
  struct gcb_rtable *t = gcb__table_new(
      b, "root-causes", "Root causes",
      "each component once, with the worst figure against its expectation, "
      "its cost to a synchronous job and one fix; evidence: indices into "
      "the per-case findings below (and findings.json)",
      h);
  for (size_t i = 0; t != NULL && i < d->n; i++) {
    const struct gcb_root_cause *rc = &d->items[i];
    char **r = gcb__table_row(b, t, gcb_root_cause_state(rc));
    char m[48], e[48], ev[160];
    gcb_fmt_scaled(rc->measured, rc->unit, m, sizeof m);
    gcb_fmt_scaled(rc->expected, rc->unit, e, sizeof e);
    evidence_text(rc, ev, sizeof ev);
    gcb__cell(b, r, 0, "%s", gcb_root_cause_state(rc));
    gcb__cell(b, r, 1, "%s", rc->comp.name);
    gcb__cell(b, r, 2, "%s", rc->comp.hostname[0] ? rc->comp.hostname : "-");
    gcb__cell(b, r, 3, "%s", rc->summary);
    gcb__cell(b, r, 4, "%s", m);
    gcb__cell(b, r, 5, "%s", e);
    gcb__cell_pct(b, r, 6, rc->cleared ? NAN : rc->cost, false);
    gcb__cell(b, r, 7, "%s", rc->suggestion);
    gcb__cell(b, r, 8, "%s", ev);
  }
  for (size_t i = 0; t != NULL && i < d->nna; i++) {
    const struct gcb_finding *f = &b->rep->findings->items[d->na[i]];
    char **r = gcb__table_row(b, t, "info");
    gcb__cell(b, r, 0, "n/a");
    gcb__cell(b, r, 1, "%s", f->where.subject);
    gcb__cell(b, r, 3, "%s", f->explanation);
    gcb__cell(b, r, 7, "%s", f->suggestion);
    gcb__cell(b, r, 8, "%zu", d->na[i]);
  }
}

static void matrix_table(struct gcb__tb *b, const struct gcb_diagnosis *d,
                         const struct gcb_matrix *m) {
  const char *h[4 + GCB_MATRIX_COLS] = {"host", "GPU", "bus id"};
  for (int f = 0; f < GCB_MATRIX_COLS; f++)
    h[3 + f] = gcb_family_name((enum gcb_family)f);
  h[3 + GCB_MATRIX_COLS] = NULL;
  struct gcb_rtable *t = gcb__table_new(
      b, "matrix", "Component matrix",
      "per node, one row per GPU and a cell per check family: pass, warn, "
      "fail (a root cause above), ok (cleared) or - (not measured), with the "
      "GPU's figure in the largest case of the family",
      h);
  if (t != NULL)
    t->state_cells = true;
  for (size_t i = 0; t != NULL && i < m->n; i++) {
    const struct gcb_matrix_row *row = &m->rows[i];
    char **r = gcb__table_row(b, t, NULL);
    gcb__cell(b, r, 0, "%s", d->machines[row->node].hostname);
    gcb__cell(b, r, 1, "%lld", row->gpu);
    gcb__cell(b, r, 2, "%s", row->bus_id);
    for (int f = 0; f < GCB_MATRIX_COLS; f++) {
      const struct gcb_matrix_cell *c = &row->cell[f];
      gcb__cell(b, r, 3 + (size_t)f, "%s%s%s", gcb_cell_name(c->state),
                c->figure[0] ? " " : "", c->figure);
    }
  }
}

/* The worst state among the root causes on machine m, and their count. */
static const char *node_state(const struct gcb_diagnosis *d, long long m,
                              size_t *n) {
  const char *worst = "ok";
  int level = 0;
  *n = 0;
  for (size_t i = 0; i < d->n; i++) {
    const struct gcb_root_cause *rc = &d->items[i];
    if (rc->comp.node != m || rc->cleared)
      continue;
    (*n)++;
    int l = rc->severity == GCB_SEV_FAIL ? 3 : rc->severity == GCB_SEV_WARN;
    if (l > level) {
      level = l;
      worst = gcb_root_cause_state(rc);
    }
  }
  return worst;
}

static void components_table(struct gcb__tb *b, const struct gcb_diagnosis *d) {
  static const char *const h[] = {"state", "component", "host", "what", NULL};
  struct gcb_rtable *t = gcb__table_new(
      b, "components", "Nodes and links",
      "a row per node (the worst of its root causes), then a row per link "
      "with a root cause: GPU pairs, NICs, host links",
      h);
  for (size_t m = 0; t != NULL && m < d->nmachines; m++) {
    size_t n;
    const char *st = node_state(d, (long long)m, &n);
    char **r = gcb__table_row(b, t, st);
    gcb__cell(b, r, 0, "%s", strcmp(st, "ok") == 0 ? "pass" : st);
    gcb__cell(b, r, 1, "node %zu", m);
    gcb__cell(b, r, 2, "%s", d->machines[m].hostname);
    gcb__cell(b, r, 3, "%zu GPU(s), %zu rank(s); %zu root cause(s)",
              d->machines[m].ngpus, d->machines[m].nranks, n);
  }
  for (size_t i = 0; t != NULL && i < d->n; i++) {
    const struct gcb_root_cause *rc = &d->items[i];
    if (rc->comp.kind != GCB_COMP_LINK && rc->comp.kind != GCB_COMP_NODE)
      continue;
    char **r = gcb__table_row(b, t, gcb_root_cause_state(rc));
    gcb__cell(b, r, 0, "%s", gcb_root_cause_state(rc));
    gcb__cell(b, r, 1, "%s", rc->comp.name);
    gcb__cell(b, r, 2, "%s", rc->comp.hostname[0] ? rc->comp.hostname : "-");
    gcb__cell(b, r, 3, "%s", rc->summary);
  }
}

void gcb__verdict_tables(struct gcb__tb *b) {
  struct gcb_diagnosis own = {0};
  const struct gcb_diagnosis *d;
  struct gcb_matrix own_m = {0};
  const struct gcb_matrix *m;
  struct gcb_err err = {0};
  if (gcb_report_diagnosis_use(b->rep, &own, &d, &err) != GCB_OK ||
      gcb_matrix_use(b->rep, d, &own_m, &m, &err) != GCB_OK) {
    b->oom = true;
  } else {
    causes_table(b, d);
    matrix_table(b, d, m);
    components_table(b, d);
  }
  gcb_matrix_free(&own_m);
  gcb_diagnosis_free(&own);
}
