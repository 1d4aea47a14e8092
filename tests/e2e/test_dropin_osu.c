/*
 * gcbench as the OSU micro-benchmarks, run as a person runs them: every
 * osu_* name gcbench is linked as runs its collective and writes a results
 * document; the output has OSU's layout byte for byte where OSU's is fixed
 * (the title, datatype and column lines, compared with real OSU output in
 * tests/data/interop and with OSU 7.4's print functions) and its rows end
 * in OSU's columns; gcbench's own OSU reader takes it back; OSU's options
 * mean what they mean there (sizes, iterations and their per-size
 * defaults, -f, -c, -d); what gcbench cannot do is refused in one line.
 */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/interop/interop.h"
#include "reports/reports.h"
#include "tests/e2e/run_gcbench.h"

static void make_dir(void) {
  gcb_test_dir_make("gcb-dropin-osu");
}

TestSuite(dropin_osu, .init = make_dir, .fini = gcb_test_dir_remove,
          .timeout = 300);

/* Runs `program` as a script calls it: argv[0] the name. Names that the
 * build links beside gcbench run from there; others from a link made in
 * the scratch directory. */
static int run_program(int ranks, const char *program,
                       const char *const *args) {
  char script[512];
  snprintf(script, sizeof script,
           "p=\"$(dirname \"$0\")/%s\"; [ -e \"$p\" ] || { ln -sf \"$0\" "
           "\"%s/%s\"; p=\"%s/%s\"; }; exec \"$p\" \"$@\"",
           program, gcb_test_dir(), program, gcb_test_dir(), program);
  const char *wrap[] = {"/bin/sh", "-c", script, NULL};
  int status =
      gcb_test_finish(gcb_test_start(ranks, NULL, wrap, args), 240, NULL);
  cr_assert(WIFEXITED(status), "%s died", program);
  return WEXITSTATUS(status);
}

static const struct {
  const char *program, *op, *title;
} programs[] = {
    {"osu_latency", "latency", "# OSU MPI Latency Test v7.4\n"},
    {"osu_bw", "bandwidth", "# OSU MPI Bandwidth Test v7.4\n"},
    {"osu_allreduce", "allreduce", "# OSU MPI Allreduce Latency Test v7.4\n"},
    {"osu_allgather", "allgather", "# OSU MPI Allgather Latency Test v7.4\n"},
    {"osu_alltoall", "alltoall",
     "# OSU MPI All-to-All Personalized Exchange Latency Test v7.4\n"},
    {"osu_bcast", "broadcast", "# OSU MPI Broadcast Latency Test v7.4\n"},
    {"osu_reduce", "reduce", "# OSU MPI Reduce Latency Test v7.4\n"},
    {"osu_reduce_scatter", "reducescatter",
     "# OSU MPI Reduce_scatter Latency Test v7.4\n"},
    {"osu_gather", "gather", "# OSU MPI Gather Latency Test v7.4\n"},
    {"osu_scatter", "scatter", "# OSU MPI Scatter Latency Test v7.4\n"},
    {"osu_bibw", "bibw", "# OSU MPI Bi-Directional Bandwidth Test v7.4\n"},
    {"osu_multi_lat", "latency", "# OSU MPI Multi Latency Test v7.4\n"},
    /* osu_mbw_mr prints no blank line before its title: see below */
    {"osu_mbw_mr", "bandwidth",
     "# OSU MPI Multiple Bandwidth / Message Rate Test v7.4\n# [ pairs: 1 ] "
     "[ window size: 64 ]\n"},
};

Test(dropin_osu, every_program_name_runs_its_collective_in_osu_layout) {
  for (size_t i = 0; i < sizeof programs / sizeof *programs; i++) {
    char doc[64], op[64], head[200];
    snprintf(doc, sizeof doc, "%s.json", programs[i].program);
    const char *args[] = {"-m",       "64:128",           "-i", "3", "-x", "1",
                          "--output", gcb_test_path(doc), NULL};
    cr_assert_eq(run_program(2, programs[i].program, args), 0, "%s: %s",
                 programs[i].program, gcb_test_slurp("stderr"));
    char *out = gcb_test_slurp("stdout");
    /* stdout opens with OSU's first line (gcbench's own are on stderr):
     * print_preamble's blank line, the title, the datatype line
     * (osu_mbw_mr: its HEADER first, then the pairs line) */
    bool mbw = strcmp(programs[i].program, "osu_mbw_mr") == 0;
    snprintf(head, sizeof head, "%s%s# Datatype: MPI_CHAR.\n# Size ",
             mbw ? "" : "\n", programs[i].title);
    cr_assert(strncmp(out, head, strlen(head)) == 0, "%s:\n%s",
              programs[i].program, out);
    /* OSU's sizes (each rank's block for allgather and alltoall) */
    cr_assert(strstr(out, "\n64        ") && strstr(out, "\n128       "), "%s",
              out);
    cr_assert(strstr(out, "Out of bounds") == NULL, "nccl-tests' footer");
    free(out);
    char *json = gcb_test_slurp(doc);
    snprintf(op, sizeof op, "\"op\": \"%s\"", programs[i].op);
    cr_assert(strstr(json, op) != NULL, "%s: no %s case", doc, op);
    /* out of place only, as OSU; 3 timed iterations after 1 warm-up */
    cr_assert(strstr(json, "\"inplace\": 1") == NULL, "%s", doc);
    cr_assert(strstr(json, "\"iterations\": 3,") != NULL, "%s", doc);
    cr_assert(strstr(json, "\"warmup\": 1,") != NULL, "%s", doc);
    free(json);
  }
}

