/*
 * Differences between two runs, for compare's "not comparable because"
 * table. Per-node and per-rank fields are summarised as one note per field
 * (how many differ, the first example), so two 4096-rank runs on different
 * GPUs give one line, not 4096. Hostnames, run ids, times and the output
 * path are identity, not conditions, and are not compared.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "reports/compare/compare_notes.h"

/* Options that name files or permissions, never measurement conditions. */
static const char *const ignored_options[] = {"output", "force", NULL};

static const char *const run_fields[] = {"backend", "ranks", "nodes", NULL};

/* A typed field of a node or a rank as a value, so that a difference is
 * judged and quoted as any other member is: integers absent at -1,
 * strings absent at NULL. */
struct field_value {
  struct gcb_mvalue v;
  char text[24];
};

static const struct gcb_mvalue *str_value(struct field_value *f,
                                          const char *s) {
  f->v = (struct gcb_mvalue){
      .type = s != NULL ? GCB_MV_STRING : GCB_MV_ABSENT, .num = NAN, .text = s};
  return &f->v;
}

static const struct gcb_mvalue *int_value(struct field_value *f, long long x) {
  if (x < 0)
    return str_value(f, NULL);
  snprintf(f->text, sizeof f->text, "%lld", x);
  f->v = (struct gcb_mvalue){
      .type = GCB_MV_INT, .i = x, .num = (double)x, .text = f->text};
  return &f->v;
}

/* The compared fields of a node and of a rank: a string (const char *)
 * or an integer (long long) at `offset` of one entry of the model's nodes
 * or ranks. */
struct entry_field {
  const char *name;
  bool text;
  size_t offset;
};

