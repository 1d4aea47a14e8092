/*
 * Building the typed model (model.h) from a validated results tree, and
 * its lookups. A member the schema's rows say the model keeps (IN,
 * schema.h; the rows beside each section's writer) is read by its row,
 * with the fallbacks view.h gives for optional ones; each section's
 * builder reads the rest. Everything the model allocates is recorded in
 * one arena and freed together; strings are borrowed from the tree,
 * per-rank columns from the arrays a read document holds them in
 * (ranks.h).
 */
#include "reports/document/model.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/busid.h"
#include "common/grow.h"
#include "reports/document/results_int.h"
#include "reports/document/view.h"

/* ---- the arena ---------------------------------------------------------- */

/* Every block the model owns, freed by gcb_model_free. */
struct gcb__model_arena {
  void **blocks;
  size_t n, cap;
  bool failed; /* sticky: one check at the end of the build */
  /* the per-rank columns of a tree built in memory, read once */
  struct gcb_ranks *ranks;
  size_t nranks, ranks_cap; /* ranks_cap: the builder's (gcb_grow) */
};

static void *arena_keep(struct gcb__model_arena *a, void *p) {
  if (p == NULL) {
    a->failed = true;
    return NULL;
  }
  if (a->n == a->cap) {
    size_t cap = a->cap ? 2 * a->cap : 64;
    void **b = realloc(a->blocks, cap * sizeof *b);
    if (b == NULL) {
      free(p);
      a->failed = true;
      return NULL;
    }
    a->blocks = b;
    a->cap = cap;
  }
  return a->blocks[a->n++] = p;
}

/* n zeroed elements of size each (n may be 0: a valid pointer is not
 * needed then, NULL is returned without failing). */
static void *arena_calloc(struct gcb__model_arena *a, size_t n, size_t size) {
  if (n == 0 || a->failed)
    return NULL;
  return arena_keep(a, calloc(n, size));
}

/* Room for an element of size bytes per element of the JSON array list;
 * *n: how many (0 when it is empty, or with the arena's failure
 * recorded). */
static void *arena_array(struct gcb__model_arena *a, const json_t *list,
                         size_t size, size_t *n) {
  void *p = arena_calloc(a, json_array_size(list), size);
  *n = p != NULL ? json_array_size(list) : 0;
  return p;
}

/* A copy of s (NULL stays NULL; "" on ENOMEM). */
static const char *arena_str(struct gcb__model_arena *a, const char *s) {
  size_t n = s != NULL ? strlen(s) + 1 : 0;
  char *c = arena_calloc(a, n, 1);
  return c != NULL ? memcpy(c, s, n) : s != NULL ? "" : NULL;
}

/* ---- bus ids and host links ---------------------------------------------- */

/* Whether text names the PCI function want: the same as comparing the
 * canonical forms (the form is one-to-one), without formatting either,
 * which was a tenth of a 16,384-rank report (a lookup per rank and GPU). */
static bool same_busid(const struct gcb_busid *want, const char *text) {
  struct gcb_busid have;
  return gcb_busid_parse(text, &have, NULL) == GCB_OK &&
         have.domain == want->domain && have.bus == want->bus &&
         have.dev == want->dev && have.func == want->func;
}

/* A GPU's expected host link (H2D/D2H) in GB/s per direction, or NAN. */
static double host_gbps(const json_t *gpu) {
  double v = gcb_view_num(gcb_view_obj(gpu, "host_link"), "expected_gbps");
  return v > 0 ? v : NAN;
}

/* ---- the schema's rows -------------------------------------------------- */

/* obj's members that rows say the model keeps (IN, schema.h), read
 * into out, a struct of the rows' type, with their fallbacks when absent
 * (obj NULL: all absent); those of an object without a member of its own
 * go into out too. */
static void read_rows(const json_t *obj, const struct gcb__field *rows,
                      void *out) {
  for (const struct gcb__field *f = rows; f->name != NULL; f++) {
    const json_t *v = json_object_get(obj, f->name);
    char *at = (char *)out + f->moff;
    switch (f->mtype) {
    case GCB__M_NONE:
      if (f->node->fields != NULL)
        read_rows(json_is_object(v) ? v : NULL, f->node->fields, out);
      break;
    case GCB__M_INT:
      *(long long *)at = json_is_integer(v) ? json_integer_value(v) : -1;
      break;
    case GCB__M_NUM:
      *(double *)at = json_is_number(v) ? json_number_value(v) : NAN;
      break;
    case GCB__M_STR:
      *(const char **)at = json_is_string(v) ? json_string_value(v) : "";
      break;
    case GCB__M_BOOL:
      *(bool *)at = json_is_true(v);
      break;
    }
  }
}

/* The rows of the objects in the array that rows' field `name` is. */
static const struct gcb__field *item_rows(const struct gcb__field *rows,
                                          const char *name) {
  return gcb__schema_field(rows, name)->node->items->fields;
}

/* Member `name` of obj, an array of objects (item_rows gives their rows),
 * read into *n structs of size bytes each (NULL with *n 0 when empty, or
 * with the arena's failure recorded). */
static void *read_list(struct gcb__model_arena *a, const json_t *obj,
                       const struct gcb__field *rows, const char *name,
                       size_t size, size_t *n) {
  const json_t *list = json_object_get(obj, name);
  char *p = arena_array(a, list, size, n);
  for (size_t i = 0; i < *n; i++)
    read_rows(json_array_get(list, i), item_rows(rows, name), p + i * size);
  return p;
}

/* ---- free-form values --------------------------------------------------- */

char *gcb__json_text(const json_t *v) {
  const size_t flags = JSON_COMPACT | JSON_ENCODE_ANY;
  size_t n = json_dumpb(v, NULL, 0, flags); /* 0: an error (ENOMEM) */
  char *text = n > 0 ? malloc(n + 1) : NULL;
  if (text != NULL && json_dumpb(v, text, n, flags) != n) {
    free(text);
    text = NULL;
  }
  if (text != NULL)
    text[n] = '\0';
  return text;
}

static void mvalue_of(struct gcb__model_arena *a, const json_t *v, bool copy,
                      struct gcb_mvalue *out);

static void mvalue_object(struct gcb__model_arena *a, const json_t *v,
                          bool copy, struct gcb_mvalue *out) {
  const char *key;
  const json_t *m;
  size_t i = 0;
  out->n = json_object_size(v);
  out->members = arena_calloc(a, out->n, sizeof *out->members);
  if (out->members == NULL) {
    out->n = 0;
    return;
  }
  json_object_foreach((json_t *)v, key, m) {
    out->members[i].key = copy ? arena_str(a, key) : key;
    mvalue_of(a, m, copy, &out->members[i].value);
    i++;
  }
}

/* v as a free-form value (ABSENT for NULL), its strings and keys borrowed
 * from v, or with copy copied into the arena (v may then go). */
