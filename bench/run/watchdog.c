/*
 * The watchdog (see watchdog.h), in one file: the calls the watched thread
 * makes, the sealed messages, how the process ends, who had not finished,
 * the signals, where rank 0 listens, rank 0's side of the connections and
 * every other rank's, and the thread with its start and stop. Each part
 * calls only those above it. The connection is plain TCP, set up at
 * start: rank 0 listens and broadcasts its port, addresses and hostname;
 * the others connect from their watchdog thread. watchdog_internal.h
 * holds the state, for this file and the wire fuzzer (fuzz/fuzz_wire.c).
 */
#define _GNU_SOURCE /* pipe2, accept4, getifaddrs, MSG_NOSIGNAL */
#include "bench/run/watchdog.h"
#include "common/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench/run/sha256.h"
#include "bench/run/watchdog_internal.h"

#define RETRY_MIN_S 0.25   /* a rank's first back-off before it dials again */
#define RETRY_MAX_S 5.0    /* and its longest */
#define ACCEPT_BURST 64    /* connections rank 0 accepts in one pass */
#define LISTEN_PAUSE_S 0.5 /* no accept for this long after an accept error */
#define NAMED_MAX 8        /* ranks named in one line, then "and N more" */
#define ABORT_WAIT_MS 3000 /* a rank's wait for rank 0's end after its word */
#define FAILED_GRACE_S 2.0 /* after the launcher's word, for its EOF */
#define SIGNAL_GRACE_S 5.0 /* a rank's wait for rank 0 after a signal */
#define BODY_BYTES offsetof(struct gcb__wd_msg, mac)
#define NSTOPS (sizeof stops / sizeof *stops)

/* ---- phases and the clock ------------------------------------------------*/

static const char *const phase_names[] = {
#define GCB__WD_NAME(id, words) words,
    GCB_WATCHDOG_PHASE_LIST(GCB__WD_NAME)
#undef GCB__WD_NAME
};

