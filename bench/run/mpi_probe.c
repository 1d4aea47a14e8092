/*
 * The start-up MPI probe (run.mpi_probe, docs/results-schema.md): a few
 * hundred 8-byte ping-pongs between rank 0 and rank 1, and between rank 0
 * and the first rank of the other kind (on rank 0's node when rank 1 is
 * not, on another node when it is), timed as osu_latency times them. It
 * exists because MPICH over UCX on one machine settles, launch by launch,
 * in a fast or a slow mode (an 8 B latency of 0.19 us in some launches,
 * 0.45 us in most, docs/REPORTS.md "MPI mode"): two runs' small-message
 * figures can differ 2x with nothing else changed, and `compare` needs the
 * probe to tell that from a regression. It costs well under a millisecond
 * (250 round trips per pair) and one allgather of node indices, and at
 * most PROBE_BUDGET_S per pair on a machine too busy to run it whole. Part of
 * the header's job (bench/run/header.h), in a file of its own.
 */
#include "bench/run/header.h"

#include "common/mpi_err.h"

#include <stdlib.h>
#include <string.h>

enum {
  PROBE_BYTES = 8,
  PROBE_WARMUP = 50,
  PROBE_BATCHES = 10,
  PROBE_BATCH = 20, /* round trips per timed batch */
  PROBE_TAG = 7401,
};
/* Per pair, whatever the machine: on two busy cores both ranks can share
 * one, and each message then waits for a time slice (5-7 ms on the
 * development VM): 250 of them would take seconds. 10 ms was too little
 * there: one time slice lost in the warm-up spent it, where the least of
 * a few more batches still read the launch's latency. */
#define PROBE_BUDGET_S 0.050

/* The peers of rank 0 (the same on every rank, from each rank's node
 * index): rank 1, and the lowest rank of the kind rank 1 is not. */
