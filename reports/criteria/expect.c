/*
 * Built-in expectations (expect.h): the GPU model the documents name, its
 * SKU's embedded data file (read by gcb_sku_parse), and that file's
 * figures turned into typed acceptance criteria (criteria.h), so the
 * built-in checks are judged, reported and rendered exactly as a
 * --criteria file's. The documents are read through their typed models.
 */
#include "reports/criteria/expect.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pcie.h"
#include "reports/document/model.h"

#define MAX_MODELS 8

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

/* The data file whose "models" lists `model` exactly: true and *out
 * filled; false when none does (or *st says why reading one failed). */
static bool sku_find(const char *model, struct gcb_sku *out,
                     struct gcb_err *err, enum gcb_status *st) {
  for (const struct gcb__sku_file *f = gcb__skus; f->name; f++) {
    if ((*st = gcb_sku_parse(f, out, err)) != GCB_OK)
      return false;
    for (size_t i = 0; i < out->nmodels; i++)
      if (strcmp(out->models[i], model) == 0)
        return true;
  }
  return false;
}

/* A figure family: the cases of `bench` whose `fixed` params equal the
 * expectation's, measured at `size_keys[0]` (or, where the case has not
 * that param, the next key: a p2p case's size is "bytes" as gcbench's
 * p2p writes it, "size" in converted and older documents) >= min_size
 * (where the figure reaches its plateau); a check's params are the
 * case's `keys`, its bound a minimum of `metric` in `unit`. */
struct family {
  enum gcb_bench_kind bench;
  const char *unit, *metric; /* "per_rank", "min" */
  double min_size;
  const char *size_keys[3];
  const char *keys[6];
  bool optional; /* no n/a check when the documents have no such case */
};

static const struct family gemm_family = {
    GCB_BENCH_GEMM,           "GFLOP/s", "per_rank", 4096, {"m"},
    {"dtype", "m", "n", "k"}, false};
/* A burn's sustained figure (per rank: its median interval) against the
 * same GEMM peak: a GPU that cannot hold its share of the datasheet under
 * sustained load fails as a slow GEMM does. Only for runs that burned. */
static const struct family burn_family = {
    GCB_BENCH_BURN,           "GFLOP/s", "per_rank", 4096, {"m"},
    {"dtype", "m", "n", "k"}, true};
static const struct family membw_family = {
    GCB_BENCH_MEMBW,     "GB/s", "per_rank", 256.0 * (1 << 20), {"bytes"},
    {"kernel", "bytes"}, false};
static const struct family pcie_family = {
    GCB_BENCH_PCIE, "GB/s",
    "per_rank",     64.0 * (1 << 20),
    {"size"},       {"direction", "memory", "numa", "size"},
    false};
static const struct family p2p_family = {GCB_BENCH_P2P,
                                         "GB/s",
                                         "min",
                                         16.0 * (1 << 20),
                                         {"size", "bytes"},
                                         {"path", "size", "bytes"},
                                         false};

#define MAX_FIXED 3

/* A number param as the documents' number (NAN when it is not one: a
 * string is not converted). */
static double num_param(const struct gcb_model_case *c, const char *key) {
  return gcb_mvalue_get(&c->params, key)->num;
}

/* The key that sizes case c in its family (the first of size_keys it
 * has), or NULL. */
static const char *size_key_of(const struct family *fam,
                               const struct gcb_model_case *c) {
  for (size_t i = 0; fam->size_keys[i]; i++)
    if (!isnan(num_param(c, fam->size_keys[i])))
      return fam->size_keys[i];
  return NULL;
}

/* One check of the expectation: `fixed` params, one bound. */
struct expectation {
  const struct family *fam;
  struct gcb_check_param fixed[MAX_FIXED]; /* strings, up to a NULL key */
  double limit;
  char what[160]; /* "GEMM bf16 per GPU >= 60% of 989 TFLOP/s (dense)" */
};

/* Whether case c is of the family, has every fixed param (a case's NUMA
 * placement, when it has one, must be local) and a size that counts. */
static bool qualifies(const struct expectation *e,
                      const struct gcb_model_case *c) {
  const struct family *fam = e->fam;
  if (c->kind != fam->bench || c->params.type != GCB_MV_OBJECT)
    return false;
  for (size_t i = 0; e->fixed[i].key != NULL; i++)
    if (!gcb_check_param_matches(&e->fixed[i],
                                 gcb_mvalue_get(&c->params, e->fixed[i].key)))
      return false;
  const char *numa = gcb_model_param_str(c, "numa");
  if (numa[0] != '\0' && strcmp(numa, "local") != 0)
    return false;
  const char *key = size_key_of(fam, c);
  bool sized = key != NULL && num_param(c, key) >= fam->min_size;
  if (sized && fam == &gemm_family)
    sized = num_param(c, "n") >= fam->min_size &&
            num_param(c, "k") >= fam->min_size;
  return sized;
}

