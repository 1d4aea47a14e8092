/*
 * Built-in expectations (expect.h): the GPU model the documents name, its
 * SKU's embedded data file, and that file turned into a criteria document
 * ("gcbench.criteria/1") read by gcb_criteria_parse, so the built-in
 * checks are judged, reported and rendered exactly as a --criteria file's.
 */
#include "reports/criteria/expect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pcie.h"
#include "reports/analysis/kinds.h"
#include "reports/document/model.h"
#include "reports/document/view.h"

#define MAX_MODELS 8
#define SKU_SCHEMA "gcbench.sku/1"

/* The distinct GPU models of the documents: each rank's device name, or
 * the topology's GPUs where no rank names one. */
struct models {
  const char *name[MAX_MODELS];
  size_t n;
  bool more; /* more than MAX_MODELS */
};

static void model_add(struct models *m, const char *name) {
  if (name == NULL || name[0] == '\0')
    return;
  for (size_t i = 0; i < m->n; i++)
    if (strcmp(m->name[i], name) == 0)
      return;
  if (m->n == MAX_MODELS)
    m->more = true;
  else
    m->name[m->n++] = name;
}

static void models_of(const struct gcb_model *doc, struct models *m) {
  size_t before = m->n;
  /* The host backend's device is the CPU: no GPU figure was measured. */
  if (strcmp(doc->run.backend, "host") == 0)
    return;
  for (size_t i = 0; i < doc->nranks; i++)
    model_add(m, doc->ranks[i].device_name);
  if (m->n > before)
    return;
  for (size_t i = 0; i < doc->nnodes; i++)
    for (size_t j = 0; j < doc->nodes[i].ngpus; j++)
      model_add(m, doc->nodes[i].gpus[j].model);
}

/* The data file whose "models" lists `model` exactly; NULL if none. */
static json_t *sku_find(const char *model, struct gcb_err *err,
                        enum gcb_status *st) {
  for (const struct gcb__sku_file *f = gcb__skus; f->name; f++) {
    json_error_t je;
    json_t *sku = json_loadb(f->text, f->len, JSON_REJECT_DUPLICATES, &je);
    const char *schema = json_string_value(json_object_get(sku, "schema"));
    if (sku == NULL || schema == NULL || strcmp(schema, SKU_SCHEMA) != 0) {
      json_decref(sku);
      *st = gcb_err_set(err, GCB_EINTERNAL,
                        "built-in expectations: %s is not %s (%s)", f->name,
                        SKU_SCHEMA, sku == NULL ? je.text : "schema");
      return NULL;
    }
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(sku, "models"), i, m) {
      if (json_is_string(m) && strcmp(json_string_value(m), model) == 0)
        return sku;
    }
    json_decref(sku);
  }
  return NULL;
}

/* A figure family: the cases of `bench` whose `fixed` params equal the
 * expectation's, measured at `size_key` >= min_size (where the figure
 * reaches its plateau); a check's params are the case's `keys`. */
struct family {
  enum gcb_bench_kind bench;
  const char *size_key;
  double min_size;
  const char *keys[5];
  bool optional; /* no n/a check when the documents have no such case */
};

static const struct family gemm_family = {
    GCB_BENCH_GEMM, "m", 4096, {"dtype", "m", "n", "k", NULL}, false};
/* A burn's sustained figure (per rank: its median interval) against the
 * same GEMM peak: a GPU that cannot hold its share of the datasheet under
 * sustained load fails as a slow GEMM does. Only for runs that burned. */
static const struct family burn_family = {
    GCB_BENCH_BURN, "m", 4096, {"dtype", "m", "n", "k", NULL}, true};
static const struct family membw_family = {
    GCB_BENCH_MEMBW, "bytes", 256.0 * (1 << 20), {"kernel", "bytes", NULL},
    false};
static const struct family pcie_family = {
    GCB_BENCH_PCIE,
    "size",
    64.0 * (1 << 20),
    {"direction", "memory", "numa", "size", NULL},
    false};
static const struct family p2p_family = {
    GCB_BENCH_P2P, "size", 16.0 * (1 << 20), {"path", "size", NULL}, false};

