/*
 * What progress.c and progress_srun.c share, and what their tests reach:
 * finding the srun that launched this rank when it runs on this machine.
 */
#ifndef GCB_PROGRESS_INT_H
#define GCB_PROGRESS_INT_H

#include <stdbool.h>

/* The pid of the process holding the socket that SLURM_SRUN_COMM_PORT
 * names, when it listens on this machine; else 0 (not under srun, srun on
 * another machine, or nothing readable). The caller checks its name. */
long gcb__progress_srun_pid(void);

/* The inode of the socket listening on TCP port `port` in `table`, the
 * text of /proc/net/tcp or /proc/net/tcp6; 0 when none. */
unsigned long gcb__progress_listen_inode(const char *table, unsigned port);

#endif
