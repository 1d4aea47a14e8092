/*
 * The topology picture (reports/render/render_svg*.c): on the committed
 * 8-GPU fixture (gcbench, nccl-tests and nvbandwidth against the H200
 * criteria) every GPU is named with its GEMM figure, GPU 1 and the
 * GPU 2 -> GPU 6 pair are drawn failing and the healthy pairs passing; a
 * document carrying the real DGX-2 topology (16 GPUs, from the hwloc XML
 * of tests/data/topo) draws all 16 GPUs and its 240 pair cells within a
 * size bound, with a box for each of its 8 first-level PCIe switches; no
 * script and no external reference in either. A crafted node with a bad
 * host link under one switch and a degraded NIC under another draws both
 * switches and the NIC as boxes in their verdict's colour, and is XML.
 * Beyond 16 machines the page folds the healthy ones of one shape into
 * the first (named under the pictures); topology.svg still draws each.
 */
#include <unistd.h>

#include "reports/analysis/diagnose.h"
#include "reports/criteria/criteria.h"
#include "reports/interop/interop.h"
#include "reports/render/render_svg.h"
#include "reports/render/render_svg_int.h"
#include "tests/reports/report_fixture.h"
#include "topo/topo.h"

#define DATA(name) GCB_TEST_DATA "/" name

struct fx {
  struct gcb_results *res[3];
  struct gcb_doc docs[3];
  size_t ndocs;
  struct gcb_criteria *cr;
  struct gcb_check_result checks[32];
  struct gcb_thresholds th;
  struct gcb_findings f;
  struct gcb_diagnosis d;
  struct gcb_report rep;
};

static void load(struct fx *x, size_t ndocs, bool criteria) {
  static const char *const files[] = {"report-gpu8.json",
                                      "interop/nccl-tests-allreduce.json",
                                      "interop/nvbandwidth-h200.json"};
  struct gcb_err err = {0};
  for (size_t i = 0; i < ndocs; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, files[i]);
    struct gcb_model *m;
    cr_assert_eq(fx_interop_read(path, x->docs, i, &x->res[i], &m, NULL, &err),
                 GCB_OK, "%s", err.msg);
    x->docs[i] = fx_doc_read(files[i], x->res[i], m);
  }
  x->ndocs = ndocs;
  gcb_thresholds_default(&x->th);
  if (criteria) {
    cr_assert_eq(gcb_criteria_read(DATA("criteria-h200.json"), &x->cr, &err),
                 GCB_OK, "%s", err.msg);
    x->th = x->cr->thresholds;
  }
}

/* Diagnoses the documents as they are now (a test may have changed a
 * tree since load), each with its model, kept until done(). */
static void diagnose(struct fx *x) {
  struct gcb_err err = {0};
  for (size_t i = 0; i < x->ndocs; i++) /* a document read, or a tree */
    if (x->docs[i].model == NULL)
      x->docs[i] = x->res[i] != NULL
                       ? fx_doc_of_results(x->docs[i].name, x->res[i])
                       : fx_doc_of(x->docs[i].name, x->docs[i].root);
  cr_assert_eq(gcb_analyze(x->docs, x->ndocs, &x->th, &x->f, &err), GCB_OK);
  if (x->cr != NULL)
    cr_assert_eq(
        gcb_criteria_evaluate(x->cr, x->docs, x->ndocs, x->checks, &x->f, &err),
        GCB_OK, "%s", err.msg);
  gcb_findings_sort(&x->f);
  cr_assert_eq(gcb_diagnose(x->docs, x->ndocs, &x->f, &x->th, &x->d, &err),
               GCB_OK);
  x->rep = (struct gcb_report){.docs = x->docs,
                               .ndocs = x->ndocs,
                               .findings = &x->f,
                               .criteria = x->cr,
                               .checks = x->checks,
                               .thresholds = &x->th,
                               .diagnosis = &x->d};
}

static void done(struct fx *x) {
  gcb_diagnosis_free(&x->d);
  gcb_findings_free(&x->f);
  gcb_criteria_free(x->cr);
  fx_docs_free(x->docs, x->ndocs);
  for (size_t i = 0; i < 3; i++)
    gcb_results_free(x->res[i]);
}

