/*
 * The topology as text for a person (topo.h): the matrix of path classes
 * between GPUs and NICs in nvidia-smi topo -m's layout, with CPU and NUMA
 * affinity, the legend, each device's bus id, link and nearest NIC,
 * expected bandwidths, NUMA nodes, PCIe switches, suspicious facts, and a
 * binding check's problems with the launch lines that fix them. Everything
 * is written to the stream given, so `gcbench topo` and tests print the
 * same text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"

static struct gcb_topo_ref device_ref(const struct gcb_topo *t, int i) {
  int ngpus = gcb_topo_gpu_count(t);
  return i < ngpus ? (struct gcb_topo_ref){GCB_TOPO_GPU, i}
                   : (struct gcb_topo_ref){GCB_TOPO_NIC, i - ngpus};
}

static void device_name(struct gcb_topo_ref r, char *buf, size_t len) {
  snprintf(buf, len, "%s%d", r.kind == GCB_TOPO_GPU ? "GPU" : "NIC",
            r.index);
}

static const char *device_cpus(const struct gcb_topo *t,
                               struct gcb_topo_ref r) {
  return r.kind == GCB_TOPO_GPU ? gcb_topo_gpu(t, r.index)->cpus
                                : gcb_topo_nic(t, r.index)->cpus;
}

static void affinity(FILE *out, const struct gcb_topo *t, struct gcb_topo_ref r,
                     int width) {
  int numa = r.kind == GCB_TOPO_GPU ? gcb_topo_gpu(t, r.index)->numa
                                    : gcb_topo_nic(t, r.index)->numa;
  fprintf(out, "  %-*s ", width, device_cpus(t, r));
  if (numa >= 0)
    fprintf(out, "%d\n", numa);
  else
    fprintf(out, "N/A\n");
}

static void matrix_row(FILE *out, const struct gcb_topo *t, int a, int n,
                       int pcie, int width) {
  char name[16], label[16];
  device_name(device_ref(t, a), name, sizeof name);
  fprintf(out, "%-7s", name);
  for (int b = 0; b < n; b++) {
    struct gcb_topo_path p = {GCB_TOPO_SYS, GCB_TOPO_SYS, 0};
    gcb_topo_path(t, device_ref(t, a), device_ref(t, b), &p, NULL);
    if (pcie)
      p.cls = p.pcie;
    gcb_topo_path_label(&p, label, sizeof label);
    fprintf(out, " %-5s", label);
  }
  affinity(out, t, device_ref(t, a), width);
}

/* Past GCB_TOPO_MATRIX_MAX devices: the pairs counted per path class, in
 * the order the classes are first met (--format json has every pair). */
static void print_matrix_summary(FILE *out, const struct gcb_topo *t, int n,
                                 int pcie) {
  struct {
    char label[16];
    long count;
  } kinds[32];
  int nk = 0;
  long other = 0;
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++) {
      struct gcb_topo_path p = {GCB_TOPO_SYS, GCB_TOPO_SYS, 0};
      char label[16];
      gcb_topo_path(t, device_ref(t, a), device_ref(t, b), &p, NULL);
      if (pcie)
        p.cls = p.pcie;
      gcb_topo_path_label(&p, label, sizeof label);
      int k = 0;
      while (k < nk && strcmp(kinds[k].label, label) != 0)
        k++;
      if (k == nk && nk == 32) {
        other++;
        continue;
      }
      if (k == nk) {
        snprintf(kinds[k].label, sizeof kinds[k].label, "%s", label);
        kinds[nk++].count = 0;
      }
      kinds[k].count++;
    }
  fprintf(out,
          "%d devices: too many for a matrix a person reads (more than %d); "
          "the %ld pairs by path class (--format json has each pair):\n",
          n, GCB_TOPO_MATRIX_MAX, (long)n * (n - 1) / 2);
  for (int k = 0; k < nk; k++)
    fprintf(out, "  %-5s %ld pairs\n", kinds[k].label, kinds[k].count);
  if (other > 0)
    fprintf(out, "  other %ld pairs\n", other);
}

