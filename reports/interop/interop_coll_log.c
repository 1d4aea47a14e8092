/*
 * nccl-tests and rccl-tests stdout (every 2.x layout) as a gcbench
 * document: the header lines (nThread, the device list), then per test a
 * column header ("# size count type [redop] [root] time algbw busbw
 * #wrong|error ..." for out-of-place and in-place), its rows, and the
 * summary ("# Out of bounds values", "# Avg bus bandwidth"). Several tests
 * may follow each other in one file; whatever launchers and libraries
 * print between (NCCL INFO/WARN lines, MPI warnings, markdown) is passed
 * over. Each half of each row becomes a "coll" case laid out as gcbench's
 * own coll benchmark writes it (interop_build.c); the Avg bus
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

#include "common/busid.h"
#include "common/grow.h"
#include "reports/interop/interop_int.h"

/* One test of a log: its column header's layout and its rows so far. */
struct gcb__coll_table {
  bool started, closed; /* header seen; summary ("Avg bus") seen */
  bool has_redop, has_root, has_avg;
  bool has_oob;    /* "# Out of bounds values" seen */
  bool avg_failed; /* "# Avg bus bandwidth : X FAILED" (NCCL_TESTS_MIN_BW) */
  bool delta_col;  /* the layout before 2.13: "error", not "#wrong" */
  size_t nleft, halves; /* columns before the halves; 1 or 2 halves */
  size_t width;         /* columns a half: 4, 8 with -I 1's i_min ... i_cv% */
  size_t trail;         /* tokens after the halves: -S 1's timestamp, 2 */
  int line, avg_line;
  char op[32]; /* "" until the file names it */
  double avg_busbw;
  long long out_of_bounds;
  struct gcb__coll_row *row;
  size_t rows, cap;
};

struct gcb__coll_log {
  struct gcb__conv *cv;
  struct gcb__coll_table table;
  char next_op[32], lib_version[32], tool_version[64];
  long long iterations, warmup, ngpus, max_rank;
  /* per rank of the device list: in ranks[] already; the pid and line of
   * its listing before the next rows (pid 0: none yet), where a rank
   * listed twice with two pids is two runs' lines interleaved in one file */
  struct rank_seen {
    bool in_model;
    long long pid;
    int line;
  } * seen;
  size_t nseen, total_rows, tables;
  bool rccl, banner;           /* banner: an "nThread ..." line seen */
  struct gcb__failure failure; /* the test under way failed: the lines up
                                  to the next run's banner are its trace */
};

/* ---- the device list ---------------------------------------------------- */

/* What the device list said of `rank` so far, grown to hold it; NULL on
 * ENOMEM (said). */
static struct rank_seen *rank_seen(struct gcb__coll_log *x, long long rank) {
  if ((size_t)rank >= x->nseen) {
    size_t n = (size_t)rank + 64;
    struct rank_seen *grown = realloc(x->seen, n * sizeof *grown);
    if (grown == NULL) {
      gcb__conv_nomem(x->cv);
      return NULL;
    }
    memset(grown + x->nseen, 0, (n - x->nseen) * sizeof *grown);
    x->seen = grown;
    x->nseen = n;
  }
  return &x->seen[rank];
}

/* A rank of the device list (once per rank, however often listed);
 * GCB_ENOMEM (said) or GCB_OK. */
static enum gcb_status add_rank(struct gcb__coll_log *x, long long rank,
                                const char *host, long long pid,
                                const char *gpu, const char *bus,
                                long long device) {
  struct rank_seen *k = rank_seen(x, rank);
  if (k == NULL)
    return GCB_ENOMEM;
  if (k->in_model)
    return GCB_OK;
  k->in_model = true;
  x->max_rank = rank > x->max_rank ? rank : x->max_rank;
  return gcb__conv_rank(x->cv, rank, host, pid, gpu, bus, device);
}

/* ---- rows --------------------------------------------------------------- */

static bool integer(const char *s, double *out) {
  return gcb__token_number(s, out) && *out >= 0 && *out == floor(*out) &&
         *out <= GCB__MAX_COUNT && strchr(s, '*') == NULL;
}

/* time algbw busbw #wrong (or, delta: error) at tok; NULL or what is
 * wrong (in why, or a constant). */
