/*
 * Status names, messages and exit codes, generated from GCB_STATUS_LIST;
 * the error detail, kept one line of valid UTF-8 whatever the input put
 * in it; and the UTF-8 check that user text (file names, arguments) goes
 * through before it enters a message or a JSON document.
 */
#include "common/status.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  const char *message;
  int exit_code;
} status_table[] = {
#define GCB__STATUS_ROW(name, msg, exit) {#name, msg, exit},
    GCB_STATUS_LIST(GCB__STATUS_ROW)
#undef GCB__STATUS_ROW
};

static int status_known(enum gcb_status s) {
  return (int)s >= 0 && s < GCB_STATUS_COUNT;
}

const char *gcb_status_name(enum gcb_status s) {
  return status_known(s) ? status_table[s].name : "?";
}

const char *gcb_status_message(enum gcb_status s) {
  return status_known(s) ? status_table[s].message : "unknown status";
}

int gcb_status_exit_code(enum gcb_status s) {
  return status_known(s) ? status_table[s].exit_code : 3;
}

/* ---- user text ----------------------------------------------------------- */

size_t gcb_utf8_length(const char *text) {
  /* Lead byte range, length and the range of the second byte; the rest
   * are plain continuation bytes. As jansson: no overlong forms, no
   * surrogates, nothing past U+10FFFF. */
  static const struct {
    unsigned char lead_min, lead_max, len, next_min, next_max;
  } forms[] = {
      {0xC2, 0xDF, 2, 0x80, 0xBF}, {0xE0, 0xE0, 3, 0xA0, 0xBF},
      {0xE1, 0xEC, 3, 0x80, 0xBF}, {0xED, 0xED, 3, 0x80, 0x9F},
      {0xEE, 0xEF, 3, 0x80, 0xBF}, {0xF0, 0xF0, 4, 0x90, 0xBF},
      {0xF1, 0xF3, 4, 0x80, 0xBF}, {0xF4, 0xF4, 4, 0x80, 0x8F},
  };
  const unsigned char *p = (const unsigned char *)text;
  if (p[0] < 0x80)
    return 1;
  for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
    if (p[0] < forms[f].lead_min || p[0] > forms[f].lead_max)
      continue;
    if (p[1] < forms[f].next_min || p[1] > forms[f].next_max)
      return 0; /* a NUL stops here, before the bytes after it */
    for (size_t i = 2; i < forms[f].len; i++)
      if ((p[i] & 0xC0) != 0x80)
        return 0;
    return forms[f].len;
  }
  return 0;
}

char *gcb_utf8_copy(const char *text) {
  char *out = malloc(3 * strlen(text) + 1);
  if (out == NULL)
    return NULL;
  size_t n = 0;
  for (const char *p = text; *p;) {
    size_t k = gcb_utf8_length(p);
    if (k == 0) {
      memcpy(out + n, "\xEF\xBF\xBD", 3); /* U+FFFD for the byte */
      n += 3;
      p++;
    } else {
      memcpy(out + n, p, k);
      n += k;
      p += k;
    }
  }
  out[n] = '\0';
  return out;
}

/* Whether the character of k bytes at p is a control character: C0, DEL,
 * or C1 (U+0080..U+009F, which some terminals obey as escapes). */
static bool is_control(const unsigned char *p, size_t k) {
  return (k == 1 && (p[0] < 0x20 || p[0] == 0x7f)) ||
         (k == 2 && p[0] == 0xC2 && p[1] < 0xA0);
}

void gcb_text_shown(char *out, size_t len, const char *text) {
  size_t n = 0;
  if (len == 0)
    return;
  for (const unsigned char *p = (const unsigned char *)text; *p;) {
    size_t k = gcb_utf8_length((const char *)p);
    bool escape = k == 0 || is_control(p, k);
    k = k ? k : 1; /* a bad byte is escaped alone */
    if (n + (escape ? 4 * k : k) >= len)
      break;
    for (size_t i = 0; escape && i < k; i++)
      n += (size_t)snprintf(out + n, len - n, "\\x%02x", p[i]);
    if (!escape) {
      memcpy(out + n, p, k);
      n += k;
    }
    p += k;
  }
  out[n] = '\0';
}

/* ---- error detail -------------------------------------------------------- */

enum gcb_status gcb_err_set(struct gcb_err *err, enum gcb_status code,
                            const char *fmt, ...) {
  if (err == NULL)
    return code;
  /* Formatted apart first: an argument may be err->msg itself. */
  char text[GCB_ERRMSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  err->code = code;
  gcb_text_shown(err->msg, sizeof err->msg, text);
  return code;
}

void gcb_err_prefix(struct gcb_err *err, const char *fmt, ...) {
  if (err == NULL)
    return;
  char prefix[GCB_ERRMSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  /* Room for both halves; gcb_text_shown() cuts the result to size.
   * The old message is shown already, and showing is idempotent. */
  char joined[2 * GCB_ERRMSG_MAX + 2];
  snprintf(joined, sizeof joined, "%s: %s", prefix, err->msg);
  gcb_text_shown(err->msg, sizeof err->msg, joined);
}

void gcb_err_clear(struct gcb_err *err) {
  if (err == NULL)
    return;
  err->code = GCB_OK;
  err->msg[0] = '\0';
}

int gcb_exit_after_stdout(int code, int rank) {
  if (code != 0 && code != 1)
    return code; /* bad usage or an error: said already, in one line */
  int e = fflush(stdout) != 0 ? errno : 0;
  if (e == 0 && !ferror(stdout))
    return code;
  if (rank == 0)
    fprintf(stderr, "gcbench: error: standard output: write failed (%s)\n",
            e != 0 ? strerror(e) : "an earlier write failed");
  return 3;
}
