/*
 * The diagnosis: machines (nodes merged across documents), components
 * (each GPU, link, rank, node and the run once), the root causes built
 * from the findings placed at them (diagnose_rules.c) and stated
 * (diagnose_text.c), and the small formatting helpers every output of the
 * verdict shares (units scaled to the figure, enough digits to show why a
 * limit is missed).
 */
#include "reports/analysis/diagnose.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis/diagnose_int.h"
#include "reports/document/topo_view.h"

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

/* ---- machines ----------------------------------------------------------- */

/* A node's GPUs as canonical bus ids: its topology's, else its ranks'. */
/* The most GPUs a node is mapped by. */
#define NODE_GPUS 256

/* A node's GPUs as canonical bus ids (at most NODE_GPUS): its topology's,
 * else its ranks'. */
static size_t node_busids(const json_t *root, const json_t *node,
                          char (*out)[32]) {
  const json_t *g, *r;
  size_t i, n = 0;
  struct gcb_busid ids[NODE_GPUS]; /* out[k] parsed */
  json_array_foreach(json_object_get(gcb_view_obj(node, "topology"), "gpus"), i,
                     g) {
    if (n < NODE_GPUS &&
        gcb_busid_canon(gcb_view_str(g, "busid"), out[n], 32)) {
      gcb_busid_parse(out[n], &ids[n], NULL);
      n++;
    }
  }
  json_array_foreach(json_object_get(node, "ranks"), i, r) {
    const json_t *dev =
        gcb_view_obj(gcb_view_rank(root, json_integer_value(r)), "device");
    struct gcb_busid id;
    bool seen = false;
    if (gcb_busid_parse(gcb_view_str(dev, "bus_id"), &id, NULL) != GCB_OK)
      continue;
    /* compared parsed and formatted only when new (the canonical form is
     * one to one): a rank's GPU is mostly one of the topology's */
    for (size_t k = 0; k < n && !seen; k++)
      seen = ids[k].domain == id.domain && ids[k].bus == id.bus &&
             ids[k].dev == id.dev && ids[k].func == id.func;
    if (!seen && n < NODE_GPUS) {
      ids[n] = id;
      gcb_busid_format(&id, out[n++], 32);
    }
  }
  return n;
}

static const char *node_model(const json_t *root, const json_t *node) {
  const json_t *g = json_array_get(
      json_object_get(gcb_view_obj(node, "topology"), "gpus"), 0);
  if (g != NULL)
    return gcb_view_str(g, "model");
  const json_t *r = json_array_get(json_object_get(node, "ranks"), 0);
  return gcb_view_str(
      gcb_view_obj(gcb_view_rank(root, json_integer_value(r)), "device"),
      "name");
}

/* The machine a one-node document of another tool ran on: the only
 * earlier machine holding every one of its GPUs (by bus id), as the
 * converter joined its topology; -1. */
static long long machine_by_gpus(const struct gcb__dx *x, char (*b)[32],
                                 size_t n) {
  long long found = -1;
  for (size_t m = 0; m < x->out->nmachines && n > 0; m++) {
    size_t hit = 0;
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < x->out->machines[m].ngpus; k++)
        hit += strcmp(b[i], x->out->machines[m].bus_ids[k]) == 0;
    if (hit == n) {
      if (found >= 0)
        return -1; /* two candidates: do not guess */
      found = (long long)m;
    }
  }
  return found;
}

static long long add_machine(struct gcb__dx *x, const json_t *root,
                             const json_t *node, char (*b)[32], size_t n) {
  struct gcb_diagnosis *d = x->out;
  size_t m = d->nmachines;
  struct gcb_machine *grown = realloc(d->machines, (m + 1) * sizeof *grown);
  if (grown != NULL)
    d->machines = grown;
  char(*mine)[32] = grown ? malloc(n * sizeof *mine + 1) : NULL;
  if (mine == NULL)
    return -1;
  memcpy(mine, b, n * sizeof *mine);
  struct gcb_machine *mc = &d->machines[m];
  memset(mc, 0, sizeof *mc);
  mc->bus_ids = mine;
  gcb_view_copy(mc->hostname, sizeof mc->hostname,
                gcb_view_str(node, "hostname"));
  gcb_view_copy(mc->model, sizeof mc->model, node_model(root, node));
  mc->ngpus = n;
  mc->nranks = json_array_size(json_object_get(node, "ranks"));
  d->nmachines++;
  return (long long)m;
}

