/*
 * The live table: what a person watches while a run goes on, rank 0's sink
 * of finished cases (table.h). One header per group (a benchmark, or one
 * collective of coll), one aligned row per case with every number carrying
 * its unit. A record is laid out in one of four ways: a rate row (gemm,
 * membw and the like); nccl-tests' rows or OSU's, column for column, for a
 * collective (coll --layout); the pattern benchmark's summary of a training
 * step. Transient progress text appears only on a terminal, so piped output
 * stays a clean table.
 *
 * The parts, each calling only those above it: the cells and streams every
 * layout shares; closing a group (each layout's footer, which a new group's
 * header first prints); the four layouts' headers and rows; the sink that
 * sends each record to its layout, and the progress line.
 */
#include "bench/run/table.h"
#include "common/clock.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/benches/osu_options.h"
#include "bench/cli/options.h"
#include "collectives/comm.h"

/* ---- cells and streams every layout shares --------------------------------*/

void gcb_format_seconds(double s, char *buf, size_t len) {
  static const struct {
    double scale;
    const char *unit;
  } units[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
  size_t i = 0;
  while (i + 1 < sizeof units / sizeof *units && s < units[i].scale)
    i++;
  snprintf(buf, len, "%.4g %s", s / units[i].scale, units[i].unit);
}

/* Where gcbench's own lines go (stderr under a nccl-tests program name). */
static FILE *own(const struct gcb_table *t) {
  return t->own ? t->own : t->out;
}

static void erase_progress(struct gcb_table *t) {
  if (t->progress)
    fputs("\r\033[K", stderr);
}

/* The validation cell: "ok (0 wrong)", "FAILED (3 wrong)", "not checked". */
static void check_cell(const struct gcb_record_summary *sum, char *buf,
                       size_t len) {
  if (!sum->checked)
    snprintf(buf, len, "not checked");
  else
    snprintf(buf, len, "%s (%" PRIu64 " wrong)", sum->wrong ? "FAILED" : "ok",
             sum->wrong);
}

static void flush_skips(struct gcb_table *t) {
  if (t->skip_repeats > 0)
    fprintf(own(t), "#   (and %d more case(s) skipped for the same reason)\n",
            t->skip_repeats);
  t->skip_repeats = 0;
  t->last_skip[0] = '\0';
}

double gcb__table_initiators_mean(const struct gcb_record *rec) {
  int half = rec->nranks / 2;
  double sum = 0;
  if (half < 1)
    return rec->nranks > 0 ? rec->ranks[0].time_s : 0;
  for (int r = 0; r < half; r++)
    sum += rec->ranks[r].time_s;
  return sum / half;
}

/* ---- closing a group: each layout's last lines ----------------------------*/

/* A group ends when the next begins (enter_group) and when the run does:
 * the skips still counted, nccl-tests' footer (with gcbench's latest
 * arrival), the pattern benchmark's last variant row and its part rows,
 * the shape sweeps' best shapes. */

/* The sweeps' footer: one line per element type. */
static void sweep_flush(struct gcb_table *t, const char *unit) {
  for (int i = 0; i < t->nsweeps; i++) {
    const struct gcb_sweep_best *b = &t->sweep[i];
    fprintf(t->out,
            "# best shape of %d measured (of %d), %s: median %.2f %s at %s; "
            "max %.2f %s at %s\n",
            b->seen, b->shapes, b->what, b->median, unit, b->at_median, b->max,
            unit, b->at_max);
  }
  t->nsweeps = 0;
}

/* Prints a waiting out-of-place half with an empty in-place half. */
static void coll_flush_row(struct gcb_table *t) {
  if (!t->pending)
    return;
  fprintf(t->out, "%s%s\n", t->pending_row, t->pending_extra);
  t->pending = false;
}

/* nccl-tests' footer of the collective that ends (writeResultFooter), then
 * gcbench's latest arrival, on its own stream. */
static void coll_flush(struct gcb_table *t) {
  coll_flush_row(t);
  struct gcb_coll_totals *c = &t->coll;
  if (c->rows == 0)
    return;
  /* nccl-tests' writeResultFooter, with no -a bandwidth check: "%g " */
  fprintf(t->out, "# %-20s : %" PRIu64 " %s\n", "Out of bounds values",
          c->wrong, c->wrong ? "FAILED" : "OK");
  fprintf(t->out, "# %-20s : %g %s\n", "Avg bus bandwidth",
          c->busbw_sum / c->rows, "");
  fprintf(t->out, "#\n");
  fprintf(t->out, "# Collective test concluded: %s\n",
          c->program[0] ? c->program : "coll");
  if (c->late_rank >= 0) {
    char who[200] = "";
    if (t->rank_names && c->late_rank < t->nranks)
      gcb_text_shown(who, sizeof who, t->rank_names[c->late_rank]);
    fprintf(own(t),
            "# Latest arrival       : rank %d%s%s%s, %.2f us late on average "
            "(max %.2f us)\n",
            c->late_rank, *who ? " (" : "", who, *who ? ")" : "",
            1e6 * c->late_mean, 1e6 * c->late_max);
  }
  *c = (struct gcb_coll_totals){.late_rank = -1};
}

/* Prints the row of the variant held, if any, and lets it go. */
static void print_variant(struct gcb_table *t) {
  struct gcb_pattern_live *pl = &t->pattern;
  if (pl->key[0] == '\0')
    return;
  char pattern[32];
  snprintf(pattern, sizeof pattern, "%s", pl->key);
  pattern[strcspn(pattern, " ")] = '\0';
  struct gcb_pattern_group g = {.pattern = pattern,
                                .group = pl->group,
                                .skew = pl->skew,
                                .nranks = (size_t)pl->nranks,
                                .ranks = pl->ranks};
  gcb_pattern_group_derive(&g);
  char step[32], comp[32], comm[32], exp[32], ov[48], cost[32], who[32];
  gcb_pattern_fmt_ms(g.step_mean, step, sizeof step);
  gcb_pattern_fmt_ms(g.compute_mean, comp, sizeof comp);
  gcb_pattern_fmt_ms(g.comm_mean, comm, sizeof comm);
  gcb_pattern_fmt_ms(g.exposed, exp, sizeof exp);
  gcb_pattern_fmt_overlap(g.measurable, g.overlap, g.overlap_noise, ov,
                          sizeof ov);
  bool even = gcb_pattern_group_even(&g);
  gcb_pattern_fmt_pct(even ? g.busy_imbalance : NAN, cost, sizeof cost);
  if (!even)
    snprintf(who, sizeof who, "- (skew)");
  else if (g.straggler >= 0)
    snprintf(who, sizeof who, "%lld", g.straggler);
  else
    snprintf(who, sizeof who, "-");
  /* "±" is two bytes and one column: pad by what the eye sees. */
  int pad = strstr(ov, "\xc2\xb1") != NULL ? 22 : 21;
  fprintf(t->out, "  %-12s  %-16s  %-10s  %9s  %9s  %9s  %9s  %-*s  %9s  %9s\n",
          pl->key, pl->layout, pl->span[0] ? pl->span : "-", step, comp, comm,
          exp, pad, ov, who, cost);
  free(pl->ranks);
  pl->ranks = NULL;
  pl->nranks = 0;
  pl->key[0] = '\0';
}

/* The end of the pattern benchmark's group: the variant under way, then
 * the part rows. */
static void pattern_flush(struct gcb_table *t) {
  struct gcb_pattern_live *pl = &t->pattern;
  print_variant(t);
  if (pl->nparts > 0) {
    fprintf(t->out, "# the parts: time per step, median over ranks; the "
                    "rate it reaches, in the part's unit (compute: 2*m*n*k "
                    "flops of the step's GEMMs; comm: bytes of its "
                    "collectives, nccl-tests S)\n");
    fprintf(t->out, "# %-12s  %-13s  %9s  %12s  %-8s  %s\n", "pattern", "part",
            "time (ms)", "rate", "unit", "check");
  }
  for (int i = 0; i < pl->nparts; i++)
    fprintf(t->out, "%s\n", pl->parts[i]);
  if (pl->dropped > 0)
    fprintf(t->out, "#   (and %d more part row(s): results.json has them)\n",
            pl->dropped);
  pl->nparts = pl->dropped = 0;
  pl->header = false;
}

/* Ends the current group: pending half-row, footers, repeated skips. */
static void end_group(struct gcb_table *t) {
  flush_skips(t); /* the block's own skips, before its footer */
  coll_flush(t);
  pattern_flush(t);
  sweep_flush(t, t->sweep_unit);
}

/* Starts group `key` when it differs from the current one; returns whether
 * a new header is due. */
static bool enter_group(struct gcb_table *t, const char *key) {
  if (strcmp(t->group, key) == 0)
    return false;
  end_group(t);
  snprintf(t->group, sizeof t->group, "%s", key);
  return true;
}

/* ---- rate rows: one header per benchmark ----------------------------------*/

#define PARAM_WIDTH 8

static int param_width(const struct gcb_param *p) {
  int w = (int)strlen(p->key);
  return w > PARAM_WIDTH ? w : PARAM_WIDTH;
}

static void print_param(FILE *out, const struct gcb_param *p) {
  int w = param_width(p);
  char size[32];
  switch (p->type) {
  case GCB_PARAM_INT:
    fprintf(out, " %*" PRId64, w, p->i);
    break;
  case GCB_PARAM_SIZE:
    gcb_format_size((uint64_t)p->i, size, sizeof size);
    fprintf(out, " %*s", w, size);
    break;
  case GCB_PARAM_DOUBLE:
    fprintf(out, " %*g", w, p->d);
    break;
  case GCB_PARAM_STRING:
    fprintf(out, " %*s", w, p->s);
    break;
  }
}

/* The median over ranks of each rank's figure at its fastest sample. */
static double median_max(const struct gcb_record *rec) {
  double *x = malloc((size_t)(rec->nranks > 0 ? rec->nranks : 1) * sizeof *x);
  struct gcb_stats st = {0};
  if (x == NULL)
    return 0.0;
  for (int r = 0; r < rec->nranks; r++)
    x[r] = gcb_record_figure(rec, rec->ranks[r].seconds.min);
  gcb_stats_compute(x, (size_t)rec->nranks, &st);
  free(x);
  return st.median;
}

/* Notes a case of a shape sweep (a `shapes` param above 1) in its
 * element type's running best. */
static void sweep_note(struct gcb_table *t, const struct gcb_record *rec,
                       double median) {
  const struct gcb_param *n = gcb_record_param(rec, "shapes");
  const struct gcb_param *d = gcb_record_param(rec, "dtype");
  const struct gcb_param *acc = gcb_record_param(rec, "accumulate");
  if (n == NULL || n->i < 2 || d == NULL)
    return;
  char what[48], shape[48];
  snprintf(what, sizeof what, "%s%s%s", d->s, acc ? " accumulate " : "",
           acc ? acc->s : "");
  const struct gcb_param *m = gcb_record_param(rec, "m"),
                         *nn = gcb_record_param(rec, "n"),
                         *k = gcb_record_param(rec, "k");
  snprintf(shape, sizeof shape, "%lldx%lldx%lld", m ? (long long)m->i : 0,
           nn ? (long long)nn->i : 0, k ? (long long)k->i : 0);
  int i = 0;
  while (i < t->nsweeps && strcmp(t->sweep[i].what, what) != 0)
    i++;
  if (i == GCB_TABLE_SWEEPS)
    return;
  struct gcb_sweep_best *b = &t->sweep[i];
  if (i == t->nsweeps) {
    t->nsweeps++;
    *b = (struct gcb_sweep_best){.shapes = (int)n->i, .median = -1, .max = -1};
  }
  snprintf(b->what, sizeof b->what, "%s", what);
  b->seen++;
  double max = median_max(rec);
  if (median > b->median)
    b->median = median,
    snprintf(b->at_median, sizeof b->at_median, "%s", shape);
  if (max > b->max)
    b->max = max, snprintf(b->at_max, sizeof b->at_max, "%s", shape);
}

/* " (OpenBLAS Haswell kernels, 2 threads (pthreads))" for GEMM, whose
 * figures are the BLAS's: the kernel that ran is named where they are. */
static void print_library(const struct gcb_table *t,
                          const struct gcb_record *rec) {
  if (t->blas[0] != '\0' && strcmp(rec->bench, "gemm") == 0)
    fprintf(t->out, " (%s)", t->blas);
}

/* The header of a rate benchmark. Which statistic each column is, in the
 * names of docs/results-schema.md ("Statistics"): "time" is the median
 * over ranks of each rank's figure time (its median iteration); median,
 * min and max are of the rank figures, over ranks; imbal is of the figure
 * times, (max - mean) / max. */
static void rate_header(struct gcb_table *t, const struct gcb_record *rec) {
  if (!enter_group(t, rec->bench)) {
    /* The rows above were in another unit (gemm: int8 in TOPS after the
     * floating types in GFLOP/s): say so before the first of these. */
    if (t->sweep_unit[0] != '\0' &&
        strcmp(t->sweep_unit, rec->figure.unit) != 0)
      fprintf(t->out, "# figures in %s (%s)\n", rec->figure.unit,
              rec->figure.counted);
    return;
  }
  fprintf(t->out, "\n# %s on %s", rec->bench, rec->backend);
  print_library(t, rec);
  fprintf(t->out,
          ": %d rank(s), %d timed iterations after %d warm-up; figures in %s "
          "(%s)\n",
          rec->nranks, rec->iterations, rec->warmup, rec->figure.unit,
          rec->figure.counted);
  fprintf(t->out, "# time: median over ranks of each rank's median "
                  "iteration; median/min/max: the rank figures over ranks\n#");
  for (int i = 0; i < rec->nparams; i++)
    fprintf(t->out, " %*s", param_width(&rec->params[i]), rec->params[i].key);
  fprintf(t->out, " %12s %10s %10s %10s %7s  %s\n", "time", "median", "min",
          "max", "imbal", "check");
  fprintf(t->out, "#");
  for (int i = 0; i < rec->nparams; i++)
    fprintf(t->out, " %*s", param_width(&rec->params[i]), "");
  fprintf(t->out, " %12s %10s %10s %10s %7s\n", "(med/ranks)", rec->figure.unit,
          rec->figure.unit, rec->figure.unit, "%");
}

static void print_params(struct gcb_table *t, const struct gcb_record *rec) {
  fputc(' ', t->out);
  for (int i = 0; i < rec->nparams; i++)
    print_param(t->out, &rec->params[i]);
}

/* A rate row: the header a new benchmark needs, the params, the time and
 * the figures over ranks, the validation cell. */
static void rate_record(struct gcb_table *t, const struct gcb_record *rec) {
  struct gcb_record_summary sum;
  gcb_record_summarize(rec, &sum);
  char time[32], check[48];
  gcb_format_seconds(sum.time.median, time, sizeof time);
  check_cell(&sum, check, sizeof check);
  rate_header(t, rec);
  print_params(t, rec);
  fprintf(t->out, " %12s %10.2f %10.2f %10.2f %6.1f%%  %s\n", time,
          sum.figure.median, sum.figure.min, sum.figure.max,
          100.0 * sum.imbalance, check);
  sweep_note(t, rec, sum.figure.median);
  snprintf(t->sweep_unit, sizeof t->sweep_unit, "%s", rec->figure.unit);
}

/* ---- nccl-tests' layout ---------------------------------------------------*/

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* nccl-tests' percentileIndex. */
static long pct_index(long n, int p) {
  long i = (n * p + 99) / 100 - 1;
  return i < n - 1 ? i : n - 1;
}

bool gcb__iter_summary(const struct gcb_iter_times *it, long skip, double *row,
                       struct gcb_iter_summary *out) {
  if (it == NULL || it->n <= 0 || it->nranks <= 0)
    return false;
  long n = it->n;
  for (long i = 0; i < n; i++) {
    row[i] = it->s[i];
    for (int r = 1; r < it->nranks; r++)
      row[i] = fmax(row[i], it->s[(size_t)r * (size_t)n + (size_t)i]);
  }
  if (skip < 0 || skip >= n)
    skip = 0;
  long m = n - skip;
  double *sorted = malloc((size_t)m * sizeof *sorted);
  if (sorted == NULL)
    return false;
  memcpy(sorted, row + skip, (size_t)m * sizeof *sorted);
  qsort(sorted, (size_t)m, sizeof *sorted, by_value);
  double sum = 0, var = 0;
  for (long i = 0; i < m; i++)
    sum += sorted[i];
  double avg = sum / (double)m;
  for (long i = 0; i < m; i++)
    var += (sorted[i] - avg) * (sorted[i] - avg);
  double stdev = sqrt(var / (double)m); /* nccl-tests: over n, not n - 1 */
  *out = (struct gcb_iter_summary){.min = sorted[0],
                                   .max = sorted[m - 1],
                                   .avg = avg,
                                   .p50 = sorted[m / 2],
                                   .p95 = sorted[pct_index(m, 95)],
                                   .p99 = sorted[pct_index(m, 99)],
                                   .stdev = stdev,
                                   .cv_pct = avg > 0 ? 100 * stdev / avg : 0,
                                   .skipped = skip};
  free(sorted);
  return true;
}

/*
 * The layout for collectives: nccl-tests' output, column for column
 * (NVIDIA/nccl-tests 2.19.6 src/util.cu: writeDeviceReport,
 * writeResultHeader, writeBenchmarkLine*, writeResultFooter), so scripts
 * that read nccl-tests' rows by position read gcbench's. One row per size
 * with the out-of-place and in-place halves (time, algbw, busbw, #wrong);
 * with --layout gcbench the min and max time over ranks of each half trail
 * the row. After nccl-tests' footers (coll_flush, above), gcbench's own
 * line: the latest-arriving rank.
 */

/* nccl-tests' program for a collective, for its "test starting" line. */
static const char *program_of(const char *op) {
  static const char *const names[][2] = {
      {"allreduce", "all_reduce_perf"},
      {"allgather", "all_gather_perf"},
      {"reducescatter", "reduce_scatter_perf"},
      {"broadcast", "broadcast_perf"},
      {"reduce", "reduce_perf"},
      {"alltoall", "alltoall_perf"},
      {"sendrecv", "sendrecv_perf"},
      {"gather", "gather_perf"},
      {"scatter", "scatter_perf"}};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(names[i][0], op) == 0)
      return names[i][1];
  return op;
}

