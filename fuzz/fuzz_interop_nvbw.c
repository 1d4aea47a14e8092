/*
 * libFuzzer target: the interop converter for nvbandwidth stdout and -j JSON
 * (reports/interop/), as `gcbench report` runs it on files from anywhere.
 * The contract is fuzz/interop.h's.
 */
#include "fuzz/interop.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  static const char *const rows[] = {"nvbandwidth text", "nvbandwidth JSON"};
  return gcb_fuzz_interop(data, size, rows, sizeof rows / sizeof *rows);
}
