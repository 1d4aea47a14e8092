/*
 * Per-rank results of a case, stored by column (results schema 2): a
 * case's `per_rank` is an object of arrays, one element per rank, in the
 * shape of one rank's entry ("time_s": {"median": [...]}). At thousands of
 * ranks this is what keeps a document quick to read: a few dozen arrays of
 * numbers per case instead of four objects per rank.
 *
 * One table, GCB_RANK_COLUMNS, names every column: the writer, the schema
 * walker, the reader of schema-1 documents (per_rank as an array of
 * objects, transposed on reading) and every consumer use it.
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

/* X(id, group, field, kind, required): group NULL for a top-level column.
 * A group is optional when its columns are (late_s: collectives only;
 * telemetry: GPUs whose NVML answered). */
#define GCB_RANK_COLUMNS(X)                                                    \
  X(RANK, NULL, "rank", GCB_RK_INT, true)                                      \
  X(TIME_N, "time_s", "n", GCB_RK_INT, true)                                   \
  X(TIME_MIN, "time_s", "min", GCB_RK_NUM, true)                               \
  X(TIME_MEDIAN, "time_s", "median", GCB_RK_NUM, true)                         \
  X(TIME_MEAN, "time_s", "mean", GCB_RK_NUM, true)                             \
  X(TIME_MAX, "time_s", "max", GCB_RK_NUM, true)                               \
  X(TIME_STDEV, "time_s", "stdev", GCB_RK_NUM, true)                           \
  X(TIME_P99, "time_s", "p99", GCB_RK_NUM, true)                               \
  X(FIGURE_TIME, NULL, "figure_time_s", GCB_RK_NUM_NULLABLE, false)            \
  X(FIG_MEDIAN, "figure", "median", GCB_RK_NUM, true)                          \
  X(FIG_BEST, "figure", "best", GCB_RK_NUM, true)                              \
  X(FIG_WORST, "figure", "worst", GCB_RK_NUM, true)                            \
  X(LATE_N, "late_s", "n", GCB_RK_INT_NULLABLE, false)                         \
  X(LATE_MIN, "late_s", "min", GCB_RK_NUM_NULLABLE, false)                     \
  X(LATE_MEDIAN, "late_s", "median", GCB_RK_NUM_NULLABLE, false)               \
  X(LATE_MEAN, "late_s", "mean", GCB_RK_NUM_NULLABLE, false)                   \
  X(LATE_MAX, "late_s", "max", GCB_RK_NUM_NULLABLE, false)                     \
  X(LATE_STDEV, "late_s", "stdev", GCB_RK_NUM_NULLABLE, false)                 \
  X(LATE_P99, "late_s", "p99", GCB_RK_NUM_NULLABLE, false)                     \
  X(CHECKED, "validation", "checked", GCB_RK_BOOL, true)                       \
  X(SAMPLES, "validation", "samples", GCB_RK_INT, true)                        \
  X(WRONG, "validation", "wrong", GCB_RK_INT, true)                            \
  X(MAX_ERROR, "validation", "max_error", GCB_RK_NUM_NULLABLE, true)           \
  X(TOLERANCE, "validation", "tolerance", GCB_RK_NUM_NULLABLE, true)           \
  X(METHOD, "validation", "method", GCB_RK_STR_NULLABLE, true)                 \
  X(TELEM_SAMPLES, "telemetry", "samples", GCB_RK_INT_NULLABLE, false)         \
  X(TELEM_SM_MIN, "telemetry", "sm_clock_mhz_min", GCB_RK_NUM_NULLABLE, false) \
  X(TELEM_SM_MEAN, "telemetry", "sm_clock_mhz_mean", GCB_RK_NUM_NULLABLE,      \
    false)                                                                     \
  X(TELEM_SM_MAX, "telemetry", "sm_clock_mhz_max", GCB_RK_NUM_NULLABLE, false) \
  X(TELEM_MEM_MEAN, "telemetry", "mem_clock_mhz_mean", GCB_RK_NUM_NULLABLE,    \
    false)                                                                     \
  X(TELEM_POWER_MEAN, "telemetry", "power_w_mean", GCB_RK_NUM_NULLABLE, false) \
  X(TELEM_POWER_MAX, "telemetry", "power_w_max", GCB_RK_NUM_NULLABLE, false)   \
  X(TELEM_TEMP_MAX, "telemetry", "temp_c_max", GCB_RK_NUM_NULLABLE, false)     \
  X(TELEM_THROTTLE, "telemetry", "throttle_reasons", GCB_RK_STR_NULLABLE,      \
    false)                                                                     \
  X(TELEM_SLOWED, "telemetry", "slowed", GCB_RK_BOOL_NULLABLE, false)          \
  X(TELEM_TOO_SHORT, "telemetry", "too_short", GCB_RK_BOOL_NULLABLE, false)

enum gcb_rank_col {
#define GCB_RANK_COL_ENUM(id, group, field, kind, required) GCB_RC_##id,
  GCB_RANK_COLUMNS(GCB_RANK_COL_ENUM)
#undef GCB_RANK_COL_ENUM
      GCB_RC_COUNT
};

struct gcb_rank_column {
  const char *group; /* NULL: a member of per_rank itself */
  const char *field;
  enum gcb_rank_kind kind;
  bool required;
};

