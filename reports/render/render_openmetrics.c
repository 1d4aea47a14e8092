/*
 * metrics.prom: the report's figures in the OpenMetrics text format
 * (Prometheus' exposition format 1.0.0), for node_exporter's textfile
 * collector or any scraper: one gauge family per benchmark and unit
 * (gcbench_gemm_gflops, gcbench_membw_gbps, ...) with a sample per rank,
 * P2P pairs per pair, collectives per case (busbw, algbw, time, lateness),
 * validation and imbalance per case, the findings by severity and the
 * verdict. Names and labels are in docs/OPENMETRICS.md.
 *
 * This file chooses the families and what goes in them; the rules that
 * keep any document's exposition one that the parsers and promtool accept
 * (valid, unique names; escaped values; one series per label set) are in
 * render_openmetrics_names.c. Families are written whole (every sample of
 * a family together, as the format requires), every one a gauge with its
 * HELP, and the file ends with "# EOF".
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "reports/document/model.h"
#include "reports/document/p2p_view.h"
#include "reports/render/render.h"
#include "reports/render/render_openmetrics.h"

/* A case's parameters as labels, made once for all its samples: the
 * values formatted, the names made valid and distinct by gcb__om_param
 * (render_openmetrics_names.c). The names depend on each other only, as
 * gcb__om_param keeps a parameter off every label gcbench writes. */
struct param {
  char text[256], name[GCB_OM_NAME_MAX];
};

struct params {
  size_t n;
  struct param *at; /* NULL when out of memory */
};

/* A case's first parameters are its labels, at most this many: gcbench's
 * benchmarks have a dozen, and each label's distinct name is sought among
 * those before it (a file of thousands that collide took minutes). */
#define MAX_PARAM_LABELS 64

static void params_of(struct params *t, const struct gcb_model_case *c) {
  size_t n = c->params.type == GCB_MV_OBJECT ? c->params.n : 0;
  n = n < MAX_PARAM_LABELS ? n : MAX_PARAM_LABELS;
  *t = (struct params){.at = malloc((n + 1) * sizeof *t->at)};
  struct gcb__om_sample names = {0};
  for (; t->at != NULL && t->n < n; t->n++) {
    const struct gcb_mvalue *v = &c->params.members[t->n].value;
    struct param *p = &t->at[t->n];
    if (v->type == GCB_MV_STRING)
      gcb_view_copy(p->text, sizeof p->text, v->text);
    else if (v->type == GCB_MV_INT || v->type == GCB_MV_REAL)
      snprintf(p->text, sizeof p->text, "%.17g", v->num);
    else /* the reader allows strings and numbers only */
      p->text[0] = '\0';
    const char *name =
        gcb__om_param(&names, c->params.members[t->n].key, p->text);
    if (name == NULL) {
      free(t->at);
      *t = (struct params){0};
      break;
    }
    memcpy(p->name, name, strlen(name) + 1); /* < GCB_OM_NAME_MAX */
  }
  gcb__om_sample_free(&names);
}

/* A case whose samples are being written: the family they go to with its
 * series (the label sets written so far), the case and its document. */
struct at {
  FILE *out;
  const char *family;
  struct gcb__om_set *series;
  size_t doc;
  const struct gcb_model_case *c;
  struct params p;
};

static struct gcb__om_sample start(size_t doc) {
  struct gcb__om_sample s = {0};
  gcb__om_label_int(&s, "run", (long long)doc + 1);
  return s;
}

/* Writes s with the case's parameters after its other labels (none when
 * x is NAN). */
static void finish(const struct at *at, struct gcb__om_sample *s, double x) {
  s->oom = s->oom || at->p.at == NULL;
  for (size_t k = 0; k < at->p.n; k++)
    gcb__om_label(s, at->p.at[k].name, at->p.at[k].text);
  gcb__om_write(at->out, at->family, at->series, s, x);
}

/* ---- families ----------------------------------------------------------- */

