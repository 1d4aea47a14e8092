/*
 * The typed model of a results document (reports/document/model.h): on the
 * committed fixtures (schema 1 and 2, gcbench's own and a converted
 * tool's, read with per-rank columns as arrays and compact), every case,
 * every column element and every rank gives the document's own values (as
 * the tree holds them, and as ranks.h and the tree read them); case
 * keys are the known ones; compact columns of doubles are borrowed, not
 * copied; absent optional sections read as their documented fallbacks.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/busid.h"
#include "reports/analysis/diagnose.h"
#include "reports/document/model.h"
#include "reports/document/results_int.h"
#include "reports/interop/interop.h"
#include "tests/reports/report_fixture.h"
#include "topo/topo.h"

/* NAN equals NAN; otherwise bit for bit (the model copies, never
 * recomputes). */
static bool same_num(double a, double b) {
  return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* ---- the document's own values, read plainly from the tree ---- */

/* The entry of array `section` whose `field` is want (a linear scan). */
static const json_t *tree_entry(const json_t *root, const char *section,
                                const char *field, long long want) {
  const json_t *e;
  size_t i;
  json_array_foreach(json_object_get(root, section), i, e) {
    if (gcb_view_int(e, field, -1) == want)
      return e;
  }
  return NULL;
}

static const json_t *tree_topo(const json_t *root, long long node) {
  return gcb_view_obj(tree_entry(root, "nodes", "index", node), "topology");
}

static const json_t *tree_gpu(const json_t *topo, long long index) {
  return index < 0 ? NULL : tree_entry(topo, "gpus", "index", index);
}

/* A cell of a paths matrix between GPUs a and b, by their names in
 * paths.devices. */
static const json_t *tree_pair(const json_t *topo, const char *matrix,
                               long long a, long long b) {
  const json_t *paths = gcb_view_obj(topo, "paths"), *d;
  long long slot[2] = {-1, -1}, want[2] = {a, b};
  size_t i;
  json_array_foreach(json_object_get(paths, "devices"), i, d) {
    for (int k = 0; k < 2; k++) {
      char name[32];
      snprintf(name, sizeof name, "GPU%lld", want[k]);
      if (want[k] >= 0 && slot[k] < 0 && json_is_string(d) &&
          strcmp(json_string_value(d), name) == 0)
        slot[k] = (long long)i;
    }
  }
  if (slot[0] < 0 || slot[1] < 0)
    return NULL;
  return json_array_get(
      json_array_get(json_object_get(paths, matrix), (size_t)slot[0]),
      (size_t)slot[1]);
}

/* Expected GB/s between GPUs a and b; NAN unknown (none, or not above 0). */
static double tree_pair_gbps(const json_t *topo, long long a, long long b) {
  const json_t *v = tree_pair(topo, "expected_gbps", a, b);
  return json_is_number(v) && json_number_value(v) > 0 ? json_number_value(v)
                                                       : NAN;
}

static bool same_busid(const char *a, const char *b) {
  char x[32], y[32];
  return gcb_busid_canon(a, x, sizeof x) && gcb_busid_canon(b, y, sizeof y) &&
         strcmp(x, y) == 0;
}

/* The path class between GPUs a and b ("NV18", "SYS"), or "". */
static const char *tree_pair_class(const json_t *topo, long long a,
                                   long long b) {
  const char *s = json_string_value(tree_pair(topo, "matrix", a, b));
  return s != NULL ? s : "";
}

/* The index of the topology GPU with that bus id (any form), or -1. */
static long long tree_gpu_by_busid(const json_t *topo, const char *busid) {
  const json_t *g;
  size_t i;
  json_array_foreach(json_object_get(topo, "gpus"), i, g) {
    if (same_busid(gcb_view_str(g, "busid"), busid))
      return gcb_view_int(g, "index", (long long)i);
  }
  return -1;
}

/* The topology GPU that is the rank's device: the one with its bus id,
 * else (none recorded) the one with its index; -1 without a device or a
 * topology. *topo: the rank's node's topology. */
static long long tree_rank_gpu(const json_t *root, long long rank,
                               const json_t **topo) {
  const json_t *r = tree_entry(root, "ranks", "rank", rank), *g;
  const json_t *dev = gcb_view_obj(r, "device");
  const char *bus = gcb_view_str(dev, "bus_id");
  size_t i;
  *topo = tree_topo(root, gcb_view_int(r, "node", -1));
  if (dev == NULL)
    return -1;
  json_array_foreach(json_object_get(*topo, "gpus"), i, g) {
    long long index = gcb_view_int(g, "index", -1);
    if (bus[0] != '\0' ? same_busid(gcb_view_str(g, "busid"), bus)
                       : index >= 0 && index == gcb_view_int(dev, "index", -1))
      return index;
  }
  return -1;
}

/* The keys of some cases of the fixtures, as they read: bench, the params
 * sorted (numbers as %.17g), [unit]; the sweep's without size, bytes,
 * count and inplace, then the backend; the title "bench: label". */
static const struct {
  const char *doc;
  size_t i;
  const char *key, *sweep, *title;
} known_keys[] = {
    {"report-fixture.json", 0, "gemm dtype=fp32 k=8192 m=8192 n=8192 [GFLOP/s]",
     "gemm dtype=fp32 k=8192 m=8192 n=8192 [GFLOP/s] cuda",
     "gemm: fp32 8192x8192x8192"},
    {"report-fixture.json", 2, "membw bytes=1073741824 kernel=triad [GB/s]",
     "membw kernel=triad [GB/s] cuda", "membw: triad 1G"},
    {"report-gpu8.json", 0, "gemm dtype=bf16 k=8192 m=8192 n=8192 [GFLOP/s]",
     "gemm dtype=bf16 k=8192 m=8192 n=8192 [GFLOP/s] cuda",
     "gemm: bf16 8192x8192x8192"},
    {"results-valid.json", 0, "gemm alpha=1.5 dtype=fp64 m=1024 [GFLOP/s]",
     "gemm alpha=1.5 dtype=fp64 m=1024 [GFLOP/s] host",
     "gemm: gemm fp64 m=n=k=1024 \"square\""},
    {"results-valid-v2.json", 0, "gemm alpha=1.5 dtype=fp64 m=1024 [GFLOP/s]",
     "gemm alpha=1.5 dtype=fp64 m=1024 [GFLOP/s] host",
     "gemm: gemm fp64 m=n=k=1024 \"square\""},
};

static void expect_keys(const struct gcb_model *m, const char *doc) {
  char b[GCB_VIEW_SWEEP_KEY];
  for (size_t k = 0; k < sizeof known_keys / sizeof *known_keys; k++) {
    if (strcmp(known_keys[k].doc, doc) != 0)
      continue;
    cr_assert_lt(known_keys[k].i, m->ncases, "%s", doc);
    const struct gcb_model_case *mc = &m->cases[known_keys[k].i];
    gcb_model_case_key(mc, b, sizeof b);
    cr_expect_str_eq(b, known_keys[k].key, "%s: case key", doc);
    gcb_model_sweep_key(mc, b, sizeof b);
    cr_expect_str_eq(b, known_keys[k].sweep, "%s: sweep key", doc);
    gcb_model_case_title(mc, b, sizeof b);
    cr_expect_str_eq(b, known_keys[k].title, "%s: title", doc);
    /* a truncated key is cut to fit */
    gcb_model_case_key(mc, b, 12);
    cr_expect_eq(strlen(b), 11, "%s: short key", doc);
    cr_expect(strncmp(b, known_keys[k].key, 11) == 0, "%s: short key", doc);
    /* a cut title ends with "..." that says so */
    gcb_model_case_title(mc, b, 12);
    cr_expect_str_eq(b + 8, "...", "%s: short title %s", doc, b);
    cr_expect(strncmp(b, known_keys[k].title, 8) == 0, "%s: short title", doc);
  }
}

/* A time figure read from the tree, as the model's
 * gcb_model_case_is_latency must say. */
static bool tree_is_latency(const json_t *c) {
  const char *op = fx_param_str(c, "op");
  return strcmp(op, "latency") == 0 || strcmp(op, "barrier") == 0 ||
         strcmp(fx_param_str(c, "direction"), "latency") == 0 ||
         gcb_view_num(gcb_view_obj(c, "params"), "size") == 0;
}

static void expect_params(const json_t *c, const struct gcb_model_case *mc,
                          const char *doc) {
  const char *key;
  const json_t *v;
  size_t n = 0;
  json_object_foreach(json_object_get(c, "params"), key, v) {
    cr_expect(same_num(gcb_model_param_num(mc, key), fx_param_num(c, key)),
              "%s: param %s", doc, key);
    cr_expect_str_eq(gcb_model_param_str(mc, key), fx_param_str(c, key),
                     "%s: param %s", doc, key);
    n++;
  }
  cr_expect_eq(mc->params.n, n, "%s: params", doc);
  static const char *const known[] = {"size",      "m",    "dtype", "op",
                                      "direction", "path", "nope"};
  for (size_t i = 0; i < sizeof known / sizeof *known; i++)
    cr_expect(
        same_num(gcb_model_param_num(mc, known[i]), fx_param_num(c, known[i])),
        "%s: %s", doc, known[i]);
  cr_expect(same_num(mc->size, fx_param_num(c, "size")));
  cr_expect_str_eq(mc->op, fx_param_str(c, "op"));
  cr_expect_eq(gcb_model_case_is_latency(mc), tree_is_latency(c), "%s", doc);
}

static void expect_summary(const json_t *c, const struct gcb_model_case *mc,
                           const char *doc) {
  const json_t *s = gcb_view_obj(c, "summary");
  static const char *const fields[] = {"min",   "median", "mean",
                                       "max",   "stdev",  "imbalance",
                                       "busbw", "algbw",  "late_mean_s"};
  const double got[] = {
      mc->summary.min,   mc->summary.median, mc->summary.mean,
      mc->summary.max,   mc->summary.stdev,  mc->summary.imbalance,
      mc->summary.busbw, mc->summary.algbw,  mc->summary.late_mean_s};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    cr_expect(same_num(got[i], gcb_view_num(s, fields[i])), "%s: summary.%s",
              doc, fields[i]);
  cr_expect_eq(mc->summary.ranks, gcb_view_int(s, "ranks", -1));
  cr_expect(same_num(mc->summary.time_mean,
                     gcb_view_num(gcb_view_obj(s, "time_s"), "mean")));
}

/* Every element of every column, as ranks.h reads it (the columns a
 * document read holds, or those of its tree). */
static void expect_columns(const struct gcb_results *res, size_t index,
                           const json_t *c, const struct gcb_model_case *mc,
                           const char *doc) {
  struct gcb_ranks r;
  const struct gcb_ranks *held = gcb_results_ranks(res, index);
  if (held != NULL)
    r = *held;
  else
    cr_assert_eq(gcb_ranks_of(c, &r), 0);
  cr_assert_eq(mc->ranks.n, r.n, "%s: ranks", doc);
  for (size_t col = 0; col < GCB_RC_COUNT; col++) {
    enum gcb_rank_kind kind = gcb_rank_columns[col].kind;
    bool present = (r.num[col] != NULL || r.str[col] != NULL) && r.n > 0;
    cr_expect_eq(mc->ranks.num[col] != NULL || mc->ranks.str[col] != NULL,
                 present, "%s: column %zu present", doc, col);
    for (size_t i = 0; i < r.n + 1; i++) { /* one past the end too */
      if (kind == GCB_RK_STR_NULLABLE) {
        const char *want = r.str[col] && i < r.n ? r.str[col][i] : NULL;
        cr_expect_str_eq(gcb_model_col_str(mc, col, i), want ? want : "",
                         "%s: %zu/%zu", doc, col, i);
      } else if (kind == GCB_RK_BOOL || kind == GCB_RK_BOOL_NULLABLE) {
        cr_expect_eq(gcb_model_col(mc, col, i) == 1,
                     gcb_ranks_num(&r, col, i) == 1, "%s: %zu/%zu", doc, col,
                     i);
      } else {
        cr_expect(
            same_num(gcb_model_col(mc, col, i), gcb_ranks_num(&r, col, i)),
            "%s: %zu/%zu", doc, col, i);
      }
    }
  }
  for (size_t i = 0; i < r.n; i++)
    cr_expect_eq(gcb_model_col_rank(mc, i, -7),
                 gcb_ranks_int(&r, GCB_RC_RANK, i, -7));
  if (held == NULL)
    gcb_ranks_free(&r);
}

/* Where the rank's ranks[] entry says it runs: its node and host name,
 * its device's index and bus id, its NUMA node (else its device's);
 * -1 and "" where the document does not say. */
static void expect_place(const json_t *root, const struct gcb_model *m,
                         long long rank, const char *doc) {
  const json_t *r = tree_entry(root, "ranks", "rank", rank);
  const json_t *dev = gcb_view_obj(r, "device");
  long long numa = gcb_view_int(r, "numa", -1);
  struct gcb_place b;
  gcb_model_place(m, rank, &b);
  cr_expect_eq(b.node, gcb_view_int(r, "node", -1), "%s: rank %lld node", doc,
               rank);
  cr_expect_eq(b.gpu, gcb_view_int(dev, "index", -1), "%s: rank %lld gpu", doc,
               rank);
  cr_expect_eq(b.numa, numa >= 0 ? numa : gcb_view_int(dev, "numa_node", -1),
               "%s: rank %lld numa", doc, rank);
  cr_expect_str_eq(b.hostname, gcb_view_str(r, "hostname"), "%s: rank %lld",
                   doc, rank);
  cr_expect_str_eq(b.bus_id, gcb_view_str(dev, "bus_id"), "%s: rank %lld", doc,
                   rank);
}

static void expect_nodes(const json_t *root, const struct gcb_model *m,
                         const char *doc) {
  cr_expect_eq(m->nnodes, json_array_size(json_object_get(root, "nodes")));
  for (size_t i = 0; i < m->nnodes; i++) {
    const struct gcb_model_node *n = &m->nodes[i];
    const json_t *topo = tree_topo(root, n->index);
    cr_expect_eq(gcb_model_node(m, n->index), n, "%s: node %zu", doc, i);
    cr_expect_str_eq(
        n->hostname,
        gcb_view_str(tree_entry(root, "nodes", "index", n->index), "hostname"));
    cr_expect_eq(n->has_topology, topo != NULL);
    cr_expect_eq(n->ngpus, json_array_size(json_object_get(topo, "gpus")));
    for (long long g = -1; g <= (long long)n->ngpus; g++) {
      const json_t *tg = tree_gpu(topo, g);
      const struct gcb_model_gpu *mg = gcb_model_gpu(m, n->index, g);
      cr_expect_eq(mg != NULL, tg != NULL, "%s: node %zu gpu %lld", doc, i, g);
      if (mg == NULL || tg == NULL)
        continue;
      cr_expect_str_eq(mg->busid, gcb_view_str(tg, "busid"));
      cr_expect_eq(mg->node, n->index, "a GPU is (node, bus id)");
      double hl = gcb_view_num(gcb_view_obj(tg, "host_link"), "expected_gbps");
      cr_expect(same_num(mg->host_gbps, hl > 0 ? hl : NAN));
      cr_expect_eq(gcb_model_gpu_by_busid(m, n->index, mg->busid), mg);
      cr_expect_eq(tree_gpu_by_busid(topo, mg->busid), mg->index);
    }
  }
}

/* The whole document against the view. */
static void expect_model(const struct gcb_results *res, const char *doc) {
  const json_t *root = gcb_results_json(res);
  struct gcb_model *m = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_model_from_results(res, doc, &m, &err), GCB_OK);
  const json_t *cases = json_object_get(root, "cases"), *c;
  size_t i;
  cr_assert_eq(m->ncases, json_array_size(cases), "%s", doc);
  cr_expect_str_eq(m->run.status,
                   gcb_view_str(gcb_view_obj(root, "run"), "status"));
  cr_expect_str_eq(m->run.backend,
                   gcb_view_str(gcb_view_obj(root, "run"), "backend"));
  cr_expect_str_eq(m->run.schema, gcb_view_str(root, "schema"));
  json_array_foreach(cases, i, c) {
    const struct gcb_model_case *mc = &m->cases[i];
    cr_expect_eq(mc->index, i);
    cr_expect_str_eq(mc->bench, gcb_view_str(c, "bench"), "%s", doc);
    cr_expect_str_eq(mc->unit, gcb_view_str(c, "unit"), "%s", doc);
    cr_expect_str_eq(mc->backend, gcb_view_str(c, "backend"), "%s", doc);
    cr_expect_eq(mc->kind, gcb_bench_kind_find(mc->bench));
    expect_params(c, mc, doc);
    expect_summary(c, mc, doc);
    expect_columns(res, i, c, mc, doc);
  }
  expect_keys(m, doc);
  for (long long r = -1; r <= (long long)m->nranks + 2; r++)
    expect_place(root, m, r, doc);
  expect_nodes(root, m, doc);
  cr_expect_eq(m->nerrors, json_array_size(json_object_get(root, "errors")));
  cr_expect_eq(m->nskips, json_array_size(json_object_get(root, "skipped")));
  gcb_model_free(m);
}

