/*
 * nccl-tests and rccl-tests stdout (every 2.x layout) as a gcbench
 * document: the header lines (nThread, the device list), then per test a
 * column header ("# size count type [redop] [root] time algbw busbw
 * #wrong|error ..." for out-of-place and in-place), its rows, and the
 * summary ("# Out of bounds values", "# Avg bus bandwidth"). Several tests
 * may follow each other in one file; whatever launchers and libraries
 * print between (NCCL INFO/WARN lines, MPI warnings, markdown) is passed
 * over. Each half of each row becomes a "coll" case laid out as gcbench's
 * own coll benchmark writes it (interop_coll_case.c); the Avg bus
 * bandwidth an imported figure, nameable in criteria.
 *
 * The columns are read by the header's names, not positions: layouts
 * before 2.13 have no root column (broadcast and reduce print one, with
 * no redop for broadcast), alltoall left its redop blank, newer ones add
 * "root" and say "#wrong". The operation is the program's name where the
 * file says it (a command line, rccl-tests' "Collective test concluded:",
 * a "==== all_reduce_perf" separator); otherwise it is inferred from the
 * columns and the busbw/algbw factor, and called "unnamed" where those do
 * not decide it. A log that ends inside a test (a timeout, a truncated
 * paste) keeps its finished rows, says where it was cut, and reads as a
 * run that timed out.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/document/topo_view.h"
#include "reports/document/view.h"
#include "reports/interop/interop_coll.h"

/* Whether tok names a column header: "size", "count", "type"... */
static bool header_line(char **tok, size_t n) {
  size_t i = n > 0 && strcmp(tok[0], "#") == 0;
  return n >= i + 7 && strcmp(tok[i], "size") == 0 &&
         strcmp(tok[i + 1], "count") == 0 && strcmp(tok[i + 2], "type") == 0;
}

static int detect_log(const struct gcb__sniff *s, char *why, size_t size,
                      bool rccl) {
  size_t pos = 0,
         win = s->len < GCB__DETECT_WINDOW ? s->len : GCB__DETECT_WINDOW;
  int number = 0;
  struct gcb__line l;
  char buf[512], *tok[GCB__MAX_TOKENS];
  bool marker = gcb__text_has(s->text, win, "rccl-tests", win) ||
                gcb__text_has(s->text, win, "RCCL version", win) ||
                gcb__text_has(s->text, win, "AMD Instinct", win);
  while (pos < win && gcb__line_next(s->text, win, &pos, &number, &l)) {
    size_t n = gcb__line_tokens(&l, buf, sizeof buf, tok);
    if (n <= GCB__MAX_TOKENS && header_line(tok, n))
      return rccl == marker ? 70 : rccl ? 0 : 40;
  }
  if (rccl && !marker)
    snprintf(why, size, "no rccl-tests marker");
  else
    snprintf(why, size, "no column header \"# size count type ...\"");
  return 0;
}

static int nccl_detect(const struct gcb__sniff *s, char *why, size_t size) {
  return detect_log(s, why, size, false);
}

static int rccl_detect(const struct gcb__sniff *s, char *why, size_t size) {
  return detect_log(s, why, size, true);
}

/* ---- the header of a test ----------------------------------------------- */

/* The layout of a column header; false when it is not one. */
static bool read_header(char **tok, size_t n, struct gcb__coll_table *t) {
  size_t i = strcmp(tok[0], "#") == 0;
  *t = (struct gcb__coll_table){.nleft = 3};
  for (i += 3; i < n && strcmp(tok[i], "time") != 0; i++) {
    if (strcmp(tok[i], "redop") == 0 && !t->has_redop && !t->has_root)
      t->has_redop = true;
    else if (strcmp(tok[i], "root") == 0 && !t->has_root)
      t->has_root = true;
    else
      return false;
    t->nleft++;
  }
  size_t right = n - i;
  if (right != 4 && right != 8)
    return false;
  for (size_t h = 0; h < right / 4; h++) {
    char **q = tok + i + 4 * h;
    if (strcmp(q[0], "time") != 0 || strcmp(q[1], "algbw") != 0 ||
        strcmp(q[2], "busbw") != 0 ||
        (strcmp(q[3], "#wrong") != 0 && strcmp(q[3], "error") != 0))
      return false;
  }
  t->halves = right / 4;
  return true;
}

