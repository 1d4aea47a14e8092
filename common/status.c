/* Status names, messages and exit codes, generated from GCB_STATUS_LIST. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
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

enum gcb_status gcb_err_set(struct gcb_err *err, enum gcb_status code,
                            const char *fmt, ...) {
  if (err == NULL)
    return code;
  err->code = code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
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
  /* Room for both halves; the result is truncated to the message size. */
  char joined[2 * GCB_ERRMSG_MAX + 2];
  snprintf(joined, sizeof joined, "%s: %s", prefix, err->msg);
  size_t n = strlen(joined);
  if (n >= sizeof err->msg)
    n = sizeof err->msg - 1;
  memcpy(err->msg, joined, n);
  err->msg[n] = '\0';
}

void gcb_err_clear(struct gcb_err *err) {
  if (err == NULL)
    return;
  err->code = GCB_OK;
  err->msg[0] = '\0';
}
