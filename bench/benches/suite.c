/*
 * suite: every registered benchmark into one results document, shaped by a
 * profile. A profile is a row of option strings, parsed by each
 * benchmark's own option table exactly as if typed on its command line, so
 * profiles cannot drift from what the benchmarks accept (a test parses
 * every row). The user's options come after the profile's and win. A row
 * may name a backend: the acceptance profile sweeps to 8 GiB on a GPU and
 * stays short on the host. The words parsed live as long as the options
 * that point into them (suite.h). --dry-run prints the plan instead
 * (suite_plan.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/benches/suite.h"
#include "bench/cli/commands.h"
#include "bench/run/harness.h"

/* A benchmark's words in a profile; a row naming a backend applies only
 * on that backend, after the rows for every backend (later words win). */
struct bench_args {
  const char *bench;
  const char *args;    /* that benchmark's options */
  const char *backend; /* NULL: every backend */
};

struct profile {
  const char *name;
  const char *summary;
  const char *run_args; /* run options, before the user's */
  struct bench_args benches[16];
  const char *only; /* the benchmarks it runs, by name; NULL: all */
};

/* Words every profile gives, before its own: the network map joins a
 * suite only when the ranks span several nodes (4 n (n-1) cases over n
 * ranks); on one node it is skipped, with that reason in the table and
 * the document. */
static const struct bench_args every_profile[] = {
    {"netmap", "--min-nodes 2", NULL},
    {0},
};

static const struct profile profiles[] = {
    {"default",
     "every benchmark with its own defaults (pattern: the tiny model, a short "
     "case)",
     "",
     {{"pattern", "--model tiny", NULL}, {0}},
     NULL},
    {"quick",
     "every benchmark at modest sizes and a 20 s burn: about two minutes on "
     "a 2-core machine",
     "--iters 5 --warmup 1",
     {{"gemm", "-m 1024 --dtype fp64,fp32", NULL},
      {"membw", "--kernel copy,triad", NULL},
      {"coll",
       "--collective allreduce,allgather,reducescatter,broadcast,alltoall,"
       "sendrecv,latency,barrier -b 8 -e 1M -f 16",
       NULL},
      {"pattern", "--model tiny --patterns dp,tp,pp,ep", NULL},
      {"burn", "--duration 20s", NULL},
      {0}},
     NULL},
    /* The shipped criteria (tests/data/criteria-h200.json) judge coll at
     * 8 B and 1 GiB: on a GPU the sweep doubles up to 8 GiB, past the
     * busbw plateau; the host backend stops at 1 MiB and small arrays,
     * so that it ends in seconds. */
    {"acceptance",
     "what a hardware delivery must pass: every type, wide sweeps (cuda: "
     "collectives 8 B to 8 GiB), validation on, more iterations; gate it "
     "with gcbench report --criteria",
     "--iters 20 --warmup 5",
     {{"gemm", "--dtype all", NULL},
      {"gemm", "-m 512", "host"},
      {"membw", "--kernel all", NULL},
      {"membw", "--size 64M", "host"},
      {"pcie", "-b 8 -e 1G -f 8", "cuda"},
      {"coll", "--collective all -b 8 -c 1", NULL},
      {"coll", "-e 1M -f 4", "host"},
      {"coll", "-e 8G -f 2", "cuda"},
      {"pattern", "--model tiny --patterns dp,tp,pp", "host"},
      {"burn", "--duration 10m", NULL},
      {"burn", "--duration 60s", "host"},
      {0}},
     NULL},
    /* A Slurm prolog or HealthCheckProgram (docs/SLURM.md), as LBNL NHC
     * and DCGM's r1/r2 are used: under 60 s a node; the sizes are those
     * at which the built-in expectations judge (reports/criteria/
     * expect.h: GEMM m >= 4096, copies >= 64 MiB), so `gcbench report`
     * without --criteria judges it against the GPU model's datasheet. */
    {"health",
     "a node health check for a Slurm prolog or HealthCheckProgram, under "
     "60 s a node: GEMM, memory, PCIe and NVLink at sizes that reach the "
     "peak; gcbench report judges it by the GPU model's built-in "
     "expectations",
     "--iters 5 --warmup 1",
     {{"gemm", "-m 256 --dtype fp64", "host"},
      {"gemm", "-m 8192 --dtype fp64,tf32,bf16,fp8", "cuda"},
      {"membw", "--kernel triad --size 64M", "host"},
      {"membw", "--kernel triad --size 1G", "cuda"},
      {"pcie", "--direction h2d,d2h --memory pinned -b 256M -e 256M", "cuda"},
      {"p2p", "--size 256M --direction uni", "cuda"},
      {0}},
     "gemm,membw,pcie,p2p"},
    {"full",
     "everything: every type and operator, dense sweeps",
     "--iters 50 --warmup 5",
     {{"gemm", "--dtype all", NULL},
      {"membw", "--kernel all", NULL},
      {"coll", "--collective all -d all -o all -b 8 -e 1G -f 2 -c 1", NULL},
      {0}},
     NULL},
    {0},
};

