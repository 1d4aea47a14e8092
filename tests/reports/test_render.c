/*
 * Renderers: every output format against a golden file, from fixed inputs
 * (tests/data/report-fixture.json, its baseline and criteria, two fake
 * plots), byte for byte; input text escaped in every format; plots drawn
 * or, without gnuplot, replaced by a one-line note.
 *
 * Regenerate the golden files after an intended change with
 *   GCB_UPDATE_GOLDEN=1 ctest -R unit.render
 * and review the diff of tests/data/golden/ before committing it.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/analysis/analyze_rules.h"
#include "reports/analysis/kinds.h"
#include "reports/analysis/netmap_matrix.h"
#include "reports/plot/plot.h"
#include "reports/render/render.h"
#include "reports/render/render_tables.h"
#include "tests/reports/report_fixture.h"

#define DATA(name) GCB_TEST_DATA "/" name

/* Everything a report needs, built from files in tests/data. */
struct fixture {
  struct gcb_results *res[2];
  struct gcb_doc doc, base;
  struct gcb_criteria *cr;
  struct gcb_thresholds th;
  struct gcb_findings findings;
  struct gcb_check_result checks[16];
  struct gcb_comparison cmp;
  struct gcb_plots plots;
  struct gcb_report rep;
};

static void load_doc(const char *path, const char *name, struct gcb_results **r,
                     struct gcb_doc *d) {
  size_t len;
  char *text = fx_slurp(path, &len);
  struct gcb_err err = {0};
  cr_assert_not_null(text, "%s", path);
  cr_assert_eq(gcb_results_parse(text, len, name, r, &err), GCB_OK, "%s",
               err.msg);
  *d = fx_doc_of_results(name, *r);
  free(text);
}

static const char fake_svg[] =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg "
    "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 4 2\"><rect "
    "width=\"4\" height=\"2\" fill=\"#4e79a7\"/></svg>\n";

static void fake_plots(struct gcb_plots *p) {
  p->items = calloc(2, sizeof *p->items);
  p->n = 2;
  snprintf(p->items[0].file, sizeof p->items[0].file, "plot-1-ranks.svg");
  snprintf(p->items[0].title, sizeof p->items[0].title, "gemm: fp32");
  p->items[0].svg = strdup(fake_svg);
  snprintf(p->items[1].file, sizeof p->items[1].file, "plot-2-bw.svg");
  snprintf(p->items[1].title, sizeof p->items[1].title, "scripted");
  p->items[1].svg = strdup("<svg><script>alert(1)</script></svg>");
}

static void fixture_load(struct fixture *fx, const char *doc_path) {
  struct gcb_err err = {0};
  size_t len = 0;
  memset(fx, 0, sizeof *fx);
  load_doc(doc_path, "report-fixture.json", &fx->res[0], &fx->doc);
  load_doc(DATA("report-baseline.json"), "report-baseline.json", &fx->res[1],
           &fx->base);
  char *text = fx_slurp(DATA("report-criteria.json"), &len);
  cr_assert_eq(
      gcb_criteria_parse(text, len, "report-criteria.json", &fx->cr, &err),
      GCB_OK, "%s", err.msg);
  free(text);
  fx->th = fx->cr->thresholds;
  cr_assert_leq(fx->cr->nchecks, 16);
  cr_assert_eq(gcb_analyze(&fx->doc, 1, &fx->th, &fx->findings, &err), GCB_OK);
  cr_assert_eq(gcb_criteria_evaluate(fx->cr, &fx->doc, 1, fx->checks,
                                     &fx->findings, &err),
               GCB_OK);
  cr_assert_eq(gcb_compare(&fx->base, &fx->doc, &fx->th, &fx->cmp, &err),
               GCB_OK);
  cr_assert_eq(gcb_compare_findings(&fx->cmp, 0, &fx->findings, &err), GCB_OK);
  gcb_findings_sort(&fx->findings);
  fake_plots(&fx->plots);
  fx->rep = (struct gcb_report){.docs = &fx->doc,
                                .ndocs = 1,
                                .findings = &fx->findings,
                                .criteria = fx->cr,
                                .checks = fx->checks,
                                .comparison = &fx->cmp,
                                .baseline = "report-baseline.json",
                                .plots = &fx->plots,
                                .thresholds = &fx->th};
}

static void fixture_free(struct fixture *fx) {
  fx_doc_free(&fx->doc);
  fx_doc_free(&fx->base);
  gcb_results_free(fx->res[0]);
  gcb_results_free(fx->res[1]);
  gcb_criteria_free(fx->cr);
  gcb_findings_free(&fx->findings);
  gcb_comparison_free(&fx->cmp);
  gcb_plots_free(&fx->plots);
}

/* The renderer's whole output, NUL-terminated. */
static char *render(const struct gcb_renderer *r, const struct gcb_report *rep,
                    size_t *len) {
  char *buf = NULL;
  FILE *m = open_memstream(&buf, len);
  struct gcb_err err = {0};
  cr_assert_eq(r->render(m, rep, &err), GCB_OK, "%s: %s", r->name, err.msg);
  fclose(m);
  return buf;
}

Test(render, every_format_matches_its_golden_file) {
  struct fixture fx;
  fixture_load(&fx, DATA("report-fixture.json"));
  for (size_t i = 0; gcb_renderers[i]; i++) {
    size_t len;
    if (!gcb_renderer_applies(gcb_renderers[i], &fx.rep))
      continue; /* a file the report does not write (netmap.svg) */
    char *out = render(gcb_renderers[i], &fx.rep, &len);
    fx_golden(gcb_renderers[i]->file, out, len);
    free(out);
  }
  fixture_free(&fx);
}

Test(render, the_gnuplot_script_matches_its_golden_file) {
  struct fixture fx;
  fixture_load(&fx, DATA("report-fixture.json"));
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  struct gcb_plots plots = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_plot_script(m, &fx.doc, 1, &fx.th, false, &plots, &err),
               GCB_OK);
  fclose(m);
  fx_golden("plots.gp", buf, len);
  cr_expect_eq(plots.n, 5,
               "3 per-rank bar charts, 1 bandwidth plot, 1 per-rank time plot");
  gcb_plots_free(&plots);
  free(buf);
  fixture_free(&fx);
}

Test(render, registry_names_and_files_are_unique) {
  size_t n = 0;
  for (size_t i = 0; gcb_renderers[i]; i++, n++) {
    cr_expect_not_null(gcb_renderers[i]->render);
    for (size_t j = i + 1; gcb_renderers[j]; j++) {
      cr_expect_str_neq(gcb_renderers[i]->name, gcb_renderers[j]->name);
      cr_expect_str_neq(gcb_renderers[i]->file, gcb_renderers[j]->file);
    }
  }
  /* report --format's choices are built from the rows (report_command.c) */
  cr_expect_leq(n, GCB_RENDERERS_MAX);
}

Test(render, html_never_inlines_a_plot_with_a_script) {
  struct fixture fx;
  fixture_load(&fx, DATA("report-fixture.json"));
  size_t len;
  char *html = render(&gcb_render_html, &fx.rep, &len);
  cr_expect_null(strstr(html, "<script"));
  cr_expect_not_null(strstr(html, "<svg xmlns"), "the clean plot is inlined");
  cr_expect_null(strstr(html, "<?xml"), "no XML prolog inside HTML");
  cr_expect_not_null(strstr(html, "Content-Security-Policy"));
  free(html);
  fixture_free(&fx);
}

/* ---- escaping ----------------------------------------------------------- */

static const char hostile_host[] = "<script>alert(\"x\")</script>|a,b";
static const char hostile_label[] = "=cmd|' /C calc'!A0 \"q\",<b>`id`@x";
static const char hostile_error[] = "</testcase><injected/>";

/* A 4-rank document whose hostname, labels and messages are hostile, and
 * its findings (a slow rank on the hostile node, the error). */
static json_t *hostile_doc(void) {
  json_t *doc = fx_doc(4, 1, 8, "Test CPU");
  json_object_set_new(json_array_get(json_object_get(doc, "nodes"), 0),
                      "hostname", json_string(hostile_host));
  for (int r = 0; r < 4; r++)
    json_object_set_new(json_array_get(json_object_get(doc, "ranks"), r),
                        "hostname", json_string(hostile_host));
  const double figs[] = {100, 100, 60, 100};
  fx_add_case(doc, fx_case("gemm", hostile_label, "{\"dtype\": \"fp32\"}",
                           "GFLOP/s", figs, 4, 0.01, NULL));
  json_array_append_new(json_object_get(doc, "errors"),
                        json_pack("{s:s, s:s, s:i, s:s, s:s}", "bench", "p2p",
                                  "label", hostile_label, "rank", 2, "status",
                                  "ECUDA", "message", hostile_error));
  fx_check_valid(doc);
  return doc;
}

struct escape_case {
  const struct gcb_renderer *r;
  const char *present[3];
  const char *absent[3];
};

static const struct escape_case escape_cases[] = {
    {&gcb_render_md,
     {"&lt;script&gt;alert(\"x\")&lt;/script&gt;\\|a,b", "\\`id\\`", NULL},
     {"<script", "<b>", NULL}},
    {&gcb_render_html,
     {"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;|a,b",
      "&lt;/testcase&gt;&lt;injected/&gt;", NULL},
     {"<script", "<b>", "<injected"}},
    {&gcb_render_csv,
     {"\"<script>alert(\"\"x\"\")</script>|a,b\"",
      "\"'=cmd|' /C calc'!A0 \"\"q\"\",<b>`id`@x\"", NULL},
     {NULL}},
    {&gcb_render_junit,
     {"&lt;/testcase&gt;&lt;injected/&gt;", "=cmd|&#39; /C calc&#39;", NULL},
     {"<injected", "<script", "<b>"}},
    {&gcb_render_findings,
     {"<script>alert(\\\"x\\\")</script>|a,b", NULL},
     {NULL}},
    /* OpenMetrics label values: \\, \" and \n escaped, nothing else. */
    {&gcb_render_openmetrics,
     {"host=\"<script>alert(\\\"x\\\")</script>|a,b\"", "# EOF\n", NULL},
     {"alert(\"x\")", NULL}},
};

