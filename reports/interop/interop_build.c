/*
 * The parts every converter shares: the conversion context (locations,
 * typed getters, the limit on what one file may build), the parts of a
 * converted file's model (its run, nodes, ranks, cases, imported figures,
 * skipped and error entries), the cases of a collective tool's result row,
 * and the join of that model to the topology a gcbench document recorded
 * for the same machine.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "reports/document/bench_kind.h"
#include "reports/document/ranks.h"
#include "reports/document/stats.h"
#include "reports/interop/interop_int.h"

/* ---- the conversion context -------------------------------------------- */

void gcb__conv_enter(struct gcb__conv *cv, const char *key, size_t index) {
  if (cv->depth < GCB__CONV_DEPTH)
    cv->path[cv->depth] = (struct gcb_json_step){.key = key, .index = index};
  cv->depth++;
}

void gcb__conv_leave(struct gcb__conv *cv) {
  cv->depth--;
}

enum gcb_status
gcb__conv_each(struct gcb__conv *cv, const char *key, const json_t *arr,
               enum gcb_status (*fn)(void *ctx, const json_t *e), void *ctx) {
  const json_t *e;
  size_t i;
  enum gcb_status st = GCB_OK;
  gcb__conv_enter(cv, key, 0);
  json_array_foreach(arr, i, e) {
    gcb__conv_enter(cv, NULL, i);
    st = fn(ctx, e);
    gcb__conv_leave(cv);
    if (st != GCB_OK)
      break;
  }
  gcb__conv_leave(cv);
  return st;
}

enum gcb_status gcb__conv_bad(struct gcb__conv *cv, const char *fmt, ...) {
  char what[256], path[256];
  size_t depth = cv->depth < GCB__CONV_DEPTH ? cv->depth : GCB__CONV_DEPTH;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  gcb_json_path_text(cv->path, depth, path, sizeof path);
  int line = 1, col = 1;
  gcb_json_locate(cv->text, cv->len, cv->path, depth, &line, &col);
  return gcb_err_set(cv->err, GCB_EINPUT, "%s:%d:%d: %s: %s%s%s", cv->name,
                     line + cv->line0, col, cv->format, path,
                     path[0] ? ": " : "", what);
}

