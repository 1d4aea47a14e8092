/*
 * Bad input everywhere, through the executable: options, results,
 * baseline and criteria files, topology XML. Each is refused with one line
 * and exit code 2 (files located as file:line:column), never a crash or a
 * hang; what a message echoes stays one line that cannot drive the
 * terminal. Files are read from pipes as from disk. And input that tries
 * to be more than data (HTML, gnuplot and shell syntax in labels, shell
 * syntax in output names, names that are not UTF-8) stays data. Each table
 * here is a row of docs/ROBUSTNESS.md.
 */
#define _GNU_SOURCE /* SEEK_HOLE */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/file.h"
#include "reports/interop/interop.h"
#include "tests/e2e/run_gcbench.h"
#include "tests/reports/results_read.h"

#define DATA(name) GCB_TEST_DATA "/" name

static void make_dir(void) {
  gcb_test_dir_make("gcb-robust-cli");
}

TestSuite(cli, .init = make_dir, .fini = gcb_test_dir_remove, .timeout = 120);

static void write_file(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f, "%s", path);
  cr_assert_eq(fwrite(text, 1, len, f), len);
  fclose(f);
}

static bool exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* Exit 2 with exactly one line on stderr holding `says`. */
static void expect_refused(const char *const *args, const char *says,
                           const char *what) {
  int code = gcb_test_gcbench(0, args);
  char *err = gcb_test_slurp("stderr");
  cr_expect_eq(code, 2, "%s: exit %d: %s", what, code, err);
  cr_expect(strstr(err, says) != NULL, "%s: wanted \"%s\" in: %s", what, says,
            err);
  size_t len = strlen(err);
  cr_expect(len > 0 && strchr(err, '\n') == err + len - 1,
            "%s: not one line: %s", what, err);
  free(err);
}

/* ---- options -------------------------------------------------------------*/

struct bad_args {
  const char *args[10];
  const char *says;
};

static const struct bad_args bad_options[] = {
    {{"coll", "-d", "float128"}, "--datatype: unknown value 'float128'"},
    {{"coll", "--collective", "allreduce,allsmash"}, "--collective: unknown value 'allsmash'"},
    {{"coll", "-o", "median"}, "--op: unknown value 'median'"},
    {{"coll", "--collective", ","}, "--collective: empty list"},
    {{"gemm", "--dtype", "fp7"}, "--dtype: unknown value 'fp7'"},
    {{"coll", "-b", "1M", "-e", "8"}, "-b 1048576 is larger than -e 8"},
    {{"coll", "-e", "-8"}, "invalid size '-8'"},
    {{"coll", "-b", "lots"}, "invalid size 'lots'"},
    {{"coll", "-e", "8Q"}, "invalid size '8Q'"},
    {{"coll", "-e", "1.5M"}, "invalid size '1.5M'"},
    {{"coll", "-e", " 8"}, "invalid size ' 8'"},
    {{"coll", "-e", "99999999999999999999"},
     "size '99999999999999999999' is too large"},
    {{"coll", "-e", "16777216T"}, "size '16777216T' is too large"},
    {{"coll", "-f", "1"}, "-f must be above 1"},
    {{"coll", "-f", "abc"}, "--stepfactor: 'abc' is not a valid number"},
    {{"coll", "-f", "inf"}, "--stepfactor: 'inf' is not a valid number"},
    {{"coll", "-n", "-1"}, "--iterations: -1 is below the minimum 1"},
    {{"coll", "-c", "-1"}, "--check: -1 is below the minimum 0"},
    {{"coll", "--root", "-1"}, "--root: -1 is below the minimum 0"},
    {{"coll", "--transport", "carrier-pigeon"},
     "unknown or not built: 'carrier-pigeon'"},
    {{"membw", "--size", "0"}, "--size: 0 is below the minimum"},
    {{"membw", "--size", ""}, "invalid size ''"},
    {{"gemm", "-m", "0"}, "below the minimum"},
    {{"gemm", "-m", "-5"}, "invalid size '-5'"},
    {{"gemm", "--iters", "3.5"}, "--iters: '3.5' is not a valid integer"},
    {{"gemm", "--iters", "1e12"}, "--iters: '1e12' is not a valid integer"},
    {{"gemm", "--iters", "99999999999999999999"}, "is not a valid integer"},
    {{"gemm", "--warmup", "-1"}, "--warmup: -1 is below the minimum 0"},
    {{"gemm", "--seed", "-1"}, "invalid size '-1'"},
    {{"gemm", "--frobnicate"}, "unknown option '--frobnicate'"},
    {{"gemm", "-Z"}, "unknown option -Z"},
    {{"gemm", "-m"}, "-m needs a value"},
    {{"gemm", "--iters"}, "--iters needs a value"},
    {{"gemm", "stray"}, "unexpected argument 'stray'"},
    {{"gemm", "--backend", "tpu"}, "unknown backend 'tpu'"},
    {{"gemm", "--timeout", "-5"}, "--timeout: -5 is below the minimum 0"},
    {{"suite", "--output", ""}, "--output: empty path"},
    {{"report"}, "report: no results document given"},
    {{"compare", DATA("results-valid.json")},
     "compare: expected OLD.json NEW.json"},
    {{"report", DATA("results-valid.json")}, "-o DIR"},
    {{"frobnicate"}, "unknown command 'frobnicate'"},
    /* Found by scripts/fuzz: input echoed in a message stays one line and
     * cannot drive the terminal. */
    {{"coll", "-e", "8\nQ"}, "invalid size '8\\x0aQ'"},
    {{"gemm", "--dtype", "\033[31mred"}, "unknown value '\\x1b[31mred'"},
    {{"gemm", "--frob\nnicate"}, "unknown option '--frob\\x0anicate'"},
};