/* nccl-tests' getFloatStr: the most decimals that fit the width. */
static void float_str(double value, int width, char *str, size_t len) {
  if (snprintf(str, len, "%*.2f", width, value) <= width)
    return;
  if (snprintf(str, len, "%*.1f", width, value) <= width)
    return;
  if (snprintf(str, len, "%*.0f", width, value) <= width)
    return;
  snprintf(str, len, width >= 7 ? "%*.1e" : "%*.0e", width, value);
}

static void print_devices(struct gcb_table *t) {
  if (t->devices_shown || t->device_lines == NULL)
    return;
  t->devices_shown = true;
  fprintf(t->out, "# Using devices\n");
  for (int r = 0; r < t->nranks; r++) {
    char shown[GCB_DEVICE_LINE];
    gcb_text_shown(shown, sizeof shown, t->device_lines[r]);
    fprintf(t->out, "%s\n", shown);
  }
}

/* Which statistic the time columns show, in the names of
 * docs/results-schema.md ("Statistics"): the loop time (each rank's mean
 * per operation over its timed loop, summary.time_s) taken over ranks as
 * -a asks (nccl-tests' -a: 0 rank 0, 1 mean, 2 min, 3 max). */
static const char *time_rule(const struct gcb_record *rec) {
  static const char *const over[] = {
      "rank 0's loop time", "mean over ranks of each rank's loop time",
      "min over ranks of each rank's loop time",
      "max over ranks of each rank's loop time",
      "mean over the pairs' initiators (the lower half of the ranks) of each "
      "one's loop time"};
  int64_t a = gcb_record_int(rec, "average", 1);
  return over[a >= 0 && a <= 4 ? a : 1];
}

