/*
 * OSU's command line, read with OSU's own option letters and long names
 * (OSU micro-benchmarks 7.4, c/util/osu_util_options.h: OMBOP_LONG_OPTIONS_ALL
 * and the OMBOP__* option strings) and rewritten as `gcbench coll`
 * arguments: the program's collective, OSU's sizes, its iteration rule,
 * its timing loop and its layout. What gcbench cannot do as OSU does is
 * refused with one line, never ignored.
 */
#include "bench/benches/osu_args.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* What the command line asked for, in OSU's terms. */
struct osu_req {
  unsigned long long min, max;
  long iters, warmup; /* -1: OSU's per-size defaults */
  bool full, validate, device;
  const char *types; /* gcbench --datatype list */
  int elt;           /* the smallest element size among them */
  const char *output;
  bool force;
  long root;        /* -k fixed:N; -1: OSU's default, rank 0 */
  long window;      /* -W; 0: OSU's default, 64 */
  long pairs;       /* osu_mbw_mr -p; 0: not given */
  const char *tail; /* -z: the percentiles ("50,90,99" alone); NULL */
};

/* OSU's -m: "MAX", "MIN:MAX", "MIN:" or ":MAX" (set_message_size: a
 * minimum must be above 0, a maximum not negative). */
static enum gcb_status message_size(const char *prog, const char *arg,
                                    struct osu_req *r, struct gcb_err *err) {
  const char *colon = strchr(arg, ':');
  char *end;
  if (colon == NULL) {
    long long v = strtoll(arg, &end, 10);
    if (*arg == '\0' || *end != '\0' || v < 0)
      goto bad;
    r->max = (unsigned long long)v;
    return GCB_OK;
  }
  if (strchr(colon + 1, ':') != NULL || (colon == arg && colon[1] == '\0'))
    goto bad;
  if (colon != arg) {
    long long v = strtoll(arg, &end, 10);
    if (end != colon || v <= 0)
      goto bad;
    r->min = (unsigned long long)v;
  }
  if (colon[1] != '\0') {
    long long v = strtoll(colon + 1, &end, 10);
    if (*end != '\0' || v < 0)
      goto bad;
    r->max = (unsigned long long)v;
  }
  return GCB_OK;
bad:
  return gcb_err_set(err, GCB_EUSAGE,
                     "%s: -m/--message-size '%s': Invalid Message Size "
                     "(MAX, MIN:MAX, MIN: or :MAX, MIN above 0)",
                     prog, arg);
}

static enum gcb_status count_arg(const char *prog, char letter, const char *arg,
                                 long lo, long *out, struct gcb_err *err) {
  char *end;
  long v = strtol(arg, &end, 10);
  if (*arg == '\0' || *end != '\0' || v < lo || v > 1000000000L)
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s: -%c '%s': expected a count of "
                       "at least %ld",
                       prog, letter, arg, lo);
  *out = v;
  return GCB_OK;
}

/* OSU's -T (MPI_CHAR, MPI_INT, MPI_FLOAT, ALL) as gcbench's types. */
static enum gcb_status type_arg(const char *prog, const char *arg,
                                struct osu_req *r, struct gcb_err *err) {
  static const struct {
    const char *osu, *types;
    int elt;
  } types[] = {{"MPI_CHAR", "int8", 1},
               {"MPI_INT", "int32", 4},
               {"MPI_FLOAT", "float", 4},
               {"ALL", "int8,int32,float", 1}};
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (strcasecmp(arg, types[i].osu) == 0) {
      r->types = types[i].types;
      r->elt = types[i].elt;
      return GCB_OK;
    }
  return gcb_err_set(err, GCB_EUSAGE,
                     "%s: -T/--type '%s': expected mpi_char, mpi_int, "
                     "mpi_float or all",
                     prog, arg);
}

/* -d: OSU's accelerator. cuda puts both buffers in device memory (gcbench
 * then runs NCCL, not a CUDA-aware MPI); host is gcbench's name for OSU's
 * default. */
