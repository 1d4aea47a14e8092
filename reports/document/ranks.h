/*
 * Per-rank results of a case, stored by column (results schema 2): a
 * case's `per_rank` is an object of arrays, one element per rank, in the
 * shape of one rank's entry ("time_s": {"median": [...]}). At thousands of
 * ranks this is what keeps a document quick to read: a few dozen arrays of
 * numbers per case instead of four objects per rank.
 *
 * One table, GCB_RANK_COLUMNS, names every column: the writer, the schema
 * walker (each column's element type and need), the reader of schema-1
 * documents (per_rank as an array of objects, transposed on reading) and
 * every consumer use it.
 */
#ifndef GCB_RANKS_H
#define GCB_RANKS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Kinds of column element. NULLABLE kinds allow null (written for NaN,
 * or for a rank that has no value, such as no lateness samples). */
enum gcb_rank_kind {
  GCB_RK_INT,
  GCB_RK_NUM,
  GCB_RK_NUM_NULLABLE,
  GCB_RK_INT_NULLABLE,
  GCB_RK_BOOL,
  GCB_RK_BOOL_NULLABLE,
  GCB_RK_STR_NULLABLE,
};

/* Whether a case has a column (the schema walker reports one missing
 * where this says it must be there): always; whenever it has the column's
 * group, the group itself optional; or not necessarily. */
enum gcb_rank_need { GCB_RN_ALWAYS, GCB_RN_GROUP, GCB_RN_OPTIONAL };

/* X(id, group, field, kind, need): group NULL for a top-level column. The
 * optional groups: late_s (collectives only) and telemetry (GPUs whose
 * NVML answered), whose too_short came after the sampler began marking
 * cases shorter than two periods: optional, so that documents written
 * before it still read. */
#define GCB_RANK_COLUMNS(X)                                                    \
  X(RANK, NULL, "rank", GCB_RK_INT, ALWAYS)                                    \
  X(TIME_N, "time_s", "n", GCB_RK_INT, ALWAYS)                                 \
  X(TIME_MIN, "time_s", "min", GCB_RK_NUM, ALWAYS)                             \
  X(TIME_MEDIAN, "time_s", "median", GCB_RK_NUM, ALWAYS)                       \
  X(TIME_MEAN, "time_s", "mean", GCB_RK_NUM, ALWAYS)                           \
  X(TIME_MAX, "time_s", "max", GCB_RK_NUM, ALWAYS)                             \
  X(TIME_STDEV, "time_s", "stdev", GCB_RK_NUM, ALWAYS)                         \
  X(TIME_P99, "time_s", "p99", GCB_RK_NUM, ALWAYS)                             \
  X(FIGURE_TIME, NULL, "figure_time_s", GCB_RK_NUM_NULLABLE, OPTIONAL)         \
  X(FIG_MEDIAN, "figure", "median", GCB_RK_NUM, ALWAYS)                        \
  X(FIG_BEST, "figure", "best", GCB_RK_NUM, ALWAYS)                            \
  X(FIG_WORST, "figure", "worst", GCB_RK_NUM, ALWAYS)                          \
  X(LATE_N, "late_s", "n", GCB_RK_INT_NULLABLE, GROUP)                         \
  X(LATE_MIN, "late_s", "min", GCB_RK_NUM_NULLABLE, GROUP)                     \
  X(LATE_MEDIAN, "late_s", "median", GCB_RK_NUM_NULLABLE, GROUP)               \
  X(LATE_MEAN, "late_s", "mean", GCB_RK_NUM_NULLABLE, GROUP)                   \
  X(LATE_MAX, "late_s", "max", GCB_RK_NUM_NULLABLE, GROUP)                     \
  X(LATE_STDEV, "late_s", "stdev", GCB_RK_NUM_NULLABLE, GROUP)                 \
  X(LATE_P99, "late_s", "p99", GCB_RK_NUM_NULLABLE, GROUP)                     \
  X(CHECKED, "validation", "checked", GCB_RK_BOOL, ALWAYS)                     \
  X(SAMPLES, "validation", "samples", GCB_RK_INT, ALWAYS)                      \
  X(WRONG, "validation", "wrong", GCB_RK_INT, ALWAYS)                          \
  X(MAX_ERROR, "validation", "max_error", GCB_RK_NUM_NULLABLE, ALWAYS)         \
  X(TOLERANCE, "validation", "tolerance", GCB_RK_NUM_NULLABLE, ALWAYS)         \
  X(METHOD, "validation", "method", GCB_RK_STR_NULLABLE, ALWAYS)               \
  X(TELEM_SAMPLES, "telemetry", "samples", GCB_RK_INT_NULLABLE, GROUP)         \
  X(TELEM_SM_MIN, "telemetry", "sm_clock_mhz_min", GCB_RK_NUM_NULLABLE, GROUP) \
  X(TELEM_SM_MEAN, "telemetry", "sm_clock_mhz_mean", GCB_RK_NUM_NULLABLE,      \
    GROUP)                                                                     \
  X(TELEM_SM_MAX, "telemetry", "sm_clock_mhz_max", GCB_RK_NUM_NULLABLE, GROUP) \
  X(TELEM_MEM_MEAN, "telemetry", "mem_clock_mhz_mean", GCB_RK_NUM_NULLABLE,    \
    GROUP)                                                                     \
  X(TELEM_POWER_MEAN, "telemetry", "power_w_mean", GCB_RK_NUM_NULLABLE, GROUP) \
  X(TELEM_POWER_MAX, "telemetry", "power_w_max", GCB_RK_NUM_NULLABLE, GROUP)   \
  X(TELEM_TEMP_MAX, "telemetry", "temp_c_max", GCB_RK_NUM_NULLABLE, GROUP)     \
  X(TELEM_THROTTLE, "telemetry", "throttle_reasons", GCB_RK_STR_NULLABLE,      \
    GROUP)                                                                     \
  X(TELEM_SLOWED, "telemetry", "slowed", GCB_RK_BOOL_NULLABLE, GROUP)          \
  X(TELEM_TOO_SHORT, "telemetry", "too_short", GCB_RK_BOOL_NULLABLE, OPTIONAL)