static char *draw(const struct gcb_report *rep, bool standalone, size_t *len) {
  char *buf = NULL;
  FILE *m = open_memstream(&buf, len);
  struct gcb_err err = {0};
  enum gcb_status st = standalone ? gcb_render_topology.render(m, rep, &err)
                                  : gcb_svg_topology(m, rep, &err);
  cr_assert_eq(st, GCB_OK, "%s", err.msg);
  fclose(m);
  return buf;
}

static size_t count(const char *text, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

Test(render_svg, the_8_gpu_picture_names_each_gpu_and_colours_the_faults) {
  struct fx x = {0};
  load(&x, 3, true);
  diagnose(&x);
  cr_assert(gcb_svg_topology_any(&x.rep));
  size_t len;
  char *svg = draw(&x.rep, false, &len);
  struct gcb_matrix m = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_matrix_build(&x.rep, &x.d, &m, &err), GCB_OK);
  cr_assert_eq(m.n, 8);
  for (size_t g = 0; g < 8; g++) {
    char id[64], name[64];
    snprintf(id, sizeof id, "id=\"topo-0-gpu-%zu\"", g);
    snprintf(name, sizeof name, ">GPU %zu  %s<", g, m.rows[g].bus_id);
    cr_expect_eq(count(svg, id), 1, "GPU %zu drawn once", g);
    cr_expect_not_null(strstr(svg, name), "GPU %zu named: %s", g, name);
    /* a passing GPU shows its own GEMM figure */
    if (m.rows[g].cell[GCB_FAM_GEMM].state == GCB_CELL_PASS) {
      char fig[96];
      snprintf(fig, sizeof fig, ">GEMM %s<",
               m.rows[g].cell[GCB_FAM_GEMM].figure);
      cr_expect_not_null(strstr(svg, fig), "GPU %zu: %s", g, fig);
    }
  }
  cr_expect_not_null(strstr(svg, "class=\"gpu fail\" id=\"topo-0-gpu-1\""),
                     "GPU 1 fails");
  cr_expect_not_null(strstr(svg, ">GEMM 870.6 vs 1450 TFLOP/s<"),
                     "GPU 1 measured vs expected");
  cr_expect_not_null(strstr(svg, "class=\"gpu pass\" id=\"topo-0-gpu-0\""));
  cr_expect_not_null(strstr(svg, "class=\"edge fail\" id=\"topo-0-p2p-2-6\""),
                     "the GPU 2 -> GPU 6 pair fails");
  cr_expect_not_null(strstr(svg, "class=\"edge fail\" id=\"topo-0-arc-2-6\""),
                     "and is drawn as an arc");
  cr_expect_not_null(strstr(svg, "class=\"edge pass\" id=\"topo-0-p2p-6-2\""),
                     "the other direction measured fine");
  cr_expect_not_null(strstr(svg, "152.3 vs 450 GB/s"), "its figures");
  cr_expect_not_null(
      strstr(svg, "class=\"hostlink fail\" id=\"topo-0-host-5\""),
      "GPU 5's host link fails (the sources disagree)");
  cr_expect_eq(count(svg, "<script"), 0);
  cr_expect_eq(count(svg, "href"), 0, "no external reference");
  gcb_matrix_free(&m);
  free(svg);
  done(&x);
}