/* Whether check k asks for exactly the values case c has of the family's
 * keys (a check made for an earlier case of the same params). */
static bool same_params(const struct gcb_criterion *k, const struct family *fam,
                        const struct gcb_model_case *c) {
  size_t n = 0;
  for (size_t i = 0; fam->keys[i]; i++) {
    const struct gcb_mvalue *v = gcb_mvalue_get(&c->params, fam->keys[i]);
    const struct gcb_check_param *p = gcb_check_param(k, fam->keys[i]);
    if (v->type != GCB_MV_INT && v->type != GCB_MV_REAL &&
        v->type != GCB_MV_STRING)
      continue;
    n++;
    if (p == NULL || !gcb_check_param_matches(p, v))
      return false;
  }
  return n == k->nparams;
}

static bool seen(const struct gcb_criteria *cr, const struct family *fam,
                 const struct gcb_model_case *c) {
  for (size_t i = 0; i < cr->nchecks; i++)
    if (strcmp(cr->checks[i].bench, gcb_bench_kinds[fam->bench].name) == 0 &&
        same_params(&cr->checks[i], fam, c))
      return true;
  return false;
}

/* A check named `name` of expectation e, its params to be added. */
static struct gcb_criterion *add_check(struct gcb_criteria *cr,
                                       const struct expectation *e,
                                       const char *name) {
  struct gcb_criterion *k = gcb_criteria_add_check(cr);
  if (k == NULL ||
      (k->bench = gcb_criteria_keep(cr, gcb_bench_kinds[e->fam->bench].name)) ==
          NULL ||
      (k->unit = gcb_criteria_keep(cr, e->fam->unit)) == NULL)
    return NULL;
  gcb_view_copy(k->name, sizeof k->name, name);
  k->bounds[0] = (struct gcb_bound){.metric = gcb_metric_find(e->fam->metric),
                                    .is_min = true,
                                    .limit = e->limit};
  k->nbounds = 1;
  return k;
}

/* The check for case c: its values of the family's keys. */
static bool check_of_case(struct gcb_criteria *cr, const struct expectation *e,
                          const struct gcb_model_case *c) {
  const char *key = size_key_of(e->fam, c);
  char name[128];
  snprintf(name, sizeof name, "%s, %s %.0f", e->what, key, num_param(c, key));
  struct gcb_criterion *k = add_check(cr, e, name);
  for (size_t i = 0; k != NULL && e->fam->keys[i]; i++) {
    const struct gcb_mvalue *v = gcb_mvalue_get(&c->params, e->fam->keys[i]);
    bool num = v->type == GCB_MV_INT || v->type == GCB_MV_REAL;
    /* the criteria take strings and numbers only */
    if ((num || v->type == GCB_MV_STRING) &&
        !gcb_criterion_add_param(cr, k, e->fam->keys[i], v->num,
                                 num ? NULL : v->text))
      return false;
  }
  return k != NULL;
}

/* The check of a figure the run did not measure at a size that counts:
 * its size -1 matches no case, which the built-in evaluation reports as
 * n/a ("not measured"), never a pass or a miss. */
static bool check_not_measured(struct gcb_criteria *cr,
                               const struct expectation *e) {
  char name[192];
  snprintf(name, sizeof name, "%s (not measured at %s >= %.0f)", e->what,
           e->fam->size_keys[0], e->fam->min_size);
  struct gcb_criterion *k = add_check(cr, e, name);
  for (size_t i = 0; k != NULL && e->fixed[i].key != NULL; i++)
    if (!gcb_criterion_add_param(cr, k, e->fixed[i].key, e->fixed[i].num,
                                 e->fixed[i].str))
      return false;
  return k != NULL &&
         gcb_criterion_add_param(cr, k, e->fam->size_keys[0], -1, NULL);
}

/* A check per size the documents measured; if none, one that matches no
 * case (its size -1), which the built-in evaluation reports as n/a. */
static bool add_checks(struct gcb_criteria *cr, const struct expectation *e,
                       const struct gcb_doc *docs, size_t ndocs) {
  size_t before = cr->nchecks;
  for (size_t d = 0; d < ndocs; d++)
    for (size_t i = 0; i < docs[d].model->ncases; i++) {
      const struct gcb_model_case *c = &docs[d].model->cases[i];
      if (qualifies(e, c) && !seen(cr, e->fam, c) && !check_of_case(cr, e, c))
        return false;
    }
  if (cr->nchecks > before || e->fam->optional)
    return true;
  return check_not_measured(cr, e);
}

/* The documents the expectations are checked against. */
struct run {
  struct gcb_criteria *cr;
  const struct gcb_doc *docs;
  size_t ndocs;
};

/* The checks of one expectation: a case of `fam` whose params `fixed`
 * ("key", "value" pairs up to a NULL key) hold reaches `limit`; its
 * wording is printf's of `fmt`. */
