/*
 * Internal to the watchdog (watchdog.h is its face): the state its files
 * share and the calls between them. watchdog.c holds the public calls, the
 * thread and its start and stop; watchdog_deadline.c who had not finished
 * and the timeout; watchdog_signal.c the signal handlers and what the
 * thread does about them; watchdog_wire.c the messages; watchdog_serve.c
 * rank 0's side of the connections, watchdog_report.c every other rank's;
 * watchdog_end.c the last line and the end of the process.
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

enum gcb__wd_msg_type {
  GCB__WD_HELLO = 1,
  GCB__WD_PROGRESS,
  GCB__WD_BYE,
  GCB__WD_ABORT,
  GCB__WD_SIGNAL
};

/* One message on the progress connection. */
struct gcb__wd_msg {
  uint8_t type, phase;
  uint16_t pad;
  uint32_t a; /* HELLO: rank; PROGRESS: seq; ABORT: exit code; SIGNAL:
                 the signal number */
  uint64_t b; /* PROGRESS: step */
};

/* Where rank 0's watchdog listens; broadcast at start. */
struct gcb__wd_where {
  uint16_t port; /* 0: rank 0 could not listen */
  int32_t naddrs;
  uint32_t addrs[GCB__WD_MAX_ADDRS]; /* IPv4, network order */
  char host[256];
};

/* Rank 0: one accepted connection. */
struct gcb__wd_conn {
  int fd;
  int rank; /* -1 until its hello */
  bool bye;
  size_t got;
  unsigned char buf[sizeof(struct gcb__wd_msg)];
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
  struct gcb__wd_conn *conns;
  int nconns, capconns;
  struct gcb__wd_rank *ranks;

  /* Other ranks. */
  struct gcb__wd_where where0;
  int fd;
  bool gone; /* rank 0 closed the connection or never listened */
  double next_try, retry;
  struct gcb__wd_msg sent;
  size_t got;
  unsigned char buf[sizeof(struct gcb__wd_msg)];
};

/* A copy of the armed case. */
struct gcb__wd_armed {
  double deadline; /* 0: none */
  bool active;     /* inside a case or set-up */
  char bench[32], label[128], desc[160];
};

/* watchdog.c */
double gcb__wd_now(void);
void gcb__wd_armed(struct gcb_watchdog *w, struct gcb__wd_armed *a);

/* watchdog_deadline.c */
void gcb__wd_append(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void gcb__wd_name_rank(char *buf, size_t len, int r, const char (*names)[96],
                       const struct gcb__wd_rank *st);
/* Rank 0 ends the run past the deadline; the others a grace period
 * later, where rank 0 cannot. */
void gcb__wd_check_deadline(struct gcb_watchdog *w, double now);

/* watchdog_signal.c */
void gcb__wd_signals_install(struct gcb_watchdog *w, bool usr1);
void gcb__wd_signals_restore(struct gcb_watchdog *w);
void gcb__wd_drain(struct gcb_watchdog *w, double now);
void gcb__wd_check_signal(struct gcb_watchdog *w, double now);
void gcb__wd_check_failed(struct gcb_watchdog *w, double now);

/* watchdog_wire.c */
bool gcb__wd_send(int fd, const struct gcb__wd_msg *m);
/* 1: a whole message in *m; 0: more to come; -1: end of file or error. */
int gcb__wd_recv(int fd, unsigned char *buf, size_t *got,
                 struct gcb__wd_msg *m);
struct gcb__wd_msg gcb__wd_own_progress(struct gcb_watchdog *w, uint8_t type);

/* watchdog_serve.c (rank 0) */
void gcb__wd_listen(struct gcb_watchdog *w, const char *hostname);
void gcb__wd_serve(struct gcb_watchdog *w);

/* watchdog_report.c (other ranks) */
void gcb__wd_report(struct gcb_watchdog *w);
void gcb__wd_goodbye(struct gcb_watchdog *w);

/* watchdog_end.c */
void gcb__wd_say(const char *line);
_Noreturn void gcb__wd_end_run_as(struct gcb_watchdog *w, enum gcb_status code,
                                  const char *run_status, int exit_code,
                                  const char *what, int rank, const char *bench,
                                  const char *label, const char *message);
/* A timeout or a dead rank: the status's own exit code. */
_Noreturn void gcb__wd_end_run(struct gcb_watchdog *w, enum gcb_status code,
                               const char *what, int rank, const char *bench,
                               const char *label, const char *message);
_Noreturn void gcb__wd_end_after_rank0(struct gcb_watchdog *w, int code);

#endif
