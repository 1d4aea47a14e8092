/*
 * Running gnuplot without trusting the report directory: the script is
 * handed to gnuplot on its standard input (a descriptor, never a path
 * another writer of the directory could swap) and named to it as
 * /dev/fd/0, the same open file: gnuplot reads a script on its standard
 * input a byte per read(2), 5 MB at 16,384 ranks in 2.4 s against 0.7 s
 * through stdio's buffer from a named file. gnuplot runs in a private
 * directory made inside DIR (mode 0700, entered by its descriptor), so the
 * plots it writes cannot be redirected by a planted symlink; the drawn
 * plots are then renamed into DIR, and its output goes to DIR/gnuplot.log,
 * kept only when it fails. DIR/plots.gp is still written (safely,
 * common/outfile.h) for a person to rerun. A large script (a megabyte or
 * more: dozens of per-rank plots) is shared out among a gnuplot per CPU, its
 * plots' sections by their bytes, each gnuplot with the script's first lines
 * and its own sections: the same plots, drawn side by side. Any failure to plot
 * is a one-line note, never an error: the tables are the report.
 */
/* posix_spawn_file_actions_addfchdir_np: glibc 2.29+. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/outfile.h"
#include "reports/plot/plot.h"

#define SVG_MAX_BYTES ((long)32 << 20)
/* At most this many gnuplots at once; one per PART_BYTES of script (a
 * gnuplot's start costs more than it saves on a small one). */
#define MAX_PARTS 4
#define PART_BYTES ((size_t)1 << 20)

extern char **environ;

/* The report directory and the private one inside it gnuplot runs in. */
struct plot_dirs {
  struct gcb_outdir out;
  int work; /* DIR/.gcbench-plot.PID.N, mode 0700; -1 when none */
  char work_name[64];
};

/* Makes and opens the private directory; 0, or -1 with errno (EPERM: the
 * name was swapped for another directory, which is left alone). */
static int open_work(struct plot_dirs *p) {
  for (int k = 0; k < 100; k++) {
    snprintf(p->work_name, sizeof p->work_name, ".gcbench-plot.%ld.%d",
             (long)getpid(), k);
    if (mkdirat(p->out.fd, p->work_name, 0700) == 0) {
      int fd = openat(p->out.fd, p->work_name,
                      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0 && !gcb_outdir_is_made(fd, true)) {
        close(fd);
        errno = EPERM;
        return -1;
      }
      p->work = fd;
      return fd >= 0 ? 0 : -1;
    }
    if (errno != EEXIST)
      return -1;
  }
  return -1;
}