/* What a family holds: per-rank figures of one bench and unit, P2P pairs,
 * or one of the collective or case-level figures. */
enum kind { K_RANKS, K_P2P, K_COLL, K_COLL_LATE, K_WRONG, K_IMBALANCE };

struct family { /* K_RANKS, K_P2P */
  char name[GCB_OM_NAME_MAX];
  enum kind kind;
  const char *bench, *unit; /* the cases it takes */
  struct gcb__om_unit u;    /* the name's unit */
};

/* A case-level family (the others): its figure is a member of the case's
 * summary, at offset `at`. */
struct fixed {
  const char *name;
  enum kind kind;
  size_t at;
  const char *suffix, *help;
};

/* A case of a per-bench family: which family, which document, which case. */
struct ref {
  size_t fam, doc, idx;
};

/* Everything one rendering builds; `names` holds every family name taken,
 * `keys` maps "bench\nunit" to its family. */
struct om {
  struct family *fams;
  size_t nfams, capfams;
  struct ref *refs;
  size_t nrefs, caprefs;
  struct gcb__om_set names, keys;
  bool oom;
};

/* What case c's figures are divided by to be in its family's unit. */
static double divisor(const struct gcb_model_case *c) {
  struct gcb__om_unit u;
  gcb__om_unit(c->unit, &u);
  return u.divisor;
}

/* The case's one sample. */
static void case_sample(const struct at *at, enum kind kind, double x) {
  struct gcb__om_sample s = start(at->doc);
  gcb__om_label(&s, "backend", at->c->backend);
  if (kind == K_WRONG || kind == K_IMBALANCE)
    gcb__om_label(&s, "bench", at->c->bench);
  if (kind == K_COLL_LATE)
    gcb__om_label_int(&s, "late_rank", at->c->summary.late_rank);
  finish(at, &s, x);
}

static void rank_samples(const struct at *at, const struct gcb_model *m) {
  const struct gcb_model_case *c = at->c;
  double div = divisor(c);
  if (c->ranks.n == 0) { /* a figure imported as its source printed it (an
                          * nvbandwidth SUM, nccl-tests' Avg bus bandwidth): no
                          * ranks, one sample, never dropped (issue 15) */
    case_sample(at, K_RANKS, c->summary.median / div);
    return;
  }
  for (size_t i = 0; i < c->ranks.n; i++) {
    double x = gcb_model_col(c, GCB_RC_FIG_MEDIAN, i);
    long long rank = gcb_model_col_rank(c, i, (long long)i);
    struct gcb_place p;
    if (isnan(x))
      continue;
    gcb_model_place(m, rank, &p); /* tried at its index first: no search */
    struct gcb__om_sample s = start(at->doc);
    gcb__om_label(&s, "host", p.hostname);
    gcb__om_label_int(&s, "node", p.node);
    gcb__om_label_int(&s, "rank", rank);
    gcb__om_label_int(&s, "gpu", p.gpu);
    gcb__om_label(&s, "bus_id", p.bus_id);
    finish(at, &s, x / div);
  }
}

/* Whether a case-level family takes case c. */
static bool takes(const struct fixed *f, const struct gcb_model_case *c) {
  switch (f->kind) {
  case K_WRONG: /* only where values were checked: 0 means correct */
    return c->validation.checked;
  case K_IMBALANCE: /* one rank is never imbalanced */
    return c->ranks.n >= 2;
  default:
    return c->kind == GCB_BENCH_COLL;
  }
}

/* One sample per node that measured the pair (p2p_view.h). */
static void p2p_samples(const struct at *at, const struct gcb_model *m,
                        bool *seen, size_t nseen) {
  struct gcb__p2p_walk it;
  struct gcb__p2p_pair pair;
  if (!gcb__p2p_walk_begin(&it, m, at->c, seen, nseen))
    return;
  while (gcb__p2p_walk_next(&it, &pair)) {
    const struct gcb_model_node *node = gcb_model_node(m, pair.node);
    struct gcb__om_sample s = start(at->doc);
    gcb__om_label(&s, "host", node != NULL ? node->hostname : "");
    gcb__om_label_int(&s, "node", pair.node);
    gcb__om_label(&s, "backend", at->c->backend);
    finish(at, &s, pair.value / divisor(at->c));
  }
}

