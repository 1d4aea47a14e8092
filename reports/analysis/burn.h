/*
 * The burn-in timeline of a `gcbench burn` case (docs/results-schema.md,
 * case field "timeline"), as the report reads it (a "burn view": the
 * document's own typed timeline, struct gcb_burn_timeline of
 * reports/document/record.h, belongs to its writer), and
 * what the report makes of each rank's series: the sustained figure, the
 * peak, and the onset, size and cause of a fall that stays down. The
 * finding rules (rules_burn.c), the per-rank table
 * (render_tables_burn.c) and the timeline plot (plot_burn.c) all read
 * the timeline through this face, never the JSON tree.
 */
#ifndef GCB_BURN_H
#define GCB_BURN_H

#include <stdbool.h>
#include <stddef.h>

#include "common/status.h"
#include "reports/document/view.h"

/* The series of the timeline, in the order of gcb_burnview_series_names. */
enum gcb_burnview_series {
  GCB_BV_FIGURE,   /* the case unit: throughput in the interval */
  GCB_BV_CHECKED,  /* products compared in the interval */
  GCB_BV_WRONG,    /* products wrong in the interval */
  GCB_BV_CPU_UTIL, /* CPU time got / wall time / threads asked for */
  GCB_BV_CPU_MHZ,
  GCB_BV_TEMP,
  GCB_BV_POWER,
  GCB_BV_SM_CLOCK,
  GCB_BV_MEM_CLOCK,
  GCB_BV_THROTTLE, /* NVML clock-event reasons (a mask, exact in a double) */
  GCB_BV_ECC_SBE,  /* cumulative counters from here on */
  GCB_BV_ECC_DBE,
  GCB_BV_PCIE_REPLAY,
  GCB_BV_XID,
  GCB_BV_COUNT
};

/* The JSON key of each series ("figure", "cpu_util", ...). */
extern const char *const gcb_burnview_series_names[GCB_BV_COUNT];

/* NVML clock-event reason bits the report names (nvml.h's
 * nvmlClocksEventReason*). */
#define GCB_BURN_SW_POWER_CAP 0x4ull
#define GCB_BURN_HW_SLOWDOWN 0x8ull
#define GCB_BURN_SW_THERMAL 0x20ull
#define GCB_BURN_HW_THERMAL 0x40ull
#define GCB_BURN_HW_POWER_BRAKE 0x80ull

/* A case's timeline: nt intervals of nranks ranks (per_rank order).
 * v[s] is NULL for a series the document does not carry, else nranks * nt
 * values, rank r's interval i at v[s][r * nt + i]; NAN where the document
 * has null (not measured, or the burn had stopped). */
struct gcb_burnview {
  double interval_s;
  size_t nt, nranks;
  double *t_s; /* end of each interval, seconds since the start barrier */
  double *v[GCB_BV_COUNT];
};

/*
 * Reads case c's "timeline" into *out (zeroed first). A case without one,
 * or with one this reader cannot make sense of (no t_s, no figure
 * series), gives nt == 0 and GCB_OK: the burn rules then find nothing.
 * Values that are not numbers read as NAN; a rank's array shorter than
 * t_s is NAN past its end. GCB_ENOMEM (err set). Free with
 * gcb_burnview_free, also after failure.
 */
enum gcb_status gcb_burnview_read(const json_t *c, struct gcb_burnview *out,
                                  struct gcb_err *err);

/* NULL is a no-op; the struct is zeroed. */
void gcb_burnview_free(struct gcb_burnview *tl);

/* Rank r's value of series s at interval i; NAN when absent. */
double gcb_burnview_at(const struct gcb_burnview *tl,
                       enum gcb_burnview_series s, size_t r, size_t i);

/* How much cumulative series s (a counter) of rank r grew over the burn
 * (last reading minus first; readings of -1, not reported, skipped; 0
 * without any), and when it first grew: the start of that interval into
 * *when, NAN when it did not. */
double gcb_burn_growth(const struct gcb_burnview *tl,
                       enum gcb_burnview_series s, size_t r, double *when);

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
  size_t n;         /* intervals with a figure */
  double sustained; /* median interval figure */
  double peak;      /* best interval */
  double p95;       /* 95th percentile: the peak that one spike cannot set */
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
 * rank's telemetry before and after the onset. False when memory ran
 * out (then *out holds no fall).
 */
bool gcb_burn_rank_judge(const struct gcb_burnview *tl, size_t r,
                         double min_drop, double k_noise,
                         struct gcb_burn_rank *out);

/* "4 min 10 s", "10 s", "1 h 2 min", "2.5 s" for a duration in seconds. */
void gcb_burn_fmt_duration(double s, char *buf, size_t size);

/* The names of the reason bits set in mask, comma-separated
 * ("hw_thermal, sw_power_cap"); "" for none. */
void gcb_burn_fmt_reasons(unsigned long long mask, char *buf, size_t size);

/* True for a case of `gcbench burn`. */
bool gcb_burn_is_case(const json_t *c);

#endif