/* A fixed param of the SKU's (a string or a number) against a case's. */
static bool param_equal(const struct gcb_mvalue *have, const json_t *want) {
  if (json_is_number(want))
    return (have->type == GCB_MV_INT || have->type == GCB_MV_REAL) &&
           have->num == json_number_value(want);
  return json_is_string(want) && have->type == GCB_MV_STRING &&
         strcmp(have->text, json_string_value(want)) == 0;
}

/* A number param as the documents' number (an integer stays one). */
static double num_param(const struct gcb_model_case *c, const char *key) {
  const struct gcb_mvalue *v = gcb_mvalue_get(&c->params, key);
  return v->type == GCB_MV_INT || v->type == GCB_MV_REAL ? v->num : NAN;
}

/* Whether case c is of the family, has every fixed param (a case's NUMA
 * placement, when it has one, must be local) and a size that counts. */
static bool qualifies(const struct family *fam, const json_t *fixed,
                      const struct gcb_model_case *c) {
  const char *key;
  const json_t *v;
  if (c->kind != fam->bench || c->params.type != GCB_MV_OBJECT)
    return false;
  json_object_foreach((json_t *)fixed, key, v) {
    if (!param_equal(gcb_mvalue_get(&c->params, key), v))
      return false;
  }
  const char *numa = gcb_model_param_str(c, "numa");
  if (numa[0] != '\0' && strcmp(numa, "local") != 0)
    return false;
  double size = num_param(c, fam->size_key);
  bool sized = !isnan(size) && size >= fam->min_size;
  if (sized && fam == &gemm_family)
    sized = num_param(c, "n") >= fam->min_size &&
            num_param(c, "k") >= fam->min_size;
  return sized;
}

/* A case's param as a member of the criteria document being written. */
static json_t *param_json(const struct gcb_mvalue *v) {
  switch (v->type) {
  case GCB_MV_INT:
    return json_integer(v->i);
  case GCB_MV_REAL:
    return json_real(v->num);
  case GCB_MV_STRING:
    return json_string(v->text);
  default: /* the schema allows strings and numbers only */
    return json_null();
  }
}

/* The params of a check for case c: its values of the family's keys. */
static json_t *params_of(const struct family *fam,
                         const struct gcb_model_case *c) {
  json_t *out = json_object();
  for (size_t i = 0; out != NULL && fam->keys[i]; i++) {
    const struct gcb_mvalue *v = gcb_mvalue_get(&c->params, fam->keys[i]);
    if (v->type != GCB_MV_ABSENT &&
        json_object_set_new(out, fam->keys[i], param_json(v)) != 0) {
      json_decref(out);
      return NULL;
    }
  }
  return out;
}

static bool seen(const json_t *checks, enum gcb_bench_kind bench,
                 const json_t *params) {
  size_t i;
  const json_t *k;
  json_array_foreach((json_t *)checks, i, k) {
    if (gcb_bench_kind_of(k) == bench &&
        json_equal(json_object_get(k, "params"), (json_t *)params))
      return true;
  }
  return false;
}

/* One check of the expectation: `fixed` params, one bound. */
struct expectation {
  const struct family *fam;
  json_t *fixed; /* owned */
  const char *unit;
  const char *metric; /* "per_rank", "min" */
  double limit;
  char what[160]; /* "GEMM bf16 per GPU >= 60% of 989 TFLOP/s (dense)" */
};

/* A check per size the documents measured; if none, one that matches no
 * case (its size -1), which the built-in evaluation reports as n/a. */