/* The lines of `text` (modified in place). */
static int lines_of(char *text, char **lines, int max) {
  int n = 0;
  for (char *save, *l = strtok_r(text, "\n", &save); l && n < max;
       l = strtok_r(NULL, "\n", &save))
    lines[n++] = l;
  return n;
}

static const char *find_line(char **lines, int n, const char *prefix) {
  for (int i = 0; i < n; i++)
    if (strncmp(lines[i], prefix, strlen(prefix)) == 0)
      return lines[i];
  return NULL;
}

/* Where each blank-separated field of a row ends; the field count. */
static int ends_of(const char *row, int *ends, int max) {
  int n = 0;
  for (int i = 0; row[i] && n < max;) {
    while (row[i] == ' ')
      i++;
    int start = i;
    while (row[i] && row[i] != ' ')
      i++;
    if (i > start)
      ends[n++] = i;
  }
  return n;
}

/* Every data row of `mine` has the field ends of the real file's rows. */
static int rows_like(char **mine, int nm, char **ref, int nr) {
  int want[8], nw = 0, rows = 0;
  for (int i = 0; i < nr && nw == 0; i++)
    if (ref[i][0] != '#')
      nw = ends_of(ref[i], want, 8);
  cr_assert_gt(nw, 1);
  for (int i = 0; i < nm; i++) {
    if (mine[i][0] == '#')
      continue;
    int got[8], ng = ends_of(mine[i], got, 8);
    cr_assert_eq(ng, nw, "'%s'", mine[i]);
    for (int f = 1; f < nw; f++) /* the size is left-aligned */
      cr_assert_eq(got[f], want[f], "'%s': field %d ends at %d, OSU's %d",
                   mine[i], f + 1, got[f], want[f]);
    rows++;
  }
  return rows;
}

/* The column line of `program` and the real file's, byte for byte, and
 * the rows' columns; returns gcbench's output (caller frees). */
static char *compare_with(const char *program, const char *const *args,
                          const char *real, const char *column) {
  cr_assert_eq(run_program(2, program, args), 0, "%s",
               gcb_test_slurp("stderr"));
  char *text = gcb_test_slurp("stdout"), *copy = strdup(text);
  char *ref_text = gcb_test_read(real);
  char *mine[100], *ref[100];
  int nm = lines_of(copy, mine, 100), nr = lines_of(ref_text, ref, 100);
  const char *a = find_line(mine, nm, "# Size"),
             *b = find_line(ref, nr, "# Size");
  cr_assert(a && b);
  if (column)
    cr_assert_str_eq(a, b, "%s: column line", program);
  else /* OSU 7.4 renamed "Latency (us)" "Avg Latency(us)", same width */
    cr_assert_eq(strlen(a), strlen(b), "'%s' vs '%s'", a, b);
  cr_assert_gt(rows_like(mine, nm, ref, nr), 2);
  free(copy);
  free(ref_text);
  return text;
}

