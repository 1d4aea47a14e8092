/*
 * The exposition rules of metrics.prom (render_openmetrics.h): what makes
 * a file that both text formats' parsers and Prometheus' linter accept
 * whatever the documents hold. The clauses cited are from the OpenMetrics
 * 1.0 specification (prometheus/OpenMetrics, specification/OpenMetrics.md)
 * and from client_golang's promlint, which `promtool check metrics` runs;
 * docs/OPENMETRICS.md lists them for users.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/status.h"
#include "reports/document/fmtnum.h"
#include "reports/render/render.h"
#include "reports/render/render_openmetrics.h"

/* ---- a string set with a number per key --------------------------------- */

struct gcb__om_slot {
  char *key;
  uint64_t h; /* hash(key): compared before the key, kept for growing */
  long v;
};

static uint64_t hash(const char *s) { /* FNV-1a */
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The slot holding key (of hash h), or the empty one where it would go;
 * cap > 0. */
static struct gcb__om_slot *slot_of(const struct gcb__om_set *s,
                                    const char *key, uint64_t h) {
  size_t i = (size_t)h & (s->cap - 1);
  while (s->slots[i].key &&
         (s->slots[i].h != h || strcmp(s->slots[i].key, key) != 0))
    i = (i + 1) & (s->cap - 1);
  return &s->slots[i];
}

long gcb__om_set_get(const struct gcb__om_set *s, const char *key) {
  if (s->cap == 0)
    return -1;
  const struct gcb__om_slot *sl = slot_of(s, key, hash(key));
  return sl->key ? sl->v : -1;
}

static bool grow(struct gcb__om_set *s) {
  struct gcb__om_set g = {.cap = s->cap ? s->cap * 2 : 16};
  g.slots = calloc(g.cap, sizeof *g.slots);
  if (g.slots == NULL)
    return false;
  for (size_t i = 0; i < s->cap; i++)
    if (s->slots[i].key)
      *slot_of(&g, s->slots[i].key, s->slots[i].h) = s->slots[i];
  free(s->slots);
  s->slots = g.slots;
  s->cap = g.cap;
  return true;
}

/* The slot for key, added (number 0) if it was not there: *added says
 * which; NULL (and s->oom) when out of memory. */
static struct gcb__om_slot *slot_put(struct gcb__om_set *s, const char *key,
                                     bool *added) {
  if (s->oom || ((s->n + 1) * 2 > s->cap && !grow(s))) {
    s->oom = true;
    return NULL;
  }
  uint64_t h = hash(key);
  struct gcb__om_slot *sl = slot_of(s, key, h);
  *added = sl->key == NULL;
  if (*added) {
    if ((sl->key = strdup(key)) == NULL) {
      s->oom = true;
      return NULL;
    }
    sl->h = h;
    sl->v = 0;
    s->n++;
  }
  return sl;
}

void gcb__om_set_put(struct gcb__om_set *s, const char *key, long v) {
  bool added;
  struct gcb__om_slot *sl = slot_put(s, key, &added);
  if (sl != NULL)
    sl->v = v;
}

/* Counts key once more: its number before (-1 when new), as get then put
 * of get + 1 would, in one lookup (a label set per rank and case). */
static long set_bump(struct gcb__om_set *s, const char *key) {
  bool added;
  struct gcb__om_slot *sl = slot_put(s, key, &added);
  if (sl == NULL) /* out of memory: the rendering fails (s->oom) */
    return -1;
  long before = added ? -1 : sl->v;
  sl->v = added ? 1 : sl->v + 1;
  return before;
}

void gcb__om_set_free(struct gcb__om_set *s) {
  for (size_t i = 0; i < s->cap; i++)
    free(s->slots[i].key);
  free(s->slots);
  *s = (struct gcb__om_set){0};
}

/* ---- metric names ------------------------------------------------------- */

static bool in_list(const char *const *list, const char *w, size_t len) {
  for (; *list; list++)
    if (strlen(*list) == len && memcmp(*list, w, len) == 0)
      return true;
  return false;
}

/* Words that `promtool check metrics` refuses in a metric name: unit
 * abbreviations (promlint's unitAbbreviations), metric types
 * (lintMetricTypeInName), and the suffixes that the text formats give to
 * the samples of counters, histograms, summaries and info metrics
 * (OpenMetrics 1.0 "Suffixes": a family name MUST NOT clash with another
 * family's sample names, "a gauge called foo_total"; promlint refuses
 * _total, _count, _sum and _bucket on a gauge). */
static const char *const refused_words[] = {
    "s",       "ms",      "us",        "ns",      "sec",   "b",     "kb",
    "mb",      "gb",      "tb",        "pb",      "m",     "h",     "d",
    "counter", "gauge",   "histogram", "summary", "total", "count", "sum",
    "bucket",  "created", "info",      "gcount",  "gsum",  NULL};

/* promlint's units ("use base unit seconds instead of microseconds"): a
 * word that is one of them, or one behind a prefix, other than a base
 * unit itself, is refused. */
static const char *const lint_units[] = {
    "amperes",    "bytes",    "celsius", "grams",   "joules",
    "kelvin",     "meters",   "metres",  "seconds", "volts",
    "minutes",    "hours",    "days",    "weeks",   "kelvins",
    "fahrenheit", "rankine",  "inches",  "yards",   "miles",
    "bits",       "calories", "pounds",  "ounces",  NULL};
static const char *const base_units[] = {
    "amperes", "bytes",  "celsius", "grams", "joules", "kelvin",
    "meters",  "metres", "seconds", "volts", NULL};
static const char *const unit_prefixes[] = {
    "pico",  "nano", "micro", "milli", "centi", "deci", "deca",
    "hecto", "kilo", "kibi",  "mega",  "mibi",  "giga", "gibi",
    "tera",  "tebi", "peta",  "pebi",  NULL};

static bool refused_word(const char *w, size_t len) {
  if (in_list(refused_words, w, len))
    return true;
  if (in_list(lint_units, w, len))
    return !in_list(base_units, w, len);
  for (const char *const *p = unit_prefixes; *p; p++) {
    size_t k = strlen(*p);
    if (len > k && memcmp(w, *p, k) == 0 && in_list(lint_units, w + k, len - k))
      return true;
  }
  return false;
}

static bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

/*
 * in as lower-case words of [a-z0-9] joined by '_', appended to out[*n]
 * (at most max bytes in all): every other character separates words (the
 * ABNF's metricname allows [a-zA-Z0-9_:]; lower case because promlint
 * refuses camelCase), and a word promtool would refuse gets an 'x'
 * ("s" -> "sx"). A word starts with a letter or digit, never an '_', so no
 * name is one of the reserved "__" names.
 */
static void words(const char *in, char *out, size_t max, size_t *n) {
  while (*in) {
    while (*in && !word_char(*in))
      in++;
    size_t len = 0;
    while (word_char(in[len]))
      len++;
    if (len == 0)
      break;
    char low[64];
    size_t k = len < sizeof low ? len : sizeof low - 1;
    for (size_t i = 0; i < k; i++)
      low[i] = (char)(in[i] >= 'A' && in[i] <= 'Z' ? in[i] - 'A' + 'a' : in[i]);
    bool x = refused_word(low, k);
    if (*n + (*n > 0) + k + x >= max)
      break;
    if (*n > 0)
      out[(*n)++] = '_';
    memcpy(out + *n, low, k);
    *n += k;
    if (x)
      out[(*n)++] = 'x';
    in += len;
  }
  out[*n] = '\0';
}

/* The units gcbench writes, by the name their figures get; seconds are
 * the base unit Prometheus wants (promlint: "use base unit"), so the
 * other times are converted to it. */
static const struct {
  const char *unit, *suffix;
  double divisor;
} known_units[] = {
    {"GFLOP/s", "gflops", 1}, {"TFLOP/s", "tflops", 1},
    {"GB/s", "gbps", 1},      {"MB/s", "mbps", 1},
    {"s", "seconds", 1},      {"ms", "seconds", 1e3},
    {"us", "seconds", 1e6},   {"\xc2\xb5s", "seconds", 1e6},
    {"ns", "seconds", 1e9},   {"B", "bytes", 1},
    {"ratio", "ratio", 1},    {"%", "percent", 1},
};

#define SUFFIX_MAX 40

void gcb__om_unit(const char *unit, struct gcb__om_unit *u) {
  u->divisor = 1;
  u->known = false;
  for (size_t i = 0; i < sizeof known_units / sizeof *known_units; i++)
    if (strcmp(known_units[i].unit, unit) == 0) {
      snprintf(u->suffix, sizeof u->suffix, "%s", known_units[i].suffix);
      u->divisor = known_units[i].divisor;
      u->known = true;
      return;
    }
  /* "klaunch/s" -> "klaunch_per_second": a rate, not a time */
  static const char per[] = "_per_second";
  size_t len = strlen(unit), n = 0;
  bool rate = len > 2 && strcmp(unit + len - 2, "/s") == 0;
  char head[64];
  snprintf(head, sizeof head, "%.*s", (int)(rate ? len - 2 : len), unit);
  words(head, u->suffix, SUFFIX_MAX - (rate ? sizeof per : 0), &n);
  if (rate)
    snprintf(u->suffix + n, sizeof u->suffix - n, "%s", n ? per : per + 1);
  else if (n == 0)
    snprintf(u->suffix, sizeof u->suffix, "value");
}

void gcb__om_family_name(struct gcb__om_set *names, const char *bench,
                         const char *suffix, long v, char *out, size_t size) {
  char b[64];
  size_t n = 0;
  words(bench, b, sizeof b, &n);
  if (n == 0)
    snprintf(b, sizeof b, "unnamed");
  /* OpenMetrics 1.0: "MetricFamily names ... MUST be unique within a
   * MetricSet". The counter cannot be cut off: 8 + 63 + 12 + 40 < 128. */
  snprintf(out, size, "gcbench_%s_%.*s", b, SUFFIX_MAX, suffix);
  for (int k = 2; gcb__om_set_get(names, out) >= 0 && k < 1000000; k++)
    snprintf(out, size, "gcbench_%s_%d_%.*s", b, k, SUFFIX_MAX, suffix);
  gcb__om_set_put(names, out, v);
}

/* ---- escaping ----------------------------------------------------------- */

#define FFFD "\xef\xbf\xbd"

/* A code point that some reader takes for a line break or that is not
 * text: C0 controls but TAB, DEL, C1, U+2028 and U+2029 (Python's
 * str.splitlines and universal newlines split on several of them). */
static bool unsafe(const unsigned char *s, size_t k) {
  if (k == 1)
    return (*s < 0x20 && *s != '\t') || *s == 0x7f;
  if (k == 2)
    return s[0] == 0xc2 && s[1] < 0xa0;
  return k == 3 && s[0] == 0xe2 && s[1] == 0x80 &&
         (s[2] == 0xa8 || s[2] == 0xa9);
}

/*
 * OpenMetrics 1.0 ABNF: escaped-char = normal-char / BS ("n" / DQUOTE /
 * BS), normal-char = any code point but LF, '"' and '\'; the exposition is
 * UTF-8. So '\' and '"' are escaped, a line break (LF, CRLF or a lone CR,
 * for which neither format has an escape) is written \n, bytes that are
 * not UTF-8 and the code points unsafe() names become U+FFFD. In HELP a
 * '"' becomes ': the 0.0.4 text format (promtool) refuses \" there and
 * the ABNF has no raw '"'.
 */
static char *put(char *d, const char *s, size_t n) {
  memcpy(d, s, n);
  return d + n;
}

/* Writes s escaped at d, which has room for 3 * strlen(s) + 1 bytes (no
 * byte turns into more than three); returns the end, NUL-terminated. */
static char *escape(char *d, const char *s, bool help) {
  while (*s) {
    if (*s >= 0x20 && *s < 0x7f && *s != '\\' && *s != '"') {
      *d++ = *s++; /* printable ASCII, most of any value: as it is */
      continue;
    }
    size_t k = gcb_utf8_length(s);
    if (k == 0) {
      d = put(d, FFFD, 3);
      s++;
      continue;
    }
    if (*s == '\r' || *s == '\n') {
      d = put(d, "\\n", 2);
      k = s[0] == '\r' && s[1] == '\n' ? 2 : 1;
    } else if (*s == '\\')
      d = put(d, "\\\\", 2);
    else if (*s == '"')
      d = help ? put(d, "'", 1) : put(d, "\\\"", 2);
    else if (unsafe((const unsigned char *)s, k))
      d = put(d, FFFD, 3);
    else
      d = put(d, s, k);
    s += k;
  }
  *d = '\0';
  return d;
}

void gcb__om_help(FILE *out, const char *text) {
  char *buf = malloc(3 * strlen(text) + 1); /* none: HELP is optional */
  if (buf != NULL) {
    escape(buf, text, true);
    fputs(buf, out);
  }
  free(buf);
}

/* ---- samples ------------------------------------------------------------ */

/* A label: its name, and its escaped value in the sample's text (an
 * offset: the text grows). The lengths are kept, as every sample's label
 * set is put together twice (label_set, write_line). */
struct gcb__om_label {
  char name[GCB_OM_NAME_MAX];
  size_t name_len, value_at, value_len;
};

/* Room in s->text for a value of n bytes escaped; false when out of
 * memory. */
static bool text_room(struct gcb__om_sample *s, size_t n) {
  while (s->text_n + 3 * n + 1 > s->text_cap)
    if (!gcb_grow((void **)&s->text, &s->text_cap, s->text_cap, 1))
      return false;
  return true;
}

void gcb__om_label(struct gcb__om_sample *s, const char *name,
                   const char *value) {
  if (s->oom)
    return;
  if (!gcb_grow((void **)&s->labels, &s->cap, s->n, sizeof *s->labels) ||
      !text_room(s, strlen(value))) {
    s->oom = true;
    return;
  }
  struct gcb__om_label *l = &s->labels[s->n++];
  l->name_len = strnlen(name, GCB_OM_NAME_MAX - 1); /* snprintf's "%s" */
  memcpy(l->name, name, l->name_len);
  l->name[l->name_len] = '\0';
  l->value_at = s->text_n;
  char *end = escape(s->text + s->text_n, value, false);
  l->value_len = (size_t)(end - (s->text + s->text_n));
  s->text_n += l->value_len + 1;
}

void gcb__om_label_int(struct gcb__om_sample *s, const char *name,
                       long long v) {
  char buf[GCB_FMTNUM_MAX]; /* "%lld" without printf: a label per sample */
  gcb_fmtnum_ll(buf, v);
  gcb__om_label(s, name, buf);
}

/* The labels gcbench writes itself, and those promlint keeps for
 * histograms and summaries (le, quantile): a parameter never takes them. */
static const char *const reserved_labels[] = {
    "run",  "host",     "node",      "rank",   "gpu",      "bus_id",
    "unit", "severity", "late_rank", "run_id", "backend",  "version",
    "tool", "bench",    "repeat",    "le",     "quantile", NULL};

static bool has_label(const struct gcb__om_sample *s, const char *name) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->labels[i].name, name) == 0)
      return true;
  return false;
}

