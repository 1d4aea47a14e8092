/*
 * The results header, as far as the run engine goes: the MPI gathering of
 * what the document's header needs. Every rank sends a fixed-size identity
 * record to rank 0, every node leader its topology snapshot; rank 0 hands
 * them to the document (gcb_results_set_header, reports/document/), which
 * writes the sections, with the launcher's and libraries' environment that
 * explains a figure (Slurm job, NCCL_*, UCX_*, MPI tunables,
 * CUDA_VISIBLE_DEVICES). Also the run id and the output path.
 */
#include "bench/run/header.h"

#include "collectives/comm.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

void gcb__run_id(char *buf, size_t len) {
  char stamp[32];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  snprintf(buf, len, "%s-%ld", stamp, (long)getpid());
}

/* The NCCL transport's library version ("NCCL 2.28.9"), "" without one:
 * the collectives module owns that fact, not the backend. */
static void nccl_version(char *buf, size_t len) {
  const struct gcb_coll_ops *t = gcb_coll_transport_find("nccl");
  buf[0] = '\0';
  if (t != NULL && t->version != NULL)
    t->version(buf, len);
}

/* The health of every GPU the node's first rank sees (calloc'd, *n of
 * them), or NULL when the backend has no GPUs to report (host) or cannot
 * read them. */
static struct gcb_health *node_health(struct gcb_ctx *ctx, int *n) {
  enum { MAX_GPUS = 64 };
  *n = 0;
  if (ctx->backend_ops == NULL || ctx->backend_ops->health == NULL)
    return NULL;
  struct gcb_health *gpus = calloc(MAX_GPUS, sizeof *gpus);
  struct gcb_err err = {0};
  if (gpus && ctx->backend_ops->health(ctx->backend, gpus, MAX_GPUS, n, &err) ==
                  GCB_OK) {
    char nccl[64];
    nccl_version(nccl, sizeof nccl);
    const char *number = strncmp(nccl, "NCCL ", 5) == 0 ? nccl + 5 : nccl;
    for (int i = 0; i < *n; i++)
      snprintf(gpus[i].nccl, sizeof gpus[i].nccl, "%s", number);
    return gpus;
  }
  free(gpus);
  return NULL;
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
    int n = -1, ngpus = 0;
    struct gcb_health *gpus = node_health(ctx, &ngpus);
    if (ranks &&
        (st = gcb_topo_check_ranks(ctx->topo, ranks, ctx->local_size, &problems,
                                   &n, &ctx->err)) != GCB_OK)
      n = -1;
    *text = gcb_results_node_snapshot(ctx->topo, gpus, ngpus, problems, n);
    free(gpus);
    free(problems);
    free(ranks);
  }
  free(all);
  return st;
}

/* Every node's snapshot text, gathered from node leaders to rank 0, in
 * rank order (that is, node order); empty elsewhere. Collective. */
struct snapshots {
  char *all;         /* the texts, one after the other */
  const char **text; /* into all */
  size_t n;
};

/* Points s->text at the texts of the ranks that sent one. */
static void index_snapshots(struct snapshots *s, const int *lens,
                            const int *displs, int size) {
  s->text = calloc((size_t)size + 1, sizeof *s->text);
  for (int r = 0; s->text && r < size; r++)
    if (lens[r] > 0)
      s->text[s->n++] = s->all + displs[r];
}

static enum gcb_status gather_topologies(struct gcb_ctx *ctx,
                                         struct snapshots *out) {
  char *text = NULL;
  enum gcb_status st = node_topology(ctx, &text);
  int len = text ? (int)strlen(text) + 1 : 0, *lens = NULL, *displs = NULL;
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
    out->all = calloc((size_t)total + 1, 1);
  if (rc == MPI_SUCCESS)
    rc = MPI_Gatherv(text, len, MPI_CHAR, out->all, lens, displs, MPI_CHAR, 0,
                     ctx->world);
  if (rc != MPI_SUCCESS && st == GCB_OK)
    st = gcb_err_set(&ctx->err, GCB_EMPI, "MPI_Gatherv of topologies failed");
  if (ctx->rank == 0 && out->all && lens && displs)
    index_snapshots(out, lens, displs, ctx->size);
  free(text);
  free(lens);
  free(displs);
  return st;
}

