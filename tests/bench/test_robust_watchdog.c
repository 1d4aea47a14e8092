/*
 * The watchdog's naming rule: from each rank's last reported progress,
 * which ranks had not finished when a case timed out, and the one line
 * that says so. (The thread, the connections and the exit are exercised
 * end to end in test_robust.c.)
 */
#include <criterion/criterion.h>
#include <string.h>

#include "bench/run/watchdog.h"

#define R(q, s, p)                                                             \
  { .heard = true, .seq = (q), .step = (s), .phase = (p) }

static const char names[4][96] = {"n0, GPU 0", "n0, GPU 1", "n1, GPU 0",
                                  "n1, GPU 1"};

struct laggard_case {
  const char *what;
  struct gcb__wd_rank ranks[4];
  int n;
  int want[4];
  int nwant;
};

static const struct laggard_case laggard_cases[] = {
    {"one rank behind in steps",
     {R(3, 7, GCB_WD_MEASURE), R(3, 6, GCB_WD_MEASURE), R(3, 7, GCB_WD_MEASURE),
      R(3, 7, GCB_WD_MEASURE)},
     4,
     {1},
     1},
    {"one rank still in the previous case",
     {R(3, 1, GCB_WD_SETUP), R(2, 9, GCB_WD_RECORD), R(3, 1, GCB_WD_SETUP),
      R(3, 1, GCB_WD_SETUP)},
     4,
     {1},
     1},
    {"nobody behind: every rank",
     {R(3, 5, GCB_WD_MEASURE), R(3, 5, GCB_WD_MEASURE), R(3, 5, GCB_WD_MEASURE),
      R(3, 5, GCB_WD_MEASURE)},
     4,
     {0, 1, 2, 3},
     4},
    {"a dead rank and a silent one",
     {R(3, 5, GCB_WD_MEASURE),
      {.heard = true, .dead = true, .seq = 3, .step = 5},
      {.heard = false},
      R(3, 5, GCB_WD_MEASURE)},
     4,
     {1, 2},
     2},
    {"two ranks behind",
     {R(1, 2, GCB_WD_GATHER), R(1, 1, GCB_WD_MEASURE), R(1, 0, GCB_WD_SETUP),
      R(1, 2, GCB_WD_GATHER)},
     4,
     {1, 2},
     2},
    {"a lone rank", {R(1, 1, GCB_WD_MEASURE)}, 1, {0}, 1},
};

Test(watchdog, names_the_ranks_behind_the_furthest_one) {
  for (size_t i = 0; i < sizeof laggard_cases / sizeof *laggard_cases; i++) {
    const struct laggard_case *c = &laggard_cases[i];
    int out[4] = {-1, -1, -1, -1};
    int k = gcb__watchdog_laggards(c->ranks, c->n, out);
    cr_expect_eq(k, c->nwant, "%s: %d ranks", c->what, k);
    for (int j = 0; j < c->nwant && j < k; j++)
      cr_expect_eq(out[j], c->want[j], "%s: [%d]", c->what, j);
  }
}

Test(watchdog, the_line_names_bench_case_ranks_and_phases) {
  const struct gcb__wd_rank ranks[4] = {
      R(3, 7, GCB_WD_MEASURE), R(3, 6, GCB_WD_MEASURE), R(3, 7, GCB_WD_MEASURE),
      R(3, 7, GCB_WD_MEASURE)};
  char buf[512];
  gcb__watchdog_timeout_message(buf, sizeof buf, "coll",
                                "case 'allreduce float sum 8B in-place'", 2.5,
                                ranks, 4, names);
  cr_expect_str_eq(buf, "coll case 'allreduce float sum 8B in-place' did not "
                        "finish within 2.5 s; not finished: rank 1 (n0, GPU "
                        "1) in measure");
  cr_expect_null(strchr(buf, '\n'));
}

Test(watchdog, when_no_rank_is_behind_every_rank_is_listed) {
  const struct gcb__wd_rank ranks[2] = {R(1, 4, GCB_WD_MEASURE),
                                        {.heard = true, .dead = true}};
  const struct gcb__wd_rank same[2] = {R(1, 4, GCB_WD_OPEN),
                                       R(1, 4, GCB_WD_OPEN)};
  char buf[512];
  gcb__watchdog_timeout_message(buf, sizeof buf, "coll", "set-up", 600, same, 2,
                                names);
  cr_expect_str_eq(buf, "coll set-up did not finish within 600 s; no rank is "
                        "behind, still inside it: rank 0 (n0, GPU 0) in "
                        "set-up, rank 1 (n0, GPU 1) in set-up");
  gcb__watchdog_timeout_message(buf, sizeof buf, "gemm", "case 3 of 4", 10,
                                ranks, 2, NULL);
  cr_expect_str_eq(buf, "gemm case 3 of 4 did not finish within 10 s; not "
                        "finished: rank 1 died");
}

Test(watchdog, many_ranks_are_summed_up_after_eight) {
  struct gcb__wd_rank ranks[100];
  for (int r = 0; r < 100; r++)
    ranks[r] = (struct gcb__wd_rank)R(1, r == 0 ? 9 : 1, GCB_WD_GATHER);
  char buf[1024];
  gcb__watchdog_timeout_message(buf, sizeof buf, "coll", "case 1 of 1", 1,
                                ranks, 100, NULL);
  cr_expect(strstr(buf, "rank 8 in gather and 91 more") != NULL, "%s", buf);
  cr_expect(strstr(buf, "rank 0 ") == NULL, "%s", buf);
  /* A short buffer truncates, never overflows. */
  char small[40];
  gcb__watchdog_timeout_message(small, sizeof small, "coll", "case 1 of 1", 1,
                                ranks, 100, NULL);
  cr_expect_eq(strlen(small), sizeof small - 1);
}

Test(watchdog, phases_have_words) {
  cr_expect_str_eq(gcb_watchdog_phase_name(GCB_WD_MEASURE), "measure");
  cr_expect_str_eq(gcb_watchdog_phase_name(GCB_WD_OPEN), "set-up");
  cr_expect_str_eq(gcb_watchdog_phase_name(-1), "?");
  cr_expect_str_eq(gcb_watchdog_phase_name(GCB_WD_PHASE_COUNT), "?");
}

Test(watchdog, calls_without_a_watchdog_do_nothing) {
  gcb_watchdog_arm(NULL, "coll", "case 1 of 1");
  gcb_watchdog_label(NULL, "x");
  gcb_watchdog_phase(NULL, GCB_WD_MEASURE);
  gcb_watchdog_disarm(NULL);
  gcb_watchdog_step(NULL);
  gcb_watchdog_stop(NULL);
}
