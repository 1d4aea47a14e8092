/*
 * A row of an OSU program that gcbench also runs, as the case gcbench's
 * drop-in of that program writes (bench/benches/osu_options.c sets its
 * coll options, bench/run/table.c prints OSU's table from the
 * record): bench "coll", params op, size (nccl-tests' S: each rank's block
 * times the ranks for allgather, alltoall, gather and scatter), count,
 * type (MPI_CHAR is int8 for collectives, uint8 for the point-to-point
 * ops and barrier), redop ("none" or "sum"), root (0 for rooted ops, else
 * -1), inplace 0, split "none", comm_size, layout ("osu", "osu-full" with
 * -f, "osu-multi") and average (0 point-to-point, 4 multi-pair), window
 * where osu_mbw_mr's is not 64; figure algbw = S/t in GB/s, busbw with
 * the bus factor where the rank count is known.
 *
 * The time per message follows gcbench's table backwards: a latency
 * column is the time; MB/s = pairs * size / 1e6 / t and Messages/s =
 * pairs / t (osu_bw and osu_bibw: one pair). The bus factors repeat
 * collectives/ops.c's, as reports/ does not link the benchmarks.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reports/interop/interop_osu.h"

/* OSU's titles (5.x and 7.x) and gcbench's names; titles match whole. */
static const struct gcb__osu_op ops[] = {
    {"Allreduce Latency", "allreduce", GCB__OSU_COLL, false, false, true, false,
     'a'},
    {"Allgather Latency", "allgather", GCB__OSU_COLL, true, false, false, false,
     'g'},
    {"All-to-All Personalized Exchange Latency", "alltoall", GCB__OSU_COLL,
     true, false, false, false, 'g'},
    {"All-to-All Latency", "alltoall", GCB__OSU_COLL, true, false, false, false,
     'g'},
    {"Broadcast Latency", "broadcast", GCB__OSU_COLL, false, true, false, false,
     '1'},
    {"Reduce Latency", "reduce", GCB__OSU_COLL, false, true, true, false, '1'},
    {"Reduce_scatter Latency", "reducescatter", GCB__OSU_COLL, false, false,
     true, false, 'g'},
    {"Reduce Scatter Latency", "reducescatter", GCB__OSU_COLL, false, false,
     true, false, 'g'},
    {"Gather Latency", "gather", GCB__OSU_COLL, true, true, false, false, 'g'},
    {"Scatter Latency", "scatter", GCB__OSU_COLL, true, true, false, false,
     'g'},
    {"Barrier Latency", "barrier", GCB__OSU_COLL, false, false, false, true,
     '1'},
    {"Latency", "latency", GCB__OSU_PT2PT, false, false, false, false, '1'},
    {"Bandwidth", "bandwidth", GCB__OSU_PT2PT, false, false, false, false, '1'},
    {"Bi-Directional Bandwidth", "bibw", GCB__OSU_PT2PT, false, false, false,
     false, '1'},
    {"Multi Latency", "latency", GCB__OSU_MULTI, false, false, false, false,
     '1'},
    {"Multiple Bandwidth / Message Rate", "bandwidth", GCB__OSU_MULTI, false,
     false, false, false, '1'},
};

const struct gcb__osu_op *gcb__osu_op_of(const char *title) {
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (strcmp(title, ops[i].title) == 0)
      return &ops[i];
  return NULL;
}

int gcb__osu_col(const struct gcb__osu *o, const char *prefix) {
  for (size_t i = 0; i < o->ncols; i++)
    if (strncmp(o->col[i], prefix, strlen(prefix)) == 0)
      return (int)i;
  return -1;
}

/* gcbench's type for OSU's datatype ("" before 7.0, which printed none:
 * MPI_FLOAT for its reductions, MPI_CHAR otherwise); *bytes its size. */
static const char *type_of(const struct gcb__osu *o, double *bytes) {
  static const struct {
    const char *mpi, *gcb;
    double bytes;
  } types[] = {{"char", "int8", 1},   {"int", "int32", 4},
               {"float", "float", 4}, {"double", "double", 8},
               {"long", "int64", 8},  {"short", "int16", 2},
               {"uint8", "uint8", 1}};
  const char *t = o->type[0] ? o->type : o->known->reduces ? "float" : "char";
  *bytes = 1;
  bool pt2pt = o->known->kind != GCB__OSU_COLL || o->known->sizeless;
  if (strcmp(t, "char") == 0)
    return pt2pt ? "uint8" : "int8";
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (strcmp(t, types[i].mpi) == 0) {
      *bytes = types[i].bytes;
      return types[i].gcb;
    }
  return o->type; /* an MPI type gcbench does not run: kept, matches none */
}

static double bus_factor(char f, long long n) {
  if (f == '1')
    return 1;
  if (n < 1)
    return NAN;
  return f == 'a' ? 2.0 * (double)(n - 1) / (double)n
                  : (double)(n - 1) / (double)n;
}

