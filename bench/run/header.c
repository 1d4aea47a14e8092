/*
 * The results header: who ran what, where, with which software. Every rank
 * sends a fixed-size identity record to rank 0, which writes "nodes" (one
 * per node, from its first rank) and "ranks".
 */
#include "bench/run/header.h"

#include "bench/run/health_json.h"
#include "bench/run/topo_json.h"
#include "collectives/comm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What one rank tells rank 0 about itself; plain bytes on the wire. */
struct identity {
  int rank, node, local_rank, pid, bound_pus, cpu_threads;
  char hostname[256];
  char cpu_binding[256];
  struct gcb_device_info device;
  struct gcb_topo_summary machine;
};

static void utc_now(char *buf, size_t len, const char *format) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(buf, len, format, &tm);
}

void gcb__run_id(char *buf, size_t len) {
  char stamp[32];
  utc_now(stamp, sizeof stamp, "%Y%m%d-%H%M%S");
  snprintf(buf, len, "%s-%ld", stamp, (long)getpid());
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
    if (clean == NULL || json_array_append_new(a, json_string(clean)) != 0) {
      json_decref(a);
      a = NULL;
    }
    free(clean);
  }
  return a;
}

static json_t *run_json(const struct gcb_ctx *ctx, const char *command,
                        int argc, char **argv, const char *run_id) {
  char start[32];
  utc_now(start, sizeof start, "%Y-%m-%dT%H:%M:%SZ");
  return json_pack("{s:s, s:s, s:o, s:s, s:n, s:s, s:s, s:s, s:i, s:i}", "id",
                   run_id, "command", command, "command_line",
                   argv_json(argc, argv), "start_time", start, "end_time",
                   "status", "running", "backend", ctx->backend_ops->name,
                   "backend_reason", ctx->backend_reason, "ranks", ctx->size,
                   "nodes", ctx->node_count);
}

/* The NCCL transport's library version ("NCCL 2.28.9"), "" without one:
 * the collectives module owns that fact, not the backend. */
static void nccl_version(char *buf, size_t len) {
  const struct gcb_coll_ops *t = gcb_coll_transport_find("nccl");
  buf[0] = '\0';
  if (t != NULL && t->version != NULL)
    t->version(buf, len);
}

static json_t *software_json(const struct gcb_ctx *ctx) {
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  MPI_Get_library_version(mpi, &len);
  mpi[strcspn(mpi, "\n")] = '\0'; /* MPICH prints a whole page */
  char hwloc[32], backend[512] = "";
  gcb_topo_hwloc_version(hwloc, sizeof hwloc);
  if (ctx->backend_ops->versions)
    ctx->backend_ops->versions(ctx->backend, backend, sizeof backend);
  char nccl[64];
  nccl_version(nccl, sizeof nccl);
  if (ctx->backend_ops->health != NULL && nccl[0] != '\0') {
    size_t at = strlen(backend);
    snprintf(backend + at, sizeof backend - at, "; %s", nccl);
  }
  return json_pack("{s:s, s:s, s:s}", "mpi", mpi, "hwloc", hwloc,
                   ctx->backend_ops->name, backend);
}

static json_t *device_json(const struct gcb_device_info *d) {
  return json_pack("{s:s, s:s, s:i, s:I, s:i}", "name", d->name, "bus_id",
                   d->bus_id, "index", d->index, "memory_bytes",
                   (json_int_t)d->memory_bytes, "threads", d->threads);
}

static json_t *rank_json(const struct identity *id) {
  return json_pack("{s:i, s:i, s:s, s:i, s:i, s:s, s:i, s:i, s:o}", "rank",
                   id->rank, "node", id->node, "hostname", id->hostname,
                   "local_rank", id->local_rank, "pid", id->pid, "cpu_binding",
                   id->cpu_binding, "bound_pus", id->bound_pus, "cpu_threads",
                   id->cpu_threads, "device", device_json(&id->device));
}

static json_t *node_json(const struct identity *ids, int n, int node) {
  const struct identity *first = NULL;
  json_t *ranks = json_array();
  for (int r = 0; r < n; r++)
    if (ids[r].node == node) {
      first = first ? first : &ids[r];
      json_array_append_new(ranks, json_integer(r));
    }
  const struct gcb_topo_summary *m = &first->machine;
  return json_pack("{s:i, s:s, s:o, s:i, s:i, s:i, s:i, s:I, s:I, s:s}",
                   "index", node, "hostname", first->hostname, "ranks", ranks,
                   "cores", m->cores, "pus", m->pus, "packages", m->packages,
                   "numa_nodes", m->numa_nodes, "llc_bytes",
                   (json_int_t)m->llc_bytes, "memory_bytes",
                   (json_int_t)m->memory_bytes, "cpu_model", m->cpu_model);
}

