/*
 * Tests of common/smallfloat: every code of every format round-trips,
 * known bit patterns decode to their values (IEEE 754 binary16, bfloat16
 * as the top half of a binary32, OCP 8-bit Floating Point Formats spec
 * v1.0 tables for E4M3 and E5M2), rounding to nearest even, overflow and
 * subnormals, and two independent references: the compiler's _Float16
 * conversion and bf16 rounding on a float's bits.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/smallfloat.h"
#include "tests/test_rounds.h"

/* ---- conversions --------------------------------------------------------- */

typedef double decode_fn(unsigned code);
typedef unsigned encode_fn(double v);

static double dec_half(unsigned c) {
  return gcb_half_decode((uint16_t)c);
}
static double dec_bf16(unsigned c) {
  return gcb_bf16_decode((uint16_t)c);
}
static double dec_e4m3(unsigned c) {
  return gcb_e4m3_decode((uint8_t)c);
}
static double dec_e5m2(unsigned c) {
  return gcb_smallfloat_decode(GCB_SF_E5M2, c);
}
static unsigned enc_half(double v) {
  return gcb_smallfloat_encode(GCB_SF_HALF, v);
}
static unsigned enc_bf16(double v) {
  return gcb_smallfloat_encode(GCB_SF_BF16, v);
}
static unsigned enc_e4m3(double v) {
  return gcb_smallfloat_encode(GCB_SF_E4M3, v);
}
static unsigned enc_e5m2(double v) {
  return gcb_smallfloat_encode(GCB_SF_E5M2, v);
}

static void round_trip(const char *name, unsigned codes, decode_fn *dec,
                       encode_fn *enc) {
  for (unsigned c = 0; c < codes; c++) {
    double v = dec(c);
    if (isnan(v))
      cr_assert(isnan(dec(enc(v))), "%s 0x%x: NaN stays NaN", name, c);
    else
      cr_assert_eq(enc(v), c, "%s 0x%x (%g) encodes to 0x%x", name, c, v,
                   enc(v));
  }
}

Test(smallfloat, every_code_round_trips) {
  round_trip("half", 1u << 16, dec_half, enc_half);
  round_trip("bf16", 1u << 16, dec_bf16, enc_bf16);
  round_trip("e4m3", 1u << 8, dec_e4m3, enc_e4m3);
  round_trip("e5m2", 1u << 8, dec_e5m2, enc_e5m2);
}

struct edge {
  double v;
  unsigned code;
};

static void edges(const char *name, encode_fn *enc, const struct edge *e,
                  size_t n) {
  for (size_t i = 0; i < n; i++)
    cr_assert_eq(enc(e[i].v), e[i].code, "%s(%.17g) = 0x%x, want 0x%x", name,
                 e[i].v, enc(e[i].v), e[i].code);
}

Test(smallfloat, half_rounding_and_edges) {
  static const struct edge e[] = {
      {1, 0x3C00},         {-0.0, 0x8000},      {1.0 / 3, 0x3555},
      {65504, 0x7BFF},     {65519, 0x7BFF},     {65520, 0x7C00},
      {INFINITY, 0x7C00},  {-INFINITY, 0xFC00}, {NAN, 0x7E00},
      {0x1p-14, 0x0400},   {0x1p-24, 0x0001},   {0x1p-25, 0x0000},
      {0x1.8p-24, 0x0002}, {0x1.002p0, 0x3C00}, {0x1.006p0, 0x3C02},
      {-2, 0xC000},        {2048, 0x6800},      {2049, 0x6800},
      {2051, 0x6802},
  };
  edges("half", enc_half, e, sizeof e / sizeof *e);
  cr_assert_eq(gcb_half_decode(0x7BFF), 65504);
  cr_assert_eq(gcb_half_decode(0x0001), 0x1p-24);
}

