/*
 * The network map's schedule (pure, no MPI): every ordered pair of n ranks
 * arranged in rounds of disjoint pairs, a round-robin tournament by the
 * circle method (one rank rests each round when n is odd). Within a round
 * no rank is in two pairs, so when the pairs of a round run together each
 * rank's link carries one flow each way, and when they run one at a time a
 * pair has the network to itself. Each round is run twice, once each way,
 * so every ordered pair (src, dst) is one step of the schedule.
 */
#ifndef GCB_NETMAP_ROUNDS_H
#define GCB_NETMAP_ROUNDS_H

#include <stdbool.h>

/* One step: the round, its direction (0: low -> high rank of each pair,
 * 1: back), and the pair it measures. */
struct gcb_netmap_step {
  int round, phase;
  int src, dst;
};

/* Rounds for n ranks: n - 1 when n is even, n when odd; 0 when n < 2. */
int gcb_netmap_rounds(int n);

/* Pairs in one round: n / 2 (the resting rank of an odd n sits out). */
int gcb_netmap_round_size(int n);

/* The k-th pair (0 <= k < round_size) of `round`, its lower rank in *a.
 * False when round or k is out of range. */
bool gcb_netmap_pair(int n, int round, int k, int *a, int *b);

/* The schedule's steps: n * (n - 1), every ordered pair once. */
int gcb_netmap_steps(int n);

/* Step `index` (0 <= index < gcb_netmap_steps(n)), in order of round,
 * then phase, then pair; false when out of range. */
bool gcb_netmap_step(int n, int index, struct gcb_netmap_step *out);

/* This rank's partner in (round, phase) and whether it sends there; false
 * when it rests that round. */
bool gcb_netmap_partner(int n, int round, int phase, int rank, int *peer,
                        bool *sends);

#endif
