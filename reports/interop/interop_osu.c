/*
 * OSU micro-benchmarks stdout, one benchmark or several concatenated:
 * "# OSU MPI Allreduce Latency Test v7.1", optional lines such as
 * "# Datatype: MPI_CHAR." or "# [ pairs: 48 ] [ window size: 64 ]", a
 * column line ("# Size      Bandwidth (MB/s)"; with -f "# Size  Avg
 * Latency(us)  Min Latency(us)  Max Latency(us)  Iterations"; with -c a
 * "Validation" column; osu_barrier's has no Size: "# Avg Latency(us)"
 * and rows of one value, four with -f), then rows. Columns are separated
 * by two or more blanks, as OSU prints them.
 *
 * The programs gcbench also runs (osu_latency, osu_bw, osu_bibw,
 * osu_multi_lat, osu_mbw_mr, the blocking collectives, osu_barrier)
 * become the "coll" cases gcbench's own drop-in of that program writes
 * (interop_osu_case.c). The rank count, which OSU does not print, is 2
 * for point-to-point tests, twice osu_mbw_mr's pairs, or what a launcher
 * line in the file says ("mpirun -np 8 ..."); without it the per-rank
 * sizes stay OSU's, and no busbw is made up. Every other table (non-
 * blocking variants, one-sided, OpenSHMEM ...) is kept as imported
 * figures with OSU's names and units.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reports/interop/interop_osu.h"

static int detect(const struct gcb__sniff *s, char *why, size_t size) {
  if (gcb__text_has(s->text, s->len, "# OSU ", GCB__DETECT_WINDOW))
    return 70;
  snprintf(why, size, "no \"# OSU ... Test\" title");
  return 0;
}

/* "# OSU MPI Allreduce Latency Test v5.7.1" (also "MPI-CUDA", "OpenSHMEM"). */
static void title(struct gcb__osu *o, const struct gcb__line *l) {
  char t[160];
  snprintf(t, sizeof t, "%.*s", (int)(l->len < 159 ? l->len : 159), l->at);
  char *p = strstr(t, "OSU "), *end = strstr(t, " Test");
  p = p ? strchr(p + 4, ' ') : NULL; /* past "OSU MPI" */
  if (p == NULL || end == NULL || end <= p)
    snprintf(o->bench, sizeof o->bench, "%s", t);
  else
    snprintf(o->bench, sizeof o->bench, "%.*s", (int)(end - p - 1), p + 1);
  o->type[0] = '\0';
  o->ncols = 0;
  o->started = true;
  o->sizeless = false;
  o->rows = 0;
  o->pairs = o->window = 0;
  o->known = gcb__osu_op_of(o->bench);
  /* OSU's point-to-point tests need exactly two processes */
  o->ranks = o->known && o->known->kind == GCB__OSU_PT2PT ? 2 : o->next_ranks;
  o->next_ranks = 0;
}

/* "# Size   Avg Latency(us)   Min ..." (or osu_barrier's "# Avg
 * Latency(us) ..." without Size) split at runs of 2+ blanks. */
static bool columns(struct gcb__osu *o, const struct gcb__line *l) {
  size_t i = 0, n = 0;
  while (i < l->len && (l->at[i] == '#' || l->at[i] == ' '))
    i++;
  while (i < l->len && n < GCB__OSU_MAX_COLS) {
    size_t s = i;
    while (i < l->len &&
           !(l->at[i] == ' ' && i + 1 < l->len && l->at[i + 1] == ' ') &&
           l->at[i] != '\t')
      i++;
    size_t e = i;
    while (e > s && l->at[e - 1] == ' ')
      e--;
    if (e > s)
      snprintf(o->col[n++], sizeof o->col[0], "%.*s", (int)(e - s), l->at + s);
    while (i < l->len && (l->at[i] == ' ' || l->at[i] == '\t'))
      i++;
  }
  bool sized = n >= 2 && strcmp(o->col[0], "Size") == 0;
  bool sizeless = n >= 1 && strncmp(o->col[0], "Avg Latency", 11) == 0;
  if (!sized && !sizeless)
    return false;
  o->ncols = n;
  o->sizeless = sizeless;
  return true;
}

