/*
 * Interop on generated inputs, where what is tested is a size or a shape:
 * readers that cannot invent figures or grow without bound (issue 20,
 * items 5 and 6: each nvbandwidth testcase's matrix starts empty and a
 * ragged one is an error at its place; files and the documents built from
 * them are capped as they are built, with one line saying so); a malformed
 * row in the middle of a log named by row and columns; layouts the real
 * corpus lacks (OSU -f and -c, srun labels, JSON among stray lines).
 */
#include <stdarg.h>

#include "reports/analysis/analyze.h"
#include "reports/document/view.h"
#include "reports/interop/interop.h"
#include "tests/reports/report_fixture.h"

/* A growing text buffer. */
struct text {
  char *s;
  size_t len, cap;
};

static void add(struct text *t, const char *fmt, ...) {
  va_list ap;
  char line[512];
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (t->len + (size_t)n + 1 > t->cap) {
    t->cap = (t->len + (size_t)n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    cr_assert_not_null(t->s);
  }
  memcpy(t->s + t->len, line, (size_t)n + 1);
  t->len += (size_t)n;
}

/* Another tool's text, converted: *m its model (a converted file has no
 * results document). */
static enum gcb_status conv(const char *text, size_t len, const char *name,
                            struct gcb_model **m, enum gcb_format *f,
                            struct gcb_err *err) {
  struct gcb_results *none = NULL;
  enum gcb_status st =
      gcb_interop_parse(text, len, name, NULL, 0, &none, m, f, err);
  cr_expect_null(none, "%s: a converted file is its model alone", name);
  gcb_results_free(none);
  return st;
}

static enum gcb_status parse(const struct text *t, const char *name,
                             struct gcb_model **m, struct gcb_err *err) {
  return conv(t->s, t->len, name, m, NULL, err);
}

static const char header[] =
    "#       size         count      type   redop    root     time   algbw   "
    "busbw #wrong     time   algbw   busbw #wrong\n";

/* A row of the 2.13+ layout for `size` bytes. */
static void row(struct text *t, long long size) {
  add(t,
      "%12lld %13lld     float     sum      -1    12.34    1.00    1.75      0"
      "    12.30    1.00    1.75      0\n",
      size, size / 4);
}

static size_t count(const struct gcb_model *r, const char *bench) {
  size_t n = 0;
  for (size_t i = 0; i < r->ncases; i++)
    n += strcmp(r->cases[i].bench, bench) == 0;
  return n;
}

/* A member of the run object the model keeps whole ("" when absent). */
static const char *run_str(const struct gcb_model *m, const char *key) {
  const struct gcb_mvalue *v = gcb_mvalue_get(&m->run.run, key);
  return v->type == GCB_MV_STRING ? v->text : "";
}

Test(interop_limits, a_short_row_in_the_middle_names_its_row_and_columns) {
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "# nThread 1 nGpus 8 minBytes 8 maxBytes 64\n%s", header);
  row(&t, 8);
  row(&t, 16);
  add(&t, "          32             8     float     sum      -1    12.34\n");
  row(&t, 64);
  add(&t, "# Avg bus bandwidth    : 1.75\n");
  cr_expect_eq(parse(&t, "mid.log", &r, &err), GCB_EINPUT);
  cr_expect_null(r);
  cr_expect_str_eq(err.msg,
                   "mid.log:5: nccl-tests log: row 3 has 6 columns, expected "
                   "13");
  free(t.s);
}

