/*
 * Interop on REAL files: outputs of nccl-tests, rccl-tests, OSU and
 * nvbandwidth that nobody on this project wrote, from public repositories
 * and issue threads (tests/data/interop/README.md names each source). Each
 * test reads the file's own text with a parser of its own (split at
 * blanks, the way a person reads the columns) and asserts that every
 * figure there is in the converted document, equal to the printed value:
 * no row lost, none invented, the summary figures kept, the cuts said.
 */
#include <math.h>
#include <unistd.h>

#include "common/file.h"
#include "reports/criteria/criteria.h"
#include "reports/document/ranks.h"
#include "reports/document/view.h"
#include "reports/interop/interop.h"
#include "tests/reports/report_fixture.h"

#define DATA(name) GCB_TEST_DATA "/interop/" name
#define MAXTOK 300

static char *slurp(const char *path, size_t *len) {
  char *text;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_file_read(path, GCB_FILE_MAX_BYTES, &text, len, &err),
               GCB_OK, "%s", err.msg);
  return text;
}

/* Another tool's file, converted: its model. */
static struct gcb_model *load(const char *path, enum gcb_format want) {
  struct gcb_results *r = NULL;
  struct gcb_model *m = NULL;
  struct gcb_err err = {0};
  enum gcb_format f;
  cr_assert_eq(fx_interop_read(path, NULL, 0, &r, &m, &f, &err), GCB_OK, "%s",
               err.msg);
  cr_expect_eq(f, want, "%s read as %s", path, gcb_format_name(f));
  cr_assert_null(r, "a converted file is its model alone");
  return m;
}

/* text (another tool's file, edited) converted as a file of that text:
 * its model. */
static struct gcb_model *load_text(const char *text, enum gcb_format want) {
  char tmp[] = "/tmp/gcb-edited-XXXXXX";
  int fd = mkstemp(tmp);
  cr_assert_geq(fd, 0);
  cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  struct gcb_model *m = load(tmp, want);
  unlink(tmp);
  return m;
}

/* A member of the run object the model keeps whole ("" when absent). */
static const char *run_str(const struct gcb_model *m, const char *key) {
  const struct gcb_mvalue *v = gcb_mvalue_get(&m->run.run, key);
  return v->type == GCB_MV_STRING ? v->text : "";
}

/* The next line of text (NUL-terminated copy in buf); false at the end. */
static bool next_line(const char **p, char *buf, size_t size) {
  if (**p == '\0')
    return false;
  size_t n = strcspn(*p, "\n");
  snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), *p);
  *p += n + ((*p)[n] == '\n');
  return true;
}

static size_t split(char *line, char **tok) {
  size_t n = 0;
  for (char *t = strtok(line, " \t\r"); t && n < MAXTOK;
       t = strtok(NULL, " \t\r"))
    tok[n++] = t;
  return n;
}

static bool all_digits(const char *s) {
  if (*s == '\0')
    return false;
  for (; *s; s++)
    if (*s < '0' || *s > '9')
      return false;
  return true;
}

/* The nth (0-based) case of bench with the numeric params given. */
static const struct gcb_model_case *find_num(const struct gcb_model *r,
                                             const char *bench, const char *k1,
                                             double v1, const char *k2,
                                             double v2, size_t nth) {
  for (size_t i = 0; i < r->ncases; i++) {
    const struct gcb_model_case *c = &r->cases[i];
    if (strcmp(c->bench, bench) == 0 && gcb_model_param_num(c, k1) == v1 &&
        (k2 == NULL || gcb_model_param_num(c, k2) == v2) && nth-- == 0)
      return c;
  }
  return NULL;
}

static const struct gcb_model_case *find_str(const struct gcb_model *r,
                                             const char *bench, const char *k1,
                                             const char *v1, const char *k2,
                                             const char *v2) {
  for (size_t i = 0; i < r->ncases; i++) {
    const struct gcb_model_case *c = &r->cases[i];
    if (strcmp(c->bench, bench) == 0 &&
        strcmp(gcb_model_param_str(c, k1), v1) == 0 &&
        (k2 == NULL || strcmp(gcb_model_param_str(c, k2), v2) == 0))
      return c;
  }
  return NULL;
}

static double num(const char *s) {
  return strtod(s, NULL);
}

static double summary(const struct gcb_model_case *c, const char *key) {
  return strcmp(key, "algbw") == 0   ? c->summary.algbw
         : strcmp(key, "busbw") == 0 ? c->summary.busbw
                                     : c->summary.median;
}

/* ---- nccl-tests and rccl-tests logs ------------------------------------- */

static const struct coll_file {
  const char *file, *op, *tool, *status;
  long long ranks, nodes;
  size_t rows; /* result rows in the file, counted by hand */
  bool checked;
} coll_files[] = {
    /* SuperBench's A100 logs: layout before 2.13 ("error", no root column
     * but for reduce), an NCCL INFO line inside the table, two 0-byte rows;
     * the operation is not in the text (inferred, or from the name). */
    {"superbench-nccl_allreduce.log", "allreduce", "nccl-tests", "complete", 8,
     1, 34, false},
    {"superbench-nccl_alltoall.log", "alltoall", "nccl-tests", "complete", 8, 1,
     34, false},
    {"superbench-nccl_reduce.log", "reduce", "nccl-tests", "complete", 8, 1, 34,
     false},
    /* 2 x 8 H100 in markdown with the quoted mpirun line above it. */
    {"a3mega-h100-16rank-allreduce.md", "allreduce", "nccl-tests", "complete",
     16, 2, 31, true},
    /* The tail of a 72-rank GB200 NVL72 log (one device line pasted); the
     * operation from busbw/algbw = 2(n-1)/n. */
    {"coreweave-gb200-nvl72-allreduce.txt", "allreduce", "nccl-tests",
     "complete", 72, 1, 5, true},
    /* 2.9.6, NCCL WARN lines and the NCCL version inside the header, the
     * broadcast layout (root, no redop); the paste ends after one row: an
     * excerpt, whose run status is unknown (not a timeout). */
    {"nccl-tests-82-broadcast-v100.txt", "broadcast", "nccl-tests", "unknown",
     2, 2, 1, false},
    /* rccl-tests develop:83d38d9 on 8 MI300X, pasted up to one row. */
    {"rccl-tests-hpc-ai-envs-30-mi300x.txt", "allreduce", "rccl-tests",
     "unknown", 8, 1, 1, true},
    /* 2 x 8 H100 (of 128 x 8): five rows, then NCCL failures: failed. */
    {"nccl-tests-322-h100-ncclfailure-cut.txt", "allreduce", "nccl-tests",
     "failed", 16, 2, 5, true},
};

