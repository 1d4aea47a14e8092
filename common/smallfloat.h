/*
 * The floating-point formats narrower than float, once for the whole
 * suite: IEEE binary16 ("half"), bfloat16, and the OCP 8-bit formats E4M3
 * (the "FN" variant: no infinities, S.1111.111 is the only NaN, 448 the
 * largest value) and E5M2 (IEEE-like, with infinities). The collectives'
 * validation stores and loads them (collectives/data.c); the CUDA GEMM check
 * decodes what the device stored (kernels/cuda_pure.c).
 *
 * Encoding rounds the double once, to nearest even; overflow gives
 * infinity, except in E4M3, which has none and gives NaN (values up to
 * 448 + half an ulp round to 448). Decoding is exact: every value of these
 * formats is a double. Pure functions, no state.
 */
#ifndef GCB_SMALLFLOAT_H
#define GCB_SMALLFLOAT_H

#include <stdint.h>

enum gcb_smallfloat {
  GCB_SF_HALF, /* 1.5.10 */
  GCB_SF_BF16, /* 1.8.7 */
  GCB_SF_E4M3, /* 1.4.3, finite-only */
  GCB_SF_E5M2, /* 1.5.2 */
  GCB_SF_COUNT
};

/* The stored code of v in format f (low 16 or 8 bits used); 0 for an
 * f outside the enum. */
uint32_t gcb_smallfloat_encode(enum gcb_smallfloat f, double v);

/* The value of `code` in format f (bits above the format's are ignored);
 * NAN for an f outside the enum. */
double gcb_smallfloat_decode(enum gcb_smallfloat f, uint32_t code);

/* The same, by name, for the formats the CUDA GEMM check reads. */
double gcb_half_decode(uint16_t h);
double gcb_bf16_decode(uint16_t h);
double gcb_e4m3_decode(uint8_t x);

#endif
