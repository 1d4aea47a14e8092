/*
 * The `report` and `compare` commands. They read results documents and
 * need no MPI communication: started under mpiexec, every rank does the
 * same reading and analysis (so every rank returns the same exit code) and
 * only rank 0 writes files and prints. Run them as a single process:
 * `gcbench report run.json -o out/`.
 *
 * Exit codes: 0 all pass, 1 a failure-level finding or a regression,
 * 2 bad usage or input (bad JSON as "file:line:column: problem"),
 * 3 a runtime error (writing the report, memory).
 */
#ifndef GCB_REPORT_COMMAND_H
#define GCB_REPORT_COMMAND_H

/* gcbench report RESULTS.json [MORE.json ...] -o DIR [--baseline OLD.json]
 *                [--criteria SPEC.json] [--png]
 * argv[0] is "report"; rank is the world rank (prints only on rank 0). */
int gcb__report_command(int argc, char **argv, int rank);

/* gcbench compare OLD.json NEW.json [--threshold PCT] [--noise-sigmas K]
 * argv[0] is "compare". */
int gcb__compare_command(int argc, char **argv, int rank);

#endif