static const char *const fixtures[] = {
    "report-fixture.json",   /* schema 1, several benches */
    "report-baseline.json",  /* schema 1 */
    "report-gpu8.json",      /* schema 1, topology, 8 GPUs */
    "results-valid.json",    /* schema 1 */
    "results-valid-v2.json", /* schema 2 */
};

Test(model, gives_the_views_values_on_every_fixture) {
  for (size_t f = 0; f < sizeof fixtures / sizeof *fixtures; f++) {
    char path[512];
    size_t len;
    snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, fixtures[f]);
    char *text = fx_slurp(path, &len);
    cr_assert_not_null(text, "%s", path);
    struct gcb_results *r = NULL;
    struct gcb_err err = {0};
    cr_assert_eq(gcb_results_parse(text, len, fixtures[f], &r, &err), GCB_OK,
                 "%s", err.msg);
    expect_model(r, fixtures[f]);
    /* the same document with its columns in its tree */
    cr_assert_eq(gcb_results_plain(r, &err), GCB_OK);
    expect_model(r, fixtures[f]);
    gcb_results_free(r);
    free(text);
  }
}

/* The model's columns are the document's own arrays, not copies. */
Test(model, columns_of_a_document_read_are_borrowed) {
  char path[512];
  size_t len = 0;
  snprintf(path, sizeof path, "%s/results-valid-v2.json", GCB_TEST_DATA);
  char *text = fx_slurp(path, &len);
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_results_parse(text, len, "v2.json", &r, &err), GCB_OK, "%s",
               err.msg);
  struct gcb_model *m = NULL;
  cr_assert_eq(gcb_model_from_results(r, "v2.json", &m, &err), GCB_OK);
  const struct gcb_ranks *pr = gcb_results_ranks(r, 0);
  cr_assert_not_null(pr);
  cr_expect_eq(m->cases[0].ranks.num[GCB_RC_TIME_MEDIAN],
               pr->num[GCB_RC_TIME_MEDIAN]);
  cr_expect_eq(m->cases[0].ranks.num[GCB_RC_RANK], pr->num[GCB_RC_RANK]);
  cr_expect_eq((const void *)m->cases[0].ranks.str[GCB_RC_METHOD],
               (const void *)pr->str[GCB_RC_METHOD]);
  for (size_t i = 0; i < pr->n; i++)
    cr_expect_eq(gcb_model_col(&m->cases[0], GCB_RC_RANK, i),
                 (double)gcb_ranks_int(pr, GCB_RC_RANK, i, -1));
  gcb_model_free(m);
  gcb_results_free(r);
  free(text);
}

