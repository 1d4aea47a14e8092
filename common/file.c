/*
 * Whole-file reading with a size limit (file.h). One read loop for every
 * kind of file: the buffer starts at the file's size (or 64 KiB for a
 * pipe) and doubles as it fills, so a regular file is read with one
 * allocation and a pipe or a file that grows is still read whole. A large
 * regular file's bytes are first read in two halves side by side
 * (read_halves); the loop then reads whatever follows them.
 */
#define _GNU_SOURCE /* SEEK_HOLE */
#include "common/file.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static enum gcb_status too_large(const char *path, const char *more,
                                 unsigned long long size, size_t limit,
                                 struct gcb_err *err) {
  return gcb_err_set(err, GCB_EINPUT,
                     "%s: too large (%s%llu bytes, limit %zu MiB)", path, more,
                     size, limit >> 20);
}

/* What a file that is not read is, in words; NULL for what is read. */
static const char *refused_kind(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return NULL;
}

/* Waits until fd has something to say (a regular file always has): 1, 0
 * after wait_ms of silence (< 0: never), -1 on a poll error. */
static int readable(int fd, int wait_ms) {
  struct pollfd p = {.fd = fd, .events = POLLIN};
  int rc;
  while ((rc = poll(&p, 1, wait_ms)) < 0 && errno == EINTR)
    ;
  return rc;
}

/* Asks for transparent huge pages under a large buffer: a 300 MB document
 * is otherwise read into 75,000 pages, each faulted in on its own (a third
 * of the read's system time). Only a hint: where the kernel says no, or
 * gives THP only on request ("madvise", Debian's default), nothing else
 * changes. */
