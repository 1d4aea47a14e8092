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

#include "common/busid.h"
#include "reports/analysis/analyze_rules.h"
#include "reports/document/fmtnum.h"
#include "reports/document/model.h"
#include "reports/document/p2p_view.h"
#include "reports/render/render.h"

const char *gcb_cell_name(enum gcb_cell c) {
  static const char *const names[] = {"-",    "pass", "ok",
                                      "info", "warn", "fail"};
  return c <= GCB_CELL_FAIL ? names[c] : "?";
}

enum gcb_cell gcb_severity_cell(enum gcb_severity s) {
  return s == GCB_SEV_FAIL   ? GCB_CELL_FAIL
         : s == GCB_SEV_WARN ? GCB_CELL_WARN
                             : GCB_CELL_INFO;
}

enum gcb_cell gcb_root_cause_cell(const struct gcb_root_cause *rc) {
  return rc->cleared ? GCB_CELL_CLEARED : gcb_severity_cell(rc->severity);
}

/* What row i of the matrix is looked up by: its GPU, whose bus id is
 * parsed once (bus_ok false: the GPU is known by index alone); and the
 * slowest pair it sends to so far (peer_figures). */
struct key {
  const struct gcb_machine_gpu *gpu;
  struct gcb_busid bus;
  bool bus_ok;
  double low;
};

/* The row of each rank of a document, looked up once (row[rank], by rank
 * number below n): the figures ask for a rank's row once per family, and
 * at 16,384 ranks those lookups were most of the matrix. */
struct doc_rows {
  long long *row; /* ROW_UNSET until asked; -1: no row */
  size_t n;
};

/* Rows by machine: rows first[m] .. first[m + 1] - 1 are machine m's, the
 * row of each its key; doc[d] document d's rows of ranks. */
struct rows {
  struct gcb_matrix *m;
  size_t *first;
  struct key *key;
  struct doc_rows *doc;
};

#define ROW_UNSET (-2)

/* The row of the GPU with bus id `bus` (any form) on machine `node`; else
 * of the GPU `index` the machine knows by index alone; NULL. */
static struct gcb_matrix_row *row_of_gpu(const struct rows *r, long long node,
                                         const char *bus, long long index) {
  struct gcb_busid want;
  struct gcb_matrix_row *by_index = NULL;
  if (node < 0)
    return NULL;
  /* parsed and compared, not formatted: a lookup per rank and family */
  bool parsed = gcb_busid_parse(bus, &want, NULL) == GCB_OK;
  for (size_t i = r->first[node]; i < r->first[node + 1]; i++) {
    const struct key *k = &r->key[i];
    if (parsed && k->bus_ok && k->bus.domain == want.domain &&
        k->bus.bus == want.bus && k->bus.dev == want.dev &&
        k->bus.func == want.func)
      return &r->m->rows[i];
    if (by_index == NULL && index >= 0 && k->gpu->bus_id[0] == '\0' &&
        k->gpu->index == index)
      by_index = &r->m->rows[i];
  }
  return by_index;
}

/* The row of the GPU rank `rank` of document doc uses, or NULL. */
static struct gcb_matrix_row *row_of_rank(const struct rows *r,
                                          const struct gcb_report *rep,
                                          const struct gcb_diagnosis *d,
                                          int doc, long long rank) {
  long long *slot =
      rank >= 0 && (size_t)rank < r->doc[doc].n ? &r->doc[doc].row[rank] : NULL;
  if (slot != NULL && *slot != ROW_UNSET)
    return *slot >= 0 ? &r->m->rows[*slot] : NULL;
  struct gcb_place p;
  gcb_model_place(rep->docs[doc].model, rank, &p);
  struct gcb_matrix_row *row = row_of_gpu(
      r, gcb_diagnosis_machine(d, rep->docs, doc, p.node), p.bus_id, p.gpu);
  if (slot != NULL)
    *slot = row != NULL ? (long long)(row - r->m->rows) : -1;
  return row;
}

/* The case of family f to quote: the most work per operation; pcie only
 * where the link rule judges it; a collective only over two ranks or more
 * (one moves nothing), and no training pattern (its parts' work is flops
 * or bytes, which no single largest compares). */
static const struct gcb_model_case *headline(const struct gcb_model *m,
                                             enum gcb_family f) {
  const struct gcb_model_case *best = NULL;
  for (size_t i = 0; i < m->ncases; i++) {
    const struct gcb_model_case *c = &m->cases[i];
    if (gcb_model_case_family(c) != f || c->kind == GCB_BENCH_PATTERN ||
        (c->kind == GCB_BENCH_COLL && gcb_model_case_alone(m, c)))
      continue;
    if ((f == GCB_FAM_H2D || f == GCB_FAM_D2H) &&
        gcb__case_pcie_direction(m, c) == NULL)
      continue;
    if (best == NULL || c->work_per_op > best->work_per_op)
      best = c;
  }
  return best;
}

