/*
 * Reference for scripts/perf/host-membw-vs-loop: the plainest copy loop,
 * c[i] = a[i] over two arrays of doubles, compiled with gcc -O3 like
 * kernels/host.c, timed by the harness's rule (warm-up passes, then the
 * median of individually timed passes). GB/s counts 16 bytes per element,
 * read + write, without write-allocate traffic (the STREAM convention).
 *
 * usage: plain_copy ELEMENTS ITERS WARMUP
 * prints the median GB/s on stdout.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* noinline: one call per timed pass, as the harness calls its kernel. */
__attribute__((noinline)) static void copy(double *restrict c,
                                           const double *restrict a, size_t n) {
  for (size_t i = 0; i < n; i++)
    c[i] = a[i];
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s ELEMENTS ITERS WARMUP\n", argv[0]);
    return 2;
  }
  size_t n = strtoull(argv[1], NULL, 10);
  int iters = atoi(argv[2]), warmup = atoi(argv[3]);
  if (n < 1 || iters < 1 || warmup < 0) {
    fprintf(stderr, "%s: bad arguments\n", argv[0]);
    return 2;
  }
  double *a = aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64);
  double *c = aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64);
  double *t = malloc((size_t)iters * sizeof *t);
  if (a == NULL || c == NULL || t == NULL) {
    fprintf(stderr, "%s: out of memory\n", argv[0]);
    return 3;
  }
  uint64_t s = 1;
  for (size_t i = 0; i < n; i++) { /* first touch by this thread */
    s = s * 6364136223846793005u + 1442695040888963407u;
    a[i] = (double)((s >> 11) | 1) * 0x1.0p-52 - 1.0;
    c[i] = 0.5;
  }
  for (int i = 0; i < warmup; i++)
    copy(c, a, n);
  for (int i = 0; i < iters; i++) {
    double t0 = now();
    copy(c, a, n);
    t[i] = now() - t0;
  }
  qsort(t, (size_t)iters, sizeof *t, cmp);
  double median =
      iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2;
  if (c[n - 1] != a[n - 1]) { /* uses the output, and checks it */
    fprintf(stderr, "%s: copy is wrong\n", argv[0]);
    return 1;
  }
  printf("%.3f\n", 16.0 * (double)n / median / 1e9);
  free(a);
  free(c);
  free(t);
  return 0;
}
