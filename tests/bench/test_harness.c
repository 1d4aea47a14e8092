/*
 * The run engine without mpiexec: the harness driven over the null
 * benchmark and the null backend on one MPI process (MPI_Init inside each
 * test: criterion forks before it, so every test has an MPI of its own),
 * the live table and document sinks fed records directly, and the
 * watchdog's deadline in a forked child that it ends.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/run/harness.h"
#include "bench/run/watchdog.h"
#include "reports/document/ranks.h"
#include "reports/document/results.h"
#include "tests/reports/results_read.h"

static char dir[64];

static void make_dir(void) {
  snprintf(dir, sizeof dir, "/tmp/gcb-harness-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_expect_eq(system(cmd), 0);
}

TestSuite(harness, .init = make_dir, .fini = remove_dir, .timeout = 60);

static const char *path(const char *name) {
  static char buf[4][128];
  static int next;
  char *p = buf[next++ % 4];
  snprintf(p, sizeof buf[0], "%s/%s", dir, name);
  return p;
}

static char *slurp(const char *file) {
  FILE *f = fopen(file, "r");
  cr_assert_not_null(f, "%s", file);
  char *text = calloc(1, 1 << 20);
  size_t n = fread(text, 1, (1 << 20) - 1, f);
  text[n] = '\0';
  fclose(f);
  return text;
}

/* ---- the harness over the null benchmark and backend -------------------- */

/* A measure hook that times fewer iterations than asked, as coll's -n once
 * did: the record must say what was timed. */
static enum gcb_status short_measure(struct gcb_ctx *ctx, const void *opts,
                                     void *state, struct gcb_op *op,
                                     struct gcb_timing *t,
                                     struct gcb_rank_result *out,
                                     struct gcb_err *err) {
  (void)ctx, (void)opts, (void)state;
  long n = t->iters - 2;
  double samples[64];
  for (long i = 0; i < n; i++)
    if (op->run(op->state, 1, &samples[i], err) != GCB_OK)
      return GCB_EIO;
  gcb_stats_compute(samples, (size_t)n, &out->seconds);
  out->time_s = out->seconds.median;
  t->timed = n;
  return GCB_OK;
}

/* The null backend with telemetry hooks (run_on's `ops`), and what
 * happened in order: 'S' telemetry started, 'T' stopped, 'A' an
 * MPI_Allreduce of 1024 floats (coll's operation at -b 4096). */
static char events[512];
static int nevents;

static void event(char e) {
  if (nevents < (int)sizeof events - 1)
    events[nevents++] = e;
}

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
                  MPI_Comm comm) {
  if (t == MPI_FLOAT && n == 1024)
    event('A');
  return PMPI_Allreduce(s, r, n, t, op, comm);
}

static enum gcb_status telemetry_on(struct gcb_backend *b,
                                    struct gcb_err *err) {
  (void)b, (void)err;
  event('S');
  return GCB_OK;
}

static void telemetry_off(struct gcb_backend *b, struct gcb_telemetry *out) {
  (void)b;
  event('T');
  *out = (struct gcb_telemetry){.available = false};
}

/* One run of `bench` (its options from argv) into out.json, the live
 * table into table.txt, on the null backend or `ops` (a copy of it);
 * returns the harness's status. */
