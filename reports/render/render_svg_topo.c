/*
 * The topology picture of one machine (render_svg.h): a title, then the
 * GPUs in rows of at most 8, each row under a band of its NUMA nodes and,
 * where the machine has PCIe switches, a band with a box for the switch
 * nearest each GPU, with a host link from the band (or the GPU's switch)
 * to each GPU; under the rows the GPU<->GPU
 * paths. At 8 GPUs or fewer the pairs with a root cause are also drawn as
 * arcs between the boxes; the full set is always a matrix of cells (row
 * source, column destination) with the measured P2P figure, so 16 GPUs
 * (120 pairs) stay a picture and not a hairball. States come from the
 * component matrix (GPU and host link) and the link root causes (pairs);
 * figures from the matrix cells, the root causes and the topology's
 * expectations. A switch's colour is the worst verdict of what runs
 * through it: the host links of its GPUs and the NICs below it; a NIC's,
 * the worst root cause about it (a NIC no finding judged is "-", grey).
 * Cascaded switches above the nearest one are not drawn (its label names
 * its uplink). Layout is fixed arithmetic on the GPU count, so the same
 * document always gives the same picture.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/fmtnum.h"
#include "reports/render/render_svg_int.h"

#define BOX_W 176
#define BOX_H 78
#define GAP 12
#define MARGIN 16
#define TITLE_H 30
#define BAND_H 26
#define LINK_H 50
#define ROW_H (BAND_H + LINK_H + BOX_H + 18)
#define SW_H 30 /* the PCIe switch band, on machines that have switches */
#define NIC_W 200

static size_t per_row(const struct gcb__svg_pic *p) {
  return p->n < 8 ? (p->n ? p->n : 1) : 8;
}

/* The topology's index of the PCIe switch nearest GPU i (the one its
 * host link crosses first), or -1. */
static long long gpu_switch(const struct gcb__svg_pic *p, size_t i) {
  long long k = p->gpu[i] != NULL ? p->gpu[i]->pcie_switch : -1;
  return k >= 0 && (size_t)k < p->node->nswitches ? k : -1;
}

/* GPU i's NUMA node, -1 unknown (or no GPU i). */
static long long gpu_numa(const struct gcb__svg_pic *p, size_t i) {
  return p->gpu[i] != NULL ? p->gpu[i]->numa : -1;
}

/* The switch band's height: 0 on a machine without switches, whose
 * picture is then what it was before switches were drawn. */
static double sw_h(const struct gcb__svg_pic *p) {
  for (size_t i = 0; i < p->n; i++)
    if (gpu_switch(p, i) >= 0)
      return SW_H;
  return 0;
}

static double row_h(const struct gcb__svg_pic *p) {
  return ROW_H + sw_h(p);
}

static size_t nrows(const struct gcb__svg_pic *p) {
  return (p->n + per_row(p) - 1) / per_row(p);
}

static double cell_size(const struct gcb__svg_pic *p) {
  return p->n <= 8 ? 64 : 40;
}

/* Arcs are drawn only when every GPU is in one row. */
static size_t arcs(const struct gcb__svg_pic *p) {
  size_t k = 0;
  for (size_t a = 0; nrows(p) == 1 && a < p->n; a++)
    for (size_t b = 0; b < p->n; b++)
      k += a != b && p->edge[a][b] > GCB_CELL_PASS;
  return k < 6 ? k : 6;
}

double gcb__svg_width(const struct gcb__svg_pic *p) {
  double w = 2 * MARGIN + per_row(p) * (BOX_W + GAP) - GAP;
  double m = 2 * MARGIN + (p->n + 1) * cell_size(p) + 260;
  return w > m ? w : m;
}

/* NICs per line under the machine (at least one), and the lines. */
static size_t nics_per_row(const struct gcb__svg_pic *p) {
  double room = gcb__svg_width(p) - MARGIN - NIC_W;
  return 1 + (room > 0 ? (size_t)(room / (NIC_W + 10)) : 0);
}

static size_t nic_rows(const struct gcb__svg_pic *p) {
  return (p->nnics + nics_per_row(p) - 1) / nics_per_row(p);
}

double gcb__svg_height(const struct gcb__svg_pic *p) {
  double arc = arcs(p) ? 24 + 22.0 * arcs(p) : 0;
  return TITLE_H + nrows(p) * row_h(p) + arc + 40 + (p->n + 1) * cell_size(p) +
         (p->nnics ? 6 + 34.0 * nic_rows(p) : 0) + MARGIN;
}

