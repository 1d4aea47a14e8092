/*
 * The live table in OSU's layout (coll --layout osu / osu-full, and the
 * osu_* programs): what OSU micro-benchmarks 7.4 prints, byte for byte, so
 * that scripts reading OSU's output read gcbench's. print_preamble (a
 * blank line, "# OSU MPI Latency Test v7.4"), "# Datatype: MPI_CHAR.",
 * print_only_header ("%-10s%18s": "# Size", "Avg Latency(us)" or
 * "Bandwidth (MB/s)"; with -f "Min Latency(us)", "Max Latency(us)" and
 * "%12s" "Iterations"; with -c "Validation"), then one row per size
 * ("%-10d%18.2f", print_stats). FIELD_WIDTH is 18 as OSU's configure.ac
 * defines it, FLOAT_PRECISION 2 (osu_util.h). osu_barrier has no size
 * (show_size 0): no datatype line, "# Avg Latency(us)" and one "%17.2f"
 * row.
 */
#include <inttypes.h>
#include <string.h>

#include "bench/benches/osu_args.h"
#include "bench/run/table.h"

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

static enum gcb_osu_kind kind_of(const struct gcb_record *rec) {
  const struct gcb_osu_program *p =
      gcb__osu_program_of(gcb_record_text(rec, "op"));
  return p ? p->kind : GCB_OSU_COLL;
}

/* print_preamble (osu_util_mpi.c 7.4), once per collective: a blank line
 * and the title. */
static void print_preamble(struct gcb_table *t, const struct gcb_record *rec) {
  const char *op = gcb_record_text(rec, "op");
  const struct gcb_osu_program *p = gcb__osu_program_of(op);
  bool device = strcmp(rec->backend, "cuda") == 0;
  if (strcmp(t->osu_op, op) != 0) {
    snprintf(t->osu_op, sizeof t->osu_op, "%s", op);
    fprintf(t->out, "\n");
    if (p)
      gcb__osu_version(p, device, t->out);
    else /* no OSU program runs this one: say whose table it is */
      fprintf(t->out,
              "# OSU MPI%s %s Latency Test v" GCB_OSU_VERSION
              " layout (gcbench coll)\n",
              device ? "-CUDA" : "", op);
  }
}

/* print_preamble, then the datatype and the column line of each type
 * (OSU's -T all prints one block per type). */
static void print_header(struct gcb_table *t, const struct gcb_record *rec,
                         bool checked) {
  print_preamble(t, rec);
  if (gcb_record_int(rec, "inplace", 0)) /* OSU has no line for it: gcbench's */
    fprintf(t->out, "# gcbench: in place (one buffer)\n");
  fprintf(t->out, "# Datatype: %s.\n", mpi_type(gcb_record_text(rec, "type")));
  fprintf(t->out, "%-*s%*s", 10, "# Size", FIELD_WIDTH,
          kind_of(rec) == GCB_OSU_BW ? "Bandwidth (MB/s)" : "Avg Latency(us)");
  if (full(rec)) {
    fprintf(t->out, "%*s", FIELD_WIDTH, "Min Latency(us)");
    fprintf(t->out, "%*s", FIELD_WIDTH, "Max Latency(us)");
    fprintf(t->out, "%*s", 12, "Iterations");
  }
  if (checked)
    fprintf(t->out, "%*s", FIELD_WIDTH, "Validation");
  fprintf(t->out, "\n");
}

/* The time OSU prints: rank 0's for its point-to-point tests (coll -a 0),
 * the mean over ranks of each rank's mean for its collectives. */
static double shown_time(const struct gcb_record *rec,
                         const struct gcb_record_summary *s) {
  if (gcb_record_int(rec, "average", 1) == 0 && rec->nranks > 0)
    return rec->ranks[0].time_s;
  return s->time.mean;
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
    fprintf(t->out, "\n");
  }
  fprintf(t->out, "%*.*f", 17, 2, 1e6 * shown_time(rec, s));
  if (full(rec))
    fprintf(t->out, "%*.*f%*.*f%*d", FIELD_WIDTH, 2, 1e6 * s->time.min,
            FIELD_WIDTH, 2, 1e6 * s->time.max, 12, rec->iterations);
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
  if (kind_of(rec) == GCB_OSU_BW) /* osu_bw: size / 1e6 per message time */
    fprintf(t->out, "%*.*f", FIELD_WIDTH, 2,
            time > 0 ? (double)size / 1e6 / time : 0.0);
  else
    fprintf(t->out, "%*.*f", FIELD_WIDTH, 2, 1e6 * time);
  if (full(rec))
    fprintf(t->out, "%*.*f%*.*f%*d", FIELD_WIDTH, 2, 1e6 * s.time.min,
            FIELD_WIDTH, 2, 1e6 * s.time.max, 12, rec->iterations);
  if (s.checked)
    fprintf(t->out, "%*s", FIELD_WIDTH, s.wrong > 0 ? "Fail" : "Pass");
  fprintf(t->out, "\n");
}
