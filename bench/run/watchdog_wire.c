/*
 * The watchdog's messages (see watchdog_internal.h): fixed-size, sealed
 * with HMAC-SHA256 under a secret made for the run and handed to the
 * ranks through MPI, so that only a process of the run can speak on a
 * progress connection; sent without blocking and read as they come, a
 * partial message kept until the rest arrives.
 */
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/run/sha256.h"
#include "bench/run/watchdog_internal.h"

#define BODY_BYTES offsetof(struct gcb__wd_msg, mac)

/* What the MAC covers: a label for this protocol, then the body. */
static void mac_of(const struct gcb_watchdog *w, const struct gcb__wd_msg *m,
                   uint8_t out[GCB_SHA256_BYTES]) {
  static const char label[16] = "gcbench-wd/1";
  uint8_t data[sizeof label + BODY_BYTES];
  memcpy(data, label, sizeof label);
  memcpy(data + sizeof label, m, BODY_BYTES);
  gcb_hmac_sha256(w->where0.key, sizeof w->where0.key, data, sizeof data, out);
}

bool gcb__wd_send(const struct gcb_watchdog *w, int fd, struct gcb__wd_msg *m,
                  enum gcb__wd_dir dir, uint32_t rank, uint64_t counter) {
  m->dir = (uint8_t)dir;
  m->rank = rank;
  m->counter = counter;
  m->pad = 0;
  m->pad2 = 0;
  mac_of(w, m, m->mac);
  return send(fd, m, sizeof *m, MSG_NOSIGNAL | MSG_DONTWAIT) ==
         (ssize_t)sizeof *m;
}

bool gcb__wd_authentic(const struct gcb_watchdog *w,
                       const struct gcb__wd_msg *m, enum gcb__wd_dir dir) {
  uint8_t want[GCB_SHA256_BYTES];
  mac_of(w, m, want);
  return gcb_mac_equal(want, m->mac, sizeof want) && m->dir == (uint8_t)dir;
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

bool gcb__wd_new_key(uint8_t key[GCB__WD_KEY_BYTES]) {
  size_t got = 0;
  while (got < GCB__WD_KEY_BYTES) {
    ssize_t n = getrandom(key + got, GCB__WD_KEY_BYTES - got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  if (got == GCB__WD_KEY_BYTES)
    return true;
  /* Kernels before getrandom(2): the same source through its file. */
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read(fd, key, GCB__WD_KEY_BYTES) : -1;
  if (fd >= 0)
    close(fd);
  return n == GCB__WD_KEY_BYTES;
}
