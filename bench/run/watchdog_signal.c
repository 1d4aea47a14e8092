/*
 * The watchdog's signals (see watchdog.h). SIGINT and SIGTERM (Ctrl-C; a
 * batch system's time limit, which mpiexec forwards), SIGPIPE (whoever read
 * the output is gone: `gcbench ... | head`) and SIGUSR1 (MPICH's
 * launcher, run with -disable-auto-cleanup, saying that a process ended
 * abnormally) only write a byte to the watchdog's wake pipe: the thread
 * records and ends the run, never the handler. The handlers replaced come
 * back at stop; the one SIGUSR1 replaced (MPICH installs one) is called in
 * turn. This file holds the one piece of process-wide state the watchdog
 * needs: a handler has no argument to find its watchdog by.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/run/watchdog_internal.h"

#define FAILED_GRACE_S                                                         \
  2.0 /* after the launcher's word, for the culprit's EOF */
#define SIGNAL_GRACE_S 5.0 /* a rank's wait for rank 0 after a signal */

static volatile sig_atomic_t signal_fd = -1;
static struct sigaction chained;

/* The signals that stop a run like SIGTERM, each with the byte its
 * handler writes and the handler it replaced. */
static struct stop_signal {
  int sig;
  char byte;
  const char *name;
  struct sigaction before;
} stops[] = {
    {.sig = SIGINT, .byte = 'I', .name = "SIGINT"},
    {.sig = SIGTERM, .byte = 'T', .name = "SIGTERM"},
    {.sig = SIGPIPE, .byte = 'P', .name = "SIGPIPE"},
};
#define NSTOPS (sizeof stops / sizeof *stops)

static void on_stop_signal(int sig) {
  int saved = errno;
  for (size_t i = 0; signal_fd >= 0 && i < NSTOPS; i++)
    if (stops[i].sig == sig) {
      ssize_t rc = write(signal_fd, &stops[i].byte, 1);
      (void)rc;
    }
  errno = saved;
}

bool gcb__wd_stop_signal_known(int sig) {
  for (size_t i = 0; i < NSTOPS; i++)
    if (stops[i].sig == sig)
      return true;
  return false;
}

static const char *stop_name(int sig) {
  for (size_t i = 0; i < NSTOPS; i++)
    if (stops[i].sig == sig)
      return stops[i].name;
  return "a signal";
}

static void on_sigusr1(int sig, siginfo_t *info, void *uc) {
  int saved = errno;
  if (signal_fd >= 0) {
    ssize_t rc = write(signal_fd, "U", 1);
    (void)rc;
  }
  if (chained.sa_flags & SA_SIGINFO)
    chained.sa_sigaction(sig, info, uc);
  else if (chained.sa_handler != SIG_DFL && chained.sa_handler != SIG_IGN)
    chained.sa_handler(sig);
  errno = saved;
}

/* SIGUSR1 (runs of several ranks only), SIGINT, SIGTERM and SIGPIPE, for
 * the first watchdog of the process; a stop signal the process was started
 * ignoring (a background job's SIGINT; SIGPIPE under a parent that ignores
 * it, where a write to a closed pipe fails with EPIPE instead) stays
 * ignored. */
void gcb__wd_signals_install(struct gcb_watchdog *w, bool usr1) {
  if (signal_fd >= 0)
    return;
  signal_fd = w->wake[1];
  struct sigaction sa = {.sa_sigaction = on_sigusr1};
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  if (usr1)
    w->usr1 = sigaction(SIGUSR1, &sa, &chained) == 0;
  struct sigaction stop = {.sa_handler = on_stop_signal};
  sigemptyset(&stop.sa_mask);
  stop.sa_flags = SA_RESTART;
  w->stops = true;
  for (size_t i = 0; i < NSTOPS; i++)
    w->stops = w->stops && sigaction(stops[i].sig, NULL, &stops[i].before) == 0;
  for (size_t i = 0; w->stops && i < NSTOPS; i++)
    if (stops[i].before.sa_handler != SIG_IGN)
      sigaction(stops[i].sig, &stop, NULL);
}

void gcb__wd_signals_restore(struct gcb_watchdog *w) {
  if (w->usr1)
    sigaction(SIGUSR1, &chained, NULL);
  for (size_t i = 0; w->stops && i < NSTOPS; i++)
    sigaction(stops[i].sig, &stops[i].before, NULL);
  if (w->usr1 || w->stops)
    signal_fd = -1;
}

