/*
 * nccl-tests' JSON output (`all_reduce_perf ... -J out.json`; the writer is
 * src/util.cu, JSON_FILE_VERSION 2, and 3 since its -I per-iteration
 * timing: config's per_iter_timing and per_iter_skip, each row's
 * out_of_place_per_iter and in_place_per_iter, which this reader leaves
 * aside) as a typed model. The file holds
 * version, start_time, args, env, nccl_version, config (the options and
 * devices[]: rank, group, pid, hostname, device, device_hex, device_info),
 * results[] (one row per size: size, count, type, redop, root as a padded
 * string, out_of_place and in_place each {time or cpu_time in us, alg_bw,
 * bus_bw, nwrong} or null), out_of_bounds, average_bus_bandwidth, errors[]
 * and end_time.
 *
 * Each half of each row becomes a "coll" case in the layout of gcbench's
 * own coll benchmark (interop_build.c, shared with the logs), so
 * sweeps from both tools show in one table and one plot; the average bus
 * bandwidth an imported figure. nccl-tests reports only the average over ranks,
 * so the cases have no per-rank entries, and min, mean and max of the time are
 * that average. The operation comes from the program name in args[0]
 * (all_reduce_perf: allreduce); the file does not say it otherwise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/busid.h"
#include "common/nccl_version.h"
#include "reports/document/view.h"
#include "reports/interop/interop_int.h"

/* "allreduce" from ".../all_reduce_perf" (or "_perf_mpi"), as gcbench
 * names its operations. */
static void op_name(const json_t *args, char *buf, size_t size) {
  const char *prog = json_string_value(json_array_get(args, 0));
  const char *base = gcb__conv_base_name(prog ? prog : "unknown");
  const char *end = strstr(base, "_perf");
  gcb__coll_op(base, end ? (size_t)(end - base) : strlen(base), buf, size);
}

struct nccl {
  struct gcb__conv *cv;
  char op[64];
  long long ranks, warmup, iterations;
  long long devices;           /* config.devices entries read */
  double min_bytes, max_bytes; /* of the rows, which the average is of */
};

/* An entry of config.devices (one per rank) into ranks[] and nodes[]. */
static enum gcb_status device(void *ctx, const json_t *d) {
  struct nccl *x = ctx;
  const json_t *v;
  enum gcb_status st;
  if (!json_is_object(d))
    return gcb__conv_bad(x->cv, "expected an object");
  if ((st = gcb__conv_get(x->cv, d, "rank", GCB__J_NUM, true, &v)) ||
      (st = gcb__conv_get(x->cv, d, "hostname", GCB__J_STR, true, &v)) ||
      (st = gcb__conv_get(x->cv, d, "device_hex", GCB__J_STR, false, &v)) ||
      (st = gcb__conv_get(x->cv, d, "device_info", GCB__J_STR, false, &v)))
    return st;
  const char *host = gcb_view_str(d, "hostname");
  long long rank = gcb_view_int(d, "rank", x->devices++);
  char bus[32];
  gcb_busid_canon(gcb_view_str(d, "device_hex"), bus, sizeof bus);
  return gcb__conv_rank(x->cv, rank, host, gcb_view_int(d, "pid", 0),
                        gcb_view_str(d, "device_info"), bus,
                        gcb_view_int(d, "device", -1));
}

/* One half of a result row (key "out_of_place" or "in_place"): {time or
 * cpu_time, alg_bw, bus_bw, nwrong}, or null where nccl-tests ran only the
 * other half. */
static enum gcb_status half(struct gcb__conv *cv, const json_t *row,
                            const char *key, struct gcb__coll_half *m) {
  const json_t *h, *t, *alg, *bus, *wrong;
  enum gcb_status st =
      gcb__conv_get(cv, row, key, GCB__J_OBJ | GCB__J_NULL, false, &h);
  if (st != GCB_OK || !json_is_object(h))
    return st;
  const char *tkey = json_object_get(h, "cpu_time") ? "cpu_time" : "time";
  gcb__conv_enter(cv, key, 0);
  if (!(st = gcb__conv_get(cv, h, tkey, GCB__J_NUM | GCB__J_STR, true, &t)) &&
      !(st = gcb__conv_get(cv, h, "alg_bw", GCB__J_NUM | GCB__J_STR, true,
                           &alg)) &&
      !(st = gcb__conv_get(cv, h, "bus_bw", GCB__J_NUM | GCB__J_STR, true,
                           &bus)) &&
      !(st = gcb__conv_get(cv, h, "nwrong", GCB__J_NUM | GCB__J_NULL, false,
                           &wrong)))
    *m = gcb__coll_half(gcb__conv_number(t), gcb__conv_number(alg),
                        gcb__conv_number(bus), json_is_number(wrong),
                        json_number_value(wrong));
  gcb__conv_leave(cv);
  return st;
}

