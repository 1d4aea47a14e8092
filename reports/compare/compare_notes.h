/*
 * Internal to compare: the list of differences between two runs that make
 * their numbers hard to compare (hardware, software, backend, ranks,
 * options, CPU binding, devices), and the launches' MPI mode.
 */
#ifndef GCB_COMPARE_NOTES_H
#define GCB_COMPARE_NOTES_H

#include "reports/compare/compare.h"
#include "reports/document/model.h"

/* Appends a note per difference between the documents to cmp->notes.
 * GCB_ENOMEM when memory runs out. */
enum gcb_status gcb__compare_notes(const struct gcb_model *old,
                                   const struct gcb_model *new_,
                                   struct gcb_comparison *cmp,
                                   struct gcb_err *err);

/* The key compare matches a case by (compare.c): its gcb_model_case_key,
 * a collective's without the params that follow the rank count. The
 * delta rows carry it. */
void gcb__compare_case_key(const struct gcb_model_case *c, char *buf,
                           size_t size);

/*
 * The launches' MPI mode: when both runs carry run.mpi_probe and a pair's
 * least probe latency (min_us) (same-node pair with same-node pair, the other
 * with the other) differs by GCB_MPI_MODE_RATIO or more, appends a note naming
 * both probe values, and re-marks as GCB_VERDICT_MODE each regressed (new probe
 * slower) or better (new probe faster) row of an MPI case of at most
 * GCB_MPI_MODE_BYTES (bench coll on the host backend), taking the
 * regressions off cmp->regressions. Rules in docs/REPORTS.md ("MPI mode").
 * GCB_ENOMEM.
 */
#define GCB_MPI_MODE_RATIO 1.5
#define GCB_MPI_MODE_BYTES 8192
enum gcb_status gcb__compare_mode(const struct gcb_model *old,
                                  const struct gcb_model *new_,
                                  struct gcb_comparison *cmp,
                                  struct gcb_err *err);

#endif
