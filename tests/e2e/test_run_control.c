/*
 * Run control as a person at a terminal meets it. The progress line:
 * shown when the launcher's stderr is a terminal (a pseudo-terminal made
 * by script(1) around mpiexec, whose ranks' stderr is a pipe) or rank 0's
 * own is, never when the output is piped or redirected, and forced either
 * way by --progress / --no-progress or GCB_PROGRESS. SIGPIPE: `gcbench ...
 * | head -c1` ends the run as SIGTERM does, the document "interrupted"
 * with the case that was running, exit 141 (128 + SIGPIPE).
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/e2e/run_gcbench.h"

#define PROGRESS "case 1 of" /* the progress line's words */

static void setup(void) {
  gcb_test_dir_make("gcb-control");
}

TestSuite(control, .init = setup, .fini = gcb_test_dir_remove, .timeout = 120);

/* A short run: four cases of coll. */
#define SHORT_RUN(out, ...)                                                    \
  {                                                                            \
    "coll", "--collective", "allreduce", "-b", "8", "-e", "64", "--iters",     \
        "2", "--warmup", "0", "--output", gcb_test_path(out), "--force",       \
        __VA_ARGS__                                                            \
  }

/* Runs `[mpiexec -n ranks] gcbench args` inside a pseudo-terminal
 * (script -qec CMD /dev/null): the terminal's text lands in dir/stdout. */
static int in_terminal(int ranks, const char *const *args) {
  char launch[512] = "";
  if (ranks > 0)
    snprintf(launch, sizeof launch, "%s -n %d", GCB_MPIEXEC, ranks);
  const char *wrap[] = {"/bin/sh",
                        "-c",
                        "exec script -qec \"$*\" /dev/null </dev/null",
                        "sh",
                        ranks > 0 ? launch : NULL,
                        NULL};
  struct gcb_test_job j = gcb_test_start(0, NULL, wrap, args);
  int status = gcb_test_finish(j, 60, NULL);
  cr_assert(WIFEXITED(status), "script ended by a signal");
  return WEXITSTATUS(status);
}

static bool shows(const char *file, const char *what) {
  char *text = gcb_test_slurp(file);
  bool found = strstr(text, what) != NULL;
  free(text);
  return found;
}

Test(control, under_mpiexec_in_a_terminal_the_progress_line_appears) {
  const char *args[] = SHORT_RUN("pty.json", NULL);
  cr_assert_eq(in_terminal(2, args), 0, "%s", gcb_test_slurp("stdout"));
  cr_expect(shows("stdout", PROGRESS), "%s", gcb_test_slurp("stdout"));
  cr_expect(shows("stdout", "\r\033[K"), "the line is erased by the next row");
  cr_expect(shows("stdout", "allreduce"), "the table too");
}

Test(control, a_bare_process_in_a_terminal_shows_it_too) {
  const char *args[] = SHORT_RUN("bare.json", NULL);
  cr_assert_eq(in_terminal(0, args), 0, "%s", gcb_test_slurp("stdout"));
  cr_expect(shows("stdout", PROGRESS), "%s", gcb_test_slurp("stdout"));
}

Test(control, piped_or_redirected_it_stays_quiet) {
  const char *args[] = SHORT_RUN("piped.json", NULL);
  cr_assert_eq(gcb_test_gcbench(2, args), 0, "%s", gcb_test_slurp("stderr"));
  cr_expect(!shows("stderr", PROGRESS), "%s", gcb_test_slurp("stderr"));
  cr_expect(!shows("stdout", PROGRESS));
  cr_expect(!shows("stdout", "\033["), "no escapes in piped output");
  cr_expect(shows("stdout", "allreduce"));
}

Test(control, no_progress_silences_it_in_a_terminal) {
  const char *args[] = SHORT_RUN("quiet.json", "--no-progress", NULL);
  cr_assert_eq(in_terminal(2, args), 0, "%s", gcb_test_slurp("stdout"));
  cr_expect(!shows("stdout", PROGRESS), "%s", gcb_test_slurp("stdout"));
  cr_expect(shows("stdout", "allreduce"));
  cr_assert_eq(setenv("GCB_PROGRESS", "0", 1), 0);
  const char *plain[] = SHORT_RUN("quiet0.json", NULL);
  int code = in_terminal(2, plain);
  unsetenv("GCB_PROGRESS");
  cr_assert_eq(code, 0);
  cr_expect(!shows("stdout", PROGRESS), "GCB_PROGRESS=0");
}