static const char *read_half(char **tok, bool delta, struct gcb__coll_half *h,
                             char *why, size_t size) {
  double v[3];
  static const char *const names[] = {"time", "algbw", "busbw"};
  for (size_t i = 0; i < 3; i++) {
    bool nan_word = strstr(tok[i], "nan") != NULL || strcmp(tok[i], "N/A") == 0;
    if (!gcb__token_number(tok[i], &v[i]) && !nan_word) {
      snprintf(why, size, "%s '%.20s' is not a number", names[i], tok[i]);
      return why;
    }
    v[i] = nan_word ? NAN : v[i];
    if (v[i] < 0) { /* a time or a rate: never below 0 */
      snprintf(why, size, "%s '%.20s' is negative", names[i], tok[i]);
      return why;
    }
  }
  double w = 0;
  bool checked = gcb__token_number(tok[3], &w);
  if (checked && w < 0)
    return delta ? "error is negative" : "#wrong is negative";
  *h = gcb__coll_half(v[0], v[1], v[2], checked, delta ? 0 : w);
  if (checked && delta)
    h->delta = w; /* judged with the test (table_end) */
  if (!checked && strcmp(tok[3], "N/A") != 0)
    return delta ? "error is neither a number nor N/A"
                 : "#wrong is neither a count nor N/A";
  return NULL;
}

/* Reads a row's tokens in table t's layout; NULL, or what is wrong (as
 * read_half says it). */
static const char *row_read(const struct gcb__coll_table *t, char **tok,
                            size_t n, struct gcb__coll_row *r, char *why,
                            size_t size) {
  size_t want = t->nleft + t->width * t->halves + t->trail, k = 3;
  *r = (struct gcb__coll_row){.root = -1};
  if (!integer(tok[0], &r->size) || !integer(tok[1], &r->count))
    return "size and count are not byte and element counts";
  snprintf(r->type, sizeof r->type, "%s", tok[2]);
  if (t->has_redop && n == want)
    snprintf(r->redop, sizeof r->redop, "%s", tok[k++]);
  if (t->has_root) {
    double root;
    if (!gcb__token_number(tok[k], &root) || root != floor(root) ||
        fabs(root) > 1e9)
      return "root is not a rank";
    r->root = (long long)root;
    k++;
  }
  for (size_t h = 0; h < t->halves; h++) {
    const char *bad =
        read_half(tok + k + t->width * h, t->delta_col, &r->half[h], why, size);
    if (bad != NULL)
      return bad;
  }
  return NULL; /* one half printed: out-of-place, half[1] stays absent */
}

/* Keeps a row of the current table (refused past the limit). */
static enum gcb_status row_add(struct gcb__coll_log *x,
                               const struct gcb__coll_row *r, int line) {
  struct gcb__coll_table *t = &x->table;
  if (++x->total_rows > GCB_INTEROP_MAX_ITEMS / 2)
    return gcb__conv_bad_line(x->cv, line,
                              "more than %zu rows in one file (the most "
                              "gcbench converts); split the file",
                              GCB_INTEROP_MAX_ITEMS / 2);
  if (!gcb_grow((void **)&t->row, &t->cap, t->rows, sizeof *t->row))
    return gcb__conv_nomem(x->cv);
  t->row[t->rows] = *r;
  t->row[t->rows++].line = line;
  for (size_t k = 0; t->rows == 1 && k < x->nseen; k++)
    x->seen[k].pid = 0; /* a device list after rows is another run's */
  return GCB_OK;
}

/* ---- which operation ---------------------------------------------------- */

/* The operations as file names spell them, longest first. */
static const struct {
  const char *spelling, *op;
} op_names[] = {
    {"reduce_scatter", "reducescatter"},
    {"reducescatter", "reducescatter"},
    {"all_reduce", "allreduce"},
    {"allreduce", "allreduce"},
    {"all_gather", "allgather"},
    {"allgather", "allgather"},
    {"alltoall", "alltoall"},
    {"broadcast", "broadcast"},
    {"bcast", "broadcast"},
    {"sendrecv", "sendrecv"},
    {"reduce", "reduce"},
};

/* An operation the file's name spells ("nccl_alltoall.log"), or NULL. */
static const char *op_in_name(const char *path) {
  const char *base = gcb__conv_base_name(path);
  for (size_t i = 0; i < sizeof op_names / sizeof *op_names; i++)
    if (strstr(base, op_names[i].spelling) != NULL)
      return op_names[i].op;
  return NULL;
}

