/*
 * The network map as heatmaps (render_svg.h): per document and schedule
 * of the netmap benchmark, the bandwidth and the latency of every ordered
 * pair as a grid of coloured cells, rows the sender and columns the
 * receiver, each row and column labelled with its rank and host name.
 * Ranks are ordered by node, with a line between nodes, so that a host's
 * slow link reads as a slow cross and a slow path as one cell. Cells the
 * verdict blames (the network-link and network-path findings, in the
 * state of the root cause that holds them) are outlined in the verdict's
 * colour, and a failing host's labels too.
 *
 * It stays readable from 2 to 128 rows: cells shrink with the count
 * (40 px down to 6), column labels are turned upright, long host names
 * lose the domain all of them share and then their middle, and beyond a
 * label per cell every k-th is shown; figures are printed in cells that
 * are wide enough, and every cell and label carries its full text as a
 * tooltip (<title>) up to 64 rows. Past 128 ranks the map is drawn per
 * node (the median of the node pairs' ranks), past 128 nodes not at all,
 * a line saying so in its place, as for a map that was not built
 * (netmap_matrix.h: past GCB_NETMAP_MAX_ROWS rows, or out of memory).
 * The legend's unit is scaled to the largest figure (MB/s, us, ...).
 * Pure SVG, no script, no external reference; text through
 * gcb_escape_xml. The map is read by gcb_netmap_read_model
 * (netmap_matrix.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/netmap_matrix.h"
#include "reports/render/render_svg_int.h"
#include "reports/render/render_tables.h"

#define MAX_UNITS 128
#define TITLES_UP_TO 64
#define LEGEND_W 230
#define LEGEND_H 236

/* One heatmap: its rows (units: ranks, or nodes), values, marks and
 * geometry. */
struct heat {
  const struct gcb_netmap *m;
  size_t doc;
  const char *schedule;
  bool lat, by_node;
  int k;                       /* units */
  int *unit_rank;              /* unit -> its (first) rank, ordered by node */
  int *unit_of;                /* rank -> unit */
  int *sorted, *first;         /* ranks by node; unit u's: first[u] .. [u+1] */
  double *v;                   /* k x k */
  enum gcb_cell *st, *host_st; /* k x k; per node */
  char (*label)[64];
  double vmax, factor;
  const char *unit;
  double c, font, left, top, body, width, height;
  int every;
};

static void heat_free(struct heat *h) {
  free(h->unit_rank);
  free(h->unit_of);
  free(h->sorted);
  free(h->first);
  free(h->v);
  free(h->st);
  free(h->host_st);
  free(h->label);
}

