/*
 * The diagnosis: from findings (evidence) to root causes (the answer), in
 * one pass through four steps that call only downwards:
 *   1. machines: nodes merged across documents (by hostname, or a one-node
 *      document of another tool by its GPUs' bus ids);
 *   2. placing: each warn/fail finding at the component it implicates, by
 *      the grouping its kind's descriptor names (kinds.h: gcb_group); a
 *      second pass attaches consequences (imbalance, collective bandwidth)
 *      to a component the first found; node-wide symptoms collapse into
 *      one node;
 *   3. statements: each component's worst evidence stated once, in the
 *      sentence form its kind's descriptor names (gcb_say), sources that
 *      measured one quantity reconciled, links at rest judged under load;
 *   4. the root causes built, ordered, and the small formatting helpers
 *      every output of the verdict shares (units scaled to the figure,
 *      enough digits to show why a limit is missed).
 */
#include "reports/analysis/diagnose.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/busid.h"
#include "common/grow.h"
#include "reports/analysis/analyze_rules.h"
#include "reports/document/p2p_view.h"

/* A component being built: its key and the findings assigned to it. */
struct comp {
  struct gcb_component c;
  int doc; /* ranks are per document; -1 for the other kinds */
};

struct dx {
  const struct gcb_doc *docs;
  size_t ndocs;
  const struct gcb_findings *fs;
  const struct gcb_thresholds *t;
  struct gcb_diagnosis *out;
  struct comp *comps;
  size_t ncomps, capcomps;
  long *comp_of; /* per finding: component index, -1 */
  enum gcb_family *fam_of;
  struct gcb_err *err;
};

const char *gcb_comp_kind_name(enum gcb_comp_kind k) {
  static const char *const names[] = {"gpu", "link", "rank", "node", "run"};
  return k <= GCB_COMP_RUN ? names[k] : "?";
}

const char *gcb_family_name(enum gcb_family f) {
  static const char *const names[] = {"GEMM",      "device memory", "H2D",
                                      "D2H",       "GPU peers",     "health",
                                      "placement", "collectives",   "run"};
  return f < GCB_FAM_COUNT ? names[f] : "?";
}

/* ---- machines ------------------------------------------------------------ */

/* A node's GPUs (*count of them; NULL when memory runs out): its topology's,
 * then its ranks'. A rank's GPU that the source names by index alone (an
 * nvbandwidth matrix without its device lines, a log without bus ids) is
 * known by that index, unless the topology has a GPU N: counted, never
 * matched by bus id. */
static struct gcb_machine_gpu *node_gpus(const struct gcb_model *m,
                                         const struct gcb_model_node *node,
                                         size_t *count) {
  size_t n = 0, most = node->ngpus + node->nranks;
  struct gcb_machine_gpu *out = malloc(most * sizeof *out + 1);
  struct gcb_busid *ids = malloc(most * sizeof *ids + 1); /* out[k]'s parsed */
  if (out == NULL || ids == NULL) {
    free(out);
    free(ids);
    return NULL;
  }
  for (size_t g = 0; g < node->ngpus; g++)
    if (gcb_busid_canon(node->gpus[g].busid, out[n].bus_id,
                        sizeof out[n].bus_id)) {
      gcb_busid_parse(out[n].bus_id, &ids[n], NULL);
      out[n++].index = -1;
    }
  for (size_t k = 0; k < node->nranks; k++) {
    const struct gcb_model_rank *r = gcb_model_rank(m, node->ranks[k]);
    struct gcb_busid id;
    bool seen = false;
    if (r == NULL)
      continue;
    if (gcb_busid_parse(r->device_bus_id, &id, NULL) != GCB_OK) {
      for (size_t i = 0; i < n && !seen; i++)
        seen = out[i].bus_id[0] == '\0' && out[i].index == r->device_index;
      if (!seen && r->has_device && r->device_index >= 0 &&
          gcb_model_gpu(m, node->index, r->device_index) == NULL) {
        ids[n] = (struct gcb_busid){.domain = UINT32_MAX}; /* matches none */
        out[n++] = (struct gcb_machine_gpu){.index = r->device_index};
      }
      continue;
    }
    /* compared parsed and formatted only when new (the canonical form is
     * one to one): a rank's GPU is mostly one of the topology's */
    for (size_t i = 0; i < n && !seen; i++)
      seen = ids[i].domain == id.domain && ids[i].bus == id.bus &&
             ids[i].dev == id.dev && ids[i].func == id.func;
    if (!seen) {
      ids[n] = id;
      gcb_busid_format(&id, out[n].bus_id, sizeof out[n].bus_id);
      out[n++].index = -1;
    }
  }
  free(ids);
  *count = n;
  return out;
}

void gcb_machine_gpu_show(const struct gcb_machine_gpu *g, char *buf,
                          size_t size) {
  if (g->bus_id[0] != '\0')
    gcb_view_copy(buf, size, g->bus_id);
  else
    snprintf(buf, size, "device %lld", g->index);
}

/* The model of a node's GPUs: its topology's first, else its first
 * rank's device; "". */
static const char *node_model(const struct gcb_model *m,
                              const struct gcb_model_node *node) {
  if (node->ngpus > 0)
    return node->gpus[0].model;
  const struct gcb_model_rank *r =
      node->nranks > 0 ? gcb_model_rank(m, node->ranks[0]) : NULL;
  return r != NULL && r->device_name != NULL ? r->device_name : "";
}

/* The machine a one-node document of another tool ran on: the only
 * earlier machine holding every one of its GPUs (by bus id), as the
 * converter joined its topology; -1. */
static long long machine_by_gpus(const struct dx *x,
                                 const struct gcb_machine_gpu *b, size_t n) {
  long long found = -1;
  size_t named = 0; /* GPUs known by index alone join nothing */
  for (size_t i = 0; i < n; i++)
    named += b[i].bus_id[0] != '\0';
  for (size_t m = 0; m < x->out->nmachines && named > 0; m++) {
    const struct gcb_machine *mc = &x->out->machines[m];
    size_t hit = 0;
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < mc->ngpus && b[i].bus_id[0] != '\0'; k++)
        hit += strcmp(b[i].bus_id, mc->gpus[k].bus_id) == 0;
    if (hit == named) {
      if (found >= 0)
        return -1; /* two candidates: do not guess */
      found = (long long)m;
    }
  }
  return found;
}

/* A new machine of node's GPUs b[0..n) (owned: freed on failure); -1. */
static long long add_machine(struct dx *x, const struct gcb_model *model,
                             const struct gcb_model_node *node,
                             struct gcb_machine_gpu *b, size_t n) {
  struct gcb_diagnosis *d = x->out;
  size_t m = d->nmachines;
  struct gcb_machine *grown = realloc(d->machines, (m + 1) * sizeof *grown);
  if (grown == NULL) {
    free(b);
    return -1;
  }
  d->machines = grown;
  struct gcb_machine *mc = &d->machines[m];
  *mc = (struct gcb_machine){.ngpus = n, .nranks = node->nranks, .gpus = b};
  gcb_analyze_copy(mc->hostname, sizeof mc->hostname, node->hostname);
  gcb_view_copy(mc->model, sizeof mc->model, node_model(model, node));
  d->nmachines++;
  return (long long)m;
}

/* machine_of[doc][i] is the machine of the model's node i. */
static enum gcb_status map_doc(struct dx *x, size_t doc) {
  const struct gcb_model *model = x->docs[doc].model;
  size_t nn = model->nnodes;
  x->out->machine_of[doc] = calloc(nn + 1, sizeof **x->out->machine_of);
  if (x->out->machine_of[doc] == NULL)
    return gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
  for (size_t i = 0; i < nn; i++) {
    const struct gcb_model_node *node = &model->nodes[i];
    size_t n;
    struct gcb_machine_gpu *b = node_gpus(model, node, &n);
    long long m = -1;
    if (b == NULL)
      return gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
    for (size_t k = 0; k < x->out->nmachines && m < 0; k++)
      if (node->hostname[0] &&
          strcmp(x->out->machines[k].hostname, node->hostname) == 0)
        m = (long long)k;
    if (m < 0 && nn == 1)
      m = machine_by_gpus(x, b, n);
    if (m >= 0)
      free(b);
    else
      m = add_machine(x, model, node, b, n);
    if (m < 0)
      return gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
    x->out->machine_of[doc][i] = m;
  }
  return GCB_OK;
}

long long gcb_diagnosis_machine(const struct gcb_diagnosis *d,
                                const struct gcb_doc *docs, int doc,
                                long long node) {
  if (doc < 0 || (size_t)doc >= d->ndocs || node < 0 || d->machine_of == NULL ||
      d->machine_of[doc] == NULL)
    return -1;
  const struct gcb_model *m = docs[doc].model;
  const struct gcb_model_node *n = gcb_model_node(m, node);
  return n != NULL ? d->machine_of[doc][n - m->nodes] : -1;
}

