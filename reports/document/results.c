/*
 * The results document: building it from records, writing it atomically,
 * reading it back with validation.
 *
 * The schema lives in one place, the node tables below: each table says,
 * for one kind of JSON object, which fields it has, their types, and which
 * are required. One walker checks a tree against them, both on reading a
 * file (errors located with gcb_json_locate) and on building a document
 * (sections and cases are checked as they are added, so that every document
 * gcbench writes reads back).
 */
/* O_TMPFILE (Linux 3.11+): the new document is written to an unnamed file
 * and only linked into the directory once complete. */
#define _GNU_SOURCE
#include "reports/document/results.h"
#include "common/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/document/jsonpos.h"
#include "reports/document/ranks.h"

#define RESULTS_MAX_BYTES GCB_FILE_MAX_BYTES
#define SCHEMA_PREFIX "gcbench.results/"
#define MAX_PATH_DEPTH 8
#define DUMP_FLAGS (JSON_INDENT(1) | JSON_REAL_PRECISION(17))

/* A case as it appears in the written document (indented for its place
 * in "cases"), kept from one rewrite to the next: cases do not change once
 * added, and formatting their numbers is most of a rewrite's time. */
struct case_text {
  const json_t *c; /* the case it was made from */
  char *text;
  size_t len;
};

struct case_cache {
  struct case_text *items;
  size_t n, cap;
};

struct gcb_results {
  json_t *root;
  struct case_cache *cache; /* allocated with the document, filled by
                               gcb_results_write (not part of what the
                               document says, so a const document's too) */
};

/* ---- schema tables ------------------------------------------------------ */

enum {
  T_STR = 1 << 0,
  T_INT = 1 << 1,
  T_REAL = 1 << 2,
  T_BOOL = 1 << 3,
  T_NULL = 1 << 4,
  T_OBJ = 1 << 5,
  T_ARR = 1 << 6,
  T_NUM = T_INT | T_REAL,
  T_SCALAR = T_STR | T_NUM | T_BOOL | T_NULL,
};

struct field;
struct walk;

/* A value: its allowed types; for an object either its fields or (a map)
 * the node of every member; for an array the node of every element; and a
 * check of its own, run after those (per-rank columns: equal lengths). */
struct node {
  unsigned types;
  const struct field *fields; /* terminated by a NULL name */
  const struct node *items;
  const char *const *choices; /* allowed strings, NULL-terminated */
  enum gcb_status (*check)(struct walk *w, const json_t *v);
};

struct field {
  const char *name;
  const struct node *node;
  int required;
};

#define REQ(n, nd)                                                             \
  { .name = n, .node = nd, .required = 1 }
#define OPT(n, nd)                                                             \
  { .name = n, .node = nd, .required = 0 }
#define NODE(...) (&(const struct node){__VA_ARGS__})
#define OBJ(f) NODE(.types = T_OBJ, .fields = f)
#define ARR(item) NODE(.types = T_ARR, .items = item)

static const struct node n_str = {.types = T_STR};
static const struct node n_int = {.types = T_INT};
static const struct node n_num = {.types = T_NUM};
static const struct node n_bool = {.types = T_BOOL};
static const struct node n_str_null = {.types = T_STR | T_NULL};
static const struct node n_num_null = {.types = T_NUM | T_NULL};
static const struct node n_str_array = {.types = T_ARR, .items = &n_str};
static const struct node n_int_array = {.types = T_ARR, .items = &n_int};
/* Option values: scalars, lists (sets of choices) and, in a suite, one
 * nested object per benchmark; checked no further. */
static const struct node n_options = {.types = T_OBJ};
static const struct node n_software = {.types = T_OBJ, .items = &n_str};
static const struct node n_params = {.types = T_OBJ,
                                     .items = NODE(.types = T_STR | T_NUM)};

static const char *const run_states[] = {"running", "complete",    "failed",
                                         "timeout", "interrupted", NULL};

static const struct field tool_fields[] = {
    REQ("name", &n_str),
    REQ("version", &n_str),
    REQ("git_revision", &n_str),
    {0},
};
static const struct node n_tool = {.types = T_OBJ, .fields = tool_fields};

static const struct field run_fields[] = {
    REQ("id", &n_str),
    REQ("command", &n_str),
    REQ("command_line", &n_str_array),
    REQ("start_time", &n_str),
    REQ("end_time", &n_str_null),
    REQ("status", NODE(.types = T_STR, .choices = run_states)),
    REQ("backend", &n_str),
    REQ("backend_reason", &n_str),
    REQ("ranks", &n_int),
    REQ("nodes", &n_int),
    {0},
};
static const struct node n_run = {.types = T_OBJ, .fields = run_fields};

/* The node's topology summary (docs/TOPOLOGY.md); checked no further. */
static const struct node n_topology = {.types = T_OBJ};
/* GPU health records (docs/results-schema.md); checked no further. */
static const struct node n_gpus = {.types = T_ARR,
                                   .items = NODE(.types = T_OBJ)};

static const struct field node_fields[] = {
    REQ("index", &n_int),
    REQ("hostname", &n_str),
    REQ("ranks", &n_int_array),
    REQ("cores", &n_int),
    REQ("pus", &n_int),
    REQ("packages", &n_int),
    REQ("numa_nodes", &n_int),
    REQ("llc_bytes", &n_int),
    REQ("memory_bytes", &n_int),
    REQ("cpu_model", &n_str),
    OPT("topology", &n_topology),
    OPT("gpus", &n_gpus),
    {0},
};
static const struct node n_nodes = {.types = T_ARR, .items = OBJ(node_fields)};

static const struct field device_fields[] = {
    REQ("name", &n_str),
    REQ("bus_id", &n_str),
    REQ("index", &n_int),
    REQ("memory_bytes", &n_int),
    {0},
};

static const struct field rank_fields[] = {
    REQ("rank", &n_int),
    REQ("node", &n_int),
    REQ("hostname", &n_str),
    REQ("local_rank", &n_int),
    REQ("pid", &n_int),
    REQ("cpu_binding", &n_str),
    REQ("bound_pus", &n_int),
    REQ("cpu_threads", &n_int),
    OPT("device", NODE(.types = T_OBJ | T_NULL, .fields = device_fields)),
    {0},
};
static const struct node n_ranks = {.types = T_ARR, .items = OBJ(rank_fields)};

static const struct field range_fields[] = {
    REQ("min", &n_num), REQ("mean", &n_num), REQ("max", &n_num), {0}};
static const struct node n_range = {.types = T_OBJ, .fields = range_fields};

