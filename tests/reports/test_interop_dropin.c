/*
 * Outputs of the programs gcbench also runs as drop-ins, read as the cases
 * gcbench's own run of that program writes: OSU's osu_gather,
 * osu_scatter, osu_barrier, osu_bibw, osu_multi_lat, osu_mbw_mr and
 * osu_latency, and nccl-tests' gather_perf and scatter_perf. Real files:
 * OSU 5.3.2 to 7.4 and nccl-tests output from public repositories and
 * issue threads (tests/data/osu/README.md, tests/data/nccl/README.md name
 * each), and gcbench's own runs of the same programs on this VM
 * (gcbench-vm-*: its stdout and its results document), which `gcbench
 * compare` must pair case by case. Each figure is checked against the
 * file's own text, read here with a parser of its own.
 */
#include <math.h>

#include "reports/compare/compare.h"
#include "reports/document/view.h"
#include "reports/interop/interop.h"
#include "tests/reports/report_fixture.h"

#define OSU(name) GCB_TEST_DATA "/osu/" name
#define NCCL(name) GCB_TEST_DATA "/nccl/" name
#define MAXTOK 16

/* Another tool's file, converted: its model. */
static struct gcb_model *load_as(const char *path, enum gcb_format want) {
  struct gcb_results *r = NULL;
  struct gcb_model *m = NULL;
  struct gcb_err err = {0};
  enum gcb_format f;
  cr_assert_eq(fx_interop_read(path, NULL, 0, &r, &m, &f, &err), GCB_OK, "%s",
               err.msg);
  cr_assert_eq(f, want, "%s read as %s", path, gcb_format_name(f));
  cr_assert_null(r, "a converted file is its model alone");
  return m;
}

static struct gcb_model *load(const char *path) {
  return load_as(path, GCB_FORMAT_OSU);
}

static struct gcb_model *parse(const char *text, const char *name,
                               struct gcb_err *err) {
  struct gcb_results *r = NULL;
  struct gcb_model *m = NULL;
  enum gcb_status st =
      gcb_interop_parse(text, strlen(text), name, NULL, 0, &r, &m, NULL, err);
  gcb_results_free(r);
  return st == GCB_OK ? m : NULL;
}

/* The case of op at size (params.size), or NULL. */
static const struct gcb_model_case *at_size(const struct gcb_model *r,
                                            const char *op, double size) {
  for (size_t i = 0; i < r->ncases; i++) {
    const struct gcb_model_case *c = &r->cases[i];
    if (strcmp(gcb_model_param_str(c, "op"), op) == 0 &&
        gcb_model_param_num(c, "size") == size)
      return c;
  }
  return NULL;
}

/* A figure of the case's summary by its name in the document. */
static double sum(const struct gcb_model_case *c, const char *key) {
  const struct gcb_model_summary *s = &c->summary;
  return strcmp(key, "busbw") == 0    ? s->busbw
         : strcmp(key, "algbw") == 0  ? s->algbw
         : strcmp(key, "min") == 0    ? s->min
         : strcmp(key, "max") == 0    ? s->max
         : strcmp(key, "mean") == 0   ? s->mean
         : strcmp(key, "median") == 0 ? s->median
                                      : NAN;
}

static double time_us(const struct gcb_model_case *c, const char *key) {
  const struct gcb_model_summary *s = &c->summary;
  return 1e6 * (strcmp(key, "min") == 0   ? s->time_min
                : strcmp(key, "max") == 0 ? s->time_max
                                          : s->time_mean);
}

/* A table row of the file: the numbers of a line whose first token is a
 * whole number (sized) or of every all-numeric line (sizeless); with
 * words, a row's words (nccl-tests' type and redop, OSU's Pass) are
 * passed over. */
struct row {
  double v[MAXTOK];
  size_t n;
};

static size_t rows_of(const char *path, bool sizeless, bool words,
                      struct row *out, size_t max) {
  size_t len, n = 0;
  char *text = fx_slurp(path, &len), *save = NULL;
  cr_assert_not_null(text);
  for (char *l = strtok_r(text, "\n", &save); l && n < max;
       l = strtok_r(NULL, "\n", &save)) {
    struct row r = {0};
    char *end, *s2 = NULL;
    bool numeric = true;
    for (char *t = strtok_r(l, " \t\r", &s2); t && r.n < MAXTOK;
         t = strtok_r(NULL, " \t\r", &s2)) {
      double v = strtod(t, &end);
      if (words && r.n > 0 && (end == t || *end != '\0'))
        continue;
      r.v[r.n++] = v;
      numeric = numeric && *end == '\0';
    }
    /* strtok_r cut l after its first token: l is that token now */
    if (l[0] != '#' && r.n > 0 && numeric &&
        (sizeless || (r.v[0] == floor(r.v[0]) && strchr(l, '.') == NULL)))
      out[n++] = r;
  }
  free(text);
  return n;
}

