/*
 * The topology picture (reports/render/render_svg*.c): on the committed
 * 8-GPU fixture (gcbench, nccl-tests and nvbandwidth against the H200
 * criteria) every GPU is named with its GEMM figure, GPU 1 and the
 * GPU 2 -> GPU 6 pair are drawn failing and the healthy pairs passing; a
 * document carrying the real DGX-2 topology (16 GPUs, from the hwloc XML
 * of tests/data/topo) draws all 16 GPUs and its 240 pair cells within a
 * size bound; no script and no external reference in either.
 */
#include "reports/analysis/diagnose.h"
#include "reports/criteria/criteria.h"
#include "reports/interop/interop.h"
#include "reports/render/render_svg.h"
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
    cr_assert_eq(gcb_interop_read(path, x->docs, i, &x->res[i], NULL, &err),
                 GCB_OK, "%s", err.msg);
    x->docs[i] =
        (struct gcb_doc){.name = files[i], .root = gcb_results_json(x->res[i])};
  }
  x->ndocs = ndocs;
  gcb_thresholds_default(&x->th);
  if (criteria) {
    cr_assert_eq(gcb_criteria_read(DATA("criteria-h200.json"), &x->cr, &err),
                 GCB_OK, "%s", err.msg);
    x->th = x->cr->thresholds;
  }
}

static void diagnose(struct fx *x) {
  struct gcb_err err = {0};
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
  diagnose(&x);
  size_t len;
  char *svg = draw(&x.rep, true, &len);
  cr_expect_lt(len, 120000, "the 16-GPU picture is %zu bytes", len);
  cr_expect_eq(count(svg, "class=\"gpu "), 16, "16 GPUs drawn");
  cr_expect_not_null(strstr(svg, "id=\"topo-0-gpu-15\""));
  cr_expect_eq(count(svg, "id=\"topo-0-p2p-"), 256, "a cell per pair");
  cr_expect_eq(count(svg, "id=\"topo-0-arc-"), 0, "no arcs over two rows");
  cr_expect_not_null(strstr(svg, "NV6 x 120 pairs"), "%.300s",
                     strstr(svg, "GPU\xe2\x86\x94GPU"));
  cr_expect(strncmp(svg, "<svg xmlns=", 11) == 0, "a standalone SVG");
  cr_expect_eq(count(svg, "<svg"), 1);
  free(svg);
  done(&x);
}
