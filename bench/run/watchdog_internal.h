/*
 * The watchdog's state (watchdog.h is its face; watchdog.c its one file):
 * the messages, the connection tables and the calls that fuzz/fuzz_wire.c
 * drives on a rank 0 it makes by hand.
 */
#ifndef GCB_WATCHDOG_INTERNAL_H
#define GCB_WATCHDOG_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/run/watchdog.h"

#define GCB__WD_TICK_MS 100
#define GCB__WD_MAX_ADDRS 4
#define GCB__WD_MAX_LISTEN (GCB__WD_MAX_ADDRS + 2)
#define GCB__WD_KEY_BYTES 32
#define GCB__WD_SPARE_CONNS 16    /* room beyond a connection per rank */
#define GCB__WD_HELLO_WAIT_S 2.0  /* for a new connection's first message */
#define GCB__WD_ADMIT_WAIT_S 10.0 /* the ranks not heard by then are named */

enum gcb__wd_msg_type {
  GCB__WD_HELLO = 1,
  GCB__WD_PROGRESS,
  GCB__WD_BYE,
  GCB__WD_ABORT,
  GCB__WD_SIGNAL
};

/* Which way a message goes: part of what its MAC proves, so that rank 0's
 * word cannot be reflected back to it as a rank's. */
enum gcb__wd_dir { GCB__WD_TO0 = 1, GCB__WD_FROM0 = 2 };

/*
 * One message on the progress connection: 32 bytes in host order (every
 * rank runs the same binary), then their HMAC-SHA256 under the run's
 * secret. `rank` is the sender (to rank 0) or the addressee (from it);
 * `counter` grows with every message one rank sends rank 0 (or rank 0
 * sends one rank) over the whole run, so that a message cannot be
 * replayed, on its connection or on another.
 */
struct gcb__wd_msg {
  uint8_t type, phase, dir, pad;
  uint32_t rank;
  uint32_t a; /* PROGRESS: seq; ABORT: exit code; SIGNAL: the signal */
  uint32_t pad2;
  uint64_t b; /* PROGRESS: step */
  uint64_t counter;
  uint8_t mac[32];
};
_Static_assert(sizeof(struct gcb__wd_msg) == 64, "a message has no padding");

/* Where rank 0's watchdog listens, and the run's secret: broadcast at
 * start, through MPI (the one channel the ranks already trust). */
struct gcb__wd_where {
  uint8_t key[GCB__WD_KEY_BYTES];
  uint16_t loopback_port; /* for ranks on rank 0's node; 0: none */
  uint16_t any_port;      /* every interface (no shared subnet found):
                             dial the addresses, then the host name */
  int32_t naddrs;
  uint32_t addrs[GCB__WD_MAX_ADDRS]; /* IPv4, network order */
  uint16_t ports[GCB__WD_MAX_ADDRS];
  char host[256];
};

/* Rank 0: one accepted connection. */
struct gcb__wd_conn {
  int fd;
  int rank; /* -1 until its authenticated hello */
  bool bye;
  double since; /* accepted at (CLOCK_MONOTONIC seconds) */
  size_t got;
  unsigned char buf[sizeof(struct gcb__wd_msg)];
};

/* Rank 0: what it knows of each rank's connection. */
struct gcb__wd_peer {
  uint64_t rx, tx; /* last counter received from it, sent to it */
  bool connected;  /* an authenticated connection is open */
  bool bye;        /* said goodbye: no connection is taken again */
};

struct gcb_watchdog {
  int rank, size;
  bool near0; /* on rank 0's node */
  struct gcb_watchdog_opts opts;
  pthread_t thread;
  bool started;
  int wake[2];
  atomic_int stopping;
  bool usr1;  /* our SIGUSR1 handler is installed */
  bool stops; /* our SIGINT, SIGTERM and SIGPIPE handlers are installed */
  double peer_failed; /* when the launcher said a process ended; 0: never */
  int stop_signal;    /* SIGINT, SIGTERM or SIGPIPE received (rank 0: by
                         any rank) */
  int signal_rank;    /* which rank received it */
  double started_at;  /* when the thread started */
  double signal_at;   /* when this rank received it; 0: not yet */
  bool signal_told;   /* rank 0 has been told */

  /* The armed case, written by the watched thread under lock. */
  pthread_mutex_t lock;
  char bench[32];
  char label[128]; /* for the document: the case's label, "set-up" */
  char desc[160];  /* for the line: "case 'label'", "set-up" */
  double deadline; /* CLOCK_MONOTONIC seconds; 0: none (disarmed, or no
                      --timeout) */
  double extended; /* seconds gcb_watchdog_extend added to --timeout: the
                      limit a timeout's line names is their sum */
  bool active;     /* armed: inside a case or a set-up */
  /* gcb_watchdog_soft: the armed case ends on its own when asked (burn).
   * soft_flag is set to 1 on a stop signal; the end of the run waits
   * until the case is recorded (disarm), or soft_grace seconds. */
  atomic_int *soft_flag; /* NULL: not registered */
  double soft_grace;
  double soft_asked; /* when the flag was set; 0: not asked */
  bool soft_done;    /* the case ended (disarmed) after it was asked */
  bool soft_timeout; /* asked at the deadline: a timeout once recorded */
  bool soft_kept;    /* a case asked to stop was recorded (the words) */

  /* This rank's progress: the watched thread writes, the thread reads. */
  atomic_uint seq;
  atomic_ullong step;
  atomic_int phase;

  struct gcb__wd_where where0; /* rank 0 fills it; the key on every rank */

  /* Rank 0. */
  int listen[GCB__WD_MAX_LISTEN];
  int nlisten;
  double listen_pause;        /* accept errors (EMFILE): no accept until then */
  struct gcb__wd_conn *conns; /* capconns: a rank each + SPARE_CONNS */
  int nconns, capconns;
  bool unheard_said; /* the ranks not heard after ADMIT_WAIT_S were named */
  struct gcb__wd_rank *ranks;
  struct gcb__wd_peer *peers;

  /* Other ranks. */
  int fd;
  bool gone;              /* rank 0 never listened */
  double next_try, retry; /* the next dial, and the back-off before it */
  uint64_t jitter;        /* state of the back-off's random spread */
  uint64_t tx, rx; /* counters of messages sent to and taken from rank 0 */
  struct gcb__wd_msg sent;
  size_t got;
  unsigned char buf[sizeof(struct gcb__wd_msg)];
};

/* The calls the wire fuzzer makes (fuzz/fuzz_wire.c). */

/* Fills m's direction, rank and counter, seals it with the run's MAC and
 * sends it without blocking; false when it did not go whole. */
bool gcb__wd_send(const struct gcb_watchdog *w, int fd, struct gcb__wd_msg *m,
                  enum gcb__wd_dir dir, uint32_t rank, uint64_t counter);

/* Rank 0: one pass of its thread over the connections (waits up to
 * wait_ms for one to have something). */
void gcb__wd_serve(struct gcb_watchdog *w, int wait_ms);

/* Whether sig is one that stops a run (SIGINT, SIGTERM, SIGPIPE): what a
 * rank may tell rank 0 it received. */
bool gcb__wd_stop_signal_known(int sig);

/* Appends "rank R (name) <state>" to buf. */
void gcb__wd_name_rank(char *buf, size_t len, int r, const char (*names)[96],
                       const struct gcb__wd_rank *st);

#endif
