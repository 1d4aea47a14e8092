/*
 * Option tables: one table per command drives getopt_long parsing,
 * defaults, --help and the echo of resolved options into the results
 * document. A row names its value's type and where it lives (offsetof into
 * the command's options struct); defaults are strings parsed by the same
 * code as the command line, so --help shows exactly what is applied.
 */
#ifndef GCB_OPTIONS_H
#define GCB_OPTIONS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/status.h"

enum gcb_opt_type {
  GCB_OPT_FLAG,   /* bool, no argument */
  GCB_OPT_INT,    /* long, plain integer */
  GCB_OPT_SIZE,   /* uint64_t, with K/M/G/T suffixes (powers of 1024) */
  GCB_OPT_DOUBLE, /* double */
  /* double, seconds: a number with an optional unit s, m or h ("90",
   * "90s", "1.5m", "10m", "1h"); echoed as the number of seconds */
  GCB_OPT_SECONDS,
  GCB_OPT_STRING, /* const char * into argv or the default */
  GCB_OPT_CHOICE, /* int, index into choices[] */
  GCB_OPT_SET,    /* uint32_t bit set over choices[]; "all" = every bit */
  /* Not an option: where the table's record of what was given explicitly
   * lives (a uint64_t; see gcb_option_given). No flag, help or echo. */
  GCB_OPT_GIVEN,
  /* Another name for an option of another table parsed with it (fio's
   * .alias): its `def` names that option's long name (an alias has no
   * default of its own; GCB_OPT_ALIAS_ROW writes it), whose row gives the
   * type, storage, bounds and default. A benchmark's nccl-tests letter
   * (-n) maps onto the harness's one field (--iters) this way. No storage,
   * no echo; where no parsed table has the aliased option, the alias is
   * not an option there. */
  GCB_OPT_ALIAS,
};

struct gcb_option {
  const char *name; /* long name, without "--" */
  char short_name;  /* 0 when none */
  enum gcb_opt_type type;
  size_t offset;       /* offsetof into the command's options struct */
  const char *def;     /* default, parsed like the command line; NULL:
                          zero / false / NULL */
  const char *metavar; /* "BYTES", "N"; NULL for flags */
  /* NULL: a test's fault injection (--stall-rank, --delay-rank), parsed,
   * checked and echoed as any row but left out of --help (docs/ROBUSTNESS.md,
   * "Fault injection", lists them; a comment beside the row says what it
   * does). */
  const char *help;
  const char *const *choices; /* NULL-terminated, CHOICE and SET only */
  double min;                 /* INT/SIZE/DOUBLE lower bound (inclusive) */
  double max;                 /* upper bound; 0 = none */
};

/* An alias row: `-short, --name` for --target of another table. */
#define GCB_OPT_ALIAS_ROW(name, short_name, target, help)                      \
  { name, short_name, GCB_OPT_ALIAS, 0, target, NULL, help, NULL, 0, 0 }

/*
 * Which options were given explicitly, on the command line or a profile,
 * rather than left at their default: a table that needs to know (options
 * that exclude each other) has one GCB_OPT_GIVEN row whose offset names a
 * uint64_t in its struct; parsing sets bit i there when row i is given.
 * Such a table has at most 64 rows before that one.
 */
#define GCB_OPT_GIVEN_ROW(type, field)                                         \
  {                                                                            \
    "(given)", 0, GCB_OPT_GIVEN, offsetof(type, field), NULL, NULL,            \
        "(which options were given explicitly)", NULL, 0, 0                    \
  }

/* Whether option `name` of `table` was given explicitly in the struct
 * `target` it filled; false when the table keeps no record (no
 * GCB_OPT_GIVEN row) or has no such option. */
bool gcb_option_given(const struct gcb_option *table, const void *target,
                      const char *name);

/* A table bound to the struct it fills. Tables end with a {0} row. */
struct gcb_option_group {
  const char *title; /* heading in --help */
  const struct gcb_option *options;
  void *target;
};

/*
 * Parses a size: a positive integer with an optional K, M, G or T suffix
 * (binary multiples; "B"/"iB" accepted after it), e.g. "8", "4K", "1MiB".
 * Rejects empty, negative, fractional, non-numeric and overflowing input
 * with GCB_EUSAGE naming the text.
 */
enum gcb_status gcb_parse_size(const char *text, uint64_t *out,
                               struct gcb_err *err);

/* Formats a size the shortest exact way with a suffix ("4K", "3M", "100"). */
void gcb_format_size(uint64_t bytes, char *buf, size_t len);

/* Applies every row's default to its target. */
enum gcb_status gcb_options_defaults(const struct gcb_option_group *groups,
                                     size_t ngroups, struct gcb_err *err);

/*
 * Parses argv (argv[0] is the command name) against the groups, after
 * applying defaults. `-h/--help` sets *help. Positional arguments are
 * rejected unless `positional` is non-NULL, in which case they are stored
 * there (at most max_positional). Errors are GCB_EUSAGE with one line
 * naming the option and the problem.
 */
enum gcb_status gcb_options_parse(const struct gcb_option_group *groups,
                                  size_t ngroups, int argc, char **argv,
                                  bool *help, const char **positional,
                                  int max_positional, int *npositional,
                                  struct gcb_err *err);

/* Prints --help text for the groups: every option, metavar, default and
 * choices, aligned. */
void gcb_options_help(FILE *out, const struct gcb_option_group *groups,
                      size_t ngroups);

/* Resolved values as a JSON object {name: value}; NULL on ENOMEM. */
json_t *gcb_options_to_json(const struct gcb_option_group *groups,
                            size_t ngroups);

#endif
