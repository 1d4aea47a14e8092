/*
 * The watchdog (see watchdog.h): a thread per rank with the armed case's
 * deadline, the progress connection between every rank's watchdog and rank
 * 0's, and the one line that ends a stuck run.
 *
 * The connection is plain TCP, set up at start: rank 0 listens on an
 * ephemeral port and broadcasts its port, addresses and hostname; the
 * others connect from their watchdog thread (loopback on rank 0's node),
 * say hello, and send their progress whenever it changes, at most once per
 * tick. A connection that fails leaves that rank silent, never the run
 * broken. Messages are 16 bytes in host order: every rank runs the same
 * binary.
 */
#define _GNU_SOURCE /* getifaddrs, accept4, pipe2, MSG_NOSIGNAL */
#include "bench/run/watchdog.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TICK_MS 100
#define MAX_ADDRS 4
#define NAMED_MAX 8
#define RETRY_MIN_S 1.0
#define RETRY_MAX_S 30.0
#define ABORT_WAIT_MS 3000
#define FAILED_GRACE_S                                                         \
  2.0 /* after the launcher's word, for the culprit's EOF */

#define SIGNAL_GRACE_S 5.0 /* a rank's wait for rank 0 after a signal */

enum msg_type { MSG_HELLO = 1, MSG_PROGRESS, MSG_BYE, MSG_ABORT, MSG_SIGNAL };

struct msg {
  uint8_t type, phase;
  uint16_t pad;
  uint32_t a; /* HELLO: rank; PROGRESS: seq; ABORT: exit code; SIGNAL:
                 the signal number */
  uint64_t b; /* PROGRESS: step */
};

/* Where rank 0's watchdog listens; broadcast at start. */
struct where {
  uint16_t port; /* 0: rank 0 could not listen */
  int32_t naddrs;
  uint32_t addrs[MAX_ADDRS]; /* IPv4, network order */
  char host[256];
};

/* Rank 0: one accepted connection. */
struct conn {
  int fd;
  int rank; /* -1 until its hello */
  bool bye;
  size_t got;
  unsigned char buf[sizeof(struct msg)];
};

struct gcb_watchdog {
  int rank, size;
  bool near0; /* on rank 0's node */
  struct gcb_watchdog_opts opts;
  pthread_t thread;
  bool started;
  int wake[2];
  atomic_int stopping;
  bool usr1;          /* our SIGUSR1 handler is installed */
  bool stops;         /* our SIGINT and SIGTERM handlers are installed */
  double peer_failed; /* when the launcher said a process ended; 0: never */
  int stop_signal;    /* SIGINT or SIGTERM received (rank 0: by any rank) */
  int signal_rank;    /* which rank received it */
  double signal_at;   /* when this rank received it; 0: not yet */
  bool signal_told;   /* rank 0 has been told */

  /* The armed case, written by the watched thread under lock. */
  pthread_mutex_t lock;
  char bench[32];
  char label[128]; /* for the document: the case's label, "set-up" */
  char desc[160];  /* for the line: "case 'label'", "set-up" */
  double deadline; /* CLOCK_MONOTONIC seconds; 0: none (disarmed, or no
                      --timeout) */
  bool active;     /* armed: inside a case or a set-up */

  /* This rank's progress: the watched thread writes, the thread reads. */
  atomic_uint seq;
  atomic_ullong step;
  atomic_int phase;

  /* Rank 0. */
  int listen_fd;
  struct conn *conns;
  int nconns, capconns;
  struct gcb__wd_rank *ranks;

  /* Other ranks. */
  struct where where0;
  int fd;
  bool gone; /* rank 0 closed the connection or never listened */
  double next_try, retry;
  struct msg sent;
  size_t got;
  unsigned char buf[sizeof(struct msg)];
};

static _Thread_local struct gcb_watchdog *watched;

/* For the SIGUSR1 handler: the wake pipe's write end, and the handler it
 * replaced (MPICH installs one), which it calls in turn. MPICH's launcher
 * run with -disable-auto-cleanup tells the processes left that one has
 * ended abnormally by SIGUSR1. */
static volatile sig_atomic_t signal_fd = -1;
static struct sigaction chained;

/* SIGINT and SIGTERM (Ctrl-C; a batch system's time limit, which mpiexec
 * forwards) only say so through the same pipe: the watchdog thread
 * records and ends the run, never the handler. The handlers they replace
 * come back at stop. */
