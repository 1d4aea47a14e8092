/*
 * The null backend (fio's null engine): opens, describes itself and has no
 * operations, so that every benchmark that needs one skips its cases with
 * "not supported" and the harness, the sinks and the watchdog can be
 * driven with nothing measured but the harness itself (the null
 * benchmark). Never picked by "auto"; hidden from `list`; asked for by
 * name (--backend null).
 */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/backend.h"

struct gcb_backend {
  int threads;
};

static bool null_usable(char *why, size_t why_len) {
  snprintf(why, why_len, "does nothing; runs anywhere");
  return true;
}

static enum gcb_status null_open(const struct gcb_backend_args *args,
                                 struct gcb_backend **out,
                                 struct gcb_err *err) {
  *out = calloc(1, sizeof **out);
  if (*out == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "null backend: out of memory");
  (*out)->threads = args->cpu_threads > 0 ? args->cpu_threads : 1;
  return GCB_OK;
}

static void null_close(struct gcb_backend *b) {
  free(b);
}

static enum gcb_status null_device_info(struct gcb_backend *b,
                                        struct gcb_device_info *out,
                                        struct gcb_err *err) {
  (void)err;
  *out = (struct gcb_device_info){.index = -1, .threads = b->threads};
  snprintf(out->name, sizeof out->name, "null device");
  return GCB_OK;
}

static void null_versions(struct gcb_backend *b, char *buf, size_t len) {
  (void)b;
  snprintf(buf, len, "null 1");
}

const struct gcb_backend_ops gcb_backend_null = {
    .name = "null",
    .transport = "mpi",
    .description = "does nothing (tests the harness; asked for by name only)",
    .gemm_default_dim = 1,
    .hidden = true,
    .usable = null_usable,
    .open = null_open,
    .close = null_close,
    .device_info = null_device_info,
    .versions = null_versions,
};