/* A document without the optional parts: no topology, no lateness, no
 * telemetry, no probe, a rank without a device. */
Test(model, absent_optional_fields_read_as_their_fallbacks) {
  const double figs[] = {100, 90};
  json_t *doc = fx_doc(2, 1, 4, "Test CPU");
  fx_add_case(doc, fx_case("gemm", "fp32", "{\"dtype\": \"fp32\", \"m\": 64}",
                           "GFLOP/s", figs, 2, 0.01, NULL));
  json_object_del(json_array_get(json_object_get(doc, "ranks"), 1), "device");
  fx_check_valid(doc);
  struct gcb_doc d = fx_doc_of("x.json", doc);
  const struct gcb_model *m = d.model;
  const struct gcb_model_case *c = &m->cases[0];
  cr_expect_null(c->ranks.num[GCB_RC_LATE_MEDIAN]);
  cr_expect_null(c->ranks.num[GCB_RC_TELEM_SM_MEAN]);
  cr_expect(isnan(gcb_model_col(c, GCB_RC_LATE_MEDIAN, 0)));
  cr_expect(isnan(gcb_model_col(c, GCB_RC_TIME_MEDIAN, 99)), "past the end");
  cr_expect(isnan(c->summary.busbw));
  cr_expect(isnan(c->size), "no size param");
  cr_expect_str_eq(c->op, "");
  cr_expect_eq(c->m, 64);
  cr_expect_eq(c->kind, GCB_BENCH_GEMM);
  cr_expect_not(m->run.has_probe);
  cr_expect_eq(m->run.nprobe, 0);
  cr_expect_eq(m->run.probe_bytes, 8);
  cr_expect_not(m->nodes[0].has_topology);
  cr_expect_null(gcb_model_gpu(m, 0, 0));
  cr_expect_null(gcb_model_node(m, 5));
  cr_expect_null(gcb_model_rank(m, -1));
  const struct gcb_model_rank *r1 = gcb_model_rank(m, 1);
  cr_assert_not_null(r1);
  cr_expect_not(r1->has_device);
  cr_expect_null(r1->device_name, "absent, not empty");
  cr_expect_eq(r1->device_index, -1);
  cr_expect_eq(r1->device_memory_bytes, -1);
  struct gcb_place p;
  gcb_model_place(m, 1, &p);
  cr_expect_eq(p.gpu, -1);
  cr_expect_str_eq(p.bus_id, "");
  gcb_model_place(m, 9, &p);
  cr_expect_eq(p.node, -1);
  cr_expect_str_eq(p.hostname, "");
  cr_expect_eq(gcb_mvalue_get(&m->run.software, "nope")->type, GCB_MV_ABSENT);
  fx_doc_free(&d);
  json_decref(doc);
}

