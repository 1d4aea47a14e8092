/*
 * A results document read from a file as the report tool reads one
 * (reports/load.c): the file read whole, GCB_RESULTS_MAX_BYTES at most,
 * then gcb_results_parse. For the tests of every directory.
 */
#ifndef GCB_TEST_RESULTS_READ_H
#define GCB_TEST_RESULTS_READ_H

#include <stdlib.h>

#include "common/file.h"
#include "reports/document/results.h"

/* gcb_results_parse of the file at path, named by it; a file that cannot
 * be read is gcb_file_read's GCB_EINPUT or GCB_EIO. *out is NULL on
 * failure; on success the caller frees it. */
static inline enum gcb_status fx_results_read(const char *path,
                                              struct gcb_results **out,
                                              struct gcb_err *err) {
  char *text = NULL;
  size_t len = 0;
  *out = NULL;
  enum gcb_status st =
      gcb_file_read(path, GCB_RESULTS_MAX_BYTES, &text, &len, err);
  if (st == GCB_OK)
    st = gcb_results_parse(text, len, path, out, err);
  free(text);
  return st;
}

#endif
