/*
 * Interop: nccl-tests (-J) and nvbandwidth (-j) output, from the samples in
 * tests/data/interop written from each tool's writer code (see the README
 * there; the real files are test_interop_corpus.c's), is detected, converted
 * into a valid results document with the right cases, GPUs and bus ids, joined
 * to a gcbench document's topology by bus id, analysed like any other run, and
 * malformed files are refused at FILE:LINE:COLUMN; directories and files over
 * the size limit, in one line.
 */
#include <math.h>
#include <unistd.h>

#include "common/file.h"
#include "reports/analysis/analyze.h"
#include "reports/document/ranks.h"
#include "reports/document/topo_view.h"
#include "reports/interop/interop.h"
#include "tests/reports/report_fixture.h"

#define DATA(name) GCB_TEST_DATA "/" name

struct loaded {
  struct gcb_results *res;
  struct gcb_doc doc;
  enum gcb_format format;
};

static void load(const char *path, const struct gcb_doc *known, size_t n,
                 struct loaded *l) {
  struct gcb_err err = {0};
  cr_assert_eq(gcb_interop_read(path, known, n, &l->res, &l->format, &err),
               GCB_OK, "%s", err.msg);
  l->doc = (struct gcb_doc){.name = path, .root = gcb_results_json(l->res)};
}

static const json_t *cases(const struct loaded *l) {
  return json_object_get(l->doc.root, "cases");
}

/* The first case of bench with param key = value (a string). */
static const json_t *find_case(const struct loaded *l, const char *bench,
                               const char *key, const char *value) {
  const json_t *c;
  size_t i;
  json_array_foreach(cases(l), i, c) {
    if (strcmp(gcb_view_str(c, "bench"), bench) == 0 &&
        strcmp(gcb_view_param_str(c, key), value) == 0)
      return c;
  }
  return NULL;
}

Test(interop, formats_are_told_apart_by_content) {
  static const struct {
    const char *file;
    enum gcb_format f;
  } files[] = {
      {DATA("interop/nccl-tests-allreduce.json"), GCB_FORMAT_NCCL_TESTS},
      {DATA("interop/nvbandwidth-h200.json"), GCB_FORMAT_NVBANDWIDTH},
      {DATA("report-gpu8.json"), GCB_FORMAT_GCBENCH},
      {DATA("results-valid.json"), GCB_FORMAT_GCBENCH},
      {DATA("results-syntax-error.json"), GCB_FORMAT_GCBENCH},
      {DATA("report-criteria.json"), GCB_FORMAT_GCBENCH},
  };
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char *text;
    size_t len;
    struct gcb_err err = {0};
    cr_assert_eq(
        gcb_file_read(files[i].file, GCB_FILE_MAX_BYTES, &text, &len, &err),
        GCB_OK);
    cr_expect_eq(gcb_interop_detect(text, len), files[i].f, "%s",
                 files[i].file);
    free(text);
  }
  cr_expect_str_eq(gcb_format_name(GCB_FORMAT_NVBANDWIDTH), "nvbandwidth");
}

