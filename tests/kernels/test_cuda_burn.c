/*
 * The burn-in on the CUDA backend, without a GPU:
 * - burn_read over the fake NVML (fake_nvml.c, found as the driver's
 *   libnvidia-ml.so.1 on LD_LIBRARY_PATH) scripted reading by reading: an
 *   SM clock falling from 1980 to 1410 MHz under hw_thermal at 87 C, ECC
 *   corrected errors and PCIe replays growing, Xid events; fields NVML
 *   does not report are NAN or -1 one by one, never a crash;
 * - the gpu-burn-shaped GEMM against fake CUDA (fake_cuda.c): product
 *   slots in 90 % of the free memory, one slot per run in turn, each
 *   check comparing the products since the last one with the first, a
 *   planted error found;
 * - a thermal clock drop read through burn_read, written into a results
 *   document and judged by the report: one root cause with its onset
 *   (what is real and what fake: at the test).
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/benches/burn.h"
#include "kernels/cuda_impl.h"
#include "reports/analysis/analyze.h"
#include "reports/analysis/diagnose.h"
#include "reports/document/results.h"
#include "tests/kernels/fake_cuda.h"
#include "tests/kernels/fake_nvml.h"
#include "tests/reports/results_read.h"

extern const struct gcb_backend_ops gcb_backend_cuda;

/* nvml.h nvmlReturn_t and clock-event reason bits used below. */
enum { NVML_ERROR_NOT_SUPPORTED = 3, NVML_ERROR_GPU_IS_LOST = 15 };
#define HW_THERMAL 0x40ULL /* nvmlClocksEventReasonHwThermalSlowdown */

static struct gcb_backend *backend;
static struct gcb_err err;
static void *nvml_lib;
static struct fake_nvml *nvml;
static fake_nvml_raise_xid_fn *raise_xid;

/* The fake NVML gcbench will load: the same library, found by its name. */
static void open_fake_nvml(void) {
  nvml_lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(nvml_lib, "%s (LD_LIBRARY_PATH: the fake's directory)",
                     dlerror());
  fake_nvml_control_fn *control;
  fake_nvml_reset_fn *reset;
  void *c = dlsym(nvml_lib, "fake_nvml_control");
  void *r = dlsym(nvml_lib, "fake_nvml_reset");
  void *x = dlsym(nvml_lib, "fake_nvml_raise_xid");
  cr_assert(c != NULL && r != NULL && x != NULL, "not the fake NVML");
  memcpy(&control, &c, sizeof c);
  memcpy(&reset, &r, sizeof r);
  memcpy(&raise_xid, &x, sizeof x);
  reset();
  nvml = control();
}

static void setup(void) {
  fake_cuda_reset();
  memset(&err, 0, sizeof err);
  open_fake_nvml();
}

static void open_backend(void) {
  struct gcb_backend_args args = {.local_rank = 0};
  cr_assert_eq(gcb_backend_cuda.open(&args, &backend, &err), GCB_OK, "%s",
               err.msg);
}

static void teardown(void) {
  if (backend != NULL)
    gcb_backend_cuda.close(backend);
  backend = NULL;
  if (nvml_lib != NULL)
    dlclose(nvml_lib);
}

TestSuite(cuda_burn_read, .init = setup, .fini = teardown);

/* One scripted moment of the GPU. */
struct moment {
  unsigned sm, temp, power_mw;
  unsigned long long reasons, sbe, dbe, replay;
  int xids_before; /* Xid events raised just before this reading */
  /* what the reading must say */
  long long xid;
};

static void script(const struct moment *m) {
  nvml->value[FAKE_NVML_SM_MHZ] = m->sm;
  nvml->value[FAKE_NVML_MEM_MHZ] = 2619;
  nvml->value[FAKE_NVML_TEMP_C] = m->temp;
  nvml->value[FAKE_NVML_POWER_MW] = m->power_mw;
  nvml->value[FAKE_NVML_REASONS] = m->reasons;
  nvml->value[FAKE_NVML_ECC_SBE] = m->sbe;
  nvml->value[FAKE_NVML_ECC_DBE] = m->dbe;
  nvml->value[FAKE_NVML_PCIE_REPLAY] = m->replay;
  for (int i = 0; i < m->xids_before; i++)
    raise_xid(48 + i);
}