/* The table, indexed by enum gcb_rank_col. */
extern const struct gcb_rank_column gcb_rank_columns[GCB_RC_COUNT];

/*
 * How a column is held. A document read from a file keeps its large
 * numeric and boolean columns compact (ranks_compact.c): 8 bytes an
 * element in one block, which the tree holds in place of the array (a
 * string of binary that only these functions read). At 16,384 ranks a
 * document's 14 million per-rank values as jansson reals were 580 MB and
 * most of the parse; compact they are 112 MB. Every consumer reads
 * columns through gcb_ranks_* and sees the values the array would give.
 */
enum gcb_rank_store {
  GCB_RS_JSON, /* a jansson array (documents built in memory, small ones) */
  GCB_RS_REAL, /* doubles; NaN for null */
  GCB_RS_INT,  /* int64; GCB_RANKS_NULL_INT for null */
  GCB_RS_BOOL, /* int64 0 or 1; GCB_RANKS_NULL_INT for null */
};

/* The null of an integer or boolean compact column (a JSON integer of 19
 * digits never becomes one: the reader leaves those to jansson). */
#define GCB_RANKS_NULL_INT INT64_MIN

/* A case's per-rank columns, looked up once. */
struct gcb_ranks {
  size_t n;                          /* ranks (the length of every column) */
  const json_t *col[GCB_RC_COUNT];   /* NULL for an absent optional column */
  unsigned char store[GCB_RC_COUNT]; /* enum gcb_rank_store */
  const unsigned char *data[GCB_RC_COUNT]; /* a compact column's elements */
  size_t len[GCB_RC_COUNT];                /* a compact column's length */
};

/* Looks up the columns of case c (a validated schema-2 case); n = 0 when
 * the case has no per-rank results (converted nccl-tests output). */
void gcb_ranks_of(const json_t *c, struct gcb_ranks *out);

/* The number of per-rank entries of case c (0: none, or not schema 2). */
size_t gcb_ranks_count(const json_t *c);

/* The number of rank i in column col, or NAN (null, absent, i >= n). */
double gcb_ranks_num(const struct gcb_ranks *r, enum gcb_rank_col col,
                     size_t i);

/* The integer of rank i in column col, or def. */
long long gcb_ranks_int(const struct gcb_ranks *r, enum gcb_rank_col col,
                        size_t i, long long def);

/* The string of rank i in column col, or "" (null, absent). */
const char *gcb_ranks_str(const struct gcb_ranks *r, enum gcb_rank_col col,
                          size_t i);

/* Whether rank i's value in column col is true (false, null, absent: no). */
bool gcb_ranks_true(const struct gcb_ranks *r, enum gcb_rank_col col, size_t i);

/* The elements of a column value (an array or a compact column); 0 for
 * anything else. */
size_t gcb_ranks_column_size(const json_t *col);

/* The rank number of entry i (-1 if none). */
long long gcb_ranks_rank(const struct gcb_ranks *r, size_t i);

/* Whether rank i validated its output. */
bool gcb_ranks_checked(const struct gcb_ranks *r, size_t i);

/* The entry index holding `rank` (the first, when a rank is there twice);
 * -1 if none. per_rank is in rank order (as written, and as every
 * document is kept once read: gcb__ranks_order_document): index `rank` is
 * tried first, then a binary search. */
long long gcb_ranks_find(const struct gcb_ranks *r, long long rank);

/*
 * Puts a validated document in the order its lookups take for granted:
 * each case's per-rank columns by rank, ranks[] by rank and nodes[] by
 * index, each stable (a rank given twice keeps its first entry first) and
 * untouched when in order already. O(n log n). -1 on ENOMEM (the document
 * is then in some order, still valid).
 */
int gcb__ranks_order_document(json_t *root);

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

/* ---- compact columns (ranks_compact.c) ---------------------------------- */

/* What a compact column holds. */
struct gcb_ranks_compact {
  enum gcb_rank_store store; /* never GCB_RS_JSON */
  bool has_null;
  size_t n;
  const unsigned char *data; /* n 8-byte elements, native byte order */
};

/* A compact column of n elements (values: n doubles or int64s as store
 * says), as a value the tree holds in place of the array; new reference,
 * NULL on ENOMEM. */
json_t *gcb__ranks_compact_new(enum gcb_rank_store store, bool has_null,
                               const void *values, size_t n);

/* Whether v is a compact column; *out describes it. */
bool gcb__ranks_compact_of(const json_t *v, struct gcb_ranks_compact *out);

/* Element i of a compact column, as 8 bytes (a double or an int64). */
double gcb__ranks_compact_real(const struct gcb_ranks_compact *c, size_t i);
int64_t gcb__ranks_compact_int(const struct gcb_ranks_compact *c, size_t i);

/* The jansson array a compact column stands for (the one json_loadb
 * builds from the same text); new reference, NULL on ENOMEM. */
json_t *gcb__ranks_compact_expand(const struct gcb_ranks_compact *c);

/* Every compact column of a document's cases replaced by its jansson
 * array, for a caller that walks or writes the tree itself; -1 on ENOMEM. */
int gcb__ranks_expand_document(json_t *root);

/* Case c as a tree without compact columns (c itself, or a copy with
 * them expanded): what a writer dumps. New reference; NULL on ENOMEM. */
json_t *gcb__ranks_case_plain(const json_t *c);

#endif
