/*
 * Allocations that fail on demand, for the tests that make every
 * allocation of an operation fail in turn: the including binary's malloc,
 * calloc and realloc stand in front of glibc's, count the allocations
 * made (`allocations`) and fail the one numbered `fail_at` (-1: none).
 * Include it in one file of a test binary only: it defines the three
 * functions. Where valgrind's preloaded allocator stands in front, these
 * are not called (`allocations` stays 0: a test says so and skips); under
 * AddressSanitizer, whose allocator they would replace, they are not
 * defined and GCB_NO_MALLOC_HOOK says so.
 */
#ifndef GCB_TESTS_FAILING_ALLOC_H
#define GCB_TESTS_FAILING_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
