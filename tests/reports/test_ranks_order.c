/*
 * Tests for the order a results document is kept in once read
 * (reports/document/ranks.h, gcb__ranks_order_document) and the lookups
 * that rely on it (the typed model's gcb_model_col_find, gcb_model_place,
 * gcb_model_node and gcb_model_rank over it): a
 * 16,384-rank document whose ranks[], nodes[] and per-rank columns are
 * shuffled reads back as the ordered one, every lookup finds its rank,
 * and ranks that are missing or given twice are looked up as before. The
 * time it takes is scripts/perf's (perf/ranks-order), not a unit test's.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/model.h"
#include "reports/document/ranks.h"
#include "reports/document/results.h"
#include "reports/document/view.h"
#include "tests/reports/report_fixture.h"

#define NRANKS 16384
#define PER_NODE 8

/* A run of n ranks (at most NRANKS), PER_NODE to a node, with one gemm
 * case whose rank r took 1 + r / 2^20 seconds and had r wrong values (each
 * column's value says its rank). */
static struct gcb_results *document(int n) {
  static struct gcb_identity ids[NRANKS];
  static struct gcb_rank_result ranks[NRANKS];
  for (int r = 0; r < n; r++) {
    ids[r] = (struct gcb_identity){.rank = r,
                                   .node = r / PER_NODE,
                                   .local_rank = r % PER_NODE,
                                   .pid = 1000 + r,
                                   .bound_pus = 1,
                                   .cpu_threads = 1};
    snprintf(ids[r].hostname, sizeof ids[r].hostname, "n%d", r / PER_NODE);
    snprintf(ids[r].cpu_binding, sizeof ids[r].cpu_binding, "%d", r % PER_NODE);
    ids[r].device.index = r % PER_NODE;
    snprintf(ids[r].device.bus_id, sizeof ids[r].device.bus_id,
             "0000:%02x:00.0", 0x10 + r % PER_NODE);
    double t = 1 + r / 1048576.0;
    ranks[r] = (struct gcb_rank_result){
        .rank = r,
        .time_s = t,
        .seconds =
            {.n = 5, .min = t, .median = t, .mean = t, .max = t, .p99 = t},
        .check = {.checked = true, .samples = 4, .wrong = (uint64_t)r}};
  }
  char *argv[] = {"gcbench", "gemm"};
  struct gcb_run_info run = {.command = "gemm",
                             .argc = 2,
                             .argv = argv,
                             .run_id = "r1",
                             .backend = "host",
                             .backend_reason = "test",
                             .ranks = n,
                             .nodes = (n + PER_NODE - 1) / PER_NODE,
                             .mpi = "MPICH",
                             .hwloc = "2.9.0",
                             .backend_versions = "OpenBLAS"};
  struct gcb_record rec = {
      .bench = "gemm",
      .backend = "host",
      .label = "gemm fp64 m=64",
      .work_per_op = 2.0 * 64 * 64 * 64,
      .figure = {.unit = "GFLOP/s", .scale = 1e9, .counted = "2mnk flops"},
      .iterations = 5,
      .nranks = n,
      .ranks = ranks};
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  cr_assert_eq(gcb_results_set_header(r, &run, ids, NULL, 0, &err), GCB_OK,
               "%s", err.msg);
  cr_assert_eq(gcb_results_add_record(r, &rec, &err), GCB_OK, "%s", err.msg);
  return r;
}

/* A fixed shuffle of 0..n-1 (Fisher-Yates over an LCG). */
static size_t *shuffle(size_t n) {
  size_t *p = malloc(n * sizeof *p);
  cr_assert_not_null(p);
  unsigned long long x = 12345;
  for (size_t i = 0; i < n; i++)
    p[i] = i;
  for (size_t i = n - 1; i > 0; i--) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    size_t j = (size_t)((x >> 33) % (i + 1));
    size_t t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  return p;
}

/* The n entries of a that perm names, in its order. */
static json_t *permuted(const json_t *a, const size_t *perm, size_t n) {
  json_t *out = json_array();
  for (size_t i = 0; i < n; i++)
    json_array_append(out, json_array_get(a, perm[i]));
  return out;
}

/* Every array of per_rank, and of its groups, as the n entries perm
 * names. */
static void shuffle_columns(json_t *per_rank, const size_t *perm, size_t n) {
  const char *k, *k2;
  json_t *v, *w;
  void *t, *t2;
  json_object_foreach_safe(per_rank, t, k, v) {
    if (json_is_array(v))
      json_object_set_new(per_rank, k, permuted(v, perm, n));
    else
      json_object_foreach_safe(v, t2, k2, w) if (json_is_array(w))
          json_object_set_new(v, k2, permuted(w, perm, n));
  }
}

static struct gcb_results *parse_json(const json_t *doc, const char *name) {
  char *text = json_dumps(doc, JSON_COMPACT);
  cr_assert_not_null(text);
  struct gcb_results *out = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_results_parse(text, strlen(text), name, &out, &err), GCB_OK,
               "%s", err.msg);
  free(text);
  return out;
}

