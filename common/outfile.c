/*
 * Output files that stay inside their directory (common/outfile.h): every
 * name is resolved against one directory handle, temporaries are created
 * exclusively without following symlinks, and the rename that publishes a
 * file replaces the name, never a node or a symlink's target.
 */
#define _GNU_SOURCE
#include "common/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

bool gcb_outdir_is_made(int fd, bool closed) {
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid() ||
      (closed && (sb.st_mode & 07077) != 0))
    return false;
  int dup_fd = dup(fd);
  DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
  if (d == NULL) {
    if (dup_fd >= 0)
      close(dup_fd);
    return false;
  }
  bool empty = true;
  struct dirent *e;
  while (empty && (e = readdir(d)) != NULL)
    empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
  rewinddir(d); /* the offset is fd's too */
  closedir(d);
  return empty;
}

/* The directory at path, its missing components created (mkdir -p) when
 * create: each component is opened from its parent's descriptor, one made
 * here without following a symlink and only when gcb_outdir_is_made says
 * it is the one made (a writer of its parent can swap it between the
 * mkdirat and the openat: *swapped); those that were there are followed
 * as the path names them. A descriptor, or -1 with errno. */
static int open_dir(const char *path, bool create, bool *swapped) {
  *swapped = false;
  if (!create)
    return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  int fd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  char *save = NULL;
  for (char *c = strtok_r(buf, "/", &save); c != NULL && fd >= 0;
       c = strtok_r(NULL, "/", &save)) {
    bool made = mkdirat(fd, c, 0777) == 0;
    int e = made || errno == EEXIST ? 0 : errno;
    int next = e != 0 ? -1
                      : openat(fd, c,
                               O_RDONLY | O_DIRECTORY | O_CLOEXEC |
                                   (made ? O_NOFOLLOW : 0));
    e = e != 0 ? e : next < 0 ? errno : 0;
    if (made && (next < 0 || !gcb_outdir_is_made(next, false))) {
      if (next >= 0)
        close(next);
      next = -1;
      e = EPERM;
      *swapped = true; /* a symlink, or a directory not made here */
    }
    close(fd);
    fd = next;
    errno = e;
  }
  return fd;
}

/* "DIR/NAME: not a regular file ...", or GCB_OK: the one refusal of every
 * name (a FIFO would block or be replaced, a device opened). */
static enum gcb_status check_name(int dirfd, const char *shown,
                                  const char *name, struct gcb_err *err) {
  struct stat sb;
  if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
      !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode))
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s: not a regular file; a report will not replace it",
                       shown);
  return GCB_OK;
}

static enum gcb_status lock_dir(struct gcb_outdir *d, struct gcb_err *err) {
  char shown[4200];
  snprintf(shown, sizeof shown, "%s/%s", d->path, GCB_OUTDIR_LOCK);
  enum gcb_status st = check_name(d->fd, shown, GCB_OUTDIR_LOCK, err);
  if (st != GCB_OK)
    return st;
  /* O_NONBLOCK: a FIFO put there since the check does not hang the open. */
  d->lock_fd =
      openat(d->fd, GCB_OUTDIR_LOCK,
             O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (d->lock_fd < 0)
    return gcb_err_set(err, GCB_EIO, "%s/%s: cannot open the lock file (%s)",
                       d->path, GCB_OUTDIR_LOCK, strerror(errno));
  struct stat sb;
  if (fstat(d->lock_fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(d->lock_fd);
    d->lock_fd = -1;
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s: not a regular file; a report will not replace it",
                       shown);
  }
  if (flock(d->lock_fd, LOCK_EX | LOCK_NB) == 0)
    return GCB_OK;
  int e = errno;
  close(d->lock_fd);
  d->lock_fd = -1;
  if (e == EWOULDBLOCK)
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s: another gcbench is writing into this directory; "
                       "wait for it or choose another",
                       d->path);
  return gcb_err_set(err, GCB_EIO, "%s/%s: cannot lock (%s)", d->path,
                     GCB_OUTDIR_LOCK, strerror(e));
}

enum gcb_status gcb_outdir_open(const char *path, const char *what, bool create,
                                bool lock, struct gcb_outdir *d,
                                struct gcb_err *err) {
  d->fd = d->lock_fd = -1;
  snprintf(d->path, sizeof d->path, "%s", path);
  if (path[0] == '\0' || strlen(path) >= sizeof d->path)
    return gcb_err_set(err, GCB_EUSAGE, "%s: %s path", what,
                       path[0] ? "too long a" : "empty");
  bool swapped;
  d->fd = open_dir(path, create, &swapped);
  int e = d->fd < 0 ? errno : 0;
  if (swapped)
    return gcb_err_set(err, GCB_EUSAGE,
                       "%s %s: a directory made for it was replaced by "
                       "another (another user writes where it is made)",
                       what, path);
  if (e != 0)
    return gcb_err_set(err, GCB_EUSAGE, "%s %s: cannot %s directory (%s)", what,
                       path, create ? "create the" : "open the",
                       e == ENOTDIR || e == EEXIST ? "not a directory"
                                                   : strerror(e));
  return lock ? lock_dir(d, err) : GCB_OK;
}

void gcb_outdir_close(struct gcb_outdir *d) {
  if (d->lock_fd >= 0)
    close(d->lock_fd); /* releases the flock */
  if (d->fd >= 0)
    close(d->fd);
  d->fd = d->lock_fd = -1;
}

