/*
 * libFuzzer target: everything `report` and `compare` do after reading,
 * over a fuzzed results document: analysis, the acceptance criteria of
 * tests/data/criteria-h200.json, the comparison with a baseline, the
 * diagnosis, the table model, every renderer (into memory), the terminal
 * summary and compare's table. The input up to its first NUL byte is the
 * new run; what follows, when there is some, the baseline (else the new
 * run is its own baseline). A document the reader refuses ends there (that
 * is fuzz_results's part). The contract: no crash, leak or undefined
 * behaviour, every step GCB_OK (nothing a valid document holds may fail
 * the report), and outputs their readers take: findings.json parses,
 * junit.xml is well-formed XML (expat), results.csv has balanced quotes,
 * metrics.prom ends with "# EOF", and every output is valid UTF-8.
 * OpenMetrics has no C parser to link: with GCB_FUZZ_PROM_DIR set, each
 * metrics.prom of a new shape (its text without digits: the families,
 * labels and keys, not the figures) is written there, and scripts/fuzz
 * hands a sample of them to the real consumers (tests/outputs/
 * check-metrics: promtool, prometheus_client, Prometheus' own parser)
 * after running the corpus the fuzzer grew.
 */
#define _GNU_SOURCE /* open_memstream */
#if GCB_FUZZ_HAVE_EXPAT
#include <expat.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/report_text.h"
#include "fuzz/contract.h"
#include "reports/reports.h"

#ifndef GCB_FUZZ_CRITERIA
#define GCB_FUZZ_CRITERIA "tests/data/criteria-h200.json"
#endif

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static _Noreturn void broken(const char *what, const char *out, size_t len) {
  fprintf(stderr, "contract broken: %s\n--- output (%zu bytes) ---\n%.*s\n",
          what, len, (int)(len > 4000 ? 4000 : len), out);
  abort();
}

static bool utf8_ok(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    unsigned c = s[i], lo = 0x80, hi = 0xbf;
    size_t k;
    if (c < 0x80) {
      i++;
      continue;
    }
    if (c >= 0xc2 && c <= 0xdf)
      k = 1;
    else if (c >= 0xe0 && c <= 0xef)
      k = 2, lo = c == 0xe0 ? 0xa0 : lo, hi = c == 0xed ? 0x9f : hi;
    else if (c >= 0xf0 && c <= 0xf4)
      k = 3, lo = c == 0xf0 ? 0x90 : lo, hi = c == 0xf4 ? 0x8f : hi;
    else
      return false;
    if (n - i <= k || s[i + 1] < lo || s[i + 1] > hi)
      return false;
    for (size_t j = 2; j <= k; j++)
      if ((s[i + j] & 0xc0) != 0x80)
        return false;
    i += k + 1;
  }
  return true;
}

/* RFC 4180: quotes come in pairs within a quoted field. */
static bool csv_quotes_balanced(const char *s, size_t n) {
  bool quoted = false;
  for (size_t i = 0; i < n; i++)
    if (s[i] == '"')
      quoted = !quoted;
  return !quoted;
}

/* metrics.prom into GCB_FUZZ_PROM_DIR, named by its shape (FNV-1a over
 * the text without digits), so that a shape is kept once. */
static void keep_prom(const char *out, size_t len) {
  const char *dir = getenv("GCB_FUZZ_PROM_DIR");
  if (dir == NULL || dir[0] == '\0')
    return;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; i++)
    if (out[i] < '0' || out[i] > '9')
      h = (h ^ (unsigned char)out[i]) * 1099511628211ull;
  char path[4096];
  snprintf(path, sizeof path, "%s/%016llx.prom", dir, (unsigned long long)h);
  FILE *f = fopen(path, "wx");
  if (f == NULL)
    return; /* this shape is kept already */
  fwrite(out, 1, len, f);
  fclose(f);
}

static void check_output(const char *name, const char *out, size_t len) {
  if (!utf8_ok((const unsigned char *)out, len))
    broken("output is not valid UTF-8", out, len);
  if (strcmp(name, "findings") == 0) {
    json_error_t je;
    json_t *j = json_loadb(out, len, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(j))
      broken("findings.json is not a JSON object", out, len);
    json_decref(j);
#if GCB_FUZZ_HAVE_EXPAT
  } else if (strcmp(name, "junit") == 0) {
    XML_Parser p = XML_ParserCreate("UTF-8");
    bool ok = p != NULL && XML_Parse(p, out, (int)len, 1) == XML_STATUS_OK;
    if (p != NULL)
      XML_ParserFree(p);
    if (!ok)
      broken("junit.xml is not well-formed XML", out, len);
#endif
  } else if (strcmp(name, "csv") == 0) {
    if (!csv_quotes_balanced(out, len))
      broken("results.csv has an unbalanced quote", out, len);
  } else if (strcmp(name, "openmetrics") == 0) {
    if (len < 6 || memcmp(out + len - 6, "# EOF\n", 6) != 0)
      broken("metrics.prom does not end with # EOF", out, len);
    keep_prom(out, len);
  }
}

