/*
 * What progress.c's tests reach: the decision of whether rank 0 shows the
 * progress line, apart from the looking at terminals.
 */
#ifndef GCB_PROGRESS_INT_H
#define GCB_PROGRESS_INT_H

#include <stdbool.h>

#include "bench/run/harness.h"

/*
 * The progress line or not, as gcb_progress_wanted decides it, from what
 * it looked at: opts' --progress/--no-progress first (both: GCB_EUSAGE),
 * then env (GCB_PROGRESS's value, NULL or "" when unset; a value other
 * than "0" or "1": GCB_EUSAGE), then whether rank 0's stderr or the
 * nearest launcher's among its ancestors is a terminal.
 */
enum gcb_status gcb__progress_decide(const struct gcb_run_opts *opts,
                                     const char *env, bool stderr_terminal,
                                     bool launcher_terminal, bool *out,
                                     struct gcb_err *err);

#endif
