/*
 * metrics.prom: the report's figures in the OpenMetrics text format
 * (Prometheus' exposition format 1.0.0), for node_exporter's textfile
 * collector or any scraper: one gauge family per benchmark and unit
 * (gcbench_gemm_gflops, gcbench_membw_gbps, ...) with a sample per rank,
 * P2P pairs per pair, collectives per case (busbw, algbw, time, lateness),
 * validation and imbalance per case, the findings by severity and the
 * verdict. Names and labels are in docs/OPENMETRICS.md.
 *
 * Families are written whole (every sample of a family together, as the
 * format requires); label values are escaped (\\, \", \n); metric and
 * label names taken from input are reduced to [a-zA-Z0-9_]; the file ends
 * with "# EOF".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/p2p_view.h"
#include "reports/document/ranks.h"
#include "reports/render/render.h"

/* Label value: backslash, double quote and line feed escaped. */
static void esc_value(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '\\' || *s == '"')
      fputc('\\', out);
    if (*s == '\n')
      fputs("\\n", out);
    else
      fputc(*s, out);
  }
}

/* A name from input as [a-zA-Z_][a-zA-Z0-9_]*: other characters become
 * '_', a leading digit gets a '_' before it. */
static void sanitize(const char *in, char *out, size_t size) {
  size_t n = 0;
  if (size == 0)
    return;
  if (*in >= '0' && *in <= '9' && n + 1 < size)
    out[n++] = '_';
  for (; *in && n + 1 < size; in++) {
    char c = *in;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_';
    out[n++] = ok ? c : '_';
  }
  out[n] = '\0';
}

/* "GFLOP/s" -> "gflops", "GB/s" -> "gbps", else the unit sanitized and
 * lower-cased ("us"). */
static void unit_suffix(const char *unit, char *out, size_t size) {
  static const struct {
    const char *unit, *suffix;
  } known[] = {{"GFLOP/s", "gflops"}, {"TFLOP/s", "tflops"},
               {"GB/s", "gbps"},      {"MB/s", "mbps"},
               {"s", "seconds"},      {"us", "microseconds"}};
  for (size_t i = 0; i < sizeof known / sizeof *known; i++)
    if (strcmp(known[i].unit, unit) == 0) {
      snprintf(out, size, "%s", known[i].suffix);
      return;
    }
  sanitize(unit[0] ? unit : "value", out, size);
  for (char *p = out; *p; p++)
    *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
}

/* A sample under construction: "name{" then labels, then "} value". */
struct sample {
  FILE *out;
  bool first;
};

static void label(struct sample *s, const char *name, const char *value) {
  fprintf(s->out, "%s%s=\"", s->first ? "" : ",", name);
  esc_value(s->out, value);
  fputc('"', s->out);
  s->first = false;
}

static void label_int(struct sample *s, const char *name, long long v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", v);
  label(s, name, buf);
}

static void value(struct sample *s, double v) {
  fprintf(s->out, "} %.17g\n", v);
}

static const char *const fixed_labels[] = {
    "run",     "host",    "node",     "rank",      "gpu",
    "bus_id",  "unit",    "severity", "late_rank", "run_id",
    "backend", "version", "tool",     "bench",     NULL};

/* Every case parameter as a label (names clashing with the fixed labels
 * get a "param_" prefix). */
static void param_labels(struct sample *s, const json_t *c) {
  const char *k;
  const json_t *v;
  json_object_foreach(json_object_get(c, "params"), k, v) {
    char name[96], prefixed[104], text[128];
    sanitize(k, name, sizeof name);
    bool clash = name[0] == '_' && name[1] == '_';
    for (size_t i = 0; fixed_labels[i] && !clash; i++)
      clash = strcmp(fixed_labels[i], name) == 0;
    snprintf(prefixed, sizeof prefixed, "%s%s", clash ? "param_" : "", name);
    if (json_is_string(v))
      gcb_view_copy(text, sizeof text, json_string_value(v));
    else
      snprintf(text, sizeof text, "%.17g", json_number_value(v));
    label(s, prefixed, text);
  }
}

