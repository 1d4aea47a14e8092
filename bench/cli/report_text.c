/*
 * Plain-text tables for the terminal, from the same table model as the
 * Markdown and HTML reports (gcb_report_tables), so the numbers on screen
 * are the numbers in the files.
 */
#include "bench/cli/report_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Characters (not bytes) in a UTF-8 string. */
static size_t chars(const char *s) {
  size_t n = 0;
  for (; s != NULL && *s; s++)
    n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/* Prints at most maxw characters of s (the last one '~' when cut),
 * control characters as '?', padded to width on the left (right) or on
 * the right. */
static void put(FILE *out, const char *s, size_t width, size_t maxw,
                bool right) {
  s = s != NULL ? s : "";
  size_t n = chars(s), shown = n > maxw ? maxw : n;
  for (size_t i = shown; right && i < width; i++)
    fputc(' ', out);
  for (size_t c = 0; *s && c < shown; c++) {
    if (n > maxw && c + 1 == shown) {
      fputc('~', out);
      break;
    }
    size_t len = 1;
    while (((unsigned char)s[len] & 0xC0) == 0x80)
      len++;
    unsigned char b = (unsigned char)*s;
    if (len == 1 && (b < 0x20 || b == 0x7f))
      fputc('?', out);
    else
      fwrite(s, 1, len, out);
    s += len;
  }
  for (size_t i = shown; !right && i < width; i++)
    fputc(' ', out);
}

/* A column of the model to print, and how wide it may get. */
struct col {
  size_t index;
  size_t maxw;
};

/* Prints the chosen columns of the first max_rows rows of t, aligned. */
static void print_table(FILE *out, const struct gcb_rtable *t,
                        const struct col *cols, size_t ncols, size_t max_rows) {
  size_t width[16] = {0}, rows = t->nrows < max_rows ? t->nrows : max_rows;
  for (size_t k = 0; k < ncols && k < 16; k++)
    for (size_t r = 0; r <= rows; r++) {
      size_t w = chars(t->cells[r * t->ncols + cols[k].index]);
      w = w > cols[k].maxw ? cols[k].maxw : w;
      width[k] = w > width[k] ? w : width[k];
    }
  for (size_t r = 0; r <= rows; r++) {
    fputs("  ", out);
    for (size_t k = 0; k < ncols && k < 16; k++) {
      bool right = r > 0 && t->numeric[cols[k].index];
      bool last = k + 1 == ncols;
      put(out, t->cells[r * t->ncols + cols[k].index], last ? 0 : width[k],
          cols[k].maxw, right);
      fputs(last ? "\n" : "  ", out);
    }
  }
  if (t->nrows > rows)
    fprintf(out, "  ... %zu more\n", t->nrows - rows);
}

static const struct gcb_rtable *find(const struct gcb_rtables *ts,
                                     const char *id) {
  for (size_t i = 0; i < ts->n; i++)
    if (strcmp(ts->items[i].id, id) == 0)
      return &ts->items[i];
  return NULL;
}

/* The cost column: "cost 40 %", or "" when the evidence has none. */
static void cost_text(const struct gcb_root_cause *rc, char *buf, size_t n) {
  buf[0] = '\0';
  if (!rc->cleared && rc->cost == rc->cost && rc->cost > 0)
    snprintf(buf, n, "cost %.0f %%", rc->cost * 100);
}

/* Writes text from column *col on, word by word, so that no line passes
 * width: a word that would is moved to a new line indented by indent
 * (a word longer than a whole line is written whole: never cut mid-word).
 * Control characters as '?'. width 0: one line, as it is. */
static void wrap(FILE *out, const char *text, size_t indent, size_t width,
                 size_t *col) {
  const char *s = text != NULL ? text : "";
  while (*s != '\0') {
    size_t spaces = strspn(s, " ");
    const char *w = s + spaces;
    size_t bytes = strcspn(w, " ");
    if (bytes == 0)
      break;
    size_t n = 0;
    for (size_t i = 0; i < bytes; i++)
      n += ((unsigned char)w[i] & 0xC0) != 0x80;
    if (width > 0 && *col > indent && *col + spaces + n > width) {
      fputc('\n', out);
      for (*col = 0; *col < indent; (*col)++)
        fputc(' ', out);
      spaces = 0;
    }
    for (size_t i = 0; i < spaces; i++)
      fputc(' ', out);
    for (size_t i = 0; i < bytes; i++) {
      unsigned char b = (unsigned char)w[i];
      fputc(b < 0x20 || b == 0x7f ? '?' : b, out);
    }
    *col += spaces + n;
    s = w + bytes;
  }
}

static void pad_to(FILE *out, size_t *col, size_t to) {
  for (; *col < to; (*col)++)
    fputc(' ', out);
}

/* Every root cause: state, component, statement, cost, suggestion.
 * Nothing is cut: this is the answer. Unwrapped (width 0), each on one
 * aligned line; within width, the statement wraps under itself and the
 * cost and suggestion follow on lines of their own, indented alike. */
static void print_causes(FILE *out, const struct gcb_diagnosis *d,
                         size_t width) {
  size_t wname = 0, wsum = 0, wcost = 0;
  char cost[32];
  for (size_t i = 0; i < d->n; i++) {
    const struct gcb_root_cause *rc = &d->items[i];
    cost_text(rc, cost, sizeof cost);
    wname = chars(rc->comp.name) > wname ? chars(rc->comp.name) : wname;
    wsum = chars(rc->summary) > wsum ? chars(rc->summary) : wsum;
    wcost = chars(cost) > wcost ? chars(cost) : wcost;
  }
  /* the statement's column: after the names, within half the width */
  size_t indent = 8 + wname + 2;
  if (width > 0 && indent > width / 2)
    indent = width / 2 > 8 ? width / 2 : 8;
  for (size_t i = 0; i < d->n; i++) {
    const struct gcb_root_cause *rc = &d->items[i];
    cost_text(rc, cost, sizeof cost);
    fputs("  ", out);
    put(out, gcb_root_cause_state(rc), 4, 4, false);
    fputs("  ", out);
    if (width == 0) {
      put(out, rc->comp.name, wname, wname, false);
      fputs("  ", out);
      put(out, rc->summary, wsum, wsum, false);
      if (wcost > 0) {
        fputs("  ", out);
        put(out, cost, wcost, wcost, false);
      }
      fputs("  ", out);
      put(out, rc->suggestion, 0, 4096, false);
      fputc('\n', out);
      continue;
    }
    size_t col = 8;
    wrap(out, rc->comp.name, 8, width, &col);
    if (col + 2 > indent) { /* a long name: the statement under it */
      fputc('\n', out);
      col = 0;
    }
    pad_to(out, &col, indent);
    wrap(out, rc->summary, indent, width, &col);
    fputc('\n', out);
    if (cost[0] == '\0' && rc->suggestion[0] == '\0')
      continue;
    char then[4200];
    snprintf(then, sizeof then, "%s%s%s", cost,
             cost[0] != '\0' && rc->suggestion[0] != '\0' ? ": " : "",
             rc->suggestion);
    col = 0;
    pad_to(out, &col, indent);
    wrap(out, then, indent, width, &col);
    fputc('\n', out);
  }
}

/* Checks a source cannot evaluate, each once. */
static void print_na(FILE *out, const struct gcb_report *rep,
                     const struct gcb_diagnosis *d, size_t width) {
  for (size_t i = 0; i < d->nna; i++) {
    const struct gcb_finding *f = &rep->findings->items[d->na[i]];
    size_t col = 8;
    fputs("  n/a   ", out);
    wrap(out, f->explanation, 8, width, &col);
    fputc('\n', out);
  }
}

/* The burn-in tables (a row per rank: sustained, peak, onset and cause
 * of a fall), whole: a burn's answer per rank is short enough; its first
 * 16 columns, with a count of any more. */
static void print_burn(FILE *out, const struct gcb_report *rep) {
  const struct gcb_rtables *ts = rep->tables;
  for (size_t i = 0; ts != NULL && i < ts->n; i++) {
    const struct gcb_rtable *t = &ts->items[i];
    if (strncmp(t->id, "burn-", 5) != 0)
      continue;
    struct col cols[16];
    size_t n = t->ncols < 16 ? t->ncols : 16;
    for (size_t k = 0; k < n; k++)
      cols[k] = (struct col){.index = k, .maxw = 32};
    put(out, t->title, 0, 4096, false);
    fputc('\n', out);
    print_table(out, t, cols, n, t->nrows);
    if (t->ncols > n)
      fprintf(out, "  (%zu more columns in report.md)\n", t->ncols - n);
  }
}

size_t gcb__text_width(FILE *out) {
  const char *env = getenv("COLUMNS");
  char *end;
  long n = env != NULL ? strtol(env, &end, 10) : 0;
  if (env != NULL && end != env && *end == '\0' && n >= 20 && n <= 1000)
    return (size_t)n;
  struct winsize ws;
  int fd = fileno(out);
  if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 &&
      ws.ws_col >= 20)
    return ws.ws_col;
  return 0;
}

