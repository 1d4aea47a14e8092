/*
 * What every renderer shares: the registry, the escapers (the only way
 * input text reaches an output), the verdict and the location text.
 */
#include "reports/render/render.h"
#include "reports/render/render_rows.h"
#include "reports/render/render_svg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const struct gcb_renderer *const gcb_renderers[] = {
    &gcb_render_md,
    &gcb_render_html,
    &gcb_render_topology,
    &gcb_render_netmap,
    &gcb_render_csv,
    &gcb_render_junit,
    &gcb_render_findings,
    &gcb_render_openmetrics,
    &gcb_render_drain,
    &gcb_render_cordon,
    NULL,
};

const struct gcb_renderer *gcb_renderer_find(const char *name) {
  for (size_t i = 0; gcb_renderers[i]; i++)
    if (strcmp(gcb_renderers[i]->name, name) == 0)
      return gcb_renderers[i];
  return NULL;
}

bool gcb_renderer_applies(const struct gcb_renderer *r,
                          const struct gcb_report *rep) {
  return r->applies == NULL || r->applies(rep);
}

/* ---- escaping ----------------------------------------------------------- */

/* What an escaper writes for the character of k bytes at c (k > 0, valid
 * UTF-8); NULL when it goes out as it is. buf has room for 3 bytes. */
typedef const char *escape_fn(const char *c, size_t k, char *buf);

/* Whether an escaper leaves byte b as it is for certain (printable ASCII
 * other than its specials; never NUL): tested inline, so that a run of
 * such bytes, most of any text, costs no call per byte. */
typedef bool plain_fn(unsigned char b);

/* Writes s through esc, runs of text that need nothing in one go; a byte
 * that is not part of a valid UTF-8 character becomes U+FFFD, so that no
 * output carries raw invalid bytes (input text need not be UTF-8: a file
 * name, a label from a foreign tool). Inline, so that each escaper's
 * plain() is compiled into its own copy of the loop. */
static inline void escape_text(struct gcb__rows *out, const char *s,
                               plain_fn *plain, escape_fn *esc) {
  char buf[3];
  const char *run = s;
  for (;;) {
    while (plain((unsigned char)*s))
      s++;
    if (*s == '\0')
      break;
    size_t k = (unsigned char)*s < 0x80 ? 1 : gcb_utf8_length(s);
    const char *with = k == 0 ? "\xEF\xBF\xBD" : esc(s, k, buf);
    if (with == NULL) {
      s += k;
      continue;
    }
    gcb__rows_putn(out, run, (size_t)(s - run));
    gcb__rows_put(out, with);
    s += k ? k : 1;
    run = s;
  }
  gcb__rows_putn(out, run, (size_t)(s - run));
}

static inline bool xml_plain(unsigned char b) {
  return b >= 0x20 && b < 0x80 && b != '&' && b != '<' && b != '>' &&
         b != '"' && b != '\'';
}

static const char *xml_char(const char *c, size_t k, char *buf) {
  static const char *const entity[0x80] = {['&'] = "&amp;",
                                           ['<'] = "&lt;",
                                           ['>'] = "&gt;",
                                           ['"'] = "&quot;",
                                           ['\''] = "&#39;"};
  (void)buf;
  unsigned char b = (unsigned char)c[0];
  if (k == 3 && b == 0xEF && (unsigned char)c[1] == 0xBF &&
      (unsigned char)c[2] >= 0xBE)
    return "?"; /* U+FFFE and U+FFFF are not XML characters either */
  if (k > 1)
    return NULL;
  if (entity[b] != NULL) /* k == 1: b is ASCII (escape_text) */
    return entity[b];
  /* XML 1.0 forbids most C0 controls even as references. */
  return b < 0x20 && b != '\t' && b != '\n' ? "?" : NULL;
}

void gcb__rows_xml(struct gcb__rows *b, const char *s) {
  escape_text(b, s, xml_plain, xml_char);
}

/* Whether s is all valid UTF-8 (what a spreadsheet can open as such). */
static bool all_utf8(const char *s) {
  for (size_t k; *s; s += k)
    if ((k = gcb_utf8_length(s)) == 0)
      return false;
  return true;
}

/* Whether a spreadsheet may read s as a formula: = + - @ first, or after
 * leading blanks (space, TAB, CR, LF, U+3000), which spreadsheets skip, or
 * their fullwidth forms (U+FF1D ＝, U+FF0B ＋, U+FF0D －, U+FF20 ＠), which
 * some fold to ASCII; a leading TAB or CR is guarded whatever follows
 * (OWASP's CSV injection advice). */
