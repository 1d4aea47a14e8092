/*
 * Sinks: where rank 0 sends each finished case. The live table and the
 * results document are sinks; so is anything added later (CSV, metrics).
 * A sink never sees MPI: it gets plain records.
 */
#ifndef GCB_SINK_H
#define GCB_SINK_H

#include <stdbool.h>
#include <stdio.h>

#include "common/status.h"
#include "reports/reports.h"

/* Room for one line of nccl-tests' device list (host names run long). */
#define GCB_DEVICE_LINE 512

struct gcb_sink {
  const char *name;
  void *self;
  enum gcb_status (*record)(void *self, const struct gcb_record *rec,
                            struct gcb_err *err);
  enum gcb_status (*skip)(void *self, const struct gcb_record *rec,
                          const char *reason, struct gcb_err *err);
  enum gcb_status (*error)(void *self, const struct gcb_record *rec, int rank,
                           enum gcb_status code, const char *message,
                           struct gcb_err *err);
  /* Optional: the run is over (flush footers). */
  enum gcb_status (*finish)(void *self, struct gcb_err *err);
};

/* Running totals of one collective's sweep, for its footer lines. */
struct gcb_coll_totals {
  int rows;
  double busbw_sum;
  uint64_t wrong;
  int late_rank; /* -1: no arrival skew measured */
  double late_mean, late_max;
  char program[48]; /* nccl-tests' program name of the group (a copy: the
                     * record it came from is gone by the footer) */
};

/* The best case of one shape sweep (gemm --shapes, whose cases carry a
 * `shapes` param), for the footer: mamf-finder's best outcomes, the
 * highest median and the highest max (fastest iteration) over the shapes,
 * each the median over ranks. */
struct gcb_sweep_best {
  char what[48]; /* "bf16" (the case's dtype and accumulation) */
  int shapes, seen;
  double median, max;
  char at_median[48], at_max[48]; /* "8192x8192x4096" */
};
#define GCB_TABLE_SWEEPS 8

/* The pattern benchmark's rows in the live table (table.c): the
 * parts of the variant under way, and the part rows printed after the
 * summary. */
#define GCB_TABLE_PATTERN_PARTS 64
struct gcb_pattern_live {
  char key[96];    /* the variant's title ("tp inner"); "" none held */
  char layout[32]; /* "tp2 pp1 dp1 ep2" */
  char span[16];
  double group; /* ranks in each group (params.group); NAN unknown, 0
                   before the first part */
  double skew;  /* ep's routing skew (params.skew); NAN elsewhere */
  struct gcb_pattern_rank *ranks; /* nranks, owned */
  int nranks;
  bool header;
  char parts[GCB_TABLE_PATTERN_PARTS][160];
  int nparts, dropped;
};

/* Live table state: one header per group (a benchmark, or one collective
 * of coll), one aligned row per case. */
struct gcb_table {
  FILE *out;
  /* gcbench's own lines in another tool's layout (the run, the MPI
   * library, the latest arrival): stderr under that tool's program name,
   * so that `out` carries the tool's lines alone; NULL: out */
  FILE *own;
  bool tty;           /* stdout is a terminal */
  bool progress;      /* stderr is a terminal: progress line allowed */
  double bench_start; /* when the current benchmark's first case began */
  char group[64];     /* group whose header was printed last */
  const char (*rank_names)[96]; /* "host, device" by rank; may be NULL */
  int nranks;
  /* nccl-tests' "#  Rank  0 Group  0 Pid ..." line by rank; may be NULL */
  const char (*device_lines)[GCB_DEVICE_LINE];
  /* the BLAS gemm ran on ("OpenBLAS Haswell kernels, 2 threads
   * (pthreads)"), for its header line; "" when not known */
  char blas[96];
  /* the MPI library the collectives ran on, as the document records it
   * (gcb_view_mpi_line: "MPICH 4.0.2 ch4:ucx; UCX_TLS=sm"), for their
   * header, whole however many transport settings it names; NULL or ""
   * when not known (the harness owns it) */
  char *mpi;
  /* the start-up MPI probe's reading (gcb_view_mpi_probe_line), beside it */
  char mpi_probe[160];
  /* collective layout: the out-of-place half waiting for its in-place one */
  bool pending;
  bool devices_shown; /* the device list is printed once per run */
  char pending_key[96];
  char pending_row[256];
  char pending_extra[64]; /* --layout gcbench: min and max, trailing */
  struct gcb_coll_totals coll;
  struct gcb_sweep_best sweep[GCB_TABLE_SWEEPS];
  int nsweeps;
  char sweep_unit[16]; /* the last rate row's unit: the sweep's ("GFLOP/s") */
  char osu_op[32]; /* OSU's layout: the collective whose title was printed */
  struct gcb_pattern_live pattern;
  /* identical skip reasons in a row are counted, not repeated */
  char last_skip[GCB_ERRMSG_MAX];
  int skip_repeats;
};