enum gcb_status gcb__conv_bad_line(struct gcb__conv *cv, int line,
                                   const char *fmt, ...) {
  char what[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return gcb_err_set(cv->err, GCB_EINPUT, "%s:%d: %s: %s", cv->name, line,
                     cv->format, what);
}

enum gcb_status gcb__conv_nomem(struct gcb__conv *cv) {
  return gcb_err_set(cv->err, GCB_ENOMEM, "%s: out of memory", cv->name);
}

/* One more item against the limit: GCB_EINPUT past it, said at `line`
 * (0: none). Refused as it is built: a huge file never becomes a huge
 * model. */
static enum gcb_status count(struct gcb__conv *cv, int line) {
  char at[16] = "";
  if (++cv->items <= GCB_INTEROP_MAX_ITEMS)
    return GCB_OK;
  if (line > 0)
    snprintf(at, sizeof at, ":%d", line);
  return gcb_err_set(cv->err, GCB_EINPUT,
                     "%s%s: %s: more than %zu cases in one file (the most "
                     "gcbench converts); split the file",
                     cv->name, at, cv->format, GCB_INTEROP_MAX_ITEMS);
}

static int type_bits(const json_t *v) {
  return json_is_string(v)    ? GCB__J_STR
         : json_is_number(v)  ? GCB__J_NUM
         : json_is_object(v)  ? GCB__J_OBJ
         : json_is_array(v)   ? GCB__J_ARR
         : json_is_null(v)    ? GCB__J_NULL
         : json_is_boolean(v) ? GCB__J_BOOL
                              : 0;
}

static const char *type_words(int types) {
  static const struct {
    int bits;
    const char *words;
  } names[] = {{GCB__J_STR, "a string"},  {GCB__J_NUM, "a number"},
               {GCB__J_OBJ, "an object"}, {GCB__J_ARR, "an array"},
               {GCB__J_NULL, "null"},     {GCB__J_BOOL, "a boolean"}};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (names[i].bits == types)
      return names[i].words;
  return types == (GCB__J_STR | GCB__J_NUM) ? "a number or a string"
         : types & GCB__J_NULL              ? "a value or null"
                                            : "another type";
}

enum gcb_status gcb__conv_get(struct gcb__conv *cv, const json_t *obj,
                              const char *key, int types, bool required,
                              const json_t **out) {
  const json_t *v = json_object_get(obj, key);
  *out = NULL;
  if (v == NULL)
    return required ? gcb__conv_bad(cv, "missing required field '%s'", key)
                    : GCB_OK;
  if ((type_bits(v) & types) == 0) {
    gcb__conv_enter(cv, key, 0);
    enum gcb_status st = gcb__conv_bad(
        cv, "expected %s, got %s", type_words(types), type_words(type_bits(v)));
    gcb__conv_leave(cv);
    return st;
  }
  *out = v;
  return GCB_OK;
}

double gcb__conv_number(const json_t *v) {
  const char *s = json_string_value(v);
  double x = NAN;
  if (json_is_number(v))
    x = json_number_value(v);
  else if (s != NULL && s[0] != '\0') {
    char *end;
    x = strtod(s, &end);
    x = *end == '\0' ? x : NAN;
  }
  return isfinite(x) ? x : NAN;
}

/* ---- document parts ----------------------------------------------------- */

long long gcb__conv_ll(double v, long long fallback) {
  return isfinite(v) && fabs(v) <= 9e15 ? (long long)v : fallback;
}

const char *gcb__conv_base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

void gcb__conv_run(struct gcb__conv *cv, const char *tool) {
  struct gcb_model *m = cv->m;
  char reason[600];
  snprintf(reason, sizeof reason, "converted from %s (%s)", cv->format,
           cv->name);
  m->run.schema = GCB_RESULTS_SCHEMA;
  m->run.tool = gcb__model_str(m, tool);
  m->run.version = "";
  m->run.git_revision = "unknown";
  m->run.software = gcb__mvalue_object();
  m->run.run = gcb__mvalue_object();
  const struct {
    const char *key;
    struct gcb_mvalue v;
  } run[] = {
      {"id", gcb__mvalue_string(m, gcb__conv_base_name(cv->name))},
      {"command", gcb__mvalue_string(m, tool)},
      {"command_line", gcb__mvalue_array(m, "[]")},
      {"start_time", gcb__mvalue_string(m, "")},
      {"end_time", gcb__mvalue_string(m, "")},
      {"status", gcb__mvalue_string(m, "complete")},
      {"backend", gcb__mvalue_string(m, "cuda")},
      {"backend_reason", gcb__mvalue_string(m, reason)},
      {"ranks", gcb__mvalue_int(0)},
      {"nodes", gcb__mvalue_int(0)},
  };
  for (size_t i = 0; i < sizeof run / sizeof *run; i++)
    gcb__conv_run_set(cv, run[i].key, run[i].v);
}

void gcb__conv_run_set(struct gcb__conv *cv, const char *key,
                       struct gcb_mvalue v) {
  gcb__mvalue_set(cv->m, &cv->m->run.run, key, v);
}

void gcb__conv_software(struct gcb__conv *cv, const char *key,
                        const char *value) {
  gcb__mvalue_set(cv->m, &cv->m->run.software, key,
                  gcb__mvalue_string(cv->m, value));
}

/* A name as a log printed it: its bytes where they are UTF-8, U+FFFD for
 * each other byte, so that a garbled GPU or host name never costs the
 * rank or node it names; owned by cv->m, NULL on ENOMEM. */
static const char *model_name(struct gcb__conv *cv, const char *s) {
  char *fixed = gcb_utf8_copy(s);
  const char *kept = fixed != NULL ? gcb__model_str(cv->m, fixed) : NULL;
  free(fixed);
  return kept;
}

enum gcb_status gcb__conv_node(struct gcb__conv *cv, const char *host,
                               long long *index) {
  struct gcb_model *m = cv->m;
  size_t len = strlen(host);
  if (len >= GCB_HOSTNAME_SIZE) { /* its first bytes would be another's */
    char start[41];
    gcb_view_copy(start, sizeof start, host);
    return gcb_err_set(cv->err, GCB_EINPUT,
                       "%s: %s: a hostname of %zu bytes (at most %d: a DNS "
                       "name is at most 253): \"%s...\"",
                       cv->name, cv->format, len, GCB_HOSTNAME_SIZE - 1, start);
  }
  char *name = gcb_utf8_copy(host);
  size_t k = 0;
  while (name != NULL && k < m->nnodes &&
         strcmp(m->nodes[k].hostname, name) != 0)
    k++;
  struct gcb_model_node *n =
      name != NULL && k == m->nnodes ? gcb__model_add_node(m) : NULL;
  if (n != NULL)
    *n = (struct gcb_model_node){.index = (long long)k,
                                 .hostname = gcb__model_str(m, name),
                                 .cpu_model = ""};
  bool ok = name != NULL && k < m->nnodes;
  free(name);
  *index = (long long)k;
  return ok ? GCB_OK : gcb__conv_nomem(cv);
}

enum gcb_status gcb__conv_rank(struct gcb__conv *cv, long long rank,
                               const char *host, long long pid,
                               const char *gpu_name, const char *bus_id,
                               long long gpu_index) {
  long long node;
  enum gcb_status st = gcb__conv_node(cv, host, &node);
  if (st != GCB_OK)
    return st;
  struct gcb_model_node *n = &cv->m->nodes[node];
  long long local = (long long)n->nranks;
  struct gcb_model_rank *r =
      gcb__model_node_rank(cv->m, n, rank) ? gcb__model_add_rank(cv->m) : NULL;
  if (r == NULL)
    return gcb__conv_nomem(cv);
  *r = (struct gcb_model_rank){.rank = rank,
                               .node = node,
                               .local_rank = local,
                               .pid = pid,
                               .hostname = model_name(cv, host),
                               .cpu_binding = "",
                               .cpu_threads = 1,
                               .numa = -1,
                               .has_device = true,
                               .device_index = gpu_index,
                               .device_bus_id = model_name(cv, bus_id),
                               .device_name = model_name(cv, gpu_name),
                               .blas_core = "",
                               .blas_cpu_isa = "",
                               .blas_threads = -1};
  return r->hostname != NULL && r->device_bus_id != NULL &&
                 r->device_name != NULL
             ? GCB_OK
             : gcb__conv_nomem(cv);
}

/* Whether s is UTF-8 throughout. The entries' texts are refused
 * otherwise, as jansson refused them when they were a tree (the file then
 * failed as out of memory). */
static bool utf8(const char *s) {
  size_t n;
  while (*s != '\0' && (n = gcb_utf8_length(s)) > 0)
    s += n;
  return *s == '\0';
}

/* The ranks' columns, as schema 1's entries had them: one sample each,
 * the time to move `work` at fig[i] GB/s. */
static void rank_columns(struct gcb__conv *cv, struct gcb_model_case *c,
                         const long long *rank, const double *fig, size_t n,
                         double work, const char *method) {
  enum from { RANK, TIME, FIG, CHECKED, FIXED };
  static const struct {
    enum gcb_rank_col col;
    enum from from;
    double v; /* FIXED's value */
  } cols[] = {{GCB_RC_RANK, RANK, 0},         {GCB_RC_TIME_MIN, TIME, 0},
              {GCB_RC_TIME_MEDIAN, TIME, 0},  {GCB_RC_TIME_MEAN, TIME, 0},
              {GCB_RC_TIME_MAX, TIME, 0},     {GCB_RC_TIME_P99, TIME, 0},
              {GCB_RC_FIGURE_TIME, TIME, 0},  {GCB_RC_FIG_MEDIAN, FIG, 0},
              {GCB_RC_FIG_BEST, FIG, 0},      {GCB_RC_FIG_WORST, FIG, 0},
              {GCB_RC_TIME_N, FIXED, 1},      {GCB_RC_TIME_STDEV, FIXED, 0},
              {GCB_RC_SAMPLES, FIXED, 0},     {GCB_RC_WRONG, FIXED, 0},
              {GCB_RC_MAX_ERROR, FIXED, NAN}, {GCB_RC_TOLERANCE, FIXED, NAN},
              {GCB_RC_CHECKED, CHECKED, 0}};
  struct gcb_model *m = cv->m;
  for (size_t k = 0; k < sizeof cols / sizeof *cols; k++) {
    double *v = gcb__model_column(m, c, cols[k].col, n);
    for (size_t i = 0; v != NULL && i < n; i++)
      v[i] = cols[k].from == RANK      ? (double)rank[i]
             : cols[k].from == TIME    ? work / (fig[i] * 1e9)
             : cols[k].from == FIG     ? fig[i]
             : cols[k].from == CHECKED ? method != NULL
                                       : cols[k].v;
  }
  const char **text = gcb__model_text_column(m, c, GCB_RC_METHOD, n);
  for (size_t i = 0; text != NULL && method != NULL && i < n; i++)
    text[i] = gcb__model_str(m, method);
}

/* The summary of figures fig[0..n) of ranks rank[0..n), or for n 0 of
 * the one figure fig0 a tool printed; false on ENOMEM. */
static bool summary_of(const long long *rank, const double *fig, size_t n,
                       double fig0, struct gcb_model_summary *out) {
  struct gcb_stats st = {
      .min = fig0, .median = fig0, .mean = fig0, .max = fig0};
  double *sorted = malloc((n ? n : 1) * sizeof *sorted), tsum = 0;
  size_t lo = 0, hi = 0;
  if (sorted == NULL)
    return false;
  if (n > 0) {
    memcpy(sorted, fig, n * sizeof *sorted);
    gcb_stats_compute(sorted, n, &st);
  }
  free(sorted);
  for (size_t i = 0; i < n; i++) {
    tsum += 1 / fig[i];
    lo = fig[i] < fig[lo] ? i : lo;
    hi = fig[i] > fig[hi] ? i : hi;
  }
  *out = (struct gcb_model_summary){
      .ranks = (long long)n,
      .min = st.min,
      .median = st.median,
      .mean = st.mean,
      .max = st.max,
      .stdev = st.stdev,
      .min_rank = n ? rank[lo] : -1,
      .max_rank = n ? rank[hi] : -1,
      .late_rank = -1,
      /* Times are work / fig: the slowest rank has the lowest figure. */
      .imbalance = n ? (1 / st.min - tsum / (double)n) / (1 / st.min) : 0,
      .time_min = NAN,
      .time_mean = NAN,
      .time_max = NAN,
      .algbw = NAN,
      .busbw = NAN,
      .late_mean_s = NAN,
      .late_max_s = NAN};
  return true;
}

/* A case of cv->m with what every converted case has, params (stolen)
 * as its params, counted at `line`, its summary over fig[0..n) (fig0 for
 * n 0); NULL with the status in *st. */
static void param_put(struct gcb__params *ps, const char *key,
                      struct gcb_mvalue v) {
  if (ps->n == GCB__PARAMS_MAX)
    ps->over = true;
  else
    ps->p[ps->n++] = (struct gcb_mkv){.key = key, .value = v};
}

void gcb__param_str(struct gcb__params *ps, const char *key, const char *s) {
  param_put(ps, key,
            (struct gcb_mvalue){.type = GCB_MV_STRING, .num = NAN, .text = s});
}

void gcb__param_int(struct gcb__params *ps, const char *key, long long i) {
  param_put(ps, key, gcb__mvalue_int(i));
}

void gcb__param_real(struct gcb__params *ps, const char *key, double x) {
  param_put(ps, key, (struct gcb_mvalue){.type = GCB_MV_REAL, .num = x});
}

/* l's members added to obj, a case's params in m; false where gcb__params
 * refuses one or memory ran out. */
static bool params_add(struct gcb_model *m, struct gcb_mvalue *obj,
                       const struct gcb__params *l) {
  for (size_t i = 0; !l->over && i < l->n; i++) {
    struct gcb_mvalue v = l->p[i].value;
    if (v.type == GCB_MV_STRING) {
      if (v.text == NULL || !utf8(v.text))
        return false;
      v = gcb__mvalue_string(m, v.text);
    }
    if ((v.type == GCB_MV_REAL && !isfinite(v.num)) ||
        !gcb__mvalue_set(m, obj, l->p[i].key, v))
      return false;
  }
  return !l->over;
}

/* Whether l's texts are UTF-8 and its numbers finite; where not, says
 * which in why: the file's fault, not memory's. */
static bool params_fit(const struct gcb__params *l, char *why, size_t size) {
  for (size_t i = 0; i < l->n; i++) {
    const struct gcb_mvalue *v = &l->p[i].value;
    if (v->type == GCB_MV_STRING && v->text != NULL && !utf8(v->text))
      snprintf(why, size, "its %s is not UTF-8", l->p[i].key);
    else if (v->type == GCB_MV_REAL && !isfinite(v->num))
      snprintf(why, size, "its %s comes to %g, not a finite number",
               l->p[i].key, v->num);
    else
      continue;
    return false;
  }
  return true;
}

static struct gcb_model_case *
new_case(struct gcb__conv *cv, enum gcb_bench_kind bench, const char *label,
         const struct gcb__params *params, const struct gcb__params *more,
         const char *unit, double work, const char *counted,
         const long long *rank, const double *fig, size_t n, double fig0,
         int line, enum gcb_status *st) {
  struct gcb_model *m = cv->m;
  struct gcb_model_case *c = NULL;
  struct gcb_model_summary sum;
  struct gcb_mvalue p = gcb__mvalue_object();
  char why[96] = "";
  bool fit = params != NULL && params_fit(params, why, sizeof why) &&
             (more == NULL || params_fit(more, why, sizeof why));
  if (fit && !(utf8(label) && utf8(unit) && utf8(counted)))
    fit = false, snprintf(why, sizeof why, "its name is not UTF-8");
  if (!fit && why[0] != '\0') {
    *st = gcb__conv_bad_line(cv, line, "a case of the row: %s", why);
    return NULL;
  }
  *st = params == NULL || !params_add(m, &p, params) ||
                (more != NULL && !params_add(m, &p, more)) || !utf8(label) ||
                !utf8(unit) || !utf8(counted) ||
                !summary_of(rank, fig, n, fig0, &sum)
            ? gcb__conv_nomem(cv)
            : count(cv, line);
  if (*st == GCB_OK && (c = gcb__model_add_case(m)) == NULL)
    *st = gcb__conv_nomem(cv);
  if (c != NULL) {
    c->bench = gcb_bench_kinds[bench].name;
    c->backend = "cuda";
    c->label = gcb__model_str(m, label);
    c->unit = gcb__model_str(m, unit);
    c->counted = gcb__model_str(m, counted);
    c->work_per_op = work;
    c->iterations = 1;
    c->warmup = 0;
    c->params = p;
    c->summary = sum;
    c->validation =
        (struct gcb_model_validation){.present = true, .passed_present = true};
  }
  return c;
}

enum gcb_status gcb__conv_case(struct gcb__conv *cv, enum gcb_bench_kind bench,
                               const char *label,
                               const struct gcb__params *params, double work,
                               const char *counted, const long long *rank,
                               const double *fig, size_t n, double fig0,
                               const char *method, int line,
                               struct gcb_model_case **out) {
  /* the file's numbers, said at its line: a time of 4e-324 us is an
   * infinite rate */
  const char *bad = NULL;
  double x = fig0;
  if (!isfinite(work))
    bad = "work", x = work;
  else if (n == 0 &&
           !(isfinite(fig0) && (fig0 > 0 || (fig0 == 0 && work == 0))))
    bad = "figure";
  for (size_t i = 0; bad == NULL && i < n; i++)
    if (!(isfinite(fig[i]) && fig[i] > 0 && isfinite(work / (fig[i] * 1e9))))
      bad = "figure", x = fig[i];
  if (bad != NULL)
    return gcb__conv_bad_line(cv, line,
                              "a case of the row: its %s comes to %g, not a "
                              "finite number above 0",
                              bad, x);
  enum gcb_status st;
  struct gcb_model_case *c =
      new_case(cv, bench, label, method == NULL || utf8(method) ? params : NULL,
               NULL, "GB/s", work, counted, rank, fig, n, fig0, line, &st);
  if (c == NULL)
    return st;
  c->summary.checked = method != NULL;
  c->validation.checked = c->validation.passed = method != NULL;
  rank_columns(cv, c, rank, fig, n, work, method);
  *out = c;
  return GCB_OK;
}

enum gcb_status gcb__conv_figure(struct gcb__conv *cv, const char *source,
                                 const char *name, const char *label,
                                 const struct gcb__params *params,
                                 const char *unit, double value, int line) {
  char counted[160];
  snprintf(counted, sizeof counted, "as %s printed it", source);
  struct gcb__params whose = {0};
  gcb__param_str(&whose, "source", source);
  gcb__param_str(&whose, "name", name);
  enum gcb_status st;
  new_case(cv, GCB_BENCH_IMPORTED, label, isfinite(value) ? params : NULL,
           &whose, unit, 0.0, counted, NULL, NULL, 0, value, line, &st);
  return st;
}

enum gcb_status gcb__coll_average(struct gcb__conv *cv, const char *tool,
                                  const char *op, double min_bytes,
                                  double max_bytes, double busbw, int line) {
  char label[96];
  snprintf(label, sizeof label, "%s: Avg bus bandwidth", op);
  struct gcb__params params = {0};
  gcb__param_str(&params, "op", op);
  gcb__param_real(&params, "min_bytes", min_bytes);
  gcb__param_real(&params, "max_bytes", max_bytes);
  enum gcb_status st = gcb__conv_figure(cv, tool, "avg_bus_bandwidth", label,
                                        &params, "GB/s", busbw, line);
  if (st == GCB_OK)
    cv->m->cases[cv->m->ncases - 1].derived = true;
  return st;
}

/* fmt's text with ap on the heap, NULL on ENOMEM. */
static char *text_of(const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (s != NULL)
    vsnprintf(s, (size_t)n + 1, fmt, again);
  va_end(again);
  return s;
}

/* A skipped[] entry (status NULL) or an errors[] entry (of rank, -1 for
 * none) saying text, which it frees; counted at `line`. */
static enum gcb_status add_entry(struct gcb__conv *cv, const char *bench,
                                 const char *label, const char *status,
                                 long long rank, int line, char *text) {
  enum gcb_status st = text == NULL || !utf8(bench) || !utf8(label) ||
                               !utf8(status ? status : "") || !utf8(text)
                           ? gcb__conv_nomem(cv)
                           : count(cv, line);
  if (st == GCB_OK &&
      !(status ? gcb__model_add_error(cv->m, rank, bench, label, status, text)
               : gcb__model_add_skip(cv->m, bench, label, text)))
    st = gcb__conv_nomem(cv);
  free(text);
  return st;
}

char *gcb__text_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = text_of(fmt, ap);
  va_end(ap);
  return s;
}

