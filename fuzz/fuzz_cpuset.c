/*
 * libFuzzer target: `topo --cpuset LIST@GPU;...` (bench/cli/topo_command.c)
 * and the binding check it feeds (topo/binding.c), on a real captured
 * topology (tests/data/topo/hwloc-2socket-3gpu-ib.xml: 2 sockets, 3 GPUs).
 * The contract: the parse gives ranks whose GPU is on the machine or -1,
 * or one usage line; the check and its fixes give problems or one line,
 * never a crash, a huge bitmap or a GPU that is not there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/topo_command.h"
#include "fuzz/contract.h"
#include "reports/reports.h"

#ifndef GCB_FUZZ_TOPO_XML
#define GCB_FUZZ_TOPO_XML "tests/data/topo/hwloc-2socket-3gpu-ib.xml"
#endif

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static const struct gcb_topo *topology(void) {
  static struct gcb_topo *t;
  if (t == NULL) {
    struct gcb_err err = {0};
    if (gcb_topo_load(GCB_FUZZ_TOPO_XML, &t, &err) != GCB_OK) {
      fprintf(stderr, "fuzz_cpuset: %s\n", err.msg);
      abort();
    }
  }
  return t;
}

static void check_ranks(const struct gcb_topo *t,
                        const struct gcb__rankset *rs) {
  struct gcb_topo_problem *probs = NULL;
  int n = -1;
  struct gcb_err err = {0};
  enum gcb_status st =
      gcb_topo_check_ranks(t, rs->ranks, rs->n, &probs, &n, &err);
  if (!gcb_fuzz_answer_ok(st, st == GCB_OK, &err) ||
      (st == GCB_OK && (n < 0 || (n > 0) != (probs != NULL))))
    gcb_fuzz_fail(&err);
  if (st == GCB_OK) {
    json_t *j = gcb_results_placement_json(probs, n);
    if (j == NULL)
      gcb_fuzz_fail(&err);
    json_decref(j);
  }
  free(probs);
  char fix[4096];
  err = (struct gcb_err){0};
  st = gcb_topo_binding_fix(t, rs->ranks, rs->n, fix, sizeof fix, &err);
  if (!gcb_fuzz_answer_ok(st, st == GCB_OK, &err))
    gcb_fuzz_fail(&err);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  const struct gcb_topo *t = topology();
  int ngpus = gcb_topo_gpu_count(t);
  char *text = malloc(size + 1);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0'; /* an argument ends at its NUL */
  struct gcb__rankset rs = {0};
  struct gcb_err err = {0};
  enum gcb_status st = gcb__topo_cpuset_parse(text, ngpus, &rs, &err);
  if (!gcb_fuzz_answer_ok(st, st == GCB_OK, &err) ||
      (st != GCB_OK && st != GCB_EUSAGE && st != GCB_ENOMEM))
    gcb_fuzz_fail(&err);
  for (int i = 0; st == GCB_OK && i < rs.n; i++)
    if (rs.ranks[i].rank != i || rs.ranks[i].gpu < -1 ||
        rs.ranks[i].cpus == NULL)
      gcb_fuzz_fail(&err);
  if (st == GCB_OK)
    check_ranks(t, &rs);
  gcb__rankset_free(&rs);
  free(text);
  return 0;
}