Test(render_svg, the_dgx2_topology_stays_a_readable_bounded_picture) {
  struct fx x = {0};
  struct gcb_err err = {0};
  struct gcb_topo *t = NULL;
  load(&x, 1, false);
  cr_assert_eq(gcb_topo_load(DATA("topo/hwloc-nvidia-dgx2.xml"), &t, &err),
               GCB_OK, "%s", err.msg);
  json_t *node = json_array_get(json_object_get(x.docs[0].root, "nodes"), 0);
  json_object_set_new(node, "topology", gcb_results_topology_json(t));
  gcb_topo_free(t);
  fx_doc_free(&x.docs[0]); /* its model again, of the changed tree */
  diagnose(&x);
  size_t len;
  char *svg = draw(&x.rep, true, &len);
  cr_expect_lt(len, 120000, "the 16-GPU picture is %zu bytes", len);
  cr_expect_eq(count(svg, "class=\"gpu "), 16, "16 GPUs drawn");
  cr_expect_not_null(strstr(svg, "id=\"topo-0-gpu-15\""));
  cr_expect_eq(count(svg, "id=\"topo-0-p2p-"), 256, "a cell per pair");
  cr_expect_eq(count(svg, "id=\"topo-0-arc-"), 0, "no arcs over two rows");
  cr_expect_eq(count(svg, "class=\"switch "), 8,
               "a box per switch above a pair of V100s (PLX, PIX pairs)");
  cr_expect_not_null(strstr(svg, "NV6 x 120 pairs"), "%.300s",
                     strstr(svg, "GPU\xe2\x86\x94GPU"));
  cr_expect(strncmp(svg, "<svg xmlns=", 11) == 0, "a standalone SVG");
  cr_expect_eq(count(svg, "<svg"), 1);
  free(svg);
  done(&x);
}

/* ---- PCIe switches and NICs ------------------------------------------------
 * An 8-GPU node whose GPUs 2-3 sit under switch 0 and GPUs 4-5 and the NIC
 * mlx5_0 under switch 1; GPU 2's H2D copy reaches 20 of 63 GB/s and the
 * NIC's link reads below its port. Switch 0 carries the failing host link:
 * it fails; switch 1 carries a warned NIC: it warns; the NIC warns. */
static json_t *switched_node(void) {
  static const double even[8] = {100, 101, 99, 100, 100, 101, 99, 100};
  double h2d[8];
  json_t *doc = fx_doc(8, 1, 64, "Test CPU");
  fx_add_topology(doc, 8, 64);
  fx_add_case(doc, fx_case("gemm", "bf16", "{\"dtype\": \"bf16\"}", "GFLOP/s",
                           even, 8, 0.01, NULL));
  for (int i = 0; i < 8; i++)
    h2d[i] = i == 2 ? 20 : 52 * (1 + i * 0.001);
  fx_add_case(doc, fx_case("pcie", "h2d",
                           "{\"direction\": \"h2d\", \"size\": 1073741824}",
                           "GB/s", h2d, 8, 0.01, NULL));
  json_t *topo = json_object_get(
      json_array_get(json_object_get(doc, "nodes"), 0), "topology");
  json_object_set_new(
      topo, "pcie_switches",
      json_pack("[{s:s, s:s, s:i, s:f, s:i}, {s:s, s:s, s:i, s:f, s:i}]",
                "busid", "0000:0f:00.0", "pci_id", "10b5:9781",
                "downstream_ports", 4, "uplink_gbps", 63.02, "numa", 0, "busid",
                "0000:8f:00.0", "pci_id", "10b5:9781", "downstream_ports", 4,
                "uplink_gbps", 63.02, "numa", 1));
  json_t *gpus = json_object_get(topo, "gpus");
  for (int i = 2; i < 6; i++)
    json_object_set_new(json_array_get(gpus, (size_t)i), "pcie_switch",
                        json_integer(i < 4 ? 0 : 1));
  json_array_append_new(
      json_object_get(topo, "nics"),
      json_pack("{s:i, s:s, s:s, s:b, s:i, s:s, s:f, s:i, s:[{s:s, s:s, s:f, "
                "s:i, s:i, s:s}, {s:s, s:s, s:f, s:i, s:i, s:s}]}",
                "index", 0, "busid", "0000:91:00.0", "name", "mlx5_0", "rdma",
                1, "numa", 1, "cpus", "32-63", "link_gbps", 15.75,
                "pcie_switch", 1, "pcie_path", "busid", "0000:91:00.0", "role",
                "device", "gbps", 15.75, "gen", 3, "width", 16, "link",
                "gen3 x16", "busid", "0000:90:01.0", "role",
                "switch-downstream", "gbps", 31.5, "gen", 4, "width", 16,
                "link", "gen4 x16"));
  json_array_append_new(
      json_object_get(topo, "facts"),
      json_pack("{s:s, s:n, s:i, s:s}", "kind", "link-mismatch", "gpu", "nic",
                0, "text",
                "mlx5_0: its link reads gen3 x16 (15.75 GB/s) under a gen4 "
                "x16 port"));
  fx_check_valid(doc);
  return doc;
}

