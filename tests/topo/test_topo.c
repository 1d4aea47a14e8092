/* Topology loading and summaries on real captured hwloc XML files, and
 * binding strings (binding calls on XML return fake results, so lists are
 * injected as strings). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topo/topo.h"

#define TOPO(name) GCB_TEST_DATA "/topo/" name

struct summary_case {
  const char *file;
  int packages, numa_nodes, cores, pus;
};

static const struct summary_case summary_cases[] = {
    {TOPO("hwloc-2socket-3gpu-ib.xml"), 2, 2, 12, 24},
    {TOPO("hwloc-nvidia-dgx2.xml"), 2, 2, 4, 4},
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), 2, 2, 8, 16},
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), 2, 2, 48, 96},
    {TOPO("mpibind-lassen-4xv100.xml"), 2, 2, 40, 160},
    {TOPO("mpibind-tioga-8xmi250x.xml"), 1, 4, 64, 128},
};

Test(topo, summaries_of_real_gpu_servers_match_hwloc_calc) {
  for (size_t i = 0; i < sizeof summary_cases / sizeof *summary_cases; i++) {
    const struct summary_case *c = &summary_cases[i];
    struct gcb_topo *t = NULL;
    struct gcb_err err = {0};
    cr_assert_eq(gcb_topo_load(c->file, &t, &err), GCB_OK, "%s: %s", c->file,
                 err.msg);
    cr_expect(gcb_topo_is_from_xml(t));
    struct gcb_topo_summary s;
    gcb_topo_summarize(t, &s);
    cr_expect_eq(s.packages, c->packages, "%s packages %d", c->file,
                 s.packages);
    cr_expect_eq(s.numa_nodes, c->numa_nodes, "%s numa %d", c->file,
                 s.numa_nodes);
    cr_expect_eq(s.cores, c->cores, "%s cores %d", c->file, s.cores);
    cr_expect_eq(s.pus, c->pus, "%s pus %d", c->file, s.pus);
    cr_expect_gt(s.memory_bytes, 0);
    gcb_topo_free(t);
  }
}

Test(topo, last_level_cache_is_summed_over_packages) {
  struct gcb_topo *t = NULL;
  cr_assert_eq(gcb_topo_load(TOPO("hwloc-2socket-3gpu-ib.xml"), &t, NULL),
               GCB_OK);
  struct gcb_topo_summary s;
  gcb_topo_summarize(t, &s);
  cr_expect_eq(s.llc_bytes, (uint64_t)2 * 12 * 1024 * 1024, "llc %llu",
               (unsigned long long)s.llc_bytes);
  gcb_topo_free(t);
}

Test(topo, own_binding_is_refused_on_an_xml_topology) {
  struct gcb_topo *t = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_topo_load(TOPO("hwloc-nvidia-dgx2.xml"), &t, &err), GCB_OK);
  char list[64];
  int pus = -1;
  cr_expect_eq(gcb_topo_own_binding(t, list, sizeof list, &pus, &err),
               GCB_EUNSUPPORTED);
  gcb_topo_free(t);
}

Test(topo, own_binding_on_this_machine_is_within_its_pus) {
  struct gcb_topo *t = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_topo_load(NULL, &t, &err), GCB_OK, "%s", err.msg);
  struct gcb_topo_summary s;
  gcb_topo_summarize(t, &s);
  char list[256];
  int pus = 0;
  cr_assert_eq(gcb_topo_own_binding(t, list, sizeof list, &pus, &err), GCB_OK);
  cr_expect_gt(pus, 0);
  cr_expect_leq(pus, s.pus);
  cr_expect_gt(strlen(list), 0);
  gcb_topo_free(t);
}

struct whole_case {
  const char *list;
  enum gcb_status status;
  int whole;
};

static const struct whole_case whole_cases[] = {
    {"0-23", GCB_OK, 1},  {"0-47", GCB_OK, 1},        {"0-11", GCB_OK, 0},
    {"0,2,4", GCB_OK, 0}, {"garbage", GCB_EINPUT, 0},
};

Test(topo, binding_covering_every_pu_counts_as_unbound) {
  struct gcb_topo *t = NULL;
  cr_assert_eq(gcb_topo_load(TOPO("hwloc-2socket-3gpu-ib.xml"), &t, NULL),
               GCB_OK);
  for (size_t i = 0; i < sizeof whole_cases / sizeof *whole_cases; i++) {
    const struct whole_case *c = &whole_cases[i];
    struct gcb_err err = {0};
    int whole = -1;
    cr_expect_eq(gcb_topo_binding_is_whole(t, c->list, &whole, &err), c->status,
                 "'%s'", c->list);
    if (c->status == GCB_OK)
      cr_expect_eq(whole, c->whole, "'%s'", c->list);
    else
      cr_expect(strstr(err.msg, c->list) != NULL, "%s", err.msg);
  }
  gcb_topo_free(t);
}

Test(topo, unreadable_or_malformed_xml_names_the_file) {
  char path[] = "/tmp/gcb-topo-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  const char junk[] = "<?xml version=\"1.0\"?><topology><object type=";
  cr_assert_eq(write(fd, junk, sizeof junk - 1), (ssize_t)(sizeof junk - 1));
  close(fd);
  const char *files[] = {path, "/nonexistent/topo.xml"};
  for (size_t i = 0; i < 2; i++) {
    struct gcb_topo *t = (struct gcb_topo *)1;
    struct gcb_err err = {0};
    cr_expect_eq(gcb_topo_load(files[i], &t, &err), GCB_EINPUT, "%s", files[i]);
    cr_expect_null(t);
    cr_expect(strstr(err.msg, files[i]) != NULL, "%s", err.msg);
  }
  unlink(path);
}

Test(topo, hwloc_release_version_is_reported_not_the_api_level) {
  char v[32];
  gcb_topo_hwloc_version(v, sizeof v);
  cr_expect_eq(v[0], '2', "%s", v);
  cr_expect(strstr(v, "API") == NULL, "%s", v);
}

/* A copy of a real file with its format version raised to 3.0, as hwloc 3
 * writes it. */
