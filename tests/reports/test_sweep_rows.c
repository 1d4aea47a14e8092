/*
 * The rows of a sweep (reports/analysis/rules_trend.c): a synthetic
 * allreduce sweep on Hockney's model (time = 20 us + bytes / 400 GB/s x
 * the bus factor) flags nothing, with factor 2 or 8 steps; the same sweep
 * with one size at half its bus bandwidth flags exactly that row as
 * `sweep-trend` with the line's figure, and the collective table marks it
 * (a note, bold in report.md, a class in index.html); an in-place 8 B
 * allreduce at 919 us beside an out-of-place one at 20 us is
 * `latency-floor`; a ping-pong latency that jumps at one size is off its
 * neighbours' trend. Real sweeps (tests/data/interop, tests/data/nccl:
 * sources in their READMEs) that are smooth flag nothing, and the two with
 * a real step (NCCL's protocol switch at 600 KB on H100, Intel MPI's
 * eager-to-rendezvous switch at 16 KiB in OSU's allreduce) are flagged
 * there and nowhere else.
 */
#include <math.h>

#include "reports/interop/interop.h"
#include "reports/render/render.h"
#include "tests/reports/report_fixture.h"

#define NRANKS 8
#define ALPHA 20e-6
#define BUS_GBPS 400.0

struct run {
  json_t *doc;
  struct gcb_doc d; /* with its model, kept while findings point into it */
  struct gcb_findings f;
};

/* One collective row: every rank at time t, busbw from the bus factor. */
static json_t *coll_row(const char *op, double size, bool inplace, double t) {
  double figs[NRANKS],
      factor = strcmp(op, "allreduce") == 0 ? 2.0 * (NRANKS - 1) / NRANKS : 1.0;
  for (size_t i = 0; i < NRANKS; i++)
    figs[i] = size * factor / t / 1e9;
  char params[256], label[96];
  snprintf(params, sizeof params,
           "{\"op\": \"%s\", \"size\": %.0f, \"count\": %.0f, \"type\": "
           "\"float\", \"redop\": \"sum\", \"root\": -1, \"inplace\": %d}",
           op, size, size / 4, inplace);
  snprintf(label, sizeof label, "%s float %.0fB%s", op, size,
           inplace ? " in-place" : "");
  json_t *c = fx_case("coll", label, params, "GB/s", figs, NRANKS, 0.01, NULL);
  json_t *s = json_object_get(c, "summary");
  json_object_set_new(s, "time_s",
                      json_pack("{s:f, s:f, s:f}", "min", t * 0.99, "mean", t,
                                "max", t * 1.01));
  json_object_set_new(s, "algbw", json_real(size / t / 1e9));
  json_object_set_new(s, "busbw", json_real(size * factor / t / 1e9));
  return c;
}

/* Hockney's model of an allreduce on NRANKS ranks. */
static double model(double size) {
  return ALPHA + size * 2.0 * (NRANKS - 1) / NRANKS / (BUS_GBPS * 1e9);
}

/* An allreduce sweep from 8 B to 1 GiB by `step`, the size `slow` at
 * `slowdown` times its time (1: none). */
static void sweep(struct run *r, double step, bool inplace, double slow,
                  double slowdown) {
  for (double s = 8; s <= 1073741824.0; s *= step)
    fx_add_case(r->doc, coll_row("allreduce", s, inplace,
                                 model(s) * (s == slow ? slowdown : 1)));
}

static struct run new_run(void) {
  return (struct run){.doc = fx_doc(NRANKS, 1, 16, "Test CPU")};
}

static void analyse(struct run *r) {
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_err err = {0};
  fx_check_valid(r->doc);
  fx_doc_free(&r->d);
  r->d = fx_doc_of("sweep.json", r->doc);
  cr_assert_eq(gcb_analyze(&r->d, 1, &t, &r->f, &err), GCB_OK, "%s", err.msg);
}

static size_t of_kind(const struct gcb_findings *l, const char *kind,
                      const struct gcb_finding **first) {
  size_t n = 0;
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->items[i].kind->name, kind) == 0 && n++ == 0 && first != NULL)
      *first = &l->items[i];
  return n;
}

static void done(struct run *r) {
  gcb_findings_free(&r->f);
  fx_doc_free(&r->d);
  json_decref(r->doc);
}

