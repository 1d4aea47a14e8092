/*
 * The host backend: benchmarks on CPUs, so that the suite measures CPU
 * clusters and the whole pipeline runs on machines with no GPU.
 *
 * GEMM is OpenBLAS (fp32, fp64) with as many threads as the rank may use.
 * Memory bandwidth is STREAM's kernels as plain restrict-qualified loops
 * that the compiler vectorises (this file is built with -O3), run on one
 * thread per rank: ranks are the parallelism, each one first-touches its
 * own arrays, so pages land on the NUMA node of the CPUs it is bound to.
 * Times are CLOCK_MONOTONIC around back-to-back repetitions.
 *
 * Memory is checked before allocating (common/hostmem.h): an operation
 * whose buffers exceed this rank's share of the memory available when the
 * backend was opened (MemAvailable, the cgroup's limit), or the address
 * space RLIMIT_AS leaves it, fails with GCB_ENOMEM instead of waking the
 * OOM killer halfway through or leaving OpenBLAS retrying mmap for ever.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT: the rank's cores */
#include "common/clock.h"
#include "kernels/backend.h"

#include <cblas.h>
#include <dirent.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/file.h"
#include "common/hostmem.h"

/* Where burn_read finds the machine's sensors: looked up at its first
 * call, so that each later reading only reads a few small files. */
#define BURN_MAX_TEMPS 64
#define BURN_MAX_RAPL 8
struct burn_sensors {
  bool found;
  char root[96]; /* "" (the machine's); tests point it at a fake /sys */
  int ntemps, nrapl;
  char temps[BURN_MAX_TEMPS][192];  /* millidegrees C */
  char rapl[BURN_MAX_RAPL][192];    /* package energy, microjoules */
  double rapl_range[BURN_MAX_RAPL]; /* max_energy_range_uj: the wrap */
  double last_uj[BURN_MAX_RAPL];    /* previous reading; NAN: none */
  double last_t;                    /* when it was taken */
};

struct gcb_backend {
  int threads;            /* BLAS threads of this rank */
  struct gcb_hostmem mem; /* the node's memory when the backend opened */
  int local_size;
  struct burn_sensors burn;
};

/* Address space OpenBLAS maps per thread for its packing buffers, on
 * first use and never touched whole: BUFFER_SIZE, 32 << 22 on x86_64
 * (common_x86_64.h), seen here as VmSize growing by 128 MiB per thread
 * at the first GEMM. Only the RLIMIT_AS bound counts it. */
#define BLAS_BUFFER_BYTES (UINT64_C(128) << 20)

/* ---- helpers ------------------------------------------------------------- */

/* a*b into *out; false on uint64 overflow. */
static bool mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
  if (a != 0 && b > UINT64_MAX / a)
    return false;
  *out = a * b;
  return true;
}

/* need bytes (and reserve bytes of address space) against the rank's
 * share of the node's memory at open and its address space now, which
 * grows as the process maps memory. */
static enum gcb_status check_fit(const struct gcb_backend *b, uint64_t need,
                                 uint64_t reserve, const char *what,
                                 struct gcb_err *err) {
  struct gcb_hostmem now = b->mem;
  now.address_space = gcb_hostmem_address_space(NULL);
  return gcb_hostmem_fits(&now, b->local_size, need, reserve, what, err);
}

static enum gcb_status check_memory(const struct gcb_backend *b, uint64_t need,
                                    const char *what, struct gcb_err *err) {
  return check_fit(b, need, 0, what, err);
}

/* aligned_alloc wants a size that is a multiple of the alignment. */
static void *alloc64(uint64_t bytes) {
  return aligned_alloc(64, (size_t)((bytes + 63) / 64 * 64));
}

/* Counts one compared entry into a check. NaN and Inf are always wrong;
 * max_error stays finite, since JSON has no NaN or Infinity. */
static void tally(struct gcb_check *c, double error) {
  if (!(error <= c->tolerance))
    c->wrong++;
  if (isfinite(error) && error > c->max_error)
    c->max_error = error;
}

/* A distinct, reproducible random stream per buffer of one operation. */
static uint64_t stream_seed(uint64_t seed, uint64_t stream) {
  return seed ^ (stream * UINT64_C(0xd1b54a32d192ed03));
}

