/*
 * The watchdog's messages (see watchdog.h): fixed-size, in host order
 * (every rank runs the same binary), sent without blocking and read as
 * they come, a partial message kept until the rest arrives.
 */
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "bench/run/watchdog_internal.h"

bool gcb__wd_send(int fd, const struct gcb__wd_msg *m) {
  return send(fd, m, sizeof *m, MSG_NOSIGNAL | MSG_DONTWAIT) ==
         (ssize_t)sizeof *m;
}

int gcb__wd_recv(int fd, unsigned char *buf, size_t *got,
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

struct gcb__wd_msg gcb__wd_own_progress(struct gcb_watchdog *w, uint8_t type) {
  return (struct gcb__wd_msg){
      .type = type,
      .phase = (uint8_t)atomic_load_explicit(&w->phase, memory_order_relaxed),
      .a = atomic_load_explicit(&w->seq, memory_order_relaxed),
      .b = atomic_load_explicit(&w->step, memory_order_relaxed)};
}
