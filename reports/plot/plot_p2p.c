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

#include "common/grow.h"
#include "reports/document/model.h"
#include "reports/document/p2p_view.h"
#include "reports/plot/plot_int.h"

/* GPUs per heatmap and heatmaps per document at most: each node and kind
 * of measurement is one, and a report of a large cluster should not be all
 * heatmaps. What is past them is said in a title. */
#define MAX_GPUS 64
#define MAX_MAPS 16

/* A heatmap's kind of measurement: what its cases share but the node and
 * the ends ("direction=read ..."). */
static void kind_key(const struct gcb_model_case *c, char *buf, size_t size) {
  static const char *const skip[] = {"src",  "dst",  "src_bus_id", "dst_bus_id",
                                     "path", "node", "testcase",   NULL};
  char key[256];
  gcb_model_case_key_except(c, skip, key, sizeof key);
  /* "p2p direction=read ... [GB/s]": the bench and unit go without saying */
  char *unit = strrchr(key, '[');
  if (unit != NULL && unit > key)
    unit[-1] = '\0';
  snprintf(buf, size, "%s", strncmp(key, "p2p", 3) == 0 ? key + 3 : key);
}

struct matrix {
  double v[MAX_GPUS][MAX_GPUS];
  char bus[MAX_GPUS][16]; /* "1b:00", "" unknown */
  size_t n;
  size_t beyond; /* measurements with a GPU index past MAX_GPUS - 1 */
  char unit[32];
};

/* Takes one measurement into the matrix. */
static void take(struct matrix *m, const struct gcb_model_case *c,
                 const struct gcb__p2p_pair *e) {
  char bus[32];
  if (e->src >= MAX_GPUS || e->dst >= MAX_GPUS) {
    m->beyond++;
    return;
  }
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

/* A heatmap's identity: its node and its kind (an index into kinds). */
struct map_id {
  long long node;
  size_t kind;
};

static int map_id_cmp(const void *a, const void *b) {
  const struct map_id *x = a, *y = b;
  if (x->node != y->node)
    return x->node < y->node ? -1 : 1;
  return (x->kind > y->kind) - (x->kind < y->kind);
}

/* A document's heatmaps: the first MAX_MAPS in the order they are first
 * seen, and those past them, to be counted. */
struct maps {
  struct map_id id[MAX_MAPS];
  struct matrix m[MAX_MAPS];
  size_t n;
  char (*kinds)[256];
  size_t nkinds, kcap;
  struct map_id *past; /* one per measurement past the first MAX_MAPS */
  size_t npast, pcap;
};

/* The index of c's kind, added when new; false on ENOMEM. */
static bool kind_of(struct maps *ms, const struct gcb_model_case *c,
                    size_t *k) {
  char key[256];
  kind_key(c, key, sizeof key);
  for (*k = 0; *k < ms->nkinds; ++*k)
    if (strcmp(ms->kinds[*k], key) == 0)
      return true;
  if (!gcb_grow((void **)&ms->kinds, &ms->kcap, ms->nkinds, sizeof key))
    return false;
  memcpy(ms->kinds[ms->nkinds++], key, sizeof key);
  return true;
}

/* How many heatmaps past the first MAX_MAPS: distinct ids in past. */
static size_t maps_past(struct maps *ms) {
  size_t n = 0;
  if (ms->npast == 0) /* past is NULL then, which qsort may not take */
    return 0;
  qsort(ms->past, ms->npast, sizeof *ms->past, map_id_cmp);
  for (size_t i = 0; i < ms->npast; i++)
    n += i == 0 || map_id_cmp(&ms->past[i - 1], &ms->past[i]) != 0;
  return n;
}

/* Takes every measurement of one document into the matrix of its node and
 * kind, in one walk. False on ENOMEM. */
static bool collect(const struct gcb_model *doc, struct maps *ms) {
  size_t nseen;
  bool *seen = gcb__p2p_walk_scratch(doc, &nseen), ok = seen != NULL;
  ms->n = ms->nkinds = ms->npast = 0;
  for (size_t i = 0; ok && i < doc->ncases; i++) {
    const struct gcb_model_case *c = &doc->cases[i];
    struct gcb__p2p_walk it;
    struct gcb__p2p_pair e;
    size_t k;
    if (!gcb__p2p_walk_begin(&it, doc, c, seen, nseen))
      continue;
    ok = kind_of(ms, c, &k);
    while (ok && gcb__p2p_walk_next(&it, &e)) {
      struct map_id id = {e.node, k};
      size_t j = 0;
      while (j < ms->n && map_id_cmp(&ms->id[j], &id) != 0)
        j++;
      if (j == ms->n && j < MAX_MAPS) { /* a new heatmap */
        memset(&ms->m[j], 0, sizeof ms->m[j]);
        for (size_t a = 0; a < MAX_GPUS; a++)
          for (size_t b = 0; b < MAX_GPUS; b++)
            ms->m[j].v[a][b] = NAN;
        ms->id[ms->n++] = id;
      }
      if (j < ms->n)
        take(&ms->m[j], c, &e);
      else if ((ok = gcb_grow((void **)&ms->past, &ms->pcap, ms->npast,
                              sizeof *ms->past)))
        ms->past[ms->npast++] = id;
    }
  }
  free(seen);
  return ok;
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

/* Draws one heatmap; `more` heatmaps of the document not drawn are said
 * in its title, as are the measurements past its GPUs; one of fewer than
 * two GPUs is not drawn. */
static void heatmap(struct gcb__plotter *p, const struct matrix *m,
                    const char *key, size_t more) {
  char title[400], note[160] = "";
  size_t len = 0;
  if (m->beyond)
    len += (size_t)snprintf(note, sizeof note,
                            " (%zu measurement%s past GPU%d not shown)",
                            m->beyond, m->beyond == 1 ? "" : "s", MAX_GPUS - 1);
  if (more)
    snprintf(note + len, sizeof note - len, " (%zu more heatmap%s not shown)",
             more, more == 1 ? "" : "s");
  /* the key gives way to the note within a plot's title */
  int room = (int)(sizeof p->out->items->title - 1 - strlen(note)) -
             (int)strlen(m->unit) - 6;
  snprintf(title, sizeof title, "P2P %s, %.*s%s", m->unit,
           note[0] ? (room > 0 ? room : 0) : (int)sizeof title, key, note);
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
  struct maps *ms = calloc(1, sizeof *ms);
  p->oom |= ms == NULL;
  for (size_t d = 0; d < ndocs && !p->oom; d++) {
    p->oom |= !collect(docs[d].model, ms);
    /* the heatmaps past MAX_MAPS, and any with fewer than two GPUs, are
     * said in the title of the last one drawn */
    size_t more = p->oom ? 0 : maps_past(ms), last = ms->n;
    for (size_t k = 0; k < ms->n; k++)
      more += ms->m[k].n < 2;
    for (size_t k = ms->n; k-- > 0 && last == ms->n;)
      last = ms->m[k].n >= 2 ? k : last;
    for (size_t k = 0; k < ms->n && !p->oom; k++) {
      char key[320];
      snprintf(key, sizeof key, "node %lld:%s", ms->id[k].node,
               ms->kinds[ms->id[k].kind]);
      heatmap(p, &ms->m[k], key, k == last ? more : 0);
    }
  }
  if (ms != NULL) {
    free(ms->kinds);
    free(ms->past);
  }
  free(ms);
}