/* One half of a row: the case equals the printed time, algbw, busbw. */
static void expect_half(const struct coll_file *f,
                        const struct gcb_model_case *c, char **tok,
                        double size) {
  cr_assert_not_null(c, "%s: row of %g bytes", f->file, size);
  cr_expect_str_eq(gcb_model_param_str(c, "op"), f->op, "%s", f->file);
  double t = c->summary.time_mean;
  cr_expect_float_eq(t * 1e6, num(tok[0]), 1e-9 * num(tok[0]), "%s %g: time",
                     f->file, size);
  cr_expect_eq(summary(c, "algbw"), num(tok[1]), "%s %g: algbw", f->file, size);
  cr_expect_eq(summary(c, "busbw"), num(tok[2]), "%s %g: busbw", f->file, size);
  bool checked = c->validation.checked;
  cr_expect_eq(checked, strcmp(tok[3], "N/A") != 0, "%s: #wrong %s", f->file,
               tok[3]);
  cr_expect_eq(checked, f->checked);
}

static void check_coll_file(const struct coll_file *f) {
  char path[512], line[4096], *tok[MAXTOK];
  snprintf(path, sizeof path, "%s/interop/%s", GCB_TEST_DATA, f->file);
  struct gcb_model *r =
      load(path, strcmp(f->tool, "rccl-tests") == 0 ? GCB_FORMAT_RCCL_TESTS
                                                    : GCB_FORMAT_NCCL_TESTS);
  cr_expect_str_eq(r->run.tool, f->tool);
  cr_expect_str_eq(r->run.status, f->status, "%s", f->file);
  cr_expect_eq(r->run.ranks, f->ranks, "%s", f->file);
  cr_expect_eq(r->run.nodes, f->nodes, "%s", f->file);
  size_t len, rows = 0, zero = 0;
  char *text = slurp(path, &len);
  const char *p = text;
  while (next_line(&p, line, sizeof line)) {
    bool avg = strncmp(line, "# Avg bus bandwidth", 19) == 0;
    size_t n = split(line, tok);
    if (avg) {
      const struct gcb_model_case *c =
          find_str(r, "imported", "name", "avg_bus_bandwidth", "op", f->op);
      cr_assert_not_null(c, "%s: its Avg bus bandwidth", f->file);
      cr_expect_eq(summary(c, "median"), num(tok[n - 1]), "%s", f->file);
      cr_expect_str_eq(c->unit, "GB/s");
    }
    if (n < 11 || !all_digits(tok[0]))
      continue;
    rows++;
    double size = num(tok[0]);
    if (size == 0) { /* no bandwidth: skipped, with the time in the reason */
      zero++;
      continue;
    }
    for (int h = 0; h < 2; h++)
      expect_half(f, find_num(r, "coll", "size", size, "inplace", h, 0),
                  tok + n - 8 + 4 * h, size);
  }
  cr_expect_eq(rows, f->rows, "%s: every row", f->file);
  cr_expect_eq(r->nskips, 2 * zero, "%s: the 0-byte rows", f->file);
  free(text);
  gcb_model_free(r);
}

Test(interop_corpus, nccl_and_rccl_logs_keep_every_printed_figure) {
  for (size_t i = 0; i < sizeof coll_files / sizeof *coll_files; i++)
    check_coll_file(&coll_files[i]);
}

/* Pasted excerpts (whole rows, no summary line) are imported as they are:
 * no error, the run's status unknown and why, never a timeout. */
Test(interop_corpus, excerpts_keep_their_rows_and_say_they_are_excerpts) {
  static const struct {
    const char *file, *says;
  } cut[] = {
      {"nccl-tests-82-broadcast-v100.txt",
       "is an excerpt: its last row is line 16, row 1 of the test whose "
       "header is line 14"},
      {"rccl-tests-hpc-ai-envs-30-mi300x.txt",
       "is an excerpt: its last row is line 17, row 1 of the test whose "
       "header is line 15"},
  };
  for (size_t i = 0; i < sizeof cut / sizeof *cut; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/interop/%s", GCB_TEST_DATA, cut[i].file);
    struct gcb_model *r =
        load(path, i ? GCB_FORMAT_RCCL_TESTS : GCB_FORMAT_NCCL_TESTS);
    cr_expect_eq(r->nerrors, 0, "%s", cut[i].file);
    cr_expect_str_eq(r->run.status, "unknown");
    cr_expect(strstr(run_str(r, "status_reason"), cut[i].says) != NULL, "%s",
              run_str(r, "status_reason"));
    gcb_model_free(r);
  }
  struct gcb_model *r =
      load(DATA("nccl-tests-82-broadcast-v100.txt"), GCB_FORMAT_NCCL_TESTS);
  cr_expect_str_eq(gcb_mvalue_get(&r->run.software, "nccl")->text, "2.9.6",
                   "the NCCL version line among the WARN lines");
  gcb_model_free(r);
}

/* nccl-tests 2.13 and later open with "# nccl-tests version 2.18.3
 * nccl-headers=23005 nccl-library=23005": the tool's version, and NCCL's
 * from its code where no "NCCL version" line says it (it read "nccl-tests
 * (unknown)"). */
Test(interop_corpus, the_version_line_names_the_tool_and_nccl) {
  struct gcb_model *r =
      load(GCB_TEST_DATA "/nccl/nccl-tests-2.18.3-allreduce-h100.log",
           GCB_FORMAT_NCCL_TESTS);
  cr_expect_str_eq(r->run.version, "2.18.3");
  cr_expect_str_eq(gcb_mvalue_get(&r->run.software, "nccl")->text, "2.30.5");
  gcb_model_free(r);
  /* OSU's title: "# OSU MPI-CUDA Bi-Directional Bandwidth Test v7.5" */
  r = load(DATA("libfabric-11231-osu_bibw-buserror-cut.txt"), GCB_FORMAT_OSU);
  cr_expect_str_eq(r->run.version, "7.5");
  gcb_model_free(r);
}