/*
 * The ABNF's label-name is [a-zA-Z_][a-zA-Z0-9_]*; OpenMetrics 1.0:
 * "Label names beginning with underscores are RESERVED"; promlint refuses
 * camelCase. So: lower case, other characters '_', and "param_" before a
 * key that is empty, starts with '_' or a digit, or is reserved_labels';
 * then, as "label names MUST be unique within a LabelSet", a name the
 * sample already has gets "_2", "_3", ... (a-b and a_b: a_b, a_b_2).
 */
const char *gcb__om_param(struct gcb__om_sample *s, const char *key,
                          const char *value) {
  char base[100], name[GCB_OM_NAME_MAX], tried[GCB_OM_NAME_MAX];
  size_t n = 0;
  for (; key[n] && n + 1 < sizeof base; n++) {
    char c = key[n];
    c = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    base[n] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_';
  }
  base[n] = '\0';
  bool prefix = n == 0 || base[0] == '_' ||
                (base[0] >= '0' && base[0] <= '9') ||
                in_list(reserved_labels, base, n);
  snprintf(name, sizeof name, "%s%s", prefix ? "param_" : "", base);
  snprintf(tried, sizeof tried, "%s", name);
  for (int k = 2; has_label(s, tried); k++)
    snprintf(tried, sizeof tried, "%s_%d", name, k);
  gcb__om_label(s, tried, value);
  return s->oom ? NULL : s->labels[s->n - 1].name;
}

