/*
 * The live table of the pattern benchmark: what a person asks of a
 * training step, one row per pattern and layout (step, compute alone,
 * communication alone, exposed communication, overlap with its noise, the
 * straggler and its cost), each column with its unit; then, when the
 * benchmark ends, one row per part case in that part's unit (GFLOP/s for
 * compute, GB/s for communication). The figures are the pattern view's
 * (reports/analysis/pattern_view.h) on the records' per-rank times, which
 * are the numbers the results document keeps: the report prints the same.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/run/table.h"

static const char *const part_names[GCB_PART_COUNT] = {
    "compute", "comm", "step", "step-compute", "step-comm"};

static int part_of(const struct gcb_record *rec) {
  const char *p = gcb_record_text(rec, "part");
  for (int i = 0; i < GCB_PART_COUNT; i++)
    if (strcmp(p, part_names[i]) == 0)
      return i;
  return -1;
}

/* "tp inner" from the label "tp inner step-comm": the variant's title. */
static void variant_of(const struct gcb_record *rec, int part, char *out,
                       size_t len) {
  size_t n = strlen(rec->label), p = strlen(part_names[part]);
  if (n > p && strcmp(rec->label + n - p, part_names[part]) == 0)
    n -= p + 1;
  snprintf(out, len, "%.*s", (int)n, rec->label);
}

static void header(struct gcb_table *t, const struct gcb_record *rec) {
  struct gcb_pattern_live *pl = &t->pattern;
  if (pl->header)
    return;
  pl->header = true;
  const char *model = gcb_record_text(rec, "model");
  fprintf(t->out,
          "\n# pattern on %s: model %s, %d rank(s); compute alone, "
          "communication alone and the step measured interleaved, %d "
          "timed step(s) of each after %d warm-up\n",
          rec->backend, model[0] ? model : "?", rec->nranks, rec->iterations,
          rec->warmup);
  fprintf(t->out,
          "# times: mean over ranks of each rank's median; exposed comm = "
          "step - compute, at least 0; overlap = (compute + comm - step) / "
          "min(compute, comm) within [0, 1], +- its noise, \"no overlap "
          "measurable\" when the noise is larger; straggler: the rank that "
          "computes the most within the step, its cost (max - mean) / max "
          "of that compute (docs/PATTERNS.md)\n");
  fprintf(t->out,
          "# %-12s  %-16s  %-10s  %9s  %9s  %9s  %9s  %-21s  %9s  %9s\n",
          "pattern", "layout", "groups", "step", "compute", "comm", "exposed",
          "overlap", "straggler", "cost");
  fprintf(t->out,
          "# %-12s  %-16s  %-10s  %9s  %9s  %9s  %9s  %-21s  %9s  %9s\n", "",
          "", "", "(ms)", "(ms)", "(ms)", "comm (ms)", "(0-1)", "(rank)",
          "(%)");
}

/* Prints the row of the variant held, if any, and lets it go. */
static void print_variant(struct gcb_table *t) {
  struct gcb_pattern_live *pl = &t->pattern;
  if (pl->key[0] == '\0')
    return;
  char pattern[32];
  snprintf(pattern, sizeof pattern, "%s", pl->key);
  pattern[strcspn(pattern, " ")] = '\0';
  struct gcb_pattern_group g = {
      .pattern = pattern, .nranks = (size_t)pl->nranks, .ranks = pl->ranks};
  gcb_pattern_group_derive(&g);
  char step[32], comp[32], comm[32], exp[32], ov[48], cost[32], who[32];
  gcb_pattern_fmt_ms(g.step_mean, step, sizeof step);
  gcb_pattern_fmt_ms(g.compute_mean, comp, sizeof comp);
  gcb_pattern_fmt_ms(g.comm_mean, comm, sizeof comm);
  gcb_pattern_fmt_ms(g.exposed, exp, sizeof exp);
  gcb_pattern_fmt_overlap(g.measurable, g.overlap, g.overlap_noise, ov,
                          sizeof ov);
  gcb_pattern_fmt_pct(g.busy_imbalance, cost, sizeof cost);
  if (g.straggler >= 0)
    snprintf(who, sizeof who, "%lld", g.straggler);
  else
    snprintf(who, sizeof who, "-");
  /* "±" is two bytes and one column: pad by what the eye sees. */
  int pad = strstr(ov, "\xc2\xb1") != NULL ? 22 : 21;
  fprintf(t->out, "  %-12s  %-16s  %-10s  %9s  %9s  %9s  %9s  %-*s  %9s  %9s\n",
          pl->key, pl->layout, pl->span[0] ? pl->span : "-", step, comp, comm,
          exp, pad, ov, who, cost);
  free(pl->ranks);
  pl->ranks = NULL;
  pl->nranks = 0;
  pl->key[0] = '\0';
}

