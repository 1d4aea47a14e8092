/*
 * A saved topology's first reading by hwloc, in a child process. hwloc
 * 2.9's XML importer asserts or dereferences NULL on some well-formed but
 * crafted topologies (fuzz_topo found four; xml.c recognises three
 * beforehand), and a crash there would take the whole rank, and with it
 * the run, down. So the checked text is first loaded by a forked child
 * that does nothing else: if it loads, or hwloc refuses it with an error,
 * the parent loads it itself (and words hwloc's refusal as usual); if the
 * child dies, or takes longer than GCB_TOPO_XML_TRIAL_MS, the file is
 * refused with one line and the parent never hands it to hwloc.
 *
 * The child runs only hwloc and _exit()s: no atexit handlers (MPI's
 * among them), no buffered stdio flushed twice, no leak check. Its
 * crash handlers (a sanitizer's, libFuzzer's) are put back to the
 * default, so that a crash is a signal the parent sees, not a report
 * or an artifact written by the child; it dumps no core and its stderr
 * (hwloc's warnings, which the parent's own load prints again) goes to
 * /dev/null. The fork happens while a rank sets up, before any
 * communication buffer exists (bench/run/context.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "topo/topo_int.h"

/* The child's exit codes: hwloc loaded it, or refused it with an error. */
enum { TRIAL_LOADED = 0, TRIAL_REFUSED = 3 };

static _Noreturn void trial_child(const char *path, const char *xml,
                                  size_t len) {
  static const int crashes[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL,
                                SIGFPE,  SIGSYS, SIGTRAP};
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_UNBLOCK, &all, NULL);
  for (size_t i = 0; i < sizeof crashes / sizeof *crashes; i++)
    signal(crashes[i], SIG_DFL);
  setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0});
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0)
    dup2(null, STDERR_FILENO);
  struct gcb_topo t = {0};
  struct gcb_err err = {0};
  enum gcb_status st = gcb__topo_open_hwloc(&t, path, xml, len, &err);
  if (t.topology != NULL)
    hwloc_topology_destroy(t.topology);
  _exit(st == GCB_OK ? TRIAL_LOADED : TRIAL_REFUSED);
}

/* The child's wait status, or -1 when it ran past the deadline (then it
 * is killed and reaped). Polls: a SIGCHLD handler is the program's, not
 * ours, and a rank may have none. */
static int reap(pid_t pid, int deadline_ms) {
  double give_up = gcb_now_s() + deadline_ms / 1e3;
  long pause_us = 100;
  for (;;) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid)
      return status;
    if (r < 0 && errno != EINTR)
      return status; /* reaped by someone else: nothing to tell */
    if (gcb_now_s() > give_up) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
      return -1;
    }
    nanosleep(&(struct timespec){0, pause_us * 1000}, NULL);
    pause_us = pause_us < 10000 ? pause_us * 2 : pause_us;
  }
}

enum gcb_status gcb__topo_xml_trial(const char *path, const char *xml,
                                    size_t len, struct gcb_err *err) {
  pid_t pid = fork();
  if (pid < 0)
    return gcb_err_set(err, GCB_EHWLOC,
                       "%s: cannot load it in a child process first (fork: "
                       "%s)",
                       path, strerror(errno));
  if (pid == 0)
    trial_child(path, xml, len);
  int status = reap(pid, GCB_TOPO_XML_TRIAL_MS);
  if (status >= 0 && WIFEXITED(status) &&
      (WEXITSTATUS(status) == TRIAL_LOADED ||
       WEXITSTATUS(status) == TRIAL_REFUSED))
    return GCB_OK;
  char v[32];
  gcb_topo_hwloc_version(v, sizeof v);
  if (status < 0)
    return gcb_err_set(err, GCB_EINPUT,
                       "%s: not a valid hwloc XML topology (hwloc %s did "
                       "not finish reading it in %d s)",
                       path, v, GCB_TOPO_XML_TRIAL_MS / 1000);
  if (WIFSIGNALED(status))
    return gcb_err_set(err, GCB_EINPUT,
                       "%s: not a valid hwloc XML topology (hwloc %s "
                       "crashed reading it: %s)",
                       path, v, strsignal(WTERMSIG(status)));
  return gcb_err_set(err, GCB_EINPUT,
                     "%s: not a valid hwloc XML topology (hwloc %s's "
                     "reading of it ended with exit code %d)",
                     path, v, WEXITSTATUS(status));
}