/* The unit in a column name: "(MB/s)", "Latency(us)"; "MB/s" alone. */
static void unit_of(const char *col, char *unit, size_t size) {
  const char *open = strrchr(col, '(');
  if (open != NULL)
    snprintf(unit, size, "%.*s", (int)strcspn(open + 1, ")"), open + 1);
  else
    snprintf(unit, size, "%s", strchr(col, '/') ? col : "count");
}

/* A table gcbench has no program for: one imported figure per numeric
 * column (tok[0] is the size, or the first value where sizeless). */
static enum gcb_status figure_row(struct gcb__osu *o, char **tok, double size,
                                  int line) {
  enum gcb_status st = GCB_OK;
  for (size_t c = o->sizeless ? 0 : 1; c < o->ncols && st == GCB_OK; c++) {
    double v;
    if (strcmp(o->col[c], "Iterations") == 0 || !gcb__token_number(tok[c], &v))
      continue;
    char unit[24], label[200];
    unit_of(o->col[c], unit, sizeof unit);
    snprintf(label, sizeof label, "OSU %s %.0fB: %s", o->bench, size,
             o->col[c]);
    json_t *p = json_pack("{s:f, s:s}", "size", size, "column", o->col[c]);
    st = gcb__conv_figure(o->cv, "OSU", o->bench, label, p, unit, v, line);
  }
  return st;
}

/* Whether every token is a number: a row of a table without sizes. */
static bool all_numbers(char **tok, size_t n) {
  double v;
  for (size_t i = 0; i < n; i++)
    if (!gcb__token_number(tok[i], &v))
      return false;
  return n > 0;
}

static enum gcb_status row(struct gcb__osu *o, const struct gcb__line *l,
                           size_t next) {
  char buf[512], *tok[GCB__MAX_TOKENS + 1];
  size_t n = gcb__line_tokens(l, buf, sizeof buf, tok);
  double size = 0;
  if (n > GCB__MAX_TOKENS)
    return GCB_OK; /* no OSU row has that many columns */
  if (o->sizeless ? !all_numbers(tok, n)
                  : n == 0 || !gcb__token_number(tok[0], &size) || size < 0 ||
                        size != floor(size))
    return GCB_OK; /* not a row: MPI warnings, blank lines */
  if (size > GCB__MAX_COUNT)
    return gcb__conv_bad_line(o->cv, l->number,
                              "%s: size %.3g B is not a message size (more "
                              "than 2^53)",
                              o->bench, size);
  if (n != o->ncols) {
    if (gcb__line_at_end(l, o->cv, next)) {
      o->cut_line = l->number;
      return GCB_OK;
    }
    return gcb__conv_bad_line(o->cv, l->number,
                              "%s: row %zu has %zu columns, expected %zu",
                              o->bench, o->rows + 1, n, o->ncols);
  }
  if (o->sizeless && o->rows > 0)
    return gcb__conv_bad_line(o->cv, l->number,
                              "%s: a second row in a table without sizes "
                              "(OSU prints one)",
                              o->bench);
  o->rows++;
  /* a known program's table has its columns: else kept as figures */
  bool known = o->known != NULL && o->known->sizeless == o->sizeless;
  return known ? gcb__osu_known_row(o, tok, size, l->number)
               : figure_row(o, tok, size, l->number);
}

/* A number after `key` in the line ("pairs:" 8), or -1. */
static long long number_after(const struct gcb__line *l, const char *key) {
  char buf[512], *tok[GCB__MAX_TOKENS + 1];
  size_t n = gcb__line_tokens(l, buf, sizeof buf, tok);
  double v;
  for (size_t i = 0; n <= GCB__MAX_TOKENS && i + 1 < n; i++)
    if (strcmp(tok[i], key) == 0 && gcb__token_number(tok[i + 1], &v) &&
        v >= 1 && v <= 1 << 24 && v == floor(v))
      return (long long)v;
  return -1;
}

/* "mpirun -np 16 ./osu_mbw_mr", "mpiexec -n 2 ...", "srun --ntasks=8":
 * the rank count of the benchmark that follows, or 0. */
