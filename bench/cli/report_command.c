/*
 * `gcbench report` and `gcbench compare`: read results documents, run the
 * analysis (reports/analyze.h), the acceptance criteria and the baseline
 * comparison, write the report files and print a short summary. All the
 * content comes from reports/; this file parses options, orders the steps
 * and maps outcomes to exit codes.
 */
#include "bench/cli/report_command.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/cli/options.h"
#include "bench/cli/report_text.h"
#include "common/outfile.h"
#include "reports/analysis/burn.h"
#include "reports/render/render_svg.h"
#include "reports/reports.h"

#define MAX_DOCS GCB_LOAD_MAX_DOCS

/* --format's choices: every file into a directory, or one renderer's
 * output into a file (or "-", standard output). */
/* --format's choices: "all", then each renderer that is a format of its
 * own, in the renderers' order (formats_fill: the renderer rows say which,
 * so a new renderer is a choice without a second list here). */
static const char *formats[GCB_RENDERERS_MAX + 2];

static void formats_fill(void) {
  size_t n = 0;
  formats[n++] = "all";
  for (size_t i = 0; gcb_renderers[i] != NULL && n < GCB_RENDERERS_MAX + 1; i++)
    if (!gcb_renderers[i]->directory_only)
      formats[n++] = gcb_renderers[i]->name;
  formats[n] = NULL;
}

struct report_opts {
  const char *output;
  const char *baseline;
  const char *criteria;
  const char *drain_list;
  bool png;
  int format; /* index into formats[]; 0: all files into -o DIR */
};

static const struct gcb_option report_options[] = {
    {"output", 'o', GCB_OPT_STRING, offsetof(struct report_opts, output), NULL,
     "DIR",
     "directory for the report files (created if missing; required); "
     "with --format, the file to write, - for standard output",
     NULL, 0, 0},
    {"baseline", 'b', GCB_OPT_STRING, offsetof(struct report_opts, baseline),
     NULL, "OLD.json", "compare the first document with this baseline", NULL, 0,
     0},
    {"criteria", 'c', GCB_OPT_STRING, offsetof(struct report_opts, criteria),
     NULL, "SPEC.json", "acceptance criteria (docs/criteria-schema.md)", NULL,
     0, 0},
    {"drain-list", 0, GCB_OPT_STRING, offsetof(struct report_opts, drain_list),
     NULL, "FILE",
     "also write the nodes whose verdict is fail, NODE<TAB>REASON per line, "
     "into FILE (as --format drain; scripts/gcbench.sbatch --drain reads it)",
     NULL, 0, 0},
    {"png", 0, GCB_OPT_FLAG, offsetof(struct report_opts, png), NULL, NULL,
     "plots as PNG files (default: SVG, inlined in index.html)", NULL, 0, 0},
    {"format", 'f', GCB_OPT_CHOICE, offsetof(struct report_opts, format), "all",
     "FMT",
     "all: every file into -o DIR; otherwise only this format, into the "
     "file -o names (openmetrics: a Prometheus textfile; drain: the failing "
     "nodes; cordon: kubectl commands that cordon them)",
     formats, 0, 0},
    {0},
};

struct compare_opts {
  double threshold;
  double noise_sigmas;
};

static const struct gcb_option compare_options[] = {
    {"threshold", 't', GCB_OPT_DOUBLE, offsetof(struct compare_opts, threshold),
     "5", "PCT", "a regression is worse by more than PCT percent ...", NULL, 0,
     1000},
    {"noise-sigmas", 0, GCB_OPT_DOUBLE,
     offsetof(struct compare_opts, noise_sigmas), "2", "K",
     "... and by more than K combined relative stdevs of the two runs", NULL, 0,
     100},
    {0},
};

static void say(int rank, const char *msg) {
  if (rank == 0)
    fprintf(stderr, "gcbench: error: %s\n", msg);
}

static int exit_code(enum gcb_status st) {
  int code = gcb_status_exit_code(st);
  return st != GCB_OK && code == 0 ? 3 : code;
}

/* ---- report ------------------------------------------------------------- */