Test(cuda_burn_read, a_throttling_gpu_reads_as_scripted_reading_by_reading) {
  /* An H200 at full clock, then hw_thermal at 87 C pulls it to 1410 MHz
   * while corrected ECC errors and PCIe replays grow and Xids arrive. The
   * Xid raised before the first reading is lost: NVML records only events
   * after the registration, which the first reading makes. */
  static const struct moment m[] = {
      {1980, 71, 690000, 0, 3, 0, 10, 1, 0},
      {1980, 80, 700000, 0, 3, 0, 10, 0, 0},
      {1410, 87, 560000, HW_THERMAL, 5, 0, 14, 1, 1},
      {1410, 87, 555000, HW_THERMAL | 0x4, 9, 0, 14, 2, 3},
      {1440, 86, 560000, HW_THERMAL, 9, 1, 21, 0, 3},
  };
  open_backend();
  cr_assert_not_null(gcb_backend_cuda.burn_read);
  long long last_sbe = -1, last_replay = -1, last_xid = -1;
  for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
    struct gcb_burn_reading r;
    memset(&r, 0x5a, sizeof r);
    script(&m[i]);
    gcb_backend_cuda.burn_read(backend, &r);
    cr_expect_eq(r.sm_clock_mhz, (double)m[i].sm, "reading %zu", i);
    cr_expect_eq(r.mem_clock_mhz, 2619.0);
    cr_expect_eq(r.temp_c, (double)m[i].temp, "reading %zu", i);
    cr_expect_float_eq(r.power_w, m[i].power_mw / 1000.0, 1e-9);
    cr_expect(r.throttle_known);
    cr_expect_eq(r.throttle_reasons, m[i].reasons, "reading %zu", i);
    cr_expect_eq(r.ecc_sbe, (long long)m[i].sbe, "reading %zu", i);
    cr_expect_eq(r.ecc_dbe, (long long)m[i].dbe);
    cr_expect_eq(r.pcie_replay, (long long)m[i].replay);
    cr_expect_eq(r.xid, m[i].xid, "reading %zu: %lld Xids", i, r.xid);
    cr_expect(isnan(r.cpu_mhz), "the host's field, not read on a GPU");
    cr_expect_geq(r.ecc_sbe, last_sbe, "counters never fall");
    cr_expect_geq(r.pcie_replay, last_replay);
    cr_expect_geq(r.xid, last_xid);
    last_sbe = r.ecc_sbe, last_replay = r.pcie_replay, last_xid = r.xid;
  }
  cr_expect_eq(nvml->longest_wait_ms, 0, "polled, never waited for");
  cr_expect_eq(nvml->sets, 1, "one event set, registered once");
  gcb_backend_cuda.close(backend);
  backend = NULL;
  cr_expect_eq(nvml->sets, 0, "freed when the backend closes");
}

struct unsupported_case {
  enum fake_nvml_field field;
  const char *what;
};

/* NVML answers NOT_SUPPORTED field by field (ECC off, no replay counter,
 * no power sensor, ...): that field alone is unread. */