enum gcb_rank_col {
#define GCB_RANK_COL_ENUM(id, group, field, kind, need) GCB_RC_##id,
  GCB_RANK_COLUMNS(GCB_RANK_COL_ENUM)
#undef GCB_RANK_COL_ENUM
      GCB_RC_COUNT
};

struct gcb_rank_column {
  const char *group; /* NULL: a member of per_rank itself */
  const char *field;
  enum gcb_rank_kind kind;
  enum gcb_rank_need need;
};

/* The table, indexed by enum gcb_rank_col. */
extern const struct gcb_rank_column gcb_rank_columns[GCB_RC_COUNT];

/*
 * A case's per-rank columns as arrays: what both roads of the reader fill
 * (read_lex.c from the text, gcb_ranks_of from a jansson tree) and what
 * the schema walker and the model read. num[c] is a numeric or boolean
 * column, n doubles (NaN for null; true 1, false 0; integers exact to
 * 2^53), str[c] a text column, n strings (NULL for null); both are NULL
 * for a column the case does not have. A read document keeps these
 * instead of its per_rank trees (results.h, gcb_results_ranks): at 16,384
 * ranks a document's 14 million per-rank values as jansson reals were
 * 580 MB and most of the parse.
 */
struct gcb__ranks_chunk;
struct gcb_ranks {
  size_t n;
  double *num[GCB_RC_COUNT];
  char **str[GCB_RC_COUNT];
  struct gcb__ranks_chunk *text; /* the strings' storage */
};

/* Case c's per_rank (a validated schema-2 case's object of columns) read
 * into *out; n = 0 when the case has none (converted nccl-tests output).
 * 0, or -1 on ENOMEM (*out then empty). Free with gcb_ranks_free. */
int gcb_ranks_of(const json_t *c, struct gcb_ranks *out);

/* Frees r's columns (r itself is the caller's); NULL is a no-op. */
void gcb_ranks_free(struct gcb_ranks *r);

/* Frees the columns of n cases and the array holding them. */
void gcb__ranks_free_all(struct gcb_ranks *r, size_t n);

/* The number of rank i in column col, or NAN (null, absent, i >= n). */
double gcb_ranks_num(const struct gcb_ranks *r, enum gcb_rank_col col,
                     size_t i);

/* The integer of rank i in column col, or def (null, absent, i >= n). */
long long gcb_ranks_int(const struct gcb_ranks *r, enum gcb_rank_col col,
                        size_t i, long long def);

/* r's columns in rank order, stable (a rank given twice keeps its first
 * entry first), untouched when in order already. -1 on ENOMEM (r then in
 * some order, still whole). */
int gcb__ranks_order(struct gcb_ranks *r);

/* ranks[] by rank and nodes[] by index in a validated document's tree,
 * the same way; -1 on ENOMEM. */
int gcb__ranks_order_document(json_t *root);

/* r as the per_rank object of arrays the schema has (integer, real,
 * boolean and text columns as the table's kinds say, null for null); new
 * reference, NULL on ENOMEM. */
json_t *gcb_ranks_json(const struct gcb_ranks *r);

/* Whether r holds what per_rank (a jansson tree) says, value for value:
 * the same columns, each element the type the column's kind allows
 * (null only where nullable, an integer where the kind is one) and the
 * same value. For the fuzzers and tests of the reader. */
bool gcb__ranks_equal_json(const struct gcb_ranks *r, const json_t *per_rank);

/* ---- filling the columns (read_lex.c, gcb_ranks_of) ---------------------- */

/* The column the table names `field` of `group` (NULL, 0: per_rank
 * itself); -1 for another. */
int gcb__ranks_column_find(const char *group, size_t glen, const char *field,
                           size_t flen);

/* A copy of s (n bytes, NUL added) kept with r's columns; NULL on
 * ENOMEM. */
char *gcb__ranks_keep(struct gcb_ranks *r, const char *s, size_t n);

/* Sets column col of a per_rank object being built (creating its group);
 * steals array. -1 on ENOMEM or a NULL array. */
int gcb_ranks_set_column(json_t *per_rank, enum gcb_rank_col col,
                         json_t *array);

/*
 * Transposes schema-1 per-rank entries (an array of objects, each already
 * validated) into schema-2 columns. An optional column is written when any
 * entry has it, with null for the entries that do not. New reference, or
 * NULL on ENOMEM.
 */
json_t *gcb_ranks_from_rows(const json_t *rows);

#endif