Test(cli, bad_options_are_one_line_and_exit_2) {
  for (size_t i = 0; i < sizeof bad_options / sizeof *bad_options; i++) {
    const struct bad_args *b = &bad_options[i];
    char what[64];
    snprintf(what, sizeof what, "options case %zu (%s %s)", i, b->args[0],
             b->args[1] ? b->args[1] : "");
    /* Runs get an output path first, so that a case accepted by mistake
     * neither fails on an existing file nor runs for long. */
    bool runs = strcmp(b->args[0], "report") != 0 &&
                strcmp(b->args[0], "compare") != 0 &&
                strcmp(b->args[0], "frobnicate") != 0;
    const char *args[16] = {b->args[0]};
    size_t n = 1;
    if (runs) {
      args[n++] = "--output";
      args[n++] = gcb_test_path("never.json");
      args[n++] = "--force";
    }
    for (size_t k = 1; b->args[k]; k++)
      args[n++] = b->args[k];
    args[n] = NULL;
    expect_refused(args, b->says, what);
  }
}

/* ---- results, baseline and criteria files --------------------------------*/

/* Bad documents, and where and what the reader must say. */
struct bad_doc {
  const char
      *name; /* a file in tests/data, or made in the scratch dir when text */
  const char *text;
  const char *says; /* after "path:" */
  size_t len;       /* of text; 0: strlen */
};

static const struct bad_doc bad_results[] = {
    {"results-syntax-error.json", NULL, ":19:38: string or '}' expected", 0},
    {"results-wrong-type.json", NULL,
     ":53:50: cases[0].per_rank[1].time_s.median: expected a number, got "
     "string",
     0},
    {"results-missing-cases.json", NULL, ":1:1: missing required field 'cases'",
     0},
    {"results-schema-v3.json", NULL,
     ":2:12: schema: unsupported schema version 3", 0},
    {"results-invalid-utf8.json", NULL, ":65:43: unable to decode byte 0xff",
     0},
    {"results-duplicate-key.json", NULL, ":14:9: duplicate object key", 0},
    {"results-empty.json", NULL, ":1:1: empty file", 0},
    {"results-not-object.json", NULL, ":1:1: not a gcbench results document",
     0},
    {"nul.json", "{\"schema\": \"gcbench.results/1\"\0}",
     ":1:", sizeof "{\"schema\": \"gcbench.results/1\"\0}" - 1},
    {"criteria.json", "{\"schema\": \"gcbench.criteria/1\", \"checks\": []}",
     ":1:12: schema: not a gcbench results document", 0},
    {"truncated.json", "{\"schema\": \"gcbench.results/1\", \"cases\": [{",
     ":1:", 0},
    {"binary.json", "\x89PNG\r\n\x1a\n\0\0\0", ":1:", 11},
    /* a valid document but for a NUL after a number, which jansson drops:
     * it was read as if the NUL were not there */
    {"results-nul-byte.json", NULL,
     ":39:20: a NUL byte, which JSON text never holds", 0},
};

static const char *doc_path(const struct bad_doc *d) {
  if (d->text == NULL) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, d->name);
    return path;
  }
  const char *p = gcb_test_path(d->name);
  write_file(p, d->text, d->len ? d->len : strlen(d->text));
  return p;
}