const char *gcb_watchdog_phase_name(int phase) {
  return phase >= 0 && phase < GCB_WD_PHASE_COUNT ? phase_names[phase] : "?";
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
  w->deadline = w->opts.timeout_s > 0 ? gcb_now_s() + w->opts.timeout_s : 0;
  w->extended = 0;
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

void gcb_watchdog_soft(struct gcb_watchdog *w, atomic_int *flag,
                       double grace_s) {
  if (w == NULL)
    return;
  pthread_mutex_lock(&w->lock);
  w->soft_flag = flag;
  w->soft_grace = grace_s;
  w->soft_asked = 0;
  w->soft_done = false;
  w->soft_timeout = false;
  pthread_mutex_unlock(&w->lock);
}

void gcb_watchdog_extend(struct gcb_watchdog *w, double seconds) {
  if (w == NULL)
    return;
  pthread_mutex_lock(&w->lock);
  if (w->deadline > 0) {
    w->deadline += seconds;
    w->extended += seconds;
  }
  pthread_mutex_unlock(&w->lock);
}

void gcb_watchdog_disarm(struct gcb_watchdog *w) {
  if (w == NULL)
    return;
  pthread_mutex_lock(&w->lock);
  w->deadline = 0;
  w->active = false;
  bool asked = w->soft_asked > 0;
  w->soft_done = asked;
  w->soft_flag = NULL;
  pthread_mutex_unlock(&w->lock);
  gcb_watchdog_phase(w, GCB_WD_IDLE);
  /* The watchdog ends the run now that the case is recorded; the rest
   * of the run must not begin meanwhile. */
  struct timespec tenth = {.tv_nsec = 100000000};
  for (int i = 0; asked && i < 600; i++)
    nanosleep(&tenth, NULL);
}

const volatile double *gcb_watchdog_deadline(const struct gcb_watchdog *w) {
  return w != NULL ? &w->deadline : NULL;
}

void gcb_watchdog_step(struct gcb_watchdog *w) {
  if (w != NULL)
    atomic_fetch_add_explicit(&w->step, 1, memory_order_relaxed);
}

/* A copy of the armed case. */
struct armed_case {
  double deadline; /* 0: none */
  double limit;    /* the case's whole limit: --timeout and its extension */
  bool active;     /* inside a case or set-up */
  char bench[32], label[128], desc[160];
};

static void armed(struct gcb_watchdog *w, struct armed_case *a) {
  pthread_mutex_lock(&w->lock);
  a->deadline = w->deadline;
  a->limit = w->opts.timeout_s + w->extended;
  a->active = w->active;
  memcpy(a->bench, w->bench, sizeof a->bench);
  memcpy(a->label, w->label, sizeof a->label);
  memcpy(a->desc, w->desc, sizeof a->desc);
  pthread_mutex_unlock(&w->lock);
}

/* ---- messages ------------------------------------------------------------*/

/* Fixed-size, sealed with HMAC-SHA256 under a secret made for the run and
 * handed to the ranks through MPI, so that only a process of the run can
 * speak on a progress connection; sent without blocking and read as they
 * come, a partial message kept until the rest arrives. */

/* What the MAC covers: a label for this protocol, then the body. */
static void mac_of(const struct gcb_watchdog *w, const struct gcb__wd_msg *m,
                   uint8_t out[GCB_SHA256_BYTES]) {
  static const char label[16] = "gcbench-wd/1";
  uint8_t data[sizeof label + BODY_BYTES];
  memcpy(data, label, sizeof label);
  memcpy(data + sizeof label, m, BODY_BYTES);
  gcb_hmac_sha256(w->where0.key, sizeof w->where0.key, data, sizeof data, out);
}

bool gcb__wd_send(const struct gcb_watchdog *w, int fd, struct gcb__wd_msg *m,
                  enum gcb__wd_dir dir, uint32_t rank, uint64_t counter) {
  m->dir = (uint8_t)dir;
  m->rank = rank;
  m->counter = counter;
  m->pad = 0;
  m->pad2 = 0;
  mac_of(w, m, m->mac);
  return send(fd, m, sizeof *m, MSG_NOSIGNAL | MSG_DONTWAIT) ==
         (ssize_t)sizeof *m;
}

/* Whether m's MAC is right for direction dir under the run's secret. */
static bool authentic(const struct gcb_watchdog *w, const struct gcb__wd_msg *m,
                      enum gcb__wd_dir dir) {
  uint8_t want[GCB_SHA256_BYTES];
  mac_of(w, m, want);
  return gcb_mac_equal(want, m->mac, sizeof want) && m->dir == (uint8_t)dir;
}

/* 1: a whole message in *m; 0: more to come; -1: end of file or error. */
static int recv_msg(int fd, unsigned char *buf, size_t *got,
                    struct gcb__wd_msg *m) {
  ssize_t n = recv(fd, buf + *got, sizeof *m - *got, MSG_DONTWAIT);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
    return -1;
  if (n > 0)
    *got += (size_t)n;
  if (*got < sizeof *m)
    return 0;
  memcpy(m, buf, sizeof *m);
  *got = 0;
  return 1;
}

/* This rank's progress, as a message of `type` to seal. */
static struct gcb__wd_msg own_progress(struct gcb_watchdog *w, uint8_t type) {
  return (struct gcb__wd_msg){
      .type = type,
      .phase = (uint8_t)atomic_load_explicit(&w->phase, memory_order_relaxed),
      .a = atomic_load_explicit(&w->seq, memory_order_relaxed),
      .b = atomic_load_explicit(&w->step, memory_order_relaxed)};
}

/* The run's secret, from the kernel's random source; false without one. */
static bool new_key(uint8_t key[GCB__WD_KEY_BYTES]) {
  size_t got = 0;
  while (got < GCB__WD_KEY_BYTES) {
    ssize_t n = getrandom(key + got, GCB__WD_KEY_BYTES - got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  if (got == GCB__WD_KEY_BYTES)
    return true;
  /* Kernels before getrandom(2): the same source through its file. */
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read(fd, key, GCB__WD_KEY_BYTES) : -1;
  if (fd >= 0)
    close(fd);
  return n == GCB__WD_KEY_BYTES;
}

/* A message to rank 0, sealed; false when it did not go. */
static bool tell0(struct gcb_watchdog *w, struct gcb__wd_msg *m) {
  return w->fd >= 0 &&
         gcb__wd_send(w, w->fd, m, GCB__WD_TO0, (uint32_t)w->rank, ++w->tx);
}

/* Rank 0's word to every rank it has heard from (ABORT). */
static void tell_all(struct gcb_watchdog *w, struct gcb__wd_msg *m) {
  for (int i = 0; i < w->nconns; i++) {
    struct gcb__wd_conn *c = &w->conns[i];
    if (c->fd >= 0 && c->rank > 0)
      (void)gcb__wd_send(w, c->fd, m, GCB__WD_FROM0, (uint32_t)c->rank,
                         ++w->peers[c->rank].tx);
  }
}

/* ---- the end of the process ---------------------------------------------*/

/* One line on stderr in one write, after what the table printed; on rank
 * 0 the document first, then the word to every other rank; on the others,
 * a quiet end once rank 0 has ended. */

/* One line on stderr, "gcbench: <kind>: <line>" ("error", "warning"). */
static void say(const struct gcb_watchdog *w, const char *kind,
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
static _Noreturn void end_run_as(struct gcb_watchdog *w, enum gcb_status code,
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
  say(w, "error", line);
  /* Only now the others: a launcher ends the whole job when the first
   * process ends, and that must not be another rank before this line. */
  struct gcb__wd_msg abort = {.type = GCB__WD_ABORT, .a = (uint32_t)exit_code};
  tell_all(w, &abort);
  _exit(exit_code);
}

/* A timeout or a dead rank: the status's own exit code. */
static _Noreturn void end_run(struct gcb_watchdog *w, enum gcb_status code,
                              const char *what, int rank, const char *bench,
                              const char *label, const char *message) {
  end_run_as(w, code, code == GCB_ETIMEOUT ? "timeout" : "failed",
             gcb_status_exit_code(code), what, rank, bench, label, message);
}

/* Rank 0 has said why, recorded it, and is ending: end quietly with its
 * exit code, once it has ended (its connection closes), so that the
 * launcher sees rank 0's end first and reports it, not this rank's; or
 * after a few seconds, where rank 0's end ends nothing (srun without
 * --kill-on-bad-exit). */
static _Noreturn void end_after_rank0(struct gcb_watchdog *w, int code) {
  struct pollfd p = {.fd = w->fd, .events = POLLIN};
  char buf[64];
  for (int waited = 0; waited < ABORT_WAIT_MS; waited += GCB__WD_TICK_MS)
    if (poll(&p, 1, GCB__WD_TICK_MS) > 0 &&
        recv(w->fd, buf, sizeof buf, 0) <= 0)
      break;
  _exit(code);
}

/* ---- who had not finished ------------------------------------------------*/

/* When the deadline passed: the one line that says so, and the rule that
 * ends the run: rank 0 at the deadline, every other rank a grace period
 * later where rank 0 cannot (frozen, unreachable). */

static int behind(const struct gcb__wd_rank *a, const struct gcb__wd_rank *b) {
  return a->seq < b->seq || (a->seq == b->seq && a->step < b->step);
}

int gcb__watchdog_laggards(const struct gcb__wd_rank *ranks, int n, int *out) {
  const struct gcb__wd_rank *front = NULL;
  for (int r = 0; r < n; r++)
    if (ranks[r].heard && !ranks[r].dead &&
        (!front || behind(front, &ranks[r])))
      front = &ranks[r];
  int k = 0;
  for (int r = 0; r < n; r++)
    if (!ranks[r].heard || ranks[r].dead || behind(&ranks[r], front))
      out[k++] = r;
  for (int r = 0; k == 0 && r < n; r++)
    out[r] = r;
  return k == 0 ? n : k;
}

/* Appends to the string in buf, cut at len. */
static void append(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t len, const char *fmt, ...) {
  size_t used = strlen(buf);
  if (used + 1 >= len)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + used, len - used, fmt, ap);
  va_end(ap);
}

void gcb__wd_name_rank(char *buf, size_t len, int r, const char (*names)[96],
                       const struct gcb__wd_rank *st) {
  append(buf, len, "rank %d", r);
  if (names != NULL)
    append(buf, len, " (%s)", names[r]);
  if (st->dead)
    append(buf, len, " died");
  else if (!st->heard)
    append(buf, len, " silent (its watchdog never reported)");
  else
    append(buf, len, " in %s", gcb_watchdog_phase_name(st->phase));
}

/* Rank 0: appends the ranks it has no connection from (not heard, or
 * reconnecting, and not gone with a goodbye), 8 named at most, then "and
 * N more"; returns how many there are, the first in *first. */
static int name_unconnected(const struct gcb_watchdog *w, char *buf, size_t len,
                            int *first) {
  int k = 0;
  *first = -1;
  for (int r = 1; r < w->size; r++) {
    if (w->peers[r].connected || w->peers[r].bye)
      continue;
    if (k == 0)
      *first = r;
    if (k < NAMED_MAX) {
      append(buf, len, "%srank %d", k > 0 ? ", " : "", r);
      if (w->opts.rank_names != NULL)
        append(buf, len, " (%s)", w->opts.rank_names[r]);
    }
    k++;
  }
  if (k > NAMED_MAX)
    append(buf, len, " and %d more", k - NAMED_MAX);
  return k;
}

void gcb__watchdog_timeout_message(char *buf, size_t len, const char *bench,
                                   const char *label, double timeout_s,
                                   const struct gcb__wd_rank *ranks, int n,
                                   const char (*names)[96]) {
  int *late = malloc(sizeof *late * (size_t)(n > 0 ? n : 1));
  int k = late != NULL ? gcb__watchdog_laggards(ranks, n, late) : 0;
  buf[0] = '\0';
  append(buf, len, "%s %s did not finish within %g s; ", bench, label,
         timeout_s);
  append(buf, len,
         k == n && n > 1 ? "no rank is behind, still inside it: "
                         : "not finished: ");
  for (int i = 0; i < k && i < NAMED_MAX; i++) {
    if (i > 0)
      append(buf, len, ", ");
    gcb__wd_name_rank(buf, len, late[i], names, &ranks[late[i]]);
  }
  if (k > NAMED_MAX)
    append(buf, len, " and %d more", k - NAMED_MAX);
  free(late);
}

static _Noreturn void timeout_rank0(struct gcb_watchdog *w,
                                    const struct armed_case *a) {
  struct gcb__wd_msg mine = own_progress(w, GCB__WD_PROGRESS);
  w->ranks[0] = (struct gcb__wd_rank){
      .heard = true, .seq = mine.a, .step = mine.b, .phase = mine.phase};
  char message[1536];
  /* The limit the case had: a burn's --duration is added to --timeout
   * (gcb_watchdog_extend), and "within 3 s" of a 30 s burn misleads. */
  gcb__watchdog_timeout_message(message, sizeof message, a->bench, a->desc,
                                a->limit, w->ranks, w->size,
                                w->opts.rank_names);
  /* The errors[] entry names the rank when exactly one is behind. */
  int *late = malloc(sizeof *late * (size_t)w->size), rank = -1;
  if (late != NULL && gcb__watchdog_laggards(w->ranks, w->size, late) == 1)
    rank = late[0];
  free(late);
  end_run(w, GCB_ETIMEOUT, "timeout", rank, a->bench, a->label, message);
}

/* Rank 0 ends the run past the deadline; the others a grace period
 * later, where rank 0 cannot. */
static bool soft_hold(struct gcb_watchdog *w, double now);

/* The deadline of a case that ends itself (gcb_watchdog_soft): asked
 * there, the end waits for the case's record, then is a timeout. True
 * while that holds the end back. */
static bool soft_deadline(struct gcb_watchdog *w, double now) {
  bool hold = soft_hold(w, now);
  w->soft_timeout = w->soft_timeout || hold;
  return hold;
}

static void check_deadline(struct gcb_watchdog *w, double now) {
  struct armed_case a;
  armed(w, &a);
  if (w->soft_timeout) { /* the case and its label are kept until then */
    if (!soft_deadline(w, now) && w->rank == 0)
      timeout_rank0(w, &a);
    return;
  }
  if (a.deadline <= 0)
    return;
  if (w->rank == 0) {
    if (now > a.deadline && !soft_deadline(w, now))
      timeout_rank0(w, &a);
    return;
  }
  /* Rank 0 ends the run at its deadline; this is for a rank 0 that
   * cannot (frozen, unreachable). A case that ends itself is asked at
   * this rank's own deadline and given its grace. */
  double grace = 5 + 0.1 * w->opts.timeout_s;
  if (now > a.deadline && soft_deadline(w, now))
    return;
  if (now > a.deadline + grace) {
    char line[512];
    snprintf(line, sizeof line,
             "timeout: rank %d: %s %s did not finish within %g s and rank 0 "
             "did not end the run; ending this rank",
             w->rank, a.bench, a.desc, a.limit);
    say(w, "error", line);
    _exit(gcb_status_exit_code(GCB_ETIMEOUT));
  }
}

/* ---- signals --------------------------------------------------------------*/

/* SIGINT and SIGTERM (Ctrl-C; a batch system's time limit, which mpiexec
 * forwards), SIGPIPE (whoever read the output is gone: `gcbench ... |
 * head`) and SIGUSR1 (MPICH's launcher, run with -disable-auto-cleanup,
 * saying that a process ended abnormally) only write a byte to the
 * watchdog's wake pipe: the thread records and ends the run, never the
 * handler. The handlers replaced come back at stop; the one SIGUSR1
 * replaced (MPICH installs one) is called in turn. Here is the one piece
 * of process-wide state the watchdog needs: a handler has no argument to
 * find its watchdog by. */

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
static void signals_install(struct gcb_watchdog *w, bool usr1) {
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

static void signals_restore(struct gcb_watchdog *w) {
  if (w->usr1)
    sigaction(SIGUSR1, &chained, NULL);
  for (size_t i = 0; w->stops && i < NSTOPS; i++)
    sigaction(stops[i].sig, &stops[i].before, NULL);
  if (w->usr1 || w->stops)
    signal_fd = -1;
}

/* Empties the wake pipe; notes the launcher's word of an ended process. */
static void drain(struct gcb_watchdog *w, double now) {
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
/* A stop signal during a case that ends itself (gcb_watchdog_soft): asks
 * it, and holds the end of the run until it is recorded or its grace has
 * passed. True while held. */
static bool soft_hold(struct gcb_watchdog *w, double now) {
  pthread_mutex_lock(&w->lock);
  bool hold = false;
  if (w->soft_flag != NULL) {
    if (w->soft_asked == 0) {
      w->soft_asked = now;
      atomic_store(w->soft_flag, 1);
    }
    hold = now < w->soft_asked + w->soft_grace;
  } else if (w->soft_done) {
    /* recorded: the grace of a rank that waits for rank 0 starts now */
    w->soft_done = false;
    w->soft_asked = 0;
    w->soft_kept = true;
    w->signal_at = w->signal_at > 0 ? now : 0;
  }
  pthread_mutex_unlock(&w->lock);
  return hold;
}

static void check_signal(struct gcb_watchdog *w, double now) {
  if (w->stop_signal == 0)
    return;
  if (soft_hold(w, now)) {
    if (w->rank != 0 && w->signal_at > 0 && w->fd >= 0 && !w->signal_told) {
      struct gcb__wd_msg m = {.type = GCB__WD_SIGNAL,
                              .a = (uint32_t)w->stop_signal};
      w->signal_told = tell0(w, &m);
    }
    return;
  }
  const char *name = stop_name(w->stop_signal);
  int code = 128 + w->stop_signal;
  struct armed_case a;
  armed(w, &a);
  if (w->rank == 0) {
    char message[512] = "";
    append(message, sizeof message, "rank %d received %s", w->signal_rank,
           name);
    if (a.bench[0] != '\0')
      append(message, sizeof message, " %s %s %s%s",
             a.active || w->soft_kept ? "during" : "after", a.bench, a.desc,
             w->soft_kept ? " (it stopped at a boundary and is recorded)" : "");
    /* a case that stopped at a boundary (a burn) is the one the signal
     * ended, as the message says */
    end_run_as(w, GCB_EINTR, "interrupted", code, "interrupted", -1, a.bench,
               a.active || w->soft_kept ? a.label : "(between cases)",
               message);
  }
  if (w->signal_at > 0 && w->fd >= 0 && !w->signal_told) {
    struct gcb__wd_msg m = {.type = GCB__WD_SIGNAL,
                            .a = (uint32_t)w->stop_signal};
    w->signal_told = tell0(w, &m);
  }
  if (w->signal_at > 0 && now > w->signal_at + SIGNAL_GRACE_S) {
    char line[256];
    snprintf(line, sizeof line,
             "interrupted: rank %d received %s and rank 0 did not end the "
             "run; ending this rank",
             w->rank, name);
    say(w, "error", line);
    _exit(code);
  }
}

/* The launcher said a process ended. Rank 0 names it from its closed
 * connection, which normally arrives first; failing that, the ranks it
 * has no connection from (the one, where there is one, goes into the
 * document). The others wait for rank 0. */
static void check_failed(struct gcb_watchdog *w, double now) {
  if (w->peer_failed == 0 || now < w->peer_failed + FAILED_GRACE_S)
    return;
  if (w->rank != 0 && now < w->peer_failed + 2 * FAILED_GRACE_S + 1)
    return;
  struct armed_case a;
  armed(w, &a);
  char message[1024];
  snprintf(message, sizeof message,
           "%sa process of the job ended (the launcher said so)%s%s%s%s",
           w->rank == 0 ? "" : "rank 0 did not end the run: ",
           a.bench[0] ? (a.active ? " during " : " after ") : "", a.bench,
           a.bench[0] ? " " : "", a.desc);
  if (w->rank == 0) {
    int first = -1;
    size_t at = strlen(message);
    append(message, sizeof message,
           "; rank 0's watchdog has no connection from ");
    int n = name_unconnected(w, message, sizeof message, &first);
    if (n == 0)
      message[at] = '\0';
    end_run(w, GCB_EMPI, "rank died", n == 1 ? first : -1, a.bench, a.label,
            message);
  }
  char line[1100];
  snprintf(line, sizeof line, "rank %d: %s", w->rank, message);
  say(w, "error", line);
  _exit(gcb_status_exit_code(GCB_EMPI));
}

/* ---- where rank 0 listens -------------------------------------------------*/

/* Only on the interfaces the ranks use. With every rank on rank 0's node,
 * loopback alone. Otherwise every rank tells rank 0 its IPv4 addresses
 * (through MPI, once, at start); rank 0 listens on loopback for the ranks
 * of its own node and on each of its addresses that shares a subnet with
 * a rank of another node. Where none does (routed networks), it listens
 * on every interface: the connections are authenticated either way. */

/* One rank's IPv4 interfaces, as it sends them to rank 0. */
struct iface {
  int32_t node; /* its node index */
  int32_t n;
  uint32_t addr[GCB__WD_MAX_ADDRS], mask[GCB__WD_MAX_ADDRS]; /* net order */
};

/* This process's IPv4 addresses: up, not loopback. */
static void interfaces(struct iface *o) {
  struct ifaddrs *list = NULL;
  if (getifaddrs(&list) != 0)
    return;
  for (struct ifaddrs *i = list; i != NULL && o->n < GCB__WD_MAX_ADDRS;
       i = i->ifa_next)
    if (i->ifa_addr != NULL && i->ifa_netmask != NULL &&
        i->ifa_addr->sa_family == AF_INET && !(i->ifa_flags & IFF_LOOPBACK) &&
        (i->ifa_flags & IFF_UP)) {
      o->addr[o->n] = ((const struct sockaddr_in *)(const void *)i->ifa_addr)
                          ->sin_addr.s_addr;
      o->mask[o->n++] =
          ((const struct sockaddr_in *)(const void *)i->ifa_netmask)
              ->sin_addr.s_addr;
    }
  freeifaddrs(list);
}

/* A listening socket on addr (network order), its port in *port; -1 when
 * it cannot be made. The backlog holds every rank of the job connecting
 * at once (the kernel caps it at net.core.somaxconn; past that a rank
 * whose connection is not taken dials again). */
static int listen_on(uint32_t addr, int backlog, uint16_t *port) {
  struct sockaddr_in sa = {.sin_family = AF_INET};
  sa.sin_addr.s_addr = addr;
  socklen_t len = sizeof sa;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
      listen(fd, backlog) != 0 ||
      getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  *port = ntohs(sa.sin_port);
  return fd;
}

static bool add_listener(struct gcb_watchdog *w, uint32_t addr,
                         uint16_t *port) {
  int backlog = w->size < INT_MAX - GCB__WD_SPARE_CONNS
                    ? w->size + GCB__WD_SPARE_CONNS
                    : INT_MAX;
  if (backlog < SOMAXCONN)
    backlog = SOMAXCONN;
  int fd =
      w->nlisten < GCB__WD_MAX_LISTEN ? listen_on(addr, backlog, port) : -1;
  if (fd >= 0)
    w->listen[w->nlisten++] = fd;
  return fd >= 0;
}

/* Whether own address a/ma and one of peer's lie on one subnet. */
static bool same_subnet(uint32_t a, uint32_t ma, const struct iface *peer) {
  for (int j = 0; j < peer->n && j < GCB__WD_MAX_ADDRS; j++)
    if ((a & ma) == (peer->addr[j] & ma) &&
        (a & peer->mask[j]) == (peer->addr[j] & peer->mask[j]))
      return true;
  return false;
}

/* Rank 0 keeps a connection per rank: make room under the file limit. */
static void raise_fd_limit(int size) {
  struct rlimit rl;
  rlim_t want = (rlim_t)size + GCB__WD_SPARE_CONNS + 64;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
    rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

/* Rank 0, with every rank's interfaces (NULL: every rank on its node). */
static void choose(struct gcb_watchdog *w, const struct iface *all,
                   const char *hostname) {
  struct gcb__wd_where *o = &w->where0;
  bool local = all == NULL, remote = false;
  for (int r = 1; all != NULL && r < w->size; r++)
    *(all[r].node == all[0].node ? &local : &remote) = true;
  if (local)
    add_listener(w, htonl(INADDR_LOOPBACK), &o->loopback_port);
  const struct iface *mine = all != NULL ? &all[0] : NULL;
  for (int i = 0; remote && i < mine->n; i++) {
    bool used = false;
    for (int r = 1; r < w->size && !used; r++)
      used = all[r].node != mine->node &&
             same_subnet(mine->addr[i], mine->mask[i], &all[r]);
    if (used && add_listener(w, mine->addr[i], &o->ports[o->naddrs]))
      o->addrs[o->naddrs++] = mine->addr[i];
  }
  if (remote && o->naddrs == 0 &&
      add_listener(w, htonl(INADDR_ANY), &o->any_port)) {
    for (int i = 0; i < mine->n; i++, o->naddrs++) {
      o->addrs[o->naddrs] = mine->addr[i];
      o->ports[o->naddrs] = o->any_port;
    }
    snprintf(o->host, sizeof o->host, "%s", hostname);
  }
  raise_fd_limit(w->size);
}

/* Where rank 0 listens (collective over the world). */
static enum gcb_status listen_where(struct gcb_watchdog *w,
                                    struct gcb_ctx *ctx) {
  if (ctx->node_count <= 1) {
    if (ctx->rank == 0)
      choose(w, NULL, ctx->hostname);
    return GCB_OK;
  }
  struct iface mine = {.node = ctx->node_index};
  interfaces(&mine);
  struct iface *all = NULL;
  enum gcb_status st = GCB_OK;
  if (ctx->rank == 0 && (all = calloc((size_t)ctx->size, sizeof *all)) == NULL)
    st = gcb_err_set(&ctx->err, GCB_ENOMEM, "watchdog: out of memory");
  /* Every rank gathers, or none does. */
  if ((st = gcb_context_agree(ctx, st)) != GCB_OK)
    return st;
  int rc = MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine,
                      MPI_BYTE, 0, ctx->world);
  if (rc == MPI_SUCCESS && ctx->rank == 0)
    choose(w, all, ctx->hostname);
  free(all);
  return rc == MPI_SUCCESS
             ? GCB_OK
             : gcb_err_set(&ctx->err, GCB_EMPI,
                           "MPI_Gather of the ranks' interfaces failed");
}

/* ---- rank 0's side of the connections ------------------------------------*/

/* A new connection must prove itself with its first message, a hello
 * sealed with the run's secret for a rank that has no connection yet,
 * within a couple of seconds; anything else is closed and changes
 * nothing. The hello is read the moment the connection is accepted (a
 * rank sends it as soon as it has connected), so that a whole job's worth
 * of ranks queued in the backlog is admitted in one pass. The table is
 * bounded (a connection per rank and a few more) and never refuses a
 * newcomer: when it is full, the connection that has waited longest for
 * its hello makes room, so that idle connections of another process
 * cannot lock a rank out (and a rank whose connection was closed dials
 * again). Closed connections leave the table, and an accept error such as
 * EMFILE pauses accepting instead of spinning. A rank whose authenticated
 * connection closes without a goodbye is named at once; ranks still not
 * heard a few seconds into the run are named in one line. */

static void drop(struct gcb_watchdog *w, struct gcb__wd_conn *c) {
  close(c->fd);
  c->fd = -1;
  if (c->rank >= 0)
    w->peers[c->rank].connected = false;
}

static _Noreturn void dead_rank0(struct gcb_watchdog *w, int r) {
  w->ranks[r].dead = true;
  struct armed_case a;
  armed(w, &a);
  char message[1024] = "";
  gcb__wd_name_rank(message, sizeof message, r, w->opts.rank_names,
                    &w->ranks[r]);
  if (a.bench[0] != '\0')
    append(message, sizeof message, " %s %s %s", a.active ? "during" : "after",
           a.bench, a.desc);
  append(message, sizeof message, " (its process ended without a goodbye)");
  end_run(w, GCB_EMPI, "rank died", r, a.bench, a.label, message);
}

/* An unauthenticated connection's first message: a sealed hello from a
 * rank without a connection, newer than anything that rank sent. */
static bool admit(struct gcb_watchdog *w, struct gcb__wd_conn *c,
                  const struct gcb__wd_msg *m) {
  if (!authentic(w, m, GCB__WD_TO0) || m->type != GCB__WD_HELLO ||
      m->rank == 0 || m->rank >= (uint32_t)w->size)
    return false;
  struct gcb__wd_peer *p = &w->peers[m->rank];
  if (p->connected || p->bye || m->counter <= p->rx)
    return false;
  c->rank = (int)m->rank;
  p->connected = true;
  return true;
}

/* One whole message; false when the connection is to be dropped. */
static bool handle(struct gcb_watchdog *w, struct gcb__wd_conn *c,
                   const struct gcb__wd_msg *m) {
  if (c->rank < 0 && !admit(w, c, m))
    return false;
  struct gcb__wd_peer *p = &w->peers[c->rank];
  /* On an authenticated connection a bad message is ignored: only a
   * process of the run could have opened it. */
  if (!authentic(w, m, GCB__WD_TO0) || m->rank != (uint32_t)c->rank ||
      (m->counter <= p->rx && m->type != GCB__WD_HELLO))
    return true;
  p->rx = m->counter;
  struct gcb__wd_rank *r = &w->ranks[c->rank];
  if (m->type == GCB__WD_BYE)
    c->bye = p->bye = true;
  if (m->type == GCB__WD_SIGNAL && w->stop_signal == 0 &&
      gcb__wd_stop_signal_known((int)m->a)) {
    w->stop_signal = (int)m->a;
    w->signal_rank = c->rank;
  }
  if (m->type == GCB__WD_HELLO || m->type == GCB__WD_PROGRESS)
    *r = (struct gcb__wd_rank){
        .heard = true, .seq = m->a, .step = m->b, .phase = m->phase};
  if (m->type == GCB__WD_HELLO)
    r->seq = 0, r->step = 0;
  return true;
}

/* Reads what one connection has; closes it at its end or when it fails
 * to prove itself. */
static void read_conn(struct gcb_watchdog *w, struct gcb__wd_conn *c) {
  struct gcb__wd_msg m;
  int rc;
  while ((rc = recv_msg(c->fd, c->buf, &c->got, &m)) == 1)
    if (!handle(w, c, &m)) {
      drop(w, c);
      return;
    }
  if (rc < 0) {
    int rank = c->rank;
    bool bye = c->bye;
    drop(w, c);
    if (rank > 0 && !bye)
      dead_rank0(w, rank);
  }
}

/* A slot for a new connection: the end of the table, a closed entry, or
 * the entry of the connection that has waited longest for its hello,
 * closed for it; NULL when every entry is an authenticated rank's. */
static struct gcb__wd_conn *slot(struct gcb_watchdog *w) {
  if (w->nconns < w->capconns)
    return &w->conns[w->nconns++];
  struct gcb__wd_conn *oldest = NULL;
  for (int i = 0; i < w->nconns; i++) {
    struct gcb__wd_conn *c = &w->conns[i];
    if (c->fd < 0)
      return c;
    if (c->rank < 0 && (oldest == NULL || c->since < oldest->since))
      oldest = c;
  }
  if (oldest != NULL)
    drop(w, oldest);
  return oldest;
}

static void accept_from(struct gcb_watchdog *w, int lfd, double now) {
  for (int k = 0; k < ACCEPT_BURST; k++) {
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0 && (errno == EINTR || errno == ECONNABORTED || errno == EPROTO))
      continue;
    if (fd < 0) {
      /* Out of descriptors or memory: the backlog stays readable, so
       * wait before trying again rather than spin on the error. */
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        w->listen_pause = now + LISTEN_PAUSE_S;
      return;
    }
    struct gcb__wd_conn *c = slot(w);
    if (c == NULL) {
      close(fd);
      continue;
    }
    *c = (struct gcb__wd_conn){.fd = fd, .rank = -1, .since = now};
    read_conn(w, c); /* the hello, where it has come with the connection */
  }
}

/* Closes connections that never said hello in time; keeps the table
 * dense. */
static void sweep(struct gcb_watchdog *w, double now) {
  int k = 0;
  for (int i = 0; i < w->nconns; i++) {
    struct gcb__wd_conn *c = &w->conns[i];
    if (c->fd >= 0 && c->rank < 0 && now > c->since + GCB__WD_HELLO_WAIT_S)
      drop(w, c);
    if (c->fd >= 0)
      w->conns[k++] = *c;
  }
  w->nconns = k;
}

/* Names, once, the ranks not heard from a few seconds into the run: they
 * keep dialling, and a timeout names them as silent. */
static void name_unheard(struct gcb_watchdog *w, double now) {
  if (w->unheard_said || w->size < 2 ||
      now < w->started_at + GCB__WD_ADMIT_WAIT_S)
    return;
  w->unheard_said = true;
  char line[1024] = "the watchdog has no connection from ";
  int first, n = name_unconnected(w, line, sizeof line, &first);
  append(line, sizeof line,
         " after %g s; still listening (a rank not heard from when "
         "the run stops is named as silent)",
         GCB__WD_ADMIT_WAIT_S);
  if (n > 0)
    say(w, "warning", line);
}

void gcb__wd_serve(struct gcb_watchdog *w, int wait_ms) {
  struct pollfd *p =
      calloc(1 + GCB__WD_MAX_LISTEN + (size_t)w->nconns, sizeof *p);
  if (p == NULL) {
    poll(NULL, 0, wait_ms);
    return;
  }
  double now = gcb_now_s();
  int nl = now >= w->listen_pause ? w->nlisten : 0, n = w->nconns;
  p[0] = (struct pollfd){.fd = w->wake[0], .events = POLLIN};
  for (int i = 0; i < nl; i++)
    p[1 + i] = (struct pollfd){.fd = w->listen[i], .events = POLLIN};
  for (int i = 0; i < n; i++)
    p[1 + nl + i] = (struct pollfd){.fd = w->conns[i].fd, .events = POLLIN};
  if (poll(p, (nfds_t)(1 + nl + n), wait_ms) > 0) {
    now = gcb_now_s();
    for (int i = 0; i < n; i++)
      if (p[1 + nl + i].revents && w->conns[i].fd >= 0)
        read_conn(w, &w->conns[i]);
    for (int i = 0; i < nl; i++)
      if (p[1 + i].revents)
        accept_from(w, w->listen[i], now);
  }
  free(p);
  now = gcb_now_s();
  sweep(w, now);
  name_unheard(w, now);
}

/* ---- every other rank's side ---------------------------------------------*/

/* It connects to rank 0's watchdog (loopback on rank 0's node, else each
 * address rank 0 listens on, then its host name where it listens on every
 * interface), says a sealed hello, sends its progress whenever it
 * changes, at most once per tick, and ends when rank 0 says so in a
 * message sealed for this rank. A dial that fails, and a connection that
 * rank 0 closes (it had no room, or it never took the connection from its
 * backlog), are tried again after a back-off that doubles up to a few
 * seconds, spread at random so that the ranks of a large job do not dial
 * in step; until then this rank is silent, never the run broken. */

static int dial(const struct sockaddr *sa, socklen_t len) {
  int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct timeval tv = {.tv_sec = 1};
  int one = 1;
  if (fd < 0)
    return -1;
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (connect(fd, sa, len) != 0) {
    close(fd);
    return -1;
  }
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

static int dial_ipv4(uint32_t addr, uint16_t port) {
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
  sa.sin_addr.s_addr = addr;
  return dial((const struct sockaddr *)&sa, sizeof sa);
}

static int dial_host(const char *host, uint16_t port) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *res = NULL;
  char service[8];
  snprintf(service, sizeof service, "%u", port);
  if (host[0] == '\0' || getaddrinfo(host, service, &hints, &res) != 0)
    return -1;
  int fd = -1;
  for (struct addrinfo *a = res; a != NULL && fd < 0; a = a->ai_next)
    fd = dial(a->ai_addr, a->ai_addrlen);
  freeaddrinfo(res);
  return fd;
}

static int dial_rank0(const struct gcb_watchdog *w) {
  const struct gcb__wd_where *o = &w->where0;
  int fd = w->near0 && o->loopback_port
               ? dial_ipv4(htonl(INADDR_LOOPBACK), o->loopback_port)
               : -1;
  for (int i = 0; fd < 0 && i < o->naddrs && i < GCB__WD_MAX_ADDRS; i++)
    fd = dial_ipv4(o->addrs[i], o->ports[i]);
  if (fd < 0 && o->any_port)
    fd = dial_host(o->host, o->any_port);
  return fd;
}

/* The next dial: the back-off, spread over its upper half at random
 * (a 64-bit linear congruential step), then doubled for the one after. */
static void retry_later(struct gcb_watchdog *w, double now) {
  w->jitter = w->jitter * 6364136223846793005ULL + 1442695040888963407ULL;
  double u = (double)(w->jitter >> 11) / 9007199254740992.0; /* [0, 1) */
  w->next_try = now + w->retry * (0.5 + 0.5 * u);
  w->retry = w->retry * 2 < RETRY_MAX_S ? w->retry * 2 : RETRY_MAX_S;
}

static void connect_rank0(struct gcb_watchdog *w, double now) {
  int fd = dial_rank0(w);
  if (fd < 0) {
    retry_later(w, now);
    return;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  w->fd = fd;
  struct gcb__wd_msg hello = {.type = GCB__WD_HELLO};
  if (!tell0(w, &hello)) {
    close(fd);
    w->fd = -1;
    retry_later(w, now);
    return;
  }
  w->sent = (struct gcb__wd_msg){0};
}

/* Rank 0's word, if it is rank 0's and for this rank. */
static void take(struct gcb_watchdog *w, const struct gcb__wd_msg *m) {
  if (!authentic(w, m, GCB__WD_FROM0) || m->rank != (uint32_t)w->rank ||
      m->counter <= w->rx)
    return;
  w->rx = m->counter;
  if (m->type == GCB__WD_ABORT)
    end_after_rank0(w, (int)m->a);
}

static void report(struct gcb_watchdog *w, int wait_ms) {
  double now = gcb_now_s();
  if (w->fd < 0 && !w->gone && now >= w->next_try)
    connect_rank0(w, now);
  if (w->fd >= 0) {
    struct gcb__wd_msg m = own_progress(w, GCB__WD_PROGRESS);
    if ((m.a != w->sent.a || m.b != w->sent.b || m.phase != w->sent.phase) &&
        tell0(w, &m))
      w->sent = m;
  }
  struct pollfd p[2] = {{.fd = w->wake[0], .events = POLLIN},
                        {.fd = w->fd, .events = POLLIN}};
  if (poll(p, w->fd >= 0 ? 2 : 1, wait_ms) <= 0 || w->fd < 0 || !p[1].revents)
    return;
  struct gcb__wd_msg m;
  int rc;
  while ((rc = recv_msg(w->fd, w->buf, &w->got, &m)) == 1)
    take(w, &m);
  if (rc < 0) { /* rank 0 had no room, or is ending: dial again */
    close(w->fd);
    w->fd = -1;
    w->got = 0;
    retry_later(w, gcb_now_s());
  }
}

/* The goodbye must go: the connection turns blocking for it. */
static void goodbye(struct gcb_watchdog *w) {
  if (w->fd < 0)
    return;
  int flags = fcntl(w->fd, F_GETFL);
  fcntl(w->fd, F_SETFL, flags & ~O_NONBLOCK);
  struct gcb__wd_msg bye = {.type = GCB__WD_BYE};
  (void)tell0(w, &bye);
  close(w->fd);
  w->fd = -1;
}

/* ---- the thread, its start and stop --------------------------------------*/

/* How long the thread may wait for its descriptors: a tick, or less when
 * the armed deadline is nearer, so that a deadline under a tick is kept
 * too. */
static int wait_ms(struct gcb_watchdog *w) {
  pthread_mutex_lock(&w->lock);
  double deadline = w->deadline;
  pthread_mutex_unlock(&w->lock);
  double left = deadline > 0 ? 1e3 * (deadline - gcb_now_s()) + 1 : 1e9;
  return left < 1 ? 1 : left < GCB__WD_TICK_MS ? (int)left : GCB__WD_TICK_MS;
}

static void *run(void *arg) {
  struct gcb_watchdog *w = arg;
  while (!atomic_load(&w->stopping)) {
    if (w->rank == 0)
      gcb__wd_serve(w, wait_ms(w));
    else
      report(w, wait_ms(w));
    if (atomic_load(&w->stopping))
      break;
    double now = gcb_now_s();
    drain(w, now);
    check_signal(w, now);
    check_failed(w, now);
    check_deadline(w, now);
  }
  return NULL;
}

void gcb_watchdog_stop(struct gcb_watchdog *w) {
  if (w == NULL)
    return;
  atomic_store(&w->stopping, 1);
  signals_restore(w);
  if (w->started) {
    ssize_t rc = write(w->wake[1], "", 1);
    (void)rc;
    pthread_join(w->thread, NULL);
  }
  goodbye(w);
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
  /* Bounded from the start: a connection per rank and a few more. */
  w->capconns = ctx->size - 1 + GCB__WD_SPARE_CONNS;
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
  if (ctx->rank == 0 && !new_key(w->where0.key))
    st = gcb_err_set(&ctx->err, GCB_EIO,
                     "watchdog: no random bytes for the run's secret");
  if (ctx->size > 1 && (st = gcb_context_agree(ctx, st)) == GCB_OK)
    st = listen_where(w, ctx);
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
  w->started_at = gcb_now_s();
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
  signals_install(w, ctx->size > 1);
  *out = w;
  return GCB_OK;
}