/* nccl-tests prints the root as "%6i" into a string: "    -1". */
static enum gcb_status root_of(struct gcb__conv *cv, const json_t *root,
                               long long *out) {
  const char *rs = json_string_value(root);
  char *end = NULL;
  double rt = rs ? strtod(rs, &end) : json_number_value(root);
  if ((rs && (end == rs || *end != '\0')) || !isfinite(rt) || rt != floor(rt) ||
      fabs(rt) > 1e9) {
    gcb__conv_enter(cv, "root", 0);
    enum gcb_status st = gcb__conv_bad(cv, "expected a rank");
    gcb__conv_leave(cv);
    return st;
  }
  *out = (long long)rt;
  return GCB_OK;
}

static enum gcb_status row(void *ctx, const json_t *r) {
  struct nccl *x = ctx;
  struct gcb__conv *cv = x->cv;
  const json_t *size, *count, *type, *redop, *root;
  enum gcb_status st;
  if (!json_is_object(r))
    return gcb__conv_bad(cv, "expected an object");
  if ((st = gcb__conv_get(cv, r, "size", GCB__J_NUM, true, &size)) ||
      (st = gcb__conv_get(cv, r, "count", GCB__J_NUM, true, &count)) ||
      (st = gcb__conv_get(cv, r, "type", GCB__J_STR, true, &type)) ||
      (st = gcb__conv_get(cv, r, "redop", GCB__J_STR, true, &redop)) ||
      (st = gcb__conv_get(cv, r, "root", GCB__J_STR | GCB__J_NUM, true, &root)))
    return st;
  x->min_bytes = fmin(x->min_bytes, json_number_value(size));
  x->max_bytes = fmax(x->max_bytes, json_number_value(size));
  struct gcb__coll_row cr = {.size = json_number_value(size),
                             .count = json_number_value(count),
                             .iterations =
                                 gcb_view_int(r, "actual_iterations", 0)};
  snprintf(cr.type, sizeof cr.type, "%s", json_string_value(type));
  snprintf(cr.redop, sizeof cr.redop, "%s", json_string_value(redop));
  if ((st = root_of(cv, root, &cr.root)) ||
      (st = half(cv, r, "out_of_place", &cr.half[0])) ||
      (st = half(cv, r, "in_place", &cr.half[1])))
    return st;
  return gcb__coll_row_cases(cv, x->op, &cr, x->ranks, x->iterations, x->warmup,
                             "nccl-tests -c");
}

/* errors[] strings and a failed average bandwidth check become errors;
 * the average bus bandwidth itself an imported figure where a row was
 * measured. */
static enum gcb_status run_errors(struct nccl *x, const json_t *root,
                                  bool measured) {
  const json_t *e;
  size_t i;
  enum gcb_status st = GCB_OK;
  json_array_foreach(json_object_get(root, "errors"), i, e) {
    const char *msg = json_string_value(e);
    if (st == GCB_OK && msg != NULL && msg[0] != '\0')
      st = gcb__conv_error(x->cv, "coll", x->op, "ENCCL", "%s", msg);
  }
  const json_t *avg = gcb_view_obj(root, "average_bus_bandwidth");
  double bw = gcb__conv_number(json_object_get(avg, "bandwidth"));
  /* the average of rows none of which gave a figure (a 0-byte row alone)
   * averages nothing measured: no figure, as in the text log */
  if (st == GCB_OK && !isnan(bw) && measured)
    st = gcb__coll_average(x->cv, "nccl-tests", x->op, x->min_bytes,
                           x->max_bytes, bw, 0);
  if (st == GCB_OK && strcmp(gcb_view_str(avg, "okay"), "false") == 0)
    st = gcb__conv_error(
        x->cv, "coll", x->op, "EVALIDATION",
        "average bus bandwidth %g GB/s below 0.9 x NCCL_TESTS_MIN_BW", bw);
  return st;
}

/* The run's command line: the string elements of args[]. */
static enum gcb_status command_line(struct gcb__conv *cv, const json_t *args) {
  json_t *line = json_array();
  const json_t *a;
  size_t i;
  bool whole = line != NULL;
  json_array_foreach(args, i, a) {
    if (whole && json_is_string(a))
      whole = json_array_append(line, (json_t *)a) == 0;
  }
  /* an argument lost to memory running out is no other command line */
  if (!whole) {
    json_decref(line);
    return gcb__conv_nomem(cv);
  }
  char *text = gcb__json_text(line);
  gcb__conv_run_set(cv, "command_line", gcb__mvalue_array(cv->m, text));
  free(text);
  json_decref(line);
  return GCB_OK;
}

