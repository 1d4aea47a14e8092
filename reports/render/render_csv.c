/*
 * results.csv: one row per case and rank (one row per case where the
 * document has no per-rank entries), with a header, for
 * spreadsheets and scripts: one column per field, every benchmark family's
 * parameters included (docs/REPORTS.md lists them). Text fields go through
 * gcb_escape_csv (RFC 4180 quoting, formula guard); numbers are written with 10
 * significant digits, integers of 10^10 and more whole, empty when the
 * document has none.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/fmtnum.h"
#include "reports/document/model.h"
#include "reports/document/ranks.h"
#include "reports/render/render.h"
#include "reports/render/render_rows.h"

/* The parameters of every benchmark family, one column each (empty where
 * the case's family has no such parameter), so a spreadsheet or pandas
 * reads them without splitting a string. A column may take one of several
 * keys: gemm's "dtype" and a collective's "type" are both the element
 * type, membw's "bytes" and the others' "size" the bytes moved. */
static const struct param_col {
  const char *column;
  const char *keys[2];
  bool flag; /* 0/1 in the document, false/true in the file */
} param_cols[] = {
    {"op", {"op"}, false},
    {"type", {"type", "dtype"}, false},
    {"size_bytes", {"size", "bytes"}, false},
    {"count", {"count"}, false},
    {"redop", {"redop"}, false},
    {"in_place", {"inplace"}, true},
    {"root", {"root"}, false},
    {"m", {"m"}, false},
    {"n", {"n"}, false},
    {"k", {"k"}, false},
    {"alpha", {"alpha"}, false},
    {"kernel", {"kernel"}, false},
    {"direction", {"direction"}, false},
    {"memory", {"memory"}, false},
    {"numa", {"numa"}, false},
    {"traffic", {"traffic"}, false},
    {"mode", {"mode"}, false},
    {"copy", {"copy"}, false},
    {"path", {"path"}, false},
    {"src", {"src"}, false},
    {"dst", {"dst"}, false},
    {"src_bus_id", {"src_bus_id"}, false},
    {"dst_bus_id", {"dst_bus_id"}, false},
    {"testcase", {"testcase"}, false},
};
enum { NPARAMS = sizeof param_cols / sizeof *param_cols };

static void text(FILE *out, const char *s) {
  fputc(',', out);
  gcb_escape_csv(out, s);
}

/* x with 10 significant digits, but an integer whole: %.10g writes a
 * size of 17179869184 bytes (16 GiB, a row of nccl-tests) as
 * 1.717986918e+10, which reads back 4 bytes short. Returns the length. */
static size_t number_text(char *buf, double x) {
  if (fabs(x) >= 1e10 && fabs(x) < 0x1p53 && x == floor(x))
    return gcb_fmtnum_ll(buf, (long long)x);
  return gcb_fmtnum_g(buf, x, 10);
}

static void num(FILE *out, double x) {
  char buf[GCB_FMTNUM_MAX];
  fputc(',', out);
  if (!isnan(x))
    fwrite(buf, 1, number_text(buf, x), out);
}

static void integer(FILE *out, long long v) {
  if (v < 0)
    fputc(',', out);
  else
    fprintf(out, ",%lld", v);
}

/* The column a parameter key belongs to, NPARAMS for none. */
static size_t param_column(const char *key) {
  for (size_t i = 0; i < NPARAMS; i++)
    for (size_t k = 0; k < 2 && param_cols[i].keys[k]; k++)
      if (strcmp(param_cols[i].keys[k], key) == 0)
        return i;
  return NPARAMS;
}

static bool is_number(const struct gcb_mvalue *v) {
  return v->type == GCB_MV_INT || v->type == GCB_MV_REAL;
}

/* One parameter's value: text escaped, a whole number without exponent. */
static void param_value(FILE *out, const struct param_col *pc,
                        const struct gcb_mvalue *v) {
  if (v->type == GCB_MV_STRING)
    text(out, v->text);
  else if (pc != NULL && pc->flag && is_number(v))
    fputs(v->num != 0 ? ",true" : ",false", out);
  else if (v->type == GCB_MV_INT)
    fprintf(out, ",%lld", v->i);
  else if (v->type == GCB_MV_REAL)
    num(out, v->num);
  else if (v->type == GCB_MV_BOOL)
    fputs(v->b ? ",true" : ",false", out);
  else
    fputc(',', out);
}

static void param_fields(FILE *out, const struct gcb_model_case *c) {
  for (size_t i = 0; i < NPARAMS; i++) {
    const struct gcb_mvalue *v =
        gcb_mvalue_get(&c->params, param_cols[i].keys[0]);
    if (v->type == GCB_MV_ABSENT && param_cols[i].keys[1] != NULL)
      v = gcb_mvalue_get(&c->params, param_cols[i].keys[1]);
    param_value(out, &param_cols[i], v);
  }
}

