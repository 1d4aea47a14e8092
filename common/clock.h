/*
 * The one clock every timing in gcbench reads: CLOCK_MONOTONIC in
 * seconds (never steps with the wall clock; nanosecond resolution on
 * Linux). Inline, so that a timed loop pays the vDSO call and nothing
 * more.
 */
#ifndef GCB_CLOCK_H
#define GCB_CLOCK_H

#include <time.h>

static inline double gcb_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
