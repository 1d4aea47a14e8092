/*
 * `gcbench topo [--topology-xml FILE] [--cpuset LIST@GPU;...] [--format
 * text|json]`: the topology of this machine or of a saved hwloc XML, as the
 * matrix of path classes between GPUs and NICs (nvidia-smi topo -m style,
 * with CPU and NUMA affinity), the legend, each device's bus id, link and
 * nearest NIC, expected bandwidths, NUMA nodes, PCIe switches, suspicious
 * facts, and the binding check of the ranks given with --cpuset with the
 * launcher lines that fix it. Rank 0 does all of it; no MPI calls.
 */
#include "bench/cli/topo_command.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/options.h"
#include "reports/reports.h"
#include "topo/topo.h"

struct topo_opts {
  const char *xml;
  const char *cpuset;
  int format;
};

static const char *const formats[] = {"text", "json", NULL};

static const struct gcb_option topo_options[] = {
    {.name = "topology-xml",
     .type = GCB_OPT_STRING,
     .offset = offsetof(struct topo_opts, xml),
     .metavar = "FILE",
     .help = "a saved hwloc XML topology (lstopo file.xml) instead of this "
             "machine"},
    {.name = "cpuset",
     .type = GCB_OPT_STRING,
     .offset = offsetof(struct topo_opts, cpuset),
     .metavar = "LIST[@GPU];...",
     .help = "check the bindings of one node's ranks, in local rank order: a "
             "CPU list and GPU index per rank, e.g. '0-5@0;6-11@1' (without "
             "@GPU, rank i uses GPU i mod #GPUs); exit 1 on problems"},
    {.name = "format",
     .type = GCB_OPT_CHOICE,
     .offset = offsetof(struct topo_opts, format),
     .def = "text",
     .metavar = "FMT",
     .help = "text, or json (the results document's topology summary)",
     .choices = formats},
    {0},
};

/* --- --cpuset ------------------------------------------------------------- */

struct rankset {
  struct gcb_topo_rank *ranks;
  int n;
  char *text; /* the option's copy that ranks[].cpus point into */
};

static enum gcb_status parse_rank(char *item, int i, int ngpus,
                                  struct gcb_topo_rank *r,
                                  struct gcb_err *err) {
  char *at = strchr(item, '@');
  r->rank = i;
  r->cpus = item;
  r->gpu = ngpus > 0 ? i % ngpus : -1;
  if (at) {
    char *end;
    *at = '\0';
    r->gpu = (int)strtol(at + 1, &end, 10);
    if (end == at + 1 || *end != '\0' || r->gpu < 0)
      return gcb_err_set(err, GCB_EUSAGE, "--cpuset: bad GPU '%s' for rank %d",
                         at + 1, i);
  }
  return GCB_OK;
}

static enum gcb_status parse_cpuset(const char *text, int ngpus,
                                    struct rankset *rs, struct gcb_err *err) {
  int n = 1;
  for (const char *c = text; *c; c++)
    n += *c == ';';
  rs->text = strdup(text);
  rs->ranks = calloc((size_t)n, sizeof *rs->ranks);
  if (rs->text == NULL || rs->ranks == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "out of memory");
  char *save = NULL;
  enum gcb_status st = GCB_OK;
  for (char *item = strtok_r(rs->text, ";", &save); item && st == GCB_OK;
       item = strtok_r(NULL, ";", &save)) {
    st = parse_rank(item, rs->n, ngpus, &rs->ranks[rs->n], err);
    rs->n++;
  }
  if (st == GCB_OK && rs->n == 0)
    st = gcb_err_set(err, GCB_EUSAGE, "--cpuset: no rank given");
  return st;
}

static void rankset_free(struct rankset *rs) {
  free(rs->ranks);
  free(rs->text);
}

/* --- text output ---------------------------------------------------------- */

static struct gcb_topo_ref device_ref(const struct gcb_topo *t, int i) {
  int ngpus = gcb_topo_gpu_count(t);
  return i < ngpus ? (struct gcb_topo_ref){GCB_TOPO_GPU, i}
                   : (struct gcb_topo_ref){GCB_TOPO_NIC, i - ngpus};
}

