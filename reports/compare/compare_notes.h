/*
 * Internal to compare: the list of differences between two runs that make
 * their numbers hard to compare (hardware, software, backend, ranks,
 * options, CPU binding, devices).
 */
#ifndef GCB_COMPARE_NOTES_H
#define GCB_COMPARE_NOTES_H

#include "reports/compare/compare.h"

/* Appends a note per difference between the documents to cmp->notes.
 * GCB_ENOMEM when memory runs out. */
enum gcb_status gcb__compare_notes(const json_t *old, const json_t *new_,
                                   struct gcb_comparison *cmp,
                                   struct gcb_err *err);

#endif
