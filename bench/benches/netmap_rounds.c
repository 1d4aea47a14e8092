/*
 * The network map's schedule (netmap_rounds.h): the circle method. With m
 * = n rounded up to even, rank m - 1 stays put and the others turn one
 * place a round; in round r it meets rank r, and rank (r + k) mod (m - 1)
 * meets (r - k) mod (m - 1) for k = 1 .. m/2 - 1. For odd n, rank m - 1 is
 * a stand-in: whoever meets it rests.
 */
#include "bench/benches/netmap_rounds.h"

int gcb_netmap_rounds(int n) {
  if (n < 2)
    return 0;
  return n % 2 ? n : n - 1;
}

int gcb_netmap_round_size(int n) {
  return n < 2 ? 0 : n / 2;
}

int gcb_netmap_steps(int n) {
  return n < 2 ? 0 : n * (n - 1);
}

/* The j-th meeting of round r among m (even) places, 0 <= j < m / 2;
 * j = 0 is the fixed place's. */
static void meeting(int m, int r, int j, int *x, int *y) {
  int turn = m - 1;
  if (j == 0) {
    *x = m - 1, *y = r;
    return;
  }
  *x = (r + j) % turn;
  *y = (r - j + turn) % turn;
}

bool gcb_netmap_pair(int n, int round, int k, int *a, int *b) {
  if (round < 0 || round >= gcb_netmap_rounds(n) || k < 0 ||
      k >= gcb_netmap_round_size(n))
    return false;
  int m = n + n % 2, x, y;
  /* For odd n, meeting 0 is the rest: skip it. */
  meeting(m, round, k + n % 2, &x, &y);
  *a = x < y ? x : y;
  *b = x < y ? y : x;
  return true;
}

bool gcb_netmap_step(int n, int index, struct gcb_netmap_step *out) {
  int per = gcb_netmap_round_size(n);
  if (index < 0 || index >= gcb_netmap_steps(n))
    return false;
  int a, b, k = index % per;
  out->round = index / (2 * per);
  out->phase = index / per % 2;
  gcb_netmap_pair(n, out->round, k, &a, &b);
  out->src = out->phase ? b : a;
  out->dst = out->phase ? a : b;
  return true;
}

bool gcb_netmap_partner(int n, int round, int phase, int rank, int *peer,
                        bool *sends) {
  int a, b;
  for (int k = 0; gcb_netmap_pair(n, round, k, &a, &b); k++) {
    if (rank != a && rank != b)
      continue;
    *peer = rank == a ? b : a;
    *sends = (rank == a) == (phase == 0);
    return true;
  }
  return false;
}
