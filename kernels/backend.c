/*
 * What every backend shares: the dtype and memory-kernel tables generated
 * from their X-macro lists, releasing a prepared operation, the registry of
 * compiled-in backends and the choice among them, and the seeded random
 * fill that gives every backend the same benchmark inputs.
 */
#include "kernels/backend.h"

#include <stdio.h>
#include <string.h>

#ifndef GCB_HAVE_CUDA
#define GCB_HAVE_CUDA 0
#endif

static const struct {
  const char *name;
  size_t bytes;
} dtype_table[] = {
#define GCB__DTYPE_ROW(id, name, bytes) [GCB_DTYPE_##id] = {name, bytes},
    GCB_DTYPE_LIST(GCB__DTYPE_ROW)
#undef GCB__DTYPE_ROW
};

static const struct gcb_memkernel_info memkernel_table[] = {
#define GCB__MK_ROW(id, name, r, w, f, formula)                                \
  [GCB_MEMKERNEL_##id] = {name, r, w, f, formula},
    GCB_MEMKERNEL_LIST(GCB__MK_ROW)
#undef GCB__MK_ROW
};

const char *gcb_dtype_name(enum gcb_dtype t) {
  return (int)t >= 0 && t < GCB_DTYPE_COUNT ? dtype_table[t].name : "?";
}

size_t gcb_dtype_bytes(enum gcb_dtype t) {
  return (int)t >= 0 && t < GCB_DTYPE_COUNT ? dtype_table[t].bytes : 0;
}

const struct gcb_memkernel_info *gcb_memkernel_info(enum gcb_memkernel k) {
  return (int)k >= 0 && k < GCB_MEMKERNEL_COUNT ? &memkernel_table[k] : NULL;
}

void gcb_op_release(struct gcb_op *op) {
  if (op == NULL)
    return;
  if (op->release != NULL)
    op->release(op->state);
  *op = (struct gcb_op){0};
}

/* ---- registry ------------------------------------------------------------ */

#if GCB_HAVE_CUDA
/* The cuda row resolves through the CUDA module (cuda_row.c). */
extern const struct gcb_backend_ops gcb_backend_cuda_row;
#endif
extern const struct gcb_backend_ops gcb_backend_host;
extern const struct gcb_backend_ops gcb_backend_null;

/* In order of preference for "auto". */
const struct gcb_backend_ops *const gcb_backends[] = {
#if GCB_HAVE_CUDA
    &gcb_backend_cuda_row,
#endif
    &gcb_backend_null, /* hidden: by name only, never "auto" */
    &gcb_backend_host, /* last: what "auto" falls back to */
    NULL,
};

/* A backend the build left out, so that "auto" and a request by name say
 * why a GPU machine runs on the host backend rather than "unknown". */
#if GCB_HAVE_CUDA
static const char unbuilt[] = "";
#else
static const char unbuilt[] = "cuda";
#endif
#define UNBUILT_WHY "not built, no CUDA toolkit at build time"

const struct gcb_backend_ops *gcb_backend_find(const char *name) {
  if (name == NULL)
    return NULL;
  for (size_t i = 0; gcb_backends[i] != NULL; i++)
    if (strcmp(gcb_backends[i]->name, name) == 0)
      return gcb_backends[i];
  return NULL;
}

/* Appends text, after sep unless buf is empty, truncating at len. */
static void append(char *buf, size_t len, const char *sep, const char *text) {
  size_t used = strlen(buf);
  if (used + 1 >= len)
    return;
  snprintf(buf + used, len - used, "%s%s", used > 0 ? sep : "", text);
}

/* "how: name (reason)", for the live output and the results document. */
static void set_why(char *why, size_t why_len, const char *how,
                    const char *name, const char *reason) {
  if (why != NULL && why_len > 0)
    snprintf(why, why_len, "%s (%s; %s)", name, how, reason);
}

/* "auto": the first usable backend; the reasons of the skipped ones
 * explain the choice, or the chosen one's own reason if none was skipped. */
static enum gcb_status select_auto(const struct gcb_backend_ops **out,
                                   char *why, size_t why_len,
                                   struct gcb_err *err) {
  char skipped[256] = "";
  if (unbuilt[0] != '\0')
    snprintf(skipped, sizeof skipped, "%s: %s", unbuilt, UNBUILT_WHY);
  for (size_t i = 0; gcb_backends[i] != NULL; i++) {
    const struct gcb_backend_ops *b = gcb_backends[i];
    char reason[160] = "";
    char line[200];
    if (b->hidden)
      continue;
    if (b->usable(reason, sizeof reason)) {
      *out = b;
      set_why(why, why_len, "auto", b->name,
              skipped[0] != '\0' ? skipped : reason);
      return GCB_OK;
    }
    snprintf(line, sizeof line, "%s: %s", b->name, reason);
    append(skipped, sizeof skipped, "; ", line);
  }
  return gcb_err_set(err, GCB_EUNSUPPORTED, "no usable backend (%s)", skipped);
}

static enum gcb_status unknown_backend(const char *name, struct gcb_err *err) {
  char names[128] = "";
  for (size_t i = 0; gcb_backends[i] != NULL; i++)
    if (!gcb_backends[i]->hidden)
      append(names, sizeof names, ", ", gcb_backends[i]->name);
  if (unbuilt[0] != '\0' && strcmp(name, unbuilt) == 0)
    return gcb_err_set(err, GCB_EUSAGE, "backend '%s' is %s (available: %s)",
                       name, UNBUILT_WHY, names);
  return gcb_err_set(err, GCB_EUSAGE, "unknown backend '%s' (available: %s)",
                     name, names);
}

enum gcb_status gcb_backend_select(const char *name,
                                   const struct gcb_backend_ops **out,
                                   char *why, size_t why_len,
                                   struct gcb_err *err) {
  *out = NULL;
  if (name == NULL || strcmp(name, "auto") == 0)
    return select_auto(out, why, why_len, err);
  const struct gcb_backend_ops *b = gcb_backend_find(name);
  if (b == NULL)
    return unknown_backend(name, err);
  char reason[160] = "";
  if (!b->usable(reason, sizeof reason))
    return gcb_err_set(err, GCB_EUNSUPPORTED,
                       "backend '%s' cannot run here: %s", b->name, reason);
  *out = b;
  set_why(why, why_len, "requested", b->name, reason);
  return GCB_OK;
}

/* ---- random inputs ------------------------------------------------------- */

/* splitmix64 (Steele, Lea, Flood 2014): tiny, seedable with any value,
 * and good enough to keep BLAS and memory kernels off special data. */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* 2u - 1 with u on a 2^-53 grid is exact, so the range is exactly [-1, 1);
 * zero becomes the smallest grid step so no entry is exactly 0. */
void gcb_fill_random(double *x, size_t n, uint64_t seed) {
  uint64_t state = seed;
  for (size_t i = 0; i < n; i++) {
    double u = (double)(splitmix64(&state) >> 11) * 0x1.0p-53;
    double v = 2.0 * u - 1.0;
    x[i] = v != 0.0 ? v : 0x1.0p-53;
  }
}

/* Same on a 2^-24 grid, drawn in float so that no value rounds up to 1. */
void gcb_fill_random_f32(float *x, size_t n, uint64_t seed) {
  uint64_t state = seed;
  for (size_t i = 0; i < n; i++) {
    float u = (float)(splitmix64(&state) >> 40) * 0x1.0p-24f;
    float v = 2.0f * u - 1.0f;
    x[i] = v != 0.0f ? v : 0x1.0p-24f;
  }
}
