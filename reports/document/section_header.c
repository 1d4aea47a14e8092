/*
 * The run's header in the results document: the "tool", "run", "options"
 * and "software" sections (with the BLAS and MPI library as they said at
 * run time) with their schema rows, and the whole header set at once from
 * what the run engine gathered (section_nodes.c writes "nodes" and
 * "ranks"). Read back by the typed model (model.c) and view_mpi.c.
 */
#include "reports/document/results_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcb_revision.h"
#include "reports/document/model.h"

/* ---- schema rows -------------------------------------------------------- */

/* Option values: scalars, lists (sets of choices) and, in a suite, one
 * nested object per benchmark; checked no further. */
const struct gcb__node gcb__n_options = {.types = T_OBJ};

/* software: library name -> version string, and two members that say
 * more (docs/results-schema.md): "blas_run", what the BLAS said at run time,
 * and "mpi_device", the MPI library's device. Documents before them load
 * unchanged: both are optional. */
static const char *const blas_parallel[] = {"sequential", "pthreads", "openmp",
                                            "unknown", NULL};
static const struct gcb__field blas_fields[] = {
    REQ("library", &gcb__n_str),
    REQ("core", &gcb__n_str),
    REQ("threads", &gcb__n_int),
    REQ("parallel", NODE(.types = T_STR, .choices = blas_parallel)),
    OPT("cpu_isa", &gcb__n_str),
    {0},
};
static const struct gcb__field software_fields[] = {
    OPT("blas_run", OBJ(blas_fields)),
    OPT("mpi_device", &gcb__n_str),
    {0},
};

/* Every other member of software is a version string. */
const struct gcb__node gcb__n_software = {
    .types = T_OBJ, .fields = software_fields, .items = &gcb__n_str};

/* "unknown": only converted documents, whose output does not say whether
 * the run finished (an excerpt: rows without the tool's summary). */
static const char *const run_states[] = {
    "running", "complete", "failed", "timeout", "interrupted", "unknown", NULL};

static const struct gcb__field tool_fields[] = {
    REQ("name", &gcb__n_str, IN(run, tool)),
    REQ("version", &gcb__n_str, IN(run, version)),
    REQ("git_revision", &gcb__n_str, IN(run, git_revision)),
    {0},
};
const struct gcb__node gcb__n_tool = {.types = T_OBJ, .fields = tool_fields};

/* run.mpi_probe: the start-up ping-pongs (gcb_mpi_probe); optional, as
 * documents before it had none. */
static const struct gcb__field probe_pair_fields[] = {
    REQ("ranks", &gcb__n_int_array), /* model.c */
    REQ("same_node", &gcb__n_bool, IN(probe_pair, same_node)),
    REQ("batches", &gcb__n_int, IN(probe_pair, batches)),
    REQ("median_us", &gcb__n_num, IN(probe_pair, median_us)),
    REQ("min_us", &gcb__n_num, IN(probe_pair, min_us)),
    {0},
};
static const struct gcb__field probe_fields[] = {
    REQ("bytes", &gcb__n_int),
    REQ("round_trips", &gcb__n_int),
    REQ("batches", &gcb__n_int),
    REQ("pairs", ARR(OBJ(probe_pair_fields))),
    {0},
};

static const struct gcb__field run_fields[] = {
    REQ("id", &gcb__n_str),
    REQ("command", &gcb__n_str),
    REQ("command_line", &gcb__n_str_array),
    REQ("start_time", &gcb__n_str),
    REQ("end_time", &gcb__n_str_null),
    REQ("status", NODE(.types = T_STR, .choices = run_states)),
    REQ("backend", &gcb__n_str),
    REQ("backend_reason", &gcb__n_str),
    REQ("ranks", &gcb__n_int),
    REQ("nodes", &gcb__n_int),
    OPT("environment", NODE(.types = T_OBJ, .items = &gcb__n_str)),
    OPT("mpi_probe", OBJ(probe_fields)),
    OPT("status_reason", &gcb__n_str),
    {0},
};
const struct gcb__node gcb__n_run = {.types = T_OBJ, .fields = run_fields};

/* ---- writers ------------------------------------------------------------ */

static void utc_now(char *buf, size_t len) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *tool_json(void) {
  return json_pack("{s:s, s:s, s:s}", "name", "gcbench", "version", GCB_VERSION,
                   "git_revision", GCB_GIT_REVISION);
}

/* The command line as given; arguments need not be UTF-8 (a file name), so
 * each bad byte becomes U+FFFD. NULL when out of memory. */
static json_t *argv_json(int argc, char **argv) {
  json_t *a = json_array();
  for (int i = 0; a && i < argc; i++) {
    char *clean = gcb_utf8_copy(argv[i]);
    a = gcb__json_push(a, json_string(clean));
    free(clean);
  }
  return a;
}

/* run.environment: {"NAME": "value"} from "NAME=VALUE" entries; values
 * need not be UTF-8, so bad bytes become U+FFFD as in the command line. */