static const struct field summary_fields[] = {
    REQ("ranks", &n_int),      REQ("min", &n_num),
    REQ("median", &n_num),     REQ("mean", &n_num),
    REQ("max", &n_num),        REQ("stdev", &n_num),
    REQ("min_rank", &n_int),   REQ("max_rank", &n_int),
    REQ("imbalance", &n_num),  REQ("wrong", &n_int),
    REQ("checked", &n_bool),   OPT("time_s", &n_range),
    OPT("algbw", &n_num),      OPT("busbw", &n_num),
    OPT("late_rank", &n_int),  OPT("late_mean_s", &n_num),
    OPT("late_max_s", &n_num), {0},
};

static const struct field case_check_fields[] = {
    REQ("checked", &n_bool),
    REQ("passed", &n_bool),
    REQ("wrong", &n_int),
    {0},
};

static const struct field time_fields[] = {
    REQ("n", &n_int),      REQ("min", &n_num),
    REQ("median", &n_num), REQ("mean", &n_num),
    REQ("max", &n_num),    REQ("stdev", &n_num),
    REQ("p99", &n_num),    {0},
};

static const struct field figure_fields[] = {
    REQ("median", &n_num),
    REQ("best", &n_num),
    REQ("worst", &n_num),
    {0},
};

static const struct field rank_check_fields[] = {
    REQ("checked", &n_bool),
    REQ("samples", &n_int),
    REQ("wrong", &n_int),
    REQ("max_error", &n_num_null),
    REQ("tolerance", &n_num_null),
    REQ("method", &n_str_null),
    {0},
};

/* Schema 1: per_rank is an array of these, one per rank. */
static const struct field per_rank_fields[] = {
    REQ("rank", &n_int),
    REQ("time_s", OBJ(time_fields)),
    OPT("figure_time_s", &n_num),
    OPT("late_s", OBJ(time_fields)),
    REQ("figure", OBJ(figure_fields)),
    REQ("validation", OBJ(rank_check_fields)),
    {0},
};

/* Schema 2: per_rank is one object of columns (reports/ranks.h), each an
 * array with one element per rank, in the shape of a schema-1 entry. */
#define COLUMN(t) ARR(NODE(.types = (t)))
static const struct field time_columns[] = {
    REQ("n", COLUMN(T_INT)),      REQ("min", COLUMN(T_NUM)),
    REQ("median", COLUMN(T_NUM)), REQ("mean", COLUMN(T_NUM)),
    REQ("max", COLUMN(T_NUM)),    REQ("stdev", COLUMN(T_NUM)),
    REQ("p99", COLUMN(T_NUM)),    {0},
};
/* Lateness: null for a rank without samples. */
static const struct field late_columns[] = {
    REQ("n", COLUMN(T_INT | T_NULL)),      REQ("min", COLUMN(T_NUM | T_NULL)),
    REQ("median", COLUMN(T_NUM | T_NULL)), REQ("mean", COLUMN(T_NUM | T_NULL)),
    REQ("max", COLUMN(T_NUM | T_NULL)),    REQ("stdev", COLUMN(T_NUM | T_NULL)),
    REQ("p99", COLUMN(T_NUM | T_NULL)),    {0},
};
static const struct field figure_columns[] = {
    REQ("median", COLUMN(T_NUM)),
    REQ("best", COLUMN(T_NUM)),
    REQ("worst", COLUMN(T_NUM)),
    {0},
};
static const struct field check_columns[] = {
    REQ("checked", COLUMN(T_BOOL)),
    REQ("samples", COLUMN(T_INT)),
    REQ("wrong", COLUMN(T_INT)),
    REQ("max_error", COLUMN(T_NUM | T_NULL)),
    REQ("tolerance", COLUMN(T_NUM | T_NULL)),
    REQ("method", COLUMN(T_STR | T_NULL)),
    {0},
};
/* NVML during the case: null for a rank whose GPU said nothing. */
static const struct field telemetry_columns[] = {
    REQ("samples", COLUMN(T_INT | T_NULL)),
    REQ("sm_clock_mhz_min", COLUMN(T_NUM | T_NULL)),
    REQ("sm_clock_mhz_mean", COLUMN(T_NUM | T_NULL)),
    REQ("sm_clock_mhz_max", COLUMN(T_NUM | T_NULL)),
    REQ("mem_clock_mhz_mean", COLUMN(T_NUM | T_NULL)),
    REQ("power_w_mean", COLUMN(T_NUM | T_NULL)),
    REQ("power_w_max", COLUMN(T_NUM | T_NULL)),
    REQ("temp_c_max", COLUMN(T_NUM | T_NULL)),
    REQ("throttle_reasons", COLUMN(T_STR | T_NULL)),
    REQ("slowed", COLUMN(T_BOOL | T_NULL)),
    {0},
};
static const struct field per_rank_columns[] = {
    REQ("rank", COLUMN(T_INT)),
    REQ("time_s", OBJ(time_columns)),
    OPT("figure_time_s", COLUMN(T_NUM | T_NULL)),
    OPT("late_s", OBJ(late_columns)),
    REQ("figure", OBJ(figure_columns)),
    REQ("validation", OBJ(check_columns)),
    OPT("telemetry", OBJ(telemetry_columns)),
    {0},
};
static enum gcb_status check_column_lengths(struct walk *w, const json_t *v);

#define CASE_FIELDS(per_rank_node)                                             \
  REQ("bench", &n_str), REQ("backend", &n_str), REQ("label", &n_str),          \
      REQ("params", &n_params), REQ("unit", &n_str),                           \
      REQ("work_per_op", &n_num), REQ("counted", &n_str),                      \
      OPT("bus_factor", &n_num), REQ("iterations", &n_int),                    \
      REQ("warmup", &n_int), REQ("summary", OBJ(summary_fields)),              \
      REQ("validation", OBJ(case_check_fields)),                               \
      REQ("per_rank", per_rank_node), {                                        \
    0                                                                          \
  }

static const struct field case_fields[] = {
    CASE_FIELDS(NODE(.types = T_OBJ, .fields = per_rank_columns,
                     .check = check_column_lengths))};
static const struct node n_case = {.types = T_OBJ, .fields = case_fields};
static const struct field case_fields_v1[] = {
    CASE_FIELDS(ARR(OBJ(per_rank_fields)))};
static const struct node n_case_v1 = {.types = T_OBJ, .fields = case_fields_v1};