struct outcome {
  struct gcb_thresholds th;
  struct gcb_findings findings;
  struct gcb_check_result *checks;
  struct gcb_comparison cmp;
  struct gcb_plots plots;
  struct gcb_rtables tables; /* built once, shared by the renderers */
  struct gcb_diagnosis diag; /* the root causes, shared likewise */
  struct gcb_matrix matrix;  /* their component matrix, likewise */
  /* Each document's burn cases, read and judged once for the rules, the
   * tables and the plots (in->docs[i].burn points here). */
  struct gcb_burn_doc burn[GCB_LOAD_MAX_DOCS];
};

/* The thresholds: the criteria's, else the defaults. */
static void thresholds_of(const struct gcb_inputs *in, struct outcome *o) {
  if (in->cr != NULL)
    o->th = in->cr->thresholds;
  else
    gcb_thresholds_default(&o->th);
}

/* The burn cases of every document, read once (reports/analysis/burn.h):
 * the plots, the rules and the tables all take them from the docs. */
static enum gcb_status burn_read(struct gcb_inputs *in, struct outcome *o,
                                 struct gcb_err *err) {
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < in->ndocs && st == GCB_OK; i++) {
    st = gcb_burn_doc_read_model(in->docs[i].model, &o->th, &o->burn[i], err);
    in->docs[i].burn = &o->burn[i];
  }
  return st;
}

static enum gcb_status analyse(const struct gcb_inputs *in, struct outcome *o,
                               struct gcb_err *err) {
  enum gcb_status st =
      gcb_analyze(in->docs, in->ndocs, &o->th, &o->findings, err);
  if (st == GCB_OK && in->cr != NULL) {
    o->checks = calloc(in->cr->nchecks + 1, sizeof *o->checks);
    st = o->checks == NULL
             ? gcb_err_set(err, GCB_ENOMEM, "out of memory")
             : gcb_criteria_evaluate(in->cr, in->docs, in->ndocs, o->checks,
                                     &o->findings, err);
  }
  if (st == GCB_OK && in->base.model != NULL)
    st = gcb_compare(&in->base, &in->docs[0], &o->th, &o->cmp, err);
  if (st == GCB_OK && in->base.model != NULL)
    st = gcb_compare_findings(&o->cmp, 0, &o->findings, err);
  gcb_findings_sort(&o->findings);
  if (st == GCB_OK)
    st = gcb_diagnose(in->docs, in->ndocs, &o->findings, &o->th, &o->diag, err);
  return st;
}

static void free_outcome(struct outcome *o) {
  gcb_rtables_free(&o->tables);
  gcb_findings_free(&o->findings);
  gcb_diagnosis_free(&o->diag);
  gcb_matrix_free(&o->matrix);
  free(o->checks);
  gcb_comparison_free(&o->cmp);
  gcb_plots_free(&o->plots);
  for (size_t i = 0; i < GCB_LOAD_MAX_DOCS; i++)
    gcb_burn_doc_free(&o->burn[i]);
}

/* Renders into a fresh temporary beside the file, then renames it over the
 * name (common/outfile.h), so a reader (or a metrics collector) never sees
 * half a file, and nothing planted in the directory is followed. */
static enum gcb_status write_file(const struct gcb_outdir *d, const char *name,
                                  const struct gcb_renderer *r,
                                  const struct gcb_report *rep,
                                  struct gcb_err *err) {
  struct gcb_outfile f;
  enum gcb_status st = gcb_outfile_begin(d, name, &f, err);
  if (st == GCB_OK)
    st = gcb_outfile_end(&f, r->render(f.f, rep, err), err);
  return st;
}

/* Where each file of a report is written (write_report): on the side
 * thread; on this one while gnuplot draws (after the tables); or on this
 * one once gnuplot is done (markdown and HTML: they show the plots, and
 * they are the ones that read the shared tables). At 16,384 ranks the
 * side thread's files are the most work, so the topology picture, which
 * would be its last, is drawn here while this thread would wait. */
enum lane { LANE_EARLY, LANE_SIDE, LANE_WHILE_PLOTS, LANE_AFTER_PLOTS };

static enum lane lane_of(const struct gcb_renderer *r) {
  if (r == &gcb_render_csv) /* the documents alone: from the start */
    return LANE_EARLY;
  if (r == &gcb_render_md || r == &gcb_render_html)
    return LANE_AFTER_PLOTS;
  return r == &gcb_render_topology ? LANE_WHILE_PLOTS : LANE_SIDE;
}

