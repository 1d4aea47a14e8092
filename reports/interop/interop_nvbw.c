/*
 * nvbandwidth's JSON output (`nvbandwidth -j`; the writer is
 * json_output.cpp, jsoncpp's styled output on stdout) as a gcbench
 * document. The file is {"nvbandwidth": {...}} with version, git_version,
 * "CUDA Runtime Version", "Driver Version", "GPU Device list" (strings
 * "0: NVIDIA H200 (00000000:19:00): (host)", in newer releases), optional
 * error and warning, and testcases[]: name, status ("Passed", "Waived",
 * "Error", ...), bandwidth_description, bandwidth_matrix (rows of strings,
 * each a number or "N/A"), sum, and with -v min, max, average.
 *
 * One nvbandwidth process measures every GPU of one machine, so each GPU
 * becomes a rank of its own (rank i = GPU i) on one node. Host-device
 * tests (a 1 x N matrix, CPU row, GPU columns) become "pcie" cases with
 * one figure per GPU (nvbandwidth's host buffers are pinned and, with its
 * default CPU affinity, local); device-device tests (N x N, row the GPU
 * named first in the description, column its peer) become one "p2p" case
 * per pair with src = row and dst = column, measured by the src GPU. The
 * bidirectional device-device tests append three matrices to one testcase
 * (read1/write1, read2/write2, total); their last N rows, the total, are used.
 * Tests gcbench has no counterpart for are listed as skipped, never silently
 * dropped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/interop/interop_int.h"
#include "reports/document/topo_view.h"

#define MAX_GPUS 64
/* nvbandwidth's JSON records no buffer size: the figures are rates, and
 * each is shown as the time to move one gigabyte at that rate. */
#define WORK 1e9
#define COUNTED "1 GB at the measured rate (nvbandwidth records no size)"

/* How a testcase name maps onto a gcbench case, in the params gcbench's
 * own pcie and p2p benchmarks write (docs/GPU.md): pcie direction h2d/d2h
 * (traffic bidir: measured while the other direction runs), p2p direction
 * uni/bidir (bidir: the total of both), copy read/write, and mode: ce
 * (copy engine) or sm (kernel). */
static const struct {
  const char *name;
  const char *bench; /* "pcie" or "p2p" */
  const char *dir;   /* pcie: h2d/d2h; p2p: read/write */
  const char *both;  /* "uni" or "bidir" */
  const char *mode;  /* "ce" or "sm" */
} known_tests[] = {
    {"host_to_device_memcpy_ce", "pcie", "h2d", "uni", "ce"},
    {"device_to_host_memcpy_ce", "pcie", "d2h", "uni", "ce"},
    {"host_to_device_bidirectional_memcpy_ce", "pcie", "h2d", "bidir", "ce"},
    {"device_to_host_bidirectional_memcpy_ce", "pcie", "d2h", "bidir", "ce"},
    {"device_to_device_memcpy_read_ce", "p2p", "read", "uni", "ce"},
    {"device_to_device_memcpy_write_ce", "p2p", "write", "uni", "ce"},
    {"device_to_device_bidirectional_memcpy_read_ce", "p2p", "read", "bidir",
     "ce"},
    {"device_to_device_bidirectional_memcpy_write_ce", "p2p", "write", "bidir",
     "ce"},
    {"host_to_device_memcpy_sm", "pcie", "h2d", "uni", "sm"},
    {"device_to_host_memcpy_sm", "pcie", "d2h", "uni", "sm"},
    {"host_to_device_bidirectional_memcpy_sm", "pcie", "h2d", "bidir", "sm"},
    {"device_to_host_bidirectional_memcpy_sm", "pcie", "d2h", "bidir", "sm"},
    {"device_to_device_memcpy_read_sm", "p2p", "read", "uni", "sm"},
    {"device_to_device_memcpy_write_sm", "p2p", "write", "uni", "sm"},
    {"device_to_device_bidirectional_memcpy_read_sm", "p2p", "read", "bidir",
     "sm"},
    {"device_to_device_bidirectional_memcpy_write_sm", "p2p", "write", "bidir",
     "sm"},
};

/* One GPU of the device list. */
struct gpu {
  char name[128], bus[32], host[128];
};

struct nvbw {
  struct gcb__conv *cv;
  json_t *doc;
  struct gpu gpus[MAX_GPUS];
  size_t ngpus;
  double m[MAX_GPUS][MAX_GPUS]; /* the testcase being converted */
  size_t rows, cols;
};

