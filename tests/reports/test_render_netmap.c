/*
 * The network map's heatmaps (reports/render/render_svg_netmap.c) on
 * synthetic documents of one rank per node: the SVG parses as XML
 * (libxml2), names every host (its label without the domain all share,
 * its full name as a tooltip), outlines in the verdict's colour exactly
 * the cells of a planted slow host link or of one slow path, scales its
 * legend's unit to the figures, stays within a size bound for 64 ranks,
 * turns a map of more than 128 ranks into a node-to-node one, sits inside
 * the netmap section of index.html with hostile host names escaped, says
 * in a line a map it does not draw (not built, too many nodes, or all 0), and
 * netmap.svg is written only for results that have a network map.
 */
#include <math.h>

#ifdef GCB_HAVE_LIBXML2
#include <libxml/parser.h>
#endif

#include "reports/analysis/analyze.h"
#include "reports/analysis/diagnose.h"
#include "reports/analysis/netmap_matrix.h"
#include "reports/render/render_svg.h"
#include "tests/reports/report_fixture.h"

#define FAST 10.0
#define SLOW 0.1

static const char domain[] = ".cluster.example.org";

/* Host names: "gcbt-h<i+1>.cluster.example.org", or `odd` for node 1. */
static void name_hosts(json_t *doc, const char *odd) {
  char host[128];
  size_t i;
  json_t *e;
  json_array_foreach(json_object_get(doc, "nodes"), i, e) {
    snprintf(host, sizeof host, "gcbt-h%zu%s", i + 1, domain);
    json_object_set_new(e, "hostname", json_string(odd && i == 1 ? odd : host));
  }
  json_array_foreach(json_object_get(doc, "ranks"), i, e) {
    long long node = json_integer_value(json_object_get(e, "node"));
    snprintf(host, sizeof host, "gcbt-h%lld%s", node + 1, domain);
    json_object_set_new(e, "hostname",
                        json_string(odd && node == 1 ? odd : host));
  }
}

/* Every ordered pair of n ranks a netmap case of `measure` with bw(s, d)
 * (latency: 1 / bw microseconds); per-rank entries for `entries` ranks
 * (the reader takes the summary). */
static void add_sched(json_t *doc, int n, const char *schedule,
                      const char *measure, double (*bw)(int, int),
                      int entries) {
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++) {
      if (s == d)
        continue;
      bool lat = strcmp(measure, "latency") == 0;
      double figs[FX_MAX_RANKS];
      for (int r = 0; r < entries; r++)
        figs[r] = lat ? 1 / bw(s, d) : bw(s, d);
      char params[256], label[64];
      snprintf(params, sizeof params,
               "{\"measure\": \"%s\", \"schedule\": \"%s\", \"src\": %d, "
               "\"dst\": %d}",
               measure, schedule, s, d);
      snprintf(label, sizeof label, "%s %s %d->%d", measure, schedule, s, d);
      json_t *c = fx_case("netmap", label, params, lat ? "us" : "GB/s", figs,
                          (size_t)entries, 0.01, NULL);
      /* latency: the reader takes the pair's mean time, in seconds */
      json_object_set_new(json_object_get(c, "summary"), "time_s",
                          json_pack("{s:f}", "mean", 1e-6 / bw(s, d)));
      fx_add_case(doc, c);
    }
}

static void add_map(json_t *doc, int n, const char *measure,
                    double (*bw)(int, int), int entries) {
  add_sched(doc, n, "alone", measure, bw, entries);
}

static int slow_node = 2;
static double node_link(int s, int d) {
  return s == slow_node || d == slow_node ? SLOW : FAST;
}
static double path01(int s, int d) {
  return s == 0 && d == 1 ? SLOW : FAST;
}
static double all_slow(int s, int d) {
  (void)s, (void)d;
  return 0.02;
}

struct run {
  json_t *doc;
  struct gcb_doc d;
  struct gcb_thresholds t;
  struct gcb_findings f;
  struct gcb_diagnosis dx;
  struct gcb_report rep;
};

