/*
 * The report's tables as plain text cells, built once from the documents'
 * typed models (reports/document/model.h) and formatted by the Markdown
 * and HTML renderers: the runs and their launch, the findings, checks and
 * comparison, then the per-GPU, per-rank, per-case and load-balance
 * tables, the collective sweeps in nccl-tests' layout, the network map,
 * the training patterns and the burn-in. A table with no rows is dropped
 * (table_build.c), so a report without criteria or a baseline simply has
 * no such section. With several documents a leading "run" column says
 * which one a row comes from.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "reports/analysis/analyze_rules.h"
#include "reports/analysis/burn.h"
#include "reports/analysis/diagnose.h"
#include "reports/analysis/netmap_matrix.h"
#include "reports/analysis/pattern_view.h"
#include "reports/document/model.h"
#include "reports/document/stats.h"
#include "reports/render/render_tables.h"

/* ---- what every table shares -------------------------------------------- */

static const struct gcb_model *model_of(const struct gcb__tb *b, size_t d) {
  return b->rep->docs[d].model;
}

/* 1 when the report covers several documents (tables of per-document
 * rows then start with a "run" column), else 0. Such tables pass their
 * headers from h + 1 - run_col(b) to drop the "run" header. */
static size_t run_col(const struct gcb__tb *b) {
  return b->rep->ndocs > 1 ? 1 : 0;
}

/* A new row of document d with its run number (d + 1) in the first cell,
 * returned past it, so that columns count from the first data column. */
static char **numbered_row(struct gcb__tb *b, struct gcb_rtable *t,
                           const char *cls, size_t d) {
  char **r = gcb__table_row(b, t, cls);
  gcb__cell(b, r, 0, "%zu", d + 1);
  return r != NULL ? r + 1 : NULL;
}

/* A new row of document d, numbered when the table has a run column. */
static char **doc_row(struct gcb__tb *b, struct gcb_rtable *t, const char *cls,
                      size_t d) {
  return run_col(b) ? numbered_row(b, t, cls, d) : gcb__table_row(b, t, cls);
}

/* The figure (median) of `rank` in case c's per-rank columns; NAN when the
 * case has none. */
static double rank_figure(const struct gcb_model_case *c, long long rank) {
  long long i = gcb_model_col_find(c, rank);
  return i >= 0 ? gcb_model_col(c, GCB_RC_FIG_MEDIAN, (size_t)i) : NAN;
}

/* A table with figure columns, its title counting the cases they leave
 * out ("Per-rank summary (2 more cases not shown: see Cases)"). */
static struct gcb_rtable *figures_table(struct gcb__tb *b, const char *id,
                                        const char *title, size_t left,
                                        const char *intro,
                                        const char *const *headers) {
  char full[96];
  snprintf(full, sizeof full, "%s (%zu more case%s not shown: see Cases)",
           title, left, left == 1 ? "" : "s");
  return gcb__table_new(b, id, left ? full : title, intro, headers);
}

/* ---- findings counted by component -------------------------------------- */

/* The findings of one document counted by rank, or by node and GPU, so
 * that tables of thousands of rows look them up in O(log n) rather than
 * scanning every finding for every row. */
struct tally {
  long long a, b; /* (rank, 0) or (node, gpu) */
  size_t n;
  int worst; /* highest severity */
};

struct tallies {
  struct tally *items;
  size_t n;
};

static int cmp_tally(const void *x, const void *y) {
  const struct tally *p = x, *q = y;
  return p->a != q->a ? (p->a > q->a) - (p->a < q->a)
                      : (p->b > q->b) - (p->b < q->b);
}

/* Counts the findings of document `doc` that name a rank (by_gpu false)
 * or a node and GPU (by_gpu true). Sets b->oom on failure. */
static void tallies_build(struct gcb__tb *b, size_t doc, bool by_gpu,
                          struct tallies *out) {
  const struct gcb_findings *fs = b->rep->findings;
  size_t k = 0;
  out->items = malloc(fs->n * sizeof *out->items + 1);
  out->n = 0;
  if (out->items == NULL) {
    b->oom = true;
    return;
  }
  for (size_t i = 0; i < fs->n; i++) {
    const struct gcb_location *w = &fs->items[i].where;
    if (w->doc != (int)doc || (by_gpu ? w->gpu < 0 : w->rank < 0))
      continue;
    out->items[k++] = (struct tally){.a = by_gpu ? w->node : w->rank,
                                     .b = by_gpu ? w->gpu : 0,
                                     .n = 1,
                                     .worst = (int)fs->items[i].severity};
  }
  qsort(out->items, k, sizeof *out->items, cmp_tally);
  for (size_t i = 0; i < k; i++) { /* merge equal keys */
    struct tally *last = out->n ? &out->items[out->n - 1] : NULL;
    if (last != NULL && cmp_tally(last, &out->items[i]) == 0) {
      last->n++;
      last->worst =
          out->items[i].worst > last->worst ? out->items[i].worst : last->worst;
    } else {
      out->items[out->n++] = out->items[i];
    }
  }
}

/* How many findings carry the key, and the worst one's row class ("fail",
 * "warn" or NULL). */
static size_t tallies_get(const struct tallies *t, long long a, long long b,
                          const char **cls) {
  struct tally key = {.a = a, .b = b};
  const struct tally *hit =
      t->n ? bsearch(&key, t->items, t->n, sizeof key, cmp_tally) : NULL;
  int worst = hit ? hit->worst : -1;
  *cls = worst == GCB_SEV_FAIL ? "fail" : worst == GCB_SEV_WARN ? "warn" : NULL;
  return hit ? hit->n : 0;
}

/* ---- run-level tables --------------------------------------------------- */

static void runs_table(struct gcb__tb *b) {
  static const char *const h[] = {
      "#",       "file", "run id", "status",  "backend", "ranks", "nodes",
      "started", "tool", "cases",  "skipped", "errors",  NULL};
  struct gcb_rtable *t = gcb__table_new(b, "runs", "Runs", NULL, h);
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const struct gcb_model *m = model_of(b, d);
    const struct gcb_model_run *run = &m->run;
    char **r = numbered_row(
        b, t, gcb_view_status_failed(run->status) ? "fail" : NULL, d);
    gcb__cell(b, r, 0, "%s", b->rep->docs[d].name);
    gcb__cell(b, r, 1, "%s", run->id);
    gcb__cell(b, r, 2, "%s", run->status);
    gcb__cell(b, r, 3, "%s", run->backend);
    gcb__cell(b, r, 4, "%lld", run->ranks >= 0 ? run->ranks : 0);
    gcb__cell(b, r, 5, "%lld", run->nodes >= 0 ? run->nodes : 0);
    gcb__cell(b, r, 6, "%s", run->start_time);
    gcb__cell(b, r, 7, "%s %s (%s)", run->tool, run->version,
              run->git_revision);
    gcb__cell(b, r, 8, "%zu", m->ncases);
    gcb__cell(b, r, 9, "%zu", m->nskips);
    gcb__cell(b, r, 10, "%zu", m->nerrors);
  }
}

/* What the launcher, scheduler and libraries were told (run.environment):
 * the Slurm job and the NCCL, MPI and CUDA settings that explain a figure.
 * No rows (dropped) for documents that record none. */
static void launch_table(struct gcb__tb *b) {
  static const char *const h[] = {"#", "variable", "value", NULL};
  struct gcb_rtable *t = gcb__table_new(
      b, "launch", "Launch context",
      "scheduler, NCCL, MPI and CUDA settings the run was started with", h);
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const struct gcb_mvalue *env = &model_of(b, d)->run.environment;
    for (size_t i = 0; env->type == GCB_MV_OBJECT && i < env->n; i++) {
      if (env->members[i].value.type != GCB_MV_STRING)
        continue;
      char **r = numbered_row(b, t, NULL, d);
      gcb__cell(b, r, 0, "%s", env->members[i].key);
      gcb__cell(b, r, 1, "%s", env->members[i].value.text);
    }
  }
}

/* The start-up MPI probe's pairs (run.mpi_probe): the launch's MPI mode,
 * which compare reads (docs/REPORTS.md, "MPI mode"). */
static void probe_rows(struct gcb__tb *b, struct gcb_rtable *t, size_t d) {
  const struct gcb_model_run *run = &model_of(b, d)->run;
  for (size_t i = 0; i < run->nprobe; i++) {
    const struct gcb_model_probe_pair *p = &run->probe[i];
    char **r = numbered_row(b, t, NULL, d);
    gcb__cell(b, r, 0, "MPI probe, %lld B, ranks 0-%lld (%s)", run->probe_bytes,
              p->ranks[1], p->same_node ? "same node" : "two nodes");
    char lo[32], med[32];
    gcb_view_fmt_time(p->min_us * 1e-6, lo, sizeof lo);
    gcb_view_fmt_time(p->median_us * 1e-6, med, sizeof med);
    if (p->batches > 0)
      gcb__cell(b, r, 1, "one-way %s (least of %lld batches; median %s)", lo,
                p->batches, med);
    else /* its time ran out before one batch: the round trips made */
      gcb__cell(b, r, 1,
                "one-way %s (cut short before a whole batch: the "
                "round trips made)",
                lo);
  }
}

/* The MPI and BLAS libraries as they said at run time (software.mpi and
 * mpi_device, software.blas_run), and the MPI probe: what a figure ran on.
 * No rows (dropped) for documents that record none of them (before they
 * were). */
