/*
 * OSU's programs and OSU's dialect of coll's option table: OSU's own
 * option letters and long names (OSU micro-benchmarks 7.4,
 * c/util/osu_util_options.h: OMBOP_LONG_OPTIONS_ALL and the OMBOP__*
 * option strings) as rows of one more option group, each an alias of a
 * coll or harness option or a parse row that writes those options through
 * gcb_options_set. No second field and no rewritten argv: the options echo
 * is the run's own. Each program's defaults (its collective, OSU's sizes,
 * its per-size iteration rule, its timing loop and layout) are the
 * group's defaults hook. What gcbench cannot do as OSU does is refused
 * with one line, never ignored.
 */
#include "bench/benches/osu_options.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench/bench.h"
#include "bench/run/harness.h"
#include "collectives/comm.h"

/* The programs. OSU 7.4 titles (each program's BENCHMARK define). */
static const struct gcb_osu_program programs[] = {
    {"osu_latency", "latency", "Latency Test", GCB_OSU_LAT, NULL, false},
    {"osu_bw", "bandwidth", "Bandwidth Test", GCB_OSU_BW, NULL, false},
    {"osu_allreduce", "allreduce", "Allreduce Latency Test", GCB_OSU_COLL, NULL,
     false},
    {"osu_allgather", "allgather", "Allgather Latency Test", GCB_OSU_COLL, NULL,
     true},
    {"osu_alltoall", "alltoall",
     "All-to-All Personalized Exchange Latency Test", GCB_OSU_COLL, NULL, true},
    {"osu_bcast", "broadcast", "Broadcast Latency Test", GCB_OSU_COLL, NULL,
     false},
    {"osu_reduce", "reduce", "Reduce Latency Test", GCB_OSU_COLL, NULL, false},
    {"osu_reduce_scatter", "reducescatter", "Reduce_scatter Latency Test",
     GCB_OSU_COLL, NULL, false},
    {"osu_bibw", "bibw", "Bi-Directional Bandwidth Test", GCB_OSU_BW, NULL,
     false},
    {"osu_multi_lat", "latency", "Multi Latency Test", GCB_OSU_LAT, NULL,
     false},
    {"osu_mbw_mr", "bandwidth", "Multiple Bandwidth / Message Rate Test",
     GCB_OSU_BW, NULL, false},
    {"osu_barrier", "barrier", "Barrier Latency Test", GCB_OSU_COLL, NULL,
     false},
    {"osu_gather", "gather", "Gather Latency Test", GCB_OSU_COLL, NULL, true},
    {"osu_scatter", "scatter", "Scatter Latency Test", GCB_OSU_COLL, NULL,
     true},
};

#define NPROGRAMS (sizeof programs / sizeof *programs)

const struct gcb_osu_program *gcb__osu_program(const char *name) {
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  for (size_t i = 0; i < NPROGRAMS; i++)
    if (strcmp(programs[i].name, base) == 0)
      return &programs[i];
  return NULL;
}

const struct gcb_osu_program *gcb__osu_program_at(size_t i) {
  return i < NPROGRAMS ? &programs[i] : NULL;
}

const struct gcb_osu_program *gcb__osu_program_of(const char *op) {
  for (size_t i = 0; i < NPROGRAMS; i++) /* multi-pair: see _multi() */
    if (programs[i].op && !gcb__osu_multi_pair(&programs[i]) &&
        strcmp(programs[i].op, op) == 0)
      return &programs[i];
  return NULL;
}

bool gcb__osu_sizeless(const struct gcb_osu_program *p) {
  return p != NULL && p->op != NULL && strcmp(p->op, "barrier") == 0;
}

/* The programs that run N/2 pairs at once (see the header). */
static const char *const multi_pair_names[] = {"osu_multi_lat", "osu_mbw_mr"};

bool gcb__osu_multi_pair(const struct gcb_osu_program *p) {
  for (size_t i = 0;
       p && i < sizeof multi_pair_names / sizeof *multi_pair_names; i++)
    if (strcmp(p->name, multi_pair_names[i]) == 0)
      return true;
  return false;
}

const struct gcb_osu_program *gcb__osu_program_multi(const char *op) {
  for (size_t i = 0; i < NPROGRAMS; i++)
    if (gcb__osu_multi_pair(&programs[i]) && programs[i].op &&
        strcmp(programs[i].op, op) == 0)
      return &programs[i];
  return NULL;
}

