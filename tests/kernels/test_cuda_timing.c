/*
 * The CUDA backend's timing rules, as call sequences against the fake
 * CUDA layer (fake_cuda.c), without a GPU. Each test names the reference
 * tool whose rule it holds the backend to (docs/GPU.md, "Timing rules"):
 * - GEMM and device memory are queued behind the gate kernel: the start
 *   event is recorded after the gate, the work after the start, the gate is
 *   open before the host waits (nvbandwidth's spin kernel, memcpy.cpp);
 * - the GEMM L2 flush and C rewrite happen before the gate, untimed
 *   (mamf-finder's cache and destination reset), and setup warms the GPU up;
 * - copy latency and bandwidth samples time 16 copies (nvbandwidth's
 *   loopCount) and report their mean;
 * - pcie h2d_bidir times its own stream alone while d2h runs on the other,
 *   twice as long; bidir is the total, stream 2 joined before the stop;
 *   pageable copies of both directions come from two host threads, one per
 *   stream (a pageable D2H returns only when done: from one thread the
 *   directions would take turns), the second on the backend's device;
 * - p2p bidir drives each leg from its source GPU; bidir_leg times the
 *   first leg alone (the second forked, not joined, drained after the
 *   stop: nvbandwidth's per-direction figures); a failed p2p sample
 *   drains its streams after opening the gate.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "kernels/cuda_impl.h"
#include "kernels/cuda_pure.h"
#include "tests/kernels/fake_cuda.h"

extern const struct gcb_backend_ops gcb_backend_cuda;

static struct gcb_backend *backend;
static struct gcb_err err;

static void setup(void) {
  fake_cuda_reset();
  memset(&err, 0, sizeof err);
  struct gcb_backend_args args = {.local_rank = 0};
  cr_assert_eq(gcb_backend_cuda.open(&args, &backend, &err), GCB_OK, "%s",
               err.msg);
}

static void teardown(void) {
  gcb_backend_cuda.close(backend);
}

/* The order every gated sample must have; returns the start record's and
 * the stop record's log index through lo/hi. */
static void assert_gated(int *lo, int *hi) {
  int gate = fake_find("gate", 0, 0);
  cr_assert_geq(gate, 0, "the timed work is queued behind the gate kernel");
  cr_assert_eq(fake_cuda.log[gate].gate, 0, "the gate is closed at launch");
  int start = fake_find("cudaEventRecord", gate, 0);
  cr_assert_geq(start, 0);
  cr_assert_eq(fake_cuda.log[start].event, (const void *)backend->start);
  int stop = -1;
  for (int i = start + 1; i < fake_cuda.n; i++)
    if (strcmp(fake_cuda.log[i].name, "cudaEventRecord") == 0 &&
        fake_cuda.log[i].event == (const void *)backend->stop)
      stop = i;
  cr_assert_gt(stop, start);
  int sync = fake_find("cudaEventSynchronize", stop, 0);
  cr_assert_gt(sync, stop);
  cr_assert_eq(fake_cuda.log[sync].gate, 1,
               "the gate is open before the host waits for the stop event");
  *lo = start;
  *hi = stop;
}

TestSuite(cuda_timing, .init = setup, .fini = teardown);

Test(cuda_timing, gemm_is_queued_behind_the_gate) {
  struct gcb_gemm_params p = {.dtype = GCB_DTYPE_BF16,
                              .m = 64,
                              .n = 64,
                              .k = 64,
                              .seed = 1,
                              .flush_l2 = true};
  struct gcb_op op;
  cr_assert_eq(gcb_backend_cuda.gemm(backend, &p, &op, &err), GCB_OK, "%s",
               err.msg);
  fake_cuda_clear_log();
  double s = 0;
  cr_assert_eq(op.run(op.state, 1, &s, &err), GCB_OK, "%s", err.msg);
  int lo, hi;
  assert_gated(&lo, &hi);
  cr_expect_eq(fake_count("matmul", lo, hi), 1, "one multiply timed");
  cr_expect_eq(fake_count("matmul", 0, lo), 0, "none before the start");
  int gate = fake_find("gate", 0, 0);
  cr_expect_eq(fake_count("cudaMemsetAsync", 0, gate), 2,
               "L2 flush and C rewrite, before the gate (untimed)");
  cr_expect_eq(fake_count("cudaMemsetAsync", lo, hi), 0);
  cr_expect_float_eq(s, 1.6e-3, 1e-9);
  gcb_op_release(&op);
}

