/* gcbench: start MPI, run one command, end MPI. Everything else is in the
 * library, so tests drive the same code. */
#include <mpi.h>
#include <stdio.h>

#include "commands.h"

int main(int argc, char **argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    fprintf(stderr, "gcbench: error: MPI_Init failed\n");
    return 3;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int code = gcb_command_dispatch(argc, argv, rank);
  fflush(stdout);
  MPI_Finalize();
  return code;
}
