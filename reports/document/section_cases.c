/*
 * The "cases" section: one entry per finished case, built from a record
 * (reports/document/record.h) with its per-rank results as columns
 * (reports/document/ranks.h), and the schema rows of a case, of the
 * current schema and of schema 1 (per_rank as an array of objects, which
 * read.c transposes). Each case is checked against the rows before it is
 * added, so that every document gcbench writes reads back.
 */
#include "reports/document/results_int.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "reports/document/model.h"
#include "reports/document/ranks.h"

static const struct gcb__node n_params = {
    .types = T_OBJ, .items = NODE(.types = T_STR | T_NUM)};

static const struct gcb__field time_fields[] = {
    REQ("min", &gcb__n_num, IN(case, summary.time_min)),
    REQ("mean", &gcb__n_num, IN(case, summary.time_mean)),
    REQ("max", &gcb__n_num, IN(case, summary.time_max)),
    {0},
};

static const struct gcb__field summary_fields[] = {
    REQ("ranks", &gcb__n_int, IN(case, summary.ranks)),
    REQ("min", &gcb__n_num, IN(case, summary.min)),
    REQ("median", &gcb__n_num, IN(case, summary.median)),
    REQ("mean", &gcb__n_num, IN(case, summary.mean)),
    REQ("max", &gcb__n_num, IN(case, summary.max)),
    REQ("stdev", &gcb__n_num, IN(case, summary.stdev)),
    REQ("min_rank", &gcb__n_int, IN(case, summary.min_rank)),
    REQ("max_rank", &gcb__n_int, IN(case, summary.max_rank)),
    REQ("imbalance", &gcb__n_num, IN(case, summary.imbalance)),
    REQ("wrong", &gcb__n_int, IN(case, summary.wrong)),
    REQ("checked", &gcb__n_bool, IN(case, summary.checked)),
    OPT("time_s", OBJ(time_fields)),
    OPT("algbw", &gcb__n_num, IN(case, summary.algbw)),
    OPT("busbw", &gcb__n_num, IN(case, summary.busbw)),
    OPT("late_rank", &gcb__n_int, IN(case, summary.late_rank)),
    OPT("late_mean_s", &gcb__n_num, IN(case, summary.late_mean_s)),
    OPT("late_max_s", &gcb__n_num, IN(case, summary.late_max_s)),
    {0},
};

static const struct gcb__field case_check_fields[] = {
    REQ("checked", &gcb__n_bool, IN(case, validation.checked)),
    REQ("passed", &gcb__n_bool, IN(case, validation.passed)),
    REQ("wrong", &gcb__n_int), /* model.c: 0 when absent */
    {0},
};

/* The per-rank results: schema 2's per_rank object of columns, or one of
 * schema 1's per-rank objects (an element of its per_rank array). Their
 * members, in the order the walker looks for problems: a column of
 * GCB_RANK_COLUMNS (ranks.h) or a group of them, whose need and element
 * type the table gives. Schema 1 has all but telemetry. */
static const char *const per_rank_members[] = {
    "rank",   "time_s",     "figure_time_s", "late_s",
    "figure", "validation", "telemetry",
};
static enum gcb_status check_per_rank(struct gcb__walk *w, const json_t *v);
static enum gcb_status check_apart(struct gcb__walk *w,
                                   const struct gcb_ranks *r);
static enum gcb_status check_rank_v1(struct gcb__walk *w, const json_t *v);

/* The burn-in timeline (record.h): the rows here, the rest by
 * check_timeline, which the case's check runs once the per-rank columns
 * have told how many ranks there are. */
static const struct gcb__node n_series_rows = {
    .types = T_ARR, .items = NODE(.types = T_ARR, .items = &gcb__n_num_null)};
