/*
 * The kinds tables (kinds.h): every built-in row is whole and uniquely
 * named, the benchmark rows agree with what the rules apply to, and a
 * finding kind added as one descriptor row and one rule function (a row
 * of this test's own, which the production table does not hold) is found,
 * grouped at its component, worded and rendered with no other change.
 */
#include <stdio.h>
#include <string.h>

#include "bench/cli/report_text.h"
#include "reports/analysis/analyze_rules.h"
#include "reports/analysis/diagnose.h"
#include "reports/analysis/kinds.h"
#include "reports/render/render.h"
#include "tests/reports/report_fixture.h"

Test(kinds, every_built_in_row_is_whole_and_uniquely_named) {
  for (size_t k = 0; k < GCB_KIND_COUNT; k++) {
    const struct gcb_kind *row = &gcb_kinds[k];
    cr_assert_not_null(row->name, "row %zu has no name", k);
    cr_expect_eq(row->id, (enum gcb_kind_id)k, "%s: id is its index",
                 row->name);
    cr_expect_neq(row->group, GCB_GROUP_UNSET, "%s: placed somewhere",
                  row->name);
    cr_expect((row->tally_one == NULL) == (row->tally_many == NULL), "%s",
              row->name);
    for (size_t j = 0; j < k; j++)
      cr_expect_str_neq(gcb_kinds[j].name, row->name, "unique names");
    /* every threshold it names is a row of the thresholds table */
    char list[160];
    snprintf(list, sizeof list, "%s",
             row->thresholds != NULL ? row->thresholds : "");
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save))
      cr_expect_not_null(gcb_threshold_find(t), "%s: threshold %s", row->name,
                         t);
  }
}

Test(kinds, every_bench_row_is_found_by_its_name_and_unknown_is_unknown) {
  for (int b = GCB_BENCH_UNKNOWN + 1; b < GCB_BENCH_COUNT; b++) {
    const struct gcb_bench_desc *d =
        gcb_bench_kind_desc((enum gcb_bench_kind)b);
    cr_expect_eq(d->id, (enum gcb_bench_kind)b);
    cr_expect_eq(gcb_bench_kind_find(d->name), (enum gcb_bench_kind)b, "%s",
                 d->name);
    cr_expect_eq(d->per_device, d->slow_hint != NULL,
                 "%s: a per-device bench says what to check", d->name);
    /* the slow-rank rule runs on exactly the per-device benches */
    cr_expect_eq(gcb_kind_applies(GCB_KIND(SLOW_RANK), d->id), d->per_device,
                 "%s", d->name);
  }
  cr_expect_eq(gcb_bench_kind_find("burn-in-someday"), GCB_BENCH_UNKNOWN);
  cr_expect(gcb_bench_kinds[gcb_bench_kind_find("gemm")].per_device);
  cr_expect(!gcb_bench_kinds[gcb_bench_kind_find("coll")].per_device);
  cr_expect(!gcb_bench_kinds[gcb_bench_kind_find("no-such")].per_device);
}

/* ---- a kind of the test's own ---------------------------------------------
 */

/* The rule: rank 1's GPU of every gemm case runs hot. */
static enum gcb_status rule_too_hot(const struct gcb__rule_ctx *cx) {
  const struct gcb_model *m = cx->doc->model;
  for (size_t i = 0; i < m->ncases; i++) {
    const struct gcb_model_case *c = &m->cases[i];
    if (!gcb_kind_applies(cx->kind, c->kind))
      continue;
    struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_WARN);
    if (f == NULL)
      return GCB_ENOMEM;
    gcb_finding_at_model_rank(f, cx->index, m, 1);
    gcb_model_case_title(c, f->where.subject, sizeof f->where.subject);
    f->bench_case = c;
    f->measured = 97;
    f->expected = 85;
    snprintf(f->unit, sizeof f->unit, "C");
    gcb_finding_explain(f, "rank 1 ran its GPU at 97 C, above 85 C");
    gcb__rule_suggest(f);
  }
  return GCB_OK;
}

static const struct gcb_kind too_hot = {
    .id = GCB_KIND_EXTRA,
    .name = "gpu-too-hot",
    .family = GCB_FAM_HEALTH,
    .rule = {rule_too_hot},
    .thresholds = "",
    .benches = GCB_BENCH_BIT(GCB_BENCH_GEMM),
    .group = GCB_GROUP_GPU,
    .say = GCB_SAY_EXPLANATION,
    .suggestion = "check the GPU's cooling (nvidia-smi -q -d TEMPERATURE)",
};