int gcb_outfile_split(const char *path, char *dir, char *base) {
  size_t n = strlen(path);
  if (n == 0 || n >= 4096 || path[n - 1] == '/')
    return -1;
  const char *slash = strrchr(path, '/');
  if (slash == NULL) {
    strcpy(dir, ".");
    strcpy(base, path);
  } else {
    size_t dlen = slash == path ? 1 : (size_t)(slash - path);
    memcpy(dir, path, dlen);
    dir[dlen] = '\0';
    strcpy(base, slash + 1);
  }
  return strlen(base) < 256 ? 0 : -1;
}

/* Creates o->tmp exclusively: NAME.tmp.PID, or with a counter when that is
 * taken (a stale one, or one planted there). */
static int create_tmp(struct gcb_outfile *o) {
  for (int k = 0; k < 100; k++) {
    if (k == 0)
      snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", o->name, (long)getpid());
    else
      snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld.%d", o->name, (long)getpid(),
               k);
    int fd = openat(o->dirfd, o->tmp,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST)
      return fd;
  }
  errno = EEXIST;
  return -1;
}

enum gcb_status gcb_outfile_check(const struct gcb_outdir *d, const char *name,
                                  struct gcb_err *err) {
  char shown[4200];
  if (strcmp(d->path, ".") == 0)
    snprintf(shown, sizeof shown, "%s", name);
  else
    snprintf(shown, sizeof shown, "%s/%s", d->path, name);
  return check_name(d->fd, shown, name, err);
}

enum gcb_status gcb_outfile_begin(const struct gcb_outdir *d, const char *name,
                                  struct gcb_outfile *o, struct gcb_err *err) {
  memset(o, 0, sizeof *o);
  o->dirfd = d->fd;
  if (strcmp(d->path, ".") == 0)
    snprintf(o->shown, sizeof o->shown, "%s", name);
  else
    snprintf(o->shown, sizeof o->shown, "%s/%s", d->path, name);
  if (name[0] == '\0' || strchr(name, '/') != NULL ||
      strlen(name) >= sizeof o->name)
    return gcb_err_set(err, GCB_EINTERNAL, "%s: not a file name", o->shown);
  snprintf(o->name, sizeof o->name, "%s", name);
  enum gcb_status st = check_name(d->fd, o->shown, name, err);
  if (st != GCB_OK)
    return st;
  int fd = create_tmp(o);
  if (fd < 0)
    return gcb_err_set(err, GCB_EIO, "%s: cannot create a temporary file (%s)",
                       o->shown, strerror(errno));
  if ((o->f = fdopen(fd, "w")) == NULL) {
    int e = errno;
    close(fd);
    unlinkat(o->dirfd, o->tmp, 0);
    return gcb_err_set(err, GCB_ENOMEM, "%s: %s", o->shown, strerror(e));
  }
  return GCB_OK;
}

/* The pid of a temporary of `name` as create_tmp makes them
 * ("NAME.tmp.PID" or "NAME.tmp.PID.N"), or 0 when entry is not one. */
static long tmp_pid(const char *entry, const char *name) {
  size_t n = strlen(name);
  if (strncmp(entry, name, n) != 0 || strncmp(entry + n, ".tmp.", 5) != 0)
    return 0;
  const char *p = entry + n + 5;
  char *end;
  if (*p < '1' || *p > '9')
    return 0;
  errno = 0;
  long pid = strtol(p, &end, 10);
  if (errno != 0 || pid <= 0)
    return 0;
  if (*end == '.' && end[1] >= '0' && end[1] <= '9') {
    const char *q = end + 1;
    while (*q >= '0' && *q <= '9')
      q++;
    end = (char *)q;
  }
  return *end == '\0' ? pid : 0;
}

void gcb_outfile_remove_stale(int dir_fd, const char *name) {
  int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (d == NULL && fd >= 0)
    close(fd);
  struct dirent *e;
  while (d != NULL && (e = readdir(d)) != NULL) {
    long pid = tmp_pid(e->d_name, name);
    struct stat sb;
    if (pid == 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 ||
        errno != ESRCH)
      continue;
    if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(sb.st_mode) && sb.st_uid == geteuid())
      unlinkat(dirfd(d), e->d_name, 0);
  }
  if (d != NULL)
    closedir(d);
}

enum gcb_status gcb_outfile_end(struct gcb_outfile *o, enum gcb_status st,
                                struct gcb_err *err) {
  if (o->f == NULL)
    return st;
  int failed = ferror(o->f) | fflush(o->f);
  int e = errno;
  failed |= fclose(o->f);
  o->f = NULL;
  if (failed && st == GCB_OK)
    st = gcb_err_set(err, GCB_EIO, "%s: write failed (%s)", o->shown,
                     strerror(e ? e : EIO));
  if (st == GCB_OK && renameat(o->dirfd, o->tmp, o->dirfd, o->name) != 0)
    st = gcb_err_set(err, GCB_EIO, "%s: cannot rename into place (%s)",
                     o->shown, strerror(errno));
  if (st != GCB_OK)
    unlinkat(o->dirfd, o->tmp, 0);
  else
    gcb_outfile_remove_stale(o->dirfd, o->name);
  return st;
}
