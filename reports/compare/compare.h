/*
 * Baseline comparison: the same cases in two results documents, matched by
 * bench + params + unit, compared per metric with a noise-aware rule (see
 * docs/REPORTS.md for the rule and why). Differences between the two runs
 * that make numbers incomparable (hardware, software, backend, options)
 * are listed as notes; they never silence the comparison, and the
 * comparison never hides them.
 */
#ifndef GCB_COMPARE_H
#define GCB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "reports/analysis/analyze.h"

enum gcb_verdict {
  GCB_VERDICT_SAME,       /* change within the threshold */
  GCB_VERDICT_NOISE,      /* beyond the threshold, within the noise */
  GCB_VERDICT_BETTER,     /* better beyond threshold and noise */
  GCB_VERDICT_REGRESSION, /* worse beyond threshold and noise */
  GCB_VERDICT_ONLY_OLD,   /* case only in the baseline */
  GCB_VERDICT_ONLY_NEW,   /* case only in the new run */
  GCB_VERDICT_MODE,       /* a small MPI message's change in the direction
                             the two launches' MPI probes moved, when they
                             differ by GCB_MPI_MODE_RATIO or more: the
                             machine's MPI mode, not a regression
                             (compare_notes.c) */
  GCB_VERDICT_UNJUDGED,   /* one side measured nothing: a time of 0 (a
                             timer that resolved no iteration, not a fast
                             run) or no value */
};

/* "same", "within noise", "better", "REGRESSION", "only in old", ...,
 * "MPI mode". */
const char *gcb_verdict_name(enum gcb_verdict v);

/* One metric of one case in both runs. */
struct gcb_delta {
  char title[160];    /* "gemm: fp32 256x256x256" */
  char key[192];      /* gcb_model_case_key of the case */
  const char *metric; /* "median", "slowest"; "-" for one-sided rows */
  char unit[24];
  double old_value, new_value; /* NAN on the missing side */
  double change;               /* (new - old) / old, signed; NAN one-sided */
  double noise;                /* noise band, as a fraction of the value */
  double threshold;            /* the threshold applied, as a fraction */
  enum gcb_verdict verdict;
  bool derived; /* one-sided, of a derived case (model.h): never missing */
};

/* One reason the runs may not be comparable. */
struct gcb_note {
  char what[96]; /* "node 0 cpu_model", "software mpi", "option iters" */
  char old_value[160];
  char new_value[160];
};

struct gcb_comparison {
  struct gcb_delta *deltas;
  size_t ndeltas;
  struct gcb_note *notes;
  size_t nnotes;
  size_t regressions;
  size_t caps[2]; /* allocation sizes; internal */
};

/*
 * Compares `old` (the baseline) with `new_`, reading their typed models
 * (gcb_doc.model, reports/document/model.h; both required): every case of
 * either run becomes rows in out->deltas (its metrics for a case in both, a
 * metric neither run has no row; one row for a case in only one), every
 * difference in hardware, software, backend,
 * ranks or options a note. Thresholds: gcb_thresholds_regression per case,
 * noise_sigmas. *out must be zeroed; free with gcb_comparison_free (also
 * after failure). GCB_ENOMEM when memory runs out.
 */
enum gcb_status gcb_compare(const struct gcb_doc *old,
                            const struct gcb_doc *new_,
                            const struct gcb_thresholds *t,
                            struct gcb_comparison *out, struct gcb_err *err);

/*
 * Adds the comparison's outcome to a findings list: a "regression" finding
 * (fail) per regressed row, a "not-comparable" finding (warn) per note, a
 * "missing-case" finding per one-sided case (warn when the case vanished,
 * info when it is new). `doc` is the index the new run has in the list's
 * documents. GCB_ENOMEM when memory runs out.
 */
enum gcb_status gcb_compare_findings(const struct gcb_comparison *cmp, int doc,
                                     struct gcb_findings *out,
                                     struct gcb_err *err);

/* NULL is a no-op; the struct is zeroed. */
void gcb_comparison_free(struct gcb_comparison *cmp);

/* Whether the new run can pass a comparison whatever its numbers. */
struct gcb_run_check {
  size_t missing;  /* baseline cases the new run lacks */
  size_t invalid;  /* the new run's cases whose results failed validation */
  size_t unmeasured; /* rows the baseline timed and the new run did not
                        (a time of 0: GCB_VERDICT_UNJUDGED) */
  size_t errors;     /* the new run's errors[] (a tool's FAILED line) */
  const char *first_error; /* the first one's message, borrowed; NULL */
  size_t compared;         /* rows with a value on both sides */
  char status[32];         /* the new run's run.status */
  bool failed; /* any of them, nothing compared, or a status other than
                  "complete" */
};

/* Fills *out from a comparison and its new run's model (reports/compare/
 * compare_run.c). Pure. */
void gcb_compare_run_check(const struct gcb_comparison *cmp,
                           const struct gcb_doc *new_,
                           struct gcb_run_check *out);

/* One line (no newline) saying why rc failed: "the new run fails the
 * comparison: run status "failed"; 68 baseline case(s) missing". */
void gcb_compare_run_why(const struct gcb_run_check *rc, char *buf,
                         size_t size);

#endif