static long long launcher_ranks(const struct gcb__line *l) {
  static const char *const launchers[] = {"mpirun", "mpiexec", "srun",
                                          "orterun"};
  static const char *const flags[] = {"-np", "-n", "--np", "--n", "--ntasks"};
  char buf[512], *tok[GCB__MAX_TOKENS + 1];
  size_t n = gcb__line_tokens(l, buf, sizeof buf, tok), i = 0;
  for (bool found = false; n <= GCB__MAX_TOKENS && i < n && !found; i++) {
    const char *base = gcb__conv_base_name(tok[i]);
    for (size_t k = 0; k < sizeof launchers / sizeof *launchers; k++)
      found = found || strcmp(base, launchers[k]) == 0;
  }
  for (; n <= GCB__MAX_TOKENS && i < n; i++)
    for (size_t k = 0; k < sizeof flags / sizeof *flags; k++) {
      size_t f = strlen(flags[k]);
      const char *v = NULL;
      if (strcmp(tok[i], flags[k]) == 0 && i + 1 < n)
        v = tok[i + 1];
      else if (strncmp(tok[i], flags[k], f) == 0 && tok[i][f] == '=')
        v = tok[i] + f + 1;
      double x;
      if (v != NULL && gcb__token_number(v, &x) && x >= 1 && x <= 1 << 24 &&
          x == floor(x))
        return (long long)x;
    }
  return 0;
}

/* "# Datatype: MPI_INT." as "int"; the line's own bytes only: a line is
 * not NUL-terminated. */
static void datatype(struct gcb__osu *o, const struct gcb__line *l) {
  const char *t = l->at;
  while (*t == ' ' || *t == '\t') /* as gcb__line_starts skips them */
    t++;
  t += strlen("# Datatype: MPI_");
  size_t k = 0;
  while (k + 1 < sizeof o->type && t + k < l->at + l->len &&
         isalpha((unsigned char)t[k])) {
    o->type[k] = (char)tolower((unsigned char)t[k]);
    k++;
  }
  o->type[k] = '\0';
}

static enum gcb_status line(struct gcb__osu *o, const struct gcb__line *l,
                            size_t next) {
  if (gcb__line_starts(l, "# OSU ")) {
    title(o, l);
    return GCB_OK;
  }
  long long ranks = launcher_ranks(l);
  if (ranks > 0) {
    o->next_ranks = ranks;
    return GCB_OK;
  }
  if (!o->started)
    return GCB_OK;
  if (gcb__line_starts(l, "# Datatype: MPI_")) {
    datatype(o, l);
    return GCB_OK;
  }
  if (gcb__line_starts(l, "# [ pairs:")) {
    o->pairs = number_after(l, "pairs:");
    o->window = number_after(l, "size:");
    if (o->pairs > 0 && o->ranks == 0)
      o->ranks = 2 * o->pairs; /* osu_mbw_mr: pairs = numprocs / 2 */
    return GCB_OK;
  }
  if (gcb__line_starts(l, "# Size") || gcb__line_starts(l, "#Size") ||
      (o->ncols == 0 && gcb__line_starts(l, "# Avg Latency")))
    return columns(o, l)
               ? GCB_OK
               : gcb__conv_bad_line(o->cv, l->number, "unreadable column line");
  if (o->ncols > 0 && o->ranks > o->max_ranks)
    o->max_ranks = o->ranks;
  return o->ncols > 0 ? row(o, l, next) : GCB_OK;
}

/* The file ends inside a row: the rows before stay, the cut is said. */
static enum gcb_status cut(struct gcb__osu *o) {
  char msg[200];
  snprintf(msg, sizeof msg,
           "the output ends at line %d inside a row of %s (a timeout or a "
           "truncated copy): the rows before are kept",
           o->cut_line, o->bench);
  return gcb__conv_timeout(o->cv, "osu", o->bench, msg);
}

static enum gcb_status convert(struct gcb__conv *cv, const json_t *root) {
  (void)root;
  struct gcb__osu o = {.cv = cv};
  gcb__conv_run(cv, "OSU");
  size_t pos = 0;
  int number = 0;
  struct gcb__line l;
  enum gcb_status st = GCB_OK;
  while (st == GCB_OK && o.cut_line == 0 &&
         gcb__line_next(cv->text, cv->len, &pos, &number, &l))
    st = line(&o, &l, pos);
  if (st == GCB_OK && o.cut_line)
    st = cut(&o);
  if (st == GCB_OK && cv->m->ncases == 0 && cv->m->nskips == 0)
    st = gcb__conv_bad_line(cv, number, "no result rows");
  gcb__conv_run_set(cv, "ranks", gcb__mvalue_int(o.max_ranks));
  return st;
}

const struct gcb__converter gcb__row_osu = {"OSU", GCB_FORMAT_OSU, false,
                                            detect, convert};
