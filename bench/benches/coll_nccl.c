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

enum gcb_status gcb__coll_nccl_validate(const struct coll_opts *o,
                                        struct gcb_err *err) {
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
    if (o->nccl[i] != strtol(refused[i].def, NULL, 10))
      return gcb_err_set(err, GCB_EUSAGE, "-%c/--%s %ld: not supported: %s",
                         refused[i].letter, refused[i].name, o->nccl[i],
                         refused[i].instead);
  if (o->cycles == 0)
    return gcb_err_set(err, GCB_EUSAGE,
                       "-N/--run_cycles 0 (run until interrupted) is not "
                       "supported: the results document keeps every cycle; "
                       "give a count, e.g. -N 1000");
  return GCB_OK;
}

/* nccl-tests' programs (its src/Makefile's list) and the collective each
 * is; gather, scatter, hypercube and alltoallv have no collective here. */
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
};

const char *gcb__coll_nccl_program(const char *name) {
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  for (size_t i = 0; i < sizeof programs / sizeof *programs; i++)
    if (strcmp(programs[i].program, base) == 0)
      return programs[i].collective;
  return NULL;
}

const char *gcb__coll_nccl_program_at(size_t i) {
  return i < sizeof programs / sizeof *programs ? programs[i].program : NULL;
}