Test(smallfloat, bf16_rounding_and_edges) {
  static const struct edge e[] = {
      {1, 0x3F80},        {0x1.01p0, 0x3F80},   {0x1.03p0, 0x3F82},
      {-1, 0xBF80},       {0x1.fep127, 0x7F7F}, {0x1.fffffep127, 0x7F80},
      {INFINITY, 0x7F80}, {NAN, 0x7FC0},        {0x1p-133, 0x0001},
      {256, 0x4380},      {257, 0x4380},        {259, 0x4382},
  };
  edges("bf16", enc_bf16, e, sizeof e / sizeof *e);
}

Test(smallfloat, e4m3_rounding_and_edges) {
  static const struct edge e[] = {
      {1, 0x38},        {448, 0x7E},      {464, 0x7E},       {465, 0x7F},
      {1e6, 0x7F},      {INFINITY, 0x7F}, {-INFINITY, 0xFF}, {NAN, 0x7F},
      {16, 0x58},       {17, 0x58},       {19, 0x5A},        {240, 0x77},
      {256, 0x78},      {0x1p-6, 0x08},   {0x1p-9, 0x01},    {0x1p-10, 0x00},
      {0x1.8p-9, 0x02}, {-448, 0xFE},
  };
  edges("e4m3", enc_e4m3, e, sizeof e / sizeof *e);
  cr_assert_eq(gcb_e4m3_decode(0x7E), 448);
  cr_assert(isnan(gcb_e4m3_decode(0x7F)) && isnan(gcb_e4m3_decode(0xFF)));
  cr_assert_eq(gcb_e4m3_decode(0x78), 256); /* all-ones exponent is finite */
}

Test(smallfloat, e5m2_rounding_and_edges) {
  static const struct edge e[] = {
      {1, 0x3C},        {57344, 0x7B}, {61439, 0x7B},   {61440, 0x7C},
      {INFINITY, 0x7C}, {NAN, 0x7E},   {0x1p-16, 0x01}, {0x1p-14, 0x04},
      {1.125, 0x3C},    {1.375, 0x3E}, {8, 0x48},       {9, 0x48},
      {-0.0, 0x80},
  };
  edges("e5m2", enc_e5m2, e, sizeof e / sizeof *e);
  cr_assert(isinf(gcb_smallfloat_decode(GCB_SF_E5M2, 0x7C)));
}

#ifdef __FLT16_MAX__
/* The compiler's double -> _Float16 conversion rounds correctly to nearest
 * even: a second, independent implementation to agree with. */
Test(smallfloat, half_agrees_with_float16) {
  srand(12345);
  for (int i = 0; i < gcb_test_rounds(200000); i++) {
    double v = ldexp((double)rand() / RAND_MAX + 0.5, rand() % 48 - 30);
    v = (rand() & 1) ? -v : v;
    _Float16 h = (_Float16)v;
    uint16_t bits;
    memcpy(&bits, &h, sizeof bits);
    cr_assert_eq(gcb_smallfloat_encode(GCB_SF_HALF, v), bits, "%.17g", v);
  }
}
#endif

/* bf16 is float's upper half: rounding a float's bits is an independent
 * reference (single rounding, since floats are exact in double). */
Test(smallfloat, bf16_agrees_with_float_bits) {
  srand(54321);
  for (int i = 0; i < gcb_test_rounds(200000); i++) {
    uint32_t b = (uint32_t)rand() << 16 ^ (uint32_t)rand();
    float f;
    memcpy(&f, &b, sizeof f);
    if (isnan(f))
      continue;
    uint32_t want = (b + 0x7FFF + ((b >> 16) & 1)) >> 16;
    cr_assert_eq(gcb_smallfloat_encode(GCB_SF_BF16, f), want, "0x%08x", b);
  }
}

struct decode_case {
  unsigned bits;
  double value;
};

static void decodes(const char *name, decode_fn *dec,
                    const struct decode_case *c, size_t n) {
  for (size_t i = 0; i < n; i++)
    cr_expect_eq(dec(c[i].bits), c[i].value, "%s 0x%04x = %.17g, want %.17g",
                 name, c[i].bits, dec(c[i].bits), c[i].value);
}

