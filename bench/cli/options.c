/*
 * Option tables → getopt_long, defaults, --help and the JSON echo.
 * Every option is parsed by parse_value(), whether it came from the
 * command line or from the table's default string.
 */
#include "bench/cli/options.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPTIONS 128

static const struct {
  char suffix;
  int shift;
} size_suffixes[] = {{'K', 10}, {'M', 20}, {'G', 30}, {'T', 40}};

/* User text as it may appear in a one-line message: control characters (a
 * newline, a terminal escape) written as \xNN, and cut to fit `len`. */
static const char *shown(const char *text, char *buf, size_t len) {
  size_t n = 0;
  const unsigned char *p = (const unsigned char *)text;
  for (; *p && n + 8 < len; p++) {
    if (*p < 0x20 || *p == 0x7f)
      n += (size_t)snprintf(buf + n, len - n, "\\x%02x", *p);
    else
      buf[n++] = (char)*p;
  }
  snprintf(buf + n, len - n, "%s", *p ? "..." : "");
  return buf;
}

#define SHOWN_MAX 160
#define SHOW(text) shown((text), (char[SHOWN_MAX]){0}, SHOWN_MAX)

static bool suffix_rest_ok(const char *rest) {
  return rest[0] == '\0' || strcmp(rest, "B") == 0 || strcmp(rest, "iB") == 0;
}

enum gcb_status gcb_parse_size(const char *text, uint64_t *out,
                               struct gcb_err *err) {
  if (text == NULL || *text < '0' || *text > '9')
    return gcb_err_set(err, GCB_EUSAGE,
                       "invalid size '%s' (expected e.g. 8, 4K, 1M, 2G)",
                       SHOW(text ? text : ""));
  errno = 0;
  char *end;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno == ERANGE)
    return gcb_err_set(err, GCB_EUSAGE, "size '%s' is too large", SHOW(text));
  int shift = 0;
  if (*end != '\0' && !(end[0] == 'B' && end[1] == '\0')) {
    char c = (char)(*end >= 'a' && *end <= 'z' ? *end - 32 : *end);
    size_t i = 0;
    while (i < sizeof size_suffixes / sizeof *size_suffixes &&
           size_suffixes[i].suffix != c)
      i++;
    if (i == sizeof size_suffixes / sizeof *size_suffixes ||
        !suffix_rest_ok(end + 1))
      return gcb_err_set(err, GCB_EUSAGE,
                         "invalid size '%s' (suffixes: K, M, G, T)",
                         SHOW(text));
    shift = size_suffixes[i].shift;
  }
  if (shift && v > (UINT64_MAX >> shift))
    return gcb_err_set(err, GCB_EUSAGE, "size '%s' is too large", SHOW(text));
  *out = (uint64_t)v << shift;
  return GCB_OK;
}

void gcb_format_size(uint64_t bytes, char *buf, size_t len) {
  int i = (int)(sizeof size_suffixes / sizeof *size_suffixes) - 1;
  for (; i >= 0; i--) {
    uint64_t unit = (uint64_t)1 << size_suffixes[i].shift;
    if (bytes >= unit && bytes % unit == 0) {
      snprintf(buf, len, "%" PRIu64 "%c", bytes / unit,
               size_suffixes[i].suffix);
      return;
    }
  }
  snprintf(buf, len, "%" PRIu64, bytes);
}

/* --- values ---------------------------------------------------------------*/

static void *field(const struct gcb_option_group *g,
                   const struct gcb_option *o) {
  return (char *)g->target + o->offset;
}

static int choice_index(const struct gcb_option *o, const char *name) {
  for (int i = 0; o->choices[i]; i++)
    if (strcmp(o->choices[i], name) == 0)
      return i;
  return -1;
}

static enum gcb_status bad_choice(const struct gcb_option *o, const char *text,
                                  struct gcb_err *err) {
  char list[256] = "";
  for (int i = 0; o->choices[i]; i++) {
    if (i)
      strncat(list, ", ", sizeof list - strlen(list) - 1);
    strncat(list, o->choices[i], sizeof list - strlen(list) - 1);
  }
  return gcb_err_set(err, GCB_EUSAGE,
                     "--%s: unknown value '%s' (choose from %s%s)", o->name,
                     SHOW(text), list, o->type == GCB_OPT_SET ? ", all" : "");
}