static void libraries_table(struct gcb__tb *b) {
  static const char *const h[] = {"#", "library", "as it ran", NULL};
  struct gcb_rtable *t = gcb__table_new(b, "libraries", "Libraries",
                                        "the MPI device, the BLAS kernels and "
                                        "the MPI probe of the run "
                                        "(docs/results-schema.md)",
                                        h);
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const struct gcb_mvalue *sw = &model_of(b, d)->run.software;
    const struct gcb_mvalue *blas = gcb_mvalue_get(sw, "blas_run");
    const char *device = gcb_mvalue_str(sw, "mpi_device");
    if (device[0] != '\0') {
      char **r = numbered_row(b, t, NULL, d);
      gcb__cell(b, r, 0, "%s", gcb_mvalue_str(sw, "mpi"));
      gcb__cell(b, r, 1, "device %s", device);
    }
    if (blas->type == GCB_MV_OBJECT) {
      char **r = numbered_row(b, t, NULL, d);
      const char *isa = gcb_mvalue_str(blas, "cpu_isa");
      const struct gcb_mvalue *threads = gcb_mvalue_get(blas, "threads");
      gcb__cell(b, r, 0, "%s", gcb_mvalue_str(blas, "library"));
      gcb__cell(b, r, 1, "%s kernels, %lld thread(s) (%s); CPU offers %s",
                gcb_mvalue_str(blas, "core"),
                threads->type == GCB_MV_INT ? threads->i : 0,
                gcb_mvalue_str(blas, "parallel"),
                isa[0] ? isa : "(not recorded)");
    }
    probe_rows(b, t, d);
  }
}

static void findings_table(struct gcb__tb *b) {
  static const char *const h[] = {
      "severity", "kind", "where",       "case",       "measured",
      "expected", "cost", "explanation", "suggestion", NULL};
  const struct gcb_findings *fs = b->rep->findings;
  struct gcb_rtable *t = gcb__table_new(b, "findings", "Findings", NULL, h);
  for (size_t i = 0; t != NULL && i < fs->n; i++) {
    const struct gcb_finding *f = &fs->items[i];
    char where[GCB_REPORT_WHERE];
    gcb_report_where(b->rep, f, where, sizeof where);
    char **r = gcb__table_row(b, t, gcb_severity_name(f->severity));
    gcb__cell(b, r, 0, "%s", gcb_severity_name(f->severity));
    gcb__cell(b, r, 1, "%s", f->kind->name);
    gcb__cell(b, r, 2, "%s", where);
    gcb__cell(b, r, 3, "%s", f->where.subject[0] ? f->where.subject : "-");
    gcb__cell_figure(b, r, 4, f->measured, f->expected, f->unit);
    gcb__cell_figure(b, r, 5, f->expected, NAN, f->unit);
    gcb__cell_pct(b, r, 6, f->cost, false);
    gcb__cell(b, r, 7, "%s", f->explanation);
    gcb__cell(b, r, 8, "%s", f->suggestion[0] ? f->suggestion : "-");
  }
}

static void checks_table(struct gcb__tb *b) {
  static const char *const h[] = {"check", "result", "bounds",
                                  "cases", "misses", NULL};
  const struct gcb_criteria *cr = b->rep->criteria;
  if (cr == NULL)
    return;
  struct gcb_rtable *t =
      gcb__table_new(b, "checks", "Acceptance checks", cr->path, h);
  for (size_t i = 0; t != NULL && i < cr->nchecks; i++) {
    const struct gcb_check_result *res = &b->rep->checks[i];
    static const char *const cls[] = {"ok", "fail", "info"};
    static const char *const said[] = {"pass", "FAIL", "n/a"};
    enum gcb_check_outcome o = gcb_check_outcome(cr, res);
    char **r = gcb__table_row(b, t, cls[o]);
    gcb__cell(b, r, 0, "%s", cr->checks[i].name);
    gcb__cell(b, r, 1, "%s", said[o]);
    /* "median >= 700 GFLOP/s; per_rank >= 650 GFLOP/s" */
    const struct gcb_criterion *k = &cr->checks[i];
    gcb__cell(b, r, 2, "%s", "");
    for (size_t j = 0; j < k->nbounds; j++) {
      const struct gcb_bound *bd = &k->bounds[j];
      const char *unit = bd->metric->unit ? bd->metric->unit
                         : k->unit        ? k->unit
                                          : "";
      gcb__cell_add(b, r, 2, "; ", "%s %s %g%s%s", bd->metric->name,
                    bd->is_min ? ">=" : "<=", bd->limit, unit[0] ? " " : "",
                    unit);
    }
    gcb__cell(b, r, 3, "%zu", res->matched);
    gcb__cell(b, r, 4, "%zu", res->failed);
  }
}

/* A comparison row's class; MODE, the launches' MPI mode: see the notes. */
static const char *const verdict_class[] = {[GCB_VERDICT_REGRESSION] = "fail",
                                            [GCB_VERDICT_ONLY_OLD] = "warn",
                                            [GCB_VERDICT_BETTER] = "ok",
                                            [GCB_VERDICT_MODE] = "info",
                                            [GCB_VERDICT_UNJUDGED] = "warn"};

/* The comparison with the baseline, then the differences between the runs
 * that limit it (dropped when there are none). */
static void comparison_tables(struct gcb__tb *b) {
  static const char *const h[] = {"case",      "metric",  "old",
                                  "new",       "change",  "noise",
                                  "threshold", "verdict", NULL};
  static const char *const hn[] = {"not comparable because", "baseline",
                                   "this run", NULL};
  const struct gcb_comparison *cmp = b->rep->comparison;
  if (cmp == NULL)
    return;
  struct gcb_rtable *t = gcb__table_new(
      b, "comparison", "Comparison with the baseline", b->rep->baseline, h);
  for (size_t i = 0; t != NULL && i < cmp->ndeltas; i++) {
    const struct gcb_delta *d = &cmp->deltas[i];
    char **r = gcb__table_row(b, t, verdict_class[d->verdict]);
    /* The noise band as a person reads it: "±4.2% (±2.1 GB/s)", the band
     * in the figure's own unit around the baseline. */
    char band[48];
    gcb_fmt_scaled(d->noise * fabs(d->old_value), d->unit, band, sizeof band);
    gcb__cell(b, r, 0, "%s", d->title);
    gcb__cell(b, r, 1, "%s", d->metric);
    gcb__cell_figure(b, r, 2, d->old_value, NAN, d->unit);
    gcb__cell_figure(b, r, 3, d->new_value, NAN, d->unit);
    gcb__cell_pct(b, r, 4, d->change, true);
    gcb__cell_if(b, r, 5, !isnan(d->noise) && !isnan(d->old_value),
                 "\u00b1%.1f%% (\u00b1%s)", d->noise * 100, band);
    gcb__cell_pct(b, r, 6, d->threshold, false);
    gcb__cell(b, r, 7, "%s", gcb_verdict_name(d->verdict));
  }
  t = gcb__table_new(b, "notes", "Differences between the runs",
                     "the comparison above holds only as far as these allow",
                     hn);
  for (size_t i = 0; t != NULL && i < cmp->nnotes; i++) {
    char **r = gcb__table_row(b, t, "warn");
    gcb__cell(b, r, 0, "%s", cmp->notes[i].what);
    gcb__cell(b, r, 1, "%s", cmp->notes[i].old_value);
    gcb__cell(b, r, 2, "%s", cmp->notes[i].new_value);
  }
}

/* ---- the per-GPU summary ------------------------------------------------ */

/* One row per GPU of every node (from the node's topology, so an idle GPU
 * shows as a row without figures; else from the ranks' devices), with its
 * bus id, NUMA node, the ranks using it, what it reached in GEMM (one
 * column per dtype), device memory bandwidth, H2D and D2H, and the
 * findings that name it (by node and GPU index). The figure of a GPU is
 * that of the first rank using it. Where a document sweeps GEMM shapes, a
 * column beside each type gives the GPU's best shape (its highest median
 * over the sweep's shapes, mamf-finder's "best outcome"); where the GPUs
 * reported NVML telemetry, a column gives its lowest SM clock and highest
 * power over the cases, and how many cases were too short for the sampler
 * (its readings are then from their start and end). */

#define MAX_GPU_COLS 10

/* A figure column: its heading, the heading of the best-shape column
 * after it, which shows per GPU the best of the cases of the column, and
 * the scale of its figures. */
struct gcol {
  char head[96]; /* column_of's name of its cases */
  char best[96]; /* "": no best-shape column */
  double scale;  /* to the unit the heading shows (TFLOP/s) */
};

/* What the rows of one document share: the table, its columns, and the
 * document's cases as the rows ask for them, looked up once per document
 * rather than once per GPU (16,384 rows): each case's column ("" when it
 * has none), the case each column shows and the findings by GPU; and
 * room for a node's ranks (as many as its largest node has). */
struct gtab {
  struct gcb__tb *b;
  struct gcb_rtable *t;
  const struct gcol *cols;
  size_t ncols, doc;
  bool telemetry;
  const struct gcb_model *m;
  char (*name)[96];
  const struct gcb_model_case *shown[MAX_GPU_COLS];
  struct tallies tally;
  long long *gpu_of, *ranks; /* per rank of a node: its GPU; a GPU's */
};

/* The column a case belongs in ("GEMM bf16"), or false. pcie cases go in
 * only when the link rule would judge them (pinned, local, largest). */
static bool column_of(const struct gcb_model *m, const struct gcb_model_case *c,
                      char *name, size_t size, double *scale) {
  const char *dir = gcb__case_pcie_direction(m, c);
  const char *unit;
  /* The unit that suits the figure: 747 TFLOP/s, not 746650 GFLOP/s. */
  *scale = gcb_unit_scale(fabs(c->summary.median), c->unit, &unit);
  if (c->kind == GCB_BENCH_GEMM)
    snprintf(name, size, "GEMM %s (%s)", c->dtype, unit);
  else if (c->kind == GCB_BENCH_MEMBW)
    snprintf(name, size, "membw %s (%s)", c->kernel, unit);
  else if (dir != NULL)
    snprintf(name, size, "%s (%s)", strcmp(dir, "h2d") == 0 ? "H2D" : "D2H",
             unit);
  else
    return false;
  return true;
}

