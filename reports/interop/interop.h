/*
 * Reading what other tools write, into the same results document the
 * report reads: nccl-tests' JSON output (`-J FILE.json`, JSON_FILE_VERSION
 * 2) and nvbandwidth's (`-j`, printed on stdout). The format of each input
 * is detected from its content, so `gcbench report` takes any mix of
 * gcbench, nccl-tests and nvbandwidth files. docs/REPORTS.md says what
 * each becomes; tests/data/interop/README.md which sources the samples
 * follow.
 *
 * A converted file is a gcbench.results/1 document (checked by the same
 * reader as gcbench's own), so every rule, table, plot and renderer sees
 * it like any other. Problems in an input are GCB_EINPUT with
 * "FILE:LINE:COLUMN: path: problem".
 */
#ifndef GCB_INTEROP_H
#define GCB_INTEROP_H

#include <stddef.h>

#include "reports/document/results.h"
#include "reports/document/view.h"

enum gcb_format {
  GCB_FORMAT_GCBENCH,     /* gcbench.results/N (or anything else: the
                             results reader says what is wrong with it) */
  GCB_FORMAT_NCCL_TESTS,  /* nccl-tests -J */
  GCB_FORMAT_NVBANDWIDTH, /* nvbandwidth -j */
};

/* "gcbench", "nccl-tests", "nvbandwidth". */
const char *gcb_format_name(enum gcb_format f);

/*
 * The format of a file's text. A gcbench document names its schema first,
 * so the first 64 KiB decide without parsing the whole (large) document;
 * otherwise the text is parsed and recognised by its shape: an object with
 * an "nvbandwidth" object, or one with a "results" array and
 * "nccl_version" or "config". Text that is none of these (or no JSON at
 * all) is GCB_FORMAT_GCBENCH, so that the results reader reports it.
 */
enum gcb_format gcb_interop_detect(const char *text, size_t len);

/*
 * Reads `path` in whatever format it has. A foreign file is converted;
 * where it names GPUs by PCI bus id, the topology of the matching node of
 * one of the documents in `known` (same host name, or holding every one
 * of those bus ids) is copied in, so P2P pairs and copies are judged
 * against what the links should carry. On success *out is a validated
 * document the caller frees and *format says what the file was.
 * GCB_EINPUT with "FILE:LINE:COLUMN: path: problem", GCB_EIO, GCB_ENOMEM.
 */
enum gcb_status gcb_interop_read(const char *path, const struct gcb_doc *known,
                                 size_t nknown, struct gcb_results **out,
                                 enum gcb_format *format, struct gcb_err *err);

/* The same from a buffer; `name` stands for the file name in messages. */
enum gcb_status gcb_interop_parse(const char *text, size_t len,
                                  const char *name, const struct gcb_doc *known,
                                  size_t nknown, struct gcb_results **out,
                                  enum gcb_format *format, struct gcb_err *err);

#endif
