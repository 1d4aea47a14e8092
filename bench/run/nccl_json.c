/*
 * nccl-tests' -J document (NVIDIA/nccl-tests 2.19.6 src/util.cu, its JSON
 * version 3), so that the tools written for it (its tools/
 * analyze_perf_json.py: straggler, spike and per-node analysis) read
 * gcbench's: version, start_time, args, env, nccl_version, config (with
 * the devices, parsed from the device lines as its parseRankInfo does),
 * results (one object per size: its out-of-place and in-place halves and,
 * under -I 1, their per-iteration objects with every rank's times),
 * out_of_bounds, average_bus_bandwidth, errors, end_time. A sink: it does
 * nothing until a coll record names a file (-J FILE); then it claims FILE
 * as nccl-tests does (FILE.0, FILE.1 ... when FILE exists) and rewrites it
 * whole (a temporary file renamed over it) after every size. env holds
 * what the results document records of the environment (never secrets),
 * not the whole of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "bench/run/header.h"
#include "bench/run/table.h"
#include "common/outfile.h"

extern char **environ;

/* nccl-tests' TIME_STRING_FORMAT, local time. */
static json_t *now_text(void) {
  char buf[64] = "";
  time_t now = time(NULL);
  struct tm tm;
  if (localtime_r(&now, &tm) != NULL)
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return json_string(buf);
}

/* "#  Rank %d Group %d Pid %d on %s device %d [%s] %s", as nccl-tests'
 * parseRankInfo reads it. */
static json_t *device_of(const char *line) {
  int rank = 0, group = 0, pid = 0, device = 0;
  char host[256] = "", hex[128] = "", info[256] = "";
  (void)sscanf(line,
               "#  Rank %d Group %d Pid %d on %255s device %d [%127[^]]] "
               "%255[^\n]",
               &rank, &group, &pid, host, &device, hex, info);
  return json_pack("{s:i, s:i, s:i, s:s, s:i, s:s, s:s}", "rank", rank, "group",
                   group, "pid", pid, "hostname", host, "device", device,
                   "device_hex", hex, "device_info", info);
}

static json_t *config_of(const struct gcb_nccl_json *j,
                         const struct gcb_record *rec) {
  const struct gcb_sweep_shape *sh = rec->shape;
  json_t *c = json_pack("{s:i, s:i, s:I, s:I}", "nthreads", 1, "ngpus", 1,
                        "minimum_bytes", (json_int_t)sh->minbytes,
                        "maximum_bytes", (json_int_t)sh->maxbytes);
  if (c == NULL)
    return NULL;
  if (sh->stepbytes == 0)
    json_object_set_new(c, "step_factor",
                        json_integer((json_int_t)sh->stepfactor));
  else
    json_object_set_new(c, "step_bytes",
                        json_integer((json_int_t)sh->stepbytes));
  json_t *devices = json_array();
  for (int r = 0; devices && j->device_lines && r < j->nranks; r++)
    json_array_append_new(devices, device_of(j->device_lines[r]));
  json_t *rest = json_pack(
      "{s:i, s:i, s:I, s:I, s:i, s:s, s:s, s:I, s:s, s:o*}", "warmup_iters",
      rec->warmup, "iterations", rec->iterations, "aggregated_iterations",
      (json_int_t)sh->agg, "validation", (json_int_t)sh->check, "graph", 0,
      "blocking_collectives", sh->blocking ? "true" : "false",
      "per_iter_timing", sh->per_iter == 1 ? "true" : "false", "per_iter_skip",
      (json_int_t)sh->per_iter_skip, "parallel_init", "false", "devices",
      devices);
  if (rest == NULL || json_object_update(c, rest) != 0) {
    json_decref(rest);
    json_decref(c);
    return NULL;
  }
  json_decref(rest);
  return c;
}

