/* suite's profiles: the words a profile's options point into outlive the
 * parsing (text options once pointed into a stack buffer), no word is
 * dropped, and the acceptance profile's collective sweep on a GPU holds
 * every size, operation and type the shipped criteria judge, while the
 * host's stays short; the network map joins every profile across nodes. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benches/coll.h"
#include "bench/benches/suite.h"
#include "reports/criteria/criteria.h"

#define DATA(name) GCB_TEST_DATA "/" name

/* Overwrites a stretch of the stack below the caller's frame, where a
 * returned function's locals were. */
static __attribute__((noinline)) unsigned clobber_stack(void) {
  volatile char junk[16384];
  memset((char *)junk, 'X', sizeof junk);
  unsigned sum = 0;
  for (size_t i = 0; i < sizeof junk; i += 512)
    sum += (unsigned char)junk[i];
  return sum;
}

Test(suite, text_options_point_into_words_that_outlive_the_parse) {
  struct coll_opts o;
  struct gcb_option_group g = {"coll", gcb_bench_find("coll")->options, &o};
  struct gcb__suite_words w = {0};
  struct gcb_err err = {0};
  cr_assert_eq(
      gcb__suite_parse(&g, "--split node,cross --transport mpi", &w, &err),
      GCB_OK, "%s", err.msg);
  cr_expect_gt(clobber_stack(), 0);
  /* Read after the parse returned and its frame was reused: with the
   * words in a stack buffer these read 'X' (or ASan reports the read). */
  cr_expect_str_eq(o.split, "node,cross");
  cr_expect_str_eq(o.transport, "mpi");
  cr_expect(o.split >= w.text && o.split < w.text + 64,
            "the option points into the words the caller holds");
  gcb__suite_words_free(&w);
  cr_expect_null(w.text);
  gcb__suite_words_free(&w); /* freeing twice is a no-op */
}

Test(suite, no_word_is_dropped_however_many) {
  char text[2048] = "";
  for (int i = 0; i < 100; i++)
    strcat(text, i ? " -b 8" : "-b 8");
  char *extra[] = {"--iters", "3"};
  struct gcb__suite_words w;
  struct gcb_err err = {0};
  cr_assert_eq(gcb__suite_words_split(&w, "coll", text, extra, 2, &err),
               GCB_OK);
  cr_expect_eq(w.argc, 1 + 200 + 2, "every word kept (64 once)");
  cr_expect_str_eq(w.argv[0], "coll");
  cr_expect_str_eq(w.argv[199], "-b");
  cr_expect_str_eq(w.argv[201], "--iters");
  cr_expect_null(w.argv[w.argc]);
  gcb__suite_words_free(&w);
  cr_assert_eq(gcb__suite_words_split(&w, "x", "  ", NULL, 0, &err), GCB_OK);
  cr_expect_eq(w.argc, 1, "spaces alone are no word");
  gcb__suite_words_free(&w);
}

/* The coll options of the acceptance profile on `backend`. */
static json_t *acceptance_coll(const char *backend, struct coll_opts *o) {
  char *text = gcb__suite_profile_text("acceptance", "coll", backend);
  cr_assert_not_null(text);
  struct gcb_option_group g = {"coll", gcb_bench_find("coll")->options, o};
  struct gcb__suite_words w = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb__suite_parse(&g, text, &w, &err), GCB_OK, "%s", err.msg);
  json_t *echo = gcb_options_to_json(&g, 1);
  gcb__suite_words_free(&w);
  free(text);
  return echo;
}

static bool in_set(json_t *set, const char *name) {
  size_t i;
  json_t *v;
  json_array_foreach(set, i, v) {
    if (strcmp(json_string_value(v), name) == 0)
      return true;
  }
  return false;
}

static bool in_sweep(const struct coll_opts *o, uint64_t size) {
  for (uint64_t s = o->minbytes; s <= o->maxbytes;
       s = gcb__coll_next_size(o, s))
    if (s == size)
      return true;
  return false;
}

Test(suite, acceptance_on_cuda_reaches_every_size_the_shipped_criteria_judge) {
  struct coll_opts o;
  json_t *echo = acceptance_coll("cuda", &o);
  struct gcb_criteria *cr = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_criteria_read(DATA("criteria-h200.json"), &cr, &err), GCB_OK,
               "%s", err.msg);
  int sized = 0;
  for (size_t i = 0; i < cr->nchecks; i++) {
    const struct gcb_criterion *c = &cr->checks[i];
    if (strcmp(c->bench, "coll") != 0)
      continue;
    const struct gcb_check_param *op = gcb_check_param(c, "op"),
                                 *size = gcb_check_param(c, "size"),
                                 *type = gcb_check_param(c, "type");
    if (op)
      cr_expect(in_set(json_object_get(echo, "collective"), op->str),
                "%s: op %s", c->name, op->str);
    if (type)
      cr_expect(in_set(json_object_get(echo, "datatype"), type->str),
                "%s: type", c->name);
    if (size) {
      sized++;
      cr_expect(in_sweep(&o, (uint64_t)size->num),
                "%s: size %lld is no case of the sweep", c->name,
                (long long)size->num);
    }
  }
  cr_expect_geq(sized, 2, "the criteria judge 8 B and 1 GiB");
  cr_expect_geq(o.maxbytes, UINT64_C(4) << 30, "past the busbw plateau");
  cr_expect_gt(o.check, 0, "validation on");
  gcb_criteria_free(cr);
  json_decref(echo);
}

Test(suite, acceptance_on_the_host_stays_short) {
  struct coll_opts o;
  json_t *echo = acceptance_coll("host", &o);
  cr_expect_leq(o.maxbytes, UINT64_C(1) << 20);
  cr_expect(in_sweep(&o, 8));
  json_decref(echo);
  char *gemm = gcb__suite_profile_text("acceptance", "gemm", "host");
  cr_expect(strstr(gemm, "-m 512") != NULL, "%s", gemm);
  free(gemm);
  char *gpu = gcb__suite_profile_text("acceptance", "gemm", "cuda");
  cr_expect(strstr(gpu, "-m") == NULL, "a GPU's own default: %s", gpu);
  free(gpu);
}

Test(suite, every_profile_maps_the_network_only_across_nodes) {
  const char *names[] = {"default", "quick", "acceptance", "full"};
  for (size_t i = 0; i < 4; i++) {
    char *text = gcb__suite_profile_text(names[i], "netmap", "host");
    cr_assert_not_null(text, "%s", names[i]);
    cr_expect(strstr(text, "--min-nodes 2") != NULL, "%s: %s", names[i], text);
    free(text);
  }
  cr_expect_null(gcb__suite_profile_text("nonesuch", "netmap", "host"));
}