/* Parameters no column holds (an imported file's own), "key=value;..." so
 * that nothing is dropped; empty for gcbench's own benchmarks. */
static void other_params(FILE *out, const struct gcb_model_case *c) {
  char buf[512] = "";
  size_t used = 0;
  size_t np = c->params.type == GCB_MV_OBJECT ? c->params.n : 0;
  for (size_t i = 0; i < np; i++) {
    const char *k = c->params.members[i].key;
    const struct gcb_mvalue *v = &c->params.members[i].value;
    if (param_column(k) < NPARAMS || used + 1 >= sizeof buf)
      continue;
    /* anything but a string or a number as 0, as jansson reads it */
    int n = v->type == GCB_MV_STRING
                ? snprintf(buf + used, sizeof buf - used, "%s%s=%s",
                           used ? ";" : "", k, v->text)
                : snprintf(buf + used, sizeof buf - used, "%s%s=%.17g",
                           used ? ";" : "", k, is_number(v) ? v->num : 0.0);
    used += n > 0 ? (size_t)n : 0;
    used = used < sizeof buf ? used : sizeof buf - 1;
  }
  char safe[512];
  gcb_view_copy(safe, sizeof safe, buf);
  text(out, safe);
}

/* The fields every row of a case shares (run to unit), escaped once into
 * a buffer: at thousands of ranks per case this is most of the text.
 * NULL on ENOMEM. */
