/*
 * coll: collective latency and bandwidth across all ranks, in the layout
 * and with the figures of nccl-tests (size sweep -b/-e/-f, out-of-place and
 * in-place, algbw = S/t, busbw = algbw * factor, #wrong from exact expected
 * values), over MPI on host memory or NCCL on device memory. Semantics come
 * from the collectives table; this file only sweeps and describes cases.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benches/coll.h"
#include "bench/benches/osu_options.h"
#include "common/clock.h"
#include "common/mpi_err.h"

/* Names of the collectives table's rows, in order (checked by a test). */
static const char *const coll_op_names[] = {
    "allreduce", "allgather", "reducescatter", "broadcast", "reduce",
    "alltoall",  "sendrecv",  "latency",       "bandwidth", "barrier",
    "gather",    "scatter",   "bibw",          NULL};

static const char *const coll_dtype_names[] = {
#define GCB__CD_NAME(id, name, bytes) name,
    GCB_COLL_DTYPE_LIST(GCB__CD_NAME)
#undef GCB__CD_NAME
        NULL};

/* --split values, in the order of enum coll_split. */
static const char *const coll_split_names[] = {"none", "node", "cross", NULL};

static const char *const coll_redop_names[] = {
#define GCB__RO_NAME(id, name) name,
    GCB_COLL_REDOP_LIST(GCB__RO_NAME)
#undef GCB__RO_NAME
        NULL};

/* --layout values: nccl-tests' columns exactly, or with gcbench's min and
 * max over ranks trailing each row. */
static const char *const coll_layout_names[] = {"nccl",     "gcbench",   "osu",
                                                "osu-full", "osu-multi", NULL};

/* --placement values: which halves of each size run. */
static const char *const coll_placement_names[] = {"both", "out-of-place",
                                                   "in-place", NULL};

/*
 * Every nccl-tests letter (src/common.cu of nccl-tests 2.19.6) means here
 * what it means there, under the same long name: -b -e -i -f -n -m -w -N
 * -p -c -o -d -r -z -T -J -a, and the rows of GCB_COLL_NCCL_LIST, which
 * only their default passes. gcbench's own options have long names only.
 */
#define OPT(field) offsetof(struct coll_opts, field)
#define NCCL_ROW(i, name, letter, def, help, instead)                          \
  {name,                                                                       \
   letter,                                                                     \
   GCB_OPT_INT,                                                                \
   OPT(nccl[i]),                                                               \
   def,                                                                        \
   "N",                                                                        \
   help ": only " def " here",                                                 \
   NULL,                                                                       \
   -1,                                                                         \
   0},