/* gcbench's line on the MPI library under an MPI collective, as the
 * document records it (the harness reads it with gcb_view_mpi_line): the
 * same small message takes 2-4x longer over one device or transport than
 * another, and nothing in nccl-tests' columns says which ran. MPI is the
 * host backend's transport; the cuda backend's is NCCL (with --transport
 * mpi there, the line is not printed: the record does not say). */
static void print_mpi(struct gcb_table *t, const struct gcb_record *rec) {
  if (strcmp(rec->backend, "host") != 0)
    return;
  if (t->mpi != NULL && t->mpi[0] != '\0')
    fprintf(own(t), "# gcbench MPI: %s\n", t->mpi);
  if (t->mpi_probe[0] != '\0') /* this launch's MPI mode (run.mpi_probe) */
    fprintf(own(t), "# gcbench MPI probe: %s\n", t->mpi_probe);
}

/* nccl-tests' run line and the notes after it (src/util.cu
 * writeDeviceReport): one thread, one GPU per process, the sweep, the
 * iterations; graph and unalign are never used here. */
static void print_config(struct gcb_table *t, const struct gcb_record *rec,
                         const struct gcb_sweep_shape *sh) {
  bool factor = sh->stepbytes == 0;
  fprintf(t->out,
          "# nThread 1 nGpus 1 minBytes %" PRIu64 " maxBytes %" PRIu64
          " step: %" PRIu64 "(%s) warmup iters: %d iters: %d agg iters: %ld "
          "validation: %ld graph: 0 unalign: 0\n",
          sh->minbytes, sh->maxbytes,
          factor ? (uint64_t)sh->stepfactor : sh->stepbytes,
          factor ? "factor" : "bytes", rec->warmup, rec->iterations, sh->agg,
          sh->check);
  if (sh->blocking == 1)
    fprintf(t->out, "# Blocking Enabled: wait and barrier after each inner "
                    "iteration (-m) \n");
  if (sh->blocking == 2)
    fprintf(t->out, "# Blocking Enabled: wait after each inner iteration "
                    "(-m), no barrier \n");
  if (sh->blocking == 3)
    fprintf(t->out, "# Blocking Enabled: wait and barrier after each outer "
                    "iteration (-n); time excludes barrier \n");
  if (sh->per_iter == 1) {
    fprintf(t->out, "# Per-Iteration Report: host clock timing; i_* uses max "
                    "over process rows");
    if (sh->per_iter_skip > 0)
      fprintf(t->out, "; summary skips first %ld iterations",
              sh->per_iter_skip);
    fprintf(t->out, " \n");
  }
}

/* nccl-tests' column header with -I 1 (writeResultHeader); with --layout
 * gcbench the min and max over ranks trail it, as without -I. */