bool gcb__osu_is_mbw_mr(const struct gcb_osu_program *p) {
  return p != NULL && gcb__osu_multi_pair(p) && p->kind == GCB_OSU_BW;
}

uint64_t gcb__osu_size(const char *op, uint64_t bytes, int nranks) {
  const struct gcb_osu_program *p = gcb__osu_program_of(op);
  return p && p->per_rank_size && nranks > 0 ? bytes / (uint64_t)nranks : bytes;
}

/* osu_util.h 7.4: LAT_LOOP_SMALL 10000, LAT_SKIP_SMALL 100, LAT_LOOP_LARGE
 * 1000, LAT_SKIP_LARGE 10; BW_LOOP_SMALL 100, BW_SKIP_SMALL 10,
 * BW_LOOP_LARGE 20, BW_SKIP_LARGE 2; COLL_LOOP_SMALL 1000, COLL_SKIP_SMALL
 * 100, COLL_LOOP_LARGE 100, COLL_SKIP_LARGE 10; "large" is a size above
 * LARGE_MESSAGE_SIZE 8192 (osu_latency.c: size > LARGE_MESSAGE_SIZE). */
void gcb__osu_defaults(enum gcb_osu_kind kind, bool large, long *iters,
                       long *warmup) {
  static const long table[3][2][2] = {
      [GCB_OSU_LAT] = {{10000, 100}, {1000, 10}},
      [GCB_OSU_BW] = {{100, 10}, {20, 2}},
      [GCB_OSU_COLL] = {{1000, 100}, {100, 10}},
  };
  *iters = table[kind][large][0];
  *warmup = table[kind][large][1];
}

/* --- the dialect's rows ---------------------------------------------------*/

/* OSU's size is each rank's block for some programs (see the header):
 * coll's minbytes and maxbytes are then nranks times it. */
static unsigned long long scale(const struct gcb_osu_cmd *cmd) {
  return cmd->p->per_rank_size && cmd->nranks > 0
             ? (unsigned long long)cmd->nranks
             : 1;
}

/* Option `name` of coll or the harness set to the number v, through its
 * own row. */
static enum gcb_status set_num(const struct gcb_option_call *c,
                               const char *name, unsigned long long v,
                               struct gcb_err *err) {
  char text[32];
  snprintf(text, sizeof text, "%llu", v);
  return gcb_options_set(c->groups, c->ngroups, name, text, err);
}

static enum gcb_status set(const struct gcb_option_call *c, const char *name,
                           const char *text, struct gcb_err *err) {
  return gcb_options_set(c->groups, c->ngroups, name, text, err);
}

static const struct gcb_osu_cmd *cmd_of(const struct gcb_option_call *c) {
  return c->target;
}

/* OSU's -m: "MAX", "MIN:MAX", "MIN:" or ":MAX" (set_message_size: a
 * minimum must be above 0, a maximum not negative), in OSU's size: coll's
 * --minbytes and --maxbytes are it times scale(). */
static enum gcb_status message_size(const struct gcb_option_call *c,
                                    const char *arg, struct gcb_err *err) {
  const char *colon = strchr(arg, ':');
  char *end;
  long long min = -1, max = -1;
  if (colon == NULL) {
    max = strtoll(arg, &end, 10);
    if (*arg == '\0' || *end != '\0' || max < 0)
      goto bad;
  } else {
    if (strchr(colon + 1, ':') != NULL || (colon == arg && colon[1] == '\0'))
      goto bad;
    if (colon != arg && ((min = strtoll(arg, &end, 10)) <= 0 || end != colon))
      goto bad;
    if (colon[1] != '\0' &&
        ((max = strtoll(colon + 1, &end, 10)) < 0 || *end != '\0'))
      goto bad;
  }
  if (max > (1ll << 40))
    return gcb_err_set(err, GCB_EUSAGE, "-m: %lld bytes is too large", max);
  enum gcb_status st = GCB_OK;
  unsigned long long k = scale(cmd_of(c));
  if (min >= 0)
    st = set_num(c, "minbytes", (unsigned long long)min * k, err);
  if (st == GCB_OK && max >= 0)
    st = set_num(c, "maxbytes", (unsigned long long)max * k, err);
  return st;
bad:
  return gcb_err_set(err, GCB_EUSAGE,
                     "-m/--message-size '%s': Invalid Message Size "
                     "(MAX, MIN:MAX, MIN: or :MAX, MIN above 0)",
                     arg);
}

