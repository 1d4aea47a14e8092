/*
 * libFuzzer target: a topology XML through gcbench's own loading and
 * discovery (topo/xml.c, topo/topo.c: the file reader's caps, the nesting
 * check, hwloc's parser, the GPU, NIC, switch and NVLink discovery), then
 * everything `gcbench topo` and a run derive from it: the text, the
 * document's topology section, every device pair's path class and
 * expected bandwidth, each GPU's nearest NICs. The contract: a topology,
 * or one line saying why not; a loaded topology's figures are finite and
 * not negative, its section is a JSON object.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz/contract.h"
#include "reports/document/results.h"
#include "topo/topo.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* Device i of the GPUs then the NICs. */
static struct gcb_topo_ref device_ref(int ngpu, int i) {
  return i < ngpu ? (struct gcb_topo_ref){GCB_TOPO_GPU, i}
                  : (struct gcb_topo_ref){GCB_TOPO_NIC, i - ngpu};
}

/* An expected bandwidth: a figure, or 0 when unknown; never NaN. */
static void expect_figure(const struct gcb_topo *t, struct gcb_topo_ref a,
                          struct gcb_topo_ref b, struct gcb_err *err) {
  double gbps = 0;
  char basis[128];
  if (gcb_topo_expected_gbps(t, a, b, &gbps, basis, sizeof basis, err) !=
          GCB_OK ||
      !isfinite(gbps) || gbps < 0)
    gcb_fuzz_fail(err);
}

/* Every pair of devices, as the report and the diagnosis ask for them. */
static void walk_pairs(const struct gcb_topo *t, struct gcb_err *err) {
  int ngpu = gcb_topo_gpu_count(t), nnic = gcb_topo_nic_count(t);
  int n = ngpu + nnic;
  for (int a = 0; a < n && a < 64; a++)
    for (int b = 0; b < n && b < 64; b++) {
      struct gcb_topo_ref ra = device_ref(ngpu, a), rb = device_ref(ngpu, b);
      struct gcb_topo_path p;
      char label[32];
      if (gcb_topo_path(t, ra, rb, &p, err) != GCB_OK)
        gcb_fuzz_fail(err); /* both references are in range */
      gcb_topo_path_label(&p, label, sizeof label);
      expect_figure(t, ra, rb, err);
    }
  for (int a = 0; a < n && a < 64; a++) /* each device's host link */
    expect_figure(t, device_ref(ngpu, a),
                  (struct gcb_topo_ref){GCB_TOPO_HOST, -1}, err);
  for (int g = 0; g < ngpu; g++) {
    int nics[16];
    enum gcb_topo_class cls;
    int k = gcb_topo_nearest_nics(t, g, nics, 16, &cls);
    for (int i = 0; i < k && i < 16; i++)
      if (nics[i] < 0 || nics[i] >= nnic)
        gcb_fuzz_fail(err);
  }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  /* gcbench reads a path: the input becomes an unnamed file. */
  int fd = memfd_create("topo.xml", MFD_CLOEXEC);
  if (fd < 0)
    return 0;
  size_t done = 0;
  while (done < size) {
    ssize_t w = write(fd, data + done, size - done);
    if (w <= 0)
      break;
    done += (size_t)w;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  struct gcb_topo *t = NULL;
  struct gcb_err err = {0};
  enum gcb_status st = done == size ? gcb_topo_load(path, &t, &err) : GCB_OK;
  if (done == size && !gcb_fuzz_answer_ok(st, t != NULL, &err))
    gcb_fuzz_fail(&err);
  if (t != NULL) {
    walk_pairs(t, &err);
    FILE *sink = fopen("/dev/null", "w");
    if (sink != NULL) {
      gcb_topo_print(sink, t, path);
      fclose(sink);
    }
    json_t *section = gcb_results_topology_json(t);
    if (section != NULL && !json_is_object(section))
      gcb_fuzz_fail(&err);
    json_decref(section);
    gcb_topo_free(t);
  }
  close(fd);
  return 0;
}