static double box_x(const struct gcb__svg_pic *p, size_t i) {
  return MARGIN + (i % per_row(p)) * (BOX_W + GAP);
}

static double row_y(const struct gcb__svg_pic *p, size_t i) {
  return TITLE_H + (i / per_row(p)) * row_h(p);
}

/* A box coloured by state st, after its <rect's class and id; its outline
 * heavier from warn on. */
static void state_box(FILE *out, enum gcb_cell st, double x, double y, double w,
                      double h, int rx) {
  fprintf(out,
          "x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" rx=\"%d\" "
          "fill=\"%s\" stroke=\"%s\" stroke-width=\"%d\"/>\n",
          gcb__svg_n0(x).s, gcb__svg_n0(y).s, gcb__svg_n0(w).s,
          gcb__svg_n0(h).s, rx, gcb__svg_fill(st), gcb__svg_stroke(st),
          st >= GCB_CELL_WARN ? 3 : 1);
}

/* The end of the run of GPUs from i on, within i's row, that share
 * key(p, i): GPU i's NUMA node or switch. */
static size_t run_end(const struct gcb__svg_pic *p, size_t i,
                      long long (*key)(const struct gcb__svg_pic *, size_t)) {
  size_t j = i + 1;
  while (j < p->n && j / per_row(p) == i / per_row(p) && key(p, j) == key(p, i))
    j++;
  return j;
}

/* The NUMA band over each run of GPUs of one NUMA node within a row. */
static void numa_bands(FILE *out, const struct gcb__svg_pic *p) {
  for (size_t i = 0, j; i < p->n; i = j) {
    j = run_end(p, i, gpu_numa);
    long long numa = gpu_numa(p, i);
    double x = box_x(p, i), w = box_x(p, j - 1) + BOX_W - x;
    char label[128];
    const char *cpus = p->gpu[i] != NULL ? p->gpu[i]->cpus : "";
    if (numa >= 0)
      snprintf(label, sizeof label, "NUMA %lld \xc2\xb7 CPUs %s", numa, cpus);
    else
      snprintf(label, sizeof label, "host (NUMA node not recorded)");
    fprintf(out,
            "<rect class=\"numa\" x=\"%s\" y=\"%s\" width=\"%s\" "
            "height=\"%d\" rx=\"4\" fill=\"#eef1f4\" stroke=\"#8a94a0\"/>\n",
            gcb__svg_n0(x).s, gcb__svg_n0(row_y(p, i)).s, gcb__svg_n0(w).s,
            BAND_H - 4);
    gcb__svg_text(out, x + 8, row_y(p, i) + 16, "font-size=\"12\"", label);
  }
}

/* "H2D 52.59 GB/s (exp 63.02)": the cell's figure or root cause, and what
 * the GPU's host link should carry. */
static void link_label(const struct gcb_matrix_cell *c, const char *what,
                       double expected, char *buf, size_t size) {
  char fig[96], exp[32] = "";
  if (c->rc != NULL && !isnan(c->rc->measured))
    gcb_fmt_scaled_pair(c->rc->measured, c->rc->expected, c->rc->unit, fig,
                        sizeof fig);
  else
    snprintf(fig, sizeof fig, "%s", c->figure[0] ? c->figure : "not measured");
  if (!isnan(expected) && (c->rc == NULL || isnan(c->rc->measured)))
    snprintf(exp, sizeof exp, " (exp %.4g)", expected);
  snprintf(buf, size, "%s %s%s", what, fig, exp);
}

/* GPU i's cell of family f; an empty one when it has no matrix row. */
static const struct gcb_matrix_cell *cell_of(const struct gcb__svg_pic *p,
                                             size_t i, enum gcb_family f) {
  static const struct gcb_matrix_cell none = {.state = GCB_CELL_NONE};
  return p->row[i] != NULL ? &p->row[i]->cell[f] : &none;
}

/* The state of GPU i's host link: the worse of its H2D and D2H cells. */
static enum gcb_cell host_state(const struct gcb__svg_pic *p, size_t i) {
  enum gcb_cell h2d = cell_of(p, i, GCB_FAM_H2D)->state;
  enum gcb_cell d2h = cell_of(p, i, GCB_FAM_D2H)->state;
  return h2d > d2h ? h2d : d2h;
}