static const struct field skip_fields[] = {
    REQ("bench", &n_str),
    REQ("label", &n_str),
    REQ("reason", &n_str),
    {0},
};
static const struct field error_fields[] = {
    REQ("bench", &n_str),  REQ("label", &n_str),   REQ("rank", &n_int),
    REQ("status", &n_str), REQ("message", &n_str), {0},
};

/* Top level, in the order sections are written. */
#define ROOT_FIELDS(case_node)                                                 \
  REQ("schema", &n_str), REQ("tool", &n_tool), REQ("run", &n_run),             \
      OPT("options", &n_options), OPT("software", &n_software),                \
      OPT("nodes", &n_nodes), OPT("ranks", &n_ranks),                          \
      REQ("cases", ARR(case_node)), REQ("skipped", ARR(OBJ(skip_fields))),     \
      REQ("errors", ARR(OBJ(error_fields))), {                                 \
    0                                                                          \
  }

static const struct field root_fields[] = {ROOT_FIELDS(&n_case)};
static const struct node n_root = {.types = T_OBJ, .fields = root_fields};
static const struct field root_fields_v1[] = {ROOT_FIELDS(&n_case_v1)};
static const struct node n_root_v1 = {.types = T_OBJ, .fields = root_fields_v1};

/* Sections the harness sets with gcb_results_set. */
static const char *const settable[] = {"tool",  "run",   "options", "software",
                                       "nodes", "ranks", NULL};

/* ---- validation --------------------------------------------------------- */

/* Where the walker is: the path from the root, and the text (if any) to
 * locate problems in. */
struct walk {
  const char *text;
  size_t len;
  const char *name;
  struct gcb_json_step path[MAX_PATH_DEPTH];
  size_t depth;
  struct gcb_err *err;
};

static unsigned type_bit(const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_OBJECT:
    return T_OBJ;
  case JSON_ARRAY:
    return T_ARR;
  case JSON_STRING:
    return T_STR;
  case JSON_INTEGER:
    return T_INT;
  case JSON_REAL:
    return T_REAL;
  case JSON_TRUE:
  case JSON_FALSE:
    return T_BOOL;
  case JSON_NULL:
    return T_NULL;
  }
  return 0;
}

static const char *type_word(const json_t *v) {
  static const char *const words[] = {"object", "array",   "string",  "integer",
                                      "real",   "boolean", "boolean", "null"};
  return words[json_typeof(v)];
}

static const char *expected_words(unsigned types) {
  static const struct {
    unsigned types;
    const char *words;
  } table[] = {
      {T_STR, "a string"},
      {T_INT, "an integer"},
      {T_NUM, "a number"},
      {T_BOOL, "a boolean"},
      {T_OBJ, "an object"},
      {T_ARR, "an array"},
      {T_STR | T_NULL, "a string or null"},
      {T_NUM | T_NULL, "a number or null"},
      {T_OBJ | T_NULL, "an object or null"},
      {T_STR | T_NUM, "a string or a number"},
      {T_SCALAR, "a string, number, boolean or null"},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (table[i].types == types)
      return table[i].words;
  return "another type";
}

static void path_string(const struct walk *w, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < w->depth && used < size; i++) {
    const struct gcb_json_step *st = &w->path[i];
    int n =
        st->key != NULL
            ? snprintf(buf + used, size - used, "%s%s", i ? "." : "", st->key)
            : snprintf(buf + used, size - used, "[%zu]", st->index);
    used += n > 0 ? (size_t)n : 0;
  }
}

/* Records a problem at the current path: "name:line:col: path: what" when
 * there is text to locate it in, "path: what" otherwise. */
