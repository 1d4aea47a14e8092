/*
 * SHA-256 and HMAC-SHA256 against their published test vectors: FIPS
 * 180-4's examples (NIST CSRC "SHA256.pdf": "abc", the 448-bit message,
 * one million 'a') and the empty message, and RFC 4231 section 4's
 * HMAC-SHA-256 test cases 1-4, 6 and 7 (6 and 7: a 131-byte key, hashed
 * first). Case 5 (truncated output) tests truncation, which the watchdog
 * does not use.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/run/sha256.h"

static void hex(const uint8_t *d, char *out) {
  for (int i = 0; i < GCB_SHA256_BYTES; i++)
    snprintf(out + 2 * i, 3, "%02x", d[i]);
}

Test(sha256, fips_180_4_examples) {
  static const struct {
    const char *msg, *want;
  } cases[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc",
       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
  };
  uint8_t d[GCB_SHA256_BYTES];
  char got[65];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    gcb_sha256(cases[i].msg, strlen(cases[i].msg), d);
    hex(d, got);
    cr_expect_str_eq(got, cases[i].want, "'%s'", cases[i].msg);
  }
  /* One million 'a', fed in uneven pieces across block boundaries. */
  struct gcb_sha256 s;
  char *a = malloc(1000000);
  memset(a, 'a', 1000000);
  gcb_sha256_init(&s);
  for (size_t off = 0, step = 1; off < 1000000;
       off += step, step = step * 3 % 997 + 1)
    gcb_sha256_update(&s, a + off, off + step > 1000000 ? 1000000 - off : step);
  gcb_sha256_final(&s, d);
  hex(d, got);
  cr_expect_str_eq(
      got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  free(a);
}

Test(sha256, rfc_4231_hmac_test_cases) {
  uint8_t key4[25], key131[131], dd[50], cd[50];
  for (int i = 0; i < 25; i++)
    key4[i] = (uint8_t)(i + 1);
  memset(key131, 0xaa, sizeof key131);
  memset(dd, 0xdd, sizeof dd);
  memset(cd, 0xcd, sizeof cd);
  const char *long_data = "This is a test using a larger than block-size key "
                          "and a larger than block-size data. The key needs to "
                          "be hashed before being used by the HMAC algorithm.";
  const char *key_first = "Test Using Larger Than Block-Size Key - Hash Key "
                          "First";
  const struct {
    const void *key;
    size_t key_len;
    const void *data;
    size_t len;
    const char *want;
  } cases[] = {
      {"\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b"
       "\x0b\x0b\x0b",
       20, "Hi There", 8,
       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"Jefe", 4, "what do ya want for nothing?", 28,
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {key131, 20, dd, 50,
       "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
      {key4, 25, cd, 50,
       "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
      {key131, 131, key_first, strlen(key_first),
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {key131, 131, long_data, strlen(long_data),
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint8_t mac[GCB_SHA256_BYTES];
    char got[65];
    gcb_hmac_sha256(cases[i].key, cases[i].key_len, cases[i].data, cases[i].len,
                    mac);
    hex(mac, got);
    cr_expect_str_eq(got, cases[i].want, "RFC 4231 case %zu", i + 1);
  }
}

Test(sha256, mac_comparison_sees_every_byte) {
  uint8_t a[32] = {0}, b[32] = {0};
  cr_expect(gcb_mac_equal(a, b, 32));
  for (int i = 0; i < 32; i++) {
    b[i] = 1;
    cr_expect(!gcb_mac_equal(a, b, 32), "byte %d", i);
    b[i] = 0;
  }
}