/* ---- backend ------------------------------------------------------------- */

static bool host_usable(char *why, size_t why_len) {
  snprintf(why, why_len, "%ld CPUs online", sysconf(_SC_NPROCESSORS_ONLN));
  return true;
}

static enum gcb_status host_open(const struct gcb_backend_args *args,
                                 struct gcb_backend **out,
                                 struct gcb_err *err) {
  struct gcb_backend *b = calloc(1, sizeof *b);
  if (b == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "host backend: out of memory");
  b->threads = args->cpu_threads >= 1 ? args->cpu_threads : 1;
  b->local_size = args->local_size >= 1 ? args->local_size : 1;
  /* Ranks of a node open together, before any of them allocates, so an
   * equal share of what is free now keeps them all clear of each other. */
  gcb_hostmem_read(NULL, &b->mem);
  openblas_set_num_threads(b->threads);
  *out = b;
  return GCB_OK;
}

static void host_close(struct gcb_backend *b) {
  free(b);
}

/* The "model name" line of /proc/cpuinfo (x86); other architectures have
 * no such line and get "unknown CPU". */
static void cpu_model(char *buf, size_t len) {
  snprintf(buf, len, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f == NULL)
    return;
  char line[512];
  while (fgets(line, sizeof line, f) != NULL) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) != 0 || colon == NULL)
      continue;
    colon += strspn(colon + 1, " \t") + 1;
    colon[strcspn(colon, "\n")] = '\0';
    if (*colon != '\0')
      snprintf(buf, len, "%s", colon);
    break;
  }
  fclose(f);
}

static enum gcb_status host_device_info(struct gcb_backend *b,
                                        struct gcb_device_info *out,
                                        struct gcb_err *err) {
  (void)err;
  *out = (struct gcb_device_info){.index = -1, .threads = b->threads};
  cpu_model(out->name, sizeof out->name);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    out->memory_bytes = (uint64_t)pages * (uint64_t)page;
  return GCB_OK;
}

/* openblas_get_config() already reads "OpenBLAS 0.3.21 DYNAMIC_ARCH ...". */
static void host_versions(struct gcb_backend *b, char *buf, size_t len) {
  (void)b;
  const char *config = openblas_get_config();
  if (config == NULL)
    config = "unknown";
  snprintf(buf, len, "%s%s", strncmp(config, "OpenBLAS", 8) ? "OpenBLAS " : "",
           config);
}

/* ---- GEMM ---------------------------------------------------------------- */

/* How many entries of C the check compares (all of C when smaller). */
#define GEMM_CHECK_SAMPLES 256

struct host_gemm {
  enum gcb_dtype dtype;
  int m, n, k;
  uint64_t seed;
  void *a, *b, *c;
};

static void gemm_release(void *state) {
  struct host_gemm *g = state;
  if (g == NULL)
    return;
  free(g->a);
  free(g->b);
  free(g->c);
  free(g);
}

static enum gcb_status gemm_run(void *state, int reps, double *seconds,
                                struct gcb_err *err) {
  const struct host_gemm *g = state;
  if (reps < 1)
    return gcb_err_set(err, GCB_EINTERNAL, "gemm: %d repetitions", reps);
  double t0 = gcb_now_s();
  for (int r = 0; r < reps; r++) {
    if (g->dtype == GCB_DTYPE_FP32)
      cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, g->m, g->n, g->k,
                  1.0f, g->a, g->m, g->b, g->k, 0.0f, g->c, g->m);
    else
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, g->m, g->n, g->k,
                  1.0, g->a, g->m, g->b, g->k, 0.0, g->c, g->m);
  }
  *seconds = gcb_now_s() - t0;
  return GCB_OK;
}

static long double gemm_elem(const struct host_gemm *g, const void *x,
                             size_t i) {
  return g->dtype == GCB_DTYPE_FP32 ? ((const float *)x)[i]
                                    : ((const double *)x)[i];
}

/* Componentwise error of C(i,j) against a long double reference, in units
 * of sum_p |A(i,p) B(p,j)|: the quantity the classic bound
 * |C - AB| <= gamma_k |A||B| constrains. Inputs have no zeros, so the
 * denominator is positive. */