/* Free-form values compare as json_equal does and quote as compare's
 * notes always quoted them. */
Test(model, free_form_values_compare_as_jansson_does) {
  static const struct {
    const char *a, *b;
    bool equal;
  } rows[] = {
      {"1", "1", true},
      {"1", "1.0", false}, /* an integer is no real */
      {"\"x\"", "\"x\"", true},
      {"\"x\"", "\"y\"", false},
      {"{\"a\": 1, \"b\": [1, 2]}", "{\"b\": [1, 2], \"a\": 1}", true},
      {"{\"a\": 1}", "{\"a\": 1, \"b\": 2}", false},
      {"null", "false", false},
      {"true", "true", true},
      {"[1, 2]", "[2, 1]", false},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    char text[256];
    snprintf(text, sizeof text, "{\"a\": %s, \"b\": %s}", rows[i].a, rows[i].b);
    json_t *opts = json_loads(text, JSON_DECODE_ANY, NULL);
    cr_assert_not_null(opts, "%s", text);
    json_t *doc = fx_doc(1, 1, 2, "Test CPU");
    json_object_set_new(doc, "options", opts);
    struct gcb_doc d = fx_doc_of("x.json", doc);
    const struct gcb_mvalue *o = &d.model->run.options;
    const struct gcb_mvalue *a = gcb_mvalue_get(o, "a"),
                            *b = gcb_mvalue_get(o, "b");
    cr_expect_eq(gcb_mvalue_equal(a, b), rows[i].equal, "%s vs %s", rows[i].a,
                 rows[i].b);
    cr_expect_eq(
        gcb_mvalue_equal(a, b),
        json_equal(json_object_get(opts, "a"), json_object_get(opts, "b")) != 0,
        "as json_equal: %s vs %s", rows[i].a, rows[i].b);
    char *dump =
        json_dumps(json_object_get(opts, "a"), JSON_COMPACT | JSON_ENCODE_ANY);
    if (!json_is_string(json_object_get(opts, "a")))
      cr_expect_str_eq(a->text, dump);
    free(dump);
    fx_doc_free(&d);
    json_decref(doc);
  }
}

Test(model, bench_kinds_have_unique_names_that_read_back) {
  for (size_t k = 1; k < GCB_BENCH_COUNT; k++) {
    cr_expect_neq(gcb_bench_kinds[k].name[0], '\0');
    cr_expect_eq(gcb_bench_kind_find(gcb_bench_kinds[k].name), k, "%s",
                 gcb_bench_kinds[k].name);
  }
  cr_expect_eq(gcb_bench_kind_find("no-such-bench"), GCB_BENCH_UNKNOWN);
}

/* ---- anA: ranks' BLAS, NVML throttle reasons, a GPU's NVML entry -------- */

Test(model, ranks_blas_and_nvml_throttle_read_as_the_views_do) {
  json_t *doc = fx_doc(2, 1, 4, "Test CPU");
  json_t *rank1 = json_array_get(json_object_get(doc, "ranks"), 1);
  json_object_set_new(rank1, "blas",
                      json_pack("{s:s, s:i, s:s}", "core", "Haswell", "threads",
                                3, "cpu_isa", "avx512"));
  json_object_set_new(json_array_get(json_object_get(doc, "nodes"), 0), "gpus",
                      json_pack("[{s:i, s:s, s:{s:i, s:s, s:b}}, {s:i, s:s}]",
                                "ordinal", 1, "bus_id", "00000000:11:00.0",
                                "throttle", "mask", 40, "reasons",
                                "hw_slowdown", "slowed", 1, "ordinal", 0,
                                "bus_id", "00000000:10:00.0"));
  fx_check_valid(doc);
  struct gcb_doc d = fx_doc_of("x.json", doc);
  const struct gcb_model *m = d.model;
  cr_expect(!m->ranks[0].has_blas);
  cr_expect_str_eq(m->ranks[0].blas_core, "");
  cr_expect_eq(m->ranks[0].blas_threads, -1);
  cr_expect(m->ranks[1].has_blas);
  cr_expect_str_eq(m->ranks[1].blas_core, "Haswell");
  cr_expect_str_eq(m->ranks[1].blas_cpu_isa, "avx512");
  cr_expect_eq(m->ranks[1].blas_threads, 3);
  /* any bus id form (common/busid.h) */
  const struct gcb_model_health *h =
      gcb_model_health_by_busid(m, 0, "0000:11:00.0");
  cr_assert_not_null(h);
  cr_expect_eq(h->ordinal, 1);
  cr_expect(h->throttle_slowed);
  cr_expect_str_eq(h->throttle_reasons, "hw_slowdown");
  h = gcb_model_health_by_busid(m, 0, "00000000:10:00.0");
  cr_assert_not_null(h);
  cr_expect_str_eq(h->throttle_reasons, "");
  cr_expect_null(gcb_model_health_by_busid(m, 0, "0000:12:00.0"));
  cr_expect_null(gcb_model_health_by_busid(m, 1, "0000:11:00.0"));
  cr_expect_null(gcb_model_health_by_busid(m, 0, "not a bus id"));
  fx_doc_free(&d);
  json_decref(doc);
}

