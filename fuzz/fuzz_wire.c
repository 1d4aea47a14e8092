/*
 * libFuzzer target: the watchdog's wire protocol as rank 0 hears it
 * (bench/run/watchdog.c: rank 0's side, the messages). Rank 0's watchdog state
 * is made by hand around a listening socket (an abstract Unix socket: the
 * code only accepts and reads), and the input drives peers that connect
 * and send what an attacker on the port could: raw bytes cut anywhere,
 * and messages sealed with the run's secret (what a process of the run
 * sends, with any rank, counter, type and direction), interleaved. The
 * contract, checked after every step: the table stays bounded and
 * consistent (one connection per rank), a rank is heard
 * of or connected only if a sealed hello for it was sent, a signal is
 * taken only from a sealed message carrying a signal that stops a run, and the
 * lines that name ranks stay in bounds. Authenticated connections are never
 * closed from the peer's side (that ends the run, by design: "rank died").
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bench/run/watchdog_internal.h"
#include "common/clock.h"

#define MAX_RANKS 8
/* More than the table holds (a connection per rank and SPARE_CONNS): it
 * fills, and makes room. */
#define MAX_PEERS 24

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

struct model {
  bool hello[MAX_RANKS];   /* a sealed hello was sent for the rank */
  uint64_t top[MAX_RANKS]; /* the highest sealed counter sent for it */
  bool signal; /* a sealed stop signal (SIGINT, TERM, PIPE) was sent */
};

static _Noreturn void broken(const char *what) {
  fprintf(stderr, "contract broken: %s\n", what);
  abort();
}

/* The table is what the protocol allows, whatever was sent. */
static void check(const struct gcb_watchdog *w, const struct model *m) {
  int pending = 0, per_rank[MAX_RANKS] = {0};
  if (w->nconns < 0 || w->nconns > w->capconns)
    broken("connection table past its bound");
  for (int i = 0; i < w->nconns; i++) {
    const struct gcb__wd_conn *c = &w->conns[i];
    if (c->fd < 0)
      continue;
    if (c->rank < 0)
      pending++;
    else if (c->rank == 0 || c->rank >= w->size)
      broken("a connection holds a rank out of range");
    else
      per_rank[c->rank]++;
    if (c->got >= sizeof(struct gcb__wd_msg))
      broken("a partial message longer than a message");
  }
  int connected = 0;
  for (int r = 1; r < w->size; r++)
    connected += per_rank[r];
  if (pending + connected > w->capconns)
    broken("more connections than the table holds");
  for (int r = 1; r < w->size; r++) {
    if (per_rank[r] > 1 || per_rank[r] != (int)w->peers[r].connected)
      broken("a rank holds more than one connection, or a stale one");
    if ((w->ranks[r].heard || w->peers[r].connected) && !m->hello[r])
      broken("a rank was heard of without a sealed hello for it");
    if (w->peers[r].rx > m->top[r])
      broken("a counter was taken that no sealed message carried");
  }
  if (w->stop_signal != 0 && !m->signal)
    broken("a signal was taken without a sealed signal message");
  char line[2048];
  for (int r = 0; r < w->size; r++) {
    line[0] = '\0';
    gcb__wd_name_rank(line, sizeof line, r, w->opts.rank_names, &w->ranks[r]);
  }
  gcb__watchdog_timeout_message(line, sizeof line, "coll", "case 'x'", 1.0,
                                w->ranks, w->size, w->opts.rank_names);
  if (strpbrk(line, "\n\r\033") != NULL)
    broken("the timeout line holds a control character");
}

static int listen_on(struct sockaddr_un *a, socklen_t *alen) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  /* Abstract (Linux): no file, nothing left behind. */
  int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "gcb-fuzz-wire-%ld",
                   (long)getpid());
  *alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
  if (fd < 0 || bind(fd, (struct sockaddr *)a, *alen) != 0 ||
      listen(fd, 64) != 0) {
    perror("fuzz_wire: listen");
    abort();
  }
  return fd;
}