Test(render, input_text_comes_out_inert_in_every_format) {
  json_t *doc = hostile_doc();
  struct gcb_doc d = fx_doc_of("<evil>.json", doc);
  struct gcb_thresholds th;
  struct gcb_findings f = {0};
  struct gcb_err err = {0};
  gcb_thresholds_default(&th);
  cr_assert_eq(gcb_analyze(&d, 1, &th, &f, &err), GCB_OK);
  struct gcb_report rep = {
      .docs = &d, .ndocs = 1, .findings = &f, .thresholds = &th};
  for (size_t i = 0; i < sizeof escape_cases / sizeof *escape_cases; i++) {
    const struct escape_case *c = &escape_cases[i];
    size_t len;
    char *out = render(c->r, &rep, &len);
    for (size_t k = 0; k < 3 && c->present[k]; k++)
      cr_expect_not_null(strstr(out, c->present[k]), "%s lacks %s", c->r->name,
                         c->present[k]);
    for (size_t k = 0; k < 3 && c->absent[k]; k++)
      cr_expect_null(strstr(out, c->absent[k]), "%s has raw %s", c->r->name,
                     c->absent[k]);
    free(out);
  }
  gcb_findings_free(&f);
  fx_doc_free(&d);
  json_decref(doc);
}

/* What renderer r writes of doc (taken), analysed with the default
 * thresholds; the caller frees it. */
static char *render_doc(const struct gcb_renderer *r, json_t *doc) {
  struct gcb_doc d = fx_doc_of("doc.json", doc);
  struct gcb_thresholds th;
  struct gcb_findings f = {0};
  struct gcb_err err = {0};
  gcb_thresholds_default(&th);
  cr_assert_eq(gcb_analyze(&d, 1, &th, &f, &err), GCB_OK, "%s", err.msg);
  struct gcb_report rep = {
      .docs = &d, .ndocs = 1, .findings = &f, .thresholds = &th};
  size_t len;
  char *out = render(r, &rep, &len);
  gcb_findings_free(&f);
  fx_doc_free(&d);
  json_decref(doc);
  return out;
}

/* A case's labels in metrics.prom are its first 64 parameters: 200 whose
 * names collide once made valid (99 x's and a number, cut to the same
 * name) gave each label a search among those before it, minutes for a
 * few thousand. */
Test(render, openmetrics_labels_a_case_with_its_first_64_parameters) {
  json_t *doc = fx_doc(2, 1, 4, "Test CPU");
  const double figs[] = {100, 101};
  json_t *c = fx_case("gemm", "many", "{}", "GFLOP/s", figs, 2, 0.01, NULL);
  json_t *params = json_object_get(c, "params");
  char key[128];
  for (int i = 0; i < 200; i++) {
    snprintf(key, sizeof key, "%099d%d", 0, i);
    memset(key, 'x', 99);
    json_object_set_new(params, key, json_integer(i));
  }
  fx_add_case(doc, c);
  char *out = render_doc(&gcb_render_openmetrics, doc);
  const char *line = strstr(out, "\ngcbench_gemm_gflops{");
  cr_assert_not_null(line, "%.2000s", out);
  const char *end = strchr(line + 1, '\n');
  size_t labels = 0;
  for (const char *p = strstr(line, "xxxxxxxxxx"); p != NULL && p < end;
       p = strstr(p + 99, "xxxxxxxxxx"))
    labels++;
  cr_expect_eq(labels, 64, "%.*s", (int)(end - line), line);
  free(out);
}

/* results.csv keeps a size of 10^10 bytes or more whole: nccl-tests'
 * 16 GiB row, a real in the converted log's model, read back as
 * 1.717986918e+10, 4 bytes short, in pandas. A figure keeps its 10
 * significant digits. */
Test(render, csv_keeps_large_integer_sizes_whole) {
  json_t *doc = fx_doc(2, 1, 4, "Test CPU");
  const double figs[] = {183.83, 183.9};
  fx_add_case(doc, fx_case("coll", "allreduce 16G",
                           "{\"op\": \"allreduce\", \"size\": 17179869184.0, "
                           "\"count\": 4294967296.0}",
                           "GB/s", figs, 2, 0.01, NULL));
  fx_check_valid(doc);
  char *out = render_doc(&gcb_render_csv, doc);
  cr_expect_not_null(strstr(out, ",17179869184,4294967296,"), "%s", out);
  cr_expect_null(strstr(out, "e+"), "%s", out);
  cr_expect_not_null(strstr(out, ",183.83,"), "%s", out);
  free(out);
}

/* The plot script of doc (taken), how many plots it draws and the plots'
 * note (a struct gcb_plots' note's size; each NULL: not wanted); the
 * caller frees the script. */
static char *plot_script_of_doc(json_t *doc, size_t *nplots, char *note) {
  struct gcb_doc d = fx_doc_of("x.json", doc);
  struct gcb_thresholds th;
  gcb_thresholds_default(&th);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  struct gcb_plots plots = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_plot_script(m, &d, 1, &th, false, &plots, &err), GCB_OK,
               "%s", err.msg);
  fclose(m);
  if (nplots != NULL)
    *nplots = plots.n;
  if (note != NULL)
    memcpy(note, plots.note, sizeof plots.note);
  gcb_plots_free(&plots);
  fx_doc_free(&d);
  json_decref(doc);
  return buf;
}

Test(render, plot_labels_cannot_inject_gnuplot_commands) {
  char *buf = plot_script_of_doc(hostile_doc(), NULL, NULL);
  /* Every quoted string in the script holds only the safe characters. */
  for (const char *q = strchr(buf, '\''); q != NULL; q = strchr(q + 1, '\'')) {
    const char *end = strchr(q + 1, '\'');
    cr_assert_not_null(end, "unbalanced quote");
    size_t n = (size_t)(end - q - 1);
    cr_expect_geq(strcspn(q + 1, "`\"<>&@$\\\n"), n, "unsafe text in %.*s",
                  (int)n, q + 1);
    q = end;
  }
  cr_expect_null(strchr(buf, '`'), "no command substitution anywhere");
  cr_expect_not_null(
      strstr(buf, "set title 'gemm: =cmd?? /C calc??A0 ?q?,?b??id??x'"), "%s",
      buf);
  free(buf);
}

/* A p2p case GPU src -> dst measured on every node (a rank per node). */
static void add_p2p(json_t *doc, int nodes, int src, int dst) {
  double figs[FX_MAX_RANKS];
  char label[32], params[160];
  for (int r = 0; r < nodes; r++)
    figs[r] = 300;
  snprintf(label, sizeof label, "ce uni %d->%d", src, dst);
  snprintf(params, sizeof params,
           "{\"mode\": \"ce\", \"direction\": \"uni\", \"src\": %d, "
           "\"dst\": %d}",
           src, dst);
  fx_add_case(doc, fx_case("p2p", label, params, "GB/s", figs, (size_t)nodes,
                           0.01, NULL));
}

/* Heatmaps stop at 16 per document and 64 GPUs each; what is past them is
 * said in a title, never dropped silently. */
Test(render, p2p_heatmaps_say_what_they_leave_out) {
  json_t *doc = fx_doc(20, 20, 8, "Test CPU");
  add_p2p(doc, 20, 0, 1);
  add_p2p(doc, 20, 70, 71); /* GPUs past a heatmap's 64 */
  fx_check_valid(doc);
  size_t n;
  char *buf = plot_script_of_doc(doc, &n, NULL);
  cr_expect_eq(n, 16, "%s", buf);
  cr_expect_not_null(
      strstr(buf, "set title 'P2P GB/s, node 0: direction=uni mode=ce (1 "
                  "measurement past GPU63 not shown)'"),
      "%s", buf);
  cr_expect_not_null(strstr(buf, "node 15: direction=uni mode=ce (1 "
                                 "measurement past GPU63 not shown) (4 more "
                                 "heatmaps not shown)'"),
                     "%s", buf);
  free(buf);
}

/* A pattern's stacked bars stop at 64 ranks; the title says how many more
 * there are. */
Test(render, pattern_bars_say_the_ranks_they_leave_out) {
  static const char *const parts[] = {"compute", "comm", "step", "step-compute",
                                      "step-comm"};
  json_t *doc = fx_doc(70, 1, 140, "Test CPU");
  double figs[FX_MAX_RANKS];
  for (int p = 0; p < 5; p++) {
    char params[128], label[32];
    snprintf(params, sizeof params,
             "{\"pattern\": \"dp\", \"part\": \"%s\", \"group\": 70}",
             parts[p]);
    snprintf(label, sizeof label, "dp %s", parts[p]);
    for (int r = 0; r < FX_MAX_RANKS; r++)
      figs[r] = p == 2 ? 50 : 100; /* 10 ms compute, 20 ms a step */
    json_t *c = fx_case("pattern", label, params, "GFLOP/s", figs, FX_MAX_RANKS,
                        0.01, NULL);
    for (int r = FX_MAX_RANKS; r < 70; r++) /* past fx_case's ranks */
      json_array_append_new(json_object_get(c, "per_rank"),
                            fx_rank_entry(r, figs[0], 0.01, 0));
    json_object_set_new(json_object_get(c, "summary"), "ranks",
                        json_integer(70));
    fx_add_case(doc, c);
  }
  fx_check_valid(doc);
  char *buf = plot_script_of_doc(doc, NULL, NULL);
  cr_expect_not_null(strstr(buf, "set title 'pattern dp: the step per rank (6 "
                                 "more ranks not shown)'"),
                     "%s", buf);
  cr_expect_not_null(strstr(buf, "r63 "), "%s", buf);
  cr_expect_null(strstr(buf, "r64 "), "%s", buf);
  free(buf);
}

