/*
 * index.html: one self-contained page (inline CSS, inline SVG plots, no
 * script, no external fetch) that reads the same in a browser with
 * JavaScript off. A Content-Security-Policy forbids scripts and fetches
 * outright, so even a mistake in escaping could not run anything; every
 * input string still goes through gcb_escape_xml.
 */
#include <string.h>

#include "reports/render/render.h"
#include "reports/render/render_rows.h"
#include "reports/render/render_svg.h"

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
    "margin:0 auto;padding:1em 2em;max-width:110em;color:#1d2125}\n"
    "h1{margin:.2em 0}h2{margin-top:1.6em;border-bottom:1px solid #ccd}\n"
    ".verdict{font-size:1.3em;font-weight:600;padding:.4em .8em;"
    "display:inline-block;border-radius:4px}\n"
    ".verdict.pass{background:#d9f2de;color:#14532d}"
    ".verdict.fail{background:#fbdada;color:#7f1d1d}\n"
    "nav a{margin-right:1em}\n"
    ".wrap{overflow-x:auto}\n"
    "table{border-collapse:collapse;margin:.5em 0}\n"
    "th,td{border:1px solid #d5d8dc;padding:.25em .6em;text-align:left;"
    "vertical-align:top}\n"
    "th{background:#eef1f4;position:sticky;top:0}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;"
    "white-space:nowrap}\n"
    "tr.fail td{background:#fde8e8}tr.warn td{background:#fdf6e3}"
    "tr.ok td{background:#eefaf0}tr.off-trend td{font-weight:600}\n"
    "td.s-fail{background:#f8c9c9}td.s-warn{background:#fbecc0}"
    "td.s-pass,td.s-ok{background:#d9f2de}td.s-info{background:#e6eef8}\n"
    ".intro,.note{color:#555;font-style:italic}\n"
    "figure{display:block;margin:.8em 0;width:100%}"
    "figure svg{width:100%;max-width:100%;height:auto}\n"
    "figure.topology svg{max-width:96em}\n"
    "figcaption{color:#555;text-align:center}\n";

static void html_head(FILE *out, const struct gcb_report *rep,
                      const struct gcb_rtables *ts, bool topo) {
  char verdict[320];
  gcb_report_verdict(rep, verdict, sizeof verdict); /* holds a hostname */
  fprintf(out,
          "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
          "charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" "
          "content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\">\n<title>gcbench report</title>\n<style>\n%s"
          "</style>\n</head>\n<body>\n<header>\n<h1>gcbench report</h1>\n"
          "<p class=\"verdict %s\" id=\"verdict\">",
          css, gcb_report_failed(rep) ? "fail" : "pass");
  gcb__xml(out, "", verdict, "</p>\n");
  if (rep->expectations != NULL)
    gcb__xml(out, "<p id=\"expectations\">Expectations: ", rep->expectations,
             "</p>\n");
  fputs("<nav>", out);
  for (size_t i = 0; i < ts->n; i++) {
    fprintf(out, "<a href=\"#%s\">", ts->items[i].id);
    gcb__xml(out, "", ts->items[i].title, "</a>");
    if (topo && strcmp(ts->items[i].id, "matrix") == 0)
      fputs("<a href=\"#topology\">Topology</a>", out);
  }
  if (rep->plots != NULL)
    fputs("<a href=\"#plots\">Plots</a>", out);
  fputs("</nav>\n</header>\n", out);
}

/* The state word a matrix cell opens with (gcb_cell_name); NULL. */
static const char *cell_state(const char *s) {
  for (int c = GCB_CELL_PASS; s != NULL && c <= GCB_CELL_FAIL; c++) {
    const char *state = gcb_cell_name((enum gcb_cell)c);
    size_t n = strlen(state);
    if (strncmp(s, state, n) == 0 && (s[n] == ' ' || s[n] == '\0'))
      return state;
  }
  return NULL;
}

/* The <svg> element of a gnuplot SVG file, without the XML prolog and
 * doctype that may not appear inside HTML; NULL if it is not one, or holds
 * a script (gnuplot's mouse option), which the page never inlines. */
static const char *svg_element(const char *svg) {
  const char *start = svg != NULL ? strstr(svg, "<svg") : NULL;
  if (start == NULL || strstr(start, "<script") != NULL)
    return NULL;
  return start;
}

static void html_figure(FILE *out, const struct gcb_plot *pl) {
  const char *svg = svg_element(pl->svg);
  if (svg == NULL)
    return;
  fprintf(out, "<figure>\n%s\n", svg);
  gcb__xml(out, "<figcaption>", pl->title, "</figcaption>\n</figure>\n");
}

/* The section a plot belongs beside, by the kind its file name ends with
 * ("plot-3-ranks.svg"): per-rank bars by the per-rank summary, bandwidth
 * and times by the first collective table, P2P heatmaps by the per-GPU
 * summary. */
static bool plot_belongs(const struct gcb_plot *pl, const char *id) {
  static const struct {
    const char *kind, *section;
  } home[] = {{"-ranks.", "ranks"},
              {"-bw.", "coll-1"},
              {"-times.", "coll-1"},
              {"-p2p.", "gpus"}};
  for (size_t i = 0; i < sizeof home / sizeof home[0]; i++)
    if (strstr(pl->file, home[i].kind) != NULL)
      return strcmp(home[i].section, id) == 0;
  return false;
}

static bool has_section(const struct gcb_rtables *ts,
                        const struct gcb_plot *pl) {
  for (size_t i = 0; i < ts->n; i++)
    if (plot_belongs(pl, ts->items[i].id))
      return true;
  return false;
}

