/*
 * Hypervisor detection: the CPU "hypervisor" flag (set by every x86
 * hypervisor for its guests) and the DMI system vendor and product name
 * that KVM/QEMU, VMware, Xen, VirtualBox, Hyper-V, Google Compute Engine
 * and Amazon EC2 (Nitro) present. EC2 bare-metal instances (*.metal) carry
 * the Amazon DMI strings without being virtual machines. Pure functions on
 * the texts, a reader of the files under a root prefix (so tests can fake
 * /proc and /sys), and, for XML topologies, the DMI infos hwloc recorded.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "topo/topo_int.h"

struct dmi_row {
  const char *vendor;  /* substring of sys_vendor, or NULL */
  const char *product; /* substring of product_name, or NULL */
  const char *name;
};

static const struct dmi_row dmi_rows[] = {
    {"QEMU", NULL, "QEMU/KVM"},
    {NULL, "KVM", "KVM"},
    {"VMware", NULL, "VMware"},
    {"Xen", NULL, "Xen"},
    {NULL, "HVM domU", "Xen"},
    {"innotek", NULL, "VirtualBox"},
    {NULL, "VirtualBox", "VirtualBox"},
    {"Microsoft Corporation", "Virtual Machine", "Hyper-V"},
    {"Google", "Google Compute Engine", "Google Compute Engine"},
    {"Amazon EC2", NULL, "Amazon EC2 (Nitro)"},
    {"OpenStack", NULL, "OpenStack (KVM)"},
    {"Parallels", NULL, "Parallels"},
    {"BHYVE", NULL, "bhyve"},
};

/* Whether a "flags" line of /proc/cpuinfo holds the word "hypervisor". */
static int has_hypervisor_flag(const char *cpuinfo) {
  for (const char *line = cpuinfo; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if (strncmp(line, "flags", 5) == 0)
      for (const char *p = line;
           (p = strstr(p, "hypervisor")) && p < line + len; p += 10)
        if (p[-1] == ' ' && (p[10] == ' ' || p[10] == '\n' || p[10] == '\0'))
          return 1;
    line = end ? end + 1 : NULL;
  }
  return 0;
}

static int matches(const char *text, const char *needle) {
  return needle == NULL || (text && strstr(text, needle));
}

static const struct dmi_row *dmi_match(const char *vendor,
                                       const char *product) {
  for (size_t i = 0; i < sizeof dmi_rows / sizeof *dmi_rows; i++) {
    const struct dmi_row *r = &dmi_rows[i];
    if (matches(vendor, r->vendor) && matches(product, r->product))
      return r;
  }
  return NULL;
}

static int is_metal_instance(const char *product) {
  size_t n = product ? strlen(product) : 0;
  return n >= 6 && strcmp(product + n - 6, ".metal") == 0;
}

static void append(char *buf, size_t len, const char *label,
                   const char *value) {
  size_t used = strlen(buf);
  if (value && used < len)
    snprintf(buf + used, len - used, "; DMI %s '%s'", label, value);
}

static void evidence(struct gcb_topo_vm *out, int flag, int cpuinfo_known,
                     const char *vendor, const char *product) {
  snprintf(out->evidence, sizeof out->evidence, "%s",
           flag            ? "CPU flag 'hypervisor'"
           : cpuinfo_known ? "no 'hypervisor' CPU flag"
                           : "CPU flags unknown");
  append(out->evidence, sizeof out->evidence, "vendor", vendor);
  append(out->evidence, sizeof out->evidence, "product", product);
  size_t used = strlen(out->evidence);
  if (is_metal_instance(product) && used < sizeof out->evidence)
    snprintf(out->evidence + used, sizeof out->evidence - used,
             " (a bare-metal instance)");
}

void gcb_topo_vm_classify(const char *cpuinfo, const char *sys_vendor,
                          const char *product_name, struct gcb_topo_vm *out) {
  memset(out, 0, sizeof *out);
  int flag = has_hypervisor_flag(cpuinfo);
  const struct dmi_row *r = dmi_match(sys_vendor, product_name);
  if (r && strcmp(r->name, "Amazon EC2 (Nitro)") == 0 &&
      is_metal_instance(product_name))
    r = NULL;
  out->detected = flag || r != NULL;
  snprintf(out->hypervisor, sizeof out->hypervisor, "%s",
           r      ? r->name
           : flag ? "unknown"
                  : "");
  evidence(out, flag, cpuinfo != NULL, sys_vendor, product_name);
  if (cpuinfo == NULL && sys_vendor == NULL && product_name == NULL)
    snprintf(out->evidence, sizeof out->evidence,
             "no CPU flags or DMI strings to look at");
}

/* --- reading the system --------------------------------------------------- */

static void trim(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
    s[--n] = '\0';
}

/*
 * First line of root/rel starting with prefix ("" = the first line) into
 * buf. 1 found, 0 absent (no file or no such line), -errno unreadable.
 */
static int read_line(const char *root, const char *rel, const char *prefix,
                     char *buf, size_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s%s", root, rel);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
  int found = 0;
  while (!found && fgets(buf, (int)len, f))
    found = strncmp(buf, prefix, strlen(prefix)) == 0;
  int bad = ferror(f) ? -(errno ? errno : EIO) : 0;
  fclose(f);
  if (bad)
    return bad;
  if (found)
    trim(buf);
  return found;
}

enum gcb_status gcb_topo_vm_read(const char *root, struct gcb_topo_vm *out,
                                 struct gcb_err *err) {
  static const char *const rel[] = {"/proc/cpuinfo",
                                    "/sys/class/dmi/id/sys_vendor",
                                    "/sys/class/dmi/id/product_name"};
  static const char *const prefix[] = {"flags", "", ""};
  char text[3][8192];
  const char *have[3];
  const char *base = root ? root : "";
  for (int i = 0; i < 3; i++) {
    int r = read_line(base, rel[i], prefix[i], text[i], sizeof text[i]);
    if (r < 0) {
      gcb_topo_vm_classify(NULL, NULL, NULL, out);
      return gcb_err_set(err, GCB_EIO, "%s%s: cannot read: %s", base, rel[i],
                         strerror(-r));
    }
    have[i] = r ? text[i] : NULL;
  }
  gcb_topo_vm_classify(have[0], have[1], have[2], out);
  return GCB_OK;
}

void gcb__topo_vm_from_xml(struct gcb_topo *t) {
  hwloc_obj_t root = hwloc_get_root_obj(t->topology);
  const char *vendor = hwloc_obj_get_info_by_name(root, "DMISysVendor");
  const char *product = hwloc_obj_get_info_by_name(root, "DMIProductName");
  gcb_topo_vm_classify(NULL, vendor, product, &t->vm);
  if (vendor == NULL && product == NULL)
    snprintf(t->vm.evidence, sizeof t->vm.evidence,
             "no DMI strings in the file, and XML never records CPU flags");
}

const struct gcb_topo_vm *gcb_topo_vm(const struct gcb_topo *t) {
  return &t->vm;
}
