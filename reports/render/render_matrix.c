/*
 * The component matrix: per machine of the diagnosis, one row per GPU (by
 * bus id) with a cell per check family -- GEMM, device memory, H2D, D2H,
 * GPU peers, health, placement, collectives. A cell's state comes from the
 * root causes that touch it (gcb_diagnosis_state_at); its figure is the
 * worst root cause's measurement, else what the GPU reached in the largest
 * case of the family (the first document that has one), so a passing
 * cell still says how well it passed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/analyze_rules.h"
#include "reports/document/p2p_view.h"
#include "reports/document/ranks.h"
#include "reports/document/topo_view.h"
#include "reports/render/render.h"

const char *gcb_cell_name(enum gcb_cell c) {
  static const char *const names[] = {"-",    "pass", "ok",
                                      "info", "warn", "fail"};
  return c <= GCB_CELL_FAIL ? names[c] : "?";
}

/* Whether rank r of document doc uses the row's GPU. */
static bool on_row(const struct gcb_report *rep, const struct gcb_diagnosis *d,
                   int doc, long long r, const struct gcb_matrix_row *row) {
  struct gcb_place p;
  char b[32];
  gcb_view_place(rep->docs[doc].root, r, &p);
  return gcb_diagnosis_machine(d, rep->docs, doc, p.node) == row->node &&
         gcb_busid_canon(p.bus_id, b, sizeof b) && strcmp(b, row->bus_id) == 0;
}

/* The case of family f to quote: the most work per operation; pcie only
 * where the link rule judges it. */
static const json_t *headline(const json_t *cases, enum gcb_family f) {
  const json_t *best = NULL, *c;
  size_t i;
  json_array_foreach(cases, i, c) {
    if (gcb_case_family(c) != f)
      continue;
    if ((f == GCB_FAM_H2D || f == GCB_FAM_D2H) &&
        gcb__pcie_direction(cases, c) == NULL)
      continue;
    if (best == NULL ||
        gcb_view_num(c, "work_per_op") > gcb_view_num(best, "work_per_op"))
      best = c;
  }
  return best;
}

/* A rank's figure (and its time) in a case; false when not in it. */
static bool rank_entry(const json_t *c, long long rank, double *fig,
                       double *time_s) {
  struct gcb_ranks pr;
  gcb_ranks_of(c, &pr);
  long long i = gcb_ranks_find(&pr, rank);
  if (i < 0)
    return false;
  *fig = gcb_ranks_num(&pr, GCB_RC_FIG_MEDIAN, (size_t)i);
  double t = gcb_ranks_num(&pr, GCB_RC_FIGURE_TIME, (size_t)i);
  if (isnan(t))
    t = gcb_ranks_num(&pr, GCB_RC_TIME_MEDIAN, (size_t)i);
  *time_s = isnan(t) ? 0 : t * (double)gcb_view_int(c, "iterations", 1);
  return true;
}

/* Figures for the per-device families from the first document where the
 * row's GPU has them. */
static void device_figures(const struct gcb_report *rep,
                           const struct gcb_diagnosis *d,
                           struct gcb_matrix_row *row) {
  static const enum gcb_family fams[] = {
      GCB_FAM_GEMM, GCB_FAM_DEVMEM, GCB_FAM_H2D, GCB_FAM_D2H, GCB_FAM_COLL};
  for (size_t k = 0; k < sizeof fams / sizeof *fams; k++) {
    struct gcb_matrix_cell *cell = &row->cell[fams[k]];
    for (size_t doc = 0; doc < rep->ndocs && cell->figure[0] == '\0'; doc++) {
      const json_t *root = rep->docs[doc].root, *r;
      const json_t *c = headline(json_object_get(root, "cases"), fams[k]);
      size_t i;
      json_array_foreach(json_object_get(root, "ranks"), i, r) {
        long long rank = gcb_view_int(r, "rank", (long long)i);
        double fig, t;
        if (c == NULL || !on_row(rep, d, (int)doc, rank, row) ||
            !rank_entry(c, rank, &fig, &t))
          continue;
        cell->time_s += t;
        gcb_fmt_scaled(fig, gcb_view_str(c, "unit"), cell->figure,
                       sizeof cell->figure);
        if (fams[k] == GCB_FAM_GEMM) {
          char with[64];
          snprintf(with, sizeof with, "%s (%s)", cell->figure,
                   gcb_view_param_str(c, "dtype"));
          gcb_view_copy(cell->figure, sizeof cell->figure, with);
        }
        break;
      }
    }
  }
}

