/*
 * Commands: a benchmark by name, `suite` (every benchmark into one
 * document), `list` and `version`. Parsing happens on every rank (argv is
 * identical), messages are printed once, by rank 0, with the failing rank
 * named when it is not rank 0.
 */
#include "bench/cli/commands.h"

#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/benches/coll.h"
#include "bench/benches/osu_options.h"
#include "bench/cli/report_command.h"
#include "bench/cli/topo_command.h"
#include "bench/run/harness.h"
#include "gcb_revision.h"

#define MAX_GROUPS 4

void gcb__print_error(int rank, const char *msg) {
  if (rank == 0)
    fprintf(stderr, "gcbench: error: %s\n", msg);
}

/* Exit code of a finished run from what its cases did: 5 where it
 * measured nothing (every case skipped: a GPU benchmark on the host
 * backend, sizes too small to time), which a CI job gating on the exit
 * status must not take for a pass. Another tool's program keeps that
 * tool's 0 (nccl-tests' -b 0 -e 0). */
static int run_exit_code(const struct gcb_run_totals *t, bool dropin,
                         int rank) {
  if (t->failed)
    return 3;
  if (t->invalid)
    return 1;
  /* rank 0 counts the cases (the launcher exits with its code) */
  return rank == 0 && t->cases == 0 && !dropin ? 5 : 0;
}

static void print_totals(const struct gcb_harness *h) {
  const struct gcb_run_totals *t = &h->totals;
  if (h->opts->quiet && t->invalid == 0 && t->failed == 0)
    return;
  /* another tool's program: after its last line, on stderr */
  fprintf(h->opts->dropin ? stderr : stdout,
          "# results: %s (%d case(s), %d with wrong results, %d skipped, %d "
          "failed)\n",
          h->output, t->cases, t->invalid, t->skipped, t->failed);
}

/* Context, backend, header, the benchmarks, footer: one run. */
int gcb__run(const char *command, int argc, char **argv,
             const struct gcb_run_opts *ro,
             const struct gcb_bench *const *benches, void *const *bench_opts,
             json_t *options) {
  struct gcb_ctx ctx;
  struct gcb_harness h = {0};
  enum gcb_status st = gcb_context_init(&ctx);
  ctx.seed = ro->seed;
  if (st == GCB_OK)
    st = gcb_context_open_backend(&ctx, ro->backend);
  /* Bad options end the run here, before the results document exists. */
  if (st == GCB_OK)
    st = gcb_harness_validate(&ctx, benches, bench_opts);
  if (st == GCB_OK) {
    st = gcb_harness_begin(&h, &ctx, ro, command, argc, argv, options);
    options = NULL;
  }
  for (int i = 0; st == GCB_OK && benches[i]; i++)
    st = gcb_harness_run(&h, benches[i], bench_opts[i]);
  enum gcb_status end = gcb_harness_end(&h, st);
  json_decref(options);
  int code = 0;
  if (st != GCB_OK || end != GCB_OK) {
    gcb__print_error(ctx.rank, gcb_errmsg(&ctx));
    code = gcb_status_exit_code(st != GCB_OK ? st : end);
    if (code == 0)
      code = 3;
  } else {
    if (ctx.rank == 0)
      print_totals(&h);
    code = run_exit_code(&h.totals, ro->dropin, ctx.rank);
    if (code == 5 && ctx.rank == 0)
      fprintf(stderr, "gcbench: error: the run measured nothing: every case "
                      "was skipped (the document's skipped[] says why)\n");
  }
  gcb_context_free(&ctx);
  return code;
}

static void bench_usage(int rank, const char *name, const char *summary,
                        const struct gcb_option_group *g, size_t ng) {
  if (rank != 0)
    return;
  printf("usage: mpiexec -n N gcbench %s [options]\n\n%s\n", name, summary);
  gcb_options_help(stdout, g, ng);
}

/* Runs benchmark b with options parsed into `ro` and `bo` by `groups`,
 * whose echo goes into the document. dropin: under another tool's program
 * name; quiet: under OSU's (see struct gcb_run_opts). */
