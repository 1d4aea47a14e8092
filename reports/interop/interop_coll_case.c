/*
 * nccl-tests and rccl-tests results into gcbench's coll layout, for every
 * input of these tools (logs, -J JSON, rccl-tests JSON lines): the run
 * and device list of a log, the rows of a test, which
 * operation a test ran where the file does not say, and the cases, the
 * Avg bus bandwidth figure and the notes each test becomes.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/status.h"
#include "reports/document/view.h"
#include "reports/interop/interop_coll.h"

/* ---- one row's cases ---------------------------------------------------- */

/* A finite x, else NAN (a summary's "not printed"). */
static double finite(double x) {
  return isfinite(x) ? x : NAN;
}

static enum gcb_status half_case(struct gcb__conv *cv, const char *op,
                                 const struct gcb__coll_row *r, size_t h,
                                 double fig, long long ranks,
                                 long long iterations, long long warmup,
                                 const char *method, const char *label) {
  const struct gcb__coll_half *m = &r->half[h];
  json_t *params =
      json_pack("{s:s, s:f, s:f, s:s, s:s, s:I, s:i}", "op", op, "size",
                r->size, "count", r->count, "type", r->type, "redop", r->redop,
                "root", (json_int_t)r->root, "inplace", (int)h);
  /* gcbench's coll names the communicator too (the whole world: these
   * tools split none), so that compare pairs a tool's row with gcbench's */
  if (params != NULL && r->extra != NULL &&
      json_object_update(params, (json_t *)r->extra) != 0) {
    json_decref(params);
    params = NULL;
  } else if (r->extra == NULL && ranks > 0) {
    params = gcb__conv_param(params, "split", json_string("none"));
    params = gcb__conv_param(params, "comm_size", json_integer(ranks));
  }
  struct gcb_model_case *c;
  enum gcb_status st =
      gcb__conv_case(cv, GCB_BENCH_COLL, label, params, r->size,
                     "bytes as the tool counts them (its size column)", NULL,
                     NULL, 0, fig, m->checked ? method : NULL, r->line, &c);
  if (st != GCB_OK)
    return st;
  struct gcb_model_summary *s = &c->summary;
  double t = m->us * 1e-6;
  double lo = m->us_min > 0 ? m->us_min * 1e-6 : t;
  double hi = m->us_max > 0 ? m->us_max * 1e-6 : t;
  s->ranks = ranks;
  if (isfinite(lo) && isfinite(t) && isfinite(hi)) {
    s->time_min = lo;
    s->time_mean = t;
    s->time_max = hi;
  }
  s->algbw = finite(m->alg);
  if (isfinite(m->bus) && m->bus >= 0) {
    s->busbw = m->bus;
    if (m->alg > 0)
      c->bus_factor = finite(m->bus / m->alg);
  }
  s->wrong = (double)m->wrong;
  c->validation.wrong = m->wrong;
  c->validation.passed = m->checked && m->wrong == 0;
  c->iterations = r->iterations ? r->iterations : iterations;
  c->warmup = warmup;
  return GCB_OK;
}

enum gcb_status gcb__coll_row_cases(struct gcb__conv *cv, const char *op,
                                    const struct gcb__coll_row *r,
                                    long long ranks, long long iterations,
                                    long long warmup, const char *method) {
  enum gcb_status st = GCB_OK;
  for (size_t h = 0; h < 2 && st == GCB_OK; h++) {
    const struct gcb__coll_half *m = &r->half[h];
    if (!m->present)
      continue;
    char label[160], why[160];
    snprintf(label, sizeof label, "%s %s%s%s %.0fB %s", op, r->type,
             r->redop[0] ? " " : "", r->redop, r->size,
             h ? "in-place" : "out-of-place");
    /* algbw is S/t; where the tool printed 0.00 (a small size), the same
     * quotient with more digits keeps the row's time. */
    double fig = m->alg > 0                 ? m->alg
                 : r->size > 0 && m->us > 0 ? r->size / (m->us * 1e3)
                                            : 0;
    /* two decimals as the tools print a time, but an absurd one (OSU's
     * 1e308 ran to 160 characters) in exponent form */
    char us[32];
    snprintf(us, sizeof us, m->us < 1e9 ? "%.2f" : "%.3g", m->us);
    if (!(m->us > 0))
      snprintf(why, sizeof why, "%s printed no finite time", cv->format);
    else if (!(fig > 0) && !r->no_bytes && !(r->size > 0))
      snprintf(why, sizeof why, "0 bytes: %s us, no bandwidth to report", us);
    else if (!(fig > 0) && !r->no_bytes) /* S/t came to 0: t past 1e305 */
      snprintf(why, sizeof why,
               "%.0f B in %s us: a time too long for a bandwidth", r->size, us);
    if (m->us > 0 && (fig > 0 || r->no_bytes))
      st = half_case(cv, op, r, h, fig, ranks, iterations, warmup, method,
                     label);
    else
      st = gcb__conv_skip(cv, "coll", label, why, r->line);
  }
  return st;
}