static const struct gcb_option coll_options[] = {
    {"collective", 0, GCB_OPT_SET, OPT(ops), "all", "LIST",
     "operations, one sweep each (a program name such as all_reduce_perf "
     "picks one)",
     coll_op_names, 0, 0},
    {"minbytes", 'b', GCB_OPT_SIZE, OPT(minbytes), "8", "BYTES",
     "smallest message size", NULL, 0, 0},
    {"maxbytes", 'e', GCB_OPT_SIZE, OPT(maxbytes), "1M", "BYTES",
     "largest message size", NULL, 0, 0},
    {"stepfactor", 'f', GCB_OPT_DOUBLE, OPT(stepfactor), "8", "X",
     "multiply the size by X between cases", NULL, 0, 0},
    {"stepbytes", 'i', GCB_OPT_SIZE, OPT(stepbytes), NULL, "BYTES",
     "add BYTES between cases instead of multiplying (not with -f)", NULL, 1,
     0},
    GCB_OPT_ALIAS_ROW("iterations", 'n', "iters",
                      "timed iterations, as nccl-tests -n/--iters"),
    GCB_OPT_ALIAS_ROW("warmup_iters", 0, "warmup",
                      "warm-up iterations, as nccl-tests -w/--warmup_iters"),
    {"agg_iters", 'm', GCB_OPT_INT, OPT(agg), "1", "N",
     "operations per timed iteration (the time is per operation)", NULL, 1,
     1e6},
    {"run_cycles", 'N', GCB_OPT_INT, OPT(cycles), "1", "N",
     "run the whole sweep N times, each printed and recorded (0: until "
     "interrupted)",
     NULL, 0, 1e6},
    {"parallel_init", 'p', GCB_OPT_INT, OPT(nccl_parallel), "0", "0|1",
     "threads initialise NCCL concurrently; no effect here (one thread per "
     "process)",
     NULL, 0, 1},
    {"check", 'c', GCB_OPT_INT, OPT(check), "1", "N",
     "validations per case against exact expected values (0: none)", NULL, 0,
     1e6},
    {"op", 'o', GCB_OPT_SET, OPT(redops), "sum", "LIST",
     "reduction operators (sum, prod, max, min, avg, all)", coll_redop_names, 0,
     0},
    GCB_OPT_ALIAS_ROW("redop", 0, "op", "reduction operators, as --op"),
    {"datatype", 'd', GCB_OPT_SET, OPT(dtypes), "float", "LIST",
     "element types", coll_dtype_names, 0, 0},
    {"root", 'r', GCB_OPT_INT, OPT(root), "0", "RANK",
     "root of broadcast, reduce, gather and scatter", NULL, 0, 0},
    {"blocking", 'z', GCB_OPT_INT, OPT(blocking), "0", "0-4",
     "0: operations back to back (nccl-tests); 1: wait and barrier after "
     "each, timed; 2: wait after each; 3: barrier before each, outside the "
     "timed region (OSU's collectives); 4: each operation timed alone, the "
     "times summed, no barrier (osu_latency, osu_bw)",
     NULL, 0, 4},
    GCB_OPT_ALIAS_ROW("timeout", 'T', "timeout",
                      "seconds before a case is ended, as nccl-tests -T"),
    {"output_file", 'J', GCB_OPT_STRING, OPT(json), NULL, "FILE",
     "nccl-tests' JSON document (its -J layout, version 3; FILE.0, FILE.1 "
     "... when FILE exists); gcbench's own document is --output's",
     NULL, 0, 0},
    {"per_iter_timing", 'I', GCB_OPT_INT, OPT(per_iter), "0", "0|1",
     "per-iteration timing, as nccl-tests -I 1: i_min, i_max, i_p99 and "
     "i_cv% after each half (the max over ranks of each iteration), and "
     "every rank's times in -J's document",
     NULL, 0, 1},
    {"per_iter_skip", 'K', GCB_OPT_INT, OPT(per_iter_skip), "0", "N",
     "leading iterations -I's summary leaves out (nccl-tests -K; needs -I 1)",
     NULL, 0, 1e9},
    {"average", 'a', GCB_OPT_INT, OPT(average), "1", "0-4",
     "time the table shows: 0 rank 0's, 1 mean, 2 min, 3 max over ranks; "
     "gcbench adds 4: mean over the ranks that start each pair's exchange "
     "(the lower half: osu_multi_lat, osu_mbw_mr)",
     NULL, 0, 4},
    GCB_COLL_NCCL_LIST(NCCL_ROW){
        "layout", 0, GCB_OPT_CHOICE, OPT(layout), "nccl", "NAME",
        "table rows: nccl (nccl-tests' columns exactly), gcbench (min and "
        "max over ranks trailing each half), osu (OSU's layout, one row per "
        "size and placement), osu-full (with OSU -f's columns) or osu-multi "
        "(osu_multi_lat's and osu_mbw_mr's: N/2 pairs, MB/s and Messages/s "
        "summed over the pairs)",
        coll_layout_names, 0, 0},
    GCB_OPT_ALIAS_ROW("format", 0, "layout", "as --layout (--format osu)"),
    {"placement", 0, GCB_OPT_CHOICE, OPT(placement), "both", "NAME",
     "halves of each size: both, out-of-place or in-place (--format osu: "
     "out-of-place unless given)",
     coll_placement_names, 0, 0},
    {"iters-large", 0, GCB_OPT_INT, OPT(iters_large), "-1", "N",
     "timed iterations of sizes above 8192 bytes (OSU's size), as OSU's "
     "iterations_large; -1: --iters, which counts the sizes up to it",
     NULL, -1, 1e9},
    {"warmup-large", 0, GCB_OPT_INT, OPT(warmup_large), "-1", "N",
     "warm-up iterations of sizes above 8192 bytes (OSU's skip_large); -1: "
     "--warmup",
     NULL, -1, 1e9},
    {"window", 0, GCB_OPT_INT, OPT(window), "0", "N",
     "messages per window of bandwidth and bibw (OSU's -W; 0: 64, OSU's "
     "default)",
     NULL, 0, 1 << 20},
    {"tail-lat", 0, GCB_OPT_STRING, OPT(tail_lat), NULL, "P[,P...]",
     "OSU's layout: tail latency columns at these percentiles (OSU -z: up "
     "to 5, each 1..100; osu_* -z alone is 50,90,99)",
     NULL, 0, 0},
    {"program", 0, GCB_OPT_STRING, OPT(program), NULL, "NAME",
     "behave as nccl-tests' program NAME (all_reduce_perf ...): its "
     "collective, and without -f the step -i (1M by default) as there",
     NULL, 0, 0},
    {"transport", 0, GCB_OPT_STRING, OPT(transport), "auto", "NAME",
     "mpi, nccl or auto (nccl on the cuda backend, else mpi)", NULL, 0, 0},
    {"split", 0, GCB_OPT_STRING, OPT(split), "auto", "LIST",
     "communicators to measure over, as nccl-tests' split: none (every "
     "rank), node (one per node: intra-node links), cross (one per local "
     "rank across nodes: the network), all; auto: none on one node, all on "
     "several",
     NULL, 0, 0},
    /* Test only (no help: left out of --help): RANK sleeps US
     * microseconds before each operation; RANK corrupts one received
     * element before each validation. */
    {"delay-rank", 0, GCB_OPT_STRING, OPT(delay), NULL, "RANK:US", NULL, NULL,
     0, 0},
    {"corrupt-rank", 0, GCB_OPT_INT, OPT(corrupt_rank), "-1", "RANK", NULL,
     NULL, -1, 0},
    GCB_OPT_GIVEN_ROW(struct coll_opts, given),
    {0},
};
#undef NCCL_ROW
#undef OPT