static void print_matrix(FILE *out, const struct gcb_topo *t, int pcie) {
  int n = gcb_topo_gpu_count(t) + gcb_topo_nic_count(t);
  char name[16];
  if (n > GCB_TOPO_MATRIX_MAX) {
    print_matrix_summary(out, t, n, pcie);
    return;
  }
  /* As wide as the longest CPU list ("0-1,8-9,16-17,24-25"), so that the
   * NUMA column stays a column. */
  int width = 14;
  for (int a = 0; a < n; a++) {
    int len = (int)strlen(device_cpus(t, device_ref(t, a)));
    width = len > width ? len : width;
  }
  fprintf(out, "%-7s", "");
  for (int b = 0; b < n; b++) {
    device_name(device_ref(t, b), name, sizeof name);
    fprintf(out, " %-5s", name);
  }
  fprintf(out, "  %-*s %s\n", width, "CPU Affinity", "NUMA Affinity");
  for (int a = 0; a < n; a++)
    matrix_row(out, t, a, n, pcie, width);
}

static int any_nvlink(const struct gcb_topo *t) {
  int n = gcb_topo_gpu_count(t);
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      struct gcb_topo_path p;
      if (gcb_topo_path(t, device_ref(t, a), device_ref(t, b), &p, NULL) ==
              GCB_OK &&
          p.nvlinks > 0)
        return 1;
    }
  return 0;
}

static void print_legend(FILE *out) {
  fprintf(out,
          "\nLegend:\n"
          "  X    = Self\n"
          "  SYS  = Connection traversing PCIe as well as the SMP interconnect "
          "between NUMA nodes (e.g., QPI/UPI)\n"
          "  NODE = Connection traversing PCIe as well as the interconnect "
          "between PCIe Host Bridges within a NUMA node\n"
          "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge "
          "(typically the CPU)\n"
          "  PXB  = Connection traversing multiple PCIe bridges (without "
          "traversing the PCIe Host Bridge)\n"
          "  PIX  = Connection traversing at most a single PCIe bridge\n"
          "  NV#  = Connection traversing a bonded set of # NVLinks\n");
}

static void link_text(const struct gcb_topo_hop *path, int npath, char *buf,
                      size_t len) {
  if (npath == 0 || path[0].gbps <= 0)
    snprintf(buf, len, "link ?");
  else if (path[0].link[0])
    snprintf(buf, len, "%s %.2f GB/s", path[0].link, path[0].gbps);
  else
    snprintf(buf, len, "%.2f GB/s", path[0].gbps);
}

static void nearest_text(const struct gcb_topo *t, int gpu, char *buf,
                         size_t len) {
  int nics[8];
  enum gcb_topo_class cls;
  int n = gcb_topo_nearest_nics(t, gpu, nics, 8, &cls);
  snprintf(buf, len, "%s", n > 0 ? "" : "none");
  for (int i = 0; i < n && i < 8; i++) {
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%sNIC%d", i ? "," : "", nics[i]);
  }
  if (n > 0) {
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, " (%s)", gcb_topo_class_name(cls));
  }
}

static void print_gpus(FILE *out, const struct gcb_topo *t) {
  char link[96], near[96], nv[16];
  for (int i = 0; i < gcb_topo_gpu_count(t); i++) {
    const struct gcb_topo_gpu *g = gcb_topo_gpu(t, i);
    link_text(g->path, g->npath, link, sizeof link);
    nearest_text(t, i, near, sizeof near);
    if (g->nvlinks >= 0)
      snprintf(nv, sizeof nv, "%d", g->nvlinks);
    else
      snprintf(nv, sizeof nv, "?");
    fprintf(out,
            "  GPU%-3d %s  %-26s NVLinks %-3s nearest NIC %-16s %s %s (%s)\n",
            i, g->busid, link, nv, near, g->vendor,
            g->model[0] ? g->model : "?", g->arch);
  }
}