void gcb__print_report_summary(FILE *out, const struct gcb_report *rep,
                               const char *dir, size_t width) {
  char verdict[320];
  struct gcb_diagnosis own = {0};
  const struct gcb_diagnosis *d;
  struct gcb_err err = {0};
  gcb_report_verdict(rep, verdict, sizeof verdict);
  put(out, verdict, 0, 4096, false);
  fputc('\n', out);
  if (rep->expectations != NULL) {
    char line[1024];
    size_t col = 0;
    snprintf(line, sizeof line, "expectations: %s", rep->expectations);
    wrap(out, line, 2, width, &col);
    fputc('\n', out);
  }
  if (gcb_report_diagnosis_use(rep, &own, &d, &err) == GCB_OK) {
    print_causes(out, d, width);
    print_na(out, rep, d, width);
  }
  gcb_diagnosis_free(&own);
  print_burn(out, rep);
  char files[8192];
  size_t used = (size_t)snprintf(files, sizeof files, "%zu per-case finding(s)",
                                 rep->findings->n);
  if (rep->criteria != NULL)
    used += (size_t)snprintf(files + used, sizeof files - used,
                             " and %zu criteria check(s)",
                             rep->criteria->nchecks);
  used += (size_t)snprintf(files + used, sizeof files - used,
                           ": findings.json; wrote");
  for (size_t i = 0; gcb_renderers[i] && used < sizeof files; i++)
    if (gcb_renderer_applies(gcb_renderers[i], rep))
      used += (size_t)snprintf(files + used, sizeof files - used, " %s",
                               gcb_renderers[i]->file);
  if (used < sizeof files)
    snprintf(files + used, sizeof files - used, "%s to %s",
             rep->plots && rep->plots->n ? " and plots" : "", dir);
  size_t col = 0;
  wrap(out, files, 2, width, &col);
  fputc('\n', out);
  if (rep->plots != NULL && rep->plots->note[0])
    fprintf(out, "note: %s\n", rep->plots->note);
}