Test(cuda_burn_read, each_field_not_supported_is_unread_alone) {
  static const struct unsupported_case cases[] = {
      {FAKE_NVML_SM_MHZ, "sm clock"}, {FAKE_NVML_MEM_MHZ, "mem clock"},
      {FAKE_NVML_TEMP_C, "temp"},     {FAKE_NVML_POWER_MW, "power"},
      {FAKE_NVML_REASONS, "reasons"}, {FAKE_NVML_ECC_SBE, "sbe"},
      {FAKE_NVML_ECC_DBE, "dbe"},     {FAKE_NVML_PCIE_REPLAY, "replay"},
  };
  open_backend();
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    struct gcb_burn_reading r;
    memset(nvml->rc, 0, sizeof nvml->rc);
    nvml->rc[cases[i].field] = NVML_ERROR_NOT_SUPPORTED;
    gcb_backend_cuda.burn_read(backend, &r);
    enum fake_nvml_field f = cases[i].field;
    cr_expect_eq(isnan(r.sm_clock_mhz), f == FAKE_NVML_SM_MHZ, "%s",
                 cases[i].what);
    cr_expect_eq(isnan(r.mem_clock_mhz), f == FAKE_NVML_MEM_MHZ, "%s",
                 cases[i].what);
    cr_expect_eq(isnan(r.temp_c), f == FAKE_NVML_TEMP_C, "%s", cases[i].what);
    cr_expect_eq(isnan(r.power_w), f == FAKE_NVML_POWER_MW, "%s",
                 cases[i].what);
    cr_expect_eq(!r.throttle_known, f == FAKE_NVML_REASONS, "%s",
                 cases[i].what);
    cr_expect_eq(r.ecc_sbe == -1, f == FAKE_NVML_ECC_SBE, "%s", cases[i].what);
    cr_expect_eq(r.ecc_dbe == -1, f == FAKE_NVML_ECC_DBE, "%s", cases[i].what);
    cr_expect_eq(r.pcie_replay == -1, f == FAKE_NVML_PCIE_REPLAY, "%s",
                 cases[i].what);
    cr_expect_eq(r.xid, 0, "%s", cases[i].what);
  }
}

Test(cuda_burn_read, xid_events_not_supported_read_minus_one) {
  nvml->register_rc = NVML_ERROR_NOT_SUPPORTED;
  open_backend();
  for (int i = 0; i < 3; i++) {
    struct gcb_burn_reading r;
    raise_xid(79);
    gcb_backend_cuda.burn_read(backend, &r);
    cr_expect_eq(r.xid, -1, "unknown, not zero");
    cr_expect_eq(r.sm_clock_mhz, 1755.0, "the other fields still read");
  }
  cr_expect_eq(nvml->sets, 0, "the set refused is freed at once");
  cr_expect_eq(nvml->waits, 0);
}

/* NVML hands one event per wait and says TIMEOUT when none is queued: a
 * reading takes all that are there, without waiting. */
Test(cuda_burn_read, a_reading_drains_every_queued_xid) {
  struct gcb_burn_reading r;
  open_backend();
  gcb_backend_cuda.burn_read(backend, &r);
  cr_expect_eq(r.xid, 0);
  for (int i = 0; i < FAKE_NVML_XID_QUEUE; i++)
    raise_xid(13);
  gcb_backend_cuda.burn_read(backend, &r);
  cr_expect_eq(r.xid, FAKE_NVML_XID_QUEUE);
  cr_expect_eq(nvml->queued, 0);
  cr_expect_eq(nvml->timeouts, 2, "each reading ends at NVML_ERROR_TIMEOUT");
  cr_expect_eq(nvml->longest_wait_ms, 0);
}

/* A GPU that falls off the bus answers GPU_IS_LOST to every call: the Xids
 * seen stay counted and the reading goes on. */
Test(cuda_burn_read, a_lost_gpu_keeps_the_xids_seen) {
  struct gcb_burn_reading r;
  open_backend();
  gcb_backend_cuda.burn_read(backend, &r);
  raise_xid(79);
  raise_xid(79);
  gcb_backend_cuda.burn_read(backend, &r);
  cr_expect_eq(r.xid, 2);
  nvml->wait_rc = NVML_ERROR_GPU_IS_LOST;
  for (int i = 0; i < FAKE_NVML_FIELDS; i++)
    nvml->rc[i] = NVML_ERROR_GPU_IS_LOST;
  int waits = nvml->waits;
  gcb_backend_cuda.burn_read(backend, &r);
  gcb_backend_cuda.burn_read(backend, &r);
  cr_expect_eq(r.xid, 2);
  cr_expect(isnan(r.sm_clock_mhz) && isnan(r.temp_c) && r.ecc_sbe == -1);
  cr_expect_eq(nvml->waits, waits + 1, "no more polling after a failure");
}