static enum gcb_status set_all(struct gcb_ctx *ctx, struct gcb_results *results,
                               const struct identity *ids, json_t *run,
                               json_t *topologies) {
  json_t *nodes = json_array(), *ranks = json_array();
  for (int i = 0; nodes && i < ctx->node_count; i++) {
    json_t *node = node_json(ids, ctx->size, i);
    json_t *topo = json_array_get(topologies, (size_t)i);
    json_t *health = json_object_get(topo, "gpu_health");
    if (node && json_is_array(health)) {
      json_object_set(node, "gpus", health);
      json_object_del(topo, "gpu_health");
    }
    if (node && json_is_object(topo))
      json_object_set(node, "topology", topo);
    json_array_append_new(nodes, node);
  }
  for (int r = 0; ranks && r < ctx->size; r++)
    json_array_append_new(ranks, rank_json(&ids[r]));
  struct {
    const char *name;
    json_t *value;
  } sections[] = {{"tool", tool_json()},
                  {"run", run},
                  {"software", software_json(ctx)},
                  {"nodes", nodes},
                  {"ranks", ranks}};
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
    if (st == GCB_OK && sections[i].value == NULL)
      st = gcb_err_set(&ctx->err, GCB_ENOMEM, "results header: out of memory");
    if (st == GCB_OK)
      st = gcb_results_set(results, sections[i].name, sections[i].value,
                           &ctx->err);
    else
      json_decref(sections[i].value);
  }
  return st;
}

/* The health of every GPU the node's first rank sees, or NULL when the
 * backend has no GPUs to report (host) or cannot read them. */
static json_t *node_health(struct gcb_ctx *ctx) {
  enum { MAX_GPUS = 64 };
  if (ctx->backend_ops == NULL || ctx->backend_ops->health == NULL)
    return NULL;
  struct gcb_health *gpus = calloc(MAX_GPUS, sizeof *gpus);
  int n = 0;
  struct gcb_err err = {0};
  json_t *out = NULL;
  char nccl[64];
  nccl_version(nccl, sizeof nccl);
  const char *number = strncmp(nccl, "NCCL ", 5) == 0 ? nccl + 5 : nccl;
  if (gpus && ctx->backend_ops->health(ctx->backend, gpus, MAX_GPUS, &n,
                                       &err) == GCB_OK) {
    for (int i = 0; i < n; i++)
      snprintf(gpus[i].nccl, sizeof gpus[i].nccl, "%s", number);
    out = gcb__health_json(gpus, n);
  }
  free(gpus);
  return out;
}

/* This node's topology summary and placement problems, as JSON text, on
 * the node's first rank (NULL elsewhere). Collective over the node. */
static enum gcb_status node_topology(struct gcb_ctx *ctx, char **text) {
  *text = NULL;
  struct {
    char cpus[256];
    int gpu, rank;
  } mine = {.gpu = ctx->device.index, .rank = ctx->rank}, *all = NULL;
  snprintf(mine.cpus, sizeof mine.cpus, "%s", ctx->cpu_binding);
  if (ctx->local_rank == 0 &&
      (all = calloc((size_t)ctx->local_size, sizeof *all)) == NULL)
    return gcb_err_set(&ctx->err, GCB_ENOMEM, "topology: out of memory");
  if (MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine,
                 MPI_BYTE, 0, ctx->node) != MPI_SUCCESS) {
    free(all);
    return gcb_err_set(&ctx->err, GCB_EMPI,
                       "MPI_Gather of node bindings failed");
  }
  enum gcb_status st = GCB_OK;
  if (ctx->local_rank == 0) {
    struct gcb_topo_rank *ranks =
        calloc((size_t)ctx->local_size, sizeof *ranks);
    for (int i = 0; ranks && i < ctx->local_size; i++)
      ranks[i] = (struct gcb_topo_rank){all[i].rank, all[i].cpus, all[i].gpu};
    struct gcb_topo_problem *problems = NULL;
    int n = 0;
    json_t *topo = gcb__topo_json(ctx->topo);
    json_t *health = node_health(ctx);
    if (topo && health)
      json_object_set_new(topo, "gpu_health", health);
    else
      json_decref(health);
    if (ranks && topo &&
        (st = gcb_topo_check_ranks(ctx->topo, ranks, ctx->local_size, &problems,
                                   &n, &ctx->err)) == GCB_OK)
      json_object_set_new(topo, "placement",
                          gcb__topo_problems_json(problems, n));
    *text = topo ? json_dumps(topo, JSON_COMPACT) : NULL;
    json_decref(topo);
    free(problems);
    free(ranks);
  }
  free(all);
  return st;
}

/* Every node's topology text, gathered from node leaders to rank 0 as a
 * JSON array indexed by node (NULL elsewhere). Collective. */
