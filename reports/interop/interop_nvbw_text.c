/*
 * nvbandwidth's stdout, every release from v0.2 on: a preamble
 * ("nvbandwidth Version: v0.8", "CUDA Runtime Version: 12040", "Driver
 * Version: ...", "Device 0: NVIDIA H200 (00000000:19:00)" from v0.5 on,
 * without a bus id before), then per testcase "Running NAME.", one or more
 * matrices (a description "memcpy CE CPU(row) -> GPU(column) bandwidth
 * (GB/s)" or "memory latency SM CPU(row) <-> GPU(column) (ns)", a line of
 * column indices, rows "i v v v" with N/A where there is no value) and
 * "SUM NAME value"; "Waived:" for a testcase that did not run (named only
 * by the Running line before it, if any). Pasted excerpts may lack the
 * Running line: SUM names the testcase then. What each testcase becomes:
 * interop_nvbw.c. A row whose cells do not match the column line is an
 * error at its line, unless the file ends there (a cut output: the rows
 * before are kept and the cut is said).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/interop/interop_nvbw.h"

struct text {
  struct gcb__nvbw *x;
  char name[128];    /* the testcase being read ("" until named) */
  size_t matrices;   /* finished matrices of this testcase */
  bool in_matrix;    /* a description seen, its rows being read */
  bool have_columns; /* the column index line seen */
  size_t columns;
  int cut_line;
};

static bool is_description(const struct gcb__line *l) {
  return gcb__line_has(l, "(row)") && gcb__line_has(l, "(column)");
}

static int detect(const struct gcb__sniff *s, char *why, size_t size) {
  size_t win = s->len < GCB__DETECT_WINDOW ? s->len : GCB__DETECT_WINDOW;
  size_t pos = 0;
  int number = 0;
  struct gcb__line l;
  bool version = gcb__text_has(s->text, win, "nvbandwidth Version", win);
  while (pos < win && gcb__line_next(s->text, win, &pos, &number, &l))
    if (is_description(&l))
      return version ? 70 : 50;
  snprintf(why, size, "no \"... CPU(row) -> GPU(column) ...\" matrix");
  return 0;
}

/* The finished matrix of the current testcase (primary: its last). */
static enum gcb_status end_matrix(struct text *t, bool primary, int line) {
  enum gcb_status st = GCB_OK;
  if (t->in_matrix && t->x->m.rows > 0)
    st = gcb__nvbw_emit(t->x, t->name[0] ? t->name : "unnamed testcase",
                        primary, t->matrices, line);
  t->matrices += t->in_matrix;
  t->in_matrix = t->have_columns = false;
  return st;
}

/* "SUM NAME value": names an unnamed testcase, and ends it. */
static enum gcb_status sum_line(struct text *t, char **tok, size_t n,
                                int line) {
  double v;
  if (n != 3 || !gcb__token_number(tok[2], &v))
    return GCB_OK;
  if (t->name[0] == '\0')
    snprintf(t->name, sizeof t->name, "%s", tok[1]);
  enum gcb_status st = end_matrix(t, true, line);
  if (st == GCB_OK)
    st = gcb__nvbw_sum(t->x, t->name, v, line);
  t->name[0] = '\0';
  t->matrices = 0;
  return st;
}

/* A line of a matrix: the column indices, or a row "i v v ...". */
static enum gcb_status matrix_line(struct text *t, const struct gcb__line *l,
                                   char **tok, size_t n, size_t next) {
  double v[GCB__NVBW_MAX_GPUS + 1], idx;
  for (size_t i = 0; i < n; i++) {
    bool na = strcmp(tok[i], "N/A") == 0;
    if (!na && !gcb__token_number(tok[i], &v[i]))
      return GCB_OK; /* not a matrix line: stray text */
    v[i] = na ? NAN : v[i];
  }
  if (!t->have_columns) {
    t->have_columns = true;
    t->columns = n;
    return GCB_OK;
  }
  /* A figure out of range is an error wherever it is, not a cut. */
  char why[128];
  if (gcb__nvbw_value_bad(v + 1, n - 1, 0, why, sizeof why))
    return gcb__conv_bad_line(t->x->cv, l->number, "%s: row %zu: %s",
                              t->name[0] ? t->name : "matrix", t->x->m.rows,
                              why);
  const char *bad = NULL;
  if (!gcb__token_number(tok[0], &idx) || idx != (double)t->x->m.rows)
    bad = "the row does not follow the one before";
  else if (n - 1 != t->columns) {
    static char why[96];
    snprintf(why, sizeof why, "row %zu has %zu values, expected %zu",
             t->x->m.rows, n - 1, t->columns);
    bad = why;
  } else
    bad = gcb__nvbw_matrix_row(t->x, v + 1, n - 1);
  if (bad == NULL)
    return GCB_OK;
  if (gcb__line_at_end(l, t->x->cv, next)) {
    t->cut_line = l->number;
    return GCB_OK;
  }
  return gcb__conv_bad_line(t->x->cv, l->number, "%s: %s",
                            t->name[0] ? t->name : "matrix", bad);
}

