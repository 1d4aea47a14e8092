/* gcbench: start MPI, run one command, end MPI. Everything else is in the
 * library, so tests drive the same code.
 *
 * MPI_THREAD_FUNNELED: only this thread calls MPI, but others exist (the
 * watchdog's, BLAS's). MPICH gives it without the locking that
 * MPI_THREAD_MULTIPLE costs on every call. */
#include <mpi.h>
#include <stdio.h>

#include "bench/cli/commands.h"

int main(int argc, char **argv) {
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
  int code = gcb_command_dispatch(argc, argv, rank);
  fflush(stdout);
  MPI_Finalize();
  return code;
}
