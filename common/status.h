/*
 * Status codes and error detail shared by every gcbench module.
 *
 * One convention everywhere: a fallible function returns enum gcb_status
 * (GCB_OK == 0) and, on failure, leaves a one-line detail message in the
 * struct gcb_err it was given. Library code never prints, exits or aborts;
 * the command line prints the detail once and maps the status to an exit
 * code. The list below is the single source of the enum, its names, its
 * generic messages and its exit codes.
 */
#ifndef GCB_STATUS_H
#define GCB_STATUS_H

#include <stddef.h>

/*      name               generic message                             exit */
#define GCB_STATUS_LIST(X)                                                     \
  X(OK,          "success",                                          0)        \
  X(EUSAGE,      "invalid command line",                             2)        \
  X(EINPUT,      "invalid input file",                               2)        \
  X(EVALIDATION, "results failed validation",                        1)        \
  X(EUNSUPPORTED,"not supported on this backend",                    0)        \
  X(ENOMEM,      "out of memory",                                    3)        \
  X(EIO,         "input/output error",                               3)        \
  X(EMPI,        "MPI error",                                        3)        \
  X(EHWLOC,      "hwloc error",                                      3)        \
  X(ECUDA,       "CUDA error",                                       3)        \
  X(ENCCL,       "NCCL error",                                       3)        \
  X(EBLAS,       "BLAS error",                                       3)        \
  X(ETIMEOUT,    "timed out",                                        4)        \
  X(EINTR,       "interrupted by a signal (exit 128 + signal)",      130)      \
  X(EINTERNAL,   "internal error",                                   3)

enum gcb_status {
#define GCB__STATUS_ENUM(name, msg, exit) GCB_##name,
  GCB_STATUS_LIST(GCB__STATUS_ENUM)
#undef GCB__STATUS_ENUM
  GCB_STATUS_COUNT
};

#define GCB_ERRMSG_MAX 512

/* Error detail: the status of the first failure and its one-line message. */
struct gcb_err {
  enum gcb_status code;
  char msg[GCB_ERRMSG_MAX];
};

/* "EUSAGE"-style name of a status; "?" for values outside the list. */
const char *gcb_status_name(enum gcb_status s);

/* Generic one-line message of a status ("out of memory"). */
const char *gcb_status_message(enum gcb_status s);

/* Process exit code the command line uses for a status. */
int gcb_status_exit_code(enum gcb_status s);

/*
 * The exit code of a command that ends with `code` once its standard
 * output is flushed: what a command prints is its answer (a run's table,
 * compare's verdict, topo's matrix), so a standard output that did not
 * take all of it (a full disk, /dev/full, a pipe closed under an ignored
 * SIGPIPE) turns 0 or 1 into 3, said in one line on rank 0's stderr,
 * never a pass with an empty or cut answer. Other codes stay.
 */
int gcb_exit_after_stdout(int code, int rank);

/*
 * Records a failure in err (may be NULL) with a printf-style detail and
 * returns code, so callers can write `return gcb_err_set(err, GCB_EIO, ...)`.
 * The formatted message is kept one line of valid UTF-8 whatever its
 * arguments hold (a file name, a token from a file): control characters
 * (C0, DEL, C1) and bytes that are not UTF-8 are written as \xNN. A
 * message longer than GCB_ERRMSG_MAX is cut at a character, never
 * overflowed. An argument may be err->msg itself.
 */
enum gcb_status gcb_err_set(struct gcb_err *err, enum gcb_status code,
                            const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefixes the detail already in err with "prefix: " (for adding context),
 * shown as gcb_err_set shows its message. */
void gcb_err_prefix(struct gcb_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * The one escaping path for text a person reads (messages, the live table,
 * the watchdog's lines): text copied into out (len bytes) as one line of
 * valid UTF-8, control characters (C0, DEL, C1) and bytes that are not
 * UTF-8 written as \xNN, one per byte; cut at a character, never inside
 * one or an escape. gcb_err_set shows its messages this way.
 */
void gcb_text_shown(char *out, size_t len, const char *text);

/* Clears err to GCB_OK with an empty message. */
void gcb_err_clear(struct gcb_err *err);

/*
 * Bytes of the valid UTF-8 character at text (1 for ASCII, NUL included),
 * or 0 when the byte there does not start one: overlong forms, surrogates
 * and code points past U+10FFFF are invalid, as for jansson. Never reads
 * past a NUL.
 */
size_t gcb_utf8_length(const char *text);

/*
 * A copy of text (which need not be UTF-8: a file name, an argument) with
 * each byte that is not part of a valid UTF-8 character replaced by U+FFFD,
 * so that it can go into a JSON string. The caller frees it; NULL when out
 * of memory.
 */
char *gcb_utf8_copy(const char *text);

#endif