static void mvalue_of(struct gcb__model_arena *a, const json_t *v, bool copy,
                      struct gcb_mvalue *out) {
  static const enum gcb_mv_type types[] = {
      [JSON_OBJECT] = GCB_MV_OBJECT, [JSON_ARRAY] = GCB_MV_ARRAY,
      [JSON_STRING] = GCB_MV_STRING, [JSON_INTEGER] = GCB_MV_INT,
      [JSON_REAL] = GCB_MV_REAL,     [JSON_TRUE] = GCB_MV_BOOL,
      [JSON_FALSE] = GCB_MV_BOOL,    [JSON_NULL] = GCB_MV_NULL};
  *out = (struct gcb_mvalue){.type = GCB_MV_ABSENT, .num = NAN};
  if (v == NULL)
    return;
  out->type = types[json_typeof(v)];
  out->b = json_is_true(v);
  out->i = json_is_integer(v) ? (long long)json_integer_value(v) : 0;
  if (json_is_number(v))
    out->num = json_number_value(v);
  if (json_is_string(v)) {
    out->text =
        copy ? arena_str(a, json_string_value(v)) : json_string_value(v);
    return;
  }
  /* The text a message quotes, as compare's notes always printed it (a
   * built model's scalars and objects get theirs from gcb__model_done). */
  if (!copy || json_is_array(v))
    out->text = arena_keep(a, gcb__json_text(v));
  if (json_is_object(v))
    mvalue_object(a, v, copy, out);
}

static const struct gcb_mvalue absent = {.type = GCB_MV_ABSENT, .num = NAN};

const struct gcb_mvalue *gcb_mvalue_get(const struct gcb_mvalue *v,
                                        const char *key) {
  for (size_t i = 0; v != NULL && v->type == GCB_MV_OBJECT && i < v->n; i++)
    if (strcmp(v->members[i].key, key) == 0)
      return &v->members[i].value;
  return &absent;
}

const char *gcb_mvalue_str(const struct gcb_mvalue *v, const char *key) {
  const struct gcb_mvalue *x = gcb_mvalue_get(v, key);
  return x->type == GCB_MV_STRING ? x->text : "";
}

bool gcb_mvalue_equal(const struct gcb_mvalue *a, const struct gcb_mvalue *b) {
  if (a->type != b->type)
    return false;
  switch (a->type) {
  case GCB_MV_ABSENT:
  case GCB_MV_NULL:
    return true;
  case GCB_MV_BOOL:
    return a->b == b->b;
  case GCB_MV_INT:
    return a->i == b->i;
  case GCB_MV_REAL:
    return a->num == b->num;
  case GCB_MV_STRING:
  case GCB_MV_ARRAY:
    return strcmp(a->text, b->text) == 0;
  case GCB_MV_OBJECT:
    if (a->n != b->n)
      return false;
    for (size_t i = 0; i < a->n; i++)
      if (!gcb_mvalue_equal(&a->members[i].value,
                            gcb_mvalue_get(b, a->members[i].key)))
        return false;
    return true;
  }
  return false;
}

/* ---- the run ------------------------------------------------------------ */

static void build_probe(struct gcb__model_arena *a, const json_t *probe,
                        struct gcb_model_run *run) {
  const struct gcb__field *rows =
      gcb__schema_field(gcb__n_run.fields, "mpi_probe")->node->fields;
  const json_t *pairs = json_object_get(probe, "pairs");
  run->has_probe = json_is_object(probe);
  run->probe_bytes = gcb_view_int(probe, "bytes", 8);
  run->probe =
      read_list(a, probe, rows, "pairs", sizeof *run->probe, &run->nprobe);
  for (size_t i = 0; i < run->nprobe; i++) {
    const json_t *ranks = json_object_get(json_array_get(pairs, i), "ranks");
    for (size_t k = 0; k < 2; k++)
      run->probe[i].ranks[k] = json_integer_value(json_array_get(ranks, k));
  }
}

/* The run's fields from its run object, whichever road built that. */
static void run_fields(struct gcb_model_run *run) {
  const struct gcb_mvalue *r = &run->run, *ranks = gcb_mvalue_get(r, "ranks"),
                          *nodes = gcb_mvalue_get(r, "nodes");
  run->id = gcb_mvalue_str(r, "id");
  run->command = gcb_mvalue_str(r, "command");
  run->start_time = gcb_mvalue_str(r, "start_time");
  run->end_time = gcb_mvalue_str(r, "end_time");
  run->status = gcb_mvalue_str(r, "status");
  run->backend = gcb_mvalue_str(r, "backend");
  run->backend_reason = gcb_mvalue_str(r, "backend_reason");
  run->ranks = ranks->type == GCB_MV_INT ? ranks->i : -1;
  run->nodes = nodes->type == GCB_MV_INT ? nodes->i : -1;
}

static void build_run(struct gcb__model_arena *a, const json_t *root,
                      struct gcb_model_run *run) {
  const json_t *tool = json_object_get(root, "tool"),
               *r = json_object_get(root, "run");
  *run = (struct gcb_model_run){.schema = gcb_view_str(root, "schema")};
  read_rows(tool, gcb__n_tool.fields, run);
  mvalue_of(a, r, false, &run->run);
  run_fields(run);
  mvalue_of(a, gcb_view_obj(r, "environment"), false, &run->environment);
  mvalue_of(a, json_object_get(root, "software"), false, &run->software);
  mvalue_of(a, json_object_get(root, "options"), false, &run->options);
  build_probe(a, gcb_view_obj(r, "mpi_probe"), run);
}

/* ---- nodes -------------------------------------------------------------- */

/* topology.paths: the devices, and the class and expected GB/s matrices
 * flattened (a cell absent from a short row reads as absent). */
static void build_paths(struct gcb__model_arena *a, const json_t *paths,
                        struct gcb_model_node *n) {
  const json_t *devs = json_object_get(paths, "devices"),
               *cls = json_object_get(paths, "matrix"),
               *gbps = json_object_get(paths, "expected_gbps");
  size_t k = json_array_size(devs);
  n->path_devices = arena_calloc(a, k, sizeof *n->path_devices);
  n->path_class = arena_calloc(a, k * k, sizeof *n->path_class);
  n->path_gbps = arena_calloc(a, k * k, sizeof *n->path_gbps);
  if (k == 0 || a->failed)
    return;
  n->npaths = k;
  for (size_t i = 0; i < k; i++) {
    const char *name = json_string_value(json_array_get(devs, i));
    n->path_devices[i] = name != NULL ? name : "";
    for (size_t j = 0; j < k; j++) {
      const json_t *c = json_array_get(json_array_get(cls, i), j),
                   *v = json_array_get(json_array_get(gbps, i), j);
      const char *s = json_string_value(c);
      n->path_class[i * k + j] = s != NULL ? s : "";
      n->path_gbps[i * k + j] = json_is_number(v) && json_number_value(v) > 0
                                    ? json_number_value(v)
                                    : NAN;
    }
  }
}

