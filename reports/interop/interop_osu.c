/*
 * OSU micro-benchmarks stdout, one benchmark or several concatenated:
 * "# OSU MPI Allreduce Latency Test v7.1", optional lines such as
 * "# Datatype: MPI_CHAR." or "# [ pairs: 48 ] [ window size: 64 ]", a
 * column line ("# Size      Bandwidth (MB/s)"; with -f "# Size  Avg
 * Latency(us)  Min Latency(us)  Max Latency(us)  Iterations"; with -c a
 * "Validation" column), then rows. Columns are separated by two or more
 * blanks, as OSU prints them.
 *
 * Collectives that gcbench's coll benchmark also runs (allreduce,
 * allgather, alltoall, broadcast, reduce, reduce-scatter, gather,
 * scatter) become "coll" cases: the average latency is the time (min and
 * max over ranks with -f), algbw is size / time; OSU prints neither the
 * rank count nor a bus bandwidth, so none is made up. Every other column
 * (point-to-point bandwidth and latency, message rates, barriers,
 * non-blocking variants) is an imported figure with OSU's name and unit.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/interop/interop_coll.h"

#define MAX_COLS 12

struct osu {
  struct gcb__conv *cv;
  json_t *doc;
  char bench[96];         /* "Allreduce Latency", from the title line */
  char op[32];            /* gcbench's name when it is a collective, or "" */
  char type[24];          /* from "# Datatype: MPI_INT." */
  char col[MAX_COLS][40]; /* column names, [0] "Size" */
  size_t ncols;
  bool started;
  size_t rows;
  int cut_line;
};

/* OSU's collective titles and gcbench's operation names; longest first. */
static const struct {
  const char *title, *op;
} collectives[] = {
    {"Reduce_scatter Latency", "reducescatter"},
    {"Reduce Scatter Latency", "reducescatter"},
    {"All-to-All Personalized Exchange Latency", "alltoall"},
    {"All-to-All Latency", "alltoall"},
    {"Allreduce Latency", "allreduce"},
    {"Allgather Latency", "allgather"},
    {"Broadcast Latency", "broadcast"},
    {"Reduce Latency", "reduce"},
    {"Gather Latency", "gather"},
    {"Scatter Latency", "scatter"},
};

static int detect(const struct gcb__sniff *s, char *why, size_t size) {
  size_t win = s->len < GCB__DETECT_WINDOW ? s->len : GCB__DETECT_WINDOW;
  if (gcb__text_has(s->text, win, "# OSU ", win))
    return 70;
  snprintf(why, size, "no \"# OSU ... Test\" title");
  return 0;
}

/* "# OSU MPI Allreduce Latency Test v5.7.1" (also "MPI-CUDA", "OpenSHMEM"). */
static void title(struct osu *o, const struct gcb__line *l) {
  char t[160];
  snprintf(t, sizeof t, "%.*s", (int)(l->len < 159 ? l->len : 159), l->at);
  char *p = strstr(t, "OSU "), *end = strstr(t, " Test");
  p = p ? strchr(p + 4, ' ') : NULL; /* past "OSU MPI" */
  if (p == NULL || end == NULL || end <= p)
    snprintf(o->bench, sizeof o->bench, "%s", t);
  else
    snprintf(o->bench, sizeof o->bench, "%.*s", (int)(end - p - 1), p + 1);
  o->op[0] = o->type[0] = '\0';
  o->ncols = 0;
  o->started = true;
  o->rows = 0;
  for (size_t i = 0; i < sizeof collectives / sizeof *collectives; i++)
    if (strcmp(o->bench, collectives[i].title) == 0)
      snprintf(o->op, sizeof o->op, "%s", collectives[i].op);
}