static enum gcb_status count_arg(char letter, const char *arg, long lo,
                                 long *out, struct gcb_err *err) {
  char *end;
  long v = strtol(arg, &end, 10);
  if (*arg == '\0' || *end != '\0' || v < lo || v > 1000000000L)
    return gcb_err_set(err, GCB_EUSAGE,
                       "-%c '%s': expected a count of at least %ld", letter,
                       arg, lo);
  *out = v;
  return GCB_OK;
}

/* -i and -x set the count of every size (osu_util.c set_num_iterations,
 * set_num_warmup): the harness's for sizes up to GCB_OSU_LARGE_MESSAGE,
 * coll's -large one beyond. */
static enum gcb_status both_counts(const struct gcb_option_call *c,
                                   const char *arg, long lo, const char *small,
                                   const char *large, struct gcb_err *err) {
  long v = 0;
  enum gcb_status st = count_arg(c->row->short_name, arg, lo, &v, err);
  if (st == GCB_OK)
    st = set_num(c, small, (unsigned long long)v, err);
  if (st == GCB_OK)
    st = set_num(c, large, (unsigned long long)v, err);
  return st;
}

static enum gcb_status iterations(const struct gcb_option_call *c,
                                  const char *arg, struct gcb_err *err) {
  return both_counts(c, arg, 1, "iters", "iters-large", err);
}

static enum gcb_status warmup(const struct gcb_option_call *c, const char *arg,
                              struct gcb_err *err) {
  return both_counts(c, arg, 0, "warmup", "warmup-large", err);
}

static enum gcb_status full(const struct gcb_option_call *c, const char *arg,
                            struct gcb_err *err) {
  (void)arg;
  return set(c, "layout", "osu-full", err);
}

static enum gcb_status validation(const struct gcb_option_call *c,
                                  const char *arg, struct gcb_err *err) {
  if (arg != NULL)
    return gcb_err_set(err, GCB_EUSAGE,
                       "-c%s: validation logs are not supported; give -c "
                       "alone",
                       arg);
  return set(c, "check", "1", err);
}

/* osu_util.c 7.4: -z alone is 50,90,99; else P[,P...] */
static enum gcb_status tail_lat(const struct gcb_option_call *c,
                                const char *arg, struct gcb_err *err) {
  return set(c, "tail-lat", arg ? arg : "50,90,99", err);
}

/* -d: OSU's accelerator. cuda puts both buffers in device memory (gcbench
 * then runs NCCL, not a CUDA-aware MPI); host is gcbench's name for OSU's
 * default. */
static enum gcb_status accelerator(const struct gcb_option_call *c,
                                   const char *arg, struct gcb_err *err) {
  if (strcasecmp(arg, "cuda") == 0 || strcasecmp(arg, "host") == 0)
    return set(c, "backend", strcasecmp(arg, "cuda") == 0 ? "cuda" : "host",
               err);
  return gcb_err_set(err, GCB_EUSAGE,
                     "-d/--accelerator '%s': gcbench takes cuda (device "
                     "buffers, over NCCL) or host (the default); managed, "
                     "openacc, rocm and cxl are not supported",
                     arg);
}

/* OSU's -T (MPI_CHAR, MPI_INT, MPI_FLOAT, ALL) as coll's --datatype. */
static enum gcb_status type_arg(const struct gcb_option_call *c,
                                const char *arg, struct gcb_err *err) {
  static const struct {
    const char *osu, *types;
  } types[] = {{"MPI_CHAR", "int8"},
               {"MPI_INT", "int32"},
               {"MPI_FLOAT", "float"},
               {"ALL", "int8,int32,float"}};
  for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
    if (strcasecmp(arg, types[i].osu) != 0)
      continue;
    if (cmd_of(c)->p->kind != GCB_OSU_COLL && i != 0)
      return gcb_err_set(err, GCB_EUSAGE,
                         "-T: gcbench's point-to-point messages are bytes "
                         "(mpi_char only)");
    return set(c, "datatype", types[i].types, err);
  }
  return gcb_err_set(err, GCB_EUSAGE,
                     "-T/--type '%s': expected mpi_char, mpi_int, "
                     "mpi_float or all",
                     arg);
}