static struct sigaction before_int, before_term;

static void on_stop_signal(int sig) {
  int saved = errno;
  if (signal_fd >= 0) {
    ssize_t rc = write(signal_fd, sig == SIGINT ? "I" : "T", 1);
    (void)rc;
  }
  errno = saved;
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

static const char *const phase_names[] = {
#define GCB__WD_NAME(id, words) words,
    GCB_WATCHDOG_PHASE_LIST(GCB__WD_NAME)
#undef GCB__WD_NAME
};

const char *gcb_watchdog_phase_name(int phase) {
  return phase >= 0 && phase < GCB_WD_PHASE_COUNT ? phase_names[phase] : "?";
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- naming who had not finished ---------------------------------------- */

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

static void name_rank(char *buf, size_t len, int r, const char (*names)[96],
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
    name_rank(buf, len, late[i], names, &ranks[late[i]]);
  }
  if (k > NAMED_MAX)
    append(buf, len, " and %d more", k - NAMED_MAX);
  free(late);
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
  w->deadline = w->opts.timeout_s > 0 ? now_s() + w->opts.timeout_s : 0;
  w->active = true;
  atomic_fetch_add_explicit(&w->seq, 1, memory_order_relaxed);
  atomic_store_explicit(&w->step, 0, memory_order_relaxed);
  pthread_mutex_unlock(&w->lock);
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

void gcb_watchdog_step(void) {
  if (watched != NULL)
    atomic_fetch_add_explicit(&watched->step, 1, memory_order_relaxed);
}

/* ---- messages -------------------------------------------------------------*/

static bool send_msg(int fd, const struct msg *m) {
  return send(fd, m, sizeof *m, MSG_NOSIGNAL | MSG_DONTWAIT) ==
         (ssize_t)sizeof *m;
}

/* Reads what fd has into buf; 1 when a whole message is there (copied to
 * *m), 0 when more is to come, -1 on end of file or error. */
static int recv_msg(int fd, unsigned char *buf, size_t *got, struct msg *m) {
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

static struct msg own_progress(struct gcb_watchdog *w, uint8_t type) {
  return (struct msg){
      .type = type,
      .phase = (uint8_t)atomic_load_explicit(&w->phase, memory_order_relaxed),
      .a = atomic_load_explicit(&w->seq, memory_order_relaxed),
      .b = atomic_load_explicit(&w->step, memory_order_relaxed)};
}

/* ---- ending the process --------------------------------------------------*/

/* The final line on stderr in one write, after what the table printed. */
static void say(const char *line) {
  if (ftrylockfile(stdout) == 0) {
    fflush(stdout);
    funlockfile(stdout);
  }
  char buf[2048];
  int n = snprintf(buf, sizeof buf, "%sgcbench: error: %s\n",
                   isatty(STDERR_FILENO) ? "\r\033[K" : "", line);
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
  say(line);
  /* Only now the others: a launcher ends the whole job when the first
   * process ends, and that must not be another rank before this line. */
  struct msg abort = {.type = MSG_ABORT, .a = (uint32_t)exit_code};
  for (int i = 0; i < w->nconns; i++)
    if (w->conns[i].fd >= 0)
      (void)send_msg(w->conns[i].fd, &abort);
  _exit(exit_code);
}

/* A timeout or a dead rank: the status's own exit code. */
static _Noreturn void end_run(struct gcb_watchdog *w, enum gcb_status code,
                              const char *what, int rank, const char *bench,
                              const char *label, const char *message) {
  end_run_as(w, code, code == GCB_ETIMEOUT ? "timeout" : "failed",
             gcb_status_exit_code(code), what, rank, bench, label, message);
}

/* A copy of the armed case. */
struct armed {
  double deadline; /* 0: none */
  bool active;     /* inside a case or set-up */
  char bench[32], label[128], desc[160];
};

static void armed(struct gcb_watchdog *w, struct armed *a) {
  pthread_mutex_lock(&w->lock);
  a->deadline = w->deadline;
  a->active = w->active;
  memcpy(a->bench, w->bench, sizeof a->bench);
  memcpy(a->label, w->label, sizeof a->label);
  memcpy(a->desc, w->desc, sizeof a->desc);
  pthread_mutex_unlock(&w->lock);
}

static void timeout_rank0(struct gcb_watchdog *w, const struct armed *a) {
  struct msg mine = own_progress(w, MSG_PROGRESS);
  w->ranks[0] = (struct gcb__wd_rank){
      .heard = true, .seq = mine.a, .step = mine.b, .phase = mine.phase};
  char message[1536];
  gcb__watchdog_timeout_message(message, sizeof message, a->bench, a->desc,
                                w->opts.timeout_s, w->ranks, w->size,
                                w->opts.rank_names);
  /* The errors[] entry names the rank when exactly one is behind. */
  int *late = malloc(sizeof *late * (size_t)w->size), rank = -1;
  if (late != NULL && gcb__watchdog_laggards(w->ranks, w->size, late) == 1)
    rank = late[0];
  free(late);
  end_run(w, GCB_ETIMEOUT, "timeout", rank, a->bench, a->label, message);
}

static void check_deadline(struct gcb_watchdog *w, double now) {
  struct armed a;
  armed(w, &a);
  if (a.deadline <= 0)
    return;
  if (w->rank == 0) {
    if (now > a.deadline)
      timeout_rank0(w, &a);
    return;
  }
  /* Rank 0 ends the run at its deadline; this is for a rank 0 that
   * cannot (frozen, unreachable). */
  double grace = 5 + 0.1 * w->opts.timeout_s;
  if (now > a.deadline + grace) {
    char line[512];
    snprintf(line, sizeof line,
             "timeout: rank %d: %s %s did not finish within %g s and rank 0 "
             "did not end the run; ending this rank",
             w->rank, a.bench, a.desc, w->opts.timeout_s);
    say(line);
    _exit(gcb_status_exit_code(GCB_ETIMEOUT));
  }
}

/* ---- rank 0: serving the connections --------------------------------------*/

static void accept_all(struct gcb_watchdog *w) {
  for (;;) {
    int fd = accept4(w->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
      return;
    if (w->nconns == w->capconns) {
      int cap = w->capconns ? 2 * w->capconns : 16;
      struct conn *grown = realloc(w->conns, sizeof *grown * (size_t)cap);
      if (grown == NULL) {
        close(fd);
        return;
      }
      w->conns = grown;
      w->capconns = cap;
    }
    w->conns[w->nconns++] = (struct conn){.fd = fd, .rank = -1};
  }
}

static void dead_rank0(struct gcb_watchdog *w, int r) {
  w->ranks[r].dead = true;
  struct armed a;
  armed(w, &a);
  char message[1024] = "";
  name_rank(message, sizeof message, r, w->opts.rank_names, &w->ranks[r]);
  if (a.bench[0] != '\0')
    append(message, sizeof message, " %s %s %s", a.active ? "during" : "after",
           a.bench, a.desc);
  append(message, sizeof message, " (its process ended without a goodbye)");
  end_run(w, GCB_EMPI, "rank died", r, a.bench, a.label, message);
}

static void handle(struct gcb_watchdog *w, struct conn *c,
                   const struct msg *m) {
  if (m->type == MSG_HELLO && c->rank < 0 && m->a > 0 && (int)m->a < w->size)
    c->rank = (int)m->a;
  if (c->rank < 0)
    return;
  struct gcb__wd_rank *r = &w->ranks[c->rank];
  if (m->type == MSG_BYE)
    c->bye = true;
  if (m->type == MSG_SIGNAL && w->stop_signal == 0 &&
      (m->a == SIGINT || m->a == SIGTERM)) {
    w->stop_signal = (int)m->a;
    w->signal_rank = c->rank;
  }
  if (m->type == MSG_HELLO || m->type == MSG_PROGRESS)
    *r = (struct gcb__wd_rank){
        .heard = true, .seq = m->a, .step = m->b, .phase = m->phase};
  if (m->type == MSG_HELLO)
    r->seq = 0, r->step = 0;
}

static void serve(struct gcb_watchdog *w) {
  struct pollfd *p = calloc((size_t)w->nconns + 2, sizeof *p);
  if (p == NULL) {
    poll(NULL, 0, TICK_MS);
    return;
  }
  p[0] = (struct pollfd){.fd = w->wake[0], .events = POLLIN};
  p[1] = (struct pollfd){.fd = w->listen_fd, .events = POLLIN};
  for (int i = 0; i < w->nconns; i++)
    p[i + 2] = (struct pollfd){.fd = w->conns[i].fd, .events = POLLIN};
  int n = w->nconns;
  if (poll(p, (nfds_t)n + 2, TICK_MS) > 0) {
    for (int i = 0; i < n; i++) {
      struct conn *c = &w->conns[i];
      struct msg m;
      int rc = 0;
      while (c->fd >= 0 && p[i + 2].revents &&
             (rc = recv_msg(c->fd, c->buf, &c->got, &m)) == 1)
        handle(w, c, &m);
      if (rc < 0) {
        close(c->fd);
        c->fd = -1;
        if (c->rank > 0 && !c->bye)
          dead_rank0(w, c->rank);
      }
    }
    if (p[1].revents)
      accept_all(w);
  }
  free(p);
}

/* ---- other ranks: reporting -----------------------------------------------*/

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
  if (getaddrinfo(host, service, &hints, &res) != 0)
    return -1;
  int fd = -1;
  for (struct addrinfo *a = res; a != NULL && fd < 0; a = a->ai_next)
    fd = dial(a->ai_addr, a->ai_addrlen);
  freeaddrinfo(res);
  return fd;
}

/* Tries rank 0's addresses: loopback on its node, then each address it
 * gave, then its hostname. */
static void connect_rank0(struct gcb_watchdog *w, double now) {
  const struct where *o = &w->where0;
  int fd = w->near0 ? dial_ipv4(htonl(INADDR_LOOPBACK), o->port) : -1;
  for (int i = 0; fd < 0 && i < o->naddrs && i < MAX_ADDRS; i++)
    fd = dial_ipv4(o->addrs[i], o->port);
  if (fd < 0)
    fd = dial_host(o->host, o->port);
  if (fd < 0) {
    w->next_try = now + w->retry;
    w->retry = w->retry * 2 < RETRY_MAX_S ? w->retry * 2 : RETRY_MAX_S;
    return;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  struct msg hello = {.type = MSG_HELLO, .a = (uint32_t)w->rank};
  if (!send_msg(fd, &hello)) {
    close(fd);
    w->next_try = now + w->retry;
    return;
  }
  w->fd = fd;
  w->sent = (struct msg){0};
}

/* Rank 0 has said why, recorded it, and is ending: end quietly with its
 * exit code, once it has ended (its connection closes), so that the
 * launcher sees rank 0's end first and reports it, not this rank's; or
 * after a few seconds, where rank 0's end ends nothing (srun without
 * --kill-on-bad-exit). */
static _Noreturn void end_after_rank0(struct gcb_watchdog *w, int code) {
  struct pollfd p = {.fd = w->fd, .events = POLLIN};
  char buf[64];
  for (int waited = 0; waited < ABORT_WAIT_MS; waited += TICK_MS)
    if (poll(&p, 1, TICK_MS) > 0 && recv(w->fd, buf, sizeof buf, 0) <= 0)
      break;
  _exit(code);
}

static void report(struct gcb_watchdog *w) {
  double now = now_s();
  if (w->fd < 0 && !w->gone && now >= w->next_try)
    connect_rank0(w, now);
  if (w->fd >= 0) {
    struct msg m = own_progress(w, MSG_PROGRESS);
    if ((m.a != w->sent.a || m.b != w->sent.b || m.phase != w->sent.phase) &&
        send_msg(w->fd, &m))
      w->sent = m;
  }
  struct pollfd p[2] = {{.fd = w->wake[0], .events = POLLIN},
                        {.fd = w->fd, .events = POLLIN}};
  if (poll(p, w->fd >= 0 ? 2 : 1, TICK_MS) <= 0 || w->fd < 0 || !p[1].revents)
    return;
  struct msg m;
  int rc;
  while ((rc = recv_msg(w->fd, w->buf, &w->got, &m)) == 1)
    if (m.type == MSG_ABORT)
      end_after_rank0(w, (int)m.a);
  if (rc < 0) {
    close(w->fd);
    w->fd = -1;
    w->gone = true;
  }
}

/* ---- the thread -----------------------------------------------------------*/

/* Empties the wake pipe; notes the launcher's word of an ended process. */
static void drain(struct gcb_watchdog *w, double now) {
  char buf[64];
  ssize_t n;
  while ((n = read(w->wake[0], buf, sizeof buf)) > 0) {
    if (memchr(buf, 'U', (size_t)n) != NULL && w->peer_failed == 0)
      w->peer_failed = now;
    for (ssize_t i = 0; i < n && w->signal_at == 0; i++)
      if (buf[i] == 'I' || buf[i] == 'T') {
        /* Its own signal first: another rank's may be the same one,
         * forwarded to every rank by the launcher. */
        w->signal_at = now;
        w->stop_signal = buf[i] == 'I' ? SIGINT : SIGTERM;
        w->signal_rank = w->rank;
      }
  }
}

/* A signal asked the run to stop. Rank 0 records the run as interrupted,
 * naming the case that was running, and ends every rank with 128 + the
 * signal (the shell's convention); another rank tells rank 0 and waits
 * for it, ending itself a few seconds later if rank 0 cannot. */
static void check_signal(struct gcb_watchdog *w, double now) {
  if (w->stop_signal == 0)
    return;
  const char *name = w->stop_signal == SIGINT ? "SIGINT" : "SIGTERM";
  int code = 128 + w->stop_signal;
  struct armed a;
  armed(w, &a);
  if (w->rank == 0) {
    char message[512] = "";
    append(message, sizeof message, "rank %d received %s", w->signal_rank,
           name);
    if (a.bench[0] != '\0')
      append(message, sizeof message, " %s %s %s",
             a.active ? "during" : "after", a.bench, a.desc);
    end_run_as(w, GCB_EINTR, "interrupted", code, "interrupted", -1, a.bench,
               a.active ? a.label : "(between cases)", message);
  }
  if (w->signal_at > 0 && w->fd >= 0 && !w->signal_told) {
    struct msg m = {.type = MSG_SIGNAL, .a = (uint32_t)w->stop_signal};
    w->signal_told = send_msg(w->fd, &m);
  }
  if (w->signal_at > 0 && now > w->signal_at + SIGNAL_GRACE_S) {
    char line[256];
    snprintf(line, sizeof line,
             "interrupted: rank %d received %s and rank 0 did not end the "
             "run; ending this rank",
             w->rank, name);
    say(line);
    _exit(code);
  }
}

/* The launcher said a process ended. Rank 0 names it from its closed
 * connection, which normally arrives first; the others wait for rank 0. */
static void check_failed(struct gcb_watchdog *w, double now) {
  if (w->peer_failed == 0 || now < w->peer_failed + FAILED_GRACE_S)
    return;
  if (w->rank != 0 && now < w->peer_failed + 2 * FAILED_GRACE_S + 1)
    return;
  struct armed a;
  armed(w, &a);
  char message[512];
  snprintf(message, sizeof message,
           "%sa process of the job ended (the launcher said so)%s%s%s%s",
           w->rank == 0 ? "" : "rank 0 did not end the run: ",
           a.bench[0] ? (a.active ? " during " : " after ") : "", a.bench,
           a.bench[0] ? " " : "", a.desc);
  if (w->rank == 0)
    end_run(w, GCB_EMPI, "rank died", -1, a.bench, a.label, message);
  char line[600];
  snprintf(line, sizeof line, "rank %d: %s", w->rank, message);
  say(line);
  _exit(gcb_status_exit_code(GCB_EMPI));
}

static void *run(void *arg) {
  struct gcb_watchdog *w = arg;
  while (!atomic_load(&w->stopping)) {
    if (w->rank == 0)
      serve(w);
    else
      report(w);
    if (atomic_load(&w->stopping))
      break;
    double now = now_s();
    drain(w, now);
    check_signal(w, now);
    check_failed(w, now);
    check_deadline(w, now);
  }
  return NULL;
}

/* Rank 0's addresses other ranks can reach: IPv4, up, not loopback. */
static void own_addresses(struct where *o) {
  struct ifaddrs *list = NULL;
  if (getifaddrs(&list) != 0)
    return;
  for (struct ifaddrs *i = list; i != NULL && o->naddrs < MAX_ADDRS;
       i = i->ifa_next)
    if (i->ifa_addr != NULL && i->ifa_addr->sa_family == AF_INET &&
        !(i->ifa_flags & IFF_LOOPBACK) && (i->ifa_flags & IFF_UP))
      o->addrs[o->naddrs++] =
          ((const struct sockaddr_in *)(const void *)i->ifa_addr)
              ->sin_addr.s_addr;
  freeifaddrs(list);
}

/* Rank 0 keeps a connection per rank: make room under the file limit. */
static void raise_fd_limit(int size) {
  struct rlimit rl;
  rlim_t want = (rlim_t)size + 64;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
    rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

static void listen_rank0(struct gcb_watchdog *w, const char *hostname) {
  struct sockaddr_in sa = {.sin_family = AF_INET,
                           .sin_addr.s_addr = htonl(INADDR_ANY)};
  socklen_t len = sizeof sa;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
      listen(fd, SOMAXCONN) != 0 ||
      getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
    if (fd >= 0)
      close(fd);
    return; /* the others stay silent; rank 0's own deadline still works */
  }
  raise_fd_limit(w->size);
  w->listen_fd = fd;
  w->where0.port = ntohs(sa.sin_port);
  snprintf(w->where0.host, sizeof w->where0.host, "%s", hostname);
  own_addresses(&w->where0);
}

void gcb_watchdog_stop(struct gcb_watchdog *w) {
  if (w == NULL)
    return;
  atomic_store(&w->stopping, 1);
  if (w->usr1)
    sigaction(SIGUSR1, &chained, NULL);
  if (w->stops) {
    sigaction(SIGINT, &before_int, NULL);
    sigaction(SIGTERM, &before_term, NULL);
  }
  if (w->usr1 || w->stops)
    signal_fd = -1;
  if (w->started) {
    ssize_t rc = write(w->wake[1], "", 1);
    (void)rc;
    pthread_join(w->thread, NULL);
  }
  if (w->fd >= 0) {
    struct msg bye = {.type = MSG_BYE};
    int flags = fcntl(w->fd, F_GETFL);
    fcntl(w->fd, F_SETFL, flags & ~O_NONBLOCK); /* the goodbye must go */
    (void)send(w->fd, &bye, sizeof bye, MSG_NOSIGNAL);
    close(w->fd);
  }
  for (int i = 0; i < w->nconns; i++)
    if (w->conns[i].fd >= 0)
      close(w->conns[i].fd);
  if (w->listen_fd >= 0)
    close(w->listen_fd);
  for (int i = 0; i < 2; i++)
    if (w->wake[i] >= 0)
      close(w->wake[i]);
  if (watched == w)
    watched = NULL;
  pthread_mutex_destroy(&w->lock);
  free(w->conns);
  free(w->ranks);
  free(w);
}

/* SIGUSR1 (the launcher's word, runs of several ranks only), SIGINT and
 * SIGTERM; a stop signal the process was started ignoring (a background
 * job's SIGINT) stays ignored. */
static void install_handlers(struct gcb_watchdog *w, bool usr1) {
  struct sigaction sa = {.sa_sigaction = on_sigusr1};
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  if (usr1)
    w->usr1 = sigaction(SIGUSR1, &sa, &chained) == 0;
  struct sigaction stop = {.sa_handler = on_stop_signal};
  sigemptyset(&stop.sa_mask);
  stop.sa_flags = SA_RESTART;
  w->stops = sigaction(SIGINT, NULL, &before_int) == 0 &&
             sigaction(SIGTERM, NULL, &before_term) == 0;
  if (w->stops && before_int.sa_handler != SIG_IGN)
    sigaction(SIGINT, &stop, NULL);
  if (w->stops && before_term.sa_handler != SIG_IGN)
    sigaction(SIGTERM, &stop, NULL);
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
                             .listen_fd = -1,
                             .fd = -1,
                             .retry = RETRY_MIN_S};
  pthread_mutex_init(&w->lock, NULL);
  if (ctx->rank == 0 &&
      (w->ranks = calloc((size_t)ctx->size, sizeof *w->ranks)) == NULL) {
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
  if (ctx->rank == 0 && ctx->size > 1)
    listen_rank0(w, ctx->hostname);
  if (ctx->size > 1 && MPI_Bcast(&w->where0, (int)sizeof w->where0, MPI_BYTE, 0,
                                 ctx->world) != MPI_SUCCESS) {
    gcb_watchdog_stop(w);
    return gcb_err_set(&ctx->err, GCB_EMPI,
                       "MPI_Bcast of the watchdog's address failed");
  }
  w->gone = w->rank != 0 && w->where0.port == 0;
  int rc = pipe2(w->wake, O_CLOEXEC | O_NONBLOCK);
  if (rc == 0)
    rc = pthread_create(&w->thread, NULL, run, w);
  if (rc != 0) {
    gcb_watchdog_stop(w);
    return gcb_err_set(&ctx->err, GCB_EIO, "watchdog: cannot start its thread");
  }
  w->started = true;
  watched = w;
  if (signal_fd < 0) {
    signal_fd = w->wake[1];
    install_handlers(w, ctx->size > 1);
  }
  *out = w;
  return GCB_OK;
}