static void expect_located(const char *const *args, const char *path,
                           const char *says, const char *what) {
  char want[1024];
  snprintf(want, sizeof want, "%s%s", path, says);
  expect_refused(args, want, what);
}

Test(cli, bad_results_documents_are_located_through_report_and_compare) {
  for (size_t i = 0; i < sizeof bad_results / sizeof *bad_results; i++) {
    const struct bad_doc *d = &bad_results[i];
    char path[512];
    snprintf(path, sizeof path, "%s", doc_path(d));
    char what[96];
    snprintf(what, sizeof what, "report %s", d->name);
    const char *report[] = {"report", path, "--output", gcb_test_path("rep"), NULL};
    expect_located(report, path, d->says, what);
    snprintf(what, sizeof what, "compare %s as the baseline", d->name);
    const char *as_old[] = {"compare", path, DATA("results-valid.json"), NULL};
    expect_located(as_old, path, d->says, what);
    snprintf(what, sizeof what, "compare %s as the new run", d->name);
    const char *as_new[] = {"compare", DATA("results-valid.json"), path, NULL};
    expect_located(as_new, path, d->says, what);
    snprintf(what, sizeof what, "report --baseline %s", d->name);
    const char *baseline[] = {
        "report", DATA("results-valid.json"), "--baseline", path,
        "--output",     gcb_test_path("rep"),       NULL};
    expect_located(baseline, path, d->says, what);
  }
}

/* A file of `n` nested arrays inside a results document. */
static const char *deep_file(size_t n) {
  const char *path = gcb_test_path("deep.json");
  size_t len = 64 + 2 * n;
  char *text = malloc(len);
  int head = snprintf(text, len, "{\"schema\": \"gcbench.results/1\", \"x\": ");
  memset(text + head, '[', n);
  memset(text + head + n, ']', n);
  text[head + 2 * n] = '}';
  write_file(path, text, (size_t)head + 2 * n + 1);
  free(text);
  return path;
}

Test(cli, deep_nesting_huge_files_and_non_files_are_refused) {
  char deep[512];
  snprintf(deep, sizeof deep, "%s", deep_file(200000));
  const char *report[] = {"report", deep, "--output", gcb_test_path("rep"), NULL};
  expect_located(report, deep, ":1:", "deep nesting");
  char *err = gcb_test_slurp("stderr");
  cr_expect(strstr(err, "maximum parsing depth") != NULL, "%s", err);
  free(err);
  /* Over 256 MiB with a hole: refused before reading (it was read whole,
   * then refused as over the limit of a document with no entries). */
  char huge[512];
  snprintf(huge, sizeof huge, "%s", gcb_test_path("huge.json"));
  int fd = creat(huge, 0644);
  cr_assert_geq(fd, 0);
  cr_assert_eq(ftruncate(fd, 300L << 20), 0);
  close(fd);
  const char *big[] = {"compare", huge, DATA("results-valid.json"), NULL};
  expect_refused(big, "a sparse file of 314572800 bytes", "huge");
  const char *missing[] = {"report", gcb_test_path("nope.json"), "--output",
                           gcb_test_path("rep"), NULL};
  expect_refused(missing, "nope.json: cannot open (No such file", "missing");
  char says[512];
  snprintf(says, sizeof says, "%s: is a directory", gcb_test_dir());
  const char *directory[] = {"compare", gcb_test_dir(),
                             DATA("results-valid.json"), NULL};
  expect_refused(directory, says, "a directory");
  const char *report_dir[] = {"report", gcb_test_dir(), "--output",
                              gcb_test_path("rep"), NULL};
  expect_refused(report_dir, says, "a directory to report");
}

/* Inputs that cannot be read, or whose bytes never come: each is bad
 * input, refused in one line with exit 2. A FIFO nobody writes to was
 * waited on for ever (report, --criteria); /proc/self/mem exited 3; a
 * 2 GiB sparse file was read whole (10 s, 2 GB) before it was refused. */