/* The time of one message in us: a latency column, or from MB/s or
 * Messages/s, whichever was printed with more digits; NAN where none is
 * finite and positive. */
static double time_us(const struct gcb__osu *o, char **tok, double size) {
  int lat = gcb__osu_col(o, "Avg Latency"), bw = gcb__osu_col(o, "Bandwidth"),
      rate = gcb__osu_col(o, "Messages/s");
  lat = lat >= 0 ? lat : gcb__osu_col(o, "Latency");
  bw = bw >= 0 ? bw : gcb__osu_col(o, "MB/s");
  double v = NAN, pairs = o->known->kind == GCB__OSU_MULTI && o->pairs > 0
                              ? (double)o->pairs
                              : 1;
  if (lat >= 0 && gcb__token_number(tok[lat], &v))
    return v > 0 ? v : NAN;
  /* both columns have two decimals: the larger number has more digits */
  double mbs = 0, per_s = 0;
  if (bw >= 0 && !(gcb__token_number(tok[bw], &mbs) && mbs > 0))
    mbs = 0;
  if (rate >= 0 && !(gcb__token_number(tok[rate], &per_s) && per_s > 0))
    per_s = 0;
  if (per_s > 0 && per_s >= mbs)
    return 1e6 * pairs / per_s;
  return mbs > 0 ? pairs * size / mbs : NAN;
}

/* The params gcbench adds to coll's (describe_run; osu_options.c). */
static json_t *layout_params(const struct gcb__osu *o, long long n) {
  bool full = gcb__osu_col(o, "Min Latency") >= 0;
  enum gcb__osu_kind k = o->known->kind;
  json_t *p = json_pack("{s:s, s:s}", "split", "none", "layout",
                        full                  ? "osu-full"
                        : k == GCB__OSU_MULTI ? "osu-multi"
                                              : "osu");
  if (n > 0)
    p = gcb__conv_param(p, "comm_size", json_integer(n));
  if (k != GCB__OSU_COLL)
    p = gcb__conv_param(p, "average",
                        json_integer(k == GCB__OSU_MULTI ? 4 : 0));
  if (o->window > 0 && o->window != 64)
    p = gcb__conv_param(p, "window", json_integer(o->window));
  return p;
}

enum gcb_status gcb__osu_known_row(struct gcb__osu *o, char **tok, double size,
                                   int line) {
  const struct gcb__osu_op *k = o->known;
  long long n = o->ranks;
  double bytes, v;
  for (size_t c = o->sizeless ? 0 : 1; c < o->ncols; c++)
    if (strcmp(o->col[c], "Validation") != 0 && !gcb__token_number(tok[c], &v))
      return gcb__conv_bad_line(o->cv, line, "%s: %s '%.20s' is not a number",
                                o->bench, o->col[c], tok[c]);
  struct gcb__coll_row r = {
      .root = k->rooted ? 0 : -1, .line = line, .no_bytes = k->sizeless};
  snprintf(r.type, sizeof r.type, "%s", type_of(o, &bytes));
  snprintf(r.redop, sizeof r.redop, "%s", k->reduces ? "sum" : "none");
  r.size = k->per_rank && n > 0 ? size * (double)n : size;
  if (r.size > GCB__MAX_COUNT)
    return gcb__conv_bad_line(o->cv, line,
                              "%s: %.0f B per rank on %lld ranks is %.3g B, "
                              "not a message size (more than 2^53)",
                              o->bench, size, n, r.size);
  r.count = floor((k->per_rank ? size : r.size) / bytes);
  if (strcmp(k->op, "reducescatter") == 0 && n > 0)
    r.count = floor(r.count / (double)n); /* each rank's, as nccl-tests */
  struct gcb__coll_half *h = &r.half[0];
  *h = (struct gcb__coll_half){.present = true, .alg = NAN, .bus = NAN};
  h->us = time_us(o, tok, size);
  int mn = gcb__osu_col(o, "Min Latency"), mx = gcb__osu_col(o, "Max Latency"),
      it = gcb__osu_col(o, "Iterations"), val = gcb__osu_col(o, "Validation");
  if (mn >= 0)
    gcb__token_number(tok[mn], &h->us_min);
  if (mx >= 0)
    gcb__token_number(tok[mx], &h->us_max);
  double iters = 0;
  if (it >= 0 && gcb__token_number(tok[it], &iters) && iters >= 0 &&
      iters < 9e15)
    r.iterations = (long long)iters;
  if (val >= 0) {
    h->checked = true;
    h->wrong = strcmp(tok[val], "Pass") != 0;
  }
  if (h->us > 0) {
    h->alg = r.size / (h->us * 1e3); /* bytes per us / 1e3: GB/s */
    h->bus = h->alg * bus_factor(k->factor, n);
  }
  json_t *extra = layout_params(o, n);
  if (extra == NULL)
    return gcb__conv_nomem(o->cv);
  r.extra = extra;
  enum gcb_status st = gcb__coll_row_cases(o->cv, k->op, &r, n, 0, 0, "OSU -c");
  json_decref(extra);
  return st;
}