static void build_topology(struct gcb__model_arena *a, const json_t *topo,
                           struct gcb_model_node *n) {
  const struct gcb__field *rows = gcb__n_topology.fields;
  const json_t *gpus = json_object_get(topo, "gpus"),
               *nics = json_object_get(topo, "nics"),
               *numa = json_object_get(topo, "numa_nodes"),
               *placement = json_object_get(topo, "placement");
  n->has_topology = topo != NULL;
  n->gpus = read_list(a, topo, rows, "gpus", sizeof *n->gpus, &n->ngpus);
  for (size_t i = 0; i < n->ngpus; i++) {
    struct gcb_model_gpu *g = &n->gpus[i];
    g->node = n->index;
    g->host_gbps = host_gbps(json_array_get(gpus, i));
    g->hops = read_list(a, json_array_get(gpus, i), item_rows(rows, "gpus"),
                        "pcie_path", sizeof *g->hops, &g->nhops);
  }
  n->nics = read_list(a, topo, rows, "nics", sizeof *n->nics, &n->nnics);
  for (size_t i = 0; i < n->nnics; i++)
    n->nics[i].hops =
        read_list(a, json_array_get(nics, i), item_rows(rows, "nics"),
                  "pcie_path", sizeof *n->nics[i].hops, &n->nics[i].nhops);
  n->numa = arena_array(a, numa, sizeof *n->numa, &n->nnuma);
  n->numa_cpus = arena_calloc(a, n->nnuma, sizeof *n->numa_cpus);
  for (size_t i = 0; n->numa_cpus != NULL && i < n->nnuma; i++) {
    n->numa[i] = gcb_view_int(json_array_get(numa, i), "os_index", -1);
    n->numa_cpus[i] = gcb_view_str(json_array_get(numa, i), "cpus");
  }
  n->switches = read_list(a, topo, rows, "pcie_switches", sizeof *n->switches,
                          &n->nswitches);
  build_paths(a, gcb_view_obj(topo, "paths"), n);
  n->has_placement = json_is_array(placement);
  n->placement = read_list(a, topo, rows, "placement", sizeof *n->placement,
                           &n->nplacement);
  n->facts = read_list(a, topo, rows, "facts", sizeof *n->facts, &n->nfacts);
}

static void build_node(struct gcb__model_arena *a, const json_t *e,
                       struct gcb_model_node *n) {
  const json_t *ranks = json_object_get(e, "ranks");
  const struct gcb__field *rows = gcb__n_nodes.items->fields;
  /* cpu_model NULL when absent: compare tells it from an empty one */
  *n = (struct gcb_model_node){
      .cpu_model = json_string_value(json_object_get(e, "cpu_model"))};
  read_rows(e, rows, n);
  n->ranks = arena_array(a, ranks, sizeof *n->ranks, &n->nranks);
  for (size_t i = 0; i < n->nranks; i++)
    n->ranks[i] = (long long)json_integer_value(json_array_get(ranks, i));
  build_topology(a, gcb_view_obj(e, "topology"), n);
  n->health = read_list(a, e, rows, "gpus", sizeof *n->health, &n->nhealth);
}

/* ---- ranks -------------------------------------------------------------- */

static void build_rank(const json_t *e, struct gcb_model_rank *r) {
  const json_t *dev = gcb_view_obj(e, "device");
  /* device_name NULL when absent: compare tells it from an empty one */
  *r = (struct gcb_model_rank){
      .numa = gcb_view_int(e, "numa", -1),
      .has_device = dev != NULL,
      .device_name = json_string_value(json_object_get(dev, "name")),
      .has_blas = gcb_view_obj(e, "blas") != NULL};
  read_rows(e, gcb__n_ranks.items->fields, r);
  /* Later documents may record the GPU's NUMA node with the device. */
  if (r->numa < 0)
    r->numa = gcb_view_int(dev, "numa_node", -1);
}

/* ---- cases -------------------------------------------------------------- */

/* Case e's timeline through the document's reader, its series kept in the
 * arena. The reader fails on a timeline beyond the schema's bounds too,
 * which a validated document cannot hold: that counts as out of memory,
 * as it did where the report read it. */
static void build_timeline(struct gcb__model_arena *a, const json_t *e,
                           struct gcb_model_case *c) {
  if (json_object_get(e, "timeline") == NULL || a->failed)
    return;
  struct gcb_burn_timeline *tl = arena_calloc(a, 1, sizeof *tl);
  if (tl == NULL)
    return;
  if (!gcb_results_burn_timeline(e, c->ranks.n, tl)) {
    a->failed = true;
    return;
  }
  for (int s = 0; s < GCB_BURN_SERIES_COUNT; s++) {
    if (tl->v[s] == NULL)
      continue;
    if (a->failed)
      free(tl->v[s]); /* arena_keep freed the one it could not keep */
    else
      arena_keep(a, tl->v[s]);
  }
  c->timeline = tl;
}

/* Case e's per-rank columns: r's arrays (borrowed), as they are. */
static void build_columns(const struct gcb_ranks *r,
                          struct gcb_model_columns *out) {
  out->n = r->n;
  for (size_t col = 0; r->n > 0 && col < GCB_RC_COUNT; col++) {
    out->num[col] = r->num[col];
    out->str[col] = (const char *const *)r->str[col];
  }
}

/* The parameters the model has fields for, from c->params. */
static void known_params(struct gcb_model_case *c) {
  c->size = gcb_model_param_num(c, "size");
  c->bytes = gcb_model_param_num(c, "bytes");
  c->count = gcb_model_param_num(c, "count");
  c->m = gcb_model_param_num(c, "m");
  c->n = gcb_model_param_num(c, "n");
  c->k = gcb_model_param_num(c, "k");
  c->src = gcb_model_param_num(c, "src");
  c->dst = gcb_model_param_num(c, "dst");
  c->dtype = gcb_model_param_str(c, "dtype");
  c->op = gcb_model_param_str(c, "op");
  c->direction = gcb_model_param_str(c, "direction");
  c->memory = gcb_model_param_str(c, "memory");
  c->kernel = gcb_model_param_str(c, "kernel");
  c->path = gcb_model_param_str(c, "path");
}

static void build_case(struct gcb__model_arena *a, const json_t *e,
                       size_t index, const struct gcb_ranks *r,
                       struct gcb_model_case *c) {
  const json_t *p = json_object_get(e, "params"),
               *v = gcb_view_obj(e, "validation");
  *c = (struct gcb_model_case){
      .index = index,
      .validation = {.present = v != NULL,
                     .passed_present =
                         json_is_boolean(json_object_get(v, "passed")),
                     .wrong = gcb_view_int(v, "wrong", 0)}};
  read_rows(e, gcb__n_case.fields, c);
  c->kind = gcb_bench_kind_find(c->bench);
  mvalue_of(a, p, false, &c->params);
  known_params(c);
  build_columns(r, &c->ranks);
  build_timeline(a, e, c);
}

/* ---- errors, skips, the whole ------------------------------------------- */

/* Case i's per-rank columns: those res holds apart (a document read),
 * else its tree's, read into the arena's once. */
static const struct gcb_ranks *case_ranks(struct gcb__model_arena *a,
                                          const struct gcb_results *res,
                                          size_t i, const json_t *e) {
  static const struct gcb_ranks none;
  const struct gcb_ranks *r = res != NULL ? gcb_results_ranks(res, i) : NULL;
  if (r != NULL || a->failed)
    return r != NULL ? r : &none;
  if (gcb_ranks_of(e, &a->ranks[i]) != 0)
    a->failed = true;
  return &a->ranks[i];
}

/* A case's sweep (gcb_model_sweep_key's parts, whole: its key without the
 * varied params, then its transport) and its position, sorted so that
 * equal sweeps lie side by side, the first case first. */
struct sweep_key {
  char *key;
  const char *backend;
  size_t at;
};

