/*
 * Foreign formats: the converter table, telling what a file is, and
 * reading it. Each row of gcb__converters tests the content (the surest
 * wins) and converts it straight into the typed model (model.h), checking
 * the file as it reads it; a file with no case is refused. A file no row
 * recognises gets one line naming every format tried and what it lacked.
 */
#include "reports/interop/interop.h"

#include <stdio.h>
#include <string.h>

#include "reports/interop/interop_int.h"

#define DETECT_WINDOW ((size_t)64 << 10)
#define WHY_MAX 96

/* The rows, each defined in its format's file (interop_<format>.c):
 * adding a format is that file, its name below and its row. The order
 * breaks ties between equally sure rows. */
extern const struct gcb__converter gcb__row_nccl_json, gcb__row_rccl_jsonl,
    gcb__row_nvbw_json, gcb__row_nccl_log, gcb__row_rccl_log, gcb__row_osu,
    gcb__row_nvbw_text;
static const struct gcb__converter row_gcbench;

const struct gcb__converter *const gcb__converters[] = {
    &row_gcbench,        &gcb__row_nccl_json, &gcb__row_rccl_jsonl,
    &gcb__row_nvbw_json, &gcb__row_nccl_log,  &gcb__row_rccl_log,
    &gcb__row_osu,       &gcb__row_nvbw_text, NULL,
};

const char *gcb_format_name(enum gcb_format f) {
  static const char *const names[] = {"gcbench",    "nccl-tests", "nvbandwidth",
                                      "rccl-tests", "OSU",        "unknown"};
  return (unsigned)f <= GCB_FORMAT_UNKNOWN ? names[f] : "?";
}

/* ---- sniffing ----------------------------------------------------------- */

static int gcbench_detect(const struct gcb__sniff *s, char *why, size_t size) {
  if (gcb__text_has(s->text, s->len, "\"gcbench.results/", DETECT_WINDOW) ||
      (json_is_object(s->root) && json_object_get(s->root, "schema") != NULL))
    return 90;
  if (s->root != NULL)
    snprintf(why, size, "no \"schema\" field");
  else if (s->json_len > 0)
    snprintf(why, size, "not JSON (%d:%d: %s)",
             s->json_error.line + s->json_line0, s->json_error.column,
             s->json_error.text);
  else
    snprintf(why, size, "not JSON");
  return 0;
}

static const struct gcb__converter row_gcbench = {
    "gcbench results", GCB_FORMAT_GCBENCH, true, gcbench_detect, NULL};

/* The JSON part of text: from the first line whose first non-blank byte is
 * '{' to the last line whose last non-blank byte is '}' (nvbandwidth -j
 * prints WARNING lines around its JSON). */
static void json_part(struct gcb__sniff *s) {
  struct gcb__lines r = {.text = s->text, .len = s->len, .raw = true};
  size_t first = s->len, last = 0;
  int line0 = 0;
  while (gcb__lines_next(&r)) {
    const char *a = r.l.at, *b = r.l.at + r.l.len;
    while (a < b && (*a == ' ' || *a == '\t'))
      a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
      b--;
    if (first == s->len && a < b && *a == '{') {
      first = (size_t)(r.l.at - s->text);
      line0 = r.number - 1;
    }
    if (first != s->len && a < b && b[-1] == '}')
      last = (size_t)(b - s->text);
  }
  if (first == s->len || last <= first)
    return;
  s->json_at = first;
  s->json_len = last - first;
  s->json_line0 = line0;
}

static void sniff(struct gcb__sniff *s, const char *text, size_t len) {
  *s = (struct gcb__sniff){.text = text, .len = len};
  json_part(s);
  if (s->json_len == 0 || s->json_len > GCB_INTEROP_MAX_JSON)
    return;
  /* The value ends where its closing brace is, not at the last line that
   * ends with one: DCGM runs nvbandwidth -j and keeps the WARNING lines
   * printed after the JSON, some of which end in '}' ("... {{{}}}}}"). */
  s->root = json_loadb(text + s->json_at, s->json_len,
                       JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK,
                       &s->json_error);
  if (s->root != NULL && s->json_error.position > 0 &&
      (size_t)s->json_error.position <= s->json_len)
    s->json_len = (size_t)s->json_error.position;
}

/* Text that goes to the results reader when no row takes it, so that its
 * own located message stands: empty, binary, or JSON that is not an
 * object (an object without a schema gets the list of formats). */