Test(interop, nccl_tests_rows_become_collective_cases) {
  struct loaded l;
  load(DATA("interop/nccl-tests-allreduce.json"), NULL, 0, &l);
  cr_expect_eq(l.format, GCB_FORMAT_NCCL_TESTS);
  cr_expect_eq(json_array_size(cases(&l)), 19,
               "9 sizes, 2 halves each, and the average bus bandwidth");
  const json_t *avg = json_array_get(cases(&l), 18);
  cr_expect_str_eq(gcb_view_str(avg, "bench"), "imported");
  cr_expect_str_eq(gcb_view_param_str(avg, "name"), "avg_bus_bandwidth");
  cr_expect_str_eq(gcb_view_param_str(avg, "op"), "allreduce");
  const json_t *c = json_array_get(cases(&l), 17), *s;
  cr_expect_str_eq(gcb_view_param_str(c, "op"), "allreduce");
  cr_expect_str_eq(gcb_view_param_str(c, "type"), "float");
  cr_expect_str_eq(gcb_view_param_str(c, "redop"), "sum");
  cr_expect_float_eq(gcb_view_param_num(c, "size"), 134217728, 0);
  cr_expect_float_eq(gcb_view_param_num(c, "count"), 33554432, 0);
  cr_expect_float_eq(gcb_view_param_num(c, "root"), -1, 0);
  cr_expect_float_eq(gcb_view_param_num(c, "inplace"), 1, 0);
  s = gcb_view_obj(c, "summary");
  double t = gcb_view_num(gcb_view_obj(s, "time_s"), "mean");
  double alg = gcb_view_num(s, "algbw"), bus = gcb_view_num(s, "busbw");
  cr_expect_float_eq(alg, 134217728 / t / 1e9, 1e-3 * alg, "algbw = S / t");
  cr_expect_float_eq(bus / alg, 1.75, 1e-4, "2(n-1)/n for 8 ranks");
  cr_expect_eq(gcb_view_int(s, "ranks", 0), 8);
  cr_expect(
      json_is_true(json_object_get(gcb_view_obj(c, "validation"), "checked")),
      "validated with -c 1: nwrong is a number");
  cr_expect_eq(gcb_ranks_count(c), 0,
               "nccl-tests reports only the average over ranks");
  struct gcb_place p;
  gcb_view_place(l.doc.root, 5, &p);
  cr_expect_str_eq(p.bus_id, "0000:bb:00.0", "device_hex 0000:bb:00");
  cr_expect_str_eq(p.hostname, "hgx-h200-07");
  const json_t *sw = gcb_view_obj(l.doc.root, "software");
  cr_expect_str_eq(gcb_view_str(sw, "nccl"), "2.27.3");
  cr_expect_str_eq(gcb_view_str(gcb_view_obj(l.doc.root, "run"), "command"),
                   "nccl-tests");
  gcb_results_free(l.res);
}

Test(interop, nvbandwidth_matrices_become_copies_and_pairs) {
  struct loaded l;
  load(DATA("interop/nvbandwidth-h200.json"), NULL, 0, &l);
  const json_t *h2d = find_case(&l, "pcie", "direction", "h2d");
  cr_assert_not_null(h2d);
  struct gcb_ranks pr;
  gcb_ranks_of(h2d, &pr);
  cr_expect_eq(pr.n, 8, "one figure per GPU");
  cr_expect_float_eq(gcb_ranks_num(&pr, GCB_RC_FIG_MEDIAN, 5), 21.8043, 1e-9);
  size_t pairs = 0, bidir = 0, i;
  const json_t *c;
  json_array_foreach(cases(&l), i, c) {
    if (strcmp(gcb_view_str(c, "bench"), "p2p") != 0)
      continue;
    pairs++;
    bidir += strcmp(gcb_view_param_str(c, "direction"), "bidir") == 0;
    if (gcb_view_param_num(c, "src") == 2 &&
        gcb_view_param_num(c, "dst") == 6 &&
        strcmp(gcb_view_param_str(c, "direction"), "uni") == 0) {
      cr_expect_float_eq(gcb_view_num(gcb_view_obj(c, "summary"), "median"),
                         152.3, 1e-9);
      cr_expect_str_eq(gcb_view_param_str(c, "dst_bus_id"), "0000:cb:00.0");
    }
    if (strcmp(gcb_view_param_str(c, "direction"), "bidir") == 0)
      cr_expect_gt(gcb_view_num(gcb_view_obj(c, "summary"), "median"), 700,
                   "the total, the last of the three matrices");
  }
  cr_expect_eq(pairs, 112, "56 read pairs, 56 bidirectional");
  cr_expect_eq(bidir, 56);
  cr_expect_eq(json_array_size(json_object_get(l.doc.root, "skipped")), 1,
               "the waived test");
  const json_t *all =
      find_case(&l, "imported", "name", "all_to_host_memcpy_ce");
  cr_assert_not_null(all, "a test without a counterpart: imported figures");
  cr_expect_str_eq(gcb_view_str(all, "unit"), "GB/s");
  cr_expect_null(
      find_case(&l, "imported", "name", "device_to_device_memcpy_read_ce"),
      "every cell of a pair test is a pair (the diagonal is N/A)");
  cr_expect_not_null(
      find_case(&l, "imported", "testcase", "host_to_device_memcpy_ce"),
      "its SUM line");
  cr_expect(!json_is_true(
                json_object_get(gcb_view_obj(h2d, "validation"), "checked")),
            "nvbandwidth checked no values: not validated");
  struct gcb_place p;
  gcb_view_place(l.doc.root, 7, &p);
  cr_expect_str_eq(p.bus_id, "0000:db:00.0");
  cr_expect_eq(p.gpu, 7, "rank i stands for GPU i");
  gcb_results_free(l.res);
}