Test(ranks_order, a_shuffled_16384_rank_document_reads_as_the_ordered_one) {
  struct gcb_results *built = document(NRANKS);
  struct gcb_results *ordered = parse_json(gcb_results_json(built), "o.json");
  json_t *doc = json_deep_copy(gcb_results_json(built));
  size_t *perm = shuffle(NRANKS), *node_perm = shuffle(NRANKS / PER_NODE);
  json_object_set_new(doc, "ranks",
                      permuted(json_object_get(doc, "ranks"), perm, NRANKS));
  json_object_set_new(
      doc, "nodes",
      permuted(json_object_get(doc, "nodes"), node_perm, NRANKS / PER_NODE));
  json_t *c = json_array_get(json_object_get(doc, "cases"), 0);
  shuffle_columns(json_object_get(c, "per_rank"), perm, NRANKS);
  cr_assert_eq(json_integer_value(json_array_get(
                   json_object_get(json_object_get(c, "per_rank"), "rank"), 0)),
               (json_int_t)perm[0], "the test document is shuffled");
  struct gcb_results *back = parse_json(doc, "s.json");
  const json_t *root = gcb_results_json(back);
  cr_expect(json_equal(root, gcb_results_json(ordered)),
            "read back in rank order");
  const struct gcb_ranks pr = *gcb_results_ranks(back, 0);
  cr_expect(
      gcb__ranks_equal_json(
          &pr, json_object_get(
                   json_array_get(
                       json_object_get(gcb_results_json(built), "cases"), 0),
                   "per_rank")),
      "every column with its rank");
  cr_assert_eq(pr.n, NRANKS);
  struct gcb_model *m = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_model_from_results(back, "s.json", &m, &err), GCB_OK, "%s",
               err.msg);
  int bad = 0;
  for (long long r = 0; r < NRANKS; r++) {
    long long i = gcb_model_col_find(&m->cases[0], r);
    bad += i != r ||
           gcb_ranks_int(&pr, GCB_RC_WRONG, (size_t)(i >= 0 ? i : 0), -1) != r;
    struct gcb_place place;
    gcb_model_place(m, r, &place);
    bad += place.node != r / PER_NODE || place.gpu != r % PER_NODE;
    const struct gcb_model_node *node = gcb_model_node(m, r / PER_NODE);
    bad += node == NULL || node->index != r / PER_NODE;
  }
  cr_expect_eq(bad, 0, "%d lookups went wrong", bad);
  cr_expect_eq(gcb_model_col_find(&m->cases[0], NRANKS), -1);
  cr_expect_null(gcb_model_rank(m, NRANKS));
  gcb_model_free(m);
  free(perm);
  free(node_perm);
  json_decref(doc);
  gcb_results_free(back);
  gcb_results_free(ordered);
  gcb_results_free(built);
}

/* A case of ranks 0, 2, 4, ... given out of order: the missing ones are
 * not found, the others where they now are. The same case with rank 6
 * twice is refused, naming it (consistency.c): which of the two a report
 * would judge is not the document's to leave open. */
Test(ranks_order, missing_ranks_are_not_found_and_a_repeated_one_is_refused) {
  struct gcb_results *built = document(16);
  json_t *doc = json_deep_copy(gcb_results_json(built));
  json_t *pr_json = json_object_get(
      json_array_get(json_object_get(doc, "cases"), 0), "per_rank");
  json_t *repeated = json_deep_copy(doc);
  static const size_t keep[] = {8, 0, 6, 4, 2}, twice[] = {8, 0, 6, 4, 2, 6};
  shuffle_columns(pr_json, keep, 5);
  shuffle_columns(
      json_object_get(json_array_get(json_object_get(repeated, "cases"), 0),
                      "per_rank"),
      twice, 6);
  fx_resummarize(json_array_get(json_object_get(doc, "cases"), 0));
  fx_resummarize(json_array_get(json_object_get(repeated, "cases"), 0));
  struct gcb_results *back = parse_json(doc, "gaps.json");
  cr_assert_eq(gcb_results_ranks(back, 0)->n, 5);
  struct gcb_model *m = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_model_from_results(back, "gaps.json", &m, &err), GCB_OK,
               "%s", err.msg);
  static const long long want[][2] = {{0, 0}, {1, -1}, {2, 1}, {3, -1},
                                      {4, 2}, {6, 3},  {8, 4}, {9, -1}};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    cr_expect_eq(gcb_model_col_find(&m->cases[0], want[i][0]), want[i][1],
                 "rank %lld", want[i][0]);
  char *text = json_dumps(repeated, JSON_COMPACT);
  struct gcb_results *refused = NULL;
  cr_expect_eq(
      gcb_results_parse(text, strlen(text), "twice.json", &refused, &err),
      GCB_EINPUT);
  cr_expect(strstr(err.msg, "cases[0].per_rank.rank: rank 6 has two entries"),
            "%s", err.msg);
  free(text);
  gcb_model_free(m);
  json_decref(repeated);
  json_decref(doc);
  gcb_results_free(back);
  gcb_results_free(built);
}
