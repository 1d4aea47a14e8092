/*
 * Accessors over nodes[].topology. GPUs are matched by canonical bus id
 * because that is the one name every tool agrees on (CUDA device numbers
 * change with CUDA_VISIBLE_DEVICES; bus ids do not).
 */
#include "reports/document/topo_view.h"

#include <math.h>
#include <string.h>

#include "reports/document/view.h"

/* Whether text names the PCI function want: the same as comparing the
 * canonical forms (the form is one-to-one), without formatting either,
 * which was a tenth of a 16,384-rank report (a lookup per rank and GPU). */
bool gcb__topo_view_same_busid(const struct gcb_busid *want, const char *text) {
  struct gcb_busid have;
  return gcb_busid_parse(text, &have, NULL) == GCB_OK &&
         have.domain == want->domain && have.bus == want->bus &&
         have.dev == want->dev && have.func == want->func;
}

long long gcb_topo_view_gpu_by_busid(const json_t *topo, const char *busid) {
  struct gcb_busid want;
  const json_t *g;
  size_t i;
  if (topo == NULL || gcb_busid_parse(busid, &want, NULL) != GCB_OK)
    return -1;
  json_array_foreach(json_object_get(topo, "gpus"), i, g) {
    if (gcb__topo_view_same_busid(&want, gcb_view_str(g, "busid")))
      return gcb_view_int(g, "index", (long long)i);
  }
  return -1;
}

double gcb_topo_view_host_gbps(const json_t *gpu) {
  double v = gcb_view_num(gcb_view_obj(gpu, "host_link"), "expected_gbps");
  return v > 0 ? v : NAN;
}

/* Position of "GPU<index>" in paths.devices (GPUs come first, so this is
 * normally the index itself), or -1. */
static long long device_slot(const json_t *paths, long long index) {
  const json_t *devs = json_object_get(paths, "devices"), *d;
  char name[32], digits[24], *at = digits + sizeof digits;
  size_t i;
  if (index < 0)
    return -1;
  /* "GPU%lld" without printf: asked for every GPU pair of every node */
  *--at = '\0';
  for (long long v = index; at == digits + sizeof digits - 1 || v > 0; v /= 10)
    *--at = (char)('0' + v % 10);
  memcpy(name, "GPU", 3);
  memcpy(name + 3, at, (size_t)(digits + sizeof digits - at));
  d = json_array_get(devs, (size_t)index);
  if (d != NULL && json_is_string(d) && strcmp(json_string_value(d), name) == 0)
    return index;
  json_array_foreach(devs, i, d) {
    if (json_is_string(d) && strcmp(json_string_value(d), name) == 0)
      return (long long)i;
  }
  return -1;
}

static const json_t *pair_cell(const json_t *topo, const char *matrix,
                               long long a, long long b) {
  const json_t *paths = gcb_view_obj(topo, "paths");
  long long sa = device_slot(paths, a), sb = device_slot(paths, b);
  if (sa < 0 || sb < 0)
    return NULL;
  return json_array_get(
      json_array_get(json_object_get(paths, matrix), (size_t)sa), (size_t)sb);
}

const char *gcb_topo_view_pair_class(const json_t *topo, long long a,
                                     long long b) {
  const char *s = json_string_value(pair_cell(topo, "matrix", a, b));
  return s != NULL ? s : "";
}
