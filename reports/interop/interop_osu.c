/*
 * OSU micro-benchmarks stdout, one benchmark or several concatenated:
 * "# OSU MPI Allreduce Latency Test v7.1", optional lines such as
 * "# Datatype: MPI_CHAR." or "# [ pairs: 48 ] [ window size: 64 ]", a
 * column line ("# Size      Bandwidth (MB/s)"; with -f "# Size  Avg
 * Latency(us)  Min Latency(us)  Max Latency(us)  Iterations"; with -c a
 * "Validation" column; osu_barrier's has no Size: "# Avg Latency(us)"
 * and rows of one value, four with -f), then rows. Columns are separated
 * by two or more blanks, as OSU prints them.
 *
 * The programs gcbench also runs (osu_latency, osu_bw, osu_bibw,
 * osu_multi_lat, osu_mbw_mr, the blocking collectives, osu_barrier)
 * become the "coll" cases gcbench's own drop-in of that program writes
 * (the first part below). The rank count, which OSU does not print, is 2
 * for point-to-point tests, twice osu_mbw_mr's pairs, or what a launcher
 * line in the file says ("mpirun -np 8 ..."); without it the per-rank
 * sizes stay OSU's, and no busbw is made up. Every other table (non-
 * blocking variants, one-sided, OpenSHMEM ...) is kept as imported
 * figures with OSU's names and units.
 *
 * That case (bench/benches/osu_options.c sets its coll options,
 * bench/run/table.c prints OSU's table from the record) is: bench "coll",
 * params op, size (nccl-tests' S: each rank's block times the ranks for
 * allgather, alltoall, gather and scatter), count, type (MPI_CHAR is int8 for
 * collectives, uint8 for the point-to-point ops and barrier), redop ("none" or
 * "sum"), root (0 for rooted ops, else -1), inplace 0, split "none", comm_size,
 * layout ("osu", "osu-full" with -f, "osu-multi") and average (0
 * point-to-point, 4 multi-pair), window where osu_mbw_mr's is not 64; figure
 * algbw = S/t in GB/s, busbw with the bus factor where the rank count is known.
 *
 * The time per message follows gcbench's table backwards: a latency
 * column is the time; MB/s = pairs * size / 1e6 / t and Messages/s =
 * pairs / t (osu_bw and osu_bibw: one pair). The bus factors repeat
 * collectives/ops.c's, as reports/ does not link the benchmarks.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/interop/interop_int.h"

#define GCB__OSU_MAX_COLS 12

/* How gcbench runs an OSU program (bench/benches/osu_options.c): a
 * collective over every rank, a point-to-point test of two ranks, or N/2
 * pairs at once. */
enum gcb__osu_kind { GCB__OSU_COLL, GCB__OSU_PT2PT, GCB__OSU_MULTI };

/* One OSU program by its title, and the case gcbench writes for it. */
struct gcb__osu_op {
  const char *title; /* "Gather Latency" of "# OSU MPI Gather Latency Test" */
  const char *op;    /* gcbench coll's operation */
  enum gcb__osu_kind kind;
  /* PER_RANK: OSU's size is each rank's block (gcbench's S is size*n);
   * SIZELESS: osu_barrier, no size column */
  enum { PER_RANK = 1, ROOTED = 2, REDUCES = 4, SIZELESS = 8 } traits;
  char factor; /* busbw/algbw: 'a' 2(n-1)/n, 'g' (n-1)/n, '1' one */
};

struct gcb__osu {
  struct gcb__conv *cv;
  char *bench; /* "Allreduce Latency", from the title line, whole (heap) */
  const struct gcb__osu_op *known; /* NULL: imported figures */
  char type[24];                   /* from "# Datatype: MPI_INT." */
  char col[GCB__OSU_MAX_COLS][40]; /* column names */
  size_t ncols;
  bool started, sizeless; /* sizeless: no "Size" column (osu_barrier) */
  size_t rows;
  long long ranks;         /* the benchmark's rank count; 0: unknown */
  long long next_ranks;    /* from a launcher line, for the next title */
  long long pairs, window; /* osu_mbw_mr's "# [ pairs: N ] [ window ... ]" */
  long long max_ranks;     /* run.ranks */
  struct gcb__failure failure; /* the program under way failed: the lines up
                                  to the next title are its trace */
  char version[16];            /* "7.5" of "... Test v7.5"; "" none */
};

/* ---- the programs gcbench also runs ------------------------------------- */