enum gcb_status gcb__conv_skip(struct gcb__conv *cv, const char *bench,
                               const char *label, int line, const char *fmt,
                               ...) {
  va_list ap;
  va_start(ap, fmt);
  char *why = text_of(fmt, ap);
  va_end(ap);
  return add_entry(cv, bench, label, NULL, -1, line, why);
}

enum gcb_status gcb__conv_error(struct gcb__conv *cv, const char *bench,
                                const char *label, const char *status,
                                const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *message = text_of(fmt, ap);
  va_end(ap);
  return add_entry(cv, bench, label, status, -1, 0, message);
}

enum gcb_status gcb__conv_error_at(struct gcb__conv *cv, long long rank,
                                   const char *bench, const char *label,
                                   const char *status, int line,
                                   const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *message = text_of(fmt, ap);
  va_end(ap);
  return add_entry(cv, bench, label, status, rank, line, message);
}

enum gcb_status gcb__conv_timeout(struct gcb__conv *cv, const char *bench,
                                  const char *label, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *message = text_of(fmt, ap);
  va_end(ap);
  gcb__conv_run_set(cv, "status", gcb__mvalue_string(cv->m, "timeout"));
  gcb__conv_run_set(cv, "end_time", gcb__mvalue_null());
  return add_entry(cv, bench, label, "ETIMEOUT", -1, 0, message);
}