static void host_link(FILE *out, const struct gcb__svg_pic *p, size_t i) {
  enum gcb_cell st = host_state(p, i);
  /* From the GPU's switch when it has one, else from its NUMA band. */
  double x = box_x(p, i) + 14, y0 = row_y(p, i) + BAND_H - 4 + sw_h(p);
  double top = gpu_switch(p, i) >= 0 ? y0 : row_y(p, i) + BAND_H - 4;
  fprintf(out,
          "<line class=\"hostlink %s\" id=\"topo-%zu-host-%zu\" x1=\"%s\" "
          "y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"%d\"/>\n",
          gcb_cell_name(st), p->machine, i, gcb__svg_n0(x).s,
          gcb__svg_n0(top).s, gcb__svg_n0(x).s, gcb__svg_n0(y0 + LINK_H + 4).s,
          gcb__svg_stroke(st), st >= GCB_CELL_WARN ? 5 : 3);
  char label[160];
  const struct gcb_model_gpu *g = p->gpu[i];
  double exp = g != NULL ? g->host_gbps : NAN;
  link_label(cell_of(p, i, GCB_FAM_H2D), "H2D", exp, label, sizeof label);
  gcb__svg_text(out, x + 8, y0 + 15, "font-size=\"11\"", label);
  link_label(cell_of(p, i, GCB_FAM_D2H), "D2H", exp, label, sizeof label);
  gcb__svg_text(out, x + 8, y0 + 29, "font-size=\"11\"", label);
  /* The GPU's own link, the first hop of its path. */
  snprintf(label, sizeof label, "PCIe %s",
           g != NULL && g->nhops > 0 ? g->hops[0].link : "?");
  gcb__svg_text(out, x + 8, y0 + 43, "font-size=\"11\" fill=\"#555\"", label);
}

/* A GPU's own families: the matrix columns that are not its links. */
static const enum gcb_family own[] = {GCB_FAM_GEMM, GCB_FAM_DEVMEM,
                                      GCB_FAM_HEALTH, GCB_FAM_PLACEMENT,
                                      GCB_FAM_COLL};

/* The GPU's state: the worst of its own families. */
static enum gcb_cell gpu_state(const struct gcb_matrix_row *r) {
  enum gcb_cell st = GCB_CELL_NONE;
  for (size_t k = 0; r != NULL && k < sizeof own / sizeof own[0]; k++)
    if (r->cell[own[k]].state > st)
      st = r->cell[own[k]].state;
  return st;
}

static void cell_line(const struct gcb_matrix_cell *c, const char *what,
                      char *buf, size_t size) {
  char fig[96];
  if (c->rc != NULL && isfinite(c->rc->measured) && c->rc->expected > 0 &&
      (c->state == GCB_CELL_FAIL || c->state == GCB_CELL_WARN))
    gcb_fmt_scaled_pair(c->rc->measured, c->rc->expected, c->rc->unit, fig,
                        sizeof fig);
  else
    snprintf(fig, sizeof fig, "%s", c->figure[0] ? c->figure : "-");
  snprintf(buf, size, "%s %s", what, fig);
}

static void gpu_box(FILE *out, const struct gcb__svg_pic *p, size_t i) {
  const struct gcb_matrix_row *r = p->row[i];
  enum gcb_cell st = gpu_state(r);
  double x = box_x(p, i), y = row_y(p, i) + BAND_H + sw_h(p) + LINK_H;
  fprintf(out, "<g class=\"gpu %s\" id=\"topo-%zu-gpu-%zu\">\n<rect ",
          gcb_cell_name(st), p->machine, i);
  state_box(out, st, x, y, BOX_W, BOX_H, 6);
  char line[160];
  snprintf(line, sizeof line, "GPU %zu  %s", i,
           p->gpu[i] != NULL ? p->gpu[i]->busid : "");
  gcb__svg_text(out, x + 8, y + 16, "font-size=\"12\" font-weight=\"600\"",
                line);
  if (r != NULL) {
    cell_line(&r->cell[GCB_FAM_GEMM], "GEMM", line, sizeof line);
    gcb__svg_text(out, x + 8, y + 33, "font-size=\"11\"", line);
    cell_line(&r->cell[GCB_FAM_DEVMEM], "mem", line, sizeof line);
    gcb__svg_text(out, x + 8, y + 48, "font-size=\"11\"", line);
    snprintf(line, sizeof line, "%s", gcb_cell_name(st));
    for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
      if (r->cell[own[k]].rc != NULL && r->cell[own[k]].state == st) {
        snprintf(line, sizeof line, "%s: %s", gcb_cell_name(st),
                 gcb_family_name(own[k]));
        break;
      }
    gcb__svg_text(out, x + 8, y + 66, "font-size=\"11\" font-weight=\"600\"",
                  line);
  }
  fputs("</g>\n", out);
}

