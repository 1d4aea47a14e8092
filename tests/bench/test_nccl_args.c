/*
 * nccl-tests' command line in coll: real command lines from public scripts
 * (sources in tests/data/nccl/README.md) parse against coll's table as
 * nccl-tests parses them (src/common.cu 2.19.6), each letter into the
 * quantity nccl-tests gives it; what has no meaning here is refused by
 * coll's check with the command that replaces it.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/benches/coll.h"
#include "bench/run/harness.h"

struct parsed {
  struct gcb_run_opts run;
  struct coll_opts coll;
  enum gcb_status st;
  struct gcb_err err;
};

/* Parses `line` (words split on blanks) as the program all_reduce_perf
 * would get it: run options and coll's table together. */
static void parse(const char *line, bool program, struct parsed *p) {
  memset(p, 0, sizeof *p);
  static char buf[512];
  snprintf(buf, sizeof buf, "%s", line);
  char *argv[64];
  int argc = 0;
  argv[argc++] = "coll";
  if (program) {
    argv[argc++] = "--program";
    argv[argc++] = "all_reduce_perf";
  }
  for (char *save, *w = strtok_r(buf, " ", &save); w && argc < 63;
       w = strtok_r(NULL, " ", &save))
    argv[argc++] = w;
  argv[argc] = NULL;
  const struct gcb_bench *coll = gcb_bench_find("coll");
  cr_assert_not_null(coll);
  struct gcb_option_group groups[] = {{"run options", gcb_run_options, &p->run},
                                      {"coll", coll->options, &p->coll}};
  bool help = false;
  p->st =
      gcb_options_parse(groups, 2, argc, argv, &help, NULL, 0, NULL, &p->err);
  if (p->st == GCB_OK)
    p->st = gcb__coll_nccl_validate(&p->coll, 8, &p->err);
}

#define MIB (UINT64_C(1) << 20)

/* FlagOpen/FlagPerf base/toolkits/interconnect-MPI_intraserver/denglin/
 * GS40/main.sh */
Test(nccl_args, flagperf_line_sets_sizes_type_and_op) {
  struct parsed p;
  parse("-t 1 -g 1 -b 2M -e 32M -d float -o sum", true, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.minbytes, 2 * MIB);
  cr_assert_eq(p.coll.maxbytes, 32 * MIB);
  cr_assert_eq(p.coll.redops, 1u << GCB_REDOP_SUM);
  cr_assert_eq(p.coll.dtypes, 1u << GCB_COLL_FLOAT);
}

/* aistabci/abci2.0benchmark allreduce/nccl_anode.sh */
Test(nccl_args, abci_line_sets_factor_and_iterations) {
  struct parsed p;
  parse("-t 1 -g 1 -b 4 -e 32M -f 2 -n 100", true, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.minbytes, 4);
  cr_assert_float_eq(p.coll.stepfactor, 2.0, 1e-12);
  cr_assert_eq(p.run.iters, 100);
}

/* NVIDIA/nccl#2441: srun ... ./all_reduce_perf -b 500000 -e 1500000
 * -i 100000 (the log of tests/data/nccl) */
Test(nccl_args, issue_2441_line_steps_by_bytes) {
  struct parsed p;
  parse("-b 500000 -e 1500000 -i 100000", true, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.stepbytes, 100000);
  cr_assert_eq(p.coll.minbytes, 500000);
}

/* NVIDIA/nccl-tests README.md: the MPI example (-N there is mpirun's) */
Test(nccl_args, readme_mpi_line_runs) {
  struct parsed p;
  parse("-b 8 -e 8G -f 2 -g 1", true, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.maxbytes, 8192 * MIB);
}

/* NVIDIA/nccl-tests README.md: one process driving 8 GPUs */
Test(nccl_args, readme_eight_gpus_per_process_is_refused_with_mpiexec) {
  struct parsed p;
  parse("-b 8 -e 128M -f 2 -g 8", true, &p);
  cr_assert_eq(p.st, GCB_EUSAGE);
  cr_assert(strstr(p.err.msg, "-g/--ngpus 8") != NULL, "%s", p.err.msg);
  cr_assert(strstr(p.err.msg, "mpiexec -n 64 all_reduce_perf") != NULL, "%s",
            p.err.msg);
}