Test(cuda_timing, gemm_flush_off_and_warm_up) {
  struct gcb_gemm_params p = {
      .dtype = GCB_DTYPE_FP16, .m = 64, .n = 64, .k = 64, .seed = 1};
  struct gcb_op op;
  cr_assert_eq(gcb_backend_cuda.gemm(backend, &p, &op, &err), GCB_OK, "%s",
               err.msg);
  /* Setup ran 1 + gcb_gemm_warmup_reps(1.6 ms, 0.5 s) untimed multiplies. */
  long want = 1 + gcb_gemm_warmup_reps(1.6e-3, GCB_GEMM_WARMUP_S);
  cr_expect_eq(fake_count("matmul", 0, fake_cuda.n), want);
  cr_expect_geq(want, 300, "half a second of 1.6 ms multiplies");
  fake_cuda_clear_log();
  double s = 0;
  cr_assert_eq(op.run(op.state, 1, &s, &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(fake_count("cudaMemsetAsync", 0, fake_cuda.n), 0,
               "no flush when it is off");
  gcb_op_release(&op);
}

/* pattern's GEMMs run as a framework's: no warm-up of their own, no gate
 * (the host enqueues while the GPU works), and attention's per-head
 * products as one strided batch (torch.bmm's cublasGemmStridedBatched). */
Test(cuda_timing, a_training_steps_batched_gemm_is_one_ungated_call) {
  char count[40], stride[40];
  snprintf(count, sizeof count, "layout_attr_%d",
           (int)CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
  snprintf(stride, sizeof stride, "layout_attr_%d",
           (int)CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
  /* A benchmark's GEMM: warmed up, gated, one product */
  struct gcb_gemm_params q = {
      .dtype = GCB_DTYPE_BF16, .m = 64, .n = 64, .k = 64, .seed = 1};
  struct gcb_op op;
  double t = 0;
  fake_cuda_clear_log();
  cr_assert_eq(gcb_backend_cuda.gemm(backend, &q, &op, &err), GCB_OK, "%s",
               err.msg);
  cr_expect_gt(fake_count("matmul", 0, fake_cuda.n), 1, "warmed up");
  cr_expect_eq(fake_find(count, 0, 0), -1, "no batch count");
  fake_cuda_clear_log();
  cr_assert_eq(op.run(op.state, 1, &t, &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(fake_count("gate", 0, fake_cuda.n), 1, "gated");
  gcb_op_release(&op);

  /* A step's: the GPU is warm already; 96 products in one call */
  struct gcb_gemm_params p = {.dtype = GCB_DTYPE_BF16,
                              .m = 128,
                              .n = 128,
                              .k = 64,
                              .seed = 1,
                              .in_step = true,
                              .batch = 96};
  fake_cuda_clear_log();
  cr_assert_eq(gcb_backend_cuda.gemm(backend, &p, &op, &err), GCB_OK, "%s",
               err.msg);
  cr_expect_eq(fake_count("matmul", 0, fake_cuda.n), 0, "no warm-up");
  /* A, B and C: 96 products, each after the one before */
  size_t strides[3] = {64 * 128, 64 * 128, 128 * 128};
  for (int i = 0; i < 3; i++) {
    int c = fake_find(count, 0, i), s = fake_find(stride, 0, i);
    cr_assert_geq(c, 0, "layout %d has a batch count", i);
    cr_assert_geq(s, 0, "layout %d has a stride", i);
    cr_expect_eq(fake_cuda.log[c].bytes, 96);
    cr_expect_eq(fake_cuda.log[s].bytes, strides[i], "layout %d", i);
  }
  fake_cuda_clear_log();
  /* the fake writes all 96 products' C: ASan sees a C too small */
  cr_assert_eq(op.run(op.state, 3, &t, &err), GCB_OK, "%s", err.msg);
  cr_expect_eq(fake_count("matmul", 0, fake_cuda.n), 3, "one call a run");
  cr_expect_eq(fake_count("gate", 0, fake_cuda.n), 0, "no gate");
  struct gcb_check chk;
  cr_assert_eq(op.check(op.state, &chk, &err), GCB_OK, "%s", err.msg);
  cr_expect(chk.checked);
  gcb_op_release(&op);
}

/* A step's first GEMM warms a cold GPU up; burn has no batch. */
Test(cuda_timing, a_training_steps_first_gemm_warms_the_gpu_up) {
  struct gcb_gemm_params p = {.dtype = GCB_DTYPE_BF16,
                              .m = 64,
                              .n = 64,
                              .k = 64,
                              .seed = 1,
                              .in_step = true};
  struct gcb_op op;
  fake_cuda_clear_log();
  cr_assert_eq(gcb_backend_cuda.gemm(backend, &p, &op, &err), GCB_OK, "%s",
               err.msg);
  cr_expect_gt(fake_count("matmul", 0, fake_cuda.n), 1, "warmed up");
  gcb_op_release(&op);
  p.burn = true;
  p.batch = 2;
  cr_expect_eq(gcb_backend_cuda.gemm(backend, &p, &op, &err), GCB_EUSAGE);
}

Test(cuda_timing, fp8_fast_accumulation_is_set_only_when_asked) {
  for (int fast = 0; fast <= 1; fast++) {
    struct gcb_gemm_params p = {.dtype = GCB_DTYPE_FP8,
                                .m = 64,
                                .n = 64,
                                .k = 64,
                                .seed = 1,
                                .fp8_fast_accum = fast};
    struct gcb_op op;
    fake_cuda_clear_log();
    cr_assert_eq(gcb_backend_cuda.gemm(backend, &p, &op, &err), GCB_OK, "%s",
                 err.msg);
    char name[40];
    snprintf(name, sizeof name, "matmul_attr_%d",
             (int)CUBLASLT_MATMUL_DESC_FAST_ACCUM);
    int at = fake_find(name, 0, 0);
    cr_assert_geq(at, 0);
    cr_expect_eq(fake_cuda.log[at].bytes, (size_t)fast);
    gcb_op_release(&op);
  }
}

/* cuBLASLt's LtSgemmSimpleAutoTuning pattern: the top 8 heuristic
 * algorithms timed, the fastest kept (the fake makes the 4th fastest). */
Test(cuda_timing, gemm_autotune_keeps_the_fastest_algorithm) {
  struct gcb_gemm_params p = {.dtype = GCB_DTYPE_BF16,
                              .m = 64,
                              .n = 64,
                              .k = 64,
                              .seed = 1,
                              .autotune = true};
  struct gcb_op op;
  fake_cuda.algo_penalty = true;
  cr_assert_eq(gcb_backend_cuda.gemm(backend, &p, &op, &err), GCB_OK, "%s",
               err.msg);
  for (size_t a = 1; a <= GCB_GEMM_AUTOTUNE_ALGOS; a++) {
    int tried = 0;
    for (int i = 0; i < fake_cuda.n; i++)
      tried += strcmp(fake_cuda.log[i].name, "matmul") == 0 &&
               fake_cuda.log[i].bytes == a;
    cr_expect_geq(tried, 1 + GCB_GEMM_AUTOTUNE_RUNS, "algorithm %zu timed", a);
  }
  fake_cuda_clear_log();
  double s = 0;
  cr_assert_eq(op.run(op.state, 1, &s, &err), GCB_OK, "%s", err.msg);
  int m = fake_find("matmul", 0, 0);
  cr_assert_geq(m, 0);
  cr_expect_eq(fake_cuda.log[m].bytes, 4, "the fastest is the one timed");
  gcb_op_release(&op);
  double v[] = {3, 1, 2, NAN};
  cr_expect_eq(gcb_gemm_pick_fastest(v, 4), 1);
  cr_expect_eq(gcb_median_small(v, 3), 2);
}

Test(cuda_timing, device_memory_is_queued_behind_the_gate) {
  const enum gcb_memkernel kernels[] = {GCB_MEMKERNEL_TRIAD,
                                        GCB_MEMKERNEL_MEMCPY};
  for (int i = 0; i < 2; i++) {
    struct gcb_stream_params p = {
        .kernel = kernels[i], .elements = 4096, .seed = 3};
    struct gcb_op op;
    cr_assert_eq(gcb_backend_cuda.stream(backend, &p, &op, &err), GCB_OK, "%s",
                 err.msg);
    fake_cuda_clear_log();
    double s = 0;
    cr_assert_eq(op.run(op.state, 4, &s, &err), GCB_OK, "%s", err.msg);
    int lo, hi;
    assert_gated(&lo, &hi);
    const char *work = i == 0 ? "stream_kernel" : "cudaMemcpyAsync";
    cr_expect_eq(fake_count(work, lo, hi), 4, "%s", work);
    cr_expect_eq(fake_count(work, 0, lo), 0);
    gcb_op_release(&op);
  }
}

static void pcie_case(enum gcb_pcie_dir dir, bool pinned, struct gcb_op *op) {
  struct gcb_pcie_params p = {.direction = dir,
                              .pinned = pinned,
                              .numa_node = -1,
                              .bytes = 8,
                              .seed = 5};
  cr_assert_eq(gcb_backend_cuda.pcie(backend, &p, op, &err), GCB_OK, "%s",
               err.msg);
  fake_cuda_clear_log();
}

Test(cuda_timing, copy_latency_times_16_copies_per_sample) {
  for (int pinned = 1; pinned >= 0; pinned--) {
    struct gcb_op op;
    pcie_case(GCB_PCIE_H2D, pinned, &op);
    double s = 0;
    cr_assert_eq(op.run(op.state, 1, &s, &err), GCB_OK, "%s", err.msg);
    int lo = fake_find("cudaEventRecord", 0, 0), hi = -1;
    for (int i = 0; i < fake_cuda.n; i++)
      if (fake_cuda.log[i].event == (const void *)backend->stop)
        hi = i;
    cr_assert(lo >= 0 && hi > lo);
    cr_expect_eq(fake_count("cudaMemcpyAsync", lo, hi),
                 GCB__CUDA_COPIES_PER_SAMPLE, "pinned %d", pinned);
    cr_expect_eq(fake_count("gate", 0, fake_cuda.n), pinned,
                 "pinned copies gated, pageable ones not");
    cr_expect_float_eq(s, (double)1.6f * 1e-3 / 16, 1e-12,
                       "the mean of the 16");
    struct gcb_check check;
    cr_assert_eq(op.check(op.state, &check, &err), GCB_OK);
    cr_expect_eq(check.wrong, 0);
    gcb_op_release(&op);
  }
}

/* The copies of one sample by stream: the timed one on b->stream. */
static void copies_by_stream(int lo, int hi, int *main, int *other,
                             size_t *main_bytes, size_t *other_bytes) {
  *main = *other = 0;
  for (int i = lo; i < hi; i++) {
    if (strcmp(fake_cuda.log[i].name, "cudaMemcpyAsync") != 0)
      continue;
    bool m = fake_cuda.log[i].what == (const void *)backend->stream;
    (*(m ? main : other))++;
    *(m ? main_bytes : other_bytes) = fake_cuda.log[i].bytes;
  }
}

Test(cuda_timing, pcie_bidirectional_as_nvbandwidth_counts_it) {
  struct gcb_op op;
  pcie_case(GCB_PCIE_H2D_BIDIR, true, &op);
  double s = 0;
  cr_assert_eq(op.run(op.state, 1, &s, &err), GCB_OK, "%s", err.msg);
  int lo, hi, main, other;
  size_t mb = 0, ob = 0;
  assert_gated(&lo, &hi);
  copies_by_stream(lo, hi, &main, &other, &mb, &ob);
  cr_expect_eq(main, 16, "the timed direction on the timed stream");
  cr_expect_eq(other, 16, "the interfering direction on stream 2");
  cr_expect_eq(mb, 8);
  cr_expect_eq(ob, 16, "interference twice as long (testcases_ce.cpp)");
  cr_expect_eq(fake_count("cudaStreamWaitEvent", lo, hi), 1,
               "stream 2 forked after the start, and not joined before stop");
  int sync2 = -1;
  for (int i = hi; i < fake_cuda.n; i++)
    if (strcmp(fake_cuda.log[i].name, "cudaStreamSynchronize") == 0 &&
        fake_cuda.log[i].what == (const void *)backend->stream2)
      sync2 = i;
  cr_expect_gt(sync2, hi, "stream 2 drained before the next sample");
  struct gcb_check check;
  cr_assert_eq(op.check(op.state, &check, &err), GCB_OK);
  cr_expect_eq(check.wrong, 0);
  gcb_op_release(&op);

  pcie_case(GCB_PCIE_BIDIR, true, &op);
  cr_assert_eq(op.run(op.state, 1, &s, &err), GCB_OK, "%s", err.msg);
  assert_gated(&lo, &hi);
  copies_by_stream(lo, hi, &main, &other, &mb, &ob);
  cr_expect(main == 16 && other == 16 && mb == 8 && ob == 8);
  cr_expect_eq(fake_count("cudaStreamWaitEvent", lo, hi), 2,
               "the total: stream 2 joined back before the stop event");
  gcb_op_release(&op);
}

/* The sample's copies by stream: [0] b->stream, [1] stream2, each on one
 * host thread (-1: none, -2: several) with one kind; first/last log
 * index; whether some copy of each overlapped one of the other in time. */
struct by_stream {
  int n[2], thread[2], kind[2], device2_wrong, first[2], last[2];
  bool overlap;
};

static struct by_stream pageable_copies(void) {
  struct by_stream r = {.thread = {-1, -1},
                        .kind = {-1, -1},
                        .first = {-1, -1},
                        .last = {-1, -1}};
  for (int i = 0; i < fake_cuda.n; i++) {
    const struct fake_call *c = &fake_cuda.log[i];
    if (strcmp(c->name, "cudaMemcpyAsync") != 0)
      continue;
    int k = c->what == (const void *)backend->stream2;
    cr_assert(k || c->what == (const void *)backend->stream);
    cr_expect(c->pageable);
    r.n[k]++;
    r.thread[k] =
        r.thread[k] == -1 || r.thread[k] == c->thread ? c->thread : -2;
    r.kind[k] = r.kind[k] == -1 || r.kind[k] == c->kind ? c->kind : -2;
    r.device2_wrong += k && c->device != backend->device;
    r.first[k] = r.first[k] < 0 ? i : r.first[k];
    r.last[k] = i;
    for (int j = 0; j < i && !r.overlap; j++) {
      const struct fake_call *d = &fake_cuda.log[j];
      r.overlap = strcmp(d->name, "cudaMemcpyAsync") == 0 &&
                  d->what != c->what && d->t < c->t_end && c->t < d->t_end;
    }
  }
  return r;
}

/* Index of the last record of event e on stream s (NULL: any), or -1. */
static int last_record(const void *e, const void *s) {
  int at = -1;
  for (int i = 0; i < fake_cuda.n; i++)
    if (strcmp(fake_cuda.log[i].name, "cudaEventRecord") == 0 &&
        fake_cuda.log[i].event == e &&
        (s == NULL || fake_cuda.log[i].what == s))
      at = i;
  return at;
}

/* Fails on the one-thread code: all 32 copies came from the thread that
 * recorded the start, one after the other, never at the same time. */
Test(cuda_timing, pcie_pageable_bidir_copies_each_direction_from_its_thread) {
  /* Device 1, so the second thread must choose it (a thread starts on 0). */
  gcb_backend_cuda.close(backend);
  struct gcb_backend_args args = {.local_rank = 1};
  cr_assert_eq(gcb_backend_cuda.open(&args, &backend, &err), GCB_OK);
  cr_assert_eq(backend->device, 1);
  fake_cuda.pageable_ms = 2;
  const enum gcb_pcie_dir dirs[] = {GCB_PCIE_BIDIR, GCB_PCIE_H2D_BIDIR,
                                    GCB_PCIE_D2H_BIDIR};
  for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
    struct gcb_op op;
    pcie_case(dirs[d], false, &op);
    double s = 0;
    cr_assert_eq(op.run(op.state, 1, &s, &err), GCB_OK, "%s", err.msg);
    struct by_stream r = pageable_copies();
    int start = last_record(backend->start, backend->stream);
    int stop = last_record(backend->stop, backend->stream);
    cr_assert(start >= 0 && stop > start);
    cr_expect(r.n[0] == 16 && r.n[1] == 16, "16 copies each way: %d, %d",
              r.n[0], r.n[1]);
    cr_expect_eq(r.thread[0], fake_cuda.log[start].thread,
                 "b->stream's copies from the thread that times them");
    cr_expect(r.thread[1] >= 0 && r.thread[1] != r.thread[0],
              "stream 2's copies all from one other thread (%d, %d)",
              r.thread[0], r.thread[1]);
    cr_expect_eq(r.device2_wrong, 0, "the second thread on device 1");
    cr_expect(r.overlap, "the two directions copied at the same time");
    int timed_kind = dirs[d] == GCB_PCIE_D2H_BIDIR ? cudaMemcpyDeviceToHost
                                                   : cudaMemcpyHostToDevice;
    cr_expect_eq(r.kind[0], timed_kind, "the timed direction on b->stream");
    cr_expect_eq(r.kind[1], timed_kind == cudaMemcpyHostToDevice
                                ? cudaMemcpyDeviceToHost
                                : cudaMemcpyHostToDevice);
    int fork = fake_find("cudaStreamWaitEvent", start, 0);
    cr_expect(fork > start && fork < r.first[1] &&
                  fake_cuda.log[fork].what == (const void *)backend->stream2,
              "stream 2 waits for the start before its first copy");
    int mid = last_record(backend->mid, backend->stream2);
    if (dirs[d] == GCB_PCIE_BIDIR) {
      /* The total (nvbandwidth's TOTAL_BW): stream 2 joined before stop. */
      cr_expect(mid > r.last[1] && mid < stop, "stream 2's end after its "
                                               "last copy, before the stop");
      int join = fake_find("cudaStreamWaitEvent", mid, 0);
      cr_expect(join > mid && join < stop &&
                fake_cuda.log[join].what == (const void *)backend->stream);
    } else {
      /* One direction alone (USE_FIRST_BW): stop after its own copies. */
      cr_expect_eq(fake_count("cudaStreamWaitEvent", start, stop), 1,
                   "not joined");
      cr_expect_gt(stop, r.last[0]);
    }
    struct gcb_check check;
    cr_assert_eq(op.check(op.state, &check, &err), GCB_OK);
    cr_expect_eq(check.wrong, 0);
    gcb_op_release(&op);
  }
}

/* A failure in the second thread fails the sample with its message (its
 * cudaSetDevice: the second call of the sample, after the timing thread's),
 * and the thread is joined before the call returns. */
Test(cuda_timing, pcie_pageable_bidir_second_thread_failure) {
  for (int d = 0; d < 2; d++) {
    struct gcb_op op;
    pcie_case(d ? GCB_PCIE_H2D_BIDIR : GCB_PCIE_BIDIR, false, &op);
    snprintf(fake_cuda.fail_name, sizeof fake_cuda.fail_name, "cudaSetDevice");
    fake_cuda.fail_nth = 2;
    fake_cuda.fail_seen = 0;
    fake_cuda.fail_rc = cudaErrorInvalidDevice;
    double s = 0;
    cr_assert_eq(op.run(op.state, 1, &s, &err), GCB_ECUDA);
    cr_expect(strstr(err.msg, "cudaSetDevice") != NULL, "%s", err.msg);
    struct by_stream r = pageable_copies();
    cr_expect(r.n[0] == 16 && r.n[1] == 0, "%d, %d", r.n[0], r.n[1]);
    int n = fake_cuda.n;
    struct timespec pause = {0, 20000000L};
    nanosleep(&pause, NULL);
    cr_expect_eq(fake_cuda.n, n, "nothing logged after the call returned");
    fake_cuda.fail_nth = 0;
    gcb_op_release(&op);
  }
}

static void p2p_case(enum gcb_p2p_dir dir, struct gcb_op *op) {
  struct gcb_p2p_params q = {.mode = GCB_P2P_CE,
                             .direction = dir,
                             .src = 0,
                             .dst = 1,
                             .bytes = 8,
                             .seed = 9};
  cr_assert_eq(gcb_backend_cuda.p2p(backend, &q, op, &err), GCB_OK, "%s",
               err.msg);
  fake_cuda_clear_log();
}

Test(cuda_timing, p2p_latency_times_16_copies) {
  struct gcb_op op;
  p2p_case(GCB_P2P_DIR_LATENCY, &op);
  double s = 0;
  cr_assert_eq(op.run(op.state, 1, &s, &err), GCB_OK, "%s", err.msg);
  int gate = fake_find("gate", 0, 0);
  int sync = fake_find("cudaEventSynchronize", gate, 0);
  cr_assert(gate >= 0 && sync > gate);
  cr_expect_eq(fake_count("cudaMemcpyAsync", gate, sync), 16);
  cr_expect_float_eq(s, (double)1.6f * 1e-3 / 16, 1e-12);
  gcb_op_release(&op);
}

Test(cuda_timing, p2p_bidir_legs_run_from_their_source_gpu) {
  struct gcb_op op;
  p2p_case(GCB_P2P_DIR_BIDIR, &op);
  double s = 0;
  cr_assert_eq(op.run(op.state, 1, &s, &err), GCB_OK, "%s", err.msg);
  int first = fake_find("cudaMemcpyAsync", 0, 0);
  int second = fake_find("cudaMemcpyAsync", 0, 1);
  cr_assert(first >= 0 && second > first);
  cr_expect_eq(fake_cuda.log[first].stream_device, 0, "GPU 0 -> 1 from 0");
  cr_expect_eq(fake_cuda.log[second].stream_device, 1, "GPU 1 -> 0 from 1");
  cr_expect_eq(fake_cuda.log[second].device, 1, "with GPU 1 current");
  struct gcb_check check;
  cr_assert_eq(op.check(op.state, &check, &err), GCB_OK);
  cr_expect_eq(check.wrong, 0);
  gcb_op_release(&op);
}

/* The p2p sample's start and stop records (its own events): the first
 * record after the gate, the last before the host waits. */
static void p2p_window(int *lo, int *hi, int *sync) {
  int gate = fake_find("gate", 0, 0);
  *sync = fake_find("cudaEventSynchronize", gate, 0);
  cr_assert(gate >= 0 && *sync > gate);
  *lo = fake_find("cudaEventRecord", gate, 0);
  *hi = -1;
  for (int i = *lo; i < *sync; i++)
    if (strcmp(fake_cuda.log[i].name, "cudaEventRecord") == 0)
      *hi = i;
  cr_assert(*lo >= 0 && *hi > *lo);
}

/* Copies between lo and hi whose stream lives on `device`. */
static int copies_on(int device, int lo, int hi) {
  int n = 0;
  for (int i = lo; i < hi; i++)
    n += strcmp(fake_cuda.log[i].name, "cudaMemcpyAsync") == 0 &&
         fake_cuda.log[i].stream_device == device;
  return n;
}

Test(cuda_timing, p2p_bidir_leg_times_one_direction_beside_the_other) {
  for (int leg = 0; leg <= 1; leg++) {
    struct gcb_op op;
    p2p_case(leg ? GCB_P2P_DIR_BIDIR_LEG : GCB_P2P_DIR_BIDIR, &op);
    double s = 0;
    cr_assert_eq(op.run(op.state, 1, &s, &err), GCB_OK, "%s", err.msg);
    int lo, hi, sync;
    p2p_window(&lo, &hi, &sync);
    cr_expect_eq(copies_on(0, lo, hi), 1, "GPU 0 -> 1, from GPU 0");
    cr_expect_eq(copies_on(1, lo, hi), 1, "GPU 1 -> 0 at the same time");
    cr_expect_eq(fake_count("cudaStreamWaitEvent", lo, hi), leg ? 1 : 2, "%s",
                 leg ? "the second leg forked after the start, not joined"
                     : "the total: the second leg joined before the stop");
    int drained = -1;
    for (int i = sync; i < fake_cuda.n; i++)
      if (strcmp(fake_cuda.log[i].name, "cudaStreamSynchronize") == 0 &&
          fake_cuda.log[i].stream_device == 1)
        drained = i;
    if (leg)
      cr_expect_gt(drained, sync, "the leg beside drained after the stop");
    cr_expect_float_eq(s, 1.6e-3, 1e-9);
    struct gcb_check check;
    cr_assert_eq(op.check(op.state, &check, &err), GCB_OK);
    cr_expect_eq(check.samples, 2, "both directions validated");
    cr_expect_eq(check.wrong, 0);
    gcb_op_release(&op);
  }
}

Test(cuda_timing, p2p_failure_drains_after_opening_the_gate) {
  struct gcb_op op;
  p2p_case(GCB_P2P_DIR_UNI, &op);
  snprintf(fake_cuda.fail_name, sizeof fake_cuda.fail_name, "cudaMemcpyAsync");
  fake_cuda.fail_nth = 1;
  fake_cuda.fail_rc = cudaErrorLaunchFailure;
  double s = 0;
  cr_assert_eq(op.run(op.state, 1, &s, &err), GCB_ECUDA);
  int failed = fake_find("cudaMemcpyAsync", 0, 0);
  int drained = fake_find("cudaStreamSynchronize", failed, 0);
  cr_assert_gt(drained, failed, "the streams are drained after the failure");
  cr_expect_eq(fake_cuda.log[drained].gate, 1, "with the gate open");
  gcb_op_release(&op);
}

/* A gate that closed but whose start event could not be recorded: the
 * sample fails, and the gate kernel is released and the streams drained
 * before it returns, so nothing spins on into the next sample. */
Test(cuda_timing, a_failed_gate_begin_opens_the_gate_and_drains) {
  struct gcb_stream_params p = {
      .kernel = GCB_MEMKERNEL_TRIAD, .elements = 4096, .seed = 3};
  struct gcb_op op;
  cr_assert_eq(gcb_backend_cuda.stream(backend, &p, &op, &err), GCB_OK, "%s",
               err.msg);
  fake_cuda_clear_log();
  snprintf(fake_cuda.fail_name, sizeof fake_cuda.fail_name, "cudaEventRecord");
  fake_cuda.fail_nth = 1;
  fake_cuda.fail_seen = 0;
  fake_cuda.fail_rc = cudaErrorLaunchFailure;
  double s = 0;
  cr_assert_eq(op.run(op.state, 1, &s, &err), GCB_ECUDA);
  int gate = fake_find("gate", 0, 0);
  int failed = fake_find("cudaEventRecord", gate, 0);
  cr_assert(gate >= 0 && failed > gate, "the gate closed, then the record");
  cr_expect_eq(fake_count("stream_kernel", 0, fake_cuda.n), 0,
               "no work queued behind it");
  int drained = fake_find("cudaStreamSynchronize", failed, 0);
  cr_assert_gt(drained, failed, "the streams are drained after the failure");
  cr_expect_eq(fake_cuda.log[drained].gate, 1, "with the gate open");
  gcb_op_release(&op);
}
