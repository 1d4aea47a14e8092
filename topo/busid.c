/*
 * PCI bus ids: parsing the forms people and tools print (hwloc and lspci
 * "0000:19:00.0", CUDA and nvidia-smi "00000000:19:00.0", no domain at all
 * "19:00.0"), case-insensitively, and finding a GPU or NIC by one. This is
 * how CUDA devices are joined to hwloc objects.
 */
#include "topo/topo_int.h"

/* A hex field of 1..maxdigits digits ending at stop; advances *s past it. */
static int hex_field(const char **s, int maxdigits, char stop, unsigned *out) {
  unsigned v = 0;
  int n = 0;
  for (; **s && **s != stop; (*s)++, n++) {
    char c = **s;
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0 || n >= maxdigits)
      return -1;
    v = v * 16 + (unsigned)d;
  }
  if (n == 0 || **s != stop)
    return -1;
  if (stop)
    (*s)++;
  *out = v;
  return 0;
}

enum gcb_status gcb_topo_parse_busid(const char *text, unsigned *domain,
                                     unsigned *bus, unsigned *dev,
                                     unsigned *func, struct gcb_err *err) {
  const char *s = text ? text : "";
  int colons = 0;
  for (const char *c = s; *c; c++)
    colons += *c == ':';
  *domain = 0;
  int bad = colons < 1 || colons > 2;
  if (!bad && colons == 2)
    bad = hex_field(&s, 8, ':', domain) != 0;
  if (!bad)
    bad = hex_field(&s, 2, ':', bus) || hex_field(&s, 2, '.', dev) ||
          hex_field(&s, 1, '\0', func) || *dev > 0x1f || *func > 7;
  if (bad)
    return gcb_err_set(err, GCB_EINPUT,
                       "'%s' is not a PCI bus id (expected e.g. 0000:19:00.0)",
                       text ? text : "");
  return GCB_OK;
}

static int find_busid(hwloc_obj_t *objs, int n, const char *busid) {
  unsigned d, b, v, f;
  if (gcb_topo_parse_busid(busid, &d, &b, &v, &f, NULL) != GCB_OK)
    return -1;
  for (int i = 0; i < n; i++) {
    const struct hwloc_pcidev_attr_s *p = &objs[i]->attr->pcidev;
    if (p->domain == d && p->bus == b && p->dev == v && p->func == f)
      return i;
  }
  return -1;
}

int gcb_topo_find_gpu_by_busid(const struct gcb_topo *t, const char *busid) {
  return find_busid(t->gpu_objs, t->ngpus, busid);
}

int gcb_topo_find_nic_by_busid(const struct gcb_topo *t, const char *busid) {
  return find_busid(t->nic_objs, t->nnics, busid);
}