static void print_per_iter_columns(struct gcb_table *t, bool extra) {
  fprintf(t->out,
          "# %10s  %12s  %8s  %6s  %6s              out-of-place (+ "
          "per-iteration)                                in-place (+ "
          "per-iteration)%s\n",
          "", "", "", "", "", extra ? "    out-of-place      in-place" : "");
  fprintf(t->out,
          "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  "
          "%7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s%s\n",
          "size", "count", "type", "redop", "root", "time", "algbw", "busbw",
          "#wrong", "i_min", "i_max", "i_p99", "i_cv%", "time", "algbw",
          "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%", 0, "",
          extra ? "     min      max      min      max" : "");
  fprintf(t->out,
          "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  "
          "%7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s%s\n",
          "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
          "(us)", "(us)", "(us)", "(%)", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
          "(us)", "(us)", "(%)", 0, "",
          extra ? "    (us)     (us)     (us)     (us)" : "");
}

static void coll_header(struct gcb_table *t, const struct gcb_record *rec) {
  const char *split = gcb_record_text(rec, "split");
  char within[96] = "";
  if (*split && strcmp(split, "none") != 0)
    snprintf(within, sizeof within,
             ", split %s (communicators of %" PRId64 " ranks)", split,
             gcb_record_int(rec, "comm_size", 0));
  const struct gcb_sweep_shape *sh = rec->shape;
  if (sh) /* nccl-tests' layout: 2.19.6 is the version it follows */
    fprintf(t->out,
            "# nccl-tests version 2.19.6 nccl-headers=%d nccl-library=%d\n",
            sh->nccl_headers, sh->nccl_library);
  fprintf(t->out, "# Collective test starting: %s\n",
          program_of(gcb_record_text(rec, "op")));
  fprintf(own(t),
          "# gcbench %s %s on %s%s: %d rank(s), %d iterations after %d "
          "warm-up; time: %s\n",
          rec->bench, gcb_record_text(rec, "op"), rec->backend, within,
          rec->nranks, rec->iterations, rec->warmup, time_rule(rec));
  print_mpi(t, rec);
  if (sh)
    print_config(t, rec, sh);
  fprintf(t->out, "#\n");
  print_devices(t);
  bool extra = strcmp(gcb_record_text(rec, "layout"), "gcbench") == 0;
  const char *time = "time";
  snprintf(t->coll.program, sizeof t->coll.program, "%s",
           program_of(gcb_record_text(rec, "op")));
  fprintf(t->out, "#\n");
  if (sh && sh->per_iter == 1) {
    print_per_iter_columns(t, extra);
    return;
  }
  fprintf(t->out,
          "# %10s  %12s  %8s  %6s  %6s           out-of-place               "
          "        in-place          %s\n",
          "", "", "", "", "", extra ? "    out-of-place      in-place" : "");
  fprintf(t->out,
          "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  "
          "%6s %*s%s\n",
          "size", "count", "type", "redop", "root", time, "algbw", "busbw",
          "#wrong", time, "algbw", "busbw", "#wrong", 0, "",
          extra ? "     min      max      min      max" : "");
  fprintf(t->out,
          "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  "
          "%6s %*s%s\n",
          "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
          "(us)", "(GB/s)", "(GB/s)", "", 0, "",
          extra ? "    (us)     (us)     (us)     (us)" : "");
}

/* The time -a picks: rank 0's, the mean, the min or the max over ranks. */
static double coll_time(const struct gcb_record *rec,
                        const struct gcb_record_summary *s) {
  switch (gcb_record_int(rec, "average", 1)) {
  case 0:
    return rec->nranks > 0 ? rec->ranks[0].time_s : s->time.mean;
  case 2:
    return s->time.min;
  case 3:
    return s->time.max;
  case 4:
    return gcb__table_initiators_mean(rec);
  default:
    return s->time.mean;
  }
}

void gcb__table_coll_figures(const struct gcb_record *rec,
                             struct gcb_coll_figures *f) {
  struct gcb_record_summary s;
  gcb_record_summarize(rec, &s);
  double time = coll_time(rec, &s);
  double algbw = time > 0 ? rec->work_per_op / time / 1e9 : 0;
  *f = (struct gcb_coll_figures){.time_s = time,
                                 .algbw = algbw,
                                 .busbw = algbw * rec->figure.bus_factor,
                                 .wrong = s.wrong,
                                 .checked = s.checked};
}

/* -I 1's columns after a half (nccl-tests' writePerIterReport). */
static void format_per_iter(const struct gcb_record *rec, char *buf,
                            size_t len) {
  struct gcb_iter_summary is;
  double *row = rec->iter && rec->iter->n > 0
                    ? malloc((size_t)rec->iter->n * sizeof *row)
                    : NULL;
  buf[0] = '\0';
  if (row == NULL)
    return;
  if (gcb__iter_summary(rec->iter, rec->shape ? rec->shape->per_iter_skip : 0,
                        row, &is)) {
    char lo[16], hi[16], p99[16], cv[16];
    float_str(1e6 * is.min, 7, lo, sizeof lo);
    float_str(1e6 * is.max, 7, hi, sizeof hi);
    float_str(1e6 * is.p99, 7, p99, sizeof p99);
    float_str(is.cv_pct, 7, cv, sizeof cv);
    snprintf(buf, len, "  %7s  %7s  %7s  %7s", lo, hi, p99, cv);
  }
  free(row);
}

/* The half of a row one record fills (nccl-tests' writeBenchmarkLineBody),
 * its trailing min/max, and its share of the footer. */
static void format_half(struct gcb_table *t, const struct gcb_record *rec,
                        char *buf, size_t len, char *extra, size_t elen) {
  struct gcb_record_summary s;
  gcb_record_summarize(rec, &s);
  struct gcb_coll_figures f;
  gcb__table_coll_figures(rec, &f);
  double time = f.time_s, busbw = f.busbw, algbw = f.algbw;
  char ts[16], as[16], bs[16];
  float_str(1e6 * time, 7, ts, sizeof ts);
  float_str(algbw, 6, as, sizeof as);
  float_str(busbw, 6, bs, sizeof bs);
  if (s.checked)
    snprintf(buf, len, "  %7s  %6s  %6s  %6g", ts, as, bs, (double)s.wrong);
  else
    snprintf(buf, len, "  %7s  %6s  %6s    N/A", ts, as, bs);
  if (rec->shape && rec->shape->per_iter == 1) {
    size_t used = strlen(buf);
    format_per_iter(rec, buf + used, len - used);
  }
  char lo[16], hi[16];
  float_str(1e6 * s.time.min, 7, lo, sizeof lo);
  float_str(1e6 * s.time.max, 7, hi, sizeof hi);
  snprintf(extra, elen, "  %7s  %7s", lo, hi);
  t->coll.rows++;
  t->coll.busbw_sum += busbw;
  t->coll.wrong += s.wrong;
  if (s.late_rank >= 0 &&
      (t->coll.late_rank < 0 || s.late_mean > t->coll.late_mean)) {
    t->coll.late_rank = rec->ranks[s.late_rank].rank;
    t->coll.late_mean = s.late_mean;
    t->coll.late_max = s.late_max;
  }
}

/* Row key: everything but the in-place flag. */
static void row_key(const struct gcb_record *rec, char *buf, size_t len) {
  snprintf(buf, len, "%s %s %s %" PRId64 " %" PRId64 " %s %" PRId64,
           gcb_record_text(rec, "op"), gcb_record_text(rec, "type"),
           gcb_record_text(rec, "redop"), gcb_record_int(rec, "size", 0),
           gcb_record_int(rec, "root", 0), gcb_record_text(rec, "split"),
           gcb_record_int(rec, "cycle", 1));
}