static enum gcb_status parse_set(const struct gcb_option *o, const char *text,
                                 uint32_t *out, struct gcb_err *err) {
  uint32_t set = 0;
  /* The whole list, however long: a fixed buffer would drop its tail. */
  char *buf = strdup(text);
  if (buf == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "--%s: out of memory", o->name);
  char *save = NULL;
  enum gcb_status st = GCB_OK;
  for (char *tok = strtok_r(buf, ",", &save); tok && st == GCB_OK;
       tok = strtok_r(NULL, ",", &save)) {
    int i = strcmp(tok, "all") == 0 ? -2 : choice_index(o, tok);
    for (int k = 0; i == -2 && o->choices[k]; k++)
      set |= 1u << k;
    if (i == -1)
      st = bad_choice(o, tok, err);
    else if (i >= 0)
      set |= 1u << i;
  }
  free(buf);
  if (st == GCB_OK && set == 0)
    st = gcb_err_set(err, GCB_EUSAGE, "--%s: empty list", o->name);
  if (st == GCB_OK)
    *out = set;
  return st;
}

static enum gcb_status check_range(const struct gcb_option *o, double v,
                                   const char *text, struct gcb_err *err) {
  if (v < o->min)
    return gcb_err_set(err, GCB_EUSAGE, "--%s: %s is below the minimum %g",
                       o->name, SHOW(text), o->min);
  if (o->max > 0 && v > o->max)
    return gcb_err_set(err, GCB_EUSAGE, "--%s: %s is above the maximum %g",
                       o->name, SHOW(text), o->max);
  return GCB_OK;
}

static enum gcb_status parse_number(const struct gcb_option *o,
                                    const char *text, double *v,
                                    struct gcb_err *err) {
  errno = 0;
  char *end;
  *v = o->type == GCB_OPT_INT ? (double)strtol(text, &end, 10)
                              : strtod(text, &end);
  if (end == text || *end != '\0' || errno == ERANGE || !isfinite(*v))
    return gcb_err_set(err, GCB_EUSAGE, "--%s: '%s' is not a valid %s", o->name,
                       SHOW(text),
                       o->type == GCB_OPT_INT ? "integer" : "number");
  return check_range(o, *v, text, err);
}

/* A duration: a number, then s, m or h (seconds when none). */
static enum gcb_status parse_seconds(const struct gcb_option *o,
                                     const char *text, double *v,
                                     struct gcb_err *err) {
  errno = 0;
  char *end;
  *v = strtod(text, &end);
  static const struct {
    char unit;
    double seconds;
  } units[] = {{'s', 1}, {'m', 60}, {'h', 3600}};
  bool ok = end != text && errno != ERANGE && isfinite(*v);
  if (ok && *end != '\0') {
    ok = false;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
      if (end[0] == units[i].unit && end[1] == '\0') {
        *v *= units[i].seconds;
        ok = true;
      }
  }
  if (!ok)
    return gcb_err_set(err, GCB_EUSAGE,
                       "--%s: '%s' is not a duration (a number of seconds, "
                       "or one with s, m or h: 90, 90s, 10m, 1h)",
                       o->name, SHOW(text));
  return check_range(o, *v, text, err);
}

static enum gcb_status parse_value(const struct gcb_option_group *g,
                                   const struct gcb_option *o, const char *text,
                                   struct gcb_err *err) {
  void *dst = field(g, o);
  enum gcb_status st = GCB_OK;
  double d;
  uint64_t size;
  int idx;
  switch (o->type) {
  case GCB_OPT_FLAG:
    *(bool *)dst = text != NULL && strcmp(text, "0") != 0;
    break;
  case GCB_OPT_INT:
  case GCB_OPT_DOUBLE:
    if ((st = parse_number(o, text, &d, err)) != GCB_OK)
      return st;
    if (o->type == GCB_OPT_INT)
      *(long *)dst = (long)d;
    else
      *(double *)dst = d;
    break;
  case GCB_OPT_SECONDS:
    if ((st = parse_seconds(o, text, &d, err)) != GCB_OK)
      return st;
    *(double *)dst = d;
    break;
  case GCB_OPT_SIZE:
    if ((st = gcb_parse_size(text, &size, err)) != GCB_OK) {
      gcb_err_prefix(err, "--%s", o->name);
      return st;
    }
    if ((st = check_range(o, (double)size, text, err)) != GCB_OK)
      return st;
    *(uint64_t *)dst = size;
    break;
  case GCB_OPT_STRING:
    *(const char **)dst = text;
    break;
  case GCB_OPT_CHOICE:
    if ((idx = choice_index(o, text)) < 0)
      return bad_choice(o, text, err);
    *(int *)dst = idx;
    break;
  case GCB_OPT_SET:
    return parse_set(o, text, (uint32_t *)dst, err);
  case GCB_OPT_GIVEN:
  case GCB_OPT_ALIAS:
  case GCB_OPT_PARSE:
    break;
  }
  return GCB_OK;
}

