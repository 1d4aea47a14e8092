/*
 * Terminal output of `report` and `compare`: aligned plain-text tables
 * drawn from the report's table model. Input text is printed with control
 * characters replaced, so a hostile hostname cannot drive the terminal.
 */
#ifndef GCB_REPORT_TEXT_H
#define GCB_REPORT_TEXT_H

#include <stdio.h>

#include "reports/reports.h"

/* The verdict, the files written to dir, and the findings (at most 20 rows,
 * long cells cut). */
void gcb__print_report_summary(FILE *out, const struct gcb_report *rep,
                               const char *dir);

/* compare's output: the regression table (case, metric, old, new, change,
 * noise, verdict), the not-comparable notes, a one-line summary.
 * GCB_ENOMEM when the tables cannot be built. */
enum gcb_status gcb__print_comparison(FILE *out, const struct gcb_doc *new_doc,
                                      const struct gcb_comparison *cmp,
                                      const char *baseline,
                                      const struct gcb_thresholds *t,
                                      struct gcb_err *err);

#endif