static bool for_results_reader(const struct gcb__sniff *s) {
  size_t i = 0, n = s->len < DETECT_WINDOW ? s->len : DETECT_WINDOW;
  if (memchr(s->text, '\0', n) != NULL)
    return true;
  while (i < s->len && (s->text[i] == ' ' || s->text[i] == '\t' ||
                        s->text[i] == '\n' || s->text[i] == '\r'))
    i++;
  if (i == s->len || s->text[i] == '[')
    return true;
  return s->text[i] == '{' && !json_is_object(s->root);
}

/* The surest row for s (NULL: none), with every row's reason in why[]. */
static const struct gcb__converter *best_row(const struct gcb__sniff *s,
                                             char (*why)[WHY_MAX]) {
  const struct gcb__converter *best = NULL;
  int top = 0;
  for (size_t i = 0; gcb__converters[i] != NULL; i++) {
    why[i][0] = '\0';
    int score = gcb__converters[i]->detect(s, why[i], WHY_MAX);
    if (score > top) {
      top = score;
      best = gcb__converters[i];
    }
  }
  return best;
}

enum gcb_format gcb_interop_detect(const char *text, size_t len) {
  if (gcb__text_has(text, len, "\"gcbench.results/", DETECT_WINDOW))
    return GCB_FORMAT_GCBENCH;
  struct gcb__sniff s;
  char why[16][WHY_MAX];
  sniff(&s, text, len);
  const struct gcb__converter *row = best_row(&s, why);
  enum gcb_format f = row != NULL              ? row->format
                      : for_results_reader(&s) ? GCB_FORMAT_GCBENCH
                                               : GCB_FORMAT_UNKNOWN;
  json_decref((json_t *)s.root);
  return f;
}

/* ---- reading ------------------------------------------------------------ */

/* "FILE: not a format gcbench reads (tried: ROW: WHY; ...)". */
static enum gcb_status none_matched(const char *name, char (*why)[WHY_MAX],
                                    struct gcb_err *err) {
  char list[GCB_ERRMSG_MAX] = "";
  size_t used = 0;
  for (size_t i = 0; gcb__converters[i] != NULL && used < sizeof list; i++) {
    int n = snprintf(list + used, sizeof list - used, "%s%s: %s", i ? "; " : "",
                     gcb__converters[i]->name, why[i]);
    used += n > 0 ? (size_t)n : 0;
  }
  return gcb_err_set(err, GCB_EINPUT,
                     "%s: not a format gcbench reads (tried %s)", name, list);
}

/* A file that yields neither a case nor an error is refused: a report of
 * nothing would read PASS and pass the CI job whose benchmark never ran.
 * Says what the file did hold (skipped tests). One with an error (a run
 * that failed before its first row) reads: the error fails its report,
 * which says why, as a run that failed later does. */
static enum gcb_status no_measurement(struct gcb__conv *cv,
                                      const struct gcb_model *m) {
  char held[64] = "";
  if (m->nskips > 0)
    snprintf(held, sizeof held, "; %zu skipped", m->nskips);
  return gcb_err_set(cv->err, GCB_EINPUT,
                     "%s: no measurements in %s (read as %s: no case%s)",
                     cv->name, cv->name, cv->format, held);
}

/* The converted file's model (cv->m, which it takes), its run's nodes
 * those the conversion added, joined to a known topology. */
static enum gcb_status finish(struct gcb__conv *cv, struct gcb_model **out) {
  struct gcb_model *m = cv->m;
  gcb__conv_run_set(cv, "nodes", gcb__mvalue_int((long long)m->nnodes));
  cv->m = NULL;
  enum gcb_status st = gcb__model_done(m, cv->err);
  if (st == GCB_OK)
    st = m->ncases == 0 && m->nerrors == 0 ? no_measurement(cv, m)
                                           : gcb__conv_join_topology(cv, m);
  if (st != GCB_OK) {
    gcb_model_free(m);
    m = NULL;
  }
  *out = m;
  return st;
}