Test(dropin_osu, layout_matches_real_osu_output_byte_for_byte) {
  const char *bw[] = {"-m", "1:8", "-i",       "2",
                      "-x", "0",   "--output", gcb_test_path("bw.json"),
                      NULL};
  free(compare_with("osu_bw", bw,
                    GCB_TEST_DATA "/interop/parallelcluster-p5-openmpi-osu_"
                                  "bibw.txt",
                    "# Size      Bandwidth (MB/s)"));
  const char *ar[] = {"-m", "4:64", "-i",       "2",
                      "-x", "0",    "--output", gcb_test_path("ar.json"),
                      NULL};
  free(compare_with("osu_allreduce", ar,
                    GCB_TEST_DATA "/interop/parallelcluster-p5-intelmpi-osu_"
                                  "allreduce.txt",
                    "# Size       Avg Latency(us)"));
  const char *lat[] = {"-m", "1:16", "-i",       "4",
                       "-x", "1",    "--output", gcb_test_path("lat.json"),
                       NULL};
  char *out = compare_with(
      "osu_latency", lat,
      GCB_TEST_DATA "/interop/parallelcluster-p5-openmpi-osu_latency.txt",
      NULL);
  /* OSU 7.4 print_only_header: "%-10s%18s" (FIELD_WIDTH 18, configure.ac) */
  char want[64];
  snprintf(want, sizeof want, "\n%-10s%18s\n", "# Size", "Avg Latency(us)");
  cr_assert(strstr(out, want) != NULL, "%s", out);
  free(out);
  /* OSU 7.4's own output: its first four lines (the blank line, title,
   * datatype and column line) are gcbench's, byte for byte, and so are the
   * rows' columns; with -f -c too */
  const char *lat7[] = {"-m", "1:16", "-i",       "4",
                        "-x", "1",    "--output", gcb_test_path("lat7.json"),
                        NULL};
  out = compare_with("osu_latency", lat7,
                     GCB_TEST_DATA "/osu/osu-7.4-osu_latency-mpich-vm.txt",
                     "# Size       Avg Latency(us)");
  char *ref = gcb_test_read(GCB_TEST_DATA "/osu/osu-7.4-osu_latency-mpich-"
                                          "vm.txt");
  size_t head = strstr(ref, "Latency(us)\n") + 12 - ref;
  cr_assert(memmem(out, strlen(out), ref, head) != NULL, "%s", out);
  free(ref);
  free(out);
  const char *full[] = {"-m", "4:16", "-f",       "-c",
                        "-i", "3",    "--output", gcb_test_path("full.json"),
                        NULL};
  out = compare_with(
      "osu_allreduce", full,
      GCB_TEST_DATA "/osu/osu-7.4-osu_allreduce-f-c-mpich-vm.txt",
      "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  "
      "Iterations        Validation");
  free(out);
  const char *bw7[] = {
      "-m", "1:16", "-i", "2", "--output", gcb_test_path("bw7.json"), NULL};
  free(compare_with("osu_bw", bw7,
                    GCB_TEST_DATA "/osu/osu-7.4-osu_bw-mpich-vm.txt",
                    "# Size      Bandwidth (MB/s)"));
}

Test(dropin_osu, full_statistics_and_validation_columns_as_osu_prints_them) {
  const char *args[] = {"-m", "8:16", "-f", "-c",       "-i",
                        "7",  "-x",   "2",  "--output", gcb_test_path("f.json"),
                        NULL};
  cr_assert_eq(run_program(2, "osu_allreduce", args), 0, "%s",
               gcb_test_slurp("stderr"));
  char *out = gcb_test_slurp("stdout");
  /* print_only_header with show_full and validate (osu_util_mpi.c 7.4) */
  char head[160];
  snprintf(head, sizeof head, "\n%-10s%18s%18s%18s%12s%18s\n", "# Size",
           "Avg Latency(us)", "Min Latency(us)", "Max Latency(us)",
           "Iterations", "Validation");
  cr_assert(strstr(out, head) != NULL, "%s", out);
  /* print_stats_validate: size, avg, min, max, "%12lu" iterations, Pass */
  char *row = strstr(out, "\n8 ");
  cr_assert_not_null(row, "%s", out);
  char line[200];
  snprintf(line, sizeof line, "%.*s", (int)strcspn(row + 1, "\n"), row + 1);
  int ends[8];
  cr_assert_eq(ends_of(line, ends, 8), 6, "'%s'", line);
  cr_assert_eq(ends[1], 28);
  cr_assert_eq(ends[2], 46);
  cr_assert_eq(ends[3], 64);
  cr_assert_eq(ends[4], 76);
  cr_assert_eq(ends[5], 94);
  cr_assert(strncmp(row + 1 + 64, "           7              Pass\n", 31) == 0,
            "%s", row);
  free(out);
  char *json = gcb_test_slurp("f.json");
  cr_assert(strstr(json, "\"checked\": true") != NULL, "-c validates");
  free(json);
  /* without -c OSU validates nothing and prints no Validation column */
  const char *plain[] = {
      "-m", "8:8", "-i", "2", "--output", gcb_test_path("p.json"), NULL};
  cr_assert_eq(run_program(2, "osu_allreduce", plain), 0);
  out = gcb_test_slurp("stdout");
  cr_assert(strstr(out, "Validation") == NULL, "%s", out);
  free(out);
}

Test(dropin_osu, gcbench_reads_its_own_osu_output_back) {
  const char *args[] = {"-m", "2:64", "-i",       "3",
                        "-x", "0",    "--output", gcb_test_path("r.json"),
                        NULL};
  cr_assert_eq(run_program(2, "osu_allreduce", args), 0, "%s",
               gcb_test_slurp("stderr"));
  struct gcb_results *r = NULL;
  struct gcb_model *m = NULL;
  struct gcb_err err = {0};
  enum gcb_format f;
  char *text = gcb_test_read(gcb_test_path("stdout"));
  cr_assert_not_null(text);
  cr_assert_eq(gcb_interop_parse(text, strlen(text), "stdout", NULL, 0, &r, &m,
                                 &f, &err),
               GCB_OK, "%s", err.msg);
  free(text);
  cr_assert_eq(f, GCB_FORMAT_OSU, "read as %s", gcb_format_name(f));
  cr_assert_eq(m->ncases, 6, "2, 4 ... 64 bytes");
  gcb_model_free(m);
  gcb_results_free(r);
}

