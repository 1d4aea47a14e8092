/*
 * Where rank 0's watchdog listens (see watchdog.h): only on the
 * interfaces the ranks use. With every rank on rank 0's node, loopback
 * alone. Otherwise every rank tells rank 0 its IPv4 addresses (through
 * MPI, once, at start); rank 0 listens on loopback for the ranks of its
 * own node and on each of its addresses that shares a subnet with a rank
 * of another node. Where none does (routed networks), it listens on every
 * interface, as before: the connections are authenticated either way.
 */
#define _GNU_SOURCE /* getifaddrs */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/run/watchdog_internal.h"

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
  int backlog = w->size < INT_MAX - GCB__WD_PENDING_MAX
                    ? w->size + GCB__WD_PENDING_MAX
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
  rlim_t want = (rlim_t)size + GCB__WD_PENDING_MAX + 64;
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

enum gcb_status gcb__wd_listen(struct gcb_watchdog *w, struct gcb_ctx *ctx) {
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