static void write_v3_copy(const char *path) {
  FILE *in = fopen(TOPO("hwloc-nvidia-dgx2.xml"), "r");
  FILE *out = fopen(path, "w");
  cr_assert(in && out);
  char line[4096];
  while (fgets(line, sizeof line, in)) {
    char *v = strstr(line, "<topology version=\"2.0\">");
    fputs(v ? "<topology version=\"3.0\">\n" : line, out);
  }
  fclose(in);
  fclose(out);
}

Test(topo, hwloc3_format_xml_gives_one_clear_line) {
  char path[] = "/tmp/gcb-topo-v3-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  close(fd);
  write_v3_copy(path);
  struct gcb_topo *t = (struct gcb_topo *)1;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_topo_load(path, &t, &err), GCB_EINPUT);
  cr_expect_null(t);
  cr_expect(strstr(err.msg, path) && strstr(err.msg, "hwloc 3") &&
                !strchr(err.msg, '\n'),
            "%s", err.msg);
  unlink(path);
}

struct find_case {
  const char *busid;
  int gpu;
};

static const struct find_case find_cases[] = {
    {"0000:34:00.0", 0},  {"00000000:b7:00.0", 8}, {"0000:B7:00.0", 8},
    {"b7:00.0", 8},       {"0000:e7:00.0", 15},    {"0000:35:00.0", -1},
    {"0000:61:00.0", -1}, /* an NVSwitch, not a GPU */
    {"not a bus id", -1},
};

Test(topo, gpus_are_found_by_bus_id_in_any_case_and_domain_width) {
  struct gcb_topo *t = NULL;
  cr_assert_eq(gcb_topo_load(TOPO("hwloc-nvidia-dgx2.xml"), &t, NULL), GCB_OK);
  for (size_t i = 0; i < sizeof find_cases / sizeof *find_cases; i++)
    cr_expect_eq(gcb_topo_find_gpu_by_busid(t, find_cases[i].busid),
                 find_cases[i].gpu, "%s", find_cases[i].busid);
  cr_expect_eq(gcb_topo_find_nic_by_busid(t, "0000:34:00.0"), -1);
  gcb_topo_free(t);
}

struct vm_case {
  const char *what, *cpuinfo, *vendor, *product;
  int detected;
  const char *hypervisor;
};

#define FLAGS_VM "processor\t: 0\nflags\t\t: fpu vme sse2 hypervisor lahf_lm\n"
#define FLAGS_METAL "processor\t: 0\nflags\t\t: fpu vme sse2 lahf_lm\n"

static const struct vm_case vm_cases[] = {
    {"cpu flag only", FLAGS_VM, NULL, NULL, 1, "unknown"},
    {"no flag, no dmi", FLAGS_METAL, NULL, NULL, 0, ""},
    {"nothing known", NULL, NULL, NULL, 0, ""},
    {"flag word must be whole", "flags\t: hypervisor_x nohypervisor\n", NULL,
     NULL, 0, ""},
    {"qemu", NULL, "QEMU", "Standard PC (Q35 + ICH9, 2009)", 1, "QEMU/KVM"},
    {"kvm", NULL, "Red Hat", "KVM", 1, "KVM"},
    {"vmware", FLAGS_VM, "VMware, Inc.", "VMware Virtual Platform", 1,
     "VMware"},
    {"xen", NULL, "Xen", "HVM domU", 1, "Xen"},
    {"hyper-v", NULL, "Microsoft Corporation", "Virtual Machine", 1, "Hyper-V"},
    {"surface is not a vm", FLAGS_METAL, "Microsoft Corporation", "Surface Pro",
     0, ""},
    {"gce", NULL, "Google", "Google Compute Engine", 1,
     "Google Compute Engine"},
    {"ec2 vm", NULL, "Amazon EC2", "p4d.24xlarge", 1, "Amazon EC2 (Nitro)"},
    {"ec2 metal", FLAGS_METAL, "Amazon EC2", "g4dn.metal", 0, ""},
    {"bare metal server", FLAGS_METAL, "HP", "ProLiant SL390s G7", 0, ""},
};