/* nccl-tests' writeBenchmarkLinePreamble: size and count as the record
 * has them, or 0 and 0 for a case with no element (nccl-tests prints
 * max(sendBytes, expectedBytes) and nbytes / wordSize, both 0 then). */
static void row_start(const struct gcb_record *rec, char *buf, size_t len) {
  char root[32];
  snprintf(root, sizeof root, "%6" PRId64, gcb_record_int(rec, "root", 0));
  snprintf(buf, len, "%12" PRId64 "  %12" PRId64 "  %8s  %6s  %6s",
           rec->empty ? 0 : gcb_record_int(rec, "size", 0),
           rec->empty ? 0 : gcb_record_int(rec, "count", 0),
           gcb_record_text(rec, "type"), gcb_record_text(rec, "redop"), root);
}

static bool extra_columns(const struct gcb_record *rec) {
  return strcmp(gcb_record_text(rec, "layout"), "gcbench") == 0;
}

/* A half nccl-tests leaves out: blanks as wide as one (its NullBody). */
#define HALF_BLANK "                                "

/* Starts the record's collective (the footer of the one before, its
 * header) when it is new, so that a skipped case is told in its own
 * collective's block. */
static void coll_begin(struct gcb_table *t, const struct gcb_record *rec) {
  char group[64];
  snprintf(group, sizeof group, "%s %s %s", rec->bench,
           gcb_record_text(rec, "op"), gcb_record_text(rec, "split"));
  if (enter_group(t, group))
    coll_header(t, rec);
}

/* Puts one half into its row: an out-of-place half waits for its
 * in-place half, which completes the row. */
static void place_half(struct gcb_table *t, const struct gcb_record *rec,
                       const char *half, char *extra) {
  char key[96];
  coll_begin(t, rec);
  row_key(rec, key, sizeof key);
  bool inplace = gcb_record_int(rec, "inplace", 0) != 0;
  if (t->pending && (!inplace || strcmp(key, t->pending_key) != 0))
    coll_flush_row(t);
  if (!extra_columns(rec))
    extra[0] = '\0';
  if (!inplace) {
    row_start(rec, t->pending_row, sizeof t->pending_row);
    strncat(t->pending_row, half,
            sizeof t->pending_row - strlen(t->pending_row) - 1);
    snprintf(t->pending_extra, sizeof t->pending_extra, "%s", extra);
    snprintf(t->pending_key, sizeof t->pending_key, "%s", key);
    t->pending = true;
    return;
  }
  if (t->pending) {
    fprintf(t->out, "%s%s%s%s\n", t->pending_row, half, t->pending_extra,
            extra);
    t->pending = false;
    return;
  }
  char start[128];
  row_start(rec, start, sizeof start);
  fprintf(t->out, "%s" HALF_BLANK "%s%s%s\n", start, half,
          *extra ? "                  " : "", extra);
}

static void coll_record(struct gcb_table *t, const struct gcb_record *rec) {
  char half[160], extra[64];
  coll_begin(t, rec);
  format_half(t, rec, half, sizeof half, extra, sizeof extra);
  place_half(t, rec, half, extra);
}

/*
 * A case with no element (rec->empty), which gcbench does not run: the
 * half nccl-tests prints for it. nccl-tests 2.19.6 runs it (TimeTest:
 * setupArgs gives count 0, NCCL returns at once) and prints its row with
 * writeBenchmarkLinePreamble(0, 0, type, redop, root) and
 * writeBenchmarkLineBody: algbw and busbw 0 (getBw of 0 bytes), #wrong 0
 * (CheckData over no element) or N/A without -c; the time is what it took
 * to call nothing, here 0.00 since nothing ran. The row counts in the
 * footer's average bus bandwidth as there (args->bw_count++).
 */
static void coll_empty(struct gcb_table *t, const struct gcb_record *rec) {
  char half[160], extra[64], zero[16];
  coll_begin(t, rec);
  float_str(0.0, 7, zero, sizeof zero);
  bool checked = rec->shape == NULL || rec->shape->check > 0;
  if (checked)
    snprintf(half, sizeof half, "  %7s  %6s  %6s  %6g", zero, "0.00", "0.00",
             0.0);
  else
    snprintf(half, sizeof half, "  %7s  %6s  %6s    N/A", zero, "0.00", "0.00");
  if (rec->shape && rec->shape->per_iter == 1) {
    size_t used = strlen(half);
    snprintf(half + used, sizeof half - used, "  %7s  %7s  %7s  %7s", zero,
             zero, zero, zero);
  }
  snprintf(extra, sizeof extra, "  %7s  %7s", zero, zero);
  t->coll.rows++;
  place_half(t, rec, half, extra);
}

/* ---- OSU's layout ---------------------------------------------------------*/

/*
 * OSU's layout (coll --layout osu / osu-full, and the osu_* programs):
 * what OSU micro-benchmarks 7.4 prints, byte for byte, so that scripts
 * reading OSU's output read gcbench's. print_preamble (a
 * blank line, "# OSU MPI Latency Test v7.4"), "# Datatype: MPI_CHAR.",
 * print_only_header ("%-10s%18s": "# Size", "Avg Latency(us)" or
 * "Bandwidth (MB/s)"; with -f "Min Latency(us)", "Max Latency(us)" and
 * "%12s" "Iterations"; with -c "Validation"), then one row per size
 * ("%-10d%18.2f", print_stats). FIELD_WIDTH is 18 as OSU's configure.ac
 * defines it, FLOAT_PRECISION 2 (osu_util.h). osu_mbw_mr prints its own
 * title lines (no blank line, then "# [ pairs: N ] [ window size: W ]")
 * and "MB/s", "Messages/s" columns ("%-10d%18.2f%18.2f"). osu_barrier has
 * no size (show_size 0): no datatype line, "# Avg Latency(us)" and one
 * "%17.2f" row.
 */

#define FIELD_WIDTH 18

/* Whether a record asks for OSU's layout. */
static bool osu_layout(const struct gcb_record *rec) {
  return strncmp(gcb_record_text(rec, "layout"), "osu", 3) == 0;
}

static bool osu_full(const struct gcb_record *rec) {
  return strcmp(gcb_record_text(rec, "layout"), "osu-full") == 0;
}

/* MPI's name of gcbench's element type, as "# Datatype:" prints it. */
static const char *mpi_type(const char *type) {
  static const char *const names[][2] = {
      {"int8", "MPI_CHAR"},     {"uint8", "MPI_CHAR"},
      {"int32", "MPI_INT"},     {"uint32", "MPI_UNSIGNED"},
      {"int64", "MPI_INT64_T"}, {"uint64", "MPI_UINT64_T"},
      {"float", "MPI_FLOAT"},   {"double", "MPI_DOUBLE"},
  };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(names[i][0], type) == 0)
      return names[i][1];
  return type;
}

/* The program whose layout the record asks for: the multi-pair one of
 * its operation under --layout osu-multi (osu_multi_lat, osu_mbw_mr). */
static const struct gcb_osu_program *osu_program(const struct gcb_record *rec) {
  const char *op = gcb_record_text(rec, "op");
  const struct gcb_osu_program *p = NULL;
  if (strcmp(gcb_record_text(rec, "layout"), "osu-multi") == 0)
    p = gcb__osu_program_multi(op);
  return p ? p : gcb__osu_program_of(op);
}

static enum gcb_osu_kind kind_of(const struct gcb_record *rec) {
  const struct gcb_osu_program *p = osu_program(rec);
  return p ? p->kind : GCB_OSU_COLL;
}

/* osu_mbw_mr's pairs: n / 2 of the communicator, as osu_mbw_mr.c. */
static int pairs_of(const struct gcb_record *rec) {
  return (int)gcb_record_int(rec, "comm_size", rec->nranks) / 2;
}