/* A run that failed says so (nccl-tests' NCCLCHECK, CUDACHECK and
 * TESTCHECK lines, a crash's signal): its rows before the failure are
 * kept, its status is "failed" and one error quotes the line that names
 * the cause; what follows (callers' "Test failure" lines, a backtrace
 * whose frames start with a number) is no row. Before, the nccl-tests log
 * of issue 322 read as a complete excerpt (a PASS) and the OSU log as a
 * malformed row 14 (its 13 rows lost). */
Test(interop_corpus, a_run_that_failed_keeps_its_rows_and_says_why) {
  static const struct {
    const char *file, *status, *says;
    enum gcb_format format;
    size_t cases;
  } failed[] = {
      {"nccl-tests-322-h100-ncclfailure-cut.txt", "ENCCL",
       "the run failed: line 34: HCA-128: Test NCCL failure common.cu:1204 "
       "'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / ' (6 "
       "lines of failure in all)",
       GCB_FORMAT_NCCL_TESTS, 10},
      {"libfabric-11231-osu_bibw-buserror-cut.txt", "EINTERNAL",
       "the run failed: line 24: [b5302:2889239:0:2889239] Caught signal 7 "
       "(Bus error: nonexistent physical address)",
       GCB_FORMAT_OSU, 13},
  };
  for (size_t i = 0; i < sizeof failed / sizeof *failed; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/interop/%s", GCB_TEST_DATA, failed[i].file);
    struct gcb_model *r = load(path, failed[i].format);
    cr_expect_str_eq(r->run.status, "failed", "%s", failed[i].file);
    cr_expect_eq(r->ncases, failed[i].cases, "%s: its rows", failed[i].file);
    cr_assert_eq(r->nerrors, 1, "%s", failed[i].file);
    cr_expect_str_eq(r->errors[0].status, failed[i].status);
    cr_expect_str_eq(r->errors[0].message, failed[i].says);
    gcb_model_free(r);
  }
}

/* Before nccl-tests 2.13 the "error" column was each half's largest
 * difference from the expected values, not a count of wrong ones; the
 * footer's "Out of bounds values" counted the halves past the type's
 * limit. NVIDIA/nccl-tests#78's alltoall prints an in-place error of
 * 1e+00 that nccl-tests itself does not judge (its footer: 0 OK): no
 * wrong result, where it used to read as 1 wrong value and fail. Without
 * the footer (the same file cut before it), the limit decides: float's
 * 1e-5 per rank, passed by the allreduce's 2e-06, not by 1e+00. */
Test(interop_corpus, an_old_layouts_error_column_is_a_difference_not_a_count) {
  static const struct {
    const char *file;
    bool cut_footer;
    long long wrong[4]; /* per case, in order: row 1 out, in; row 2 */
  } files[] = {
      {"nccl-tests-78-v100-alltoall-error-column.txt", false, {0, 0, 0, 0}},
      {"nccl-tests-78-v100-allreduce-error-column.txt", false, {0, 0, 0, 0}},
      {"nccl-tests-78-v100-alltoall-error-column.txt", true, {0, 1, 0, 1}},
      {"nccl-tests-78-v100-allreduce-error-column.txt", true, {0, 0, 0, 0}},
  };
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    size_t len;
    char path[512];
    snprintf(path, sizeof path, "%s/interop/%s", GCB_TEST_DATA, files[i].file);
    char *text = slurp(path, &len);
    if (files[i].cut_footer)
      *strstr(text, "# Out of bounds") = '\0';
    struct gcb_model *m = load_text(text, GCB_FORMAT_NCCL_TESTS);
    size_t n = 0;
    for (size_t k = 0; k < m->ncases; k++) {
      const struct gcb_model_case *c = &m->cases[k];
      if (c->kind != GCB_BENCH_COLL)
        continue;
      cr_assert_lt(n, 4, "%s", files[i].file);
      cr_expect(c->validation.checked, "%s case %zu", files[i].file, n);
      cr_expect_eq(c->validation.wrong, files[i].wrong[n], "%s%s case %zu",
                   files[i].file, files[i].cut_footer ? " (cut)" : "", n);
      n++;
    }
    cr_expect_eq(n, 4, "%s", files[i].file);
    gcb_model_free(m);
    free(text);
  }
}

/* A run that failed before its first row (after the device list, or
 * after the column header) reads as a run of no case and its failure,
 * which fails its report and says why, as a run that failed later does:
 * before, the first read as no format at all ("no column header"), the
 * second as "no result rows"; then as a file of no measurement (exit 2,
 * no report: a CI job had no junit.xml to say what failed). */
Test(interop_corpus, a_run_that_failed_before_its_first_row_states_its_failure) {
  static const struct {
    const char *file, *says;
  } failed[] = {
      {"nccl-tests-369-gh200-cuda-failure.txt",
       "the run failed: line 14: gpu-1-1: Test CUDA failure common.cu:1304 "
       "'CUDA-capable device(s) is/are busy or unavailable' (12 lines of "
       "failure in all)"},
      {"nccl-tests-124-rtx3090-ncclfailure.txt",
       "the run failed: line 10: ArchLinux: Test NCCL failure all_reduce.cu:44 "
       "'unhandled cuda error / ' (7 lines of failure in all)"},
      {"cscs-osu_iallreduce-segfault.txt",
       "the run failed: line 9: [nid006549:31808] Signal: Segmentation fault "
       "(11)"},
  };
  for (size_t i = 0; i < sizeof failed / sizeof *failed; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/interop/%s", GCB_TEST_DATA, failed[i].file);
    struct gcb_results *r = NULL;
    struct gcb_model *m = NULL;
    struct gcb_err err = {0};
    cr_assert_eq(fx_interop_read(path, NULL, 0, &r, &m, NULL, &err), GCB_OK,
                 "%s: %s", failed[i].file, err.msg);
    cr_expect_eq(m->ncases, 0, "%s", failed[i].file);
    cr_assert_eq(m->nerrors, 1, "%s", failed[i].file);
    cr_expect(strncmp(m->errors[0].message, failed[i].says,
                      strlen(failed[i].says)) == 0,
              "%s", m->errors[0].message);
    cr_expect(gcb_view_status_failed(m->run.status), "%s: %s", failed[i].file,
              m->run.status);
    gcb_model_free(m);
    gcb_results_free(r);
  }
}

