/*
 * What the report makes of the burn-in timeline of a `gcbench burn` case
 * (docs/results-schema.md, case field "timeline"): each rank's sustained
 * figure, its peak, and the onset, size and cause of a fall that stays
 * down. The timeline is read by the document's own reader
 * (gcb_results_burn_timeline, reports/document/results.h: one reader of
 * the format) when the typed model is built (the case's `timeline`,
 * model.h), and judged once per case into struct gcb_burn_doc, which the
 * finding rules (rules_burn.c), the per-rank table (render_tables.c)
 * and the timeline plot (plot_burn.c) all share through struct gcb_doc's
 * `burn`.
 */
#ifndef GCB_BURN_H
#define GCB_BURN_H

#include <stdbool.h>
#include <stddef.h>

#include "common/status.h"
#include "reports/analysis/analyze.h"
#include "reports/document/record.h"
#include "reports/document/view.h"

/* NVML clock-event reason bits the report names (nvml.h's
 * nvmlClocksEventReason*). */
#define GCB_BURN_SW_POWER_CAP 0x4ull
#define GCB_BURN_HW_SLOWDOWN 0x8ull
#define GCB_BURN_SW_THERMAL 0x20ull
#define GCB_BURN_HW_THERMAL 0x40ull
#define GCB_BURN_HW_POWER_BRAKE 0x80ull

/* The error counters a burn reads (cumulative series), worst first:
 * what a sentence calls each, what a table cell calls it, and how bad its
 * growth is. */
#define GCB_BURN_NCOUNTERS 4
struct gcb_burn_counter {
  enum gcb_burn_series s;
  const char *what;       /* "uncorrected (double-bit) ECC errors" */
  const char *short_name; /* "DBE" */
  enum gcb_severity sev;
};
extern const struct gcb_burn_counter gcb_burn_counters[GCB_BURN_NCOUNTERS];

/* The median of series s of rank r over intervals [from, to), its gaps
 * left out (tmp: room for to - from values); NAN when it has none. */
double gcb_burn_median(const struct gcb_burn_timeline *tl,
                       enum gcb_burn_series s, size_t r, size_t from, size_t to,
                       double *tmp);

/* Why a rank's throughput fell, from its own telemetry over the same
 * intervals. */
enum gcb_burn_cause {
  GCB_BURN_CAUSE_NONE,      /* no fall */
  GCB_BURN_CAUSE_CPU_TIME,  /* cpu_util fell: another process, a limit */
  GCB_BURN_CAUSE_THERMAL,   /* temperature rose with a thermal reason */
  GCB_BURN_CAUSE_POWER,     /* a power reason: capped or braked */
  GCB_BURN_CAUSE_FREQUENCY, /* clocks fell with no reason given */
  GCB_BURN_CAUSE_UNKNOWN,   /* the telemetry shows none of these */
};

/* "CPU time", "thermal", "power", "frequency", "unknown", "". */
const char *gcb_burn_cause_name(enum gcb_burn_cause c);

/* One rank's series, judged on its own (gcb_burn_rank_judge). */
struct gcb_burn_rank {
  long long rank;    /* its MPI rank and its node's index in the model */
  long long node;    /* (gcb_burn_doc_read_model; else -1, -1) */
  size_t n;          /* intervals with a figure */
  double sustained;  /* median interval figure */
  double peak;       /* best interval */
  double held;       /* 95th percentile of the running median (window 5):
                        the peak it held, which a burst of an interval or
                        two cannot set */
  double since_held; /* median interval from the first one whose running
                        median reached the held peak (within 5 % or twice
                        the noise): what it kept once it had got there */
  double worst;
  double noise; /* per-interval noise, relative: 1.4826 MAD of the
                   residuals from the median-filtered series / level */
  /* The fall, when one is found (onset >= 0): */
  long onset;           /* index of the first interval of the fall; -1 */
  double onset_s;       /* when it began: start of that interval */
  double before, after; /* median figure before the onset and after */
  double drop;          /* 1 - after / before */
  enum gcb_burn_cause cause;
  double cpu_util_after; /* median over the fall; NAN when not measured */
  double mhz_before, mhz_after; /* the clock that fell (SM or CPU); NAN */
  bool gpu_clock;               /* mhz_* are the SM clock, not the CPU's */
  double temp_after, power_before, power_after; /* medians; NAN */
  unsigned long long reasons; /* throttle reasons seen during the fall */
  /* Each counter of gcb_burn_counters: how much it grew over the burn
   * (last reading minus first; readings of -1, not reported, skipped; 0
   * without any), and the start of the interval it first grew in (NAN). */
  double grew[GCB_BURN_NCOUNTERS], grew_s[GCB_BURN_NCOUNTERS];
  /* Products that differed from the first, summed over the intervals;
   * products compared; intervals with a wrong one, the first's start. */
  double wrong, checked, wrong_s;
  size_t wrong_intervals;
  bool slow;   /* its sustained figure is below its peers' (slow-rank rule;
                  gcb_burn_doc_read_model, else false) */
  bool unheld; /* no fall, 8 intervals or more, and since_held well below
                  held (burn-sustained): it does not hold its peak */
};

