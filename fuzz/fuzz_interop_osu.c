/*
 * libFuzzer target: the interop converter for OSU micro-benchmarks stdout
 * (reports/interop/), as `gcbench report` runs it on files from anywhere.
 * The contract is fuzz/interop.h's.
 */
#include "fuzz/interop.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  static const char *const rows[] = {"OSU"};
  return gcb_fuzz_interop(data, size, rows, sizeof rows / sizeof *rows);
}
