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
 * (250 round trips per pair) and one allgather of node indices. Part of
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

/* One side of the ping-pong: rank 0 sends first and times each batch
 * (batch_s, PROBE_BATCHES of them), the peer echoes with its own buffer,
 * as osu_latency's responder does. */
static int ping_pong(MPI_Comm comm, int me, int other, double *batch_s) {
  char out[PROBE_BYTES] = {1}, in[PROBE_BYTES];
  int rc = MPI_SUCCESS;
  for (int b = -1; rc == MPI_SUCCESS && b < PROBE_BATCHES; b++) {
    int trips = b < 0 ? PROBE_WARMUP : PROBE_BATCH;
    double t0 = MPI_Wtime();
    for (int i = 0; rc == MPI_SUCCESS && i < trips; i++) {
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
    }
    if (b >= 0)
      batch_s[b] = MPI_Wtime() - t0;
  }
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
    rc = ping_pong(ctx->world, ctx->rank, ctx->rank == 0 ? peers[i] : 0,
                   batch_s);
    if ((st = gcb_mpi_err(&ctx->err, rc, "MPI ping-pong (MPI probe)")) !=
            GCB_OK ||
        ctx->rank != 0)
      continue;
    out->pair[out->npairs].peer = peers[i];
    out->pair[out->npairs].same_node = node_of[peers[i]] == node_of[0];
    gcb__probe_summarize(batch_s, PROBE_BATCHES, PROBE_BATCH,
                         &out->pair[out->npairs].median_us,
                         &out->pair[out->npairs].min_us);
    out->npairs++;
  }
  free(node_of);
  return st;
}