static int by_value(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* Units in display order: every rank by node (a key of node * n + rank,
 * sorted), or each node's first rank when there are too many ranks to
 * draw one by one. False: no memory. */
static bool order_units(struct heat *h) {
  const struct gcb_netmap *m = h->m;
  long long n = m->n, *key = malloc((size_t)n * sizeof *key);
  int k = 0;
  if (key == NULL)
    return false;
  for (long long r = 0; r < n; r++)
    key[r] = m->node[r] * n + r;
  qsort(key, (size_t)n, sizeof *key, by_value);
  for (long long i = 0; i < n; i++) {
    int r = (int)(key[i] % n);
    h->sorted[i] = r;
    if (!h->by_node || i == 0 || key[i] / n != key[i - 1] / n) {
      h->first[k] = (int)i;
      h->unit_rank[k++] = r;
    }
    h->unit_of[r] = k - 1;
  }
  h->first[k] = (int)n;
  free(key);
  h->k = k;
  return true;
}

/* Over nodes: the median of the pairs between the ranks of node u and
 * node w (scratch holds the largest such set). */
static double node_cell(const struct heat *h, const double *src, int u, int w,
                        double *scratch) {
  int n = h->m->n, j = 0;
  for (int a = h->first[u]; a < h->first[u + 1]; a++)
    for (int b = h->first[w]; b < h->first[w + 1]; b++)
      if (h->sorted[a] != h->sorted[b])
        scratch[j++] = src[h->sorted[a] * n + h->sorted[b]];
  return gcb_netmap_median(scratch, j);
}

/* Each cell: the pair's figure, or over nodes the median of their ranks'
 * pairs; the largest figure. False: no memory. */
static bool fill_values(struct heat *h) {
  const struct gcb_netmap *m = h->m;
  const double *src = h->lat ? m->lat : m->bw;
  int n = m->n, k = h->k, most = 1;
  for (int u = 0; h->by_node && u < k; u++)
    most = h->first[u + 1] - h->first[u] > most ? h->first[u + 1] - h->first[u]
                                                : most;
  double *scratch =
      h->by_node ? malloc((size_t)most * (size_t)most * sizeof *scratch) : NULL;
  if (h->by_node && scratch == NULL)
    return false;
  h->vmax = 0;
  for (int u = 0; u < k; u++)
    for (int w = 0; w < k; w++) {
      double x = h->by_node ? node_cell(h, src, u, w, scratch)
                 : u == w   ? NAN
                            : src[h->unit_rank[u] * n + h->unit_rank[w]];
      h->v[u * k + w] = x;
      if (isfinite(x) && x > h->vmax)
        h->vmax = x;
    }
  free(scratch);
  return true;
}

/* The state the verdict gives finding i: its root cause's, else its own. */
static enum gcb_cell finding_state(const struct gcb_report *rep,
                                   const struct gcb_diagnosis *d, size_t i) {
  for (size_t r = 0; d != NULL && r < d->n; r++)
    for (size_t e = 0; e < d->items[r].nevidence; e++)
      if (d->items[r].evidence[e] == i)
        return gcb_root_cause_cell(&d->items[r]);
  return gcb_severity_cell(rep->findings->items[i].severity);
}

/* Whether finding f judged `schedule` (its subject: "netmap: bandwidth
 * alone, pairs with HOST", "netmap: bandwidth alone 0->1"): the other
 * schedule's map shows what it measured, unmarked. */
static bool judged_on(const struct gcb_finding *f, const char *schedule) {
  static const char pre[] = "netmap: bandwidth ";
  size_t n = strlen(schedule);
  const char *s = f->where.subject;
  return strncmp(s, pre, sizeof pre - 1) == 0 &&
         strncmp(s + sizeof pre - 1, schedule, n) == 0 &&
         (s[sizeof pre - 1 + n] == ' ' || s[sizeof pre - 1 + n] == ',');
}

static void mark(struct heat *h, int s, int d, enum gcb_cell st) {
  size_t cell = (size_t)h->unit_of[s] * h->k + h->unit_of[d];
  if (st > h->st[cell])
    h->st[cell] = st;
}

/* Marks the cells of the network findings of this document: a host's
 * link every pair with one end on it and the other off it; a path its
 * pair. The verdict is about bandwidth: latency maps stay unmarked. */
static void mark_findings(struct heat *h, const struct gcb_report *rep,
                          const struct gcb_diagnosis *dx) {
  const struct gcb_netmap *m = h->m;
  for (size_t i = 0; !h->lat && rep->findings && i < rep->findings->n; i++) {
    const struct gcb_finding *f = &rep->findings->items[i];
    bool link = f->kind == GCB_KIND(NETWORK_LINK);
    if ((!link && f->kind != GCB_KIND(NETWORK_PATH)) ||
        f->where.doc != (int)h->doc || !judged_on(f, h->schedule))
      continue;
    enum gcb_cell st = finding_state(rep, dx, i);
    if (link && f->where.node >= 0 && f->where.node < m->nodes) {
      if (st > h->host_st[f->where.node])
        h->host_st[f->where.node] = st;
      for (int s = 0; s < m->n; s++)
        for (int d = 0; d < m->n; d++)
          if (m->node[s] != m->node[d] &&
              (m->node[s] == f->where.node || m->node[d] == f->where.node))
            mark(h, s, d, st);
      continue;
    }
    int a = -1, b = -1;
    if (link || sscanf(f->where.ranks, "%d,%d", &a, &b) != 2)
      continue;
    /* Ranks to rows (a node map's rows are nodes, named by first ranks). */
    int s = gcb_netmap_row(m, f->where.rank);
    a = gcb_netmap_row(m, a), b = gcb_netmap_row(m, b);
    if (s < 0 || a < 0 || b < 0)
      continue;
    mark(h, s, s == a ? b : a, st);
    if (m->by_node) /* one pair of nodes, both of its cells */
      mark(h, s == a ? b : a, s, st);
  }
}

/* What the host names share after a dot ("cluster.example.com"): its
 * length in `host`, 0 when they share none. */
static size_t shared_domain(const struct gcb_netmap *m) {
  const char *first = m->host[0] ? m->host[0] : "";
  const char *dot = strchr(first, '.');
  for (; dot != NULL; dot = strchr(dot + 1, '.')) {
    size_t len = strlen(dot);
    bool all = true;
    for (int r = 1; r < m->n && all; r++) {
      const char *h = m->host[r] ? m->host[r] : "";
      size_t hl = strlen(h);
      all = hl > len && strcmp(h + hl - len, dot) == 0;
    }
    if (all)
      return len;
  }
  return 0;
}

/* The UTF-8 characters of s[0..len): how many. */
static size_t chars(const char *s, size_t len) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    n += ((unsigned char)s[i] & 0xC0) != 0x80;
  return n;
}

