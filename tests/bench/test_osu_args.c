/*
 * OSU's command line as gcbench takes it (bench/benches/osu_options.c): the
 * program table is sound (unique names, every runnable program a
 * collective of the table, every other refused with a reason), real OSU
 * command lines from public scripts and OSU's README (tests/data/osu)
 * parse with OSU's dialect of the option table into coll's and the
 * harness's own fields and mean what OSU means (sizes, OSU 7.4's per-size
 * iteration defaults, -i/-x for every size, -f, -c, -T, -d), each OSU flag
 * is one row, the echo is what ran, and the rest is refused with one line.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/benches/coll.h"
#include "bench/benches/osu_options.h"
#include "bench/run/harness.h"
#include "bench/run/table.h"
#include "collectives/comm.h"

struct parsed {
  struct gcb_run_opts run;
  struct coll_opts coll;
  struct gcb_osu_cmd cmd;
  struct gcb_option_group groups[GCB_OSU_NGROUPS];
  struct gcb_option_dialect osu;
  enum gcb_status st;
  struct gcb_err err;
  int action;
};

/* The last command line's words: the parsed options point into them, so
 * they live until the next parse or the test's end. */
static char buf[512];

TestSuite(osu_args);

/* Parses `line` ("osu_latency -m 8:64 ...", words split on blanks) on
 * `nranks` ranks with OSU's rows, as commands.c does, then coll's OSU
 * checks. */
static void translate(const char *line, int nranks, struct parsed *p) {
  memset(p, 0, sizeof *p);
  snprintf(buf, sizeof buf, "%s", line);
  char *argv[64];
  int argc = 0;
  for (char *save, *w = strtok_r(buf, " ", &save); w && argc < 63;
       w = strtok_r(NULL, " ", &save))
    argv[argc++] = w;
  argv[argc] = NULL;
  const struct gcb_osu_program *prog = gcb__osu_program(argv[0]);
  cr_assert_not_null(prog, "%s", argv[0]);
  p->cmd = (struct gcb_osu_cmd){.p = prog, .nranks = nranks};
  gcb__osu_groups(&p->cmd, &p->run, &p->coll, p->groups, &p->osu);
  bool help = false;
  p->st = gcb__osu_parse(&p->osu, p->groups, argc, argv, &help, &p->err);
  p->action = help ? 1 : p->cmd.version ? 2 : 0;
  if (p->st == GCB_OK && p->action == 0)
    p->st = gcb__coll_osu_validate(&p->coll, &p->err);
}

/* The iterations and warm-up coll runs for an OSU size under p. */
static void iters_at(const struct parsed *p, uint64_t size, long *iters,
                     long *warmup) {
  *iters = p->run.iters; /* the harness's: every size up to 8192 bytes */
  *warmup = p->run.warmup;
  gcb__coll_osu_iters(&p->coll, size, iters, warmup);
}

Test(osu_args, the_program_table_is_sound) {
  size_t n = 0;
  for (const struct gcb_osu_program *p; (p = gcb__osu_program_at(n)); n++) {
    cr_assert(strncmp(p->name, "osu_", 4) == 0, "%s", p->name);
    cr_assert(p->title && strstr(p->title, "Test") != NULL, "%s", p->name);
    cr_assert((p->op == NULL) != (p->refused == NULL),
              "%s: a collective or a reason, not both", p->name);
    if (p->op)
      cr_assert_not_null(gcb_coll_find(p->op), "%s: %s", p->name, p->op);
    for (size_t j = 0; j < n; j++)
      cr_assert_str_neq(gcb__osu_program_at(j)->name, p->name);
    cr_assert_eq(gcb__osu_program(p->name), p);
  }
  cr_assert_geq(n, 11);
  /* a path names the same program; nccl-tests' names are not OSU's */
  cr_assert_str_eq(gcb__osu_program("/opt/omb/pt2pt/osu_latency")->op,
                   "latency");
  cr_assert_null(gcb__osu_program("all_reduce_perf"));
  cr_assert_null(gcb__osu_program("osu_latencyx"));
}

