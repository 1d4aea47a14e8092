/* Binding checks with injected CPU sets (binding queries on an XML topology
 * are fake): one rank against its GPU, the ranks of a node together, and
 * the launcher lines that fix a node. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"

#define TOPO(name) GCB_TEST_DATA "/topo/" name

static struct gcb_topo *load(const char *file) {
  struct gcb_topo *t = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_topo_load(file, &t, &err), GCB_OK, "%s: %s", file, err.msg);
  return t;
}

/* A rank's binding as gcb_topo_check_ranks judges it: LOCAL is no problem
 * of the rank's, the others its PARTIAL, REMOTE or UNBOUND problem. */
#define LOCAL (-1)
#define PARTIAL GCB_TOPO_PROB_PARTIAL
#define REMOTE GCB_TOPO_PROB_REMOTE
#define UNBOUND GCB_TOPO_PROB_UNBOUND

struct bind_case {
  const char *file;
  const char *cpus;
  int gpu;
  enum gcb_status status;
  int bind; /* LOCAL or the problem kind */
};

static const struct bind_case bind_cases[] = {
    /* 2 sockets, PUs interleaved: socket 0 has the even PUs (GPU0) */
    {TOPO("hwloc-2socket-3gpu-ib.xml"), "0,2,4", 0, GCB_OK, LOCAL},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), "0-5", 0, GCB_OK, PARTIAL},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), "1,3", 0, GCB_OK, REMOTE},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), "1,3", 2, GCB_OK, LOCAL},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), "0-23", 1, GCB_OK, UNBOUND},
    /* CPUs the machine lacks are ignored */
    {TOPO("hwloc-2socket-3gpu-ib.xml"), "0-47", 1, GCB_OK, UNBOUND},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), "garbage", 0, GCB_EINPUT, 0},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), "100-200", 0, GCB_EINPUT, 0},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), "0", 3, GCB_EINPUT, 0},
    {TOPO("hwloc-2socket-3gpu-ib.xml"), "0", -2, GCB_EINPUT, 0},
    /* Tioga: a GCD's local CPUs are one CCD, narrower than its NUMA node */
    {TOPO("mpibind-tioga-8xmi250x.xml"), "48-55,112-119", 0, GCB_OK, LOCAL},
    {TOPO("mpibind-tioga-8xmi250x.xml"), "48-63,112-127", 0, GCB_OK, PARTIAL},
    {TOPO("mpibind-tioga-8xmi250x.xml"), "0-7", 0, GCB_OK, REMOTE},
    /* Lassen: 16 PUs of the machine are outside the job's cgroup */
    {TOPO("mpibind-lassen-4xv100.xml"), "8-87,96-175", 2, GCB_OK, UNBOUND},
    {TOPO("mpibind-lassen-4xv100.xml"), "96-103", 2, GCB_OK, LOCAL},
    /* One socket (the 2-socket file cut by lstopo --restrict): every PU is
     * local to every GPU, so a rank on all of them is near its GPU (an
     * H200 VM's one NUMA node showed the false warning); a rank without a
     * GPU on all of them is still unbound */
    {TOPO("hwloc-1socket-3gpu-cut.xml"), "0-23", 0, GCB_OK, LOCAL},
    {TOPO("hwloc-1socket-3gpu-cut.xml"), "0,2,4,6,8,10,12,14,16,18,20,22", 1,
     GCB_OK, LOCAL},
    {TOPO("hwloc-1socket-3gpu-cut.xml"), "0-23", -1, GCB_OK, UNBOUND},
};

/* The binding problem of rank 0 alone on its node (LOCAL: none); other
 * problems (the node's idle GPUs) are not the rank's binding. */
static enum gcb_status rank_binding(struct gcb_topo *t, const char *cpus,
                                    int gpu, int *bind, struct gcb_err *err) {
  struct gcb_topo_rank r = {0, cpus, gpu};
  struct gcb_topo_problem *p = NULL;
  int n = 0;
  enum gcb_status st = gcb_topo_check_ranks(t, &r, 1, &p, &n, err);
  *bind = LOCAL;
  for (int i = 0; i < n; i++)
    if (p[i].rank == 0 && p[i].kind <= GCB_TOPO_PROB_UNBOUND)
      *bind = (int)p[i].kind;
  free(p);
  return st;
}

