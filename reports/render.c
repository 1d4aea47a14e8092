/*
 * What every renderer shares: the registry, the escapers (the only way
 * input text reaches an output), the verdict and the location text.
 */
#include "render.h"

#include <errno.h>
#include <string.h>

const struct gcb_renderer *const gcb_renderers[] = {
    &gcb_render_md,
    &gcb_render_html,
    &gcb_render_csv,
    &gcb_render_junit,
    &gcb_render_findings,
    &gcb_render_openmetrics,
    NULL,
};

const struct gcb_renderer *gcb_renderer_find(const char *name) {
  for (size_t i = 0; gcb_renderers[i]; i++)
    if (strcmp(gcb_renderers[i]->name, name) == 0)
      return gcb_renderers[i];
  return NULL;
}

/* ---- escaping ----------------------------------------------------------- */

/* True when s holds a byte below 0x20 other than tab and newline. */
static bool has_control(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
      return true;
  return false;
}

void gcb_escape_xml(FILE *out, const char *s) {
  /* Most text needs nothing: write it in one go. */
  if (strpbrk(s, "&<>\"'") == NULL && !has_control(s)) {
    fputs(s, out);
    return;
  }
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    switch (c) {
    case '&':
      fputs("&amp;", out);
      break;
    case '<':
      fputs("&lt;", out);
      break;
    case '>':
      fputs("&gt;", out);
      break;
    case '"':
      fputs("&quot;", out);
      break;
    case '\'':
      fputs("&#39;", out);
      break;
    default:
      /* XML 1.0 forbids most C0 controls even as references. */
      fputc(c < 0x20 && c != '\t' && c != '\n' ? '?' : c, out);
    }
  }
}

void gcb_escape_csv(FILE *out, const char *s) {
  bool formula = strchr("=+-@", s[0]) != NULL && s[0] != '\0';
  bool quote = strpbrk(s, ",\"\r\n") != NULL;
  if (!formula && !quote) {
    fputs(s, out);
    return;
  }
  if (quote)
    fputc('"', out);
  if (formula)
    fputc('\'', out);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', out);
    fputc(*s, out);
  }
  if (quote)
    fputc('"', out);
}

void gcb_escape_md(FILE *out, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '<')
      fputs("&lt;", out);
    else if (c == '>')
      fputs("&gt;", out);
    else if (c == '&')
      fputs("&amp;", out);
    else if (c == '\n' || c == '\r' || c == '\t')
      fputc(' ', out);
    else if (c < 0x20)
      fputc('?', out);
    else if (strchr("\\`*_[]|~", c) != NULL)
      fprintf(out, "\\%c", c);
    else
      fputc(c, out);
  }
}

/* ---- shared content ----------------------------------------------------- */

bool gcb_report_failed(const struct gcb_report *rep) {
  return gcb_findings_count(rep->findings, GCB_SEV_FAIL) > 0;
}

void gcb_report_verdict(const struct gcb_report *rep, char *buf, size_t size) {
  const struct gcb_findings *f = rep->findings;
  snprintf(buf, size, "%s: %zu fail, %zu warn, %zu info finding(s)",
           gcb_report_failed(rep) ? "FAIL" : "PASS",
           gcb_findings_count(f, GCB_SEV_FAIL),
           gcb_findings_count(f, GCB_SEV_WARN),
           gcb_findings_count(f, GCB_SEV_INFO));
}

static void add(char *buf, size_t size, size_t *used, const char *text) {
  if (*used + 1 >= size || text[0] == '\0')
    return;
  int n = snprintf(buf + *used, size - *used, "%s%s", *used ? ", " : "", text);
  *used += n > 0 ? (size_t)n : 0;
}

void gcb_report_where(const struct gcb_report *rep, const struct gcb_finding *f,
                      char *buf, size_t size) {
  const struct gcb_location *w = &f->where;
  char part[224];
  size_t used = 0;
  buf[0] = '\0';
  if (rep->ndocs > 1 && w->doc >= 0) {
    snprintf(part, sizeof part, "run %d", w->doc + 1);
    add(buf, size, &used, part);
  }
  part[0] = '\0';
  if (w->ranks[0] != '\0')
    snprintf(part, sizeof part, "ranks %s", w->ranks);
  else if (w->rank >= 0)
    snprintf(part, sizeof part, "rank %lld", w->rank);
  add(buf, size, &used, part);
  part[0] = '\0';
  if (w->node >= 0)
    snprintf(part, sizeof part, "node %lld (%s)", w->node, w->hostname);
  add(buf, size, &used, part);
  part[0] = '\0';
  if (w->gpu >= 0 || w->bus_id[0] != '\0')
    snprintf(part, sizeof part, "GPU %lld %s", w->gpu, w->bus_id);
  add(buf, size, &used, part);
  if (w->link[0] != '\0') {
    snprintf(part, sizeof part, "link %s", w->link);
    add(buf, size, &used, part);
  }
  if (used == 0)
    snprintf(buf, size, "run");
}

enum gcb_status gcb__render_done(FILE *out, const char *what,
                                 struct gcb_err *err) {
  if (fflush(out) != 0 || ferror(out))
    return gcb_err_set(err, GCB_EIO, "%s: write failed (%s)", what,
                       strerror(errno));
  return GCB_OK;
}
