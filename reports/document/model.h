/*
 * The typed model of a results document: what a loaded document says, as C
 * structs, built once from the validated jansson tree
 * (gcb_model_from_results), so that the report modules work on fields and
 * arrays, not on a JSON tree (docs/ARCHITECTURE.md, "The typed model").
 *
 * The model borrows: every string, and every per-rank column of a
 * document read (the arrays reports/document/ranks.h reads them into),
 * points into the document, which must outlive the model. The columns of
 * a tree built in memory are read once into arrays the model owns.
 * Lookups give the values and fallbacks of reports/document/view.h
 * and ranks.h, field for field: -1 for an unknown index, "" for an absent
 * string, NAN for an absent number (tests/reports/test_model.c compares
 * them on the committed fixtures).
 */
#ifndef GCB_MODEL_H
#define GCB_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/status.h"
#include "reports/document/bench_kind.h"
#include "reports/document/ranks.h"

struct json_t;      /* jansson's tree: what gcb_model_from_json reads */
struct gcb_results; /* reports/document/results.h */

/* ---- benchmarks -------------------------------------------------------- */

/* A case's benchmark is an enum gcb_bench_kind with its descriptor row
 * (reports/document/bench_kind.h). */

/* ---- free-form values (options, software, parameters) ------------------ */

/* Sections whose members the schema leaves open (options echo each
 * command's option table, software each library found, params each
 * benchmark's) are typed values: scalars as such, objects as key/value
 * lists. */
enum gcb_mv_type {
  GCB_MV_ABSENT, /* no such member */
  GCB_MV_NULL,
  GCB_MV_BOOL,
  GCB_MV_INT,
  GCB_MV_REAL,
  GCB_MV_STRING,
  GCB_MV_ARRAY, /* kept as its JSON text only */
  GCB_MV_OBJECT,
};

struct gcb_mkv;

struct gcb_mvalue {
  enum gcb_mv_type type;
  bool b;
  long long i;
  double num; /* INT and REAL: the number; NAN otherwise */
  /* STRING: the string; any other present type: its compact JSON text
   * (what a message quotes), NULL for ABSENT. */
  const char *text;
  struct gcb_mkv *members; /* OBJECT: in document order */
  size_t n;
};

struct gcb_mkv {
  const char *key;
  struct gcb_mvalue value;
};

/* The member `key` of an object value; a value of type ABSENT when there
 * is none (or v is not an object). Never NULL. */
const struct gcb_mvalue *gcb_mvalue_get(const struct gcb_mvalue *v,
                                        const char *key);

/* Member `key` of v when it is a string, else "". */
const char *gcb_mvalue_str(const struct gcb_mvalue *v, const char *key);

/* Whether two values are equal as jansson's json_equal says (types equal,
 * objects member for member in any order; arrays by their text). Two
 * ABSENT values are equal. */
bool gcb_mvalue_equal(const struct gcb_mvalue *a, const struct gcb_mvalue *b);

/* ---- the run ----------------------------------------------------------- */

struct gcb_model_probe_pair {
  long long ranks[2];
  bool same_node;
  double min_us, median_us; /* NAN when absent */
  long long batches;        /* -1 when absent */
};

struct gcb_model_run {
  const char *schema; /* "gcbench.results/2" */
  const char *tool, *version, *git_revision;
  const char *id, *command, *start_time, *end_time; /* "" when absent/null */
  const char *status;  /* "complete", "failed", ... */
  const char *backend; /* "host", "cuda" */
  const char *backend_reason;
  long long ranks, nodes;
  struct gcb_mvalue run;         /* the whole run object (notes compare it) */
  struct gcb_mvalue environment; /* object of strings, or ABSENT */
  struct gcb_mvalue software;    /* object, or ABSENT */
  struct gcb_mvalue options;     /* object, or ABSENT */
  bool has_probe;                /* run.mpi_probe present */
  long long probe_bytes;         /* 8 when absent */
  struct gcb_model_probe_pair *probe;
  size_t nprobe;
};

/* ---- nodes, GPUs, ranks ------------------------------------------------ */

/* A PCIe hop of a GPU's path (nodes[].topology.gpus[].pcie_path[]). */
struct gcb_model_hop {
  const char *busid;
  long long gen, width; /* -1 when unknown */
  double gbps;          /* NAN when unknown */
  /* ---- plot: topology facts for the pictures ---- */
  const char *link; /* "gen5 x16"; "" when absent or null */
};