/* Every param gcbench's drop-in writes that OSU's file says. */
static void expect_layout(const struct gcb_model_case *c, const char *op, const char *type,
                          const char *redop, long long root,
                          const char *layout) {
  cr_expect_str_eq(c->bench, "coll");
  cr_expect_str_eq(c->unit, "GB/s");
  cr_expect_str_eq(gcb_model_param_str(c, "op"), op);
  cr_expect_str_eq(gcb_model_param_str(c, "type"), type);
  cr_expect_str_eq(gcb_model_param_str(c, "redop"), redop);
  cr_expect_eq(gcb_model_param_num(c, "root"), (double)root);
  cr_expect_eq(gcb_model_param_num(c, "inplace"), 0);
  cr_expect_str_eq(gcb_model_param_str(c, "split"), "none");
  cr_expect_str_eq(gcb_model_param_str(c, "layout"), layout);
}

/* ---- collectives with a root: gather, scatter --------------------------- */

static void check_rooted(const char *file, const char *op, size_t want_rows) {
  struct row rows[64];
  size_t n = rows_of(file, false, false, rows, 64);
  struct gcb_model *r = load(file);
  cr_expect_eq(n, want_rows, "%s", file);
  cr_expect_eq(r->ncases, n, "%s: one case per row", file);
  for (size_t i = 0; i < n; i++) {
    const struct gcb_model_case *c = at_size(r, op, rows[i].v[0]);
    cr_assert_not_null(c, "%s: %s %g B", file, op, rows[i].v[0]);
    expect_layout(c, op, "int8", "none", 0, "osu");
    cr_expect_float_eq(time_us(c, "mean"), rows[i].v[1], 1e-9 * rows[i].v[1]);
    cr_expect_float_eq(sum(c, "algbw"), rows[i].v[0] / (rows[i].v[1] * 1e3),
                       1e-9 * sum(c, "algbw"), "algbw = S/t");
    cr_expect(isnan(gcb_model_param_num(c, "comm_size")),
              "%s: OSU prints no rank count", file);
    cr_expect(isnan(sum(c, "busbw")), "%s: no busbw without it", file);
  }
  gcb_model_free(r);
}

Test(interop_dropin, gather_and_scatter_5_6_3_become_rooted_collectives) {
  check_rooted(OSU("osu-5.6.3-osu_gather-openmpi-wukan.txt"), "gather", 21);
  check_rooted(OSU("osu-5.6.3-osu_scatter-openmpi-wukan.txt"), "scatter", 21);
}

Test(interop_dropin, gather_and_scatter_7_4_become_rooted_collectives) {
  check_rooted(OSU("osu-7.4-osu_gather-mpich-vm.txt"), "gather", 5);
  check_rooted(OSU("osu-7.4-osu_scatter-mpich-vm.txt"), "scatter", 5);
}

/* -f's Min/Max/Iterations and -c's Validation: min and max over ranks,
 * OSU's iterations, checked; the layout osu-full, as gcbench's -f. */
Test(interop_dropin, gather_full_and_validated_keeps_min_max_and_checks) {
  const char *file = OSU("osu-7.4-osu_gather-f-c-mpich-vm.txt");
  struct row rows[16];
  size_t n = rows_of(file, false, true, rows, 16);
  struct gcb_model *r = load(file);
  cr_assert_gt(n, 0);
  for (size_t i = 0; i < n; i++) {
    const struct gcb_model_case *c = at_size(r, "gather", rows[i].v[0]);
    cr_assert_not_null(c);
    expect_layout(c, "gather", "int8", "none", 0, "osu-full");
    cr_expect_float_eq(time_us(c, "mean"), rows[i].v[1], 1e-6);
    cr_expect_float_eq(time_us(c, "min"), rows[i].v[2], 1e-6);
    cr_expect_float_eq(time_us(c, "max"), rows[i].v[3], 1e-6);
    cr_expect_eq(c->iterations, (long long)rows[i].v[4]);
    cr_expect(c->validation.checked);
  }
  gcb_model_free(r);
}