/* What an escaper writes for a string. */
struct escaping {
  void (*esc)(FILE *, const char *);
  const char *in, *out;
};

static void expect_escaped(const struct escaping *cases, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    cases[i].esc(m, cases[i].in);
    fclose(m);
    cr_expect_str_eq(buf, cases[i].out, "case %zu", i);
    free(buf);
  }
}

Test(render, escapers_follow_their_formats) {
  const struct escaping cases[] = {
      {gcb_escape_xml, "a&b<c>\"'\x01\tz", "a&amp;b&lt;c&gt;&quot;&#39;?\tz"},
      {gcb_escape_csv, "plain", "plain"},
      {gcb_escape_csv, "a,b", "\"a,b\""},
      {gcb_escape_csv, "say \"hi\"", "\"say \"\"hi\"\"\""},
      {gcb_escape_csv, "line\nbreak", "\"line\nbreak\""},
      {gcb_escape_csv, "-1+1", "'-1+1"},
      {gcb_escape_csv, "@SUM(A1)", "'@SUM(A1)"},
      /* Issue 20 item 11: what spreadsheets skip or fold before the =. */
      {gcb_escape_csv, "\t=cmd|' /c calc'!A1", "'\t=cmd|' /c calc'!A1"},
      {gcb_escape_csv, "\r=1+1", "\"'\r=1+1\""},
      {gcb_escape_csv, "  =1+1", "'  =1+1"},
      {gcb_escape_csv, "\n=1+1", "\"'\n=1+1\""},
      {gcb_escape_csv, "\xe3\x80\x80=1", "'\xe3\x80\x80=1"},
      {gcb_escape_csv, "\xef\xbc\x9dSUM(A1)", "'\xef\xbc\x9dSUM(A1)"},
      {gcb_escape_csv,
       "\xef\xbc\x8b"
       "1",
       "'\xef\xbc\x8b"
       "1"},
      {gcb_escape_csv, "\xef\xbc\xa0x", "'\xef\xbc\xa0x"},
      {gcb_escape_csv, "a =b", "a =b"},
      {gcb_escape_csv, " x", " x"},
      {gcb_escape_md, "a|b*c_d", "a\\|b\\*c\\_d"},
      {gcb_escape_md, "<i>&\n", "&lt;i&gt;&amp; "},
  };
  expect_escaped(cases, sizeof cases / sizeof *cases);
}

#define FFFD "\xef\xbf\xbd"

/* Input text need not be UTF-8 (a file name): each byte that is not part
 * of a valid character becomes U+FFFD; valid text, multi-byte characters
 * included, is left alone; markup around a bad byte is still escaped. */
Test(render, escapers_replace_bytes_that_are_not_utf8) {
  const struct escaping cases[] = {
      {gcb_escape_xml, "ok \xff", "ok " FFFD},
      {gcb_escape_xml, "cut \xe2\x82", "cut " FFFD FFFD},
      {gcb_escape_xml, "overlong \xc0\xaf.", "overlong " FFFD FFFD "."},
      {gcb_escape_xml, "µs ≥ 5 €, 𝄞", "µs ≥ 5 €, 𝄞"},
      {gcb_escape_xml, "<b a='\xff'>\xe2\x82</b>&",
       "&lt;b a=&#39;" FFFD "&#39;&gt;" FFFD FFFD "&lt;/b&gt;&amp;"},
      {gcb_escape_xml, "nonchar \xef\xbf\xbf\xef\xbf\xbe", "nonchar ??"},
      {gcb_escape_md, "ok \xff", "ok " FFFD},
      {gcb_escape_md, "cut \xe2\x82", "cut " FFFD FFFD},
      {gcb_escape_md, "µs ≥ 5 €", "µs ≥ 5 €"},
      {gcb_escape_md, "<script>\xff|`x`", "&lt;script&gt;" FFFD "\\|\\`x\\`"},
      {gcb_escape_csv, "ok \xff", "ok " FFFD},
      {gcb_escape_csv, "µs ≥ 5 €", "µs ≥ 5 €"},
      {gcb_escape_csv, "=a,\xe2\x82\"", "\"'=a," FFFD FFFD "\"\"\""},
  };
  expect_escaped(cases, sizeof cases / sizeof *cases);
}

/* A run named by a file whose name is not UTF-8: the formats that must be
 * UTF-8 show it with U+FFFD and carry no raw invalid byte. */
Test(render, a_run_name_that_is_not_utf8_comes_out_as_utf8) {
  struct fixture fx;
  fixture_load(&fx, DATA("report-fixture.json"));
  fx.doc.name = "r\xff<b>\xe2\x82.json";
  const struct gcb_renderer *utf8_only[] = {&gcb_render_html, &gcb_render_md,
                                            &gcb_render_junit};
  for (size_t i = 0; i < sizeof utf8_only / sizeof *utf8_only; i++) {
    size_t len;
    char *out = render(utf8_only[i], &fx.rep, &len);
    char *clean = gcb_utf8_copy(out);
    cr_expect_str_eq(clean, out, "%s: bytes that are not UTF-8",
                     utf8_only[i]->name);
    cr_expect_not_null(strstr(out, "r" FFFD "&lt;b&gt;" FFFD FFFD ".json"),
                       "%s lacks the name", utf8_only[i]->name);
    free(clean);
    free(out);
  }
  fixture_free(&fx);
}

/* ---- running gnuplot ---------------------------------------------------- */

static char plotdir[64];

static void make_plotdir(void) {
  strcpy(plotdir, "/tmp/gcb-test-plots-XXXXXX");
  cr_assert_not_null(mkdtemp(plotdir));
}

static void remove_plotdir(void) {
  DIR *d = opendir(plotdir);
  struct dirent *e;
  char path[512];
  while (d != NULL && (e = readdir(d)) != NULL) {
    snprintf(path, sizeof path, "%s/%s", plotdir, e->d_name);
    if (e->d_name[0] != '.')
      unlink(path);
  }
  if (d != NULL)
    closedir(d);
  rmdir(plotdir);
}

/* The plots as the report command makes them: gnuplot started, then
 * waited for. */
static enum gcb_status plots_make(const char *dir, const struct gcb_doc *docs,
                                  size_t ndocs, const struct gcb_thresholds *t,
                                  bool png, struct gcb_plots *out,
                                  struct gcb_err *err) {
  struct gcb_plot_job *j = NULL;
  enum gcb_status st = gcb_plots_start(dir, docs, ndocs, t, png, out, &j, err);
  gcb_plots_finish(&j, out);
  return st;
}

Test(render, missing_gnuplot_is_a_note_not_an_error, .init = make_plotdir,
     .fini = remove_plotdir) {
  struct fixture fx;
  fixture_load(&fx, DATA("report-fixture.json"));
  struct gcb_plots plots = {0};
  struct gcb_err err = {0};
  setenv("GCB_GNUPLOT", "/nonexistent/gnuplot", 1);
  cr_assert_eq(plots_make(plotdir, &fx.doc, 1, &fx.th, false, &plots, &err),
               GCB_OK);
  cr_expect_eq(plots.n, 0);
  cr_expect_not_null(strstr(plots.note, "gnuplot not found"), "%s", plots.note);
  unsetenv("GCB_GNUPLOT");
  gcb_plots_free(&plots);
  fixture_free(&fx);
}

Test(render, gnuplot_draws_svg_plots_when_installed, .init = make_plotdir,
     .fini = remove_plotdir) {
  struct fixture fx;
  fixture_load(&fx, DATA("report-fixture.json"));
  struct gcb_plots plots = {0};
  struct gcb_err err = {0};
  unsetenv("GCB_GNUPLOT");
  cr_assert_eq(plots_make(plotdir, &fx.doc, 1, &fx.th, false, &plots, &err),
               GCB_OK);
  if (strstr(plots.note, "not found") != NULL) {
    gcb_plots_free(&plots);
    fixture_free(&fx);
    cr_skip_test("gnuplot is not installed");
  }
  if (plots.note[0] != '\0') {
    char log[600];
    size_t len = 0;
    snprintf(log, sizeof log, "%s/%s", plotdir, GCB_PLOT_LOG);
    char *text = fx_slurp(log, &len);
    /* Under valgrind --trace-children, gnuplot itself runs under valgrind,
     * which fails it (its own leaks, or a relative --suppressions path
     * after the chdir): not a gcbench failure. */
    bool wrapped = text != NULL && strncmp(text, "==", 2) == 0;
    cr_expect(wrapped || plots.note[0] == '\0', "%s: %s", plots.note,
              text ? text : "");
    free(text);
    if (wrapped) {
      gcb_plots_free(&plots);
      fixture_free(&fx);
      cr_skip_test("gnuplot under valgrind without its suppressions file");
    }
  }
  cr_assert_eq(plots.n, 5);
  for (size_t i = 0; i < plots.n; i++) {
    cr_assert_not_null(plots.items[i].svg, "%s", plots.items[i].file);
    cr_expect_not_null(strstr(plots.items[i].svg, "<svg"));
    cr_expect_null(strstr(plots.items[i].svg, "<script"));
  }
  gcb_plots_free(&plots);
  fixture_free(&fx);
}