enum gcb_status gcb__print_comparison(FILE *out, const struct gcb_doc *new_doc,
                                      const struct gcb_comparison *cmp,
                                      const char *baseline,
                                      const struct gcb_thresholds *t,
                                      struct gcb_err *err) {
  struct gcb_findings none = {0};
  struct gcb_report rep = {.docs = new_doc,
                           .ndocs = 1,
                           .findings = &none,
                           .comparison = cmp,
                           .baseline = baseline,
                           .thresholds = t};
  struct gcb_rtables ts = {0};
  enum gcb_status st = gcb_report_comparison_tables(&rep, &ts, err);
  if (st == GCB_OK) {
    static const struct col dcols[] = {{0, 48}, {1, 8},  {2, 20}, {3, 20},
                                       {4, 8},  {5, 28}, {7, 12}};
    static const struct col ncols[] = {{0, 48}, {1, 56}, {2, 56}};
    const struct gcb_rtable *d = find(&ts, "comparison");
    const struct gcb_rtable *n = find(&ts, "notes");
    if (d != NULL)
      print_table(out, d, dcols, 7, d->nrows);
    if (n != NULL) {
      fprintf(out, "not comparable because the runs differ:\n");
      print_table(out, n, ncols, 3, n->nrows);
    }
    fprintf(out,
            "%zu regression(s) in %zu row(s): worse by more than %g%% "
            "and by more than the noise band (%g sigma); %zu note(s)\n",
            cmp->regressions, cmp->ndeltas, t->regression_pct, t->noise_sigmas,
            cmp->nnotes);
  }
  gcb_rtables_free(&ts);
  return st;
}
