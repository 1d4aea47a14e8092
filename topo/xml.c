/*
 * A saved topology's XML, read once and checked before hwloc sees it:
 * whole (regular file, pipe or FIFO alike, so `<(ssh node lstopo -.xml)`
 * works), within a size cap and a deadline for a silent pipe (devices are
 * refused by gcb_file_read), in an XML format this hwloc reads, and with
 * elements nested no deeper than a real machine's. hwloc's own XML parser
 * recurses once per nested element, so 20,000 nested <object>s overflow
 * its stack; the depth is counted here, without recursion, first.
 */
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "topo/topo_int.h"

/* Past the end of the construct that starts at p ("<!--" ... "-->", or a
 * tag up to its '>' outside quoted attribute values); counts newlines. */
static const char *skip_markup(const char *p, const char *end, int *line) {
  const char *close = strncmp(p, "<!--", 4) == 0 ? "-->" : ">";
  size_t n = strlen(close);
  char quote = 0;
  for (; p < end; p++) {
    *line += *p == '\n';
    if (close[0] == '>' && (*p == '"' || *p == '\'') && quote == 0)
      quote = *p;
    else if (quote != 0 && *p == quote)
      quote = 0;
    else if (quote == 0 && (size_t)(end - p) >= n && strncmp(p, close, n) == 0)
      return p + n;
  }
  return end;
}

int gcb__topo_xml_depth(const char *xml, size_t len, int max, int *line) {
  const char *p = xml, *end = xml + len;
  int depth = 0, deepest = 0;
  *line = 1;
  while (p < end) {
    const char *lt = memchr(p, '<', (size_t)(end - p));
    for (; p < (lt ? lt : end); p++)
      *line += *p == '\n';
    if (lt == NULL)
      break;
    int at = *line;
    const char *next = skip_markup(lt, end, line);
    bool closing = lt[1] == '/', special = lt[1] == '?' || lt[1] == '!';
    bool empty = next - lt >= 2 && next[-1] == '>' && next[-2] == '/';
    if (closing && depth > 0)
      depth--;
    else if (!closing && !special && !empty && ++depth > deepest) {
      deepest = depth;
      if (deepest > max) {
        *line = at;
        return deepest;
      }
    }
    p = next;
  }
  return deepest;
}

/* <topology version="3.0">: hwloc 2.x rejects format 3 without a word. */
static enum gcb_status check_version(const char *path, const char *xml,
                                     struct gcb_err *err) {
  const char *v = strstr(xml, "<topology version=\"");
  if (v && v[19] >= '3' && v[19] <= '9')
    return gcb_err_set(err, GCB_EINPUT,
                       "%s: hwloc XML format %c.x (hwloc 3) cannot be read by "
                       "hwloc %d.x; export it again with hwloc 2 (lstopo "
                       "file.xml)",
                       path, v[19], HWLOC_API_VERSION >> 16);
  return GCB_OK;
}

enum gcb_status gcb__topo_xml_read(const char *path, char **xml, size_t *len,
                                   struct gcb_err *err) {
  enum gcb_status st = gcb_file_read_wait(path, GCB_TOPO_XML_MAX_BYTES,
                                          GCB_TOPO_XML_WAIT_MS, xml, len, err);
  int line = 0, depth = 0;
  if (st == GCB_OK && *len == 0)
    st = gcb_err_set(err, GCB_EINPUT,
                     "%s: not a valid hwloc XML topology (empty)", path);
  else if (st == GCB_OK && strlen(*xml) != *len)
    st = gcb_err_set(err, GCB_EINPUT,
                     "%s: not a valid hwloc XML topology (a NUL byte at "
                     "offset %zu)",
                     path, strlen(*xml));
  else if (st == GCB_OK)
    st = check_version(path, *xml, err);
  if (st == GCB_OK &&
      (depth = gcb__topo_xml_depth(*xml, *len, GCB_TOPO_XML_MAX_DEPTH, &line)) >
          GCB_TOPO_XML_MAX_DEPTH)
    st = gcb_err_set(err, GCB_EINPUT,
                     "%s:%d: elements nested more than %d deep: not a "
                     "machine's topology",
                     path, line, GCB_TOPO_XML_MAX_DEPTH);
  if (st != GCB_OK) {
    free(*xml);
    *xml = NULL;
    *len = 0;
  }
  return st;
}
