/*
 * NCCL's integer version code, decoded once for the whole suite: the NCCL
 * transport names the library it runs on (collectives/nccl.c), the report
 * tool the library an nccl-tests JSON file names
 * (reports/interop/interop_nccl_json.c). Pure function, no state.
 */
#ifndef GCB_NCCL_VERSION_H
#define GCB_NCCL_VERSION_H

#include <stddef.h>

/* NCCL's version code (ncclGetVersion, NCCL_VERSION_CODE, nccl-tests'
 * "nccl_version") as "2.28.9" in buf (len bytes, truncated to fit);
 * "unknown" for a code <= 0, which no release has. */
void gcb_nccl_version_format(char *buf, size_t len, long long code);

#endif