/* "host, device" for the live table's mentions of a rank. */
static char (*rank_names(const struct gcb_identity *ids, int n))[96] {
  char(*names)[96] = calloc((size_t)n, sizeof *names);
  for (int r = 0; names && r < n; r++) {
    if (ids[r].device.index >= 0)
      snprintf(names[r], sizeof names[r], "%s, GPU %d %s", ids[r].hostname,
               ids[r].device.index, ids[r].device.bus_id);
    else
      snprintf(names[r], sizeof names[r], "%s, CPUs %s", ids[r].hostname,
               ids[r].cpu_binding);
  }
  return names;
}

/* nccl-tests' device list line (src/util.cu, writeDeviceReport): rank,
 * group 0, pid, host, device and its PCI domain:bus:device, name. A host
 * rank's device is its CPUs: its local rank as the index (nccl-tests'
 * device is localRank there), [host] for the bus and the CPUs bound. */
static char (*device_lines(const struct gcb_identity *ids,
                           int n))[GCB_DEVICE_LINE] {
  char(*lines)[GCB_DEVICE_LINE] = calloc((size_t)n, sizeof *lines);
  for (int r = 0; lines && r < n; r++) {
    unsigned dom = 0, bus = 0, dev = 0;
    char pci[32] = "-", name[160];
    const struct gcb_identity *id = &ids[r];
    if (id->device.index >= 0 &&
        sscanf(id->device.bus_id, "%x:%x:%x", &dom, &bus, &dev) == 3)
      snprintf(pci, sizeof pci, "%04x:%02x:%02x", dom & 0xffffu, bus & 0xffu,
               dev & 0xffu);
    int index = id->device.index;
    if (index >= 0) {
      snprintf(name, sizeof name, "%s", id->device.name);
    } else {
      snprintf(pci, sizeof pci, "host");
      snprintf(name, sizeof name, "CPUs %s", id->cpu_binding);
      index = id->local_rank;
    }
    snprintf(lines[r], sizeof lines[r],
             "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s", r, 0,
             id->pid, id->hostname, index, pci, name);
  }
  return lines;
}

/* This rank's identity record. */
static void identify(const struct gcb_ctx *ctx, struct gcb_identity *me) {
  *me = (struct gcb_identity){.rank = ctx->rank,
                              .node = ctx->node_index,
                              .local_rank = ctx->local_rank,
                              .pid = (int)ctx->pid,
                              .bound_pus = ctx->bound_pus,
                              .cpu_threads = ctx->cpu_threads,
                              .machine = ctx->node_machine};
  snprintf(me->hostname, sizeof me->hostname, "%s", ctx->hostname);
  snprintf(me->cpu_binding, sizeof me->cpu_binding, "%s", ctx->cpu_binding);
  snprintf(me->device.name, sizeof me->device.name, "%s", ctx->device.name);
  snprintf(me->device.bus_id, sizeof me->device.bus_id, "%s",
           ctx->device.bus_id);
  me->device.index = ctx->device.index;
  me->device.memory_bytes = ctx->device.memory_bytes;
  me->device.threads = ctx->device.threads;
  char versions[512] = "";
  if (ctx->backend_ops->versions)
    ctx->backend_ops->versions(ctx->backend, versions, sizeof versions);
  if (strstr(versions, "OpenBLAS") != NULL) {
    /* every rank's own kernels: another node's CPU, or a rank launched with
     * OPENBLAS_CORETYPE or OPENBLAS_NUM_THREADS, picks others */
    struct gcb_blas_info blas;
    gcb__blas_probe(&blas);
    snprintf(me->blas.core, sizeof me->blas.core, "%s", blas.core);
    snprintf(me->blas.cpu_isa, sizeof me->blas.cpu_isa, "%s", blas.cpu_isa);
    me->blas.threads = blas.threads;
  }
}

