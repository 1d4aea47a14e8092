/*
 * The result record of one benchmark case: what the harness produces after
 * gathering every rank's statistics, and what every sink consumes (the live
 * table, the results document). Benchmarks never print; they fill the
 * descriptive half of a record and the harness fills the measured half.
 */
#ifndef GCB_RECORD_H
#define GCB_RECORD_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/telemetry.h"
#include "reports/document/stats.h"

#define GCB_MAX_PARAMS 16 /* coll: 9 per case, -N, -a, --layout, --window */

/* SIZE is an integer count of bytes, shown with a suffix ("64M"). */
enum gcb_param_type {
  GCB_PARAM_INT,
  GCB_PARAM_SIZE,
  GCB_PARAM_DOUBLE,
  GCB_PARAM_STRING
};

/* The longest text parameter kept, with its NUL: a node name as long as
 * the run context holds one (bench/run/context.h), which is longer than
 * a hostname (HOST_NAME_MAX, 64) and than any other text a benchmark
 * gives. */
#define GCB_PARAM_TEXT_MAX 256

/* One case parameter (dtype=fp32, m=2048, kernel=triad). */
struct gcb_param {
  const char *key; /* static string */
  enum gcb_param_type type;
  int64_t i;
  double d;
  char s[GCB_PARAM_TEXT_MAX];
};

/* Per-rank validation, as reported by the backend's check(). */
struct gcb_validation {
  bool checked;
  uint64_t samples;
  uint64_t wrong;
  double max_error;
  double tolerance;
  const char *method; /* static string, or NULL */
};

struct gcb_rank_result {
  int rank;
  /* The time the figure comes from: the median sample, or the mean of an
   * aggregated loop (collectives, as nccl-tests reports them). */
  double time_s;
  struct gcb_stats seconds; /* time of one operation, over samples */
  struct gcb_stats late;    /* arrival lateness; n == 0: not measured */
  struct gcb_validation check;
  struct gcb_telemetry telemetry; /* the GPU during the case; !available:
                                     none (host backend, no NVML) */
};

/* How a case's figure is derived: work per operation over time. */
struct gcb_figure_spec {
  const char *unit;    /* "GFLOP/s", "GB/s" */
  double scale;        /* work units per figure unit (1e9) */
  const char *counted; /* what was counted, in words */
  double bus_factor;   /* collectives: busbw = algbw * factor; 0: none */
};

/* How the live table lays a record out: a rate row, or nccl-tests' row
 * (out-of-place and in-place halves side by side). */
enum gcb_layout { GCB_LAYOUT_RATE, GCB_LAYOUT_COLLECTIVE };

/* The sweep as nccl-tests states it once per run (its "# nThread ..." line
 * and the "config" of its -J document): coll fills one in its run-wide
 * state and points each record at it; NULL for other benchmarks. */
struct gcb_sweep_shape {
  uint64_t minbytes, maxbytes;
  uint64_t stepbytes; /* 0: the sizes multiply by stepfactor */
  double stepfactor;
  long warmup, iters, agg, check, blocking;
  long per_iter;      /* -I: 1 per-iteration columns and JSON */
  long per_iter_skip; /* -K: leading iterations the summary leaves out */
  int tail[5];        /* OSU -z: the percentiles (1..100) of its tail columns */
  int ntail;          /* 0: none */
  int nccl_headers, nccl_library; /* NCCL's version codes; 0: not NCCL */
  const char *program;            /* nccl-tests' program name run as, or NULL */
  const char *json_path;          /* -J: nccl-tests' JSON document, or NULL */
};

/* One case's per-iteration times (nccl-tests -I 1), each rank's row of n
 * seconds, gathered on rank 0 by the benchmark; n == 0: none. */
struct gcb_iter_times {
  int nranks;
  long n;
  double *s; /* nranks * n: rank r's iteration i at s[r * n + i] */
};

/*
 * The burn-in timeline (burn only; docs/results-schema.md, "timeline"):
 * one row a rank of one value an interval for each series below, NAN where
 * a value was not measured (written as null). The series, in the order the
 * document writes them, with their kind: RATE a number, COUNT an integer
 * of the interval (products compared, wrong), INT an integer reading (a
 * mask, a cumulative counter). Gathered on rank 0 by the benchmark.
 */
#define GCB_BURN_SERIES_LIST(X)                                                \
  X(FIGURE, "figure", RATE)                                                    \
  X(CHECKED, "checked", COUNT)                                                 \
  X(WRONG, "wrong", COUNT)                                                     \
  X(CPU_UTIL, "cpu_util", RATE)                                                \
  X(CPU_MHZ, "cpu_mhz", RATE)                                                  \
  X(TEMP_C, "temp_c", RATE)                                                    \
  X(POWER_W, "power_w", RATE)                                                  \
  X(SM_CLOCK_MHZ, "sm_clock_mhz", RATE)                                        \
  X(MEM_CLOCK_MHZ, "mem_clock_mhz", RATE)                                      \
  X(THROTTLE_REASONS, "throttle_reasons", INT)                                 \
  X(ECC_SBE, "ecc_sbe", INT)                                                   \
  X(ECC_DBE, "ecc_dbe", INT)                                                   \
  X(PCIE_REPLAY, "pcie_replay", INT)                                           \
  X(XID, "xid", INT)