/* empovit/nvidia-tools nccl-tests/README.md */
Test(nccl_args, nvidia_tools_line_is_refused_for_its_two_gpus_only) {
  struct parsed p;
  parse("-g 2 -c 0 -n 100 -w 20", true, &p);
  cr_assert_eq(p.st, GCB_EUSAGE);
  cr_assert(strstr(p.err.msg, "mpiexec -n 16") != NULL, "%s", p.err.msg);
  parse("-g 1 -c 0 -n 100 -w 20", true, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.check, 0);
  cr_assert_eq(p.run.warmup, 20);
}

/* Every letter nccl-tests has, with its long name, lands where it means
 * the same; none means anything else. */
Test(nccl_args, letters_mean_what_they_mean_in_nccl_tests) {
  struct parsed p;
  parse("-o prod -r 1 -N 2 -c 3 -a 2 -z 1 -m 4 -p 1 -T 30 -J r.json -I 1 "
        "-K 2",
        false, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.redops, 1u << GCB_REDOP_PROD);
  cr_assert_eq(p.coll.root, 1);
  cr_assert_eq(p.coll.cycles, 2);
  cr_assert_eq(p.coll.check, 3);
  cr_assert_eq(p.coll.average, 2);
  cr_assert_eq(p.coll.blocking, 1);
  cr_assert_eq(p.coll.agg, 4);
  cr_assert_float_eq(p.run.timeout, 30.0, 1e-12);
  /* -J is nccl-tests' JSON document; gcbench's own is --output's */
  cr_assert_str_eq(p.coll.json, "r.json");
  cr_assert_null(p.run.output);
  cr_assert_eq(p.coll.per_iter, 1);
  cr_assert_eq(p.coll.per_iter_skip, 2);
  parse("--op max --root 2 --run_cycles 3 --check 0 --average 0 "
        "--blocking 3 --agg_iters 2 --iters 7 --warmup_iters 4 "
        "--datatype all --output_file s.json --nthreads 1 --ngpus 1 "
        "--per_iter_timing 1 --per_iter_skip 1",
        false, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.redops, 1u << GCB_REDOP_MAX);
  cr_assert_eq(p.coll.root, 2);
  cr_assert_eq(p.coll.cycles, 3);
  cr_assert_eq(p.run.iters, 7);
  cr_assert_eq(p.run.warmup, 4);
  cr_assert_eq(p.coll.dtypes, (1u << GCB_COLL_DTYPE_COUNT) - 1);
  cr_assert_str_eq(p.coll.json, "s.json");
  cr_assert_eq(p.coll.per_iter_skip, 1);
}

/* The options nccl-tests has that mean nothing here: refused, naming what
 * to do instead, never ignored. */
Test(nccl_args, meaningless_options_are_refused_not_ignored) {
  const char *lines[] = {"-y 1", "-G 10", "-C 1", "-S 1", "-R 1", "-x 0",
                         "-D 1", "-V 8",  "-M 1", "-u 1", "-t 2", "-N 0"};
  for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
    struct parsed p;
    parse(lines[i], true, &p);
    cr_assert_eq(p.st, GCB_EUSAGE, "%s was accepted", lines[i]);
    cr_assert(strstr(p.err.msg, "not supported") != NULL, "%s: %s", lines[i],
              p.err.msg);
  }
}

/* -K without -I 1, and -I other than 0 or 1, are refused (nccl-tests
 * disables them with a warning; here nothing given is ignored). */
Test(nccl_args, per_iteration_skip_needs_per_iteration_timing) {
  struct parsed p;
  parse("-K 2", true, &p);
  cr_assert_eq(p.st, GCB_EUSAGE);
  cr_assert(strstr(p.err.msg, "needs -I 1") != NULL, "%s", p.err.msg);
  parse("-I 2", true, &p);
  cr_assert_eq(p.st, GCB_EUSAGE, "-I 2 was accepted");
}

/* gcbench's run options no longer take nccl-tests' letters -o and -N. */
Test(nccl_args, the_results_document_is_named_by_output_only) {
  struct parsed p;
  parse("--output doc.json -N 2", false, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_str_eq(p.run.output, "doc.json");
  cr_assert_eq(p.run.iters, 10, "-N is run_cycles, not --iters");
}
