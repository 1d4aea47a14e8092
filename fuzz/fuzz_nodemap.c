/*
 * libFuzzer target: the test override's variables, GCB_FAKE_NODES and
 * GCB_NODE_MAP (bench/run/context.c, gcb__node_override_parse). The input
 * up to its first NUL is GCB_FAKE_NODES, the rest GCB_NODE_MAP. The
 * contract: a count from 0 to 1,024 whose every entry has a good, distinct
 * name (a node name reaches every terminal line and report) and an XML
 * path that fits, or one usage line saying why not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/run/context.h"
#include "fuzz/contract.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static bool good_name(const char *s) {
  size_t n = strlen(s);
  return n > 0 && n <= 63 &&
         strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                   "0123456789.-_") == n;
}

/* Every entry of a map that parsed: good names, none twice, paths whole. */
static void check_entries(const char *map, int count, struct gcb_err *err) {
  static char names[1024][64];
  char name[256], xml[GCB__NODE_XML_MAX + 8];
  for (int i = 0; i < count; i++) {
    if (!gcb__node_map_entry(map, i, name, sizeof name, xml, sizeof xml) ||
        !good_name(name) || strlen(xml) >= GCB__NODE_XML_MAX)
      gcb_fuzz_fail(err);
    for (int j = 0; j < i; j++)
      if (strcmp(names[j], name) == 0)
        gcb_fuzz_fail(err);
    snprintf(names[i], sizeof names[i], "%s", name);
  }
  if (gcb__node_map_entry(map, count, name, sizeof name, xml, sizeof xml))
    gcb_fuzz_fail(err); /* an entry past the count */
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  char *text = malloc(size + 2);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = text[size + 1] = '\0';
  const char *fake = text, *map = text + strlen(text) + 1;
  if (map > text + size)
    map = text + size; /* no NUL: no map */
  int count = -1;
  struct gcb_err err = {0};
  enum gcb_status st = gcb__node_override_parse(fake, map, &count, &err);
  if (!gcb_fuzz_answer_ok(st, st == GCB_OK, &err) ||
      (st != GCB_OK && st != GCB_EUSAGE) ||
      (st == GCB_OK && (count < 0 || count > 1024)))
    gcb_fuzz_fail(&err);
  if (st == GCB_OK && *map) {
    check_entries(map, count, &err);
  } else if (st == GCB_OK && *fake == '\0' && count != 0) {
    gcb_fuzz_fail(&err); /* neither variable set: no override */
  }
  free(text);
  return 0;
}