static enum gcb_status window(const struct gcb_option_call *c, const char *arg,
                              struct gcb_err *err) {
  long v = 0;
  enum gcb_status st = count_arg('W', arg, 1, &v, err);
  return st == GCB_OK ? set_num(c, "window", (unsigned long long)v, err) : st;
}

/* Whether OSU's program takes -k (osu_util_options.h 7.4: the option
 * strings of reduce, gather and scatter end in "k:"). */
static bool takes_root(const struct gcb_osu_program *p) {
  static const char *const rooted[] = {"reduce", "gather", "scatter"};
  for (size_t i = 0; p->op && i < sizeof rooted / sizeof *rooted; i++)
    if (strcmp(p->op, rooted[i]) == 0)
      return true;
  return false;
}

/* -k/--root-rank as osu_util.c 7.4 reads it: "fixed:N" is root N for
 * every iteration (coll's --root); "rotate" (root i % nprocs in
 * iteration i) is refused: gcbench's case has one root. */
static enum gcb_status root_rank(const struct gcb_option_call *c,
                                 const char *arg, struct gcb_err *err) {
  char *end;
  int nranks = cmd_of(c)->nranks;
  if (strncasecmp(arg, "fixed:", 6) == 0) {
    long v = strtol(arg + 6, &end, 10);
    if (arg[6] != '\0' && *end == '\0' && v >= 0 && v <= 1000000000L) {
      if (v >= nranks)
        return gcb_err_set(err, GCB_EUSAGE,
                           "-k fixed:%ld: Root rank('-k') cannot be more "
                           "than number of processes (%d here)",
                           v, nranks);
      return set_num(c, "root", (unsigned long long)v, err);
    }
  }
  if (strncasecmp(arg, "rotate", 6) == 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "-k rotate: not supported: gcbench keeps one root "
                       "for a whole case (-k fixed:N)");
  return gcb_err_set(err, GCB_EUSAGE,
                     "-k/--root-rank '%s': expected fixed:N or rotate", arg);
}

/* osu_mbw_mr's -p pairs, which osu_mbw_mr.c 7.4 overrides with
 * numprocs / 2 right after parsing (so only that value means what it
 * says); a world under two ranks is refused by gcb__osu_parse. */
static enum gcb_status num_pairs(const struct gcb_option_call *c,
                                 const char *arg, struct gcb_err *err) {
  long v = 0;
  int n = cmd_of(c)->nranks;
  enum gcb_status st = count_arg('p', arg, 1, &v, err);
  if (st == GCB_OK && n >= 2 && v != n / 2)
    return gcb_err_set(err, GCB_EUSAGE,
                       "-p %ld: OSU 7.4 runs n/2 = %d pairs whatever -p "
                       "says (osu_mbw_mr.c sets pairs = numprocs / 2); give "
                       "-p %d or leave it out",
                       v, n / 2, n / 2);
  return st;
}

/* osu_mbw_mr's -R 0|1: the Messages/s column, which gcbench prints. */
static enum gcb_status print_rate(const struct gcb_option_call *c,
                                  const char *arg, struct gcb_err *err) {
  (void)c;
  if (strcmp(arg, "1") == 0)
    return GCB_OK;
  return gcb_err_set(err, GCB_EUSAGE,
                     "-R %s: gcbench always prints the Messages/s column "
                     "(-R 1, OSU's default)",
                     arg);
}

static enum gcb_status version(const struct gcb_option_call *c, const char *arg,
                               struct gcb_err *err) {
  (void)arg;
  (void)err;
  ((struct gcb_osu_cmd *)c->target)->version = true;
  return GCB_OK;
}

