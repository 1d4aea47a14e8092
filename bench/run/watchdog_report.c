/*
 * Every other rank's side of the progress connection (see watchdog.h): it
 * connects to rank 0's watchdog (loopback on rank 0's node, then each
 * address rank 0 gave, then its hostname), says hello, sends its progress
 * whenever it changes, at most once per tick, and ends when rank 0 says
 * so. A connection that fails is retried with a growing delay and leaves
 * this rank silent, never the run broken.
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

#define RETRY_MAX_S 30.0

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

static void connect_rank0(struct gcb_watchdog *w, double now) {
  const struct gcb__wd_where *o = &w->where0;
  int fd = w->near0 ? dial_ipv4(htonl(INADDR_LOOPBACK), o->port) : -1;
  for (int i = 0; fd < 0 && i < o->naddrs && i < GCB__WD_MAX_ADDRS; i++)
    fd = dial_ipv4(o->addrs[i], o->port);
  if (fd < 0)
    fd = dial_host(o->host, o->port);
  if (fd < 0) {
    w->next_try = now + w->retry;
    w->retry = w->retry * 2 < RETRY_MAX_S ? w->retry * 2 : RETRY_MAX_S;
    return;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  struct gcb__wd_msg hello = {.type = GCB__WD_HELLO, .a = (uint32_t)w->rank};
  if (!gcb__wd_send(fd, &hello)) {
    close(fd);
    w->next_try = now + w->retry;
    return;
  }
  w->fd = fd;
  w->sent = (struct gcb__wd_msg){0};
}

void gcb__wd_report(struct gcb_watchdog *w) {
  double now = gcb__wd_now();
  if (w->fd < 0 && !w->gone && now >= w->next_try)
    connect_rank0(w, now);
  if (w->fd >= 0) {
    struct gcb__wd_msg m = gcb__wd_own_progress(w, GCB__WD_PROGRESS);
    if ((m.a != w->sent.a || m.b != w->sent.b || m.phase != w->sent.phase) &&
        gcb__wd_send(w->fd, &m))
      w->sent = m;
  }
  struct pollfd p[2] = {{.fd = w->wake[0], .events = POLLIN},
                        {.fd = w->fd, .events = POLLIN}};
  if (poll(p, w->fd >= 0 ? 2 : 1, GCB__WD_TICK_MS) <= 0 || w->fd < 0 ||
      !p[1].revents)
    return;
  struct gcb__wd_msg m;
  int rc;
  while ((rc = gcb__wd_recv(w->fd, w->buf, &w->got, &m)) == 1)
    if (m.type == GCB__WD_ABORT)
      gcb__wd_end_after_rank0(w, (int)m.a);
  if (rc < 0) {
    close(w->fd);
    w->fd = -1;
    w->gone = true;
  }
}

/* The goodbye must go: the connection turns blocking for it. */
void gcb__wd_goodbye(struct gcb_watchdog *w) {
  if (w->fd < 0)
    return;
  struct gcb__wd_msg bye = {.type = GCB__WD_BYE};
  int flags = fcntl(w->fd, F_GETFL);
  fcntl(w->fd, F_SETFL, flags & ~O_NONBLOCK);
  (void)send(w->fd, &bye, sizeof bye, MSG_NOSIGNAL);
  close(w->fd);
  w->fd = -1;
}