Test(interop_limits, a_log_cut_inside_a_row_keeps_the_rows_before) {
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "%s", header);
  row(&t, 8);
  row(&t, 16);
  add(&t, "          32             8     float     sum      -1    12."); /* */
  cr_assert_eq(parse(&t, "cut.log", &r, &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(count(r, "coll"), 4, "2 finished rows, 2 halves each");
  cr_expect_str_eq(r->run.status, "timeout");
  cr_assert_gt(r->nerrors, 0);
  const struct gcb_model_error *e = &r->errors[0];
  cr_expect(strstr(e->message, "ends at line 4") != NULL, "%s", e->message);
  gcb_model_free(r);
  free(t.s);
}

/* A pasted excerpt: whole rows, no "# Avg bus bandwidth" after them. It
 * is no timeout: its rows are imported, no error is made, and the run's
 * status is "unknown" with the reason, which the report shows as an info
 * (issue 26: such a paste was failed as "the run's status is timeout"). */
Test(interop_limits, an_excerpt_is_imported_with_its_status_unknown) {
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "%s", header);
  row(&t, 8);
  row(&t, 16);
  cr_assert_eq(parse(&t, "paste.log", &r, &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(count(r, "coll"), 4, "2 rows, 2 halves each");
  cr_expect_eq(r->nerrors, 0);
  cr_expect_str_eq(r->run.status, "unknown");
  cr_expect_str_eq(run_str(r, "status_reason"),
                   "paste.log is an excerpt: its last row is line 3, row 2 of "
                   "the test whose header is line 1, and no summary (# Avg "
                   "bus bandwidth) follows, which a finished run prints");
  struct gcb_doc d = fx_doc_read("paste.log", NULL, r); /* the rules read it */
  struct gcb_thresholds th;
  struct gcb_findings f = {0};
  gcb_thresholds_default(&th);
  cr_assert_eq(gcb_analyze(&d, 1, &th, &f, &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(gcb_findings_count(&f, GCB_SEV_FAIL), 0,
               "an excerpt is no "
               "failure");
  bool said = false;
  for (size_t i = 0; i < f.n; i++)
    said |= strcmp(f.items[i].kind->name, "run-status") == 0 &&
            f.items[i].severity == GCB_SEV_INFO;
  cr_expect(said, "the unknown status is an info");
  gcb_findings_free(&f);
  fx_doc_free(&d);
  free(t.s);
}

/* Two logs of two tests in one file, with NCCL INFO, MPI warnings and an
 * Open MPI --tag-output prefix: each test keeps its rows and its average. */
Test(interop_limits, several_tests_in_one_file_each_keep_their_rows) {
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "$ mpirun -np 8 ./build/all_reduce_perf -b 8 -e 16\n");
  add(&t, "[1,0]<stdout>:%s", header);
  add(&t, "host:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 8 - Init COMPLETE\n");
  add(&t, "[1,0]<stdout>:           8             2     float     sum      -1"
          "    12.34    0.00    0.00      0    12.30    0.00    0.00      0\n");
  add(&t, "[1,0]<stdout>:# Avg bus bandwidth    : 0.5 \n");
  add(&t, "--------------------------------------------------------------\n"
          "WARNING: There was an error initializing an OpenFabrics device.\n");
  add(&t, "$ mpirun -np 8 ./build/all_gather_perf -b 8 -e 16\n%s", header);
  add(&t, "           8             0     float    none      -1    11.00    "
          "0.00    0.00      0    10.00    0.00    0.00      0\n");
  add(&t, "# Avg bus bandwidth    : 0.25\n");
  cr_assert_eq(parse(&t, "two.log", &r, &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(count(r, "coll"), 4);
  cr_expect_eq(count(r, "imported"), 2, "one average per test");
  cr_assert_gt(r->ncases, 3);
  const struct gcb_model_case *c = &r->cases[3];
  cr_expect_str_eq(gcb_model_param_str(c, "op"), "allgather");
  gcb_model_free(r);
  free(t.s);
}

/* Item 5: the second testcase's matrix is smaller than the first's; it
 * must yield its own 2 pairs and nothing from the first. */
Test(interop_limits, a_smaller_nvbandwidth_matrix_reuses_no_cell) {
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "{\"nvbandwidth\": {\"testcases\": [");
  add(&t, "{\"name\": \"device_to_device_memcpy_write_ce\", \"status\": "
          "\"Passed\", \"bandwidth_matrix\": [");
  for (int i = 0; i < 8; i++) {
    add(&t, "%s[", i ? "," : "");
    for (int j = 0; j < 8; j++)
      add(&t, "%s\"%s\"", j ? "," : "", i == j ? "N/A" : "389.5");
    add(&t, "]");
  }
  add(&t, "]}, {\"name\": \"device_to_device_memcpy_read_ce\", \"status\": "
          "\"Passed\", \"bandwidth_matrix\": [[\"N/A\", \"21.5\"], [\"22.5\", "
          "\"N/A\"]]}]}}");
  cr_assert_eq(parse(&t, "nv.json", &r, &err), GCB_OK, "%s", err.msg);
  size_t reads = 0;
  for (size_t i = 0; i < r->ncases; i++) {
    const struct gcb_model_case *c = &r->cases[i];
    if (strcmp(gcb_model_param_str(c, "copy"), "read") != 0)
      continue;
    reads++;
    cr_expect_lt(c->summary.median, 23, "no 389.5 from the testcase before");
  }
  cr_expect_eq(reads, 2);
  cr_expect_eq(count(r, "p2p"), 58, "56 write pairs and 2 read pairs");
  gcb_model_free(r);
  free(t.s);
}

Test(interop_limits, a_ragged_nvbandwidth_matrix_is_a_located_error) {
  static const char json[] =
      "{\"nvbandwidth\": {\"testcases\": [{\"name\": "
      "\"device_to_device_memcpy_read_ce\", \"status\": \"Passed\",\n"
      "\"bandwidth_matrix\": [[\"N/A\", \"1\", \"2\"],\n [\"3\", \"N/A\"]]}]}}";
  struct gcb_model *r = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(conv(json, strlen(json), "nv.json", &r, NULL, &err), GCB_EINPUT);
  cr_expect_str_eq(err.msg,
                   "nv.json:3:2: nvbandwidth JSON: "
                   "nvbandwidth.testcases[0].bandwidth_matrix[1]: row 1 has 2 "
                   "values, the first row 3");
  static const char text[] =
      "Running device_to_device_memcpy_read_ce.\n"
      "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)\n"
      "           0         1         2\n"
      " 0       N/A     26.34     26.35\n"
      " 1     26.34       N/A\n"
      " 2     26.34     26.35       N/A\n"
      "\n"
      "SUM device_to_device_memcpy_read_ce 105.37\n";
  cr_expect_eq(conv(text, strlen(text), "nv.txt", &r, NULL, &err), GCB_EINPUT);
  cr_expect_str_eq(err.msg,
                   "nv.txt:5: nvbandwidth text: "
                   "device_to_device_memcpy_read_ce: row 1 has 2 values, "
                   "expected 3");
}

/* Item 6: a log with more rows than gcbench converts from one file is
 * refused at the first row past the limit, before its cases exist. */
Test(interop_limits, too_many_rows_are_refused_as_they_are_read) {
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "%s", header);
  size_t rows = GCB_INTEROP_MAX_ITEMS / 2 + 5;
  for (size_t i = 0; i < rows; i++)
    row(&t, 8 + (long long)i);
  cr_expect_eq(parse(&t, "many.log", &r, &err), GCB_EINPUT);
  cr_expect_null(r);
  char want[160];
  snprintf(want, sizeof want,
           "many.log:%zu: nccl-tests log: more than %zu rows in one file",
           GCB_INTEROP_MAX_ITEMS / 2 + 2, GCB_INTEROP_MAX_ITEMS / 2);
  cr_expect(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
  free(t.s);
}

Test(interop_limits, too_many_nvbandwidth_cells_are_refused) {
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  /* 256 x 256 latency cells: 65536 imported figures, past the limit. */
  add(&t, "Running device_to_device_latency_sm.\n"
          "memory latency SM GPU(row) <-> GPU(column) (ns)\n");
  for (int c = 0; c < 256; c++)
    add(&t, "%s%d", c ? " " : "", c);
  add(&t, "\n");
  for (int i = 0; i < 256; i++) {
    add(&t, "%d", i);
    for (int c = 0; c < 256; c++)
      add(&t, " 1.5");
    add(&t, "\n");
  }
  cr_expect_eq(parse(&t, "lat.txt", &r, &err), GCB_EINPUT);
  cr_expect(strstr(err.msg, "more than 20000 cases in one file") != NULL, "%s",
            err.msg);
  free(t.s);
}

Test(interop_limits, oversized_inputs_are_refused_before_conversion) {
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "%s", header);
  row(&t, 8);
  size_t want = GCB_INTEROP_MAX_TEXT + 1;
  t.s = realloc(t.s, want + 1);
  memset(t.s + t.len, ' ', want - t.len);
  t.len = want;
  t.s[t.len] = '\0';
  cr_expect_eq(parse(&t, "big.log", &r, &err), GCB_EINPUT);
  cr_expect(strstr(err.msg, "big.log: nccl-tests log: 33554433 bytes, more "
                            "than the 32 MiB") != NULL,
            "%s", err.msg);
  free(t.s);
}

/* OSU's -f columns, 7.x's Datatype line and -c's Validation column, as
 * OSU prints them (its print format, not a captured run). */
Test(interop_limits, osu_full_format_and_validation_columns) {
  static const char text[] =
      "# OSU MPI Allreduce Latency Test v7.1\n"
      "# Datatype: MPI_CHAR.\n"
      "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  "
      "Iterations\n"
      "1                     174.36            135.35            221.55    "
      "    1000\n"
      "# OSU MPI Reduce Latency Test v7.3\n"
      "# Size       Avg Latency(us)        Validation\n"
      "4                       1.23       Pass\n"
      "8                       1.25       Fail\n";
  struct gcb_model *r = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(conv(text, strlen(text), "osu.txt", &r, NULL, &err), GCB_OK,
               "%s", err.msg);
  cr_assert_eq(r->ncases, 3);
  const struct gcb_model_case *c = &r->cases[0];
  cr_expect_str_eq(gcb_model_param_str(c, "type"), "int8"); /* gcbench's */
  cr_expect_str_eq(gcb_model_param_str(c, "layout"), "osu-full");
  cr_expect_float_eq(c->summary.time_min * 1e6, 135.35, 1e-9);
  cr_expect_float_eq(c->summary.time_mean * 1e6, 174.36, 1e-9);
  cr_expect_float_eq(c->summary.time_max * 1e6, 221.55, 1e-9);
  cr_expect_eq(c->iterations, 1000);
  const struct gcb_model_case *bad = &r->cases[2];
  cr_expect_str_eq(gcb_model_param_str(bad, "op"), "reduce");
  cr_expect_eq(bad->validation.wrong, 1, "Fail");
  gcb_model_free(r);
}

/* An MPI type named with its width ("MPI_INT8_T", as MPI's C names go) is
 * that width: reading only the letters made it "int", 4 bytes. */
Test(interop_limits, osu_datatype_with_a_width_keeps_it) {
  static const char text[] = "# OSU MPI Allreduce Latency Test v7.4\n"
                             "# Datatype: MPI_INT8_T.\n"
                             "# Size       Avg Latency(us)\n"
                             "4                       1.23\n"
                             "# OSU MPI Allreduce Latency Test v7.4\n"
                             "# Datatype: MPI_UINT64_T.\n"
                             "# Size       Avg Latency(us)\n"
                             "16                      1.50\n";
  struct gcb_model *r = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(conv(text, strlen(text), "osu.txt", &r, NULL, &err), GCB_OK,
               "%s", err.msg);
  cr_assert_eq(r->ncases, 2);
  cr_expect_str_eq(gcb_model_param_str(&r->cases[0], "type"), "int8");
  cr_expect_str_eq(gcb_model_param_str(&r->cases[1], "type"), "uint64");
  gcb_model_free(r);
}

/* nvbandwidth -j prints WARNING lines before its JSON and NOTE lines after:
 * the JSON in between is read, and a problem in it is located in the
 * file's own lines. */
Test(interop_limits, nvbandwidth_json_among_stray_lines) {
  static const char text[] =
      "WARNING: a GPU is not in its highest performance state\n"
      "{\n"
      " \"nvbandwidth\": {\"testcases\": [{\"name\": "
      "\"host_to_device_memcpy_ce\", \"status\": \"Passed\",\n"
      "  \"bandwidth_matrix\": [[\"55.2\", \"21.8\"]], \"sum\": 77.0}]}\n"
      "}\n"
      "NOTE: The reported results may not reflect the full capabilities\n";
  struct gcb_model *r = NULL;
  struct gcb_err err = {0};
  enum gcb_format f;
  cr_assert_eq(conv(text, strlen(text), "nv.txt", &r, &f, &err), GCB_OK, "%s",
               err.msg);
  cr_expect_eq(f, GCB_FORMAT_NVBANDWIDTH);
  cr_expect_eq(count(r, "pcie"), 1);
  gcb_model_free(r);
  char bad[sizeof text];
  memcpy(bad, text, sizeof text);
  *strstr(bad, "\"21.8\"") = '?'; /* not JSON any more */
  cr_expect_eq(conv(bad, strlen(bad), "nv.txt", &r, &f, &err), GCB_EINPUT);
  cr_expect(strncmp(err.msg, "nv.txt:4:", 9) == 0 &&
                strstr(err.msg, "nvbandwidth JSON:") != NULL,
            "line 4 of the file: %s", err.msg);
}

/* srun --label puts "RANK: " before every line. */
Test(interop_limits, srun_labels_are_stripped) {
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "0: # nThread 1 nGpus 1 minBytes 8 maxBytes 16\n0: %s", header);
  add(&t, "0:            8             2     float     sum      -1    12.34"
          "    0.00    0.00      0    12.30    0.00    0.00      0\n");
  add(&t, "0: # Avg bus bandwidth    : 0.5\n");
  cr_assert_eq(parse(&t, "srun.log", &r, &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(count(r, "coll"), 2);
  cr_expect_eq(count(r, "imported"), 1);
  gcb_model_free(r);
  free(t.s);
}

/* A JSON object that is no format's: the formats tried, not only the
 * results reader's "no schema". */
Test(interop_limits, a_json_object_of_no_format_names_the_formats) {
  static const char json[] = "{\"benchmark\": [1, 2]}";
  struct gcb_model *r = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_interop_detect(json, strlen(json)), GCB_FORMAT_UNKNOWN);
  cr_expect_eq(conv(json, strlen(json), "x.json", &r, NULL, &err), GCB_EINPUT);
  cr_expect(strstr(err.msg, "x.json: not a format gcbench reads (tried "
                            "gcbench results: no \"schema\" field; "
                            "nccl-tests JSON: no \"results\"") != NULL,
            "%s", err.msg);
}

/* A size no message has (1e26 B) is refused where it is, not turned into
 * a case labelled "100000000000000004764729344B". */
Test(interop_limits, a_size_past_2_to_the_53_is_a_located_error) {
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "# OSU MPI Latency Test v7.4\n# Size          Latency (us)\n");
  add(&t, "8                      21.85\n");
  add(&t, "99999999999999999999999999              2080.41\n");
  cr_expect_eq(parse(&t, "osu.txt", &r, &err), GCB_EINPUT);
  cr_expect_null(r);
  cr_expect(strstr(err.msg, "osu.txt:4:") != NULL &&
                strstr(err.msg, "not a message size") != NULL,
            "%s", err.msg);
  free(t.s);
  t = (struct text){0};
  add(&t, "%s", header);
  row(&t, 8);
  add(&t, "99999999999999999999999 2 float sum -1 12.34 1.00 1.75 0 12.30 "
          "1.00 1.75 0\n");
  row(&t, 64);
  cr_expect_eq(parse(&t, "nccl.log", &r, &err), GCB_EINPUT, "%s", err.msg);
  cr_expect_null(r);
  free(t.s);
}

/* An absurd time (1e308 us) leaves no bandwidth: the row is skipped
 * saying so, its bytes and time in a few characters. It was skipped as
 * "0 bytes: 1000000000000000010979..." cut at 160 characters. A 0-byte
 * row is a message still, its time kept as a barrier's (no bandwidth to
 * lose). */
Test(interop_limits, an_absurd_time_is_skipped_for_its_time_not_its_bytes) {
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "# OSU MPI Latency Test v7.4\n# Size          Latency (us)\n");
  add(&t, "0                      1e308\n");
  add(&t, "8                      1e308\n");
  add(&t, "16                     21.85\n");
  cr_assert_eq(parse(&t, "osu.txt", &r, &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(r->nskips, 1);
  cr_expect_str_eq(r->skips[0].reason,
                   "8 B in 1e+308 us: a time too long for a bandwidth");
  cr_expect_eq(count(r, "coll"), 2);
  gcb_model_free(r);
  free(t.s);
}

/* A GPU or host name a log printed in bytes that are not UTF-8 keeps its
 * rank and node, the bad bytes replaced by U+FFFD: before, the rank's
 * entry was dropped while its node still listed it. */
Test(interop_limits, a_name_that_is_not_utf8_keeps_its_rank) {
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "# nThread 1 nGpus 1 minBytes 8 maxBytes 8\n");
  for (int k = 0; k < 2; k++)
    add(&t,
        "#  Rank  %d Group  0 Pid  690%d on h\xffst device  %d "
        "[0000:0%d:00] NVIDIA \xfe H100\n",
        k, k, k, k + 1);
  add(&t, "%s", header);
  row(&t, 8);
  add(&t, "# Avg bus bandwidth    : 1.75\n");
  cr_assert_eq(parse(&t, "bytes.log", &r, &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(r->nranks, 2, "both ranks kept");
  cr_assert_eq(r->nnodes, 1, "one garbled host is one node");
  cr_expect_eq(r->nodes[0].nranks, 2);
  cr_expect_str_eq(r->nodes[0].hostname, "h\xef\xbf\xbdst");
  for (size_t k = 0; k < 2; k++) {
    cr_expect_eq(r->ranks[k].rank, (long long)k);
    cr_expect_str_eq(r->ranks[k].device_name, "NVIDIA \xef\xbf\xbd H100");
    cr_expect_str_eq(r->ranks[k].hostname, "h\xef\xbf\xbdst");
  }
  gcb_model_free(r);
  free(t.s);
}

Test(interop_limits, a_hostname_longer_than_any_host_has_is_refused) {
  char host[GCB_HOSTNAME_SIZE + 1];
  memset(host, 'h', sizeof host - 1);
  host[sizeof host - 1] = '\0';
  for (int len = GCB_HOSTNAME_SIZE - 1; len <= GCB_HOSTNAME_SIZE; len++) {
    struct text t = {0};
    struct gcb_model *r = NULL;
    struct gcb_err err = {0};
    add(&t, "# nThread 1 nGpus 1 minBytes 8 maxBytes 8\n");
    add(&t,
        "#  Rank  0 Group  0 Pid  6900 on %.*s device  0 [0000:01:00] "
        "NVIDIA H100\n",
        len, host);
    add(&t, "%s", header);
    row(&t, 8);
    enum gcb_status st = parse(&t, "long.log", &r, &err);
    if (len < GCB_HOSTNAME_SIZE) {
      cr_assert_eq(st, GCB_OK, "%s", err.msg);
      cr_expect_eq(strlen(r->nodes[0].hostname), (size_t)len, "whole");
    } else {
      cr_expect_eq(st, GCB_EINPUT, "a longer one could be another's cut");
      cr_expect(strstr(err.msg, "long.log: nccl-tests") == err.msg &&
                    strstr(err.msg, "a hostname of 256 bytes (at most 255") !=
                        NULL,
                "%s", err.msg);
    }
    gcb_model_free(r);
    free(t.s);
  }
}

/* Whether s ends with tail. */
static bool ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), k = strlen(tail);
  return n >= k && strcmp(s + n - k, tail) == 0;
}

/* A long testcase, benchmark or file name in a cut output or an excerpt,
 * or a long status, still gets the whole sentence (nvbandwidth's were cut
 * at 200 and 300 bytes, a log excerpt's at 256). */
Test(interop_limits, messages_naming_a_long_name_are_whole) {
  char name[121];
  memset(name, 'x', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "Running %s.\n", name);
  add(&t, "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n");
  add(&t, "           0         1\n 0     26.34     26.35\n 1     26.34");
  cr_assert_eq(parse(&t, "nv.txt", &r, &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(r->nerrors, 1);
  cr_expect(ends_with(r->errors[0].message, "its finished rows are kept"), "%s",
            r->errors[0].message);
  gcb_model_free(r);
  free(t.s);

  t = (struct text){0};
  add(&t, "# OSU MPI %.90s Test v7.1\n# Size  Latency (us)\n1   2.5\n2", name);
  cr_assert_eq(parse(&t, "osu.txt", &r, &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(r->nerrors, 1);
  cr_expect(ends_with(r->errors[0].message, "the rows before are kept"), "%s",
            r->errors[0].message);
  gcb_model_free(r);
  free(t.s);

  t = (struct text){0};
  add(&t, "{\"nvbandwidth\": {\"testcases\": [{\"name\": \"a\", \"status\": "
          "\"Waived ");
  for (int k = 0; k < 3; k++) /* add() takes 511 bytes at a time */
    add(&t, "%s", name);
  add(&t, " end\"}, {\"name\": \"b\", \"status\": \"Passed\", "
          "\"bandwidth_matrix\": [[\"1\"]]}]}}");
  cr_assert_eq(parse(&t, "nv.json", &r, &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(r->nskips, 1);
  cr_expect(ends_with(r->skips[0].reason, "x end"), "%s", r->skips[0].reason);
  gcb_model_free(r);
  free(t.s);

  char path[200]; /* an excerpt's reason names the file: cut at 256 */
  snprintf(path, sizeof path, "logs/%s.log", name);
  t = (struct text){0};
  add(&t, "%s", header);
  row(&t, 8);
  cr_assert_eq(parse(&t, path, &r, &err), GCB_OK, "%s", err.msg);
  cr_expect(ends_with(run_str(r, "status_reason"), "a finished run prints"),
            "%s", run_str(r, "status_reason"));
  gcb_model_free(r);
  free(t.s);
}

/* The case of r labelled `label`, or NULL. */
static const struct gcb_model_case *labelled(const struct gcb_model *r,
                                             const char *label) {
  for (size_t i = 0; i < r->ncases; i++)
    if (strcmp(r->cases[i].label, label) == 0)
      return &r->cases[i];
  return NULL;
}

/* What nvbandwidth names reaches the report whole, however long: the
 * testcase (its figures' labels, its SUM), the description line, the GPU
 * and host names (they were cut at 128 and 160 bytes, without a word). */
static void expect_nvbw_names_whole(const struct gcb_model *r, const char *tc,
                                    const char *desc, const char *gpu,
                                    const char *host) {
  char label[1200];
  snprintf(label, sizeof label, "%s [0][0]", tc);
  const struct gcb_model_case *c = labelled(r, label);
  cr_assert_not_null(c, "no case labelled %s", label);
  const struct gcb_mvalue *d = gcb_mvalue_get(&c->params, "description");
  cr_expect_str_eq(d->type == GCB_MV_STRING ? d->text : "", desc);
  cr_expect_str_eq(c->unit, "ns");
  snprintf(label, sizeof label, "%s: SUM", tc);
  cr_expect_not_null(labelled(r, label), "no case labelled %s", label);
  cr_assert_geq(r->nranks, 1);
  cr_expect_str_eq(r->ranks[0].device_name, gpu);
  cr_expect_str_eq(r->ranks[0].hostname, host);
}

Test(interop_limits, nvbandwidth_names_arrive_whole) {
  /* the host as long as a host's name may be (GCB_HOSTNAME_SIZE) */
  char tc[301], gpu[301], host[GCB_HOSTNAME_SIZE], desc[400];
  memset(tc, 't', 300);
  memset(gpu, 'g', 300);
  memset(host, 'h', sizeof host - 1);
  tc[300] = gpu[300] = host[sizeof host - 1] = '\0';
  memcpy(tc + 295, "_tail", 5);
  memcpy(gpu + 295, " tail", 5);
  memcpy(host + sizeof host - 6, "-tail", 5);
  snprintf(desc, sizeof desc,
           "memory latency SM CPU(row) <-> GPU(column) %.200s (ns)", tc);
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "nvbandwidth Version: v0.8\nDevice 0: %s (00000000:19:00)\n", gpu);
  add(&t, "Running %s.\n", tc); /* add() takes 511 bytes at a time */
  add(&t, "%s\n          0\n 0     55.0\n", desc);
  add(&t, "SUM %s 55.0\n", tc);
  cr_assert_eq(parse(&t, "nv.txt", &r, &err), GCB_OK, "%s", err.msg);
  expect_nvbw_names_whole(r, tc, desc, gpu, "unknown");
  gcb_model_free(r);
  free(t.s);

  t = (struct text){0};
  add(&t,
      "{\"nvbandwidth\": {\"version\": \"v0.8\", \"GPU Device list\": "
      "[\"0: %s (00000000:19:00): ",
      gpu);
  add(&t, "(%s)\"], \"testcases\": [", host);
  add(&t, "{\"name\": \"%s\", ", tc);
  add(&t, "\"status\": \"Passed\", \"bandwidth_description\": \"%s\", ", desc);
  add(&t, "\"bandwidth_matrix\": [[\"55.0\"]], \"sum\": 55.0}]}}\n");
  cr_assert_eq(parse(&t, "nv.json", &r, &err), GCB_OK, "%s", err.msg);
  expect_nvbw_names_whole(r, tc, desc, gpu, host);
  gcb_model_free(r);
  free(t.s);
}

/* An OSU program's name from its title line reaches the report whole (it
 * was cut at 95 bytes, the title line at 159, without a word). */
Test(interop_limits, osu_benchmark_name_arrives_whole) {
  char bench[301];
  memset(bench, 'b', 300);
  memcpy(bench + 295, " tail", 5);
  bench[300] = '\0';
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "# OSU MPI %s Test v7.1\n", bench);
  add(&t, "# Size  Latency (us)\n1   2.5\n");
  cr_assert_eq(parse(&t, "osu.txt", &r, &err), GCB_OK, "%s", err.msg);
  char label[400];
  snprintf(label, sizeof label, "OSU %s 1B: Latency (us)", bench);
  cr_expect_not_null(labelled(r, label), "no case labelled %s", label);
  gcb_model_free(r);
  free(t.s);
}

/* A GPU's name in a nccl-tests device line reaches the report whole (it
 * was cut at 127 bytes, without a word). */
Test(interop_limits, a_log_gpu_name_arrives_whole) {
  char gpu[301];
  memset(gpu, 'g', 300);
  memcpy(gpu + 100, " and ", 5);
  memcpy(gpu + 295, " tail", 5);
  gpu[300] = '\0';
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "# nThread 1 nGpus 1 minBytes 8 maxBytes 8\n");
  add(&t, "#  Rank  0 Group  0 Pid  6900 on h device  0 [0000:01:00] %s\n",
      gpu);
  add(&t, "%s", header);
  row(&t, 8);
  add(&t, "# Avg bus bandwidth    : 1.75\n");
  cr_assert_eq(parse(&t, "gpu.log", &r, &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(r->nranks, 1);
  cr_expect_str_eq(r->ranks[0].device_name, gpu);
  gcb_model_free(r);
  free(t.s);
}

/* An OSU column's unit reaches the case whole (it was cut at 23 bytes,
 * without a word). */
Test(interop_limits, osu_unit_arrives_whole) {
  struct text t = {0};
  struct gcb_model *r;
  struct gcb_err err = {0};
  add(&t, "# OSU MPI Pair Rate Test v7.1\n");
  add(&t, "# Size  Rate (messages per second per pair)\n1   2.5\n");
  cr_assert_eq(parse(&t, "osu.txt", &r, &err), GCB_OK, "%s", err.msg);
  const char *label = "OSU Pair Rate 1B: Rate (messages per second per pair)";
  const struct gcb_model_case *c = labelled(r, label);
  cr_assert_not_null(c, "no case labelled %s", label);
  cr_expect_str_eq(c->unit, "messages per second per pair");
  gcb_model_free(r);
  free(t.s);
}