static struct sample start(FILE *out, const char *family, const char *suffix,
                           size_t doc) {
  struct sample s = {.out = out, .first = true};
  fprintf(out, "%s%s{", family, suffix);
  label_int(&s, "run", (long long)doc + 1);
  return s;
}

/* ---- families ----------------------------------------------------------- */

/* What a family holds: per-rank figures of one bench and unit, P2P pairs,
 * or one of the collective or case-level figures. */
enum kind {
  K_RANKS,
  K_P2P,
  K_COLL_BUS,
  K_COLL_ALG,
  K_COLL_TIME,
  K_COLL_LATE,
  K_WRONG,
  K_IMBALANCE
};

struct family {
  char name[128];
  enum kind kind;
  const char *bench, *unit; /* K_RANKS, K_P2P: the cases it takes */
};

static bool coll(const json_t *c) {
  return strcmp(gcb_view_str(c, "bench"), "coll") == 0;
}

static bool p2p(const json_t *c) {
  return strcmp(gcb_view_str(c, "bench"), "p2p") == 0;
}

static void rank_samples(FILE *out, const struct gcb_report *rep, size_t d,
                         const json_t *c, const char *family) {
  const json_t *root = rep->docs[d].root;
  struct gcb_ranks pr;
  gcb_ranks_of(c, &pr);
  for (size_t i = 0; i < pr.n; i++) {
    double x = gcb_ranks_num(&pr, GCB_RC_FIG_MEDIAN, i);
    long long rank = gcb_ranks_int(&pr, GCB_RC_RANK, i, (long long)i);
    struct gcb_place p;
    if (isnan(x))
      continue;
    gcb_view_place(root, rank, &p);
    struct sample s = start(out, family, "", d);
    label(&s, "host", p.hostname);
    label_int(&s, "node", p.node);
    label_int(&s, "rank", rank);
    label_int(&s, "gpu", p.gpu);
    label(&s, "bus_id", p.bus_id);
    param_labels(&s, c);
    value(&s, x);
  }
}

static double case_value(enum kind k, const json_t *c) {
  const json_t *s = gcb_view_obj(c, "summary");
  switch (k) {
  case K_COLL_BUS:
    return gcb_view_num(s, "busbw");
  case K_COLL_ALG:
    return gcb_view_num(s, "algbw");
  case K_COLL_TIME:
    return gcb_view_num(gcb_view_obj(s, "time_s"), "mean");
  case K_COLL_LATE:
    return gcb_view_num(s, "late_mean_s");
  case K_WRONG:
    return gcb_view_num(s, "wrong");
  case K_IMBALANCE:
    return gcb_view_num(s, "imbalance");
  default:
    return NAN;
  }
}

static bool takes(const struct family *f, const json_t *c) {
  const char *bench = gcb_view_str(c, "bench");
  switch (f->kind) {
  case K_RANKS:
  case K_P2P:
    return strcmp(bench, f->bench) == 0 &&
           strcmp(gcb_view_str(c, "unit"), f->unit) == 0;
  case K_WRONG: /* only where values were checked: 0 means correct */
    return json_is_true(
        json_object_get(gcb_view_obj(c, "validation"), "checked"));
  case K_IMBALANCE: /* one rank is never imbalanced */
    return gcb_ranks_count(c) >= 2;
  default:
    return coll(c);
  }
}

static void case_sample(FILE *out, size_t d, const json_t *c,
                        const struct family *f) {
  double x = case_value(f->kind, c);
  if (isnan(x))
    return;
  struct sample s = start(out, f->name, "", d);
  label(&s, "backend", gcb_view_str(c, "backend"));
  if (f->kind == K_WRONG || f->kind == K_IMBALANCE)
    label(&s, "bench", gcb_view_str(c, "bench"));
  if (f->kind == K_COLL_LATE)
    label_int(&s, "late_rank",
              gcb_view_int(gcb_view_obj(c, "summary"), "late_rank", -1));
  param_labels(&s, c);
  value(&s, x);
}