static long long dx_machine(const struct dx *x, int doc, long long node) {
  return gcb_diagnosis_machine(x->out, x->docs, doc, node);
}

/* ---- components ---------------------------------------------------------- */

/* Whether two links are one GPU pair: a pair is unordered, its directions
 * and uni/bidir figures are evidence of the one pair. */
static bool same_pair(const struct gcb_component *k,
                      const struct gcb_component *c) {
  const char(*a)[32] = k->ends, (*b)[32] = c->ends;
  if (a[0][0] == '\0' || b[0][0] == '\0')
    return false;
  return (strcmp(a[0], b[0]) == 0 && strcmp(a[1], b[1]) == 0) ||
         (strcmp(a[0], b[1]) == 0 && strcmp(a[1], b[0]) == 0);
}

/* A pair seen in another direction (or uni and bidir) than its name says
 * is named for both: "GPU 2 <-> GPU 6", "a<->b". */
static void both_ways(struct gcb_component *k) {
  char tmp[sizeof k->local_name];
  const char *one = strstr(k->local_name, " -> ");
  if (strstr(k->link, "<->") != NULL || k->ends[0][0] == '\0')
    return;
  snprintf(k->link, sizeof k->link, "%s<->%s", k->ends[0], k->ends[1]);
  if (one != NULL) {
    snprintf(tmp, sizeof tmp, "%.*s <-> %s", (int)(one - k->local_name),
             k->local_name, one + 4);
    gcb_view_copy(k->local_name, sizeof k->local_name, tmp);
  }
}

static bool same_comp(const struct comp *a, const struct gcb_component *c,
                      int doc) {
  const struct gcb_component *k = &a->c;
  if (k->kind != c->kind || k->node != c->node)
    return false;
  switch (c->kind) {
  case GCB_COMP_GPU:
    return c->bus_id[0] ? strcmp(k->bus_id, c->bus_id) == 0
                        : k->gpu == c->gpu && k->bus_id[0] == '\0';
  case GCB_COMP_LINK:
    return strcmp(k->link, c->link) == 0 || same_pair(k, c);
  case GCB_COMP_RANK:
    return a->doc == doc && k->rank == c->rank &&
           strcmp(k->ranks, c->ranks) == 0;
  default: /* the run or the run against its baseline; the node or its
            * BLAS (at_node, below) */
    return strcmp(k->link, c->link) == 0;
  }
}

static long dx_comp(struct dx *x, const struct gcb_component *c, int doc) {
  for (size_t i = 0; i < x->ncomps; i++)
    if (same_comp(&x->comps[i], c, doc)) {
      if (c->kind == GCB_COMP_LINK && strcmp(x->comps[i].c.link, c->link))
        both_ways(&x->comps[i].c);
      return (long)i;
    }
  if (!gcb_grow((void **)&x->comps, &x->capcomps, x->ncomps,
                sizeof *x->comps)) {
    gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
    return -1;
  }
  x->comps[x->ncomps] =
      (struct comp){.c = *c, .doc = c->kind == GCB_COMP_RANK ? doc : -1};
  return (long)x->ncomps++;
}

/* Whether component c (of its machine) is at GPU g: by bus id its GPU,
 * host link, rank, or a pair link naming it; by index alone a component
 * without a bus id whose GPU index is g's (its GPU, host link, rank). */
static bool at_gpu_id(const struct gcb_component *c,
                      const struct gcb_machine_gpu *g) {
  if (g->bus_id[0] == '\0')
    return c->bus_id[0] == '\0' && c->gpu >= 0 && c->gpu == g->index;
  if (c->kind == GCB_COMP_LINK)
    return strstr(c->link, g->bus_id) != NULL;
  return strcmp(c->bus_id, g->bus_id) == 0;
}

/* ==== placing findings at components ==================================== */

/* Places finding f: the component (filled by the function) and family. */
typedef bool locate_fn(const struct dx *x, const struct gcb_finding *f,
                       struct gcb_component *c, enum gcb_family *fam);

/* ---- helpers ------------------------------------------------------------- */

/* The case a finding is about: the one it points at, else (a finding
 * made without it: a test's, an older rule's) the case of its document
 * whose title is its subject; NULL. */
static const struct gcb_model_case *dx_case(const struct dx *x,
                                            const struct gcb_finding *f) {
  if (f->bench_case != NULL)
    return f->bench_case;
  if (f->where.doc < 0 || (size_t)f->where.doc >= x->ndocs ||
      f->where.subject[0] == '\0')
    return NULL;
  const struct gcb_model *m = x->docs[f->where.doc].model;
  char title[sizeof f->where.subject];
  for (size_t i = 0; i < m->ncases; i++) {
    gcb_model_case_title(&m->cases[i], title, sizeof title);
    if (strcmp(title, f->where.subject) == 0)
      return &m->cases[i];
  }
  return NULL;
}

/* A finding's family: its kind's, else its case's, else `otherwise`. */
static enum gcb_family family_of(const struct dx *x,
                                 const struct gcb_finding *f,
                                 enum gcb_family otherwise) {
  if (f->kind->family != GCB_FAM_OF_CASE)
    return f->kind->family;
  const struct gcb_model_case *cs = dx_case(x, f);
  return cs != NULL ? gcb_model_case_family(cs) : otherwise;
}

/* A blank component of kind k at machine m (-1: none known, or the run). */
static void at_machine(const struct dx *x, long long m, enum gcb_comp_kind k,
                       struct gcb_component *c) {
  *c = (struct gcb_component){.kind = k, .node = m, .rank = -1, .gpu = -1};
  if (m >= 0 && (size_t)m < x->out->nmachines)
    gcb_analyze_copy(c->hostname, sizeof c->hostname,
                     x->out->machines[m].hostname);
}

/* A blank component of kind k at the machine of the finding's node. */
static void at_machine_of(const struct dx *x, const struct gcb_finding *f,
                          enum gcb_comp_kind k, struct gcb_component *c) {
  at_machine(x, dx_machine(x, f->where.doc, f->where.node), k, c);
}

/* A node's own name ("node h1", "node h1 BLAS"): it says its host. */
static void node_name(struct gcb_component *c, const char *what) {
  snprintf(c->local_name, sizeof c->local_name, "node %s%s", c->hostname, what);
  c->names_host = true;
}

/* A GPU's name on its node: "GPU 1 0000:3b:00.0", or "GPU 3" for one
 * known by index alone. */
static void gpu_name(struct gcb_component *c) {
  snprintf(c->local_name, sizeof c->local_name, "GPU %lld%s%s", c->gpu,
           c->bus_id[0] ? " " : "", c->bus_id);
}

/* The GPU of rank `rank` of document doc. */
static void gpu_of_rank(const struct dx *x, int doc, long long rank,
                        struct gcb_component *c) {
  struct gcb_place p;
  gcb_model_place(x->docs[doc].model, rank, &p);
  at_machine(x, dx_machine(x, doc, p.node), GCB_COMP_GPU, c);
  c->gpu = p.gpu;
  gcb_busid_canon(p.bus_id, c->bus_id, sizeof c->bus_id);
  gpu_name(c);
}

static void to_host_link(struct gcb_component *c) {
  c->kind = GCB_COMP_LINK;
  snprintf(c->link, sizeof c->link, "%s<->host",
           c->bus_id[0] ? c->bus_id : "GPU");
  snprintf(c->local_name, sizeof c->local_name, "GPU %lld <-> host", c->gpu);
}

static void rank_comp(const struct dx *x, int doc, long long rank,
                      struct gcb_component *c) {
  gpu_of_rank(x, doc, rank, c);
  c->kind = GCB_COMP_RANK;
  c->rank = rank;
  if (c->gpu >= 0)
    snprintf(c->local_name, sizeof c->local_name, "rank %lld (GPU %lld)", rank,
             c->gpu);
  else
    snprintf(c->local_name, sizeof c->local_name, "rank %lld", rank);
}

/* What a rank measured on: its GPU, or the rank itself where it has none
 * (the host backend, a rank the document gives no device). */
static void device_of_rank(const struct dx *x, int doc, long long rank,
                           struct gcb_component *c) {
  gpu_of_rank(x, doc, rank, c);
  if (c->gpu < 0 && c->bus_id[0] == '\0')
    rank_comp(x, doc, rank, c);
}

/* What a rank measured on in family fam: its device (device_of_rank), or
 * for a copy to or from the host (H2D, D2H) that GPU's host link. */
static void measured_on(const struct dx *x, int doc, long long rank,
                        enum gcb_family fam, struct gcb_component *c) {
  device_of_rank(x, doc, rank, c);
  if (c->kind == GCB_COMP_GPU && (fam == GCB_FAM_H2D || fam == GCB_FAM_D2H))
    to_host_link(c);
}