/* Parses "0: NVIDIA H200 (00000000:19:00): (dgx01)"; false when the
 * entry does not look like that (the GPU is then known by index only). */
static bool parse_device(const char *s, struct gpu *g) {
  const char *colon = strchr(s, ':');
  const char *host = strrchr(s, '(');
  const char *sep = host ? strstr(s, "): (") : NULL;
  const char *open = NULL;
  if (colon == NULL || sep == NULL || host != sep + 3)
    return false;
  for (const char *p = s; p < sep; p++)
    if (*p == '(')
      open = p;
  if (open == NULL || open < colon)
    return false;
  snprintf(g->host, sizeof g->host, "%.*s", (int)strcspn(host + 1, ")"),
           host + 1);
  char bus[40];
  snprintf(bus, sizeof bus, "%.*s", (int)(sep - open - 1), open + 1);
  gcb_busid_canon(bus, g->bus, sizeof g->bus);
  const char *name = colon + 1 + (colon[1] == ' ');
  snprintf(g->name, sizeof g->name, "%.*s",
           (int)(open - name - (open > name && open[-1] == ' ')), name);
  return true;
}

static enum gcb_status device_list(struct nvbw *x, const json_t *list) {
  const json_t *e;
  size_t i;
  json_array_foreach(list, i, e) {
    if (i >= MAX_GPUS)
      break;
    gcb__conv_enter(x->cv, NULL, i);
    enum gcb_status st =
        json_is_string(e) ? GCB_OK : gcb__conv_bad(x->cv, "expected a string");
    gcb__conv_leave(x->cv);
    if (st != GCB_OK)
      return st;
    if (!parse_device(json_string_value(e), &x->gpus[i]))
      snprintf(x->gpus[i].name, sizeof x->gpus[i].name, "GPU %zu", i);
    x->ngpus = i + 1;
  }
  return GCB_OK;
}

/* Reads bandwidth_matrix into x->m (NAN for "N/A"). */
static enum gcb_status matrix(struct nvbw *x, const json_t *mat) {
  const json_t *row, *cell;
  size_t r, c;
  x->rows = x->cols = 0;
  gcb__conv_enter(x->cv, "bandwidth_matrix", 0);
  json_array_foreach(mat, r, row) {
    gcb__conv_enter(x->cv, NULL, r);
    if (!json_is_array(row) || r >= 3 * MAX_GPUS)
      return gcb__conv_bad(x->cv, "expected an array of at most %d values",
                           MAX_GPUS);
    json_array_foreach(row, c, cell) {
      gcb__conv_enter(x->cv, NULL, c);
      double v = gcb__conv_number(cell);
      const char *s = json_string_value(cell);
      if (c >= MAX_GPUS || (isnan(v) && !(s != NULL && strcmp(s, "N/A") == 0)))
        return gcb__conv_bad(x->cv, "expected a number or \"N/A\"");
      gcb__conv_leave(x->cv);
      x->m[r % MAX_GPUS][c] = v;
      x->cols = c + 1 > x->cols ? c + 1 : x->cols;
    }
    x->rows = r + 1;
    gcb__conv_leave(x->cv);
  }
  gcb__conv_leave(x->cv);
  return GCB_OK;
}

static json_t *params(size_t t, const char *name) {
  if (strcmp(known_tests[t].bench, "pcie") == 0)
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "direction",
                     known_tests[t].dir, "memory", "pinned", "numa", "local",
                     "traffic", known_tests[t].both, "mode",
                     known_tests[t].mode, "testcase", name);
  return json_pack("{s:s, s:s, s:s, s:s}", "mode", known_tests[t].mode,
                   "direction", known_tests[t].both, "copy", known_tests[t].dir,
                   "testcase", name);
}

static enum gcb_status add_case(struct nvbw *x, json_t *c) {
  if (c == NULL ||
      json_array_append_new(json_object_get(x->doc, "cases"), c) != 0)
    return gcb_err_set(x->cv->err, GCB_ENOMEM, "out of memory");
  return GCB_OK;
}

/* A 1 x N host-device matrix: one case, one figure per GPU. */
static enum gcb_status pcie(struct nvbw *x, size_t t, const char *name) {
  long long rank[MAX_GPUS];
  double fig[MAX_GPUS];
  size_t n = 0;
  for (size_t g = 0; g < x->cols; g++)
    if (x->m[0][g] > 0) {
      rank[n] = (long long)g;
      fig[n++] = x->m[0][g];
    }
  if (n == 0)
    return GCB_OK;
  return add_case(x,
                  gcb__conv_case("pcie", name, params(t, name), WORK, COUNTED,
                                 rank, fig, n, 0, "nvbandwidth: Passed"));
}

