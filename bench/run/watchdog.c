/*
 * The watchdog (see watchdog.h): the calls the watched thread makes, the
 * watchdog thread's loop, and its start and stop. The connection is plain
 * TCP, set up at start: rank 0 listens (watchdog_serve.c) and broadcasts
 * its port, addresses and hostname; the others connect from their
 * watchdog thread (watchdog_report.c).
 */
#define _GNU_SOURCE /* pipe2 */
#include "bench/run/watchdog.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/run/watchdog_internal.h"

#define RETRY_MIN_S 0.25

static const char *const phase_names[] = {
#define GCB__WD_NAME(id, words) words,
    GCB_WATCHDOG_PHASE_LIST(GCB__WD_NAME)
#undef GCB__WD_NAME
};

const char *gcb_watchdog_phase_name(int phase) {
  return phase >= 0 && phase < GCB_WD_PHASE_COUNT ? phase_names[phase] : "?";
}

double gcb__wd_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the watched thread's side ------------------------------------------ */

void gcb_watchdog_arm(struct gcb_watchdog *w, const char *bench,
                      const char *label) {
  if (w == NULL)
    return;
  pthread_mutex_lock(&w->lock);
  snprintf(w->bench, sizeof w->bench, "%s", bench);
  snprintf(w->label, sizeof w->label, "%s", label);
  snprintf(w->desc, sizeof w->desc, "%s", label);
  w->deadline = w->opts.timeout_s > 0 ? gcb__wd_now() + w->opts.timeout_s : 0;
  w->active = true;
  atomic_fetch_add_explicit(&w->seq, 1, memory_order_relaxed);
  atomic_store_explicit(&w->step, 0, memory_order_relaxed);
  pthread_mutex_unlock(&w->lock);
  /* A deadline nearer than the thread's next look wakes it now. */
  if (w->opts.timeout_s > 0 && w->opts.timeout_s < 2e-3 * GCB__WD_TICK_MS &&
      w->wake[1] >= 0) {
    ssize_t rc = write(w->wake[1], "", 1);
    (void)rc;
  }
}

void gcb_watchdog_label(struct gcb_watchdog *w, const char *label) {
  if (w == NULL)
    return;
  pthread_mutex_lock(&w->lock);
  snprintf(w->label, sizeof w->label, "%s", label);
  snprintf(w->desc, sizeof w->desc, "case '%s'", label);
  pthread_mutex_unlock(&w->lock);
}

void gcb_watchdog_phase(struct gcb_watchdog *w, enum gcb_watchdog_phase phase) {
  if (w == NULL)
    return;
  atomic_store_explicit(&w->phase, (int)phase, memory_order_relaxed);
  atomic_fetch_add_explicit(&w->step, 1, memory_order_relaxed);
}

void gcb_watchdog_disarm(struct gcb_watchdog *w) {
  if (w == NULL)
    return;
  pthread_mutex_lock(&w->lock);
  w->deadline = 0;
  w->active = false;
  pthread_mutex_unlock(&w->lock);
  gcb_watchdog_phase(w, GCB_WD_IDLE);
}

const volatile double *gcb_watchdog_deadline(const struct gcb_watchdog *w) {
  return w != NULL ? &w->deadline : NULL;
}

void gcb_watchdog_step(struct gcb_watchdog *w) {
  if (w != NULL)
    atomic_fetch_add_explicit(&w->step, 1, memory_order_relaxed);
}

void gcb__wd_armed(struct gcb_watchdog *w, struct gcb__wd_armed *a) {
  pthread_mutex_lock(&w->lock);
  a->deadline = w->deadline;
  a->active = w->active;
  memcpy(a->bench, w->bench, sizeof a->bench);
  memcpy(a->label, w->label, sizeof a->label);
  memcpy(a->desc, w->desc, sizeof a->desc);
  pthread_mutex_unlock(&w->lock);
}

/* ---- the thread -----------------------------------------------------------*/

/* How long the thread may wait for its descriptors: a tick, or less when
 * the armed deadline is nearer, so that a deadline under a tick is kept
 * too. */
static int wait_ms(struct gcb_watchdog *w) {
  pthread_mutex_lock(&w->lock);
  double deadline = w->deadline;
  pthread_mutex_unlock(&w->lock);
  double left = deadline > 0 ? 1e3 * (deadline - gcb__wd_now()) + 1 : 1e9;
  return left < 1 ? 1 : left < GCB__WD_TICK_MS ? (int)left : GCB__WD_TICK_MS;
}

static void *run(void *arg) {
  struct gcb_watchdog *w = arg;
  while (!atomic_load(&w->stopping)) {
    if (w->rank == 0)
      gcb__wd_serve(w, wait_ms(w));
    else
      gcb__wd_report(w, wait_ms(w));
    if (atomic_load(&w->stopping))
      break;
    double now = gcb__wd_now();
    gcb__wd_drain(w, now);
    gcb__wd_check_signal(w, now);
    gcb__wd_check_failed(w, now);
    gcb__wd_check_deadline(w, now);
  }
  return NULL;
}