Test(render, a_failed_gnuplot_leaves_no_stale_plot_behind, .init = make_plotdir,
     .fini = remove_plotdir) {
  struct fixture fx;
  fixture_load(&fx, DATA("report-fixture.json"));
  char stale[600];
  snprintf(stale, sizeof stale, "%s/plot-1-ranks.svg", plotdir);
  FILE *f = fopen(stale, "w");
  cr_assert_not_null(f);
  fputs(fake_svg, f);
  fclose(f);
  struct gcb_plots plots = {0};
  struct gcb_err err = {0};
  setenv("GCB_GNUPLOT", "false", 1);
  cr_assert_eq(plots_make(plotdir, &fx.doc, 1, &fx.th, false, &plots, &err),
               GCB_OK);
  unsetenv("GCB_GNUPLOT");
  cr_expect_eq(plots.n, 0, "a plot from an earlier report is not this one's");
  cr_expect_not_null(strstr(plots.note, "gnuplot failed (exit 1"), "%s",
                     plots.note);
  cr_expect_not_null(strstr(plots.note, "tables only"), "%s", plots.note);
  gcb_plots_free(&plots);
  fixture_free(&fx);
}

/* A plot gnuplot drew over 32 MB is not read back into the report: the
 * note says so, though gnuplot succeeded. The fake gnuplot writes each
 * plot the script names, the first one 40 MB long. */
Test(render, a_plot_over_32_mb_is_noted_as_left_out, .init = make_plotdir,
     .fini = remove_plotdir) {
  struct fixture fx;
  fixture_load(&fx, DATA("report-fixture.json"));
  char fake[128];
  snprintf(fake, sizeof fake, "%s/fake-gnuplot", plotdir);
  FILE *f = fopen(fake, "w");
  cr_assert_not_null(f);
  fputs("#!/bin/sh\n"
        "first=\n"
        "for p in $(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$1\"); do\n"
        "  echo '<svg></svg>' > \"$p\"; first=${first:-$p}\n"
        "done\n"
        "truncate -s 40M \"$first\"\n",
        f);
  fclose(f);
  cr_assert_eq(chmod(fake, 0755), 0);
  struct gcb_plots plots = {0};
  struct gcb_err err = {0};
  setenv("GCB_GNUPLOT", fake, 1);
  cr_assert_eq(plots_make(plotdir, &fx.doc, 1, &fx.th, false, &plots, &err),
               GCB_OK, "%s", err.msg);
  unsetenv("GCB_GNUPLOT");
  cr_expect_eq(plots.n, 4);
  cr_expect_str_eq(plots.note, "4 of 5 plots drawn (1 over 32 MB, left out)");
  gcb_plots_free(&plots);
  fixture_free(&fx);
}

/* A script of a megabyte or more (here 64 per-GPU bar plots of 1024 ranks)
 * is shared out among a gnuplot per CPU: each gets the script's first
 * lines and whole plot sections, and every plot is drawn by exactly one. */
Test(render, a_large_plot_script_is_shared_among_gnuplots, .init = make_plotdir,
     .fini = remove_plotdir) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
    cr_skip_test("one CPU: one gnuplot draws everything");
  enum { RANKS = 1024, CASES = 64 };
  json_t *doc = fx_doc(RANKS, RANKS / 8, 16, "Test CPU");
  for (int k = 0; k < CASES; k++) {
    const double figs[] = {100, 101};
    char label[32];
    snprintf(label, sizeof label, "fp32 %dx%dx%d", 1024 + k, 1024, 1024);
    json_t *c = fx_case("gemm", label, "{\"dtype\": \"fp32\"}", "GFLOP/s", figs,
                        2, 0.01, NULL);
    json_t *per = json_array();
    for (int r = 0; r < RANKS; r++)
      json_array_append_new(per, fx_rank_entry(r, 100 + r % 7, 0.01, 0));
    json_object_set_new(c, "per_rank", per);
    fx_add_case(doc, c);
  }
  struct gcb_doc d = fx_doc_of("big.json", doc);
  struct gcb_thresholds th;
  gcb_thresholds_default(&th);
  char fake[128], script[512];
  snprintf(fake, sizeof fake, "%s/fake-gnuplot", plotdir);
  snprintf(script, sizeof script, "#!/bin/sh\ncat \"$1\" > '%s'/seen.$$\n",
           plotdir);
  FILE *f = fopen(fake, "w");
  cr_assert_not_null(f);
  fputs(script, f);
  fclose(f);
  cr_assert_eq(chmod(fake, 0755), 0);
  struct gcb_plots plots = {0};
  struct gcb_err err = {0};
  setenv("GCB_GNUPLOT", fake, 1);
  cr_assert_eq(plots_make(plotdir, &d, 1, &th, false, &plots, &err), GCB_OK,
               "%s", err.msg);
  unsetenv("GCB_GNUPLOT");
  int seen = 0, drawn[CASES + 1] = {0};
  DIR *dir = opendir(plotdir);
  cr_assert_not_null(dir);
  for (struct dirent *e; (e = readdir(dir)) != NULL;) {
    if (strncmp(e->d_name, "seen.", 5) != 0)
      continue;
    char path[600];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", plotdir, e->d_name);
    char *text = fx_slurp(path, &len);
    cr_assert_not_null(text);
    seen++;
    cr_expect(strncmp(text, "# gcbench plots", 15) == 0, "%.40s", text);
    cr_expect_not_null(strstr(text, "set terminal svg"));
    for (const char *at = text; (at = strstr(at, "set output 'plot-"));) {
      int id = atoi(at + strlen("set output 'plot-"));
      cr_assert(id >= 1 && id <= CASES, "plot %d", id);
      drawn[id]++;
      at++;
    }
    free(text);
  }
  closedir(dir);
  cr_expect_geq(seen, 2, "one gnuplot drew a %d-rank script", RANKS);
  for (int id = 1; id <= CASES; id++)
    cr_expect_eq(drawn[id], 1, "plot %d drawn %d times", id, drawn[id]);
  gcb_plots_free(&plots);
  fx_doc_free(&d);
  json_decref(doc);
}

/* The plot script of one case over `ranks` ranks, rank r's figure
 * fig(r); the caller frees it. */
static char *plot_script_of(const char *bench, const char *label,
                            const char *params, int ranks,
                            double (*fig)(int rank)) {
  json_t *doc = fx_doc(ranks, ranks / 8, 16, "Test CPU");
  const double figs[] = {100, 101};
  json_t *c = fx_case(bench, label, params, "GB/s", figs, 2, 0.01, NULL);
  json_t *per = json_array();
  for (int r = 0; r < ranks; r++)
    json_array_append_new(per, fx_rank_entry(r, fig(r), 0.01, 0));
  json_object_set_new(c, "per_rank", per);
  fx_add_case(doc, c);
  return plot_script_of_doc(doc, NULL, NULL);
}

/* The data lines of datablock `name` in script s. */
static size_t datablock_lines(const char *s, const char *name) {
  char head[64];
  snprintf(head, sizeof head, "%s << EOD\n", name);
  const char *at = strstr(s, head), *end = at ? strstr(at, "\nEOD\n") : NULL;
  size_t n = 0;
  if (end == NULL)
    return 0;
  for (const char *p = at + strlen(head); p <= end; p = strchr(p, '\n') + 1)
    n++;
  return n;
}

static double one_slow_gpu(int rank) {
  return rank == 1234 ? 50 : 100 + rank % 7;
}

/* Past 1024 ranks a bar stands for a group of consecutive ranks at the
 * tallest of their bars, as drawing them all would look, and a slow rank
 * still has its own row, drawn as a dot: a bar narrower than a pixel
 * would not show it. */
Test(render, a_bar_plot_of_many_ranks_draws_groups_and_every_slow_rank) {
  char *s = plot_script_of("gemm", "fp32 1024", "{\"dtype\": \"fp32\"}", 4096,
                           one_slow_gpu);
  cr_expect_not_null(strstr(s, "set boxwidth 4\n"), "%.600s", s);
  cr_expect_eq(datablock_lines(s, "$ranks1"), 1024 + 1);
  cr_expect_not_null(strstr(s, "\n1.5 103 0 r0-3\n"));
  cr_expect_not_null(strstr(s, "\n1233.5 103 0 r1232-1235\n"));
  cr_expect_not_null(strstr(s, "\n1234 50 1 r1234"));
  cr_expect_not_null(strstr(s, "with points pt 7 ps 0.6 lc rgb '#e15759' "
                               "title 'outlier (slow rank)'"));
  free(s);
}

static double two_speeds(int rank) {
  return rank % 2 ? 50 : 100;
}

/* Up to 1024 ranks a bar per rank, as always. */
Test(render, a_bar_plot_of_up_to_1024_ranks_draws_every_rank) {
  char *s = plot_script_of("gemm", "fp32 1024", "{\"dtype\": \"fp32\"}", 1024,
                           one_slow_gpu);
  cr_expect_not_null(strstr(s, "set boxwidth 0.8\n"));
  cr_expect_eq(datablock_lines(s, "$ranks1"), 1024);
  cr_expect_not_null(strstr(s, "\n3 103 0 r3"));
  free(s);
}

/* A group's candlestick spans its ranks' (fastest iteration, lowest
 * median, highest p99, slowest iteration): here a fast and a slow rank
 * in each group of two. */