/* The text of the element that carries `id` (from its '<' to its '>'). */
static char *element(const char *svg, const char *id) {
  const char *at = strstr(svg, id);
  if (at == NULL)
    return NULL;
  const char *open = at;
  while (open > svg && *open != '<')
    open--;
  const char *close = strchr(at, '>');
  return strndup(open, (size_t)(close - open + 1));
}

Test(render_svg, switches_and_nics_are_boxes_coloured_by_their_verdict) {
  struct fx x = {0};
  json_t *doc = switched_node();
  x.docs[0] = (struct gcb_doc){.name = "switched.json", .root = doc};
  x.ndocs = 1;
  gcb_thresholds_default(&x.th);
  diagnose(&x);
  size_t len;
  char *svg = draw(&x.rep, true, &len);
  cr_expect_eq(count(svg, "class=\"switch "), 2, "one box per switch");
  char *sw0 = element(svg, "id=\"topo-0-switch-0-2\"");
  char *sw1 = element(svg, "id=\"topo-0-switch-1-4\"");
  char *nic = element(svg, "id=\"topo-0-nic-0\"");
  cr_assert(sw0 && sw1 && nic, "%s", svg);
  cr_expect(strstr(sw0, "class=\"switch fail\"") &&
                strstr(sw0, "fill=\"#f8c9c9\""),
            "the bad host link below switch 0: %s", sw0);
  cr_expect(strstr(sw1, "class=\"switch warn\"") &&
                strstr(sw1, "fill=\"#fbecc0\""),
            "the warned NIC below switch 1: %s", sw1);
  cr_expect(strstr(nic, "class=\"nic warn\"") && strstr(nic, "#fbecc0"), "%s",
            nic);
  cr_expect_not_null(strstr(svg, ">PCIe switch 0000:0f:00.0 \xc2\xb7 uplink "
                                 "63.02 GB/s \xc2\xb7 fail<"));
  cr_expect_not_null(strstr(svg, ">NIC mlx5_0 (NUMA 1) \xc2\xb7 warn<"));
  cr_expect_not_null(
      strstr(svg, "class=\"hostlink fail\" id=\"topo-0-host-2\""));
  /* The picture is XML (xmllint, as the JUnit check uses). */
  char path[] = "/tmp/gcb-topo-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  FILE *f = fdopen(fd, "w");
  fwrite(svg, 1, len, f);
  fclose(f);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "xmllint --noout %s 2>&1", path);
  if (system("command -v xmllint >/dev/null 2>&1") == 0)
    cr_expect_eq(system(cmd), 0, "topology.svg is not well-formed XML");
  else
    cr_log_warn("xmllint not found: the XML check is skipped");
  unlink(path);
  free(sw0);
  free(sw1);
  free(nic);
  free(svg);
  done(&x);
  json_decref(doc);
}

/* The pictures' "%.0f" without printf: the same text for halves (to
 * even), negative values that round to -0, large and odd values. */
/* NICs past a line's width go on further lines: none is left out (a
 * failing NIC among them least of all), and the picture grows with them. */