static bool csv_formula(const char *s) {
  if (s[0] == '\t' || s[0] == '\r')
    return true;
  for (;;) {
    if (*s == ' ' || *s == '\n')
      s++;
    else if (strncmp(s, "\xe3\x80\x80", 3) == 0)
      s += 3;
    else
      break;
  }
  if (*s != '\0' && strchr("=+-@\t\r", *s) != NULL)
    return true;
  static const char *const fullwidth[] = {"\xef\xbc\x9d", "\xef\xbc\x8b",
                                          "\xef\xbc\x8d", "\xef\xbc\xa0"};
  for (size_t i = 0; i < sizeof fullwidth / sizeof *fullwidth; i++)
    if (strncmp(s, fullwidth[i], 3) == 0)
      return true;
  return false;
}

void gcb__rows_csv(struct gcb__rows *out, const char *s) {
  bool formula = csv_formula(s);
  bool quote = strpbrk(s, ",\"\r\n") != NULL;
  bool utf8 = all_utf8(s);
  if (!formula && !quote && utf8) {
    gcb__rows_put(out, s);
    return;
  }
  if (quote)
    gcb__rows_putn(out, "\"", 1);
  if (formula)
    gcb__rows_putn(out, "'", 1);
  for (size_t k; *s; s += k) {
    k = gcb_utf8_length(s);
    if (k == 0) { /* not UTF-8 (a file name): U+FFFD */
      gcb__rows_putn(out, "\xef\xbf\xbd", 3);
      k = 1;
      continue;
    }
    if (*s == '"')
      gcb__rows_putn(out, "\"", 1);
    gcb__rows_putn(out, s, k);
  }
  if (quote)
    gcb__rows_putn(out, "\"", 1);
}

static inline bool md_plain(unsigned char b) {
  return b >= 0x20 && b < 0x80 && b != '<' && b != '>' && b != '&' &&
         b != '\\' && b != '`' && b != '*' && b != '_' && b != '[' &&
         b != ']' && b != '|' && b != '~';
}

static const char *md_char(const char *c, size_t k, char *buf) {
  static const char *const said[0x80] = {
      ['<'] = "&lt;", ['>'] = "&gt;", ['&'] = "&amp;",
      ['\n'] = " ",   ['\r'] = " ",   ['\t'] = " "};
  unsigned char b = (unsigned char)c[0];
  if (k > 1)
    return NULL;
  if (said[b] != NULL) /* k == 1: b is ASCII (escape_text) */
    return said[b];
  if (b < 0x20)
    return "?";
  if (strchr("\\`*_[]|~", b) == NULL)
    return NULL;
  buf[0] = '\\';
  buf[1] = (char)b;
  buf[2] = '\0';
  return buf;
}

void gcb__rows_md(struct gcb__rows *b, const char *s) {
  escape_text(b, s, md_plain, md_char);
}

/* The stream escapers: the same, through rows of their own. */
static void escape_to(FILE *out, const char *s,
                      void (*escape)(struct gcb__rows *, const char *)) {
  struct gcb__rows rows; /* not zeroed: 16 KiB per call */
  rows.out = out;
  rows.n = 0;
  escape(&rows, s);
  gcb__rows_flush(&rows);
}

void gcb_escape_xml(FILE *out, const char *s) {
  escape_to(out, s, gcb__rows_xml);
}

void gcb_escape_csv(FILE *out, const char *s) {
  escape_to(out, s, gcb__rows_csv);
}

void gcb_escape_md(FILE *out, const char *s) {
  escape_to(out, s, gcb__rows_md);
}

void gcb__xml(FILE *out, const char *before, const char *s, const char *after) {
  fputs(before, out);
  gcb_escape_xml(out, s);
  fputs(after, out);
}

void gcb__md(FILE *out, const char *before, const char *s, const char *after) {
  fputs(before, out);
  gcb_escape_md(out, s);
  fputs(after, out);
}

/* ---- shared content ----------------------------------------------------- */

enum gcb_status gcb_report_diagnosis_use(const struct gcb_report *rep,
                                         struct gcb_diagnosis *own,
                                         const struct gcb_diagnosis **out,
                                         struct gcb_err *err) {
  *out = rep->diagnosis;
  if (*out != NULL)
    return GCB_OK;
  struct gcb_thresholds def;
  gcb_thresholds_default(&def);
  enum gcb_status st =
      gcb_diagnose(rep->docs, rep->ndocs, rep->findings,
                   rep->thresholds ? rep->thresholds : &def, own, err);
  *out = st == GCB_OK ? own : NULL;
  return st;
}

bool gcb_report_failed(const struct gcb_report *rep) {
  struct gcb_diagnosis own = {0};
  const struct gcb_diagnosis *d;
  struct gcb_err err = {0};
  bool failed = gcb_report_diagnosis_use(rep, &own, &d, &err) == GCB_OK
                    ? gcb_diagnosis_failed(d)
                    : gcb_findings_count(rep->findings, GCB_SEV_FAIL) > 0;
  gcb_diagnosis_free(&own);
  return failed;
}