/* An N x N device-device matrix (its last N rows): one case per pair. */
static enum gcb_status p2p(struct nvbw *x, size_t t, const char *name) {
  size_t n = x->cols, first = x->rows > n ? x->rows - n : 0;
  enum gcb_status st = GCB_OK;
  for (size_t a = 0; a < n && st == GCB_OK && first + a < x->rows; a++)
    for (size_t b = 0; b < n && st == GCB_OK; b++) {
      double v = x->m[(first + a) % MAX_GPUS][b];
      if (a == b || !(v > 0))
        continue;
      char label[160];
      snprintf(label, sizeof label, "%s GPU%zu->GPU%zu", name, a, b);
      json_t *p = params(t, name);
      json_object_set_new(p, "src", json_integer((json_int_t)a));
      json_object_set_new(p, "dst", json_integer((json_int_t)b));
      if (a < x->ngpus && x->gpus[a].bus[0])
        json_object_set_new(p, "src_bus_id", json_string(x->gpus[a].bus));
      if (b < x->ngpus && x->gpus[b].bus[0])
        json_object_set_new(p, "dst_bus_id", json_string(x->gpus[b].bus));
      long long rank = (long long)a;
      st = add_case(x, gcb__conv_case("p2p", label, p, WORK, COUNTED, &rank, &v,
                                      1, 0, "nvbandwidth: Passed"));
    }
  return st;
}

/* A testcase that becomes no case: an entry of skipped[] or errors[]. */
static enum gcb_status note(struct nvbw *x, const char *section,
                            const char *name, const char *why) {
  json_t *e = strcmp(section, "errors") == 0
                  ? json_pack("{s:s, s:s, s:i, s:s, s:s}", "bench",
                              "nvbandwidth", "label", name, "rank", -1,
                              "status", "ECUDA", "message", why)
                  : json_pack("{s:s, s:s, s:s}", "bench", "nvbandwidth",
                              "label", name, "reason", why);
  if (e == NULL ||
      json_array_append_new(json_object_get(x->doc, section), e) != 0)
    return gcb_err_set(x->cv->err, GCB_ENOMEM, "out of memory");
  return GCB_OK;
}

static enum gcb_status testcase(struct nvbw *x, const json_t *tc) {
  const json_t *name, *status, *mat, *error;
  struct gcb__conv *cv = x->cv;
  enum gcb_status st;
  if (!json_is_object(tc))
    return gcb__conv_bad(cv, "expected an object");
  if ((st = gcb__conv_get(cv, tc, "name", GCB__J_STR, true, &name)) ||
      (st = gcb__conv_get(cv, tc, "status", GCB__J_STR, true, &status)) ||
      (st = gcb__conv_get(cv, tc, "bandwidth_matrix", GCB__J_ARR, false,
                          &mat)) ||
      (st = gcb__conv_get(cv, tc, "error", GCB__J_STR, false, &error)))
    return st;
  const char *n = json_string_value(name), *s = json_string_value(status);
  size_t t = 0, nt = sizeof known_tests / sizeof *known_tests;
  while (t < nt && strcmp(known_tests[t].name, n) != 0)
    t++;
  char why[300];
  if (strcmp(s, "Error") == 0)
    return note(x, "errors", n, error ? json_string_value(error) : "error");
  if (strcmp(s, "Passed") != 0 || mat == NULL) {
    snprintf(why, sizeof why, "nvbandwidth status %s", s);
    return note(x, "skipped", n, why);
  }
  if (t == nt)
    return note(x, "skipped", n, "no gcbench counterpart, so not converted");
  if ((st = matrix(x, mat)) != GCB_OK)
    return st;
  return strcmp(known_tests[t].bench, "pcie") == 0 ? pcie(x, t, n)
                                                   : p2p(x, t, n);
}

/* ranks[] (one per GPU) and the one node, from the device list or, in
 * releases without it, from the widest matrix. */