/* Keeps one part row for after the summary. */
static void keep_part(struct gcb_table *t, const struct gcb_record *rec,
                      const char *variant, int part) {
  struct gcb_pattern_live *pl = &t->pattern;
  if (pl->nparts == GCB_TABLE_PATTERN_PARTS) {
    pl->dropped++;
    return;
  }
  struct gcb_record_summary sum;
  gcb_record_summarize(rec, &sum);
  char time[32], check[48];
  gcb_pattern_fmt_ms(sum.time.median, time, sizeof time);
  gcb__table_check_cell(&sum, check, sizeof check);
  snprintf(pl->parts[pl->nparts++], sizeof pl->parts[0],
           "  %-12s  %-13s  %9s  %12.4g  %-8s  %s", variant, part_names[part],
           time, sum.figure.median, rec->figure.unit, check);
}

void gcb__table_pattern_record(struct gcb_table *t,
                               const struct gcb_record *rec) {
  struct gcb_pattern_live *pl = &t->pattern;
  int part = part_of(rec);
  if (part < 0)
    return;
  if (gcb__table_enter(t, "pattern"))
    pl->header = false;
  header(t, rec);
  char variant[96];
  variant_of(rec, part, variant, sizeof variant);
  if (strcmp(variant, pl->key) != 0) {
    print_variant(t);
    pl->ranks = calloc((size_t)rec->nranks + 1, sizeof *pl->ranks);
    if (pl->ranks == NULL)
      return; /* the row is left out; the parts still print */
    pl->nranks = rec->nranks;
    for (int r = 0; r < rec->nranks; r++) {
      pl->ranks[r].rank = rec->ranks[r].rank;
      for (int p = 0; p < GCB_PART_COUNT; p++)
        pl->ranks[r].t[p] = pl->ranks[r].sd[p] = NAN;
    }
    snprintf(pl->key, sizeof pl->key, "%s", variant);
    snprintf(pl->layout, sizeof pl->layout, "%s",
             gcb_record_text(rec, "layout"));
    snprintf(pl->span, sizeof pl->span, "%s", gcb_record_text(rec, "span"));
  }
  for (int r = 0; r < rec->nranks && r < pl->nranks; r++) {
    const struct gcb_rank_result *rr = &rec->ranks[r];
    pl->ranks[r].t[part] = rr->time_s;
    pl->ranks[r].sd[part] = rr->seconds.stdev;
    pl->ranks[r].n[part] = (double)rr->seconds.n;
  }
  keep_part(t, rec, variant, part);
  if (part == GCB_PART_COUNT - 1)
    print_variant(t);
}

void gcb__table_pattern_flush(struct gcb_table *t) {
  struct gcb_pattern_live *pl = &t->pattern;
  print_variant(t);
  if (pl->nparts > 0) {
    fprintf(t->out, "# the parts: time per step, median over ranks; the "
                    "rate it reaches, in the part's unit (compute: 2*m*n*k "
                    "flops of the step's GEMMs; comm: bytes of its "
                    "collectives, nccl-tests S)\n");
    fprintf(t->out, "# %-12s  %-13s  %9s  %12s  %-8s  %s\n", "pattern", "part",
            "time (ms)", "rate", "unit", "check");
  }
  for (int i = 0; i < pl->nparts; i++)
    fprintf(t->out, "%s\n", pl->parts[i]);
  if (pl->dropped > 0)
    fprintf(t->out, "#   (and %d more part row(s): results.json has them)\n",
            pl->dropped);
  pl->nparts = pl->dropped = 0;
  pl->header = false;
}
