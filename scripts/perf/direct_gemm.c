/*
 * Reference for scripts/perf/host-gemm-vs-openblas: OpenBLAS GEMM called
 * directly, timed by the rule gcbench's harness uses (warm-up calls, then
 * the median of individually timed calls; GFLOP/s = 2mnk / t / 1e9), so
 * that any gap between the two is overhead gcbench adds.
 *
 * usage: direct_gemm M N K THREADS ITERS WARMUP [fp32|fp64]
 * prints the median GFLOP/s on stdout.
 */
#define _POSIX_C_SOURCE 200809L

#include <cblas.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Random data in [-1, 1): never zeros, so no fast paths. */
static double next(uint64_t *s) {
  *s = *s * 6364136223846793005u + 1442695040888963407u;
  return (double)((*s >> 11) | 1) * 0x1.0p-52 - 1.0;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One call of C = A * B, column-major, in the element type. */
static void gemm(int fp32, int m, int n, int k, void *a, void *b, void *c) {
  if (fp32)
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, m,
                b, k, 0.0f, c, m);
  else
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, m,
                b, k, 0.0, c, m);
}

static void *random_matrix(int fp32, size_t n, uint64_t seed) {
  void *x = malloc(n * (fp32 ? sizeof(float) : sizeof(double)));
  for (size_t i = 0; x != NULL && i < n; i++) {
    if (fp32)
      ((float *)x)[i] = (float)next(&seed);
    else
      ((double *)x)[i] = next(&seed);
  }
  return x;
}

int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: %s M N K THREADS ITERS WARMUP [fp32|fp64]\n",
            argv[0]);
    return 2;
  }
  int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
  int threads = atoi(argv[4]), iters = atoi(argv[5]), warmup = atoi(argv[6]);
  int fp32 = argc < 8 || strcmp(argv[7], "fp64") != 0;
  if (m < 1 || n < 1 || k < 1 || threads < 1 || iters < 1 || warmup < 0) {
    fprintf(stderr, "%s: bad arguments\n", argv[0]);
    return 2;
  }
  openblas_set_num_threads(threads);
  void *a = random_matrix(fp32, (size_t)m * k, 1);
  void *b = random_matrix(fp32, (size_t)k * n, 2);
  void *c = calloc((size_t)m * n, sizeof(double));
  double *t = malloc((size_t)iters * sizeof *t);
  if (a == NULL || b == NULL || c == NULL || t == NULL) {
    fprintf(stderr, "%s: out of memory\n", argv[0]);
    return 3;
  }
  for (int i = 0; i < warmup; i++)
    gemm(fp32, m, n, k, a, b, c);
  for (int i = 0; i < iters; i++) {
    double t0 = now();
    gemm(fp32, m, n, k, a, b, c);
    t[i] = now() - t0;
  }
  qsort(t, (size_t)iters, sizeof *t, cmp);
  double median =
      iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2;
  printf("%.3f\n", 2.0 * m * n * (double)k / median / 1e9);
  free(a);
  free(b);
  free(c);
  free(t);
  return 0;
}