Test(control, progress_forces_it_onto_a_pipe) {
  const char *args[] = SHORT_RUN("forced.json", "--progress", NULL);
  cr_assert_eq(gcb_test_gcbench(2, args), 0, "%s", gcb_test_slurp("stderr"));
  cr_expect(shows("stderr", PROGRESS), "%s", gcb_test_slurp("stderr"));
  cr_assert_eq(setenv("GCB_PROGRESS", "1", 1), 0);
  const char *plain[] = SHORT_RUN("forced1.json", NULL);
  int code = gcb_test_gcbench(2, plain);
  cr_assert_eq(code, 0, "%s", gcb_test_slurp("stderr"));
  cr_expect(shows("stderr", PROGRESS), "GCB_PROGRESS=1");
  /* The option wins over the environment. */
  const char *off[] = SHORT_RUN("forced2.json", "--no-progress", NULL);
  code = gcb_test_gcbench(2, off);
  unsetenv("GCB_PROGRESS");
  cr_assert_eq(code, 0);
  cr_expect(!shows("stderr", PROGRESS));
}

Test(control, contradictions_are_usage_errors) {
  const char *both[] =
      SHORT_RUN("both.json", "--progress", "--no-progress", NULL);
  cr_expect_eq(gcb_test_gcbench(2, both), 2);
  cr_expect(shows("stderr", "--progress and --no-progress exclude each other"),
            "%s", gcb_test_slurp("stderr"));
  cr_assert_eq(setenv("GCB_PROGRESS", "yes", 1), 0);
  const char *plain[] = SHORT_RUN("bad.json", NULL);
  int code = gcb_test_gcbench(0, plain);
  unsetenv("GCB_PROGRESS");
  cr_expect_eq(code, 2);
  cr_expect(shows("stderr", "GCB_PROGRESS 'yes': expected 1"), "%s",
            gcb_test_slurp("stderr"));
}

/* `gcbench args | head -c1`, under bash for PIPESTATUS: gcbench's exit
 * status. `both`: stderr into the pipe too. */
static int into_head(const char *const *args, bool both) {
  const char *wrap[] = {
      "/bin/bash", "-c",
      both ? "\"$0\" \"$@\" 2>&1 | head -c1 >/dev/null; exit ${PIPESTATUS[0]}"
           : "\"$0\" \"$@\" | head -c1 >/dev/null; exit ${PIPESTATUS[0]}",
      NULL};
  /* bash -c CMD takes gcbench as $0, its arguments as $@. */
  struct gcb_test_job j = gcb_test_start(0, NULL, wrap, args);
  int status = gcb_test_finish(j, 60, NULL);
  cr_assert(WIFEXITED(status), "bash died of a signal");
  return WEXITSTATUS(status);
}

static void expect_interrupted_by_sigpipe(const char *name) {
  struct gcb_results *r = gcb_test_load(name);
  json_t *run = gcb_test_section(r, "run");
  cr_expect_str_eq(json_string_value(json_object_get(run, "status")),
                   "interrupted");
  json_t *errors = gcb_test_section(r, "errors");
  cr_assert_eq(json_array_size(errors), 1);
  json_t *e = json_array_get(errors, 0);
  cr_expect_str_eq(json_string_value(json_object_get(e, "status")), "EINTR");
  const char *msg = json_string_value(json_object_get(e, "message"));
  cr_expect(strstr(msg, "rank 0 received SIGPIPE") != NULL, "%s", msg);
  cr_expect(strstr(msg, "coll") != NULL, "names the benchmark: %s", msg);
  gcb_results_free(r);
}

/* Enough cases that the run outlives head by far. */
#define LONG_RUN(out)                                                          \
  {                                                                            \
    "coll", "-b", "8", "-e", "8M", "-f", "2", "--iters", "20", "--warmup",     \
        "1", "--output", gcb_test_path(out), NULL                              \
  }

Test(control, a_closed_pipe_ends_the_run_as_interrupted) {
  const char *args[] = LONG_RUN("pipe.json");
  int code = into_head(args, false);
  char *err = gcb_test_slurp("stderr");
  cr_expect_eq(code, 128 + SIGPIPE, "exit %d: %s", code, err);
  cr_expect(strstr(err, "gcbench: error: interrupted: rank 0 received "
                        "SIGPIPE during coll case '") == err,
            "%s", err);
  free(err);
  expect_interrupted_by_sigpipe("pipe.json");
}

Test(control, with_stderr_in_the_pipe_too_the_document_says_so) {
  const char *args[] = LONG_RUN("pipe2.json");
  cr_expect_eq(into_head(args, true), 128 + SIGPIPE);
  expect_interrupted_by_sigpipe("pipe2.json");
}

Test(control, the_final_line_of_a_run_erases_the_progress_line_first) {
  const char *args[] = {
      "membw", "--size",     "64K",      "--iters",
      "2",     "--timeout",  "2",        "--stall-rank",
      "0:1",   "--progress", "--output", gcb_test_path("erased.json"),
      NULL};
  int code = gcb_test_gcbench(2, args);
  char *err = gcb_test_slurp("stderr");
  cr_expect_eq(code, 4, "timeout: %s", err);
  cr_expect(strstr(err, PROGRESS) != NULL, "%s", err);
  /* Not glued to the progress text, though stderr is mpiexec's pipe. */
  cr_expect(strstr(err, "\r\033[Kgcbench: error: timeout: ") != NULL, "%s",
            err);
  free(err);
}