static enum gcb_status machine(struct nvbw *x, const json_t *tests) {
  const json_t *tc;
  size_t i, n = x->ngpus;
  json_array_foreach(tests, i, tc) {
    const json_t *row =
        json_array_get(json_object_get(tc, "bandwidth_matrix"), 0);
    n = json_array_size(row) > n ? json_array_size(row) : n;
  }
  n = n > MAX_GPUS ? MAX_GPUS : n;
  const char *host =
      x->ngpus > 0 && x->gpus[0].host[0] ? x->gpus[0].host : "unknown";
  json_t *members = json_array();
  for (size_t g = 0; g < n && members != NULL; g++) {
    const struct gpu *d = g < x->ngpus ? &x->gpus[g] : NULL;
    json_array_append_new(members, json_integer((json_int_t)g));
    json_array_append_new(json_object_get(x->doc, "ranks"),
                          gcb__conv_rank((long long)g, 0, host, (long long)g, 0,
                                         d ? d->name : "unknown GPU",
                                         d ? d->bus : "", (long long)g));
  }
  json_t *run = json_object_get(x->doc, "run");
  json_object_set_new(run, "ranks", json_integer((json_int_t)n));
  json_object_set_new(run, "nodes", json_integer(1));
  if (json_array_append_new(json_object_get(x->doc, "nodes"),
                            gcb__conv_node(0, host, members)) != 0)
    return gcb_err_set(x->cv->err, GCB_ENOMEM, "out of memory");
  return GCB_OK;
}

static enum gcb_status header(struct nvbw *x, const json_t *nv) {
  struct gcb__conv *cv = x->cv;
  const json_t *version, *driver, *cuda, *list, *error;
  enum gcb_status st;
  if ((st = gcb__conv_get(cv, nv, "version", GCB__J_STR, false, &version)) ||
      (st = gcb__conv_get(cv, nv, "Driver Version", GCB__J_STR, false,
                          &driver)) ||
      (st = gcb__conv_get(cv, nv, "CUDA Runtime Version", GCB__J_NUM, false,
                          &cuda)) ||
      (st = gcb__conv_get(cv, nv, "GPU Device list", GCB__J_ARR, false,
                          &list)) ||
      (st = gcb__conv_get(cv, nv, "error", GCB__J_STR, false, &error)))
    return st;
  gcb__conv_enter(cv, "GPU Device list", 0);
  st = device_list(x, list);
  gcb__conv_leave(cv);
  char reason[600];
  snprintf(reason, sizeof reason, "converted from nvbandwidth JSON (%s)",
           cv->name);
  x->doc = st == GCB_OK
               ? gcb__conv_doc(gcb__conv_base_name(cv->name), "nvbandwidth",
                               version ? json_string_value(version) : "", NULL,
                               "", "", reason, 0, 1)
               : NULL;
  if (st == GCB_OK && x->doc == NULL)
    return gcb_err_set(cv->err, GCB_ENOMEM, "out of memory");
  json_t *sw = json_object_get(x->doc, "software");
  if (driver != NULL)
    json_object_set(sw, "cuda_driver", (json_t *)driver);
  if (cuda != NULL) {
    char v[32];
    long long c = (long long)json_number_value(cuda);
    snprintf(v, sizeof v, "%lld.%lld", c / 1000, c % 1000 / 10);
    json_object_set_new(sw, "cuda", json_string(v));
  }
  if (st == GCB_OK && error != NULL)
    st = note(x, "errors", "nvbandwidth", json_string_value(error));
  return st;
}

enum gcb_status gcb__nvbandwidth_convert(struct gcb__conv *cv,
                                         const json_t *root, json_t **doc) {
  struct nvbw *x = calloc(1, sizeof *x);
  const json_t *nv = json_object_get(root, "nvbandwidth"), *tests, *tc;
  size_t i;
  *doc = NULL;
  if (x == NULL)
    return gcb_err_set(cv->err, GCB_ENOMEM, "out of memory");
  x->cv = cv;
  gcb__conv_enter(cv, "nvbandwidth", 0);
  enum gcb_status st =
      gcb__conv_get(cv, nv, "testcases", GCB__J_ARR, false, &tests);
  if (st == GCB_OK)
    st = header(x, nv);
  if (st == GCB_OK)
    st = machine(x, tests);
  gcb__conv_enter(cv, "testcases", 0);
  json_array_foreach(tests, i, tc) {
    if (st != GCB_OK)
      break;
    gcb__conv_enter(cv, NULL, i);
    st = testcase(x, tc);
    gcb__conv_leave(cv);
  }
  gcb__conv_leave(cv);
  gcb__conv_leave(cv);
  if (st == GCB_OK)
    *doc = x->doc;
  else
    json_decref(x->doc);
  free(x);
  return st;
}