/* "12 node017": the rank (none per node) and the host, its shared domain
 * dropped and, past max characters, its middle (kept: the start and the
 * last 5 bytes, where node numbers are). Cuts only at character
 * boundaries. */
static void make_label(struct heat *h, int u, size_t domain, size_t max) {
  int r = h->unit_rank[u];
  const char *host = h->m->host[r] ? h->m->host[r] : "";
  size_t len = strlen(host);
  len = domain < len ? len - domain : len;
  char name[64];
  if (len < sizeof name && chars(host, len) <= max) {
    memcpy(name, host, len);
    name[len] = '\0';
  } else {
    size_t head = max > 7 ? max - 6 : 1, tail = 5;
    while (head > 0 && ((unsigned char)host[head] & 0xC0) == 0x80)
      head--;
    while (tail < len && ((unsigned char)host[len - tail] & 0xC0) == 0x80)
      tail++;
    snprintf(name, sizeof name, "%.*s\xe2\x80\xa6%.*s", (int)head, host,
             (int)(tail < len ? tail : 0), host + len - tail);
  }
  if (h->by_node || h->m->by_node)
    snprintf(h->label[u], sizeof h->label[u], "%s", name);
  else
    snprintf(h->label[u], sizeof h->label[u], "%d %s", r, name);
}

static void geometry(struct heat *h) {
  int k = h->k;
  double c = floor(640.0 / k);
  h->c = c > 40 ? 40 : c < 6 ? 6 : c;
  h->font = h->c - 2 > 12 ? 12 : h->c - 2 < 7 ? 7 : h->c - 2;
  h->every = (int)ceil((h->font + 1) / h->c);
  size_t domain = shared_domain(h->m), widest = 1;
  for (int u = 0; u < k; u++) {
    make_label(h, u, domain, k <= 16 ? 24 : 14);
    size_t w = chars(h->label[u], strlen(h->label[u]));
    widest = w > widest ? w : widest;
  }
  h->left = h->top = ceil(0.62 * h->font * (double)widest) + 10;
  h->width = 16 + h->left + k * h->c + 20 + LEGEND_W;
  /* The grid or the legend beside it, whichever is taller, then the
   * footnote under both. */
  h->body = k * h->c > LEGEND_H ? k * h->c : LEGEND_H;
  h->height = 34 + h->top + h->body + 40;
}