/* The timed iterations the document records for each size, in order. */
static int iterations_of(const char *json, long *out, int max) {
  int n = 0;
  for (const char *p = json; n < max && (p = strstr(p, "\"iterations\": "));
       p++)
    out[n++] = strtol(p + 14, NULL, 10);
  return n;
}

Test(dropin_osu, osu_iteration_defaults_change_past_8192_bytes) {
  /* osu_bw: BW_LOOP_SMALL 100 / BW_SKIP_SMALL 10 up to 8192 bytes,
   * BW_LOOP_LARGE 20 / BW_SKIP_LARGE 2 beyond (osu_util.h 7.4) */
  const char *args[] = {"-m", "8192:16384", "--output", gcb_test_path("d.json"),
                        NULL};
  cr_assert_eq(run_program(2, "osu_bw", args), 0, "%s",
               gcb_test_slurp("stderr"));
  char *json = gcb_test_slurp("d.json");
  long it[8];
  cr_assert_eq(iterations_of(json, it, 8), 2, "%s", json);
  cr_assert_eq(it[0], 100);
  cr_assert_eq(it[1], 20);
  cr_assert(strstr(json, "\"warmup\": 10,") && strstr(json, "\"warmup\": 2,"));
  free(json);
  /* -i sets both, as OSU's set_num_iterations */
  const char *given[] = {
      "-m", "8192:16384", "-i", "5", "--output", gcb_test_path("g.json"), NULL};
  cr_assert_eq(run_program(2, "osu_bw", given), 0);
  json = gcb_test_slurp("g.json");
  cr_assert_eq(iterations_of(json, it, 8), 2);
  cr_assert(it[0] == 5 && it[1] == 5);
  free(json);
  /* the defaults --help states, for osu_latency and the collectives */
  cr_assert_eq(run_program(2, "osu_latency", (const char *[]){"-h", NULL}), 0);
  char *out = gcb_test_slurp("stdout");
  cr_assert(strstr(out, "default 10000, 1000 above 8192 bytes") != NULL, "%s",
            out);
  free(out);
}

/* The one line on stderr for `program args`, which exits 2. */
static void refused(const char *program, const char *const *args, int ranks,
                    const char *words) {
  cr_assert_eq(run_program(ranks, program, args), 2, "%s %s", program,
               args[0] ? args[0] : "");
  char *err = gcb_test_slurp("stderr");
  cr_assert(strstr(err, words) != NULL, "%s", err);
  cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
  free(err);
  char *out = gcb_test_slurp("stdout");
  cr_assert(strstr(out, "# OSU") == NULL, "no run: %s", out);
  free(out);
}

Test(dropin_osu, what_gcbench_cannot_do_is_refused_in_one_line) {
  refused("osu_gather", (const char *[]){"-k", "rotate", NULL}, 2,
          "osu_gather: -k rotate: not supported");
  refused("osu_barrier", (const char *[]){"-c", NULL}, 2,
          "-c: not an option of osu_barrier");
  refused("osu_mbw_mr", (const char *[]){"-V", NULL}, 2,
          "osu_mbw_mr: -V: no varied-window table");
  refused("osu_latency", (const char *[]){"-f", NULL}, 2,
          "-f/--full: not an option of osu_latency");
  refused("osu_latency", (const char *[]){"-m", "0:8", NULL}, 2,
          "Invalid Message Size");
  refused("osu_latency", (const char *[]){NULL}, 3,
          "This test requires exactly two processes");
  refused("osu_allreduce", (const char *[]){"-G", "png", NULL}, 2,
          "-G: not supported");
  refused("osu_multi_lat", (const char *[]){"-W", "16", NULL}, 2,
          "osu_multi_lat: unknown option");
  refused("osu_allreduce", (const char *[]){"-d", "rocm", NULL}, 2,
          "-d/--accelerator 'rocm'");
  refused("osu_latency", (const char *[]){"-d", "cuda", "H", "D", NULL}, 2,
          "both buffers in one place");
  refused("osu_latency", (const char *[]){"--bogus", NULL}, 2,
          "unknown option '--bogus'");
  /* -v: OSU's version line, and nothing run */
  cr_assert_eq(run_program(1, "osu_allreduce", (const char *[]){"-v", NULL}),
               0);
  char *out = gcb_test_slurp("stdout");
  cr_assert_str_eq(out, "# OSU MPI Allreduce Latency Test v7.4\n");
  free(out);
}