static const struct gcb__field timeline_fields[] = {
    REQ("interval_s", &gcb__n_num),
    REQ("t_s", NODE(.types = T_ARR, .items = &gcb__n_num)),
    REQ("series", NODE(.types = T_OBJ, .items = &n_series_rows)),
    OPT("unavailable", NODE(.types = T_OBJ, .items = &gcb__n_str)),
    {0},
};
static enum gcb_status check_case(struct gcb__walk *w, const json_t *v);

#define CASE_FIELDS(per_rank_node)                                             \
  REQ("bench", &gcb__n_str, IN(case, bench)),                                  \
      REQ("backend", &gcb__n_str, IN(case, backend)),                          \
      REQ("label", &gcb__n_str, IN(case, label)), REQ("params", &n_params),    \
      REQ("unit", &gcb__n_str, IN(case, unit)),                                \
      REQ("work_per_op", &gcb__n_num, IN(case, work_per_op)),                  \
      REQ("counted", &gcb__n_str, IN(case, counted)),                          \
      OPT("bus_factor", &gcb__n_num, IN(case, bus_factor)),                    \
      REQ("iterations", &gcb__n_int, IN(case, iterations)),                    \
      REQ("warmup", &gcb__n_int, IN(case, warmup)),                            \
      REQ("summary", OBJ(summary_fields)),                                     \
      REQ("validation", OBJ(case_check_fields)),                               \
      REQ("per_rank", per_rank_node), OPT("timeline", OBJ(timeline_fields)),   \
      OPT("nominal_work", &gcb__n_bool, IN(case, nominal_work)), {             \
    0                                                                          \
  }

static const struct gcb__field case_fields[] = {CASE_FIELDS(
    NODE(.types = T_OBJ, .check = check_per_rank, .apart = check_apart))};
const struct gcb__node gcb__n_case = {
    .types = T_OBJ, .fields = case_fields, .check = check_case};
static const struct gcb__field case_fields_v1[] = {
    CASE_FIELDS(ARR(NODE(.types = T_OBJ, .check = check_rank_v1)))};
const struct gcb__node gcb__n_case_v1 = {.types = T_OBJ,
                                         .fields = case_fields_v1};

/* Every per-rank column has one element per rank (the length of "rank"). */
static enum gcb_status check_column_lengths(struct gcb__walk *w,
                                            const json_t *v) {
  size_t ranks = json_array_size(json_object_get(v, "rank"));
  for (size_t i = 0; i < GCB_RC_COUNT; i++) {
    const struct gcb_rank_column *c = &gcb_rank_columns[i];
    const json_t *holder = c->group ? json_object_get(v, c->group) : v;
    const json_t *col = json_object_get(holder, c->field);
    if (col == NULL || json_array_size(col) == ranks)
      continue;
    size_t depth = w->depth;
    if (c->group != NULL)
      w->path[w->depth++] = (struct gcb_json_step){.key = c->group};
    w->path[w->depth++] = (struct gcb_json_step){.key = c->field};
    enum gcb_status rc = gcb__schema_problem(
        w, "%zu entries, expected %zu (one per rank, as \"rank\")",
        json_array_size(col), ranks);
    w->depth = depth;
    return rc;
  }
  return GCB_OK;
}

/* What the members of a per_rank or a rank's object are checked against:
 * the tree (v, a schema-1 rank's object when v1), or, where the reader
 * holds the columns apart, r. */
struct per_rank_walk {
  struct gcb__walk *w;
  const struct gcb_ranks *r;
  bool v1;
};

/* The types of an element of each kind of column. */
static const unsigned kind_types[] = {
    [GCB_RK_INT] = T_INT,
    [GCB_RK_NUM] = T_NUM,
    [GCB_RK_NUM_NULLABLE] = T_NUM | T_NULL,
    [GCB_RK_INT_NULLABLE] = T_INT | T_NULL,
    [GCB_RK_BOOL] = T_BOOL,
    [GCB_RK_BOOL_NULLABLE] = T_BOOL | T_NULL,
    [GCB_RK_STR_NULLABLE] = T_STR | T_NULL,
};