static bool add_checks(json_t *checks, const struct expectation *e,
                       const struct gcb_doc *docs, size_t ndocs) {
  size_t before = json_array_size(checks);
  bool ok = true;
  for (size_t d = 0; d < ndocs && ok; d++)
    for (size_t i = 0; i < docs[d].model->ncases; i++) {
      const struct gcb_model_case *c = &docs[d].model->cases[i];
      if (!ok || !qualifies(e->fam, e->fixed, c))
        continue;
      json_t *params = params_of(e->fam, c);
      if (params == NULL || seen(checks, e->fam->bench, params)) {
        ok = params != NULL;
        json_decref(params);
        continue;
      }
      char name[128];
      snprintf(name, sizeof name, "%s, %s %.0f", e->what, e->fam->size_key,
               num_param(c, e->fam->size_key));
      ok = json_array_append_new(
               checks,
               json_pack("{s:s, s:s, s:o, s:s, s:{s:f}}", "name", name, "bench",
                         gcb_bench_kinds[e->fam->bench].name, "params", params,
                         "unit", e->unit, "min", e->metric, e->limit)) == 0;
    }
  if (!ok || json_array_size(checks) > before || e->fam->optional)
    return ok;
  json_t *params = json_deep_copy(e->fixed);
  char name[192];
  snprintf(name, sizeof name, "%s (not measured at %s >= %.0f)", e->what,
           e->fam->size_key, e->fam->min_size);
  return params != NULL &&
         json_object_set_new(params, e->fam->size_key, json_integer(-1)) == 0 &&
         json_array_append_new(
             checks,
             json_pack("{s:s, s:s, s:o, s:s, s:{s:f}}", "name", name, "bench",
                       gcb_bench_kinds[e->fam->bench].name, "params", params,
                       "unit", e->unit, "min", e->metric, e->limit)) == 0;
}

static double fraction(const json_t *sku, const char *key) {
  return gcb_view_num(gcb_view_obj(sku, "fractions"), key);
}

static bool gemm_checks(json_t *checks, const json_t *sku,
                        const struct gcb_doc *docs, size_t ndocs,
                        const struct family *fam) {
  size_t i;
  const json_t *g;
  double f = fraction(sku, "gemm");
  json_array_foreach(json_object_get(sku, "gemm"), i, g) {
    double peak = gcb_view_num(g, "peak_tflops");
    struct expectation e = {
        .fam = fam,
        .fixed = json_pack("{s:s}", "dtype", gcb_view_str(g, "dtype")),
        .unit = "GFLOP/s",
        .metric = "per_rank",
        .limit = peak * 1e3 * f};
    snprintf(e.what, sizeof e.what,
             "%s %s per GPU >= %.0f%% of %g TFLOP/s (dense peak)",
             fam == &burn_family ? "burn-in sustained GEMM" : "GEMM",
             gcb_view_str(g, "dtype"), f * 100, peak);
    bool ok = e.fixed != NULL && add_checks(checks, &e, docs, ndocs);
    json_decref(e.fixed);
    if (!ok)
      return false;
  }
  return true;
}

static bool membw_checks(json_t *checks, const json_t *sku,
                         const struct gcb_doc *docs, size_t ndocs) {
  const json_t *m = gcb_view_obj(sku, "membw");
  if (m == NULL)
    return true;
  double f = fraction(sku, "membw"), peak = gcb_view_num(m, "peak_gbs");
  struct expectation e = {.fam = &membw_family,
                          .fixed = json_pack("{s:s}", "kernel", "triad"),
                          .unit = "GB/s",
                          .metric = "per_rank",
                          .limit = peak * f};
  snprintf(e.what, sizeof e.what,
           "memory triad per GPU >= %.0f%% of %g GB/s (peak)", f * 100, peak);
  bool ok = e.fixed != NULL && add_checks(checks, &e, docs, ndocs);
  json_decref(e.fixed);
  return ok;
}

static bool pcie_checks(json_t *checks, const json_t *sku,
                        const struct gcb_doc *docs, size_t ndocs) {
  const json_t *p = gcb_view_obj(sku, "pcie");
  if (p == NULL)
    return true;
  int gen = (int)gcb_view_int(p, "gen", 0),
      width = (int)gcb_view_int(p, "width", 0);
  double f = fraction(sku, "pcie"), peak = gcb_pcie_link_gbps(gen, width);
  static const char *const dirs[] = {"h2d", "d2h"};
  for (size_t i = 0; i < 2; i++) {
    struct expectation e = {.fam = &pcie_family,
                            .fixed = json_pack("{s:s, s:s}", "direction",
                                               dirs[i], "memory", "pinned"),
                            .unit = "GB/s",
                            .metric = "per_rank",
                            .limit = peak * f};
    snprintf(e.what, sizeof e.what,
             "PCIe gen%d x%d %s, pinned, >= %.0f%% of %.1f GB/s", gen, width,
             dirs[i], f * 100, peak);
    bool ok = e.fixed != NULL && add_checks(checks, &e, docs, ndocs);
    json_decref(e.fixed);
    if (!ok)
      return false;
  }
  return true;
}

