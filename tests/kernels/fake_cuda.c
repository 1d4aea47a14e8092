/*
 * The fake CUDA layer (see fake_cuda.h): the CUDA runtime calls, cuBLASLt
 * calls and gcbench kernel launchers the CUDA backend makes, each logged
 * and answered as a working GPU would, in host memory. Only what the
 * backend's GEMM, memory, pcie and p2p paths call is here; a call that is
 * missing falls through to the real libcudart, which fails without a GPU
 * and so fails the test visibly.
 */
#include "tests/kernels/fake_cuda.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cublasLt.h>

#include "kernels/cuda_kernels.h"

struct fake_cuda fake_cuda;

/* The current device belongs to the host thread, as in CUDA: a new thread
 * starts on device 0 until it calls cudaSetDevice. */
static _Thread_local int current_device;
/* The log is appended from every thread (pcie's second copy thread). */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int my_last = -1; /* this thread's last log entry */
static _Thread_local int my_id = -1;   /* this thread's number (fake_call) */
static int threads_seen;
static volatile int *gate_flag; /* the last gate launched */
static int last_algo;           /* of the last cublasLtMatmul */

/* Streams carry the device they were made on. */
struct fake_stream {
  int device;
};

void fake_cuda_clear_log(void) {
  fake_cuda.n = 0;
}

void fake_cuda_reset(void) {
  memset(&fake_cuda, 0, sizeof fake_cuda);
  fake_cuda.elapsed_ms = 1.6f;
  fake_cuda.device_count = 2;
  current_device = 0;
  gate_flag = NULL;
}

int fake_find(const char *name, int from, int k) {
  for (int i = from < 0 ? 0 : from; i < fake_cuda.n; i++)
    if (strcmp(fake_cuda.log[i].name, name) == 0 && k-- == 0)
      return i;
  return -1;
}

int fake_count(const char *name, int lo, int hi) {
  int n = 0;
  for (int i = lo < 0 ? 0 : lo; i < hi && i < fake_cuda.n; i++)
    n += strcmp(fake_cuda.log[i].name, name) == 0;
  return n;
}

