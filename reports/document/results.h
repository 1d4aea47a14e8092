/*
 * The results document (schema "gcbench.results/2", docs/results-schema.md):
 * one JSON document per run, built with jansson, rewritten atomically after
 * every finished case so that a crash keeps every finished case, and read
 * back with full validation for reports and comparisons.
 *
 * reports/document/ owns the document end to end: each section's writer,
 * schema rows and reader side by side (section_*.c), building cases from
 * records, atomic writing (write.c), reading and upgrading (read.c).
 *
 * Ownership: a struct gcb_results owns its JSON tree. Functions taking a
 * json_t * "steal" it (the jansson convention, *_new references), also on
 * failure.
 */
#ifndef GCB_RESULTS_H
#define GCB_RESULTS_H

#include <jansson.h>

#include "common/health.h"
#include "common/status.h"
#include "reports/document/record.h"
#include "topo/topo.h"

#define GCB_RESULTS_SCHEMA "gcbench.results/2"
/* Still read: per_rank as an array of objects, transposed on reading. */
#define GCB_RESULTS_SCHEMA_V1 "gcbench.results/1"

struct gcb_results;
struct gcb_ranks; /* reports/document/ranks.h */

/* An empty document: schema, empty cases/skipped/errors. NULL on ENOMEM. */
struct gcb_results *gcb_results_new(void);

/* Frees the document; NULL is a no-op. */
void gcb_results_free(struct gcb_results *r);

/* The JSON tree (borrowed). A document read from a file holds each case's
 * per-rank columns apart, as arrays (gcb_results_ranks), and its tree's
 * per_rank as `{}`: a caller that walks or dumps the columns itself calls
 * gcb_results_plain first. gcb_results_write writes them. */
json_t *gcb_results_json(const struct gcb_results *r);

/* The per-rank columns of case i (the index in "cases") of a document
 * read from a file (borrowed, living as long as r); NULL for one built in
 * memory, whose tree holds them (gcb_ranks_of reads them), or i past the
 * cases read. */
const struct gcb_ranks *gcb_results_ranks(const struct gcb_results *r,
                                          size_t i);

/* Puts the per-rank columns of a document read back into its tree, as
 * the arrays json_loadb builds (integers, reals, booleans as the schema's
 * columns have them), for a caller that walks the tree itself; the
 * document then holds them there only. GCB_ENOMEM. */
enum gcb_status gcb_results_plain(struct gcb_results *r, struct gcb_err *err);

/*
 * Sets a top-level section ("tool", "run", "options", "software", "nodes",
 * "ranks"), replacing an earlier value. Steals `value`. The value is checked
 * against the schema, so every document written reads back: GCB_EINTERNAL
 * (document unchanged) for another section name or a value off schema,
 * GCB_ENOMEM for a NULL value or no memory.
 */
enum gcb_status gcb_results_set(struct gcb_results *r, const char *section,
                                json_t *value, struct gcb_err *err);

/*
 * The burn-in timeline of case c, of nranks ranks, of a document that was
 * read (validated: sizes agree and are bounded, section_cases.c) into *out, one
 * array per series present (NAN for null), the absent ones NULL with their
 * reason: free with gcb_burn_timeline_free(). false when c has no timeline, or
 * on ENOMEM (*out then holds nothing to free).
 */
bool gcb_results_burn_timeline(const json_t *c, size_t nranks,
                               struct gcb_burn_timeline *out);

/* Appends a finished case built from rec (per-rank statistics, figures,
 * validation, cross-rank summary). Non-finite numbers are written as null
 * where the schema allows it (max_error, tolerance); elsewhere (a NaN time)
 * the case is refused with GCB_EINTERNAL and the document is unchanged.
 * GCB_ENOMEM when memory runs out or a string is not UTF-8. */
enum gcb_status gcb_results_add_record(struct gcb_results *r,
                                       const struct gcb_record *rec,
                                       struct gcb_err *err);

/* Appends a skipped case with its one-line reason. NULL strings are written
 * as "". GCB_ENOMEM as for records. */
