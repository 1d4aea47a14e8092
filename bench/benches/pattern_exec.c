/*
 * Runs one pattern's program: GEMMs through the backend (OpenBLAS on
 * host; cuBLASLt on the backend's stream on cuda, each GEMM waited), and
 * collectives through the transport's non-blocking pair (MPI_I* on host;
 * NCCL on its own stream), so that communication started before a GEMM
 * runs while it runs. Between GEMMs every slot with work in flight is
 * tested, which both drives MPI's progress (an MPI library without an
 * asynchronous progress thread advances a non-blocking collective only
 * inside MPI calls, as PyTorch's Gloo and MPI backends do) and stamps
 * when the communication was last seen in flight. GEMMs run in tiles of
 * at most a poll budget's flops (rows of m; repetitions of a batched
 * one), tested between tiles, so that MPI progresses and the
 * communication's own time is seen to within one tile.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/benches/pattern_exec.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s) {
  struct timespec ts = {.tv_sec = (time_t)s,
                        .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

uint64_t gcb__pat_tile_rows(uint64_t m, uint64_t n, uint64_t k, double budget) {
  double row = 2.0 * (double)n * (double)k;
  double fit = row > 0 ? budget / row : (double)m;
  uint64_t rows = fit >= (double)m ? m : (uint64_t)fit;
  if (rows < 16)
    rows = 16;
  return rows < m ? rows : m;
}

int gcb__pat_tile_chunk(uint64_t m, uint64_t n, uint64_t k, int reps,
                        double budget) {
  double one = 2.0 * (double)m * (double)n * (double)k;
  double fit = one > 0 ? budget / one : (double)reps;
  int chunk = fit >= (double)reps ? reps : (int)fit;
  return chunk < 1 ? 1 : chunk;
}

static enum gcb_status prepare_gemms(struct gcb_ctx *ctx, struct gcb_pat_res *r,
                                     enum gcb_dtype t, double budget,
                                     struct gcb_err *err) {
  const struct gcb_backend_ops *b = ctx->backend_ops;
  if (b->gemm == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "the %s backend has no GEMM",
                       b->name);
  r->gemms = calloc(r->prog.ngemms + 1, sizeof *r->gemms);
  if (r->gemms == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "pattern: out of memory");
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < r->prog.ngemms && st == GCB_OK; i++) {
    const struct gcb_pat_gemm *g = &r->prog.gemms[i];
    struct gcb_pat_tiles *tl = &r->gemms[i];
    tl->rows = gcb__pat_tile_rows(g->m, g->n, g->k, budget);
    tl->whole = g->m / tl->rows;
    tl->chunk = gcb__pat_tile_chunk(g->m, g->n, g->k, INT32_MAX, budget);
    uint64_t rest = g->m - tl->whole * tl->rows;
    for (int h = 0; h < 2 && st == GCB_OK; h++) {
      struct gcb_gemm_params p = {.dtype = t,
                                  .m = h == 0 ? tl->rows : rest,
                                  .n = g->n,
                                  .k = g->k,
                                  .seed = ctx->seed + (uint64_t)ctx->rank +
                                          2 * i + (uint64_t)h};
      if (p.m > 0)
        st = b->gemm(ctx->backend, &p, &tl->op[h], err);
    }
  }
  return st;
}

/* The collectives; every rank prepares its own in program order, which is
 * the same order on every member of a slot's group. */
static enum gcb_status prepare_colls(struct gcb_pat_res *r,
                                     enum gcb_coll_dtype t,
                                     struct gcb_err *err) {
  r->colls = calloc(r->prog.ncolls + 1, sizeof *r->colls);
  if (r->colls == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "pattern: out of memory");
  for (size_t i = 0; i < r->prog.ncolls; i++) {
    const struct gcb_pat_coll *c = &r->prog.colls[i];
    struct gcb_pat_chan *s = &r->slots[c->slot];
    if (s->comm == NULL)
      return gcb_err_set(err, GCB_EINTERNAL, "pattern: slot %d not open",
                         c->slot);
    struct gcb_coll_call shape = {.desc = gcb_coll_find(c->op),
                                  .dtype = t,
                                  .redop = GCB_REDOP_SUM,
                                  .root = c->root,
                                  .count = c->count};
    enum gcb_status st =
        gcb_coll_case_new(r->ops, s->comm, &s->env, &shape, &r->colls[i], err);
    if (st != GCB_OK)
      return st;
    /* Validation checks what the step runs: the non-blocking form. */
    (void)gcb_coll_case_use_istart(r->colls[i]);
  }
  for (size_t i = 0; i < r->prog.nins; i++)
    if (r->prog.ins[i].op == GCB_PAT_START)
      r->comm_bytes +=
          (double)gcb_coll_case_counts(r->colls[r->prog.ins[i].arg])->bytes;
  return GCB_OK;
}