static int run_parsed(const struct gcb_bench *b, int argc, char **argv,
                      struct gcb_run_opts *ro, void *bo,
                      const struct gcb_option_group *groups, size_t ngroups,
                      bool dropin, bool quiet) {
  ro->dropin = dropin;
  ro->quiet = quiet;
  const struct gcb_bench *benches[] = {b, NULL};
  void *opts[] = {bo, NULL};
  return gcb__run(b->name, argc, argv, ro, benches, opts,
                  gcb_options_to_json(groups, ngroups));
}

static int bench_command(const struct gcb_bench *b, int argc, char **argv,
                         int rank, bool dropin) {
  struct gcb_run_opts ro = {0};
  void *bo = calloc(1, b->opts_size ? b->opts_size : 1);
  if (bo == NULL) {
    gcb__print_error(rank, "out of memory");
    return 3;
  }
  struct gcb_option_group groups[] = {
      {"run options", gcb_run_options, &ro},
      {b->name, b->options, bo},
  };
  bool help = false;
  struct gcb_err err = {0};
  int code = 0;
  if (gcb_options_parse(groups, 2, argc, argv, &help, NULL, 0, NULL, &err) !=
      GCB_OK) {
    gcb__print_error(rank, err.msg);
    code = 2;
  } else if (help) {
    bench_usage(rank, b->name, b->summary, groups, 2);
  } else {
    code = run_parsed(b, argc, argv, &ro, bo, groups, 2, dropin, false);
  }
  free(bo);
  return code;
}

static int list_command(int argc, char **argv, int rank) {
  (void)argc;
  (void)argv;
  if (rank != 0)
    return 0;
  printf("benchmarks:\n");
  for (const struct gcb_bench *const *b = gcb_benches; *b; b++)
    if (!(*b)->hidden)
      printf("  %-10s %s\n", (*b)->name, (*b)->summary);
  printf("backends:\n");
  for (const struct gcb_backend_ops *const *b = gcb_backends; *b; b++) {
    char why[160] = "";
    if ((*b)->hidden)
      continue;
    bool ok = (*b)->usable(why, sizeof why);
    printf("  %-10s %s (%s%s)\n", (*b)->name, (*b)->description,
           ok ? "usable here" : "not usable here: ", ok ? "" : why);
  }
  return 0;
}

static int version_command(int argc, char **argv, int rank) {
  (void)argc;
  (void)argv;
  if (rank == 0)
    printf("gcbench %s (%s)\n", GCB_VERSION, GCB_GIT_REVISION);
  return 0;
}

static const struct gcb_command commands[] = {
    {"suite", "every benchmark into one results document (--profile)",
     gcb__suite_command},
    {"report", "findings, tables and plots from results documents",
     gcb__report_command},
    {"compare", "compare a run with a baseline (noise-aware)",
     gcb__compare_command},
    {"topo",
     "GPUs, NICs and the paths between them (nvidia-smi topo -m "
     "style)",
     gcb__topo_command},
    {"list", "list benchmarks and backends", list_command},
    {"version", "print the version", version_command},
    {NULL, NULL, NULL},
};

void gcb_command_usage(FILE *out) {
  fprintf(out, "usage: mpiexec -n N gcbench <command> [options]\n"
               "       gcbench <command> --help\n\ncommands:\n");
  for (const struct gcb_bench *const *b = gcb_benches; *b; b++)
    if (!(*b)->hidden)
      fprintf(out, "  %-10s %s\n", (*b)->name, (*b)->summary);
  for (const struct gcb_command *c = commands; c->name; c++)
    fprintf(out, "  %-10s %s\n", c->name, c->summary);
  fprintf(out, "\nexit codes: 0 pass, 1 wrong results, 2 bad usage or input, "
               "3 runtime error, 4 timeout, 5 nothing measured (every case "
               "skipped), 128+N ended by signal N (130 SIGINT, 143 "
               "SIGTERM)\n");
}

/* nccl-tests' defaults where gcbench coll's differ (src/common.cu
 * 2.19.6: minBytes = maxBytes = 32M, iters 20, warmup_iters 1); the step
 * rule is --program's. Given first, so the command line overrides them. */