Test(render, a_time_plot_of_many_ranks_spans_each_group) {
  char *s = plot_script_of("coll", "allreduce float sum 1MB",
                           "{\"op\": \"allreduce\", \"size\": 1048576, "
                           "\"type\": \"float\", \"redop\": \"sum\"}",
                           2048, two_speeds);
  cr_expect_not_null(strstr(s, "set boxwidth 1.2\n"), "%.2000s", s);
  cr_expect_eq(datablock_lines(s, "$t2"), 1024, "%.2000s", s);
  cr_expect_not_null(strstr(s, "\n0.5 9900 10000 20200 20200 "), "%.2000s", s);
  free(s);
}

Test(render, sweeps_with_nothing_to_draw_get_no_plot) {
  json_t *doc = fx_doc(2, 1, 8, "Test CPU");
  const double figs[] = {1, 1};
  json_t *c = fx_case("coll", "barrier", "{\"op\": \"barrier\", \"size\": 0}",
                      "GB/s", figs, 2, 0.01, NULL);
  fx_add_case(doc, c);
  size_t nplots;
  free(plot_script_of_doc(doc, &nplots, NULL));
  cr_expect_eq(nplots, 0);
}

/* A component family the report has no measurement of (a "-" cell of the
 * matrix) is neither passed nor failed in junit.xml: skipped, saying so. */
Test(render, junit_skips_component_checks_with_no_measurement) {
  struct fixture fx;
  fixture_load(&fx, DATA("report-fixture.json"));
  size_t len;
  char *out = render(&gcb_render_junit, &fx.rep, &len);
  cr_expect_not_null(
      strstr(out, "name=\"node gpu-node-01 GPU 0 0000:1b:00.0 H2D\" "
                  "time=\"0.000000\">\n      <skipped message=\"n/a: the "
                  "report has no H2D measurement of this GPU\"/>"),
      "%s", out);
  cr_expect_not_null(strstr(out, "name=\"gcbench.components\" tests=\"36\" "
                                 "failures=\"7\" errors=\"0\" "
                                 "skipped=\"14\""));
  free(out);
  fixture_free(&fx);
}

/* Every case of the document fails. */
static enum gcb_status rule_every_case_fails(const struct gcb__rule_ctx *cx) {
  const struct gcb_model *m = cx->doc->model;
  for (size_t i = 0; i < m->ncases; i++) {
    struct gcb_finding *f =
        gcb__rule_push_case(cx, GCB_SEV_FAIL, &m->cases[i], -1);
    if (f == NULL)
      return GCB_ENOMEM;
    gcb_finding_explain(f, "it failed");
  }
  return GCB_OK;
}

/* A kind's name is text like any other: a kind added as a descriptor row
 * whose name holds XML's special characters comes out escaped in the
 * failure's type and in its lines, never raw. */
Test(render, junit_escapes_a_kind_name_wherever_it_writes_it) {
  static const struct gcb_kind odd = {
      .id = GCB_KIND_EXTRA,
      .name = "odd\"<kind>&",
      .family = GCB_FAM_HEALTH,
      .rule = {rule_every_case_fails},
      .thresholds = "",
      .group = GCB_GROUP_RUN,
  };
  json_t *doc = fx_doc(4, 1, 8, "Test CPU");
  const double figs[] = {1000, 1001, 1002, 1003};
  fx_add_case(doc, fx_case("gemm", "fp32 1024", "{\"dtype\": \"fp32\"}",
                           "GFLOP/s", figs, 4, 0.005, NULL));
  struct gcb_doc d = fx_doc_of("run.json", doc);
  struct gcb_thresholds th;
  struct gcb_findings f = {0};
  struct gcb_err err = {0};
  gcb_thresholds_default(&th);
  cr_assert_eq(gcb_analyze_kinds(&odd, 1, &d, 1, &th, &f, &err), GCB_OK, "%s",
               err.msg);
  cr_assert_eq(f.n, 1);
  struct gcb_report rep = {
      .docs = &d, .ndocs = 1, .findings = &f, .thresholds = &th};
  size_t len;
  char *out = render(&gcb_render_junit, &rep, &len);
  cr_expect_not_null(
      strstr(out, "<failure type=\"odd&quot;&lt;kind&gt;&amp;\" "
                  "message=\"it failed\">odd&quot;&lt;kind&gt;&amp;: "),
      "%s", out);
  cr_expect_null(strstr(out, "odd\"<kind>&"), "%s", out);
  free(out);
  gcb_findings_free(&f);
  fx_doc_free(&d);
  json_decref(doc);
}

/* Table cells in %s, %zu and %lld are written without vsnprintf: the
 * same text as it writes, for every mix of them with literal text; other
 * formats still go to vsnprintf. A cell holds its whole text however long
 * (a person reads it: nothing is cut silently). A cell whose figure is not
 * known reads "-". */
Test(render, table_cells_read_as_printf_writes_them) {
  struct gcb_rtables out = {0};
  struct gcb__tb b = {.out = &out};
  static const char *const h[] = {"a", NULL};
  struct gcb_rtable *t = gcb__table_new(&b, "t", "T", NULL, h);
  char **r = gcb__table_row(&b, t, NULL);
  cr_assert(r != NULL);
  char big[700], want[1024];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  memcpy(big + 505, "\u00b5\u00b5\u00b5", 6); /* across the old 511 bytes */
  const struct {
    const char *fmt;
    const char *s;
    long long v;
  } rows[] = {
      {"%s", "plain", 0}, {"%s", "", 0},
      {"%s", big, 0},     {"%lld", NULL, -9223372036854775807LL - 1},
      {"%lld", NULL, 42}, {"%zu", NULL, 7},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    if (strcmp(rows[i].fmt, "%s") == 0) {
      gcb__cell(&b, r, 0, "%s", rows[i].s);
      snprintf(want, sizeof want, "%s", rows[i].s);
    } else if (strcmp(rows[i].fmt, "%lld") == 0) {
      gcb__cell(&b, r, 0, "%lld", rows[i].v);
      snprintf(want, sizeof want, "%lld", rows[i].v);
    } else {
      gcb__cell(&b, r, 0, "%zu", (size_t)rows[i].v);
      snprintf(want, sizeof want, "%zu", (size_t)rows[i].v);
    }
    cr_expect_str_eq(r[0], want, "row %zu", i);
  }
  gcb__cell(&b, r, 0, "%s%s%s", "fail", " ", "12 GB/s");
  cr_expect_str_eq(r[0], "fail 12 GB/s");
  gcb__cell(&b, r, 0, "node %zu: %lld rank(s) on %s", (size_t)3, -2LL, "h0");
  cr_expect_str_eq(r[0], "node 3: -2 rank(s) on h0");
  gcb__cell(&b, r, 0, "[%s] %zu", big, SIZE_MAX);
  snprintf(want, sizeof want, "[%s] %zu", big, SIZE_MAX);
  cr_expect_str_eq(r[0], want);
  gcb__cell(&b, r, 0, "%zu %s%s", SIZE_MAX, big, "tail");
  snprintf(want, sizeof want, "%zu %s%s", SIZE_MAX, big, "tail");
  cr_expect_str_eq(r[0], want);
  gcb__cell(&b, r, 0, "%.1f%% of %s", 12.25, "x"); /* vsnprintf's */
  cr_expect_str_eq(r[0], "12.2% of x");
  gcb__cell(&b, r, 0, "%.1f %s", 1.25, big); /* vsnprintf's, long */
  snprintf(want, sizeof want, "%.1f %s", 1.25, big);
  cr_expect_str_eq(r[0], want);
  gcb__cell_if(&b, r, 0, true, "%.2f", 1.5);
  cr_expect_str_eq(r[0], "1.50");
  gcb__cell_if(&b, r, 0, false, "%.2f", NAN);
  cr_expect_str_eq(r[0], "-");
  gcb__cell_if(&b, r, 0, false, "%s @ %lld", "x", 3LL);
  cr_expect_str_eq(r[0], "-");
  cr_expect(!b.oom);
  gcb_rtables_free(&out);
}

/* Which columns are numeric is decided on where strtod ends a cell's
 * number: read without strtod, it must end in the same place. */
Test(render, number_end_is_where_strtod_ends) {
  static const char *const cells[] = {
      "0",        "-0",           "+1.5",  "12.",
      ".5",       "-.5",          ".",     "-",
      "+",        "1e5",          "1e",    "1e+",
      "1E-3x",    "2.5e+07 GB/s", "0x1p3", "0X",
      "-inf",     "+nan",         "Inf",   "nan(1)",
      "1,000",    "3.2%",         "+-1",   "0000:3b:00.0",
      "262.7 us", "1.5.5",        "9e999", "00012",
      "1e-400",   "-0x",          "5 e3",  "",
      "e5"};
  for (size_t i = 0; i < sizeof cells / sizeof *cells; i++) {
    char *end;
    strtod(cells[i], &end);
    cr_expect_eq(gcb__number_end(cells[i]) - cells[i], end - cells[i], "\"%s\"",
                 cells[i]);
  }
  /* and on random strings of the characters numbers are made of, each
   * starting as the cells it is asked about do (a sign or a digit) */
  static const char alphabet[] = "0123456789+-.eExXpinfaN %";
  unsigned seed = 12345;
  for (int k = 0; k < 200000; k++) {
    char s[12];
    size_t n = 1 + (seed = seed * 1103515245u + 12345u) % 10;
    for (size_t i = 0; i < n; i++) {
      seed = seed * 1103515245u + 12345u;
      s[i] = alphabet[(seed >> 16) % (i == 0 ? 12 : sizeof alphabet - 1)];
    }
    s[n] = '\0';
    char *end;
    strtod(s, &end);
    cr_expect_eq(gcb__number_end(s) - s, end - s, "\"%s\"", s);
  }
}

