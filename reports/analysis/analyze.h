/*
 * Analysis: findings over one or more results documents. A finding says
 * where the cluster loses time or fails (a slow rank, load imbalance, bad
 * placement, wrong results, a failed run), how bad it is (measured against
 * expected), and what to do about it.
 *
 * Each kind of finding is one row of gcb_kinds[] (kinds.h); its rule
 * looks for its data in the documents and simply finds nothing when the
 * data is absent, so documents from older or newer writers analyse alike.
 * Criteria checks (criteria.h) and baseline regressions (compare.h) add
 * their own findings to the same list.
 */
#ifndef GCB_ANALYZE_H
#define GCB_ANALYZE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/status.h"
#include "reports/analysis/kinds.h"
#include "reports/document/model.h"
#include "reports/document/results.h"
#include "reports/document/view.h"

enum gcb_severity { GCB_SEV_INFO, GCB_SEV_WARN, GCB_SEV_FAIL };

/* "info", "warn", "fail". */
const char *gcb_severity_name(enum gcb_severity s);

/* A link's name: one between two hosts ("A -> B", "A <-> B") names both
 * whole, since a network path is told from another by them. */
#define GCB_LINK_SIZE (2 * GCB_HOSTNAME_SIZE + 8)

/* Where a finding is. Parts that do not apply are -1 or "". */
struct gcb_location {
  int doc;        /* index of the document among those analysed */
  long long node; /* node index */
  char hostname[GCB_HOSTNAME_SIZE];
  long long rank;           /* MPI rank */
  char ranks[96];           /* several ranks, as ranges ("0-3,7"), or "" */
  long long gpu;            /* device index */
  char bus_id[32];          /* PCI bus id of the GPU */
  char link[GCB_LINK_SIZE]; /* "0000:1b:00.0<->0000:2c:00.0", "A -> B" */
  char subject[160];        /* the case ("gemm: fp32 256x256x256") or check */
};

struct gcb_finding {
  enum gcb_severity severity;
  const struct gcb_kind *kind; /* its row (kinds.h); docs/REPORTS.md */
  struct gcb_location where;
  double measured;    /* NAN when not a number */
  double expected;    /* NAN when there is no expectation */
  char unit[24];      /* unit of measured/expected; "" */
  double cost;        /* fraction of a synchronous job's time lost; NAN */
  int check;          /* index of the criteria check; -1 */
  const char *metric; /* criterion: the missed bound's metric; NULL */
  /* The case, borrowed from its document's model; NULL when the rule did
   * not record it. */
  const struct gcb_model_case *bench_case;
  /* run-error: the error it states, borrowed likewise; NULL otherwise */
  const struct gcb_model_error *error;
  char explanation[320];
  char suggestion[320];
  /* What the hardware said while it happened (a slow GPU's clocks, power
   * and throttle reasons), for the root cause it leads; "" */
  char evidence[160];
  /* A GPU pair's (p2p-bandwidth): the path class it was judged by (the
   * node's topology's, else the case's; "" when neither names one), and
   * whether `expected` is the median of the node's pairs of that class
   * rather than what the path carries. */
  char path_class[16];
  bool against_peers;
};

/* A growable list of findings. Zero-initialise; free with
 * gcb_findings_free. */
struct gcb_findings {
  struct gcb_finding *items;
  size_t n, cap;
};

/*
 * Appends a finding with the given severity and kind (its row, kinds.h),
 * every location part unknown, measured/expected/cost NAN, check -1, and
 * empty texts. Returns the new entry (valid until the next push), or NULL
 * when memory runs out (the list is unchanged).
 */
struct gcb_finding *gcb_findings_push(struct gcb_findings *l,
                                      enum gcb_severity sev,
                                      const struct gcb_kind *kind);

/* Copies src into dst[size]; a text that does not fit is cut at a UTF-8
 * boundary and ends in "..." so that the cut shows. Returns true when it
 * was cut. */
bool gcb_analyze_copy(char *dst, size_t size, const char *src);