static const char *const profile_names[] = {"default", "quick", "acceptance",
                                            "health",  "full",  NULL};

struct suite_opts {
  int profile;
  bool dry_run;
};

static const struct gcb_option suite_options[] = {
    {"profile", 'P', GCB_OPT_CHOICE, offsetof(struct suite_opts, profile),
     "default", "NAME",
     "default: each benchmark's defaults; quick: modest sizes; acceptance: "
     "what a delivery must pass; health: a node check under 60 s; "
     "full: everything",
     profile_names, 0, 0},
    {"dry-run", 0, GCB_OPT_FLAG, offsetof(struct suite_opts, dry_run), NULL,
     NULL,
     "print the plan (each benchmark's options, cases, sizes, iterations) "
     "and an estimated time; run nothing, write no file",
     NULL, 0, 0},
    {0},
};

void gcb__suite_words_free(struct gcb__suite_words *w) {
  free(w->text);
  free(w->argv);
  *w = (struct gcb__suite_words){0};
}

enum gcb_status gcb__suite_words_split(struct gcb__suite_words *w,
                                       const char *first, const char *text,
                                       char **extra, int nextra,
                                       struct gcb_err *err) {
  *w = (struct gcb__suite_words){0};
  w->text = strdup(text ? text : "");
  size_t words = 0, len = w->text ? strlen(w->text) : 0;
  for (size_t i = 0; i < len; i++)
    words += w->text[i] != ' ' && (i == 0 || w->text[i - 1] == ' ');
  w->argv = calloc(words + (size_t)nextra + 2, sizeof *w->argv);
  if (w->text == NULL || w->argv == NULL) {
    gcb__suite_words_free(w);
    return gcb_err_set(err, GCB_ENOMEM, "suite: out of memory");
  }
  w->argv[w->argc++] = (char *)first;
  char *save = NULL;
  for (char *tok = strtok_r(w->text, " ", &save); tok;
       tok = strtok_r(NULL, " ", &save))
    w->argv[w->argc++] = tok;
  for (int i = 0; i < nextra; i++)
    w->argv[w->argc++] = extra[i];
  w->argv[w->argc] = NULL;
  return GCB_OK;
}

enum gcb_status gcb__suite_parse(struct gcb_option_group *g, const char *text,
                                 struct gcb__suite_words *w,
                                 struct gcb_err *err) {
  bool help = false;
  enum gcb_status st = gcb__suite_words_split(w, g->title, text, NULL, 0, err);
  if (st == GCB_OK)
    st = gcb_options_parse(g, 1, w->argc, w->argv, &help, NULL, 0, NULL, err);
  return st;
}

/* Appends `more` to the heap string *text, a space between. */
static bool append(char **text, const char *more) {
  size_t have = *text ? strlen(*text) : 0, add = strlen(more);
  char *t = realloc(*text, have + add + 2);
  if (t == NULL)
    return false;
  if (have > 0)
    t[have++] = ' ';
  memcpy(t + have, more, add + 1);
  *text = t;
  return true;
}

static bool append_rows(char **text, const struct bench_args *rows,
                        const char *bench, const char *backend) {
  for (const struct bench_args *r = rows; r->bench; r++)
    if (strcmp(r->bench, bench) == 0 &&
        (r->backend == NULL || (backend && strcmp(r->backend, backend) == 0)) &&
        !append(text, r->args))
      return false;
  return true;
}

/* A benchmark's words in profile p on `backend` (heap, the caller frees);
 * NULL on ENOMEM. */
static char *bench_text(const struct profile *p, const char *bench,
                        const char *backend) {
  char *text = strdup("");
  if (text && append_rows(&text, every_profile, bench, backend) &&
      append_rows(&text, p->benches, bench, backend))
    return text;
  free(text);
  return NULL;
}