/* OSU options gcbench refuses, each with its reason. */
static const struct {
  char letter;
  const char *why;
} refusals[] = {
    {'t', "the number of MPI_Test calls (-t) has no meaning here"},
    {'M', "gcbench sizes its buffers to -m; there is no memory limit (-M)"},
    {'a', "the device array size (-a) has no meaning here"},
    {'u', "gcbench validates once per size; no validation warm-up (-u)"},
    {'G', "no graph output (-G): gcbench report draws the plots"},
    {'D', "no derived datatypes (-D)"},
    {'P', "no PAPI counters (-P)"},
    {'I', "no MPI sessions (-I)"},
    {'l', "the OSU road runs out of place (-l: gcbench coll --placement "
          "in-place)"},
    {'k', "the root stays rank 0 (-k: gcbench coll --root RANK)"},
    {'b', "one buffer per window only (-b single)"},
    {'r', "no CUDA kernel target (-r)"},
    {'V', "no varied-window table (give one window with -W)"},
};

static enum gcb_status refusal(char letter, struct gcb_err *err) {
  for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++)
    if (refusals[i].letter == letter)
      return gcb_err_set(
          err, GCB_EUSAGE, "-%c: %s%s", letter,
          letter == 'V' ? "" : "not supported: ", refusals[i].why);
  return gcb_err_set(err, GCB_EUSAGE, "-%c: not supported", letter);
}

/* The parse function of each of OSU's rows, by letter. */
static const struct {
  char letter;
  enum gcb_status (*parse)(const struct gcb_option_call *c, const char *arg,
                           struct gcb_err *err);
} parsers[] = {
    {'m', message_size}, {'i', iterations}, {'x', warmup},   {'W', window},
    {'p', num_pairs},    {'R', print_rate}, {'f', full},     {'T', type_arg},
    {'k', root_rank},    {'c', validation}, {'z', tail_lat}, {'d', accelerator},
    {'v', version},
};

/* A row of OSU's: its letter's function, else a refused option. */
static enum gcb_status parse_row(const struct gcb_option_call *c,
                                 const char *arg, struct gcb_err *err) {
  for (size_t i = 0; i < sizeof parsers / sizeof *parsers; i++)
    if (parsers[i].letter == c->row->short_name)
      return parsers[i].parse(c, arg, err);
  return refusal(c->row->short_name, err);
}

/* OSU's options gcbench refuses: parsed (to say why, in one line) but not
 * listed in --help (their help is NULL). */
#define REFUSED(name, letter, metavar)                                         \
  GCB_OPT_PARSE_ROW(name, letter, metavar, NULL)

/* OSU 7.4's options (OMBOP_LONG_OPTIONS_ALL); each says in its help which
 * of coll's or the harness's options it writes. */
const struct gcb_option gcb_osu_options[] = {
    GCB_OPT_PARSE_ROW("message-size", 'm', "MIN:MAX",
                      "sizes from MIN to MAX bytes, doubling; MAX, MIN: or "
                      ":MAX alone (--minbytes, --maxbytes)"),
    GCB_OPT_PARSE_ROW("iterations", 'i', "ITER",
                      "timed iterations of every size (--iters, "
                      "--iters-large)"),
    GCB_OPT_PARSE_ROW("warmup", 'x', "ITER",
                      "warm-up iterations of every size (--warmup, "
                      "--warmup-large)"),
    GCB_OPT_PARSE_ROW("window-size", 'W', "SIZE",
                      "messages per window (--window; default 64)"),
    GCB_OPT_PARSE_ROW("num-pairs", 'p', "PAIRS",
                      "n/2, as OSU 7.4 sets it whatever -p says"),
    GCB_OPT_PARSE_ROW("print-rate", 'R', "1", "the Messages/s column (always)"),
    GCB_OPT_PARSE_ROW("full", 'f', NULL,
                      "min, max and iterations columns (--layout osu-full)"),
    GCB_OPT_PARSE_ROW("type", 'T', "TYPE",
                      "mpi_char, mpi_int, mpi_float or all (--datatype; "
                      "point-to-point programs: mpi_char)"),
    GCB_OPT_PARSE_ROW("root-rank", 'k', "fixed:N",
                      "root rank N (--root; default fixed:0; rotate is not "
                      "supported)"),
    GCB_OPT_PARSE_ROW("validation", 'c', "[LOG]",
                      "check every size's result (--check; Validation "
                      "column; LOG is not supported)"),
    GCB_OPT_PARSE_ROW("tail-lat", 'z', "[P,...]",
                      "tail latency columns at these percentiles (--tail-lat; "
                      "default 50,90,99)"),
    GCB_OPT_PARSE_ROW("accelerator", 'd', "cuda|host",
                      "buffers in device memory (over NCCL) or host memory "
                      "(MPI, the default) (--backend)"),
    GCB_OPT_ALIAS_ROW("output", 0, "output", "gcbench's results document"),
    GCB_OPT_ALIAS_ROW("force", 0, "force",
                      "overwrite an existing results document"),
    GCB_OPT_PARSE_ROW("version", 'v', NULL, "OSU's version line"),
    REFUSED("vary-window", 'V', NULL),
    REFUSED("num-test-calls", 't', "N"),
    REFUSED("mem-limit", 'M', "N"),
    REFUSED("array-size", 'a', "N"),
    REFUSED("validation-warmup", 'u', "N"),
    REFUSED("graph", 'G', "N"),
    REFUSED("ddt", 'D', "N"),
    REFUSED("papi", 'P', "N"),
    REFUSED("session", 'I', NULL),
    REFUSED("in-place", 'l', NULL),
    REFUSED("buffer-num", 'b', "N"),
    REFUSED("cuda-target", 'r', "N"),
    {0},
};