Test(topo_bind, a_rank_is_local_partial_remote_or_unbound) {
  for (size_t i = 0; i < sizeof bind_cases / sizeof *bind_cases; i++) {
    const struct bind_case *c = &bind_cases[i];
    struct gcb_topo *t = load(c->file);
    int b = -2;
    struct gcb_err err = {0};
    cr_expect_eq(rank_binding(t, c->cpus, c->gpu, &b, &err), c->status,
                 "%s '%s' GPU%d: %s", c->file, c->cpus, c->gpu, err.msg);
    if (c->status == GCB_OK)
      cr_expect_eq(b, c->bind, "%s '%s' GPU%d: %d", c->file, c->cpus, c->gpu,
                   b);
    gcb_topo_free(t);
  }
}

/* Problems of a node, as counts per kind. */
static void check(struct gcb_topo *t, const struct gcb_topo_rank *ranks, int n,
                  int counts[6], struct gcb_topo_problem **out, int *nout) {
  struct gcb_err err = {0};
  cr_assert_eq(gcb_topo_check_ranks(t, ranks, n, out, nout, &err), GCB_OK, "%s",
               err.msg);
  memset(counts, 0, 6 * sizeof *counts);
  for (int i = 0; i < *nout; i++) {
    cr_assert((unsigned)(*out)[i].kind < 6);
    cr_expect_gt(strlen((*out)[i].what), 10);
    cr_expect_gt(strlen((*out)[i].fix), 10);
    counts[(*out)[i].kind]++;
  }
}

Test(topo_bind, ranks_bound_to_their_gpus_numa_node_have_no_problem) {
  struct gcb_topo *t = load(TOPO("mpibind-aws-g4dn-metal-8xt4.xml"));
  struct gcb_topo_rank ranks[8];
  for (int i = 0; i < 8; i++)
    ranks[i] =
        (struct gcb_topo_rank){i, i < 4 ? "0-23,48-71" : "24-47,72-95", i};
  struct gcb_topo_problem *p = (struct gcb_topo_problem *)1;
  int n = -1, k[6];
  check(t, ranks, 8, k, &p, &n);
  cr_expect_eq(n, 0);
  cr_expect_null(p);
  gcb_topo_free(t);
}

Test(topo_bind, two_ranks_on_one_gpu_and_idle_gpus_are_problems) {
  struct gcb_topo *t = load(TOPO("mpibind-aws-g4dn-metal-8xt4.xml"));
  struct gcb_topo_rank ranks[] = {{0, "0-11", 0}, {1, "12-23", 0}};
  struct gcb_topo_problem *p = NULL;
  int n = 0, k[6];
  check(t, ranks, 2, k, &p, &n);
  cr_expect_eq(k[GCB_TOPO_PROB_SHARED_GPU], 1);
  cr_expect_eq(k[GCB_TOPO_PROB_IDLE_GPU], 1);
  cr_expect_eq(n, 2);
  for (int i = 0; i < n; i++) {
    if (p[i].kind == GCB_TOPO_PROB_SHARED_GPU) {
      cr_expect(p[i].rank == 1 && p[i].other_rank == 0 && p[i].gpu == 0);
      cr_expect(strstr(p[i].fix, "--gpus-per-task=1") != NULL, "%s", p[i].fix);
    } else {
      cr_expect(strstr(p[i].what, "GPU 1-7") != NULL, "%s", p[i].what);
      cr_expect(strstr(p[i].fix, "-ppn 8") != NULL, "%s", p[i].fix);
    }
  }
  free(p);
  gcb_topo_free(t);
}

