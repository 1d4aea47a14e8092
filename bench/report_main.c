/*
 * gcbench-report: the commands that read and draw, not measure (report,
 * compare, topo), in an executable that links neither MPI, BLAS nor the
 * CUDA libraries, so that a report is made on a laptop or a CI runner
 * with none of them installed, and starts in milliseconds. gcbench runs
 * it for those commands (bench/main.c); it prints as gcbench does.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench/cli/launcher.h"
#include "bench/cli/report_command.h"
#include "bench/cli/topo_command.h"
#include "common/status.h"
#include "gcb_revision.h"

static const struct {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv, int rank);
} commands[] = {
    {"report", "findings, tables and plots from results documents",
     gcb__report_command},
    {"compare", "compare a run with a baseline (noise-aware)",
     gcb__compare_command},
    {"topo", "GPUs, NICs and the paths between them (nvidia-smi topo -m style)",
     gcb__topo_command},
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

static void usage(FILE *out) {
  fprintf(out, "usage: gcbench-report <command> [options]\n"
               "       gcbench-report <command> --help\n\n"
               "The commands of gcbench that need neither MPI nor a GPU "
               "library:\n");
  for (size_t i = 0; i < NCOMMANDS; i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv) {
  int rank = gcb_launcher_rank();
  if (argc == 2 &&
      (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0 ||
       strcmp(argv[1], "version") == 0)) {
    if (rank == 0)
      printf("gcbench %s (%s)\n", GCB_VERSION, GCB_GIT_REVISION);
    return gcb_exit_after_stdout(0, rank);
  }
  if (argc < 2 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
    if (rank == 0)
      usage(argc < 2 ? stderr : stdout);
    return gcb_exit_after_stdout(argc < 2 ? 2 : 0, rank);
  }
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (strcmp(commands[i].name, argv[1]) == 0)
      return gcb_exit_after_stdout(commands[i].run(argc - 1, argv + 1, rank),
                                   rank);
  if (rank == 0)
    fprintf(stderr,
            "gcbench: error: unknown command '%s' (see gcbench-report "
            "--help)\n",
            argv[1]);
  return 2;
}
