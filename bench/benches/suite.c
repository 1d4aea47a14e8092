/*
 * suite: every registered benchmark into one results document, shaped by a
 * profile. A profile is a row of option strings, parsed by each
 * benchmark's own option table exactly as if typed on its command line, so
 * profiles cannot drift from what the benchmarks accept (a test parses
 * every row). The user's options come after the profile's and win.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/cli/commands.h"
#include "bench/run/harness.h"

#define MAX_ARGS 64

struct profile {
  const char *name;
  const char *summary;
  const char *run_args; /* run options, before the user's */
  struct {
    const char *bench;
    const char *args; /* that benchmark's options */
  } benches[8];
};

static const struct profile profiles[] = {
    {"default",
     "every benchmark with its own defaults (pattern: the tiny model, a short "
     "case)",
     "",
     {{"pattern", "--model tiny"}, {0}}},
    {"quick",
     "every benchmark at modest sizes: under two minutes on a 2-core machine",
     "--iters 5 --warmup 1",
     {{"gemm", "-m 1024 --dtype fp64,fp32"},
      {"membw", "--kernel copy,triad"},
      {"coll", "--collective allreduce,allgather,reducescatter,broadcast,alltoall,"
               "sendrecv,latency,barrier -b 8 -e 1M -f 16"},
      {"pattern", "--model tiny --patterns dp,tp,pp,ep"},
      {0}}},
    {"acceptance",
     "what a hardware delivery must pass: every type, wide sweeps, "
     "validation on, more iterations; gate it with gcbench report --criteria",
     "--iters 20 --warmup 5",
     {{"gemm", "--dtype all"},
      {"membw", "--kernel all"},
      {"coll", "--collective all -b 8 -e 256M -f 4 -c 1"},
      {0}}},
    {"full",
     "everything: every type and operator, dense sweeps",
     "--iters 50 --warmup 5",
     {{"gemm", "--dtype all"},
      {"membw", "--kernel all"},
      {"coll", "--collective all -d all -o all -b 8 -e 1G -f 2 -c 1"},
      {0}}},
    {0},
};

static const char *const profile_names[] = {"default", "quick", "acceptance",
                                            "full", NULL};

struct suite_opts {
  int profile;
};

static const struct gcb_option suite_options[] = {
    {"profile", 'P', GCB_OPT_CHOICE, offsetof(struct suite_opts, profile),
     "default", "NAME",
     "default: each benchmark's defaults; quick: modest sizes; acceptance: "
     "what a delivery must pass; full: everything",
     profile_names, 0, 0},
    {0},
};

/* Splits `text` (a profile's constant option string) into argv[1..]. */
static int split(const char *first, const char *text, char *buf, size_t len,
                 char **argv) {
  int n = 0;
  argv[n++] = (char *)first;
  snprintf(buf, len, "%s", text ? text : "");
  char *save = NULL;
  for (char *tok = strtok_r(buf, " ", &save); tok && n < MAX_ARGS - 1;
       tok = strtok_r(NULL, " ", &save))
    argv[n++] = tok;
  argv[n] = NULL;
  return n;
}

static const char *bench_args(const struct profile *p, const char *bench) {
  for (int i = 0; p->benches[i].bench; i++)
    if (strcmp(p->benches[i].bench, bench) == 0)
      return p->benches[i].args;
  return "";
}

/* Parses a benchmark's options from the profile into opts. */
static enum gcb_status bench_from_profile(const struct profile *p,
                                          struct gcb_option_group *g,
                                          struct gcb_err *err) {
  char buf[512], *argv[MAX_ARGS];
  int argc = split(g->title, bench_args(p, g->title), buf, sizeof buf, argv);
  bool help = false;
  enum gcb_status st =
      gcb_options_parse(g, 1, argc, argv, &help, NULL, 0, NULL, err);
  if (st != GCB_OK)
    gcb_err_prefix(err, "profile %s, %s", p->name, g->title);
  return st;
}

