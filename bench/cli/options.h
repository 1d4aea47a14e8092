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
  /* A row of a dialect (struct gcb_option_dialect) with its own syntax,
   * as OSU's -m MIN:MAX: no storage of its own; the dialect's parse
   * function writes the fields it stands for through gcb_options_set, so
   * each value takes the one road of its own row (the same parse, bounds,
   * given bit and echo name). No echo, no default. It takes no argument
   * when its metavar is NULL, an optional one when its metavar is in
   * brackets ("[P,...]": -zLIST, --tail-lat=LIST or nothing), else a
   * required one. */
  GCB_OPT_PARSE,
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

/* A dialect's row with its own syntax: `-short, --name METAVAR`. */
#define GCB_OPT_PARSE_ROW(name, short_name, metavar, help)                     \
  { name, short_name, GCB_OPT_PARSE, 0, NULL, metavar, help, NULL, 0, 0 }

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

/* What a dialect's hooks work with: the groups being parsed (to write
 * values through gcb_options_set), the dialect's row as given (NULL in
 * the defaults hook) and the dialect's target. */
struct gcb_option_call {
  const struct gcb_option_group *groups;
  size_t ngroups;
  const struct gcb_option *row;
  void *target;
};

/*
 * Another program's command line over the same fields: OSU's programs,
 * whose letters -i -m -f -c -d -T -z are not coll's. Its rows are alias
 * rows (GCB_OPT_ALIAS) and parse rows (GCB_OPT_PARSE) onto the options of
 * the groups parsed with it, which then keep their storage, defaults,
 * bounds, given bits and echo but are not options of this command line
 * nor lines of its --help: the dialect's rows alone are. One table still
 * holds every value; the dialect is another way to spell them.
 */
struct gcb_option_dialect {
  const char *title; /* heading in --help */
  const struct gcb_option *options;
  void *target; /* the dialect's context (OSU's program and world) */
  /* Parses `text` (NULL: no argument given) for c->row, a GCB_OPT_PARSE
   * row; GCB_EUSAGE with one line on bad input. */
  enum gcb_status (*parse)(const struct gcb_option_call *c, const char *text,
                           struct gcb_err *err);
  /* NULL, or whether row `o` is an option here (OSU's -W only under its
   * bandwidth programs): GCB_OK, or GCB_EUSAGE with the one line that
   * refuses it; --help lists only the rows that apply. */
  enum gcb_status (*applies)(const struct gcb_option *o, const void *target,
                             struct gcb_err *err);
  /* NULL, or the dialect's own defaults (OSU's per-program sizes and
   * counts), written through gcb_options_set after every row's default and
   * before the command line. */
  enum gcb_status (*defaults)(const struct gcb_option_call *c,
                              struct gcb_err *err);
};

/*
 * Sets option `name` (its long name; a row with storage, in any group)
 * from `text` exactly as the command line would: its row's
 * parse and bounds, and its given bit. A STRING row keeps the pointer, so
 * `text` must outlive the options. GCB_EUSAGE as the command line's
 * message; GCB_EINTERNAL when no group has the option.
 */
enum gcb_status gcb_options_set(const struct gcb_option_group *groups,
                                size_t ngroups, const char *name,
                                const char *text, struct gcb_err *err);

/* The storage of option `name` (a row with storage, in any group), or
 * NULL. */
const void *gcb_options_value(const struct gcb_option_group *groups,
                              size_t ngroups, const char *name);

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

/*
 * gcb_options_parse with `d`'s rows as the options over the groups' fields
 * (see struct gcb_option_dialect): the groups' defaults, then d's, then the
 * command line.
 */
enum gcb_status gcb_options_parse_dialect(const struct gcb_option_dialect *d,
                                          const struct gcb_option_group *groups,
                                          size_t ngroups, int argc, char **argv,
                                          bool *help, const char **positional,
                                          int max_positional, int *npositional,
                                          struct gcb_err *err);

/* --help for a dialect: the rows of d that apply, aliases showing the
 * metavar of the option they stand for. */
void gcb_options_help_dialect(FILE *out, const struct gcb_option_dialect *d,
                              const struct gcb_option_group *groups,
                              size_t ngroups);

/* Prints --help text for the groups: every option, metavar, default and
 * choices, aligned. */
void gcb_options_help(FILE *out, const struct gcb_option_group *groups,
                      size_t ngroups);

/* Resolved values as a JSON object {name: value}; NULL on ENOMEM. */
json_t *gcb_options_to_json(const struct gcb_option_group *groups,
                            size_t ngroups);

#endif