/* Logs a call; returns the injected error when this is the one to fail. */
static cudaError_t logged(const char *name, const void *what, size_t bytes) {
  cudaError_t rc = cudaSuccess;

  pthread_mutex_lock(&log_lock);
  if (my_id < 0)
    my_id = threads_seen++;
  my_last = -1;
  if (fake_cuda.n < FAKE_LOG_MAX) {
    my_last = fake_cuda.n;
    struct fake_call *c = &fake_cuda.log[fake_cuda.n++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->what = what;
    c->bytes = bytes;
    c->device = current_device;
    c->stream_device = -1;
    c->gate = gate_flag ? *gate_flag : -1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    c->t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    c->t_end = c->t;
    c->thread = my_id;
  }
  if (fake_cuda.fail_nth > 0 && strcmp(name, fake_cuda.fail_name) == 0 &&
      ++fake_cuda.fail_seen == fake_cuda.fail_nth)
    rc = fake_cuda.fail_rc;
  pthread_mutex_unlock(&log_lock);
  return rc;
}

/* This thread's last entry (a scratch one when the log is full). */
static struct fake_call *my_call(void) {
  static _Thread_local struct fake_call scratch;
  return my_last >= 0 ? &fake_cuda.log[my_last] : &scratch;
}

static cudaError_t on_stream(const char *name, cudaStream_t s, size_t bytes) {
  cudaError_t rc = logged(name, s, bytes);
  if (s != NULL)
    my_call()->stream_device = ((struct fake_stream *)s)->device;
  return rc;
}

/* ---- devices, streams, events -------------------------------------------- */

cudaError_t cudaGetDeviceCount(int *count) {
  *count = fake_cuda.device_count;
  return logged("cudaGetDeviceCount", NULL, 0);
}
cudaError_t cudaSetDevice(int device) {
  current_device = device;
  return logged("cudaSetDevice", NULL, (size_t)device);
}
cudaError_t cudaGetDevice(int *device) {
  *device = current_device;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr,
                                   int device) {
  (void)device;
  switch (attr) {
  case cudaDevAttrComputeCapabilityMajor:
    *value = 9;
    break;
  case cudaDevAttrComputeCapabilityMinor:
    *value = 0;
    break;
  case cudaDevAttrMultiProcessorCount:
    *value = 132;
    break;
  case cudaDevAttrL2CacheSize:
    *value = 1 << 20; /* small: the flush buffer is real host memory */
    break;
  default:
    *value = 0;
  }
  return cudaSuccess;
}
cudaError_t cudaDeviceGetPCIBusId(char *bus, int len, int device) {
  int base = fake_cuda.bus_base ? fake_cuda.bus_base : 0x19;
  snprintf(bus, (size_t)len, "0000:%02X:00.0", (base + device) & 0xff);
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
  memset(prop, 0, sizeof *prop);
  snprintf(prop->name, sizeof prop->name, "Fake GPU %d", device);
  prop->totalGlobalMem = (size_t)80 << 30;
  prop->l2CacheSize = 1 << 20;
  prop->multiProcessorCount = 132;
  prop->major = 9;
  return logged("cudaGetDeviceProperties", NULL, (size_t)device);
}
cudaError_t cudaGetLastError(void) {
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) {
  (void)flags;
  struct fake_stream *f = calloc(1, sizeof *f);
  f->device = current_device;
  *s = (cudaStream_t)f;
  return logged("cudaStreamCreateWithFlags", *s, 0);
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  free(s);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  return on_stream("cudaStreamSynchronize", s, 0);
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e,
                                unsigned int flags) {
  (void)flags;
  cudaError_t rc = on_stream("cudaStreamWaitEvent", s, 0);
  my_call()->event = e;
  return rc;
}
cudaError_t cudaStreamQuery(cudaStream_t s) {
  return on_stream("cudaStreamQuery", s, 0);
}
cudaError_t cudaDeviceSynchronize(void) {
  return logged("cudaDeviceSynchronize", NULL, 0);
}
cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = (cudaEvent_t)calloc(1, 16);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  free(e);
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  cudaError_t rc = on_stream("cudaEventRecord", s, 0);
  my_call()->event = e;
  return rc;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  return logged("cudaEventSynchronize", e, 0);
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  (void)a, (void)b;
  *ms = fake_cuda.elapsed_ms;
  if (fake_cuda.algo_penalty)
    *ms += 0.1f * (float)abs(last_algo - 4);
  return logged("cudaEventElapsedTime", NULL, 0);
}

/* ---- memory ----------------------------------------------------------------
 */

cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total) {
  *free_b = fake_cuda.free_bytes ? fake_cuda.free_bytes : (size_t)64 << 30;
  *total = (size_t)80 << 30;
  return cudaSuccess;
}
/* Sizes of the live allocations, for the IPC handles. */
static struct {
  void *p;
  size_t bytes;
} allocs[256];

cudaError_t cudaMalloc(void **p, size_t bytes) {
  *p = calloc(1, bytes ? bytes : 1);
  for (size_t i = 0; *p != NULL && i < sizeof allocs / sizeof *allocs; i++)
    if (allocs[i].p == NULL) {
      allocs[i].p = *p, allocs[i].bytes = bytes;
      break;
    }
  return *p ? logged("cudaMalloc", *p, bytes) : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *p) {
  for (size_t i = 0; p != NULL && i < sizeof allocs / sizeof *allocs; i++)
    if (allocs[i].p == p)
      allocs[i].p = NULL;
  cudaError_t rc = p != NULL ? logged("cudaFree", p, 0) : cudaSuccess;
  free(p);
  return rc;
}

/* ---- CUDA IPC (see fake_cuda.h) ------------------------------------------ */

#define FAKE_IPC_MAGIC 0x46414b45u /* "FAKE" */

cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *p) {
  uint32_t magic = FAKE_IPC_MAGIC;
  uint64_t bytes = 0;
  for (size_t i = 0; i < sizeof allocs / sizeof *allocs; i++)
    if (allocs[i].p == p)
      bytes = allocs[i].bytes;
  memset(handle, 0, sizeof *handle);
  memcpy(handle->reserved, &magic, sizeof magic);
  memcpy(handle->reserved + 8, &bytes, sizeof bytes);
  if (bytes == 0)
    return cudaErrorInvalidValue;
  return logged("cudaIpcGetMemHandle", p, (size_t)bytes);
}
cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t handle,
                                 unsigned int flags) {
  (void)flags;
  uint32_t magic;
  uint64_t bytes;
  memcpy(&magic, handle.reserved, sizeof magic);
  memcpy(&bytes, handle.reserved + 8, sizeof bytes);
  if (magic != FAKE_IPC_MAGIC || bytes == 0 ||
      (*p = calloc(1, (size_t)bytes)) == NULL)
    return cudaErrorInvalidValue;
  return logged("cudaIpcOpenMemHandle", *p, (size_t)bytes);
}
cudaError_t cudaIpcCloseMemHandle(void *p) {
  if (fake_cuda.close_delay_ms > 0) {
    struct timespec d = {fake_cuda.close_delay_ms / 1000,
                         (long)(fake_cuda.close_delay_ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
  }
  cudaError_t rc = logged("cudaIpcCloseMemHandle", p, 0);
  free(p);
  return rc;
}
/* Host memory the driver knows (cudaHostAlloc, cudaHostRegister): copies
 * from or to anything else are pageable. */
static struct {
  const char *p;
  size_t bytes;
} pinned[64];

static void pin(const void *p, size_t bytes, bool on) {
  pthread_mutex_lock(&log_lock);
  for (size_t i = 0; i < sizeof pinned / sizeof *pinned; i++)
    if (on ? pinned[i].p == NULL : pinned[i].p == p) {
      pinned[i].p = on ? p : NULL, pinned[i].bytes = bytes;
      break;
    }
  pthread_mutex_unlock(&log_lock);
}

static bool is_pinned(const void *p) {
  bool yes = false;
  pthread_mutex_lock(&log_lock);
  for (size_t i = 0; i < sizeof pinned / sizeof *pinned && !yes; i++)
    yes = pinned[i].p != NULL && (const char *)p >= pinned[i].p &&
          (const char *)p < pinned[i].p + pinned[i].bytes;
  pthread_mutex_unlock(&log_lock);
  return yes;
}

cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned int flags) {
  (void)flags;
  *p = calloc(1, bytes);
  pin(*p, bytes, true);
  return cudaSuccess;
}
cudaError_t cudaHostGetDevicePointer(void **dev, void *host,
                                     unsigned int flags) {
  (void)flags;
  *dev = host;
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void *p) {
  pin(p, 0, false);
  free(p);
  return cudaSuccess;
}
cudaError_t cudaHostRegister(void *p, size_t bytes, unsigned int flags) {
  (void)flags;
  pin(p, bytes, true);
  return logged("cudaHostRegister", p, bytes);
}
cudaError_t cudaHostUnregister(void *p) {
  pin(p, 0, false);
  return cudaSuccess;
}
cudaError_t cudaMemset(void *p, int v, size_t bytes) {
  memset(p, v, bytes);
  return logged("cudaMemset", p, bytes);
}
cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t s) {
  memset(p, v, bytes);
  return on_stream("cudaMemsetAsync", s, bytes);
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes,
                       enum cudaMemcpyKind kind) {
  (void)kind;
  memmove(dst, src, bytes);
  return logged("cudaMemcpy", dst, bytes);
}
/* A copy from or to pageable host memory keeps the calling thread for
 * pageable_ms (CUDA runtime API, "API synchronization behavior": a
 * pageable D2H returns only when the copy is done, a pageable H2D once
 * the driver has staged it); the entry's t..t_end spans the wait. */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                            enum cudaMemcpyKind kind, cudaStream_t s) {
  const void *host = kind == cudaMemcpyDeviceToHost   ? dst
                     : kind == cudaMemcpyHostToDevice ? src
                                                      : NULL;
  cudaError_t rc = on_stream("cudaMemcpyAsync", s, bytes);
  struct fake_call *c = my_call();

  c->kind = (int)kind;
  c->pageable = host != NULL && !is_pinned(host);
  if (rc == cudaSuccess)
    memmove(dst, src, bytes);
  if (c->pageable && fake_cuda.pageable_ms > 0) {
    struct timespec d = {fake_cuda.pageable_ms / 1000,
                         (long)(fake_cuda.pageable_ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    c->t_end = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
  }
  return rc;
}
cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer) {
  *can = device != peer;
  return cudaSuccess;
}
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
  (void)flags;
  return logged("cudaDeviceEnablePeerAccess", NULL, (size_t)peer);
}