/*
 * Judges rank r of the timeline: sustained, peak and noise always; a fall
 * when its median-filtered throughput (window 5, so one dip or spike
 * changes nothing) steps down at one change point, by more than
 * min_drop (a fraction) and more than k_noise times the per-interval
 * noise, with at least 5 intervals on each side, and stays down: at least
 * four fifths of the filtered intervals after it, and the last three, are
 * below the midpoint of the two levels, and four fifths of the raw
 * intervals from its onset on. The cause is read from the same
 * rank's telemetry before and after the onset. Unheld when, without a
 * fall, since_held is below held by 15 % or k_noise times the noise,
 * whichever is more. False when memory ran out (then *out holds no
 * fall).
 */
bool gcb_burn_rank_judge(const struct gcb_burn_timeline *tl, size_t r,
                         double min_drop, double k_noise,
                         struct gcb_burn_rank *out);

/* "4 min 10 s", "10 s", "1 h 2 min", "2.5 s" for a duration in seconds. */
void gcb_burn_fmt_duration(double s, char *buf, size_t size);

/* The names of the reason bits set in mask, comma-separated
 * ("hw_thermal, sw_power_cap"); "" for none. */
void gcb_burn_fmt_reasons(unsigned long long mask, char *buf, size_t size);

/* True for a case of `gcbench burn`. */
bool gcb_burn_is_model_case(const struct gcb_model_case *c);

/* A burn case of a document, read once and judged once. */
struct gcb_burn_case {
  const struct gcb_model_case *bench_case; /* the case, in the model read */
  size_t index;                /* its index in the document's cases[] */
  struct gcb_burn_timeline tl; /* its timeline: the model's (borrowed) */
  struct gcb_burn_rank *ranks; /* tl.nranks judgements, per_rank order */
  double peers;                /* the median of their sustained figures */
};

/* The burn cases of one document that have a timeline to judge (some
 * intervals, some rank, a throughput series), in document order, and the
 * thresholds their ranks were judged by. */
struct gcb_burn_doc {
  struct gcb_burn_case *cases;
  size_t n;
  double min_drop, k_noise; /* slow_rank_pct / 100, outlier_mads */
  double min_ranks;         /* outlier_min_ranks */
};

/*
 * Reads every burn case of the model m (the timelines its builder read,
 * model.h) and judges each rank with t's slow_rank_pct (the least fall)
 * and outlier_mads (the least fall in noise units), and its sustained
 * figure against its peers' by the slow-rank rule. A burn case without a
 * timeline is left out. The cases borrow from m, which must outlive *out.
 * GCB_ENOMEM (err set). Free with gcb_burn_doc_free, also after failure.
 */
enum gcb_status gcb_burn_doc_read_model(const struct gcb_model *m,
                                        const struct gcb_thresholds *t,
                                        struct gcb_burn_doc *out,
                                        struct gcb_err *err);

/* NULL is a no-op; the struct is zeroed. */
void gcb_burn_doc_free(struct gcb_burn_doc *b);

/*
 * The burn cases of doc: doc->burn when the caller read them with the
 * same thresholds (a report reads them once for its rules, tables and
 * plots), else read now from doc->model into *own, which the caller frees
 * with gcb_burn_doc_free either way. NULL on ENOMEM (err set).
 */
const struct gcb_burn_doc *gcb_burn_doc_of(const struct gcb_doc *doc,
                                           const struct gcb_thresholds *t,
                                           struct gcb_burn_doc *own,
                                           struct gcb_err *err);

#endif
