/*
 * The results document as a sink: each finished, skipped or failed case is
 * appended and the whole document rewritten atomically, so a crash at any
 * later point keeps every finished case.
 */
#include "bench/run/sink.h"
#include "bench/run/table.h"

/* Rewrites the document after a change, or leaves it for later when the
 * last rewrite was slow and recent (see sink.h). */
static enum gcb_status refresh(struct gcb_document *d, struct gcb_err *err) {
  double start = gcb__table_now();
  if (d->write_s > GCB_DOC_QUICK_S &&
      start - d->written_at < GCB_DOC_SPACING * d->write_s)
    return GCB_OK;
  enum gcb_status st = gcb_results_write(d->results, d->path, err);
  d->written_at = gcb__table_now();
  d->write_s = d->written_at - start;
  return st;
}

static enum gcb_status doc_record(void *self, const struct gcb_record *rec,
                                  struct gcb_err *err) {
  struct gcb_document *d = self;
  enum gcb_status st = gcb_results_add_record(d->results, rec, err);
  return st != GCB_OK ? st : refresh(d, err);
}

static enum gcb_status doc_skip(void *self, const struct gcb_record *rec,
                                const char *reason, struct gcb_err *err) {
  struct gcb_document *d = self;
  enum gcb_status st =
      gcb_results_add_skip(d->results, rec->bench, rec->label, reason, err);
  return st != GCB_OK ? st : refresh(d, err);
}

static enum gcb_status doc_error(void *self, const struct gcb_record *rec,
                                 int rank, enum gcb_status code,
                                 const char *message, struct gcb_err *err) {
  struct gcb_document *d = self;
  enum gcb_status st = gcb_results_add_error(d->results, rec->bench, rec->label,
                                             rank, code, message, err);
  return st != GCB_OK ? st : refresh(d, err);
}

struct gcb_sink gcb_document_sink(struct gcb_document *d) {
  return (struct gcb_sink){.name = "document",
                           .self = d,
                           .record = doc_record,
                           .skip = doc_skip,
                           .error = doc_error};
}