static int cmp_sweep(const struct sweep_key *a, const struct sweep_key *b) {
  int c = strcmp(a->key, b->key);
  return c != 0 ? c : strcmp(a->backend, b->backend);
}

static int cmp_sweep_key(const void *x, const void *y) {
  const struct sweep_key *a = x, *b = y;
  int c = cmp_sweep(a, b);
  return c != 0 ? c : (a->at > b->at) - (a->at < b->at);
}

static const char *const sweep_varied[] = {"size", "bytes", "count", "inplace",
                                           NULL};

/* Sets each case's sweep: keys sorted once (n log n; a scan per case was
 * quadratic in a document of many cases). */
static void find_sweeps(struct gcb__model_arena *a, struct gcb_model *m) {
  size_t n = m->ncases, made = 0;
  struct sweep_key *k = calloc(n + 1, sizeof *k);
  for (; k != NULL && made < n; made++) {
    const struct gcb_model_case *c = &m->cases[made];
    k[made] = (struct sweep_key){gcb_model_case_key_dup(c, sweep_varied),
                                 c->backend, made};
    if (k[made].key == NULL)
      break;
  }
  bool ok = k != NULL && made == n;
  if (ok && n > 1)
    qsort(k, n, sizeof *k, cmp_sweep_key);
  for (size_t i = 0, j; ok && i < n; i = j)
    for (j = i; j < n && cmp_sweep(&k[j], &k[i]) == 0; j++)
      m->cases[k[j].at].sweep = k[i].at;
  for (size_t i = 0; i < made; i++)
    free(k[i].key);
  free(k);
  a->failed |= !ok;
}

static void build(struct gcb__model_arena *a, const json_t *root,
                  const struct gcb_results *res, struct gcb_model *m) {
  const json_t *nodes = json_object_get(root, "nodes"),
               *ranks = json_object_get(root, "ranks"),
               *cases = json_object_get(root, "cases"), *e;
  size_t i;
  build_run(a, root, &m->run);
  m->nodes = arena_array(a, nodes, sizeof *m->nodes, &m->nnodes);
  m->ranks = arena_array(a, ranks, sizeof *m->ranks, &m->nranks);
  m->cases = arena_array(a, cases, sizeof *m->cases, &m->ncases);
  a->nranks = m->ncases;
  if (m->ncases > 0 && (a->ranks = calloc(m->ncases, sizeof *a->ranks)) == NULL)
    a->failed = true;
  if (a->failed)
    return;
  json_array_foreach(nodes, i, e) {
    build_node(a, e, &m->nodes[i]);
  }
  json_array_foreach(ranks, i, e) {
    build_rank(e, &m->ranks[i]);
  }
  json_array_foreach(cases, i, e) {
    build_case(a, e, i, case_ranks(a, res, i, e), &m->cases[i]);
  }
  find_sweeps(a, m);
  m->errors = read_list(a, root, gcb__root_fields, "errors", sizeof *m->errors,
                        &m->nerrors);
  m->skips = read_list(a, root, gcb__root_fields, "skipped", sizeof *m->skips,
                       &m->nskips);
}

/* gcb_model_from_results and gcb_model_from_json: res NULL for a tree
 * alone. */
static enum gcb_status model_of(const json_t *root,
                                const struct gcb_results *res, const char *name,
                                struct gcb_model **out, struct gcb_err *err) {
  struct gcb_model *m = gcb__model_new(name);
  *out = NULL;
  if (m != NULL) {
    build(m->arena, root, res, m);
    if (!m->arena->failed) {
      *out = m;
      return GCB_OK;
    }
  }
  gcb_model_free(m);
  return gcb_err_set(err, GCB_ENOMEM, "model: out of memory");
}

enum gcb_status gcb_model_from_json(const json_t *root, const char *name,
                                    struct gcb_model **out,
                                    struct gcb_err *err) {
  return model_of(root, NULL, name, out, err);
}

enum gcb_status gcb_model_from_results(const struct gcb_results *res,
                                       const char *name, struct gcb_model **out,
                                       struct gcb_err *err) {
  return model_of(gcb_results_json(res), res, name, out, err);
}

void gcb_model_free(struct gcb_model *m) {
  if (m == NULL)
    return;
  if (m->arena != NULL) {
    for (size_t i = 0; i < m->arena->n; i++)
      free(m->arena->blocks[i]);
    free(m->arena->blocks);
    gcb__ranks_free_all(m->arena->ranks, m->arena->nranks);
    free(m->arena);
  }
  free(m);
}

/* ---- lookups ------------------------------------------------------------ */

/* A key as lists are ordered by it: entries without one (-1) last. */
static long long sort_key(long long key) {
  return key >= 0 ? key : LLONG_MAX;
}

/* The first of entries 0..n of list, in key order (key(list, i) is entry
 * i's), whose key is want, or -1: index `want` tried first, then a
 * binary search. */
static long long find_keyed(const void *list, size_t n, long long want,
                            long long (*key)(const void *list, size_t i)) {
  size_t lo = 0, hi = n;
  if (want < 0)
    return -1;
  if ((size_t)want < n && key(list, (size_t)want) == want &&
      (want == 0 || sort_key(key(list, (size_t)want - 1)) < want))
    return want;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sort_key(key(list, mid)) < want)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && key(list, lo) == want ? (long long)lo : -1;
}

static long long rank_key(const void *m, size_t i) {
  return ((const struct gcb_model *)m)->ranks[i].rank;
}

static long long node_key(const void *m, size_t i) {
  return ((const struct gcb_model *)m)->nodes[i].index;
}

const struct gcb_model_rank *gcb_model_rank(const struct gcb_model *m,
                                            long long rank) {
  long long i = find_keyed(m, m->nranks, rank, rank_key);
  return i >= 0 ? &m->ranks[i] : NULL;
}

const struct gcb_model_node *gcb_model_node(const struct gcb_model *m,
                                            long long index) {
  long long i = find_keyed(m, m->nnodes, index, node_key);
  return i >= 0 ? &m->nodes[i] : NULL;
}

void gcb_model_place(const struct gcb_model *m, long long rank,
                     struct gcb_place *out) {
  const struct gcb_model_rank *r = gcb_model_rank(m, rank);
  *out = (struct gcb_place){
      .node = -1, .hostname = "", .gpu = -1, .bus_id = "", .numa = -1};
  if (r == NULL)
    return;
  *out = (struct gcb_place){.node = r->node,
                            .hostname = r->hostname,
                            .gpu = r->device_index,
                            .bus_id = r->device_bus_id,
                            .numa = r->numa};
}

double gcb_model_col(const struct gcb_model_case *c, enum gcb_rank_col col,
                     size_t i) {
  const double *v = c->ranks.num[col];
  return v != NULL && i < c->ranks.n ? v[i] : NAN;
}

long long gcb_model_col_int(const struct gcb_model_case *c,
                            enum gcb_rank_col col, size_t i, long long def) {
  double v = gcb_model_col(c, col, i);
  return isnan(v) ? def : (long long)v;
}

const char *gcb_model_col_str(const struct gcb_model_case *c,
                              enum gcb_rank_col col, size_t i) {
  const char *const *v = c->ranks.str[col];
  return v != NULL && i < c->ranks.n && v[i] != NULL ? v[i] : "";
}