Test(cli, unreadable_silent_and_sparse_inputs_exit_2) {
  const char *rep = gcb_test_path("rep");
  const char *mem[] = {"report", "/proc/self/mem", "--output", rep, NULL};
  expect_refused(mem, "/proc/self/mem: cannot read (", "/proc/self/mem");
  char sparse[512];
  snprintf(sparse, sizeof sparse, "%s", gcb_test_path("sparse.json"));
  int fd = creat(sparse, 0644);
  cr_assert_geq(fd, 0);
  cr_assert_eq(ftruncate(fd, (off_t)2 << 30), 0);
  bool holes = lseek(fd, 0, SEEK_HOLE) == 0;
  close(fd);
  const char *big[] = {"report", sparse, "--output", rep, NULL};
  if (holes) /* else the filesystem cannot say, and it is read */
    expect_refused(big, "a sparse file of 2147483648 bytes", "2 GiB sparse");
  unlink(sparse);
  char fifo[512];
  snprintf(fifo, sizeof fifo, "%s", gcb_test_path("fifo.json"));
  cr_assert_eq(mkfifo(fifo, 0644), 0);
  const char *report[] = {"report", fifo, "--output", rep, NULL};
  const char *criteria[] = {
      "report", DATA("results-valid.json"), "--criteria", fifo, "--output", rep,
      NULL};
  const char *const *runs[] = {report, criteria};
  for (size_t i = 0; i < 2; i++) {
    double took = 0;
    int code = gcb_test_run(0, runs[i], 60, &took);
    char *err = gcb_test_slurp("stderr");
    cr_expect_eq(code, 2, "a FIFO with no writer (%zu): exit %d: %s", i, code,
                 err);
    cr_expect(strstr(err, "fifo.json: nothing to read for 10 s") != NULL &&
                  strchr(err, '\n') == err + strlen(err) - 1,
              "%s", err);
    free(err);
  }
}

/* gcb_file_read (report, compare) and a document read from it on pipes:
 * read whole, past the first 64 KiB, with the size limit of files. */
Test(cli, pipes_are_read_whole_with_the_size_limit) {
  static const struct {
    size_t len;
    enum gcb_status st;
  } pipes[] = {{0, GCB_OK}, {300 << 10, GCB_OK}, {257u << 20, GCB_EINPUT}};
  for (size_t i = 0; i < sizeof pipes / sizeof *pipes; i++) {
    struct gcb_test_feed f;
    gcb_test_feed_start(&f, NULL, pipes[i].len);
    char *text = NULL;
    size_t len = 0;
    struct gcb_err err = {0};
    cr_expect_eq(gcb_file_read(f.path, GCB_FILE_MAX_BYTES, &text, &len, &err),
                 pipes[i].st, "a pipe of %zu bytes: %s", pipes[i].len, err.msg);
    gcb_test_feed_end(&f);
    if (pipes[i].st == GCB_OK) {
      cr_expect_eq(len, pipes[i].len);
      cr_expect(text != NULL && text[len] == '\0');
      cr_expect(len == 0 || (text[0] == 'x' && text[len - 1] == 'x'));
    } else {
      cr_expect_null(text);
      cr_expect(strstr(err.msg, "limit 256 MiB)") != NULL, "%s", err.msg);
    }
    free(text);
  }
  char *doc = gcb_test_read(DATA("results-valid.json"));
  struct gcb_test_feed f;
  gcb_test_feed_start(&f, doc, strlen(doc));
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(fx_results_read(f.path, &r, &err), GCB_OK, "%s", err.msg);
  gcb_test_feed_end(&f);
  gcb_results_free(r);
  free(doc);
}

/* `gcbench report <(cat results.json)` and the like: a pipe is read as a
 * file is, whatever it holds and wherever it stands on the command line. */
Test(cli, pipes_are_read_by_report_and_compare) {
  static const struct {
    const char *what, *args[8]; /* "PIPE": the pipe's path goes there */
  } runs[] = {
      {"report", {"report", "PIPE", "--output", "REP"}},
      {"report --baseline",
       {"report", DATA("results-valid.json"), "--baseline", "PIPE", "--output",
        "REP"}},
      {"compare", {"compare", "PIPE", DATA("results-valid.json")}},
  };
  static const char *const docs[] = {DATA("results-valid.json"),
                                     DATA("interop/nccl-tests-allreduce.json")};
  for (size_t d = 0; d < sizeof docs / sizeof *docs; d++)
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
      char *text = gcb_test_read(docs[d]);
      struct gcb_test_feed f;
      gcb_test_feed_start(&f, text, strlen(text));
      free(text);
      const char *args[8] = {NULL};
      for (size_t k = 0; runs[i].args[k]; k++)
        args[k] = strcmp(runs[i].args[k], "PIPE") == 0  ? f.path
                  : strcmp(runs[i].args[k], "REP") == 0 ? gcb_test_path("rep")
                                                        : runs[i].args[k];
      int code = gcb_test_gcbench(0, args);
      gcb_test_feed_end(&f);
      char *err = gcb_test_slurp("stderr");
      cr_expect(code == 0 || code == 1, "%s of %s: exit %d: %s", runs[i].what,
                docs[d], code, err);
      free(err);
    }
}

