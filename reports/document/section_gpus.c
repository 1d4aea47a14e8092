/*
 * GPU health in the results document (nodes[].gpus, docs/results-schema.md)
 * with its schema rows: every node's GPUs as its first rank sees them
 * (name, UUID, bus id, compute capability, clocks, PCIe link, NVLinks, ECC,
 * temperature, power, throttle reasons, versions). Values the backend could
 * not read are null, never guessed.
 */
#include "reports/document/results_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/telemetry.h"
#include "reports/document/model.h"

/* ---- schema rows -------------------------------------------------------- */

/* A GPU is known by its ordinal and bus id (how the analysis joins it to
 * ranks and the topology); every other member is typed where present,
 * since readers take a missing one as not reported. */

/* The readings NVML may not give, in document order, each of a kind: its
 * schema node is gcb__n_KIND_null and its writer KIND_or_null, null when
 * unknown; KEPT where the typed model keeps it, under its own name
 * (struct gcb_model_health). The throttle state, an object, stands between
 * the readings and the versions. */
#define GPU_READINGS(X)                                                        \
  X(str, uuid, NOT_KEPT)                                                       \
  X(int, sm_clock_mhz, KEPT)                                                   \
  X(int, sm_clock_max_mhz, KEPT)                                               \
  X(int, mem_clock_mhz, NOT_KEPT)                                              \
  X(int, mem_clock_max_mhz, NOT_KEPT)                                          \
  X(int, pcie_gen, KEPT)                                                       \
  X(int, pcie_gen_max, KEPT)                                                   \
  X(int, pcie_width, KEPT)                                                     \
  X(int, pcie_width_max, KEPT)                                                 \
  X(int, nvlinks, NOT_KEPT)                                                    \
  X(int, nvlinks_active, NOT_KEPT)                                             \
  X(bool, ecc_enabled, NOT_KEPT)                                               \
  X(int, ecc_corrected, NOT_KEPT)                                              \
  X(int, ecc_uncorrected, KEPT)                                                \
  X(int, temp_c, KEPT)                                                         \
  X(num, power_w, KEPT)                                                        \
  X(num, power_limit_w, KEPT)
#define GPU_VERSIONS(X)                                                        \
  X(str, driver, NOT_KEPT)                                                     \
  X(str, cuda_driver, NOT_KEPT)                                                \
  X(str, cuda_runtime, NOT_KEPT)                                               \
  X(str, nccl, NOT_KEPT)

#define KEPT(name) IN(health, name)
#define NOT_KEPT(name)

static const struct gcb__field throttle_fields[] = {
    REQ("mask", &gcb__n_int),
    OPT("reasons", &gcb__n_str, IN(health, throttle_reasons)),
    OPT("slowed", &gcb__n_bool, IN(health, throttle_slowed)),
    {0},
};

#define SCHEMA_ROW(kind, name, kept)                                           \
  OPT(#name, &gcb__n_##kind##_null, kept(name)),
static const struct gcb__field gpu_fields[] = {
    REQ("ordinal", &gcb__n_int, IN(health, ordinal)),
    OPT("name", &gcb__n_str, IN(health, name)),
    REQ("bus_id", &gcb__n_str, IN(health, bus_id)),
    OPT("compute_capability", &gcb__n_str),
    OPT("sm_count", &gcb__n_int),
    OPT("memory_bytes", &gcb__n_int),
    OPT("l2_bytes", &gcb__n_int_null),
    OPT("nvml", &gcb__n_bool, IN(health, nvml)),
    OPT("nvml_why", &gcb__n_str_null),
    GPU_READINGS(SCHEMA_ROW) /* uuid .. power_limit_w */
    OPT("throttle", NODE(.types = T_OBJ | T_NULL, .fields = throttle_fields)),
    GPU_VERSIONS(SCHEMA_ROW) /* driver .. nccl */
    {0},
};
#undef SCHEMA_ROW
const struct gcb__node gcb__n_gpus = {.types = T_ARR, .items = OBJ(gpu_fields)};

/* ---- writer ------------------------------------------------------------- */

static json_t *str_or_null(const char *s) {
  return gcb__str_or_null(s);
}

static json_t *int_or_null(long long v) {
  return gcb__int_or_null(v);
}

static json_t *bool_or_null(int v) {
  return v >= 0 ? json_boolean(v) : json_null();
}

static json_t *num_or_null(double v) {
  return isfinite(v) && v >= 0 ? json_real(v) : json_null();
}

static json_t *throttle_json(const struct gcb_health *h) {
  if (!h->throttle_known)
    return json_null();
  char text[256];
  gcb_throttle_reasons_format(h->throttle_reasons, text, sizeof text);
  return json_pack("{s:I, s:s, s:b}", "mask", (json_int_t)h->throttle_reasons,
                   "reasons", text, "slowed",
                   (h->throttle_reasons & GCB_THROTTLE_BAD_MASK) != 0);
}

static json_t *gpu_json(const struct gcb_health *h) {
  char cc[16];
  snprintf(cc, sizeof cc, "%d.%d", h->cc_major, h->cc_minor);
  json_t *o = json_pack(
      "{s:i, s:s, s:s, s:s, s:i, s:I, s:o, s:b, s:o}", "ordinal", h->ordinal,
      "name", h->name, "bus_id", h->bus_id, "compute_capability", cc,
      "sm_count", h->sm_count, "memory_bytes", (json_int_t)h->memory_bytes,
      "l2_bytes", gcb__int_or_null(h->l2_bytes), "nvml", h->nvml, "nvml_why",
      gcb__str_or_null(h->nvml_why));
#define WRITE(kind, name, kept)                                                \
  o = gcb__json_set(o, #name, kind##_or_null(h->name));
  GPU_READINGS(WRITE)
  o = gcb__json_set(o, "throttle", throttle_json(h));
  GPU_VERSIONS(WRITE)
#undef WRITE
  return o;
}

json_t *gcb_results_gpus_json(const struct gcb_health *gpus, int n) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++)
    a = gcb__json_push(a, gpu_json(&gpus[i]));
  return a;
}
