/*
 * The live table's layout for collectives: nccl-tests' output, column for
 * column (NVIDIA/nccl-tests 2.19.6 src/util.cu: writeDeviceReport,
 * writeResultHeader, writeBenchmarkLine*, writeResultFooter), so scripts
 * that read nccl-tests' rows by position read gcbench's. One row per size
 * with the out-of-place and in-place halves (time, algbw, busbw, #wrong);
 * with --layout gcbench the min and max time over ranks of each half trail
 * the row. After nccl-tests' footers, gcbench's own line: the
 * latest-arriving rank.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/options.h"
#include "bench/run/table.h"

/* Where gcbench's own lines go (stderr under a nccl-tests program name). */
static FILE *own(const struct gcb_table *t) {
  return t->own ? t->own : t->out;
}

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
  if (t->mpi[0] != '\0')
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

static void print_header(struct gcb_table *t, const struct gcb_record *rec) {
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
static double shown_time(const struct gcb_record *rec,
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
  double time = shown_time(rec, &s);
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

/* Prints a waiting out-of-place half with an empty in-place half. */
void gcb__table_coll_flush_row(struct gcb_table *t) {
  if (!t->pending)
    return;
  fprintf(t->out, "%s%s\n", t->pending_row, t->pending_extra);
  t->pending = false;
}

void gcb__table_coll_begin(struct gcb_table *t, const struct gcb_record *rec) {
  char group[64];
  snprintf(group, sizeof group, "%s %s %s", rec->bench,
           gcb_record_text(rec, "op"), gcb_record_text(rec, "split"));
  if (gcb__table_enter(t, group))
    print_header(t, rec);
}

/* Puts one half into its row: an out-of-place half waits for its
 * in-place half, which completes the row. */
static void place_half(struct gcb_table *t, const struct gcb_record *rec,
                       const char *half, char *extra) {
  char key[96];
  gcb__table_coll_begin(t, rec);
  row_key(rec, key, sizeof key);
  bool inplace = gcb_record_int(rec, "inplace", 0) != 0;
  if (t->pending && (!inplace || strcmp(key, t->pending_key) != 0))
    gcb__table_coll_flush_row(t);
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

void gcb__table_coll_record(struct gcb_table *t, const struct gcb_record *rec) {
  char half[160], extra[64];
  gcb__table_coll_begin(t, rec);
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
void gcb__table_coll_empty(struct gcb_table *t, const struct gcb_record *rec) {
  char half[160], extra[64], zero[16];
  gcb__table_coll_begin(t, rec);
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

void gcb__table_coll_flush(struct gcb_table *t) {
  gcb__table_coll_flush_row(t);
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