__attribute__((format(printf, 2, 3))) static enum gcb_status
problem(struct walk *w, const char *fmt, ...) {
  char what[256], path[192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  path_string(w, path, sizeof path);
  const char *sep = path[0] ? ": " : "";
  if (w->text == NULL)
    return gcb_err_set(w->err, GCB_EINTERNAL, "%s%s%s", path, sep, what);
  int line, col;
  gcb_json_locate(w->text, w->len, w->path, w->depth, &line, &col);
  return gcb_err_set(w->err, GCB_EINPUT, "%s:%d:%d: %s%s%s", w->name, line, col,
                     path, sep, what);
}

static enum gcb_status check_value(struct walk *w, const json_t *v,
                                   const struct node *n);

static enum gcb_status check_child(struct walk *w, const char *key,
                                   size_t index, const json_t *v,
                                   const struct node *n) {
  if (w->depth >= MAX_PATH_DEPTH)
    return problem(w, "nested too deeply for the schema walker");
  w->path[w->depth++] = (struct gcb_json_step){.key = key, .index = index};
  enum gcb_status rc = check_value(w, v, n);
  w->depth--;
  return rc;
}

static enum gcb_status check_fields(struct walk *w, const json_t *obj,
                                    const struct field *fields) {
  for (const struct field *f = fields; f->name != NULL; f++) {
    const json_t *v = json_object_get(obj, f->name);
    if (v == NULL && f->required)
      return problem(w, "missing required field '%s'", f->name);
    enum gcb_status rc =
        v != NULL ? check_child(w, f->name, 0, v, f->node) : GCB_OK;
    if (rc != GCB_OK)
      return rc;
  }
  return GCB_OK;
}

/* Whether a node is a bare type check (a column's elements). */
static bool bare(const struct node *n) {
  return n->fields == NULL && n->items == NULL && n->choices == NULL &&
         n->check == NULL;
}

static enum gcb_status check_members(struct walk *w, const json_t *v,
                                     const struct node *items) {
  enum gcb_status rc = GCB_OK;
  if (json_is_array(v)) {
    size_t n = json_array_size(v);
    /* Columns hold a million numbers: only a wrong one takes the path. */
    for (size_t i = 0; i < n && rc == GCB_OK; i++) {
      const json_t *e = json_array_get(v, i);
      if (!bare(items) || (type_bit(e) & items->types) == 0)
        rc = check_child(w, NULL, i, e, items);
    }
    return rc;
  }
  const char *key;
  const json_t *m;
  json_object_foreach((json_t *)v, key, m) {
    if ((rc = check_child(w, key, 0, m, items)) != GCB_OK)
      break;
  }
  return rc;
}

static enum gcb_status check_choice(struct walk *w, const json_t *v,
                                    const char *const *choices) {
  for (const char *const *c = choices; *c != NULL; c++)
    if (strcmp(json_string_value(v), *c) == 0)
      return GCB_OK;
  char list[128] = "";
  for (const char *const *c = choices; *c != NULL; c++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
             c == choices ? "" : ", ", *c);
  return problem(w, "expected one of %s, got \"%s\"", list,
                 json_string_value(v));
}

static enum gcb_status check_value(struct walk *w, const json_t *v,
                                   const struct node *n) {
  if ((type_bit(v) & n->types) == 0)
    return problem(w, "expected %s, got %s", expected_words(n->types),
                   type_word(v));
  if (n->choices != NULL && json_is_string(v))
    return check_choice(w, v, n->choices);
  enum gcb_status rc = GCB_OK;
  if (n->fields != NULL && json_is_object(v))
    rc = check_fields(w, v, n->fields);
  else if (n->items != NULL && (json_is_object(v) || json_is_array(v)))
    rc = check_members(w, v, n->items);
  return rc == GCB_OK && n->check != NULL ? n->check(w, v) : rc;
}

/* Every per-rank column has one element per rank (the length of "rank"). */
static enum gcb_status check_column_lengths(struct walk *w, const json_t *v) {
  size_t ranks = json_array_size(json_object_get(v, "rank"));
  for (size_t i = 0; i < GCB_RC_COUNT; i++) {
    const struct gcb_rank_column *c = &gcb_rank_columns[i];
    const json_t *holder = c->group ? json_object_get(v, c->group) : v;
    const json_t *col = json_object_get(holder, c->field);
    if (col == NULL || json_array_size(col) == ranks)
      continue;
    size_t depth = w->depth;
    if (c->group != NULL)
      w->path[w->depth++] = (struct gcb_json_step){.key = c->group};
    w->path[w->depth++] = (struct gcb_json_step){.key = c->field};
    enum gcb_status rc =
        problem(w, "%zu entries, expected %zu (one per rank, as \"rank\")",
                json_array_size(col), ranks);
    w->depth = depth;
    return rc;
  }
  return GCB_OK;
}

/* Checks a value built in memory (no text to locate problems in), as the
 * member `key` of the root when key is not NULL; problems are EINTERNAL,
 * prefixed with `what`. */
static enum gcb_status check_built(const json_t *v, const struct node *n,
                                   const char *key, const char *what,
                                   struct gcb_err *err) {
  struct walk w = {.err = err};
  enum gcb_status rc =
      key != NULL ? check_child(&w, key, 0, v, n) : check_value(&w, v, n);
  if (rc != GCB_OK)
    gcb_err_prefix(err, "%s", what);
  return rc;
}

/* The schema field first: tells a results document of another version
 * from something that is not a results document at all. *root_node is
 * the node the rest of the document is checked against. */
static enum gcb_status check_schema(struct walk *w, const json_t *root,
                                    const struct node **root_node) {
  if (!json_is_object(root))
    return problem(w,
                   "not a gcbench results document (top level is %s %s, "
                   "expected an object)",
                   strchr("aeiou", type_word(root)[0]) ? "an" : "a",
                   type_word(root));
  const json_t *schema = json_object_get(root, "schema");
  if (schema == NULL)
    return problem(w, "not a gcbench results document (no \"schema\" field)");
  w->path[w->depth++] = (struct gcb_json_step){.key = "schema"};
  const char *s = json_string_value(schema);
  size_t plen = strlen(SCHEMA_PREFIX);
  *root_node = s == NULL                               ? NULL
               : strcmp(s, GCB_RESULTS_SCHEMA) == 0    ? &n_root
               : strcmp(s, GCB_RESULTS_SCHEMA_V1) == 0 ? &n_root_v1
                                                       : NULL;
  if (*root_node != NULL) {
    w->depth--;
    return GCB_OK;
  }
  if (s != NULL && strncmp(s, SCHEMA_PREFIX, plen) == 0)
    return problem(w,
                   "unsupported schema version %s (this gcbench reads %s "
                   "and %s)",
                   s + plen, GCB_RESULTS_SCHEMA, GCB_RESULTS_SCHEMA_V1);
  return problem(w, "not a gcbench results document (schema is not \"%s\")",
                 GCB_RESULTS_SCHEMA);
}

/* ---- building ----------------------------------------------------------- */

static const char *str_or_empty(const char *s) {
  return s != NULL ? s : "";
}

/* jansson has no NaN or infinity: they become null, which the schema allows
 * only where it says so (the walker rejects them elsewhere). */
static json_t *number(double x) {
  return isfinite(x) ? json_real(x) : json_null();
}

static json_t *params_json(const struct gcb_record *rec) {
  json_t *obj = json_object();
  for (int i = 0; obj != NULL && i < rec->nparams; i++) {
    const struct gcb_param *p = &rec->params[i];
    bool integer = p->type == GCB_PARAM_INT || p->type == GCB_PARAM_SIZE;
    json_t *v = integer                       ? json_integer(p->i)
                : p->type == GCB_PARAM_DOUBLE ? number(p->d)
                                              : json_string(p->s);
    if (json_object_set_new(obj, str_or_empty(p->key), v) != 0) {
      json_decref(obj);
      obj = NULL;
    }
  }
  return obj;
}

/* A telemetry column's value: null where the GPU said nothing. */
static json_t *telemetry_value(const struct gcb_telemetry *t,
                               enum gcb_rank_col col) {
  char reasons[160];
  if (!t->available)
    return json_null();
  switch (col) {
  case GCB_RC_TELEM_SAMPLES:
    return json_integer(t->samples);
  case GCB_RC_TELEM_SM_MIN:
    return number(t->sm_clock_mhz_min);
  case GCB_RC_TELEM_SM_MEAN:
    return number(t->sm_clock_mhz_mean);
  case GCB_RC_TELEM_SM_MAX:
    return number(t->sm_clock_mhz_max);
  case GCB_RC_TELEM_MEM_MEAN:
    return number(t->mem_clock_mhz_mean);
  case GCB_RC_TELEM_POWER_MEAN:
    return number(t->power_w_mean);
  case GCB_RC_TELEM_POWER_MAX:
    return number(t->power_w_max);
  case GCB_RC_TELEM_TEMP_MAX:
    return number(t->temp_c_max);
  case GCB_RC_TELEM_THROTTLE:
    if (!t->throttle_known)
      return json_null();
    gcb_throttle_reasons_format(t->throttle_reasons, reasons, sizeof reasons);
    return json_string(reasons);
  case GCB_RC_TELEM_SLOWED:
    return t->throttle_known ? json_boolean((t->throttle_reasons &
                                             GCB_THROTTLE_BAD_MASK) != 0)
                             : json_null();
  default:
    return json_null();
  }
}

/* Rank result rr's value in column col: a new reference, null for a NaN
 * or a rank without that figure (no lateness samples). */
static json_t *rank_value(const struct gcb_record *rec,
                          const struct gcb_rank_result *rr,
                          enum gcb_rank_col col) {
  const struct gcb_stats *t = &rr->seconds, *l = &rr->late;
  const struct gcb_validation *v = &rr->check;
  double late = NAN;
  switch (col) {
  case GCB_RC_LATE_N:
    return l->n > 0 ? json_integer((json_int_t)l->n) : json_null();
  case GCB_RC_LATE_MIN:
    late = l->min;
    break;
  case GCB_RC_LATE_MEDIAN:
    late = l->median;
    break;
  case GCB_RC_LATE_MEAN:
    late = l->mean;
    break;
  case GCB_RC_LATE_MAX:
    late = l->max;
    break;
  case GCB_RC_LATE_STDEV:
    late = l->stdev;
    break;
  case GCB_RC_LATE_P99:
    late = l->p99;
    break;
  case GCB_RC_RANK:
    return json_integer(rr->rank);
  case GCB_RC_TIME_N:
    return json_integer((json_int_t)t->n);
  case GCB_RC_TIME_MIN:
    return number(t->min);
  case GCB_RC_TIME_MEDIAN:
    return number(t->median);
  case GCB_RC_TIME_MEAN:
    return number(t->mean);
  case GCB_RC_TIME_MAX:
    return number(t->max);
  case GCB_RC_TIME_STDEV:
    return number(t->stdev);
  case GCB_RC_TIME_P99:
    return number(t->p99);
  case GCB_RC_FIGURE_TIME:
    return number(rr->time_s);
  case GCB_RC_FIG_MEDIAN:
    return number(gcb_record_figure(rec, rr->time_s));
  case GCB_RC_FIG_BEST:
    return number(gcb_record_figure(rec, t->min));
  case GCB_RC_FIG_WORST:
    return number(gcb_record_figure(rec, t->max));
  case GCB_RC_CHECKED:
    return json_boolean(v->checked);
  case GCB_RC_SAMPLES:
    return json_integer((json_int_t)v->samples);
  case GCB_RC_WRONG:
    return json_integer((json_int_t)v->wrong);
  case GCB_RC_MAX_ERROR:
    return number(v->max_error);
  case GCB_RC_TOLERANCE:
    return number(v->tolerance);
  case GCB_RC_METHOD:
    return v->method != NULL ? json_string(v->method) : json_null();
  case GCB_RC_TELEM_SAMPLES:
  case GCB_RC_TELEM_SM_MIN:
  case GCB_RC_TELEM_SM_MEAN:
  case GCB_RC_TELEM_SM_MAX:
  case GCB_RC_TELEM_MEM_MEAN:
  case GCB_RC_TELEM_POWER_MEAN:
  case GCB_RC_TELEM_POWER_MAX:
  case GCB_RC_TELEM_TEMP_MAX:
  case GCB_RC_TELEM_THROTTLE:
  case GCB_RC_TELEM_SLOWED:
    return telemetry_value(&rr->telemetry, col);
  case GCB_RC_COUNT:
    break;
  }
  return l->n > 0 ? number(late) : json_null();
}

static bool is_late_column(enum gcb_rank_col col) {
  return col >= GCB_RC_LATE_N && col <= GCB_RC_LATE_P99;
}

static bool is_telemetry_column(enum gcb_rank_col col) {
  return col >= GCB_RC_TELEM_SAMPLES && col <= GCB_RC_TELEM_SLOWED;
}

/* The case's per-rank results as columns (reports/ranks.h); lateness and
 * telemetry only when some rank has them. NULL on ENOMEM or a string that is
 * not UTF-8. */
static json_t *per_rank_columns_json(const struct gcb_record *rec) {
  bool late = false, telemetry = false;
  for (int r = 0; r < rec->nranks; r++) {
    late |= rec->ranks[r].late.n > 0;
    telemetry |= rec->ranks[r].telemetry.available;
  }
  json_t *out = json_object();
  for (int col = 0; out != NULL && col < GCB_RC_COUNT; col++) {
    if ((is_late_column(col) && !late) ||
        (is_telemetry_column(col) && !telemetry))
      continue;
    json_t *a = json_array();
    for (int r = 0; a != NULL && r < rec->nranks; r++)
      if (json_array_append_new(a, rank_value(rec, &rec->ranks[r], col)) != 0)
        json_decrefp(&a);
    if (gcb_ranks_set_column(out, col, a) != 0)
      json_decrefp(&out);
  }
  return out;
}

/* The rank number held by the record's rank slot i (-1 if none). */
static int rank_at(const struct gcb_record *rec, int i) {
  return rec->nranks > 0 ? rec->ranks[i].rank : -1;
}

/* Collective figures (nccl-tests): time over ranks, algbw, busbw and the
 * latest-arriving rank; only for records that carry them. */
static int add_collective_summary(json_t *o, const struct gcb_record *rec,
                                  const struct gcb_record_summary *s) {
  int rc = json_object_set_new(
      o, "time_s",
      json_pack("{s:o, s:o, s:o}", "min", number(s->time.min), "mean",
                number(s->time.mean), "max", number(s->time.max)));
  if (rec->figure.bus_factor > 0) {
    rc |= json_object_set_new(o, "algbw", number(s->algbw));
    rc |= json_object_set_new(o, "busbw", number(s->busbw));
  }
  if (s->late_rank >= 0) {
    rc |= json_object_set_new(o, "late_rank",
                              json_integer(rank_at(rec, s->late_rank)));
    rc |= json_object_set_new(o, "late_mean_s", number(s->late_mean));
    rc |= json_object_set_new(o, "late_max_s", number(s->late_max));
  }
  return rc;
}

static json_t *summary_json(const struct gcb_record *rec,
                            const struct gcb_record_summary *s) {
  const struct gcb_stats *f = &s->figure;
  json_t *o = json_pack(
      "{s:i, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:o, s:I, s:b}", "ranks",
      rec->nranks, "min", number(f->min), "median", number(f->median), "mean",
      number(f->mean), "max", number(f->max), "stdev", number(f->stdev),
      "min_rank", rank_at(rec, s->min_rank), "max_rank",
      rank_at(rec, s->max_rank), "imbalance", number(s->imbalance), "wrong",
      (json_int_t)s->wrong, "checked", s->checked);
  if (o != NULL && add_collective_summary(o, rec, s) != 0) {
    json_decref(o);
    o = NULL;
  }
  return o;
}

static json_t *case_json(const struct gcb_record *rec) {
  struct gcb_record_summary s;
  gcb_record_summarize(rec, &s);
  json_t *o = json_pack(
      "{s:s, s:s, s:s, s:o, s:s, s:o, s:s, s:i, s:i, s:o, "
      "s:{s:b, s:b, s:I}, s:o}",
      "bench", str_or_empty(rec->bench), "backend", str_or_empty(rec->backend),
      "label", rec->label, "params", params_json(rec), "unit",
      str_or_empty(rec->figure.unit), "work_per_op", number(rec->work_per_op),
      "counted", str_or_empty(rec->figure.counted), "iterations",
      rec->iterations, "warmup", rec->warmup, "summary", summary_json(rec, &s),
      "validation", "checked", s.checked, "passed", s.checked && s.wrong == 0,
      "wrong", (json_int_t)s.wrong, "per_rank", per_rank_columns_json(rec));
  if (o != NULL && rec->figure.bus_factor > 0 &&
      json_object_set_new(o, "bus_factor", number(rec->figure.bus_factor)) !=
          0) {
    json_decref(o);
    o = NULL;
  }
  return o;
}

static enum gcb_status append(struct gcb_results *r, const char *section,
                              json_t *item, struct gcb_err *err) {
  if (item == NULL)
    return gcb_err_set(err, GCB_ENOMEM,
                       "results: cannot build %s entry (out of memory, or a "
                       "string that is not UTF-8)",
                       section);
  if (json_array_append_new(json_object_get(r->root, section), item) != 0)
    return gcb_err_set(err, GCB_ENOMEM, "results: cannot append to %s",
                       section);
  return GCB_OK;
}

/* A document owning root (stolen: freed on failure); NULL on ENOMEM. */
static struct gcb_results *wrap(json_t *root) {
  struct gcb_results *r = root != NULL ? calloc(1, sizeof *r) : NULL;
  if (r != NULL && (r->cache = calloc(1, sizeof *r->cache)) != NULL) {
    r->root = root;
    return r;
  }
  free(r);
  json_decref(root);
  return NULL;
}

struct gcb_results *gcb_results_new(void) {
  return wrap(json_pack("{s:s, s:[], s:[], s:[]}", "schema", GCB_RESULTS_SCHEMA,
                        "cases", "skipped", "errors"));
}

static void cache_free(struct case_cache *k) {
  for (size_t i = 0; k != NULL && i < k->n; i++)
    free(k->items[i].text);
  if (k != NULL)
    free(k->items);
  free(k);
}

void gcb_results_free(struct gcb_results *r) {
  if (r == NULL)
    return;
  json_decref(r->root);
  cache_free(r->cache);
  free(r);
}

json_t *gcb_results_json(const struct gcb_results *r) {
  return r->root;
}

static const struct node *section_node(const char *section) {
  for (const char *const *s = settable; *s != NULL; s++)
    if (strcmp(*s, section) == 0)
      for (const struct field *f = root_fields; f->name != NULL; f++)
        if (strcmp(f->name, section) == 0)
          return f->node;
  return NULL;
}

enum gcb_status gcb_results_set(struct gcb_results *r, const char *section,
                                json_t *value, struct gcb_err *err) {
  enum gcb_status rc = GCB_OK;
  const struct node *n = section_node(section);
  if (n == NULL)
    rc = gcb_err_set(err, GCB_EINTERNAL, "results: no settable section '%s'",
                     section);
  else if (value == NULL)
    rc = gcb_err_set(err, GCB_ENOMEM, "results: no value for section '%s'",
                     section);
  else
    rc = check_built(value, n, section, "results", err);
  if (rc == GCB_OK && json_object_set(r->root, section, value) != 0)
    rc = gcb_err_set(err, GCB_ENOMEM, "results: cannot set '%s'", section);
  json_decref(value);
  return rc;
}

enum gcb_status gcb_results_add_record(struct gcb_results *r,
                                       const struct gcb_record *rec,
                                       struct gcb_err *err) {
  json_t *c = case_json(rec);
  if (c == NULL)
    return gcb_err_set(err, GCB_ENOMEM,
                       "results: cannot build case %s '%s' (out of memory, or "
                       "a string that is not UTF-8)",
                       str_or_empty(rec->bench), rec->label);
  char what[160];
  snprintf(what, sizeof what, "results: case %s '%s'", str_or_empty(rec->bench),
           rec->label);
  enum gcb_status rc = check_built(c, &n_case, NULL, what, err);
  if (rc != GCB_OK) {
    json_decref(c);
    return rc;
  }
  return append(r, "cases", c, err);
}

enum gcb_status gcb_results_add_skip(struct gcb_results *r, const char *bench,
                                     const char *label, const char *reason,
                                     struct gcb_err *err) {
  return append(r, "skipped",
                json_pack("{s:s, s:s, s:s}", "bench", str_or_empty(bench),
                          "label", str_or_empty(label), "reason",
                          str_or_empty(reason)),
                err);
}

enum gcb_status gcb_results_add_error(struct gcb_results *r, const char *bench,
                                      const char *label, int rank,
                                      enum gcb_status code, const char *message,
                                      struct gcb_err *err) {
  return append(r, "errors",
                json_pack("{s:s, s:s, s:i, s:s, s:s}", "bench",
                          str_or_empty(bench), "label", str_or_empty(label),
                          "rank", rank, "status", gcb_status_name(code),
                          "message", str_or_empty(message)),
                err);
}

/* ---- writing ------------------------------------------------------------ */

/* A shallow copy of the root with the sections in schema order, then any
 * others, so files read the same whatever order sections were set in;
 * "cases" empty, for the cached case texts to go in. */
static json_t *ordered_root(const json_t *root) {
  json_t *out = json_object();
  for (const struct field *f = root_fields; out != NULL && f->name; f++) {
    json_t *v = strcmp(f->name, "cases") == 0
                    ? json_array()
                    : json_incref(json_object_get(root, f->name));
    if (v != NULL && json_object_set_new(out, f->name, v) != 0)
      json_decrefp(&out);
  }
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)root, key, v) {
    if (out != NULL && json_object_get(out, key) == NULL &&
        json_object_set(out, key, v) != 0)
      json_decrefp(&out);
  }
  return out;
}