/* ---- plot: topology facts for the pictures ----
 * Switches, NIC and GPU switch indices, hop link names and the pair
 * matrices read as the tree gives them: on the 8-GPU
 * fixture and on the DGX-2's real topology (16 GPUs under 8 switches),
 * asked for every pair and for GPUs beyond the node. */
static void expect_placement(const json_t *root, const char *doc) {
  struct gcb_doc d = fx_doc_of(doc, root);
  const struct gcb_model *m = d.model;
  size_t pairs = 0;
  for (size_t i = 0; i < m->nnodes; i++) {
    const struct gcb_model_node *n = &m->nodes[i];
    const json_t *topo = tree_topo(root, n->index);
    const json_t *sws = json_object_get(topo, "pcie_switches");
    cr_assert_eq(n->nswitches, json_array_size(sws), "%s", doc);
    for (size_t k = 0; k < n->nswitches; k++) {
      const json_t *s = json_array_get(sws, k);
      cr_expect_str_eq(n->switches[k].busid, gcb_view_str(s, "busid"));
      cr_expect(
          same_num(n->switches[k].uplink_gbps, gcb_view_num(s, "uplink_gbps")));
    }
    for (size_t k = 0; k < n->nnics; k++)
      cr_expect_eq(
          n->nics[k].pcie_switch,
          gcb_view_int(json_array_get(json_object_get(topo, "nics"), k),
                       "pcie_switch", -1));
    for (size_t g = 0; g < n->ngpus; g++) {
      const struct gcb_model_gpu *mg = &n->gpus[g];
      const json_t *tg = json_array_get(json_object_get(topo, "gpus"), g);
      cr_expect_eq(mg->pcie_switch, gcb_view_int(tg, "pcie_switch", -1));
      for (size_t h = 0; h < mg->nhops; h++)
        cr_expect_str_eq(
            mg->hops[h].link,
            gcb_view_str(json_array_get(json_object_get(tg, "pcie_path"), h),
                         "link"));
    }
    for (long long a = -1; a <= (long long)n->ngpus + 1; a++)
      for (long long b = -1; b <= (long long)n->ngpus + 1; b++) {
        cr_expect(
            same_num(gcb_model_pair_gbps(n, a, b), tree_pair_gbps(topo, a, b)),
            "%s: %lld-%lld", doc, a, b);
        cr_expect_str_eq(gcb_model_pair_class(n, a, b),
                         tree_pair_class(topo, a, b), "%s", doc);
        pairs += gcb_model_pair_class(n, a, b)[0] != '\0';
      }
  }
  cr_expect_gt(pairs, 0, "%s: some path classes", doc);
  fx_doc_free(&d);
}

Test(model, topology_placement_reads_as_topo_view_gives_it) {
  char path[512];
  snprintf(path, sizeof path, "%s/report-gpu8.json", GCB_TEST_DATA);
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(fx_results_read(path, &r, &err), GCB_OK, "%s", err.msg);
  expect_placement(gcb_results_json(r), "report-gpu8.json");
  gcb_results_free(r);

  struct gcb_topo *t = NULL;
  snprintf(path, sizeof path, "%s/topo/hwloc-nvidia-dgx2.xml", GCB_TEST_DATA);
  cr_assert_eq(gcb_topo_load(path, &t, &err), GCB_OK, "%s", err.msg);
  json_t *doc = fx_doc(16, 1, 48, "Test CPU");
  json_object_set_new(json_array_get(json_object_get(doc, "nodes"), 0),
                      "topology", gcb_results_topology_json(t));
  gcb_topo_free(t);
  struct gcb_doc d = fx_doc_of("dgx2.json", doc);
  const struct gcb_model *m = d.model;
  cr_expect_gt(m->nodes[0].nswitches, 0, "the DGX-2 has switches");
  size_t under = 0;
  for (size_t g = 0; g < m->nodes[0].ngpus; g++)
    under += m->nodes[0].gpus[g].pcie_switch >= 0;
  cr_expect_eq(under, 16, "every V100 under a switch");
  fx_doc_free(&d);
  expect_placement(doc, "dgx2.json");
  json_decref(doc);
}

/* The first entry of the columns whose rank is `rank`, by a linear
 * search; -1 if none. */
static long long first_entry(const struct gcb_ranks *pr, long long rank) {
  for (size_t i = 0; i < pr->n; i++)
    if (rank >= 0 && gcb_ranks_int(pr, GCB_RC_RANK, i, -1) == rank)
      return (long long)i;
  return -1;
}

/* rtab: a rank's entry in a case's columns, the first whose rank it is,
 * and a rank's topology GPU, as the document says it, on every case and
 * rank of the fixtures (and ranks that are not there). */
Test(model, finds_rank_entries_and_rank_gpus_as_the_document_says) {
  for (size_t f = 0; f < sizeof fixtures / sizeof *fixtures; f++) {
    char path[512];
    size_t len;
    snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, fixtures[f]);
    char *text = fx_slurp(path, &len);
    cr_assert_not_null(text, "%s", path);
    struct gcb_results *r = NULL;
    struct gcb_err err = {0};
    cr_assert_eq(gcb_results_parse(text, len, fixtures[f], &r, &err), GCB_OK,
                 "%s", err.msg);
    const json_t *root = gcb_results_json(r);
    struct gcb_model *m = NULL;
    cr_assert_eq(gcb_model_from_results(r, fixtures[f], &m, &err), GCB_OK);
    for (size_t i = 0; i < m->ncases; i++) {
      const struct gcb_ranks *pr = gcb_results_ranks(r, i);
      for (long long rank = -1; rank <= (long long)pr->n + 1; rank++)
        cr_expect_eq(gcb_model_col_find(&m->cases[i], rank),
                     first_entry(pr, rank), "%s case %zu rank %lld",
                     fixtures[f], i, rank);
    }
    size_t found = 0;
    for (long long rank = -1; rank <= (long long)m->nranks; rank++) {
      const json_t *t;
      long long g = tree_rank_gpu(root, rank, &t);
      cr_expect_eq(gcb_model_rank_gpu(m, rank, NULL), g, "%s rank %lld",
                   fixtures[f], rank);
      found += g >= 0;
    }
    if (strcmp(fixtures[f], "report-gpu8.json") == 0)
      cr_expect_eq(found, 8, "each of the 8 ranks has its GPU");
    gcb_model_free(m);
    gcb_results_free(r);
    free(text);
  }
}

/* ---- anB: the topology lookups give the document's answers -------------- */