/* The slowest pair the GPU sends to, over the p2p bandwidth cases. */
static void peer_figure(const struct gcb_report *rep,
                        const struct gcb_diagnosis *d,
                        struct gcb_matrix_row *row) {
  double low = INFINITY;
  for (size_t doc = 0; doc < rep->ndocs && !isfinite(low); doc++) {
    const json_t *root = rep->docs[doc].root, *c;
    size_t i;
    json_array_foreach(json_object_get(root, "cases"), i, c) {
      struct gcb__p2p_iter it;
      struct gcb__p2p m;
      char b[32], canon[32];
      if (strcmp(gcb_view_str(c, "unit"), "GB/s") != 0 ||
          strcmp(gcb_view_param_str(c, "direction"), "latency") == 0 ||
          !gcb__p2p_begin(&it, root, c, NULL, 0))
        continue;
      while (gcb__p2p_next(&it, &m)) {
        gcb__p2p_busid(&m, c, false, b, sizeof b);
        if (gcb_diagnosis_machine(d, rep->docs, (int)doc, m.node) ==
                row->node &&
            gcb_busid_canon(b, canon, sizeof canon) &&
            strcmp(canon, row->bus_id) == 0 && m.value < low)
          low = m.value;
      }
    }
  }
  if (isfinite(low)) {
    char v[40];
    gcb_fmt_scaled(low, "GB/s", v, sizeof v);
    snprintf(row->cell[GCB_FAM_PEERS].figure, sizeof row->cell[0].figure,
             "min %s", v);
  }
}

/* The link the topology shows, and the CPUs of the rank using the GPU. */
static void host_figures(const struct gcb_report *rep,
                         const struct gcb_diagnosis *d,
                         struct gcb_matrix_row *row) {
  for (size_t doc = 0; doc < rep->ndocs; doc++) {
    const json_t *root = rep->docs[doc].root, *r;
    size_t i;
    json_array_foreach(json_object_get(root, "ranks"), i, r) {
      long long rank = gcb_view_int(r, "rank", (long long)i);
      if (!on_row(rep, d, (int)doc, rank, row))
        continue;
      const json_t *topo;
      long long g = gcb_topo_view_rank_gpu(root, rank, &topo);
      const char *link = gcb_view_str(
          gcb_topo_view_hop(gcb_topo_view_gpu(topo, g), 0), "link");
      struct gcb_matrix_cell *h = &row->cell[GCB_FAM_HEALTH];
      struct gcb_matrix_cell *p = &row->cell[GCB_FAM_PLACEMENT];
      const char *cpus = gcb_view_str(r, "cpu_binding");
      if (h->figure[0] == '\0' && link[0])
        snprintf(h->figure, sizeof h->figure, "%s", link);
      if (p->figure[0] == '\0' && cpus[0])
        snprintf(p->figure, sizeof p->figure, "rank %lld, CPUs %s", rank, cpus);
    }
  }
}

static void judge(const struct gcb_diagnosis *d, struct gcb_matrix_row *row) {
  for (int f = 0; f < GCB_MATRIX_COLS; f++) {
    struct gcb_matrix_cell *cell = &row->cell[f];
    const struct gcb_root_cause *rc;
    int s = gcb_diagnosis_state_at(d, row->node, row->bus_id,
                                   (enum gcb_family)f, &rc);
    cell->rc = rc;
    if (rc == NULL) {
      cell->state = cell->figure[0] ? GCB_CELL_PASS : GCB_CELL_NONE;
      continue;
    }
    cell->state = rc->cleared              ? GCB_CELL_CLEARED
                  : s == (int)GCB_SEV_FAIL ? GCB_CELL_FAIL
                  : s == (int)GCB_SEV_WARN ? GCB_CELL_WARN
                                           : GCB_CELL_INFO;
    if ((enum gcb_family)f == rc->family && !isnan(rc->measured))
      gcb_fmt_scaled(rc->measured, rc->unit, cell->figure, sizeof cell->figure);
  }
}

enum gcb_status gcb_matrix_build(const struct gcb_report *rep,
                                 const struct gcb_diagnosis *d,
                                 struct gcb_matrix *out, struct gcb_err *err) {
  size_t n = 0;
  memset(out, 0, sizeof *out);
  for (size_t m = 0; m < d->nmachines; m++)
    n += d->machines[m].ngpus;
  out->rows = calloc(n + 1, sizeof *out->rows);
  if (out->rows == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "component matrix: out of memory");
  for (size_t m = 0; m < d->nmachines; m++)
    for (size_t g = 0; g < d->machines[m].ngpus; g++) {
      struct gcb_matrix_row *row = &out->rows[out->n++];
      row->node = (long long)m;
      row->gpu = (long long)g;
      gcb_view_copy(row->bus_id, sizeof row->bus_id, d->machines[m].bus_ids[g]);
      device_figures(rep, d, row);
      peer_figure(rep, d, row);
      host_figures(rep, d, row);
      judge(d, row);
    }
  return GCB_OK;
}

void gcb_matrix_free(struct gcb_matrix *m) {
  if (m == NULL)
    return;
  free(m->rows);
  memset(m, 0, sizeof *m);
}
