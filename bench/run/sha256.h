/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the watchdog's
 * message authentication: small, no dependency, checked against the
 * published test vectors (tests/bench/test_sha256.c).
 */
#ifndef GCB_SHA256_H
#define GCB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define GCB_SHA256_BYTES 32
#define GCB_SHA256_BLOCK 64

struct gcb_sha256 {
  uint32_t h[8];
  uint64_t bytes; /* message length so far */
  uint8_t block[GCB_SHA256_BLOCK];
  size_t used;
};

void gcb_sha256_init(struct gcb_sha256 *s);
void gcb_sha256_update(struct gcb_sha256 *s, const void *data, size_t len);
void gcb_sha256_final(struct gcb_sha256 *s, uint8_t out[GCB_SHA256_BYTES]);

/* SHA-256 of one buffer. */
void gcb_sha256(const void *data, size_t len, uint8_t out[GCB_SHA256_BYTES]);

/* HMAC-SHA256 of data under key (any length; longer than a block is
 * hashed first, as RFC 2104 says). */
void gcb_hmac_sha256(const void *key, size_t key_len, const void *data,
                     size_t len, uint8_t out[GCB_SHA256_BYTES]);

/* Whether two MACs are equal, in time that does not depend on where they
 * differ. */
int gcb_mac_equal(const uint8_t *a, const uint8_t *b, size_t len);

#endif