/* The pair of a p2p case as a link, "src->dst" by bus id ("src<->dst"
 * for a figure of both directions, gcb__case_p2p_arrow): node `node`'s
 * measurement, or with node -1 the lowest one (the walk over the case's
 * measurements, p2p_view.h). */
static bool pair_comp(const struct dx *x, int doc,
                      const struct gcb_model_case *c, long long node,
                      struct gcb_component *out) {
  const struct gcb_model *model = x->docs[doc].model;
  struct gcb__p2p_walk it;
  struct gcb__p2p_pair m, e;
  bool found = false;
  size_t nseen = 0;
  bool *seen = c != NULL ? gcb__p2p_walk_scratch(model, &nseen) : NULL;
  if (seen == NULL || !gcb__p2p_walk_begin(&it, model, c, seen, nseen)) {
    free(seen);
    return false;
  }
  while (gcb__p2p_walk_next(&it, &e))
    if (node >= 0 ? e.node == node : !found || e.value < m.value) {
      m = e;
      found = true;
    }
  free(seen);
  if (!found)
    return false;
  at_machine(x, dx_machine(x, doc, m.node), GCB_COMP_LINK, out);
  out->gpu = m.src;
  gcb__p2p_pair_busid(&m, c, false, out->bus_id, sizeof out->bus_id);
  gcb__p2p_pair_end(&m, c, false, out->ends[0], sizeof out->ends[0]);
  gcb__p2p_pair_end(&m, c, true, out->ends[1], sizeof out->ends[1]);
  const char *arrow = gcb__case_p2p_arrow(c);
  snprintf(out->link, sizeof out->link, "%s%s%s", out->ends[0], arrow,
           out->ends[1]);
  snprintf(out->local_name, sizeof out->local_name, "GPU %lld %s GPU %lld",
           m.src, arrow, m.dst);
  return true;
}

/* ---- first pass ---------------------------------------------------------- */

static bool at_run(const struct dx *x, const struct gcb_finding *f,
                   struct gcb_component *c, enum gcb_family *fam) {
  at_machine(x, -1, GCB_COMP_RUN, c);
  snprintf(c->local_name, sizeof c->local_name, "run");
  /* also where others fail */
  const struct gcb_model_case *cs = dx_case(x, f);
  *fam = cs != NULL ? gcb_model_case_family(cs) : GCB_FAM_RUN;
  return true;
}

/* The comparison with a baseline: the run against its past, one cause
 * (regressions, cases gone, differences that make it less comparable). */
static bool at_baseline(const struct dx *x, const struct gcb_finding *f,
                        struct gcb_component *c, enum gcb_family *fam) {
  at_run(x, f, c, fam);
  snprintf(c->link, sizeof c->link, "baseline");
  snprintf(c->local_name, sizeof c->local_name, "run vs baseline");
  return true;
}

/* A finding about a rank's device (validation, slow rank). */
static bool at_gpu(const struct dx *x, const struct gcb_finding *f,
                   struct gcb_component *c, enum gcb_family *fam) {
  if (f->where.rank < 0 || f->where.doc < 0)
    return false;
  device_of_rank(x, f->where.doc, f->where.rank, c);
  *fam = family_of(x, f, GCB_FAM_GEMM);
  return true;
}

/* An error one rank met: what its benchmark measures there, in the
 * benchmark's family. The rank's GPU (gemm, membw, burn), that GPU's host
 * link (pcie), the node (p2p: the measuring rank copies between two GPUs
 * of its node, not only its own; the rank where its node is not known),
 * the rank itself (a collective, the others). An error of no rank goes to
 * the run. */
static bool at_error(const struct dx *x, const struct gcb_finding *f,
                     struct gcb_component *c, enum gcb_family *fam) {
  if (f->error == NULL || f->where.rank < 0 || f->where.doc < 0)
    return false;
  *fam = gcb_model_error_family(f->error);
  if (*fam == GCB_FAM_PEERS && f->where.node >= 0) {
    at_machine_of(x, f, GCB_COMP_NODE, c);
    node_name(c, "");
  } else if (*fam == GCB_FAM_GEMM || *fam == GCB_FAM_DEVMEM ||
             *fam == GCB_FAM_H2D || *fam == GCB_FAM_D2H)
    measured_on(x, f->where.doc, f->where.rank, *fam, c);
  else
    rank_comp(x, f->where.doc, f->where.rank, c);
  return true;
}

/* A copy between a GPU and the host, or a link the topology shows slow. */
static bool at_link(const struct dx *x, const struct gcb_finding *f,
                    struct gcb_component *c, enum gcb_family *fam) {
  const char *host = strstr(f->where.link, "<->host");
  at_machine_of(x, f, GCB_COMP_LINK, c);
  if (host == NULL) { /* a NIC: "mlx5_0 0000:17:00.0" */
    gcb_view_copy(c->link, sizeof c->link, f->where.link);
    snprintf(c->local_name, sizeof c->local_name, "NIC %s", f->where.link);
    *fam = GCB_FAM_HEALTH;
    return f->where.link[0] != '\0';
  }
  c->gpu = f->where.gpu;
  gcb_busid_canon(f->where.bus_id, c->bus_id, sizeof c->bus_id);
  to_host_link(c);
  *fam = family_of(x, f, GCB_FAM_H2D);
  return true;
}

static bool at_pair(const struct dx *x, const struct gcb_finding *f,
                    struct gcb_component *c, enum gcb_family *fam) {
  *fam = GCB_FAM_PEERS;
  return f->where.doc >= 0 &&
         pair_comp(x, f->where.doc, dx_case(x, f), f->where.node, c);
}

/* The network map (rules_netmap.c): a host's own link ("HOST link") or
 * one path between two hosts ("A -> B"), named as the finding names it. */
static bool at_network(const struct dx *x, const struct gcb_finding *f,
                       struct gcb_component *c, enum gcb_family *fam) {
  at_machine_of(x, f, GCB_COMP_LINK, c);
  gcb_view_copy(c->link, sizeof c->link, f->where.link);
  gcb_view_copy(c->local_name, sizeof c->local_name, f->where.link);
  c->names_host = true; /* "HOST link", "A -> B" */
  *fam = GCB_FAM_PEERS;
  return f->where.doc >= 0 && f->where.link[0] != '\0';
}

/* Lateness and placement: a rank, or several ranks of one node. */
static bool at_rank(const struct dx *x, const struct gcb_finding *f,
                    struct gcb_component *c, enum gcb_family *fam) {
  *fam = family_of(x, f, GCB_FAM_RUN);
  if (f->where.doc < 0)
    return false;
  if (f->where.ranks[0] == '\0' && f->where.rank >= 0) {
    rank_comp(x, f->where.doc, f->where.rank, c);
    return true;
  }
  at_machine_of(x, f, GCB_COMP_RANK, c);
  gcb_view_copy(c->ranks, sizeof c->ranks, f->where.ranks);
  if (f->where.ranks[0] == '\0' && f->where.gpu >= 0) { /* an idle GPU */
    c->kind = GCB_COMP_GPU;
    c->gpu = f->where.gpu;
    gcb_busid_canon(f->where.bus_id, c->bus_id, sizeof c->bus_id);
    gpu_name(c);
  } else if (f->where.ranks[0] == '\0') {
    c->kind = GCB_COMP_NODE;
    node_name(c, "");
  } else
    snprintf(c->local_name, sizeof c->local_name, "ranks %s", c->ranks);
  return true;
}

/* A finding about a whole node (where.node): every rank of it, not one. */
static bool at_whole_node(const struct dx *x, const struct gcb_finding *f,
                          struct gcb_component *c, enum gcb_family *fam) {
  *fam = family_of(x, f, GCB_FAM_RUN);
  if (f->where.doc < 0 || f->where.node < 0)
    return false;
  at_machine_of(x, f, GCB_COMP_NODE, c);
  node_name(c, "");
  return true;
}

/* The BLAS kernels a node's host GEMM ran (rules_blas.c, from the header
 * of the node's first rank): the node's CPU and its library, not a rank;
 * a component of its own ("BLAS" in link), which takes no consequence:
 * the same library on every rank makes none of them wait for another. */
static bool at_node(const struct dx *x, const struct gcb_finding *f,
                    struct gcb_component *c, enum gcb_family *fam) {
  *fam = GCB_FAM_GEMM;
  if (f->where.doc < 0)
    return false;
  at_machine_of(x, f, GCB_COMP_NODE, c);
  snprintf(c->link, sizeof c->link, "BLAS");
  node_name(c, " BLAS");
  return true;
}

/* A per-rank acceptance check: the rank's GPU, its host link (pcie), its
 * pair (p2p) or the rank itself (collectives); for min/max of a case, the
 * extreme rank's (the lowest pair for p2p, none for collectives). */