/* findings.json is written without jansson, in jansson's layout: read back
 * and written again by jansson with the flags the file had when jansson
 * wrote it, it is the same bytes (the report fixture's reals, checks and
 * comparison; control characters, quotes, backslashes, non-ASCII and a
 * byte that is not UTF-8 in the text). */
static void expect_jansson_layout(const char *out) {
  json_error_t jerr;
  json_t *back = json_loads(out, 0, &jerr);
  cr_assert_not_null(back, "%s: %s", jerr.text, out);
  char *again = json_dumps(back, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
  size_t n = strlen(again);
  cr_expect(strncmp(out, again, n) == 0 && strcmp(out + n, "\n") == 0,
            "%s\n----\n%s", out, again);
  free(again);
  json_decref(back);
}

Test(render, findings_json_is_laid_out_as_jansson_writes_it) {
  struct fixture fx;
  fixture_load(&fx, DATA("report-fixture.json"));
  fx.rep.expectations = "tab\there \"q\" back\\slash \x01 \x1f \x7f / \xc3\xa9";
  size_t len;
  char *out = render(&gcb_render_findings, &fx.rep, &len);
  expect_jansson_layout(out);
  cr_expect_not_null(strstr(out, "tab\\there \\\"q\\\" back\\\\slash \\u0001 "
                                 "\\u001F \x7f / \xc3\xa9"),
                     "%s", out);
  free(out);
  fx.rep.baseline = "base\xff.json"; /* not UTF-8: U+FFFD, as before */
  out = render(&gcb_render_findings, &fx.rep, &len);
  expect_jansson_layout(out);
  cr_expect_not_null(strstr(out, "\"baseline\": \"base\xef\xbf\xbd.json\""),
                     "%s", out);
  free(out);
  fixture_free(&fx);
}

/* ---- tables built across documents ------------------------------------
 * Two documents with training patterns: the pattern summary holds the rows
 * of both, though each document's per-rank pattern tables join the list of
 * tables after its rows (growing the list under the summary). */
Test(render, pattern_summary_holds_the_rows_of_every_document) {
  struct gcb_results *res[2];
  struct gcb_doc docs[2];
  load_doc(DATA("compare/vm-quick-clean-a.json"), "a.json", &res[0], &docs[0]);
  load_doc(DATA("compare/vm-quick-one-core.json"), "b.json", &res[1], &docs[1]);
  struct gcb_thresholds th;
  gcb_thresholds_default(&th);
  struct gcb_findings fs = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_analyze(docs, 2, &th, &fs, &err), GCB_OK, "%s", err.msg);
  struct gcb_report rep = {
      .docs = docs, .ndocs = 2, .findings = &fs, .thresholds = &th};
  struct gcb_rtables ts = {0};
  cr_assert_eq(gcb_report_tables(&rep, &ts, &err), GCB_OK, "%s", err.msg);
  size_t rows[3] = {0}, ranks = 0;
  for (size_t i = 0; i < ts.n; i++) {
    const struct gcb_rtable *t = &ts.items[i];
    ranks += strncmp(t->id, "pattern-", 8) == 0;
    for (size_t r = 1; strcmp(t->id, "patterns") == 0 && r <= t->nrows; r++) {
      const char *run = t->cells[r * t->ncols]; /* the "run" column */
      size_t k = run != NULL ? (size_t)atoi(run) : 0;
      rows[k < 3 ? k : 0]++;
    }
  }
  cr_expect_gt(ranks, 1, "per-rank pattern tables of both documents");
  cr_expect_gt(rows[1], 0, "summary rows of run 1");
  cr_expect_gt(rows[2], 0, "summary rows of run 2");
  cr_expect_eq(rows[0], 0, "summary rows of no run");
  gcb_rtables_free(&ts);
  gcb_findings_free(&fs);
  for (int i = 0; i < 2; i++) {
    fx_doc_free(&docs[i]);
    gcb_results_free(res[i]);
  }
}

/* ---- a report without thresholds ----------------------------------------
 * struct gcb_report's thresholds are optional: a report rendered without
 * them judges its tables (load balance, pattern stragglers, network map,
 * burn-in) by the analysis' defaults, the same bytes as with the defaults
 * passed. The document has multi-rank cases, patterns and a network map. */
Test(render, a_report_without_thresholds_renders_as_with_the_defaults) {
  struct gcb_results *res;
  struct gcb_doc doc;
  load_doc(DATA("compare/vm-quick-clean-a.json"), "a.json", &res, &doc);
  struct gcb_thresholds th;
  gcb_thresholds_default(&th);
  struct gcb_findings fs = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_analyze(&doc, 1, &th, &fs, &err), GCB_OK, "%s", err.msg);
  gcb_findings_sort(&fs);
  struct gcb_report with = {
      .docs = &doc, .ndocs = 1, .findings = &fs, .thresholds = &th};
  struct gcb_report without = with;
  without.thresholds = NULL;
  const struct gcb_renderer *const rs[] = {&gcb_render_md, &gcb_render_html};
  for (size_t i = 0; i < 2; i++) {
    size_t n1, n2;
    char *a = render(rs[i], &with, &n1);
    char *b = render(rs[i], &without, &n2);
    cr_expect(strstr(a, "Load balance") != NULL, "%s", rs[i]->name);
    cr_expect(strstr(a, "step per rank") != NULL, "%s", rs[i]->name);
    cr_expect(n1 == n2 && memcmp(a, b, n1) == 0,
              "%s differs without thresholds", rs[i]->name);
    free(a);
    free(b);
  }
  gcb_findings_free(&fs);
  fx_doc_free(&doc);
  gcb_results_free(res);
}

/* ---- tables that grow with their input ----------------------------------
 * Nothing a person reads is cut short silently: the per-GPU table shows
 * every document's figures, every collective sweep gets its table with
 * every size, and a GPU's ranks column names every rank that uses it. */

/* The tables of the documents trees[0..n) (no findings, the default
 * thresholds); free with tables_free. */
struct built {
  struct gcb_doc docs[10];
  size_t n;
  struct gcb_findings fs;
  struct gcb_rtables ts;
};

static void tables_build(struct built *b, json_t *const *trees, size_t n) {
  static const char *const names[] = {"a", "b", "c", "d", "e",
                                      "f", "g", "h", "i", "j"};
  struct gcb_err err = {0};
  cr_assert_leq(n, 10);
  memset(b, 0, sizeof *b);
  b->n = n;
  for (size_t i = 0; i < n; i++)
    b->docs[i] = fx_doc_of(names[i], trees[i]);
  struct gcb_report rep = {.docs = b->docs, .ndocs = n, .findings = &b->fs};
  cr_assert_eq(gcb_report_tables(&rep, &b->ts, &err), GCB_OK, "%s", err.msg);
}

static void tables_free(struct built *b) {
  gcb_rtables_free(&b->ts);
  fx_docs_free(b->docs, b->n);
}

/* The table with the id, or NULL; *count (may be NULL) the tables whose
 * id starts with the prefix. */
static const struct gcb_rtable *table_id(const struct built *b, const char *id,
                                         size_t *count) {
  const struct gcb_rtable *hit = NULL;
  if (count != NULL)
    *count = 0;
  for (size_t i = 0; i < b->ts.n; i++) {
    const struct gcb_rtable *t = &b->ts.items[i];
    if (count != NULL)
      *count += strncmp(t->id, id, strlen(id)) == 0;
    if (strcmp(t->id, id) == 0 && hit == NULL)
      hit = t;
  }
  return hit;
}

/* Row r's (from 0) cell in the column whose heading starts with `head`. */
static const char *cell_of(const struct gcb_rtable *t, size_t r,
                           const char *head) {
  for (size_t c = 0; c < t->ncols; c++)
    if (strncmp(t->cells[c], head, strlen(head)) == 0)
      return t->cells[(r + 1) * t->ncols + c];
  cr_assert_fail("no column %s", head);
  return NULL;
}

Test(render, the_gpu_table_shows_the_figures_of_every_document) {
  json_t *trees[9];
  for (size_t d = 0; d < 9; d++) {
    double fig = 100 + (double)d;
    trees[d] = fx_doc(1, 1, 4, "Test CPU");
    fx_add_case(trees[d], fx_case("gemm", "bf16", "{\"dtype\": \"bf16\"}",
                                  "GFLOP/s", &fig, 1, 0.01, NULL));
  }
  struct built b;
  tables_build(&b, trees, 9);
  const struct gcb_rtable *t = table_id(&b, "gpus", NULL);
  cr_assert_not_null(t);
  cr_assert_eq(t->nrows, 9);
  for (size_t r = 0; r < 9; r++) {
    char want[16];
    snprintf(want, sizeof want, "%zu", 100 + r);
    cr_expect_str_eq(cell_of(t, r, "GEMM bf16"), want, "run %zu", r + 1);
  }
  tables_free(&b);
  for (size_t d = 0; d < 9; d++)
    json_decref(trees[d]);
}

/* A document of `sweeps` allreduce sweeps (one per root) of `sizes`
 * sizes each. */
static json_t *coll_doc(size_t sweeps, size_t sizes) {
  json_t *doc = fx_doc(1, 1, 4, "Test CPU");
  double fig = 10;
  for (size_t s = 0; s < sweeps; s++)
    for (size_t i = 0; i < sizes; i++) {
      char params[96];
      snprintf(params, sizeof params,
               "{\"op\": \"allreduce\", \"root\": %zu, \"size\": %zu}", s,
               8 * (i + 1));
      fx_add_case(doc, fx_case("coll", "allreduce", params, "GB/s", &fig, 1,
                               0.01, NULL));
    }
  return doc;
}

