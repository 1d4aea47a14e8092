/*
 * nvbandwidth's JSON output (`nvbandwidth -j`; the writer is
 * json_output.cpp, jsoncpp's styled output on stdout, with WARNING and
 * NOTE lines printed around it that the table's sniffing steps over) as a
 * typed model. The file is {"nvbandwidth": {...}} with version,
 * git_version, "CUDA Runtime Version", "Driver Version", "GPU Device list"
 * (strings "0: NVIDIA H200 (00000000:19:00): (host)", in newer releases),
 * optional error and warning, and testcases[]: name, status ("Passed",
 * "Waived", "Error", ...), bandwidth_description, bandwidth_matrix (rows
 * of strings, each a number or "N/A"), sum, and with -v min, max,
 * average. What each testcase becomes: interop_nvbw.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/interop/interop_nvbw.h"

static int detect(const struct gcb__sniff *s, char *why, size_t size) {
  if (json_is_object(json_object_get(s->root, "nvbandwidth")))
    return 80;
  /* A -j output that does not parse (cut short): still this format, so
   * that the parser's location is what the message says. */
  if (s->root == NULL && s->json_len > 0 &&
      gcb__text_has(s->text + s->json_at, s->json_len, "\"nvbandwidth\"", 256))
    return 30;
  snprintf(why, size, "no \"nvbandwidth\" object");
  return 0;
}

static enum gcb_status device_list(struct gcb__nvbw *x, const json_t *list) {
  const json_t *e;
  size_t i;
  json_array_foreach(list, i, e) {
    if (i >= GCB__NVBW_MAX_GPUS)
      break;
    gcb__conv_enter(x->cv, NULL, i);
    enum gcb_status st =
        json_is_string(e) ? GCB_OK : gcb__conv_bad(x->cv, "expected a string");
    gcb__conv_leave(x->cv);
    if (st != GCB_OK)
      return st;
    if (!gcb__nvbw_parse_device(json_string_value(e), true, &x->gpu[i]))
      snprintf(x->gpu[i].name, sizeof x->gpu[i].name, "GPU %zu", i);
    x->ngpus = i + 1;
  }
  return GCB_OK;
}

/* One row of bandwidth_matrix at the current path into x->m. */
static enum gcb_status matrix_row(struct gcb__nvbw *x, const json_t *row) {
  double v[GCB__NVBW_MAX_GPUS];
  const json_t *cell;
  size_t c;
  if (!json_is_array(row) || json_array_size(row) > GCB__NVBW_MAX_GPUS)
    return gcb__conv_bad(x->cv, "expected an array of at most %d values",
                         GCB__NVBW_MAX_GPUS);
  json_array_foreach(row, c, cell) {
    v[c] = gcb__conv_number(cell);
    const char *s = json_string_value(cell);
    if (isnan(v[c]) && !(s != NULL && strcmp(s, "N/A") == 0)) {
      gcb__conv_enter(x->cv, NULL, c);
      enum gcb_status st = gcb__conv_bad(x->cv, "expected a number or \"N/A\"");
      gcb__conv_leave(x->cv);
      return st;
    }
  }
  char why[128];
  if (gcb__nvbw_value_bad(v, json_array_size(row), 0, why, sizeof why))
    return gcb__conv_bad(x->cv, "%s", why);
  const char *bad = gcb__nvbw_matrix_row(x, v, json_array_size(row));
  return bad ? gcb__conv_bad(x->cv, "%s", bad) : GCB_OK;
}

/* bandwidth_matrix into x->m, which starts empty for every testcase. */
static enum gcb_status matrix(struct gcb__nvbw *x, const json_t *mat,
                              const char *desc) {
  const json_t *row;
  size_t r;
  enum gcb_status st = GCB_OK;
  gcb__nvbw_matrix_start(x, desc);
  gcb__conv_enter(x->cv, "bandwidth_matrix", 0);
  json_array_foreach(mat, r, row) {
    gcb__conv_enter(x->cv, NULL, r);
    st = matrix_row(x, row);
    gcb__conv_leave(x->cv);
    if (st != GCB_OK)
      break;
  }
  gcb__conv_leave(x->cv);
  return st;
}

static enum gcb_status testcase(struct gcb__nvbw *x, const json_t *tc) {
  const json_t *name, *status, *mat, *error, *desc, *sum;
  struct gcb__conv *cv = x->cv;
  enum gcb_status st;
  if (!json_is_object(tc))
    return gcb__conv_bad(cv, "expected an object");
  if ((st = gcb__conv_get(cv, tc, "name", GCB__J_STR, true, &name)) ||
      (st = gcb__conv_get(cv, tc, "status", GCB__J_STR, true, &status)) ||
      (st = gcb__conv_get(cv, tc, "bandwidth_matrix", GCB__J_ARR, false,
                          &mat)) ||
      (st = gcb__conv_get(cv, tc, "bandwidth_description", GCB__J_STR, false,
                          &desc)) ||
      (st = gcb__conv_get(cv, tc, "sum", GCB__J_NUM | GCB__J_STR, false,
                          &sum)) ||
      (st = gcb__conv_get(cv, tc, "error", GCB__J_STR, false, &error)))
    return st;
  const char *n = json_string_value(name), *s = json_string_value(status);
  char why[300];
  if (strcmp(s, "Error") == 0)
    return gcb__conv_error(cv, "nvbandwidth", n, "ECUDA",
                           error ? json_string_value(error) : "error");
  if (strcmp(s, "Passed") != 0 || mat == NULL) {
    snprintf(why, sizeof why, "nvbandwidth status %s", s);
    return gcb__conv_skip(cv, "nvbandwidth", n, why, 0);
  }
  if ((st = matrix(x, mat, json_string_value(desc))) != GCB_OK ||
      (st = gcb__nvbw_emit(x, n, true, 0, 0)) != GCB_OK)
    return st;
  double total = gcb__conv_number(sum);
  return isnan(total) ? GCB_OK : gcb__nvbw_sum(x, n, total, 0);
}

static enum gcb_status header(struct gcb__nvbw *x, const json_t *nv) {
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
  if (st != GCB_OK)
    return st;
  gcb__nvbw_begin(x, cv, version ? json_string_value(version) : "");
  if (driver != NULL)
    gcb__conv_software(cv, "cuda_driver", json_string_value(driver));
  if (cuda != NULL)
    gcb__nvbw_cuda(x, gcb__conv_ll(json_number_value(cuda), 0));
  if (error != NULL)
    st = gcb__conv_error(cv, "nvbandwidth", "nvbandwidth", "ECUDA",
                         json_string_value(error));
  return st;
}

static enum gcb_status convert(struct gcb__conv *cv, const json_t *root) {
  struct gcb__nvbw *x = calloc(1, sizeof *x);
  const json_t *nv = json_object_get(root, "nvbandwidth"), *tests, *tc;
  size_t i;
  if (x == NULL)
    return gcb__conv_nomem(cv);
  x->cv = cv;
  gcb__conv_enter(cv, "nvbandwidth", 0);
  enum gcb_status st =
      gcb__conv_get(cv, nv, "testcases", GCB__J_ARR, false, &tests);
  if (st == GCB_OK)
    st = header(x, nv);
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
  return gcb__nvbw_end(x, st);
}

const struct gcb__converter gcb__row_nvbw_json = {
    "nvbandwidth JSON", GCB_FORMAT_NVBANDWIDTH, true, detect, convert};
