/*
 * The one decoder of NCCL's version codes (common/nccl_version.c):
 * nccl.h's NCCL_VERSION(X, Y, Z) is X*1000 + Y*100 + Z up to 2.8 and
 * X*10000 + Y*100 + Z from 2.9; codes below are what real releases return
 * (2.8.4: 2804, 2.9.6: 20906, 2.28.9: 22809).
 */
#include <criterion/criterion.h>

#include "common/nccl_version.h"

Test(nccl_version, both_encodings) {
  static const struct {
    int code;
    const char *text;
  } cases[] = {
      {2804, "2.8.4"},   {2708, "2.7.8"},   {20906, "2.9.6"},
      {21403, "2.14.3"}, {22809, "2.28.9"}, {22703, "2.27.3"},
      {30001, "3.0.1"},  {0, "unknown"},    {-5, "unknown"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char buf[32];
    gcb_nccl_version_format(buf, sizeof buf, cases[i].code);
    cr_expect_str_eq(buf, cases[i].text, "code %d", cases[i].code);
  }
}

Test(nccl_version, truncates_safely) {
  char buf[4];
  gcb_nccl_version_format(buf, sizeof buf, 22809);
  cr_expect_str_eq(buf, "2.2");
}