/* "mpiexec -n 8" above the output (the run the 5.6.3 file comes from):
 * gcbench's S is each rank's block times 8, comm_size 8, busbw algbw *
 * 7/8 (GatherGetBw). */
Test(interop_dropin, a_launcher_line_gives_the_rank_count_and_nccl_tests_size) {
  size_t len = 0;
  char *osu = fx_slurp(OSU("osu-5.6.3-osu_gather-openmpi-wukan.txt"), &len);
  char *text = malloc(len + 64);
  snprintf(text, len + 64, "mpiexec -n 8 ./osu_gather\n%s", osu);
  struct gcb_err err = {0};
  struct gcb_model *r = parse(text, "run_osu.log", &err);
  cr_assert_not_null(r, "%s", err.msg);
  const struct gcb_model_case *c = at_size(r, "gather", 8.0 * 1024);
  cr_assert_not_null(c, "OSU's 1024 B per rank is S = 8 KiB");
  cr_expect_eq(gcb_model_param_num(c, "comm_size"), 8);
  cr_expect_eq(gcb_model_param_num(c, "count"), 1024, "each rank's elements");
  cr_expect_float_eq(sum(c, "busbw"), sum(c, "algbw") * 7 / 8, 1e-12);
  cr_expect_float_eq(time_us(c, "mean"), 0.74, 1e-9);
  cr_expect_eq(
      r->run.ranks, 8);
  free(text);
  free(osu);
  gcb_model_free(r);
}

/* A size within 2^53 whose S on the launcher's ranks is past it: the
 * same located error as a size past 2^53. */
Test(interop_dropin, a_per_rank_size_past_2_to_the_53_on_n_ranks_is_refused) {
  struct gcb_err err = {0};
  struct gcb_model *r = parse("mpirun -np 1024 ./osu_gather\n"
                                "# OSU MPI Gather Latency Test v7.4\n"
                                "# Size       Avg Latency(us)\n"
                                "1                       0.40\n"
                                "9007199254740992        0.50\n",
                                "g.txt", &err);
  cr_expect_null(r);
  cr_expect(strstr(err.msg, "g.txt:5:") != NULL &&
                strstr(err.msg, "more than 2^53") != NULL,
            "%s", err.msg);
}

/* ---- osu_barrier: no size column ---------------------------------------- */

static const struct gcb_model_case *only_case(struct gcb_model *r) {
  cr_assert_eq(r->ncases, 1);
  cr_expect_eq(r->nskips,
               0, "a barrier's 0 bytes are its case, not a skip");
  return &r->cases[0];
}

Test(interop_dropin, barrier_is_one_case_of_no_bytes_with_its_time) {
  static const char *const files[] = {
      OSU("osu-5.6.3-osu_barrier-openmpi-wukan.txt"),
      OSU("osu-7.4-osu_barrier-mpich-vm.txt")};
  for (size_t i = 0; i < 2; i++) {
    struct row rows[4];
    cr_assert_eq(rows_of(files[i], true, false, rows, 4), 1, "%s", files[i]);
    struct gcb_model *r = load(files[i]);
    const struct gcb_model_case *c = only_case(r);
    expect_layout(c, "barrier", "uint8", "none", -1, "osu");
    cr_expect_eq(gcb_model_param_num(c, "size"), 0);
    cr_expect_eq(gcb_model_param_num(c, "count"), 0);
    cr_expect_float_eq(time_us(c, "mean"), rows[0].v[0], 1e-9);
    cr_expect_eq(sum(c, "median"), 0, "0 GB/s, as gcbench's barrier");
    gcb_model_free(r);
  }
}

Test(interop_dropin, barrier_full_keeps_min_max_and_iterations) {
  const char *file = OSU("osu-7.4-osu_barrier-f-mpich-vm.txt");
  struct row rows[4];
  cr_assert_eq(rows_of(file, true, false, rows, 4), 1);
  struct gcb_model *r = load(file);
  const struct gcb_model_case *c = only_case(r);
  expect_layout(c, "barrier", "uint8", "none", -1, "osu-full");
  cr_expect_float_eq(time_us(c, "min"), rows[0].v[1], 1e-9);
  cr_expect_float_eq(time_us(c, "max"), rows[0].v[2], 1e-9);
  cr_expect_eq(c->iterations, (long long)rows[0].v[3]);
  gcb_model_free(r);
}

/* A whole-number latency ("2.00" reads as 2) is still the time, never a
 * size; a second row is a located error. */