/* ---- the gcbench launchers (kernels/cuda_kernels.h) -------------------------
 */

int gcb__cuda_gate_launch(volatile int *flag, unsigned int timeout_ms,
                          cudaStream_t stream) {
  (void)timeout_ms;
  gate_flag = flag;
  return (int)on_stream("gate", stream, 0);
}
int gcb__cuda_empty_launch(cudaStream_t stream) {
  return (int)on_stream("empty", stream, 0);
}
int gcb__cuda_stream_blocks(int kernel, size_t n, unsigned int *blocks) {
  (void)kernel;
  *blocks = n < 1024 ? 1 : 264;
  return (int)cudaSuccess;
}
int gcb__cuda_stream_launch(int kernel, double *a, double *b, double *c,
                            double s, size_t n, unsigned int blocks,
                            cudaStream_t stream) {
  (void)kernel, (void)a, (void)b, (void)c, (void)s, (void)blocks;
  return (int)on_stream("stream_kernel", stream, n * sizeof(double));
}
int gcb__cuda_copy16(void *dst, const void *src, size_t bytes,
                     unsigned int blocks, cudaStream_t stream) {
  (void)blocks;
  memmove(dst, src, bytes);
  return (int)on_stream("copy16", stream, bytes);
}
int gcb__cuda_copy16_blocks(size_t bytes, unsigned int *blocks) {
  (void)bytes;
  *blocks = 264;
  return (int)cudaSuccess;
}
int gcb__cuda_convert(int dtype, const float *src, void *dst, size_t n,
                      cudaStream_t stream) {
  (void)dtype, (void)src, (void)dst;
  return (int)on_stream("convert", stream, n);
}
/* gpu-burn's compare on the host (the fake's device memory is host
 * memory), with the launcher's contract: slots first .. first + count - 1
 * (wrapping at nslots) against slot 0, slot 0 skipped, NaN wrong. */
static double elem_at(int elem, const void *p, size_t i) {
  switch (elem) {
  case GCB_CUDA_ELEM_F64:
    return ((const double *)p)[i];
  case GCB_CUDA_ELEM_F32:
    return ((const float *)p)[i];
  default:
    return ((const int32_t *)p)[i];
  }
}
int gcb__cuda_burn_compare(int elem, const void *slots, size_t elems,
                           uint64_t first, uint64_t count, uint64_t nslots,
                           double eps, unsigned long long *slot_faults,
                           struct gcb_cuda_burn_faults *faults,
                           cudaStream_t stream) {
  size_t esz = elem == GCB_CUDA_ELEM_F64 ? 8 : 4;
  double worst;
  if (elem != GCB_CUDA_ELEM_F64 && elem != GCB_CUDA_ELEM_F32 &&
      elem != GCB_CUDA_ELEM_I32)
    return (int)cudaErrorInvalidValue;
  memcpy(&worst, &faults->max_bits, sizeof worst);
  for (uint64_t j = 0; j < count; j++) {
    uint64_t slot = (first + j) % nslots;
    const char *x = (const char *)slots + slot * elems * esz;
    unsigned long long wrong = 0;
    for (size_t i = 0; slot != 0 && i < elems; i++) {
      double d = fabs(elem_at(elem, x, i) - elem_at(elem, slots, i));
      wrong += !(d <= eps);
      worst = d > worst ? d : worst;
    }
    if (wrong > 0 && slot_faults[slot] == 0)
      faults->products++;
    slot_faults[slot] += wrong;
    faults->elements += wrong;
  }
  memcpy(&faults->max_bits, &worst, sizeof worst);
  return (int)on_stream("burn_compare", stream, (size_t)count);
}
int gcb__cuda_chase_launch(const uint64_t *chain, uint64_t steps, uint64_t *out,
                           cudaStream_t stream) {
  (void)chain;
  *out = 0;
  return (int)on_stream("chase", stream, (size_t)steps);
}

/* ---- cuBLASLt
 * ---------------------------------------------------------------- */

