/* The benchmark table: adding a benchmark is one file and one row here. */
#include <string.h>

#include "bench/bench.h"

const struct gcb_bench *const gcb_benches[] = {
    &gcb_bench_gemm,
    &gcb_bench_membw,
    &gcb_bench_pcie,
    &gcb_bench_p2p,
    &gcb_bench_netmap,
    &gcb_bench_launch,
    &gcb_bench_coll,
    &gcb_bench_pattern,
    &gcb_bench_burn,
    &gcb_bench_null, /* hidden: tests the harness */
    NULL,
};

const struct gcb_bench *gcb_bench_find(const char *name) {
  for (const struct gcb_bench *const *b = gcb_benches; *b; b++)
    if (strcmp((*b)->name, name) == 0)
      return *b;
  return NULL;
}