/* A GPU NVML does not know (hidden from it in a container): every field
 * unread, xid included. */
Test(cuda_burn_read, a_gpu_nvml_does_not_know_reads_nothing) {
  fake_cuda.bus_base = 0x3b;
  open_backend();
  struct gcb_burn_reading r;
  memset(&r, 0, sizeof r);
  gcb_backend_cuda.burn_read(backend, &r);
  cr_expect(isnan(r.sm_clock_mhz) && isnan(r.mem_clock_mhz));
  cr_expect(isnan(r.temp_c) && isnan(r.power_w) && isnan(r.cpu_mhz));
  cr_expect_not(r.throttle_known);
  cr_expect(r.ecc_sbe == -1 && r.ecc_dbe == -1 && r.pcie_replay == -1);
  cr_expect_eq(r.xid, -1);
}

/* Readings and the telemetry sampler share the NVML device. */
Test(cuda_burn_read, readings_go_along_with_telemetry) {
  struct gcb_burn_reading r;
  struct gcb_telemetry t;
  open_backend();
  cr_assert_eq(gcb_backend_cuda.telemetry_start(backend, &err), GCB_OK);
  gcb_backend_cuda.burn_read(backend, &r);
  cr_expect_eq(r.sm_clock_mhz, 1755.0);
  gcb_backend_cuda.telemetry_stop(backend, &t);
  cr_expect(t.available);
  gcb_backend_cuda.burn_read(backend, &r);
  cr_expect_eq(r.temp_c, 41.0);
}

/* ---- the gpu-burn-shaped GEMM ------------------------------------------- */

TestSuite(cuda_burn_gemm, .init = setup, .fini = teardown);

#define DIM 64
#define PRODUCT_BYTES ((size_t)DIM * DIM * 4) /* fp32 */
#define FREE_BYTES ((size_t)1 << 20)
/* 90 % of the free memory over a product and its fault counter. */
#define SLOTS ((size_t)((double)FREE_BYTES * 0.9) / (PRODUCT_BYTES + 8))

static void burn_op(enum gcb_dtype t, struct gcb_op *op) {
  struct gcb_gemm_params p = {.dtype = t,
                              .m = DIM,
                              .n = DIM,
                              .k = DIM,
                              .seed = 7,
                              .flush_l2 = true,
                              .burn = true};
  fake_cuda.free_bytes = FREE_BYTES;
  open_backend();
  cr_assert_eq(gcb_backend_cuda.gemm(backend, &p, op, &err), GCB_OK, "%s",
               err.msg);
}

/* The slots' base: the allocation of SLOTS products. */
static char *slots_base(size_t product) {
  for (int i = 0; i < fake_cuda.n; i++)
    if (strcmp(fake_cuda.log[i].name, "cudaMalloc") == 0 &&
        fake_cuda.log[i].bytes == SLOTS * product)
      return (char *)fake_cuda.log[i].what;
  return NULL;
}

static void run(struct gcb_op *op, int times) {
  for (int i = 0; i < times; i++) {
    double s = 0;
    cr_assert_eq(op->run(op->state, 1, &s, &err), GCB_OK, "%s", err.msg);
  }
}

static float *slot_f32(char *base, size_t slot) {
  return (float *)(base + slot * PRODUCT_BYTES);
}

