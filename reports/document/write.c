/*
 * Writing the results document atomically (reports/document/results.h,
 * gcb_results_write): a temporary file in the same directory, fsync,
 * rename, fsync of the directory; each case's text kept from one rewrite
 * to the next, since cases do not change once added.
 */
/* O_TMPFILE (Linux 3.11+): the new document is written to an unnamed file
 * and only linked into the directory once complete. */
#define _GNU_SOURCE
#include "common/outfile.h"
#include "reports/document/ranks.h"
#include "reports/document/results_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DUMP_FLAGS (JSON_INDENT(1) | JSON_REAL_PRECISION(17))

/* A shallow copy of the root with the sections in schema order, then any
 * others, so files read the same whatever order sections were set in;
 * "cases" empty, for the cached case texts to go in. */
static json_t *ordered_root(const json_t *root) {
  json_t *out = json_object();
  for (const struct gcb__field *f = gcb__root_fields; out != NULL && f->name;
       f++) {
    json_t *v = strcmp(f->name, "cases") == 0
                    ? json_array()
                    : json_incref(json_object_get(root, f->name));
    if (v != NULL && json_object_set_new(out, f->name, v) != 0)
      json_decrefp(&out);
  }
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)root, key, v) {
    if (out != NULL && json_object_get(out, key) == NULL &&
        json_object_set(out, key, v) != 0)
      json_decrefp(&out);
  }
  return out;
}

static enum gcb_status io_error(const char *path, const char *what, int e,
                                struct gcb_err *err) {
  return gcb_err_set(err, GCB_EIO, "%s: %s (%s)", path, what, strerror(e));
}

/* The document as text: the rest of the document with an empty "cases"
 * array, split where the cached cases go in. */
struct doc_text {
  const char *head; /* up to and including "cases": [ */
  size_t head_len;
  const char *tail; /* from the ] of "cases" on */
  const struct gcb__case_cache *cases;
};

/* Writes the document and a final newline to f, in blocks of 64 KiB (a
 * large document costs a few system calls), and flushes it; false when a
 * write failed. */
static bool write_text(const struct doc_text *t, FILE *f) {
  errno = 0; /* a failed write's, when one fails */
  setvbuf(f, NULL, _IOFBF, (size_t)1 << 16);
  fwrite(t->head, 1, t->head_len, f);
  for (size_t i = 0; i < t->cases->n; i++) {
    fputs(i ? ",\n  " : "\n  ", f);
    fwrite(t->cases->items[i].text, 1, t->cases->items[i].len, f);
  }
  if (t->cases->n > 0)
    fputs("\n ", f);
  fputs(t->tail, f);
  fputc('\n', f);
  return fflush(f) == 0 && !ferror(f);
}

/* Syncs the directory holding path, so that the rename is durable, and
 * removes the temporaries beside path that writers killed between link and
 * rename left (gcb_outfile_remove_stale). Filesystems that cannot sync
 * directories (EINVAL) are not an error. */
static enum gcb_status sync_dir(const char *path, struct gcb_err *err) {
  char dir[4096], base[4096];
  if (gcb_outfile_split(path, dir, base) != 0)
    return io_error(path, "cannot sync directory", ENAMETOOLONG, err);
  enum gcb_status rc = GCB_OK;
  int fd = open(dir, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL))
    rc = io_error(path, "cannot sync directory", errno, err);
  else
    gcb_outfile_remove_stale(fd, base);
  if (fd >= 0)
    close(fd);
  return rc;
}

/* The k-th name tried for path's temporary, as gcb_outfile_begin names
 * them ("PATH.tmp.PID", then "PATH.tmp.PID.k"): another writer of the
 * directory can put a directory or a FIFO at any one name, never at all
 * of them. tmp holds strlen(path) + 32 bytes. */
static void tmp_name(char *tmp, const char *path, int k) {
  size_t size = strlen(path) + 32;
  if (k == 0)
    snprintf(tmp, size, "%s.tmp.%ld", path, (long)getpid());
  else
    snprintf(tmp, size, "%s.tmp.%ld.%d", path, (long)getpid(), k);
}