static enum gcb_status device_arg(const char *prog, const char *arg,
                                  struct osu_req *r, struct gcb_err *err) {
  if (strcasecmp(arg, "cuda") == 0 || strcasecmp(arg, "host") == 0) {
    r->device = strcasecmp(arg, "cuda") == 0;
    return GCB_OK;
  }
  return gcb_err_set(err, GCB_EUSAGE,
                     "%s: -d/--accelerator '%s': gcbench takes cuda (device "
                     "buffers, over NCCL) or host (the default); managed, "
                     "openacc, rocm and cxl are not supported",
                     prog, arg);
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
 * every iteration (gcbench's --root); "rotate" (root i % nprocs in
 * iteration i) is refused: gcbench's case has one root. */
static enum gcb_status root_arg(const char *prog, const char *arg,
                                struct osu_req *r, struct gcb_err *err) {
  char *end;
  if (strncasecmp(arg, "fixed:", 6) == 0) {
    long v = strtol(arg + 6, &end, 10);
    if (arg[6] != '\0' && *end == '\0' && v >= 0 && v <= 1000000000L) {
      r->root = v;
      return GCB_OK;
    }
  }
  if (strncasecmp(arg, "rotate", 6) == 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s: -k rotate: not supported: gcbench keeps one root "
                       "for a whole case (-k fixed:N)",
                       prog);
  return gcb_err_set(err, GCB_EUSAGE,
                     "%s: -k/--root-rank '%s': expected fixed:N or rotate",
                     prog, arg);
}

/* osu_mbw_mr's own options (osu_util.c 7.4, process_options): -p pairs,
 * which osu_mbw_mr.c overrides with numprocs / 2 right after (so only
 * that value means what it says), -R 0|1 the Messages/s column, -V the
 * varied-window table. */
static enum gcb_status mbw_mr_option(const char *prog, int c, const char *arg,
                                     struct osu_req *r, struct gcb_err *err) {
  if (c == 'p')
    return count_arg(prog, 'p', arg, 1, &r->pairs, err);
  if (c == 'R' && strcmp(arg, "1") == 0)
    return GCB_OK;
  if (c == 'R')
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s: -R %s: gcbench always prints the Messages/s "
                       "column (-R 1, OSU's default)",
                       prog, arg);
  return gcb_err_set(err, GCB_EUSAGE,
                     "%s: -V: no varied-window table (give one window "
                     "with -W)",
                     prog);
}

/* OSU options gcbench refuses, each with its reason. */
static const struct {
  char letter;
  const char *why;
} refused[] = {
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
};

static const struct option long_options[] = {
    {"help", no_argument, 0, 'h'},
    {"version", no_argument, 0, 'v'},
    {"full", no_argument, 0, 'f'},
    {"message-size", required_argument, 0, 'm'},
    {"window-size", required_argument, 0, 'W'},
    {"num-test-calls", required_argument, 0, 't'},
    {"iterations", required_argument, 0, 'i'},
    {"warmup", required_argument, 0, 'x'},
    {"array-size", required_argument, 0, 'a'},
    {"mem-limit", required_argument, 0, 'M'},
    {"accelerator", required_argument, 0, 'd'},
    {"cuda-target", required_argument, 0, 'r'},
    {"validation", optional_argument, 0, 'c'},
    {"buffer-num", required_argument, 0, 'b'},
    {"validation-warmup", required_argument, 0, 'u'},
    {"graph", required_argument, 0, 'G'},
    {"papi", required_argument, 0, 'P'},
    {"ddt", required_argument, 0, 'D'},
    {"type", required_argument, 0, 'T'},
    {"session", no_argument, 0, 'I'},
    {"in-place", no_argument, 0, 'l'},
    {"tail-lat", optional_argument, 0, 'z'},
    {"root-rank", required_argument, 0, 'k'},
    {"num-pairs", required_argument, 0, 'p'},
    {"print-rate", required_argument, 0, 'R'},
    {"vary-window", required_argument, 0, 'V'},
    /* gcbench's own, long only: where the results document goes */
    {"output", required_argument, 0, 1},
    {"force", no_argument, 0, 2},
    {0, 0, 0, 0},
};