/* ---- a log's document and devices --------------------------------------- */

void gcb__coll_log_begin(struct gcb__coll_log *x, struct gcb__conv *cv) {
  x->cv = cv;
  x->max_rank = -1;
  x->rccl = strstr(cv->format, "rccl") != NULL ||
            gcb__text_has(cv->text, cv->len, "rccl-tests", GCB__DETECT_WINDOW);
  gcb__conv_run(cv, x->rccl ? "rccl-tests" : "nccl-tests");
}

enum gcb_status gcb__coll_add_rank(struct gcb__coll_log *x, long long rank,
                                   const char *host, long long pid,
                                   const char *gpu, const char *bus,
                                   long long device) {
  if ((size_t)rank >= x->nseen) {
    size_t n = (size_t)rank + 64;
    unsigned char *grown = realloc(x->seen, n);
    if (grown == NULL)
      return gcb__conv_nomem(x->cv);
    memset(grown + x->nseen, 0, n - x->nseen);
    x->seen = grown;
    x->nseen = n;
  }
  if (x->seen[rank])
    return GCB_OK;
  x->seen[rank] = 1;
  x->max_rank = rank > x->max_rank ? rank : x->max_rank;
  long long k = gcb__conv_node(x->cv, host);
  return k >= 0 ? gcb__conv_rank(x->cv, rank, k, host, pid, gpu, bus, device)
                : gcb__conv_nomem(x->cv);
}

/* ---- rows --------------------------------------------------------------- */

static bool integer(const char *s, double *out) {
  return gcb__token_number(s, out) && *out >= 0 && *out == floor(*out) &&
         *out <= GCB__MAX_COUNT && strchr(s, '*') == NULL;
}

/* time algbw busbw #wrong at tok; NULL or what is wrong. */
static const char *read_half(char **tok, struct gcb__coll_half *h) {
  double v[3];
  static const char *const names[] = {"time", "algbw", "busbw"};
  static char why[64];
  for (size_t i = 0; i < 3; i++) {
    bool nan_word = strstr(tok[i], "nan") != NULL || strcmp(tok[i], "N/A") == 0;
    if (!gcb__token_number(tok[i], &v[i]) && !nan_word) {
      snprintf(why, sizeof why, "%s '%.20s' is not a number", names[i], tok[i]);
      return why;
    }
    v[i] = nan_word ? NAN : v[i];
  }
  double w = 0;
  *h = (struct gcb__coll_half){.present = true,
                               .us = v[0],
                               .alg = v[1],
                               .bus = v[2],
                               .checked = gcb__token_number(tok[3], &w)};
  h->wrong = h->checked && w >= 0 && w < 9e15 ? (long long)w : 0;
  if (!h->checked && strcmp(tok[3], "N/A") != 0)
    return "#wrong is neither a count nor N/A";
  return NULL;
}

