/* Registry conformance: every benchmark and backend has a unique name and
 * its required callbacks; option tables are consistent. */
#include <criterion/criterion.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/cli/commands.h"
#include "bench/run/harness.h"

Test(registry, benchmarks_have_unique_names_and_required_callbacks) {
  int n = 0;
  for (const struct gcb_bench *const *b = gcb_benches; *b; b++, n++) {
    cr_expect_not_null((*b)->name);
    cr_expect_not_null((*b)->summary, "%s", (*b)->name);
    cr_expect_not_null((*b)->options, "%s", (*b)->name);
    cr_expect_not_null((*b)->count, "%s", (*b)->name);
    cr_expect_not_null((*b)->setup, "%s", (*b)->name);
    cr_expect_gt((*b)->opts_size, 0, "%s", (*b)->name);
    cr_expect_eq(gcb_bench_find((*b)->name), *b, "%s", (*b)->name);
    for (const struct gcb_bench *const *o = b + 1; *o; o++)
      cr_expect_neq(strcmp((*b)->name, (*o)->name), 0, "duplicate %s",
                    (*b)->name);
  }
  cr_expect_geq(n, 2);
  cr_expect_null(gcb_bench_find("nonesuch"));
}

Test(registry, backends_have_unique_names_and_required_callbacks) {
  int n = 0;
  for (const struct gcb_backend_ops *const *b = gcb_backends; *b; b++, n++) {
    cr_expect_not_null((*b)->name);
    cr_expect_not_null((*b)->description, "%s", (*b)->name);
    cr_expect_not_null((*b)->usable, "%s", (*b)->name);
    cr_expect_not_null((*b)->open, "%s", (*b)->name);
    cr_expect_not_null((*b)->close, "%s", (*b)->name);
    cr_expect_not_null((*b)->device_info, "%s", (*b)->name);
    cr_expect_gt((*b)->gemm_default_dim, 0, "%s", (*b)->name);
    cr_expect_eq(gcb_backend_find((*b)->name), *b);
    for (const struct gcb_backend_ops *const *o = b + 1; *o; o++)
      cr_expect_neq(strcmp((*b)->name, (*o)->name), 0);
  }
  cr_expect_not_null(gcb_backend_find("host"));
  cr_expect_eq(gcb_backend_find("cuda") != NULL, GCB_HAVE_CUDA);
}

/* Names must not collide between the shared run options and a benchmark's
 * own, or getopt_long would silently take the first. */
static void expect_distinct(const struct gcb_option *a,
                            const struct gcb_option *b, const char *where) {
  for (const struct gcb_option *x = a; x->name; x++)
    for (const struct gcb_option *y = b; y->name; y++) {
      if (x == y)
        continue;
      /* An alias giving an option of another table its nccl-tests letter
       * under that option's own name (-T for --timeout) parses into the
       * same field: one option, not two. */
      bool same = (x->type == GCB_OPT_ALIAS && strcmp(x->def, y->name) == 0) ||
                  (y->type == GCB_OPT_ALIAS && strcmp(y->def, x->name) == 0);
      if (same && strcmp(x->name, y->name) == 0)
        continue;
      cr_expect_neq(strcmp(x->name, y->name), 0, "%s: --%s twice", where,
                    x->name);
      if (x->short_name)
        cr_expect_neq(x->short_name, y->short_name, "%s: -%c twice", where,
                      x->short_name);
    }
}

Test(registry, option_tables_have_no_collisions_and_valid_defaults) {
  expect_distinct(gcb_run_options, gcb_run_options, "run options");
  for (const struct gcb_bench *const *b = gcb_benches; *b; b++) {
    expect_distinct(gcb_run_options, (*b)->options, (*b)->name);
    expect_distinct((*b)->options, (*b)->options, (*b)->name);
    void *opts = calloc(1, (*b)->opts_size);
    struct gcb_option_group g = {(*b)->name, (*b)->options, opts};
    struct gcb_err err = {0};
    cr_expect_eq(gcb_options_defaults(&g, 1, &err), GCB_OK, "%s: %s",
                 (*b)->name, err.msg);
    /* No help only for a test's fault injection (--delay-rank ...),
     * which --help leaves out (docs/ROBUSTNESS.md). */
    for (const struct gcb_option *o = (*b)->options; o->name; o++)
      cr_expect((o->help && *o->help) ||
                    (o->help == NULL && strstr(o->name, "-rank") != NULL),
                "%s --%s has no help", (*b)->name, o->name);
    free(opts);
  }
}

Test(registry, every_suite_profile_parses_for_every_benchmark) {
  struct gcb_err err = {0};
  cr_expect_eq(gcb__suite_profile_check(&err), 0, "%s", err.msg);
}