enum gcb_status gcb__conv_failure(struct gcb__conv *cv,
                                  const struct gcb__failure *f,
                                  const char *bench, const char *label) {
  if (f->lines == 0)
    return GCB_OK;
  gcb__conv_run_set(cv, "status", gcb__mvalue_string(cv->m, "failed"));
  char what[96]; /* the label as the quote: printable ASCII (a title's) */
  size_t k = 0;
  for (; label[k] != '\0' && k + 1 < sizeof what; k++)
    what[k] = label[k] >= ' ' && label[k] <= '~' ? label[k] : '?';
  what[k] = '\0';
  char more[64] = "";
  if (f->lines > 1)
    snprintf(more, sizeof more, " (%zu lines of failure in all)", f->lines);
  /* the rank, where every cause names one host and its caller's pid is
   * one rank of the device list there (a process of several GPUs, -g 2,
   * is none): the error is that rank's (its node's drain line), not the
   * run's */
  long long rank = -1;
  size_t same = 0;
  for (size_t i = 0; f->hosts == 1 && f->pid > 0 && i < cv->m->nranks; i++)
    if (cv->m->ranks[i].pid == f->pid &&
        strcmp(cv->m->ranks[i].hostname, f->host) == 0) {
      rank = cv->m->ranks[i].rank;
      same++;
    }
  rank = same == 1 ? rank : -1;
  return gcb__conv_error_at(cv, rank, bench, what, gcb_status_name(f->status),
                            0, "the run failed: line %d: %s%s", f->line,
                            f->text, more);
}