enum gcb_status gcb_results_add_skip(struct gcb_results *r, const char *bench,
                                     const char *label, const char *reason,
                                     struct gcb_err *err);

/* Appends an error: which case, which rank (-1: all/unknown), what; the
 * status is written by name ("ENOMEM"). NULL strings are written as "".
 * GCB_ENOMEM as for records. */
enum gcb_status gcb_results_add_error(struct gcb_results *r, const char *bench,
                                      const char *label, int rank,
                                      enum gcb_status code, const char *message,
                                      struct gcb_err *err);

/*
 * Writes the document to `path` atomically: a temporary file in the same
 * directory, fsync, rename, fsync of the directory. The temporary file is
 * unnamed (O_TMPFILE) until complete and only then linked as path.tmp.PID
 * and renamed, so a writer killed at any point leaves either the old or the
 * new document at `path` and, but for the instant between link and rename,
 * no temporary file (one left so is removed by the next write to `path`);
 * where O_TMPFILE is missing (some network filesystems) path.tmp.PID is
 * written directly. On failure the previous file at `path` (if any) is
 * untouched and the temporary file removed; GCB_EIO with "path: what
 * (reason)", also for a `path` that is a device, FIFO or socket, which a
 * rename would replace; GCB_ENOMEM. Does not create missing directories.
 * Safe to call from any one thread at a time.
 */
enum gcb_status gcb_results_write(const struct gcb_results *r, const char *path,
                                  struct gcb_err *err);

/*
 * How large a results document may be. Its size follows its shape: up to
 * GCB_FILE_MAX_BYTES (256 MiB) whatever it holds, and beyond that
 * GCB_RESULTS_ENTRY_BYTES more for each per-rank entry (one rank of one
 * case: a 16,384-rank, 143-case document is 215-295 MB), up to the
 * absolute GCB_RESULTS_MAX_BYTES, which is refused before reading. A
 * larger file is not read into a tree: its scan (which allocates at most
 * a few times the text) finds too few entries and it is refused.
 */
#define GCB_RESULTS_ENTRY_BYTES ((size_t)2 << 10)
#define GCB_RESULTS_MAX_BYTES ((size_t)2 << 30)

/*
 * Reads and validates a results document from text[0..len) (a file read
 * whole with gcb_file_read and GCB_RESULTS_MAX_BYTES: reports/load.c);
 * `name` stands for the file name in messages. Every problem is reported
 * as "name:line:column: problem" (syntax errors, wrong types, missing
 * fields, unknown schema version, invalid UTF-8), with status GCB_EINPUT;
 * only the first problem is reported. Schema-1 documents are read too and
 * come out as schema 2 (reports/document/ranks.h). A text larger than its
 * shape allows (above) is GCB_EINPUT ("name: too large ..."). On failure
 * *out is NULL; on success the caller frees it.
 */
enum gcb_status gcb_results_parse(const char *text, size_t len,
                                  const char *name, struct gcb_results **out,
                                  struct gcb_err *err);

/* ---- the run's header (tool, run, software, nodes, ranks) -------------- */

/* What one rank tells rank 0 about itself; plain bytes on the wire (the
 * run engine gathers them with MPI). */
struct gcb_identity {
  int rank, node, local_rank, pid, bound_pus, cpu_threads;
  char hostname[256];
  char cpu_binding[256];
  struct {
    char name[128];
    char bus_id[32]; /* "" on host */
    int index;       /* -1 on host */
    uint64_t memory_bytes;
    int threads;
  } device;
  struct gcb_topo_summary machine;
  /* This rank's BLAS as it said at run time (ranks[].blas); core "" when
   * the backend runs no OpenBLAS. */
  struct {
    char core[32];
    int threads;
    char cpu_isa[16];
  } blas;
};

/* The BLAS library as it said at run time (software.blas_run, written when
 * the backend runs OpenBLAS; docs/results-schema.md): rank 0's. */