Test(interop_dropin, a_barrier_value_is_never_read_as_a_size) {
  struct gcb_err err = {0};
  struct gcb_model *r =
      parse("# OSU MPI Barrier Latency Test v7.4\n# Avg Latency(us)\n"
            "             2.00\n",
            "b.txt", &err);
  cr_assert_not_null(r, "%s", err.msg);
  const struct gcb_model_case *c = only_case(r);
  cr_expect_eq(gcb_model_param_num(c, "size"), 0);
  cr_expect_float_eq(time_us(c, "mean"), 2.0, 1e-12);
  gcb_model_free(r);
  r = parse("# OSU MPI Barrier Latency Test v7.4\n# Avg Latency(us)\n"
            "             2.00\n             3.00\n# OSU MPI Latency Test\n",
            "b.txt", &err);
  cr_expect_null(r);
  cr_expect(strstr(err.msg, "b.txt:4:") != NULL &&
                strstr(err.msg, "second row") != NULL,
            "%s", err.msg);
}

/* ---- point-to-point and multi-pair -------------------------------------- */

Test(interop_dropin, bibw_is_gcbenchs_bibw_of_two_ranks_in_gb_per_s) {
  const char *file = OSU("excalibur-5.6.2-osu_bibw.txt");
  struct row rows[32];
  size_t n = rows_of(file, false, false, rows, 32);
  struct gcb_model *r = load(file);
  cr_assert_gt(n, 20);
  cr_expect_eq(r->ncases, n);
  for (size_t i = 0; i < n; i++) {
    const struct gcb_model_case *c = at_size(r, "bibw", rows[i].v[0]);
    cr_assert_not_null(c, "%g B", rows[i].v[0]);
    expect_layout(c, "bibw", "uint8", "none", -1, "osu");
    cr_expect_eq(gcb_model_param_num(c, "comm_size"), 2);
    cr_expect_eq(gcb_model_param_num(c, "average"), 0);
    cr_expect_float_eq(sum(c, "algbw") * 1e3, rows[i].v[1], 1e-9 * rows[i].v[1],
                       "MB/s as GB/s");
    cr_expect_float_eq(time_us(c, "mean"), rows[i].v[0] / rows[i].v[1],
                       1e-9 * time_us(c, "mean"), "size / 1e6 / t = MB/s");
  }
  gcb_model_free(r);
}

/* 8 pairs: comm_size 16; the time from Messages/s (pairs / t), the figure
 * each pair's algbw; OSU's MB/s is pairs * algbw, never Messages/s. */
static void check_mbw_mr(const char *file, double pairs, size_t min_rows) {
  struct row rows[32];
  size_t n = rows_of(file, false, false, rows, 32);
  struct gcb_model *r = load(file);
  cr_assert_geq(n, min_rows, "%s", file);
  for (size_t i = 0; i < n; i++) {
    const struct gcb_model_case *c = at_size(r, "bandwidth", rows[i].v[0]);
    cr_assert_not_null(c, "%s %g B", file, rows[i].v[0]);
    expect_layout(c, "bandwidth", "uint8", "none", -1, "osu-multi");
    cr_expect_eq(gcb_model_param_num(c, "comm_size"), 2 * pairs);
    cr_expect_eq(gcb_model_param_num(c, "average"), 4);
    /* each column printed to 0.01: the time agrees with both */
    double t = 1e6 * pairs / rows[i].v[2];
    double tol = 0.0051 / rows[i].v[2] + 0.0051 / rows[i].v[1];
    cr_expect(fabs(time_us(c, "mean") - t) <= tol * t, "%s %g B", file,
              rows[i].v[0]);
    double mbs = pairs * sum(c, "algbw") * 1e3;
    cr_expect(fabs(mbs - rows[i].v[1]) <= 0.0101 + 1e-9 * rows[i].v[1],
              "%s %g B: %g MB/s printed, %g read", file, rows[i].v[0],
              rows[i].v[1], mbs);
    cr_expect_neq(sum(c, "median"), rows[i].v[2], "not Messages/s");
  }
  gcb_model_free(r);
}

Test(interop_dropin, mbw_mr_reads_pairs_and_both_columns) {
  check_mbw_mr(OSU("excalibur-5.6.2-osu_mbw_mr-8pairs.txt"), 8, 20);
  check_mbw_mr(OSU("cloudai-7.4-osu_mbw_mr.txt"), 1, 2);
}

/* -W 32 is in the pairs line: gcbench's run with --window 32 writes it;
 * OSU's default 64 is not written, as gcbench's default. */