/* ---- rccl-tests JSON lines ---------------------------------------------- */

Test(interop_corpus, rccl_json_lines_keep_every_figure) {
  size_t len;
  char *text = slurp(DATA("rccl-tests-93-allreduce.jsonl"), &len);
  struct gcb_model *r =
      load(DATA("rccl-tests-93-allreduce.jsonl"), GCB_FORMAT_RCCL_TESTS);
  size_t lines = 0;
  for (char *p = text, *nl; p && *p; p = nl ? nl + 1 : NULL) {
    nl = strchr(p, '\n');
    json_t *o = json_loadb(p, nl ? (size_t)(nl - p) : strlen(p), 0, NULL);
    cr_assert_not_null(o);
    const struct gcb_model_case *c = find_num(
        r, "coll", "size", json_number_value(json_object_get(o, "size")),
        "inplace", json_number_value(json_object_get(o, "inPlace")), 0);
    cr_assert_not_null(c);
    cr_expect_str_eq(gcb_model_param_str(c, "op"), "allreduce");
    cr_expect_eq(summary(c, "algbw"),
                 json_number_value(json_object_get(o, "algBw")));
    cr_expect_eq(summary(c, "busbw"),
                 json_number_value(json_object_get(o, "busBw")));
    double t = c->summary.time_mean;
    double us = json_number_value(json_object_get(o, "time"));
    cr_expect_float_eq(t * 1e6, us, 1e-9 * us);
    json_decref(o);
    lines++;
  }
  cr_expect_eq(r->ncases, lines);
  cr_expect_eq(r->run.ranks, 4, "\"gpus\": 4");
  free(text);
  gcb_model_free(r);
}

/* ---- OSU ---------------------------------------------------------------- */

static const struct osu_file {
  const char *file, *op;
  bool bandwidth; /* MB/s (algbw in GB/s), else us (the time) */
} osu_files[] = {
    {"parallelcluster-p5-intelmpi-osu_allreduce.txt", "allreduce", false},
    {"parallelcluster-p5-openmpi-osu_bibw.txt", "bibw", true},
    {"parallelcluster-p5-openmpi-osu_latency.txt", "latency", false},
};

/* Every row of an OSU file's text, found in r as the coll case gcbench's
 * drop-in of that program writes (a 0-byte row too: osu_latency's first,
 * its time kept as a barrier's); returns the rows. */
static size_t check_osu_text(const struct osu_file *f, const char *text,
                             const struct gcb_model *r) {
  char line[512], *tok[MAXTOK];
  const char *p = text;
  size_t rows = 0;
  while (next_line(&p, line, sizeof line)) {
    if (split(line, tok) != 2 || !all_digits(tok[0]))
      continue;
    double size = num(tok[0]), v = num(tok[1]);
    rows++;
    const struct gcb_model_case *c =
        find_str(r, "coll", "op", f->op, NULL, NULL);
    for (size_t i = 0; i < r->ncases; i++)
      if (strcmp(gcb_model_param_str(&r->cases[i], "op"), f->op) == 0 &&
          gcb_model_param_num(&r->cases[i], "size") == size)
        c = &r->cases[i];
    cr_assert_not_null(c, "%s %g", f->file, size);
    cr_assert_eq(gcb_model_param_num(c, "size"), size, "%s %g", f->file, size);
    cr_expect_str_eq(c->unit, "GB/s");
    double t = c->summary.time_mean;
    if (f->bandwidth)
      cr_expect_float_eq(summary(c, "algbw") * 1e3, v, 1e-9 * v, "%s %g",
                         f->file, size);
    else
      cr_expect_float_eq(t * 1e6, v, 1e-9 * v, "%s %g", f->file, size);
  }
  return rows;
}

Test(interop_corpus, osu_outputs_keep_every_figure) {
  for (size_t i = 0; i < sizeof osu_files / sizeof *osu_files; i++) {
    char path[512];
    size_t len;
    snprintf(path, sizeof path, "%s/interop/%s", GCB_TEST_DATA,
             osu_files[i].file);
    char *text = slurp(path, &len);
    struct gcb_model *r = load(path, GCB_FORMAT_OSU);
    size_t rows = check_osu_text(&osu_files[i], text, r);
    cr_expect_gt(rows, 15);
    cr_expect_eq(r->ncases, rows, "%s", osu_files[i].file);
    cr_expect_eq(r->nskips, 0, "%s", osu_files[i].file);
    free(text);
    gcb_model_free(r);
  }
}

/* srun's "-N2 --ntasks-per-node=4" is 8 ranks: alltoall's size is each
 * rank's block times 8, as gcbench's drop-in writes it, and its busbw is
 * made (it read 0 ranks: OSU's own size, no comm_size, no busbw). */
Test(interop_corpus, srun_nodes_times_tasks_per_node_is_the_rank_count) {
  struct gcb_model *r =
      load(DATA("cscs-osu_alltoall-ntasks-per-node.txt"), GCB_FORMAT_OSU);
  cr_expect_eq(r->run.ranks, 8);
  const struct gcb_model_case *c =
      find_str(r, "coll", "op", "alltoall", NULL, NULL);
  cr_assert_not_null(c);
  cr_expect_eq(gcb_model_param_num(c, "comm_size"), 8);
  cr_expect_eq(gcb_model_param_num(c, "size"), 8); /* OSU's 1 B row */
  cr_expect(c->summary.busbw > 0, "busbw %g", c->summary.busbw);
  gcb_model_free(r);
}

/* The three files one after the other, as `cat` or a job script leaves
 * them: one document, every benchmark's rows. */
Test(interop_corpus, concatenated_osu_benchmarks_read_as_one) {
  char *all = NULL, *texts[3];
  size_t total = 0, len[3];
  for (size_t i = 0; i < 3; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/interop/%s", GCB_TEST_DATA,
             osu_files[i].file);
    texts[i] = slurp(path, &len[i]);
    all = realloc(all, total + len[i] + 1);
    memcpy(all + total, texts[i], len[i]);
    total += len[i];
  }
  struct gcb_results *none = NULL;
  struct gcb_model *r = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(
      gcb_interop_parse(all, total, "osu.txt", NULL, 0, &none, &r, NULL, &err),
      GCB_OK, "%s", err.msg);
  size_t rows = 0;
  for (size_t i = 0; i < 3; i++) {
    rows += check_osu_text(&osu_files[i], texts[i], r);
    free(texts[i]);
  }
  cr_expect_eq(r->ncases, rows);
  free(all);
  gcb_model_free(r);
}

