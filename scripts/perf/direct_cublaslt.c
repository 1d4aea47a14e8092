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

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: direct_cublaslt N ITERS WARMUP [BATCH]\n");
    return 2;
  }
  int64_t n = atoll(argv[1]);
  int iters = atoi(argv[2]), warmup = atoi(argv[3]);
  int batch = argc == 5 ? atoi(argv[4]) : 10;
  if (n < 16 || iters < 1 || warmup < 0 || batch < 1) {
    fprintf(stderr, "direct_cublaslt: bad N, ITERS, WARMUP or BATCH\n");
    return 2;
  }
  size_t elems = (size_t)n * (size_t)n, ws_bytes = (size_t)32 << 20;
  uint16_t *h = malloc(elems * 2), *h2 = malloc(elems * 2);
  if (h == NULL || h2 == NULL) {
    fprintf(stderr, "direct_cublaslt: out of host memory\n");
    return 1;
  }
  /* A and B from different streams of the generator: AB, not A^T A. */
  uint64_t s = 42, s2 = 4242;
  for (size_t i = 0; i < elems; i++) {
    s = s * 6364136223846793005u + 1442695040888963407u;
    s2 = s2 * 6364136223846793005u + 1442695040888963407u;
    h[i] = to_bf16((float)((double)(s >> 11) * 0x1.0p-52 - 1.0));
    h2[i] = to_bf16((float)((double)(s2 >> 11) * 0x1.0p-52 - 1.0));
  }
  void *a, *b, *c, *ws;
  CK(cudaMalloc(&a, elems * 2));
  CK(cudaMalloc(&b, elems * 2));
  CK(cudaMalloc(&c, elems * 2));
  CK(cudaMalloc(&ws, ws_bytes));
  CK(cudaMemcpy(a, h, elems * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b, h2, elems * 2, cudaMemcpyHostToDevice));
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatmulPreference_t pref;
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  CK(cublasLtCreate(&lt));
  CK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                                    sizeof ta));
  CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
                                    sizeof tb));
  CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, n, n, n));
  CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, n, n, n));
  CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, n, n, n));
  CK(cublasLtMatmulPreferenceCreate(&pref));
  CK(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
      sizeof ws_bytes));
  cublasLtMatmulHeuristicResult_t heur;
  int found = 0;
  CK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 1, &heur,
                                    &found));
  if (found == 0) {
    fprintf(stderr, "direct_cublaslt: no algorithm\n");
    return 1;
  }
  float alpha = 1.0f, beta = 0.0f;
  cudaStream_t st;
  cudaEvent_t e0, e1;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  double *t = calloc((size_t)iters, sizeof *t);
  /* Warm-up: at least WARMUP multiplies and 0.5 s of GPU time. */
  double warm = 0.0;
  for (int i = 0; i < warmup || warm < 0.5; i++) {
    float ms = 0;
    CK(cudaEventRecord(e0, st));
    CK(cublasLtMatmul(lt, desc, &alpha, a, la, b, lb, &beta, c, lc, c, lc,
                      &heur.algo, ws, heur.workspaceSize, st));
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    warm += ms * 1e-3;
    if (i > 100000)
      break;
  }
  for (int i = 0; i < iters; i++) {
    float ms = 0;
    CK(cudaEventRecord(e0, st));
    for (int j = 0; j < batch; j++)
      CK(cublasLtMatmul(lt, desc, &alpha, a, la, b, lb, &beta, c, lc, c, lc,
                        &heur.algo, ws, heur.workspaceSize, st));
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t[i] = ms * 1e-3 / batch;
  }
  qsort(t, (size_t)iters, sizeof *t, cmp);
  double med = iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2;
  printf("%.2f\n", 2.0 * (double)n * (double)n * (double)n / med / 1e12);
  return 0;
}
