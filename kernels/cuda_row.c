/*
 * The `cuda` row of the backend table: every callback passes through to
 * the cuda backend in the CUDA module (gcb_backend_cuda in kernels/cuda.c,
 * built into gcbench-cuda.so and opened only when this row is used;
 * common/cudamod.h). `usable` first asks the CUDA driver (libcuda, through
 * dlopen) whether it sees a device, so that `--backend auto` on a machine
 * without one loads neither the module nor the CUDA runtime; a module or
 * library that is missing makes the row unusable with that one line.
 */
#include <stdio.h>

#include "common/cudamod.h"
#include "kernels/backend.h"
#include "kernels/cuda_pure.h"

/* The module's table, or NULL with why. */
static const struct gcb_backend_ops *real(char *why, size_t why_len) {
  return gcb_cudamod_symbol("gcb_backend_cuda", sizeof(struct gcb_backend_ops),
                            why, why_len);
}

/* For the calls that only follow a successful open(): the table is there. */
static const struct gcb_backend_ops *opened(void) {
  char why[8];
  return real(why, sizeof why);
}

static bool row_usable(char *why, size_t why_len) {
  if (!gcb_cudamod_driver_devices(why, why_len))
    return false;
  const struct gcb_backend_ops *m = real(why, why_len);
  return m != NULL && m->usable(why, why_len);
}

static enum gcb_status row_open(const struct gcb_backend_args *args,
                                struct gcb_backend **out, struct gcb_err *err) {
  char why[512];
  const struct gcb_backend_ops *m = real(why, sizeof why);
  *out = NULL;
  if (m == NULL)
    return gcb_err_set(err, GCB_EUNSUPPORTED, "backend cuda: %s", why);
  return m->open(args, out, err);
}

static void row_close(struct gcb_backend *b) {
  if (b != NULL)
    opened()->close(b);
}

static enum gcb_status row_device_info(struct gcb_backend *b,
                                       struct gcb_device_info *out,
                                       struct gcb_err *err) {
  return opened()->device_info(b, out, err);
}

static void row_versions(struct gcb_backend *b, char *buf, size_t len) {
  opened()->versions(b, buf, len);
}

static enum gcb_status row_gemm(struct gcb_backend *b,
                                const struct gcb_gemm_params *p,
                                struct gcb_op *op, struct gcb_err *err) {
  return opened()->gemm(b, p, op, err);
}

static enum gcb_status row_stream(struct gcb_backend *b,
                                  const struct gcb_stream_params *p,
                                  struct gcb_op *op, struct gcb_err *err) {
  return opened()->stream(b, p, op, err);
}

static enum gcb_status row_pcie(struct gcb_backend *b,
                                const struct gcb_pcie_params *p,
                                struct gcb_op *op, struct gcb_err *err) {
  return opened()->pcie(b, p, op, err);
}

static enum gcb_status row_launch(struct gcb_backend *b,
                                  const struct gcb_launch_params *p,
                                  struct gcb_op *op, struct gcb_err *err) {
  return opened()->launch(b, p, op, err);
}

static enum gcb_status row_p2p(struct gcb_backend *b,
                               const struct gcb_p2p_params *p,
                               struct gcb_op *op, struct gcb_err *err) {
  return opened()->p2p(b, p, op, err);
}

static enum gcb_status row_gpus(struct gcb_backend *b,
                                struct gcb_gpu_ident *out, int max, int *count,
                                struct gcb_err *err) {
  return opened()->gpus(b, out, max, count, err);
}

static enum gcb_status row_p2p_export(struct gcb_backend *b, int ordinal,
                                      uint64_t bytes, uint64_t seed,
                                      struct gcb_ipc_buffer *out,
                                      struct gcb_op *holder,
                                      struct gcb_err *err) {
  return opened()->p2p_export(b, ordinal, bytes, seed, out, holder, err);
}

static enum gcb_status row_health(struct gcb_backend *b, struct gcb_health *out,
                                  int max, int *count, struct gcb_err *err) {
  return opened()->health(b, out, max, count, err);
}

static enum gcb_status row_telemetry_start(struct gcb_backend *b,
                                           struct gcb_err *err) {
  return opened()->telemetry_start(b, err);
}

static void row_telemetry_stop(struct gcb_backend *b,
                               struct gcb_telemetry *out) {
  opened()->telemetry_stop(b, out);
}

static void row_burn_read(struct gcb_backend *b, struct gcb_burn_reading *out) {
  opened()->burn_read(b, out);
}

static enum gcb_status row_fits(const struct gcb_backend *b, uint64_t bytes,
                                const char *what, struct gcb_err *err) {
  return opened()->fits(b, bytes, what, err);
}

/* Name, description and defaults are the module's (kernels/cuda.c), so
 * that listing backends loads nothing. */
const struct gcb_backend_ops gcb_backend_cuda_row = {
    .name = "cuda",
    .transport = "nccl",
    .description = GCB_CUDA_DESCRIPTION,
    .gemm_default_dim = GCB_CUDA_GEMM_DEFAULT_DIM,
    .usable = row_usable,
    .open = row_open,
    .close = row_close,
    .device_info = row_device_info,
    .versions = row_versions,
    .gemm = row_gemm,
    .stream = row_stream,
    .pcie = row_pcie,
    .launch = row_launch,
    .p2p = row_p2p,
    .gpus = row_gpus,
    .p2p_export = row_p2p_export,
    .health = row_health,
    .telemetry_start = row_telemetry_start,
    .telemetry_stop = row_telemetry_stop,
    .burn_read = row_burn_read,
    .fits = row_fits,
};