/* Where the file does not name the operation: the layout and the
 * busbw/algbw factor (nccl-tests' PERFORMANCE.md) decide, or nothing. */
static const char *infer_op(const struct gcb__coll_log *x) {
  const struct gcb__coll_table *t = &x->table;
  long long n = x->max_rank >= 0 ? x->max_rank + 1 : x->ngpus;
  double top = 0, ratio = NAN;
  const struct gcb__coll_row *r0 = t->rows ? &t->row[0] : NULL;
  bool redop = r0 && r0->redop[0] && strcmp(r0->redop, "none") != 0;
  for (size_t i = 0; i < t->rows; i++)
    for (size_t h = 0; h < 2; h++)
      if (t->row[i].half[h].alg > top && t->row[i].half[h].bus >= 0) {
        top = t->row[i].half[h].alg;
        ratio = t->row[i].half[h].bus / top;
      }
  if (t->has_root && (!t->has_redop || (r0 && r0->root >= 0)))
    return redop ? "reduce" : "broadcast";
  double tol = 0.02 + 0.02 / (top > 0 ? top : 1);
  if (n >= 2 && top >= 0.5 && fabs(ratio - 2.0 * (n - 1) / n) < tol)
    return "allreduce";
  if (n >= 2 && top >= 0.5 && redop && fabs(ratio - (double)(n - 1) / n) < tol)
    return "reducescatter";
  const char *named = x->tables == 0 ? op_in_name(x->cv->name) : NULL;
  return named != NULL ? named : "unnamed";
}

/* ---- the end of a test and of the file ---------------------------------- */

/* The largest difference from the expected values nccl-tests before 2.13
 * let pass, for a type as it prints it (src/common.cu, DeltaMaxValue,
 * times ranks - 1 in CheckData): 1e-2 for half and bfloat16, 1e-5 for
 * float, 1e-12 for double, none for integers. */
static double old_delta_max(const char *type, long long ranks) {
  double per = strcmp(type, "half") == 0 || strcmp(type, "bfloat16") == 0 ? 1e-2
               : strcmp(type, "float") == 0                               ? 1e-5
               : strcmp(type, "double") == 0 ? 1e-12
                                             : 1e-200;
  return per * (double)(ranks > 1 ? ranks - 1 : 1);
}

/* The layout before 2.13 printed each half's largest error, and counted a
 * half past its type's limit in "# Out of bounds values". Where the test
 * has that line, it is the tool's verdict: 0 passes every half (nccl-tests
 * does not judge an in-place alltoall, whose error it still prints);
 * otherwise, and for the halves it counts, a half past the limit has one
 * wrong result. */
static void judge_deltas(struct gcb__coll_table *t, long long ranks) {
  for (size_t i = 0; i < t->rows; i++)
    for (size_t h = 0; h < 2; h++) {
      struct gcb__coll_half *m = &t->row[i].half[h];
      if (m->checked && !(t->has_oob && t->out_of_bounds == 0))
        m->wrong = m->delta > old_delta_max(t->row[i].type, ranks);
    }
}

/* Converts the current test (its cases, its Avg bus bandwidth) and
 * forgets it; a no-op when no test is open. */
static enum gcb_status table_end(struct gcb__coll_log *x) {
  struct gcb__coll_table *t = &x->table;
  enum gcb_status st = GCB_OK;
  if (!t->started)
    return GCB_OK;
  char op[32];
  snprintf(op, sizeof op, "%s", t->op[0] ? t->op : infer_op(x));
  long long ranks = x->max_rank >= 0 ? x->max_rank + 1 : x->ngpus;
  const char *method = x->rccl ? "rccl-tests -c" : "nccl-tests -c";
  if (t->delta_col)
    judge_deltas(t, ranks);
  size_t before = x->cv->m->ncases;
  for (size_t i = 0; i < t->rows && st == GCB_OK; i++)
    st = gcb__coll_row_cases(x->cv, op, &t->row[i], ranks, x->iterations,
                             x->warmup, method);
  /* The average of rows none of which gave a figure (a 0-byte row alone,
   * skipped) averages nothing measured: no figure. */
  bool measured = x->cv->m->ncases > before;
  const char *tool = x->rccl ? "rccl-tests" : "nccl-tests";
  double lo = INFINITY, hi = 0; /* the sizes it averages */
  for (size_t i = 0; i < t->rows; i++) {
    lo = fmin(lo, t->row[i].size);
    hi = fmax(hi, t->row[i].size);
  }
  if (st == GCB_OK && t->has_avg && measured)
    st = gcb__coll_average(x->cv, tool, op, lo, hi, t->avg_busbw, t->avg_line);
  /* nccl-tests' own bound, which failed its exit status (common.cu: under
   * 0.9 x NCCL_TESTS_MIN_BW) */
  if (st == GCB_OK && t->avg_failed)
    st = gcb__conv_error_at(x->cv, -1, "coll", op, "EVALIDATION", t->avg_line,
                            "average bus bandwidth %g GB/s below 0.9 x "
                            "NCCL_TESTS_MIN_BW (%s: FAILED)",
                            t->avg_busbw, tool);
  if (st == GCB_OK && t->out_of_bounds > 0)
    st = gcb__conv_error(x->cv, "coll", op, "EVALIDATION",
                         "%lld values out of bounds", t->out_of_bounds);
  free(t->row);
  x->table = (struct gcb__coll_table){0};
  x->tables++;
  return st;
}