/* One case of the sweep. */
struct coll_spec {
  const struct gcb_coll_desc *desc;
  enum coll_split split;
  enum gcb_coll_dtype dtype;
  int redop; /* -1: the operation does not reduce */
  uint64_t bytes;
  bool inplace;
};

/* Barrier moves no data and point-to-point patterns have no element type
 * to speak of: one type, one size, or no reduction where that is all. */
static bool sized(const struct gcb_coll_desc *d) {
  return strcmp(d->name, "barrier") != 0;
}

static bool typed(const struct gcb_coll_desc *d) {
  return sized(d) && !d->pairwise;
}

/* The bytes added between sizes, or 0 when -f multiplies. As nccl-tests'
 * programs: -f above 1 multiplies, else -i adds (1M unless given). */
static uint64_t step_bytes(const struct coll_opts *o) {
  if (o->program == NULL)
    return o->stepbytes;
  if (o->stepfactor > 1 && gcb_option_given(coll_options, o, "stepfactor"))
    return 0;
  return o->stepbytes > 0 ? o->stepbytes : UINT64_C(1) << 20;
}

/* The operations of the sweep: the program's one, else --collective. */
static uint32_t ops_of(const struct coll_opts *o) {
  const char *name = o->program ? gcb__coll_nccl_program(o->program) : NULL;
  for (int i = 0; name && coll_op_names[i]; i++)
    if (strcmp(coll_op_names[i], name) == 0)
      return 1u << i;
  return o->ops;
}

/* The size after `size`, saturating at UINT64_MAX (the last there is): a
 * product past 2^64 was cast as it came (undefined; fuzz_checks found
 * `-f 2e111`), and a sum could wrap below -e and never end. */
static uint64_t next_size(const struct coll_opts *o, uint64_t size) {
  uint64_t step = step_bytes(o);
  if (step > 0)
    return size > UINT64_MAX - step ? UINT64_MAX : size + step;
  double next = (double)size * o->stepfactor;
  if (!(next < 18446744073709551616.0)) /* 2^64, or NaN */
    return UINT64_MAX;
  uint64_t n = (uint64_t)next;
  return n > size ? n : size == UINT64_MAX ? UINT64_MAX : size + 1;
}

/* --placement; OSU's layout has one figure per size: out of place unless
 * --placement says otherwise. */
static int placement_of(const struct coll_opts *o) {
  if (o->layout >= 2 && !gcb_option_given(coll_options, o, "placement"))
    return 1;
  return o->placement;
}

uint64_t gcb__coll_next_size(const struct coll_opts *o, uint64_t size) {
  return next_size(o, size);
}

/* Cases of one operation over one split, counted on from *i. */
static bool nth_of_split(const struct coll_opts *o,
                         const struct gcb_coll_desc *d, enum coll_split split,
                         int index, int *i, struct coll_spec *out) {
  for (int t = 0; t < GCB_COLL_DTYPE_COUNT; t++) {
    if (typed(d) ? !(o->dtypes & (1u << t)) : t != GCB_COLL_UINT8)
      continue;
    for (int r = d->reduces ? 0 : -1; r < GCB_COLL_REDOP_COUNT; r++) {
      if (r >= 0 && !(o->redops & (1u << r)))
        continue;
      for (uint64_t s = sized(d) ? o->minbytes : 0; s <= o->maxbytes;
           s = next_size(o, s)) {
        for (int inplace = placement_of(o) == 2;
             inplace < 2 - (placement_of(o) == 1); inplace++)
          if ((*i)++ == index) {
            *out = (struct coll_spec){d, split, (enum gcb_coll_dtype)t,
                                      r, s,     inplace};
            return true;
          }
        if (!sized(d) || s == UINT64_MAX)
          break;
      }
      if (r < 0)
        break;
    }
  }
  return false;
}

/* The --split set: "auto" is every split when there are several nodes,
 * else none; otherwise a comma list of names or "all". */
static enum gcb_status split_set(const struct gcb_ctx *ctx, const char *text,
                                 uint32_t *out, struct gcb_err *err) {
  const uint32_t every = (1u << COLL_SPLIT_COUNT) - 1;
  *out = 0;
  if (strcmp(text, "auto") == 0) {
    *out = ctx->node_count > 1 ? every : 1u << COLL_SPLIT_NONE;
    return GCB_OK;
  }
  char buf[128], *save = NULL;
  snprintf(buf, sizeof buf, "%s", text);
  for (char *tok = strtok_r(buf, ",", &save); tok;
       tok = strtok_r(NULL, ",", &save)) {
    int i = 0;
    while (coll_split_names[i] && strcmp(coll_split_names[i], tok) != 0)
      i++;
    if (strcmp(tok, "all") == 0)
      *out |= every;
    else if (coll_split_names[i])
      *out |= 1u << i;
    else
      return gcb_err_set(err, GCB_EUSAGE,
                         "--split: unknown value '%s' (choose from auto, "
                         "none, node, cross, all)",
                         tok);
  }
  if (*out == 0)
    return gcb_err_set(err, GCB_EUSAGE, "--split: empty list");
  return GCB_OK;
}