/* The files of one lane that apply, each written by whichever thread
 * takes it next; none after a failure. LANE_SIDE's: the side thread from
 * the start, the main thread too once its own lanes are done. They read
 * the documents, the findings, the diagnosis and its matrix, all finished
 * and no longer written to, and none of the tables or plots the main
 * thread is still making; the report they see is a copy of its own.
 * LANE_AFTER_PLOTS's: the main thread and one more, once the tables and
 * plots are made (the markdown and the HTML only read them). */
struct lane_files {
  const struct gcb_outdir *d;
  enum lane lane;
  struct gcb_report rep;
  size_t n;           /* renderers */
  atomic_size_t next; /* the renderer to look at next */
  atomic_bool failed;
  enum gcb_status st; /* the side thread's */
  struct gcb_err err;
};

/* The files of one lane that apply, in the renderers' order, until one
 * fails. */
static enum gcb_status write_lane(const struct gcb_outdir *d, enum lane lane,
                                  const struct gcb_report *rep,
                                  struct gcb_err *err) {
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; st == GCB_OK && gcb_renderers[i]; i++)
    if (lane_of(gcb_renderers[i]) == lane &&
        gcb_renderer_applies(gcb_renderers[i], rep))
      st = write_file(d, gcb_renderers[i]->file, gcb_renderers[i], rep, err);
  return st;
}

static enum gcb_status write_shared(struct lane_files *s, struct gcb_err *err) {
  enum gcb_status st = GCB_OK;
  for (size_t i; st == GCB_OK && !atomic_load(&s->failed) &&
                 (i = atomic_fetch_add(&s->next, 1)) < s->n;) {
    const struct gcb_renderer *r = gcb_renderers[i];
    if (lane_of(r) == s->lane && gcb_renderer_applies(r, &s->rep))
      st = write_file(s->d, r->file, r, &s->rep, err);
  }
  if (st != GCB_OK)
    atomic_store(&s->failed, true);
  return st;
}

static void *write_shared_files(void *arg) {
  struct lane_files *s = arg;
  s->st = write_shared(s, &s->err);
  return NULL;
}

/* The files of lane for write_shared, none taken yet. */
static struct lane_files lane_files_of(const struct gcb_outdir *d,
                                       enum lane lane,
                                       const struct gcb_report *rep) {
  struct lane_files s = {.d = d, .lane = lane, .rep = *rep, .st = GCB_OK};
  while (gcb_renderers[s.n] != NULL)
    s.n++;
  return s;
}

/* st, or else the other thread's status of s (joined), with its message
 * in err. */
static enum gcb_status with_other(enum gcb_status st,
                                  const struct lane_files *s,
                                  struct gcb_err *err) {
  if (st == GCB_OK && s->st != GCB_OK) {
    *err = s->err;
    return s->st;
  }
  return st;
}

/* The files of lane on this thread and one more: at 16,384 ranks the
 * markdown and the HTML, one after the other, were the last 0.2 s of a
 * report, with the other threads done and a CPU idle. */
static enum gcb_status write_lane_on_two(const struct gcb_outdir *d,
                                         enum lane lane,
                                         const struct gcb_report *rep,
                                         struct gcb_err *err) {
  struct lane_files two = lane_files_of(d, lane, rep);
  pthread_t tid;
  bool threaded = pthread_create(&tid, NULL, write_shared_files, &two) == 0;
  enum gcb_status st = write_shared(&two, err);
  if (threaded)
    pthread_join(tid, NULL);
  return with_other(st, &two, err);
}

/* The directory -o names (created with its parents, locked while written
 * so that two reports into it cannot mix), the gnuplot drawing into it
 * and the thread writing the files of LANE_EARLY, both started before the
 * analysis: they need only the documents (and the plots the thresholds),
 * and they run on a second CPU while the analysis runs on this one (at
 * 16,384 ranks results.csv, 166 MB, was the last file done). */
struct report_dir {
  struct gcb_outdir d;
  bool open;
  struct gcb_plot_job *job; /* NULL once finished */
  pthread_t early;
  bool early_running;
  struct gcb_report early_rep; /* the documents alone */
  enum gcb_status early_st;
  struct gcb_err early_err;
};

static void *write_early_files(void *arg) {
  struct report_dir *rd = arg;
  rd->early_st = write_lane(&rd->d, LANE_EARLY, &rd->early_rep, &rd->early_err);
  return NULL;
}