Test(sweep_rows, a_smooth_sweep_flags_nothing) {
  static const double steps[] = {2, 4, 8};
  for (size_t k = 0; k < 3; k++) {
    struct run r = new_run();
    sweep(&r, steps[k], false, 0, 1);
    sweep(&r, steps[k], true, 0, 1);
    analyse(&r);
    cr_expect_eq(of_kind(&r.f, "sweep-trend", NULL), 0, "step %g", steps[k]);
    cr_expect_eq(of_kind(&r.f, "latency-floor", NULL), 0, "step %g", steps[k]);
    done(&r);
  }
}

/* 1 MiB at half its bus bandwidth: twice its time. */
Test(sweep_rows, one_size_below_its_neighbours_trend_is_flagged) {
  struct run r = new_run();
  sweep(&r, 2, false, 1048576, 2);
  analyse(&r);
  const struct gcb_finding *f = NULL;
  cr_assert_eq(of_kind(&r.f, "sweep-trend", &f), 1);
  cr_expect_eq(of_kind(&r.f, "latency-floor", NULL), 0);
  cr_expect_eq(f->severity, GCB_SEV_WARN);
  cr_expect_float_eq(gcb_model_param_num(f->bench_case, "size"), 1048576, 0);
  cr_expect_float_eq(f->measured, model(1048576) * 2 * 1e6, 1e-6);
  /* the line through 512 KiB and 2 MiB in log-log, at 1 MiB */
  double line = sqrt(model(524288) * model(2097152)) * 1e6;
  cr_expect_float_eq(f->expected, line, 1e-6, "%g", f->expected);
  cr_expect_str_eq(f->unit, "us");
  cr_expect(strstr(f->explanation, "busbw") != NULL, "%s", f->explanation);
  done(&r);
}

/* The same sweep in a report: the row carries a note, report.md bolds
 * it, index.html gives it a class; the smooth half has no mark. */
Test(sweep_rows, the_collective_table_marks_the_flagged_row) {
  struct run r = new_run();
  sweep(&r, 2, false, 1048576, 2);
  analyse(&r);
  gcb_findings_sort(&r.f);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_report rep = {
      .docs = &r.d, .ndocs = 1, .findings = &r.f, .thresholds = &t};
  struct gcb_rtables ts = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_report_tables(&rep, &ts, &err), GCB_OK);
  const struct gcb_rtable *coll = NULL;
  for (size_t i = 0; i < ts.n; i++)
    if (strcmp(ts.items[i].id, "coll-1") == 0)
      coll = &ts.items[i];
  cr_assert_not_null(coll);
  cr_assert_eq(coll->ncols, 18, "a note column");
  cr_expect_str_eq(coll->cells[17], "note");
  size_t marked = 0;
  for (size_t row = 0; row < coll->nrows; row++) {
    const char *cls = coll->row_class[row];
    const char *note = coll->cells[(row + 1) * coll->ncols + 17];
    const char *size = coll->cells[(row + 1) * coll->ncols];
    bool off = cls != NULL && strstr(cls, "off-trend") != NULL;
    marked += off;
    cr_expect_eq(off, strcmp(size, "1048576") == 0, "row %s", size);
    if (off)
      cr_expect(note != NULL && strstr(note, "\xe2\x96\xb2 off trend") != NULL,
                "%s", note ? note : "(none)");
    else
      cr_expect(note == NULL || note[0] == '\0', "%s", note);
  }
  cr_expect_eq(marked, 1);
  gcb_rtables_free(&ts);
  for (int k = 0; k < 2; k++) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    const struct gcb_renderer *rn = k ? &gcb_render_html : &gcb_render_md;
    cr_assert_eq(rn->render(m, &rep, &err), GCB_OK, "%s", err.msg);
    fclose(m);
    if (k == 0)
      cr_expect_not_null(strstr(buf, "| **1048576** | **262144** |"),
                         "bold in report.md");
    else
      cr_expect_not_null(strstr(buf, "<tr class=\"warn off-trend\"><td "
                                     "class=\"n\">1048576</td>"),
                         "a class in index.html");
    free(buf);
  }
  done(&r);
}

/* #14: "an 8-byte latency of 919 us passes without a word". The in-place
 * 8 B row is the first of its sweep (no neighbour line), but the run
 * measured the same operation on the same transport in 20 us. */