/* The variables that explain a figure: whole prefixes of NCCL's, the MPI
 * libraries' and the BLAS's tunables (OPENBLAS_CORETYPE forces a kernel,
 * OPENBLAS_NUM_THREADS/OMP_NUM_THREADS/GOTO_NUM_THREADS its threads), and
 * single names from the scheduler and CUDA. */
static const char *const env_prefixes[] = {
    "NCCL_",     "UCX_",   "MPIR_CVAR_", "FI_",    "OMPI_MCA_",
    "PMIX_MCA_", "HYDRA_", "PMI_",       "I_MPI_", "OPENBLAS_",
    "GOTO_",     "OMP_",   NULL};
static const char *const env_names[] = {"SLURM_JOB_ID",
                                        "SLURM_JOB_NODELIST",
                                        "SLURM_NODELIST",
                                        "SLURM_STEP_ID",
                                        "SLURM_JOB_NUM_NODES",
                                        "SLURM_NTASKS",
                                        "SLURM_CLUSTER_NAME",
                                        "SLURM_JOB_PARTITION",
                                        "CUDA_VISIBLE_DEVICES",
                                        "CUDA_DEVICE_ORDER",
                                        NULL};
/* Parts of a name that mark a secret: such a variable never goes into a
 * document that is shared and archived, whatever its prefix. */
static const char *const env_secret[] = {"TOKEN",  "KEY",  "SECRET", "PASSWORD",
                                         "PASSWD", "CRED", "AUTH",   NULL};