/* Waits for the files of LANE_EARLY (written here when no thread could
 * start); their status, with its message in err. */
static enum gcb_status early_files_done(struct report_dir *rd,
                                        struct gcb_err *err) {
  if (rd->early_running)
    pthread_join(rd->early, NULL);
  else if (rd->open && rd->early_rep.docs != NULL)
    write_early_files(rd);
  rd->early_running = false;
  rd->early_rep.docs = NULL;
  if (rd->early_st != GCB_OK)
    *err = rd->early_err;
  return rd->early_st;
}

static enum gcb_status report_dir_open(const struct report_opts *ro,
                                       const struct gcb_inputs *in,
                                       struct outcome *o, struct report_dir *rd,
                                       struct gcb_err *err) {
  enum gcb_status st =
      gcb_outdir_open(ro->output, "--output", true, true, &rd->d, err);
  rd->open = st == GCB_OK;
  if (st == GCB_OK)
    st = gcb_plots_start(ro->output, in->docs, in->ndocs, &o->th, ro->png,
                         &o->plots, &rd->job, err);
  rd->early_rep = (struct gcb_report){.docs = in->docs, .ndocs = in->ndocs};
  rd->early_st = GCB_OK;
  if (st == GCB_OK)
    rd->early_running =
        pthread_create(&rd->early, NULL, write_early_files, rd) == 0;
  return st;
}

/* Waits for gnuplot if it still draws and for the early files, and
 * unlocks the directory. */
static void report_dir_close(struct report_dir *rd, struct outcome *o) {
  gcb_plots_finish(&rd->job, &o->plots);
  if (rd->early_running)
    pthread_join(rd->early, NULL);
  rd->early_running = false;
  if (rd->open)
    gcb_outdir_close(&rd->d);
  rd->open = false;
}

/* Every file into the report's directory, the table model once for the
 * two renderers that show it. Three things run at once (lane_of): most
 * files without plots on a thread of their own, gnuplot drawing, and this
 * thread building the tables and the topology picture and then, once
 * gnuplot is done, writing the markdown and the HTML, then the side's
 * files the side thread has not begun (at 16,384 ranks, one after the
 * other, the files without plots were half a report's time). When there
 * is no second thread, this one writes them all. The component matrix,
 * which four of the files draw, is built first, once. */
static enum gcb_status write_report(struct report_dir *rd, struct outcome *o,
                                    struct gcb_report *rep,
                                    struct gcb_err *err) {
  enum gcb_status st = GCB_OK;
  if (rep->diagnosis != NULL)
    st = gcb_matrix_build(rep, rep->diagnosis, &o->matrix, err);
  rep->matrix = st == GCB_OK && rep->diagnosis != NULL ? &o->matrix : NULL;
  if (st != GCB_OK)
    return st;
  struct lane_files side = lane_files_of(&rd->d, LANE_SIDE, rep);
  side.rep.tables = NULL;
  side.rep.plots = NULL;
  pthread_t tid;
  bool threaded = pthread_create(&tid, NULL, write_shared_files, &side) == 0;
  st = gcb_report_tables(rep, &o->tables, err);
  rep->tables = st == GCB_OK ? &o->tables : NULL;
  if (st == GCB_OK)
    st = write_lane(&rd->d, LANE_WHILE_PLOTS, rep, err);
  gcb_plots_finish(&rd->job, &o->plots);
  if (st == GCB_OK)
    st = write_lane_on_two(&rd->d, LANE_AFTER_PLOTS, rep, err);
  /* then the side's files it has not taken yet (all of them without it) */
  struct gcb_err later = {0};
  enum gcb_status side_st = write_shared(&side, st == GCB_OK ? err : &later);
  st = st == GCB_OK ? side_st : st;
  if (threaded)
    pthread_join(tid, NULL);
  side_st = early_files_done(rd, st == GCB_OK ? err : &later);
  st = st == GCB_OK ? side_st : st;
  return with_other(st, &side, err);
}

/* One renderer's output into the file path names, its directory created
 * (not locked: one rename publishes the file, and a lock file would be
 * left in a directory that is not gcbench's, a node_exporter's say). */