Test(topo_bind, remote_and_unbound_ranks_get_a_launcher_fix) {
  struct gcb_topo *t = load(TOPO("hwloc-2socket-3gpu-ib.xml"));
  struct gcb_topo_rank ranks[] = {
      {0, "1,3,5", 0}, {1, "0-23", 1}, {2, "1,3,5,7,9,11", 2}};
  struct gcb_topo_problem *p = NULL;
  int n = 0, k[6];
  check(t, ranks, 3, k, &p, &n);
  cr_expect_eq(k[GCB_TOPO_PROB_REMOTE], 1);
  cr_expect_eq(k[GCB_TOPO_PROB_UNBOUND], 1);
  cr_expect_eq(n, 2);
  cr_expect_eq(p[0].rank, 0);
  cr_expect(strstr(p[0].fix, "numactl --cpunodebind=0 --membind=0") != NULL,
            "%s", p[0].fix);
  cr_expect(strstr(p[1].fix, "--cpunodebind=1") != NULL, "%s", p[1].fix);
  free(p);
  gcb_topo_free(t);
}

Test(topo_bind, a_narrower_local_set_is_fixed_by_cpu_not_by_node) {
  struct gcb_topo *t = load(TOPO("mpibind-tioga-8xmi250x.xml"));
  struct gcb_topo_rank ranks[] = {{0, "48-63,112-127", 0}};
  struct gcb_topo_problem *p = NULL;
  int n = 0, k[6];
  check(t, ranks, 1, k, &p, &n);
  cr_expect_eq(k[GCB_TOPO_PROB_PARTIAL], 1);
  cr_expect(strstr(p[0].fix, "--physcpubind=48-55,112-119 --membind=3") != NULL,
            "%s", p[0].fix);
  free(p);
  gcb_topo_free(t);
}

Test(topo_bind, unbound_host_backend_ranks_are_told_to_bind_to_cores) {
  struct gcb_topo *t = load(TOPO("hwloc-2socket-3gpu-ib.xml"));
  struct gcb_topo_rank ranks[] = {{0, "0-23", -1}, {1, "0-23", -1}};
  struct gcb_topo_problem *p = NULL;
  int n = 0, k[6];
  check(t, ranks, 2, k, &p, &n);
  cr_expect_eq(k[GCB_TOPO_PROB_UNBOUND], 2);
  cr_expect_eq(k[GCB_TOPO_PROB_IDLE_GPU], 0); /* no rank uses a GPU */
  cr_expect(strstr(p[0].fix, "-bind-to core") != NULL, "%s", p[0].fix);
  cr_expect(strstr(p[0].fix, "--cpu-bind=cores") != NULL, "%s", p[0].fix);
  free(p);
  gcb_topo_free(t);
}

Test(topo_bind, more_ranks_than_cores_is_oversubscription) {
  struct gcb_topo *t = load(TOPO("hwloc-2socket-3gpu-ib.xml"));
  struct gcb_topo_rank ranks[13];
  for (int i = 0; i < 13; i++)
    ranks[i] = (struct gcb_topo_rank){i, i < 12 ? "0-23" : "0", -1};
  struct gcb_topo_problem *p = NULL;
  int n = 0, k[6];
  check(t, ranks, 13, k, &p, &n);
  int node_wide = 0;
  for (int i = 0; i < n; i++)
    node_wide += p[i].kind == GCB_TOPO_PROB_OVERSUBSCRIBED && p[i].rank < 0;
  cr_expect_eq(node_wide, 1);
  free(p);
  gcb_topo_free(t);
}

Test(topo_bind, ranks_piled_on_one_core_are_oversubscription) {
  struct gcb_topo *t = load(TOPO("hwloc-2socket-3gpu-ib.xml"));
  struct gcb_topo_rank ranks[] = {
      {0, "0", -1}, {1, "0", -1}, {2, "0,12", -1}, {3, "2", -1}};
  struct gcb_topo_problem *p = NULL;
  int n = 0, k[6];
  check(t, ranks, 4, k, &p, &n);
  cr_expect_eq(k[GCB_TOPO_PROB_OVERSUBSCRIBED], 1, "%d", n);
  cr_expect_eq(p[0].rank, 0);
  cr_expect(strstr(p[0].what, "3 ranks are bound within CPUs 0,12 (1 core)") !=
                NULL,
            "%s", p[0].what);
  free(p);
  gcb_topo_free(t);
}