/* membw shows one kernel: triad when the run has it, else the first. */
static bool wanted(const struct gcol *cols, size_t n, const char *name) {
  if (strncmp(name, "membw ", 6) != 0)
    return true;
  for (size_t k = 0; k < n; k++)
    if (strncmp(cols[k].head, "membw ", 6) == 0)
      return strcmp(cols[k].head, name) == 0;
  return true;
}

/* Two GEMM cases of one m x n x k. */
static bool same_shape(const struct gcb_model_case *a,
                       const struct gcb_model_case *b) {
  return a->m == b->m && a->n == b->n && a->k == b->k;
}

/* The figure columns of every document's cases, each with a best-shape
 * heading where a document holds its GEMM cases in more than one shape
 * (a shape sweep); *left counts the cases past MAX_GPU_COLS columns, and
 * *telemetry says whether a case carries NVML telemetry for some rank. */
static size_t gpu_columns(const struct gcb_report *rep, struct gcol *cols,
                          size_t *left, bool *telemetry) {
  size_t n = 0;
  for (size_t d = 0; d < rep->ndocs; d++) {
    const struct gcb_model *m = rep->docs[d].model;
    const struct gcb_model_case *first[MAX_GPU_COLS] = {0};
    for (size_t i = 0, k; i < m->ncases; i++) {
      const struct gcb_model_case *c = &m->cases[i];
      char name[96];
      double scale;
      *telemetry |= c->ranks.num[GCB_RC_TELEM_SAMPLES] != NULL;
      if (!column_of(m, c, name, sizeof name, &scale))
        continue;
      for (k = 0; k < n && strcmp(cols[k].head, name) != 0; k++)
        ;
      if (k == n && !wanted(cols, n, name))
        continue;
      if (k == n && n == MAX_GPU_COLS) {
        (*left)++;
        continue;
      }
      if (k == n) {
        memset(&cols[n++], 0, sizeof *cols);
        cols[k].scale = scale;
        gcb_view_copy(cols[k].head, sizeof cols[k].head, name);
      }
      if (first[k] == NULL)
        first[k] = c;
      else if (!same_shape(c, first[k]) && cols[k].best[0] == '\0' &&
               strncmp(name, "GEMM ", 5) == 0) {
        /* "GEMM bf16 (TFLOP/s)" -> "GEMM bf16 best shape (TFLOP/s)" */
        const char *unit = strrchr(name, '(');
        int at = unit ? (int)(unit - name) : (int)strlen(name);
        snprintf(cols[k].best, sizeof cols[k].best, "%.*sbest shape %s", at,
                 name, unit ? unit : "");
      }
    }
  }
  return n;
}

/* The best median of `rank` over the document's cases of column `col` and
 * the shape that reached it ("760.2 @ 8192x8192x4096"). */
static void best_cell(const struct gtab *x, char **r, size_t at,
                      const struct gcol *col, long long rank) {
  const struct gcb_model_case *best = NULL;
  double top = NAN;
  for (size_t i = 0; i < x->m->ncases; i++) {
    double v;
    if (strcmp(x->name[i], col->head) != 0 ||
        isnan(v = rank_figure(&x->m->cases[i], rank)))
      continue;
    if (best == NULL || v > top)
      best = &x->m->cases[i], top = v;
  }
  if (best == NULL) {
    gcb__cell(x->b, r, at, "-");
    return;
  }
  char num[48];
  gcb_view_fmt(top * col->scale, num, sizeof num);
  gcb__cell(x->b, r, at, "%s @ %.0fx%.0fx%.0f", num, best->m, best->n, best->k);
}

/* What NVML said about `rank`'s GPU over the document's cases: its lowest
 * SM clock, highest power, and the cases too short to sample. */
static void telemetry_cell(const struct gtab *x, char **r, size_t at,
                           long long rank) {
  double sm = INFINITY, watts = -INFINITY;
  size_t n = 0, short_n = 0;
  for (size_t i = 0; i < x->m->ncases; i++) {
    const struct gcb_model_case *c = &x->m->cases[i];
    long long k = gcb_model_col_find(c, rank);
    if (k < 0 || !(gcb_model_col(c, GCB_RC_TELEM_SAMPLES, (size_t)k) >= 0))
      continue;
    n++;
    short_n += gcb_model_col(c, GCB_RC_TELEM_TOO_SHORT, (size_t)k) == 1;
    sm = fmin(sm, gcb_model_col(c, GCB_RC_TELEM_SM_MIN, (size_t)k));
    watts = fmax(watts, gcb_model_col(c, GCB_RC_TELEM_POWER_MAX, (size_t)k));
  }
  if (n > 0 && isfinite(sm))
    gcb__cell_add(x->b, r, at, "", "SM clock %.0f MHz lowest", sm);
  if (n > 0 && isfinite(watts))
    gcb__cell_add(x->b, r, at, ", ", "power %.0f W highest", watts);
  if (short_n > 0)
    gcb__cell_add(x->b, r, at, "; ", "%zu of %zu cases too short to sample",
                  short_n, n);
  if (r != NULL && r[at] == NULL)
    gcb__cell(x->b, r, at, "-");
}

/* What one row shows. */
struct grow {
  long long node, gpu, numa;
  const char *host, *bus, *model;
  long long *ranks; /* the node's ranks that use the GPU */
  size_t nranks;
};

static void gpu_row(const struct gtab *x, const struct grow *g) {
  struct gcb__tb *b = x->b;
  const char *cls;
  size_t nf = tallies_get(&x->tally, g->node, g->gpu, &cls);
  char **r = doc_row(b, x->t, cls, x->doc);
  char ranks[64];
  gcb_view_ranges(g->ranks, g->nranks, ranks, sizeof ranks);
  gcb__cell(b, r, 0, "%lld", g->node);
  gcb__cell(b, r, 1, "%s", g->host);
  gcb__cell_if(b, r, 2, g->gpu >= 0, "%lld", g->gpu);
  gcb__cell(b, r, 3, "%s", g->bus[0] ? g->bus : "-");
  gcb__cell_if(b, r, 4, g->numa >= 0, "%lld", g->numa);
  gcb__cell(b, r, 5, "%s", g->model[0] ? g->model : "-");
  gcb__cell(b, r, 6, "%s", g->nranks ? ranks : "idle");
  size_t at = 7;
  for (size_t k = 0; k < x->ncols; k++) {
    const struct gcol *col = &x->cols[k];
    const struct gcb_model_case *c = x->shown[k];
    bool shown = c != NULL && g->nranks;
    double v = shown ? rank_figure(c, g->ranks[0]) : NAN;
    gcb__cell_num(b, r, at++, v * col->scale);
    if (col->best[0] && shown)
      best_cell(x, r, at++, col, g->ranks[0]);
    else if (col->best[0])
      gcb__cell(b, r, at++, "-");
  }
  if (x->telemetry && g->nranks)
    telemetry_cell(x, r, at, g->ranks[0]);
  else if (x->telemetry)
    gcb__cell(b, r, at, "-");
  gcb__cell(b, r, at + x->telemetry, "%zu", nf);
}

/* Rows of one node: its topology's GPUs, else its ranks' devices. */
static void node_rows(const struct gtab *x, const struct gcb_model_node *node) {
  const struct gcb_model *m = x->m;
  long long *gpu_of = x->gpu_of;
  struct grow g = {
      .node = node->index, .host = node->hostname, .ranks = x->ranks};
  /* each rank's GPU once per node, not once per GPU of the node */
  for (size_t i = 0; i < node->nranks; i++)
    gpu_of[i] = gcb_model_rank_gpu(m, node->ranks[i], NULL);
  for (size_t i = 0; i < node->ngpus; i++) {
    const struct gcb_model_gpu *gp = &node->gpus[i];
    g.gpu = gp->index >= 0 ? gp->index : (long long)i;
    g.bus = gp->busid;
    g.model = gp->model;
    g.numa = gp->numa;
    g.nranks = 0;
    for (size_t k = 0; k < node->nranks; k++)
      if (gpu_of[k] == g.gpu)
        g.ranks[g.nranks++] = node->ranks[k];
    gpu_row(x, &g);
  }
  if (node->ngpus > 0)
    return;
  for (size_t i = 0; i < node->nranks; i++) {
    long long r = node->ranks[i];
    const struct gcb_model_rank *mr = gcb_model_rank(m, r);
    struct gcb_place p;
    gcb_model_place(m, r, &p);
    if (p.gpu < 0 && p.bus_id[0] == '\0')
      continue; /* a host rank: it is in the per-rank table */
    g.gpu = p.gpu;
    g.bus = p.bus_id;
    g.model = mr != NULL && mr->device_name != NULL ? mr->device_name : "";
    g.numa = p.numa;
    g.ranks[0] = r;
    g.nranks = 1;
    gpu_row(x, &g);
  }
}

/* Document x->doc's cases for the rows, and the case each column shows:
 * the most work per operation (the largest GEMM, the largest copy); false
 * on ENOMEM. */