static enum gcb_status write_one_file(const char *path, const char *what,
                                      const struct gcb_renderer *r,
                                      const struct gcb_report *rep,
                                      struct gcb_err *err) {
  char dir[4096], base[4096];
  if (gcb_outfile_split(path, dir, base) != 0)
    return gcb_err_set(err, GCB_EUSAGE, "%s %s: not a file name", what, path);
  struct gcb_outdir d;
  enum gcb_status st = gcb_outdir_open(dir, what, true, false, &d, err);
  if (st == GCB_OK)
    st = write_file(&d, base, r, rep, err);
  gcb_outdir_close(&d);
  return st;
}

/* --format FMT: one renderer's output into -o FILE, or to standard output
 * with -o -. No plots: they need a directory. */
static enum gcb_status write_one_format(const struct report_opts *ro,
                                        struct gcb_report *rep,
                                        struct gcb_err *err) {
  const struct gcb_renderer *r = gcb_renderer_find(formats[ro->format]);
  rep->plots = NULL;
  if (r == NULL)
    return gcb_err_set(err, GCB_EINTERNAL, "no renderer %s",
                       formats[ro->format]);
  if (strcmp(ro->output, "-") != 0)
    return write_one_file(ro->output, "--output", r, rep, err);
  enum gcb_status st = r->render(stdout, rep, err);
  return st == GCB_OK && fflush(stdout) != 0
             ? gcb_err_set(err, GCB_EIO, "standard output: write failed")
             : st;
}

static int report(const struct report_opts *ro, const char **files, size_t n,
                  int rank) {
  struct gcb_inputs in = {0};
  struct outcome o = {0};
  struct gcb_err err = {0};
  struct report_dir rd = {0};
  bool one = ro->format != 0;
  char expect[256] = "";
  enum gcb_status st =
      gcb_inputs_load(files, n, ro->baseline, ro->criteria, &in, &err);
  /* No criteria: the GPUs are judged against their model's datasheet. */
  if (st == GCB_OK && ro->criteria == NULL)
    st = gcb_expect_builtin(in.docs, in.ndocs, &in.cr, expect, sizeof expect,
                            &err);
  if (st == GCB_OK)
    thresholds_of(&in, &o);
  if (st == GCB_OK)
    st = burn_read(&in, &o, &err);
  if (st == GCB_OK && rank == 0 && !one)
    st = report_dir_open(ro, &in, &o, &rd, &err);
  if (st == GCB_OK)
    st = analyse(&in, &o, &err);
  struct gcb_report rep = {.docs = in.docs,
                           .ndocs = in.ndocs,
                           .findings = &o.findings,
                           .criteria = in.cr,
                           .expectations = expect[0] ? expect : NULL,
                           .checks = o.checks,
                           .comparison = in.base.model ? &o.cmp : NULL,
                           .baseline = ro->baseline,
                           .plots = &o.plots,
                           .thresholds = &o.th,
                           .diagnosis = st == GCB_OK ? &o.diag : NULL};
  if (st == GCB_OK && rank == 0)
    st = one ? write_one_format(ro, &rep, &err)
             : write_report(&rd, &o, &rep, &err);
  if (st == GCB_OK && rank == 0 && ro->drain_list != NULL)
    st = write_one_file(ro->drain_list, "--drain-list", &gcb_render_drain, &rep,
                        &err);
  report_dir_close(&rd, &o);
  int code = exit_code(st);
  if (st != GCB_OK)
    say(rank, err.msg);
  else if (rank == 0 && !one)
    gcb__print_report_summary(stdout, &rep, ro->output,
                              gcb__text_width(stdout));
  if (st == GCB_OK)
    code = gcb_report_failed(&rep) ? 1 : 0;
  free_outcome(&o);
  gcb_inputs_free(&in);
  return code;
}

static void usage(const char *line, const char *what,
                  const struct gcb_option_group *g) {
  printf("usage: %s\n\n%s\n", line, what);
  gcb_options_help(stdout, g, 1);
  printf("\nexit codes: 0 pass, 1 a failure-level finding or regression, "
         "2 bad usage or input, 3 runtime error\n");
}