/* jansson hands the dump over token by token: gathered into blocks, so
 * that a large document costs a few system calls, not one per token. */
#define SINK_BLOCK ((size_t)1 << 16)

struct sink {
  int fd;
  int error; /* errno of the first failed write */
  size_t used;
  char block[SINK_BLOCK];
};

static void sink_flush(struct sink *k) {
  const char *buf = k->block;
  size_t size = k->used;
  while (size > 0 && k->error == 0) {
    ssize_t n = write(k->fd, buf, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      k->error = errno;
    } else {
      buf += n;
      size -= (size_t)n;
    }
  }
  k->used = 0;
}

static int write_all(const char *buf, size_t size, void *data) {
  struct sink *k = data;
  while (size > 0 && k->error == 0) {
    size_t room = SINK_BLOCK - k->used, n = size < room ? size : room;
    memcpy(k->block + k->used, buf, n);
    k->used += n;
    buf += n;
    size -= n;
    if (k->used == SINK_BLOCK)
      sink_flush(k);
  }
  return k->error == 0 ? 0 : -1;
}

static enum gcb_status io_error(const char *path, const char *what, int e,
                                struct gcb_err *err) {
  return gcb_err_set(err, GCB_EIO, "%s: %s (%s)", path, what, strerror(e));
}

/* Writes the document and a final newline to fd, then syncs it. */
/* The document as text: the rest of the document with an empty "cases"
 * array, split where the cached cases go in. */
