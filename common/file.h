/*
 * Whole-file reading with a size limit: the one way gcbench reads an input
 * file it will parse (results documents, criteria, foreign formats).
 * Regular files, pipes and FIFOs are read whole (a pipe cannot be reopened,
 * so it is read once, here); directories and device nodes are refused
 * before any byte is read, so /dev/zero or a terminal never reaches a
 * parser; a silent pipe, or a FIFO nobody writes to, is given up after a
 * deadline.
 */
#ifndef GCB_FILE_H
#define GCB_FILE_H

#include <stddef.h>

#include "common/status.h"

/* The default limit for the documents gcbench reads. */
#define GCB_FILE_MAX_BYTES ((size_t)256 << 20)

/* How long gcb_file_read waits for a pipe or FIFO that says nothing. */
#define GCB_FILE_WAIT_MS 10000

/*
 * Reads all of path into a new NUL-terminated buffer (*text, freed by the
 * caller; *len excludes the NUL). More than `limit` bytes is refused, for a
 * regular file before reading (so is one over GCB_FILE_MAX_BYTES with a
 * hole: a sparse file) and for a pipe or a file whose size says nothing
 * (procfs) as soon as it is exceeded; a pipe or FIFO silent for
 * GCB_FILE_WAIT_MS (a FIFO with no writer) is given up.
 * Returns GCB_EINPUT (cannot open, a directory, a device, too large,
 * sparse, silent, a read error: all bad input) or GCB_ENOMEM, with the path
 * in err's message; *text is NULL and *len 0 then.
 */
enum gcb_status gcb_file_read(const char *path, size_t limit, char **text,
                              size_t *len, struct gcb_err *err);

/*
 * gcb_file_read, but a pipe or FIFO that says nothing for wait_ms
 * milliseconds is given up with GCB_EINPUT ("nothing to read for N s"),
 * so a FIFO nobody writes to, or a writer that stalls, cannot hang the
 * reader. wait_ms < 0 waits for ever. Files are opened without blocking,
 * so opening a FIFO with no writer returns at once.
 */
enum gcb_status gcb_file_read_wait(const char *path, size_t limit, int wait_ms,
                                   char **text, size_t *len,
                                   struct gcb_err *err);

#endif
