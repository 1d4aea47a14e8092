/*
 * Tests of the host backend and the shared backend code: GEMM and memory
 * kernels run and validate, their checkers catch corrupted output, bad
 * parameters fail before allocating, and backend selection explains itself.
 *
 * host.c is included rather than linked so the tests can corrupt an
 * operation's output through its private state; the library's copy of
 * host.o is then never pulled from the archive.
 */
#include "kernels/host.c"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <sys/resource.h>
#include <sys/stat.h>
#if defined(__has_include) && __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

static struct gcb_backend *open_host(void) {
  struct gcb_backend_args args = {
      .local_rank = 0, .local_size = 1, .cpu_threads = 1};
  struct gcb_backend *b = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_backend_host.open(&args, &b, &err), GCB_OK, "%s", err.msg);
  return b;
}

/* Runs op twice and checks it; returns the check. */
static struct gcb_check run_and_check(struct gcb_op *op) {
  struct gcb_err err = {0};
  double seconds = -1;
  cr_assert_eq(op->run(op->state, 2, &seconds, &err), GCB_OK, "%s", err.msg);
  cr_assert_geq(seconds, 0.0);
  struct gcb_check c = {0};
  cr_assert_eq(op->check(op->state, &c, &err), GCB_OK, "%s", err.msg);
  cr_assert(c.checked);
  cr_assert_not_null(c.method);
  return c;
}

static struct gcb_op make_gemm(struct gcb_backend *b, enum gcb_dtype t,
                               uint64_t m, uint64_t n, uint64_t k) {
  struct gcb_gemm_params p = {.dtype = t, .m = m, .n = n, .k = k, .seed = 7};
  struct gcb_op op = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_backend_host.gemm(b, &p, &op, &err), GCB_OK, "%s", err.msg);
  return op;
}

/* ---- GEMM ---------------------------------------------------------------- */

struct gemm_case {
  enum gcb_dtype dtype;
  uint64_t m, n, k, samples;
};

ParameterizedTestParameters(host, gemm_validates) {
  static struct gemm_case cases[] = {
      {GCB_DTYPE_FP32, 64, 48, 32, 256},   {GCB_DTYPE_FP64, 64, 48, 32, 256},
      {GCB_DTYPE_FP32, 8, 4, 3, 32},       {GCB_DTYPE_FP64, 1, 1, 1, 1},
      {GCB_DTYPE_FP32, 33, 17, 1000, 256},
  };
  return cr_make_param_array(struct gemm_case, cases,
                             sizeof cases / sizeof *cases);
}

ParameterizedTest(struct gemm_case *gc, host, gemm_validates) {
  struct gcb_backend *b = open_host();
  struct gcb_op op = make_gemm(b, gc->dtype, gc->m, gc->n, gc->k);
  struct gcb_check c = run_and_check(&op);
  cr_expect_eq(c.samples, gc->samples);
  cr_expect_eq(c.wrong, 0);
  cr_expect_leq(c.max_error, c.tolerance);
  cr_expect_gt(c.tolerance, 0.0);
  gcb_op_release(&op);
  cr_expect_null(op.state);
  gcb_backend_host.close(b);
}

Test(host, gemm_check_catches_corruption) {
  struct gcb_backend *b = open_host();
  struct gcb_op op = make_gemm(b, GCB_DTYPE_FP32, 64, 48, 32);
  run_and_check(&op);
  struct host_gemm *g = op.state;
  for (size_t i = 0; i < 64 * 48; i++)
    ((float *)g->c)[i] += 0.01f;
  struct gcb_check c = {0};
  cr_assert_eq(op.check(op.state, &c, NULL), GCB_OK);
  cr_expect_eq(c.wrong, c.samples);
  cr_expect_gt(c.max_error, c.tolerance);
  gcb_op_release(&op);
  gcb_backend_host.close(b);
}