Test(interop_dropin, mbw_mr_window_other_than_64_is_a_param) {
  struct gcb_err err = {0};
  struct gcb_model *r =
      parse("# OSU MPI Multiple Bandwidth / Message Rate Test v7.4\n"
            "# [ pairs: 4 ] [ window size: 32 ]\n"
            "# Size                  MB/s        Messages/s\n"
            "1                       4.00        4000000.00\n",
            "w.txt", &err);
  cr_assert_not_null(r, "%s", err.msg);
  const struct gcb_model_case *c = at_size(r, "bandwidth", 1);
  cr_assert_not_null(c);
  cr_expect_eq(gcb_model_param_num(c, "window"), 32);
  cr_expect_eq(gcb_model_param_num(c, "comm_size"), 8);
  cr_expect_float_eq(time_us(c, "mean"), 1.0, 1e-12, "4 pairs / 4e6 per s");
  gcb_model_free(r);
  r = load(OSU("excalibur-5.6.2-osu_mbw_mr-8pairs.txt"));
  cr_expect(isnan(gcb_model_param_num(&r->cases[0], "window")),
            "window size 64 is OSU's and gcbench's default");
  gcb_model_free(r);
}

/* A value that is no number in a table gcbench reads is one located
 * line, not a figure made up from the other column. */
Test(interop_dropin, a_value_that_is_not_a_number_is_a_located_error) {
  struct gcb_err err = {0};
  struct gcb_model *r =
      parse("# OSU MPI Multiple Bandwidth / Message Rate Test v7.4\n"
            "# [ pairs: 4 ] [ window size: 64 ]\n"
            "# Size                  MB/s        Messages/s\n"
            "1                       4.00        4000000.00\n"
            "2                          x        4000000.00\n"
            "4                      16.00        4000000.00\n",
            "m.txt", &err);
  cr_expect_null(r);
  cr_expect(strstr(err.msg, "m.txt:5:") != NULL &&
                strstr(err.msg, "MB/s 'x' is not a number") != NULL,
            "%s", err.msg);
}

/* 5.3.2's "Latency (us)" and 7.4's "Avg Latency(us)"; 5.x's 0-byte row
 * is a case of its time (a message of no bytes, compared in time), as
 * osu_latency's: it was skipped, and a 0-byte latency 5x worse passed a
 * compare. */
Test(interop_dropin, multi_lat_is_gcbenchs_multi_pair_latency) {
  static const char *const files[] = {OSU("cofc-5.3.2-osu_multi_lat.txt"),
                                      OSU("cloudai-7.4-osu_multi_lat.txt")};
  for (size_t f = 0; f < 2; f++) {
    struct row rows[32];
    size_t n = rows_of(files[f], false, false, rows, 32), zero = 0;
    struct gcb_model *r = load(files[f]);
    cr_assert_gt(n, 5);
    for (size_t i = 0; i < n; i++) {
      zero += rows[i].v[0] == 0;
      const struct gcb_model_case *c = at_size(r, "latency", rows[i].v[0]);
      cr_assert_not_null(c, "%s %g B", files[f], rows[i].v[0]);
      expect_layout(c, "latency", "uint8", "none", -1, "osu-multi");
      cr_expect_eq(gcb_model_param_num(c, "average"), 4);
      cr_expect_float_eq(time_us(c, "mean"), rows[i].v[1], 1e-9);
    }
    cr_expect_eq(zero, f == 0, "5.x's 0-byte row");
    cr_expect_eq(r->ncases, n);
    cr_expect_eq(r->nskips, 0);
    gcb_model_free(r);
  }
}

/* ---- against gcbench's own runs ----------------------------------------- */

/* gcbench's drop-in run of a program (its results document, doc) and its
 * stdout (txt) read as the tool's output (format): every case of each
 * pairs with one of the other; only the tool's summary figures
 * (nccl-tests' Avg bus bandwidth, an imported case) have no partner. */