/* Sorts the labels by name: insertion, as a sample has a dozen (names are
 * distinct, so any sort gives the same order). */
static void sort_by_name(const struct gcb__om_label **order, size_t n) {
  for (size_t i = 1; i < n; i++) {
    const struct gcb__om_label *x = order[i];
    size_t j = i;
    for (; j > 0 && strcmp(order[j - 1]->name, x->name) > 0; j--)
      order[j] = order[j - 1];
    order[j] = x;
  }
}

/* The label set as one string, whatever the order the labels came in
 * ("name=value\n" sorted by name: names hold no '=', escaped values no
 * line feed). NULL when out of memory. */
static char *label_set(const struct gcb__om_sample *s) {
  const struct gcb__om_label *few[32], **order = few;
  if (s->n > 32 && (order = malloc(s->n * sizeof *order)) == NULL)
    return NULL;
  size_t len = 1;
  for (size_t i = 0; i < s->n; i++) {
    order[i] = &s->labels[i];
    len += s->labels[i].name_len + s->labels[i].value_len + 2;
  }
  /* copied, not printed: one sample per rank and case at 16,384 ranks */
  char *buf = malloc(len), *at = buf;
  if (buf != NULL) {
    sort_by_name(order, s->n);
    for (size_t i = 0; i < s->n; i++) {
      at = put(at, order[i]->name, order[i]->name_len);
      *at++ = '=';
      at = put(at, s->text + order[i]->value_at, order[i]->value_len);
      *at++ = '\n';
    }
    *at = '\0';
  }
  if (order != few)
    free(order);
  return buf;
}