long long gcb_model_col_rank(const struct gcb_model_case *c, size_t i,
                             long long def) {
  return gcb_model_col_int(c, GCB_RC_RANK, i, def);
}

static long long col_key(const void *c, size_t i) {
  return gcb_model_col_rank(c, i, -1);
}

long long gcb_model_col_find(const struct gcb_model_case *c, long long rank) {
  return find_keyed(c, c->ranks.n, rank, col_key);
}

/* ---- keys (over typed params) ------------------------------------------- */

/* The key text of a case from its bench, unit and the params it keeps
 * (p[0..n), in any order: sorted here by key), each value already as text:
 * bench, the params as key=value in sorted key order, then [unit] ("gemm
 * dtype=fp32 m=256 [GFLOP/s]"), truncated at a UTF-8 boundary to fit buf;
 * returns the whole key's length (as snprintf does: a buf of that plus
 * one holds it whole). */
#define KEY_PARAMS 32 /* held on the stack; more are allocated */
struct key_param {
  const char *key;
  const char *val; /* its text: the string's own; NULL: num (sorting
                      moves the entries, so none points into itself) */
  char num[32];    /* a number as %.17g */
};

/* Appends to buf[*used..size) with printf semantics, never overflowing;
 * the caller trims a character cut short (gcb__view_trim_partial). */
static void append(char *buf, size_t size, size_t *used, const char *fmt,
                   const char *a, const char *b) {
  bool room = *used + 1 < size;
  int n =
      snprintf(room ? buf + *used : NULL, room ? size - *used : 0, fmt, a, b);
  *used += n > 0 ? (size_t)n : 0; /* the whole text's length */
}

static int cmp_param(const void *a, const void *b) {
  return strcmp(((const struct key_param *)a)->key,
                ((const struct key_param *)b)->key);
}

static size_t view_key(const char *bench, const char *unit, struct key_param *p,
                       size_t n, char *buf, size_t size) {
  size_t used = 0;
  if (n > 1)
    qsort(p, n, sizeof *p, cmp_param);
  if (size > 0)
    buf[0] = '\0';
  append(buf, size, &used, "%s%s", bench, "");
  for (size_t i = 0; i < n; i++)
    append(buf, size, &used, " %s=%s", p[i].key,
           p[i].val != NULL ? p[i].val : p[i].num);
  append(buf, size, &used, " [%s]%s", unit, "");
  if (size > 0)
    gcb__view_trim_partial(buf);
  return used;
}

/* A parameter's text in a key: numbers with %.17g, strings as they are
 * (whole), anything else "?". */
static void scalar_text(const struct gcb_mvalue *v, struct key_param *p) {
  if (v->type == GCB_MV_INT || v->type == GCB_MV_REAL) {
    snprintf(p->num, sizeof p->num, "%.17g", v->num);
    p->val = NULL;
  } else {
    p->val = v->type == GCB_MV_STRING ? v->text : "?";
  }
}

static bool skipped(const char *key, const char *const *skip) {
  for (; skip != NULL && *skip != NULL; skip++)
    if (strcmp(*skip, key) == 0)
      return true;
  return false;
}

size_t gcb_model_case_key_except(const struct gcb_model_case *c,
                                 const char *const *skip, char *buf,
                                 size_t size) {
  struct key_param stack[KEY_PARAMS], *p = stack;
  if (c->params.n > KEY_PARAMS &&
      (p = malloc(c->params.n * sizeof *p)) == NULL) {
    if (size > 0)
      buf[0] = '\0';
    return SIZE_MAX;
  }
  size_t n = 0;
  for (size_t i = 0; i < c->params.n; i++) {
    const struct gcb_mkv *kv = &c->params.members[i];
    if (!skipped(kv->key, skip)) {
      p[n].key = kv->key;
      scalar_text(&kv->value, &p[n++]);
    }
  }
  size_t len = view_key(c->bench, c->unit, p, n, buf, size);
  if (p != stack)
    free(p);
  return len;
}

char *gcb_model_case_key_dup(const struct gcb_model_case *c,
                             const char *const *skip) {
  size_t len = gcb_model_case_key_except(c, skip, NULL, 0);
  char *key = len < SIZE_MAX ? malloc(len + 1) : NULL;
  if (key != NULL)
    gcb_model_case_key_except(c, skip, key, len + 1);
  return key;
}

void gcb_model_case_key(const struct gcb_model_case *c, char *buf,
                        size_t size) {
  gcb_model_case_key_except(c, NULL, buf, size);
}

void gcb_model_sweep_key(const struct gcb_model_case *c, char *buf,
                         size_t size) {
  char key[GCB_VIEW_SWEEP_KEY];
  if (size == 0)
    return;
  gcb_model_case_key_except(c, sweep_varied, key, sizeof key);
  snprintf(buf, size, "%s %s", key, c->backend);
  gcb__view_trim_partial(buf);
}

void gcb_model_case_title(const struct gcb_model_case *c, char *buf,
                          size_t size) {
  if (size == 0)
    return;
  int n = snprintf(buf, size, "%s: %s", c->bench, c->label);
  bool cut = n > 0 && (size_t)n >= size && size > 3;
  if (cut)
    buf[size - 4] = '\0';
  gcb__view_trim_partial(buf);
  if (cut)
    strcat(buf, "..."); /* the reader sees the title was cut */
}

double gcb_model_param_num(const struct gcb_model_case *c, const char *key) {
  const struct gcb_mvalue *v = gcb_mvalue_get(&c->params, key);
  if (v->type == GCB_MV_INT || v->type == GCB_MV_REAL)
    return v->num;
  if (v->type != GCB_MV_STRING || v->text[0] == '\0')
    return NAN;
  char *end;
  double x = strtod(v->text, &end);
  return *end == '\0' ? x : NAN;
}

const char *gcb_model_param_str(const struct gcb_model_case *c,
                                const char *key) {
  return gcb_mvalue_str(&c->params, key);
}

bool gcb_model_case_is_latency(const struct gcb_model_case *c) {
  const struct gcb_mvalue *size = gcb_mvalue_get(&c->params, "size");
  return strcmp(c->op, "latency") == 0 || strcmp(c->op, "barrier") == 0 ||
         strcmp(c->direction, "latency") == 0 ||
         ((size->type == GCB_MV_INT || size->type == GCB_MV_REAL) &&
          size->num == 0);
}

/* ---- GPUs --------------------------------------------------------------- */

const struct gcb_model_gpu *gcb_model_node_gpu(const struct gcb_model_node *n,
                                               long long index) {
  if (index < 0)
    return NULL;
  if ((size_t)index < n->ngpus && n->gpus[index].index == index)
    return &n->gpus[index];
  for (size_t i = 0; i < n->ngpus; i++)
    if (n->gpus[i].index == index)
      return &n->gpus[i];
  return NULL;
}

const struct gcb_model_gpu *gcb_model_gpu(const struct gcb_model *m,
                                          long long node, long long index) {
  const struct gcb_model_node *n = gcb_model_node(m, node);
  return n != NULL ? gcb_model_node_gpu(n, index) : NULL;
}

