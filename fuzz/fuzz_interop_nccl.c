/*
 * libFuzzer target: the interop converter for nccl-tests stdout (every 2.x
 * layout) and -J JSON (reports/interop/), as `gcbench report` runs it on files
 * from anywhere. The contract is fuzz/interop.h's.
 */
#include "fuzz/interop.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  static const char *const rows[] = {"nccl-tests log", "nccl-tests JSON"};
  return gcb_fuzz_interop(data, size, rows, sizeof rows / sizeof *rows);
}
