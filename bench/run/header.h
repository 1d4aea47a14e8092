/*
 * The run's header in the results document (tool, run, software, nodes,
 * ranks) and the output path. Internal to the harness.
 */
#ifndef GCB_HEADER_H
#define GCB_HEADER_H

#include <stdbool.h>

#include "bench/run/context.h"
#include "bench/run/sink.h"
#include "reports/reports.h"

/*
 * Gathers every rank's identity (host, pid, binding, device, machine) to
 * rank 0 and, there, sets the "tool", "run", "software", "nodes" and "ranks"
 * sections of `results` (NULL on other ranks). Collective. On rank 0,
 * *names receives "host, device" per rank and *devices each rank's line
 * of nccl-tests' device list ("#  Rank  0 Group  0 Pid ..."; caller frees
 * both); NULL elsewhere. On rank 0, blas receives the BLAS line of the
 * live table (gcb__blas_describe) when the backend runs OpenBLAS, else "".
 */
enum gcb_status gcb__header_build(struct gcb_ctx *ctx,
                                  struct gcb_results *results,
                                  const char *command, int argc, char **argv,
                                  const char *run_id, char (**names)[96],
                                  char (**devices)[GCB_DEVICE_LINE], char *blas,
                                  size_t blas_len);

/* Sets run.status and run.end_time (now). */
enum gcb_status gcb__header_finish(struct gcb_results *results,
                                   const char *status, struct gcb_err *err);

/*
 * The "NAME=VALUE" entries of env (environ) that the document records as
 * the launch context: Slurm's job, node list and step, NCCL_*, UCX_*,
 * MPIR_CVAR_*, FI_*, OMPI_MCA_*, HYDRA_*, PMI_*, I_MPI_*, OPENBLAS_*,
 * GOTO_*, OMP_*, CUDA_VISIBLE_DEVICES; never one whose name holds TOKEN, KEY,
 * SECRET, PASSWORD, PASSWD, CRED or AUTH. Sorted, NULL-terminated, pointing
 * into env; the caller frees the array. NULL on ENOMEM.
 */
const char **gcb__launch_env(char **env);

/* This rank's BLAS as OpenBLAS tells it (core, threads, threading) and
 * the widest vector ISA its CPU offers (provenance.c). */
void gcb__blas_probe(struct gcb_blas_info *out);

/* "OpenBLAS Haswell kernels, 2 threads (pthreads)", for the live table. */
void gcb__blas_describe(const struct gcb_blas_info *b, char *buf, size_t len);

/* The device in MPICH's library version text ("MPICH Device:\tch4:ucx"
 * gives "ch4:ucx"); "" for a text without one (other MPI libraries). */
void gcb__mpi_device(const char *version, char *out, size_t len);

/*
 * The start-up MPI probe (mpi_probe.c): 8-byte ping-pongs between rank 0
 * and its peers (gcb__probe_peers), their one-way latency in *out on rank
 * 0 (npairs 0 on one rank). Collective over ctx->world. GCB_EMPI naming
 * the call when an MPI call fails, GCB_ENOMEM.
 */
enum gcb_status gcb__mpi_probe(struct gcb_ctx *ctx, struct gcb_mpi_probe *out);

/* Rank 0's probe peers from every rank's node index: rank 1 and the
 * lowest rank whose node-sharing with rank 0 differs from rank 1's (the
 * intra-node pair and an inter-node one, where there are both). Returns
 * how many (0 for one rank, at most GCB_PROBE_PAIRS). */
int gcb__probe_peers(const int *node_of, int size, int peers[2]);

/* One-way latency of timed batches (seconds per batch of per_batch round
 * trips): median and min over the batches, in microseconds. */
void gcb__probe_summarize(const double *batch_s, int nbatches, int per_batch,
                          double *median_us, double *min_us);

/* "20261129-153000-<pid>": UTC start time and pid of rank 0. */
void gcb__run_id(char *buf, size_t len);

/*
 * Resolves the results path: `requested`, or "results/gcbench-<run_id>.json".
 * Creates missing directories (one that cannot be is GCB_EUSAGE naming
 * --output); refuses an existing file unless `force` (GCB_EUSAGE naming
 * it); without `force` claims the path by creating it exclusively (an
 * empty file), so a second run given the same path is refused.
 */
enum gcb_status gcb__output_path(const char *requested, const char *run_id,
                                 bool force, char *out, size_t len,
                                 struct gcb_err *err);

/* The claimed path (gcb__output_path without force) holds the document, or
 * is given up: SIGINT and SIGTERM go back to what they were (the
 * watchdog's handlers come next). Until then either signal removes the
 * claim while it is empty and ends the process by that signal. A no-op
 * when nothing was claimed. */
void gcb__claim_release(void);

#endif