Test(render, every_collective_sweep_gets_its_table) {
  json_t *tree = coll_doc(65, 1);
  struct built b;
  size_t n;
  tables_build(&b, &tree, 1);
  table_id(&b, "coll-", &n);
  cr_expect_eq(n, 65);
  cr_expect_not_null(table_id(&b, "coll-65", NULL), "the 65th sweep's table");
  tables_free(&b);
  json_decref(tree);
}

Test(render, a_collective_sweep_table_has_every_size) {
  json_t *tree = coll_doc(1, 4097);
  struct built b;
  tables_build(&b, &tree, 1);
  const struct gcb_rtable *t = table_id(&b, "coll-1", NULL);
  cr_assert_not_null(t);
  cr_expect_eq(t->nrows, 4097);
  cr_expect_str_eq(cell_of(t, t->nrows - 1, "size"), "32776");
  tables_free(&b);
  json_decref(tree);
}

Test(render, a_gpu_names_every_rank_that_uses_it) {
  json_t *tree = fx_doc(6, 1, 12, "Test CPU");
  json_t *rank;
  size_t i;
  fx_add_topology(tree, 1, 12);
  json_array_foreach(json_object_get(tree, "ranks"), i, rank) {
    json_t *dev = json_object_get(rank, "device");
    json_object_set_new(dev, "bus_id", json_string("0000:10:00.0"));
    json_object_set_new(dev, "index", json_integer(0));
  }
  struct built b;
  tables_build(&b, &tree, 1);
  const struct gcb_rtable *t = table_id(&b, "gpus", NULL);
  cr_assert_not_null(t);
  cr_assert_eq(t->nrows, 1);
  cr_expect_str_eq(cell_of(t, 0, "ranks"), "0-5");
  tables_free(&b);
  json_decref(tree);
}

/* A finding's where cell names every part of its location whole, each
 * text as long as its field holds. */
Test(render, a_finding_where_is_whole) {
  json_t *tree = coll_doc(1, 1);
  struct built b;
  tables_build(&b, &tree, 1);
  gcb_rtables_free(&b.ts);
  memset(&b.ts, 0, sizeof b.ts);
  struct gcb_finding *f =
      gcb_findings_push(&b.fs, GCB_SEV_WARN, &gcb_kinds[GCB_KIND_RUN_STATUS]);
  cr_assert_not_null(f);
  struct gcb_location *w = &f->where;
  w->rank = 1;
  w->node = 123456789;
  w->gpu = 7;
  memset(w->ranks, '1', sizeof w->ranks - 1);
  memset(w->hostname, 'h', sizeof w->hostname - 1);
  memset(w->bus_id, 'b', sizeof w->bus_id - 1);
  memset(w->link, 'l', sizeof w->link - 1);
  w->link[sizeof w->link - 2] = 'L';
  struct gcb_report rep = {.docs = b.docs, .ndocs = 1, .findings = &b.fs};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_report_tables(&rep, &b.ts, &err), GCB_OK, "%s", err.msg);
  const struct gcb_rtable *t = table_id(&b, "findings", NULL);
  cr_assert_not_null(t);
  const char *where = cell_of(t, 0, "where");
  cr_expect_str_eq(where + strlen(where) - 2, "lL", "%s", where);
  cr_expect_not_null(strstr(where, w->hostname));
  tables_free(&b);
  gcb_findings_free(&b.fs);
  json_decref(tree);
}

/* A host sweep's title names every transport setting the run recorded,
 * however long they are. */
Test(render, a_sweep_title_names_every_transport_setting) {
  json_t *tree = coll_doc(1, 1), *env = json_object();
  char devs[400] = "mlx5_0:1";
  for (int i = 1; i < 40; i++)
    snprintf(devs + strlen(devs), sizeof devs - strlen(devs), ",mlx5_%d:1", i);
  json_object_set_new(env, "UCX_NET_DEVICES", json_string(devs));
  json_object_set_new(env, "OMPI_MCA_btl", json_string("^openib,tcp"));
  json_object_set_new(json_object_get(tree, "run"), "environment", env);
  struct built b;
  tables_build(&b, &tree, 1);
  const struct gcb_rtable *t = table_id(&b, "coll-1", NULL);
  cr_assert_not_null(t);
  cr_expect_not_null(strstr(t->title, devs), "%s", t->title);
  cr_expect_str_eq(t->title + strlen(t->title) - 27,
                   ", OMPI_MCA_btl=^openib,tcp)", "%s", t->title);
  tables_free(&b);
  json_decref(tree);
}

/* A network map of n ranks on `nodes` nodes, every pair at 10 GB/s. */
static json_t *netmap_doc(int n, int nodes) {
  json_t *doc = fx_doc(n, nodes, 2 * n, "Test CPU");
  double fig = 10;
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++) {
      char params[160];
      snprintf(params, sizeof params,
               "{\"measure\": \"bandwidth\", \"schedule\": \"alone\", "
               "\"src\": %d, \"dst\": %d}",
               s, d);
      if (s != d)
        fx_add_case(
            doc, fx_case("netmap", "bw", params, "GB/s", &fig, 1, 0.01, NULL));
    }
  return doc;
}

/* Past 64 ranks the matrices are no tables: the per-node table says so,
 * on one node too (where it is the heatmap's only home). */
Test(render, a_network_map_too_big_for_a_table_says_so) {
  for (int nodes = 1; nodes <= 2; nodes++) {
    json_t *tree = netmap_doc(66, nodes);
    struct built b;
    tables_build(&b, &tree, 1);
    char id[64];
    struct gcb_netmap m;
    cr_assert(gcb_netmap_read_model(b.docs[0].model, "alone", &m));
    cr_expect(gcb__netmap_home(&m, 0, "alone", id, sizeof id));
    cr_expect_str_eq(id, "netmap-nodes-alone-0");
    gcb_netmap_free(&m);
    cr_expect_null(table_id(&b, "netmap-bw-alone-0", NULL));
    const struct gcb_rtable *t = table_id(&b, "netmap-nodes-alone-0", NULL);
    cr_assert_not_null(t, "%d node(s)", nodes);
    cr_expect_not_null(strstr(t->intro, "rank x rank matrices are not shown "
                                        "as tables"),
                       "%s", t->intro);
    tables_free(&b);
    json_decref(tree);
  }
}

/* A map of more ranks than a matrix is built for has no matrix and no
 * per-node table: the tables say it was not built. */
Test(render, a_network_map_not_built_says_so) {
  int n = GCB_NETMAP_MAX_ROWS + 1;
  json_t *tree = fx_doc(n, n, 8, "Test CPU");
  double fig = 10;
  fx_add_case(tree, fx_case("netmap", "bw",
                            "{\"measure\": \"bandwidth\", \"schedule\": "
                            "\"alone\", \"src\": 0, \"dst\": 1}",
                            "GB/s", &fig, 1, 0.01, NULL));
  struct built b;
  tables_build(&b, &tree, 1);
  cr_expect_null(table_id(&b, "netmap-nodes-alone-0", NULL));
  const struct gcb_rtable *t = table_id(&b, "netmap-alone-0", NULL);
  cr_assert_not_null(t, "a note that the map was not built");
  cr_expect_str_eq(cell_of(t, 0, "rows"), "4097 ranks");
  cr_expect_str_eq(cell_of(t, 0, "not built"),
                   "more than the 4096 a matrix is built for");
  tables_free(&b);
  json_decref(tree);
}

/* A node's ranks in the per-node network map table: cut where they do not
 * fit, with "..." that says so. */
Test(render, a_cut_rank_list_of_a_node_says_so) {
  json_t *tree = netmap_doc(66, 2);
  struct built b;
  tables_build(&b, &tree, 1);
  const struct gcb_rtable *t = table_id(&b, "netmap-nodes-alone-0", NULL);
  cr_assert_not_null(t);
  const char *ranks = cell_of(t, 0, "ranks");
  cr_expect_eq(strncmp(ranks, "0,1,2,", 6), 0, "%s", ranks);
  cr_expect_str_eq(ranks + strlen(ranks) - 4, ",...", "%s", ranks);
  tables_free(&b);
  json_decref(tree);
}

/* The per-GPU and per-rank tables have a figure column for 10 kinds or
 * cases at most; the cases left out are counted in their titles. */
Test(render, figure_columns_left_out_are_counted) {
  json_t *tree = fx_doc(1, 1, 4, "Test CPU");
  for (int i = 0; i < 12; i++) {
    char params[64];
    double fig = 100;
    snprintf(params, sizeof params, "{\"dtype\": \"t%d\"}", i);
    fx_add_case(tree,
                fx_case("gemm", "x", params, "GFLOP/s", &fig, 1, 0.01, NULL));
  }
  struct built b;
  tables_build(&b, &tree, 1);
  const struct gcb_rtable *g = table_id(&b, "gpus", NULL);
  const struct gcb_rtable *r = table_id(&b, "ranks", NULL);
  cr_assert(g != NULL && r != NULL);
  cr_expect_str_eq(g->title,
                   "Per-GPU summary (2 more cases not shown: see Cases)");
  cr_expect_str_eq(r->title,
                   "Per-rank summary (2 more cases not shown: see Cases)");
  tables_free(&b);
  json_decref(tree);
}

/* A check's bounds cell names every bound it has (up to 16, each with its
 * unit), however long that grows. */
