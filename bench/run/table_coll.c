/*
 * The live table's nccl-tests layout for collectives: one row per message
 * size with the out-of-place and in-place halves side by side (time,
 * algbw, busbw, #wrong), min and max of the time over ranks beside the
 * mean, then per collective the footer lines nccl-tests prints (out of
 * bounds values, average bus bandwidth) and the latest-arriving rank.
 */
#include <inttypes.h>
#include <string.h>

#include "bench/cli/options.h"
#include "bench/run/table.h"

#define HALF_FMT "%9.2f %9.2f %9.2f %7.2f %7.2f %6" PRIu64
#define HALF_BLANK "%9s %9s %9s %7s %7s %6s"

static const char *param_str(const struct gcb_record *rec, const char *key) {
  const struct gcb_param *p = gcb_record_param(rec, key);
  return p && p->type == GCB_PARAM_STRING ? p->s : "";
}

static int64_t param_int(const struct gcb_record *rec, const char *key) {
  const struct gcb_param *p = gcb_record_param(rec, key);
  return p && p->type != GCB_PARAM_STRING ? p->i : 0;
}

static void print_header(struct gcb_table *t, const struct gcb_record *rec) {
  const char *split = param_str(rec, "split");
  char within[96] = "";
  if (*split && strcmp(split, "none") != 0)
    snprintf(within, sizeof within,
             ", split %s (communicators of %" PRId64 " ranks)", split,
             param_int(rec, "comm_size"));
  fprintf(t->out,
          "\n# %s %s on %s%s: %d rank(s), %d iterations after %d warm-up; time "
          "per rank averaged over ranks, min and max over ranks\n",
          rec->bench, param_str(rec, "op"), rec->backend, within, rec->nranks,
          rec->iterations, rec->warmup);
  fprintf(t->out, "# %58s %-51s %s\n", "", "out-of-place", "in-place");
  fprintf(t->out,
          "# %10s %12s %9s %6s %5s  %9s %9s %9s %7s %7s %6s  %9s %9s %9s %7s "
          "%7s %6s\n",
          "size", "count", "type", "redop", "root", "time", "min", "max",
          "algbw", "busbw", "#wrong", "time", "min", "max", "algbw", "busbw",
          "#wrong");
  char units[256];
  int n = snprintf(units, sizeof units,
                   "# %10s %12s %9s %6s %5s  %9s %9s %9s %7s %7s %6s  %9s %9s "
                   "%9s %7s %7s",
                   "(B)", "(elements)", "", "", "", "(us)", "(us)", "(us)",
                   "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(GB/s)",
                   "(GB/s)");
  fprintf(t->out, "%.*s\n", n > 0 ? n : 0, units); /* no trailing blanks */
}

/* The half of a row one record fills, and its share of the footer. */
static void format_half(struct gcb_table *t, const struct gcb_record *rec,
                        char *buf, size_t len) {
  struct gcb_record_summary s;
  gcb_record_summarize(rec, &s);
  snprintf(buf, len, HALF_FMT, 1e6 * s.time.mean, 1e6 * s.time.min,
           1e6 * s.time.max, s.algbw, s.busbw, s.wrong);
  t->coll.rows++;
  t->coll.busbw_sum += s.busbw;
  t->coll.wrong += s.wrong;
  if (s.late_rank >= 0 &&
      (t->coll.late_rank < 0 || s.late_mean > t->coll.late_mean)) {
    t->coll.late_rank = rec->ranks[s.late_rank].rank;
    t->coll.late_mean = s.late_mean;
    t->coll.late_max = s.late_max;
  }
}

/* Row key: everything but the in-place flag. */
static void row_key(const struct gcb_record *rec, char *buf, size_t len) {
  snprintf(buf, len, "%s %s %s %" PRId64 " %" PRId64 " %s",
           param_str(rec, "op"), param_str(rec, "type"),
           param_str(rec, "redop"), param_int(rec, "size"),
           param_int(rec, "root"), param_str(rec, "split"));
}

static void row_start(const struct gcb_record *rec, char *buf, size_t len) {
  char size[32];
  gcb_format_size((uint64_t)param_int(rec, "size"), size, sizeof size);
  snprintf(buf, len, "  %10" PRId64 " %12" PRId64 " %9s %6s %5" PRId64 "  ",
           param_int(rec, "size"), param_int(rec, "count"),
           param_str(rec, "type"), param_str(rec, "redop"),
           param_int(rec, "root"));
}

/* Prints a waiting out-of-place half with an empty in-place half. */
void gcb__table_coll_flush_row(struct gcb_table *t) {
  if (!t->pending)
    return;
  fprintf(t->out, "%s  " HALF_BLANK "\n", t->pending_row, "", "", "", "", "",
          "");
  t->pending = false;
}

void gcb__table_coll_record(struct gcb_table *t, const struct gcb_record *rec) {
  char group[64], key[96], half[96];
  snprintf(group, sizeof group, "%s %s %s", rec->bench, param_str(rec, "op"),
           param_str(rec, "split"));
  if (gcb__table_enter(t, group))
    print_header(t, rec);
  row_key(rec, key, sizeof key);
  bool inplace = param_int(rec, "inplace") != 0;
  if (t->pending && (!inplace || strcmp(key, t->pending_key) != 0))
    gcb__table_coll_flush_row(t);
  format_half(t, rec, half, sizeof half);
  if (!inplace) {
    row_start(rec, t->pending_row, sizeof t->pending_row);
    strncat(t->pending_row, half,
            sizeof t->pending_row - strlen(t->pending_row) - 1);
    snprintf(t->pending_key, sizeof t->pending_key, "%s", key);
    t->pending = true;
    return;
  }
  if (t->pending) {
    fprintf(t->out, "%s  %s\n", t->pending_row, half);
    t->pending = false;
    return;
  }
  char start[128];
  row_start(rec, start, sizeof start);
  fprintf(t->out, "%s" HALF_BLANK "  %s\n", start, "", "", "", "", "", "",
          half);
}

void gcb__table_coll_flush(struct gcb_table *t) {
  gcb__table_coll_flush_row(t);
  struct gcb_coll_totals *c = &t->coll;
  if (c->rows == 0)
    return;
  fprintf(t->out, "# Out of bounds values : %" PRIu64 " %s\n", c->wrong,
          c->wrong ? "FAILED" : "OK");
  fprintf(t->out, "# Avg bus bandwidth    : %g GB/s\n", c->busbw_sum / c->rows);
  if (c->late_rank >= 0) {
    char who[200] = "";
    if (t->rank_names && c->late_rank < t->nranks)
      gcb_text_shown(who, sizeof who, t->rank_names[c->late_rank]);
    fprintf(t->out,
            "# Latest arrival       : rank %d%s%s%s, %.2f us late on average "
            "(max %.2f us)\n",
            c->late_rank, *who ? " (" : "", who, *who ? ")" : "",
            1e6 * c->late_mean, 1e6 * c->late_max);
  }
  *c = (struct gcb_coll_totals){.late_rank = -1};
}