Test(cuda_burn_gemm, slots_fill_ninety_percent_of_free_memory) {
  struct gcb_op op;
  burn_op(GCB_DTYPE_FP32, &op);
  cr_expect_eq(SLOTS, 57);
  cr_expect_not_null(slots_base(PRODUCT_BYTES),
                     "one allocation of %zu products", SLOTS);
  cr_expect_not_null(op.plant, "burn has the test hook");
  gcb_op_release(&op);
  struct gcb_gemm_params p = {
      .dtype = GCB_DTYPE_FP32, .m = DIM, .n = DIM, .k = DIM};
  cr_assert_eq(gcb_backend_cuda.gemm(backend, &p, &op, &err), GCB_OK);
  cr_expect_null(op.plant, "not without burn");
  gcb_op_release(&op);
}

Test(cuda_burn_gemm, too_little_memory_for_two_products_is_refused) {
  struct gcb_gemm_params p = {
      .dtype = GCB_DTYPE_FP32, .m = DIM, .n = DIM, .k = DIM, .burn = true};
  struct gcb_op op;
  fake_cuda.free_bytes = 4 * PRODUCT_BYTES;
  open_backend();
  cr_expect_eq(gcb_backend_cuda.gemm(backend, &p, &op, &err), GCB_ENOMEM);
  cr_expect(strstr(err.msg, "bytes") != NULL, "%s", err.msg);
}

Test(cuda_burn_gemm, each_run_writes_the_next_slot_in_turn) {
  struct gcb_op op;
  burn_op(GCB_DTYPE_FP32, &op);
  char *base = slots_base(PRODUCT_BYTES);
  cr_assert_not_null(base);
  fake_cuda_clear_log();
  run(&op, (int)SLOTS + 2);
  for (size_t i = 0; i < SLOTS + 2; i++) {
    int at = fake_find("matmul", 0, (int)i);
    cr_assert_geq(at, 0);
    cr_expect_eq(fake_cuda.log[at].dst,
                 (const void *)(base + (i % SLOTS) * PRODUCT_BYTES),
                 "run %zu into slot %zu, the first into slot 0", i, i % SLOTS);
  }
  cr_expect_eq(fake_count("cudaMemsetAsync", 0, fake_cuda.n), 0,
               "no L2 flush nor C rewrite between products");
  gcb_op_release(&op);
}

Test(cuda_burn_gemm, check_compares_new_products_with_the_first) {
  struct gcb_op op;
  struct gcb_check c;
  burn_op(GCB_DTYPE_FP32, &op);
  char *base = slots_base(PRODUCT_BYTES);
  cr_assert_not_null(base);
  run(&op, 6);                       /* slots 0 .. 5 */
  slot_f32(base, 2)[7] += 0.0005f;   /* within gpu-burn's EPSILON */
  slot_f32(base, 3)[100] = 1.0f;     /* 0.2526 away from 0x3f3f3f3f */
  slot_f32(base, 4)[0] = (float)NAN; /* gpu-burn's > would miss it */
  fake_cuda_clear_log();
  cr_assert_eq(op.check(op.state, &c, &err), GCB_OK, "%s", err.msg);
  cr_expect(c.checked);
  cr_expect_eq(c.samples, 5, "products 1..5, each against product 0");
  cr_expect_eq(c.wrong, 2, "slots 3 and 4");
  cr_expect_float_eq(c.tolerance, 0.001, 1e-12);
  cr_expect_float_eq(c.max_error, 1.0 - 0.74705880880355835, 1e-6);
  int cmp = fake_find("burn_compare", 0, 0);
  int back = fake_find("cudaMemcpyAsync", cmp, 0);
  int sync = fake_find("cudaStreamSynchronize", back, 0);
  cr_expect(cmp >= 0 && back > cmp && sync > back,
            "compared on the device, the counts copied back, then waited");
  cr_expect_eq(fake_cuda.log[cmp].bytes, 6, "the six products written");

  /* Nothing new: nothing compared. */
  fake_cuda_clear_log();
  cr_assert_eq(op.check(op.state, &c, &err), GCB_OK);
  cr_expect_eq(c.samples, 0);
  cr_expect_eq(c.wrong, 0);
  cr_expect_eq(fake_find("burn_compare", 0, 0), -1);

  /* The next products only; slot 3 stays as it was until rewritten. */
  run(&op, 4); /* slots 6 .. 9 */
  cr_assert_eq(op.check(op.state, &c, &err), GCB_OK);
  cr_expect_eq(c.samples, 4);
  cr_expect_eq(c.wrong, 0);

  /* Around the ring: every slot rewritten, slot 0 among them. */
  run(&op, (int)SLOTS + 5);
  cr_assert_eq(op.check(op.state, &c, &err), GCB_OK);
  cr_expect_eq(c.samples, SLOTS - 1, "each slot once, the first excluded");
  cr_expect_eq(c.wrong, 0, "the rewritten products agree again");
  gcb_op_release(&op);
}

