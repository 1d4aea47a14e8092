/*
 * The gcbench commands: one row per command in a table that main() looks
 * up by name. Each command parses its own option table and returns a
 * process exit code (0 pass, 1 validation failure, 2 bad usage or input,
 * 3 runtime error, 4 timeout, 128 + the signal when SIGINT or SIGTERM
 * ended the run). Collective: every rank runs the same command.
 */
#ifndef GCB_COMMANDS_H
#define GCB_COMMANDS_H

#include <jansson.h>
#include <stdio.h>

#include "common/status.h"

struct gcb_command {
  const char *name;
  const char *summary;
  /* argv[0] is the command name. rank: world rank, for printing once. */
  int (*run)(int argc, char **argv, int rank);
};

/* Every command, NULL-name-terminated. Benchmarks are commands too. */
int gcb_command_dispatch(int argc, char **argv, int rank);

/* Top-level usage: commands and where to read more. */
void gcb_command_usage(FILE *out);

/* --- internal to the commands ------------------------------------------- */

struct gcb_run_opts;
struct gcb_bench;

/* Prints "gcbench: error: msg" once, on rank 0. */
void gcb__print_error(int rank, const char *msg);

/* One run: context, backend, header, the benchmarks (NULL-terminated, with
 * their options), footer; `options` (stolen) is the echo of every option.
 * Returns the exit code. */
int gcb__run(const char *command, int argc, char **argv,
             const struct gcb_run_opts *ro,
             const struct gcb_bench *const *benches, void *const *bench_opts,
             json_t *options);

/* suite, with its profiles (suite.c). */
int gcb__suite_command(int argc, char **argv, int rank);

/* 0 when every profile's options parse for every benchmark, else -1 with
 * the problem in err (for tests). */
int gcb__suite_profile_check(struct gcb_err *err);

#endif