static bool at_check_rank(const struct dx *x, const struct gcb_finding *f,
                          struct gcb_component *c, enum gcb_family *fam) {
  const struct gcb_model_case *cs = dx_case(x, f);
  bool max = strcmp(f->metric, "max") == 0;
  bool extreme = max || strcmp(f->metric, "min") == 0;
  if (cs == NULL || (!extreme && f->where.rank < 0))
    return false;
  *fam = gcb_model_case_family(cs);
  if (*fam == GCB_FAM_PEERS)
    return pair_comp(x, f->where.doc, cs, extreme ? -1 : f->where.node, c);
  if (*fam == GCB_FAM_COLL || *fam == GCB_FAM_RUN) {
    if (!extreme)
      rank_comp(x, f->where.doc, f->where.rank, c);
    return !extreme;
  }
  long long r = !extreme ? f->where.rank
                : max    ? cs->summary.max_rank
                         : cs->summary.min_rank;
  if (r < 0)
    return false;
  measured_on(x, f->where.doc, r, *fam, c);
  return true;
}

/* late_us: the rank the case names as the latest. */
static bool at_late_rank(const struct dx *x, const struct gcb_finding *f,
                         struct gcb_component *c, enum gcb_family *fam) {
  const struct gcb_model_case *cs = dx_case(x, f);
  long long r = cs != NULL ? cs->summary.late_rank : -1;
  *fam = GCB_FAM_COLL;
  if (r < 0)
    return false;
  rank_comp(x, f->where.doc, r, c);
  return true;
}

/* wrong values in a case: the first rank that had them. */
static bool at_wrong_rank(const struct dx *x, const struct gcb_finding *f,
                          struct gcb_component *c, enum gcb_family *fam) {
  const struct gcb_model_case *cs = dx_case(x, f);
  for (size_t k = 0; cs != NULL && k < cs->ranks.n; k++)
    if (gcb_model_col(cs, GCB_RC_WRONG, k) > 0) {
      device_of_rank(x, f->where.doc, gcb_model_col_rank(cs, k, (long long)k),
                     c);
      *fam = gcb_model_case_family(cs);
      return true;
    }
  return false;
}

/* ---- second pass: consequences ------------------------------------------- */

/* The slowest rank of the finding's case (the rank whose time is longest:
 * the lowest figure), at a component the first pass found. */
static bool at_slowest(const struct dx *x, const struct gcb_finding *f,
                       struct gcb_component *c, enum gcb_family *fam) {
  const struct gcb_model_case *cs = dx_case(x, f);
  long long r = f->where.rank;
  if (r < 0 && cs != NULL)
    r = cs->summary.min_rank;
  *fam = cs != NULL ? gcb_model_case_family(cs) : GCB_FAM_RUN;
  if (r < 0 || f->where.doc < 0)
    return false;
  struct gcb_component g;
  struct gcb_machine_gpu gpu = {.index = -1};
  gpu_of_rank(x, f->where.doc, r, &g);
  memcpy(gpu.bus_id, g.bus_id, sizeof gpu.bus_id);
  /* its GPU, its host link, its rank (by bus id), else a node-wide cause */
  static const enum gcb_comp_kind kinds[] = {GCB_COMP_GPU, GCB_COMP_LINK,
                                             GCB_COMP_RANK, GCB_COMP_NODE};
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
    for (size_t i = 0; i < x->ncomps; i++) {
      const struct gcb_component *n = &x->comps[i].c;
      if (n->kind == kinds[k] && n->node == g.node &&
          (n->kind == GCB_COMP_NODE ? n->link[0] == '\0'
                                    : gpu.bus_id[0] && at_gpu_id(n, &gpu))) {
        *c = *n;
        return true;
      }
    }
  if (f->where.rank < 0)
    return false;
  rank_comp(x, f->where.doc, r, c);
  return true;
}

/* The slowest rank regressed: the GPU the first pass found slow (its
 * regression is that slowness seen against the past), else the baseline
 * comparison. */
static bool at_slowest_or_baseline(const struct dx *x,
                                   const struct gcb_finding *f,
                                   struct gcb_component *c,
                                   enum gcb_family *fam) {
  struct gcb_component g;
  if (at_slowest(x, f, &g, fam) && g.kind != GCB_COMP_RANK) {
    *c = g;
    return true;
  }
  return at_baseline(x, f, c, fam);
}

/* A collective's bandwidth: a NIC the first pass found slow (the
 * inter-node collectives are its symptom), else the run. */
static bool at_fabric(const struct dx *x, const struct gcb_finding *f,
                      struct gcb_component *c, enum gcb_family *fam) {
  (void)f;
  *fam = GCB_FAM_COLL;
  for (size_t k = 0; k < x->ncomps; k++) {
    const struct gcb_component *n = &x->comps[k].c;
    if (n->kind == GCB_COMP_LINK && strncmp(n->local_name, "NIC ", 4) == 0) {
      *c = *n;
      return true;
    }
  }
  return false;
}

/* ---- the table ----------------------------------------------------------- */

/* Each grouping of kinds.h (a kind's .group) and, for acceptance checks
 * and regressions, the bound's metric: the function that places it. A
 * grouping several rows share is matched in order; the first row whose
 * metric matches (NULL: any) places the finding. */
static const struct group_rule {
  enum gcb_group group;
  const char *metric; /* criterion, regression: the metric; NULL: any */
  bool attach;        /* second pass */
  locate_fn *locate;
} group_rules[] = {
    {GCB_GROUP_RUN, NULL, false, at_run},
    {GCB_GROUP_GPU, NULL, false, at_gpu},
    {GCB_GROUP_ERROR, NULL, false, at_error},
    {GCB_GROUP_HOST_LINK, NULL, false, at_link},
    {GCB_GROUP_GPU_PAIR, NULL, false, at_pair},
    {GCB_GROUP_NETWORK, NULL, false, at_network},
    {GCB_GROUP_RANK, NULL, false, at_rank},
    {GCB_GROUP_NODE, NULL, false, at_whole_node},
    {GCB_GROUP_NODE_BLAS, NULL, false, at_node},
    {GCB_GROUP_CHECK, "per_rank", false, at_check_rank},
    {GCB_GROUP_CHECK, "time_us", false, at_check_rank},
    {GCB_GROUP_CHECK, "late_us", false, at_late_rank},
    {GCB_GROUP_CHECK, "wrong", false, at_wrong_rank},
    {GCB_GROUP_CHECK, "min", false, at_check_rank},
    {GCB_GROUP_CHECK, "max", false, at_check_rank},
    {GCB_GROUP_CHECK, "cv_pct", true, at_slowest},
    {GCB_GROUP_CHECK, "imbalance_pct", true, at_slowest},
    {GCB_GROUP_CHECK, "busbw", true, at_fabric},
    {GCB_GROUP_CHECK, "algbw", true, at_fabric},
    {GCB_GROUP_CHECK, NULL, false, at_run},
    {GCB_GROUP_SLOWEST, NULL, true, at_slowest},
    {GCB_GROUP_FABRIC, NULL, true, at_fabric},
    {GCB_GROUP_REGRESSION, "slowest", true, at_slowest_or_baseline},
    {GCB_GROUP_REGRESSION, NULL, false, at_baseline},
    {GCB_GROUP_BASELINE, NULL, false, at_baseline},
};

static bool rule_matches(const struct group_rule *r,
                         const struct gcb_finding *f) {
  return f->kind->group == r->group &&
         (r->metric == NULL ||
          (f->metric != NULL && strcmp(f->metric, r->metric) == 0));
}

/* Places the warn/fail findings of the first pass (attach false) or the
 * second; a grouping no row names goes to the run in the first. */
static enum gcb_status place_pass(struct dx *x, bool attach) {
  size_t nr = sizeof group_rules / sizeof *group_rules;
  for (size_t i = 0; i < x->fs->n; i++) {
    const struct gcb_finding *f = &x->fs->items[i];
    if (f->severity == GCB_SEV_INFO || x->comp_of[i] >= 0)
      continue;
    size_t r = 0;
    while (r < nr && !rule_matches(&group_rules[r], f))
      r++;
    if (r < nr ? group_rules[r].attach != attach : attach)
      continue; /* not this pass */
    struct gcb_component c;
    enum gcb_family fam = GCB_FAM_RUN;
    if (r == nr || !group_rules[r].locate(x, f, &c, &fam))
      at_run(x, f, &c, &fam);
    long k = dx_comp(x, &c, f->where.doc);
    if (k < 0)
      return GCB_ENOMEM;
    x->comp_of[i] = k;
    x->fam_of[i] = fam;
  }
  return GCB_OK;
}

/* ---- node-wide symptoms -------------------------------------------------- */