void gcb__om_sample_free(struct gcb__om_sample *s) {
  free(s->labels);
  free(s->text);
  *s = (struct gcb__om_sample){0};
}

/* "family{name="value",...} value\n" put together in memory and written
 * with one fwrite, the value as "%.17g" (gcb_fmtnum_g): a line per rank
 * and case, which stdio and printf would take a dozen calls to write. */
static bool write_line(FILE *out, const char *family,
                       const struct gcb__om_sample *s, double value) {
  size_t flen = strlen(family), len = flen + GCB_FMTNUM_MAX + 8;
  for (size_t i = 0; i < s->n; i++)
    len += s->labels[i].name_len + s->labels[i].value_len + 4;
  char small[2048], *buf = len <= sizeof small ? small : malloc(len);
  if (buf == NULL)
    return false;
  char *at = put(buf, family, flen);
  for (size_t i = 0; i < s->n; i++) {
    const struct gcb__om_label *l = &s->labels[i];
    *at++ = i ? ',' : '{';
    at = put(at, l->name, l->name_len);
    at = put(at, "=\"", 2);
    at = put(at, s->text + l->value_at, l->value_len);
    *at++ = '"';
  }
  at = s->n ? put(at, "} ", 2) : put(at, " ", 1);
  if (isinf(value))
    at = put(at, value > 0 ? "+Inf" : "-Inf", 4);
  else
    at += gcb_fmtnum_g(at, value, 17);
  *at++ = '\n';
  fwrite(buf, 1, (size_t)(at - buf), out);
  if (buf != small)
    free(buf);
  return true;
}

/* OpenMetrics 1.0: "Metrics are defined by a unique LabelSet within a
 * MetricFamily"; two cases with the same parameters (gemm --shapes
 * 64,64) are two measurements, so the second is kept as repeat="2". */
void gcb__om_write(FILE *out, const char *family, struct gcb__om_set *series,
                   struct gcb__om_sample *s, double value) {
  char *set = isnan(value) || s->oom ? NULL : label_set(s);
  if (set == NULL) {
    series->oom = series->oom || !isnan(value);
    gcb__om_sample_free(s);
    return;
  }
  long seen = set_bump(series, set);
  free(set);
  if (seen >= 1)
    gcb__om_label_int(s, "repeat", seen + 1);
  bool wrote = write_line(out, family, s, value);
  series->oom = series->oom || s->oom || !wrote;
  gcb__om_sample_free(s);
}