static void family_head(FILE *out, const char *name, const char *help,
                        const char *unit) {
  fprintf(out, "# TYPE %s gauge\n", name);
  if (unit[0] != '\0') /* "an underscore and the unit MUST be the suffix" */
    fprintf(out, "# UNIT %s %s\n", name, unit);
  fprintf(out, "# HELP %s ", name);
  gcb__om_help(out, help);
  fputc('\n', out);
}

/* The samples of per-bench family f: the refs from *r on that are its
 * (refs are sorted by family). */
static void bench_body(FILE *out, const struct gcb_report *rep,
                       const struct om *om, size_t f, size_t *r,
                       struct gcb__om_set *series) {
  const struct family *fam = &om->fams[f];
  size_t doc = SIZE_MAX, nseen = 0;
  bool *seen = NULL;
  for (; *r < om->nrefs && om->refs[*r].fam == f; (*r)++) {
    const struct ref *x = &om->refs[*r];
    const struct gcb_model *m = rep->docs[x->doc].model;
    struct at at = {.out = out,
                    .family = fam->name,
                    .series = series,
                    .doc = x->doc,
                    .c = &m->cases[x->idx]};
    params_of(&at.p, at.c);
    if (fam->kind == K_RANKS) {
      rank_samples(&at, m);
    } else {
      if (x->doc != doc) { /* the pair scratch is per document */
        free(seen);
        doc = x->doc;
        seen = gcb__p2p_walk_scratch(m, &nseen);
      }
      p2p_samples(&at, m, seen, nseen);
    }
    free(at.p.at);
  }
  free(seen);
}

static void fixed_body(FILE *out, const struct gcb_report *rep,
                       const struct fixed *f, struct gcb__om_set *series) {
  for (size_t d = 0; d < rep->ndocs; d++) {
    const struct gcb_model *m = rep->docs[d].model;
    for (size_t i = 0; i < m->ncases; i++) {
      struct at at = {.out = out,
                      .family = f->name,
                      .series = series,
                      .doc = d,
                      .c = &m->cases[i]};
      if (!takes(f, at.c))
        continue;
      params_of(&at.p, at.c);
      case_sample(&at, f->kind,
                  *(const double *)((const char *)&at.c->summary + f->at));
      free(at.p.at);
    }
  }
}

/* ---- which per-bench family each case goes to --------------------------- */

/* The family of case c, or SIZE_MAX when out of memory. One family, one
 * unit: the cases of one bench whose units gcbench converts to the same
 * one (us, ns: seconds) share it; other units by their spelling, so
 * "GB-s" and "gb_s" (both gbx_sx) are two families, each saying its unit
 * in its HELP (issue 20: an aliased unit's samples were dropped). */
static size_t family_of(struct om *om, const struct gcb_model_case *c) {
  const char *bench = c->bench, *unit = c->unit;
  struct gcb__om_unit u;
  gcb__om_unit(unit, &u);
  const char *same = u.known ? u.suffix : unit;
  char *key = malloc(strlen(bench) + strlen(same) + 4);
  if (key == NULL)
    return SIZE_MAX;
  sprintf(key, "%s\n%c%s", bench, u.known ? 'k' : 'u', same);
  long k = gcb__om_set_get(&om->keys, key);
  if (k < 0 &&
      gcb_grow((void **)&om->fams, &om->capfams, om->nfams, sizeof *om->fams)) {
    struct family *f = &om->fams[om->nfams];
    *f = (struct family){.kind = c->kind == GCB_BENCH_P2P ? K_P2P : K_RANKS,
                         .bench = bench,
                         .unit = strcmp(u.suffix, "seconds") == 0 ? "seconds"
                                                                  : unit,
                         .u = u};
    gcb__om_family_name(&om->names, bench, f->u.suffix, (long)om->nfams,
                        f->name, sizeof f->name);
    gcb__om_set_put(&om->keys, key, (long)om->nfams);
    k = (long)om->nfams++;
  }
  free(key);
  return k < 0 || om->keys.oom || om->names.oom ? SIZE_MAX : (size_t)k;
}