/* A GPU or a host link: what a node-wide symptom gathers into its node. */
static bool of_one_gpu(const struct gcb_component *c) {
  return c->kind == GCB_COMP_GPU || c->kind == GCB_COMP_LINK;
}

static bool node_wide(const struct dx *x, long long m, size_t n) {
  return n >= 2 && 2 * n > x->out->machines[m].ngpus;
}

static enum gcb_status collapse(struct dx *x, long long m, enum gcb_family f) {
  struct gcb_component node;
  at_machine(x, m, GCB_COMP_NODE, &node);
  node_name(&node, "");
  long k = dx_comp(x, &node, -1);
  if (k < 0)
    return GCB_ENOMEM;
  for (size_t i = 0; i < x->fs->n; i++) {
    const struct gcb_component *c =
        x->comp_of[i] >= 0 ? &x->comps[x->comp_of[i]].c : NULL;
    if (c != NULL && x->comp_of[i] != k && x->fam_of[i] == f && c->node == m &&
        of_one_gpu(c))
      x->comp_of[i] = k;
  }
  return GCB_OK;
}

static enum gcb_status dx_collapse_nodes(struct dx *x) {
  static const enum gcb_family fams[] = {
      GCB_FAM_GEMM, GCB_FAM_DEVMEM, GCB_FAM_H2D, GCB_FAM_D2H, GCB_FAM_HEALTH};
  size_t nm = x->out->nmachines, ncomps = x->ncomps;
  if (nm < 2)
    return GCB_OK;
  /* Per component, the families of its evidence (a bit each); per machine
   * and family, its GPUs and host links with evidence of it. Counted once
   * for every family: a collapse moves only its family's evidence, into a
   * node, which no count reads. */
  unsigned *has = calloc(ncomps + 1, sizeof *has);
  size_t(*n)[GCB_FAM_COUNT] = calloc(nm, sizeof *n);
  enum gcb_status st = GCB_OK;
  if (has == NULL || n == NULL)
    st = gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
  for (size_t i = 0; st == GCB_OK && i < x->fs->n; i++)
    if (x->comp_of[i] >= 0) /* placed: warn or fail */
      has[x->comp_of[i]] |= 1u << x->fam_of[i];
  for (size_t k = 0; st == GCB_OK && k < ncomps; k++) {
    const struct gcb_component *c = &x->comps[k].c;
    if (c->node < 0 || (size_t)c->node >= nm || !of_one_gpu(c))
      continue;
    for (int f = 0; f < GCB_FAM_COUNT; f++)
      n[c->node][f] += has[k] >> f & 1;
  }
  for (size_t k = 0; st == GCB_OK && k < sizeof fams / sizeof *fams; k++) {
    size_t wide = 0;
    for (size_t m = 0; m < nm; m++)
      wide += node_wide(x, (long long)m, n[m][fams[k]]);
    if (wide == 0 || 2 * wide >= nm)
      continue; /* nobody, or most nodes: not one node's problem */
    for (size_t m = 0; st == GCB_OK && m < nm; m++)
      if (node_wide(x, (long long)m, n[m][fams[k]]))
        st = collapse(x, (long long)m, fams[k]);
  }
  free(has);
  free(n);
  return st;
}

/* ==== statements ========================================================= */

/* Sets rc's statement; true (it is stated). */
__attribute__((format(printf, 2, 3))) static bool say(struct gcb_root_cause *rc,
                                                      const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  gcb_analyze_vformat(rc->summary, sizeof rc->summary, fmt, ap);
  va_end(ap);
  return true;
}

static void suggest(struct gcb_root_cause *rc, const char *text) {
  gcb_analyze_copy(rc->suggestion, sizeof rc->suggestion, text);
}

/* measured / expected folded to at most 1: lower is worse. */
static double closeness(const struct gcb_finding *f) {
  double r = f->measured / f->expected;
  if (!isfinite(r) || r < 0)
    return 1;
  return r > 1 ? 1 / r : r;
}

/* The evidence the statement quotes: a rule's finding before an
 * acceptance check's or a consequence (.secondary: it says against what
 * the component measures), then the worst severity, then, at equal
 * severity, one that says against what it should reach before a
 * regression (.relative: worse than before), then the figure furthest
 * from its expectation. */
static bool quotes_better(const struct gcb_finding *f,
                          const struct gcb_finding *b) {
  if (f->kind->secondary != b->kind->secondary)
    return !f->kind->secondary;
  if (f->severity != b->severity)
    return f->severity > b->severity;
  if (f->kind->relative != b->kind->relative)
    return !f->kind->relative;
  return closeness(f) < closeness(b);
}

static size_t primary(const struct dx *x, const struct gcb_root_cause *rc) {
  size_t best = rc->evidence[0];
  for (size_t k = 1; k < rc->nevidence; k++)
    if (quotes_better(&x->fs->items[rc->evidence[k]], &x->fs->items[best]))
      best = rc->evidence[k];
  return best;
}

/* The distinct cases of document doc among the evidence of kind `kind`
 * and the root cause's family: a case measured on 8 GPUs is one case, not
 * 8, so the count set against that document's cases of the bench never
 * exceeds them. */
static size_t cases_of(const struct dx *x, const struct gcb_root_cause *rc,
                       const struct gcb_kind *kind, int doc) {
  size_t n = 0;
  for (size_t k = 0; k < rc->nevidence; k++) {
    const struct gcb_finding *f = &x->fs->items[rc->evidence[k]];
    if (x->fam_of[rc->evidence[k]] != rc->family || f->kind != kind ||
        f->where.doc != doc)
      continue;
    bool seen = false;
    for (size_t j = 0; j < k && !seen; j++) {
      const struct gcb_finding *g = &x->fs->items[rc->evidence[j]];
      seen = x->fam_of[rc->evidence[j]] == rc->family && g->kind == kind &&
             g->where.doc == doc &&
             strcmp(g->where.subject, f->where.subject) == 0;
    }
    n += !seen;
  }
  return n;
}

/* The case's label without its bench ("fp8 8192x8192x8192"). */
static const char *label_of(const struct gcb_finding *f) {
  const char *colon = strstr(f->where.subject, ": ");
  return colon != NULL ? colon + 2 : f->where.subject;
}

/* Text after a leading "rank N ", "rank N: " or "GPUN: " of f's
 * explanation: the component's name says it already. Not where the
 * finding names several ranks ("ranks 0-1"): there "rank 0 is not bound
 * ... (and 1 more like it)" is an example of them, and without its
 * subject it would read "ranks 0-1 is not bound". */
static const char *after_rank(const struct gcb_finding *f) {
  const char *s = f->explanation, *p = s;
  if (f->where.ranks[0] != '\0')
    return s;
  if (strncmp(p, "rank ", 5) == 0)
    p += 5;
  else if (strncmp(p, "GPU", 3) == 0)
    p += 3;
  else
    return s;
  if (*p < '0' || *p > '9')
    return s;
  while (*p >= '0' && *p <= '9')
    p++;
  if (*p == ':')
    p++;
  else if (strncmp(s, "GPU", 3) == 0)
    return s; /* "GPU2 -> GPU6 ...": the subject itself */
  return *p == ' ' ? p + 1 : p;
}

/* ---- host links: sources and load ---------------------------------------- */

/* The walk over every source's figure for the copy in direction dir over
 * root cause rc's host link (its machine and bus id): documents, their
 * cases, the ranks of each case; each figure (its GPU from the topology,
 * NULL) in turn. */
struct figures {
  const struct dx *x;
  const struct gcb_root_cause *rc;
  const char *dir;
  size_t d, i, k; /* the next rank to look at */
  double value;
  int doc;
  const struct gcb_model_gpu *gpu;
};

static bool next_figure(struct figures *it) {
  const struct dx *x = it->x;
  for (; it->d < x->ndocs; it->d++, it->i = 0) {
    const struct gcb_model *model = x->docs[it->d].model;
    for (; it->i < model->ncases; it->i++, it->k = 0) {
      const struct gcb_model_case *c = &model->cases[it->i];
      const char *cd = gcb__case_pcie_direction(model, c);
      if (cd == NULL || strcmp(cd, it->dir) != 0)
        continue;
      while (it->k < c->ranks.n) {
        size_t k = it->k++;
        long long r = gcb_model_col_rank(c, k, (long long)k);
        const struct gcb_model_rank *rk = gcb_model_rank(model, r);
        char b[32];
        if (rk == NULL ||
            dx_machine(x, (int)it->d, rk->node) != it->rc->comp.node ||
            !gcb_busid_canon(rk->device_bus_id, b, sizeof b) ||
            strcmp(b, it->rc->comp.bus_id) != 0)
          continue;
        it->gpu =
            gcb_model_gpu(model, rk->node, gcb_model_rank_gpu(model, r, NULL));
        it->value = gcb_model_col(c, GCB_RC_FIG_MEDIAN, k);
        it->doc = (int)it->d;
        return true;
      }
    }
  }
  return false;
}