const struct gcb_model_gpu *gcb_model_gpu_by_busid(const struct gcb_model *m,
                                                   long long node,
                                                   const char *busid) {
  const struct gcb_model_node *n = gcb_model_node(m, node);
  struct gcb_busid want;
  if (n == NULL || gcb_busid_parse(busid, &want, NULL) != GCB_OK)
    return NULL;
  for (size_t i = 0; i < n->ngpus; i++)
    if (same_busid(&want, n->gpus[i].busid))
      return &n->gpus[i];
  return NULL;
}

const struct gcb_model_health *
gcb_model_health_by_busid(const struct gcb_model *m, long long node,
                          const char *busid) {
  const struct gcb_model_node *n = gcb_model_node(m, node);
  struct gcb_busid want;
  if (n == NULL || gcb_busid_parse(busid, &want, NULL) != GCB_OK)
    return NULL;
  for (size_t i = 0; i < n->nhealth; i++)
    if (same_busid(&want, n->health[i].bus_id))
      return &n->health[i];
  return NULL;
}

/* ---- GPU pairs' paths --------------------------------------------------- */

/* Whether s is "GPU<index>" as "GPU%lld" writes it (without printf: asked
 * for every GPU pair of every node). */
static bool names_gpu(const char *s, long long index) {
  if (s == NULL || strncmp(s, "GPU", 3) != 0 || s[3] == '\0' ||
      (s[3] == '0' && s[4] != '\0'))
    return false;
  long long v = 0;
  for (s += 3; *s >= '0' && *s <= '9' && v <= index; s++)
    v = 10 * v + (*s - '0');
  return *s == '\0' && v == index;
}

/* The slot of "GPU<index>" in the node's paths.devices (GPUs come first,
 * so normally the index itself), or -1. */
static long long path_slot(const struct gcb_model_node *n, long long index) {
  if (index < 0)
    return -1;
  if ((size_t)index < n->npaths && names_gpu(n->path_devices[index], index))
    return index;
  for (size_t i = 0; i < n->npaths; i++)
    if (names_gpu(n->path_devices[i], index))
      return (long long)i;
  return -1;
}

/* The cell of GPUs a and b in node n's paths matrices, or -1. */
static long long pair_cell(const struct gcb_model_node *n, long long a,
                           long long b) {
  long long sa = n != NULL ? path_slot(n, a) : -1;
  long long sb = n != NULL ? path_slot(n, b) : -1;
  return sa < 0 || sb < 0 ? -1 : sa * (long long)n->npaths + sb;
}

double gcb_model_pair_gbps(const struct gcb_model_node *n, long long a,
                           long long b) {
  long long cell = pair_cell(n, a, b);
  return cell >= 0 ? n->path_gbps[cell] : NAN;
}

const char *gcb_model_pair_class(const struct gcb_model_node *n, long long a,
                                 long long b) {
  long long cell = pair_cell(n, a, b);
  return cell >= 0 ? n->path_class[cell] : "";
}

/* ---- a node's topology, copied into another model ---------------------- */

static void *arena_dup(struct gcb__model_arena *a, const void *p, size_t n,
                       size_t size) {
  void *c = arena_calloc(a, n, size);
  return c != NULL ? memcpy(c, p, n * size) : NULL;
}

static const char **arena_strs(struct gcb__model_arena *a, const char *const *s,
                               size_t n) {
  const char **c = arena_calloc(a, n, sizeof *c);
  for (size_t i = 0; c != NULL && i < n; i++)
    c[i] = arena_str(a, s[i]);
  return c;
}

static struct gcb_model_hop *
copy_hops(struct gcb__model_arena *a, const struct gcb_model_hop *h, size_t n) {
  struct gcb_model_hop *c = arena_dup(a, h, n, sizeof *c);
  for (size_t i = 0; c != NULL && i < n; i++) {
    c[i].busid = arena_str(a, h[i].busid);
    c[i].link = arena_str(a, h[i].link);
  }
  return c;
}

static void copy_devices(struct gcb__model_arena *a, struct gcb_model_node *to,
                         const struct gcb_model_node *from) {
  to->gpus = arena_dup(a, from->gpus, from->ngpus, sizeof *to->gpus);
  to->ngpus = to->gpus != NULL ? from->ngpus : 0;
  for (size_t i = 0; i < to->ngpus; i++) {
    struct gcb_model_gpu *g = &to->gpus[i];
    g->node = to->index;
    g->busid = arena_str(a, g->busid);
    g->model = arena_str(a, g->model);
    g->arch = arena_str(a, g->arch);
    g->cpus = arena_str(a, g->cpus);
    g->host_basis = arena_str(a, g->host_basis);
    g->hops = copy_hops(a, g->hops, g->nhops);
  }
  to->nics = arena_dup(a, from->nics, from->nnics, sizeof *to->nics);
  to->nnics = to->nics != NULL ? from->nnics : 0;
  for (size_t i = 0; i < to->nnics; i++) {
    struct gcb_model_nic *c = &to->nics[i];
    c->name = arena_str(a, c->name);
    c->busid = arena_str(a, c->busid);
    c->hops = copy_hops(a, c->hops, c->nhops);
  }
}

bool gcb__model_copy_topology(struct gcb_model *m, struct gcb_model_node *to,
                              const struct gcb_model_node *from) {
  struct gcb__model_arena *a = m->arena;
  size_t cells = from->npaths * from->npaths;
  to->has_topology = true;
  copy_devices(a, to, from);
  to->numa = arena_dup(a, from->numa, from->nnuma, sizeof *to->numa);
  to->numa_cpus = arena_strs(a, from->numa_cpus, from->nnuma);
  to->nnuma = to->numa != NULL ? from->nnuma : 0;
  to->switches =
      arena_dup(a, from->switches, from->nswitches, sizeof *to->switches);
  to->nswitches = to->switches != NULL ? from->nswitches : 0;
  for (size_t i = 0; i < to->nswitches; i++)
    to->switches[i].busid = arena_str(a, to->switches[i].busid);
  to->path_devices = arena_strs(a, from->path_devices, from->npaths);
  to->path_class = arena_strs(a, from->path_class, cells);
  to->path_gbps = arena_dup(a, from->path_gbps, cells, sizeof *to->path_gbps);
  to->npaths = from->npaths;
  return !a->failed;
}

/* ---- a converted file's model, built directly --------------------------- */

/* Room for element n of a list the builder grows: a list of n elements
 * holds max(8, the next power of two) (so only lists these functions
 * made grow here); a bigger copy when n fills it, the old one left in
 * the arena (at most as much again). */
static void *arena_grow(struct gcb__model_arena *a, void *list, size_t n,
                        size_t size) {
  if (n != 0 && (n < 8 || (n & (n - 1)) != 0))
    return list;
  void *c = arena_calloc(a, n ? 2 * n : 8, size);
  return c != NULL && n > 0 ? memcpy(c, list, n * size) : c;
}

struct gcb_model *gcb__model_new(const char *name) {
  struct gcb_model *m = calloc(1, sizeof *m);
  struct gcb__model_arena *a = calloc(1, sizeof *a);
  if (m == NULL || a == NULL) {
    free(a);
    free(m);
    return NULL;
  }
  m->arena = a;
  m->name = name != NULL ? name : "";
  build_run(a, NULL, &m->run); /* every field as absent */
  return m;
}

