/*
 * What the four interop fuzz targets share: the input goes to one
 * converter row, whatever it looks like: rows[1] (the tool's JSON reader)
 * when its first non-blank byte is '{', else rows[0] (its text reader), so
 * that the seeds are the real files of tests/data/interop as they are. The
 * contract: a typed model, or one line saying why not; a model holds a
 * case or an error (a run that failed before its first row) at least,
 * within the limits (GCB_INTEROP_MAX_*); no crash, leak,
 * undefined behaviour, or time or memory beyond the limits.
 */
#ifndef GCB_FUZZ_INTEROP_H
#define GCB_FUZZ_INTEROP_H

#include <stdlib.h>
#include <string.h>

#include "fuzz/contract.h"
#include "reports/document/model.h"
#include "reports/interop/interop_int.h"

static inline int gcb_fuzz_interop(const unsigned char *data, size_t size,
                                   const char *const *rows, size_t nrows) {
  size_t i = 0;
  while (i < size && strchr(" \t\r\n", data[i]) != NULL && data[i] != '\0')
    i++;
  const char *row = rows[nrows > 1 && i < size && data[i] == '{'];
  struct gcb_model *m = NULL;
  struct gcb_err err = {0};
  enum gcb_status st = gcb__interop_parse_as(row, (const char *)data, size,
                                             "fuzz.txt", &m, &err);
  if (!gcb_fuzz_answer_ok(st, m != NULL, &err))
    gcb_fuzz_fail(&err);
  if (m != NULL && ((m->ncases == 0 && m->nerrors == 0) ||
                    m->ncases > GCB_INTEROP_MAX_ITEMS)) {
    gcb_err_set(&err, GCB_EINTERNAL, "%zu cases, %zu errors", m->ncases,
                m->nerrors);
    gcb_fuzz_fail(&err); /* a case or an error at least, within the limit */
  }
  gcb_model_free(m);
  return 0;
}

#endif