/* Writes doc to fd, syncs and closes it, and renames the file over path:
 * through the named temporary `tmp` (linked from the unnamed file when
 * `unnamed`, at the first of tmp_name's names that is free). Removes tmp
 * on failure. */
static enum gcb_status finish_file(const struct doc_text *doc, int fd,
                                   bool unnamed, char *tmp, const char *path,
                                   struct gcb_err *err) {
  enum gcb_status rc = GCB_OK;
  FILE *f = fdopen(fd, "w");
  if (f == NULL)
    rc = gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", path);
  else if (!write_text(doc, f))
    rc =
        io_error(path, "cannot write temporary file", errno ? errno : EIO, err);
  else if (fsync(fd) != 0)
    rc = io_error(path, "cannot sync temporary file", errno, err);
  if (rc == GCB_OK && unnamed) {
    /* Linked only now, complete and synced: a writer killed before this
     * point leaves nothing behind, not even a temporary file. */
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    int linked = -1;
    for (int k = 0; k < 100 && linked != 0; k++) {
      tmp_name(tmp, path, k);
      unlink(tmp); /* left by a writer killed between link and rename */
      linked = linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW);
      if (linked != 0 && errno != EEXIST)
        break;
    }
    if (linked != 0)
      rc = io_error(path, "cannot link temporary file", errno, err);
  }
  if ((f != NULL ? fclose(f) : close(fd)) != 0 && rc == GCB_OK)
    rc = io_error(path, "cannot close temporary file", errno, err);
  if (rc == GCB_OK && rename(tmp, path) != 0)
    rc = io_error(path, "cannot rename temporary file into place", errno, err);
  if (rc != GCB_OK)
    unlink(tmp);
  return rc;
}

/* An unnamed file in path's directory (O_TMPFILE), or -1 where the system
 * or filesystem has none, or /proc, through which it is linked, is not
 * mounted. */
static int open_unnamed(const char *path) {
#ifdef O_TMPFILE
  if (access("/proc/self/fd", X_OK) != 0)
    return -1;
  char dir[4096], base[4096];
  if (gcb_outfile_split(path, dir, base) != 0)
    return -1;
  return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
#else
  (void)path;
  return -1;
#endif
}

/* Writes doc to a temporary file, then renames it over path. */
static enum gcb_status replace_file(const struct doc_text *doc, char *tmp,
                                    const char *path, struct gcb_err *err) {
  int fd = open_unnamed(path);
  if (fd >= 0)
    return finish_file(doc, fd, true, tmp, path, err);
  /* Exclusive and not through a symlink: whatever is planted at the
   * temporary name (a link to a file of the victim's) is removed, never
   * written through; what cannot be removed (a directory) is passed by. */
  for (int k = 0; k < 100 && fd < 0; k++) {
    tmp_name(tmp, path, k);
    unlink(tmp);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0)
    return io_error(path, "cannot create temporary file", errno, err);
  return finish_file(doc, fd, false, tmp, path, err);
}

/* Refuses to replace what is not a file: a rename over a device or a FIFO
 * (/dev/null with --force) would replace the node itself. Directories are
 * left to rename, which refuses them. */
static enum gcb_status check_target(const char *path, struct gcb_err *err) {
  struct stat sb;
  if (lstat(path, &sb) != 0 || S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode) ||
      S_ISDIR(sb.st_mode))
    return GCB_OK;
  return gcb_err_set(err, GCB_EIO,
                     "%s: not a regular file; a results document will not "
                     "replace it",
                     path);
}

/* Case c as it stands in the document: dumped alone (with its per-rank
 * columns, pr, when it holds them apart: a document read), then indented
 * by the two levels of "cases": [ ... ] (strings hold no raw newline). */
