/*
 * The watchdog: one thread per rank that ends a run stuck in a case, and
 * says who it was waiting for.
 *
 * The harness arms it before each case (and before a benchmark's set-up)
 * with a deadline, tells it each phase the rank enters, and disarms it when
 * the case is recorded; benchmarks add steps inside long loops
 * (gcb_watchdog_step, through ctx->watchdog). Ranks report their progress to
 * rank 0's watchdog over a TCP connection of their own, never through MPI: a
 * rank stuck inside MPI or NCCL, or sleeping, or dead, cannot stop the report,
 * and MPI keeps its cheaper single-threaded mode.
 *
 * On expiry rank 0's watchdog names the ranks that had not finished (those
 * behind the furthest rank; every rank when none is behind, with the phase
 * each was in), lets the harness record the timeout in the results
 * document, prints one line, tells the other ranks to end, and ends its
 * process with exit code 4; mpiexec then ends the job. A rank whose
 * connection closes without a goodbye has died: rank 0 names it at once
 * (exit code 3). The other ranks end themselves a grace period after their
 * own deadline if rank 0 never does. SIGTERM and SIGINT (a batch system's
 * time limit, which mpiexec forwards; Ctrl-C) reach the watchdog thread
 * through a pipe, never more than a byte from the handler: rank 0 records
 * the run as "interrupted" with the case that was running, says so in one
 * line, and every rank ends with 128 + the signal (130, 143); a rank that
 * received one tells rank 0, which does the same.
 */
#ifndef GCB_WATCHDOG_H
#define GCB_WATCHDOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/run/context.h"

/* What a rank is doing, as it reports it. */
#define GCB_WATCHDOG_PHASE_LIST(X)                                             \
  X(IDLE, "between cases")                                                     \
  X(OPEN, "set-up")                                                            \
  X(SETUP, "case set-up")                                                      \
  X(MEASURE, "measure")                                                        \
  X(CHECK, "validation")                                                       \
  X(GATHER, "gather")                                                          \
  X(RECORD, "record")                                                          \
  X(CLOSE, "tear-down")

enum gcb_watchdog_phase {
#define GCB__WD_ENUM(id, words) GCB_WD_##id,
  GCB_WATCHDOG_PHASE_LIST(GCB__WD_ENUM)
#undef GCB__WD_ENUM
      GCB_WD_PHASE_COUNT
};

/* Words of a phase ("measure"); "?" outside the list. */
const char *gcb_watchdog_phase_name(int phase);

/*
 * Called on rank 0, from the watchdog thread, just before the process
 * ends: record `message` (status `code`, about `rank`, -1 for several) for
 * the case of `bench` labelled `label` in the results document, with the
 * run's status `run_status` ("timeout", "failed"). Returns false when the
 * document could not be updated. Must not wait unboundedly.
 */
typedef bool (*gcb_watchdog_record_fn)(void *arg, enum gcb_status code,
                                       const char *run_status, int rank,
                                       const char *bench, const char *label,
                                       const char *message);

struct gcb_watchdog_opts {
  double timeout_s;              /* per case; <= 0: no deadline (signals
                                    and dead ranks are still watched) */
  const char (*rank_names)[96];  /* rank 0: "host, device" by rank */
  const char *results_path;      /* rank 0: named in the final line */
  gcb_watchdog_record_fn record; /* rank 0 */
  void *arg;
  bool progress; /* a progress line is on stderr: the final line erases it */
};

struct gcb_watchdog;

/*
 * Starts the watchdog on every rank (collective: rank 0 broadcasts where
 * its watchdog listens), and its SIGINT and SIGTERM handlers. Failing
 * to set up the connection to rank 0 is not an error (the rank is then
 * named as silent); GCB_ENOMEM, or GCB_EIO when the thread cannot start.
 * The calling thread is the one watched (see gcb_watchdog_step).
 */
enum gcb_status gcb_watchdog_start(struct gcb_ctx *ctx,
                                   const struct gcb_watchdog_opts *opts,
                                   struct gcb_watchdog **out);

/* Arms the deadline (now + timeout) for one case of `bench` (or its
 * set-up), described by `label` until gcb_watchdog_label() names it.
 * NULL w: no-op, as for every call below. */
void gcb_watchdog_arm(struct gcb_watchdog *w, const char *bench,
                      const char *label);

/* Names the armed case, once its description is known. */
void gcb_watchdog_label(struct gcb_watchdog *w, const char *label);

/* The rank enters `phase` (counts as a step). */
void gcb_watchdog_phase(struct gcb_watchdog *w, enum gcb_watchdog_phase phase);

/* Where this rank's deadline lives (CLOCK_MONOTONIC seconds; 0 between
 * cases or without --timeout), for a library that can give up on its own
 * (struct gcb_coll_env). Valid until gcb_watchdog_stop(); NULL for NULL w.
 * Written by the watched thread only. */
const volatile double *gcb_watchdog_deadline(const struct gcb_watchdog *w);

/*
 * The armed case can end early by itself and still be recorded (burn's
 * intervals): on a stop signal (SIGINT, SIGTERM) the watchdog sets *flag
 * to 1 instead of ending the run at once, and ends it as it would (the run
 * "interrupted", 128 + the signal) once the case is disarmed, or grace_s
 * after it asked where the case never gets there. The case polls *flag.
 * Cleared by gcb_watchdog_disarm(); NULL w: no-op.
 */
void gcb_watchdog_soft(struct gcb_watchdog *w, atomic_int *flag,
                       double grace_s);

/* Moves the armed deadline `seconds` later: a case that is meant to take
 * that long (burn's --duration) keeps --timeout for what it does beyond. */
void gcb_watchdog_extend(struct gcb_watchdog *w, double seconds);

/* The case is over: no deadline until the next arm. A case whose soft
 * stop was asked (gcb_watchdog_soft) does not return from here: the
 * watchdog ends the run (it returns after 60 s where that never comes). */
void gcb_watchdog_disarm(struct gcb_watchdog *w);

/*
 * One step of progress by the watched thread (an operation started, say):
 * a relaxed atomic increment, cheap enough for timed loops. Benchmarks
 * reach their rank's watchdog through the run context (ctx->watchdog).
 * NULL w (no watchdog runs): no-op.
 */
void gcb_watchdog_step(struct gcb_watchdog *w);

/* Ends the thread and the connection with a goodbye, frees w. NULL: no-op.
 * Every rank calls it (not collective: no MPI). */
void gcb_watchdog_stop(struct gcb_watchdog *w);

/* ---- internal, exposed for tests ---------------------------------------- */

/* One rank's progress as rank 0 knows it. */
struct gcb__wd_rank {
  bool heard;    /* ever reported (rank 0 itself: always) */
  bool dead;     /* connection closed without a goodbye */
  uint32_t seq;  /* cases armed so far */
  uint64_t step; /* steps within the armed case */
  int phase;
};

/*
 * The ranks that had not finished when the deadline passed: silent and dead
 * ranks, and those behind the furthest rank by (seq, step); every rank when
 * none is behind. Fills `out` (n entries at most); returns the count.
 */
int gcb__watchdog_laggards(const struct gcb__wd_rank *ranks, int n, int *out);

/*
 * The one-line message naming them: "<bench> case '<label>' did not finish
 * within <timeout>: not finished: rank 1 (host, device) in measure, ...".
 * At most 8 ranks are named, then "and N more".
 */
void gcb__watchdog_timeout_message(char *buf, size_t len, const char *bench,
                                   const char *label, double timeout_s,
                                   const struct gcb__wd_rank *ranks, int n,
                                   const char (*names)[96]);

#endif