const char *gcb__coll_row_read(const struct gcb__coll_table *t, char **tok,
                               size_t n, struct gcb__coll_row *r) {
  size_t want = t->nleft + 4 * t->halves, k = 3;
  *r = (struct gcb__coll_row){.root = -1};
  if (!integer(tok[0], &r->size) || !integer(tok[1], &r->count))
    return "size and count are not byte and element counts";
  snprintf(r->type, sizeof r->type, "%s", tok[2]);
  if (t->has_redop && n == want)
    snprintf(r->redop, sizeof r->redop, "%s", tok[k++]);
  if (t->has_root) {
    double root;
    if (!gcb__token_number(tok[k], &root) || root != floor(root) ||
        fabs(root) > 1e9)
      return "root is not a rank";
    r->root = (long long)root;
    k++;
  }
  for (size_t h = 0; h < t->halves; h++) {
    const char *bad = read_half(tok + k + 4 * h, &r->half[h]);
    if (bad != NULL)
      return bad;
  }
  return NULL; /* one half printed: out-of-place, half[1] stays absent */
}

enum gcb_status gcb__coll_row_add(struct gcb__coll_log *x,
                                  const struct gcb__coll_row *r, int line) {
  struct gcb__coll_table *t = &x->table;
  if (++x->total_rows > GCB_INTEROP_MAX_ITEMS / 2)
    return gcb__conv_bad_line(x->cv, line,
                              "more than %zu rows in one file (the most "
                              "gcbench converts); split the file",
                              GCB_INTEROP_MAX_ITEMS / 2);
  if (!gcb_grow((void **)&t->row, &t->cap, t->rows, sizeof *t->row))
    return gcb__conv_nomem(x->cv);
  t->row[t->rows] = *r;
  t->row[t->rows++].line = line;
  return GCB_OK;
}

/* ---- which operation ---------------------------------------------------- */

/* The operations as file names spell them, longest first. */
static const struct {
  const char *spelling, *op;
} op_names[] = {
    {"reduce_scatter", "reducescatter"},
    {"reducescatter", "reducescatter"},
    {"all_reduce", "allreduce"},
    {"allreduce", "allreduce"},
    {"all_gather", "allgather"},
    {"allgather", "allgather"},
    {"alltoall", "alltoall"},
    {"broadcast", "broadcast"},
    {"bcast", "broadcast"},
    {"sendrecv", "sendrecv"},
    {"reduce", "reduce"},
};

/* An operation the file's name spells ("nccl_alltoall.log"), or NULL. */
static const char *op_in_name(const char *path) {
  const char *base = gcb__conv_base_name(path);
  for (size_t i = 0; i < sizeof op_names / sizeof *op_names; i++)
    if (strstr(base, op_names[i].spelling) != NULL)
      return op_names[i].op;
  return NULL;
}

/* Where the file does not name the operation: the layout and the
 * busbw/algbw factor (nccl-tests' PERFORMANCE.md) decide, or nothing. */
static const char *infer_op(const struct gcb__coll_log *x) {
  const struct gcb__coll_table *t = &x->table;
  long long n = x->max_rank >= 0 ? x->max_rank + 1 : x->ngpus;
  double top = 0, ratio = NAN;
  const struct gcb__coll_row *r0 = t->rows ? &t->row[0] : NULL;
  bool redop = r0 && r0->redop[0] && strcmp(r0->redop, "none") != 0;
  for (size_t i = 0; i < t->rows; i++)
    for (size_t h = 0; h < 2; h++)
      if (t->row[i].half[h].alg > top && t->row[i].half[h].bus >= 0) {
        top = t->row[i].half[h].alg;
        ratio = t->row[i].half[h].bus / top;
      }
  if (t->has_root && (!t->has_redop || (r0 && r0->root >= 0)))
    return redop ? "reduce" : "broadcast";
  double tol = 0.02 + 0.02 / (top > 0 ? top : 1);
  if (n >= 2 && top >= 0.5 && fabs(ratio - 2.0 * (n - 1) / n) < tol)
    return "allreduce";
  if (n >= 2 && top >= 0.5 && redop && fabs(ratio - (double)(n - 1) / n) < tol)
    return "reducescatter";
  const char *named = x->tables == 0 ? op_in_name(x->cv->name) : NULL;
  return named != NULL ? named : "unnamed";
}

/* ---- the end of a test and of the file ---------------------------------- */