__attribute__((format(printf, 5, 6))) static bool
expect(const struct run *r, const struct family *fam, const char *const *fixed,
       double limit, const char *fmt, ...) {
  struct expectation e = {.fam = fam, .limit = limit};
  for (size_t i = 0; fixed[2 * i] != NULL; i++)
    e.fixed[i] =
        (struct gcb_check_param){.key = fixed[2 * i], .str = fixed[2 * i + 1]};
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e.what, sizeof e.what, fmt, ap);
  va_end(ap);
  return add_checks(r->cr, &e, r->docs, r->ndocs);
}

/* The SKU's figures as expectations: dense GEMM per dtype (and the burn's
 * sustained GEMM against the same peak), memory triad, pinned PCIe copies
 * each way, NVLink copies per pair. */
static bool sku_checks(const struct run *r, const struct gcb_sku *sku) {
  double f = sku->frac_gemm;
  bool ok = true;
  for (int burn = 0; burn < 2; burn++)
    for (size_t i = 0; ok && i < sku->ngemm; i++) {
      const struct gcb_sku_gemm *g = &sku->gemm[i];
      ok = expect(r, burn ? &burn_family : &gemm_family,
                  (const char *[]){"dtype", g->dtype, NULL},
                  g->peak_tflops * 1e3 * f,
                  "%s %s per GPU >= %.0f%% of %g TFLOP/s (dense peak)",
                  burn ? "burn-in sustained GEMM" : "GEMM", g->dtype, f * 100,
                  g->peak_tflops);
    }
  if (ok && sku->has_membw)
    ok = expect(r, &membw_family, (const char *[]){"kernel", "triad", NULL},
                sku->membw_peak_gbs * sku->frac_membw,
                "memory triad per GPU >= %.0f%% of %g GB/s (peak)",
                sku->frac_membw * 100, sku->membw_peak_gbs);
  int gen = (int)sku->pcie_gen, width = (int)sku->pcie_width;
  double pcie = gcb_pcie_link_gbps(gen, width);
  static const char *const dirs[] = {"h2d", "d2h"};
  for (size_t i = 0; ok && sku->has_pcie && i < 2; i++)
    ok =
        expect(r, &pcie_family,
               (const char *[]){"direction", dirs[i], "memory", "pinned", NULL},
               pcie * sku->frac_pcie,
               "PCIe gen%d x%d %s, pinned, >= %.0f%% of %.1f GB/s", gen, width,
               dirs[i], sku->frac_pcie * 100, pcie);
  char path[16];
  /* The datasheets give both directions together; a copy moves one. */
  double one_way = sku->nvlink_total_gbs / 2;
  snprintf(path, sizeof path, "NV%lld", sku->nvlink_links);
  if (ok && sku->has_nvlink)
    ok = expect(r, &p2p_family, (const char *[]){"path", path, NULL},
                one_way * sku->frac_nvlink,
                "NVLink %s per pair >= %.0f%% of %g GB/s each way", path,
                sku->frac_nvlink * 100, one_way);
  return ok;
}

enum gcb_status gcb_expect_builtin(const struct gcb_doc *docs, size_t ndocs,
                                   struct gcb_criteria **out, char *line,
                                   size_t size, struct gcb_err *err) {
  struct models m = {0};
  enum gcb_status st = GCB_OK;
  bool host = ndocs > 0; /* every run on the host backend */
  *out = NULL;
  for (size_t d = 0; d < ndocs; d++) {
    models_of(docs[d].model, &m);
    host = host && strcmp(docs[d].model->run.backend, "host") == 0;
  }
  if (m.n == 0) {
    snprintf(line, size,
             "no built-in expectation applies: the run names no "
             "GPU model%s",
             host ? " (host backend)" : "");
    return GCB_OK;
  }
  if (m.n > 1) {
    snprintf(line, size,
             "no built-in expectation applies: the run mixes GPU models "
             "(%s, %s%s)",
             m.name[0], m.name[1], m.n > 2 || m.more ? ", ..." : "");
    return GCB_OK;
  }
  struct gcb_sku sku;
  if (!sku_find(m.name[0], &sku, err, &st)) {
    snprintf(line, size, "no built-in expectation for %s", m.name[0]);
    return st;
  }
  char title[96];
  snprintf(title, sizeof title, "%s expectations, built in", sku.sku);
  struct gcb_criteria *cr = gcb_criteria_new("built-in expectations");
  bool ok = cr != NULL && (cr->name = gcb_criteria_keep(cr, title)) != NULL &&
            sku_checks(&(struct run){cr, docs, ndocs}, &sku);
  if (!ok) {
    gcb_criteria_free(cr);
    return gcb_err_set(err, GCB_ENOMEM, "built-in expectations: out of memory");
  }
  cr->builtin = true;
  *out = cr;
  snprintf(line, size, "%s (%s; sources in docs/REPORTS.md)", title, m.name[0]);
  return GCB_OK;
}