/* A GPU of a node's topology. Its identity is (node, busid). */
struct gcb_model_gpu {
  long long node;
  long long index; /* topology index (bus id order) */
  const char *busid, *model, *arch, *cpus;
  long long numa;              /* -1 when unknown */
  double link_gbps, host_gbps; /* NAN when unknown */
  long long nvlinks;           /* -1 when unknown */
  struct gcb_model_hop *hops;
  size_t nhops;
  /* ---- plot: topology facts for the pictures ---- */
  long long pcie_switch; /* index in the node's switches[]; -1 when none */
  /* ---- anB: the host link's basis (host_link.basis; "" when absent) -- */
  const char *host_basis;
};

/* A GPU's health as NVML saw it (nodes[].gpus[]). */
struct gcb_model_health {
  long long ordinal;
  const char *bus_id, *name;
  bool nvml;
  double temp_c, power_w, power_limit_w;           /* NAN when null/absent */
  double sm_clock_mhz, sm_clock_max_mhz;           /* NAN when null/absent */
  long long ecc_uncorrected, pcie_gen, pcie_width; /* -1 when null/absent */
  bool throttle_slowed;
  /* ---- anA: the reasons NVML gave (throttle.reasons; "" when absent) -- */
  const char *throttle_reasons;
  /* ---- anB: NVML's maximum link (pcie_gen_max, pcie_width_max) ------ */
  long long pcie_gen_max, pcie_width_max; /* -1 when null/absent */
};

struct gcb_model_nic {
  const char *name, *busid;
  long long numa; /* -1 when unknown */
  /* ---- plot: topology facts for the pictures ---- */
  long long pcie_switch; /* index in the node's switches[]; -1 when none */
  /* ---- anB: its index and PCIe path (the topology's nics[]) --------- */
  long long index; /* -1 when unknown */
  struct gcb_model_hop *hops;
  size_t nhops;
};

/* A hostname's bytes with its NUL, at most: a DNS name is at most 253
 * bytes and a run names a node in the 256 of its context
 * (bench/run/context.h). The reader and the converters refuse a longer
 * one, located, so that what reports keep of a host (a finding's, a
 * component's, a machine's) holds it whole: two hosts are never one by a
 * cut. */
#define GCB_HOSTNAME_SIZE 256

struct gcb_model_node {
  long long index;
  const char *hostname, *cpu_model;
  long long cores, pus, packages, numa_nodes, llc_bytes, memory_bytes;
  long long *ranks; /* the ranks placed on it */
  size_t nranks;
  bool has_topology;
  struct gcb_model_gpu *gpus; /* topology GPUs, in document order */
  size_t ngpus;
  struct gcb_model_nic *nics;
  size_t nnics;
  long long *numa; /* topology NUMA nodes' os_index */
  size_t nnuma;
  struct gcb_model_health *health; /* nodes[].gpus[] */
  size_t nhealth;
  /* ---- plot: topology facts for the pictures ---- */
  struct gcb_model_switch *switches; /* topology.pcie_switches[], in order */
  size_t nswitches;
  /* topology.paths: the devices ("GPU0", ..., "NIC0") and, npaths x npaths
   * row-major, the path class of each pair ("NV18", "PIX"; "" unknown) and
   * its expected GB/s per direction (NAN unknown); read them with
   * gcb_model_pair_class and gcb_model_pair_gbps. */
  size_t npaths;
  const char **path_devices;
  const char **path_class;
  double *path_gbps;
  /* ---- anB: the topology's placement check, facts, NUMA CPUs -------- */
  bool has_placement; /* topology.placement is an array (maybe empty) */
  struct gcb_model_problem *placement; /* in document order */
  size_t nplacement;
  struct gcb_model_fact *facts; /* topology.facts[] */
  size_t nfacts;
  const char **numa_cpus; /* parallel to numa[]: its cpus, "" when absent */
};