/* vsnprintf into buf[size], cut as gcb_analyze_copy cuts. */
void gcb_analyze_vformat(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* printf into the finding's explanation / suggestion; a text too long
 * for it is cut as gcb_analyze_copy cuts. */
void gcb_finding_explain(struct gcb_finding *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void gcb_finding_suggest(struct gcb_finding *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Sets the finding's measured and expected figures and their unit. */
void gcb_finding_figures(struct gcb_finding *f, double measured,
                         double expected, const char *unit);

/* Fills the location's node, hostname, GPU and bus id from the model's
 * ranks for `rank` (gcb_model_place), and sets doc and rank. */
void gcb_finding_at_model_rank(struct gcb_finding *f, int doc,
                               const struct gcb_model *m, long long rank);

/* Orders findings by severity (fail first), keeping the order in which they
 * were found within a severity. */
void gcb_findings_sort(struct gcb_findings *l);

/* Counts findings at severity s. */
size_t gcb_findings_count(const struct gcb_findings *l, enum gcb_severity s);

/* Frees the list's storage and zeroes it; NULL is a no-op. */
void gcb_findings_free(struct gcb_findings *l);

/* ---- thresholds --------------------------------------------------------- */

#define GCB_MAX_OVERRIDES 16

/* A per-kind regression threshold: key is a bench name or a unit. */
struct gcb_override {
  char key[32];
  double pct;
};

struct gcb_thresholds {
  double slow_rank_pct;      /* warn: figure below the median by more */
  double slow_rank_fail_pct; /* fail: below the median by more */
  double outlier_mads;       /* k in |x - median| > k * 1.4826 * MAD */
  double outlier_min_ranks;  /* fewer ranks: no outlier rule */
  double imbalance_pct;      /* warn: (max - mean) / max of rank times */
  double late_pct;           /* warn: a rank late by this % of the op */
  double link_pct;           /* warn: a link below this % of expected */
  double link_fail_pct;      /* fail: a link below this % of expected */
  double trend_pct;          /* warn: a sweep row above its neighbours' line */
  double latency_floor_x;    /* warn: a small message this x its floor */
  double regression_pct;     /* compare: worse by more than this ... */
  double noise_sigmas;       /* ... and by more than this many sigmas */
  struct gcb_override regression_by[GCB_MAX_OVERRIDES];
  size_t nregression_by;
};

/* One threshold: name (as in criteria files), where it lives, default. */
struct gcb_threshold_def {
  const char *name;
  size_t offset; /* offsetof(struct gcb_thresholds, ...) of a double */
  double def;
  double min, max;
  const char *help;
  /* A fail threshold: the warning it pairs with, which it may not be
   * stricter than (a finding warns before it fails; criteria files are
   * refused otherwise), whether a larger value is the worse (a % below
   * the peers) or a smaller (a % of the link reached), and what it
   * judges ("a rank"). NULL warning: not a fail threshold. */
  const char *warning;
  bool worse_above;
  const char *judges;
};

/* The table of thresholds, terminated by a NULL name. */
extern const struct gcb_threshold_def gcb_threshold_defs[];

/* Every threshold at its default; no per-kind overrides. */
void gcb_thresholds_default(struct gcb_thresholds *t);

/* The row named `name`, or NULL. */
const struct gcb_threshold_def *gcb_threshold_find(const char *name);

/* Row d's value in t. */
double gcb_threshold_value(const struct gcb_thresholds *t,
                           const struct gcb_threshold_def *d);

/* The regression threshold for a case: a per-bench override, else a
 * per-unit one, else regression_pct. */
double gcb_thresholds_regression(const struct gcb_thresholds *t,
                                 const char *bench, const char *unit);

/* ---- analysis ----------------------------------------------------------- */

/*
 * Runs every rule over docs[0..ndocs) and appends what they find to out
 * (not sorted; see gcb_findings_sort). GCB_ENOMEM (with detail in err) when
 * memory runs out; findings appended so far stay in the list.
 */
enum gcb_status gcb_analyze(const struct gcb_doc *docs, size_t ndocs,
                            const struct gcb_thresholds *t,
                            struct gcb_findings *out, struct gcb_err *err);

/*
 * gcb_analyze over the rules of kinds[0..nkinds) instead of gcb_kinds[]:
 * a test adds a kind of its own (id GCB_KIND_EXTRA) this way. Same
 * failures as gcb_analyze.
 */
enum gcb_status gcb_analyze_kinds(const struct gcb_kind *kinds, size_t nkinds,
                                  const struct gcb_doc *docs, size_t ndocs,
                                  const struct gcb_thresholds *t,
                                  struct gcb_findings *out,
                                  struct gcb_err *err);

/*
 * Robust outliers on x[0..n): flags[i] is set when dir * (x[i] - median)
 * exceeds outlier_mads * 1.4826 * MAD (dir -1: below the median, +1:
 * above). Nothing is flagged with fewer than outlier_min_ranks values, or
 * when memory runs out. Returns the number flagged; the median goes to
 * *median (NAN when n == 0).
 */
size_t gcb_analyze_outliers(const double *x, size_t n, int dir,
                            const struct gcb_thresholds *t, bool *flags,
                            double *median);

/*
 * The slow-rank rule on x[0..n): flags[i] is set when x[i] lies below
 * the median by more than outlier_mads * 1.4826 * MAD and by more than
 * slow_rank_pct percent of the median. Nothing is flagged with fewer than
 * outlier_min_ranks values, or when memory runs out. Returns the number
 * flagged; the median goes to *median.
 */
size_t gcb_analyze_slow(const double *x, size_t n,
                        const struct gcb_thresholds *t, bool *flags,
                        double *median);

/* True when a case ran in place (params.inplace true, non-zero, "1",
 * "yes" or "true"): its sweep is the in-place half of the table. */
bool gcb_analyze_case_in_place(const struct gcb_model_case *c);

/* A case's message size in bytes: params.size, else params.bytes (NAN). */
double gcb_analyze_case_size(const struct gcb_model_case *c);

/* IPM-style load balance of one case over its ranks' times (the time each
 * figure comes from: figure_time_s, else the median sample). */
struct gcb_imbalance {
  size_t ranks;
  double total, mean, min, max; /* seconds; total = sum over ranks */
  long long min_rank, max_rank;
  double imbalance; /* (max - mean) / max; 0 = even */
  double cv;        /* stdev / mean of the times */
  /* The same of the ranks' median iterations, at max_rank: (its median
   * - the mean of the medians) / its median, so that a rank slow at most
   * iterations counts, not one descheduled iteration that inflated its
   * loop's time; NAN where a rank has no median. */
  double typical;
};

/* The time per-rank entry i of case c's figure comes from (a
 * collective's mean over its loop), else its median sample, as older
 * documents have it; NAN. */
double gcb_analyze_rank_time(const struct gcb_model_case *c, size_t i);

/* Computes it for a case; false when the case has no ranks. */
bool gcb_analyze_case_imbalance(const struct gcb_model_case *c,
                                struct gcb_imbalance *out);

#endif