/* The file ends inside a test: its finished rows stay, the cut is said. */
static enum gcb_status cut(struct gcb__coll_log *x, int line) {
  const struct gcb__coll_table *t = &x->table;
  return gcb__conv_timeout(
      x->cv, "coll", t->op[0] ? t->op : "log",
      "the log ends at line %d inside the test whose header is line %d (a "
      "timeout or a truncated copy): its %zu finished rows are kept",
      line, t->line, t->rows);
}

/* The file ends after a whole row, without the test's summary: a pasted
 * excerpt as often as a stopped run, and nothing in it says which. Its
 * rows are what they are; the run's status is unknown (an info in the
 * report), not a timeout. `line`: its last row. */
static enum gcb_status excerpt(struct gcb__coll_log *x, int line) {
  const struct gcb__coll_table *t = &x->table;
  char *msg = gcb__text_printf(
      "%s is an excerpt: its last row is line %d, row %zu of the test whose "
      "header is line %d, and no summary (# Avg bus bandwidth) follows, which "
      "a finished run prints",
      gcb__conv_base_name(x->cv->name), line, t->rows, t->line);
  if (msg == NULL)
    return gcb__conv_nomem(x->cv);
  gcb__conv_run_set(x->cv, "status", gcb__mvalue_string(x->cv->m, "unknown"));
  gcb__conv_run_set(x->cv, "status_reason", gcb__mvalue_string(x->cv->m, msg));
  free(msg);
  return GCB_OK;
}

/* Ends the model once r has read the file (r->cut: it ends inside that
 * row): the last test, where the file was cut, counts. */
/* The test a failure ended (at the file's end, or where another run's
 * banner follows its trace): its rows kept, its failure said, the next
 * failure its own. */
static enum gcb_status failed_test(struct gcb__coll_log *x) {
  char op[32];
  snprintf(op, sizeof op, "%s",
           x->table.op[0]  ? x->table.op
           : x->next_op[0] ? x->next_op
                           : "log");
  enum gcb_status st = table_end(x);
  if (st == GCB_OK)
    st = gcb__conv_failure(x->cv, &x->failure, "coll", op);
  x->failure = (struct gcb__failure){0};
  return st;
}

static enum gcb_status log_end(struct gcb__coll_log *x,
                               const struct gcb__lines *r) {
  enum gcb_status st = GCB_OK;
  bool open = x->table.started && !x->table.closed;
  int header = x->table.line;
  /* a failure says itself; else cut inside a row (or before any): cut;
   * after a whole row: an excerpt */
  if (x->failure.lines > 0)
    st = failed_test(x);
  else if (open && (r->cut || x->table.rows == 0))
    st = cut(x, r->cut ? r->cut : r->number);
  else if (open)
    st = excerpt(x, x->table.row[x->table.rows - 1].line);
  if (st == GCB_OK)
    st = table_end(x);
  struct gcb_model *m = x->cv->m;
  if (st == GCB_OK && m->ncases == 0 && m->nskips == 0 && m->nerrors == 0)
    st = gcb__conv_bad_line(x->cv, header ? header : 1,
                            "no result rows after the column header");
  long long ranks = x->max_rank >= 0 ? x->max_rank + 1 : x->ngpus;
  gcb__conv_run_set(x->cv, "ranks", gcb__mvalue_int(ranks > 0 ? ranks : 0));
  m->run.version = gcb__model_str(m, x->tool_version);
  if (x->lib_version[0])
    gcb__conv_software(x->cv, x->rccl ? "rccl" : "nccl", x->lib_version);
  return st;
}