/* osu_mbw_mr's title lines (osu_mbw_mr.c 7.4: HEADER, then "# [ pairs: %d
 * ] [ window size: %d ]"), with no blank line before them. */
static void print_mbw_mr_title(struct gcb_table *t,
                               const struct gcb_osu_program *p,
                               const struct gcb_record *rec) {
  const struct gcb_coll_desc *d = gcb_coll_find(gcb_record_text(rec, "op"));
  int64_t window = gcb_record_int(rec, "window", d ? d->window : 0);
  gcb__osu_version(p, false, t->out);
  fprintf(t->out, "# [ pairs: %d ] [ window size: %" PRId64 " ]\n",
          pairs_of(rec), window);
}

/* The column line's figure columns: "%18s" each (print_only_header). */
static void print_columns(struct gcb_table *t, const struct gcb_record *rec) {
  if (gcb__osu_is_mbw_mr(osu_program(rec)))
    fprintf(t->out, "%*s%*s", FIELD_WIDTH, "MB/s", FIELD_WIDTH, "Messages/s");
  else
    fprintf(t->out, "%*s", FIELD_WIDTH,
            kind_of(rec) == GCB_OSU_BW ? "Bandwidth (MB/s)"
                                       : "Avg Latency(us)");
}

/* -z's column titles (print_only_header, osu_util_mpi.c 7.4): "P50 Tail
 * Lat(us)" right-aligned in FIELD_WIDTH, "Tail BW(MB/s)" for bandwidth. */
static void print_tail_columns(struct gcb_table *t,
                               const struct gcb_record *rec) {
  const struct gcb_sweep_shape *sh = rec->shape;
  bool bw = kind_of(rec) == GCB_OSU_BW;
  const char *what = bw ? "Px Tail BW(MB/s)" : "Px Tail Lat(us)";
  for (int i = 0; sh && i < sh->ntail; i++)
    fprintf(t->out, "%*sP%d Tail %s",
            FIELD_WIDTH - (int)strlen(what) - (sh->tail[i] > 9), "",
            sh->tail[i], bw ? "BW(MB/s)" : "Lat(us)");
}

/* -z's figures (omb_get_stats, omb_calculate_tail_lat, osu_util_mpi.c
 * 7.4): each iteration's latency, rank 0's for the point-to-point tests
 * (-a 0) or the mean over the ranks for the collectives (OSU sums them
 * with MPI_Reduce and divides by the ranks), sorted; percentile P is
 * element iterations * P / 100 - 1 (integer division, as there). */
static void print_tails(struct gcb_table *t, const struct gcb_record *rec) {
  const struct gcb_sweep_shape *sh = rec->shape;
  const struct gcb_iter_times *it = rec->iter;
  if (sh == NULL || sh->ntail == 0)
    return;
  double *v = it && it->n > 0 ? calloc((size_t)it->n, sizeof *v) : NULL;
  bool rank0 = gcb_record_int(rec, "average", 1) == 0;
  int rows = rank0 ? 1 : it ? it->nranks : 0;
  for (long i = 0; v && i < it->n; i++) {
    for (int r = 0; r < rows; r++)
      v[i] += it->s[(size_t)r * (size_t)it->n + (size_t)i];
    v[i] /= rows;
  }
  if (v)
    qsort(v, (size_t)it->n, sizeof *v, by_value);
  for (int k = 0; k < sh->ntail; k++) {
    long at = v ? it->n * sh->tail[k] / 100 - 1 : 0;
    double x = v ? v[at < 0 ? 0 : at] : 0;
    fprintf(t->out, "%*.*f", FIELD_WIDTH, 2, 1e6 * x);
  }
  free(v);
}

/* print_preamble (osu_util_mpi.c 7.4), once per collective: a blank line
 * and the title; osu_mbw_mr's own title lines instead. */
static void print_preamble(struct gcb_table *t, const struct gcb_record *rec) {
  const char *op = gcb_record_text(rec, "op");
  const struct gcb_osu_program *p = osu_program(rec);
  bool device = strcmp(rec->backend, "cuda") == 0;
  if (strcmp(t->osu_op, op) == 0)
    return;
  snprintf(t->osu_op, sizeof t->osu_op, "%s", op);
  if (gcb__osu_is_mbw_mr(p)) {
    print_mbw_mr_title(t, p, rec);
    return;
  }
  fprintf(t->out, "\n");
  if (p)
    gcb__osu_version(p, device, t->out);
  else /* no OSU program runs this one: say whose table it is */
    fprintf(t->out,
            "# OSU MPI%s %s Latency Test v" GCB_OSU_VERSION
            " layout (gcbench coll)\n",
            device ? "-CUDA" : "", op);
}

/* print_preamble, then the datatype and the column line of each type
 * (OSU's -T all prints one block per type). */
static void osu_header(struct gcb_table *t, const struct gcb_record *rec,
                       bool checked) {
  print_preamble(t, rec);
  if (gcb_record_int(rec, "inplace", 0)) /* OSU has no line for it: gcbench's */
    fprintf(t->out, "# gcbench: in place (one buffer)\n");
  fprintf(t->out, "# Datatype: %s.\n", mpi_type(gcb_record_text(rec, "type")));
  fprintf(t->out, "%-*s", 10, "# Size");
  print_columns(t, rec);
  if (osu_full(rec)) {
    fprintf(t->out, "%*s", FIELD_WIDTH, "Min Latency(us)");
    fprintf(t->out, "%*s", FIELD_WIDTH, "Max Latency(us)");
    fprintf(t->out, "%*s", 12, "Iterations");
  }
  if (checked)
    fprintf(t->out, "%*s", FIELD_WIDTH, "Validation");
  print_tail_columns(t, rec);
  fprintf(t->out, "\n");
}

/* The time OSU prints: rank 0's for its point-to-point tests (coll -a 0),
 * the mean over ranks of each rank's mean for its collectives, the mean
 * over the initiators for osu_multi_lat and osu_mbw_mr (-a 4). */
static double osu_time(const struct gcb_record *rec,
                       const struct gcb_record_summary *s) {
  int64_t a = gcb_record_int(rec, "average", 1);
  if (a == 0 && rec->nranks > 0)
    return rec->ranks[0].time_s;
  if (a == 4)
    return gcb__table_initiators_mean(rec);
  return s->time.mean;
}

/* The figure columns of one row: osu_mbw_mr's MB/s and Messages/s summed
 * over the pairs (osu_mbw_mr.c 7.4: bw = size / 1e6 * pairs * iterations
 * * window / the senders' mean time, rate = 1e6 * bw / size; with the
 * time per message that is pairs * size / 1e6 / time and pairs / time),
 * osu_bw's and osu_bibw's MB/s (size / 1e6 per message time), or the
 * latency in microseconds. */
static void print_figures(struct gcb_table *t, const struct gcb_record *rec,
                          uint64_t size, double time) {
  double per_s = time > 0 ? 1 / time : 0;
  if (gcb__osu_is_mbw_mr(osu_program(rec)))
    fprintf(t->out, "%*.*f%*.*f", FIELD_WIDTH, 2,
            pairs_of(rec) * (double)size / 1e6 * per_s, FIELD_WIDTH, 2,
            pairs_of(rec) * per_s);
  else if (kind_of(rec) == GCB_OSU_BW)
    fprintf(t->out, "%*.*f", FIELD_WIDTH, 2, (double)size / 1e6 * per_s);
  else
    fprintf(t->out, "%*.*f", FIELD_WIDTH, 2, 1e6 * time);
}

/* Whether the record's OSU program has no message size (osu_barrier). */
static bool sizeless(const struct gcb_record *rec) {
  return gcb__osu_sizeless(gcb__osu_program_of(gcb_record_text(rec, "op")));
}

