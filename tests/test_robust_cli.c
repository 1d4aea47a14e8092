/*
 * Bad input everywhere, through the executable: options, results,
 * baseline and criteria files, topology XML. Each is refused with one line
 * and exit code 2 (files located as file:line:column), never a crash or a
 * hang. And input that tries to be more than data (HTML, gnuplot and shell
 * syntax in labels, shell syntax in output names) stays data. Each table
 * here is a row of docs/ROBUSTNESS.md.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define DATA(name) GCB_TEST_DATA "/" name

static char dir[64];

static void make_dir(void) {
  snprintf(dir, sizeof dir, "/tmp/gcb-robust-cli-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_expect_eq(system(cmd), 0);
}

TestSuite(cli, .init = make_dir, .fini = remove_dir, .timeout = 120);

static const char *in_dir(const char *name) {
  static char path[8][512];
  static int next;
  char *p = path[next++ % 8];
  snprintf(p, 512, "%s/%s", dir, name);
  return p;
}

/* Runs gcbench args... (one process, no mpiexec) in dir; exit status. */
static int gcbench(const char *const *args) {
  const char *argv[64];
  int n = 0;
  argv[n++] = GCB_BINARY;
  for (int i = 0; args[i] && n < 63; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, in_dir("stdout"),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, in_dir("stderr"),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, (char **)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  cr_assert_eq(rc, 0);
  int status = 0;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status), "gcbench died of signal %d",
            WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return WEXITSTATUS(status);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "open %s", path);
  char *buf = calloc(1, 4 << 20);
  size_t n = fread(buf, 1, (4 << 20) - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

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
  int code = gcbench(args);
  char *err = slurp(in_dir("stderr"));
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
    {{"coll", "--op", "allreduce,allsmash"}, "--op: unknown value 'allsmash'"},
    {{"coll", "-r", "median"}, "--redop: unknown value 'median'"},
    {{"coll", "--op", ","}, "--op: empty list"},
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
    {{"coll", "-n", "-1"}, "--iterations: -1 is below the minimum 0"},
    {{"coll", "-c", "2"}, "--check: 2 is above the maximum 1"},
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
      args[n++] = in_dir("never.json");
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
  const char *name; /* a file in tests/data, or made in dir when text */
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
    {"results-schema-v2.json", NULL,
     ":2:12: schema: unsupported schema version 2", 0},
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
};

static const char *doc_path(const struct bad_doc *d) {
  if (d->text == NULL) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", GCB_TEST_DATA, d->name);
    return path;
  }
  const char *p = in_dir(d->name);
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
    const char *report[] = {"report", path, "-o", in_dir("rep"), NULL};
    expect_located(report, path, d->says, what);
    snprintf(what, sizeof what, "compare %s as the baseline", d->name);
    const char *as_old[] = {"compare", path, DATA("results-valid.json"), NULL};
    expect_located(as_old, path, d->says, what);
    snprintf(what, sizeof what, "compare %s as the new run", d->name);
    const char *as_new[] = {"compare", DATA("results-valid.json"), path, NULL};
    expect_located(as_new, path, d->says, what);
    snprintf(what, sizeof what, "report --baseline %s", d->name);
    const char *baseline[] = {"report",     DATA("results-valid.json"),
                              "--baseline", path,
                              "-o",         in_dir("rep"),
                              NULL};
    expect_located(baseline, path, d->says, what);
  }
}

/* A file of `n` nested arrays inside a results document. */
static const char *deep_file(size_t n) {
  const char *path = in_dir("deep.json");
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
  const char *report[] = {"report", deep, "-o", in_dir("rep"), NULL};
  expect_located(report, deep, ":1:", "deep nesting");
  char *err = slurp(in_dir("stderr"));
  cr_expect(strstr(err, "maximum parsing depth") != NULL, "%s", err);
  free(err);
  /* Over the size limit: refused before reading (sparse, no disk used). */
  char huge[512];
  snprintf(huge, sizeof huge, "%s", in_dir("huge.json"));
  int fd = creat(huge, 0644);
  cr_assert_geq(fd, 0);
  cr_assert_eq(ftruncate(fd, 300L << 20), 0);
  close(fd);
  const char *big[] = {"compare", huge, DATA("results-valid.json"), NULL};
  expect_refused(big, "256 MiB", "huge");
  const char *missing[] = {"report", in_dir("nope.json"), "-o", in_dir("rep"),
                           NULL};
  expect_refused(missing, "nope.json: cannot open (No such file", "missing");
  /* (The message is the size limit's for now: reports/interop.c reads
   * the size of a directory as huge.) */
  const char *directory[] = {"compare", dir, DATA("results-valid.json"), NULL};
  expect_refused(directory, dir, "a directory");
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
};

