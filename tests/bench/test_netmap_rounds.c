/* The network map's schedule: for odd and even rank counts, every ordered
 * pair exactly once, rounds of disjoint pairs, each round both ways, the
 * partner lookup agreeing with the pairs. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "bench/benches/netmap_rounds.h"

Test(netmap_rounds, counts_for_small_and_odd_rank_counts) {
  cr_expect_eq(gcb_netmap_rounds(0), 0);
  cr_expect_eq(gcb_netmap_rounds(1), 0);
  cr_expect_eq(gcb_netmap_steps(1), 0);
  cr_expect_eq(gcb_netmap_rounds(2), 1);
  cr_expect_eq(gcb_netmap_rounds(3), 3);
  cr_expect_eq(gcb_netmap_rounds(4), 3);
  cr_expect_eq(gcb_netmap_round_size(3), 1);
  cr_expect_eq(gcb_netmap_round_size(8), 4);
  struct gcb_netmap_step s;
  cr_expect_not(gcb_netmap_step(3, 6, &s));
  cr_expect_not(gcb_netmap_step(3, -1, &s));
  cr_expect_not(gcb_netmap_step(1, 0, &s));
  int a, b;
  cr_expect_not(gcb_netmap_pair(4, 3, 0, &a, &b));
  cr_expect_not(gcb_netmap_pair(4, 0, 2, &a, &b));
}

/* Every ordered pair once; steps of one round and phase are disjoint and
 * all go the same way (low -> high in phase 0). */
static void check_schedule(int n) {
  int *seen = calloc((size_t)(n * n), sizeof *seen);
  int *busy = calloc((size_t)n, sizeof *busy);
  int steps = gcb_netmap_steps(n), last_round = -1, last_phase = -1;
  cr_assert_eq(steps, n * (n - 1));
  for (int i = 0; i < steps; i++) {
    struct gcb_netmap_step s;
    cr_assert(gcb_netmap_step(n, i, &s), "n %d step %d", n, i);
    cr_assert(s.src >= 0 && s.src < n && s.dst >= 0 && s.dst < n);
    cr_expect_neq(s.src, s.dst, "n %d step %d", n, i);
    cr_expect_eq(s.phase == 0, s.src < s.dst, "n %d step %d", n, i);
    seen[s.src * n + s.dst]++;
    if (s.round != last_round || s.phase != last_phase) {
      cr_expect(s.round > last_round ||
                    (s.round == last_round && s.phase > last_phase),
                "n %d: steps in order of round then phase", n);
      for (int r = 0; r < n; r++)
        busy[r] = 0;
      last_round = s.round, last_phase = s.phase;
    }
    cr_expect_eq(busy[s.src]++, 0, "n %d round %d: rank %d twice", n, s.round,
                 s.src);
    cr_expect_eq(busy[s.dst]++, 0, "n %d round %d: rank %d twice", n, s.round,
                 s.dst);
    int peer = -1;
    bool sends = false;
    cr_expect(gcb_netmap_partner(n, s.round, s.phase, s.src, &peer, &sends));
    cr_expect_eq(peer, s.dst);
    cr_expect(sends);
    cr_expect(gcb_netmap_partner(n, s.round, s.phase, s.dst, &peer, &sends));
    cr_expect_eq(peer, s.src);
    cr_expect_not(sends);
  }
  cr_expect_eq(last_round, gcb_netmap_rounds(n) - 1, "n %d", n);
  for (int x = 0; x < n; x++)
    for (int y = 0; y < n; y++)
      cr_expect_eq(seen[x * n + y], x != y, "n %d: %d -> %d seen %d times", n,
                   x, y, seen[x * n + y]);
  free(seen);
  free(busy);
}

Test(netmap_rounds, every_ordered_pair_once_in_disjoint_rounds) {
  for (int n = 2; n <= 17; n++)
    check_schedule(n);
  check_schedule(64);
  check_schedule(65);
}

/* With an odd count exactly one rank rests each round, each rank once. */
Test(netmap_rounds, odd_counts_rest_each_rank_once) {
  for (int n = 3; n <= 15; n += 2) {
    int *rested = calloc((size_t)n, sizeof *rested);
    for (int r = 0; r < gcb_netmap_rounds(n); r++) {
      int resting = 0;
      for (int x = 0; x < n; x++) {
        int peer;
        bool sends;
        if (!gcb_netmap_partner(n, r, 0, x, &peer, &sends))
          resting++, rested[x]++;
      }
      cr_expect_eq(resting, 1, "n %d round %d", n, r);
    }
    for (int x = 0; x < n; x++)
      cr_expect_eq(rested[x], 1, "n %d rank %d", n, x);
    free(rested);
  }
}
