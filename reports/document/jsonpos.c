/*
 * Source positions for JSON values: a small scanner that walks JSON text
 * along a path of object keys and array indices, skipping everything else,
 * and reports where the value at the end of the path starts.
 *
 * The text is expected to be valid JSON (jansson has already parsed it), so
 * the scanner checks only what it needs to find its way; but it never reads
 * outside text[0..len) and never recurses, so malformed or deeply nested
 * input gives -1, not a crash. Columns count characters (bytes that are not
 * UTF-8 continuation bytes), which is how jansson counts them in its own
 * error positions, so syntax and semantic errors point the same way.
 */
#include "reports/document/jsonpos.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

struct scan {
  const unsigned char *p, *end;
  int line;
  int chars; /* characters consumed on the current line */
};

static int at_end(const struct scan *s) {
  return s->p >= s->end;
}

static void advance(struct scan *s) {
  unsigned char c = *s->p++;
  if (c == '\n') {
    s->line++;
    s->chars = 0;
  } else if ((c & 0xC0) != 0x80) {
    s->chars++;
  }
}

static void skip_ws(struct scan *s) {
  while (!at_end(s) && memchr(" \t\r\n", *s->p, 4) != NULL)
    advance(s);
}

/* Consumes c if it is next; 0 if it is not (or at the end). */
static int eat(struct scan *s, char c) {
  if (at_end(s) || *s->p != (unsigned char)c)
    return 0;
  advance(s);
  return 1;
}

/* Skips a string starting at its opening quote, through its closing one. */
static int skip_string(struct scan *s) {
  if (!eat(s, '"'))
    return -1;
  while (!at_end(s)) {
    unsigned char c = *s->p;
    advance(s);
    if (c == '"')
      return 0;
    if (c == '\\') {
      if (at_end(s))
        return -1;
      advance(s);
    }
  }
  return -1;
}

/* Skips an object or array without recursion: only strings can hide
 * brackets, so counting brackets outside strings finds the end. */
static int skip_composite(struct scan *s) {
  size_t depth = 0;
  while (!at_end(s)) {
    unsigned char c = *s->p;
    if (c == '"') {
      if (skip_string(s) != 0)
        return -1;
      continue;
    }
    advance(s);
    if (c == '{' || c == '[')
      depth++;
    else if ((c == '}' || c == ']') && --depth == 0)
      return 0;
  }
  return -1;
}

/* Numbers and literals: everything up to the next delimiter. */
static int skip_scalar(struct scan *s) {
  const unsigned char *start = s->p;
  while (!at_end(s) && memchr(",]}: \t\r\n\"{[", *s->p, 12) == NULL)
    advance(s);
  return s->p > start ? 0 : -1;
}

static int skip_value(struct scan *s) {
  if (at_end(s))
    return -1;
  if (*s->p == '"')
    return skip_string(s);
  if (*s->p == '{' || *s->p == '[')
    return skip_composite(s);
  return skip_scalar(s);
}

/* Consumes a member's key, its colon and the blanks after them: 1 when
 * the key is `key`, 0 another, -1 malformed. jansson decodes the key
 * (escapes, surrogate pairs), as it did when it read the text. */
static int match_key(struct scan *s, const char *key) {
  const unsigned char *start = s->p;
  if (skip_string(s) != 0)
    return -1;
  json_t *v = json_loadb((const char *)start, (size_t)(s->p - start),
                         JSON_DECODE_ANY, NULL);
  int same = json_is_string(v) ? strcmp(json_string_value(v), key) == 0 : -1;
  json_decref(v);
  skip_ws(s);
  if (same < 0 || !eat(s, ':'))
    return -1;
  skip_ws(s);
  return same;
}

/* At an object or array: moves to the value of member step->key, or to
 * element step->index when key is NULL. */
static int enter(struct scan *s, const struct gcb_json_step *step) {
  if (!eat(s, step->key != NULL ? '{' : '['))
    return -1;
  for (size_t i = 0;; i++) {
    skip_ws(s);
    int found = step->key != NULL           ? match_key(s, step->key)
                : at_end(s) || *s->p == ']' ? -1
                                            : i == step->index;
    if (found != 0)
      return found > 0 ? 0 : -1;
    if (skip_value(s) != 0)
      return -1;
    skip_ws(s);
    if (!eat(s, ','))
      return -1;
  }
}

int gcb_json_locate(const char *text, size_t len,
                    const struct gcb_json_step *path, size_t depth, int *line,
                    int *column) {
  struct scan s = {(const unsigned char *)text,
                   (const unsigned char *)text + len, 1, 0};
  skip_ws(&s);
  *line = s.line;
  *column = s.chars + 1;
  if (at_end(&s))
    return -1;
  for (size_t i = 0; i < depth; i++) {
    if (enter(&s, &path[i]) != 0 || at_end(&s))
      return -1;
    *line = s.line;
    *column = s.chars + 1;
  }
  return 0;
}

void gcb_json_path_text(const struct gcb_json_step *path, size_t depth,
                        char *buf, size_t size) {
  size_t used = 0;
  if (size == 0)
    return;
  buf[0] = '\0';
  for (size_t i = 0; i < depth && used < size; i++) {
    const struct gcb_json_step *st = &path[i];
    int n =
        st->key != NULL
            ? snprintf(buf + used, size - used, "%s%s", i ? "." : "", st->key)
            : snprintf(buf + used, size - used, "[%zu]", st->index);
    used += n > 0 ? (size_t)n : 0;
  }
}

enum gcb_status gcb_json_located(struct gcb_err *err, const char *text,
                                 size_t len, const char *name,
                                 const struct gcb_json_step *path, size_t depth,
                                 const char *what) {
  char where[192];
  int line = 1, col = 1;
  gcb_json_path_text(path, depth, where, sizeof where);
  gcb_json_locate(text, len, path, depth, &line, &col);
  return gcb_err_set(err, GCB_EINPUT, "%s:%d:%d: %s%s%s", name, line, col,
                     where, where[0] ? ": " : "", what);
}

enum gcb_status gcb_json_no_nul(struct gcb_err *err, const char *text,
                                size_t len, const char *name) {
  const char *nul = memchr(text, '\0', len);
  if (nul == NULL)
    return GCB_OK;
  struct scan s = {(const unsigned char *)text, (const unsigned char *)nul, 1,
                   0};
  while (!at_end(&s))
    advance(&s);
  return gcb_err_set(err, GCB_EINPUT,
                     "%s:%d:%d: a NUL byte, which JSON text never holds", name,
                     s.line, s.chars + 1);
}