enum gcb_status gcb__pat_prepare(struct gcb_ctx *ctx, struct gcb_pat_res *r,
                                 enum gcb_dtype gemm_type,
                                 enum gcb_coll_dtype coll_type,
                                 double poll_flops, struct gcb_err *err) {
  enum gcb_status st = prepare_gemms(ctx, r, gemm_type, poll_flops, err);
  return st == GCB_OK ? prepare_colls(r, coll_type, err) : st;
}

/* ---- running ------------------------------------------------------------- */

/* Work in flight per slot; since when any was, and until when (the
 * latest lower bound of a completion) in the current busy stretch. */
struct flight {
  int pending[GCB_PAT_SLOTS];
  double seen[GCB_PAT_SLOTS]; /* last time the slot was known busy */
  int total;
  double since, until, busy;
};

/* Slot `slot` finished, no earlier than `at`. */
static void landed(struct flight *f, int slot, double at) {
  f->total -= f->pending[slot];
  f->pending[slot] = 0;
  if (at > f->until)
    f->until = at;
  if (f->total == 0)
    f->busy += f->until - f->since;
}

/* Tests every slot with work in flight (a case of that slot stands for
 * it: test() covers all the slot's operations). A slot still busy is
 * stamped with the test's start: it finished after that. */
static enum gcb_status poll(struct flight *f,
                            const struct gcb_coll_case *const *any,
                            struct gcb_err *err) {
  for (int s = 0; s < GCB_PAT_SLOTS; s++) {
    bool done = false;
    if (f->pending[s] == 0)
      continue;
    double t = now_s();
    enum gcb_status st =
        gcb_coll_case_test((struct gcb_coll_case *)any[s], &done, err);
    if (st != GCB_OK)
      return st;
    if (done)
      landed(f, s, f->seen[s]);
    else
      f->seen[s] = t;
  }
  return GCB_OK;
}

/* One GEMM of the program, tile by tile (chunk by chunk of a batched
 * one), the transports tested after each while anything is in flight. */
static enum gcb_status run_gemm(struct gcb_pat_res *r,
                                const struct gcb_pat_ins *in, double delay_s,
                                struct flight *f,
                                const struct gcb_coll_case *const *any,
                                double *compute, struct gcb_err *err) {
  struct gcb_pat_tiles *tl = &r->gemms[in->arg];
  double ignored;
  enum gcb_status st = GCB_OK;
  if (in->first && delay_s > 0) {
    double t0 = now_s();
    sleep_s(delay_s);
    *compute += now_s() - t0;
  }
  for (int done = 0; done < in->reps && st == GCB_OK;) {
    int reps = in->reps - done < tl->chunk ? in->reps - done : tl->chunk;
    for (uint64_t i = 0; i <= tl->whole && st == GCB_OK; i++) {
      struct gcb_op *op = &tl->op[i < tl->whole ? 0 : 1];
      if (op->run == NULL)
        continue;
      double t0 = now_s();
      st = op->run(op->state, reps, &ignored, err);
      *compute += now_s() - t0;
      if (st == GCB_OK && f->total > 0)
        st = poll(f, any, err);
    }
    done += reps;
  }
  return st;
}