Test(smallfloat, known_bit_patterns) {
  static const struct decode_case half[] = {
      {0x3c00, 1.0},     {0xc000, -2.0},       {0x7bff, 65504.0},
      {0x0001, 0x1p-24}, {0x0400, 0x1p-14},    {0x3555, 0x1.554p-2},
      {0x8000, -0.0},    {0x3bff, 0x1.ffcp-1},
  };
  static const struct decode_case bf16[] = {
      {0x3f80, 1.0},        {0xc0a0, -5.0},     {0x3f81, 1.0 + 0x1p-7},
      {0x7f7f, 0x1.fep127}, {0x0001, 0x1p-133}, {0x4049, 0x1.92p1},
  };
  /* OCP spec table: E4M3 max 448 = S.1111.110, min normal 2^-6, min
   * subnormal 2^-9; E5M2 max 57344 = S.11110.11, min subnormal 2^-16. */
  static const struct decode_case e4m3[] = {
      {0x38, 1.0},      {0xb8, -1.0},   {0x7e, 448.0}, {0x01, 0x1p-9},
      {0x08, 0x1p-6},   {0x3c, 1.5},    {0x00, 0.0},   {0x78, 256.0},
      {0x07, 0x1.cp-7}, {0xfe, -448.0},
  };
  static const struct decode_case e5m2[] = {
      {0x3c, 1.0}, {0x7b, 57344.0}, {0x01, 0x1p-16},   {0x04, 0x1p-14},
      {0x3e, 1.5}, {0xc0, -2.0},    {0x03, 0x1.8p-15},
  };
  decodes("half", dec_half, half, sizeof half / sizeof *half);
  decodes("bf16", dec_bf16, bf16, sizeof bf16 / sizeof *bf16);
  decodes("e4m3", dec_e4m3, e4m3, sizeof e4m3 / sizeof *e4m3);
  decodes("e5m2", dec_e5m2, e5m2, sizeof e5m2 / sizeof *e5m2);
  cr_expect(isinf(gcb_half_decode(0x7c00)) && isnan(gcb_half_decode(0x7e00)));
  cr_expect(isnan(gcb_e4m3_decode(0x7f)), "S.1111.111 is NaN");
  cr_expect(isnan(gcb_e4m3_decode(0xff)));
  cr_expect(isinf(gcb_smallfloat_decode(GCB_SF_E5M2, 0x7c)) &&
            isnan(gcb_smallfloat_decode(GCB_SF_E5M2, 0x7d)));
}

/* All 256 codes of each fp8 format: decode, encode back, same code (NaN
 * codes stay NaN), and distinct finite codes decode to distinct values. */
Test(smallfloat, all_fp8_values_round_trip) {
  for (int f = GCB_SF_E4M3; f <= GCB_SF_E5M2; f++) {
    int numbers = 0; /* every code but the NaNs */
    for (uint32_t c = 0; c < 256; c++) {
      double v = gcb_smallfloat_decode(f, c);
      uint32_t back = gcb_smallfloat_encode(f, v);
      if (isnan(v)) {
        cr_assert(isnan(gcb_smallfloat_decode(f, back)));
        continue;
      }
      numbers++;
      cr_assert_eq(back, c, "format %d code 0x%02x (%g) -> 0x%02x", f, c, v,
                   back);
    }
    /* E4M3: 2 NaNs (0x7f, 0xff); E5M2: 6 NaNs (3 per sign) */
    cr_expect_eq(numbers, f == GCB_SF_E4M3 ? 254 : 250, "format %d", f);
  }
}

Test(smallfloat, bad_format) {
  cr_expect(isnan(gcb_smallfloat_decode(GCB_SF_COUNT, 0)));
  cr_expect_eq(gcb_smallfloat_encode(GCB_SF_COUNT, 1.0), 0u);
}