static int by_family(const void *a, const void *b) {
  const struct ref *x = a, *y = b;
  if (x->fam != y->fam)
    return x->fam < y->fam ? -1 : 1;
  if (x->doc != y->doc)
    return x->doc < y->doc ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The per-bench families, in order of first appearance, and their cases
 * grouped by family: no cap on how many (issue 20: families past 64 were
 * dropped without a word). */
static void bench_families(struct om *om, const struct gcb_report *rep) {
  for (size_t d = 0; d < rep->ndocs && !om->oom; d++) {
    const struct gcb_model *m = rep->docs[d].model;
    for (size_t i = 0; i < m->ncases; i++) {
      const struct gcb_model_case *c = &m->cases[i];
      if (c->kind == GCB_BENCH_COLL)
        continue;
      size_t f = family_of(om, c);
      if (f == SIZE_MAX || !gcb_grow((void **)&om->refs, &om->caprefs,
                                     om->nrefs, sizeof *om->refs)) {
        om->oom = true;
        break;
      }
      om->refs[om->nrefs++] = (struct ref){.fam = f, .doc = d, .idx = i};
    }
  }
  if (om->nrefs > 0)
    qsort(om->refs, om->nrefs, sizeof *om->refs, by_family);
}

/* ---- the run-level families --------------------------------------------- */

/* An info-style gauge (node_exporter's node_uname_info): the 0.0.4 text
 * format that promtool and the textfile collector read has no "info"
 * type (issue 15). */
static void run_info(FILE *out, const struct gcb_report *rep,
                     struct gcb__om_set *series) {
  family_head(out, "gcbench_run_info", "the runs the report covers", "");
  for (size_t d = 0; d < rep->ndocs; d++) {
    const struct gcb_model_run *run = &rep->docs[d].model->run;
    struct gcb__om_sample s = start(d);
    gcb__om_label(&s, "run_id", run->id);
    gcb__om_label(&s, "backend", run->backend);
    gcb__om_label(&s, "tool", run->tool);
    gcb__om_label(&s, "version", run->version);
    gcb__om_write(out, "gcbench_run_info", series, &s, 1);
  }
}

static void verdict(FILE *out, const struct gcb_report *rep) {
  static const enum gcb_severity sev[] = {GCB_SEV_FAIL, GCB_SEV_WARN,
                                          GCB_SEV_INFO};
  family_head(out, "gcbench_report_failed",
              "1 when a finding is at failure level (gcbench report exits 1)",
              "");
  fprintf(out, "gcbench_report_failed %d\n", gcb_report_failed(rep) ? 1 : 0);
  family_head(out, "gcbench_findings", "findings by severity", "");
  for (size_t i = 0; i < 3; i++)
    fprintf(out, "gcbench_findings{severity=\"%s\"} %zu\n",
            gcb_severity_name(sev[i]),
            gcb_findings_count(rep->findings, sev[i]));
}

static bool any_coll(const struct gcb_report *rep) {
  for (size_t d = 0; d < rep->ndocs; d++) {
    const struct gcb_model *m = rep->docs[d].model;
    for (size_t i = 0; i < m->ncases; i++)
      if (m->cases[i].kind == GCB_BENCH_COLL)
        return true;
  }
  return false;
}

#define AT(member) offsetof(struct gcb_model_summary, member)

static const struct fixed fixed[] = {
    {"gcbench_coll_busbw_gbps", K_COLL, AT(busbw), "gbps",
     "collective bus bandwidth (nccl-tests busbw), GB/s = 1e9 B/s"},
    {"gcbench_coll_algbw_gbps", K_COLL, AT(algbw), "gbps",
     "collective algorithm bandwidth (size / time), GB/s"},
    {"gcbench_coll_time_seconds", K_COLL, AT(time_mean), "seconds",
     "collective time: mean over ranks of each rank's mean (nccl-tests)"},
    {"gcbench_coll_late_seconds", K_COLL_LATE, AT(late_mean_s), "seconds",
     "mean arrival lateness of the latest rank at the collective"},
    {"gcbench_case_wrong_values", K_WRONG, AT(wrong), "",
     "wrong values found by validation, summed over ranks"},
    {"gcbench_case_imbalance_ratio", K_IMBALANCE, AT(imbalance), "ratio",
     "(max - mean) / max of the ranks' times (IPM)"},
};

#define NFIXED (sizeof fixed / sizeof *fixed)

/* The names no per-bench family may take (the number is unused). */
static void take_fixed_names(struct om *om) {
  static const char *const run_level[] = {
      "gcbench_run_info", "gcbench_report_failed", "gcbench_findings"};
  for (size_t i = 0; i < 3; i++)
    gcb__om_set_put(&om->names, run_level[i], 0);
  for (size_t i = 0; i < NFIXED; i++)
    gcb__om_set_put(&om->names, fixed[i].name, 0);
}

static void bench_help(const struct family *f, char *help, size_t size) {
  const char *what =
      f->kind == K_P2P ? "peer-to-peer bandwidth of a GPU pair"
      : gcb_bench_kind_find(f->bench) == GCB_BENCH_IMPORTED
          ? "figures as the source tool printed them (per GPU or its own "
            "summary)"
          : "per-rank figure (the rank's median)";
  snprintf(help, size, "%s %s, %s", f->bench, what,
           f->unit[0] ? f->unit : "no unit");
}

/* Every family, each with its own set of label sets written. */
static bool write_families(FILE *out, const struct gcb_report *rep,
                           struct om *om) {
  struct gcb__om_set series = {0};
  run_info(out, rep, &series);
  bool oom = series.oom;
  gcb__om_set_free(&series);
  verdict(out, rep);
  for (size_t f = 0, r = 0; f < om->nfams; f++) {
    char help[512];
    bench_help(&om->fams[f], help, sizeof help);
    family_head(out, om->fams[f].name, help, om->fams[f].u.suffix);
    bench_body(out, rep, om, f, &r, &series);
    oom |= series.oom;
    gcb__om_set_free(&series);
  }
  bool colls = any_coll(rep);
  for (size_t i = 0; i < NFIXED; i++) {
    if ((fixed[i].kind == K_COLL || fixed[i].kind == K_COLL_LATE) && !colls)
      continue;
    family_head(out, fixed[i].name, fixed[i].help, fixed[i].suffix);
    fixed_body(out, rep, &fixed[i], &series);
    oom |= series.oom;
    gcb__om_set_free(&series);
  }
  return !oom;
}

static enum gcb_status render_openmetrics(FILE *out,
                                          const struct gcb_report *rep,
                                          struct gcb_err *err) {
  struct om om = {0};
  take_fixed_names(&om);
  bench_families(&om, rep);
  bool ok = !om.oom && !om.names.oom && write_families(out, rep, &om);
  fputs("# EOF\n", out);
  free(om.fams);
  free(om.refs);
  gcb__om_set_free(&om.names);
  gcb__om_set_free(&om.keys);
  if (!ok)
    return gcb_err_set(err, GCB_ENOMEM, "metrics.prom: out of memory");
  return gcb__render_done(out, "metrics.prom", err);
}

const struct gcb_renderer gcb_render_openmetrics = {.name = "openmetrics",
                                                    .file = "metrics.prom",
                                                    .render =
                                                        render_openmetrics};
