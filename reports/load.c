/*
 * Loading the report inputs (reports/load.h): every file read whole and
 * told apart (gcbench's own or another tool's), gcbench's documents parsed
 * at once (reports/document/results_many.h), then the other tools' files
 * converted, each joined to the topology of a gcbench document of the same
 * machine, then the baseline, then the criteria.
 */
#include "reports/load.h"

#include <stdbool.h>
#include <stdlib.h>

#include "common/file.h"
#include "reports/document/results_many.h"
#include "reports/interop/interop.h"

/* A file of the command line, read whole. */
struct input_file {
  const char *path;
  char *text;
  size_t len;
  bool foreign; /* another tool's output, converted */
};

/* Reads every file, then parses the gcbench documents among them at once
 * (at thousands of ranks, parsing is most of a report's time). */
static enum gcb_status read_files(struct input_file *f, size_t total,
                                  struct gcb_parse_job *jobs,
                                  struct gcb_err *err) {
  for (size_t i = 0; i < total; i++) {
    /* A results document's limit follows its shape (results.h): the
     * parse checks it; other tools' files keep the fixed one. */
    enum gcb_status st = gcb_file_read(f[i].path, GCB_RESULTS_MAX_BYTES,
                                       &f[i].text, &f[i].len, err);
    if (st != GCB_OK)
      return st;
    f[i].foreign =
        gcb_interop_detect(f[i].text, f[i].len) != GCB_FORMAT_GCBENCH;
    if (f[i].foreign && f[i].len > GCB_FILE_MAX_BYTES)
      return gcb_err_set(err, GCB_EINPUT,
                         "%s: too large (%zu bytes, limit %zu MiB)", f[i].path,
                         f[i].len, GCB_FILE_MAX_BYTES >> 20);
  }
  size_t njobs = 0;
  for (size_t i = 0; i < total; i++)
    if (!f[i].foreign)
      jobs[njobs++] = (struct gcb_parse_job){
          .text = f[i].text, .len = f[i].len, .name = f[i].path};
  gcb_results_parse_many(jobs, njobs);
  return GCB_OK;
}

/* A parsed gcbench document into slot `slot` of in, with its model. */
static enum gcb_status place_own(struct gcb_inputs *in, size_t slot,
                                 const char *path, struct gcb_parse_job *job,
                                 struct gcb_err *err) {
  in->res[slot] = job->out;
  if (job->status != GCB_OK) {
    *err = job->err;
    return job->status;
  }
  return gcb_model_from_results(job->out, path, &in->models[slot], err);
}

/* gcbench documents first, then the files of other tools, which can then
 * take the topology of a gcbench document of the same machine, then the
 * baseline (the last file, when there is one). Documents keep the command
 * line's order; the first problem in that order is the one reported. A
 * converted file is its model alone (.root NULL). */
static enum gcb_status place_files(struct input_file *f, size_t n,
                                   bool baseline, struct gcb_parse_job *jobs,
                                   struct gcb_inputs *in, struct gcb_err *err) {
  struct gcb_doc known[GCB_LOAD_MAX_DOCS];
  struct gcb_parse_job *job = jobs;
  size_t nk = 0;
  enum gcb_status st = GCB_OK;
  for (size_t i = 0; i < n + baseline; i++) {
    if (f[i].foreign)
      continue;
    size_t slot = i < n ? i : GCB_LOAD_MAX_DOCS;
    struct gcb_err e = {0};
    enum gcb_status s = place_own(in, slot, f[i].path, job++, &e);
    if (st == GCB_OK && s != GCB_OK && (i < n || s == GCB_ENOMEM)) {
      st = s;
      *err = e;
    }
  }
  for (size_t i = 0; i < n && st == GCB_OK; i++)
    if (!f[i].foreign)
      known[nk++] = in->docs[i] = (struct gcb_doc){
          .name = f[i].path,
          .root = gcb_results_json(in->res[i]),
          .model = in->models[i]};
  for (size_t i = 0; i < n && st == GCB_OK; i++) {
    struct gcb_results *none;
    if (f[i].foreign &&
        (st = gcb_interop_parse(f[i].text, f[i].len, f[i].path, known, nk,
                                &none, &in->models[i], NULL, err)) == GCB_OK)
      in->docs[i] = (struct gcb_doc){.name = f[i].path, .model = in->models[i]};
  }
  in->ndocs = st == GCB_OK ? n : 0;
  if (st != GCB_OK || !baseline)
    return st;
  struct gcb_results **res = &in->res[GCB_LOAD_MAX_DOCS];
  struct gcb_model **model = &in->models[GCB_LOAD_MAX_DOCS];
  if (f[n].foreign)
    st = gcb_interop_parse(f[n].text, f[n].len, f[n].path, in->docs, in->ndocs,
                           res, model, NULL, err);
  else if (job[-1].status != GCB_OK) {
    st = job[-1].status;
    *err = job[-1].err;
  }
  if (st == GCB_OK)
    in->base = (struct gcb_doc){.name = f[n].path,
                                .root = *res ? gcb_results_json(*res) : NULL,
                                .model = *model};
  return st;
}

enum gcb_status gcb_inputs_load(const char *const *files, size_t n,
                                const char *baseline, const char *criteria,
                                struct gcb_inputs *in, struct gcb_err *err) {
  size_t total = n + (baseline != NULL);
  struct input_file *f = calloc(total + 1, sizeof *f);
  struct gcb_parse_job *jobs = calloc(total + 1, sizeof *jobs);
  enum gcb_status st = GCB_OK;
  if (f == NULL || jobs == NULL)
    st = gcb_err_set(err, GCB_ENOMEM, "report: out of memory");
  for (size_t i = 0; st == GCB_OK && i < total; i++)
    f[i].path = i < n ? files[i] : baseline;
  if (st == GCB_OK)
    st = read_files(f, total, jobs, err);
  if (st == GCB_OK)
    st = place_files(f, n, baseline != NULL, jobs, in, err);
  for (size_t i = 0; f != NULL && i < total; i++)
    free(f[i].text);
  free(f);
  free(jobs);
  if (st == GCB_OK && criteria != NULL)
    st = gcb_criteria_read(criteria, &in->cr, err);
  return st;
}

void gcb_inputs_free(struct gcb_inputs *in) {
  for (size_t i = 0; i <= GCB_LOAD_MAX_DOCS; i++) {
    gcb_model_free(in->models[i]); /* before the tree it borrows from */
    gcb_results_free(in->res[i]);
  }
  gcb_criteria_free(in->cr);
}