Test(dropin_osu, coll_format_osu_prints_any_sweep_in_osus_layout) {
  const char *args[] = {"coll",
                        "--collective",
                        "latency",
                        "--format",
                        "osu",
                        "-b",
                        "8",
                        "-e",
                        "16",
                        "-f",
                        "2",
                        "--iters",
                        "3",
                        "--output",
                        gcb_test_path("b.json"),
                        NULL};
  cr_assert_eq(gcb_test_run(2, args, 240, NULL), 0, "%s",
               gcb_test_slurp("stderr"));
  char *out = gcb_test_slurp("stdout");
  /* one title, one block: out of place only, as OSU, by default */
  char *title = strstr(out, "\n# OSU MPI Latency Test v7.4\n");
  cr_assert_not_null(title, "%s", out);
  cr_assert_null(strstr(title + 2, "# OSU MPI"), "%s", out);
  cr_assert_null(strstr(out, "in place"), "%s", out);
  cr_assert_null(strstr(title + 1, "\n# Datatype: MPI_CHAR.\n# Datatype"));
  cr_assert(strstr(out, "\n16        ") != NULL, "%s", out);
  free(out);
}

Test(dropin_osu, coll_format_osu_in_place_is_named) {
  const char *args[] = {"coll",
                        "--collective",
                        "latency",
                        "--format",
                        "osu",
                        "--placement",
                        "in-place",
                        "-b",
                        "8",
                        "-e",
                        "8",
                        "--iters",
                        "3",
                        "--output",
                        gcb_test_path("i.json"),
                        NULL};
  cr_assert_eq(gcb_test_run(2, args, 240, NULL), 0, "%s",
               gcb_test_slurp("stderr"));
  char *out = gcb_test_slurp("stdout");
  cr_assert(strstr(out, "\n# OSU MPI Latency Test v7.4\n# gcbench: in place "
                        "(one buffer)\n# Datatype: MPI_CHAR.\n# Size ") != NULL,
            "%s", out);
  free(out);
  char *json = gcb_test_slurp("i.json");
  cr_assert(strstr(json, "\"inplace\": 0") == NULL, "%s", json);
  free(json);
}

/* osu_gather and osu_scatter against OSU 7.4's own output (-f -c: every
 * column) and OSU 5.6.3's from a public log: the column line byte for
 * byte, the rows' columns where OSU's end. */
Test(dropin_osu, gather_and_scatter_match_real_osu_output) {
  static const struct {
    const char *program, *real, *column;
    bool full;
  } refs[] = {
      {"osu_gather", "osu-7.4-osu_gather-f-c-mpich-vm.txt",
       "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  "
       "Iterations        Validation",
       true},
      {"osu_scatter", "osu-7.4-osu_scatter-f-c-mpich-vm.txt",
       "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  "
       "Iterations        Validation",
       true},
      {"osu_gather", "osu-7.4-osu_gather-mpich-vm.txt",
       "# Size       Avg Latency(us)", false},
      {"osu_gather", "osu-5.6.3-osu_gather-openmpi-wukan.txt",
       "# Size       Avg Latency(us)", false},
      {"osu_scatter", "osu-5.6.3-osu_scatter-openmpi-wukan.txt",
       "# Size       Avg Latency(us)", false},
  };
  for (size_t i = 0; i < sizeof refs / sizeof *refs; i++) {
    char real[256], doc[64];
    snprintf(real, sizeof real, GCB_TEST_DATA "/osu/%s", refs[i].real);
    snprintf(doc, sizeof doc, "gs%zu.json", i);
    const char *plain[] = {"-m", "16:64", "-i",       "3",
                           "-x", "1",     "--output", gcb_test_path(doc),
                           NULL};
    const char *full[] = {"-m", "16:64", "-f", "-c",       "-i",
                          "3",  "-x",    "1",  "--output", gcb_test_path(doc),
                          NULL};
    char *out = compare_with(refs[i].program, refs[i].full ? full : plain, real,
                             refs[i].column);
    /* OSU's sizes (each rank's block), and -c's verdict */
    cr_assert(strstr(out, "\n64        ") != NULL, "%s", out);
    cr_assert(!refs[i].full || strstr(out, "Pass\n") != NULL, "%s", out);
    free(out);
    char *json = gcb_test_slurp(doc);
    cr_assert(refs[i].full == (strstr(json, "\"checked\": true") != NULL), "%s",
              doc);
    free(json);
  }
}

/* osu_barrier against OSU 7.4's own output (plain and -f) and OSU 5.6.3's:
 * no datatype line, the "# Avg Latency(us)" column line byte for byte,
 * and the one row's fields ending where OSU's end ("%17.2f", with -f
 * "%18.2f%18.2f%12lu"). */