/* The document's head, at the first record that asks for it. */
static json_t *head_of(const struct gcb_nccl_json *j,
                       const struct gcb_record *rec) {
  json_t *args = json_array(), *env = json_array();
  for (int i = 0; args && i < j->argc; i++)
    json_array_append_new(args, json_string(j->argv[i]));
  const char **vars = gcb__launch_env(environ);
  for (size_t i = 0; env && vars && vars[i]; i++)
    json_array_append_new(env, json_string(vars[i]));
  free(vars);
  return json_pack("{s:i, s:o, s:o*, s:o*, s:i, s:o*, s:[]}", "version", 3,
                   "start_time", now_text(), "args", args, "env", env,
                   "nccl_version", rec->shape->nccl_library, "config",
                   config_of(j, rec), "results");
}

/* Claims the path as nccl-tests' jsonOutputInit does: created anew
 * ("wx"), else PATH.0, PATH.1 ... */
static char *claim(const char *path) {
  size_t len = strlen(path) + 24;
  char *try = malloc(len);
  for (int n = -1; try && n < 10000; n++) {
    if (n < 0)
      snprintf(try, len, "%s", path);
    else
      snprintf(try, len, "%s.%d", path, n);
    int fd = open(try, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
      close(fd);
      return try;
    }
    if (errno != EEXIST)
      break;
  }
  free(try);
  return NULL;
}

/* The whole document, its summary fields after the results as nccl-tests
 * writes them at its end, into PATH through a temporary file. */
static enum gcb_status write_doc(struct gcb_nccl_json *j, bool last,
                                 struct gcb_err *err) {
  json_t *d = json_copy(j->doc);
  int halves = j->halves > 0 ? j->halves : 1;
  if (d == NULL ||
      json_object_set_new(d, "out_of_bounds",
                          json_pack("{s:I, s:b}", "count", (json_int_t)j->wrong,
                                    "okay", j->wrong == 0)) != 0 ||
      json_object_set_new(d, "average_bus_bandwidth",
                          json_pack("{s:f, s:s}", "bandwidth",
                                    j->busbw_sum / halves, "okay",
                                    "unchecked")) != 0 ||
      json_object_set_new(
          d, "errors", j->errors ? json_copy(j->errors) : json_array()) != 0 ||
      (last && json_object_set_new(d, "end_time", now_text()) != 0)) {
    json_decref(d);
    return gcb_err_set(err, GCB_ENOMEM, "-J: out of memory");
  }
  /* through a temporary created exclusively, never through a link or a
   * FIFO another user planted at its name (the reports' own road) */
  char dir[4096], base[4096];
  struct gcb_outdir out = {.fd = -1, .lock_fd = -1};
  struct gcb_outfile o;
  enum gcb_status st =
      gcb_outfile_split(j->path, dir, base) != 0
          ? gcb_err_set(err, GCB_EIO, "-J %s: not a file path", j->path)
          : gcb_outdir_open(dir, "-J", false, false, &out, err);
  if (st == GCB_OK && (st = gcb_outfile_begin(&out, base, &o, err)) == GCB_OK) {
    if (json_dumpf(d, o.f, JSON_COMPACT | JSON_REAL_PRECISION(17)) != 0)
      st = gcb_err_set(err, GCB_EIO, "-J %s: cannot write it", j->path);
    st = gcb_outfile_end(&o, st, err);
  }
  gcb_outdir_close(&out);
  json_decref(d);
  return st;
}

/* -I 1's object for one half: nccl-tests' writePerIterReport. */
static json_t *per_iter_of(const struct gcb_record *rec) {
  const struct gcb_iter_times *it = rec->iter;
  double *row = it && it->n > 0 ? malloc((size_t)it->n * sizeof *row) : NULL;
  struct gcb_iter_summary s;
  if (row == NULL ||
      !gcb__iter_summary(it, rec->shape->per_iter_skip, row, &s)) {
    free(row);
    return NULL;
  }
  json_t *times = json_array(), *procs = json_array();
  for (long i = 0; times && i < it->n; i++)
    json_array_append_new(times, json_real(1e6 * row[i]));
  for (int r = 0; procs && it->nranks > 1 && r < it->nranks; r++) {
    json_t *one = json_array();
    for (long i = 0; one && i < it->n; i++)
      json_array_append_new(
          one, json_real(1e6 * it->s[(size_t)r * (size_t)it->n + (size_t)i]));
    json_array_append_new(procs, one);
  }
  free(row);
  json_t *o = json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o*}",
                        "skipped_iterations", (json_int_t)s.skipped, "min_us",
                        1e6 * s.min, "max_us", 1e6 * s.max, "avg_us",
                        1e6 * s.avg, "p50_us", 1e6 * s.p50, "p95_us",
                        1e6 * s.p95, "p99_us", 1e6 * s.p99, "stdev_us",
                        1e6 * s.stdev, "cv_pct", s.cv_pct, "times_us", times);
  if (o != NULL && it->nranks > 1)
    json_object_set(o, "per_process_max_times_us", procs);
  json_decref(procs);
  return o;
}

