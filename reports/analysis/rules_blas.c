/*
 * `blas-kernel`: the BLAS ran kernels below what the CPU offers, or the
 * environment chose them. OpenBLAS picks its kernels (its "core") from the
 * CPU at start-up unless OPENBLAS_CORETYPE names one; an OpenBLAS older
 * than the CPU falls back to an old core (0.3.21 on a Sapphire Rapids VM
 * picks Prescott, SSE3, five times slower than its SkylakeX kernels), and
 * OPENBLAS_CORETYPE=Haswell on an AVX-512 CPU halves fp32 GEMM. Nothing in
 * a GEMM figure says so; the run header does (software.blas_run: the core
 * OpenBLAS reported and the CPU's widest vector ISA; run.environment:
 * OPENBLAS_CORETYPE), and this rule reads it:
 *  - the core's ISA below the CPU's: warn when the run has host GEMM
 *    figures (gemm, pattern), else info;
 *  - OPENBLAS_CORETYPE set, the core not below the CPU: info.
 * The core → ISA table is OpenBLAS's x86 core list (driver/others/
 * dynamic.c, corename[]); a core it does not know is not judged.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "reports/analysis/analyze_rules.h"

/* Vector ISAs, narrowest first: the words of software.blas_run.cpu_isa. */
static const char *const isas[] = {"sse2", "sse3",   "avx",
                                   "avx2", "avx512", NULL};

/* OpenBLAS's x86 cores (any case: builds without DYNAMIC_ARCH report
 * "HASWELL") and the widest ISA their kernels use. */
static const struct {
  const char *core;
  int isa; /* index into isas */
} cores[] = {
    {"Katmai", 0},      {"Coppermine", 0},
    {"Northwood", 0},   {"Banias", 0},
    {"Athlon", 0},      {"Opteron", 0},
    {"Prescott", 1},    {"Opteron_SSE3", 1},
    {"Barcelona", 1},   {"Bobcat", 1},
    {"Atom", 1},        {"Core2", 1},
    {"Penryn", 1},      {"Dunnington", 1},
    {"Nehalem", 1},     {"Nano", 1},
    {"Sandybridge", 2}, {"Bulldozer", 2},
    {"Piledriver", 2},  {"Steamroller", 2},
    {"Haswell", 3},     {"Excavator", 3},
    {"Zen", 3},         {"SkylakeX", 4},
    {"Cooperlake", 4},  {"SapphireRapids", 4},
};

/* The core OPENBLAS_CORETYPE would name for the widest kernels of an ISA. */
static const char *const best_core[] = {"Opteron", "Prescott", "Sandybridge",
                                        "Haswell", "SkylakeX"};

static int isa_index(const char *isa) {
  for (int i = 0; isas[i] != NULL; i++)
    if (strcmp(isas[i], isa) == 0)
      return i;
  return -1;
}

static int core_isa(const char *core) {
  for (size_t i = 0; i < sizeof cores / sizeof *cores; i++)
    if (strcasecmp(cores[i].core, core) == 0)
      return cores[i].isa;
  return -1;
}

/* Whether the run has figures the host BLAS made. */
static bool has_blas_figures(const json_t *root) {
  const json_t *c;
  size_t i;
  json_array_foreach(json_object_get(root, "cases"), i, c) {
    const char *bench = gcb_view_str(c, "bench");
    if (strcmp(bench, "gemm") == 0 || strcmp(bench, "pattern") == 0)
      return true;
  }
  return false;
}

/* "a CPU with AVX-512" or, forced, "(OPENBLAS_CORETYPE=Haswell)". */
static void below_cpu(struct gcb_finding *f, const char *lib, const char *core,
                      int have, int could, const char *forced) {
  gcb_finding_explain(
      f,
      "%s runs its %s kernels (%s) on a CPU that offers %s: GEMM figures "
      "are those of the older kernels%s%s%s",
      lib, core, isas[have], isas[could],
      forced[0] ? ", forced by OPENBLAS_CORETYPE=" : " (OpenBLAS's own choice",
      forced, forced[0] ? "" : ": it does not know this CPU)");
  if (forced[0])
    gcb_finding_suggest(f,
                        "unset OPENBLAS_CORETYPE (or set it to %s) and rerun",
                        best_core[could]);
  else
    gcb_finding_suggest(f,
                        "export OPENBLAS_CORETYPE=%s, or use an OpenBLAS "
                        "that knows this CPU, and rerun",
                        best_core[could]);
}

enum gcb_status gcb__rule_blas_kernel(const struct gcb__rule_ctx *cx) {
  const json_t *root = cx->doc->root;
  const json_t *blas = gcb_view_obj(gcb_view_obj(root, "software"), "blas_run");
  if (blas == NULL)
    return GCB_OK;
  const char *core = gcb_view_str(blas, "core");
  const char *lib = gcb_view_str(blas, "library");
  const char *forced =
      gcb_view_str(gcb_view_obj(gcb_view_obj(root, "run"), "environment"),
                   "OPENBLAS_CORETYPE");
  int have = core_isa(core), could = isa_index(gcb_view_str(blas, "cpu_isa"));
  bool below = have >= 0 && could >= 0 && have < could;
  if (!below && forced[0] == '\0')
    return GCB_OK;
  struct gcb_finding *f = gcb__rule_push(
      cx, below && has_blas_figures(root) ? GCB_SEV_WARN : GCB_SEV_INFO);
  if (f == NULL)
    return GCB_ENOMEM;
  gcb_finding_at_rank(f, cx->index, root, 0); /* the header is rank 0's */
  if (below) {
    below_cpu(f, lib, core, have, could, forced);
    return GCB_OK;
  }
  gcb_finding_explain(f,
                      "%s's kernels are chosen by OPENBLAS_CORETYPE=%s, not "
                      "by the CPU: it runs %s",
                      lib, forced, core[0] ? core : "an unknown core");
  gcb_finding_suggest(f, "unset OPENBLAS_CORETYPE unless a comparison needs "
                         "this kernel");
  return GCB_OK;
}