/* ---- nvbandwidth -------------------------------------------------------- */

/* Whether a cell (r, c) of testcase `name` is in the document, equal to v:
 * as a pcie case's figure for GPU c, a p2p pair, or an imported figure. */
static bool has_cell(const struct gcb_model *r, const char *name, size_t row,
                     size_t col, double v) {
  for (size_t i = 0; i < r->ncases; i++) {
    const struct gcb_model_case *c = &r->cases[i];
    const char *bench = c->bench;
    bool mine = strcmp(gcb_model_param_str(c, "testcase"), name) == 0 ||
                strcmp(gcb_model_param_str(c, "name"), name) == 0;
    if (!mine)
      continue;
    if (strcmp(bench, "pcie") == 0 && row == 0) {
      for (size_t k = 0; k < c->ranks.n; k++)
        if (gcb_model_col_rank(c, k, -1) == (long long)col &&
            gcb_model_col(c, GCB_RC_FIG_MEDIAN, k) == v)
          return true;
    } else if (strcmp(bench, "p2p") == 0 && summary(c, "median") == v) {
      /* a read test's row GPU reads its column: the data goes column ->
       * row (nvbandwidth testcases_ce.cpp); every other test row -> column */
      bool read = strcmp(gcb_model_param_str(c, "copy"), "read") == 0 &&
                  strcmp(gcb_model_param_str(c, "direction"), "uni") == 0;
      if (gcb_model_param_num(c, "src") == (double)(read ? col : row) &&
          gcb_model_param_num(c, "dst") == (double)(read ? row : col))
        return true;
    } else if (strcmp(bench, "imported") == 0 &&
               gcb_model_param_num(c, "row") == row &&
               gcb_model_param_num(c, "col") == col &&
               summary(c, "median") == v)
      return true;
  }
  return false;
}

/* Reads an nvbandwidth text file the way a person does and checks every
 * cell and SUM against r; returns the cells seen. */
static size_t check_nvbw_text(const char *file, const struct gcb_model *r) {
  size_t len, cells = 0, pending = 0;
  char *text = slurp(file, &len), line[8192], *tok[MAXTOK], name[128] = "";
  struct cell {
    size_t row, col;
    double v;
  } cell[4096];
  const char *p = text;
  bool matrix = false, header = false;
  size_t columns = 0;
  while (next_line(&p, line, sizeof line)) {
    bool desc = strstr(line, "(row)") != NULL;
    size_t n = split(line, tok);
    if (n == 2 && strcmp(tok[0], "Running") == 0)
      snprintf(name, sizeof name, "%.*s", (int)strcspn(tok[1], "."), tok[1]);
    if (desc) {
      matrix = true;
      header = false;
      continue;
    }
    if (n == 3 && strcmp(tok[0], "SUM") == 0) {
      if (name[0] == '\0')
        snprintf(name, sizeof name, "%s", tok[1]);
      const struct gcb_model_case *s =
          find_str(r, "imported", "name", "sum", "testcase", tok[1]);
      cr_assert_not_null(s, "%s: SUM %s", file, tok[1]);
      cr_expect_eq(summary(s, "median"), num(tok[2]));
      for (size_t k = 0; k < pending; k++)
        cr_expect(has_cell(r, name, cell[k].row, cell[k].col, cell[k].v),
                  "%s: %s [%zu][%zu] = %g", file, name, cell[k].row,
                  cell[k].col, cell[k].v);
      cells += pending;
      pending = 0;
      matrix = false;
      name[0] = '\0';
      continue;
    }
    if (!matrix || n == 0 || !all_digits(tok[0]))
      continue;
    if (!header) {
      header = true;
      columns = n;
      continue;
    }
    if (n != columns + 1)
      continue; /* a row cut short: no figure to find */
    for (size_t k = 1; k < n && pending < 4096; k++)
      if (strcmp(tok[k], "N/A") != 0)
        cell[pending++] =
            (struct cell){(size_t)num(tok[0]), k - 1, num(tok[k])};
  }
  for (size_t k = 0; k < pending; k++) /* no SUM after (a quoted excerpt) */
    cr_expect(has_cell(r, name, cell[k].row, cell[k].col, cell[k].v),
              "%s: %s [%zu][%zu]", file, name, cell[k].row, cell[k].col);
  free(text);
  return cells + pending;
}

Test(interop_corpus, nvbandwidth_text_keeps_every_cell_and_sum) {
  static const struct {
    const char *file, *version, *status;
    long long gpus;
    size_t cells;
  } files[] = {
      {"superbench-nvbandwidth-v0.6.log", "v0.6", "complete", 3, 21},
      {"nvbandwidth-50-v0.8-a6000.txt", "v0.8", "complete", 6, 30},
      {"nvbandwidth-15-v0.2-rtx4090-cut.txt", "v0.2", "timeout", 8, 16},
      {"nvbandwidth-24-h100-sm-quoted.txt", "", "complete", 8, 16},
      {"oke-nvbandwidth-v0.7-multinode-gb200.txt", "v0.7", "complete", 8, 56},
  };
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/interop/%s", GCB_TEST_DATA, files[i].file);
    struct gcb_model *r = load(path, GCB_FORMAT_NVBANDWIDTH);
    cr_expect_eq(check_nvbw_text(path, r), files[i].cells, "%s", files[i].file);
    cr_expect_str_eq(r->run.version, files[i].version);
    cr_expect_str_eq(r->run.status, files[i].status, "%s", files[i].file);
    cr_expect_eq(r->run.ranks, files[i].gpus, "%s", files[i].file);
    for (size_t k = 0; k < r->ncases; k++)
      cr_expect(!r->cases[k].validation.checked,
                "nvbandwidth validates nothing: %s", r->cases[k].label);
    gcb_model_free(r);
  }
}

/* A multinode run lists a GPU per process with its host ("Process 4
 * (nvbandwidth-test-worker-1): device 0: HGX GB200 (00000008:01:00)"):
 * two nodes of four GPUs, each known by its host and bus id. Before, one
 * node of eight "unknown" GPUs with no bus id, and no model. */