static const struct bad_doc bad_criteria[] = {
    {"c-syntax.json", "{\"schema\": \"gcbench.criteria/1\",,}",
     ":1:33: string or '}' expected near ','", 0},
    {"c-version.json", "{\"schema\": \"gcbench.criteria/2\", \"checks\": []}",
     ":1:12: schema: unsupported criteria version 2", 0},
    {"c-missing.json", "{\"schema\": \"gcbench.criteria/1\"}",
     ":1:1: missing required field 'checks'", 0},
    {"c-type.json",
     "{\"schema\": \"gcbench.criteria/1\",\n \"checks\": [{\"bench\": 5, "
     "\"min\": "
     "{\"median\": 1}}]}",
     ":2:23: checks[0].bench: expected a string", 0},
    {"c-utf8.json",
     "{\"schema\": \"gcbench.criteria/1\", \"name\": \"\xc3\x28\", \"checks\": "
     "[]}",
     ":1:", 0},
    {"c-results.json", "{\"schema\": \"gcbench.results/1\"}",
     ":1:12: schema: not a gcbench criteria file", 0},
    {"c-empty.json", "", ":1:1:", 0},
    /* Found by scripts/fuzz: a key with a newline and a terminal escape
     * in it is shown as \xNN, and the message stays one line. */
    {"c-escape.json",
     "{\"schema\": \"gcbench.criteria/1\",\n \"bad\\nkey\\u001b[31m\": 1, "
     "\"checks\": []}",
     ":2:24: bad\\x0akey\\x1b[31m: unknown field 'bad\\x0akey\\x1b[31m'", 0},
    {"c-nul.json",
     "{\"schema\": \"gcbench.criteria/1\", \"thresholds\": {\"slow_rank_pct\": "
     "10\0}, \"checks\": []}",
     ":1:68: a NUL byte, which JSON text never holds",
     sizeof "{\"schema\": \"gcbench.criteria/1\", \"thresholds\": "
            "{\"slow_rank_pct\": 10\0}, \"checks\": []}" -
         1},
};

Test(cli, bad_criteria_files_are_located) {
  for (size_t i = 0; i < sizeof bad_criteria / sizeof *bad_criteria; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s", doc_path(&bad_criteria[i]));
    const char *args[] = {
        "report",   DATA("results-valid.json"), "--criteria", path,
        "--output", gcb_test_path("rep"),       NULL};
    expect_located(args, path, bad_criteria[i].says, bad_criteria[i].name);
  }
  char deep[512];
  snprintf(deep, sizeof deep, "%s", gcb_test_path("c-deep.json"));
  size_t n = 200000;
  char *text = malloc(n * 2 + 64);
  int head = sprintf(text, "{\"schema\": \"gcbench.criteria/1\", \"checks\": ");
  memset(text + head, '[', n);
  memset(text + head + n, ']', n);
  text[head + 2 * n] = '}';
  write_file(deep, text, (size_t)head + 2 * n + 1);
  free(text);
  const char *args[] = {
      "report",   DATA("results-valid.json"), "--criteria", deep,
      "--output", gcb_test_path("rep"),       NULL};
  expect_located(args, deep, ":1:", "deep criteria");
}

/* ---- topology XML --------------------------------------------------------*/

static const struct bad_doc bad_xml[] = {
    {"truncated.xml",
     "<?xml version=\"1.0\"?>\n<topology><object type=\"Machine\"",
     ":2: not a valid hwloc XML topology (not well-formed XML", 0},
    {"garbage.xml", "garbage\n",
     ":1: not a valid hwloc XML topology (not well-formed XML", 0},
    /* hwloc 2.9's own parser ends with SIGSEGV on these 21 bytes */
    {"no-space.xml", "<topologyversion=\"2.0",
     ":1: not a valid hwloc XML topology (not well-formed XML", 0},
    {"empty.xml", "", ": not a valid hwloc XML topology", 0},
    {"binary.xml", "\x89PNG\r\n\x1a\n\0\0\0",
     ": not a valid hwloc XML topology", 11},
    {"hwloc3.xml",
     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM "
     "\"hwloc2.dtd\">\n<topology version=\"3.0\">\n <object type=\"Machine\" "
     "os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" "
     "allowed_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" "
     "allowed_nodeset=\"0x1\" gp_index=\"1\">\n  <object type=\"PU\" "
     "os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" "
     "complete_nodeset=\"0x1\" gp_index=\"2\"/>\n </object>\n</topology>\n",
     ": hwloc XML format 3.x (hwloc 3) cannot be read by hwloc 2.x", 0},
};

