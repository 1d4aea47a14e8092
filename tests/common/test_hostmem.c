/* Available host memory: MemAvailable, the cgroup's limit (v2 and v1,
 * walked up to the root) and RLIMIT_AS, each read from a fake tree shaped
 * like the kernel's files, and the address-space bound under a real
 * setrlimit (criterion runs each test in its own process). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/hostmem.h"

static char root[64];

static void put(const char *rel, const char *text) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  for (char *s = strchr(path + strlen(root) + 1, '/'); s;
       s = strchr(s + 1, '/')) {
    *s = '\0';
    mkdir(path, 0755);
    *s = '/';
  }
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs(text, f);
  fclose(f);
}

static void make_root(void) {
  snprintf(root, sizeof root, "/tmp/gcb-hostmem-XXXXXX");
  cr_assert_not_null(mkdtemp(root));
}

static void remove_root(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  cr_expect_eq(system(cmd), 0);
}

TestSuite(hostmem, .init = make_root, .fini = remove_root);

static const char meminfo[] = "MemTotal:       16384000 kB\n"
                              "MemFree:          123456 kB\n"
                              "MemAvailable:    8000000 kB\n"
                              "Buffers:           1000 kB\n";

Test(hostmem, meminfo_alone) {
  put("proc/meminfo", meminfo);
  struct gcb_hostmem m;
  gcb_hostmem_read(root, &m);
  cr_expect_eq(m.meminfo, UINT64_C(8000000) * 1024);
  cr_expect_eq(m.cgroup, GCB_HOSTMEM_NONE);
  cr_expect_str_empty(m.cgroup_path);
}

Test(hostmem, cgroup_v2_tightest_ancestor_with_inactive_cache_free) {
  put("proc/meminfo", meminfo);
  put("proc/self/cgroup", "0::/job_42/step_0\n");
  put("sys/fs/cgroup/job_42/step_0/memory.max", "max\n");
  put("sys/fs/cgroup/job_42/step_0/memory.current", "100\n");
  put("sys/fs/cgroup/job_42/memory.max", "4294967296\n");
  put("sys/fs/cgroup/job_42/memory.current", "1073741824\n");
  put("sys/fs/cgroup/job_42/memory.stat",
      "anon 805306368\nfile 268435456\nactive_file 134217728\n"
      "inactive_file 134217728\n");
  struct gcb_hostmem m;
  gcb_hostmem_read(root, &m);
  /* 4 GiB - (1 GiB - 128 MiB of inactive cache) */
  cr_expect_eq(m.cgroup, (UINT64_C(3) << 30) + (UINT64_C(128) << 20));
  cr_expect_str_eq(m.cgroup_path, "/job_42");
  /* two ranks share it: each may use half, and the message says so */
  struct gcb_err err = {0};
  cr_expect_eq(gcb_hostmem_fits(&m, 2, m.cgroup / 2, 0, "x", &err), GCB_OK);
  cr_expect_eq(gcb_hostmem_fits(&m, 2, m.cgroup / 2 + 1, 0, "GEMM", &err),
               GCB_ENOMEM);
  cr_expect(strstr(err.msg, "GEMM needs") != NULL, "%s", err.msg);
  cr_expect(strstr(err.msg, "may use") != NULL, "%s", err.msg);
  cr_expect(strstr(err.msg, "cgroup /job_42") != NULL, "%s", err.msg);
}

Test(hostmem, cgroup_v2_hybrid_and_v1) {
  put("proc/self/cgroup",
      "4:memory:/slurm/uid_0/job_7\n1:cpu:/\n0::/user.slice\n");
  put("sys/fs/cgroup/unified/user.slice/memory.max", "9000000000\n");
  put("sys/fs/cgroup/unified/user.slice/memory.current", "1000000000\n");
  /* v1 "no limit" is LONG_MAX rounded to a page */
  put("sys/fs/cgroup/memory/slurm/memory.limit_in_bytes",
      "9223372036854771712\n");
  put("sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.limit_in_bytes",
      "2000000000\n");
  put("sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.usage_in_bytes",
      "500000000\n");
  put("sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.stat",
      "cache 0\ninactive_file 7\ntotal_inactive_file 100000000\n");
  struct gcb_hostmem m;
  gcb_hostmem_read(root, &m);
  cr_expect_eq(m.cgroup, 1600000000);
  cr_expect_str_eq(m.cgroup_path, "/slurm/uid_0/job_7");
  /* no meminfo in the fake tree: unknown, not zero */
  cr_expect_eq(m.meminfo, GCB_HOSTMEM_NONE);
}

Test(hostmem, usage_above_the_limit_leaves_nothing) {
  put("proc/self/cgroup", "0::/\n");
  put("sys/fs/cgroup/memory.max", "1000\n");
  put("sys/fs/cgroup/memory.current", "5000\n");
  struct gcb_hostmem m;
  gcb_hostmem_read(root, &m);
  cr_expect_eq(m.cgroup, 0);
  cr_expect_str_eq(m.cgroup_path, "/");
  cr_expect_eq(gcb_hostmem_fits(&m, 1, 1, 0, "one byte", NULL), GCB_ENOMEM);
}

Test(hostmem, meminfo_share_names_the_ranks) {
  struct gcb_hostmem m = {.meminfo = 1000,
                          .cgroup = GCB_HOSTMEM_NONE,
                          .address_space = GCB_HOSTMEM_NONE};
  struct gcb_err err = {0};
  cr_expect_eq(gcb_hostmem_fits(&m, 4, 250, 1 << 30, "a", &err), GCB_OK);
  cr_expect_eq(gcb_hostmem_fits(&m, 4, 251, 0, "a", &err), GCB_ENOMEM);
  cr_expect(strstr(err.msg, "memory available to 4 rank(s) on the node") !=
                NULL,
            "%s", err.msg);
  m.meminfo = GCB_HOSTMEM_NONE;
  cr_expect_eq(gcb_hostmem_fits(&m, 4, UINT64_MAX, UINT64_MAX, "a", &err),
               GCB_OK);
}

/* The real limit is tested through the host backend (tests/kernels,
 * test_host.c), in a process of its own; here the arithmetic. */
Test(hostmem, the_address_space_bound_counts_the_reserve) {
  struct rlimit rl = {0};
  cr_assert_eq(getrlimit(RLIMIT_AS, &rl), 0);
  if (rl.rlim_cur == RLIM_INFINITY)
    cr_expect_eq(gcb_hostmem_address_space(NULL), GCB_HOSTMEM_NONE);
  cr_expect_gt(gcb_hostmem_mapped(NULL), 0, "VmSize is read");
  uint64_t room = UINT64_C(256) << 20;
  struct gcb_hostmem m = {.meminfo = GCB_HOSTMEM_NONE,
                          .cgroup = GCB_HOSTMEM_NONE,
                          .address_space = room};
  struct gcb_err err = {0};
  cr_expect_eq(gcb_hostmem_fits(&m, 4, 64 << 20, 0, "small", &err), GCB_OK,
               "not shared among ranks: %s", err.msg);
  /* the arrays fit, the library's untouched buffers do not */
  cr_expect_eq(gcb_hostmem_fits(&m, 1, 64 << 20, room, "GEMM", &err),
               GCB_ENOMEM);
  cr_expect(strstr(err.msg, "RLIMIT_AS (ulimit -v)") != NULL, "%s", err.msg);
  cr_expect(strstr(err.msg, "BLAS") != NULL, "%s", err.msg);
  cr_expect_eq(gcb_hostmem_fits(&m, 1, UINT64_MAX, UINT64_MAX, "x", &err),
               GCB_ENOMEM, "no overflow");
}