/* osu_barrier.c 7.4: print_preamble, print_only_header with show_size 0
 * ("# Avg Latency(us)"; -f: "%18s%18s%12s" Min, Max, Iterations), then
 * print_stats' row: "%17.2f" and with -f "%18.2f%18.2f%12lu". OSU's
 * barrier validates nothing: no Validation column. */
static void barrier_record(struct gcb_table *t, const struct gcb_record *rec,
                           const struct gcb_record_summary *s) {
  char group[sizeof t->group];
  snprintf(group, sizeof group, "%s %s %s %" PRId64, rec->bench,
           gcb_record_text(rec, "op"), gcb_record_text(rec, "split"),
           gcb_record_int(rec, "inplace", 0));
  if (enter_group(t, group)) {
    print_preamble(t, rec);
    if (gcb_record_int(rec, "inplace", 0))
      fprintf(t->out, "# gcbench: in place (one buffer)\n");
    fprintf(t->out, "# Avg Latency(us)");
    if (osu_full(rec))
      fprintf(t->out, "%*s%*s%*s", FIELD_WIDTH, "Min Latency(us)", FIELD_WIDTH,
              "Max Latency(us)", 12, "Iterations");
    print_tail_columns(t, rec);
    fprintf(t->out, "\n");
  }
  fprintf(t->out, "%*.*f", 17, 2, 1e6 * osu_time(rec, s));
  if (osu_full(rec))
    fprintf(t->out, "%*.*f%*.*f%*d", FIELD_WIDTH, 2, 1e6 * s->time.min,
            FIELD_WIDTH, 2, 1e6 * s->time.max, 12, rec->iterations);
  print_tails(t, rec);
  fprintf(t->out, "\n");
}

/* A row, with the headers a new group needs. */
static void osu_record(struct gcb_table *t, const struct gcb_record *rec) {
  struct gcb_record_summary s;
  gcb_record_summarize(rec, &s);
  if (sizeless(rec)) {
    barrier_record(t, rec, &s);
    return;
  }
  char group[sizeof t->group];
  snprintf(group, sizeof group, "%s %s %s %s %" PRId64, rec->bench,
           gcb_record_text(rec, "op"), gcb_record_text(rec, "split"),
           gcb_record_text(rec, "type"), gcb_record_int(rec, "inplace", 0));
  if (enter_group(t, group))
    osu_header(t, rec, s.checked);
  uint64_t size = gcb__osu_size(
      gcb_record_text(rec, "op"), (uint64_t)gcb_record_int(rec, "size", 0),
      (int)gcb_record_int(rec, "comm_size", rec->nranks));
  double time = osu_time(rec, &s);
  fprintf(t->out, "%-*" PRIu64, 10, size);
  print_figures(t, rec, size, time);
  if (osu_full(rec))
    fprintf(t->out, "%*.*f%*.*f%*d", FIELD_WIDTH, 2, 1e6 * s.time.min,
            FIELD_WIDTH, 2, 1e6 * s.time.max, 12, rec->iterations);
  if (s.checked)
    fprintf(t->out, "%*s", FIELD_WIDTH, s.wrong > 0 ? "Fail" : "Pass");
  print_tails(t, rec);
  fprintf(t->out, "\n");
}

/* Starts the block of a skipped case's collective (its title), so that
 * the skip is told in that block, not the one before. */
static void osu_begin(struct gcb_table *t, const struct gcb_record *rec) {
  if (strcmp(t->osu_op, gcb_record_text(rec, "op")) == 0)
    return;
  char group[sizeof t->group];
  /* a group of its own: the collective's first record still prints its
   * datatype and column lines (print_preamble prints the title once) */
  snprintf(group, sizeof group, "%s %s (skipped)", rec->bench,
           gcb_record_text(rec, "op"));
  enter_group(t, group);
  print_preamble(t, rec);
}

/* ---- the pattern benchmark's rows -----------------------------------------*/

/*
 * The pattern benchmark's rows: what a person asks of a training step, one
 * row per pattern and layout (step, compute alone, communication alone,
 * exposed communication, overlap with its noise, the straggler and its
 * cost), each column with its unit; then, when the benchmark ends, one row
 * per part case in that part's unit (GFLOP/s for compute, GB/s for
 * communication). The figures are the pattern view's
 * (reports/analysis/pattern_view.h) on the records' per-rank times, which
 * are the numbers the results document keeps: the report prints the same.
 * Both kinds of row are printed when a variant or the group ends
 * (print_variant, pattern_flush, above); here they are collected.
 */

static const char *const part_names[GCB_PART_COUNT] = {
    "compute", "comm", "step", "step-compute", "step-comm"};

static int part_of(const struct gcb_record *rec) {
  const char *p = gcb_record_text(rec, "part");
  for (int i = 0; i < GCB_PART_COUNT; i++)
    if (strcmp(p, part_names[i]) == 0)
      return i;
  return -1;
}

/* "tp inner" from the label "tp inner step-comm": the variant's title. */
static void variant_of(const struct gcb_record *rec, int part, char *out,
                       size_t len) {
  size_t n = strlen(rec->label), p = strlen(part_names[part]);
  if (n > p && strcmp(rec->label + n - p, part_names[part]) == 0)
    n -= p + 1;
  snprintf(out, len, "%.*s", (int)n, rec->label);
}

static void pattern_header(struct gcb_table *t, const struct gcb_record *rec) {
  struct gcb_pattern_live *pl = &t->pattern;
  if (pl->header)
    return;
  pl->header = true;
  const char *model = gcb_record_text(rec, "model");
  fprintf(t->out,
          "\n# pattern on %s: model %s, %d rank(s); compute alone, "
          "communication alone and the step measured interleaved, %d "
          "timed step(s) of each after %d warm-up\n",
          rec->backend, model[0] ? model : "?", rec->nranks, rec->iterations,
          rec->warmup);
  fprintf(t->out,
          "# times: mean over ranks of each rank's median; exposed comm = "
          "step - compute, at least 0; overlap = (compute + comm - step) / "
          "min(compute, comm) within [0, 1], +- its noise, \"no overlap "
          "measurable\" when the noise is larger; straggler: the rank that "
          "computes the most within the step, its cost (max - mean) / max "
          "of that compute; none under routing skew, where the hot experts' "
          "rank computes more by design (docs/PATTERNS.md)\n");
  fprintf(t->out,
          "# %-12s  %-16s  %-10s  %9s  %9s  %9s  %9s  %-21s  %9s  %9s\n",
          "pattern", "layout", "groups", "step", "compute", "comm", "exposed",
          "overlap", "straggler", "cost");
  fprintf(t->out,
          "# %-12s  %-16s  %-10s  %9s  %9s  %9s  %9s  %-21s  %9s  %9s\n", "",
          "", "", "(ms)", "(ms)", "(ms)", "comm (ms)", "(0-1)", "(rank)",
          "(%)");
}

/* Keeps one part row for after the summary. */
static void keep_part(struct gcb_table *t, const struct gcb_record *rec,
                      const char *variant, int part) {
  struct gcb_pattern_live *pl = &t->pattern;
  if (pl->nparts == GCB_TABLE_PATTERN_PARTS) {
    pl->dropped++;
    return;
  }
  struct gcb_record_summary sum;
  gcb_record_summarize(rec, &sum);
  char time[32], check[48];
  gcb_pattern_fmt_ms(sum.time.median, time, sizeof time);
  check_cell(&sum, check, sizeof check);
  snprintf(pl->parts[pl->nparts++], sizeof pl->parts[0],
           "  %-12s  %-13s  %9s  %12.4g  %-8s  %s", variant, part_names[part],
           time, sum.figure.median, rec->figure.unit, check);
}

