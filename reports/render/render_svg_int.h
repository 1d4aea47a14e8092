/*
 * Internal to the pictures (render_svg*.c): one machine's model, gathered
 * once from the documents, the diagnosis and the matrix, and the SVG
 * writer the files share.
 */
#ifndef GCB_RENDER_SVG_INT_H
#define GCB_RENDER_SVG_INT_H

#include "reports/document/model.h"
#include "reports/render/render_svg.h"

#define GCB_SVG_MAX_GPUS 64

struct gcb__svg_pic {
  size_t machine;
  const struct gcb_model *doc;       /* the document it was recorded in */
  const struct gcb_model_node *node; /* the machine's first topology */
  char hostname[GCB_HOSTNAME_SIZE], model[64];
  size_t n, nnics; /* GPUs (topology indices 0..n-1), NICs */
  size_t undrawn;  /* GPUs whose index is outside [0, GCB_SVG_MAX_GPUS) */
  const struct gcb_model_gpu *gpu[GCB_SVG_MAX_GPUS];  /* NULL: no such */
  const struct gcb_matrix_row *row[GCB_SVG_MAX_GPUS]; /* NULL: none */
  const struct gcb_diagnosis *diag;                   /* its NIC root causes */
  /* The pairs, last: only [0, n) x [0, n) is filled and read (the rest
   * is left as it was: 80 KB to clear per machine and picture). */
  double p2p[GCB_SVG_MAX_GPUS][GCB_SVG_MAX_GPUS];    /* lowest; NAN */
  double expect[GCB_SVG_MAX_GPUS][GCB_SVG_MAX_GPUS]; /* GB/s; NAN */
  enum gcb_cell edge[GCB_SVG_MAX_GPUS][GCB_SVG_MAX_GPUS];
};

/* ---- the SVG writer (render_svg.c), for every picture ---------------- */

/* printf's "%.0f" of x, character for character, without printf's
 * arbitrary-precision arithmetic (the pictures print tens of coordinates
 * per GPU, on every node): gcb__svg_n0(x).s, valid to the end of the
 * full expression. */
struct gcb__svg_n0 {
  char s[320]; /* DBL_MAX has 309 digits */
};
struct gcb__svg_n0 gcb__svg_n0(double x);

/* A verdict's colours: the fill of its box, its outline. */
const char *gcb__svg_fill(enum gcb_cell c);
const char *gcb__svg_stroke(enum gcb_cell c);
/* The strings up to a NULL, as fprintf's "%s" would write them. */
void gcb__svg_cat(FILE *out, ...);
/* <text> at (x, y) with extra attributes, s escaped. */
void gcb__svg_text(FILE *out, double x, double y, const char *attrs,
                   const char *s);
/* A picture's <svg> element, w by h pixels in user units, with extra
 * attributes (attrs: "" or starting with a space). */
void gcb__svg_open(FILE *out, double w, double h, const char *attrs);

double gcb__svg_width(const struct gcb__svg_pic *p);
double gcb__svg_height(const struct gcb__svg_pic *p);
/* Draws the machine with its top at y. */
void gcb__svg_machine(FILE *out, const struct gcb__svg_pic *p, double y);

/* Folding healthy machines out of the report page (render_svg_fold.c):
 * beyond GCB__SVG_DRAW_ALL machines, one picture per shape of machine
 * with no finding, the others named under the pictures. */
#define GCB__SVG_DRAW_ALL 16
struct gcb__svg_fold;
/* NULL on ENOMEM. Folds nothing for nmachines <= GCB__SVG_DRAW_ALL. */
struct gcb__svg_fold *gcb__svg_fold_new(size_t nmachines);
void gcb__svg_fold_free(struct gcb__svg_fold *f);
/* True when machine p is folded (not drawn); records it. Call once per
 * machine, in order. */
bool gcb__svg_fold_take(struct gcb__svg_fold *f, const struct gcb__svg_pic *p);
/* The paragraphs naming the folded machines, one per shape. */
void gcb__svg_fold_write(FILE *out, const struct gcb__svg_fold *f);

#endif