/* OSU's titles (5.x and 7.x) and gcbench's names; titles match whole. */
static const struct gcb__osu_op ops[] = {
    {"Allreduce Latency", "allreduce", GCB__OSU_COLL, REDUCES, 'a'},
    {"Allgather Latency", "allgather", GCB__OSU_COLL, PER_RANK, 'g'},
    {"All-to-All Personalized Exchange Latency", "alltoall", GCB__OSU_COLL,
     PER_RANK, 'g'},
    {"All-to-All Latency", "alltoall", GCB__OSU_COLL, PER_RANK, 'g'},
    {"Broadcast Latency", "broadcast", GCB__OSU_COLL, ROOTED, '1'},
    {"Reduce Latency", "reduce", GCB__OSU_COLL, ROOTED | REDUCES, '1'},
    {"Reduce_scatter Latency", "reducescatter", GCB__OSU_COLL, REDUCES, 'g'},
    {"Reduce Scatter Latency", "reducescatter", GCB__OSU_COLL, REDUCES, 'g'},
    {"Gather Latency", "gather", GCB__OSU_COLL, PER_RANK | ROOTED, 'g'},
    {"Scatter Latency", "scatter", GCB__OSU_COLL, PER_RANK | ROOTED, 'g'},
    {"Barrier Latency", "barrier", GCB__OSU_COLL, SIZELESS, '1'},
    {"Latency", "latency", GCB__OSU_PT2PT, 0, '1'},
    {"Bandwidth", "bandwidth", GCB__OSU_PT2PT, 0, '1'},
    {"Bi-Directional Bandwidth", "bibw", GCB__OSU_PT2PT, 0, '1'},
    {"Multi Latency", "latency", GCB__OSU_MULTI, 0, '1'},
    {"Multiple Bandwidth / Message Rate", "bandwidth", GCB__OSU_MULTI, 0, '1'},
};

/* The program titled `title`, or NULL. */
static const struct gcb__osu_op *op_of(const char *title) {
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (strcmp(title, ops[i].title) == 0)
      return &ops[i];
  return NULL;
}

/* Column index whose name starts with prefix, or -1. */
static int col_index(const struct gcb__osu *o, const char *prefix) {
  for (size_t i = 0; i < o->ncols; i++)
    if (strncmp(o->col[i], prefix, strlen(prefix)) == 0)
      return (int)i;
  return -1;
}

/* gcbench's type for OSU's datatype ("" before 7.0, which printed none:
 * MPI_FLOAT for its reductions, MPI_CHAR otherwise); *bytes its size. */