/* Collects a part's record into its variant (whose row is printed when
 * its last part arrives) and keeps its part row. */
static void pattern_record(struct gcb_table *t, const struct gcb_record *rec) {
  struct gcb_pattern_live *pl = &t->pattern;
  int part = part_of(rec);
  if (part < 0)
    return;
  if (enter_group(t, "pattern"))
    pl->header = false;
  pattern_header(t, rec);
  char variant[96];
  variant_of(rec, part, variant, sizeof variant);
  if (strcmp(variant, pl->key) != 0) {
    print_variant(t);
    pl->ranks = calloc((size_t)rec->nranks + 1, sizeof *pl->ranks);
    if (pl->ranks == NULL)
      return; /* the row is left out; the parts still print */
    pl->nranks = rec->nranks;
    for (int r = 0; r < rec->nranks; r++) {
      pl->ranks[r].rank = rec->ranks[r].rank;
      for (int p = 0; p < GCB_PART_COUNT; p++)
        pl->ranks[r].t[p] = pl->ranks[r].sd[p] = NAN;
    }
    snprintf(pl->key, sizeof pl->key, "%s", variant);
    snprintf(pl->layout, sizeof pl->layout, "%s",
             gcb_record_text(rec, "layout"));
    snprintf(pl->span, sizeof pl->span, "%s", gcb_record_text(rec, "span"));
    int64_t group = gcb_record_int(rec, "group", -1);
    pl->group = group > 0 ? (double)group : NAN;
    const struct gcb_param *skew = gcb_record_param(rec, "skew");
    pl->skew = skew != NULL && skew->type == GCB_PARAM_DOUBLE ? skew->d : NAN;
  }
  for (int r = 0; r < rec->nranks && r < pl->nranks; r++) {
    const struct gcb_rank_result *rr = &rec->ranks[r];
    pl->ranks[r].t[part] = rr->time_s;
    pl->ranks[r].sd[part] = rr->seconds.stdev;
    pl->ranks[r].n[part] = (double)rr->seconds.n;
  }
  keep_part(t, rec, variant, part);
  if (part == GCB_PART_COUNT - 1)
    print_variant(t);
}

/* ---- the sink and the progress line ---------------------------------------*/

static enum gcb_status table_record(void *self, const struct gcb_record *rec,
                                    struct gcb_err *err) {
  (void)err;
  struct gcb_table *t = self;
  erase_progress(t);
  flush_skips(t);
  if (rec->layout == GCB_LAYOUT_COLLECTIVE && osu_layout(rec)) {
    osu_record(t, rec);
    fflush(t->out);
    return GCB_OK;
  }
  if (rec->layout == GCB_LAYOUT_COLLECTIVE) {
    coll_record(t, rec);
    fflush(t->out);
    return GCB_OK;
  }
  if (strcmp(rec->bench, "pattern") == 0) {
    pattern_record(t, rec);
    fflush(t->out);
    return GCB_OK;
  }
  rate_record(t, rec);
  fflush(t->out);
  return GCB_OK;
}

static void print_skip(struct gcb_table *t, FILE *to,
                       const struct gcb_record *rec, const char *reason) {
  (void)t;
  char label[sizeof rec->label * 4];
  gcb_text_shown(label, sizeof label, rec->label);
  char why[2 * GCB_ERRMSG_MAX];
  gcb_text_shown(why, sizeof why, reason);
  fprintf(to, "# skipped %s %s: %s\n", rec->bench, label, why);
}

static enum gcb_status table_skip(void *self, const struct gcb_record *rec,
                                  const char *reason, struct gcb_err *err) {
  (void)err;
  struct gcb_table *t = self;
  erase_progress(t);
  if (rec->layout == GCB_LAYOUT_COLLECTIVE) {
    bool osu = osu_layout(rec);
    /* nccl-tests prints a case with no element as a 0 0 row: so does its
     * layout, gcbench's reason going to gcbench's own stream only */
    if (rec->empty && !osu) {
      flush_skips(t);
      coll_empty(t, rec);
      if (t->own)
        print_skip(t, t->own, rec, reason);
      fflush(t->out);
      return GCB_OK;
    }
    if (!osu)
      coll_flush_row(t);
    /* a case's skip (not a whole benchmark's: no operation) is told in its
     * collective's block */
    if (*gcb_record_text(rec, "op") != '\0') {
      if (osu)
        osu_begin(t, rec);
      else
        coll_begin(t, rec);
    }
  }
  if (strcmp(t->last_skip, reason) == 0) {
    t->skip_repeats++;
    return GCB_OK;
  }
  flush_skips(t);
  /* gcbench's line: beside another tool's layout, on its own stream */
  print_skip(t, rec->layout == GCB_LAYOUT_COLLECTIVE ? own(t) : t->out, rec,
             reason);
  snprintf(t->last_skip, sizeof t->last_skip, "%s", reason);
  fflush(t->out);
  return GCB_OK;
}

static enum gcb_status table_error(void *self, const struct gcb_record *rec,
                                   int rank, enum gcb_status code,
                                   const char *message, struct gcb_err *err) {
  (void)err;
  (void)rank;
  struct gcb_table *t = self;
  erase_progress(t);
  flush_skips(t);
  coll_flush_row(t);
  char label[sizeof rec->label * 4], shown[2 * GCB_ERRMSG_MAX];
  gcb_text_shown(label, sizeof label, rec->label);
  gcb_text_shown(shown, sizeof shown, message);
  fprintf(t->out, "# FAILED %s %s (%s): %s\n", rec->bench, label,
          gcb_status_message(code), shown);
  fflush(t->out);
  return GCB_OK;
}

static enum gcb_status table_finish(void *self, struct gcb_err *err) {
  (void)err;
  struct gcb_table *t = self;
  erase_progress(t);
  end_group(t);
  fflush(t->out);
  return GCB_OK;
}

struct gcb_sink gcb_table_sink(struct gcb_table *t) {
  t->coll.late_rank = -1;
  t->progress = isatty(STDERR_FILENO);
  return (struct gcb_sink){.name = "table",
                           .self = t,
                           .record = table_record,
                           .skip = table_skip,
                           .error = table_error,
                           .finish = table_finish};
}

/* The progress line: on rank 0's stderr, only when that is a terminal, so
 * piped or redirected output never carries it. Elapsed time counts from the
 * benchmark's first case; the estimate assumes the remaining cases cost
 * what the finished ones did on average. */
void gcb_table_progress(struct gcb_table *t, const struct gcb_record *rec,
                        int index, int count) {
  if (!t->progress)
    return;
  double now = gcb_now_s();
  if (index == 0)
    t->bench_start = now;
  double elapsed = now - t->bench_start;
  char eta[32] = "?";
  if (index > 0)
    snprintf(eta, sizeof eta, "%.0f s", elapsed / index * (count - index));
  char label[sizeof rec->label * 4];
  gcb_text_shown(label, sizeof label, rec->label);
  fprintf(stderr,
          "\r\033[K  %s %s: case %d of %d, %.0f s elapsed, about %s left",
          rec->bench, label, index + 1, count, elapsed, eta);
  fflush(stderr);
}

void gcb_table_progress_time(struct gcb_table *t, const struct gcb_record *rec,
                             double done_s, double total_s) {
  if (!t->progress)
    return;
  char label[sizeof rec->label * 4];
  gcb_text_shown(label, sizeof label, rec->label);
  double left = total_s > done_s ? total_s - done_s : 0;
  fprintf(stderr, "\r\033[K  %s %s: %.0f s of %.0f s, %.0f s left", rec->bench,
          label, done_s, total_s, left);
  fflush(stderr);
}