Test(sweep_rows, a_small_message_far_above_its_latency_floor) {
  struct run r = new_run();
  sweep(&r, 4, false, 0, 1);
  sweep(&r, 4, true, 8, 919e-6 / model(8));
  analyse(&r);
  const struct gcb_finding *f = NULL;
  cr_assert_eq(of_kind(&r.f, "latency-floor", &f), 1);
  cr_expect_eq(of_kind(&r.f, "sweep-trend", NULL), 0);
  cr_expect_float_eq(gcb_model_param_num(f->bench_case, "size"), 8, 0);
  cr_expect(gcb_analyze_case_in_place(f->bench_case));
  cr_expect_float_eq(f->measured, 919, 1e-6);
  /* the out-of-place 8 B time plus 8 B at the sweep's best bandwidth */
  double best = 1073741824.0 / model(1073741824.0);
  cr_expect_float_eq(f->expected, (model(8) + 8 / best) * 1e6, 1e-6);
  cr_expect(strstr(f->explanation, "45.9x its floor") != NULL, "%s",
            f->explanation);
  done(&r);
}

/* An imported file can say an 8 B message took 1e6 s (or 1e300): the sentence
 * gives the ratio in exponent form, not as 300 digits cut off. */
Test(sweep_rows, an_absurd_time_keeps_the_explanation_short) {
  struct run r = new_run();
  sweep(&r, 4, false, 0, 1);
  sweep(&r, 4, true, 8, 1e6 / model(8));
  analyse(&r);
  const struct gcb_finding *f = NULL;
  cr_assert_eq(of_kind(&r.f, "latency-floor", &f), 1);
  cr_expect(strstr(f->explanation, "e+1") != NULL, "%s", f->explanation);
  cr_expect(strstr(f->explanation, "at the sweep's best bus bandwidth") != NULL,
            "the sentence ends: %s", f->explanation);
  done(&r);
}

/* A point-to-point latency sweep (op latency, OSU's osu_latency) whose
 * time jumps at one size: off its neighbours' trend. */
Test(sweep_rows, a_latency_jump_between_its_neighbours) {
  struct run r = new_run();
  for (double s = 1; s <= 4194304; s *= 2)
    fx_add_case(r.doc, coll_row("latency", s, false,
                                (2e-6 + s / 25e9) * (s == 4096 ? 3 : 1)));
  analyse(&r);
  const struct gcb_finding *f = NULL;
  cr_assert_eq(of_kind(&r.f, "sweep-trend", &f), 1);
  cr_expect_float_eq(gcb_model_param_num(f->bench_case, "size"), 4096, 0);
  cr_expect_gt(f->measured, 2.5 * f->expected);
  done(&r);
}

/* ---- real sweeps --------------------------------------------------------- */

/* The sweep-trend and latency-floor findings of a converted file, as
 * "kind size" lines. */
static void real(const char *file, char *out, size_t size) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, file);
  struct gcb_doc docs[1];
  struct gcb_results *res = NULL;
  struct gcb_err err = {0};
  struct gcb_model *m;
  cr_assert_eq(fx_interop_read(path, docs, 0, &res, &m, NULL, &err), GCB_OK,
               "%s: %s", file, err.msg);
  docs[0] = fx_doc_read(file, res, m);
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_findings f = {0};
  cr_assert_eq(gcb_analyze(docs, 1, &t, &f, &err), GCB_OK);
  out[0] = '\0';
  for (size_t i = 0; i < f.n; i++) {
    const struct gcb_finding *x = &f.items[i];
    if (strcmp(x->kind->name, "sweep-trend") != 0 &&
        strcmp(x->kind->name, "latency-floor") != 0)
      continue;
    size_t n = strlen(out);
    snprintf(out + n, size - n, "%s%s %.0f%s", n ? "; " : "", x->kind->name,
             gcb_model_param_num(x->bench_case, "size"),
             gcb_analyze_case_in_place(x->bench_case) ? " in-place" : "");
  }
  gcb_findings_free(&f);
  fx_doc_free(&docs[0]);
  gcb_results_free(res);
}

