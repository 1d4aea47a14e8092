/* gcb_file_read: what is read whole, what is refused before a byte is read. */
#define _GNU_SOURCE /* SEEK_HOLE */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"

Test(file, a_regular_file_is_read_whole_and_terminated) {
  char path[] = "/tmp/gcb-file-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  cr_assert_eq(write(fd, "abc\0def", 7), 7);
  close(fd);
  char *text = NULL;
  size_t len = 0;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_file_read(path, 1 << 20, &text, &len, &err), GCB_OK, "%s",
               err.msg);
  cr_expect_eq(len, 7);
  cr_expect_eq(memcmp(text, "abc\0def", 8), 0);
  free(text);
  /* The limit is the size: 7 bytes with a limit of 6 are refused. */
  cr_expect_eq(gcb_file_read(path, 6, &text, &len, &err), GCB_EINPUT);
  cr_expect_null(text);
  cr_expect(strstr(err.msg, "too large (7 bytes") != NULL, "%s", err.msg);
  unlink(path);
}

Test(file, devices_and_directories_are_refused_before_reading) {
  static const struct {
    const char *path, *says;
  } refused[] = {
      {"/dev/zero", "/dev/zero: is a character device, not a file"},
      {"/dev/null", "/dev/null: is a character device, not a file"},
      {"/tmp", "/tmp: is a directory, not a file"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    char *text = NULL;
    size_t len = 1;
    struct gcb_err err = {0};
    cr_expect_eq(gcb_file_read(refused[i].path, 1 << 20, &text, &len, &err),
                 GCB_EINPUT, "%s", refused[i].path);
    cr_expect_str_eq(err.msg, refused[i].says);
    cr_expect_null(text);
    cr_expect_eq(len, 0);
  }
}

Test(file, a_missing_file_names_the_path_and_the_reason) {
  char *text = NULL;
  size_t len = 0;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_file_read("/nonexistent/x.json", 1 << 20, &text, &len, &err),
               GCB_EINPUT);
  cr_expect_str_eq(
      err.msg, "/nonexistent/x.json: cannot open (No such file or directory)");
}

/* A writer that opens the pipe and says nothing: given up after the wait,
 * not waited on for ever; one that has spoken and closed is read whole. */
Test(file, a_silent_pipe_is_given_up_after_the_wait) {
  int fds[2];
  cr_assert_eq(pipe(fds), 0);
  char path[32];
  snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
  char *text = NULL;
  size_t len = 0;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_file_read_wait(path, 1 << 20, 200, &text, &len, &err),
               GCB_EINPUT);
  cr_expect_null(text);
  cr_expect(strstr(err.msg, "nothing to read for 1 s") != NULL, "%s", err.msg);
  cr_assert_eq(write(fds[1], "abc", 3), 3);
  close(fds[1]);
  cr_expect_eq(gcb_file_read_wait(path, 1 << 20, 200, &text, &len, &err),
               GCB_OK, "%s", err.msg);
  cr_expect_eq(len, 3);
  cr_expect_str_eq(text, "abc");
  free(text);
  close(fds[0]);
}

/* An input that cannot be read is bad input (exit 2), not an I/O error
 * (exit 3): /proc/self/mem is a regular file of size 0 whose first read
 * fails (EIO). */
Test(file, a_file_that_cannot_be_read_is_bad_input) {
  char *text = NULL;
  size_t len = 0;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_file_read("/proc/self/mem", 1 << 20, &text, &len, &err),
               GCB_EINPUT, "%s", err.msg);
  cr_expect(strstr(err.msg, "/proc/self/mem: cannot read (") == err.msg, "%s",
            err.msg);
  cr_expect_null(text);
}

/* A sparse file past GCB_FILE_MAX_BYTES (only a results document is read
 * past it, up to 2 GiB, and none has holes) is refused before a byte is
 * read: a 2 GiB one was read whole (10 s, 2 GB) before its shape refused
 * it. A small sparse file (a log truncated under its writer) is read. */
Test(file, a_sparse_file_past_the_default_limit_is_refused_before_reading) {
  char path[] = "/tmp/gcb-file-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  cr_assert_eq(ftruncate(fd, (off_t)2 << 30), 0);
  off_t hole = lseek(fd, 0, SEEK_HOLE);
  close(fd);
  if (hole != 0) {
    unlink(path);
    cr_skip_test("%s: the filesystem does not report holes", path);
  }
  char *text = NULL;
  size_t len = 0;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_file_read(path, (size_t)2 << 30, &text, &len, &err),
               GCB_EINPUT);
  cr_expect_null(text);
  cr_expect(strstr(err.msg, "a sparse file of 2147483648 bytes (a hole at "
                            "byte 0 reads as NUL bytes)") != NULL,
            "%s", err.msg);
  /* 1 MiB of hole, then text: read whole */
  fd = open(path, O_WRONLY | O_TRUNC);
  cr_assert_geq(fd, 0);
  cr_assert_eq(pwrite(fd, "log\n", 4, 1 << 20), 4);
  close(fd);
  cr_expect_eq(gcb_file_read(path, (size_t)2 << 30, &text, &len, &err), GCB_OK,
               "%s", err.msg);
  cr_expect_eq(len, (1u << 20) + 4);
  free(text);
  unlink(path);
}

/* A regular file of 64 MiB or more is read in two halves side by side
 * (file.c's read_halves): every byte lands where it was in the file. The
 * bytes, never 0, follow no period, so a half read to the wrong place or
 * a byte left unread at the seam shows. */
Test(file, a_large_file_read_in_two_halves_is_whole_and_in_order) {
  const size_t size = ((size_t)64 << 20) + 4 * 1001 + 3;
  char path[] = "/tmp/gcb-file-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  unsigned char *want = malloc(size);
  cr_assert_not_null(want);
  for (size_t i = 0; i < size; i++)
    want[i] = (unsigned char)(1 + ((i * 2654435761u) >> 13) % 255);
  cr_assert_eq(write(fd, want, size), (ssize_t)size);
  close(fd);
  char *text = NULL;
  size_t len = 0;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_file_read_wait(path, (size_t)1 << 30, 0, &text, &len, &err),
               GCB_OK, "%s", err.msg);
  cr_expect_eq(len, size);
  cr_expect_eq(memcmp(text, want, size), 0, "the bytes as written");
  cr_expect_eq(text[size], '\0');
  free(text);
  free(want);
  unlink(path);
}