/* The plots that belong beside section id, full width under its table. */
static void html_plots_at(FILE *out, const struct gcb_plots *p,
                          const char *id) {
  for (size_t i = 0; p != NULL && i < p->n; i++)
    if (plot_belongs(&p->items[i], id))
      html_figure(out, &p->items[i]);
}

static enum gcb_status html_table(FILE *out, const struct gcb_report *rep,
                                  const struct gcb_rtable *t,
                                  struct gcb_err *err) {
  const struct gcb_plots *plots = rep->plots;
  fprintf(out, "<section id=\"%s\">\n", t->id);
  gcb__xml(out, "<h2>", t->title, "</h2>\n");
  if (t->intro != NULL)
    gcb__xml(out, "<p class=\"intro\">", t->intro, "</p>\n");
  if (t->nrows == 0) {
    fputs("<p>None.</p>\n", out);
    html_plots_at(out, plots, t->id);
    fputs("</section>\n", out);
    return GCB_OK;
  }
  fputs("<div class=\"wrap\"><table>\n<thead><tr>", out);
  for (size_t c = 0; c < t->ncols; c++)
    gcb__xml(out, "<th>", t->cells[c] ? t->cells[c] : "", "</th>");
  fputs("</tr></thead>\n<tbody>\n", out);
  struct gcb__rows b = {.out = out};
  for (size_t r = 1; r <= t->nrows; r++) {
    const char *cls = t->row_class[r - 1];
    if (cls != NULL) {
      gcb__rows_put(&b, "<tr class=\"");
      gcb__rows_put(&b, cls);
      gcb__rows_put(&b, "\">");
    } else
      gcb__rows_put(&b, "<tr>");
    for (size_t c = 0; c < t->ncols; c++) {
      const char *s = t->cells[r * t->ncols + c];
      const char *state = t->state_cells ? cell_state(s) : NULL;
      if (state != NULL) {
        gcb__rows_put(&b, "<td class=\"s-");
        gcb__rows_put(&b, state);
        gcb__rows_put(&b, "\">");
      } else
        gcb__rows_put(&b, t->numeric[c] ? "<td class=\"n\">" : "<td>");
      gcb__rows_xml(&b, s ? s : "");
      gcb__rows_put(&b, "</td>");
    }
    gcb__rows_put(&b, "</tr>\n");
  }
  gcb__rows_flush(&b);
  fputs("</tbody>\n</table></div>\n", out);
  html_plots_at(out, plots, t->id);
  /* The network map's heatmap under its matrix (render_svg_netmap.c). */
  enum gcb_status st = gcb_svg_netmap_at(out, rep, t->id, err);
  fputs("</section>\n", out);
  return st;
}

/* The rest, and why there are none. */
static void html_plots(FILE *out, const struct gcb_plots *p,
                       const struct gcb_rtables *ts) {
  if (p == NULL)
    return;
  fputs("<section id=\"plots\">\n<h2>Plots</h2>\n", out);
  if (p->note[0] != '\0')
    gcb__xml(out, "<p class=\"note\">", p->note, "</p>\n");
  size_t rest = 0;
  for (size_t i = 0; i < p->n; i++)
    if (!has_section(ts, &p->items[i])) {
      html_figure(out, &p->items[i]);
      rest++;
    }
  if (rest == 0 && p->note[0] == '\0')
    fputs("<p>Each plot is shown beside its section.</p>\n", out);
  fputs("</section>\n", out);
}

/* The topology pictures, after the last verdict table. */
static enum gcb_status html_topology(FILE *out, const struct gcb_report *rep,
                                     struct gcb_err *err) {
  fputs("<section id=\"topology\">\n<h2>Topology</h2>\n<p "
        "class=\"intro\">each GPU, host link and GPU pair coloured by its "
        "verdict, with measured / expected figures</p>\n",
        out);
  enum gcb_status st = gcb_svg_topology(out, rep, err);
  fputs("</section>\n", out);
  return st;
}

static bool verdict_table(const char *id) {
  return strcmp(id, "root-causes") == 0 || strcmp(id, "matrix") == 0 ||
         strcmp(id, "components") == 0;
}

static enum gcb_status render_html(FILE *out, const struct gcb_report *rep,
                                   struct gcb_err *err) {
  struct gcb_rtables own = {0};
  const struct gcb_rtables *tables;
  enum gcb_status st = gcb_report_tables_use(rep, &own, &tables, err);
  if (st != GCB_OK) {
    gcb_rtables_free(&own);
    return st;
  }
  bool topo = gcb_svg_topology_any(rep);
  html_head(out, rep, tables, topo);
  fputs("<main>\n", out);
  for (size_t i = 0; st == GCB_OK && i < tables->n; i++) {
    st = html_table(out, rep, &tables->items[i], err);
    bool last_verdict =
        verdict_table(tables->items[i].id) &&
        (i + 1 == tables->n || !verdict_table(tables->items[i + 1].id));
    if (st == GCB_OK && topo && last_verdict)
      st = html_topology(out, rep, err);
  }
  if (st == GCB_OK)
    html_plots(out, rep->plots, tables);
  fputs("</main>\n</body>\n</html>\n", out);
  gcb_rtables_free(&own);
  return st != GCB_OK ? st : gcb__render_done(out, "index.html", err);
}

const struct gcb_renderer gcb_render_html = {
    .name = "html", .file = "index.html", .render = render_html};