/* --- what was given
 * ---------------------------------------------------------*/

static const struct gcb_option *given_row(const struct gcb_option *table) {
  for (const struct gcb_option *o = table; o->name; o++)
    if (o->type == GCB_OPT_GIVEN)
      return o;
  return NULL;
}

/* Records in the group's GCB_OPT_GIVEN field, if it has one, that `o` was
 * given explicitly. */
static void mark_given(const struct gcb_option_group *g,
                       const struct gcb_option *o) {
  const struct gcb_option *row = given_row(g->options);
  ptrdiff_t i = o - g->options;
  if (row != NULL && i >= 0 && i < 64)
    *(uint64_t *)field(g, row) |= UINT64_C(1) << i;
}

bool gcb_option_given(const struct gcb_option *table, const void *target,
                      const char *name) {
  const struct gcb_option *row = given_row(table);
  if (row == NULL || target == NULL)
    return false;
  uint64_t set = *(const uint64_t *)((const char *)target + row->offset);
  for (const struct gcb_option *o = table; o->name && o - table < 64; o++)
    if (o->type != GCB_OPT_GIVEN && strcmp(o->name, name) == 0)
      return (set >> (o - table)) & 1;
  return false;
}

/* Whether a row has storage of its own (not an alias, a parse row or the
 * record of what was given). */
static bool stores(const struct gcb_option *o) {
  return o->type != GCB_OPT_ALIAS && o->type != GCB_OPT_PARSE &&
         o->type != GCB_OPT_GIVEN;
}

static size_t value_size(enum gcb_opt_type type) {
  switch (type) {
  case GCB_OPT_FLAG:
    return sizeof(bool);
  case GCB_OPT_INT:
    return sizeof(long);
  case GCB_OPT_SIZE:
    return sizeof(uint64_t);
  case GCB_OPT_DOUBLE:
  case GCB_OPT_SECONDS:
    return sizeof(double);
  case GCB_OPT_STRING:
    return sizeof(const char *);
  case GCB_OPT_CHOICE:
    return sizeof(int);
  case GCB_OPT_SET:
    return sizeof(uint32_t);
  case GCB_OPT_GIVEN:
    return sizeof(uint64_t);
  case GCB_OPT_ALIAS:
  case GCB_OPT_PARSE:
    return 0;
  }
  return 0;
}

enum gcb_status gcb_options_defaults(const struct gcb_option_group *groups,
                                     size_t ngroups, struct gcb_err *err) {
  for (size_t g = 0; g < ngroups; g++)
    for (const struct gcb_option *o = groups[g].options; o->name; o++) {
      memset(field(&groups[g], o), 0, value_size(o->type));
      enum gcb_status st = o->def && stores(o)
                               ? parse_value(&groups[g], o, o->def, err)
                               : GCB_OK;
      if (st != GCB_OK) {
        gcb_err_prefix(err, "default of --%s", o->name);
        return GCB_EINTERNAL;
      }
    }
  return GCB_OK;
}

/* The row with storage named `name`, in whichever group has it. */
static const struct gcb_option *
storage_row(const struct gcb_option_group *groups, size_t ngroups,
            const char *name, const struct gcb_option_group **group) {
  for (size_t g = 0; g < ngroups; g++)
    for (const struct gcb_option *o = groups[g].options; o->name; o++)
      if (stores(o) && strcmp(o->name, name) == 0) {
        *group = &groups[g];
        return o;
      }
  return NULL;
}

enum gcb_status gcb_options_set(const struct gcb_option_group *groups,
                                size_t ngroups, const char *name,
                                const char *text, struct gcb_err *err) {
  const struct gcb_option_group *g = NULL;
  const struct gcb_option *o = storage_row(groups, ngroups, name, &g);
  if (o == NULL)
    return gcb_err_set(err, GCB_EINTERNAL, "no option --%s here", name);
  enum gcb_status st = parse_value(g, o, text, err);
  if (st == GCB_OK)
    mark_given(g, o);
  return st;
}