struct gcb_model_rank {
  long long rank, node, local_rank, pid;
  const char *hostname;
  const char *cpu_binding; /* "" when unbound */
  long long bound_pus, cpu_threads;
  long long numa; /* ranks[].numa, else device.numa_node; -1 */
  bool has_device;
  /* The device: index -1, "" and -1 when absent. device_name is NULL and
   * device_memory_bytes -1 when the member is absent (compare tells an
   * absent member from an empty one). */
  long long device_index;
  const char *device_bus_id;
  const char *device_name;
  long long device_memory_bytes;
  /* ---- anA: the rank's own BLAS (ranks[].blas) ---------------------- */
  bool has_blas;            /* ranks[].blas is an object */
  const char *blas_core;    /* its core ("" when absent) */
  const char *blas_cpu_isa; /* the rank's CPU's widest ISA ("") */
  long long blas_threads;   /* -1 when absent */
};

/* ---- cases ------------------------------------------------------------- */

/* A case's per-rank results: column c is num[c], n doubles (NaN for null;
 * a boolean column 1 or 0), or NULL when the document has no such column;
 * text columns (validation.method, telemetry.throttle_reasons) are str[c]
 * (NULL elements for null). */
struct gcb_model_columns {
  size_t n;
  const double *num[GCB_RC_COUNT];
  const char *const *str[GCB_RC_COUNT];
};

struct gcb_model_summary {
  long long ranks, min_rank, max_rank, late_rank;  /* -1 when absent */
  double min, median, mean, max, stdev, imbalance; /* NAN when absent */
  double wrong;                                    /* NAN when absent */
  bool checked;
  double time_min, time_mean, time_max;         /* summary.time_s; NAN */
  double algbw, busbw, late_mean_s, late_max_s; /* NAN */
};

struct gcb_model_validation {
  bool present;
  bool checked;
  bool passed, passed_present; /* passed_present: the member exists */
  long long wrong;             /* 0 when absent */
};

struct gcb_model_case {
  size_t index; /* in cases[] */
  /* Its sweep (gcb_model_sweep_key, whole): the index of the document's
   * first case with the same sweep key; index itself for that case. */
  size_t sweep;
  enum gcb_bench_kind kind;
  const char *bench, *backend, *label, *unit, *counted;
  double work_per_op, bus_factor; /* NAN when absent */
  long long iterations, warmup;   /* -1 when absent */
  /* Known parameters; NAN and "" when absent (or of another type). */
  double size, bytes, count, m, n, k, src, dst;
  const char *dtype, *op, *direction, *memory, *kernel, *path;
  struct gcb_mvalue params; /* all of them, as an object (ABSENT: none) */
  struct gcb_model_summary summary;
  struct gcb_model_validation validation;
  struct gcb_model_columns ranks;
  /* The source stated rates only: work_per_op is the converter's nominal
   * size and every time of the case is derived, not measured
   * (docs/results-schema.md, `nominal_work`): show none. */
  bool nominal_work;
  /* A figure another tool made of the document's own cases (nccl-tests'
   * Avg bus bandwidth over its rows): compare never counts it missing on
   * its own, the rows it averages are. Converted files only. */
  bool derived;
  /* ---- bpn: the burn-in timeline ---- */
  /* The case's "timeline" (burn cases: docs/results-schema.md), read once
   * by the document's reader (gcb_results_burn_timeline) into a struct
   * the model owns (reports/document/record.h); NULL when the case has
   * none. */
  const struct gcb_burn_timeline *timeline;
};

/* ---- errors and skips -------------------------------------------------- */

struct gcb_model_error {
  long long rank; /* -1 when absent */
  const char *bench, *label, *status, *message;
};

struct gcb_model_skip {
  const char *bench, *label, *reason;
};

/* ---- the document ------------------------------------------------------ */

struct gcb_model {
  const char *name; /* the name it is shown by (its path) */
  struct gcb_model_run run;
  struct gcb_model_node *nodes; /* ordered by index */
  size_t nnodes;
  struct gcb_model_rank *ranks; /* ordered by rank */
  size_t nranks;
  struct gcb_model_case *cases; /* document order */
  size_t ncases;
  struct gcb_model_error *errors;
  size_t nerrors;
  struct gcb_model_skip *skips;
  size_t nskips;
  struct gcb__model_arena *arena; /* what the model owns */
};

/*
 * Builds the model of a document gcb_results_parse accepted, shown by
 * `name` (borrowed; NULL: ""). The document must outlive the model and
 * not change while it lives. On success *out owns the model (free with
 * gcb_model_free); on failure *out is NULL and the status is GCB_ENOMEM,
 * the only way it fails (with its message in err).
 */