struct doc_text {
  const char *head; /* up to and including "cases": [ */
  size_t head_len;
  const char *tail; /* from the ] of "cases" on */
  const struct case_cache *cases;
};

static int write_text(const struct doc_text *t, struct sink *k) {
  int failed = write_all(t->head, t->head_len, k) != 0;
  for (size_t i = 0; !failed && i < t->cases->n; i++)
    failed = write_all(i ? ",\n  " : "\n  ", i ? 4 : 3, k) != 0 ||
             write_all(t->cases->items[i].text, t->cases->items[i].len, k) != 0;
  if (!failed && t->cases->n > 0)
    failed = write_all("\n ", 2, k) != 0;
  return failed || write_all(t->tail, strlen(t->tail), k) != 0 ||
         write_all("\n", 1, k) != 0;
}

static enum gcb_status write_fd(const struct doc_text *doc, int fd,
                                const char *path, struct gcb_err *err) {
  struct sink *k = malloc(sizeof *k);
  if (k == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", path);
  k->fd = fd;
  k->error = 0;
  k->used = 0;
  int failed = write_text(doc, k);
  if (!failed)
    sink_flush(k);
  int e = k->error ? k->error : ENOMEM;
  failed |= k->error != 0;
  free(k);
  if (failed)
    return io_error(path, "cannot write temporary file", e, err);
  if (fsync(fd) != 0)
    return io_error(path, "cannot sync temporary file", errno, err);
  return GCB_OK;
}

/* The directory holding path, as a new string ("." for a bare name). */
static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash == NULL   ? strdup(".")
         : slash == path ? strdup("/")
                         : strndup(path, (size_t)(slash - path));
}

