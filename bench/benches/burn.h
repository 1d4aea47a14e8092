/*
 * What of `gcbench burn` (burn.c) is used beyond its file: the points a
 * backend's reading gives the timeline, so that a test can drive the same
 * conversion with readings of fake GPU libraries.
 */
#ifndef GCB_BENCH_BURN_H
#define GCB_BENCH_BURN_H

#include "kernels/backend.h"
#include "reports/document/record.h"

/* The timeline's point of each series a reading fills (GCB_BURN_CPU_MHZ
 * to GCB_BURN_XID) into point[series]: NAN where the backend read
 * nothing (a real it did not report, a counter of -1, reasons not known).
 * The other series of point[] are left alone. */
void gcb__burn_reading_points(const struct gcb_burn_reading *rd,
                              double point[GCB_BURN_SERIES_COUNT]);

#endif
