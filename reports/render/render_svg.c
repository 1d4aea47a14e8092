/*
 * The topology pictures of a report (render_svg.h): gathers each
 * machine's model -- its first recorded topology, its matrix rows, the
 * lowest P2P figure of every pair over the documents, the pair's expected
 * GB/s and the state of the link root causes -- draws the fabric, and
 * writes them inline (HTML) or as topology.svg. Also the SVG writer that
 * the topology and network-map pictures share (render_svg_int.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/busid.h"
#include "common/grow.h"
#include "reports/document/fmtnum.h"
#include "reports/document/model.h"
#include "reports/document/p2p_view.h"
#include "reports/render/render_rows.h"
#include "reports/render/render_svg_int.h"

/* ---- the SVG writer ---------------------------------------------------- */

struct gcb__svg_n0 gcb__svg_n0(double x) {
  struct gcb__svg_n0 n;
  if (gcb_fmtnum_f(n.s, x, 0) == 0) /* a tie, NaN, huge: printf's own */
    snprintf(n.s, sizeof n.s, "%.0f", x);
  return n;
}

const char *gcb__svg_fill(enum gcb_cell c) {
  static const char *const fill[] = {"#f1f3f5", "#d9f2de", "#d9f2de",
                                     "#e6eef8", "#fbecc0", "#f8c9c9"};
  return c <= GCB_CELL_FAIL ? fill[c] : fill[0];
}

const char *gcb__svg_stroke(enum gcb_cell c) {
  static const char *const stroke[] = {"#9aa0a6", "#2f855a", "#2f855a",
                                       "#3b6ea8", "#b7791f", "#c0392b"};
  return c <= GCB_CELL_FAIL ? stroke[c] : stroke[0];
}

/* Without printf for the elements written per GPU pair: this process
 * takes printf's slow positional path, libquadmath having registered %Q. */
void gcb__svg_cat(FILE *out, ...) {
  struct gcb__rows r; /* not cleared: its buffer is written before read */
  r.out = out;
  r.n = 0;
  va_list ap;
  va_start(ap, out);
  for (const char *s; (s = va_arg(ap, const char *)) != NULL;)
    gcb__rows_put(&r, s);
  va_end(ap);
  gcb__rows_flush(&r);
}

void gcb__svg_text(FILE *out, double x, double y, const char *attrs,
                   const char *s) {
  gcb__svg_cat(out, "<text x=\"", gcb__svg_n0(x).s, "\" y=\"", gcb__svg_n0(y).s,
               "\"", attrs[0] ? " " : "", attrs, ">", (const char *)NULL);
  gcb__xml(out, "", s, "</text>\n");
}

void gcb__svg_open(FILE *out, double w, double h, const char *attrs) {
  fprintf(out,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" "
          "height=\"%s\" viewBox=\"0 0 %s %s\" font-family=\"sans-serif\"%s>\n",
          gcb__svg_n0(w).s, gcb__svg_n0(h).s, gcb__svg_n0(w).s,
          gcb__svg_n0(h).s, attrs);
}

/* ---- the topology pictures --------------------------------------------- */

bool gcb_svg_topology_any(const struct gcb_report *rep) {
  for (size_t d = 0; d < rep->ndocs; d++) {
    const struct gcb_model *m = rep->docs[d].model;
    for (size_t i = 0; i < m->nnodes; i++)
      if (m->nodes[i].ngpus > 0)
        return true;
  }
  return false;
}

/*
 * What every machine's picture takes from the documents, gathered once
 * per drawing rather than once per machine: each machine's first topology
 * with GPUs, its matrix rows (by machine, in matrix order) and the P2P
 * measurements of all documents (by machine). Looked up per machine, each
 * was a walk over every node, row or case: quadratic in the nodes, most
 * of a 16,384-rank report.
 */
struct p2p_seen {
  long long machine, src, dst;
  size_t order; /* as measured: a stable sort */
  double value;
};

/* A machine's first topology with GPUs: its node in its document's model. */
struct topo_at {
  const struct gcb_model *doc;
  const struct gcb_model_node *node; /* NULL: none */
};

