/* Figures and cross-rank summaries derived from a record's statistics. */
#include "record.h"

#include <stdio.h>
#include <string.h>

double gcb_record_figure(const struct gcb_record *rec, double seconds) {
  if (seconds <= 0 || rec->figure.scale <= 0)
    return 0.0;
  return rec->work_per_op / seconds / rec->figure.scale;
}

void gcb_record_summarize(const struct gcb_record *rec,
                          struct gcb_record_summary *out) {
  memset(out, 0, sizeof *out);
  int n = rec->nranks;
  if (n <= 0)
    return;
  double fig[n]; /* one double per rank: small even at scale */
  double tmax = 0, tsum = 0;
  out->checked = true;
  for (int r = 0; r < n; r++) {
    const struct gcb_rank_result *rr = &rec->ranks[r];
    fig[r] = gcb_record_figure(rec, rr->seconds.median);
    if (fig[r] < fig[out->min_rank])
      out->min_rank = r;
    if (fig[r] > fig[out->max_rank])
      out->max_rank = r;
    tsum += rr->seconds.median;
    if (rr->seconds.median > tmax)
      tmax = rr->seconds.median;
    out->wrong += rr->check.wrong;
    out->checked = out->checked && rr->check.checked;
  }
  out->imbalance = tmax > 0 ? (tmax - tsum / n) / tmax : 0.0;
  gcb_stats_compute(fig, (size_t)n, &out->figure);
}

static struct gcb_param *next_param(struct gcb_record *rec, const char *key) {
  if (rec->nparams >= GCB_MAX_PARAMS)
    return NULL;
  struct gcb_param *p = &rec->params[rec->nparams++];
  memset(p, 0, sizeof *p);
  p->key = key;
  return p;
}

void gcb_record_param_int(struct gcb_record *rec, const char *key, int64_t v) {
  struct gcb_param *p = next_param(rec, key);
  if (p) {
    p->type = GCB_PARAM_INT;
    p->i = v;
  }
}

void gcb_record_param_size(struct gcb_record *rec, const char *key, int64_t v) {
  struct gcb_param *p = next_param(rec, key);
  if (p) {
    p->type = GCB_PARAM_SIZE;
    p->i = v;
  }
}

void gcb_record_param_double(struct gcb_record *rec, const char *key,
                             double v) {
  struct gcb_param *p = next_param(rec, key);
  if (p) {
    p->type = GCB_PARAM_DOUBLE;
    p->d = v;
  }
}

void gcb_record_param_str(struct gcb_record *rec, const char *key,
                          const char *v) {
  struct gcb_param *p = next_param(rec, key);
  if (p) {
    p->type = GCB_PARAM_STRING;
    snprintf(p->s, sizeof p->s, "%s", v);
  }
}