static double gemm_entry_error(const struct host_gemm *g, size_t i, size_t j) {
  size_t m = (size_t)g->m, k = (size_t)g->k;
  long double ref = 0, mag = 0;
  for (size_t p = 0; p < k; p++) {
    long double prod =
        gemm_elem(g, g->a, i + p * m) * gemm_elem(g, g->b, p + j * k);
    ref += prod;
    mag += fabsl(prod);
  }
  return (double)(fabsl(gemm_elem(g, g->c, i + j * m) - ref) / mag);
}

static enum gcb_status gemm_check(void *state, struct gcb_check *out,
                                  struct gcb_err *err) {
  (void)err;
  const struct host_gemm *g = state;
  uint64_t entries = (uint64_t)g->m * (uint64_t)g->n;
  bool all = entries <= GEMM_CHECK_SAMPLES;
  double unit = g->dtype == GCB_DTYPE_FP32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
  /* gamma_k ~ k u, doubled for safety. */
  *out = (struct gcb_check){
      .checked = true,
      .samples = all ? entries : GEMM_CHECK_SAMPLES,
      .tolerance = 2.0 * g->k * unit,
      .method = "componentwise relative error vs long double reference on "
                "sampled entries",
  };
  /* Positions from the shared generator: the same sample for a seed on
   * every run and every backend that follows this rule. */
  double pick[GEMM_CHECK_SAMPLES];
  gcb_fill_random(pick, GEMM_CHECK_SAMPLES, stream_seed(g->seed, 3));
  for (uint64_t s = 0; s < out->samples; s++) {
    uint64_t idx = all ? s : (uint64_t)((pick[s] + 1.0) / 2 * (double)entries);
    idx = idx < entries ? idx : entries - 1;
    double e = gemm_entry_error(g, idx % (uint64_t)g->m, idx / (uint64_t)g->m);
    tally(out, e);
  }
  return GCB_OK;
}

/* Test hook (struct gcb_op's plant): the entry the check compares first
 * becomes wrong, far beyond any tolerance. */
static void gemm_plant(void *state) {
  struct host_gemm *g = state;
  uint64_t entries = (uint64_t)g->m * (uint64_t)g->n, idx = 0;
  if (entries > GEMM_CHECK_SAMPLES) { /* the check's first position */
    double pick[GEMM_CHECK_SAMPLES];
    gcb_fill_random(pick, GEMM_CHECK_SAMPLES, stream_seed(g->seed, 3));
    idx = (uint64_t)((pick[0] + 1.0) / 2 * (double)entries);
    idx = idx < entries ? idx : entries - 1;
  }
  if (g->dtype == GCB_DTYPE_FP32)
    ((float *)g->c)[idx] = ((float *)g->c)[idx] * 2.0f + 1.0f;
  else
    ((double *)g->c)[idx] = ((double *)g->c)[idx] * 2.0 + 1.0;
}

/* OpenBLAS has dgemm and sgemm only. */
static bool host_gemm_has(enum gcb_dtype t) {
  return t == GCB_DTYPE_FP32 || t == GCB_DTYPE_FP64;
}