static enum gcb_status convert(const struct gcb__converter *row,
                               const struct gcb__sniff *s, struct gcb__conv *cv,
                               struct gcb_model **out) {
  size_t limit = row->json ? GCB_INTEROP_MAX_JSON : GCB_INTEROP_MAX_TEXT;
  cv->format = row->name;
  size_t size = row->json ? s->json_len : s->len;
  if (size > limit)
    return gcb_err_set(cv->err, GCB_EINPUT,
                       "%s: %s: %zu bytes, more than the %zu MiB gcbench "
                       "converts from one file; split the file",
                       cv->name, row->name, size, limit >> 20);
  if (row->json) {
    if (s->root == NULL)
      return gcb_err_set(cv->err, GCB_EINPUT, "%s:%d:%d: %s: %s", cv->name,
                         s->json_error.line + s->json_line0,
                         s->json_error.column, row->name, s->json_error.text);
    cv->text = s->text + s->json_at;
    cv->len = s->json_len;
    cv->line0 = s->json_line0;
  }
  if ((cv->m = gcb__model_new(cv->name)) == NULL)
    return gcb__conv_nomem(cv);
  enum gcb_status st = row->convert(cv, s->root);
  if (st == GCB_OK)
    st = finish(cv, out);
  gcb_model_free(cv->m);
  cv->m = NULL;
  return st;
}

/* gcbench's own document, and its model. */
static enum gcb_status own_doc(const char *text, size_t len, const char *name,
                               struct gcb_results **res,
                               struct gcb_model **model, struct gcb_err *err) {
  enum gcb_status st = gcb_results_parse(text, len, name, res, err);
  if (st == GCB_OK)
    st = gcb_model_from_results(*res, name, model, err);
  return st;
}

enum gcb_status gcb_interop_parse(const char *text, size_t len,
                                  const char *name, const struct gcb_doc *known,
                                  size_t nknown, struct gcb_results **res,
                                  struct gcb_model **model,
                                  enum gcb_format *format,
                                  struct gcb_err *err) {
  *res = NULL;
  *model = NULL;
  if (format != NULL)
    *format = GCB_FORMAT_GCBENCH;
  if (gcb__text_has(text, len, "\"gcbench.results/", DETECT_WINDOW))
    return own_doc(text, len, name, res, model, err);
  struct gcb__sniff s;
  char why[16][WHY_MAX];
  sniff(&s, text, len);
  /* No JSON value for want of memory (said, or jansson's parse never
   * began: it sets no text then): no row may judge the file. A value over
   * the limit was never parsed: its converter says so. */
  if (s.root == NULL && s.json_len > 0 &&
      (json_error_code(&s.json_error) == json_error_out_of_memory ||
       (s.json_error.text[0] == '\0' && s.json_len <= GCB_INTEROP_MAX_JSON)))
    return gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", name);
  /* Mostly one JSON value, too large to parse: said so, whichever
   * converter its text would have gone to. */
  if (s.root == NULL && s.json_len > GCB_INTEROP_MAX_JSON &&
      s.json_len > len / 2)
    return gcb_err_set(err, GCB_EINPUT,
                       "%s: a JSON value of %zu bytes, more than the %zu MiB "
                       "gcbench converts from another tool's file; split the "
                       "file",
                       name, s.json_len, (size_t)GCB_INTEROP_MAX_JSON >> 20);
  const struct gcb__converter *row = best_row(&s, why);
  struct gcb__conv cv = {.text = text,
                         .len = len,
                         .name = name,
                         .known = known,
                         .nknown = nknown,
                         .err = err};
  enum gcb_status st;
  if (format != NULL && row != NULL)
    *format = row->format;
  if (row != NULL && row->convert != NULL)
    st = convert(row, &s, &cv, model);
  else if (row != NULL || for_results_reader(&s))
    st = own_doc(text, len, name, res, model, err);
  else {
    if (format != NULL)
      *format = GCB_FORMAT_UNKNOWN;
    st = none_matched(name, why, err);
  }
  json_decref((json_t *)s.root);
  return st;
}

enum gcb_status gcb__interop_parse_as(const char *row, const char *text,
                                      size_t len, const char *name,
                                      struct gcb_model **out,
                                      struct gcb_err *err) {
  const struct gcb__converter *const *r = gcb__converters;
  while (*r != NULL && strcmp((*r)->name, row) != 0)
    r++;
  const struct gcb__converter *c = *r;
  *out = NULL;
  if (c == NULL || c->convert == NULL)
    return gcb_err_set(err, GCB_EINTERNAL, "no converter row '%s'", row);
  struct gcb__sniff s;
  sniff(&s, text, len);
  struct gcb__conv cv = {.text = text, .len = len, .name = name, .err = err};
  enum gcb_status st = convert(c, &s, &cv, out);
  json_decref((json_t *)s.root);
  return st;
}
