/*
 * P2P heatmaps: for each node and each kind of peer-to-peer measurement
 * (a p2p sweep: method, direction, size ...), the source x destination
 * matrix of bandwidths as coloured cells with the value printed in each,
 * rows and columns labelled with the GPU index and PCI bus id, so a slow
 * pair is found on the machine, not only in the matrix. Nvbandwidth's
 * matrices, converted into p2p cases, are drawn the same way. The pairs
 * are walked with p2p_view.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/model.h"
#include "reports/document/p2p_view.h"
#include "reports/plot/plot_int.h"

#define MAX_GPUS 64
/* Heatmaps per document at most: each node and kind of measurement is
 * one, and a report of a large cluster should not be all heatmaps. */
#define MAX_MAPS 16

/* Cases drawn in one matrix share the node and everything but the ends. */
static void matrix_key(const struct gcb__p2p_pair *e,
                       const struct gcb_model_case *c, char *buf, size_t size) {
  static const char *const skip[] = {"src",  "dst",  "src_bus_id", "dst_bus_id",
                                     "path", "node", "testcase",   NULL};
  char key[256];
  gcb_model_case_key_except(c, skip, key, sizeof key);
  /* "p2p direction=read ... [GB/s]": the bench and unit go without saying */
  char *unit = strrchr(key, '[');
  if (unit != NULL && unit > key)
    unit[-1] = '\0';
  snprintf(buf, size, "node %lld:%s", e->node,
           strncmp(key, "p2p", 3) == 0 ? key + 3 : key);
}

struct matrix {
  double v[MAX_GPUS][MAX_GPUS];
  char bus[MAX_GPUS][16]; /* "1b:00", "" unknown */
  size_t n;
  char unit[32];
};

/* Takes one measurement into the matrix. */
static void take(struct matrix *m, const struct gcb_model_case *c,
                 const struct gcb__p2p_pair *e) {
  char bus[32];
  m->v[e->src][e->dst] = e->value;
  for (int end = 0; end < 2; end++) {
    long long g = end ? e->dst : e->src;
    gcb__p2p_pair_busid(e, c, end, bus, sizeof bus);
    if (strlen(bus) >= 12) /* "0000:1b:00.0" -> "1b:00" */
      snprintf(m->bus[g], sizeof m->bus[g], "%.5s", bus + 5);
    if ((size_t)g + 1 > m->n)
      m->n = (size_t)g + 1;
  }
  gcb__plot_label(c->unit, m->unit, sizeof m->unit);
}

/* A document's heatmaps, at most MAX_MAPS, in the order their keys are
 * first seen. */
struct maps {
  char key[MAX_MAPS][320];
  struct matrix m[MAX_MAPS];
  size_t n;
};

/* Takes every measurement of one document into the matrix of its key, in
 * one walk. False on ENOMEM. */
static bool collect(const struct gcb_model *doc, struct maps *ms) {
  size_t nseen;
  bool *seen = gcb__p2p_walk_scratch(doc, &nseen);
  ms->n = 0;
  for (size_t i = 0; seen != NULL && i < doc->ncases; i++) {
    const struct gcb_model_case *c = &doc->cases[i];
    struct gcb__p2p_walk it;
    struct gcb__p2p_pair e;
    if (!gcb__p2p_walk_begin(&it, doc, c, seen, nseen))
      continue;
    while (gcb__p2p_walk_next(&it, &e)) {
      char k[320];
      size_t j = 0;
      matrix_key(&e, c, k, sizeof k);
      while (j < ms->n && strcmp(ms->key[j], k) != 0)
        j++;
      if (j == ms->n && j < MAX_MAPS) { /* a new heatmap */
        memset(&ms->m[j], 0, sizeof ms->m[j]);
        for (size_t a = 0; a < MAX_GPUS; a++)
          for (size_t b = 0; b < MAX_GPUS; b++)
            ms->m[j].v[a][b] = NAN;
        memcpy(ms->key[ms->n++], k, sizeof k);
      }
      if (j < ms->n && e.src < MAX_GPUS && e.dst < MAX_GPUS)
        take(&ms->m[j], c, &e);
    }
  }
  free(seen);
  return seen != NULL;
}

static void tics(FILE *f, const char *axis, const struct matrix *m) {
  fprintf(f, "set %stics (", axis);
  for (size_t g = 0; g < m->n; g++) {
    char label[48], safe[48];
    snprintf(label, sizeof label, "GPU%zu %s", g, m->bus[g]);
    gcb__plot_label(label, safe, sizeof safe);
    fprintf(f, "%s'%s' %zu", g ? ", " : "", safe, g);
  }
  fprintf(f, ")%s\n", axis[0] == 'x' ? " rotate by -30" : "");
}

static void heatmap(struct gcb__plotter *p, const struct matrix *m,
                    const char *key) {
  char title[400];
  snprintf(title, sizeof title, "P2P %s, %s", m->unit, key);
  size_t id = m->n >= 2 ? gcb__plot_begin(p, "p2p", title) : 0;
  if (id == 0)
    return;
  fprintf(p->f,
          "unset grid\nset xrange [-0.5:%zu.5]\nset yrange [%zu.5:-0.5]\n"
          "set xlabel 'destination GPU'\nset ylabel 'source GPU'\n"
          "set palette defined (0 '#e15759', 0.5 '#f1ce63', 1 '#59a14f')\n"
          "set cbrange [0:*]\n",
          m->n - 1, m->n - 1);
  tics(p->f, "x", m);
  tics(p->f, "y", m);
  fprintf(p->f, "$p%zu << EOD\n", id);
  for (size_t a = 0; a < m->n; a++)
    for (size_t b = 0; b < m->n; b++)
      fprintf(p->f, "%.10g%c", m->v[a][b], b + 1 < m->n ? ' ' : '\n');
  fprintf(p->f,
          "EOD\nplot $p%zu matrix with image pixels notitle, \\\n  $p%zu "
          "matrix using 1:2:($3 == $3 ? sprintf('%%.0f', $3) : '') with "
          "labels font ',8' notitle\n",
          id, id);
}

void gcb__plot_p2p(struct gcb__plotter *p, const struct gcb_doc *docs,
                   size_t ndocs) {
  struct maps *ms = malloc(sizeof *ms);
  p->oom |= ms == NULL;
  for (size_t d = 0; d < ndocs && !p->oom; d++) {
    p->oom |= !collect(docs[d].model, ms);
    for (size_t k = 0; k < ms->n && !p->oom; k++)
      heatmap(p, &ms->m[k], ms->key[k]);
  }
  free(ms);
}