/* What the watchdog of a run of `size` ranks holds on rank 0 at start. */
static void make_rank0(struct gcb_watchdog *w, int size, int lfd,
                       const char (*names)[96]) {
  memset(w, 0, sizeof *w);
  w->size = size;
  w->listen[0] = lfd;
  w->nlisten = 1;
  w->capconns = size - 1 + GCB__WD_SPARE_CONNS;
  w->ranks = calloc((size_t)size, sizeof *w->ranks);
  w->peers = calloc((size_t)size, sizeof *w->peers);
  w->conns = calloc((size_t)w->capconns, sizeof *w->conns);
  if (w->ranks == NULL || w->peers == NULL || w->conns == NULL ||
      pipe2(w->wake, O_NONBLOCK | O_CLOEXEC) != 0)
    abort();
  w->ranks[0].heard = true;
  w->started_at = gcb_now_s();
  w->opts.rank_names = names;
  for (size_t i = 0; i < sizeof w->where0.key; i++)
    w->where0.key[i] = (uint8_t)(i * 37 + 11);
}

static void free_rank0(struct gcb_watchdog *w) {
  for (int i = 0; i < w->nconns; i++)
    if (w->conns[i].fd >= 0)
      close(w->conns[i].fd);
  close(w->wake[0]);
  close(w->wake[1]);
  free(w->ranks);
  free(w->peers);
  free(w->conns);
}

/* Takes n bytes of the input into out (zeros past its end). */
static void take(const unsigned char **p, const unsigned char *end, void *out,
                 size_t n) {
  size_t k = (size_t)(end - *p) < n ? (size_t)(end - *p) : n;
  memset(out, 0, n);
  memcpy(out, *p, k);
  *p += k;
}

/* A message sealed as a process of the run seals it, from the input. */
static void send_sealed(struct gcb_watchdog *w, int fd, unsigned op,
                        const unsigned char **p, const unsigned char *end,
                        struct model *m) {
  unsigned char f[16];
  take(p, end, f, sizeof f);
  struct gcb__wd_msg msg = {.type = (uint8_t)(f[0] % 8), .phase = f[1]};
  memcpy(&msg.a, f + 2, 4);
  memcpy(&msg.b, f + 6, 8);
  uint32_t rank = f[14] % (uint32_t)(w->size + 2);
  uint64_t counter = f[15];
  enum gcb__wd_dir dir = op & 8 ? GCB__WD_FROM0 : GCB__WD_TO0;
  if (dir == GCB__WD_TO0 && rank < MAX_RANKS) {
    if (msg.type == GCB__WD_HELLO && counter > 0)
      m->hello[rank] = true;
    if (counter > m->top[rank])
      m->top[rank] = counter;
    if (msg.type == GCB__WD_SIGNAL && gcb__wd_stop_signal_known((int)msg.a))
      m->signal = true;
  }
  (void)gcb__wd_send(w, fd, &msg, dir, rank, counter);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  static int lfd = -1;
  static struct sockaddr_un addr;
  static socklen_t alen;
  static char names[MAX_RANKS][96];
  if (lfd < 0) {
    lfd = listen_on(&addr, &alen);
    for (int r = 0; r < MAX_RANKS; r++)
      snprintf(names[r], sizeof names[r], "node%d, GPU %d", r / 4, r % 4);
  }
  if (size == 0)
    return 0;
  const unsigned char *p = data + 1, *end = data + (size > 8192 ? 8192 : size);
  struct gcb_watchdog w;
  make_rank0(&w, 2 + data[0] % (MAX_RANKS - 1), lfd, names);
  struct model m;
  memset(&m, 0, sizeof m);
  int peers[MAX_PEERS], npeers = 0;
  while (p < end) {
    unsigned op = *p++;
    int fd = npeers > 0 ? peers[(op >> 4) % npeers] : -1;
    if ((op & 7) == 0 || fd < 0) { /* a new connection */
      int c =
          npeers < MAX_PEERS
              ? socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)
              : -1;
      if (c >= 0 && connect(c, (struct sockaddr *)&addr, alen) == 0)
        peers[npeers++] = c;
      else if (c >= 0)
        close(c);
    } else if ((op & 7) <= 2) { /* raw bytes, cut anywhere */
      unsigned char raw[256];
      size_t n = p < end ? *p++ : 0;
      n = n <= (size_t)(end - p) ? n : (size_t)(end - p);
      memcpy(raw, p, n);
      p += n;
      (void)send(fd, raw, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    } else {
      send_sealed(&w, fd, op, &p, end, &m);
    }
    gcb__wd_serve(&w, 0);
    check(&w, &m);
  }
  gcb__wd_serve(&w, 0);
  check(&w, &m);
  /* Rank 0's ends first, so that no authenticated peer is seen to die. */
  free_rank0(&w);
  for (int i = 0; i < npeers; i++)
    close(peers[i]);
  /* Connections still in the backlog, never accepted. */
  int c;
  while ((c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
    close(c);
  return 0;
}