/* Whether column i is one of group g's. */
static bool in_group(size_t i, const char *g) {
  const char *cg = gcb_rank_columns[i].group;
  return cg != NULL && strcmp(cg, g) == 0;
}

/* Column i in holder: present where its need says; in the tree, an array
 * of its kind's elements, or in a schema-1 rank's object one element,
 * absent rather than null where a rank may lack it. */
static enum gcb_status check_column(const struct per_rank_walk *p,
                                    const json_t *holder, size_t i) {
  const struct gcb_rank_column *c = &gcb_rank_columns[i];
  const json_t *x = json_object_get(holder, c->field);
  if (p->r != NULL ? p->r->num[i] == NULL && p->r->str[i] == NULL : !x)
    return c->need == GCB_RN_OPTIONAL
               ? GCB_OK
               : gcb__schema_problem(p->w, "missing required field '%s'",
                                     c->field);
  if (p->r != NULL)
    return GCB_OK; /* read_lex.c took only the elements the kind allows */
  unsigned types = kind_types[c->kind];
  if (p->v1 && c->need != GCB_RN_ALWAYS)
    types &= ~(unsigned)T_NULL;
  struct gcb__node e = {.types = types}, column = {.types = T_ARR, .items = &e};
  return gcb__schema_check_child(p->w, c->field, 0, x, p->v1 ? &e : &column);
}

/* Group g's columns, the group present where its columns' need says. */
static enum gcb_status check_group(const struct per_rank_walk *p,
                                   const json_t *holder, const char *g) {
  static const struct gcb__node n_object = {.types = T_OBJ};
  const json_t *x = json_object_get(holder, g);
  bool has = x != NULL, required = false;
  for (size_t i = 0; i < GCB_RC_COUNT; i++)
    if (in_group(i, g)) {
      has |= p->r != NULL && (p->r->num[i] != NULL || p->r->str[i] != NULL);
      required |= gcb_rank_columns[i].need == GCB_RN_ALWAYS;
    }
  if (!has)
    return required
               ? gcb__schema_problem(p->w, "missing required field '%s'", g)
               : GCB_OK;
  p->w->path[p->w->depth++] = (struct gcb_json_step){.key = g};
  enum gcb_status rc =
      p->r != NULL ? GCB_OK : gcb__schema_check(p->w, x, &n_object);
  for (size_t i = 0; rc == GCB_OK && i < GCB_RC_COUNT; i++)
    if (in_group(i, g))
      rc = check_column(p, x, i);
  p->w->depth--;
  return rc;
}

static enum gcb_status check_members(const struct per_rank_walk *p,
                                     const json_t *v) {
  /* schema 1: all but telemetry, the last */
  size_t n = sizeof per_rank_members / sizeof *per_rank_members - p->v1;
  enum gcb_status rc = GCB_OK;
  for (size_t m = 0; rc == GCB_OK && m < n; m++) {
    const char *name = per_rank_members[m];
    int col = gcb__ranks_column_find(NULL, 0, name, strlen(name));
    rc = col >= 0 ? check_column(p, v, (size_t)col) : check_group(p, v, name);
  }
  return rc;
}

static enum gcb_status check_per_rank(struct gcb__walk *w, const json_t *v) {
  enum gcb_status rc = check_members(&(struct per_rank_walk){.w = w}, v);
  return rc == GCB_OK ? check_column_lengths(w, v) : rc;
}

static enum gcb_status check_rank_v1(struct gcb__walk *w, const json_t *v) {
  return check_members(&(struct per_rank_walk){.w = w, .v1 = true}, v);
}

/* A per_rank the reader holds apart: read_lex.c took each column with
 * the elements its kind allows, all as long as "rank", and no other; what
 * is left is the columns and groups the table requires. */
static enum gcb_status check_apart(struct gcb__walk *w,
                                   const struct gcb_ranks *r) {
  return check_members(&(struct per_rank_walk){.w = w, .r = r}, NULL);
}