void gcb_watchdog_stop(struct gcb_watchdog *w) {
  if (w == NULL)
    return;
  atomic_store(&w->stopping, 1);
  gcb__wd_signals_restore(w);
  if (w->started) {
    ssize_t rc = write(w->wake[1], "", 1);
    (void)rc;
    pthread_join(w->thread, NULL);
  }
  gcb__wd_goodbye(w);
  for (int i = 0; i < w->nconns; i++)
    if (w->conns[i].fd >= 0)
      close(w->conns[i].fd);
  for (int i = 0; i < w->nlisten; i++)
    close(w->listen[i]);
  for (int i = 0; i < 2; i++)
    if (w->wake[i] >= 0)
      close(w->wake[i]);
  pthread_mutex_destroy(&w->lock);
  free(w->conns);
  free(w->ranks);
  free(w->peers);
  free(w);
}

/* Test only (docs/ROBUSTNESS.md): GCB_TEST_WD_ACCEPT_DELAY=SECONDS holds
 * rank 0's first accept back, as a loaded node would;
 * GCB_TEST_WD_CONNECT_DELAY=RANK:SECONDS holds that rank's first dial
 * back. Anything else in them is ignored. */
static void test_delays(struct gcb_watchdog *w) {
  const char *accept = getenv("GCB_TEST_WD_ACCEPT_DELAY");
  const char *dial = getenv("GCB_TEST_WD_CONNECT_DELAY");
  char *end;
  double s;
  if (w->rank == 0 && accept != NULL && (s = strtod(accept, &end)) > 0 &&
      s < 3600 && *end == '\0')
    w->listen_pause = w->started_at + s;
  long r = dial != NULL ? strtol(dial, &end, 10) : -1;
  if (r == w->rank && r > 0 && *end == ':' && (s = strtod(end + 1, &end)) > 0 &&
      s < 3600 && *end == '\0')
    w->next_try = w->started_at + s;
}

static struct gcb_watchdog *alloc_watchdog(const struct gcb_ctx *ctx,
                                           const struct gcb_watchdog_opts *o) {
  struct gcb_watchdog *w = calloc(1, sizeof *w);
  if (w == NULL)
    return NULL;
  *w = (struct gcb_watchdog){.rank = ctx->rank,
                             .size = ctx->size,
                             .near0 = ctx->node_index == 0,
                             .opts = *o,
                             .wake = {-1, -1},
                             .fd = -1,
                             .retry = RETRY_MIN_S,
                             .jitter = (uint64_t)ctx->rank};
  pthread_mutex_init(&w->lock, NULL);
  if (ctx->rank != 0)
    return w;
  /* Bounded from the start: a connection per rank, a few waiting. */
  w->capconns = ctx->size - 1 + GCB__WD_PENDING_MAX;
  w->ranks = calloc((size_t)ctx->size, sizeof *w->ranks);
  w->peers = calloc((size_t)ctx->size, sizeof *w->peers);
  w->conns = calloc((size_t)w->capconns, sizeof *w->conns);
  if (w->ranks == NULL || w->peers == NULL || w->conns == NULL) {
    gcb_watchdog_stop(w);
    return NULL;
  }
  return w;
}

enum gcb_status gcb_watchdog_start(struct gcb_ctx *ctx,
                                   const struct gcb_watchdog_opts *opts,
                                   struct gcb_watchdog **out) {
  *out = NULL;
  struct gcb_watchdog *w = alloc_watchdog(ctx, opts);
  if (w == NULL)
    return gcb_err_set(&ctx->err, GCB_ENOMEM, "watchdog: out of memory");
  enum gcb_status st = GCB_OK;
  if (ctx->rank == 0 && !gcb__wd_new_key(w->where0.key))
    st = gcb_err_set(&ctx->err, GCB_EIO,
                     "watchdog: no random bytes for the run's secret");
  if (ctx->size > 1 && (st = gcb_context_agree(ctx, st)) == GCB_OK)
    st = gcb__wd_listen(w, ctx);
  if (st == GCB_OK && ctx->size > 1 &&
      MPI_Bcast(&w->where0, (int)sizeof w->where0, MPI_BYTE, 0, ctx->world) !=
          MPI_SUCCESS)
    st = gcb_err_set(&ctx->err, GCB_EMPI,
                     "MPI_Bcast of the watchdog's address failed");
  if (st != GCB_OK) {
    gcb_watchdog_stop(w);
    return st;
  }
  const struct gcb__wd_where *o = &w->where0;
  w->gone = w->rank != 0 && o->loopback_port == 0 && o->naddrs == 0 &&
            o->any_port == 0;
  w->started_at = gcb__wd_now();
  test_delays(w);
  int rc = pipe2(w->wake, O_CLOEXEC | O_NONBLOCK);
  if (rc == 0)
    rc = pthread_create(&w->thread, NULL, run, w);
  if (rc != 0) {
    gcb_watchdog_stop(w);
    return gcb_err_set(&ctx->err, GCB_EIO, "watchdog: cannot start its thread");
  }
  w->started = true;
  pthread_setname_np(w->thread, "gcb-watchdog"); /* named for tests, top */
  gcb__wd_signals_install(w, ctx->size > 1);
  *out = w;
  return GCB_OK;
}
