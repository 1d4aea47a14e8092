/*
 * A saved topology's XML, read once and checked before hwloc sees it:
 * whole (regular file, pipe or FIFO alike, so `<(ssh node lstopo -.xml)`
 * works), within a size cap and a deadline for a silent pipe (devices are
 * refused by gcb_file_read), in an XML format this hwloc reads, and with
 * elements nested no deeper than a real machine's. hwloc's own XML parser
 * recurses once per nested element, so 20,000 nested <object>s overflow
 * its stack; the depth is counted here, without recursion, first. And
 * hwloc 2.9 dereferences a NULL set when an object has a cpuset without
 * its complete_cpuset (or a nodeset without its complete_nodeset): such
 * objects are refused here too (found by fuzz_topo).
 */
#include <expat.h>
#include <hwloc.h>
#include <limits.h>
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

/* The markup constructs of a text in order, with the line each starts on:
 * the depth and the paired-set checks walk the same way. */
struct tag_walk {
  const char *p, *end;
  int line;
};

/* The next construct [*lt, *next) and its line *at; false at the end. */
static bool tag_next(struct tag_walk *w, const char **lt, const char **next,
                     int *at) {
  const char *open = memchr(w->p, '<', (size_t)(w->end - w->p));
  for (; w->p < (open ? open : w->end); w->p++)
    w->line += *w->p == '\n';
  if (open == NULL)
    return false;
  *at = w->line;
  *lt = open;
  *next = w->p = skip_markup(open, w->end, &w->line);
  return true;
}

int gcb__topo_xml_depth(const char *xml, size_t len, int max, int *line) {
  struct tag_walk w = {xml, xml + len, 1};
  const char *lt, *next;
  int depth = 0, deepest = 0, at;
  while (tag_next(&w, &lt, &next, &at)) {
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
  }
  *line = w.line;
  return deepest;
}

/* Whether the tag [tag, end) has the attribute name (name=" after a space). */
static bool has_attr(const char *tag, const char *end, const char *name) {
  size_t n = strlen(name);
  for (const char *p = tag; p + n + 2 < end; p++)
    if ((p[0] == ' ' || p[0] == '\t' || p[0] == '\n' || p[0] == '\r') &&
        strncmp(p + 1, name, n) == 0 && p[1 + n] == '=')
      return true;
  return false;
}

int gcb__topo_xml_unpaired_set(const char *xml, size_t len, int *line) {
  static const char *const pairs[][2] = {{"cpuset", "complete_cpuset"},
                                         {"nodeset", "complete_nodeset"}};
  struct tag_walk w = {xml, xml + len, 1};
  const char *lt, *next;
  int at;
  while (tag_next(&w, &lt, &next, &at))
    for (size_t i = 0; strncmp(lt, "<object", 7) == 0 && i < 2; i++)
      if (has_attr(lt, next, pairs[i][0]) != has_attr(lt, next, pairs[i][1])) {
        *line = at;
        return (int)i + 1;
      }
  *line = w.line;
  return 0;
}

/* Well-formed XML, checked by expat before hwloc's own minimal parser sees
 * it: hwloc 2.9 dereferences NULL on some malformed text (21 bytes,
 * `<topologyversion="2.0`, found by fuzz_topo, end it with SIGSEGV).
 * expat fetches no external DTD and caps entity expansion. */
static enum gcb_status check_well_formed(const char *path, const char *xml,
                                         size_t len, struct gcb_err *err) {
  XML_Parser parser = XML_ParserCreate(NULL);
  if (parser == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", path);
  enum gcb_status st = GCB_OK;
  if (len > INT_MAX || XML_Parse(parser, xml, (int)len, 1) != XML_STATUS_OK)
    st = gcb_err_set(err, GCB_EINPUT,
                     "%s:%lu: not a valid hwloc XML topology (not well-formed "
                     "XML: %s)",
                     path, (unsigned long)XML_GetCurrentLineNumber(parser),
                     XML_ErrorString(XML_GetErrorCode(parser)));
  XML_ParserFree(parser);
  return st;
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
  if (st == GCB_OK)
    st = check_well_formed(path, *xml, *len, err);
  if (st == GCB_OK &&
      (depth = gcb__topo_xml_depth(*xml, *len, GCB_TOPO_XML_MAX_DEPTH, &line)) >
          GCB_TOPO_XML_MAX_DEPTH)
    st = gcb_err_set(err, GCB_EINPUT,
                     "%s:%d: elements nested more than %d deep: not a "
                     "machine's topology",
                     path, line, GCB_TOPO_XML_MAX_DEPTH);
  int unpaired =
      st == GCB_OK ? gcb__topo_xml_unpaired_set(*xml, *len, &line) : 0;
  if (unpaired != 0)
    st = gcb_err_set(err, GCB_EINPUT,
                     "%s:%d: an object with a %s but no complete_%s, or the "
                     "other way round: not a valid hwloc XML topology (hwloc "
                     "%d.x would crash on it)",
                     path, line, unpaired == 1 ? "cpuset" : "nodeset",
                     unpaired == 1 ? "cpuset" : "nodeset",
                     HWLOC_API_VERSION >> 16);
  if (st != GCB_OK) {
    free(*xml);
    *xml = NULL;
    *len = 0;
  }
  return st;
}
