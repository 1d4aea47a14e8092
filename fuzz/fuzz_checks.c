/*
 * libFuzzer target: every benchmark's option checks after parsing (its
 * validate(), then count()), which fuzz_options does not reach: -b/-e/-f/-i
 * sweeps, --delay-rank, --stall-rank, --split, --shapes, --profile and
 * the model options of pattern, sizes against a memory limit. The first
 * input byte picks the benchmark, the second the world size (1 to 64) and
 * the backend (host or null), the rest is an argv cut at NUL bytes. The
 * context is made by hand, without MPI: validate() is not collective, and
 * the backend's fits() is one that takes up to 1 GiB. The contract: an
 * argv that parses is accepted with a case count from 0 to a million
 * (count() is not asked of p2p, whose count is collective), or refused with one
 * line (GCB_EUSAGE; GCB_ENOMEM from fits()).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/run/context.h"
#include "bench/run/harness.h"
#include "fuzz/contract.h"

#define MAX_ARGS 64
#define FITS_BYTES (1ull << 30)

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static enum gcb_status fuzz_fits(const struct gcb_backend *b, uint64_t bytes,
                                 const char *what, struct gcb_err *err) {
  (void)b;
  if (bytes <= FITS_BYTES)
    return GCB_OK;
  return gcb_err_set(err, GCB_ENOMEM,
                     "%s needs %llu bytes, more than the %llu there are", what,
                     (unsigned long long)bytes, FITS_BYTES);
}

static int nbenches(void) {
  int n = 0;
  while (gcb_benches[n] != NULL)
    n++;
  return n;
}

/* The fake rank 0 of a world of `size` ranks on one node. */
static void make_ctx(struct gcb_ctx *ctx, const struct gcb_backend_ops *ops,
                     int size) {
  memset(ctx, 0, sizeof *ctx);
  ctx->size = ctx->local_size = ctx->host_size = size;
  ctx->node_count = 1;
  snprintf(ctx->hostname, sizeof ctx->hostname, "fuzzhost");
  ctx->backend_ops = ops;
  ctx->cpu_threads = 1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  static struct gcb_backend_ops host, null;
  if (host.name == NULL) {
    host = *gcb_backend_find("host");
    null = *gcb_backend_find("null");
    host.fits = null.fits = fuzz_fits;
  }
  if (size < 2)
    return 0;
  const struct gcb_bench *bench = gcb_benches[data[0] % nbenches()];
  struct gcb_ctx ctx;
  make_ctx(&ctx, data[1] & 0x80 ? &null : &host, 1 + (data[1] & 0x3f));
  data += 2, size -= 2;
  char *text = malloc(size + 1);
  void *bo = calloc(1, bench->opts_size ? bench->opts_size : 1);
  if (text == NULL || bo == NULL)
    goto done;
  memcpy(text, data, size);
  text[size] = '\0';
  char *argv[MAX_ARGS + 2];
  int argc = 0;
  argv[argc++] = (char *)bench->name;
  for (char *p = text; p < text + size && argc < MAX_ARGS; p += strlen(p) + 1)
    argv[argc++] = p;
  argv[argc] = NULL;
  struct gcb_run_opts ro;
  struct gcb_option_group groups[] = {
      {"run options", gcb_run_options, &ro},
      {bench->name, bench->options, bo},
  };
  bool help = false;
  struct gcb_err err = {0};
  enum gcb_status st = gcb_options_parse(groups, bench->options ? 2 : 1, argc,
                                         argv, &help, NULL, 0, NULL, &err);
  if (st != GCB_OK || help)
    goto done;
  if (bench->validate != NULL)
    st = bench->validate(&ctx, bo, &err);
  if (!gcb_fuzz_answer_ok(st, st == GCB_OK, &err) ||
      (st != GCB_OK && st != GCB_EUSAGE && st != GCB_ENOMEM))
    gcb_fuzz_fail(&err);
  /* p2p counts the node's GPU pairs through MPI (count() may be
   * collective): its validate() is all this target can reach. */
  if (st == GCB_OK && strcmp(bench->name, "p2p") != 0) {
    int n = bench->count(&ctx, bo);
    if (n < 0 || n > 1000000) {
      fprintf(stderr, "%s: %d cases\n", bench->name, n);
      gcb_fuzz_fail(&err);
    }
  }
done:
  free(text);
  free(bo);
  return 0;
}