static char *case_prefix(size_t d, const struct gcb_model *m,
                         const struct gcb_model_case *c) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f == NULL)
    return NULL;
  fprintf(f, "%zu", d + 1);
  text(f, m->run.id);
  text(f, c->bench);
  text(f, c->label);
  param_fields(f, c);
  other_params(f, c);
  text(f, c->unit);
  /* time_us, algbw and busbw as nccl-tests prints them: the case's mean
   * time over ranks and its bandwidths (empty for other families) */
  num(f, c->nominal_work ? NAN : c->summary.time_mean * 1e6);
  num(f, c->summary.algbw);
  num(f, c->summary.busbw);
  if (fclose(f) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* Rows being built: half a million of them at 4096 ranks, so fields go
 * into a buffer rather than through stdio (render_rows.h). */
static void row_num(struct gcb__rows *r, double x) {
  char *at = gcb__rows_room(r, GCB_FMTNUM_MAX + 1);
  *at = ',';
  r->n += 1 + (isnan(x) ? 0 : number_text(at + 1, x));
}

static void row_int(struct gcb__rows *r, long long v) {
  char *at = gcb__rows_room(r, GCB_FMTNUM_MAX + 1);
  *at = ',';
  r->n += 1 + (v < 0 ? 0 : gcb_fmtnum_ll(at + 1, v));
}

/* Where every rank of a document runs, escaped for CSV once: the
 * node to bus_id fields of its rows, by rank. */
struct places {
  struct placed *at;
  size_t n;
};

struct placed {
  char *text; /* NULL: not in ranks[] */
  size_t len; /* of text */
};

static char *place_text(const struct gcb_model *m, long long rank) {
  struct gcb_place p;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f == NULL)
    return NULL;
  gcb_model_place(m, rank, &p);
  integer(f, p.node);
  text(f, p.hostname);
  integer(f, p.gpu);
  text(f, p.bus_id);
  if (fclose(f) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

static void places_free(struct places *pl) {
  for (size_t i = 0; i < pl->n; i++)
    free(pl->at[i].text);
  free(pl->at);
  *pl = (struct places){0};
}

/* false on ENOMEM. */
static bool places_of(const struct gcb_model *m, struct places *pl) {
  size_t n = m->nranks;
  *pl = (struct places){.at = calloc(n + 1, sizeof *pl->at), .n = n};
  for (size_t r = 0; pl->at != NULL && r < n; r++) {
    if ((pl->at[r].text = place_text(m, (long long)r)) == NULL) {
      places_free(pl);
      return false;
    }
    pl->at[r].len = strlen(pl->at[r].text);
  }
  return pl->at != NULL;
}

static void rank_row(struct gcb__rows *r, const char *prefix, size_t plen,
                     const struct gcb_model *m, const struct places *pl,
                     const struct gcb_model_case *c, size_t i) {
  static const enum gcb_rank_col nums[] = {
      GCB_RC_TIME_MEDIAN, GCB_RC_TIME_MIN,   GCB_RC_TIME_MEAN,
      GCB_RC_TIME_MAX,    GCB_RC_TIME_STDEV, GCB_RC_FIGURE_TIME,
      GCB_RC_FIG_MEDIAN,  GCB_RC_FIG_BEST,   GCB_RC_FIG_WORST,
      GCB_RC_LATE_MEAN};
  long long rank = gcb_model_col_rank(c, i, -1);
  gcb__rows_putn(r, prefix, plen);
  row_int(r, rank);
  if (rank >= 0 && (size_t)rank < pl->n) {
    gcb__rows_putn(r, pl->at[rank].text, pl->at[rank].len);
  } else {
    char *own = place_text(m, rank);
    gcb__rows_put(r, own != NULL ? own : ",,,,");
    free(own);
  }
  row_int(r, gcb_model_col_int(c, GCB_RC_TIME_N, i, -1));
  /* A nominal size (nvbandwidth's rates) makes every time derived: the
   * first six columns are times, left empty then. */
  for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
    row_num(r, c->nominal_work && k < 6 ? NAN : gcb_model_col(c, nums[k], i));
  bool checked = gcb_model_col(c, GCB_RC_CHECKED, i) == 1;
  gcb__rows_putn(r, checked ? ",true" : ",false", checked ? 5 : 6);
  row_int(r, gcb_model_col_int(c, GCB_RC_WRONG, i, -1));
  /* The GPU while the case ran (empty without telemetry). */
  row_num(r, gcb_model_col(c, GCB_RC_TELEM_SM_MEAN, i));
  row_num(r, gcb_model_col(c, GCB_RC_TELEM_POWER_MAX, i));
  gcb__rows_putn(r, ",", 1);
  gcb__rows_csv(r, gcb_model_col_str(c, GCB_RC_TELEM_THROTTLE, i));
  gcb__rows_putn(r, "\n", 1);
}

/* A case without per-rank entries (nccl-tests reports only the average
 * over ranks): one row with the rank fields empty and the summary's time
 * and figure, so the case is not missing from the file. */
static void summary_row(FILE *out, const char *prefix,
                        const struct gcb_model_case *c) {
  const struct gcb_model_summary *s = &c->summary;
  /* rank_row's time_median_s to late_mean_s: no median time, stdev, best
   * or worst figure recorded */
  const double v[] = {NAN, s->time_min,   s->time_mean, s->time_max,
                      NAN, s->time_mean,  s->median,    NAN,
                      NAN, s->late_mean_s};
  fputs(prefix, out);
  fputs(",,,,,,", out); /* rank, node, hostname, gpu, bus_id, samples */
  for (size_t k = 0; k < sizeof v / sizeof *v; k++)
    num(out, v[k]);
  text(out, c->validation.checked ? "true" : "false");
  integer(out, c->validation.present ? c->validation.wrong : -1);
  fputs(",,,\n", out); /* no per-rank telemetry */
}

/* The case's fields, the parameter columns, then the case's figures and
 * the rank's fields, in the order case_prefix and rank_row write them. */
static void header(FILE *out) {
  fputs("run,run_id,bench,label", out);
  for (size_t i = 0; i < NPARAMS; i++)
    fprintf(out, ",%s", param_cols[i].column);
  fputs(",other_params,unit,time_us,algbw,busbw,rank,node,hostname,gpu,bus_id,"
        "samples,time_median_s,time_min_s,time_mean_s,time_max_s,"
        "time_stdev_s,figure_time_s,figure_median,figure_best,figure_worst,"
        "late_mean_s,checked,wrong,sm_clock_mhz_mean,power_w_max,"
        "throttle_reasons\n",
        out);
}

static enum gcb_status write_csv(struct gcb__rows *r,
                                 const struct gcb_report *rep,
                                 struct gcb_err *err) {
  FILE *out = r->out;
  header(out);
  for (size_t d = 0; d < rep->ndocs; d++) {
    const struct gcb_model *m = rep->docs[d].model;
    struct places pl;
    if (!places_of(m, &pl))
      return gcb_err_set(err, GCB_ENOMEM, "results.csv: out of memory");
    for (size_t i = 0; i < m->ncases; i++) {
      const struct gcb_model_case *c = &m->cases[i];
      char *prefix = case_prefix(d, m, c);
      if (prefix == NULL) {
        places_free(&pl);
        return gcb_err_set(err, GCB_ENOMEM, "results.csv: out of memory");
      }
      size_t plen = strlen(prefix);
      for (size_t j = 0; j < c->ranks.n; j++)
        rank_row(r, prefix, plen, m, &pl, c, j);
      gcb__rows_flush(r); /* before stdio writes again */
      if (c->ranks.n == 0)
        summary_row(out, prefix, c);
      free(prefix);
    }
    places_free(&pl);
  }
  return gcb__render_done(out, "results.csv", err);
}

static enum gcb_status render_csv(FILE *out, const struct gcb_report *rep,
                                  struct gcb_err *err) {
  struct gcb__rows *r = malloc(sizeof *r);
  if (r == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "results.csv: out of memory");
  r->out = out;
  r->n = 0;
  enum gcb_status st = write_csv(r, rep, err);
  free(r);
  return st;
}

const struct gcb_renderer gcb_render_csv = {
    .name = "csv", .file = "results.csv", .render = render_csv};
