/*
 * Available host memory (hostmem.h). Each bound is read from its text
 * file with one small reader; the cgroup is found from proc/self/cgroup
 * and walked up to its root, since a parent's limit binds its children.
 */
#include "common/hostmem.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define PATH_LEN 512

/* Reads root/rel (at most size-1 bytes) into buf; false when it cannot. */
static bool read_small(const char *root, const char *rel, char *buf,
                       size_t size) {
  char path[PATH_LEN];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return false;
  size_t n = fread(buf, 1, size - 1, f);
  fclose(f);
  buf[n] = '\0';
  return true;
}

/* The number after "key" at a line's start (e.g. "MemAvailable:"), times
 * unit; false when the key is absent. */
static bool keyed(const char *text, const char *key, uint64_t unit,
                  uint64_t *out) {
  size_t klen = strlen(key);
  for (const char *l = text; l != NULL && *l; l = strchr(l, '\n'), l += !!l)
    if (strncmp(l, key, klen) == 0) {
      char *end;
      unsigned long long v = strtoull(l + klen, &end, 10);
      if (end == l + klen)
        return false;
      *out = v > UINT64_MAX / unit ? UINT64_MAX : (uint64_t)v * unit;
      return true;
    }
  return false;
}

static uint64_t meminfo_bytes(const char *root, bool live) {
  char text[8192];
  uint64_t v;
  if (read_small(root, "proc/meminfo", text, sizeof text) &&
      keyed(text, "MemAvailable:", 1024, &v))
    return v;
  long pages = live ? sysconf(_SC_AVPHYS_PAGES) : -1;
  long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page
                               : GCB_HOSTMEM_NONE;
}

/* One cgroup directory's headroom: limit less usage, with inactive file
 * cache (which the kernel reclaims before failing) counted as free. */
struct cg_files {
  const char *limit, *usage, *inactive; /* file names and stat key */
};

static const struct cg_files cg_v2 = {"memory.max", "memory.current",
                                      "inactive_file "};
static const struct cg_files cg_v1 = {
    "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file "};

static uint64_t cg_headroom(const char *dir, const struct cg_files *f) {
  char rel[PATH_LEN], text[4096];
  uint64_t limit, usage, inactive = 0;
  snprintf(rel, sizeof rel, "%s/%s", dir, f->limit);
  /* "max" (v2) and v1's page-rounded LONG_MAX mean no limit */
  if (!read_small("", rel, text, sizeof text) || !keyed(text, "", 1, &limit) ||
      limit >= (UINT64_C(1) << 62))
    return GCB_HOSTMEM_NONE;
  snprintf(rel, sizeof rel, "%s/%s", dir, f->usage);
  if (!read_small("", rel, text, sizeof text) || !keyed(text, "", 1, &usage))
    usage = 0;
  snprintf(rel, sizeof rel, "%s/memory.stat", dir);
  if (read_small("", rel, text, sizeof text))
    (void)keyed(text, f->inactive, 1, &inactive);
  usage = inactive < usage ? usage - inactive : 0;
  return usage < limit ? limit - usage : 0;
}

/* The tightest headroom of base/path and its ancestors up to base. */
static void cg_walk(const char *base, const char *path,
                    const struct cg_files *f, struct gcb_hostmem *out) {
  char dir[PATH_LEN];
  snprintf(dir, sizeof dir, "%s%s", base, path);
  size_t keep = strlen(base);
  for (;;) {
    uint64_t h = cg_headroom(dir, f);
    if (h < out->cgroup) {
      out->cgroup = h;
      snprintf(out->cgroup_path, sizeof out->cgroup_path, "%s",
               dir[keep] ? dir + keep : "/");
    }
    char *slash = strrchr(dir + keep, '/');
    if (slash == NULL)
      break;
    *slash = '\0';
  }
}

