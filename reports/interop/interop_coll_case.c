/*
 * A row of nccl-tests or rccl-tests as gcbench's coll cases, for every
 * input of these tools (logs, -J JSON, rccl-tests JSON lines) and for
 * OSU's programs that gcbench also runs: one case per half, or a skipped
 * entry where the tool printed no time to make a bandwidth of.
 */
#include <math.h>
#include <stdio.h>

#include "common/status.h"
#include "reports/interop/interop_coll.h"

/* A finite x, else NAN (a summary's "not printed"). */
static double finite(double x) {
  return isfinite(x) ? x : NAN;
}

struct gcb__coll_half gcb__coll_half(double us, double alg, double bus,
                                     bool checked, double wrong) {
  return (struct gcb__coll_half){
      .present = true,
      .us = us,
      .alg = alg,
      .bus = bus,
      .checked = checked,
      .wrong = checked && wrong >= 0 && wrong < 9e15 ? (long long)wrong : 0};
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