Test(cli, bad_topology_xml_is_a_clear_error) {
  for (size_t i = 0; i < sizeof bad_xml / sizeof *bad_xml; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s", doc_path(&bad_xml[i]));
    const char *args[] = {"topo", "--topology-xml", path, NULL};
    expect_located(args, path, bad_xml[i].says, bad_xml[i].name);
  }
  const char *missing[] = {"topo", "--topology-xml", gcb_test_path("none.xml"),
                           NULL};
  expect_refused(missing, "none.xml: cannot open", "missing xml");
  const char *directory[] = {"topo", "--topology-xml", gcb_test_dir(), NULL};
  expect_refused(directory, gcb_test_dir(), "a directory as xml");
}

/* ---- input that tries to be more than data --------------------------------*/

/* results-valid.json with its first case's label replaced by `label`. */
static const char *with_label(const char *name, const char *label) {
  char *text = gcb_test_read(DATA("results-valid.json"));
  const char *key = "\"label\": \"";
  char *at = strstr(text, key);
  cr_assert_not_null(at);
  at += strlen(key);
  char *end = at; /* the closing quote, past escaped ones */
  while (*end != '\0' && *end != '"')
    end += end[0] == '\\' && end[1] != '\0' ? 2 : 1;
  const char *path = gcb_test_path(name);
  FILE *f = fopen(path, "w");
  fwrite(text, 1, (size_t)(at - text), f);
  fputs(label, f);
  fputs(end, f);
  fclose(f);
  free(text);
  return path;
}

Test(cli, labels_with_html_gnuplot_and_shell_syntax_stay_text) {
  char label[512];
  snprintf(label, sizeof label,
           "<script>alert(1)</script>' . system('touch %s/pwned1') . '"
           "`touch %s/pwned2` $(touch %s/pwned3) \\\"; set output '/tmp/x'",
           gcb_test_dir(), gcb_test_dir(), gcb_test_dir());
  char doc[512], out[512];
  snprintf(doc, sizeof doc, "%s", with_label("hostile.json", label));
  snprintf(out, sizeof out, "%s", gcb_test_path("rep"));
  const char *args[] = {"report", doc, "--output", out, NULL};
  int code = gcb_test_gcbench(0, args);
  cr_expect(code == 0 || code == 1, "exit %d: %s", code,
            gcb_test_slurp("stderr"));
  char html[600];
  snprintf(html, sizeof html, "%s/index.html", out);
  char *page = gcb_test_read(html);
  cr_expect(strstr(page, "<script>alert(1)") == NULL, "raw script in the page");
  cr_expect(strstr(page, "&lt;script&gt;alert(1)") != NULL ||
                strstr(page, "alert(1)") == NULL,
            "the label is neither escaped nor dropped");
  free(page);
  const char *pwned[] = {"pwned1", "pwned2", "pwned3"};
  for (size_t i = 0; i < 3; i++)
    cr_expect(!exists(gcb_test_path(pwned[i])), "%s was created", pwned[i]);
}

Test(cli, output_names_are_paths_never_commands) {
  char name[512];
  snprintf(name, sizeof name, "%s/o u t;$(touch pwned4)`touch pwned5`.json",
           gcb_test_dir());
  const char *run[] = {"membw",    "--size", "4K",       "--iters", "1",
                       "--warmup", "0",      "--output", name,      NULL};
  cr_assert_eq(gcb_test_gcbench(0, run), 0, "%s", gcb_test_slurp("stderr"));
  cr_expect(exists(name), "the document is not at the literal path");
  char rep[512];
  snprintf(rep, sizeof rep, "%s/r e p;touch pwned6 #", gcb_test_dir());
  const char *report[] = {"report", name, "--output", rep, NULL};
  int code = gcb_test_gcbench(0, report);
  cr_expect(code == 0 || code == 1, "exit %d: %s", code,
            gcb_test_slurp("stderr"));
  char md[600];
  snprintf(md, sizeof md, "%s/report.md", rep);
  cr_expect(exists(md), "the report is not in the literal directory");
  /* A shell would have run touch in the working directory. */
  const char *pwned[] = {"pwned4", "pwned5", "pwned6"};
  for (size_t i = 0; i < 3; i++)
    cr_expect(!exists(pwned[i]) && !exists(gcb_test_path(pwned[i])),
              "%s was created", pwned[i]);
}

/* Found by scripts/fuzz: a file name that is not UTF-8 (legal on Linux)
 * made the options echo fail, and the run with it ("no value for section
 * 'options'"). It is echoed with U+FFFD for the bad byte. */