Test(dropin_osu, barrier_matches_real_osu_output) {
  static const struct {
    const char *real;
    bool full;
  } refs[] = {{"osu-7.4-osu_barrier-mpich-vm.txt", false},
              {"osu-7.4-osu_barrier-f-mpich-vm.txt", true},
              {"osu-5.6.3-osu_barrier-openmpi-wukan.txt", false}};
  for (size_t i = 0; i < sizeof refs / sizeof *refs; i++) {
    char real[256];
    snprintf(real, sizeof real, GCB_TEST_DATA "/osu/%s", refs[i].real);
    const char *plain[] = {"-i",      "20",       "-x",
                           "2",       "--output", gcb_test_path("bar.json"),
                           "--force", NULL};
    const char *full[] = {
        "-f",      "-i", "20", "-x", "2", "--output", gcb_test_path("bar.json"),
        "--force", NULL};
    cr_assert_eq(run_program(2, "osu_barrier", refs[i].full ? full : plain), 0,
                 "%s", gcb_test_slurp("stderr"));
    char *text = gcb_test_slurp("stdout"), *ref_text = gcb_test_read(real);
    char *mine[40], *ref[40];
    int nm = lines_of(text, mine, 40), nr = lines_of(ref_text, ref, 40);
    const char *a = find_line(mine, nm, "# Avg Latency(us)"),
               *b = find_line(ref, nr, "# Avg Latency(us)");
    cr_assert(a && b, "no column line");
    cr_assert_str_eq(a, b, "%s", refs[i].real);
    cr_assert_null(find_line(mine, nm, "# Datatype"), "OSU's barrier has none");
    cr_assert_null(find_line(mine, nm, "# Size"));
    int rows = 0, want[8], nw = 0;
    for (int j = 0; j < nr && nw == 0; j++)
      if (ref[j][0] != '#')
        nw = ends_of(ref[j], want, 8);
    cr_assert_eq(nw, refs[i].full ? 4 : 1);
    cr_assert_eq(want[0], 17, "OSU's %%17.2f");
    for (int j = 0; j < nm; j++) {
      if (mine[j][0] == '#')
        continue;
      int got[8];
      cr_assert_eq(ends_of(mine[j], got, 8), nw, "'%s'", mine[j]);
      for (int f = 0; f < nw; f++)
        cr_assert_eq(got[f], want[f], "'%s': field %d", mine[j], f + 1);
      rows++;
    }
    cr_assert_eq(rows, 1, "one row");
    free(text);
    free(ref_text);
    /* print_preamble's blank line and 7.4's title, then the column line */
    text = gcb_test_slurp("stdout");
    const char *opening = "\n# OSU MPI Barrier Latency Test v7.4\n# Avg "
                          "Latency(us)";
    cr_assert(strncmp(text, opening, strlen(opening)) == 0, "%s", text);
    free(text);
    char *json = gcb_test_slurp("bar.json");
    cr_assert(strstr(json, "\"op\": \"barrier\"") != NULL);
    cr_assert(strstr(json, "\"iterations\": 20,") != NULL);
    free(json);
  }
}

/* The figure columns' ends of `row`, from its second field on. */
static void expect_ends(const char *out, const char *row_start, int fields,
                        const int *want) {
  const char *row = strstr(out, row_start);
  cr_assert_not_null(row, "no row '%s' in:\n%s", row_start, out);
  char line[200];
  snprintf(line, sizeof line, "%.*s", (int)strcspn(row + 1, "\n"), row + 1);
  int ends[8];
  cr_assert_eq(ends_of(line, ends, 8), fields, "'%s'", line);
  for (int f = 1; f < fields; f++)
    cr_assert_eq(ends[f], want[f - 1], "'%s': field %d", line, f + 1);
}

/* osu_bibw, osu_multi_lat and osu_mbw_mr against real OSU output: the
 * column line byte for byte and every row's columns (OSU 5.6.2 runs kept
 * by ukri-excalibur/excalibur-tests, 5.3.2 by hpc-cofc/generic-benchmarks),
 * and OSU 7.4's header lines (NVIDIA/cloudai's fixtures of real 7.4
 * output) byte for byte. */