static bool env_listed(const char *name, size_t len) {
  bool in = false;
  for (size_t i = 0; !in && env_prefixes[i]; i++)
    in = strncmp(name, env_prefixes[i], strlen(env_prefixes[i])) == 0;
  for (size_t i = 0; !in && env_names[i]; i++)
    in = strlen(env_names[i]) == len && strncmp(name, env_names[i], len) == 0;
  char upper[128];
  if (!in || len >= sizeof upper)
    return false;
  for (size_t i = 0; i < len; i++)
    upper[i] =
        (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
  upper[len] = '\0';
  for (size_t i = 0; env_secret[i]; i++)
    if (strstr(upper, env_secret[i]) != NULL)
      return false;
  return true;
}

static int env_order(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **gcb__launch_env(char **env) {
  enum { MAX_VARS = 256 };
  const char **out = calloc(MAX_VARS + 1, sizeof *out);
  size_t n = 0;
  for (size_t i = 0; out && env && env[i] && n < MAX_VARS; i++) {
    const char *eq = strchr(env[i], '=');
    if (eq != NULL && env_listed(env[i], (size_t)(eq - env[i])))
      out[n++] = env[i];
  }
  if (out != NULL)
    qsort(out, n, sizeof *out, env_order);
  return out;
}

/* The backend's library versions ("OpenBLAS 0.3.21 ..."; with NCCL's on
 * a GPU backend) and, when it runs OpenBLAS, what OpenBLAS says it runs. */
static bool backend_versions(struct gcb_ctx *ctx, char *backend, size_t len,
                             struct gcb_blas_info *blas) {
  backend[0] = '\0';
  if (ctx->backend_ops->versions)
    ctx->backend_ops->versions(ctx->backend, backend, len);
  bool openblas = strstr(backend, "OpenBLAS") != NULL;
  if (openblas)
    gcb__blas_probe(blas);
  return openblas;
}

/* Rank 0: the header sections from what was gathered. */
static enum gcb_status
set_header(struct gcb_ctx *ctx, struct gcb_results *results,
           const struct gcb_identity *ids, const char *command, int argc,
           char **argv, const char *run_id, const struct snapshots *snaps,
           const struct gcb_mpi_probe *probe, char *blas_line,
           size_t blas_len) {
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "", device[64];
  int len = 0;
  if (MPI_Get_library_version(mpi, &len) != MPI_SUCCESS)
    mpi[0] = '\0';
  gcb__mpi_device(mpi, device, sizeof device);
  mpi[strcspn(mpi, "\n")] = '\0'; /* MPICH prints a whole page */
  char hwloc[32], backend[512];
  gcb_topo_hwloc_version(hwloc, sizeof hwloc);
  struct gcb_blas_info blas;
  bool has_blas = backend_versions(ctx, backend, sizeof backend, &blas);
  if (has_blas)
    gcb__blas_describe(&blas, blas_line, blas_len);
  /* Asked only on a backend with GPUs: the answer opens the CUDA module,
   * which a host run never loads. */
  char nccl[64] = "";
  if (ctx->backend_ops->health != NULL)
    nccl_version(nccl, sizeof nccl);
  if (nccl[0] != '\0') {
    size_t at = strlen(backend);
    snprintf(backend + at, sizeof backend - at, "; %s", nccl);
  }
  const char **env = gcb__launch_env(environ);
  struct gcb_run_info run = {.command = command,
                             .environment = env,
                             .argc = argc,
                             .argv = argv,
                             .run_id = run_id,
                             .backend = ctx->backend_ops->name,
                             .backend_reason = ctx->backend_reason,
                             .ranks = ctx->size,
                             .nodes = ctx->node_count,
                             .mpi = mpi,
                             .hwloc = hwloc,
                             .backend_versions = backend,
                             .blas = has_blas ? &blas : NULL,
                             .mpi_device = device,
                             .mpi_probe = probe};
  enum gcb_status st = gcb_results_set_header(results, &run, ids, snaps->text,
                                              snaps->n, &ctx->err);
  free(env);
  return st;
}

enum gcb_status gcb__header_build(struct gcb_ctx *ctx,
                                  struct gcb_results *results,
                                  const char *command, int argc, char **argv,
                                  const char *run_id, char (**names)[96],
                                  char (**devices)[GCB_DEVICE_LINE], char *blas,
                                  size_t blas_len) {
  *names = NULL;
  *devices = NULL;
  if (blas_len > 0)
    blas[0] = '\0';
  struct gcb_identity me;
  identify(ctx, &me);
  struct gcb_identity *ids = NULL;
  enum gcb_status st = GCB_OK;
  if (ctx->rank == 0 && (ids = calloc((size_t)ctx->size, sizeof *ids)) == NULL)
    st = gcb_err_set(&ctx->err, GCB_ENOMEM, "results header: out of memory");
  /* every rank agrees before the gather: rank 0 without its buffer must
   * not leave the others in an MPI_Gather it never joins */
  if ((st = gcb_context_agree(ctx, st)) != GCB_OK) {
    free(ids);
    return st;
  }
  int rc = MPI_Gather(&me, (int)sizeof me, MPI_BYTE, ids, (int)sizeof me,
                      MPI_BYTE, 0, ctx->world);
  st = rc == MPI_SUCCESS ? GCB_OK
                         : gcb_err_set(&ctx->err, GCB_EMPI,
                                       "MPI_Gather of rank identities failed");
  struct snapshots snaps = {0};
  struct gcb_mpi_probe probe = {0};
  if (st == GCB_OK)
    st = gather_topologies(ctx, &snaps);
  /* the probe pairs rank 0 with one or two peers: a rank that failed
   * above must not leave them waiting in a ping-pong it never joins */
  enum gcb_status agreed = gcb_context_agree(ctx, st);
  if (agreed != GCB_OK) {
    free(snaps.text);
    free(snaps.all);
    free(ids);
    return agreed; /* agreed once: the message carries one rank prefix */
  }
  st = gcb__mpi_probe(ctx, &probe);
  if (st == GCB_OK && ctx->rank == 0) {
    st = set_header(ctx, results, ids, command, argc, argv, run_id, &snaps,
                    &probe, blas, blas_len);
    *names = rank_names(ids, ctx->size);
    *devices = device_lines(ids, ctx->size);
  }
  free(snaps.text);
  free(snaps.all);
  free(ids);
  return gcb_context_agree(ctx, st);
}

enum gcb_status gcb__header_finish(struct gcb_results *results,
                                   const char *status, struct gcb_err *err) {
  return gcb_results_finish_run(results, status, err);
}

/* mkdir -p of every directory above path's last component; one that
 * cannot be created is bad usage of --output (exit 2), named as such. */
static enum gcb_status make_parents(const char *path, struct gcb_err *err) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    struct stat sb;
    if (mkdir(dir, 0777) != 0 &&
        (errno != EEXIST || stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)))
      return gcb_err_set(
          err, GCB_EUSAGE, "--output %s: cannot create directory %s (%s)", path,
          dir, errno == EEXIST ? "not a directory" : strerror(errno));
    *p = '/';
  }
  return GCB_OK;
}

