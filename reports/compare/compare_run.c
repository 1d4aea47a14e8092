/*
 * Whether the new run can pass a comparison at all, whatever its numbers
 * (reports/compare/compare.h, gcb_compare_run_check): a run that kept 2 of
 * 70 cases and says "failed" has nothing regressed among the 2, and must
 * not compare as a pass. Missing baseline cases, a run status other than
 * "complete" (or "unknown": a converted excerpt), cases whose results
 * were checked and failed validation, errors the run states (nccl-tests'
 * own FAILED lines, which failed its exit status), times the baseline
 * measured and the new run gives as 0 s, and a comparison of no row with
 * both runs' values (a baseline that failed before its first case) each
 * fail it; a case not validated does not, nor a baseline that timed
 * nothing. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reports/compare/compare.h"
#include "reports/document/model.h"
#include "reports/document/view.h"

/* A case checked and found wrong. One not checked (checked false: a tool
 * that validates nothing, nccl-tests without -c, --no-check) was not
 * validated: that is no failure of the run, or a log compared with itself
 * would fail. */
static bool case_invalid(const struct gcb_model_case *c) {
  const struct gcb_model_validation *v = &c->validation;
  return (v->checked && v->passed_present && !v->passed) || v->wrong > 0;
}

void gcb_compare_run_check(const struct gcb_comparison *cmp,
                           const struct gcb_doc *new_,
                           struct gcb_run_check *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < cmp->ndeltas; i++) {
    const struct gcb_delta *d = &cmp->deltas[i];
    out->missing +=
        d->verdict == GCB_VERDICT_ONLY_OLD && !d->derived; /* its rows count */
    out->unmeasured += d->verdict == GCB_VERDICT_UNJUDGED && d->old_value > 0 &&
                       d->new_value == 0;
    out->compared += !isnan(d->old_value) && !isnan(d->new_value);
  }
  const struct gcb_model *m = new_->model;
  for (size_t i = 0; i < m->ncases; i++)
    out->invalid += case_invalid(&m->cases[i]);
  out->errors = m->nerrors;
  out->first_error = m->nerrors > 0 ? m->errors[0].message : NULL;
  gcb_view_copy(out->status, sizeof out->status, m->run.status);
  out->failed = out->missing > 0 || out->invalid > 0 || out->unmeasured > 0 ||
                out->errors > 0 || out->compared == 0 ||
                gcb_view_status_failed(out->status);
}

void gcb_compare_run_why(const struct gcb_run_check *rc, char *buf,
                         size_t size) {
  int n = snprintf(buf, size, "the new run fails the comparison:");
  size_t used = n > 0 && (size_t)n < size ? (size_t)n : size - 1;
  if (gcb_view_status_failed(rc->status) && used < size)
    used += (size_t)snprintf(buf + used, size - used, " run status \"%s\";",
                             rc->status[0] ? rc->status : "(none)");
  if (rc->missing > 0 && used < size)
    used += (size_t)snprintf(buf + used, size - used,
                             " %zu baseline case(s) missing;", rc->missing);
  if (rc->invalid > 0 && used < size)
    used += (size_t)snprintf(buf + used, size - used,
                             " %zu case(s) failed validation;", rc->invalid);
  if (rc->errors > 0 && used < size)
    used += (size_t)snprintf(buf + used, size - used,
                             " %zu error(s), the first: %s;", rc->errors,
                             rc->first_error);
  if (rc->compared == 0 && used < size)
    used += (size_t)snprintf(buf + used, size - used,
                             " nothing was compared (no case has a value "
                             "in both runs);");
  if (rc->unmeasured > 0 && used < size)
    used += (size_t)snprintf(buf + used, size - used,
                             " %zu time(s) the baseline measured are 0 s;",
                             rc->unmeasured);
  if (used > 0 && used < size && buf[used - 1] == ';')
    buf[used - 1] = '\0';
}
