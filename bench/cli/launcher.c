/*
 * The launcher's rank of a process that does not start MPI (launcher.h).
 */
#include "bench/cli/launcher.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

int gcb_launcher_rank(void) {
  static const char *const names[] = {"PMI_RANK", "PMIX_RANK",
                                      "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    const char *v = getenv(names[i]);
    char *end = NULL;
    if (v == NULL || *v == '\0')
      continue;
    errno = 0;
    long r = strtol(v, &end, 10);
    if (errno == 0 && *end == '\0' && r >= 0 && r <= INT_MAX)
      return (int)r;
  }
  return 0;
}