/* Dimensions, dtype and memory, all before anything is allocated. */
static enum gcb_status gemm_validate(const struct gcb_backend *b,
                                     const struct gcb_gemm_params *p,
                                     struct gcb_err *err) {
  if (!host_gemm_has(p->dtype))
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "host backend has no %s GEMM (fp32, fp64 only)",
                       gcb_dtype_name(p->dtype));
  if (p->m == 0 || p->n == 0 || p->k == 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "gemm: zero dimension %" PRIu64 "x%" PRIu64 "x%" PRIu64,
                       p->m, p->n, p->k);
  if (p->batch > 1)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "host backend has no batched GEMM (%" PRIu64
                       " products in one call)",
                       p->batch);
  /* OpenBLAS here takes 32-bit ints for sizes and leading dimensions. */
  if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX)
    return gcb_err_set(
        err, GCB_EUNSUPPORTED,
        "host GEMM dimensions are limited to %d (OpenBLAS 32-bit "
        "integers)",
        INT32_MAX);
  char what[128];
  snprintf(what, sizeof what, "%s GEMM %" PRIu64 "x%" PRIu64 "x%" PRIu64,
           gcb_dtype_name(p->dtype), p->m, p->n, p->k);
  uint64_t mk, kn, mn, bytes;
  if (!mul_u64(p->m, p->k, &mk) || !mul_u64(p->k, p->n, &kn) ||
      !mul_u64(p->m, p->n, &mn) || mk > UINT64_MAX - kn ||
      mk + kn > UINT64_MAX - mn ||
      !mul_u64(mk + kn + mn, gcb_dtype_bytes(p->dtype), &bytes))
    return gcb_err_set(err, GCB_ENOMEM, "%s needs more than %" PRIu64 " bytes",
                       what, UINT64_MAX);
  return check_fit(b, bytes, BLAS_BUFFER_BYTES * (uint64_t)b->threads, what,
                   err);
}

static void gemm_fill(struct host_gemm *g, uint64_t mk, uint64_t kn,
                      uint64_t mn) {
  if (g->dtype == GCB_DTYPE_FP32) {
    gcb_fill_random_f32(g->a, mk, stream_seed(g->seed, 1));
    gcb_fill_random_f32(g->b, kn, stream_seed(g->seed, 2));
  } else {
    gcb_fill_random(g->a, mk, stream_seed(g->seed, 1));
    gcb_fill_random(g->b, kn, stream_seed(g->seed, 2));
  }
  /* Zero C, so a check before any run fails instead of reading garbage. */
  memset(g->c, 0, mn * gcb_dtype_bytes(g->dtype));
}

static enum gcb_status host_gemm(struct gcb_backend *b,
                                 const struct gcb_gemm_params *p,
                                 struct gcb_op *op, struct gcb_err *err) {
  enum gcb_status st = gemm_validate(b, p, err);
  if (st != GCB_OK)
    return st;
  struct host_gemm *g = calloc(1, sizeof *g);
  if (g == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "gemm: out of memory");
  *g = (struct host_gemm){.dtype = p->dtype,
                          .m = (int)p->m,
                          .n = (int)p->n,
                          .k = (int)p->k,
                          .seed = p->seed};
  size_t esz = gcb_dtype_bytes(p->dtype);
  uint64_t mk = p->m * p->k, kn = p->k * p->n, mn = p->m * p->n;
  g->a = alloc64(mk * esz);
  g->b = alloc64(kn * esz);
  g->c = alloc64(mn * esz);
  if (g->a == NULL || g->b == NULL || g->c == NULL) {
    gemm_release(g);
    return gcb_err_set(err, GCB_ENOMEM,
                       "gemm: cannot allocate %" PRIu64 " bytes",
                       (mk + kn + mn) * esz);
  }
  gemm_fill(g, mk, kn, mn);
  openblas_set_num_threads(b->threads);
  *op = (struct gcb_op){.state = g,
                        .run = gemm_run,
                        .check = gemm_check,
                        .release = gemm_release,
                        .plant = gemm_plant};
  return GCB_OK;
}

/* ---- memory bandwidth ---------------------------------------------------- */

/* STREAM's scalar. */
#define STREAM_SCALAR 3.0

typedef void (*memkernel_fn)(double *restrict a, double *restrict b,
                             double *restrict c, size_t n, double s);

/* No kernel reads an array it writes, so repetitions are idempotent and
 * the check after the timed runs sees the output of any one of them. */
static void mk_copy(double *restrict a, double *restrict b, double *restrict c,
                    size_t n, double s) {
  (void)b, (void)s;
  for (size_t i = 0; i < n; i++)
    c[i] = a[i];
}

static void mk_scale(double *restrict a, double *restrict b, double *restrict c,
                     size_t n, double s) {
  (void)a;
  for (size_t i = 0; i < n; i++)
    b[i] = s * c[i];
}

static void mk_add(double *restrict a, double *restrict b, double *restrict c,
                   size_t n, double s) {
  (void)s;
  for (size_t i = 0; i < n; i++)
    c[i] = a[i] + b[i];
}