static char *render(const struct gcb_report *rep,
                    enum gcb_status (*fn)(FILE *, const struct gcb_report *,
                                          struct gcb_err *)) {
  char *buf = NULL;
  size_t len = 0;
  struct gcb_err err = {0};
  FILE *m = open_memstream(&buf, &len);
  cr_assert_not_null(m);
  cr_expect_eq(fn(m, rep, &err), GCB_OK, "%s", err.msg);
  fclose(m);
  return buf;
}

Test(kinds, a_kind_added_as_one_row_and_one_rule_is_grouped_worded_rendered) {
  json_t *doc = fx_doc(4, 1, 8, "Test CPU");
  const double figs[] = {1000, 1001, 1002, 1003};
  fx_add_case(doc, fx_case("gemm", "fp32 1024", "{\"dtype\": \"fp32\"}",
                           "GFLOP/s", figs, 4, 0.005, NULL));
  fx_add_case(doc, fx_case("membw", "copy", "{\"kernel\": \"copy\"}", "GB/s",
                           figs, 4, 0.005, NULL));
  fx_check_valid(doc);
  struct gcb_doc docs[] = {fx_doc_of("run.json", doc)};
  struct gcb_thresholds t;
  struct gcb_err err = {0};
  struct gcb_findings f = {0};
  struct gcb_diagnosis d = {0};
  gcb_thresholds_default(&t);
  cr_assert_eq(gcb_analyze(docs, 1, &t, &f, &err), GCB_OK, "%s", err.msg);
  size_t before = f.n;
  cr_assert_eq(gcb_analyze_kinds(&too_hot, 1, docs, 1, &t, &f, &err), GCB_OK,
               "%s", err.msg);
  cr_assert_eq(f.n, before + 1, "one finding: its rule applies to gemm only");
  const struct gcb_finding *hot = &f.items[before];
  cr_expect_eq(hot->kind, &too_hot);
  cr_expect_str_eq(hot->suggestion, too_hot.suggestion);
  gcb_findings_sort(&f);
  cr_assert_eq(gcb_diagnose(docs, 1, &f, &t, &d, &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(d.unexplained, 0);
  const struct gcb_root_cause *rc = NULL;
  for (size_t i = 0; i < d.n; i++)
    if (d.items[i].families >> GCB_FAM_HEALTH & 1)
      rc = &d.items[i];
  cr_assert_not_null(rc, "a root cause of the kind's family (%zu)", d.n);
  /* grouped: at rank 1's GPU; worded: its sentence less "rank 1" */
  cr_expect_eq(rc->comp.kind, GCB_COMP_GPU);
  cr_expect_eq(rc->comp.gpu, 1);
  cr_expect_eq(rc->severity, GCB_SEV_WARN);
  cr_expect_str_eq(rc->summary, "ran its GPU at 97 C, above 85 C");
  cr_expect_str_eq(rc->suggestion, too_hot.suggestion);
  /* rendered: the verdict names it, findings.json carries its name */
  struct gcb_report rep = {.docs = docs,
                           .ndocs = 1,
                           .findings = &f,
                           .thresholds = &t,
                           .diagnosis = &d};
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  cr_assert_not_null(m);
  gcb__print_report_summary(m, &rep, "out", 0);
  fclose(m);
  cr_expect_not_null(strstr(buf, "ran its GPU at 97 C, above 85 C"), "%s", buf);
  free(buf);
  char *json = render(&rep, gcb_render_findings.render);
  cr_expect_not_null(strstr(json, "\"kind\": \"gpu-too-hot\""), "%s", json);
  free(json);
  gcb_diagnosis_free(&d);
  gcb_findings_free(&f);
  fx_doc_free(&docs[0]);
  json_decref(doc);
}

/* A 4-rank gemm document analysed with kind k alone (one finding) and
 * diagnosed. */
struct one_kind {
  json_t *doc;
  struct gcb_doc docs[1];
  struct gcb_findings f;
  struct gcb_diagnosis d;
};

static void diagnose_one_kind(const struct gcb_kind *k, struct one_kind *x) {
  *x = (struct one_kind){.doc = fx_doc(4, 1, 8, "Test CPU")};
  const double figs[] = {1000, 1001, 1002, 1003};
  fx_add_case(x->doc, fx_case("gemm", "fp32 1024", "{\"dtype\": \"fp32\"}",
                              "GFLOP/s", figs, 4, 0.005, NULL));
  x->docs[0] = fx_doc_of("run.json", x->doc);
  struct gcb_thresholds t;
  struct gcb_err err = {0};
  gcb_thresholds_default(&t);
  cr_assert_eq(gcb_analyze_kinds(k, 1, x->docs, 1, &t, &x->f, &err), GCB_OK);
  cr_assert_eq(x->f.n, 1);
  cr_assert_eq(gcb_diagnose(x->docs, 1, &x->f, &t, &x->d, &err), GCB_OK, "%s",
               err.msg);
}

static void one_kind_free(struct one_kind *x) {
  gcb_diagnosis_free(&x->d);
  gcb_findings_free(&x->f);
  fx_doc_free(&x->docs[0]);
  json_decref(x->doc);
}

/* A row that names no grouping is not silently at the run: the diagnosis
 * places its findings there and counts them as unexplained. */
Test(kinds, a_row_without_a_grouping_is_counted_as_unexplained) {
  static const struct gcb_kind ungrouped = {
      .id = GCB_KIND_EXTRA,
      .name = "ungrouped",
      .family = GCB_FAM_HEALTH,
      .rule = {rule_too_hot},
      .thresholds = "",
  };
  struct one_kind x;
  diagnose_one_kind(&ungrouped, &x);
  cr_expect_eq(x.d.unexplained, 1);
  cr_assert_eq(x.d.n, 1);
  cr_expect_eq(x.d.items[0].comp.kind, GCB_COMP_RUN);
  one_kind_free(&x);
}

/* A row grouped at a rank whose family is its case's: the root cause is
 * of the case's family (gemm), not of no family at all. */
Test(kinds, a_rank_row_of_its_case_family_takes_the_case_family) {
  static const struct gcb_kind rank_hot = {
      .id = GCB_KIND_EXTRA,
      .name = "rank-hot",
      .family = GCB_FAM_OF_CASE,
      .rule = {rule_too_hot},
      .thresholds = "",
      .benches = GCB_BENCH_BIT(GCB_BENCH_GEMM),
      .group = GCB_GROUP_RANK,
  };
  struct one_kind x;
  diagnose_one_kind(&rank_hot, &x);
  cr_assert_eq(x.d.n, 1);
  cr_expect_eq(x.d.items[0].families, 1u << GCB_FAM_GEMM, "families %#x",
               x.d.items[0].families);
  one_kind_free(&x);
}

/* A rule that reports a whole node (node 0, no rank). */
static enum gcb_status rule_node_hot(const struct gcb__rule_ctx *cx) {
  struct gcb_finding *f = gcb__rule_push(cx, GCB_SEV_FAIL);
  if (f == NULL)
    return GCB_ENOMEM;
  f->where.node = 0;
  gcb_finding_explain(f, "every GPU of the node ran hot together");
  return GCB_OK;
}

/* The burn-in's node-wide fall is this shape: one row naming the node
 * grouping places it at the node, not at one of its GPUs or the run. */
Test(kinds, a_row_grouped_at_the_node_makes_a_node_root_cause) {
  static const struct gcb_kind node_hot = {
      .id = GCB_KIND_EXTRA,
      .name = "node-hot",
      .family = GCB_FAM_HEALTH,
      .rule = {rule_node_hot},
      .thresholds = "",
      .group = GCB_GROUP_NODE,
  };
  json_t *doc = fx_doc(4, 2, 8, "Test CPU");
  struct gcb_doc docs[] = {fx_doc_of("run.json", doc)};
  struct gcb_thresholds t;
  struct gcb_err err = {0};
  struct gcb_findings f = {0};
  struct gcb_diagnosis d = {0};
  gcb_thresholds_default(&t);
  cr_assert_eq(gcb_analyze_kinds(&node_hot, 1, docs, 1, &t, &f, &err), GCB_OK);
  cr_assert_eq(gcb_diagnose(docs, 1, &f, &t, &d, &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(d.unexplained, 0);
  cr_assert_eq(d.n, 1);
  cr_expect_eq(d.items[0].comp.kind, GCB_COMP_NODE);
  cr_expect_eq(d.items[0].comp.node, 0);
  cr_expect_eq(d.items[0].families, 1u << GCB_FAM_HEALTH);
  cr_expect_eq(strncmp(d.items[0].comp.name, "node ", 5), 0, "%s",
               d.items[0].comp.name);
  gcb_diagnosis_free(&d);
  gcb_findings_free(&f);
  fx_doc_free(&docs[0]);
  json_decref(doc);
}