/* Syncs the directory holding path, so that the rename is durable.
 * Filesystems that cannot sync directories (EINVAL) are not an error. */
static enum gcb_status sync_dir(const char *path, struct gcb_err *err) {
  char *dir = dir_of(path);
  if (dir == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", path);
  enum gcb_status rc = GCB_OK;
  int fd = open(dir, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL))
    rc = io_error(path, "cannot sync directory", errno, err);
  if (fd >= 0)
    close(fd);
  free(dir);
  return rc;
}

/* Writes doc to fd, closes fd, and renames the file over path: through the
 * named temporary `tmp` (linked from the unnamed file when `unnamed`).
 * Removes tmp on failure. */
static enum gcb_status finish_file(const struct doc_text *doc, int fd,
                                   bool unnamed, const char *tmp,
                                   const char *path, struct gcb_err *err) {
  enum gcb_status rc = write_fd(doc, fd, path, err);
  if (rc == GCB_OK && unnamed) {
    /* Linked only now, complete and synced: a writer killed before this
     * point leaves nothing behind, not even a temporary file. */
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    unlink(tmp); /* left by a writer killed between link and rename */
    if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) != 0)
      rc = io_error(path, "cannot link temporary file", errno, err);
  }
  if (close(fd) != 0 && rc == GCB_OK)
    rc = io_error(path, "cannot close temporary file", errno, err);
  if (rc == GCB_OK && rename(tmp, path) != 0)
    rc = io_error(path, "cannot rename temporary file into place", errno, err);
  if (rc != GCB_OK)
    unlink(tmp);
  return rc;
}

/* An unnamed file in path's directory (O_TMPFILE), or -1 where the system
 * or filesystem has none, or /proc, through which it is linked, is not
 * mounted. */
static int open_unnamed(const char *path) {
#ifdef O_TMPFILE
  if (access("/proc/self/fd", X_OK) != 0)
    return -1;
  char *dir = dir_of(path);
  int fd = dir != NULL ? open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644) : -1;
  free(dir);
  return fd;
#else
  (void)path;
  return -1;
#endif
}

/* Writes doc to a temporary file, then renames it over path. */
static enum gcb_status replace_file(const struct doc_text *doc, const char *tmp,
                                    const char *path, struct gcb_err *err) {
  int fd = open_unnamed(path);
  if (fd >= 0)
    return finish_file(doc, fd, true, tmp, path, err);
  fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return io_error(path, "cannot create temporary file", errno, err);
  return finish_file(doc, fd, false, tmp, path, err);
}

/* Refuses to replace what is not a file: a rename over a device or a FIFO
 * (/dev/null with --force) would replace the node itself. Directories are
 * left to rename, which refuses them. */
static enum gcb_status check_target(const char *path, struct gcb_err *err) {
  struct stat sb;
  if (lstat(path, &sb) != 0 || S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode) ||
      S_ISDIR(sb.st_mode))
    return GCB_OK;
  return gcb_err_set(err, GCB_EIO,
                     "%s: not a regular file; a results document will not "
                     "replace it",
                     path);
}

/* Removes what writers killed between link and rename left beside path:
 * "path.tmp.PID" files of processes that are gone. */
static void remove_stale(const char *path) {
  char *dir = dir_of(path);
  const char *slash = strrchr(path, '/');
  const char *base = slash != NULL ? slash + 1 : path;
  size_t blen = strlen(base);
  DIR *d = dir != NULL ? opendir(dir) : NULL;
  struct dirent *e;
  while (d != NULL && (e = readdir(d)) != NULL) {
    const char *tail = e->d_name + blen;
    if (strncmp(e->d_name, base, blen) != 0 || strncmp(tail, ".tmp.", 5) != 0)
      continue;
    char *end;
    errno = 0;
    long pid = strtol(tail + 5, &end, 10);
    if (errno == 0 && *end == '\0' && pid > 0 && pid != (long)getpid() &&
        kill((pid_t)pid, 0) != 0 && errno == ESRCH)
      unlinkat(dirfd(d), e->d_name, 0);
  }
  if (d != NULL)
    closedir(d);
  free(dir);
}

