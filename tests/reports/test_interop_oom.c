/*
 * Converting another tool's file when memory runs out: every allocation
 * of a conversion is made to fail in turn (this binary's malloc, calloc
 * and realloc stand in front of glibc's), and the conversion must end
 * with a model or a status and its line, never a crash; the valgrind pass
 * over the unit tests then proves that nothing the failed conversion had
 * built leaks. Files of each converter from tests/data/interop.
 *
 * Not under AddressSanitizer, whose allocator these functions would
 * replace.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "reports/interop/interop.h"
#include "tests/reports/report_fixture.h"

#if defined(__SANITIZE_ADDRESS__)
#define GCB_NO_MALLOC_HOOK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GCB_NO_MALLOC_HOOK 1
#endif
#endif

#ifndef GCB_NO_MALLOC_HOOK
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);

/* Allocations made so far, and the one that fails (-1: none). */
static long allocations, fail_at = -1;

static bool fails(void) {
  return allocations++ == fail_at;
}

void *malloc(size_t size) {
  return fails() ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
  return fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size) {
  return fails() ? NULL : __libc_realloc(p, size);
}
#endif

/* Converts text with allocation number `fail` (from 0; -1: none) failing;
 * the status, *ncases the model's cases. */
static enum gcb_status convert(const char *text, size_t len, const char *name,
                               long fail, size_t *ncases, struct gcb_err *err) {
  struct gcb_results *res = NULL;
  struct gcb_model *m = NULL;
#ifndef GCB_NO_MALLOC_HOOK
  allocations = 0;
  fail_at = fail;
#else
  (void)fail;
#endif
  enum gcb_status st =
      gcb_interop_parse(text, len, name, NULL, 0, &res, &m, NULL, err);
#ifndef GCB_NO_MALLOC_HOOK
  fail_at = -1;
#endif
  *ncases = m != NULL ? m->ncases : 0;
  gcb_model_free(m);
  gcb_results_free(res);
  return st;
}

Test(interop_oom, a_conversion_out_of_memory_ends_with_a_status_not_a_crash) {
#ifdef GCB_NO_MALLOC_HOOK
  cr_skip_test("AddressSanitizer owns malloc here");
#else
  static const char *const files[] = {
      "nccl-tests-allreduce.json",
      "rccl-tests-93-allreduce.jsonl",
      "parallelcluster-p5-openmpi-osu_latency.txt",
      "nvbandwidth-50-v0.8-a6000.txt",
      "dcgm-warnings-nvbandwidth-2gpu.json",
      "nccl-tests-82-broadcast-v100.txt"};
  enum { TRIES = 150 }; /* per file, spread over its allocations */
  for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
    char path[512];
    size_t len, ncases;
    snprintf(path, sizeof path, "%s/interop/%s", GCB_TEST_DATA, files[f]);
    char *text = fx_slurp(path, &len);
    cr_assert_not_null(text, "%s", path);
    struct gcb_err err = {0};
    cr_assert_eq(convert(text, len, files[f], -1, &ncases, &err), GCB_OK, "%s",
                 err.msg);
    long total = allocations, step = total / TRIES + 1;
    cr_assert_gt(total, 50, "%s: %ld allocations seen", files[f], total);
    for (long k = 0; k < total; k += step) {
      err = (struct gcb_err){0};
      enum gcb_status st = convert(text, len, files[f], k, &ncases, &err);
      /* jansson says "out of memory" as a parse error: the file is then
       * not recognised, a refusal all the same */
      cr_expect(st == GCB_OK || st == GCB_ENOMEM || st == GCB_EINPUT,
                "%s, allocation %ld of %ld failing: status %d (%s)", files[f],
                k, total, (int)st, err.msg);
      cr_expect(st != GCB_OK || ncases > 0, "%s, allocation %ld: no case",
                files[f], k);
      cr_expect(st == GCB_OK || err.msg[0] != '\0',
                "%s, allocation %ld: a status without its line", files[f], k);
    }
    free(text);
  }
#endif
}
