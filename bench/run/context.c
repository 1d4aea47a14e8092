/*
 * The run context: MPI world and node communicators, who and where this
 * rank is, its CPU binding, and the opened backend.
 */
#include "bench/run/context.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/mpi_err.h"

const char *gcb_errmsg(const struct gcb_ctx *ctx) {
  return ctx->err.msg;
}

#define MPI_TRY(ctx, call)                                                     \
  do {                                                                         \
    int rc_ = (call);                                                          \
    if (rc_ != MPI_SUCCESS)                                                    \
      return gcb_mpi_err(&(ctx)->err, rc_, #call);                             \
  } while (0)

/* Nodes are numbered by their lowest world rank: the node's first rank
 * learns its index among node leaders and tells the others. */
static enum gcb_status number_nodes(struct gcb_ctx *ctx) {
  int leader = ctx->local_rank == 0;
  int index = 0;
  MPI_TRY(ctx, MPI_Exscan(&leader, &index, 1, MPI_INT, MPI_SUM, ctx->world));
  if (ctx->rank == 0)
    index = 0; /* MPI_Exscan leaves rank 0's buffer undefined */
  MPI_TRY(ctx, MPI_Bcast(&index, 1, MPI_INT, 0, ctx->node));
  ctx->node_index = index;
  MPI_TRY(ctx, MPI_Allreduce(&leader, &ctx->node_count, 1, MPI_INT, MPI_SUM,
                             ctx->world));
  return GCB_OK;
}

/* --- the test override: several nodes on one machine ---------------------*/

#define MAX_GROUPS 1024

/* The override as read from the environment: how many groups each
 * machine's ranks split into, and this rank's group's name and XML. */
struct groups {
  int count;       /* 0: no override */
  const char *map; /* GCB_NODE_MAP, or NULL */
};

/* Entry `index` of GCB_NODE_MAP ("name[:xml],...") into name and xml ("" if
 * the entry has none); false when there is no such entry. */
static bool map_entry(const char *map, int index, char *name, size_t name_len,
                      char *xml, size_t xml_len) {
  const char *p = map;
  for (int i = 0; i < index && p; i++)
    p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
  if (p == NULL)
    return false;
  size_t len = strcspn(p, ",");
  size_t cut = strcspn(p, ":,");
  snprintf(name, name_len, "%.*s", (int)cut, p);
  snprintf(xml, xml_len, "%.*s", cut < len ? (int)(len - cut - 1) : 0,
           p + cut + 1);
  return true;
}

/* A node name as hostnames are written (letters, digits, '.', '-', '_'):
 * it reaches the live table, the watchdog's lines and every report, so a
 * newline or a terminal escape in it is refused where it is taken. */
static bool good_node_name(const char *name) {
  for (const char *p = name; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_'))
      return false;
  return true;
}

/* Checks GCB_NODE_MAP's entries: non-empty, distinct names that fit. One
 * pass over the text (the XML paths may be long, and a scan from the
 * start for each entry made a 1,024-entry map take seconds). */
static enum gcb_status check_map(const char *map, int *count,
                                 struct gcb_err *err) {
  char(*names)[64] = malloc(MAX_GROUPS * sizeof *names);
  if (names == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "GCB_NODE_MAP: out of memory");
  enum gcb_status st = GCB_OK;
  int n = 0;
  for (const char *p = map; p != NULL && st == GCB_OK; n++) {
    size_t cut = strcspn(p, ":,"), len = strcspn(p, ",");
    snprintf(names[n % MAX_GROUPS], sizeof *names, "%.*s",
             cut < 63 ? (int)cut : 63, p);
    const char *name = names[n % MAX_GROUPS];
    if (cut == 0 || n >= MAX_GROUPS)
      st = gcb_err_set(err, GCB_EUSAGE,
                       "GCB_NODE_MAP '%s': entry %d: expected NAME[:XML]", map,
                       n + 1);
    else if (!good_node_name(name) || cut > 63)
      st = gcb_err_set(err, GCB_EUSAGE,
                       "GCB_NODE_MAP: entry %d: node name '%s' must be up "
                       "to 63 letters, digits, '.', '-' or '_'",
                       n + 1, name);
    else if (len > cut && len - cut - 1 >= GCB__NODE_XML_MAX)
      st = gcb_err_set(err, GCB_EUSAGE,
                       "GCB_NODE_MAP: entry %d ('%s'): the XML path is longer "
                       "than %d bytes",
                       n + 1, name, GCB__NODE_XML_MAX - 1);
    for (int j = 0; j < n && st == GCB_OK; j++)
      if (strcmp(name, names[j]) == 0)
        st = gcb_err_set(err, GCB_EUSAGE,
                         "GCB_NODE_MAP: node name '%s' given twice", name);
    p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
  }
  free(names);
  if (st == GCB_OK)
    *count = n;
  return st;
}

enum gcb_status gcb__node_override_parse(const char *fake, const char *map,
                                         int *count, struct gcb_err *err) {
  *count = 0;
  if (fake && *fake) {
    char *end;
    errno = 0;
    long n = strtol(fake, &end, 10);
    if (errno || *end != '\0' || n < 1 || n > MAX_GROUPS)
      return gcb_err_set(err, GCB_EUSAGE,
                         "GCB_FAKE_NODES '%s': expected a number of nodes "
                         "from 1 to %d",
                         fake, MAX_GROUPS);
    *count = (int)n;
  }
  if (map && *map) {
    int n = 0;
    enum gcb_status st = check_map(map, &n, err);
    if (st != GCB_OK)
      return st;
    if (*count && *count != n)
      return gcb_err_set(err, GCB_EUSAGE,
                         "GCB_FAKE_NODES=%d but GCB_NODE_MAP names %d nodes",
                         *count, n);
    *count = n;
  }
  return GCB_OK;
}

bool gcb__node_map_entry(const char *map, int index, char *name,
                         size_t name_len, char *xml, size_t xml_len) {
  return map_entry(map, index, name, name_len, xml, xml_len);
}

/* Reads GCB_FAKE_NODES and GCB_NODE_MAP; both given must agree. */
static enum gcb_status read_groups(struct groups *g, struct gcb_err *err) {
  *g = (struct groups){0};
  const char *map = getenv("GCB_NODE_MAP");
  enum gcb_status st =
      gcb__node_override_parse(getenv("GCB_FAKE_NODES"), map, &g->count, err);
  if (st == GCB_OK && map && *map)
    g->map = map;
  return st;
}

/* Group of this rank on its machine: contiguous, as even as can be. */
static int group_of(const struct gcb_ctx *ctx, int count) {
  return (int)((long)ctx->host_rank * count / ctx->host_size);
}

/* The group's node name (GCB_NODE_MAP's, or "<host>-<group>" when there
 * are several). */
static void name_group(struct gcb_ctx *ctx, const struct groups *g, int group,
                       char *xml, size_t xml_len) {
  char name[256];
  xml[0] = '\0';
  if (g->map && map_entry(g->map, group, name, sizeof name, xml, xml_len)) {
    snprintf(ctx->hostname, sizeof ctx->hostname, "%s", name);
    return;
  }
  if (g->count > 1) {
    char host[sizeof ctx->hostname];
    snprintf(host, sizeof host, "%s", ctx->hostname);
    snprintf(ctx->hostname, sizeof ctx->hostname, "%.240s-%d", host, group);
  }
}

/*
 * Node communicator: each machine's ranks (MPI_COMM_TYPE_SHARED), split
 * further into groups under the override. Collective; fails on every rank
 * if the override is bad on one. xml receives the group's XML path.
 */
static enum gcb_status split_nodes(struct gcb_ctx *ctx, char *xml,
                                   size_t xml_len) {
  MPI_Comm host = MPI_COMM_NULL;
  xml[0] = '\0';
  MPI_TRY(ctx, MPI_Comm_split_type(ctx->world, MPI_COMM_TYPE_SHARED, 0,
                                   MPI_INFO_NULL, &host));
  struct groups g = {0};
  enum gcb_status st = GCB_OK;
  int rc = MPI_Comm_rank(host, &ctx->host_rank);
  if (rc == MPI_SUCCESS)
    rc = MPI_Comm_size(host, &ctx->host_size);
  if (rc != MPI_SUCCESS)
    st = gcb_mpi_err(&ctx->err, rc,
                     "MPI_Comm_rank/size of the host communicator");
  if (st == GCB_OK)
    st = read_groups(&g, &ctx->err);
  if (st == GCB_OK && g.count > ctx->host_size)
    st = gcb_err_set(&ctx->err, GCB_EUSAGE,
                     "%d fake nodes asked for (GCB_FAKE_NODES/GCB_NODE_MAP) "
                     "but only %d rank(s) run on this machine",
                     g.count, ctx->host_size);
  st = gcb_context_agree(ctx, st);
  if (st != GCB_OK || g.count == 0) {
    ctx->node = host; /* freed with the context, even on failure */
    return st;
  }
  int group = group_of(ctx, g.count);
  name_group(ctx, &g, group, xml, xml_len);
  rc = MPI_Comm_split(host, group, ctx->host_rank, &ctx->node);
  int freed = MPI_Comm_free(&host);
  if (rc != MPI_SUCCESS)
    return gcb_mpi_err(&ctx->err, rc, "MPI_Comm_split");
  return freed == MPI_SUCCESS ? GCB_OK
                              : gcb_mpi_err(&ctx->err, freed, "MPI_Comm_free");
}

static enum gcb_status init_mpi(struct gcb_ctx *ctx, char *xml,
                                size_t xml_len) {
  /* Errors come back as codes, checked at every call, never abort. */
  MPI_TRY(ctx, MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_TRY(ctx, MPI_Comm_dup(MPI_COMM_WORLD, &ctx->world));
  MPI_TRY(ctx, MPI_Comm_rank(ctx->world, &ctx->rank));
  MPI_TRY(ctx, MPI_Comm_size(ctx->world, &ctx->size));
  enum gcb_status st = split_nodes(ctx, xml, xml_len);
  if (st != GCB_OK)
    return st;
  MPI_TRY(ctx, MPI_Comm_rank(ctx->node, &ctx->local_rank));
  MPI_TRY(ctx, MPI_Comm_size(ctx->node, &ctx->local_size));
  return number_nodes(ctx);
}

/* --- topology and binding -------------------------------------------------*/

/* Threads a rank computes with: its bound PUs, or, when unbound, an equal
 * share of the machine's cores so that co-located ranks do not
 * oversubscribe (every rank on the machine counts, fake nodes or not). */
static int compute_threads(const struct gcb_ctx *ctx, int whole) {
  if (!whole)
    return ctx->bound_pus > 0 ? ctx->bound_pus : 1;
  int cores = ctx->machine.cores > 0 ? ctx->machine.cores : 1;
  int share = cores / (ctx->host_size > 0 ? ctx->host_size : 1);
  return share > 0 ? share : 1;
}

/* The binding is each rank's own and can only be read on the live machine;
 * the loaded topology is kept when it is also the node's. */
static enum gcb_status init_binding(struct gcb_ctx *ctx,
                                    struct gcb_topo **live) {
  enum gcb_status st = gcb_topo_load(NULL, live, &ctx->err);
  if (st != GCB_OK)
    return st;
  gcb_topo_summarize(*live, &ctx->machine);
  st = gcb_topo_own_binding(*live, ctx->cpu_binding, sizeof ctx->cpu_binding,
                            &ctx->bound_pus, &ctx->err);
  if (st != GCB_OK)
    return st;
  int whole = 0;
  st = gcb_topo_binding_is_whole(*live, ctx->cpu_binding, &whole, &ctx->err);
  if (st != GCB_OK)
    return st;
  ctx->cpu_threads = compute_threads(ctx, whole);
  return GCB_OK;
}

/*
 * The node's topology, once per node, on its first rank: the group's XML
 * under GCB_NODE_MAP, else the live one already loaded; its summary goes
 * to every rank of the node. Collective over the node, whatever `st`.
 */
static enum gcb_status init_node_topology(struct gcb_ctx *ctx,
                                          struct gcb_topo *live,
                                          const char *xml, enum gcb_status st) {
  if (st == GCB_OK && ctx->local_rank == 0) {
    if (xml[0]) {
      st = gcb_topo_load(xml, &ctx->topo, &ctx->err);
    } else {
      ctx->topo = live;
      live = NULL;
    }
  }
  gcb_topo_free(live);
  if (ctx->topo)
    gcb_topo_summarize(ctx->topo, &ctx->node_machine);
  MPI_TRY(ctx, MPI_Bcast(&ctx->node_machine, (int)sizeof ctx->node_machine,
                         MPI_BYTE, 0, ctx->node));
  return st;
}

enum gcb_status gcb_context_init(struct gcb_ctx *ctx) {
  memset(ctx, 0, sizeof *ctx);
  ctx->world = MPI_COMM_NULL;
  ctx->node = MPI_COMM_NULL;
  ctx->pid = getpid();
  if (gethostname(ctx->hostname, sizeof ctx->hostname) != 0)
    snprintf(ctx->hostname, sizeof ctx->hostname, "unknown");
  ctx->hostname[sizeof ctx->hostname - 1] = '\0';
  ctx->stdout_tty = isatty(STDOUT_FILENO);
  char xml[GCB__NODE_XML_MAX];
  enum gcb_status st = init_mpi(ctx, xml, sizeof xml);
  if (st != GCB_OK || ctx->node == MPI_COMM_NULL)
    return st;
  struct gcb_topo *live = NULL;
  st = init_binding(ctx, &live);
  st = init_node_topology(ctx, live, xml, st);
  /* Binding and topology are local; make sure everyone got this far. */
  return gcb_context_agree(ctx, st);
}

enum gcb_status gcb_context_agree(struct gcb_ctx *ctx, enum gcb_status mine) {
  int failed_rank = mine != GCB_OK ? ctx->rank : ctx->size;
  int first = ctx->size;
  if (MPI_Allreduce(&failed_rank, &first, 1, MPI_INT, MPI_MIN, ctx->world) !=
      MPI_SUCCESS)
    return gcb_err_set(&ctx->err, GCB_EMPI,
                       "MPI_Allreduce failed while "
                       "agreeing on a status");
  if (first == ctx->size)
    return GCB_OK;
  struct {
    int code;
    char msg[GCB_ERRMSG_MAX];
  } detail = {mine, ""};
  if (ctx->rank == first)
    snprintf(detail.msg, sizeof detail.msg, "rank %d (%s): %s", ctx->rank,
             ctx->hostname, ctx->err.msg);
  if (MPI_Bcast(&detail, (int)sizeof detail, MPI_BYTE, first, ctx->world) !=
      MPI_SUCCESS)
    return gcb_err_set(&ctx->err, GCB_EMPI,
                       "MPI_Bcast failed while "
                       "agreeing on a status");
  return gcb_err_set(&ctx->err, (enum gcb_status)detail.code, "%s", detail.msg);
}

enum gcb_status gcb_context_open_backend(struct gcb_ctx *ctx,
                                         const char *name) {
  enum gcb_status st =
      gcb_backend_select(name, &ctx->backend_ops, ctx->backend_reason,
                         sizeof ctx->backend_reason, &ctx->err);
  /* A backend asked for by name that cannot run here is the user's to
   * change (another backend, another machine): a usage error. */
  if (st == GCB_EUNSUPPORTED && name != NULL && strcmp(name, "auto") != 0) {
    const struct gcb_backend_ops *b = gcb_backend_find(name);
    char why[160] = "";
    if (b != NULL)
      (void)b->usable(why, sizeof why);
    st = gcb_err_set(&ctx->err, GCB_EUSAGE, "--backend %s: %s", name,
                     why[0] ? why : ctx->err.msg);
  }
  if (st == GCB_OK) {
    /* Devices and memory are per machine, fake nodes or not. */
    struct gcb_backend_args args = {.local_rank = ctx->host_rank,
                                    .local_size = ctx->host_size,
                                    .cpu_threads = ctx->cpu_threads};
    st = ctx->backend_ops->open(&args, &ctx->backend, &ctx->err);
  }
  if (st == GCB_OK)
    st = ctx->backend_ops->device_info(ctx->backend, &ctx->device, &ctx->err);
  return gcb_context_agree(ctx, st);
}

void gcb_context_free(struct gcb_ctx *ctx) {
  if (ctx->backend && ctx->backend_ops)
    ctx->backend_ops->close(ctx->backend);
  ctx->backend = NULL;
  gcb_topo_free(ctx->topo);
  ctx->topo = NULL;
  if (ctx->node != MPI_COMM_NULL)
    MPI_Comm_free(&ctx->node);
  if (ctx->world != MPI_COMM_NULL)
    MPI_Comm_free(&ctx->world);
}
