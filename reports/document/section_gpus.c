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

/* ---- schema rows -------------------------------------------------------- */

/* A GPU is known by its ordinal and bus id (how the analysis joins it to
 * ranks and the topology); every other member is typed where present,
 * since readers take a missing one as not reported. */

static const struct gcb__field throttle_fields[] = {
    REQ("mask", &gcb__n_int),
    OPT("reasons", &gcb__n_str),
    OPT("slowed", &gcb__n_bool),
    {0},
};

static const struct gcb__field gpu_fields[] = {
    REQ("ordinal", &gcb__n_int),
    OPT("name", &gcb__n_str),
    REQ("bus_id", &gcb__n_str),
    OPT("compute_capability", &gcb__n_str),
    OPT("sm_count", &gcb__n_int),
    OPT("memory_bytes", &gcb__n_int),
    OPT("l2_bytes", &gcb__n_int_null),
    OPT("nvml", &gcb__n_bool),
    OPT("nvml_why", &gcb__n_str_null),
    OPT("uuid", &gcb__n_str_null),
    OPT("sm_clock_mhz", &gcb__n_int_null),
    OPT("sm_clock_max_mhz", &gcb__n_int_null),
    OPT("mem_clock_mhz", &gcb__n_int_null),
    OPT("mem_clock_max_mhz", &gcb__n_int_null),
    OPT("pcie_gen", &gcb__n_int_null),
    OPT("pcie_gen_max", &gcb__n_int_null),
    OPT("pcie_width", &gcb__n_int_null),
    OPT("pcie_width_max", &gcb__n_int_null),
    OPT("nvlinks", &gcb__n_int_null),
    OPT("nvlinks_active", &gcb__n_int_null),
    OPT("ecc_enabled", NODE(.types = T_BOOL | T_NULL)),
    OPT("ecc_corrected", &gcb__n_int_null),
    OPT("ecc_uncorrected", &gcb__n_int_null),
    OPT("temp_c", &gcb__n_int_null),
    OPT("power_w", &gcb__n_num_null),
    OPT("power_limit_w", &gcb__n_num_null),
    OPT("throttle", NODE(.types = T_OBJ | T_NULL, .fields = throttle_fields)),
    OPT("driver", &gcb__n_str_null),
    OPT("cuda_driver", &gcb__n_str_null),
    OPT("cuda_runtime", &gcb__n_str_null),
    OPT("nccl", &gcb__n_str_null),
    {0},
};
const struct gcb__node gcb__n_gpus = {.types = T_ARR, .items = OBJ(gpu_fields)};

/* ---- writer ------------------------------------------------------------- */

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
  struct {
    const char *key;
    json_t *value;
  } rest[] = {
      {"uuid", gcb__str_or_null(h->uuid)},
      {"sm_clock_mhz", gcb__int_or_null(h->sm_clock_mhz)},
      {"sm_clock_max_mhz", gcb__int_or_null(h->sm_clock_max_mhz)},
      {"mem_clock_mhz", gcb__int_or_null(h->mem_clock_mhz)},
      {"mem_clock_max_mhz", gcb__int_or_null(h->mem_clock_max_mhz)},
      {"pcie_gen", gcb__int_or_null(h->pcie_gen)},
      {"pcie_gen_max", gcb__int_or_null(h->pcie_gen_max)},
      {"pcie_width", gcb__int_or_null(h->pcie_width)},
      {"pcie_width_max", gcb__int_or_null(h->pcie_width_max)},
      {"nvlinks", gcb__int_or_null(h->nvlinks)},
      {"nvlinks_active", gcb__int_or_null(h->nvlinks_active)},
      {"ecc_enabled",
       h->ecc_enabled >= 0 ? json_boolean(h->ecc_enabled) : json_null()},
      {"ecc_corrected", gcb__int_or_null(h->ecc_corrected)},
      {"ecc_uncorrected", gcb__int_or_null(h->ecc_uncorrected)},
      {"temp_c", gcb__int_or_null(h->temp_c)},
      {"power_w", num_or_null(h->power_w)},
      {"power_limit_w", num_or_null(h->power_limit_w)},
      {"throttle", throttle_json(h)},
      {"driver", gcb__str_or_null(h->driver)},
      {"cuda_driver", gcb__str_or_null(h->cuda_driver)},
      {"cuda_runtime", gcb__str_or_null(h->cuda_runtime)},
      {"nccl", gcb__str_or_null(h->nccl)},
  };
  for (size_t i = 0; i < sizeof rest / sizeof *rest; i++)
    o = gcb__json_set(o, rest[i].key, rest[i].value);
  return o;
}

json_t *gcb_results_gpus_json(const struct gcb_health *gpus, int n) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++)
    a = gcb__json_push(a, gpu_json(&gpus[i]));
  return a;
}