/* The number of findings of a kind, and the first. */
static size_t kind(const struct gcb_findings *f, const char *k,
                   const struct gcb_finding **first) {
  size_t n = 0;
  for (size_t i = 0; i < f->n; i++)
    if (strcmp(f->items[i].kind->name, k) == 0 && n++ == 0)
      *first = &f->items[i];
  return n;
}

Test(interop, nvbandwidth_joined_to_a_gcbench_topology_is_judged_by_it) {
  struct loaded g, nv;
  load(DATA("report-gpu8.json"), NULL, 0, &g);
  load(DATA("interop/nvbandwidth-h200.json"), &g.doc, 1, &nv);
  const json_t *topo = gcb_topo_view(nv.doc.root, 0);
  cr_assert_not_null(topo, "joined by bus id");
  cr_expect_null(json_object_get(topo, "placement"),
                 "the placement check belongs to the gcbench run");
  struct gcb_thresholds t;
  struct gcb_findings f = {0};
  struct gcb_err err = {0};
  gcb_thresholds_default(&t);
  cr_assert_eq(gcb_analyze(&nv.doc, 1, &t, &f, &err), GCB_OK);
  const struct gcb_finding *x = NULL;
  cr_assert_eq(kind(&f, "link-bandwidth", &x), 1);
  cr_expect_str_eq(x->where.bus_id, "0000:bb:00.0");
  cr_expect_float_eq(x->expected, 63.02, 1e-9, "the joined host link");
  cr_assert_eq(kind(&f, "p2p-bandwidth", &x), 1);
  cr_expect_str_eq(x->where.link, "0000:4c:00.0->0000:cb:00.0");
  cr_expect_float_eq(x->expected, 450, 1e-9, "NV18");
  cr_expect_eq(kind(&f, "placement-unbound", &x), 0,
               "bindings nvbandwidth does not record are unknown, not unbound");
  gcb_findings_free(&f);
  gcb_results_free(nv.res);
  gcb_results_free(g.res);
}

Test(interop, without_a_topology_the_gpus_are_judged_against_each_other) {
  struct loaded nv;
  load(DATA("interop/nvbandwidth-h200.json"), NULL, 0, &nv);
  struct gcb_thresholds t;
  struct gcb_findings f = {0};
  struct gcb_err err = {0};
  gcb_thresholds_default(&t);
  cr_assert_eq(gcb_analyze(&nv.doc, 1, &t, &f, &err), GCB_OK);
  const struct gcb_finding *x = NULL;
  cr_assert_eq(kind(&f, "link-bandwidth", &x), 1);
  cr_expect_eq(x->where.rank, 5);
  cr_assert_eq(kind(&f, "p2p-bandwidth", &x), 1);
  cr_expect_eq(x->where.gpu, 2);
  gcb_findings_free(&f);
  gcb_results_free(nv.res);
}

/* 1-based line and column of the first occurrence of needle in file. */
static void position(const char *file, const char *needle, int *line,
                     int *col) {
  char *text;
  size_t len;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_file_read(file, GCB_FILE_MAX_BYTES, &text, &len, &err),
               GCB_OK);
  const char *at = strstr(text, needle);
  cr_assert_not_null(at, "%s", needle);
  *line = 1;
  *col = 1;
  for (const char *p = text; p < at; p++) {
    *col = *p == '\n' ? 1 : *col + 1;
    *line += *p == '\n';
  }
  free(text);
}