struct load {
  size_t n;      /* figures */
  double lowest; /* INFINITY */
  double expected;
  const char *basis; /* of expected ("PCIe gen5 x16 (63.02 GB/s)"); "" */
  const struct gcb_model_hop *rest; /* the GPU's own link at rest; NULL */
};

/* What every source's figure for the copy in direction dir over rc's
 * host link says, and what the link should carry. */
static void under_load(const struct dx *x, const struct gcb_root_cause *rc,
                       const char *dir, struct load *out) {
  struct figures it = {.x = x, .rc = rc, .dir = dir};
  *out = (struct load){.lowest = INFINITY, .expected = NAN, .basis = ""};
  while (next_figure(&it)) {
    const struct gcb_model_gpu *g = it.gpu;
    if (isnan(out->expected)) {
      out->expected = g != NULL ? g->host_gbps : NAN;
      out->basis = g != NULL && g->host_basis ? g->host_basis : "";
      out->rest = g != NULL && g->nhops > 0 ? &g->hops[0] : NULL;
    }
    out->lowest = fmin(out->lowest, it.value);
    out->n++;
  }
}

static const char *source(const struct dx *x, int doc) {
  const char *tool = x->docs[doc].model->run.tool;
  return tool[0] ? tool : x->docs[doc].name;
}

static bool passes(const struct dx *x, double v, double expected) {
  return !isnan(expected) && v >= expected * x->t->link_pct / 100;
}

/* A low copy from one source and a good one from another: one statement
 * with both figures. */
static bool disagree(const struct dx *x, struct gcb_root_cause *rc,
                     const struct gcb_finding *low) {
  bool d2h = rc->family == GCB_FAM_D2H;
  struct figures it = {.x = x, .rc = rc, .dir = d2h ? "d2h" : "h2d"};
  struct load ld;
  under_load(x, rc, it.dir, &ld);
  while (next_figure(&it)) {
    if (it.doc == low->where.doc || !passes(x, it.value, ld.expected))
      continue;
    char a[32], b[32];
    gcb_fmt_scaled(low->measured, "GB/s", a, sizeof a);
    gcb_fmt_scaled(it.value, "GB/s", b, sizeof b);
    say(rc, "%s %s (%s) vs %s (%s): sources disagree", d2h ? "D2H" : "H2D", a,
        source(x, low->where.doc), b, source(x, it.doc));
    suggest(rc, "rerun both tools on this GPU; if the low figure repeats, "
                "check the slot and riser (lspci -vv: LnkSta)");
    return true;
  }
  return false;
}

/* "gen1 x16 (4 GB/s)": the link at rest, from the topology's reading of
 * the GPU's end, with the rate the finding read (its measured figure). */
static void rest_text(const struct load *ld, const struct gcb_finding *f,
                      char *buf, size_t size) {
  const struct gcb_model_hop *h = ld->rest;
  double gbps = !isnan(f->measured) ? f->measured : h ? h->gbps : NAN;
  char r[32];
  gcb_fmt_scaled(gbps, "GB/s", r, sizeof r);
  if (h != NULL && h->gen > 0 && h->width > 0)
    snprintf(buf, size, "gen%lld x%lld (%s)", h->gen, h->width, r);
  else
    snprintf(buf, size, "%s", isnan(gbps) ? "a slower link" : r);
}

/* A link that reads slow at rest, judged by its copies under load. */
static bool at_rest(const struct dx *x, struct gcb_root_cause *rc,
                    const struct gcb_finding *f) {
  struct load h, d;
  under_load(x, rc, "h2d", &h);
  under_load(x, rc, "d2h", &d);
  const struct load *ex = !isnan(h.expected) ? &h : &d;
  double worst = fmin(h.lowest, d.lowest), e = ex->expected;
  if (h.n + d.n == 0 || isnan(e))
    return say(rc, "%s (read at rest; no copy measured under load)",
               f->explanation);
  char w[32], es[32];
  gcb_fmt_scaled(worst, "GB/s", w, sizeof w);
  gcb_fmt_scaled(e, "GB/s", es, sizeof es);
  if (passes(x, worst, e)) {
    rc->cleared = true;
    rc->cost = NAN;
    rc->measured = worst;
    rc->expected = e;
    /* what it reached under load, then the reading at rest that had it
     * looked at */
    char rest[64];
    rest_text(ex, f, rest, sizeof rest);
    suggest(rc, "none needed: the link trains up under load");
    return say(rc,
               "trains up under load to %s, %.0f %% of %s, from %s at rest: "
               "idle downtraining, not a fault",
               w, worst / e * 100, ex->basis[0] ? ex->basis : es, rest);
  }
  return say(rc, "%s, confirmed under load: %s, %.0f %% of %s", after_rank(f),
             w, worst / e * 100, es);
}

/* ---- statements ---------------------------------------------------------- */

/* How many cases of f's benchmark in its document f's kind found at rc's
 * component (*k), of how many (*all). */
static void cases_found(const struct dx *x, const struct gcb_root_cause *rc,
                        const struct gcb_finding *f, size_t *k, size_t *all) {
  const struct gcb_model_case *c = dx_case(x, f);
  const struct gcb_model *model = x->docs[f->where.doc].model;
  enum gcb_bench_kind kind = c != NULL ? c->kind : GCB_BENCH_UNKNOWN;
  *k = cases_of(x, rc, f->kind, f->where.doc);
  *all = 0;
  for (size_t i = 0; i < model->ncases; i++)
    *all += model->cases[i].kind == kind;
}

static bool slow(const struct dx *x, struct gcb_root_cause *rc,
                 const struct gcb_finding *f) {
  char m[64];
  size_t k, all;
  cases_found(x, rc, f, &k, &all);
  gcb_fmt_scaled_pair(f->measured, f->expected, f->unit, m, sizeof m);
  return say(rc, "%s %.0f %% below %s in %zu of %zu case(s) (worst %s: %s)%s%s",
             gcb_family_name(rc->family), (1 - f->measured / f->expected) * 100,
             rc->comp.kind == GCB_COMP_NODE ? "the other nodes' GPUs"
                                            : "its peers",
             k, all, label_of(f), m, f->evidence[0] ? "; " : "", f->evidence);
}

/* A jittery rank (rules_case.c): measured its mean iteration, expected its
 * median, cost what its slow iterations add beyond its peers'. */
static bool now_and_then(const struct dx *x, struct gcb_root_cause *rc,
                         const struct gcb_finding *f) {
  char m[64];
  size_t k, all;
  cases_found(x, rc, f, &k, &all);
  gcb_fmt_scaled_pair(f->measured, f->expected, f->unit, m, sizeof m);
  return say(rc,
             "%s slow now and then in %zu of %zu case(s): its slow "
             "iterations cost %.0f %% of its time beyond its peers' (worst "
             "%s: mean vs median iteration %s)%s%s",
             gcb_family_name(rc->family), k, all, f->cost * 100, label_of(f), m,
             f->evidence[0] ? "; " : "", f->evidence);
}

/* Against what the rule held the pair (rules_p2p.c): what its path
 * carries, or the median of the node's pairs of its class. */
static bool p2p(struct gcb_root_cause *rc, const struct gcb_finding *f) {
  const char *cls = f->path_class;
  const char *noun = strncmp(cls, "NV", 2) == 0 ? "NVLink" : "P2P";
  char m[32], e[32];
  gcb_fmt_scaled(f->measured, f->unit, m, sizeof m);
  gcb_fmt_scaled(f->expected, f->unit, e, sizeof e);
  double pct = f->measured / f->expected * 100;
  if (!f->against_peers)
    return say(rc, "%s %s, %.0f %% of what its %s path carries (%s)", noun, m,
               pct, cls, e);
  if (cls[0] == '\0')
    return say(rc,
               "%s %s, %.0f %% of the median of the node's pairs (%s); no "
               "topology names its path",
               noun, m, pct, e);
  return say(rc, "%s %s, %.0f %% of the median of the node's %s pairs (%s)",
             noun, m, pct, cls, e);
}

static bool late(struct gcb_root_cause *rc, const struct gcb_finding *f) {
  char m[32], e[32];
  const char *times = strstr(f->explanation, "late in ");
  gcb_fmt_scaled(f->measured, f->unit, m, sizeof m);
  gcb_fmt_scaled(f->expected, f->unit, e, sizeof e);
  return say(rc, "%s late on average at %s (the median rank: %s)%s%s", m,
             label_of(f), e, times ? "; " : "", times ? times : "");
}

/* The sentence of the kind's .say; false where the data it needs is not
 * there (the explanation is said instead). */