Test(host, gemm_check_counts_nan_and_inf) {
  struct gcb_backend *b = open_host();
  struct gcb_op op = make_gemm(b, GCB_DTYPE_FP64, 4, 4, 4);
  run_and_check(&op);
  struct host_gemm *g = op.state;
  ((double *)g->c)[3] = NAN;
  ((double *)g->c)[9] = INFINITY;
  struct gcb_check c = {0};
  cr_assert_eq(op.check(op.state, &c, NULL), GCB_OK);
  cr_expect_eq(c.samples, 16);
  cr_expect_eq(c.wrong, 2);
  cr_expect(isfinite(c.max_error));
  gcb_op_release(&op);
  gcb_backend_host.close(b);
}

Test(host, gemm_check_before_run_fails) {
  struct gcb_backend *b = open_host();
  struct gcb_op op = make_gemm(b, GCB_DTYPE_FP64, 8, 8, 8);
  struct gcb_check c = {0};
  cr_assert_eq(op.check(op.state, &c, NULL), GCB_OK);
  cr_expect_eq(c.wrong, c.samples);
  gcb_op_release(&op);
  gcb_backend_host.close(b);
}

ParameterizedTestParameters(host, gemm_unsupported_dtype) {
  static enum gcb_dtype types[] = {GCB_DTYPE_TF32, GCB_DTYPE_FP16,
                                   GCB_DTYPE_BF16, GCB_DTYPE_FP8,
                                   GCB_DTYPE_INT8};
  return cr_make_param_array(enum gcb_dtype, types,
                             sizeof types / sizeof *types);
}

ParameterizedTest(enum gcb_dtype *t, host, gemm_unsupported_dtype) {
  struct gcb_backend *b = open_host();
  struct gcb_gemm_params p = {.dtype = *t, .m = 8, .n = 8, .k = 8};
  struct gcb_op op = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_backend_host.gemm(b, &p, &op, &err), GCB_EUNSUPPORTED);
  cr_expect_eq(err.code, GCB_EUNSUPPORTED);
  cr_expect_not_null(strstr(err.msg, gcb_dtype_name(*t)), "%s", err.msg);
  cr_expect_not_null(strstr(err.msg, "fp32, fp64"), "%s", err.msg);
  cr_expect_null(op.state);
  gcb_backend_host.close(b);
}

struct bad_gemm {
  enum gcb_dtype dtype;
  uint64_t m, n, k;
  enum gcb_status status;
  char says[16]; /* inline: criterion passes parameters across processes */
  uint64_t batch;
};

ParameterizedTestParameters(host, gemm_rejects_before_allocating) {
  static struct bad_gemm cases[] = {
      {GCB_DTYPE_FP32, 1u << 30, 1u << 30, 1u << 30, GCB_ENOMEM, "bytes", 0},
      {GCB_DTYPE_FP64, 1u << 30, 1u << 30, 1u << 30, GCB_ENOMEM, "bytes", 0},
      {GCB_DTYPE_FP64, INT32_MAX, INT32_MAX, INT32_MAX, GCB_ENOMEM, "more than",
       0},
      {GCB_DTYPE_FP64, UINT64_MAX, 2, 2, GCB_EUNSUPPORTED, "limited", 0},
      {GCB_DTYPE_FP32, 1ull << 31, 1, 1, GCB_EUNSUPPORTED, "limited", 0},
      {GCB_DTYPE_FP32, 0, 8, 8, GCB_EUSAGE, "zero", 0},
      /* the pattern asks the GPU's backend alone for batches */
      {GCB_DTYPE_FP32, 64, 64, 64, GCB_EUNSUPPORTED, "no batched", 8},
  };
  return cr_make_param_array(struct bad_gemm, cases,
                             sizeof cases / sizeof *cases);
}

ParameterizedTest(struct bad_gemm *bc, host, gemm_rejects_before_allocating) {
  struct gcb_backend *b = open_host();
  struct gcb_gemm_params p = {.dtype = bc->dtype,
                              .m = bc->m,
                              .n = bc->n,
                              .k = bc->k,
                              .batch = bc->batch};
  struct gcb_op op = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_backend_host.gemm(b, &p, &op, &err), bc->status, "%s",
               err.msg);
  cr_expect_not_null(strstr(err.msg, bc->says), "%s", err.msg);
  cr_expect_null(op.state);
  gcb_backend_host.close(b);
}

