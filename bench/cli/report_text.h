/*
 * Terminal output of `report` and `compare`: aligned plain-text tables
 * drawn from the report's table model. Input text is printed with control
 * characters replaced, so a hostile hostname cannot drive the terminal.
 */
#ifndef GCB_REPORT_TEXT_H
#define GCB_REPORT_TEXT_H

#include <stdio.h>

#include "reports/reports.h"

/* The width text for out wraps at: $COLUMNS when set (20 to 1000), else
 * the terminal's when out is one, else 0 (not wrapped: a file or a pipe
 * gets each root cause on one line, for grep). */
size_t gcb__text_width(FILE *out);

/* The verdict, every root cause (wrapped within width; 0: one line each),
 * the checks a source cannot evaluate, the burn-in tables and the files
 * written to dir. */
void gcb__print_report_summary(FILE *out, const struct gcb_report *rep,
                               const char *dir, size_t width);

/* compare's output: the regression table (case, metric, old, new, change,
 * noise, verdict), the not-comparable notes, a one-line summary.
 * GCB_ENOMEM when the tables cannot be built. */
enum gcb_status gcb__print_comparison(FILE *out, const struct gcb_doc *new_doc,
                                      const struct gcb_comparison *cmp,
                                      const char *baseline,
                                      const struct gcb_thresholds *t,
                                      struct gcb_err *err);

#endif
