/*
 * Every other rank's side of the progress connection (see watchdog.h): it
 * connects to rank 0's watchdog (loopback on rank 0's node, else each
 * address rank 0 listens on, then its host name where it listens on every
 * interface), says a sealed hello, sends its progress whenever it
 * changes, at most once per tick, and ends when rank 0 says so in a
 * message sealed for this rank. A dial that fails, and a connection
 * that rank 0 closes (it had no room, or it never took the connection
 * from its backlog), are tried again after a back-off that doubles up to
 * a few seconds, spread at random so that the ranks of a large job do not
 * dial in step; until then this rank is silent, never the run broken.
 */
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/run/watchdog_internal.h"

#define RETRY_MAX_S 5.0

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

bool gcb__wd_tell0(struct gcb_watchdog *w, struct gcb__wd_msg *m) {
  return w->fd >= 0 &&
         gcb__wd_send(w, w->fd, m, GCB__WD_TO0, (uint32_t)w->rank, ++w->tx);
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
  if (!gcb__wd_tell0(w, &hello)) {
    close(fd);
    w->fd = -1;
    retry_later(w, now);
    return;
  }
  w->sent = (struct gcb__wd_msg){0};
}

/* Rank 0's word, if it is rank 0's and for this rank. */
static void take(struct gcb_watchdog *w, const struct gcb__wd_msg *m) {
  if (!gcb__wd_authentic(w, m, GCB__WD_FROM0) || m->rank != (uint32_t)w->rank ||
      m->counter <= w->rx)
    return;
  w->rx = m->counter;
  if (m->type == GCB__WD_ABORT)
    gcb__wd_end_after_rank0(w, (int)m->a);
}

void gcb__wd_report(struct gcb_watchdog *w, int wait_ms) {
  double now = gcb__wd_now();
  if (w->fd < 0 && !w->gone && now >= w->next_try)
    connect_rank0(w, now);
  if (w->fd >= 0) {
    struct gcb__wd_msg m = gcb__wd_own_progress(w, GCB__WD_PROGRESS);
    if ((m.a != w->sent.a || m.b != w->sent.b || m.phase != w->sent.phase) &&
        gcb__wd_tell0(w, &m))
      w->sent = m;
  }
  struct pollfd p[2] = {{.fd = w->wake[0], .events = POLLIN},
                        {.fd = w->fd, .events = POLLIN}};
  if (poll(p, w->fd >= 0 ? 2 : 1, wait_ms) <= 0 || w->fd < 0 || !p[1].revents)
    return;
  struct gcb__wd_msg m;
  int rc;
  while ((rc = gcb__wd_recv(w->fd, w->buf, &w->got, &m)) == 1)
    take(w, &m);
  if (rc < 0) { /* rank 0 had no room, or is ending: dial again */
    close(w->fd);
    w->fd = -1;
    w->got = 0;
    retry_later(w, gcb__wd_now());
  }
}

/* The goodbye must go: the connection turns blocking for it. */
void gcb__wd_goodbye(struct gcb_watchdog *w) {
  if (w->fd < 0)
    return;
  int flags = fcntl(w->fd, F_GETFL);
  fcntl(w->fd, F_SETFL, flags & ~O_NONBLOCK);
  struct gcb__wd_msg bye = {.type = GCB__WD_BYE};
  (void)gcb__wd_tell0(w, &bye);
  close(w->fd);
  w->fd = -1;
}