Test(dropin_osu, pt2pt_programs_match_real_osu_output_column_by_column) {
  const char *bibw[] = {"-m", "1:64", "-i",       "3",
                        "-x", "1",    "--output", gcb_test_path("bibw.json"),
                        NULL};
  free(compare_with("osu_bibw", bibw,
                    GCB_TEST_DATA "/osu/excalibur-5.6.2-osu_bibw.txt",
                    "# Size      Bandwidth (MB/s)"));
  const char *mbw[] = {"-m", "1:64", "-i",       "3",
                       "-x", "1",    "--output", gcb_test_path("mbw.json"),
                       NULL};
  char *out =
      compare_with("osu_mbw_mr", mbw,
                   GCB_TEST_DATA "/osu/excalibur-5.6.2-osu_mbw_mr-8pairs.txt",
                   "# Size                  MB/s        Messages/s");
  /* OSU 7.4: title, pairs line, datatype, column line, as cloudai's */
  char *ref = gcb_test_read(GCB_TEST_DATA "/osu/cloudai-7.4-osu_mbw_mr.txt");
  size_t head = strstr(ref, "Messages/s\n") + 11 - ref;
  cr_assert(memmem(out, strlen(out), ref, head) != NULL, "%s", out);
  /* "%-10d%18.2f%18.2f": MB/s ends at 28, Messages/s at 46 */
  expect_ends(out, "\n64 ", 3, (const int[]){28, 46});
  free(ref);
  free(out);
  const char *ml[] = {"-m", "1:64", "-i",       "3",
                      "-x", "1",    "--output", gcb_test_path("ml.json"),
                      NULL};
  free(compare_with("osu_multi_lat", ml,
                    GCB_TEST_DATA "/osu/cofc-5.3.2-osu_multi_lat.txt", NULL));
  const char *ml7[] = {"-m", "1:32", "-i",       "3",
                       "-x", "1",    "--output", gcb_test_path("ml7.json"),
                       NULL};
  out = compare_with("osu_multi_lat", ml7,
                     GCB_TEST_DATA "/osu/cloudai-7.4-osu_multi_lat.txt",
                     "# Size       Avg Latency(us)");
  ref = gcb_test_read(GCB_TEST_DATA "/osu/cloudai-7.4-osu_multi_lat.txt");
  head = strstr(ref, "Latency(us)\n") + 12 - ref;
  cr_assert(memmem(out, strlen(out), ref, head) != NULL, "%s", out);
  free(ref);
  free(out);
}

/* The number after `key` in the document's first case (past the run's
 * own options, which echo --iters and --warmup), or -1. */
