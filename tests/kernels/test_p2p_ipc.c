/*
 * The CUDA IPC teardown order of the p2p benchmark, under mpiexec -n 2
 * with the fake CUDA layer (fake_cuda.c), without a GPU: each rank sees
 * one (fake) GPU, so every pair is measured by the source's rank on the
 * destination's buffer, exported by the other rank with
 * cudaIpcGetMemHandle and mapped with cudaIpcOpenMemHandle. CUDA leaves
 * freeing memory another process still maps undefined, so the exporter
 * must free only after the importer has closed its mapping: the node
 * barrier in the case's release (bench/benches/p2p.c) orders it.
 *
 * The fake's cudaIpcCloseMemHandle takes 300 ms, as a slow importer would;
 * every call is logged with a CLOCK_MONOTONIC time, which is one clock for
 * both processes. The check: in time order, no exported buffer is freed
 * before as many mappings have been closed (each case's export is freed
 * after that case's close). Without the barrier the exporter frees at
 * once, 300 ms before the close, and the test fails.
 *
 * A plain MPI program (criterion forks, which MPI does not survive): exit
 * 0 on success, 1 with the reason on rank 0's stderr otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/cli/commands.h"
#include "common/cudamod.h"
#include "kernels/backend.h"
#include "tests/kernels/fake_cuda.h"

/* The cuda backend linked in here, over the fake CUDA layer. */
extern const struct gcb_backend_ops gcb_backend_cuda;

#define MAX_EVENTS 64

/* A teardown event: +1 a mapping closed, -1 an exported buffer freed. */
struct event {
  double t;
  int kind;
  int rank;
};

/* This rank's closes and frees of exported buffers, in log order. */
static int my_events(int rank, struct event *out) {
  int n = 0;
  for (int i = 0; i < fake_cuda.n && n < MAX_EVENTS; i++) {
    const struct fake_call *c = &fake_cuda.log[i];
    int kind = 0;
    if (strcmp(c->name, "cudaIpcCloseMemHandle") == 0)
      kind = +1;
    else if (strcmp(c->name, "cudaFree") == 0)
      for (int j = 0; j < i && kind == 0; j++)
        if (strcmp(fake_cuda.log[j].name, "cudaIpcGetMemHandle") == 0 &&
            fake_cuda.log[j].what == c->what)
          kind = -1;
    if (kind != 0)
      out[n++] = (struct event){c->t, kind, rank};
  }
  return n;
}

static int by_time(const void *a, const void *b) {
  const struct event *x = a, *y = b;
  return (x->t > y->t) - (x->t < y->t);
}

/* The verdict on every rank's events: NULL when the order holds. */
static const char *judge(struct event *all, int n, char *why, size_t len) {
  int closes = 0, frees = 0;
  qsort(all, (size_t)n, sizeof *all, by_time);
  for (int i = 0; i < n; i++) {
    closes += all[i].kind > 0;
    frees += all[i].kind < 0;
    if (frees > closes) {
      snprintf(why, len,
               "rank %d freed exported buffer %d at t=%.3f s while only %d "
               "importer mapping(s) had been closed: the exporter does not "
               "wait for the importer (the teardown barrier)",
               all[i].rank, frees, all[i].t - all[0].t, closes);
      return why;
    }
  }
  if (closes != 2 || frees != 2) {
    snprintf(why, len,
             "expected 2 IPC mappings closed and 2 exports freed (pairs "
             "0->1 and 1->0), saw %d and %d",
             closes, frees);
    return why;
  }
  return NULL;
}

static int run_p2p(int rank, const char *dir) {
  char out[600];
  snprintf(out, sizeof out, "%s/p2p.json", dir);
  char *args[] = {"gcbench",     "p2p", "--backend", "cuda", "--mode",  "ce",
                  "--direction", "uni", "--size",    "64K",  "--iters", "2",
                  "--warmup",    "0",   "--output",  out,    NULL};
  return gcb_command_dispatch((int)(sizeof args / sizeof *args) - 1, args,
                              rank);
}

int main(int argc, char **argv) {
  int provided, rank = 0, size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0)
      fprintf(stderr, "test_p2p_ipc: run it on 2 ranks (mpiexec -n 2)\n");
    MPI_Finalize();
    return 1;
  }
  /* Both ranks on one node whose (saved) topology has GPUs, so that the
   * placement check accepts device 0 on a machine without any. */
  setenv("GCB_NODE_MAP",
         "ipcnode:" GCB_TEST_DATA "/topo/hwloc-2socket-3gpu-ib.xml", 1);
  /* One fake GPU per rank, at different bus ids: one GPU pair. */
  fake_cuda_reset();
  fake_cuda.device_count = 1;
  fake_cuda.bus_base = 0x19 + 0x20 * rank;
  fake_cuda.close_delay_ms = 300;
  /* The cuda row of the backend table resolves to the table linked in
   * here, not to gcbench-cuda.so and the real CUDA runtime. */
  gcb_cudamod_link_in(&gcb_backend_cuda, NULL);
  char dir[64] = "/tmp/gcb-p2p-ipc-XXXXXX";
  int made = rank != 0 || mkdtemp(dir) != NULL;
  MPI_Bcast(&made, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  int code = made ? run_p2p(rank, dir) : 2;

  struct event mine[MAX_EVENTS], all[2 * MAX_EVENTS];
  int n = my_events(rank, mine), counts[2] = {0, 0}, displs[2] = {0, 0};
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 0; r < 2; r++)
    counts[r] *= (int)sizeof(struct event);
  displs[1] = counts[0];
  MPI_Gatherv(mine, n * (int)sizeof *mine, MPI_BYTE, all, counts, displs,
              MPI_BYTE, 0, MPI_COMM_WORLD);
  int fail = 0;
  if (rank == 0) {
    char why[512];
    const char *bad = code != 0 ? "the p2p run failed" : NULL;
    if (bad == NULL)
      bad = judge(all, (counts[0] + counts[1]) / (int)sizeof *all, why,
                  sizeof why);
    if (bad != NULL)
      fprintf(stderr, "test_p2p_ipc: FAIL: %s (gcbench exit %d)\n", bad, code);
    else
      printf("test_p2p_ipc: ok: every export freed after its import closed\n");
    fail = bad != NULL;
    char path[700];
    snprintf(path, sizeof path, "%s/p2p.json", dir);
    unlink(path);
    rmdir(dir);
  }
  MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return fail;
}
