/*
 * The gcbench commands: one row per command in a table that main() looks
 * up by name. Each command parses its own option table and returns a
 * process exit code (0 pass, 1 validation failure, 2 bad usage or input,
 * 3 runtime error). Collective: every rank runs the same command.
 */
#ifndef GCB_COMMANDS_H
#define GCB_COMMANDS_H

#include <stdio.h>

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

#endif