struct gather {
  struct topo_at *topo; /* [machine] */
  size_t *row_first;    /* [machine + 1]: the machine's first matrix row */
  struct p2p_seen *p2p; /* by machine */
  size_t np2p;
};

static void gather_free(struct gather *g) {
  free(g->topo);
  free(g->row_first);
  free(g->p2p);
}

static int by_machine(const void *a, const void *b) {
  const struct p2p_seen *x = a, *y = b;
  if (x->machine != y->machine)
    return x->machine < y->machine ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* The first topology with GPUs of each machine, in document and node
 * order. */
static void gather_topos(struct gather *g, const struct gcb_report *rep,
                         const struct gcb_diagnosis *d) {
  for (size_t doc = 0; doc < rep->ndocs; doc++) {
    const struct gcb_model *model = rep->docs[doc].model;
    for (size_t i = 0; i < model->nnodes; i++) {
      const struct gcb_model_node *n = &model->nodes[i];
      if (n->ngpus == 0)
        continue;
      long long m = gcb_diagnosis_machine(d, rep->docs, (int)doc, n->index);
      if (m >= 0 && (size_t)m < d->nmachines && g->topo[m].node == NULL)
        g->topo[m] = (struct topo_at){model, n};
    }
  }
}

/* Where the matrix rows of each machine start: gcb_matrix_build lists
 * them machine by machine, in machine order. */
static void gather_rows(struct gather *g, const struct gcb_diagnosis *d,
                        const struct gcb_matrix *mx) {
  size_t r = 0;
  for (size_t m = 0; m < d->nmachines; m++) {
    g->row_first[m] = r;
    while (r < mx->n && mx->rows[r].node == (long long)m)
      r++;
  }
  g->row_first[d->nmachines] = r;
}

/* Every P2P measurement of every document with its machine. */
static bool gather_p2p(struct gather *g, const struct gcb_report *rep,
                       const struct gcb_diagnosis *d) {
  size_t cap = 0;
  for (size_t doc = 0; doc < rep->ndocs; doc++) {
    const struct gcb_model *model = rep->docs[doc].model;
    size_t nseen;
    bool *seen = gcb__p2p_walk_scratch(model, &nseen);
    if (seen == NULL)
      return false;
    for (size_t i = 0; i < model->ncases; i++) {
      struct gcb__p2p_walk it;
      struct gcb__p2p_pair e;
      if (!gcb__p2p_walk_begin(&it, model, &model->cases[i], seen, nseen))
        continue;
      while (gcb__p2p_walk_next(&it, &e)) {
        if (!gcb_grow((void **)&g->p2p, &cap, g->np2p, sizeof *g->p2p)) {
          free(seen);
          return false;
        }
        g->p2p[g->np2p] = (struct p2p_seen){
            .machine = gcb_diagnosis_machine(d, rep->docs, (int)doc, e.node),
            .src = e.src,
            .dst = e.dst,
            .order = g->np2p,
            .value = e.value};
        g->np2p++;
      }
    }
    free(seen);
  }
  if (g->np2p > 1)
    qsort(g->p2p, g->np2p, sizeof *g->p2p, by_machine);
  return true;
}

static bool gather(struct gather *g, const struct gcb_report *rep,
                   const struct gcb_diagnosis *d, const struct gcb_matrix *mx) {
  size_t nm = d->nmachines;
  *g = (struct gather){.topo = calloc(nm + 1, sizeof *g->topo),
                       .row_first = calloc(nm + 1, sizeof *g->row_first)};
  if (g->topo == NULL || g->row_first == NULL)
    return false;
  gather_topos(g, rep, d);
  gather_rows(g, d, mx);
  return gather_p2p(g, rep, d);
}

/* The lowest figure of each pair measured on machine p->machine. */
static void take_p2p(struct gcb__svg_pic *p, const struct gather *g) {
  size_t lo = 0, hi = g->np2p;
  while (lo < hi) { /* the machine's first measurement */
    size_t mid = lo + (hi - lo) / 2;
    if (g->p2p[mid].machine < (long long)p->machine)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i < g->np2p && g->p2p[i].machine == (long long)p->machine;
       i++) {
    const struct p2p_seen *e = &g->p2p[i];
    if (e->src < 0 || e->dst < 0 || (size_t)e->src >= p->n ||
        (size_t)e->dst >= p->n)
      continue;
    double *v = &p->p2p[e->src][e->dst];
    if (isnan(*v) || e->value < *v)
      *v = e->value;
  }
}

/* The index of the machine's GPU with that bus id, or -1. */
static long long gpu_by_busid(const struct gcb__svg_pic *p, const char *bus) {
  const struct gcb_model_gpu *g =
      gcb_model_gpu_by_busid(p->doc, p->node->index, bus);
  return g != NULL ? g->index : -1;
}

static void take_links(struct gcb__svg_pic *p, const struct gcb_diagnosis *d) {
  for (size_t a = 0; a < p->n; a++)
    for (size_t b = 0; b < p->n; b++)
      p->edge[a][b] = isnan(p->p2p[a][b]) ? GCB_CELL_NONE : GCB_CELL_PASS;
  for (size_t i = 0; i < d->n; i++) {
    const struct gcb_root_cause *rc = &d->items[i];
    /* a GPU pair's ends ("" for any other link): GPU indices, or -1 */
    long long a = gpu_by_busid(p, rc->comp.ends[0]),
              b = gpu_by_busid(p, rc->comp.ends[1]);
    if (rc->comp.kind != GCB_COMP_LINK ||
        rc->comp.node != (long long)p->machine || a < 0 || b < 0 ||
        (size_t)a >= p->n || (size_t)b >= p->n)
      continue;
    enum gcb_cell st = gcb_root_cause_cell(rc);
    if (st > p->edge[a][b])
      p->edge[a][b] = st;
    /* The link names both ends with "<->"; the name says whether the
     * evidence was one direction ("GPU 2 -> GPU 6"). */
    bool both = strstr(rc->comp.link, "<->") != NULL &&
                strstr(rc->comp.name, "<->") != NULL;
    if (both && st > p->edge[b][a])
      p->edge[b][a] = st;
  }
}

static void pic_fill(struct gcb__svg_pic *p, const struct gather *gat,
                     const struct gcb_diagnosis *d, const struct gcb_matrix *m,
                     size_t machine) {
  memset(p, 0, offsetof(struct gcb__svg_pic, p2p)); /* the pairs: below */
  p->machine = machine;
  p->doc = gat->topo[machine].doc;
  p->node = gat->topo[machine].node;
  if (p->node == NULL)
    return;
  snprintf(p->hostname, sizeof p->hostname, "%s",
           d->machines[machine].hostname);
  snprintf(p->model, sizeof p->model, "%s", d->machines[machine].model);
  for (size_t i = 0; i < p->node->ngpus; i++) {
    const struct gcb_model_gpu *g = &p->node->gpus[i];
    long long idx = g->index;
    if (idx < 0 || idx >= GCB_SVG_MAX_GPUS) {
      p->undrawn++;
      continue;
    }
    p->gpu[idx] = g;
    if ((size_t)idx + 1 > p->n)
      p->n = (size_t)idx + 1;
    char bus[32];
    if (!gcb_busid_canon(g->busid, bus, sizeof bus))
      continue;
    for (size_t k = gat->row_first[machine]; k < gat->row_first[machine + 1];
         k++)
      if (strcmp(m->rows[k].bus_id, bus) == 0)
        p->row[idx] = &m->rows[k];
  }
  p->nnics = p->node->nnics;
  for (size_t a = 0; a < p->n; a++)
    for (size_t b = 0; b < p->n; b++) {
      p->p2p[a][b] = NAN;
      p->expect[a][b] =
          gcb_model_pair_gbps(p->node, (long long)a, (long long)b);
    }
  take_p2p(p, gat);
  take_links(p, d);
  p->diag = d;
}

/* The worst state of machine m: its GPUs' cells and its own root causes. */
static enum gcb_cell machine_state(const struct gcb_diagnosis *d,
                                   const struct gcb_matrix *mx,
                                   const struct gather *g, size_t m) {
  enum gcb_cell st = GCB_CELL_NONE;
  for (size_t j = g->row_first[m]; j < g->row_first[m + 1]; j++)
    for (size_t k = 0; k < GCB_MATRIX_COLS; k++)
      if (mx->rows[j].cell[k].state > st)
        st = mx->rows[j].cell[k].state;
  for (size_t i = 0; i < d->n; i++)
    if (d->items[i].comp.node == (long long)m &&
        gcb_root_cause_cell(&d->items[i]) > st)
      st = gcb_root_cause_cell(&d->items[i]);
  return st;
}

#define FAB_W 180
#define FAB_H 56
#define FAB_WIDTH (16 + 8 * (FAB_W + 12)) /* a row of 8 machines */

/* One box per machine under a bar for the network between them. */
static void fabric(FILE *out, const struct gcb_diagnosis *d,
                   const struct gcb_matrix *mx, const struct gather *g,
                   double y) {
  fprintf(out, "<g class=\"fabric\" transform=\"translate(0,%s)\">\n",
          gcb__svg_n0(y).s);
  gcb__svg_text(out, 16, 20, "font-size=\"15\" font-weight=\"600\"",
                "fabric: every node");
  for (size_t m = 0; m < d->nmachines; m++) {
    enum gcb_cell st = machine_state(d, mx, g, m);
    double x = 16 + (m % 8) * (FAB_W + 12), yy = 40 + (m / 8) * (FAB_H + 40);
    fprintf(out,
            "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
            "stroke=\"#8a94a0\" stroke-width=\"2\"/>\n",
            gcb__svg_n0(x + FAB_W / 2.0).s, gcb__svg_n0(yy - 12).s,
            gcb__svg_n0(x + FAB_W / 2.0).s, gcb__svg_n0(yy).s);
    fprintf(out,
            "<rect class=\"node %s\" id=\"fabric-node-%zu\" x=\"%s\" "
            "y=\"%s\" width=\"%d\" height=\"%d\" rx=\"6\" fill=\"%s\" "
            "stroke=\"%s\"/>\n",
            gcb_cell_name(st), m, gcb__svg_n0(x).s, gcb__svg_n0(yy).s, FAB_W,
            FAB_H, gcb__svg_fill(st), gcb__svg_stroke(st));
    char line[200];
    snprintf(line, sizeof line, "node %zu: %s", m, d->machines[m].hostname);
    gcb__svg_text(out, x + 8, yy + 18, "font-size=\"12\" font-weight=\"600\"",
                  line);
    snprintf(line, sizeof line, "%zu GPUs, %zu ranks: %s", d->machines[m].ngpus,
             d->machines[m].nranks, gcb_cell_name(st));
    gcb__svg_text(out, x + 8, yy + 38, "font-size=\"11\"", line);
  }
  fprintf(out,
          "<rect x=\"16\" y=\"24\" width=\"%zu\" height=\"4\" "
          "fill=\"#8a94a0\"/>\n</g>\n",
          (d->nmachines < 8 ? d->nmachines : 8) * (FAB_W + 12) - 12);
}

/* An inline picture's <figure> and <svg>, w by h, scaled to the page. */
static void figure_open(FILE *out, double w, double h) {
  fprintf(out,
          "<figure class=\"topology\">\n<svg "
          "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %s %s\" "
          "width=\"%s\" font-family=\"sans-serif\" role=\"img\">\n",
          gcb__svg_n0(w).s, gcb__svg_n0(h).s, gcb__svg_n0(w).s);
}

/* Draws every picture at y = 0, one under the other (standalone), or
 * each in its own <figure>; returns their height, their width in *width. */
static double pictures(FILE *out, struct gcb__svg_pic *p,
                       const struct gather *gat, const struct gcb_diagnosis *d,
                       const struct gcb_matrix *mx, struct gcb__svg_fold *fold,
                       bool standalone, double *width) {
  double y = 0;
  for (size_t m = 0; m < d->nmachines; m++) {
    pic_fill(p, gat, d, mx, m);
    if (p->node == NULL || gcb__svg_fold_take(fold, p))
      continue;
    double w = gcb__svg_width(p), h = gcb__svg_height(p);
    if (standalone) {
      gcb__svg_machine(out, p, y);
    } else {
      figure_open(out, w, h);
      gcb__svg_machine(out, p, 0);
      gcb__xml(out, "</svg>\n<figcaption>", p->hostname,
               ": topology, coloured by verdict</figcaption>\n</figure>\n");
    }
    *width = w > *width ? w : *width;
    y += h;
  }
  if (!standalone)
    gcb__svg_fold_write(out, fold);
  if (d->nmachines > 1) {
    double h = 40 + ((d->nmachines + 7) / 8) * (FAB_H + 40) + 20;
    if (standalone) {
      fabric(out, d, mx, gat, y);
    } else {
      figure_open(out, FAB_WIDTH, h);
      fabric(out, d, mx, gat, 0);
      fputs("</svg>\n<figcaption>the fabric</figcaption>\n</figure>\n", out);
    }
    *width = *width > FAB_WIDTH ? *width : FAB_WIDTH;
    y += h;
  }
  return y;
}

/* Draws every picture; standalone: one <svg> document around them all,
 * the pictures drawn into a buffer first, as its size is theirs. */
static enum gcb_status draw(FILE *out, const struct gcb_report *rep,
                            bool standalone, struct gcb_err *err) {
  struct gcb_diagnosis own = {0};
  const struct gcb_diagnosis *d;
  struct gcb_matrix own_mx = {0};
  const struct gcb_matrix *mx = NULL;
  struct gather gat = {0};
  struct gcb__svg_pic *p = malloc(sizeof *p);
  enum gcb_status st = p ? gcb_report_diagnosis_use(rep, &own, &d, err)
                         : gcb_err_set(err, GCB_ENOMEM, "topology picture");
  if (st == GCB_OK)
    st = gcb_matrix_use(rep, d, &own_mx, &mx, err);
  bool oom = st == GCB_OK && !gather(&gat, rep, d, mx);
  /* the page folds healthy machines; topology.svg draws each */
  struct gcb__svg_fold *fold =
      st == GCB_OK && !oom ? gcb__svg_fold_new(standalone ? 0 : d->nmachines)
                           : NULL;
  char *body = NULL;
  size_t len = 0;
  FILE *f = fold == NULL ? NULL
            : standalone ? open_memstream(&body, &len)
                         : out;
  oom |= st == GCB_OK && f == NULL;
  double width = 0, height = 0;
  if (f != NULL)
    height = pictures(f, p, &gat, d, mx, fold, standalone, &width);
  if (f != NULL && standalone) {
    oom |= ferror(f) != 0;
    oom |= fclose(f) != 0; /* then body holds what was drawn */
  }
  if (f != NULL && standalone && !oom) {
    if (height == 0) {
      fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"420\" "
            "height=\"30\" font-family=\"sans-serif\">\n",
            out);
      gcb__svg_text(out, 8, 20, "font-size=\"13\"",
                    "no node topology recorded in these results");
    } else {
      gcb__svg_open(out, width, height, "");
    }
    fwrite(body, 1, len, out);
    fputs("</svg>\n", out);
  }
  if (st == GCB_OK && oom)
    st = gcb_err_set(err, GCB_ENOMEM, "topology picture");
  gcb_matrix_free(&own_mx);
  gather_free(&gat);
  gcb__svg_fold_free(fold);
  gcb_diagnosis_free(&own);
  free(body);
  free(p);
  return st;
}

enum gcb_status gcb_svg_topology(FILE *out, const struct gcb_report *rep,
                                 struct gcb_err *err) {
  return draw(out, rep, false, err);
}

static enum gcb_status render_topology(FILE *out, const struct gcb_report *rep,
                                       struct gcb_err *err) {
  enum gcb_status st = draw(out, rep, true, err);
  return st != GCB_OK ? st : gcb__render_done(out, "topology.svg", err);
}

const struct gcb_renderer gcb_render_topology = {.name = "topology",
                                                 .file = "topology.svg",
                                                 .render = render_topology,
                                                 .directory_only = true};