Test(sweep_rows, real_smooth_sweeps_flag_nothing) {
  static const char *const files[] = {
      "interop/nccl-tests-allreduce.json",
      "interop/coreweave-gb200-nvl72-allreduce.txt",
      "interop/a3mega-h100-16rank-allreduce.md",
      "interop/rccl-tests-93-allreduce.jsonl",
      "interop/superbench-nccl_allreduce.log",
      "interop/superbench-nccl_alltoall.log",
      "interop/superbench-nccl_reduce.log",
      "interop/parallelcluster-p5-openmpi-osu_latency.txt",
      "interop/parallelcluster-p5-openmpi-osu_bibw.txt",
      /* 2 x 4 GH200 over Slingshot: 64 KiB takes 3.7x its floor, the
       * knee where NCCL's Simple protocol takes over */
      "interop/cscs-nccl-2.17.1-gh200-allreduce.txt",
      /* one row of one half off its line, its twin on it: 512 KiB in
       * place at 350 us, out of place 170 us (cscs); 256 B out of place
       * at 94 us, in place 26 us (issue 309) */
      "interop/nccl-tests-309-h100-2node.txt",
      /* one rank on an H200 (NCCL 2.28): in-place 1 us, out-of-place a
       * 10 us copy; a communicator of one communicates nothing */
      "device/h200-vm-coll-nccl.json",
      "device/h200-vm-quick-suite.json",
  };
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char got[512];
    real(files[i], got, sizeof got);
    cr_expect_str_eq(got, "", "%s: %s", files[i], got);
  }
}

Test(sweep_rows, real_steps_are_flagged_where_they_are) {
  char got[512];
  /* busbw 3.83, 3.82, then 9.24 GB/s at 500, 600 and 700 KB */
  real("nccl/nccl-tests-2.18.3-allreduce-h100.log", got, sizeof got);
  cr_expect_str_eq(got, "sweep-trend 600000 in-place; sweep-trend 600000");
  /* 107 us at 8 KiB, 335 us at 16 KiB, 370 us at 32 KiB */
  real("interop/parallelcluster-p5-intelmpi-osu_allreduce.txt", got,
       sizeof got);
  cr_expect_str_eq(got, "sweep-trend 16384");
  /* the same GH200 nodes without the CXI provider (TCP sockets): busbw
   * down from 5.9 to 3.4 GB/s at 32 MiB in both halves, and 64 KiB at 325
   * us in both, 6.4x its floor (the healthy run's 68 us); its 357 us at
   * 512 B in place and 373 us at 1 KiB out of place, each against 52-59
   * us in the other half, are one disturbed loop each */
  real("interop/cscs-nccl-2.17.1-gh200-allreduce-nocxi.txt", got, sizeof got);
  cr_expect_str_eq(got, "sweep-trend 33554432 in-place; sweep-trend 33554432; "
                        "latency-floor 65536 in-place; latency-floor 65536");
}

/* A loop that lost its core once is no dip: 1 MiB's loop at twice its
 * time, its calls' medians on the line, flags nothing; with the calls
 * slow too (one_size_below_its_neighbours_trend_is_flagged) it is. */
Test(sweep_rows, a_dip_in_the_loop_alone_is_not_flagged) {
  struct run r = new_run();
  sweep(&r, 2, false, 1048576, 2);
  json_t *c, *e;
  size_t i, k;
  json_array_foreach(json_object_get(r.doc, "cases"), i, c) {
    if (json_number_value(
            json_object_get(json_object_get(c, "params"), "size")) != 1048576)
      continue;
    json_t *ts = json_object_get(json_object_get(c, "per_rank"), "time_s");
    json_t *med = json_object_get(ts, "median"),
           *lo = json_object_get(ts, "min");
    cr_assert_eq(json_array_size(med), NRANKS);
    json_array_foreach(med, k, e) {
      double half = json_number_value(e) / 2; /* the fastest no slower */
      json_array_set_new(med, k, json_real(half));
      json_array_set_new(lo, k, json_real(half));
    }
  }
  analyse(&r);
  const struct gcb_finding *f = NULL;
  cr_expect_eq(of_kind(&r.f, "sweep-trend", &f), 0, "%s",
               f != NULL ? f->explanation : "");
  cr_expect_eq(of_kind(&r.f, "latency-floor", NULL), 0);
  done(&r);
}

/* A real default suite on a 2-core VM (tests/data/compare): its 32 KiB
 * broadcast loop took 361 us, 24.6x the line through its neighbours, from
 * one descheduled iteration (its calls' median 13.8 us): eight of the ten
 * rows the loops alone flagged are such (a 512 B allgather at 4.7 us, its
 * calls at 1.4 us). Only the rows slow in their calls too are flagged: the
 * 512 B allreduce (calls 8.3 us against the line's 5.1 us); the 4 KiB one
 * (12 us, 3.9x the floor of its sweep's calls) is within the knee's room
 * of 4x. */
Test(sweep_rows, real_loops_slowed_by_one_descheduling_are_no_dips) {
  char got[512];
  real("compare/vm-default-suite.json", got, sizeof got);
  cr_expect_str_eq(got, "sweep-trend 512");
}