static void device_name(struct gcb_topo_ref r, char *buf, size_t len) {
  snprintf(buf, len, "%s%d", r.kind == GCB_TOPO_GPU ? "GPU" : "NIC", r.index);
}

static const char *device_cpus(const struct gcb_topo *t,
                               struct gcb_topo_ref r) {
  return r.kind == GCB_TOPO_GPU ? gcb_topo_gpu(t, r.index)->cpus
                                : gcb_topo_nic(t, r.index)->cpus;
}

static void affinity(const struct gcb_topo *t, struct gcb_topo_ref r,
                     int width) {
  int numa = r.kind == GCB_TOPO_GPU ? gcb_topo_gpu(t, r.index)->numa
                                    : gcb_topo_nic(t, r.index)->numa;
  printf("  %-*s ", width, device_cpus(t, r));
  if (numa >= 0)
    printf("%d\n", numa);
  else
    printf("N/A\n");
}

static void matrix_row(const struct gcb_topo *t, int a, int n, int pcie,
                       int width) {
  char name[16], label[16];
  device_name(device_ref(t, a), name, sizeof name);
  printf("%-7s", name);
  for (int b = 0; b < n; b++) {
    struct gcb_topo_path p = {GCB_TOPO_SYS, GCB_TOPO_SYS, 0};
    gcb_topo_path(t, device_ref(t, a), device_ref(t, b), &p, NULL);
    if (pcie)
      p.cls = p.pcie;
    gcb_topo_path_label(&p, label, sizeof label);
    printf(" %-5s", label);
  }
  affinity(t, device_ref(t, a), width);
}

