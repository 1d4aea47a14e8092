/*
 * The live table: what a person watches while a run goes on. One header per
 * benchmark (what is measured, how, in which unit), one aligned row per case
 * with every number carrying its unit. Transient progress text appears only
 * on a terminal, so piped output stays a clean table.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/cli/options.h"
#include "bench/run/table.h"

#define PARAM_WIDTH 8

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

double gcb__table_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void erase_progress(struct gcb_table *t) {
  if (t->progress)
    fputs("\r\033[K", stderr);
}

static void flush_skips(struct gcb_table *t) {
  if (t->skip_repeats > 0)
    fprintf(t->own ? t->own : t->out,
            "#   (and %d more case(s) skipped for the same reason)\n",
            t->skip_repeats);
  t->skip_repeats = 0;
  t->last_skip[0] = '\0';
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

void gcb__table_flush(struct gcb_table *t) {
  flush_skips(t); /* the block's own skips, before its footer */
  gcb__table_coll_flush(t);
  gcb__table_pattern_flush(t);
  sweep_flush(t, t->sweep_unit);
}

bool gcb__table_enter(struct gcb_table *t, const char *key) {
  if (strcmp(t->group, key) == 0)
    return false;
  gcb__table_flush(t);
  snprintf(t->group, sizeof t->group, "%s", key);
  return true;
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
static void print_header(struct gcb_table *t, const struct gcb_record *rec) {
  if (!gcb__table_enter(t, rec->bench)) {
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

/* The validation cell: "ok (0 wrong)", "FAILED (3 wrong)", "not checked". */
void gcb__table_check_cell(const struct gcb_record_summary *sum, char *buf,
                           size_t len) {
  if (!sum->checked)
    snprintf(buf, len, "not checked");
  else
    snprintf(buf, len, "%s (%" PRIu64 " wrong)", sum->wrong ? "FAILED" : "ok",
             sum->wrong);
}

static enum gcb_status table_record(void *self, const struct gcb_record *rec,
                                    struct gcb_err *err) {
  (void)err;
  struct gcb_table *t = self;
  erase_progress(t);
  flush_skips(t);
  if (rec->layout == GCB_LAYOUT_COLLECTIVE && gcb__table_osu(rec)) {
    gcb__table_osu_record(t, rec);
    fflush(t->out);
    return GCB_OK;
  }
  if (rec->layout == GCB_LAYOUT_COLLECTIVE) {
    gcb__table_coll_record(t, rec);
    fflush(t->out);
    return GCB_OK;
  }
  if (strcmp(rec->bench, "pattern") == 0) {
    gcb__table_pattern_record(t, rec);
    fflush(t->out);
    return GCB_OK;
  }
  struct gcb_record_summary sum;
  gcb_record_summarize(rec, &sum);
  char time[32], check[48];
  gcb_format_seconds(sum.time.median, time, sizeof time);
  gcb__table_check_cell(&sum, check, sizeof check);
  print_header(t, rec);
  print_params(t, rec);
  fprintf(t->out, " %12s %10.2f %10.2f %10.2f %6.1f%%  %s\n", time,
          sum.figure.median, sum.figure.min, sum.figure.max,
          100.0 * sum.imbalance, check);
  sweep_note(t, rec, sum.figure.median);
  snprintf(t->sweep_unit, sizeof t->sweep_unit, "%s", rec->figure.unit);
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
    bool osu = gcb__table_osu(rec);
    /* nccl-tests prints a case with no element as a 0 0 row: so does its
     * layout, gcbench's reason going to gcbench's own stream only */
    if (rec->empty && !osu) {
      flush_skips(t);
      gcb__table_coll_empty(t, rec);
      if (t->own)
        print_skip(t, t->own, rec, reason);
      fflush(t->out);
      return GCB_OK;
    }
    if (!osu)
      gcb__table_coll_flush_row(t);
    /* a case's skip (not a whole benchmark's: no operation) is told in its
     * collective's block */
    if (*gcb_record_text(rec, "op") != '\0') {
      if (osu)
        gcb__table_osu_begin(t, rec);
      else
        gcb__table_coll_begin(t, rec);
    }
  }
  if (strcmp(t->last_skip, reason) == 0) {
    t->skip_repeats++;
    return GCB_OK;
  }
  flush_skips(t);
  /* gcbench's line: beside another tool's layout, on its own stream */
  print_skip(t,
             rec->layout == GCB_LAYOUT_COLLECTIVE && t->own ? t->own : t->out,
             rec, reason);
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
  gcb__table_coll_flush_row(t);
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
  gcb__table_flush(t);
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
  double now = gcb__table_now();
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