/* The run from the header fields, and the ranks and nodes. */
static enum gcb_status header(struct nccl *x, const json_t *root,
                              const json_t *config) {
  struct gcb__conv *cv = x->cv;
  const json_t *args, *start, *end, *devs = NULL, *ver, *file_version;
  enum gcb_status st;
  if ((st = gcb__conv_get(cv, root, "version", GCB__J_NUM, false,
                          &file_version)))
    return st;
  double fv = json_number_value(file_version);
  if (file_version != NULL && !(fv >= 1 && fv <= 3)) {
    /* JSON_FILE_VERSION 3 (nccl-tests 2.19.6) is the newest this reader
     * knows. */
    gcb__conv_enter(cv, "version", 0);
    st = gcb__conv_bad(cv, "nccl-tests JSON version %g: gcbench reads 1 to 3",
                       fv);
    gcb__conv_leave(cv);
    return st;
  }
  if ((st = gcb__conv_get(cv, root, "args", GCB__J_ARR, false, &args)) ||
      (st = gcb__conv_get(cv, root, "start_time", GCB__J_STR, false, &start)) ||
      (st = gcb__conv_get(cv, root, "end_time", GCB__J_STR, false, &end)) ||
      (st = gcb__conv_get(cv, root, "nccl_version", GCB__J_NUM, false, &ver)))
    return st;
  gcb__conv_enter(cv, "config", 0);
  if (config != NULL)
    st = gcb__conv_get(cv, config, "devices", GCB__J_ARR, false, &devs);
  gcb__conv_leave(cv);
  if (st != GCB_OK)
    return st;
  op_name(args, x->op, sizeof x->op);
  char version[32] = "";
  struct gcb_model *m = cv->m;
  x->ranks = (long long)json_array_size(devs);
  gcb__conv_run(cv, "nccl-tests");
  if ((st = command_line(cv, args)) != GCB_OK)
    return st;
  gcb__conv_run_set(
      cv, "start_time",
      gcb__mvalue_string(m, start ? json_string_value(start) : ""));
  gcb__conv_run_set(cv, "end_time",
                    end ? gcb__mvalue_string(m, json_string_value(end))
                        : gcb__mvalue_null());
  if (end == NULL) /* the run did not finish */
    gcb__conv_run_set(cv, "status", gcb__mvalue_string(m, "running"));
  gcb__conv_run_set(cv, "ranks", gcb__mvalue_int(x->ranks));
  if (ver != NULL) {
    gcb_nccl_version_format(version, sizeof version,
                            gcb__conv_ll(json_number_value(ver), 0));
    gcb__conv_software(cv, "nccl", version);
  }
  x->warmup = gcb_view_int(config, "warmup_iters", 0);
  x->iterations = gcb_view_int(config, "iterations", 0);
  gcb__conv_enter(cv, "config", 0);
  st = gcb__conv_each(cv, "devices", devs, device, x);
  gcb__conv_leave(cv);
  return st;
}

static int detect(const struct gcb__sniff *s, char *why, size_t size) {
  const json_t *r = s->root;
  if (json_is_array(json_object_get(r, "results")) &&
      (json_object_get(r, "nccl_version") != NULL ||
       json_object_get(r, "config") != NULL) &&
      json_object_get(r, "schema") == NULL)
    return 80;
  snprintf(why, size, r ? "no \"results\" and \"nccl_version\"" : "no JSON");
  return 0;
}

static enum gcb_status convert(struct gcb__conv *cv, const json_t *root) {
  struct nccl x = {.cv = cv, .min_bytes = INFINITY};
  const json_t *config, *results;
  enum gcb_status st;
  if ((st = gcb__conv_get(cv, root, "config", GCB__J_OBJ, false, &config)) ||
      (st = gcb__conv_get(cv, root, "results", GCB__J_ARR, true, &results)))
    return st;
  st = header(&x, root, config);
  size_t before = cv->m->ncases;
  if (st == GCB_OK)
    st = gcb__conv_each(cv, "results", results, row, &x);
  if (st == GCB_OK)
    st = run_errors(&x, root, cv->m->ncases > before);
  return st;
}

const struct gcb__converter gcb__row_nccl_json = {
    "nccl-tests JSON", GCB_FORMAT_NCCL_TESTS, true, detect, convert};