static void analyse(struct run *r) {
  struct gcb_err err = {0};
  gcb_thresholds_default(&r->t);
  r->d = fx_doc_of("test.json", r->doc);
  cr_assert_eq(gcb_analyze(&r->d, 1, &r->t, &r->f, &err), GCB_OK, "%s",
               err.msg);
  gcb_findings_sort(&r->f);
  cr_assert_eq(gcb_diagnose(&r->d, 1, &r->f, &r->t, &r->dx, &err), GCB_OK);
  r->rep = (struct gcb_report){.docs = &r->d,
                               .ndocs = 1,
                               .findings = &r->f,
                               .thresholds = &r->t,
                               .diagnosis = &r->dx};
}

static void done(struct run *r) {
  gcb_diagnosis_free(&r->dx);
  gcb_findings_free(&r->f);
  fx_doc_free(&r->d);
  json_decref(r->doc);
}

static char *render(const struct gcb_renderer *rd, const struct gcb_report *rep,
                    size_t *len) {
  char *buf = NULL;
  FILE *m = open_memstream(&buf, len);
  struct gcb_err err = {0};
  cr_assert_eq(rd->render(m, rep, &err), GCB_OK, "%s", err.msg);
  fclose(m);
  return buf;
}

static size_t count(const char *text, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

/* The SVG is well-formed XML with an <svg> root. */
static void expect_xml(const char *svg, size_t len) {
#ifdef GCB_HAVE_LIBXML2
  xmlDocPtr x = xmlReadMemory(svg, (int)len, "netmap.svg", NULL,
                              XML_PARSE_NONET | XML_PARSE_NOERROR);
  cr_assert_not_null(x, "netmap.svg does not parse as XML");
  xmlNodePtr root = xmlDocGetRootElement(x);
  cr_expect(root && strcmp((const char *)root->name, "svg") == 0);
  xmlFreeDoc(x);
#else
  (void)svg, (void)len;
  cr_log_warn("built without libxml2: the SVG was not parsed as XML");
#endif
}

/* The class of the cell with id netmap-0-alone-bw-U-W. */
static const char *cell_class(const char *svg, int u, int w, char *buf,
                              size_t size) {
  char id[64];
  snprintf(id, sizeof id, "id=\"netmap-0-alone-bw-%d-%d\"", u, w);
  const char *at = strstr(svg, id);
  buf[0] = '\0';
  if (at == NULL)
    return buf;
  const char *cls = at;
  while (cls > svg && strncmp(cls, "class=\"", 7) != 0)
    cls--;
  sscanf(cls, "class=\"cell %31[^\"]", buf);
  (void)size;
  return buf;
}

Test(render_netmap, a_slow_host_link_is_its_cross_outlined_and_named) {
  struct run r = {.doc = fx_doc(4, 4, 8, "Test CPU")};
  name_hosts(r.doc, NULL);
  slow_node = 2;
  add_map(r.doc, 4, "bandwidth", node_link, 4);
  add_map(r.doc, 4, "latency", node_link, 4);
  analyse(&r);
  cr_assert(gcb_svg_netmap_any(&r.rep));
  cr_assert(gcb_renderer_applies(&gcb_render_netmap, &r.rep));
  size_t len;
  char *svg = render(&gcb_render_netmap, &r.rep, &len);
  expect_xml(svg, len);
  for (int i = 1; i <= 4; i++) {
    char label[64], full[96];
    snprintf(label, sizeof label, ">%d gcbt-h%d<", i - 1, i);
    snprintf(full, sizeof full, "rank %d on gcbt-h%d%s", i - 1, i, domain);
    cr_expect_eq(count(svg, label), 4, "host %d: row and column of both maps",
                 i);
    cr_expect_geq(count(svg, full), 2, "host %d named in full", i);
  }
  char cls[32];
  for (int u = 0; u < 4; u++)
    for (int w = 0; w < 4; w++) {
      const char *want = u == w ? "-" : u == 2 || w == 2 ? "fail" : "-";
      cr_expect_str_eq(cell_class(svg, u, w, cls, sizeof cls), want,
                       "cell %d -> %d", u, w);
    }
  cr_expect_eq(count(svg, "class=\"cell fail\""), 6,
               "the six pairs of the slow host, the latency map unmarked");
  cr_expect_eq(count(svg, "stroke=\"#c0392b\""), 6 + 1, "and the legend");
  cr_expect_eq(count(svg, "fill=\"#c0392b\" font-weight=\"700\""), 2,
               "the slow host's labels in the failing colour");
  cr_expect_not_null(strstr(svg, "Network map: bandwidth, alone (run 1)"));
  cr_expect_not_null(strstr(svg, "Network map: latency, alone (run 1)"));
  cr_expect_not_null(strstr(svg, ">bandwidth, GB/s<"));
  cr_expect_not_null(strstr(svg, ">latency, us<"), "10 us at most: us");
  cr_expect_eq(count(svg, "<script"), 0);
  cr_expect_eq(count(svg, "href"), 0, "no external reference");
  free(svg);
  done(&r);
}

Test(render_netmap, one_slow_path_is_one_outlined_cell) {
  struct run r = {.doc = fx_doc(3, 3, 8, "Test CPU")};
  name_hosts(r.doc, NULL);
  add_map(r.doc, 3, "bandwidth", path01, 3);
  analyse(&r);
  size_t len;
  char *svg = render(&gcb_render_netmap, &r.rep, &len);
  expect_xml(svg, len);
  char cls[32];
  cr_expect_str_eq(cell_class(svg, 0, 1, cls, sizeof cls), "fail");
  cr_expect_str_eq(cell_class(svg, 1, 0, cls, sizeof cls), "-");
  cr_expect_eq(count(svg, "class=\"cell fail\""), 1);
  cr_expect_eq(count(svg, "font-weight=\"700\""), 0, "no host blamed");
  free(svg);
  done(&r);
}

Test(render_netmap, only_the_judged_schedule_is_marked) {
  struct run r = {.doc = fx_doc(3, 3, 8, "Test CPU")};
  name_hosts(r.doc, NULL);
  add_map(r.doc, 3, "bandwidth", path01, 3);
  add_sched(r.doc, 3, "together", "bandwidth", path01, 3);
  analyse(&r);
  size_t len;
  char *svg = render(&gcb_render_netmap, &r.rep, &len);
  expect_xml(svg, len);
  cr_expect_not_null(strstr(svg, "Network map: bandwidth, together (run 1)"));
  cr_expect_not_null(
      strstr(svg, "class=\"cell fail\" id=\"netmap-0-alone-bw-0-1\""));
  cr_expect_not_null(
      strstr(svg, "class=\"cell -\" id=\"netmap-0-together-bw-0-1\""),
      "the rule judged the alone schedule");
  cr_expect_eq(count(svg, "class=\"cell fail\""), 1);
  free(svg);
  done(&r);
}

Test(render_netmap, the_legend_unit_follows_the_figures) {
  struct run r = {.doc = fx_doc(2, 2, 8, "Test CPU")};
  name_hosts(r.doc, NULL);
  add_map(r.doc, 2, "bandwidth", all_slow, 2);
  analyse(&r);
  size_t len;
  char *svg = render(&gcb_render_netmap, &r.rep, &len);
  expect_xml(svg, len);
  cr_expect_not_null(strstr(svg, ">bandwidth, MB/s<"), "0.02 GB/s as MB/s");
  cr_expect_not_null(strstr(svg, ">20 MB/s<"), "its top swatch");
  cr_expect_not_null(strstr(svg, ">20<"), "figures printed in big cells");
  free(svg);
  done(&r);
}

Test(render_netmap, sixty_four_hosts_stay_labelled_and_bounded) {
  struct run r = {.doc = fx_doc(64, 64, 8, "Test CPU")};
  name_hosts(r.doc, NULL);
  slow_node = 40;
  add_map(r.doc, 64, "bandwidth", node_link, 1);
  analyse(&r);
  size_t len;
  char *svg = render(&gcb_render_netmap, &r.rep, &len);
  expect_xml(svg, len);
  cr_expect_eq(count(svg, "class=\"netmap-label\""), 128, "every host");
  cr_expect_eq(count(svg, "class=\"cell "), 64 * 64);
  cr_expect_eq(count(svg, "class=\"cell fail\""), 2 * 63);
  cr_expect_not_null(strstr(svg, ">40 gcbt-h41<"));
  cr_expect_not_null(strstr(svg, "rotate(-90"), "column labels upright");
  cr_expect_lt(len, 1500000, "%zu bytes", len);
  free(svg);
  done(&r);
}

Test(render_netmap, past_128_ranks_the_map_is_node_to_node) {
  /* 132 ranks on 4 nodes; each case with one per-rank entry. Not
   * analysed (17292 cases: slow under valgrind): no findings, the
   * picture diagnoses them itself. */
  struct run r = {.doc = fx_doc(132, 4, 8, "Test CPU")};
  name_hosts(r.doc, NULL);
  add_map(r.doc, 132, "bandwidth", path01, 1);
  gcb_thresholds_default(&r.t);
  r.d = fx_doc_of("test.json", r.doc);
  r.rep = (struct gcb_report){
      .docs = &r.d, .ndocs = 1, .findings = &r.f, .thresholds = &r.t};
  size_t len;
  char *svg = render(&gcb_render_netmap, &r.rep, &len);
  expect_xml(svg, len);
  cr_expect_not_null(strstr(svg, "node to node"));
  cr_expect_eq(count(svg, "class=\"cell "), 16, "4 x 4 nodes");
  cr_expect_not_null(strstr(svg, ">gcbt-h3<"), "labelled by host");
  cr_expect_not_null(strstr(svg, ">gcbt-h1.cluster.example.org \xe2\x86\x92 "
                                 "gcbt-h2.cluster.example.org: 10 GB/s<"),
                     "a cell: the median of its nodes' pairs");
  cr_expect_not_null(
      strstr(svg, "cells: median over the ranks of the two nodes"));
  free(svg);
  done(&r);
}

/* n ranks on `nodes` nodes, one netmap case (rank 0 to rank 1): not
 * analysed, as above; netmap.svg as rendered. */
static char *one_pair_map(struct run *r, int n, int nodes, size_t *len) {
  r->doc = fx_doc(n, nodes, 8, "Test CPU");
  double figs[2] = {SLOW, SLOW};
  fx_add_case(r->doc,
              fx_case("netmap", "bandwidth alone 0->1",
                      "{\"measure\": \"bandwidth\", \"schedule\": \"alone\", "
                      "\"src\": 0, \"dst\": 1}",
                      "GB/s", figs, 2, 0.01, NULL));
  gcb_thresholds_default(&r->t);
  r->d = fx_doc_of("test.json", r->doc);
  r->rep = (struct gcb_report){
      .docs = &r->d, .ndocs = 1, .findings = &r->f, .thresholds = &r->t};
  cr_expect(gcb_render_netmap.applies(&r->rep));
  char *svg = render(&gcb_render_netmap, &r->rep, len);
  expect_xml(svg, *len);
  return svg;
}

/* A map that was not built (more rows than GCB_NETMAP_MAX_ROWS), or one of
 * more nodes than a picture draws, is a line in netmap.svg, not nothing. */
Test(render_netmap, a_map_not_drawn_is_said_in_its_place) {
  struct run r = {0};
  size_t len;
  char *svg =
      one_pair_map(&r, GCB_NETMAP_MAX_ROWS + 1, GCB_NETMAP_MAX_ROWS + 1, &len);
  cr_expect_not_null(strstr(svg, ">Network map: alone (run 1): 4097 ranks, "
                                 "not drawn: more than the 4096 a map is "
                                 "built for<"),
                     "%s", svg);
  free(svg);
  done(&r);
  r = (struct run){0};
  svg = one_pair_map(&r, 130, 130, &len);
  cr_expect_not_null(strstr(svg, ">Network map: alone (run 1): 130 nodes, "
                                 "not drawn: more than the 128 a picture "
                                 "draws<"),
                     "%s", svg);
  cr_expect_eq(count(svg, "class=\"cell "), 0);
  free(svg);
  done(&r);
}

/* A map built whose figures are all 0 has no scale to draw on: a line
 * says so in its place (it was left out without a word). */
Test(render_netmap, a_map_of_zeros_is_said_in_its_place) {
  struct run r = {.doc = fx_doc(2, 2, 8, "Test CPU")};
  name_hosts(r.doc, NULL);
  for (int s = 0; s < 2; s++) {
    double figs[2] = {1, 1};
    char params[160];
    snprintf(params, sizeof params,
             "{\"measure\": \"bandwidth\", \"schedule\": \"alone\", "
             "\"src\": %d, \"dst\": %d}",
             s, 1 - s);
    json_t *c = fx_case("netmap", "bandwidth alone", params, "GB/s", figs, 2,
                        0.01, NULL);
    json_object_set_new(json_object_get(c, "summary"), "median", json_real(0));
    fx_add_case(r.doc, c);
  }
  gcb_thresholds_default(&r.t);
  r.d = fx_doc_of("test.json", r.doc);
  r.rep = (struct gcb_report){
      .docs = &r.d, .ndocs = 1, .findings = &r.f, .thresholds = &r.t};
  size_t len;
  char *svg = render(&gcb_render_netmap, &r.rep, &len);
  expect_xml(svg, len);
  cr_expect_not_null(strstr(svg, ">Network map: alone (run 1): 2 ranks, not "
                                 "drawn: no bandwidth figure above 0<"),
                     "%s", svg);
  cr_expect_null(strstr(svg, "latency"), "no latency measured: no map");
  free(svg);
  done(&r);
}

Test(render_netmap, the_html_section_holds_it_and_escapes_hosts) {
  struct run r = {.doc = fx_doc(3, 3, 8, "Test CPU")};
  name_hosts(r.doc, "<script>alert(1)</script>");
  slow_node = 2;
  add_map(r.doc, 3, "bandwidth", node_link, 3);
  analyse(&r);
  size_t len;
  char *html = render(&gcb_render_html, &r.rep, &len);
  const char *sec = strstr(html, "<section id=\"netmap-bw-alone-0\">");
  cr_assert_not_null(sec);
  const char *end = strstr(sec, "</section>");
  const char *fig = strstr(sec, "<figure class=\"netmap\">");
  cr_expect(fig != NULL && fig < end, "the heatmap inside its section");
  cr_expect_eq(count(html, "<figure class=\"netmap\">"), 1, "once");
  cr_expect_eq(count(html, "<script"), 0);
  cr_expect_not_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  free(html);
  char *md = render(&gcb_render_md, &r.rep, &len);
  cr_expect_eq(count(md, "](netmap.svg)"), 1, "report.md links it once");
  free(md);
  done(&r);
}

Test(render_netmap, no_map_no_file) {
  struct run r = {.doc = fx_doc(2, 2, 8, "Test CPU")};
  analyse(&r);
  cr_expect_not(gcb_svg_netmap_any(&r.rep));
  cr_expect_not(gcb_renderer_applies(&gcb_render_netmap, &r.rep));
  cr_expect(gcb_renderer_applies(&gcb_render_topology, &r.rep));
  size_t len;
  char *md = render(&gcb_render_md, &r.rep, &len);
  cr_expect_eq(count(md, "netmap.svg"), 0);
  free(md);
  done(&r);
}

/* Node pairs (SuperBench's pattern): 4 nodes x 2 ranks, every pair once,
 * the pair node01 <-> node03 at 40 %: the node x node map, its two cells
 * outlined, no latency map. */
Test(render_netmap, a_slow_node_pair_is_its_two_cells_in_the_node_map) {
  struct run r = {.doc = fx_doc(8, 4, 8, "Test CPU")};
  for (int a = 0; a < 4; a++)
    for (int b = a + 1; b < 4; b++) {
      double figs[8], v = a == 1 && b == 3 ? 4.0 : 10.0 + 0.1 * (a + b);
      for (int k = 0; k < 8; k++)
        figs[k] = v;
      char params[256];
      snprintf(params, sizeof params,
               "{\"measure\": \"sendrecv\", \"schedule\": \"nodepairs\", "
               "\"src\": %d, \"dst\": %d, \"src_node\": %d, \"dst_node\": %d}",
               2 * a, 2 * b, a, b);
      fx_add_case(r.doc, fx_case("netmap", "sendrecv nodepairs", params, "GB/s",
                                 figs, 8, 0.01, NULL));
    }
  analyse(&r);
  cr_assert(gcb_svg_netmap_any(&r.rep));
  size_t len;
  char *svg = render(&gcb_render_netmap, &r.rep, &len);
  expect_xml(svg, len);
  cr_expect_not_null(
      strstr(svg, "Network map: bandwidth, nodepairs (run 1), node to node"));
  cr_expect_null(strstr(svg, "latency, nodepairs"), "bandwidth only");
  for (int u = 0; u < 4; u++)
    for (int w = 0; w < 4; w++) {
      char id[64], cls[32] = "";
      snprintf(id, sizeof id, "id=\"netmap-0-nodepairs-bw-%d-%d\"", u, w);
      const char *at = strstr(svg, id);
      cr_assert_not_null(at, "cell %d, %d", u, w);
      while (at > svg && strncmp(at, "class=\"", 7) != 0)
        at--;
      sscanf(at, "class=\"cell %31[^\"]", cls);
      bool slow = (u == 1 && w == 3) || (u == 3 && w == 1);
      cr_expect_str_eq(cls, slow ? "fail" : "-", "cell %d, %d", u, w);
    }
  cr_expect_eq(count(svg, "class=\"cell fail\""), 2, "one pair, both cells");
  cr_expect_geq(count(svg, ">node01<"), 2, "rows and columns are hosts");
  free(svg);
  done(&r);
}

/* The per-node table (render_tables.c) counts a pair slow below the
 * thresholds' link_pct share of the others' median, the analysis' default
 * when a report has no thresholds. */
Test(render_netmap, the_per_node_table_judges_by_link_pct) {
  struct run r = {.doc = fx_doc(4, 4, 8, "Test CPU")};
  name_hosts(r.doc, NULL);
  slow_node = 2;
  add_map(r.doc, 4, "bandwidth", node_link, 4);
  analyse(&r);
  size_t n[3];
  char *md[3];
  md[0] = render(&gcb_render_md, &r.rep, &n[0]);
  struct gcb_report without = r.rep;
  without.thresholds = NULL;
  md[1] = render(&gcb_render_md, &without, &n[1]);
  r.t.link_pct = 0.5; /* the slow host's 1% share is above it */
  md[2] = render(&gcb_render_md, &r.rep, &n[2]);
  cr_expect_not_null(strstr(md[0], "Network map per node"));
  cr_expect(n[0] == n[1] && memcmp(md[0], md[1], n[0]) == 0,
            "without thresholds: the defaults");
  cr_expect(n[0] != n[2] || memcmp(md[0], md[2], n[0]) != 0,
            "a lower link_pct: fewer slow pairs");
  for (int i = 0; i < 3; i++)
    free(md[i]);
  done(&r);
}

/* A host name past 40 characters heads its matrix column and row whole
 * (the tables once cut it at 40 without a word). */
Test(render_netmap, the_matrix_names_a_long_host_whole) {
  static const char host[] = "a-rather-long-host-name-of-the-rack-row-"
                             "and-the-slot.datacentre.example.org";
  struct run r = {.doc = fx_doc(3, 3, 8, "Test CPU")};
  name_hosts(r.doc, host);
  add_map(r.doc, 3, "bandwidth", path01, 3);
  analyse(&r);
  size_t len;
  char *md = render(&gcb_render_md, &r.rep, &len);
  char want[160];
  snprintf(want, sizeof want, "1 %s |", host);
  cr_expect_eq(count(md, want), 4, "its column and row of both matrices");
  free(md);
  done(&r);
}