static enum gcb_status map_doc(struct gcb__dx *x, size_t doc) {
  const json_t *nodes = json_object_get(x->docs[doc].root, "nodes"), *node;
  size_t i, nn = json_array_size(nodes);
  x->out->machine_of[doc] = calloc(nn + 1, sizeof **x->out->machine_of);
  x->out->nnodes[doc] = nn;
  if (x->out->machine_of[doc] == NULL)
    return gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
  json_array_foreach(nodes, i, node) {
    char b[NODE_GPUS][32];
    size_t n = node_busids(x->docs[doc].root, node, b);
    const char *host = gcb_view_str(node, "hostname");
    long long m = -1;
    for (size_t k = 0; k < x->out->nmachines && m < 0; k++)
      if (host[0] && strcmp(x->out->machines[k].hostname, host) == 0)
        m = (long long)k;
    if (m < 0 && nn == 1)
      m = machine_by_gpus(x, b, n);
    if (m < 0)
      m = add_machine(x, x->docs[doc].root, node, b, n);
    if (m < 0)
      return gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
    x->out->machine_of[doc][i] = m;
  }
  return GCB_OK;
}

long long gcb_diagnosis_machine(const struct gcb_diagnosis *d,
                                const struct gcb_doc *docs, int doc,
                                long long node) {
  if (doc < 0 || (size_t)doc >= d->ndocs || node < 0 || d->machine_of == NULL)
    return -1;
  const json_t *nodes = json_object_get(docs[doc].root, "nodes");
  size_t pos = (size_t)node;
  /* nodes[] is in index order as written; search when it is not. */
  if (pos >= d->nnodes[doc] ||
      gcb_view_int(json_array_get(nodes, pos), "index", -1) != node)
    for (pos = 0; pos < d->nnodes[doc]; pos++)
      if (gcb_view_int(json_array_get(nodes, pos), "index", -1) == node)
        break;
  return pos < d->nnodes[doc] ? d->machine_of[doc][pos] : -1;
}

long long gcb__dx_machine(const struct gcb__dx *x, int doc, long long node) {
  return gcb_diagnosis_machine(x->out, x->docs, doc, node);
}

/* ---- components ---------------------------------------------------------- */

static bool same_comp(const struct gcb__comp *a, const struct gcb_component *c,
                      int doc) {
  const struct gcb_component *k = &a->c;
  if (k->kind != c->kind || k->node != c->node)
    return false;
  switch (c->kind) {
  case GCB_COMP_GPU:
    return c->bus_id[0] ? strcmp(k->bus_id, c->bus_id) == 0
                        : k->gpu == c->gpu && k->bus_id[0] == '\0';
  case GCB_COMP_LINK:
    return strcmp(k->link, c->link) == 0;
  case GCB_COMP_RANK:
    return a->doc == doc && k->rank == c->rank &&
           strcmp(k->ranks, c->ranks) == 0;
  case GCB_COMP_RUN:  /* the run, or the run against its baseline */
  case GCB_COMP_NODE: /* the node, or its BLAS (diagnose_rules.c) */
    return strcmp(k->link, c->link) == 0;
  default:
    return true;
  }
}

long gcb__dx_comp(struct gcb__dx *x, const struct gcb_component *c, int doc) {
  for (size_t i = 0; i < x->ncomps; i++)
    if (same_comp(&x->comps[i], c, doc))
      return (long)i;
  if (x->ncomps == x->capcomps) {
    size_t cap = x->capcomps ? 2 * x->capcomps : 16;
    struct gcb__comp *grown = realloc(x->comps, cap * sizeof *grown);
    if (grown == NULL) {
      gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
      return -1;
    }
    x->comps = grown;
    x->capcomps = cap;
  }
  x->comps[x->ncomps] = (struct gcb__comp){
      .c = *c, .doc = c->kind == GCB_COMP_RANK ? doc : -1, .live = true};
  return (long)x->ncomps++;
}

