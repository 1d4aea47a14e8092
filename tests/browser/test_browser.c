/*
 * The HTML report in a real browser: Debian's chromium, headless, renders
 * index.html of a report whose hostnames, GPU names and case labels are
 * hostile (script and img tags), from a file:// URL, to a DOM dump and to
 * a screenshot. The DOM must hold the plots (inline SVG) and the tables,
 * the component matrix, the topology picture and the P2P heatmap (drawn
 * as SVG cells, not an image the page's policy would block), and no
 * script or img element: the hostile text must come out as text. The
 * screenshot, read back with libpng, must show the pictures' pixels: the
 * failing GPU's outline colour of the topology picture and the heatmap's
 * green cells (no script can measure boxes on a script-free page). A
 * second page, of a network map across three hosts whose third has a slow
 * link, must show the heatmap inside the netmap section with every host
 * named and that host's cells outlined in the failing colour.
 *
 * Chromium is started without a shell (posix_spawn, an argument vector),
 * with its own fresh profile directory. Without chromium the test fails,
 * as CI installs it (scripts/setup-deps); GCB_SKIP_BROWSER=1 skips it on a
 * machine that does not have it. GCB_CHROMIUM names another binary.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/cli/report_command.h"
#include "tests/reports/report_fixture.h"

#ifdef GCB_HAVE_PNG
#include <png.h>
#endif

#define DATA(name) GCB_TEST_DATA "/" name
#define BROWSER_TIMEOUT_S 60

extern char **environ;

static const char script_host[] = "<script>alert(1)</script>";
static const char img_name[] = "<img src=x onerror=alert(2)>";

static char dir[64];

static void make_dir(void) {
  strcpy(dir, "/tmp/gcb-test-browser-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

/* Removes a directory tree (the report, the profile). */
static void remove_tree(const char *path) {
  DIR *d = opendir(path);
  struct dirent *e;
  char sub[1024];
  while (d != NULL && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
    struct stat st;
    if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
      remove_tree(sub);
    else
      unlink(sub);
  }
  if (d != NULL)
    closedir(d);
  rmdir(path);
}

static void remove_dir(void) {
  remove_tree(dir);
}

TestSuite(browser, .init = make_dir, .fini = remove_dir, .timeout = 180);

/* The 8-GPU fixture with hostile text where input text reaches a page. */
static void hostile_fixture(const char *path) {
  json_error_t je;
  json_t *doc = json_load_file(DATA("report-gpu8.json"), 0, &je);
  json_t *e;
  size_t i;
  cr_assert_not_null(doc, "%s", je.text);
  json_array_foreach(json_object_get(doc, "nodes"), i, e) {
    json_object_set_new(e, "hostname", json_string(script_host));
  }
  json_array_foreach(json_object_get(doc, "ranks"), i, e) {
    json_object_set_new(e, "hostname", json_string(script_host));
    json_object_set_new(json_object_get(e, "device"), "name",
                        json_string(img_name));
  }
  json_object_set_new(json_array_get(json_object_get(doc, "cases"), 0), "label",
                      json_string(img_name));
  cr_assert_eq(json_dump_file(doc, path, JSON_COMPACT), 0);
  json_decref(doc);
}

/* The browser binary: $GCB_CHROMIUM, Debian's real binary (not its shell
 * wrapper), else "chromium" on the PATH; NULL when there is none. */
static const char *browser(void) {
  const char *env = getenv("GCB_CHROMIUM");
  static const char *const paths[] = {"/usr/lib/chromium/chromium",
                                      "/usr/bin/chromium",
                                      "/usr/bin/chromium-browser", NULL};
  if (env != NULL && env[0] != '\0')
    return env;
  for (size_t i = 0; paths[i]; i++)
    if (access(paths[i], X_OK) == 0)
      return paths[i];
  return NULL;
}

/* Runs the browser on the page with one more argument, stdout to `out`;
 * returns its exit status (-1 when it had to be killed). */