/* ---- collective rows ---------------------------------------------------- */

/*
 * A row of nccl-tests or rccl-tests as gcbench's coll cases, for every
 * input of these tools (logs, -J JSON, rccl-tests JSON lines) and for
 * OSU's programs that gcbench also runs: one case per half, or a skipped
 * entry where the tool printed no time to make a bandwidth of.
 */

/* A finite x, else NAN (a summary's "not printed"). */
static double finite(double x) {
  return isfinite(x) ? x : NAN;
}

void gcb__coll_op(const char *s, size_t len, char *op, size_t size) {
  size_t k = 0;
  for (size_t i = 0; i < len && s[i] != '\0' && k + 1 < size; i++)
    if (isalnum((unsigned char)s[i]))
      op[k++] = (char)tolower((unsigned char)s[i]);
  op[k] = '\0';
}

const struct gcb__coll_type *gcb__coll_type(const char *name) {
  static const struct gcb__coll_type types[] = {
      {"int8", "int8", 1},         {"uint8", "uint8", 1},
      {"char", "int8", 1},         {"fp8_e4m3", "f8e4m3", 1},
      {"fp8_e5m2", "f8e5m2", 1},   {"short", "int16", 2},
      {"half", "half", 2},         {"float16", "half", 2},
      {"bfloat16", "bfloat16", 2}, {"int32", "int32", 4},
      {"uint32", "uint32", 4},     {"int", "int32", 4},
      {"float", "float", 4},       {"float32", "float", 4},
      {"int64", "int64", 8},       {"uint64", "uint64", 8},
      {"long", "int64", 8},        {"double", "double", 8},
      {"float64", "double", 8}};
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (strcmp(types[i].name, name) == 0)
      return &types[i];
  return NULL;
}

