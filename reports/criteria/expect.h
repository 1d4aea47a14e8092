/*
 * Built-in expectations per GPU model (as DCGM's diag-skus.yaml): one
 * data file per SKU in reports/criteria/skus/ (datasheet peaks of dense
 * GEMM per dtype, memory bandwidth, PCIe generation and width, NVLink
 * links and bandwidth, each with its source named, and the fractions of
 * them a healthy GPU reaches), compiled into gcb__skus[] at build time
 * (cmake/embed_skus.cmake). Without --criteria, `report` judges the GPUs
 * of the documents against their SKU's file, turned into acceptance
 * criteria (criteria.h) and evaluated by the same engine; a check whose
 * benchmark the run did not measure is n/a, never a failure.
 */
#ifndef GCB_EXPECT_H
#define GCB_EXPECT_H

#include <stddef.h>

#include "reports/criteria/criteria.h"

/* One embedded data file; the table ends with a NULL name. */
struct gcb__sku_file {
  const char *name; /* "h200.json" */
  const char *text; /* its bytes, NUL-terminated */
  size_t len;
};

extern const struct gcb__sku_file gcb__skus[];

/*
 * The built-in expectations for the GPUs of docs[0..ndocs): when they all
 * name one model that a data file lists, *out is that SKU's criteria
 * (builtin set; free with gcb_criteria_free) and `line` reads "H200
 * expectations, built in"; otherwise *out is NULL and `line` says why
 * none applies ("no built-in expectation for NVIDIA RTX 4090", or that
 * the run names no GPU model, as on the host backend). Checks are made
 * for the sizes the documents measured that reach a peak (GEMM m, n, k of
 * 4096 and more; copies of 64 MiB and more); a figure the run did not
 * measure at such a size is a check that matches nothing, n/a. Errors:
 * GCB_EINTERNAL when an embedded file is malformed, GCB_ENOMEM.
 */
enum gcb_status gcb_expect_builtin(const struct gcb_doc *docs, size_t ndocs,
                                   struct gcb_criteria **out, char *line,
                                   size_t size, struct gcb_err *err);

#endif
