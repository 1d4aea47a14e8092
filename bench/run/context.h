/*
 * The run context: everything one rank knows about where it runs, passed
 * first to every harness and benchmark call. No mutable globals.
 */
#ifndef GCB_CONTEXT_H
#define GCB_CONTEXT_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/status.h"
#include "kernels/backend.h"
#include "topo/topo.h"

struct gcb_watchdog;

struct gcb_ctx {
  MPI_Comm world; /* dup of MPI_COMM_WORLD */
  int rank, size;
  /* Ranks of this node: the ranks sharing a machine's memory
   * (MPI_COMM_TYPE_SHARED), or one group of them under the test override
   * GCB_FAKE_NODES / GCB_NODE_MAP (docs/MULTINODE.md). */
  MPI_Comm node;
  int local_rank, local_size;
  int node_index, node_count; /* nodes numbered in order of their first rank */
  /* Ranks sharing this machine, whatever the override: devices and memory
   * and core shares are per machine, so the backend takes these. Equal to
   * local_rank and local_size without the override. */
  int host_rank, host_size;
  char hostname[256]; /* the node's name: the host's, or its group's */
  pid_t pid;

  /* This node's topology, loaded once, on the node's first rank only (NULL
   * on the others): the live machine, or the group's XML under
   * GCB_NODE_MAP. The results' per-node topology comes from it. */
  struct gcb_topo *topo;
  struct gcb_topo_summary machine;      /* the live machine: sizes work */
  struct gcb_topo_summary node_machine; /* summary of the node's topology,
                                           on every rank of the node */
  char cpu_binding[256]; /* hwloc list string of this rank's PUs (live) */
  int bound_pus;         /* PUs in cpu_binding */
  int cpu_threads;       /* threads this rank computes with */

  const struct gcb_backend_ops *backend_ops;
  char backend_reason[160]; /* why this backend was picked */
  struct gcb_backend *backend;
  struct gcb_device_info device;

  /* The deadline of the case or set-up this rank is in, as its watchdog
   * arms it (CLOCK_MONOTONIC seconds; 0 between cases); NULL without a
   * watchdog (--timeout 0). Given to transports that can give up on their
   * own (struct gcb_coll_env), so that a stuck library call ends in
   * GCB_ETIMEOUT. Written by this thread only. */
  const volatile double *deadline;
  /* This rank's watchdog, for benchmarks' steps inside long loops
   * (gcb_watchdog_step); NULL without one. Set by the harness. */
  struct gcb_watchdog *watchdog;

  uint64_t seed;      /* base seed of random inputs (+ rank) */
  bool stdout_tty;    /* live extras only on a terminal */
  struct gcb_err err; /* detail of the last failure */
};

/* Detail message of the last failure recorded in ctx. */
const char *gcb_errmsg(const struct gcb_ctx *ctx);

/*
 * Fills ctx after MPI_Init: MPI world and node communicators, node names
 * and numbers, pid, topology, CPU binding. Reads the environment variables
 * GCB_FAKE_NODES and GCB_NODE_MAP (docs/MULTINODE.md): GCB_EUSAGE when they
 * are malformed or ask for more nodes than a machine has ranks, GCB_EINPUT
 * when a group's XML cannot be read. Collective over MPI_COMM_WORLD; fails
 * on every rank if it fails on one. On failure the detail is in ctx->err
 * and gcb_context_free() must still be called.
 */
enum gcb_status gcb_context_init(struct gcb_ctx *ctx);

/*
 * Selects ("auto", "host", "cuda") and opens the backend on every rank.
 * Collective: fails on every rank if it fails on one.
 */
enum gcb_status gcb_context_open_backend(struct gcb_ctx *ctx, const char *name);

/* Closes the backend and frees everything; safe on a partly filled ctx. */
void gcb_context_free(struct gcb_ctx *ctx);

/*
 * Collective agreement on a status: GCB_OK when every rank is OK, else the
 * status of the lowest failing rank, whose detail is copied into ctx->err on
 * every rank, prefixed with that rank and host.
 */
enum gcb_status gcb_context_agree(struct gcb_ctx *ctx, enum gcb_status mine);

/* ---- internal: the test override, for its tests and fuzz/ -------------- */

#define GCB__NODE_XML_MAX 4096 /* an XML path of GCB_NODE_MAP, with its NUL */

/*
 * Parses GCB_FAKE_NODES (`fake`) and GCB_NODE_MAP (`map`, "NAME[:XML],...";
 * either NULL or "" when not set) into the number of fake nodes (0: no
 * override). GCB_EUSAGE with one line naming the variable and the entry:
 * a bad count, an empty or bad name (up to 63 letters, digits, '.', '-',
 * '_'), a name given twice, an XML path too long, more than 1,024
 * entries, or a count the map disagrees with.
 */
enum gcb_status gcb__node_override_parse(const char *fake, const char *map,
                                         int *count, struct gcb_err *err);

/* Entry `index` of a map that parsed: its name and XML path ("" when it
 * has none), truncated to the buffers; false when there is no such
 * entry. */
bool gcb__node_map_entry(const char *map, int index, char *name,
                         size_t name_len, char *xml, size_t xml_len);

#endif
