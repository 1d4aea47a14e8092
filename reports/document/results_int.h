/*
 * What the files of reports/document/ share about a results document and
 * nobody else sees: the struct itself (the JSON tree and the text cache of
 * the writer), the root's schema rows, and each section's node.
 */
#ifndef GCB_RESULTS_INT_H
#define GCB_RESULTS_INT_H

#include "reports/document/ranks.h"
#include "reports/document/results.h"
#include "reports/document/schema.h"

#include <stdbool.h>

#define GCB__SCHEMA_PREFIX "gcbench.results/"

/* A case as it appears in the written document (indented for its place
 * in "cases"), kept from one rewrite to the next: cases do not change once
 * added, and formatting their numbers is most of a rewrite's time. */
struct gcb__case_text {
  const json_t *c; /* the case it was made from */
  char *text;
  size_t len;
};

struct gcb__case_cache {
  struct gcb__case_text *items;
  size_t n, cap;
};

struct gcb_results {
  json_t *root;
  struct gcb__case_cache *cache; /* allocated with the document, filled by
                                    gcb_results_write (not part of what the
                                    document says, so a const document's
                                    too) */
  /* A document read: case i's per-rank columns, which its tree's per_rank
   * (`{}`) does not hold (ranks.h); NULL for one built in memory. */
  struct gcb_ranks *ranks;
  size_t nranks;
};

/* A document owning root (stolen: freed on failure); NULL on ENOMEM. */
struct gcb_results *gcb__results_wrap(json_t *root);

/*
 * The quick road of the reader for a well-formed document (read_fast.c):
 * the cases' per_rank columns read by a lexer of its own into *ranks (one
 * struct gcb_ranks per case, *nranks of them, by index: free with
 * gcb__ranks_free_all), the rest by jansson into *root, the tree
 * json_loadb would build but for each case's per_rank, `{}`. false (*root
 * and *ranks NULL) when it gives up, for any reason, and the caller parses
 * the text with json_loadb, which words the problem. *entries: the
 * per-rank entries (ranks × cases) its scan of the columns found; jansson
 * is not started when fits(len, *entries) says the text is too large for
 * them.
 */
bool gcb__read_fast(const char *text, size_t len,
                    bool (*fits)(size_t len, size_t entries), json_t **root,
                    struct gcb_ranks **ranks, size_t *nranks, size_t *entries);

/*
 * What a read document's values say of each other (consistency.c), once
 * the schema's rows have passed it: cols holds its n cases' per-rank
 * columns; rows: the text has them as schema 1's rows. _values, before the
 * reader orders ranks (each problem located at its element): the ranks
 * every section names are the run's, each rank entry's node lists it, a
 * case has at least one rank, no time, figure or count is below 0, each
 * rank's iteration times are ordered, and a case's summary agrees with its
 * ranks. _unique, after: no rank or node index is there twice (located at
 * its list). docs/results-schema.md, "Consistent values".
 */
enum gcb_status gcb__check_values(struct gcb__walk *w, const json_t *root,
                                  const struct gcb_ranks *cols, size_t n,
                                  bool rows);
enum gcb_status gcb__check_unique(struct gcb__walk *w, const json_t *root,
                                  const struct gcb_ranks *cols, size_t n,
                                  bool rows);

/* Frees the writer's cache; NULL is a no-op (write.c). */
void gcb__case_cache_free(struct gcb__case_cache *k);

/* Appends item (stolen) to the array `section` of the document; ENOMEM
 * when item is NULL (out of memory or a string that is not UTF-8). */
enum gcb_status gcb__results_append(struct gcb_results *r, const char *section,
                                    json_t *item, struct gcb_err *err);

/* The "nodes" section (one per node, from its first rank in ids, with the
 * topology and GPUs of topologies[node]) and the "ranks" section, as new
 * references; NULL on ENOMEM (section_nodes.c). */
json_t *gcb__nodes_json(const struct gcb_identity *ids, int nranks, int nnodes,
                        json_t *topologies);
json_t *gcb__ranks_json(const struct gcb_identity *ids, int nranks);

/* Member key of o set to v, element v appended to a (v stolen): o or a,
 * or NULL, the container freed, when it is NULL or the set or append
 * fails (jansson frees v then, whatever the container is, NULL too). */
json_t *gcb__json_set(json_t *o, const char *key, json_t *v);
json_t *gcb__json_push(json_t *a, json_t *v);

/* "" for NULL. */
const char *gcb__str_or_empty(const char *s);

/* What a writer does with an unknown value: null for a negative count or
 * index, and for a NULL or empty string (new references). */
json_t *gcb__int_or_null(long long v);
json_t *gcb__str_or_null(const char *s);

/* The top level, in the order sections are written (results.c), of the
 * current schema and of schema 1. */
extern const struct gcb__field gcb__root_fields[];
extern const struct gcb__node gcb__n_root, gcb__n_root_v1;

/* Each section's node, beside its writer. */
extern const struct gcb__node gcb__n_tool, gcb__n_run, gcb__n_options,
    gcb__n_software;                                      /* section_header.c */
extern const struct gcb__node gcb__n_nodes, gcb__n_ranks; /* section_nodes.c */
extern const struct gcb__node gcb__n_topology; /* section_topology.c */
extern const struct gcb__node gcb__n_gpus;     /* section_gpus.c */
extern const struct gcb__node gcb__n_case, gcb__n_case_v1; /* section_cases.c */

#endif