/* Empties and removes the private directory. */
static void close_work(struct plot_dirs *p) {
  if (p->work < 0)
    return;
  int fd = dup(p->work);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  struct dirent *e;
  while (d != NULL && (e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      unlinkat(p->work, e->d_name, 0);
  if (d != NULL)
    closedir(d);
  else if (fd >= 0)
    close(fd);
  close(p->work);
  p->work = -1;
  unlinkat(p->out.fd, p->work_name, AT_REMOVEDIR);
}

/* Starts prog in the private directory, its script on standard input,
 * standard output and error to log; 0 or an errno. */
static int spawn(const char *prog, int work, int script, int log, pid_t *pid) {
  char *argv[] = {(char *)prog, "/dev/fd/0", NULL};
  posix_spawn_file_actions_t fa;
  int rc = posix_spawn_file_actions_init(&fa);
  if (rc != 0)
    return rc;
  rc = posix_spawn_file_actions_addfchdir_np(&fa, work);
  if (rc == 0)
    rc = posix_spawn_file_actions_adddup2(&fa, script, 0);
  if (rc == 0)
    rc = posix_spawn_file_actions_adddup2(&fa, log, 1);
  if (rc == 0)
    rc = posix_spawn_file_actions_adddup2(&fa, log, 2);
  if (rc == 0)
    rc = posix_spawnp(pid, prog, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc;
}

/* The script in a file of the private directory, open for reading from
 * its start; -1 on failure. */
static int script_fd(int work, const char *name, const char *text, size_t len) {
  int fd = openat(work, name,
                  O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  if (write(fd, text, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* One gnuplot of a job: its script and log in the private directory
 * (plots.N.gp, gnuplot.N.log; the log kept is renamed gnuplot.log). */
struct part {
  char script[32], log[32];
  pid_t pid;
  int rc; /* of the start: 0 or an errno */
};

/* The gnuplots started on a report's plots (gcb_plots_start), and what
 * gcb_plots_finish needs to keep what they drew. */
struct gcb_plot_job {
  struct plot_dirs p;
  bool png;
  const char *prog;
  struct part part[MAX_PARTS];
  size_t nparts; /* 0: nothing started */
  size_t planned;
};

/* Starts gnuplot ($GCB_GNUPLOT or "gnuplot") on a script; pt->rc: 0 or
 * why it did not start. */
static void start_gnuplot(struct gcb_plot_job *j, struct part *pt,
                          const char *text, size_t len) {
  const char *prog = getenv("GCB_GNUPLOT");
  j->prog = prog != NULL && prog[0] != '\0' ? prog : "gnuplot";
  int script = script_fd(j->p.work, pt->script, text, len);
  int log = openat(j->p.work, pt->log,
                   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  pt->rc = script < 0 || log < 0
               ? errno
               : spawn(j->prog, j->p.work, script, log, &pt->pid);
  if (script >= 0)
    close(script);
  if (log >= 0)
    close(log);
}

/* Waits for one gnuplot of j; 0 when it exited with 0, else -1 with why
 * in note ("gnuplot not found: ..."). */
static int wait_gnuplot(const struct gcb_plot_job *j, const struct part *pt,
                        char *note, size_t size) {
  int rc = pt->rc, status = 0;
  if (rc == 0)
    while (waitpid(pt->pid, &status, 0) < 0 && errno == EINTR)
      ;
  /* 127: a wrapper (valgrind, env) started but found no program. */
  bool missing = rc == ENOENT ||
                 (rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127);
  if (rc == 0 && !missing && WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return 0;
  if (missing || rc != 0)
    snprintf(note, size, "%s: cannot run %s (%s)",
             missing ? "gnuplot not found" : "gnuplot not started", j->prog,
             rc != 0 ? strerror(rc) : "exit 127");
  else
    snprintf(note, size, "gnuplot failed (%s %d, see %s)",
             WIFEXITED(status) ? "exit" : "signal",
             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
             GCB_PLOT_LOG);
  return -1;
}

/* The whole regular file dirfd/name as a string, or NULL (missing, not a
 * regular file, too large, no memory). */
static char *read_text(int dirfd, const char *name) {
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat sb;
  char *buf = NULL;
  if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
      sb.st_size <= SVG_MAX_BYTES &&
      (buf = malloc((size_t)sb.st_size + 1)) != NULL) {
    size_t got = 0;
    ssize_t n;
    while (got < (size_t)sb.st_size &&
           (n = read(fd, buf + got, (size_t)sb.st_size - got)) > 0)
      got += (size_t)n;
    buf[got] = '\0';
  }
  if (fd >= 0)
    close(fd);
  return buf;
}

/* The script as text (the caller frees it). */
static enum gcb_status make_script(const struct gcb_doc *docs, size_t ndocs,
                                   const struct gcb_thresholds *t, bool png,
                                   struct gcb_plots *out, char **text,
                                   size_t *len, struct gcb_err *err) {
  FILE *f = open_memstream(text, len);
  if (f == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "plots: out of memory");
  enum gcb_status st = gcb_plot_script(f, docs, ndocs, t, png, out, err);
  if ((ferror(f) | fclose(f)) != 0 && st == GCB_OK)
    st = gcb_err_set(err, GCB_ENOMEM, "plots: out of memory");
  return st;
}

/* DIR/plots.gp, for a person to rerun. */
static enum gcb_status save_script(const struct gcb_outdir *d, const char *text,
                                   size_t len, struct gcb_err *err) {
  struct gcb_outfile f;
  enum gcb_status st = gcb_outfile_begin(d, GCB_PLOT_SCRIPT, &f, err);
  if (st == GCB_OK && fwrite(text, 1, len, f.f) != len)
    st = gcb_err_set(err, GCB_EIO, "%s: write failed", f.shown);
  return st == GCB_OK || f.f != NULL ? gcb_outfile_end(&f, st, err) : st;
}

/* Reads each plot back (SVG) or checks it is there (PNG), drops the ones
 * gnuplot did not finish (after a failure, the plots drawn before it are
 * still good) and those over SVG_MAX_BYTES (counted in *big), and moves
 * the others into DIR. Returns how many are left. */
static size_t keep_drawn(const struct plot_dirs *p, bool png,
                         struct gcb_plots *out, size_t *big) {
  size_t k = 0;
  for (size_t i = 0; i < out->n; i++) {
    struct gcb_plot *pl = &out->items[i];
    struct stat st;
    pl->svg = png ? NULL : read_text(p->work, pl->file);
    *big += !png && pl->svg == NULL &&
            fstatat(p->work, pl->file, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode) && st.st_size > SVG_MAX_BYTES;
    bool drawn =
        png ? fstatat(p->work, pl->file, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                  S_ISREG(st.st_mode) && st.st_size > 0
            : pl->svg != NULL && strstr(pl->svg, "</svg>") != NULL;
    if (drawn && renameat(p->work, pl->file, p->out.fd, pl->file) == 0)
      out->items[k++] = *pl;
    else
      free(pl->svg);
  }
  return out->n = k;
}

/* How many gnuplots draw a script of len bytes and n plots: one per
 * PART_BYTES, no more than the CPUs, MAX_PARTS or the plots. */
static size_t parts_for(size_t len, size_t n) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t k = 1 + len / PART_BYTES;
  if (cpus > 0 && k > (size_t)cpus)
    k = (size_t)cpus;
  k = k < MAX_PARTS ? k : MAX_PARTS;
  return k < n ? k : n;
}

/* Plot i's section of the script: [at, end). */
static size_t section_end(const struct gcb_plots *out, size_t i, size_t len) {
  return i + 1 < out->n ? out->items[i + 1].script_at : len;
}

/* Starts k gnuplots, each on the script's first lines (up to the first
 * plot's section) and the sections given to it, every section to the
 * script shortest so far. 0, or an errno (ENOMEM) with none started. */
static int start_parts(struct gcb_plot_job *j, const char *text, size_t len,
                       const struct gcb_plots *out, size_t k) {
  size_t head = out->items[0].script_at, size[MAX_PARTS], fill[MAX_PARTS];
  unsigned char *owner = malloc(out->n);
  char *buf[MAX_PARTS] = {0};
  int rc = owner == NULL ? ENOMEM : 0;
  for (size_t q = 0; q < k; q++)
    size[q] = head;
  for (size_t i = 0; rc == 0 && i < out->n; i++) {
    size_t least = 0;
    for (size_t q = 1; q < k; q++)
      least = size[q] < size[least] ? q : least;
    owner[i] = (unsigned char)least;
    size[least] += section_end(out, i, len) - out->items[i].script_at;
  }
  for (size_t q = 0; rc == 0 && q < k; q++) {
    if ((buf[q] = malloc(size[q])) == NULL)
      rc = ENOMEM;
    else
      memcpy(buf[q], text, fill[q] = head);
  }
  for (size_t i = 0; rc == 0 && i < out->n; i++) {
    size_t at = out->items[i].script_at, n = section_end(out, i, len) - at;
    memcpy(buf[owner[i]] + fill[owner[i]], text + at, n);
    fill[owner[i]] += n;
  }
  for (size_t q = 0; rc == 0 && q < k; q++) {
    struct part *pt = &j->part[j->nparts++];
    snprintf(pt->script, sizeof pt->script, "plots.%zu.gp", q + 1);
    snprintf(pt->log, sizeof pt->log, "gnuplot.%zu.log", q + 1);
    start_gnuplot(j, pt, buf[q], size[q]);
  }
  for (size_t q = 0; q < k; q++)
    free(buf[q]);
  free(owner);
  return rc;
}

/* Starts the gnuplots in the private directory; 0, or an errno (ENOMEM)
 * with none started. */
static int draw_start(struct gcb_plot_job *j, const char *text, size_t len,
                      struct gcb_plots *out) {
  /* Plots left by an earlier report in dir must not pass for new ones. */
  for (size_t i = 0; i < out->n; i++)
    unlinkat(j->p.out.fd, out->items[i].file, 0);
  j->planned = out->n;
  return start_parts(j, text, len, out, parts_for(len, out->n));
}

/* Waits for every gnuplot and keeps what they drew; the note and the log
 * kept are the first failed one's. */
static void draw_finish(struct gcb_plot_job *j, struct gcb_plots *out) {
  struct plot_dirs *p = &j->p;
  const struct part *failed = NULL;
  char planned_note[sizeof out->note]; /* the script's: plots left out */
  memcpy(planned_note, out->note, sizeof planned_note);
  out->note[0] = '\0';
  for (size_t q = 0; q < j->nparts; q++) {
    char note[sizeof out->note];
    if (wait_gnuplot(j, &j->part[q], note, sizeof note) != 0 && !failed) {
      failed = &j->part[q];
      memcpy(out->note, note, sizeof note);
    }
  }
  size_t big = 0, drawn = keep_drawn(p, j->png, out, &big);
  size_t used = strlen(out->note);
  if (failed && drawn > 0)
    snprintf(out->note + used, sizeof out->note - used,
             ": %zu of %zu plots drawn", drawn, j->planned);
  else if (failed)
    snprintf(out->note + used, sizeof out->note - used,
             ": plots skipped, tables only");
  else if (drawn < j->planned)
    snprintf(out->note, sizeof out->note, "%zu of %zu plots drawn", drawn,
             j->planned);
  used = strlen(out->note);
  if (big > 0)
    snprintf(out->note + used, sizeof out->note - used,
             " (%zu over %ld MB, left out)", big, SVG_MAX_BYTES >> 20);
  used = strlen(out->note);
  if (planned_note[0] != '\0')
    snprintf(out->note + used, sizeof out->note - used, "%s%s",
             used > 0 ? "; " : "", planned_note);
  if (failed)
    renameat(p->work, failed->log, p->out.fd, GCB_PLOT_LOG);
  else
    unlinkat(p->out.fd, GCB_PLOT_LOG, 0);
}

/* Every name of DIR the plots write, rename over or remove, refused as
 * every report file is when it is not a regular file (a FIFO, a device):
 * plots.gp, and with plots gnuplot.log and each plot. */
static enum gcb_status check_names(const struct gcb_outdir *d,
                                   const struct gcb_plots *out,
                                   struct gcb_err *err) {
  enum gcb_status st = gcb_outfile_check(d, GCB_PLOT_SCRIPT, err);
  if (st == GCB_OK && out->n > 0)
    st = gcb_outfile_check(d, GCB_PLOT_LOG, err);
  for (size_t i = 0; st == GCB_OK && i < out->n; i++)
    st = gcb_outfile_check(d, out->items[i].file, err);
  return st;
}

enum gcb_status gcb_plots_start(const char *dir, const struct gcb_doc *docs,
                                size_t ndocs, const struct gcb_thresholds *t,
                                bool png, struct gcb_plots *out,
                                struct gcb_plot_job **job,
                                struct gcb_err *err) {
  *job = NULL;
  struct gcb_plot_job *j = calloc(1, sizeof *j);
  if (j == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "plots: out of memory");
  j->p.work = -1;
  j->p.out.fd = j->p.out.lock_fd = -1;
  j->png = png;
  char *text = NULL;
  size_t len = 0;
  enum gcb_status st =
      gcb_outdir_open(dir, "--output", false, false, &j->p.out, err);
  if (st == GCB_OK)
    st = make_script(docs, ndocs, t, png, out, &text, &len, err);
  if (st == GCB_OK)
    st = check_names(&j->p.out, out, err);
  if (st == GCB_OK && out->n == 0)
    unlinkat(j->p.out.fd, GCB_PLOT_SCRIPT, 0);
  else if (st == GCB_OK)
    st = save_script(&j->p.out, text, len, err);
  if (st == GCB_OK && out->n > 0 && open_work(&j->p) != 0)
    st = errno == EPERM
             ? gcb_err_set(err, GCB_EIO,
                           "%s/%s: not the directory gcbench made for "
                           "gnuplot (another user writes into %s?); refused",
                           dir, j->p.work_name, dir)
             : gcb_err_set(err, GCB_EIO,
                           "%s: cannot make a directory for gnuplot (%s)", dir,
                           strerror(errno));
  if (st == GCB_OK && out->n > 0 && draw_start(j, text, len, out) != 0)
    st = gcb_err_set(err, GCB_ENOMEM, "plots: out of memory");
  free(text);
  *job = j;
  if (st != GCB_OK)
    gcb_plots_finish(job, out);
  return st;
}

void gcb_plots_finish(struct gcb_plot_job **job, struct gcb_plots *out) {
  struct gcb_plot_job *j = *job;
  if (j == NULL)
    return;
  if (j->nparts > 0) /* started, or tried to */
    draw_finish(j, out);
  close_work(&j->p);
  gcb_outdir_close(&j->p.out);
  free(j);
  *job = NULL;
}
