/*
 * NCCL's version codes (common/nccl_version.h).
 */
#include "common/nccl_version.h"

#include <stdio.h>

/* nccl.h's NCCL_VERSION(X, Y, Z): X*1000 + Y*100 + Z up to 2.8,
 * X*10000 + Y*100 + Z from 2.9 (the first code of that form is 20900). */
void gcb_nccl_version_format(char *buf, size_t len, long long code) {
  long long major_unit = code >= 10000 ? 10000 : 1000;
  if (code <= 0)
    snprintf(buf, len, "unknown");
  else
    snprintf(buf, len, "%lld.%lld.%lld", code / major_unit,
             code % major_unit / 100, code % 100);
}