/* "#  Rank  3 Group  0 Pid  6902 on host device  3 [0000:0c:00] NAME". */
static enum gcb_status device_line(struct gcb__coll_log *x, char **tok,
                                   size_t n) {
  long long rank = -1, pid = 0, dev = -1;
  const char *host = "unknown", *bus = "";
  size_t i = 0, name = n;
  for (; i + 1 < n; i++) {
    if (strcmp(tok[i], "Rank") == 0)
      rank = strtoll(tok[i + 1], NULL, 10);
    else if (strcmp(tok[i], "Pid") == 0)
      pid = strtoll(tok[i + 1], NULL, 10);
    else if (strcmp(tok[i], "on") == 0)
      host = tok[i + 1];
    else if (strcmp(tok[i], "device") == 0) {
      dev = strtoll(tok[i + 1], NULL, 10);
      if (i + 2 < n && tok[i + 2][0] == '[') {
        bus = tok[i + 2];
        name = i + 3;
      }
      break;
    }
  }
  if (rank < 0 || rank > 1 << 20)
    return GCB_OK;
  char gpu[128] = "", canon[32] = "", raw[40];
  for (size_t k = name; k < n; k++)
    snprintf(gpu + strlen(gpu), sizeof gpu - strlen(gpu), "%s%s",
             k > name ? " " : "", tok[k]);
  snprintf(raw, sizeof raw, "%.*s", (int)strcspn(bus + (bus[0] == '['), "]"),
           bus + (bus[0] == '['));
  if (strchr(raw, ':') == NULL || !gcb_busid_canon(raw, canon, sizeof canon))
    canon[0] = '\0'; /* "[0x00]": the bus number alone says nothing */
  return gcb__coll_add_rank(x, rank, host, pid, gpu, canon, dev);
}

/* "nThread 1 nGpus 8 ... warmup iters: 5 iters: 20 ... validation: 1". */
static void threads_line(struct gcb__coll_log *x, char **tok, size_t n) {
  for (size_t i = 1; i + 1 < n; i++) {
    long long v = strtoll(tok[i + 1], NULL, 10);
    if (strcmp(tok[i], "nGpus") == 0)
      x->ngpus = v;
    else if (strcmp(tok[i], "iters:") != 0 || strcmp(tok[i - 1], "agg") == 0)
      continue;
    else if (strcmp(tok[i - 1], "warmup") == 0)
      x->warmup = v;
    else
      x->iterations = v;
  }
}

/* The operation from a token naming a program: ".../all_reduce_perf_mpi"
 * is "allreduce"; false when tok names none. */
static bool op_from(const char *tok, char *op, size_t size) {
  const char *end = strstr(tok, "_perf"), *base = tok;
  if (end == NULL || end == tok)
    return false;
  for (const char *p = tok; p < end; p++)
    if (*p == '/' || !(isalnum((unsigned char)*p) || *p == '_'))
      base = p + 1;
  size_t k = 0;
  for (const char *p = base; p < end && k + 1 < size; p++)
    if (*p != '_')
      op[k++] = (char)tolower((unsigned char)*p);
  op[k] = '\0';
  return k > 0;
}

/* ---- lines -------------------------------------------------------------- */

/* "# Avg bus bandwidth    : 70.742" and "# Out of bounds values : 0 OK". */
static void summary_line(struct gcb__coll_log *x, char **tok, size_t n,
                         int line) {
  double v;
  if (n >= 6 && strcmp(tok[1], "Avg") == 0 && strcmp(tok[2], "bus") == 0 &&
      strcmp(tok[4], ":") == 0 && gcb__token_number(tok[5], &v)) {
    x->table.avg_busbw = v;
    x->table.has_avg = true;
    x->table.avg_line = line;
    x->table.closed = true;
  } else if (n >= 7 && strcmp(tok[1], "Out") == 0 &&
             strcmp(tok[3], "bounds") == 0 && gcb__token_number(tok[6], &v)) {
    x->table.out_of_bounds = gcb__conv_ll(v, 0);
  }
}