static void print_nics(FILE *out, const struct gcb_topo *t) {
  char link[96];
  for (int i = 0; i < gcb_topo_nic_count(t); i++) {
    const struct gcb_topo_nic *n = gcb_topo_nic(t, i);
    link_text(n->path, n->npath, link, sizeof link);
    fprintf(out, "  NIC%-3d %s  %-26s %s%s  [%s]\n", i, n->busid, link,
            n->name[0] ? n->name : "?", n->rdma ? " (RDMA)" : "", n->osdevs);
  }
}

static void print_host_links(FILE *out, const struct gcb_topo *t) {
  for (int i = 0; i < gcb_topo_gpu_count(t); i++) {
    double gbps = 0;
    char basis[256];
    struct gcb_topo_ref a = {GCB_TOPO_GPU, i}, host = {GCB_TOPO_HOST, -1};
    gcb_topo_expected_gbps(t, a, host, &gbps, basis, sizeof basis, NULL);
    fprintf(out, "  GPU%-3d <-> CPU    %8.2f  %s\n", i, gbps, basis);
  }
}

/* A distinct (class, figure) among GPU pairs: its first pair, how many. */
struct pair_kind {
  char label[16];
  double gbps;
  int a, b, count;
};

static void tally_pair(const struct gcb_topo *t, int a, int b,
                       struct pair_kind *kinds, int *nk, int max) {
  struct gcb_topo_ref ra = {GCB_TOPO_GPU, a}, rb = {GCB_TOPO_GPU, b};
  struct gcb_topo_path p;
  char label[16];
  double gbps = 0;
  if (gcb_topo_path(t, ra, rb, &p, NULL) != GCB_OK)
    return;
  gcb_topo_path_label(&p, label, sizeof label);
  gcb_topo_expected_gbps(t, ra, rb, &gbps, NULL, 0, NULL);
  int k = 0;
  while (k < *nk && (strcmp(kinds[k].label, label) || kinds[k].gbps != gbps))
    k++;
  if (k == *nk && *nk == max)
    return;
  if (k == *nk) {
    kinds[k] = (struct pair_kind){.gbps = gbps, .a = a, .b = b};
    snprintf(kinds[k].label, sizeof kinds[k].label, "%s", label);
    (*nk)++;
  }
  kinds[k].count++;
}

static void print_pair_kinds(FILE *out, const struct gcb_topo *t) {
  struct pair_kind kinds[16];
  int nk = 0, n = gcb_topo_gpu_count(t);
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++)
      tally_pair(t, a, b, kinds, &nk, 16);
  for (int k = 0; k < nk; k++) {
    char basis[256];
    double gbps;
    struct gcb_topo_ref ra = {GCB_TOPO_GPU, kinds[k].a},
                        rb = {GCB_TOPO_GPU, kinds[k].b};
    gcb_topo_expected_gbps(t, ra, rb, &gbps, basis, sizeof basis, NULL);
    fprintf(out, "  GPU%-3d <-> GPU%-3d %8.2f  %-4s %3d pairs  %s\n",
            kinds[k].a, kinds[k].b, gbps, kinds[k].label, kinds[k].count,
            basis);
  }
}

static void print_numa(FILE *out, const struct gcb_topo *t) {
  for (int i = 0; i < gcb_topo_numa_count(t); i++) {
    const struct gcb_topo_numa *n = gcb_topo_numa(t, i);
    fprintf(out, "  NUMA %-3d CPUs %-20s %.1f GiB\n", n->os_index, n->cpus,
            (double)n->memory_bytes / (1024.0 * 1024 * 1024));
  }
}

static void print_switches(FILE *out, const struct gcb_topo *t) {
  fprintf(out, "\nPCIe switches: %d\n", gcb_topo_switch_count(t));
  for (int i = 0; i < gcb_topo_switch_count(t); i++) {
    const struct gcb_topo_switch *s = gcb_topo_switch(t, i);
    fprintf(out,
            "  SW%-3d  %s  %04x:%04x  %d downstream ports  uplink %.2f GB/s"
            "  NUMA %d\n",
            i, s->busid, s->vendor_id, s->device_id, s->downstream_ports,
            s->uplink_gbps, s->numa);
  }
}

