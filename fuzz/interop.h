/*
 * What the four interop fuzz targets share: the input goes to one
 * converter row, whatever it looks like: rows[1] (the tool's JSON reader)
 * when its first non-blank byte is '{', else rows[0] (its text reader), so
 * that the seeds are the real files of tests/data/interop as they are. The
 * contract: a document, or one line saying why not; a document must be writable
 * and read back the same; no crash, leak, undefined behaviour, or time or
 * memory beyond the limits (GCB_INTEROP_MAX_*).
 */
#ifndef GCB_FUZZ_INTEROP_H
#define GCB_FUZZ_INTEROP_H

#include <stdlib.h>
#include <string.h>

#include "fuzz/contract.h"
#include "reports/document/results.h"
#include "reports/interop/interop_int.h"

static inline int gcb_fuzz_interop(const unsigned char *data, size_t size,
                                   const char *const *rows, size_t nrows) {
  size_t i = 0;
  while (i < size && strchr(" \t\r\n", data[i]) != NULL && data[i] != '\0')
    i++;
  const char *row = rows[nrows > 1 && i < size && data[i] == '{'];
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  enum gcb_status st = gcb__interop_parse_as(row, (const char *)data, size,
                                             "fuzz.txt", &r, &err);
  if (!gcb_fuzz_answer_ok(st, r != NULL, &err))
    gcb_fuzz_fail(&err);
  if (r != NULL) {
    /* the per-rank columns, held apart, dumped as the arrays they are */
    char *text = gcb_results_plain(r, &err) == GCB_OK
                     ? json_dumps(gcb_results_json(r), JSON_COMPACT)
                     : NULL;
    struct gcb_results *back = NULL;
    if (text == NULL ||
        gcb_results_parse(text, strlen(text), "dump", &back, &err) != GCB_OK)
      gcb_fuzz_fail(&err); /* what was accepted must read back */
    gcb_results_free(back);
    free(text);
  }
  gcb_results_free(r);
  return 0;
}

#endif