Test(cli, an_output_name_that_is_not_utf8_is_used_as_it_is) {
  char name[512];
  snprintf(name, sizeof name, "%s/x\xf7y.json", gcb_test_dir());
  const char *run[] = {"membw",    "--size", "4K",       "--iters", "1",
                       "--warmup", "0",      "--output", name,      NULL};
  cr_assert_eq(gcb_test_gcbench(0, run), 0, "%s", gcb_test_slurp("stderr"));
  char *doc = gcb_test_read(name);
  cr_expect(strstr(doc, "x\xef\xbf\xbdy.json") != NULL, "the echo of -o");
  free(doc);
  /* The command line too, every argument kept. */
  struct gcb_results *r = gcb_test_load("x\xf7y.json");
  json_t *argv = json_object_get(gcb_test_section(r, "run"), "command_line");
  cr_expect_eq(json_array_size(argv), 9);
  const char *last = json_string_value(json_array_get(argv, 8));
  cr_expect(last != NULL && strstr(last, "/x\xef\xbf\xbdy.json") != NULL,
            "command_line[8]: %s", last ? last : "(none)");
  gcb_results_free(r);
  /* The document reads back. */
  const char *compare[] = {"compare", name, name, NULL};
  int code = gcb_test_gcbench(0, compare);
  cr_expect(code == 0 || code == 1, "exit %d: %s", code,
            gcb_test_slurp("stderr"));
}

/* A results document whose name is not UTF-8: report failed writing
 * findings.json ("out of memory"). The name is written with U+FFFD for the
 * bad byte in findings.json and junit.xml; a message shows it as \xNN. */
Test(cli, a_results_file_named_not_utf8_is_reported) {
  char *text = gcb_test_read(DATA("results-valid.json"));
  char name[512], rep[512], file[600], want[512];
  snprintf(name, sizeof name, "%s", gcb_test_path("r\xffs.json"));
  snprintf(rep, sizeof rep, "%s", gcb_test_path("rep"));
  snprintf(want, sizeof want, "%s/r\xef\xbf\xbds.json", gcb_test_dir());
  write_file(name, text, strlen(text));
  free(text);
  const char *args[] = {"report",   name, "--baseline", name,
                        "--output", rep,  NULL};
  int code = gcb_test_gcbench(0, args);
  cr_expect(code == 0 || code == 1, "exit %d: %s", code,
            gcb_test_slurp("stderr"));
  snprintf(file, sizeof file, "%s/findings.json", rep);
  json_error_t je;
  json_t *root = json_load_file(file, 0, &je); /* valid JSON, UTF-8 */
  cr_assert_not_null(root, "findings.json: %s", je.text);
  json_t *doc = json_array_get(json_object_get(root, "documents"), 0);
  cr_expect_str_eq(json_string_value(json_object_get(doc, "file")), want);
  json_t *cmp = json_object_get(root, "comparison");
  cr_expect_str_eq(json_string_value(json_object_get(cmp, "baseline")), want);
  json_decref(root);
  snprintf(file, sizeof file, "%s/junit.xml", rep);
  char *xml = gcb_test_read(file);
  cr_expect(strchr(xml, '\xff') == NULL, "a bad byte in junit.xml");
  cr_expect(strstr(xml, "r\xef\xbf\xbds.json") != NULL, "%s", xml);
  free(xml);
  const char *missing[] = {"report", gcb_test_path("no\xff\n\033[2J.json"),
                           "--output", rep, NULL};
  expect_refused(missing, "no\\xff\\x0a\\x1b[2J.json: cannot open",
                 "a missing name with odd bytes");
}

/* A standard output that takes nothing (/dev/full) lost compare's
 * table and verdict, topo's matrix, report's summary and a run's table,
 * and the command
 * still exited 0 (or 1) without a word. Now: one line, exit 3. */