/* Index of the series named `name`, or -1. */
static int series_index(const char *name) {
  for (int s = 0; s < GCB_BURN_SERIES_COUNT; s++)
    if (strcmp(gcb_burn_series_name(s), name) == 0)
      return s;
  return -1;
}

/* A problem at timeline.<key>[.<key2>][<index>]. */
__attribute__((format(printf, 5, 6))) static enum gcb_status
timeline_problem(struct gcb__walk *w, const char *key, const char *key2,
                 long index, const char *fmt, ...) {
  char what[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  size_t depth = w->depth;
  w->path[w->depth++] = (struct gcb_json_step){.key = "timeline"};
  w->path[w->depth++] = (struct gcb_json_step){.key = key};
  if (key2 != NULL)
    w->path[w->depth++] = (struct gcb_json_step){.key = key2};
  if (index >= 0)
    w->path[w->depth++] = (struct gcb_json_step){.index = (size_t)index};
  enum gcb_status rc = gcb__schema_problem(w, "%s", what);
  w->depth = depth;
  return rc;
}

/* One series: a row per rank, each of n values, integers where its kind
 * says so; none negative (counts, counters, rates and readings). */
static enum gcb_status check_series(struct gcb__walk *w, const char *name,
                                    const json_t *rows, size_t ranks,
                                    size_t n) {
  int s = series_index(name);
  if (s < 0)
    return timeline_problem(w, "series", name, -1, "unknown series");
  if (json_array_size(rows) != ranks)
    return timeline_problem(w, "series", name, -1,
                            "%lld rows, expected %lld (one per rank)",
                            (long long)json_array_size(rows), (long long)ranks);
  bool integer = gcb_burn_series_kind(s) != GCB_BURN_RATE;
  for (size_t r = 0; r < ranks; r++) {
    const json_t *row = json_array_get(rows, r);
    if (json_array_size(row) != n)
      return timeline_problem(w, "series", name, (long)r,
                              "%lld values, expected %lld (one per t_s)",
                              (long long)json_array_size(row), (long long)n);
    for (size_t i = 0; i < n; i++) {
      const json_t *x = json_array_get(row, i);
      if (integer && !json_is_null(x) &&
          (!json_is_integer(x) || json_integer_value(x) < 0))
        return timeline_problem(w, "series", name, (long)r,
                                "value %zu: expected an integer >= 0 or "
                                "null",
                                i);
      if (!integer && json_number_value(x) < 0) /* a rate, a reading */
        return timeline_problem(w, "series", name, (long)r,
                                "value %zu: %g, below 0", i,
                                json_number_value(x));
    }
  }
  return GCB_OK;
}

/* The timeline's sizes agree (t_s, a row per rank, a value per t_s),
 * bounded, so that a reader can size its arrays from t_s; t_s rises;
 * "unavailable" names series that are absent. */
static enum gcb_status check_timeline(struct gcb__walk *w, const json_t *t,
                                      size_t ranks) {
  const json_t *ts = json_object_get(t, "t_s");
  size_t n = json_array_size(ts);
  if (n > (size_t)GCB_BURN_MAX_INTERVALS)
    return timeline_problem(w, "t_s", NULL, -1,
                            "%lld intervals, more than the %lld a timeline "
                            "may hold",
                            (long long)n, (long long)GCB_BURN_MAX_INTERVALS);
  if (ranks > 0 && n > (size_t)GCB_BURN_MAX_POINTS / ranks)
    return timeline_problem(w, "t_s", NULL, -1,
                            "%lld intervals of %lld ranks, more than the %lld "
                            "points a series may hold",
                            (long long)n, (long long)ranks,
                            (long long)GCB_BURN_MAX_POINTS);
  if (json_number_value(json_object_get(t, "interval_s")) <= 0)
    return timeline_problem(w, "interval_s", NULL, -1,
                            "expected a number above 0");
  for (size_t i = 1; i < n; i++)
    if (!(json_number_value(json_array_get(ts, i)) >
          json_number_value(json_array_get(ts, i - 1))))
      return timeline_problem(w, "t_s", NULL, (long)i,
                              "not after the value before it");
  const char *key;
  const json_t *rows;
  json_object_foreach((json_t *)json_object_get(t, "series"), key, rows) {
    enum gcb_status rc = check_series(w, key, rows, ranks, n);
    if (rc != GCB_OK)
      return rc;
  }
  const json_t *why;
  json_object_foreach((json_t *)json_object_get(t, "unavailable"), key, why) {
    if (series_index(key) < 0 ||
        json_object_get(json_object_get(t, "series"), key) != NULL)
      return timeline_problem(w, "unavailable", key, -1,
                              "not an absent series");
  }
  return GCB_OK;
}

/* What a case's rows cannot say alone: the timeline's rows against the
 * per-rank columns' ranks. */
static enum gcb_status check_case(struct gcb__walk *w, const json_t *v) {
  const json_t *t = json_object_get(v, "timeline");
  if (t == NULL)
    return GCB_OK;
  const struct gcb_ranks *r =
      w->depth > 0 ? gcb__walk_ranks(w, w->path[w->depth - 1].index) : NULL;
  size_t ranks = r != NULL ? r->n
                           : json_array_size(json_object_get(
                                 json_object_get(v, "per_rank"), "rank"));
  return check_timeline(w, t, ranks);
}

/* ---- building ----------------------------------------------------------- */

/* jansson has no NaN or infinity: they become null, which the schema allows
 * only where it says so (the walker rejects them elsewhere). */
static json_t *number(double x) {
  return isfinite(x) ? json_real(x) : json_null();
}

static json_t *params_json(const struct gcb_record *rec) {
  json_t *obj = json_object();
  for (int i = 0; obj != NULL && i < rec->nparams; i++) {
    const struct gcb_param *p = &rec->params[i];
    bool integer = p->type == GCB_PARAM_INT || p->type == GCB_PARAM_SIZE;
    json_t *v = integer                       ? json_integer(p->i)
                : p->type == GCB_PARAM_DOUBLE ? number(p->d)
                                              : json_string(p->s);
    if (json_object_set_new(obj, gcb__str_or_empty(p->key), v) != 0)
      json_decrefp(&obj);
  }
  return obj;
}

/* A telemetry column's value: null where the GPU said nothing. */
static json_t *telemetry_value(const struct gcb_telemetry *t,
                               enum gcb_rank_col col) {
  char reasons[160];
  if (!t->available)
    return json_null();
  /* the clocks, power and temperature, in the columns' order */
  const double v[] = {t->sm_clock_mhz_min, t->sm_clock_mhz_mean,
                      t->sm_clock_mhz_max, t->mem_clock_mhz_mean,
                      t->power_w_mean,     t->power_w_max,
                      t->temp_c_max};
  if (col >= GCB_RC_TELEM_SM_MIN && col <= GCB_RC_TELEM_TEMP_MAX)
    return number(v[col - GCB_RC_TELEM_SM_MIN]);
  switch (col) {
  case GCB_RC_TELEM_SAMPLES:
    return json_integer(t->samples);
  case GCB_RC_TELEM_THROTTLE:
    if (!t->throttle_known)
      return json_null();
    gcb_throttle_reasons_format(t->throttle_reasons, reasons, sizeof reasons);
    return json_string(reasons);
  case GCB_RC_TELEM_SLOWED:
    return t->throttle_known ? json_boolean((t->throttle_reasons &
                                             GCB_THROTTLE_BAD_MASK) != 0)
                             : json_null();
  case GCB_RC_TELEM_TOO_SHORT:
    return json_boolean(t->too_short);
  default:
    return json_null();
  }
}

static bool is_late_column(enum gcb_rank_col col) {
  return col >= GCB_RC_LATE_N && col <= GCB_RC_LATE_P99;
}

static bool is_telemetry_column(enum gcb_rank_col col) {
  return col >= GCB_RC_TELEM_SAMPLES && col <= GCB_RC_TELEM_TOO_SHORT;
}

/* Statistic k of s in the columns' order (n, min, median, mean, max,
 * stdev, p99: time_s's and late_s's alike). */
static json_t *stats_value(const struct gcb_stats *s, int k) {
  const double v[] = {0, s->min, s->median, s->mean, s->max, s->stdev, s->p99};
  return k == 0 ? json_integer((json_int_t)s->n) : number(v[k]);
}

/* Rank result rr's value in column col: a new reference, null for a NaN
 * or a rank without that figure (no lateness samples). */
static json_t *rank_value(const struct gcb_record *rec,
                          const struct gcb_rank_result *rr,
                          enum gcb_rank_col col) {
  const struct gcb_validation *v = &rr->check;
  if (col >= GCB_RC_TIME_N && col <= GCB_RC_TIME_P99)
    return stats_value(&rr->seconds, col - GCB_RC_TIME_N);
  if (is_late_column(col))
    return rr->late.n > 0 ? stats_value(&rr->late, col - GCB_RC_LATE_N)
                          : json_null();
  if (is_telemetry_column(col))
    return telemetry_value(&rr->telemetry, col);
  switch (col) {
  case GCB_RC_RANK:
    return json_integer(rr->rank);
  case GCB_RC_FIGURE_TIME:
    return number(rr->time_s);
  case GCB_RC_FIG_MEDIAN:
    return number(gcb_record_figure(rec, rr->time_s));
  case GCB_RC_FIG_BEST:
    return number(gcb_record_figure(rec, rr->seconds.min));
  case GCB_RC_FIG_WORST:
    return number(gcb_record_figure(rec, rr->seconds.max));
  case GCB_RC_CHECKED:
    return json_boolean(v->checked);
  case GCB_RC_SAMPLES:
    return json_integer((json_int_t)v->samples);
  case GCB_RC_WRONG:
    return json_integer((json_int_t)v->wrong);
  case GCB_RC_MAX_ERROR:
    return number(v->max_error);
  case GCB_RC_TOLERANCE:
    return number(v->tolerance);
  case GCB_RC_METHOD:
    return v->method != NULL ? json_string(v->method) : json_null();
  default:
    return json_null();
  }
}

/* The case's per-rank results as columns (reports/ranks.h); lateness and
 * telemetry only when some rank has them. NULL on ENOMEM or a string that is
 * not UTF-8. */
static json_t *per_rank_columns_json(const struct gcb_record *rec) {
  bool late = false, telemetry = false;
  for (int r = 0; r < rec->nranks; r++) {
    late |= rec->ranks[r].late.n > 0;
    telemetry |= rec->ranks[r].telemetry.available;
  }
  json_t *out = json_object();
  for (int col = 0; out != NULL && col < GCB_RC_COUNT; col++) {
    if ((is_late_column(col) && !late) ||
        (is_telemetry_column(col) && !telemetry))
      continue;
    json_t *a = json_array();
    for (int r = 0; a != NULL && r < rec->nranks; r++)
      if (json_array_append_new(a, rank_value(rec, &rec->ranks[r], col)) != 0)
        json_decrefp(&a);
    if (gcb_ranks_set_column(out, col, a) != 0)
      json_decrefp(&out);
  }
  return out;
}

/* The rank number held by the record's rank slot i (-1 if none). */
static int rank_at(const struct gcb_record *rec, int i) {
  return rec->nranks > 0 ? rec->ranks[i].rank : -1;
}

/* Collective figures (nccl-tests): time over ranks, algbw, busbw and the
 * latest-arriving rank; only for records that carry them. */
static int add_collective_summary(json_t *o, const struct gcb_record *rec,
                                  const struct gcb_record_summary *s) {
  int rc = json_object_set_new(
      o, "time_s",
      json_pack("{s:o, s:o, s:o}", "min", number(s->time.min), "mean",
                number(s->time.mean), "max", number(s->time.max)));
  if (rec->figure.bus_factor > 0) {
    rc |= json_object_set_new(o, "algbw", number(s->algbw));
    rc |= json_object_set_new(o, "busbw", number(s->busbw));
  }
  if (s->late_rank >= 0) {
    rc |= json_object_set_new(o, "late_rank",
                              json_integer(rank_at(rec, s->late_rank)));
    rc |= json_object_set_new(o, "late_mean_s", number(s->late_mean));
    rc |= json_object_set_new(o, "late_max_s", number(s->late_max));
  }
  return rc;
}

static json_t *summary_json(const struct gcb_record *rec,
                            const struct gcb_record_summary *s) {
  const struct gcb_stats *f = &s->figure;
  json_t *o = json_pack(
      "{s:i, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:o, s:I, s:b}", "ranks",
      rec->nranks, "min", number(f->min), "median", number(f->median), "mean",
      number(f->mean), "max", number(f->max), "stdev", number(f->stdev),
      "min_rank", rank_at(rec, s->min_rank), "max_rank",
      rank_at(rec, s->max_rank), "imbalance", number(s->imbalance), "wrong",
      (json_int_t)s->wrong, "checked", s->checked);
  if (o != NULL && add_collective_summary(o, rec, s) != 0)
    json_decrefp(&o);
  return o;
}

/* Whether some rank measured series s in some interval. */
static bool series_measured(const struct gcb_burn_timeline *t, int s) {
  for (int r = 0; r < t->nranks; r++)
    for (long i = 0; i < t->n; i++)
      if (!isnan(gcb_burn_value(t, s, r, i)))
        return true;
  return false;
}

static json_t *series_json(const struct gcb_burn_timeline *t, int s) {
  bool integer = gcb_burn_series_kind(s) != GCB_BURN_RATE;
  json_t *rows = json_array();
  for (int r = 0; rows != NULL && r < t->nranks; r++) {
    json_t *row = json_array();
    for (long i = 0; row != NULL && i < t->n; i++) {
      double x = gcb_burn_value(t, s, r, i);
      json_t *e = !isfinite(x) || (integer && x < 0) ? json_null()
                  : integer ? json_integer((json_int_t)x)
                            : json_real(x);
      if (json_array_append_new(row, e) != 0)
        json_decrefp(&row);
    }
    if (json_array_append_new(rows, row) != 0)
      json_decrefp(&rows);
  }
  return rows;
}

/* The "timeline" of a burn case (docs/results-schema.md); NULL on ENOMEM. */
static json_t *timeline_json(const struct gcb_burn_timeline *t) {
  json_t *o = json_object(), *ts = json_array(), *series = json_object(),
         *unavailable = json_object();
  int rc = o == NULL || ts == NULL || series == NULL || unavailable == NULL;
  for (long i = 0; rc == 0 && i < t->n; i++)
    rc = json_array_append_new(ts, json_real(gcb_burn_end_s(t, i)));
  for (int s = 0; rc == 0 && s < GCB_BURN_SERIES_COUNT; s++) {
    const char *name = gcb_burn_series_name(s);
    if (series_measured(t, s))
      rc = json_object_set_new(series, name, series_json(t, s));
    else
      rc = json_object_set_new(unavailable, name,
                               json_string(t->unavailable[s][0]
                                               ? t->unavailable[s]
                                               : "measured on no rank"));
  }
  if (rc == 0)
    rc = json_object_set_new(o, "interval_s", json_real(t->interval_s)) |
         json_object_set(o, "t_s", ts) | json_object_set(o, "series", series);
  if (rc == 0 && json_object_size(unavailable) > 0)
    rc = json_object_set(o, "unavailable", unavailable);
  json_decref(ts);
  json_decref(series);
  json_decref(unavailable);
  if (rc != 0)
    json_decrefp(&o);
  return o;
}

static json_t *case_json(const struct gcb_record *rec) {
  struct gcb_record_summary s;
  gcb_record_summarize(rec, &s);
  json_t *o = json_pack(
      "{s:s, s:s, s:s, s:o, s:s, s:o, s:s, s:i, s:i, s:o, "
      "s:{s:b, s:b, s:I}, s:o}",
      "bench", gcb__str_or_empty(rec->bench), "backend",
      gcb__str_or_empty(rec->backend), "label", rec->label, "params",
      params_json(rec), "unit", gcb__str_or_empty(rec->figure.unit),
      "work_per_op", number(rec->work_per_op), "counted",
      gcb__str_or_empty(rec->figure.counted), "iterations", rec->iterations,
      "warmup", rec->warmup, "summary", summary_json(rec, &s), "validation",
      "checked", s.checked, "passed", s.checked && s.wrong == 0, "wrong",
      (json_int_t)s.wrong, "per_rank", per_rank_columns_json(rec));
  if (o != NULL && rec->figure.bus_factor > 0 &&
      json_object_set_new(o, "bus_factor", number(rec->figure.bus_factor)) != 0)
    json_decrefp(&o);
  if (o != NULL && rec->timeline != NULL &&
      json_object_set_new(o, "timeline", timeline_json(rec->timeline)) != 0)
    json_decrefp(&o);
  return o;
}

/* ---- reading ------------------------------------------------------------ */

bool gcb_results_burn_timeline(const json_t *c, size_t nranks,
                               struct gcb_burn_timeline *out) {
  *out = (struct gcb_burn_timeline){0};
  const json_t *t = json_object_get(c, "timeline");
  if (t == NULL)
    return false;
  const json_t *series = json_object_get(t, "series");
  out->interval_s = json_number_value(json_object_get(t, "interval_s"));
  out->n = (long)json_array_size(json_object_get(t, "t_s"));
  out->nranks = nranks <= INT_MAX ? (int)nranks : -1;
  /* the bounds the schema holds a current document to, whatever c is */
  if (out->n > GCB_BURN_MAX_INTERVALS || out->nranks < 0 ||
      (out->nranks > 0 && out->n > GCB_BURN_MAX_POINTS / out->nranks))
    return false;
  for (int s = 0; s < GCB_BURN_SERIES_COUNT; s++) {
    const char *name = gcb_burn_series_name(s);
    const char *why = json_string_value(
        json_object_get(json_object_get(t, "unavailable"), name));
    snprintf(out->unavailable[s], sizeof out->unavailable[s], "%s",
             why ? why : "");
    const json_t *rows = json_object_get(series, name);
    size_t points = (size_t)out->nranks * (size_t)out->n;
    if (rows == NULL || points == 0)
      continue;
    if ((out->v[s] = malloc(points * sizeof *out->v[s])) == NULL) {
      gcb_burn_timeline_free(out);
      return false;
    }
    for (int r = 0; r < out->nranks; r++)
      for (long i = 0; i < out->n; i++) {
        const json_t *x =
            json_array_get(json_array_get(rows, (size_t)r), (size_t)i);
        out->v[s][(size_t)r * (size_t)out->n + (size_t)i] =
            json_is_number(x) ? json_number_value(x) : NAN;
      }
  }
  return true;
}

enum gcb_status gcb_results_add_record(struct gcb_results *r,
                                       const struct gcb_record *rec,
                                       struct gcb_err *err) {
  json_t *c = case_json(rec);
  if (c == NULL)
    return gcb_err_set(err, GCB_ENOMEM,
                       "results: cannot build case %s '%s' (out of memory, or "
                       "a string that is not UTF-8)",
                       gcb__str_or_empty(rec->bench), rec->label);
  char what[160];
  snprintf(what, sizeof what, "results: case %s '%s'",
           gcb__str_or_empty(rec->bench), rec->label);
  enum gcb_status rc =
      gcb__schema_check_built(c, &gcb__n_case, NULL, what, err);
  if (rc != GCB_OK) {
    json_decref(c);
    return rc;
  }
  return gcb__results_append(r, "cases", c, err);
}