/* 1: ready to draw; 0: too many nodes to draw; -1: no memory. */
static int heat_open(struct heat *h, const struct gcb_netmap *m, size_t doc,
                     const char *schedule, bool lat,
                     const struct gcb_report *rep,
                     const struct gcb_diagnosis *dx) {
  memset(h, 0, sizeof *h);
  h->m = m, h->doc = doc, h->schedule = schedule, h->lat = lat;
  h->by_node = m->n > MAX_UNITS;
  if (h->by_node && m->nodes > MAX_UNITS)
    return 0;
  size_t n = (size_t)m->n;
  h->unit_rank = calloc(n, sizeof *h->unit_rank);
  h->unit_of = calloc(n, sizeof *h->unit_of);
  h->label = calloc(n, sizeof *h->label);
  h->sorted = calloc(n, sizeof *h->sorted);
  h->first = calloc(n + 1, sizeof *h->first);
  h->host_st = calloc((size_t)m->nodes + 1, sizeof *h->host_st);
  if (!h->unit_rank || !h->unit_of || !h->label || !h->host_st || !h->sorted ||
      !h->first || !order_units(h))
    return -1;
  h->v = malloc((size_t)h->k * h->k * sizeof *h->v);
  h->st = calloc((size_t)h->k * h->k, sizeof *h->st);
  if (!h->v || !h->st || !fill_values(h))
    return -1;
  mark_findings(h, rep, dx);
  geometry(h);
  h->factor = gcb_unit_scale(h->vmax, lat ? "s" : "GB/s", &h->unit);
  return 1;
}