/* Which of OSU's rows are options of program p (osu_util_options.h 7.4:
 * each program's option string), with the line that refuses the rest. */
static enum gcb_status applies(const struct gcb_option *o, const void *target,
                               struct gcb_err *err) {
  const struct gcb_osu_program *p = ((const struct gcb_osu_cmd *)target)->p;
  char c = o->short_name;
  bool bw = p->kind == GCB_OSU_BW, coll = p->kind == GCB_OSU_COLL;
  if (gcb__osu_sizeless(p) && c != 0 && strchr("cTkl", c) != NULL)
    return gcb_err_set(err, GCB_EUSAGE,
                       "-%c: not an option of %s (OSU's barrier moves no "
                       "data: no type, validation, root or in place)",
                       c, p->name);
  if (c == 'k' && !takes_root(p))
    return refusal('k', err);
  if (c == 'f' && !coll)
    return gcb_err_set(err, GCB_EUSAGE,
                       "-f/--full: not an option of %s (OSU's full "
                       "statistics are its collectives')",
                       p->name);
  if (c == 'z' && (bw || gcb__osu_multi_pair(p)))
    return gcb_err_set(err, GCB_EUSAGE,
                       "-z: not supported: gcbench's tail columns are "
                       "latencies (osu_latency and the collectives)");
  /* OSU's PT2PT BW and MBW_MR option strings have -W; osu_mbw_mr alone
   * -p, -R and -V */
  if ((c == 'W' && !bw) ||
      (c != 0 && strchr("pRV", c) != NULL && !gcb__osu_is_mbw_mr(p)))
    return gcb_err_set(err, GCB_EUSAGE, "unknown option -%c (see %s --help)", c,
                       p->name);
  return GCB_OK;
}

/* OSU's defaults for program p (process_options, osu_util.c 7.4): its
 * collective, pt2pt sizes up to MAX_MESSAGE_SIZE (4 MiB) from
 * MIN_MESSAGE_SIZE 1 (osu_latency starts at 0, which 7.4 skips: no
 * elements), collectives up to MAX_MSG_SIZE_COLL (1 MiB), doubling; the
 * per-size iteration rule; MPI_CHAR; no validation; host buffers; the
 * whole world, out of place; OSU's timing loop and layout. */