static void expect_topology(const json_t *root, const char *doc) {
  struct gcb_doc d = fx_doc_of(doc, root);
  const struct gcb_model *m = d.model;
  for (size_t r = 0; r < m->nranks; r++) {
    long long rank = m->ranks[r].rank;
    const json_t *t;
    const struct gcb_model_node *n;
    cr_expect_eq(gcb_model_rank_gpu(m, rank, &n), tree_rank_gpu(root, rank, &t),
                 "%s: rank %lld", doc, rank);
    cr_expect_eq(n != NULL, t != NULL, "%s: rank %lld", doc, rank);
  }
  for (size_t i = 0; i < m->nnodes; i++) {
    const struct gcb_model_node *n = &m->nodes[i];
    const json_t *topo = tree_topo(root, n->index);
    cr_expect_eq(n->has_placement,
                 json_is_array(json_object_get(topo, "placement")));
    cr_expect_eq(n->nplacement,
                 json_array_size(json_object_get(topo, "placement")));
    cr_expect_eq(n->nfacts, json_array_size(json_object_get(topo, "facts")));
    for (long long a = -1; a <= (long long)n->ngpus; a++) {
      /* the first rank nodes[].ranks lists whose GPU is a, or -1 */
      const json_t *ids = json_object_get(
          tree_entry(root, "nodes", "index", n->index), "ranks");
      long long want = -1;
      for (size_t r = 0; r < json_array_size(ids) && want < 0; r++) {
        const json_t *t;
        long long id = (long long)json_integer_value(json_array_get(ids, r));
        if (tree_rank_gpu(root, id, &t) == a)
          want = id;
      }
      cr_expect_eq(gcb_model_gpu_rank(m, n->index, a), want, "%s: GPU%lld", doc,
                   a);
      for (long long b = -1; b <= (long long)n->ngpus; b++) {
        double x = gcb_model_pair_gbps(n, a, b), y = tree_pair_gbps(topo, a, b);
        cr_expect(isnan(x) ? isnan(y) : x == y, "%s: %lld-%lld", doc, a, b);
        cr_expect_str_eq(gcb_model_pair_class(n, a, b),
                         tree_pair_class(topo, a, b));
      }
    }
    const json_t *health =
        json_object_get(tree_entry(root, "nodes", "index", n->index), "gpus");
    cr_expect_eq(n->nhealth, json_array_size(health), "%s", doc);
    for (size_t k = 0; k < n->nhealth; k++) {
      const json_t *h = json_array_get(health, k);
      cr_expect_str_eq(n->health[k].bus_id, gcb_view_str(h, "bus_id"));
      cr_expect_not_null(
          gcb_model_health_by_busid(m, n->index, n->health[k].bus_id));
      cr_expect_eq(n->health[k].pcie_gen_max,
                   gcb_view_int(h, "pcie_gen_max", -1));
      cr_expect_eq(n->health[k].pcie_width_max,
                   gcb_view_int(h, "pcie_width_max", -1));
    }
  }
  fx_doc_free(&d);
}

Test(model, topology_lookups_give_the_topology_views_answers) {
  static const char *const files[] = {"report-gpu8.json", "report-fixture.json",
                                      "results-valid-v2.json"};
  for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
    char path[512];
    size_t len;
    snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, files[f]);
    char *text = fx_slurp(path, &len);
    cr_assert_not_null(text, "%s", path);
    struct gcb_results *r = NULL;
    struct gcb_err err = {0};
    cr_assert_eq(gcb_results_parse(text, len, files[f], &r, &err), GCB_OK, "%s",
                 err.msg);
    expect_topology(gcb_results_json(r), files[f]);
    gcb_results_free(r);
    free(text);
  }
}

/* ---- crit: GPU pair classes ---- */

/* The topology's pair class of every GPU pair of every node, as the tree
 * holds it (out-of-range GPUs too: ""). */
Test(model, pair_classes_are_the_topology_views) {
  static const char *const files[] = {"report-gpu8.json",
                                      "report-fixture.json"};
  for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, files[f]);
    struct gcb_results *r = NULL;
    struct gcb_model *m = NULL;
    struct gcb_err err = {0};
    cr_assert_eq(fx_results_read(path, &r, &err), GCB_OK, "%s", err.msg);
    cr_assert_eq(gcb_model_from_results(r, files[f], &m, &err), GCB_OK);
    const json_t *root = gcb_results_json(r);
    size_t known = 0;
    for (size_t n = 0; n < m->nnodes; n++) {
      const struct gcb_model_node *node = &m->nodes[n];
      const json_t *topo = tree_topo(root, node->index);
      for (long long a = -1; a <= (long long)node->ngpus; a++)
        for (long long b = -1; b <= (long long)node->ngpus; b++) {
          const char *want = tree_pair_class(topo, a, b);
          cr_expect_str_eq(gcb_model_pair_class(node, a, b), want,
                           "%s node %zu GPU%lld-GPU%lld", files[f], n, a, b);
          known += want[0] != '\0';
        }
    }
    if (f == 0)
      cr_expect_gt(known, 56, "the 8-GPU node's pairs have classes");
    gcb_model_free(m);
    gcb_results_free(r);
  }
  cr_expect_str_eq(gcb_model_pair_class(NULL, 0, 1), "");
}

/* ---- bpn: the burn-in timeline ---- */

/* Each case's timeline is what the document's reader gives, series for
 * series (read with columns as arrays and compact); a case without one
 * has none. */
Test(model, a_burn_cases_timeline_is_the_readers) {
  static const char *const files[] = {"burn/burn-gpu6-thermal.json",
                                      "burn/burn-host4-hog.json"};
  for (size_t f = 0; f < sizeof files / sizeof *files; f++)
    for (int plain = 0; plain < 2; plain++) {
      char path[512];
      snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, files[f]);
      size_t len;
      char *text = fx_slurp(path, &len);
      cr_assert_not_null(text, "%s", path);
      struct gcb_results *r = NULL;
      struct gcb_err err = {0};
      cr_assert_eq(gcb_results_parse(text, len, files[f], &r, &err), GCB_OK,
                   "%s", err.msg);
      free(text);
      /* the columns held apart, or put back in the tree */
      if (plain)
        cr_assert_eq(gcb_results_plain(r, &err), GCB_OK);
      struct gcb_model *m = NULL;
      cr_assert_eq(gcb_model_from_results(r, files[f], &m, &err), GCB_OK);
      size_t burn = 0;
      for (size_t i = 0; i < m->ncases; i++) {
        const json_t *c =
            json_array_get(json_object_get(gcb_results_json(r), "cases"), i);
        const struct gcb_burn_timeline *tl = m->cases[i].timeline;
        struct gcb_burn_timeline want;
        if (!gcb_results_burn_timeline(c, m->cases[i].ranks.n, &want)) {
          cr_expect_null(tl, "%s case %zu", files[f], i);
          continue;
        }
        burn++;
        cr_assert_not_null(tl, "%s case %zu", files[f], i);
        cr_expect_eq(tl->n, want.n);
        cr_expect_eq(tl->nranks, want.nranks);
        cr_expect(same_num(tl->interval_s, want.interval_s));
        for (int s = 0; s < GCB_BURN_SERIES_COUNT; s++) {
          cr_expect_str_eq(tl->unavailable[s], want.unavailable[s]);
          cr_expect_eq(tl->v[s] == NULL, want.v[s] == NULL, "series %d", s);
          for (long k = 0; want.v[s] && k < want.n * want.nranks; k++)
            cr_expect(same_num(tl->v[s][k], want.v[s][k]), "series %d", s);
        }
        gcb_burn_timeline_free(&want);
      }
      cr_expect_gt(burn, 0, "%s has a burn case", files[f]);
      gcb_model_free(m);
      gcb_results_free(r);
    }
}