const void *gcb_options_value(const struct gcb_option_group *groups,
                              size_t ngroups, const char *name) {
  const struct gcb_option_group *g = NULL;
  const struct gcb_option *o = storage_row(groups, ngroups, name, &g);
  return o ? field(g, o) : NULL;
}

/* --- parsing ---------------------------------------------------------------*/

struct flat {
  const struct gcb_option_group *group;
  const struct gcb_option *opt; /* the row that parses and stores */
  const struct gcb_option *as;  /* the row given: opt, or its alias */
};

/* The option an alias row stands for, in whichever group has it. */
static bool resolve(const struct gcb_option_group *groups, size_t ngroups,
                    const struct gcb_option *alias, struct flat *out) {
  for (size_t g = 0; g < ngroups; g++)
    for (const struct gcb_option *o = groups[g].options; o->name; o++)
      if (stores(o) && strcmp(o->name, alias->def) == 0) {
        *out = (struct flat){&groups[g], o, alias};
        return true;
      }
  return false;
}

/* getopt's has_arg of row `o` given, which stores into `opt` (a parse
 * row: itself, its metavar saying; see GCB_OPT_PARSE). */
static int has_arg(const struct gcb_option *o, const struct gcb_option *opt) {
  if (o->type == GCB_OPT_PARSE)
    return o->metavar == NULL     ? no_argument
           : o->metavar[0] == '[' ? optional_argument
                                  : required_argument;
  return opt->type == GCB_OPT_FLAG ? no_argument : required_argument;
}

/* What one parse works with: the groups that hold the values and the
 * dialect, if any, whose rows are then the command line's options. */
struct parser {
  const struct gcb_option_group *groups;
  size_t ngroups;
  const struct gcb_option_dialect *d;
  struct gcb_option_group dialect; /* d's rows as a group with no storage */
};

/* The groups whose rows are options of the command line. */
static const struct gcb_option_group *option_groups(const struct parser *p,
                                                    size_t *n) {
  *n = p->d ? 1 : p->ngroups;
  return p->d ? &p->dialect : p->groups;
}

static size_t flatten(const struct parser *p, struct flat *rows,
                      struct option *longs, char *shorts) {
  size_t n = 0, s = 0, ngroups;
  const struct gcb_option_group *groups = option_groups(p, &ngroups);
  shorts[s++] = ':'; /* report missing arguments as ':' */
  for (size_t g = 0; g < ngroups; g++)
    for (const struct gcb_option *o = groups[g].options; o->name; o++) {
      if (o->type == GCB_OPT_GIVEN || n + 2 >= MAX_OPTIONS)
        continue;
      rows[n] = (struct flat){&groups[g], o, o};
      if (o->type == GCB_OPT_ALIAS &&
          !resolve(p->groups, p->ngroups, o, &rows[n]))
        continue;
      int arg = has_arg(o, rows[n].opt);
      longs[n] = (struct option){o->name, arg, NULL, 256 + (int)n};
      if (o->short_name) {
        shorts[s++] = o->short_name;
        if (arg != no_argument)
          shorts[s++] = ':';
        if (arg == optional_argument)
          shorts[s++] = ':';
      }
      n++;
    }
  longs[n++] = (struct option){"help", no_argument, NULL, 'h'};
  longs[n] = (struct option){0, 0, 0, 0};
  shorts[s++] = 'h';
  shorts[s] = '\0';
  return n - 1;
}

/* Parses one given option into its row's storage; messages name the
 * option as given (--iterations, not --iters). */
static enum gcb_status parse_given(const struct parser *p,
                                   const struct flat *row, const char *text,
                                   struct gcb_err *err) {
  const struct gcb_option_dialect *d = p->d;
  enum gcb_status st;
  if (d && d->applies && (st = d->applies(row->as, d->target, err)) != GCB_OK)
    return st;
  if (row->as->type == GCB_OPT_PARSE) {
    struct gcb_option_call call = {p->groups, p->ngroups, row->as, d->target};
    return d->parse(&call, text, err);
  }
  struct gcb_option named = *row->opt;
  named.name = row->as->name;
  st = parse_value(row->group, &named, text, err);
  if (st == GCB_OK)
    mark_given(row->group, row->opt);
  return st;
}