const char *gcb__model_str(struct gcb_model *m, const char *s) {
  return arena_str(m->arena, s);
}

struct gcb_mvalue gcb__mvalue_null(void) {
  return (struct gcb_mvalue){.type = GCB_MV_NULL, .num = NAN};
}

struct gcb_mvalue gcb__mvalue_int(long long i) {
  return (struct gcb_mvalue){.type = GCB_MV_INT, .i = i, .num = (double)i};
}

struct gcb_mvalue gcb__mvalue_string(struct gcb_model *m, const char *s) {
  return (struct gcb_mvalue){
      .type = GCB_MV_STRING, .num = NAN, .text = gcb__model_str(m, s)};
}

struct gcb_mvalue gcb__mvalue_object(void) {
  return (struct gcb_mvalue){.type = GCB_MV_OBJECT, .num = NAN};
}

struct gcb_mvalue gcb__mvalue_array(struct gcb_model *m, const char *json) {
  if (json == NULL) /* json_dumps's ENOMEM */
    m->arena->failed = true;
  return (struct gcb_mvalue){
      .type = GCB_MV_ARRAY, .num = NAN, .text = gcb__model_str(m, json)};
}

struct gcb_mvalue gcb__mvalue_json(struct gcb_model *m, const json_t *v) {
  struct gcb_mvalue out;
  mvalue_of(m->arena, v, true, &out);
  return out;
}

bool gcb__mvalue_set(struct gcb_model *m, struct gcb_mvalue *obj,
                     const char *key, struct gcb_mvalue v) {
  struct gcb__model_arena *a = m->arena;
  for (size_t i = 0; i < obj->n; i++)
    if (strcmp(obj->members[i].key, key) == 0) {
      obj->members[i].value = v;
      return !a->failed;
    }
  /* A copy one longer: objects are small, and one the reader built has
   * no room to spare. */
  struct gcb_mkv *c = arena_calloc(a, obj->n + 1, sizeof *c);
  if (c == NULL)
    return false;
  if (obj->n > 0)
    memcpy(c, obj->members, obj->n * sizeof *c);
  c[obj->n] = (struct gcb_mkv){.key = arena_str(a, key), .value = v};
  obj->members = c;
  obj->n++;
  return !a->failed;
}

struct gcb_model_node *gcb__model_add_node(struct gcb_model *m) {
  struct gcb__model_arena *a = m->arena;
  struct gcb_model_node *l = arena_grow(a, m->nodes, m->nnodes, sizeof *l);
  if (l == NULL)
    return NULL;
  m->nodes = l;
  build_node(a, NULL, &l[m->nnodes]); /* every field as absent */
  return &l[m->nnodes++];
}

struct gcb_model_rank *gcb__model_add_rank(struct gcb_model *m) {
  struct gcb_model_rank *l =
      arena_grow(m->arena, m->ranks, m->nranks, sizeof *l);
  if (l == NULL)
    return NULL;
  m->ranks = l;
  build_rank(NULL, &l[m->nranks]);
  return &l[m->nranks++];
}

struct gcb_model_case *gcb__model_add_case(struct gcb_model *m) {
  static const struct gcb_ranks none;
  struct gcb__model_arena *a = m->arena;
  struct gcb_model_case *l = arena_grow(a, m->cases, m->ncases, sizeof *l);
  /* The columns, parallel to the cases until gcb__model_done; doubled
   * as they grow (one longer each time was a copy of them all per case:
   * 18,000 cases of a long log ran past a minute under ASan). */
  if (l == NULL || !gcb_grow((void **)&a->ranks, &a->ranks_cap, m->ncases,
                             sizeof *a->ranks)) {
    a->failed = true;
    return NULL;
  }
  a->ranks[m->ncases] = none;
  a->nranks = m->ncases + 1;
  m->cases = l;
  build_case(a, NULL, m->ncases, &none, &l[m->ncases]);
  return &l[m->ncases++];
}

bool gcb__model_node_rank(struct gcb_model *m, struct gcb_model_node *n,
                          long long rank) {
  long long *l = arena_grow(m->arena, n->ranks, n->nranks, sizeof *l);
  if (l == NULL)
    return false;
  n->ranks = l;
  l[n->nranks++] = rank;
  return true;
}

/* Case c's columns while it is built, of n entries; NULL when n differs
 * from a column given before. */
static struct gcb_ranks *columns_of(struct gcb_model *m,
                                    const struct gcb_model_case *c, size_t n) {
  struct gcb_ranks *r = &m->arena->ranks[c - m->cases];
  if (n == 0 || (r->n != 0 && r->n != n))
    return NULL;
  r->n = n;
  return r;
}

double *gcb__model_column(struct gcb_model *m, struct gcb_model_case *c,
                          enum gcb_rank_col col, size_t n) {
  struct gcb_ranks *r = columns_of(m, c, n);
  if (r == NULL || r->num[col] != NULL)
    return NULL;
  if ((r->num[col] = malloc(n * sizeof *r->num[col])) == NULL) {
    m->arena->failed = true;
    return NULL;
  }
  for (size_t i = 0; i < n; i++)
    r->num[col][i] = NAN;
  return r->num[col];
}

const char **gcb__model_text_column(struct gcb_model *m,
                                    struct gcb_model_case *c,
                                    enum gcb_rank_col col, size_t n) {
  struct gcb_ranks *r = columns_of(m, c, n);
  if (r == NULL || r->str[col] != NULL)
    return NULL;
  if ((r->str[col] = calloc(n, sizeof *r->str[col])) == NULL)
    m->arena->failed = true;
  return (const char **)r->str[col];
}

bool gcb__model_add_skip(struct gcb_model *m, const char *bench,
                         const char *label, const char *reason) {
  struct gcb__model_arena *a = m->arena;
  struct gcb_model_skip *l = arena_grow(a, m->skips, m->nskips, sizeof *l);
  if (l == NULL)
    return false;
  m->skips = l;
  l[m->nskips++] = (struct gcb_model_skip){.bench = arena_str(a, bench),
                                           .label = arena_str(a, label),
                                           .reason = arena_str(a, reason)};
  return !a->failed;
}

bool gcb__model_add_error(struct gcb_model *m, long long rank,
                          const char *bench, const char *label,
                          const char *status, const char *message) {
  struct gcb__model_arena *a = m->arena;
  struct gcb_model_error *l = arena_grow(a, m->errors, m->nerrors, sizeof *l);
  if (l == NULL)
    return false;
  m->errors = l;
  l[m->nerrors++] = (struct gcb_model_error){.rank = rank,
                                             .bench = arena_str(a, bench),
                                             .label = arena_str(a, label),
                                             .status = arena_str(a, status),
                                             .message = arena_str(a, message)};
  return !a->failed;
}