/* osu_util.h 7.4: LAT/BW/COLL loops and skips, small and large. */
Test(osu_args, defaults_are_osu_7_4s) {
  long i, w;
  gcb__osu_defaults(GCB_OSU_LAT, false, &i, &w);
  cr_assert(i == 10000 && w == 100);
  gcb__osu_defaults(GCB_OSU_LAT, true, &i, &w);
  cr_assert(i == 1000 && w == 10);
  gcb__osu_defaults(GCB_OSU_BW, false, &i, &w);
  cr_assert(i == 100 && w == 10);
  gcb__osu_defaults(GCB_OSU_BW, true, &i, &w);
  cr_assert(i == 20 && w == 2);
  gcb__osu_defaults(GCB_OSU_COLL, false, &i, &w);
  cr_assert(i == 1000 && w == 100);
  gcb__osu_defaults(GCB_OSU_COLL, true, &i, &w);
  cr_assert(i == 100 && w == 10);
}

/* aws/aws-parallelcluster osu_pt2pt_submit_openmpi.sh: plain osu_latency */
Test(osu_args, plain_osu_latency_is_osus_latency_test) {
  struct parsed p;
  translate("osu_latency", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.ops, 1u << GCB_COLLOP_LATENCY);
  cr_assert_eq(p.coll.minbytes, 1); /* 0 has no element: 7.4 skips it */
  cr_assert_eq(p.coll.maxbytes, UINT64_C(1) << 22);
  cr_assert_float_eq(p.coll.stepfactor, 2.0, 1e-12);
  cr_assert_eq(p.coll.blocking, 4, "each round trip timed alone, summed");
  cr_assert_eq(p.coll.average, 0, "rank 0's figure");
  cr_assert_eq(p.coll.placement, 1, "out of place: separate buffers");
  cr_assert_eq(p.coll.check, 0, "OSU validates only with -c");
  cr_assert_eq(p.coll.layout, 2);
  cr_assert_str_eq(p.run.backend, "host");
  long i, w;
  iters_at(&p, 8192, &i, &w);
  cr_assert(i == 10000 && w == 100, "%ld %ld", i, w);
  iters_at(&p, 8193, &i, &w);
  cr_assert(i == 1000 && w == 10, "%ld %ld", i, w);
}

/* shyhuai/dl_scheduling network_contention/osu_mpi.sh */
Test(osu_args, dl_scheduling_line_sets_one_size_and_every_sizes_iterations) {
  struct parsed p;
  translate("osu_allreduce -m 65536:65536 -i 1000", 4, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.ops, 1u << GCB_COLLOP_ALLREDUCE);
  cr_assert(p.coll.minbytes == 65536 && p.coll.maxbytes == 65536);
  cr_assert_eq(p.coll.blocking, 3, "barrier outside the timed region");
  cr_assert_eq(p.coll.average, 1, "the mean over ranks");
  cr_assert_eq(p.coll.dtypes, 1u << GCB_COLL_INT8, "MPI_CHAR");
  long i, w;
  iters_at(&p, 65536, &i, &w);
  cr_assert(i == 1000 && w == 10, "-i sets both, -x left: %ld %ld", i, w);
  iters_at(&p, 8, &i, &w);
  cr_assert(i == 1000 && w == 100);
}

/* nwtnni/collective experiments/wisc-c220g5/allreduce-cxl-diff-numa */
Test(osu_args, collective_line_sets_full_statistics_and_float) {
  struct parsed p;
  translate("osu_allreduce --full --type mpi_float", 8, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.layout, 3, "osu-full");
  cr_assert_eq(p.coll.dtypes, 1u << GCB_COLL_FLOAT);
  cr_assert_eq(p.coll.minbytes, 4, "1 and 2 bytes hold no float: skipped");
  cr_assert_eq(p.coll.maxbytes, UINT64_C(1) << 20);
  translate("osu_allreduce -T all -c -x 3", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.dtypes, (1u << GCB_COLL_INT8) | (1u << GCB_COLL_INT32) |
                                  (1u << GCB_COLL_FLOAT));
  cr_assert_eq(p.coll.check, 1);
  long i, w;
  iters_at(&p, 1 << 20, &i, &w);
  cr_assert(i == 100 && w == 3, "%ld %ld", i, w);
}

/* OSU's README: osu_latency D D (device buffers on both ranks), and
 * -d cuda for collectives */