Test(render_svg, every_nic_is_drawn_on_as_many_lines_as_they_need) {
  struct fx x = {0};
  json_t *doc = switched_node();
  json_t *nics = json_object_get(
      json_object_get(json_array_get(json_object_get(doc, "nodes"), 0),
                      "topology"),
      "nics");
  for (int i = 1; i < 12; i++) { /* 8 GPUs: 7 NICs a line */
    json_t *nic = json_deep_copy(json_array_get(nics, 0));
    char name[16], bus[16];
    snprintf(name, sizeof name, "mlx5_%d", i);
    snprintf(bus, sizeof bus, "0000:%02x:00.0", 0xa0 + i);
    json_object_set_new(nic, "index", json_integer(i));
    json_object_set_new(nic, "name", json_string(name));
    json_object_set_new(nic, "busid", json_string(bus));
    json_array_append_new(nics, nic);
  }
  fx_check_valid(doc);
  x.docs[0] = (struct gcb_doc){.name = "switched.json", .root = doc};
  x.ndocs = 1;
  gcb_thresholds_default(&x.th);
  diagnose(&x);
  size_t len;
  char *svg = draw(&x.rep, true, &len);
  cr_expect_eq(count(svg, "class=\"nic "), 12, "%s", svg);
  char *n0 = element(svg, "id=\"topo-0-nic-0\""),
       *n7 = element(svg, "id=\"topo-0-nic-7\""),
       *n11 = element(svg, "id=\"topo-0-nic-11\"");
  cr_assert(n0 && n7 && n11, "%s", svg);
  double y0 = atof(strstr(n0, " y=\"") + 4), y7 = atof(strstr(n7, " y=\"") + 4);
  cr_expect_not_null(strstr(n7, " x=\"16\""), "the second line: %s", n7);
  cr_expect_eq(y7, y0 + 34, "%s %s", n0, n7);
  double h = atof(strstr(svg, "height=\"") + 8);
  cr_expect_geq(h, y7 + 24 + 16, "the picture holds the second line");
  free(n0);
  free(n7);
  free(n11);
  free(svg);
  done(&x);
  json_decref(doc);
}

Test(render_svg, coordinates_are_printed_as_printf_prints_them) {
  static const double edge[] = {0.0,        -0.0,
                                0.5,        1.5,
                                2.5,        -0.5,
                                -0.3,       -2.5,
                                1e15 + 0.5, 4503599627370497.0,
                                1e300,      -1e19,
                                0x1p62,     12345.4999999999};
  char want[512];
  size_t wrong = 0;
  for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
    snprintf(want, sizeof want, "%.0f", edge[i]);
    cr_expect_str_eq(gcb__svg_n0(edge[i]).s, want, "%.17g", edge[i]);
  }
  unsigned long long x = 88172645463325252ull;
  for (int i = 0; i < 200000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double d = (double)(long long)(x % 2000001) / 4.0 - 250000.0 +
               (i % 7 == 0 ? (double)(x >> 40) * 1e-6 : 0);
    snprintf(want, sizeof want, "%.0f", d);
    wrong += strcmp(gcb__svg_n0(d).s, want) != 0;
  }
  cr_expect_eq(wrong, 0, "%zu of 200000 coordinates differ from printf", wrong);
}

/* A GPU whose topology index the picture has no room for (64 and above)
 * is not drawn, and the machine's title says so. */
Test(render_svg, a_gpu_past_the_pictures_64_is_named_as_not_drawn) {
  static const double even[8] = {100, 101, 99, 100, 100, 101, 99, 100};
  struct fx x = {0};
  json_t *doc = fx_doc(8, 1, 64, "Test CPU");
  fx_add_topology(doc, 8, 64);
  fx_add_case(doc, fx_case("gemm", "bf16", "{\"dtype\": \"bf16\"}", "GFLOP/s",
                           even, 8, 0.01, NULL));
  json_t *topo = json_object_get(
      json_array_get(json_object_get(doc, "nodes"), 0), "topology");
  json_object_set_new(json_array_get(json_object_get(topo, "gpus"), 7), "index",
                      json_integer(64));
  x.docs[0] = (struct gcb_doc){.name = "gpu64.json", .root = doc};
  x.ndocs = 1;
  gcb_thresholds_default(&x.th);
  diagnose(&x);
  size_t len;
  char *svg = draw(&x.rep, true, &len);
  cr_expect_eq(count(svg, "class=\"gpu "), 7);
  cr_expect_not_null(strstr(svg, "(7 GPUs \xc2\xb7 NVIDIA H200; 1 more GPU(s) "
                                 "not drawn: index outside 0..63)<"),
                     "%.400s", svg);
  free(svg);
  done(&x);
  json_decref(doc);
}

/* x diagnosed over one node of 8 GPUs with even GEMM figures whose
 * GPU pair a, b has the path class class_of(a, b) (a new JSON string);
 * the document, for the caller to free after done(x). */