/* ---- dx: a case's check family ---- */

/* A case's family is its benchmark's, a pcie copy's by its direction
 * (d2h: D2H), on every case of the fixtures (a d2h copy:
 * report-gpu8.json). */
Test(model, case_family_is_the_benchmarks_or_the_copys_direction) {
  size_t d2h = 0;
  for (size_t f = 0; f < sizeof fixtures / sizeof *fixtures; f++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, fixtures[f]);
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    cr_assert_not_null(root, "%s: %s", path, jerr.text);
    struct gcb_doc d = fx_doc_of(fixtures[f], root);
    const json_t *c;
    size_t i;
    json_array_foreach(json_object_get(root, "cases"), i, c) {
      enum gcb_bench_kind b = gcb_bench_kind_find(gcb_view_str(c, "bench"));
      bool back = b == GCB_BENCH_PCIE &&
                  strcmp(fx_param_str(c, "direction"), "d2h") == 0;
      cr_expect_eq(gcb_model_case_family(&d.model->cases[i]),
                   back ? GCB_FAM_D2H : gcb_bench_kinds[b].family,
                   "%s: case %zu", fixtures[f], i);
      d2h += back;
    }
    fx_doc_free(&d);
    json_decref(root);
  }
  cr_expect_gt(d2h, 0, "a d2h copy among the fixtures");
  /* d2h_bidir (the d2h direction alone, timed while h2d runs) is D2H too:
   * it was H2D, its error D2H (the label's direction) */
  json_t *doc = fx_doc(2, 1, 8, "Test CPU");
  const double figs[] = {50, 51};
  fx_add_case(doc, fx_case("pcie", "d2h_bidir pinned local 64 MiB",
                           "{\"direction\": \"d2h_bidir\"}", "GB/s", figs, 2,
                           0.01, NULL));
  struct gcb_doc one = fx_doc_of("bidir.json", doc);
  cr_expect_eq(gcb_model_case_family(&one.model->cases[0]), GCB_FAM_D2H);
  fx_doc_free(&one);
  json_decref(doc);
}

/* ---- a converted file's model, built directly -------------------------- */

/* Whether v's text, and each member's, is what jansson prints of j. */
static void expect_texts(const struct gcb_mvalue *v, const json_t *j) {
  char *dump = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
  if (!json_is_string(j))
    cr_expect_str_eq(v->text, dump);
  free(dump);
  for (size_t i = 0; v->type == GCB_MV_OBJECT && i < v->n; i++)
    expect_texts(&v->members[i].value, json_object_get(j, v->members[i].key));
}

Test(model, a_built_models_values_print_as_jansson_prints_them) {
  static const char *const values[] = {
      "{\"id\": \"x.log\", \"command_line\": [\"-b\", 8, 1.5, null], "
      "\"end_time\": null, \"ranks\": 16, \"ok\": true}",
      "{\"a\": 0.1, \"b\": 1e20, \"c\": -2.5e-7, \"d\": 3.0, \"e\": -0.0}",
      "{\"s\": \"q\\\"uote\\\\ \\u00e9 \\u0001\", \"o\": {\"p\": {}, \"q\": "
      "[]}}",
      "{}",
  };
  for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
    json_t *j = json_loads(values[i], 0, NULL);
    cr_assert_not_null(j, "%s", values[i]);
    struct gcb_model *m = gcb__model_new("x.log");
    cr_assert_not_null(m);
    m->run.run = gcb__mvalue_json(m, j);
    m->run.software = gcb__mvalue_object();
    struct gcb_err err = {0};
    cr_assert_eq(gcb__model_done(m, &err), GCB_OK);
    expect_texts(&m->run.run, j);
    cr_expect_str_eq(m->run.software.text, "{}");
    cr_expect_eq(m->run.options.type, GCB_MV_ABSENT);
    gcb_model_free(m);
    json_decref(j);
  }
}

