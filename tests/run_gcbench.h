/*
 * Shared by the tests that run the gcbench executable: a scratch directory
 * per test, spawning gcbench (under mpiexec or alone) with its output in
 * files there, reading those files, and loading the results document it
 * wrote through the validating reader. Failures are criterion assertions.
 */
#ifndef GCB_RUN_GCBENCH_H
#define GCB_RUN_GCBENCH_H

#include "reports/results.h"

/* Makes the scratch directory /tmp/<prefix>-XXXXXX (suite .init). */
void gcb_test_dir_make(const char *prefix);

/* Removes it and everything in it (suite .fini). */
void gcb_test_dir_remove(void);

/* dir/name, in one of a few rotating static buffers. */
const char *gcb_test_path(const char *name);

/* Runs `mpiexec -n ranks gcbench args...` (ranks 0: gcbench alone) in this
 * process's environment, stdout and stderr to dir/stdout and dir/stderr;
 * returns the exit status. */
int gcb_test_gcbench(int ranks, const char *const *args);

/* Contents of dir/name (caller frees). */
char *gcb_test_slurp(const char *name);

/* The results document at dir/name, read and validated. */
struct gcb_results *gcb_test_load(const char *name);

/* A top-level section of a document (borrowed). */
json_t *gcb_test_section(struct gcb_results *r, const char *name);

#endif
