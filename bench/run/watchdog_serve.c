/*
 * Rank 0's side of the progress connections (see watchdog.h). A new
 * connection must prove itself with its first message, a hello sealed
 * with the run's secret for a rank that has no connection yet, within a
 * couple of seconds; anything else is closed and changes nothing. The
 * hello is read the moment the connection is accepted (a rank sends it
 * as soon as it has connected), so that a whole job's worth of ranks
 * queued in the backlog is admitted in one pass. The table is bounded (a
 * connection per rank and a few more) and never refuses a newcomer: when
 * it is full, the connection that has waited longest for its hello makes
 * room, so that idle connections of another process cannot lock a rank
 * out (and a rank whose connection was closed dials again). Closed
 * connections leave the table, and an accept error such as EMFILE pauses
 * accepting instead of spinning. A rank whose authenticated connection
 * closes without a goodbye is named at once; ranks still not heard a few
 * seconds into the run are named in one line.
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/run/watchdog_internal.h"

#define ACCEPT_BURST 64
#define LISTEN_PAUSE_S 0.5

static void drop(struct gcb_watchdog *w, struct gcb__wd_conn *c) {
  close(c->fd);
  c->fd = -1;
  if (c->rank >= 0)
    w->peers[c->rank].connected = false;
}

static _Noreturn void dead_rank0(struct gcb_watchdog *w, int r) {
  w->ranks[r].dead = true;
  struct gcb__wd_armed a;
  gcb__wd_armed(w, &a);
  char message[1024] = "";
  gcb__wd_name_rank(message, sizeof message, r, w->opts.rank_names,
                    &w->ranks[r]);
  if (a.bench[0] != '\0')
    gcb__wd_append(message, sizeof message, " %s %s %s",
                   a.active ? "during" : "after", a.bench, a.desc);
  gcb__wd_append(message, sizeof message,
                 " (its process ended without a goodbye)");
  gcb__wd_end_run(w, GCB_EMPI, "rank died", r, a.bench, a.label, message);
}

/* An unauthenticated connection's first message: a sealed hello from a
 * rank without a connection, newer than anything that rank sent. */
static bool admit(struct gcb_watchdog *w, struct gcb__wd_conn *c,
                  const struct gcb__wd_msg *m) {
  if (!gcb__wd_authentic(w, m, GCB__WD_TO0) || m->type != GCB__WD_HELLO ||
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
  if (!gcb__wd_authentic(w, m, GCB__WD_TO0) || m->rank != (uint32_t)c->rank ||
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
  while ((rc = gcb__wd_recv(c->fd, c->buf, &c->got, &m)) == 1)
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
  int first, n = gcb__wd_name_unconnected(w, line, sizeof line, &first);
  gcb__wd_append(line, sizeof line,
                 " after %g s; still listening (a rank not heard from when "
                 "the run stops is named as silent)",
                 GCB__WD_ADMIT_WAIT_S);
  if (n > 0)
    gcb__wd_say(w, "warning", line);
}

void gcb__wd_serve(struct gcb_watchdog *w, int wait_ms) {
  struct pollfd *p =
      calloc(1 + GCB__WD_MAX_LISTEN + (size_t)w->nconns, sizeof *p);
  if (p == NULL) {
    poll(NULL, 0, wait_ms);
    return;
  }
  double now = gcb__wd_now();
  int nl = now >= w->listen_pause ? w->nlisten : 0, n = w->nconns;
  p[0] = (struct pollfd){.fd = w->wake[0], .events = POLLIN};
  for (int i = 0; i < nl; i++)
    p[1 + i] = (struct pollfd){.fd = w->listen[i], .events = POLLIN};
  for (int i = 0; i < n; i++)
    p[1 + nl + i] = (struct pollfd){.fd = w->conns[i].fd, .events = POLLIN};
  if (poll(p, (nfds_t)(1 + nl + n), wait_ms) > 0) {
    now = gcb__wd_now();
    for (int i = 0; i < n; i++)
      if (p[1 + nl + i].revents && w->conns[i].fd >= 0)
        read_conn(w, &w->conns[i]);
    for (int i = 0; i < nl; i++)
      if (p[1 + i].revents)
        accept_from(w, w->listen[i], now);
  }
  free(p);
  now = gcb__wd_now();
  sweep(w, now);
  name_unheard(w, now);
}

void gcb__wd_tell_all(struct gcb_watchdog *w, struct gcb__wd_msg *m) {
  for (int i = 0; i < w->nconns; i++) {
    struct gcb__wd_conn *c = &w->conns[i];
    if (c->fd >= 0 && c->rank > 0)
      (void)gcb__wd_send(w, c->fd, m, GCB__WD_FROM0, (uint32_t)c->rank,
                         ++w->peers[c->rank].tx);
  }
}