long gcb__dx_find(const struct gcb__dx *x, enum gcb_comp_kind k, long long m,
                  const char *bus) {
  for (size_t i = 0; bus[0] && i < x->ncomps; i++) {
    const struct gcb_component *c = &x->comps[i].c;
    if (c->kind != k || c->node != m || !x->comps[i].live)
      continue;
    if (k == GCB_COMP_LINK ? strstr(c->link, bus) != NULL
                           : strcmp(c->bus_id, bus) == 0)
      return (long)i;
  }
  return -1;
}

/* ---- root causes --------------------------------------------------------- */

static bool push_evidence(struct gcb_root_cause *rc, size_t i) {
  if (rc->nevidence == rc->cap) {
    size_t cap = rc->cap ? 2 * rc->cap : 8;
    size_t *grown = realloc(rc->evidence, cap * sizeof *grown);
    if (grown == NULL)
      return false;
    rc->evidence = grown;
    rc->cap = cap;
  }
  rc->evidence[rc->nevidence++] = i;
  return true;
}

static struct gcb_root_cause *new_cause(struct gcb_diagnosis *d,
                                        const struct gcb_component *c) {
  if (d->n == d->cap) {
    size_t cap = d->cap ? 2 * d->cap : 8;
    struct gcb_root_cause *grown = realloc(d->items, cap * sizeof *grown);
    if (grown == NULL)
      return NULL;
    d->items = grown;
    d->cap = cap;
  }
  struct gcb_root_cause *rc = &d->items[d->n++];
  memset(rc, 0, sizeof *rc);
  rc->comp = *c;
  rc->severity = GCB_SEV_INFO;
  rc->measured = rc->expected = rc->cost = NAN;
  return rc;
}

/* One root cause per component that holds evidence, in the order their
 * first evidence comes; one pass over the findings. */
static enum gcb_status build(struct gcb__dx *x) {
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
    if (rc == NULL || !push_evidence(rc, i)) {
      st = gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
      break;
    }
    const struct gcb_finding *f = &x->fs->items[i];
    rc->severity = f->severity > rc->severity ? f->severity : rc->severity;
    rc->families |= 1u << x->fam_of[i];
  }
  for (size_t r = 0; st == GCB_OK && r < x->out->n; r++)
    gcb__dx_state(x, &x->out->items[r]);
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

static enum gcb_status collect_na(struct gcb__dx *x) {
  struct gcb_diagnosis *d = x->out;
  for (size_t i = 0; i < x->fs->n; i++)
    d->nna += strcmp(x->fs->items[i].kind, "criterion-na") == 0;
  d->na = malloc(d->nna * sizeof *d->na + 1);
  if (d->na == NULL)
    return gcb_err_set(x->err, GCB_ENOMEM, "diagnosis: out of memory");
  d->nna = 0;
  for (size_t i = 0; i < x->fs->n; i++)
    if (strcmp(x->fs->items[i].kind, "criterion-na") == 0)
      d->na[d->nna++] = i;
  for (size_t i = 0; i < x->fs->n; i++)
    d->unexplained +=
        x->fs->items[i].severity != GCB_SEV_INFO && x->comp_of[i] < 0;
  return GCB_OK;
}

static void free_dx(struct gcb__dx *x) {
  free(x->comps);
  free(x->comp_of);
  free(x->fam_of);
}