enum gcb_status gcb_model_from_results(const struct gcb_results *res,
                                       const char *name, struct gcb_model **out,
                                       struct gcb_err *err);

/* The same from a validated tree (one built in memory, a converted
 * tool's document): root as gcb_results_json gives it. */
enum gcb_status gcb_model_from_json(const struct json_t *root, const char *name,
                                    struct gcb_model **out,
                                    struct gcb_err *err);

/* Copies node `from`'s topology (GPUs, NICs, NUMA nodes, PCIe switches
 * and paths; not the placement check or facts, which belong to the run
 * that recorded them) into node `to` of m, which then owns every copy:
 * a converted file joined to the machine a gcbench document describes.
 * false on ENOMEM (m then fails whole: free it). */
bool gcb__model_copy_topology(struct gcb_model *m, struct gcb_model_node *to,
                              const struct gcb_model_node *from);

/* Sets string parameter `key` of case c of m to value, in c's params and
 * its fields (c->path, ...): a converted p2p pair given its
 * path class by the topology it was joined to. false on ENOMEM (m then
 * fails whole: free it). */
bool gcb__model_param_set(struct gcb_model *m, struct gcb_model_case *c,
                          const char *key, const char *value);

/* NULL is a no-op. */
void gcb_model_free(struct gcb_model *m);

/* ---- lookups ------------------------------------------------------------ */

/* The rank entry of `rank`, the node with `index`; NULL if none. */
const struct gcb_model_rank *gcb_model_rank(const struct gcb_model *m,
                                            long long rank);
const struct gcb_model_node *gcb_model_node(const struct gcb_model *m,
                                            long long index);

/* Where a rank runs, from its rank entry and its node (struct gcb_place,
 * view.h); unknown parts are -1 / "". */
struct gcb_place;
void gcb_model_place(const struct gcb_model *m, long long rank,
                     struct gcb_place *out);

/* Element i of column col of case c: NAN when null, absent or past the
 * end (gcb_ranks_num); a boolean column's elements are 1 and 0. */
double gcb_model_col(const struct gcb_model_case *c, enum gcb_rank_col col,
                     size_t i);

/* The same of an integer column, def then; of a text column, "" then. */
long long gcb_model_col_int(const struct gcb_model_case *c,
                            enum gcb_rank_col col, size_t i, long long def);
const char *gcb_model_col_str(const struct gcb_model_case *c,
                              enum gcb_rank_col col, size_t i);

/* The rank number of entry i (column rank), or def. */
long long gcb_model_col_rank(const struct gcb_model_case *c, size_t i,
                             long long def);

/*
 * The case as a stable one-line key: bench, then its params as key=value
 * in sorted key order, then [unit] ("gemm dtype=fp32 m=256 [GFLOP/s]");
 * numbers print with %.17g, so that 256 and 256.0 give the same key;
 * truncated (at a UTF-8 boundary) to fit buf (gcb__view_key, view.h).
 * _except: the same key without the params named in skip (NULL-terminated;
 * NULL skips none); it returns the whole key's length (SIZE_MAX: out of
 * memory). _dup: the whole key, allocated (free it; NULL: out of memory),
 * for what tells cases apart by it (compare's pairing). The sweep key, the one
 * definition of a sweep every report uses: the key without the parameters a
 * sweep varies (size, bytes, count, inplace), then the transport
 * (GCB_VIEW_SWEEP_KEY bytes hold any that is not truncated). The title: "bench:
 * label", ending with "..." where it is cut to fit.
 */
void gcb_model_case_key(const struct gcb_model_case *c, char *buf, size_t size);
size_t gcb_model_case_key_except(const struct gcb_model_case *c,
                                 const char *const *skip, char *buf,
                                 size_t size);
char *gcb_model_case_key_dup(const struct gcb_model_case *c,
                             const char *const *skip);
void gcb_model_sweep_key(const struct gcb_model_case *c, char *buf,
                         size_t size);
void gcb_model_case_title(const struct gcb_model_case *c, char *buf,
                          size_t size);

/* A case parameter as a number (a JSON number, or a string that is one:
 * "3", "1048576"; NAN otherwise), and as a string (a JSON string, else "";
 * numbers are not converted). */
double gcb_model_param_num(const struct gcb_model_case *c, const char *key);
const char *gcb_model_param_str(const struct gcb_model_case *c,
                                const char *key);

