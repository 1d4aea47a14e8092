/* Every criterion test of one binary from one valgrind process.
 *
 * Criterion runs each test in a fresh exec of the test binary (BoxFort);
 * under `valgrind --trace-children=yes` each exec starts valgrind again
 * (libc's debug info, libcriterion's two dozen libraries): about 1.5 s of
 * CPU per test, most of the valgrind pass. Preloaded into a test binary
 * (LD_PRELOAD, scripts/valgrind-tests), this library's main() takes the
 * place of libcriterion's (the binary finds main through the dynamic
 * linker) and runs the binary's tests from criterion's own table, in
 * criterion's order, each in a child forked for it: no exec, so no new
 * valgrind start-up, and still each test in a process of its own that
 * starts from what criterion's worker starts from (no state of an earlier
 * test: its globals, MPI_Init, its leaks) and ends in valgrind's leak check
 * at exit. The test side of criterion's protocol (the trampolines' setup,
 * main and teardown, asserts, skips, logs) is answered in the child instead
 * of by messages to a runner. Each child announces its test in its
 * valgrind log (VALGRIND_PRINTF).
 *
 * Exit status: 0 when every test passed or was skipped; 1 when one failed,
 * crashed, or its valgrind found errors (--error-exitcode).
 *
 * Not done here, as criterion's runner does: the .signal and .exit_code
 * checks, theories, output redirection, command-line options (gcbench's
 * tests use none of them).
 */
#include <criterion/criterion.h>
#include <criterion/internal/ordered-set.h>
#include <criterion/internal/parameterized.h>
#include <criterion/logging.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

/* The test being run; its parameter when parameterized. */
static const struct criterion_suite *cur_suite;
static const struct criterion_test *cur_test;
static void *cur_param;
/* Where a fatal assert, a skip or a death returns to. */
static jmp_buf jump;
static bool jump_set;
static bool failed;
static bool skipped;

/* The test's message to stderr, as criterion's runner would print it. */
static void say(const char *what, const char *file, unsigned line,
                const char *msg) {
  if (file)
    fprintf(stderr, "[%s] %s:%u: %s::%s: %s\n", what, file, line,
            cur_test->category, cur_test->name, msg ? msg : "");
  else
    fprintf(stderr, "[%s] %s::%s: %s\n", what, cur_test->category,
            cur_test->name, msg ? msg : "");
}

_Noreturn static void leave(int how) {
  if (!jump_set) {
    fprintf(stderr, "valgrind_runner: %s::%s left outside a test phase\n",
            cur_test->category, cur_test->name);
    abort();
  }
  longjmp(jump, how);
}

/* --- the test side of criterion's protocol, in process -------------- */

void criterion_internal_test_setup(void) {
  jump_set = true;
  if (!setjmp(jump)) {
    if (cur_suite->data && cur_suite->data->init)
      cur_suite->data->init();
    if (cur_test->data->init)
      cur_test->data->init();
  } else if (!skipped) {
    failed = true;
  }
  jump_set = false;
}

void criterion_internal_test_main(void (*fn)(void)) {
  if (failed || skipped)
    return;
  jump_set = true;
  if (!setjmp(jump)) {
    if (cur_test->data->param_)
      ((void (*)(void *))fn)(cur_param);
    else
      fn();
  }
  jump_set = false;
}

void criterion_internal_test_teardown(void) {
  jump_set = true;
  if (!setjmp(jump)) {
    if (cur_test->data->fini)
      cur_test->data->fini();
    if (cur_suite->data && cur_suite->data->fini)
      cur_suite->data->fini();
  } else if (!skipped) {
    failed = true;
  }
  jump_set = false;
}

void criterion_send_assert(struct criterion_assert_stats *stats) {
  if (stats->passed)
    return;
  failed = true;
  say("FAIL", stats->file, stats->line, stats->message);
}

void cri_asserts_passed_incr(void) {}

void criterion_abort_test(void) {
  failed = true;
  leave(1);
}

void criterion_continue_test(void) {}

void criterion_skip_test(const char *format, ...) {
  char msg[512] = "";
  if (format) {
    va_list ap;
    va_start(ap, format);
    vsnprintf(msg, sizeof msg, format, ap);
    va_end(ap);
  }
  skipped = true;
  say("SKIP", NULL, 0, msg);
  leave(2);
}

void criterion_test_die(const char *format, ...) {
  char msg[512] = "";
  va_list ap;
  va_start(ap, format);
  vsnprintf(msg, sizeof msg, format, ap);
  va_end(ap);
  failed = true;
  say("DIED", NULL, 0, msg);
  leave(1);
}