struct tolerance_case {
  enum gcb_dtype t;
  size_t product;
  double tolerance;
};

/* compare.cu: EPSILON 0.001f, EPSILOND 0.0000001; int32 exactly. */
Test(cuda_burn_gemm, tolerances_are_gpu_burns) {
  static const struct tolerance_case cases[] = {
      {GCB_DTYPE_FP32, DIM * DIM * 4, 0.001},
      {GCB_DTYPE_TF32, DIM * DIM * 4, 0.001},
      {GCB_DTYPE_FP64, DIM * DIM * 8, 0.0000001},
      {GCB_DTYPE_INT8, DIM * DIM * 4, 0.0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    struct gcb_gemm_params p = {
        .dtype = cases[i].t, .m = DIM, .n = DIM, .k = DIM, .burn = true};
    struct gcb_op op;
    struct gcb_check c;
    fake_cuda.free_bytes = FREE_BYTES;
    if (backend == NULL)
      open_backend();
    cr_assert_eq(gcb_backend_cuda.gemm(backend, &p, &op, &err), GCB_OK, "%s",
                 err.msg);
    run(&op, 3);
    cr_assert_eq(op.check(op.state, &c, &err), GCB_OK, "%s", err.msg);
    cr_expect_eq(c.samples, 2, "%s", gcb_dtype_name(cases[i].t));
    cr_expect_eq(c.wrong, 0, "%s", gcb_dtype_name(cases[i].t));
    cr_expect_eq(c.tolerance, cases[i].tolerance, "%s",
                 gcb_dtype_name(cases[i].t));
    gcb_op_release(&op);
  }
}

Test(cuda_burn_gemm, a_planted_error_is_found_by_the_next_check) {
  struct gcb_op op;
  struct gcb_check c;
  burn_op(GCB_DTYPE_FP32, &op);
  run(&op, 3);
  op.plant(op.state);
  cr_assert_eq(op.check(op.state, &c, &err), GCB_OK);
  cr_expect_eq(c.samples, 2);
  cr_expect_eq(c.wrong, 1, "the last product");
  cr_expect_gt(c.max_error, 1e30, "0x7f bytes: about 3.4e38");
  cr_assert_eq(op.check(op.state, &c, &err), GCB_OK);
  cr_expect_eq(c.wrong, 0, "planted once");
  gcb_op_release(&op);
}

/* A plant right after the first product (slot 0, the reference) waits for
 * the next product, which the check after it compares. */
Test(cuda_burn_gemm, a_plant_into_the_reference_waits_for_the_next_product) {
  struct gcb_op op;
  struct gcb_check c;
  burn_op(GCB_DTYPE_FP32, &op);
  run(&op, 1);
  op.plant(op.state);
  cr_assert_eq(op.check(op.state, &c, &err), GCB_OK);
  cr_expect_eq(c.samples, 0);
  cr_expect_eq(c.wrong, 0);
  run(&op, 2);
  cr_assert_eq(op.check(op.state, &c, &err), GCB_OK);
  cr_expect_eq(c.samples, 2);
  cr_expect_eq(c.wrong, 1);
  gcb_op_release(&op);
}

/* ---- from the GPU's reading to the report's root cause ------------------ */

/*
 * A GPU that throttles, from NVML's reading to the report's root cause,
 * through the functions a real `gcbench burn` calls on the cuda backend:
 * cuda's burn_read over the fake NVML (scripted: SM clock 1980 -> 1410 MHz
 * with hw_thermal at 87 C from second 30 of 60), the burn loop's
 * conversion of each reading into the timeline's points
 * (gcb__burn_reading_points), the results document's writer and its
 * validating reader (gcb_results_add_record, _write, _read), then the
 * report's rules and diagnosis (gcb_analyze, gcb_diagnose).
 * What is fake: NVML and CUDA (fake_nvml.c, fake_cuda.c); one fake GPU
 * read for both ranks, scripted before each reading; the throughput of
 * each interval, made here in proportion to the SM clock with 1 % noise
 * (the fake GEMM takes no time worth timing); the ranks' per-rank
 * statistics. Not run: mpiexec, the burn loop's timing and gather.
 */
#define NT 60
#define ONSET 30

TestSuite(cuda_burn_report, .init = setup, .fini = teardown);

/* Rank r's moment at interval i: rank 1 throttles from ONSET on. */
static struct moment moment_at(int r, long i) {
  bool hot = r == 1 && i >= ONSET;
  unsigned warm = 70 + (unsigned)(i < 10 ? i : 10); /* 70 -> 80 C */
  return (struct moment){.sm = hot ? 1410 : 1980,
                         .temp = hot ? 87 : warm,
                         .power_mw = hot ? 560000 : 690000,
                         .reasons = hot ? HW_THERMAL : 0};
}

/* A document of the two ranks' timeline, written and read back; owned by
 * the caller. */
static struct gcb_results *burn_document(struct gcb_burn_timeline *tl) {
  static struct gcb_rank_result ranks[2];
  for (int r = 0; r < 2; r++)
    ranks[r] = (struct gcb_rank_result){
        .rank = r,
        .time_s = 1e-3,
        .seconds = {.n = NT,
                    .min = 1e-3,
                    .median = 1e-3,
                    .mean = 1e-3,
                    .max = 1.4e-3,
                    .stdev = 1e-4,
                    .p99 = 1.4e-3},
        .check = {.checked = true, .samples = NT, .method = "compare"}};
  struct gcb_record rec = {
      .bench = "burn",
      .backend = "cuda",
      .label = "burn bf16 8192x8192x8192 60s gemm",
      .work_per_op = 2.0 * 8192 * 8192 * 8192,
      .figure = {.unit = "GFLOP/s", .scale = 1e9, .counted = "2mnk flops"},
      .iterations = NT,
      .warmup = 1,
      .nranks = 2,
      .ranks = ranks,
      .timeline = tl};
  gcb_record_param_str(&rec, "dtype", "bf16");
  gcb_record_param_int(&rec, "m", 8192);
  struct gcb_results *doc = gcb_results_new(), *back = NULL;
  cr_assert_not_null(doc);
  cr_assert_eq(
      gcb_results_set(
          doc, "run",
          json_pack("{s:s, s:s, s:[s,s], s:s, s:s, s:s, s:s, s:s, s:i, s:i}",
                    "id", "r1", "command", "burn", "command_line", "gcbench",
                    "burn", "start_time", "2026-01-01T00:00:00Z", "end_time",
                    "2026-01-01T00:01:00Z", "status", "complete", "backend",
                    "cuda", "backend_reason", "--backend cuda", "ranks", 2,
                    "nodes", 1),
          &err),
      GCB_OK, "%s", err.msg);
  cr_assert_eq(
      gcb_results_set(doc, "tool",
                      json_pack("{s:s, s:s, s:s}", "name", "gcbench", "version",
                                "0.1.0", "git_revision", "abc"),
                      &err),
      GCB_OK, "%s", err.msg);
  cr_assert_eq(gcb_results_add_record(doc, &rec, &err), GCB_OK, "%s", err.msg);
  char path[] = "/tmp/gcb-cuda-burn-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  close(fd);
  cr_assert_eq(gcb_results_write(doc, path, &err), GCB_OK, "%s", err.msg);
  cr_assert_eq(fx_results_read(path, &back, &err), GCB_OK, "%s", err.msg);
  unlink(path);
  gcb_results_free(doc);
  return back;
}

Test(cuda_burn_report, a_thermal_clock_drop_is_one_root_cause_with_its_onset) {
  open_backend();
  static double v[GCB_BURN_SERIES_COUNT][2 * NT];
  struct gcb_burn_timeline tl = {.interval_s = 1.0, .nranks = 2, .n = NT};
  for (int s = 0; s < GCB_BURN_SERIES_COUNT; s++)
    tl.v[s] = v[s];
  unsigned seed = 27;
  for (long i = 0; i < NT; i++)
    for (int r = 0; r < 2; r++) {
      struct moment m = moment_at(r, i);
      struct gcb_burn_reading rd;
      double point[GCB_BURN_SERIES_COUNT];
      script(&m);
      gcb_backend_cuda.burn_read(backend, &rd);
      gcb__burn_reading_points(&rd, point);
      for (int s = GCB_BURN_CPU_MHZ; s <= GCB_BURN_XID; s++)
        v[s][r * NT + i] = point[s];
      seed = seed * 1103515245u + 12345u;
      double noise = 0.01 * ((double)(seed >> 16 & 0x7fff) / 0x7fff - 0.5);
      v[GCB_BURN_FIGURE][r * NT + i] =
          700e3 * point[GCB_BURN_SM_CLOCK_MHZ] / 1980 * (1 + noise);
      v[GCB_BURN_CHECKED][r * NT + i] = 1;
      v[GCB_BURN_WRONG][r * NT + i] = 0;
      v[GCB_BURN_CPU_UTIL][r * NT + i] = 1.0;
    }
  cr_expect_eq(v[GCB_BURN_SM_CLOCK_MHZ][1 * NT + ONSET], 1410.0);
  cr_expect_eq(v[GCB_BURN_THROTTLE_REASONS][1 * NT + ONSET],
               (double)HW_THERMAL);
  struct gcb_results *res = burn_document(&tl);
  struct gcb_model *model = NULL;
  cr_assert_eq(gcb_model_from_results(res, "burn.json", &model, &err), GCB_OK,
               "%s", err.msg);
  struct gcb_doc doc = {
      .name = "burn.json", .root = gcb_results_json(res), .model = model};
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_findings f = {0};
  struct gcb_diagnosis dx = {0};
  cr_assert_eq(gcb_analyze(&doc, 1, &t, &f, &err), GCB_OK, "%s", err.msg);
  gcb_findings_sort(&f);
  cr_assert_eq(gcb_diagnose(&doc, 1, &f, &t, &dx, &err), GCB_OK, "%s", err.msg);
  size_t burn = 0;
  for (size_t i = 0; i < f.n; i++)
    if (strncmp(f.items[i].kind->name, "burn-", 5) == 0 &&
        f.items[i].severity != GCB_SEV_INFO) {
      burn++;
      cr_expect_str_eq(f.items[i].kind->name, "burn-falloff", "%s",
                       f.items[i].explanation);
      cr_expect_eq(f.items[i].where.rank, 1, "%s", f.items[i].explanation);
    }
  cr_expect_eq(burn, 1, "one burn finding");
  cr_assert_eq(dx.n - gcb_diagnosis_cleared(&dx), 1, "one root cause");
  const char *s = dx.items[0].summary;
  cr_expect_eq(dx.items[0].comp.rank, 1, "%s", s);
  cr_expect(strstr(s, "falls 29 % after 30 s") != NULL, "%s", s);
  cr_expect(strstr(s, "clocks 1,980 -> 1,410 MHz, hw_thermal at 87 C") != NULL,
            "%s", s);
  gcb_diagnosis_free(&dx);
  gcb_findings_free(&f);
  gcb_model_free(model);
  gcb_results_free(res);
}