static json_t *classes_doc(struct fx *x, json_t *(*class_of)(int a, int b)) {
  static const double even[8] = {100, 101, 99, 100, 100, 101, 99, 100};
  json_t *doc = fx_doc(8, 1, 64, "Test CPU");
  fx_add_topology(doc, 8, 64);
  fx_add_case(doc, fx_case("gemm", "bf16", "{\"dtype\": \"bf16\"}", "GFLOP/s",
                           even, 8, 0.01, NULL));
  json_t *cls = json_object_get(
      json_object_get(
          json_object_get(json_array_get(json_object_get(doc, "nodes"), 0),
                          "topology"),
          "paths"),
      "matrix");
  for (int a = 0; a < 8; a++)
    for (int b = 0; b < 8; b++)
      if (a != b)
        json_array_set_new(json_array_get(cls, (size_t)a), (size_t)b,
                           class_of(a, b));
  x->docs[0] = (struct gcb_doc){.name = "classes.json", .root = doc};
  x->ndocs = 1;
  gcb_thresholds_default(&x->th);
  diagnose(x);
  return doc;
}

static json_t *numbered_class(int a, int b) {
  return json_sprintf("S%d", a + b);
}

static json_t *long_class(int a, int b) {
  return json_string((a + b) % 2 ? "PCIE-HOST-BRIDGE-ODD"
                                 : "NVLINK-DIRECT-EVEN");
}

/* The caption names the first 8 path classes between the GPUs and counts
 * the pairs of the others: on 8 GPUs whose pair a, b has class "Sa+b",
 * S1..S8 are named and the 9 pairs of S9..S13 counted. */
Test(render_svg, path_classes_past_8_are_counted_in_the_caption) {
  struct fx x = {0};
  json_t *doc = classes_doc(&x, numbered_class);
  size_t len;
  char *svg = draw(&x.rep, true, &len);
  cr_expect_not_null(strstr(svg, "S8 x 3 pairs (450 GB/s) and 9 pairs of "
                                 "other classes. Cells:"),
                     "%.300s", strstr(svg, "GPU\xe2\x86\x94GPU"));
  free(svg);
  done(&x);
  json_decref(doc);
}

/* A path class name past 15 characters is named whole and its pairs
 * counted as one class (the caption cut such names at 15 without a word,
 * and then counted each pair of them as a class of its own). */
Test(render_svg, long_path_class_names_are_named_whole) {
  struct fx x = {0};
  json_t *doc = classes_doc(&x, long_class);
  size_t len;
  char *svg = draw(&x.rep, true, &len);
  const char *cap = strstr(svg, "GPU\xe2\x86\x94GPU paths: ");
  cr_assert_not_null(cap);
  cr_expect_not_null(strstr(cap,
                            ": PCIE-HOST-BRIDGE-ODD x 16 pairs (450 GB/s), "
                            "NVLINK-DIRECT-EVEN x 12 pairs (450 GB/s). "
                            "Cells:"),
                     "%.200s", cap);
  free(svg);
  done(&x);
  json_decref(doc);
}

/* ---- many machines ---------------------------------------------------------
 * 20 nodes of 2 GPUs, node07's second GPU at a third of the others' GEMM
 * figure. The page draws node07 and the first healthy node and names the
 * 18 other healthy ones under the pictures; topology.svg draws all 20. */
/* nodes nodes of 2 GPUs, one GEMM case, rank `slow` (-1: none) at a third
 * of the others' figure; diagnosed into x, the document its only one. */
static void two_gpu_nodes(struct fx *x, int nodes, int slow) {
  double figs[64];
  cr_assert_leq(2 * nodes, 64);
  for (int i = 0; i < 2 * nodes; i++)
    figs[i] = i == slow ? 33 : 100 * (1 + (i % 3) * 0.002);
  json_t *doc = fx_doc(2 * nodes, nodes, 4, "Test CPU");
  fx_add_topology(doc, 2, 4);
  fx_add_case(doc, fx_case("gemm", "bf16", "{\"dtype\": \"bf16\"}", "GFLOP/s",
                           figs, (size_t)(2 * nodes), 0.01, NULL));
  fx_check_valid(doc);
  x->docs[0] = (struct gcb_doc){.name = "nodes.json", .root = doc};
  x->ndocs = 1;
  gcb_thresholds_default(&x->th);
  diagnose(x);
}