/* The verdict line of a diagnosis (gcb_report_verdict's). */
static void diagnosis_verdict(const struct gcb_diagnosis *d, char *buf,
                              size_t size) {
  char scope[192];
  gcb_diagnosis_scope(d, scope, sizeof scope);
  int n = snprintf(buf, size, "%s  %s: %zu fail, %zu warn",
                   gcb_diagnosis_failed(d) ? "FAIL" : "PASS", scope,
                   gcb_diagnosis_count(d, GCB_SEV_FAIL),
                   gcb_diagnosis_count(d, GCB_SEV_WARN));
  size_t info = gcb_diagnosis_count(d, GCB_SEV_INFO);
  size_t cleared = gcb_diagnosis_cleared(d);
  if (n > 0 && (size_t)n < size && info > 0)
    n += snprintf(buf + n, size - (size_t)n, ", %zu info", info);
  if (n > 0 && (size_t)n < size && cleared > 0)
    snprintf(buf + n, size - (size_t)n, ", %zu cleared", cleared);
}

void gcb_report_verdict(const struct gcb_report *rep, char *buf, size_t size) {
  struct gcb_diagnosis own = {0};
  const struct gcb_diagnosis *d;
  struct gcb_err err = {0};
  if (gcb_report_diagnosis_use(rep, &own, &d, &err) == GCB_OK)
    diagnosis_verdict(d, buf, size);
  else
    snprintf(buf, size, "%s: %zu fail, %zu warn, %zu info finding(s)",
             gcb_findings_count(rep->findings, GCB_SEV_FAIL) ? "FAIL" : "PASS",
             gcb_findings_count(rep->findings, GCB_SEV_FAIL),
             gcb_findings_count(rep->findings, GCB_SEV_WARN),
             gcb_findings_count(rep->findings, GCB_SEV_INFO));
  gcb_diagnosis_free(&own);
}

/* Appends ", " (but first) and the printf text, cut at 223 bytes, while
 * buf has room. */
__attribute__((format(printf, 4, 5))) static void
add(char *buf, size_t size, size_t *used, const char *fmt, ...) {
  char text[304];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (*used + 1 >= size || text[0] == '\0')
    return;
  int n = snprintf(buf + *used, size - *used, "%s%s", *used ? ", " : "", text);
  *used += n > 0 ? (size_t)n : 0;
}

#define TEXT_OF(field) sizeof((struct gcb_location *)0)->field
_Static_assert(TEXT_OF(ranks) + TEXT_OF(hostname) + TEXT_OF(bus_id) +
                       TEXT_OF(link) + 5 * 24 + 48 <=
                   GCB_REPORT_WHERE,
               "a where fits GCB_REPORT_WHERE: 5 numbers, labels, texts");
_Static_assert(TEXT_OF(hostname) + 48 <= 304, "a where's part fits add()");

void gcb_report_where(const struct gcb_report *rep, const struct gcb_finding *f,
                      char *buf, size_t size) {
  const struct gcb_location *w = &f->where;
  size_t used = 0;
  buf[0] = '\0';
  if (rep->ndocs > 1 && w->doc >= 0)
    add(buf, size, &used, "run %d", w->doc + 1);
  if (w->ranks[0] != '\0')
    add(buf, size, &used, "ranks %s", w->ranks);
  else if (w->rank >= 0)
    add(buf, size, &used, "rank %lld", w->rank);
  if (w->node >= 0)
    add(buf, size, &used, "node %lld (%s)", w->node, w->hostname);
  if (w->gpu >= 0 || w->bus_id[0] != '\0')
    add(buf, size, &used, "GPU %lld %s", w->gpu, w->bus_id);
  if (w->link[0] != '\0')
    add(buf, size, &used, "link %s", w->link);
  if (used == 0)
    snprintf(buf, size, "run");
}

void gcb__join(char *buf, size_t size, ...) {
  size_t used = 0;
  va_list ap;
  va_start(ap, size);
  for (const char *s; (s = va_arg(ap, const char *)) != NULL;) {
    size_t n = strlen(s);
    n = n < size - 1 - used ? n : size - 1 - used;
    memcpy(buf + used, s, n);
    used += n;
  }
  va_end(ap);
  buf[used] = '\0';
}

enum gcb_status gcb__render_done(FILE *out, const char *what,
                                 struct gcb_err *err) {
  /* --format FMT -o - writes to standard output, not to the file the
   * renderer is named after; the message says where it failed. */
  if (fflush(out) != 0 || ferror(out))
    return gcb_err_set(err, GCB_EIO, "%s: write failed (%s)",
                       out == stdout ? "standard output" : what,
                       strerror(errno));
  return GCB_OK;
}