/* Visits the sweep in order (operation, split, type, operator, size,
 * placement); stops at the index-th case. *visited: the cases visited
 * (all of them when there is no index-th, index -1 say). */
static bool nth_case_of(const struct coll_opts *o, uint32_t splits, int index,
                        struct coll_spec *out, int *visited) {
  int i = 0;
  for (int op = 0; coll_op_names[op]; op++) {
    if (!(ops_of(o) & (1u << op)))
      continue;
    const struct gcb_coll_desc *d = gcb_coll_find(coll_op_names[op]);
    for (int split = 0; d && split < COLL_SPLIT_COUNT; split++) {
      if (splits & (1u << split) &&
          nth_of_split(o, d, (enum coll_split)split, index, &i, out)) {
        *visited = i;
        return true;
      }
    }
  }
  *visited = i;
  return false;
}

static bool nth_case(const struct coll_opts *o, uint32_t splits, int index,
                     struct coll_spec *out) {
  int visited;
  return nth_case_of(o, splits, index, out, &visited);
}

/* One walk over the sweep (a walk per case made counting quadratic, and
 * each case's set-up counts: `-e 881 -i 1` took minutes). */
static int coll_count(const struct gcb_ctx *ctx, const void *opts) {
  const struct coll_opts *o = opts;
  uint32_t splits = 0; /* coll_open has refused a bad --split already */
  (void)split_set(ctx, o->split, &splits, NULL);
  struct coll_spec spec;
  int n = 0;
  (void)nth_case_of(o, splits, -1, &spec, &n);
  return n * (int)o->cycles; /* -N: coll_validate keeps it in bounds */
}

/* --delay-rank RANK:MICROSECONDS (test only); rank -1 when not given. */
static enum gcb_status parse_delay(const char *text, int size, int *rank_out,
                                   double *seconds, struct gcb_err *err) {
  *rank_out = -1;
  *seconds = 0;
  if (text == NULL)
    return GCB_OK;
  char *end;
  errno = 0;
  long rank = strtol(text, &end, 10);
  double us = *end == ':' ? strtod(end + 1, &end) : -1;
  /* nan and inf pass no comparison: refused by name, never cast. */
  if (errno || *end != '\0' || rank < 0 || rank >= size || !isfinite(us) ||
      us < 0 || us > 1e7)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--delay-rank '%s': expected RANK:MICROSECONDS with "
                       "0 <= RANK < %d and 0 <= MICROSECONDS <= 10000000 "
                       "(10 s)",
                       text, size);
  *rank_out = (int)rank;
  *seconds = us * 1e-6;
  return GCB_OK;
}

/* The transport --transport names ("auto": nccl on the cuda backend, else
 * mpi); GCB_EUSAGE when there is none of that name in this build. */
static enum gcb_status find_transport(const struct gcb_ctx *ctx,
                                      const char *name,
                                      const struct gcb_coll_ops **out,
                                      struct gcb_err *err) {
  if (strcmp(name, "auto") == 0)
    name = strcmp(ctx->backend_ops->name, "cuda") == 0 ? "nccl" : "mpi";
  *out = gcb_coll_transport_find(name);
  if (*out == NULL)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--transport: unknown or not built: '%s'", name);
  return GCB_OK;
}

static enum gcb_status pick_transport(const struct gcb_ctx *ctx,
                                      const char *name,
                                      const struct gcb_coll_ops **out,
                                      struct gcb_err *err) {
  enum gcb_status st = find_transport(ctx, name, out, err);
  char why[160] = "";
  if (st == GCB_OK && !(*out)->usable(why, sizeof why))
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "transport %s cannot run here: %s", (*out)->name, why);
  return st;
}

/* --tail-lat P[,P...] as OSU's -z reads it (osu_util.c 7.4: at most
 * OMB_STAT_MAX_NUM, 5; each 0..100, where 0 would index before its
 * array: 1..100 here). */
static enum gcb_status tail_lat(const char *text, int *tail, int *ntail,
                                struct gcb_err *err) {
  *ntail = 0;
  if (text == NULL)
    return GCB_OK;
  const char *p = text;
  while (*p) {
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (errno || end == p || v < 1 || v > 100 || *ntail == 5 ||
        (*end != ',' && *end != '\0'))
      return gcb_err_set(err, GCB_EUSAGE,
                         "--tail-lat '%s': up to 5 percentiles, each 1..100, "
                         "comma-separated",
                         text);
    tail[(*ntail)++] = (int)v;
    p = *end == ',' ? end + 1 : end;
  }
  return *ntail > 0
             ? GCB_OK
             : gcb_err_set(err, GCB_EUSAGE, "--tail-lat '': no percentile");
}

/* What nccl-tests' "# nThread ..." line and -J's config say of the sweep;
 * the iterations are the harness's, filled in by the first case's
 * measure (gcb__coll_measure). */