cublasStatus_t cublasLtCreate(cublasLtHandle_t *h) {
  *h = (cublasLtHandle_t)calloc(1, 16);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtDestroy(cublasLtHandle_t h) {
  free(h);
  return CUBLAS_STATUS_SUCCESS;
}
const char *cublasLtGetStatusName(cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : "FAKE_ERROR";
}
const char *cublasLtGetStatusString(cublasStatus_t s) {
  (void)s;
  return "fake cuBLASLt";
}
size_t cublasLtGetVersion(void) {
  return 130000;
}
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d,
                                        cublasComputeType_t c,
                                        cudaDataType_t s) {
  (void)c, (void)s;
  *d = calloc(1, sizeof **d);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
  free(d);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d,
                                              cublasLtMatmulDescAttributes_t a,
                                              const void *buf, size_t size) {
  (void)d, (void)buf;
  char name[40];
  snprintf(name, sizeof name, "matmul_attr_%d", (int)a);
  (void)logged(name, buf, size);
  if (a == CUBLASLT_MATMUL_DESC_FAST_ACCUM && size == 1)
    my_call()->bytes = *(const int8_t *)buf;
  return CUBLAS_STATUS_SUCCESS;
}
/* A layout keeps its bytes (data[0]), so a multiply can write its D. */
static uint64_t type_bytes(cudaDataType type) {
  switch (type) {
  case CUDA_R_64F:
    return 8;
  case CUDA_R_32F:
  case CUDA_R_32I:
    return 4;
  case CUDA_R_16F:
  case CUDA_R_16BF:
    return 2;
  default:
    return 1;
  }
}
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l,
                                          cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld) {
  (void)ld;
  *l = calloc(1, sizeof **l);
  (*l)->data[0] = rows * cols * type_bytes(type);
  return CUBLAS_STATUS_SUCCESS;
}
/* A layout's attribute, logged as "layout_attr_<attribute>" with its
 * value in `bytes`; the batch count is kept (data[1]), so that a batched
 * multiply writes every product's D, as cuBLASLt does. */
cublasStatus_t cublasLtMatrixLayoutSetAttribute(
    cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t a,
    const void *buf, size_t size) {
  char name[40];
  int64_t value = 0;
  if (size == sizeof(int32_t)) {
    int32_t v;
    memcpy(&v, buf, sizeof v);
    value = v;
  } else if (size == sizeof(int64_t)) {
    memcpy(&value, buf, sizeof value);
  } else {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  snprintf(name, sizeof name, "layout_attr_%d", (int)a);
  (void)logged(name, l, (size_t)value);
  if (a == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT)
    l->data[1] = (uint64_t)value;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l) {
  free(l);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *p) {
  *p = calloc(1, sizeof **p);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p) {
  free(p);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t
cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p,
                                     cublasLtMatmulPreferenceAttributes_t a,
                                     const void *buf, size_t size) {
  (void)p, (void)a, (void)buf, (void)size;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t h, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t a,
    cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c,
    cublasLtMatrixLayout_t dd, cublasLtMatmulPreference_t p, int want,
    cublasLtMatmulHeuristicResult_t results[], int *found) {
  (void)h, (void)d, (void)a, (void)b, (void)c, (void)dd, (void)p;
  for (int i = 0; i < want; i++) {
    memset(&results[i], 0, sizeof results[i]);
    results[i].state = CUBLAS_STATUS_SUCCESS;
    results[i].algo.data[0] = (uint64_t)i + 1; /* which one ran */
  }
  *found = want;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t d,
                              const void *alpha, const void *A,
                              cublasLtMatrixLayout_t la, const void *B,
                              cublasLtMatrixLayout_t lb, const void *beta,
                              const void *C, cublasLtMatrixLayout_t lc, void *D,
                              cublasLtMatrixLayout_t ld,
                              const cublasLtMatmulAlgo_t *algo, void *ws,
                              size_t ws_bytes, cudaStream_t s) {
  (void)h, (void)d, (void)alpha, (void)A, (void)la, (void)B, (void)lb;
  (void)beta, (void)C, (void)lc, (void)algo, (void)ws;
  (void)ws_bytes;
  last_algo = (int)algo->data[0];
  cudaError_t rc = on_stream("matmul", s, (size_t)algo->data[0]);
  my_call()->dst = D;
  if (rc == cudaSuccess && D != NULL)
    memset(D, 0x3f, (size_t)(ld->data[0] * (ld->data[1] ? ld->data[1] : 1)));
  return rc == cudaSuccess ? CUBLAS_STATUS_SUCCESS
                           : CUBLAS_STATUS_EXECUTION_FAILED;
}