enum gcb_status gcb_diagnose(const struct gcb_doc *docs, size_t ndocs,
                             const struct gcb_findings *findings,
                             const struct gcb_thresholds *t,
                             struct gcb_diagnosis *out, struct gcb_err *err) {
  memset(out, 0, sizeof *out);
  struct gcb__dx x = {.docs = docs,
                      .ndocs = ndocs,
                      .fs = findings,
                      .t = t,
                      .out = out,
                      .err = err};
  out->machine_of = calloc(ndocs + 1, sizeof *out->machine_of);
  out->nnodes = calloc(ndocs + 1, sizeof *out->nnodes);
  out->ndocs = ndocs;
  x.comp_of = malloc(findings->n * sizeof *x.comp_of + 1);
  x.fam_of = calloc(findings->n + 1, sizeof *x.fam_of);
  enum gcb_status st = GCB_OK;
  if (!out->machine_of || !out->nnodes || !x.comp_of || !x.fam_of)
    st = gcb_err_set(err, GCB_ENOMEM, "diagnosis: out of memory");
  for (size_t i = 0; st == GCB_OK && i < findings->n; i++)
    x.comp_of[i] = -1;
  for (size_t d = 0; st == GCB_OK && d < ndocs; d++)
    st = map_doc(&x, d);
  if (st == GCB_OK)
    st = gcb__dx_place(&x);
  if (st == GCB_OK)
    st = gcb__dx_collapse_nodes(&x);
  if (st == GCB_OK)
    st = build(&x);
  if (st == GCB_OK)
    st = collect_na(&x);
  if (st == GCB_OK)
    sort_causes(out);
  free_dx(&x);
  return st;
}

void gcb_diagnosis_free(struct gcb_diagnosis *d) {
  if (d == NULL)
    return;
  for (size_t i = 0; i < d->n; i++)
    free(d->items[i].evidence);
  for (size_t i = 0; i < d->nmachines; i++)
    free(d->machines[i].bus_ids);
  for (size_t i = 0; d->machine_of != NULL && i < d->ndocs; i++)
    free(d->machine_of[i]);
  free(d->machine_of);
  free(d->nnodes);
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
  else
    snprintf(buf, size, "%zu node(s)", d->nmachines);
}

/* Whether root cause rc speaks about family f of the GPU (node, bus). */
static bool touches(const struct gcb_root_cause *rc, long long node,
                    const char *bus, enum gcb_family f) {
  const struct gcb_component *c = &rc->comp;
  if (!(rc->families >> f & 1) || c->node != node)
    return false;
  if (c->kind == GCB_COMP_NODE)
    return true;
  if (c->kind == GCB_COMP_LINK)
    return strstr(c->link, bus) != NULL;
  return strcmp(c->bus_id, bus) == 0;
}

int gcb_diagnosis_state_at(const struct gcb_diagnosis *d, long long node,
                           const char *bus_id, enum gcb_family f,
                           const struct gcb_root_cause **rc) {
  int worst = -1;
  *rc = NULL;
  for (size_t i = 0; i < d->n; i++) {
    const struct gcb_root_cause *r = &d->items[i];
    if (!touches(r, node, bus_id, f))
      continue;
    int s = r->cleared ? (int)GCB_SEV_INFO : (int)r->severity;
    if (s > worst) {
      worst = s;
      *rc = r;
    }
  }
  return worst;
}

bool gcb_case_is_latency(const json_t *c) {
  const char *op = gcb_view_param_str(c, "op");
  const json_t *params = json_object_get(c, "params");
  const json_t *size = json_object_get(params, "size");
  return strcmp(op, "latency") == 0 || strcmp(op, "barrier") == 0 ||
         strcmp(gcb_view_param_str(c, "direction"), "latency") == 0 ||
         (json_is_number(size) && json_number_value(size) == 0);
}

/* ---- formatting -----------------------------------------------------------
 */

/* Units scaled to the figure: from unit to big at >= up, to small (x
 * 1000) below down. */
static const struct scale {
  const char *unit, *big, *small;
  double up, down;
} scales[] = {
    {"GFLOP/s", "TFLOP/s", "MFLOP/s", 1000, 1},
    {"GB/s", "TB/s", "MB/s", 1000, 1},
    {"us", "ms", "ns", 1000, 1},
    {"ms", "s", "us", 1000, 1},
};

/* The factor and unit text that suit a magnitude a in unit. */
double gcb_unit_scale(double a, const char *unit, const char **shown) {
  *shown = unit;
  for (size_t i = 0; i < sizeof scales / sizeof *scales; i++) {
    if (strcmp(unit, scales[i].unit) != 0)
      continue;
    if (a >= scales[i].up) {
      *shown = scales[i].big;
      return 1 / scales[i].up;
    }
    if (a > 0 && a < scales[i].down) {
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
  if (strcmp(unit, "s") == 0) {
    gcb_view_fmt_time(x, buf, size);
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