static void describe_shape(const struct coll_opts *o,
                           struct gcb_sweep_shape *out) {
  *out = (struct gcb_sweep_shape){.minbytes = o->minbytes,
                                  .maxbytes = o->maxbytes,
                                  .stepbytes = step_bytes(o),
                                  .stepfactor = o->stepfactor,
                                  .agg = o->agg,
                                  .check = o->check,
                                  .blocking = o->blocking,
                                  .per_iter = o->per_iter,
                                  .per_iter_skip = o->per_iter_skip,
                                  .program = o->program,
                                  .json_path = o->json};
  (void)tail_lat(o->tail_lat, out->tail, &out->ntail, NULL);
}

static void coll_close(void *state) {
  struct coll_state *s = state;
  if (s == NULL)
    return;
  free(s->iter.s);
  for (int i = 0; i < COLL_SPLIT_COUNT; i++) {
    if (s->ops && s->split[i].comm)
      s->ops->close(s->split[i].comm);
    /* Nobody to tell at close: a failing free changes nothing measured. */
    if (s->split[i].owned != MPI_COMM_NULL)
      (void)MPI_Comm_free(&s->split[i].owned);
  }
  free(s);
}

/* The MPI communicator of a split: every rank, the node's ranks, or the
 * ranks with the same local rank on every node (made here). Collective. */
static enum gcb_status split_comm(struct gcb_ctx *ctx, enum coll_split split,
                                  struct coll_comm *c, MPI_Comm *out,
                                  struct gcb_err *err) {
  c->owned = MPI_COMM_NULL;
  *out = split == COLL_SPLIT_NODE ? ctx->node : ctx->world;
  if (split != COLL_SPLIT_CROSS)
    return GCB_OK;
  int rc = MPI_Comm_split(ctx->world, ctx->local_rank, ctx->rank, &c->owned);
  *out = c->owned;
  return rc == MPI_SUCCESS ? GCB_OK : gcb_mpi_err(err, rc, "MPI_Comm_split");
}

/* Why a split's communicators are not worth measuring, or "" when they
 * are: bus bandwidth needs one size for all, and a lone rank moves
 * nothing. The split "none" is always measured, as before splits. */
static void split_skip(enum coll_split split, int lo, int hi, char *why,
                       size_t len) {
  why[0] = '\0';
  if (split == COLL_SPLIT_NONE)
    return;
  const char *name = coll_split_names[split];
  if (lo != hi)
    snprintf(why, len,
             "split %s: communicators of %d to %d ranks (nodes with "
             "different rank counts); their figures would not compare",
             name, lo, hi);
  else if (hi < 2)
    snprintf(why, len, "split %s: one rank per communicator (%s)", name,
             split == COLL_SPLIT_NODE ? "one rank per node" : "one node");
}

/* Makes the communicator of one split and opens the transport over it,
 * unless the split is skipped. Collective over the world. */
static enum gcb_status open_split(struct gcb_ctx *ctx, struct coll_state *s,
                                  enum coll_split split, struct gcb_err *err) {
  struct coll_comm *c = &s->split[split];
  MPI_Comm comm;
  enum gcb_status st = split_comm(ctx, split, c, &comm, err);
  if (st != GCB_OK)
    return st;
  c->env = (struct gcb_coll_env){
      .comm = comm, .device = ctx->device.index, .deadline = ctx->deadline};
  int rc = MPI_Comm_rank(comm, &c->env.rank);
  if (rc == MPI_SUCCESS)
    rc = MPI_Comm_size(comm, &c->env.size);
  int sizes[2] = {-c->env.size, c->env.size}, range[2];
  if (rc == MPI_SUCCESS)
    rc = MPI_Allreduce(sizes, range, 2, MPI_INT, MPI_MAX, ctx->world);
  if (rc != MPI_SUCCESS)
    return gcb_mpi_err(err, rc, "sizes of the split communicators");
  split_skip(split, -range[0], range[1], c->skip, sizeof c->skip);
  return c->skip[0] ? GCB_OK : s->ops->open(&c->env, &c->comm, err);
}

/* The sizes of the sweep: how many (at most `cap` + 1) and the largest. */
static uint64_t sweep_sizes(const struct coll_opts *o, uint64_t cap,
                            uint64_t *largest) {
  *largest = o->minbytes;
  uint64_t step = step_bytes(o);
  if (step > 0) {
    uint64_t steps = (o->maxbytes - o->minbytes) / step;
    *largest = o->minbytes + steps * step;
    return steps < cap ? steps + 1 : cap + 1;
  }
  uint64_t n = 0;
  for (uint64_t s = o->minbytes; s <= o->maxbytes && n <= cap;
       s = next_size(o, s)) {
    *largest = s;
    n++;
    if (s == UINT64_MAX)
      break;
  }
  return n;
}

#define MAX_SIZES 100000
#define MAX_CASES 1000000 /* a case takes a millisecond at least */

/* The largest message's buffer must fit the memory the transport's
 * buffers come from, when that is the backend's (host memory on the host
 * backend, device memory on cuda): a case of that size allocates at least
 * one such buffer per rank. */
