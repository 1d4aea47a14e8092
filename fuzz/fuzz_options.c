/*
 * libFuzzer target: the option parser (gcb_options_parse over the shared
 * run options and the coll benchmark's table, the largest), with an argv
 * cut from the input at NUL bytes. Any argv: options, --help, or one usage
 * error line; parsed options echo into JSON.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/run/harness.h"
#include "fuzz/contract.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  const struct gcb_bench *coll = gcb_bench_find("coll");
  char *text = malloc(size + 1);
  void *bo = calloc(1, coll->opts_size);
  if (text == NULL || bo == NULL)
    goto done;
  memcpy(text, data, size);
  text[size] = '\0';
  char *argv[MAX_ARGS + 2];
  int argc = 0;
  argv[argc++] = "coll";
  for (char *p = text; p <= text + size && argc < MAX_ARGS; p += strlen(p) + 1)
    argv[argc++] = p;
  argv[argc] = NULL;
  struct gcb_run_opts ro;
  struct gcb_option_group groups[] = {
      {"run options", gcb_run_options, &ro},
      {"coll", coll->options, bo},
  };
  bool help = false;
  struct gcb_err err = {0};
  enum gcb_status st =
      gcb_options_parse(groups, 2, argc, argv, &help, NULL, 0, NULL, &err);
  if (st == GCB_OK) {
    json_t *echo = gcb_options_to_json(groups, 2);
    if (echo == NULL)
      gcb_fuzz_fail(&err);
    json_decref(echo);
  } else if (st != GCB_EUSAGE || err.msg[0] == '\0' ||
             strchr(err.msg, '\n') != NULL) {
    gcb_fuzz_fail(&err); /* a usage error, in one line */
  }
done:
  free(text);
  free(bo);
  return 0;
}
