/*
 * Accessors over a validated results document. The reader has already
 * checked every required field, so these only have to supply fallbacks for
 * optional ones (nodes, ranks, devices, fields added by later writers).
 */
#include "reports/document/view.h"

#include <float.h>
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

void gcb__view_trim_partial(char *s) {
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
 * thousand: printf's text without printf (fmtnum.h), the same bytes. */
void gcb_view_fmt(double x, char *buf, size_t size) {
  char text[GCB_FMTNUM_MAX];
  double a = fabs(x);
  if (isnan(x)) {
    gcb_view_copy(buf, size, "-");
    return;
  }
  if (a >= 1e15 && a <= DBL_MAX) { /* more digits than were measured */
    gcb_fmtnum_g(text, x, 4);
  } else if (a >= 1000 || a == 0) {
    if (whole_text(x, text) == 0) {
      snprintf(buf, size, "%.0f", x);
      return;
    }
  } else {
    gcb_fmtnum_g(text, x, a >= 1 ? 4 : 3);
  }
  gcb_view_copy(buf, size, text);
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
    gcb_view_copy(buf, size, "-");
    return;
  }
  /* "%.4g %s" */
  char text[GCB_FMTNUM_MAX + 4];
  size_t n = gcb_fmtnum_g(text, seconds / units[i].scale, 4);
  text[n++] = ' ';
  memcpy(text + n, units[i].unit, strlen(units[i].unit) + 1);
  gcb_view_copy(buf, size, text);
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
    /* this range, and room left to count the rest after it */
    char item[48], more[48] = "";
    if (j > i)
      snprintf(item, sizeof item, "%s%lld-%lld", i ? "," : "", v[i], v[j]);
    else
      snprintf(item, sizeof item, "%s%lld", i ? "," : "", v[i]);
    if (j + 1 < n)
      snprintf(more, sizeof more, ",... (+%zu more)", n - j - 1);
    if (used + strlen(item) + strlen(more) >= size) {
      snprintf(buf + used, size - used, "%s... (+%zu more)", i ? "," : "",
               n - i);
      return;
    }
    used += (size_t)snprintf(buf + used, size - used, "%s", item);
    i = j;
  }
}