static int run_browser(const char *prog, const char *page, const char *extra,
                       const char *out) {
  char profile[128], profile_arg[160], url[512];
  snprintf(profile, sizeof profile, "%s/profile-XXXXXX", dir);
  cr_assert_not_null(mkdtemp(profile));
  snprintf(profile_arg, sizeof profile_arg, "--user-data-dir=%s", profile);
  snprintf(url, sizeof url, "file://%s", page);
  char *argv[] = {(char *)prog,
                  "--headless",
                  "--no-sandbox",
                  "--disable-gpu",
                  profile_arg,
                  "--window-size=1280,16000",
                  "--no-first-run",
                  (char *)extra,
                  url,
                  NULL};
  posix_spawn_file_actions_t fa;
  cr_assert_eq(posix_spawn_file_actions_init(&fa), 0);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, prog, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  cr_assert_eq(rc, 0, "cannot start %s: %s", prog, strerror(rc));
  int status = 0;
  for (int waited = 0; waited < BROWSER_TIMEOUT_S * 10; waited++) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    struct timespec ts = {0, 100000000};
    nanosleep(&ts, NULL);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t size = 0;
  FILE *m = open_memstream(&buf, &size);
  int c;
  while (f != NULL && (c = fgetc(f)) != EOF)
    fputc(c, m);
  fclose(m);
  if (f != NULL)
    fclose(f);
  *len = size;
  return buf;
}

/* Pixels of the screenshot: of the topology picture's failing outline
 * (#c0392b, used nowhere else on the page), and of the heatmap's green
 * (the palette's top, far greener than any table cell). -1: unreadable. */
static int pixels(const char *png, size_t len, long *fail_outline,
                  long *green) {
#ifdef GCB_HAVE_PNG
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&img, png, len))
    return -1;
  img.format = PNG_FORMAT_RGB;
  unsigned char *buf = malloc(PNG_IMAGE_SIZE(img));
  if (buf == NULL || !png_image_finish_read(&img, NULL, buf, 0, NULL)) {
    free(buf);
    png_image_free(&img);
    return -1;
  }
  *fail_outline = *green = 0;
  for (size_t i = 0; i < (size_t)img.width * img.height; i++) {
    const unsigned char *p = buf + 3 * i;
    *fail_outline += p[0] == 0xc0 && p[1] == 0x39 && p[2] == 0x2b;
    *green += p[1] > 140 && p[0] < 130 && p[2] < 110;
  }
  free(buf);
  return 0;
#else
  (void)png, (void)len, (void)fail_outline, (void)green;
  return -1;
#endif
}

