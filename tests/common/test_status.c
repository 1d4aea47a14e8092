/* Status list: names, messages, exit codes, and error detail handling. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
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

/* What an error message shows of the text it was given: one line of valid
 * UTF-8 (common/status.c), whatever a file name or a token holds. */
static const struct {
  const char *text, *shown;
} shown_texts[] = {
    {"a\nb\r", "a\\x0ab\\x0d"},
    {"\033[2J\t", "\\x1b[2J\\x09"},
    {"del\x7f", "del\\x7f"},
    {"c1 \xc2\x9b", "c1 \\xc2\\x9b"},
    {"bad \xff, overlong \xc0\xaf, cut \xe2\x82",
     "bad \\xff, overlong \\xc0\\xaf, cut \\xe2\\x82"},
    {"µs ≥ 5 €, \\x41", "µs ≥ 5 €, \\x41"},
};

Test(status, messages_are_one_line_of_utf8_whatever_the_input) {
  struct gcb_err err = {0};
  for (size_t i = 0; i < sizeof shown_texts / sizeof *shown_texts; i++) {
    cr_expect_eq(
        gcb_err_set(&err, GCB_EINPUT, "x.json: '%s'", shown_texts[i].text),
        GCB_EINPUT);
    char want[256];
    snprintf(want, sizeof want, "x.json: '%s'", shown_texts[i].shown);
    cr_expect_str_eq(err.msg, want, "case %zu", i);
  }
  /* The prefix is shown too; err->msg may be an argument. */
  gcb_err_set(&err, GCB_EINPUT, "b\nc");
  gcb_err_prefix(&err, "a\n");
  cr_expect_str_eq(err.msg, "a\\x0a: b\\x0ac");
  gcb_err_set(&err, GCB_EIO, "%s; %s", err.msg, "d\n");
  cr_expect_str_eq(err.msg, "a\\x0a: b\\x0ac; d\\x0a");
  /* Cut to fit at a whole character, never inside one or an escape. */
  char big[3 * GCB_ERRMSG_MAX + 1] = "";
  for (size_t i = 0; i < GCB_ERRMSG_MAX; i++)
    strcat(big, i % 2 ? "\xe2\x82\xac" : "\n");
  gcb_err_set(&err, GCB_EINPUT, "%s", big);
  size_t len = strlen(err.msg);
  cr_expect(len < GCB_ERRMSG_MAX && len > GCB_ERRMSG_MAX - 8, "%zu", len);
  cr_expect((len - 4) % 7 == 0 || len % 7 == 0, "cut inside: %zu", len);
  char *copy = gcb_utf8_copy(err.msg);
  cr_expect_str_eq(copy, err.msg, "not valid UTF-8");
  free(copy);
  /* JSON text: each bad byte becomes U+FFFD. */
  copy = gcb_utf8_copy("x\xffy\xc0\xafz\xe2\x82");
  cr_expect_str_eq(copy, "x\xef\xbf\xbdy\xef\xbf\xbd\xef\xbf\xbdz\xef\xbf\xbd"
                         "\xef\xbf\xbd");
  free(copy);
}