struct gcb_blas_info {
  char library[16];  /* "OpenBLAS" */
  char core[32];     /* openblas_get_corename(): the kernels that run */
  int threads;       /* openblas_get_num_threads() */
  char parallel[16]; /* "sequential", "pthreads", "openmp" */
  char cpu_isa[16];  /* widest vector ISA of the CPU: "avx512", "avx2",
                        "avx", "sse3", "sse2"; "" when not known */
};

/* The start-up MPI probe (run.mpi_probe; docs/results-schema.md): 8-byte
 * ping-pongs between rank 0 and a peer, so that a launch's MPI mode
 * (the same small-message latency 2x apart between launches) is told. */
#define GCB_PROBE_PAIRS 2
struct gcb_mpi_probe {
  int bytes, round_trips, batches; /* timed round trips, in batches */
  int npairs;
  struct {
    int peer;                 /* rank 0's partner */
    bool same_node;           /* the pair shares a node */
    int batches;              /* whole batches timed within the budget */
    double median_us, min_us; /* one-way latency: each batch's time over
                                 2 x its round trips, median and min */
  } pair[GCB_PROBE_PAIRS];
};

/* The run as the command line and the context know it. */
struct gcb_run_info {
  const char *command; /* "coll", "suite", ... */
  int argc;
  char **argv; /* need not be UTF-8: bad bytes become U+FFFD */
  const char *run_id;
  const char *backend, *backend_reason;
  int ranks, nodes;
  const char *mpi, *hwloc;          /* library versions */
  const char *backend_versions;     /* written under the backend's name */
  const struct gcb_blas_info *blas; /* software.blas_run; NULL: not recorded */
  const char *mpi_device; /* software.mpi_device ("ch4:ucx"); NULL, "": none */
  /* run.environment: "NAME=VALUE" entries, NULL-terminated (NULL: none
   * recorded), already filtered of secrets by the caller. */
  const char *const *environment;
  const struct gcb_mpi_probe *mpi_probe; /* run.mpi_probe; NULL: none */
};

/*
 * One node's snapshot, as compact JSON text to gather to rank 0: its
 * topology summary (section_topology.c), with "gpu_health" (ngpus health
 * records, when gpus is not NULL) and "placement" (the binding problems,
 * when nproblems >= 0). NULL on ENOMEM; the caller frees it.
 */
char *gcb_results_node_snapshot(const struct gcb_topo *t,
                                const struct gcb_health *gpus, int ngpus,
                                const struct gcb_topo_problem *problems,
                                int nproblems);

/*
 * Sets "tool", "run" (status "running", started now), "software", "nodes"
 * (one per node, from its first rank in ids, with the topology and GPUs of
 * snapshots[node] when there is one) and "ranks" (ids[0..run->ranks)).
 * snapshots are the texts of gcb_results_node_snapshot, one per node in
 * node order (NULL or unparsable: the node goes without). Errors as
 * gcb_results_set.
 */
enum gcb_status gcb_results_set_header(struct gcb_results *r,
                                       const struct gcb_run_info *run,
                                       const struct gcb_identity *ids,
                                       const char *const *snapshots,
                                       size_t nsnapshots, struct gcb_err *err);

/* Sets run.status and run.end_time (now). GCB_EINTERNAL without a run
 * section. */
enum gcb_status gcb_results_finish_run(struct gcb_results *r,
                                       const char *status, struct gcb_err *err);

/* The topology summary of t as a new JSON object (docs/TOPOLOGY.md), as
 * in nodes[].topology; NULL on ENOMEM. */
json_t *gcb_results_topology_json(const struct gcb_topo *t);

/* Binding problems as a new JSON array of {kind, rank, other_rank, gpu,
 * what, fix}, -1 written as null; NULL on ENOMEM. */
json_t *gcb_results_placement_json(const struct gcb_topo_problem *problems,
                                   int n);

/* n health records as a new JSON array (nodes[].gpus); unreadable values
 * are null. NULL on ENOMEM. */
json_t *gcb_results_gpus_json(const struct gcb_health *gpus, int n);

#endif