Test(topo, hypervisors_are_told_by_cpu_flag_and_dmi_strings) {
  for (size_t i = 0; i < sizeof vm_cases / sizeof *vm_cases; i++) {
    const struct vm_case *c = &vm_cases[i];
    struct gcb_topo_vm vm;
    gcb_topo_vm_classify(c->cpuinfo, c->vendor, c->product, &vm);
    cr_expect_eq(vm.detected, c->detected, "%s", c->what);
    cr_expect_str_eq(vm.hypervisor, c->hypervisor, "%s", c->what);
    cr_expect_gt(strlen(vm.evidence), 0, "%s", c->what);
  }
}

static void write_file(const char *dir, const char *rel, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s%s", dir, rel);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs(text, f);
  fclose(f);
}

Test(topo, hypervisor_is_read_from_a_fake_proc_and_sys_tree) {
  char root[] = "/tmp/gcb-vmroot-XXXXXX";
  cr_assert_not_null(mkdtemp(root));
  char dir[512];
  const char *dirs[] = {"/proc", "/sys", "/sys/class", "/sys/class/dmi",
                        "/sys/class/dmi/id"};
  for (size_t i = 0; i < 5; i++) {
    snprintf(dir, sizeof dir, "%s%s", root, dirs[i]);
    cr_assert_eq(mkdir(dir, 0700), 0);
  }
  write_file(root, "/proc/cpuinfo", FLAGS_METAL);
  write_file(root, "/sys/class/dmi/id/sys_vendor", "QEMU\n");
  write_file(root, "/sys/class/dmi/id/product_name", "Standard PC\n");
  struct gcb_topo_vm vm;
  cr_expect_eq(gcb_topo_vm_read(root, &vm, NULL), GCB_OK);
  cr_expect(vm.detected);
  cr_expect_str_eq(vm.hypervisor, "QEMU/KVM");
  cr_expect(strstr(vm.evidence, "QEMU") != NULL, "%s", vm.evidence);
  const char *files[] = {"/proc/cpuinfo", "/sys/class/dmi/id/sys_vendor",
                         "/sys/class/dmi/id/product_name"};
  for (int i = 2; i >= 0; i--) {
    snprintf(dir, sizeof dir, "%s%s", root, files[i]);
    unlink(dir);
  }
  for (int i = 4; i >= 0; i--) {
    snprintf(dir, sizeof dir, "%s%s", root, dirs[i]);
    rmdir(dir);
  }
  rmdir(root);
}

Test(topo, a_missing_proc_and_sys_tree_means_unknown_not_an_error) {
  struct gcb_topo_vm vm;
  cr_expect_eq(gcb_topo_vm_read("/nonexistent-root", &vm, NULL), GCB_OK);
  cr_expect_not(vm.detected);
}

struct xml_vm_case {
  const char *file;
  const char *evidence; /* substring */
};

static const struct xml_vm_case xml_vm_cases[] = {
    {TOPO("mpibind-aws-g4dn-metal-8xt4.xml"), "bare-metal instance"},
    {TOPO("hwloc-nvidia-dgx2.xml"), "NVIDIA DGX-2H"},
    {TOPO("hwloc-power8-4xp100-nvlink.xml"), "no DMI strings"},
    {TOPO("mpibind-tioga-8xmi250x.xml"), "HPE_CRAY_EX235A"},
};

Test(topo, xml_captures_of_bare_metal_are_not_virtual_machines) {
  for (size_t i = 0; i < sizeof xml_vm_cases / sizeof *xml_vm_cases; i++) {
    struct gcb_topo *t = NULL;
    cr_assert_eq(gcb_topo_load(xml_vm_cases[i].file, &t, NULL), GCB_OK);
    const struct gcb_topo_vm *vm = gcb_topo_vm(t);
    cr_expect_not(vm->detected, "%s", xml_vm_cases[i].file);
    cr_expect(strstr(vm->evidence, xml_vm_cases[i].evidence) != NULL, "%s: %s",
              xml_vm_cases[i].file, vm->evidence);
    gcb_topo_free(t);
  }
}

Test(topo, live_load_records_what_the_system_says_about_a_hypervisor) {
  struct gcb_topo *t = NULL;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_topo_load(NULL, &t, &err), GCB_OK, "%s", err.msg);
  struct gcb_topo_vm direct;
  cr_assert_eq(gcb_topo_vm_read(NULL, &direct, NULL), GCB_OK);
  cr_expect_eq(gcb_topo_vm(t)->detected, direct.detected);
  cr_expect_str_eq(gcb_topo_vm(t)->hypervisor, direct.hypervisor);
  cr_expect_geq(gcb_topo_gpu_count(t), 0);
  cr_expect_geq(gcb_topo_numa_count(t), 1);
  gcb_topo_free(t);
}