static enum gcb_status coll_fits(const struct gcb_ctx *ctx,
                                 const struct coll_opts *o,
                                 const struct gcb_coll_ops *ops,
                                 uint64_t largest, struct gcb_err *err) {
  bool moves_data = false;
  for (int i = 0; coll_op_names[i]; i++) {
    const struct gcb_coll_desc *d = gcb_coll_find(coll_op_names[i]);
    moves_data |= (ops_of(o) & (1u << i)) && d != NULL && sized(d);
  }
  if (!moves_data || ctx->backend_ops->fits == NULL ||
      ops->device_memory != (ctx->device.index >= 0))
    return GCB_OK;
  char size[32], what[96];
  gcb_format_size(largest, size, sizeof size);
  snprintf(what, sizeof what, "coll's largest message (%s, -e %llu)", size,
           (unsigned long long)o->maxbytes);
  return ctx->backend_ops->fits(ctx->backend, largest, what, err);
}

/* Whether an operation of the sweep sends a window of messages. */
static bool windowed(const struct coll_opts *o) {
  for (int i = 0; coll_op_names[i]; i++) {
    const struct gcb_coll_desc *d = gcb_coll_find(coll_op_names[i]);
    if ((ops_of(o) & (1u << i)) && d != NULL && d->window > 0)
      return true;
  }
  return false;
}

/* Everything about the options that needs no MPI, before the run. */
static enum gcb_status coll_validate(const struct gcb_ctx *ctx,
                                     const void *opts, struct gcb_err *err) {
  const struct coll_opts *o = opts;
  uint32_t splits;
  int delay_rank;
  double delay_s;
  uint64_t largest;
  const struct gcb_coll_ops *ops = NULL;
  if (o->minbytes > o->maxbytes)
    return gcb_err_set(err, GCB_EUSAGE, "-b %llu is larger than -e %llu",
                       (unsigned long long)o->minbytes,
                       (unsigned long long)o->maxbytes);
  if (o->program && gcb__coll_nccl_program(o->program) == NULL)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--program '%s': not a nccl-tests program gcbench "
                       "runs (all_reduce_perf, all_gather_perf, "
                       "reduce_scatter_perf, broadcast_perf, reduce_perf, "
                       "alltoall_perf, sendrecv_perf)",
                       o->program);
  if (o->program && gcb_option_given(coll_options, o, "collective"))
    return gcb_err_set(err, GCB_EUSAGE,
                       "--collective: %s runs %s only (run gcbench coll "
                       "--collective LIST for others)",
                       o->program, gcb__coll_nccl_program(o->program));
  int tail[5], ntail;
  if (tail_lat(o->tail_lat, tail, &ntail, err) != GCB_OK)
    return GCB_EUSAGE;
  if (ntail > 0 && (o->layout < 2 || o->layout > 3))
    return gcb_err_set(err, GCB_EUSAGE,
                       "--tail-lat: OSU's columns, for --layout osu or "
                       "osu-full only");
  enum gcb_status nst = gcb__coll_nccl_validate(o, ctx->size, err);
  if (nst == GCB_OK)
    nst = gcb__coll_osu_validate(o, err);
  if (nst != GCB_OK)
    return nst;
  if (o->program == NULL && gcb_option_given(coll_options, o, "stepfactor") &&
      gcb_option_given(coll_options, o, "stepbytes"))
    return gcb_err_set(err, GCB_EUSAGE,
                       "-f and -i exclude each other (-f multiplies the size "
                       "between cases, -i adds to it)");
  if (step_bytes(o) == 0 && o->stepfactor <= 1)
    return gcb_err_set(err, GCB_EUSAGE, "-f must be above 1 (or give -i)");
  if (sweep_sizes(o, MAX_SIZES, &largest) > MAX_SIZES)
    return gcb_err_set(err, GCB_EUSAGE,
                       "-b/-e/-f/-i: the sweep from %llu to %llu bytes has "
                       "more than %d sizes (a smaller -e or a larger step)",
                       (unsigned long long)o->minbytes,
                       (unsigned long long)o->maxbytes, MAX_SIZES);
  if (o->root >= ctx->size)
    return gcb_err_set(err, GCB_EUSAGE, "--root %ld: only %d rank(s)", o->root,
                       ctx->size);
  enum gcb_status st = split_set(ctx, o->split, &splits, err);
  if (st == GCB_OK && o->window > 0 && !windowed(o))
    st = gcb_err_set(err, GCB_EUSAGE,
                     "--window %ld: none of the sweep's operations has a "
                     "window (bandwidth and bibw have)",
                     o->window);
  if (st == GCB_OK && o->average == 4 && splits != 1u << COLL_SPLIT_NONE)
    st = gcb_err_set(err, GCB_EUSAGE,
                     "-a 4 (the pairs' initiators) needs --split none: the "
                     "pairs of split communicators are not world ranks");
  /* Counted only up to the limit: a walk of at most MAX_CASES steps. */
  struct coll_spec spec;
  int per_cycle = o->cycles > 1 ? MAX_CASES / (int)o->cycles : MAX_CASES;
  if (st == GCB_OK && nth_case(o, splits, per_cycle, &spec))
    st = gcb_err_set(err, GCB_EUSAGE,
                     "the sweep has more than %d cases%s (fewer sizes, "
                     "collectives, types or operators)",
                     MAX_CASES, o->cycles > 1 ? " over its -N cycles" : "");
  if (st == GCB_OK)
    st = parse_delay(o->delay, ctx->size, &delay_rank, &delay_s, err);
  if (st == GCB_OK)
    st = find_transport(ctx, o->transport, &ops, err);
  if (st == GCB_OK)
    st = coll_fits(ctx, o, ops, largest, err);
  return st;
}