Test(cli, a_full_standard_output_is_a_runtime_error) {
  const char *const wrap[] = {"/bin/sh", "-c", "exec \"$0\" \"$@\" >/dev/full",
                              NULL};
  const char *compare[] = {"compare", DATA("results-valid.json"),
                           DATA("results-valid.json"), NULL};
  const char *report[] = {"report", DATA("results-valid.json"), "--output",
                          gcb_test_path("rep"), NULL};
  const char *help[] = {"compare", "--help", NULL};
  /* This one exited 3 already, but named results.csv, not standard output. */
  const char *csv[] = {"report", DATA("results-valid.json"), "--format", "csv",
                       "--output", "-", NULL};
  /* A measuring run's table (nccl-tests' layout) is its answer too: it
   * exited 0 with an empty log (red team, 2026-12-05). */
  const char *run[] = {"coll", "--collective", "allreduce", "-b", "8", "-e",
                       "8", "--iters", "2", "--warmup", "1", "--output",
                       gcb_test_path("run.json"), NULL};
  const char *const *runs[] = {compare, report, help, csv, run};
  for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
    int status = gcb_test_finish(gcb_test_start(0, NULL, wrap, runs[i]), 60,
                                 NULL);
    char *err = gcb_test_slurp("stderr");
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 3,
              "%s into /dev/full: status %#x: %s", runs[i][0], status, err);
    cr_expect(strstr(err, "standard output: write failed") != NULL &&
                  strchr(err, '\n') == err + strlen(err) - 1,
              "%s into /dev/full: %s", runs[i][0], err);
    free(err);
  }
}

/* A transport variable the "# gcbench MPI:" line echoes holds a newline
 * and a terminal escape: the line shows them as \xNN, so no forged row
 * reaches a parser of nccl-tests' layout (grep -v '^#') and no colour the
 * terminal. They were printed raw (red team, 2026-12-05). */
Test(cli, a_transport_variable_cannot_forge_a_row_of_the_table) {
  setenv("FI_PROVIDER",
         "x\033[31mRED\n           8             2     float     sum      -1"
         "     0.01    99.00    99.00       0     0.01    99.00    99.00   "
         "    0",
         1);
  const char *args[] = {"coll",
                        "--collective",
                        "allreduce",
                        "-b",
                        "8",
                        "-e",
                        "8",
                        "--iters",
                        "1",
                        "--output",
                        gcb_test_path("forged.json"),
                        NULL};
  int status = gcb_test_finish(gcb_test_start(2, NULL, NULL, args), 120, NULL);
  unsetenv("FI_PROVIDER");
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s",
            gcb_test_slurp("stderr"));
  char *out = gcb_test_slurp("stdout");
  cr_expect(strstr(out, "FI_PROVIDER=x\\x1b[31mRED\\x0a ") != NULL, "%s", out);
  cr_expect(strchr(out, '\033') == NULL, "an escape reached the terminal");
  for (char *l = strtok(out, "\n"); l != NULL; l = strtok(NULL, "\n"))
    cr_expect(l[0] == '#' || strstr(l, "99.00") == NULL, "a forged row: %s", l);
  free(out);
}

/* `report X -o -` without --format wrote a whole report into a
 * new directory named "-" and exited 0; standard output takes one format. */
Test(cli, output_dash_without_a_format_is_refused) {
  const char *args[] = {"report", DATA("results-valid.json"), "--output", "-",
                        NULL};
  expect_refused(args, "-o - (standard output) takes one format",
                 "-o - without --format");
}

/* `topo --cpuset 0@99` said "rank 0: no GPU 99 (...)" without
 * naming the option that gave rank 0 its GPU; --cpuset's other errors did. */
Test(cli, a_cpuset_rank_the_topology_cannot_hold_names_cpuset) {
  const char *gpu[] = {"topo", "--topology-xml",
                       DATA("topo/hwloc-2socket-3gpu-ib.xml"), "--cpuset",
                       "0@99", NULL};
  expect_refused(gpu, "--cpuset: rank 0: no GPU 99", "a GPU past the node's");
  const char *cpus[] = {"topo", "--topology-xml",
                        DATA("topo/mpibind-lassen-4xv100.xml"), "--cpuset",
                        "0-3@0", "--format", "json", NULL};
  expect_refused(cpus, "--cpuset: rank 0: invalid CPU list '0-3'",
                 "CPUs the node does not have");
}

/* A --cpuset error found by the binding check came after the whole
 * topology table on stdout, as if the command had half worked; and "this
 * machine's CPUs" meant the machine of --topology-xml, not this one. */
Test(cli, a_cpuset_error_prints_no_table_and_names_the_machines_cpus) {
  const char *args[] = {"topo", "--topology-xml",
                        DATA("topo/mpibind-lassen-4xv100.xml"), "--cpuset",
                        "100000@0", NULL};
  expect_refused(args,
                 "--cpuset: rank 0: invalid CPU list '100000' (none of the "
                 "machine's CPUs 8-87,96-175)",
                 "CPUs past the node's, as text");
  char *out = gcb_test_slurp("stdout");
  cr_expect_str_empty(out, "a refused --cpuset printed: %.200s", out);
  free(out);
}
