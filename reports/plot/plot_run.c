/*
 * Running gnuplot: the script goes to DIR/plots.gp, gnuplot runs in DIR
 * (posix_spawnp with an argument vector, never a shell), its output goes
 * to DIR/gnuplot.log, kept only when it fails. Any failure to plot is a
 * one-line note, never an error: the tables are the report.
 */
/* posix_spawn_file_actions_addchdir_np: glibc 2.29+ (POSIX.1-2024 names it
 * posix_spawn_file_actions_addchdir). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reports/plot/plot.h"

#define SVG_MAX_BYTES ((long)32 << 20)

extern char **environ;

static void dir_path(char *buf, size_t size, const char *dir,
                     const char *name) {
  snprintf(buf, size, "%s/%s", dir, name);
}

/* Starts prog on the script in dir, output to the log; 0 or an errno. */
static int spawn(const char *prog, const char *dir, pid_t *pid) {
  char *argv[] = {(char *)prog, GCB_PLOT_SCRIPT, NULL};
  posix_spawn_file_actions_t fa;
  int rc = posix_spawn_file_actions_init(&fa);
  if (rc != 0)
    return rc;
  posix_spawn_file_actions_addchdir_np(&fa, dir);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, GCB_PLOT_LOG,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  rc = posix_spawnp(pid, prog, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc;
}

/* Runs gnuplot ($GCB_GNUPLOT or "gnuplot") on the script in dir; 0 when it
 * exited with 0, else -1 with why in note ("gnuplot not found: ..."). */
static int run_gnuplot(const char *dir, char *note, size_t size) {
  const char *prog = getenv("GCB_GNUPLOT");
  prog = prog != NULL && prog[0] != '\0' ? prog : "gnuplot";
  pid_t pid;
  int status = 0, rc = spawn(prog, dir, &pid);
  if (rc == 0)
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
  /* 127: a wrapper (valgrind, env) started but found no program. */
  bool missing = rc == ENOENT ||
                 (rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127);
  if (rc == 0 && !missing && WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return 0;
  if (missing || rc != 0)
    snprintf(note, size, "%s: cannot run %s (%s)",
             missing ? "gnuplot not found" : "gnuplot not started", prog,
             rc != 0 ? strerror(rc) : "exit 127");
  else
    snprintf(note, size, "gnuplot failed (%s %d, see %s)",
             WIFEXITED(status) ? "exit" : "signal",
             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
             GCB_PLOT_LOG);
  return -1;
}

/* The whole file as a string, or NULL (missing, too large, no memory). */
static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long len = -1;
  if (f != NULL && fseek(f, 0, SEEK_END) == 0)
    len = ftell(f);
  if (f != NULL && len >= 0 && len <= SVG_MAX_BYTES && fseek(f, 0, 0) == 0 &&
      (buf = malloc((size_t)len + 1)) != NULL) {
    size_t got = fread(buf, 1, (size_t)len, f);
    buf[got] = '\0';
  }
  if (f != NULL)
    fclose(f);
  return buf;
}

static enum gcb_status write_script(const char *path,
                                    const struct gcb_doc *docs, size_t ndocs,
                                    const struct gcb_thresholds *t, bool png,
                                    struct gcb_plots *out,
                                    struct gcb_err *err) {
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return gcb_err_set(err, GCB_EIO, "%s: cannot create (%s)", path,
                       strerror(errno));
  enum gcb_status st = gcb_plot_script(f, docs, ndocs, t, png, out, err);
  if ((ferror(f) | fclose(f)) != 0 && st == GCB_OK)
    st = gcb_err_set(err, GCB_EIO, "%s: write failed", path);
  return st;
}

/* Reads each plot back (SVG) or checks it is there (PNG), and drops the
 * ones gnuplot did not finish: after a failure, the plots drawn before it
 * are still good. Returns how many are left. */
static size_t keep_drawn(const char *dir, bool png, struct gcb_plots *out) {
  char path[4096];
  size_t k = 0;
  for (size_t i = 0; i < out->n; i++) {
    struct gcb_plot *pl = &out->items[i];
    struct stat st;
    dir_path(path, sizeof path, dir, pl->file);
    pl->svg = png ? NULL : read_text(path);
    bool drawn = png ? stat(path, &st) == 0 && st.st_size > 0
                     : pl->svg != NULL && strstr(pl->svg, "</svg>") != NULL;
    if (drawn)
      out->items[k++] = *pl;
    else
      free(pl->svg);
  }
  return out->n = k;
}

enum gcb_status gcb_plots_make(const char *dir, const struct gcb_doc *docs,
                               size_t ndocs, const struct gcb_thresholds *t,
                               bool png, struct gcb_plots *out,
                               struct gcb_err *err) {
  char path[4096];
  dir_path(path, sizeof path, dir, GCB_PLOT_SCRIPT);
  enum gcb_status st = write_script(path, docs, ndocs, t, png, out, err);
  if (st != GCB_OK || out->n == 0) {
    unlink(path);
    return st;
  }
  /* Plots left by an earlier report in dir must not pass for new ones. */
  for (size_t i = 0; i < out->n; i++) {
    dir_path(path, sizeof path, dir, out->items[i].file);
    unlink(path);
  }
  size_t planned = out->n;
  bool failed = run_gnuplot(dir, out->note, sizeof out->note) != 0;
  size_t drawn = keep_drawn(dir, png, out), used = strlen(out->note);
  if (failed && drawn > 0)
    snprintf(out->note + used, sizeof out->note - used,
             ": %zu of %zu plots drawn", drawn, planned);
  else if (failed)
    snprintf(out->note + used, sizeof out->note - used,
             ": plots skipped, tables only");
  dir_path(path, sizeof path, dir, GCB_PLOT_LOG);
  if (!failed)
    unlink(path);
  return GCB_OK;
}