static void mk_triad(double *restrict a, double *restrict b, double *restrict c,
                     size_t n, double s) {
  for (size_t i = 0; i < n; i++)
    a[i] = b[i] + s * c[i];
}

static const memkernel_fn memkernels[GCB_MEMKERNEL_COUNT] = {
    [GCB_MEMKERNEL_COPY] = mk_copy,
    [GCB_MEMKERNEL_SCALE] = mk_scale,
    [GCB_MEMKERNEL_ADD] = mk_add,
    [GCB_MEMKERNEL_TRIAD] = mk_triad,
};

struct host_stream {
  enum gcb_memkernel kernel;
  /* Called through the state, so the compiler cannot inline the kernel
   * into the repetition loop and merge repetitions. */
  memkernel_fn fn;
  size_t n;
  double *a, *b, *c;
};

static void stream_release(void *state) {
  struct host_stream *s = state;
  if (s == NULL)
    return;
  free(s->a);
  free(s->b);
  free(s->c);
  free(s);
}

static enum gcb_status stream_run(void *state, int reps, double *seconds,
                                  struct gcb_err *err) {
  const struct host_stream *s = state;
  if (reps < 1)
    return gcb_err_set(err, GCB_EINTERNAL, "stream: %d repetitions", reps);
  double t0 = gcb_now_s();
  for (int r = 0; r < reps; r++)
    s->fn(s->a, s->b, s->c, s->n, STREAM_SCALAR);
  *seconds = gcb_now_s() - t0;
  return GCB_OK;
}

/* Error of one output in units of the magnitude of its terms: FMA
 * contraction may round b + s*c once where the check rounds twice, and the
 * difference scales with |b| + |s*c|, not with the (possibly tiny) sum. */
static double stream_error(const struct host_stream *s, size_t i) {
  const double q = STREAM_SCALAR;
  double out, want, mag;
  switch (s->kernel) {
  case GCB_MEMKERNEL_COPY:
    out = s->c[i], want = s->a[i], mag = fabs(want);
    break;
  case GCB_MEMKERNEL_SCALE:
    out = s->b[i], want = q * s->c[i], mag = fabs(want);
    break;
  case GCB_MEMKERNEL_ADD:
    out = s->c[i], want = s->a[i] + s->b[i];
    mag = fabs(s->a[i]) + fabs(s->b[i]);
    break;
  default:
    out = s->a[i], want = s->b[i] + q * s->c[i];
    mag = fabs(s->b[i]) + fabs(q * s->c[i]);
    break;
  }
  return fabs(out - want) / mag;
}

static enum gcb_status stream_check(void *state, struct gcb_check *out,
                                    struct gcb_err *err) {
  (void)err;
  const struct host_stream *s = state;
  *out = (struct gcb_check){.checked = true,
                            .samples = s->n,
                            .tolerance = 4 * DBL_EPSILON,
                            .method = "every element vs formula"};
  for (size_t i = 0; i < s->n; i++)
    tally(out, stream_error(s, i));
  return GCB_OK;
}

static bool host_stream_has(enum gcb_memkernel k) {
  return (int)k >= 0 && k < GCB_MEMKERNEL_COUNT && memkernels[k] != NULL;
}