Test(render, a_check_shows_every_bound) {
  struct gcb_criterion k = {.name = "gemm", .unit = "GFLOP/s"};
  k.nbounds = GCB_MAX_BOUNDS;
  for (size_t i = 0; i < k.nbounds; i++)
    k.bounds[i] = (struct gcb_bound){.metric = gcb_metric_find("median"),
                                     .is_min = true,
                                     .limit = 100000 + (double)i};
  struct gcb_criteria cr = {.path = "c.json", .checks = &k, .nchecks = 1};
  struct gcb_check_result res = {.matched = 1};
  json_t *tree = fx_doc(1, 1, 4, "Test CPU");
  struct built b = {.n = 1};
  b.docs[0] = fx_doc_of("a", tree);
  struct gcb_report rep = {.docs = b.docs,
                           .ndocs = 1,
                           .findings = &b.fs,
                           .criteria = &cr,
                           .checks = &res};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_report_tables(&rep, &b.ts, &err), GCB_OK, "%s", err.msg);
  const struct gcb_rtable *t = table_id(&b, "checks", NULL);
  cr_assert_not_null(t);
  const char *cell = cell_of(t, 0, "bounds");
  cr_expect_eq(strncmp(cell, "median >= 100000 GFLOP/s; ", 26), 0, "%s", cell);
  const char *last = "; median >= 100015 GFLOP/s";
  cr_expect_str_eq(cell + strlen(cell) - strlen(last), last, "%s", cell);
  tables_free(&b);
  json_decref(tree);
}

/* Every column of numbers is right-aligned, in a table of any width (a
 * network map of 64 ranks has 65 columns). */
Test(render, numbers_align_right_in_every_column_of_a_wide_table) {
  struct gcb_rtables ts = {0};
  struct gcb__tb tb = {.out = &ts};
  const char *h[41] = {NULL};
  char heads[40][8];
  for (size_t c = 0; c < 40; c++) {
    snprintf(heads[c], sizeof heads[c], "c%zu", c);
    h[c] = heads[c];
  }
  struct gcb_rtable *t = gcb__table_new(&tb, "wide", "Wide", NULL, h);
  char **r = gcb__table_row(&tb, t, NULL);
  for (size_t c = 0; c < 40; c++) /* numbers in 1 and 35 only */
    gcb__cell(&tb, r, c, "%s", c == 1 || c == 35 ? "12.5" : "text");
  struct gcb_err err = {0};
  cr_assert_eq(gcb__tables_done(&tb, &err), GCB_OK);
  json_t *tree = fx_doc(1, 1, 4, "Test CPU");
  struct gcb_doc doc = fx_doc_of("a", tree);
  struct gcb_findings fs = {0};
  struct gcb_report rep = {
      .docs = &doc, .ndocs = 1, .findings = &fs, .tables = &ts};
  size_t len;
  char *out = render(&gcb_render_md, &rep, &len);
  const char *sep = strstr(out, "| c39 |\n");
  cr_assert_not_null(sep, "%s", out);
  sep += strlen("| c39 |\n");
  for (size_t c = 0; c < 40; c++) {
    bool num = c == 1 || c == 35;
    const char *want = num ? "| ---: " : "| --- ";
    cr_expect_eq(strncmp(sep, want, strlen(want)), 0, "column %zu: %.20s", c,
                 sep);
    sep += strlen(want);
  }
  free(out);
  gcb_rtables_free(&ts);
  fx_doc_free(&doc);
  json_decref(tree);
}

/* A cell grown part by part: the separator only between parts, the whole
 * text however long. */
Test(render, a_cell_grows_part_by_part) {
  struct gcb_rtables out = {0};
  struct gcb__tb b = {.out = &out};
  static const char *const h[] = {"a", "b", NULL};
  struct gcb_rtable *t = gcb__table_new(&b, "t", "T", NULL, h);
  char **r = gcb__table_row(&b, t, NULL);
  cr_assert(r != NULL);
  gcb__cell_add(&b, r, 0, "; ", "%s", "first");
  cr_expect_str_eq(r[0], "first");
  gcb__cell_add(&b, r, 0, "; ", "%.1f", 2.0);
  cr_expect_str_eq(r[0], "first; 2.0");
  gcb__cell(&b, r, 1, "%s", "");
  gcb__cell_add(&b, r, 1, ", ", "%s", "x");
  cr_expect_str_eq(r[1], "x");
  for (int i = 0; i < 100; i++)
    gcb__cell_add(&b, r, 1, ", ", "%s", "x");
  cr_expect_eq(strlen(r[1]), 1 + 100 * 3);
  gcb__cell_add(&b, NULL, 0, ", ", "%s", "ignored");
  cr_expect(!b.oom);
  gcb_rtables_free(&out);
}

/* ---- the load balance table marks what the verdict states ---------------
 * Its rows show IPM's figures for every case; a row is marked only where
 * the verdict states its imbalance (the sweep's imbalance finding, or one
 * that explains it on the row's slowest rank), with the worst such
 * finding's severity. A real gather sweep of a healthy 2-rank VM
 * (tests/data/nccl) has its root 20-50% off the other rank, as a gather's
 * root always is, and no finding: its rows carry no mark, nor with a
 * failed acceptance check on its root (a finding about a rank of the
 * sweep that states no imbalance). The fixture's slow GPU fails its GEMM
 * row. */

/* A failed acceptance check on the root of the document's first gather
 * case. */
static void root_misses_a_check(struct gcb_findings *fs,
                                const struct gcb_model *m) {
  for (size_t i = 0; i < m->ncases; i++) {
    if (strcmp(m->cases[i].op, "gather") != 0)
      continue;
    struct gcb_finding *f =
        gcb_findings_push(fs, GCB_SEV_FAIL, &gcb_kinds[GCB_KIND_CRITERION]);
    cr_assert_not_null(f);
    f->where.doc = 0;
    f->where.rank = 0;
    f->bench_case = &m->cases[i];
    return;
  }
  cr_assert_fail("no gather case");
}

/* How many rows of the report's Load balance table carry class cls, and
 * (may be NULL) the first one's case; with_check: root_misses_a_check. */
static size_t marked_rows(const char *file, const char *cls, const char **first,
                          bool with_check, struct gcb_rtables *ts) {
  struct gcb_results *res;
  struct gcb_doc doc;
  load_doc(file, "a.json", &res, &doc);
  struct gcb_thresholds th;
  gcb_thresholds_default(&th);
  struct gcb_findings fs = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_analyze(&doc, 1, &th, &fs, &err), GCB_OK, "%s", err.msg);
  if (with_check)
    root_misses_a_check(&fs, doc.model);
  gcb_findings_sort(&fs);
  struct gcb_report rep = {
      .docs = &doc, .ndocs = 1, .findings = &fs, .thresholds = &th};
  cr_assert_eq(gcb_report_tables(&rep, ts, &err), GCB_OK, "%s", err.msg);
  size_t n = 0, high = 0;
  for (size_t i = 0; i < ts->n; i++) {
    const struct gcb_rtable *t = &ts->items[i];
    if (strcmp(t->id, "imbalance") != 0)
      continue;
    for (size_t r = 0; r < t->nrows; r++) {
      const char *im = cell_of(t, r, "imbalance");
      high += strtod(im, NULL) > th.imbalance_pct;
      if (t->row_class[r] == NULL || strcmp(t->row_class[r], cls) != 0)
        continue;
      if (n++ == 0 && first != NULL)
        *first = cell_of(t, r, "case");
    }
  }
  cr_assert_gt(high, 0, "%s: no row above the threshold to judge", file);
  gcb_findings_free(&fs);
  fx_doc_free(&doc);
  gcb_results_free(res);
  return n;
}

Test(render, load_balance_rows_are_marked_only_where_the_verdict_states_it) {
  struct gcb_rtables ts = {0};
  for (int check = 0; check < 2; check++)
    for (int fail = 0; fail < 2; fail++) {
      cr_expect_eq(marked_rows(DATA("nccl/gcbench-vm-gather_perf.json"),
                               fail ? "fail" : "warn", NULL, check, &ts),
                   0, "%s, check %d", fail ? "fail" : "warn", check);
      gcb_rtables_free(&ts);
    }
  const char *first = NULL;
  cr_expect_eq(
      marked_rows(DATA("report-fixture.json"), "fail", &first, false, &ts), 1);
  cr_expect_str_eq(first != NULL ? first : "", "gemm: fp32 8192x8192x8192");
  gcb_rtables_free(&ts);
}

/* A document of more cases than a report draws plots for: the first
 * GCB_PLOT_MAX are planned, each with its own section, the rest counted
 * in the note, and the script draws nothing of them. */
Test(render, plots_past_the_most_a_report_draws_are_counted_not_drawn) {
  json_t *doc = fx_doc(2, 1, 4, "Test CPU");
  const double figs[] = {100, 101};
  for (int i = 0; i < GCB_PLOT_MAX + 5; i++) {
    char params[48];
    snprintf(params, sizeof params, "{\"m\": %d}", 64 + i);
    fx_add_case(
        doc, fx_case("gemm", params, params, "GFLOP/s", figs, 2, 0.01, NULL));
  }
  size_t n;
  char note[sizeof((struct gcb_plots *)0)->note];
  char *buf = plot_script_of_doc(doc, &n, note);
  cr_expect_eq(n, GCB_PLOT_MAX);
  cr_expect_str_eq(note, "5 plot(s) past the first 1000 not drawn: their "
                         "figures are in the tables and results.csv");
  size_t outputs = 0, boxes = 0;
  for (const char *at = buf; (at = strstr(at, "set output '")) != NULL; at++)
    outputs++;
  for (const char *at = buf; (at = strstr(at, "set boxwidth")) != NULL; at++)
    boxes++;
  cr_expect_eq(outputs, GCB_PLOT_MAX);
  cr_expect_eq(boxes, GCB_PLOT_MAX, "no settings of a plot not drawn");
  free(buf);
}