/* ---- memory kernels ------------------------------------------------------ */

/* The array each kernel writes, to corrupt it. */
static double *stream_output(struct host_stream *s) {
  switch (s->kernel) {
  case GCB_MEMKERNEL_SCALE:
    return s->b;
  case GCB_MEMKERNEL_TRIAD:
    return s->a;
  default:
    return s->c;
  }
}

ParameterizedTestParameters(host, stream_validates) {
  static enum gcb_memkernel kernels[] = {GCB_MEMKERNEL_COPY,
                                         GCB_MEMKERNEL_SCALE, GCB_MEMKERNEL_ADD,
                                         GCB_MEMKERNEL_TRIAD};
  return cr_make_param_array(enum gcb_memkernel, kernels,
                             sizeof kernels / sizeof *kernels);
}

ParameterizedTest(enum gcb_memkernel *k, host, stream_validates) {
  struct gcb_backend *b = open_host();
  /* Odd length: exercises the vector loop's remainder. */
  struct gcb_stream_params p = {.kernel = *k, .elements = 1003, .seed = 3};
  struct gcb_op op = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_backend_host.stream(b, &p, &op, &err), GCB_OK, "%s",
               err.msg);
  struct gcb_check c = run_and_check(&op);
  cr_expect_eq(c.samples, 1003);
  cr_expect_eq(c.wrong, 0);
  cr_expect_leq(c.max_error, c.tolerance);
  stream_output(op.state)[1002] += 1.0;
  stream_output(op.state)[0] = NAN;
  cr_assert_eq(op.check(op.state, &c, NULL), GCB_OK);
  cr_expect_eq(c.wrong, 2);
  gcb_op_release(&op);
  gcb_backend_host.close(b);
}

Test(host, stream_rejects_before_allocating) {
  struct gcb_backend *b = open_host();
  struct gcb_op op = {0};
  struct gcb_err err = {0};
  struct gcb_stream_params p = {.kernel = GCB_MEMKERNEL_TRIAD,
                                .elements = UINT64_C(1) << 50};
  cr_expect_eq(gcb_backend_host.stream(b, &p, &op, &err), GCB_ENOMEM);
  cr_expect_not_null(strstr(err.msg, "bytes"), "%s", err.msg);
  p.elements = UINT64_MAX / 8;
  cr_expect_eq(gcb_backend_host.stream(b, &p, &op, &err), GCB_ENOMEM);
  p.elements = 0;
  cr_expect_eq(gcb_backend_host.stream(b, &p, &op, &err), GCB_EUSAGE);
  cr_expect_null(op.state);
  gcb_backend_host.close(b);
}

/* Issue 20, item 13: under `ulimit -v` OpenBLAS retried mmap until the
 * run's timeout. The arrays fit here but not with the buffers OpenBLAS
 * maps per thread, so the GEMM is refused at once, naming the limit. */
Test(host, gemm_refused_when_rlimit_as_leaves_no_room_for_blas) {
#ifdef __SANITIZE_ADDRESS__
  cr_skip_test("ASan reserves its shadow as address space");
#endif
  if (RUNNING_ON_VALGRIND)
    cr_skip_test("valgrind's own mappings count against RLIMIT_AS");
  uint64_t mapped = gcb_hostmem_mapped(NULL);
  cr_assert_gt(mapped, 0);
  struct rlimit rl;
  cr_assert_eq(getrlimit(RLIMIT_AS, &rl), 0);
  rl.rlim_cur = (rlim_t)(mapped + (UINT64_C(160) << 20));
  cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);
  struct gcb_backend *b = open_host();
  /* 3 x 1600^2 doubles = 61 MB: fits, but not with 128 MiB of buffers */
  struct gcb_gemm_params p = {
      .dtype = GCB_DTYPE_FP64, .m = 1600, .n = 1600, .k = 1600};
  struct gcb_op op = {0};
  struct gcb_err err = {0};
  cr_expect_eq(gcb_backend_host.gemm(b, &p, &op, &err), GCB_ENOMEM);
  cr_expect(strstr(err.msg, "RLIMIT_AS (ulimit -v)") != NULL, "%s", err.msg);
  cr_expect_null(op.state);
  /* the same arrays without the library's buffers (fits) pass */
  cr_expect_eq(gcb_backend_host.fits(b, 61440000, "arrays", &err), GCB_OK, "%s",
               err.msg);
  gcb_backend_host.close(b);
}