static void print_facts(FILE *out, const struct gcb_topo *t) {
  int n = gcb_topo_fact_count(t);
  fprintf(out, "\nSuspicious facts: %s\n", n ? "" : "none");
  for (int i = 0; i < n; i++) {
    const struct gcb_topo_fact *f = gcb_topo_fact(t, i);
    fprintf(out, "  - [%s] %s\n", gcb_topo_fact_name(f->kind), f->text);
  }
}

static void print_header(FILE *out, const struct gcb_topo *t, const char *xml) {
  struct gcb_topo_summary s;
  char version[32];
  gcb_topo_summarize(t, &s);
  gcb_topo_hwloc_version(version, sizeof version);
  const struct gcb_topo_vm *vm = gcb_topo_vm(t);
  fprintf(out, "Topology: %s (hwloc %s)\n", xml ? xml : "this machine",
          version);
  fprintf(out,
          "Machine: %d package(s), %d NUMA node(s), %d cores, %d PUs%s%s\n",
          s.packages, s.numa_nodes, s.cores, s.pus, s.cpu_model[0] ? ", " : "",
          s.cpu_model);
  if (vm->detected)
    fprintf(out, "Virtual machine: yes, hypervisor %s (%s)\n", vm->hypervisor,
            vm->evidence);
  else
    fprintf(out, "Virtual machine: none seen (%s)\n", vm->evidence);
  fprintf(out, "GPUs: %d, NICs: %d\n\n", gcb_topo_gpu_count(t),
          gcb_topo_nic_count(t));
}

void gcb_topo_print(FILE *out, const struct gcb_topo *t, const char *xml) {
  print_header(out, t, xml);
  print_matrix(out, t, 0);
  if (any_nvlink(t)) {
    fprintf(out, "\nPCIe paths (the same pairs without NVLink):\n");
    print_matrix(out, t, 1);
  }
  print_legend(out);
  fprintf(out, "\nGPUs:%s\n", gcb_topo_gpu_count(t) ? "" : " none");
  print_gpus(out, t);
  fprintf(out, "\nNICs:%s\n", gcb_topo_nic_count(t) ? "" : " none");
  print_nics(out, t);
  if (gcb_topo_gpu_count(t) > 0) {
    fprintf(out, "\nExpected bandwidth, GB/s per direction:\n");
    print_host_links(out, t);
    print_pair_kinds(out, t);
  }
  fprintf(out, "\nNUMA nodes:\n");
  print_numa(out, t);
  print_switches(out, t);
  print_facts(out, t);
}

int gcb_topo_print_problems(FILE *out, const struct gcb_topo *t,
                            const struct gcb_topo_rank *ranks, int nranks,
                            struct gcb_err *err) {
  struct gcb_topo_problem *probs = NULL;
  int n = 0;
  if (gcb_topo_check_ranks(t, ranks, nranks, &probs, &n, err) != GCB_OK)
    return -1;
  fprintf(out, "\nBinding of %d rank(s): %s\n", nranks, n ? "" : "no problem");
  for (int i = 0; i < n; i++)
    fprintf(out, "  - [%s] %s\n    fix: %s\n",
            gcb_topo_problem_name(probs[i].kind), probs[i].what, probs[i].fix);
  free(probs);
  if (n > 0) {
    char fix[4096];
    if (gcb_topo_binding_fix(t, ranks, nranks, fix, sizeof fix, err) != GCB_OK)
      return -1;
    fprintf(out, "\nLaunch lines that bind each rank near its GPU:\n%s", fix);
  }
  return n;
}

void gcb_topo_print_own_binding(FILE *out, const struct gcb_topo *t) {
  char list[256];
  int pus = 0, whole = 0;
  if (gcb_topo_own_binding(t, list, sizeof list, &pus, NULL) != GCB_OK ||
      gcb_topo_binding_is_whole(t, list, &whole, NULL) != GCB_OK)
    return;
  fprintf(out,
          "\nThis process: bound to CPUs %s (%d PUs)%s; check ranks with "
          "--cpuset\n",
          list, pus, whole ? ", i.e. not bound" : "");
}