/* Empties the wake pipe; notes the launcher's word of an ended process. */
void gcb__wd_drain(struct gcb_watchdog *w, double now) {
  char buf[64];
  ssize_t n;
  while ((n = read(w->wake[0], buf, sizeof buf)) > 0) {
    if (memchr(buf, 'U', (size_t)n) != NULL && w->peer_failed == 0)
      w->peer_failed = now;
    for (ssize_t i = 0; i < n && w->signal_at == 0; i++)
      for (size_t s = 0; s < NSTOPS && w->signal_at == 0; s++)
        if (buf[i] == stops[s].byte) {
          /* Its own signal first: another rank's may be the same one,
           * forwarded to every rank by the launcher. */
          w->signal_at = now;
          w->stop_signal = stops[s].sig;
          w->signal_rank = w->rank;
        }
  }
}

/* A signal asked the run to stop. Rank 0 records the run as interrupted,
 * naming the case that was running, and ends every rank with 128 + the
 * signal (the shell's convention); another rank tells rank 0 and waits
 * for it, ending itself a few seconds later if rank 0 cannot. */
void gcb__wd_check_signal(struct gcb_watchdog *w, double now) {
  if (w->stop_signal == 0)
    return;
  const char *name = stop_name(w->stop_signal);
  int code = 128 + w->stop_signal;
  struct gcb__wd_armed a;
  gcb__wd_armed(w, &a);
  if (w->rank == 0) {
    char message[512] = "";
    gcb__wd_append(message, sizeof message, "rank %d received %s",
                   w->signal_rank, name);
    if (a.bench[0] != '\0')
      gcb__wd_append(message, sizeof message, " %s %s %s",
                     a.active ? "during" : "after", a.bench, a.desc);
    gcb__wd_end_run_as(w, GCB_EINTR, "interrupted", code, "interrupted", -1,
                       a.bench, a.active ? a.label : "(between cases)",
                       message);
  }
  if (w->signal_at > 0 && w->fd >= 0 && !w->signal_told) {
    struct gcb__wd_msg m = {.type = GCB__WD_SIGNAL,
                            .a = (uint32_t)w->stop_signal};
    w->signal_told = gcb__wd_tell0(w, &m);
  }
  if (w->signal_at > 0 && now > w->signal_at + SIGNAL_GRACE_S) {
    char line[256];
    snprintf(line, sizeof line,
             "interrupted: rank %d received %s and rank 0 did not end the "
             "run; ending this rank",
             w->rank, name);
    gcb__wd_say(w, "error", line);
    _exit(code);
  }
}

/* The launcher said a process ended. Rank 0 names it from its closed
 * connection, which normally arrives first; failing that, the ranks it
 * has no connection from (the one, where there is one, goes into the
 * document). The others wait for rank 0. */
void gcb__wd_check_failed(struct gcb_watchdog *w, double now) {
  if (w->peer_failed == 0 || now < w->peer_failed + FAILED_GRACE_S)
    return;
  if (w->rank != 0 && now < w->peer_failed + 2 * FAILED_GRACE_S + 1)
    return;
  struct gcb__wd_armed a;
  gcb__wd_armed(w, &a);
  char message[1024];
  snprintf(message, sizeof message,
           "%sa process of the job ended (the launcher said so)%s%s%s%s",
           w->rank == 0 ? "" : "rank 0 did not end the run: ",
           a.bench[0] ? (a.active ? " during " : " after ") : "", a.bench,
           a.bench[0] ? " " : "", a.desc);
  if (w->rank == 0) {
    int first = -1;
    size_t at = strlen(message);
    gcb__wd_append(message, sizeof message,
                   "; rank 0's watchdog has no connection from ");
    int n = gcb__wd_name_unconnected(w, message, sizeof message, &first);
    if (n == 0)
      message[at] = '\0';
    gcb__wd_end_run(w, GCB_EMPI, "rank died", n == 1 ? first : -1, a.bench,
                    a.label, message);
  }
  char line[1100];
  snprintf(line, sizeof line, "rank %d: %s", w->rank, message);
  gcb__wd_say(w, "error", line);
  _exit(gcb_status_exit_code(GCB_EMPI));
}
