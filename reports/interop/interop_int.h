/*
 * Internal to the converters: the converter table (one row per input
 * format: a name, a content test and a conversion), the conversion
 * context, which knows where in the input it is so that every problem is
 * reported as FILE:LINE[:COLUMN], typed getters for JSON inputs, line
 * helpers for text inputs, builders for the parts of the model every
 * converter needs (model.h's builder underneath), and the result row the
 * collective tools share.
 *
 * Adding an input format: one file with its detect and convert functions
 * and its row (a const struct gcb__converter gcb__row_<format>), and that
 * row's name in the table (interop.c).
 */
#ifndef GCB_INTEROP_INT_H
#define GCB_INTEROP_INT_H

#include <stdbool.h>

#include "reports/document/bench_kind.h"
#include "reports/document/jsonpos.h"
#include "reports/document/model.h"
#include "reports/interop/interop.h"

#define GCB__CONV_DEPTH 8

struct gcb__conv {
  const char *text, *name; /* the input (or its JSON part) and its file */
  const char *format;      /* the row's name, in messages */
  size_t len;
  int line0; /* lines of the file before text[0] (stray lines before JSON) */
  struct gcb_json_step path[GCB__CONV_DEPTH];
  size_t depth;
  const struct gcb_doc *known;
  size_t nknown;
  size_t items;        /* cases, skipped and errors built, against the limit */
  struct gcb_model *m; /* the model built: its nodes, ranks, skips and
                          errors so far */
  struct gcb_err *err;
};

/* What the sniffing of a file found, shared by every row's detect. */
struct gcb__sniff {
  const char *text;
  size_t len;
  const json_t *root; /* the JSON value of the file's JSON part, or NULL */
  size_t json_at, json_len; /* that part: from the first line opening with
                               '{' to the last closing with '}' */
  int json_line0;           /* lines before it */
  json_error_t json_error;  /* why root is NULL, when a JSON part exists */
};

/*
 * A row of the converter table. detect returns how surely text is this
 * format: 0 not at all (*why then says what is missing, for the message
 * that lists the formats tried), 1..99 the higher the surer. convert
 * builds cv->m; JSON rows get the parsed root (cv->text is then the
 * JSON part). convert NULL: the text is gcbench's own document.
 */
struct gcb__converter {
  const char *name; /* "nccl-tests log": in messages */
  enum gcb_format format;
  bool json;
  int (*detect)(const struct gcb__sniff *s, char *why, size_t size);
  enum gcb_status (*convert)(struct gcb__conv *cv, const json_t *root);
};

/* The table (interop.c), terminated by NULL. */
extern const struct gcb__converter *const gcb__converters[];

/* Converts text with the row named `row`, whatever its content looks like
 * (the fuzz targets drive one converter each this way). As
 * gcb_interop_parse otherwise; GCB_EINTERNAL for an unknown row. */
enum gcb_status gcb__interop_parse_as(const char *row, const char *text,
                                      size_t len, const char *name,
                                      struct gcb_model **out,
                                      struct gcb_err *err);

/* ---- the context --------------------------------------------------------- */

/* Steps into a member (key) or an element (key NULL, index) for error
 * locations, and back out. */
void gcb__conv_enter(struct gcb__conv *cv, const char *key, size_t index);
void gcb__conv_leave(struct gcb__conv *cv);

/* fn(ctx, element) for each element of arr (NULL: none), the member `key`
 * of the current path, each at its own path: the first status that is not
 * GCB_OK, or GCB_OK. */
enum gcb_status
gcb__conv_each(struct gcb__conv *cv, const char *key, const json_t *arr,
               enum gcb_status (*fn)(void *ctx, const json_t *e), void *ctx);

/* GCB_EINPUT with "name:line:column: format: path: what" at the current
 * path. */