/* The row of a size (nccl-tests' writeBenchmarkLinePreamble). */
static json_t *row_of(const struct gcb_record *rec) {
  char root[32];
  snprintf(root, sizeof root, "%6" PRId64, gcb_record_int(rec, "root", 0));
  return json_pack("{s:I, s:I, s:s, s:s, s:s}", "size",
                   (json_int_t)gcb_record_int(rec, "size", 0), "count",
                   (json_int_t)gcb_record_int(rec, "count", 0), "type",
                   gcb_record_text(rec, "type"), "redop",
                   gcb_record_text(rec, "redop"), "root", root);
}

/* Closes the waiting row (writeBenchmarkLineTerminator). */
static enum gcb_status end_row(struct gcb_nccl_json *j, struct gcb_err *err) {
  if (j->row == NULL)
    return GCB_OK;
  if (json_object_get(j->row, "in_place") == NULL)
    json_object_set_new(j->row, "in_place", json_null());
  json_object_set_new(j->row, "actual_iterations",
                      json_integer(j->row_iterations));
  json_object_set_new(j->row, "experiment_name", json_string(""));
  json_array_append_new(json_object_get(j->doc, "results"), j->row);
  j->row = NULL;
  return write_doc(j, false, err);
}

/* Where -J asked to go, claimed on the first record that asks. */
static bool opened(struct gcb_nccl_json *j, const struct gcb_record *rec) {
  if (j->path || j->off)
    return j->path != NULL;
  j->off = true;
  if ((j->path = claim(rec->shape->json_path)) == NULL) {
    fprintf(j->out, "# skipping json output; %s not accessible\n",
            rec->shape->json_path);
    return false;
  }
  /* a document from the start, never the empty claim: a run that ends
   * before its first row leaves JSON that says so (gcb_nccl_json_abort) */
  struct gcb_err err = {0};
  if ((j->doc = head_of(j, rec)) == NULL ||
      write_doc(j, false, &err) != GCB_OK) {
    unlink(j->path);
    free(j->path);
    j->path = NULL;
    return false;
  }
  fprintf(j->out, "# Writing JSON output to %s\n", j->path);
  j->off = false;
  return true;
}

/* Puts one half (figures f) into its row; a case with no element
 * (rec->empty, which gcbench skips) has size and count 0 and no
 * per-iteration times, as nccl-tests' row of it. */