void cr_log(enum criterion_severity severity, const char *format, ...) {
  static const char *const names[] = {"INFO", "WARN", "ERR "};
  va_list ap;
  va_start(ap, format);
  fprintf(stderr, "[%s] ", (unsigned)severity < 3 ? names[severity] : "LOG ");
  vfprintf(stderr, format, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* --- the runner ----------------------------------------------------- */

/* LD_PRELOAD without this library, so that what the tests execute
 * (gcbench, under valgrind too) does not load it. */
static void unpreload(void) {
  const char *pre = getenv("LD_PRELOAD");
  if (!pre || !strstr(pre, "gcb_valgrind_runner"))
    return;
  char *copy = strdup(pre), *save = NULL;
  char *out = calloc(strlen(pre) + 1, 1);
  if (!copy || !out)
    abort();
  for (char *tok = strtok_r(copy, ": ", &save); tok;
       tok = strtok_r(NULL, ": ", &save))
    if (!strstr(tok, "gcb_valgrind_runner")) {
      if (*out)
        strcat(out, ":");
      strcat(out, tok);
    }
  if (*out)
    setenv("LD_PRELOAD", out, 1);
  else
    unsetenv("LD_PRELOAD");
  free(out);
  free(copy);
}

/* One run of the current test (with cur_param set), in a child forked for
 * it: a fork under valgrind costs little next to an exec, and each test
 * still starts from the state criterion's worker starts from (nothing of an
 * earlier test: its globals, MPI_Init, its leaks) and ends in valgrind's
 * leak check at the child's exit. True when it passed or was skipped. */
static bool run_one(const char *label) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    perror("valgrind_runner: fork");
    return false;
  }
  if (pid == 0) {
    failed = skipped = false;
    /* The test's (or its suite's) timeout, as criterion's runner keeps
     * it: the child is killed (SIGALRM) when it runs over. */
    double timeout = cur_test->data->timeout;
    if (timeout <= 0 && cur_suite->data)
      timeout = cur_suite->data->timeout;
    if (timeout > 0)
      alarm((unsigned)timeout + 1);
    VALGRIND_PRINTF("valgrind_runner: test %s::%s%s\n", cur_test->category,
                    cur_test->name, label);
    cur_test->test();
    exit(failed ? 1 : 0);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      perror("valgrind_runner: waitpid");
      return false;
    }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return true;
  if (WIFSIGNALED(status))
    fprintf(stderr, "[----] %s::%s%s: CRASHED (signal %d)\n",
            cur_test->category, cur_test->name, label, WTERMSIG(status));
  else
    fprintf(stderr, "[----] %s::%s%s: FAILED (exit %d)\n", cur_test->category,
            cur_test->name, label, WEXITSTATUS(status));
  return false;
}

/* Runs the current test once, or once per parameter; counts the runs. */
static void run_test(size_t *runs, size_t *fails) {
  const struct criterion_test_extra_data *d = cur_test->data;
  if (d->kind_ != CR_TEST_PARAMETERIZED || !d->param_) {
    cur_param = NULL;
    ++*runs;
    *fails += !run_one("");
    return;
  }
  struct criterion_test_params params = d->param_();
  for (size_t i = 0; i < params.length; ++i) {
    char label[32];
    snprintf(label, sizeof label, " [param %zu]", i);
    cur_param = (char *)params.params + i * params.size;
    ++*runs;
    *fails += !run_one(label);
  }
  if (params.cleanup)
    params.cleanup(&params);
}

int main(void) {
  unpreload();
  struct criterion_test_set *set = criterion_initialize();
  /* criterion_initialize() turns valgrind's error reporting off for its
   * runner (its tests run in exec'd processes); forks inherit the setting,
   * so it is turned on again before the first. (criterion_finalize() turns
   * it on too: a no-op by then.) */
  VALGRIND_ENABLE_ERROR_REPORTING;
  size_t runs = 0, fails = 0, disabled = 0;
  struct criterion_suite_set *ss;
  FOREACH_SET(ss, set->suites) {
    struct criterion_test *t;
    if (!ss->tests)
      continue;
    FOREACH_SET(t, ss->tests) {
      cur_suite = &ss->suite;
      cur_test = t;
      if (t->data->disabled || (ss->suite.data && ss->suite.data->disabled)) {
        disabled++;
        continue;
      }
      run_test(&runs, &fails);
    }
  }
  criterion_finalize(set);
  fprintf(stderr,
          "[====] valgrind_runner: %zu run (a child each), %zu failed, "
          "%zu disabled\n",
          runs, fails, disabled);
  return fails ? 1 : 0;
}