static long doc_int(const char *json, const char *key) {
  const char *cases = strstr(json, "\"cases\"");
  const char *p = cases ? strstr(cases, key) : NULL;
  return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

Test(dropin_osu, window_iterations_and_validation_take_effect) {
  /* -W: the window the document records and osu_mbw_mr's title shows */
  const char *bibw[] = {"-W",
                        "8",
                        "-m",
                        "64:128",
                        "-i",
                        "4",
                        "-x",
                        "2",
                        "-c",
                        "--output",
                        gcb_test_path("w.json"),
                        NULL};
  cr_assert_eq(run_program(2, "osu_bibw", bibw), 0, "%s",
               gcb_test_slurp("stderr"));
  char *out = gcb_test_slurp("stdout");
  char head[160];
  snprintf(head, sizeof head, "\n%-10s%18s%18s\n", "# Size", "Bandwidth (MB/s)",
           "Validation");
  cr_assert(strstr(out, head) != NULL, "%s", out);
  expect_ends(out, "\n128 ", 3, (const int[]){28, 46});
  cr_assert(strstr(out, "Pass\n") && !strstr(out, "Fail"), "%s", out);
  free(out);
  char *json = gcb_test_slurp("w.json");
  cr_assert_eq(doc_int(json, "\"window\": "), 8, "%s", json);
  cr_assert_eq(doc_int(json, "\"iterations\": "), 4);
  cr_assert_eq(doc_int(json, "\"warmup\": "), 2);
  cr_assert(strstr(json, "\"checked\": true") != NULL, "-c validates");
  cr_assert_eq(doc_int(json, "\"wrong\": "), 0);
  free(json);
  const char *mbw[] = {"-W", "16", "-m",       "8:8",
                       "-i", "2",  "--output", gcb_test_path("m.json"),
                       NULL};
  cr_assert_eq(run_program(2, "osu_mbw_mr", mbw), 0, "%s",
               gcb_test_slurp("stderr"));
  out = gcb_test_slurp("stdout");
  cr_assert(strstr(out, "\n# [ pairs: 1 ] [ window size: 16 ]\n") != NULL, "%s",
            out);
  free(out);
  /* osu_multi_lat: LAT's defaults, 10000 round trips up to 8192 bytes */
  const char *ml[] = {
      "-m", "2:2", "-x", "3", "--output", gcb_test_path("l.json"), NULL};
  cr_assert_eq(run_program(2, "osu_multi_lat", ml), 0, "%s",
               gcb_test_slurp("stderr"));
  json = gcb_test_slurp("l.json");
  cr_assert_eq(doc_int(json, "\"iterations\": "), 10000, "%s", json);
  cr_assert_eq(doc_int(json, "\"warmup\": "), 3);
  free(json);
}

/* bibw's receive-source rule: each partner receives the other's input,
 * so one flipped bit on either rank is one wrong element, and the run
 * fails (exit 1) as every corrupted collective does. */
Test(dropin_osu, bibw_validation_catches_a_corrupted_element) {
  for (int rank = 0; rank < 2; rank++) {
    char who[4], doc[32];
    snprintf(who, sizeof who, "%d", rank);
    snprintf(doc, sizeof doc, "bad%d.json", rank);
    const char *args[] = {"coll",        "--collective", "bibw",
                          "-b",          "64",           "-e",
                          "64",          "--iters",      "2",
                          "--placement", "out-of-place", "--corrupt-rank",
                          who,           "--output",     gcb_test_path(doc),
                          NULL};
    cr_assert_eq(gcb_test_run(2, args, 240, NULL), 1, "rank %d: %s", rank,
                 gcb_test_slurp("stderr"));
    char *json = gcb_test_slurp(doc);
    cr_assert(strstr(json, "\"wrong\": 1\n") != NULL, "%s", json);
    free(json);
  }
  /* -a 4 (the pairs' initiators) counts world ranks: no split */
  const char *split[] = {"coll",
                         "--collective",
                         "latency",
                         "-a",
                         "4",
                         "--split",
                         "node",
                         "--output",
                         gcb_test_path("sp.json"),
                         NULL};
  cr_assert_eq(gcb_test_run(2, split, 240, NULL), 2);
  char *why = gcb_test_slurp("stderr");
  cr_assert(strstr(why, "-a 4 (the pairs' initiators) needs --split none"),
            "%s", why);
  free(why);
  /* --window where no operation has one is refused, not ignored */
  const char *nowin[] = {
      "coll",     "--collective",           "allreduce", "--window", "8",
      "--output", gcb_test_path("nw.json"), NULL};
  cr_assert_eq(gcb_test_run(2, nowin, 240, NULL), 2);
  why = gcb_test_slurp("stderr");
  cr_assert(strstr(why, "--window 8: none of the sweep's operations"), "%s",
            why);
  free(why);
  /* in place bibw cannot be: skipped with the reason, visibly */
  const char *inplace[] = {"coll",
                           "--collective",
                           "bibw",
                           "-b",
                           "64",
                           "-e",
                           "64",
                           "--iters",
                           "2",
                           "--placement",
                           "in-place",
                           "--output",
                           gcb_test_path("ip.json"),
                           NULL};
  gcb_test_run(2, inplace, 240, NULL);
  char *all = gcb_test_slurp("stdout");
  char *err = gcb_test_slurp("stderr");
  cr_assert(strstr(all, "no in-place form") || strstr(err, "no in-place form"),
            "%s%s", all, err);
  free(all);
  free(err);
}

/* OSU -z (osu_util.c 7.4): the tail latency columns, "P50 Tail Lat(us)"
 * right-aligned in FIELD_WIDTH after every other column, one "%18.2f"
 * figure each, 50,90,99 for -z alone or the percentiles -zLIST gives; the
 * column line byte for byte and the rows' columns as OSU 7.4 printed them
 * (tests/data/osu: built from OSU 7.4's source, run here); each row's
 * tails in order. Bandwidth programs are refused (gcbench's tails are
 * latencies). Failed before: -z was refused. */
Test(dropin_osu, tail_latency_columns_as_osu_7_4_prints_them) {
  const char *lat[] = {"-m",  "1:16",     "-i",
                       "200", "-z",       "-x",
                       "5",   "--output", gcb_test_path("z.json"),
                       NULL};
  char *out = compare_with(
      "osu_latency", lat,
      GCB_TEST_DATA "/osu/osu-7.4-osu_latency-z-mpich-vm.txt",
      "# Size       Avg Latency(us)  P50 Tail Lat(us)  P90 Tail Lat(us)  P99 "
      "Tail Lat(us)");
  const char *row = strstr(out, "\n16 ");
  cr_assert_not_null(row, "%s", out);
  double avg, p50, p90, p99;
  cr_assert_eq(sscanf(row, " 16 %lf %lf %lf %lf", &avg, &p50, &p90, &p99), 4,
               "%s", row);
  cr_assert(p50 > 0 && p50 <= p90 && p90 <= p99, "%s", row);
  free(out);
  const char *ar[] = {"-m", "4:16", "-f",       "-z50,99",
                      "-i", "50",   "--output", gcb_test_path("zf.json"),
                      NULL};
  free(compare_with("osu_allreduce", ar,
                    GCB_TEST_DATA "/osu/osu-7.4-osu_allreduce-f-z-mpich-vm.txt",
                    "# Size       Avg Latency(us)   Min Latency(us)   Max "
                    "Latency(us)  Iterations  P50 Tail Lat(us)  P99 Tail "
                    "Lat(us)"));
  const char *bw[] = {"-z", "--output", gcb_test_path("zb.json"), NULL};
  cr_assert_eq(run_program(2, "osu_bw", bw), 2);
  char *err = gcb_test_slurp("stderr");
  cr_assert_not_null(strstr(err, "-z: not supported"), "%s", err);
  free(err);
}