int gcb__report_command(int argc, char **argv, int rank) {
  formats_fill();
  struct report_opts ro = {0};
  struct gcb_option_group g = {"report options", report_options, &ro};
  /* One more than allowed, so that a 257th document is named as such,
   * not as an "unexpected argument". */
  const char *files[MAX_DOCS + 1];
  int n = 0;
  bool help = false;
  struct gcb_err err = {0};
  enum gcb_status st = gcb_options_parse(&g, 1, argc, argv, &help, files,
                                         MAX_DOCS + 1, &n, &err);
  if (st != GCB_OK && n <= MAX_DOCS) {
    say(rank, err.msg);
    return 2;
  }
  if (n > MAX_DOCS) { /* the 258th and later are no other fault */
    gcb_err_set(&err, GCB_EUSAGE,
                "report: at most %d results documents in one report (%s is "
                "one too many)",
                MAX_DOCS, files[MAX_DOCS]);
    say(rank, err.msg);
    return 2;
  }
  if (help) {
    if (rank == 0)
      usage("gcbench report RESULTS.json [MORE.json ...] -o DIR "
            "[--baseline OLD.json] [--criteria SPEC.json] [--png]\n"
            "       gcbench report RESULTS.json ... --format FMT -o FILE|-",
            "findings, tables and plots from results documents (gcbench's, "
            "nccl-tests -J and nvbandwidth -j output): report.md, index.html, "
            "results.csv, junit.xml, findings.json, metrics.prom",
            &g);
    return 0;
  }
  if (n == 0 || ro.output == NULL) {
    say(rank, n == 0 ? "report: no results document given (see --help)"
                     : "report: -o DIR (or with --format, -o FILE) is "
                       "required (see --help)");
    return 2;
  }
  /* -o - is standard output, which holds one format: without --format
   * it would be a report directory named "-". */
  if (ro.format == 0 && strcmp(ro.output, "-") == 0) {
    say(rank, "report: -o - (standard output) takes one format: add --format "
              "FMT, or name a directory (see --help)");
    return 2;
  }
  return report(&ro, files, (size_t)n, rank);
}

/* ---- compare ------------------------------------------------------------ */

/* A new run that failed (cases missing, not "complete", validation
 * failures) fails the comparison whatever its numbers; says why. */
static bool run_failed(const struct gcb_comparison *cmp,
                       const struct gcb_doc *new_, int rank) {
  struct gcb_run_check rc;
  gcb_compare_run_check(cmp, new_, &rc);
  char why[512];
  gcb_compare_run_why(&rc, why, sizeof why);
  if (rc.failed && rank == 0)
    printf("%s\n", why);
  return rc.failed;
}

int gcb__compare_command(int argc, char **argv, int rank) {
  struct compare_opts co = {0};
  struct gcb_option_group g = {"compare options", compare_options, &co};
  const char *files[2];
  int n = 0;
  bool help = false;
  struct gcb_err err = {0};
  enum gcb_status st =
      gcb_options_parse(&g, 1, argc, argv, &help, files, 2, &n, &err);
  if (st == GCB_OK && help) {
    if (rank == 0)
      usage("gcbench compare OLD.json NEW.json [--threshold PCT] "
            "[--noise-sigmas K]",
            "per-case change of NEW against the baseline OLD, with a "
            "noise-aware regression verdict",
            &g);
    return 0;
  }
  if (st == GCB_OK && n != 2)
    st = gcb_err_set(&err, GCB_EUSAGE,
                     "compare: expected OLD.json NEW.json (see --help)");
  struct gcb_inputs in = {0};
  struct gcb_comparison cmp = {0};
  struct gcb_thresholds th;
  gcb_thresholds_default(&th);
  th.regression_pct = co.threshold;
  th.noise_sigmas = co.noise_sigmas;
  if (st == GCB_OK)
    st = gcb_inputs_load(&files[1], 1, files[0], NULL, &in, &err);
  if (st == GCB_OK)
    st = gcb_compare(&in.base, &in.docs[0], &th, &cmp, &err);
  if (st == GCB_OK && rank == 0)
    st = gcb__print_comparison(stdout, &in.docs[0], &cmp, files[0], &th, &err);
  int code = st != GCB_OK ? exit_code(st) : cmp.regressions > 0 ? 1 : 0;
  if (st == GCB_OK && run_failed(&cmp, &in.docs[0], rank))
    code = 1;
  if (st != GCB_OK)
    say(rank, err.msg);
  gcb_comparison_free(&cmp);
  gcb_inputs_free(&in);
  return code;
}
