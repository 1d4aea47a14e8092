/* gcbench: start MPI, run one command, end MPI. Everything else is in the
 * library, so tests drive the same code.
 *
 * The commands that measure nothing start no MPI: report, compare and topo
 * are run by gcbench-report (bench/report_main.c, beside this executable),
 * which links no MPI, BLAS or CUDA library; `--help` and `--version` are
 * answered here before MPI_Init. Where gcbench-report is missing, those
 * commands run here as before.
 *
 * MPI_THREAD_FUNNELED: only this thread calls MPI, but others exist (the
 * watchdog's, BLAS's). MPICH gives it without the locking that
 * MPI_THREAD_MULTIPLE costs on every call. */
#define _GNU_SOURCE /* readlink's PATH_MAX and execv under strict C11 */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/cli/commands.h"
#include "bench/cli/launcher.h"
#include "common/status.h"

/* Whether argv asks for a command that gcbench-report runs. A program
 * link (all_reduce_perf, osu_bw) reads its arguments as a benchmark's. */
static int report_tool_command(int argc, char **argv) {
  static const char *const names[] = {"report", "compare", "topo"};
  const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;
  base = base ? base + 1 : argc > 0 ? argv[0] : "";
  if (argc < 2 || strcmp(base, "gcbench") != 0)
    return 0;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(argv[1], names[i]) == 0)
      return 1;
  return 0;
}

/* Replaces this process with gcbench-report from this executable's
 * directory, same arguments; returns only when it cannot. */
static void exec_report_tool(char **argv) {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
  if (n <= 0)
    return;
  path[n] = '\0';
  char *slash = strrchr(path, '/');
  if (slash == NULL)
    return;
  strcpy(slash + 1, "gcbench-report");
  execv(path, argv);
}

/* --help, -h, help, --version, -V, or nothing: answered without MPI. */
static int plain_answer(int argc, char **argv) {
  const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;
  base = base ? base + 1 : argc > 0 ? argv[0] : "";
  if (strcmp(base, "gcbench") != 0)
    return 0; /* a program link has its own --help */
  if (argc < 2)
    return 1;
  return argc == 2 &&
         (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
          strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--version") == 0 ||
          strcmp(argv[1], "-V") == 0);
}

int main(int argc, char **argv) {
  if (report_tool_command(argc, argv)) {
    fflush(NULL);
    exec_report_tool(argv);
  }
  if (plain_answer(argc, argv)) {
    int rank = gcb_launcher_rank();
    return gcb_exit_after_stdout(gcb_command_dispatch(argc, argv, rank), rank);
  }
  int provided = MPI_THREAD_SINGLE;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) !=
      MPI_SUCCESS) {
    fprintf(stderr, "gcbench: error: MPI_Init_thread failed\n");
    return 3;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_FUNNELED) {
    if (rank == 0)
      fprintf(stderr,
              "gcbench: error: the MPI library gives thread level %d, below "
              "MPI_THREAD_FUNNELED, which gcbench's watchdog thread needs\n",
              provided);
    MPI_Finalize();
    return 3;
  }
  int code =
      gcb_exit_after_stdout(gcb_command_dispatch(argc, argv, rank), rank);
  MPI_Finalize();
  return code;
}