static bool gtab_open(struct gtab *x) {
  size_t most = 0;
  x->m = model_of(x->b, x->doc);
  for (size_t i = 0; i < x->m->nnodes; i++)
    most = x->m->nodes[i].nranks > most ? x->m->nodes[i].nranks : most;
  tallies_build(x->b, x->doc, true, &x->tally);
  x->name = malloc((x->m->ncases + 1) * sizeof *x->name);
  x->gpu_of = malloc(2 * (most + 1) * sizeof *x->gpu_of);
  if (x->name == NULL || x->gpu_of == NULL)
    return false;
  x->ranks = x->gpu_of + most + 1;
  for (size_t i = 0; i < x->m->ncases; i++) {
    const struct gcb_model_case *c = &x->m->cases[i];
    double scale;
    if (!column_of(x->m, c, x->name[i], sizeof x->name[i], &scale))
      x->name[i][0] = '\0';
    for (size_t k = 0; k < x->ncols; k++)
      if (strcmp(x->name[i], x->cols[k].head) == 0 &&
          (x->shown[k] == NULL || c->work_per_op > x->shown[k]->work_per_op))
        x->shown[k] = c;
  }
  return true;
}

static void gpus_table(struct gcb__tb *b) {
  struct gcol cols[MAX_GPU_COLS];
  bool telemetry = false;
  size_t left = 0, ncols = gpu_columns(b->rep, cols, &left, &telemetry);
  const char *h[8 + 2 * MAX_GPU_COLS + 3] = {
      "run", "node", "host", "GPU", "bus id", "NUMA", "model", "ranks"};
  size_t nh = 8;
  for (size_t k = 0; k < ncols; k++) {
    h[nh++] = cols[k].head;
    if (cols[k].best[0])
      h[nh++] = cols[k].best;
  }
  if (telemetry)
    h[nh++] = "telemetry (NVML)";
  h[nh++] = "findings";
  h[nh] = NULL;
  struct gcb_rtable *t = figures_table(
      b, "gpus", "Per-GPU summary", left,
      "every GPU of every node, idle ones too; figures are the median of "
      "the (first) rank using the GPU, from the largest case of each kind",
      h + (1 - run_col(b)));
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    struct gtab x = {.b = b,
                     .t = t,
                     .cols = cols,
                     .ncols = ncols,
                     .doc = d,
                     .telemetry = telemetry};
    b->oom |= !gtab_open(&x);
    for (size_t i = 0; i < x.m->nnodes && !b->oom; i++)
      node_rows(&x, &x.m->nodes[i]);
    free(x.tally.items);
    free(x.name);
    free(x.gpu_of);
  }
}

/* ---- per-rank and per-case tables --------------------------------------- */

/* The per-rank summary (where each rank runs, what its device reached,
 * how often it was the slowest), the case table and the IPM-style
 * load-balance table. */

#define MAX_FIG_COLS 10

struct figcol {
  size_t doc;
  const struct gcb_model_case *c;
  char head[200];
  double scale; /* to the unit the heading shows */
};

/* Per-device cases, the per-rank table's figure columns; *left counts
 * those past MAX_FIG_COLS. */
static size_t fig_columns(const struct gcb_report *rep, struct figcol *cols,
                          size_t *left) {
  size_t n = 0;
  for (size_t d = 0; d < rep->ndocs; d++) {
    const struct gcb_model *m = rep->docs[d].model;
    for (size_t i = 0; i < m->ncases; i++) {
      const struct gcb_model_case *c = &m->cases[i];
      if (!gcb_bench_kinds[c->kind].per_device)
        continue;
      if (n == MAX_FIG_COLS) {
        (*left)++;
        continue;
      }
      char title[160];
      const char *unit;
      gcb_model_case_title(c, title, sizeof title);
      cols[n] = (struct figcol){.doc = d, .c = c};
      cols[n].scale = gcb_unit_scale(fabs(c->summary.median), c->unit, &unit);
      if (rep->ndocs > 1)
        snprintf(cols[n].head, sizeof cols[n].head, "run %zu %s (%s)", d + 1,
                 title, unit);
      else
        snprintf(cols[n].head, sizeof cols[n].head, "%s (%s)", title, unit);
      n++;
    }
  }
  return n;
}

/* For each rank of a document, in how many cases it was the slowest (the
 * rank IPM's imbalance points at): a rank that is always last is a
 * straggler whatever the benchmark. NULL on ENOMEM. */
static size_t *slowest_counts(const struct gcb_model *m, size_t nranks) {
  size_t *n = calloc(nranks + 1, sizeof *n);
  for (size_t i = 0; n != NULL && i < m->ncases; i++) {
    struct gcb_imbalance im;
    if (gcb_analyze_case_imbalance(&m->cases[i], &im) && im.ranks >= 2 &&
        im.imbalance > 0 && im.max_rank >= 0 && (size_t)im.max_rank < nranks)
      n[im.max_rank]++;
  }
  return n;
}

static void ranks_row(struct gcb__tb *b, struct gcb_rtable *t, size_t d,
                      long long rank, const struct figcol *cols, size_t ncols,
                      size_t slowest, const struct tallies *tally) {
  struct gcb_place p;
  const char *cls;
  gcb_model_place(model_of(b, d), rank, &p);
  size_t nf = tallies_get(tally, rank, 0, &cls);
  char **r = doc_row(b, t, cls, d);
  gcb__cell(b, r, 0, "%lld", p.node);
  gcb__cell(b, r, 1, "%s", p.hostname);
  gcb__cell(b, r, 2, "%lld", rank);
  gcb__cell_if(b, r, 3, p.gpu >= 0, "%lld", p.gpu);
  gcb__cell(b, r, 4, "%s", p.bus_id[0] ? p.bus_id : "-");
  gcb__cell_if(b, r, 5, p.numa >= 0, "%lld", p.numa);
  for (size_t k = 0; k < ncols; k++) {
    double x = cols[k].doc == d ? rank_figure(cols[k].c, rank) : NAN;
    gcb__cell_num(b, r, 6 + k, x * cols[k].scale);
  }
  gcb__cell(b, r, 6 + ncols, "%zu", slowest);
  gcb__cell(b, r, 7 + ncols, "%zu", nf);
}

static void ranks_table(struct gcb__tb *b) {
  struct figcol cols[MAX_FIG_COLS];
  size_t left = 0, ncols = fig_columns(b->rep, cols, &left);
  const char *h[8 + MAX_FIG_COLS + 3] = {"run", "node",   "host", "rank",
                                         "GPU", "bus id", "NUMA"};
  size_t nh = 7;
  for (size_t k = 0; k < ncols; k++)
    h[nh++] = cols[k].head;
  h[nh++] = "slowest in";
  h[nh++] = "findings";
  h[nh] = NULL;
  struct gcb_rtable *t =
      figures_table(b, "ranks", "Per-rank summary", left,
                    "figures are each rank's median; slowest in: the cases "
                    "in which the rank took longest (IPM's max); findings "
                    "counts those naming the rank",
                    h + (1 - run_col(b)));
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const struct gcb_model *m = model_of(b, d);
    size_t n = m->nranks;
    size_t *slow = slowest_counts(m, n);
    struct tallies tally;
    tallies_build(b, d, false, &tally);
    b->oom |= slow == NULL;
    for (size_t i = 0; slow != NULL && !b->oom && i < n; i++) {
      long long rank = m->ranks[i].rank >= 0 ? m->ranks[i].rank : (long long)i;
      ranks_row(b, t, d, rank, cols, ncols,
                rank >= 0 && (size_t)rank < n ? slow[rank] : 0, &tally);
    }
    free(slow);
    free(tally.items);
  }
}

/* The median of the ranks' times (the time each figure comes from). */
static double rank_time_median(const struct gcb_model_case *c) {
  double *t = malloc(c->ranks.n * sizeof *t + 1), m = NAN;
  size_t n = 0;
  for (size_t i = 0; t != NULL && i < c->ranks.n; i++) {
    double x = gcb_analyze_rank_time(c, i);
    if (!isnan(x))
      t[n++] = x;
  }
  if (t != NULL)
    m = gcb_stats_median(t, n); /* the sort's median, by selection */
  free(t);
  return m;
}

/* A time of case c as the tables show it: none (NAN, "-") when its work
 * is nominal (nvbandwidth states rates at an assumed size, never a time),
 * since the time would be derived from that size, not measured. */
static double measured_time(const struct gcb_model_case *c, double s) {
  return c->nominal_work ? NAN : s;
}

/* What the cases table shows of a case, in *v, and its unit: its figure
 * over ranks, or for a latency case (gcb_model_case_is_latency) the ranks'
 * times in us, since its GB/s says nothing. */
static const char *case_spread(const struct gcb_model_case *c,
                               struct gcb_model_summary *v) {
  struct gcb_imbalance im;
  *v = c->summary;
  if (c->nominal_work || !gcb_model_case_is_latency(c) ||
      !gcb_analyze_case_imbalance(c, &im))
    return c->unit;
  v->median = rank_time_median(c) * 1e6;
  v->mean = im.mean * 1e6;
  v->min = im.min * 1e6;
  v->max = im.max * 1e6;
  v->stdev = im.cv * im.mean * 1e6;
  v->min_rank = im.min_rank;
  v->max_rank = im.max_rank;
  return "us";
}