/* Pairs with a root cause as arcs under a one-row machine. */
static void edge_arcs(FILE *out, const struct gcb__svg_pic *p, double y0) {
  size_t k = 0, max = arcs(p);
  for (size_t a = 0; a < p->n && k < max; a++)
    for (size_t b = 0; b < p->n && k < max; b++) {
      enum gcb_cell st = p->edge[a][b];
      if (a == b || st <= GCB_CELL_PASS)
        continue;
      double x1 = box_x(p, a) + BOX_W / 2.0, x2 = box_x(p, b) + BOX_W / 2.0;
      double depth = 24 + 22.0 * k++;
      fprintf(out,
              "<path class=\"edge %s\" id=\"topo-%zu-arc-%zu-%zu\" d=\"M%s "
              "%s Q%s %s %s %s\" fill=\"none\" stroke=\"%s\" "
              "stroke-width=\"3\"/>\n",
              gcb_cell_name(st), p->machine, a, b, gcb__svg_n0(x1).s,
              gcb__svg_n0(y0).s, gcb__svg_n0((x1 + x2) / 2).s,
              gcb__svg_n0(y0 + 2 * depth).s, gcb__svg_n0(x2).s,
              gcb__svg_n0(y0).s, gcb__svg_stroke(st));
      char label[160], fig[96];
      gcb_fmt_scaled_pair(p->p2p[a][b], p->expect[a][b], "GB/s", fig,
                          sizeof fig);
      snprintf(label, sizeof label, "GPU %zu \xe2\x86\x92 GPU %zu: %s (%s)", a,
               b, fig, gcb_cell_name(st));
      gcb__svg_text(out, (x1 + x2) / 2 - 90, y0 + depth + 4,
                    "font-size=\"11\" font-weight=\"600\"", label);
    }
}

/* Whether a root cause is about this NIC: the diagnosis names a NIC
 * link "NAME BUSID" (diagnose.c, at_link); by bus id, else by name. */
static bool names_nic(const struct gcb_root_cause *rc,
                      const struct gcb_model_nic *nic) {
  const char *name = nic->name, *bus = nic->busid;
  if (rc->comp.kind != GCB_COMP_LINK || strncmp(rc->comp.name, "NIC ", 4))
    return false;
  if (bus[0] != '\0')
    return strstr(rc->comp.link, bus) != NULL;
  size_t n = strlen(name);
  return n > 0 && strncmp(rc->comp.link, name, n) == 0 &&
         (rc->comp.link[n] == ' ' || rc->comp.link[n] == '\0');
}

/* A NIC's verdict: the worst root cause about it; "-" when none judged
 * it (a NIC no finding names has no measurement of its own). */
static enum gcb_cell nic_state(const struct gcb__svg_pic *p,
                               const struct gcb_model_nic *nic) {
  enum gcb_cell st = GCB_CELL_NONE;
  for (size_t i = 0; p->diag != NULL && i < p->diag->n; i++) {
    const struct gcb_root_cause *rc = &p->diag->items[i];
    enum gcb_cell c = gcb_root_cause_cell(rc);
    if (rc->comp.node == (long long)p->machine && names_nic(rc, nic) && c > st)
      st = c;
  }
  return st;
}

/* A switch's verdict: the worst of what runs through it, the host links
 * of the GPUs below it and the NICs below it. */
static enum gcb_cell switch_state(const struct gcb__svg_pic *p, long long k) {
  enum gcb_cell st = GCB_CELL_NONE;
  for (size_t i = 0; i < p->n; i++)
    if (gpu_switch(p, i) == k && host_state(p, i) > st)
      st = host_state(p, i);
  for (size_t i = 0; i < p->node->nnics; i++) {
    const struct gcb_model_nic *nic = &p->node->nics[i];
    enum gcb_cell c = nic_state(p, nic);
    if (nic->pcie_switch == k && c > st)
      st = c;
  }
  return st;
}

