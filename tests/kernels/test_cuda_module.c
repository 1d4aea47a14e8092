/*
 * The CUDA module (gcbench-cuda.so, common/cudamod.h): it exports the cuda
 * backend's and the nccl transport's tables and its identity, nothing of
 * gcbench's own functions; the rows of gcbench's tables resolve through
 * it; a missing module is one line, and --backend auto then picks host
 * saying why. The cuda_module_missing tests run with a fake CUDA driver
 * that sees one device (ctest: unit.cuda_module_missing), so that the
 * driver's answer does not end the question before the module is looked
 * for.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/comm.h"
#include "common/cudamod.h"
#include "kernels/backend.h"

static void *open_module(void) {
  void *lib = dlopen(GCB_CUDA_MODULE_PATH, RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(lib, "%s", dlerror());
  return lib;
}

/* Whether a file whose name holds `part` is mapped into this process. */
static bool mapped(const char *part) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[4096];
  bool found = false;
  cr_assert_not_null(f);
  while (!found && fgets(line, sizeof line, f) != NULL)
    found = strstr(line, part) != NULL;
  fclose(f);
  return found;
}

Test(cuda_module, exports_its_tables_and_identity_only) {
  void *lib = open_module();
  const struct gcb_backend_ops *b = dlsym(lib, "gcb_backend_cuda");
  const struct gcb_coll_ops *n = dlsym(lib, "gcb_coll_nccl");
  const size_t *bs = dlsym(lib, "gcb_backend_cuda_size");
  const size_t *ns = dlsym(lib, "gcb_coll_nccl_size");
  const char *build = dlsym(lib, GCB_CUDAMOD_BUILD_SYMBOL);
  cr_assert(b && n && bs && ns && build);
  cr_expect_str_eq(b->name, "cuda");
  cr_expect_str_eq(n->name, "nccl");
  cr_expect_eq(*bs, sizeof(struct gcb_backend_ops));
  cr_expect_eq(*ns, sizeof(struct gcb_coll_ops));
  cr_expect_str_eq(build, GCB_CUDAMOD_BUILD);
  cr_expect_not_null(b->gemm);
  cr_expect_not_null(n->start);
  /* Its copies of gcbench's functions stay inside it. */
  cr_expect_null(dlsym(lib, "gcb_err_set"));
  cr_expect_null(dlsym(lib, "gcb_backend_find"));
  cr_expect_null(dlsym(lib, "gcb__cuda_gemm"));
  /* The rows say what the module's tables say, without loading it. */
  const struct gcb_backend_ops *row = gcb_backend_find("cuda");
  cr_assert_not_null(row);
  cr_expect_neq(row, b);
  cr_expect_str_eq(row->description, b->description);
  cr_expect_eq(row->gemm_default_dim, b->gemm_default_dim);
  const struct gcb_coll_ops *nrow = gcb_coll_transport_find("nccl");
  cr_assert_not_null(nrow);
  cr_expect_str_eq(nrow->description, n->description);
  cr_expect_eq(nrow->device_memory, n->device_memory);
}

Test(cuda_module, the_rows_resolve_through_the_module) {
  cr_assert_eq(setenv("GCB_CUDA_MODULE", GCB_CUDA_MODULE_PATH, 1), 0);
  char version[64] = "x";
  gcb_coll_transport_find("nccl")->version(version, sizeof version);
  cr_expect(strncmp(version, "NCCL 2.", 7) == 0, "'%s'", version);
  /* Loaded once: the process now holds it, under its own path. */
  cr_expect(mapped("gcbench-cuda.so"), "the module is loaded");
}

/* Every word of `module` that is set is set in `row` too: a callback the
 * module's table has and the row lacks would leave gcbench without it
 * (exchange, group_begin, version_codes were each added to the transport
 * and missed by the row once). Words, since the tables hold pointers and
 * flags; both are static, so padding is zero. */
static void row_covers(const void *row, const void *module, size_t size,
                       const char *what) {
  const unsigned char *r = row, *m = module;
  for (size_t at = 0; at + sizeof(void *) <= size; at += sizeof(void *)) {
    void *rw, *mw;
    memcpy(&rw, r + at, sizeof rw);
    memcpy(&mw, m + at, sizeof mw);
    cr_expect(mw == NULL || rw != NULL,
              "%s: the module sets the word at byte %zu, the row does not",
              what, at);
  }
}

