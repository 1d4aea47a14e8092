/*
 * Writing output files that cannot be turned against their writer: the one
 * way gcbench writes a report file into a directory another user may also
 * write to. The directory is opened once (created with its parents when
 * asked, each one made here checked to be the one made) and every name is
 * resolved against that handle; each file is rendered into a fresh
 * temporary beside it, created O_EXCL|O_NOFOLLOW (a symlink planted at the
 * temporary name is never followed), and renamed over its final name,
 * which replaces the name itself, never what a symlink there points to. A
 * final name that is a device, a FIFO, a socket or a directory is refused
 * before anything is written. A directory can be locked (flock on
 * DIR/.gcbench.lock) so that two writers into it fail clearly instead of
 * mixing their files.
 */
#ifndef GCB_OUTFILE_H
#define GCB_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "common/status.h"

/* The lock file a locked directory holds (left in place: removing it would
 * let a third writer lock a new file while the second holds the old). */
#define GCB_OUTDIR_LOCK ".gcbench.lock"

struct gcb_outdir {
  int fd;      /* the directory, O_DIRECTORY; -1 when closed */
  int lock_fd; /* the lock file while locked, else -1 */
  char path[4096];
};

/*
 * Opens the directory at path (what: the option that named it, for the
 * message, e.g. "--output"). create: it and its parents are created when
 * missing (mode 0777 less the umask). lock: an exclusive, non-blocking
 * flock on its lock file for as long as it is open; another holder is
 * GCB_EUSAGE ("another gcbench is writing into DIR"), and so is a lock
 * name that is not a regular file (gcb_outfile_check). A path that cannot
 * be created or opened, or is not a directory, is GCB_EUSAGE naming `what`,
 * and so is a directory made here that another user swapped for a symlink
 * or a directory of its own before it was opened (gcb_outdir_is_made).
 */
enum gcb_status gcb_outdir_open(const char *path, const char *what, bool create,
                                bool lock, struct gcb_outdir *d,
                                struct gcb_err *err);

/*
 * Whether the directory open at fd is one this process has just made
 * (mkdirat, then openat with O_NOFOLLOW): this user's, empty and, when
 * closed, open to nobody else. A writer of the parent can swap the name
 * for a directory of its own (full of symlinks) between the two calls;
 * nothing may be written into that one.
 */
bool gcb_outdir_is_made(int fd, bool closed);

/* Releases the lock and closes the directory; a closed one is a no-op. */
void gcb_outdir_close(struct gcb_outdir *d);

/* Splits a file path into its directory ("." for a bare name) and its last
 * component: dir and base hold at least 4096 bytes. -1 when the path is
 * empty, too long or ends in '/'. */
int gcb_outfile_split(const char *path, char *dir, char *base);

/* One file being written. */
struct gcb_outfile {
  FILE *f; /* write the content here */
  int dirfd;
  char name[256];
  char tmp[300];
  char shown[4200]; /* DIR/NAME, for messages */
};

/*
 * Whether d's `name` may be replaced or removed by a writer: GCB_OK when
 * it is missing, a regular file or a symlink (the name is replaced, never
 * the target); GCB_EUSAGE "DIR/NAME: not a regular file; a report will not
 * replace it" for a FIFO, a device, a socket or a directory. Every name a
 * report writes, renames over or removes passes here first.
 */
enum gcb_status gcb_outfile_check(const struct gcb_outdir *d, const char *name,
                                  struct gcb_err *err);

/*
 * Starts writing d's file `name` (one component, no '/'): refuses a final
 * name gcb_outfile_check refuses, then creates the temporary
 * "NAME.tmp.PID[.N]" exclusively. GCB_EIO when it cannot.
 */
enum gcb_status gcb_outfile_begin(const struct gcb_outdir *d, const char *name,
                                  struct gcb_outfile *o, struct gcb_err *err);

/*
 * Ends the file: when st is GCB_OK, flushes, closes and renames the
 * temporary over the name (a failure is GCB_EIO), then removes the
 * temporaries of the same name that writers killed mid-write left
 * ("NAME.tmp.PID[.N]" regular files of this user whose pid is no
 * process's); otherwise, or when that fails, removes the temporary.
 * Returns st or the failure.
 */
enum gcb_status gcb_outfile_end(struct gcb_outfile *o, enum gcb_status st,
                                struct gcb_err *err);

/*
 * Removes the temporaries of `name` in the directory open at dir_fd that
 * writers killed mid-write left (a report killed by the launcher):
 * "NAME.tmp.PID[.N]" regular files of this user whose pid is no
 * process's. Anything else, another live writer's above all, stays.
 */
void gcb_outfile_remove_stale(int dir_fd, const char *name);

#endif