static void cases_table(struct gcb__tb *b) {
  static const char *const h[] = {
      "run", "case",      "unit",       "ranks",    "median",
      "min", "min rank",  "max",        "max rank", "stdev",
      "CV",  "imbalance", "validation", NULL};
  struct gcb_rtable *t = gcb__table_new(
      b, "cases", "Cases", "figures over ranks, each rank at its median time",
      h + (1 - run_col(b)));
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const struct gcb_model *m = model_of(b, d);
    for (size_t i = 0; i < m->ncases; i++) {
      const struct gcb_model_case *c = &m->cases[i];
      const struct gcb_model_summary *s = &c->summary;
      char **r = doc_row(b, t, s->wrong > 0 ? "fail" : NULL, d);
      struct gcb_model_summary v;
      const char *unit, *in_unit = case_spread(c, &v);
      double k = gcb_unit_scale(fabs(v.median), in_unit, &unit);
      gcb__cell(b, r, 0, "%s: %s", c->bench, c->label); /* the case title */
      gcb__cell(b, r, 1, "%s", unit);
      gcb__cell(b, r, 2, "%lld", s->ranks >= 0 ? s->ranks : 0);
      gcb__cell_num(b, r, 3, v.median * k);
      gcb__cell_num(b, r, 4, v.min * k);
      gcb__cell(b, r, 5, "%lld", v.min_rank);
      gcb__cell_num(b, r, 6, v.max * k);
      gcb__cell(b, r, 7, "%lld", v.max_rank);
      gcb__cell_num(b, r, 8, v.stdev * k);
      gcb__cell_pct(b, r, 9, v.mean > 0 ? v.stdev / v.mean : NAN, false);
      gcb__cell_pct(b, r, 10, s->imbalance, false);
      if (c->validation.wrong > 0)
        gcb__cell(b, r, 11, "FAIL (%lld wrong)", c->validation.wrong);
      else
        gcb__cell(b, r, 11, "%s",
                  c->validation.checked ? "ok" : "not validated");
    }
  }
}

/* The worst severity of the findings of document d that state case c's
 * imbalance, whose slowest rank is slowest_rank: the imbalance of its
 * sweep, or a finding that explains it (slow-rank and the like,
 * kinds.h's explains_imbalance) on that rank in that sweep, as the
 * imbalance rule keys them; -1 where none does. */
static int imbalance_blame(const struct gcb_findings *fs, size_t d,
                           const struct gcb_model *m,
                           const struct gcb_model_case *c,
                           long long slowest_rank) {
  int worst = -1;
  for (size_t i = 0; i < fs->n; i++) {
    const struct gcb_finding *f = &fs->items[i];
    const struct gcb_model_case *x = f->bench_case;
    /* x is one of this document's cases (findings of other documents and
     * compare's, which have none, are not) */
    if (f->where.doc != (int)d || x == NULL || x->index >= m->ncases ||
        &m->cases[x->index] != x || x->sweep != c->sweep)
      continue;
    if (f->kind->id == GCB_KIND_IMBALANCE ||
        (f->kind->explains_imbalance && f->where.rank == slowest_rank))
      worst = (int)f->severity > worst ? (int)f->severity : worst;
  }
  return worst;
}

/* A row is marked only where the verdict states its imbalance: one the
 * rules clear (a rooted collective's root, a training pattern's own
 * spread, a loop that lost its core once) keeps its figures and no mark. */
static void imbalance_table(struct gcb__tb *b) {
  static const char *const h[] = {
      "run",      "case", "ranks",    "[total]",   "<avg>", "min",
      "min rank", "max",  "max rank", "imbalance", "CV",    NULL};
  struct gcb_rtable *t = gcb__table_new(
      b, "imbalance", "Load balance",
      "per-rank times as IPM shows them: [total] over ranks, <avg>, min and "
      "max with their ranks; imbalance = (max - avg) / max",
      h + (1 - run_col(b)));
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    const struct gcb_model *m = model_of(b, d);
    for (size_t i = 0; i < m->ncases; i++) {
      const struct gcb_model_case *c = &m->cases[i];
      struct gcb_imbalance im;
      if (!gcb_analyze_case_imbalance(c, &im) || im.ranks < 2)
        continue;
      bool high = im.imbalance * 100 > b->rep->thresholds->imbalance_pct;
      int sev =
          high ? imbalance_blame(b->rep->findings, d, m, c, im.max_rank) : -1;
      char **r = doc_row(b, t,
                         sev == GCB_SEV_FAIL   ? "fail"
                         : sev == GCB_SEV_WARN ? "warn"
                                               : NULL,
                         d);
      gcb__cell(b, r, 0, "%s: %s", c->bench, c->label); /* the case title */
      gcb__cell(b, r, 1, "%zu", im.ranks);
      /* Nominal work: its ranks' times are not shown, their ratios
       * (imbalance, CV) hold whatever the size. */
      gcb__cell_time(b, r, 2, measured_time(c, im.total));
      gcb__cell_time(b, r, 3, measured_time(c, im.mean));
      gcb__cell_time(b, r, 4, measured_time(c, im.min));
      gcb__cell(b, r, 5, "%lld", im.min_rank);
      gcb__cell_time(b, r, 6, measured_time(c, im.max));
      gcb__cell(b, r, 7, "%lld", im.max_rank);
      gcb__cell_pct(b, r, 8, im.imbalance, false);
      gcb__cell_pct(b, r, 9, im.cv, false);
    }
  }
}

/* ---- collective sweeps -------------------------------------------------- */

/* In the nccl-tests layout: one table per sweep (one operation, type,
 * reduction, root and transport of one run), one row per message size,
 * out-of-place and in-place side by side with nccl-tests' columns (time
 * in microseconds, algbw, busbw in GB/s, #wrong), followed by what
 * nccl-tests does not measure: the rank that arrived latest on average,
 * and by how much; and, where the analysis found a row off its
 * neighbours' trend or above its latency floor (rules_trend.c), a note
 * column that marks it. Files converted from nccl-tests' JSON show the
 * same way. */

/* A finding on a sweep row (rules_trend.c): the analysis decides which
 * rows are off; the table only marks them. */
static bool row_kind(const struct gcb_finding *f) {
  return f->kind == GCB_KIND(SWEEP_TREND) || f->kind == GCB_KIND(LATENCY_FLOOR);
}

/* Whether a finding of document d marks a row of sweep k. */
static bool sweep_marked(const struct gcb__tb *b, size_t d, size_t k) {
  const struct gcb_findings *fs = b->rep->findings;
  for (size_t i = 0; fs != NULL && i < fs->n; i++) {
    const struct gcb_finding *f = &fs->items[i];
    if (row_kind(f) && f->where.doc == (int)d && f->bench_case != NULL &&
        f->bench_case->sweep == k)
      return true;
  }
  return false;
}

/* The note on the row's half (out-of-place or in-place): "▲ off trend:
 * 46 us vs 23 us on its neighbours' line (2.00x)", appended to what the
 * other half wrote. Returns whether the case is marked. */
static bool row_note(struct gcb__tb *b, char **r, size_t col, size_t d,
                     const struct gcb_model_case *c) {
  const struct gcb_findings *fs = b->rep->findings;
  bool marked = false;
  for (size_t i = 0; fs != NULL && i < fs->n; i++) {
    const struct gcb_finding *f = &fs->items[i];
    if (!row_kind(f) || f->where.doc != (int)d || f->bench_case != c)
      continue;
    char m[32], e[32];
    gcb_view_fmt_time(f->measured / 1e6, m, sizeof m);
    gcb_view_fmt_time(f->expected / 1e6, e, sizeof e);
    bool trend = f->kind == GCB_KIND(SWEEP_TREND);
    gcb__cell_add(b, r, col, "; ", "\xe2\x96\xb2 %s%s: %s vs %s %s (%.2fx)",
                  gcb_analyze_case_in_place(c) ? "in-place " : "",
                  trend ? "off trend" : "above latency floor", m, e,
                  trend ? "on its neighbours' line" : "floor",
                  f->measured / f->expected);
    marked = true;
  }
  return marked;
}

/* "Collective allreduce float sum (host: MPICH 4.0.2 ch4:ucx; UCX_TLS=sm)":
 * on the host backend, whose transport is MPI, the library, device and
 * transport settings the document records (gcb_view_mpi_line, as the live
 * table's header names them). */
static char *sweep_title(const struct gcb_model *m,
                         const struct gcb_model_case *c, size_t run,
                         size_t nruns) {
  const char *redop = gcb_model_param_str(c, "redop");
  bool host = strcmp(c->backend, "host") == 0,
       red = redop[0] && strcmp(redop, "none");
  size_t n = host ? gcb_view_mpi_line_model(m, NULL, 0) : 0;
  char pre[32] = "", *mpi = malloc(n + 1);
  if (mpi == NULL)
    return NULL;
  mpi[0] = '\0';
  if (host)
    gcb_view_mpi_line_model(m, mpi, n + 1);
  if (nruns > 1)
    snprintf(pre, sizeof pre, "run %zu: ", run + 1);
  const char *fmt = "%sCollective %s %s%s%s (%s%s%s)";
  const char *type = gcb_model_param_str(c, "type");
  int len = snprintf(NULL, 0, fmt, pre, c->op, type, red ? " " : "",
                     red ? redop : "", c->backend, mpi[0] ? ": " : "", mpi);
  char *title = len < 0 ? NULL : malloc((size_t)len + 1);
  if (title != NULL)
    snprintf(title, (size_t)len + 1, fmt, pre, c->op, type, red ? " " : "",
             red ? redop : "", c->backend, mpi[0] ? ": " : "", mpi);
  free(mpi);
  return title;
}

/* The row of size `bytes` in t (rows are kept in order of first sight),
 * or a new one; sizes has room for a row per case of the document. */
static char **size_row(struct gcb__tb *b, struct gcb_rtable *t, double *sizes,
                       double bytes) {
  for (size_t r = 0; r < t->nrows; r++)
    if (sizes[r] == bytes)
      return &t->cells[(r + 1) * t->ncols];
  char **row = gcb__table_row(b, t, NULL);
  if (row != NULL)
    sizes[t->nrows - 1] = bytes;
  return row;
}