static bool statement(const struct dx *x, struct gcb_root_cause *rc,
                      const struct gcb_finding *f) {
  const struct gcb_model_case *c = dx_case(x, f);
  bool bus = rc->comp.bus_id[0] != '\0', at_case = f->bench_case != NULL;
  switch (f->kind->say) {
  case GCB_SAY_BELOW_PEERS:
    return slow(x, rc, f);
  case GCB_SAY_NOW_AND_THEN:
    return now_and_then(x, rc, f);
  case GCB_SAY_WRONG:
    return say(rc, "wrong results in %s: %s", f->where.subject, f->explanation);
  case GCB_SAY_SOURCES:
    return bus && disagree(x, rc, f);
  case GCB_SAY_AT_REST:
    return bus && at_rest(x, rc, f);
  case GCB_SAY_PATH:
    return c != NULL && p2p(rc, f);
  case GCB_SAY_LATE:
    return late(rc, f);
  case GCB_SAY_CHECK:
    return at_case && say(rc, "%s (%s)", f->explanation, f->where.subject);
  case GCB_SAY_AT_CASE:
    return at_case && f->where.subject[0] != '\0' &&
           say(rc, "%s: %s", f->where.subject, after_rank(f));
  case GCB_SAY_EXPLANATION:
    break;
  }
  return false;
}

/* "; also device memory (2), 3 acceptance check(s) missed": the evidence
 * besides the statement's, finding p. */
static void also(const struct dx *x, struct gcb_root_cause *rc, size_t p) {
  char buf[200] = "";
  size_t used = 0, per[GCB_FAM_COUNT] = {0};
  for (size_t k = 0; k < rc->nevidence; k++)
    per[x->fam_of[rc->evidence[k]]] +=
        !x->fs->items[rc->evidence[k]].kind->secondary;
  for (int fam = 0; fam < GCB_FAM_COUNT; fam++)
    if (fam != (int)rc->family && fam != GCB_FAM_RUN && per[fam] > 0 &&
        used < sizeof buf)
      used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s (%zu)",
                               used ? ", " : "; also ", gcb_family_name(fam),
                               per[fam]);
  for (size_t k = 0; k < GCB_KIND_COUNT; k++) { /* the kinds counted */
    const struct gcb_kind *kind = &gcb_kinds[k];
    if (kind->tally_one == NULL)
      continue;
    size_t n = 0;
    for (size_t e = 0; e < rc->nevidence; e++)
      n += x->fs->items[rc->evidence[e]].kind == kind;
    bool more = x->fs->items[p].kind == kind;
    n -= more; /* the statement is one of them */
    if (n > 0 && used < sizeof buf)
      used += (size_t)snprintf(buf + used, sizeof buf - used, "; %zu %s%s", n,
                               more ? "more " : "",
                               n == 1 ? kind->tally_one : kind->tally_many);
  }
  char tmp[sizeof rc->summary + sizeof buf];
  snprintf(tmp, sizeof tmp, "%s%s", rc->summary, buf);
  gcb_analyze_copy(rc->summary, sizeof rc->summary, tmp);
}

static void dx_state(const struct dx *x, struct gcb_root_cause *rc) {
  size_t p = primary(x, rc);
  const struct gcb_finding *f = &x->fs->items[p];
  rc->family = x->fam_of[p];
  rc->measured = f->measured;
  rc->expected = f->expected;
  gcb_view_copy(rc->unit, sizeof rc->unit, f->unit);
  /* The cost of what the statement says: its finding's, else the largest
   * of its family's evidence (an acceptance check quoted has none). The
   * run's evidence is unrelated findings (a pattern's overlap, a sweep's
   * dip at one size), whose largest cost would be another line's. */
  rc->cost = f->cost;
  for (size_t k = 0; isnan(f->cost) && k < rc->nevidence; k++) {
    double c = x->fs->items[rc->evidence[k]].cost;
    if (x->fam_of[rc->evidence[k]] == rc->family && !isnan(c) &&
        (isnan(rc->cost) || c > rc->cost))
      rc->cost = c;
  }
  suggest(rc, f->suggestion);
  if (!statement(x, rc, f))
    say(rc, "%s", after_rank(f));
  if (!rc->cleared)
    also(x, rc, p);
}

/* ---- root causes --------------------------------------------------------- */

static struct gcb_root_cause *new_cause(struct gcb_diagnosis *d,
                                        const struct gcb_component *c) {
  if (!gcb_grow((void **)&d->items, &d->cap, d->n, sizeof *d->items))
    return NULL;
  struct gcb_root_cause *rc = &d->items[d->n++];
  memset(rc, 0, sizeof *rc);
  rc->comp = *c;
  rc->severity = GCB_SEV_INFO;
  rc->measured = rc->expected = rc->cost = NAN;
  return rc;
}

void gcb_component_show(const struct gcb_component *c, bool with_host,
                        char *buf, size_t size) {
  char tmp[sizeof c->local_name + sizeof c->hostname + 4];
  if (with_host && !c->names_host && c->hostname[0] != '\0')
    snprintf(tmp, sizeof tmp, "%s on %s", c->local_name, c->hostname);
  else
    snprintf(tmp, sizeof tmp, "%s", c->local_name);
  gcb_analyze_copy(buf, size, tmp);
}

/* One root cause per component that holds evidence, in the order their
 * first evidence comes; one pass over the findings. */
static enum gcb_status build(struct dx *x) {
  long *rc_of = malloc(x->ncomps * sizeof *rc_of + 1);
  if (rc_of == NULL)
    return gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
  for (size_t k = 0; k < x->ncomps; k++)
    rc_of[k] = -1;
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; st == GCB_OK && i < x->fs->n; i++) {
    long k = x->comp_of[i];
    if (k < 0)
      continue;
    if (rc_of[k] < 0 && new_cause(x->out, &x->comps[k].c) != NULL)
      rc_of[k] = (long)x->out->n - 1;
    struct gcb_root_cause *rc = rc_of[k] >= 0 ? &x->out->items[rc_of[k]] : NULL;
    if (rc == NULL || !gcb_grow((void **)&rc->evidence, &rc->cap, rc->nevidence,
                                sizeof *rc->evidence)) {
      st = gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
      break;
    }
    rc->evidence[rc->nevidence++] = i;
    const struct gcb_finding *f = &x->fs->items[i];
    rc->severity = f->severity > rc->severity ? f->severity : rc->severity;
    rc->families |= 1u << x->fam_of[i];
  }
  for (size_t r = 0; st == GCB_OK && r < x->out->n; r++) {
    struct gcb_component *c = &x->out->items[r].comp;
    dx_state(x, &x->out->items[r]);
    /* A GPU is (node, bus id): with several machines two of them have the
     * same "GPU 5 0000:bb:00.0", so each name shown says its host. */
    gcb_component_show(c, x->out->nmachines > 1, c->name, sizeof c->name);
  }
  free(rc_of);
  return st;
}

/* Display order: fail, warn, info, cleared; within one, node, GPU, link,
 * rank, run; then machine and where they were found. */
static int rank_of(const struct gcb_root_cause *rc) {
  static const int kind_order[] = {1, 2, 3, 0, 4};
  int state = rc->cleared ? 3 : 2 - (int)rc->severity;
  return state * 8 + kind_order[rc->comp.kind];
}

/* Whether a goes after b: by rank_of, then machine, then GPU index. */
static bool later(const struct gcb_root_cause *a,
                  const struct gcb_root_cause *b) {
  if (rank_of(a) != rank_of(b))
    return rank_of(a) > rank_of(b);
  if (a->comp.node != b->comp.node)
    return a->comp.node > b->comp.node;
  return a->comp.gpu > b->comp.gpu;
}

static void sort_causes(struct gcb_diagnosis *d) {
  for (size_t i = 1; i < d->n; i++) { /* insertion sort: stable, small n */
    struct gcb_root_cause tmp = d->items[i];
    size_t j = i;
    while (j > 0 && later(&d->items[j - 1], &tmp)) {
      d->items[j] = d->items[j - 1];
      j--;
    }
    d->items[j] = tmp;
  }
}

static enum gcb_status collect_na(struct dx *x) {
  struct gcb_diagnosis *d = x->out;
  d->na = malloc(x->fs->n * sizeof *d->na + 1);
  if (d->na == NULL)
    return gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
  for (size_t i = 0; i < x->fs->n; i++)
    if (x->fs->items[i].kind == GCB_KIND(CRITERION_NA))
      d->na[d->nna++] = i;
  for (size_t i = 0; i < x->fs->n; i++) /* a kind whose row has no group */
    d->unexplained +=
        x->fs->items[i].severity != GCB_SEV_INFO &&
        (x->comp_of[i] < 0 || x->fs->items[i].kind->group == GCB_GROUP_UNSET);
  return GCB_OK;
}