#define NFIELDS(t) (sizeof t / sizeof *t)
#define NODE(name, text)                                                       \
  { #name, text, offsetof(struct gcb_model_node, name) }

static const struct entry_field node_fields[] = {
    NODE(cpu_model, true),  NODE(cores, false),      NODE(pus, false),
    NODE(packages, false),  NODE(numa_nodes, false), NODE(memory_bytes, false),
    NODE(llc_bytes, false),
};
#undef NODE

static const struct entry_field rank_fields[] = {
    {"device.name", true, offsetof(struct gcb_model_rank, device_name)},
    {"device.memory_bytes", false,
     offsetof(struct gcb_model_rank, device_memory_bytes)},
    {"cpu_binding", true, offsetof(struct gcb_model_rank, cpu_binding)},
};

static const struct gcb_mvalue *field_get(const struct entry_field *fd,
                                          const void *entry,
                                          struct field_value *f) {
  const char *at = (const char *)entry + fd->offset;
  return fd->text ? str_value(f, *(const char *const *)at)
                  : int_value(f, *(const long long *)at);
}

static void value_text(const struct gcb_mvalue *v, char *buf, size_t size) {
  gcb_view_copy(buf, size,
                v->type == GCB_MV_ABSENT ? "(absent)"
                : v->text != NULL        ? v->text
                                         : "?");
}

static enum gcb_status note(struct gcb_comparison *cmp, const char *what,
                            const struct gcb_mvalue *a,
                            const struct gcb_mvalue *b, struct gcb_err *err) {
  if (!gcb_grow((void **)&cmp->notes, &cmp->caps[1], cmp->nnotes,
                sizeof *cmp->notes))
    return gcb_err_set(err, GCB_ENOMEM, "compare: out of memory");
  struct gcb_note *n = &cmp->notes[cmp->nnotes++];
  gcb_view_copy(n->what, sizeof n->what, what);
  value_text(a, n->old_value, sizeof n->old_value);
  value_text(b, n->new_value, sizeof n->new_value);
  return GCB_OK;
}

static bool ignored(const char *key, const char *const *list) {
  for (; list != NULL && *list; list++)
    if (strcmp(*list, key) == 0)
      return true;
  return false;
}

/* Every member that differs between objects a and b, recursing into
 * objects present in both (suite options nest per benchmark). */
static enum gcb_status
diff_objects(struct gcb_comparison *cmp, const char *prefix,
             const struct gcb_mvalue *a, const struct gcb_mvalue *b,
             const char *const *skip, struct gcb_err *err) {
  char what[96];
  enum gcb_status st = GCB_OK;
  static const struct gcb_mvalue none = {.type = GCB_MV_ABSENT};
  for (size_t i = 0; a->type == GCB_MV_OBJECT && i < a->n; i++) {
    const char *key = a->members[i].key;
    const struct gcb_mvalue *va = &a->members[i].value,
                            *vb = gcb_mvalue_get(b, key);
    snprintf(what, sizeof what, "%s%s", prefix, key);
    if (ignored(key, skip) || gcb_mvalue_equal(va, vb))
      continue;
    if (va->type == GCB_MV_OBJECT && vb->type == GCB_MV_OBJECT) {
      char sub[96];
      snprintf(sub, sizeof sub, "%s.", what);
      st = diff_objects(cmp, sub, va, vb, skip, err);
    } else {
      st = note(cmp, what, va, vb, err);
    }
    if (st != GCB_OK)
      return st;
  }
  for (size_t i = 0; b->type == GCB_MV_OBJECT && i < b->n; i++) {
    const char *key = b->members[i].key;
    snprintf(what, sizeof what, "%s%s", prefix, key);
    if (!ignored(key, skip) && gcb_mvalue_get(a, key)->type == GCB_MV_ABSENT &&
        (st = note(cmp, what, &none, &b->members[i].value, err)) != GCB_OK)
      return st;
  }
  return GCB_OK;
}

/* One note per field that differs in any pair of entries a[i], b[i] of
 * `size` bytes each, paired by position ("node" or "rank" entries, as
 * label says): where it differs, how many differ and the first (a
 * different count of entries is the run's own note). */
static enum gcb_status diff_entries(struct gcb_comparison *cmp,
                                    const char *label,
                                    const struct entry_field *fields,
                                    size_t nfields, const void *a, size_t na,
                                    const void *b, size_t nb, size_t size,
                                    struct gcb_err *err) {
  const char *pa = a, *pb = b;
  size_t n = na < nb ? na : nb;
  enum gcb_status st = GCB_OK;
  for (const struct entry_field *fd = fields;
       fd < fields + nfields && st == GCB_OK; fd++) {
    size_t count = 0, first = 0;
    struct field_value x, y;
    for (size_t i = 0; i < n; i++)
      if (!gcb_mvalue_equal(field_get(fd, pa + i * size, &x),
                            field_get(fd, pb + i * size, &y)) &&
          count++ == 0)
        first = i;
    if (count == 0)
      continue;
    char what[96];
    if (count == 1)
      snprintf(what, sizeof what, "%s %zu %s", label, first, fd->name);
    else
      snprintf(what, sizeof what, "%s of %zu %ss (first: %s %zu)", fd->name,
               count, label, label, first);
    st = note(cmp, what, field_get(fd, pa + first * size, &x),
              field_get(fd, pb + first * size, &y), err);
  }
  return st;
}

static enum gcb_status diff_run(struct gcb_comparison *cmp,
                                const struct gcb_model *a,
                                const struct gcb_model *b,
                                struct gcb_err *err) {
  enum gcb_status st = GCB_OK;
  for (const char *const *f = run_fields; *f && st == GCB_OK; f++) {
    const struct gcb_mvalue *va = gcb_mvalue_get(&a->run.run, *f),
                            *vb = gcb_mvalue_get(&b->run.run, *f);
    char what[64];
    snprintf(what, sizeof what, "run %s", *f);
    if (!gcb_mvalue_equal(va, vb))
      st = note(cmp, what, va, vb, err);
  }
  return st;
}

enum gcb_status gcb__compare_notes(const struct gcb_model *old,
                                   const struct gcb_model *new_,
                                   struct gcb_comparison *cmp,
                                   struct gcb_err *err) {
  enum gcb_status st = diff_run(cmp, old, new_, err);
  if (st == GCB_OK)
    st = diff_objects(cmp, "software ", &old->run.software, &new_->run.software,
                      NULL, err);
  if (st == GCB_OK)
    st = diff_objects(cmp, "option ", &old->run.options, &new_->run.options,
                      ignored_options, err);
  if (st == GCB_OK)
    st = diff_entries(cmp, "node", node_fields, NFIELDS(node_fields),
                      old->nodes, old->nnodes, new_->nodes, new_->nnodes,
                      sizeof *old->nodes, err);
  if (st == GCB_OK)
    st = diff_entries(cmp, "rank", rank_fields, NFIELDS(rank_fields),
                      old->ranks, old->nranks, new_->ranks, new_->nranks,
                      sizeof *old->ranks, err);
  return st;
}

/* ---- the launches' MPI mode (run.mpi_probe) ------------------------------ */

/* The probe's least batch latency of the pair whose node-sharing is
 * same_node (min_us: on a busy machine a rank descheduled in most batches
 * moves the median by milliseconds, the least by nothing); NAN when the
 * run has none. */
static double probe_us(const struct gcb_model *m, bool same_node,
                       long long *peer) {
  for (size_t i = 0; i < m->run.nprobe; i++) {
    const struct gcb_model_probe_pair *p = &m->run.probe[i];
    if (p->same_node != same_node)
      continue;
    *peer = p->ranks[1];
    return p->min_us;
  }
  return NAN;
}

/* Whether a case of the new run is a small message over MPI: a collective
 * (or point-to-point latency) of gcbench's coll on the host backend, whose
 * transport is MPI, at GCB_MPI_MODE_BYTES or less. */
static bool small_mpi(const struct gcb_model_case *c) {
  return c->kind == GCB_BENCH_COLL && strcmp(c->backend, "host") == 0 &&
         !isnan(c->size) && c->size <= GCB_MPI_MODE_BYTES;
}

/* Re-marks the rows of the small MPI cases that moved the probes' way
 * (slower: regressions; faster: improvements). Returns how many. */
static size_t mark_mode(const struct gcb_model *new_,
                        struct gcb_comparison *cmp, bool slower) {
  size_t marked = 0;
  char key[192];
  for (size_t i = 0; i < new_->ncases; i++) {
    const struct gcb_model_case *c = &new_->cases[i];
    if (!small_mpi(c))
      continue;
    gcb__compare_case_key(c, key, sizeof key); /* the rows' key */
    for (size_t d = 0; d < cmp->ndeltas; d++) {
      struct gcb_delta *x = &cmp->deltas[d];
      enum gcb_verdict moved =
          slower ? GCB_VERDICT_REGRESSION : GCB_VERDICT_BETTER;
      if (x->verdict != moved || strcmp(x->key, key) != 0)
        continue;
      x->verdict = GCB_VERDICT_MODE;
      cmp->regressions -= slower && cmp->regressions > 0;
      marked++;
    }
  }
  return marked;
}

enum gcb_status gcb__compare_mode(const struct gcb_model *old,
                                  const struct gcb_model *new_,
                                  struct gcb_comparison *cmp,
                                  struct gcb_err *err) {
  for (int same_node = 1; same_node >= 0; same_node--) {
    long long op = -1, np = -1;
    double o = probe_us(old, same_node, &op),
           n = probe_us(new_, same_node, &np);
    if (!(o > 0 && n > 0) ||
        (n < GCB_MPI_MODE_RATIO * o && o < GCB_MPI_MODE_RATIO * n))
      continue;
    bool slower = n > o;
    size_t marked = mark_mode(new_, cmp, slower);
    char what[96], was[160], now[160], told[32];
    double ratio = slower ? n / o : o / n;
    snprintf(what, sizeof what, "MPI mode (8 B probe, %s pair 0-%lld)",
             same_node ? "same-node" : "inter-node", np);
    gcb_view_fmt_time(o * 1e-6, was, sizeof was);
    gcb_view_fmt_time(n * 1e-6, told, sizeof told);
    /* 20x and more is no mode of one transport: a rank that waited for a
     * CPU (both ranks on one busy core: milliseconds a message), or
     * another transport (TCP for RDMA) */
    char rows[64] = "; no small-message row moved with it";
    if (marked > 0)
      snprintf(rows, sizeof rows, "; %zu small-message row%s 'MPI mode'",
               marked, marked == 1 ? "" : "s");
    snprintf(now, sizeof now, "%s: %.*fx %s%s%s", told, ratio < 20 ? 2 : 0,
             ratio, slower ? "slower" : "faster",
             ratio >= 20 ? " (a rank waiting for a CPU, or another transport)"
                         : "",
             rows);
    struct field_value a, b;
    /* one pair's verdict: the first that differs */
    return note(cmp, what, str_value(&a, was), str_value(&b, now), err);
  }
  return GCB_OK;
}