/* Whether tok is nccl-tests' banner: "# nThread 1 nGpus 8 minBytes ...". */
static bool banner_line(char **tok, size_t n) {
  size_t i = n > 0 && strcmp(tok[0], "#") == 0;
  return n > i + 1 && strcmp(tok[i], "nThread") == 0;
}

/* Whether tok names a column header: "size", "count", "type"... */
static bool header_line(char **tok, size_t n) {
  size_t i = n > 0 && strcmp(tok[0], "#") == 0;
  return n >= i + 7 && strcmp(tok[i], "size") == 0 &&
         strcmp(tok[i + 1], "count") == 0 && strcmp(tok[i + 2], "type") == 0;
}

static int detect_log(const struct gcb__sniff *s, char *why, size_t size,
                      bool rccl) {
  size_t win = s->len < GCB__DETECT_WINDOW ? s->len : GCB__DETECT_WINDOW;
  struct gcb__lines r = {.text = s->text, .len = win, .room = 512};
  bool marker = gcb__text_has(s->text, win, "rccl-tests", win) ||
                gcb__text_has(s->text, win, "RCCL version", win) ||
                gcb__text_has(s->text, win, "AMD Instinct", win);
  /* a run that failed before its first test prints no column header:
   * its "nThread 1 nGpus 8 ..." line, then the failure */
  struct gcb__failure failure = {0};
  bool banner = false;
  while (gcb__lines_next(&r)) {
    if (banner && gcb__failure_see(&failure, &r.l))
      return rccl == marker ? 70 : rccl ? 0 : 40;
    if (r.n > GCB__MAX_TOKENS)
      continue; /* its tokens are not read (a word past the room) */
    if (header_line(r.tok, r.n))
      return rccl == marker ? 70 : rccl ? 0 : 40;
    banner = banner || banner_line(r.tok, r.n);
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
  for (i += 3;
       i < n && strcmp(tok[i], "time") != 0 && strcmp(tok[i], "cputime") != 0;
       i++) {
    if (strcmp(tok[i], "redop") == 0 && !t->has_redop && !t->has_root)
      t->has_redop = true;
    else if (strcmp(tok[i], "root") == 0 && !t->has_root)
      t->has_root = true;
    else
      return false;
    t->nleft++;
  }
  /* 2.19's options (util.cu writeResultHeader): -C 1 heads the time
   * "cputime", -I 1 follows each half with i_min i_max i_p99 i_cv% (read
   * past: host-clock statistics of the same iterations), -S 1 ends the
   * line with a timestamp (two tokens a row) */
  size_t right = n - i;
  if (right > 0 && strcmp(tok[n - 1], "timestamp") == 0) {
    t->trail = 2;
    right--;
  }
  t->width = right >= 8 && strcmp(tok[i + 4], "i_min") == 0 ? 8 : 4;
  if (right != t->width && right != 2 * t->width)
    return false;
  static const char *const per_iter[] = {"i_min", "i_max", "i_p99", "i_cv%"};
  for (size_t h = 0; h < right / t->width; h++) {
    char **q = tok + i + t->width * h;
    if ((strcmp(q[0], "time") != 0 && strcmp(q[0], "cputime") != 0) ||
        strcmp(q[1], "algbw") != 0 || strcmp(q[2], "busbw") != 0 ||
        (strcmp(q[3], "#wrong") != 0 && strcmp(q[3], "error") != 0))
      return false;
    for (size_t k = 4; k < t->width; k++)
      if (strcmp(q[k], per_iter[k - 4]) != 0)
        return false;
  }
  t->halves = right / t->width;
  t->delta_col = strcmp(tok[i + 3], "error") == 0;
  return true;
}

/* "#  Rank  3 Group  0 Pid  6902 on host device  3 [0000:0c:00] NAME". */
/* Refuses the second listing of `rank` under another pid before any row:
 * two launches writing into one file (mpirun without --tag-output, two
 * jobs appending to one log), whose rows would be merged into one test. */
static enum gcb_status listed_once(struct gcb__coll_log *x, long long rank,
                                   long long pid, int line) {
  if (pid <= 0)
    return GCB_OK;
  struct rank_seen *k = rank_seen(x, rank);
  if (k == NULL)
    return GCB_ENOMEM;
  if (k->pid > 0 && k->pid != pid)
    return gcb__conv_bad_line(
        x->cv, line,
        "rank %lld is listed again with pid %lld (pid %lld at line %d): two "
        "runs' output interleaved in one file; keep one run a file (or "
        "mpirun --tag-output)",
        rank, pid, k->pid, k->line);
  k->pid = pid;
  k->line = line;
  return GCB_OK;
}

static enum gcb_status device_line(struct gcb__coll_log *x, char **tok,
                                   size_t n, int line) {
  long long rank = -1, pid = 0, dev = -1;
  const char *host = "unknown", *bus = "";
  size_t i = 0, name = n;
  for (; i + 1 < n; i++) {
    if (strcmp(tok[i], "Rank") == 0) {
      char *end;
      rank = strtoll(tok[i + 1], &end, 10);
      /* a number past what a rank is: an edited or corrupted log, whose
       * GPU would go missing from the run without a word */
      if (end != tok[i + 1] && *end == '\0' && (rank < 0 || rank > 1 << 20))
        return gcb__conv_bad_line(x->cv, line,
                                  "a device line of rank %.24s: not a rank "
                                  "(0 to 2^20)",
                                  tok[i + 1]);
    } else if (strcmp(tok[i], "Pid") == 0)
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
  enum gcb_status twice = listed_once(x, rank, pid, line);
  if (twice != GCB_OK)
    return twice;
  char canon[32] = "", raw[40];
  size_t len = 1; /* the GPU's name whole: its tokens joined by blanks */
  for (size_t k = name; k < n; k++)
    len += strlen(tok[k]) + 1;
  char *gpu = malloc(len);
  if (gpu == NULL)
    return gcb__conv_nomem(x->cv);
  gpu[0] = '\0';
  for (size_t k = name, at = 0; k < n; k++)
    at += (size_t)sprintf(gpu + at, "%s%s", k > name ? " " : "", tok[k]);
  snprintf(raw, sizeof raw, "%.*s", (int)strcspn(bus + (bus[0] == '['), "]"),
           bus + (bus[0] == '['));
  if (strchr(raw, ':') == NULL || !gcb_busid_canon(raw, canon, sizeof canon))
    canon[0] = '\0'; /* "[0x00]": the bus number alone says nothing */
  enum gcb_status st = add_rank(x, rank, host, pid, gpu, canon, dev);
  free(gpu);
  return st;
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
    if (!isalnum((unsigned char)*p) && *p != '_')
      base = p + 1;
  gcb__coll_op(base, (size_t)(end - base), op, size);
  return op[0] != '\0';
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
    x->table.avg_failed = n >= 7 && strcmp(tok[6], "FAILED") == 0;
    x->table.avg_line = line;
    x->table.closed = true;
  } else if (n >= 7 && strcmp(tok[1], "Out") == 0 &&
             strcmp(tok[3], "bounds") == 0 && gcb__token_number(tok[6], &v)) {
    x->table.out_of_bounds = gcb__conv_ll(v, 0);
    x->table.has_oob = true;
  }
}

/* "# nccl-tests version 2.17.8 nccl-headers=22606 nccl-library=22606"
 * (2.13 and later): the tool's version, and NCCL's from its version code
 * (major * 10000 + minor * 100 + patch since 2.9) where no "NCCL version"
 * line said it; a code of 0 (gcbench's drop-in on MPI) says none. */
static void version_line(struct gcb__coll_log *x, char **tok, size_t n) {
  snprintf(x->tool_version, sizeof x->tool_version, "%s", tok[0]);
  for (size_t k = 1; k < n && x->lib_version[0] == '\0'; k++) {
    const char *v =
        strncmp(tok[k], "nccl-library=", 13) == 0 ? tok[k] + 13 : NULL;
    char *end;
    long code = v != NULL ? strtol(v, &end, 10) : 0;
    if (code >= 20900 && code < 1000000 && *end == '\0')
      snprintf(x->lib_version, sizeof x->lib_version, "%ld.%ld.%ld",
               code / 10000, code / 100 % 100, code % 100);
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
    st = table_end(x);
    t.started = true;
    t.line = l->number;
    snprintf(t.op, sizeof t.op, "%s", x->next_op);
    x->next_op[0] = '\0';
    x->table = t;
  } else if (n > i + 1 && strcmp(tok[i], "Rank") == 0)
    st = device_line(x, tok, n, l->number);
  else if (n > i + 1 && strcmp(tok[i], "nThread") == 0)
    threads_line(x, tok, n);
  else if (n >= 3 && i == 1 && x->table.started)
    summary_line(x, tok, n, l->number);
  if (n >= i + 3 &&
      (strcmp(tok[i], "NCCL") == 0 || strcmp(tok[i], "RCCL") == 0) &&
      strcmp(tok[i + 1], "version") == 0)
    snprintf(x->lib_version, sizeof x->lib_version, "%.*s",
             (int)strcspn(tok[i + 2], "+"), tok[i + 2]);
  if (n >= 4 && strcmp(tok[0], "rccl-tests:") == 0 &&
      strcmp(tok[1], "Version") == 0)
    snprintf(x->tool_version, sizeof x->tool_version, "%s", tok[2]);
  if (n >= i + 3 && strcmp(tok[i], "nccl-tests") == 0 &&
      strcmp(tok[i + 1], "version") == 0)
    version_line(x, tok + i + 2, n - i - 2);
  return st;
}

/* The row at r; a short one where the file ends is a cut (r->cut). */
static enum gcb_status row_line(struct gcb__coll_log *x, struct gcb__lines *r) {
  struct gcb__coll_table *t = &x->table;
  size_t want = t->nleft + t->width * t->halves + t->trail, n = r->n;
  int line = r->l.number;
  struct gcb__coll_row row;
  char why[64];
  bool columns = n == want || (n + 1 == want && t->has_redop);
  const char *bad =
      columns ? row_read(t, r->tok, n, &row, why, sizeof why) : NULL;
  if (columns && bad == NULL)
    return row_add(x, &row, line);
  if (gcb__lines_cut(r))
    return GCB_OK;
  if (!columns)
    return gcb__conv_bad_line(x->cv, line,
                              "row %zu has %zu columns, expected %zu",
                              t->rows + 1, n, want);
  return gcb__conv_bad_line(x->cv, line, "row %zu: %s", t->rows + 1, bad);
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
  struct gcb__lines r = {.text = cv->text, .len = cv->len, .room = 1024};
  enum gcb_status st = GCB_OK;
  x->cv = cv;
  x->max_rank = -1;
  x->rccl = strstr(cv->format, "rccl") != NULL ||
            gcb__text_has(cv->text, cv->len, "rccl-tests", GCB__DETECT_WINDOW);
  gcb__conv_run(cv, x->rccl ? "rccl-tests" : "nccl-tests");
  while (st == GCB_OK && r.cut == 0 && gcb__lines_next(&r)) {
    /* A failure ends its test: nccl-tests stops there, and a trace
     * follows, no rows, up to another run's banner. One before the first
     * banner is no test's (an earlier job step's). */
    bool banner = r.n <= GCB__MAX_TOKENS && banner_line(r.tok, r.n);
    bool begun = x->banner || x->table.started || x->max_rank >= 0;
    if (x->failure.lines > 0 && banner)
      st = failed_test(x);
    else if (gcb__failure_trace(&x->failure, &r.l, begun))
      continue;
    x->banner = x->banner || banner;
    if (st != GCB_OK)
      break;
    if (r.n > GCB__MAX_TOKENS && x->table.started && !x->table.closed &&
        gcb__line_leads_digit(&r.l))
      st = gcb__conv_bad_line(cv, r.l.number,
                              "row %zu is longer than a row of the tool (more "
                              "than %d words, or %zu bytes of them)",
                              x->table.rows + 1, GCB__MAX_TOKENS, r.room);
    else if (r.n > GCB__MAX_TOKENS)
      continue; /* no other line of these tools has that many words */
    else if (x->table.started && !x->table.closed && is_row(r.tok, r.n))
      st = row_line(x, &r);
    else
      st = other_line(x, &r.l, r.tok, r.n);
  }
  if (st == GCB_OK)
    st = log_end(x, &r);
  free(x->table.row);
  free(x->seen);
  free(x);
  return st;
}

const struct gcb__converter gcb__row_nccl_log = {
    "nccl-tests log", GCB_FORMAT_NCCL_TESTS, false, nccl_detect, convert};
const struct gcb__converter gcb__row_rccl_log = {
    "rccl-tests log", GCB_FORMAT_RCCL_TESTS, false, rccl_detect, convert};