/* ---- backend ------------------------------------------------------------- */

Test(host, device_info_and_versions) {
  struct gcb_backend_args args = {.local_size = 1, .cpu_threads = 2};
  struct gcb_backend *b = NULL;
  cr_assert_eq(gcb_backend_host.open(&args, &b, NULL), GCB_OK);
  struct gcb_device_info d;
  cr_assert_eq(gcb_backend_host.device_info(b, &d, NULL), GCB_OK);
  cr_expect_neq(d.name[0], '\0');
  cr_expect_str_empty(d.bus_id);
  cr_expect_eq(d.index, -1);
  cr_expect_gt(d.memory_bytes, 0);
  cr_expect_eq(d.threads, 2);
  char v[256];
  gcb_backend_host.versions(b, v, sizeof v);
  cr_expect_eq(strncmp(v, "OpenBLAS ", 9), 0, "%s", v);
  cr_expect_null(strstr(v + 1, "OpenBLAS"), "%s", v);
  gcb_backend_host.close(b);
}

Test(host, release_is_safe_on_empty_ops) {
  struct gcb_op op = {0};
  gcb_op_release(&op);
  gcb_op_release(NULL);
  op.release = gemm_release;
  gcb_op_release(&op);
  op.release = stream_release;
  gcb_op_release(&op);
  cr_expect_null(op.release);
}

Test(backend, select_auto_picks_a_usable_backend) {
  const struct gcb_backend_ops *ops = NULL;
  char why[160] = "";
  cr_assert_eq(gcb_backend_select("auto", &ops, why, sizeof why, NULL), GCB_OK);
  cr_assert_not_null(ops);
  char reason[160];
  cr_expect(ops->usable(reason, sizeof reason));
  cr_expect_eq(strncmp(why, ops->name, strlen(ops->name)), 0, "%s", why);
  cr_expect_not_null(strstr(why, "(auto; "), "%s", why);
  cr_expect_eq(gcb_backend_select(NULL, &ops, NULL, 0, NULL), GCB_OK);
}

Test(backend, select_by_name) {
  const struct gcb_backend_ops *ops = NULL;
  char why[160] = "";
  struct gcb_err err = {0};
  cr_assert_eq(gcb_backend_select("host", &ops, why, sizeof why, &err), GCB_OK);
  cr_expect_eq(ops, &gcb_backend_host);
  cr_expect_eq(gcb_backend_select("nonesuch", &ops, why, sizeof why, &err),
               GCB_EUSAGE);
  cr_expect_null(ops);
  cr_expect_not_null(strstr(err.msg, "'nonesuch'"), "%s", err.msg);
  cr_expect_not_null(strstr(err.msg, "available: "), "%s", err.msg);
  cr_expect_not_null(strstr(err.msg, "host"), "%s", err.msg);
  if (gcb_backend_find("cuda") == NULL) {
    cr_expect_eq(gcb_backend_select("cuda", &ops, why, sizeof why, &err),
                 GCB_EUSAGE);
    cr_expect_not_null(strstr(err.msg, "not built"), "%s", err.msg);
  }
  cr_expect_eq(gcb_backend_find("host"), &gcb_backend_host);
  cr_expect_null(gcb_backend_find("nonesuch"));
  cr_expect_null(gcb_backend_find(NULL));
}

Test(backend, registry_ends_with_host) {
  size_t n = 0;
  while (gcb_backends[n] != NULL)
    n++;
  cr_assert_geq(n, 1);
  cr_expect_eq(gcb_backends[n - 1], &gcb_backend_host);
}