/* Whether a case times latency rather than a rate (an op "latency" or
 * "barrier", a direction "latency", a numeric size 0). Reports and
 * compare judge such figures in time, whatever their unit says. */
bool gcb_model_case_is_latency(const struct gcb_model_case *c);

/* The topology GPU of node `node` (or of node n) with that index, or by
 * bus id (any form common/busid.h parses); NULL if none. */
const struct gcb_model_gpu *gcb_model_gpu(const struct gcb_model *m,
                                          long long node, long long index);
const struct gcb_model_gpu *gcb_model_node_gpu(const struct gcb_model_node *n,
                                               long long index);
const struct gcb_model_gpu *gcb_model_gpu_by_busid(const struct gcb_model *m,
                                                   long long node,
                                                   const char *busid);

/* ---- anA: a GPU's NVML entry -------------------------------------------- */

/* The NVML entry (nodes[].gpus[]) of node `node` whose bus id is that GPU's
 * (any form common/busid.h parses); NULL if none. */
const struct gcb_model_health *
gcb_model_health_by_busid(const struct gcb_model *m, long long node,
                          const char *busid);
/* ---- plot: topology facts for the pictures ---- */

/* A PCIe switch of a node's topology (topology.pcie_switches[]). */
struct gcb_model_switch {
  const char *busid;  /* "" when absent */
  double uplink_gbps; /* NAN when unknown */
};

/* Expected GB/s per direction between GPUs a and b (topology indices) of
 * node n (the paths.expected_gbps matrix): NAN when unknown (no paths, a
 * GPU not among them, a cell absent, null or not positive). */
double gcb_model_pair_gbps(const struct gcb_model_node *n, long long a,
                           long long b);

/* The path class between GPUs a and b of node n ("NV18", "PIX", "SYS"),
 * as the node's topology gives it; "" when unknown. */
const char *gcb_model_pair_class(const struct gcb_model_node *n, long long a,
                                 long long b);
/* ---- rtab: a rank's entry in a case's columns ---- */

/* The entry index of `rank` in c's per-rank columns (the first, when a
 * rank is there twice), -1 if none: index `rank` tried first, then a
 * binary search (a read document's columns are in rank order:
 * gcb__ranks_order, ranks.h). */
long long gcb_model_col_find(const struct gcb_model_case *c, long long rank);

/* ---- anB: the topology's placement problems and facts, topology lookups */

/* A problem of the run's own placement check (topology.placement[]). */
struct gcb_model_problem {
  const char *kind;                /* "remote-binding", "shared-gpu", ... */
  long long rank, other_rank, gpu; /* -1 when null/absent */
  const char *what, *fix;          /* "" when absent */
};

/* A fact the topology noted (topology.facts[]: "link-mismatch", ...). */
struct gcb_model_fact {
  const char *kind;
  long long gpu, nic; /* -1 when null/absent */
  const char *text;
};

/* The topology's GPU index of the GPU with that bus id on node `node` (its
 * index, else its position); -1 if none. */
long long gcb_model_gpu_index(const struct gcb_model *m, long long node,
                              const char *busid);

/* The topology GPU a rank uses: by the rank's device bus id when both
 * have one, else its device index when the topology has such a GPU; -1
 * without either. *node (when not NULL) receives the rank's node when it
 * has a topology, else NULL. */
long long gcb_model_rank_gpu(const struct gcb_model *m, long long rank,
                             const struct gcb_model_node **node);

/* The lowest-listed rank of node `node` using topology GPU `gpu`, or -1. */
long long gcb_model_gpu_rank(const struct gcb_model *m, long long node,
                             long long gpu);
/* ---- dx: a case's check family ---- */

/* The check family of a case: its benchmark's (bench_kind.h), a pcie
 * copy's by its direction (d2h, d2h_bidir: D2H). */
enum gcb_family gcb_model_case_family(const struct gcb_model_case *c);

/* The check family of an error: its benchmark's; a pcie copy's direction
 * read from its label, which names it first as gcbench ("d2h ...") and
 * nvbandwidth ("device_to_host_...") write it (an error has no params). */
enum gcb_family gcb_model_error_family(const struct gcb_model_error *e);

