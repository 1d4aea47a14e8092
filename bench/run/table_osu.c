/*
 * The live table in OSU's layout (coll --layout osu / osu-full, and the
 * osu_* programs): what OSU micro-benchmarks 7.4 prints, byte for byte, so
 * that scripts reading OSU's output read gcbench's. print_preamble (a
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
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benches/osu_options.h"
#include "bench/run/table.h"
#include "collectives/comm.h"

#define FIELD_WIDTH 18

bool gcb__table_osu(const struct gcb_record *rec) {
  return strncmp(gcb_record_text(rec, "layout"), "osu", 3) == 0;
}

static bool full(const struct gcb_record *rec) {
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
static const struct gcb_osu_program *program(const struct gcb_record *rec) {
  const char *op = gcb_record_text(rec, "op");
  const struct gcb_osu_program *p = NULL;
  if (strcmp(gcb_record_text(rec, "layout"), "osu-multi") == 0)
    p = gcb__osu_program_multi(op);
  return p ? p : gcb__osu_program_of(op);
}

static enum gcb_osu_kind kind_of(const struct gcb_record *rec) {
  const struct gcb_osu_program *p = program(rec);
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
  if (gcb__osu_is_mbw_mr(program(rec)))
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

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
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
  const struct gcb_osu_program *p = program(rec);
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
static void print_header(struct gcb_table *t, const struct gcb_record *rec,
                         bool checked) {
  print_preamble(t, rec);
  if (gcb_record_int(rec, "inplace", 0)) /* OSU has no line for it: gcbench's */
    fprintf(t->out, "# gcbench: in place (one buffer)\n");
  fprintf(t->out, "# Datatype: %s.\n", mpi_type(gcb_record_text(rec, "type")));
  fprintf(t->out, "%-*s", 10, "# Size");
  print_columns(t, rec);
  if (full(rec)) {
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
static double shown_time(const struct gcb_record *rec,
                         const struct gcb_record_summary *s) {
  int64_t a = gcb_record_int(rec, "average", 1);
  if (a == 0 && rec->nranks > 0)
    return rec->ranks[0].time_s;
  if (a == 4)
    return gcb__table_initiators_mean(rec);
  return s->time.mean;
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

/* The figure columns of one row: osu_mbw_mr's MB/s and Messages/s summed
 * over the pairs (osu_mbw_mr.c 7.4: bw = size / 1e6 * pairs * iterations
 * * window / the senders' mean time, rate = 1e6 * bw / size; with the
 * time per message that is pairs * size / 1e6 / time and pairs / time),
 * osu_bw's and osu_bibw's MB/s (size / 1e6 per message time), or the
 * latency in microseconds. */
static void print_figures(struct gcb_table *t, const struct gcb_record *rec,
                          uint64_t size, double time) {
  double per_s = time > 0 ? 1 / time : 0;
  if (gcb__osu_is_mbw_mr(program(rec)))
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
  if (gcb__table_enter(t, group)) {
    print_preamble(t, rec);
    if (gcb_record_int(rec, "inplace", 0))
      fprintf(t->out, "# gcbench: in place (one buffer)\n");
    fprintf(t->out, "# Avg Latency(us)");
    if (full(rec))
      fprintf(t->out, "%*s%*s%*s", FIELD_WIDTH, "Min Latency(us)", FIELD_WIDTH,
              "Max Latency(us)", 12, "Iterations");
    print_tail_columns(t, rec);
    fprintf(t->out, "\n");
  }
  fprintf(t->out, "%*.*f", 17, 2, 1e6 * shown_time(rec, s));
  if (full(rec))
    fprintf(t->out, "%*.*f%*.*f%*d", FIELD_WIDTH, 2, 1e6 * s->time.min,
            FIELD_WIDTH, 2, 1e6 * s->time.max, 12, rec->iterations);
  print_tails(t, rec);
  fprintf(t->out, "\n");
}

void gcb__table_osu_record(struct gcb_table *t, const struct gcb_record *rec) {
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
  if (gcb__table_enter(t, group))
    print_header(t, rec, s.checked);
  uint64_t size = gcb__osu_size(
      gcb_record_text(rec, "op"), (uint64_t)gcb_record_int(rec, "size", 0),
      (int)gcb_record_int(rec, "comm_size", rec->nranks));
  double time = shown_time(rec, &s);
  fprintf(t->out, "%-*" PRIu64, 10, size);
  print_figures(t, rec, size, time);
  if (full(rec))
    fprintf(t->out, "%*.*f%*.*f%*d", FIELD_WIDTH, 2, 1e6 * s.time.min,
            FIELD_WIDTH, 2, 1e6 * s.time.max, 12, rec->iterations);
  if (s.checked)
    fprintf(t->out, "%*s", FIELD_WIDTH, s.wrong > 0 ? "Fail" : "Pass");
  print_tails(t, rec);
  fprintf(t->out, "\n");
}

void gcb__table_osu_begin(struct gcb_table *t, const struct gcb_record *rec) {
  if (strcmp(t->osu_op, gcb_record_text(rec, "op")) == 0)
    return;
  char group[sizeof t->group];
  /* a group of its own: the collective's first record still prints its
   * datatype and column lines (print_preamble prints the title once) */
  snprintf(group, sizeof group, "%s %s (skipped)", rec->bench,
           gcb_record_text(rec, "op"));
  gcb__table_enter(t, group);
  print_preamble(t, rec);
}
