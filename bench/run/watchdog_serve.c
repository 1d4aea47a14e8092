/*
 * Rank 0's side of the progress connections (see watchdog.h): it listens
 * on an ephemeral port, accepts every rank's connection, keeps each rank's
 * last reported progress, and names a rank whose connection closes
 * without a goodbye at once.
 */
#define _GNU_SOURCE /* getifaddrs, accept4 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/run/watchdog_internal.h"

/* Rank 0's addresses other ranks can reach: IPv4, up, not loopback. */
static void own_addresses(struct gcb__wd_where *o) {
  struct ifaddrs *list = NULL;
  if (getifaddrs(&list) != 0)
    return;
  for (struct ifaddrs *i = list; i != NULL && o->naddrs < GCB__WD_MAX_ADDRS;
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

void gcb__wd_listen(struct gcb_watchdog *w, const char *hostname) {
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

static void accept_all(struct gcb_watchdog *w) {
  for (;;) {
    int fd = accept4(w->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
      return;
    if (w->nconns == w->capconns) {
      int cap = w->capconns ? 2 * w->capconns : 16;
      struct gcb__wd_conn *grown =
          realloc(w->conns, sizeof *grown * (size_t)cap);
      if (grown == NULL) {
        close(fd);
        return;
      }
      w->conns = grown;
      w->capconns = cap;
    }
    w->conns[w->nconns++] = (struct gcb__wd_conn){.fd = fd, .rank = -1};
  }
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

static void handle(struct gcb_watchdog *w, struct gcb__wd_conn *c,
                   const struct gcb__wd_msg *m) {
  if (m->type == GCB__WD_HELLO && c->rank < 0 && m->a > 0 &&
      (int)m->a < w->size)
    c->rank = (int)m->a;
  if (c->rank < 0)
    return;
  struct gcb__wd_rank *r = &w->ranks[c->rank];
  if (m->type == GCB__WD_BYE)
    c->bye = true;
  if (m->type == GCB__WD_SIGNAL && w->stop_signal == 0 &&
      (m->a == SIGINT || m->a == SIGTERM)) {
    w->stop_signal = (int)m->a;
    w->signal_rank = c->rank;
  }
  if (m->type == GCB__WD_HELLO || m->type == GCB__WD_PROGRESS)
    *r = (struct gcb__wd_rank){
        .heard = true, .seq = m->a, .step = m->b, .phase = m->phase};
  if (m->type == GCB__WD_HELLO)
    r->seq = 0, r->step = 0;
}

void gcb__wd_serve(struct gcb_watchdog *w) {
  struct pollfd *p = calloc((size_t)w->nconns + 2, sizeof *p);
  if (p == NULL) {
    poll(NULL, 0, GCB__WD_TICK_MS);
    return;
  }
  p[0] = (struct pollfd){.fd = w->wake[0], .events = POLLIN};
  p[1] = (struct pollfd){.fd = w->listen_fd, .events = POLLIN};
  for (int i = 0; i < w->nconns; i++)
    p[i + 2] = (struct pollfd){.fd = w->conns[i].fd, .events = POLLIN};
  int n = w->nconns;
  if (poll(p, (nfds_t)n + 2, GCB__WD_TICK_MS) > 0) {
    for (int i = 0; i < n; i++) {
      struct gcb__wd_conn *c = &w->conns[i];
      struct gcb__wd_msg m;
      int rc = 0;
      while (c->fd >= 0 && p[i + 2].revents &&
             (rc = gcb__wd_recv(c->fd, c->buf, &c->got, &m)) == 1)
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