static enum gcb_status gather_topologies(struct gcb_ctx *ctx, json_t **out) {
  *out = NULL;
  char *text = NULL;
  enum gcb_status st = node_topology(ctx, &text);
  int len = text ? (int)strlen(text) + 1 : 0, *lens = NULL, *displs = NULL;
  char *all = NULL;
  if (ctx->rank == 0) {
    lens = calloc((size_t)ctx->size, sizeof *lens);
    displs = calloc((size_t)ctx->size, sizeof *displs);
  }
  int rc = MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, ctx->world);
  int total = 0;
  for (int r = 0; rc == MPI_SUCCESS && lens && displs && r < ctx->size; r++) {
    displs[r] = total;
    total += lens[r];
  }
  if (ctx->rank == 0)
    all = calloc((size_t)total + 1, 1);
  if (rc == MPI_SUCCESS)
    rc = MPI_Gatherv(text, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0,
                     ctx->world);
  if (rc != MPI_SUCCESS && st == GCB_OK)
    st = gcb_err_set(&ctx->err, GCB_EMPI, "MPI_Gatherv of topologies failed");
  if (ctx->rank == 0 && all && (*out = json_array()) != NULL)
    for (int r = 0; r < ctx->size; r++)
      if (lens[r] > 0)
        json_array_append_new(*out, json_loads(all + displs[r], 0, NULL));
  free(text);
  free(lens);
  free(displs);
  free(all);
  return st;
}

/* "host, device" for the live table's mentions of a rank. */
static char (*rank_names(const struct identity *ids, int n))[96] {
  char(*names)[96] = calloc((size_t)n, sizeof *names);
  for (int r = 0; names && r < n; r++) {
    const struct gcb_device_info *d = &ids[r].device;
    if (d->index >= 0)
      snprintf(names[r], sizeof names[r], "%s, GPU %d %s", ids[r].hostname,
               d->index, d->bus_id);
    else
      snprintf(names[r], sizeof names[r], "%s, CPUs %s", ids[r].hostname,
               ids[r].cpu_binding);
  }
  return names;
}

enum gcb_status gcb__header_build(struct gcb_ctx *ctx,
                                  struct gcb_results *results,
                                  const char *command, int argc, char **argv,
                                  const char *run_id, char (**names)[96]) {
  *names = NULL;
  struct identity me = {.rank = ctx->rank,
                        .node = ctx->node_index,
                        .local_rank = ctx->local_rank,
                        .pid = (int)ctx->pid,
                        .bound_pus = ctx->bound_pus,
                        .cpu_threads = ctx->cpu_threads,
                        .device = ctx->device,
                        .machine = ctx->node_machine};
  snprintf(me.hostname, sizeof me.hostname, "%s", ctx->hostname);
  snprintf(me.cpu_binding, sizeof me.cpu_binding, "%s", ctx->cpu_binding);
  struct identity *ids = NULL;
  if (ctx->rank == 0 && (ids = calloc((size_t)ctx->size, sizeof *ids)) == NULL)
    return gcb_context_agree(ctx, gcb_err_set(&ctx->err, GCB_ENOMEM,
                                              "results header: out of memory"));
  int rc = MPI_Gather(&me, (int)sizeof me, MPI_BYTE, ids, (int)sizeof me,
                      MPI_BYTE, 0, ctx->world);
  enum gcb_status st =
      rc == MPI_SUCCESS ? GCB_OK
                        : gcb_err_set(&ctx->err, GCB_EMPI,
                                      "MPI_Gather of rank identities failed");
  json_t *topologies = NULL;
  if (st == GCB_OK)
    st = gather_topologies(ctx, &topologies);
  if (st == GCB_OK && ctx->rank == 0) {
    st = set_all(ctx, results, ids, run_json(ctx, command, argc, argv, run_id),
                 topologies);
    *names = rank_names(ids, ctx->size);
  }
  json_decref(topologies);
  free(ids);
  return gcb_context_agree(ctx, st);
}

enum gcb_status gcb__header_finish(struct gcb_results *results,
                                   const char *status, struct gcb_err *err) {
  json_t *run = json_object_get(gcb_results_json(results), "run");
  char end[32];
  utc_now(end, sizeof end, "%Y-%m-%dT%H:%M:%SZ");
  if (!json_is_object(run) ||
      json_object_set_new(run, "end_time", json_string(end)) != 0 ||
      json_object_set_new(run, "status", json_string(status)) != 0)
    return gcb_err_set(err, GCB_EINTERNAL,
                       "results document has no run section");
  return GCB_OK;
}

/* mkdir -p of every directory above path's last component. */
static enum gcb_status make_parents(const char *path, struct gcb_err *err) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
      return gcb_err_set(err, GCB_EIO, "cannot create directory %s: %s", dir,
                         strerror(errno));
    *p = '/';
  }
  return GCB_OK;
}

enum gcb_status gcb__output_path(const char *requested, const char *run_id,
                                 bool force, char *out, size_t len,
                                 struct gcb_err *err) {
  if (requested && *requested == '\0')
    return gcb_err_set(err, GCB_EUSAGE, "--output: empty path");
  if (requested)
    snprintf(out, len, "%s", requested);
  else
    snprintf(out, len, "results/gcbench-%s.json", run_id);
  struct stat sb;
  if (stat(out, &sb) == 0) {
    if (S_ISDIR(sb.st_mode))
      return gcb_err_set(err, GCB_EUSAGE, "--output %s is a directory", out);
    if (!force)
      return gcb_err_set(err, GCB_EUSAGE,
                         "results file %s exists (use --force to overwrite)",
                         out);
  }
  return make_parents(out, err);
}
