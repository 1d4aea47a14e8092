/*
 * Accessors over nodes[].topology. GPUs are matched by canonical bus id
 * because that is the one name every tool agrees on (CUDA device numbers
 * change with CUDA_VISIBLE_DEVICES; bus ids do not).
 */
#include "reports/document/topo_view.h"

#include <math.h>

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

double gcb_topo_view_host_gbps(const json_t *gpu) {
  double v = gcb_view_num(gcb_view_obj(gpu, "host_link"), "expected_gbps");
  return v > 0 ? v : NAN;
}
