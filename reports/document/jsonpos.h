/*
 * Source positions for JSON values. jansson reports where a syntax error is
 * but keeps no positions for parsed values; semantic errors ("cases[2].unit:
 * expected a string") still deserve a file:line:column. This finds the
 * position of a value by its path in already-valid JSON text.
 */
#ifndef GCB_JSONPOS_H
#define GCB_JSONPOS_H

#include <stddef.h>

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

#endif
