/*
 * Element data for collective validation (private to collectives/).
 *
 * Every element type of GCB_COLL_DTYPE_LIST is read and written as a
 * double, with software conversions for the formats C lacks (IEEE half,
 * bfloat16, OCP FP8 E4M3FN and E5M2, all round-to-nearest-even; they live
 * in common/smallfloat.h). On top of
 * that: the deterministic input pattern of (rank, element), chosen so that
 * every reduction the tests run is exactly representable; the expected
 * value of a received element; the comparison; and the poison written into
 * receive buffers so that elements an operation failed to write are seen.
 */
#ifndef GCB_COLL_DATA_H
#define GCB_COLL_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectives/comm.h"

/* Byte every poisoned element is made of: a NaN in every floating format,
 * -1 or the maximum in the integer ones, never an input or a result. */
#define GCB__COLL_POISON 0xFF

/* Element i of buf, of type t, as a double (exact for every value the
 * patterns produce; 64-bit integers beyond 2^53 are rounded). */
double gcb__coll_load(enum gcb_coll_dtype t, const void *buf, size_t i);

/* Stores v (rounded to nearest even, or truncated for integer types) as
 * element i of buf. */
void gcb__coll_store(enum gcb_coll_dtype t, void *buf, size_t i, double v);

/* v as the nearest value of type t (store then load). */
double gcb__coll_round(enum gcb_coll_dtype t, double v);

/* Distance from |v| to the next larger value of type t (1 for integers). */
double gcb__coll_ulp(enum gcb_coll_dtype t, double v);

/* Largest integer n such that 0..n are all exact in t (and fit). */
double gcb__coll_exact_max(enum gcb_coll_dtype t);

/*
 * The input pattern of one case. Values are small positive integers:
 * - data movement, max, min: 1..span, span = min(exact_max, 127);
 * - sum, avg of integers: `active` ranks per element (all ranks while
 *   nranks <= exact_max) contribute 1..span, the others 0, with
 *   active * span <= exact_max, so that every partial sum, in any order,
 *   is exact;
 * - avg of floating types: as nccl-tests, only 2 ranks per element
 *   contribute (1..span), since NCCL sums inputs already divided by n;
 * - prod: `active` ranks per element contribute 1 or 2, the others 1, with
 *   2^active representable: every partial product is an exact power of 2.
 */
struct gcb__coll_pat {
  enum gcb_coll_dtype dtype;
  enum gcb_coll_redop redop;
  bool reduces;
  int nranks;
  int active; /* ranks per element with a non-identity value */
  uint32_t span;
};

void gcb__coll_pat_init(struct gcb__coll_pat *p, enum gcb_coll_dtype t,
                        bool reduces, enum gcb_coll_redop op, int nranks);

/* Input element e of rank r. */
double gcb__coll_input(const struct gcb__coll_pat *p, int r, size_t e);

/* The expected value of a received element whose source is s
 * (FROM_RANK or FROM_ALL), rounded to the type. */
double gcb__coll_expect(const struct gcb__coll_pat *p,
                        const struct gcb_coll_source *s);

/* Units in the last place a result may be off: 0 (exact) except avg on
 * floating types, 2 as in nccl-tests: NCCL computes it as a sum of
 * x * (1/n) products, multiplying in the type or in float depending on
 * the GPU architecture. */
int gcb__coll_tolerance(const struct gcb__coll_pat *p);

/* Whether got matches want within ulps units in the last place of t;
 * NaN never matches. */
bool gcb__coll_match(enum gcb_coll_dtype t, double got, double want, int ulps);

/* The partner of `rank` in the point-to-point patterns (rank i with
 * i + nranks/2), -1 for the rank left out when nranks is odd. The lower
 * rank of a pair initiates (ping-pong) or sends (bandwidth window). */
int gcb__coll_partner(int rank, int nranks);

/*
 * Buffer rotation on device memory (nccl-tests src/common.cu startColl:
 * shift = bytes * (iter % (maxbytes / bytes))). A case's layout of
 * `span` bytes is repeated every gcb__coll_rotation_stride(span) bytes
 * (span rounded up to 256, keeping NCCL's vector alignment), as many times
 * as fit in `window` bytes (at least 1, at most GCB__COLL_ROTATE_MAX_SLOTS):
 * with the 256 MiB window, four times an H200's 60 MB L2, a mid-size
 * collective's slots are evicted before they come round again.
 */
#define GCB__COLL_ROTATE_BYTES ((size_t)256 << 20)
#define GCB__COLL_ROTATE_MAX_SLOTS 4096
size_t gcb__coll_rotation_stride(size_t span);
size_t gcb__coll_rotation_slots(size_t span, size_t window);

/* Fills n elements of type t with the poison byte. */
void gcb__coll_poison(enum gcb_coll_dtype t, void *buf, size_t n);

/* Changes element i of buf so that it no longer matches what it held
 * (flips the second-highest bit: an exponent bit of the floating types). */
void gcb__coll_corrupt(enum gcb_coll_dtype t, void *buf, size_t i);

#endif
