/*
 * What the libraries under a figure say about themselves at run time, for
 * the results header: the BLAS kernels OpenBLAS picked (its core name,
 * threads and threading model) beside the widest vector instruction set
 * the CPU offers, so that a kernel below the CPU (an OpenBLAS too old to
 * know it, or OPENBLAS_CORETYPE forcing one) is a finding rather than a
 * mystery (reports/analysis/rules_blas.c); and the MPI library's device
 * (MPICH's "ch4:ucx"), read from its version text. Part of the header's
 * job (bench/run/header.h), in a file of its own.
 */
#include "bench/run/header.h"

#include <cblas.h>
#include <stdio.h>
#include <string.h>

/* The widest vector ISA the CPU and the OS offer, in the words of
 * docs/results-schema.md; "" off x86. GCC's checks include the OS's
 * support for the register state (XCR0), as OpenBLAS's own do. */
static const char *cpu_isa(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
    return "avx512";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return "avx2";
  if (__builtin_cpu_supports("avx"))
    return "avx";
  if (__builtin_cpu_supports("sse3"))
    return "sse3";
  return "sse2";
#else
  return "";
#endif
}

void gcb__blas_probe(struct gcb_blas_info *out) {
  static const char *const models[] = {"sequential", "pthreads", "openmp"};
  *out = (struct gcb_blas_info){.threads = openblas_get_num_threads()};
  int parallel = openblas_get_parallel();
  const char *core = openblas_get_corename();
  snprintf(out->library, sizeof out->library, "OpenBLAS");
  snprintf(out->core, sizeof out->core, "%s", core ? core : "unknown");
  snprintf(out->parallel, sizeof out->parallel, "%s",
           parallel >= 0 && parallel <= 2 ? models[parallel] : "unknown");
  snprintf(out->cpu_isa, sizeof out->cpu_isa, "%s", cpu_isa());
}

void gcb__blas_describe(const struct gcb_blas_info *b, char *buf, size_t len) {
  snprintf(buf, len, "%s %s kernels, %d thread%s (%s)", b->library, b->core,
           b->threads, b->threads == 1 ? "" : "s", b->parallel);
}

void gcb__mpi_device(const char *version, char *out, size_t len) {
  static const char key[] = "MPICH Device:";
  out[0] = '\0';
  const char *at = version ? strstr(version, key) : NULL;
  if (at == NULL)
    return;
  at += sizeof key - 1;
  at += strspn(at, " \t");
  size_t n = strcspn(at, " \t\r\n");
  if (n > 0)
    snprintf(out, len, "%.*s", (int)n, at);
}
