/*
 * Source positions for JSON values. jansson reports where a syntax error is
 * but keeps no positions for parsed values; semantic errors ("cases[2].unit:
 * expected a string") still deserve a file:line:column. This finds the
 * position of a value by its path in already-valid JSON text.
 */
#ifndef GCB_JSONPOS_H
#define GCB_JSONPOS_H

#include <stddef.h>

#include "common/status.h"

/* One step of a path: an object key (key != NULL) or an array index. */
struct gcb_json_step {
  const char *key;
  size_t index;
};

/*
 * Finds the value at path[0..depth) in text (depth 0 = the root value) and
 * stores its 1-based line and column (column counted in characters, i.e.
 * bytes that are not UTF-8 continuation bytes, as jansson counts them in its
 * error positions). Returns 0 on success, -1 when the path does not exist or
 * the text is malformed; then *line and *column hold the deepest position
 * reached (the enclosing value, or 1:1 for empty text), so callers always
 * have something to print. Never reads outside text[0..len); text need not
 * be NUL-terminated.
 */
int gcb_json_locate(const char *text, size_t len,
                    const struct gcb_json_step *path, size_t depth, int *line,
                    int *column);

/*
 * The path as text, "cases[2].per_rank.rank": keys joined by dots, indices
 * in brackets; "" for the root. Truncated to size - 1 bytes.
 */
void gcb_json_path_text(const struct gcb_json_step *path, size_t depth,
                        char *buf, size_t size);

/*
 * The located message of every JSON reader (results documents, criteria):
 * "name:line:col: path: what" into err, with status GCB_EINPUT, the
 * position that of path[0..depth) in text (gcb_json_locate; the deepest
 * position reached when the path is not there) and ": " left out for the
 * root. Returns GCB_EINPUT.
 */
enum gcb_status gcb_json_located(struct gcb_err *err, const char *text,
                                 size_t len, const char *name,
                                 const struct gcb_json_step *path, size_t depth,
                                 const char *what);

/*
 * GCB_OK when text[0..len) holds no NUL byte; else GCB_EINPUT with
 * "name:line:col: a NUL byte, ..." at the first one. jansson drops a NUL
 * that follows a number or a literal (`"iterations": 20<NUL>,` reads as
 * 20), so a text it parsed is no proof that there is none: the JSON
 * readers ask this once the text has parsed (jansson's own message comes
 * first for any other fault).
 */
enum gcb_status gcb_json_no_nul(struct gcb_err *err, const char *text,
                                size_t len, const char *name);

#endif
