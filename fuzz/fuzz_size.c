/*
 * libFuzzer target: the size parser (gcb_parse_size, every -b/-e/--size).
 * Any text: a size or one error line; and a size formats (gcb_format_size)
 * to text that parses back to the same number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/options.h"
#include "fuzz/contract.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  char *text = malloc(size + 1);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  uint64_t v = 0, back = 0;
  struct gcb_err err = {0};
  if (gcb_parse_size(text, &v, &err) == GCB_OK) {
    char shown[32];
    gcb_format_size(v, shown, sizeof shown);
    if (gcb_parse_size(shown, &back, &err) != GCB_OK || back != v)
      gcb_fuzz_fail(&err); /* formatting must round-trip */
  } else if (err.code != GCB_EUSAGE || strchr(err.msg, '\n') != NULL) {
    gcb_fuzz_fail(&err);
  }
  free(text);
  return 0;
}