Test(cuda_module, the_rows_set_everything_the_module_tables_set) {
  void *lib = open_module();
  const struct gcb_backend_ops *b = dlsym(lib, "gcb_backend_cuda");
  const struct gcb_coll_ops *n = dlsym(lib, "gcb_coll_nccl");
  cr_assert(b != NULL && n != NULL);
  row_covers(gcb_backend_find("cuda"), b, sizeof *b, "backend cuda");
  row_covers(gcb_coll_transport_find("nccl"), n, sizeof *n, "transport nccl");
  dlclose(lib);
}

Test(cuda_module, a_module_of_another_build_or_place_is_one_line) {
  char why[512] = "";
  cr_assert_eq(setenv("GCB_CUDA_MODULE", "gcbench-cuda.so", 1), 0);
  cr_expect_null(gcb_cudamod_symbol(
      "gcb_backend_cuda", sizeof(struct gcb_backend_ops), why, sizeof why));
  cr_expect(strstr(why, "not an absolute path") != NULL, "%s", why);
  cr_expect_null(strchr(why, '\n'));
}

/* Neither the module nor the CUDA runtime is loaded by a host run or by
 * --backend auto where the driver sees no device. */
Test(cuda_module, auto_without_a_device_loads_nothing) {
  char why[256] = "";
  if (gcb_cudamod_driver_devices(why, sizeof why))
    cr_skip_test("a CUDA device is visible here (%s)", why);
  cr_assert_eq(setenv("GCB_CUDA_MODULE", GCB_CUDA_MODULE_PATH, 1), 0);
  const struct gcb_backend_ops *chosen = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_backend_select("auto", &chosen, why, sizeof why, &err),
               GCB_OK, "%s", err.msg);
  cr_expect_str_eq(chosen->name, "host");
  cr_expect(strstr(why, "cuda: no CUDA") != NULL, "%s", why);
  cr_expect_not(mapped("gcbench-cuda.so"));
  cr_expect_not(mapped("libcudart"));
  cr_expect_not(mapped("libcublasLt"));
  cr_expect_not(mapped("libnccl"));
}

/* ---- a driver that sees a device, and no module ----------------------------
 */

static void missing(void) {
  if (getenv("GCB_TEST_FAKE_DRIVER") == NULL)
    cr_skip_test("needs the fake driver (ctest unit.cuda_module_missing)");
  cr_assert_eq(setenv("GCB_CUDA_MODULE", "/nonexistent/gcbench-cuda.so", 1), 0);
}

Test(cuda_module_missing, auto_picks_host_and_says_why) {
  missing();
  char why[512] = "";
  const struct gcb_backend_ops *chosen = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_backend_select("auto", &chosen, why, sizeof why, &err),
               GCB_OK, "%s", err.msg);
  cr_expect_str_eq(chosen->name, "host");
  cr_expect(strstr(why, "cuda: GCB_CUDA_MODULE='/nonexistent/gcbench-cuda.so'"
                        ": No such file or directory") != NULL,
            "%s", why);
  cr_expect_null(strchr(why, '\n'));
}

Test(cuda_module_missing, backend_cuda_fails_in_one_line) {
  missing();
  char why[512] = "";
  const struct gcb_backend_ops *chosen = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_backend_select("cuda", &chosen, why, sizeof why, &err),
               GCB_EUNSUPPORTED);
  cr_expect_null(chosen);
  cr_expect(strstr(err.msg, "backend 'cuda' cannot run here: GCB_CUDA_MODULE="
                            "'/nonexistent/gcbench-cuda.so'") != NULL,
            "%s", err.msg);
  cr_expect_null(strchr(err.msg, '\n'));
  /* The transport row likewise, and open says it too. */
  const struct gcb_coll_ops *n = gcb_coll_transport_find("nccl");
  cr_expect_not(n->usable(why, sizeof why));
  cr_expect(strstr(why, "/nonexistent/gcbench-cuda.so") != NULL, "%s", why);
  struct gcb_comm *c = (struct gcb_comm *)1;
  struct gcb_coll_env env = {0};
  cr_expect_eq(n->open(&env, &c, &err), GCB_EUNSUPPORTED);
  cr_expect_null(c);
  cr_expect(strstr(err.msg, "transport nccl: GCB_CUDA_MODULE=") != NULL, "%s",
            err.msg);
}