static enum gcb_status program_defaults(const struct gcb_option_call *call,
                                        struct gcb_err *err) {
  const struct gcb_option_call c = *call;
  const struct gcb_osu_cmd *cmd = cmd_of(&c);
  const struct gcb_osu_program *p = cmd->p;
  if (p->refused)
    return gcb_err_set(err, GCB_EUSAGE, "not supported: %s", p->refused);
  bool coll = p->kind == GCB_OSU_COLL, multi = gcb__osu_multi_pair(p);
  /* OSU's loops: collectives with a barrier outside the timed region
   * (-z 3), pt2pt each operation timed alone, no barrier (-z 4), and so
   * is osu_barrier's (a barrier is its own separator); the figure every
   * rank's mean (collectives) or rank 0's (pt2pt). The multi-pair
   * programs put a barrier before each exchange (-z 3) and average over
   * the pairs' initiators (-a 4). */
  const struct {
    const char *name, *text;
  } fixed[] = {
      {"collective", p->op},
      {"layout", multi ? "osu-multi" : "osu"},
      {"placement", "out-of-place"},
      {"stepfactor", "2"},
      {"check", "0"},
      {"blocking", (coll && !gcb__osu_sizeless(p)) || multi ? "3" : "4"},
      {"average", coll    ? "1"
                  : multi ? "4"
                          : "0"},
      {"backend", "host"},
      {"datatype", "int8"},
      {"split", "none"}, /* OSU measures the world, never a split of it */
  };
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; st == GCB_OK && i < sizeof fixed / sizeof *fixed; i++)
    st = set(&c, fixed[i].name, fixed[i].text, err);
  long counts[2][2];
  gcb__osu_defaults(p->kind, false, &counts[0][0], &counts[0][1]);
  gcb__osu_defaults(p->kind, true, &counts[1][0], &counts[1][1]);
  const struct {
    const char *name;
    unsigned long long v;
  } numbers[] = {
      {"minbytes", scale(cmd)},
      {"maxbytes", (coll ? 1ull << 20 : 1ull << 22) * scale(cmd)},
      {"iters", (unsigned long long)counts[0][0]},
      {"warmup", (unsigned long long)counts[0][1]},
      {"iters-large", (unsigned long long)counts[1][0]},
      {"warmup-large", (unsigned long long)counts[1][1]},
  };
  for (size_t i = 0; st == GCB_OK && i < sizeof numbers / sizeof *numbers; i++)
    st = set_num(&c, numbers[i].name, numbers[i].v, err);
  return st;
}

void gcb__osu_groups(struct gcb_osu_cmd *cmd, void *run, void *coll,
                     struct gcb_option_group groups[GCB_OSU_NGROUPS],
                     struct gcb_option_dialect *d) {
  groups[0] = (struct gcb_option_group){"run options", gcb_run_options, run};
  groups[1] =
      (struct gcb_option_group){"coll", gcb_bench_find("coll")->options, coll};
  *d = (struct gcb_option_dialect){.title = "OSU options",
                                   .options = gcb_osu_options,
                                   .target = cmd,
                                   .parse = parse_row,
                                   .applies = applies,
                                   .defaults = program_defaults};
}

/* OSU's pt2pt positional buffer places after -d ("D D", "H H"): gcbench
 * puts both buffers in one place. */
static enum gcb_status places(const struct gcb_option_call *c,
                              const char *const *word, int n,
                              struct gcb_err *err) {
  const struct gcb_osu_program *p = cmd_of(c)->p;
  if (n == 0)
    return GCB_OK;
  const char *a = word[0], *b = n > 1 ? word[1] : "";
  if (p->kind != GCB_OSU_COLL && n == 2 && strlen(a) == 1 &&
      strcmp(a, b) == 0 && (*a == 'D' || *a == 'H'))
    return set(c, "backend", *a == 'D' ? "cuda" : "host", err);
  if (p->kind == GCB_OSU_COLL)
    return gcb_err_set(err, GCB_EUSAGE, "unexpected argument '%s'", a);
  return gcb_err_set(err, GCB_EUSAGE,
                     "'%s%s%s': gcbench puts both buffers in one place: "
                     "D D (device) or H H (host)",
                     a, n > 1 ? " " : "", b);
}

/* The process counts OSU's programs run on: the pt2pt ones exactly two;
 * osu_mbw_mr two or more (an odd last rank sits out, as there);
 * osu_multi_lat an even count, since its odd last rank would wait forever
 * for a partner (rank 2 * pairs pairs with rank `pairs`, which answers
 * rank 0 only: osu_multi_lat.c 7.4). */
static enum gcb_status world_check(const struct gcb_osu_cmd *cmd,
                                   struct gcb_err *err) {
  const struct gcb_osu_program *p = cmd->p;
  int n = cmd->nranks;
  if (p->kind != GCB_OSU_COLL && !gcb__osu_multi_pair(p) && n != 2)
    return gcb_err_set(err, GCB_EUSAGE,
                       "This test requires exactly two processes (%d here; "
                       "gcbench coll --collective %s runs pairs on any even "
                       "count)",
                       n, p->op);
  if (gcb__osu_multi_pair(p) && n < 2)
    return gcb_err_set(err, GCB_EUSAGE,
                       "This test requires at least two processes");
  if (gcb__osu_multi_pair(p) && p->kind == GCB_OSU_LAT && n % 2 != 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "an even number of processes is needed (%d here): "
                       "OSU pairs rank i with i + n/2 and its odd last rank "
                       "would wait forever",
                       n);
  return GCB_OK;
}

