/*
 * Reference for gcbench's cuda GEMM: cuBLASLt called directly, the way a
 * careful user would (TN layout, the first heuristic algorithm for a 32 MiB
 * workspace, independent random A and B), with none of gcbench's code:
 * warm-up until 0.5 s of GPU time has passed (steady clocks), then ITERS
 * samples, each BATCH multiplies queued between one event pair (so the
 * host's enqueue of all but the first overlaps the GPU's work and the
 * event tick is spread over BATCH), the median sample / BATCH as the time;
 * TFLOP/s = 2 n^3 / t / 1e12. gcbench times single multiplies behind its
 * gate kernel instead; the two rules both keep the enqueue out, so any gap
 * is overhead gcbench adds. Built and run by scripts/gpu-check.
 *
 * usage: direct_cublaslt N ITERS WARMUP [BATCH]  (bf16 in and out, fp32
 * compute; WARMUP: at least that many untimed multiplies; BATCH default 10)
 * prints the median TFLOP/s on stdout; exits 1 on any CUDA/cuBLASLt error.
 */
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(call)                                                               \
  do {                                                                         \
    long rc_ = (long)(call);                                                   \
    if (rc_ != 0) {                                                            \
      fprintf(stderr, "direct_cublaslt: %s failed: %ld\n", #call, rc_);        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* bf16 bits of a float in [-1, 1), round to nearest even. */
static uint16_t to_bf16(float f) {
  union {
    float f;
    uint32_t u;
  } v = {f};
  return (uint16_t)((v.u + 0x7fff + ((v.u >> 16) & 1)) >> 16);
}

/* One multiply's plan: the handle, descriptors, the algorithm and the
 * device buffers, so that each step below takes one argument. */
struct plan {
  int64_t n;
  size_t ws_bytes;
  void *a, *b, *c, *ws;
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatmulHeuristicResult_t heur;
  cudaStream_t st;
  cudaEvent_t e0, e1;
};

/* A and B on the device, from different streams of the generator: AB,
 * not A^T A. */
static void upload_inputs(struct plan *p) {
  size_t elems = (size_t)p->n * (size_t)p->n;
  uint16_t *h = malloc(elems * 2), *h2 = malloc(elems * 2);
  if (h == NULL || h2 == NULL) {
    fprintf(stderr, "direct_cublaslt: out of host memory\n");
    exit(1);
  }
  uint64_t s = 42, s2 = 4242;
  for (size_t i = 0; i < elems; i++) {
    s = s * 6364136223846793005u + 1442695040888963407u;
    s2 = s2 * 6364136223846793005u + 1442695040888963407u;
    h[i] = to_bf16((float)((double)(s >> 11) * 0x1.0p-52 - 1.0));
    h2[i] = to_bf16((float)((double)(s2 >> 11) * 0x1.0p-52 - 1.0));
  }
  CK(cudaMalloc(&p->a, elems * 2));
  CK(cudaMalloc(&p->b, elems * 2));
  CK(cudaMalloc(&p->c, elems * 2));
  CK(cudaMalloc(&p->ws, p->ws_bytes));
  CK(cudaMemcpy(p->a, h, elems * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(p->b, h2, elems * 2, cudaMemcpyHostToDevice));
  free(h);
  free(h2);
}

/* TN bf16 layouts, fp32 compute, the first heuristic algorithm for the
 * workspace; a stream and an event pair to time it. */
static void make_plan(struct plan *p) {
  cublasLtMatmulPreference_t pref;
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  CK(cublasLtCreate(&p->lt));
  CK(cublasLtMatmulDescCreate(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  CK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                                    sizeof ta));
  CK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
                                    sizeof tb));
  CK(cublasLtMatrixLayoutCreate(&p->la, CUDA_R_16BF, p->n, p->n, p->n));
  CK(cublasLtMatrixLayoutCreate(&p->lb, CUDA_R_16BF, p->n, p->n, p->n));
  CK(cublasLtMatrixLayoutCreate(&p->lc, CUDA_R_16BF, p->n, p->n, p->n));
  CK(cublasLtMatmulPreferenceCreate(&pref));
  CK(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &p->ws_bytes,
      sizeof p->ws_bytes));
  int found = 0;
  CK(cublasLtMatmulAlgoGetHeuristic(p->lt, p->desc, p->la, p->lb, p->lc, p->lc,
                                    pref, 1, &p->heur, &found));
  if (found == 0) {
    fprintf(stderr, "direct_cublaslt: no algorithm\n");
    exit(1);
  }
  CK(cudaStreamCreateWithFlags(&p->st, cudaStreamNonBlocking));
  CK(cudaEventCreate(&p->e0));
  CK(cudaEventCreate(&p->e1));
}

/* Seconds of GPU time for `count` multiplies queued between one event
 * pair. */
static double timed(const struct plan *p, int count) {
  float alpha = 1.0f, beta = 0.0f, ms = 0;
  CK(cudaEventRecord(p->e0, p->st));
  for (int j = 0; j < count; j++)
    CK(cublasLtMatmul(p->lt, p->desc, &alpha, p->a, p->la, p->b, p->lb, &beta,
                      p->c, p->lc, p->c, p->lc, &p->heur.algo, p->ws,
                      p->heur.workspaceSize, p->st));
  CK(cudaEventRecord(p->e1, p->st));
  CK(cudaEventSynchronize(p->e1));
  CK(cudaEventElapsedTime(&ms, p->e0, p->e1));
  return ms * 1e-3;
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: direct_cublaslt N ITERS WARMUP [BATCH]\n");
    return 2;
  }
  struct plan p = {.n = atoll(argv[1]), .ws_bytes = (size_t)32 << 20};
  int iters = atoi(argv[2]), warmup = atoi(argv[3]);
  int batch = argc == 5 ? atoi(argv[4]) : 10;
  if (p.n < 16 || iters < 1 || warmup < 0 || batch < 1) {
    fprintf(stderr, "direct_cublaslt: bad N, ITERS, WARMUP or BATCH\n");
    return 2;
  }
  upload_inputs(&p);
  make_plan(&p);
  /* Warm-up: at least WARMUP multiplies and 0.5 s of GPU time. */
  double warm = 0.0;
  for (int i = 0; (i < warmup || warm < 0.5) && i <= 100000; i++)
    warm += timed(&p, 1);
  double *t = calloc((size_t)iters, sizeof *t);
  if (t == NULL) {
    fprintf(stderr, "direct_cublaslt: out of host memory\n");
    return 1;
  }
  for (int i = 0; i < iters; i++)
    t[i] = timed(&p, batch) / batch;
  qsort(t, (size_t)iters, sizeof *t, cmp);
  double med = iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2;
  printf("%.2f\n", 2.0 * (double)p.n * (double)p.n * (double)p.n / med / 1e12);
  free(t);
  return 0;
}