Test(cli, bad_criteria_files_are_located) {
  for (size_t i = 0; i < sizeof bad_criteria / sizeof *bad_criteria; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s", doc_path(&bad_criteria[i]));
    const char *args[] = {"report",     DATA("results-valid.json"),
                          "--criteria", path,
                          "-o",         in_dir("rep"),
                          NULL};
    expect_located(args, path, bad_criteria[i].says, bad_criteria[i].name);
  }
  char deep[512];
  snprintf(deep, sizeof deep, "%s", in_dir("c-deep.json"));
  size_t n = 200000;
  char *text = malloc(n * 2 + 64);
  int head = sprintf(text, "{\"schema\": \"gcbench.criteria/1\", \"checks\": ");
  memset(text + head, '[', n);
  memset(text + head + n, ']', n);
  text[head + 2 * n] = '}';
  write_file(deep, text, (size_t)head + 2 * n + 1);
  free(text);
  const char *args[] = {"report",     DATA("results-valid.json"),
                        "--criteria", deep,
                        "-o",         in_dir("rep"),
                        NULL};
  expect_located(args, deep, ":1:", "deep criteria");
}

/* ---- topology XML --------------------------------------------------------*/

static const struct bad_doc bad_xml[] = {
    {"truncated.xml",
     "<?xml version=\"1.0\"?>\n<topology><object type=\"Machine\"",
     ": not a valid hwloc XML topology", 0},
    {"garbage.xml", "garbage\n", ": not a valid hwloc XML topology", 0},
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
  const char *missing[] = {"topo", "--topology-xml", in_dir("none.xml"), NULL};
  expect_refused(missing, "none.xml: cannot open", "missing xml");
  const char *directory[] = {"topo", "--topology-xml", dir, NULL};
  expect_refused(directory, dir, "a directory as xml");
}

/* ---- input that tries to be more than data --------------------------------*/

/* results-valid.json with its first case's label replaced by `label`. */
static const char *with_label(const char *name, const char *label) {
  char *text = slurp(DATA("results-valid.json"));
  const char *key = "\"label\": \"";
  char *at = strstr(text, key);
  cr_assert_not_null(at);
  at += strlen(key);
  char *end = at; /* the closing quote, past escaped ones */
  while (*end != '\0' && *end != '"')
    end += end[0] == '\\' && end[1] != '\0' ? 2 : 1;
  const char *path = in_dir(name);
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
           dir, dir, dir);
  char doc[512], out[512];
  snprintf(doc, sizeof doc, "%s", with_label("hostile.json", label));
  snprintf(out, sizeof out, "%s", in_dir("rep"));
  const char *args[] = {"report", doc, "-o", out, NULL};
  int code = gcbench(args);
  cr_expect(code == 0 || code == 1, "exit %d: %s", code,
            slurp(in_dir("stderr")));
  char html[600];
  snprintf(html, sizeof html, "%s/index.html", out);
  char *page = slurp(html);
  cr_expect(strstr(page, "<script>alert(1)") == NULL, "raw script in the page");
  cr_expect(strstr(page, "&lt;script&gt;alert(1)") != NULL ||
                strstr(page, "alert(1)") == NULL,
            "the label is neither escaped nor dropped");
  free(page);
  const char *pwned[] = {"pwned1", "pwned2", "pwned3"};
  for (size_t i = 0; i < 3; i++)
    cr_expect(!exists(in_dir(pwned[i])), "%s was created", pwned[i]);
}

Test(cli, output_names_are_paths_never_commands) {
  char name[512];
  snprintf(name, sizeof name, "%s/o u t;$(touch pwned4)`touch pwned5`.json",
           dir);
  const char *run[] = {"membw",    "--size", "4K", "--iters", "1",
                       "--warmup", "0",      "-o", name,      NULL};
  cr_assert_eq(gcbench(run), 0, "%s", slurp(in_dir("stderr")));
  cr_expect(exists(name), "the document is not at the literal path");
  char rep[512];
  snprintf(rep, sizeof rep, "%s/r e p;touch pwned6 #", dir);
  const char *report[] = {"report", name, "-o", rep, NULL};
  int code = gcbench(report);
  cr_expect(code == 0 || code == 1, "exit %d: %s", code,
            slurp(in_dir("stderr")));
  char md[600];
  snprintf(md, sizeof md, "%s/report.md", rep);
  cr_expect(exists(md), "the report is not in the literal directory");
  /* A shell would have run touch in the working directory. */
  const char *pwned[] = {"pwned4", "pwned5", "pwned6"};
  for (size_t i = 0; i < 3; i++)
    cr_expect(!exists(pwned[i]) && !exists(in_dir(pwned[i])), "%s was created",
              pwned[i]);
}

/* Found by scripts/fuzz: a file name that is not UTF-8 (legal on Linux)
 * made the options echo fail, and the run with it ("no value for section
 * 'options'"). It is echoed with U+FFFD for the bad byte. */
Test(cli, an_output_name_that_is_not_utf8_is_used_as_it_is) {
  char name[512];
  snprintf(name, sizeof name, "%s/x\xf7y.json", dir);
  const char *run[] = {"membw",    "--size", "4K", "--iters", "1",
                       "--warmup", "0",      "-o", name,      NULL};
  cr_assert_eq(gcbench(run), 0, "%s", slurp(in_dir("stderr")));
  char *doc = slurp(name);
  cr_expect(strstr(doc, "x\xef\xbf\xbdy.json") != NULL, "the echo of -o");
  free(doc);
  /* The document reads back. */
  const char *compare[] = {"compare", name, name, NULL};
  int code = gcbench(compare);
  cr_expect(code == 0 || code == 1, "exit %d: %s", code,
            slurp(in_dir("stderr")));
}