enum gcb_status gcb__coll_table_end(struct gcb__coll_log *x) {
  struct gcb__coll_table *t = &x->table;
  enum gcb_status st = GCB_OK;
  if (!t->started)
    return GCB_OK;
  char op[32];
  snprintf(op, sizeof op, "%s", t->op[0] ? t->op : infer_op(x));
  long long ranks = x->max_rank >= 0 ? x->max_rank + 1 : x->ngpus;
  const char *method = x->rccl ? "rccl-tests -c" : "nccl-tests -c";
  for (size_t i = 0; i < t->rows && st == GCB_OK; i++)
    st = gcb__coll_row_cases(x->cv, op, &t->row[i], ranks, x->iterations,
                             x->warmup, method);
  const char *tool = x->rccl ? "rccl-tests" : "nccl-tests";
  char label[96], msg[160];
  snprintf(label, sizeof label, "%s: Avg bus bandwidth", op);
  if (st == GCB_OK && t->has_avg)
    st = gcb__conv_figure(x->cv, tool, "avg_bus_bandwidth", label,
                          json_pack("{s:s}", "op", op), "GB/s", t->avg_busbw,
                          t->avg_line);
  snprintf(msg, sizeof msg, "%lld values out of bounds", t->out_of_bounds);
  if (st == GCB_OK && t->out_of_bounds > 0)
    st = gcb__conv_error(x->cv, "coll", op, "EVALIDATION", msg);
  free(t->row);
  x->table = (struct gcb__coll_table){0};
  x->tables++;
  return st;
}

/* The file ends inside a test: its finished rows stay, the cut is said. */
static enum gcb_status cut(struct gcb__coll_log *x, int line) {
  char msg[256];
  const struct gcb__coll_table *t = &x->table;
  snprintf(msg, sizeof msg,
           "the log ends at line %d inside the test whose header is line %d "
           "(a timeout or a truncated copy): its %zu finished rows are kept",
           line, t->line, t->rows);
  return gcb__conv_timeout(x->cv, "coll", t->op[0] ? t->op : "log", msg);
}

/* The file ends after a whole row, without the test's summary: a pasted
 * excerpt as often as a stopped run, and nothing in it says which. Its
 * rows are what they are; the run's status is unknown (an info in the
 * report), not a timeout. */
static void excerpt(struct gcb__coll_log *x, int line) { /* its last row */
  char msg[256];
  const struct gcb__coll_table *t = &x->table;
  snprintf(msg, sizeof msg,
           "%s is an excerpt: it ends at line %d after %zu row(s) of the test "
           "whose header is line %d, without the summary (# Avg bus "
           "bandwidth) a finished run prints",
           gcb__conv_base_name(x->cv->name), line, t->rows, t->line);
  gcb__conv_run_set(x->cv, "status", gcb__mvalue_string(x->cv->m, "unknown"));
  gcb__conv_run_set(x->cv, "status_reason", gcb__mvalue_string(x->cv->m, msg));
}

enum gcb_status gcb__coll_log_end(struct gcb__coll_log *x, int last_line) {
  enum gcb_status st = GCB_OK;
  bool open = x->table.started && !x->table.closed;
  int header = x->table.line;
  /* cut inside a row (or before any): cut; after a whole row: an excerpt */
  if (open && (x->cut_line || x->table.rows == 0))
    st = cut(x, x->cut_line ? x->cut_line : last_line);
  else if (open)
    excerpt(x, x->table.row[x->table.rows - 1].line);
  if (st == GCB_OK)
    st = gcb__coll_table_end(x);
  struct gcb_model *m = x->cv->m;
  if (st == GCB_OK && m->ncases == 0 && x->cv->m->nskips == 0)
    st = gcb__conv_bad_line(x->cv, header ? header : 1,
                            "no result rows after the column header");
  long long ranks = x->max_rank >= 0 ? x->max_rank + 1 : x->ngpus;
  gcb__conv_run_set(x->cv, "ranks", gcb__mvalue_int(ranks > 0 ? ranks : 0));
  gcb__conv_run_set(x->cv, "nodes", gcb__mvalue_int((long long)m->nnodes));
  m->run.version = gcb__model_str(m, x->tool_version);
  if (x->lib_version[0])
    gcb__conv_software(x->cv, x->rccl ? "rccl" : "nccl", x->lib_version);
  return st;
}

void gcb__coll_log_free(struct gcb__coll_log *x) {
  free(x->table.row);
  free(x->seen);
  free(x);
}