/* ---- the claim until the document is in it -------------------------------
 * Between the claim (an empty file) and the first write the watchdog's
 * handlers are not there yet: SIGINT or SIGTERM killed the process and left
 * the empty file, which no report reads and a rerun without --force is
 * refused over. Until gcb__claim_release a handler of the claim's own
 * removes it, if still empty, and ends the process by the signal as
 * before. Process-wide state: a handler finds nothing else. */

static char claim_path[4096];
static volatile sig_atomic_t claim_made;
static const int claim_signals[] = {SIGINT, SIGTERM};
static struct sigaction claim_before[2];
static bool claim_installed[2];

static void on_stop_before_the_document(int sig) {
  struct stat sb;
  if (claim_made && stat(claim_path, &sb) == 0 && S_ISREG(sb.st_mode) &&
      sb.st_size == 0)
    unlink(claim_path);
  raise(sig); /* SA_RESETHAND: the default action, as without this */
}

static void claim_guard(const char *path) {
  snprintf(claim_path, sizeof claim_path, "%s", path);
  claim_made = 0;
  struct sigaction sa = {.sa_handler = on_stop_before_the_document,
                         .sa_flags = SA_RESETHAND};
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < 2; i++)
    claim_installed[i] =
        sigaction(claim_signals[i], NULL, &claim_before[i]) == 0 &&
        claim_before[i].sa_handler != SIG_IGN &&
        sigaction(claim_signals[i], &sa, NULL) == 0;
}

void gcb__claim_release(void) {
  claim_made = 0;
  for (size_t i = 0; i < 2; i++)
    if (claim_installed[i])
      sigaction(claim_signals[i], &claim_before[i], NULL);
  claim_installed[0] = claim_installed[1] = false;
}

/* Without --force the path is claimed by creating it exclusively (an
 * empty file the first write replaces): of two runs given the same new
 * path, the second is refused here instead of both running and one
 * losing its cases to the other's rename. */
static enum gcb_status claim(const char *out, struct gcb_err *err) {
  claim_guard(out); /* before the file is there, not after */
  /* A signal is delivered as open returns, before claim_made could say
   * the file is ours: held until it does (a SIGTERM sent as soon as the
   * file showed left it empty). */
  sigset_t stop, before;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  bool held = pthread_sigmask(SIG_BLOCK, &stop, &before) == 0;
  int fd =
      open(out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  int open_errno = errno;
  if (fd >= 0)
    claim_made = 1;
  if (held)
    pthread_sigmask(SIG_SETMASK, &before, NULL);
  if (fd >= 0) {
    close(fd);
    return GCB_OK;
  }
  gcb__claim_release();
  if (open_errno == EEXIST)
    return gcb_err_set(err, GCB_EUSAGE,
                       "results file %s exists (use --force to overwrite)",
                       out);
  return gcb_err_set(err, GCB_EUSAGE, "--output %s: cannot create (%s)", out,
                     strerror(open_errno));
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
  enum gcb_status st = make_parents(out, err);
  return st == GCB_OK && !force ? claim(out, err) : st;
}