/* OSU's loop starts at the minimum and doubles; sizes with no whole
 * element of the smallest type are skipped (osu_latency.c 7.4:
 * num_elements 0, continue), so coll's sweep starts at the first size
 * that has one. */
static enum gcb_status first_size(const struct gcb_option_call *c,
                                  struct gcb_err *err) {
  const uint64_t *min = gcb_options_value(c->groups, c->ngroups, "minbytes");
  const uint64_t *max = gcb_options_value(c->groups, c->ngroups, "maxbytes");
  const uint32_t *types = gcb_options_value(c->groups, c->ngroups, "datatype");
  if (min == NULL || max == NULL || types == NULL)
    return gcb_err_set(err, GCB_EINTERNAL, "coll's sizes are not options");
  uint64_t elt = 0;
  for (int t = 0; t < GCB_COLL_DTYPE_COUNT; t++)
    if ((*types >> t) & 1) {
      uint64_t size = gcb_coll_dtype_size((enum gcb_coll_dtype)t);
      elt = elt == 0 || size < elt ? size : elt;
    }
  uint64_t b = *min, whole = (elt ? elt : 1) * scale(cmd_of(c));
  while (b < whole && b <= *max)
    b *= 2;
  return b == *min ? GCB_OK : set_num(c, "minbytes", b, err);
}

enum gcb_status gcb__osu_parse(const struct gcb_option_dialect *d,
                               const struct gcb_option_group *groups, int argc,
                               char **argv, bool *help, struct gcb_err *err) {
  struct gcb_osu_cmd *cmd = d->target;
  struct gcb_option_call c = {groups, GCB_OSU_NGROUPS, NULL, cmd};
  const char *word[8];
  int nwords = 0;
  cmd->version = false;
  enum gcb_status st = gcb_options_parse_dialect(
      d, groups, GCB_OSU_NGROUPS, argc, argv, help, word, 8, &nwords, err);
  if (st == GCB_OK && !*help && !cmd->version)
    st = places(&c, word, nwords, err);
  if (st == GCB_OK && !*help && !cmd->version)
    st = world_check(cmd, err);
  if (st == GCB_OK && !*help && !cmd->version)
    st = first_size(&c, err);
  if (st != GCB_OK)
    gcb_err_prefix(err, "%s", cmd->p->name);
  return st;
}

void gcb__osu_usage(const struct gcb_osu_program *p, FILE *out) {
  long si, sw, li, lw;
  gcb__osu_defaults(p->kind, false, &si, &sw);
  gcb__osu_defaults(p->kind, true, &li, &lw);
  fprintf(out,
          "Usage: %s [options]\n"
          "gcbench as OSU's %s (OSU micro-benchmarks " GCB_OSU_VERSION
          " layout and defaults): coll --collective %s\n\n"
          "%s's defaults:\n"
          "  -m  sizes default 1:%d\n"
          "  -i  iterations default %ld, %ld above %d bytes\n"
          "  -x  warm-up default %ld, %ld above %d bytes\n",
          p->name, p->name, p->op ? p->op : "(none)", p->name,
          p->kind == GCB_OSU_COLL ? 1 << 20 : 1 << 22, si, li,
          GCB_OSU_LARGE_MESSAGE, sw, lw, GCB_OSU_LARGE_MESSAGE);
  if (gcb__osu_sizeless(p))
    fprintf(out, "  (a barrier has no message: -m is taken and ignored, and "
                 "the counts are always the small ones)\n");
}

/* osu_mbw_mr's HEADER has no place for the accelerator (its BENCHMARK
 * string has no %s, osu_mbw_mr.c 7.4); the others' print_preamble puts
 * "-CUDA" after "MPI". */
void gcb__osu_version(const struct gcb_osu_program *p, bool device, FILE *out) {
  fprintf(out, "# OSU MPI%s %s v" GCB_OSU_VERSION "\n",
          device && !gcb__osu_is_mbw_mr(p) ? "-CUDA" : "", p->title);
}