Test(model, a_built_model_is_in_the_order_a_read_document_has) {
  static const long long order[] = {2, 0, 3, 1};
  struct gcb_model *m = gcb__model_new("x.log");
  cr_assert_not_null(m);
  for (size_t i = 0; i < 4; i++) {
    struct gcb_model_rank *r = gcb__model_add_rank(m);
    cr_assert_not_null(r);
    r->rank = order[i];
    r->node = order[i] / 2;
    r->hostname = gcb__model_str(m, order[i] < 2 ? "a" : "b");
  }
  for (long long k = 1; k >= 0; k--) {
    struct gcb_model_node *n = gcb__model_add_node(m);
    cr_assert_not_null(n);
    n->index = k;
    for (long long r = 0; r < 100; r++) /* past the first few growths */
      cr_assert(gcb__model_node_rank(m, n, 2 * k + r));
  }
  struct gcb_model_case *c = gcb__model_add_case(m);
  cr_assert_not_null(c);
  c->bench = gcb__model_str(m, "coll");
  c->params = gcb__mvalue_object();
  cr_assert(gcb__mvalue_set(m, &c->params, "size", gcb__mvalue_int(1024)));
  cr_assert(gcb__mvalue_set(m, &c->params, "op", gcb__mvalue_string(m, "x")));
  cr_assert(
      gcb__mvalue_set(m, &c->params, "op", gcb__mvalue_string(m, "allreduce")));
  double *rank = gcb__model_column(m, c, GCB_RC_RANK, 4),
         *fig = gcb__model_column(m, c, GCB_RC_FIG_MEDIAN, 4);
  const char **method = gcb__model_text_column(m, c, GCB_RC_METHOD, 4);
  cr_assert(rank != NULL && fig != NULL && method != NULL);
  cr_expect_null(gcb__model_column(m, c, GCB_RC_FIG_BEST, 3),
                 "a column of another length");
  for (size_t i = 0; i < 4; i++) {
    rank[i] = (double)order[i];
    fig[i] = 10.0 * (double)order[i];
    method[i] = order[i] == 3 ? NULL : gcb__model_str(m, "exact");
  }
  cr_assert(gcb__model_add_skip(m, "coll", "a", "why"));
  cr_assert(gcb__model_add_error(m, -1, "coll", "b", "ETIMEOUT", "cut"));
  struct gcb_err err = {0};
  cr_assert_eq(gcb__model_done(m, &err), GCB_OK);

  for (size_t i = 0; i < 4; i++) {
    cr_expect_eq(m->ranks[i].rank, (long long)i);
    cr_expect_eq(gcb_model_col_rank(c, i, -1), (long long)i);
    cr_expect_eq(gcb_model_col(c, GCB_RC_FIG_MEDIAN, i), 10.0 * (double)i);
    cr_expect_eq(c->ranks.str[GCB_RC_METHOD][i] == NULL, i == 3);
    cr_expect_str_eq(gcb_model_col_str(c, GCB_RC_METHOD, i),
                     i == 3 ? "" : "exact");
    cr_expect(isnan(gcb_model_col(c, GCB_RC_FIG_BEST, i)));
    cr_expect_eq(gcb_model_col_int(c, GCB_RC_FIG_BEST, i, -5), -5);
    cr_expect_eq(gcb_model_col_int(c, GCB_RC_FIG_MEDIAN, i, -5),
                 10 * (long long)i);
  }
  cr_expect_str_eq(gcb_model_col_str(c, GCB_RC_METHOD, 4), "", "past the end");
  cr_expect_eq(gcb_model_col_int(c, GCB_RC_RANK, 4, 0), 0, "past the end");
  cr_expect_str_eq(gcb_model_rank(m, 3)->hostname, "b");
  cr_expect_eq(m->nodes[0].index, 0);
  cr_expect_eq(m->nodes[1].nranks, 100);
  cr_expect_eq(m->nodes[1].ranks[99], 101);
  cr_expect_eq(c->index, 0);
  cr_expect_eq(c->kind, GCB_BENCH_COLL);
  cr_expect_eq(c->size, 1024);
  cr_expect_str_eq(c->op, "allreduce");
  cr_expect_str_eq(c->params.text, "{\"size\":1024,\"op\":\"allreduce\"}");
  cr_expect_str_eq(m->skips[0].reason, "why");
  cr_expect_str_eq(m->errors[0].message, "cut");
  cr_expect_eq(m->errors[0].rank, -1);

  /* A parameter set after: the field, the list and its text follow. */
  cr_assert(gcb__model_param_set(m, c, "path", "NV18"));
  cr_expect_str_eq(c->path, "NV18");
  cr_expect_str_eq(c->params.text,
                   "{\"size\":1024,\"op\":\"allreduce\",\"path\":\"NV18\"}");
  gcb_model_free(m);
}

/* ---- a node's topology copied into a converted file's model ---- */

static void expect_same_hops(const struct gcb_model_hop *a, size_t na,
                             const struct gcb_model_hop *b, size_t nb) {
  cr_assert_eq(na, nb);
  for (size_t i = 0; i < na; i++) {
    cr_expect_str_eq(a[i].busid, b[i].busid);
    cr_expect_str_eq(a[i].link, b[i].link);
    cr_expect_eq(a[i].gen, b[i].gen);
    cr_expect(same_num(a[i].gbps, b[i].gbps));
  }
}

/* The copy holds every string and list of the node it was copied from,
 * its own: the document it came from may go (valgrind says so). */
static void expect_copied(const struct gcb_model_node *to,
                          const struct gcb_model_node *w) {
  cr_expect(to->has_topology);
  cr_assert_eq(to->ngpus, w->ngpus);
  for (size_t i = 0; i < w->ngpus; i++) {
    const struct gcb_model_gpu *a = &to->gpus[i], *b = &w->gpus[i];
    cr_expect_eq(a->node, 7);
    cr_expect_eq(a->index, b->index);
    cr_expect_str_eq(a->busid, b->busid);
    cr_expect_str_eq(a->model, b->model);
    cr_expect_str_eq(a->arch, b->arch);
    cr_expect_str_eq(a->cpus, b->cpus);
    cr_expect_str_eq(a->host_basis, b->host_basis);
    cr_expect(same_num(a->host_gbps, b->host_gbps));
    cr_expect_eq(a->pcie_switch, b->pcie_switch);
    expect_same_hops(a->hops, a->nhops, b->hops, b->nhops);
  }
  cr_assert_eq(to->nnics, w->nnics);
  for (size_t i = 0; i < w->nnics; i++) {
    cr_expect_str_eq(to->nics[i].name, w->nics[i].name);
    cr_expect_str_eq(to->nics[i].busid, w->nics[i].busid);
    expect_same_hops(to->nics[i].hops, to->nics[i].nhops, w->nics[i].hops,
                     w->nics[i].nhops);
  }
  cr_assert_eq(to->nswitches, w->nswitches);
  for (size_t i = 0; i < w->nswitches; i++)
    cr_expect_str_eq(to->switches[i].busid, w->switches[i].busid);
  cr_assert_eq(to->nnuma, w->nnuma);
  for (size_t i = 0; i < w->nnuma; i++)
    cr_expect_str_eq(to->numa_cpus[i], w->numa_cpus[i]);
  cr_expect_str_eq(gcb_model_pair_class(to, 0, 1),
                   gcb_model_pair_class(w, 0, 1));
}

/* On real topologies: the DGX-2's (GPUs under PCIe switches) and one
 * with an InfiniBand NIC. */
Test(model, a_copied_topology_outlives_its_document) {
  static const char *const files[] = {"hwloc-nvidia-dgx2.xml",
                                      "hwloc-2socket-3gpu-ib.xml"};
  size_t gpus = 0, nics = 0, switches = 0;
  for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
    char path[512];
    struct gcb_topo *t = NULL;
    struct gcb_err err = {0};
    snprintf(path, sizeof path, "%s/topo/%s", GCB_TEST_DATA, files[f]);
    cr_assert_eq(gcb_topo_load(path, &t, &err), GCB_OK, "%s", err.msg);
    json_t *doc = fx_doc(16, 1, 48, "Test CPU");
    json_object_set_new(json_array_get(json_object_get(doc, "nodes"), 0),
                        "topology", gcb_results_topology_json(t));
    gcb_topo_free(t);
    json_t *copy = json_deep_copy(doc);
    struct gcb_doc from = fx_doc_of("a.json", copy),
                   keep = fx_doc_of("b.json", doc);
    struct gcb_model *m = gcb__model_new("x.log");
    struct gcb_model_node *to = m != NULL ? gcb__model_add_node(m) : NULL;
    cr_assert_not_null(to);
    to->index = 7;
    cr_assert(gcb__model_copy_topology(m, to, &from.model->nodes[0]));
    fx_doc_free(&from);
    json_decref(copy);
    expect_copied(to, &keep.model->nodes[0]);
    gpus += to->ngpus;
    nics += to->nnics;
    switches += to->nswitches;
    gcb_model_free(m);
    fx_doc_free(&keep);
    json_decref(doc);
  }
  cr_expect(gpus > 0 && nics > 0 && switches > 0);
}
