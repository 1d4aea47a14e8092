/*
 * What a command that runs without MPI (the report tool, `--help`) knows
 * of the launch: the rank the launcher gave this process, so that under
 * `mpiexec -n 4 gcbench report ...` the messages are still printed once.
 */
#ifndef GCB_LAUNCHER_H
#define GCB_LAUNCHER_H

/* The launcher's rank of this process from its environment: PMI_RANK
 * (MPICH's Hydra, Intel MPI), PMIX_RANK (PMIx: Open MPI 5, Slurm),
 * OMPI_COMM_WORLD_RANK (Open MPI), SLURM_PROCID (srun); the first that is
 * a non-negative integer, else 0. Never fails. */
int gcb_launcher_rank(void);

#endif