static enum gcb_status coll_open(struct gcb_ctx *ctx, const void *opts,
                                 void **state, struct gcb_err *err) {
  const struct coll_opts *o = opts; /* coll_validate has checked them */
  struct coll_state *s = calloc(1, sizeof *s);
  if ((*state = s) == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "coll: out of memory");
  for (int i = 0; i < COLL_SPLIT_COUNT; i++)
    s->split[i].owned = MPI_COMM_NULL;
  enum gcb_status st = split_set(ctx, o->split, &s->splits, err);
  if (st == GCB_OK)
    st = parse_delay(o->delay, ctx->size, &s->delay_rank, &s->delay_s, err);
  if (st == GCB_OK)
    st = pick_transport(ctx, o->transport, &s->ops, err);
  /* In split order on every rank: the splits are collective. */
  for (int i = 0; st == GCB_OK && i < COLL_SPLIT_COUNT; i++)
    if (s->splits & (1u << i))
      st = open_split(ctx, s, (enum coll_split)i, err);
  if (st == GCB_OK)
    st = gcb__coll_clock_offset(ctx, &s->clock_offset);
  describe_shape(o, &s->shape);
  if (st == GCB_OK && s->ops->version_codes)
    s->ops->version_codes(&s->shape.nccl_headers, &s->shape.nccl_library);
  return st;
}

/* The size and count as nccl-tests prints them, once rounded to the
 * communicator's ranks (S of algbw = S/t); the requested ones where the
 * operation cannot be laid out on these ranks (the case is then skipped,
 * named by what was asked). */
static struct gcb_coll_counts case_counts(const struct coll_spec *sp,
                                          const struct gcb_coll_env *env,
                                          int root, bool *empty) {
  struct gcb_coll_counts c;
  size_t count = sp->bytes / gcb_coll_dtype_size(sp->dtype);
  *empty =
      env->size >= 1 && !gcb_coll_desc_counts(sp->desc, count, sp->dtype,
                                              env->rank, env->size, root, &c);
  if (env->size < 1 || *empty)
    c = (struct gcb_coll_counts){.bytes = sp->bytes, .param = count};
  return c;
}

/* Names the case: the label, then the parameters that identify it (split
 * last but one and the communicator size last: the params array is
 * small). */
static void describe(const struct coll_spec *sp, int nranks, int root,
                     const struct gcb_coll_counts *counts,
                     struct gcb_record *rec) {
  const char *redop = sp->redop >= 0 ? gcb_coll_redop_name(sp->redop) : "none";
  const char *split = coll_split_names[sp->split];
  char size[32];
  gcb_format_size(sp->bytes, size, sizeof size);
  snprintf(rec->label, sizeof rec->label, "%s %s %s %sB %s%s%s", sp->desc->name,
           gcb_coll_dtype_name(sp->dtype), redop, size,
           sp->inplace ? "in-place" : "out-of-place",
           sp->split != COLL_SPLIT_NONE ? " split " : "",
           sp->split != COLL_SPLIT_NONE ? split : "");
  gcb_record_param_str(rec, "op", sp->desc->name);
  gcb_record_param_size(rec, "size", (int64_t)counts->bytes);
  gcb_record_param_int(rec, "count", (int64_t)counts->param);
  gcb_record_param_str(rec, "type", gcb_coll_dtype_name(sp->dtype));
  gcb_record_param_str(rec, "redop", redop);
  gcb_record_param_int(rec, "root", sp->desc->rooted ? root : -1);
  gcb_record_param_int(rec, "inplace", sp->inplace);
  gcb_record_param_str(rec, "split", split);
  gcb_record_param_int(rec, "comm_size", nranks);
  rec->layout = GCB_LAYOUT_COLLECTIVE;
  rec->work_per_op = (double)counts->bytes;
  rec->figure = (struct gcb_figure_spec){
      .unit = "GB/s",
      .scale = 1e9,
      .counted = "algbw = S/t with S as nccl-tests counts it",
      .bus_factor = sp->desc->bus_factor(nranks)};
}

/* What the table needs beyond the case: the -N cycle, the -a time and the
 * --layout, each only when not the default (documents stay as before). */
static void describe_run(const struct coll_opts *o, int cycle,
                         struct gcb_record *rec) {
  if (o->cycles > 1) {
    size_t n = strlen(rec->label);
    snprintf(rec->label + n, sizeof rec->label - n, " cycle %d", cycle + 1);
    gcb_record_param_int(rec, "cycle", cycle + 1);
  }
  if (o->average != 1)
    gcb_record_param_int(rec, "average", o->average);
  if (o->layout != 0)
    gcb_record_param_str(rec, "layout", coll_layout_names[o->layout]);
  const struct gcb_coll_desc *d = gcb_coll_find(gcb_record_text(rec, "op"));
  if (o->window > 0 && d != NULL && d->window > 0)
    gcb_record_param_int(rec, "window", o->window);
}