enum gcb_burn_series {
#define GCB__BURN_ENUM(id, name, kind) GCB_BURN_##id,
  GCB_BURN_SERIES_LIST(GCB__BURN_ENUM)
#undef GCB__BURN_ENUM
      GCB_BURN_SERIES_COUNT
};

enum gcb_burn_kind { GCB_BURN_RATE, GCB_BURN_COUNT, GCB_BURN_INT };

/* A series's name in the document and its kind; NULL name outside the
 * list. */
const char *gcb_burn_series_name(int series);
enum gcb_burn_kind gcb_burn_series_kind(int series);

/* The most intervals a timeline holds (written or read): a week of
 * one-second intervals; and the most points (ranks x intervals) a series
 * holds, so that a reader's arrays stay bounded (128 MiB a series of
 * doubles: 2,048 ranks for 2 h, 8 ranks for the week). A reader refuses
 * more before it looks further. */
#define GCB_BURN_MAX_INTERVALS 604800L
#define GCB_BURN_MAX_POINTS (16L << 20)

struct gcb_burn_timeline {
  double interval_s;
  int nranks;
  long n; /* intervals; t_s[i] = (i + 1) * interval_s */
  /* Series s: rank r's interval i at v[s][r * n + i], NAN where not
   * measured; NULL: the series was measured on no rank. */
  double *v[GCB_BURN_SERIES_COUNT];
  /* Why a series would be absent when no rank measured it (one line);
   * "": the writer says "measured on no rank". */
  char unavailable[GCB_BURN_SERIES_COUNT][160];
};

/* Series s, rank r, interval i: NAN for a series that is NULL. */
static inline double gcb_burn_value(const struct gcb_burn_timeline *t, int s,
                                    int r, long i) {
  return t->v[s] != NULL ? t->v[s][(size_t)r * (size_t)t->n + (size_t)i] : NAN;
}

/* When interval i ended, in seconds since the start barrier: the
 * document's t_s[i], which the writer writes and the reader does not
 * keep. */
static inline double gcb_burn_end_s(const struct gcb_burn_timeline *t, long i) {
  return (double)(i + 1) * t->interval_s;
}

/* Frees every series and NULLs them; NULL t is a no-op. */
void gcb_burn_timeline_free(struct gcb_burn_timeline *t);

struct gcb_record {
  const char *bench; /* descriptor name, static */
  enum gcb_layout layout;
  const char *backend; /* backend name, static */
  char label[96];      /* human label of the case */
  struct gcb_param params[GCB_MAX_PARAMS];
  int nparams;
  double work_per_op; /* flops or bytes one operation performs */
  struct gcb_figure_spec figure;
  int iterations; /* timed samples per rank */
  int warmup;
  int nranks;
  struct gcb_rank_result *ranks;       /* nranks entries, by rank; not owned */
  const struct gcb_sweep_shape *shape; /* coll only, else NULL; not owned */
  const struct gcb_iter_times *iter;   /* coll -I 1 only, else NULL */
  /* A collective's case skipped because its count rounds to no element
   * on these ranks (nccl-tests' (count/nranks) & -(16/eltSize) is 0):
   * nccl-tests still prints it, as a row of size 0 and count 0, and so
   * does gcbench's nccl-tests layout (bench/run/table.c). */
  bool empty;
  const struct gcb_burn_timeline *timeline; /* burn only, else NULL */
};

/* Cross-rank summary of the per-rank figures (rate at each rank's time). */
struct gcb_record_summary {
  struct gcb_stats figure;    /* over ranks */
  struct gcb_stats time;      /* over ranks of time_s */
  int min_rank, max_rank;     /* rank holding the lowest / highest figure */
  double imbalance;           /* (max - mean) / max of per-rank times */
  double algbw;               /* work / mean time, in the figure's unit */
  double busbw;               /* algbw * bus_factor; 0 without a factor */
  int late_rank;              /* rank with the largest mean lateness; -1 */
  double late_mean, late_max; /* that rank's lateness, seconds */
  uint64_t wrong;             /* sum over ranks */
  bool checked;               /* every rank validated */
};

/* The figure (e.g. GFLOP/s) for an operation that took `seconds`; 0 if
 * seconds <= 0. */
double gcb_record_figure(const struct gcb_record *rec, double seconds);

/* Fills the cross-rank summary. */
void gcb_record_summarize(const struct gcb_record *rec,
                          struct gcb_record_summary *out);

/* The parameter named key, or NULL. */
const struct gcb_param *gcb_record_param(const struct gcb_record *rec,
                                         const char *key);
/* The text parameter named key, or "" when there is none or it is a
 * number; the number named key, or def when there is none or it is text. */
const char *gcb_record_text(const struct gcb_record *rec, const char *key);
int64_t gcb_record_int(const struct gcb_record *rec, const char *key,
                       int64_t def);

/* Adds a parameter; silently ignores more than GCB_MAX_PARAMS (a
 * programming error caught by the registry tests). Text longer than
 * GCB_PARAM_TEXT_MAX - 1 bytes is kept cut, ending in "..." so that the
 * cut shows. */
void gcb_record_param_int(struct gcb_record *rec, const char *key, int64_t v);
void gcb_record_param_size(struct gcb_record *rec, const char *key, int64_t v);
void gcb_record_param_double(struct gcb_record *rec, const char *key, double v);
void gcb_record_param_str(struct gcb_record *rec, const char *key,
                          const char *v);

#endif
