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

/* Starts group `key` when it differs from the current one; returns whether
 * a new header is due. */
bool gcb__table_enter(struct gcb_table *t, const char *key);

/* The collective layout's record and footer. */
void gcb__table_coll_record(struct gcb_table *t, const struct gcb_record *rec);
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

/* Prints a waiting out-of-place half-row on its own. */
void gcb__table_coll_flush_row(struct gcb_table *t);

#endif