struct gcb__coll_half gcb__coll_half(double us, double alg, double bus,
                                     bool checked, double wrong) {
  return (struct gcb__coll_half){
      .present = true,
      .us = us,
      .alg = alg,
      .bus = bus,
      .checked = checked,
      .wrong = checked && wrong >= 0 && wrong < 9e15 ? (long long)wrong : 0,
      .delta = NAN};
}

static enum gcb_status half_case(struct gcb__conv *cv, const char *op,
                                 const struct gcb__coll_row *r, size_t h,
                                 double fig, long long ranks,
                                 long long iterations, long long warmup,
                                 const char *method, const char *label) {
  const struct gcb__coll_half *m = &r->half[h];
  struct gcb__params params = {0};
  gcb__param_str(&params, "op", op);
  gcb__param_real(&params, "size", r->size);
  gcb__param_real(&params, "count", r->count);
  gcb__param_str(&params, "type", r->type);
  gcb__param_str(&params, "redop", r->redop);
  gcb__param_int(&params, "root", r->root);
  gcb__param_int(&params, "inplace", (long long)h);
  /* gcbench's coll names the communicator too (the whole world: these
   * tools split none), so that compare pairs a tool's row with gcbench's */
  if (r->extra != NULL) {
    params.over |= r->extra->over;
    for (size_t i = 0; i < r->extra->n; i++)
      param_put(&params, r->extra->p[i].key, r->extra->p[i].value);
  } else if (ranks > 0) {
    gcb__param_str(&params, "split", "none");
    gcb__param_int(&params, "comm_size", ranks);
  }
  struct gcb_model_case *c;
  enum gcb_status st =
      gcb__conv_case(cv, GCB_BENCH_COLL, label, &params, r->size,
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
    /* the slowest rank's figure and the fastest's, where the tool prints
     * their times (OSU -f's Min and Max Latency): a figure is S/t */
    if (fig > 0 && lo > 0 && hi >= t && t >= lo) {
      s->min = fig * t / hi;
      s->max = fig * t / lo;
    }
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
    char label[160];
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
      st = gcb__conv_skip(cv, "coll", label, r->line,
                          "%s printed no finite time", cv->format);
    else if (!(fig > 0) && !r->no_bytes && !(r->size > 0))
      st = gcb__conv_skip(cv, "coll", label, r->line,
                          "0 bytes: %s us, no bandwidth to report", us);
    else if (!(fig > 0) && !r->no_bytes) /* S/t came to 0: t past 1e305 */
      st = gcb__conv_skip(cv, "coll", label, r->line,
                          "%.0f B in %s us: a time too long for a bandwidth",
                          r->size, us);
    else
      st = half_case(cv, op, r, h, fig, ranks, iterations, warmup, method,
                     label);
  }
  return st;
}