/* The live table as a sink over `t` (borrowed). */
struct gcb_sink gcb_table_sink(struct gcb_table *t);

/* The progress line on stderr (a terminal only): benchmark, case, elapsed
 * and estimated remaining time; erased by the next row. */
void gcb_table_progress(struct gcb_table *t, const struct gcb_record *rec,
                        int index, int count);
/* The progress line of a long case (burn): done_s of total_s seconds and
 * the time left; same terminal rule as gcb_table_progress. */
void gcb_table_progress_time(struct gcb_table *t, const struct gcb_record *rec,
                             double done_s, double total_s);

/* Results document state: the document and where it is rewritten. */
struct gcb_document {
  struct gcb_results *results;
  const char *path;
  double write_s;    /* how long the last rewrite took */
  double written_at; /* when it ended (CLOCK_MONOTONIC seconds) */
  /* Room held for the run's last write (an unnamed file beside the
   * document, see gcb_document_write): its descriptor + 1, so that a
   * zeroed struct holds none; the bytes it holds; whether the filesystem
   * can hold any. */
  int reserve;
  long long reserved;
  bool no_reserve;
};

/*
 * Writes the document now (the first write, and each rewrite of the sink),
 * then grows the room held for the last write to the document's size and
 * a quarter more, plus GCB_DOC_RESERVE_MIN: an unnamed file in the
 * document's directory (O_TMPFILE, allocated with fallocate), which also
 * holds a descriptor. A disk too full for that room is an error now
 * (GCB_EIO, "no room left ... the run stops while its end can still be
 * written"), while the last write can still say how the run ended. Where
 * the filesystem has no unnamed files or fallocate, no room is held.
 */
#define GCB_DOC_RESERVE_MIN (64 << 10)
enum gcb_status gcb_document_write(struct gcb_document *d, struct gcb_err *err);

/*
 * The run's first write (its header, no case yet), as gcb_document_write.
 * When it fails nothing half-written stays: a document that cannot be
 * written leaves nothing of it (the caller removes the empty file that
 * claimed the path), and one written with no room to hold beside it (a
 * disk nearly full) is removed, so that the run's last write says in its
 * bytes how the run ended, or nothing is there. Returns the failure
 * (GCB_EIO), err saying it.
 */
enum gcb_status gcb_document_write_first(struct gcb_document *d,
                                         struct gcb_err *err);

/* The run's last write (its end, whoever ends it): the room is given up
 * first, so that its bytes and its descriptor are this write's. */
enum gcb_status gcb_document_write_last(struct gcb_document *d,
                                        struct gcb_err *err);

/* The results document as a sink: appends, then rewrites atomically, after
 * every case while a rewrite is quick (under GCB_DOC_QUICK_S); once the
 * document is large enough to take longer (thousands of ranks), at most
 * as often as keeps the rewrites to a tenth of the run. Whoever ends the
 * run (the harness, the watchdog on a timeout, a signal or a dead rank)
 * writes the whole document, so a deferred case is lost only if rank 0
 * itself is killed. */
#define GCB_DOC_QUICK_S 0.05
#define GCB_DOC_SPACING 10.0
struct gcb_sink gcb_document_sink(struct gcb_document *d);

/* nccl-tests' -J document (nccl_json.c): rank 0's state. */
struct gcb_nccl_json {
  FILE *out; /* nccl-tests' "# Writing JSON output to" line */
  int argc;  /* the command line, as nccl-tests' "args" */
  char **argv;
  const char (*device_lines)[GCB_DEVICE_LINE]; /* "config"'s "devices" */
  int nranks;
  char *path; /* the file claimed; NULL until a record asks */
  bool off;   /* it could not be claimed: no JSON, as nccl-tests */
  struct json_t *doc, *row, *errors;
  char key[128]; /* the row waiting for its in-place half */
  int row_iterations;
  int halves;
  double busbw_sum;
  uint64_t wrong;
};

/* The -J document as a sink over `j` (borrowed); gcb_nccl_json_free
 * releases what it holds. */
struct gcb_sink gcb_nccl_json_sink(struct gcb_nccl_json *j);
void gcb_nccl_json_free(struct gcb_nccl_json *j);

/* The run ends early (a timeout, a dead rank, a signal): the -J document,
 * where there is one, gets `message` in its errors, its end time and the
 * row in progress, as a finished run's does; nothing when none was
 * begun. */
void gcb_nccl_json_abort(struct gcb_nccl_json *j, const char *message);

/* Formats seconds with an adaptive unit ("12.3 µs", "1.25 s"). */
void gcb_format_seconds(double s, char *buf, size_t len);

#endif