/* The p2p case of pair src->dst of testcase `name` in m, or NULL. */
static const struct gcb_model_case *
nvbw_pair(const struct gcb_model *m, const char *name, int src, int dst) {
  char label[160];
  snprintf(label, sizeof label, "%s GPU%d->GPU%d", name, src, dst);
  for (size_t k = 0; k < m->ncases; k++)
    if (m->cases[k].kind == GCB_BENCH_P2P &&
        strcmp(m->cases[k].label, label) == 0)
      return &m->cases[k];
  return NULL;
}

/* The imported figure labelled `label` in m: its value, NAN if none. */
static double nvbw_figure(const struct gcb_model *m, const char *label) {
  for (size_t k = 0; k < m->ncases; k++)
    if (strcmp(m->cases[k].label, label) == 0)
      return m->cases[k].summary.median;
  return NAN;
}

/* A bidirectional device-device test prints, from v0.6 on, each
 * direction's matrix and their total, each with its SUM: the pairs are the
 * total (both ways at once, as the JSON reader takes them), each SUM keeps
 * its own name. Before v0.6 the copy-engine test printed one direction
 * only, timed while the other ran (nvbandwidth v0.5 testcases_ce.cpp:
 * USE_FIRST_BW), so no pair of it is a bidirectional total; the SM test
 * printed the total (TOTAL_BW), which stays the pairs'. The first used to
 * take Read1's 367 GB/s for the bidirectional figure (the p2p rule then
 * held it to twice the link's rate: a false failure), the second
 * llm-action's one-way 170 GB/s. */
Test(interop_corpus, a_bidirectional_pair_is_its_total_not_one_direction) {
  struct gcb_model *m =
      load(DATA("nvbandwidth-bidir-parts-2gpu.txt"), GCB_FORMAT_NVBANDWIDTH);
  const char *bidir = "device_to_device_bidirectional_memcpy_read_ce";
  const struct gcb_model_case *c = nvbw_pair(m, bidir, 0, 1);
  cr_assert_not_null(c);
  cr_expect_str_eq(c->direction, "bidir");
  cr_expect_float_eq(gcb_model_col(c, GCB_RC_FIG_MEDIAN, 0), 734.40, 1e-9);
  c = nvbw_pair(m, bidir, 1, 0);
  cr_assert_not_null(c);
  cr_expect_float_eq(gcb_model_col(c, GCB_RC_FIG_MEDIAN, 0), 734.20, 1e-9);
  cr_expect_float_eq(
      nvbw_figure(m,
                  "device_to_device_bidirectional_memcpy_read_ce_read1: SUM"),
      734.30, 1e-9);
  cr_expect_float_eq(
      nvbw_figure(m,
                  "device_to_device_bidirectional_memcpy_read_ce_total: SUM"),
      1468.60, 1e-9);
  cr_expect(isnan(nvbw_figure(
                m, "device_to_device_bidirectional_memcpy_read_ce: SUM")),
            "no SUM of the testcase itself: it printed one per matrix");
  c = nvbw_pair(m, "device_to_device_memcpy_read_ce", 1, 0);
  cr_assert_not_null(c, "the one-way test before it is read as ever");
  cr_expect_float_eq(gcb_model_col(c, GCB_RC_FIG_MEDIAN, 0), 389.90, 1e-9);
  gcb_model_free(m);

  m = load(DATA("nvbandwidth-v0.2-h800-llm-action.txt"),
           GCB_FORMAT_NVBANDWIDTH);
  cr_expect_null(nvbw_pair(m, bidir, 0, 1), "v0.2's CE bidir is one way");
  cr_expect_null(
      nvbw_pair(m, "device_to_device_bidirectional_memcpy_write_ce", 0, 1));
  c = nvbw_pair(m, "device_to_device_bidirectional_memcpy_read_sm", 0, 1);
  cr_assert_not_null(c, "v0.2's SM bidir is the total");
  cr_expect_str_eq(c->direction, "bidir");
  cr_expect_float_eq(gcb_model_col(c, GCB_RC_FIG_MEDIAN, 0), 301.70, 1e-9);
  cr_expect_float_eq(
      nvbw_figure(m, "device_to_device_bidirectional_memcpy_read_ce [0][1]"),
      170.54, 1e-9);
  gcb_model_free(m);
}

/* text with its one `from` made `to` (a new string). */
static char *edited(const char *text, const char *from, const char *to) {
  const char *at = strstr(text, from);
  cr_assert(at != NULL && strstr(at + 1, from) == NULL, "one %s", from);
  size_t head = (size_t)(at - text), len = strlen(text);
  char *out = malloc(len - strlen(from) + strlen(to) + 1);
  cr_assert_not_null(out);
  memcpy(out, text, head);
  strcpy(out + head, to);
  strcat(out, at + strlen(from));
  return out;
}

/* A cell nvbandwidth printed as 0.00 is a copy it measured at under
 * 0.005 GB/s: the GPU's error, which fails the run. It used to leave the
 * GPU out of its case (the h2d case lost GPU 3, the pair became an
 * imported figure nothing judges): a dead link passed where one at 10 % of
 * its peers failed. An N/A among measured pairs is a copy it did not run:
 * a skip that says so, no longer dropped without a word. The red team's
 * edits of the real v0.2 H800 log. */