/* Whether c runs over a communicator of one member, which moves nothing
 * between ranks (NCCL's in-place operation on one rank does no work, its
 * out-of-place one is a copy within the GPU): params.comm_size below 2,
 * else a run of one rank. false where neither says (OSU's output states
 * no ranks). */
bool gcb_model_case_alone(const struct gcb_model *m,
                          const struct gcb_model_case *c);

/* ---- a converted file's model, built directly --------------------------- */

/*
 * The converters of other tools' files (reports/interop/) build their
 * model with these, not through a tree: gcb__model_new gives an empty
 * model, the adds append its parts in any order, and gcb__model_done puts
 * it in the order a read document has (ranks by rank, nodes by index,
 * each case's columns by rank) and renders the texts of its free-form
 * values as jansson prints them. Every string given is copied into the
 * model's arena. A pointer an add returns stays valid until the next add
 * of the same part. Out of memory is sticky: the add returns NULL or
 * false, and gcb__model_done fails.
 */

/* An empty model shown by `name` (borrowed); NULL on ENOMEM. */
struct gcb_model *gcb__model_new(const char *name);

/* A copy of s the model owns (NULL stays NULL; "" on ENOMEM). */
const char *gcb__model_str(struct gcb_model *m, const char *s);

/* v's compact JSON text (JSON_COMPACT | JSON_ENCODE_ANY, as json_dumps
 * gives it), NULL on ENOMEM; free it. Not json_dumps itself: jansson 2.14
 * ignores a failure to write an object's key, so json_dumps can return a
 * garbled text when memory runs out; this writes into a buffer of its
 * own, which cannot fail half way. */
char *gcb__json_text(const struct json_t *v);

/* Free-form scalars, an empty object, and an array given as its compact
 * JSON text (gcb__json_text's, which is what the model keeps of one). */
struct gcb_mvalue gcb__mvalue_null(void);
struct gcb_mvalue gcb__mvalue_int(long long i);
struct gcb_mvalue gcb__mvalue_string(struct gcb_model *m, const char *s);
struct gcb_mvalue gcb__mvalue_object(void);
struct gcb_mvalue gcb__mvalue_array(struct gcb_model *m, const char *json);

/* A copy of jansson's v, member for member (NULL: absent). */
struct gcb_mvalue gcb__mvalue_json(struct gcb_model *m, const struct json_t *v);

/* Sets member `key` (copied) of object obj to v, in place when there is
 * one (as json_object_set), else last; false on ENOMEM. */
bool gcb__mvalue_set(struct gcb_model *m, struct gcb_mvalue *obj,
                     const char *key, struct gcb_mvalue v);

/* A new node, rank, case: zeroed (the caller fills in the fields, strings
 * through gcb__model_str); the case's index and kind are set from its
 * place and c->bench by gcb__model_done, its known parameters from
 * c->params. NULL on ENOMEM. */
struct gcb_model_node *gcb__model_add_node(struct gcb_model *m);
struct gcb_model_rank *gcb__model_add_rank(struct gcb_model *m);
struct gcb_model_case *gcb__model_add_case(struct gcb_model *m);

/* Appends rank to node n's list; false on ENOMEM. */
bool gcb__model_node_rank(struct gcb_model *m, struct gcb_model_node *n,
                          long long rank);

/* Per-rank column col of case c, the last added, of n entries (every
 * column of a case has the same n): n doubles, NaN each, to fill in, or
 * for a text column n strings, NULL each, to fill with gcb__model_str.
 * NULL on ENOMEM (and for n 0). */
double *gcb__model_column(struct gcb_model *m, struct gcb_model_case *c,
                          enum gcb_rank_col col, size_t n);
const char **gcb__model_text_column(struct gcb_model *m,
                                    struct gcb_model_case *c,
                                    enum gcb_rank_col col, size_t n);

/* A skipped[] and an errors[] entry (strings copied); false on ENOMEM. */
bool gcb__model_add_skip(struct gcb_model *m, const char *bench,
                         const char *label, const char *reason);
bool gcb__model_add_error(struct gcb_model *m, long long rank,
                          const char *bench, const char *label,
                          const char *status, const char *message);

/* Puts m in a read document's order, sets the run's fields from its run
 * object (m->run.run) and renders its values' texts.
 * GCB_OK, or GCB_ENOMEM (with its message in err; m is then still the
 * caller's to free). */
enum gcb_status gcb__model_done(struct gcb_model *m, struct gcb_err *err);

#endif
