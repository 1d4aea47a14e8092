/*
 * The topology picture: per machine of the diagnosis that has a recorded
 * topology (nodes[].topology), an SVG of its NUMA nodes, host links, GPUs,
 * NICs and GPU<->GPU paths, each GPU and edge coloured by its verdict (the
 * component matrix and the link root causes) and labelled with measured /
 * expected figures; and, when there are several machines, one of the
 * fabric. Pure SVG, no script, no external reference; every input string
 * goes through gcb_escape_xml. Beyond 8 GPUs a machine's GPUs wrap into
 * rows of 8 and its peer paths are a matrix of cells, not edges, so a
 * 16-GPU DGX-2 stays readable.
 */
#ifndef GCB_RENDER_SVG_H
#define GCB_RENDER_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "reports/render/render.h"

/* True when some document of the report records a node topology. */
bool gcb_svg_topology_any(const struct gcb_report *rep);

/* Writes one <svg> element per machine with a topology (and one for the
 * fabric when there are several machines) to out, for inlining in HTML.
 * GCB_ENOMEM. */
enum gcb_status gcb_svg_topology(FILE *out, const struct gcb_report *rep,
                                 struct gcb_err *err);

/* The same pictures as one standalone SVG document, topology.svg. */
extern const struct gcb_renderer gcb_render_topology;

/* ---- the network map (render_svg_netmap.c) -----------------------------
 * Heatmaps of the netmap benchmark's pairs, rows and columns named by rank
 * and host, the cells the verdict blames outlined. */

/* True when some document of the report has a network map. */
bool gcb_svg_netmap_any(const struct gcb_report *rep);

/* The heatmaps that belong in the report's section `section` (a table
 * id; see gcb__netmap_home), as one <figure> for inlining in HTML;
 * nothing for any other section. GCB_ENOMEM. */
enum gcb_status gcb_svg_netmap_at(FILE *out, const struct gcb_report *rep,
                                  const char *section, struct gcb_err *err);

/* Every heatmap of the report as one standalone SVG, netmap.svg (written
 * only for results with a network map). */
extern const struct gcb_renderer gcb_render_netmap;

#endif
