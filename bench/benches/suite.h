/*
 * Internal to `suite` (suite.c, suite_plan.c): a profile's option words,
 * owned, and the plan a --dry-run prints. A profile row's text is split
 * into words that the parsed options point into (text options keep a
 * pointer, as they keep one into argv), so the words live on the heap as
 * long as the options do, never in a stack buffer of the parsing function.
 */
#ifndef GCB_SUITE_H
#define GCB_SUITE_H

#include <stdio.h>

#include "bench/bench.h"
#include "bench/run/harness.h"

/* A command line made of words: argv[0] the command's name, then the
 * words of one or more texts, NULL-terminated. */
struct gcb__suite_words {
  char *text;  /* the words, NUL-separated (owned) */
  char **argv; /* argc + 1 pointers (owned); argv[i > 0] point into text */
  int argc;
};

/*
 * Splits `text` (words separated by spaces; NULL or "" is none) into
 * w->argv[1..] after `first`, then the `nextra` words of `extra` after them
 * (borrowed: the user's argv). GCB_ENOMEM on failure, w left freeable.
 */
enum gcb_status gcb__suite_words_split(struct gcb__suite_words *w,
                                       const char *first, const char *text,
                                       char **extra, int nextra,
                                       struct gcb_err *err);

/* Frees what split made; a zeroed or freed w is a no-op. */
void gcb__suite_words_free(struct gcb__suite_words *w);

/*
 * Parses `text` as the options of group g (defaults first) into g->target,
 * keeping the words in w, which the caller frees after the last use of
 * g->target's text options. GCB_EUSAGE naming the option on a bad word.
 */
enum gcb_status gcb__suite_parse(struct gcb_option_group *g, const char *text,
                                 struct gcb__suite_words *w,
                                 struct gcb_err *err);

/* A benchmark's words in a profile on a backend ("host", "cuda"): the
 * words every profile gives, then the profile's rows for every backend,
 * then those for that backend (heap, the caller frees); NULL for an
 * unknown profile or on ENOMEM. For tests and the plan. */
char *gcb__suite_profile_text(const char *profile, const char *bench,
                              const char *backend);

/* What a --dry-run has to print its plan from. */
struct gcb__suite_plan {
  const char *profile;
  const struct gcb_run_opts *ro;
  const struct gcb_bench *const *benches; /* NULL-terminated */
  void *const *opts;                      /* each benchmark's options */
  const char *const *texts;               /* each benchmark's profile words */
  const char *run_text;                   /* the profile's run options */
};

/*
 * The plan: on every rank, a context and the backend (as the run would
 * open them: case counts depend on the ranks and nodes), every
 * benchmark's validate hook, then on rank 0 each benchmark with its
 * options, cases, sizes and iterations, and an estimated time from a
 * cost model that says what it assumes. Runs no case and writes no file.
 * Returns the exit code: 0, 2 for options the run would refuse, 3 when
 * the context or backend cannot be had. Collective.
 */
int gcb__suite_plan(const struct gcb__suite_plan *p, int argc, char **argv);

#endif