/* ---- topology join ------------------------------------------------------ */

/* Whether every rank's device of m is a GPU of node n of known document
 * k (by bus id). */
static bool holds_all(const struct gcb_model *m, const struct gcb_model *k,
                      const struct gcb_model_node *n) {
  for (size_t i = 0; i < m->nranks; i++) {
    const char *bus = m->ranks[i].device_bus_id;
    if (bus[0] == '\0' || gcb_model_gpu_index(k, n->index, bus) < 0)
      return false;
  }
  return m->nranks > 0;
}

/* Gives every p2p pair its path class ("NV18", "SYS"), as gcbench's own
 * p2p cases carry it, so acceptance checks per path class apply. */
static bool pair_classes(struct gcb_model *m, const struct gcb_model *k,
                         const struct gcb_model_node *n) {
  bool ok = true;
  for (size_t i = 0; ok && i < m->ncases; i++) {
    struct gcb_model_case *c = &m->cases[i];
    long long a =
        gcb_model_gpu_index(k, n->index, gcb_model_param_str(c, "src_bus_id"));
    long long b =
        gcb_model_gpu_index(k, n->index, gcb_model_param_str(c, "dst_bus_id"));
    const char *cls = gcb_model_pair_class(n, a, b);
    if (c->kind == GCB_BENCH_P2P && cls[0] != '\0')
      ok = gcb__model_param_set(m, c, "path", cls);
  }
  return ok;
}

enum gcb_status gcb__conv_join_topology(struct gcb__conv *cv,
                                        struct gcb_model *m) {
  for (size_t d = 0; m->nnodes == 1 && d < cv->nknown; d++) {
    const struct gcb_model *k = cv->known[d].model;
    for (size_t i = 0; k != NULL && i < k->nnodes; i++) {
      const struct gcb_model_node *n = &k->nodes[i];
      if (n->has_topology && holds_all(m, k, n))
        return pair_classes(m, k, n) &&
                       gcb__model_copy_topology(m, &m->nodes[0], n)
                   ? GCB_OK
                   : gcb__conv_nomem(cv);
    }
  }
  return GCB_OK;
}