/* A cell's figure from entry i of a case: its median, and the time the
 * timed loop took (the entry's time per operation times the iterations);
 * none for a case held at a nominal size (its times are derived from a
 * size the source never states). */
static void fill(struct gcb_matrix_cell *cell, const struct gcb_model_case *c,
                 enum gcb_family f, size_t i) {
  double fig = gcb_model_col(c, GCB_RC_FIG_MEDIAN, i);
  double t = gcb_analyze_rank_time(c, i);
  double iterations = (double)(c->iterations >= 0 ? c->iterations : 1);
  cell->time_s = isnan(t) || c->nominal_work ? 0 : t * iterations;
  gcb_fmt_scaled(fig, c->unit, cell->figure, sizeof cell->figure);
  if (f == GCB_FAM_GEMM) {
    char with[64];
    gcb__join(with, sizeof with, cell->figure, " (", c->dtype, ")",
              (const char *)NULL);
    gcb_view_copy(cell->figure, sizeof cell->figure, with);
  }
}

/* Figures for the per-device families, from the first document where a
 * GPU has them: one pass over each headline case's ranks. */
static void device_figures(const struct gcb_report *rep,
                           const struct gcb_diagnosis *d,
                           const struct rows *r) {
  static const enum gcb_family fams[] = {
      GCB_FAM_GEMM, GCB_FAM_DEVMEM, GCB_FAM_H2D, GCB_FAM_D2H, GCB_FAM_COLL};
  for (size_t doc = 0; doc < rep->ndocs; doc++)
    for (size_t k = 0; k < sizeof fams / sizeof *fams; k++) {
      const struct gcb_model_case *c = headline(rep->docs[doc].model, fams[k]);
      if (c == NULL)
        continue;
      for (size_t i = 0; i < c->ranks.n; i++) {
        long long rank = gcb_model_col_rank(c, i, (long long)i);
        struct gcb_matrix_row *row = row_of_rank(r, rep, d, (int)doc, rank);
        if (row != NULL && row->cell[fams[k]].figure[0] == '\0')
          fill(&row->cell[fams[k]], c, fams[k], i);
      }
    }
}

/* The slowest pair each GPU sends to, over the p2p bandwidth cases of the
 * first document that has any. */
static void peer_figures(const struct gcb_report *rep,
                         const struct gcb_diagnosis *d, const struct rows *r) {
  for (size_t doc = 0; doc < rep->ndocs; doc++) {
    const struct gcb_model *model = rep->docs[doc].model;
    size_t nseen = 0, found = 0;
    bool *seen = gcb__p2p_walk_scratch(model, &nseen);
    for (size_t i = 0; i < model->ncases; i++) {
      const struct gcb_model_case *c = &model->cases[i];
      struct gcb__p2p_walk it;
      struct gcb__p2p_pair m;
      char b[32];
      if (seen == NULL || strcmp(c->unit, "GB/s") != 0 ||
          strcmp(c->direction, "latency") == 0 ||
          !gcb__p2p_walk_begin(&it, model, c, seen, nseen))
        continue;
      while (gcb__p2p_walk_next(&it, &m)) {
        gcb__p2p_pair_busid(&m, c, false, b, sizeof b);
        struct gcb_matrix_row *row = row_of_gpu(
            r, gcb_diagnosis_machine(d, rep->docs, (int)doc, m.node), b, m.src);
        struct key *k = row != NULL ? &r->key[row - r->m->rows] : NULL;
        if (k != NULL && m.value < k->low) {
          k->low = m.value;
          found++;
        }
      }
    }
    free(seen);
    if (found > 0)
      break;
  }
  for (size_t i = 0; i < r->m->n; i++) {
    char v[40];
    if (!isfinite(r->key[i].low))
      continue;
    gcb_fmt_scaled(r->key[i].low, "GB/s", v, sizeof v);
    snprintf(r->m->rows[i].cell[GCB_FAM_PEERS].figure,
             sizeof r->m->rows[i].cell[0].figure, "min %s", v);
  }
}

/* The topology GPU rank `rank` uses, its entry (gcb_model_rank_gpu gives
 * its index): by its device's bus id, else its index; NULL if none. */
static const struct gcb_model_gpu *rank_gpu(const struct gcb_model *m,
                                            long long rank) {
  const struct gcb_model_rank *r = gcb_model_rank(m, rank);
  const struct gcb_model_node *n =
      r != NULL ? gcb_model_node(m, r->node) : NULL;
  if (n == NULL || !n->has_topology || !r->has_device)
    return NULL;
  if (r->device_bus_id[0] != '\0')
    return gcb_model_gpu_by_busid(m, r->node, r->device_bus_id);
  return gcb_model_gpu(m, r->node, r->device_index);
}