static enum gcb_status run_on(const struct gcb_backend_ops *ops,
                              const struct gcb_bench *bench, int argc,
                              const char **argv, long iters, long warmup,
                              struct gcb_run_totals *totals) {
  cr_assert_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
  struct gcb_ctx ctx;
  cr_assert_eq(gcb_context_init(&ctx), GCB_OK, "%s", ctx.err.msg);
  cr_assert_eq(gcb_context_open_backend(&ctx, "null"), GCB_OK, "%s",
               ctx.err.msg);
  cr_expect_str_eq(ctx.backend_ops->name, "null");
  if (ops != NULL)
    ctx.backend_ops = ops;
  struct gcb_run_opts ro = {.backend = "null",
                            .iters = iters,
                            .warmup = warmup,
                            .output = path("out.json"),
                            .seed = 1,
                            .timeout = 30};
  void *bo = calloc(1, bench->opts_size);
  struct gcb_option_group g = {bench->name, bench->options, bo};
  bool help;
  struct gcb_err err = {0};
  cr_assert_eq(
      gcb_options_parse(&g, 1, argc, (char **)argv, &help, NULL, 0, NULL, &err),
      GCB_OK, "%s", err.msg);
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  int fd = open(path("table.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  dup2(fd, STDOUT_FILENO);
  close(fd);
  struct gcb_harness h;
  enum gcb_status st = gcb_harness_begin(&h, &ctx, &ro, "null", argc,
                                         (char **)argv, json_object());
  if (st == GCB_OK)
    st = gcb_harness_run(&h, bench, bo);
  enum gcb_status end = gcb_harness_end(&h, st);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  *totals = h.totals;
  free(bo);
  gcb_context_free(&ctx);
  MPI_Finalize();
  return st != GCB_OK ? st : end;
}

/* One run of `bench` (null's options from argv) on the null backend. */
static enum gcb_status run_null(const struct gcb_bench *bench, int argc,
                                const char **argv, long iters,
                                struct gcb_run_totals *totals) {
  return run_on(NULL, bench, argc, argv, iters, 1, totals);
}

/* Every case says `n` iterations, and its rank's time_s.n is n. */
static void expect_iterations(struct gcb_results *r, size_t ncases, int n) {
  json_t *cases = json_object_get(gcb_results_json(r), "cases");
  cr_assert_eq(json_array_size(cases), ncases);
  for (size_t i = 0; i < ncases; i++) {
    json_t *c = json_array_get(cases, i);
    cr_expect_eq(json_integer_value(json_object_get(c, "iterations")), n);
    const struct gcb_ranks *pr = gcb_results_ranks(r, i);
    cr_assert_not_null(pr);
    cr_assert_eq(pr->n, 1);
    cr_expect_eq(gcb_ranks_int(pr, GCB_RC_TIME_N, 0, -1), n);
    cr_expect_gt(gcb_ranks_num(pr, GCB_RC_TIME_MIN, 0), 0, "measured");
  }
}

Test(harness, runs_cases_skips_and_failures_into_the_document_and_table) {
  const char *argv[] = {"null", "--cases",     "4", "--skip-case",
                        "1",    "--fail-case", "2"};
  struct gcb_run_totals t;
  cr_assert_eq(run_null(&gcb_bench_null, 7, argv, 7, &t), GCB_OK);
  cr_expect_eq(t.cases, 2);
  cr_expect_eq(t.skipped, 1);
  cr_expect_eq(t.failed, 1);
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(fx_results_read(path("out.json"), &r, &err), GCB_OK, "%s",
               err.msg);
  expect_iterations(r, 2, 7);
  json_t *doc = gcb_results_json(r);
  cr_expect_eq(json_array_size(json_object_get(doc, "skipped")), 1);
  cr_expect_eq(json_array_size(json_object_get(doc, "errors")), 1);
  cr_expect_str_eq(
      json_string_value(json_object_get(json_object_get(doc, "run"), "status")),
      "complete");
  gcb_results_free(r);
  char *table = slurp(path("table.txt"));
  cr_expect(strstr(table, "# null on null: 1 rank(s), 7 timed iterations "
                          "after 1 warm-up") != NULL,
            "%s", table);
  cr_expect(strstr(table, "# skipped null null 1") != NULL, "%s", table);
  cr_expect(strstr(table, "# FAILED null null 2") != NULL, "%s", table);
  cr_expect(strstr(table, "ok (0 wrong)") != NULL, "%s", table);
  free(table);
}

Test(harness, the_record_says_what_the_measure_hook_timed) {
  struct gcb_bench own = gcb_bench_null;
  own.measure = short_measure;
  const char *argv[] = {"null", "--cases", "2"};
  struct gcb_run_totals t;
  cr_assert_eq(run_null(&own, 3, argv, 9, &t), GCB_OK);
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(fx_results_read(path("out.json"), &r, &err), GCB_OK, "%s",
               err.msg);
  expect_iterations(r, 2, 7);
  gcb_results_free(r);
  char *table = slurp(path("table.txt"));
  cr_expect(strstr(table, "1 rank(s), 7 timed iterations") != NULL, "%s",
            table);
  free(table);
}

Test(harness, the_null_benchmark_is_hidden_but_found) {
  cr_expect_eq(gcb_bench_find("null"), &gcb_bench_null);
  cr_expect(gcb_bench_null.hidden);
  const struct gcb_backend_ops *b = gcb_backend_find("null");
  cr_assert_not_null(b);
  cr_expect(b->hidden);
  const struct gcb_backend_ops *picked = NULL;
  struct gcb_err err = {0};
  char why[160];
  cr_assert_eq(gcb_backend_select("auto", &picked, why, sizeof why, &err),
               GCB_OK);
  cr_expect_str_neq(picked->name, "null", "auto never picks null");
  cr_expect_null(b->gemm, "the null backend has no operations");
  cr_expect_null(b->stream);
}

/* ---- the sinks, fed directly ------------------------------------------- */

/* A record of the null benchmark's case `index`, measured on one rank. */
static void null_record(int index, struct gcb_record *rec,
                        struct gcb_rank_result *rank) {
  struct gcb_op op = {0};
  struct gcb_err err = {0};
  struct gcb_ctx ctx = {.size = 1};
  const char *argv[] = {"null"};
  char opts[64] = {0};
  struct gcb_option_group g = {"null", gcb_bench_null.options, opts};
  bool help;
  cr_assert_lt(gcb_bench_null.opts_size, sizeof opts);
  cr_assert_eq(
      gcb_options_parse(&g, 1, 1, (char **)argv, &help, NULL, 0, NULL, &err),
      GCB_OK);
  *rec = (struct gcb_record){.bench = "null",
                             .backend = "null",
                             .iterations = 4,
                             .warmup = 1,
                             .nranks = 1,
                             .ranks = rank};
  cr_assert_eq(gcb_bench_null.setup(&ctx, opts, NULL, index, rec, &op, &err),
               GCB_OK);
  double samples[4];
  for (int i = 0; i < 4; i++)
    cr_assert_eq(op.run(op.state, 1, &samples[i], &err), GCB_OK);
  *rank = (struct gcb_rank_result){0};
  gcb_stats_compute(samples, 4, &rank->seconds);
  rank->time_s = rank->seconds.median;
  struct gcb_check check;
  cr_assert_eq(op.check(op.state, &check, &err), GCB_OK);
  rank->check = (struct gcb_validation){
      .checked = true, .samples = check.samples, .method = check.method};
  gcb_op_release(&op);
}

Test(harness, the_table_sink_prints_one_header_and_counts_repeated_skips) {
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  struct gcb_table table = {.out = out, .nranks = 1};
  struct gcb_sink sink = gcb_table_sink(&table);
  struct gcb_err err = {0};
  struct gcb_record rec;
  struct gcb_rank_result rank;
  for (int i = 0; i < 2; i++) {
    null_record(i, &rec, &rank);
    cr_assert_eq(sink.record(sink.self, &rec, &err), GCB_OK);
  }
  for (int i = 0; i < 3; i++)
    cr_assert_eq(sink.skip(sink.self, &rec, "the same reason", &err), GCB_OK);
  if (sink.finish)
    sink.finish(sink.self, &err);
  fclose(out);
  const char *header = "# null on null: 1 rank(s), 4 timed iterations";
  const char *first = strstr(text, header);
  cr_assert_not_null(first, "%s", text);
  cr_expect_null(strstr(first + 1, header), "one header: %s", text);
  cr_expect(strstr(text, "(and 2 more case(s) skipped for the same reason)") !=
                NULL,
            "%s", text);
  free(text);
}

Test(harness, the_document_sink_rewrites_the_file_with_each_case) {
  struct gcb_document doc = {.results = gcb_results_new(),
                             .path = path("doc.json")};
  cr_assert_not_null(doc.results);
  struct gcb_sink sink = gcb_document_sink(&doc);
  struct gcb_err err = {0};
  struct gcb_record rec;
  struct gcb_rank_result rank;
  null_record(0, &rec, &rank);
  cr_assert_eq(sink.record(sink.self, &rec, &err), GCB_OK, "%s", err.msg);
  char *text = slurp(path("doc.json"));
  cr_expect(strstr(text, "\"null 0\"") != NULL, "the first case is on disk");
  free(text);
  cr_assert_eq(sink.error(sink.self, &rec, 0, GCB_EIO, "it broke", &err),
               GCB_OK, "%s", err.msg);
  json_t *errors = json_object_get(gcb_results_json(doc.results), "errors");
  cr_expect_eq(json_array_size(errors), 1, "the error is in the document");
  /* On disk at once while rewrites are quick; a slow one (a loaded
   * machine, a sanitizer) spaces them, and the run's end writes it. */
  text = slurp(path("doc.json"));
  cr_expect(strstr(text, "it broke") != NULL || doc.write_s > GCB_DOC_QUICK_S,
            "rewrite took %g s: %s", doc.write_s, text);
  free(text);
  gcb_results_free(doc.results);
}

/* Node names reach the table's "Latest arrival" line and its skip and
 * failure lines through the one escaping path: a terminal escape or a
 * newline in one is shown as \xNN, never obeyed. */
Test(harness, names_in_table_lines_are_escaped) {
  static const char names[2][96] = {"n0, CPUs 0",
                                    "evil\033]0;pwned\007\nRANK 0 OK, CPUs 1"};
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  struct gcb_table table = {.out = out, .nranks = 2, .rank_names = names};
  struct gcb_sink sink = gcb_table_sink(&table);
  struct gcb_err err = {0};
  struct gcb_rank_result ranks[2];
  struct gcb_record rec = {
      .bench = "coll",
      .backend = "host",
      .iterations = 3,
      .warmup = 1,
      .nranks = 2,
      .ranks = ranks,
      .layout = GCB_LAYOUT_COLLECTIVE,
      .work_per_op = 8,
      .figure = {
          .unit = "GB/s", .scale = 1e9, .counted = "bytes", .bus_factor = 1}};
  snprintf(rec.label, sizeof rec.label, "allreduce float sum 8B out-of-place");
  gcb_record_param_str(&rec, "op", "allreduce");
  gcb_record_param_size(&rec, "size", 8);
  gcb_record_param_int(&rec, "count", 2);
  gcb_record_param_str(&rec, "type", "float");
  gcb_record_param_str(&rec, "redop", "sum");
  gcb_record_param_int(&rec, "root", -1);
  gcb_record_param_int(&rec, "inplace", 0);
  gcb_record_param_str(&rec, "split", "none");
  gcb_record_param_int(&rec, "comm_size", 2);
  for (int r = 0; r < 2; r++) {
    double t[3] = {1e-5, 2e-5, 3e-5}, early[3] = {0, 0, 0},
           late[3] = {4e-6, 5e-6, 6e-6};
    ranks[r] = (struct gcb_rank_result){.rank = r};
    gcb_stats_compute(t, 3, &ranks[r].seconds);
    gcb_stats_compute(r == 1 ? late : early, 3, &ranks[r].late);
    ranks[r].time_s = ranks[r].seconds.mean;
  }
  cr_assert_eq(sink.record(sink.self, &rec, &err), GCB_OK);
  snprintf(rec.label, sizeof rec.label, "bad\033[2Jlabel\nline");
  cr_assert_eq(sink.error(sink.self, &rec, 1, GCB_EIO, "broke", &err), GCB_OK);
  cr_assert_eq(sink.skip(sink.self, &rec, "no\033[31m", &err), GCB_OK);
  if (sink.finish)
    sink.finish(sink.self, &err);
  fclose(out);
  cr_expect(strstr(text, "# Latest arrival       : rank 1 (evil\\x1b]0;pwned"
                         "\\x07\\x0aRANK 0 OK, CPUs 1)") != NULL,
            "%s", text);
  cr_expect(strstr(text, "bad\\x1b[2Jlabel\\x0aline") != NULL, "%s", text);
  cr_expect(strstr(text, "no\\x1b[31m") != NULL, "%s", text);
  cr_expect_null(strchr(text, '\033'), "no raw escape: %s", text);
  cr_expect_null(strstr(text, "\nRANK 0 OK"), "no raw newline: %s", text);
  free(text);
}

/* coll warms up inside its own measure hook: the telemetry must start
 * after that warm-up (as the harness's own loop starts it), not before,
 * where its first sample would catch the idle GPU. */
Test(harness, coll_telemetry_starts_after_its_warm_up) {
  struct gcb_backend_ops ops = *gcb_backend_find("null");
  ops.telemetry_start = telemetry_on;
  ops.telemetry_stop = telemetry_off;
  const char *argv[] = {"coll", "--collective", "allreduce", "-b",   "4096",
                        "-e",   "4096",         "-d",        "float"};
  struct gcb_run_totals t;
  cr_assert_eq(run_on(&ops, &gcb_bench_coll, 9, argv, 2, 3, &t), GCB_OK);
  char *table = slurp(path("table.txt"));
  cr_assert_eq(t.cases, 2, "in and out of place: %s", table);
  free(table);
  const char *start = strchr(events, 'S');
  cr_assert_not_null(start, "%s", events);
  int before = 0;
  for (const char *e = events; e < start; e++)
    before += *e == 'A';
  cr_expect_geq(before, 3, "the 3 warm-up operations before it: %s", events);
  cr_expect_not_null(strchr(start, 'A'), "the timed ones after: %s", events);
  cr_expect_eq(strchr(events, 'T') > start, true, "stopped after: %s", events);
}

/* gemm decides its unit per element type, in one place: int8 multiplies
 * are integer operations, in TOPS; the floating types in GFLOP/s. The
 * live table says when the unit changes under one header. */
Test(harness, int8_gemm_is_in_tops_and_the_table_says_so) {
  const char *argv[] = {"gemm", "--dtype", "fp16,int8", "-m", "64",
                        "-n",   "64",      "-k",        "64"};
  void *opts = calloc(1, gcb_bench_gemm.opts_size);
  struct gcb_option_group g = {"gemm", gcb_bench_gemm.options, opts};
  bool help;
  struct gcb_err err = {0};
  cr_assert_eq(
      gcb_options_parse(&g, 1, 9, (char **)argv, &help, NULL, 0, NULL, &err),
      GCB_OK, "%s", err.msg);
  struct gcb_ctx ctx = {.size = 1, .backend_ops = gcb_backend_find("null")};
  struct gcb_record rec[2];
  struct gcb_rank_result rank = {.time_s = 1e-3};
  for (int i = 0; i < 2; i++) {
    struct gcb_op op = {0};
    rec[i] = (struct gcb_record){.bench = "gemm",
                                 .backend = "null",
                                 .iterations = 4,
                                 .warmup = 1,
                                 .nranks = 1,
                                 .ranks = &rank};
    /* The null backend has no GEMM: the case is described all the same. */
    cr_expect_eq(gcb_bench_gemm.setup(&ctx, opts, NULL, i, &rec[i], &op, &err),
                 GCB_EUNSUPPORTED);
  }
  cr_expect_str_eq(rec[0].figure.unit, "GFLOP/s", "%s", rec[0].label);
  cr_expect_str_eq(rec[1].figure.unit, "TOPS", "%s", rec[1].label);
  cr_expect_eq(rec[1].figure.scale, 1e12);
  free(opts);
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  struct gcb_table table = {.out = out, .nranks = 1};
  struct gcb_sink sink = gcb_table_sink(&table);
  for (int i = 0; i < 2; i++)
    cr_assert_eq(sink.record(sink.self, &rec[i], &err), GCB_OK);
  if (sink.finish)
    sink.finish(sink.self, &err);
  fclose(out);
  const char *fp16 = strstr(text, "figures in GFLOP/s");
  const char *int8 = strstr(text, "# figures in TOPS (2*m*n*k int8");
  cr_expect_not_null(fp16, "%s", text);
  cr_expect_not_null(int8, "%s", text);
  cr_expect(int8 > fp16 && int8 < strstr(text, " int8 "), "%s", text);
  free(text);
}