static void huge_pages(char *buf, size_t size) {
  const uintptr_t huge = (uintptr_t)2 << 20;
  if (size < 16 * huge)
    return;
  uintptr_t from = ((uintptr_t)buf + huge - 1) & ~(huge - 1);
  uintptr_t to = ((uintptr_t)buf + size) & ~(huge - 1);
  (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
}

/* Bytes [at, at + len) of a regular file into buf + at, by pread (the
 * file offset stays where it was); ok: all of them were there. */
struct part {
  int fd;
  char *buf;
  size_t at, len;
  bool ok;
};

static void *read_part(void *arg) {
  struct part *p = arg;
  size_t done = 0;
  while (done < p->len) {
    ssize_t n = pread(p->fd, p->buf + p->at + done, p->len - done,
                      (off_t)(p->at + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += (size_t)n;
  }
  p->ok = done == p->len;
  return NULL;
}

/* A large regular file's size bytes into buf in two halves side by side:
 * copying a 300 MB document out of the page cache and faulting in the
 * buffer's pages took 0.12 s on one core, before anything else could
 * start. Returns the bytes read, 0 when the file was not all there (it
 * shrank: the caller reads it from the start, whose offset pread left
 * alone); past them the caller's loop goes on reading what follows. */
static size_t read_halves(int fd, char *buf, size_t size) {
  struct part first = {.fd = fd, .buf = buf, .len = size / 2},
              second = {
                  .fd = fd, .buf = buf, .at = size / 2, .len = size - size / 2};
  pthread_t lane;
  bool two = pthread_create(&lane, NULL, read_part, &second) == 0;
  read_part(&first);
  if (two)
    pthread_join(lane, NULL);
  else
    read_part(&second);
  if (!first.ok || !second.ok || lseek(fd, (off_t)size, SEEK_SET) < 0)
    return 0;
  return size;
}

/* Above this a regular file is read in two halves (read_halves). */
#define HALVES_FROM ((size_t)64 << 20)

static enum gcb_status read_fd(int fd, const char *path, size_t guess,
                               bool regular, size_t limit, int wait_ms,
                               char **text, size_t *len, struct gcb_err *err) {
  size_t cap = guess + 2, used = 0;
  char *buf = NULL;
  if (regular && guess >= HALVES_FROM) {
    if ((buf = malloc(cap)) == NULL)
      return gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", path);
    huge_pages(buf, cap);
    used = read_halves(fd, buf, guess);
  }
  for (;;) {
    int ready = readable(fd, wait_ms); /* a regular file: at once */
    if (ready == 0) {
      free(buf);
      return gcb_err_set(err, GCB_EINPUT,
                         "%s: nothing to read for %d s (a FIFO or pipe whose "
                         "writer is silent or absent)",
                         path, (wait_ms + 999) / 1000);
    }
    if (used + 1 >= cap || buf == NULL) {
      char *grown = realloc(buf, cap = buf == NULL ? cap : 2 * cap);
      if (grown == NULL) {
        free(buf);
        return gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", path);
      }
      buf = grown;
      huge_pages(buf, cap);
    }
    ssize_t n = ready < 0 ? -1 : read(fd, buf + used, cap - 1 - used);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n < 0) { /* an input that cannot be read is bad input (exit 2):
                    /proc/self/mem, a file on a failing disk */
      int e = errno;
      free(buf);
      return gcb_err_set(err, GCB_EINPUT, "%s: cannot read (%s)", path,
                         strerror(e));
    }
    if (n == 0)
      break;
    used += (size_t)n;
    if (used > limit) {
      free(buf);
      return too_large(path, "more than ", (unsigned long long)limit, limit,
                       err);
    }
  }
  buf[used] = '\0';
  *text = buf;
  *len = used;
  return GCB_OK;
}

enum gcb_status gcb_file_read(const char *path, size_t limit, char **text,
                              size_t *len, struct gcb_err *err) {
  return gcb_file_read_wait(path, limit, GCB_FILE_WAIT_MS, text, len, err);
}

/* Where a regular file of more than GCB_FILE_MAX_BYTES has a hole (bytes
 * never written, which read as NULs): -1 for none, or where the
 * filesystem cannot tell. Only a results document is read past that size,
 * and a sparse one is no document: a 2 GiB sparse file was read whole
 * (10 s, 2 GB) before its shape refused it. */
static long long hole_at(int fd, const struct stat *sb) {
  if (!S_ISREG(sb->st_mode) ||
      (unsigned long long)sb->st_size <= GCB_FILE_MAX_BYTES)
    return -1;
  off_t hole = lseek(fd, 0, SEEK_HOLE);
  if (lseek(fd, 0, SEEK_SET) != 0)
    return -1; /* cannot happen on a regular file; read as before */
  return hole >= 0 && hole < sb->st_size ? (long long)hole : -1;
}

enum gcb_status gcb_file_read_wait(const char *path, size_t limit, int wait_ms,
                                   char **text, size_t *len,
                                   struct gcb_err *err) {
  *text = NULL;
  *len = 0;
  /* O_NONBLOCK: opening a FIFO with no writer (or a device) must not
   * block before fstat can tell what it is. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return gcb_err_set(err, GCB_EINPUT, "%s: cannot open (%s)", path,
                       strerror(errno));
  struct stat sb;
  enum gcb_status st;
  const char *kind = NULL;
  long long hole = -1;
  if (fstat(fd, &sb) != 0)
    st = gcb_err_set(err, GCB_EINPUT, "%s: cannot read (%s)", path,
                     strerror(errno));
  else if ((kind = refused_kind(sb.st_mode)) != NULL)
    st = gcb_err_set(err, GCB_EINPUT, "%s: is %s, not a file", path, kind);
  else if (S_ISREG(sb.st_mode) && (unsigned long long)sb.st_size > limit)
    st = too_large(path, "", (unsigned long long)sb.st_size, limit, err);
  else if ((hole = hole_at(fd, &sb)) >= 0)
    st = gcb_err_set(err, GCB_EINPUT,
                     "%s: a sparse file of %llu bytes (a hole at byte %lld "
                     "reads as NUL bytes), not a document",
                     path, (unsigned long long)sb.st_size, hole);
  else
    st = read_fd(fd, path, S_ISREG(sb.st_mode) ? (size_t)sb.st_size : 1 << 16,
                 S_ISREG(sb.st_mode), limit, wait_ms, text, len, err);
  close(fd);
  return st;
}