/* proc/self/cgroup: "0::/path" (v2), "N:a,memory,b:/path" (v1). */
static void cgroup_bytes(const char *root, struct gcb_hostmem *out) {
  char text[4096];
  if (!read_small(root, "proc/self/cgroup", text, sizeof text))
    return;
  for (char *save = NULL, *l = strtok_r(text, "\n", &save); l != NULL;
       l = strtok_r(NULL, "\n", &save)) {
    char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (c2 == NULL || c2[1] != '/')
      continue;
    *c2 = '\0';
    const char *ctl = c1 + 1, *path = c2 + 1;
    char base[PATH_LEN];
    if (*ctl == '\0') { /* v2: pure, or hybrid under unified/ */
      snprintf(base, sizeof base, "%s/sys/fs/cgroup", root);
      cg_walk(base, path, &cg_v2, out);
      snprintf(base, sizeof base, "%s/sys/fs/cgroup/unified", root);
      cg_walk(base, path, &cg_v2, out);
    } else if (strstr(ctl, "memory") != NULL) {
      snprintf(base, sizeof base, "%s/sys/fs/cgroup/memory", root);
      cg_walk(base, path, &cg_v1, out);
    }
  }
}

uint64_t gcb_hostmem_mapped(const char *root) {
  char text[8192];
  uint64_t used = 0;
  if (read_small(root ? root : "", "proc/self/status", text, sizeof text))
    (void)keyed(text, "VmSize:", 1024, &used);
  return used;
}

uint64_t gcb_hostmem_address_space(const char *root) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return GCB_HOSTMEM_NONE;
  uint64_t used = gcb_hostmem_mapped(root), cur = (uint64_t)rl.rlim_cur;
  return used < cur ? cur - used : 0;
}

void gcb_hostmem_read(const char *root, struct gcb_hostmem *out) {
  bool live = root == NULL;
  const char *r = live ? "" : root;
  *out = (struct gcb_hostmem){.meminfo = meminfo_bytes(r, live),
                              .cgroup = GCB_HOSTMEM_NONE,
                              .address_space = gcb_hostmem_address_space(r)};
  cgroup_bytes(r, out);
}

static uint64_t share(uint64_t bytes, int ranks) {
  return bytes == GCB_HOSTMEM_NONE ? bytes : bytes / (uint64_t)ranks;
}

static enum gcb_status refuse(const char *what, uint64_t need, uint64_t have,
                              const char *why, struct gcb_err *err) {
  return gcb_err_set(err, GCB_ENOMEM,
                     "%s needs %" PRIu64 " bytes (%.1f GiB) but this rank may "
                     "use %" PRIu64 " bytes (%.1f GiB, %s)",
                     what, need, (double)need / 0x1p30, have,
                     (double)have / 0x1p30, why);
}

enum gcb_status gcb_hostmem_fits(const struct gcb_hostmem *m, int ranks,
                                 uint64_t bytes, uint64_t reserve,
                                 const char *what, struct gcb_err *err) {
  char why[256];
  ranks = ranks >= 1 ? ranks : 1;
  uint64_t mi = share(m->meminfo, ranks), cg = share(m->cgroup, ranks);
  uint64_t virt = reserve > UINT64_MAX - bytes ? UINT64_MAX : bytes + reserve;
  if (mi != GCB_HOSTMEM_NONE && bytes > mi && mi <= cg) {
    snprintf(why, sizeof why,
             "its share of the memory available to %d rank(s) on the node",
             ranks);
    return refuse(what, bytes, mi, why, err);
  }
  if (cg != GCB_HOSTMEM_NONE && bytes > cg) {
    snprintf(why, sizeof why,
             "its share for %d rank(s) of what cgroup %s's memory limit "
             "leaves",
             ranks, m->cgroup_path);
    return refuse(what, bytes, cg, why, err);
  }
  if (m->address_space != GCB_HOSTMEM_NONE && virt > m->address_space) {
    snprintf(why, sizeof why,
             "what RLIMIT_AS (ulimit -v) leaves of its address space%s",
             reserve ? ", after the BLAS library's buffers" : "");
    return refuse(what, virt, m->address_space, why, err);
  }
  return GCB_OK;
}
