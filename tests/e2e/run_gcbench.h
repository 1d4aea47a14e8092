/*
 * Shared by the tests that run the gcbench executable: a scratch directory
 * per test, spawning gcbench (under mpiexec or alone) with its output in
 * files there, waiting for it with a limit, reading those files, and
 * loading the results document it wrote through the validating reader.
 * Failures are criterion assertions.
 */
#ifndef GCB_RUN_GCBENCH_H
#define GCB_RUN_GCBENCH_H

#include <sys/types.h>

#include "reports/document/results.h"

/* Makes the scratch directory /tmp/<prefix>-XXXXXX (suite .init). */
void gcb_test_dir_make(const char *prefix);

/* Removes it and everything in it (suite .fini). */
void gcb_test_dir_remove(void);

/* The scratch directory itself. */
const char *gcb_test_dir(void);

/* dir/name, in one of 16 rotating static buffers. */
const char *gcb_test_path(const char *name);

/* Runs `mpiexec -n ranks gcbench args...` (ranks 0: gcbench alone) in this
 * process's environment, stdout and stderr to dir/stdout and dir/stderr;
 * returns the exit status (a crash fails the test). */
int gcb_test_gcbench(int ranks, const char *const *args);

/* A started command: its pid and when it started (CLOCK_MONOTONIC). */
struct gcb_test_job {
  pid_t pid;
  double start;
};

/* Starts `mpiexec LAUNCHER... -n ranks WRAP... gcbench args...` (ranks 0:
 * `WRAP... gcbench args...`), output as for gcb_test_gcbench. launcher and
 * wrap may be NULL. */
struct gcb_test_job gcb_test_start(int ranks, const char *const *launcher,
                                   const char *const *wrap,
                                   const char *const *args);

/* Sends sig to pid (a rank of job, or the job itself) and restarts job's
 * clock: gcb_test_finish's limit then counts from the signal, not from the
 * start, so that a loaded machine's slow start-up does not eat the time a
 * test gives the job to end. kill's result. */
int gcb_test_kill(struct gcb_test_job *job, pid_t pid, int sig);

/* Waits for the job, at most `limit` seconds (0: no limit; past it the job
 * is killed and the test fails); returns the wait status and, when elapsed
 * is not NULL, the seconds since the start. */
int gcb_test_finish(struct gcb_test_job job, double limit, double *elapsed);

/* gcb_test_gcbench with a limit (as gcb_test_finish) and the time taken. */
int gcb_test_run(int ranks, const char *const *args, double limit,
                 double *elapsed);

/* Waits (up to 90 s) until the running job's document dir/name holds `n`
 * cases; returns the pid of rank `rank` it records. Fails the test when
 * the job ends first. */
long gcb_test_pid_after(const char *name, size_t n, int rank,
                        struct gcb_test_job job);

/* A pipe that a child process fills with `len` bytes of text (of 'x' when
 * text is NULL) and closes: what the shell's <(cat FILE) hands a command.
 * path is its read end, "/dev/fd/N", inherited by gcbench. */
struct gcb_test_feed {
  int fd;
  pid_t writer;
  char path[32];
};

void gcb_test_feed_start(struct gcb_test_feed *feed, const char *text,
                         size_t len);

/* Closes the read end and reaps the writer. */
void gcb_test_feed_end(struct gcb_test_feed *feed);

/* Contents of dir/name (caller frees). */
char *gcb_test_slurp(const char *name);

/* Contents of the file at path, NUL-terminated (caller frees). */
char *gcb_test_read(const char *path);

/* The results document at dir/name, read and validated. */
struct gcb_results *gcb_test_load(const char *name);

/* A top-level section of a document (borrowed). */
json_t *gcb_test_section(struct gcb_results *r, const char *name);

/* The port of rank 0's watchdog (pid0): the one loopback port pid0
 * listens on that pid1's watchdog is connected to (MPI's ranks on one node
 * talk through shared memory, and MPI's own listeners are left alone:
 * flooding them is MPI's problem, not gcbench's); -1 while there is not
 * exactly one. */
int gcb_test_watchdog_port(long pid0, long pid1);

/* A connection to the loopback port; -1 when it fails. */
int gcb_test_connect(int port);

#endif