/* Run options: the profile's first, then the user's. */
static enum gcb_status run_from_profile(const struct profile *p, int argc,
                                        char **argv,
                                        struct gcb_option_group *groups,
                                        bool *help, struct gcb_err *err) {
  char buf[512], *all[2 * MAX_ARGS];
  int n = split(argv[0], p->run_args, buf, sizeof buf, all);
  for (int i = 1; i < argc && n < 2 * MAX_ARGS - 1; i++)
    all[n++] = argv[i];
  all[n] = NULL;
  return gcb_options_parse(groups, 2, n, all, help, NULL, 0, NULL, err);
}

/* Finds the profile first: it decides the run options' starting point. */
static int chosen_profile(int argc, char **argv, struct gcb_err *err) {
  struct gcb_run_opts ro;
  struct suite_opts so;
  struct gcb_option_group groups[] = {{"run options", gcb_run_options, &ro},
                                      {"suite options", suite_options, &so}};
  bool help = false;
  if (gcb_options_parse(groups, 2, argc, argv, &help, NULL, 0, NULL, err) !=
      GCB_OK)
    return -1;
  return so.profile;
}

static void usage(int rank, struct gcb_option_group *groups) {
  if (rank != 0)
    return;
  printf("usage: mpiexec -n N gcbench suite [--profile NAME] [options]\n\n"
         "every benchmark into one results document\n\nprofiles:\n");
  for (const struct profile *p = profiles; p->name; p++)
    printf("  %-11s %s\n", p->name, p->summary);
  gcb_options_help(stdout, groups, 2);
}

int gcb__suite_command(int argc, char **argv, int rank) {
  struct gcb_err err = {0};
  struct gcb_run_opts ro;
  struct suite_opts so;
  struct gcb_option_group groups[] = {{"run options", gcb_run_options, &ro},
                                      {"suite options", suite_options, &so}};
  bool help = false;
  int pi = chosen_profile(argc, argv, &err);
  if (pi < 0 || run_from_profile(&profiles[pi], argc, argv, groups, &help,
                                 &err) != GCB_OK) {
    gcb__print_error(rank, err.msg);
    return 2;
  }
  if (help) {
    usage(rank, groups);
    return 0;
  }
  /* Every benchmark but the hidden ones (null), in registry order. */
  size_t n = 0, all = 0;
  while (gcb_benches[all])
    all++;
  const struct gcb_bench **benches = calloc(all + 1, sizeof *benches);
  void **opts = calloc(all + 1, sizeof *opts);
  struct gcb_option_group *bgroups = calloc(all + 1, sizeof *bgroups);
  int code = benches && opts && bgroups ? 0 : 3;
  for (size_t i = 0; code == 0 && i < all; i++)
    if (!gcb_benches[i]->hidden)
      benches[n++] = gcb_benches[i];
  for (size_t i = 0; code == 0 && i < n; i++) {
    opts[i] = calloc(1, benches[i]->opts_size);
    bgroups[i] = (struct gcb_option_group){benches[i]->name,
                                           benches[i]->options, opts[i]};
    if (opts[i] == NULL)
      code = 3;
    else if (bench_from_profile(&profiles[pi], &bgroups[i], &err) != GCB_OK)
      code = 2;
  }
  if (code == 0) {
    json_t *echo = gcb_options_to_json(groups, 2);
    for (size_t i = 0; echo && i < n; i++)
      json_object_set_new(echo, benches[i]->name,
                          gcb_options_to_json(&bgroups[i], 1));
    code = gcb__run("suite", argc, argv, &ro, benches, opts, echo);
  } else {
    gcb__print_error(rank, code == 2 ? err.msg : "out of memory");
  }
  for (size_t i = 0; opts && i < n; i++)
    free(opts[i]);
  free(opts);
  free(bgroups);
  free(benches);
  return code;
}

int gcb__suite_profile_check(struct gcb_err *err) {
  for (const struct profile *p = profiles; p->name; p++)
    for (const struct gcb_bench *const *b = gcb_benches; *b; b++) {
      void *opts = calloc(1, (*b)->opts_size);
      struct gcb_option_group g = {(*b)->name, (*b)->options, opts};
      enum gcb_status st = opts ? bench_from_profile(p, &g, err) : GCB_ENOMEM;
      free(opts);
      if (st != GCB_OK)
        return -1;
    }
  return 0;
}