/* A '#' or plain line that is not a row: header, devices, summaries. */
static enum gcb_status other_line(struct gcb__coll_log *x,
                                  const struct gcb__line *l, char **tok,
                                  size_t n) {
  enum gcb_status st = GCB_OK;
  struct gcb__coll_table t;
  size_t i = n > 0 && strcmp(tok[0], "#") == 0;
  for (size_t k = 0; k < n; k++) {
    char op[32];
    if (!op_from(tok[k], op, sizeof op))
      continue;
    bool concluded = gcb__line_has(l, "test concluded");
    if (concluded && x->table.started)
      snprintf(x->table.op, sizeof x->table.op, "%s", op);
    else if (!x->table.started || x->table.closed)
      snprintf(x->next_op, sizeof x->next_op, "%s", op);
    break;
  }
  if (header_line(tok, n) && read_header(tok, n, &t)) {
    st = gcb__coll_table_end(x);
    t.started = true;
    t.line = l->number;
    snprintf(t.op, sizeof t.op, "%s", x->next_op);
    x->next_op[0] = '\0';
    x->table = t;
  } else if (n > i + 1 && strcmp(tok[i], "Rank") == 0)
    st = device_line(x, tok, n);
  else if (n > i + 1 && strcmp(tok[i], "nThread") == 0)
    threads_line(x, tok, n);
  else if (n >= 3 && i == 1 && x->table.started)
    summary_line(x, tok, n, l->number);
  if (n >= 3 && (strcmp(tok[i], "NCCL") == 0 || strcmp(tok[i], "RCCL") == 0) &&
      strcmp(tok[i + 1], "version") == 0)
    snprintf(x->lib_version, sizeof x->lib_version, "%.*s",
             (int)strcspn(tok[i + 2], "+"), tok[i + 2]);
  if (n >= 4 && strcmp(tok[0], "rccl-tests:") == 0 &&
      strcmp(tok[1], "Version") == 0)
    snprintf(x->tool_version, sizeof x->tool_version, "%s", tok[2]);
  return st;
}

static enum gcb_status row_line(struct gcb__coll_log *x,
                                const struct gcb__line *l, char **tok, size_t n,
                                size_t next) {
  struct gcb__coll_table *t = &x->table;
  size_t want = t->nleft + 4 * t->halves;
  struct gcb__coll_row r;
  const char *bad = n == want || (n + 1 == want && t->has_redop)
                        ? gcb__coll_row_read(t, tok, n, &r)
                        : "columns";
  if (bad == NULL)
    return gcb__coll_row_add(x, &r, l->number);
  if (gcb__line_at_end(l, x->cv, next)) {
    x->cut_line = l->number; /* the file ends inside this row */
    return GCB_OK;
  }
  if (strcmp(bad, "columns") == 0)
    return gcb__conv_bad_line(x->cv, l->number,
                              "row %zu has %zu columns, expected %zu",
                              t->rows + 1, n, want);
  return gcb__conv_bad_line(x->cv, l->number, "row %zu: %s", t->rows + 1, bad);
}

/* Whether a line is a row of numbers: its first token is a size. */
static bool is_row(char **tok, size_t n) {
  if (n == 0)
    return false;
  for (const char *p = tok[0]; *p; p++)
    if (!isdigit((unsigned char)*p))
      return false;
  return true;
}

static enum gcb_status convert(struct gcb__conv *cv, const json_t *root) {
  (void)root;
  struct gcb__coll_log *x = calloc(1, sizeof *x);
  if (x == NULL)
    return gcb__conv_nomem(cv);
  size_t pos = 0;
  int number = 0;
  struct gcb__line l;
  char buf[1024], *tok[GCB__MAX_TOKENS + 1];
  enum gcb_status st = GCB_OK;
  gcb__coll_log_begin(x, cv);
  while (st == GCB_OK && x->cut_line == 0 &&
         gcb__line_next(cv->text, cv->len, &pos, &number, &l)) {
    size_t n = gcb__line_tokens(&l, buf, sizeof buf, tok);
    if (n > GCB__MAX_TOKENS)
      continue; /* no line of these tools has that many words */
    if (x->table.started && !x->table.closed && is_row(tok, n))
      st = row_line(x, &l, tok, n, pos);
    else
      st = other_line(x, &l, tok, n);
  }
  if (st == GCB_OK)
    st = gcb__coll_log_end(x, number);
  gcb__coll_log_free(x);
  return st;
}

const struct gcb__converter gcb__row_nccl_log = {
    "nccl-tests log", GCB_FORMAT_NCCL_TESTS, false, nccl_detect, convert};
const struct gcb__converter gcb__row_rccl_log = {
    "rccl-tests log", GCB_FORMAT_RCCL_TESTS, false, rccl_detect, convert};