static enum gcb_status add_half(struct gcb_nccl_json *j,
                                const struct gcb_record *rec,
                                const struct gcb_coll_figures *fig,
                                struct gcb_err *err) {
  const struct gcb_coll_figures f = *fig;
  char key[128];
  snprintf(key, sizeof key, "%s %s %s %" PRId64 " %" PRId64 " %s %" PRId64,
           gcb_record_text(rec, "op"), gcb_record_text(rec, "type"),
           gcb_record_text(rec, "redop"), gcb_record_int(rec, "size", 0),
           gcb_record_int(rec, "root", 0), gcb_record_text(rec, "split"),
           gcb_record_int(rec, "cycle", 1));
  bool inplace = gcb_record_int(rec, "inplace", 0) != 0;
  enum gcb_status st = GCB_OK;
  if (j->row && (!inplace || strcmp(key, j->key) != 0))
    st = end_row(j, err);
  if (st != GCB_OK)
    return st;
  if (j->row == NULL) {
    if ((j->row = row_of(rec)) == NULL)
      return gcb_err_set(err, GCB_ENOMEM, "-J: out of memory");
    if (rec->empty) {
      json_object_set_new(j->row, "size", json_integer(0));
      json_object_set_new(j->row, "count", json_integer(0));
    }
    snprintf(j->key, sizeof j->key, "%s", key);
    if (inplace) /* writeBenchMarkLineNullBody */
      json_object_set_new(j->row, "out_of_place", json_null());
  }
  json_object_set_new(
      j->row, inplace ? "in_place" : "out_of_place",
      json_pack("{s:f, s:f, s:f, s:o}", "time", 1e6 * f.time_s, "alg_bw",
                f.algbw, "bus_bw", f.busbw, "nwrong",
                f.checked ? json_real((double)f.wrong) : json_null()));
  if (!rec->empty && rec->iter != NULL && rec->shape->per_iter == 1) {
    json_t *pi = per_iter_of(rec);
    if (pi != NULL)
      json_object_set_new(
          j->row, inplace ? "in_place_per_iter" : "out_of_place_per_iter", pi);
  }
  j->row_iterations = rec->iterations;
  j->halves++;
  j->busbw_sum += f.busbw;
  j->wrong += f.wrong;
  return inplace ? end_row(j, err) : GCB_OK;
}

static bool wanted(struct gcb_nccl_json *j, const struct gcb_record *rec) {
  return rec->layout == GCB_LAYOUT_COLLECTIVE && rec->shape != NULL &&
         rec->shape->json_path != NULL && opened(j, rec);
}

static enum gcb_status json_record(void *self, const struct gcb_record *rec,
                                   struct gcb_err *err) {
  struct gcb_nccl_json *j = self;
  if (!wanted(j, rec))
    return GCB_OK;
  struct gcb_coll_figures f;
  gcb__table_coll_figures(rec, &f);
  return add_half(j, rec, &f, err);
}

/* A skipped case is in nccl-tests' document only when nccl-tests would
 * have printed it: a case with no element, all figures 0 (table.c,
 * coll_empty). */
static enum gcb_status json_skip(void *self, const struct gcb_record *rec,
                                 const char *reason, struct gcb_err *err) {
  struct gcb_nccl_json *j = self;
  (void)reason;
  if (!rec->empty || !wanted(j, rec))
    return GCB_OK;
  struct gcb_coll_figures f = {.checked = rec->shape->check > 0};
  return add_half(j, rec, &f, err);
}

/* A case that failed: its message in nccl-tests' "errors" list. */
static enum gcb_status json_error(void *self, const struct gcb_record *rec,
                                  int rank, enum gcb_status code,
                                  const char *message, struct gcb_err *err) {
  (void)rec;
  (void)rank;
  (void)code;
  (void)err;
  struct gcb_nccl_json *j = self;
  if (j->errors == NULL)
    j->errors = json_array();
  if (j->errors != NULL)
    json_array_append_new(j->errors, json_string(message));
  return GCB_OK;
}

static enum gcb_status json_finish(void *self, struct gcb_err *err) {
  struct gcb_nccl_json *j = self;
  if (j->doc == NULL)
    return GCB_OK;
  enum gcb_status st = end_row(j, err);
  return st == GCB_OK ? write_doc(j, true, err) : st;
}

void gcb_nccl_json_abort(struct gcb_nccl_json *j, const char *message) {
  struct gcb_err err = {0};
  if (j->doc == NULL)
    return;
  json_error(j, NULL, -1, GCB_EINTERNAL, message, &err);
  json_finish(j, &err);
}

struct gcb_sink gcb_nccl_json_sink(struct gcb_nccl_json *j) {
  return (struct gcb_sink){.name = "nccl-tests json",
                           .self = j,
                           .record = json_record,
                           .skip = json_skip,
                           .error = json_error,
                           .finish = json_finish};
}

void gcb_nccl_json_free(struct gcb_nccl_json *j) {
  json_decref(j->row);
  json_decref(j->doc);
  json_decref(j->errors);
  free(j->path);
  *j = (struct gcb_nccl_json){0};
}
