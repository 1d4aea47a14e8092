/*
 * reports/: the one header bench/ includes. What the run engine needs of
 * the results document (records, the document it builds and writes, the
 * header sections, per-rank statistics), and what the `report`, `compare`
 * and `topo` commands need: loading the inputs, analysis, criteria,
 * comparison, rendering and plots.
 *
 * The sub-modules, each with its own header (which code inside reports/
 * includes directly): document/ (the results document end to end, the
 * bottom layer), analysis/, criteria/, compare/, render/, plot/, interop/;
 * load.h (the inputs of a report) sits above them all.
 */
#ifndef GCB_REPORTS_H
#define GCB_REPORTS_H

#include "reports/analysis/analyze.h"
#include "reports/analysis/pattern_view.h"
#include "reports/compare/compare.h"
#include "reports/criteria/criteria.h"
#include "reports/criteria/expect.h"
#include "reports/document/record.h"
#include "reports/document/results.h"
#include "reports/document/stats.h"
#include "reports/load.h"
#include "reports/plot/plot.h"
#include "reports/render/render.h"

#endif