/* One option's effect on the request; GCB_EUSAGE names it. */
static enum gcb_status one_option(const struct gcb_osu_program *p, int c,
                                  const char *arg, struct osu_req *r,
                                  struct gcb_err *err) {
  const char *prog = p->name;
  if (gcb__osu_sizeless(p) && (c == 'c' || c == 'T' || c == 'k' || c == 'l'))
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s: -%c: not an option of %s (OSU's barrier moves no "
                       "data: no type, validation, root or in place)",
                       prog, c, prog);
  if (c == 'k' && takes_root(p))
    return root_arg(prog, arg, r, err);
  switch (c) {
  case 'm':
    return message_size(prog, arg, r, err);
  case 'i':
    return count_arg(prog, 'i', arg, 1, &r->iters, err);
  case 'x':
    return count_arg(prog, 'x', arg, 0, &r->warmup, err);
  case 'f':
    if (p->kind != GCB_OSU_COLL)
      return gcb_err_set(err, GCB_EUSAGE,
                         "%s: -f/--full: not an option of %s (OSU's full "
                         "statistics are its collectives')",
                         prog, prog);
    r->full = true;
    return GCB_OK;
  case 'c':
    if (arg != NULL)
      return gcb_err_set(err, GCB_EUSAGE,
                         "%s: -c%s: validation logs are not supported; give "
                         "-c alone",
                         prog, arg);
    r->validate = true;
    return GCB_OK;
  case 'z': /* osu_util.c 7.4: alone 50,90,99; else P[,P...] */
    if (p->kind == GCB_OSU_BW || gcb__osu_multi_pair(p))
      return gcb_err_set(err, GCB_EUSAGE,
                         "%s: -z: not supported: gcbench's tail columns are "
                         "latencies (osu_latency and the collectives)",
                         prog);
    r->tail = arg ? arg : "50,90,99";
    return GCB_OK;
  case 'd':
    return device_arg(prog, arg, r, err);
  case 'T':
    return type_arg(prog, arg, r, err);
  case 'W': /* OSU's PT2PT BW and MBW_MR option strings have it */
    if (p->kind == GCB_OSU_BW)
      return count_arg(prog, 'W', arg, 1, &r->window, err);
    break;
  case 'p': /* osu_mbw_mr only, as its -R and -V */
  case 'R':
  case 'V':
    if (gcb__osu_is_mbw_mr(p))
      return mbw_mr_option(prog, c, arg, r, err);
    break;
  case 1:
    r->output = arg;
    return GCB_OK;
  case 2:
    r->force = true;
    return GCB_OK;
  }
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
    if (refused[i].letter == c)
      return gcb_err_set(err, GCB_EUSAGE, "%s: -%c: not supported: %s", prog, c,
                         refused[i].why);
  return gcb_err_set(err, GCB_EUSAGE, "%s: unknown option (see %s --help)",
                     prog, prog);
}

/* OSU's pt2pt positional buffer places after -d ("D D", "H H"): gcbench
 * puts both buffers in one place. */
static enum gcb_status places(const struct gcb_osu_program *p, int argc,
                              char **argv, int first, struct osu_req *r,
                              struct gcb_err *err) {
  int n = argc - first;
  if (n == 0)
    return GCB_OK;
  const char *a = argv[first], *b = n > 1 ? argv[first + 1] : "";
  if (p->kind != GCB_OSU_COLL && n == 2 && strlen(a) == 1 &&
      strcmp(a, b) == 0 && (*a == 'D' || *a == 'H')) {
    r->device = *a == 'D';
    return GCB_OK;
  }
  if (p->kind == GCB_OSU_COLL)
    return gcb_err_set(err, GCB_EUSAGE, "%s: unexpected argument '%s'", p->name,
                       a);
  return gcb_err_set(err, GCB_EUSAGE,
                     "%s: '%s%s%s': gcbench puts both buffers in one place: "
                     "D D (device) or H H (host)",
                     p->name, a, n > 1 ? " " : "", b);
}

/* OSU's defaults (process_options, osu_util.c 7.4): pt2pt sizes up to
 * MAX_MESSAGE_SIZE (4 MiB) from MIN_MESSAGE_SIZE 1 (osu_latency starts
 * at 0, which 7.4 skips: no elements), collectives up to MAX_MSG_SIZE_COLL
 * (1 MiB); MPI_CHAR; no validation; host buffers. */