static enum gcb_status coll_run(void *state, int reps, double *seconds,
                                struct gcb_err *err) {
  struct coll_op *c = state;
  double t0 = gcb_now_s();
  enum gcb_status st = gcb_coll_case_run_agg(c->k, reps, (int)c->agg, err);
  *seconds = (gcb_now_s() - t0) * c->time_scale / (double)c->agg;
  return st;
}

static enum gcb_status coll_check(void *state, struct gcb_check *out,
                                  struct gcb_err *err) {
  struct coll_op *c = state;
  if (!c->check)
    return GCB_OK;
  *out = (struct gcb_check){
      .checked = true, .method = "exact expected values, as nccl-tests -c"};
  /* -c N: N validations, as nccl-tests' loop over datacheck. */
  enum gcb_status st = GCB_OK;
  for (int i = 0; st == GCB_OK && i < c->check; i++) {
    uint64_t wrong = 0, samples = 0;
    if (c->corrupt)
      gcb_coll_case_corrupt_next(c->k);
    st = gcb_coll_case_check(c->k, &wrong, &samples, err);
    out->wrong += wrong;
    out->samples += samples;
  }
  return st;
}

static void coll_release(void *state) {
  struct coll_op *c = state;
  if (c != NULL)
    gcb_coll_case_free(c->k);
  free(c);
}

static enum gcb_status coll_setup(struct gcb_ctx *ctx, const void *opts,
                                  void *state, int index,
                                  struct gcb_record *rec, struct gcb_op *op,
                                  struct gcb_err *err) {
  const struct coll_opts *o = opts;
  struct coll_state *s = state;
  struct coll_spec sp;
  int per_cycle = coll_count(ctx, opts) / (int)o->cycles;
  int cycle = per_cycle > 0 ? index / per_cycle : 0;
  if (per_cycle <= 0 || !nth_case(o, s->splits, index % per_cycle, &sp))
    return gcb_err_set(err, GCB_EINTERNAL, "coll: no case %d", index);
  struct coll_comm *cc = &s->split[sp.split];
  bool empty = false;
  struct gcb_coll_counts counts =
      case_counts(&sp, &cc->env, (int)o->root, &empty);
  describe(&sp, cc->env.size, (int)o->root, &counts, rec);
  describe_run(o, cycle, rec);
  rec->shape = &s->shape;
  s->iter.n = 0; /* until this case's measure gathers its own */
  rec->iter = o->per_iter == 1 || s->shape.ntail > 0 ? &s->iter : NULL;
  if (cc->skip[0])
    return gcb_err_set(err, GCB_EUNSUPPORTED, "%s", cc->skip);
  if (sp.desc->rooted && o->root >= cc->env.size)
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "split %s: root %ld is outside communicators of %d "
                       "ranks",
                       coll_split_names[sp.split], o->root, cc->env.size);
  struct gcb_coll_call shape = {
      .desc = sp.desc,
      .dtype = sp.dtype,
      .redop = sp.redop >= 0 ? (enum gcb_coll_redop)sp.redop : GCB_REDOP_SUM,
      .root = (int)o->root,
      .count = sp.bytes / gcb_coll_dtype_size(sp.dtype),
      .inplace = sp.inplace};
  struct coll_op *c = calloc(1, sizeof *c);
  if (c == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "coll: out of memory");
  *op = (struct gcb_op){.state = c,
                        .run = coll_run,
                        .check = coll_check,
                        .release = coll_release};
  c->state = s;
  c->comm = cc->env.comm;
  c->time_scale = sp.desc->time_scale > 0 ? sp.desc->time_scale : 1;
  if (o->window > 0 && sp.desc->window > 0) { /* per message, as OSU */
    c->time_scale *= (double)sp.desc->window / (double)o->window;
    shape.window = (int)o->window;
  }
  c->agg = o->agg;
  c->osu_size = gcb__osu_size(sp.desc->name, counts.bytes, cc->env.size);
  c->check = (int)o->check;
  c->corrupt = o->corrupt_rank == ctx->rank;
  enum gcb_status st =
      gcb_coll_case_new(s->ops, cc->comm, &cc->env, &shape, &c->k, err);
  /* Skipped for having no element, not for the transport (which the
   * runner asks first): nccl-tests prints such a case as a 0 0 row. */
  char why[256];
  rec->empty = st == GCB_EUNSUPPORTED && empty &&
               !(sp.desc->pairwise && cc->env.size < 2) &&
               s->ops->supports(cc->comm, sp.desc, sp.dtype, shape.redop, why,
                                sizeof why);
  return st;
}

const struct gcb_bench gcb_bench_coll = {
    .name = "coll",
    .summary = "collective latency and bandwidth (nccl-tests figures), with "
               "arrival skew per rank",
    .options = coll_options,
    .opts_size = sizeof(struct coll_opts),
    .validate = coll_validate,
    .open = coll_open,
    .close = coll_close,
    .count = coll_count,
    .setup = coll_setup,
    .measure = gcb__coll_measure,
};