/* "# Size   Avg Latency(us)   Min ..." split at runs of 2+ blanks. */
static bool columns(struct osu *o, const struct gcb__line *l) {
  size_t i = 0, n = 0;
  while (i < l->len && (l->at[i] == '#' || l->at[i] == ' '))
    i++;
  while (i < l->len && n < MAX_COLS) {
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
  if (n < 2 || strcmp(o->col[0], "Size") != 0)
    return false;
  o->ncols = n;
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

static int find_col(const struct osu *o, const char *prefix) {
  for (size_t i = 1; i < o->ncols; i++)
    if (strncmp(o->col[i], prefix, strlen(prefix)) == 0)
      return (int)i;
  return -1;
}

/* A collective's row as a coll case. */
static enum gcb_status coll_row(struct osu *o, char **tok, double size,
                                int line) {
  int avg = find_col(o, "Avg Latency"), mn = find_col(o, "Min Latency"),
      mx = find_col(o, "Max Latency"), it = find_col(o, "Iterations"),
      val = find_col(o, "Validation");
  avg = avg < 0 ? 1 : avg;
  struct gcb__coll_row r = {.size = size, .root = -1, .line = line};
  bool reduces = strstr(o->op, "reduce") != NULL;
  const char *type = o->type[0] ? o->type : reduces ? "float" : "char";
  double bytes = strcmp(type, "char") == 0     ? 1
                 : strcmp(type, "double") == 0 ? 8
                                               : 4;
  snprintf(r.type, sizeof r.type, "%s", type);
  snprintf(r.redop, sizeof r.redop, "%s", reduces ? "sum" : "");
  r.count = floor(size / bytes);
  struct gcb__coll_half *h = &r.half[0];
  *h = (struct gcb__coll_half){.present = true, .alg = NAN, .bus = NAN};
  gcb__token_number(tok[avg], &h->us);
  if (mn > 0)
    gcb__token_number(tok[mn], &h->us_min);
  if (mx > 0)
    gcb__token_number(tok[mx], &h->us_max);
  double iters = 0;
  if (it > 0 && gcb__token_number(tok[it], &iters) && iters >= 0 &&
      iters < 9e15)
    r.iterations = (long long)iters;
  if (val > 0) {
    h->checked = true;
    h->wrong = strcmp(tok[val], "Pass") != 0;
  }
  return gcb__coll_row_cases(o->cv, o->doc, o->op, &r, 0, 0, 0, "OSU -c");
}

/* Any other row: one imported figure per numeric column. */
static enum gcb_status figure_row(struct osu *o, char **tok, double size,
                                  int line) {
  enum gcb_status st = GCB_OK;
  for (size_t c = 1; c < o->ncols && st == GCB_OK; c++) {
    double v;
    if (strcmp(o->col[c], "Iterations") == 0 || !gcb__token_number(tok[c], &v))
      continue;
    char unit[24], label[200];
    unit_of(o->col[c], unit, sizeof unit);
    snprintf(label, sizeof label, "OSU %s %.0fB: %s", o->bench, size,
             o->col[c]);
    json_t *p = json_pack("{s:f, s:s}", "size", size, "column", o->col[c]);
    st = gcb__conv_add(o->cv, o->doc, "cases",
                       gcb__conv_figure("OSU", o->bench, label, p, unit, v),
                       line);
  }
  return st;
}

static enum gcb_status row(struct osu *o, const struct gcb__line *l,
                           size_t next) {
  char buf[512], *tok[GCB__MAX_TOKENS + 1];
  size_t n = gcb__line_tokens(l, buf, sizeof buf, tok);
  double size;
  if (n == 0 || !gcb__token_number(tok[0], &size) || size < 0 ||
      size != floor(size))
    return GCB_OK; /* not a row: MPI warnings, blank lines */
  if (size > GCB__MAX_COUNT)
    return gcb__conv_bad_line(o->cv, l->number,
                              "%s: size %.3g B is not a message size (more "
                              "than 2^53)",
                              o->bench, size);
  if (n != o->ncols) {
    bool rest_blank = true;
    for (size_t p = next; p < o->cv->len && rest_blank; p++)
      rest_blank = isspace((unsigned char)o->cv->text[p]);
    if (l->last || rest_blank) {
      o->cut_line = l->number;
      return GCB_OK;
    }
    return gcb__conv_bad_line(o->cv, l->number,
                              "%s: row %zu has %zu columns, expected %zu",
                              o->bench, o->rows + 1, n, o->ncols);
  }
  o->rows++;
  return o->op[0] ? coll_row(o, tok, size, l->number)
                  : figure_row(o, tok, size, l->number);
}

static enum gcb_status line(struct osu *o, const struct gcb__line *l,
                            size_t next) {
  if (gcb__line_starts(l, "# OSU ")) {
    title(o, l);
    return GCB_OK;
  }
  if (!o->started)
    return GCB_OK;
  if (gcb__line_starts(l, "# Datatype: MPI_")) {
    /* the line's own bytes only: a line is not NUL-terminated */
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
    return GCB_OK;
  }
  if (gcb__line_starts(l, "# Size") || gcb__line_starts(l, "#Size"))
    return columns(o, l)
               ? GCB_OK
               : gcb__conv_bad_line(o->cv, l->number, "unreadable column line");
  return o->ncols > 0 ? row(o, l, next) : GCB_OK;
}

static enum gcb_status convert(struct gcb__conv *cv, const json_t *root,
                               json_t **doc) {
  (void)root;
  struct osu o = {.cv = cv};
  char reason[600];
  snprintf(reason, sizeof reason, "converted from OSU output (%s)", cv->name);
  o.doc = gcb__conv_doc(gcb__conv_base_name(cv->name), "OSU", "", NULL, "", "",
                        reason, 0, 0);
  if (o.doc == NULL)
    return gcb__conv_nomem(cv);
  size_t pos = 0;
  int number = 0;
  struct gcb__line l;
  enum gcb_status st = GCB_OK;
  while (st == GCB_OK && o.cut_line == 0 &&
         gcb__line_next(cv->text, cv->len, &pos, &number, &l))
    st = line(&o, &l, pos);
  if (st == GCB_OK && o.cut_line) {
    char msg[200];
    snprintf(msg, sizeof msg,
             "the output ends at line %d inside a row of %s (a timeout or a "
             "truncated copy): the rows before are kept",
             o.cut_line, o.bench);
    json_t *run = json_object_get(o.doc, "run");
    json_object_set_new(run, "status", json_string("timeout"));
    json_object_set_new(run, "end_time", json_null());
    st = gcb__conv_add(cv, o.doc, "errors",
                       gcb__conv_error("osu", o.bench, "ETIMEOUT", msg), 0);
  }
  if (st == GCB_OK && json_array_size(json_object_get(o.doc, "cases")) == 0 &&
      json_array_size(json_object_get(o.doc, "skipped")) == 0)
    st = gcb__conv_bad_line(cv, number, "no result rows");
  *doc = st == GCB_OK ? o.doc : NULL;
  if (st != GCB_OK)
    json_decref(o.doc);
  return st;
}

const struct gcb__converter gcb__row_osu = {"OSU", GCB_FORMAT_OSU, false,
                                            detect, convert};
