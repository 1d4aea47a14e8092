/*
 * The `nccl` row of the transport table: every callback passes through to
 * the nccl transport in the CUDA module (gcb_coll_nccl in nccl.c, built
 * into gcbench-cuda.so and opened only when this row is used;
 * common/cudamod.h). A module or library that is missing makes the row
 * unusable with that one line. The calls on the timed path (start, wait,
 * test) cost one more indirect call each.
 */
#include <stdio.h>

#include "collectives/comm.h"
#include "common/cudamod.h"

/* The module's table, or NULL with why. */
static const struct gcb_coll_ops *real(char *why, size_t why_len) {
  return gcb_cudamod_symbol("gcb_coll_nccl", sizeof(struct gcb_coll_ops), why,
                            why_len);
}

/* For the calls that only follow a successful open(): the table is there. */
static const struct gcb_coll_ops *opened(void) {
  char why[8];
  return real(why, sizeof why);
}

/* The driver first: no device, no module loaded. */
static bool row_usable(char *why, size_t why_len) {
  if (!gcb_cudamod_driver_devices(why, why_len))
    return false;
  const struct gcb_coll_ops *m = real(why, why_len);
  return m != NULL && m->usable(why, why_len);
}

static enum gcb_status row_open(const struct gcb_coll_env *env,
                                struct gcb_comm **out, struct gcb_err *err) {
  char why[512];
  const struct gcb_coll_ops *m = real(why, sizeof why);
  *out = NULL;
  if (m == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "transport nccl: %s", why);
  return m->open(env, out, err);
}

static void row_close(struct gcb_comm *c) {
  if (c != NULL)
    opened()->close(c);
}

static bool row_supports(const struct gcb_comm *c,
                         const struct gcb_coll_desc *d, enum gcb_coll_dtype t,
                         enum gcb_coll_redop op, char *why, size_t why_len) {
  return opened()->supports(c, d, t, op, why, why_len);
}

static bool row_inplace(const struct gcb_comm *c, const struct gcb_coll_desc *d,
                        struct gcb_coll_counts *counts, char *why,
                        size_t why_len) {
  return opened()->inplace(c, d, counts, why, why_len);
}

static enum gcb_status row_alloc(struct gcb_comm *c, size_t bytes, void **buf,
                                 struct gcb_err *err) {
  return opened()->alloc(c, bytes, buf, err);
}

static void row_free(struct gcb_comm *c, void *buf) {
  opened()->free(c, buf);
}

static enum gcb_status row_upload(struct gcb_comm *c, void *dst,
                                  const void *src, size_t bytes,
                                  struct gcb_err *err) {
  return opened()->upload(c, dst, src, bytes, err);
}

static enum gcb_status row_download(struct gcb_comm *c, void *dst,
                                    const void *src, size_t bytes,
                                    struct gcb_err *err) {
  return opened()->download(c, dst, src, bytes, err);
}

static enum gcb_status row_start(struct gcb_comm *c,
                                 const struct gcb_coll_call *call,
                                 struct gcb_err *err) {
  return opened()->start(c, call, err);
}

static enum gcb_status row_wait(struct gcb_comm *c, struct gcb_err *err) {
  return opened()->wait(c, err);
}

static enum gcb_status row_istart(struct gcb_comm *c,
                                  const struct gcb_coll_call *call,
                                  struct gcb_err *err) {
  return opened()->istart(c, call, err);
}

static enum gcb_status row_test(struct gcb_comm *c, bool *done,
                                struct gcb_err *err) {
  return opened()->test(c, done, err);
}

static enum gcb_status row_group_begin(struct gcb_comm *c,
                                       struct gcb_err *err) {
  return opened()->group_begin(c, err);
}

static enum gcb_status row_group_end(struct gcb_comm *c, struct gcb_err *err) {
  return opened()->group_end(c, err);
}

static enum gcb_status row_exchange(struct gcb_comm *c,
                                    const struct gcb_coll_xfer *x,
                                    struct gcb_err *err) {
  return opened()->exchange(c, x, err);
}

/* The codes nccl-tests' first line prints; 0 and 0 when the module
 * cannot be loaded. */
static void row_version_codes(int *headers, int *library) {
  char why[8];
  const struct gcb_coll_ops *m = real(why, sizeof why);
  *headers = *library = 0;
  if (m != NULL && m->version_codes != NULL)
    m->version_codes(headers, library);
}

/* The version is asked of the library, which needs the module; "" when
 * it cannot be loaded (the results header then names no NCCL). */
static void row_version(char *buf, size_t len) {
  char why[8];
  const struct gcb_coll_ops *m = real(why, sizeof why);
  if (m != NULL)
    m->version(buf, len);
  else if (len > 0)
    buf[0] = '\0';
}

const struct gcb_coll_ops gcb_coll_nccl_row = {
    .name = "nccl",
    .description = GCB_COLL_NCCL_DESCRIPTION,
    .device_memory = true,
    .usable = row_usable,
    .open = row_open,
    .close = row_close,
    .supports = row_supports,
    .inplace = row_inplace,
    .alloc = row_alloc,
    .free = row_free,
    .upload = row_upload,
    .download = row_download,
    .start = row_start,
    .wait = row_wait,
    .group_begin = row_group_begin,
    .group_end = row_group_end,
    .istart = row_istart,
    .test = row_test,
    .exchange = row_exchange,
    .version = row_version,
    .version_codes = row_version_codes,
};