static const char *const nccl_defaults[] = {"-b", "32M", "-e", "32M",
                                            "-n", "20",  "-w", "1"};
#define NCCL_PREFIX (3 + (int)(sizeof nccl_defaults / sizeof *nccl_defaults))

/* Runs as nccl-tests' program `name` (argv[0] all_reduce_perf ...):
 * `coll --program NAME` with nccl-tests' defaults before the arguments. */
static int program_command(const char *name, int argc, char **argv, int rank) {
  const struct gcb_bench *b = gcb_bench_find("coll");
  char **args = calloc((size_t)(argc + NCCL_PREFIX + 1), sizeof *args);
  if (b == NULL || args == NULL) {
    free(args);
    gcb__print_error(rank, "out of memory");
    return 3;
  }
  int n = 0;
  args[n++] = argv[0];
  args[n++] = "--program";
  args[n++] = (char *)name;
  for (size_t i = 0; i < sizeof nccl_defaults / sizeof *nccl_defaults; i++)
    args[n++] = (char *)nccl_defaults[i];
  for (int i = 1; i < argc; i++)
    args[n++] = argv[i];
  int code = bench_command(b, n, args, rank, true);
  free(args);
  return code;
}

/* Runs as OSU's program `p` (argv[0] osu_latency ...): coll with its
 * options parsed by OSU's rows (osu_options.c), which write coll's and the
 * harness's own fields, or its help and version lines. */
static int osu_command(const struct gcb_osu_program *p, int argc, char **argv,
                       int rank) {
  const struct gcb_bench *b = gcb_bench_find("coll");
  struct gcb_osu_cmd cmd = {.p = p};
  if (MPI_Comm_size(MPI_COMM_WORLD, &cmd.nranks) != MPI_SUCCESS) {
    gcb__print_error(rank, "MPI_Comm_size of the world failed");
    return 3;
  }
  struct gcb_run_opts ro = {0};
  void *bo = b ? calloc(1, b->opts_size) : NULL;
  if (bo == NULL) {
    gcb__print_error(rank, "out of memory");
    return 3;
  }
  struct gcb_option_group groups[GCB_OSU_NGROUPS];
  struct gcb_option_dialect osu;
  gcb__osu_groups(&cmd, &ro, bo, groups, &osu);
  struct gcb_err err = {0};
  bool help = false;
  int code = 0;
  if (gcb__osu_parse(&osu, groups, argc, argv, &help, &err) != GCB_OK) {
    gcb__print_error(rank, err.msg);
    code = 2;
  } else if (help && rank == 0) {
    gcb__osu_usage(p, stdout);
    gcb_options_help_dialect(stdout, &osu, groups, GCB_OSU_NGROUPS);
  } else if (cmd.version && !help && rank == 0) {
    gcb__osu_version(p, false, stdout);
  } else if (!help && !cmd.version) {
    code =
        run_parsed(b, argc, argv, &ro, bo, groups, GCB_OSU_NGROUPS, true, true);
  }
  free(bo);
  return code;
}

int gcb_command_dispatch(int argc, char **argv, int rank) {
  const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;
  base = base ? base + 1 : argc > 0 ? argv[0] : "";
  if (gcb__coll_nccl_program(base))
    return program_command(base, argc, argv, rank);
  if (gcb__osu_program(base))
    return osu_command(gcb__osu_program(base), argc, argv, rank);
  if (argc == 2 &&
      (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0))
    return version_command(argc - 1, argv + 1, rank);
  if (argc < 2 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
    if (rank == 0)
      gcb_command_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const struct gcb_bench *b = gcb_bench_find(argv[1]);
  if (b)
    return bench_command(b, argc - 1, argv + 1, rank, false);
  for (const struct gcb_command *c = commands; c->name; c++)
    if (strcmp(c->name, argv[1]) == 0)
      return c->run(argc - 1, argv + 1, rank);
  if (rank == 0)
    fprintf(stderr,
            "gcbench: error: unknown command '%s' (see gcbench --help)\n",
            argv[1]);
  return 2;
}