/* The link the topology shows, and the CPUs of the rank using the GPU. */
static void host_figures(const struct gcb_report *rep,
                         const struct gcb_diagnosis *d, const struct rows *r) {
  for (size_t doc = 0; doc < rep->ndocs; doc++) {
    const struct gcb_model *m = rep->docs[doc].model;
    for (size_t i = 0; i < m->nranks; i++) {
      const struct gcb_model_rank *e = &m->ranks[i];
      long long rank = e->rank;
      struct gcb_matrix_row *row = row_of_rank(r, rep, d, (int)doc, rank);
      if (row == NULL)
        continue;
      struct gcb_matrix_cell *h = &row->cell[GCB_FAM_HEALTH];
      struct gcb_matrix_cell *p = &row->cell[GCB_FAM_PLACEMENT];
      if (h->figure[0] == '\0') { /* the first rank on the GPU says */
        const struct gcb_model_gpu *g = rank_gpu(m, rank);
        const char *link = g != NULL && g->nhops > 0 ? g->hops[0].link : "";
        gcb__join(h->figure, sizeof h->figure, link, (const char *)NULL);
      }
      const char *cpus = e->cpu_binding;
      if (p->figure[0] == '\0' && cpus[0]) {
        char num[GCB_FMTNUM_MAX + 8] = "rank ";
        gcb_fmtnum_ll(num + 5, rank);
        gcb__join(p->figure, sizeof p->figure, num, ", CPUs ", cpus,
                  (const char *)NULL);
      }
    }
  }
}

static void judge(const struct gcb_diagnosis *d, struct gcb_matrix_row *row,
                  const struct gcb_machine_gpu *gpu) {
  for (int f = 0; f < GCB_MATRIX_COLS; f++) {
    struct gcb_matrix_cell *cell = &row->cell[f];
    const struct gcb_root_cause *rc;
    int s = gcb_diagnosis_state_at(d, row->node, gpu, (enum gcb_family)f, &rc);
    cell->rc = rc;
    if (rc == NULL) {
      cell->state = cell->figure[0] ? GCB_CELL_PASS : GCB_CELL_NONE;
      continue;
    }
    cell->state = rc->cleared ? GCB_CELL_CLEARED
                              : gcb_severity_cell((enum gcb_severity)s);
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
  struct rows r = {.m = out,
                   .first = malloc((d->nmachines + 1) * sizeof *r.first),
                   .key = malloc((n + 1) * sizeof *r.key),
                   .doc = calloc(rep->ndocs + 1, sizeof *r.doc)};
  out->rows = calloc(n + 1, sizeof *out->rows);
  bool ok =
      r.first != NULL && r.key != NULL && r.doc != NULL && out->rows != NULL;
  for (size_t m = 0; ok && m < d->nmachines; m++) {
    r.first[m] = out->n;
    for (size_t g = 0; g < d->machines[m].ngpus; g++) {
      struct gcb_matrix_row *row = &out->rows[out->n];
      struct key *k = &r.key[out->n++];
      const struct gcb_machine_gpu *gpu = &d->machines[m].gpus[g];
      row->node = (long long)m;
      /* known by its index alone: that index */
      row->gpu = gpu->bus_id[0] != '\0' ? (long long)g : gpu->index;
      gcb_machine_gpu_show(gpu, row->bus_id, sizeof row->bus_id);
      *k = (struct key){.gpu = gpu, .low = INFINITY};
      k->bus_ok = gpu->bus_id[0] != '\0' &&
                  gcb_busid_parse(gpu->bus_id, &k->bus, NULL) == GCB_OK;
    }
  }
  if (ok)
    r.first[d->nmachines] = n;
  for (size_t doc = 0; ok && doc < rep->ndocs; doc++) {
    size_t k = rep->docs[doc].model->nranks;
    r.doc[doc].row = malloc((k + 1) * sizeof *r.doc[doc].row);
    ok = r.doc[doc].row != NULL;
    for (size_t i = 0; ok && i < k; i++)
      r.doc[doc].row[i] = ROW_UNSET;
    r.doc[doc].n = k;
  }
  if (ok) {
    device_figures(rep, d, &r);
    peer_figures(rep, d, &r);
    host_figures(rep, d, &r);
    for (size_t i = 0; i < out->n; i++)
      judge(d, &out->rows[i], r.key[i].gpu);
  }
  for (size_t doc = 0; r.doc != NULL && doc < rep->ndocs; doc++)
    free(r.doc[doc].row);
  free(r.doc);
  free(r.key);
  free(r.first);
  return ok ? GCB_OK
            : gcb_err_set(err, GCB_ENOMEM, "component matrix: out of memory");
}

enum gcb_status gcb_matrix_use(const struct gcb_report *rep,
                               const struct gcb_diagnosis *d,
                               struct gcb_matrix *own,
                               const struct gcb_matrix **out,
                               struct gcb_err *err) {
  *out = rep->matrix;
  if (*out != NULL && d == rep->diagnosis)
    return GCB_OK;
  enum gcb_status st = gcb_matrix_build(rep, d, own, err);
  *out = st == GCB_OK ? own : NULL;
  return st;
}

void gcb_matrix_free(struct gcb_matrix *m) {
  if (m == NULL)
    return;
  free(m->rows);
  memset(m, 0, sizeof *m);
}