static void defaults(const struct gcb_osu_program *p, struct osu_req *r) {
  *r = (struct osu_req){.min = 1,
                        .max = p->kind == GCB_OSU_COLL ? 1u << 20 : 1u << 22,
                        .iters = -1,
                        .warmup = -1,
                        .types = "int8",
                        .elt = 1,
                        .root = -1};
}

static enum gcb_status parse(const struct gcb_osu_program *p, int argc,
                             char **argv, struct osu_req *r, int *action,
                             struct gcb_err *err) {
  enum gcb_status st = GCB_OK;
  int c;
  defaults(p, r);
  *action = 0;
  optind = 0; /* a fresh scan (GNU getopt) */
  opterr = 0;
  while (st == GCB_OK && (c = getopt_long(argc, argv,
                                          "+:hvfm:W:t:i:x:a:M:d:r:c::b:u:G:"
                                          "P:D:T:Ilz::k:p:R:V",
                                          long_options, NULL)) != -1) {
    if (c == 'h' || c == 'v') {
      *action = c == 'h' ? 1 : 2;
      return GCB_OK;
    }
    if (c == ':')
      return gcb_err_set(err, GCB_EUSAGE, "%s: %s needs a value", p->name,
                         argv[optind - 1]);
    if (c == '?')
      return gcb_err_set(err, GCB_EUSAGE,
                         "%s: unknown option '%s' (see %s --help)", p->name,
                         argv[optind - 1], p->name);
    st = one_option(p, c, optarg, r, err);
  }
  if (st == GCB_OK)
    st = places(p, argc, argv, optind, r, err);
  return st;
}

/* OSU's loop starts at the minimum and doubles; sizes with no whole
 * element are skipped (osu_latency.c 7.4: num_elements 0, continue). */
static unsigned long long first_size(const struct osu_req *r) {
  unsigned long long b = r->min;
  while (b < (unsigned long long)r->elt && b <= r->max)
    b *= 2;
  return b;
}

/* Room for the numbers the translated command line spells. */
struct store {
  char b[32], e[32], iters[24], iters_large[24], warmup[24], warmup_large[24],
      root[24], window[24];
};

static void iteration_rule(const struct gcb_osu_program *p,
                           const struct osu_req *r, struct store *s) {
  long small_i, small_w, large_i, large_w;
  gcb__osu_defaults(p->kind, false, &small_i, &small_w);
  gcb__osu_defaults(p->kind, true, &large_i, &large_w);
  if (r->iters >= 0)
    small_i = large_i = r->iters; /* set_num_iterations: both */
  if (r->warmup >= 0)
    small_w = large_w = r->warmup; /* set_num_warmup: both */
  /* the harness's --iters and --warmup count every size up to OSU's
   * LARGE_MESSAGE_SIZE, coll's --iters-large and --warmup-large the sizes
   * beyond: each count once, so the options echo records what ran */
  snprintf(s->iters, sizeof s->iters, "%ld", small_i);
  snprintf(s->iters_large, sizeof s->iters_large, "%ld", large_i);
  snprintf(s->warmup, sizeof s->warmup, "%ld", small_w);
  snprintf(s->warmup_large, sizeof s->warmup_large, "%ld", large_w);
}

