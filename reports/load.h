/*
 * The report inputs, loaded: the results documents of a `report` or
 * `compare` command line (gcbench's own, and other tools' output converted
 * by reports/interop/, joined to the topology of a gcbench document of the
 * same machine), the baseline and the acceptance criteria. Files are read
 * whole, then gcbench's documents parsed in parallel (at thousands of
 * ranks, parsing is most of a report's time); every gcbench document is
 * validated exactly as gcb_results_parse would, and every file becomes a
 * typed model (another tool's file nothing else).
 */
#ifndef GCB_REPORTS_LOAD_H
#define GCB_REPORTS_LOAD_H

#include <stddef.h>

#include "reports/criteria/criteria.h"
#include "reports/document/model.h"
#include "reports/document/results.h"
#include "reports/document/view.h"

#define GCB_LOAD_MAX_DOCS 256

struct gcb_inputs {
  /* gcbench's documents (NULL for another tool's file, converted into its
   * model alone); the last: the baseline */
  struct gcb_results *res[GCB_LOAD_MAX_DOCS + 1];
  struct gcb_doc docs[GCB_LOAD_MAX_DOCS]; /* in order; .root NULL when
                                             converted */
  size_t ndocs;
  struct gcb_model *models[GCB_LOAD_MAX_DOCS + 1]; /* of every file, once */
  struct gcb_doc base;     /* .model NULL without a baseline */
  struct gcb_criteria *cr; /* NULL without criteria */
};

/*
 * Loads files[0..n) (n <= GCB_LOAD_MAX_DOCS), the baseline and the criteria
 * (each NULL when not given) into *in, which must be zeroed. gcbench
 * documents keep the command line's order; the first problem in that order
 * is the one reported ("file:line:column: problem", GCB_EINPUT; a file
 * that cannot be read GCB_EINPUT or GCB_EIO; GCB_ENOMEM). Whatever was
 * loaded is freed by gcb_inputs_free, also on failure.
 */
enum gcb_status gcb_inputs_load(const char *const *files, size_t n,
                                const char *baseline, const char *criteria,
                                struct gcb_inputs *in, struct gcb_err *err);

/* Frees what gcb_inputs_load loaded, every document whatever its size
 * (with its per-rank columns compact, a 16,384-rank tree frees in no time
 * one can measure: docs/PERF.md); the struct itself is the caller's. */
void gcb_inputs_free(struct gcb_inputs *in);

#endif