Test(backend, dtype_and_memkernel_tables) {
  cr_expect_str_eq(gcb_dtype_name(GCB_DTYPE_BF16), "bf16");
  cr_expect_eq(gcb_dtype_bytes(GCB_DTYPE_FP64), 8);
  cr_expect_eq(gcb_dtype_bytes(GCB_DTYPE_FP8), 1);
  cr_expect_str_eq(gcb_dtype_name(GCB_DTYPE_COUNT), "?");
  cr_expect_eq(gcb_dtype_bytes(GCB_DTYPE_COUNT), 0);
  const struct gcb_memkernel_info *t = gcb_memkernel_info(GCB_MEMKERNEL_TRIAD);
  cr_assert_not_null(t);
  cr_expect_str_eq(t->name, "triad");
  cr_expect_eq(t->reads, 2);
  cr_expect_eq(t->writes, 1);
  cr_expect_eq(t->flops, 2);
  cr_expect_null(gcb_memkernel_info(GCB_MEMKERNEL_COUNT));
}

/* ---- random fill --------------------------------------------------------- */

#define FILL_N 100000

Test(backend, fill_random_range_and_determinism) {
  static double x[FILL_N], y[FILL_N];
  gcb_fill_random(x, FILL_N, 42);
  gcb_fill_random(y, FILL_N, 42);
  cr_expect_eq(memcmp(x, y, sizeof x), 0);
  double lo = 1, hi = -1;
  for (size_t i = 0; i < FILL_N; i++) {
    cr_assert(x[i] >= -1.0 && x[i] < 1.0 && x[i] != 0.0, "x[%zu]=%g", i, x[i]);
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  cr_expect_lt(lo, -0.99);
  cr_expect_gt(hi, 0.99);
  gcb_fill_random(y, FILL_N, 43);
  cr_expect_neq(memcmp(x, y, sizeof x), 0);
}

Test(backend, fill_random_f32_range_and_determinism) {
  static float x[FILL_N], y[FILL_N];
  gcb_fill_random_f32(x, FILL_N, 0);
  gcb_fill_random_f32(y, FILL_N, 0);
  cr_expect_eq(memcmp(x, y, sizeof x), 0);
  for (size_t i = 0; i < FILL_N; i++)
    cr_assert(x[i] >= -1.0f && x[i] < 1.0f && x[i] != 0.0f, "x[%zu]=%g", i,
              (double)x[i]);
  gcb_fill_random_f32(y, FILL_N, 1);
  cr_expect_neq(memcmp(x, y, sizeof x), 0);
}

/* ---- burn_read against a fake /sys ----------------------------------------
 */

static char sysroot[64];

static void put_file(const char *rel, const char *text) {
  char path[256], dir[256];
  snprintf(path, sizeof path, "%s/%s", sysroot, rel);
  snprintf(dir, sizeof dir, "%s", path);
  for (char *p = dir + strlen(sysroot) + 1; (p = strchr(p, '/')) != NULL; p++) {
    *p = '\0';
    mkdir(dir, 0755);
    *p = '/';
  }
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs(text, f);
  fclose(f);
}

/* The CPUs this process may run on, each at `khz`. */
static void put_cpufreq(long khz) {
  cpu_set_t set;
  cr_assert_eq(sched_getaffinity(0, sizeof set, &set), 0);
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set)) {
      char rel[128], text[32];
      snprintf(rel, sizeof rel,
               "sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", c);
      snprintf(text, sizeof text, "%ld\n", khz);
      put_file(rel, text);
    }
}

static struct gcb_backend *fake_sys_backend(void) {
  strcpy(sysroot, "/tmp/gcb-test-sys-XXXXXX");
  cr_assert_not_null(mkdtemp(sysroot));
  struct gcb_backend_args args = {.local_size = 1, .cpu_threads = 1};
  struct gcb_backend *b;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_backend_host.open(&args, &b, &err), GCB_OK, "%s", err.msg);
  snprintf(b->burn.root, sizeof b->burn.root, "%s", sysroot);
  return b;
}

static void remove_sysroot(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", sysroot);
  cr_expect_eq(system(cmd), 0);
}