/* One box per run of GPUs of a row under one switch, between the NUMA
 * band and the host links. */
static void switch_boxes(FILE *out, const struct gcb__svg_pic *p) {
  for (size_t i = 0, j; i < p->n; i = j) {
    long long k = gpu_switch(p, i);
    j = run_end(p, i, gpu_switch);
    if (k < 0)
      continue;
    const struct gcb_model_switch *sw = &p->node->switches[k];
    enum gcb_cell st = switch_state(p, k);
    double x = box_x(p, i), w = box_x(p, j - 1) + BOX_W - x;
    double y = row_y(p, i) + BAND_H;
    fprintf(out, "<rect class=\"switch %s\" id=\"topo-%zu-switch-%lld-%zu\" ",
            gcb_cell_name(st), p->machine, k, i);
    state_box(out, st, x, y, w, SW_H - 6, 4);
    char label[160], up[48] = "";
    if (sw->uplink_gbps > 0)
      snprintf(up, sizeof up, " \xc2\xb7 uplink %.4g GB/s", sw->uplink_gbps);
    snprintf(label, sizeof label, "PCIe switch %s%s%s%s", sw->busid, up,
             st != GCB_CELL_NONE ? " \xc2\xb7 " : "",
             st != GCB_CELL_NONE ? gcb_cell_name(st) : "");
    gcb__svg_text(out, x + 8, y + 16, "font-size=\"11\"", label);
  }
}

/* The NICs in lines under the machine, each coloured by its verdict. */
static void nic_line(FILE *out, const struct gcb__svg_pic *p, double y0) {
  size_t q = nics_per_row(p);
  for (size_t i = 0; i < p->node->nnics; i++) {
    double x = MARGIN + (double)(i % q) * (NIC_W + 10), y = y0 + 34.0 * (i / q);
    const struct gcb_model_nic *nic = &p->node->nics[i];
    char label[128], numa[40] = "";
    enum gcb_cell st = nic_state(p, nic);
    if (nic->numa >= 0)
      snprintf(numa, sizeof numa, " (NUMA %lld)", nic->numa);
    snprintf(label, sizeof label, "NIC %s%s%s%s", nic->name, numa,
             st != GCB_CELL_NONE ? " \xc2\xb7 " : "",
             st != GCB_CELL_NONE ? gcb_cell_name(st) : "");
    fprintf(out, "<rect class=\"nic %s\" id=\"topo-%zu-nic-%zu\" ",
            gcb_cell_name(st), p->machine, i);
    state_box(out, st, x, y, NIC_W, 24, 4);
    gcb__svg_text(out, x + 6, y + 16, "font-size=\"11\"", label);
  }
}

/* "NV18 x 28 pairs (450 GB/s)": the path classes between the GPUs, the
 * first 8 (their names whole), then the count of pairs in the others;
 * "none recorded". Written escaped into the caption's <text>. */
static void classes(FILE *out, const struct gcb__svg_pic *p) {
  const char *seen[8];
  size_t count[8] = {0}, k = 0, other = 0;
  double gbps[8] = {0};
  for (size_t a = 0; a < p->n; a++)
    for (size_t b = a + 1; b < p->n; b++) {
      const char *c = gcb_model_pair_class(p->node, (long long)a, (long long)b);
      size_t j = 0;
      while (j < k && strcmp(seen[j], c) != 0)
        j++;
      if (j == k && k < 8)
        seen[k++] = c;
      if (j < k) {
        count[j]++;
        gbps[j] = p->expect[a][b];
      } else {
        other++;
      }
    }
  for (size_t j = 0; j < k; j++) {
    gcb__xml(out, j ? ", " : "", seen[j][0] ? seen[j] : "?", "");
    fprintf(out, isnan(gbps[j]) ? " x %zu pairs" : " x %zu pairs (%.4g GB/s)",
            count[j], gbps[j]);
  }
  if (other)
    fprintf(out, " and %zu pairs of other classes", other);
  fputs(k ? "" : "none recorded", out);
}