static void check_pairs(const char *txt, const char *doc,
                        enum gcb_format format) {
  struct gcb_model *tool = load_as(txt, format), *mown = NULL;
  struct gcb_results *own = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(fx_interop_read(doc, NULL, 0, &own, &mown, NULL, &err), GCB_OK,
               "%s", err.msg);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_doc o = fx_doc_read(txt, NULL, tool);
  struct gcb_doc n = fx_doc_read(doc, own, mown);
  struct gcb_comparison cmp = {0};
  cr_assert_eq(gcb_compare(&o, &n, &t, &cmp, &err), GCB_OK, "%s", err.msg);
  size_t paired = 0, coll = 0;
  size_t i;
  for (i = 0; i < cmp.ndeltas; i++) {
    bool imported = strncmp(cmp.deltas[i].key, "imported ", 9) == 0;
    cr_expect(imported || (cmp.deltas[i].verdict != GCB_VERDICT_ONLY_OLD &&
                           cmp.deltas[i].verdict != GCB_VERDICT_ONLY_NEW),
              "%s: %s in one run only", txt, cmp.deltas[i].key);
    paired +=
        !isnan(cmp.deltas[i].old_value) && !isnan(cmp.deltas[i].new_value);
  }
  for (i = 0; i < tool->ncases; i++)
    coll += strcmp(tool->cases[i].bench, "coll") == 0;
  cr_expect_gt(paired, 0, "%s: nothing compared", txt);
  cr_expect_eq(coll, mown->ncases, "%s", txt);
  gcb_comparison_free(&cmp);
  fx_doc_free(&o);
  fx_doc_free(&n);
  gcb_results_free(own);
}

Test(interop_dropin, compare_pairs_osu_output_with_gcbenchs_run) {
  static const char *const programs[] = {
      "osu_bibw", "osu_mbw_mr", "osu_latency", "osu_barrier", "osu_gather"};
  for (size_t i = 0; i < sizeof programs / sizeof *programs; i++) {
    char txt[512], doc[512];
    snprintf(txt, sizeof txt, OSU("gcbench-vm-%s.txt"), programs[i]);
    snprintf(doc, sizeof doc, OSU("gcbench-vm-%s.json"), programs[i]);
    check_pairs(txt, doc, GCB_FORMAT_OSU);
  }
}

/* ---- nccl-tests gather_perf and scatter_perf ----------------------------- */

/* NVIDIA/nccl-tests#350's gather_perf on 2 x A100: each row's two halves
 * as gather cases with root 0 and redop none, the communicator of the two
 * ranks its device list shows; the printed time, algbw and busbw kept. */
Test(interop_dropin, gather_perf_log_rows_are_rooted_gather_cases) {
  const char *file = NCCL("nccl-tests-350-gather-a100-cut.txt");
  struct row rows[16];
  size_t n = rows_of(file, false, true, rows, 16);
  struct gcb_model *r = load_as(file, GCB_FORMAT_NCCL_TESTS);
  cr_assert_eq(n, 8, "the thread's first 8 rows");
  cr_expect_eq(r->ncases, 2 * n, "two halves a row");
  for (size_t i = 0; i < n; i++)
    for (int h = 0; h < 2; h++) {
      const struct gcb_model_case *c = NULL;
      for (size_t k = 0; k < r->ncases; k++)
        if (gcb_model_param_num(&r->cases[k], "size") == rows[i].v[0] &&
            gcb_model_param_num(&r->cases[k], "inplace") == h)
          c = &r->cases[k];
      cr_assert_not_null(c, "%g B half %d", rows[i].v[0], h);
      cr_expect_str_eq(gcb_model_param_str(c, "op"), "gather");
      cr_expect_str_eq(gcb_model_param_str(c, "type"), "float");
      cr_expect_str_eq(gcb_model_param_str(c, "redop"), "none");
      cr_expect_eq(gcb_model_param_num(c, "root"), 0);
      cr_expect_eq(gcb_model_param_num(c, "count"), rows[i].v[1]);
      cr_expect_str_eq(gcb_model_param_str(c, "split"), "none");
      cr_expect_eq(gcb_model_param_num(c, "comm_size"), 2);
      const double *v = rows[i].v + 3 + 4 * h; /* size count root | ... */
      cr_expect_float_eq(time_us(c, "mean"), v[0], 1e-9 * v[0]);
      cr_expect_float_eq(sum(c, "algbw"), v[1], 1e-12);
      cr_expect_float_eq(sum(c, "busbw"), v[2], 1e-12);
    }
  gcb_model_free(r);
}

Test(interop_dropin, compare_pairs_gather_and_scatter_perf_with_gcbenchs_run) {
  check_pairs(NCCL("gcbench-vm-gather_perf.txt"),
              NCCL("gcbench-vm-gather_perf.json"), GCB_FORMAT_NCCL_TESTS);
  check_pairs(NCCL("gcbench-vm-scatter_perf.txt"),
              NCCL("gcbench-vm-scatter_perf.json"), GCB_FORMAT_NCCL_TESTS);
}
