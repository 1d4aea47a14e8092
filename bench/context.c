/*
 * The run context: MPI world and node communicators, who and where this
 * rank is, its CPU binding, and the opened backend.
 */
#include "context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *gcb_errmsg(const struct gcb_ctx *ctx) { return ctx->err.msg; }

static enum gcb_status mpi_failed(struct gcb_ctx *ctx, const char *call, int rc) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return gcb_err_set(&ctx->err, GCB_EMPI, "%s: %s", call, text);
}

#define MPI_TRY(ctx, call)                                                     \
  do {                                                                         \
    int rc_ = (call);                                                          \
    if (rc_ != MPI_SUCCESS)                                                    \
      return mpi_failed((ctx), #call, rc_);                                    \
  } while (0)

/* Nodes are numbered by their lowest world rank: the node's first rank
 * learns its index among node leaders and tells the others. */
static enum gcb_status number_nodes(struct gcb_ctx *ctx) {
  int leader = ctx->local_rank == 0;
  int index = 0;
  MPI_TRY(ctx, MPI_Exscan(&leader, &index, 1, MPI_INT, MPI_SUM, ctx->world));
  if (ctx->rank == 0)
    index = 0;  /* MPI_Exscan leaves rank 0's buffer undefined */
  MPI_TRY(ctx, MPI_Bcast(&index, 1, MPI_INT, 0, ctx->node));
  ctx->node_index = index;
  MPI_TRY(ctx, MPI_Allreduce(&leader, &ctx->node_count, 1, MPI_INT, MPI_SUM,
                             ctx->world));
  return GCB_OK;
}

static enum gcb_status init_mpi(struct gcb_ctx *ctx) {
  /* Errors come back as codes, checked at every call, never abort. */
  MPI_TRY(ctx, MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_TRY(ctx, MPI_Comm_dup(MPI_COMM_WORLD, &ctx->world));
  MPI_TRY(ctx, MPI_Comm_rank(ctx->world, &ctx->rank));
  MPI_TRY(ctx, MPI_Comm_size(ctx->world, &ctx->size));
  MPI_TRY(ctx, MPI_Comm_split_type(ctx->world, MPI_COMM_TYPE_SHARED, 0,
                                   MPI_INFO_NULL, &ctx->node));
  MPI_TRY(ctx, MPI_Comm_rank(ctx->node, &ctx->local_rank));
  MPI_TRY(ctx, MPI_Comm_size(ctx->node, &ctx->local_size));
  return number_nodes(ctx);
}

/* Threads a rank computes with: its bound PUs, or, when unbound, an equal
 * share of the node's cores so that co-located ranks do not oversubscribe. */
static int compute_threads(const struct gcb_ctx *ctx, int whole) {
  if (!whole)
    return ctx->bound_pus > 0 ? ctx->bound_pus : 1;
  int cores = ctx->machine.cores > 0 ? ctx->machine.cores : 1;
  int share = cores / (ctx->local_size > 0 ? ctx->local_size : 1);
  return share > 0 ? share : 1;
}

static enum gcb_status init_binding(struct gcb_ctx *ctx) {
  enum gcb_status st = gcb_topo_load(NULL, &ctx->topo, &ctx->err);
  if (st != GCB_OK)
    return st;
  gcb_topo_summarize(ctx->topo, &ctx->machine);
  st = gcb_topo_own_binding(ctx->topo, ctx->cpu_binding,
                            sizeof ctx->cpu_binding, &ctx->bound_pus, &ctx->err);
  if (st != GCB_OK)
    return st;
  int whole = 0;
  st = gcb_topo_binding_is_whole(ctx->topo, ctx->cpu_binding, &whole, &ctx->err);
  if (st != GCB_OK)
    return st;
  ctx->cpu_threads = compute_threads(ctx, whole);
  return GCB_OK;
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
  enum gcb_status st = init_mpi(ctx);
  if (st == GCB_OK)
    st = init_binding(ctx);
  /* Binding and topology are local; make sure everyone got this far. */
  return ctx->world != MPI_COMM_NULL ? gcb_context_agree(ctx, st) : st;
}

enum gcb_status gcb_context_agree(struct gcb_ctx *ctx, enum gcb_status mine) {
  int failed_rank = mine != GCB_OK ? ctx->rank : ctx->size;
  int first = ctx->size;
  if (MPI_Allreduce(&failed_rank, &first, 1, MPI_INT, MPI_MIN, ctx->world) !=
      MPI_SUCCESS)
    return gcb_err_set(&ctx->err, GCB_EMPI, "MPI_Allreduce failed while "
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
    return gcb_err_set(&ctx->err, GCB_EMPI, "MPI_Bcast failed while "
                                            "agreeing on a status");
  return gcb_err_set(&ctx->err, (enum gcb_status)detail.code, "%s", detail.msg);
}

enum gcb_status gcb_context_open_backend(struct gcb_ctx *ctx, const char *name) {
  enum gcb_status st = gcb_backend_select(name, &ctx->backend_ops,
                                          ctx->backend_reason,
                                          sizeof ctx->backend_reason, &ctx->err);
  if (st == GCB_OK) {
    struct gcb_backend_args args = {.local_rank = ctx->local_rank,
                                    .local_size = ctx->local_size,
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