Test(osu_args, device_buffers_select_the_cuda_backend) {
  struct parsed p;
  translate("osu_latency D D", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_str_eq(p.run.backend, "cuda");
  translate("osu_alltoall -d cuda -m 1:1024", 4, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_str_eq(p.run.backend, "cuda");
  /* alltoall's OSU size is each rank's block: nccl-tests' S is 4 times it */
  cr_assert(p.coll.minbytes == 4 && p.coll.maxbytes == 4096);
  cr_assert_eq(gcb__osu_size("alltoall", 4096, 4), 1024);
  cr_assert_eq(gcb__osu_size("allreduce", 4096, 4), 4096);
  translate("osu_latency -d host", 2, &p);
  cr_assert_str_eq(p.run.backend, "host");
}

Test(osu_args, message_sizes_as_osus_set_message_size) {
  struct parsed p;
  translate("osu_bw -m 128", 2, &p);
  cr_assert(p.coll.minbytes == 1 && p.coll.maxbytes == 128);
  translate("osu_bw -m 2:128", 2, &p);
  cr_assert(p.coll.minbytes == 2 && p.coll.maxbytes == 128);
  translate("osu_bw -m 2:", 2, &p);
  cr_assert(p.coll.minbytes == 2 && p.coll.maxbytes == UINT64_C(1) << 22);
  translate("osu_bw -m :64", 2, &p);
  cr_assert(p.coll.minbytes == 1 && p.coll.maxbytes == 64);
  translate("osu_bw --message-size=8:16 --iterations=5 --warmup=0", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  long i, w;
  iters_at(&p, 16, &i, &w);
  cr_assert(i == 5 && w == 0);
}

/* osu_bibw.c 7.4: two processes, a window of 64 (-W) both ways, each
 * window timed alone on rank 0 and summed, BW's iteration defaults;
 * ukri-excalibur/excalibur-tests' job runs it plain (command-lines.txt). */
Test(osu_args, osu_bibw_is_the_bidirectional_window) {
  struct parsed p;
  translate("osu_bibw", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.ops, 1u << GCB_COLLOP_BIBW);
  cr_assert_eq(p.coll.blocking, 4, "each window timed alone, summed");
  cr_assert_eq(p.coll.average, 0, "rank 0's figure");
  cr_assert_eq(p.coll.layout, 2, "osu");
  cr_assert_eq(p.coll.window, 0, "the pattern's 64");
  cr_assert(p.coll.minbytes == 1 && p.coll.maxbytes == UINT64_C(1) << 22);
  long i, w;
  iters_at(&p, 8192, &i, &w);
  cr_assert(i == 100 && w == 10, "BW_LOOP_SMALL, BW_SKIP_SMALL");
  iters_at(&p, 16384, &i, &w);
  cr_assert(i == 20 && w == 2, "BW_LOOP_LARGE, BW_SKIP_LARGE");
  translate("osu_bibw -W 16 -m 8:64 -i 7 -x 3", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.window, 16);
  iters_at(&p, 64, &i, &w);
  cr_assert(i == 7 && w == 3);
  translate("osu_bw --window-size=8", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.window, 8, "osu_bw takes -W as OSU's does");
}

/* osu_multi_lat.c 7.4: n/2 pairs (i, i + n/2) at once, a barrier before
 * each round trip, outside the timed region, the mean over the senders
 * (its barrier_comm's reduce) of the summed round trips / 2. */
Test(osu_args, osu_multi_lat_is_latency_over_every_pair) {
  struct parsed p;
  translate("osu_multi_lat -m 1:1024", 4, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.ops, 1u << GCB_COLLOP_LATENCY);
  cr_assert_eq(p.coll.blocking, 3, "barrier before each, outside the time");
  cr_assert_eq(p.coll.average, 4, "mean over the pairs' initiators");
  cr_assert_eq(p.coll.layout, 4, "osu-multi");
  cr_assert_str_eq(p.coll.split, "none");
  long i, w;
  iters_at(&p, 8, &i, &w);
  cr_assert(i == 10000 && w == 100, "LAT_LOOP_SMALL, LAT_SKIP_SMALL");
  iters_at(&p, 16384, &i, &w);
  cr_assert(i == 1000 && w == 10);
  cr_assert_eq(gcb__osu_program_multi("latency"),
               gcb__osu_program("osu_multi_lat"));
  cr_assert_eq(gcb__osu_program_of("latency"), gcb__osu_program("osu_latency"),
               "the plain layout stays osu_latency's");
}

/* osu_mbw_mr.c 7.4: n/2 senders with a window each (-W), a barrier
 * before each window, the pairs' sum; -p only as n/2. */
Test(osu_args, osu_mbw_mr_is_every_pairs_window) {
  struct parsed p;
  translate("osu_mbw_mr -W 32 -p 2 -R 1", 4, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.ops, 1u << GCB_COLLOP_BANDWIDTH);
  cr_assert_eq(p.coll.blocking, 3);
  cr_assert_eq(p.coll.average, 4);
  cr_assert_eq(p.coll.layout, 4, "osu-multi");
  cr_assert_eq(p.coll.window, 32);
  long i, w;
  iters_at(&p, 8, &i, &w);
  cr_assert(i == 100 && w == 10, "BW's defaults");
  translate("osu_mbw_mr", 3, &p); /* the odd last rank sits out, as OSU */
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert(gcb__osu_is_mbw_mr(gcb__osu_program("osu_mbw_mr")));
  cr_assert(!gcb__osu_is_mbw_mr(gcb__osu_program("osu_bw")));
  char buf[128];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  gcb__osu_version(gcb__osu_program("osu_mbw_mr"), true, f);
  fclose(f);
  cr_assert_str_eq(buf,
                   "# OSU MPI Multiple Bandwidth / Message Rate Test "
                   "v7.4\n",
                   "its HEADER has no accelerator");
}

/* -a 4: osu_multi_lat's and osu_mbw_mr's figure is the mean over the
 * senders (ranks below n/2), not over every rank: the responders' times
 * (here 10 and 20) do not count. */
Test(osu_args, the_multi_pair_figure_is_the_initiators_mean) {
  struct gcb_rank_result ranks[4] = {{.rank = 0, .time_s = 1},
                                     {.rank = 1, .time_s = 2},
                                     {.rank = 2, .time_s = 10},
                                     {.rank = 3, .time_s = 20}};
  struct gcb_record rec = {.nranks = 4, .ranks = ranks};
  cr_assert_float_eq(gcb__table_initiators_mean(&rec), 1.5, 1e-12);
  rec.nranks = 3; /* the odd last rank sits out: rank 0 is the one sender */
  cr_assert_float_eq(gcb__table_initiators_mean(&rec), 1.0, 1e-12);
  rec.nranks = 1;
  cr_assert_float_eq(gcb__table_initiators_mean(&rec), 1.0, 1e-12);
}

/* OSU -z (osu_util.c 7.4): alone P50, P90 and P99; -zLIST those
 * percentiles; coll's --tail-lat carries them. Failed before: -z was
 * refused. */
Test(osu_args, tail_latency_percentiles_as_osu_reads_them) {
  struct parsed p;
  translate("osu_latency -z", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_str_eq(p.coll.tail_lat, "50,90,99");
  translate("osu_allreduce -f -z50,99", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_str_eq(p.coll.tail_lat, "50,99");
  translate("osu_allreduce --tail-lat=95", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_str_eq(p.coll.tail_lat, "95");
}

/* The one line a refused command line gets. */
static void refused(const char *line, int nranks, const char *words) {
  struct parsed p;
  translate(line, nranks, &p);
  cr_assert_eq(p.st, GCB_EUSAGE, "%s: accepted", line);
  cr_assert(strstr(p.err.msg, words) != NULL, "%s: %s", line, p.err.msg);
  cr_assert(strncmp(p.err.msg, line, strcspn(line, " ")) == 0,
            "names the program: %s", p.err.msg);
  cr_assert_null(strchr(p.err.msg, '\n'), "%s", p.err.msg);
}

Test(osu_args, what_osu_means_and_gcbench_cannot_do_is_refused) {
  refused("osu_latency -m 0:8", 2, "Invalid Message Size");
  refused("osu_latency -m -4", 2, "Invalid Message Size");
  refused("osu_latency -m 8:x", 2, "Invalid Message Size");
  refused("osu_latency -i 0", 2, "-i '0'");
  refused("osu_latency -x -1", 2, "-x '-1'");
  refused("osu_latency -f", 2, "not an option of osu_latency");
  refused("osu_bw D H", 2, "both buffers in one place");
  refused("osu_latency -T mpi_int", 2, "mpi_char only");
  refused("osu_allreduce -T mpi_double", 2, "-T/--type 'mpi_double'");
  refused("osu_allreduce -d managed", 2, "-d/--accelerator 'managed'");
  refused("osu_allreduce --validation=log:dir", 2, "validation logs");
  refused("osu_allreduce -M 1000", 2, "-M: not supported");
  refused("osu_bw -z", 2, "-z: not supported");
  refused("osu_mbw_mr -z", 2, "-z: not supported");
  refused("osu_multi_lat -z", 2, "-z: not supported");
  refused("osu_allreduce extra", 2, "unexpected argument 'extra'");
  refused("osu_bw -W 0", 2, "-W '0'");
  refused("osu_latency -W 32", 2, "unknown option");
  refused("osu_multi_lat -W 32", 2, "unknown option");
  refused("osu_bibw -p 1", 2, "unknown option");
  refused("osu_bibw -f", 2, "not an option of osu_bibw");
  refused("osu_bibw", 4, "exactly two processes");
  refused("osu_multi_lat", 3, "even number of processes");
  refused("osu_multi_lat", 1, "at least two processes");
  refused("osu_mbw_mr", 1, "at least two processes");
  refused("osu_mbw_mr -p 1", 4, "-p 1: OSU 7.4 runs n/2 = 2 pairs");
  refused("osu_mbw_mr -R 0", 2, "Messages/s");
  refused("osu_mbw_mr -V", 2, "-V: no varied-window table");
  refused("osu_latency -Y", 2, "unknown option -Y"); /* the parser's words */
  refused("osu_latency -m", 2, "needs a value");
  refused("osu_latency", 4, "exactly two processes");
}

/* wu-kan/wu-kan.github.io _posts/2021-03-07-osu-micro-benchmarks.md
 * (run_osu.sh: plain osu_gather and osu_scatter on 8 ranks): OSU's size
 * is each rank's block, MPI_CHAR, a barrier outside the timed region. */
Test(osu_args, gather_and_scatter_are_osus_with_per_rank_sizes) {
  struct parsed p;
  translate("osu_gather", 8, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.ops, 1u << GCB_COLLOP_GATHER);
  /* 1 B to 1 MiB per rank: nccl-tests' S is 8 times it */
  cr_assert(p.coll.minbytes == 8 && p.coll.maxbytes == UINT64_C(8) << 20);
  cr_assert_eq(gcb__osu_size("gather", 8192, 8), 1024);
  cr_assert_eq(gcb__osu_size("scatter", 8192, 8), 1024);
  cr_assert_eq(p.coll.blocking, 3);
  cr_assert_eq(p.coll.average, 1);
  cr_assert_eq(p.coll.root, 0, "OSU's default root: fixed:0");
  translate("osu_scatter -m 16:64 -f -c", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.ops, 1u << GCB_COLLOP_SCATTER);
  cr_assert(p.coll.minbytes == 32 && p.coll.maxbytes == 128);
  cr_assert(p.coll.layout == 3 && p.coll.check == 1);
  /* -k fixed:N is the root (osu_util.c 7.4); reduce takes it too */
  translate("osu_gather -k fixed:1", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.root, 1);
  translate("osu_reduce --root-rank=FIXED:2", 4, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.root, 2);
  refused("osu_scatter -k rotate", 2, "-k rotate: not supported");
  refused("osu_scatter -k fixed:2", 2, "Root rank('-k') cannot be more");
  refused("osu_gather -k 1", 2, "expected fixed:N or rotate");
  refused("osu_bcast -k fixed:1", 2, "-k: not supported");
}

/* osu_barrier.c 7.4: no message; each barrier timed alone and summed (no
 * barrier around it), the mean over ranks; OSU_COLL's 1000 / 100.
 * UNINETTSigma2/documentation jobs/arm-perf/osu.md: osu_barrier -i 100000 */
Test(osu_args, barrier_is_osus_barrier_loop) {
  struct parsed p;
  translate("osu_barrier -i 100000", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  cr_assert_eq(p.coll.ops, 1u << GCB_COLLOP_BARRIER);
  cr_assert_eq(p.coll.blocking, 4, "each barrier timed alone, summed");
  cr_assert_eq(p.coll.average, 1, "the mean over ranks");
  cr_assert_eq(p.coll.check, 0);
  long i, w;
  iters_at(&p, 0, &i, &w);
  cr_assert(i == 100000 && w == 100, "%ld %ld", i, w);
  translate("osu_barrier -f -m 8", 4, &p);
  cr_assert_eq(p.st, GCB_OK, "-m is taken (and means nothing), as OSU");
  cr_assert_eq(p.coll.layout, 3);
  iters_at(&p, 0, &i, &w);
  cr_assert(i == 1000 && w == 100, "%ld %ld", i, w);
  cr_assert(gcb__osu_sizeless(gcb__osu_program("osu_barrier")));
  cr_assert_not(gcb__osu_sizeless(gcb__osu_program("osu_gather")));
  /* OSU's barrier option string has no c, T, k or l */
  refused("osu_barrier -c", 2, "-c: not an option of osu_barrier");
  refused("osu_barrier -T mpi_int", 2, "-T: not an option of osu_barrier");
  refused("osu_barrier -k fixed:0", 2, "-k: not an option of osu_barrier");
}

Test(osu_args, help_and_version_run_nothing) {
  struct parsed p;
  translate("osu_latency -h", 2, &p);
  cr_assert(p.st == GCB_OK && p.action == 1);
  translate("osu_allreduce --version", 2, &p);
  cr_assert(p.st == GCB_OK && p.action == 2);
  char buf[128];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  gcb__osu_version(gcb__osu_program("osu_alltoall"), true, f);
  fclose(f);
  cr_assert_str_eq(
      buf,
      "# OSU MPI-CUDA All-to-All Personalized Exchange Latency Test v7.4\n");
}

/* Every line of tests/data/osu/command-lines.txt does what it says. */
Test(osu_args, public_command_lines_translate) {
  FILE *f = fopen(GCB_TEST_DATA "/osu/command-lines.txt", "r");
  cr_assert_not_null(f);
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n')
      continue;
    char *bar = strchr(line, '|'), *bar2 = bar ? strchr(bar + 1, '|') : NULL;
    cr_assert(bar && bar2, "bad line: %s", line);
    *bar = *bar2 = '\0';
    char outcome[128], cmd[512];
    sscanf(line, " %127[^\n]", outcome);
    for (char *e = outcome + strlen(outcome); e > outcome && e[-1] == ' ';)
      *--e = '\0';
    snprintf(cmd, sizeof cmd, "%s", bar + 1);
    struct parsed p;
    translate(cmd, 2, &p);
    if (strcmp(outcome, "ok") == 0)
      cr_assert_eq(p.st, GCB_OK, "%s: %s", cmd, p.err.msg);
    else
      cr_assert(p.st == GCB_EUSAGE && strstr(p.err.msg, outcome), "%s: %s", cmd,
                p.err.msg);
    n++;
  }
  fclose(f);
  cr_assert_geq(n, 5);
}

/* The options echo of the results document under OSU's names records the
 * counts that ran, each once: the harness's iters and warmup (every size
 * up to OSU's LARGE_MESSAGE_SIZE, 8192) and coll's iters-large and
 * warmup-large (the sizes beyond). Failed before: the echo said "iters":
 * 10 and "warmup": 2 (the harness's defaults, which no OSU case ran) beside
 * "osu-iters": "10000:1000". OSU 7.4 util/osu_util.h: LAT_LOOP_SMALL 10000,
 * LAT_SKIP_SMALL 100, LAT_LOOP_LARGE 1000, LAT_SKIP_LARGE 10,
 * COLL_LOOP_SMALL 1000, COLL_LOOP_LARGE 100; -i and -x set both sizes'
 * (osu_util.c set_num_iterations, set_num_warmup). */
Test(osu_args, the_options_echo_states_the_per_size_counts_that_ran) {
  static const struct {
    const char *line;
    long iters, warmup, iters_large, warmup_large;
  } cases[] = {
      {"osu_latency", 10000, 100, 1000, 10},
      {"osu_bw", 100, 10, 20, 2},
      {"osu_allreduce", 1000, 100, 100, 10},
      {"osu_allreduce -i 500 -x 7", 500, 7, 500, 7},
      {"osu_latency -i 30", 30, 100, 30, 10},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    struct parsed p;
    translate(cases[k].line, 2, &p);
    cr_assert_eq(p.st, GCB_OK, "%s: %s", cases[k].line, p.err.msg);
    json_t *echo = gcb_options_to_json(p.groups, GCB_OSU_NGROUPS);
    cr_assert_not_null(echo);
    long ran_i, ran_w, big_i, big_w;
    iters_at(&p, 8192, &ran_i, &ran_w);
    iters_at(&p, 8193, &big_i, &big_w);
    cr_assert(ran_i == cases[k].iters && ran_w == cases[k].warmup &&
                  big_i == cases[k].iters_large &&
                  big_w == cases[k].warmup_large,
              "%s ran %ld/%ld and %ld/%ld", cases[k].line, ran_i, ran_w, big_i,
              big_w);
    cr_assert_eq(json_integer_value(json_object_get(echo, "iters")), ran_i,
                 "%s", cases[k].line);
    cr_assert_eq(json_integer_value(json_object_get(echo, "warmup")), ran_w,
                 "%s", cases[k].line);
    cr_assert_eq(json_integer_value(json_object_get(echo, "iters-large")),
                 big_i, "%s", cases[k].line);
    cr_assert_eq(json_integer_value(json_object_get(echo, "warmup-large")),
                 big_w, "%s", cases[k].line);
    cr_assert_null(json_object_get(echo, "osu-iters"), "one field per value");
    json_decref(echo);
  }
}

/* OSU 7.4's option letters (osu_util_options.h, the union of the
 * programs' option strings, -h aside: the parser's own). */
static const char osu_letters[] = "vfmWtixaMdrcbuGPDTIlzkpRV";

/* Each OSU option is one row of OSU's dialect: one letter, one long name,
 * and every alias row stands for an option of the harness or coll (whose
 * rows then hold the value, its bounds and its echo name). */
Test(osu_args, each_osu_flag_is_exactly_one_row) {
  struct parsed p;
  translate("osu_allreduce", 2, &p);
  cr_assert_eq(p.st, GCB_OK, "%s", p.err.msg);
  for (const char *l = osu_letters; *l; l++) {
    int rows = 0;
    for (const struct gcb_option *o = gcb_osu_options; o->name; o++)
      rows += o->short_name == *l;
    cr_assert_eq(rows, 1, "-%c: %d rows", *l, rows);
  }
  for (const struct gcb_option *o = gcb_osu_options; o->name; o++) {
    cr_assert(o->type == GCB_OPT_ALIAS || o->type == GCB_OPT_PARSE,
              "--%s: OSU's rows store nothing of their own", o->name);
    cr_assert(o->short_name == 0 || strchr(osu_letters, o->short_name),
              "--%s: not an OSU letter", o->name);
    for (const struct gcb_option *q = o + 1; q->name; q++)
      cr_assert_str_neq(o->name, q->name);
    if (o->type == GCB_OPT_ALIAS)
      cr_assert_not_null(gcb_options_value(p.groups, GCB_OSU_NGROUPS, o->def),
                         "--%s stands for --%s, which no group has", o->name,
                         o->def);
  }
}

/* Under OSU's names OSU's letters own the command line: coll's letters
 * and long options are not options there (coll's -n, -e, --minbytes). */
Test(osu_args, colls_own_options_are_not_osus) {
  refused("osu_allreduce -n 5", 2, "unknown option -n");
  refused("osu_allreduce -e 8", 2, "unknown option -e");
  refused("osu_allreduce --minbytes=8", 2, "unknown option '--minbytes=8'");
  refused("osu_allreduce --collective=broadcast", 2, "unknown option");
}

/* The options echo under OSU's names is the fields that ran, each under
 * its own row's name (harness and coll), never an OSU spelling of it. */
Test(osu_args, the_echo_under_osus_names_equals_what_ran) {
  static const char *const lines[] = {
      "osu_alltoall -m 4:64 -T mpi_int -c -f -d cuda", "osu_latency -z95 D D",
      "osu_bibw -W 16 -x 3", "osu_gather -k fixed:1 --type=all"};
  const struct gcb_bench *coll = gcb_bench_find("coll");
  for (size_t k = 0; k < sizeof lines / sizeof *lines; k++) {
    struct parsed p;
    translate(lines[k], 2, &p);
    cr_assert_eq(p.st, GCB_OK, "%s: %s", lines[k], p.err.msg);
    json_t *echo = gcb_options_to_json(p.groups, GCB_OSU_NGROUPS);
    cr_assert_not_null(echo);
    cr_assert_eq(json_integer_value(json_object_get(echo, "minbytes")),
                 (json_int_t)p.coll.minbytes, "%s", lines[k]);
    cr_assert_eq(json_integer_value(json_object_get(echo, "maxbytes")),
                 (json_int_t)p.coll.maxbytes, "%s", lines[k]);
    cr_assert_eq(json_integer_value(json_object_get(echo, "check")),
                 p.coll.check, "%s", lines[k]);
    cr_assert_eq(json_integer_value(json_object_get(echo, "window")),
                 p.coll.window, "%s", lines[k]);
    cr_assert_eq(json_integer_value(json_object_get(echo, "root")), p.coll.root,
                 "%s", lines[k]);
    cr_assert_str_eq(json_string_value(json_object_get(echo, "backend")),
                     p.run.backend, "%s", lines[k]);
    json_t *types = json_object_get(echo, "datatype");
    uint32_t set = 0;
    for (size_t i = 0; i < json_array_size(types); i++)
      for (int t = 0; t < GCB_COLL_DTYPE_COUNT; t++)
        if (strcmp(gcb_coll_dtype_name((enum gcb_coll_dtype)t),
                   json_string_value(json_array_get(types, i))) == 0)
          set |= 1u << t;
    cr_assert_eq(set, p.coll.dtypes, "%s", lines[k]);
    /* every key is a harness or coll row; no OSU spelling */
    const char *key;
    json_t *v;
    json_object_foreach(echo, key, v) {
      bool own = false;
      for (const struct gcb_option *o = gcb_run_options; o->name; o++)
        own |= strcmp(o->name, key) == 0;
      for (const struct gcb_option *o = coll->options; o->name; o++)
        own |= strcmp(o->name, key) == 0;
      cr_assert(own, "%s: echo key %s", lines[k], key);
    }
    cr_assert_null(json_object_get(echo, "message-size"));
    cr_assert_null(json_object_get(echo, "full"));
    json_decref(echo);
  }
}

/* --help under an OSU name lists OSU's options that the program takes,
 * none of coll's. */
Test(osu_args, help_under_an_osu_name_shows_osus_flags) {
  static const struct {
    const char *prog;
    const char *has[4], *lacks[4];
  } cases[] = {
      {"osu_latency",
       {"-m, --message-size", "-i, --iterations", "-x, --warmup", "-z, --tail"},
       {"-f, --full", "-W, --window-size", "-b, --minbytes", "-k, --root"}},
      {"osu_bw",
       {"-W, --window-size", "-d, --accelerator", "--output", "-v, --version"},
       {"-z, --tail", "-f, --full", "--collective LIST", "-p, --num-pairs"}},
      {"osu_gather",
       {"-k, --root-rank", "-f, --full", "-T, --type", "-c, --validation"},
       {"-W, --window", "-n, --iterations", "--iters N", "-M, --mem"}},
      {"osu_barrier",
       {"-f, --full", "-i, --iterations", "-z, --tail", "-h, --help"},
       {"-c, --validation", "-T, --type", "-k, --root", "-l, --in"}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    struct parsed p;
    char line[64];
    snprintf(line, sizeof line, "%s -h", cases[k].prog);
    translate(line, 2, &p);
    cr_assert(p.st == GCB_OK && p.action == 1, "%s", p.err.msg);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gcb__osu_usage(p.cmd.p, f);
    gcb_options_help_dialect(f, &p.osu, p.groups, GCB_OSU_NGROUPS);
    fclose(f);
    for (int i = 0; i < 4; i++) {
      cr_assert_not_null(strstr(text, cases[k].has[i]), "%s lacks %s:\n%s",
                         cases[k].prog, cases[k].has[i], text);
      cr_assert_null(strstr(text, cases[k].lacks[i]), "%s has %s:\n%s",
                     cases[k].prog, cases[k].lacks[i], text);
    }
    free(text);
  }
}