/* One sample per node that measured the pair (p2p_view.h). */
static void p2p_samples(FILE *out, const struct gcb_report *rep, size_t d,
                        const json_t *c, const char *family, bool *seen,
                        size_t nseen) {
  const json_t *root = rep->docs[d].root;
  struct gcb__p2p_iter it;
  struct gcb__p2p m;
  if (!gcb__p2p_begin(&it, root, c, seen, nseen))
    return;
  while (gcb__p2p_next(&it, &m)) {
    struct sample s = start(out, family, "", d);
    label(&s, "host", gcb_view_str(gcb_view_node(root, m.node), "hostname"));
    label_int(&s, "node", m.node);
    label(&s, "backend", gcb_view_str(c, "backend"));
    param_labels(&s, c);
    value(&s, m.value);
  }
}

static void family_body(FILE *out, const struct gcb_report *rep,
                        const struct family *f) {
  for (size_t d = 0; d < rep->ndocs; d++) {
    const json_t *c;
    size_t i, nseen = 0;
    bool *seen =
        f->kind == K_P2P ? gcb__p2p_scratch(rep->docs[d].root, &nseen) : NULL;
    json_array_foreach(json_object_get(rep->docs[d].root, "cases"), i, c) {
      if (!takes(f, c))
        continue;
      if (f->kind == K_RANKS)
        rank_samples(out, rep, d, c, f->name);
      else if (f->kind == K_P2P)
        p2p_samples(out, rep, d, c, f->name, seen, nseen);
      else
        case_sample(out, d, c, f);
    }
    free(seen);
  }
}

static void family_head(FILE *out, const struct family *f, const char *help,
                        const char *unit) {
  fprintf(out, "# TYPE %s gauge\n", f->name);
  if (unit[0] != '\0')
    fprintf(out, "# UNIT %s %s\n", f->name, unit);
  fprintf(out, "# HELP %s %s\n", f->name, help);
}

/* The per-bench families, in order of first appearance. */
static size_t bench_families(const struct gcb_report *rep, struct family *fs,
                             size_t max) {
  size_t n = 0;
  for (size_t d = 0; d < rep->ndocs; d++) {
    const json_t *c;
    size_t i;
    json_array_foreach(json_object_get(rep->docs[d].root, "cases"), i, c) {
      if (coll(c) || n == max)
        continue;
      char b[64], u[64], name[128];
      sanitize(gcb_view_str(c, "bench"), b, sizeof b);
      unit_suffix(gcb_view_str(c, "unit"), u, sizeof u);
      snprintf(name, sizeof name, "gcbench_%s_%s", b, u);
      size_t k = 0;
      while (k < n && strcmp(fs[k].name, name) != 0)
        k++;
      if (k < n)
        continue;
      fs[n] = (struct family){.kind = p2p(c) ? K_P2P : K_RANKS,
                              .bench = gcb_view_str(c, "bench"),
                              .unit = gcb_view_str(c, "unit")};
      snprintf(fs[n++].name, sizeof fs[0].name, "%s", name);
    }
  }
  return n;
}

/* ---- the run-level families --------------------------------------------- */

static void run_info(FILE *out, const struct gcb_report *rep) {
  fputs("# TYPE gcbench_run info\n# HELP gcbench_run the runs the report "
        "covers\n",
        out);
  for (size_t d = 0; d < rep->ndocs; d++) {
    const json_t *run = gcb_view_obj(rep->docs[d].root, "run");
    const json_t *tool = gcb_view_obj(rep->docs[d].root, "tool");
    struct sample s = start(out, "gcbench_run", "_info", d);
    label(&s, "run_id", gcb_view_str(run, "id"));
    label(&s, "backend", gcb_view_str(run, "backend"));
    label(&s, "tool", gcb_view_str(tool, "name"));
    label(&s, "version", gcb_view_str(tool, "version"));
    value(&s, 1);
  }
}

