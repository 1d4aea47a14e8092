/*
 * Internal to the live table: the parts shared by its two layouts (rate
 * rows in table.c, nccl-tests rows in table_coll.c).
 */
#ifndef GCB_TABLE_H
#define GCB_TABLE_H

#include "bench/run/sink.h"

/* CLOCK_MONOTONIC in seconds. */
double gcb__table_now(void);

/* Ends the current group: pending half-row, footers, repeated skips. */
void gcb__table_flush(struct gcb_table *t);

/* The validation cell of a row: "ok (0 wrong)", "FAILED (3 wrong)",
 * "not checked". */
struct gcb_record_summary;
void gcb__table_check_cell(const struct gcb_record_summary *sum, char *buf,
                           size_t len);

/* Starts group `key` when it differs from the current one; returns whether
 * a new header is due. */
bool gcb__table_enter(struct gcb_table *t, const char *key);

/* The collective layout's record and footer; _begin starts the record's
 * collective (its footer of the one before, its header) when it is new,
 * so that a skipped case is told in its own collective's block. */
void gcb__table_coll_begin(struct gcb_table *t, const struct gcb_record *rec);
void gcb__table_coll_record(struct gcb_table *t, const struct gcb_record *rec);
/* nccl-tests' row of a case with no element (rec->empty): size 0, count 0,
 * figures 0, as nccl-tests prints it where gcbench skips the case. */
void gcb__table_coll_empty(struct gcb_table *t, const struct gcb_record *rec);
/* OSU's layout: starts the block of a skipped case's collective (its
 * title), so that the skip is told in that block, not the one before. */
void gcb__table_osu_begin(struct gcb_table *t, const struct gcb_record *rec);
void gcb__table_coll_flush(struct gcb_table *t);

/* OSU's layout (table_osu.c): whether a record asks for it, and its row
 * (with the headers a new group needs). */
bool gcb__table_osu(const struct gcb_record *rec);
void gcb__table_osu_record(struct gcb_table *t, const struct gcb_record *rec);
/* The mean loop time of the ranks that start each pair's exchange (the
 * lower half, ranks below nranks / 2: coll -a 4, as osu_multi_lat and
 * osu_mbw_mr average over their senders); rank 0's with fewer than 2. */
double gcb__table_initiators_mean(const struct gcb_record *rec);

/* The pattern benchmark's layout (table_pattern.c): its record, and the
 * end of its group (the variant under way, then the part rows). */
void gcb__table_pattern_record(struct gcb_table *t,
                               const struct gcb_record *rec);
void gcb__table_pattern_flush(struct gcb_table *t);

/* One half's figures as the nccl-tests table shows them (-a's time, algbw
 * and busbw in GB/s, the wrong elements summed over ranks), for the table
 * and nccl-tests' -J document alike. */
struct gcb_coll_figures {
  double time_s, algbw, busbw;
  uint64_t wrong;
  bool checked;
};
void gcb__table_coll_figures(const struct gcb_record *rec,
                             struct gcb_coll_figures *f);

/* nccl-tests' per-iteration summary (src/util.cu computeIterStats) of a
 * case's times: each iteration's max over the ranks into row[0..n), then
 * min, max, mean, p50 = sorted[n / 2], p95 and p99 at index
 * min(n - 1, ceil(n * p / 100) - 1), the population stdev and cv = stdev /
 * mean in %, over the iterations after the first `skip` (all of them when
 * skip >= n, as nccl-tests disables -K then). Seconds. false: no times. */
struct gcb_iter_summary {
  double min, max, avg, p50, p95, p99, stdev, cv_pct;
  long skipped;
};
bool gcb__iter_summary(const struct gcb_iter_times *it, long skip, double *row,
                       struct gcb_iter_summary *out);

/* nccl-tests' -J document as a sink (nccl_json.c): writes only for
 * records whose shape names a file. */
struct gcb_nccl_json;

/* Prints a waiting out-of-place half-row on its own. */
void gcb__table_coll_flush_row(struct gcb_table *t);

#endif
