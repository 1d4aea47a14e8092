/*
 * Differences between two runs, for compare's "not comparable because"
 * table. Per-node and per-rank fields are summarised as one note per field
 * (how many differ, the first example), so two 4096-rank runs on different
 * GPUs give one line, not 4096. Hostnames, run ids, times and the output
 * path are identity, not conditions, and are not compared.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/compare/compare_notes.h"

/* Options that name files or permissions, never measurement conditions. */
static const char *const ignored_options[] = {"output", "force", NULL};

static const char *const run_fields[] = {"backend", "ranks", "nodes", NULL};

static const char *const node_fields[] = {
    "cpu_model",  "cores",        "pus",       "packages",
    "numa_nodes", "memory_bytes", "llc_bytes", NULL};

static const char *const rank_fields[] = {"device.name", "device.memory_bytes",
                                          "cpu_binding", NULL};

static bool same(const json_t *a, const json_t *b) {
  return (a == NULL && b == NULL) || json_equal((json_t *)a, (json_t *)b);
}

static void value_text(const json_t *v, char *buf, size_t size) {
  if (v == NULL) {
    snprintf(buf, size, "(absent)");
    return;
  }
  if (json_is_string(v)) {
    gcb_view_copy(buf, size, json_string_value(v));
    return;
  }
  char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
  gcb_view_copy(buf, size, s != NULL ? s : "?");
  free(s);
}