enum gcb_status gcb_diagnose(const struct gcb_doc *docs, size_t ndocs,
                             const struct gcb_findings *findings,
                             const struct gcb_thresholds *t,
                             struct gcb_diagnosis *out, struct gcb_err *err) {
  memset(out, 0, sizeof *out);
  struct dx x = {.docs = docs,
                 .ndocs = ndocs,
                 .fs = findings,
                 .t = t,
                 .out = out,
                 .err = err};
  out->machine_of = calloc(ndocs + 1, sizeof *out->machine_of);
  out->ndocs = ndocs;
  x.comp_of = malloc(findings->n * sizeof *x.comp_of + 1);
  x.fam_of = calloc(findings->n + 1, sizeof *x.fam_of);
  enum gcb_status st = GCB_OK;
  if (!out->machine_of || !x.comp_of || !x.fam_of)
    st = gcb_err_set(err, GCB_ENOMEM, "diagnosis: out of memory");
  for (size_t i = 0; st == GCB_OK && i < findings->n; i++)
    x.comp_of[i] = -1;
  for (size_t d = 0; st == GCB_OK && d < ndocs; d++)
    st = map_doc(&x, d);
  for (int attach = 0; st == GCB_OK && attach < 2; attach++)
    st = place_pass(&x, attach);
  if (st == GCB_OK)
    st = dx_collapse_nodes(&x);
  if (st == GCB_OK)
    st = build(&x);
  if (st == GCB_OK)
    st = collect_na(&x);
  if (st == GCB_OK)
    sort_causes(out);
  free(x.comps);
  free(x.comp_of);
  free(x.fam_of);
  return st;
}

void gcb_diagnosis_free(struct gcb_diagnosis *d) {
  if (d == NULL)
    return;
  for (size_t i = 0; i < d->n; i++)
    free(d->items[i].evidence);
  for (size_t i = 0; i < d->nmachines; i++)
    free(d->machines[i].gpus);
  for (size_t i = 0; d->machine_of != NULL && i < d->ndocs; i++)
    free(d->machine_of[i]);
  free(d->machine_of);
  free(d->items);
  free(d->machines);
  free(d->na);
  memset(d, 0, sizeof *d);
}

size_t gcb_diagnosis_count(const struct gcb_diagnosis *d, enum gcb_severity s) {
  size_t n = 0;
  for (size_t i = 0; i < d->n; i++)
    n += !d->items[i].cleared && d->items[i].severity == s;
  return n;
}

size_t gcb_diagnosis_cleared(const struct gcb_diagnosis *d) {
  size_t n = 0;
  for (size_t i = 0; i < d->n; i++)
    n += d->items[i].cleared;
  return n;
}

bool gcb_diagnosis_failed(const struct gcb_diagnosis *d) {
  return gcb_diagnosis_count(d, GCB_SEV_FAIL) > 0;
}

const char *gcb_root_cause_state(const struct gcb_root_cause *rc) {
  return rc->cleared ? "ok" : gcb_severity_name(rc->severity);
}

void gcb_diagnosis_scope(const struct gcb_diagnosis *d, char *buf,
                         size_t size) {
  size_t gpus = 0;
  for (size_t m = 0; m < d->nmachines; m++)
    gpus += d->machines[m].ngpus;
  if (d->nmachines == 1 && gpus > 0)
    snprintf(buf, size, "%s (%zu x %s)", d->machines[0].hostname, gpus,
             d->machines[0].model[0] ? d->machines[0].model : "GPU");
  else if (d->nmachines == 1)
    snprintf(buf, size, "%s (%zu rank(s))", d->machines[0].hostname,
             d->machines[0].nranks);
  else if (gpus > 0)
    snprintf(buf, size, "%zu nodes (%zu GPUs)", d->nmachines, gpus);
  else if (d->nmachines > 0)
    snprintf(buf, size, "%zu nodes", d->nmachines);
  else /* an OSU log: it names no node, no rank count */
    snprintf(buf, size, "nodes not named");
}

/* Whether root cause rc speaks about family f of GPU g of machine node. */
static bool touches(const struct gcb_root_cause *rc, long long node,
                    const struct gcb_machine_gpu *g, enum gcb_family f) {
  const struct gcb_component *c = &rc->comp;
  if (!(rc->families >> f & 1) || c->node != node)
    return false;
  if (c->kind == GCB_COMP_NODE)
    return true;
  return c->kind != GCB_COMP_RUN && at_gpu_id(c, g);
}

int gcb_diagnosis_state_at(const struct gcb_diagnosis *d, long long node,
                           const struct gcb_machine_gpu *gpu, enum gcb_family f,
                           const struct gcb_root_cause **rc) {
  int worst = -1;
  *rc = NULL;
  for (size_t i = 0; i < d->n; i++) {
    const struct gcb_root_cause *r = &d->items[i];
    if (!touches(r, node, gpu, f))
      continue;
    int s = r->cleared ? (int)GCB_SEV_INFO : (int)r->severity;
    if (s > worst) {
      worst = s;
      *rc = r;
    }
  }
  return worst;
}

bool gcb_diagnosis_at_gpu_by_index(const struct gcb_diagnosis *d,
                                   const struct gcb_component *c) {
  if (c->node < 0 || (size_t)c->node >= d->nmachines ||
      c->kind == GCB_COMP_NODE || c->kind == GCB_COMP_RUN)
    return false;
  const struct gcb_machine *m = &d->machines[c->node];
  for (size_t g = 0; g < m->ngpus; g++)
    if (m->gpus[g].bus_id[0] == '\0' && at_gpu_id(c, &m->gpus[g]))
      return true;
  return false;
}

/* ---- formatting ---------------------------------------------------------- */

/* Units scaled to the figure: from unit to big (/ 1000) at 1000 and
 * above, to small (x 1000) below 1. */
static const struct scale {
  const char *unit, *big, *small;
} scales[] = {
    {"GFLOP/s", "TFLOP/s", "MFLOP/s"},
    {"GB/s", "TB/s", "MB/s"},
    {"us", "ms", "ns"},
    {"ms", "s", "us"},
};

/* The factor and unit text that suit a magnitude a in unit. Seconds go
 * down as far as they must (0.0123 s: 12.3 ms), as a time does
 * everywhere else in a report (gcb_view_fmt_time). */
double gcb_unit_scale(double a, const char *unit, const char **shown) {
  static const char *const below_s[] = {"ms", "us", "ns"};
  *shown = unit;
  if (strcmp(unit, "s") == 0 && a > 0 && a < 1) {
    double k = 1000;
    size_t i = 0;
    for (; i + 1 < sizeof below_s / sizeof *below_s && a * k < 1; i++)
      k *= 1000;
    *shown = below_s[i];
    return k;
  }
  for (size_t i = 0; i < sizeof scales / sizeof *scales; i++) {
    if (strcmp(unit, scales[i].unit) != 0)
      continue;
    if (a >= 1000) {
      *shown = scales[i].big;
      return 1 / 1000.0;
    }
    if (a > 0 && a < 1) {
      *shown = scales[i].small;
      return 1000;
    }
  }
  return 1;
}

void gcb_fmt_scaled(double x, const char *unit, char *buf, size_t size) {
  char text[128];
  const char *shown;
  if (isnan(x)) {
    snprintf(buf, size, "-");
    return;
  }
  double k = gcb_unit_scale(fabs(x), unit, &shown);
  gcb_view_fmt(x * k, text, 32); /* the number: 31 bytes at most */
  size_t n = strlen(text), u = strlen(shown);
  if (n + 1 + u >= sizeof text || size == 0) {
    snprintf(buf, size, "%s%s%s", text, shown[0] ? " " : "", shown);
    return;
  }
  /* snprintf's "%s%s%s" without printf: the matrix formats a figure per
   * GPU and check family, for each file that shows it */
  if (u > 0)
    text[n++] = ' ';
  memcpy(text + n, shown, u);
  n += u;
  n = n < size ? n : size - 1;
  memcpy(buf, text, n);
  buf[n] = '\0';
}

void gcb_fmt_scaled_pair(double a, double b, const char *unit, char *buf,
                         size_t size) {
  char na[32], nb[32];
  const char *shown;
  double big = fabs(a) > fabs(b) || isnan(b) ? fabs(a) : fabs(b);
  double k = gcb_unit_scale(big, unit, &shown);
  gcb_view_fmt(a * k, na, sizeof na);
  gcb_view_fmt(b * k, nb, sizeof nb);
  snprintf(buf, size, "%s vs %s%s%s", na, nb, shown[0] ? " " : "", shown);
}

void gcb_fmt_against(double x, double limit, char *buf, size_t size) {
  gcb_view_fmt(x, buf, size);
  if (isnan(x) || isnan(limit) || x == limit)
    return;
  /* The compact form rounds 20.00001 to "20": add digits until the text
   * reads as a number other than the limit. */
  for (int p = 5; p <= 17 && strtod(buf, NULL) == limit; p++)
    snprintf(buf, size, "%.*g", p, x);
}