/* v as a jansson value (new reference; NULL on ENOMEM, or for ABSENT). */
static json_t *mv_json(const struct gcb_mvalue *v) {
  json_t *o;
  char *text;
  switch (v->type) {
  case GCB_MV_NULL:
    return json_null();
  case GCB_MV_BOOL:
    return json_boolean(v->b);
  case GCB_MV_INT:
    return json_integer((json_int_t)v->i);
  case GCB_MV_REAL:
    return json_real(v->num);
  case GCB_MV_STRING:
    return json_string(v->text);
  case GCB_MV_ARRAY:
    /* jansson's lexer drops a byte it finds no memory for: a text read
     * back that does not print as it was is out of memory too */
    o = json_loads(v->text, JSON_DECODE_ANY, NULL);
    text = o != NULL ? gcb__json_text(o) : NULL;
    if (text == NULL || strcmp(text, v->text) != 0) {
      json_decref(o);
      o = NULL;
    }
    free(text);
    return o;
  case GCB_MV_OBJECT:
    o = json_object();
    for (size_t i = 0; o != NULL && i < v->n; i++) {
      json_t *e = mv_json(&v->members[i].value);
      if (e == NULL || json_object_set_new(o, v->members[i].key, e) != 0) {
        json_decref(o);
        o = NULL;
      }
    }
    return o;
  case GCB_MV_ABSENT:
    break;
  }
  return NULL;
}

/* The texts of v and its members, as mvalue_of gives them: jansson's
 * compact print of each value that is not a string (an array has its
 * text already). */
static void mv_render(struct gcb__model_arena *a, struct gcb_mvalue *v) {
  if (v->type == GCB_MV_ABSENT || v->type == GCB_MV_STRING ||
      v->type == GCB_MV_ARRAY)
    return;
  json_t *j = mv_json(v);
  v->text = arena_keep(a, j != NULL ? gcb__json_text(j) : NULL);
  json_decref(j);
  for (size_t i = 0; i < v->n; i++)
    mv_render(a, &v->members[i].value);
}

bool gcb__model_param_set(struct gcb_model *m, struct gcb_model_case *c,
                          const char *key, const char *value) {
  struct gcb__model_arena *a = m->arena;
  if (c->params.type != GCB_MV_OBJECT ||
      !gcb__mvalue_set(m, &c->params, key, gcb__mvalue_string(m, value)))
    a->failed = true;
  mv_render(a, &c->params);
  known_params(c);
  return !a->failed;
}

/* Stable order by key (entries without one, -1, last). */
struct keyed {
  long long key;
  size_t at;
};

static int cmp_keyed(const void *x, const void *y) {
  const struct keyed *a = x, *b = y;
  long long ka = sort_key(a->key), kb = sort_key(b->key);
  return ka != kb ? (ka > kb) - (ka < kb) : (a->at > b->at) - (a->at < b->at);
}

/* list[0..n) of `size` bytes each, its key a long long at offset `off`,
 * in key order; false on ENOMEM. */
static bool order_by(void *list, size_t n, size_t size, size_t off) {
  struct keyed *k = malloc((n ? n : 1) * sizeof *k);
  unsigned char *copy = malloc((n ? n : 1) * size), *l = list;
  bool ok = k != NULL && copy != NULL;
  for (size_t i = 0; ok && i < n; i++) {
    memcpy(&k[i].key, l + i * size + off, sizeof k[i].key);
    k[i].at = i;
  }
  if (ok && n > 1) {
    qsort(k, n, sizeof *k, cmp_keyed);
    memcpy(copy, l, n * size);
    for (size_t i = 0; i < n; i++)
      memcpy(l + i * size, copy + k[i].at * size, size);
  }
  free(k);
  free(copy);
  return ok;
}

enum gcb_status gcb__model_done(struct gcb_model *m, struct gcb_err *err) {
  struct gcb__model_arena *a = m->arena;
  if (!order_by(m->ranks, m->nranks, sizeof *m->ranks,
                offsetof(struct gcb_model_rank, rank)) ||
      !order_by(m->nodes, m->nnodes, sizeof *m->nodes,
                offsetof(struct gcb_model_node, index)))
    a->failed = true;
  for (size_t i = 0; i < m->nnodes; i++)
    for (size_t j = 0; j < m->nodes[i].ngpus; j++)
      m->nodes[i].gpus[j].node = m->nodes[i].index;
  for (size_t i = 0; !a->failed && i < m->ncases; i++) {
    struct gcb_model_case *c = &m->cases[i];
    c->index = i;
    c->kind = gcb_bench_kind_find(c->bench);
    mv_render(a, &c->params);
    known_params(c);
    if (gcb__ranks_order(&a->ranks[i]) != 0)
      a->failed = true;
    build_columns(&a->ranks[i], &c->ranks);
  }
  if (!a->failed)
    find_sweeps(a, m);
  run_fields(&m->run);
  mv_render(a, &m->run.run);
  mv_render(a, &m->run.environment);
  mv_render(a, &m->run.software);
  mv_render(a, &m->run.options);
  return a->failed ? gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", m->name)
                   : GCB_OK;
}

/* ---- topology lookups (by node, over the model) ----------------------- */

long long gcb_model_gpu_index(const struct gcb_model *m, long long node,
                              const char *busid) {
  const struct gcb_model_node *n = gcb_model_node(m, node);
  const struct gcb_model_gpu *g = gcb_model_gpu_by_busid(m, node, busid);
  if (n == NULL || !n->has_topology || g == NULL)
    return -1;
  return g->index >= 0 ? g->index : (long long)(g - n->gpus);
}

long long gcb_model_rank_gpu(const struct gcb_model *m, long long rank,
                             const struct gcb_model_node **node) {
  const struct gcb_model_rank *r = gcb_model_rank(m, rank);
  const struct gcb_model_node *n = gcb_model_node(m, r != NULL ? r->node : -1);
  if (n != NULL && !n->has_topology)
    n = NULL;
  if (node != NULL)
    *node = n;
  if (n == NULL || !r->has_device)
    return -1;
  if (r->device_bus_id[0] != '\0')
    return gcb_model_gpu_index(m, n->index, r->device_bus_id);
  return gcb_model_gpu(m, n->index, r->device_index) != NULL ? r->device_index
                                                             : -1;
}

long long gcb_model_gpu_rank(const struct gcb_model *m, long long node,
                             long long gpu) {
  const struct gcb_model_node *n = gcb_model_node(m, node);
  for (size_t i = 0; n != NULL && i < n->nranks; i++)
    if (gcb_model_rank_gpu(m, n->ranks[i], NULL) == gpu)
      return n->ranks[i];
  return -1;
}

/* ---- a case's check family ---------------------------------------------- */

enum gcb_family gcb_model_case_family(const struct gcb_model_case *c) {
  if (c->kind == GCB_BENCH_PCIE && strncmp(c->direction, "d2h", 3) == 0)
    return GCB_FAM_D2H; /* d2h, d2h_bidir */
  return gcb_bench_kind_desc(c->kind)->family;
}

enum gcb_family gcb_model_error_family(const struct gcb_model_error *e) {
  enum gcb_bench_kind k = gcb_bench_kind_find(e->bench);
  if (k == GCB_BENCH_PCIE && (strncmp(e->label, "d2h", 3) == 0 ||
                              strncmp(e->label, "device_to_host", 14) == 0))
    return GCB_FAM_D2H;
  return gcb_bench_kind_desc(k)->family;
}

bool gcb_model_case_alone(const struct gcb_model *m,
                          const struct gcb_model_case *c) {
  double comm = gcb_model_param_num(c, "comm_size");
  return comm > 0 ? comm < 2 : m->run.ranks == 1;
}