static size_t count(const char *text, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

/* Writes the hostile report into dir/report; returns the page's path. */
static const char *make_report(void) {
  static char doc[128], out[128], page[160];
  snprintf(doc, sizeof doc, "%s/hostile.json", dir);
  snprintf(out, sizeof out, "%s/report", dir);
  snprintf(page, sizeof page, "%s/index.html", out);
  hostile_fixture(doc);
  char *argv[] = {"report", doc, "-o", out, NULL};
  int code = gcb__report_command(4, argv, 0);
  cr_assert_eq(code, 1, "the fixture has failure-level findings");
  return page;
}

Test(browser, the_report_renders_with_plots_and_tables_and_inert_input) {
  const char *prog = browser();
  const char *skip = getenv("GCB_SKIP_BROWSER");
  if (prog == NULL && skip != NULL && strcmp(skip, "1") == 0)
    cr_skip_test("no chromium here and GCB_SKIP_BROWSER=1");
  cr_assert_not_null(prog, "chromium not found: install it "
                           "(scripts/setup-deps) or set GCB_SKIP_BROWSER=1");
  const char *page = make_report();
  size_t len;
  char *html = slurp(page, &len);
  size_t plots = count(html, "<figure>");
  cr_expect_gt(plots, 5, "the report inlines its plots (gnuplot installed)");
  cr_expect_eq(count(html, "<script"), 0);
  free(html);

  char dom_path[160], shot[160], shot_arg[200];
  snprintf(dom_path, sizeof dom_path, "%s/dom.html", dir);
  snprintf(shot, sizeof shot, "%s/shot.png", dir);
  snprintf(shot_arg, sizeof shot_arg, "--screenshot=%s", shot);
  time_t t0 = time(NULL);
  cr_assert_eq(run_browser(prog, page, "--dump-dom", dom_path), 0);
  cr_assert_eq(run_browser(prog, page, shot_arg, "/dev/null"), 0);
  cr_log_info("chromium: DOM dump and screenshot in %lds",
              (long)(time(NULL) - t0));

  char *dom = slurp(dom_path, &len);
  cr_expect_geq(count(dom, "<svg"), plots, "every plot is in the DOM");
  cr_expect_geq(count(dom, "<table"), 8, "the tables are in the DOM");
  cr_expect_not_null(strstr(dom, "id=\"gpus\""), "the per-GPU table");
  cr_expect_not_null(strstr(dom, "id=\"findings\""));
  /* The verdict first: root causes and the component matrix open the
   * page, its cells coloured by state, before the per-case findings. */
  const char *causes = strstr(dom, "id=\"root-causes\"");
  const char *matrix = strstr(dom, "id=\"matrix\"");
  cr_expect_not_null(causes, "the root causes table");
  cr_expect_not_null(matrix, "the component matrix");
  cr_expect(causes && matrix && causes < matrix &&
                matrix < strstr(dom, "id=\"findings\""),
            "root causes, then the matrix, then the findings");
  cr_expect_gt(count(dom, "class=\"s-fail\""), 0, "failing matrix cells");
  cr_expect_gt(count(dom, "class=\"s-pass\""), 8, "passing matrix cells");
  /* The topology picture, after the matrix, GPU 1 drawn failing. */
  const char *topo = strstr(dom, "id=\"topology\"");
  cr_expect(topo && matrix && matrix < topo, "the topology after the matrix");
  cr_expect_not_null(strstr(dom, "class=\"gpu fail\" id=\"topo-0-gpu-1\""),
                     "GPU 1 drawn failing");
  cr_expect_eq(count(dom, "class=\"gpu "), 8, "eight GPUs drawn");
  cr_expect_gt(count(dom, "id=\"topo-0-p2p-"), 50, "the pair cells");
  /* The heatmap beside the per-GPU table, as cells, no data: image. */
  const char *gpus = strstr(dom, "id=\"gpus\"");
  const char *heat = gpus ? strstr(gpus, "P2P GB/s, node 0") : NULL;
  const char *ranks = gpus ? strstr(gpus, "id=\"ranks\"") : NULL;
  cr_expect(heat && ranks && heat < ranks, "a P2P heatmap beside the GPUs");
  cr_expect_eq(count(dom, "data:"), 0, "no data: URL the policy blocks");
  cr_expect_eq(count(dom, "<image"), 0, "no SVG image element");
  cr_expect_eq(count(dom, "<script"), 0, "no script element");
  cr_expect_eq(count(dom, "<img"), 0, "no img element");
  cr_expect_eq(count(dom, "onerror=\""), 0, "no onerror attribute");
  cr_expect_not_null(strstr(dom, "&lt;script&gt;alert(1)&lt;/script&gt;"),
                     "the hostile hostname shows as text");
  cr_expect_not_null(strstr(dom, "&lt;img src=x onerror=alert(2)&gt;"),
                     "the hostile GPU name shows as text");
  free(dom);

  char *png = slurp(shot, &len);
  cr_expect_gt(len, 10000, "a screenshot of the page");
  cr_expect(len >= 8 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0, "a PNG");
  long outline = 0, green = 0;
  if (pixels(png, len, &outline, &green) != 0) {
    cr_log_warn("screenshot not read back (no libpng): pixels not checked");
  } else {
    cr_log_info("screenshot: %ld failing-outline, %ld heatmap-green pixels",
                outline, green);
    cr_expect_gt(outline, 300, "the topology picture drew GPU 1 failing");
    cr_expect_gt(green, 20000, "the P2P heatmap drew its cells");
  }
  free(png);
}

/* Three hosts, one rank each, every ordered pair a netmap case; host 3's
 * link slow; host 2's name hostile. */
static const char *make_netmap_report(void) {
  static char doc_path[128], out[128], page[160];
  snprintf(doc_path, sizeof doc_path, "%s/netmap.json", dir);
  snprintf(out, sizeof out, "%s/netmap-report", dir);
  snprintf(page, sizeof page, "%s/index.html", out);
  json_t *doc = fx_doc(3, 3, 8, "Test CPU");
  size_t i;
  json_t *e;
  static const char *const hosts[] = {"gcbt-h1", script_host, "gcbt-h3"};
  json_array_foreach(json_object_get(doc, "nodes"), i, e) {
    json_object_set_new(e, "hostname", json_string(hosts[i]));
  }
  json_array_foreach(json_object_get(doc, "ranks"), i, e) {
    json_object_set_new(e, "hostname", json_string(hosts[i]));
  }
  for (int s = 0; s < 3; s++)
    for (int d = 0; d < 3; d++) {
      if (s == d)
        continue;
      double figs[3], bw = s == 2 || d == 2 ? 0.1 : 10;
      char params[160], label[64];
      for (int r = 0; r < 3; r++)
        figs[r] = bw;
      snprintf(params, sizeof params,
               "{\"measure\": \"bandwidth\", \"schedule\": \"alone\", "
               "\"src\": %d, \"dst\": %d}",
               s, d);
      snprintf(label, sizeof label, "bandwidth alone %d->%d", s, d);
      fx_add_case(
          doc, fx_case("netmap", label, params, "GB/s", figs, 3, 0.01, NULL));
    }
  fx_write(doc, doc_path);
  json_decref(doc);
  char *argv[] = {"report", doc_path, "-o", out, NULL};
  cr_assert_eq(gcb__report_command(4, argv, 0), 1, "host 3's link fails");
  return page;
}

Test(browser, the_network_map_heatmap_renders_with_host_names) {
  const char *prog = browser();
  const char *skip = getenv("GCB_SKIP_BROWSER");
  if (prog == NULL && skip != NULL && strcmp(skip, "1") == 0)
    cr_skip_test("no chromium here and GCB_SKIP_BROWSER=1");
  cr_assert_not_null(prog, "chromium not found: install it "
                           "(scripts/setup-deps) or set GCB_SKIP_BROWSER=1");
  const char *page = make_netmap_report();
  char dom_path[160], shot[160], shot_arg[200];
  snprintf(dom_path, sizeof dom_path, "%s/netmap-dom.html", dir);
  snprintf(shot, sizeof shot, "%s/netmap-shot.png", dir);
  snprintf(shot_arg, sizeof shot_arg, "--screenshot=%s", shot);
  cr_assert_eq(run_browser(prog, page, "--dump-dom", dom_path), 0);
  cr_assert_eq(run_browser(prog, page, shot_arg, "/dev/null"), 0);
  size_t len;
  char *dom = slurp(dom_path, &len);
  const char *sec = strstr(dom, "id=\"netmap-bw-alone-0\"");
  const char *fig = sec ? strstr(sec, "<figure class=\"netmap\">") : NULL;
  cr_expect(fig != NULL, "the heatmap in the netmap section");
  cr_expect_eq(count(dom, "class=\"cell fail\""), 4, "host 3's four pairs");
  cr_expect_not_null(strstr(dom, ">0 gcbt-h1<"));
  cr_expect_not_null(strstr(dom, ">2 gcbt-h3<"));
  cr_expect_not_null(strstr(dom, "&lt;script&gt;alert(1)&lt;/script&gt;"),
                     "the hostile host name as text");
  cr_expect_eq(count(dom, "<script"), 0, "no script element");
  free(dom);
  char *png = slurp(shot, &len);
  long outline = 0, green = 0;
  if (pixels(png, len, &outline, &green) != 0) {
    cr_log_warn("screenshot not read back (no libpng): pixels not checked");
  } else {
    cr_log_info("netmap screenshot: %ld failing-outline, %ld green pixels",
                outline, green);
    cr_expect_gt(outline, 200, "host 3's cells outlined in the failing colour");
    cr_expect_gt(green, 2000, "the fast pairs' green cells");
  }
  free(png);
}