/* The coll command line that is this request. */
static int build(const struct gcb_osu_program *p, const struct osu_req *r,
                 int nranks, char *argv0, struct store *s, char **a) {
  unsigned long long scale = p->per_rank_size ? (unsigned long long)nranks : 1;
  bool coll = p->kind == GCB_OSU_COLL, multi = gcb__osu_multi_pair(p);
  int n = 0;
  snprintf(s->b, sizeof s->b, "%llu", first_size(r) * scale);
  snprintf(s->e, sizeof s->e, "%llu", r->max * scale);
  iteration_rule(p, r, s);
  const char *fixed[] = {
      argv0, "--collective", p->op, "--layout",
      r->full ? "osu-full"
      : multi ? "osu-multi"
              : "osu",
      "--placement", "out-of-place", "-b", s->b, "-e", s->e, "-f", "2",
      "--iters", s->iters, "--iters-large", s->iters_large, "--warmup",
      s->warmup, "--warmup-large", s->warmup_large, "-c",
      r->validate ? "1" : "0",
      /* OSU's loops: collectives with a barrier outside the timed region
       * (-z 3), pt2pt each operation timed alone, no barrier (-z 4), and
       * so is osu_barrier's (a barrier is its own separator); the figure
       * every rank's mean (collectives) or rank 0's (pt2pt). The
       * multi-pair programs put a barrier before each exchange (-z 3) and
       * average over the pairs' initiators (-a 4). */
      "-z", (coll && !gcb__osu_sizeless(p)) || multi ? "3" : "4", "-a",
      coll    ? "1"
      : multi ? "4"
              : "0",
      "--backend", r->device ? "cuda" : "host", "--datatype", r->types,
      /* OSU measures the world, never a split of it */
      "--split", "none", NULL};
  for (int i = 0; fixed[i]; i++)
    a[n++] = (char *)fixed[i];
  if (r->window > 0) {
    snprintf(s->window, sizeof s->window, "%ld", r->window);
    a[n++] = "--window";
    a[n++] = s->window;
  }
  if (r->output) {
    a[n++] = "--output";
    a[n++] = (char *)r->output;
  }
  if (r->force)
    a[n++] = "--force";
  if (r->tail) {
    a[n++] = "--tail-lat";
    a[n++] = (char *)r->tail;
  }
  if (r->root >= 0) {
    snprintf(s->root, sizeof s->root, "%ld", r->root);
    a[n++] = "--root";
    a[n++] = s->root;
  }
  a[n] = NULL;
  return n;
}

/* The process counts of the multi-pair programs: osu_mbw_mr needs two
 * (an odd last rank sits out, as there); osu_multi_lat an even count,
 * since its odd last rank would wait forever for a partner (rank
 * 2 * pairs pairs with rank `pairs`, which answers rank 0 only:
 * osu_multi_lat.c 7.4). osu_mbw_mr's -p means only n / 2 (see
 * mbw_mr_option). */
static enum gcb_status pairs_check(const struct gcb_osu_program *p,
                                   const struct osu_req *r, int nranks,
                                   struct gcb_err *err) {
  if (!gcb__osu_multi_pair(p))
    return GCB_OK;
  if (nranks < 2)
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s: This test requires at least two processes",
                       p->name);
  if (p->kind == GCB_OSU_LAT && nranks % 2 != 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s: an even number of processes is needed (%d here): "
                       "OSU pairs rank i with i + n/2 and its odd last rank "
                       "would wait forever",
                       p->name, nranks);
  if (r->pairs > 0 && r->pairs != nranks / 2)
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s: -p %ld: OSU 7.4 runs n/2 = %d pairs whatever -p "
                       "says (osu_mbw_mr.c sets pairs = numprocs / 2); give "
                       "-p %d or leave it out",
                       p->name, r->pairs, nranks / 2, nranks / 2);
  return GCB_OK;
}

enum gcb_status gcb__osu_translate(const struct gcb_osu_program *p, int argc,
                                   char **argv, int nranks, char ***out,
                                   int *nout, char **store, int *action,
                                   struct gcb_err *err) {
  struct osu_req r;
  *out = NULL;
  *store = NULL;
  *nout = 0;
  if (p->refused)
    return gcb_err_set(err, GCB_EUSAGE, "%s: not supported: %s", p->name,
                       p->refused);
  enum gcb_status st = parse(p, argc, argv, &r, action, err);
  if (st != GCB_OK || *action != 0)
    return st;
  if (p->kind != GCB_OSU_COLL && strcmp(r.types, "int8") != 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s: -T: gcbench's point-to-point messages are bytes "
                       "(mpi_char only)",
                       p->name);
  if (p->kind != GCB_OSU_COLL && !gcb__osu_multi_pair(p) && nranks != 2)
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s: This test requires exactly two processes (%d "
                       "here; gcbench coll --collective %s runs pairs on any "
                       "even count)",
                       p->name, nranks, p->op);
  if (r.root >= nranks)
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s: -k fixed:%ld: Root rank('-k') cannot be more than "
                       "number of processes (%d here)",
                       p->name, r.root, nranks);
  if ((st = pairs_check(p, &r, nranks, err)) != GCB_OK)
    return st;
  if (r.max > (1ull << 40))
    return gcb_err_set(err, GCB_EUSAGE, "%s: -m: %llu bytes is too large",
                       p->name, r.max);
  char **a = calloc(48, sizeof *a);
  struct store *s = calloc(1, sizeof *s);
  if (a == NULL || s == NULL) {
    free(a);
    free(s);
    return gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", p->name);
  }
  *nout = build(p, &r, nranks, argv[0], s, a);
  *out = a;
  *store = (char *)s;
  return GCB_OK;
}