/* One renderer (or the terminal summary, r NULL) into memory. */
static void render_one(const struct gcb_renderer *r,
                       const struct gcb_report *rep) {
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  if (f == NULL)
    return;
  struct gcb_err err = {0};
  enum gcb_status st = GCB_OK;
  if (r != NULL)
    st = r->render(f, rep, &err);
  else {
    gcb__print_report_summary(f, rep, "out", 0);
    gcb__print_report_summary(f, rep, "out", 60); /* wrapped */
  }
  fclose(f);
  if (st != GCB_OK)
    gcb_fuzz_fail(&err);
  check_output(r != NULL ? r->name : "summary", out, len);
  free(out);
}

static struct gcb_results *parse(const unsigned char *data, size_t size,
                                 const char *name) {
  struct gcb_results *res = NULL;
  struct gcb_err err = {0};
  if (gcb_results_parse((const char *)data, size, name, &res, &err) != GCB_OK)
    return NULL;
  return res;
}

static const struct gcb_criteria *criteria(void) {
  static struct gcb_criteria *cr;
  struct gcb_err err = {0};
  if (cr == NULL && gcb_criteria_read(GCB_FUZZ_CRITERIA, &cr, &err) != GCB_OK) {
    fprintf(stderr, "fuzz_reports: %s\n", err.msg);
    abort();
  }
  return cr;
}

struct run {
  struct gcb_doc doc, base;
  struct gcb_thresholds th;
  struct gcb_findings findings;
  struct gcb_check_result *checks;
  struct gcb_comparison cmp;
  struct gcb_diagnosis diag;
  struct gcb_rtables tables;
};

static void report(struct run *o, const struct gcb_criteria *cr) {
  struct gcb_err err = {0};
  o->th = cr->thresholds;
  o->checks = calloc(cr->nchecks + 1, sizeof *o->checks);
  enum gcb_status st = o->checks == NULL ? GCB_ENOMEM : GCB_OK;
  if (st == GCB_OK)
    st = gcb_analyze(&o->doc, 1, &o->th, &o->findings, &err);
  if (st == GCB_OK)
    st = gcb_criteria_evaluate(cr, &o->doc, 1, o->checks, &o->findings, &err);
  if (st == GCB_OK)
    st = gcb_compare(&o->base, &o->doc, &o->th, &o->cmp, &err);
  if (st == GCB_OK)
    st = gcb_compare_findings(&o->cmp, 0, &o->findings, &err);
  gcb_findings_sort(&o->findings);
  if (st == GCB_OK)
    st = gcb_diagnose(&o->doc, 1, &o->findings, &o->th, &o->diag, &err);
  struct gcb_report rep = {.docs = &o->doc,
                           .ndocs = 1,
                           .findings = &o->findings,
                           .criteria = cr,
                           .checks = o->checks,
                           .comparison = &o->cmp,
                           .baseline = o->base.name,
                           .thresholds = &o->th,
                           .diagnosis = &o->diag};
  if (st == GCB_OK)
    st = gcb_report_tables(&rep, &o->tables, &err);
  if (st != GCB_OK)
    gcb_fuzz_fail(&err);
  rep.tables = &o->tables;
  for (size_t i = 0; gcb_renderers[i] != NULL; i++)
    render_one(gcb_renderers[i], &rep);
  render_one(NULL, &rep);
  struct gcb_run_check rc;
  char why[256];
  gcb_compare_run_check(&o->cmp, &o->doc, &rc);
  gcb_compare_run_why(&rc, why, sizeof why);
  FILE *null = fopen("/dev/null", "w");
  if (null != NULL &&
      gcb__print_comparison(null, &o->doc, &o->cmp, o->base.name, &o->th,
                            &err) != GCB_OK)
    gcb_fuzz_fail(&err);
  if (null != NULL)
    fclose(null);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  const struct gcb_criteria *cr = criteria();
  const unsigned char *nul = memchr(data, '\0', size);
  size_t first = nul != NULL ? (size_t)(nul - data) : size;
  struct gcb_results *res = parse(data, first, "new.json"), *base = NULL;
  if (res != NULL && nul != NULL && first + 1 < size)
    base = parse(nul + 1, size - first - 1, "old.json");
  if (res == NULL || (nul != NULL && first + 1 < size && base == NULL))
    goto done;
  struct run o = {0};
  struct gcb_model *models[2] = {NULL, NULL};
  struct gcb_err err = {0};
  if (gcb_model_from_results(res, "new.json", &models[0], &err) != GCB_OK ||
      (base != NULL &&
       gcb_model_from_results(base, "old.json", &models[1], &err) != GCB_OK))
    gcb_fuzz_fail(&err);
  o.doc = (struct gcb_doc){
      .name = "new.json", .root = gcb_results_json(res), .model = models[0]};
  o.base = base != NULL ? (struct gcb_doc){.name = "old.json",
                                           .root = gcb_results_json(base),
                                           .model = models[1]}
                        : o.doc;
  report(&o, cr);
  gcb_model_free(models[0]);
  gcb_model_free(models[1]);
  gcb_rtables_free(&o.tables);
  gcb_findings_free(&o.findings);
  gcb_diagnosis_free(&o.diag);
  free(o.checks);
  gcb_comparison_free(&o.cmp);
done:
  gcb_results_free(res);
  gcb_results_free(base);
  return 0;
}