static void two_gpu_nodes_done(struct fx *x) {
  gcb_diagnosis_free(&x->d);
  gcb_findings_free(&x->f);
  fx_docs_free(x->docs, x->ndocs);
  json_decref((json_t *)x->docs[0].root);
}

Test(render_svg, the_page_folds_healthy_machines_of_one_shape_beyond_16) {
  struct fx x = {0};
  two_gpu_nodes(&x, 20, 15);
  size_t len;
  char *page = draw(&x.rep, false, &len);
  cr_expect_eq(count(page, "<figcaption>"), 3,
               "node07, the first healthy node and the fabric: %zu",
               count(page, "<figcaption>"));
  cr_expect_not_null(strstr(page, "<figcaption>node07: topology"));
  cr_expect_not_null(strstr(page, "<figcaption>node00: topology"));
  cr_expect_null(strstr(page, "<figcaption>node01: topology"));
  const char *fold = strstr(page, "<p class=\"folded\">");
  cr_assert_not_null(fold, "the folded machines are named");
  static const char head[] = "18 more machine(s) of the shape of node00 (2 x "
                             "NVIDIA H200, 0 NIC(s)) have no finding";
  cr_expect(strncmp(fold + 18, head, sizeof head - 1) == 0, "%.200s", fold);
  cr_expect_not_null(strstr(fold, ": node01, node02, node03, node04, node05, "
                                  "node06, node08, node09 and 10 more.</p>"),
                     "%.400s", fold);
  free(page);
  char *svg = draw(&x.rep, true, &len);
  cr_expect_eq(count(svg, "class=\"gpu "), 40, "topology.svg draws every GPU");
  cr_expect_null(strstr(svg, "folded"));
  free(svg);
  two_gpu_nodes_done(&x);
}

/* A healthy machine with a GPU the picture has no room for (index 64) is
 * not folded into one without: its group says the GPUs not drawn (the
 * page folded it into node00's without a word). */
Test(render_svg, a_folded_group_says_its_gpus_not_drawn) {
  struct fx x = {0};
  double figs[40];
  for (int i = 0; i < 40; i++)
    figs[i] = 100 * (1 + (i % 3) * 0.002);
  json_t *doc = fx_doc(40, 20, 4, "Test CPU");
  fx_add_topology(doc, 2, 4);
  for (int k = 3; k <= 5; k += 2) { /* node03 and node05: a third GPU */
    json_t *topo = fx_topology(3, 4);
    json_object_set_new(json_array_get(json_object_get(topo, "gpus"), 2),
                        "index", json_integer(64));
    json_object_set_new(json_array_get(json_object_get(doc, "nodes"), k),
                        "topology", topo);
  }
  fx_add_case(doc, fx_case("gemm", "bf16", "{\"dtype\": \"bf16\"}", "GFLOP/s",
                           figs, 40, 0.01, NULL));
  x.docs[0] = (struct gcb_doc){.name = "nodes.json", .root = doc};
  x.ndocs = 1;
  gcb_thresholds_default(&x.th);
  diagnose(&x);
  size_t len;
  char *page = draw(&x.rep, false, &len);
  cr_expect_not_null(strstr(page, "<figcaption>node03: topology"));
  cr_expect_not_null(strstr(page, "1 more machine(s) of the shape of node03 "
                                  "(2 x NVIDIA H200, 0 NIC(s); 1 more GPU(s) "
                                  "each not drawn: index outside 0..63) have "
                                  "no finding"),
                     "%s", strstr(page, "<p class=\"folded\">"));
  cr_expect_not_null(strstr(page, "17 more machine(s) of the shape of node00 "
                                  "(2 x NVIDIA H200, 0 NIC(s)) have"));
  free(page);
  two_gpu_nodes_done(&x);
}

/* At 16 machines or fewer every machine is drawn, healthy or not. */
Test(render_svg, the_page_draws_every_machine_up_to_16) {
  struct fx x = {0};
  two_gpu_nodes(&x, 16, -1);
  size_t len;
  char *page = draw(&x.rep, false, &len);
  cr_expect_eq(count(page, "<figcaption>"), 17, "16 nodes and the fabric");
  cr_expect_null(strstr(page, "folded"));
  free(page);
  two_gpu_nodes_done(&x);
}
