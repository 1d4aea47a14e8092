/*
 * The reference for scripts/perf/coll-overhead: a bare MPI_Allreduce loop
 * of float sums, timed like gcbench coll's headline loop (warm-up, barrier,
 * back-to-back iterations, mean per iteration, averaged over ranks).
 * usage: bare_allreduce BYTES ITERS WARMUP -> prints "seconds algbw_GB/s"
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc != 4) {
    fprintf(stderr, "usage: bare_allreduce BYTES ITERS WARMUP\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  size_t bytes = strtoull(argv[1], NULL, 10);
  int iters = atoi(argv[2]), warmup = atoi(argv[3]);
  int count = (int)(bytes / sizeof(float)), rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  float *send = malloc(bytes), *recv = malloc(bytes);
  for (int i = 0; i < count; i++)
    send[i] = (float)(1 + (rank + i) % 3);
  for (int i = 0; i < warmup; i++)
    MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = now();
  for (int i = 0; i < iters; i++)
    MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double mine = (now() - t0) / iters, sum = 0;
  MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%.9g %.9g\n", sum / size, (double)bytes / (sum / size) / 1e9);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