int gcb__probe_peers(const int *node_of, int size, int peers[2]) {
  if (size < 2)
    return 0;
  int n = 0;
  peers[n++] = 1;
  bool one_local = node_of[1] == node_of[0];
  for (int r = 2; r < size; r++)
    if ((node_of[r] == node_of[0]) != one_local) {
      peers[n++] = r;
      break;
    }
  return n;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void gcb__probe_summarize(const double *batch_s, int nbatches, int per_batch,
                          double *median_us, double *min_us) {
  double us[PROBE_BATCHES * 4];
  int n = nbatches < (int)(sizeof us / sizeof *us)
              ? nbatches
              : (int)(sizeof us / sizeof *us);
  for (int i = 0; i < n; i++)
    us[i] = 1e6 * batch_s[i] / (2.0 * per_batch);
  qsort(us, (size_t)n, sizeof *us, cmp_double);
  *median_us = n == 0 ? 0 : n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
  *min_us = n == 0 ? 0 : us[0];
}

/* One round trip; rank 0 sends first, the peer echoes with its own buffer,
 * as osu_latency's responder does. */
static int round_trip(MPI_Comm comm, int me, int other, char *out, char *in) {
  int rc;
  if (me == 0) {
    rc = MPI_Send(out, PROBE_BYTES, MPI_BYTE, other, PROBE_TAG, comm);
    if (rc == MPI_SUCCESS)
      rc = MPI_Recv(in, PROBE_BYTES, MPI_BYTE, other, PROBE_TAG, comm,
                    MPI_STATUS_IGNORE);
  } else {
    rc = MPI_Recv(in, PROBE_BYTES, MPI_BYTE, other, PROBE_TAG, comm,
                  MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
      rc = MPI_Send(out, PROBE_BYTES, MPI_BYTE, other, PROBE_TAG, comm);
  }
  return rc;
}

/* Rank 0's side: warm-up, then the timed batches (batch_s, *done of them
 * whole) until they are all done or the budget is spent; the first byte
 * of each message tells the peer whether another follows (0: the last).
 * The clock is read every 4 round trips, not each, to stay out of the
 * figure. When not one batch was whole, batch_s[0] is the time of all the
 * round trips made after the first, *trips of them. */
static int ping(MPI_Comm comm, int other, double *batch_s, int *done,
                int *trips_made) {
  char out[PROBE_BYTES] = {1}, in[PROBE_BYTES];
  *done = *trips_made = 0;
  /* the peer may arrive late (it was busy, or waiting for a CPU): the
   * budget starts once it answers */
  int rc = round_trip(comm, 0, other, out, in);
  bool stop = false;
  double start = MPI_Wtime();
  for (int b = -1; rc == MPI_SUCCESS && !stop && b < PROBE_BATCHES; b++) {
    int trips = b < 0 ? PROBE_WARMUP : PROBE_BATCH, i = 0;
    double t0 = MPI_Wtime();
    for (; rc == MPI_SUCCESS && !stop && i < trips; i++) {
      bool final = b == PROBE_BATCHES - 1 && i == trips - 1;
      stop = final || ((i % 4 == 3 || i == trips - 1) &&
                       MPI_Wtime() - start > PROBE_BUDGET_S);
      out[0] = !stop;
      rc = round_trip(comm, 0, other, out, in);
      *trips_made += rc == MPI_SUCCESS;
    }
    if (b >= 0 && i == trips && rc == MPI_SUCCESS)
      batch_s[(*done)++] = MPI_Wtime() - t0;
  }
  if (*done == 0)
    batch_s[0] = MPI_Wtime() - start;
  return rc;
}

/* The peer's side: echo until rank 0 says it sent the last. */
static int pong(MPI_Comm comm) {
  char out[PROBE_BYTES] = {1}, in[PROBE_BYTES] = {1};
  int rc = MPI_SUCCESS;
  while (rc == MPI_SUCCESS && in[0] != 0)
    rc = round_trip(comm, 1, 0, out, in);
  return rc;
}

enum gcb_status gcb__mpi_probe(struct gcb_ctx *ctx, struct gcb_mpi_probe *out) {
  *out = (struct gcb_mpi_probe){.bytes = PROBE_BYTES,
                                .round_trips = PROBE_BATCHES * PROBE_BATCH,
                                .batches = PROBE_BATCHES};
  if (ctx->size < 2)
    return GCB_OK;
  int *node_of = calloc((size_t)ctx->size, sizeof *node_of);
  if (node_of == NULL)
    return gcb_err_set(&ctx->err, GCB_ENOMEM, "MPI probe: out of memory");
  int rc = MPI_Allgather(&ctx->node_index, 1, MPI_INT, node_of, 1, MPI_INT,
                         ctx->world);
  enum gcb_status st = gcb_mpi_err(&ctx->err, rc, "MPI_Allgather (MPI probe)");
  int peers[GCB_PROBE_PAIRS];
  int n = st == GCB_OK ? gcb__probe_peers(node_of, ctx->size, peers) : 0;
  for (int i = 0; st == GCB_OK && i < n; i++) {
    if (ctx->rank != 0 && ctx->rank != peers[i])
      continue;
    double batch_s[PROBE_BATCHES];
    int done = 0, trips = 0;
    rc = ctx->rank == 0 ? ping(ctx->world, peers[i], batch_s, &done, &trips)
                        : pong(ctx->world);
    if ((st = gcb_mpi_err(&ctx->err, rc, "MPI ping-pong (MPI probe)")) !=
            GCB_OK ||
        ctx->rank != 0 || trips == 0)
      continue;
    out->pair[out->npairs].peer = peers[i];
    out->pair[out->npairs].same_node = node_of[peers[i]] == node_of[0];
    out->pair[out->npairs].batches = done;
    /* cut short before a whole batch: the round trips made, as one */
    gcb__probe_summarize(
        batch_s, done > 0 ? done : 1, done > 0 ? PROBE_BATCH : trips,
        &out->pair[out->npairs].median_us, &out->pair[out->npairs].min_us);
    out->npairs++;
  }
  free(node_of);
  return st;
}