static void verdict(FILE *out, const struct gcb_report *rep) {
  static const enum gcb_severity sev[] = {GCB_SEV_FAIL, GCB_SEV_WARN,
                                          GCB_SEV_INFO};
  fprintf(out,
          "# TYPE gcbench_report_failed gauge\n# HELP gcbench_report_failed "
          "1 when a finding is at failure level (gcbench report exits 1)\n"
          "gcbench_report_failed %d\n",
          gcb_report_failed(rep) ? 1 : 0);
  fputs("# TYPE gcbench_findings gauge\n# HELP gcbench_findings findings "
        "by severity\n",
        out);
  for (size_t i = 0; i < 3; i++)
    fprintf(out, "gcbench_findings{severity=\"%s\"} %zu\n",
            gcb_severity_name(sev[i]),
            gcb_findings_count(rep->findings, sev[i]));
}

static bool any_coll(const struct gcb_report *rep) {
  for (size_t d = 0; d < rep->ndocs; d++) {
    const json_t *c;
    size_t i;
    json_array_foreach(json_object_get(rep->docs[d].root, "cases"), i, c) {
      if (coll(c))
        return true;
    }
  }
  return false;
}

#define MAX_FAMILIES 64

static enum gcb_status render_openmetrics(FILE *out,
                                          const struct gcb_report *rep,
                                          struct gcb_err *err) {
  static const struct {
    struct family f;
    const char *help, *unit;
    bool collective;
  } fixed[] = {
      {{"gcbench_coll_busbw_gbps", K_COLL_BUS, NULL, NULL},
       "collective bus bandwidth (nccl-tests busbw), GB/s = 1e9 B/s",
       "gbps",
       true},
      {{"gcbench_coll_algbw_gbps", K_COLL_ALG, NULL, NULL},
       "collective algorithm bandwidth (size / time), GB/s",
       "gbps",
       true},
      {{"gcbench_coll_time_seconds", K_COLL_TIME, NULL, NULL},
       "collective time: mean over ranks of each rank's mean (nccl-tests)",
       "seconds",
       true},
      {{"gcbench_coll_late_seconds", K_COLL_LATE, NULL, NULL},
       "mean arrival lateness of the latest rank at the collective",
       "seconds",
       true},
      {{"gcbench_case_wrong_values", K_WRONG, NULL, NULL},
       "wrong values found by validation, summed over ranks",
       "",
       false},
      {{"gcbench_case_imbalance_ratio", K_IMBALANCE, NULL, NULL},
       "(max - mean) / max of the ranks' times (IPM)",
       "ratio",
       false},
  };
  struct family fs[MAX_FAMILIES];
  size_t n = bench_families(rep, fs, MAX_FAMILIES);
  run_info(out, rep);
  verdict(out, rep);
  for (size_t i = 0; i < n; i++) {
    char help[160], unit[64];
    unit_suffix(fs[i].unit, unit, sizeof unit);
    snprintf(help, sizeof help, "%s, %s",
             fs[i].kind == K_P2P ? "peer-to-peer bandwidth of a GPU pair"
                                 : "per-rank figure (the rank's median)",
             unit);
    family_head(out, &fs[i], help, unit);
    family_body(out, rep, &fs[i]);
  }
  bool colls = any_coll(rep);
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
    if (fixed[i].collective && !colls)
      continue;
    family_head(out, &fixed[i].f, fixed[i].help, fixed[i].unit);
    family_body(out, rep, &fixed[i].f);
  }
  fputs("# EOF\n", out);
  return gcb__render_done(out, "metrics.prom", err);
}

const struct gcb_renderer gcb_render_openmetrics = {.name = "openmetrics",
                                                    .file = "metrics.prom",
                                                    .render =
                                                        render_openmetrics};
