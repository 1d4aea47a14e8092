/*
 * Accessors over a validated results document. The reader has already
 * checked every required field, so these only have to supply fallbacks for
 * optional ones (nodes, ranks, devices, fields added by later writers).
 */
#include "reports/document/view.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/fmtnum.h"

const char *gcb_view_str(const json_t *obj, const char *key) {
  const char *s = json_string_value(json_object_get(obj, key));
  return s != NULL ? s : "";
}

double gcb_view_num(const json_t *obj, const char *key) {
  const json_t *v = json_object_get(obj, key);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

long long gcb_view_int(const json_t *obj, const char *key, long long def) {
  const json_t *v = json_object_get(obj, key);
  return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

const json_t *gcb_view_obj(const json_t *obj, const char *key) {
  const json_t *v = json_object_get(obj, key);
  return json_is_object(v) ? v : NULL;
}

bool gcb_view_status_failed(const char *status) {
  return strcmp(status, "complete") != 0 && strcmp(status, "unknown") != 0;
}

/* Entry of array `section` whose `field` equals `want` (the first, when
 * two have it): ranks and nodes are written in order, and a document read
 * back is kept in that order (gcb__ranks_order_document), so index `want`
 * is tried first, then a binary search (entries without the field last). */
static long long key_at(const json_t *arr, const char *field, size_t i) {
  long long v = gcb_view_int(json_array_get(arr, i), field, -1);
  return v >= 0 ? v : LLONG_MAX;
}

static const json_t *find_indexed(const json_t *root, const char *section,
                                  const char *field, long long want) {
  const json_t *arr = json_object_get(root, section);
  if (!json_is_array(arr) || want < 0)
    return NULL;
  const json_t *e = json_array_get(arr, (size_t)want);
  if (e != NULL && gcb_view_int(e, field, -1) == want &&
      (want == 0 || key_at(arr, field, (size_t)want - 1) < want))
    return e;
  size_t lo = 0, hi = json_array_size(arr);
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (key_at(arr, field, mid) < want)
      lo = mid + 1;
    else
      hi = mid;
  }
  e = json_array_get(arr, lo);
  return e != NULL && gcb_view_int(e, field, -1) == want ? e : NULL;
}

const json_t *gcb_view_rank(const json_t *root, long long rank) {
  return find_indexed(root, "ranks", "rank", rank);
}

const json_t *gcb_view_node(const json_t *root, long long index) {
  return find_indexed(root, "nodes", "index", index);
}

void gcb_view_place(const json_t *root, long long rank, struct gcb_place *out) {
  const json_t *r = gcb_view_rank(root, rank);
  const json_t *dev = gcb_view_obj(r, "device");
  *out = (struct gcb_place){.node = gcb_view_int(r, "node", -1),
                            .hostname = gcb_view_str(r, "hostname"),
                            .gpu = gcb_view_int(dev, "index", -1),
                            .bus_id = gcb_view_str(dev, "bus_id"),
                            .numa = gcb_view_int(r, "numa", -1)};
  /* Later documents may record the GPU's NUMA node with the device. */
  if (out->numa < 0)
    out->numa = gcb_view_int(dev, "numa_node", -1);
}

size_t gcb_view_copy(char *dst, size_t size, const char *src) {
  if (size == 0)
    return 0;
  size_t n = strlen(src);
  if (n >= size) {
    n = size - 1;
    /* Step back over continuation bytes so no character is cut in half. */
    while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
      n--;
  }
  memcpy(dst, src, n);
  dst[n] = '\0';
  return n;
}

/* Appends to buf[*used..size) with printf semantics, never overflowing;
 * callers cut a truncated result at a character boundary (trim_partial). */
static void append(char *buf, size_t size, size_t *used, const char *fmt,
                   const char *a, const char *b) {
  if (*used + 1 >= size)
    return;
  int n = snprintf(buf + *used, size - *used, fmt, a, b);
  *used += n > 0 ? (size_t)n : 0;
}

/* Removes an incomplete UTF-8 sequence left at the end by truncation. */
static void trim_partial(char *s) {
  size_t n = strlen(s), p = n;
  while (p > 0 && n - p < 4 && ((unsigned char)s[p - 1] & 0xC0) == 0x80)
    p--;
  if (p == 0)
    return;
  unsigned char lead = (unsigned char)s[p - 1];
  size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (n - (p - 1) < want)
    s[p - 1] = '\0';
}

static int cmp_param(const void *a, const void *b) {
  return strcmp(((const struct gcb__key_param *)a)->key,
                ((const struct gcb__key_param *)b)->key);
}

static void scalar_text(const json_t *v, char *buf, size_t size) {
  if (json_is_number(v))
    snprintf(buf, size, "%.17g", json_number_value(v));
  else
    gcb_view_copy(buf, size, json_is_string(v) ? json_string_value(v) : "?");
}

static bool skipped(const char *key, const char *const *skip) {
  for (; skip != NULL && *skip != NULL; skip++)
    if (strcmp(*skip, key) == 0)
      return true;
  return false;
}

void gcb_view_case_key(const json_t *c, char *buf, size_t size) {
  gcb_view_case_key_except(c, NULL, buf, size);
}

double gcb_view_param_num(const json_t *c, const char *key) {
  const json_t *v = json_object_get(json_object_get(c, "params"), key);
  const char *s = json_string_value(v);
  if (json_is_number(v))
    return json_number_value(v);
  char *end;
  double x = s != NULL && s[0] != '\0' ? strtod(s, &end) : NAN;
  return s != NULL && s[0] != '\0' && *end == '\0' ? x : NAN;
}

const char *gcb_view_param_str(const json_t *c, const char *key) {
  return gcb_view_str(json_object_get(c, "params"), key);
}

void gcb__view_key(const char *bench, const char *unit,
                   struct gcb__key_param *p, size_t n, char *buf, size_t size) {
  size_t used = 0;
  if (size == 0)
    return;
  qsort(p, n, sizeof *p, cmp_param);
  buf[0] = '\0';
  append(buf, size, &used, "%s%s", bench, "");
  for (size_t i = 0; i < n; i++)
    append(buf, size, &used, " %s=%s", p[i].key, p[i].val);
  append(buf, size, &used, " [%s]%s", unit, "");
  trim_partial(buf);
}

void gcb__view_trim_partial(char *s) {
  trim_partial(s);
}

void gcb_view_case_key_except(const json_t *c, const char *const *skip,
                              char *buf, size_t size) {
  struct gcb__key_param p[GCB__KEY_PARAMS];
  size_t n = 0;
  const char *k;
  const json_t *v;
  json_object_foreach(json_object_get(c, "params"), k, v) {
    if (n < GCB__KEY_PARAMS && !skipped(k, skip)) {
      p[n].key = k;
      scalar_text(v, p[n].val, sizeof p[n].val);
      n++;
    }
  }
  gcb__view_key(gcb_view_str(c, "bench"), gcb_view_str(c, "unit"), p, n, buf,
                size);
}

void gcb_view_sweep_key(const json_t *c, char *buf, size_t size) {
  static const char *const varied[] = {"size", "bytes", "count", "inplace",
                                       NULL};
  char key[GCB_VIEW_SWEEP_KEY];
  if (size == 0)
    return;
  gcb_view_case_key_except(c, varied, key, sizeof key);
  snprintf(buf, size, "%s %s", key, gcb_view_str(c, "backend"));
  trim_partial(buf);
}

void gcb_view_case_title(const json_t *c, char *buf, size_t size) {
  if (size == 0)
    return;
  snprintf(buf, size, "%s: %s", gcb_view_str(c, "bench"),
           gcb_view_str(c, "label"));
  trim_partial(buf);
}

/* text[0..n) into buf as snprintf(buf, size, "%s", text) would leave it:
 * cut at size - 1 bytes (the texts here are ASCII). */
static void put_text(char *buf, size_t size, const char *text, size_t n) {
  if (size == 0)
    return;
  n = n < size ? n : size - 1;
  memcpy(buf, text, n);
  buf[n] = '\0';
}

/* printf's "%.0f" for |x| >= 1000 or x == 0, from nearbyint (which rounds
 * as printf does, to nearest and ties to even) where the integer fits;
 * 0 when it does not (the caller prints it). */
static size_t whole_text(double x, char *out) {
  if (x == 0) {
    memcpy(out, signbit(x) ? "-0" : "0", signbit(x) ? 3 : 2);
    return signbit(x) ? 2 : 1;
  }
  if (!(fabs(x) < 0x1p62))
    return 0;
  return gcb_fmtnum_ll(out, (long long)nearbyint(x));
}

/* The figures of a report at 16,384 ranks are formatted by the hundred
 * thousand: printf's text without printf (gcb_fmtnum), the same bytes. */
void gcb_view_fmt(double x, char *buf, size_t size) {
  char text[GCB_FMTNUM_MAX];
  double a = fabs(x);
  size_t n;
  if (isnan(x)) {
    put_text(buf, size, "-", 1);
    return;
  }
  if (a >= 1000 || a == 0) {
    if ((n = whole_text(x, text)) == 0) {
      snprintf(buf, size, "%.0f", x);
      return;
    }
  } else {
    n = gcb_fmtnum_g(text, x, a >= 1 ? 4 : 3);
  }
  put_text(buf, size, text, n);
}

void gcb_view_fmt_time(double seconds, char *buf, size_t size) {
  static const struct {
    double scale;
    const char *unit;
  } units[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
  size_t i = 0;
  while (i + 1 < sizeof units / sizeof *units && fabs(seconds) < units[i].scale)
    i++;
  if (isnan(seconds)) {
    put_text(buf, size, "-", 1);
    return;
  }
  /* "%.4g %s" */
  char text[GCB_FMTNUM_MAX + 4];
  size_t n = gcb_fmtnum_g(text, seconds / units[i].scale, 4);
  text[n++] = ' ';
  size_t u = strlen(units[i].unit);
  memcpy(text + n, units[i].unit, u);
  put_text(buf, size, text, n + u);
}

void gcb_view_ranges(const long long *v, size_t n, char *buf, size_t size) {
  size_t used = 0;
  if (size == 0)
    return;
  buf[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    size_t j = i;
    while (j + 1 < n && v[j + 1] == v[j] + 1)
      j++;
    char item[48];
    if (j > i)
      snprintf(item, sizeof item, "%s%lld-%lld", i ? "," : "", v[i], v[j]);
    else
      snprintf(item, sizeof item, "%s%lld", i ? "," : "", v[i]);
    if (used + strlen(item) + 4 >= size) {
      snprintf(buf + used, size - used, "%s", size - used > 3 ? "..." : "");
      return;
    }
    used += (size_t)snprintf(buf + used, size - used, "%s", item);
    i = j;
  }
}