/* Red (slow) through yellow to green (fast); latency the other way. */
static void colour(const struct heat *h, double x, char *buf, size_t size) {
  static const double stop[3][3] = {
      {215, 48, 39}, {254, 224, 139}, {26, 152, 80}};
  if (!isfinite(x) || !(h->vmax > 0)) {
    snprintf(buf, size, "#eceff1");
    return;
  }
  double t = x / h->vmax;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  if (h->lat)
    t = 1 - t;
  int lo = t < 0.5 ? 0 : 1;
  double f = (t - 0.5 * lo) * 2;
  int rgb[3];
  for (int i = 0; i < 3; i++)
    rgb[i] = (int)lround(stop[lo][i] + f * (stop[lo + 1][i] - stop[lo][i]));
  snprintf(buf, size, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static const char *host_of(const struct heat *h, int u) {
  const char *s = h->m->host[h->unit_rank[u]];
  return s ? s : "";
}

/* A label with its full host name as a tooltip, coloured when the host's
 * link is blamed. */
static void label(FILE *out, const struct heat *h, int u, double x, double y,
                  bool column) {
  enum gcb_cell st = h->host_st[h->m->node[h->unit_rank[u]]];
  fprintf(out,
          "<text class=\"netmap-label\" x=\"%.1f\" y=\"%.1f\" "
          "font-size=\"%.0f\"%s",
          x, y, h->font, column ? "" : " text-anchor=\"end\"");
  if (column)
    fprintf(out, " transform=\"rotate(-90 %.1f %.1f)\"", x, y);
  if (st >= GCB_CELL_WARN)
    fprintf(out, " fill=\"%s\" font-weight=\"700\"", gcb__svg_stroke(st));
  gcb__xml(out, ">", h->label[u], "<title>");
  if (!h->by_node)
    fprintf(out, "rank %d on ", h->unit_rank[u]);
  gcb__xml(out, "", host_of(h, u), "</title></text>\n");
}

static void cell(FILE *out, const struct heat *h, int u, int w, double x,
                 double y) {
  double v = h->v[u * h->k + w];
  enum gcb_cell st = h->st[u * h->k + w];
  char fill[16], fig[48];
  colour(h, v, fill, sizeof fill);
  fprintf(out, "<rect class=\"cell %s\"", st ? gcb_cell_name(st) : "-");
  if (h->k <= TITLES_UP_TO)
    fprintf(out, " id=\"netmap-%zu-%s-%s-%d-%d\"", h->doc, h->schedule,
            h->lat ? "lat" : "bw", u, w);
  fprintf(out,
          " x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"",
          x, y, h->c - 1, h->c - 1, fill);
  if (st >= GCB_CELL_WARN)
    fprintf(out, " stroke=\"%s\" stroke-width=\"%.1f\"", gcb__svg_stroke(st),
            h->c >= 16 ? 3.0 : 1.5);
  if (h->k > TITLES_UP_TO) {
    fputs("/>\n", out);
    return;
  }
  if (h->by_node) {
    gcb__xml(out, "><title>", host_of(h, u), " \xe2\x86\x92 ");
    gcb_escape_xml(out, host_of(h, w));
  } else {
    fprintf(out, "><title>rank %d (", h->unit_rank[u]);
    gcb_escape_xml(out, host_of(h, u));
    fprintf(out, ") \xe2\x86\x92 rank %d (", h->unit_rank[w]);
    gcb__xml(out, "", host_of(h, w), ")");
  }
  if (isfinite(v))
    fprintf(out, ": %.3g %s", v * h->factor, h->unit);
  else
    fputs(": not measured", out);
  fprintf(out, "%s%s</title></rect>\n", st ? ", " : "",
          st ? gcb_cell_name(st) : "");
  if (h->c >= 34 && isfinite(v)) {
    snprintf(fig, sizeof fig, "%.3g", v * h->factor);
    gcb__svg_text(out, x + 3, y + h->c / 2 + 4, "font-size=\"10\"", fig);
  }
}

/* The legend: six swatches from 0 to the largest figure, in its scaled
 * unit, then what an outline means. */
static void legend(FILE *out, const struct heat *h, double x, double y) {
  char line[96], fill[16];
  snprintf(line, sizeof line, "%s, %s", h->lat ? "latency" : "bandwidth",
           h->unit);
  gcb__svg_text(out, x, y + 12, "font-size=\"12\" font-weight=\"600\"", line);
  for (int i = 0; i <= 5; i++) {
    double v = h->vmax * (5 - i) / 5.0, yy = y + 22 + i * 22;
    colour(h, v, fill, sizeof fill);
    fprintf(out,
            "<rect x=\"%.0f\" y=\"%.0f\" width=\"18\" height=\"18\" "
            "fill=\"%s\"/>\n",
            x, yy, fill);
    snprintf(line, sizeof line, "%.3g %s", v * h->factor, h->unit);
    gcb__svg_text(out, x + 24, yy + 13, "font-size=\"11\"", line);
  }
  static const enum gcb_cell marks[] = {GCB_CELL_FAIL, GCB_CELL_WARN};
  static const char *const says[] = {"fail: the verdict blames it",
                                     "warn: the verdict doubts it"};
  for (int i = 0; i < 2 && !h->lat; i++) {
    double yy = y + 166 + i * 22;
    fprintf(out,
            "<rect x=\"%.0f\" y=\"%.0f\" width=\"18\" height=\"18\" "
            "fill=\"#ffffff\" stroke=\"%s\" stroke-width=\"3\"/>\n",
            x, yy, gcb__svg_stroke(marks[i]));
    gcb__svg_text(out, x + 24, yy + 13, "font-size=\"11\"", says[i]);
  }
  gcb__svg_text(out, x, y + 222, "font-size=\"11\" fill=\"#555\"",
                h->by_node ? "cells: median over the ranks of the two nodes"
                           : "grey: not measured (or the rank itself)");
}

/* Lines between nodes across the grid (ranks of one node side by side). */
static void node_lines(FILE *out, const struct heat *h, double gx, double gy) {
  double span = h->k * h->c;
  for (int u = 1; !h->by_node && u < h->k; u++) {
    if (h->m->node[h->unit_rank[u]] == h->m->node[h->unit_rank[u - 1]])
      continue;
    double at = u * h->c - 0.5;
    fprintf(out,
            "<path d=\"M%.1f %.1fh%.1fM%.1f %.1fv%.1f\" stroke=\"#37474f\" "
            "stroke-width=\"1\"/>\n",
            gx, gy + at, span, gx + at, gy, span);
  }
}

static void draw_heat(FILE *out, const struct heat *h, double y0) {
  char title[200];
  snprintf(title, sizeof title, "Network map: %s, %s (run %zu), %s",
           h->lat ? "latency" : "bandwidth", h->schedule, h->doc + 1,
           h->by_node || h->m->by_node ? "node to node" : "rank to rank");
  fprintf(out, "<g class=\"netmap\" transform=\"translate(0,%.0f)\">\n", y0);
  gcb__svg_text(out, 16, 20, "font-size=\"14\" font-weight=\"600\"", title);
  double gx = 16 + h->left, gy = 34 + h->top;
  for (int u = 0; u < h->k; u += h->every) {
    label(out, h, u, gx + u * h->c + h->c / 2 + h->font * 0.35, gy - 5, true);
    label(out, h, u, gx - 5, gy + u * h->c + h->c / 2 + h->font * 0.35, false);
  }
  for (int u = 0; u < h->k; u++)
    for (int w = 0; w < h->k; w++)
      cell(out, h, u, w, gx + w * h->c, gy + u * h->c);
  node_lines(out, h, gx, gy);
  gcb__svg_text(out, 16, gy + h->body + 24, "font-size=\"11\" fill=\"#555\"",
                h->m->by_node
                    ? "every node pair once: its sendrecv busbw, both ways"
                : h->lat ? "row: sender, column: receiver; one-way latency"
                         : "row: sender, column: receiver");
  legend(out, h, gx + h->k * h->c + 20, gy);
  fputs("</g>\n", out);
}

/* A line in place of a map that is not drawn: its rows, and why. */
static void not_drawn(FILE *out, double *width, double *height, size_t doc,
                      const char *schedule, int rows, const char *what,
                      const char *why) {
  char line[200];
  snprintf(line, sizeof line, "Network map: %s (run %zu): %d %s, not drawn: %s",
           schedule, doc + 1, rows, what, why);
  fprintf(out,
          "<g class=\"netmap-not-drawn\" transform=\"translate(0,%.0f)\">\n",
          *height);
  gcb__svg_text(out, 16, 20, "font-size=\"13\" fill=\"#555\"", line);
  fputs("</g>\n", out);
  double w = 32 + 7.5 * (double)strlen(line);
  *width = w > *width ? w : *width;
  *height += 30;
}

/* Whether the map holds a figure of its latency (lat) or bandwidth. */
static bool measured(const struct gcb_netmap *m, bool lat) {
  for (size_t i = 0; i < (size_t)m->n * (size_t)m->n; i++)
    if (!isnan((lat ? m->lat : m->bw)[i]))
      return true;
  return false;
}

/* The heatmaps of the section `home` (as gcb__netmap_home names it), or
 * of the whole report (NULL), as one <svg>: drawn into a buffer first, as
 * its size is theirs. */
static enum gcb_status draw(FILE *out, const struct gcb_report *rep,
                            const char *home, bool standalone,
                            struct gcb_err *err) {
  struct gcb_diagnosis own = {0};
  const struct gcb_diagnosis *dx = NULL;
  enum gcb_status st = gcb_report_diagnosis_use(rep, &own, &dx, err);
  char *body = NULL;
  size_t len = 0;
  FILE *f = st == GCB_OK ? open_memstream(&body, &len) : NULL;
  double width = 0, height = 0;
  bool oom = st == GCB_OK && f == NULL;
  for (size_t d = 0; f != NULL && d < rep->ndocs; d++)
    for (const char *const *s = gcb__netmap_schedules; *s != NULL; s++) {
      struct gcb_netmap m;
      char id[64];
      char why[64] = "out of memory";
      if (!gcb_netmap_read_model(rep->docs[d].model, *s, &m)) {
        if (m.unbuilt > GCB_NETMAP_MAX_ROWS)
          snprintf(why, sizeof why, "more than the %d a map is built for",
                   GCB_NETMAP_MAX_ROWS);
        if (m.unbuilt > 0 && home == NULL) /* it has no section */
          not_drawn(f, &width, &height, d, *s, m.unbuilt,
                    strcmp(*s, "nodepairs") == 0 ? "nodes" : "ranks", why);
        continue;
      }
      bool here = home == NULL || (gcb__netmap_home(&m, d, *s, id, sizeof id) &&
                                   strcmp(id, home) == 0);
      /* Node pairs have bandwidth only. */
      for (int lat = 0; here && lat < (m.by_node ? 1 : 2) && !oom; lat++) {
        struct heat h;
        int ready = heat_open(&h, &m, d, *s, lat, rep, dx);
        oom = ready < 0;
        if (ready == 0 && lat == 0) {
          snprintf(why, sizeof why, "more than the %d a picture draws",
                   MAX_UNITS);
          not_drawn(f, &width, &height, d, *s, m.nodes, "nodes", why);
        }
        if (ready > 0 && h.vmax > 0) {
          draw_heat(f, &h, height);
          width = h.width > width ? h.width : width;
          height += h.height;
        } else if (ready > 0 && measured(&m, lat)) { /* no scale: 0 to 0 */
          snprintf(why, sizeof why, "no %s figure above 0",
                   lat ? "latency" : "bandwidth");
          not_drawn(f, &width, &height, d, *s, m.n,
                    m.by_node ? "nodes" : "ranks", why);
        }
        heat_free(&h);
      }
      gcb_netmap_free(&m);
    }
  if (f != NULL) {
    oom |= ferror(f) != 0;
    oom |= fclose(f) != 0; /* then body holds what was drawn */
  }
  if (st == GCB_OK && !oom && height > 0) {
    fputs(standalone ? "" : "<figure class=\"netmap\">\n", out);
    /* its own size, not the page's figure width: a map of two ranks
     * stays small */
    gcb__svg_open(out, width, height,
                  standalone
                      ? " role=\"img\""
                      : " role=\"img\" style=\"width:auto;max-width:100%\"");
    fwrite(body, 1, len, out);
    fputs(standalone ? "</svg>\n"
                     : "</svg>\n<figcaption>the network map, every pair, "
                       "outlined where the verdict blames it</figcaption>"
                       "\n</figure>\n",
          out);
  }
  free(body);
  if (st == GCB_OK && oom)
    st = gcb_err_set(err, GCB_ENOMEM, "network map picture: out of memory");
  if (st == GCB_OK && standalone && height == 0)
    fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"420\" "
          "height=\"30\" font-family=\"sans-serif\"><text x=\"8\" y=\"20\" "
          "font-size=\"13\">no network map in these results</text></svg>\n",
          out);
  gcb_diagnosis_free(&own);
  return st;
}

bool gcb_svg_netmap_any(const struct gcb_report *rep) {
  for (size_t d = 0; d < rep->ndocs; d++)
    for (const char *const *s = gcb__netmap_schedules; *s != NULL; s++) {
      struct gcb_netmap m;
      if (gcb_netmap_read_model(rep->docs[d].model, *s, &m)) {
        gcb_netmap_free(&m);
        return true;
      }
      if (m.unbuilt > 0) /* said in the picture */
        return true;
    }
  return false;
}

enum gcb_status gcb_svg_netmap_at(FILE *out, const struct gcb_report *rep,
                                  const char *section, struct gcb_err *err) {
  if (strncmp(section, "netmap-", 7) != 0)
    return GCB_OK;
  return draw(out, rep, section, false, err);
}

static enum gcb_status render_netmap(FILE *out, const struct gcb_report *rep,
                                     struct gcb_err *err) {
  enum gcb_status st = draw(out, rep, NULL, true, err);
  return st != GCB_OK ? st : gcb__render_done(out, "netmap.svg", err);
}

const struct gcb_renderer gcb_render_netmap = {.name = "netmap",
                                               .file = "netmap.svg",
                                               .render = render_netmap,
                                               .applies = gcb_svg_netmap_any,
                                               .directory_only = true};