enum gcb_status gcb__pat_step(struct gcb_pat_res *r, enum gcb_pat_mode mode,
                              double delay_s, struct gcb_pat_times *t,
                              struct gcb_err *err) {
  struct flight f = {{0}, {0}, 0, 0, 0, 0};
  const struct gcb_coll_case *any[GCB_PAT_SLOTS] = {NULL};
  enum gcb_status st = GCB_OK;
  bool comp = mode != GCB_PAT_RUN_COMM, comm = mode != GCB_PAT_RUN_COMPUTE;
  *t = (struct gcb_pat_times){0, 0, 0};
  double t0 = now_s();
  for (size_t i = 0; i < r->prog.nins && st == GCB_OK; i++) {
    const struct gcb_pat_ins *in = &r->prog.ins[i];
    if (in->op == GCB_PAT_GEMM && comp) {
      st = run_gemm(r, in, delay_s, &f, any, &t->compute, err);
    } else if (in->op == GCB_PAT_START && comm) {
      struct gcb_coll_case *k = r->colls[in->arg];
      int slot = r->prog.colls[in->arg].slot;
      double at = now_s();
      if (f.total == 0)
        f.since = f.until = at;
      st = gcb_coll_case_istart(k, err);
      any[slot] = k;
      f.seen[slot] = at;
      f.pending[slot]++;
      f.total++;
    } else if (in->op == GCB_PAT_WAIT && comm && f.pending[in->arg] > 0) {
      st = gcb_coll_case_wait((struct gcb_coll_case *)any[in->arg], err);
      landed(&f, in->arg, now_s());
    }
  }
  for (int s = 0; s < GCB_PAT_SLOTS && st == GCB_OK; s++)
    if (f.pending[s] > 0) { /* a program ends waiting; this is a guard */
      st = gcb_coll_case_wait((struct gcb_coll_case *)any[s], err);
      landed(&f, s, now_s());
    }
  t->step = now_s() - t0;
  t->comm = f.busy;
  return st;
}

/* ---- validation ---------------------------------------------------------- */

static void add_check(struct gcb_check *sum, const struct gcb_check *c) {
  sum->samples += c->samples;
  sum->wrong += c->wrong;
  if (c->max_error > sum->max_error)
    sum->max_error = c->max_error;
  if (c->tolerance > sum->tolerance)
    sum->tolerance = c->tolerance;
}

enum gcb_status gcb__pat_check(struct gcb_pat_res *r, struct gcb_check *out,
                               struct gcb_err *err) {
  *out = (struct gcb_check){
      .checked = true,
      .method = "collectives: exact expected values (nccl-tests -c); "
                "GEMMs: sampled entries against a reference"};
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < r->prog.ncolls && st == GCB_OK; i++) {
    uint64_t wrong = 0, checked = 0;
    st = gcb_coll_case_check(r->colls[i], &wrong, &checked, err);
    add_check(out, &(struct gcb_check){.samples = checked, .wrong = wrong});
  }
  for (size_t i = 0; i < r->prog.ngemms && st == GCB_OK; i++)
    for (int h = 0; h < 2 && st == GCB_OK; h++) {
      struct gcb_op *op = &r->gemms[i].op[h];
      struct gcb_check c = {0};
      if (op->check == NULL)
        continue;
      st = op->check(op->state, &c, err);
      if (st == GCB_OK && c.checked)
        add_check(out, &c);
    }
  return st;
}

void gcb__pat_res_free(struct gcb_pat_res *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; r->colls && i < r->prog.ncolls; i++)
    gcb_coll_case_free(r->colls[i]);
  for (size_t i = 0; r->gemms && i < r->prog.ngemms; i++)
    for (int h = 0; h < 2; h++)
      gcb_op_release(&r->gemms[i].op[h]);
  free(r->colls);
  free(r->gemms);
  for (int s = 0; s < GCB_PAT_SLOTS; s++) {
    if (r->ops && r->slots[s].comm)
      r->ops->close(r->slots[s].comm);
    if (r->slots[s].mpi != MPI_COMM_NULL && r->slots[s].mpi != 0)
      (void)MPI_Comm_free(&r->slots[s].mpi); /* nothing to do if it fails */
  }
  gcb__pat_prog_free(&r->prog);
  memset(r, 0, sizeof *r);
  for (int s = 0; s < GCB_PAT_SLOTS; s++)
    r->slots[s].mpi = MPI_COMM_NULL;
}