static void param_cell(struct gcb__tb *b, char **r, size_t col,
                       const struct gcb_model_case *c, const char *key) {
  const struct gcb_mvalue *v = gcb_mvalue_get(&c->params, key);
  if (v->type == GCB_MV_STRING)
    gcb__cell(b, r, col, "%s", v->text);
  else if (v->type == GCB_MV_INT || v->type == GCB_MV_REAL)
    gcb__cell(b, r, col, "%.17g", v->num);
  else
    gcb__cell(b, r, col, "-");
}

/* A time in microseconds as nccl-tests prints it (2, 1 or 0 decimals as
 * it grows), so numbers can be compared digit for digit. */
static void cell_us(struct gcb__tb *b, char **r, size_t col, double us) {
  gcb__cell_if(b, r, col, !isnan(us),
               us >= 10000 ? "%.0f"
               : us >= 100 ? "%.1f"
                           : "%.2f",
               us);
}

/* Fills one half (out-of-place at 5, in-place at 10) of a size row;
 * returns whether the case had wrong results. */
static bool fill(struct gcb__tb *b, char **r, const struct gcb_model_case *c) {
  const struct gcb_model_summary *s = &c->summary;
  size_t at = gcb_analyze_case_in_place(c) ? 10 : 5;
  static const char *const keys[] = {"size", "count", "type", "redop", "root"};
  for (size_t k = 0; k < 5; k++)
    param_cell(b, r, k, c, keys[k]);
  cell_us(b, r, at, measured_time(c, s->time_mean) * 1e6);
  /* "38.93-39.71": the fastest and slowest rank's time, in microseconds;
   * bandwidths with nccl-tests' two decimals */
  double lo = measured_time(c, s->time_min) * 1e6, hi = s->time_max * 1e6;
  gcb__cell_if(b, r, at + 1, !isnan(lo) && !isnan(hi), "%.4g-%.4g", lo, hi);
  gcb__cell_if(b, r, at + 2, !isnan(s->algbw), "%.2f", s->algbw);
  gcb__cell_if(b, r, at + 3, !isnan(s->busbw), "%.2f", s->busbw);
  long long wrong = isnan(s->wrong) ? 0 : (long long)s->wrong;
  if (c->validation.checked)
    gcb__cell(b, r, at + 4, "%lld", wrong);
  else
    gcb__cell(b, r, at + 4, "N/A");
  if (s->late_rank >= 0 && !gcb_analyze_case_in_place(c)) {
    gcb__cell(b, r, 15, "%lld", s->late_rank);
    cell_us(b, r, 16, s->late_mean_s * 1e6);
  }
  return wrong > 0;
}

#define INTRO                                                                  \
  "nccl-tests layout, out-of-place then in-place: time is the mean over "      \
  "ranks of each rank's mean, ranks the fastest and slowest rank's, "          \
  "GB = 1e9 B; latest rank: the one the others waited for (out-of-place)"

/* The table of document d's sweep whose first case is `first`. */
static void sweep_table(struct gcb__tb *b, size_t d,
                        const struct gcb_model_case *first, size_t index) {
  size_t k = first->sweep;
  /* A note column after the rest only where the analysis marked a row. */
  const char *h[19] = {
      "size (B)",     "count (elements)", "type",       "redop",
      "root",         "time (us)",        "ranks (us)", "algbw (GB/s)",
      "busbw (GB/s)", "#wrong",           "time (us)",  "ranks (us)",
      "algbw (GB/s)", "busbw (GB/s)",     "#wrong",     "latest rank",
      "lateness (us)"};
  bool marks = sweep_marked(b, d, k);
  h[17] = marks ? "note" : NULL;
  char id[32];
  const struct gcb_model *m = model_of(b, d);
  snprintf(id, sizeof id, "coll-%zu", index + 1);
  char *title = sweep_title(m, first, d, b->rep->ndocs);
  b->oom |= title == NULL;
  struct gcb_rtable *t = gcb__table_new(
      b, id, title != NULL ? title : "",
      marks ? INTRO "; \xe2\x96\xb2 marks a row far off its neighbours' "
                    "log-log trend or its latency floor (see findings)"
            : INTRO,
      h);
  free(title);
  double *sizes = malloc((m->ncases + 1) * sizeof *sizes);
  b->oom |= sizes == NULL;
  for (size_t i = 0; t != NULL && sizes != NULL && i < m->ncases; i++) {
    const struct gcb_model_case *c = &m->cases[i];
    char **r = c->sweep == k ? size_row(b, t, sizes, c->size) : NULL;
    if (r == NULL)
      continue;
    size_t row = (size_t)(r - t->cells) / t->ncols - 1;
    if (fill(b, r, c))
      t->row_class[row] = "fail";
    /* The HTML class: the row's state, then off-trend (rendered bold). */
    if (marks && row_note(b, r, 17, d, c))
      t->row_class[row] =
          t->row_class[row] != NULL && strstr(t->row_class[row], "fail")
              ? "fail off-trend"
              : "warn off-trend";
  }
  free(sizes);
}

/* A table per collective sweep, in the order of their first cases. */
static void coll_tables(struct gcb__tb *b) {
  size_t index = 0;
  for (size_t d = 0; d < b->rep->ndocs && !b->oom; d++) {
    const struct gcb_model *m = model_of(b, d);
    for (size_t i = 0; i < m->ncases && !b->oom; i++)
      if (m->cases[i].kind == GCB_BENCH_COLL && m->cases[i].sweep == i)
        sweep_table(b, d, &m->cases[i], index++);
  }
}

/* ---- the network map ---------------------------------------------------- */

/* Netmap cases (docs/MULTINODE.md): per document and schedule, the rank x
 * rank bandwidth matrix and the latency matrix, rows the sender and
 * columns the receiver, each named by rank and host; then each node's
 * aggregates over its pairs with other nodes against the pairs without
 * it, which is how a slow host link stands out from one slow path.
 * Matrices stop at MAX_MATRIX ranks: past it the per-node table, on one
 * node too, is their heatmap's section and says they are left out. The
 * node pairs (SuperBench's pattern) are one node x node matrix of
 * sendrecv busbw, the same both ways, and their per-node table. */

#define MAX_MATRIX 64 /* as the per-node table's note says */
#define NODES_INTRO                                                            \
  "each node's pairs with other nodes against the inter-node pairs "           \
  "without it; every pair slow is its own link"

const char *const gcb__netmap_schedules[] = {"alone", "together", "nodepairs",
                                             NULL};

/* One matrix of at most MAX_MATRIX ranks: `lat` picks latency (seconds)
 * over bandwidth (GB/s). */
static void netmap_matrix(struct gcb__tb *b, size_t d, const char *schedule,
                          const struct gcb_netmap *m, bool lat) {
  int n = m->n;
  char id[48], title[96];
  const char *h[MAX_MATRIX + 2] = {NULL};
  h[0] = lat          ? "latency, row to column"
         : m->by_node ? "busbw GB/s, node pair"
                      : "GB/s, row to column";
  for (int r = 0; r < n; r++)
    h[r + 1] = ""; /* named below, host names whole */
  snprintf(id, sizeof id, "netmap-%s-%s-%zu", lat ? "lat" : "bw", schedule, d);
  snprintf(title, sizeof title, "Network map: %s, %s (run %zu)",
           lat ? "latency" : "bandwidth", schedule, d + 1);
  struct gcb_rtable *t = gcb__table_new(
      b, id, title,
      lat ? "one-way latency (half a ping-pong) from the row's rank to the "
            "column's"
      : m->by_node
          ? "every node pair once (SuperBench's node pairs): sendrecv busbw "
            "between the row's node and the column's, local rank i to local "
            "rank i"
          : "bandwidth from the row's rank to the column's, one way",
      h);
  for (int r = 0; t != NULL && r < n; r++) {
    if (m->by_node)
      gcb__cell(b, t->cells, (size_t)r + 1, "%s", m->host[r]);
    else
      gcb__cell(b, t->cells, (size_t)r + 1, "%d %s", r, m->host[r]);
  }
  for (int s = 0; t != NULL && s < n; s++) {
    char **row = gcb__table_row(b, t, NULL);
    gcb__cell(b, row, 0, "%s", t->cells[s + 1]);
    for (int x = 0; x < n; x++) {
      double v = (lat ? m->lat : m->bw)[s * n + x];
      if (lat)
        gcb__cell_time(b, row, (size_t)x + 1, v);
      else
        gcb__cell_num(b, row, (size_t)x + 1, v);
      if (s == x)
        gcb__cell(b, row, (size_t)x + 1, "-");
    }
  }
}

