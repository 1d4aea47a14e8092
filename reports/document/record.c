/* Figures and cross-rank summaries derived from a record's statistics. */
#include "reports/document/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double gcb_record_figure(const struct gcb_record *rec, double seconds) {
  if (seconds <= 0 || rec->figure.scale <= 0)
    return 0.0;
  return rec->work_per_op / seconds / rec->figure.scale;
}

void gcb_record_summarize(const struct gcb_record *rec,
                          struct gcb_record_summary *out) {
  memset(out, 0, sizeof *out);
  out->late_rank = -1;
  int n = rec->nranks;
  if (n <= 0)
    return;
  double fig[n], time[n]; /* a few doubles per rank: small even at scale */
  out->checked = true;
  for (int r = 0; r < n; r++) {
    const struct gcb_rank_result *rr = &rec->ranks[r];
    fig[r] = gcb_record_figure(rec, rr->time_s);
    time[r] = rr->time_s;
    if (fig[r] < fig[out->min_rank])
      out->min_rank = r;
    if (fig[r] > fig[out->max_rank])
      out->max_rank = r;
    out->wrong += rr->check.wrong;
    out->checked = out->checked && rr->check.checked;
  }
  gcb_stats_compute(fig, (size_t)n, &out->figure);
  gcb_stats_compute(time, (size_t)n, &out->time);
  if (out->time.max > 0)
    out->imbalance = (out->time.max - out->time.mean) / out->time.max;
  out->algbw = gcb_record_figure(rec, out->time.mean);
  out->busbw = out->algbw * rec->figure.bus_factor;
  /* The rank arriving latest on average at collectives, if measured. */
  for (int r = 0; r < n; r++) {
    const struct gcb_stats *late = &rec->ranks[r].late;
    if (late->n > 0 && (out->late_rank < 0 || late->mean > out->late_mean)) {
      out->late_rank = r;
      out->late_mean = late->mean;
      out->late_max = late->max;
    }
  }
}

/* Adds parameter key of `type`, its value in i, d or (a string) s, cut
 * visibly when it does not fit; nothing when all slots are taken. */
static void add_param(struct gcb_record *rec, const char *key,
                      enum gcb_param_type type, int64_t i, double d,
                      const char *s) {
  if (rec->nparams >= GCB_MAX_PARAMS)
    return;
  struct gcb_param *p = &rec->params[rec->nparams++];
  *p = (struct gcb_param){.key = key, .type = type, .i = i, .d = d};
  if (type == GCB_PARAM_STRING &&
      snprintf(p->s, sizeof p->s, "%s", s) >= (int)sizeof p->s)
    memcpy(p->s + sizeof p->s - 4, "...", 4);
}

const char *gcb_record_text(const struct gcb_record *rec, const char *key) {
  const struct gcb_param *p = gcb_record_param(rec, key);
  return p && p->type == GCB_PARAM_STRING ? p->s : "";
}

int64_t gcb_record_int(const struct gcb_record *rec, const char *key,
                       int64_t def) {
  const struct gcb_param *p = gcb_record_param(rec, key);
  return p && p->type != GCB_PARAM_STRING ? p->i : def;
}

void gcb_record_param_int(struct gcb_record *rec, const char *key, int64_t v) {
  add_param(rec, key, GCB_PARAM_INT, v, 0, NULL);
}

void gcb_record_param_size(struct gcb_record *rec, const char *key, int64_t v) {
  add_param(rec, key, GCB_PARAM_SIZE, v, 0, NULL);
}

void gcb_record_param_double(struct gcb_record *rec, const char *key,
                             double v) {
  add_param(rec, key, GCB_PARAM_DOUBLE, 0, v, NULL);
}

void gcb_record_param_str(struct gcb_record *rec, const char *key,
                          const char *v) {
  add_param(rec, key, GCB_PARAM_STRING, 0, 0, v);
}

const struct gcb_param *gcb_record_param(const struct gcb_record *rec,
                                         const char *key) {
  for (int i = 0; i < rec->nparams; i++)
    if (strcmp(rec->params[i].key, key) == 0)
      return &rec->params[i];
  return NULL;
}

static const struct {
  const char *name;
  enum gcb_burn_kind kind;
} burn_series[] = {
#define GCB__BURN_ROW(id, name, kind) {name, GCB_BURN_##kind},
    GCB_BURN_SERIES_LIST(GCB__BURN_ROW)
#undef GCB__BURN_ROW
};

const char *gcb_burn_series_name(int series) {
  return series >= 0 && series < GCB_BURN_SERIES_COUNT
             ? burn_series[series].name
             : NULL;
}

enum gcb_burn_kind gcb_burn_series_kind(int series) {
  return series >= 0 && series < GCB_BURN_SERIES_COUNT
             ? burn_series[series].kind
             : GCB_BURN_RATE;
}

void gcb_burn_timeline_free(struct gcb_burn_timeline *t) {
  for (int s = 0; t != NULL && s < GCB_BURN_SERIES_COUNT; s++) {
    free(t->v[s]);
    t->v[s] = NULL;
  }
}