/* The GPU<->GPU matrix of cells at (x, y), cells of size c. */
static void peers(FILE *out, const struct gcb__svg_pic *p, double x, double y,
                  double c) {
  gcb__svg_cat(out, "<text x=\"", gcb__svg_n0(x).s, "\" y=\"",
               gcb__svg_n0(y + 16).s,
               "\" font-size=\"12\" font-weight=\"600\">GPU\xe2\x86\x94GPU "
               "paths: ",
               (const char *)NULL);
  classes(out, p);
  fprintf(out,
          ". Cells: lowest measured P2P GB/s, row \xe2\x86\x92 column%s"
          "</text>\n",
          p->n <= 8 ? " / expected" : "");
  y += 28;
  for (size_t g = 0; g < p->n; g++) {
    char l[16];
    snprintf(l, sizeof l, "GPU %zu", g);
    gcb__svg_text(out, x + (g + 1) * c + 4, y + c / 2 + 4, "font-size=\"11\"",
                  l);
    gcb__svg_text(out, x + 2, y + (g + 1) * c + c / 2 + 4, "font-size=\"11\"",
                  l);
  }
  for (size_t a = 0; a < p->n; a++)
    for (size_t b = 0; b < p->n; b++) {
      enum gcb_cell st = a == b ? GCB_CELL_NONE : p->edge[a][b];
      double cx = x + (b + 1) * c, cy = y + (a + 1) * c;
      char ma[GCB_FMTNUM_MAX], as[GCB_FMTNUM_MAX], bs[GCB_FMTNUM_MAX];
      gcb_fmtnum_ll(ma, (long long)p->machine); /* "%zu" */
      gcb_fmtnum_ll(as, (long long)a);
      gcb_fmtnum_ll(bs, (long long)b);
      gcb__svg_cat(
          out, "<rect class=\"edge ", gcb_cell_name(st), "\" id=\"topo-", ma,
          "-p2p-", as, "-", bs, "\" x=\"", gcb__svg_n0(cx).s, "\" y=\"",
          gcb__svg_n0(cy).s, "\" width=\"", gcb__svg_n0(c - 2).s,
          "\" height=\"", gcb__svg_n0(c - 2).s, "\" fill=\"", gcb__svg_fill(st),
          "\" stroke=\"", gcb__svg_stroke(st), "\" stroke-width=\"",
          st >= GCB_CELL_WARN ? "2" : "1", "\"/>\n", (const char *)NULL);
      if (a == b || isnan(p->p2p[a][b]))
        continue;
      gcb__svg_text(out, cx + 4, cy + 24, "font-size=\"11\"",
                    gcb__svg_n0(p->p2p[a][b]).s);
      if (p->n <= 8 && !isnan(p->expect[a][b])) {
        char line[sizeof(struct gcb__svg_n0) + 1];
        snprintf(line, sizeof line, "/%s", gcb__svg_n0(p->expect[a][b]).s);
        gcb__svg_text(out, cx + 4, cy + 40, "font-size=\"10\" fill=\"#555\"",
                      line);
      }
    }
}

void gcb__svg_machine(FILE *out, const struct gcb__svg_pic *p, double y) {
  fprintf(out, "<g class=\"machine\" transform=\"translate(0,%s)\">\n",
          gcb__svg_n0(y).s);
  char title[400], undrawn[80] = "";
  if (p->undrawn)
    snprintf(undrawn, sizeof undrawn,
             "; %zu more GPU(s) not drawn: index outside 0..%d", p->undrawn,
             GCB_SVG_MAX_GPUS - 1);
  snprintf(title, sizeof title, "node %zu: %s (%zu GPUs%s%s%s)", p->machine,
           p->hostname, p->n, p->model[0] ? " \xc2\xb7 " : "", p->model,
           undrawn);
  gcb__svg_text(out, MARGIN, 20, "font-size=\"15\" font-weight=\"600\"", title);
  numa_bands(out, p);
  switch_boxes(out, p);
  for (size_t i = 0; i < p->n; i++) {
    host_link(out, p, i);
    gpu_box(out, p, i);
  }
  double yy = TITLE_H + nrows(p) * row_h(p);
  if (arcs(p)) {
    edge_arcs(out, p, yy - 18);
    yy += 24 + 22.0 * arcs(p);
  }
  peers(out, p, MARGIN, yy, cell_size(p));
  yy += 40 + (p->n + 1) * cell_size(p);
  if (p->nnics)
    nic_line(out, p, yy);
  fputs("</g>\n", out);
}