/* Case c as it stands in the document: dumped alone, then indented by
 * the two levels of "cases": [ ... ] (strings hold no raw newline). */
static char *case_text(const json_t *c, size_t *len) {
  char *flat = json_dumps(c, DUMP_FLAGS);
  if (flat == NULL)
    return NULL;
  size_t lines = 0, n = strlen(flat);
  for (size_t i = 0; i < n; i++)
    lines += flat[i] == '\n';
  char *out = malloc(n + 2 * lines + 1), *o = out;
  for (size_t i = 0; out != NULL && i < n; i++) {
    *o++ = flat[i];
    if (flat[i] == '\n')
      *o++ = ' ', *o++ = ' ';
  }
  if (out != NULL)
    *o = '\0', *len = (size_t)(o - out);
  free(flat);
  return out;
}

/* Brings the cache up to the document's cases; -1 on ENOMEM. A case
 * replaced in the tree (another json_t) is dumped again. */
static int cache_update(const struct gcb_results *r) {
  const json_t *cases = json_object_get(r->root, "cases");
  size_t n = json_array_size(cases);
  struct case_cache *k = r->cache;
  if (n > k->cap) {
    size_t cap = n > 2 * k->cap ? n : 2 * k->cap;
    struct case_text *grown = realloc(k->items, cap * sizeof *grown);
    if (grown == NULL)
      return -1;
    memset(grown + k->cap, 0, (cap - k->cap) * sizeof *grown);
    k->items = grown;
    k->cap = cap;
  }
  for (size_t i = n; i < k->n; i++) {
    free(k->items[i].text);
    k->items[i] = (struct case_text){0};
  }
  k->n = n;
  for (size_t i = 0; i < n; i++) {
    struct case_text *t = &k->items[i];
    const json_t *c = json_array_get(cases, i);
    if (t->text != NULL && t->c == c)
      continue;
    free(t->text);
    t->c = c;
    if ((t->text = case_text(c, &t->len)) == NULL)
      return -1;
  }
  return 0;
}

/* The document's text around its cases (the caller frees *head). */
static int split_text(const struct gcb_results *r, char **head,
                      struct doc_text *t) {
  static const char marker[] = "\n \"cases\": []";
  json_t *doc = ordered_root(r->root);
  *head = doc != NULL ? json_dumps(doc, DUMP_FLAGS) : NULL;
  json_decref(doc);
  const char *at = *head != NULL ? strstr(*head, marker) : NULL;
  if (at == NULL)
    return -1;
  *t = (struct doc_text){.head = *head,
                         .head_len = (size_t)(at - *head) + sizeof marker - 2,
                         .tail = at + sizeof marker - 2,
                         .cases = r->cache};
  return 0;
}

enum gcb_status gcb_results_write(const struct gcb_results *r, const char *path,
                                  struct gcb_err *err) {
  size_t size = strlen(path) + 32;
  char *tmp = malloc(size), *head = NULL;
  struct doc_text text;
  enum gcb_status rc = GCB_OK;
  if (tmp == NULL || cache_update(r) != 0 || split_text(r, &head, &text) != 0) {
    rc = gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", path);
    goto done;
  }
  snprintf(tmp, size, "%s.tmp.%ld", path, (long)getpid());
  rc = check_target(path, err);
  if (rc == GCB_OK)
    rc = replace_file(&text, tmp, path, err);
  if (rc == GCB_OK)
    rc = sync_dir(path, err);
  if (rc == GCB_OK)
    remove_stale(path);
done:
  free(head);
  free(tmp);
  return rc;
}

/* ---- reading ------------------------------------------------------------ */

enum gcb_status gcb_results_read(const char *path, struct gcb_results **out,
                                 struct gcb_err *err) {
  *out = NULL;
  char *text = NULL;
  size_t len = 0;
  enum gcb_status rc = gcb_file_read(path, RESULTS_MAX_BYTES, &text, &len, err);
  if (rc == GCB_OK)
    rc = gcb_results_parse(text, len, path, out, err);
  free(text);
  return rc;
}

/* A valid schema-1 document becomes a schema-2 one: each case's per-rank
 * entries transposed into columns. -1 on ENOMEM. */
static int upgrade_v1(json_t *root) {
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(root, "cases"), i, c) {
    json_t *cols = gcb_ranks_from_rows(json_object_get(c, "per_rank"));
    if (cols == NULL || json_object_set_new(c, "per_rank", cols) != 0)
      return -1;
  }
  return json_object_set_new(root, "schema", json_string(GCB_RESULTS_SCHEMA));
}

static int all_blank(const char *text, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (memchr(" \t\r\n", text[i], 4) == NULL)
      return 0;
  return 1;
}

static enum gcb_status load(const char *text, size_t len, const char *name,
                            json_t **root, struct gcb_err *err) {
  if (len > RESULTS_MAX_BYTES)
    return gcb_err_set(err, GCB_EINPUT,
                       "%s: too large (%zu bytes, limit %zu MiB)", name, len,
                       RESULTS_MAX_BYTES >> 20);
  if (all_blank(text, len))
    return gcb_err_set(err, GCB_EINPUT,
                       "%s:1:1: empty file, not a gcbench results document",
                       name);
  json_error_t je;
  *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
  if (*root == NULL)
    return gcb_err_set(err, GCB_EINPUT, "%s:%d:%d: %s", name, je.line,
                       je.column > 0 ? je.column : 1, je.text);
  return GCB_OK;
}

enum gcb_status gcb_results_parse(const char *text, size_t len,
                                  const char *name, struct gcb_results **out,
                                  struct gcb_err *err) {
  *out = NULL;
  name = name != NULL ? name : "<buffer>";
  json_t *root = NULL;
  enum gcb_status rc = load(text, len, name, &root, err);
  struct walk w = {.text = text, .len = len, .name = name, .err = err};
  const struct node *root_node = NULL;
  if (rc == GCB_OK)
    rc = check_schema(&w, root, &root_node);
  if (rc == GCB_OK)
    rc = check_value(&w, root, root_node);
  if (rc == GCB_OK && root_node == &n_root_v1 && upgrade_v1(root) != 0)
    rc = gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", name);
  if (rc != GCB_OK) {
    json_decref(root);
    return rc;
  }
  if ((*out = wrap(root)) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", name);
  return GCB_OK;
}
