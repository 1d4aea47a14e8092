/*
 * The exposition rules behind metrics.prom (render_openmetrics.c), kept
 * apart from the choice of families: names built from input made valid,
 * lint-clean and unique, label values escaped, and every sample's label
 * set unique within its family. Internal to reports/render; the rules are
 * in docs/OPENMETRICS.md, each with the clause of the OpenMetrics 1.0
 * specification or the Prometheus check it follows.
 *
 * Memory: a function that can run out of memory sets the sticky `oom`
 * flag of the object it works on and does nothing more; the renderer
 * checks it once at the end (GCB_ENOMEM).
 */
#ifndef GCB_RENDER_OPENMETRICS_H
#define GCB_RENDER_OPENMETRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A set of strings, each with a number: the family names taken, the label
 * sets a family has written. */
struct gcb__om_set {
  struct gcb__om_slot *slots;
  size_t cap, n;
  bool oom;
};

/* The number stored for key, or -1 when key is not in the set. */
long gcb__om_set_get(const struct gcb__om_set *s, const char *key);
/* Adds key with number v (a key already there keeps its number). */
void gcb__om_set_put(struct gcb__om_set *s, const char *key, long v);
void gcb__om_set_free(struct gcb__om_set *s);

/* The longest metric or label name written (the buffers' size). */
#define GCB_OM_NAME_MAX 128

/* What a unit from a document becomes: the family name's last word, the
 * # UNIT written, and what to divide a figure by to have it in that unit
 * ("us" -> seconds, 1e6: a division, so 100 us is exactly 0.0001 s);
 * known: one of the units gcbench converts, so that every unit with this
 * suffix means the same (us, ns: seconds), unlike two unknown units that
 * sanitise alike. */
struct gcb__om_unit {
  char suffix[GCB_OM_NAME_MAX];
  double divisor;
  bool known;
};
void gcb__om_unit(const char *unit, struct gcb__om_unit *u);

/* A family name "gcbench_<bench words>_<suffix>" not yet in names, put
 * there with number v: the second name that the same words would give
 * gets "_2" before the suffix, the third "_3", ... */
void gcb__om_family_name(struct gcb__om_set *names, const char *bench,
                         const char *suffix, long v, char *out, size_t size);

/* HELP text: backslash and line feed escaped, a double quote written as
 * ' (the one spelling both formats read alike), not UTF-8 as U+FFFD. */
void gcb__om_help(FILE *out, const char *text);

/* One sample under construction: its labels in the order given. */
struct gcb__om_sample {
  struct gcb__om_label *labels;
  size_t n, cap;
  char *text; /* the escaped values, one after the other */
  size_t text_n, text_cap;
  bool oom;
};

/* A label gcbench names (run, host, rank, ...: valid and distinct). */
void gcb__om_label(struct gcb__om_sample *s, const char *name,
                   const char *value);
void gcb__om_label_int(struct gcb__om_sample *s, const char *name, long long v);
/* A label whose name comes from input (a case parameter): made a valid,
 * lint-clean name distinct from the sample's other labels. Returns that
 * name (valid until the next label), NULL when out of memory. */
const char *gcb__om_param(struct gcb__om_sample *s, const char *key,
                          const char *value);

/*
 * Writes "family{labels} value\n" and clears s. The label set is made
 * unique in the family (series: the label sets written so far): a set
 * seen before gets repeat="2", the next repeat="3", ... A NAN value is
 * left out, an infinite one written +Inf / -Inf.
 */
void gcb__om_write(FILE *out, const char *family, struct gcb__om_set *series,
                   struct gcb__om_sample *s, double value);
void gcb__om_sample_free(struct gcb__om_sample *s);

#endif
