/*
 * The results document as a sink: each finished, skipped or failed case is
 * appended and the whole document rewritten atomically, so a crash at any
 * later point keeps every finished case. Room for the last write is held
 * beside it, so that a disk that fills up (or descriptors that run out)
 * during the run still lets the document say how the run ended.
 */
#define _GNU_SOURCE /* O_TMPFILE, fallocate */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/run/sink.h"
#include "bench/run/table.h"
#include "common/clock.h"

/* An unnamed file in the directory of path (freed by the kernel when the
 * process ends, however it ends); -1 when there can be none. */
static int open_room(const char *path) {
#ifdef O_TMPFILE
  const char *slash = strrchr(path, '/');
  char *dir = slash == NULL   ? strdup(".")
              : slash == path ? strdup("/")
                              : strndup(path, (size_t)(slash - path));
  int fd = dir != NULL ? open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600) : -1;
  free(dir);
  return fd;
#else
  (void)path;
  return -1;
#endif
}

static void give_up_room(struct gcb_document *d) {
  if (d->reserve > 0)
    close(d->reserve - 1);
  d->reserve = 0;
  d->reserved = 0;
}

/* Grows the room to what the last write of a document of `size` bytes
 * needs (sink.h). */
static enum gcb_status grow_room(struct gcb_document *d, long long size,
                                 struct gcb_err *err) {
  long long want = size + size / 4 + GCB_DOC_RESERVE_MIN;
  if (d->no_reserve || want <= d->reserved)
    return GCB_OK;
  int fd = d->reserve > 0 ? d->reserve - 1 : open_room(d->path);
  if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOSPC))
    return gcb_err_set(err, GCB_EIO,
                       "%s: no room left to hold for the end of the results "
                       "document (%s); the run stops while its end can still "
                       "be written",
                       d->path, strerror(errno));
  if (fd < 0) { /* no unnamed files here */
    d->no_reserve = true;
    return GCB_OK;
  }
  d->reserve = fd + 1;
  if (fallocate(fd, 0, 0, (off_t)want) == 0) {
    d->reserved = want;
    return GCB_OK;
  }
  int e = errno;
  if (e != ENOSPC && e != EDQUOT && e != EFBIG) { /* no fallocate here */
    give_up_room(d);
    d->no_reserve = true;
    return GCB_OK;
  }
  return gcb_err_set(err, GCB_EIO,
                     "%s: the disk is full (no room for the results document "
                     "to grow to %lld bytes: %s); the run stops while its end "
                     "can still be written",
                     d->path, want, strerror(e));
}

enum gcb_status gcb_document_write(struct gcb_document *d,
                                   struct gcb_err *err) {
  double start = gcb_now_s();
  enum gcb_status st = gcb_results_write(d->results, d->path, err);
  struct stat sb;
  if (st == GCB_OK && stat(d->path, &sb) == 0)
    st = grow_room(d, (long long)sb.st_size, err);
  d->written_at = gcb_now_s();
  d->write_s = d->written_at - start;
  return st;
}

enum gcb_status gcb_document_write_last(struct gcb_document *d,
                                        struct gcb_err *err) {
  give_up_room(d);
  return gcb_results_write(d->results, d->path, err);
}

enum gcb_status gcb_document_write_first(struct gcb_document *d,
                                         struct gcb_err *err) {
  double start = gcb_now_s();
  enum gcb_status st = gcb_results_write(d->results, d->path, err);
  if (st != GCB_OK)
    return st; /* written atomically: none of it is there */
  struct stat sb;
  if (stat(d->path, &sb) == 0)
    st = grow_room(d, (long long)sb.st_size, err);
  d->written_at = gcb_now_s();
  d->write_s = d->written_at - start;
  if (st != GCB_OK) {
    /* Written, but with no room held its end may not be: the "running"
     * header goes, and the run's last write (whoever ends it) says why
     * in its place, in the bytes this one freed. */
    give_up_room(d);
    unlink(d->path);
  }
  return st;
}

/* Rewrites the document after a change, or leaves it for later when the
 * last rewrite was slow and recent (see sink.h). */
static enum gcb_status refresh(struct gcb_document *d, struct gcb_err *err) {
  if (d->write_s > GCB_DOC_QUICK_S &&
      gcb_now_s() - d->written_at < GCB_DOC_SPACING * d->write_s)
    return GCB_OK;
  return gcb_document_write(d, err);
}

static enum gcb_status doc_record(void *self, const struct gcb_record *rec,
                                  struct gcb_err *err) {
  struct gcb_document *d = self;
  enum gcb_status st = gcb_results_add_record(d->results, rec, err);
  return st != GCB_OK ? st : refresh(d, err);
}

static enum gcb_status doc_skip(void *self, const struct gcb_record *rec,
                                const char *reason, struct gcb_err *err) {
  struct gcb_document *d = self;
  enum gcb_status st =
      gcb_results_add_skip(d->results, rec->bench, rec->label, reason, err);
  return st != GCB_OK ? st : refresh(d, err);
}

static enum gcb_status doc_error(void *self, const struct gcb_record *rec,
                                 int rank, enum gcb_status code,
                                 const char *message, struct gcb_err *err) {
  struct gcb_document *d = self;
  enum gcb_status st = gcb_results_add_error(d->results, rec->bench, rec->label,
                                             rank, code, message, err);
  return st != GCB_OK ? st : refresh(d, err);
}

struct gcb_sink gcb_document_sink(struct gcb_document *d) {
  return (struct gcb_sink){.name = "document",
                           .self = d,
                           .record = doc_record,
                           .skip = doc_skip,
                           .error = doc_error};
}