/* The preamble: version, CUDA, driver, devices. */
static void preamble(struct text *t, const struct gcb__line *l) {
  char buf[256];
  snprintf(buf, sizeof buf, "%.*s", (int)(l->len < 255 ? l->len : 255), l->at);
  struct gcb__conv *cv = t->x->cv;
  const char *v;
  unsigned idx;
  int at = 0;
  if ((v = strstr(buf, "nvbandwidth Version: ")) != NULL)
    cv->m->run.version = gcb__model_str(cv->m, v + 21);
  else if (strncmp(buf, "Driver Version: ", 16) == 0)
    gcb__conv_software(cv, "cuda_driver", buf + 16);
  else if (strncmp(buf, "CUDA Runtime Version: ", 22) == 0)
    gcb__nvbw_cuda(t->x, strtoll(buf + 22, NULL, 10));
  else if (sscanf(buf, "Device %u: %n", &idx, &at) == 1 && at > 0 &&
           idx < GCB__NVBW_MAX_GPUS && idx == t->x->ngpus) {
    struct gcb__nvbw_gpu *g = &t->x->gpu[idx];
    if (!gcb__nvbw_parse_device(buf + at, false, g))
      snprintf(g->name, sizeof g->name, "%s", buf + at);
    t->x->ngpus = idx + 1;
  }
}

static enum gcb_status text_line(struct text *t, const struct gcb__line *l,
                                 size_t next) {
  char buf[8192], *tok[GCB__MAX_TOKENS + 1];
  char desc[160];
  size_t n = gcb__line_tokens(l, buf, sizeof buf, tok);
  enum gcb_status st = GCB_OK;
  if (is_description(l)) {
    st = end_matrix(t, false, l->number);
    snprintf(desc, sizeof desc, "%.*s", (int)(l->len < 159 ? l->len : 159),
             l->at);
    gcb__nvbw_matrix_start(t->x, desc);
    t->in_matrix = true;
  } else if (n == 2 && strcmp(tok[0], "Running") == 0) {
    st = end_matrix(t, true, l->number);
    snprintf(t->name, sizeof t->name, "%.*s", (int)strcspn(tok[1], "."),
             tok[1]);
    t->matrices = 0;
  } else if (n >= 1 && strcmp(tok[0], "Waived:") == 0) {
    st = gcb__conv_skip(t->x->cv, "nvbandwidth",
                        t->name[0] ? t->name : "a testcase",
                        "nvbandwidth waived it (it does not name which)", 0);
    t->name[0] = '\0';
  } else if (n >= 1 && strcmp(tok[0], "SUM") == 0)
    st = sum_line(t, tok, n, l->number);
  else if (t->in_matrix && n > GCB__NVBW_MAX_GPUS + 1)
    st = gcb__conv_bad_line(t->x->cv, l->number,
                            "more than %d columns in a matrix row",
                            GCB__NVBW_MAX_GPUS);
  else if (t->in_matrix && n > 0)
    st = matrix_line(t, l, tok, n, next);
  else
    preamble(t, l);
  return st;
}

static enum gcb_status convert(struct gcb__conv *cv, const json_t *root) {
  (void)root;
  struct gcb__nvbw *x = calloc(1, sizeof *x);
  struct text t = {.x = x};
  if (x == NULL)
    return gcb__conv_nomem(cv);
  enum gcb_status st = GCB_OK;
  gcb__nvbw_begin(x, cv, "");
  size_t pos = 0;
  int number = 0;
  struct gcb__line l;
  while (st == GCB_OK && t.cut_line == 0 &&
         gcb__line_next(cv->text, cv->len, &pos, &number, &l))
    st = text_line(&t, &l, pos);
  if (st == GCB_OK)
    st = end_matrix(&t, true, number);
  if (st == GCB_OK && t.cut_line) {
    char msg[200];
    snprintf(msg, sizeof msg,
             "the output ends at line %d inside a matrix of %s (a timeout or "
             "a truncated copy): its finished rows are kept",
             t.cut_line, t.name[0] ? t.name : "a testcase");
    st = gcb__conv_timeout(cv, "nvbandwidth", "output", msg);
  }
  return gcb__nvbw_end(x, st);
}

const struct gcb__converter gcb__row_nvbw_text = {
    "nvbandwidth text", GCB_FORMAT_NVBANDWIDTH, false, detect, convert};