static const struct flat *find_short(const struct flat *rows, size_t n, int c) {
  for (size_t i = 0; i < n; i++)
    if (rows[i].as->short_name == c)
      return &rows[i];
  return NULL;
}

static struct parser parser_of(const struct gcb_option_dialect *d,
                               const struct gcb_option_group *groups,
                               size_t ngroups) {
  struct parser p = {groups, ngroups, d, {0}};
  if (d)
    p.dialect = (struct gcb_option_group){d->title, d->options, d->target};
  return p;
}

enum gcb_status gcb_options_parse(const struct gcb_option_group *groups,
                                  size_t ngroups, int argc, char **argv,
                                  bool *help, const char **positional,
                                  int max_positional, int *npositional,
                                  struct gcb_err *err) {
  return gcb_options_parse_dialect(NULL, groups, ngroups, argc, argv, help,
                                   positional, max_positional, npositional,
                                   err);
}

enum gcb_status gcb_options_parse_dialect(const struct gcb_option_dialect *d,
                                          const struct gcb_option_group *groups,
                                          size_t ngroups, int argc, char **argv,
                                          bool *help, const char **positional,
                                          int max_positional, int *npositional,
                                          struct gcb_err *err) {
  struct parser p = parser_of(d, groups, ngroups);
  struct flat rows[MAX_OPTIONS];
  struct option longs[MAX_OPTIONS + 1];
  char shorts[2 * MAX_OPTIONS + 4];
  size_t n = flatten(&p, rows, longs, shorts);
  enum gcb_status st = gcb_options_defaults(groups, ngroups, err);
  /* the dialect's defaults after every row's: they write those rows */
  if (st == GCB_OK && d && d->defaults) {
    struct gcb_option_call call = {groups, ngroups, NULL, d->target};
    st = d->defaults(&call, err);
  }
  if (st != GCB_OK)
    return st;
  *help = false;
  if (npositional)
    *npositional = 0;

  optind = 0; /* glibc: full reinitialisation, so parsing can repeat */
  opterr = 0;
  int c, longindex = -1;
  while ((c = getopt_long(argc, argv, shorts, longs, &longindex)) != -1) {
    const struct flat *row = NULL;
    if (c == 'h') {
      *help = true;
      continue;
    }
    if (c == '?' || c == ':') {
      const char *what = argv[optind - 1];
      if (optopt && optopt < 256) {
        char opt[2] = {(char)optopt, '\0'};
        return gcb_err_set(
            err, GCB_EUSAGE,
            c == ':' ? "-%s needs a value" : "unknown option -%s", SHOW(opt));
      }
      return gcb_err_set(err, GCB_EUSAGE,
                         c == ':' ? "%s needs a value" : "unknown option '%s'",
                         SHOW(what));
    }
    row = c >= 256 ? &rows[c - 256] : find_short(rows, n, c);
    if (row == NULL)
      return gcb_err_set(err, GCB_EINTERNAL, "option table out of sync");
    const char *text =
        row->opt->type == GCB_OPT_FLAG && row->as->type != GCB_OPT_PARSE
            ? "1"
            : optarg;
    if ((st = parse_given(&p, row, text, err)) != GCB_OK)
      return st;
  }
  for (int i = optind; i < argc; i++) {
    if (positional == NULL || *npositional >= max_positional)
      return gcb_err_set(err, GCB_EUSAGE, "unexpected argument '%s'",
                         SHOW(argv[i]));
    positional[(*npositional)++] = argv[i];
  }
  return GCB_OK;
}

/* --- help and echo ---------------------------------------------------------*/

static void choices_text(const struct gcb_option *o, char *buf, size_t len) {
  buf[0] = '\0';
  if (o->choices == NULL)
    return;
  strncat(buf, " (", len - strlen(buf) - 1);
  for (int i = 0; o->choices[i]; i++) {
    if (i)
      strncat(buf, "|", len - strlen(buf) - 1);
    strncat(buf, o->choices[i], len - strlen(buf) - 1);
  }
  if (o->type == GCB_OPT_SET)
    strncat(buf, "|all, comma-separated", len - strlen(buf) - 1);
  strncat(buf, ")", len - strlen(buf) - 1);
}

/* One option's help line; an alias shows the metavar of what it stands
 * for and, unless it is a dialect's (whose targets are no options of its
 * command line), says which option that is. */