static enum gcb_status host_stream(struct gcb_backend *b,
                                   const struct gcb_stream_params *p,
                                   struct gcb_op *op, struct gcb_err *err) {
  const struct gcb_memkernel_info *info = gcb_memkernel_info(p->kernel);
  if (info == NULL)
    return gcb_err_set(err, GCB_EUSAGE, "stream: unknown kernel %d",
                       (int)p->kernel);
  /* Rows of GCB_MEMKERNEL_LIST without a loop here (read, write, memcpy
   * measure GPU memory paths) are skipped, visibly, never run as NULL. */
  if (memkernels[p->kernel] == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "the host backend has no '%s' kernel (GPU only)",
                       info->name);
  if (p->elements == 0)
    return gcb_err_set(err, GCB_EUSAGE, "stream: zero elements");
  char what[96];
  snprintf(what, sizeof what, "%s over 3 x %" PRIu64 " doubles", info->name,
           p->elements);
  uint64_t bytes;
  if (!mul_u64(p->elements, 3 * sizeof(double), &bytes))
    return gcb_err_set(err, GCB_ENOMEM, "%s needs more than %" PRIu64 " bytes",
                       what, UINT64_MAX);
  enum gcb_status st = check_memory(b, bytes, what, err);
  if (st != GCB_OK)
    return st;
  struct host_stream *s = calloc(1, sizeof *s);
  if (s == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "stream: out of memory");
  *s = (struct host_stream){.kernel = p->kernel,
                            .fn = memkernels[p->kernel],
                            .n = (size_t)p->elements};
  s->a = alloc64(p->elements * sizeof(double));
  s->b = alloc64(p->elements * sizeof(double));
  s->c = alloc64(p->elements * sizeof(double));
  if (s->a == NULL || s->b == NULL || s->c == NULL) {
    stream_release(s);
    return gcb_err_set(err, GCB_ENOMEM, "%s: cannot allocate %" PRIu64 " bytes",
                       what, bytes);
  }
  /* This thread writes every page first, placing it on its NUMA node. */
  gcb_fill_random(s->a, s->n, stream_seed(p->seed, 1));
  gcb_fill_random(s->b, s->n, stream_seed(p->seed, 2));
  gcb_fill_random(s->c, s->n, stream_seed(p->seed, 3));
  *op = (struct gcb_op){.state = s,
                        .run = stream_run,
                        .check = stream_check,
                        .release = stream_release};
  return GCB_OK;
}

/* ---- burn-in readings -----------------------------------------------------
 */

/* One number from a small sysfs file (bounded read, common/file.h); NAN
 * when it cannot be read or is not a number. */
static double read_number(const char *path) {
  char *text = NULL;
  size_t len = 0;
  struct gcb_err ignored = {0};
  double v = NAN;
  if (gcb_file_read(path, 64, &text, &len, &ignored) == GCB_OK) {
    char *end;
    double x = strtod(text, &end);
    if (end != text)
      v = x;
  }
  free(text);
  return v;
}

/* Adds dir/<entry>/<file> for each entry of dir whose name starts with
 * prefix (and, for rapl, has no second ':': a package, not a sub-zone). */
static int find_files(const char *dir, const char *prefix, const char *file,
                      bool packages_only, char (*out)[192], int max, int n) {
  DIR *d = opendir(dir);
  if (d == NULL)
    return n;
  struct dirent *e;
  size_t plen = strlen(prefix);
  while (n < max && (e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, prefix, plen) != 0 ||
        (packages_only && strchr(e->d_name + plen, ':') != NULL))
      continue;
    char path[192];
    if (snprintf(path, sizeof path, "%s/%s/%s", dir, e->d_name, file) <
            (int)sizeof path &&
        access(path, R_OK) == 0)
      snprintf(out[n++], sizeof out[0], "%s", path);
  }
  closedir(d);
  return n;
}

/* hwmon's temp*_input files of every chip. */
static int find_hwmon_temps(struct burn_sensors *s) {
  char top[128];
  snprintf(top, sizeof top, "%s/sys/class/hwmon", s->root);
  DIR *d = opendir(top);
  if (d == NULL)
    return s->ntemps;
  struct dirent *e;
  while (s->ntemps < BURN_MAX_TEMPS && (e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, "hwmon", 5) != 0)
      continue;
    char dir[160];
    if (snprintf(dir, sizeof dir, "%s/%.40s", top, e->d_name) >=
        (int)sizeof dir)
      continue;
    DIR *c = opendir(dir);
    struct dirent *f;
    while (c != NULL && s->ntemps < BURN_MAX_TEMPS &&
           (f = readdir(c)) != NULL) {
      size_t len = strlen(f->d_name);
      if (strncmp(f->d_name, "temp", 4) == 0 && len > 6 &&
          strcmp(f->d_name + len - 6, "_input") == 0)
        snprintf(s->temps[s->ntemps++], sizeof s->temps[0], "%s/%.30s", dir,
                 f->d_name);
    }
    if (c != NULL)
      closedir(c);
  }
  closedir(d);
  return s->ntemps;
}