Test(interop_corpus, a_cell_of_0_is_an_error_of_its_gpu_and_an_na_pair_a_skip) {
  size_t len;
  char *text = slurp(DATA("nvbandwidth-v0.2-h800-llm-action.txt"), &len);
  char *a = edited(text, "0     55.28     55.30     55.32     55.30",
                   "0     55.28     55.30     55.32      0.00");
  char *b = edited(a, "2    171.96    172.05       N/A    172.05",
                   "2    171.96    172.05       N/A      0.00");
  char *c = edited(b, "5    172.18    172.21", "5       N/A    172.21");
  struct gcb_model *m = load_text(c, GCB_FORMAT_NVBANDWIDTH);
  const struct gcb_model_case *h2d =
      find_str(m, "pcie", "testcase", "host_to_device_memcpy_ce", NULL, NULL);
  cr_assert_not_null(h2d);
  cr_expect_eq(h2d->ranks.n, 7, "GPU 3 measured nothing");
  static const struct {
    const char *bench, *label;
    long long rank;
  } errors[] = {{"pcie", "host_to_device_memcpy_ce GPU3", 3},
                /* a read test: the row GPU (2) read its peer (3) */
                {"p2p", "device_to_device_memcpy_read_ce GPU3->GPU2", 3}};
  cr_assert_eq(m->nerrors, 2);
  for (size_t i = 0; i < 2; i++) {
    cr_expect_str_eq(m->errors[i].bench, errors[i].bench);
    cr_expect_str_eq(m->errors[i].label, errors[i].label);
    cr_expect_eq(m->errors[i].rank, errors[i].rank);
    cr_expect_str_eq(m->errors[i].status, "EVALIDATION");
    cr_expect_not_null(strstr(m->errors[i].message, errors[i].label),
                       "the verdict's line names the copy: %s",
                       m->errors[i].message);
  }
  cr_expect_null(nvbw_pair(m, "device_to_device_memcpy_read_ce", 3, 2));
  bool said = false;
  for (size_t i = 0; i < m->nskips; i++)
    said |= strcmp(m->skips[i].label,
                   "device_to_device_memcpy_read_ce GPU0->GPU5") == 0 &&
            strstr(m->skips[i].reason, "N/A") != NULL;
  cr_expect(said, "the N/A pair is a skip");
  gcb_model_free(m);
  free(c);
  free(b);
  free(a);
  free(text);
}

/* Two runs' output in one file: CSCS's two real GH200 logs interleaved
 * line by line (two launches writing to one terminal or log) were merged
 * into one test, each size twice, and passed where the slow run alone
 * warns (red team, 2026-12-05): refused at the second listing of a rank
 * under another pid. The same two logs one after the other are two tests,
 * read as before. */
Test(interop_corpus, two_runs_interleaved_in_one_file_are_refused) {
  size_t la, lb;
  char *a = slurp(DATA("cscs-nccl-2.17.1-gh200-allreduce.txt"), &la);
  char *b = slurp(DATA("cscs-nccl-2.17.1-gh200-allreduce-nocxi.txt"), &lb);
  char *mixed = malloc(la + lb + 2), *out = mixed;
  cr_assert_not_null(mixed);
  for (const char *p = a, *q = b; *p || *q;) {
    size_t n = strcspn(p, "\n");
    memcpy(out, p, n + (p[n] == '\n'));
    out += n + (p[n] == '\n');
    p += n + (p[n] == '\n');
    n = strcspn(q, "\n");
    memcpy(out, q, n + (q[n] == '\n'));
    out += n + (q[n] == '\n');
    q += n + (q[n] == '\n');
  }
  *out = '\0';
  struct gcb_results *r = NULL;
  struct gcb_model *m = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_interop_parse(mixed, strlen(mixed), "mixed.txt", NULL, 0, &r,
                                 &m, NULL, &err),
               GCB_EINPUT);
  cr_expect_null(m);
  cr_expect_not_null(strstr(err.msg, "two runs' output interleaved"), "%s",
                     err.msg);
  snprintf(mixed, la + lb + 2, "%s%s", a, b);
  cr_assert_eq(gcb_interop_parse(mixed, strlen(mixed), "both.txt", NULL, 0, &r,
                                 &m, NULL, &err),
               GCB_OK, "%s", err.msg);
  gcb_model_free(m);
  free(mixed);
  free(b);
  free(a);
}

/* The rank that failed, where nccl-tests says: every cause line of one
 * host and every caller line of one pid (" .. HOST pid P: Test failure")
 * that is one rank of the device list. The error is that rank's, so the
 * drain list names its node; it was the run's. Several hosts (the real
 * GH200 log: each rank busy) or a process of several GPUs (the RTX 3090
 * log, -g 2) stay the run's. The one-rank log is the GH200 log with the
 * other ranks' failure lines taken out. */
Test(interop_corpus, a_failure_of_one_rank_is_that_ranks_error) {
  static const struct {
    const char *file;
    long long rank;
  } whole[] = {{"nccl-tests-369-gh200-cuda-failure.txt", -1},
               {"nccl-tests-124-rtx3090-ncclfailure.txt", -1},
               {"nccl-tests-322-h100-ncclfailure-cut.txt", -1}};
  for (size_t i = 0; i < 3; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/interop/%s", GCB_TEST_DATA, whole[i].file);
    struct gcb_model *m = load(path, GCB_FORMAT_NCCL_TESTS);
    cr_assert_geq(m->nerrors, 1, "%s", whole[i].file);
    cr_expect_eq(m->errors[0].rank, whole[i].rank, "%s", whole[i].file);
    gcb_model_free(m);
  }
  size_t len;
  char *text = slurp(DATA("nccl-tests-369-gh200-cuda-failure.txt"), &len);
  char *one = malloc(len + 1), *out = one;
  cr_assert_not_null(one);
  bool kept = false;
  for (const char *l = text; *l;) {
    size_t n = strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n');
    bool failure = strstr(l, ": Test ") != NULL && strstr(l, ": Test ") < l + n;
    bool mine = failure && !kept &&
                (strncmp(l, "gpu-1-7: Test CUDA", 18) == 0 ||
                 strncmp(l, " .. gpu-1-7 pid 3230359:", 24) == 0);
    if (!failure || mine) {
      memcpy(out, l, n);
      out += n;
    }
    kept = kept || (mine && strncmp(l, " .. ", 4) == 0);
    l += n;
  }
  *out = '\0';
  struct gcb_model *m = load_text(one, GCB_FORMAT_NCCL_TESTS);
  cr_expect_eq(m->nranks, 8, "the device list whole");
  cr_assert_eq(m->nerrors, 1);
  cr_expect_eq(m->errors[0].rank, 5, "pid 3230359 on gpu-1-7: %s",
               m->errors[0].message);
  gcb_model_free(m);
  free(one);
  free(text);
}

/* A device line of a rank no run has (negative, or past 2^20: an edited
 * or corrupted log) was passed over: the real two-node H100 log read as 15
 * GPUs and passed. Refused at its line. */
