/*
 * coll as nccl-tests: the options nccl-tests has that mean nothing here
 * (refused unless left at their default, with what to do instead) and the
 * program names nccl-tests ships (all_reduce_perf ...), each the one
 * collective gcbench runs under that name. Sources: NVIDIA/nccl-tests
 * 2.19.6 (commit a0b82b2), src/common.cu (option table) and src/Makefile.
 */
#include <stdlib.h>
#include <string.h>

#include "bench/benches/coll.h"

struct refused {
  const char *name, *def, *instead;
  char letter;
};

static const struct refused refused[] = {
#define GCB__REFUSED(i, name, letter, def, help, instead)                      \
  {name, def, instead, letter},
    GCB_COLL_NCCL_LIST(GCB__REFUSED)
#undef GCB__REFUSED
};

/* -t/-g N: the command that gives every GPU its own process instead. */
static enum gcb_status per_process(const struct coll_opts *o, size_t i,
                                   int nranks, struct gcb_err *err) {
  long gpus, procs;
  if (__builtin_mul_overflow(o->nccl[0], o->nccl[1], &gpus) ||
      __builtin_mul_overflow(gpus, (long)nranks, &procs))
    return gcb_err_set(err, GCB_EUSAGE,
                       "-%c/--%s %ld: not supported: gcbench drives one GPU "
                       "per process (-t 1 -g 1)",
                       refused[i].letter, refused[i].name, o->nccl[i]);
  return gcb_err_set(err, GCB_EUSAGE,
                     "-%c/--%s %ld: not supported: gcbench drives one GPU "
                     "per process; run %ld process(es) per one here "
                     "instead: mpiexec -n %ld %s ... -t 1 -g 1",
                     refused[i].letter, refused[i].name, o->nccl[i], gpus,
                     procs, o->program ? o->program : "gcbench coll");
}

enum gcb_status gcb__coll_nccl_validate(const struct coll_opts *o, int nranks,
                                        struct gcb_err *err) {
  for (size_t i = 0; i < 2; i++)
    if (o->nccl[i] < 1)
      return gcb_err_set(err, GCB_EUSAGE, "-%c/--%s %ld: must be 1",
                         refused[i].letter, refused[i].name, o->nccl[i]);
  for (size_t i = 0; i < 2; i++)
    if (o->nccl[i] != 1)
      return per_process(o, i, nranks, err);
  for (size_t i = 2; i < sizeof refused / sizeof *refused; i++)
    if (o->nccl[i] != strtol(refused[i].def, NULL, 10))
      return gcb_err_set(err, GCB_EUSAGE, "-%c/--%s %ld: not supported: %s",
                         refused[i].letter, refused[i].name, o->nccl[i],
                         refused[i].instead);
  if (o->per_iter_skip > 0 && o->per_iter != 1)
    return gcb_err_set(err, GCB_EUSAGE,
                       "-K/--per_iter_skip %ld: needs -I 1 (per-iteration "
                       "timing), as in nccl-tests",
                       o->per_iter_skip);
  if (o->cycles == 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "-N/--run_cycles 0 (run until interrupted) is not "
                       "supported: the results document keeps every cycle; "
                       "give a count, e.g. -N 1000");
  return GCB_OK;
}

/* nccl-tests' programs (its src/Makefile's list) and the collective each
 * is; hypercube and alltoallv have no collective here. */
static const struct {
  const char *program, *collective;
} programs[] = {
    {"all_reduce_perf", "allreduce"},
    {"all_gather_perf", "allgather"},
    {"reduce_scatter_perf", "reducescatter"},
    {"broadcast_perf", "broadcast"},
    {"reduce_perf", "reduce"},
    {"alltoall_perf", "alltoall"},
    {"sendrecv_perf", "sendrecv"},
    {"gather_perf", "gather"},
    {"scatter_perf", "scatter"},
};

/* nccl-tests' Makefile names them with NAME_SUFFIX, e.g. all_reduce_perf_mpi
 * (its README): that suffix is the same program. */
const char *gcb__coll_nccl_program(const char *name) {
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  size_t len = strlen(base);
  if (len > 4 && strcmp(base + len - 4, "_mpi") == 0)
    len -= 4;
  for (size_t i = 0; i < sizeof programs / sizeof *programs; i++)
    if (strlen(programs[i].program) == len &&
        strncmp(programs[i].program, base, len) == 0)
      return programs[i].collective;
  return NULL;
}
