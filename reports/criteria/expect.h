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

#define GCB_SKU_SCHEMA "gcbench.sku/1"
#define GCB_SKU_MAX_MODELS 8
#define GCB_SKU_MAX_GEMM 12

/* A dense GEMM peak of the SKU's datasheet. */
struct gcb_sku_gemm {
  char dtype[16]; /* "bf16"; "" when the file gives none */
  double peak_tflops;
};

/* One data file, typed (its figures' sources stay in the file: they are
 * for the people who read it). Numbers are NAN, integers 0, strings ""
 * when the file lacks them. */
struct gcb_sku {
  char sku[64];                        /* "H200" */
  char models[GCB_SKU_MAX_MODELS][96]; /* device names, exactly */
  size_t nmodels;
  struct gcb_sku_gemm gemm[GCB_SKU_MAX_GEMM];
  size_t ngemm;
  bool has_membw, has_pcie, has_nvlink;
  double membw_peak_gbs;
  long long pcie_gen, pcie_width;
  long long nvlink_links;
  double nvlink_total_gbs; /* both directions together */
  double frac_gemm, frac_membw, frac_pcie, frac_nvlink;
};

/*
 * Reads one embedded data file (reports/document/criteria_file.c, the
 * edge that reads files): GCB_EINTERNAL with "built-in expectations: NAME
 * is not gcbench.sku/1 (why)" when it is malformed or outgrows the struct.
 */
enum gcb_status gcb_sku_parse(const struct gcb__sku_file *f,
                              struct gcb_sku *out, struct gcb_err *err);

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