static const char *type_of(const struct gcb__osu *o, double *bytes) {
  const char *t = o->type[0]                   ? o->type
                  : o->known->traits & REDUCES ? "float"
                                               : "char";
  *bytes = 1;
  bool pt2pt = o->known->kind != GCB__OSU_COLL || o->known->traits & SIZELESS;
  if (strcmp(t, "char") == 0)
    return pt2pt ? "uint8" : "int8";
  const struct gcb__coll_type *ty = gcb__coll_type(t);
  *bytes = ty != NULL ? ty->bytes : 1;
  /* an MPI type gcbench does not run: kept, matches none */
  return ty != NULL ? ty->gcb : o->type;
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
  int lat = col_index(o, "Avg Latency"), bw = col_index(o, "Bandwidth"),
      rate = col_index(o, "Messages/s");
  lat = lat >= 0 ? lat : col_index(o, "Latency");
  bw = bw >= 0 ? bw : col_index(o, "MB/s");
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
static void layout_params(const struct gcb__osu *o, long long n,
                          struct gcb__params *p) {
  bool full = col_index(o, "Min Latency") >= 0;
  enum gcb__osu_kind k = o->known->kind;
  gcb__param_str(p, "split", "none");
  gcb__param_str(p, "layout",
                 full                  ? "osu-full"
                 : k == GCB__OSU_MULTI ? "osu-multi"
                                       : "osu");
  if (n > 0)
    gcb__param_int(p, "comm_size", n);
  if (k != GCB__OSU_COLL)
    gcb__param_int(p, "average", k == GCB__OSU_MULTI ? 4 : 0);
  if (o->window > 0 && o->window != 64)
    gcb__param_int(p, "window", o->window);
}

/* A row of o->known's table (tok: one token per column; size 0 when
 * sizeless) as gcbench's coll case. */
static enum gcb_status known_row(struct gcb__osu *o, char **tok, double size,
                                 int line) {
  const struct gcb__osu_op *k = o->known;
  long long n = o->ranks;
  double bytes, v;
  for (size_t c = o->sizeless ? 0 : 1; c < o->ncols; c++) {
    if (strcmp(o->col[c], "Validation") == 0)
      continue;
    if (!gcb__token_number(tok[c], &v))
      return gcb__conv_bad_line(o->cv, line, "%s: %s '%.20s' is not a number",
                                o->bench, o->col[c], tok[c]);
    if (v < 0) /* times, rates, iterations: never below 0 */
      return gcb__conv_bad_line(o->cv, line, "%s: %s '%.20s' is negative",
                                o->bench, o->col[c], tok[c]);
  }
  /* A message of 0 bytes is a message still (osu_latency's first row, its
   * small-message latency): its time is kept, as a barrier's */
  struct gcb__coll_row r = {.root = k->traits & ROOTED ? 0 : -1,
                            .line = line,
                            .no_bytes = (k->traits & SIZELESS) || size == 0};
  snprintf(r.type, sizeof r.type, "%s", type_of(o, &bytes));
  snprintf(r.redop, sizeof r.redop, "%s", k->traits & REDUCES ? "sum" : "none");
  bool per_rank = k->traits & PER_RANK;
  r.size = per_rank && n > 0 ? size * (double)n : size;
  if (r.size > GCB__MAX_COUNT)
    return gcb__conv_bad_line(o->cv, line,
                              "%s: %.0f B per rank on %lld ranks is %.3g B, "
                              "not a message size (more than 2^53)",
                              o->bench, size, n, r.size);
  r.count = floor((per_rank ? size : r.size) / bytes);
  if (strcmp(k->op, "reducescatter") == 0 && n > 0)
    r.count = floor(r.count / (double)n); /* each rank's, as nccl-tests */
  struct gcb__coll_half *h = &r.half[0];
  int mn = col_index(o, "Min Latency"), mx = col_index(o, "Max Latency"),
      it = col_index(o, "Iterations"), val = col_index(o, "Validation");
  *h = gcb__coll_half(time_us(o, tok, size), NAN, NAN, val >= 0,
                      val >= 0 && strcmp(tok[val], "Pass") != 0);
  if (mn >= 0)
    gcb__token_number(tok[mn], &h->us_min);
  if (mx >= 0)
    gcb__token_number(tok[mx], &h->us_max);
  double iters = 0;
  if (it >= 0 && gcb__token_number(tok[it], &iters) && iters >= 0 &&
      iters < 9e15)
    r.iterations = (long long)iters;
  if (h->us > 0) {
    h->alg = r.size / (h->us * 1e3); /* bytes per us / 1e3: GB/s */
    h->bus = h->alg * bus_factor(k->factor, n);
  }
  struct gcb__params extra = {0};
  layout_params(o, n, &extra);
  r.extra = &extra;
  return gcb__coll_row_cases(o->cv, k->op, &r, n, 0, 0, "OSU -c");
}

/* ---- reading ------------------------------------------------------------ */

static int detect(const struct gcb__sniff *s, char *why, size_t size) {
  if (gcb__text_has(s->text, s->len, "# OSU ", GCB__DETECT_WINDOW))
    return 70;
  snprintf(why, size, "no \"# OSU ... Test\" title");
  return 0;
}

/* "# OSU MPI Allreduce Latency Test v5.7.1" (also "MPI-CUDA", "OpenSHMEM"). */
static enum gcb_status title(struct gcb__osu *o, const struct gcb__line *l) {
  char *t = gcb__text_printf("%.*s", (int)l->len, l->at);
  if (t == NULL)
    return gcb__conv_nomem(o->cv);
  const char *v = strstr(t, " Test v"); /* the first title's */
  if (v != NULL && o->version[0] == '\0')
    snprintf(o->version, sizeof o->version, "%.*s",
             (int)strspn(v + 7, "0123456789."), v + 7);
  char *p = strstr(t, "OSU "), *end = strstr(t, " Test");
  p = p ? strchr(p + 4, ' ') : NULL; /* past "OSU MPI" */
  free(o->bench);
  if (p == NULL || end == NULL || end <= p)
    o->bench = t;
  else {
    o->bench = gcb__text_printf("%.*s", (int)(end - p - 1), p + 1);
    free(t);
    if (o->bench == NULL)
      return gcb__conv_nomem(o->cv);
  }
  o->type[0] = '\0';
  o->ncols = 0;
  o->started = true;
  o->sizeless = false;
  o->rows = 0;
  o->pairs = o->window = 0;
  o->known = op_of(o->bench);
  /* OSU's point-to-point tests need exactly two processes */
  o->ranks = o->known && o->known->kind == GCB__OSU_PT2PT ? 2 : o->next_ranks;
  o->next_ranks = 0;
  return GCB_OK;
}

/* "# Size   Avg Latency(us)   Min ..." (or osu_barrier's "# Avg
 * Latency(us) ..." without Size) split at runs of 2+ blanks. */
static bool columns(struct gcb__osu *o, const struct gcb__line *l) {
  size_t i = 0, n = 0;
  while (i < l->len && (l->at[i] == '#' || l->at[i] == ' '))
    i++;
  while (i < l->len && n < GCB__OSU_MAX_COLS) {
    size_t s = i;
    while (i < l->len &&
           !(l->at[i] == ' ' && i + 1 < l->len && l->at[i + 1] == ' ') &&
           l->at[i] != '\t')
      i++;
    size_t e = i;
    while (e > s && l->at[e - 1] == ' ')
      e--;
    if (e > s)
      snprintf(o->col[n++], sizeof o->col[0], "%.*s", (int)(e - s), l->at + s);
    while (i < l->len && (l->at[i] == ' ' || l->at[i] == '\t'))
      i++;
  }
  bool sized = n >= 2 && strcmp(o->col[0], "Size") == 0;
  bool sizeless = n >= 1 && strncmp(o->col[0], "Avg Latency", 11) == 0;
  if (!sized && !sizeless)
    return false;
  o->ncols = n;
  o->sizeless = sizeless;
  return true;
}

/* The unit in a column name: "(MB/s)", "Latency(us)"; "MB/s" alone;
 * whole (free it), NULL on ENOMEM. */
static char *unit_of(const char *col) {
  const char *open = strrchr(col, '(');
  if (open != NULL)
    return gcb__text_printf("%.*s", (int)strcspn(open + 1, ")"), open + 1);
  return gcb__text_printf("%s", strchr(col, '/') ? col : "count");
}

/* A table gcbench has no program for: one imported figure per numeric
 * column (tok[0] is the size, or the first value where sizeless); a
 * Validation column (-c) that does not say Pass, an error of the row, as
 * in the tables gcbench runs (OSU 7.4 prints it for the non-blocking
 * collectives too: print_stats_nbc). */
static enum gcb_status figure_row(struct gcb__osu *o, char **tok, double size,
                                  int line) {
  enum gcb_status st = GCB_OK;
  for (size_t c = o->sizeless ? 0 : 1; c < o->ncols && st == GCB_OK; c++) {
    double v;
    if (strcmp(o->col[c], "Validation") == 0 && strcmp(tok[c], "Pass") != 0) {
      char *label = gcb__text_printf("OSU %s %.0fB", o->bench, size);
      st = label == NULL ? gcb__conv_nomem(o->cv)
                         : gcb__conv_error_at(o->cv, -1, "osu", label,
                                              "EVALIDATION", line,
                                              "%s: OSU's validation says "
                                              "'%.20s', not Pass",
                                              label, tok[c]);
      free(label);
      continue;
    }
    if (strcmp(o->col[c], "Iterations") == 0 || !gcb__token_number(tok[c], &v))
      continue;
    char *unit = unit_of(o->col[c]);
    char *label =
        gcb__text_printf("OSU %s %.0fB: %s", o->bench, size, o->col[c]);
    struct gcb__params p = {0};
    gcb__param_real(&p, "size", size);
    gcb__param_str(&p, "column", o->col[c]);
    st = label == NULL || unit == NULL
             ? gcb__conv_nomem(o->cv)
             : gcb__conv_figure(o->cv, "OSU", o->bench, label, &p, unit, v,
                                line);
    free(unit);
    free(label);
  }
  return st;
}

/* Whether every token is a number: a row of a table without sizes. */
static bool all_numbers(char **tok, size_t n) {
  double v;
  for (size_t i = 0; i < n; i++)
    if (!gcb__token_number(tok[i], &v))
      return false;
  return n > 0;
}

/* The row at r; a short one where the file ends is a cut (r->cut). */
static enum gcb_status row(struct gcb__osu *o, struct gcb__lines *r) {
  char **tok = r->tok;
  size_t n = r->n;
  int line = r->l.number;
  double size = 0;
  if (n > GCB__MAX_TOKENS) /* no OSU line has that many words */
    return gcb__line_leads_digit(&r->l)
               ? gcb__conv_bad_line(o->cv, line,
                                    "%s: row %zu is longer than OSU writes one "
                                    "(more than %d words, or %zu bytes of "
                                    "them)",
                                    o->bench, o->rows + 1, GCB__MAX_TOKENS,
                                    r->room)
               : GCB_OK;
  if (o->sizeless ? !all_numbers(tok, n)
                  : n == 0 || !gcb__token_number(tok[0], &size) || size < 0 ||
                        size != floor(size))
    return GCB_OK; /* not a row: MPI warnings, blank lines */
  if (size > GCB__MAX_COUNT)
    return gcb__conv_bad_line(o->cv, line,
                              "%s: size %.3g B is not a message size (more "
                              "than 2^53)",
                              o->bench, size);
  if (n != o->ncols)
    return gcb__lines_cut(r)
               ? GCB_OK
               : gcb__conv_bad_line(o->cv, line,
                                    "%s: row %zu has %zu columns, expected %zu",
                                    o->bench, o->rows + 1, n, o->ncols);
  if (o->sizeless && o->rows > 0)
    return gcb__conv_bad_line(o->cv, line,
                              "%s: a second row in a table without sizes "
                              "(OSU prints one)",
                              o->bench);
  o->rows++;
  /* a known program's table has its columns: else kept as figures */
  bool known =
      o->known != NULL && !(o->known->traits & SIZELESS) == !o->sizeless;
  return known ? known_row(o, tok, size, line) : figure_row(o, tok, size, line);
}

/* A number after `key` in the line's tokens ("pairs:" 8), or -1. */
static long long number_after(char **tok, size_t n, const char *key) {
  double v;
  for (size_t i = 0; n <= GCB__MAX_TOKENS && i + 1 < n; i++)
    if (strcmp(tok[i], key) == 0 && gcb__token_number(tok[i + 1], &v) &&
        v >= 1 && v <= 1 << 24 && v == floor(v))
      return (long long)v;
  return -1;
}

/* The count a launcher's flag gives at tok[i] ("-n 8", "-n8" for srun's
 * short forms, "--ntasks=8"), or 0. */
static long long flag_count(char **tok, size_t n, size_t i, const char *flag) {
  size_t f = strlen(flag);
  const char *v = NULL;
  if (strcmp(tok[i], flag) == 0 && i + 1 < n)
    v = tok[i + 1];
  else if (strncmp(tok[i], flag, f) == 0 && tok[i][f] == '=')
    v = tok[i] + f + 1;
  else if (f == 2 && strncmp(tok[i], flag, 2) == 0 && tok[i][2] != '\0')
    v = tok[i] + 2; /* srun -N2 */
  double x;
  if (v != NULL && gcb__token_number(v, &x) && x >= 1 && x <= 1 << 24 &&
      x == floor(x))
    return (long long)x;
  return 0;
}

/* "mpirun -np 16 ./osu_mbw_mr", "mpiexec -n 2 ...", "srun --ntasks=8",
 * "srun -N2 --ntasks-per-node=4" (nodes times tasks per node): the rank
 * count of the benchmark that follows, or 0. */
static long long launcher_ranks(char **tok, size_t n) {
  static const char *const launchers[] = {"mpirun", "mpiexec", "srun",
                                          "orterun"};
  static const char *const flags[] = {"-np", "-n", "--np", "--n", "--ntasks"};
  size_t i = 0;
  for (bool found = false; n <= GCB__MAX_TOKENS && i < n && !found; i++) {
    const char *base = gcb__conv_base_name(tok[i]);
    for (size_t k = 0; k < sizeof launchers / sizeof *launchers; k++)
      found = found || strcmp(base, launchers[k]) == 0;
  }
  long long nodes = 0, per_node = 0, x;
  for (; n <= GCB__MAX_TOKENS && i < n; i++) {
    for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
      if ((x = flag_count(tok, n, i, flags[k])) > 0)
        return x;
    if ((x = flag_count(tok, n, i, "-N")) > 0 ||
        (x = flag_count(tok, n, i, "--nodes")) > 0)
      nodes = x;
    if ((x = flag_count(tok, n, i, "--ntasks-per-node")) > 0)
      per_node = x;
  }
  return nodes > 0 && per_node > 0 ? nodes * per_node : 0;
}

/* "# Datatype: MPI_INT." as "int", "MPI_INT8_T" as "int8" (its digits
 * are its size); the line's own bytes only: a line is not NUL-terminated. */
static void datatype(struct gcb__osu *o, const struct gcb__line *l) {
  const char *t = l->at;
  while (*t == ' ' || *t == '\t') /* as gcb__line_starts skips them */
    t++;
  t += strlen("# Datatype: MPI_");
  size_t k = 0;
  while (k + 1 < sizeof o->type && t + k < l->at + l->len &&
         (isalnum((unsigned char)t[k]) || t[k] == '_')) {
    o->type[k] = (char)tolower((unsigned char)t[k]);
    k++;
  }
  if (k > 2 && strcmp(o->type + k - 2, "_t") == 0)
    k -= 2;
  o->type[k] = '\0';
}

/* The program a failure ended (at the file's end, or where the next
 * program's title follows its trace): its rows kept, its failure said,
 * the next failure its own. */
static enum gcb_status failed_program(struct gcb__osu *o) {
  enum gcb_status st =
      gcb__conv_failure(o->cv, &o->failure, "osu", o->bench ? o->bench : "log");
  o->failure = (struct gcb__failure){0};
  return st;
}

static enum gcb_status line(struct gcb__osu *o, struct gcb__lines *r) {
  const struct gcb__line *l = &r->l;
  bool starts = gcb__line_starts(l, "# OSU ");
  /* A failure ends its program: a crash's trace follows ("  0 0x00054db0
   * ..."), no rows, up to the next title. One before the first title is
   * no program's (an earlier job step's). */
  if (o->failure.lines > 0 && starts) {
    enum gcb_status st = failed_program(o);
    if (st != GCB_OK)
      return st;
  } else if (gcb__failure_trace(&o->failure, l, o->started))
    return GCB_OK;
  if (starts)
    return title(o, l);
  long long ranks = launcher_ranks(r->tok, r->n);
  if (ranks > 0) {
    o->next_ranks = ranks;
    return GCB_OK;
  }
  if (!o->started)
    return GCB_OK;
  if (gcb__line_starts(l, "# Datatype: MPI_")) {
    datatype(o, l);
    return GCB_OK;
  }
  if (gcb__line_starts(l, "# [ pairs:")) {
    o->pairs = number_after(r->tok, r->n, "pairs:");
    o->window = number_after(r->tok, r->n, "size:");
    if (o->pairs > 0 && o->ranks == 0)
      o->ranks = 2 * o->pairs; /* osu_mbw_mr: pairs = numprocs / 2 */
    return GCB_OK;
  }
  if (gcb__line_starts(l, "# Size") || gcb__line_starts(l, "#Size") ||
      (o->ncols == 0 && gcb__line_starts(l, "# Avg Latency")))
    return columns(o, l)
               ? GCB_OK
               : gcb__conv_bad_line(o->cv, l->number, "unreadable column line");
  if (o->ncols > 0 && o->ranks > o->max_ranks)
    o->max_ranks = o->ranks;
  return o->ncols > 0 ? row(o, r) : GCB_OK;
}

static enum gcb_status convert(struct gcb__conv *cv, const json_t *root) {
  (void)root;
  struct gcb__osu o = {.cv = cv};
  gcb__conv_run(cv, "OSU");
  struct gcb__lines r = {.text = cv->text, .len = cv->len, .room = 512};
  enum gcb_status st = GCB_OK;
  while (st == GCB_OK && r.cut == 0 && gcb__lines_next(&r))
    st = line(&o, &r);
  bool failed = o.failure.lines > 0; /* a cut after it is its trace's */
  if (st == GCB_OK && failed)
    st = failed_program(&o);
  if (st == GCB_OK && r.cut && !failed) /* the rows kept, the cut said */
    st = gcb__conv_timeout(cv, "osu", o.bench,
                           "the output ends at line %d inside a row of %s (a "
                           "timeout or a truncated copy): the rows before are "
                           "kept",
                           r.cut, o.bench);
  if (st == GCB_OK && cv->m->ncases == 0 && cv->m->nskips == 0 &&
      cv->m->nerrors == 0)
    st = gcb__conv_bad_line(cv, r.number, "no result rows");
  gcb__conv_run_set(cv, "ranks", gcb__mvalue_int(o.max_ranks));
  cv->m->run.version = gcb__model_str(cv->m, o.version);
  free(o.bench);
  return st;
}

const struct gcb__converter gcb__row_osu = {"OSU", GCB_FORMAT_OSU, false,
                                            detect, convert};