/* Parses a benchmark's options from the profile into g->target. */
static enum gcb_status bench_from_profile(const struct profile *p,
                                          const char *backend,
                                          struct gcb_option_group *g,
                                          struct gcb__suite_words *w,
                                          char **text, struct gcb_err *err) {
  *text = bench_text(p, g->title, backend);
  enum gcb_status st = *text ? gcb__suite_parse(g, *text, w, err)
                             : gcb_err_set(err, GCB_ENOMEM, "out of memory");
  if (st != GCB_OK)
    gcb_err_prefix(err, "profile %s, %s", p->name, g->title);
  return st;
}

/* Run options: the profile's first, then the user's (kept in w). */
static enum gcb_status run_from_profile(const struct profile *p, int argc,
                                        char **argv,
                                        struct gcb_option_group *groups,
                                        bool *help, struct gcb__suite_words *w,
                                        struct gcb_err *err) {
  enum gcb_status st =
      gcb__suite_words_split(w, argv[0], p->run_args, argv + 1, argc - 1, err);
  if (st == GCB_OK)
    st = gcb_options_parse(groups, 2, w->argc, w->argv, help, NULL, 0, NULL,
                           err);
  return st;
}

/* The backend the run will open, as rank 0 resolves --backend (every rank
 * takes its answer: the profile's words, and so the cases, must be the
 * same on every rank); "host" when it cannot tell, and the run itself
 * then says why. */