static void print_matrix(const struct gcb_topo *t, int pcie) {
  int n = gcb_topo_gpu_count(t) + gcb_topo_nic_count(t);
  char name[16];
  /* As wide as the longest CPU list ("0-1,8-9,16-17,24-25"), so that the
   * NUMA column stays a column. */
  int width = 14;
  for (int a = 0; a < n; a++) {
    int len = (int)strlen(device_cpus(t, device_ref(t, a)));
    width = len > width ? len : width;
  }
  printf("%-7s", "");
  for (int b = 0; b < n; b++) {
    device_name(device_ref(t, b), name, sizeof name);
    printf(" %-5s", name);
  }
  printf("  %-*s %s\n", width, "CPU Affinity", "NUMA Affinity");
  for (int a = 0; a < n; a++)
    matrix_row(t, a, n, pcie, width);
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

static void print_legend(void) {
  printf("\nLegend:\n"
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

static void print_gpus(const struct gcb_topo *t) {
  char link[96], near[96], nv[16];
  for (int i = 0; i < gcb_topo_gpu_count(t); i++) {
    const struct gcb_topo_gpu *g = gcb_topo_gpu(t, i);
    link_text(g->path, g->npath, link, sizeof link);
    nearest_text(t, i, near, sizeof near);
    if (g->nvlinks >= 0)
      snprintf(nv, sizeof nv, "%d", g->nvlinks);
    else
      snprintf(nv, sizeof nv, "?");
    printf("  GPU%-3d %s  %-26s NVLinks %-3s nearest NIC %-16s %s %s (%s)\n", i,
           g->busid, link, nv, near, g->vendor, g->model[0] ? g->model : "?",
           g->arch);
  }
}

static void print_nics(const struct gcb_topo *t) {
  char link[96];
  for (int i = 0; i < gcb_topo_nic_count(t); i++) {
    const struct gcb_topo_nic *n = gcb_topo_nic(t, i);
    link_text(n->path, n->npath, link, sizeof link);
    printf("  NIC%-3d %s  %-26s %s%s  [%s]\n", i, n->busid, link,
           n->name[0] ? n->name : "?", n->rdma ? " (RDMA)" : "", n->osdevs);
  }
}

static void print_host_links(const struct gcb_topo *t) {
  for (int i = 0; i < gcb_topo_gpu_count(t); i++) {
    double gbps = 0;
    char basis[256];
    struct gcb_topo_ref a = {GCB_TOPO_GPU, i}, host = {GCB_TOPO_HOST, -1};
    gcb_topo_expected_gbps(t, a, host, &gbps, basis, sizeof basis, NULL);
    printf("  GPU%-3d <-> CPU    %8.2f  %s\n", i, gbps, basis);
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

static void print_pair_kinds(const struct gcb_topo *t) {
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
    printf("  GPU%-3d <-> GPU%-3d %8.2f  %-4s %3d pairs  %s\n", kinds[k].a,
           kinds[k].b, gbps, kinds[k].label, kinds[k].count, basis);
  }
}

static void print_numa(const struct gcb_topo *t) {
  for (int i = 0; i < gcb_topo_numa_count(t); i++) {
    const struct gcb_topo_numa *n = gcb_topo_numa(t, i);
    printf("  NUMA %-3d CPUs %-20s %.1f GiB\n", n->os_index, n->cpus,
           (double)n->memory_bytes / (1024.0 * 1024 * 1024));
  }
}

static void print_switches(const struct gcb_topo *t) {
  printf("\nPCIe switches: %d\n", gcb_topo_switch_count(t));
  for (int i = 0; i < gcb_topo_switch_count(t); i++) {
    const struct gcb_topo_switch *s = gcb_topo_switch(t, i);
    printf("  SW%-3d  %s  %04x:%04x  %d downstream ports  uplink %.2f GB/s"
           "  NUMA %d\n",
           i, s->busid, s->vendor_id, s->device_id, s->downstream_ports,
           s->uplink_gbps, s->numa);
  }
}

static void print_facts(const struct gcb_topo *t) {
  int n = gcb_topo_fact_count(t);
  printf("\nSuspicious facts: %s\n", n ? "" : "none");
  for (int i = 0; i < n; i++) {
    const struct gcb_topo_fact *f = gcb_topo_fact(t, i);
    printf("  - [%s] %s\n", gcb_topo_fact_name(f->kind), f->text);
  }
}

static void print_header(const struct gcb_topo *t, const char *xml) {
  struct gcb_topo_summary s;
  char version[32];
  gcb_topo_summarize(t, &s);
  gcb_topo_hwloc_version(version, sizeof version);
  const struct gcb_topo_vm *vm = gcb_topo_vm(t);
  printf("Topology: %s (hwloc %s)\n", xml ? xml : "this machine", version);
  printf("Machine: %d package(s), %d NUMA node(s), %d cores, %d PUs%s%s\n",
         s.packages, s.numa_nodes, s.cores, s.pus, s.cpu_model[0] ? ", " : "",
         s.cpu_model);
  if (vm->detected)
    printf("Virtual machine: yes, hypervisor %s (%s)\n", vm->hypervisor,
           vm->evidence);
  else
    printf("Virtual machine: none seen (%s)\n", vm->evidence);
  printf("GPUs: %d, NICs: %d\n\n", gcb_topo_gpu_count(t),
         gcb_topo_nic_count(t));
}

static void print_text(const struct gcb_topo *t, const char *xml) {
  print_header(t, xml);
  print_matrix(t, 0);
  if (any_nvlink(t)) {
    printf("\nPCIe paths (the same pairs without NVLink):\n");
    print_matrix(t, 1);
  }
  print_legend();
  printf("\nGPUs:%s\n", gcb_topo_gpu_count(t) ? "" : " none");
  print_gpus(t);
  printf("\nNICs:%s\n", gcb_topo_nic_count(t) ? "" : " none");
  print_nics(t);
  if (gcb_topo_gpu_count(t) > 0) {
    printf("\nExpected bandwidth, GB/s per direction:\n");
    print_host_links(t);
    print_pair_kinds(t);
  }
  printf("\nNUMA nodes:\n");
  print_numa(t);
  print_switches(t);
  print_facts(t);
}

/* --- binding -------------------------------------------------------------- */

static int print_problems(const struct gcb_topo *t, const struct rankset *rs,
                          struct gcb_err *err) {
  struct gcb_topo_problem *probs = NULL;
  int n = 0;
  if (gcb_topo_check_ranks(t, rs->ranks, rs->n, &probs, &n, err) != GCB_OK)
    return -1;
  printf("\nBinding of %d rank(s): %s\n", rs->n, n ? "" : "no problem");
  for (int i = 0; i < n; i++)
    printf("  - [%s] %s\n    fix: %s\n", gcb_topo_problem_name(probs[i].kind),
           probs[i].what, probs[i].fix);
  free(probs);
  if (n > 0) {
    char fix[4096];
    if (gcb_topo_binding_fix(t, rs->ranks, rs->n, fix, sizeof fix, err) !=
        GCB_OK)
      return -1;
    printf("\nLaunch lines that bind each rank near its GPU:\n%s", fix);
  }
  return n;
}

static void print_own_binding(const struct gcb_topo *t) {
  char list[256];
  int pus = 0, whole = 0;
  if (gcb_topo_own_binding(t, list, sizeof list, &pus, NULL) != GCB_OK ||
      gcb_topo_binding_is_whole(t, list, &whole, NULL) != GCB_OK)
    return;
  printf("\nThis process: bound to CPUs %s (%d PUs)%s; check ranks with "
         "--cpuset\n",
         list, pus, whole ? ", i.e. not bound" : "");
}

/* JSON: the topology summary, plus the binding problems when asked for. */
static int print_json(const struct gcb_topo *t, const struct rankset *rs,
                      struct gcb_err *err) {
  json_t *doc = gcb_results_topology_json(t);
  struct gcb_topo_problem *probs = NULL;
  int n = 0;
  if (doc && rs->n > 0) {
    if (gcb_topo_check_ranks(t, rs->ranks, rs->n, &probs, &n, err) != GCB_OK) {
      json_decref(doc);
      return -1;
    }
    if (json_object_set_new(doc, "binding_problems",
                            gcb_results_placement_json(probs, n)) != 0) {
      json_decref(doc);
      doc = NULL;
    }
    free(probs);
  }
  /* One string, one write: stdout is unbuffered after MPI_Init, and
   * json_dumpf wrote each token with its own write(2) (4.5 million for
   * 1,000 GPUs). */
  char *text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
  json_decref(doc);
  if (text == NULL) {
    gcb_err_set(err, GCB_ENOMEM, "cannot build the JSON document");
    return -1;
  }
  fwrite(text, 1, strlen(text), stdout);
  printf("\n");
  free(text);
  return n;
}

/* --- the command ---------------------------------------------------------- */

static int run(const struct topo_opts *o, struct gcb_err *err) {
  struct gcb_topo *t = NULL;
  struct rankset rs = {0};
  enum gcb_status st = gcb_topo_load(o->xml, &t, err);
  if (st == GCB_OK && o->cpuset)
    st = parse_cpuset(o->cpuset, gcb_topo_gpu_count(t), &rs, err);
  int problems = 0;
  if (st == GCB_OK && o->format == 1) {
    problems = print_json(t, &rs, err);
  } else if (st == GCB_OK) {
    print_text(t, o->xml);
    if (rs.n > 0)
      problems = print_problems(t, &rs, err);
    else if (!gcb_topo_is_from_xml(t))
      print_own_binding(t);
  }
  if (st == GCB_OK && problems < 0)
    st = err->code;
  rankset_free(&rs);
  gcb_topo_free(t);
  if (st != GCB_OK) {
    int code = gcb_status_exit_code(st);
    return code ? code : 3;
  }
  return problems > 0;
}

int gcb__topo_command(int argc, char **argv, int rank) {
  struct topo_opts opts;
  struct gcb_option_group groups[] = {{"topo options", topo_options, &opts}};
  bool help = false;
  struct gcb_err err = {0};
  if (gcb_options_parse(groups, 1, argc, argv, &help, NULL, 0, NULL, &err) !=
      GCB_OK) {
    if (rank == 0)
      fprintf(stderr, "gcbench: error: %s\n", err.msg);
    return 2;
  }
  if (rank != 0)
    return 0;
  if (help) {
    printf("usage: gcbench topo [options]\n\nGPUs, NICs and the paths between "
           "them (nvidia-smi topo -m style), expected bandwidths, suspicious "
           "facts and, with --cpuset, binding problems with their fixes.\n");
    gcb_options_help(stdout, groups, 1);
    return 0;
  }
  int code = run(&opts, &err);
  if (code >= 2)
    fprintf(stderr, "gcbench: error: %s\n", err.msg);
  return code;
}