static void find_sensors(struct burn_sensors *s) {
  char thermal[128], powercap[128];
  snprintf(thermal, sizeof thermal, "%s/sys/class/thermal", s->root);
  snprintf(powercap, sizeof powercap, "%s/sys/class/powercap", s->root);
  s->found = true;
  s->ntemps = 0;
  find_hwmon_temps(s);
  s->ntemps = find_files(thermal, "thermal_zone", "temp", false, s->temps,
                         BURN_MAX_TEMPS, s->ntemps);
  s->nrapl = find_files(powercap, "intel-rapl:", "energy_uj", true, s->rapl,
                        BURN_MAX_RAPL, 0);
  for (int i = 0; i < s->nrapl; i++) {
    char range[192];
    snprintf(range, sizeof range, "%.*s/max_energy_range_uj",
             (int)(strlen(s->rapl[i]) - strlen("/energy_uj")), s->rapl[i]);
    s->rapl_range[i] = read_number(range);
    s->last_uj[i] = NAN;
  }
}

/* Mean scaling_cur_freq (kHz) of the CPUs this process may run on, in MHz. */
static double bound_cpu_mhz(const char *root) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return NAN;
  double sum = 0;
  int n = 0;
  for (int c = 0; c < CPU_SETSIZE && n < CPU_COUNT(&set); c++) {
    if (!CPU_ISSET(c, &set))
      continue;
    char path[192];
    snprintf(path, sizeof path,
             "%s/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", root,
             c);
    double khz = read_number(path);
    if (!isfinite(khz))
      return NAN; /* a mean of some of the cores would hide the others */
    sum += khz / 1000.0;
    n++;
  }
  return n > 0 ? sum / n : NAN;
}

/* Hottest readable sensor, degrees C. */
static double hottest_c(const struct burn_sensors *s) {
  double hot = NAN;
  for (int i = 0; i < s->ntemps; i++) {
    double c = read_number(s->temps[i]) / 1000.0;
    if (isfinite(c) && (!isfinite(hot) || c > hot))
      hot = c;
  }
  return hot;
}

/* Package power since the previous reading, summed over packages, W:
 * the energy counters' increase (modulo their range) over the time. The
 * first reading has nothing to take a difference from: NAN. */
static double package_watts(struct burn_sensors *s) {
  double t = gcb_now_s(), joules = 0;
  bool all = s->nrapl > 0 && s->last_t > 0;
  for (int i = 0; i < s->nrapl; i++) {
    double uj = read_number(s->rapl[i]);
    if (!isfinite(uj) || !isfinite(s->last_uj[i])) {
      all = false;
    } else {
      double d = uj - s->last_uj[i];
      if (d < 0 && isfinite(s->rapl_range[i]))
        d += s->rapl_range[i];
      joules += d / 1e6;
    }
    s->last_uj[i] = uj;
  }
  double dt = t - s->last_t;
  s->last_t = t;
  return all && dt > 0 ? joules / dt : NAN;
}

static void host_burn_read(struct gcb_backend *b,
                           struct gcb_burn_reading *out) {
  struct burn_sensors *s = &b->burn;
  if (!s->found)
    find_sensors(s);
  *out = (struct gcb_burn_reading){.cpu_mhz = bound_cpu_mhz(s->root),
                                   .temp_c = hottest_c(s),
                                   .power_w = package_watts(s),
                                   .sm_clock_mhz = NAN,
                                   .mem_clock_mhz = NAN,
                                   .ecc_sbe = -1,
                                   .ecc_dbe = -1,
                                   .pcie_replay = -1,
                                   .xid = -1};
}

const struct gcb_backend_ops gcb_backend_host = {
    .name = "host",
    .transport = "mpi",
    .description = "CPUs: OpenBLAS GEMM, STREAM-style memory kernels",
    .gemm_default_dim = 2048,
    .usable = host_usable,
    .open = host_open,
    .close = host_close,
    .device_info = host_device_info,
    .versions = host_versions,
    .gemm = host_gemm,
    .stream = host_stream,
    .fits = check_memory,
    .burn_read = host_burn_read,
    .gemm_has = host_gemm_has,
    .stream_has = host_stream_has,
};