static json_t *environment_json(const char *const *env) {
  json_t *o = json_object();
  for (size_t i = 0; o != NULL && env[i] != NULL; i++) {
    const char *eq = strchr(env[i], '=');
    char name[128];
    if (eq == NULL || (size_t)(eq - env[i]) >= sizeof name)
      continue;
    memcpy(name, env[i], (size_t)(eq - env[i]));
    name[eq - env[i]] = '\0';
    char *clean = gcb_utf8_copy(eq + 1), *cname = gcb_utf8_copy(name);
    if (clean == NULL || cname == NULL ||
        json_object_set_new(o, cname, json_string(clean)) != 0)
      json_decrefp(&o);
    free(clean);
    free(cname);
  }
  return o;
}

static json_t *probe_json(const struct gcb_mpi_probe *p) {
  json_t *pairs = json_array();
  for (int i = 0; pairs != NULL && i < p->npairs; i++)
    pairs = gcb__json_push(
        pairs, json_pack("{s:[i,i], s:b, s:i, s:f, s:f}", "ranks", 0,
                         p->pair[i].peer, "same_node", p->pair[i].same_node,
                         "batches", p->pair[i].batches, "median_us",
                         p->pair[i].median_us, "min_us", p->pair[i].min_us));
  return json_pack("{s:i, s:i, s:i, s:o}", "bytes", p->bytes, "round_trips",
                   p->round_trips, "batches", p->batches, "pairs", pairs);
}

static json_t *run_json(const struct gcb_run_info *run) {
  char start[32];
  utc_now(start, sizeof start);
  json_t *o = json_pack(
      "{s:s, s:s, s:o, s:s, s:n, s:s, s:s, s:s, s:i, s:i}", "id", run->run_id,
      "command", run->command, "command_line", argv_json(run->argc, run->argv),
      "start_time", start, "end_time", "status", "running", "backend",
      run->backend, "backend_reason", run->backend_reason, "ranks", run->ranks,
      "nodes", run->nodes);
  if (run->environment != NULL)
    o = gcb__json_set(o, "environment", environment_json(run->environment));
  if (run->mpi_probe != NULL && run->mpi_probe->npairs > 0)
    o = gcb__json_set(o, "mpi_probe", probe_json(run->mpi_probe));
  return o;
}

static json_t *blas_json(const struct gcb_blas_info *b) {
  json_t *o =
      json_pack("{s:s, s:s, s:i, s:s}", "library", b->library, "core", b->core,
                "threads", b->threads, "parallel", b->parallel);
  if (b->cpu_isa[0] != '\0')
    o = gcb__json_set(o, "cpu_isa", json_string(b->cpu_isa));
  return o;
}

static json_t *software_json(const struct gcb_run_info *run) {
  json_t *o = json_pack("{s:s, s:s, s:s}", "mpi", run->mpi, "hwloc", run->hwloc,
                        run->backend, run->backend_versions);
  if (run->mpi_device != NULL && run->mpi_device[0] != '\0')
    o = gcb__json_set(o, "mpi_device", json_string(run->mpi_device));
  if (run->blas != NULL)
    o = gcb__json_set(o, "blas_run", blas_json(run->blas));
  return o;
}

/* Every node's snapshot parsed, in node order (unparsable ones left out,
 * as the gathered array always did). */
static json_t *parse_snapshots(const char *const *snapshots, size_t n) {
  json_t *a = json_array();
  for (size_t i = 0; a != NULL && i < n; i++)
    if (snapshots[i] != NULL)
      json_array_append_new(a, json_loads(snapshots[i], 0, NULL));
  return a;
}

enum gcb_status gcb_results_set_header(struct gcb_results *r,
                                       const struct gcb_run_info *run,
                                       const struct gcb_identity *ids,
                                       const char *const *snapshots,
                                       size_t nsnapshots, struct gcb_err *err) {
  json_t *topologies = parse_snapshots(snapshots, nsnapshots);
  struct {
    const char *name;
    json_t *value;
  } sections[] = {
      {"tool", tool_json()},
      {"run", run_json(run)},
      {"software", software_json(run)},
      {"nodes", gcb__nodes_json(ids, run->ranks, run->nodes, topologies)},
      {"ranks", gcb__ranks_json(ids, run->ranks)}};
  json_decref(topologies);
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
    if (st == GCB_OK && sections[i].value == NULL)
      st = gcb_err_set(err, GCB_ENOMEM, "results header: out of memory");
    if (st == GCB_OK)
      st = gcb_results_set(r, sections[i].name, sections[i].value, err);
    else
      json_decref(sections[i].value);
  }
  return st;
}

enum gcb_status gcb_results_finish_run(struct gcb_results *r,
                                       const char *status,
                                       struct gcb_err *err) {
  json_t *run = json_object_get(r->root, "run");
  char end[32];
  utc_now(end, sizeof end);
  if (!json_is_object(run) ||
      json_object_set_new(run, "end_time", json_string(end)) != 0 ||
      json_object_set_new(run, "status", json_string(status)) != 0)
    return gcb_err_set(err, GCB_EINTERNAL,
                       "results document has no run section");
  return GCB_OK;
}
