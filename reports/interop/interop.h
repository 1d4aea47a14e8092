/*
 * Reading what other tools write, into the same results document the
 * report reads: nccl-tests and rccl-tests stdout (every 2.x layout, with
 * whatever launchers interleave) and their JSON outputs (nccl-tests -J,
 * rccl-tests' JSON lines), OSU micro-benchmarks output, and nvbandwidth's
 * text and -j JSON. The format of each input is detected from its content
 * by a table of converters (interop_int.h), so `gcbench report` takes any
 * mix of them. docs/INTEROP.md says what each becomes;
 * tests/data/interop/README.md where the real samples come from.
 *
 * A converted file becomes the typed model of a results document
 * (reports/document/model.h), as gcbench's own documents do, so every
 * rule, table, plot and renderer sees it like any other. Problems in an input
 * are GCB_EINPUT with "FILE:LINE[:COLUMN]: format: problem"; a file no row
 * recognises gets one line naming the formats tried and why each did not fit.
 */
#ifndef GCB_INTEROP_H
#define GCB_INTEROP_H

#include <stddef.h>

#include "reports/document/model.h"
#include "reports/document/results.h"
#include "reports/document/view.h"

enum gcb_format {
  GCB_FORMAT_GCBENCH,     /* gcbench.results/N (or a JSON object with a
                             "schema"), and empty or binary text or JSON
                             that is no object: the results reader says
                             what is wrong with it */
  GCB_FORMAT_NCCL_TESTS,  /* nccl-tests stdout or -J */
  GCB_FORMAT_NVBANDWIDTH, /* nvbandwidth stdout or -j */
  GCB_FORMAT_RCCL_TESTS,  /* rccl-tests stdout or JSON lines */
  GCB_FORMAT_OSU,         /* OSU micro-benchmarks stdout */
  GCB_FORMAT_UNKNOWN,     /* text that is none of them */
};

/* "gcbench", "nccl-tests", "nvbandwidth", "rccl-tests", "OSU", "unknown". */
const char *gcb_format_name(enum gcb_format f);

/* What one foreign file may hold: the text (JSON inputs less, as a parsed
 * tree costs many times its text) and the cases, skipped and error
 * entries built from it, checked as they are built. */
#define GCB_INTEROP_MAX_TEXT ((size_t)32 << 20)
#define GCB_INTEROP_MAX_JSON ((size_t)8 << 20)
#define GCB_INTEROP_MAX_ITEMS ((size_t)20000)

/*
 * The format of a file's text. A gcbench document names its schema first,
 * so the first 64 KiB decide without parsing the whole (large) document;
 * otherwise each row of the converter table tests the content and the
 * surest wins. Empty or binary text, and JSON that is not an object, is
 * GCB_FORMAT_GCBENCH (the results reader says what is wrong with it);
 * anything else no row recognises (a JSON object without a schema
 * included) is GCB_FORMAT_UNKNOWN, which gcb_interop_parse refuses with
 * the formats it tried.
 */
enum gcb_format gcb_interop_detect(const char *text, size_t len);

/*
 * Reads a file's text (`name` stands for the file in messages) in whatever
 * format it has. A foreign file is converted; where it names GPUs by PCI
 * bus id, the topology of the matching node of one of the documents in
 * `known` (their models: same host name, or holding every one of those
 * bus ids) is copied into its model, so P2P pairs and copies are judged against
 * what the links should carry. On success *model is the file's typed model,
 * which the caller frees (gcb_model_free) before *res: gcbench's own document
 * it was built from, NULL for another tool's file, whose model holds all it
 * says. *format (may be NULL) says what the file was. GCB_EINPUT with
 * "FILE:LINE[:COLUMN]: format: problem" (a text over the limits above
 * included), GCB_EIO, GCB_ENOMEM.
 */
enum gcb_status gcb_interop_parse(const char *text, size_t len,
                                  const char *name, const struct gcb_doc *known,
                                  size_t nknown, struct gcb_results **res,
                                  struct gcb_model **model,
                                  enum gcb_format *format, struct gcb_err *err);

#endif