Test(interop_corpus, a_device_line_of_no_rank_is_refused_at_its_line) {
  size_t len;
  char *text = slurp(DATA("nccl-tests-309-h100-2node.txt"), &len);
  char *at = strstr(text, "Rank  1 Group");
  cr_assert_not_null(at);
  static const char *const ranks[] = {"-1", "99999999999"};
  for (size_t i = 0; i < 2; i++) {
    size_t n = strlen(text) + 16;
    char *edited = malloc(n);
    cr_assert_not_null(edited);
    snprintf(edited, n, "%.*sRank %s Group%s", (int)(at - text), text, ranks[i],
             at + strlen("Rank  1 Group"));
    struct gcb_results *r = NULL;
    struct gcb_model *m = NULL;
    struct gcb_err err = {0};
    cr_expect_eq(gcb_interop_parse(edited, strlen(edited), "rank.txt", NULL, 0,
                                   &r, &m, NULL, &err),
                 GCB_EINPUT);
    cr_expect_null(m);
    char want[96];
    snprintf(want, sizeof want,
             "nccl-tests log: a device line of rank %s: not a rank", ranks[i]);
    cr_expect_not_null(strstr(err.msg, want), "%s", err.msg);
    cr_expect_eq(strncmp(err.msg, "rank.txt:", 9), 0, "%s", err.msg);
    free(edited);
  }
  free(text);
}

Test(interop_corpus, a_multinode_nvbandwidth_run_puts_each_gpu_on_its_host) {
  struct gcb_model *r = load(DATA("oke-nvbandwidth-v0.7-multinode-gb200.txt"),
                             GCB_FORMAT_NVBANDWIDTH);
  cr_assert_eq(r->nnodes, 2);
  cr_expect_str_eq(r->nodes[0].hostname, "nvbandwidth-test-worker-0");
  cr_expect_str_eq(r->nodes[1].hostname, "nvbandwidth-test-worker-1");
  cr_assert_eq(r->nranks, 8);
  const struct gcb_model_rank *k = gcb_model_rank(r, 5);
  cr_assert_not_null(k);
  cr_expect_eq(k->node, 1);
  cr_expect_eq(k->device_index, 1);
  cr_expect_str_eq(k->device_bus_id, "0009:01:00.0");
  cr_expect_str_eq(k->device_name, "HGX GB200");
  gcb_model_free(r);
}

Test(interop_corpus, nvbandwidth_latency_and_all_to_host_are_kept) {
  struct gcb_model *r =
      load(DATA("superbench-nvbandwidth-v0.6.log"), GCB_FORMAT_NVBANDWIDTH);
  const struct gcb_model_case *lat =
      find_str(r, "imported", "name", "host_device_latency_sm", NULL, NULL);
  cr_assert_not_null(lat);
  cr_expect_str_eq(lat->unit, "ns", "its own unit");
  cr_expect_eq(summary(lat, "median"), 772.58);
  const struct gcb_model_case *all =
      find_str(r, "imported", "name", "all_to_host_memcpy_ce", NULL, NULL);
  cr_assert_not_null(all);
  cr_expect_eq(summary(all, "median"), 295.15);
  cr_expect_not_null(find_str(r, "imported", "name",
                              "host_to_all_bidirectional_memcpy_sm", NULL,
                              NULL));
  cr_expect_eq(r->nskips, 17, "every Waived: line");
  gcb_model_free(r);
}

/* ---- summary figures in criteria, files of no format -------------------- */

Test(interop_corpus, avg_bus_bandwidth_is_nameable_in_criteria) {
  static const char spec[] =
      "{\"schema\": \"gcbench.criteria/1\", \"checks\": ["
      "{\"name\": \"avg\", \"bench\": \"imported\", \"params\": "
      "{\"name\": \"avg_bus_bandwidth\", \"op\": \"allreduce\"}, "
      "\"min\": {\"figure\": 70.7}},"
      "{\"name\": \"high\", \"bench\": \"imported\", \"params\": "
      "{\"name\": \"avg_bus_bandwidth\"}, \"min\": {\"figure\": 70.8}},"
      "{\"name\": \"not a figure\", \"bench\": \"coll\", \"params\": "
      "{\"size\": 8}, \"min\": {\"figure\": 0}}]}";
  struct gcb_criteria *cr = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_criteria_parse(spec, strlen(spec), "c.json", &cr, &err),
               GCB_OK, "%s", err.msg);
  struct gcb_model *r =
      load(DATA("a3mega-h100-16rank-allreduce.md"), GCB_FORMAT_NCCL_TESTS);
  struct gcb_doc doc = fx_doc_read("a3mega", NULL, r);
  struct gcb_check_result res[3] = {{0}};
  struct gcb_findings f = {0};
  cr_assert_eq(gcb_criteria_evaluate(cr, &doc, 1, res, &f, &err), GCB_OK);
  cr_expect_eq(res[0].matched, 1);
  cr_expect_eq(res[0].failed, 0, "70.742 >= 70.7, as printed");
  cr_expect_eq(res[1].failed, 1, "70.742 < 70.8");
  cr_expect(res[2].failed > 0 || res[2].na > 0,
            "a measured case is no imported figure");
  gcb_findings_free(&f);
  gcb_criteria_free(cr);
  fx_doc_free(&doc);
}

Test(interop_corpus, a_file_of_no_format_names_every_format_tried) {
  static const char *const files[] = {
      DATA("README.md"), DATA("rccl-2075-strix-halo-broadcast-tail.txt")};
  for (size_t i = 0; i < 2; i++) {
    struct gcb_results *r = NULL;
    struct gcb_model *m = NULL;
    struct gcb_err err = {0};
    enum gcb_format f;
    cr_expect_eq(fx_interop_read(files[i], NULL, 0, &r, &m, &f, &err),
                 GCB_EINPUT);
    cr_expect_eq(f, GCB_FORMAT_UNKNOWN);
    cr_expect_null(r);
    cr_expect_null(m);
    cr_expect(strstr(err.msg, ": not a format gcbench reads (tried ") != NULL,
              "%s", err.msg);
    static const char *const rows[] = {
        "gcbench results: not JSON",
        "nccl-tests JSON:", "nccl-tests log: no column header",
        "OSU: no \"# OSU", "nvbandwidth text: no"};
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++)
      cr_expect(strstr(err.msg, rows[k]) != NULL, "%s in %s", rows[k], err.msg);
    cr_expect(strpbrk(err.msg, "\n\r") == NULL, "one line");
  }
}