static void run_backend(const char *name, char *out, size_t len) {
  const struct gcb_backend_ops *ops = NULL;
  char why[160];
  struct gcb_err ignored = {0};
  snprintf(out, len, "host");
  if (gcb_backend_select(name, &ops, why, sizeof why, &ignored) == GCB_OK)
    snprintf(out, len, "%s", ops->name);
  (void)MPI_Bcast(out, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* Finds the profile first: it decides the run options' starting point. */
static int chosen_profile(int argc, char **argv, struct gcb_err *err) {
  struct gcb_run_opts ro = {0};
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
  printf("usage: mpiexec -n N gcbench suite [--profile NAME] [--dry-run] "
         "[options]\n\n"
         "every benchmark into one results document\n\nprofiles:\n");
  for (const struct profile *p = profiles; p->name; p++)
    printf("  %-11s %s\n", p->name, p->summary);
  gcb_options_help(stdout, groups, 2);
}

/* Every benchmark of a suite, their options and the profile's words for
 * them (which their text options point into), made and freed together. */
struct suite_run {
  size_t n;
  const struct gcb_bench **benches;
  void **opts;
  struct gcb_option_group *groups;
  struct gcb__suite_words *words;
  char **texts;
};

static void suite_run_free(struct suite_run *r) {
  for (size_t i = 0; i < r->n; i++) {
    free(r->opts[i]);
    gcb__suite_words_free(&r->words[i]);
    free(r->texts[i]);
  }
  free(r->opts);
  free(r->groups);
  free(r->words);
  free(r->texts);
  free(r->benches);
}

/* Whether profile p runs benchmark `name` (its `only` list, by whole
 * names). */
static bool runs(const struct profile *p, const char *name) {
  size_t len = strlen(name);
  for (const char *s = p->only; s != NULL; s = strchr(s, ',')) {
    s += *s == ',';
    if (strncmp(s, name, len) == 0 && (s[len] == ',' || s[len] == '\0'))
      return true;
  }
  return p->only == NULL;
}

/* Whether profile p has a row for benchmark `name` (suite_opt_in). */
static bool named(const struct profile *p, const char *name) {
  for (const struct bench_args *a = p->benches; a->bench != NULL; a++)
    if (strcmp(a->bench, name) == 0)
      return true;
  return false;
}

/* Every benchmark but the hidden ones (null) and those the profile leaves
 * out (burn where it has no row), in registry order, with
 * its options from profile p on `backend`: 0, 2 (a bad profile word, in
 * err) or 3 (out of memory). */
static int suite_run_make(struct suite_run *r, const struct profile *p,
                          const char *backend, struct gcb_err *err) {
  size_t all = 0;
  while (gcb_benches[all])
    all++;
  *r = (struct suite_run){0};
  r->benches = calloc(all + 1, sizeof *r->benches);
  r->opts = calloc(all + 1, sizeof *r->opts);
  r->groups = calloc(all + 1, sizeof *r->groups);
  r->words = calloc(all + 1, sizeof *r->words);
  r->texts = calloc(all + 1, sizeof *r->texts);
  if (!r->benches || !r->opts || !r->groups || !r->words || !r->texts) {
    gcb_err_set(err, GCB_ENOMEM, "out of memory");
    return 3;
  }
  for (size_t i = 0; i < all; i++)
    if (!gcb_benches[i]->hidden && runs(p, gcb_benches[i]->name) &&
        (!gcb_benches[i]->suite_opt_in || named(p, gcb_benches[i]->name)))
      r->benches[r->n++] = gcb_benches[i];
  for (size_t i = 0; i < r->n; i++) {
    const struct gcb_bench *b = r->benches[i];
    r->opts[i] = calloc(1, b->opts_size ? b->opts_size : 1);
    r->groups[i] = (struct gcb_option_group){b->name, b->options, r->opts[i]};
    if (r->opts[i] == NULL) {
      gcb_err_set(err, GCB_ENOMEM, "out of memory");
      return 3;
    }
    enum gcb_status st = bench_from_profile(p, backend, &r->groups[i],
                                            &r->words[i], &r->texts[i], err);
    if (st != GCB_OK)
      return st == GCB_ENOMEM ? 3 : 2;
  }
  return 0;
}

static int suite_go(const struct profile *p, const struct suite_opts *so,
                    const struct gcb_run_opts *ro,
                    struct gcb_option_group *groups, int argc, char **argv,
                    int rank) {
  char backend[32];
  run_backend(ro->backend, backend, sizeof backend);
  struct gcb_err err = {0};
  struct suite_run r;
  int code = suite_run_make(&r, p, backend, &err);
  if (code == 0 && so->dry_run) {
    struct gcb__suite_plan plan = {.profile = p->name,
                                   .ro = ro,
                                   .benches = r.benches,
                                   .opts = r.opts,
                                   .texts = (const char *const *)r.texts,
                                   .run_text = p->run_args};
    code = gcb__suite_plan(&plan, argc, argv);
  } else if (code == 0) {
    json_t *echo = gcb_options_to_json(groups, 2);
    for (size_t i = 0; echo && i < r.n; i++)
      json_object_set_new(echo, r.benches[i]->name,
                          gcb_options_to_json(&r.groups[i], 1));
    code = gcb__run("suite", argc, argv, ro, r.benches, r.opts, echo);
  } else {
    gcb__print_error(rank, err.msg);
  }
  suite_run_free(&r);
  return code;
}

int gcb__suite_command(int argc, char **argv, int rank) {
  struct gcb_err err = {0};
  struct gcb_run_opts ro = {0};
  struct suite_opts so;
  struct gcb_option_group groups[] = {{"run options", gcb_run_options, &ro},
                                      {"suite options", suite_options, &so}};
  struct gcb__suite_words words = {0};
  bool help = false;
  int code = 0, pi = chosen_profile(argc, argv, &err);
  if (pi < 0 || run_from_profile(&profiles[pi], argc, argv, groups, &help,
                                 &words, &err) != GCB_OK) {
    gcb__print_error(rank, err.msg);
    code = 2;
  } else if (help) {
    usage(rank, groups);
  } else {
    code = suite_go(&profiles[pi], &so, &ro, groups, argc, argv, rank);
  }
  gcb__suite_words_free(&words); /* ro's text options point into it */
  return code;
}

/* Every profile on every backend, for every benchmark (hidden too). */
int gcb__suite_profile_check(struct gcb_err *err) {
  for (const struct profile *p = profiles; p->name; p++)
    for (const struct gcb_backend_ops *const *be = gcb_backends; *be; be++)
      for (const struct gcb_bench *const *b = gcb_benches; *b; b++) {
        void *opts = calloc(1, (*b)->opts_size ? (*b)->opts_size : 1);
        struct gcb_option_group g = {(*b)->name, (*b)->options, opts};
        struct gcb__suite_words w = {0};
        char *text = NULL;
        enum gcb_status st =
            opts ? bench_from_profile(p, (*be)->name, &g, &w, &text, err)
                 : GCB_ENOMEM;
        gcb__suite_words_free(&w);
        free(text);
        free(opts);
        if (st != GCB_OK)
          return -1;
      }
  return 0;
}

char *gcb__suite_profile_text(const char *profile, const char *bench,
                              const char *backend) {
  for (const struct profile *p = profiles; p->name; p++)
    if (strcmp(p->name, profile) == 0)
      return bench_text(p, bench, backend);
  return NULL;
}