Test(topo_bind, bad_ranks_are_named_in_the_error) {
  struct gcb_topo *t = load(TOPO("hwloc-2socket-3gpu-ib.xml"));
  struct gcb_topo_rank ranks[] = {{0, "0", 0}, {7, "zz", 1}};
  struct gcb_topo_problem *p = NULL;
  int n = 0;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_topo_check_ranks(t, ranks, 2, &p, &n, &err), GCB_EINPUT);
  cr_expect(strstr(err.msg, "rank 7") && strstr(err.msg, "zz"), "%s", err.msg);
  ranks[1].cpus = "1";
  ranks[1].gpu = 5;
  cr_expect_eq(gcb_topo_check_ranks(t, ranks, 2, &p, &n, &err), GCB_EINPUT);
  cr_expect(strstr(err.msg, "rank 7") && strstr(err.msg, "GPU 5"), "%s",
            err.msg);
  cr_expect_null(p);
  gcb_topo_free(t);
}

/* Issue 20, item 14: hwloc kept 4294967296 as an unsigned int, CPU 0. */
Test(topo_bind, cpu_numbers_past_the_limit_are_refused_not_wrapped) {
  struct gcb_topo *t = load(TOPO("hwloc-2socket-3gpu-ib.xml"));
  static const char *const bad[] = {"4294967296", "0-4294967296",
                                    "1,4294967297", "99999999999999999999999",
                                    "1048577"};
  int b;
  struct gcb_err err = {0};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cr_expect_eq(rank_binding(t, bad[i], 0, &b, &err), GCB_EINPUT, "%s",
                 bad[i]);
    cr_expect(strstr(err.msg, "is past 1048576") != NULL, "%s", err.msg);
  }
  static const char *const malformed[] = {"", "0-", "-1", "1,,2", "1;2", " 1"};
  for (size_t i = 0; i < sizeof malformed / sizeof *malformed; i++)
    cr_expect_eq(rank_binding(t, malformed[i], 0, &b, &err), GCB_EINPUT, "'%s'",
                 malformed[i]);
  cr_expect_eq(rank_binding(t, "0-1,4", 0, &b, &err), GCB_OK, "%s", err.msg);
  int whole = -1;
  cr_expect_eq(gcb_topo_binding_is_whole(t, "4294967296", &whole, &err),
               GCB_EINPUT);
  gcb_topo_free(t);
}

Test(topo_bind, the_node_fix_splits_a_gpus_cores_among_its_ranks) {
  struct gcb_topo *t = load(TOPO("mpibind-tioga-8xmi250x.xml"));
  struct gcb_topo_rank ranks[] = {
      {0, "0-127", 0}, {1, "0-127", 0}, {2, "0-127", -1}};
  char buf[2048];
  cr_assert_eq(gcb_topo_binding_fix(t, ranks, 3, buf, sizeof buf, NULL),
               GCB_OK);
  cr_expect(strstr(buf, "mpiexec -bind-to user:48+49+50+51+112+113+114+115,"
                        "52+53+54+55+116+117+118+119,0+1+") != NULL,
            "%s", buf);
  cr_expect(strstr(buf, "srun --cpu-bind=mask_cpu:0xf000000000000000f"
                        "000000000000,") != NULL,
            "%s", buf);
  cr_expect(strstr(buf, "rank 1: numactl --physcpubind=52-55,116-119 "
                        "--membind=3") != NULL,
            "%s", buf);
  cr_expect(strstr(buf, "rank 2: taskset -c 0-127") != NULL, "%s", buf);
  char tiny[8];
  cr_expect_eq(gcb_topo_binding_fix(t, ranks, 3, tiny, sizeof tiny, NULL),
               GCB_OK);
  cr_expect_eq(strlen(tiny), 7);
  gcb_topo_free(t);
}

Test(topo_bind, names_of_problems) {
  cr_expect_str_eq(gcb_topo_problem_name(GCB_TOPO_PROB_SHARED_GPU),
                   "shared-gpu");
  cr_expect_str_eq(gcb_topo_problem_name((enum gcb_topo_problem_kind)9), "?");
}
