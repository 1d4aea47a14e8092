/* Status list: names, messages, exit codes, and error detail handling. */
#include <criterion/criterion.h>
#include <string.h>

#include "common/status.h"

Test(status, every_status_has_name_message_and_exit_code) {
  for (int s = 0; s < GCB_STATUS_COUNT; s++) {
    cr_expect_neq(strcmp(gcb_status_name(s), "?"), 0);
    cr_expect_gt(strlen(gcb_status_message(s)), 0);
    cr_expect_geq(gcb_status_exit_code(s), 0);
  }
  cr_expect_str_eq(gcb_status_name(GCB_EUSAGE), "EUSAGE");
  cr_expect_eq(gcb_status_exit_code(GCB_EUSAGE), 2);
  cr_expect_eq(gcb_status_exit_code(GCB_EVALIDATION), 1);
  cr_expect_str_eq(gcb_status_name((enum gcb_status)999), "?");
}

Test(status, err_set_returns_code_and_formats_detail) {
  struct gcb_err err = {0};
  cr_expect_eq(gcb_err_set(&err, GCB_EIO, "cannot open %s", "x.json"), GCB_EIO);
  cr_expect_eq(err.code, GCB_EIO);
  cr_expect_str_eq(err.msg, "cannot open x.json");
  gcb_err_prefix(&err, "rank %d", 3);
  cr_expect_str_eq(err.msg, "rank 3: cannot open x.json");
  gcb_err_clear(&err);
  cr_expect_eq(err.code, GCB_OK);
  cr_expect_str_eq(err.msg, "");
}

Test(status, long_messages_are_truncated_not_overflowed) {
  struct gcb_err err = {0};
  char big[4 * GCB_ERRMSG_MAX];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  gcb_err_set(&err, GCB_EINPUT, "%s", big);
  cr_expect_eq(strlen(err.msg), GCB_ERRMSG_MAX - 1);
  gcb_err_prefix(&err, "%s", big);
  cr_expect_eq(strlen(err.msg), GCB_ERRMSG_MAX - 1);
  cr_expect_eq(gcb_err_set(NULL, GCB_EIO, "ignored"), GCB_EIO);
}
