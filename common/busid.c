/*
 * PCI bus ids (busid.h): one left-to-right scan of fixed-width hex fields,
 * the form told by how many colons the text has.
 */
#include "common/busid.h"

#include <stdio.h>
#include <string.h>

static int hex_digit(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* min..max hex digits then the byte stop; advances *s past both. */
static bool field(const char **s, int min, int max, char stop, uint32_t *v) {
  int n = 0, d;
  *v = 0;
  for (; n < max && (d = hex_digit(**s)) >= 0; (*s)++, n++)
    *v = *v * 16 + (uint32_t)d;
  if (n < min || **s != stop)
    return false;
  if (stop != '\0')
    (*s)++;
  return true;
}

static bool parse(const char *s, struct gcb_busid *out) {
  int colons = 0;
  bool dot = strchr(s, '.') != NULL;
  for (const char *c = s; *c; c++)
    colons += *c == ':';
  uint32_t dom = 0, bus, dev, fn = 0;
  /* two colons: a domain first; one colon: lspci's short form, which
   * needs its function (else "3b:00" could be domain:bus) */
  if (colons == 2 ? !field(&s, 4, 8, ':', &dom) : colons != 1 || !dot)
    return false;
  if (!field(&s, 2, 2, ':', &bus) || !field(&s, 2, 2, dot ? '.' : '\0', &dev))
    return false;
  if (dot && !field(&s, 1, 1, '\0', &fn))
    return false;
  if (dev > 0x1f || fn > 7)
    return false;
  *out = (struct gcb_busid){dom, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn};
  return true;
}

enum gcb_status gcb_busid_parse(const char *text, struct gcb_busid *out,
                                struct gcb_err *err) {
  *out = (struct gcb_busid){0};
  if (text != NULL && parse(text, out))
    return GCB_OK;
  *out = (struct gcb_busid){0};
  return gcb_err_set(err, GCB_EINPUT,
                     "'%s' is not a PCI bus id (expected e.g. 0000:3b:00.0)",
                     text ? text : "");
}

void gcb_busid_format(const struct gcb_busid *id, char *buf, size_t size) {
  snprintf(buf, size, "%04x:%02x:%02x.%x", (unsigned)id->domain,
           (unsigned)id->bus, (unsigned)id->dev, (unsigned)id->func);
}

bool gcb_busid_canon(const char *in, char *out, size_t size) {
  struct gcb_busid id;
  if (size > 0)
    out[0] = '\0';
  if (gcb_busid_parse(in, &id, NULL) != GCB_OK)
    return false;
  gcb_busid_format(&id, out, size);
  return true;
}
