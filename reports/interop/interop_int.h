/*
 * Internal to the converters (interop_nccl.c, interop_nvbw.c): the
 * conversion context, which knows where in the input text it is so that
 * every problem is reported as FILE:LINE:COLUMN, typed getters that report
 * missing or mistyped fields, and builders for the parts of a results
 * document every converter needs. Builders return new references (NULL on
 * ENOMEM); functions taking a json_t * steal it.
 */
#ifndef GCB_INTEROP_INT_H
#define GCB_INTEROP_INT_H

#include <stdbool.h>

#include "reports/interop/interop.h"
#include "reports/document/jsonpos.h"

#define GCB__CONV_DEPTH 8

struct gcb__conv {
  const char *text, *name;
  size_t len;
  struct gcb_json_step path[GCB__CONV_DEPTH];
  size_t depth;
  const struct gcb_doc *known;
  size_t nknown;
  struct gcb_err *err;
};

/* Steps into a member (key) or an element (key NULL, index) for error
 * locations, and back out. */
void gcb__conv_enter(struct gcb__conv *cv, const char *key, size_t index);
void gcb__conv_leave(struct gcb__conv *cv);

/* GCB_EINPUT with "name:line:column: path: what" at the current path. */
enum gcb_status gcb__conv_bad(struct gcb__conv *cv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

enum {
  GCB__J_STR = 1,
  GCB__J_NUM = 2,
  GCB__J_OBJ = 4,
  GCB__J_ARR = 8,
  GCB__J_NULL = 16,
  GCB__J_BOOL = 32
};

/*
 * Member `key` of obj (the current path) with one of `types`: *out is the
 * value, or NULL when absent and not required. A missing required member
 * is reported at obj, a mistyped one at the member.
 */
enum gcb_status gcb__conv_get(struct gcb__conv *cv, const json_t *obj,
                              const char *key, int types, bool required,
                              const json_t **out);

/* A number that writers may put in a string ("12.5", "nan", "N/A"):
 * NAN for anything that is not a finite number. */
double gcb__conv_number(const json_t *v);

/* The file name without its directories: a converted run's id. */
const char *gcb__conv_base_name(const char *path);

/* The skeleton of a converted document: schema, tool, run, empty
 * sections. `tool` is what wrote the file ("nccl-tests"); the run id is
 * the file's base name. */
json_t *gcb__conv_doc(const char *id, const char *tool,
                      const char *tool_version, json_t *command_line,
                      const char *start, const char *end, const char *reason,
                      long long ranks, long long nodes);

/* One rank entry of ranks[], its binding unknown (empty, 0 PUs). */
json_t *gcb__conv_rank(long long rank, long long node, const char *host,
                       long long local_rank, long long pid,
                       const char *gpu_name, const char *bus_id,
                       long long gpu_index);

/* A node with the given ranks (stolen) and its machine unknown (0). */
json_t *gcb__conv_node(long long index, const char *host, json_t *ranks);

/*
 * A case in GB/s whose per-rank figures fig[i] were measured by ranks
 * rank[i], each the rate of moving `work` bytes; with n == 0 (a tool that
 * reports only the average over ranks) the summary holds `fig0` and
 * per_rank is empty. params is stolen. `method` says how the values were
 * validated (NULL: not validated). NULL on ENOMEM or a non-finite figure.
 */
json_t *gcb__conv_case(const char *bench, const char *label, json_t *params,
                       double work, const char *counted, const long long *rank,
                       const double *fig, size_t n, double fig0,
                       const char *method);

/* Copies the topology of a node of a known document into node 0 of doc
 * when it is the same machine (same host name, or every bus id of doc's
 * devices found among its GPUs); its placement and facts stay with the
 * document they were recorded in. */
void gcb__conv_join_topology(struct gcb__conv *cv, json_t *doc);

/* The converters: root is the parsed input, *doc the new document. */
enum gcb_status gcb__nccl_tests_convert(struct gcb__conv *cv,
                                        const json_t *root, json_t **doc);
enum gcb_status gcb__nvbandwidth_convert(struct gcb__conv *cv,
                                         const json_t *root, json_t **doc);

#endif