static void netmap_nodes_table(struct gcb__tb *b, size_t d,
                               const char *schedule,
                               const struct gcb_netmap *m) {
  static const char *const h[] = {
      "node",        "host",         "ranks", "pairs",          "slow",
      "median GB/s", "others' GB/s", "share", "median latency", NULL};
  struct gcb_netmap_node *agg = calloc((size_t)m->nodes + 1, sizeof *agg);
  if (agg == NULL ||
      !gcb_netmap_nodes(m, b->rep->thresholds->link_pct / 100, agg)) {
    free(agg);
    b->oom = true;
    return;
  }
  char id[48], title[96];
  snprintf(id, sizeof id, "netmap-nodes-%s-%zu", schedule, d);
  snprintf(title, sizeof title, "Network map per node: %s (run %zu)", schedule,
           d + 1);
  struct gcb_rtable *t = gcb__table_new(
      b, id, title,
      m->n <= MAX_MATRIX ? NODES_INTRO
      : m->by_node
          ? NODES_INTRO "; the node x node matrix is not shown as a table "
                        "(more than 64 nodes; see the heatmap)"
          : NODES_INTRO "; the rank x rank matrices are not shown as tables "
                        "(more than 64 ranks; see the heatmap)",
      h);
  for (int i = 0; t != NULL && i < m->nodes; i++) {
    const struct gcb_netmap_node *a = &agg[i];
    bool all = a->pairs > 0 && a->slow == a->pairs && m->nodes >= 3;
    char **row = gcb__table_row(b, t, all ? "fail" : a->slow ? "warn" : NULL);
    const char *host = "";
    char ranks[96] = "";
    size_t len = 0;
    for (int r = 0; r < m->n; r++) {
      if (m->node[r] != i)
        continue;
      host = m->host[r];
      if (len + 12 >= sizeof ranks) { /* the rest does not fit: say so */
        snprintf(ranks + len, sizeof ranks - len, ",...");
        break;
      }
      len += (size_t)snprintf(ranks + len, sizeof ranks - len, "%s%d",
                              len ? "," : "", m->rank ? m->rank[r] : r);
    }
    gcb__cell(b, row, 0, "%d", i);
    gcb__cell(b, row, 1, "%s", host);
    gcb__cell(b, row, 2, "%s", ranks);
    gcb__cell(b, row, 3, "%d", a->pairs);
    gcb__cell(b, row, 4, "%d", a->slow);
    gcb__cell_num(b, row, 5, a->bw_median);
    gcb__cell_num(b, row, 6, a->others_median);
    gcb__cell_pct(b, row, 7, a->bw_median / a->others_median, false);
    gcb__cell_time(b, row, 8, a->lat_median);
  }
  free(agg);
}

bool gcb__netmap_home(const struct gcb_netmap *m, size_t doc,
                      const char *schedule, char *id, size_t size) {
  snprintf(id, size, "netmap-%s-%s-%zu", m->n <= MAX_MATRIX ? "bw" : "nodes",
           schedule, doc);
  return true;
}

/* A map the document has but that was not built (m->unbuilt rows): a
 * row that says so, where its tables would be. */
static void netmap_unbuilt(struct gcb__tb *b, size_t d, const char *schedule,
                           const struct gcb_netmap *m) {
  static const char *const h[] = {"schedule", "rows", "not built", NULL};
  char id[48], title[96];
  snprintf(id, sizeof id, "netmap-%s-%zu", schedule, d);
  snprintf(title, sizeof title, "Network map: %s (run %zu)", schedule, d + 1);
  struct gcb_rtable *t = gcb__table_new(
      b, id, title,
      "the map was not built: no matrix or per-node table, its links and "
      "paths not judged (see findings)",
      h);
  char **row = gcb__table_row(b, t, "info");
  gcb__cell(b, row, 0, "%s", schedule);
  gcb__cell(b, row, 1, "%d %s", m->unbuilt,
            strcmp(schedule, "nodepairs") == 0 ? "nodes" : "ranks");
  if (m->unbuilt > GCB_NETMAP_MAX_ROWS)
    gcb__cell(b, row, 2, "more than the %d a matrix is built for",
              GCB_NETMAP_MAX_ROWS);
  else
    gcb__cell(b, row, 2, "out of memory");
}

static void netmap_tables(struct gcb__tb *b) {
  for (size_t d = 0; d < b->rep->ndocs; d++)
    for (const char *const *s = gcb__netmap_schedules; *s != NULL; s++) {
      struct gcb_netmap m;
      if (!gcb_netmap_read_model(model_of(b, d), *s, &m)) {
        if (m.unbuilt > 0)
          netmap_unbuilt(b, d, *s, &m);
        continue;
      }
      if (m.n <= MAX_MATRIX) {
        netmap_matrix(b, d, *s, &m, false);
        if (!m.by_node) /* node pairs: bandwidth only */
          netmap_matrix(b, d, *s, &m, true);
      }
      if (m.nodes >= 2 || m.n > MAX_MATRIX)
        netmap_nodes_table(b, d, *s, &m);
      gcb_netmap_free(&m);
    }
}

/* ---- training patterns -------------------------------------------------- */

/* One summary table (a row per pattern variant: where its group lands,
 * step, compute, communication, exposed communication, overlap, the
 * straggler and its cost, imbalance, bubble, the cost of skew and of
 * placement; the terminal's row, in the same cells), then a section per
 * variant with the step broken down per rank into compute, exposed
 * communication and bubble, as a bar of characters (# compute, = exposed
 * communication, . bubble) scaled to the slowest rank's step, the
 * straggler marked. Figures come from the pattern view
 * (reports/analysis/pattern_view.h; docs/PATTERNS.md). */

#define BAR 30
static void ms_cell(struct gcb__tb *b, char **r, size_t col, double s) {
  char text[32];
  gcb_pattern_fmt_ms(s, text, sizeof text);
  gcb__cell(b, r, col, "%s", text);
}

static void pattern_row(struct gcb__tb *b, struct gcb_rtable *t, size_t d,
                        const struct gcb_pattern_group *g) {
  char **r = doc_row(b, t, NULL, d);
  gcb__cell(b, r, 0, "%s", g->title);
  gcb__cell(b, r, 1, "%s", g->span[0] ? g->span : "-");
  gcb__cell(b, r, 2, "%zu", g->nranks);
  ms_cell(b, r, 3, g->step_mean);
  ms_cell(b, r, 4, g->compute_mean);
  ms_cell(b, r, 5, g->comm_mean);
  ms_cell(b, r, 6, g->exposed);
  char text[48];
  gcb_pattern_fmt_overlap(g->measurable, g->overlap, g->overlap_noise, text,
                          sizeof text);
  gcb__cell(b, r, 7, "%s", text);
  struct gcb_place p;
  bool even = gcb_pattern_group_even(g);
  if (!even) {
    gcb__cell(b, r, 8, "- (skew)");
  } else if (g->straggler >= 0) {
    gcb_model_place(model_of(b, d), g->straggler, &p);
    char gpu[32] = "";
    if (p.gpu >= 0)
      snprintf(gpu, sizeof gpu, ", GPU %lld", p.gpu);
    gcb__cell(b, r, 8, "%lld (%s%s)", g->straggler,
              p.hostname[0] ? p.hostname : "?", gpu);
  } else {
    gcb__cell(b, r, 8, "-");
  }
  gcb_pattern_fmt_pct(even ? g->busy_imbalance : NAN, text, sizeof text);
  gcb__cell(b, r, 9, "%s", text);
  gcb__cell_pct(b, r, 10, g->step_imbalance, false);
  gcb__cell_pct(b, r, 11, g->bubble_mean, false);
  gcb__cell_pct(b, r, 12, g->ideal_bubble, false);
  gcb__cell_pct(b, r, 13, g->skew_cost, true);
  gcb__cell_pct(b, r, 14, g->placement_cost, true);
}

/* "#####===.." for one rank, scaled to `longest`. */
static void step_bar(const struct gcb_pattern_rank *r, double longest,
                     char *out) {
  const double parts[3] = {r->bar_compute, r->bar_exposed, r->bar_bubble};
  const char marks[3] = {'#', '=', '.'};
  size_t n = 0;
  for (int k = 0; k < 3 && longest > 0; k++) {
    if (isnan(parts[k]) || parts[k] <= 0)
      continue;
    size_t w = (size_t)lround(BAR * parts[k] / longest);
    for (size_t i = 0; i < w && n < BAR; i++)
      out[n++] = marks[k];
  }
  out[n] = '\0';
}

static void pattern_rank_table(struct gcb__tb *b, size_t d, size_t index,
                               const struct gcb_pattern_group *g) {
  static const char *const h[] = {"rank",
                                  "node",
                                  "GPU",
                                  "compute alone (ms)",
                                  "comm alone (ms)",
                                  "step (ms)",
                                  "exposed comm (ms)",
                                  "bubble (ms)",
                                  "step breakdown",
                                  "overlap (0-1)",
                                  "compute slowdown",
                                  "comm slowdown (at least)",
                                  NULL};
  char id[48], title[160];
  snprintf(id, sizeof id, "pattern-%zu-%zu", d + 1, index + 1);
  snprintf(title, sizeof title, "Pattern %s%s: step per rank", g->title,
           g->span[0]
               ? (strcmp(g->span, "intra-node") == 0 ? " (groups inside a node)"
                                                     : " (groups across nodes)")
               : "");
  struct gcb_rtable *t = gcb__table_new(
      b, id, title,
      "compute, exposed communication and bubble of one step (# = . in the "
      "bar, scaled to the slowest step); exposed comm = step - compute "
      "alone, at least 0; overlap = (compute + comm - step) / min(compute, "
      "comm) within [0, 1] with its noise, no overlap measurable when the "
      "noise "
      "is larger (docs/PATTERNS.md); slowdowns: each part within the step "
      "against it alone",
      h);
  double longest = 0;
  for (size_t i = 0; i < g->nranks; i++)
    longest = fmax(longest, g->ranks[i].t[GCB_PART_STEP]);
  for (size_t i = 0; t != NULL && i < g->nranks; i++) {
    const struct gcb_pattern_rank *pr = &g->ranks[i];
    bool slow =
        pr->rank == g->straggler &&
        gcb_pattern_group_straggles(g, b->rep->thresholds->imbalance_pct);
    char **r = gcb__table_row(b, t, slow ? "warn" : NULL);
    struct gcb_place p;
    gcb_model_place(model_of(b, d), pr->rank, &p);
    char line[BAR + 1];
    step_bar(pr, longest, line);
    gcb__cell(b, r, 0, "%lld%s", pr->rank, slow ? " (straggler)" : "");
    gcb__cell(b, r, 1, "%s", p.hostname[0] ? p.hostname : "-");
    gcb__cell_if(b, r, 2, p.gpu >= 0, "%lld", p.gpu);
    for (int k = 0; k < 3; k++)
      ms_cell(b, r, 3 + (size_t)k, pr->t[k]);
    ms_cell(b, r, 6, pr->bar_exposed);
    ms_cell(b, r, 7, pr->bar_bubble);
    gcb__cell(b, r, 8, "|%s", line);
    char text[48];
    gcb_pattern_fmt_overlap(pr->measurable, pr->overlap, pr->overlap_noise,
                            text, sizeof text);
    gcb__cell(b, r, 9, "%s", text);
    gcb__cell_pct(b, r, 10, pr->comp_slowdown, true);
    gcb__cell_pct(b, r, 11, pr->comm_slowdown, true);
  }
}