Test(host,
     burn_read_takes_the_rank_cores_the_hottest_sensor_and_package_power) {
  struct gcb_backend *b = fake_sys_backend();
  put_cpufreq(2400000);
  put_file("sys/class/hwmon/hwmon0/temp1_input", "45000\n");
  put_file("sys/class/hwmon/hwmon0/temp2_input", "71500\n");
  put_file("sys/class/hwmon/hwmon1/temp1_label", "not a reading\n");
  put_file("sys/class/thermal/thermal_zone0/temp", "50000\n");
  put_file("sys/class/powercap/intel-rapl:0/energy_uj", "1000000\n");
  put_file("sys/class/powercap/intel-rapl:0/max_energy_range_uj", "4000000\n");
  /* a sub-zone (core, dram) is inside the package's count: left out */
  put_file("sys/class/powercap/intel-rapl:0:0/energy_uj", "999999999\n");
  struct gcb_burn_reading rd;
  gcb_backend_host.burn_read(b, &rd);
  cr_expect_float_eq(rd.cpu_mhz, 2400.0, 1e-9);
  cr_expect_float_eq(rd.temp_c, 71.5, 1e-9);
  cr_expect(isnan(rd.power_w), "nothing to take a difference from yet");
  cr_expect(isnan(rd.sm_clock_mhz) && isnan(rd.mem_clock_mhz));
  cr_expect(!rd.throttle_known);
  cr_expect(rd.ecc_sbe == -1 && rd.ecc_dbe == -1 && rd.pcie_replay == -1 &&
            rd.xid == -1);
  /* 0.5 J later; then across the counter's wrap (range 4 J): 1.5 -> 0.5
   * is 3 J more */
  struct timespec t0, t1, pause = {.tv_nsec = 200000000};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  nanosleep(&pause, NULL);
  put_file("sys/class/powercap/intel-rapl:0/energy_uj", "1500000\n");
  gcb_backend_host.burn_read(b, &rd);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double dt =
      (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  cr_expect(rd.power_w > 0.5 / (dt + 0.05) && rd.power_w < 0.5 / 0.2,
            "%g W over about %g s", rd.power_w, dt);
  nanosleep(&pause, NULL);
  put_file("sys/class/powercap/intel-rapl:0/energy_uj", "500000\n");
  gcb_backend_host.burn_read(b, &rd);
  cr_expect(rd.power_w > 3.0 / 0.4 && rd.power_w <= 3.0 / 0.2,
            "%g W across the wrap", rd.power_w);
  gcb_backend_host.close(b);
  remove_sysroot();
}

Test(host, burn_read_says_nan_for_what_is_not_there) {
  struct gcb_backend *b = fake_sys_backend();
  put_file("sys/class/thermal/thermal_zone0/temp", "garbage\n");
  struct gcb_burn_reading rd;
  gcb_backend_host.burn_read(b, &rd);
  gcb_backend_host.burn_read(b, &rd);
  cr_expect(isnan(rd.cpu_mhz), "no cpufreq: %g", rd.cpu_mhz);
  cr_expect(isnan(rd.temp_c), "no number: %g", rd.temp_c);
  cr_expect(isnan(rd.power_w), "no powercap: %g", rd.power_w);
  gcb_backend_host.close(b);
  remove_sysroot();
}

/* The burn test hook: one planted entry is one wrong entry in the next
 * check, on a product small enough to check whole and on one sampled. */
Test(host, a_planted_error_is_one_wrong_entry) {
  struct gcb_backend *b = open_host();
  const int dims[][3] = {{8, 8, 8}, {256, 256, 64}};
  for (size_t d = 0; d < 2; d++) {
    struct gcb_op op = make_gemm(b, d ? GCB_DTYPE_FP64 : GCB_DTYPE_FP32,
                                 dims[d][0], dims[d][1], dims[d][2]);
    struct gcb_check c = run_and_check(&op);
    cr_expect_eq(c.wrong, 0);
    cr_assert_not_null(op.plant);
    op.plant(op.state);
    cr_assert_eq(op.check(op.state, &c, NULL), GCB_OK);
    cr_expect_eq(c.wrong, 1, "%zu: %llu wrong", d, (unsigned long long)c.wrong);
    gcb_op_release(&op);
  }
  gcb_backend_host.close(b);
}