static bool nvlink_checks(json_t *checks, const json_t *sku,
                          const struct gcb_doc *docs, size_t ndocs) {
  const json_t *n = gcb_view_obj(sku, "nvlink");
  if (n == NULL)
    return true;
  char path[16];
  long long links = gcb_view_int(n, "links", 0);
  /* The datasheets give both directions together; a copy moves one. */
  double f = fraction(sku, "nvlink"),
         one_way = gcb_view_num(n, "total_gbs") / 2;
  snprintf(path, sizeof path, "NV%lld", links);
  struct expectation e = {.fam = &p2p_family,
                          .fixed = json_pack("{s:s}", "path", path),
                          .unit = "GB/s",
                          .metric = "min",
                          .limit = one_way * f};
  snprintf(e.what, sizeof e.what,
           "NVLink %s per pair >= %.0f%% of %g GB/s each way", path, f * 100,
           one_way);
  bool ok = e.fixed != NULL && add_checks(checks, &e, docs, ndocs);
  json_decref(e.fixed);
  return ok;
}

/* The SKU's expectations as a criteria document, read as one. */
static enum gcb_status sku_criteria(const json_t *sku, const char *title,
                                    const struct gcb_doc *docs, size_t ndocs,
                                    struct gcb_criteria **out,
                                    struct gcb_err *err) {
  json_t *checks = json_array();
  json_t *doc = json_pack("{s:s, s:s, s:o}", "schema", GCB_CRITERIA_SCHEMA,
                          "name", title, "checks", checks);
  bool ok = doc != NULL &&
            gemm_checks(checks, sku, docs, ndocs, &gemm_family) &&
            gemm_checks(checks, sku, docs, ndocs, &burn_family) &&
            membw_checks(checks, sku, docs, ndocs) &&
            pcie_checks(checks, sku, docs, ndocs) &&
            nvlink_checks(checks, sku, docs, ndocs);
  char *text = ok ? json_dumps(doc, JSON_COMPACT) : NULL;
  json_decref(doc);
  if (text == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "built-in expectations: out of memory");
  enum gcb_status st =
      gcb_criteria_parse(text, strlen(text), "built-in expectations", out, err);
  free(text);
  if (st == GCB_OK)
    (*out)->builtin = true;
  return st;
}

enum gcb_status gcb_expect_builtin(const struct gcb_doc *docs, size_t ndocs,
                                   struct gcb_criteria **out, char *line,
                                   size_t size, struct gcb_err *err) {
  struct models m = {0};
  enum gcb_status st = GCB_OK;
  *out = NULL;
  for (size_t d = 0; d < ndocs; d++)
    models_of(docs[d].model, &m);
  if (m.n == 0) {
    snprintf(line, size,
             "no built-in expectation applies: the run names no "
             "GPU model (host backend)");
    return GCB_OK;
  }
  if (m.n > 1) {
    snprintf(line, size,
             "no built-in expectation applies: the run mixes GPU models "
             "(%s, %s%s)",
             m.name[0], m.name[1], m.n > 2 || m.more ? ", ..." : "");
    return GCB_OK;
  }
  json_t *sku = sku_find(m.name[0], err, &st);
  if (sku == NULL) {
    snprintf(line, size, "no built-in expectation for %s", m.name[0]);
    return st;
  }
  char title[96];
  snprintf(title, sizeof title, "%s expectations, built in",
           gcb_view_str(sku, "sku"));
  st = sku_criteria(sku, title, docs, ndocs, out, err);
  json_decref(sku);
  if (st == GCB_OK)
    snprintf(line, size, "%s (%s; sources in docs/REPORTS.md)", title,
             m.name[0]);
  return st;
}
