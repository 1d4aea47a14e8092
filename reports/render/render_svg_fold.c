/*
 * Which machines the report page draws (render_svg_int.h): on a cluster
 * of more than GCB__SVG_DRAW_ALL machines, a machine with no finding on
 * any of its components is drawn only when it is the first of its shape
 * (GPU model, GPU and NIC count, GPUs not drawn); the others are named under
 * the pictures, folded into the one drawn. At 2,048 nodes a picture per node
 * made the page 80 MB, almost all of it pictures of healthy machines
 * that say nothing the first one does not. topology.svg still draws
 * every machine.
 */
#include <stdlib.h>
#include <string.h>

#include "reports/render/render_svg_int.h"

#define SHAPES 32     /* shapes folded; a machine of another is drawn */
#define NAMES_SHOWN 8 /* names listed per shape; the rest counted */

struct shape {
  char model[64], drawn[GCB_HOSTNAME_SIZE];
  size_t ngpus, nnics, undrawn, folded;
  char names[NAMES_SHOWN][GCB_HOSTNAME_SIZE];
};
/* copied whole, with its NUL (gcb__svg_fold_take) */
_Static_assert(sizeof((struct shape *)0)->drawn ==
                       sizeof((struct gcb__svg_pic *)0)->hostname &&
                   sizeof((struct shape *)0)->model ==
                       sizeof((struct gcb__svg_pic *)0)->model,
               "a picture's host and model fit a shape's");

struct gcb__svg_fold {
  bool active;
  size_t n;
  struct shape s[SHAPES];
};

struct gcb__svg_fold *gcb__svg_fold_new(size_t nmachines) {
  struct gcb__svg_fold *f = calloc(1, sizeof *f);
  if (f != NULL)
    f->active = nmachines > GCB__SVG_DRAW_ALL;
  return f;
}

void gcb__svg_fold_free(struct gcb__svg_fold *f) {
  free(f);
}

/* Whether nothing on the machine asks for a look: no cell of its GPUs
 * and no root cause placed on it (a pair's state is one) above "ok"
 * (explained away). */
static bool machine_clear(const struct gcb__svg_pic *p) {
  for (size_t g = 0; g < p->n; g++)
    for (size_t c = 0; p->row[g] != NULL && c < GCB_MATRIX_COLS; c++)
      if (p->row[g]->cell[c].state > GCB_CELL_CLEARED)
        return false;
  for (size_t i = 0; p->diag != NULL && i < p->diag->n; i++) {
    const struct gcb_root_cause *rc = &p->diag->items[i];
    if (rc->comp.node == (long long)p->machine &&
        gcb_root_cause_cell(rc) > GCB_CELL_CLEARED)
      return false;
  }
  return true;
}

static struct shape *shape_of(struct gcb__svg_fold *f,
                              const struct gcb__svg_pic *p) {
  for (size_t i = 0; i < f->n; i++)
    if (f->s[i].ngpus == p->n && f->s[i].nnics == p->nnics &&
        f->s[i].undrawn == p->undrawn && strcmp(f->s[i].model, p->model) == 0)
      return &f->s[i];
  return NULL;
}

bool gcb__svg_fold_take(struct gcb__svg_fold *f, const struct gcb__svg_pic *p) {
  if (!f->active || !machine_clear(p))
    return false;
  struct shape *s = shape_of(f, p);
  if (s == NULL) {
    if (f->n < SHAPES) {
      s = &f->s[f->n++];
      memcpy(s->model, p->model, sizeof s->model);
      memcpy(s->drawn, p->hostname, sizeof s->drawn);
      s->ngpus = p->n;
      s->nnics = p->nnics;
      s->undrawn = p->undrawn;
    }
    return false; /* the first of its shape is drawn */
  }
  if (s->folded < NAMES_SHOWN)
    memcpy(s->names[s->folded], p->hostname, sizeof s->names[0]);
  s->folded++;
  return true;
}

void gcb__svg_fold_write(FILE *out, const struct gcb__svg_fold *f) {
  for (size_t i = 0; i < f->n; i++) {
    const struct shape *s = &f->s[i];
    if (s->folded == 0)
      continue;
    fprintf(out, "<p class=\"folded\">%zu more machine(s) of the shape of ",
            s->folded);
    gcb_escape_xml(out, s->drawn);
    fprintf(out, " (%zu x ", s->ngpus);
    gcb_escape_xml(out, s->model[0] ? s->model : "GPU of unknown model");
    fprintf(out, ", %zu NIC(s)", s->nnics);
    if (s->undrawn)
      fprintf(out, "; %zu more GPU(s) each not drawn: index outside 0..%d",
              s->undrawn, GCB_SVG_MAX_GPUS - 1);
    fputs(") have no finding and are not drawn here "
          "(<a href=\"topology.svg\">topology.svg</a> draws each): ",
          out);
    size_t shown = s->folded < NAMES_SHOWN ? s->folded : NAMES_SHOWN;
    for (size_t k = 0; k < shown; k++)
      gcb__xml(out, k ? ", " : "", s->names[k], "");
    if (s->folded > shown)
      fprintf(out, " and %zu more", s->folded - shown);
    fputs(".</p>\n", out);
  }
}
