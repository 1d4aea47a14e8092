/*
 * Parses several results documents in parallel, each exactly as
 * gcb_results_parse would (same validation, same messages).
 */
#ifndef GCB_RESULTS_MANY_H
#define GCB_RESULTS_MANY_H

#include <stddef.h>

#include "reports/document/results.h"

#define GCB_PARSE_MAX_THREADS 8

struct gcb_parse_job {
  const char *text; /* in: the file's bytes */
  size_t len;
  const char *name;        /* in: the name messages show */
  struct gcb_results *out; /* out: the document, or NULL */
  enum gcb_status status;  /* out */
  struct gcb_err err;      /* out: the problem when status is not OK */
};

/* Runs every job, up to one thread per online CPU (at most
 * GCB_PARSE_MAX_THREADS); the caller frees each out. */
void gcb_results_parse_many(struct gcb_parse_job *items, size_t n);

#endif