Test(interop, malformed_files_are_refused_at_file_line_column) {
  static const struct {
    const char *file, *value, *path;
  } bad[] = {
      {"interop/nccl-tests-bad-time.json", "{\"us\":3.1}",
       "nccl-tests JSON: results[2].out_of_place.time: expected a number or "
       "a string, got an object"},
      {"interop/nvbandwidth-bad-cell.json", "\"fast\"",
       "nvbandwidth JSON: nvbandwidth.testcases[0].bandwidth_matrix[0][5]: "
       "expected a number or \"N/A\""},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char path[512], want[1024];
    int line, col;
    struct gcb_results *r = NULL;
    struct gcb_err err = {0};
    snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, bad[i].file);
    position(path, bad[i].value, &line, &col);
    snprintf(want, sizeof want, "%s:%d:%d: %s", path, line, col, bad[i].path);
    cr_expect_eq(gcb_interop_read(path, NULL, 0, &r, NULL, &err), GCB_EINPUT);
    cr_expect_null(r);
    cr_expect_str_eq(err.msg, want);
  }
}

Test(interop, structural_problems_name_the_field) {
  static const struct {
    const char *text, *msg;
  } bad[] = {
      {"{\"version\":2,\"nccl_version\":22703,\"results\":[{\"size\":8}]}",
       "x.json:1:46: nccl-tests JSON: results[0]: missing required field "
       "'count'"},
      {"{\"nvbandwidth\":{\"testcases\":[{\"name\":\"h\"}]}}",
       "x.json:1:30: nvbandwidth JSON: nvbandwidth.testcases[0]: missing "
       "required field 'status'"},
      {"{\"version\":99,\"nccl_version\":22703,\"results\":[]}",
       "x.json:1:12: nccl-tests JSON: version: nccl-tests JSON version 99: "
       "gcbench reads 1 to 3"},
      {"{\"version\":2,\"nccl_version\":22703,\"results\":[{\"size\":8,"
       "\"count\":2,\"type\":\"float\",\"redop\":\"sum\",\"root\":\"1e300\"}]}",
       "x.json:1:102: nccl-tests JSON: results[0].root: expected a rank"},
      {"{\"nvbandwidth\":{\"testcases\":3}}",
       "x.json:1:29: nvbandwidth JSON: nvbandwidth.testcases: expected an "
       "array, got a number"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    struct gcb_results *r = NULL;
    struct gcb_err err = {0};
    cr_expect_eq(gcb_interop_parse(bad[i].text, strlen(bad[i].text), "x.json",
                                   NULL, 0, &r, NULL, &err),
                 GCB_EINPUT);
    cr_expect_str_eq(err.msg, bad[i].msg);
    gcb_results_free(r);
  }
}

Test(interop, a_gcbench_document_reads_as_before) {
  struct loaded l;
  load(DATA("results-valid.json"), NULL, 0, &l);
  cr_expect_eq(l.format, GCB_FORMAT_GCBENCH);
  gcb_results_free(l.res);
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(
      gcb_interop_read(DATA("results-schema-v3.json"), NULL, 0, &r, NULL, &err),
      GCB_EINPUT);
  cr_expect(strstr(err.msg, "unsupported schema version 3") != NULL, "%s",
            err.msg);
}

/* gcb_file_read, under report and compare: a directory and a file
 * over the size limit are refused in one line, the second before reading.
 * (Pipes: test_robust_cli.c, pipes_are_read_whole_with_the_size_limit.) */
Test(interop, directories_and_huge_files_are_refused) {
  char *text = NULL;
  size_t len = 0;
  struct gcb_err err = {0};
  cr_expect_eq(
      gcb_file_read(GCB_TEST_DATA, GCB_FILE_MAX_BYTES, &text, &len, &err),
      GCB_EINPUT);
  cr_expect_str_eq(err.msg, GCB_TEST_DATA ": is a directory, not a file");
  cr_expect_null(text);
  char huge[] = "/tmp/gcb-interop-huge-XXXXXX";
  int fd = mkstemp(huge);
  cr_assert_geq(fd, 0);
  cr_assert_eq(ftruncate(fd, 300L << 20), 0); /* sparse: no disk used */
  close(fd);
  cr_expect_eq(gcb_file_read(huge, GCB_FILE_MAX_BYTES, &text, &len, &err),
               GCB_EINPUT);
  cr_expect(strstr(err.msg, "limit 256 MiB)") != NULL, "%s", err.msg);
  cr_expect_null(text);
  unlink(huge);
}
