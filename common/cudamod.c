/*
 * Finding and opening the CUDA module, and asking the CUDA driver whether
 * it sees a device (cudamod.h). The module is opened once per process
 * (pthread_once): the table rows that resolve through it are called on
 * the timed path, so the answer is kept, as the dynamic loader keeps the
 * module itself.
 */
#define _GNU_SOURCE /* dlerror's thread-safety is glibc's; RTLD_* */
#include "common/cudamod.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef GCB_CUDA_MODULE_RELDIR
#define GCB_CUDA_MODULE_RELDIR "../lib/gcbench"
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct {
  const void *linked_backend, *linked_coll; /* gcb_cudamod_link_in() */
  bool linked;
  void *lib;
  bool ok; /* the module is of this build */
  char why[512];
} mod;

/* The directory of the running executable, "" when /proc cannot say. */
static void exe_dir(char *dir, size_t len) {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  dir[0] = '\0';
  if (n <= 0)
    return;
  path[n] = '\0';
  char *slash = strrchr(path, '/');
  if (slash == NULL)
    return;
  *slash = '\0';
  snprintf(dir, len, "%s", path);
}

/* The first candidate that exists into path; false (why set) if none. */
static bool find_module(char *path, size_t len) {
  const char *env = getenv("GCB_CUDA_MODULE");
  if (env != NULL && env[0] != '\0') {
    if (env[0] != '/') {
      snprintf(mod.why, sizeof mod.why,
               "GCB_CUDA_MODULE='%s' is not an absolute path", env);
      return false;
    }
    snprintf(path, len, "%s", env);
    if (access(path, F_OK) == 0)
      return true;
    snprintf(mod.why, sizeof mod.why, "GCB_CUDA_MODULE='%s': %s", env,
             strerror(errno));
    return false;
  }
  char dir[PATH_MAX];
  exe_dir(dir, sizeof dir);
  if (dir[0] != '/') {
    snprintf(mod.why, sizeof mod.why,
             "%s not found: /proc/self/exe does not say where gcbench is",
             GCB_CUDAMOD_FILE);
    return false;
  }
  snprintf(path, len, "%s/%s", dir, GCB_CUDAMOD_FILE);
  if (access(path, F_OK) == 0)
    return true;
  snprintf(path, len, "%s/%s/%s", dir, GCB_CUDA_MODULE_RELDIR,
           GCB_CUDAMOD_FILE);
  if (access(path, F_OK) == 0)
    return true;
  snprintf(mod.why, sizeof mod.why,
           "%s not found in %s nor in %s/%s (built without it, or not "
           "installed)",
           GCB_CUDAMOD_FILE, dir, dir, GCB_CUDA_MODULE_RELDIR);
  return false;
}

static void load(void) {
  char path[PATH_MAX + 64];
  if (!find_module(path, sizeof path))
    return;
  /* RTLD_LOCAL: the module's copies of gcbench's own functions and the
   * CUDA libraries' symbols stay out of the global namespace. */
  mod.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (mod.lib == NULL) {
    const char *e = dlerror();
    snprintf(mod.why, sizeof mod.why, "%s", e != NULL ? e : path);
    return;
  }
  const char *build = dlsym(mod.lib, GCB_CUDAMOD_BUILD_SYMBOL);
  if (build == NULL)
    snprintf(mod.why, sizeof mod.why, "%s: no %s (not a gcbench module)", path,
             GCB_CUDAMOD_BUILD_SYMBOL);
  else if (strncmp(build, GCB_CUDAMOD_BUILD, 200) != 0)
    snprintf(mod.why, sizeof mod.why,
             "%s is of gcbench %.96s, this is %s: rebuild or reinstall both",
             path, build, GCB_CUDAMOD_BUILD);
  else
    mod.ok = true;
  /* When refused, the library stays open: dlclose could run its code. */
}

void gcb_cudamod_link_in(const void *backend_table, const void *coll_table) {
  mod.linked_backend = backend_table;
  mod.linked_coll = coll_table;
  mod.linked = true;
}

const void *gcb_cudamod_symbol(const char *name, size_t ops_size, char *why,
                               size_t why_len) {
  if (mod.linked) {
    const void *t = strcmp(name, "gcb_backend_cuda") == 0 ? mod.linked_backend
                    : strcmp(name, "gcb_coll_nccl") == 0  ? mod.linked_coll
                                                          : NULL;
    if (t == NULL)
      snprintf(why, why_len, "%s is not linked in", name);
    (void)ops_size;
    return t;
  }
  if (pthread_once(&once, load) != 0) {
    snprintf(why, why_len, "%s: pthread_once failed", GCB_CUDAMOD_FILE);
    return NULL;
  }
  if (!mod.ok) {
    snprintf(why, why_len, "%s", mod.why);
    return NULL;
  }
  char size_name[128];
  snprintf(size_name, sizeof size_name, "%s_size", name);
  const void *sym = dlsym(mod.lib, name);
  const size_t *size = dlsym(mod.lib, size_name);
  if (sym == NULL || size == NULL) {
    snprintf(why, why_len, "%s has no %s", GCB_CUDAMOD_FILE,
             sym == NULL ? name : size_name);
    return NULL;
  }
  if (*size != ops_size) {
    snprintf(why, why_len,
             "%s: %s is %zu bytes, here %zu: rebuild or reinstall both",
             GCB_CUDAMOD_FILE, name, *size, ops_size);
    return NULL;
  }
  return sym;
}

/* ---- the driver's own answer ------------------------------------------- */

typedef int (*cu_init_fn)(unsigned int);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_error_fn)(int, const char **);

/* "CUDA_ERROR_NO_DEVICE" or the code, from cuGetErrorName when present. */
static void cu_error(void *lib, int rc, char *buf, size_t len) {
  cu_error_fn name;
  const char *text = NULL;
  *(void **)&name = dlsym(lib, "cuGetErrorName");
  if (name != NULL && name(rc, &text) == 0 && text != NULL)
    snprintf(buf, len, "%s", text);
  else
    snprintf(buf, len, "error %d", rc);
}

bool gcb_cudamod_driver_devices(char *why, size_t why_len) {
  if (mod.linked) {
    snprintf(why, why_len, "the CUDA code is linked in");
    return true;
  }
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    const char *e = dlerror();
    snprintf(why, why_len, "no CUDA driver (%s)",
             e != NULL ? e : "libcuda.so.1 not loaded");
    return false;
  }
  cu_init_fn init;
  cu_count_fn count_fn;
  *(void **)&init = dlsym(lib, "cuInit");
  *(void **)&count_fn = dlsym(lib, "cuDeviceGetCount");
  if (init == NULL || count_fn == NULL) {
    snprintf(why, why_len, "no CUDA driver (libcuda.so.1 lacks cuInit)");
    dlclose(lib);
    return false;
  }
  char text[64];
  int count = 0;
  const char *call = "cuInit";
  int rc = init(0);
  if (rc == 0) {
    call = "cuDeviceGetCount";
    rc = count_fn(&count);
  }
  if (rc != 0) {
    cu_error(lib, rc, text, sizeof text);
    snprintf(why, why_len, "no CUDA device visible (%s: %s)", call, text);
    return false; /* kept open: the driver may have begun to initialise */
  }
  /* Kept open: an initialised driver is not unloaded (the CUDA runtime,
   * if the cuda backend is chosen, uses this same library). */
  if (count == 0) {
    snprintf(why, why_len, "no CUDA device visible (cuDeviceGetCount: 0)");
    return false;
  }
  snprintf(why, why_len, "%d CUDA device%s visible", count,
           count == 1 ? "" : "s");
  return true;
}
