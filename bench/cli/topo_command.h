/*
 * `gcbench topo`: the machine's GPUs, NICs and the paths between them, in
 * the style of `nvidia-smi topo -m`, with suspicious facts and (given
 * --cpuset) binding problems and their fixes; or the same as JSON.
 */
#ifndef GCB_TOPO_COMMAND_H
#define GCB_TOPO_COMMAND_H

/*
 * The command's entry point (argv[0] is "topo"). Parses on every rank; only
 * rank 0 loads and prints, other ranks return 0 after a good parse. Uses no
 * MPI calls. Returns the exit code: 0 done, 1 binding problems found, 2 bad
 * usage or input, 3 runtime error.
 */
int gcb__topo_command(int argc, char **argv, int rank);

/* ---- internal: --cpuset, for its tests and fuzz/ ----------------------- */

#include "common/status.h"
#include "topo/topo.h"

/* The ranks --cpuset names ("LIST[@GPU];..."), in order. */
struct gcb__rankset {
  struct gcb_topo_rank *ranks;
  int n;
  char *text; /* the option's copy that ranks[].cpus point into */
};

/*
 * Parses --cpuset's text for a machine of ngpus GPUs (a rank without @GPU
 * takes GPU rank % ngpus, or none). The CPU lists are checked later, by
 * the binding check (gcb_topo_check_ranks). GCB_EUSAGE with one line (a
 * bad GPU, no rank), GCB_ENOMEM; rs is freed with gcb__rankset_free, also
 * after failure (zeroed by the caller).
 */
enum gcb_status gcb__topo_cpuset_parse(const char *text, int ngpus,
                                       struct gcb__rankset *rs,
                                       struct gcb_err *err);

void gcb__rankset_free(struct gcb__rankset *rs);

#endif