static enum gcb_status note(struct gcb_comparison *cmp, const char *what,
                            const json_t *a, const json_t *b,
                            struct gcb_err *err) {
  if (cmp->nnotes == cmp->caps[1]) {
    size_t cap = cmp->caps[1] ? 2 * cmp->caps[1] : 8;
    struct gcb_note *g = realloc(cmp->notes, cap * sizeof *g);
    if (g == NULL)
      return gcb_err_set(err, GCB_ENOMEM, "compare: out of memory");
    cmp->notes = g;
    cmp->caps[1] = cap;
  }
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
static enum gcb_status diff_objects(struct gcb_comparison *cmp,
                                    const char *prefix, const json_t *a,
                                    const json_t *b, const char *const *skip,
                                    struct gcb_err *err) {
  const char *key;
  const json_t *va;
  char what[96];
  enum gcb_status st = GCB_OK;
  json_object_foreach((json_t *)a, key, va) {
    const json_t *vb = json_object_get(b, key);
    snprintf(what, sizeof what, "%s%s", prefix, key);
    if (ignored(key, skip) || same(va, vb))
      continue;
    if (json_is_object(va) && json_is_object(vb)) {
      char sub[96];
      snprintf(sub, sizeof sub, "%s.", what);
      st = diff_objects(cmp, sub, va, vb, skip, err);
    } else {
      st = note(cmp, what, va, vb, err);
    }
    if (st != GCB_OK)
      return st;
  }
  json_object_foreach((json_t *)b, key, va) {
    snprintf(what, sizeof what, "%s%s", prefix, key);
    if (!ignored(key, skip) && json_object_get(a, key) == NULL &&
        (st = note(cmp, what, NULL, va, err)) != GCB_OK)
      return st;
  }
  return GCB_OK;
}

/* A field of an entry, "device.name" reaching one level down. */
static const json_t *field_value(const json_t *entry, const char *field) {
  const char *dot = strchr(field, '.');
  if (dot == NULL)
    return json_object_get(entry, field);
  char head[32];
  snprintf(head, sizeof head, "%.*s", (int)(dot - field), field);
  return json_object_get(json_object_get(entry, head), dot + 1);
}

/* One note per field that differs in any pair of entries (paired by
 * position; a different count is the run's own note). */
static enum gcb_status diff_entries(struct gcb_comparison *cmp,
                                    const char *section, const char *label,
                                    const char *const *fields, const json_t *a,
                                    const json_t *b, struct gcb_err *err) {
  const json_t *ea = json_object_get(a, section),
               *eb = json_object_get(b, section);
  size_t n = json_array_size(ea) < json_array_size(eb) ? json_array_size(ea)
                                                       : json_array_size(eb);
  for (const char *const *f = fields; *f; f++) {
    size_t count = 0, first = 0;
    for (size_t i = 0; i < n; i++)
      if (!same(field_value(json_array_get(ea, i), *f),
                field_value(json_array_get(eb, i), *f)) &&
          count++ == 0)
        first = i;
    if (count == 0)
      continue;
    char what[96];
    if (count == 1)
      snprintf(what, sizeof what, "%s %zu %s", label, first, *f);
    else
      snprintf(what, sizeof what, "%s of %zu %ss (first: %s %zu)", *f, count,
               label, label, first);
    enum gcb_status st =
        note(cmp, what, field_value(json_array_get(ea, first), *f),
             field_value(json_array_get(eb, first), *f), err);
    if (st != GCB_OK)
      return st;
  }
  return GCB_OK;
}

static enum gcb_status diff_run(struct gcb_comparison *cmp, const json_t *a,
                                const json_t *b, struct gcb_err *err) {
  const json_t *ra = json_object_get(a, "run"), *rb = json_object_get(b, "run");
  for (const char *const *f = run_fields; *f; f++) {
    const json_t *va = json_object_get(ra, *f), *vb = json_object_get(rb, *f);
    char what[64];
    snprintf(what, sizeof what, "run %s", *f);
    enum gcb_status st = same(va, vb) ? GCB_OK : note(cmp, what, va, vb, err);
    if (st != GCB_OK)
      return st;
  }
  return GCB_OK;
}

enum gcb_status gcb__compare_notes(const json_t *old, const json_t *new_,
                                   struct gcb_comparison *cmp,
                                   struct gcb_err *err) {
  enum gcb_status st = diff_run(cmp, old, new_, err);
  if (st == GCB_OK)
    st = diff_objects(cmp, "software ", json_object_get(old, "software"),
                      json_object_get(new_, "software"), NULL, err);
  if (st == GCB_OK)
    st = diff_objects(cmp, "option ", json_object_get(old, "options"),
                      json_object_get(new_, "options"), ignored_options, err);
  if (st == GCB_OK)
    st = diff_entries(cmp, "nodes", "node", node_fields, old, new_, err);
  if (st == GCB_OK)
    st = diff_entries(cmp, "ranks", "rank", rank_fields, old, new_, err);
  return st;
}

/* ---- the launches' MPI mode (run.mpi_probe) ------------------------------ */

/* The probe's least batch latency of the pair whose node-sharing is
 * same_node (min_us: on a busy machine a rank descheduled in most batches
 * moves the median by milliseconds, the least by nothing); NAN when the
 * run has none. */
static double probe_us(const json_t *root, bool same_node, long long *peer) {
  const json_t *pairs = json_object_get(
      gcb_view_obj(gcb_view_obj(root, "run"), "mpi_probe"), "pairs");
  const json_t *p;
  size_t i;
  json_array_foreach(pairs, i, p) {
    if (json_is_true(json_object_get(p, "same_node")) != same_node)
      continue;
    *peer = json_integer_value(json_array_get(json_object_get(p, "ranks"), 1));
    return gcb_view_num(p, "min_us");
  }
  return NAN;
}

/* Whether a case of the new run is a small message over MPI: a collective
 * (or point-to-point latency) of gcbench's coll on the host backend, whose
 * transport is MPI, at GCB_MPI_MODE_BYTES or less. */
static bool small_mpi(const json_t *c) {
  double size = gcb_view_param_num(c, "size");
  return gcb_bench_kind_of(c) == GCB_BENCH_COLL &&
         strcmp(gcb_view_str(c, "backend"), "host") == 0 && !isnan(size) &&
         size <= GCB_MPI_MODE_BYTES;
}

/* Re-marks the rows of the small MPI cases that moved the probes' way
 * (slower: regressions; faster: improvements). Returns how many. */
static size_t mark_mode(const json_t *new_, struct gcb_comparison *cmp,
                        bool slower) {
  const json_t *cases = json_object_get(new_, "cases"), *c;
  size_t i, marked = 0;
  char key[192];
  json_array_foreach(cases, i, c) {
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

enum gcb_status gcb__compare_mode(const json_t *old, const json_t *new_,
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
    snprintf(now, sizeof now,
             "%s: %.*fx %s%s; %zu small-message rows 'MPI "
             "mode'",
             told, ratio < 20 ? 2 : 0, ratio, slower ? "slower" : "faster",
             ratio >= 20 ? " (a rank waiting for a CPU, or another transport)"
                         : "",
             marked);
    json_t *a = json_string(was), *b = json_string(now);
    enum gcb_status st =
        a && b ? note(cmp, what, a, b, err)
               : gcb_err_set(err, GCB_ENOMEM, "compare: out of memory");
    json_decref(a);
    json_decref(b);
    return st; /* one pair's verdict: the first that differs */
  }
  return GCB_OK;
}
