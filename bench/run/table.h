/*
 * The live table (table.c): rank 0's sink of finished cases, in a rate row
 * or nccl-tests', OSU's or the pattern benchmark's layout. Its sink face
 * sits in sink.h beside the other sinks: struct gcb_table (its state),
 * gcb_table_sink, gcb_table_progress, gcb_table_progress_time and
 * gcb_format_seconds. This header adds what other files of the run engine
 * read from it: nccl-tests' figures of a case
 * (nccl_json.c writes the table's numbers into -J), and the initiators'
 * mean (the time of coll -a 4), and nccl-tests' per-iteration summary
 * (the table's -I 1 columns, and -J's).
 */
#ifndef GCB_TABLE_H
#define GCB_TABLE_H

#include "bench/run/sink.h"

/* The mean loop time of the ranks that start each pair's exchange (the
 * lower half, ranks below nranks / 2: coll -a 4, as osu_multi_lat and
 * osu_mbw_mr average over their senders); rank 0's with fewer than 2. */
double gcb__table_initiators_mean(const struct gcb_record *rec);

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

#endif
