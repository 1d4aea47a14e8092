/*
 * How the watchdog ends the process (see watchdog.h): one line on stderr
 * in one write, after what the table printed; on rank 0 the document
 * first, then the word to every other rank; on the others, a quiet end
 * once rank 0 has ended.
 */
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/run/watchdog_internal.h"

#define ABORT_WAIT_MS 3000

void gcb__wd_say(const struct gcb_watchdog *w, const char *kind,
                 const char *line) {
  if (ftrylockfile(stdout) == 0) {
    fflush(stdout);
    funlockfile(stdout);
  }
  /* Names in the line (a node's, a case's) go through the one escaping
   * path: a terminal escape or newline in one is shown, never obeyed. */
  char shown[1800], buf[2048];
  gcb_text_shown(shown, sizeof shown, line);
  /* The progress line, where shown (a terminal, maybe behind mpiexec's
   * pipe), is erased first, as the table's rows erase it. */
  bool erase = isatty(STDERR_FILENO) || w->opts.progress;
  int n = snprintf(buf, sizeof buf, "%sgcbench: %s: %s\n",
                   erase ? "\r\033[K" : "", kind, shown);
  if (n > (int)sizeof buf - 1)
    n = (int)sizeof buf - 1;
  ssize_t rc = write(STDERR_FILENO, buf, (size_t)n);
  (void)rc;
}

/* Rank 0: record (with the run's status `run_status`), tell every rank to
 * end, say why ("<what>: <message>"), end with `exit_code`. */
_Noreturn void gcb__wd_end_run_as(struct gcb_watchdog *w, enum gcb_status code,
                                  const char *run_status, int exit_code,
                                  const char *what, int rank, const char *bench,
                                  const char *label, const char *message) {
  bool kept =
      w->opts.record != NULL && w->opts.record(w->opts.arg, code, run_status,
                                               rank, bench, label, message);
  char line[2048];
  snprintf(line, sizeof line, "%s: %s; %s %s", what, message,
           kept ? "results so far in"
                : "the results document could not be updated; its last "
                  "complete version is",
           w->opts.results_path ? w->opts.results_path : "(none)");
  gcb__wd_say(w, "error", line);
  /* Only now the others: a launcher ends the whole job when the first
   * process ends, and that must not be another rank before this line. */
  struct gcb__wd_msg abort = {.type = GCB__WD_ABORT, .a = (uint32_t)exit_code};
  gcb__wd_tell_all(w, &abort);
  _exit(exit_code);
}

_Noreturn void gcb__wd_end_run(struct gcb_watchdog *w, enum gcb_status code,
                               const char *what, int rank, const char *bench,
                               const char *label, const char *message) {
  gcb__wd_end_run_as(w, code, code == GCB_ETIMEOUT ? "timeout" : "failed",
                     gcb_status_exit_code(code), what, rank, bench, label,
                     message);
}

/* Rank 0 has said why, recorded it, and is ending: end quietly with its
 * exit code, once it has ended (its connection closes), so that the
 * launcher sees rank 0's end first and reports it, not this rank's; or
 * after a few seconds, where rank 0's end ends nothing (srun without
 * --kill-on-bad-exit). */
_Noreturn void gcb__wd_end_after_rank0(struct gcb_watchdog *w, int code) {
  struct pollfd p = {.fd = w->fd, .events = POLLIN};
  char buf[64];
  for (int waited = 0; waited < ABORT_WAIT_MS; waited += GCB__WD_TICK_MS)
    if (poll(&p, 1, GCB__WD_TICK_MS) > 0 &&
        recv(w->fd, buf, sizeof buf, 0) <= 0)
      break;
  _exit(code);
}
