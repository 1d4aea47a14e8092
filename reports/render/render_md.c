/*
 * report.md: the verdict, every table of the model (gcb_report_tables) as
 * a GitHub-flavoured Markdown table, the topology picture (topology.svg,
 * written beside it) and the plots as image links. Input
 * text goes through gcb_escape_md, so a '|' in a hostname cannot split a
 * cell and '<script>' stays text.
 */
#include <stdbool.h>
#include <string.h>

#include "reports/render/render.h"
#include "reports/render/render_rows.h"
#include "reports/render/render_svg.h"

static void md_table(FILE *out, const struct gcb_rtable *t) {
  gcb__md(out, "## ", t->title, "\n\n");
  if (t->intro != NULL)
    gcb__md(out, "_", t->intro, "_\n\n");
  if (t->nrows == 0) {
    fprintf(out, "None.\n\n");
    return;
  }
  struct gcb__rows w = {.out = out};
  for (size_t r = 0; r <= t->nrows; r++) {
    /* A marked row (a sweep row off its trend) is bold; its note says why. */
    const char *cls = r > 0 ? t->row_class[r - 1] : NULL;
    bool bold = cls != NULL && strstr(cls, "off-trend") != NULL;
    for (size_t c = 0; c < t->ncols; c++) {
      const char *s = t->cells[r * t->ncols + c];
      bool b = bold && s != NULL && s[0] != '\0';
      gcb__rows_put(&w, c == 0 ? "| " : " | ");
      gcb__rows_put(&w, b ? "**" : "");
      gcb__rows_md(&w, s != NULL ? s : "");
      gcb__rows_put(&w, b ? "**" : "");
    }
    gcb__rows_put(&w, " |\n");
    for (size_t c = 0; r == 0 && c < t->ncols; c++)
      gcb__rows_put(&w, t->numeric[c] ? "| ---: " : "| --- ");
    if (r == 0)
      gcb__rows_put(&w, "|\n");
  }
  gcb__rows_put(&w, "\n");
  gcb__rows_flush(&w);
}

static void md_plots(FILE *out, const struct gcb_plots *p) {
  if (p == NULL)
    return;
  fprintf(out, "## Plots\n\n");
  if (p->note[0] != '\0')
    gcb__md(out, "_", p->note, "_\n\n");
  for (size_t i = 0; i < p->n; i++) {
    gcb__md(out, "![", p->items[i].title, "](");
    /* File names are gcbench's own ("plot-3-ranks.svg"): no escaping. */
    fprintf(out, "%s)\n\n", p->items[i].file);
  }
}

static enum gcb_status render_md(FILE *out, const struct gcb_report *rep,
                                 struct gcb_err *err) {
  struct gcb_rtables own = {0};
  const struct gcb_rtables *tables;
  enum gcb_status st = gcb_report_tables_use(rep, &own, &tables, err);
  if (st != GCB_OK) {
    gcb_rtables_free(&own);
    return st;
  }
  char verdict[320];
  gcb_report_verdict(rep, verdict, sizeof verdict); /* holds a hostname */
  gcb__md(out, "# gcbench report\n\n**", verdict, "**\n\n");
  if (rep->expectations != NULL)
    gcb__md(out, "Expectations: ", rep->expectations, "\n\n");
  bool topo = gcb_svg_topology_any(rep), netmap = gcb_svg_netmap_any(rep);
  for (size_t i = 0; i < tables->n; i++) {
    md_table(out, &tables->items[i]);
    /* The heatmaps are netmap.svg beside this file (gcb_render_netmap),
     * linked once, under the first network map table. */
    if (netmap && strncmp(tables->items[i].id, "netmap-", 7) == 0) {
      fputs("![the network map, every pair, outlined where the verdict "
            "blames it](netmap.svg)\n\n",
            out);
      netmap = false;
    }
    /* The picture is topology.svg beside this file (gcb_render_topology). */
    if (topo && strcmp(tables->items[i].id, "matrix") == 0)
      fputs("## Topology\n\n![topology of every node, coloured by "
            "verdict](topology.svg)\n\n",
            out);
  }
  md_plots(out, rep->plots);
  gcb_rtables_free(&own);
  return gcb__render_done(out, "report.md", err);
}

const struct gcb_renderer gcb_render_md = {
    .name = "markdown", .file = "report.md", .render = render_md};
