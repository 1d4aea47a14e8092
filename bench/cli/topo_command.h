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

#endif
