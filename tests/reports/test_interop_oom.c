/*
 * Converting another tool's file when memory runs out: every allocation
 * of a conversion is made to fail in turn (this binary's malloc, calloc
 * and realloc stand in front of glibc's), and the conversion must end
 * with the very model it builds with all its memory, or out of memory
 * said in one line: never a crash, never a model missing a part. Run
 * alone under valgrind (`valgrind --leak-check=full test_interop_oom`) it
 * shows that nothing a failed conversion built leaks; where these
 * functions are not the ones called (the valgrind pass of .ci/run, whose
 * preloaded runner puts valgrind's allocator in front) it says so and
 * skips. Files of each converter from tests/data/interop.
 *
 * Not under AddressSanitizer, whose allocator these functions would
 * replace.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "reports/interop/interop.h"
#include "tests/reports/failing_alloc.h"
#include "tests/reports/report_fixture.h"

/* What a report reads of m, as text (the caller frees it). Figures to
 * ten digits: jansson's number parser (David Gay's strtod) loses the
 * last digits of a real when its big-number allocation fails, which no
 * caller can see; a report prints four to six. */
static char *fingerprint(const struct gcb_model *m) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert_not_null(f);
  const struct gcb_model_run *r = &m->run;
  fprintf(f, "run %s %s %s %s %s %lld %lld %s %s\n", r->tool, r->version, r->id,
          r->status, r->end_time, r->ranks, r->nodes, r->software.text,
          r->run.text);
  for (size_t i = 0; i < m->nnodes; i++)
    fprintf(f, "node %s %zu\n", m->nodes[i].hostname, m->nodes[i].nranks);
  for (size_t i = 0; i < m->nranks; i++)
    fprintf(f, "rank %lld %s %s %s\n", m->ranks[i].rank, m->ranks[i].hostname,
            m->ranks[i].device_name, m->ranks[i].device_bus_id);
  for (size_t i = 0; i < m->ncases; i++) {
    const struct gcb_model_case *c = &m->cases[i];
    fprintf(f, "case %s %s %s %.10g %.10g %.10g\n", c->bench, c->label,
            c->params.text, c->summary.median, c->summary.busbw,
            c->summary.time_mean);
    for (size_t k = 0; k < c->ranks.n; k++)
      fprintf(f, " %.10g", gcb_model_col(c, GCB_RC_FIG_MEDIAN, k));
    fputc('\n', f);
  }
  for (size_t i = 0; i < m->nskips; i++)
    fprintf(f, "skip %s %s\n", m->skips[i].label, m->skips[i].reason);
  for (size_t i = 0; i < m->nerrors; i++)
    fprintf(f, "error %s %s\n", m->errors[i].label, m->errors[i].message);
  fclose(f);
  return buf;
}

/* Converts text with allocation number `fail` (from 0; -1: none) failing;
 * the status, *seen what a report reads of the model (NULL without one;
 * the caller frees it). */
static enum gcb_status convert(const char *text, size_t len, const char *name,
                               long fail, char **seen, struct gcb_err *err) {
  struct gcb_results *res = NULL;
  struct gcb_model *m = NULL;
#ifndef GCB_NO_MALLOC_HOOK
  allocations = 0;
  fail_at = fail;
#else
  (void)fail;
#endif
  enum gcb_status st =
      gcb_interop_parse(text, len, name, NULL, 0, &res, &m, NULL, err);
#ifndef GCB_NO_MALLOC_HOOK
  fail_at = -1;
#endif
  *seen = m != NULL ? fingerprint(m) : NULL;
  gcb_model_free(m);
  gcb_results_free(res);
  return st;
}

#ifndef GCB_NO_MALLOC_HOOK
/* Converts tests/data/interop/<file> with its allocations failing in turn:
 * `tries` of them spread over the conversion, or every one (0). False
 * when the allocations are not this binary's to fail. */
static bool fail_in_turn(const char *file, long tries) {
  char path[512];
  size_t len;
  char *whole, *seen;
  snprintf(path, sizeof path, "%s/interop/%s", GCB_TEST_DATA, file);
  char *text = fx_slurp(path, &len);
  cr_assert_not_null(text, "%s", path);
  struct gcb_err err = {0};
  cr_assert_eq(convert(text, len, file, -1, &whole, &err), GCB_OK, "%s",
               err.msg);
  long total = allocations, step = tries > 0 ? total / tries + 1 : 1;
  if (total == 0) { /* valgrind's malloc stands in front of this one */
    free(whole);
    free(text);
    return false;
  }
  cr_assert_gt(total, 50, "%s: %ld allocations seen", file, total);
  for (long k = 0; k < total; k += step) {
    err = (struct gcb_err){0};
    enum gcb_status st = convert(text, len, file, k, &seen, &err);
    /* jansson's parser words an allocation failure inside a token as
     * a syntax error ("invalid token", "string or '}' expected"): a
     * JSON file is then refused as not what it is */
    bool json = strstr(file, ".json") != NULL;
    bool refused = st == GCB_ENOMEM || (st == GCB_EINPUT && json);
    cr_expect(st == GCB_OK || refused,
              "%s, allocation %ld of %ld failing: status %d (%s)", file, k,
              total, (int)st, err.msg);
    cr_expect(st != GCB_ENOMEM || strstr(err.msg, "out of memory") != NULL,
              "%s, allocation %ld: %s", file, k, err.msg);
    /* a failure the conversion survived changed nothing */
    cr_expect(st != GCB_OK || strcmp(seen, whole) == 0,
              "%s, allocation %ld of %ld failing: another model:\n%s", file, k,
              total, seen);
    free(seen);
  }
  free(whole);
  free(text);
  return true;
}
#endif

Test(interop_oom, a_conversion_out_of_memory_ends_with_a_status_not_a_crash) {
#ifdef GCB_NO_MALLOC_HOOK
  cr_skip_test("AddressSanitizer owns malloc here");
#else
  static const char *const files[] = {
      "nccl-tests-allreduce.json",
      "rccl-tests-93-allreduce.jsonl",
      "parallelcluster-p5-openmpi-osu_latency.txt",
      "nvbandwidth-50-v0.8-a6000.txt",
      "dcgm-warnings-nvbandwidth-2gpu.json",
      "nccl-tests-82-broadcast-v100.txt"};
  for (size_t f = 0; f < sizeof files / sizeof *files; f++)
    if (!fail_in_turn(files[f], 150))
      cr_skip_test("allocations are not this binary's to fail here");
#endif
}

/* Every allocation of an nvbandwidth file, not a sample: a matrix that
 * could not grow was once refused as a bad row of the file (allocation 42
 * of nvbandwidth-50-v0.8-a6000.txt). Text, not -j JSON: jansson's lexer
 * drops a byte of a number it has no memory for, and the model then holds
 * another figure, which no caller can see. */
Test(interop_oom, an_nvbandwidth_matrix_out_of_memory_is_said_as_such) {
#ifdef GCB_NO_MALLOC_HOOK
  cr_skip_test("AddressSanitizer owns malloc here");
#else
  if (!fail_in_turn("nvbandwidth-50-v0.8-a6000.txt", 0))
    cr_skip_test("allocations are not this binary's to fail here");
#endif
}