static char *case_text(const json_t *c, const struct gcb_ranks *pr,
                       size_t *len) {
  json_t *plain =
      pr != NULL ? json_copy((json_t *)c) : json_incref((json_t *)c);
  if (pr != NULL && plain != NULL &&
      json_object_set_new(plain, "per_rank", gcb_ranks_json(pr)) != 0)
    json_decrefp(&plain);
  char *flat = plain != NULL ? json_dumps(plain, DUMP_FLAGS) : NULL;
  json_decref(plain);
  if (flat == NULL)
    return NULL;
  size_t lines = 0, n = strlen(flat);
  for (size_t i = 0; i < n; i++)
    lines += flat[i] == '\n';
  char *out = malloc(n + 2 * lines + 1), *o = out;
  for (size_t i = 0; out != NULL && i < n; i++) {
    *o++ = flat[i];
    if (flat[i] == '\n')
      *o++ = ' ', *o++ = ' ';
  }
  if (out != NULL)
    *o = '\0', *len = (size_t)(o - out);
  free(flat);
  return out;
}

/* Brings the cache up to the document's cases; -1 on ENOMEM. A case
 * replaced in the tree (another json_t) is dumped again. */
static int cache_update(const struct gcb_results *r) {
  const json_t *cases = json_object_get(r->root, "cases");
  size_t n = json_array_size(cases);
  struct gcb__case_cache *k = r->cache;
  if (n > k->cap) {
    size_t cap = n > 2 * k->cap ? n : 2 * k->cap;
    struct gcb__case_text *grown = realloc(k->items, cap * sizeof *grown);
    if (grown == NULL)
      return -1;
    memset(grown + k->cap, 0, (cap - k->cap) * sizeof *grown);
    k->items = grown;
    k->cap = cap;
  }
  for (size_t i = n; i < k->n; i++) {
    free(k->items[i].text);
    k->items[i] = (struct gcb__case_text){0};
  }
  k->n = n;
  for (size_t i = 0; i < n; i++) {
    struct gcb__case_text *t = &k->items[i];
    const json_t *c = json_array_get(cases, i);
    if (t->text != NULL && t->c == c)
      continue;
    free(t->text);
    t->c = c;
    if ((t->text = case_text(c, gcb_results_ranks(r, i), &t->len)) == NULL)
      return -1;
  }
  return 0;
}

/* The document's text around its cases (the caller frees *head). */
static int split_text(const struct gcb_results *r, char **head,
                      struct doc_text *t) {
  static const char marker[] = "\n \"cases\": []";
  json_t *doc = ordered_root(r->root);
  *head = doc != NULL ? json_dumps(doc, DUMP_FLAGS) : NULL;
  json_decref(doc);
  const char *at = *head != NULL ? strstr(*head, marker) : NULL;
  if (at == NULL)
    return -1;
  *t = (struct doc_text){.head = *head,
                         .head_len = (size_t)(at - *head) + sizeof marker - 2,
                         .tail = at + sizeof marker - 2,
                         .cases = r->cache};
  return 0;
}

enum gcb_status gcb_results_write(const struct gcb_results *r, const char *path,
                                  struct gcb_err *err) {
  size_t size = strlen(path) + 32;
  char *tmp = malloc(size), *head = NULL;
  struct doc_text text;
  enum gcb_status rc = GCB_OK;
  if (tmp == NULL || cache_update(r) != 0 || split_text(r, &head, &text) != 0) {
    rc = gcb_err_set(err, GCB_ENOMEM, "%s: out of memory", path);
    goto done;
  }
  tmp_name(tmp, path, 0);
  rc = check_target(path, err);
  if (rc == GCB_OK)
    rc = replace_file(&text, tmp, path, err);
  if (rc == GCB_OK)
    rc = sync_dir(path, err);
done:
  free(head);
  free(tmp);
  return rc;
}

void gcb__case_cache_free(struct gcb__case_cache *k) {
  for (size_t i = 0; k != NULL && i < k->n; i++)
    free(k->items[i].text);
  if (k != NULL)
    free(k->items);
  free(k);
}