enum gcb_status gcb__conv_bad(struct gcb__conv *cv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* GCB_EINPUT with "name:line: format: what" (text formats). */
enum gcb_status gcb__conv_bad_line(struct gcb__conv *cv, int line,
                                   const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* GCB_ENOMEM with the file's name. */
enum gcb_status gcb__conv_nomem(struct gcb__conv *cv);

enum {
  GCB__J_STR = 1,
  GCB__J_NUM = 2,
  GCB__J_OBJ = 4,
  GCB__J_ARR = 8,
  GCB__J_NULL = 16,
  GCB__J_BOOL = 32
};

/*
 * Member `key` of obj (the current path) with one of `types`: *out is the
 * value, or NULL when absent and not required. A missing required member
 * is reported at obj, a mistyped one at the member.
 */
enum gcb_status gcb__conv_get(struct gcb__conv *cv, const json_t *obj,
                              const char *key, int types, bool required,
                              const json_t **out);

/* A number that writers may put in a string ("12.5", "nan", "N/A"):
 * NAN for anything that is not a finite number. */
double gcb__conv_number(const json_t *v);

/* ---- text lines ---------------------------------------------------------- */

#define GCB__MAX_TOKENS 300
/* The largest byte or element count a row may give: 2^53, the last integer
 * a double holds exactly (and 8 PiB, more than any one message). */
#define GCB__MAX_COUNT 9007199254740992.0

/* One line of a text input, with what launchers put before it removed. */
struct gcb__line {
  const char *at; /* its text, not NUL-terminated, prefixes stripped */
  size_t len;
  int number; /* 1-based line number in the file */
  bool last;  /* the file's last line, without a newline after it */
};

#define GCB__LINE_BYTES 8192

/* A text input read a line at a time, each line split at blanks; starts
 * as {.text, .len, .room} (or {.text, .len, .raw}), the rest zero. */
struct gcb__lines {
  const char *text;
  size_t len, pos;    /* pos: where the next line starts */
  int number;         /* lines read */
  size_t room;        /* bytes a line's tokens may take, to GCB__LINE_BYTES */
  bool raw;           /* lines as the file has them: nothing stripped, no
                         tokens (JSON lines) */
  struct gcb__line l; /* the current line */
  size_t n; /* its tokens; GCB__MAX_TOKENS + 1 when more, or past room */
  char *tok[GCB__MAX_TOKENS + 1];
  int cut; /* the line the text ends in, inside a row (gcb__lines_cut) */
  char buf[GCB__LINE_BYTES];
};

/*
 * The next line into r->l and its NUL-terminated tokens into r->tok; false
 * at the end. Strips a trailing CR, markdown quoting ("> "), Open MPI's
 * --tag-output ("[1,0]<stdout>:") and srun --label ("0: ") prefixes,
 * unless r->raw.
 */
bool gcb__lines_next(struct gcb__lines *r);

/* Whether the line, after blanks, starts with `prefix`. */
bool gcb__line_starts(const struct gcb__line *l, const char *prefix);

/* Whether the line's first word is a number of digits: a row, however
 * long (one too long for its tokens is refused, not passed over). */
bool gcb__line_leads_digit(const struct gcb__line *l);

/* Whether the line contains `needle`. */
bool gcb__line_has(const struct gcb__line *l, const char *needle);

/* The lines by which a tool or its launcher says the run failed:
 * nccl-tests' CUDACHECK, NCCLCHECK and TESTCHECK (its src/common.h:
 * "HOST: Test NCCL failure common.cu:1204 '...'", "HOST: Test CUDA
 * failure ...", " .. HOST pid 12: Test failure common.cu:915" from each
 * caller up the stack), a process killed by a signal (UCX's "Caught signal
 * 7 (Bus error ...)", Open MPI's "*** Process received signal ***" and
 * "Signal: Segmentation fault (11)"), a launcher telling a rank's exit
 * (mpirun's "exited with non-zero status", srun's "Exited with exit
 * code"). A log that has one is of a run that failed: its rows up to there
 * are kept, what follows is its trace, not rows. */
struct gcb__failure {
  size_t lines;           /* failure lines seen */
  int line;               /* the one quoted: the first, or the first that
                             names a cause (not a caller or the launcher) */
  bool cause;             /* the quoted line names a cause */
  enum gcb_status status; /* ENCCL, ECUDA, else EINTERNAL */
  char text[160];         /* its words, printable ASCII, cut */
  /* Who failed, where nccl-tests says: the host of its cause lines
   * ("HOST: Test NCCL failure"), "" when they name none or several
   * (`hosts` counts the changes), and the process of its caller lines
   * (" .. HOST pid P: Test failure"), 0 when none or several (`pids`). One
   * rank failed, the others ended by it, is the usual bad GPU. */
  char host[64];
  long long pid;
  size_t hosts, pids;
};

/* Whether l is a failure line; counts it in f, and quotes it where it is
 * the first or the first that names a cause. */
bool gcb__failure_see(struct gcb__failure *f, const struct gcb__line *l);

/* Whether l belongs to a failed test's trace, not to the test: a failure
 * line once the test has `begun` (one before is an earlier job step's), or
 * any line after one (its failure lines counted, a later cause quoted).
 * The reader ends the trace at the next test's first line. */
bool gcb__failure_trace(struct gcb__failure *f, const struct gcb__line *l,
                        bool begun);

/* Whether r's line is the last of its text or only blanks follow it: a
 * short row there is a cut, which r->cut then records. */
bool gcb__lines_cut(struct gcb__lines *r);

/* s as a finite number (the whole token; a trailing '*' allowed, as
 * rccl-tests marks errors over its threshold); false otherwise. */
bool gcb__token_number(const char *s, double *out);

/* How far into a text file the detect functions look (a log can open
 * with a long preamble of NCCL INFO lines). */
#define GCB__DETECT_WINDOW ((size_t)1 << 20)

/* Whether needle occurs in the first `window` bytes of text. */
bool gcb__text_has(const char *text, size_t len, const char *needle,
                   size_t window);

/* ---- document parts ------------------------------------------------------ */

/* printf's text on the heap, whole however long; NULL on ENOMEM. The
 * caller frees it. */
char *gcb__text_printf(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* v as an integer when it is a finite one of at most 9e15 in magnitude
 * (casting anything else is undefined), else `fallback`. */
long long gcb__conv_ll(double v, long long fallback);

/* The file name without its directories: a converted run's id. */
const char *gcb__conv_base_name(const char *path);

/* The run of cv->m as a converted file knows it: `tool` ("nccl-tests")
 * wrote the file; the run's id is the file's base name, its status
 * "complete", its backend "cuda" with a reason that names the format and
 * the file; its times, command line and ranks unknown ("", [], 0) until
 * gcb__conv_run_set says them, its nodes the model's when the conversion
 * ends. Out of memory here and in the two below is the model's (sticky:
 * gcb__model_done fails). */
void gcb__conv_run(struct gcb__conv *cv, const char *tool);

/* Sets member `key` of cv->m's run object, from which the run's fields
 * are read (gcb__model_done), and a software[] entry. */
void gcb__conv_run_set(struct gcb__conv *cv, const char *key,
                       struct gcb_mvalue v);
void gcb__conv_software(struct gcb__conv *cv, const char *key,
                        const char *value);

/* The output was cut (a timeout or a truncated copy): the run's status is
 * "timeout", it has no end time, and an ETIMEOUT error (rank -1) says
 * where, as gcb__conv_error. */
enum gcb_status gcb__conv_timeout(struct gcb__conv *cv, const char *bench,
                                  const char *label, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The run failed (f has a line): its status is "failed", and an error
 * (rank -1) of bench and label quotes f's line, as gcb__conv_error. A
 * no-op where f has none. */
enum gcb_status gcb__conv_failure(struct gcb__conv *cv,
                                  const struct gcb__failure *f,
                                  const char *bench, const char *label);

/* The node of cv->m on host `host`, added with the next index and its
 * machine unknown (0) when there is none: its index in *index. A host
 * name's bytes that are not UTF-8 are U+FFFD, in the node's name and in
 * the lookup, so that ranks on a garbled host still share its node.
 * GCB_EINPUT (said) for a name of GCB_HOSTNAME_SIZE bytes or more,
 * GCB_ENOMEM (said). */
enum gcb_status gcb__conv_node(struct gcb__conv *cv, const char *host,
                               long long *index);

/* Rank `rank` of cv->m on host's node (gcb__conv_node), which lists it
 * after those before: its local rank is its place there; its binding
 * unknown (empty, 0 PUs); names as gcb__conv_node keeps them (and refuses
 * them). GCB_EINPUT or GCB_ENOMEM
 * (said) or GCB_OK. */
enum gcb_status gcb__conv_rank(struct gcb__conv *cv, long long rank,
                               const char *host, long long pid,
                               const char *gpu_name, const char *bus_id,
                               long long gpu_index);

/* A converted case's parameters, typed, in the order the converter states
 * them (a key set again keeps its place, as in a JSON object); strings
 * are borrowed until the case is added, which copies them into the
 * model. A string that is not UTF-8 or a real that is not finite fails
 * the case as out of memory, as jansson refused them when the params were
 * a JSON object. */
#define GCB__PARAMS_MAX 16
struct gcb__params {
  size_t n;
  bool over; /* more than GCB__PARAMS_MAX (a converter's mistake): refused */
  struct gcb_mkv p[GCB__PARAMS_MAX];
};
void gcb__param_str(struct gcb__params *ps, const char *key, const char *s);
void gcb__param_int(struct gcb__params *ps, const char *key, long long i);
void gcb__param_real(struct gcb__params *ps, const char *key, double x);

/*
 * A case of cv->m of benchmark kind `bench` in GB/s whose per-rank figures
 * fig[i] were measured by ranks rank[i], each the rate of moving `work`
 * bytes; with n == 0 (a tool that reports only the average over ranks) the
 * summary holds `fig0` and it has no per-rank columns. params become its
 * params. `method` says how the values were validated (NULL:
 * not validated). Counted against GCB_INTEROP_MAX_ITEMS, a refusal past
 * it said at `line`. *out is the case, valid until the next is added,
 * for what else the tool printed. GCB_ENOMEM also for a
 * non-finite figure (and for params gcb__params refuses); fig0 may be 0
 * only where work is 0 (a barrier moves no bytes).
 */
enum gcb_status gcb__conv_case(struct gcb__conv *cv, enum gcb_bench_kind bench,
                               const char *label,
                               const struct gcb__params *params, double work,
                               const char *counted, const long long *rank,
                               const double *fig, size_t n, double fig0,
                               const char *method, int line,
                               struct gcb_model_case **out);

/*
 * A figure another tool printed that has no gcbench counterpart, kept as
 * it was printed: an "imported" case of cv->m with the source's own name
 * and unit (params: what says where it belongs, then source and name)
 * and the value as its summary, counted at `line`. value may be
 * 0; GCB_ENOMEM also for a non-finite value.
 */
enum gcb_status gcb__conv_figure(struct gcb__conv *cv, const char *source,
                                 const char *name, const char *label,
                                 const struct gcb__params *params,
                                 const char *unit, double value, int line);

/* A skipped[] entry and an errors[] entry (rank -1) of cv->m, counted
 * against the limit as gcb__conv_case counts (line 0: none); the reason
 * and the message printf-style, whole however long. */
enum gcb_status gcb__conv_skip(struct gcb__conv *cv, const char *bench,
                               const char *label, int line, const char *fmt,
                               ...) __attribute__((format(printf, 5, 6)));
enum gcb_status gcb__conv_error(struct gcb__conv *cv, const char *bench,
                                const char *label, const char *status,
                                const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* An errors[] entry of one rank (a GPU of a tool that names GPUs as
 * ranks), counted at `line`. */
enum gcb_status gcb__conv_error_at(struct gcb__conv *cv, long long rank,
                                   const char *bench, const char *label,
                                   const char *status, int line,
                                   const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* Joins m, a converted file's model, to the topology of a known
 * document's node when it is the same machine (m has one node and every
 * bus id of its devices is a GPU there): m's p2p pairs get their path
 * class and node 0 a copy of that topology (its placement and facts stay
 * with the document they were recorded in). GCB_OK also when there is
 * none; GCB_ENOMEM (m then fails whole: free it). */
enum gcb_status gcb__conv_join_topology(struct gcb__conv *cv,
                                        struct gcb_model *m);

/* ---- collective rows ----------------------------------------------------- */

/* What the nccl-tests and rccl-tests converters share (logs, -J JSON,
 * rccl-tests JSON lines), with OSU's programs that gcbench also runs: a
 * result row as the tools print it and the one way such a row becomes
 * "coll" cases of a gcbench document, so that every input of these tools
 * reads the same. */

/* One half (out-of-place, in-place) of a row. */
struct gcb__coll_half {
  bool present;
  double us, alg, bus;   /* NAN where the tool printed none */
  double us_min, us_max; /* over ranks, where the tool prints them (0: us) */
  bool checked;          /* #wrong is a number (run with -c) */
  long long wrong;
  /* Layouts before nccl-tests 2.13 print "error", the largest difference
   * from the expected values, not a count: that (wrong 0 until the
   * converter judges it), NAN otherwise. */
  double delta;
};

/* gcbench's name of an operation as a tool spells it: the letters and
 * digits of s[0..len), lower case ("AllReduce", "all_reduce": "allreduce"),
 * in op, cut to size - 1 bytes. */
void gcb__coll_op(const char *s, size_t len, char *op, size_t size);

/* An element type as the collective tools print it (nccl-tests' and
 * rccl-tests' names, OSU's MPI types without "MPI_", lower case). */
struct gcb__coll_type {
  const char *name; /* as printed: "float16", "int" */
  const char *gcb;  /* gcbench's name: "half", "int32" */
  double bytes;
};

/* The type printed as `name`, or NULL when no tool's table has it. */
const struct gcb__coll_type *gcb__coll_type(const char *name);

/* A half as printed: #wrong counts only where checked, and as 0 where it is
 * no count (negative, past 9e15). */
struct gcb__coll_half gcb__coll_half(double us, double alg, double bus,
                                     bool checked, double wrong);

struct gcb__coll_row {
  double size, count;
  char type[24], redop[24];      /* redop "" where the layout has none */
  long long root;                /* -1 where the layout has none */
  long long iterations;          /* 0: the test's */
  struct gcb__coll_half half[2]; /* [0] out-of-place, [1] in-place */
  int line;
  bool no_bytes; /* moves no message (a barrier): kept at 0 GB/s */
  /* more params the case carries (OSU's layout, comm_size), or NULL */
  const struct gcb__params *extra;
};

/*
 * A tool's average bus bandwidth of a test of op ("# Avg bus bandwidth",
 * the JSON's average_bus_bandwidth) over its rows of min_bytes to
 * max_bytes: an imported figure whose params carry that range (averages
 * of other sweeps are other figures), derived (model.h: compare counts its
 * rows, never it, as missing). Added to cv->m.
 */
enum gcb_status gcb__coll_average(struct gcb__conv *cv, const char *tool,
                                  const char *op, double min_bytes,
                                  double max_bytes, double busbw, int line);

/*
 * The cases of one row in gcbench's coll layout: params op, size, count,
 * type, redop, root, inplace; summary time_s, algbw, busbw; one case per
 * half present, or a skipped entry where the tool printed no finite time.
 * ranks: how many ranks took part (0: unknown); method: how values were
 * checked where #wrong is a number. Added to cv->m.
 */
enum gcb_status gcb__coll_row_cases(struct gcb__conv *cv, const char *op,
                                    const struct gcb__coll_row *r,
                                    long long ranks, long long iterations,
                                    long long warmup, const char *method);

#endif
