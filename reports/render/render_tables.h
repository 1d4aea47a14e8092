/*
 * Internal to reports/render: the table builder (table_build.h) and the
 * hooks between the report's tables (render_tables.c) and their
 * neighbours: the verdict's tables, which the report opens with, and the
 * network map's schedules and the section each map's heatmap goes in
 * (render_svg_netmap.c).
 */
#ifndef GCB_RENDER_TABLES_H
#define GCB_RENDER_TABLES_H

#include <stdbool.h>
#include <stddef.h>

#include "reports/render/table_build.h"

/* The verdict's tables (render_verdict.c): root causes, the component
 * matrix, nodes and links; the first the reports show. */
void gcb__verdict_tables(struct gcb__tb *b);

/* The netmap benchmark's schedules, in the order the report shows their
 * maps, NULL-terminated (render_tables.c). */
extern const char *const gcb__netmap_schedules[];

/* The id of the section a network map's heatmap goes in (its bandwidth
 * matrix, or its per-node table when the matrix is too big to be a
 * table); true, every map has one (render_tables.c). */
struct gcb_netmap;
bool gcb__netmap_home(const struct gcb_netmap *m, size_t doc,
                      const char *schedule, char *id, size_t size);

#endif