static void pattern_tables(struct gcb__tb *b) {
  static const char *const h[] = {"run",
                                  "pattern",
                                  "groups",
                                  "ranks",
                                  "step (ms)",
                                  "compute (ms)",
                                  "comm (ms)",
                                  "exposed comm (ms)",
                                  "overlap (0-1)",
                                  "straggler rank",
                                  "straggler cost",
                                  "step imbalance",
                                  "bubble",
                                  "ideal bubble",
                                  "skew cost",
                                  "placement cost",
                                  NULL};
  struct gcb_rtable *t = gcb__table_new(
      b, "patterns", "Training patterns",
      "one training step per pattern (gcbench pattern, the same figures as "
      "its terminal table): times are means over ranks of each rank's "
      "median; compute and comm alone were measured interleaved with the "
      "step; exposed comm = step - compute, at least 0; overlap = (compute "
      "+ comm - step) / min(compute, comm) within [0, 1] with its noise; "
      "the straggler computes the most within the step, its cost (max - "
      "mean) / max of that compute (none under routing skew, where the hot "
      "experts' rank computes more by design); skew and placement costs "
      "compare with "
      "uniform routing and with tensor parallelism inside a node "
      "(docs/PATTERNS.md)",
      h + (1 - run_col(b)));
  /* By its place: the per-rank tables added after each document's rows
   * grow the list of tables, which may move it. */
  size_t at = b->out->n - 1;
  for (size_t d = 0; t != NULL && d < b->rep->ndocs; d++) {
    struct gcb_pattern_groups gs;
    struct gcb_err err = {0};
    if (gcb_pattern_groups_build_model(model_of(b, d), &gs, &err) != GCB_OK) {
      b->oom = true;
      return;
    }
    for (size_t i = 0; i < gs.n; i++)
      pattern_row(b, &b->out->items[at], d, &gs.items[i]);
    for (size_t i = 0; i < gs.n; i++)
      pattern_rank_table(b, d, i, &gs.items[i]);
    gcb_pattern_groups_free(&gs);
  }
}

/* ---- burn-in ------------------------------------------------------------ */

/* One table per `gcbench burn` case, a row per rank with its sustained
 * figure (median interval) against its peak (best interval) and against
 * its peers, the onset, drop and cause of a fall that stays down, its
 * wrong products and the error counters that grew. Rows are classed by
 * the rank's burn findings (a burn-node finding classes every rank of its
 * node), so the table and the findings agree. Figures come from the
 * timeline (reports/analysis/burn.h). */

/* The worst burn finding about rank r (or its node) of case c: "fail",
 * "warn" or NULL. */
static const char *burn_class(const struct gcb__tb *b,
                              const struct gcb_model_case *c,
                              const struct gcb_burn_rank *r) {
  int worst = -1;
  const struct gcb_findings *fs = b->rep->findings;
  for (size_t i = 0; fs != NULL && i < fs->n; i++) {
    const struct gcb_finding *f = &fs->items[i];
    if (f->bench_case != c ||
        f->kind->benches != GCB_BENCH_BIT(GCB_BENCH_BURN) ||
        f->severity == GCB_SEV_INFO)
      continue;
    bool mine = f->kind->id == GCB_KIND_BURN_NODE ? f->where.node == r->node
                                                  : f->where.rank == r->rank;
    if (mine && (int)f->severity > worst)
      worst = (int)f->severity;
  }
  return worst < 0 ? NULL : gcb_severity_name((enum gcb_severity)worst);
}

static void burn_row(struct gcb__tb *b, struct gcb_rtable *t, size_t d,
                     const struct gcb_model_case *c,
                     const struct gcb_burn_rank *r, double peers) {
  struct gcb_place p;
  gcb_model_place(model_of(b, d), r->rank, &p);
  char **row = doc_row(b, t, burn_class(b, c, r), d);
  gcb__cell(b, row, 0, "%lld", r->rank);
  gcb__cell(b, row, 1, "%s", p.hostname[0] ? p.hostname : "-");
  gcb__cell_if(b, row, 2, p.gpu >= 0, "%lld", p.gpu);
  gcb__cell_figure(b, row, 3, r->sustained, NAN, c->unit);
  gcb__cell_figure(b, row, 4, r->peak, NAN, c->unit);
  gcb__cell_pct(b, row, 5, r->sustained / r->peak, false);
  gcb__cell_pct(b, row, 6, r->sustained / peers - 1, true);
  char text[64];
  bool fell = r->onset >= 0;
  gcb_burn_fmt_duration(r->onset_s, text, sizeof text);
  gcb__cell_if(b, row, 7, fell, "%s", text);
  gcb__cell_pct(b, row, 8, fell ? -r->drop : NAN, true);
  gcb__cell_if(b, row, 9, fell, "%s", gcb_burn_cause_name(r->cause));
  gcb__cell(b, row, 10, "%.0f", r->wrong);
  for (size_t k = 0; k < GCB_BURN_NCOUNTERS; k++) /* "DBE +2, SBE +5" */
    if (r->grew[k] > 0)
      gcb__cell_add(b, row, 11, ", ", "%s +%.0f",
                    gcb_burn_counters[k].short_name, r->grew[k]);
  if (row != NULL && row[11] == NULL) /* none grew */
    gcb__cell(b, row, 11, "-");
}

static void burn_table(struct gcb__tb *b, size_t d,
                       const struct gcb_burn_case *k) {
  static const char *const h[] = {
      "run",      "rank",  "host", "GPU",   "sustained", "peak",     "of peak",
      "vs peers", "onset", "drop", "cause", "wrong",     "counters", NULL};
  const struct gcb_model_case *c = &model_of(b, d)->cases[k->index];
  const struct gcb_burn_timeline *tl = &k->tl;
  char id[48], title[288], label[160], span[32];
  gcb_model_case_title(c, label, sizeof label);
  const char *what = strncmp(label, "burn: ", 6) == 0 ? label + 6 : label;
  gcb_burn_fmt_duration(gcb_burn_end_s(tl, tl->n - 1), span, sizeof span);
  snprintf(id, sizeof id, "burn-%zu-%zu", d, k->index);
  snprintf(title, sizeof title, "Burn-in %s, %ld intervals of %g s (%s)", what,
           tl->n, tl->interval_s, span);
  struct gcb_rtable *t = gcb__table_new(
      b, id, title,
      "per rank: sustained is the median interval, peak the best one; "
      "onset, drop and cause of a fall that stays down, wrong products "
      "and the error counters that grew (docs/REPORTS.md, Burn-in)",
      h + 1 - run_col(b));
  for (size_t i = 0; t != NULL && i < (size_t)tl->nranks; i++)
    burn_row(b, t, d, c, &k->ranks[i], k->peers);
}

static void burn_tables(struct gcb__tb *b) {
  for (size_t d = 0; d < b->rep->ndocs && !b->oom; d++) {
    struct gcb_burn_doc own;
    struct gcb_err err = {0};
    const struct gcb_burn_doc *bd =
        gcb_burn_doc_of(&b->rep->docs[d], b->rep->thresholds, &own, &err);
    b->oom = bd == NULL;
    for (size_t i = 0; bd != NULL && i < bd->n && !b->oom; i++)
      burn_table(b, d, &bd->cases[i]);
    gcb_burn_doc_free(&own);
  }
}

/* ---- the report's tables ------------------------------------------------ */

/* The report's tables in the order the reports show them: the verdict's
 * first. */
static void (*const builders[])(struct gcb__tb *) = {
    gcb__verdict_tables, runs_table,     launch_table,      libraries_table,
    findings_table,      checks_table,   comparison_tables, gpus_table,
    ranks_table,         cases_table,    imbalance_table,   coll_tables,
    netmap_tables,       pattern_tables, burn_tables};

enum gcb_status gcb_report_tables(const struct gcb_report *rep,
                                  struct gcb_rtables *out,
                                  struct gcb_err *err) {
  /* The tables judge by the report's thresholds, else the analysis'
   * defaults (a report may be rendered without them). */
  struct gcb_thresholds def;
  struct gcb_report with = *rep;
  if (with.thresholds == NULL) {
    gcb_thresholds_default(&def);
    with.thresholds = &def;
  }
  struct gcb__tb b = {.rep = &with, .out = out};
  for (size_t i = 0; i < sizeof builders / sizeof *builders; i++)
    builders[i](&b);
  return gcb__tables_done(&b, err);
}

enum gcb_status gcb_report_comparison_tables(const struct gcb_report *rep,
                                             struct gcb_rtables *out,
                                             struct gcb_err *err) {
  struct gcb__tb b = {.rep = rep, .out = out};
  comparison_tables(&b);
  return gcb__tables_done(&b, err);
}

enum gcb_status gcb_report_tables_use(const struct gcb_report *rep,
                                      struct gcb_rtables *own,
                                      const struct gcb_rtables **out,
                                      struct gcb_err *err) {
  *out = rep->tables;
  if (*out != NULL)
    return GCB_OK;
  *out = own;
  return gcb_report_tables(rep, own, err);
}