static void help_line(FILE *out, const struct gcb_option *o,
                      const struct gcb_option *target, bool dialect) {
  char head[64], extra[256] = "";
  const char *metavar = target->metavar;
  snprintf(head, sizeof head, "%c%c%s--%s%s%s", o->short_name ? '-' : ' ',
           o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ",
           o->name, metavar ? " " : "", metavar ? metavar : "");
  if (o == target)
    choices_text(o, extra, sizeof extra);
  else if (!dialect)
    snprintf(extra, sizeof extra, " (the same as --%s)", target->name);
  fprintf(out, "  %-26s %s%s", head, o->help, extra);
  if (o->def && o == target && o->type != GCB_OPT_FLAG)
    fprintf(out, " [default: %s]", o->def);
  fputc('\n', out);
}

static void help_of(FILE *out, const struct parser *p) {
  size_t ngroups;
  const struct gcb_option_group *groups = option_groups(p, &ngroups);
  for (size_t g = 0; g < ngroups; g++) {
    fprintf(out, "\n%s:\n", groups[g].title);
    for (const struct gcb_option *o = groups[g].options; o->name; o++) {
      struct flat alias = {0};
      struct gcb_err scratch = {0};
      if (o->type == GCB_OPT_GIVEN || o->help == NULL ||
          (o->type == GCB_OPT_ALIAS &&
           !resolve(p->groups, p->ngroups, o, &alias)) ||
          (p->d && p->d->applies &&
           p->d->applies(o, p->d->target, &scratch) != GCB_OK))
        continue;
      help_line(out, o, o->type == GCB_OPT_ALIAS ? alias.opt : o, p->d != NULL);
    }
  }
  fprintf(out, "\n  %-26s %s\n", "-h, --help", "show this help and exit");
}

void gcb_options_help(FILE *out, const struct gcb_option_group *groups,
                      size_t ngroups) {
  struct parser p = parser_of(NULL, groups, ngroups);
  help_of(out, &p);
}

void gcb_options_help_dialect(FILE *out, const struct gcb_option_dialect *d,
                              const struct gcb_option_group *groups,
                              size_t ngroups) {
  struct parser p = parser_of(d, groups, ngroups);
  help_of(out, &p);
}

static json_t *set_to_json(const struct gcb_option *o, uint32_t set) {
  json_t *a = json_array();
  for (int i = 0; a && o->choices[i]; i++)
    if (set & (1u << i))
      json_array_append_new(a, json_string(o->choices[i]));
  return a;
}

/* A JSON string of user text, which need not be UTF-8 (a file name): each
 * invalid byte becomes U+FFFD, so that the echo always exists. */
static json_t *text_json(const char *text) {
  json_t *j = json_string(text);
  if (j != NULL)
    return j;
  char *clean = gcb_utf8_copy(text);
  if (clean == NULL)
    return NULL;
  j = json_string(clean);
  free(clean);
  return j;
}

static json_t *value_to_json(const struct gcb_option_group *g,
                             const struct gcb_option *o) {
  const void *p = field(g, o);
  switch (o->type) {
  case GCB_OPT_FLAG:
    return json_boolean(*(const bool *)p);
  case GCB_OPT_INT:
    return json_integer(*(const long *)p);
  case GCB_OPT_SIZE:
    return json_integer((json_int_t) * (const uint64_t *)p);
  case GCB_OPT_DOUBLE:
  case GCB_OPT_SECONDS:
    return json_real(*(const double *)p);
  case GCB_OPT_STRING:
    return *(const char *const *)p ? text_json(*(const char *const *)p)
                                   : json_null();
  case GCB_OPT_CHOICE:
    return json_string(o->choices[*(const int *)p]);
  case GCB_OPT_SET:
    return set_to_json(o, *(const uint32_t *)p);
  case GCB_OPT_GIVEN:
  case GCB_OPT_ALIAS:
  case GCB_OPT_PARSE:
    break;
  }
  return json_null();
}

json_t *gcb_options_to_json(const struct gcb_option_group *groups,
                            size_t ngroups) {
  json_t *obj = json_object();
  for (size_t g = 0; obj && g < ngroups; g++)
    for (const struct gcb_option *o = groups[g].options; o->name; o++)
      if (stores(o) && json_object_set_new(obj, o->name,
                                           value_to_json(&groups[g], o)) != 0) {
        json_decref(obj);
        return NULL;
      }
  return obj;
}