/* osu_mbw_mr's HEADER has no place for the accelerator (its BENCHMARK
 * string has no %s, osu_mbw_mr.c 7.4); the others' print_preamble puts
 * "-CUDA" after "MPI". */
void gcb__osu_version(const struct gcb_osu_program *p, bool device, FILE *out) {
  fprintf(out, "# OSU MPI%s %s v" GCB_OSU_VERSION "\n",
          device && !gcb__osu_is_mbw_mr(p) ? "-CUDA" : "", p->title);
}

void gcb__osu_help(const struct gcb_osu_program *p, FILE *out) {
  bool coll = p->kind == GCB_OSU_COLL;
  fprintf(out,
          "Usage: %s [options]\n"
          "gcbench as OSU's %s (OSU micro-benchmarks " GCB_OSU_VERSION
          " layout and defaults)\n\n"
          "  -m, --message-size   [MIN:]MAX  sizes from MIN to MAX bytes, "
          "doubling (default %s:%s)\n"
          "  -i, --iterations     ITER       timed iterations of every size "
          "(default %s)\n"
          "  -x, --warmup         ITER       warm-up iterations of every size "
          "(default %s)\n",
          p->name, p->name, "1", coll ? "1048576" : "4194304",
          p->kind == GCB_OSU_LAT  ? "10000, 1000 above 8192 bytes"
          : p->kind == GCB_OSU_BW ? "100, 20 above 8192 bytes"
                                  : "1000, 100 above 8192 bytes",
          p->kind == GCB_OSU_LAT  ? "100, 10 above 8192 bytes"
          : p->kind == GCB_OSU_BW ? "10, 2 above 8192 bytes"
                                  : "100, 10 above 8192 bytes");
  if (gcb__osu_sizeless(p))
    fprintf(out, "  (a barrier has no message: -m is taken and ignored, and "
                 "the defaults are always 1000 and 100)\n");
  if (p->kind == GCB_OSU_BW)
    fprintf(out, "  -W, --window-size    SIZE       messages per window "
                 "(default 64)\n");
  if (gcb__osu_is_mbw_mr(p))
    fprintf(out, "  -p, --num-pairs      PAIRS      n/2, as OSU 7.4 sets it "
                 "whatever -p says\n"
                 "  -R, --print-rate     1          the Messages/s column "
                 "(always)\n");
  if (coll)
    fprintf(out, "  -f, --full                      min, max and iterations "
                 "columns\n");
  if (coll && !gcb__osu_sizeless(p))
    fprintf(out, "  -T, --type           TYPE       mpi_char, mpi_int, "
                 "mpi_float or all\n");
  if (takes_root(p))
    fprintf(out, "  -k, --root-rank      fixed:N    root rank N (default "
                 "fixed:0; rotate is not supported)\n");
  if (!gcb__osu_sizeless(p))
    fprintf(out, "  -c, --validation                check every size's result "
                 "(Validation column)\n");
  if (p->kind != GCB_OSU_BW && !gcb__osu_multi_pair(p))
    fprintf(out, "  -z, --tail-lat       [P,...]    tail latency columns at "
                 "these percentiles (default 50,90,99)\n");
  fprintf(out,
          "  -d, --accelerator    cuda|host  buffers in device memory (over "
          "NCCL) or host memory (MPI, the default)\n"
          "      --output         FILE       gcbench's results document\n"
          "  -h, --help                      this text\n"
          "  -v, --version                   OSU's version line\n");
}
